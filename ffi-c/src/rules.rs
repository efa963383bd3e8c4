//! Rule sets (`junqi_rules`), combat resolution, and point and move notation.

use std::ffi::{c_char, c_int};
use std::sync::Arc;

use junqi_core::{parse_point, resolve, resolve_attack, Action, Board, Point, RuleSet};

use crate::boundary::guard;
use crate::ptr::{free_handle, handle_ref, into_c_string, into_handle, str_arg, Out, OutSlice};
use crate::status::{junqi_status, Error, Result};
use crate::types::{
    attack_arg, junqi_move, junqi_outcome, junqi_resolution, junqi_side, kind_arg, outcome_to_c,
    resolution_to_c, side_arg, side_mask, side_to_c,
};

/// A validated rule set (opaque). Immutable once made, so one `junqi_rules` may be
/// used from several threads at the same time; it is never poisoned.
///
/// Made by `junqi_rules_preset`, `junqi_rules_from_json`, `junqi_rules_clone` or
/// `junqi_game_rules`; freed with `junqi_rules_free`. Games keep their own reference,
/// so a rule set may be freed while games made from it live on.
#[allow(non_camel_case_types)]
pub struct junqi_rules {
    pub(crate) inner: Arc<RuleSet>,
}

pub(crate) fn point_arg(board: &Board, index: u32) -> Result<Point> {
    board.point_at(index as usize).ok_or_else(|| {
        Error::out_of_range(format!(
            "point index {index} is not on the board (0..{})",
            board.len()
        ))
    })
}

pub(crate) fn give_rules(out: Out<*mut junqi_rules>, rules: Arc<RuleSet>) {
    out.write(into_handle(junqi_rules { inner: rules }))
}

pub(crate) fn string_out(out: Out<*mut c_char>, s: String) {
    out.write(into_c_string(s))
}

/// The names of the built-in rule sets, as a JSON array of strings, e.g.
/// `["classic"]`.
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_presets(json_out: *mut *mut c_char) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let names = serde_json::to_string(&RuleSet::preset_names()).unwrap_or_else(|_| "[]".into());
        string_out(out, names);
        Ok(())
    })
}

/// Loads a built-in rule set by name (see `junqi_rules_presets`), e.g. `"classic"`.
///
/// - `name`: NUL-terminated UTF-8 (borrowed for the call).
/// - `rules_out`: receives a new handle; free it with `junqi_rules_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME` (no such preset).
/// Thread safety: any thread.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `rules_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_preset(
    name: *const c_char,
    rules_out: *mut *mut junqi_rules,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `name`.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(rules_out, "rules_out") }?;
        give_rules(out, RuleSet::preset(name)?);
        Ok(())
    })
}

/// Loads a rule set from JSON text: a complete rule set, or
/// `{"extends": "classic", ...}` with only the keys that differ (see the core's
/// `RuleSet::from_json`).
///
/// - `json`: NUL-terminated UTF-8 JSON text (borrowed for the call).
/// - `rules_out`: receives a new handle; free it with `junqi_rules_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_JSON` (not JSON text);
/// `UNKNOWN_NAME` (`extends` names no preset); `INVALID_RULES` (JSON that is not a valid
/// rule set). Thread safety: any thread.
///
/// # Safety
/// `json` is NULL or a NUL-terminated string; `rules_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_from_json(
    json: *const c_char,
    rules_out: *mut *mut junqi_rules,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `json`.
        let text = unsafe { str_arg(json, "json") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(rules_out, "rules_out") }?;
        give_rules(out, Arc::new(RuleSet::from_json(text)?));
        Ok(())
    })
}

/// Makes a second handle to the same rule set (cheap: the rule set is shared).
///
/// - `rules`: the rule set (borrowed).
/// - `rules_out`: receives a new handle; free it with `junqi_rules_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `rules_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_clone(
    rules: *const junqi_rules,
    rules_out: *mut *mut junqi_rules,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(rules_out, "rules_out") }?;
        give_rules(out, Arc::clone(&rules.inner));
        Ok(())
    })
}

/// Frees a rule-set handle. NULL is accepted and ignored; freeing the same handle twice
/// is undefined behaviour. Games made from the rule set are not affected.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules` that no other thread is using.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_free(rules: *mut junqi_rules) {
    let _ = guard(|| {
        // SAFETY: forwarded caller contract: a live handle from `into_handle`, freed once.
        unsafe { free_handle(rules) };
        Ok(())
    });
}

