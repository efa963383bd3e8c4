//! The server's state: every game in memory behind its own lock, the database, the
//! limits and the clock. What happens to a game after a change (saving, scheduling
//! random and bot seats and time-outs) is [`crate::flow`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use tokio::sync::watch;

use crate::clock::Clock;
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
    /// Where the server reads the time ([`crate::clock::SystemClock`] but in tests).
    pub clock: Arc<dyn Clock>,
    /// The stored games that could not be loaded at start, by id, with the reason (for
    /// the operator: the reason may name hidden pieces, so it is never sent to a
    /// client). Their rows are left untouched; requests for them are refused
    /// (`game_unavailable`).
    pub broken: RwLock<HashMap<String, String>>,
}

impl App {
    /// Milliseconds since the Unix epoch, on the server's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

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

    /// Adds a new game (already committed by [`crate::flow::commit`]).
    pub fn insert(self: &Arc<Self>, table: Table) -> Arc<GameHandle> {
        let id = table.id.clone();
        let handle = Arc::new(GameHandle::new(table));
        self.games
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, handle.clone());
        handle
    }
}
