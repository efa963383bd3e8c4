//! The game state: where every piece stands, who knows what, whose turn it is.
//!
//! [`Position`] is the referee's complete state — it knows every identity — kept small
//! and allocation-free so that search and playouts can clone it freely. What a player
//! may see of it is [`Position::view_pieces`]; the full refereed game with event logs
//! and records is [`crate::Game`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::board::{Point, PointSet, Role, MAX_POINTS};
use crate::combat::Outcome;
use crate::piece::{Arm, PieceKind, Side, SideSet};
use crate::combat::{resolution, Attack};
use crate::rules::{Ability, Mobility, RuleSet, Scouting};
use crate::setup::Deployment;

/// Most pieces a game may hold (all sides together).
pub const MAX_PIECES: usize = 128;

const EMPTY: u8 = u8::MAX;
const OFF_BOARD: u8 = u8::MAX;

/// What kind of action the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Sides still have to deploy (in any order; [`Position::to_act`] names the first).
    Deploy,
    /// The side to act moves.
    Move,
    /// A reaction is due before play goes on: the owner of a submarine that evaded
    /// steps it to an empty neighbouring sea point (海陆空三军棋, `evade_step`).
    Reaction,
    /// The game is over.
    Over,
}

/// Why a game ended (or why a side is out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A flag was captured.
    FlagCaptured,
    /// The side to act had no legal move.
    NoLegalMove,
    /// Too many plies in a row without a piece leaving the board.
    NoCaptureLimit,
    /// A side resigned.
    Resignation,
    /// The players agreed to a draw.
    Agreement,
    /// A player ran out of time too often (`max_timeouts`).
    TimeOuts,
    /// A side's movable pieces are all gone (`lose_without_movable_pieces`, 翻棋).
    NoMovablePieces,
    /// A side's commander left the board (`commander_capture`, 夺取主帅).
    CommanderCaptured,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    /// The winning sides (one side, or a team); empty for a draw.
    pub winners: SideSet,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Phase {
    /// Every phase.
    pub const ALL: [Phase; 4] = [Phase::Deploy, Phase::Move, Phase::Reaction, Phase::Over];

    /// The snake_case name, e.g. `"move"`.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Deploy => "deploy",
            Phase::Move => "move",
            Phase::Reaction => "reaction",
            Phase::Over => "over",
        }
    }
}

impl EndReason {
    /// Every reason.
    pub const ALL: [EndReason; 8] = [
        EndReason::FlagCaptured,
        EndReason::NoLegalMove,
        EndReason::NoCaptureLimit,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::TimeOuts,
        EndReason::NoMovablePieces,
        EndReason::CommanderCaptured,
    ];

    /// The snake_case name, e.g. `"flag_captured"`.
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::FlagCaptured => "flag_captured",
            EndReason::NoLegalMove => "no_legal_move",
            EndReason::NoCaptureLimit => "no_capture_limit",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::TimeOuts => "time_outs",
            EndReason::NoMovablePieces => "no_movable_pieces",
            EndReason::CommanderCaptured => "commander_captured",
        }
    }
}

impl GameResult {
    /// Whether the game was drawn.
    pub fn is_draw(&self) -> bool {
        self.winners.is_empty()
    }

    /// The single winning side, if exactly one side won.
    pub fn winner(&self) -> Option<Side> {
        (self.winners.len() == 1).then(|| self.winners.iter().next()).flatten()
    }
}

