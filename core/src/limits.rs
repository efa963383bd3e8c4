//! Size limits on the JSON text the engine reads: a rule set, a board, a setup or a
//! record longer than its limit is refused before it is parsed, with a specific error.
//!
//! The limits are far above anything real — the largest preset rule set is under
//! 10 kB, a board under 25 kB, a record of a long 海陆空 game under 100 kB — and keep
//! the cost of reading untrusted input bounded. (serde_json also refuses nesting deeper
//! than 128 levels.)

/// Longest rule set JSON accepted ([`crate::RuleSet::from_json`]): 1 MiB.
pub const MAX_RULES_JSON: usize = 1 << 20;
/// Longest board JSON accepted ([`crate::Board::from_json`]): 1 MiB.
pub const MAX_BOARD_JSON: usize = 1 << 20;
/// Longest setup JSON accepted ([`crate::Setup::from_json`]): 64 KiB.
pub const MAX_SETUP_JSON: usize = 64 << 10;
/// Longest record or player record JSON accepted ([`crate::Record::from_json`],
/// [`crate::PlayerRecord::from_json`]): 16 MiB.
pub const MAX_RECORD_JSON: usize = 16 << 20;

/// Most games a [`crate::VectorEnv`] may hold: 65 536. A game costs about 100 KiB
/// (its referee, every seat's beliefs when observing, its buffers), so the largest
/// environment needs some 6 GiB; more is refused with
/// [`crate::VectorError::TooManyGames`] before anything is allocated, and memory
/// for the games themselves is reserved fallibly
/// ([`crate::VectorError::OutOfMemory`]).
pub const MAX_VECTOR_GAMES: usize = 1 << 16;

/// Finished games a [`crate::VectorEnv`] keeps for
/// [`crate::VectorEnv::take_finished`] at least: 1 024 (or one per game when the
/// environment holds more games, so that one step's games always fit). When more
/// wait, the oldest are dropped and counted ([`crate::VectorEnv::finished_dropped`]):
/// an environment whose finished games are never read stays the same size.
pub const MAX_FINISHED_GAMES: usize = 1024;
