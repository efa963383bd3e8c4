//! `VectorEnv`: many games stepped together in Rust with the GIL released, for
//! reinforcement learning (numpy in, numpy out), and `FinishedGame`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use numpy::{PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyList, PyString, PyTuple};

use crate::enums::Side;
use crate::errors::{err, exception, panic_err};
use junqi::ErrorKind::OutOfRange;
use crate::game::{random_seed, Game};
use crate::report::GameResult;
use crate::rules::{rules_arg, RuleSet};

/// The caller's actions as the step's own copy: integers only (a Python ``int`` or a
/// numpy integer, not a bool), in a one-dimensional numpy array of an integer dtype or
/// a sequence (read up to `n + 1` items). The copy is checked and played, so a caller
/// rewriting its array while the step runs (the GIL is released) cannot change what
/// was checked.
fn actions_arg(actions: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<i64>> {
    let py = actions.py();
    if let Ok(arr) = actions.cast::<PyUntypedArray>() {
        if arr.ndim() != 1 {
            return Err(exception(OutOfRange, format!(
                "actions must be one-dimensional, not of shape {:?}",
                arr.shape()
            )));
        }
        let dtype = arr.dtype();
        match dtype.kind() {
            b'i' => {
                // `astype` copies (into a new contiguous array), then into our Vec.
                let own = arr.call_method1("astype", ("int64",))?;
                let own = own.cast::<PyArray1<i64>>().map_err(PyErr::from)?;
                return Ok(own.readonly().as_slice()?.to_vec());
            }
            b'u' => {
                let own = arr.call_method1("astype", ("uint64",))?;
                let own = own.cast::<PyArray1<u64>>().map_err(PyErr::from)?;
                let own = own.readonly();
                return own
                    .as_slice()?
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        i64::try_from(a).map_err(|_| {
                            exception(OutOfRange, format!("actions[{i}] = {a} is not an action id"))
                        })
                    })
                    .collect();
            }
            // An object array: its items are checked one by one, as a sequence's.
            b'O' => {}
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "actions must be integers, not a numpy array of {}",
                    dtype.str()?
                )));
            }
        }
    } else if actions.is_instance_of::<PyString>() || actions.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "actions must be a sequence of integers, not {}",
            actions.get_type().name()?
        )));
    }
    let integer = py.import("numpy")?.getattr("integer")?;
    let items = actions.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "actions must be a sequence or numpy array of integers, not {}",
            actions.get_type().name().map_or_else(|_| "that".to_owned(), |n| n.to_string())
        ))
    })?;
    let mut out = Vec::with_capacity(n);
    for (i, item) in items.enumerate() {
        if i == n {
            // Not read further: the sequence may be endless.
            return Err(match actions.len() {
                Ok(got) => err(junqi::VectorError::ActionCount { expected: n, got }),
                Err(_) => exception(OutOfRange, format!("more than {n} actions for {n} games")),
            });
        }
        let item = item?;
        let nested = item.is_instance_of::<PyList>()
            || item.is_instance_of::<PyTuple>()
            || item.cast::<PyUntypedArray>().is_ok();
        if nested {
            return Err(exception(OutOfRange, format!(
                "actions must be one-dimensional: actions[{i}] is a {}",
                item.get_type().name()?
            )));
        }
        let is_int = (item.is_instance_of::<PyInt>() && !item.is_instance_of::<PyBool>())
            || item.is_instance(&integer)?;
        if !is_int {
            return Err(PyTypeError::new_err(format!(
                "actions[{i}] is a {}, not an integer",
                item.get_type().name()?
            )));
        }
        out.push(item.extract::<i64>().map_err(|_| {
            exception(OutOfRange, format!("actions[{i}] = {item} is not an action id"))
        })?);
    }
    Ok(out)
}

