//! The `search` agent (first commit: plays as `random` until the search lands).

use std::sync::Arc;

use super::{random::RandomAgent, Agent, AgentSpec, Budget, InfoState};
use crate::action::Action;
use crate::piece::Side;
use crate::rules::RuleSet;
use crate::setup::Setup;

/// Search over armies sampled from the beliefs.
pub struct Search {
    budget: Budget,
    threads: usize,
    inner: RandomAgent,
}

impl Search {
    /// A search agent.
    pub fn new(budget: Budget, threads: usize, seed: u64) -> Search {
        Search { budget, threads, inner: RandomAgent::new(seed) }
    }
}

impl Agent for Search {
    fn name(&self) -> String {
        AgentSpec::Search { budget: self.budget, threads: self.threads as u16 }.to_string()
    }
    fn deploy(&mut self, rules: &Arc<RuleSet>, side: Side) -> Setup {
        self.inner.deploy(rules, side)
    }
    fn choose(&mut self, info: &InfoState) -> Action {
        self.inner.choose(info)
    }
}
