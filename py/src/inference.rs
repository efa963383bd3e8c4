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
    /// (every consistent army alike), or a model's JSON as ``junqi model fit`` writes
    /// it. Derived only from the player's own information (docs/inference.md,
    /// "Modelled beliefs").
    #[pyo3(signature = (model = "shipped"))]
    fn probabilities<'py>(&self, py: Python<'py>, model: &str) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let m = junqi::OpponentModel::load(self.inner.rules(), model).map_err(err)?;
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
