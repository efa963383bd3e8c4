//! Rule sets: the army, deployment constraints, movement per kind, the combat table and
//! options — all data, loaded from JSON.
//!
//! Presets load by name ([`RuleSet::preset`]); a user rule set is JSON text
//! ([`RuleSet::from_json`]), either complete or `{"extends": "classic", …}` with only
//! the keys that differ.

use crate::names::named_enum;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::board::{Board, BoardError, Point, PointSet, Role};
use crate::combat::{Attack, CombatEntry, CombatMatrix, CombatOutcome, KindPattern, Resolution, TableOutcome};
use crate::piece::{PieceClass, PieceKind, Side, SideSet};

named_enum! {
    /// How a kind of piece moves.
    pub enum Mobility {
        /// Never moves (flag, mine).
        Immobile = "immobile",
        /// One step along a road or railway edge.
        Step = "step",
        /// A step, or a run along one straight railway line.
        RailStraight = "rail_straight",
        /// A step, or a railway run that may turn at any railway point (the engineer).
        RailTurn = "rail_turn",
        /// One step along a sea lane (ships).
        Sail = "sail",
        /// A sea step; from an anchorage onto its harbour mouth (landing), road steps on
        /// land, and from a harbour mouth back onto its anchorage (battleship, cruiser).
        SailAndLand = "sail_and_land",
        /// One straight run along an air line, over everything (planes).
        Fly = "fly",
    }
}

named_enum! {
    /// A power a kind has besides moving (海陆空三军棋). A *strike* is an attack in which
    /// the striker does not move.
    #[derive(PartialOrd, Ord)]
    #[repr(u8)]
    pub enum Ability {
        /// Strikes an enemy piece on a neighbouring land point or on a coast-linked sea
        /// point (the fort).
        Strike = "strike",
        /// Shore bombardment: strikes an enemy piece on a coast-linked land point, and
        /// never leaves the board for it (the gunboat).
        Bombard = "bombard",
        /// Strikes an enemy plane at most [`crate::board::STRIKE_RANGE`] away, and shoots
        /// down an enemy plane flying over or onto it (aa_gun, gunboat).
        AntiAir = "anti_air",
        /// Flies from under the air lattice along an air line, over everything, onto an
        /// enemy piece (the missile).
        Flight = "flight",
        /// Learns the identity of every piece it attacks (the recon plane).
        Scout = "scout",
    }
}

impl Ability {


    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

named_enum! {
    /// Who learns the defender's identity when an engineer attacks (`engineer_scouts`).
    #[derive(Default)]
    pub enum Scouting {
        /// Nobody (default).
        #[default]
        Off = "off",
        /// The attacking engineer's owner (the games book, docs/sources.md#book-engineer-scouts).
        Attacker = "attacker",
        /// Every player (the rules Q&A, docs/sources.md#qa-engineer-scouts).
        Everyone = "everyone",
        /// Every player, and the engineer is spent: it leaves the board and the defender
        /// stays (docs/sources.md#qa-engineer-scouts:
        /// "敌方的的棋子将被所有玩家看见，但此时工兵也将消失").
        /// A mine or a flag is still taken as the combat table says: digging mines is the
        /// engineer's other ability, which the same line keeps.
        Sacrifice = "sacrifice",
    }
}

named_enum! {
    /// When a piece other than the engineer may take on mines, and how (`smallest_digs_mines`,
    /// 翻棋: docs/sources.md#fanqi-smallest-digs and docs/sources.md#fanqi-smallest-detonates).
    /// The smallest piece attacks a mine as a stand-in kind ([`MineDigging::stand_in`]) and the
    /// combat table gives the outcome: as an engineer it digs the mine (the mine leaves, the
    /// piece takes its point), as a bomb it detonates it (both leave).
    #[derive(Default)]
    pub enum MineDigging {
        /// Only the pieces the combat table lets win against a mine (default).
        #[default]
        Off = "off",
        /// Once an army has no engineer left, its lowest-ranked officers still on the board
        /// attack mines as an engineer does: they dig them (docs/sources.md#fanqi-smallest-digs:
        /// "工兵没了用最小的挖它").
        EngineersGone = "engineers_gone",
        /// Once the army's engineers **and** bombs are gone, its lowest-ranked officers
        /// attack mines as a bomb does: they detonate them, and both leave
        /// (docs/sources.md#fanqi-smallest-detonates:
        /// "如果工兵和炸弹死完，可以拿最小的棋子引爆地雷（踩地雷）").
        EngineersAndBombsGone = "engineers_and_bombs_gone",
    }
}

impl MineDigging {
    /// The kind the smallest piece attacks a mine as: the engineer (digging) or the
    /// bomb (detonating); `None` when off.
    ///
    /// ```
    /// use junqi::{MineDigging, PieceKind};
    /// assert_eq!(MineDigging::EngineersGone.stand_in(), Some(PieceKind::Engineer));
    /// assert_eq!(MineDigging::EngineersAndBombsGone.stand_in(), Some(PieceKind::Bomb));
    /// ```
    pub const fn stand_in(self) -> Option<PieceKind> {
        match self {
            MineDigging::Off => None,
            MineDigging::EngineersGone => Some(PieceKind::Engineer),
            MineDigging::EngineersAndBombsGone => Some(PieceKind::Bomb),
        }
    }

}

/// Rule-set options (docs/classic.md, "Options").
///
/// Records store their rule set whole, and name-only records mean frozen presets
/// ([`crate::RulesRef`]); both are read with today's defaults for options they do not
/// name. So a new option's default must be the behaviour from before it existed, and an
/// option's meaning is not changed in place once records use it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// A mine stays when a non-engineer, non-bomb attacker hits it (else both leave).
    pub mine_survives: bool,
    /// Longest railway run for pieces other than the engineer; `None` = unlimited.
    pub rail_max_steps: Option<u8>,
    /// Every piece may turn on the railway (a regional rule, usually with a step limit).
    pub rail_all_turn: bool,
    /// An attacking engineer reveals the defender.
    pub engineer_scouts: Scouting,
    /// A bomb may attack (and so capture) the flag; if not, the attack is repelled.
    pub bomb_may_hit_flag: bool,
    /// Plies in a row without a piece leaving the board that end in a draw; 0 = never.
    pub no_capture_draw_plies: u32,
    /// A piece that enters an HQ never moves again.
    pub hq_locks: bool,
    /// A piece standing in a camp cannot be attacked.
    pub camps_protect: bool,
    /// Partners see each other's pieces (四国 双明); otherwise every player sees only
    /// its own (dark play).
    pub allies_see_each_other: bool,
    /// Time-outs after which a player is out (四国: 5); `None` = a time-out only passes
    /// the turn.
    pub max_timeouts: Option<u8>,
    /// A side's flag is revealed to everyone when its commander leaves the board.
    pub commander_reveals_flag: bool,
    /// A piece in an HQ cannot be attacked unless it is a mine or a flag (翻棋).
    pub hq_shelter: bool,
    /// A flag cannot be attacked while its side still has a mine on the board (翻棋).
    pub flag_guarded_by_mines: bool,
    /// A side whose movable pieces (face up or down) are all gone loses (翻棋).
    pub lose_without_movable_pieces: bool,
    /// Kind patterns (`"fighter"`, `"@ship"`, …) that may attack a piece in a camp even
    /// though `camps_protect` is on.
    pub camp_exempt: Vec<String>,
    /// A submarine that evades must at once step to an empty neighbouring sea point,
    /// chosen by its owner (a reaction, [`crate::Phase::Reaction`]).
    pub evade_step: bool,
    /// Open play (密布明战法): both pieces of every combat are revealed to every player.
    pub open_play: bool,
    /// 夺取主帅: a side whose commander leaves the board loses (if both commanders leave
    /// in one combat, play goes on).
    pub commander_capture: bool,
    /// 明棋 (docs/sources.md#qa-mingqi): sides deploy in secret, then every piece is face up
    /// to every player for the rest of the game. Not the same as `open_play`, which
    /// shows only the two pieces of each combat.
    pub open_after_deploy: bool,
    /// The smallest piece digs mines once the engineers are gone, or detonates them once
    /// the engineers and the bombs are gone (翻棋, docs/sources.md#fanqi-smallest-digs and
    /// docs/sources.md#fanqi-smallest-detonates); see [`MineDigging`].
    pub smallest_digs_mines: MineDigging,
    /// Kind patterns that may not attack a piece standing in an HQ (a variant in which
    /// bombs may not attack HQs or airports, docs/sources.md#modern-bomb-hq).
    pub hq_safe_from: Vec<String>,
    /// A recon scouts an enemy piece on one of its air lines without flying there: it
    /// stays where it is (docs/sources.md#modern-recon, "同線鎖定偵察", lock-on scouting).
    pub recon_lock_on: bool,
    /// Plies played before a side may resign (20 on the QQ platform,
    /// docs/sources.md#qq-resign; 0 in the bare engine).
    pub min_plies_before_resign: u32,
    /// Kind patterns that attack only with their abilities: their steps and runs (on
    /// roads, railways, sea lanes or air lines) may not end on an enemy piece, while
    /// their strikes and flights may (sanjun-hk: `["missile"]`, which attacks only along
    /// air lines — docs/sources.md#hk-missile: "攻擊時沿空軍航線攻擊").
    pub attacks_only_by_ability: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mine_survives: true,
            rail_max_steps: None,
            rail_all_turn: false,
            engineer_scouts: Scouting::Off,
            bomb_may_hit_flag: true,
            no_capture_draw_plies: 70,
            hq_locks: true,
            camps_protect: true,
            allies_see_each_other: false,
            max_timeouts: None,
            commander_reveals_flag: true,
            hq_shelter: false,
            flag_guarded_by_mines: false,
            lose_without_movable_pieces: false,
            camp_exempt: Vec::new(),
            evade_step: false,
            open_play: false,
            commander_capture: false,
            open_after_deploy: false,
            smallest_digs_mines: MineDigging::Off,
            hq_safe_from: Vec::new(),
            recon_lock_on: false,
            min_plies_before_resign: 0,
            attacks_only_by_ability: Vec::new(),
        }
    }
}

