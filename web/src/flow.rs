//! What happens to a game after a change: the change is committed (the version bumped,
//! the clocks brought up to it, the change written to the store, the version
//! announced), and what comes next without a request is scheduled — the random or bot
//! seat to act acts, the clock times out the seat to act at its deadline, the
//! deployment clock deploys whoever has not, a finished game is rated. The handlers
//! ([`crate::api`], [`crate::lobby`]) and these scheduled tasks are the only callers;
//! [`crate::bot`] only decides what a bot plays, [`crate::timer`] what the clocks say.
//!
//! Several processes on one database: each holds its own copy of a game. A change is
//! written only if the stored game is still at the version the change started from
//! ([`crate::store::Written::Conflict`] otherwise: the copy is brought up to date with
//! [`catch_up`] and a request is tried again), and every process hears of every new
//! version (PostgreSQL's LISTEN/NOTIFY, [`follow`]) and catches up. The process that
//! made a change schedules what comes next; the others stand by: they act for a server
//! seat or apply a time-out only [`STANDBY_MS`] later than it would, which happens only
//! when the process that should have did not (it stopped).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use junqi::agent::{AgentSpec, Budget};
use junqi::{Phase, Rng, Side};

use crate::app::{App, GameHandle};
use crate::error::ApiError;
use crate::seat::SeatKind;
use crate::store::{Write, Written};
use crate::table::Table;

/// How much later than the process that made a change another process acts for a
/// server seat or applies a time-out of that game (if the game has not moved on).
pub const STANDBY_MS: u64 = 3000;

/// How often a process compares the versions of the games it holds with the store's.
pub const SWEEP: Duration = Duration::from_secs(2);

/// The environment variable that sets the sweep's period in seconds instead of
/// [`SWEEP`] (tests set it long, so as to show that the notifications alone keep the
/// processes up to date).
pub const SWEEP_ENV: &str = "JUNQI_WEB_SWEEP_SECONDS";

/// The sweep's period: [`SWEEP_ENV`] when it is a positive number of seconds, else
/// [`SWEEP`].
fn sweep_period() -> Duration {
    std::env::var(SWEEP_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e6)
        .map_or(SWEEP, Duration::from_secs_f64)
}

/// The answer when another process changed the game first (the copy is caught up).
pub fn conflict() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::CONFLICT,
        "conflict",
        "the game changed while this request was applied; nothing was done, try again",
    )
}

/// Commits a change made to `table`: bumps the version, brings the clocks up to it,
/// writes the change to the store (its new record entries appended, the small columns
/// updated) in one transaction that checks the stored version, announces the version
/// and schedules what comes next. `before` is the table as it was: if the store refuses
/// the write, or another process changed the game first, the table is put back and
/// the request fails with nothing changed (`conflict` after the copy is caught up).
pub async fn commit(
    app: &Arc<App>,
    handle: &Arc<GameHandle>,
    table: &mut Table,
    before: Table,
) -> Result<(), ApiError> {
    if app.closed.load(Ordering::SeqCst) {
        *table = before;
        return Err(ApiError::internal("the server is stopping"));
    }
    let now = app.now_ms();
    settle(table, &before, now);
    let write = Write {
        id: table.id.clone(),
        expected: Some(before.version),
        version: table.version,
        first_entry: before.game.record_len(),
        entries: entries_json(table, before.game.record_len()),
        created: None,
        seats: (table.seats != before.seats).then(|| table.seats_json()),
        pending: (table.pending != before.pending).then(|| table.pending_json()),
        state: table.state_json(),
        public: table.public(),
        now_ms: now,
    };
    match app.store.write(&write).await {
        Ok(Written::Done) => {}
        Ok(Written::Conflict) => {
            *table = before;
            catch_up_locked(app, handle, table).await;
            return Err(conflict());
        }
        Err(e) => {
            *table = before;
            return Err(ApiError::internal(format!(
                "the game could not be saved: {e}"
            )));
        }
    }
    handle.updates.send_replace(table.version);
    schedule(app, handle, table, false);
    Ok(())
}

/// The new version of a table after a change: the version bumped, the clocks settled,
/// a draw offer dropped when the game ended or its seat went out.
fn settle(table: &mut Table, before: &Table, now: i64) {
    table.version = before.version + 1;
    let timed_out = table
        .game
        .record_entries(before.game.record_len())
        .iter()
        .any(|e| matches!(e, junqi::RecordEntry::TimeOut { .. }));
    let full = table.full();
    table.deadline_ms =
        table
            .clock
            .settle(&table.settings.clock, &table.game, full, timed_out, now);
    // An offer lapses when the game ends or its seat goes out (docs/siguo.md).
    if !table.playing()
        || table
            .draw_offer
            .is_some_and(|s| table.game.may_decide_draw(s).is_err())
    {
        table.draw_offer = None;
    }
}

