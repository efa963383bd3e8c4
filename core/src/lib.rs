//! # junqi — rules engine and referee for the 军棋 family
//!
//! Junqi (军棋) is played face-down: each player sees only its own pieces, and a
//! referee who sees both armies rules on every contact. This crate is that referee,
//! and the rules engine under it.
//!
//! Presets: `classic` (陆战棋), `siguo` (四国军棋, four players in two teams) and
//! `fanqi` (翻棋, dealt face down), and the four 海陆空三军棋 presets `sanjun-modern`,
//! `sanjun-hk`, `sanjun-book`, `sanjun-forum`; see the `docs/` pages of the repository
//! for the rules and every decision.
//!
//! ## A tour
//!
//! A rule set is data. Load a preset by name (or your own JSON):
//!
//! ```
//! use junqi::{RuleSet, PieceKind, resolve, CombatOutcome};
//! let rules = RuleSet::preset("classic")?;
//! assert_eq!(rules.board().len(), 60);
//! assert_eq!(rules.army_size(), 25);
//! // Combat works without a game:
//! assert_eq!(resolve(&rules, PieceKind::Engineer, PieceKind::Mine), CombatOutcome::Win);
//! # Ok::<(), junqi::RulesError>(())
//! ```
//!
//! The board is data too: named points with roles and typed edges.
//!
//! ```
//! use junqi::{RuleSet, EdgeKind, Role};
//! let rules = RuleSet::preset("classic")?;
//! let board = rules.board();
//! let c6 = board.point("c6").unwrap();
//! let c7 = board.point("c7").unwrap();
//! assert_eq!(board.edge(c6, c7), Some(EdgeKind::Railway));
//! assert_eq!(board.role(board.point("c4").unwrap()), Role::Camp);
//! # Ok::<(), junqi::RulesError>(())
//! ```
//!
//! A side's setup is checked before it is deployed; every violation has its own
//! error ([`SetupError`]):
//!
//! ```
//! use junqi::{Game, Setup, Side, SetupError};
//! let mut game = Game::new("classic", 1)?;
//! let mut setup = Setup::random(game.rules(), Side::South, 7);
//! game.deploy(Side::South, &setup)?;
//! let bad = Setup::from_json(r#"{"a1": "flag"}"#)?;
//! assert!(game.deploy(Side::North, &bad).is_err());
//! game.deploy_random(Side::North, 8)?;
//! # Ok::<(), junqi::GameError>(())
//! ```
//!
//! Then the side to act picks one of its legal actions; each has notation and a stable
//! index in a fixed action space. The [`Report`] says what every player sees and what
//! one player privately learns; an illegal action is refused and changes nothing.
//!
//! ```
//! # use junqi::{Game, Side};
//! # let mut game = Game::new("classic", 1)?;
//! # game.deploy_random(Side::South, 7)?;
//! # game.deploy_random(Side::North, 8)?;
//! assert_eq!(game.to_act(), Some(Side::South));
//! let action = game.legal_actions()[0];
//! let id = action.id(game.rules()).unwrap();
//! let report = game.play_id(id)?;
//! println!("{}", report.public[0].describe(game.board()));
//! assert!(game.play_notation("a1-a12").is_err()); // refused, nothing changes
//! # Ok::<(), junqi::GameError>(())
//! ```
//!
//! A player's [`View`] is its whole information set; the full [`Record`] replays to
//! the identical state, and a [`PlayerRecord`] holds only one player's view.
//!
//! ```
//! # use junqi::{Game, Side};
//! # let mut game = Game::new("classic", 1)?;
//! # game.deploy_random(Side::South, 7)?;
//! # game.deploy_random(Side::North, 8)?;
//! let view = game.view(Side::North);
//! print!("{}", view.render(game.board()));
//! let record = game.record().to_json();
//! let again = Game::from_record(&junqi::Record::from_json(&record)?)?;
//! assert!(again.position().same_state(game.position()));
//! # Ok::<(), junqi::GameError>(())
//! ```
//!
//! For search and playouts, [`Position`] is the bare state: no logs, no allocation,
//! cheap to clone.
//!
//! ## The land-sea-air game
//!
//! 海陆空三军棋 runs on the same API. Air positions are points of their own, named with
//! a trailing `^`; planes fly straight air runs, guns shoot them down, ships land, forts
//! and gunboats strike without moving, and a submarine that evades may owe its owner a
//! reaction ([`Phase::Reaction`]) before play goes on.
//!
//! ```
//! use junqi::{resolve, CombatOutcome, Position, PieceKind::*, RuleSet, Side};
//! let rules = RuleSet::preset("sanjun-modern")?;
//! assert_eq!(resolve(&rules, Battleship, Commander), CombatOutcome::Lose); // a division commander ashore
//! let b = rules.board();
//! let p = |n| b.point(n).unwrap();
//! let mut pos = Position::from_arrangement(
//!     rules.clone(),
//!     &[(p("c1^"), Side::South, Fighter), (p("e1"), Side::South, Flag),
//!       (p("c10"), Side::North, AaGun), (p("e14"), Side::North, Flag)],
//!     Side::South,
//! )?;
//! let flight = junqi::Action::parse(b, "c1^-c12^")?;
//! let outcome = pos.play(flight)?;
//! assert_eq!(outcome.shot_down_at, b.point("c10^")); // over the aa gun on c10
//! assert!(pos.knows(Side::South, p("c10")));          // which is shown to South
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Modules
//! From the ground up (each uses only those above it, but for the root's re-exports):
//! - `names`: enums' names, declared once · [`limits`]: size limits · [`rng`]: the
//!   seeded generators · [`piece`]: kinds, classes, sides, arms
//! - [`board`]: geometry, points and point sets · [`combat`]: outcomes and combat
//!   tables · [`rules`]: rule sets, and combat under one · [`setup`]: deployment ·
//!   [`action`]: actions, notation and ids
//! - [`position`]: the bare state, movement, play, the end, position strings
//! - [`error`]: the kinds of refusal every layer translates, and [`GameError`] ·
//!   [`record`]: records · [`referee`]: games, events, reports, views
//! - [`inference`]: what a player can deduce, beliefs, observations ·
//!   [`agent`]: players that act from one player's information · [`render`]: SVG
//!   and text pictures of boards and views · [`vector`]: many games at once for
//!   reinforcement learning · [`platform`]: surrender, escape, scoring, levels and
//!   ratings around a game (the QQ platform, docs/sources.md#qq-rules) ·
//!   [`protocol`]: the line protocol for engines, matches and the bridge to the web
//!   referee
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod action;
pub mod agent;
pub mod board;
pub mod combat;
pub mod error;
pub mod inference;
pub mod limits;
mod names;
pub mod piece;
pub mod platform;
pub mod position;
pub mod protocol;
pub mod record;
pub mod referee;
pub mod render;
pub mod rng;
pub mod rules;
pub mod setup;
pub mod vector;

