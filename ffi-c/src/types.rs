//! Enums and small structs mirroring the core's sides, piece kinds, phases, outcomes,
//! attacks, resolutions and results, with their name conversions.
//!
//! Enum values travel from C to the library as plain `int` parameters (never as Rust
//! enums, which must not hold a value outside their variants) and are checked here:
//! a value that is not one of the constants gives `JUNQI_STATUS_OUT_OF_RANGE`.

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use junqi_core::{Attack, EndReason, GameResult, CombatOutcome, Phase, PieceKind, Resolution, Side, SideSet};

use crate::boundary::guard;
use crate::ptr::{str_arg, Out};
use crate::status::{junqi_status, Error, Result};

/// A side (an army). Values match the core's side indices.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_side {
    /// No side: written by `junqi_game_to_act` once the game is over, and as the
    /// `winner` of a result that has no single winner.
    None = -1,
    /// The side at the bottom of the board (moves first in `classic`).
    South = 0,
    /// The side on the right in four-player games.
    East = 1,
    /// The side at the top of the board.
    North = 2,
    /// The side on the left in four-player games.
    West = 3,
}

/// What kind of action the game waits for.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_phase {
    /// Sides still have to deploy (in any order; `junqi_game_to_act` names the first
    /// that has not).
    Deploy = 0,
    /// The side to act moves.
    Move = 1,
    /// The game is over.
    Over = 2,
    /// A reaction is due before play goes on (海陆空三军棋, option `evade_step`): a
    /// submarine that evaded an attack must be stepped to an empty neighbouring sea
    /// point by its owner. `junqi_game_to_act` names that owner — not the side that
    /// just moved — and the legal actions are the submarine's steps (ordinary moves).
    Reaction = 3,
    /// A phase this version of the header does not know yet (a newer core); the view
    /// JSON (`junqi_game_view_json`) names it.
    Other = 99,
}

/// The outcome of an attack, from the attacker's point of view.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_outcome {
    /// The defender leaves the board; a moving attacker takes its place.
    Win = 0,
    /// The attacker leaves the board.
    Lose = 1,
    /// Both leave the board.
    Both = 2,
    /// Nobody leaves; the attacker stays where it was.
    Repel = 3,
    /// The defender (a submarine) evades.
    Evade = 4,
    /// Not a legal attack under this rule set (also: a kind the rule set does not use).
    Illegal = 5,
    /// An outcome this version of the header does not know yet (a newer core).
    Other = 99,
}

/// How an attack is made (海陆空三军棋), for `junqi_resolve_attack`. The outcome is
/// always the combat table's; who leaves the board and who moves depend on the manner
/// too. Values are stable: new constants will be added after these.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_attack {
    /// The attacker goes onto the defender: a step, a railway run, a sea step, a
    /// landing, or a plane's air run.
    Move = 0,
    /// A missile flies onto the defender.
    Flight = 1,
    /// The striker stays where it is: a fort's strike, anti-aircraft fire.
    Strike = 2,
    /// A ship's shore bombardment: a strike that never costs the ship.
    Bombardment = 3,
}

/// Why a game ended.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum junqi_end_reason {
    /// The game is not over.
    None = -1,
    /// A flag was captured.
    FlagCaptured = 0,
    /// The side to act had no legal move.
    NoLegalMove = 1,
    /// Too many plies in a row without a piece leaving the board.
    NoCaptureLimit = 2,
    /// A side resigned.
    Resignation = 3,
    /// The players agreed to a draw.
    Agreement = 4,
    /// A player ran out of time too often (the rule set's `max_timeouts`).
    Timeouts = 5,
    /// A side's movable pieces are all gone (`lose_without_movable_pieces`, 翻棋).
    NoMovablePieces = 6,
    /// A side's commander left the board (`commander_capture`, 海陆空三军棋's 夺取主帅).
    CommanderCaptured = 7,
    /// One action ended the game for both sides at once: a draw, whatever the sides
    /// are called.
    MutualElimination = 8,
    /// A player left the game mid-way (`junqi_game_escape`; docs/sources.md#qq-escape).
    Escape = 9,
    /// A reason this version of the header does not know yet (a newer core); the
    /// result JSON (`junqi_game_view_json`) names it.
    Other = 99,
}

