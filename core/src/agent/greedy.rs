//! The `greedy` agent (first commit: plays as `random` until its evaluation lands).

use std::sync::Arc;

use super::{random::RandomAgent, Agent, InfoState};
use crate::action::Action;
use crate::piece::Side;
use crate::rules::RuleSet;
use crate::setup::Setup;

/// One ply ahead with a static evaluation of the beliefs.
pub struct Greedy {
    inner: RandomAgent,
}

impl Greedy {
    /// A greedy agent from a seed.
    pub fn new(seed: u64) -> Greedy {
        Greedy { inner: RandomAgent::new(seed) }
    }
}

impl Agent for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn deploy(&mut self, rules: &Arc<RuleSet>, side: Side) -> Setup {
        self.inner.deploy(rules, side)
    }
    fn choose(&mut self, info: &InfoState) -> Action {
        self.inner.choose(info)
    }
}
