//! Exceptions: one class per kind of refusal (`junqi::ErrorKind`, docs/errors.md), all
//! `junqi.JunqiError`, which is a `ValueError`. The classes of a refused action
//! (`NotYourTurnError`, `WrongPhaseError`, `GameOverError`, `SideNotInGameError`)
//! are also `IllegalActionError`s. [`exception`] is this layer's one table from kind
//! to class; every core error goes through [`err`].

use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

use junqi::ErrorKind;

create_exception!(
    junqi,
    JunqiError,
    PyValueError,
    "Base class of every error the engine reports (a ValueError)."
);
create_exception!(
    junqi,
    UnknownNameError,
    JunqiError,
    "A name the engine does not know: a rule-set preset or board, a side, a piece kind, a point, an agent or one of its options."
);
create_exception!(
    junqi,
    OutOfRangeError,
    JunqiError,
    "A number outside its range: an action id outside the action space, a search level, budget or thread count, a number of games, a length that does not match."
);
create_exception!(
    junqi,
    JsonError,
    JunqiError,
    "JSON text that is not well-formed, or not of the shape asked for."
);
create_exception!(
    junqi,
    RulesError,
    JunqiError,
    "A rule set (or board description) that cannot be loaded."
);
create_exception!(
    junqi,
    SetupError,
    JunqiError,
    "A setup that is not a legal deployment."
);
create_exception!(
    junqi,
    NotationError,
    JunqiError,
    "Text that is not an action of the board (\"a2-a6\", \"flip c3\")."
);
create_exception!(
    junqi,
    PositionStringError,
    JunqiError,
    "Text that is not a position string."
);
create_exception!(
    junqi,
    RecordError,
    JunqiError,
    "A record that cannot be read or does not replay."
);
create_exception!(
    junqi,
    IllegalActionError,
    JunqiError,
    "An action the rules do not allow now (the game is left unchanged)."
);
create_exception!(
    junqi,
    NotYourTurnError,
    IllegalActionError,
    "A side acted when another side is to act (the game is left unchanged)."
);
create_exception!(
    junqi,
    WrongPhaseError,
    IllegalActionError,
    "A call that does not fit the game's phase: a move before every side deployed, a deployment after the deployment phase, twice, or in a rule set that deals; a score of a game that is not over."
);
create_exception!(
    junqi,
    GameOverError,
    IllegalActionError,
    "The game has ended (the game is left unchanged)."
);
create_exception!(
    junqi,
    SideNotInGameError,
    IllegalActionError,
    "The side does not play in this rule set, or is already out of the game."
);
create_exception!(
    junqi,
    WrongGameError,
    JunqiError,
    "Something of another game used with this one: beliefs about another game or moment, observations of games on different boards."
);
create_exception!(
    junqi,
    PlatformError,
    JunqiError,
    "A result that cannot be scored: seats missing or repeated, or winners no game of the rule set can have."
);
create_exception!(
    junqi,
    BufferTooSmallError,
    JunqiError,
    "An output buffer of the wrong length or shape."
);

/// The exception for a kind of refusal, with a message: this layer's one table of
/// kinds (docs/errors.md lists it beside the C status and the HTTP answer).
pub fn exception(kind: ErrorKind, message: impl Into<String>) -> PyErr {
    let message = message.into();
    match kind {
        ErrorKind::UnknownName => UnknownNameError::new_err(message),
        ErrorKind::OutOfRange => OutOfRangeError::new_err(message),
        ErrorKind::InvalidJson => JsonError::new_err(message),
        ErrorKind::InvalidRules => RulesError::new_err(message),
        ErrorKind::InvalidSetup => SetupError::new_err(message),
        ErrorKind::InvalidNotation => NotationError::new_err(message),
        ErrorKind::InvalidPosition => PositionStringError::new_err(message),
        ErrorKind::InvalidRecord => RecordError::new_err(message),
        ErrorKind::IllegalAction => IllegalActionError::new_err(message),
        ErrorKind::NotYourTurn => NotYourTurnError::new_err(message),
        ErrorKind::WrongPhase => WrongPhaseError::new_err(message),
        ErrorKind::GameOver => GameOverError::new_err(message),
        ErrorKind::SideNotInGame => SideNotInGameError::new_err(message),
        ErrorKind::WrongGame => WrongGameError::new_err(message),
        ErrorKind::InvalidResult => PlatformError::new_err(message),
        ErrorKind::BufferTooSmall => BufferTooSmallError::new_err(message),
        ErrorKind::OutOfMemory => PyMemoryError::new_err(message),
    }
}

/// Any error of the core as its exception, with the core's text.
pub fn err<E: junqi::Error>(e: E) -> PyErr {
    exception(e.kind(), e.to_string())
}

/// An error for a Rust panic caught at the boundary (a broken custom rule set, say).
pub fn panic_err(what: &str, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "internal error".to_owned());
    JunqiError::new_err(format!("{what}: {detail}"))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("JunqiError", py.get_type::<JunqiError>())?;
    m.add("UnknownNameError", py.get_type::<UnknownNameError>())?;
    m.add("OutOfRangeError", py.get_type::<OutOfRangeError>())?;
    m.add("JsonError", py.get_type::<JsonError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("SetupError", py.get_type::<SetupError>())?;
    m.add("NotationError", py.get_type::<NotationError>())?;
    m.add("PositionStringError", py.get_type::<PositionStringError>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    m.add("IllegalActionError", py.get_type::<IllegalActionError>())?;
    m.add("NotYourTurnError", py.get_type::<NotYourTurnError>())?;
    m.add("WrongPhaseError", py.get_type::<WrongPhaseError>())?;
    m.add("GameOverError", py.get_type::<GameOverError>())?;
    m.add("SideNotInGameError", py.get_type::<SideNotInGameError>())?;
    m.add("WrongGameError", py.get_type::<WrongGameError>())?;
    m.add("PlatformError", py.get_type::<PlatformError>())?;
    m.add("BufferTooSmallError", py.get_type::<BufferTooSmallError>())?;
    // Each kind's name and exception class, for programs and for the tests that check
    // this table against docs/errors.md.
    let kinds = pyo3::types::PyDict::new(py);
    for kind in ErrorKind::ALL {
        kinds.set_item(kind.name(), exception(kind, "").get_type(py))?;
    }
    m.add("ERROR_KINDS", kinds)?;
    Ok(())
}