/// ``n`` games of one rule set stepped together in Rust, with the GIL released: the
/// batched environment for reinforcement learning.
///
/// Every game is multi-agent: row ``i`` of each result belongs to game ``i``, whose
/// ``to_act[i]`` says which seat (index into ``rules.sides``) must choose the next
/// action; its mask and observation are that seat's own (observations are built from
/// the seat's beliefs, never from the referee's state). ``step(actions)`` plays one
/// action id in every game. A game that ends is restarted in the same step (its
/// rewards and ``terminated``/``truncated`` flags are reported, the mask and
/// observation returned are the new game's) and kept for ``finished()``.
///
/// ``n`` is 1 to 65 536 (``ValueError`` past it, before anything is allocated).
/// ``max_plies`` cuts games short (``truncated``) at that many plies; ``None`` or 0:
/// no limit (as in C). Games are seeded from ``seed``, their slot and episode: a run
/// is the same whatever the number of ``threads`` (default: every core, for batches
/// of 64 games or more). ``seed=None`` draws a random seed. ``model`` (``"shipped"``,
/// ``"plain"``, a model's JSON or an ``OpponentModel``) adds the ``modelled:<kind>``
/// planes to the observations (``RuleSet.observation_spec(modelled=True)``); they cost
/// more than the rest of an observation (docs/inference.md).
///
/// Finished games wait for ``finished()`` in a bounded queue: at most
/// ``finished_capacity`` (1 024, or ``n`` when more); past it the oldest are dropped
/// and counted in ``finished_dropped``, so an environment whose finished games are
/// never read does not grow.
///
/// Safe to share between Python threads: calls are serialised by an internal lock,
/// which is never held while waiting for the GIL.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct VectorEnv {
    inner: Mutex<junqi::VectorEnv>,
}

impl VectorEnv {
    fn lock(&self) -> MutexGuard<'_, junqi::VectorEnv> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A new array of `shape` that is not zeroed (`numpy.empty`): `reset` and `step` write
/// every element, so zeroing (or, for large arrays, fresh zero pages from the kernel at
/// every step) would only cost time.
fn empty<'py, T: numpy::Element>(
    np: &Bound<'py, PyModule>,
    shape: &[usize],
) -> PyResult<Bound<'py, numpy::PyArrayDyn<T>>> {
    let py = np.py();
    np.call_method1("empty", (PyTuple::new(py, shape)?, numpy::dtype::<T>(py)))?
        .cast_into::<numpy::PyArrayDyn<T>>()
        .map_err(|_| PyValueError::new_err("numpy.empty returned an unexpected array"))
}

