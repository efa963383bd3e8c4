//! What the two stores share beyond the dialect: the read statements (written once,
//! with PostgreSQL's `$N` placeholders, which [`sqlite_sql`] turns into SQLite's `?N`)
//! and the reading of their rows into the store's types, through [`Cols`], which both
//! drivers' rows implement. What stays apart in [`super::sqlite`] and [`super::pg`] is
//! dialect: the schemas' types, the writes (one SQLite transaction, one PostgreSQL
//! statement), locking, connections and notifications.
//!
//! Booleans are written so both read them: `listed AND NOT over` (SQLite's integers
//! are true when not 0).

use super::{
    BadRow, FinishedRow, LobbyRow, PlayerRow, RatingChange, RatingRow, StoreError, StoredGame,
    Ticket,
};

/// A row of either database, read by column index. An error says which column and why.
pub(crate) trait Cols {
    /// A TEXT column.
    fn text(&self, i: usize) -> Result<String, String>;
    /// A TEXT column that may be NULL.
    fn opt_text(&self, i: usize) -> Result<Option<String>, String>;
    /// An integer column (BIGINT; SQLite's INTEGER).
    fn int(&self, i: usize) -> Result<i64, String>;
    /// A DOUBLE PRECISION column (SQLite's REAL).
    fn real(&self, i: usize) -> Result<f64, String>;
    /// A BOOLEAN column (SQLite's INTEGER, true when not 0).
    fn flag(&self, i: usize) -> Result<bool, String>;
}

impl Cols for rusqlite::Row<'_> {
    fn text(&self, i: usize) -> Result<String, String> {
        self.get(i).map_err(|e| e.to_string())
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>, String> {
        self.get(i).map_err(|e| e.to_string())
    }
    fn int(&self, i: usize) -> Result<i64, String> {
        self.get(i).map_err(|e| e.to_string())
    }
    fn real(&self, i: usize) -> Result<f64, String> {
        self.get(i).map_err(|e| e.to_string())
    }
    fn flag(&self, i: usize) -> Result<bool, String> {
        self.get::<_, i64>(i)
            .map(|v| v != 0)
            .map_err(|e| e.to_string())
    }
}

impl Cols for tokio_postgres::Row {
    fn text(&self, i: usize) -> Result<String, String> {
        self.try_get(i).map_err(|e| e.to_string())
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>, String> {
        self.try_get(i).map_err(|e| e.to_string())
    }
    fn int(&self, i: usize) -> Result<i64, String> {
        self.try_get(i).map_err(|e| e.to_string())
    }
    fn real(&self, i: usize) -> Result<f64, String> {
        self.try_get(i).map_err(|e| e.to_string())
    }
    fn flag(&self, i: usize) -> Result<bool, String> {
        self.try_get(i).map_err(|e| e.to_string())
    }
}

/// A statement of this module for SQLite: `$N` placeholders as `?N` (the statements
/// hold no other `$`).
pub(crate) fn sqlite_sql(sql: &str) -> String {
    sql.replace('$', "?")
}

/// An unreadable row as a store error.
fn bad(what: &str) -> impl Fn(String) -> StoreError + '_ {
    move |e| StoreError(format!("a stored {what} could not be read: {e}"))
}

/// The columns a stored game is read from, in [`game`]'s order.
pub(crate) const GAME_COLUMNS: &str =
    "id, rules, head, seats, settings, state, pending, version, result, entries, rated";

/// A stored game (its entries read apart) and its count of entries; a row that cannot
/// be read is a [`BadRow`] saying why, with its id if that column reads.
pub(crate) fn game(r: &impl Cols) -> Result<(StoredGame, usize), BadRow> {
    let read = || -> Result<(StoredGame, usize), String> {
        Ok((
            StoredGame {
                id: r.text(0)?,
                rules: r.text(1)?,
                head: r.text(2)?,
                seats: r.text(3)?,
                settings: r.text(4)?,
                state: r.text(5)?,
                pending: r.text(6)?,
                version: r.int(7)? as u64,
                result: r.opt_text(8)?,
                entries_from: 0,
                entries: Vec::new(),
                rated: r.flag(10)?,
            },
            r.int(9)? as usize,
        ))
    };
    read().map_err(|reason| BadRow {
        id: r.text(0).ok(),
        reason,
    })
}

