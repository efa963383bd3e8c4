//! Status codes, the library's error type, and the thread-local last error message.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use junqi_core::{AgentError, GameError, NotationError, PlayError, RulesError, SetupError};

/// The result of every fallible function of the library.
///
/// `JUNQI_STATUS_OK` (0) means success; every other value is a failure whose text is
/// available from `junqi_last_error_message()` on the same thread. On failure no
/// out-parameter is written (except the length of `JUNQI_STATUS_BUFFER_TOO_SMALL`) and
/// the game is unchanged (except after `JUNQI_STATUS_PANIC`, see there).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument was not well-formed JSON text.
    InvalidJson = 3,
    /// A name the library does not know: a rule-set preset, a side, a piece kind or a
    /// point name.
    UnknownName = 4,
    /// A number outside its range: an enum value that is not one of its constants, a
    /// point index, or an action index outside the action space.
    OutOfRange = 5,
    /// A caller-supplied buffer is too small; the needed length was written to the
    /// length out-parameter.
    BufferTooSmall = 6,
    /// A rule set that is well-formed JSON but not a valid rule set.
    InvalidRules = 7,
    /// A setup that is well-formed JSON but not a legal deployment.
    InvalidSetup = 8,
    /// Text that is not move notation (`"a2-a6"`).
    InvalidNotation = 9,
    /// An action the rules do not allow in this position (the game is unchanged).
    IllegalAction = 10,
    /// A side acted when it was not its turn (the game is unchanged).
    NotYourTurn = 11,
    /// The action does not fit the game's phase: a move before every side deployed, a
    /// deployment after the deployment phase or for a side that already deployed, or
    /// any action after the game ended.
    WrongPhase = 12,
    /// The side does not play in this game's rule set, or is already out of the game.
    SideNotInGame = 13,
    /// A record that is well-formed JSON but does not replay.
    InvalidRecord = 14,
    /// The library panicked (a bug in the library). The panic was caught; the game
    /// handle the call was given is now poisoned (see `JUNQI_STATUS_POISONED`).
    Panic = 15,
    /// The game handle was poisoned by an earlier panic and refuses every call except
    /// `junqi_game_free`.
    Poisoned = 16,
    /// Text that is not a position string (see docs/position-strings.md).
    InvalidPosition = 17,
}

impl junqi_status {
    /// Every status, in value order.
    pub(crate) const ALL: [junqi_status; 18] = [
        junqi_status::Ok,
        junqi_status::NullPointer,
        junqi_status::InvalidUtf8,
        junqi_status::InvalidJson,
        junqi_status::UnknownName,
        junqi_status::OutOfRange,
        junqi_status::BufferTooSmall,
        junqi_status::InvalidRules,
        junqi_status::InvalidSetup,
        junqi_status::InvalidNotation,
        junqi_status::IllegalAction,
        junqi_status::NotYourTurn,
        junqi_status::WrongPhase,
        junqi_status::SideNotInGame,
        junqi_status::InvalidRecord,
        junqi_status::Panic,
        junqi_status::Poisoned,
        junqi_status::InvalidPosition,
    ];

    /// The C constant's name, NUL-terminated.
    pub(crate) const fn c_name(self) -> &'static str {
        match self {
            junqi_status::Ok => "JUNQI_STATUS_OK\0",
            junqi_status::NullPointer => "JUNQI_STATUS_NULL_POINTER\0",
            junqi_status::InvalidUtf8 => "JUNQI_STATUS_INVALID_UTF8\0",
            junqi_status::InvalidJson => "JUNQI_STATUS_INVALID_JSON\0",
            junqi_status::UnknownName => "JUNQI_STATUS_UNKNOWN_NAME\0",
            junqi_status::OutOfRange => "JUNQI_STATUS_OUT_OF_RANGE\0",
            junqi_status::BufferTooSmall => "JUNQI_STATUS_BUFFER_TOO_SMALL\0",
            junqi_status::InvalidRules => "JUNQI_STATUS_INVALID_RULES\0",
            junqi_status::InvalidSetup => "JUNQI_STATUS_INVALID_SETUP\0",
            junqi_status::InvalidNotation => "JUNQI_STATUS_INVALID_NOTATION\0",
            junqi_status::IllegalAction => "JUNQI_STATUS_ILLEGAL_ACTION\0",
            junqi_status::NotYourTurn => "JUNQI_STATUS_NOT_YOUR_TURN\0",
            junqi_status::WrongPhase => "JUNQI_STATUS_WRONG_PHASE\0",
            junqi_status::SideNotInGame => "JUNQI_STATUS_SIDE_NOT_IN_GAME\0",
            junqi_status::InvalidRecord => "JUNQI_STATUS_INVALID_RECORD\0",
            junqi_status::Panic => "JUNQI_STATUS_PANIC\0",
            junqi_status::Poisoned => "JUNQI_STATUS_POISONED\0",
            junqi_status::InvalidPosition => "JUNQI_STATUS_INVALID_POSITION\0",
        }
    }
}

