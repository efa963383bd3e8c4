//! Agents (`junqi_agent`): players that choose a deployment and then actions from one
//! player's information alone.
//!
//! The C caller hands an agent a game handle and a side, nothing else: the library
//! builds that side's information state (`Game::info_state`) and gives the agent only
//! that, so an agent's choice depends only on what the side may know.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};

use junqi_core::agent::{self, Agent};

use crate::boundary::guard;
use crate::game::{game_mut, game_ref, give_report, junqi_game, playing_side};
use crate::ptr::{free_handle, handle_mut, handle_ref, into_c_string, into_handle, str_arg, Out};
use crate::rules::string_out;
use crate::status::{junqi_status, Error, Result};

/// A player run by the library (opaque): `"random"`, `"greedy"`, `"search"` (the tree
/// search) or `"pimc"` (the search it replaced) with a budget (see `junqi_agent_new`).
///
/// Made by `junqi_agent_new`; freed with `junqi_agent_free`.
///
/// Thread safety: an agent handle may be used by one thread at a time (it may move
/// between threads); distinct agents are independent. An agent may play several games
/// and several sides, one call at a time.
///
/// Poisoning: if the library panics while an agent thinks, the call returns
/// `JUNQI_STATUS_PANIC` and both the agent and the game handle are poisoned (see
/// `junqi_game`); `junqi_agent_free` still frees a poisoned agent.
#[allow(non_camel_case_types)]
pub struct junqi_agent {
    agent: Box<dyn Agent>,
    poisoned: AtomicBool,
}

/// Exclusive access to an agent for one call; poisons the handle if the call panics.
struct AgentMut<'a>(&'a mut junqi_agent);

impl AgentMut<'_> {
    fn agent(&mut self) -> &mut dyn Agent {
        &mut *self.0.agent
    }
}

impl Drop for AgentMut<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

fn check_poison(agent: &junqi_agent) -> Result<()> {
    if agent.poisoned.load(Ordering::Relaxed) {
        Err(Error::new(
            junqi_status::Poisoned,
            "the agent handle was poisoned by an earlier panic; free it with junqi_agent_free",
        ))
    } else {
        Ok(())
    }
}

/// # Safety
/// `p` is NULL or a live `junqi_agent` that no other thread uses during `'a`.
unsafe fn agent_mut<'a>(p: *mut junqi_agent) -> Result<AgentMut<'a>> {
    // SAFETY: forwarded caller contract.
    let h = unsafe { handle_mut(p, "agent") }?;
    check_poison(h)?;
    Ok(AgentMut(h))
}

/// Makes an agent from its name; the same name and seed give the same choices (for
/// budgets in iterations; `search:ms=N` depends on the machine's speed).
///
/// - `spec`: NUL-terminated UTF-8: `"random"`, `"greedy"`, `"search"` (= `search:3`,
///   the information-set tree search), `"search:1"` … `"search:5"` (named budgets),
///   `"search:iters=N"` or `"search:ms=N"`, with an optional `",threads=N"` (default
///   1), e.g. `"search:4,threads=2"`, `",beliefs=plain"` (worlds drawn from the plain
///   beliefs instead of by the opponent model) and `",eval=derived"` (the evaluation's
///   weights worked out from the rules instead of the fitted ones the engine ships);
///   `"pimc"` (the search by determinization that `search` replaced, kept as the
///   reference) takes the same, `"greedy:eval=derived"` the last; `"ismcts"` is another
///   name for `"search"`. See docs/agents.md.
/// - `seed`: the agent's own random source (not the game's).
/// - `agent_out`: receives a new handle; free it with `junqi_agent_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME` (not an agent name);
/// `OUT_OF_RANGE` (a level outside 1 to 5, a budget or thread count that is not a
/// positive number, or another malformed option). Thread safety: any thread.
///
/// # Safety
/// `spec` is NULL or a NUL-terminated string; `agent_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_new(
    spec: *const c_char,
    seed: u64,
    agent_out: *mut *mut junqi_agent,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `spec`.
        let spec = unsafe { str_arg(spec, "spec") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(agent_out, "agent_out") }?;
        let agent = agent::by_name(spec, seed)?;
        out.write(into_handle(junqi_agent {
            agent,
            poisoned: AtomicBool::new(false),
        }));
        Ok(())
    })
}

/// Frees an agent. NULL is accepted and ignored; freeing an agent twice is undefined
/// behaviour.
///
/// # Safety
/// `agent` is NULL or a live `junqi_agent` that nothing uses any more.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_free(agent: *mut junqi_agent) {
    guard(|| {
        // SAFETY: forwarded caller contract: from `junqi_agent_new`, freed once.
        unsafe { free_handle(agent) };
        Ok(())
    });
}