/// The lobby: the listed games not over, the most recently changed first.
pub(crate) const LOBBY: &str =
    "SELECT id, rules_name, settings, seats_public, phase, ply, open_seats, updated_ms
     FROM games WHERE listed AND NOT over ORDER BY updated_ms DESC LIMIT $1";

/// A row of [`LOBBY`].
pub(crate) fn lobby(r: &impl Cols) -> Result<LobbyRow, StoreError> {
    let read = || -> Result<LobbyRow, String> {
        Ok(LobbyRow {
            id: r.text(0)?,
            rules_name: r.text(1)?,
            settings: r.text(2)?,
            seats: r.text(3)?,
            phase: r.text(4)?,
            ply: r.int(5)? as u32,
            open_seats: r.int(6)? as u32,
            updated_ms: r.int(7)?,
        })
    };
    read().map_err(bad("lobby entry"))
}

/// A player's finished games ([`super::Store::finished_games`]).
pub(crate) const FINISHED_GAMES: &str =
    "SELECT g.id, sp.seat, g.rules_name, g.result, g.ply, g.seats_public, g.seats, g.updated_ms, g.rules
     FROM seat_players sp JOIN games g ON g.id = sp.game
     WHERE sp.player = $1 AND g.over ORDER BY g.updated_ms DESC, g.id LIMIT $2";

/// A row of [`FINISHED_GAMES`].
pub(crate) fn finished(r: &impl Cols) -> Result<FinishedRow, StoreError> {
    let read = || -> Result<FinishedRow, String> {
        Ok(FinishedRow {
            id: r.text(0)?,
            seat: r.text(1)?,
            rules_name: r.text(2)?,
            result: r.opt_text(3)?,
            ply: r.int(4)? as u32,
            seats_public: r.text(5)?,
            seats: r.text(6)?,
            updated_ms: r.int(7)?,
            rules: r.text(8)?,
        })
    };
    read().map_err(bad("finished game"))
}

/// Adds a player unless the id or the name is taken (nothing then changes).
pub(crate) const CREATE_PLAYER: &str =
    "INSERT INTO players (id, name, name_key, secret, created_ms) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING";

/// A player by id.
pub(crate) const PLAYER: &str = "SELECT id, name, secret, created_ms FROM players WHERE id = $1";

/// A row of [`PLAYER`].
pub(crate) fn player(r: &impl Cols) -> Result<PlayerRow, StoreError> {
    let read = || -> Result<PlayerRow, String> {
        Ok(PlayerRow {
            id: r.text(0)?,
            name: r.text(1)?,
            secret: r.text(2)?,
            created_ms: r.int(3)?,
        })
    };
    read().map_err(bad("player"))
}

/// A player's standings, by pool.
pub(crate) const RATINGS_OF: &str =
    "SELECT player, pool, rating, points, games, wins, draws, losses FROM ratings
     WHERE player = $1 ORDER BY pool";

/// The best of a pool, with their names (a bot's name is its id).
pub(crate) const LEADERBOARD: &str =
    "SELECT r.player, r.pool, r.rating, r.points, r.games, r.wins, r.draws, r.losses,
            COALESCE(p.name, r.player)
     FROM ratings r LEFT JOIN players p ON p.id = r.player
     WHERE r.pool = $1 ORDER BY r.rating DESC, r.player LIMIT $2";

/// A standing: the first eight columns of [`RATINGS_OF`] and [`LEADERBOARD`].
pub(crate) fn rating(r: &impl Cols) -> Result<RatingRow, StoreError> {
    let read = || -> Result<RatingRow, String> {
        Ok(RatingRow {
            player: r.text(0)?,
            pool: r.text(1)?,
            rating: r.real(2)?,
            points: r.int(3)?,
            games: r.int(4)?,
            wins: r.int(5)?,
            draws: r.int(6)?,
            losses: r.int(7)?,
        })
    };
    read().map_err(bad("rating"))
}

