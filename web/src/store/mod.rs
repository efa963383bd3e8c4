//! Persistence: games, players, ratings and the pairing queue, in SQLite (one process,
//! the default) or PostgreSQL (several processes on one database).
//!
//! A game is a row of `games` and its record's entries are rows of `entries`, one per
//! entry (a deployment, an action, a time-out…). A change of a game is one write
//! ([`Write`]) that **appends** the entries it added and updates the row's small columns
//! (version, clock state, phase, ply…), so it costs the same at ply 5 and at ply 500;
//! the seats and the proposed setups are rewritten only when they changed, the rule set
//! and the record's head (rule set, board, seed) never. A game is rebuilt by replaying
//! its entries ([`crate::table::Table::from_stored`]).
//!
//! Every update names the version it changes (`WHERE version = expected`): a write that
//! finds another version changes nothing and answers [`Written::Conflict`], so that two
//! processes that change one game at once cannot both apply their change — the database
//! serializes a game's actions. The caller catches up and tries again.
//!
//! The two stores share what is not dialect (`rows`: the read statements, written
//! once, and the reading of their rows into these types); each keeps its schema's
//! types, its writes, its locking and its connections.
//!
//! A game's players are noted beside it (`seat_players`: player, game, seat) whenever its
//! seats change, so that a player's finished games are listed without reading every
//! game ([`Store::finished_games`]).
//!
//! Besides the games' secret columns (`seats`: tokens; `pending`: proposed setups), a
//! row keeps public columns that the lobby lists without loading a game: the rule set's
//! name, phase, ply, the seats' kinds and names, the clock settings.

pub mod pg;
mod rows;
pub mod sqlite;
pub mod tls;

use std::fmt;

/// A database failure (the request that caused it changed nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        // The server's message (a unique violation, a closed connection) rather than
        // tokio-postgres's bare "db error".
        // Otherwise the error with its causes: "error performing TLS handshake" says
        // nothing until rustls's "invalid peer certificate: UnknownIssuer" follows it.
        match e.as_db_error() {
            Some(db) => StoreError(format!("{}: {}", db.code().code(), db.message())),
            None => {
                let mut text = e.to_string();
                let mut cause = std::error::Error::source(&e);
                while let Some(c) = cause {
                    let more = c.to_string();
                    if !text.ends_with(&more) {
                        text = format!("{text}: {more}");
                    }
                    cause = c.source();
                }
                StoreError(text)
            }
        }
    }
}

/// A store's result.
pub type Result<T> = std::result::Result<T, StoreError>;

/// A game as stored: the columns a table is rebuilt from, and its entries from
/// `entries_from` on.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// The game id.
    pub id: String,
    /// The rule set as given at creation (a preset name as a JSON string, or an object).
    pub rules: String,
    /// The record's head: the record (junqi-record/1) with no entries and no result.
    pub head: String,
    /// The seats, with their tokens (secret).
    pub seats: String,
    /// The settings, fixed at creation (public): clocks, listed, rated.
    pub settings: String,
    /// The small state that changes with the game: clocks, draw offer, rematch.
    pub state: String,
    /// Proposed setups (secret).
    pub pending: String,
    /// The version.
    pub version: u64,
    /// The result (JSON), once over.
    pub result: Option<String>,
    /// The index of the first of `entries` in the record.
    pub entries_from: usize,
    /// The record's entries (JSON each), from `entries_from` on.
    pub entries: Vec<String>,
    /// Whether the finished game's ratings were applied.
    pub rated: bool,
}

/// A stored game that could not be read (a NULL, a value of the wrong type). It is left
/// in the database as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRow {
    /// The game id, if that column could be read.
    pub id: Option<String>,
    /// Why the row could not be read.
    pub reason: String,
}

/// The public columns of a game, written with every change: what the lobby lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Public {
    /// The rule set's name.
    pub rules_name: String,
    /// The phase (`deploy`, `move`, `reaction`, `over`).
    pub phase: String,
    /// Plies played.
    pub ply: u32,
    /// Whether the game is over.
    pub over: bool,
    /// The result (JSON), once over.
    pub result: Option<String>,
    /// Whether the game is listed in the lobby.
    pub listed: bool,
    /// How many human seats nobody has taken yet.
    pub open_seats: u32,
    /// The seats as anybody may see them: kind, bot, player name, taken (JSON).
    pub seats: String,
}

