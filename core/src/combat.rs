//! Combat: the outcome of one piece attacking another.
//!
//! The table is data (the `combat` list of a rule set, first matching entry wins) and is
//! compiled into a dense kind × kind matrix when the rule set loads, so [`resolve`](crate::resolve) is
//! one lookup.

use crate::names::named_enum;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::piece::PieceKind;

named_enum! {
    /// The outcome of an attack, from the attacker's point of view.
    #[repr(u8)]
    pub enum CombatOutcome {
        /// The defender leaves the board; a moving attacker takes its place.
        Win = "win",
        /// The attacker leaves the board.
        Lose = "lose",
        /// Both leave the board.
        Both = "both",
        /// Nobody leaves; the attacker stays where it was.
        Repel = "repel",
        /// The defender (a submarine) evades; see the sanjun rules.
        Evade = "evade",
        /// Not a legal attack under this rule set.
        Illegal = "illegal",
    }
}

impl CombatOutcome {


    /// Whether the attacker leaves the board.
    pub const fn attacker_leaves(self) -> bool {
        matches!(self, CombatOutcome::Lose | CombatOutcome::Both)
    }

    /// Whether the defender leaves the board.
    pub const fn defender_leaves(self) -> bool {
        matches!(self, CombatOutcome::Win | CombatOutcome::Both)
    }
}

impl fmt::Display for CombatOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

named_enum! {
    /// How an attack is made (海陆空三军棋). The outcome is always the table's; who leaves
    /// the board and who moves depend on the manner too.
    pub enum Attack {
        /// The attacker goes onto the defender: a step, a railway run, a sea step, a landing,
        /// or a plane's air run.
        Move = "move",
        /// A missile flies onto the defender.
        Flight = "flight",
        /// The striker stays where it is: a fort's strike, anti-aircraft fire.
        Strike = "strike",
        /// A ship's shore bombardment: a strike that never costs the ship.
        Bombardment = "bombardment",
    }
}

/// What an attack does: the outcome and its effect on both pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// The table's outcome.
    pub outcome: CombatOutcome,
    /// The attacker leaves the board (`lose` or `both`, except a bombarding ship; a
    /// missile whose target evades is spent too).
    pub attacker_leaves: bool,
    /// The defender leaves the board (`win` or `both`).
    pub defender_leaves: bool,
    /// The attacker ends on the defender's place: a mover or a missile that wins, and a
    /// plane that is repelled by a surface piece (it stays above its target).
    pub attacker_moves: bool,
}

/// What one entry of a combat table says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableOutcome {
    /// See [`CombatOutcome::Win`].
    Win,
    /// See [`CombatOutcome::Lose`].
    Lose,
    /// See [`CombatOutcome::Both`].
    Both,
    /// See [`CombatOutcome::Repel`].
    Repel,
    /// See [`CombatOutcome::Evade`].
    Evade,
    /// See [`CombatOutcome::Illegal`].
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
pub(crate) type CombatMatrix = [[CombatOutcome; PieceKind::COUNT]; PieceKind::COUNT];