/// A kind of piece: the full catalogue of the family (a rule set uses a subset).
/// Values match the core's dense kind indices; names are the core's canonical ids
/// (`junqi_piece_kind_name`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types, missing_docs)]
pub enum junqi_piece_kind {
    Flag = 0,
    Commander = 1,
    CorpsCommander = 2,
    ArmyCommander = 3,
    DivisionCommander = 4,
    BrigadeCommander = 5,
    RegimentCommander = 6,
    BattalionCommander = 7,
    CompanyCommander = 8,
    PlatoonLeader = 9,
    Cavalry = 10,
    Infantry = 11,
    Engineer = 12,
    Mine = 13,
    Bomb = 14,
    Trap = 15,
    Missile = 16,
    AtomicCannon = 17,
    Nuke = 18,
    Tank = 19,
    Artillery = 20,
    AaGun = 21,
    Fort = 22,
    MachineGun = 23,
    PoisonGas = 24,
    Battleship = 25,
    Cruiser = 26,
    Gunboat = 27,
    Destroyer = 28,
    Submarine = 29,
    Fighter = 30,
    Recon = 31,
}

/// Number of piece kinds in the catalogue (`junqi_piece_kind` values are
/// `0..JUNQI_PIECE_KIND_COUNT`).
pub const JUNQI_PIECE_KIND_COUNT: u32 = 32;

// The mirror must list exactly the core's kinds; this fails to compile when the core
// grows (update the enum above, `KINDS` below and the header).
const _: () = assert!(PieceKind::COUNT == JUNQI_PIECE_KIND_COUNT as usize);

/// The C kinds in index order.
pub(crate) const KINDS: [junqi_piece_kind; 32] = {
    use junqi_piece_kind::*;
    [
        Flag,
        Commander,
        CorpsCommander,
        ArmyCommander,
        DivisionCommander,
        BrigadeCommander,
        RegimentCommander,
        BattalionCommander,
        CompanyCommander,
        PlatoonLeader,
        Cavalry,
        Infantry,
        Engineer,
        Mine,
        Bomb,
        Trap,
        Missile,
        AtomicCannon,
        Nuke,
        Tank,
        Artillery,
        AaGun,
        Fort,
        MachineGun,
        PoisonGas,
        Battleship,
        Cruiser,
        Gunboat,
        Destroyer,
        Submarine,
        Fighter,
        Recon,
    ]
};

/// The result of a game, as written by `junqi_game_result`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct junqi_result {
    /// Whether the game is over. When false, every other field is "none"/0.
    pub over: bool,
    /// Whether the game ended in a draw (no winner).
    pub draw: bool,
    /// The single winning side, or `JUNQI_SIDE_NONE` (draw, a team win, or not over).
    pub winner: junqi_side,
    /// Every winning side as a bit mask: bit `1u << side` is set for each winner.
    pub winners: u32,
    /// Why the game ended, or `JUNQI_END_REASON_NONE`.
    pub reason: junqi_end_reason,
}

/// What an attack does, as written by `junqi_resolve_attack`: the combat outcome and
/// its effect on both pieces.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct junqi_resolution {
    /// The combat table's outcome (as `junqi_resolve` gives it).
    pub outcome: junqi_outcome,
    /// Whether the attacker leaves the board (`lose` or `both`, except for a bombarding
    /// ship; a missile whose target evades is spent too).
    pub attacker_leaves: bool,
    /// Whether the defender leaves the board (`win` or `both`).
    pub defender_leaves: bool,
    /// Whether the attacker ends on the defender's place: a mover or a missile that
    /// wins, and a plane repelled by a surface piece (it stays above its target).
    pub attacker_moves: bool,
}

/// "No point": written by `junqi_game_obligation` when there is no point to name.
/// Point indices are always below `junqi_rules_point_count`, so this is never one.
pub const JUNQI_POINT_NONE: u32 = u32::MAX;

/// A move between two points, given by point index (`0..junqi_rules_point_count`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct junqi_move {
    /// The point the piece stands on.
    pub from: u32,
    /// The point it goes to.
    pub to: u32,
}

// ---- conversions ----------------------------------------------------------------

pub(crate) fn side_to_c(side: Side) -> junqi_side {
    match side {
        Side::South => junqi_side::South,
        Side::East => junqi_side::East,
        Side::North => junqi_side::North,
        Side::West => junqi_side::West,
    }
}

