//! What a player deduces (beliefs), sampled games (determinization) and observation
//! tensors.

use std::ffi::{c_char, c_int};

use junqi_core::{Observer, OpponentModel, PieceKind};
use serde_json::json;

use crate::boundary::guard;
use crate::game::{game_ref, give_game, junqi_game, playing_side};
use crate::ptr::{handle_ref, str_arg, Out, OutSlice};
use crate::rules::{junqi_rules, string_out};
use crate::status::junqi_status;

/// One player's beliefs as JSON: for every piece on the board, its point, owner
/// (`null` while face down in `fanqi`), whether the player was shown it (`known`),
/// whether it has moved, and its candidate kinds (ids; one for a piece the player
/// knows); `off_board`: the pieces that left the board, each a list of candidate
/// `[army, kind]` pairs; `consistent`: whether a full assignment of kinds exists.
/// Derived only from what that player was told.
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
pub unsafe extern "C" fn junqi_game_beliefs_json(
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
        let b = game.beliefs(side);
        let board = game.board();
        let pieces: Vec<_> = board
            .points()
            .filter(|p| b.occupied().contains(*p))
            .map(|p| {
                json!({
                    "point": board.name_of(p),
                    "owner": b.owner(p),
                    "known": b.is_known(p),
                    "moved": b.has_moved(p),
                    "candidates": b.candidates(p).iter().map(|k| k.id()).collect::<Vec<_>>(),
                })
            })
            .collect();
        string_out(
            out,
            json!({
                "player": side,
                "consistent": b.is_consistent(),
                "pieces": pieces,
                "off_board": b.off_board(),
            })
            .to_string(),
        );
        Ok(())
    })
}

/// One player's candidates as a mask: `buf[point * JUNQI_PIECE_KIND_COUNT + kind]` is
/// 1 if the piece on that point (index in the board's point order) may be that kind
/// (a `junqi_piece_kind` value), else 0; all 0 for an empty point.
///
/// - `buf`, `len`: at least `points × JUNQI_PIECE_KIND_COUNT` bytes (points from
///   `junqi_rules_point_count`); `buf` may be NULL when `len` is 0.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`;
/// `BUFFER_TOO_SMALL` (nothing written); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `buf` is NULL or has `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_beliefs_mask(
    game: *const junqi_game,
    side: c_int,
    buf: *mut u8,
    len: usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or `len` writable elements.
        let buf = unsafe { OutSlice::new(buf, len, "buf") }?;
        let side = playing_side(&game, side)?;
        let b = game.beliefs(side);
        let mut mask = vec![false; game.board().len() * PieceKind::COUNT];
        b.mask_into(&mut mask);
        let bytes: Vec<u8> = mask.into_iter().map(u8::from).collect();
        buf.fill(&bytes)
    })
}

/// One player's modelled beliefs: the probability of every kind for the piece on every
/// point, weighed by how each piece has played under an opponent model and kept
/// consistent with the armies' composition (docs/inference.md, "Modelled beliefs"):
/// `buf[point * JUNQI_PIECE_KIND_COUNT + kind]`, each occupied point's row summing to
/// 1, all 0 for an empty point; a piece the player knows has 1 on its kind. Derived
/// only from what that player was told.
///
/// - `model`: `"shipped"` or NULL for the model the engine ships for the rule set
///   (the plain model where it ships none), `"plain"` for the plain beliefs (every
///   consistent army alike), or a model's JSON as `junqi model fit` writes it.
/// - `buf`, `len`: at least `points × JUNQI_PIECE_KIND_COUNT` doubles; `buf` may be
///   NULL when `len` is 0.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `UNKNOWN_NAME`
/// (no such model, or a model counting kinds or points the rule set does not have);
/// `INVALID_JSON` (a malformed model); `INVALID_UTF8`; `BUFFER_TOO_SMALL` (nothing
/// written); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `model` is NULL or a NUL-terminated string;
/// `buf` is NULL or has `len` writable doubles.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_probabilities(
    game: *const junqi_game,
    side: c_int,
    model: *const c_char,
    buf: *mut f64,
    len: usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or a NUL-terminated string.
        let model = unsafe { model_arg(game.rules(), model) }?;
        // SAFETY: forwarded caller contract: NULL or `len` writable elements.
        let buf = unsafe { OutSlice::new(buf, len, "buf") }?;
        let side = playing_side(&game, side)?;
        let mut v = vec![0.0f64; game.board().len() * PieceKind::COUNT];
        game.beliefs(side).probabilities(&model).kinds_into(&mut v);
        buf.fill(&v)
    })
}

/// One player's observation tensor (float32, `[channels, points]` row-major, from the
/// player's seat; see `junqi_rules_observation_spec_json` and docs/inference.md),
/// written into the caller's buffer.
///
/// - `buf`, `len`: at least `junqi_rules_observation_size` floats; `buf` may be NULL
///   when `len` is 0.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`;
/// `BUFFER_TOO_SMALL` (nothing written); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `buf` is NULL or has `len` writable floats.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_observation(
    game: *const junqi_game,
    side: c_int,
    buf: *mut f32,
    len: usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or `len` writable elements.
        let buf = unsafe { OutSlice::new(buf, len, "buf") }?;
        let side = playing_side(&game, side)?;
        encode(&game, side, Observer::new(game.rules().clone(), side), buf)
    })
}

