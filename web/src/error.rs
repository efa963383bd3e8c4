//! Errors on the wire: `{"error": {"code": "snake_case", "message": "words"}}` with a 4xx
//! status. A refused request changes nothing. The core's refusals keep the core's kind
//! (`junqi::ErrorKind`) as their code, with the status of [`http_status`]; the codes of
//! the server's own refusals (`unknown_game`, `bad_token`, `too_large`, …) are below.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use junqi::ErrorKind;
use serde_json::json;

/// An error answered to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status (4xx; 5xx for the server's own failures).
    pub status: StatusCode,
    /// The machine-readable code, e.g. `illegal_action`.
    pub code: &'static str,
    /// The reason in words (never anything the caller may not know).
    pub message: String,
}

impl ApiError {
    /// An error with a status, a code and a message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    /// A refusal of one of the core's kinds (`junqi::ErrorKind`): the HTTP status of
    /// [`http_status`], the kind's name as the code.
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> ApiError {
        ApiError::new(http_status(kind), kind.name(), message)
    }

    /// A request body that is not the JSON the endpoint reads (`invalid_json`).
    pub fn bad_json(message: impl Into<String>) -> ApiError {
        ApiError::of_kind(ErrorKind::InvalidJson, message)
    }

    /// No game with this id.
    pub fn unknown_game(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_game",
            format!("no game {id:?}"),
        )
    }

    /// A game that is in the database but could not be loaded at start. The reason is
    /// in the server's log, not in the answer (it may name hidden pieces).
    pub fn game_unavailable(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "game_unavailable",
            format!(
                "game {id:?} is stored but could not be loaded; it is kept unchanged and the server log says why"
            ),
        )
    }

    /// A token that is no seat's of this game, or no token where a seat must act.
    pub fn bad_token(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "bad_token", message)
    }

    /// A request body, or a part of it, over its size limit.
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", message)
    }

    /// A server-side failure (the database); the game is unchanged.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
}

/// The HTTP status of each kind of refusal (docs/errors.md): the web's one table of
/// them. The code of the answer is the kind's name.
pub const fn http_status(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::InvalidJson => StatusCode::BAD_REQUEST,
        ErrorKind::NotYourTurn
        | ErrorKind::WrongPhase
        | ErrorKind::GameOver
        | ErrorKind::SideNotInGame => StatusCode::CONFLICT,
        ErrorKind::OutOfMemory => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::UnknownName
        | ErrorKind::OutOfRange
        | ErrorKind::InvalidRules
        | ErrorKind::InvalidSetup
        | ErrorKind::InvalidNotation
        | ErrorKind::InvalidPosition
        | ErrorKind::InvalidRecord
        | ErrorKind::IllegalAction
        | ErrorKind::WrongGame
        | ErrorKind::InvalidResult
        | ErrorKind::BufferTooSmall => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

/// Any error of the core, by its kind, with the core's message.
impl<E: junqi::Error> From<E> for ApiError {
    fn from(e: E) -> ApiError {
        ApiError::of_kind(e.kind(), e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, axum::Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HTTP column of docs/errors.md: each kind of the core is answered with the
    /// status the page gives and its own name as the code.
    #[test]
    fn each_error_kind_has_its_documented_answer() {
        let page = include_str!("../../docs/errors.md");
        let rows: Vec<(String, u16)> = page
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                (
                    cells[1].trim_matches('`').to_owned(),
                    cells[5].parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(rows.len(), ErrorKind::COUNT);
        for (kind, (name, status)) in ErrorKind::ALL.into_iter().zip(&rows) {
            let e = ApiError::of_kind(kind, "x");
            assert_eq!(
                (e.code, e.status.as_u16()),
                (name.as_str(), *status),
                "{kind}"
            );
        }
    }
}
