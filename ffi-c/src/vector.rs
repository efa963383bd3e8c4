//! Many games stepped together (`junqi_vector_env`): the engine side of vectorized
//! reinforcement-learning environments, with masks, observations and rewards written
//! into the caller's arrays.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};

use junqi_core::{StepOutput, VectorEnv, VectorError};

use crate::boundary::guard;
use crate::game::{give_game, junqi_game};
use crate::ptr::{free_handle, handle_mut, handle_ref, i64_slice_arg, into_handle, zeroed_slice_mut, Out};
use crate::rules::junqi_rules;
use crate::status::{junqi_status, Error, Result};

/// `n` refereed games of one rule set stepped together (opaque): each step plays one
/// action in every game, writes the next players' masks (and observations), the
/// rewards, and restarts finished games at once (same-step auto-reset), keeping each
/// finished game for `junqi_vector_env_next_finished` in a bounded queue (see
/// `junqi_vector_env_finished_len`).
///
/// Every game is seeded from the environment's seed, its slot and its episode number,
/// so a run is the same for any number of threads. Observations come from each
/// player's own beliefs (what it was told), never from the referee's state.
///
/// Made by `junqi_vector_env_new`; freed with `junqi_vector_env_free`.
///
/// Thread safety: one thread at a time per handle (it may move between threads); the
/// environment runs its own threads inside a step when made with `threads > 1`.
///
/// Poisoning: as for `junqi_game`, a panic inside a call poisons the handle.
pub struct junqi_vector_env {
    env: VectorEnv,
    poisoned: AtomicBool,
}

/// The sizes of a vector environment's arrays (from `junqi_vector_env_shape`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct junqi_vector_shape {
    /// The number of games `n`.
    pub games: usize,
    /// Seats (players) per game: 2, or 4 in `siguo`. Rewards are `games × seats`.
    pub seats: usize,
    /// The width of a mask row: masks are `games × action_space` flags.
    pub action_space: usize,
    /// Floats in one observation (`channels × points`, see
    /// `junqi_rules_observation_spec_json`): observations are
    /// `games × observation_len` floats.
    pub observation_len: usize,
    /// Whether the environment keeps observations (made with `observe = true`).
    pub observes: bool,
}

/// Where `junqi_vector_env_reset` and `junqi_vector_env_step` write, row `i` for game
/// `i`. Each array is given with its capacity in elements; a capacity smaller than the
/// environment needs fails with `JUNQI_STATUS_BUFFER_TOO_SMALL` before anything is
/// written. The library writes the first `games × …` elements of each.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct junqi_vector_buffers {
    /// `games × observation_len` floats: the observation of the player to act next in
    /// each game, from its own seat. NULL (with `observations_len` 0) skips
    /// observations; must be NULL for an environment that does not observe.
    pub observations: *mut f32,
    /// Capacity of `observations`.
    pub observations_len: usize,
    /// `games × action_space` flags: the legal actions of the player to act next.
    pub masks: *mut bool,
    /// Capacity of `masks`.
    pub masks_len: usize,
    /// `games × seats` rewards: +1 to each seat of the winning side (or team), −1 to
    /// the others, 0 to all for a draw; 0 while a game goes on or when it is cut
    /// short. Not used by `junqi_vector_env_reset` (may be NULL there).
    pub rewards: *mut f32,
    /// Capacity of `rewards`.
    pub rewards_len: usize,
    /// `games` flags: the game ended by the rules with this step (and was restarted).
    /// Not used by `junqi_vector_env_reset` (may be NULL there).
    pub terminated: *mut bool,
    /// `games` flags: the game reached the ply limit and was cut short (and
    /// restarted). Not used by `junqi_vector_env_reset` (may be NULL there).
    pub truncated: *mut bool,
    /// `games` seats: the index (into `junqi_rules_sides`) of the seat to act next.
    pub to_act: *mut i8,
    /// Capacity of each of `terminated`, `truncated` and `to_act`.
    pub games_len: usize,
}

