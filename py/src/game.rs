//! `Game`: a refereed game, and `Action`.
//!
//! Thread safety: a `Game` is a frozen Python object around a `Mutex`; every method
//! takes the lock for the duration of its Rust work, so calls from several threads on
//! one game are serialised (each call is atomic) and never fail with "already
//! borrowed". The lock is never held while Python code runs or while waiting for the
//! GIL, so it cannot deadlock with the GIL. Long calls (replaying a record) release the
//! GIL.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};

use crate::board::Board;
use crate::enums::{side_arg, Phase, PieceKind, Side};
use crate::errors::{err, exception, panic_err};
use crate::report::{Event, GameResult, Report, View};
use crate::rules::{rules_arg, RuleSet};

/// An action of the side to act: a move ``from_`` → ``to``, or (翻棋) a flip of the
/// piece on ``from_`` (then ``to == from_`` and ``is_flip``); its notation and its id
/// in the rule set's fixed action space. (``Move`` is its name of development
/// versions, kept for one release.)
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Action {
    from: String,
    to: String,
    flip: bool,
    notation: String,
    id: Option<usize>,
}

impl Action {
    pub(crate) fn of(action: junqi::Action, rules: &junqi::RuleSet) -> Action {
        let board = rules.board();
        let (from, to) = action.endpoints();
        Action {
            from: board.name_of(from).to_owned(),
            to: board.name_of(to).to_owned(),
            flip: action.is_flip(),
            notation: action.to_notation(board),
            id: action.id(rules),
        }
    }

    fn notation_str(&self) -> String {
        self.notation.clone()
    }
}

#[pymethods]
impl Action {
    /// The start point.
    #[getter]
    fn from_(&self) -> &str {
        &self.from
    }

    /// The target point (an empty point, or an enemy piece to attack).
    #[getter]
    fn to(&self) -> &str {
        &self.to
    }

    /// The action's id in the rule set's fixed action space.
    #[getter]
    fn id(&self) -> Option<usize> {
        self.id
    }

    /// Whether the action turns a face-down piece face up (翻棋) rather than moving.
    #[getter]
    fn is_flip(&self) -> bool {
        self.flip
    }

    /// The action in notation, e.g. ``"a2-a6"``, ``"flip c3"``.
    #[getter]
    fn notation(&self) -> String {
        self.notation_str()
    }

    fn __str__(&self) -> String {
        self.notation_str()
    }

    fn __repr__(&self) -> String {
        format!("Action({:?}, id={})", self.notation_str(), self.id.map_or("None".into(), |i| i.to_string()))
    }
}

/// Warns that a name of development versions is deprecated (a `DeprecationWarning`).
pub(crate) fn deprecated(py: Python<'_>, old: &str, new: &str) -> PyResult<()> {
    let message = std::ffi::CString::new(format!("{old} is deprecated: use {new}")).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyDeprecationWarning>(), &message, 1)
}

/// Refuses a side that does not play in the game's rule set: `IllegalMoveError`, the
/// class `resign` and every other call give for a side that is not in the game (the
/// core's `PlayError::NotPlaying`, the C API's `JUNQI_STATUS_SIDE_NOT_IN_GAME`).
fn playing(g: &junqi::Game, side: junqi::Side) -> PyResult<()> {
    if g.rules().sides().contains(&side) {
        Ok(())
    } else {
        Err(err(junqi::GameError::Play(junqi::PlayError::NotPlaying(side))))
    }
}

/// An action argument, read before the game's lock is taken.
enum ActionArg {
    Text(String),
    Id(i64),
}

fn action_arg(obj: &Bound<'_, PyAny>) -> PyResult<ActionArg> {
    if let Ok(m) = obj.cast::<Action>() {
        return Ok(ActionArg::Text(m.get().notation_str()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(ActionArg::Text(s.to_cow()?.into_owned()));
    }
    if !obj.is_instance_of::<pyo3::types::PyBool>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(ActionArg::Id(i));
        }
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "an action is an Action, notation such as \"a2-a6\", or an action id, not {}",
        obj.get_type().name()?
    )))
}

fn play_index(game: &mut junqi::Game, index: i64) -> Result<junqi::Report, PyErr> {
    let size = game.rules().action_space();
    let Ok(i) = usize::try_from(index) else {
        return Err(exception(junqi::ErrorKind::OutOfRange, format!(
            "action id {index} is outside the action space (0..{size})"
        )));
    };
    game.play_id(i).map_err(err)
}

