//! Size limits: the pieces a game holds, and the JSON text the engine reads — a rule
//! set, a board, a setup or a record longer than its limit is refused before it is
//! parsed, with a specific error.
//!
//! The limits are far above anything real — the largest preset rule set is under
//! 10 kB, a board under 25 kB, a record of a long 海陆空 game under 100 kB — and keep
//! the cost of reading untrusted input bounded. (serde_json also refuses nesting deeper
//! than 128 levels.)

/// Most pieces a game may hold, all sides together: 128 (a position's fixed-size
/// state; a rule set whose armies need more is refused with
/// [`crate::RulesError::TooManyPieces`]).
pub const MAX_PIECES: usize = 128;

/// Longest rule set JSON accepted ([`crate::RuleSet::from_json`]): 1 MiB.
pub const MAX_RULES_JSON: usize = 1 << 20;
/// Longest rule set name accepted: 64 characters. A name goes into every view string,
/// record and listing (the web's lobby, the engine protocol's lines), so it is kept
/// short ([`crate::RulesError::NameTooLong`]).
pub const MAX_RULES_NAME: usize = 64;
/// Longest rule set accepted, measured as its compact JSON (what the engine protocol's
/// `newgame` line carries): 48 KiB, so that every rule set the library loads fits a
/// protocol line ([`crate::protocol::MAX_LINE`], 64 KiB) with room to spare; the
/// largest preset is about 10 KiB ([`crate::RulesError::SpecTooLarge`]).
pub const MAX_RULES_SPEC: usize = 48 << 10;
/// Longest board JSON accepted ([`crate::Board::from_json`]): 1 MiB.
pub const MAX_BOARD_JSON: usize = 1 << 20;
/// Longest setup JSON accepted ([`crate::Setup::from_json`]): 64 KiB.
pub const MAX_SETUP_JSON: usize = 64 << 10;
/// Longest record or player record JSON accepted ([`crate::Record::from_json`],
/// [`crate::PlayerRecord::from_json`]): 16 MiB.
pub const MAX_RECORD_JSON: usize = 16 << 20;

/// Most games a [`crate::VectorEnv`] may hold: 65 536. A game costs 12–45 KiB (its
/// referee, every seat's beliefs when observing, its buffers; measured: classic 12
/// KiB, 18 KiB observing, 四国 43 KiB), so the largest environment needs up to
/// 3 GiB, and its step's arrays a few hundred MiB more; more games are refused with
/// [`crate::VectorError::TooManyGames`] before anything is allocated, and memory
/// for the games themselves is reserved fallibly
/// ([`crate::VectorError::OutOfMemory`]).
pub const MAX_VECTOR_GAMES: usize = 1 << 16;

/// Finished games a [`crate::VectorEnv`] keeps for
/// [`crate::VectorEnv::take_finished`] at least: 1 024 (or one per game when the
/// environment holds more games, so that one step's games always fit). When more
/// wait, the oldest are dropped and counted ([`crate::VectorEnv::finished_dropped`]):
/// an environment whose finished games are never read stays the same size. (A
/// finished random classic game with its record and every player's log is about
/// 34 KiB: the full queue about 35 MiB.)
pub const MAX_FINISHED_GAMES: usize = 1024;
