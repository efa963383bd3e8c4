//! What one player knows, as an agent receives it.

use std::sync::Arc;

use crate::action::Action;
use crate::error::GameError;
use crate::inference::Beliefs;
use crate::piece::Side;
use crate::limits::MAX_PIECES;
use crate::position::{Phase, Position};
use crate::record::PlayerRecord;
use crate::referee::{Event, Game, View};
use crate::rng::Rng;
use crate::rules::RuleSet;
use crate::setup::Setup;

/// One player's information state: everything that player may know and nothing else —
/// its beliefs ([`Beliefs`]), its view ([`View`]), its legal actions, and a skeleton of
/// the position in which every identity it has not seen is replaced by a canonical
/// placeholder and piece ids are renumbered in belief-slot order.
///
/// Built by the referee ([`Game::info_state`]), or from the seat's own knowledge as a
/// referee tells it over the line protocol — its rule set, its own setup, its event
/// log and its view string ([`InfoState::from_knowledge`],
/// [`InfoState::from_player_record`]): an agent never receives a [`Game`] or a
/// [`Position`] holding the truth, so it cannot peek. Both ways give equal
/// `InfoState`s for the same seat at the same moment (same information, same choices). Everything an `InfoState`
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
        // The events without their plies, as an engine is told them
        // ([`InfoState::from_knowledge`]): the same state whichever way it was built.
        let mut view = self.view(player);
        view.event_plies = Vec::new();
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
    /// What `player` knows, from its own knowledge alone, as an engine is told it
    /// (docs/protocol.md): the rule set, its own setup (`None` in a rule set that deals
    /// face down, or for a game that started from a position string), its event log in
    /// order (the public events and its private ones, as in its [`PlayerRecord`]), and
    /// its view string of the present position ([`Game::view_string`]).
    ///
    /// The beliefs come from the setup and the events ([`Beliefs::new`],
    /// [`Beliefs::observe`]) — so everything the history tells (which pieces moved and
    /// how, what each combat showed) — and the present (turn, counters, the pieces as
    /// the seat sees them, its legal actions) from the view string. For the same seat
    /// at the same moment this equals [`Game::info_state`].
    ///
    /// Fails if the setup is not a legal deployment, the view string does not read or
    /// is not `player`'s view, or the events do not lead to the view (pieces on other
    /// points, an identity the view shows that the events rule out).
    ///
    /// ```
    /// use junqi::{Game, InfoState, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let a = game.legal_actions()[3];
    /// game.play(a).unwrap();
    /// let record = game.player_record(Side::North);
    /// let info = InfoState::from_player_record(&record, &game.view_string(Side::North)).unwrap();
    /// assert!(info == game.info_state(Side::North));
    /// ```
    pub fn from_knowledge(
        rules: Arc<RuleSet>,
        player: Side,
        own: Option<&Setup>,
        events: &[Event],
        view: &str,
    ) -> Result<InfoState, GameError> {
        rules.check_side(player).map_err(GameError::Play)?;
        let mut beliefs = Beliefs::new(rules.clone(), player, own)?;
        beliefs.observe(events);
        InfoState::from_beliefs(beliefs, events.to_vec(), view)
    }

    /// [`InfoState::from_knowledge`] from a player record (its rule set, player, setup
    /// and events) and the player's view string of the present position.
    pub fn from_player_record(record: &PlayerRecord, view: &str) -> Result<InfoState, GameError> {
        let beliefs = Beliefs::from_player_record(record)?;
        let board = beliefs.rules().board().clone();
        let events = record
            .events
            .iter()
            .enumerate()
            .map(|(i, v)| {
                crate::inference::event_from_json(&board, v).map_err(|e| GameError::Record(format!("event {i}: {e}")))
            })
            .collect::<Result<Vec<Event>, GameError>>()?;
        InfoState::from_beliefs(beliefs, events, view)
    }

    /// The information state of `beliefs`' player, the present read from its view
    /// string.
    fn from_beliefs(beliefs: Beliefs, events: Vec<Event>, view: &str) -> Result<InfoState, GameError> {
        let player = beliefs.player();
        let rules = beliefs.rules().clone();
        let refused = |what: String| GameError::Record(format!("the view string {what}"));
        let (position, whose) =
            Position::from_view_string_with(rules, view).map_err(|e| refused(format!("does not read: {e}")))?;
        if whose != Some(player) {
            return Err(refused(format!("is not {player}'s view")));
        }
        beliefs
            .check_about(&position)
            .map_err(|e| refused(format!("does not follow from the events: {e}")))?;
        // Every identity the view shows must be one the events leave possible.
        let board = position.rules().board().clone();
        for p in position.occupied().iter() {
            if position.knows(player, p) {
                let (owner, kind) = position.piece_at(p).expect("an occupied point");
                if !beliefs.candidate_identities(p).contains(&(owner, kind)) {
                    let name = board.name_of(p);
                    return Err(refused(format!("shows {owner} {kind} on {name}, which the events rule out")));
                }
            }
        }
        let mut logs: [Vec<Event>; 4] = Default::default();
        logs[player as usize] = events;
        // The events come without their plies: the view of this game has no `event_plies`.
        let game = Game::from_parts(position, 0, Vec::new(), logs, Default::default());
        let view = game.view(player);
        let legal = if game.to_act() == Some(player) { game.legal_actions() } else { Vec::new() };
        let fill = beliefs.first_candidates();
        let skeleton = beliefs.rebuild(game.position(), &fill);
        Ok(InfoState { player, beliefs, view, legal, skeleton })
    }

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

    /// Like [`InfoState::sample_position`], drawn by a sampler weighted by an opponent
    /// model (made from these beliefs); the plain draw if the sampler finds none.
    pub(crate) fn sample_position_by(
        &self,
        sampler: &crate::inference::ModelledSampler<'_>,
        rng: &mut Rng,
        types: &mut [u8; MAX_PIECES],
    ) -> Position {
        if sampler.sample_into(rng, types) {
            self.beliefs.rebuild(&self.skeleton, types)
        } else {
            self.sample_position(rng, types)
        }
    }

    /// The next world of a chain drawn by `sampler`: `types` (the previous world's, as
    /// [`InfoState::sample_position_by`] or this left it) moved by one sweep of the
    /// sampler's swaps, and `world` (the previous world's position, unplayed) changed
    /// to match in place — only the pieces whose identity changed.
    pub(crate) fn chain_position_by(
        &self,
        sampler: &crate::inference::ModelledSampler<'_>,
        rng: &mut Rng,
        types: &mut [u8; MAX_PIECES],
        world: &mut Position,
    ) {
        let old = *types;
        sampler.swap_into(rng, types, 1);
        self.beliefs.repatch(world, &old, types);
    }

}