/// A failure: the status returned to C and the message kept for
/// `junqi_last_error_message`.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: junqi_status,
    pub(crate) message: String,
}

/// The library's result type.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn new(status: junqi_status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn null(what: &str) -> Error {
        Error::new(junqi_status::NullPointer, format!("{what} is NULL"))
    }

    pub(crate) fn out_of_range(message: impl Into<String>) -> Error {
        Error::new(junqi_status::OutOfRange, message)
    }
}

impl From<RulesError> for Error {
    fn from(e: RulesError) -> Error {
        let status = match e {
            RulesError::UnknownPreset(_) => junqi_status::UnknownName,
            _ => junqi_status::InvalidRules,
        };
        Error::new(status, e.to_string())
    }
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Error {
        let status = match e {
            SetupError::UnknownPoint(_) | SetupError::UnknownKind(_) => junqi_status::UnknownName,
            SetupError::NoSuchSide { .. } => junqi_status::SideNotInGame,
            _ => junqi_status::InvalidSetup,
        };
        Error::new(status, e.to_string())
    }
}

impl From<NotationError> for Error {
    fn from(e: NotationError) -> Error {
        let status = match e {
            NotationError::Malformed(_) => junqi_status::InvalidNotation,
            NotationError::UnknownPoint(_) => junqi_status::UnknownName,
            NotationError::IndexOutOfRange { .. } => junqi_status::OutOfRange,
            _ => junqi_status::IllegalAction,
        };
        Error::new(status, e.to_string())
    }
}

impl From<PlayError> for Error {
    fn from(e: PlayError) -> Error {
        #[allow(unreachable_patterns)]
        let status = match e {
            PlayError::NotYourTurn { .. } => junqi_status::NotYourTurn,
            PlayError::NotPlaying(_) => junqi_status::SideNotInGame,
            PlayError::GameOver
            | PlayError::NotMovePhase
            | PlayError::NotDeployPhase
            | PlayError::AlreadyDeployed(_) => junqi_status::WrongPhase,
            // Everything else, including a pending reaction (only the submarine's step
            // is allowed) and a plane that must move away: not allowed now.
            _ => junqi_status::IllegalAction,
        };
        Error::new(status, e.to_string())
    }
}

impl From<AgentError> for Error {
    fn from(e: AgentError) -> Error {
        #[allow(unreachable_patterns)] // the core's error enums may grow
        let status = match e {
            AgentError::Unknown(_) => junqi_status::UnknownName,
            _ => junqi_status::OutOfRange,
        };
        Error::new(status, e.to_string())
    }
}

impl From<GameError> for Error {
    fn from(e: GameError) -> Error {
        #[allow(unreachable_patterns)] // the core's error enums may grow
        match e {
            GameError::Rules(e) => e.into(),
            GameError::Setup(e) => e.into(),
            GameError::Notation(e) => e.into(),
            GameError::Play(e) => e.into(),
            e @ GameError::Record(_) => Error::new(junqi_status::InvalidRecord, e.to_string()),
            other => Error::new(junqi_status::IllegalAction, other.to_string()),
        }
    }
}

thread_local! {
    /// The message of the last failure on this thread (empty before any failure).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `message` as this thread's last error.
pub(crate) fn set_last_error(message: &str) {
    // A message with an interior NUL would be cut short in C: replace it.
    let text = CString::new(message.replace('\0', "\u{FFFD}")).unwrap_or_default();
    // `try_with` fails only while the thread is being torn down; the message is then lost.
    let _ = LAST_ERROR.try_with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            *slot = text;
        }
    });
}

/// A pointer to this thread's last error message (valid until the next failing call on
/// this thread).
pub(crate) fn last_error_ptr() -> *const c_char {
    static EMPTY: &[u8] = b"\0";
    LAST_ERROR
        .try_with(|cell| cell.try_borrow().map(|s| s.as_ptr()).ok())
        .ok()
        .flatten()
        .unwrap_or(EMPTY.as_ptr().cast())
}