/// The rule set's name, e.g. `"classic"`.
///
/// `name_out` receives a new string; free it with `junqi_string_free`.
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_name(
    rules: *const junqi_rules,
    name_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(name_out, "name_out") }?;
        string_out(out, rules.inner.name().to_owned());
        Ok(())
    })
}

/// The complete rule set as JSON (loadable again with `junqi_rules_from_json`).
///
/// `json_out` receives a new string; free it with `junqi_string_free`.
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_to_json(
    rules: *const junqi_rules,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        string_out(out, rules.inner.to_json());
        Ok(())
    })
}

/// The rule set's board as JSON: `{"name", "description", "points": [{"name", "x",
/// "y", "role", "side", "depth"}, ...], "edges": {"road": ["a1-a2", ...], "railway":
/// [...]}, "rail_lines": [[...], ...]}`. Points are listed in point-index order, so the
/// `i`-th entry is point index `i` of the other functions.
///
/// `json_out` receives a new string; free it with `junqi_string_free`.
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_board_json(
    rules: *const junqi_rules,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        // Through `Value`, whose objects keep their keys sorted: the text is the same
        // on every call.
        let value = serde_json::to_value(rules.inner.board().spec())
            .map_err(|e| Error::new(junqi_status::InvalidRules, e.to_string()))?;
        string_out(out, value.to_string());
        Ok(())
    })
}

/// The sides that play, in turn order (the first moves first).
///
/// - `buf`, `cap`: an array of `cap` `junqi_side`s to fill; `buf` may be NULL when `cap`
///   is 0 (a size query).
/// - `len_out`: always receives the number of sides (also on `BUFFER_TOO_SMALL`).
///
/// Status: `OK`; `NULL_POINTER` (`rules`, `len_out`, or `buf` with `cap > 0`);
/// `BUFFER_TOO_SMALL` (nothing written to `buf`). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `buf` is NULL or has `cap` writable
/// elements; `len_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_sides(
    rules: *const junqi_rules,
    buf: *mut junqi_side,
    cap: usize,
    len_out: *mut usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let len_out = unsafe { Out::new(len_out, "len_out") }?;
        // SAFETY: forwarded caller contract: NULL or `cap` writable elements.
        let buf = unsafe { OutSlice::new(buf, cap, "buf") }?;
        let sides: Vec<junqi_side> = rules.inner.sides().iter().map(|s| side_to_c(*s)).collect();
        len_out.write(sides.len());
        buf.fill(&sides)
    })
}

/// The team of a side: itself and its allies, as a bit mask (bit `1u << side` for each
/// member). Without teams it is the side alone.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (not a side value); `SIDE_NOT_IN_GAME`.
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `mask_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_team(
    rules: *const junqi_rules,
    side: c_int,
    mask_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(mask_out, "mask_out") }?;
        let side = side_arg(side)?;
        rules.inner.check_side(side)?;
        out.write(side_mask(rules.inner.team_of(side)));
        Ok(())
    })
}

/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `out` is NULL or writable.
unsafe fn size_query(
    rules: *const junqi_rules,
    out: *mut usize,
    f: impl FnOnce(&RuleSet) -> usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: this function's own contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(out, "size_out") }?;
        out.write(f(&rules.inner));
        Ok(())
    })
}

/// Number of pieces in one side's army (25 in `classic`).
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `size_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_army_size(
    rules: *const junqi_rules,
    size_out: *mut usize,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { size_query(rules, size_out, RuleSet::army_size) }
}

/// Number of points of the board; point indices are `0..count`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `size_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_point_count(
    rules: *const junqi_rules,
    size_out: *mut usize,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { size_query(rules, size_out, |r| r.board().len()) }
}

/// Size of the rule set's fixed action space; action indices are `0..size`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `size_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_action_space(
    rules: *const junqi_rules,
    size_out: *mut usize,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { size_query(rules, size_out, RuleSet::action_space) }
}

