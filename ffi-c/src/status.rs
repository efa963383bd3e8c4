//! Status codes, the library's error type, and the thread-local last error message.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use junqi_core::ErrorKind;

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
    /// The call does not fit the game's phase: a move before every side deployed, a
    /// deployment after the deployment phase, by a side that already deployed or in a
    /// rule set that deals face down; a score of a game that is not over.
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
    /// The game has ended (the game is unchanged).
    GameOver = 18,
    /// Something of another game used with this one: beliefs about another game or
    /// moment.
    WrongGame = 19,
    /// A result that cannot be scored: seats missing or repeated, or winners no game
    /// of the rule set can have.
    InvalidResult = 20,
    /// Not enough memory for what was asked (a vector environment of many games).
    OutOfMemory = 21,
}

impl junqi_status {
    /// Every status, in value order.
    pub(crate) const ALL: [junqi_status; 22] = [
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
        junqi_status::GameOver,
        junqi_status::WrongGame,
        junqi_status::InvalidResult,
        junqi_status::OutOfMemory,
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
            junqi_status::GameOver => "JUNQI_STATUS_GAME_OVER\0",
            junqi_status::WrongGame => "JUNQI_STATUS_WRONG_GAME\0",
            junqi_status::InvalidResult => "JUNQI_STATUS_INVALID_RESULT\0",
            junqi_status::OutOfMemory => "JUNQI_STATUS_OUT_OF_MEMORY\0",
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

/// The status of each kind of refusal the core reports (`junqi::ErrorKind`, see
/// docs/errors.md): the C library's one table of them.
pub(crate) const fn status_of(kind: ErrorKind) -> junqi_status {
    match kind {
        ErrorKind::UnknownName => junqi_status::UnknownName,
        ErrorKind::OutOfRange => junqi_status::OutOfRange,
        ErrorKind::InvalidJson => junqi_status::InvalidJson,
        ErrorKind::InvalidRules => junqi_status::InvalidRules,
        ErrorKind::InvalidSetup => junqi_status::InvalidSetup,
        ErrorKind::InvalidNotation => junqi_status::InvalidNotation,
        ErrorKind::InvalidPosition => junqi_status::InvalidPosition,
        ErrorKind::InvalidRecord => junqi_status::InvalidRecord,
        ErrorKind::IllegalAction => junqi_status::IllegalAction,
        ErrorKind::NotYourTurn => junqi_status::NotYourTurn,
        ErrorKind::WrongPhase => junqi_status::WrongPhase,
        ErrorKind::GameOver => junqi_status::GameOver,
        ErrorKind::SideNotInGame => junqi_status::SideNotInGame,
        ErrorKind::WrongGame => junqi_status::WrongGame,
        ErrorKind::InvalidResult => junqi_status::InvalidResult,
        ErrorKind::BufferTooSmall => junqi_status::BufferTooSmall,
        ErrorKind::OutOfMemory => junqi_status::OutOfMemory,
    }
}

/// Any error of the core, by its kind, with the core's message.
impl<E: junqi_core::Error> From<E> for Error {
    fn from(e: E) -> Error {
        Error::new(status_of(e.kind()), e.to_string())
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
