//! Seats the server plays: random seats and bots (the engine's agents).
//!
//! - A random seat deploys a random setup when the game is created and, when it is to
//!   act, plays a legal action chosen uniformly at random (OS randomness) after the
//!   configured delay.
//! - A bot seat (`greedy`, or the search at a level 1–5) is an **engine** of the line
//!   protocol (docs/protocol.md): it deploys the engine's setup when the game is created
//!   and, when it is to act, is told what its seat has been told — its rule set, its
//!   own setup, its events, its view string ([`junqi::protocol::referee::seat_lines`])
//!   — and answers `go` with an action. By default the engine is the built-in one in
//!   this process ([`InProcessEngine`]), whose information state is exactly the seat's
//!   ([`junqi::InfoState::from_knowledge`], equal to [`junqi::Game::info_state`]): never
//!   the referee's position. An operator can put any engine in the bots' seats instead:
//!   with `JUNQI_WEB_BOT_ENGINE` set to a command (`junqi engine`, `python3 mine.py`),
//!   each bot answer runs that command as a process (`sh -c`), sets its `agent` and
//!   `seed` options when it has them, tells it the seat's lines and asks; a process
//!   that fails (crash, time-out, garbage, an illegal answer) is killed and reaped, and
//!   the built-in engine answers that turn. A fresh engine serves each answer: nothing
//!   is kept between turns, so a restarted server loses nothing.
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

use std::time::Duration;

use junqi::agent::{AgentSpec, Budget};
use junqi::protocol::referee::{
    apply_setup, ask_action, ask_setup, seat_lines, EngineLink, EngineProcess, Failure, InProcessEngine,
};
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
            // The seat's agent as the core reads it ("search:N": the search with the
            // core's defaults), its level turned into time below.
            let spec = seat.agent.as_deref().and_then(|a| a.parse::<AgentSpec>().ok());
            let Some(spec @ AgentSpec::Search { budget: Budget::Level(level), .. }) = spec else {
                return Some(AgentSpec::GREEDY);
            };
            let mut ms = i64::from(level_millis(level));
            if let Some(left) = left_ms {
                ms = ms.min(left / 2);
            }
            if ms < MIN_SEARCH_MS {
                return Some(AgentSpec::GREEDY);
            }
            Some(spec.with_budget(Budget::Millis(ms as u32)))
        }
    }
}

/// The environment variable naming the command of an engine to put in the bots' seats
/// (unset or empty: the built-in engine, in this process).
pub const ENGINE_ENV: &str = "JUNQI_WEB_BOT_ENGINE";

/// Where the bots' engine runs: `None` in this process, else the operator's command
/// ([`ENGINE_ENV`]).
pub fn engine_command() -> Option<String> {
    std::env::var(ENGINE_ENV).ok().filter(|c| !c.trim().is_empty())
}

/// How long an engine process has to start and say `ready`.
const START: Duration = Duration::from_secs(5);

/// Asks a bot seat's engine (`spec` thinking, `seed` its seed): `ask` sends what the
/// seat has been told and reads the answer. The operator's engine process if one is
/// configured, else (or when that process fails) the built-in engine in this process.
fn with_engine<T>(
    spec: AgentSpec,
    seed: u64,
    ask: impl Fn(&mut dyn EngineLink) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let options = |announced: &dyn Fn(&str) -> bool| -> Vec<(String, String)> {
        [("agent", spec.to_string()), ("seed", seed.to_string())]
            .into_iter()
            .filter(|(name, _)| announced(name))
            .map(|(name, value)| (name.to_owned(), value))
            .collect()
    };
    if let Some(command) = engine_command() {
        let answer = EngineProcess::start(&command, START, &[]).and_then(|mut p| {
            let opts = options(&|name| p.options.iter().any(|o| o.name == name));
            let answer = opts
                .iter()
                .try_for_each(|(name, value)| p.send(&format!("setoption {name} {value}")))
                .and_then(|_| ask(&mut p));
            p.stop();
            answer
        });
        match answer {
            Ok(a) => return Ok(a),
            Err(f) => eprintln!("junqi-web: the bot engine `{command}` failed ({f}): the built-in engine answers"),
        }
    }
    let mut engine = InProcessEngine::new(spec, &options(&|_| true))?;
    ask(&mut engine)
}

/// The action a bot seat's engine plays (its notation): `lines` are what the seat has
/// been told ([`seat_lines`]), `spec` the agent it thinks with ([`think_spec`]), `go_ms`
/// the time given (what is left of the clock), `legal` says why an answer is not a
/// legal action of the seat (an operator's engine that answers one is a failed engine:
/// the built-in engine answers instead). Blocking: run it off the request path.
pub fn engine_action(
    spec: AgentSpec,
    lines: &[String],
    go_ms: u64,
    legal: &dyn Fn(&str) -> Result<(), String>,
) -> Result<String, Failure> {
    let budget = Duration::from_millis(go_ms.max(1));
    with_engine(spec, junqi::random_seed(), |e| {
        let (notation, _offer) = ask_action(&mut &mut *e, lines, budget)?;
        legal(notation.trim()).map_err(Failure::Illegal)?;
        Ok(notation)
    })
}

/// Deploys a server-played seat when its game is created: a random setup for a random
/// seat, the setup its engine gives for a bot (asked with `deploy`, after what the seat
/// has been told).
pub fn deploy(game: &mut Game, side: Side, seat: &Seat) -> Result<(), ApiError> {
    match think_spec(seat, None) {
        None => Ok(()),
        Some(AgentSpec::Random) => {
            // The seat's setup of the seeded start of the game's (secret, OS-drawn) seed.
            game.deploy_start(side)?;
            Ok(())
        }
        Some(spec) => {
            let lines = seat_lines(game, side);
            let answer = with_engine(spec, junqi::random_seed(), |e| {
                ask_setup(&mut &mut *e, &lines, START)
            })
            .map_err(|f| ApiError::internal(format!("the bot's engine gave no setup: {f}")))?;
            if let Err(f) = apply_setup(game, side, &answer, junqi::random_seed()) {
                // An operator's engine that deploys illegally: the built-in one deploys.
                eprintln!("junqi-web: the bot engine's setup was refused ({f}): the built-in engine deploys");
                let setup = spec.build(junqi::random_seed()).deploy(&game.rules().clone(), side);
                game.deploy(side, &setup)?;
            }
            Ok(())
        }
    }
}
