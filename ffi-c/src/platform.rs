//! The platform layer (`junqi::platform`): levels and the ledger that scores a
//! finished game, as the QQ platform does (docs/sources.md#qq-rules), with our Elo rating
//! next to the points. JSON in, JSON out.

use std::ffi::c_char;

use junqi_core::platform::{level_for, Platform, Seat};
use junqi_core::GameResult;

use crate::boundary::guard;
use crate::game::{game_ref, junqi_game};
use crate::ptr::{handle_ref, str_arg, Out};
use crate::rules::{junqi_rules, string_out};
use crate::status::{junqi_status, Error, Result};

fn bad_json(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(junqi_status::InvalidJson, format!("{what}: {e}"))
}

const SEATS: &str = "seats (a list of {\"side\", \"points\", \"rating\"?})";

fn seats_arg(value: serde_json::Value) -> Result<Vec<Seat>> {
    serde_json::from_value(value).map_err(|e| bad_json(SEATS, e))
}

fn scores_json(scores: &[junqi_core::platform::SeatScore]) -> String {
    serde_json::to_string(scores).unwrap_or_else(|_| "[]".into())
}

/// The platform level held with `points` (docs/sources.md#qq-levels: 小兵 from 0 … 司令 from
/// 12 750; below 0 is 小兵), as JSON: `{"index": 4, "name": "排长", "english":
/// "platoon leader", "min_points": 50}`.
///
/// - `json_out`: receives a new string; free it with `junqi_string_free`.
///
/// Status: `OK`; `NULL_POINTER`. Thread safety: any thread.
///
/// # Safety
/// `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_platform_level_for(
    points: i64,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        string_out(
            out,
            serde_json::to_string(level_for(points)).unwrap_or_default(),
        );
        Ok(())
    })
}

/// Scores a finished game on the QQ platform (the ledger): each seat's change, new
/// points, level and rating. The rules are in docs/platform.md: a win is +1/−1 with two
/// players and +2/−2 per seat with four; the winners score 0 when the game ended
/// within 30 (two players) or 40 (four) plies; a winner above 50 points gains nothing
/// against an opponent below 50; draws and no-score escapes move nothing.
///
/// - `rules`: the game's rule set (for its sides and teams).
/// - `request_json`: `{"result": {"winners": ["south"], "reason": "flag_captured"},
///   "plies": 120, "seats": [{"side": "south", "points": 49, "rating": 1500}, …]}`
///   (`rating` may be left out: 1500). Every side of the rule set has one seat.
/// - `json_out`: receives a new string, a list in seat order of `{"side", "rule",
///   "points_before", "delta", "points", "level": {…}, "rating_before", "rating"}`;
///   free it with `junqi_string_free`. `rule` is `"win"`, `"quick_win"`,
///   `"protected"`, `"loss"`, `"draw"` or `"no_score"`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_JSON` (also: not of that
/// shape, or a result no game can have: every side a winner, or a side that won
/// without its allies); `SIDE_NOT_IN_GAME` (a seat for a side that does not play,
/// twice, or missing). Thread safety: any thread.
///
/// # Safety
/// `rules` is NULL or a live `junqi_rules`; `request_json` is NULL or a NUL-terminated
/// string; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_platform_score(
    rules: *const junqi_rules,
    request_json: *const c_char,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `rules`.
        let rules = unsafe { handle_ref(rules, "rules") }?;
        // SAFETY: forwarded caller contract for `request_json`.
        let text = unsafe { str_arg(request_json, "request_json") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        const WHAT: &str = "request_json ({\"result\", \"plies\", \"seats\"})";
        let mut req: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| bad_json(WHAT, e))?;
        if let Some(k) = req
            .keys()
            .find(|k| !["result", "plies", "seats"].contains(&k.as_str()))
        {
            return Err(bad_json(WHAT, format!("unknown key {k:?}")));
        }
        let mut take = |k: &str| {
            req.remove(k)
                .ok_or_else(|| bad_json(WHAT, format!("missing {k:?}")))
        };
        let result: GameResult =
            serde_json::from_value(take("result")?).map_err(|e| bad_json("result", e))?;
        let plies: u32 =
            serde_json::from_value(take("plies")?).map_err(|e| bad_json("plies", e))?;
        let seats = seats_arg(take("seats")?)?;
        let scores = Platform::QQ.apply(&rules.inner, &result, plies, &seats)?;
        string_out(out, scores_json(&scores));
        Ok(())
    })
}

/// Scores a finished game (see `junqi_platform_score`) from the game itself: its
/// result and its ply count.
///
/// - `seats_json`: `[{"side": "south", "points": 49, "rating": 1500}, …]`.
/// - `json_out`: as for `junqi_platform_score`.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `INVALID_JSON`; `SIDE_NOT_IN_GAME`;
/// `WRONG_PHASE` (the game is not over); `POISONED`. Thread safety: see `junqi_game`.
///
/// # Safety
/// `game` is NULL or a live `junqi_game`; `seats_json` is NULL or a NUL-terminated
/// string; `json_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_game_platform_score(
    game: *const junqi_game,
    seats_json: *const c_char,
    json_out: *mut *mut c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `game`.
        let game = unsafe { game_ref(game) }?;
        // SAFETY: forwarded caller contract for `seats_json`.
        let text = unsafe { str_arg(seats_json, "seats_json") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(json_out, "json_out") }?;
        let value = serde_json::from_str(text).map_err(|e| bad_json("seats_json", e))?;
        let seats = seats_arg(value)?;
        let scores = Platform::QQ.apply_game(&game, &seats)?;
        string_out(out, scores_json(&scores));
        Ok(())
    })
}
