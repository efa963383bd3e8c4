//! Combat: the outcome of one piece attacking another.
//!
//! The table is data (the `combat` list of a rule set, first matching entry wins) and is
//! compiled into a dense kind × kind matrix when the rule set loads, so [`resolve`] is
//! one lookup.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::piece::PieceKind;
use crate::rules::RuleSet;

/// The outcome of an attack, from the attacker's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Outcome {
    /// The defender leaves the board; a moving attacker takes its place.
    Win,
    /// The attacker leaves the board.
    Lose,
    /// Both leave the board.
    Both,
    /// Nobody leaves; the attacker stays where it was.
    Repel,
    /// The defender (a submarine) evades; see the sanjun rules.
    Evade,
    /// Not a legal attack under this rule set.
    Illegal,
}

impl Outcome {
    /// Every outcome.
    pub const ALL: [Outcome; 6] =
        [Outcome::Win, Outcome::Lose, Outcome::Both, Outcome::Repel, Outcome::Evade, Outcome::Illegal];

    /// The snake_case name, e.g. `"win"`.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Lose => "lose",
            Outcome::Both => "both",
            Outcome::Repel => "repel",
            Outcome::Evade => "evade",
            Outcome::Illegal => "illegal",
        }
    }

    /// Whether the attacker leaves the board.
    pub const fn attacker_leaves(self) -> bool {
        matches!(self, Outcome::Lose | Outcome::Both)
    }

    /// Whether the defender leaves the board.
    pub const fn defender_leaves(self) -> bool {
        matches!(self, Outcome::Win | Outcome::Both)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Resolves `attacker` attacking `defender` under a rule set, without a game.
///
/// A kind that is not part of the rule set's army gives [`Outcome::Illegal`].
///
/// ```
/// use junqi::{resolve, Outcome, PieceKind::*, RuleSet};
/// let rules = RuleSet::preset("classic").unwrap();
/// assert_eq!(resolve(&rules, Commander, ArmyCommander), Outcome::Win);
/// assert_eq!(resolve(&rules, Engineer, Mine), Outcome::Win);
/// assert_eq!(resolve(&rules, Commander, Mine), Outcome::Lose);
/// assert_eq!(resolve(&rules, Bomb, Commander), Outcome::Both);
/// ```
pub fn resolve(rules: &RuleSet, attacker: PieceKind, defender: PieceKind) -> Outcome {
    rules.combat_outcome(attacker, defender)
}

/// How an attack is made (海陆空三军棋). The outcome is always the table's; who leaves
/// the board and who moves depend on the manner too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attack {
    /// The attacker goes onto the defender: a step, a railway run, a sea step, a landing,
    /// or a plane's air run.
    Move,
    /// A missile flies onto the defender.
    Flight,
    /// The striker stays where it is: a fort's strike, anti-aircraft fire.
    Strike,
    /// A ship's shore bombardment: a strike that never costs the ship.
    Bombardment,
}

/// What an attack does: the outcome and its effect on both pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// The table's outcome.
    pub outcome: Outcome,
    /// The attacker leaves the board (`lose` or `both`, except a bombarding ship; a
    /// missile whose target evades is spent too).
    pub attacker_leaves: bool,
    /// The defender leaves the board (`win` or `both`).
    pub defender_leaves: bool,
    /// The attacker ends on the defender's place: a mover or a missile that wins, and a
    /// plane that is repelled by a surface piece (it stays above its target).
    pub attacker_moves: bool,
}

/// Resolves an attack made in a given manner, without a game: the outcome of
/// [`resolve`] and what it does to both pieces.
///
/// ```
/// use junqi::{resolve_attack, Attack, Outcome, PieceKind::*, RuleSet};
/// let rules = RuleSet::preset("sanjun-modern").unwrap();
/// // A gunboat's bombardment of a commander: the gunboat loses, and nothing happens.
/// let r = resolve_attack(&rules, Gunboat, Commander, Attack::Bombardment);
/// assert_eq!(r.outcome, Outcome::Lose);
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
pub(crate) fn resolution(rules: &RuleSet, attacker: PieceKind, outcome: Outcome, attack: Attack) -> Resolution {
    use crate::rules::{Ability, Mobility};
    let attacker_leaves = match outcome {
        Outcome::Lose | Outcome::Both => attack != Attack::Bombardment,
        Outcome::Evade => rules.has_ability(attacker, Ability::Flight),
        _ => false,
    };
    let moving = matches!(attack, Attack::Move | Attack::Flight);
    Resolution {
        outcome,
        attacker_leaves,
        defender_leaves: outcome.defender_leaves(),
        attacker_moves: moving
            && (outcome == Outcome::Win
                || outcome == Outcome::Repel && attack == Attack::Move && rules.mobility(attacker) == Mobility::Fly),
    }
}

/// What one entry of a combat table says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableOutcome {
    /// See [`Outcome::Win`].
    Win,
    /// See [`Outcome::Lose`].
    Lose,
    /// See [`Outcome::Both`].
    Both,
    /// See [`Outcome::Repel`].
    Repel,
    /// See [`Outcome::Evade`].
    Evade,
    /// See [`Outcome::Illegal`].
    Illegal,
    /// Compare the two kinds' ranks (the rule set's `ranks`): higher wins, equal both.
    Rank,
}

/// A kind pattern in a combat entry: `"*"`, a kind id, `"@group"`, or a list of those.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KindPattern {
    /// One pattern.
    One(String),
    /// Any of several patterns.
    Any(Vec<String>),
}

/// One entry of a rule set's combat table. Entries are tried in order; the first whose
/// patterns match (and whose `if` option holds) decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatEntry {
    /// Which attackers the entry covers.
    pub attacker: KindPattern,
    /// Which defenders the entry covers.
    pub defender: KindPattern,
    /// The outcome.
    pub outcome: TableOutcome,
    /// A boolean option that must be on for the entry to apply.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_option: Option<String>,
}

/// Dense outcome matrix, indexed `[attacker][defender]`.
pub(crate) type CombatMatrix = [[Outcome; PieceKind::COUNT]; PieceKind::COUNT];
