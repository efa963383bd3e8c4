//! The refereed game: the full state, each player's event log and the record, and
//! every method of [`Game`] that is the referee's — starting, deploying, playing,
//! ending, views, records and position strings. What a player can deduce and what an
//! agent sees are the higher layers' and are written there, on the same `Game`:
//! [`Game::beliefs`], [`Game::determinize`] (`inference::sample`),
//! [`Game::observation`] (`inference::observe`) and [`Game::info_state`]
//! (`agent::info`); rustdoc lists them all together on [`Game`].

use std::sync::Arc;

use crate::action::Action;
use crate::board::{Board, Point};
use crate::piece::{PieceKind, Side, SideSet};
use crate::position::{GameResult, Phase, Position, RevealCause, SeenPiece};
use crate::position::PositionStringError;
use crate::record::{PlayerRecord, Record, RecordEntry, RulesRef, PLAYER_RECORD_FORMAT, RECORD_FORMAT};
use crate::rules::{RuleSet, Scouting};
use crate::setup::{Deployment, Setup, SetupError};

use super::event::{describe_result, public_events, push_end};
use super::{Event, GameError, Report, View};

/// An action a [`Game`] records (deployments, moves, and game-ending declarations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Shared, so that cloning a game (search, OpenSpiel's `clone`) copies no setup.
    Deploy(Side, Arc<Setup>),
    Play(Action),
    Resign(Side),
    Escape(Side),
    TimeOut(Side),
    Draw,
    Deal(Vec<(Point, Side, PieceKind)>),
    /// The game started from this position string (always the first entry).
    Start(String),
}

/// A refereed game: the full state, each player's event log, and the record.
///
/// ```
/// use junqi::{Game, Setup, Side};
/// let mut game = Game::new("classic", 7).unwrap();
/// game.deploy_random(Side::South, 1).unwrap();
/// game.deploy_random(Side::North, 2).unwrap();
/// let moves = game.legal_actions();
/// let report = game.play(moves[0]).unwrap();
/// assert!(!report.public.is_empty());
/// // North sees where South's piece went, but not what it is.
/// let view = game.view(Side::North);
/// assert!(view.pieces.iter().filter(|p| p.owner == Some(Side::South)).all(|p| p.kind.is_none()));
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    seed: u64,
    entries: Vec<Entry>,
    logs: [Vec<Event>; 4],
    /// The ply of each event of `logs` (same shape): the position's ply count when the
    /// event was told.
    plies: [Vec<u32>; 4],
}

impl Game {
    /// A new game of a preset rule set.
    pub fn new(rules: &str, seed: u64) -> Result<Game, GameError> {
        Ok(Game::with_rules(RuleSet::preset(rules)?, seed))
    }

    /// A new game of a given rule set with a fresh seed from the operating system
    /// ([`crate::random_seed`]): what a game between players should use. The seed is
    /// kept in the record.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("fanqi").unwrap();
    /// let (a, b) = (junqi::Game::with_os_seed(rules.clone()), junqi::Game::with_os_seed(rules));
    /// assert_ne!(a.seed(), b.seed());
    /// ```
    pub fn with_os_seed(rules: Arc<RuleSet>) -> Game {
        Game::with_rules(rules, crate::rng::random_seed())
    }

    /// A new game of a given rule set. The seed is kept in the record (for rule sets
    /// that deal at random).
    ///
    /// A referee's seed is a secret: whoever knows it knows the 翻棋 deal and the
    /// random setups. A chosen seed is for reproducible research (the same seed gives
    /// the same game); a game between players takes its seed from the operating system
    /// ([`Game::with_os_seed`]).
    ///
    /// In a rule set that deals face down (翻棋) the game starts dealt from the seed.
    pub fn with_rules(rules: Arc<RuleSet>, seed: u64) -> Game {
        if rules.deals() {
            let deal = Position::deal_for(&rules, seed);
            return Game::with_deal(rules, seed, &deal).expect("a seed's deal is valid");
        }
        Game {
            position: Position::new(rules),
            seed,
            entries: Vec::new(),
            logs: Default::default(),
            plies: Default::default(),
        }
    }

