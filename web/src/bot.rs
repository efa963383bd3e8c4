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

use std::sync::OnceLock;

use junqi::agent::{AgentSpec, Budget};
use junqi::{Game, Side};
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::seat::{Seat, SeatKind};

/// How many bots think at once, server-wide: the machine's cores, at most 4.
pub fn pool_size() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
}

pub(crate) fn pool() -> &'static Semaphore {
    static POOL: OnceLock<Semaphore> = OnceLock::new();
    POOL.get_or_init(|| Semaphore::new(pool_size()))
}

/// The time per move of a search level: the core's [`Budget::level_millis`].
pub fn level_millis(level: u8) -> u32 {
    Budget::level_millis(level)
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