/// Resolves `attacker` attacking `defender` under a rule set, without a game.
///
/// - `attacker`, `defender`: `junqi_piece_kind` values. A kind the rule set's army does
///   not have gives `JUNQI_OUTCOME_ILLEGAL`.
/// - `outcome_out`: receives the outcome.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (a value that is not a kind).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `outcome_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_resolve(
    rules: *const junqi_rules,
    attacker: c_int,
    defender: c_int,
    outcome_out: *mut junqi_outcome,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(outcome_out, "outcome_out") }?;
        let outcome = resolve(&rules.inner, kind_arg(attacker)?, kind_arg(defender)?);
        out.write(outcome_to_c(outcome));
        Ok(())
    })
}

/// Resolves `attacker` attacking `defender` in a given manner (海陆空三军棋), without a
/// game: the outcome of `junqi_resolve` and what it does to both pieces. For example a
/// gunboat's bombardment (`JUNQI_ATTACK_BOMBARDMENT`) of a commander is
/// `JUNQI_OUTCOME_LOSE` with nobody leaving the board; a fort's strike
/// (`JUNQI_ATTACK_STRIKE`) that wins removes the defender while the fort stays put.
///
/// - `attacker`, `defender`: `junqi_piece_kind` values. A kind the rule set's army does
///   not have gives `JUNQI_OUTCOME_ILLEGAL` (nobody leaves, nobody moves).
/// - `attack`: a `junqi_attack` value.
/// - `resolution_out`: receives the outcome and the three effects.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (a value that is not a kind or not an
/// attack). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `resolution_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_resolve_attack(
    rules: *const junqi_rules,
    attacker: c_int,
    defender: c_int,
    attack: c_int,
    resolution_out: *mut junqi_resolution,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(resolution_out, "resolution_out") }?;
        let resolution = resolve_attack(
            &rules.inner,
            kind_arg(attacker)?,
            kind_arg(defender)?,
            attack_arg(attack)?,
        );
        out.write(resolution_to_c(resolution));
        Ok(())
    })
}

/// Parses a point name of the rule set's board, e.g. `"c6"`.
///
/// - `name`: NUL-terminated UTF-8 (borrowed for the call).
/// - `point_out`: receives the point index (`0..junqi_rules_point_count`).
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME` (no such point).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `name` is NULL or a NUL-terminated string;
/// `point_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_point_parse(
    rules: *const junqi_rules,
    name: *const c_char,
    point_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract for `name`.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(point_out, "point_out") }?;
        let p = parse_point(rules.inner.board(), name)?;
        out.write(p.index() as u32);
        Ok(())
    })
}

/// The name of a point of the rule set's board, e.g. `"c6"`.
///
/// - `point`: a point index (`0..junqi_rules_point_count`).
/// - `name_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (no such point index).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_point_print(
    rules: *const junqi_rules,
    point: u32,
    name_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(name_out, "name_out") }?;
        let board = rules.inner.board();
        let p = point_arg(board, point)?;
        string_out(out, board.name_of(p).to_owned());
        Ok(())
    })
}

/// Parses an action in notation (e.g. `"a2-a6"`) to its index in the rule set's fixed
/// action space. Works for every kind of action the rule set has (a move is the only
/// kind in `classic`); legality is not checked.
///
/// - `text`: NUL-terminated UTF-8 (borrowed for the call).
/// - `index_out`: receives the index (`0..junqi_rules_action_space`).
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_NOTATION`; `UNKNOWN_NAME` (a
/// point the board does not have); `ILLEGAL_ACTION` (an action no position could
/// allow, so it has no index). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `text` is NULL or a NUL-terminated string;
/// `index_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_action_parse(
    rules: *const junqi_rules,
    text: *const c_char,
    index_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract for `text`.
        let text = unsafe { str_arg(text, "text") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(index_out, "index_out") }?;
        let board = rules.inner.board();
        let action = Action::parse(board, text)?;
        out.write(action_id(&rules.inner, action)?);
        Ok(())
    })
}

/// The notation of the action with a given index in the rule set's action space, e.g.
/// `"a2-a6"` (any kind of action, unlike `junqi_move_from_index`).
///
/// - `text_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (index not below the action space
/// size). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `text_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_action_print(
    rules: *const junqi_rules,
    index: u32,
    text_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(text_out, "text_out") }?;
        let action = Action::from_id(&rules.inner, index as usize)?;
        string_out(out, action.to_notation(rules.inner.board()));
        Ok(())
    })
}