/// Why an action was refused. The game is left unchanged.
///
/// Every message depends only on what the acting player knows: the board, public
/// facts and its own identities.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// A move before every side has deployed.
    #[error("the game is in the deployment phase: every side must deploy before moves")]
    NotMovePhase,
    /// A deployment after the deployment phase.
    #[error("deployment is over")]
    NotDeployPhase,
    /// A deployment in a rule set that deals face down (翻棋).
    #[error("this rule set deals every piece face down: nothing is deployed")]
    Dealt,
    /// The side has already deployed.
    #[error("{0} has already deployed")]
    AlreadyDeployed(Side),
    /// The side does not play in this rule set, or is already out.
    #[error("{0} is not in the game")]
    NotPlaying(Side),
    /// The side named is not the side to act.
    #[error("it is {to_act}'s turn, not {side}'s")]
    NotYourTurn {
        /// The side that tried to act.
        side: Side,
        /// The side to act.
        to_act: Side,
    },
    /// No piece on the starting point.
    #[error("there is no piece on {0}")]
    NoPiece(String),
    /// The piece on the starting point belongs to another side.
    #[error("the piece on {0} is not yours")]
    NotYourPiece(String),
    /// The piece never moves (flag, mine).
    #[error("the {kind} on {point} never moves")]
    Immobile {
        /// Where it stands.
        point: String,
        /// Its kind (the mover's own piece).
        kind: PieceKind,
    },
    /// The piece stands in an HQ and may not move again.
    #[error("the piece on {0} is in a headquarters and may not move again")]
    InHeadquarters(String),
    /// The target holds one of the mover's own pieces.
    #[error("{0} holds one of your own pieces")]
    OwnPiece(String),
    /// The target holds an ally's piece.
    #[error("{0} holds an ally's piece")]
    AllyPiece(String),
    /// The piece is face down and cannot move until flipped (翻棋).
    #[error("the piece on {0} is face down: flip it first")]
    FaceDown(String),
    /// A flip of a piece that is already face up (翻棋).
    #[error("the piece on {0} is already face up")]
    FaceUp(String),
    /// An attack on a face-down piece (翻棋).
    #[error("the piece on {0} is face down and cannot be attacked")]
    TargetFaceDown(String),
    /// An attack on a piece sheltered in an HQ (翻棋: only mines and flags there can be).
    #[error("the piece on {0} is sheltered in a headquarters")]
    ProtectedByHq(String),
    /// An attack on a flag whose side still has mines (翻棋).
    #[error("the flag on {0} cannot be attacked while its side still has mines")]
    FlagGuardedByMines(String),
    /// The target is a camp with a piece in it.
    #[error("the piece on {0} is in a camp and cannot be attacked")]
    ProtectedByCamp(String),
    /// A submarine's evasion step is due first (海陆空三军棋).
    #[error("the submarine on {0} must first step away (a reaction): move it to an empty neighbouring sea point")]
    ReactionPending(String),
    /// A plane that was repelled (or scouted) must move away this turn.
    #[error("the plane on {0} was repelled last turn and must move away now")]
    MustMoveAway(String),
    /// An attack on a piece whose kind the mover has been shown and may not attack
    /// (e.g. the flag in `sanjun-forum`, for all but engineers and aa guns).
    #[error("the {kind} on {from} may not attack the {target} on {to}")]
    ForbiddenAttack {
        /// The mover's kind.
        kind: PieceKind,
        /// Its point.
        from: String,
        /// The target's kind (known to the mover).
        target: PieceKind,
        /// The target's point.
        to: String,
    },
    /// The piece cannot get there this turn.
    #[error("the {kind} on {from} cannot reach {to} this turn: no step, clear run, flight or strike joins them")]
    Unreachable {
        /// The piece's kind (the mover's own piece).
        kind: PieceKind,
        /// Start point.
        from: String,
        /// Target point.
        to: String,
    },
}

/// Why a piece was revealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RevealCause {
    /// Its side's commander left the board (the flag is shown to everyone).
    CommanderLost,
    /// An attacking engineer scouted it (`engineer_scouts`).
    EngineerScout,
    /// A recon plane scouted it (to the recon's owner).
    Scouted,
    /// It shot down or struck a plane (to the plane's owner).
    AntiAir,
    /// Open play: both pieces of every combat are shown to everyone.
    OpenPlay,
}

impl RevealCause {
    /// Every cause.
    pub const ALL: [RevealCause; 5] = [
        RevealCause::CommanderLost,
        RevealCause::EngineerScout,
        RevealCause::Scouted,
        RevealCause::AntiAir,
        RevealCause::OpenPlay,
    ];

    /// The snake_case name used in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            RevealCause::CommanderLost => "commander_lost",
            RevealCause::EngineerScout => "engineer_scout",
            RevealCause::Scouted => "scouted",
            RevealCause::AntiAir => "anti_air",
            RevealCause::OpenPlay => "open_play",
        }
    }
}

/// A piece's identity shown by an action: to one player, or to everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reveal {
    /// Where the piece stands (or stood, if it has just left the board).
    pub point: Point,
    /// Its owner.
    pub owner: Side,
    /// Its kind.
    pub kind: PieceKind,
    /// The player told, or `None` for everyone.
    pub to: Option<Side>,
    /// Why.
    pub cause: RevealCause,
}

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

/// A piece as one player sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeenPiece {
    /// Where it stands.
    pub point: Point,
    /// Its owner (public), or `None` while it is face down (翻棋).
    pub owner: Option<Side>,
    /// Its kind, if the player knows it.
    pub kind: Option<PieceKind>,
    /// Its arm: army, navy or air force (public: what started on an anchorage is a
    /// ship, on an airport a plane).
    pub arm: Arm,
}

/// What one move did — the referee's full account, before it is split into what each
/// player may learn (see [`crate::Report`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The side that moved.
    pub side: Side,
    /// Start point.
    pub from: Point,
    /// Target point (the same as `from` for a flip).
    pub to: Point,
    /// Whether the action was a flip (翻棋) rather than a move.
    pub flipped: bool,
    /// Whether this flip fixed which army each player commands (the first flip).
    pub armies_assigned: bool,
    /// The piece's kind (private to the mover; public for a flip).
    pub kind: PieceKind,
    /// The combat, if the target held an enemy piece: defender owner, defender kind
    /// and outcome.
    pub combat: Option<(Side, PieceKind, Outcome)>,
    /// Flags revealed because their side's commander left the board: (side, point).
    pub flags_revealed: [Option<(Side, Point)>; 2],
    /// The defender's identity was revealed by an attacking engineer, and to whom.
    pub scouted: Scouting,
    /// Sides put out of a game that goes on (their pieces left the board), and why.
    pub eliminated: Eliminations,
    /// The game's result, if this move ended it.
    pub result: Option<GameResult>,
    /// Where the defender stood (for a plane attacking a surface piece, the point
    /// below the plane's target position).
    pub defender_at: Option<Point>,
    /// The attacker did not move: a strike, a bombardment or anti-aircraft fire.
    pub struck: bool,
    /// The plane was shot down at this air position on its way (海陆空三军棋).
    pub shot_down_at: Option<Point>,
    /// Identities this action showed (scouting, anti-aircraft guns, open play).
    pub reveals: [Option<Reveal>; 3],
    /// A submarine evaded and its owner must now step it away from this point
    /// ([`Phase::Reaction`]).
    pub reaction_due: Option<Point>,
    /// This action was a submarine's evasion step (a reaction).
    pub reaction: bool,
}

