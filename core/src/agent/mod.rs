//! Agents: players that choose a deployment and then actions from **one player's
//! information only**.
//!
//! An [`Agent`] receives an [`InfoState`] — built by the referee with
//! [`Game::info_state`] from that player's beliefs, view and legal actions — never a
//! [`Game`] or a [`crate::Position`] holding the truth: peeking is impossible by the
//! shape of the API, not merely discouraged. Moves, flips (翻棋), plane moves, strikes and
//! reactions (海陆空三军棋) are all [`Action`]s.
//!
//! Agents, each deterministic for a given seed (see docs/agents.md):
//! - `random`: uniformly random legal actions, random legal setups;
//! - `greedy`: one ply ahead over armies sampled from the beliefs, with a static
//!   evaluation (material, flag safety, threats), and deployments that follow the
//!   game's principles (flag in a HQ, mines and bombs around it, strong pieces on the
//!   railways);
//! - `search`: information-set Monte Carlo tree search — one tree over the player's
//!   information, each iteration on a fresh army drawn from the opponent-modelled
//!   beliefs, progressive widening guided by the greedy ordering — under a budget of
//!   iterations (levels 1–5) or of time that it checks as it goes, on one or more
//!   threads (`ismcts` is another name for it);
//! - `pimc`: the search it replaced, kept as the reference it is measured against —
//!   many armies sampled from the beliefs, each root action played out on them with
//!   short playouts and the greedy evaluation at the leaves (perfect-information Monte
//!   Carlo) — under a budget of playouts (levels 1–5) or of time.
//!
//! The evaluation all of them score positions with is a weighted sum of named terms
//! (material, threats, flag safety, pressure, exposure, pressing); its weights are
//! fitted to self-play results and shipped per rule family (`eval=fitted`, the
//! default), or worked out from the rules alone (`eval=derived`, e.g.
//! `"greedy:eval=derived"`). [`EvalFit`] (and `junqi eval fit`) fits them again.
//!
//! Agents are named by an [`AgentSpec`] (`"random"`, `"greedy"`, `"search:3"`, `"pimc:2"`,
//! `"search:ms=500,threads=2"`); [`by_name`] builds one, [`act`] lets one play a seat.
//!
//! A game between two agents:
//!
//! ```
//! use junqi::{agent, Game, Side};
//! let mut game = Game::new("classic", 1)?;
//! let mut south = agent::by_name("greedy", 1)?;
//! let mut north = agent::by_name("random", 2)?;
//! while game.result().is_none() && game.position().ply() < 100 {
//!     agent::act(&mut game, Side::South, south.as_mut())?;
//!     agent::act(&mut game, Side::North, north.as_mut())?;
//! }
//! assert!(game.position().ply() >= 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use crate::action::Action;
use crate::piece::Side;
use crate::position::Phase;
use crate::referee::{Game, GameError, Report};
use crate::rules::RuleSet;
use crate::setup::Setup;

mod deploy;
mod eval;
mod greedy;
mod info;
mod pimc;
mod random;
mod search;
mod spec;
mod tune;

pub use eval::EvalWeights;
pub use info::InfoState;
pub use pimc::{pimc_stats, pimc_table, CandidateStats, Stats as PimcStats};
pub use search::{search_stats, TreeStats, Worlds};
pub use spec::{by_name, AgentError, AgentSpec, Budget};
pub use tune::{cli as eval_cli, EvalFit, EvalFitError};

/// A player: chooses a deployment, then actions, from its own information only.
///
/// Implement it to add your own agent: `choose` sees only the [`InfoState`] (beliefs,
/// view, legal actions, and [`InfoState::determinize`] for sampled positions to search
/// on).
pub trait Agent: Send {
    /// The spec that builds this agent again (`"random"`, `"greedy"`, `"search:3"`).
    fn name(&self) -> String;

    /// A deployment for `side` (never called when the rule set deals face down).
    fn deploy(&mut self, rules: &Arc<RuleSet>, side: Side) -> Setup;

    /// The action to play; called only when `info.to_act() == Some(info.player())` (and
    /// so with at least one legal action). Moves, flips (翻棋), plane moves and
    /// reactions (海陆空) are all `Action`s.
    fn choose(&mut self, info: &InfoState) -> Action;

    /// Whether to accept a draw another seat offers (default: declines).
    fn accept_draw(&mut self, _info: &InfoState) -> bool {
        false
    }
}

/// Referee-side helper: lets `agent` act for `side` in `game` if `side` has something to
/// do — deploys if the game is in the deployment phase and `side` has not deployed (and
/// the rule set does not deal), plays `agent.choose(&game.info_state(side))` if `side`
/// is to act. Returns `Ok(None)` if `side` has nothing to do now.
///
/// Fails if the agent's setup or action is refused (the game is then unchanged); an
/// agent of this crate never is.
pub fn act(game: &mut Game, side: Side, agent: &mut dyn Agent) -> Result<Option<Report>, GameError> {
    if !game.rules().sides().contains(&side) {
        return Err(crate::setup::SetupError::NoSuchSide {
            side,
            rules: game.rules().name().to_owned(),
        }
        .into());
    }
    match game.phase() {
        Phase::Deploy => {
            if game.rules().deals() || game.deployed().contains(side) || game.position().eliminated().contains(side) {
                return Ok(None);
            }
            let setup = agent.deploy(game.rules(), side);
            game.deploy(side, &setup).map(Some)
        }
        Phase::Move | Phase::Reaction => {
            if game.to_act() != Some(side) {
                return Ok(None);
            }
            let info = game.info_state(side);
            if info.legal().is_empty() {
                return Ok(None);
            }
            let action = agent.choose(&info);
            game.play(action).map(Some)
        }
        Phase::Over => Ok(None),
    }
}

/// The action of `legal` a seed picks uniformly (shared by the agents' fallbacks).
pub(crate) fn uniform(legal: &[Action], rng: &mut crate::rng::Rng) -> Action {
    legal[rng.below(legal.len())]
}