    /// The seeded start of `seed` as a game: the seed's deal in a rule set that deals
    /// (翻棋), else every side deployed at random from `seed` ([`Game::deploy_start`]).
    /// The same seed starts the same game in every layer — Rust, C
    /// (`junqi_game_random_start`), Python (`Game.random_start`), JavaScript
    /// (`Game.randomStart`), each game of a `VectorEnv` and the RL adapters — and the
    /// same position as [`Position::random_start`].
    ///
    /// ```
    /// use junqi::{Game, Position, RuleSet};
    /// let rules = RuleSet::preset("classic")?;
    /// let game = Game::random_start(rules.clone(), 7)?;
    /// assert!(game.position().same_state(&Position::random_start(rules, 7)));
    /// assert_eq!(game.seed(), 7);
    /// # Ok::<(), junqi::GameError>(())
    /// ```
    pub fn random_start(rules: Arc<RuleSet>, seed: u64) -> Result<Game, GameError> {
        let mut game = Game::with_rules(rules, seed);
        if !game.rules().deals() {
            for side in game.rules().clone().sides() {
                game.deploy_start(*side)?;
            }
        }
        Ok(game)
    }

    /// Deploys `side`'s setup of the seeded start of this game's seed: the setup
    /// [`Game::random_start`] gives it ([`Position::start_setup_seed`]), whoever else
    /// deployed what. This is what deploying at random without a seed of its own means
    /// in every layer.
    pub fn deploy_start(&mut self, side: Side) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let seed = Position::start_setup_seed(self.rules(), self.seed, side);
        self.deploy_random(side, seed)
    }

    /// A game of a dealing rule set (翻棋) with a given deal: (point, army, kind).
    pub fn with_deal(rules: Arc<RuleSet>, seed: u64, deal: &[(Point, Side, PieceKind)]) -> Result<Game, GameError> {
        if !rules.deals() {
            return Err(SetupError::NotDealt(rules.name().to_owned()).into());
        }
        let position = Position::from_deal(rules, deal)?;
        let mut sorted = deal.to_vec();
        sorted.sort();
        Ok(Game {
            position,
            seed,
            entries: vec![Entry::Deal(sorted)],
            logs: Default::default(),
            plies: Default::default(),
        })
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        self.position.rules()
    }

    /// The board.
    pub fn board(&self) -> &Board {
        self.position.rules().board()
    }

    /// The game's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The full state (the referee's knowledge: do not show it to a player).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.position.phase()
    }

    /// The side to act (see [`Position::to_act`]).
    pub fn to_act(&self) -> Option<Side> {
        self.position.to_act()
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.position.result()
    }

    /// Deploys a side from a setup. Sides may deploy in any order.
    pub fn deploy(&mut self, side: Side, setup: &Setup) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let deployment = setup.validate(self.rules(), side)?;
        self.deploy_validated(&deployment)
    }

    /// Whether `side` may deploy now: `Ok`, or the refusal [`Game::deploy`] gives
    /// whatever the setup (see [`Position::may_deploy`]).
    pub fn may_deploy(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_deploy(side)?)
    }

    /// Whether `side` may act now: `Ok`, or the refusal [`Game::play_as`] gives
    /// whatever the action (see [`Position::may_act`]).
    pub fn may_act(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_act(side)?)
    }

    /// Deploys a side from a JSON setup `{"a1": "flag", …}`.
    pub fn deploy_json(&mut self, side: Side, json: &str) -> Result<Report, GameError> {
        let setup = Setup::from_json(json)?;
        self.deploy(side, &setup)
    }

    /// Deploys a random legal setup for `side`, the same for the same seed.
    pub fn deploy_random(&mut self, side: Side, seed: u64) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let deployment = Deployment::try_random(self.rules(), side, seed)
            .ok_or_else(|| SetupError::Unsatisfiable(self.rules().name().to_owned()))?;
        self.deploy_validated(&deployment)
    }

    fn deploy_validated(&mut self, deployment: &Deployment) -> Result<Report, GameError> {
        self.position.deploy(deployment)?;
        let side = deployment.side();
        self.entries.push(Entry::Deploy(side, Arc::new(deployment.to_setup(self.rules()))));
        let mut public = vec![Event::Deployed { side }];
        self.push_opening(&mut public);
        if let Some(result) = self.position.result() {
            public.push(Event::GameOver { result });
        }
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// 明棋 (`open_after_deploy`): when the last deployment starts play, every piece is
    /// shown to everyone — told as public `Revealed` events (cause `open_play`), so that
    /// each player's log and record say what it knows.
    fn push_opening(&self, public: &mut Vec<Event>) {
        if self.rules().options().open_after_deploy && self.position.phase() != Phase::Deploy {
            public.extend(self.position.pieces().map(|(point, owner, kind)| Event::Revealed {
                point,
                owner,
                kind,
                cause: RevealCause::OpenPlay,
            }));
        }
    }

    /// The legal actions of the side to act (see [`Position::legal_actions`]).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.position.legal_actions()
    }

    /// The legal actions as indices in the rule set's fixed action space, ascending.
    pub fn legal_action_ids(&self) -> Vec<usize> {
        let rules = self.rules();
        let actions = self.legal_actions();
        let mut ids = Vec::with_capacity(actions.len());
        ids.extend(actions.into_iter().filter_map(|a| a.id(rules)));
        ids.sort_unstable();
        ids
    }

    /// A mask over the action space: `true` where the action is legal now.
    pub fn action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.rules().action_space()];
        for i in self.legal_action_ids() {
            mask[i] = true;
        }
        mask
    }

    /// Plays an action of the side to act.
    pub fn play(&mut self, action: Action) -> Result<Report, GameError> {
        let outcome = self.position.play(action)?;
        Ok(self.played(action, outcome))
    }

    /// Plays an action the caller took from this position's legal actions (the vector
    /// environment checks each id against the list it generated), without checking it
    /// again.
    pub(crate) fn play_legal(&mut self, action: Action) -> Report {
        let outcome = self.position.play_unchecked(action);
        self.played(action, outcome)
    }

    /// Records an action the position has just played and tells the players.
    fn played(&mut self, action: Action, outcome: crate::position::ActionOutcome) -> Report {
        self.entries.push(Entry::Play(action));
        let mut public = Vec::with_capacity(3);
        let mut private = Vec::new();
        let (side, from, to) = (outcome.side, outcome.from, outcome.to);
        if outcome.flipped {
            let owner = self.position.piece_at(from).map_or(side, |p| p.0);
            public.push(Event::Flipped { side, point: from, owner, kind: outcome.kind });
            if outcome.armies_assigned {
                for &player in self.rules().sides() {
                    if let Some(army) = self.position.army_of(player) {
                        public.push(Event::ArmyAssigned { player, army });
                    }
                }
            }
        }
        match outcome.combat {
            None if outcome.flipped => {}
            None if outcome.shot_down_at.is_some() => {}
            None => public.push(Event::Moved { side, from, to }),
            Some((owner, def_kind, result)) => {
                let reveal = Event::Revealed {
                    point: outcome.defender_at.unwrap_or(to),
                    owner,
                    kind: def_kind,
                    cause: RevealCause::EngineerScout,
                };
                match outcome.scouted {
                    Scouting::Off => {}
                    Scouting::Attacker => private.push((side, reveal)),
                    Scouting::Everyone | Scouting::Sacrifice => public.push(reveal),
                }
                public.push(if outcome.struck {
                    Event::Struck { side, from, to, outcome: result }
                } else {
                    Event::Attacked { side, from, to, outcome: result }
                });
            }
        }
        for r in outcome.reveals.into_iter().flatten() {
            let e = Event::Revealed { point: r.point, owner: r.owner, kind: r.kind, cause: r.cause };
            match r.to {
                Some(p) => private.push((p, e)),
                None => public.push(e),
            }
        }
        if let Some(at) = outcome.shot_down_at {
            public.push(Event::ShotDown { side, from, at });
        }
        if let (Some(point), Some(player)) = (outcome.reaction_due, self.position.to_act()) {
            public.push(Event::ReactionDue { player, point });
        }
        for (owner, point) in outcome.flags_revealed.into_iter().flatten() {
            public.push(Event::Revealed {
                point,
                owner,
                kind: PieceKind::Flag,
                cause: RevealCause::CommanderLost,
            });
        }
        push_end(&mut public, outcome.eliminated, outcome.result);
        self.log(Report { public, private })
    }

    /// The referee's time-out for the side to act (a player who ran out of time): the
    /// turn passes, and with `max_timeouts` the side is out after that many.
    pub fn time_out(&mut self) -> Result<Report, GameError> {
        let outcome = self.position.time_out()?;
        self.entries.push(Entry::TimeOut(outcome.side));
        let mut public = vec![Event::TimedOut {
            side: outcome.side,
            count: outcome.count,
        }];
        push_end(&mut public, outcome.eliminated, outcome.result);
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// Plays an action given in notation (`"a2-a6"`).
    pub fn play_notation(&mut self, text: &str) -> Result<Report, GameError> {
        let action = Action::parse(self.board(), text)?;
        self.play(action)
    }

    /// Plays the action with a given index in the action space.
    pub fn play_id(&mut self, index: usize) -> Result<Report, GameError> {
        let action = Action::from_id(self.rules(), index)?;
        self.play(action)
    }

    /// Plays an action on behalf of `side`, refusing it if `side` is not to act.
    pub fn play_as(&mut self, side: Side, action: Action) -> Result<Report, GameError> {
        self.may_act(side)?;
        self.play(action)
    }

    /// `side` resigns and is out: in a two-sided game the other side wins; with teams
    /// play goes on until one team is left.
    pub fn resign(&mut self, side: Side) -> Result<Report, GameError> {
        let deploying = self.position.phase() == Phase::Deploy;
        let (eliminated, result) = self.position.resign(side)?;
        self.entries.push(Entry::Resign(side));
        let mut public = vec![Event::Resigned { side }];
        if deploying && self.position.phase() != Phase::Over {
            self.push_opening(&mut public);
        }
        push_end(&mut public, eliminated, result);
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// `side` leaves the game (an escape, docs/sources.md#qq-escape): the game ends at once.
    /// With no partner of the escaper still in, the other team wins; with one still
    /// in, nobody wins (see [`Position::escape`]). The reason is
    /// [`EndReason::Escape`](crate::EndReason::Escape).
    ///
    /// ```
    /// use junqi::{EndReason, Game, Side};
    /// let mut game = Game::new("siguo", 1).unwrap();
    /// for (i, s) in [Side::South, Side::East, Side::North, Side::West].into_iter().enumerate() {
    ///     game.deploy_random(s, i as u64).unwrap();
    /// }
    /// game.escape(Side::East).unwrap();        // West, East's partner, is still in
    /// let result = game.result().unwrap();
    /// assert!(result.winners.is_empty());
    /// assert_eq!(result.reason, EndReason::Escape);
    /// ```
    pub fn escape(&mut self, side: Side) -> Result<Report, GameError> {
        let result = self.position.escape(side)?;
        self.entries.push(Entry::Escape(side));
        Ok(self.log(Report {
            public: vec![Event::Escaped { side }, Event::GameOver { result }],
            private: vec![],
        }))
    }

    /// Whether `side` may offer or accept a draw: only sides still in play decide one
    /// (see [`Position::may_decide_draw`]; docs/siguo.md). A referee that takes draw
    /// offers asks this for the side offering and for each side accepting, and drops an
    /// offer whose side goes out.
    ///
    /// ```
    /// let mut g = junqi::Game::new("siguo", 1).unwrap();
    /// for (i, side) in junqi::Side::ALL.into_iter().enumerate() {
    ///     g.deploy_random(side, i as u64).unwrap();
    /// }
    /// assert!(g.may_decide_draw(junqi::Side::East).is_ok());
    /// g.resign(junqi::Side::East).unwrap();
    /// assert!(g.may_decide_draw(junqi::Side::East).is_err());
    /// assert!(g.may_decide_draw(junqi::Side::West).is_ok());
    /// ```
    pub fn may_decide_draw(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_decide_draw(side)?)
    }

    /// The players agree to a draw.
    pub fn agree_draw(&mut self) -> Result<Report, GameError> {
        let result = self.position.agree_draw()?;
        self.entries.push(Entry::Draw);
        Ok(self.log(Report {
            public: vec![Event::DrawAgreed, Event::GameOver { result }],
            private: vec![],
        }))
    }

    fn log(&mut self, report: Report) -> Report {
        let ply = self.position.ply();
        for &side in self.position.rules().sides() {
            let log = &mut self.logs[side as usize];
            log.extend_from_slice(&report.public);
            log.extend(report.private.iter().filter(|(s, _)| *s == side).map(|(_, e)| *e));
            let n = log.len();
            self.plies[side as usize].resize(n, ply);
        }
        report
    }

    /// The number of entries in the game's record so far (the deal, deployments,
    /// actions, time-outs, resignations, escapes, an agreed draw). Every call that
    /// changes the game adds one, so it tells callers caching something about the game
    /// (legal actions, say) whether the game has changed since.
    pub fn record_len(&self) -> usize {
        self.entries.len()
    }

    /// A player's event log: the public events and its own private ones.
    pub fn events(&self, player: Side) -> &[Event] {
        &self.logs[player as usize]
    }

    /// The ply of each event of [`Game::events`]`(player)`, index for index: the
    /// position's ply count ([`Position::ply`]) right after the change that told it.
    /// Deployments are told at ply 0; the `n`-th action or time-out of the game tells
    /// its events at ply `n`. A front end numbers its log by this, so that its move
    /// numbers agree with the view's `ply`.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let a = game.legal_actions()[0];
    /// game.play(a).unwrap();
    /// let plies = game.event_plies(Side::North);
    /// assert_eq!(plies.len(), game.events(Side::North).len());
    /// assert_eq!((plies[0], *plies.last().unwrap()), (0, 1));
    /// ```
    pub fn event_plies(&self, player: Side) -> &[u32] {
        &self.plies[player as usize]
    }

    /// One player's information set.
    pub fn view(&self, player: Side) -> View {
        View {
            player,
            army: self.position.army_of(player),
            phase: self.position.phase(),
            to_act: self.position.to_act(),
            ply: self.position.ply(),
            no_capture_plies: self.position.no_capture_plies(),
            deployed: self.position.deployed(),
            eliminated: self.position.eliminated(),
            timeouts: Side::ALL.map(|s| self.position.timeouts(s)),
            pieces: self.position.view_pieces(player),
            events: self.logs[player as usize].clone(),
            event_plies: self.plies[player as usize].clone(),
            result: self.position.result(),
        }
    }

    /// What `player` sees once the game is over: its view with every piece shown —
    /// owner and kind — as a board shows it when the game has ended and the pieces are
    /// turned up (the full record is nobody's secret any more). Before the end it is
    /// [`Game::view`] itself.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1)?;
    /// game.deploy_random(Side::South, 1)?;
    /// game.deploy_random(Side::North, 2)?;
    /// assert!(game.end_view(Side::South).pieces.iter().any(|p| p.kind.is_none()));
    /// game.resign(Side::North)?;
    /// assert!(game.end_view(Side::South).pieces.iter().all(|p| p.kind.is_some() && p.owner.is_some()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn end_view(&self, player: Side) -> View {
        if self.position.phase() == Phase::Over {
            self.full_view(player)
        } else {
            self.view(player)
        }
    }

    /// `player`'s view with every piece's owner and kind shown: the referee's
    /// knowledge drawn from a seat (do not show it to a player while the game is on; it
    /// is what [`Game::end_view`] shows at the end, and what a replay of a finished
    /// game shows at each step).
    pub fn full_view(&self, player: Side) -> View {
        let mut view = self.view(player);
        for p in &mut view.pieces {
            if let Some((owner, kind)) = self.position.piece_at(p.point) {
                p.owner = Some(owner);
                p.kind = Some(kind);
            }
        }
        view
    }

    /// The public view, what a spectator may see: every piece as every seat sees it
    /// (where it stands, its owner and arm where those are public), a kind only where
    /// every seat knows it, and only the events every seat was told. Built from the
    /// seats' views alone, so it holds nothing some seat was told privately. Its
    /// `player` is the rule set's first seat and its `army` is `None`.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let public = game.public_view();
    /// assert_eq!(public.pieces.len(), 50);
    /// assert!(public.pieces.iter().all(|p| p.kind.is_none()));
    /// ```
    pub fn public_view(&self) -> View {
        let sides = self.rules().sides();
        let views: Vec<View> = sides.iter().map(|&s| self.view(s)).collect();
        let first = &views[0];
        let pieces = first
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let agreed = views
                    .iter()
                    .all(|v| v.pieces.get(i).is_some_and(|q| q.point == p.point && q.kind == p.kind));
                SeenPiece {
                    kind: if agreed { p.kind } else { None },
                    ..*p
                }
            })
            .collect();
        let logs: Vec<&[Event]> = views.iter().map(|v| v.events.as_slice()).collect();
        let public = public_events(&logs);
        View {
            player: sides[0],
            army: None,
            phase: first.phase,
            to_act: first.to_act,
            ply: first.ply,
            no_capture_plies: first.no_capture_plies,
            deployed: first.deployed,
            eliminated: first.eliminated,
            timeouts: first.timeouts,
            pieces,
            events: public.iter().map(|&i| first.events[i]).collect(),
            event_plies: public.iter().map(|&i| first.event_plies[i]).collect(),
            result: first.result,
        }
    }

    /// The full record: rule set, seed, setups and every action. Replays to the
    /// identical state with [`Game::from_record`].
    pub fn record(&self) -> Record {
        let rules = self.rules();
        let board = self.board();
        let builtin = Board::preset(board.name()).is_some_and(|b| std::ptr::eq(&*b, board) || b.spec() == board.spec());
        Record {
            format: RECORD_FORMAT.to_owned(),
            rules: RulesRef::of(rules),
            board: (!builtin).then(|| board.spec().clone()),
            seed: self.seed(),
            actions: self.record_entries(0),
            result: self.result(),
        }
    }

    /// The entries of the record from the `from`-th on ([`Game::record_len`] counts
    /// them): what a store that appends each change writes after it, instead of the
    /// whole record. [`Game::apply_entry`] plays them back.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let before = game.record_len();
    /// let a = game.legal_actions()[0];
    /// game.play(a).unwrap();
    /// let new = game.record_entries(before);
    /// assert_eq!(new, vec![junqi::RecordEntry::Action(a.to_notation(game.board()))]);
    /// ```
    pub fn record_entries(&self, from: usize) -> Vec<RecordEntry> {
        let board = self.board();
        self.entries()
            .get(from..)
            .unwrap_or_default()
            .iter()
            .map(|e| match e {
                Entry::Deploy(side, setup) => RecordEntry::Deploy {
                    deploy: *side,
                    setup: Setup::clone(setup),
                },
                Entry::Play(a) => RecordEntry::Action(a.to_notation(board)),
                Entry::Resign(side) => RecordEntry::Resign { resign: *side },
                Entry::Escape(side) => RecordEntry::Escape { escape: *side },
                Entry::TimeOut(side) => RecordEntry::TimeOut { timeout: *side },
                Entry::Draw => RecordEntry::Action("draw".to_owned()),
                Entry::Start(text) => RecordEntry::Start { start: text.clone() },
                Entry::Deal(deal) => RecordEntry::Deal {
                    deal: deal.iter().map(|(p, s, k)| (board.name_of(*p).to_owned(), (*s, *k))).collect(),
                },
            })
            .collect()
    }

    /// Plays one entry of a record (not its first: a deal or a start position makes
    /// the game, see [`Record::replay`]) as the replay does: a deployment, an action
    /// in notation or `"draw"`, a resignation, an escape, or a time-out of the side to
    /// act. A refused entry changes nothing. With [`Game::record_entries`] this brings
    /// a copy of a game up to date with another, entry by entry.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// let mut copy = game.clone();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let a = game.legal_actions()[0];
    /// game.play(a).unwrap();
    /// for entry in game.record_entries(copy.record_len()) {
    ///     copy.apply_entry(&entry).unwrap();
    /// }
    /// assert_eq!(copy.position_string(), game.position_string());
    /// assert_eq!(copy.events(Side::North), game.events(Side::North));
    /// ```
    pub fn apply_entry(&mut self, entry: &RecordEntry) -> Result<Report, GameError> {
        match entry {
            RecordEntry::Deploy { deploy, setup } => self.deploy(*deploy, setup),
            RecordEntry::Resign { resign } => self.resign(*resign),
            RecordEntry::Escape { escape } => self.escape(*escape),
            RecordEntry::Deal { .. } => Err(GameError::Record("a deal may only come first".into())),
            RecordEntry::Start { .. } => Err(GameError::Record("a start position may only come first".into())),
            RecordEntry::TimeOut { timeout } => {
                if self.to_act() == Some(*timeout) {
                    self.time_out()
                } else {
                    Err(GameError::Record(format!("{timeout} times out but is not to act")))
                }
            }
            RecordEntry::Action(t) if t == "draw" => self.agree_draw(),
            RecordEntry::Action(t) => Action::parse(self.board(), t)
                .map_err(GameError::from)
                .and_then(|a| self.play(a)),
        }
    }

    /// Replays a record.
    pub fn from_record(record: &Record) -> Result<Game, GameError> {
        record.replay()
    }

    /// What `player` saw of this game (see [`PlayerRecord`]).
    pub fn player_record(&self, player: Side) -> PlayerRecord {
        PlayerRecord {
            format: PLAYER_RECORD_FORMAT.to_owned(),
            rules: RulesRef::of(self.rules()),
            player,
            setup: self.entries().iter().find_map(|e| match e {
                Entry::Deploy(s, setup) if *s == player => Some(Setup::clone(setup)),
                _ => None,
            }),
            events: self.events(player).iter().map(|e| e.to_json(self.board())).collect(),
            result: self.result(),
        }
    }

    /// A game starting from a position string (or a view string, whose unknown pieces
    /// get stand-ins: see [`Position::from_position_string`]) of a preset rule set.
    ///
    /// The game has no log before the position: each player's event log starts empty,
    /// its beliefs start from what the string says it knows (the identities it was shown,
    /// and the pieces marked as moved, which are of no immobile kind), and its record
    /// starts with the position string (so that it replays).
    ///
    /// ```
    /// use junqi::{Game, Position, RuleSet, Side};
    /// let pos = Position::random_start(RuleSet::preset("classic").unwrap(), 3);
    /// let mut game = Game::from_position_string(&pos.position_string(), 9).unwrap();
    /// assert!(game.events(Side::South).is_empty());
    /// let a = game.legal_actions()[0];
    /// game.play(a).unwrap();
    /// assert_eq!(game.record().replay().unwrap().position_string(), game.position_string());
    /// ```
    pub fn from_position_string(text: &str, seed: u64) -> Result<Game, PositionStringError> {
        Game::starting_at(Position::from_position_string(text)?, seed)
    }

    /// Like [`Game::from_position_string`] for a given (custom) rule set. The seed is
    /// kept in the record.
    pub fn from_position_string_with(
        rules: Arc<RuleSet>,
        text: &str,
        seed: u64,
    ) -> Result<Game, PositionStringError> {
        Game::starting_at(Position::from_position_string_with(rules, text)?, seed)
    }

    /// A game whose record starts with `position` (as its position string). It starts
    /// from the position that string reads to, as a replay does: reading may have put a
    /// side out, and the pieces it took off the board are in no string.
    fn starting_at(position: Position, seed: u64) -> Result<Game, PositionStringError> {
        let start = position.position_string();
        let position = Position::from_position_string_with(position.rules().clone(), &start)?;
        Ok(Game::from_parts(position, seed, vec![Entry::Start(start)], Default::default(), Default::default()))
    }

    /// The position string the game started from, if it did not start from the
    /// beginning (see [`Game::from_position_string`]).
    pub fn start_position_string(&self) -> Option<&str> {
        match self.entries().first() {
            Some(Entry::Start(s)) => Some(s),
            _ => None,
        }
    }

    /// The current position as a position string (the referee's knowledge: every
    /// identity told; see [`Position::position_string`]).
    pub fn position_string(&self) -> String {
        self.position().position_string()
    }

    /// What `player` sees now, as a view string (see [`Position::view_string`]): it
    /// holds nothing that `player` has not seen. For a side that does not play, every
    /// identity is unknown.
    pub fn view_string(&self, player: Side) -> String {
        self.position().view_string(player)
    }

    /// Inference hook: a game from its parts (see [`Game::determinize`]).
    pub(crate) fn from_parts(
        position: Position,
        seed: u64,
        entries: Vec<Entry>,
        logs: [Vec<Event>; 4],
        plies: [Vec<u32>; 4],
    ) -> Game {
        Game { position, seed, entries, logs, plies }
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The sides that have deployed.
    pub fn deployed(&self) -> SideSet {
        self.position.deployed()
    }
}

