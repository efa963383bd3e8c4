//! What a request carries, read once for every handler: the token (a Bearer header or
//! `?token=`), who asks with it (a seat or a spectator), the JSON body, what a state
//! request asks for, and the state sent back. Below the handlers of [`crate::api`] and
//! [`crate::lobby`], which both read requests so.

use std::collections::HashMap;

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Json;
use junqi::Side;

use crate::app::GameHandle;
use crate::error::ApiError;
use crate::state::{Ask, Viewer};
use crate::table::Table;

/// The token of a request: `Authorization: Bearer TOKEN` (the scheme in any case), else
/// `?token=TOKEN`; `None` when the request presents neither (a spectator). A presented
/// credential that cannot be a token — another scheme, a malformed or non-ASCII
/// header, an empty `?token=` — is refused (`bad_token`), never read as a spectator.
pub(crate) fn token(
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<Option<String>, ApiError> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    if let Some(value) = values.next() {
        if values.next().is_some() {
            return Err(ApiError::bad_token("more than one Authorization header"));
        }
        return crate::seat::bearer_token(value.as_bytes())
            .map(|t| Some(t.to_owned()))
            .map_err(ApiError::bad_token);
    }
    match q.get("token") {
        Some(t) if t.is_empty() => Err(ApiError::bad_token("the token parameter is empty")),
        t => Ok(t.cloned()),
    }
}

/// Who asks: a seat (its token) or a spectator (no token). A token that is no seat's
/// of this game is refused.
pub(crate) fn viewer(table: &Table, token: Option<&str>) -> Result<Viewer, ApiError> {
    match token {
        None => Ok(Viewer::Spectator),
        Some(t) => table
            .seat_of(t)
            .map(Viewer::Seat)
            .ok_or_else(|| ApiError::bad_token("this token is not a seat's token of this game")),
    }
}

/// The seat a request acts for: it must carry a seat's token.
pub(crate) fn seat(table: &Table, token: Option<&str>) -> Result<Side, ApiError> {
    match viewer(table, token)? {
        Viewer::Seat(s) => Ok(s),
        Viewer::Spectator => Err(ApiError::bad_token("this request needs a seat token")),
    }
}

/// The JSON body a handler reads, or `bad_json` saying what is wrong with it.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_json(format!("invalid request body: {e}")))
}

/// What a state request asks for: the picture only with `?svg=1` (drawing it is most
/// of a request's cost, and a client that draws the board itself never needs it), the
/// events from `?events_from=N` on.
pub(crate) fn ask(q: &HashMap<String, String>) -> Ask {
    Ask {
        svg: matches!(q.get("svg").map(String::as_str), Some("1" | "true" | "yes")),
        events_from: q
            .get("events_from")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
        beliefs: matches!(q.get("beliefs").map(String::as_str), Some("1" | "true" | "yes")),
        lang: q.get("lang").map_or(Default::default(), |t| {
            junqi::referee::narrate::Language::from_tag(t)
        }),
    }
}

/// Whether `viewer` may have the learner's view (`?beliefs=1`) of this game: a seat's
/// own deductions, so none for a spectator (`bad_token`), and off while a rated game is
/// played (`learner_view_off`: an aid the opponent may not be using).
pub(crate) fn learner_view(table: &Table, viewer: Viewer) -> Result<(), ApiError> {
    if viewer == Viewer::Spectator {
        return Err(ApiError::bad_token(
            "the learner's view (beliefs=1) needs a seat token",
        ));
    }
    if table.settings.rated && !table.over() {
        return Err(ApiError::new(
            axum::http::StatusCode::FORBIDDEN,
            "learner_view_off",
            "the learner's view (beliefs=1) is off in rated games until they end",
        ));
    }
    Ok(())
}

/// The state `viewer` sees, as a response. The learner's view is left out where it is
/// not allowed ([`learner_view`]: the state request refuses it there, an action's
/// answer just goes without it).
pub(crate) fn reply(
    handle: &GameHandle,
    table: &Table,
    viewer: Viewer,
    q: &HashMap<String, String>,
) -> Response {
    let mut asked = ask(q);
    asked.beliefs &= learner_view(table, viewer).is_ok();
    Json(crate::state::state(table, viewer, &handle.connected(), asked)).into_response()
}