impl MoveOutcome {
    fn new(side: Side, from: Point, to: Point, kind: PieceKind) -> MoveOutcome {
        MoveOutcome {
            side,
            from,
            to,
            flipped: false,
            armies_assigned: false,
            kind,
            combat: None,
            flags_revealed: [None, None],
            scouted: Scouting::Off,
            eliminated: Eliminations::default(),
            result: None,
            defender_at: None,
            struck: false,
            shot_down_at: None,
            reveals: [None; 3],
            reaction_due: None,
            reaction: false,
        }
    }

    fn push_reveal(&mut self, r: Reveal) {
        if let Some(slot) = self.reveals.iter_mut().find(|x| x.is_none()) {
            *slot = Some(r);
        }
    }
}

/// Sides eliminated by one action while the game went on (at most three of four).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eliminations([Option<(Side, EndReason)>; 3]);

impl Eliminations {
    fn push(&mut self, side: Side, reason: EndReason) {
        if let Some(slot) = self.0.iter_mut().find(|e| e.is_none()) {
            *slot = Some((side, reason));
        }
    }

    /// The eliminated sides with the reason, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Side, EndReason)> + '_ {
        self.0.iter().flatten().copied()
    }
}

/// What a time-out did (see [`Position::time_out`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeOutOutcome {
    /// The side that timed out.
    pub side: Side,
    /// Its time-outs so far.
    pub count: u8,
    /// Sides put out of a game that goes on.
    pub eliminated: Eliminations,
    /// The game's result, if this ended it.
    pub result: Option<GameResult>,
}

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
    /// The army each player commands (翻棋: fixed by the first flip).
    armies: [Option<Side>; 4],
    deployed: SideSet,
    out: SideSet,
    timeouts: [u8; 4],
    turn: u8,
    phase: Phase,
    ply: u32,
    quiet: u32,
    result: Option<GameResult>,
}

