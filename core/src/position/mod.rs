//! The game state: where every piece stands, who knows what, whose turn it is.
//!
//! [`Position`] is the referee's complete state — it knows every identity — kept small
//! and allocation-free so that search and playouts can clone it freely. What a player
//! may see of it is [`Position::view_pieces`]; the full refereed game with event logs
//! and records is [`crate::Game`].
//!
//! The state and its accessors live here; `movegen` generates the pieces' targets,
//! `play` holds legality and what an action does, `ruling` the referee's rulings on
//! contact, `leaving` the pieces that leave the board, `end` the turn order and every
//! way a side or the game ends, `outcome` the types they report with, `renumber` the
//! renumbering of piece ids, and `string` position strings.

use std::sync::Arc;

use crate::board::{Point, PointSet, Role, MAX_POINTS};
use crate::piece::{PieceKind, Side, SideSet};
use crate::rules::RuleSet;
use crate::setup::Deployment;

pub use crate::limits::MAX_PIECES;

/// No piece, as a piece id: a cell without a piece, no obliged plane, no reacting
/// submarine.
const NO_PIECE: u8 = u8::MAX;
/// Off the board, as a point: where a piece that left the board stands. (Point ids stop
/// below it: a board has at most [`MAX_POINTS`] = 255 points, 0 to 254.)
const OFF_BOARD: u8 = u8::MAX;
const _: () = assert!(MAX_POINTS <= OFF_BOARD as usize);

mod end;
mod leaving;
pub(crate) mod movegen;
mod outcome;
mod play;
mod renumber;
pub(crate) use renumber::Renumbered;
mod ruling;
mod string;

pub use string::{PositionStringError, MAX_POSITION_STRING};
pub use outcome::{
    Eliminations, EndReason, GameResult, ActionOutcome, Phase, PlayError, Reveal, RevealCause, SeenPiece, TimeoutOutcome,
    MAX_REVEALS,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) kind: PieceKind,
    pub(crate) owner: Side,
    pub(crate) at: u8,
}

const NO_SLOT: Slot = Slot {
    kind: PieceKind::Flag,
    owner: Side::South,
    at: OFF_BOARD,
};

/// The complete state of a game (the referee's knowledge). Cheap to clone.
#[derive(Clone, Debug)]
pub struct Position {
    rules: Arc<RuleSet>,
    pub(crate) cells: [u8; MAX_POINTS],
    pub(crate) slots: [Slot; MAX_PIECES],
    occ: [PointSet; 4],
    occupied: PointSet,
    /// Occupancy by arm (army, navy, air): public.
    arm_occ: [PointSet; 3],
    known: [u128; 4],
    /// Per army: a plane that must move away on its owner's next turn.
    obliged: [u8; 4],
    /// The submarine whose evasion step is due ([`Phase::Reaction`]), and whether the
    /// action that caused it removed a piece (for the draw counter).
    react: u8,
    react_removed: bool,
    /// Points holding a face-down piece (翻棋). Face-down pieces never move.
    hidden: PointSet,
    /// Points holding a piece that has moved — left a point, or attacked by moving onto
    /// its target — and so is of no immobile kind (public: every move is).
    pub(crate) moved: PointSet,
    /// The army each player commands (翻棋: fixed by the first flip).
    armies: [Option<Side>; 4],
    deployed: SideSet,
    out: SideSet,
    timeouts: [u8; 4],
    turn: u8,
    phase: Phase,
    ply: u32,
    no_capture: u32,
    result: Option<GameResult>,
}


