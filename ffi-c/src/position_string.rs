//! Position strings (docs/position-strings.md): a game's position, or one player's
//! view of it, as one line of text, and games that start from one.

use std::ffi::{c_char, c_int};

use junqi_core::Game;

use crate::boundary::guard;
use crate::game::{game_ref, give_game, junqi_game, playing_side};
use crate::ptr::{str_arg, Out};
use crate::rules::string_out;
use crate::status::junqi_status;

/// The game's current position as a position string: REFEREE knowledge, every
/// identity told (see docs/position-strings.md). Give a player
/// `junqi_game_view_string` instead.
///
/// - `text_out`: receives a new one-line string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `text_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_position_string(
    game: *const junqi_game,
    text_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(text_out, "text_out") }?;
        string_out(out, game.position_string());
        Ok(())
    })
}

/// What one player sees now, as a view string: every identity the player has not
/// seen is written as unknown (`??`, `?N`, `?A`), face-down owners as `?`. Safe to give
/// to that player.
///
/// - `side`: the player, a `junqi_side` value.
/// - `text_out`: receives a new one-line string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE`; `SIDE_NOT_IN_GAME`; `POISONED`.
/// Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `text_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_view_string(
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
        string_out(out, game.view_string(side));
        Ok(())
    })
}

/// A new game starting from a position string of a preset rule set (or a view string,
/// whose unknown pieces get stand-in identities). The game has no log before the
/// position: event logs start empty and the record starts with the string.
///
/// - `text`: NUL-terminated UTF-8 (borrowed for the call).
/// - `seed`: kept in the record.
/// - `game_out`: receives a new handle; free it with `junqi_game_free`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME` (no such preset);
/// `INVALID_POSITION` (not a position string; the message says why).
/// Thread safety: any thread.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string; `game_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_from_position_string(
    text: *const c_char,
    seed: u64,
    game_out: *mut *mut junqi_game,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `text`.
        let text = unsafe { str_arg(text, "text") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(game_out, "game_out") }?;
        give_game(out, Game::from_position_string(text, seed)?);
        Ok(())
    })
}
