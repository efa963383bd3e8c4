//! Random seats: the server plays them. A random seat deploys a random setup when the
//! game is created and, when it is to act, plays a legal action chosen uniformly at
//! random (OS randomness) after the configured delay. It ignores draw offers.

use std::sync::Arc;

use junqi::{Rng, Side};

use crate::app::{commit, App, GameHandle};

/// Plays one random legal action for `side` if the game is still at `version` with
/// `side` to act.
pub fn act(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64, side: Side) {
    let mut table = handle.lock();
    if table.version != version || !table.playing() || table.game.to_act() != Some(side) {
        return;
    }
    let legal = table.game.legal_actions();
    if legal.is_empty() {
        return;
    }
    let mut rng = Rng::new(junqi::random_seed());
    let action = legal[rng.below(legal.len())];
    let before = table.clone();
    if table.game.play(action).is_ok() {
        table.draw_offer = None;
        let _ = commit(app, handle, &mut table, before);
    }
}