fn entries_json(table: &Table, from: usize) -> Vec<String> {
    table
        .game
        .record_entries(from)
        .iter()
        .map(|e| serde_json::to_string(e).expect("an entry serialises"))
        .collect()
}

/// Writes a new game (its version 1) and holds it. Fails with `conflict` if the id is
/// taken (the caller picks another).
pub async fn create(app: &Arc<App>, mut table: Table) -> Result<Arc<GameHandle>, ApiError> {
    if app.closed.load(Ordering::SeqCst) {
        return Err(ApiError::internal("the server is stopping"));
    }
    let now = app.now_ms();
    let fresh = Table {
        version: 0,
        ..table.clone()
    };
    settle(&mut table, &fresh, now);
    let write = table.created_write(now);
    match app.store.write(&write).await {
        Ok(Written::Done) => {}
        Ok(Written::Conflict) => return Err(conflict()),
        Err(e) => {
            return Err(ApiError::internal(format!(
                "the game could not be saved: {e}"
            )))
        }
    }
    let (handle, _) = app.insert(table);
    {
        let table = handle.lock().await;
        handle.updates.send_replace(table.version);
        schedule(app, &handle, &table, false);
    }
    Ok(handle)
}

/// The game with this id, held or loaded from the store ([`App::load_game`]); a game
/// loaded now gets what it waits for scheduled (a server seat's move, a time-out).
pub async fn open_game(app: &Arc<App>, id: &str) -> Result<Arc<GameHandle>, ApiError> {
    let (handle, fresh) = app.load_game(id).await?;
    if fresh {
        let table = handle.lock().await;
        schedule(app, &handle, &table, true);
    }
    Ok(handle)
}

/// Schedules what happens next without a request: the random or bot seat to act acts
/// after the bot delay (a bot then thinks in the bot pool, [`crate::bot`]); at the
/// deadline the clock times out the seat to act, or deploys whoever has not deployed;
/// a finished game is rated. Each task acts only if the game is still at this version
/// when it wakes. A process that learned of the change from another (`standby`) waits
/// [`STANDBY_MS`] longer.
pub fn schedule(app: &Arc<App>, handle: &Arc<GameHandle>, table: &Table, standby: bool) {
    if app.closed.load(Ordering::SeqCst) {
        return;
    }
    let extra = if standby {
        Duration::from_millis(STANDBY_MS)
    } else {
        Duration::ZERO
    };
    if table.over() {
        if !table.rated_done {
            let (app, handle) = (app.clone(), handle.clone());
            tokio::spawn(async move {
                tokio::time::sleep(extra).await;
                crate::players::rate_game(&app, &handle).await;
            });
        }
        return;
    }
    let version = table.version;
    if let Some(deadline) = table.deadline_ms {
        let (app, handle) = (app.clone(), handle.clone());
        tokio::spawn(async move {
            let mut extra = extra;
            loop {
                let wait = Duration::from_millis((deadline - app.now_ms()).max(0) as u64);
                tokio::time::sleep(wait + extra).await;
                extra = Duration::ZERO;
                // The game's clock (`App::now_ms`) decides, not the timer: woken before
                // the deadline by that clock (a wall clock set back, a test's hand
                // clock), sleep again, as long as the game has not moved on.
                if app.now_ms() >= deadline || *handle.updates.borrow() != version {
                    break;
                }
            }
            expire(&app, &handle, version).await;
        });
    }
    if !table.playing() {
        return;
    }
    let Some(side) = table.game.to_act() else {
        return;
    };
    if table.kind_of(side).is_server() {
        let (app, handle) = (app.clone(), handle.clone());
        let delay = app.bot_delay + extra;
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            act(&app, &handle, version, side).await;
        });
    }
}

/// At a deadline, if the game is still at `version` and the deadline has passed: in
/// play, the core's time-out of the seat to act; in the deployment, every seat that
/// has not deployed deploys its proposal (or a random setup).
pub async fn expire(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64) {
    let mut table = handle.lock().await;
    if table.version != version || table.over() {
        return;
    }
    match table.deadline_ms {
        Some(d) if d <= app.now_ms() => {}
        _ => return,
    }
    let before = table.clone();
    let changed = if table.game.phase() == Phase::Deploy {
        let sides: Vec<Side> = table.game.rules().sides().to_vec();
        let mut any = false;
        for side in sides {
            if table.game.may_deploy(side).is_err() {
                continue;
            }
            // The proposal, or (none, or one the rules refuse) the seat's setup of the
            // game's seeded start (the core's random deployment).
            let proposed = table.pending.remove(&side).is_some_and(|s| table.game.deploy(side, &s).is_ok());
            any |= proposed || table.game.deploy_start(side).is_ok();
        }
        any
    } else {
        table.game.time_out().is_ok()
    };
    if changed {
        let _ = commit(app, handle, &mut table, before).await;
    }
}