/// A side from a C `int` (must be 0..=3).
pub(crate) fn side_arg(value: c_int) -> Result<Side> {
    usize::try_from(value)
        .ok()
        .and_then(Side::from_index)
        .ok_or_else(|| {
            Error::out_of_range(format!("{value} is not a junqi_side (expected 0 to 3)"))
        })
}

/// A piece kind from a C `int`.
pub(crate) fn kind_arg(value: c_int) -> Result<PieceKind> {
    usize::try_from(value)
        .ok()
        .and_then(PieceKind::from_index)
        .ok_or_else(|| {
            Error::out_of_range(format!(
                "{value} is not a junqi_piece_kind (expected 0 to {})",
                PieceKind::COUNT - 1
            ))
        })
}

pub(crate) fn kind_to_c(kind: PieceKind) -> junqi_piece_kind {
    KINDS[kind as usize]
}

pub(crate) fn phase_to_c(phase: Phase) -> junqi_phase {
    #[allow(unreachable_patterns)] // the core may add phases before this mirror does
    match phase {
        Phase::Deploy => junqi_phase::Deploy,
        Phase::Move => junqi_phase::Move,
        Phase::Over => junqi_phase::Over,
        Phase::Reaction => junqi_phase::Reaction,
        _ => junqi_phase::Other,
    }
}

pub(crate) fn outcome_to_c(outcome: CombatOutcome) -> junqi_outcome {
    #[allow(unreachable_patterns)] // the core may add outcomes before this mirror does
    match outcome {
        CombatOutcome::Win => junqi_outcome::Win,
        CombatOutcome::Lose => junqi_outcome::Lose,
        CombatOutcome::Both => junqi_outcome::Both,
        CombatOutcome::Repel => junqi_outcome::Repel,
        CombatOutcome::Evade => junqi_outcome::Evade,
        CombatOutcome::Illegal => junqi_outcome::Illegal,
        _ => junqi_outcome::Other,
    }
}

/// The attacks this mirror knows, in `junqi_attack` value order.
pub(crate) const ATTACKS: [Attack; 4] = [
    Attack::Move,
    Attack::Flight,
    Attack::Strike,
    Attack::Bombardment,
];

/// An attack from a C `int` (must be a `junqi_attack` value).
pub(crate) fn attack_arg(value: c_int) -> Result<Attack> {
    usize::try_from(value)
        .ok()
        .and_then(|i| ATTACKS.get(i).copied())
        .ok_or_else(|| {
            Error::out_of_range(format!(
                "{value} is not a junqi_attack (expected 0 to {})",
                ATTACKS.len() - 1
            ))
        })
}

/// The snake_case name of an attack. The match is exhaustive on purpose: it fails to
/// compile when the core grows a manner of attack (update `junqi_attack`, `ATTACKS`
/// and the header).
pub(crate) const fn attack_name(attack: Attack) -> &'static str {
    match attack {
        Attack::Move => "move",
        Attack::Flight => "flight",
        Attack::Strike => "strike",
        Attack::Bombardment => "bombardment",
    }
}

pub(crate) fn resolution_to_c(r: Resolution) -> junqi_resolution {
    junqi_resolution {
        outcome: outcome_to_c(r.outcome),
        attacker_leaves: r.attacker_leaves,
        defender_leaves: r.defender_leaves,
        attacker_moves: r.attacker_moves,
    }
}

pub(crate) fn reason_to_c(reason: EndReason) -> junqi_end_reason {
    #[allow(unreachable_patterns)] // the core may add reasons before this mirror does
    match reason {
        EndReason::FlagCaptured => junqi_end_reason::FlagCaptured,
        EndReason::NoLegalMove => junqi_end_reason::NoLegalMove,
        EndReason::NoCaptureLimit => junqi_end_reason::NoCaptureLimit,
        EndReason::Resignation => junqi_end_reason::Resignation,
        EndReason::Agreement => junqi_end_reason::Agreement,
        EndReason::Timeouts => junqi_end_reason::Timeouts,
        EndReason::NoMovablePieces => junqi_end_reason::NoMovablePieces,
        EndReason::CommanderCaptured => junqi_end_reason::CommanderCaptured,
        EndReason::MutualElimination => junqi_end_reason::MutualElimination,
        EndReason::Escape => junqi_end_reason::Escape,
        _ => junqi_end_reason::Other,
    }
}

