//! One error taxonomy for every layer: each refusal of the engine has one
//! [`ErrorKind`], decided here.
//!
//! Every error type of the crate implements [`Error`], whose [`Error::kind`] says what
//! sort of refusal it is: the kinds of the lower layers' errors are decided below, those
//! of the agents', inference's, the vector environment's, the platform's and the
//! pictures' errors beside their types (which come after this module). The C library, the Python package, the web referee and the
//! WebAssembly package only translate a kind — to a `junqi_status`, an exception class,
//! an HTTP status and code — each in one table; none of them classifies errors itself.
//! docs/errors.md lists every kind with its C status, Python exception and HTTP answer,
//! and each layer's tests check its table against that page.
//!
//! ```
//! use junqi::{Error as _, ErrorKind, Game};
//! let mut game = Game::new("classic", 1)?;
//! let refused = game.play_notation("a2-a6").unwrap_err();
//! assert_eq!(refused.kind(), ErrorKind::WrongPhase); // nobody has deployed yet
//! assert_eq!(refused.kind().name(), "wrong_phase");
//! # Ok::<(), junqi::GameError>(())
//! ```

use crate::names::named_enum;

named_enum! {
    /// What sort of refusal an error is: the one classification every layer translates.
    ///
    /// The message of an error says what exactly was wrong; its kind says what sort of
    /// thing was wrong, for programs to branch on. A refused call changes nothing.
    #[derive(PartialOrd, Ord)]
    pub enum ErrorKind {
        /// A name the engine does not know: a rule-set preset or board, a side, a piece
        /// kind, a point, an agent or one of its options.
        UnknownName = "unknown_name",
        /// A number outside its range: an action index outside the action space, a
        /// search level, budget or thread count, a number of games, an array length
        /// that does not match.
        OutOfRange = "out_of_range",
        /// JSON text that is not well-formed, or not of the shape asked for, where no
        /// more specific kind applies (picture options, for example).
        InvalidJson = "invalid_json",
        /// A rule set (or its board) that cannot be loaded.
        InvalidRules = "invalid_rules",
        /// A setup that is not a legal deployment.
        InvalidSetup = "invalid_setup",
        /// Text that is not an action of the board (`"a2-a6"`, `"flip c3"`).
        InvalidNotation = "invalid_notation",
        /// Text that is not a position string.
        InvalidPosition = "invalid_position",
        /// A record that cannot be read or does not replay.
        InvalidRecord = "invalid_record",
        /// An action the rules do not allow in this position.
        IllegalAction = "illegal_action",
        /// A side acted when another side is to act.
        NotYourTurn = "not_your_turn",
        /// The call does not fit the game's phase: a move before every side deployed, a
        /// deployment after the deployment phase, by a side that already deployed, or
        /// in a rule set that deals face down; a score of a game that is not over.
        WrongPhase = "wrong_phase",
        /// The game has ended.
        GameOver = "game_over",
        /// The side does not play in this rule set, or is already out of the game.
        SideNotInGame = "side_not_in_game",
        /// Something of another game used with this one: beliefs about another game or
        /// moment, observations asked of games on different boards.
        WrongGame = "wrong_game",
        /// A result that cannot be scored: seats missing or repeated, or winners no game
        /// of the rule set can have.
        InvalidResult = "invalid_result",
        /// An output buffer of the wrong length.
        BufferTooSmall = "buffer_too_small",
        /// Not enough memory for what was asked (a vector environment of many games).
        OutOfMemory = "out_of_memory",
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Anything a [`crate::Game`] method can refuse.
///
/// Its `Debug` form is its message (as for every error type of the crate), so that
/// `fn main() -> Result<(), GameError>`, `?` into `Box<dyn Error>` and `unwrap` print
/// the reason in words rather than the variants (match on the variants to tell the
/// errors apart).
///
/// ```
/// let mut game = junqi::Game::new("classic", 1).unwrap();
/// let err = game.play_notation("a2-a6").unwrap_err();
/// assert_eq!(format!("{err:?}"), err.to_string());
/// assert!(err.to_string().starts_with("the game is in the deployment phase"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The rule set could not be loaded.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// A setup is not a legal deployment.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Text that is not an action.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// An action the rules do not allow now.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// A record that cannot be read or does not replay.
    #[error("invalid record: {0}")]
    Record(String),
}

/// An error of the engine: a message in words (its `Display`) and an [`ErrorKind`].
///
/// Implemented by every error type of the crate; the layers around the core convert
/// any `E: junqi::Error` through its kind.
pub trait Error: std::error::Error {
    /// What sort of refusal this is.
    fn kind(&self) -> ErrorKind;
}

/// Implements [`Error`] for a type from a `match` of its variants to kinds.
macro_rules! kinds {
    ($($t:ty => |$e:ident| $body:expr;)*) => {$(
        impl Error for $t {
            fn kind(&self) -> ErrorKind {
                let $e = self;
                $body
            }
        }
    )*};
}

use crate::board::BoardError;
use crate::position::{PlayError, PositionStringError};
use crate::rules::RulesError;
use crate::setup::SetupError;
use crate::{NotationError, UnknownKind, UnknownSide};

kinds! {
    GameError => |e| match e {
        GameError::Rules(e) => e.kind(),
        GameError::Setup(e) => e.kind(),
        GameError::Notation(e) => e.kind(),
        GameError::Play(e) => e.kind(),
        GameError::Record(_) => ErrorKind::InvalidRecord,
    };
    PlayError => |e| match e {
        PlayError::GameOver => ErrorKind::GameOver,
        PlayError::NotMovePhase
        | PlayError::NotDeployPhase
        | PlayError::Dealt
        | PlayError::AlreadyDeployed(_) => ErrorKind::WrongPhase,
        PlayError::NotPlaying(_) => ErrorKind::SideNotInGame,
        PlayError::NotYourTurn { .. } => ErrorKind::NotYourTurn,
        PlayError::NoPiece(_)
        | PlayError::NotYourPiece(_)
        | PlayError::Immobile { .. }
        | PlayError::InHeadquarters(_)
        | PlayError::OwnPiece(_)
        | PlayError::AllyPiece(_)
        | PlayError::FaceDown(_)
        | PlayError::FaceUp(_)
        | PlayError::TargetFaceDown(_)
        | PlayError::ProtectedByHq(_)
        | PlayError::FlagGuardedByMines(_)
        | PlayError::ProtectedByCamp(_)
        | PlayError::ReactionPending(_)
        | PlayError::MustMoveAway(_)
        | PlayError::ForbiddenAttack { .. }
        | PlayError::TooEarlyToResign { .. }
        | PlayError::AttacksOnlyByAbility { .. }
        | PlayError::Unreachable { .. } => ErrorKind::IllegalAction,
    };
    NotationError => |e| match e {
        NotationError::Malformed(_) | NotationError::NotInActionSpace(_) => ErrorKind::InvalidNotation,
        NotationError::UnknownPoint(_) => ErrorKind::UnknownName,
        NotationError::IdOutOfRange { .. } => ErrorKind::OutOfRange,
    };
    SetupError => |e| match e {
        SetupError::UnknownPoint(_) | SetupError::UnknownKind(_) => ErrorKind::UnknownName,
        SetupError::NoSuchSide { .. } => ErrorKind::SideNotInGame,
        _ => ErrorKind::InvalidSetup,
    };
    RulesError => |e| match e {
        RulesError::UnknownPreset(_) | RulesError::UnknownBoard(_) => ErrorKind::UnknownName,
        _ => ErrorKind::InvalidRules,
    };
    BoardError => |_e| ErrorKind::InvalidRules;
    PositionStringError => |_e| ErrorKind::InvalidPosition;
    UnknownKind => |_e| ErrorKind::UnknownName;
    UnknownSide => |_e| ErrorKind::UnknownName;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_snake_case() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_exact_name(kind.name()), Some(kind));
            assert!(kind.name().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(serde_json::from_str::<ErrorKind>(&json).unwrap(), kind);
        }
        let refused = serde_json::from_str::<ErrorKind>("\"nope\"").unwrap_err().to_string();
        assert!(refused.contains("unknown variant `nope`"), "{refused}");
    }
}
