//! `Beliefs` (what a player deduces), observation tensors as numpy arrays, and the
//! batched encoder `observations`.

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadwriteArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::enums::{PieceKind, Side};
use crate::errors::{err, exception};
use junqi::ErrorKind::BufferTooSmall;

/// What one player may deduce about every piece: for each piece it cannot see, the
/// kinds it may still be (``Game.beliefs(player)``).
#[pyclass(frozen, module = "junqi._junqi")]
pub struct Beliefs {
    pub inner: junqi::Beliefs,
    pub board: Arc<junqi::Board>,
}

impl Beliefs {
    fn point(&self, name: &str) -> PyResult<junqi::Point> {
        junqi::parse_point(&self.board, name).map_err(err)
    }
}

#[pymethods]
impl Beliefs {
    /// The player whose beliefs these are.
    #[getter]
    fn player(&self) -> Side {
        self.inner.player().into()
    }

    /// The army the player commands (翻棋: ``None`` until the first flip).
    #[getter]
    fn army(&self) -> Option<Side> {
        self.inner.army().map(Into::into)
    }

    /// Whether some assignment of kinds satisfies every piece's candidates and every
    /// army's exact composition (always, for a real game).
    fn is_consistent(&self) -> bool {
        self.inner.is_consistent()
    }

    /// The candidate kinds of the piece on ``point`` (empty if the point is empty; one
    /// kind for a piece the player knows).
    fn candidates(&self, point: &str) -> PyResult<Vec<PieceKind>> {
        let p = self.point(point)?;
        Ok(self.inner.candidates(p).iter().map(Into::into).collect())
    }

    /// The candidate (army, kind) pairs of the piece on ``point`` (several armies only
    /// for a face-down piece in 翻棋).
    fn candidate_identities(&self, point: &str) -> PyResult<Vec<(Side, PieceKind)>> {
        let p = self.point(point)?;
        Ok(self
            .inner
            .candidate_identities(p)
            .into_iter()
            .map(|(s, k)| (s.into(), k.into()))
            .collect())
    }

    /// The owner of the piece on ``point``, if known.
    fn owner(&self, point: &str) -> PyResult<Option<Side>> {
        Ok(self.inner.owner(self.point(point)?).map(Into::into))
    }

    /// Whether the player was shown the identity of the piece on ``point`` (its own,
    /// revealed, flipped) rather than deducing it.
    fn is_known(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.is_known(self.point(point)?))
    }

    /// Whether the piece on ``point`` has moved.
    fn has_moved(&self, point: &str) -> PyResult<bool> {
        Ok(self.inner.has_moved(self.point(point)?))
    }

    /// Pieces that left the board, each with its candidate (army, kind) pairs.
    fn off_board(&self) -> Vec<Vec<(Side, PieceKind)>> {
        self.inner
            .off_board()
            .into_iter()
            .map(|c| c.into_iter().map(|(s, k)| (s.into(), k.into())).collect())
            .collect()
    }

    /// The candidates as a numpy ``bool`` array ``[points, kinds]``: rows in the
    /// board's point order (``Board.points``), columns in ``PieceKind`` value order
    /// (``int(kind)``).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let n = self.board.len();
        let mut v = vec![false; n * junqi::PieceKind::COUNT];
        self.inner.mask_into(&mut v);
        PyArray1::from_vec(py, v).reshape([n, junqi::PieceKind::COUNT])
    }

    /// The probability of every kind for the piece on every point, as a numpy
    /// ``float64`` array ``[points, kinds]`` in the layout of ``mask()``: each occupied
    /// point's row sums to 1, an empty point's row is 0. ``model``: ``"shipped"`` (the
    /// model the engine ships for the rule set: how each kind played in self-play
    /// games of the engine's agents; the plain model where it ships none), ``"plain"``
    /// (every consistent army alike), a model's JSON as ``junqi model fit`` writes
    /// it, or an ``OpponentModel``. Derived only from the player's own information
    /// (docs/inference.md, "Modelled beliefs").
    #[pyo3(signature = (model = None))]
    fn probabilities<'py>(&self, py: Python<'py>, model: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let m = model_arg(self.inner.rules(), model)?;
        let n = self.board.len();
        let mut v = vec![0.0f64; n * junqi::PieceKind::COUNT];
        py.detach(|| self.inner.probabilities(&m).kinds_into(&mut v));
        PyArray1::from_vec(py, v).reshape([n, junqi::PieceKind::COUNT])
    }

    /// What the piece on ``point`` has done in public, as modelled beliefs read it: a
    /// dict of its moves by kind of move (``step_forward``, ``step_sideways``,
    /// ``step_back``, ``run_forward``, ``run_other``, ``attack_hidden``,
    /// ``attack_public_weak``, ``attack_public_strong``) and ``turns``, the turns of
    /// its army it has stood on the board; ``None`` for an empty point.
    fn evidence(&self, point: &str) -> PyResult<Option<std::collections::BTreeMap<&'static str, u32>>> {
        let p = self.point(point)?;
        Ok(self.inner.evidence(p).map(|(moves, turns)| {
            let mut d: std::collections::BTreeMap<&'static str, u32> =
                junqi::inference::BUCKET_NAMES.iter().zip(moves).map(|(n, m)| (*n, m as u32)).collect();
            d.insert("turns", turns as u32);
            d
        }))
    }

    fn __repr__(&self) -> String {
        let (total, n) = self.inner.unseen_candidate_total();
        format!(
            "Beliefs(player={}, unseen={n}, candidates={total}, consistent={})",
            self.inner.player(),
            if self.inner.is_consistent() { "True" } else { "False" }
        )
    }
}