/// A set of sides as a bit mask: bit `1 << side` per member.
pub(crate) fn side_mask(sides: SideSet) -> u32 {
    sides.iter().fold(0, |m, s| m | 1u32 << (s as u32))
}

pub(crate) fn result_to_c(result: Option<GameResult>) -> junqi_result {
    match result {
        None => junqi_result {
            over: false,
            draw: false,
            winner: junqi_side::None,
            winners: 0,
            reason: junqi_end_reason::None,
        },
        Some(r) => junqi_result {
            over: true,
            draw: r.is_draw(),
            winner: r.winner().map_or(junqi_side::None, side_to_c),
            winners: side_mask(r.winners),
            reason: reason_to_c(r.reason),
        },
    }
}

// ---- names ----------------------------------------------------------------------

/// NUL-terminated copies of names, built once and kept for the program's lifetime.
fn static_names(
    cell: &'static OnceLock<Vec<CString>>,
    make: impl FnOnce() -> Vec<String>,
) -> &'static [CString] {
    cell.get_or_init(|| {
        make()
            .into_iter()
            .map(|s| CString::new(s).unwrap_or_default())
            .collect()
    })
}

fn kind_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        PieceKind::ALL.iter().map(|k| k.id().to_owned()).collect()
    })
}

fn side_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        Side::ALL.iter().map(|s| s.name().to_owned()).collect()
    })
}

fn outcome_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        [
            CombatOutcome::Win,
            CombatOutcome::Lose,
            CombatOutcome::Both,
            CombatOutcome::Repel,
            CombatOutcome::Evade,
            CombatOutcome::Illegal,
        ]
        .iter()
        .map(|o| o.name().to_owned())
        .collect()
    })
}

fn attack_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        ATTACKS.iter().map(|a| attack_name(*a).to_owned()).collect()
    })
}

/// The phases this mirror knows, in `junqi_phase` value order (not the core's order:
/// C values never change once published).
pub(crate) const PHASES: [Phase; 4] = [Phase::Deploy, Phase::Move, Phase::Over, Phase::Reaction];

fn phase_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        PHASES.iter().map(|p| p.name().to_owned()).collect()
    })
}

/// The reasons this mirror knows, in `junqi_end_reason` value order.
pub(crate) const REASONS: [EndReason; 10] = [
    EndReason::FlagCaptured,
    EndReason::NoLegalMove,
    EndReason::NoCaptureLimit,
    EndReason::Resignation,
    EndReason::Agreement,
    EndReason::Timeouts,
    EndReason::NoMovablePieces,
    EndReason::CommanderCaptured,
    EndReason::MutualElimination,
    EndReason::Escape,
];

fn reason_names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    static_names(&NAMES, || {
        REASONS
            .iter()
            .map(|r| r.name().to_owned())
            .collect()
    })
}

/// # Safety
/// `out` is NULL or writable.
unsafe fn name_of(
    names: fn() -> &'static [CString],
    value: c_int,
    what: &str,
    out: *mut *const c_char,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(out, "name_out") }?;
        let names = names();
        let name = usize::try_from(value)
            .ok()
            .and_then(|i| names.get(i))
            .ok_or_else(|| {
                Error::out_of_range(format!(
                    "{value} is not a {what} (expected 0 to {})",
                    names.len() - 1
                ))
            })?;
        out.write(name.as_ptr());
        Ok(())
    })
}

/// The name of a side: `"south"`, `"east"`, `"north"` or `"west"`.
///
/// - `side`: a `junqi_side` value other than `JUNQI_SIDE_NONE`.
/// - `name_out`: receives a static string; do **not** free it.
///
/// Status: `OK`; `NULL_POINTER` if `name_out` is NULL; `OUT_OF_RANGE` if `side` is not
/// a side. Thread safety: may be called from any thread.
///
/// # Safety
/// `name_out` is NULL or points to writable memory for a `const char *`.
#[no_mangle]
pub unsafe extern "C" fn junqi_side_name(
    side: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(side_names, side, "junqi_side", name_out) }
}

