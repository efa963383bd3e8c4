//! `random_playouts`: whole games of uniformly random moves, run in Rust with the GIL
//! released, for users who need many games fast.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;

use crate::enums::{EndReason, Side};
use crate::errors::panic_err;
use crate::report::GameResult;
use crate::rules::rules_arg;

/// Safety cap on plies per playout when ``max_plies`` is None.
const DEFAULT_MAX_PLIES: u32 = 100_000;

/// One random game: its seed, its length and how it ended.
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Playout {
    /// The seed of this game: its start is the seeded start ``Game.random_start(rules, seed)``, and its moves follow from it too.
    #[pyo3(get)]
    pub seed: u64,
    /// Plies played.
    #[pyo3(get)]
    pub plies: u32,
    result: Option<junqi::GameResult>,
}

#[pymethods]
impl Playout {
    /// The result, or None if the game was cut off at ``max_plies``.
    #[getter]
    fn result(&self) -> Option<GameResult> {
        self.result.map(|inner| GameResult { inner })
    }

    /// The single winning side, or None (a draw, or a game cut off).
    #[getter]
    fn winner(&self) -> Option<Side> {
        self.result.and_then(|r| r.winner()).map(Into::into)
    }

    /// Why the game ended, or None if it was cut off.
    #[getter]
    fn reason(&self) -> Option<EndReason> {
        self.result.map(|r| r.reason.into())
    }

    fn __repr__(&self) -> String {
        let how = match &self.result {
            Some(r) => junqi::describe_result(r),
            None => "cut off".to_owned(),
        };
        format!("<Playout seed={} plies={} {}>", self.seed, self.plies, how)
    }
}

/// Games per stretch run without the GIL; between stretches Ctrl-C is checked.
const CHUNK: usize = 256;

fn run(
    rules: &std::sync::Arc<junqi::RuleSet>,
    n: usize,
    seeds: &mut junqi::Rng,
    max_plies: u32,
    out: &mut Vec<Playout>,
) {
    let mut buf = Vec::with_capacity(128);
    for _ in 0..n {
        let game_seed = seeds.next_u64();
        let mut rng = junqi::Rng::new(game_seed);
        let mut pos = junqi::Position::random_start(rules.clone(), game_seed);
        while pos.result().is_none() && pos.ply() < max_plies {
            pos.legal_actions_into(&mut buf);
            if buf.is_empty() {
                break;
            }
            let a = buf[rng.below(buf.len())];
            pos.play_unchecked(a);
        }
        out.push(Playout { seed: game_seed, plies: pos.ply(), result: pos.result() });
    }
}

/// Plays ``n`` games of uniformly random legal moves (random deployments too) and
/// returns how each ended. The same ``seed`` gives the same games. Runs in Rust with the
/// GIL released (Ctrl-C is honoured between batches of 256 games); ``max_plies=None``
/// plays each game to its end (with a safety cap of 100000 plies).
#[pyfunction]
#[pyo3(
    signature = (rules=None, n=100, seed=0, max_plies=None),
    text_signature = "(rules='classic', n=100, seed=0, max_plies=None)"
)]
pub fn random_playouts(
    py: Python<'_>,
    rules: Option<&Bound<'_, PyAny>>,
    n: usize,
    seed: u64,
    max_plies: Option<u32>,
) -> PyResult<Vec<Playout>> {
    let rules = rules_arg(rules)?;
    let max = max_plies.unwrap_or(DEFAULT_MAX_PLIES);
    let mut seeds = junqi::Rng::new(seed);
    let mut out = Vec::with_capacity(n.min(1 << 16));
    let mut left = n;
    while left > 0 {
        let k = left.min(CHUNK);
        py.detach(|| catch_unwind(AssertUnwindSafe(|| run(&rules, k, &mut seeds, max, &mut out))))
            .map_err(|p| panic_err("random playouts failed for this rule set", p))?;
        left -= k;
        py.check_signals()?;
    }
    Ok(out)
}
