//! Refereed games (`junqi_game`): deployment, turns, legal actions, play, views,
//! results and records.

use std::ffi::{c_char, c_int};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use junqi_core::{Action, Game, Record, Report, Side};

use crate::boundary::guard;
use crate::ptr::{
    free_handle, handle_mut, handle_ref, into_c_string, into_handle, str_arg, Out, OutSlice,
};
use crate::rules::{give_rules, junqi_rules, string_out};
use crate::status::{junqi_status, Error, Result};
use crate::types::{
    junqi_phase, junqi_result, junqi_side, phase_to_c, result_to_c, side_arg, side_to_c,
    JUNQI_POINT_NONE,
};

/// A refereed game (opaque): the full state of every army, each player's event log,
/// and the record.
///
/// Made by `junqi_game_new`, `junqi_game_clone` or `junqi_game_from_record`; freed
/// with `junqi_game_free`.
///
/// Thread safety: a game handle may be used by one thread at a time (it may move
/// between threads); distinct handles are independent and may be used concurrently.
///
/// Poisoning: if the library panics during a call that was given a game handle, the
/// call returns `JUNQI_STATUS_PANIC` and the handle is marked poisoned: every later
/// call with it returns `JUNQI_STATUS_POISONED`, except `junqi_game_free`, which still
/// frees it.
#[allow(non_camel_case_types)]
pub struct junqi_game {
    game: Game,
    poisoned: AtomicBool,
}

impl junqi_game {
    fn new(game: Game) -> junqi_game {
        junqi_game {
            game,
            poisoned: AtomicBool::new(false),
        }
    }

    fn check_poison(&self) -> Result<()> {
        if self.poisoned.load(Ordering::Relaxed) {
            Err(Error::new(
                junqi_status::Poisoned,
                "the game handle was poisoned by an earlier panic; free it with junqi_game_free",
            ))
        } else {
            Ok(())
        }
    }
}

/// Shared access to a game for one call; marks the handle poisoned if the call panics.
pub(crate) struct GameRef<'a>(&'a junqi_game);

impl Deref for GameRef<'_> {
    type Target = Game;
    fn deref(&self) -> &Game {
        &self.0.game
    }
}

impl Drop for GameRef<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// Exclusive access to a game for one call; marks the handle poisoned if the call
/// panics (the game may be half-way through a change).
pub(crate) struct GameMut<'a>(&'a mut junqi_game);

impl Deref for GameMut<'_> {
    type Target = Game;
    fn deref(&self) -> &Game {
        &self.0.game
    }
}

impl DerefMut for GameMut<'_> {
    fn deref_mut(&mut self) -> &mut Game {
        &mut self.0.game
    }
}

impl Drop for GameMut<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// # Safety
/// `p` is NULL or a live `junqi_game` that no other thread uses during `'a`.
pub(crate) unsafe fn game_ref<'a>(p: *const junqi_game) -> Result<GameRef<'a>> {
    // SAFETY: forwarded caller contract.
    let h = unsafe { handle_ref(p, "game") }?;
    h.check_poison()?;
    Ok(GameRef(h))
}

/// # Safety
/// `p` is NULL or a live `junqi_game` that no other thread uses during `'a`.
pub(crate) unsafe fn game_mut<'a>(p: *mut junqi_game) -> Result<GameMut<'a>> {
    // SAFETY: forwarded caller contract.
    let h = unsafe { handle_mut(p, "game") }?;
    h.check_poison()?;
    Ok(GameMut(h))
}

pub(crate) fn give_game(out: Out<*mut junqi_game>, game: Game) {
    out.write(into_handle(junqi_game::new(game)));
}

/// A side that must play in the game.
pub(crate) fn playing_side(game: &Game, side: c_int) -> Result<Side> {
    let side = side_arg(side)?;
    game.rules().check_side(side)?;
    Ok(side)
}

fn report_json(game: &Game, report: &Report) -> String {
    report.to_json(game.board()).to_string()
}

/// Writes the report to an optional out-parameter.
pub(crate) fn give_report(out: Option<Out<*mut c_char>>, game: &Game, report: &Report) {
    if let Some(out) = out {
        out.write(into_c_string(report_json(game, report)));
    }
}