#[pymethods]
impl VectorEnv {
    #[new]
    #[pyo3(
        signature = (rules=None, n=1, seed=None, *, observations=true, max_plies=None, threads=None, model=None),
        text_signature = "(rules='classic', n=1, seed=None, *, observations=True, max_plies=None, threads=None, model=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        n: usize,
        seed: Option<u64>,
        observations: bool,
        max_plies: Option<u32>,
        threads: Option<usize>,
        model: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<VectorEnv> {
        let rules = rules_arg(rules)?;
        let model = match model.filter(|m| !m.is_none()) {
            Some(m) => Some(crate::inference::model_arg(&rules, Some(m))?),
            None => None,
        };
        let threads =
            threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 {
            return Err(exception(OutOfRange, "threads must be at least 1"));
        }
        let seed = seed.unwrap_or_else(random_seed);
        let env = py
            .detach(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    junqi::VectorEnv::new(rules, n, seed).map(|e| {
                        e.with_observations(observations)
                            .with_model(model)
                            .with_max_plies(max_plies)
                            .with_threads(threads)
                    })
                }))
            })
            .map_err(|p| panic_err("starting the games failed", p))?
            .map_err(err)?;
        Ok(VectorEnv {
            inner: Mutex::new(env),
        })
    }

    /// The rule set.
    #[getter]
    fn rules(&self) -> RuleSet {
        RuleSet {
            inner: self.lock().rules().clone(),
        }
    }

    /// The number of games.
    #[getter]
    fn n(&self) -> usize {
        self.lock().len()
    }

    fn __len__(&self) -> usize {
        self.lock().len()
    }

    /// The seats of every game, in turn order (``to_act`` indexes this list; reward
    /// columns follow it).
    #[getter]
    fn seats(&self) -> Vec<Side> {
        self.lock()
            .rules()
            .sides()
            .iter()
            .map(|&s| s.into())
            .collect()
    }

    /// The size of the action space (the width of a mask row).
    #[getter]
    fn action_space(&self) -> usize {
        self.lock().action_space()
    }

    /// The shape of one observation, ``(channels, points)``; see
    /// ``RuleSet.observation_spec()`` (``modelled=True`` with a ``model``).
    #[getter]
    fn observation_shape(&self) -> (usize, usize) {
        let shape = self.lock().observation_shape();
        (shape[0], shape[1])
    }

    /// Whether ``reset`` and ``step`` return observations.
    #[getter]
    fn observes(&self) -> bool {
        self.lock().observes()
    }

    /// Restarts every game and returns ``(observations, masks, to_act)``:
    /// observations ``float32 [n, channels, points]`` (``None`` when the environment
    /// was made with ``observations=False``), masks ``bool [n, action_space]``, to_act
    /// ``int8 [n]``. With ``seed``, the environment is reseeded (episodes count from 0
    /// again), so the same seed gives the same games.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(&self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyTuple>> {
        // The lock is taken briefly here, and for the work itself only inside the
        // GIL-free region: never held while waiting for the GIL (no deadlock with a
        // thread that holds the GIL and waits for the lock).
        let (n, space, shape, observes) = {
            let env = self.lock();
            (env.len(), env.action_space(), env.observation_shape(), env.observes())
        };
        let np = py.import("numpy")?;
        let masks = empty::<bool>(&np, &[n, space])?;
        let to_act = empty::<i8>(&np, &[n])?;
        let obs = if observes { Some(empty::<f32>(&np, &[n, shape[0], shape[1]])?) } else { None };
        {
            let mut m = masks.try_readwrite()?;
            let mut t = to_act.try_readwrite()?;
            let (m, t) = (m.as_slice_mut()?, t.as_slice_mut()?);
            match &obs {
                Some(o) => {
                    let mut o = o.try_readwrite()?;
                    let o = o.as_slice_mut()?;
                    py.detach(|| {
                        catch_unwind(AssertUnwindSafe(|| self.lock().reset_observing(seed, o, m, t)))
                    })
                    .map_err(|p| panic_err("reset failed", p))?;
                }
                None => {
                    py.detach(|| catch_unwind(AssertUnwindSafe(|| self.lock().reset(seed, m, t))))
                        .map_err(|p| panic_err("reset failed", p))?;
                }
            }
        }
        let obs = match obs {
            Some(o) => o.into_any(),
            None => py.None().into_bound(py),
        };
        PyTuple::new(py, [obs, masks.into_any(), to_act.into_any()])
    }

    /// Plays ``actions[i]`` (an action id; a sequence of ``int`` or a one-dimensional
    /// numpy array of an integer dtype, of length ``n``: floats, bools, strings are
    /// refused with ``TypeError``) in every game ``i`` and returns ``(observations,
    /// masks, rewards, terminated, truncated, to_act)``: rewards ``float32 [n, seats]`` (+1 to each
    /// seat of the winning side or team, −1 to the others, 0 for a draw and while a
    /// game goes on), terminated and truncated ``bool [n]`` (the game ended by the
    /// rules, or reached ``max_plies``; it has been restarted), the rest as in
    /// ``reset``. An illegal action raises ``IllegalMoveError`` naming the game, and no
    /// game is changed. The actions are copied before they are checked: a step plays
    /// exactly what was checked, even if another thread rewrites the array meanwhile.
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let np = py.import("numpy")?;
        // As in `reset`: the lock is never held while waiting for the GIL (nor while
        // the caller's sequence is read: that may run Python code).
        let (n, space, seats, shape, observes) = {
            let env = self.lock();
            let shape = env.observation_shape();
            (env.len(), env.action_space(), env.seats(), shape, env.observes())
        };
        let actions = actions_arg(actions, n)?;
        if actions.len() != n {
            return Err(err(junqi::VectorError::ActionCount {
                expected: n,
                got: actions.len(),
            }));
        }
        let masks = empty::<bool>(&np, &[n, space])?;
        let rewards = empty::<f32>(&np, &[n, seats])?;
        let terminated = empty::<bool>(&np, &[n])?;
        let truncated = empty::<bool>(&np, &[n])?;
        let to_act = empty::<i8>(&np, &[n])?;
        let obs = if observes { Some(empty::<f32>(&np, &[n, shape[0], shape[1]])?) } else { None };
        {
            let mut m = masks.try_readwrite()?;
            let mut r = rewards.try_readwrite()?;
            let mut te = terminated.try_readwrite()?;
            let mut tr = truncated.try_readwrite()?;
            let mut ta = to_act.try_readwrite()?;
            let mut o = match &obs {
                Some(o) => Some(o.try_readwrite()?),
                None => None,
            };
            let out = junqi::StepOutput {
                observations: match o.as_mut() {
                    Some(o) => Some(o.as_slice_mut()?),
                    None => None,
                },
                masks: m.as_slice_mut()?,
                rewards: r.as_slice_mut()?,
                terminated: te.as_slice_mut()?,
                truncated: tr.as_slice_mut()?,
                to_act: ta.as_slice_mut()?,
            };
            py.detach(|| catch_unwind(AssertUnwindSafe(|| self.lock().step(&actions, out))))
                .map_err(|p| panic_err("step failed", p))?
                .map_err(err)?;
        }
        let obs = match obs {
            Some(o) => o.into_any(),
            None => py.None().into_bound(py),
        };
        PyTuple::new(
            py,
            [
                obs,
                masks.into_any(),
                rewards.into_any(),
                terminated.into_any(),
                truncated.into_any(),
                to_act.into_any(),
            ],
        )
    }

    /// The legal action ids of the seat to act in game ``i``, ascending, as an
    /// ``int64`` numpy array.
    fn legal_action_ids<'py>(
        &self,
        py: Python<'py>,
        i: usize,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let ids: Vec<i64> = {
            let env = self.lock();
            check_index(&env, i)?;
            env.legal_action_ids(i).iter().map(|&a| a as i64).collect()
        };
        Ok(PyArray1::from_vec(py, ids))
    }

    /// A uniformly random legal action id for every game (``int64 [n]``), drawn in
    /// Rust from the environment's own generator (seeded from its seed): a random
    /// player, or exploration, without a Python loop over the masks.
    fn random_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        // Never call into Python (which may run other threads' code) while holding the
        // lock: draw under it, make the array after.
        let actions = {
            let mut env = self.lock();
            let mut actions = vec![0i64; env.len()];
            env.random_actions(&mut actions);
            actions
        };
        PyArray1::from_vec(py, actions)
    }

    /// Game ``i`` as it stands, as an independent ``Game`` (the referee's whole state:
    /// for inspection and tools, not for a player).
    fn game(&self, i: usize) -> PyResult<Game> {
        let env = self.lock();
        check_index(&env, i)?;
        Ok(Game::wrap(env.game(i).clone()))
    }

    /// The number of finished games waiting for ``finished()``.
    #[getter]
    fn finished_len(&self) -> usize {
        self.lock().finished_len()
    }

    /// The most finished games kept waiting: 1 024, or ``n`` when that is more (one
    /// step's games always fit). Past it the oldest waiting games are dropped.
    #[getter]
    fn finished_capacity(&self) -> usize {
        self.lock().finished_capacity()
    }

    /// How many finished games were dropped unread from the full queue since the
    /// environment was made.
    #[getter]
    fn finished_dropped(&self) -> u64 {
        self.lock().finished_dropped()
    }

    /// The games that ended (or were cut short) since the last call, oldest first (at
    /// most ``finished_capacity``: the newest, see ``finished_dropped``).
    fn finished(&self) -> Vec<FinishedGame> {
        self.lock()
            .take_finished()
            .into_iter()
            .map(|f| FinishedGame {
                env: f.env,
                episode: f.episode,
                truncated: f.truncated,
                game: Arc::new(f.game),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        let env = self.lock();
        format!(
            "<VectorEnv {:?} n={} observations={}>",
            env.rules().name(),
            env.len(),
            if env.observes() { "True" } else { "False" }
        )
    }
}

fn check_index(env: &junqi::VectorEnv, i: usize) -> PyResult<()> {
    if i < env.len() {
        Ok(())
    } else {
        Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "game {i} is outside 0..{}",
            env.len()
        )))
    }
}

