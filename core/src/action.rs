//! Actions and their notation.
//!
//! A move is written `from-to` with point names, e.g. `a2-a6`. Every action of a rule
//! set also has a stable integer id in a fixed action space
//! ([`RuleSet::action_space`]), for reinforcement-learning users.

use std::fmt;

use crate::board::{Board, Point};
use crate::rules::RuleSet;

/// One action of the player to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Action {
    /// Move the piece on `from` to `to` (a step, a railway run, or an attack).
    Move {
        /// Where the piece stands.
        from: Point,
        /// Where it goes (an empty point, or an enemy piece to attack).
        to: Point,
    },
    /// Turn the face-down piece on `at` face up (翻棋). Written `flip c3`.
    Flip {
        /// The piece's point.
        at: Point,
    },
}

/// Text that is not a point or an action of the board.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not of the form `from-to`.
    #[error("malformed action {0:?}: expected two points joined by '-', e.g. \"a2-a6\", or \"flip c3\"")]
    Malformed(String),
    /// A point name the board does not have.
    #[error("unknown point {0:?}")]
    UnknownPoint(String),
    /// An action id outside the rule set's action space.
    #[error("action id {id} is outside the action space (0..{size})")]
    IdOutOfRange {
        /// The id given.
        id: usize,
        /// Size of the action space.
        size: usize,
    },
    /// Two points no move could ever join (not in the action space).
    #[error("{0} is not a move on this board: no edge or railway joins the two points")]
    NotInActionSpace(String),
}

/// Parses a point name such as `"c6"`.
pub fn parse_point(board: &Board, text: &str) -> Result<Point, NotationError> {
    board
        .point(text)
        .ok_or_else(|| NotationError::UnknownPoint(text.trim().to_owned()))
}

impl Action {
    /// Parses `from-to` notation.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// let a = junqi::Action::parse(rules.board(), "a2-a6").unwrap();
    /// assert_eq!(a.to_notation(rules.board()), "a2-a6");
    /// assert!(junqi::Action::parse(rules.board(), "a2a6").is_err());
    /// ```
    pub fn parse(board: &Board, text: &str) -> Result<Action, NotationError> {
        let t = text.trim();
        if let Some(p) = t.strip_prefix("flip ") {
            return Ok(Action::Flip { at: parse_point(board, p)? });
        }
        let (a, b) = t
            .split_once('-')
            .ok_or_else(|| NotationError::Malformed(t.to_owned()))?;
        if a.is_empty() || b.is_empty() {
            return Err(NotationError::Malformed(t.to_owned()));
        }
        Ok(Action::Move {
            from: parse_point(board, a)?,
            to: parse_point(board, b)?,
        })
    }

    /// The action in notation, e.g. `"a2-a6"`.
    pub fn to_notation(self, board: &Board) -> String {
        match self {
            Action::Move { from, to } => format!("{}-{}", board.name_of(from), board.name_of(to)),
            Action::Flip { at } => format!("flip {}", board.name_of(at)),
        }
    }

    /// A displayable form of the action on a board.
    pub fn display(self, board: &Board) -> impl fmt::Display + '_ {
        struct D<'a>(Action, &'a Board);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0.to_notation(self.1))
            }
        }
        D(self, board)
    }

    /// The action's id in the rule set's fixed action space, if it has one.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// let a = junqi::Action::parse(rules.board(), "a2-a6").unwrap();
    /// let id = a.id(&rules).unwrap();
    /// assert_eq!(junqi::Action::from_id(&rules, id).unwrap(), a);
    /// ```
    pub fn id(self, rules: &RuleSet) -> Option<usize> {
        match self {
            Action::Move { from, to } => rules.board().move_index(from, to),
            Action::Flip { at } => rules.deals().then(|| rules.board().move_space() + at.index()),
        }
    }

    /// The action with a given id in the rule set's action space.
    pub fn from_id(rules: &RuleSet, id: usize) -> Result<Action, NotationError> {
        let board = rules.board();
        if id >= rules.action_space() {
            return Err(NotationError::IdOutOfRange {
                id,
                size: rules.action_space(),
            });
        }
        Ok(match board.move_at(id) {
            Some((from, to)) => Action::Move { from, to },
            None => Action::Flip {
                at: board.point_at(id - board.move_space()).expect("id in range"),
            },
        })
    }

    /// The action's id (the name of development versions).
    #[deprecated(since = "0.1.0", note = "an action's number is its id: use `Action::id`")]
    pub fn index(self, rules: &RuleSet) -> Option<usize> {
        self.id(rules)
    }

    /// The action with a given id (the name of development versions).
    #[deprecated(since = "0.1.0", note = "an action's number is its id: use `Action::from_id`")]
    pub fn from_index(rules: &RuleSet, index: usize) -> Result<Action, NotationError> {
        Action::from_id(rules, index)
    }

    /// The two points of the action: a move's start and target, a flip's point twice
    /// (the piece stays where it is). What every layer shows as "from" and "to".
    pub fn endpoints(self) -> (Point, Point) {
        match self {
            Action::Move { from, to } => (from, to),
            Action::Flip { at } => (at, at),
        }
    }

    /// Whether the action turns a face-down piece face up (翻棋) rather than moving one.
    pub fn is_flip(self) -> bool {
        matches!(self, Action::Flip { .. })
    }
}