/// The agent's name: the spec that builds it again, in its canonical form (e.g.
/// `"search:3"` for `"search"`).
///
/// - `name_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_agent`.
///
/// # Safety
/// `agent` is NULL or a live `junqi_agent`; `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_name(
    agent: *const junqi_agent,
    name_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `agent`.
        let agent = unsafe { handle_ref(agent, "agent") }?;
        check_poison(agent)?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(name_out, "name_out") }?;
        string_out(out, agent.agent.name());
        Ok(())
    })
}

/// Deploys the agent's setup for `side` (the agent picks it from the rule set alone).
///
/// - `side`: a `junqi_side` value.
/// - `report_out`: may be NULL; otherwise receives the report as JSON (see
///   `junqi_game_deploy_json`); free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (not a side value);
/// `SIDE_NOT_IN_GAME`; `WRONG_PHASE` (deployment is over, the side has deployed, or the
/// rule set deals face down: `fanqi`); `INVALID_SETUP` (the agent's setup breaks a
/// deployment constraint of a custom rule set); `POISONED`. On failure the game is
/// unchanged. Thread safety: see `junqi_agent` and `junqi_game`.
///
/// # Safety
/// `agent` is NULL or a live `junqi_agent`; `game` is NULL or a live `junqi_game`;
/// `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_deploy(
    agent: *mut junqi_agent,
    game: *mut junqi_game,
    side: c_int,
    report_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `agent`.
        let mut agent = unsafe { agent_mut(agent) }?;
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let side = playing_side(&game, side)?;
        game.may_deploy(side)?;
        let rules = game.rules().clone();
        let setup = agent.agent().deploy(&rules, side);
        let report = game.deploy(side, &setup)?;
        give_report(out, &game, &report);
        Ok(())
    })
}

/// The action the agent chooses for `side`, which must be the side to act; the game is
/// not changed (play it with `junqi_game_play_as`, or use `junqi_agent_act`). The agent
/// is given `side`'s information state only.
///
/// - `side`: a `junqi_side` value.
/// - `notation_out`: receives the action in notation (`"a2-a6"`, `"flip c3"`, …); free
///   it with `junqi_string_free`.
/// - `id_out`: may be NULL; otherwise receives the action's index in the action space
///   (see `junqi_game_legal_action_ids`).
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (not a side value);
/// `SIDE_NOT_IN_GAME`; `NOT_YOUR_TURN`; `WRONG_PHASE` (deployment, or the game is over);
/// `POISONED`. Thread safety: see `junqi_agent` and `junqi_game`.
///
/// # Safety
/// `agent` is NULL or a live `junqi_agent`; `game` is NULL or a live `junqi_game`;
/// `notation_out` and `id_out` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_choose(
    agent: *mut junqi_agent,
    game: *const junqi_game,
    side: c_int,
    notation_out: *mut *mut c_char,
    id_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `agent`.
        let mut agent = unsafe { agent_mut(agent) }?;
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(notation_out, "notation_out") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let id_out = unsafe { Out::optional(id_out) };
        let side = playing_side(&game, side)?;
        game.may_act(side)?;
        let info = game.info_state(side);
        let action = agent.agent().choose(&info);
        let id = action.id(game.rules()).ok_or_else(|| {
            Error::new(
                junqi_status::IllegalAction,
                "the agent chose an action outside the action space",
            )
        })?;
        if let Some(id_out) = id_out {
            id_out.write(id as u32);
        }
        out.write(into_c_string(action.to_notation(game.board())));
        Ok(())
    })
}

/// Lets the agent act for `side` if `side` has something to do now: deploy (the
/// deployment phase, `side` has not deployed and the rule set does not deal), or play
/// its chosen action (`side` is to act, moving or reacting). Otherwise nothing happens
/// and `acted_out` receives false. A loop of `junqi_agent_act` over the seats plays a
/// whole game.
///
/// - `side`: a `junqi_side` value.
/// - `acted_out`: receives whether the agent deployed or played.
/// - `report_out`: may be NULL; otherwise receives the report as JSON when the agent
///   acted (see `junqi_game_play`; the referee's report), else is left alone; free it
///   with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (not a side value);
/// `SIDE_NOT_IN_GAME`; `INVALID_SETUP`; `POISONED`. On failure the game is unchanged.
/// Thread safety: see `junqi_agent` and `junqi_game`.
///
/// # Safety
/// `agent` is NULL or a live `junqi_agent`; `game` is NULL or a live `junqi_game`;
/// `acted_out` and `report_out` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_agent_act(
    agent: *mut junqi_agent,
    game: *mut junqi_game,
    side: c_int,
    acted_out: *mut bool,
    report_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `agent`.
        let mut agent = unsafe { agent_mut(agent) }?;
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let acted_out = unsafe { Out::new(acted_out, "acted_out") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let side = playing_side(&game, side)?;
        match agent::act(&mut game, side, agent.agent())? {
            Some(report) => {
                give_report(out, &game, &report);
                acted_out.write(true);
            }
            None => acted_out.write(false),
        }
        Ok(())
    })
}

// An agent handle may move between threads (the header says so).
const _: fn() = || {
    fn send<T: Send>() {}
    send::<junqi_agent>();
};
