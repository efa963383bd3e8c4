//! `Board`: the geometry of a board — named points with roles, typed edges, railway
//! lines and the fixed move action space.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::enums::{EdgeKind, Role, Side};
use crate::errors::{err, exception};

/// A board. ``Board("classic")`` loads a built-in board; board JSON text loads a custom
/// one. Points are named by strings such as ``"c6"``.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct Board {
    pub inner: Arc<junqi::Board>,
}

impl Board {
    pub fn point(&self, name: &str) -> PyResult<junqi::Point> {
        junqi::parse_point(&self.inner, name).map_err(err)
    }

    fn name_of(&self, p: junqi::Point) -> String {
        self.inner.name_of(p).to_owned()
    }
}

#[pymethods]
impl Board {
    #[new]
    #[pyo3(signature = (name="classic"))]
    fn py_new(name: &str) -> PyResult<Board> {
        if name.trim_start().starts_with('{') {
            return Ok(Board { inner: Arc::new(junqi::Board::from_json(name).map_err(err)?) });
        }
        junqi::Board::preset(name.trim())
            .map(|inner| Board { inner })
            .ok_or_else(|| err(junqi::RulesError::UnknownBoard(name.to_owned())))
    }

    /// The board's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Every point name, in id order.
    #[getter]
    fn points(&self) -> Vec<String> {
        self.inner.points().map(|p| self.name_of(p)).collect()
    }

    /// Width and height of the drawing grid.
    #[getter]
    fn grid_size(&self) -> (u8, u8) {
        self.inner.grid_size()
    }

    /// Size of the fixed move action space.
    #[getter]
    fn action_space(&self) -> usize {
        self.inner.move_space()
    }

    /// The straight railway lines, as lists of point names.
    #[getter]
    fn rail_lines(&self) -> Vec<Vec<String>> {
        self.inner
            .rail_lines()
            .iter()
            .map(|l| l.iter().map(|&p| self.name_of(p)).collect())
            .collect()
    }

    /// The index of a point (``0..len(board)``).
    fn index(&self, point: &str) -> PyResult<usize> {
        Ok(self.point(point)?.index())
    }

    /// A point's role.
    fn role(&self, point: &str) -> PyResult<Role> {
        Ok(self.inner.role(self.point(point)?).into())
    }

    /// The side whose half a point is in, or None.
    fn side_of(&self, point: &str) -> PyResult<Option<Side>> {
        Ok(self.inner.side_of(self.point(point)?).map(Into::into))
    }

    /// A point's row counted from its side's back row (1 = back row; 0 outside a half).
    fn depth(&self, point: &str) -> PyResult<u8> {
        Ok(self.inner.depth(self.point(point)?))
    }

    /// Drawing-grid coordinates ``(x, y)`` of a point.
    fn coords(&self, point: &str) -> PyResult<(u8, u8)> {
        Ok(self.inner.coords(self.point(point)?))
    }

    /// Neighbours of a point with the kind of edge joining them.
    fn neighbours(&self, point: &str) -> PyResult<Vec<(String, EdgeKind)>> {
        let p = self.point(point)?;
        Ok(self.inner.neighbours(p).iter().map(|&(q, k)| (self.name_of(q), k.into())).collect())
    }

    /// The kind of edge joining two points, or None.
    fn edge(&self, a: &str, b: &str) -> PyResult<Option<EdgeKind>> {
        Ok(self.inner.edge(self.point(a)?, self.point(b)?).map(Into::into))
    }

    /// Whether a railway edge touches the point.
    fn is_railway(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.is_railway(self.point(point)?))
    }

    /// Whether the point is an air position (a plane's place, named with a trailing
    /// ``^``, e.g. ``"c7^"``; 海陆空三军棋).
    fn is_air(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.is_air(self.point(point)?))
    }

    /// Whether the point is at sea (open sea or an anchorage).
    fn is_sea(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.is_sea(self.point(point)?))
    }

    /// Whether the point is on land.
    fn is_land(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.is_land(self.point(point)?))
    }

    /// The air position directly above a surface point, or None.
    fn above(&self, point: &str) -> PyResult<Option<String>> {
        Ok(self.inner.above(self.point(point)?).map(|p| self.name_of(p)))
    }

    /// The surface point directly below an air position, or None.
    fn below(&self, point: &str) -> PyResult<Option<String>> {
        Ok(self.inner.below(self.point(point)?).map(|p| self.name_of(p)))
    }

    /// Lattice distance ``|dx| + |dy|`` between two points, in drawing-grid steps (a
    /// strike against a plane reaches ``STRIKE_RANGE``).
    fn distance(&self, a: &str, b: &str) -> PyResult<u32> {
        Ok(self.inner.distance(self.point(a)?, self.point(b)?))
    }

    /// The action index of the move ``from_ -> to``, or None if no move could ever join
    /// the two points.
    fn move_index(&self, from_: &str, to: &str) -> PyResult<Option<usize>> {
        Ok(self.inner.move_index(self.point(from_)?, self.point(to)?))
    }

    /// The move ``(from, to)`` with a given action index (moves only: for every action,
    /// 翻棋 flips included, use ``RuleSet.action_at``).
    fn move_at(&self, index: i64) -> PyResult<(String, String)> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.inner.move_at(i))
            .map(|(a, b)| (self.name_of(a), self.name_of(b)))
            .ok_or_else(|| {
                exception(junqi::ErrorKind::OutOfRange, format!(
                    "{index} is not a move index of this board (moves are 0..{}); a rule set's \
                     action space may hold more actions after the moves (翻棋's flips): \
                     RuleSet.action_at names any action",
                    self.inner.move_space()
                ))
            })
    }

    /// The board description as JSON.
    fn to_json(&self) -> String {
        serde_json::to_string_pretty(self.inner.spec()).expect("a board serialises")
    }

    /// An SVG picture of the empty board as ``seat`` sees it (South: as printed), with
    /// the coordinates of the notation along the edges; ``legend``, ``coordinates``,
    /// ``caption`` and ``highlight`` switch those parts, ``scale`` sizes the picture.
    #[pyo3(signature = (seat = None, *, legend = true, coordinates = true, caption = true, highlight = true, scale = 1.0))]
    fn to_svg(
        &self,
        seat: Option<&Bound<'_, PyAny>>,
        legend: bool,
        coordinates: bool,
        caption: bool,
        highlight: bool,
        scale: f32,
    ) -> PyResult<String> {
        let seat = seat.map(crate::enums::side_arg).transpose()?.unwrap_or(junqi::Side::South);
        let options = crate::render::options(legend, coordinates, caption, highlight, scale)?;
        Ok(self.inner.to_svg(seat, &options))
    }

    /// An SVG picture of the board from South's seat (shown by Jupyter).
    fn _repr_svg_(&self) -> String {
        self.inner.to_svg(junqi::Side::South, &junqi::render::SvgOptions::default())
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, point: &Bound<'_, PyAny>) -> bool {
        point.extract::<String>().is_ok_and(|s| self.inner.point(&s).is_some())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Board>().is_ok_and(|o| o.get().inner.spec() == self.inner.spec())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.to_json().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("Board({:?}, points={})", self.inner.name(), self.inner.len())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, pyo3::types::PyType>, Bound<'py, PyTuple>)> {
        let arg = if junqi::Board::preset(self.inner.name()).is_some_and(|b| b.spec() == self.inner.spec()) {
            self.inner.name().to_owned()
        } else {
            self.to_json()
        };
        Ok((py.get_type::<Board>(), PyTuple::new(py, [arg])?))
    }
}