impl junqi_vector_env {
    fn check_poison(&self) -> Result<()> {
        if self.poisoned.load(Ordering::Relaxed) {
            Err(Error::new(
                junqi_status::Poisoned,
                "the vector environment was poisoned by an earlier panic; free it with junqi_vector_env_free",
            ))
        } else {
            Ok(())
        }
    }

    fn shape(&self) -> junqi_vector_shape {
        junqi_vector_shape {
            games: self.env.len(),
            seats: self.env.seats(),
            action_space: self.env.action_space(),
            observation_len: self.env.observation_len(),
            observes: self.env.observes(),
        }
    }
}

/// Marks the handle poisoned if the call panics while it holds it.
struct EnvMut<'a>(&'a mut junqi_vector_env);

impl Drop for EnvMut<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// # Safety
/// `p` is NULL or a live `junqi_vector_env` that no other thread uses during `'a`.
unsafe fn env_mut<'a>(p: *mut junqi_vector_env) -> Result<EnvMut<'a>> {
    // SAFETY: forwarded caller contract.
    let h = unsafe { handle_mut(p, "env") }?;
    h.check_poison()?;
    Ok(EnvMut(h))
}

/// Checks an output array without writing it: NULL with a need, or too small.
fn check_buf<T>(ptr: *mut T, cap: usize, needed: usize, what: &str) -> Result<()> {
    if needed == 0 {
        Ok(())
    } else if ptr.is_null() {
        Err(Error::null(what))
    } else if cap < needed {
        Err(Error::new(
            junqi_status::BufferTooSmall,
            format!("{what} holds {cap} elements, {needed} are needed"),
        ))
    } else {
        Ok(())
    }
}

/// Checks the observation array against what the environment keeps: `Some(needed)`
/// when observations are to be written, `None` when they are skipped.
fn observation_need(shape: &junqi_vector_shape, bufs: &junqi_vector_buffers) -> Result<Option<usize>> {
    if bufs.observations.is_null() {
        return Ok(None);
    }
    if !shape.observes {
        return Err(Error::out_of_range(
            "observations were asked of a vector environment made with observe = false",
        ));
    }
    let needed = shape.games * shape.observation_len;
    check_buf(bufs.observations, bufs.observations_len, needed, "observations")?;
    Ok(Some(needed))
}

/// Makes `n` games of `rules`, each deployed at random (or dealt), seeded from `seed`.
///
/// - `n`: the number of games, 1 to 65 536 (`JUNQI_MAX_VECTOR_GAMES`): more is
///   refused before anything is allocated, and the games' memory is reserved
///   fallibly (a failed reservation is refused too, not an abort).
/// - `observe`: keep each player's beliefs up to date so that observations can be
///   written (slower; without it only masks are written).
/// - `max_plies`: cut a game short (truncation) after this many plies; 0 for no limit
///   (the core's meaning of 0, as in Python's `max_plies=0`).
/// - `threads`: step the games over this many threads (0 or 1: the calling thread);
///   results are identical for any number.
/// - `env_out`: receives a new handle; free it with `junqi_vector_env_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (`n` is 0 or past 65 536, or there is
/// no memory for `n` games); `INVALID_RULES` (the rule set has no random setup).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `env_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_new(
    rules: *const junqi_rules,
    n: usize,
    seed: u64,
    observe: bool,
    max_plies: u32,
    threads: usize,
    env_out: *mut *mut junqi_vector_env,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(env_out, "env_out") }?;
        let env = VectorEnv::new(rules.inner.clone(), n, seed)?
            .with_observations(observe)
            .with_max_plies((max_plies > 0).then_some(max_plies))
            .with_threads(threads);
        out.write(into_handle(junqi_vector_env {
            env,
            poisoned: AtomicBool::new(false),
        }));
        Ok(())
    })
}

