//! A table: one game with its seats, clock, draw offer and unconfirmed setups — what
//! the server keeps of a game beside the core's [`Game`] (the referee).

use std::collections::BTreeMap;

use junqi::{Deployment, ErrorKind, Game, Phase, Record, RuleSet, Setup, SetupError, Side};
use serde_json::Value;

use crate::error::ApiError;
use crate::seat::{same_token, Seat, SeatKind};
use crate::store::Row;

/// A game and everything around it.
#[derive(Clone, Debug)]
pub struct Table {
    /// The game id.
    pub id: String,
    /// The referee.
    pub game: Game,
    /// The rule set as given at creation (a preset name as a JSON string, or an object).
    pub rules_json: String,
    /// The seats.
    pub seats: BTreeMap<Side, Seat>,
    /// Seconds per move, if the game has a clock.
    pub move_seconds: Option<u32>,
    /// When the seat to act runs out of time (ms since the Unix epoch).
    pub deadline_ms: Option<i64>,
    /// Bumps on every change.
    pub version: u64,
    /// The seat that offers a draw.
    pub draw_offer: Option<Side>,
    /// Setups proposed but not confirmed.
    pub pending: BTreeMap<Side, Setup>,
}

impl Table {
    /// The seat a token belongs to, if any (compared in constant time).
    pub fn seat_of(&self, token: &str) -> Option<Side> {
        self.seats
            .iter()
            .find(|(_, s)| s.token.as_deref().is_some_and(|t| same_token(t, token)))
            .map(|(&side, _)| side)
    }

    /// Who plays a seat.
    pub fn kind_of(&self, side: Side) -> SeatKind {
        self.seats.get(&side).map_or(SeatKind::Human, |s| s.kind)
    }

    /// Whether the game has ended.
    pub fn over(&self) -> bool {
        self.game.phase() == Phase::Over
    }

    /// Whether moves are being played (not deploying, not over).
    pub fn playing(&self) -> bool {
        matches!(self.game.phase(), Phase::Move | Phase::Reaction)
    }

    /// A random legal setup for `side` from OS randomness.
    pub fn random_setup(&self, side: Side) -> Result<Setup, ApiError> {
        let rules = self.game.rules();
        Deployment::try_random(rules, side, junqi::random_seed())
            .map(|d| d.to_setup(rules))
            .ok_or_else(|| SetupError::Unsatisfiable(rules.name().to_owned()).into())
    }

    /// Exchanges the pieces on two points of `side`'s proposed setup (or moves a piece
    /// to an empty deployable point), refusing a result that is not a legal setup.
    pub fn swapped(&self, side: Side, a: &str, b: &str) -> Result<Setup, ApiError> {
        let proposal = self.pending.get(&side).ok_or_else(|| {
            ApiError::of_kind(
                ErrorKind::InvalidSetup,
                "no proposed setup to change: propose one first (random or pasted)",
            )
        })?;
        let board = self.game.board();
        let point = |name: &str| {
            junqi::parse_point(board, name).map_err(ApiError::from)
        };
        let (pa, pb) = (point(a)?, point(b)?);
        let mut placements: Vec<(String, String)> = proposal.placements().to_vec();
        let at = |placements: &[(String, String)], p| {
            placements
                .iter()
                .position(|(n, _)| board.point(n) == Some(p))
        };
        match (at(&placements, pa), at(&placements, pb)) {
            (Some(i), Some(j)) => {
                let k = placements[i].1.clone();
                placements[i].1 = std::mem::replace(&mut placements[j].1, k);
            }
            (Some(i), None) => placements[i].0 = board.name_of(pb).to_owned(),
            (None, Some(j)) => placements[j].0 = board.name_of(pa).to_owned(),
            (None, None) => {
                return Err(ApiError::of_kind(
                    ErrorKind::InvalidSetup,
                    format!("neither {a} nor {b} holds one of your pieces"),
                ))
            }
        }
        let mut setup = Setup::new();
        for (p, k) in placements {
            setup.place(p, k);
        }
        setup.validate(self.game.rules(), side)?;
        Ok(setup)
    }

    /// The row to store.
    pub fn to_row(&self) -> Row {
        Row {
            id: self.id.clone(),
            rules: self.rules_json.clone(),
            seats: serde_json::to_string(&self.seats).expect("seats serialise"),
            move_seconds: self.move_seconds,
            deadline_ms: self.deadline_ms,
            record: serde_json::to_string(&self.game.record()).expect("a record serialises"),
            version: self.version,
            draw_offer: self.draw_offer.map(|s| s.name().to_owned()),
            pending: serde_json::to_string(&self.pending).expect("setups serialise"),
            over: self.over(),
        }
    }

    /// A table from its stored row: the game replayed from its full record.
    pub fn from_row(row: &Row) -> Result<Table, String> {
        let record = Record::from_json(&row.record).map_err(|e| format!("record: {e}"))?;
        let game = Game::from_record(&record).map_err(|e| format!("record: {e}"))?;
        let seats: BTreeMap<Side, Seat> =
            serde_json::from_str(&row.seats).map_err(|e| format!("seats: {e}"))?;
        let sides = game.rules().sides();
        if seats.len() != sides.len() || !sides.iter().all(|s| seats.contains_key(s)) {
            return Err("seats: not one seat for each side of the rule set".to_owned());
        }
        if let Some((side, _)) = seats
            .iter()
            .find(|(_, s)| (s.kind == SeatKind::Human) != s.token.is_some())
        {
            return Err(format!(
                "seats: {side} (a human seat has a token, a random seat none)"
            ));
        }
        let pending = serde_json::from_str(&row.pending).map_err(|e| format!("pending: {e}"))?;
        let draw_offer = match &row.draw_offer {
            Some(name) => {
                Some(Side::from_name(name).ok_or_else(|| format!("unknown side {name:?}"))?)
            }
            None => None,
        };
        Ok(Table {
            id: row.id.clone(),
            game,
            rules_json: row.rules.clone(),
            seats,
            move_seconds: row.move_seconds,
            deadline_ms: row.deadline_ms,
            version: row.version,
            draw_offer,
            pending,
        })
    }
}

/// Loads the rule set a create request names: a preset name or a rule set object.
pub fn load_rules(rules: &Value) -> Result<std::sync::Arc<RuleSet>, ApiError> {
    match rules {
        Value::String(name) => Ok(RuleSet::load(name)?),
        Value::Object(_) => Ok(RuleSet::load(&rules.to_string())?),
        _ => Err(ApiError::bad_json(
            "\"rules\" must be a preset name or a rule set object",
        )),
    }
}