/// Starts a game of a rule set: waiting for every side to deploy, or — in a rule set
/// that deals face down (`fanqi`) — already dealt from `seed` and in the move phase.
///
/// - `rules`: the rule set (borrowed; the game keeps its own reference, so `rules` may
///   be freed afterwards).
/// - `seed`: kept in the record; it decides the `fanqi` deal and the default random
///   setups, so it is referee-only information — a secret. Pass a chosen seed only for
///   reproducible research (the same seed gives the same game); a game between players
///   takes a fresh seed from the operating system: `junqi_game_new_os_seed`.
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_new(
    rules: *const junqi_rules,
    seed: u64,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        give_game(out, Game::with_rules(Arc::clone(&rules.inner), seed));
        Ok(())
    })
}

/// Starts the seeded start of `seed`: the seed's deal in a rule set that deals
/// (`fanqi`), else every side deployed at random from the seed, ready for the first
/// move. The same seed starts the same game in every layer (Rust's
/// `Game::random_start`, Python's `Game.random_start`, JavaScript's
/// `Game.randomStart`, each game of a vector environment); see docs/c.md.
///
/// - `rules`: the rule set (borrowed).
/// - `seed`: the game's seed (a secret between players, as for `junqi_game_new`).
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_SETUP` if no setup meets the rule set's
/// deployment constraints (a broken custom rule set). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_random_start(
    rules: *const junqi_rules,
    seed: u64,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        give_game(out, Game::random_start(Arc::clone(&rules.inner), seed)?);
        Ok(())
    })
}

/// Starts a game of a rule set, like `junqi_game_new`, with a fresh seed from the
/// operating system's random source (kept in the record: `junqi_game_record_json`).
/// What a game between players should use: a referee's seed is a secret.
///
/// - `rules`: the rule set (borrowed).
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_new_os_seed(
    rules: *const junqi_rules,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        give_game(out, Game::with_os_seed(Arc::clone(&rules.inner)));
        Ok(())
    })
}

/// Frees a game handle (also a poisoned one). NULL is accepted and ignored; freeing
/// the same handle twice is undefined behaviour.
///
/// # Safety
/// `game` is NULL or a live `junqi_game` that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_free(game: *mut junqi_game) {
    let _ = guard(|| {
        // SAFETY: forwarded caller contract: a live handle from `into_handle`, freed once.
        unsafe { free_handle(game) };
        Ok(())
    });
}

/// Copies a game: the copy has the same state, logs and record, and is independent of
/// the original from then on.
///
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_clone(
    game: *const junqi_game,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        give_game(out, (*game).clone());
        Ok(())
    })
}

/// The game's rule set, as a new handle (use it for point and move notation).
///
/// - `rules_out`: receives a new handle; free it with `junqi_rules_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `rules_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_rules(
    game: *const junqi_game,
    rules_out: *mut *mut junqi_rules,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(rules_out, "rules_out") }?;
        give_rules(out, Arc::clone(game.rules()));
        Ok(())
    })
}

/// Deploys a side from a JSON setup `{"a1": "flag", "b1": "mine", ...}` (point names
/// to piece-kind ids or Chinese names). Sides may deploy in any order.
///
/// - `side`: a `junqi_side` value.
/// - `setup_json`: NUL-terminated UTF-8 JSON (borrowed for the call).
/// - `report_out`: may be NULL; otherwise receives the report as JSON (see
///   `junqi_game_play`); free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_JSON`; `OUT_OF_RANGE` (not a
/// side value); `SIDE_NOT_IN_GAME`; `UNKNOWN_NAME` (a point or kind name);
/// `INVALID_SETUP` (not a legal deployment); `WRONG_PHASE` (deployment is over, or the
/// side has deployed); `POISONED`. On failure the game is unchanged.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `setup_json` is NULL or a NUL-terminated
/// string; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_deploy_json(
    game: *mut junqi_game,
    side: c_int,
    setup_json: *const c_char,
    report_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract for `setup_json`.
        let text = unsafe { str_arg(setup_json, "setup_json") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let side = playing_side(&game, side)?;
        let report = game.deploy_json(side, text)?;
        give_report(out, &game, &report);
        Ok(())
    })
}

/// Deploys a random legal setup for a side; the same seed gives the same setup.
/// (`junqi_game_deploy_start` deploys the side's setup of the seeded start instead.)
///
/// - `side`: a `junqi_side` value.
/// - `report_out`: may be NULL; otherwise receives the report as JSON; free it with
///   `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `WRONG_PHASE`;
/// `POISONED`. On failure the game is unchanged. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_deploy_random(
    game: *mut junqi_game,
    side: c_int,
    seed: u64,
    report_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let side = playing_side(&game, side)?;
        let report = game.deploy_random(side, seed)?;
        give_report(out, &game, &report);
        Ok(())
    })
}

