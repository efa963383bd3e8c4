//! The server's state: every game in memory behind its own lock, the database, and the
//! scheduling of what happens without a request (random and bot seats, the clock).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use tokio::sync::watch;

use crate::error::ApiError;
use crate::limits::{Limits, Tally};
use crate::store::Store;
use crate::table::Table;

/// One game: its table, the channel that announces new versions (SSE), and how many
/// live connections each seat has.
pub struct GameHandle {
    /// The table, locked for every read and change.
    pub table: Mutex<Table>,
    /// Announces each new version.
    pub updates: watch::Sender<u64>,
    /// Live SSE connections per seat.
    pub connected: [AtomicUsize; 4],
    /// The game's open event streams, by client address.
    pub streams: Arc<Tally>,
}

impl GameHandle {
    fn new(table: Table) -> GameHandle {
        let (updates, _) = watch::channel(table.version);
        GameHandle {
            table: Mutex::new(table),
            updates,
            connected: Default::default(),
            streams: Default::default(),
        }
    }

    /// Locks the table.
    pub fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Which seats have a live connection.
    pub fn connected(&self) -> [bool; 4] {
        std::array::from_fn(|i| self.connected[i].load(Ordering::Relaxed) > 0)
    }
}

/// The whole server state.
pub struct App {
    /// Every game by id.
    pub games: RwLock<HashMap<String, Arc<GameHandle>>>,
    /// The database.
    pub store: Store,
    /// How long a random seat waits before it acts.
    pub bot_delay: Duration,
    /// Set when the server stops: scheduled work then does nothing.
    pub closed: AtomicBool,
    /// The limits on connections and streams.
    pub limits: Limits,
    /// The open event streams of all games, by client address.
    pub streams: Arc<Tally>,
    /// The stored games that could not be loaded at start, by id, with the reason (for
    /// the operator: the reason may name hidden pieces, so it is never sent to a
    /// client). Their rows are left untouched; requests for them are refused
    /// (`game_unavailable`).
    pub broken: RwLock<HashMap<String, String>>,
}

impl App {
    /// The game with this id.
    pub fn game(&self, id: &str) -> Result<Arc<GameHandle>, ApiError> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        if let Some(game) = games.get(id) {
            return Ok(game.clone());
        }
        let broken = self.broken.read().unwrap_or_else(|e| e.into_inner());
        Err(match broken.contains_key(id) {
            true => ApiError::game_unavailable(id),
            false => ApiError::unknown_game(id),
        })
    }

    /// Whether a game id is taken: by a game in memory or by a row that did not load.
    pub fn taken(&self, id: &str) -> bool {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games.contains_key(id) || {
            let broken = self.broken.read().unwrap_or_else(|e| e.into_inner());
            broken.contains_key(id)
        }
    }

    /// Adds a new game (already committed by [`commit`]).
    pub fn insert(self: &Arc<Self>, table: Table) -> Arc<GameHandle> {
        let id = table.id.clone();
        let handle = Arc::new(GameHandle::new(table));
        self.games
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, handle.clone());
        handle
    }

    /// Loads every stored game and resumes those in progress (random seats, clocks).
    /// A row that cannot be read or replayed (a record that does not replay, seats that
    /// are not seats) is left in the database untouched and listed in
    /// [`broken`](App::broken); every other game is served. Returns how many games
    /// loaded; fails only when the table cannot be read at all.
    pub fn resume_all(self: &Arc<Self>) -> Result<usize, String> {
        let rows = self.store.load_all().map_err(|e| e.to_string())?;
        let mut loaded = 0;
        for row in rows {
            let loaded_row = row
                .map_err(|bad| {
                    let id = bad.id.unwrap_or_else(|| format!("(rowid {})", bad.rowid));
                    (id, bad.reason)
                })
                .and_then(|row| Table::from_row(&row).map_err(|e| (row.id.clone(), e)));
            match loaded_row {
                Ok(table) => {
                    let handle = self.insert(table);
                    let table = handle.lock();
                    schedule(self, &handle, &table);
                    loaded += 1;
                }
                Err((id, reason)) => {
                    self.broken
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(id, reason);
                }
            }
        }
        Ok(loaded)
    }
}

/// Commits a change made to `table`: bumps the version, restarts the clock for the
/// seat to act, writes the row in one transaction, announces the version and schedules
/// what comes next. `before` is the table as it was: if the database refuses the
/// write, the table is put back and the request fails with nothing changed.
pub fn commit(
    app: &Arc<App>,
    handle: &Arc<GameHandle>,
    table: &mut Table,
    before: Table,
) -> Result<(), ApiError> {
    if app.closed.load(Ordering::SeqCst) {
        *table = before;
        return Err(ApiError::internal("the server is stopping"));
    }
    table.version += 1;
    table.deadline_ms = match (table.move_seconds, table.playing()) {
        (Some(secs), true) => Some(crate::clock::now_ms() + i64::from(secs) * 1000),
        _ => None,
    };
    // An offer lapses when the game ends or its seat goes out (docs/siguo.md).
    if !table.playing() || table.draw_offer.is_some_and(|s| table.game.may_decide_draw(s).is_err()) {
        table.draw_offer = None;
    }
    if let Err(e) = app.store.save(&table.to_row()) {
        *table = before;
        return Err(ApiError::internal(format!(
            "the game could not be saved: {e}"
        )));
    }
    handle.updates.send_replace(table.version);
    schedule(app, handle, table);
    Ok(())
}

/// Schedules what happens next without a request: the random or bot seat to act acts
/// after the bot delay (a bot then thinks in the bot pool, [`crate::bot`]); the clock times out the seat to act at its deadline. Each task acts
/// only if the game is still at this version when it wakes.
pub fn schedule(app: &Arc<App>, handle: &Arc<GameHandle>, table: &Table) {
    if !table.playing() || app.closed.load(Ordering::SeqCst) {
        return;
    }
    let Some(side) = table.game.to_act() else {
        return;
    };
    let version = table.version;
    if table.kind_of(side).is_server() {
        let (app, handle) = (app.clone(), handle.clone());
        let delay = app.bot_delay;
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            crate::bot::act(&app, &handle, version, side).await;
        });
    }
    if let Some(deadline) = table.deadline_ms {
        let (app, handle) = (app.clone(), handle.clone());
        tokio::spawn(async move {
            let wait = (deadline - crate::clock::now_ms()).max(0) as u64;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            crate::clock::expire(&app, &handle, version);
        });
    }
}
