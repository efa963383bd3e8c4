//! The PostgreSQL store: the database several `junqi-web` processes share.
//!
//! - **Serialized changes.** A game's change is one statement: the update of its row
//!   names the version it changes (`WHERE version = $expected`) and the entries it
//!   appends are inserted in the same statement, from the rows it updated — so a
//!   change that lost the race to another process writes nothing and is answered
//!   [`Written::Conflict`].
//! - **Announced changes.** After a change commits, the process sends
//!   `NOTIFY junqi_games, 'ID VERSION'`; each process LISTENs ([`Postgres::listen`]) and
//!   brings its copy of the game up to date, so a page connected to another process
//!   sees the move within the notification's round trip. The notifications go out on a
//!   connection of their own, in batches, and not in the change's transaction:
//!   PostgreSQL holds a lock over every notifying commit until its log is flushed, so
//!   notifying inside the change would put all changes of all processes in one line,
//!   one disk flush each (about 600 changes a second here instead of thousands). A
//!   notification lost with a process that stopped between its commit and its notify
//!   is made up by every process's sweep of the versions of the games it holds
//!   ([`Postgres::versions`], every two seconds).
//! - **Durable answers.** The answer to a change is sent after its commit, so a
//!   process that dies loses nothing it acknowledged.
//!
//! Connections: a small pool, each connection taken by one query or transaction at a
//! time; a broken connection is replaced on its next use.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{mpsc, Mutex, MutexGuard};
use tokio_postgres::{AsyncMessage, Client};

use super::rows;
use super::tls::Target;
use super::{
    BadRow, FinishedRow, LobbyRow, PlayerRow, RatingChange, RatingRow, Result, StoreError, StoredGame, Ticket,
    Write, Written,
};

/// How many connections a process holds (besides its listening one).
pub const POOL_SIZE: usize = 8;

/// The channel of the games' notifications.
pub const CHANNEL: &str = "junqi_games";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    head TEXT NOT NULL,
    settings TEXT NOT NULL,
    seats TEXT NOT NULL,
    pending TEXT NOT NULL,
    state TEXT NOT NULL,
    version BIGINT NOT NULL,
    entries BIGINT NOT NULL,
    rules_name TEXT NOT NULL,
    phase TEXT NOT NULL,
    ply BIGINT NOT NULL,
    over BOOLEAN NOT NULL,
    result TEXT,
    listed BOOLEAN NOT NULL,
    open_seats BIGINT NOT NULL,
    seats_public TEXT NOT NULL,
    rated BOOLEAN NOT NULL DEFAULT false,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_lobby ON games (listed, over, updated_ms);
CREATE TABLE IF NOT EXISTS entries (
    game TEXT NOT NULL,
    seq BIGINT NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    secret TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL,
    pool TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    points BIGINT NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    PRIMARY KEY (player, pool)
);
CREATE INDEX IF NOT EXISTS ratings_board ON ratings (pool, rating);
CREATE TABLE IF NOT EXISTS rating_changes (
    game TEXT NOT NULL,
    side TEXT NOT NULL,
    player TEXT NOT NULL,
    pool TEXT NOT NULL,
    rating_before DOUBLE PRECISION NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    points_before BIGINT NOT NULL,
    points BIGINT NOT NULL,
    rule TEXT NOT NULL,
    PRIMARY KEY (game, side)
);
CREATE TABLE IF NOT EXISTS seat_players (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    seat TEXT NOT NULL,
    PRIMARY KEY (player, game, seat)
);
CREATE TABLE IF NOT EXISTS pairing (
    ticket TEXT PRIMARY KEY,
    player TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    polled_ms BIGINT NOT NULL,
    game TEXT,
    seat TEXT,
    token TEXT
);
";

/// What the listening connection reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// A game reached a version (possibly written by this process).
    Changed(String, u64),
    /// The listening connection was lost and is back: notifications may have been
    /// missed, so every game held should be brought up to date.
    Resumed,
}

/// The PostgreSQL store.
pub struct Postgres {
    target: Target,
    pool: Vec<Mutex<Option<Client>>>,
    next: AtomicUsize,
    notes: mpsc::UnboundedSender<String>,
}

