//! Game records: a full record that replays to the identical state, and per-player
//! records that hold only what one player saw.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::board::{Board, BoardSpec};
use crate::piece::{PieceKind, Side};
use crate::position::GameResult;
use crate::error::GameError;
use crate::rules::{RuleSet, RuleSpec};
use crate::setup::Setup;

/// Format tag of full records.
pub const RECORD_FORMAT: &str = "junqi-record/1";
/// Format tag of per-player records.
pub const PLAYER_RECORD_FORMAT: &str = "junqi-player-record/1";

/// The rule set a record was played under.
///
/// Records written by this engine hold the complete rule set ([`RulesRef::Spec`]),
/// whatever it is — a preset too — so a record replays the game it was made from
/// however the presets change later. Reading, `rules` may be:
/// - a rule-set object: complete, or `{"extends": "<preset>", "name": …, …}` over
///   today's presets (as [`RuleSet::from_json`] reads it);
/// - a bare preset name (`"fanqi"`): the form records had before they stored their rule
///   set. It means the preset **as it stood then** (2026-12-01), a frozen copy kept for
///   these records — not today's preset, which may have changed since.
///
/// ```
/// let rules = junqi::RuleSet::from_json(
///     r#"{"extends": "classic", "name": "classic-3", "options": {"rail_max_steps": 3}}"#,
/// ).unwrap();
/// let game = junqi::Game::with_rules(std::sync::Arc::new(rules), 7);
/// let json = game.record().to_json();
/// let again = junqi::Game::from_record(&junqi::Record::from_json(&json).unwrap()).unwrap();
/// assert_eq!(again.rules().spec(), game.rules().spec());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RulesRef {
    /// A preset by name, as it stood when records held nothing more (see above).
    Preset(String),
    /// A complete rule set.
    Spec(Box<RuleSpec>),
}

impl<'de> Deserialize<'de> for RulesRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::String(name) => Ok(RulesRef::Preset(name)),
            v @ Value::Object(_) => RuleSpec::from_value(v)
                .map(|spec| RulesRef::Spec(Box::new(spec)))
                .map_err(|e| D::Error::custom(format!("\"rules\": {e}"))),
            _ => Err(D::Error::custom("\"rules\" must be a preset name or a rule set object")),
        }
    }
}

impl RulesRef {
    /// The whole rule set, always: a record must not depend on what a preset's name
    /// will mean later.
    pub(crate) fn of(rules: &RuleSet) -> RulesRef {
        RulesRef::Spec(Box::new(rules.spec().clone()))
    }

    /// What to add to a replay error: a record that names only its preset may have been
    /// made under an earlier version of it than the one frozen for such records.
    pub(crate) fn hint(&self) -> String {
        match self {
            RulesRef::Preset(name) => format!(
                " (the record names only its rule set, {name:?}, read as that preset stood on 2026-12-01; \
                 a record made under an earlier version of it does not replay)"
            ),
            RulesRef::Spec(_) => String::new(),
        }
    }

    /// The rule set, compiled (on `board` when the record gives one).
    pub(crate) fn load(&self, board: Option<&BoardSpec>) -> Result<Arc<RuleSet>, GameError> {
        let spec = match (self, board) {
            (RulesRef::Preset(name), None) => return Ok(RuleSet::record_1_preset(name)?),
            (RulesRef::Preset(name), Some(_)) => RuleSet::record_1_preset(name)?.spec().clone(),
            (RulesRef::Spec(spec), _) => (**spec).clone(),
        };
        let rules = match board {
            Some(b) => RuleSet::with_board(
                spec,
                Arc::new(Board::from_spec(b.clone()).map_err(crate::rules::RulesError::from)?),
            )?,
            None => RuleSet::from_spec(spec)?,
        };
        Ok(Arc::new(rules))
    }
}

/// Refuses record text over [`crate::limits::MAX_RECORD_JSON`] bytes.
fn check_size(json: &str) -> Result<(), GameError> {
    if json.len() > crate::limits::MAX_RECORD_JSON {
        return Err(GameError::Record(format!(
            "record JSON of {} bytes is over the limit of {} bytes",
            json.len(),
            crate::limits::MAX_RECORD_JSON
        )));
    }
    Ok(())
}

/// One entry of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordEntry {
    /// A move in notation (`"a2-a6"`), or `"draw"` for a draw by agreement.
    Action(String),
    /// A deployment.
    Deploy {
        /// The side.
        deploy: Side,
        /// Its setup.
        setup: Setup,
    },
    /// A resignation.
    Resign {
        /// The side resigning.
        resign: Side,
    },
    /// A player who left the game (an escape).
    Escape {
        /// The side escaping.
        escape: Side,
    },
    /// A time-out applied by the referee to the side to act.
    TimeOut {
        /// The side that timed out.
        timeout: Side,
    },
    /// The face-down deal (翻棋), always the first entry: point → (army, kind).
    Deal {
        /// The deal.
        deal: std::collections::BTreeMap<String, (Side, PieceKind)>,
    },
    /// The position string the game started from (always the first entry): the game
    /// has no log before it.
    Start {
        /// The position string.
        start: String,
    },
}

/// A full game record: rule set, seed, setups and every action, as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// The rule set.
    pub rules: RulesRef,
    /// The board description, when it is not the rule set's built-in board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<BoardSpec>,
    /// The game's seed.
    pub seed: u64,
    /// Deployments and actions, in order.
    pub actions: Vec<RecordEntry>,
    /// The result, if the game is over (checked on replay).
    pub result: Option<GameResult>,
}

impl Record {
    /// Reads a record from JSON.
    pub fn from_json(json: &str) -> Result<Record, GameError> {
        check_size(json)?;
        let r: Record =
            serde_json::from_str(json).map_err(|e| GameError::Record(format!("invalid JSON: {e}")))?;
        if r.format != RECORD_FORMAT {
            return Err(GameError::Record(format!(
                "format {:?} is not {RECORD_FORMAT:?}",
                r.format
            )));
        }
        Ok(r)
    }

    /// The record as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record serialises")
    }
}

/// What one player saw of a game: its own setup and its event log. Can be shared
/// without giving any other army away.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// Always [`PLAYER_RECORD_FORMAT`].
    pub format: String,
    /// The rule set.
    pub rules: RulesRef,
    /// Whose record this is.
    pub player: Side,
    /// The player's own setup, once deployed.
    pub setup: Option<Setup>,
    /// The player's event log, as JSON events.
    pub events: Vec<Value>,
    /// The result, if the game is over.
    pub result: Option<GameResult>,
}

impl PlayerRecord {
    /// The record as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a record serialises")
    }

    /// Reads a player record from JSON.
    pub fn from_json(json: &str) -> Result<PlayerRecord, GameError> {
        check_size(json)?;
        let r: PlayerRecord =
            serde_json::from_str(json).map_err(|e| GameError::Record(format!("invalid JSON: {e}")))?;
        if r.format != PLAYER_RECORD_FORMAT {
            return Err(GameError::Record(format!(
                "format {:?} is not {PLAYER_RECORD_FORMAT:?}",
                r.format
            )));
        }
        Ok(r)
    }
}