/// A game that ended (or was cut short) in a ``VectorEnv``.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct FinishedGame {
    env: usize,
    episode: u64,
    truncated: bool,
    game: Arc<junqi::Game>,
}

#[pymethods]
impl FinishedGame {
    /// The slot (game index) it was played in.
    #[getter]
    fn env(&self) -> usize {
        self.env
    }

    /// Its episode number within the slot (0 for the slot's first game).
    #[getter]
    fn episode(&self) -> u64 {
        self.episode
    }

    /// Whether it was cut short at ``max_plies`` (then ``result`` is None).
    #[getter]
    fn truncated(&self) -> bool {
        self.truncated
    }

    /// How it ended (None when cut short).
    #[getter]
    fn result(&self) -> Option<GameResult> {
        self.game.result().map(|inner| GameResult { inner })
    }

    /// The number of plies played.
    #[getter]
    fn plies(&self) -> u32 {
        self.game.position().ply()
    }

    /// The full record as JSON text (replays with ``Game.from_record``).
    fn record(&self, py: Python<'_>) -> String {
        let g = self.game.clone();
        py.detach(move || g.record().to_json())
    }

    /// The game as a ``Game`` (an independent copy).
    fn game(&self) -> Game {
        Game::wrap((*self.game).clone())
    }

    fn __repr__(&self) -> String {
        let how = match self.game.result() {
            Some(r) => junqi::describe_result(&r),
            None => "cut short".to_owned(),
        };
        format!(
            "<FinishedGame env={} episode={} plies={}: {how}>",
            self.env,
            self.episode,
            self.game.position().ply()
        )
    }
}
