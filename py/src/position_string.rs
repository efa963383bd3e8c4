//! Position strings (docs/position-strings.md): `Game.position_string()`,
//! `Game.view_string(side)`, `Game.from_position_string(text, seed)`; refusals raise
//! `PositionStringError`.

use pyo3::prelude::*;

use crate::errors::err;

/// A game from a position string or a view string (`Game.from_position_string`).
pub fn game_from(text: &str, seed: u64) -> PyResult<junqi::Game> {
    junqi::Game::from_position_string(text, seed).map_err(err)
}