impl Position {
    /// An empty position waiting for deployments.
    pub fn new(rules: Arc<RuleSet>) -> Position {
        Position {
            rules,
            cells: [NO_PIECE; MAX_POINTS],
            slots: [NO_SLOT; MAX_PIECES],
            occ: [PointSet::EMPTY; 4],
            occupied: PointSet::EMPTY,
            arm_occ: [PointSet::EMPTY; 3],
            known: [0; 4],
            obliged: [NO_PIECE; 4],
            react: NO_PIECE,
            react_removed: false,
            hidden: PointSet::EMPTY,
            moved: PointSet::EMPTY,
            armies: Side::ALL.map(Some),
            deployed: SideSet::EMPTY,
            out: SideSet::EMPTY,
            timeouts: [0; 4],
            turn: 0,
            phase: Phase::Deploy,
            ply: 0,
            no_capture: 0,
            result: None,
        }
    }

    /// A position in the move phase with pieces placed freely — for analysis, puzzles
    /// and tests. Deployment rules are not applied (a side may have fewer pieces than
    /// its army, anywhere on the board); each side knows its own pieces only.
    ///
    /// Fails if a point is used twice, a side does not play in the rule set, a kind is
    /// not in its army, or a side has more pieces of a kind than its army.
    ///
    /// ```
    /// use junqi::{Position, RuleSet, Side, PieceKind::*};
    /// let rules = RuleSet::preset("classic").unwrap();
    /// let b = rules.board();
    /// let p = |n| b.point(n).unwrap();
    /// let pos = Position::from_arrangement(
    ///     rules.clone(),
    ///     &[(p("a2"), Side::South, Engineer), (p("b12"), Side::North, Flag)],
    ///     Side::South,
    /// ).unwrap();
    /// assert!(pos.legal_actions().len() > 10);
    /// ```
    pub fn from_arrangement(
        rules: Arc<RuleSet>,
        pieces: &[(Point, Side, PieceKind)],
        to_act: Side,
    ) -> Result<Position, crate::setup::SetupError> {
        use crate::setup::SetupError;
        let mut pos = Position::new(rules.clone());
        let mut count = [0usize; 4];
        let turn = rules.sides().iter().position(|s| *s == to_act).ok_or(SetupError::NoSuchSide {
            side: to_act,
            rules: rules.name().to_owned(),
        })?;
        for &(p, side, kind) in pieces {
            let base = rules.sides().iter().position(|s| *s == side).ok_or(SetupError::NoSuchSide {
                side,
                rules: rules.name().to_owned(),
            })? * rules.army_size();
            if !rules.has_kind(kind) {
                return Err(SetupError::KindNotInRuleSet {
                    kind,
                    rules: rules.name().to_owned(),
                });
            }
            if p.index() >= rules.board().len() {
                return Err(SetupError::UnknownPoint(format!("#{}", p.index())));
            }
            if pos.occupied.contains(p) {
                return Err(SetupError::PointTwice(rules.board().name_of(p).to_owned()));
            }
            let of_kind = pieces[..]
                .iter()
                .filter(|(_, s, k)| *s == side && *k == kind)
                .count();
            let expected = rules.spec().army.get(&kind).copied().unwrap_or(0);
            if of_kind > expected as usize {
                return Err(SetupError::WrongCount {
                    kind,
                    expected,
                    found: of_kind.min(255) as u8,
                });
            }
            let n = &mut count[side as usize];
            let id = base + *n;
            *n += 1;
            pos.slots[id] = Slot { kind, owner: side, at: p.0 };
            pos.cells[p.index()] = id as u8;
            pos.occ[side as usize].insert(p);
            pos.occupied.insert(p);
            pos.arm_occ[kind.arm() as usize].insert(p);
            pos.known_by_team(side, id);
        }
        pos.deployed = rules.sides().iter().copied().collect();
        pos.phase = Phase::Move;
        pos.turn = turn as u8;
        pos.open_if_asked();
        pos.check_stalemate();
        Ok(pos)
    }