/// One change of a game: a new game (`expected: None`) or the change of version
/// `expected` to `version`.
#[derive(Clone, Debug, PartialEq)]
pub struct Write {
    /// The game id.
    pub id: String,
    /// The version the change starts from; `None` for a new game.
    pub expected: Option<u64>,
    /// The version after the change.
    pub version: u64,
    /// The index in the record of the first new entry.
    pub first_entry: usize,
    /// The entries the change added (JSON each).
    pub entries: Vec<String>,
    /// For a new game: the rule set, the record's head and the settings.
    pub created: Option<Created>,
    /// The seats, when they changed (always for a new game).
    pub seats: Option<String>,
    /// The proposed setups, when they changed (always for a new game).
    pub pending: Option<String>,
    /// The small state (always written).
    pub state: String,
    /// The public columns.
    pub public: Public,
    /// When (ms since the Unix epoch).
    pub now_ms: i64,
}

/// What a new game writes once.
#[derive(Clone, Debug, PartialEq)]
pub struct Created {
    /// The rule set as given.
    pub rules: String,
    /// The record's head.
    pub head: String,
    /// The settings.
    pub settings: String,
}

/// A game row of a junqi-web 0.1.0 SQLite file: one row per game, the whole record in
/// it. Read by the migration to this schema ([`Store::migrate_0_1`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OldGame {
    /// The game id.
    pub id: String,
    /// The rule set as given at creation.
    pub rules: String,
    /// The seats, with their tokens: `{"south": {"kind": "human", "token": "…"}, …}`.
    pub seats: String,
    /// Seconds per move, if the game has a clock.
    pub move_seconds: Option<u32>,
    /// When the seat to act runs out of time.
    pub deadline_ms: Option<i64>,
    /// The whole record (junqi-record/1).
    pub record: String,
    /// The version.
    pub version: u64,
    /// The side that offers a draw (its name).
    pub draw_offer: Option<String>,
    /// Unconfirmed setups: `{"south": {"a1": "flag", …}}`.
    pub pending: String,
    /// Whether the game is over.
    pub over: bool,
    /// When it last changed.
    pub updated_ms: i64,
}

/// What [`Store::migrate_0_1`] did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Migrated {
    /// Whether this start found a 0.1.0 file: its `games` table was renamed to
    /// `games_0_1` and this schema created.
    pub renamed: bool,
    /// The games converted (written to `games` and `entries`) by this start.
    pub converted: Vec<String>,
    /// The rows of `games_0_1` that are not (or could not be) converted, with why. They
    /// stay in `games_0_1` as they are.
    pub kept: Vec<BadRow>,
}

/// How a 0.1.0 row becomes a new game: the write of the game as new (a [`Write`] with
/// `created`), or why the row does not convert.
pub type Convert = dyn Fn(&OldGame) -> std::result::Result<Write, String> + Send + Sync;

/// How a write went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// It is committed.
    Done,
    /// Nothing was written: the game is not at the expected version (another process
    /// changed it), or a new game's id is taken.
    Conflict,
}

/// A game as the lobby lists it: public columns only.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyRow {
    /// The game id.
    pub id: String,
    /// The rule set's name.
    pub rules_name: String,
    /// The settings (JSON).
    pub settings: String,
    /// The public seats (JSON).
    pub seats: String,
    /// The phase.
    pub phase: String,
    /// Plies played.
    pub ply: u32,
    /// Free human seats.
    pub open_seats: u32,
    /// When it last changed.
    pub updated_ms: i64,
}

/// A finished game of one player, as the player's list of games shows it (see
/// [`Store::finished_games`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedRow {
    /// The game id.
    pub id: String,
    /// The seat the player had.
    pub seat: String,
    /// The rule set's name.
    pub rules_name: String,
    /// The rule set as given at creation (a preset name as a JSON string, or an object).
    pub rules: String,
    /// The result (JSON).
    pub result: Option<String>,
    /// Plies played.
    pub ply: u32,
    /// The public seats (JSON): who played.
    pub seats_public: String,
    /// The seats with their tokens (secret: the player's own seat token is taken from
    /// it, to open the game again).
    pub seats: String,
    /// When the game ended (its last change).
    pub updated_ms: i64,
}

/// The players of a game's seats, read from its public seats (`{"south": {"player":
/// "…", …}, …}`): `(seat, player)` for every seat taken with a player's token. What the
/// stores keep in `seat_players`, from which a player's games are listed.
pub fn seat_players(public_seats: &str) -> Vec<(String, String)> {
    let Ok(serde_json::Value::Object(seats)) = serde_json::from_str(public_seats) else {
        return Vec::new();
    };
    seats
        .iter()
        .filter_map(|(seat, v)| Some((seat.clone(), v.get("player")?.as_str()?.to_owned())))
        .collect()
}

/// A player: a name and a secret; the id is public.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// The player id (public).
    pub id: String,
    /// The name (unique, compared without case).
    pub name: String,
    /// The secret half of the player's token.
    pub secret: String,
    /// When the player was made.
    pub created_ms: i64,
}