/// Reads a `model` argument: `None` or a name/JSON ([`junqi::OpponentModel::load`]),
/// or an `OpponentModel`.
pub(crate) fn model_arg(rules: &junqi::RuleSet, model: Option<&Bound<'_, PyAny>>) -> PyResult<junqi::OpponentModel> {
    let Some(obj) = model.filter(|o| !o.is_none()) else {
        return Ok(junqi::OpponentModel::for_rules(rules));
    };
    if let Ok(m) = obj.cast::<OpponentModel>() {
        return Ok(m.get().inner.lock().unwrap_or_else(|e| e.into_inner()).clone());
    }
    let text: String = obj.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("model must be \"shipped\", \"plain\", a model's JSON or an OpponentModel")
    })?;
    junqi::OpponentModel::load(rules, &text).map_err(err)
}

/// How each kind of piece plays, as counts from games: the moves of each kind by kind
/// of move, the turns its pieces stood on the board, and the pieces of each kind that
/// started on each point (docs/inference.md, "Modelled beliefs"). ``OpponentModel(rules)``
/// is an empty one to ``count`` games into; ``OpponentModel.shipped(rules)`` the one the
/// engine ships; ``OpponentModel.plain()`` weighs every candidate alike.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct OpponentModel {
    inner: std::sync::Mutex<junqi::OpponentModel>,
    rules: Option<Arc<junqi::RuleSet>>,
}

impl OpponentModel {
    fn wrap(m: junqi::OpponentModel, rules: Option<Arc<junqi::RuleSet>>) -> OpponentModel {
        OpponentModel { inner: std::sync::Mutex::new(m), rules }
    }

    fn get_model(&self) -> std::sync::MutexGuard<'_, junqi::OpponentModel> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl OpponentModel {
    /// An empty model of ``rules`` (no games counted yet); ``source`` says where its
    /// games come from.
    #[new]
    #[pyo3(signature = (rules = None, source = ""))]
    fn new(rules: Option<&Bound<'_, PyAny>>, source: &str) -> PyResult<OpponentModel> {
        let rules = crate::rules::rules_arg(rules)?;
        Ok(OpponentModel::wrap(junqi::OpponentModel::empty(&rules, source), Some(rules)))
    }

    /// The model the engine ships for ``rules`` (the plain model where it ships none).
    #[staticmethod]
    #[pyo3(signature = (rules = None))]
    fn shipped(rules: Option<&Bound<'_, PyAny>>) -> PyResult<OpponentModel> {
        let rules = crate::rules::rules_arg(rules)?;
        Ok(OpponentModel::wrap(junqi::OpponentModel::for_rules(&rules), Some(rules)))
    }

    /// The plain model: every candidate alike.
    #[staticmethod]
    fn plain() -> OpponentModel {
        OpponentModel::wrap(junqi::OpponentModel::plain(), None)
    }

