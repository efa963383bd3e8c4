//! The SQLite store: one file, one connection, one process. WAL journal with
//! `synchronous = NORMAL`: a committed change is in the log file before the answer is
//! sent, so it survives the server being killed (`kill -9`); a power loss may lose the
//! last changes (`synchronous = FULL` would sync the log on every commit).
//!
//! The calls are short and synchronous (an indexed update and an append); they run on
//! the calling task, holding the connection's lock.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use super::rows;
use super::{
    BadRow, Convert, FinishedRow, LobbyRow, Migrated, OldGame, PlayerRow, RatingChange, RatingRow, Result,
    StoreError, StoredGame, Ticket, Write, Written,
};

/// The tables. `games` keeps one row per game (its secret columns `seats` and
/// `pending`, its public ones for the lobby); `entries` one row per record entry.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    head TEXT NOT NULL,
    settings TEXT NOT NULL,
    seats TEXT NOT NULL,
    pending TEXT NOT NULL,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    entries INTEGER NOT NULL,
    rules_name TEXT NOT NULL,
    phase TEXT NOT NULL,
    ply INTEGER NOT NULL,
    over INTEGER NOT NULL,
    result TEXT,
    listed INTEGER NOT NULL,
    open_seats INTEGER NOT NULL,
    seats_public TEXT NOT NULL,
    rated INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS games_lobby ON games (listed, over, updated_ms);
CREATE TABLE IF NOT EXISTS entries (
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seat_players (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    seat TEXT NOT NULL,
    PRIMARY KEY (player, game, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    secret TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL,
    pool TEXT NOT NULL,
    rating REAL NOT NULL,
    points INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    PRIMARY KEY (player, pool)
);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings (pool, rating);
CREATE TABLE IF NOT EXISTS rating_changes (
    game TEXT NOT NULL,
    side TEXT NOT NULL,
    player TEXT NOT NULL,
    pool TEXT NOT NULL,
    rating_before REAL NOT NULL,
    rating REAL NOT NULL,
    points_before INTEGER NOT NULL,
    points INTEGER NOT NULL,
    rule TEXT NOT NULL,
    PRIMARY KEY (game, side)
);
CREATE TABLE IF NOT EXISTS pairing (
    ticket TEXT PRIMARY KEY,
    player TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    polled_ms INTEGER NOT NULL,
    game TEXT,
    seat TEXT,
    token TEXT
);
";

/// The SQLite store.
pub struct Sqlite {
    conn: Mutex<Connection>,
}

/// Rows of a statement of [`rows`], each read by `read`.
fn all<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl Fn(&rusqlite::Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(&rows::sqlite_sql(sql))?;
    let mut found = stmt.query(params)?;
    let mut out = Vec::new();
    while let Some(r) = found.next()? {
        out.push(read(r)?);
    }
    Ok(out)
}

/// The first row of a statement of [`rows`], read by `read`; `None` if there is none.
fn first<T>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    read: impl Fn(&rusqlite::Row<'_>) -> Result<T>,
) -> Result<Option<T>> {
    let mut stmt = conn.prepare_cached(&rows::sqlite_sql(sql))?;
    let mut found = stmt.query(params)?;
    Ok(match found.next()? {
        Some(r) => Some(read(r)?),
        None => None,
    })
}

/// Whether the file has junqi-web 0.1.0's `games` table (the whole record in a `record`
/// column; no `head`).
fn schema_0_1(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('games')")?;
    let columns: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(columns.iter().any(|c| c == "record") && !columns.iter().any(|c| c == "head"))
}

fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [name],
        |r| r.get(0),
    )
}