/// Deploys `side`'s setup of the seeded start of the game's seed: the setup
/// `junqi_game_random_start` gives it, whoever else deployed what.
///
/// - `side`: a `junqi_side` value.
/// - `report_out`: may be NULL; otherwise receives the report as JSON; free it with
///   `junqi_string_free`.
///
/// Status: as `junqi_game_deploy_random`. On failure the game is unchanged. Thread
/// safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_deploy_start(
    game: *mut junqi_game,
    side: c_int,
    report_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let side = playing_side(&game, side)?;
        let report = game.deploy_start(side)?;
        give_report(out, &game, &report);
        Ok(())
    })
}

/// Who acts now, and what kind of action the game waits for.
///
/// - `side_out`: receives the side to act: during deployment the first side (in turn
///   order) that has not deployed; in `JUNQI_PHASE_REACTION` the owner of the
///   submarine that must step away (often not the side that just moved);
///   `JUNQI_SIDE_NONE` once the game is over.
/// - `phase_out`: receives `JUNQI_PHASE_DEPLOY`, `JUNQI_PHASE_MOVE`,
///   `JUNQI_PHASE_REACTION` or `JUNQI_PHASE_OVER`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; the out-pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_to_act(
    game: *const junqi_game,
    side_out: *mut junqi_side,
    phase_out: *mut junqi_phase,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let side_out = unsafe { Out::new(side_out, "side_out") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let phase_out = unsafe { Out::new(phase_out, "phase_out") }?;
        side_out.write(game.to_act().map_or(junqi_side::None, side_to_c));
        phase_out.write(phase_to_c(game.phase()));
        Ok(())
    })
}

/// The plane `player` must move away (海陆空三军棋): a plane whose attack was repelled —
/// a recon that scouted and survived, a fighter against a trap — must move away on
/// its owner's next turn if it can. While it must, that player's legal actions are the
/// plane's moves only, and any other action is refused with `ILLEGAL_ACTION`.
///
/// - `player`: a `junqi_side` value.
/// - `point_out`: receives the point index of the plane (`0..junqi_rules_point_count`;
///   `junqi_point_print` names it, e.g. `"e12^"`), or `JUNQI_POINT_NONE` when the
///   player has no such obligation (always so in rule sets without planes).
///
/// Depends only on what `player` knows: safe to show to that player.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (not a side value);
/// `SIDE_NOT_IN_GAME`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `point_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_obligation(
    game: *const junqi_game,
    player: c_int,
    point_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(point_out, "point_out") }?;
        let player = playing_side(&game, player)?;
        let point = game.position().obligation(player);
        out.write(point.map_or(JUNQI_POINT_NONE, |p| p.index() as u32));
        Ok(())
    })
}

/// The legal actions of the side to act, as a JSON array of notations
/// (`["a2-a3", "a2-b2", ...]`; in `fanqi` also flips, `"flip c3"`, after the moves),
/// in ascending action-index order.
/// During a reaction (`JUNQI_PHASE_REACTION`) they are the submarine's steps; empty in
/// the deployment phase and once the game is over. Legality depends only on what the
/// side to act knows, so the list may be shown to that player.
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_legal_actions_json(
    game: *const junqi_game,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let board = game.board();
        let list: Vec<String> = game
            .legal_actions()
            .into_iter()
            .map(|a| a.to_notation(board))
            .collect();
        string_out(out, serde_json::Value::from(list).to_string());
        Ok(())
    })
}

/// The legal actions of the side to act as indices in the rule set's fixed action
/// space (`0..junqi_game_action_space`), ascending.
///
/// - `buf`, `cap`: an array of `cap` indices to fill; `buf` may be NULL when `cap` is 0
///   (a size query).
/// - `len_out`: always receives the number of legal actions (also on
///   `BUFFER_TOO_SMALL`). A buffer of `junqi_game_action_space` elements is always big
///   enough.
///
/// Status: `OK`; `NULL_POINTER`; `BUFFER_TOO_SMALL` (nothing written to `buf`);
/// `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `buf` is NULL or has `cap` writable
/// elements; `len_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_legal_action_ids(
    game: *const junqi_game,
    buf: *mut u32,
    cap: usize,
    len_out: *mut usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let len_out = unsafe { Out::new(len_out, "len_out") }?;
        // SAFETY: forwarded caller contract: NULL or `cap` writable elements.
        let buf = unsafe { OutSlice::new(buf, cap, "buf") }?;
        let ids: Vec<u32> = game
            .legal_action_ids()
            .into_iter()
            .map(|i| i as u32)
            .collect();
        len_out.write(ids.len());
        buf.fill(&ids)
    })
}