/// Parses a side name: `"south"`, `"north"`, `"east"`, `"west"` (any case), their
/// initials, or the Chinese 南/北/东/西.
///
/// - `name`: NUL-terminated UTF-8 text (borrowed for the call).
/// - `side_out`: receives the side.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME` if the text is not a
/// side. Thread safety: may be called from any thread.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `side_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_side_from_name(
    name: *const c_char,
    side_out: *mut junqi_side,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `name`.
        let text = unsafe { str_arg(name, "name") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(side_out, "side_out") }?;
        let side = text.parse::<Side>()?;
        out.write(side_to_c(side));
        Ok(())
    })
}

/// The canonical id of a piece kind, e.g. `"engineer"`, `"division_commander"`.
///
/// - `kind`: a `junqi_piece_kind` value.
/// - `name_out`: receives a static string; do **not** free it.
///
/// Status: `OK`; `NULL_POINTER`; `OUT_OF_RANGE` if `kind` is not a kind.
/// Thread safety: may be called from any thread.
///
/// # Safety
/// `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_piece_kind_name(
    kind: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(kind_names, kind, "junqi_piece_kind", name_out) }
}

/// Parses a piece kind from its canonical id (`"engineer"`) or a Chinese name,
/// traditional or simplified (`"工兵"`, `"師長"`).
///
/// - `name`: NUL-terminated UTF-8 text (borrowed for the call).
/// - `kind_out`: receives the kind.
///
/// Status: `OK`; `NULL_POINTER`; `INVALID_UTF8`; `UNKNOWN_NAME`.
/// Thread safety: may be called from any thread.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `kind_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_piece_kind_from_name(
    name: *const c_char,
    kind_out: *mut junqi_piece_kind,
) -> junqi_status {
    guard(|| {
        // SAFETY: forwarded caller contract for `name`.
        let text = unsafe { str_arg(name, "name") }?;
        // SAFETY: forwarded caller contract: NULL or writable.
        let out = unsafe { Out::new(kind_out, "kind_out") }?;
        let kind = text.parse::<PieceKind>()?;
        out.write(kind_to_c(kind));
        Ok(())
    })
}

/// The name of an outcome: `"win"`, `"lose"`, `"both"`, `"repel"`, `"evade"`,
/// `"illegal"` (as in report JSON).
///
/// `name_out` receives a static string; do **not** free it. Status: `OK`;
/// `NULL_POINTER`; `OUT_OF_RANGE`. Thread safety: any thread.
///
/// # Safety
/// `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_outcome_name(
    outcome: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(outcome_names, outcome, "junqi_outcome", name_out) }
}

/// The name of a manner of attack: `"move"`, `"flight"`, `"strike"`,
/// `"bombardment"`.
///
/// `name_out` receives a static string; do **not** free it. Status: `OK`;
/// `NULL_POINTER`; `OUT_OF_RANGE`. Thread safety: any thread.
///
/// # Safety
/// `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_attack_name(
    attack: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(attack_names, attack, "junqi_attack", name_out) }
}

/// The name of a phase: `"deploy"`, `"move"`, `"over"`, `"reaction"` (as in view JSON).
///
/// `name_out` receives a static string; do **not** free it. Status: `OK`;
/// `NULL_POINTER`; `OUT_OF_RANGE`. Thread safety: any thread.
///
/// # Safety
/// `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_phase_name(
    phase: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(phase_names, phase, "junqi_phase", name_out) }
}

/// The name of an end reason: `"flag_captured"`, `"no_legal_move"`,
/// `"no_capture_limit"`, `"resignation"`, `"agreement"`, `"timeouts"`,
/// `"no_movable_pieces"`, `"commander_captured"`, `"mutual_elimination"` (as in
/// result JSON).
///
/// `name_out` receives a static string; do **not** free it. Status: `OK`;
/// `NULL_POINTER`; `OUT_OF_RANGE` (also for `JUNQI_END_REASON_NONE` and
/// `JUNQI_END_REASON_OTHER`).
/// Thread safety: any thread.
///
/// # Safety
/// `name_out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn junqi_end_reason_name(
    reason: c_int,
    name_out: *mut *const c_char,
) -> junqi_status {
    // SAFETY: forwarded caller contract for the out-pointer.
    unsafe { name_of(reason_names, reason, "junqi_end_reason", name_out) }
}
