//! Seats the server plays: random seats and bots (the engine's agents).
//!
//! - A random seat deploys a random setup when the game is created and, when it is to
//!   act, plays a legal action chosen uniformly at random (OS randomness) after the
//!   configured delay.
//! - A bot seat (`greedy`, or the search at a level 1–5) deploys the agent's setup when
//!   the game is created and, when it is to act, thinks from its seat's information
//!   state alone ([`junqi::Game::info_state`]) — never from the referee's position.
//!
//! Bots think off the request path: in tokio's blocking threads, at most
//! [`pool_size`] at once for the whole server (a semaphore; the others wait their
//! turn), with the table's lock released while they think. A level is a time per move
//! ([`level_millis`]: level 3 thinks about a second), cut to half of what is left of
//! the seat's clock when the game has one, so a bot answers in time even when it had
//! to wait for the pool; a bot that waited half its time for the pool plays greedy
//! (one ply, cheap) outside it. A bot that finds the game changed when it has chosen (a
//! time-out, a resignation) drops its choice. Server-played seats ignore draw offers.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use junqi::agent::{AgentSpec, Budget};
use junqi::{Game, Rng, Side};
use tokio::sync::Semaphore;

use crate::app::{commit, App, GameHandle};
use crate::error::ApiError;
use crate::seat::{Seat, SeatKind};

/// How many bots think at once, server-wide: the machine's cores, at most 4.
pub fn pool_size() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
}

fn pool() -> &'static Semaphore {
    static POOL: OnceLock<Semaphore> = OnceLock::new();
    POOL.get_or_init(|| Semaphore::new(pool_size()))
}

/// The time per move of a search level: 250 ms at level 1, doubling to 4 s at level 5.
pub fn level_millis(level: u8) -> u32 {
    250u32 << level.clamp(1, 5).saturating_sub(1)
}

/// Below this much thinking time (what is left of a clock), a bot plays greedy.
const MIN_SEARCH_MS: i64 = 50;

/// The agent a seat thinks with for one move, given the milliseconds left on its clock
/// (`None`: the game has no clock). `None` for a human seat.
pub fn think_spec(seat: &Seat, left_ms: Option<i64>) -> Option<AgentSpec> {
    match seat.kind {
        SeatKind::Human => None,
        SeatKind::Random => Some(AgentSpec::Random),
        SeatKind::Bot => {
            let level = seat
                .agent
                .as_deref()
                .and_then(|a| a.strip_prefix("search:"))
                .and_then(|l| l.parse::<u8>().ok());
            let Some(level) = level else {
                return Some(AgentSpec::Greedy);
            };
            let mut ms = i64::from(level_millis(level));
            if let Some(left) = left_ms {
                ms = ms.min(left / 2);
            }
            if ms < MIN_SEARCH_MS {
                return Some(AgentSpec::Greedy);
            }
            Some(AgentSpec::Search {
                budget: Budget::Millis(ms as u32),
                threads: 1,
            })
        }
    }
}

/// Deploys a server-played seat when its game is created: a random setup for a random
/// seat, the agent's setup for a bot.
pub fn deploy(game: &mut Game, side: Side, seat: &Seat) -> Result<(), ApiError> {
    match think_spec(seat, None) {
        None => Ok(()),
        Some(AgentSpec::Random) => {
            // The seat's setup of the seeded start of the game's (secret, OS-drawn) seed.
            game.deploy_start(side)?;
            Ok(())
        }
        Some(spec) => {
            let rules = game.rules().clone();
            let setup = spec.build(junqi::random_seed()).deploy(&rules, side);
            game.deploy(side, &setup)?;
            Ok(())
        }
    }
}

/// Whether the game moved on from `version`, or `side` is no longer to act.
fn outdated(table: &crate::table::Table, version: u64, side: Side) -> bool {
    table.version != version || !table.playing() || table.game.to_act() != Some(side)
}

/// Plays for the server-played seat `side` if the game is still at `version` with
/// `side` to act: a random seat at once, a bot after thinking in the pool.
pub async fn act(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64, side: Side) {
    let (info, left) = {
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
        let left = table.deadline_ms.map(|d| d - crate::clock::now_ms());
        (table.game.info_state(side), left)
    };
    // Wait for the pool at most half of what is left on the clock: past that, play
    // greedy (one ply, cheap) without a place in the pool, so as to answer in time.
    let permit = match left {
        None => pool().acquire().await.ok(),
        Some(ms) => {
            let wait = Duration::from_millis(u64::try_from(ms / 2).unwrap_or(0));
            tokio::time::timeout(wait, pool().acquire())
                .await
                .ok()
                .and_then(Result::ok)
        }
    };
    if permit.is_none() && left.is_none() {
        return; // the pool is closed (never, in practice)
    }
    // The budget is fitted to the clock once the pool has room (waiting took time).
    let spec = {
        let table = handle.lock();
        if outdated(&table, version, side) {
            return;
        }
        let left = table.deadline_ms.map(|d| d - crate::clock::now_ms());
        match (
            table
                .seats
                .get(&side)
                .and_then(|seat| think_spec(seat, left)),
            &permit,
        ) {
            (Some(_), None) => AgentSpec::Greedy,
            (Some(spec), Some(_)) => spec,
            (None, _) => return,
        }
    };
    let chosen = tokio::task::spawn_blocking(move || {
        let mut agent = spec.build(junqi::random_seed());
        catch_unwind(AssertUnwindSafe(|| agent.choose(&info))).ok()
    })
    .await;
    drop(permit);
    let Ok(Some(action)) = chosen else {
        return;
    };
    let mut table = handle.lock();
    if outdated(&table, version, side) {
        return;
    }
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
    table: &mut crate::table::Table,
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