/// Sends the notifications handed to it, in batches, on a connection of its own
/// (reconnecting when it is lost).
fn notifier(target: Target) -> mpsc::UnboundedSender<String> {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut client: Option<Client> = None;
        let mut batch: Vec<String> = Vec::new();
        loop {
            if batch.is_empty() {
                match rx.recv().await {
                    Some(n) => batch.push(n),
                    None => return,
                }
            }
            while batch.len() < 1000 {
                match rx.try_recv() {
                    Ok(n) => batch.push(n),
                    Err(_) => break,
                }
            }
            if client.as_ref().is_none_or(Client::is_closed) {
                client = connect(&target).await.ok();
            }
            let Some(c) = &client else {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                continue;
            };
            let sent = c
                .execute(
                    "SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n",
                    &[&CHANNEL, &batch],
                )
                .await;
            match sent {
                Ok(_) => batch.clear(),
                Err(_) => client = None,
            }
        }
    });
    tx
}

/// A connection, TLS as the URL asked ([`Target`]).
async fn connect(target: &Target) -> Result<Client> {
    let (client, connection) = target.config.connect(target.tls.clone()).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

/// A connection of the pool, taken.
struct Taken<'a>(MutexGuard<'a, Option<Client>>);

impl Taken<'_> {
    fn client(&mut self) -> &mut Client {
        self.0.as_mut().expect("a taken connection is connected")
    }
}

impl Postgres {
    /// Connects, and creates the tables (once: concurrent starts take an advisory lock).
    pub async fn open(url: &str) -> Result<Postgres> {
        let target = Target::parse(url)?;
        let mut first = connect(&target).await?;
        let tx = first.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock(72657)", &[])
            .await?;
        let backfill: bool = tx
            .query_one(
                "SELECT to_regclass('games') IS NOT NULL AND to_regclass('seat_players') IS NULL",
                &[],
            )
            .await?
            .get(0);
        tx.batch_execute(SCHEMA).await?;
        if backfill {
            // A database written before `seat_players` existed: filled once from the
            // games' public seats (under the advisory lock, so by one process).
            for r in tx.query("SELECT id, seats_public FROM games", &[]).await? {
                let (id, seats): (String, String) = (r.get(0), r.get(1));
                let (seat, player): (Vec<String>, Vec<String>) =
                    super::seat_players(&seats).into_iter().unzip();
                tx.execute(
                    "INSERT INTO seat_players (player, game, seat)
                     SELECT t.player, $1, t.seat FROM unnest($2::text[], $3::text[]) AS t(player, seat)
                     ON CONFLICT DO NOTHING",
                    &[&id, &player, &seat],
                )
                .await?;
            }
        }
        // Earlier versions notified from a trigger, inside the change's transaction.
        tx.batch_execute(
            "DROP TRIGGER IF EXISTS junqi_games_notify ON games; DROP FUNCTION IF EXISTS junqi_notify();",
        )
        .await?;
        tx.commit().await?;
        let mut pool = vec![Mutex::new(Some(first))];
        pool.extend((1..POOL_SIZE).map(|_| Mutex::new(None)));
        Ok(Postgres {
            target: target.clone(),
            pool,
            next: AtomicUsize::new(0),
            notes: notifier(target),
        })
    }