/// A row of [`LEADERBOARD`]: the standing and the name.
pub(crate) fn leader(r: &impl Cols) -> Result<(RatingRow, String), StoreError> {
    Ok((rating(r)?, r.text(8).map_err(bad("rating"))?))
}

/// The rating changes of a game, by side.
pub(crate) const RATING_CHANGES: &str =
    "SELECT game, side, player, pool, rating_before, rating, points_before, points, rule
     FROM rating_changes WHERE game = $1 ORDER BY side";

/// A row of [`RATING_CHANGES`].
pub(crate) fn rating_change(r: &impl Cols) -> Result<RatingChange, StoreError> {
    let read = || -> Result<RatingChange, String> {
        Ok(RatingChange {
            game: r.text(0)?,
            side: r.text(1)?,
            player: r.text(2)?,
            pool: r.text(3)?,
            rating_before: r.real(4)?,
            rating: r.real(5)?,
            points_before: r.int(6)?,
            points: r.int(7)?,
            rule: r.text(8)?,
        })
    };
    read().map_err(bad("rating change"))
}

/// A pairing ticket (the columns of [`pairing::OF_PLAYER`]).
pub(crate) fn ticket(r: &impl Cols) -> Result<Ticket, StoreError> {
    let read = || -> Result<Ticket, String> {
        Ok(Ticket {
            ticket: r.text(0)?,
            player: r.text(1)?,
            key: r.text(2)?,
            polled_ms: r.int(3)?,
            game: r.opt_text(4)?,
            seat: r.opt_text(5)?,
            token: r.opt_text(6)?,
        })
    };
    read().map_err(bad("pairing ticket"))
}

/// The pairing queue's statements. A ticket's `game` is NULL while it waits, `''`
/// while somebody is pairing it, the game's id once paired.
pub(crate) mod pairing {
    /// Takes a waiting ticket.
    pub const TAKE: &str = "UPDATE pairing SET game = '' WHERE ticket = $1 AND game IS NULL";
    /// Puts a taken ticket back.
    pub const RELEASE: &str = "UPDATE pairing SET game = NULL WHERE ticket = $1 AND game = ''";
    /// Fills a taken ticket with its game.
    pub const FILL: &str =
        "UPDATE pairing SET game = $2, seat = $3, token = $4 WHERE ticket = $1 AND game = ''";
    /// The oldest ticket waiting for the same key from another player still asking
    /// (`polled_ms` at least `$3`).
    pub const CANDIDATE: &str =
        "SELECT ticket, player, key, polled_ms, game, seat, token FROM pairing
        WHERE key = $1 AND player <> $2 AND game IS NULL AND polled_ms >= $3
        ORDER BY created_ms LIMIT 1";
    /// A ticket, asked for by its player.
    pub const POLLED: &str =
        "SELECT ticket, player, key, polled_ms, game, seat, token FROM pairing WHERE ticket = $1 AND player = $2";
    /// A player's ticket.
    pub const OF_PLAYER: &str =
        "SELECT ticket, player, key, polled_ms, game, seat, token FROM pairing WHERE player = $1";
    /// Drops a player's waiting ticket.
    pub const WITHDRAW: &str = "DELETE FROM pairing WHERE player = $1 AND game IS NULL";
    /// Queues a ticket (one per player: it replaces a waiting one, never a taken or
    /// paired one).
    pub const ENQUEUE: &str = "INSERT INTO pairing (ticket, player, key, created_ms, polled_ms)
        VALUES ($1, $2, $3, $4, $4)
        ON CONFLICT (player) DO UPDATE SET ticket = excluded.ticket, key = excluded.key,
            created_ms = excluded.created_ms, polled_ms = excluded.polled_ms
        WHERE pairing.game IS NULL";
}
