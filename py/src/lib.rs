//! Python bindings for the junqi engine: the `junqi._junqi` extension module, wrapped
//! by the `junqi` package (`py/python/junqi`).
//!
//! Modules: [`errors`] (exceptions, one per kind of refusal), [`enums`] (Side,
//! PieceKind, …), [`board`], [`rules`] (RuleSet, resolve, resolve_attack, Resolution),
//! [`game`] (Game, Action), [`report`] (Report, Event, View, …), [`inference`]
//! (Beliefs, observations), [`position_string`] (position strings), [`render`]
//! (picture options), [`playouts`] (random_playouts), [`vector`] (VectorEnv),
//! [`platform`] (levels and scoring), [`agent`] (Agent: players run by the engine).
#![forbid(unsafe_code)]

use pyo3::prelude::*;

mod agent;
mod board;
mod enums;
mod errors;
mod game;
mod platform;
mod inference;
mod playouts;
mod position_string;
mod report;
mod rules;
mod render;
mod vector;

#[pymodule]
fn _junqi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    enums::register(m)?;
    m.add_class::<board::Board>()?;
    m.add_class::<rules::RuleSet>()?;
    m.add_class::<rules::Resolution>()?;
    m.add_class::<game::Game>()?;
    m.add_class::<game::Action>()?;
    m.add_class::<inference::Beliefs>()?;
    m.add_class::<inference::OpponentModel>()?;
    m.add_class::<agent::EvalFit>()?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::Event>()?;
    m.add_class::<report::View>()?;
    m.add_class::<report::SeenPiece>()?;
    m.add_class::<report::GameResult>()?;
    m.add_class::<playouts::Playout>()?;
    m.add_class::<agent::Agent>()?;
    m.add_class::<vector::VectorEnv>()?;
    m.add_class::<vector::FinishedGame>()?;
    m.add_class::<platform::Level>()?;
    m.add_class::<platform::SeatScore>()?;
    m.add_function(wrap_pyfunction!(platform::level_for, m)?)?;
    m.add_function(wrap_pyfunction!(platform::levels, m)?)?;
    m.add_function(wrap_pyfunction!(platform::platform_score, m)?)?;
    m.add_function(wrap_pyfunction!(rules::rule_sets, m)?)?;
    m.add_function(wrap_pyfunction!(rules::resolve, m)?)?;
    m.add_function(wrap_pyfunction!(rules::resolve_attack, m)?)?;
    m.add_function(wrap_pyfunction!(playouts::random_playouts, m)?)?;
    m.add_function(wrap_pyfunction!(game::observations, m)?)?;
    m.add("__version__", junqi::VERSION)?;
    m.add("STRIKE_RANGE", junqi::STRIKE_RANGE)?;
    Ok(())
}