/// Gives the observations the `modelled:<kind>` planes of an opponent model (after the
/// other channels, as `junqi_game_observation_modelled` writes them), or takes them
/// away. `observation_len` (`junqi_vector_env_shape`) changes with it: size the
/// observation buffers after this call. Without this call there are no such planes.
///
/// - `model`: `"shipped"` (the model the engine ships for the rule set; the plain
///   model where it ships none), `"plain"`, a model's JSON as `junqi model fit` writes
///   it, or NULL for no modelled planes.
///
/// Status: `OK`; `NULL_POINTER`; `UNKNOWN_NAME` or `INVALID_JSON` (no such model; the
/// environment is unchanged); `INVALID_UTF8`; `POISONED`. Thread safety: see
/// `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `model` is NULL or a NUL-terminated
/// string.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_set_model(env: *mut junqi_vector_env, model: *const c_char) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        let model = if model.is_null() {
            None
        } else {
            // SAFETY: forwarded caller contract: a NUL-terminated string.
            Some(unsafe { crate::inference::model_arg(env.0.env.rules(), model) }?)
        };
        env.0.env.set_model(model);
        Ok(())
    })
}

/// Frees a vector environment and every game in it (also a poisoned one). NULL is
/// accepted and ignored.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env` that nobody uses any more.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_free(env: *mut junqi_vector_env) {
    crate::boundary::guard_value((), || {
        // SAFETY: forwarded caller contract: from `junqi_vector_env_new`, freed once.
        unsafe { free_handle(env) }
    })
}

