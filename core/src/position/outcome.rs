//! What the game waits for and what an action did: phases, results, refusals,
//! reveals and outcomes.

use crate::names::named_enum;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::board::Point;
use crate::combat::CombatOutcome;
use crate::piece::{Arm, PieceKind, Side, SideSet};
use crate::rules::Scouting;

named_enum! {
    /// What kind of action the game waits for.
    pub enum Phase {
        /// Sides still have to deploy (in any order; [`Position::to_act`](crate::Position::to_act) names the first).
        Deploy = "deploy",
        /// The side to act moves.
        Move = "move",
        /// A reaction is due before play goes on: the owner of a submarine that evaded
        /// steps it to an empty neighbouring sea point (海陆空三军棋, `evade_step`).
        Reaction = "reaction",
        /// The game is over.
        Over = "over",
    }
}

named_enum! {
    /// Why a game ended (or why a side is out).
    pub enum EndReason {
        /// A flag was captured.
        FlagCaptured = "flag_captured",
        /// The side to act had no legal move.
        NoLegalMove = "no_legal_move",
        /// Too many plies in a row without a piece leaving the board.
        NoCaptureLimit = "no_capture_limit",
        /// A side resigned.
        Resignation = "resignation",
        /// The players agreed to a draw.
        Agreement = "agreement",
        /// A player ran out of time too often (`max_timeouts`).
        Timeouts = "timeouts" | "time_outs",
        /// A side's movable pieces are all gone (`lose_without_movable_pieces`, 翻棋).
        NoMovablePieces = "no_movable_pieces",
        /// A side's commander left the board (`commander_capture`, 夺取主帅).
        CommanderCaptured = "commander_captured",
        /// One action ended the game for both sides at once (e.g. in 翻棋 both armies lost
        /// their last movable pieces in one capture): a draw, whatever the sides are called.
        MutualElimination = "mutual_elimination",
        /// A player left the game mid-way ([`crate::Game::escape`]; docs/sources.md#qq-escape).
        Escape = "escape",
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameResult {
    /// The winning sides (one side, or a team); empty for a draw.
    pub winners: SideSet,
    /// Why the game ended.
    pub reason: EndReason,
}

impl EndReason {
    /// Why a game ended (or a side went out), in words for people: what the CLI, the
    /// web page and the Python and JavaScript packages show. Programs use
    /// [`EndReason::name`], the machine name (`"no_legal_move"`).
    ///
    /// ```
    /// assert_eq!(junqi::EndReason::NoLegalMove.words(), "no piece left that can move");
    /// ```
    pub const fn words(self) -> &'static str {
        match self {
            EndReason::FlagCaptured => "the flag was captured",
            EndReason::NoLegalMove => "no piece left that can move",
            EndReason::NoCaptureLimit => "too many moves in a row without a capture",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "a draw was agreed",
            EndReason::Timeouts => "too many time-outs",
            EndReason::NoMovablePieces => "no movable pieces left",
            EndReason::CommanderCaptured => "the commander was captured",
            EndReason::MutualElimination => "both armies lost their last movable pieces at once",
            EndReason::Escape => "a player left the game",
        }
    }
}

impl GameResult {
    /// Whether the game was drawn.
    pub fn is_draw(&self) -> bool {
        self.winners.is_empty()
    }

    /// The reward of `side` at the end of the game: +1 to each winner (a team wins
    /// whole, so a partner that is out wins too), −1 to every other side, 0 to every
    /// side for a draw. The one reward rule of the engine: `VectorEnv`, the RL
    /// adapters and OpenSpiel's returns all take it from here.
    ///
    /// ```
    /// use junqi::{EndReason, GameResult, Side, SideSet};
    /// let won = GameResult { winners: SideSet::single(Side::North), reason: EndReason::FlagCaptured };
    /// assert_eq!((won.reward(Side::North), won.reward(Side::South)), (1.0, -1.0));
    /// let draw = GameResult { winners: SideSet::EMPTY, reason: EndReason::Agreement };
    /// assert_eq!(draw.reward(Side::South), 0.0);
    /// ```
    pub fn reward(&self, side: Side) -> f32 {
        if self.winners.is_empty() {
            0.0
        } else if self.winners.contains(side) {
            1.0
        } else {
            -1.0
        }
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
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
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
    NoPiece(Arc<str>),
    /// The piece on the starting point belongs to another side.
    #[error("the piece on {0} is not yours")]
    NotYourPiece(Arc<str>),
    /// The piece never moves (flag, mine).
    #[error("the {kind} on {point} never moves")]
    Immobile {
        /// Where it stands.
        point: Arc<str>,
        /// Its kind (the mover's own piece).
        kind: PieceKind,
    },
    /// The piece stands in an HQ and may not move again.
    #[error("the piece on {0} is in a headquarters and may not move again")]
    InHeadquarters(Arc<str>),
    /// The target holds one of the mover's own pieces.
    #[error("{0} holds one of your own pieces")]
    OwnPiece(Arc<str>),
    /// The target holds an ally's piece.
    #[error("{0} holds an ally's piece")]
    AllyPiece(Arc<str>),
    /// The piece is face down and cannot move until flipped (翻棋).
    #[error("the piece on {0} is face down: flip it first")]
    FaceDown(Arc<str>),
    /// A flip of a piece that is already face up (翻棋).
    #[error("the piece on {0} is already face up")]
    FaceUp(Arc<str>),
    /// An attack on a face-down piece (翻棋).
    #[error("the piece on {0} is face down and cannot be attacked")]
    TargetFaceDown(Arc<str>),
    /// An attack on a piece sheltered in an HQ (翻棋: only mines and flags there can be).
    #[error("the piece on {0} is sheltered in a headquarters")]
    ProtectedByHq(Arc<str>),
    /// An attack on a flag whose side still has mines (翻棋).
    #[error("the flag on {0} cannot be attacked while its side still has mines")]
    FlagGuardedByMines(Arc<str>),
    /// The target is a camp with a piece in it.
    #[error("the piece on {0} is in a camp and cannot be attacked")]
    ProtectedByCamp(Arc<str>),
    /// A submarine's evasion step is due first (海陆空三军棋).
    #[error("the submarine on {0} must first step away (a reaction): move it to an empty neighbouring sea point")]
    ReactionPending(Arc<str>),
    /// A plane that was repelled (or scouted) must move away this turn.
    #[error("the plane on {0} was repelled last turn and must move away now")]
    MustMoveAway(Arc<str>),
    /// An attack on a piece whose kind the mover has been shown and may not attack
    /// (e.g. the flag in `sanjun-forum`, for all but engineers and aa guns).
    #[error("the {kind} on {from} may not attack the {target} on {to}")]
    ForbiddenAttack {
        /// The mover's kind.
        kind: PieceKind,
        /// Its point.
        from: Arc<str>,
        /// The target's kind (known to the mover).
        target: PieceKind,
        /// The target's point.
        to: Arc<str>,
    },
    /// A resignation before `min_plies_before_resign` plies (docs/sources.md#qq-resign).
    #[error("no resignation within the first {min} plies (ply {ply} now)")]
    TooEarlyToResign {
        /// Plies played so far.
        ply: u32,
        /// The rule set's minimum.
        min: u32,
    },
    /// A kind that attacks only with its abilities (`attacks_only_by_ability`: the
    /// missile in `sanjun-hk`) may not attack by a step or run.
    #[error("the {kind} on {from} attacks only along its air lines, not by a step or run: it cannot attack {to} from there")]
    AttacksOnlyByAbility {
        /// The piece's kind (the mover's own piece).
        kind: PieceKind,
        /// Start point.
        from: Arc<str>,
        /// Target point.
        to: Arc<str>,
    },
    /// The piece cannot get there this turn.
    #[error("the {kind} on {from} cannot reach {to} this turn: no step, clear run, flight or strike joins them")]
    Unreachable {
        /// The piece's kind (the mover's own piece).
        kind: PieceKind,
        /// Start point.
        from: Arc<str>,
        /// Target point.
        to: Arc<str>,
    },
}

named_enum! {
    /// Why a piece was revealed.
    pub enum RevealCause {
        /// Its side's commander left the board (the flag is shown to everyone).
        CommanderLost = "commander_lost",
        /// An attacking engineer scouted it (`engineer_scouts`).
        EngineerScout = "engineer_scout",
        /// A recon plane scouted it (to the recon's owner).
        Scouted = "scouted",
        /// It shot down or struck a plane (to the plane's owner).
        AntiAir = "anti_air",
        /// Open play: both pieces of every combat are shown to everyone.
        OpenPlay = "open_play",
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
pub struct ActionOutcome {
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
    pub combat: Option<(Side, PieceKind, CombatOutcome)>,
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
    /// The plane was shot down on its way (海陆空三军棋): at the air position above the
    /// gun, or at the gun's point when no air position is above it.
    pub shot_down_at: Option<Point>,
    /// Identities this action showed (scouting, anti-aircraft guns, open play), in
    /// order; unused slots are `None`.
    pub reveals: [Option<Reveal>; MAX_REVEALS],
    /// A submarine evaded and its owner must now step it away from this point
    /// ([`Phase::Reaction`]).
    pub reaction_due: Option<Point>,
    /// This action was a submarine's evasion step (a reaction).
    pub reaction: bool,
}

impl ActionOutcome {
    pub(super) fn new(side: Side, from: Point, to: Point, kind: PieceKind) -> ActionOutcome {
        ActionOutcome {
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
            reveals: [None; MAX_REVEALS],
            reaction_due: None,
            reaction: false,
        }
    }

    /// Keeps a reveal. There is room for every reveal one action can make (see
    /// [`MAX_REVEALS`]), whatever abilities a rule set gives one kind.
    pub(super) fn push_reveal(&mut self, r: Reveal) {
        let slot = self.reveals.iter_mut().find(|x| x.is_none());
        debug_assert!(slot.is_some(), "more than {MAX_REVEALS} reveals in one action");
        if let Some(slot) = slot {
            *slot = Some(r);
        }
    }
}

/// Most reveals one action makes: a scouting, an anti-aircraft gun's, and open play's
/// two (both pieces of the combat) — also when a rule set gives one kind both the
/// `scout` and the `anti_air` ability. A shoot-down makes at most three.
pub const MAX_REVEALS: usize = 4;

/// Sides eliminated by one action while the game went on (at most three of four).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eliminations([Option<(Side, EndReason)>; 3]);

impl Eliminations {
    pub(super) fn push(&mut self, side: Side, reason: EndReason) {
        if let Some(slot) = self.0.iter_mut().find(|e| e.is_none()) {
            *slot = Some((side, reason));
        }
    }

    /// The eliminated sides with the reason, in order.
    pub fn iter(&self) -> impl Iterator<Item = (Side, EndReason)> + '_ {
        self.0.iter().flatten().copied()
    }
}

/// What a time-out did (see [`Position::time_out`](crate::Position::time_out)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutOutcome {
    /// The side that timed out.
    pub side: Side,
    /// Its time-outs so far.
    pub count: u8,
    /// Sides put out of a game that goes on.
    pub eliminated: Eliminations,
    /// The game's result, if this ended it.
    pub result: Option<GameResult>,
}
