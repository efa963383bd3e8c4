//! Pictures: the keyword options of ``View.to_svg`` and ``Board.to_svg``, for the core
//! renderer (`junqi::render`).

use pyo3::prelude::*;

use crate::errors::exception;

/// The core's options from the Python keywords; a scale that is not a positive number
/// is refused.
pub fn options(legend: bool, coordinates: bool, caption: bool, highlight: bool, scale: f32) -> PyResult<junqi::render::SvgOptions> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(exception(junqi::ErrorKind::OutOfRange, format!("scale must be a positive number, not {scale}")));
    }
    Ok(junqi::render::SvgOptions { legend, coordinates, caption, highlight, scale })
}