/// The sizes of the environment's arrays (see `junqi_vector_shape`).
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `shape_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_shape(
    env: *mut junqi_vector_env,
    shape_out: *mut junqi_vector_shape,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(shape_out, "shape_out") }?;
        out.write(env.0.shape());
        Ok(())
    })
}

/// Restarts every game (new episodes) and writes the masks, the seats to act and,
/// when `buffers->observations` is not NULL, the observations. With `reseed` the
/// environment takes `seed` as its new seed and episodes count from 0 again (so the
/// games are those of a new environment with that seed); without it `seed` is ignored.
/// Finished games not yet taken are dropped.
///
/// Status: `OK`; `NULL_POINTER`; `BUFFER_TOO_SMALL`; `OUT_OF_RANGE` (observations from
/// an environment that does not observe); `POISONED`. On failure nothing is written
/// and the environment is unchanged. Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `buffers` is NULL or readable, and its
/// non-NULL arrays are writable for their stated capacities and not aliased.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_reset(
    env: *mut junqi_vector_env,
    reseed: bool,
    seed: u64,
    buffers: *const junqi_vector_buffers,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let mut env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or readable.
        let bufs = *unsafe { handle_ref(buffers, "buffers") }?;
        let shape = env.0.shape();
        let n = shape.games;
        let obs = observation_need(&shape, &bufs)?;
        check_buf(bufs.masks, bufs.masks_len, n * shape.action_space, "masks")?;
        check_buf(bufs.to_act, bufs.games_len, n, "to_act")?;
        // SAFETY: checked above; the caller's contract makes each array writable for its
        // capacity and unaliased (the same for the other arrays below).
        let masks = unsafe { zeroed_slice_mut(bufs.masks, bufs.masks_len, n * shape.action_space, "masks") }?;
        // SAFETY: as above.
        let to_act = unsafe { zeroed_slice_mut(bufs.to_act, bufs.games_len, n, "to_act") }?;
        let seed = reseed.then_some(seed);
        let e = &mut env.0;
        match obs {
            Some(needed) => {
                // SAFETY: as above.
                let o = unsafe { zeroed_slice_mut(bufs.observations, bufs.observations_len, needed, "observations") }?;
                e.env.reset_observing(seed, o, masks, to_act);
            }
            None => e.env.reset(seed, masks, to_act),
        }
        Ok(())
    })
}

/// Plays `actions[i]` (an action id, as in `junqi_game_play_id`) in every game `i`,
/// then writes the results into `buffers` (see `junqi_vector_buffers`). A game that
/// ends (or reaches the ply limit) is kept for `junqi_vector_env_next_finished` and
/// replaced by its slot's next episode, whose first mask and observation are written.
///
/// - `actions`, `actions_len`: exactly one action per game.
///
/// Every action is checked before any is played: a wrong count (`OUT_OF_RANGE`), an
/// action not legal in its game (`ILLEGAL_ACTION`, naming the game) or a buffer that is
/// NULL or too small refuses the whole call; nothing is written and no game changes.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `ILLEGAL_ACTION`; `BUFFER_TOO_SMALL`;
/// `POISONED`. Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `actions` is NULL or readable for
/// `actions_len` values; `buffers` is NULL or readable, and its non-NULL arrays are
/// writable for their stated capacities and not aliased.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_step(
    env: *mut junqi_vector_env,
    actions: *const i64,
    actions_len: usize,
    buffers: *const junqi_vector_buffers,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or readable for `actions_len` values.
        let actions = unsafe { i64_slice_arg(actions, actions_len, "actions") }?;
        // SAFETY: forwarded caller contract: NULL or readable.
        let bufs = *unsafe { handle_ref(buffers, "buffers") }?;
        let shape = env.0.shape();
        let n = shape.games;
        if actions.len() != n {
            return Err(VectorError::ActionCount {
                expected: n,
                got: actions.len(),
            }
            .into());
        }
        for (i, &a) in actions.iter().enumerate() {
            let legal = u32::try_from(a).is_ok_and(|a| env.0.env.legal_action_ids(i).binary_search(&a).is_ok());
            if !legal {
                return Err(VectorError::IllegalAction { env: i, action: a }.into());
            }
        }
        let obs = observation_need(&shape, &bufs)?;
        let mask_len = n * shape.action_space;
        check_buf(bufs.masks, bufs.masks_len, mask_len, "masks")?;
        check_buf(bufs.rewards, bufs.rewards_len, n * shape.seats, "rewards")?;
        check_buf(bufs.terminated, bufs.games_len, n, "terminated")?;
        check_buf(bufs.truncated, bufs.games_len, n, "truncated")?;
        check_buf(bufs.to_act, bufs.games_len, n, "to_act")?;
        // Everything is checked: from here on the call succeeds.
        // SAFETY (each below): checked above; the caller's contract makes each array
        // writable for its capacity and unaliased.
        let observations = match obs {
            Some(needed) => Some(unsafe {
                // SAFETY: as above.
                zeroed_slice_mut(bufs.observations, bufs.observations_len, needed, "observations")
            }?),
            None => None,
        };
        // SAFETY: as above.
        let masks = unsafe { zeroed_slice_mut(bufs.masks, bufs.masks_len, mask_len, "masks") }?;
        // SAFETY: as above.
        let rewards = unsafe { zeroed_slice_mut(bufs.rewards, bufs.rewards_len, n * shape.seats, "rewards") }?;
        // SAFETY: as above.
        let terminated = unsafe { zeroed_slice_mut(bufs.terminated, bufs.games_len, n, "terminated") }?;
        // SAFETY: as above.
        let truncated = unsafe { zeroed_slice_mut(bufs.truncated, bufs.games_len, n, "truncated") }?;
        // SAFETY: as above.
        let to_act = unsafe { zeroed_slice_mut(bufs.to_act, bufs.games_len, n, "to_act") }?;
        env.0.env.step(
            actions,
            StepOutput {
                observations,
                masks,
                rewards,
                terminated,
                truncated,
                to_act,
            },
        )?;
        Ok(())
    })
}

/// A uniformly random legal action for every game, drawn from the environment's own
/// generator (seeded from its seed): random players without reading the masks.
///
/// - `actions_out`, `len`: at least one value per game.
///
/// Status: `OK`; `NULL_POINTER`; `BUFFER_TOO_SMALL` (nothing written); `POISONED`.
/// Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `actions_out` is NULL or writable for
/// `len` values.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_random_actions(
    env: *mut junqi_vector_env,
    actions_out: *mut i64,
    len: usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        let n = env.0.env.len();
        // SAFETY: forwarded caller contract: NULL or writable for `len` values.
        let out = unsafe { zeroed_slice_mut(actions_out, len, n, "actions_out") }?;
        env.0.env.random_actions(out);
        Ok(())
    })
}

/// A copy of game `index` as it stands, as a new game handle (free it with
/// `junqi_game_free`).
///
/// REFEREE: a game handle holds every army; give players only their views.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (no such game); `POISONED`.
/// Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_game(
    env: *mut junqi_vector_env,
    index: usize,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        let games = env.0.env.len();
        if index >= games {
            return Err(Error::out_of_range(format!(
                "game {index} does not exist: the environment holds {games} games"
            )));
        }
        give_game(out, env.0.env.game(index).clone());
        Ok(())
    })
}

/// Takes the oldest finished game not taken yet (games finish in step order, then slot
/// order; the queue is bounded, see `junqi_vector_env_finished_len`): `game_out`
/// receives it as a new game handle (free it with `junqi_game_free`; its result,
/// record and every player's record are there), or NULL when no finished game is
/// waiting. The optional outs receive its slot, its episode number in the slot
/// and whether it was cut short at the ply limit.
///
/// Status: `OK` (also when none is waiting); `NULL_POINTER` (`game_out`); `POISONED`.
/// Thread safety: see `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; every out-pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_next_finished(
    env: *mut junqi_vector_env,
    game_out: *mut *mut junqi_game,
    index_out: *mut usize,
    episode_out: *mut u64,
    truncated_out: *mut bool,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or writable (each below).
        let out = unsafe { Out::new(game_out, "game_out") }?;
        // SAFETY: as above.
        let index_out = unsafe { Out::optional(index_out) };
        // SAFETY: as above.
        let episode_out = unsafe { Out::optional(episode_out) };
        // SAFETY: as above.
        let truncated_out = unsafe { Out::optional(truncated_out) };
        match env.0.env.next_finished() {
            Some(f) => {
                if let Some(o) = index_out {
                    o.write(f.env);
                }
                if let Some(o) = episode_out {
                    o.write(f.episode);
                }
                if let Some(o) = truncated_out {
                    o.write(f.truncated);
                }
                give_game(out, f.game);
            }
            None => out.write(std::ptr::null_mut()),
        }
        Ok(())
    })
}

