//! Position strings (docs/position-strings.md): `Game.position_string()`,
//! `Game.view_string(side)`, `Game.from_position_string(text, seed)`; refusals raise
//! `PositionStringError`.

use pyo3::create_exception;
use pyo3::prelude::*;

use crate::errors::JunqiError;

create_exception!(
    junqi,
    PositionStringError,
    JunqiError,
    "Text that is not a position string (the message says what is wrong)."
);

/// Registers the exception.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PositionStringError", m.py().get_type::<PositionStringError>())
}

fn err(e: junqi::PositionStringError) -> PyErr {
    PositionStringError::new_err(e.to_string())
}

/// A game from a position string or a view string (`Game.from_position_string`).
pub fn game_from(text: &str, seed: u64) -> PyResult<junqi::Game> {
    junqi::Game::from_position_string(text, seed).map_err(err)
}