/// Size of the game's fixed action space (same as `junqi_rules_action_space` of its
/// rule set).
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `size_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_action_space(
    game: *const junqi_game,
    size_out: *mut usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(size_out, "size_out") }?;
        out.write(game.rules().action_space());
        Ok(())
    })
}

/// # Safety
/// As for the public play functions.
unsafe fn play_with(
    game: *mut junqi_game,
    report_out: *mut *mut c_char,
    play: impl FnOnce(&mut Game) -> Result<Report>,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let mut game = unsafe { game_mut(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::optional(report_out) };
        let report = play(&mut game)?;
        give_report(out, &game, &report);
        Ok(())
    })
}

/// Plays an action of the side to act, given in notation (`"a2-a6"`).
///
/// - `notation`: NUL-terminated UTF-8 (borrowed for the call).
/// - `report_out`: may be NULL; otherwise receives the report as JSON; free it with
///   `junqi_string_free`.
///
/// REFEREE: the report is the referee's: `{"public": [events...], "private": {"<side>":
/// [events...]}}`. Public events may be shown to everyone; the events under
/// `private.<side>` only to that side's player (they can reveal hidden identities).
/// Each event is an object with a `"type"` (`"moved"`, `"attacked"`, `"struck"`,
/// `"shot_down"`, `"reaction_due"`, `"revealed"`, `"game_over"`, ...).
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_NOTATION`; `UNKNOWN_NAME`
/// (a point the board does not have); `ILLEGAL_ACTION` (also: anything but the
/// submarine's step during a reaction); `WRONG_PHASE` (before every
/// side deployed, or after the game ended); `POISONED`. On failure the game is
/// unchanged. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `notation` is NULL or a NUL-terminated
/// string; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_play(
    game: *mut junqi_game,
    notation: *const c_char,
    report_out: *mut *mut c_char,
) -> junqi_status {
    let play = |g: &mut Game| {
        // SAFETY: forwarded caller contract for `notation`.
        let text = unsafe { str_arg(notation, "notation") }?;
        Ok(g.play_notation(text)?)
    };
    // SAFETY: forwarded caller contract for `game` and `report_out`.
    unsafe { play_with(game, report_out, play) }
}

/// Plays the action with a given index in the action space (see
/// `junqi_game_legal_action_ids`).
///
/// - `report_out`: as for `junqi_game_play` (the referee's report; may be NULL).
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (index not below the action space
/// size); `ILLEGAL_ACTION`; `WRONG_PHASE`; `POISONED`. On failure the game is
/// unchanged. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_play_id(
    game: *mut junqi_game,
    id: u32,
    report_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { play_with(game, report_out, |g| Ok(g.play_id(id as usize)?)) }
}

/// Plays an action in notation on behalf of `side`, refusing it with
/// `NOT_YOUR_TURN` if `side` is not the side to act. Use this when the action comes
/// from a player who may act out of turn.
///
/// - `side`: a `junqi_side` value.
/// - `report_out`: as for `junqi_game_play` (the referee's report; may be NULL).
///
/// Status: as `junqi_game_play`, plus `OUT_OF_RANGE` (not a side value),
/// `SIDE_NOT_IN_GAME` and `NOT_YOUR_TURN`. On failure the game is unchanged.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `notation` is NULL or a NUL-terminated
/// string; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_play_as(
    game: *mut junqi_game,
    side: c_int,
    notation: *const c_char,
    report_out: *mut *mut c_char,
) -> junqi_status {
    let play = |g: &mut Game| {
        // SAFETY: forwarded caller contract for `notation`.
        let text = unsafe { str_arg(notation, "notation") }?;
        let side = playing_side(g, side)?;
        let action = Action::parse(g.board(), text)?;
        Ok(g.play_as(side, action)?)
    };
    // SAFETY: forwarded caller contract for `game` and `report_out`.
    unsafe { play_with(game, report_out, play) }
}

/// `side` resigns and is out: in a two-sided game the other side wins; with teams,
/// play goes on until one team is left. Allowed at any time before the game ends (also
/// out of turn).
///
/// - `report_out`: as for `junqi_game_play` (may be NULL).
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME` (also: already
/// out); `WRONG_PHASE` (the game is over); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_resign(
    game: *mut junqi_game,
    side: c_int,
    report_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        play_with(game, report_out, |g| {
            let side = playing_side(g, side)?;
            Ok(g.resign(side)?)
        })
    }
}

/// `side` leaves the game (an escape, docs/sources.md#qq-escape): the game ends at once, with
/// reason `JUNQI_END_REASON_ESCAPE`. If no partner of the escaper is still in, the
/// other side (team) wins; if a partner is still in (four players, both enemies in),
/// nobody wins and nobody scores. Allowed at any time before the game ends (also out
/// of turn).
///
/// - `report_out`: as for `junqi_game_play` (may be NULL).
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME` (also: already
/// out); `WRONG_PHASE` (the game is over); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_escape(
    game: *mut junqi_game,
    side: c_int,
    report_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe {
        play_with(game, report_out, |g| {
            let side = playing_side(g, side)?;
            Ok(g.escape(side)?)
        })
    }
}

/// The referee's time-out for the side to act (a player who ran out of time): its turn
/// passes (during a reaction, the submarine stays where it is); under a rule set with
/// `max_timeouts`, a side that reaches that many is out.
///
/// - `report_out`: as for `junqi_game_play` (may be NULL).
///
/// Status: `OK`; `NULL_POINTER`; `WRONG_PHASE` (not in the move or reaction phase);
/// `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_time_out(
    game: *mut junqi_game,
    report_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { play_with(game, report_out, |g| Ok(g.time_out()?)) }
}

/// Ends the game in a draw by agreement of the players.
///
/// - `report_out`: as for `junqi_game_play` (may be NULL).
///
/// Status: `OK`; `NULL_POINTER`; `WRONG_PHASE` (the game is over); `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `report_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_agree_draw(
    game: *mut junqi_game,
    report_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { play_with(game, report_out, |g| Ok(g.agree_draw()?)) }
}