impl Position {
    /// An empty position waiting for deployments.
    pub fn new(rules: Arc<RuleSet>) -> Position {
        Position {
            rules,
            cells: [EMPTY; MAX_POINTS],
            slots: [NO_SLOT; MAX_PIECES],
            occ: [PointSet::EMPTY; 4],
            occupied: PointSet::EMPTY,
            arm_occ: [PointSet::EMPTY; 3],
            known: [0; 4],
            obliged: [EMPTY; 4],
            react: EMPTY,
            react_removed: false,
            hidden: PointSet::EMPTY,
            armies: Side::ALL.map(Some),
            deployed: SideSet::EMPTY,
            out: SideSet::EMPTY,
            timeouts: [0; 4],
            turn: 0,
            phase: Phase::Deploy,
            ply: 0,
            quiet: 0,
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
        crate::rng::Rng::new(seed ^ 0xF1A9_D3A1).shuffle(&mut pieces);
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
        if let Some(p) = given.iter().find(|p| p.index() >= board.len() || !expected.contains(p)) {
            return Err(SetupError::UnknownPoint(
                board.point_at(p.index()).map_or(format!("#{}", p.index()), |q| board.name_of(q).to_owned()),
            ));
        }
        for &side in rules.sides() {
            for (kind, n) in rules.army() {
                let found = deal.iter().filter(|d| d.1 == side && d.2 == kind).count();
                if found != n as usize {
                    return Err(SetupError::WrongCount { kind, expected: n, found: found.min(255) as u8 });
                }
            }
        }
        if given.len() != expected.len() {
            let missing = expected.iter().find(|p| !given.contains(p)).expect("a point is missing");
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
    pub fn quiet_plies(&self) -> u32 {
        self.quiet
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// The piece on a point: owner and kind (the referee's knowledge).
    pub fn piece_at(&self, p: Point) -> Option<(Side, PieceKind)> {
        let id = self.cells[p.index()];
        (id != EMPTY).then(|| {
            let s = self.slots[id as usize];
            (s.owner, s.kind)
        })
    }

    /// The stable id of the piece on a point (referee knowledge): its index in the
    /// game's piece table, the same wherever the piece goes. Ids follow the sides' turn
    /// order and each side's deployment in point order.
    pub fn piece_id(&self, p: Point) -> Option<usize> {
        let id = *self.cells.get(p.index())?;
        (id != EMPTY).then_some(id as usize)
    }

    /// The owner of the piece on a point (public knowledge).
    pub fn owner_at(&self, p: Point) -> Option<Side> {
        let id = self.cells[p.index()];
        (id != EMPTY).then(|| self.slots[id as usize].owner)
    }

    /// Every piece on the board: point, owner, kind — in point order.
    pub fn pieces(&self) -> impl Iterator<Item = (Point, Side, PieceKind)> + '_ {
        self.rules.board().points().filter_map(move |p| self.piece_at(p).map(|(s, k)| (p, s, k)))
    }

    /// Whether `player` knows the identity of the piece on `p`.
    pub fn knows(&self, player: Side, p: Point) -> bool {
        let id = self.cells[p.index()];
        id != EMPTY && self.known[player as usize] >> id & 1 == 1
    }

    /// The board as `player` sees it: every piece with its owner, and its kind only if
    /// `player` knows it. In point order.
    pub fn view_pieces(&self, player: Side) -> Vec<SeenPiece> {
        self.rules
            .board()
            .points()
            .filter_map(|p| {
                let id = self.cells[p.index()];
                (id != EMPTY).then(|| {
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

    /// A game start for random play: the seed's deal in a rule set that deals (翻棋),
    /// else a random legal deployment of every side, all from `seed`.
    ///
    /// # Panics
    /// If no setup satisfies the rule set's deployment constraints (a broken custom rule
    /// set; see [`Deployment::try_random`]).
    pub fn random_start(rules: Arc<RuleSet>, seed: u64) -> Position {
        if rules.deals() {
            let deal = Position::deal_for(&rules, seed);
            return Position::from_deal(rules, &deal).expect("a seed's deal is valid");
        }
        let mut rng = crate::rng::Rng::new(seed);
        let mut pos = Position::new(rules.clone());
        for &side in rules.sides() {
            pos.deploy(&Deployment::random(&rules, side, rng.next_u64()))
                .expect("a fresh position takes every side's deployment");
        }
        pos
    }

    /// Places a validated deployment. Deployments may come in any order.
    pub fn deploy(&mut self, deployment: &Deployment) -> Result<(), PlayError> {
        let side = deployment.side();
        if self.rules.deals() {
            return Err(PlayError::Dealt);
        }
        match self.phase {
            Phase::Deploy => {}
            Phase::Move | Phase::Reaction => return Err(PlayError::NotDeployPhase),
            Phase::Over => return Err(PlayError::GameOver),
        }
        if self.deployed.contains(side) {
            return Err(PlayError::AlreadyDeployed(side));
        }
        if self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
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
            self.check_stalemate();
        }
    }

    /// The legal actions of the side to act, in a fixed order (by start point, then
    /// target point). Empty when the game is not in the move phase.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::with_capacity(64);
        self.legal_actions_into(&mut out);
        out
    }

    /// Like [`Position::legal_actions`], filling a buffer the caller reuses.
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.phase == Phase::Reaction {
            let from = Point(self.slots[self.react as usize].at);
            out.extend(self.evasion_steps(from).iter().map(|to| Action::Move { from, to }));
            return;
        }
        if self.phase != Phase::Move {
            return;
        }
        let side = self.rules.sides()[self.turn as usize];
        if let Some(from) = self.obligation(side) {
            out.extend(self.targets(from).iter().map(|to| Action::Move { from, to }));
            return;
        }
        if let Some(army) = self.armies[side as usize] {
            for from in self.occ[army as usize].minus(self.hidden).iter() {
                out.extend(self.targets(from).iter().map(|to| Action::Move { from, to }));
            }
        }
        if !self.hidden.is_empty() {
            out.extend(self.hidden.iter().map(|at| Action::Flip { at }));
        }
    }

    /// Whether `side` (a player) has any legal action in the current position.
    pub fn has_legal_move(&self, side: Side) -> bool {
        !self.hidden.is_empty()
            || self.armies[side as usize].is_some_and(|army| {
                self.occ[army as usize]
                    .minus(self.hidden)
                    .iter()
                    .any(|p| !self.targets(p).is_empty())
            })
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

    /// The point of the plane `player` must move away this turn, if any (a plane that
    /// was repelled or scouted must move away on its owner's next turn if it can).
    pub fn obligation(&self, player: Side) -> Option<Point> {
        let army = self.armies[player as usize]?;
        let id = self.obliged[army as usize];
        if id == EMPTY || self.slots[id as usize].at == OFF_BOARD {
            return None;
        }
        let at = Point(self.slots[id as usize].at);
        (!self.targets(at).is_empty()).then_some(at)
    }

    /// Empty sea points a submarine on `p` may step to.
    fn evasion_steps(&self, p: Point) -> PointSet {
        self.rules.board().sea_step[p.index()].minus(self.occupied)
    }

    /// Whether the piece on `p` is face down (翻棋).
    pub fn is_face_down(&self, p: Point) -> bool {
        self.hidden.contains(p)
    }

    /// Points holding face-down pieces.
    pub fn face_down(&self) -> PointSet {
        self.hidden
    }

    /// Whether an action is legal for the side to act.
    pub fn is_legal(&self, action: Action) -> bool {
        self.check(action).is_ok()
    }

    /// Checks an action for the side to act; the error says why it is refused.
    pub fn check(&self, action: Action) -> Result<(), PlayError> {
        let board = self.rules.board();
        let name = |p: Point| board.name_of(p).to_owned();
        match self.phase {
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Reaction => {
                let sub = Point(self.slots[self.react as usize].at);
                return match action {
                    Action::Move { from, to } if from == sub => {
                        if self.evasion_steps(sub).contains(to) {
                            Ok(())
                        } else {
                            Err(PlayError::Unreachable {
                                kind: self.slots[self.react as usize].kind,
                                from: name(from),
                                to: name(to),
                            })
                        }
                    }
                    _ => Err(PlayError::ReactionPending(name(sub))),
                };
            }
            Phase::Move => {}
        }
        let side = self.rules.sides()[self.turn as usize];
        let (from, to) = match action {
            Action::Move { from, to } => (from, to),
            Action::Flip { at } => {
                return if self.is_empty_at(at) {
                    Err(PlayError::NoPiece(name(at)))
                } else if !self.hidden.contains(at) {
                    Err(PlayError::FaceUp(name(at)))
                } else {
                    Ok(())
                };
            }
        };
        let id = self.cells[from.index()];
        if id == EMPTY {
            return Err(PlayError::NoPiece(name(from)));
        }
        if self.hidden.contains(from) {
            return Err(PlayError::FaceDown(name(from)));
        }
        let slot = self.slots[id as usize];
        if self.armies[side as usize] != Some(slot.owner) {
            return Err(PlayError::NotYourPiece(name(from)));
        }
        if let Some(must) = self.obligation(side) {
            if must != from {
                return Err(PlayError::MustMoveAway(name(must)));
            }
        }
        if self.targets(from).contains(to) {
            return Ok(());
        }
        if crate::movegen::reachable(self, from).contains(to) {
            // Reachable, but an attack the mover knows is forbidden.
            let def = if self.is_empty_at(to) { board.below(to).unwrap_or(to) } else { to };
            if let Some((_, target)) = self.piece_at(def) {
                return Err(PlayError::ForbiddenAttack { kind: slot.kind, from: name(from), target, to: name(def) });
            }
        }
        use crate::rules::Mobility;
        if self.rules.mobility(slot.kind) == Mobility::Immobile {
            return Err(PlayError::Immobile {
                point: name(from),
                kind: slot.kind,
            });
        }
        if self.rules.options().hq_locks && board.role(from) == Role::Hq {
            return Err(PlayError::InHeadquarters(name(from)));
        }
        match self.slot_at(to) {
            Some(_) if self.hidden.contains(to) => Err(PlayError::TargetFaceDown(name(to))),
            Some(t) if t.owner == slot.owner => Err(PlayError::OwnPiece(name(to))),
            Some(t) if self.rules.team_of(slot.owner).contains(t.owner) => Err(PlayError::AllyPiece(name(to))),
            Some(_) if !self.rules.may_attack_camps(slot.kind) && board.role(to) == Role::Camp => {
                Err(PlayError::ProtectedByCamp(name(to)))
            }
            Some(t) if self.rules.deals() && self.shielded(to) => Err(if t.kind == PieceKind::Flag {
                PlayError::FlagGuardedByMines(name(to))
            } else {
                PlayError::ProtectedByHq(name(to))
            }),
            _ => Err(PlayError::Unreachable {
                kind: slot.kind,
                from: name(from),
                to: name(to),
            }),
        }
    }

    /// Plays an action of the side to act. An illegal action is refused with the reason
    /// and leaves the position unchanged.
    pub fn play(&mut self, action: Action) -> Result<MoveOutcome, PlayError> {
        self.check(action)?;
        Ok(self.play_unchecked(action))
    }

    /// Plays an action known to be legal (e.g. taken from [`Position::legal_actions`]).
    ///
    /// Playing an illegal action this way leaves the position consistent but not one
    /// the rules could reach; debug builds assert legality.
    pub fn play_unchecked(&mut self, action: Action) -> MoveOutcome {
        debug_assert!(self.check(action).is_ok(), "play_unchecked: illegal {action:?}");
        let (from, to) = match action {
            Action::Move { from, to } => (from, to),
            Action::Flip { at } => return self.flip(at),
        };
        if self.phase == Phase::Reaction {
            return self.evasion_step(from, to);
        }
        let side = self.rules.sides()[self.turn as usize];
        let att = self.cells[from.index()];
        let att_slot = self.slots[att as usize];
        let att_kind = att_slot.kind;
        let army = att_slot.owner;
        self.obliged[army as usize] = EMPTY;
        let rules = self.rules.clone();
        let board = rules.board();
        let mut out = MoveOutcome::new(side, from, to, att_kind);
        let manner = crate::movegen::manner(self, from, to, att_kind);
        out.struck = matches!(manner, Attack::Strike | Attack::Bombardment);
        let flying = rules.mobility(att_kind) == Mobility::Fly;
        let mut removed = false;
        let mut flag_taken = false;

        // A plane is shot down at the first enemy anti-aircraft piece it flies over or
        // onto; the gun is shown to the plane's owner.
        if flying {
            if let Some((at, gun)) = self.first_gun_on_run(from, to, army) {
                let g = self.slots[gun as usize];
                self.known[side as usize] |= 1u128 << gun;
                out.push_reveal(Reveal {
                    point: Point(g.at),
                    owner: g.owner,
                    kind: g.kind,
                    to: Some(side),
                    cause: RevealCause::AntiAir,
                });
                out.shot_down_at = Some(at);
                self.remove(att);
                self.end_turn(true, &mut out.eliminated);
                out.result = self.result;
                return out;
            }
        }

        // The defender: the piece on the target; for a plane over an empty air position,
        // an enemy piece on the surface below.
        let def_at = if !self.is_empty_at(to) {
            Some(to)
        } else if flying {
            board.below(to).filter(|&s| self.owner_at(s).is_some_and(|o| !rules.team_of(army).contains(o)))
        } else {
            None
        };
        let Some(def_at) = def_at else {
            self.relocate(att, to);
            self.end_turn(false, &mut out.eliminated);
            out.result = self.result;
            return out;
        };
        let def = self.cells[def_at.index()];
        let def_slot = self.slots[def as usize];
        out.defender_at = Some(def_at);
        // An attack the rules forbid on a piece whose kind the mover could not see (so it
        // was legal) is void: the referee rules it repelled.
        let outcome = if self.shielded(def_at) {
            Outcome::Repel
        } else {
            match rules.combat_outcome(att_kind, def_slot.kind) {
                Outcome::Illegal => Outcome::Repel,
                o => o,
            }
        };
        out.combat = Some((def_slot.owner, def_slot.kind, outcome));
        let def_player = self.player_of(def_slot.owner);
        if att_kind == PieceKind::Engineer {
            let scouting = rules.options().engineer_scouts;
            out.scouted = scouting;
            match scouting {
                Scouting::Off => {}
                Scouting::Attacker => self.known[side as usize] |= 1u128 << def,
                Scouting::Everyone => self.reveal_to_all(def),
            }
        }
        if rules.has_ability(att_kind, Ability::Scout) {
            self.known[side as usize] |= 1u128 << def;
            out.push_reveal(Reveal {
                point: def_at,
                owner: def_slot.owner,
                kind: def_slot.kind,
                to: Some(side),
                cause: RevealCause::Scouted,
            });
        }
        if board.is_air(def_at) && rules.has_ability(att_kind, Ability::AntiAir) && outcome.defender_leaves() {
            if let Some(p) = def_player {
                self.known[p as usize] |= 1u128 << att;
                out.push_reveal(Reveal { point: from, owner: army, kind: att_kind, to: Some(p), cause: RevealCause::AntiAir });
            }
        }
        if rules.options().open_play {
            self.reveal_to_all(att);
            self.reveal_to_all(def);
            out.push_reveal(Reveal { point: from, owner: army, kind: att_kind, to: None, cause: RevealCause::OpenPlay });
            out.push_reveal(Reveal { point: def_at, owner: def_slot.owner, kind: def_slot.kind, to: None, cause: RevealCause::OpenPlay });
        }
        // Who leaves and who moves (combat::resolution): a bombarding ship never
        // leaves; a missile never enters the air; a repelled plane stays above a
        // surface target but where it was against a plane.
        let res = resolution(&rules, att_kind, outcome, manner);
        let attacker_leaves = res.attacker_leaves;
        if res.defender_leaves {
            self.remove(def);
            removed = true;
            flag_taken = def_slot.kind == PieceKind::Flag;
        }
        if attacker_leaves {
            self.remove(att);
            removed = true;
        } else if res.attacker_moves
            && !(manner == Attack::Flight && board.is_air(to))
            && (outcome == Outcome::Win || self.is_empty_at(to))
        {
            self.relocate(att, to);
        }
        if flying && outcome == Outcome::Repel {
            self.obliged[army as usize] = att;
        }
        let mut n = 0;
        let mut commanders_lost = 0;
        let mut lost_army = army;
        for (gone, kind, owner) in [
            (outcome.defender_leaves(), def_slot.kind, def_slot.owner),
            (attacker_leaves, att_kind, army),
        ] {
            if gone && kind == PieceKind::Commander {
                commanders_lost += 1;
                lost_army = owner;
                if rules.options().commander_reveals_flag {
                    if let Some(flag_at) = self.reveal_flag(owner) {
                        out.flags_revealed[n] = Some((owner, flag_at));
                        n += 1;
                    }
                }
            }
        }
        if flag_taken {
            if let Some(loser) = self.player_of(def_slot.owner) {
                self.eliminate(loser, EndReason::FlagCaptured, &mut out.eliminated);
            }
        }
        if rules.options().commander_capture && commanders_lost == 1 && self.phase != Phase::Over {
            if let Some(loser) = self.player_of(lost_army) {
                self.eliminate(loser, EndReason::CommanderCaptured, &mut out.eliminated);
            }
        }
        if removed && rules.options().lose_without_movable_pieces {
            for &a in rules.sides() {
                if self.phase != Phase::Over && !self.has_movable_piece(a) {
                    if let Some(loser) = self.player_of(a).filter(|p| !self.out.contains(*p)) {
                        self.eliminate(loser, EndReason::NoMovablePieces, &mut out.eliminated);
                    }
                }
            }
        }
        // A submarine that evaded steps away first, if the rule set asks for it and it can.
        if outcome == Outcome::Evade
            && rules.options().evade_step
            && self.phase == Phase::Move
            && !self.evasion_steps(def_at).is_empty()
        {
            self.react = def;
            self.react_removed = removed;
            self.phase = Phase::Reaction;
            out.reaction_due = Some(def_at);
            return out;
        }
        self.end_turn(removed, &mut out.eliminated);
        out.result = self.result;
        out
    }

    /// The reacting submarine steps away; then the interrupted turn ends.
    fn evasion_step(&mut self, from: Point, to: Point) -> MoveOutcome {
        let id = self.react;
        let slot = self.slots[id as usize];
        let player = self.player_of(slot.owner).unwrap_or(slot.owner);
        self.relocate(id, to);
        let mut out = MoveOutcome::new(player, from, to, slot.kind);
        out.reaction = true;
        self.finish_reaction(&mut out.eliminated);
        out.result = self.result;
        out
    }

    /// Leaves the reaction phase and ends the turn that caused it.
    fn finish_reaction(&mut self, report: &mut Eliminations) {
        self.phase = Phase::Move;
        self.react = EMPTY;
        let removed = std::mem::take(&mut self.react_removed);
        self.end_turn(removed, report);
    }

    /// The first air position of a plane's run from `from` to `to` (excluding the start)
    /// over an enemy piece that shoots planes down, with that piece's slot.
    fn first_gun_on_run(&self, from: Point, to: Point, army: Side) -> Option<(Point, u8)> {
        let rules = &self.rules;
        let board = rules.board();
        let (first, last) = board.air_ray_of[from.index()];
        for &(start, end) in &board.air_ray_spans[first as usize..last as usize] {
            let ray = &board.air_ray_points[start as usize..end as usize];
            let Some(len) = ray.iter().position(|&q| q == to) else { continue };
            for &q in &ray[..=len] {
                let Some(s) = board.below(q) else { continue };
                let id = self.cells[s.index()];
                if id == EMPTY {
                    continue;
                }
                let g = self.slots[id as usize];
                if !rules.team_of(army).contains(g.owner) && rules.has_ability(g.kind, Ability::AntiAir) {
                    return Some((q, id));
                }
            }
            return None;
        }
        None
    }

    /// `side` resigns and is out. With two sides (or when its team is then beaten)
    /// the game ends; otherwise its pieces leave the board and play goes on.
    pub fn resign(&mut self, side: Side) -> Result<(Eliminations, Option<GameResult>), PlayError> {
        if self.phase == Phase::Over {
            return Err(PlayError::GameOver);
        }
        if !self.rules.sides().contains(&side) || self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        let mut report = Eliminations::default();
        if self.phase == Phase::Reaction {
            // The pending evasion step lapses: the submarine stays.
            self.finish_reaction(&mut report);
            if self.phase == Phase::Over || self.out.contains(side) {
                return Ok((report, self.result));
            }
        }
        let was_to_act = self.to_act() == Some(side);
        if self.eliminate(side, EndReason::Resignation, &mut report) {
            self.quiet = 0;
        }
        if self.phase == Phase::Move && was_to_act {
            self.advance_turn();
            self.settle_turn(&mut report);
        } else if self.phase == Phase::Deploy {
            self.start_if_deployed();
        }
        Ok((report, self.result))
    }

    /// Ends the game in a draw by agreement.
    pub fn agree_draw(&mut self) -> Result<GameResult, PlayError> {
        if self.phase == Phase::Over {
            return Err(PlayError::GameOver);
        }
        self.finish(SideSet::EMPTY, EndReason::Agreement);
        Ok(self.result.expect("just finished"))
    }

    /// Turns the face-down piece on `at` face up for everyone; the first flip gives the
    /// flipping player that piece's army and the other player the other army.
    fn flip(&mut self, at: Point) -> MoveOutcome {
        let side = self.rules.sides()[self.turn as usize];
        let id = self.cells[at.index()];
        let slot = self.slots[id as usize];
        self.hidden.remove(at);
        self.reveal_to_all(id);
        let mut armies_assigned = false;
        if self.armies[side as usize].is_none() {
            armies_assigned = true;
            let sides = self.rules.sides().to_vec();
            self.armies[side as usize] = Some(slot.owner);
            let others = sides.iter().copied().filter(|s| *s != side);
            let mut free = sides.iter().copied().filter(|a| *a != slot.owner);
            for p in others {
                self.armies[p as usize] = free.next();
            }
        }
        let mut out = MoveOutcome::new(side, at, at, slot.kind);
        out.flipped = true;
        out.armies_assigned = armies_assigned;
        // A flip is progress for the draw rule, like a capture.
        self.end_turn(true, &mut out.eliminated);
        out.result = self.result;
        out
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
            || (opts.flag_guarded_by_mines && s.kind == PieceKind::Flag && self.mines_left(s.owner) > 0)
    }

    /// Mines of `army` still on the board.
    pub(crate) fn mines_left(&self, army: Side) -> usize {
        self.occ[army as usize]
            .iter()
            .filter(|p| self.slots[self.cells[p.index()] as usize].kind == PieceKind::Mine)
            .count()
    }

    /// The referee's time-out for the side to act: the turn passes; with
    /// `max_timeouts`, a side that reaches it is out.
    pub fn time_out(&mut self) -> Result<TimeOutOutcome, PlayError> {
        match self.phase {
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Move | Phase::Reaction => {}
        }
        if self.phase == Phase::Reaction {
            // The reacting player let its time run out: the submarine stays.
            let side = self.to_act().expect("a reaction names a player");
            let count = &mut self.timeouts[side as usize];
            *count = count.saturating_add(1);
            let count = *count;
            let mut eliminated = Eliminations::default();
            if self.rules.options().max_timeouts.is_some_and(|m| count >= m) {
                self.react_removed |= self.eliminate(side, EndReason::TimeOuts, &mut eliminated);
            }
            if self.phase == Phase::Reaction {
                self.finish_reaction(&mut eliminated);
            }
            return Ok(TimeOutOutcome { side, count, eliminated, result: self.result });
        }
        let side = self.rules.sides()[self.turn as usize];
        let count = &mut self.timeouts[side as usize];
        *count = count.saturating_add(1);
        let count = *count;
        let mut eliminated = Eliminations::default();
        let mut removed = false;
        if self.rules.options().max_timeouts.is_some_and(|m| count >= m) {
            removed = self.eliminate(side, EndReason::TimeOuts, &mut eliminated);
        }
        self.end_turn(removed, &mut eliminated);
        Ok(TimeOutOutcome {
            side,
            count,
            eliminated,
            result: self.result,
        })
    }

    /// Time-outs of a side so far.
    pub fn timeouts(&self, side: Side) -> u8 {
        self.timeouts[side as usize]
    }

    /// Sides that are out of the game.
    pub fn eliminated(&self) -> SideSet {
        self.out
    }

    /// Puts `side` out. If the game goes on, its pieces leave the board (and the
    /// elimination is reported); if this decides the game, the board stays as it is.
    /// Returns whether pieces left the board.
    fn eliminate(&mut self, side: Side, reason: EndReason, report: &mut Eliminations) -> bool {
        self.out = self.out.with(side);
        if self.decide(reason) {
            return false;
        }
        report.push(side, reason);
        let mut removed = false;
        let Some(army) = self.armies[side as usize] else {
            return false;
        };
        for p in self.occ[army as usize].iter() {
            let id = self.cells[p.index()];
            self.remove(id);
            removed = true;
        }
        removed
    }

    /// Ends the game if the sides still in are all one team. Returns whether it ended.
    fn decide(&mut self, reason: EndReason) -> bool {
        let mut alive = self.rules.sides().iter().copied().filter(|s| !self.out.contains(*s));
        let Some(first) = alive.next() else {
            self.finish(SideSet::EMPTY, reason);
            return true;
        };
        let team = self.rules.team_of(first);
        if alive.all(|s| team.contains(s)) {
            self.finish(team, reason);
            return true;
        }
        false
    }

    /// After an action: count the ply, apply the draw rule, pass the turn to the next
    /// side still in, and put out every side that has no legal move on its turn.
    fn end_turn(&mut self, removed: bool, report: &mut Eliminations) {
        self.ply += 1;
        self.quiet = if removed { 0 } else { self.quiet + 1 };
        if self.phase == Phase::Over {
            return;
        }
        let limit = self.rules.options().no_capture_draw_plies;
        if limit > 0 && self.quiet >= limit {
            self.finish(SideSet::EMPTY, EndReason::NoCaptureLimit);
            return;
        }
        self.advance_turn();
        self.settle_turn(report);
    }

    /// Puts out sides to act with no legal move until one has a move or the game ends.
    fn settle_turn(&mut self, report: &mut Eliminations) {
        while self.phase == Phase::Move {
            let side = self.rules.sides()[self.turn as usize];
            if self.has_legal_move(side) {
                return;
            }
            if self.eliminate(side, EndReason::NoLegalMove, report) {
                self.quiet = 0;
            }
            if self.phase == Phase::Move {
                self.advance_turn();
            }
        }
    }

    fn advance_turn(&mut self) {
        let n = self.rules.sides().len();
        for _ in 0..n {
            self.turn = ((self.turn as usize + 1) % n) as u8;
            if !self.out.contains(self.rules.sides()[self.turn as usize]) {
                return;
            }
        }
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

    fn finish(&mut self, winners: SideSet, reason: EndReason) {
        self.phase = Phase::Over;
        self.result = Some(GameResult { winners, reason });
    }

    /// The side to move is out if it has no legal move.
    fn check_stalemate(&mut self) {
        let mut ignored = Eliminations::default();
        self.settle_turn(&mut ignored);
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
        self.cells[from.index()] = EMPTY;
        self.cells[to.index()] = id;
    }

    fn remove(&mut self, id: u8) {
        let slot = &mut self.slots[id as usize];
        let at = Point(slot.at);
        slot.at = OFF_BOARD;
        if self.cells[at.index()] == id {
            self.arm_occ[slot.kind.arm() as usize].remove(at);
            self.cells[at.index()] = EMPTY;
            self.occ[slot.owner as usize].remove(at);
            self.occupied.remove(at);
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
        crate::movegen::targets(self, from)
    }

    pub(crate) fn is_empty_at(&self, p: Point) -> bool {
        self.cells[p.index()] == EMPTY
    }

    pub(crate) fn slot_at(&self, p: Point) -> Option<Slot> {
        let id = self.cells[p.index()];
        (id != EMPTY).then(|| self.slots[id as usize])
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
            && self.armies == other.armies
            && self.deployed == other.deployed
            && self.out == other.out
            && self.timeouts == other.timeouts
            && self.turn == other.turn
            && self.phase == other.phase
            && self.ply == other.ply
            && self.quiet == other.quiet
            && self.result == other.result
    }
}