impl Options {
    /// The value of a boolean option by name (used by the combat table's `if`).
    pub fn flag(&self, name: &str) -> Option<bool> {
        Some(match name {
            "mine_survives" => self.mine_survives,
            "rail_all_turn" => self.rail_all_turn,
            "bomb_may_hit_flag" => self.bomb_may_hit_flag,
            "hq_locks" => self.hq_locks,
            "camps_protect" => self.camps_protect,
            "allies_see_each_other" => self.allies_see_each_other,
            "commander_reveals_flag" => self.commander_reveals_flag,
            "hq_shelter" => self.hq_shelter,
            "flag_guarded_by_mines" => self.flag_guarded_by_mines,
            "lose_without_movable_pieces" => self.lose_without_movable_pieces,
            "engineer_scouts" => self.engineer_scouts != Scouting::Off,
            "evade_step" => self.evade_step,
            "open_play" => self.open_play,
            "commander_capture" => self.commander_capture,
            "open_after_deploy" => self.open_after_deploy,
            "recon_lock_on" => self.recon_lock_on,
            "smallest_digs_mines" => self.smallest_digs_mines != MineDigging::Off,
            _ => return None,
        })
    }
}

/// A restriction on where one kind may be deployed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    /// The kind restricted.
    pub kind: PieceKind,
    /// The roles it may stand on (any deployable role if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<Role>>,
    /// The furthest row from the back it may stand on (1 = back row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u8>,
    /// The nearest row to the back it may stand on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_depth: Option<u8>,
    /// The rule in words, for error messages and docs.
    #[serde(default)]
    pub why: String,
}

/// Deployment rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeploymentSpec {
    /// The roles of a side's points that its army fills, exactly one piece each.
    pub roles: Vec<Role>,
    /// Per-kind restrictions.
    #[serde(default)]
    pub constraints: Vec<Constraint>,
    /// Instead of deploying, all armies are shuffled face down onto the deployable
    /// points of every side, from the game's seed (翻棋).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deal: bool,
}

/// A rule set as written in JSON. [`RuleSet::from_spec`] validates and compiles it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// The rule set's name, e.g. `"classic"`.
    pub name: String,
    /// Free-form description.
    #[serde(default)]
    pub description: String,
    /// The board, by preset name.
    pub board: String,
    /// The sides in turn order (the first moves first).
    pub sides: Vec<Side>,
    /// Teams of allied sides; a side in no team plays alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Vec<Side>>,
    /// How many pieces of each kind a side has.
    pub army: BTreeMap<PieceKind, u8>,
    /// Ranks used by `"rank"` combat entries.
    #[serde(default)]
    pub ranks: BTreeMap<PieceKind, u8>,
    /// Where pieces may be deployed.
    pub deployment: DeploymentSpec,
    /// How each kind moves; the key `"*"` gives the default.
    pub movement: BTreeMap<String, Mobility>,
    /// Named groups of kinds usable as `"@name"` in the combat table (the classes
    /// `@flag`, `@officer`, `@weapon`, `@ship` and `@plane` are built in).
    #[serde(default)]
    pub groups: BTreeMap<String, Vec<PieceKind>>,
    /// The combat table: the first matching entry decides.
    pub combat: Vec<CombatEntry>,
    /// Powers besides moving, per kind (海陆空三军棋: strikes, anti-aircraft fire,
    /// missile flight, scouting).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub abilities: BTreeMap<PieceKind, Vec<Ability>>,
    /// Stand-ins for pairs the combat table leaves open: a ship fighting a piece of
    /// another arm counts as the kind given for that piece's pattern (e.g. a battleship
    /// is a `division_commander` against `@officer` and a `tank` against `@weapon`).
    /// Patterns are tried in order of the map's keys; `"*"` is tried last.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub equivalents: BTreeMap<PieceKind, BTreeMap<String, PieceKind>>,
    /// Options.
    #[serde(default)]
    pub options: Options,
}

impl RuleSpec {
    /// Reads a rule set description from parsed JSON, as [`RuleSet::from_json`] does
    /// (complete, or `{"extends": "<preset>", "name": …}` over today's presets), without
    /// compiling it.
    pub fn from_value(value: serde_json::Value) -> Result<RuleSpec, RulesError> {
        let unnamed = value
            .as_object()
            .filter(|o| !o.contains_key("name"))
            .and_then(|o| o.get("extends"))
            .map(|base| base.as_str().unwrap_or_default().to_owned());
        let value = resolve_extends(value, 0, RuleSet::preset_json)?;
        if let Some(base) = unnamed {
            return Err(RulesError::MissingName(base));
        }
        serde_json::from_value(value).map_err(|e| RulesError::Json(e.to_string()))
    }
}