fn move_of(action: Action) -> Option<junqi_move> {
    #[allow(unreachable_patterns)] // `Action` is non-exhaustive
    match action {
        Action::Move { from, to } => Some(junqi_move {
            from: from.index() as u32,
            to: to.index() as u32,
        }),
        _ => None,
    }
}

pub(crate) fn action_arg(board: &Board, mv: junqi_move) -> Result<Action> {
    let from = point_arg(board, mv.from)?;
    let to = point_arg(board, mv.to)?;
    // The notation of two valid points always parses back to the move between them.
    Ok(Action::parse(
        board,
        &format!("{}-{}", board.name_of(from), board.name_of(to)),
    )?)
}

/// Parses move notation `"from-to"`, e.g. `"a2-a6"`. Only the notation is checked, not
/// whether the move is legal anywhere.
///
/// - `text`: NUL-terminated UTF-8 (borrowed for the call).
/// - `move_out`: receives the two point indices.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_NOTATION` (not two points
/// joined by `-`); `UNKNOWN_NAME` (a point the board does not have).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `text` is NULL or a NUL-terminated string;
/// `move_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_parse(
    rules: *const junqi_rules,
    text: *const c_char,
    move_out: *mut junqi_move,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract for `text`.
        let text = unsafe { str_arg(text, "text") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(move_out, "move_out") }?;
        let action = Action::parse(rules.inner.board(), text)?;
        let mv = move_of(action).ok_or_else(|| {
            Error::new(
                junqi_status::InvalidNotation,
                format!("{text:?} is not a move"),
            )
        })?;
        out.write(mv);
        Ok(())
    })
}

/// Writes a move in notation, e.g. `"a2-a6"`.
///
/// - `mv`: two point indices.
/// - `text_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (a point index not on the board).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `text_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_print(
    rules: *const junqi_rules,
    mv: junqi_move,
    text_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(text_out, "text_out") }?;
        let board = rules.inner.board();
        let action = action_arg(board, mv)?;
        string_out(out, action.to_notation(board));
        Ok(())
    })
}

/// The id of a move in the rule set's fixed action space (`0..action_space`).
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (a point index not on the board);
/// `INVALID_NOTATION` (no move could ever join the two points, so it has no id).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `id_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_id(
    rules: *const junqi_rules,
    mv: junqi_move,
    id_out: *mut u32,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(id_out, "id_out") }?;
        let board = rules.inner.board();
        let action = action_arg(board, mv)?;
        out.write(action_id(&rules.inner, action)?);
        Ok(())
    })
}

/// The move with a given id in the rule set's action space.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` (id not below the action space size,
/// or the action there is not a move — see `junqi_action_print`).
/// Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `move_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_from_id(
    rules: *const junqi_rules,
    id: u32,
    move_out: *mut junqi_move,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(move_out, "move_out") }?;
        let action = Action::from_id(&rules.inner, id as usize)?;
        let mv = move_of(action).ok_or_else(|| Error::out_of_range(format!("action {id} is not a move")))?;
        out.write(mv);
        Ok(())
    })
}

/// Deprecated: `junqi_move_id` (the name of development versions, kept for one
/// release).
///
/// # Safety
/// As `junqi_move_id`.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_index(
    rules: *const junqi_rules,
    mv: junqi_move,
    index_out: *mut u32,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { junqi_move_id(rules, mv, index_out) }
}

/// Deprecated: `junqi_move_from_id` (the name of development versions, kept for one
/// release).
///
/// # Safety
/// As `junqi_move_from_id`.
#[no_mangle]
pub unsafe extern "C" fn junqi_move_from_index(
    rules: *const junqi_rules,
    index: u32,
    move_out: *mut junqi_move,
) -> junqi_status {
    // SAFETY: forwarded caller contract.
    unsafe { junqi_move_from_id(rules, index, move_out) }
}

/// The id of `action` in the rule set's action space, or the core's "not a move on
/// this board" error.
fn action_id(rules: &junqi_core::RuleSet, action: Action) -> Result<u32> {
    action
        .id(rules)
        .map(|i| i as u32)
        .ok_or_else(|| junqi_core::NotationError::NotInActionSpace(action.to_notation(rules.board())).into())
}
