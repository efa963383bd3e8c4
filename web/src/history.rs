//! A player's finished games: `GET /api/players/me/games`, the list the page shows
//! under "Your finished games" to open a game again (as a replay, from the player's
//! seat).
//!
//! The stores note, whenever a game's seats change, which player took which seat
//! (`seat_players`, from the seats' public player ids); the list is the finished games
//! among them, the most recent first. Each comes with the player's own seat link
//! (`/play/ID?token=…`): the seat token is a secret of the seat's holder, and the
//! player's token proves the player holds it — the seat names the same player id.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::{json, Value};

use junqi::referee::narrate::{Language, Narrator};
use junqi::{Event, GameResult, Side};

use crate::app::App;
use crate::error::ApiError;
use crate::players::{bearer, player_of};
use crate::seat::Seat;
use crate::store::FinishedRow;

/// Games listed when the request names no `limit`.
pub const DEFAULT_GAMES: u32 = 20;
/// The most games one request lists.
pub const MAX_GAMES: u32 = 100;

/// `GET /api/players/me/games?limit=N` with the player's token (`Authorization: Bearer
/// ID.SECRET`): the player's finished games, the most recent first (at most `limit`,
/// default [`DEFAULT_GAMES`], 1 to [`MAX_GAMES`]).
///
/// Each game: `id`, `rules` (the rule set's name), `seat`, `outcome` (`win`, `loss` or
/// `draw` for that seat), `reason` (the end reason's machine name), `text` (the result
/// in words from that seat, in the language of `?lang=`: the core's narrator), `ply`,
/// `ended_ms`, `players` (the public seats: who played) and `url`, the seat's link.
pub async fn finished(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?
        .ok_or_else(|| ApiError::bad_token("this request needs a player's token"))?;
    let limit = match q.get("limit") {
        None => DEFAULT_GAMES,
        Some(v) => match v.parse::<u32>() {
            Ok(n) if (1..=MAX_GAMES).contains(&n) => n,
            _ => {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_limit",
                    format!("limit must be a whole number from 1 to {MAX_GAMES}, not {v:?}"),
                ))
            }
        },
    };
    let p = player_of(&app, &token).await?;
    let rows = app
        .store
        .finished_games(&p.id, limit)
        .await
        .map_err(|e| ApiError::internal(format!("the games could not be read: {e}")))?;
    let lang = q
        .get("lang")
        .map_or(Language::default(), |t| Language::from_tag(t));
    let games: Vec<Value> = rows
        .iter()
        .filter_map(|r| game_json(r, &p.id, lang))
        .collect();
    Ok(Json(json!({ "games": games })))
}

/// One finished game as the list shows it, or `None` if the row's seat is not the
/// player's (a row that cannot be read is left out: the game page says what is wrong
/// with it).
pub fn game_json(r: &FinishedRow, player: &str, lang: Language) -> Option<Value> {
    let seats: HashMap<String, Seat> = serde_json::from_str(&r.seats).ok()?;
    let seat = seats.get(&r.seat)?;
    if seat.player.as_ref()?.id != player {
        return None;
    }
    let token = seat.token.as_deref()?;
    let side: Side = r.seat.parse().ok()?;
    let result: GameResult = serde_json::from_str(r.result.as_deref()?).ok()?;
    // Won, lost or drawn as the core scores the seat (its reward: a team's win counts
    // for every seat of the team).
    let outcome = match result.reward(side) {
        x if x > 0.0 => "win",
        x if x < 0.0 => "loss",
        _ => "draw",
    };
    let players: Value = serde_json::from_str(&r.seats_public).unwrap_or(Value::Null);
    // The result in words from the seat (the narrator needs the rule set: its teams).
    let text = crate::table::load_rules(&serde_json::from_str(&r.rules).ok()?)
        .ok()
        .map(|rules| {
            Narrator::new(rules, Some(side), None)
                .in_language(lang)
                .tell(&Event::GameOver { result })
        });
    Some(json!({
        "id": r.id,
        "rules": r.rules_name,
        "seat": r.seat,
        "outcome": outcome,
        "reason": result.reason.name(),
        "text": text,
        "ply": r.ply,
        "ended_ms": r.updated_ms,
        "players": players,
        "url": format!("/play/{}?token={token}", r.id),
    }))
}
