//! Exceptions: every error the engine reports is a `junqi.JunqiError`, which is a
//! `ValueError`; the subclasses follow the core's error types.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use junqi::{GameError, NotationError as CoreNotationError, PlayError, RulesError as CoreRulesError};
use junqi::{BoardError, SetupError as CoreSetupError};

create_exception!(
    junqi,
    JunqiError,
    PyValueError,
    "Base class of every error the engine reports (a ValueError)."
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
    "A setup that is not a legal deployment, or a deployment at the wrong time."
);
create_exception!(
    junqi,
    NotationError,
    JunqiError,
    "Text that is not a point, a move, an action index, a side or a piece kind."
);
create_exception!(
    junqi,
    IllegalMoveError,
    JunqiError,
    "An action the rules do not allow now, or a side that is not in the game (the game is left unchanged)."
);
create_exception!(
    junqi,
    RecordError,
    JunqiError,
    "A record that cannot be read or does not replay."
);

create_exception!(
    junqi,
    AgentError,
    JunqiError,
    "An agent name the engine does not know, or a level or budget out of range."
);

create_exception!(
    junqi,
    PlatformError,
    JunqiError,
    "A finished game that cannot be scored: seats missing, repeated or not in the game."
);

/// Converts a core game error to the matching Python exception, with the core's text.
pub fn game_err(e: GameError) -> PyErr {
    let msg = e.to_string();
    match e {
        GameError::Rules(_) => RulesError::new_err(msg),
        GameError::Setup(_) => SetupError::new_err(msg),
        GameError::Notation(_) => NotationError::new_err(msg),
        // Deploying twice or after the deployment phase is a setup problem for the caller.
        GameError::Play(PlayError::AlreadyDeployed(_) | PlayError::NotDeployPhase) => {
            SetupError::new_err(msg)
        }
        GameError::Play(_) => IllegalMoveError::new_err(msg),
        GameError::Record(_) => RecordError::new_err(msg),
        #[allow(unreachable_patterns)]
        _ => JunqiError::new_err(msg),
    }
}

/// An agent spec that does not build an agent, with the core's text.
pub fn agent_err(e: junqi::AgentError) -> PyErr {
    AgentError::new_err(e.to_string())
}

pub fn rules_err(e: CoreRulesError) -> PyErr {
    RulesError::new_err(e.to_string())
}

pub fn board_err(e: BoardError) -> PyErr {
    RulesError::new_err(e.to_string())
}

pub fn setup_err(e: CoreSetupError) -> PyErr {
    SetupError::new_err(e.to_string())
}

pub fn notation_err(e: CoreNotationError) -> PyErr {
    NotationError::new_err(e.to_string())
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
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("SetupError", py.get_type::<SetupError>())?;
    m.add("NotationError", py.get_type::<NotationError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    m.add("PlatformError", py.get_type::<PlatformError>())?;
    m.add("AgentError", py.get_type::<AgentError>())?;
    Ok(())
}