/// Fills `seat_players` from the games' public seats: once, when a file written before
/// the table existed is opened.
fn fill_seat_players(conn: &Connection) -> Result<()> {
    let games: Vec<(String, String)> = {
        let mut stmt = conn.prepare("SELECT id, seats_public FROM games")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (id, seats) in games {
        add_seat_players(conn, &id, &seats)?;
    }
    Ok(())
}

/// Notes the players of a game's seats (see [`super::seat_players`]).
fn add_seat_players(conn: &Connection, game: &str, public_seats: &str) -> Result<()> {
    let mut add = conn.prepare_cached(
        "INSERT INTO seat_players (player, game, seat) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    )?;
    for (seat, player) in super::seat_players(public_seats) {
        add.execute(params![player, game, seat])?;
    }
    Ok(())
}

/// A row of `games_0_1`, as [`Sqlite::migrate_0_1`] selects it.
fn read_0_1(r: &rusqlite::Row<'_>) -> std::result::Result<OldGame, BadRow> {
    let row = (|| -> rusqlite::Result<OldGame> {
        Ok(OldGame {
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
            updated_ms: r.get(11)?,
        })
    })();
    row.map_err(|e| BadRow {
        id: r.get(1).ok(),
        reason: format!("games_0_1 rowid {}: {e}", r.get::<_, i64>(0).unwrap_or(-1)),
    })
}

impl Sqlite {
    /// Opens (or creates) the file. A junqi-web 0.1.0 file is left as it is: its tables
    /// are made by [`Sqlite::migrate_0_1`], which the server runs right after.
    pub fn open(path: &Path) -> Result<Sqlite> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        if !schema_0_1(&conn)? {
            let backfill = has_table(&conn, "games")? && !has_table(&conn, "seat_players")?;
            conn.execute_batch(SCHEMA)?;
            if backfill {
                fill_seat_players(&conn)?;
            }
        }
        Ok(Sqlite {
            conn: Mutex::new(conn),
        })
    }

    /// See [`super::Store::migrate_0_1`].
    pub fn migrate_0_1(&self, convert: &Convert) -> Result<Migrated> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut done = Migrated::default();
        if schema_0_1(&tx)? {
            if has_table(&tx, "games_0_1")? {
                return Err(StoreError(
                    "a junqi-web 0.1.0 games table, and a games_0_1 table already: \
                     rename one of them to migrate"
                        .into(),
                ));
            }
            tx.execute_batch("ALTER TABLE games RENAME TO games_0_1;")?;
            tx.execute_batch(SCHEMA)?;
            done.renamed = true;
        }
        if !has_table(&tx, "games_0_1")? {
            return Ok(done);
        }
        let old: Vec<std::result::Result<OldGame, BadRow>> = {
            let mut stmt = tx.prepare(
                "SELECT rowid, id, rules, seats, move_seconds, deadline_ms, record, version,
                    draw_offer, pending, over, updated_ms
                 FROM games_0_1 o WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = o.id)
                 ORDER BY rowid",
            )?;
            let rows = stmt.query_map([], |r| Ok(read_0_1(r)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for row in old {
            let game = match row {
                Ok(game) => game,
                Err(bad) => {
                    done.kept.push(bad);
                    continue;
                }
            };
            let kept = |reason: String| BadRow {
                id: Some(game.id.clone()),
                reason,
            };
            match convert(&game) {
                Ok(w) if w.id != game.id || w.created.is_none() => {
                    return Err(StoreError(format!(
                        "game {}: the conversion is not the write of that game as new",
                        game.id
                    )))
                }
                Ok(w) => match Sqlite::write_on(&tx, &w)? {
                    Written::Done => done.converted.push(w.id),
                    Written::Conflict => done.kept.push(kept("its id is taken".into())),
                },
                Err(reason) => done.kept.push(kept(reason)),
            }
        }
        tx.commit()?;
        Ok(done)
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// See [`super::Store::write`].
    pub fn write(&self, w: &Write) -> Result<Written> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let written = Sqlite::write_on(&tx, w)?;
        if written == Written::Done {
            tx.commit()?;
        }
        Ok(written)
    }

    /// A write in the caller's transaction (a conflict writes nothing).
    fn write_on(tx: &Connection, w: &Write) -> Result<Written> {
        let p = &w.public;
        let changed = match (&w.created, w.expected) {
            (Some(c), None) => tx.prepare_cached(
                "INSERT INTO games (id, rules, head, settings, seats, pending, state, version, entries,
                    rules_name, phase, ply, over, result, listed, open_seats, seats_public, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?18)
                 ON CONFLICT (id) DO NOTHING",
            )?
            .execute(params![
                w.id,
                c.rules,
                c.head,
                c.settings,
                w.seats.as_deref().unwrap_or("{}"),
                w.pending.as_deref().unwrap_or("{}"),
                w.state,
                w.version as i64,
                (w.first_entry + w.entries.len()) as i64,
                p.rules_name,
                p.phase,
                p.ply,
                p.over,
                p.result,
                p.listed,
                p.open_seats,
                p.seats,
                w.now_ms,
            ])?,
            (None, Some(expected)) => tx.prepare_cached(
                "UPDATE games SET version = ?2, entries = ?3, state = ?4,
                    seats = COALESCE(?5, seats), pending = COALESCE(?6, pending),
                    phase = ?7, ply = ?8, over = ?9, result = ?10, listed = ?11, open_seats = ?12,
                    seats_public = ?13, updated_ms = ?14
                 WHERE id = ?1 AND version = ?15 AND entries = ?16",
            )?
            .execute(params![
                w.id,
                w.version as i64,
                (w.first_entry + w.entries.len()) as i64,
                w.state,
                w.seats,
                w.pending,
                p.phase,
                p.ply,
                p.over,
                p.result,
                p.listed,
                p.open_seats,
                p.seats,
                w.now_ms,
                expected as i64,
                w.first_entry as i64,
            ])?,
            _ => return Err(StoreError("a write is a new game or a change of a version".into())),
        };
        if changed != 1 {
            return Ok(Written::Conflict);
        }
        {
            let mut append =
                tx.prepare_cached("INSERT INTO entries (game, seq, entry) VALUES (?1, ?2, ?3)")?;
            for (i, e) in w.entries.iter().enumerate() {
                append.execute(params![w.id, (w.first_entry + i) as i64, e])?;
            }
        }
        if w.seats.is_some() {
            add_seat_players(tx, &w.id, &p.seats)?;
        }
        Ok(Written::Done)
    }

    /// See [`super::Store::delete_game`].
    pub fn delete_game(&self, id: &str) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM entries WHERE game = ?1", [id])?;
        tx.execute("DELETE FROM seat_players WHERE game = ?1", [id])?;
        tx.execute("DELETE FROM games WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    fn entries(
        conn: &Connection,
        g: &mut StoredGame,
        from: usize,
        count: usize,
    ) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached(
            "SELECT seq, entry FROM entries WHERE game = ?1 AND seq >= ?2 AND seq < ?3 ORDER BY seq",
        )?;
        g.entries_from = from;
        g.entries = Vec::with_capacity(count.saturating_sub(from));
        let rows = stmt.query_map(params![g.id, from as i64, count as i64], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        for (i, row) in rows.enumerate() {
            let (seq, entry) = row?;
            if seq as usize != from + i {
                // A missing entry: the replay will say where.
                g.entries.push("null".into());
                break;
            }
            g.entries.push(entry);
        }
        Ok(())
    }

    /// See [`super::Store::load_games`].
    pub fn load_games(&self, all: bool) -> Result<Vec<std::result::Result<StoredGame, BadRow>>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {} FROM games {}",
            rows::GAME_COLUMNS,
            if all {
                ""
            } else {
                "WHERE over = 0 OR rated = 0 OR over IS NULL OR typeof(over) <> 'integer'"
            }
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows: Vec<_> = stmt
            .query_map([], |r| Ok(rows::game(r)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(match row {
                Ok((mut g, count)) => match Sqlite::entries(&conn, &mut g, 0, count) {
                    Ok(()) => Ok(g),
                    Err(e) => Err(BadRow {
                        id: Some(g.id),
                        reason: e.to_string(),
                    }),
                },
                Err(bad) => Err(bad),
            });
        }
        Ok(out)
    }

    /// See [`super::Store::load_game`].
    pub fn load_game(
        &self,
        id: &str,
        entries_from: usize,
    ) -> Result<Option<std::result::Result<StoredGame, BadRow>>> {
        let conn = self.conn();
        let row = conn
            .prepare_cached(&format!("SELECT {} FROM games WHERE id = ?1", rows::GAME_COLUMNS))?
            .query_row([id], |r| Ok(rows::game(r)))
            .optional()?;
        Ok(row.map(|row| {
            let (mut g, count) = row?;
            Sqlite::entries(&conn, &mut g, entries_from, count).map_err(|e| BadRow {
                id: Some(g.id.clone()),
                reason: e.to_string(),
            })?;
            Ok(g)
        }))
    }

    /// See [`super::Store::lobby`].
    pub fn lobby(&self, limit: u32) -> Result<Vec<LobbyRow>> {
        all(&self.conn(), rows::LOBBY, [limit], |r| rows::lobby(r))
    }

    /// See [`super::Store::finished_games`].
    pub fn finished_games(&self, player: &str, limit: u32) -> Result<Vec<FinishedRow>> {
        all(&self.conn(), rows::FINISHED_GAMES, params![player, limit], |r| rows::finished(r))
    }

    /// See [`super::Store::create_player`].
    pub fn create_player(&self, p: &PlayerRow) -> Result<Written> {
        let n = self.conn().prepare_cached(&rows::sqlite_sql(rows::CREATE_PLAYER))?.execute(params![
            p.id,
            p.name,
            super::name_key(&p.name),
            p.secret,
            p.created_ms
        ])?;
        Ok(if n == 1 { Written::Done } else { Written::Conflict })
    }

    /// See [`super::Store::player`].
    pub fn player(&self, id: &str) -> Result<Option<PlayerRow>> {
        first(&self.conn(), rows::PLAYER, [id], |r| rows::player(r))
    }

    /// See [`super::Store::ratings_of`].
    pub fn ratings_of(&self, player: &str) -> Result<Vec<RatingRow>> {
        all(&self.conn(), rows::RATINGS_OF, [player], |r| rows::rating(r))
    }

    /// See [`super::Store::leaderboard`].
    pub fn leaderboard(&self, pool: &str, limit: u32) -> Result<Vec<(RatingRow, String)>> {
        all(&self.conn(), rows::LEADERBOARD, params![pool, limit], |r| rows::leader(r))
    }

    /// See [`super::Store::rating_changes`].
    pub fn rating_changes(&self, game: &str) -> Result<Vec<RatingChange>> {
        all(&self.conn(), rows::RATING_CHANGES, [game], |r| rows::rating_change(r))
    }

    /// See [`super::Store::rate`].
    pub fn rate(
        &self,
        game: &str,
        players: &[(String, String)],
        initial: &RatingRow,
        score: &(dyn Fn(&[RatingRow]) -> Vec<(RatingRow, RatingChange)> + Send + Sync),
    ) -> Result<Option<Vec<RatingChange>>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let claimed = tx.execute(
            "UPDATE games SET rated = 1 WHERE id = ?1 AND rated = 0 AND over = 1",
            [game],
        )?;
        if claimed != 1 {
            return Ok(None);
        }
        let mut before = Vec::with_capacity(players.len());
        for (player, pool) in players {
            let row = first(
                &tx,
                "SELECT player, pool, rating, points, games, wins, draws, losses FROM ratings
                 WHERE player = $1 AND pool = $2",
                params![player, pool],
                |r| rows::rating(r),
            )?;
            before.push(row.unwrap_or_else(|| RatingRow {
                player: player.clone(),
                pool: pool.clone(),
                ..initial.clone()
            }));
        }
        let changes = score(&before);
        for (r, c) in &changes {
            tx.prepare_cached(
                "INSERT INTO ratings (player, pool, rating, points, games, wins, draws, losses)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (player, pool) DO UPDATE SET rating = excluded.rating,
                    points = excluded.points, games = excluded.games, wins = excluded.wins,
                    draws = excluded.draws, losses = excluded.losses",
            )?
            .execute(params![
                r.player, r.pool, r.rating, r.points, r.games, r.wins, r.draws, r.losses
            ])?;
            tx.prepare_cached(
                "INSERT INTO rating_changes (game, side, player, pool, rating_before, rating,
                    points_before, points, rule) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                c.game,
                c.side,
                c.player,
                c.pool,
                c.rating_before,
                c.rating,
                c.points_before,
                c.points,
                c.rule
            ])?;
        }
        tx.commit()?;
        Ok(Some(changes.into_iter().map(|(_, c)| c).collect()))
    }

    /// See [`super::Store::pair_candidate`].
    pub fn pair_candidate(&self, key: &str, player: &str, alive_ms: i64) -> Result<Option<Ticket>> {
        first(&self.conn(), rows::pairing::CANDIDATE, params![key, player, alive_ms], |r| rows::ticket(r))
    }

    /// A pairing statement ([`rows::pairing`]), with its count of changed rows.
    fn pairing(&self, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<usize> {
        Ok(self.conn().prepare_cached(&rows::sqlite_sql(sql))?.execute(params)?)
    }

    /// See [`super::Store::pair_fill`].
    pub fn pair_fill(&self, ticket: &str, game: &str, seat: &str, token: &str) -> Result<Written> {
        let n = self.pairing(rows::pairing::FILL, params![ticket, game, seat, token])?;
        Ok(if n == 1 { Written::Done } else { Written::Conflict })
    }

    /// See [`super::Store::pair_take`].
    pub fn pair_take(&self, ticket: &str) -> Result<Written> {
        let n = self.pairing(rows::pairing::TAKE, params![ticket])?;
        Ok(if n == 1 { Written::Done } else { Written::Conflict })
    }

    /// See [`super::Store::pair_release`].
    pub fn pair_release(&self, ticket: &str) -> Result<()> {
        self.pairing(rows::pairing::RELEASE, params![ticket])?;
        Ok(())
    }

    /// See [`super::Store::pair_withdraw`].
    pub fn pair_withdraw(&self, player: &str) -> Result<Option<Ticket>> {
        let t = first(&self.conn(), rows::pairing::OF_PLAYER, params![player], |r| rows::ticket(r))?;
        if t.as_ref().is_some_and(|t| t.seat.is_some()) {
            return Ok(t);
        }
        self.pairing(rows::pairing::WITHDRAW, params![player])?;
        Ok(None)
    }

    /// See [`super::Store::pair_enqueue`].
    pub fn pair_enqueue(&self, t: &Ticket) -> Result<()> {
        self.pairing(rows::pairing::ENQUEUE, params![t.ticket, t.player, t.key, t.polled_ms])?;
        Ok(())
    }

    /// See [`super::Store::pair_poll`].
    pub fn pair_poll(&self, ticket: &str, player: &str, now_ms: i64) -> Result<Option<Ticket>> {
        let conn = self.conn();
        conn.execute(
            "UPDATE pairing SET polled_ms = ?3 WHERE ticket = ?1 AND player = ?2",
            params![ticket, player, now_ms],
        )?;
        first(&conn, rows::pairing::POLLED, params![ticket, player], |r| rows::ticket(r))
    }

    /// See [`super::Store::pair_cancel`].
    pub fn pair_cancel(&self, ticket: &str, player: &str) -> Result<()> {
        self.conn().execute(
            "DELETE FROM pairing WHERE ticket = ?1 AND player = ?2",
            params![ticket, player],
        )?;
        Ok(())
    }
}