/// The most games a vector environment holds (`junqi_vector_env_new` refuses more).
pub const JUNQI_MAX_VECTOR_GAMES: usize = 65536;

/// The least number of finished games a vector environment keeps waiting (see
/// `junqi_vector_env_finished_len`).
pub const JUNQI_MAX_FINISHED_GAMES: usize = 1024;

// The limits are the core's (cbindgen writes the literals into the header).
const _: () = assert!(JUNQI_MAX_VECTOR_GAMES == junqi_core::limits::MAX_VECTOR_GAMES);
const _: () = assert!(JUNQI_MAX_FINISHED_GAMES == junqi_core::limits::MAX_FINISHED_GAMES);

/// The queue of finished games waiting for `junqi_vector_env_next_finished`: how many
/// wait, the most it keeps, and how many were dropped unread.
///
/// The queue keeps at most `capacity` games: 1 024 (`JUNQI_MAX_FINISHED_GAMES`), or
/// one per game when the environment holds more (one step's games always fit). When
/// a step finishes games past it, the oldest waiting games are dropped (and counted in
/// `dropped`), so an environment whose finished games are never taken stays the same
/// size. `junqi_vector_env_reset` empties the queue.
///
/// - `len_out`: receives the number of games waiting.
/// - `capacity_out`, `dropped_out`: optional (NULL to skip): the bound, and the games
///   dropped unread since the environment was made.
///
/// Status: `OK`; `NULL_POINTER` (`env`, `len_out`); `POISONED`. Thread safety: see
/// `junqi_vector_env`.
///
/// # Safety
/// `env` is NULL or a live `junqi_vector_env`; every out-pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_vector_env_finished_len(
    env: *mut junqi_vector_env,
    len_out: *mut usize,
    capacity_out: *mut usize,
    dropped_out: *mut u64,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `env`.
        let env = unsafe { env_mut(env) }?;
        // SAFETY: forwarded caller contract: NULL or writable (each below).
        let out = unsafe { Out::new(len_out, "len_out") }?;
        // SAFETY: as above.
        let capacity_out = unsafe { Out::optional(capacity_out) };
        // SAFETY: as above.
        let dropped_out = unsafe { Out::optional(dropped_out) };
        let e = &env.0.env;
        out.write(e.finished_len());
        if let Some(o) = capacity_out {
            o.write(e.finished_capacity());
        }
        if let Some(o) = dropped_out {
            o.write(e.finished_dropped());
        }
        Ok(())
    })
}