/// Whether the game moved on from `version`, or `side` is no longer to act.
fn outdated(table: &Table, version: u64, side: Side) -> bool {
    table.version != version || !table.playing() || table.game.to_act() != Some(side)
}

/// Plays for the server-played seat `side` if the game is still at `version` with
/// `side` to act: a random seat at once, a bot after its engine thinks in the pool. A
/// bot seat is an engine of the line protocol ([`crate::bot::engine_action`]): it is
/// told what its seat has been told ([`junqi::protocol::referee::seat_lines`], taken
/// under the table's lock) and asked for an action with the time its clock leaves.
pub async fn act(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64, side: Side) {
    // What the seat has been told, its clock, and what it may play now (the answer is
    // checked against it off the lock).
    let (lines, left, rules, legal) = {
        let mut table = handle.lock().await;
        if outdated(&table, version, side) {
            return;
        }
        match table.seats.get(&side).map(|s| s.kind) {
            Some(SeatKind::Random) => {
                play_random(app, handle, &mut table, side).await;
                return;
            }
            Some(SeatKind::Bot) => {}
            _ => return,
        }
        let left = table.deadline_ms.map(|d| d - app.now_ms());
        let lines = junqi::protocol::referee::seat_lines(&table.game, side);
        (lines, left, table.game.rules().clone(), table.game.legal_actions())
    };
    // Wait for the pool at most half of what is left on the clock: past that, play
    // greedy (one ply, cheap) without a place in the pool, so as to answer in time.
    let permit = match left {
        None => crate::bot::pool().acquire().await.ok(),
        Some(ms) => {
            let wait = Duration::from_millis(u64::try_from(ms / 2).unwrap_or(0));
            tokio::time::timeout(wait, crate::bot::pool().acquire())
                .await
                .ok()
                .and_then(Result::ok)
        }
    };
    if permit.is_none() && left.is_none() {
        return; // the pool is closed (never, in practice)
    }
    // The budget is fitted to the clock once the pool has room (waiting took time).
    let (spec, go_ms) = {
        let table = handle.lock().await;
        if outdated(&table, version, side) {
            return;
        }
        let left = table.deadline_ms.map(|d| d - app.now_ms());
        let spec = match (
            table
                .seats
                .get(&side)
                .and_then(|seat| crate::bot::think_spec(seat, left)),
            &permit,
        ) {
            (Some(_), None) => AgentSpec::GREEDY,
            (Some(spec), Some(_)) => spec,
            (None, _) => return,
        };
        // `go` gives the time left on the clock; without a clock, time enough for the
        // spec's own budget (twice a level's or a time budget's time and a second, or
        // ten seconds for a greedy or iteration-budget agent): an operator's engine that
        // hangs holds its place in the pool no longer than that, then the built-in
        // engine answers.
        let go_ms = match (left, spec) {
            (Some(ms), _) => u64::try_from(ms).unwrap_or(0),
            (None, spec) => match spec.budget() {
                Some(Budget::Millis(ms)) => u64::from(ms) * 2 + 1000,
                Some(Budget::Level(l)) => u64::from(Budget::level_millis(l)) * 2 + 1000,
                _ => 10_000,
            },
        };
        (spec, go_ms)
    };
    let chosen = tokio::task::spawn_blocking(move || {
        let check = |notation: &str| match junqi::Action::parse(rules.board(), notation) {
            Ok(a) if legal.contains(&a) => Ok(()),
            Ok(_) => Err(format!("{notation} is not a legal action of the seat")),
            Err(e) => Err(format!("{notation:?} does not read: {e}")),
        };
        catch_unwind(AssertUnwindSafe(|| crate::bot::engine_action(spec, &lines, go_ms, &check))).ok()
    })
    .await;
    drop(permit);
    let notation = match chosen {
        Ok(Some(Ok(n))) => n,
        Ok(Some(Err(f))) => {
            eprintln!("junqi-web: the bot of {side} gave no action: {f}");
            return;
        }
        _ => return,
    };
    let mut table = handle.lock().await;
    if outdated(&table, version, side) {
        return;
    }
    let Ok(action) = junqi::Action::parse(table.game.board(), notation.trim()) else {
        eprintln!("junqi-web: the bot of {side} answered {notation:?}, no action");
        return;
    };
    let before = table.clone();
    if table.game.play_as(side, action).is_ok() {
        table.draw_offer = None;
        let _ = commit(app, handle, &mut table, before).await;
    }
}