/// A rule set that could not be loaded.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// No preset has this name.
    #[error("unknown rule set {0:?} (presets: {presets})", presets = RuleSet::preset_names().join(", "))]
    UnknownPreset(String),
    /// The JSON text could not be read.
    #[error("invalid rule set JSON: {0}")]
    Json(String),
    /// The rule set names a board that is not built in.
    #[error("unknown board {0:?} (boards: {boards})", boards = Board::preset_names().join(", "))]
    UnknownBoard(String),
    /// The board description is invalid.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// `sides` is empty, repeats a side, or names a side with no points on the board.
    #[error("invalid sides list: {0}")]
    Sides(String),
    /// The army does not fill the deployable points of a side.
    #[error("the army has {pieces} pieces but {side} has {points} deployable points")]
    ArmyDoesNotFit {
        /// The side.
        side: Side,
        /// Pieces in the army.
        pieces: usize,
        /// Deployable points of the side.
        points: usize,
    },
    /// A combat pattern is not `"*"`, a kind id or a known `"@group"`.
    #[error("combat table: unknown kind pattern {0:?}")]
    BadPattern(String),
    /// A `"rank"` entry covers a kind with no rank.
    #[error("combat table: \"rank\" outcome for {0} which has no rank")]
    MissingRank(PieceKind),
    /// An `if` names an option that is not a boolean option.
    #[error("combat table: unknown option {0:?} in \"if\"")]
    UnknownOption(String),
    /// A movement key is not `"*"` or a kind id.
    #[error("movement: unknown kind {0:?}")]
    BadMovementKey(String),
    /// An option names a kind pattern that is not `"*"`, a kind id or a known group.
    #[error("options: unknown kind pattern {0:?} in \"camp_exempt\"")]
    BadCampExempt(String),
    /// An equivalent is not usable: the stand-in is itself an equivalent-using kind, or
    /// the pattern is unknown.
    #[error("equivalents: {0}")]
    BadEquivalent(String),
    /// An option is not usable with this rule set, or its combat table contradicts it.
    #[error("option {option}: {reason}")]
    Incompatible {
        /// The option.
        option: &'static str,
        /// Why.
        reason: String,
    },
    /// `hq_safe_from` names a kind pattern that is not `"*"`, a kind id or a known group.
    #[error("options: unknown kind pattern {0:?} in \"hq_safe_from\"")]
    BadHqSafeFrom(String),
    /// `attacks_only_by_ability` names a kind pattern that is not `"*"`, a kind id or a
    /// known group.
    #[error("options: unknown kind pattern {0:?} in \"attacks_only_by_ability\"")]
    BadAttacksOnlyByAbility(String),
    /// The rule set is too large for the engine's fixed-size state.
    #[error("too many pieces: {0} (at most {max})", max = crate::limits::MAX_PIECES)]
    TooManyPieces(usize),
    /// `{"extends": …}` without a `"name"`: a variant would pass for its preset.
    #[error("a rule set that extends {0:?} needs a \"name\" of its own")]
    MissingName(String),
    /// The JSON text is longer than [`crate::limits::MAX_RULES_JSON`] bytes.
    #[error("rule set JSON of {0} bytes is over the limit of {max} bytes", max = crate::limits::MAX_RULES_JSON)]
    TooLarge(usize),
    /// The rule set's name is longer than [`crate::limits::MAX_RULES_NAME`] characters.
    #[error("a rule set name of {0} characters is over the limit of {max}", max = crate::limits::MAX_RULES_NAME)]
    NameTooLong(usize),
    /// The rule set, as compact JSON, is longer than [`crate::limits::MAX_RULES_SPEC`]
    /// bytes (a long description, say): it would not fit an engine protocol line.
    #[error("the rule set is {0} bytes as compact JSON, over the limit of {max} (a protocol line must hold it)", max = crate::limits::MAX_RULES_SPEC)]
    SpecTooLarge(usize),
    /// The army mixes arms (army, navy, air force) but the rule set does not make each
    /// piece's arm public: arms are public only when every arm deploys on roles of its
    /// own, face up (what starts on an anchorage is a ship, on an airport a plane).
    /// Move generation and the views rest on arms being public.
    #[error("arms would be hidden: {0}")]
    HiddenArms(String),
    /// The rules allow an action the rule set's fixed action space cannot name (e.g. a
    /// plane given `anti_air` striking a plane off its air lines).
    #[error("outside the action space: {0}")]
    OutsideActionSpace(String),
}

/// A validated, compiled rule set. Cheap to share ([`Arc`]).
#[derive(Debug)]
pub struct RuleSet {
    spec: RuleSpec,
    board: Arc<Board>,
    combat: Box<CombatMatrix>,
    mobility: [Mobility; PieceKind::COUNT],
    deploy_points: Vec<Vec<Point>>,
    /// Per side, the random deployment's order: each kind with its count and the
    /// deployment points its constraints allow, the kinds with the fewest points first
    /// ([`crate::Deployment::try_random`]).
    deploy_plans: Vec<Vec<(PieceKind, u8, PointSet)>>,
    army_size: usize,
    allies: [SideSet; 4],
    abilities: [u8; PieceKind::COUNT],
    camp_exempt: [bool; PieceKind::COUNT],
    hq_safe_from: [bool; PieceKind::COUNT],
    /// Per kind, the arms (bit `Arm as u8`) it may attack at all.
    attacks_arm: [u8; PieceKind::COUNT],
    has_arms: bool,
    /// Per kind, what move generation asks about it (from the fields above).
    profiles: [MoveProfile; PieceKind::COUNT],
    /// Per kind, its [`LandClass`] byte, when every kind of the army moves on land
    /// with no ability and attacks by its steps and runs (classic, 翻棋, 四国): move
    /// generation then runs one lean loop over the army's pieces.
    land_classes: Option<[u8; PieceKind::COUNT]>,
    /// Per point, the range of its straight railway rays' segments in `rail_segments`,
    /// each ray cut after `rail_max_steps` points ([`Board::ray_segments`]).
    rail_segment_of: Vec<(u32, u32)>,
    rail_segments: Vec<crate::board::RaySegment>,
}

/// A kind's move class for the lean generator of land-only rule sets
/// ([`RuleSet::land_classes`]), packed in a byte: bits 0–1 how it moves (0 never, 1 a
/// road or railway step, 2 also straight railway runs, 3 also turning runs), bits 2–3
/// which of the mover's forbidden sets applies (bit 2: it spares enemy pieces in camps;
/// bit 3: it spares occupied HQs).
pub(crate) struct LandClass;

impl LandClass {
    /// Never moves.
    pub(crate) const IMMOBILE: u8 = 0;
    /// A road or railway step.
    pub(crate) const STEP: u8 = 1;
    /// A step or a straight railway run.
    pub(crate) const STRAIGHT: u8 = 2;
    /// A step or a railway run that may turn.
    pub(crate) const TURN: u8 = 3;

    /// The class byte of a profile, if the profile is one of a land-only mover.
    fn of(p: &MoveProfile) -> Option<u8> {
        let moves = match p.mobility {
            Mobility::Immobile => LandClass::IMMOBILE,
            Mobility::Step => LandClass::STEP,
            Mobility::RailStraight => LandClass::STRAIGHT,
            Mobility::RailTurn => LandClass::TURN,
            Mobility::Sail | Mobility::SailAndLand | Mobility::Fly => return None,
        };
        if p.strikes || !p.step_attacks || p.refused_arms != 0 {
            return None;
        }
        Some(moves | u8::from(p.spares_camps) << 2 | u8::from(p.spares_hqs) << 3)
    }
}