/// One player's view as JSON: its whole information set and nothing else — the army it
/// commands (`army`; `null` in `fanqi` before the first flip), phase, side to act, ply
/// counters, every piece with its owner (`null` while face down in `fanqi`) and (only
/// where this player knows it) its kind (`null` otherwise), the player's event log,
/// and the result.
///
/// - `side`: the player, a `junqi_side` value.
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_view_json(
    game: *const junqi_game,
    side: c_int,
    json_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { view_json_out(game, side, json_out, Game::view) }
}

/// Writes the JSON of the view `which` gives of `side` to `json_out`: the body of
/// `junqi_game_view_json` and `junqi_game_end_view_json`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
unsafe fn view_json_out(
    game: *const junqi_game,
    side: c_int,
    json_out: *mut *mut c_char,
    which: fn(&Game, Side) -> junqi_core::View,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let side = playing_side(&game, side)?;
        string_out(out, which(&game, side).to_json(game.rules()).to_string());
        Ok(())
    })
}

/// One player's event log in words from its side, as a JSON array of strings: "you
/// moved your 师长 d2-d3", "your 司令 on c6 was taken by north's piece from c7", "you
/// lose: north captured your flag" (the core's narrator, as the web page's log and the
/// terminal game tell it). It names only the pieces the player knows.
///
/// - `side`: the player, a `junqi_side` value.
/// - `language`: a BCP 47 tag, UTF-8: Chinese for `"zh"`, `"zh-CN"`, …, English
///   otherwise; NULL for English.
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER` (`game` or `json_out`); `INVALID_UTF8`;
/// `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `language` is NULL or a NUL-terminated
/// string; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_narrate_json(
    game: *const junqi_game,
    side: c_int,
    language: *const c_char,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let language = if language.is_null() {
            junqi_core::referee::narrate::Language::English
        } else {
            // SAFETY: forwarded caller contract: a NUL-terminated string.
            junqi_core::referee::narrate::Language::from_tag(unsafe { str_arg(language, "language") }?)
        };
        let side = playing_side(&game, side)?;
        string_out(out, serde_json::to_string(&game.narrate(side, language)).unwrap_or_default());
        Ok(())
    })
}