/// A player's (or a bot's) standing in one pool.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// The player id (`bot:…` for a bot).
    pub player: String,
    /// The pool: `people` (games between people) or `bots` (games with a bot seat).
    pub pool: String,
    /// The rating.
    pub rating: f64,
    /// The platform's points.
    pub points: i64,
    /// Games rated.
    pub games: i64,
    /// Of which won.
    pub wins: i64,
    /// Of which drawn.
    pub draws: i64,
    /// Of which lost.
    pub losses: i64,
}

/// One seat's rating change in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    /// The game.
    pub game: String,
    /// The side (name).
    pub side: String,
    /// The player id.
    pub player: String,
    /// The pool.
    pub pool: String,
    /// Rating before and after.
    pub rating_before: f64,
    /// Rating after.
    pub rating: f64,
    /// Points before.
    pub points_before: i64,
    /// Points after.
    pub points: i64,
    /// The scoring rule the platform applied (`win`, `quick_win`, …).
    pub rule: String,
}

/// A waiting player of the quick pairing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// The ticket id (secret to its player: it is only answered to the player's token).
    pub ticket: String,
    /// The player waiting.
    pub player: String,
    /// What the player waits for (rule set and clock), as a key.
    pub key: String,
    /// When the player last asked (a ticket not asked for a while is dropped).
    pub polled_ms: i64,
    /// The game found, once paired.
    pub game: Option<String>,
    /// The player's seat in it.
    pub seat: Option<String>,
    /// The seat's token.
    pub token: Option<String>,
}

/// Where games are kept.
pub enum Store {
    /// An SQLite file (one process).
    Sqlite(sqlite::Sqlite),
    /// A PostgreSQL database (any number of processes).
    Postgres(pg::Postgres),
}

macro_rules! both {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Store::Sqlite($s) => $e,
            Store::Postgres($s) => $e.await,
        }
    };
}

