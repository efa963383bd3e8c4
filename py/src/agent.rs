//! `Agent`: a player run by the engine (`"random"`, `"greedy"`, `"search:3"`, …) that
//! chooses from one side's information alone.
//!
//! The caller hands an agent a `Game` and a side; the agent is given only that side's
//! information state (`junqi::Game::info_state`), never the game. Thinking runs with
//! the GIL released and without the game's lock: the game's lock is taken to read the
//! information state and again to play the choice, which is refused if the game
//! changed in between.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use crate::enums::side_arg;
use crate::errors::{err, exception, panic_err};
use crate::game::{random_seed, Action, Game};
use crate::report::Report;

/// A player run by the engine, made from its name:
///
/// - ``"random"``: uniform among the legal actions;
/// - ``"greedy"``: one ply ahead with an evaluation that reads the beliefs, and
///   setups that follow the game's principles;
/// - ``"search"`` (= ``"search:3"``), ``"search:1"`` … ``"search:5"``: information-set
///   Monte Carlo tree search over worlds drawn from the beliefs, levels 1–5 as named
///   budgets; ``"search:iters=N"`` or ``"search:ms=N"`` for a budget of iterations or
///   of milliseconds per move, with an optional ``",threads=N"`` (default 1),
///   ``",beliefs=plain"`` and ``",eval=derived"`` (``"ismcts"`` is another name);
/// - ``"pimc"``, ``"pimc:1"`` … with the same options: the search by determinization
///   that ``"search"`` replaced, kept as the reference it is measured against.
///
/// ``Agent(spec, seed=None)``: the same spec and seed give the same choices (with
/// budgets in iterations); ``seed=None`` takes one from the operating system. An
/// unknown name or a budget out of range raises ``AgentError`` (a ``ValueError``).
///
/// An agent sees only the information state of the side it plays (its own pieces,
/// what it was shown, its beliefs): two games that differ only in what that side has
/// not seen give the same choice. Thinking releases the GIL. One agent may play
/// several sides and games; calls on one agent are serialised.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct Agent {
    inner: Arc<Mutex<Box<dyn junqi::agent::Agent>>>,
    name: String,
}

/// What a side has to do now, read under the game's lock.
enum Task {
    Deploy(Arc<junqi::RuleSet>),
    Choose(Box<junqi::agent::InfoState>),
    Nothing,
}

impl Agent {
    /// Runs `think` on the agent with the GIL released; a panic becomes `JunqiError`.
    fn think<T: Send>(
        &self,
        py: Python<'_>,
        think: impl FnOnce(&mut dyn junqi::agent::Agent) -> T + Send,
    ) -> PyResult<T> {
        let inner = &self.inner;
        py.detach(|| {
            // Locked and released inside: never held while waiting for the GIL.
            let mut agent = inner.lock().unwrap_or_else(|e| e.into_inner());
            catch_unwind(AssertUnwindSafe(|| think(&mut **agent)))
        })
        .map_err(|p| panic_err("the agent failed", p))
    }

    /// Deploys the agent's setup for `side`.
    fn deploy_in(
        &self,
        py: Python<'_>,
        game: &Game,
        side: junqi::Side,
        rules: Arc<junqi::RuleSet>,
    ) -> PyResult<Report> {
        let setup = self.think(py, |a| a.deploy(&rules, side))?;
        let mut g = game.lock();
        let report = g.deploy(side, &setup).map_err(err)?;
        Ok(Report {
            inner: report,
            board: rules.board().clone(),
        })
    }

    /// The agent's action for the side whose information state `info` is.
    fn choose_in(&self, py: Python<'_>, info: junqi::agent::InfoState) -> PyResult<junqi::Action> {
        self.think(py, move |a| a.choose(&info))
    }
}

#[pymethods]
impl Agent {
    #[new]
    #[pyo3(signature = (spec, seed=None))]
    fn py_new(spec: &str, seed: Option<u64>) -> PyResult<Agent> {
        let agent =
            junqi::agent::by_name(spec, seed.unwrap_or_else(random_seed)).map_err(err)?;
        let name = agent.name();
        Ok(Agent {
            inner: Arc::new(Mutex::new(agent)),
            name,
        })
    }

    /// The spec that builds this agent again, in canonical form (``"search:3"`` for
    /// ``"search"``).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Deploys the agent's setup for ``side`` (chosen from the rule set alone) and
    /// returns the report. Raises ``SetupError`` when deployment is over or the side has
    /// deployed; ``IllegalMoveError`` for a side that is not in the game and in a rule
    /// set that deals face down (翻棋), as ``Game.deploy`` does.
    fn deploy(
        &self,
        py: Python<'_>,
        game: &Bound<'_, Game>,
        side: &Bound<'_, PyAny>,
    ) -> PyResult<Report> {
        let side = side_arg(side)?;
        let game = game.get();
        let rules = {
            let g = game.lock();
            g.may_deploy(side).map_err(err)?;
            g.rules().clone()
        };
        self.deploy_in(py, game, side, rules)
    }

