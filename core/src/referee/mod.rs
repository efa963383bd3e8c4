//! The referee: a [`Game`] that keeps the full state, tells each player only what that
//! player may know, and keeps the record.
//!
//! Every action returns a [`Report`]: the public events everybody sees, and private
//! events addressed to single players. Each player's event log is the public events
//! plus its own private ones; [`Game::view`] is that player's whole information set.
//!
//! - [`event`]: [`Event`], in JSON and in words, and [`describe_result`];
//! - [`report`]: [`Report`];
//! - [`view`]: [`View`], a player's information set;
//! - [`game`]: [`Game`] and all its methods;
//! - [`narrate`]: [`narrate::Narrator`], events in words from one player's side.

pub mod event;
pub mod game;
pub mod narrate;
pub mod report;
pub mod view;

pub use crate::error::GameError;
pub use crate::position::RevealCause;
pub use event::{describe_result, Event};
pub use game::Game;
pub(crate) use game::Entry;
pub use report::Report;
pub use view::View;