/// What move generation needs to know about one kind, worked out once per rule set:
/// one small load per piece instead of a handful of look-ups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveProfile {
    /// How the kind moves.
    pub(crate) mobility: Mobility,
    /// Whether it strikes, fires at planes or flies as a missile ([`RuleSet::strikes`]).
    pub(crate) strikes: bool,
    /// Whether enemy pieces in camps are out of its reach ([`RuleSet::may_attack_camps`]).
    pub(crate) spares_camps: bool,
    /// Whether occupied HQs are out of its reach, for every reason: a missile (its
    /// own rule), or a kind of `hq_safe_from` ([`RuleSet::hq_safe_from`]).
    pub(crate) spares_hqs: bool,
    /// The arms it can never attack (bit `Arm as u8`; [`RuleSet::attacks_arm`]); only
    /// set when the army mixes arms.
    pub(crate) refused_arms: u8,
    /// Whether its steps and runs may end on an enemy piece (not under
    /// `attacks_only_by_ability`).
    pub(crate) step_attacks: bool,
}

const PRESETS: &[(&str, &str)] = &[
    ("classic", include_str!("../data/rules/classic.json")),
    ("siguo", include_str!("../data/rules/siguo.json")),
    ("siguo-2p", include_str!("../data/rules/siguo-2p.json")),
    ("fanqi", include_str!("../data/rules/fanqi.json")),
    ("sanjun-modern", include_str!("../data/rules/sanjun-modern.json")),
    ("sanjun-hk", include_str!("../data/rules/sanjun-hk.json")),
    ("sanjun-book", include_str!("../data/rules/sanjun-book.json")),
    ("sanjun-forum", include_str!("../data/rules/sanjun-forum.json")),
];

/// The presets as they stood when records named them only (see
/// [`RuleSet::record_1_preset`]). Never edit these files.
const RECORD_1_PRESETS: &[(&str, &str)] = &[
    ("classic", include_str!("../data/rules/record-1/classic.json")),
    ("siguo", include_str!("../data/rules/record-1/siguo.json")),
    ("siguo-2p", include_str!("../data/rules/record-1/siguo-2p.json")),
    ("fanqi", include_str!("../data/rules/record-1/fanqi.json")),
    ("sanjun-modern", include_str!("../data/rules/record-1/sanjun-modern.json")),
    ("sanjun-hk", include_str!("../data/rules/record-1/sanjun-hk.json")),
    ("sanjun-book", include_str!("../data/rules/record-1/sanjun-book.json")),
    ("sanjun-forum", include_str!("../data/rules/record-1/sanjun-forum.json")),
];

impl RuleSet {
    /// Loads a rule set given as text: a preset's name, or a rule set as JSON (text
    /// that starts with `{`). Every layer that takes "a preset name or rule-set JSON"
    /// (the CLI, Python, the web, the WebAssembly package) reads it with this.
    ///
    /// ```
    /// use junqi::RuleSet;
    /// assert_eq!(RuleSet::load("siguo").unwrap().name(), "siguo");
    /// let mine = RuleSet::load(r#"{"extends": "classic", "name": "mine", "options": {"rail_max_steps": 3}}"#).unwrap();
    /// assert_eq!(mine.name(), "mine");
    /// assert!(RuleSet::load("chess").is_err());
    /// ```
    pub fn load(text: &str) -> Result<Arc<RuleSet>, RulesError> {
        if text.trim_start().starts_with('{') {
            RuleSet::from_json(text).map(Arc::new)
        } else {
            RuleSet::preset(text)
        }
    }

    /// Loads a built-in rule set by name.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// assert_eq!(rules.name(), "classic");
    /// assert!(junqi::RuleSet::preset("chess").is_err());
    /// ```
    pub fn preset(name: &str) -> Result<Arc<RuleSet>, RulesError> {
        // Each preset compiles once per process and is shared: records and player
        // records look the preset up on every call.
        static CACHE: [std::sync::OnceLock<Arc<RuleSet>>; PRESETS.len()] =
            [const { std::sync::OnceLock::new() }; PRESETS.len()];
        let i = PRESETS
            .iter()
            .position(|(n, _)| *n == name.trim())
            .ok_or_else(|| RulesError::UnknownPreset(name.to_owned()))?;
        if let Some(rules) = CACHE[i].get() {
            return Ok(rules.clone());
        }
        let rules = Arc::new(RuleSet::from_json(PRESETS[i].1)?);
        Ok(CACHE[i].get_or_init(|| rules).clone())
    }