    /// Takes a connection: a free one if any, else waits for the next in turn;
    /// (re)connects it if it is not connected.
    async fn take(&self) -> Result<Taken<'_>> {
        let start = self.next.fetch_add(1, Ordering::Relaxed) % self.pool.len();
        let mut guard = None;
        for i in 0..self.pool.len() {
            if let Ok(g) = self.pool[(start + i) % self.pool.len()].try_lock() {
                guard = Some(g);
                break;
            }
        }
        let mut guard = match guard {
            Some(g) => g,
            None => self.pool[start].lock().await,
        };
        if guard.as_ref().is_none_or(Client::is_closed) {
            *guard = Some(connect(&self.target).await?);
        }
        Ok(Taken(guard))
    }

    /// Listens to the games' notifications on a connection of its own, reconnecting
    /// (every second) when it is lost.
    pub fn listen(&self) -> mpsc::UnboundedReceiver<Note> {
        let (tx, rx) = mpsc::unbounded_channel();
        let target = self.target.clone();
        tokio::spawn(async move {
            let mut first = true;
            loop {
                if tx.is_closed() {
                    return;
                }
                if let Ok((client, mut connection)) = target.config.connect(target.tls.clone()).await {
                    let notes = tx.clone();
                    // Drives the connection (answers and notifications) until it is lost.
                    let driver = tokio::spawn(async move {
                        use futures_util::StreamExt;
                        let mut messages =
                            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                        while let Some(Ok(message)) = messages.next().await {
                            let AsyncMessage::Notification(n) = message else {
                                continue;
                            };
                            let Some((id, v)) = n.payload().split_once(' ') else {
                                continue;
                            };
                            let Ok(v) = v.parse() else { continue };
                            if notes.send(Note::Changed(id.to_owned(), v)).is_err() {
                                return;
                            }
                        }
                    });
                    if client
                        .batch_execute(&format!("LISTEN {CHANNEL}"))
                        .await
                        .is_ok()
                    {
                        if !first && tx.send(Note::Resumed).is_err() {
                            return;
                        }
                        first = false;
                        let _ = driver.await;
                    } else {
                        driver.abort();
                    }
                    drop(client);
                }
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        });
        rx
    }

    /// See [`super::Store::write`].
    pub async fn write(&self, w: &Write) -> Result<Written> {
        let mut c = self.take().await?;
        let p = &w.public;
        let count = (w.first_entry + w.entries.len()) as i64;
        // The players of the seats, noted in `seat_players` when the seats changed (in
        // the same statement as the change, so both or neither are written).
        let (sp_seats, sp_players): (Vec<String>, Vec<String>) = match &w.seats {
            Some(_) => super::seat_players(&p.seats).into_iter().unzip(),
            None => (Vec::new(), Vec::new()),
        };
        let changed: i64 = match (&w.created, w.expected) {
            (Some(cr), None) => {
                c.client()
                    .query_one(
                        "WITH g AS (
                            INSERT INTO games (id, rules, head, settings, seats, pending, state, version, entries,
                                rules_name, phase, ply, over, result, listed, open_seats, seats_public,
                                created_ms, updated_ms)
                            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)
                            ON CONFLICT (id) DO NOTHING RETURNING id),
                         i AS (
                            INSERT INTO entries (game, seq, entry)
                            SELECT g.id, t.ord - 1, t.entry FROM g, unnest($19::text[]) WITH ORDINALITY AS t(entry, ord)
                            RETURNING 1),
                         sp AS (
                            INSERT INTO seat_players (player, game, seat)
                            SELECT t.player, g.id, t.seat FROM g, unnest($20::text[], $21::text[]) AS t(player, seat)
                            ON CONFLICT DO NOTHING RETURNING 1)
                         SELECT (SELECT count(*) FROM g) + 0 * (SELECT count(*) FROM i) + 0 * (SELECT count(*) FROM sp)",
                        &[
                            &w.id,
                            &cr.rules,
                            &cr.head,
                            &cr.settings,
                            &w.seats.as_deref().unwrap_or("{}"),
                            &w.pending.as_deref().unwrap_or("{}"),
                            &w.state,
                            &(w.version as i64),
                            &count,
                            &p.rules_name,
                            &p.phase,
                            &i64::from(p.ply),
                            &p.over,
                            &p.result,
                            &p.listed,
                            &i64::from(p.open_seats),
                            &p.seats,
                            &w.now_ms,
                            &w.entries,
                            &sp_players,
                            &sp_seats,
                        ],
                    )
                    .await?
                    .get(0)
            }
            (None, Some(expected)) => {
                c.client()
                    .query_one(
                        "WITH u AS (
                            UPDATE games SET version = $2, entries = $3, state = $4,
                                seats = COALESCE($5, seats), pending = COALESCE($6, pending),
                                phase = $7, ply = $8, over = $9, result = $10, listed = $11,
                                open_seats = $12, seats_public = $13, updated_ms = $14
                            WHERE id = $1 AND version = $15 AND entries = $16 RETURNING id),
                         i AS (
                            INSERT INTO entries (game, seq, entry)
                            SELECT u.id, $16 + t.ord - 1, t.entry FROM u, unnest($17::text[]) WITH ORDINALITY AS t(entry, ord)
                            RETURNING 1),
                         sp AS (
                            INSERT INTO seat_players (player, game, seat)
                            SELECT t.player, u.id, t.seat FROM u, unnest($18::text[], $19::text[]) AS t(player, seat)
                            ON CONFLICT DO NOTHING RETURNING 1)
                         SELECT (SELECT count(*) FROM u) + 0 * (SELECT count(*) FROM i) + 0 * (SELECT count(*) FROM sp)",
                        &[
                            &w.id,
                            &(w.version as i64),
                            &count,
                            &w.state,
                            &w.seats,
                            &w.pending,
                            &p.phase,
                            &i64::from(p.ply),
                            &p.over,
                            &p.result,
                            &p.listed,
                            &i64::from(p.open_seats),
                            &p.seats,
                            &w.now_ms,
                            &(expected as i64),
                            &(w.first_entry as i64),
                            &w.entries,
                            &sp_players,
                            &sp_seats,
                        ],
                    )
                    .await?
                    .get(0)
            }
            _ => return Err(StoreError("a write is a new game or a change of a version".into())),
        };
        if changed != 1 {
            return Ok(Written::Conflict);
        }
        let _ = self.notes.send(format!("{} {}", w.id, w.version));
        Ok(Written::Done)
    }

    /// The stored versions of these games (those that exist).
    pub async fn versions(&self, ids: &[String]) -> Result<Vec<(String, u64)>> {
        let mut c = self.take().await?;
        let rows = c
            .client()
            .query("SELECT id, version FROM games WHERE id = ANY($1)", &[&ids])
            .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get::<_, i64>(1) as u64))
            .collect())
    }

    /// See [`super::Store::delete_game`].
    pub async fn delete_game(&self, id: &str) -> Result<()> {
        let mut c = self.take().await?;
        c.client()
            .execute(
                "WITH e AS (DELETE FROM entries WHERE game = $1), sp AS (DELETE FROM seat_players WHERE game = $1)
                 DELETE FROM games WHERE id = $1",
                &[&id],
            )
            .await?;
        Ok(())
    }

    async fn entries(c: &mut Client, g: &mut StoredGame, from: usize, count: usize) -> Result<()> {
        let rows = c
            .query(
                "SELECT seq, entry FROM entries WHERE game = $1 AND seq >= $2 AND seq < $3 ORDER BY seq",
                &[&g.id, &(from as i64), &(count as i64)],
            )
            .await?;
        g.entries_from = from;
        g.entries = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let seq: i64 = r.get(0);
            if seq as usize != from + i {
                g.entries.push("null".into());
                break;
            }
            g.entries.push(r.get(1));
        }
        Ok(())
    }

    /// See [`super::Store::load_games`].
    pub async fn load_games(
        &self,
        all: bool,
    ) -> Result<Vec<std::result::Result<StoredGame, BadRow>>> {
        let mut c = self.take().await?;
        let sql = format!(
            "SELECT {} FROM games {}",
            rows::GAME_COLUMNS,
            if all { "" } else { "WHERE NOT over OR NOT rated" }
        );
        let rows = c.client().query(&sql, &[]).await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(match rows::game(r) {
                Ok((mut g, count)) => match Postgres::entries(c.client(), &mut g, 0, count).await {
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
    pub async fn load_game(
        &self,
        id: &str,
        entries_from: usize,
    ) -> Result<Option<std::result::Result<StoredGame, BadRow>>> {
        let mut c = self.take().await?;
        // One round trip: the row and its entries from `entries_from` on (a process
        // catching up after a notification asks this for every change it hears of).
        let sql = format!(
            "SELECT {}, ARRAY(SELECT e.entry FROM entries e WHERE e.game = g.id AND e.seq >= $2 ORDER BY e.seq)
             FROM games g WHERE g.id = $1",
            rows::GAME_COLUMNS
        );
        let Some(r) = c.client().query_opt(&sql, &[&id, &(entries_from as i64)]).await? else {
            return Ok(None);
        };
        Ok(Some(match rows::game(&r) {
            Ok((mut g, count)) => {
                let entries: Vec<String> = r.try_get(11).map_err(|e| StoreError(e.to_string()))?;
                g.entries_from = entries_from;
                g.entries = entries;
                if g.entries.len() != count.saturating_sub(entries_from) {
                    // A missing entry (or one too many): the replay will say where.
                    g.entries.truncate(count.saturating_sub(entries_from));
                    g.entries.push("null".into());
                }
                Ok(g)
            }
            Err(bad) => Err(bad),
        }))
    }

    /// See [`super::Store::lobby`].
    pub async fn lobby(&self, limit: u32) -> Result<Vec<LobbyRow>> {
        let mut c = self.take().await?;
        let found = c.client().query(rows::LOBBY, &[&i64::from(limit)]).await?;
        found.iter().map(rows::lobby).collect()
    }

    /// See [`super::Store::finished_games`].
    pub async fn finished_games(&self, player: &str, limit: u32) -> Result<Vec<FinishedRow>> {
        let mut c = self.take().await?;
        let found = c.client().query(rows::FINISHED_GAMES, &[&player, &i64::from(limit)]).await?;
        found.iter().map(rows::finished).collect()
    }

    /// See [`super::Store::create_player`].
    pub async fn create_player(&self, p: &PlayerRow) -> Result<Written> {
        let mut c = self.take().await?;
        let n = c
            .client()
            .execute(
                rows::CREATE_PLAYER,
                &[&p.id, &p.name, &super::name_key(&p.name), &p.secret, &p.created_ms],
            )
            .await?;
        Ok(if n == 1 {
            Written::Done
        } else {
            Written::Conflict
        })
    }

    /// See [`super::Store::player`].
    pub async fn player(&self, id: &str) -> Result<Option<PlayerRow>> {
        let mut c = self.take().await?;
        c.client().query_opt(rows::PLAYER, &[&id]).await?.map(|r| rows::player(&r)).transpose()
    }

    /// See [`super::Store::ratings_of`].
    pub async fn ratings_of(&self, player: &str) -> Result<Vec<RatingRow>> {
        let mut c = self.take().await?;
        let found = c.client().query(rows::RATINGS_OF, &[&player]).await?;
        found.iter().map(rows::rating).collect()
    }

    /// See [`super::Store::leaderboard`].
    pub async fn leaderboard(&self, pool: &str, limit: u32) -> Result<Vec<(RatingRow, String)>> {
        let mut c = self.take().await?;
        let found = c.client().query(rows::LEADERBOARD, &[&pool, &i64::from(limit)]).await?;
        found.iter().map(rows::leader).collect()
    }

    /// See [`super::Store::rating_changes`].
    pub async fn rating_changes(&self, game: &str) -> Result<Vec<RatingChange>> {
        let mut c = self.take().await?;
        let found = c.client().query(rows::RATING_CHANGES, &[&game]).await?;
        found.iter().map(rows::rating_change).collect()
    }

    /// See [`super::Store::rate`].
    pub async fn rate(
        &self,
        game: &str,
        players: &[(String, String)],
        initial: &RatingRow,
        score: &(dyn Fn(&[RatingRow]) -> Vec<(RatingRow, RatingChange)> + Send + Sync),
    ) -> Result<Option<Vec<RatingChange>>> {
        let mut c = self.take().await?;
        let tx = c.client().transaction().await?;
        let claimed = tx
            .execute(
                "UPDATE games SET rated = true WHERE id = $1 AND NOT rated AND over",
                &[&game],
            )
            .await?;
        if claimed != 1 {
            return Ok(None);
        }
        // Every row exists first (a new player's at the initial standing), then all are
        // locked in one order, so that two games of one player rate one after the other.
        let mut order: Vec<&(String, String)> = players.iter().collect();
        order.sort();
        for (player, pool) in &order {
            tx.execute(
                "INSERT INTO ratings (player, pool, rating, points, games, wins, draws, losses)
                 VALUES ($1, $2, $3, $4, 0, 0, 0, 0) ON CONFLICT DO NOTHING",
                &[player, pool, &initial.rating, &initial.points],
            )
            .await?;
        }
        let mut locked = Vec::with_capacity(order.len());
        for (player, pool) in &order {
            let r = tx
                .query_one(
                    "SELECT player, pool, rating, points, games, wins, draws, losses FROM ratings
                     WHERE player = $1 AND pool = $2 FOR UPDATE",
                    &[player, pool],
                )
                .await?;
            locked.push(rows::rating(&r)?);
        }
        let before: Vec<RatingRow> = players
            .iter()
            .map(|(p, pool)| {
                locked
                    .iter()
                    .find(|r| &r.player == p && &r.pool == pool)
                    .cloned()
                    .expect("locked above")
            })
            .collect();
        let changes = score(&before);
        for (r, ch) in &changes {
            tx.execute(
                "UPDATE ratings SET rating = $3, points = $4, games = $5, wins = $6, draws = $7, losses = $8
                 WHERE player = $1 AND pool = $2",
                &[&r.player, &r.pool, &r.rating, &r.points, &r.games, &r.wins, &r.draws, &r.losses],
            )
            .await?;
            tx.execute(
                "INSERT INTO rating_changes (game, side, player, pool, rating_before, rating,
                    points_before, points, rule) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                &[
                    &ch.game,
                    &ch.side,
                    &ch.player,
                    &ch.pool,
                    &ch.rating_before,
                    &ch.rating,
                    &ch.points_before,
                    &ch.points,
                    &ch.rule,
                ],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(Some(changes.into_iter().map(|(_, c)| c).collect()))
    }

    /// See [`super::Store::pair_candidate`].
    pub async fn pair_candidate(
        &self,
        key: &str,
        player: &str,
        alive_ms: i64,
    ) -> Result<Option<Ticket>> {
        let mut c = self.take().await?;
        c.client()
            .query_opt(rows::pairing::CANDIDATE, &[&key, &player, &alive_ms])
            .await?
            .map(|r| rows::ticket(&r))
            .transpose()
    }

    /// A pairing statement ([`rows::pairing`]), with its count of changed rows.
    async fn pairing(&self, sql: &str, params: &[&(dyn tokio_postgres::types::ToSql + Sync)]) -> Result<u64> {
        let mut c = self.take().await?;
        Ok(c.client().execute(sql, params).await?)
    }

    /// See [`super::Store::pair_fill`].
    pub async fn pair_fill(&self, ticket: &str, game: &str, seat: &str, token: &str) -> Result<Written> {
        let n = self.pairing(rows::pairing::FILL, &[&ticket, &game, &seat, &token]).await?;
        Ok(if n == 1 { Written::Done } else { Written::Conflict })
    }

    /// See [`super::Store::pair_take`].
    pub async fn pair_take(&self, ticket: &str) -> Result<Written> {
        let n = self.pairing(rows::pairing::TAKE, &[&ticket]).await?;
        Ok(if n == 1 { Written::Done } else { Written::Conflict })
    }

    /// See [`super::Store::pair_release`].
    pub async fn pair_release(&self, ticket: &str) -> Result<()> {
        self.pairing(rows::pairing::RELEASE, &[&ticket]).await?;
        Ok(())
    }

    /// See [`super::Store::pair_withdraw`].
    pub async fn pair_withdraw(&self, player: &str) -> Result<Option<Ticket>> {
        let t = {
            let mut c = self.take().await?;
            c.client().query_opt(rows::pairing::OF_PLAYER, &[&player]).await?.map(|r| rows::ticket(&r)).transpose()?
        };
        if t.as_ref().is_some_and(|t| t.seat.is_some()) {
            return Ok(t);
        }
        self.pairing(rows::pairing::WITHDRAW, &[&player]).await?;
        Ok(None)
    }

    /// See [`super::Store::pair_enqueue`].
    pub async fn pair_enqueue(&self, t: &Ticket) -> Result<()> {
        self.pairing(rows::pairing::ENQUEUE, &[&t.ticket, &t.player, &t.key, &t.polled_ms]).await?;
        Ok(())
    }

    /// See [`super::Store::pair_poll`].
    pub async fn pair_poll(
        &self,
        ticket: &str,
        player: &str,
        now_ms: i64,
    ) -> Result<Option<Ticket>> {
        let mut c = self.take().await?;
        c.client()
            .query_opt(
                "UPDATE pairing SET polled_ms = $3 WHERE ticket = $1 AND player = $2
                 RETURNING ticket, player, key, polled_ms, game, seat, token",
                &[&ticket, &player, &now_ms],
            )
            .await?
            .map(|r| rows::ticket(&r))
            .transpose()
    }

    /// See [`super::Store::pair_cancel`].
    pub async fn pair_cancel(&self, ticket: &str, player: &str) -> Result<()> {
        let mut c = self.take().await?;
        c.client()
            .execute(
                "DELETE FROM pairing WHERE ticket = $1 AND player = $2",
                &[&ticket, &player],
            )
            .await?;
        Ok(())
    }
}
