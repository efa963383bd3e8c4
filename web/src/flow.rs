//! What happens to a game after a change: the change is committed (the version bumped,
//! the move clock restarted, the row saved, the version announced), and what comes
//! next without a request is scheduled — the random or bot seat to act acts, the clock
//! times out the seat to act at its deadline. The handlers ([`crate::api`]) and these
//! scheduled tasks are the only callers; [`crate::bot`] only decides what a bot plays.
//!
//! The per-move clock: when a game has `move_seconds`, every change restarts the clock
//! for the seat to act; its deadline is stored with the game, so a restarted server
//! keeps it (a deadline that passed while the server was down times out at once). When
//! the deadline passes with the game unchanged, the referee applies a time-out
//! ([`junqi::Game::time_out`]): the turn passes, and the core ends the game when a seat
//! reaches the rule set's `max_timeouts`. There is no clock in the deployment phase.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use junqi::agent::{AgentSpec, Budget};
use junqi::{Rng, Side};

use crate::app::{App, GameHandle};
use crate::error::ApiError;
use crate::seat::SeatKind;
use crate::table::Table;


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
        (Some(secs), true) => Some(app.now_ms() + i64::from(secs) * 1000),
        _ => None,
    };
    // An offer lapses when the game ends or its seat goes out (docs/siguo.md).
    if !table.playing() || table.draw_offer.is_some_and(|s| table.game.may_decide_draw(s).is_err()) {
        table.draw_offer = None;
    }
    if let Err(e) = app.store.save(&table.to_row(), app.now_ms()) {
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
            act(&app, &handle, version, side).await;
        });
    }
    if let Some(deadline) = table.deadline_ms {
        let (app, handle) = (app.clone(), handle.clone());
        tokio::spawn(async move {
            let wait = (deadline - app.now_ms()).max(0) as u64;
            tokio::time::sleep(Duration::from_millis(wait)).await;
            expire(&app, &handle, version);
        });
    }
}

/// Times out the seat to act if the game is still at `version` and its deadline has
/// passed.
pub fn expire(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64) {
    let mut table = handle.lock();
    if table.version != version || !table.playing() {
        return;
    }
    match table.deadline_ms {
        Some(d) if d <= app.now_ms() => {}
        _ => return,
    }
    let before = table.clone();
    if table.game.time_out().is_ok() {
        let _ = commit(app, handle, &mut table, before);
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
    let (lines, left) = {
        let mut table = handle.lock();
        if outdated(&table, version, side) {
            return;
        }
        match table.seats.get(&side).map(|s| s.kind) {
            Some(SeatKind::Random) => {
                play_random(app, handle, &mut table, side);
                return;
            }
            Some(SeatKind::Bot) => {}
            _ => return,
        }
        let left = table.deadline_ms.map(|d| d - app.now_ms());
        (junqi::protocol::referee::seat_lines(&table.game, side), left)
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
        let table = handle.lock();
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
            (Some(_), None) => AgentSpec::Greedy,
            (Some(spec), Some(_)) => spec,
            (None, _) => return,
        };
        // `go` gives the time left on the clock; without a clock, time enough for the
        // spec's own budget (a level's time, or a minute).
        let go_ms = match (left, spec) {
            (Some(ms), _) => u64::try_from(ms).unwrap_or(0),
            (None, AgentSpec::Search { budget: Budget::Millis(ms), .. }) => u64::from(ms) * 2 + 1000,
            (None, _) => 60_000,
        };
        (spec, go_ms)
    };
    let chosen = tokio::task::spawn_blocking(move || {
        catch_unwind(AssertUnwindSafe(|| crate::bot::engine_action(spec, &lines, go_ms))).ok()
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
    let mut table = handle.lock();
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
        let _ = commit(app, handle, &mut table, before);
    }
}

/// One random legal action for `side` (the table is locked and at the right version).
fn play_random(
    app: &Arc<App>,
    handle: &Arc<GameHandle>,
    table: &mut Table,
    side: Side,
) {
    let legal = table.game.legal_actions();
    if legal.is_empty() {
        return;
    }
    let mut rng = Rng::new(junqi::random_seed());
    let action = legal[rng.below(legal.len())];
    let before = table.clone();
    if table.game.play_as(side, action).is_ok() {
        table.draw_offer = None;
        let _ = commit(app, handle, table, before);
    }
}

/// Loads every stored game and resumes those in progress (random seats, clocks).
/// A row that cannot be read or replayed (a record that does not replay, seats that
/// are not seats) is left in the database untouched and listed in
/// [`broken`](App::broken); every other game is served. Returns how many games
/// loaded; fails only when the table cannot be read at all.
pub fn resume_all(app: &Arc<App>) -> Result<usize, String> {
    let rows = app.store.load_all().map_err(|e| e.to_string())?;
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
                let handle = app.insert(table);
                let table = handle.lock();
                schedule(app, &handle, &table);
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
