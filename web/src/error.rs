//! Errors on the wire: `{"error": {"code": "snake_case", "message": "words"}}` with a 4xx
//! status. A refused request changes nothing.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use junqi::{GameError, PlayError};
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

    /// A request body that is not the JSON the endpoint reads.
    pub fn bad_json(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_json", message)
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

    /// The request does not fit the game's phase.
    pub fn wrong_phase(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "wrong_phase", message)
    }

    /// The game has ended.
    pub fn game_over() -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "game_over", "the game is over")
    }

    /// Another seat is to act.
    pub fn not_your_turn(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "not_your_turn", message)
    }

    /// A setup that is not a legal deployment.
    pub fn bad_setup(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_setup", message)
    }

    /// An action the rules do not allow now.
    pub fn illegal_action(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "illegal_action", message)
    }

    /// A rule set that cannot be loaded.
    pub fn bad_rules(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_rules", message)
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

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let message = e.to_string();
        match e {
            GameError::Rules(_) => ApiError::bad_rules(message),
            GameError::Setup(_) => ApiError::bad_setup(message),
            GameError::Notation(_) => ApiError::illegal_action(message),
            GameError::Play(p) => match p {
                PlayError::GameOver => ApiError::game_over(),
                PlayError::NotYourTurn { .. } => ApiError::not_your_turn(message),
                PlayError::NotMovePhase
                | PlayError::NotDeployPhase
                | PlayError::Dealt
                | PlayError::AlreadyDeployed(_) => ApiError::wrong_phase(message),
                _ => ApiError::illegal_action(message),
            },
            GameError::Record(_) => ApiError::bad_json(message),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, axum::Json(body)).into_response()
    }
}
