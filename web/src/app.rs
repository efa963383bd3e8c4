//! The server's state: the games this process holds in memory, each behind its own
//! lock, the store, the limits and the clock. What happens to a game after a change
//! (saving, scheduling random and bot seats and time-outs) is [`crate::flow`].
//!
//! A process holds the games in play it loaded at start and every game asked for since
//! (loaded from the store on first use: with PostgreSQL another process may have made
//! it). The store is the truth: a process's copy is brought up to date when another
//! process changes the game ([`crate::flow::catch_up`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::{watch, Mutex, MutexGuard};

use crate::clock::Clock;
use crate::error::ApiError;
use crate::limits::{Limits, Tally};
use crate::store::Store;
use crate::table::Table;

/// One game: its table, the channel that announces new versions (SSE), and how many
/// live connections each seat has.
pub struct GameHandle {
    /// The table, locked for every read and change (across the store's write).
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
    pub async fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().await
    }

    /// Which seats have a live connection.
    pub fn connected(&self) -> [bool; 4] {
        std::array::from_fn(|i| self.connected[i].load(Ordering::Relaxed) > 0)
    }
}

/// The whole server state.
pub struct App {
    /// The games this process holds, by id.
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
    /// The stored games that could not be loaded, by id, with the reason (for the
    /// operator: the reason may name hidden pieces, so it is never sent to a client).
    /// Their rows are left untouched; requests for them are refused
    /// (`game_unavailable`).
    pub broken: RwLock<HashMap<String, String>>,
}

impl App {
    /// Milliseconds since the Unix epoch, on the server's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The game with this id, if this process holds it.
    pub fn held(&self, id: &str) -> Option<Arc<GameHandle>> {
        self.games
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    /// The game with this id among those this process holds (no store lookup): for
    /// tests and tools that look at a game they made.
    pub fn game(&self, id: &str) -> Result<Arc<GameHandle>, ApiError> {
        self.held(id).ok_or_else(|| self.missing(id))
    }

    fn missing(&self, id: &str) -> ApiError {
        let broken = self.broken.read().unwrap_or_else(|e| e.into_inner());
        match broken.contains_key(id) {
            true => ApiError::game_unavailable(id),
            false => ApiError::unknown_game(id),
        }
    }

    /// The game with this id: held, or loaded from the store (and then held; the flag
    /// says the game was loaded by this call, so that its caller schedules what the
    /// game waits for: [`crate::flow::open_game`]). A game whose row does not load is
    /// reported once on stderr and refused (`game_unavailable`).
    pub async fn load_game(&self, id: &str) -> Result<(Arc<GameHandle>, bool), ApiError> {
        if let Some(h) = self.held(id) {
            return Ok((h, false));
        }
        if self
            .broken
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(id)
            || !plausible_id(id)
        {
            return Err(self.missing(id));
        }
        let stored = self
            .store
            .load_game(id, 0)
            .await
            .map_err(|e| ApiError::internal(format!("the game could not be read: {e}")))?;
        let table = match stored {
            None => return Err(ApiError::unknown_game(id)),
            Some(Err(bad)) => return Err(self.mark_broken(id, bad.reason)),
            Some(Ok(g)) => match Table::from_stored(&g) {
                Ok(t) => t,
                Err(reason) => return Err(self.mark_broken(id, reason)),
            },
        };
        Ok(self.insert(table))
    }

    fn mark_broken(&self, id: &str, reason: String) -> ApiError {
        eprintln!("junqi-web: game {id} not loaded (its row is kept unchanged): {reason}");
        self.broken
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned(), reason);
        ApiError::game_unavailable(id)
    }

    /// Holds a table; if the game is already held (loaded meanwhile by another
    /// request), the one held. The flag says whether this table was added.
    pub fn insert(&self, table: Table) -> (Arc<GameHandle>, bool) {
        let mut games = self.games.write().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = games.get(&table.id) {
            return (h.clone(), false);
        }
        let id = table.id.clone();
        let handle = Arc::new(GameHandle::new(table));
        games.insert(id, handle.clone());
        (handle, true)
    }
}

/// Whether a string can be a game id (18 hex digits); anything else is unknown
/// without asking the store.
pub fn plausible_id(id: &str) -> bool {
    id.len() == 18 && id.bytes().all(|b| b.is_ascii_hexdigit())
}