/// A setup argument: a dict {point: kind} or JSON text.
fn setup_arg(obj: &Bound<'_, PyAny>) -> PyResult<junqi::Setup> {
    if let Ok(s) = obj.cast::<PyString>() {
        return junqi::Setup::from_json(&s.to_cow()?).map_err(err);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut setup = junqi::Setup::new();
        for (k, v) in d.iter() {
            let point: String = k.extract().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err("setup keys must be point names (str)")
            })?;
            let kind = if let Ok(k) = v.cast::<PieceKind>() {
                k.get().id_str().to_owned()
            } else if let Ok(s) = v.cast::<PyString>() {
                s.to_cow()?.into_owned()
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "setup values must be piece kinds (PieceKind or str)",
                ));
            };
            setup.place(point, kind);
        }
        return Ok(setup);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "a setup is a dict {{point: kind}} or JSON text, not {}",
        obj.get_type().name()?
    )))
}

/// Record text from a str, bytes or dict argument.
fn record_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if obj.is_instance_of::<PyDict>() {
        return obj.py().import("json")?.call_method1("dumps", (obj,))?.extract();
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "a record is JSON text or a dict, not {}",
        obj.get_type().name()?
    )))
}

fn replay(py: Python<'_>, text: &str) -> PyResult<junqi::Game> {
    py.detach(|| {
        let record = junqi::Record::from_json(text)?;
        junqi::Game::from_record(&record)
    })
    .map_err(err)
}

/// A seed for `seed=None`: from the operating system's random source (a referee's
/// seed is a secret).
pub fn random_seed() -> u64 {
    junqi::random_seed()
}

/// A refereed game: the full state, each player's event log, and the record.
///
/// ``Game(rules="classic", seed=None)``: ``rules`` is a preset name, rule-set JSON
/// text (e.g. ``'{"extends": "classic", "name": "mine", "options": {...}}'``), a dict, or a
/// ``RuleSet``; ``seed=None`` takes a fresh seed from the operating system, kept in
/// the record. A referee's seed is a secret (it gives away the 翻棋 deal and the random
/// setups): pass a seed only for reproducible research.
///
/// Safe to share between threads: calls are serialised by an internal lock.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct Game {
    inner: Mutex<junqi::Game>,
    /// The legal action ids as a Python list, with the game's record length when they
    /// were worked out: repeated calls in one position copy the list instead of
    /// generating the actions again.
    legal_ids: Mutex<Option<(usize, Py<PyList>)>>,
}