/// What one player sees once the game is over, as JSON: the view of
/// `junqi_game_view_json` with every piece's owner and kind shown (the board turned up
/// at the end); before the end, that view itself.
///
/// - `side`: the player, a `junqi_side` value.
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_end_view_json(
    game: *const junqi_game,
    side: c_int,
    json_out: *mut *mut c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { view_json_out(game, side, json_out, Game::end_view) }
}

/// One player's view of the board as text, one line per row, for logs and debugging:
/// own pieces by a two-letter code, other sides' pieces in angle brackets (`<??>` when
/// unknown, `<XX>` when known), face-down pieces as `##`, empty camps `( )`, empty HQs
/// `[ ]`.
///
/// - `text_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `text_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_view_text(
    game: *const junqi_game,
    side: c_int,
    text_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(text_out, "text_out") }?;
        let side = playing_side(&game, side)?;
        string_out(out, game.view(side).render(game.board()));
        Ok(())
    })
}

/// A player's event log from event number `from` on, as a JSON array of events: the
/// public events and this player's private ones, oldest first. Pass the number of
/// events already seen to get only the new ones (`from` past the end gives `[]`).
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_events_json(
    game: *const junqi_game,
    side: c_int,
    from: usize,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let side = playing_side(&game, side)?;
        let events = game.events(side);
        let list: Vec<serde_json::Value> = events
            .iter()
            .skip(from)
            .map(|e| e.to_json(game.board()))
            .collect();
        string_out(out, serde_json::Value::from(list).to_string());
        Ok(())
    })
}

/// The game's result (public information).
///
/// - `result_out`: receives the result; `over` is false while the game goes on.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `result_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_result(
    game: *const junqi_game,
    result_out: *mut junqi_result,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(result_out, "result_out") }?;
        out.write(result_to_c(game.result()));
        Ok(())
    })
}

/// The full record of the game as JSON: rule set, seed, **every side's setup** and
/// every action. It replays to the identical state with `junqi_game_from_record`.
///
/// REFEREE: this record gives every army away. Give players
/// `junqi_game_player_record_json` instead (or this one after the game).
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_record_json(
    game: *const junqi_game,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        string_out(out, game.record().to_json());
        Ok(())
    })
}

/// What one player saw of the game, as JSON: the rule set, its own setup, its event
/// log and the result. Safe to give to that player: it holds nothing of the other
/// armies that the player was not shown.
///
/// - `side`: the player, a `junqi_side` value.
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_player_record_json(
    game: *const junqi_game,
    side: c_int,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let side = playing_side(&game, side)?;
        string_out(out, game.player_record(side).to_json());
        Ok(())
    })
}

/// Replays a full record (from `junqi_game_record_json`) into a new game, checking
/// every action and the stored result.
///
/// - `json`: NUL-terminated UTF-8 JSON (borrowed for the call).
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_JSON` (not JSON text);
/// `UNKNOWN_NAME` (the record names no known preset); `INVALID_RULES`;
/// `INVALID_RECORD` (well-formed JSON that is not a record, or does not replay).
/// Thread safety: any thread.
///
/// # Safety
/// `json` is NULL or a NUL-terminated string; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_from_record(
    json: *const c_char,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `json`.
        let text = unsafe { str_arg(json, "json") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        let record = Record::from_json(text)?;
        give_game(out, Game::from_record(&record)?);
        Ok(())
    })
}

/// **Test hook, not for production use.** Panics inside the library's panic boundary,
/// so that a program can check that panics come back as `JUNQI_STATUS_PANIC` and that
/// the game handle is then poisoned.
///
/// - `game`: NULL, or a game handle that becomes poisoned.
///
/// Status: always `PANIC` (or `POISONED` if `game` already is).
///
/// # Safety
/// `game` is NULL or a live `junqi_game`.
#[no_mangle]
pub unsafe extern "C" fn junqi_test_panic(game: *mut junqi_game) -> junqi_status {
    guard(|| {
        let _held = if game.is_null() {
            None
        } else {
            // SAFETY: forwarded caller contract for `game`.
            Some(unsafe { game_mut(game) }?)
        };
        panic!("junqi_test_panic was called");
    })
}

// The header promises that distinct handles may be used from different threads and
// a handle may move between threads: keep both handle types Send + Sync.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<junqi_game>();
    send_sync::<crate::rules::junqi_rules>();
};