    /// Names of the built-in rule sets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _)| *n).collect()
    }

    /// The JSON description of a preset.
    pub fn preset_json(name: &str) -> Option<&'static str> {
        PRESETS.iter().find(|(n, _)| *n == name).map(|(_, j)| *j)
    }

    /// Loads a rule set from JSON: a complete [`RuleSpec`], or an object with
    /// `"extends": "<preset>"` whose other keys replace the preset's (`options` is
    /// merged key by key).
    ///
    /// ```
    /// let rules = junqi::RuleSet::from_json(
    ///     r#"{"extends": "classic", "name": "classic-3", "options": {"rail_max_steps": 3}}"#,
    /// ).unwrap();
    /// assert_eq!(rules.options().rail_max_steps, Some(3));
    /// assert!(rules.options().mine_survives);
    /// ```
    pub fn from_json(json: &str) -> Result<RuleSet, RulesError> {
        if json.len() > crate::limits::MAX_RULES_JSON {
            return Err(RulesError::TooLarge(json.len()));
        }
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| RulesError::Json(e.to_string()))?;
        RuleSet::from_spec(RuleSpec::from_value(value)?)
    }

    /// A preset as it stood when records named their rule set by preset name only
    /// (record format `junqi-record/1` before 2026-12-01): what a record whose `rules`
    /// is a bare name means. These copies are frozen: a preset may change, the game a
    /// name-only record was made under may not (see [`crate::RulesRef`]).
    pub(crate) fn record_1_preset(name: &str) -> Result<Arc<RuleSet>, RulesError> {
        static CACHE: [std::sync::OnceLock<Arc<RuleSet>>; RECORD_1_PRESETS.len()] =
            [const { std::sync::OnceLock::new() }; RECORD_1_PRESETS.len()];
        let i = RECORD_1_PRESETS
            .iter()
            .position(|(n, _)| *n == name.trim())
            .ok_or_else(|| RulesError::UnknownPreset(name.to_owned()))?;
        if let Some(rules) = CACHE[i].get() {
            return Ok(rules.clone());
        }
        let value: serde_json::Value =
            serde_json::from_str(RECORD_1_PRESETS[i].1).map_err(|e| RulesError::Json(e.to_string()))?;
        let value = resolve_extends(value, 0, |n| RECORD_1_PRESETS.iter().find(|(p, _)| *p == n).map(|(_, j)| *j))?;
        let spec: RuleSpec = serde_json::from_value(value).map_err(|e| RulesError::Json(e.to_string()))?;
        // Unchanged presets share today's compiled rule set.
        let rules = match RuleSet::preset(name.trim()) {
            Ok(today) if *today.spec() == spec => today,
            _ => Arc::new(RuleSet::from_spec(spec)?),
        };
        Ok(CACHE[i].get_or_init(|| rules).clone())
    }

    /// Validates and compiles a rule set description.
    pub fn from_spec(spec: RuleSpec) -> Result<RuleSet, RulesError> {
        let board =
            Board::preset(&spec.board).ok_or_else(|| RulesError::UnknownBoard(spec.board.clone()))?;
        RuleSet::with_board(spec, board)
    }

    /// Compiles a rule set on a given board (e.g. one loaded with [`Board::from_json`]).
    pub fn with_board(spec: RuleSpec, board: Arc<Board>) -> Result<RuleSet, RulesError> {
        if spec.sides.is_empty() || spec.sides.len() > 4 {
            return Err(RulesError::Sides("between 1 and 4 sides".into()));
        }
        for (i, s) in spec.sides.iter().enumerate() {
            if spec.sides[..i].contains(s) {
                return Err(RulesError::Sides(format!("{s} is listed twice")));
            }
        }
        let mut allies = [SideSet::EMPTY; 4];
        for s in Side::ALL {
            allies[s as usize] = SideSet::single(s);
        }
        for team in &spec.teams {
            for s in team {
                if !spec.sides.contains(s) {
                    return Err(RulesError::Sides(format!("team member {s} does not play")));
                }
                if allies[*s as usize] != SideSet::single(*s) {
                    return Err(RulesError::Sides(format!("{s} is in two teams")));
                }
                allies[*s as usize] = team.iter().copied().collect();
            }
        }
        let name_chars = spec.name.chars().count();
        if name_chars > crate::limits::MAX_RULES_NAME {
            return Err(RulesError::NameTooLong(name_chars));
        }
        let compact = serde_json::to_string(&spec).map_err(|e| RulesError::Json(e.to_string()))?.len();
        if compact > crate::limits::MAX_RULES_SPEC {
            return Err(RulesError::SpecTooLarge(compact));
        }
        let army_size: usize = spec.army.values().map(|&n| n as usize).sum();
        if army_size * spec.sides.len() > crate::limits::MAX_PIECES {
            return Err(RulesError::TooManyPieces(army_size * spec.sides.len()));
        }
        let mut deploy_points = vec![Vec::new(); 4];
        for side in &spec.sides {
            let pts: Vec<Point> = board
                .points()
                .filter(|&p| {
                    board.side_of(p) == Some(*side) && spec.deployment.roles.contains(&board.role(p))
                })
                .collect();
            if pts.len() != army_size {
                return Err(RulesError::ArmyDoesNotFit {
                    side: *side,
                    pieces: army_size,
                    points: pts.len(),
                });
            }
            deploy_points[*side as usize] = pts;
        }
        let deploy_plans = deploy_points
            .iter()
            .map(|points| crate::setup::deploy_plan(&board, &spec, points))
            .collect();

        let mut mobility = [Mobility::Immobile; PieceKind::COUNT];
        let default = spec.movement.get("*").copied().unwrap_or(Mobility::Immobile);
        for kind in PieceKind::ALL {
            mobility[kind as usize] = spec.movement.get(kind.id()).copied().unwrap_or(default);
        }
        for key in spec.movement.keys() {
            if key != "*" && PieceKind::ALL.iter().all(|k| k.id() != key) {
                return Err(RulesError::BadMovementKey(key.clone()));
            }
        }

        let mut abilities = [0u8; PieceKind::COUNT];
        for (kind, list) in &spec.abilities {
            for a in list {
                abilities[*kind as usize] |= a.bit();
            }
        }
        let mut combat = compile_combat(&spec)?;
        // A piece that never moves never attacks, unless it strikes.
        for kind in PieceKind::ALL {
            if mobility[kind as usize] == Mobility::Immobile && abilities[kind as usize] == 0 {
                combat[kind as usize] = [CombatOutcome::Illegal; PieceKind::COUNT];
            }
        }
        let mut camp_exempt = [false; PieceKind::COUNT];
        for pattern in &spec.options.camp_exempt {
            let pat = KindPattern::One(pattern.clone());
            for kind in PieceKind::ALL {
                if pattern_matches(&spec, &pat, kind).map_err(|_| RulesError::BadCampExempt(pattern.clone()))? {
                    camp_exempt[kind as usize] = true;
                }
            }
        }
        let mut hq_safe_from = [false; PieceKind::COUNT];
        for pattern in &spec.options.hq_safe_from {
            let pat = KindPattern::One(pattern.clone());
            for kind in PieceKind::ALL {
                if pattern_matches(&spec, &pat, kind).map_err(|_| RulesError::BadHqSafeFrom(pattern.clone()))? {
                    hq_safe_from[kind as usize] = true;
                }
            }
        }
        let mut by_ability_only = [false; PieceKind::COUNT];
        for pattern in &spec.options.attacks_only_by_ability {
            let pat = KindPattern::One(pattern.clone());
            for kind in PieceKind::ALL {
                if pattern_matches(&spec, &pat, kind).map_err(|_| RulesError::BadAttacksOnlyByAbility(pattern.clone()))? {
                    by_ability_only[kind as usize] = true;
                }
            }
        }
        check_options(&spec, &combat, &abilities)?;
        check_arms_public(&spec, &board)?;
        check_action_space(&spec, &board, &mobility, &abilities)?;
        let mut attacks_arm = [0u8; PieceKind::COUNT];
        for a in spec.army.keys() {
            for d in spec.army.keys() {
                if combat[*a as usize][*d as usize] != CombatOutcome::Illegal {
                    attacks_arm[*a as usize] |= 1 << d.arm() as u8;
                }
            }
        }
        let has_arms = spec.army.keys().any(|k| k.arm() != crate::piece::Arm::Army);
        let profiles = PieceKind::ALL.map(|kind| {
            let k = kind as usize;
            MoveProfile {
                mobility: mobility[k],
                strikes: abilities[k] & STRIKING != 0,
                spares_camps: spec.options.camps_protect && !camp_exempt[k],
                spares_hqs: abilities[k] & Ability::Flight.bit() != 0 || hq_safe_from[k],
                refused_arms: if has_arms { !attacks_arm[k] & 0b111 } else { 0 },
                step_attacks: !by_ability_only[k],
            }
        });
        let mut land_classes = Some([LandClass::IMMOBILE; PieceKind::COUNT]);
        for &kind in spec.army.keys() {
            land_classes = land_classes
                .zip(LandClass::of(&profiles[kind as usize]))
                .map(|(mut classes, class)| {
                    classes[kind as usize] = class;
                    classes
                });
        }
        if has_arms {
            land_classes = None;
        }
        let (rail_segment_of, rail_segments) = board.ray_segments(spec.options.rail_max_steps);
        Ok(RuleSet {
            spec,
            board,
            combat,
            mobility,
            deploy_points,
            deploy_plans,
            army_size,
            allies,
            abilities,
            camp_exempt,
            hq_safe_from,
            attacks_arm,
            has_arms,
            profiles,
            land_classes,
            rail_segment_of,
            rail_segments,
        })
    }

    /// The rule set's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The description this rule set was compiled from.
    pub fn spec(&self) -> &RuleSpec {
        &self.spec
    }

    /// The rule set as JSON (a complete [`RuleSpec`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.spec).expect("a rule spec serialises")
    }

    /// The board.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }

    /// Whether `other` is the same rule set on the same board: the same description
    /// and the same board description (a rule set compiled on a custom board with
    /// [`RuleSet::with_board`] differs from the preset of its name). Games of the same
    /// rule set share action ids and observation encoders.
    ///
    /// ```
    /// use junqi::{Board, RuleSet};
    /// let classic = RuleSet::preset("classic").unwrap();
    /// let again = RuleSet::from_json(&classic.to_json()).unwrap();
    /// assert!(classic.same_as(&again));
    /// let mut board = classic.board().spec().clone();
    /// board.name = "renamed".into();
    /// let other = RuleSet::with_board(classic.spec().clone(), Board::from_spec(board).unwrap().into()).unwrap();
    /// assert!(!classic.same_as(&other));
    /// ```
    pub fn same_as(&self, other: &RuleSet) -> bool {
        std::ptr::eq(self, other)
            || (self.spec == other.spec
                && (Arc::ptr_eq(&self.board, &other.board) || self.board.spec() == other.board.spec()))
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.spec.options
    }

    /// The sides in turn order.
    pub fn sides(&self) -> &[Side] {
        &self.spec.sides
    }

    /// Refuses a side that does not play in this rule set ([`PlayError::NotPlaying`](crate::PlayError::NotPlaying),
    /// of kind [`crate::ErrorKind::SideNotInGame`]): the check every layer makes of a
    /// side it is given.
    pub fn check_side(&self, side: Side) -> Result<(), crate::PlayError> {
        if self.spec.sides.contains(&side) {
            Ok(())
        } else {
            Err(crate::PlayError::NotPlaying(side))
        }
    }

    /// The side's team: itself and its allies.
    pub fn team_of(&self, side: Side) -> SideSet {
        self.allies[side as usize]
    }

    /// The army of one side: kinds with their counts.
    pub fn army(&self) -> impl Iterator<Item = (PieceKind, u8)> + '_ {
        self.spec.army.iter().map(|(k, n)| (*k, *n))
    }

    /// Number of pieces in one side's army.
    pub fn army_size(&self) -> usize {
        self.army_size
    }

    /// Whether a kind is part of this rule set's army.
    pub fn has_kind(&self, kind: PieceKind) -> bool {
        self.spec.army.contains_key(&kind)
    }

    /// How a kind moves.
    pub fn mobility(&self, kind: PieceKind) -> Mobility {
        self.mobility[kind as usize]
    }

    /// Whether a kind has an ability.
    pub fn has_ability(&self, kind: PieceKind, ability: Ability) -> bool {
        self.abilities[kind as usize] & ability.bit() != 0
    }

    /// Whether a kind strikes, fires at planes or flies as a missile (see [`Ability`]).
    pub fn strikes(&self, kind: PieceKind) -> bool {
        self.abilities[kind as usize] & STRIKING != 0
    }

    /// What move generation needs to know about a kind.
    #[inline]
    pub(crate) fn profile(&self, kind: PieceKind) -> MoveProfile {
        self.profiles[kind as usize]
    }

    /// The segments of the straight railway rays from `p`, each ray cut after
    /// `rail_max_steps` points.
    #[inline]
    pub(crate) fn rail_segments(&self, p: Point) -> &[crate::board::RaySegment] {
        let (a, b) = self.rail_segment_of[p.index()];
        &self.rail_segments[a as usize..b as usize]
    }

    /// Where the segments of `p` start in the whole table (segments' `ray_end` count
    /// from there).
    #[inline]
    pub(crate) fn rail_segment_of_start(&self, p: Point) -> usize {
        self.rail_segment_of[p.index()].0 as usize
    }

    /// Per kind, its [`LandClass`] byte, if every kind of the army moves on land with
    /// no ability (no arms, strikes or `attacks_only_by_ability`); kinds outside the
    /// army are immobile there.
    #[inline]
    pub(crate) fn land_classes(&self) -> Option<&[u8; PieceKind::COUNT]> {
        self.land_classes.as_ref()
    }

    /// Whether the army has pieces of more than one arm (海陆空三军棋).
    pub fn has_arms(&self) -> bool {
        self.has_arms
    }

    /// Whether a kind may attack a piece standing in a camp (`camps_protect` off, or
    /// the kind is in `camp_exempt`).
    pub fn may_attack_camps(&self, kind: PieceKind) -> bool {
        !self.spec.options.camps_protect || self.camp_exempt[kind as usize]
    }

    /// Whether a kind is one of the option `hq_safe_from`: it may not attack a piece
    /// standing in an HQ. HQs are public, so move generation refuses such an attack.
    /// (A missile spares occupied HQs too, by its own rule: that is not this option.)
    pub fn hq_safe_from(&self, kind: PieceKind) -> bool {
        self.hq_safe_from[kind as usize]
    }

    /// [`RuleSet::hq_safe_from`] under its name of development versions, which said
    /// less than it meant.
    #[deprecated(since = "0.1.0", note = "use `hq_safe_from`")]
    pub fn spares_hqs(&self, kind: PieceKind) -> bool {
        self.hq_safe_from(kind)
    }

    /// Whether a kind may attack some piece of an arm. Arms are public, so move
    /// generation refuses a target of an arm the mover can never attack (a destroyer
    /// against an army piece); within an arm the defender's kind is hidden and a
    /// forbidden pairing is repelled by the referee.
    pub fn attacks_arm(&self, kind: PieceKind, arm: crate::piece::Arm) -> bool {
        self.attacks_arm[kind as usize] >> arm as u8 & 1 == 1
    }

    /// The points a side's army fills at deployment, in id order.
    pub fn deploy_points(&self, side: Side) -> &[Point] {
        &self.deploy_points[side as usize]
    }

    /// The random deployment's order for `side` (see the field `deploy_plans`).
    pub(crate) fn deploy_plan(&self, side: Side) -> &[(PieceKind, u8, PointSet)] {
        &self.deploy_plans[side as usize]
    }

    /// The combat outcome for an attacker and a defender (see [`crate::resolve`]).
    pub fn combat_outcome(&self, attacker: PieceKind, defender: PieceKind) -> CombatOutcome {
        self.combat[attacker as usize][defender as usize]
    }

    /// Size of the fixed action space of this rule set (see [`crate::Action::index`]):
    /// the board's moves, then (in rule sets that deal face down) one flip per point.
    pub fn action_space(&self) -> usize {
        self.board.move_space() + if self.deals() { self.board.len() } else { 0 }
    }

    /// Whether games are dealt face down instead of deployed (翻棋).
    pub fn deals(&self) -> bool {
        self.spec.deployment.deal
    }
}

