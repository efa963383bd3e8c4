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