    /// The model a caller names, read as every surface reads it: ``"shipped"``
    /// (``shipped(rules)``), ``"plain"`` (``plain()``) or a model's JSON
    /// (``from_json``). Read once and pass the model on, rather than the name, where
    /// it is used many times.
    #[staticmethod]
    #[pyo3(signature = (spec, rules = None))]
    fn load(spec: &str, rules: Option<&Bound<'_, PyAny>>) -> PyResult<OpponentModel> {
        let rules = crate::rules::rules_arg(rules)?;
        let m = junqi::OpponentModel::load(&rules, spec).map_err(err)?;
        Ok(OpponentModel::wrap(m, Some(rules)))
    }

    /// A model from its JSON (as ``to_json`` or ``junqi model fit`` writes it) for
    /// ``rules``, whose kinds and points it must name.
    #[staticmethod]
    #[pyo3(signature = (text, rules = None))]
    fn from_json(text: &str, rules: Option<&Bound<'_, PyAny>>) -> PyResult<OpponentModel> {
        let rules = crate::rules::rules_arg(rules)?;
        let m = junqi::OpponentModel::from_json(&rules, text).map_err(err)?;
        Ok(OpponentModel::wrap(m, Some(rules)))
    }

    /// Counts a game's pieces into the model (every army's pieces' evidence as an
    /// opponent saw it, by their true kinds); ``False`` (nothing counted) for a game of
    /// another rule set or one that deals face down.
    fn count(&self, py: Python<'_>, game: &crate::game::Game) -> bool {
        let g = game.lock().clone();
        py.detach(|| self.get_model().count(&g))
    }

    /// Adds another model's counts (same rule set); ``False`` if it is of another.
    fn merge(&self, other: &OpponentModel) -> bool {
        if std::ptr::eq(self, other) {
            let copy = self.get_model().clone();
            return self.get_model().merge(&copy);
        }
        let o = other.get_model().clone();
        self.get_model().merge(&o)
    }

    /// Games counted.
    #[getter]
    fn games(&self) -> u64 {
        self.get_model().games()
    }

    /// Whether this is the plain model.
    #[getter]
    fn is_plain(&self) -> bool {
        self.get_model().is_plain()
    }

    /// The rule set the counts come from (``None`` for the plain model).
    #[getter]
    fn rules_name(&self) -> Option<String> {
        self.get_model().rules_name().map(str::to_owned)
    }

    /// The model's JSON (its counts, one kind and one point per line).
    fn to_json(&self) -> String {
        let m = self.get_model();
        match &self.rules {
            Some(r) => m.to_json(r),
            None => m.to_json(&junqi::RuleSet::preset("classic").expect("classic is a preset")),
        }
    }

    fn __repr__(&self) -> String {
        let m = self.get_model();
        match m.rules_name() {
            None => "OpponentModel.plain()".to_owned(),
            Some(r) => format!("OpponentModel(rules={r:?}, games={})", m.games()),
        }
    }
}

/// Writes observations into `out` (a float32, C-contiguous numpy array of exactly
/// `expected` floats), or makes a new `[shape]` array.
pub fn fill<'py>(
    py: Python<'py>,
    shape: &[usize],
    out: Option<Bound<'py, PyAny>>,
    write: impl FnOnce(&mut [f32]) -> PyResult<()>,
) -> PyResult<Bound<'py, PyAny>> {
    let len: usize = shape.iter().product();
    match out {
        Some(obj) => {
            let arr = obj
                .cast::<numpy::PyArrayDyn<f32>>()
                .map_err(|_| exception(BufferTooSmall, "out must be a numpy float32 array"))?;
            if arr.len() != len {
                return Err(exception(BufferTooSmall, format!(
                    "out holds {} floats, the observation needs {len} (shape {shape:?})",
                    arr.len()
                )));
            }
            // `as_slice_mut` also takes a Fortran-ordered array, which would then be
            // filled in the wrong order.
            if !arr.is_c_contiguous() {
                return Err(exception(BufferTooSmall,
                    "out must be C-contiguous (row-major, numpy's default order): a Fortran-ordered or strided array would be filled in the wrong order",
                ));
            }
            {
                let mut rw: PyReadwriteArrayDyn<'_, f32> =
                    arr.try_readwrite().map_err(|e| exception(BufferTooSmall, e.to_string()))?;
                let slice = rw
                    .as_slice_mut()
                    .map_err(|_| exception(BufferTooSmall, "out must be C-contiguous"))?;
                write(slice)?;
            }
            Ok(obj)
        }
        None => {
            let mut v = vec![0.0f32; len];
            write(&mut v)?;
            Ok(PyArray1::from_vec(py, v).reshape(shape.to_vec())?.into_any())
        }
    }
}