impl Store {
    /// Opens a database: `postgres://…` (or `postgresql://…`) for PostgreSQL, else the
    /// path of an SQLite file (created if missing). Creates the tables if missing.
    pub async fn open(spec: &str) -> Result<Store> {
        if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
            Ok(Store::Postgres(pg::Postgres::open(spec).await?))
        } else {
            Ok(Store::Sqlite(sqlite::Sqlite::open(std::path::Path::new(
                spec,
            ))?))
        }
    }

    /// Brings a junqi-web 0.1.0 SQLite file (one `games` table holding each game's whole
    /// record) to this schema, in one transaction: renames its `games` to `games_0_1`
    /// (kept as it is), creates the tables, and writes every row of `games_0_1` that
    /// `games` lacks as the game `convert` makes of it (the same write as a new game's).
    /// A row that does not read or convert stays in `games_0_1` only, and is answered in
    /// [`Migrated::kept`]. On a file already migrated only the rows not converted are
    /// tried again (nothing is written unless one converts now); on a file that never
    /// was 0.1.0, and on PostgreSQL (which 0.1.0 did not have), nothing happens.
    pub async fn migrate_0_1(&self, convert: &Convert) -> Result<Migrated> {
        match self {
            Store::Sqlite(s) => s.migrate_0_1(convert),
            Store::Postgres(_) => Ok(Migrated::default()),
        }
    }

    /// Whether several processes may share this store (PostgreSQL).
    pub fn shared(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// Writes one change of a game, or a new game, in one transaction.
    pub async fn write(&self, w: &Write) -> Result<Written> {
        both!(self, s => s.write(w))
    }

    /// Deletes a game that nobody can have seen (a pairing or rematch that lost a race).
    pub async fn delete_game(&self, id: &str) -> Result<()> {
        both!(self, s => s.delete_game(id))
    }

    /// Every game not over (or every game, with `all`), each read on its own: a row
    /// that cannot be read comes back as a [`BadRow`] and the others still load.
    pub async fn load_games(
        &self,
        all: bool,
    ) -> Result<Vec<std::result::Result<StoredGame, BadRow>>> {
        both!(self, s => s.load_games(all))
    }

    /// One game, with its entries from `entries_from` on; `None` if there is no such
    /// game.
    pub async fn load_game(
        &self,
        id: &str,
        entries_from: usize,
    ) -> Result<Option<std::result::Result<StoredGame, BadRow>>> {
        both!(self, s => s.load_game(id, entries_from))
    }

    /// The listed games not over, most recently changed first.
    pub async fn lobby(&self, limit: u32) -> Result<Vec<LobbyRow>> {
        both!(self, s => s.lobby(limit))
    }

    /// The finished games `player` played a seat of (taken with the player's token),
    /// the most recent first, at most `limit`.
    pub async fn finished_games(&self, player: &str, limit: u32) -> Result<Vec<FinishedRow>> {
        both!(self, s => s.finished_games(player, limit))
    }

    /// Adds a player; [`Written::Conflict`] when the name is taken.
    pub async fn create_player(&self, p: &PlayerRow) -> Result<Written> {
        both!(self, s => s.create_player(p))
    }

    /// A player by id.
    pub async fn player(&self, id: &str) -> Result<Option<PlayerRow>> {
        both!(self, s => s.player(id))
    }

    /// A player's standings (each pool the player has played in).
    pub async fn ratings_of(&self, player: &str) -> Result<Vec<RatingRow>> {
        both!(self, s => s.ratings_of(player))
    }

    /// The best `limit` of a pool, with their names (a bot's name is its id).
    pub async fn leaderboard(&self, pool: &str, limit: u32) -> Result<Vec<(RatingRow, String)>> {
        both!(self, s => s.leaderboard(pool, limit))
    }

    /// The rating changes of a game, by side.
    pub async fn rating_changes(&self, game: &str) -> Result<Vec<RatingChange>> {
        both!(self, s => s.rating_changes(game))
    }

    /// Rates a finished game once: in one transaction, claims the game (a game already
    /// rated is left alone: `Ok(None)`), reads the standings of `players` (each
    /// `(player, pool)`, a new one at `initial`), lets `score` compute the changes and
    /// writes them. Two processes that finish games of one player at once are
    /// serialized (the rows are locked).
    pub async fn rate(
        &self,
        game: &str,
        players: &[(String, String)],
        initial: &RatingRow,
        score: &(dyn Fn(&[RatingRow]) -> Vec<(RatingRow, RatingChange)> + Send + Sync),
    ) -> Result<Option<Vec<RatingChange>>> {
        both!(self, s => s.rate(game, players, initial, score))
    }

    /// Claims the oldest live ticket of `key` of another player than `player`
    /// (`Ok(None)`: nobody waits). Live: asked for since `alive_ms`.
    pub async fn pair_candidate(
        &self,
        key: &str,
        player: &str,
        alive_ms: i64,
    ) -> Result<Option<Ticket>> {
        both!(self, s => s.pair_candidate(key, player, alive_ms))
    }

    /// Gives a taken ticket ([`Store::pair_take`]) its game (`Conflict` if it is not taken).
    pub async fn pair_fill(
        &self,
        ticket: &str,
        game: &str,
        seat: &str,
        token: &str,
    ) -> Result<Written> {
        both!(self, s => s.pair_fill(ticket, game, seat, token))
    }

    /// Puts a player in the queue (one ticket per player: a waiting one is replaced; a
    /// taken or paired one is left, see [`Store::pair_withdraw`]).
    pub async fn pair_enqueue(&self, t: &Ticket) -> Result<()> {
        both!(self, s => s.pair_enqueue(t))
    }

    /// A player's ticket, marked as asked for at `now_ms`.
    pub async fn pair_poll(
        &self,
        ticket: &str,
        player: &str,
        now_ms: i64,
    ) -> Result<Option<Ticket>> {
        both!(self, s => s.pair_poll(ticket, player, now_ms))
    }

    /// Takes a waiting ticket for pairing (its `game` becomes `''`): nobody else can take
    /// or fill it until it is filled ([`Store::pair_fill`]) or released
    /// ([`Store::pair_release`]). [`Written::Conflict`] when somebody has it already.
    pub async fn pair_take(&self, ticket: &str) -> Result<Written> {
        both!(self, s => s.pair_take(ticket))
    }

    /// Puts a taken ticket back in the queue (its pairing did not happen), in its place.
    pub async fn pair_release(&self, ticket: &str) -> Result<()> {
        both!(self, s => s.pair_release(ticket))
    }

    /// Before a player asks again: its ticket if it was paired (the answer to give), and
    /// otherwise drops its waiting ticket (a ticket being taken right now is left).
    pub async fn pair_withdraw(&self, player: &str) -> Result<Option<Ticket>> {
        both!(self, s => s.pair_withdraw(player))
    }

    /// Drops a ticket (the player stopped waiting, or took its game).
    pub async fn pair_cancel(&self, ticket: &str, player: &str) -> Result<()> {
        both!(self, s => s.pair_cancel(ticket, player))
    }
}


/// The pools of ratings: games between people, and games with a bot seat.
pub const POOLS: [&str; 2] = ["people", "bots"];

/// How a name is compared for uniqueness: without case and surrounding space.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}