impl Record {
    /// Replays the record into a game, checking the stored result.
    pub fn replay(&self) -> Result<Game, GameError> {
        let game = self.replay_to(usize::MAX)?;
        if game.result() != self.result {
            let say = |r: Option<GameResult>| r.map_or("no result".to_owned(), |r| describe_result(&r));
            return Err(GameError::Record(format!(
                "the replay ends with {}, the record says {}{}",
                say(game.result()),
                say(self.result),
                self.rules.hint()
            )));
        }
        Ok(game)
    }

    /// The game after the first `steps` entries of the record (its deal or starting
    /// position, if any, comes first and is not counted): a step of a replay, from 0
    /// (the start) to [`Record::steps`] (the end). More steps than the record has give
    /// the whole game; the stored result is not checked.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1)?;
    /// game.deploy_random(Side::South, 1)?;
    /// game.deploy_random(Side::North, 2)?;
    /// let first = game.legal_actions()[0];
    /// game.play(first)?;
    /// let record = game.record();
    /// assert_eq!(record.steps(), 3);
    /// assert_eq!(record.replay_to(2)?.position().ply(), 0);
    /// assert!(record.replay_to(3)?.position().same_state(game.position()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn replay_to(&self, steps: usize) -> Result<Game, GameError> {
        self.replay_each(steps, |_| {})
    }

    /// [`Record::replay_to`], calling `each` with the game after every entry applied.
    pub(crate) fn replay_each(&self, steps: usize, mut each: impl FnMut(&Game)) -> Result<Game, GameError> {
        let rules = self.rules.load(self.board.as_ref())?;
        let mut entries = self.actions.iter().enumerate().peekable();
        let mut game = match entries.peek() {
            Some((_, RecordEntry::Deal { deal })) => {
                let mut cards = Vec::with_capacity(deal.len());
                for (name, (side, kind)) in deal {
                    let p = rules
                        .board()
                        .point(name)
                        .ok_or_else(|| GameError::Record(format!("deal: unknown point {name:?}")))?;
                    cards.push((p, *side, *kind));
                }
                entries.next();
                // A deal that is not a deal of this rule set is a broken record.
                Game::with_deal(rules, self.seed, &cards).map_err(|e| GameError::Record(format!("deal: {e}")))?
            }
            Some((_, RecordEntry::Start { start })) => {
                let game = Game::from_position_string_with(rules, start, self.seed)
                    .map_err(|e| GameError::Record(format!("start: {e}")))?;
                entries.next();
                game
            }
            _ if rules.deals() => return Err(GameError::Record("a dealt game's record starts with its deal".into())),
            _ => Game::with_rules(rules, self.seed),
        };
        for (i, entry) in entries.take(steps) {
            game.apply_entry(entry)
                .map_err(|e| GameError::Record(format!("entry {i}: {e}{}", self.rules.hint())))?;
            each(&game);
        }
        Ok(game)
    }

    /// The steps of a replay: the record's entries, its deal or starting position
    /// aside ([`Record::replay_to`]).
    pub fn steps(&self) -> usize {
        let head = matches!(self.actions.first(), Some(RecordEntry::Deal { .. } | RecordEntry::Start { .. }));
        self.actions.len() - usize::from(head)
    }
}