/// One random legal action for `side` (the table is locked and at the right version).
async fn play_random(app: &Arc<App>, handle: &Arc<GameHandle>, table: &mut Table, side: Side) {
    let legal = table.game.legal_actions();
    if legal.is_empty() {
        return;
    }
    let mut rng = Rng::new(junqi::random_seed());
    let action = legal[rng.below(legal.len())];
    let before = table.clone();
    if table.game.play_as(side, action).is_ok() {
        table.draw_offer = None;
        let _ = commit(app, handle, table, before).await;
    }
}

/// Loads every stored game in play (and every finished game not yet rated) and
/// resumes it: random and bot seats, clocks, ratings. With a shared store (other
/// processes may be serving these games) it resumes them as a standby. A row that cannot be read or
/// replayed (a record that does not replay, seats that are not seats) is left in the
/// store untouched and listed in [`broken`](App::broken); every other game is served.
/// Returns how many games loaded; fails only when the store cannot be read at all.
pub async fn resume_all(app: &Arc<App>) -> Result<usize, String> {
    let rows = app
        .store
        .load_games(false)
        .await
        .map_err(|e| e.to_string())?;
    let mut loaded = 0;
    for row in rows {
        let loaded_row = row
            .map_err(|bad| {
                (
                    bad.id.unwrap_or_else(|| "(unreadable id)".into()),
                    bad.reason,
                )
            })
            .and_then(|g| Table::from_stored(&g).map_err(|e| (g.id.clone(), e)));
        match loaded_row {
            Ok(table) => {
                let (handle, _) = app.insert(table);
                let table = handle.lock().await;
                schedule(app, &handle, &table, app.store.shared());
                loaded += 1;
            }
            Err((id, reason)) => {
                app.broken
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id, reason);
            }
        }
    }
    Ok(loaded)
}

/// Brings a held game up to what is stored (another process changed it): plays the
/// entries it lacks, takes the stored columns, announces the version to this process's
/// pages and schedules as a standby. A copy that cannot follow on is reloaded whole.
pub async fn catch_up(app: &Arc<App>, handle: &Arc<GameHandle>) {
    let mut table = handle.lock().await;
    catch_up_locked(app, handle, &mut table).await;
}

async fn catch_up_locked(app: &Arc<App>, handle: &Arc<GameHandle>, table: &mut Table) {
    let Ok(Some(Ok(stored))) = app
        .store
        .load_game(&table.id, table.game.record_len())
        .await
    else {
        return;
    };
    if stored.version <= table.version {
        return;
    }
    if table.catch_up(&stored).is_err() {
        // Not a continuation of this copy: read the whole game again.
        let Ok(Some(Ok(whole))) = app.store.load_game(&table.id, 0).await else {
            return;
        };
        match Table::from_stored(&whole) {
            Ok(t) => *table = t,
            Err(_) => return,
        }
    }
    handle.updates.send_replace(table.version);
    schedule(app, handle, table, true);
}

/// Follows the store's notifications (PostgreSQL): every game this process holds is
/// brought up to date when another process changes it, and all of them when the
/// listening connection was lost and is back. Every [`SWEEP`] (or [`SWEEP_ENV`]) the versions of the
/// held games in play are compared with the stored ones too, which makes up for a
/// notification that was never sent (its process stopped right after the commit).
pub fn follow(app: &Arc<App>) {
    let crate::store::Store::Postgres(pg) = &app.store else {
        return;
    };
    let mut notes = pg.listen();
    let sweeper = app.clone();
    let period = sweep_period();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(period).await;
            if sweeper.closed.load(Ordering::SeqCst) {
                return;
            }
            let held: Vec<(String, Arc<GameHandle>)> = sweeper
                .games
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(id, h)| (id.clone(), h.clone()))
                .collect();
            let ids: Vec<String> = held.iter().map(|(id, _)| id.clone()).collect();
            let crate::store::Store::Postgres(pg) = &sweeper.store else { return };
            let Ok(stored) = pg.versions(&ids).await else { continue };
            for (id, version) in stored {
                if let Some((_, h)) = held.iter().find(|(i, _)| *i == id) {
                    if *h.updates.borrow() < version {
                        catch_up(&sweeper, h).await;
                    }
                }
            }
        }
    });
    let app = app.clone();
    tokio::spawn(async move {
        use crate::store::pg::Note;
        while let Some(note) = notes.recv().await {
            if app.closed.load(Ordering::SeqCst) {
                return;
            }
            let behind: Vec<Arc<GameHandle>> = match note {
                Note::Changed(id, version) => app
                    .held(&id)
                    .filter(|h| *h.updates.borrow() < version)
                    .into_iter()
                    .collect(),
                Note::Resumed => app
                    .games
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .values()
                    .cloned()
                    .collect(),
            };
            for handle in behind {
                let app = app.clone();
                tokio::spawn(async move { catch_up(&app, &handle).await });
            }
        }
    });
}