/// The abilities that are strikes ([`RuleSet::strikes`]).
const STRIKING: u8 = Ability::Strike.bit() | Ability::Bombard.bit() | Ability::AntiAir.bit() | Ability::Flight.bit();

/// The roles a kind may be deployed on: the deployment's roles, narrowed by every
/// constraint on the kind that names roles.
fn deploy_roles(spec: &RuleSpec, kind: PieceKind) -> Vec<Role> {
    let mut roles = spec.deployment.roles.clone();
    for c in spec.deployment.constraints.iter().filter(|c| c.kind == kind) {
        if let Some(allowed) = &c.roles {
            roles.retain(|r| allowed.contains(r));
        }
    }
    roles
}

/// Refuses a rule set whose pieces' arms (army, navy, air force) would not be public.
/// Move generation refuses attacks on an arm the mover can never attack, and the views
/// show each piece's arm: both are right only if every player can tell each piece's
/// arm — which holds when every arm deploys, face up, on roles no other arm uses.
fn check_arms_public(spec: &RuleSpec, board: &Board) -> Result<(), RulesError> {
    use crate::piece::Arm;
    let arms: Vec<Arm> = spec.army.keys().map(|k| k.arm()).collect();
    if arms.iter().all(|a| *a == arms[0]) {
        return Ok(());
    }
    if spec.deployment.deal {
        return Err(RulesError::HiddenArms(format!(
            "{} deals face down an army of several arms (army, navy, air force), whose arms the face-down pieces would show",
            spec.name
        )));
    }
    let mut owner: Vec<(Role, Arm, PieceKind)> = Vec::new();
    for &kind in spec.army.keys() {
        for role in deploy_roles(spec, kind) {
            // Only roles the board has for some side matter.
            if !board.points().any(|p| board.role(p) == role && board.side_of(p).is_some()) {
                continue;
            }
            match owner.iter().find(|o| o.0 == role) {
                Some(&(_, arm, other)) if arm != kind.arm() => {
                    return Err(RulesError::HiddenArms(format!(
                        "{kind} ({}) and {other} ({}) may both deploy on {} points; give each arm roles of its own",
                        kind.arm().name(),
                        arm.name(),
                        role.name()
                    )));
                }
                Some(_) => {}
                None => owner.push((role, kind.arm(), kind)),
            }
        }
    }
    Ok(())
}

