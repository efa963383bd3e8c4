//! Pictures (`junqi_view_svg`, `junqi_board_svg`): SVG drawings of a player's view and
//! of a board, from the core renderer.

use std::ffi::{c_char, c_int};

use junqi_core::render::SvgOptions;

use crate::boundary::guard;
use crate::game::{game_ref, junqi_game, playing_side};
use crate::ptr::{handle_ref, str_arg, Out};
use crate::rules::{junqi_rules, string_out};
use crate::status::{junqi_status, Result};
use crate::types::side_arg;

/// Options from a C string: NULL for the defaults, else JSON such as
/// `{"legend": false}`.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn options_arg(p: *const c_char) -> Result<SvgOptions> {
    if p.is_null() {
        return Ok(SvgOptions::default());
    }
    // SAFETY: forwarded caller contract: a NUL-terminated string.
    let text = unsafe { str_arg(p, "options_json") }?;
    Ok(SvgOptions::from_json(text)?)
}

/// One player's view as an SVG picture, drawn from that player's seat (its army at the
/// bottom; in `siguo` turned so that the player sits south), with the coordinates of
/// the notation along the edges, Chinese piece names, the last move and combat
/// highlighted. It shows exactly what `junqi_game_view_json` holds for that player.
///
/// - `side`: the player, a `junqi_side` value.
/// - `options_json`: NULL for the defaults, or a JSON object with any of `"legend"`,
///   `"coordinates"`, `"caption"`, `"highlight"` (booleans, default true) and
///   `"scale"` (a positive number, default 1), e.g. `{"legend": false}`.
/// - `svg_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `INVALID_JSON`
/// (options that are not JSON, or with an unknown field or a bad scale); `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `options_json` is NULL or a NUL-terminated
/// string; `svg_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_view_svg(
    game: *const junqi_game,
    side: c_int,
    options_json: *const c_char,
    svg_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(svg_out, "svg_out") }?;
        let side = playing_side(&game, side)?;
        // SAFETY: forwarded caller contract: NULL or a NUL-terminated string.
        let options = unsafe { options_arg(options_json) }?;
        string_out(out, game.view(side).to_svg(game.rules(), &options));
        Ok(())
    })
}

/// The empty board of a rule set as an SVG picture, as the seat `side` sees it (any
/// `junqi_side`; `JUNQI_SIDE_SOUTH` draws the board as printed).
///
/// - `options_json`: NULL or JSON options, as for `junqi_view_svg`.
/// - `svg_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `INVALID_JSON`. Thread safety: any
/// thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `options_json` is NULL or a NUL-terminated
/// string; `svg_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_board_svg(
    rules: *const junqi_rules,
    side: c_int,
    options_json: *const c_char,
    svg_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(svg_out, "svg_out") }?;
        let side = side_arg(side)?;
        // SAFETY: forwarded caller contract: NULL or a NUL-terminated string.
        let options = unsafe { options_arg(options_json) }?;
        string_out(out, rules.inner.board().to_svg(side, &options));
        Ok(())
    })
}