/// One player's observation tensor with the `modelled:<kind>` planes after the others
/// (`junqi_rules_modelled_observation_spec_json`): each other piece's probability of
/// every kind under an opponent model, as `junqi_game_probabilities` gives it; the
/// other channels are those of `junqi_game_observation`.
///
/// - `model`: `"shipped"` or NULL for the model the engine ships for the rule set
///   (the plain model where it ships none), `"plain"`, or a model's JSON as
///   `junqi model fit` writes it.
/// - `buf`, `len`: at least `junqi_rules_modelled_observation_size` floats; `buf` may
///   be NULL when `len` is 0.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `UNKNOWN_NAME`
/// or `INVALID_JSON` (no such model, as for `junqi_game_probabilities`);
/// `INVALID_UTF8`; `BUFFER_TOO_SMALL` (nothing written); `POISONED`. Thread safety:
/// see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `model` is NULL or a NUL-terminated string;
/// `buf` is NULL or has `len` writable floats.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_observation_modelled(
    game: *const junqi_game,
    side: c_int,
    model: *const c_char,
    buf: *mut f32,
    len: usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or a NUL-terminated string.
        let model = unsafe { model_arg(game.rules(), model) }?;
        // SAFETY: forwarded caller contract: NULL or `len` writable elements.
        let buf = unsafe { OutSlice::new(buf, len, "buf") }?;
        let side = playing_side(&game, side)?;
        encode(&game, side, Observer::new(game.rules().clone(), side).with_model(model), buf)
    })
}

/// Writes `side`'s observation of `game` by `observer` (made for that side; its beliefs, the game's turn) into
/// `buf`, whole or not at all.
fn encode(game: &junqi_core::Game, side: junqi_core::Side, observer: Observer, buf: OutSlice<f32>) -> crate::status::Result<()> {
    let mut v = vec![0.0f32; observer.len()];
    observer.encode(&game.beliefs(side), game.turn(), &mut v);
    buf.fill(&v)
}

/// An observation layout as the C API gives it: `{"channels": […], "shape": [c, p]}`.
fn spec_json(spec: &junqi_core::ObservationSpec) -> String {
    json!({"channels": spec.channels, "shape": spec.shape()}).to_string()
}

/// The opponent model a caller names: NULL or `"shipped"`, `"plain"`, or JSON.
///
/// # Safety
/// `model` is NULL or a NUL-terminated string.
pub(crate) unsafe fn model_arg(rules: &junqi_core::RuleSet, model: *const c_char) -> crate::status::Result<OpponentModel> {
    let spec = if model.is_null() {
        "shipped"
    } else {
        // SAFETY: forwarded caller contract: a NUL-terminated string.
        unsafe { str_arg(model, "model") }?
    };
    Ok(OpponentModel::load(rules, spec)?)
}

/// A game drawn from what `side` knows (determinization for search): every piece that
/// player cannot see gets an identity drawn from its beliefs, the same for the same
/// `seed`; the board, the player's own pieces, the turn and the counters are kept. The
/// sampled game's record need not replay.
///
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_determinize(
    game: *const junqi_game,
    side: c_int,
    seed: u64,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        let side = playing_side(&game, side)?;
        give_game(out, game.determinize(side, seed));
        Ok(())
    })
}

/// The layout of a rule set's observation tensor as JSON:
/// `{"channels": ["own:flag", …], "shape": [channels, points]}`.
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_observation_spec_json(
    rules: *const junqi_rules,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        string_out(out, spec_json(&rules.inner.observation_spec()));
        Ok(())
    })
}

/// The layout of a rule set's observation tensor with the `modelled:<kind>` planes
/// (`junqi_game_observation_modelled`) as JSON, in the form of
/// `junqi_rules_observation_spec_json`: its channels, then `"modelled:flag"`, … one per
/// army kind.
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_modelled_observation_spec_json(
    rules: *const junqi_rules,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        string_out(out, spec_json(&rules.inner.modelled_observation_spec()));
        Ok(())
    })
}

/// Floats in one observation with the `modelled:<kind>` planes
/// (`junqi_game_observation_modelled`, a vector environment with a model).
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `len_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_modelled_observation_size(
    rules: *const junqi_rules,
    len_out: *mut usize,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(len_out, "len_out") }?;
        out.write(rules.inner.modelled_observation_spec().len());
        Ok(())
    })
}

/// Floats in one observation of a rule set (`channels × points`).
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `len_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_rules_observation_size(rules: *const junqi_rules, len_out: *mut usize) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(len_out, "len_out") }?;
        out.write(rules.inner.observation_spec().len());
        Ok(())
    })
}