impl Game {
    pub(crate) fn lock(&self) -> MutexGuard<'_, junqi::Game> {
        // The core checks every action before it changes anything, so only a core bug
        // can panic while the lock is held (pyo3 raises it as PanicException). Keep
        // the game usable afterwards rather than failing every later call.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn wrap(game: junqi::Game) -> Game {
        Game { inner: Mutex::new(game), legal_ids: Mutex::new(None) }
    }

    fn report(&self, r: junqi::Report, board: Arc<junqi::Board>) -> Report {
        Report { inner: r, board }
    }

    fn board_arc(game: &junqi::Game) -> Arc<junqi::Board> {
        game.rules().board().clone()
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules=None, seed=None), text_signature = "(rules='classic', seed=None)")]
    fn py_new(rules: Option<&Bound<'_, PyAny>>, seed: Option<u64>) -> PyResult<Game> {
        let rules = rules_arg(rules)?;
        Ok(Game::wrap(junqi::Game::with_rules(rules, seed.unwrap_or_else(random_seed))))
    }

    /// The seeded start of ``seed``: the seed's deal in a rule set that deals (翻棋),
    /// else every side deployed at random from the seed — the same game as Rust's
    /// ``Game::random_start``, C's ``junqi_game_random_start``, JavaScript's
    /// ``Game.randomStart`` and each game of a ``VectorEnv`` with that seed.
    /// ``seed=None`` draws one (``game.seed`` tells which).
    #[classmethod]
    #[pyo3(signature = (rules=None, seed=None), text_signature = "(rules='classic', seed=None)")]
    fn random_start(_cls: &Bound<'_, PyType>, rules: Option<&Bound<'_, PyAny>>, seed: Option<u64>) -> PyResult<Game> {
        let rules = rules_arg(rules)?;
        let seed = seed.unwrap_or_else(random_seed);
        let game = catch_unwind(AssertUnwindSafe(|| junqi::Game::random_start(rules, seed)))
            .map_err(|p| panic_err("no random setup exists for this rule set", p))?
            .map_err(err)?;
        Ok(Game::wrap(game))
    }

    /// Replays a full record (JSON text or a dict, as made by ``record()``).
    #[classmethod]
    fn from_record(_cls: &Bound<'_, PyType>, record: &Bound<'_, PyAny>) -> PyResult<Game> {
        let text = record_text(record)?;
        Ok(Game::wrap(replay(record.py(), &text)?))
    }

    /// The rule set.
    #[getter]
    fn rules(&self) -> RuleSet {
        RuleSet { inner: self.lock().rules().clone() }
    }

    /// The board.
    #[getter]
    fn board(&self) -> Board {
        Board { inner: Game::board_arc(&self.lock()) }
    }

    /// The game's seed (kept in the record). Referee-only: the seed rebuilds the 翻棋
    /// deal and the default ``deploy_random`` setups, so never show it to a player.
    #[getter]
    fn seed(&self) -> u64 {
        self.lock().seed()
    }

    /// The phase: deploy, move, reaction (a submarine that evaded must step away first;
    /// ``to_act`` names its owner) or over.
    #[getter]
    fn phase(&self) -> Phase {
        self.lock().phase().into()
    }

    /// The side to act (during deployment: the first side that has not deployed; in the
    /// reaction phase the player who must step its submarine away, who may not be the
    /// side that just moved);
    /// None once the game is over.
    #[getter]
    fn to_act(&self) -> Option<Side> {
        self.lock().to_act().map(Into::into)
    }

    /// Plies played since deployment.
    #[getter]
    fn ply(&self) -> u32 {
        self.lock().position().ply()
    }

    /// Plies in a row without a piece leaving the board (the game is drawn when they
    /// reach the rule set's ``no_capture_draw_plies``).
    #[getter]
    fn no_capture_plies(&self) -> u32 {
        self.lock().position().no_capture_plies()
    }

    /// ``no_capture_plies`` under its name of development versions (deprecated).
    #[getter]
    fn quiet_plies(&self, py: Python<'_>) -> PyResult<u32> {
        deprecated(py, "Game.quiet_plies", "Game.no_capture_plies")?;
        Ok(self.no_capture_plies())
    }

    /// The result, once the game is over; else None.
    #[getter]
    fn result(&self) -> Option<GameResult> {
        self.lock().result().map(|inner| GameResult { inner })
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.lock().phase() == junqi::Phase::Over
    }

    /// The sides that have deployed.
    #[getter]
    fn deployed(&self) -> Vec<Side> {
        self.lock().deployed().iter().map(Into::into).collect()
    }

    /// Size of the rule set's fixed action space.
    #[getter]
    fn action_space(&self) -> usize {
        self.lock().rules().action_space()
    }

    /// Deploys ``side`` from a setup: a dict ``{point: kind}`` (kinds as ``PieceKind``,
    /// ids or Chinese names) or JSON text. Raises ``SetupError`` for an illegal setup.
    fn deploy(&self, side: &Bound<'_, PyAny>, setup: &Bound<'_, PyAny>) -> PyResult<Report> {
        let side = side_arg(side)?;
        let setup = setup_arg(setup)?;
        let mut g = self.lock();
        let r = g.deploy(side, &setup).map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// Deploys a random legal setup for ``side``; the same seed gives the same setup.
    /// ``seed=None`` deploys the side's setup of the seeded start of the game's seed
    /// (``Game.random_start``), so deploying every side so gives that game.
    #[pyo3(signature = (side, seed=None))]
    fn deploy_random(&self, side: &Bound<'_, PyAny>, seed: Option<u64>) -> PyResult<Report> {
        let side = side_arg(side)?;
        let mut g = self.lock();
        let r = catch_unwind(AssertUnwindSafe(|| match seed {
            Some(seed) => g.deploy_random(side, seed),
            None => g.deploy_start(side),
        }))
            .map_err(|p| panic_err("no random setup exists for this rule set", p))?
            .map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// The legal actions of the side to act, in a fixed order (empty unless moving or
    /// reacting).
    fn legal_actions(&self) -> Vec<Action> {
        let g = self.lock();
        let rules = g.rules().clone();
        g.legal_actions().into_iter().map(|a| Action::of(a, &rules)).collect()
    }

    /// ``legal_actions`` under its name of development versions (deprecated).
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Vec<Action>> {
        deprecated(py, "Game.legal_moves", "Game.legal_actions")?;
        Ok(self.legal_actions())
    }

    /// The ids of the legal actions in the fixed action space, ascending (a new list
    /// each call; worked out once per position).
    fn legal_action_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        // No Python call while a lock is held (Python may switch to a thread that waits
        // for the lock with the GIL held): read under the locks, build lists after.
        let (stamp, ids) = {
            let g = self.lock();
            let stamp = g.record_len();
            let cache = self.legal_ids.lock().unwrap_or_else(|e| e.into_inner());
            match cache.as_ref() {
                Some((s, list)) if *s == stamp => (stamp, Err(list.clone_ref(py))),
                _ => (stamp, Ok(g.legal_action_ids())),
            }
        };
        let list = match ids {
            Err(cached) => cached.into_bound(py),
            Ok(ids) => {
                let list = PyList::new(py, ids)?;
                let old = self
                    .legal_ids
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .replace((stamp, list.clone().unbind()));
                drop(old);
                list
            }
        };
        Ok(list.get_slice(0, list.len()))
    }

    /// A numpy ``bool`` array of ``action_space`` flags: True where the action is
    /// legal now.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<bool>> {
        numpy::PyArray1::from_vec(py, self.lock().action_mask())
    }

    /// Whether an action (an ``Action``, notation or an action id) is legal now.
    fn is_legal(&self, action: &Bound<'_, PyAny>) -> PyResult<bool> {
        let arg = action_arg(action)?;
        let g = self.lock();
        let action = match arg {
            ActionArg::Text(t) => junqi::Action::parse(g.board(), &t).ok(),
            ActionArg::Id(i) => usize::try_from(i).ok().and_then(|i| junqi::Action::from_id(g.rules(), i).ok()),
        };
        Ok(action.is_some_and(|a| g.position().is_legal(a)))
    }

    /// Parses notation (``"a2-a6"``, ``"flip c3"``) into an ``Action`` of this game's
    /// board. Does not check legality.
    fn parse_action(&self, notation: &str) -> PyResult<Action> {
        let g = self.lock();
        let a = junqi::Action::parse(g.board(), notation).map_err(err)?;
        Ok(Action::of(a, g.rules()))
    }

    /// ``parse_action`` under its name of development versions (deprecated).
    fn parse_move(&self, py: Python<'_>, notation: &str) -> PyResult<Action> {
        deprecated(py, "Game.parse_move", "Game.parse_action")?;
        self.parse_action(notation)
    }

    /// Plays an action of the side to act: an ``Action``, notation such as
    /// ``"a2-a6"``, or an action id. Raises an ``IllegalActionError`` (the game is
    /// unchanged), ``NotationError``, ``UnknownNameError`` or ``OutOfRangeError``.
    fn play(&self, action: &Bound<'_, PyAny>) -> PyResult<Report> {
        let arg = action_arg(action)?;
        let mut g = self.lock();
        let r = match arg {
            ActionArg::Text(t) => g.play_notation(&t).map_err(err)?,
            ActionArg::Id(i) => play_index(&mut g, i)?,
        };
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// Plays the action with id ``id`` in the fixed action space.
    fn play_id(&self, id: i64) -> PyResult<Report> {
        let mut g = self.lock();
        let r = play_index(&mut g, id)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// Plays an action on behalf of ``side``, refusing it if ``side`` is not to act.
    fn play_as(&self, side: &Bound<'_, PyAny>, action: &Bound<'_, PyAny>) -> PyResult<Report> {
        let side = side_arg(side)?;
        let arg = action_arg(action)?;
        let mut g = self.lock();
        let action = match arg {
            ActionArg::Text(t) => junqi::Action::parse(g.board(), &t).map_err(err)?,
            ActionArg::Id(i) => {
                let size = g.rules().action_space();
                usize::try_from(i)
                    .ok()
                    .and_then(|i| junqi::Action::from_id(g.rules(), i).ok())
                    .ok_or_else(|| {
                        exception(junqi::ErrorKind::OutOfRange, format!(
                            "action id {i} is outside the action space (0..{size})"
                        ))
                    })?
            }
        };
        let r = g.play_as(side, action).map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// ``side`` resigns and is out: in a two-sided game the other side wins; with teams
    /// (siguo) its pieces leave the board and play goes on until one team is left.
    fn resign(&self, side: &Bound<'_, PyAny>) -> PyResult<Report> {
        let side = side_arg(side)?;
        let mut g = self.lock();
        let r = g.resign(side).map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// ``side`` leaves the game (an escape, docs/sources.md#qq-escape): the game ends at once
    /// with reason ``EndReason.ESCAPE``. With no partner of the escaper still in, the
    /// other side (team) wins; with one still in, nobody wins and nobody scores.
    fn escape(&self, side: &Bound<'_, PyAny>) -> PyResult<Report> {
        let side = side_arg(side)?;
        let mut g = self.lock();
        let r = g.escape(side).map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// Scores the finished game on the QQ platform: ``points`` is ``{side: points}``
    /// for every side, ``ratings`` an optional ``{side: rating}``. One ``SeatScore``
    /// per seat, in the order of ``points`` (see docs/platform.md).
    #[pyo3(signature = (points, ratings=None))]
    fn platform_score(
        &self,
        points: &Bound<'_, pyo3::types::PyDict>,
        ratings: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Vec<crate::platform::SeatScore>> {
        let seats = crate::platform::seats_arg(points, ratings)?;
        let g = self.lock();
        crate::platform::score_game(&g, &seats)
    }

    /// The referee's time-out for the side to act (a player who ran out of time): the
    /// turn passes; with the ``max_timeouts`` option the side is out after that many.
    fn time_out(&self) -> PyResult<Report> {
        let mut g = self.lock();
        let r = g.time_out().map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// How many time-outs ``side`` has had.
    fn timeouts(&self, side: &Bound<'_, PyAny>) -> PyResult<u8> {
        let side = side_arg(side)?;
        let g = self.lock();
        playing(&g, side)?;
        Ok(g.position().timeouts(side))
    }

    /// The point of the plane ``player`` must move away (海陆空三军棋), e.g. ``"e12^"``,
    /// or None: a plane whose attack was repelled — a recon that scouted and survived,
    /// a fighter against a trap — must move away on its owner's next turn if it can;
    /// until it has, that player's legal moves are the plane's moves only. Depends only
    /// on what ``player`` knows.
    fn obligation(&self, player: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(g.position().obligation(player).map(|p| g.board().name_of(p).to_owned()))
    }

    /// The sides that are out of a game that goes on (resigned, flag lost, time-outs).
    #[getter]
    fn eliminated(&self) -> Vec<Side> {
        self.lock().position().eliminated().iter().map(Into::into).collect()
    }

    /// The players agree to a draw.
    fn agree_draw(&self) -> PyResult<Report> {
        let mut g = self.lock();
        let r = g.agree_draw().map_err(err)?;
        Ok(self.report(r, Game::board_arc(&g)))
    }

    /// One player's information set (its pieces, enemy pieces without their kinds
    /// unless shown, its event log).
    fn view(&self, player: &Bound<'_, PyAny>) -> PyResult<View> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(View { inner: g.view(player), rules: g.rules().clone() })
    }

    /// What ``player`` sees once the game is over: its view with every piece's owner
    /// and kind shown (the board turned up at the end); before the end, ``view``.
    fn end_view(&self, player: &Bound<'_, PyAny>) -> PyResult<View> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(View { inner: g.end_view(player), rules: g.rules().clone() })
    }

    /// The public view, what a spectator may see: every piece where it stands with
    /// what every seat knows of it, and only the events every seat was told. Its
    /// ``player`` is the first seat and its ``army`` is None.
    fn public_view(&self) -> View {
        let g = self.lock();
        View { inner: g.public_view(), rules: g.rules().clone() }
    }

    /// What ``player`` may deduce: for every piece it cannot see, the kinds it may
    /// still be (see ``Beliefs``). Built from the player's own information only.
    fn beliefs(&self, player: &Bound<'_, PyAny>) -> PyResult<crate::inference::Beliefs> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(crate::inference::Beliefs { inner: g.beliefs(player), board: Game::board_arc(&g) })
    }

    /// A game drawn from what ``player`` knows: every piece it cannot see gets an
    /// identity drawn from its beliefs (determinization for search), the same for the
    /// same seed. The sampled game's record need not replay.
    fn determinize(&self, player: &Bound<'_, PyAny>, seed: u64) -> PyResult<Game> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(Game::wrap(g.determinize(player, seed)))
    }

    /// ``player``'s observation tensor: a numpy float32 array ``[channels, points]``
    /// (``RuleSet.observation_spec()``), from the player's seat. With ``out`` (a
    /// float32 array of that size), fills it instead of allocating. With ``model``
    /// (``"shipped"``, ``"plain"``, a model's JSON or an ``OpponentModel``, as for
    /// ``Beliefs.probabilities``), the ``modelled:<kind>`` planes follow the others:
    /// each other piece's probability of every kind under that model
    /// (``RuleSet.observation_spec(modelled=True)``).
    #[pyo3(signature = (player, out=None, model=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        model: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        let mut observer = junqi::Observer::new(g.rules().clone(), player);
        if let Some(m) = model.filter(|m| !m.is_none()) {
            observer = observer.with_model(crate::inference::model_arg(g.rules(), Some(m))?);
        }
        let shape = observer.spec().shape();
        let beliefs = g.beliefs(player);
        let turn = g.turn();
        crate::inference::fill(py, &shape, out, |buf| {
            observer.encode(&beliefs, turn, buf);
            Ok(())
        })
    }

    /// A player's event log: the public events and its own private ones.
    fn events(&self, player: &Bound<'_, PyAny>) -> PyResult<Vec<Event>> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        let board = Game::board_arc(&g);
        Ok(g.events(player).iter().map(|e| Event::new(*e, &board)).collect())
    }

    /// ``player``'s event log in words from its side (the core's narrator, as the web
    /// page's log and the terminal game tell it): "you moved your 师长 d2-d3", "your 司令
    /// on c6 was taken by north's piece from c7", "you lose: north captured your flag".
    /// It names only pieces the player knows. ``language`` is a BCP 47 tag: Chinese
    /// for ``"zh"``, ``"zh-CN"``, …, English otherwise (the default, ``"en"``).
    #[pyo3(signature = (player, language = "en"))]
    fn narrate(&self, player: &Bound<'_, PyAny>, language: &str) -> PyResult<Vec<String>> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(g.narrate(player, junqi::referee::narrate::Language::from_tag(language)))
    }

    /// The full record as JSON text: rule set, seed, setups and every action. It
    /// replays to the identical state with ``Game.from_record``.
    fn record(&self, py: Python<'_>) -> String {
        py.detach(|| self.lock().record().to_json())
    }

    /// What ``player`` saw of the game, as JSON text: its own setup and its event log
    /// (never the other armies).
    fn player_record(&self, player: &Bound<'_, PyAny>) -> PyResult<String> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(g.player_record(player).to_json())
    }

    /// The position as one line of text, every identity told (REFEREE knowledge; see
    /// docs/position-strings.md). Give a player ``view_string`` instead.
    fn position_string(&self) -> String {
        self.lock().position_string()
    }

    /// What ``player`` sees now as one line of text: identities it has not seen are
    /// written as unknown. Safe to give to that player.
    fn view_string(&self, player: &Bound<'_, PyAny>) -> PyResult<String> {
        let player = side_arg(player)?;
        let g = self.lock();
        playing(&g, player)?;
        Ok(g.view_string(player))
    }

    /// A game starting from a position string (or a view string, whose unknown pieces
    /// get stand-ins). It has no log before the position; its record starts with the
    /// string. Raises ``PositionStringError`` naming what is wrong.
    #[classmethod]
    #[pyo3(signature = (text, seed = None))]
    fn from_position_string(_cls: &Bound<'_, PyType>, text: &str, seed: Option<u64>) -> PyResult<Game> {
        Ok(Game::wrap(crate::position_string::game_from(text, seed.unwrap_or_else(random_seed))?))
    }

    /// The board as the referee sees it (every identity): for debugging and tools,
    /// never for a player.
    fn render_full(&self) -> String {
        let g = self.lock();
        // A view of every piece, with every identity, rendered from South's seat.
        let pieces = g
            .position()
            .pieces()
            .map(|(point, owner, kind)| junqi::SeenPiece { point, owner: Some(owner), kind: Some(kind), arm: kind.arm() })
            .collect();
        let mut v = g.view(junqi::Side::South);
        v.pieces = pieces;
        v.render(g.board())
    }

    /// Whether two games hold the same pieces, knowledge, turn and counters.
    fn same_state(&self, other: &Bound<'_, Game>) -> bool {
        let theirs = other.get().lock().position().clone();
        self.lock().position().same_state(&theirs)
    }

    /// An independent copy of the game.
    fn copy(&self) -> Game {
        Game::wrap(self.lock().clone())
    }

    fn __copy__(&self) -> Game {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        self.copy()
    }

    fn __getstate__(&self, py: Python<'_>) -> String {
        self.record(py)
    }

    fn __setstate__(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let text = record_text(state)?;
        let game = replay(py, &text)?;
        let old = {
            let mut g = self.lock();
            *g = game;
            // Another game, possibly with a record of the same length: forget the cache.
            self.legal_ids.lock().unwrap_or_else(|e| e.into_inner()).take()
        };
        drop(old);
        Ok(())
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyType>, Bound<'py, PyTuple>, String)> {
        Ok((py.get_type::<Game>(), PyTuple::empty(py), self.record(py)))
    }

    fn __repr__(&self) -> String {
        let g = self.lock();
        let state = match g.result() {
            Some(r) => format!("over: {}", junqi::describe_result(&r)),
            None => format!(
                "{} ply={} to_act={}",
                Phase::from(g.phase()).id_str(),
                g.position().ply(),
                g.to_act().map_or("None".to_owned(), |s| s.to_string())
            ),
        };
        // No seed here: it rebuilds every hidden identity (see ``Game.seed``).
        format!("<Game {:?} {}>", g.rules().name(), state)
    }
}

/// Observations of many games at once: a numpy float32 array ``[N, channels,
/// points]``, item ``i`` being ``games[i].observation(players[i])``. All games must
/// share a rule set and its board (else ``ValueError``). With ``out`` (a
/// C-contiguous float32 array of that size), fills it instead.
#[pyfunction]
#[pyo3(signature = (games, players, out=None))]
pub fn observations<'py>(
    py: Python<'py>,
    games: Vec<Bound<'py, Game>>,
    players: Vec<Bound<'py, PyAny>>,
    out: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if games.len() != players.len() {
        return Err(exception(junqi::ErrorKind::OutOfRange, format!("{} games but {} players", games.len(), players.len())));
    }
    let players = players.iter().map(side_arg).collect::<PyResult<Vec<_>>>()?;
    let Some(first) = games.first() else {
        return Err(exception(junqi::ErrorKind::OutOfRange, "no games given"));
    };
    let rules = first.get().lock().rules().clone();
    let mut items = Vec::with_capacity(games.len());
    for (i, (g, p)) in games.iter().zip(&players).enumerate() {
        let g = g.get().lock();
        if !g.rules().same_as(&rules) {
            let what = if g.rules().spec() == rules.spec() { "board" } else { "rule set" };
            return Err(exception(junqi::ErrorKind::WrongGame, format!(
                "game {i} has another {what} than game 0 ({} on {}, not {} on {}): observations of one call share a rule set and board",
                g.rules().name(),
                g.rules().board().name(),
                rules.name(),
                rules.board().name()
            )));
        }
        playing(&g, *p)?;
        items.push((g.beliefs(*p), g.turn()));
    }
    let spec = rules.observation_spec();
    let shape = [games.len(), spec.channels.len(), spec.points];
    crate::inference::fill(py, &shape, out, |buf| {
        let mut observers: Vec<Option<junqi::Observer>> = vec![None; 4];
        let len = spec.len();
        for (i, ((b, t), p)) in items.iter().zip(&players).enumerate() {
            let o = observers[*p as usize].get_or_insert_with(|| junqi::Observer::new(rules.clone(), *p));
            o.encode(b, *t, &mut buf[i * len..(i + 1) * len]);
        }
        Ok(())
    })
}
