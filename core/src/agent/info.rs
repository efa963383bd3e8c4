//! What one player knows, as an agent receives it.

use std::sync::Arc;

use crate::action::Action;
use crate::inference::Beliefs;
use crate::piece::Side;
use crate::limits::MAX_PIECES;
use crate::position::{Phase, Position};
use crate::referee::{Game, View};
use crate::rng::Rng;
use crate::rules::RuleSet;

/// One player's information state: everything that player may know and nothing else —
/// its beliefs ([`Beliefs`]), its view ([`View`]), its legal actions, and a skeleton of
/// the position in which every identity it has not seen is replaced by a canonical
/// placeholder and piece ids are renumbered in belief-slot order.
///
/// Built only by the referee ([`Game::info_state`]): an agent never receives a [`Game`]
/// or a [`Position`] holding the truth, so it cannot peek. Everything an `InfoState`
/// holds is a function of the player's own information: two games that differ only in
/// identities the player has not seen give equal `InfoState`s (`==`), and the same
/// determinization for the same seed.
///
/// ```
/// use junqi::{Game, Side};
/// let mut game = Game::new("classic", 1).unwrap();
/// game.deploy_random(Side::South, 1).unwrap();
/// game.deploy_random(Side::North, 2).unwrap();
/// let info = game.info_state(Side::South);
/// assert_eq!(info.to_act(), Some(Side::South));
/// assert_eq!(info.legal_actions(), game.legal_actions());
/// // A sampled position agrees with the board and with South's own pieces.
/// let sample = info.determinize(7);
/// assert_eq!(sample.occupied(), game.position().occupied());
/// assert!(sample.same_state(&info.determinize(7)));
/// ```
#[derive(Clone, Debug)]
pub struct InfoState {
    player: Side,
    beliefs: Beliefs,
    view: View,
    legal: Vec<Action>,
    /// The position with ids renumbered by belief slot and every slot given its first
    /// candidate identity: the public state (turn, counters, occupancy) as a position.
    skeleton: Position,
}

/// Equal when everything the player knows is equal (beliefs, view, legal actions and
/// the skeleton position).
impl PartialEq for InfoState {
    fn eq(&self, o: &InfoState) -> bool {
        self.player == o.player
            && self.beliefs == o.beliefs
            && self.view == o.view
            && self.legal == o.legal
            && self.skeleton.same_state(&o.skeleton)
    }
}

impl Game {
    /// What `player` knows, as an agent receives it (see [`InfoState`]).
    ///
    /// # Panics
    /// If `player` does not play in the rule set.
    pub fn info_state(&self, player: Side) -> InfoState {
        assert!(self.rules().sides().contains(&player), "{player} does not play in {}", self.rules().name());
        let beliefs = self.beliefs(player);
        let view = self.view(player);
        // The legal actions depend only on what the player knows (the non-interference
        // property of the referee); empty unless it is to act.
        let legal = if self.to_act() == Some(player) { self.legal_actions() } else { Vec::new() };
        let fill = beliefs.first_candidates();
        let skeleton = beliefs.rebuild(self.position(), &fill);
        InfoState {
            player,
            beliefs,
            view,
            legal,
            skeleton,
        }
    }
}

impl InfoState {
    /// The player whose information this is.
    pub fn player(&self) -> Side {
        self.player
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        self.beliefs.rules()
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.view.phase
    }

    /// The player to act (`None` once the game is over).
    pub fn to_act(&self) -> Option<Side> {
        self.view.to_act
    }

    /// What the player deduces about every piece.
    pub fn beliefs(&self) -> &Beliefs {
        &self.beliefs
    }

    /// The player's view: the board as it sees it, its event log, the turn.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The player's legal actions (empty unless it is to act).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.legal.clone()
    }

    /// The legal actions, borrowed.
    pub fn legal(&self) -> &[Action] {
        &self.legal
    }

    /// A complete position drawn from the beliefs (a determinization, see
    /// [`Game::determinize`]): every identity the player has not seen is drawn, pieces
    /// are numbered by belief slot. The same seed gives the same position, and nothing in
    /// it depends on identities the player has not seen.
    pub fn determinize(&self, seed: u64) -> Position {
        let mut types = [u8::MAX; MAX_PIECES];
        self.sample_position(&mut Rng::new(seed), &mut types)
    }

    /// Like [`InfoState::determinize`] from a generator the caller keeps (allocation-free,
    /// for search).
    pub(crate) fn sample_position(&self, rng: &mut Rng, types: &mut [u8; MAX_PIECES]) -> Position {
        self.beliefs
            .sampled_position(&self.skeleton, rng, types)
            .expect("a referee's beliefs are consistent")
    }

}