    /// The action the agent chooses for ``side``, which must be the side to act; the
    /// game is not changed. Returns an ``Action`` (the type ``Game.legal_actions``
    /// gives). Raises ``NotYourTurnError`` when ``side`` is not to act,
    /// ``SideNotInGameError``, ``WrongPhaseError`` during deployment and
    /// ``GameOverError`` after the end (all ``IllegalActionError``).
    fn choose(
        &self,
        py: Python<'_>,
        game: &Bound<'_, Game>,
        side: &Bound<'_, PyAny>,
    ) -> PyResult<Action> {
        let side = side_arg(side)?;
        let game = game.get();
        let (info, rules) = {
            let g = game.lock();
            g.may_act(side).map_err(err)?;
            (g.info_state(side), g.rules().clone())
        };
        let action = self.choose_in(py, info)?;
        Ok(Action::of(action, &rules))
    }

    /// Lets the agent act for ``side`` if it has something to do now: deploy (the
    /// deployment phase, not deployed yet, a rule set that does not deal) or play its
    /// choice (``side`` is to act). Returns the report, or None when ``side`` has
    /// nothing to do. Raises ``IllegalMoveError`` if another call changed the game
    /// while the agent was thinking (the game keeps that change).
    fn act(
        &self,
        py: Python<'_>,
        game: &Bound<'_, Game>,
        side: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Report>> {
        let side = side_arg(side)?;
        let game = game.get();
        let (task, stamp) = {
            let g = game.lock();
            if !g.rules().sides().contains(&side) {
                return Err(err(junqi::GameError::Play(
                    junqi::PlayError::NotPlaying(side),
                )));
            }
            let task = match g.phase() {
                junqi::Phase::Deploy if !g.rules().deals() && !g.deployed().contains(side) => {
                    Task::Deploy(g.rules().clone())
                }
                junqi::Phase::Move | junqi::Phase::Reaction if g.to_act() == Some(side) => {
                    Task::Choose(Box::new(g.info_state(side)))
                }
                _ => Task::Nothing,
            };
            (task, g.record_len())
        };
        match task {
            Task::Nothing => Ok(None),
            Task::Deploy(rules) => self.deploy_in(py, game, side, rules).map(Some),
            Task::Choose(info) => {
                let action = self.choose_in(py, *info)?;
                let mut g = game.lock();
                if g.record_len() != stamp {
                    return Err(exception(
                        junqi::ErrorKind::IllegalAction,
                        "the game changed while the agent was thinking: nothing was played",
                    ));
                }
                let report = g.play_as(side, action).map_err(err)?;
                Ok(Some(Report {
                    inner: report,
                    board: g.rules().board().clone(),
                }))
            }
        }
    }

    fn __repr__(&self) -> String {
        // A spec never holds a quote: Python's own repr of the string.
        format!("Agent('{}')", self.name)
    }
}

/// The evaluation's weights fitted to self-play results (Texel's method; docs/agents.md,
/// "The evaluation"): ``EvalFit(rules, every=3)``, then ``count`` the games in a fixed
/// order (the 5th, 10th, … are held out to measure the fit, the 4th, 9th, … choose its
/// ridge) and ``fit(source)`` writes the weights file the engine ships per rule family.
/// ``junqi.distributed.fit_eval`` plays the games on Ray and counts them here.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct EvalFit {
    inner: Mutex<junqi::agent::EvalFit>,
}

impl EvalFit {
    fn get(&self) -> std::sync::MutexGuard<'_, junqi::agent::EvalFit> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[pymethods]
impl EvalFit {
    /// An empty fit of ``rules`` reading the evaluation's terms every ``every`` plies
    /// (at least 1; ``OutOfRangeError`` otherwise).
    #[new]
    #[pyo3(signature = (rules = None, every = 3))]
    fn new(rules: Option<&Bound<'_, PyAny>>, every: u32) -> PyResult<EvalFit> {
        if every == 0 {
            return Err(crate::errors::OutOfRangeError::new_err("every must be at least 1 (read the terms every N plies)"));
        }
        let rules = crate::rules::rules_arg(rules)?;
        Ok(EvalFit { inner: Mutex::new(junqi::agent::EvalFit::new(&rules, every)) })
    }

    /// Counts a game (its record is replayed; a game without a result counts as
    /// drawn); ``False`` (nothing counted) for a game of another rule set.
    fn count(&self, py: Python<'_>, game: &Game) -> bool {
        let g = game.lock().clone();
        py.detach(|| self.get().count(&g))
    }

    /// Games counted.
    #[getter]
    fn games(&self) -> usize {
        self.get().games()
    }

    /// Positions counted (once for every seat still playing).
    #[getter]
    fn positions(&self) -> usize {
        self.get().positions()
    }

    /// The fitted weights file's JSON; ``source`` says where the games come from.
    /// Raises ``OutOfRangeError`` with fewer than 5 games or no position to fit on.
    #[pyo3(signature = (source = ""))]
    fn fit(&self, py: Python<'_>, source: &str) -> PyResult<String> {
        let fit = self.get().clone();
        py.detach(|| fit.fit(source)).map_err(err)
    }

    fn __repr__(&self) -> String {
        let f = self.get();
        format!("EvalFit(games={}, positions={})", f.games(), f.positions())
    }
}