pub use action::{parse_point, Action, NotationError};
pub use agent::{Agent, AgentError, AgentSpec, InfoState};
pub use board::{Board, BoardError, BoardSpec, EdgeKind, Point, PointSet, PointSetIter, Role, STRIKE_RANGE};
pub use inference::{Beliefs, KindSet, ModelError, ObservationSpec, Observer, OpponentModel, Probabilities, Sample, SampleError, Turn};
pub use error::{Error, ErrorKind};
pub use combat::{Attack, CombatOutcome, Resolution};
pub use piece::{Arm, PieceClass, PieceKind, Side, SideSet, UnknownKind, UnknownSide};
pub use position::{
    Eliminations, EndReason, GameResult, ActionOutcome, Phase, PlayError, Position, PositionStringError, SeenPiece,
    TimeoutOutcome,
};
pub use record::{PlayerRecord, Record, RecordEntry, RulesRef};
pub use referee::{describe_result, Event, Game, GameError, Report, RevealCause, View};
pub use rng::{random_seed, KeyedRng, Rng};
pub use rules::{resolve, resolve_attack, Ability, MineDigging, Mobility, Options, RuleSet, RuleSpec, RulesError, Scouting};
pub use setup::{Deployment, Setup, SetupError};
pub use vector::{FinishedGame, StepOutput, VectorEnv, VectorError};

/// The combat outcome under its name of development versions.
#[deprecated(since = "0.1.0", note = "the combat result is named as such: use `CombatOutcome`")]
pub type Outcome = CombatOutcome;
/// What an action did, under its name of development versions.
#[deprecated(since = "0.1.0", note = "use `ActionOutcome`")]
pub type MoveOutcome = ActionOutcome;
/// What a time-out did, under its name of development versions.
#[deprecated(since = "0.1.0", note = "use `TimeoutOutcome`")]
pub type TimeOutOutcome = TimeoutOutcome;

/// Gives error types a `Debug` form equal to their message: what `unwrap`, `?` into
/// `Box<dyn Error>` and `fn main() -> Result<…>` print is the reason in words (with
/// point names), not `Play(Unreachable { kind: Engineer, .. })`.
macro_rules! debug_is_message {
    ($($t:ty),* $(,)?) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(self, f)
            }
        }
    )*};
}
debug_is_message!(GameError, PlayError, SetupError, NotationError, RulesError, BoardError, VectorError);

/// The README's Rust code, compiled and run as doctests by `cargo test` (only then:
/// this item exists only under `cfg(doctest)`). core/README.md is a symlink to the
/// repository's README, so that the path also holds inside the packaged crate.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