    /// The deal a seed gives in a rule set that deals face down (翻棋): every piece of
    /// every army, shuffled onto the deployable points of all sides, in point order.
    pub fn deal_for(rules: &RuleSet, seed: u64) -> Vec<(Point, Side, PieceKind)> {
        let mut points: Vec<Point> = rules.sides().iter().flat_map(|s| rules.deploy_points(*s).iter().copied()).collect();
        points.sort();
        let mut pieces: Vec<(Side, PieceKind)> = rules
            .sides()
            .iter()
            .flat_map(|&s| rules.army().flat_map(move |(k, n)| std::iter::repeat_n((s, k), n as usize)))
            .collect();
        // Keyed: the flips a player sees do not give the seed (and the rest) away.
        crate::rng::KeyedRng::new(seed, 0xF1A9_D3A1).shuffle(&mut pieces);
        points.into_iter().zip(pieces).map(|(p, (s, k))| (p, s, k)).collect()
    }

    /// A position dealt face down (翻棋): nobody commands an army until the first flip.
    ///
    /// Fails unless the deal puts every piece of every army, once, on every deployable
    /// point.
    pub fn from_deal(
        rules: Arc<RuleSet>,
        deal: &[(Point, Side, PieceKind)],
    ) -> Result<Position, crate::setup::SetupError> {
        use crate::setup::SetupError;
        let board = rules.board().clone();
        let mut expected: Vec<Point> =
            rules.sides().iter().flat_map(|s| rules.deploy_points(*s).iter().copied()).collect();
        expected.sort();
        let mut given: Vec<Point> = deal.iter().map(|d| d.0).collect();
        given.sort();
        if let Some(w) = given.windows(2).find(|w| w[0] == w[1]) {
            return Err(SetupError::PointTwice(board.name_of(w[0]).to_owned()));
        }
        if let Some(p) = given.iter().find(|p| p.index() >= board.len()) {
            return Err(SetupError::UnknownPoint(format!("#{}", p.index())));
        }
        // A point of the board where nothing is dealt (a camp, in 翻棋) is no unknown
        // point: it said "unknown point \"b8\"" of the board's own b8.
        let expected_set: PointSet = expected.iter().copied().collect();
        if let Some(&p) = given.iter().find(|p| !expected_set.contains(**p)) {
            return Err(SetupError::NotDeployable { point: board.name_of(p).to_owned(), role: board.role(p) });
        }
        let mut counts = [[0usize; PieceKind::COUNT]; 4];
        for &(_, side, kind) in deal {
            counts[side as usize][kind as usize] += 1;
        }
        for &side in rules.sides() {
            for (kind, n) in rules.army() {
                let found = counts[side as usize][kind as usize];
                if found != n as usize {
                    return Err(SetupError::WrongCount { kind, expected: n, found: found.min(255) as u8 });
                }
            }
        }
        if given.len() != expected.len() {
            let given_set: PointSet = given.iter().copied().collect();
            let missing = expected.iter().find(|p| !given_set.contains(**p)).expect("a point is missing");
            return Err(SetupError::PointLeftEmpty(board.name_of(*missing).to_owned()));
        }
        let mut pos = Position::new(rules.clone());
        let mut sorted = deal.to_vec();
        sorted.sort();
        let mut next = [0usize; 4];
        for (p, side, kind) in sorted {
            let i = rules.sides().iter().position(|s| *s == side).ok_or(SetupError::NoSuchSide {
                side,
                rules: rules.name().to_owned(),
            })?;
            let id = i * rules.army_size() + next[i];
            next[i] += 1;
            pos.slots[id] = Slot { kind, owner: side, at: p.0 };
            pos.cells[p.index()] = id as u8;
            pos.occ[side as usize].insert(p);
            pos.occupied.insert(p);
            pos.arm_occ[kind.arm() as usize].insert(p);
            pos.hidden.insert(p);
        }
        pos.armies = [None; 4];
        pos.deployed = rules.sides().iter().copied().collect();
        pos.phase = Phase::Move;
        pos.turn = 0;
        pos.check_stalemate();
        Ok(pos)
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The side to act: during deployment the first side (in turn order) that has not
    /// deployed; `None` once the game is over.
    pub fn to_act(&self) -> Option<Side> {
        match self.phase {
            Phase::Deploy => self
                .rules
                .sides()
                .iter()
                .copied()
                .find(|s| !self.deployed.contains(*s) && !self.out.contains(*s)),
            Phase::Move => Some(self.rules.sides()[self.turn as usize]),
            Phase::Reaction => self.player_of(self.slots[self.react as usize].owner),
            Phase::Over => None,
        }
    }

    /// Sides that have deployed.
    pub fn deployed(&self) -> SideSet {
        self.deployed
    }

    /// Plies (moves) played since deployment.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies in a row without a piece leaving the board.
    pub fn no_capture_plies(&self) -> u32 {
        self.no_capture
    }

    /// [`Position::no_capture_plies`] under its name of development versions.
    #[deprecated(since = "0.1.0", note = "the no-capture counter has one name: use `no_capture_plies`")]
    pub fn quiet_plies(&self) -> u32 {
        self.no_capture
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// The piece on a point: owner and kind (the referee's knowledge).
    pub fn piece_at(&self, p: Point) -> Option<(Side, PieceKind)> {
        let id = self.cells[p.index()];
        (id != NO_PIECE).then(|| {
            let s = self.slots[id as usize];
            (s.owner, s.kind)
        })
    }

    /// The stable id of the piece on a point (referee knowledge): its index in the
    /// game's piece table, the same wherever the piece goes. Ids follow the sides' turn
    /// order and each side's deployment in point order.
    pub fn piece_id(&self, p: Point) -> Option<usize> {
        let id = *self.cells.get(p.index())?;
        (id != NO_PIECE).then_some(id as usize)
    }

    /// The owner of the piece on a point (public knowledge).
    pub fn owner_at(&self, p: Point) -> Option<Side> {
        let id = self.cells[p.index()];
        (id != NO_PIECE).then(|| self.slots[id as usize].owner)
    }

    /// Every piece on the board: point, owner, kind — in point order.
    pub fn pieces(&self) -> impl Iterator<Item = (Point, Side, PieceKind)> + '_ {
        self.rules.board().points().filter_map(move |p| self.piece_at(p).map(|(s, k)| (p, s, k)))
    }

    /// Whether `player` knows the identity of the piece on `p`.
    pub fn knows(&self, player: Side, p: Point) -> bool {
        let id = self.cells[p.index()];
        id != NO_PIECE && self.known[player as usize] >> id & 1 == 1
    }

    /// The board as `player` sees it: every piece with its owner, and its kind only if
    /// `player` knows it. In point order.
    pub fn view_pieces(&self, player: Side) -> Vec<SeenPiece> {
        self.rules
            .board()
            .points()
            .filter_map(|p| {
                let id = self.cells[p.index()];
                (id != NO_PIECE).then(|| {
                    let s = self.slots[id as usize];
                    SeenPiece {
                        point: p,
                        owner: (!self.hidden.contains(p)).then_some(s.owner),
                        kind: (self.known[player as usize] >> id & 1 == 1).then_some(s.kind),
                        arm: s.kind.arm(),
                    }
                })
            })
            .collect()
    }

    /// The seeded start of `seed`, the one every layer means by "a game from a seed":
    /// the seed's deal in a rule set that deals (翻棋), else every side deployed at
    /// random, each side's setup from `seed` and the side alone
    /// ([`Position::start_setup_seed`]). [`crate::Game::random_start`] is the same start
    /// with a referee around it.
    ///
    /// # Panics
    /// If no setup satisfies the rule set's deployment constraints (a broken custom rule
    /// set; see [`Deployment::try_random`] and [`crate::Game::random_start`], which
    /// refuses instead).
    pub fn random_start(rules: Arc<RuleSet>, seed: u64) -> Position {
        if rules.deals() {
            let deal = Position::deal_for(&rules, seed);
            return Position::from_deal(rules, &deal).expect("a seed's deal is valid");
        }
        let mut pos = Position::new(rules.clone());
        for &side in rules.sides() {
            pos.deploy(&Deployment::random(&rules, side, Position::start_setup_seed(&rules, seed, side)))
                .expect("a fresh position takes every side's deployment");
        }
        pos
    }

    /// The seed of `side`'s random setup in the seeded start of `seed`
    /// ([`Position::random_start`]): a function of the seed and of the side's place in
    /// the rule set's turn order only, so a side deploys the same setup whoever else
    /// deploys what. (Keyed: one side's setup does not give the seed, nor so the
    /// others' setups, away.)
    pub fn start_setup_seed(rules: &RuleSet, seed: u64, side: Side) -> u64 {
        let mut rng = crate::rng::KeyedRng::new(seed, 0x57A2_7000);
        let place = rules.sides().iter().position(|&s| s == side).unwrap_or(rules.sides().len());
        for _ in 0..place {
            rng.next_u64();
        }
        rng.next_u64()
    }

    /// Whether `side` may deploy now: `Ok`, or the refusal [`Position::deploy`] gives
    /// whatever the setup — [`PlayError::Dealt`] in a rule set that deals,
    /// [`PlayError::NotDeployPhase`] or [`PlayError::GameOver`] after the deployment
    /// phase, [`PlayError::NotPlaying`] for a side that does not play or is out,
    /// [`PlayError::AlreadyDeployed`]. Every layer asks this instead of checking the
    /// phase itself.
    pub fn may_deploy(&self, side: Side) -> Result<(), PlayError> {
        if self.rules.deals() {
            return Err(PlayError::Dealt);
        }
        match self.phase {
            Phase::Deploy => {}
            Phase::Move | Phase::Reaction => return Err(PlayError::NotDeployPhase),
            Phase::Over => return Err(PlayError::GameOver),
        }
        self.rules.check_side(side)?;
        if self.deployed.contains(side) {
            return Err(PlayError::AlreadyDeployed(side));
        }
        if self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        Ok(())
    }

    /// Whether `side` may act now (move, flip or react): `Ok`, or the refusal an
    /// action of `side` gets whatever the action — [`PlayError::GameOver`],
    /// [`PlayError::NotMovePhase`] while deploying, [`PlayError::NotPlaying`] for a
    /// side that does not play or is out, [`PlayError::NotYourTurn`].
    ///
    /// ```
    /// use junqi::{Position, PlayError, RuleSet, Side};
    /// let pos = Position::random_start(RuleSet::preset("classic").unwrap(), 1);
    /// assert!(pos.may_act(Side::South).is_ok());
    /// assert_eq!(pos.may_act(Side::North), Err(PlayError::NotYourTurn { side: Side::North, to_act: Side::South }));
    /// assert_eq!(pos.may_act(Side::East), Err(PlayError::NotPlaying(Side::East)));
    /// ```
    pub fn may_act(&self, side: Side) -> Result<(), PlayError> {
        match self.phase {
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Move | Phase::Reaction => {}
        }
        self.rules.check_side(side)?;
        if self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        match self.to_act() {
            Some(to_act) if to_act != side => Err(PlayError::NotYourTurn { side, to_act }),
            _ => Ok(()),
        }
    }

    /// Places a validated deployment. Deployments may come in any order.
    pub fn deploy(&mut self, deployment: &Deployment) -> Result<(), PlayError> {
        let side = deployment.side();
        self.may_deploy(side)?;
        let slot_base = self
            .rules
            .sides()
            .iter()
            .position(|s| *s == side)
            .expect("a validated deployment's side plays")
            * self.rules.army_size();
        for (i, &(p, kind)) in deployment.pieces().iter().enumerate() {
            let id = slot_base + i;
            self.slots[id] = Slot {
                kind,
                owner: side,
                at: p.0,
            };
            self.cells[p.index()] = id as u8;
            self.occ[side as usize].insert(p);
            self.occupied.insert(p);
            self.arm_occ[kind.arm() as usize].insert(p);
            self.known_by_team(side, id);
        }
        self.deployed = self.deployed.with(side);
        self.start_if_deployed();
        Ok(())
    }

    /// Starts the move phase once every side still in has deployed.
    fn start_if_deployed(&mut self) {
        let sides = self.rules.sides();
        if sides.iter().all(|s| self.deployed.contains(*s) || self.out.contains(*s)) {
            self.phase = Phase::Move;
            self.turn = 0;
            if self.out.contains(sides[0]) {
                self.advance_turn();
            }
            self.open_if_asked();
            self.check_stalemate();
        }
    }

    /// 明棋 (`open_after_deploy`): once every side has deployed, every piece on the
    /// board is known to every player for the rest of the game.
    fn open_if_asked(&mut self) {
        if self.rules.options().open_after_deploy {
            for p in self.occupied.iter() {
                let id = self.cells[p.index()];
                self.reveal_to_all(id);
            }
        }
    }

    /// The army `player` commands: itself, except in 翻棋 where the first flip decides
    /// (`None` until then).
    pub fn army_of(&self, player: Side) -> Option<Side> {
        self.armies[player as usize]
    }

    /// The player commanding `army`, if any.
    pub fn player_of(&self, army: Side) -> Option<Side> {
        self.rules.sides().iter().copied().find(|p| self.armies[*p as usize] == Some(army))
    }

    /// Whether the piece on `p` is face down (翻棋).
    pub fn is_face_down(&self, p: Point) -> bool {
        self.hidden.contains(p)
    }

    /// Points holding face-down pieces.
    pub fn face_down(&self) -> PointSet {
        self.hidden
    }

    /// Whether the piece on `p` has moved: left a point, or attacked by moving onto its
    /// target (a strike from afar, a missile's flight and a 翻棋 flip are no moves).
    /// Public knowledge — every move is — so it is in view strings too (the `*` mark of
    /// docs/position-strings.md): such a piece is of no immobile kind (no mine, no
    /// flag). The same as every player's [`crate::Beliefs::has_moved`].
    pub fn has_moved(&self, p: Point) -> bool {
        self.moved.contains(p)
    }

    /// Points holding a piece that has moved (see [`Position::has_moved`]).
    pub fn moved(&self) -> PointSet {
        self.moved
    }

    /// Whether `army` still has a piece that can move (face up or face down).
    fn has_movable_piece(&self, army: Side) -> bool {
        self.occ[army as usize].iter().any(|p| {
            let k = self.slots[self.cells[p.index()] as usize].kind;
            self.rules.mobility(k) != crate::rules::Mobility::Immobile
        })
    }

    /// Whether the piece on `q` may not be attacked because an HQ shelters it
    /// (`hq_shelter`: all but mines and flags) or its side's mines guard it
    /// (`flag_guarded_by_mines`).
    pub(crate) fn shielded(&self, q: Point) -> bool {
        let opts = self.rules.options();
        let Some(s) = self.slot_at(q) else { return false };
        (opts.hq_shelter
            && self.rules.board().role(q) == Role::Hq
            && !matches!(s.kind, PieceKind::Mine | PieceKind::Flag))
            || (opts.flag_guarded_by_mines && s.kind == PieceKind::Flag && self.has_mines(s.owner))
    }

    /// Whether `army` has a mine on the board (the first one found settles it).
    pub(crate) fn has_mines(&self, army: Side) -> bool {
        self.occ[army as usize]
            .iter()
            .any(|p| self.slots[self.cells[p.index()] as usize].kind == PieceKind::Mine)
    }

    /// Time-outs of a side so far.
    pub fn timeouts(&self, side: Side) -> u8 {
        self.timeouts[side as usize]
    }

    /// Sides that are out of the game.
    pub fn eliminated(&self) -> SideSet {
        self.out
    }

    /// Marks piece `id` of `side` as known to `side` (and to its allies when they see
    /// each other).
    fn known_by_team(&mut self, side: Side, id: usize) {
        let team = if self.rules.options().allies_see_each_other {
            self.rules.team_of(side)
        } else {
            SideSet::single(side)
        };
        for s in team.iter() {
            self.known[s as usize] |= 1u128 << id;
        }
    }

    fn relocate(&mut self, id: u8, to: Point) {
        let slot = &mut self.slots[id as usize];
        let from = Point(slot.at);
        slot.at = to.0;
        let arm = &mut self.arm_occ[slot.kind.arm() as usize];
        arm.remove(from);
        arm.insert(to);
        let occ = &mut self.occ[slot.owner as usize];
        occ.remove(from);
        occ.insert(to);
        self.occupied.remove(from);
        self.occupied.insert(to);
        if self.moved.contains(from) {
            self.moved.remove(from);
            self.moved.insert(to);
        }
        self.cells[from.index()] = NO_PIECE;
        self.cells[to.index()] = id;
    }

    fn remove(&mut self, id: u8) {
        let slot = &mut self.slots[id as usize];
        let at = Point(slot.at);
        slot.at = OFF_BOARD;
        // A plane that owed a move away and leaves the board owes nothing any more.
        let owed = &mut self.obliged[slot.owner as usize];
        if *owed == id {
            *owed = NO_PIECE;
        }
        if self.cells[at.index()] == id {
            self.arm_occ[slot.kind.arm() as usize].remove(at);
            self.cells[at.index()] = NO_PIECE;
            self.occ[slot.owner as usize].remove(at);
            self.occupied.remove(at);
            self.hidden.remove(at);
            self.moved.remove(at);
        }
    }

    /// Points holding a piece.
    pub fn occupied(&self) -> PointSet {
        self.occupied
    }

    /// Points holding a piece of an arm (arms are public).
    pub fn occupied_by_arm(&self, arm: crate::piece::Arm) -> PointSet {
        self.arm_occ[arm as usize]
    }

    /// Points holding a piece of `side`.
    pub fn occupied_by(&self, side: Side) -> PointSet {
        self.occ[side as usize]
    }

    fn reveal_to_all(&mut self, id: u8) {
        for k in &mut self.known {
            *k |= 1u128 << id;
        }
    }

    /// Reveals `side`'s flag (if still on the board) to everyone; returns its point.
    fn reveal_flag(&mut self, side: Side) -> Option<Point> {
        let id = self
            .slots
            .iter()
            .position(|s| s.owner == side && s.kind == PieceKind::Flag && s.at != OFF_BOARD)?;
        self.reveal_to_all(id as u8);
        Some(Point(self.slots[id].at))
    }

    /// Target set of the piece on `from` (empty if none may move).
    #[inline]
    pub(crate) fn targets(&self, from: Point) -> PointSet {
        crate::position::movegen::targets(self, from)
    }

    pub(crate) fn is_empty_at(&self, p: Point) -> bool {
        self.cells[p.index()] == NO_PIECE
    }

    pub(crate) fn slot_at(&self, p: Point) -> Option<Slot> {
        let id = self.cells[p.index()];
        (id != NO_PIECE).then(|| self.slots[id as usize])
    }

    /// Test and tooling hook: whether two positions hold the same pieces, knowledge,
    /// turn and counters.
    pub fn same_state(&self, other: &Position) -> bool {
        self.cells == other.cells
            && self.slots == other.slots
            && self.occ == other.occ
            && self.known == other.known
            && self.arm_occ == other.arm_occ
            && self.obliged == other.obliged
            && self.react == other.react
            && self.react_removed == other.react_removed
            && self.hidden == other.hidden
            && self.moved == other.moved
            && self.armies == other.armies
            && self.deployed == other.deployed
            && self.out == other.out
            && self.timeouts == other.timeouts
            && self.turn == other.turn
            && self.phase == other.phase
            && self.ply == other.ply
            && self.no_capture == other.no_capture
            && self.result == other.result
    }
}
