//! The `random` agent: uniformly random legal actions and random legal setups.

use std::sync::Arc;

use super::{Agent, InfoState};
use crate::action::Action;
use crate::piece::Side;
use crate::rng::Rng;
use crate::rules::RuleSet;
use crate::setup::{Deployment, Setup};

/// Plays a legal action drawn uniformly at random and deploys a random legal setup
/// ([`Setup::random`]); deterministic for a seed. For reference: today's random seats.
#[derive(Clone, Debug)]
pub struct RandomAgent {
    rng: Rng,
}

impl RandomAgent {
    /// A random agent from a seed.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: Rng::new(seed ^ 0x7A2D_0C41_9E35_B5A1) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn deploy(&mut self, rules: &Arc<RuleSet>, side: Side) -> Setup {
        let seed = self.rng.next_u64();
        match Deployment::try_random(rules, side, seed) {
            Some(d) => d.to_setup(rules),
            // No legal setup exists (a broken custom rule set): the referee refuses
            // this empty one with its reason.
            None => Setup::new(),
        }
    }

    fn choose(&mut self, info: &InfoState) -> Action {
        super::uniform(info.legal(), &mut self.rng)
    }
}
