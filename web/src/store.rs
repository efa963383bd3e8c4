//! Persistence: every game is a row of an SQLite table, written in a transaction after
//! every change. A row holds the rule set, the seats with their tokens, the clock
//! settings and deadline, the full record (JSON), the version, the draw offer and the
//! unconfirmed setups, so a restarted server resumes every game exactly.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection};

/// One game as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The game id.
    pub id: String,
    /// The rule set: a preset name as a JSON string, or the rule set's JSON object.
    pub rules: String,
    /// The seats: `{"south": {"kind": "human", "token": "…"}, …}`.
    pub seats: String,
    /// Seconds per move, if the game has a clock.
    pub move_seconds: Option<u32>,
    /// When the seat to act runs out of time (milliseconds since the Unix epoch).
    pub deadline_ms: Option<i64>,
    /// The full record (junqi-record/1 JSON).
    pub record: String,
    /// The version (bumps on every change).
    pub version: u64,
    /// The seat that offers a draw.
    pub draw_offer: Option<String>,
    /// Unconfirmed setups: `{"south": {"a1": "flag", …}}`.
    pub pending: String,
    /// Whether the game is over.
    pub over: bool,
}

/// The database.
pub struct Store {
    conn: Mutex<Connection>,
}

impl Store {
    /// Opens (or creates) the database file.
    pub fn open(path: &Path) -> rusqlite::Result<Store> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS games (
                id TEXT PRIMARY KEY,
                rules TEXT NOT NULL,
                seats TEXT NOT NULL,
                move_seconds INTEGER,
                deadline_ms INTEGER,
                record TEXT NOT NULL,
                version INTEGER NOT NULL,
                draw_offer TEXT,
                pending TEXT NOT NULL,
                over INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL
            );",
        )?;
        Ok(Store {
            conn: Mutex::new(conn),
        })
    }

    /// Writes a game's row, in one transaction: inserts it the first time, then updates
    /// every column but the id and the rule set, which never change (a custom rule set
    /// can be tens of kilobytes, and is not rewritten on every move).
    pub fn save(&self, row: &Row, now_ms: i64) -> rusqlite::Result<()> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO games
             (id, rules, seats, move_seconds, deadline_ms, record, version, draw_offer, pending, over, updated_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT (id) DO UPDATE SET
             seats = excluded.seats, move_seconds = excluded.move_seconds,
             deadline_ms = excluded.deadline_ms, record = excluded.record,
             version = excluded.version, draw_offer = excluded.draw_offer,
             pending = excluded.pending, over = excluded.over, updated_ms = excluded.updated_ms",
            params![
                row.id,
                row.rules,
                row.seats,
                row.move_seconds,
                row.deadline_ms,
                row.record,
                row.version as i64,
                row.draw_offer,
                row.pending,
                row.over,
                now_ms,
            ],
        )?;
        tx.commit()
    }

    /// Every stored game, each row read on its own: a row whose columns cannot be read
    /// (a NULL or a value of the wrong type) comes back as a [`BadRow`] and the other
    /// rows still load. Only a failure to run the query at all is an error.
    pub fn load_all(&self) -> rusqlite::Result<Vec<Result<Row, BadRow>>> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut stmt = conn.prepare(
            "SELECT rowid, id, rules, seats, move_seconds, deadline_ms, record, version, draw_offer, pending, over FROM games",
        )?;
        let rows = stmt.query_map([], |r| {
            let row = (|| {
                Ok(Row {
                    id: r.get(1)?,
                    rules: r.get(2)?,
                    seats: r.get(3)?,
                    move_seconds: r.get(4)?,
                    deadline_ms: r.get(5)?,
                    record: r.get(6)?,
                    version: r.get::<_, i64>(7)? as u64,
                    draw_offer: r.get(8)?,
                    pending: r.get(9)?,
                    over: r.get(10)?,
                })
            })();
            Ok(row.map_err(|e: rusqlite::Error| BadRow {
                rowid: r.get(0).unwrap_or(-1),
                id: r.get(1).ok(),
                reason: e.to_string(),
            }))
        })?;
        rows.collect()
    }
}

/// A stored row that could not be read. It is left in the database as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRow {
    /// SQLite's rowid of the row.
    pub rowid: i64,
    /// The game id, if that column could be read.
    pub id: Option<String>,
    /// Why the row could not be read.
    pub reason: String,
}