/// Refuses a rule set that allows an action its fixed action space cannot name. The
/// board's space holds every pair one edge apart, in one railway component, on one air
/// line, a surface point and an air position within [`crate::board::STRIKE_RANGE`], and
/// a missile's flights; the one power that reaches further is anti-aircraft fire from
/// an air position (a plane given `anti_air`), which must find each plane it could hit
/// on its air lines.
fn check_action_space(
    spec: &RuleSpec,
    board: &Board,
    mobility: &[Mobility; PieceKind::COUNT],
    abilities: &[u8; PieceKind::COUNT],
) -> Result<(), RulesError> {
    for &kind in spec.army.keys() {
        if abilities[kind as usize] & Ability::AntiAir.bit() == 0 {
            continue;
        }
        let in_air = mobility[kind as usize] == Mobility::Fly
            || deploy_roles(spec, kind).iter().any(|r| matches!(r, Role::Air | Role::Airport));
        if !in_air {
            continue;
        }
        for a in board.points().filter(|&p| board.is_air(p)) {
            for b in board.points().filter(|&p| board.is_air(p) && p != a) {
                if board.distance(a, b) as i32 <= crate::board::STRIKE_RANGE && board.move_index(a, b).is_none() {
                    return Err(RulesError::OutsideActionSpace(format!(
                        "{kind} has \"anti_air\" and can be in the air, but its fire from {} at a plane on {} is off every air line",
                        board.name_of(a),
                        board.name_of(b)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Refuses options that would be silently ignored or would make legality depend on
/// hidden identities.
fn check_options(spec: &RuleSpec, combat: &CombatMatrix, abilities: &[u8; PieceKind::COUNT]) -> Result<(), RulesError> {
    let opts = &spec.options;
    if opts.open_after_deploy && spec.deployment.deal {
        return Err(RulesError::Incompatible {
            option: "open_after_deploy",
            reason: format!("{} deals every piece face down; nothing is deployed to be opened", spec.name),
        });
    }
    if spec.army.contains_key(&PieceKind::Bomb) && spec.army.contains_key(&PieceKind::Flag) {
        let o = combat[PieceKind::Bomb as usize][PieceKind::Flag as usize];
        let hits = matches!(o, CombatOutcome::Win | CombatOutcome::Both);
        if hits != opts.bomb_may_hit_flag {
            return Err(RulesError::Incompatible {
                option: "bomb_may_hit_flag",
                reason: format!(
                    "is {} but {}'s combat table gives bomb against flag: {o} (add an entry with \"if\": \"bomb_may_hit_flag\")",
                    opts.bomb_may_hit_flag, spec.name
                ),
            });
        }
    }
    if opts.recon_lock_on && !abilities.iter().any(|a| a & Ability::Scout.bit() != 0) {
        return Err(RulesError::Incompatible {
            option: "recon_lock_on",
            reason: format!("{} has no piece with the \"scout\" ability", spec.name),
        });
    }
    if opts.smallest_digs_mines != MineDigging::Off && !spec.army.contains_key(&PieceKind::Mine) {
        return Err(RulesError::Incompatible {
            option: "smallest_digs_mines",
            reason: format!("{} has no mines", spec.name),
        });
    }
    // The smallest piece attacks a mine as its stand-in, by the stand-in's row of the
    // combat table: an army without that kind has no such row (the attack would only
    // be repelled).
    if let Some(stand_in) = opts.smallest_digs_mines.stand_in() {
        if !spec.army.contains_key(&stand_in) {
            return Err(RulesError::Incompatible {
                option: "smallest_digs_mines",
                reason: format!(
                    "{} has no {}, the kind its smallest piece stands in for against a mine",
                    spec.name,
                    stand_in.id()
                ),
            });
        }
    }
    Ok(())
}

/// Replaces `"extends": "<preset>"` by the preset's keys, overridden by the object's
/// own (`options` merged key by key). Presets may extend presets.
fn resolve_extends(
    mut value: serde_json::Value,
    depth: usize,
    presets: fn(&str) -> Option<&'static str>,
) -> Result<serde_json::Value, RulesError> {
    use serde_json::Value;
    let Some(obj) = value.as_object_mut() else {
        return Ok(value);
    };
    let Some(base) = obj.remove("extends") else {
        return Ok(value);
    };
    let base = base
        .as_str()
        .ok_or_else(|| RulesError::Json("\"extends\" must be a preset name".into()))?;
    if depth > 8 {
        return Err(RulesError::Json(format!("\"extends\" chain through {base:?} is too deep")));
    }
    let base_json = presets(base).ok_or_else(|| RulesError::UnknownPreset(base.to_owned()))?;
    let base_value: Value =
        serde_json::from_str(base_json).map_err(|e| RulesError::Json(e.to_string()))?;
    let mut merged = resolve_extends(base_value, depth + 1, presets)?;
    let target = merged
        .as_object_mut()
        .ok_or_else(|| RulesError::Json(format!("preset {base:?} is not an object")))?;
    for (k, v) in std::mem::take(obj) {
        match (k.as_str(), v, target.get_mut("options")) {
            ("options", Value::Object(o), Some(Value::Object(t))) => t.extend(o),
            ("combat_first", Value::Array(mut first), _) => {
                if let Some(Value::Array(rest)) = target.get_mut("combat") {
                    first.append(rest);
                }
                target.insert("combat".into(), Value::Array(first));
            }
            ("combat_first", _, _) => {
                return Err(RulesError::Json("\"combat_first\" must be a list of combat entries".into()))
            }
            (_, v, _) => {
                target.insert(k, v);
            }
        }
    }
    Ok(merged)
}

/// Whether a kind takes part in a rule set's combat: in its army, or a stand-in.
fn involved(spec: &RuleSpec, kind: PieceKind) -> bool {
    spec.army.contains_key(&kind) || spec.equivalents.values().any(|m| m.values().any(|k| *k == kind))
}

fn class_group(name: &str) -> Option<PieceClass> {
    Some(match name {
        "flag" => PieceClass::Flag,
        "officer" => PieceClass::Officer,
        "weapon" => PieceClass::Weapon,
        "ship" => PieceClass::Ship,
        "plane" => PieceClass::Plane,
        _ => return None,
    })
}

fn pattern_matches(spec: &RuleSpec, pattern: &KindPattern, kind: PieceKind) -> Result<bool, RulesError> {
    let one = |p: &str| -> Result<bool, RulesError> {
        if p == "*" {
            return Ok(true);
        }
        if let Some(group) = p.strip_prefix('@') {
            if let Some(list) = spec.groups.get(group) {
                return Ok(list.contains(&kind));
            }
            return class_group(group)
                .map(|c| kind.class() == c)
                .ok_or_else(|| RulesError::BadPattern(p.to_owned()));
        }
        PieceKind::from_name(p)
            .map(|k| k == kind)
            .ok_or_else(|| RulesError::BadPattern(p.to_owned()))
    };
    match pattern {
        KindPattern::One(p) => one(p),
        KindPattern::Any(list) => {
            let mut any = false;
            for p in list {
                any |= one(p)?;
            }
            Ok(any)
        }
    }
}

fn compile_combat(spec: &RuleSpec) -> Result<Box<CombatMatrix>, RulesError> {
    let explicit = compile_entries(spec)?;
    let mut table = Box::new([[CombatOutcome::Illegal; PieceKind::COUNT]; PieceKind::COUNT]);
    // The stand-in for `ship` against `other`, if the rule set gives one.
    let stand_in = |ship: PieceKind, other: PieceKind| -> Result<Option<PieceKind>, RulesError> {
        let Some(map) = spec.equivalents.get(&ship) else { return Ok(None) };
        for (pattern, kind) in map.iter().filter(|(p, _)| *p != "*").chain(map.iter().filter(|(p, _)| *p == "*")) {
            let pat = KindPattern::One(pattern.clone());
            let hit = pattern_matches(spec, &pat, other)
                .map_err(|_| RulesError::BadEquivalent(format!("unknown pattern {pattern:?} for {ship}")))?;
            if hit {
                if spec.equivalents.contains_key(kind) {
                    return Err(RulesError::BadEquivalent(format!("{ship} stands in as {kind}, which itself has equivalents")));
                }
                return Ok(Some(*kind));
            }
        }
        Ok(None)
    };
    for &a in spec.army.keys() {
        for &d in spec.army.keys() {
            table[a as usize][d as usize] = match explicit[a as usize][d as usize] {
                Some(o) => o,
                None if a.arm() != d.arm() => {
                    if let Some(sa) = stand_in(a, d)? {
                        explicit[sa as usize][d as usize].unwrap_or(CombatOutcome::Illegal)
                    } else if let Some(sd) = stand_in(d, a)? {
                        explicit[a as usize][sd as usize].unwrap_or(CombatOutcome::Illegal)
                    } else {
                        CombatOutcome::Illegal
                    }
                }
                None => CombatOutcome::Illegal,
            };
        }
    }
    Ok(table)
}

/// The outcome of the first matching entry for every pair of army kinds (`None` where
/// no entry matches). Stand-in kinds need not be in the army, so every kind is covered.
fn compile_entries(spec: &RuleSpec) -> Result<Box<[[Option<CombatOutcome>; PieceKind::COUNT]; PieceKind::COUNT]>, RulesError> {
    let mut table = Box::new([[None; PieceKind::COUNT]; PieceKind::COUNT]);
    // Validate every entry once, even those no army kind reaches.
    for e in &spec.combat {
        pattern_matches(spec, &e.attacker, PieceKind::Flag)?;
        pattern_matches(spec, &e.defender, PieceKind::Flag)?;
        if let Some(opt) = &e.if_option {
            spec.options
                .flag(opt)
                .ok_or_else(|| RulesError::UnknownOption(opt.clone()))?;
        }
    }
    // Each entry's patterns as kind sets, computed once: the table below then costs a
    // bit test per (pair, entry) rather than a pattern match (large rule sets compile
    // in time linear in their size).
    let mask = |pattern: &KindPattern| -> Result<u128, RulesError> {
        let mut m = 0u128;
        for k in PieceKind::ALL {
            if pattern_matches(spec, pattern, k)? {
                m |= 1 << k as usize;
            }
        }
        Ok(m)
    };
    let mut entries = Vec::with_capacity(spec.combat.len());
    for e in &spec.combat {
        if let Some(opt) = &e.if_option {
            if !spec.options.flag(opt).unwrap_or(false) {
                continue;
            }
        }
        entries.push((mask(&e.attacker)?, mask(&e.defender)?, e));
    }
    for a in PieceKind::ALL {
        for d in PieceKind::ALL {
            for &(am, dm, e) in &entries {
                if am >> a as usize & 1 == 0 || dm >> d as usize & 1 == 0 {
                    continue;
                }
                table[a as usize][d as usize] = Some(match e.outcome {
                    TableOutcome::Win => CombatOutcome::Win,
                    TableOutcome::Lose => CombatOutcome::Lose,
                    TableOutcome::Both => CombatOutcome::Both,
                    TableOutcome::Repel => CombatOutcome::Repel,
                    TableOutcome::Evade => CombatOutcome::Evade,
                    TableOutcome::Illegal => CombatOutcome::Illegal,
                    TableOutcome::Rank => {
                        let (Some(ra), Some(rd)) = (spec.ranks.get(&a), spec.ranks.get(&d)) else {
                            // Only kinds of the army (or stand-ins) must have ranks.
                            let missing = if spec.ranks.contains_key(&a) { d } else { a };
                            if involved(spec, a) && involved(spec, d) {
                                return Err(RulesError::MissingRank(missing));
                            }
                            break;
                        };
                        match ra.cmp(rd) {
                            std::cmp::Ordering::Greater => CombatOutcome::Win,
                            std::cmp::Ordering::Equal => CombatOutcome::Both,
                            std::cmp::Ordering::Less => CombatOutcome::Lose,
                        }
                    }
                });
                break;
            }
        }
    }
    Ok(table)
}

/// Resolves `attacker` attacking `defender` under a rule set, without a game.
///
/// A kind that is not part of the rule set's army gives [`CombatOutcome::Illegal`].
///
/// ```
/// use junqi::{resolve, CombatOutcome, PieceKind::*, RuleSet};
/// let rules = RuleSet::preset("classic").unwrap();
/// assert_eq!(resolve(&rules, Commander, ArmyCommander), CombatOutcome::Win);
/// assert_eq!(resolve(&rules, Engineer, Mine), CombatOutcome::Win);
/// assert_eq!(resolve(&rules, Commander, Mine), CombatOutcome::Lose);
/// assert_eq!(resolve(&rules, Bomb, Commander), CombatOutcome::Both);
/// ```
pub fn resolve(rules: &RuleSet, attacker: PieceKind, defender: PieceKind) -> CombatOutcome {
    rules.combat_outcome(attacker, defender)
}

/// Resolves an attack made in a given manner, without a game: the outcome of
/// [`resolve`] and what it does to both pieces.
///
/// ```
/// use junqi::{resolve_attack, Attack, CombatOutcome, PieceKind::*, RuleSet};
/// let rules = RuleSet::preset("sanjun-modern").unwrap();
/// // A gunboat's bombardment of a commander: the gunboat loses, and nothing happens.
/// let r = resolve_attack(&rules, Gunboat, Commander, Attack::Bombardment);
/// assert_eq!(r.outcome, CombatOutcome::Lose);
/// assert!(!r.attacker_leaves && !r.defender_leaves);
/// // A fort's strike on a cruiser: the cruiser leaves, the fort stays put.
/// let r = resolve_attack(&rules, Fort, Cruiser, Attack::Strike);
/// assert!(r.defender_leaves && !r.attacker_moves);
/// // A battleship landing onto a harbour mouth held by an infantry wins and moves in.
/// let r = resolve_attack(&rules, Battleship, Infantry, Attack::Move);
/// assert!(r.defender_leaves && r.attacker_moves);
/// ```
pub fn resolve_attack(rules: &RuleSet, attacker: PieceKind, defender: PieceKind, attack: Attack) -> Resolution {
    resolution(rules, attacker, rules.combat_outcome(attacker, defender), attack)
}

/// The effect of an outcome for an attack made in a given manner.
pub(crate) fn resolution(rules: &RuleSet, attacker: PieceKind, outcome: CombatOutcome, attack: Attack) -> Resolution {
    let attacker_leaves = match outcome {
        CombatOutcome::Lose | CombatOutcome::Both => attack != Attack::Bombardment,
        CombatOutcome::Evade => rules.has_ability(attacker, Ability::Flight),
        _ => false,
    };
    let moving = matches!(attack, Attack::Move | Attack::Flight);
    Resolution {
        outcome,
        attacker_leaves,
        defender_leaves: outcome.defender_leaves(),
        attacker_moves: moving
            && (outcome == CombatOutcome::Win
                || outcome == CombatOutcome::Repel && attack == Attack::Move && rules.mobility(attacker) == Mobility::Fly),
    }
}
