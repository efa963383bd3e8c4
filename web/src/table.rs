//! A table: one game with its seats, clocks, draw offer, unconfirmed setups, rematch
//! and ratings — what the server keeps of a game beside the core's [`Game`] (the
//! referee) — and how it is stored ([`crate::store`]) and rebuilt.

use std::collections::BTreeMap;

use junqi::{
    Deployment, ErrorKind, Game, Phase, Record, RecordEntry, RuleSet, Setup, SetupError, Side,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::seat::{same_token, Seat, SeatKind};
use crate::store::{Created, OldGame, Public, RatingChange, StoredGame, Write};
use crate::timer::{ClockSettings, ClockState, Turn};

/// A game's settings, fixed at creation (public).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The clocks.
    #[serde(flatten)]
    pub clock: ClockSettings,
    /// Whether the lobby lists the game.
    #[serde(default)]
    pub listed: bool,
    /// Whether the finished game is rated (when every seat has an identity).
    #[serde(default)]
    pub rated: bool,
    /// The game this one is a rematch of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_of: Option<String>,
    /// When it was created (ms since the Unix epoch).
    #[serde(default)]
    pub created_ms: i64,
}

/// The small state that changes with a game (stored with every change).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Small {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline_ms: Option<i64>,
    #[serde(default)]
    clock: ClockState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    draw_offer: Option<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rematch: Option<String>,
}

/// A game and everything around it.
#[derive(Clone, Debug)]
pub struct Table {
    /// The game id.
    pub id: String,
    /// The referee.
    pub game: Game,
    /// The rule set as given at creation (a preset name as a JSON string, or an object).
    pub rules_json: String,
    /// The record's head as stored (the record with no entries), written once.
    pub head: String,
    /// The seats.
    pub seats: BTreeMap<Side, Seat>,
    /// The settings.
    pub settings: Settings,
    /// When the seat to act runs out of time, or the deployment ends (ms since the Unix
    /// epoch).
    pub deadline_ms: Option<i64>,
    /// The running clocks.
    pub clock: ClockState,
    /// Bumps on every change.
    pub version: u64,
    /// The seat that offers a draw.
    pub draw_offer: Option<Side>,
    /// Setups proposed but not confirmed.
    pub pending: BTreeMap<Side, Setup>,
    /// The rematch game, once a seat asked for one.
    pub rematch: Option<String>,
    /// The rating changes, once the finished game was rated.
    pub ratings: Option<Vec<RatingChange>>,
    /// Whether the finished game's ratings are settled (rated, or found unratable).
    pub rated_done: bool,
}

impl Table {
    /// A new table for a game just made: version 0, no deadline yet.
    pub fn new(
        id: String,
        game: Game,
        rules_json: String,
        seats: BTreeMap<Side, Seat>,
        settings: Settings,
    ) -> Table {
        let head = {
            let mut r = game.record();
            r.actions.clear();
            r.result = None;
            serde_json::to_string(&r).expect("a record serialises")
        };
        let clock = ClockState::new(&settings.clock, game.rules().sides());
        Table {
            id,
            game,
            rules_json,
            head,
            seats,
            settings,
            deadline_ms: None,
            clock,
            version: 0,
            draw_offer: None,
            pending: BTreeMap::new(),
            rematch: None,
            ratings: None,
            rated_done: false,
        }
    }

    /// Whether every human seat is taken.
    pub fn full(&self) -> bool {
        self.seats.values().all(|s| !s.open())
    }

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
        let point = |name: &str| junqi::parse_point(board, name).map_err(ApiError::from);
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

    /// The small state, as stored.
    pub fn state_json(&self) -> String {
        serde_json::to_string(&Small {
            deadline_ms: self.deadline_ms,
            clock: self.clock.clone(),
            draw_offer: self.draw_offer,
            rematch: self.rematch.clone(),
        })
        .expect("the state serialises")
    }

    /// The seats, as stored (tokens included: secret).
    pub fn seats_json(&self) -> String {
        serde_json::to_string(&self.seats).expect("seats serialise")
    }

    /// The proposed setups, as stored (secret).
    pub fn pending_json(&self) -> String {
        serde_json::to_string(&self.pending).expect("setups serialise")
    }

    /// The seats as anybody may see them (no token).
    pub fn public_seats(&self) -> Value {
        Value::Object(
            self.seats
                .iter()
                .map(|(side, seat)| (side.name().to_owned(), seat.public_json()))
                .collect(),
        )
    }

    /// The public columns, as stored for the lobby.
    pub fn public(&self) -> Public {
        let result = self
            .game
            .result()
            .map(|r| serde_json::to_string(&r).expect("a result serialises"));
        Public {
            rules_name: self.game.rules().name().to_owned(),
            phase: self.game.phase().name().to_owned(),
            ply: self.game.position().ply(),
            over: self.over(),
            result,
            listed: self.settings.listed,
            open_seats: self.seats.values().filter(|s| s.open()).count() as u32,
            seats: self.public_seats().to_string(),
        }
    }

    /// A table from its stored columns: the game replayed from the record's head and
    /// entries (the stored result checked), the seats, settings, clocks and setups
    /// read and checked against the game. The error says which column is wrong.
    pub fn from_stored(g: &StoredGame) -> Result<Table, String> {
        if g.entries_from != 0 {
            return Err("record: the entries do not start at the first".into());
        }
        let mut record = Record::from_json(&g.head).map_err(|e| format!("record: {e}"))?;
        for (i, e) in g.entries.iter().enumerate() {
            let entry: RecordEntry =
                serde_json::from_str(e).map_err(|err| format!("record: entry {i}: {err}"))?;
            record.actions.push(entry);
        }
        record.result = match &g.result {
            Some(r) => Some(serde_json::from_str(r).map_err(|e| format!("result: {e}"))?),
            None => None,
        };
        let game = Game::from_record(&record).map_err(|e| format!("record: {e}"))?;
        let seats: BTreeMap<Side, Seat> =
            serde_json::from_str(&g.seats).map_err(|e| format!("seats: {e}"))?;
        let sides = game.rules().sides();
        if seats.len() != sides.len() || !sides.iter().all(|s| seats.contains_key(s)) {
            return Err("seats: not one seat for each side of the rule set".to_owned());
        }
        if let Some((side, _)) = seats
            .iter()
            .find(|(_, s)| s.kind != SeatKind::Human && s.token.is_some())
        {
            return Err(format!("seats: {side} (a random or bot seat has no token)"));
        }
        let settings: Settings =
            serde_json::from_str(&g.settings).map_err(|e| format!("settings: {e}"))?;
        let small: Small = serde_json::from_str(&g.state).map_err(|e| format!("state: {e}"))?;
        let pending: BTreeMap<Side, Setup> =
            serde_json::from_str(&g.pending).map_err(|e| format!("pending: {e}"))?;
        if let Some(side) = pending.keys().find(|s| !sides.contains(s)) {
            return Err(format!("pending: {side} does not play"));
        }
        if let Some(side) = small.draw_offer.filter(|s| !sides.contains(s)) {
            return Err(format!(
                "state: the draw offer of {side}, who does not play"
            ));
        }
        Ok(Table {
            id: g.id.clone(),
            game,
            rules_json: g.rules.clone(),
            head: g.head.clone(),
            seats,
            settings,
            deadline_ms: small.deadline_ms,
            clock: small.clock,
            version: g.version,
            draw_offer: small.draw_offer,
            pending,
            rematch: small.rematch,
            ratings: None,
            rated_done: g.rated,
        })
    }

    /// The write of this table as a new game (its rule set, head and settings, every
    /// entry, the seats and setups), at its version, as of `now_ms`.
    pub(crate) fn created_write(&self, now_ms: i64) -> Write {
        Write {
            id: self.id.clone(),
            expected: None,
            version: self.version,
            first_entry: 0,
            entries: self
                .game
                .record_entries(0)
                .iter()
                .map(|e| serde_json::to_string(e).expect("an entry serialises"))
                .collect(),
            created: Some(Created {
                rules: self.rules_json.clone(),
                head: self.head.clone(),
                settings: serde_json::to_string(&self.settings).expect("settings serialise"),
            }),
            seats: Some(self.seats_json()),
            pending: Some(self.pending_json()),
            state: self.state_json(),
            public: self.public(),
            now_ms,
        }
    }

    /// A table from a game row of junqi-web 0.1.0 ([`crate::migrate`]): the game replayed
    /// from its whole record; its seats (0.1.0's seats read as today's, with no player);
    /// settings of a move clock only (`move_seconds`), neither listed nor rated, created
    /// when the row last changed; its version, deadline, draw offer and setups. The turn
    /// in play started a move clock before its deadline (without a clock: when the row
    /// last changed). The error says which column is wrong; the seats are checked by
    /// reading the game back ([`Table::from_stored`]).
    pub(crate) fn from_0_1(old: &OldGame) -> Result<Table, String> {
        let record = Record::from_json(&old.record).map_err(|e| format!("record: {e}"))?;
        let game = Game::from_record(&record).map_err(|e| format!("record: {e}"))?;
        let seats: BTreeMap<Side, Seat> =
            serde_json::from_str(&old.seats).map_err(|e| format!("seats: {e}"))?;
        let pending: BTreeMap<Side, Setup> =
            serde_json::from_str(&old.pending).map_err(|e| format!("pending: {e}"))?;
        let draw_offer = match &old.draw_offer {
            Some(name) => Some(
                Side::from_name(name)
                    .ok_or_else(|| format!("draw_offer: unknown side {name:?}"))?,
            ),
            None => None,
        };
        let settings = Settings {
            clock: ClockSettings {
                move_seconds: old.move_seconds,
                ..Default::default()
            },
            listed: false,
            rated: false,
            rematch_of: None,
            created_ms: old.updated_ms,
        };
        let mut table = Table::new(old.id.clone(), game, old.rules.clone(), seats, settings);
        table.version = old.version;
        table.pending = pending;
        if table.playing() {
            // As a change settles it: an offer lapses when its seat is out.
            table.draw_offer = draw_offer.filter(|&s| table.game.may_decide_draw(s).is_ok());
            if let Some(side) = table.game.to_act() {
                let started_ms = match (old.deadline_ms, old.move_seconds) {
                    (Some(d), Some(s)) => d - i64::from(s) * 1000,
                    _ => old.updated_ms,
                };
                table.clock.turn = Some(Turn {
                    side,
                    ply: table.game.position().ply(),
                    started_ms,
                });
            }
            table.deadline_ms = old
                .deadline_ms
                .or_else(|| table.clock.deadline(&table.settings.clock));
        }
        Ok(table)
    }

    /// Brings the table up to a later stored state of the same game (another process
    /// changed it): plays the entries it lacks and takes the stored columns. Fails,
    /// changing nothing, if the entries do not follow on (the caller reloads).
    pub fn catch_up(&mut self, g: &StoredGame) -> Result<(), String> {
        if g.entries_from != self.game.record_len() {
            return Err("the stored entries do not follow on".into());
        }
        let mut game = self.game.clone();
        for e in &g.entries {
            let entry: RecordEntry = serde_json::from_str(e).map_err(|err| err.to_string())?;
            game.apply_entry(&entry).map_err(|err| err.to_string())?;
        }
        let seats = serde_json::from_str(&g.seats).map_err(|e| e.to_string())?;
        let small: Small = serde_json::from_str(&g.state).map_err(|e| e.to_string())?;
        let pending = serde_json::from_str(&g.pending).map_err(|e| e.to_string())?;
        self.game = game;
        self.seats = seats;
        self.deadline_ms = small.deadline_ms;
        self.clock = small.clock;
        self.draw_offer = small.draw_offer;
        self.rematch = small.rematch;
        self.pending = pending;
        self.version = g.version;
        self.rated_done = g.rated;
        Ok(())
    }

    /// The clocks as the state shows them (`null` without any clock). Every time in it
    /// is a fixed point (ms since the Unix epoch) or a bank as of the turn's start, so
    /// the state does not change while nothing happens: the page counts down itself.
    pub fn clock_json(&self, timeouts: &[u8; 4]) -> Value {
        let c = &self.settings.clock;
        if !c.in_play() && c.deploy_seconds.is_none() {
            return Value::Null;
        }
        let rules = self.game.rules();
        let sides = rules.sides();
        let t: serde_json::Map<String, Value> = sides
            .iter()
            .map(|&s| (s.name().to_owned(), json!(timeouts[s as usize])))
            .collect();
        let left: Value = if self.clock.bank_ms.is_empty() {
            Value::Null
        } else {
            sides
                .iter()
                .map(|&s| (s.name().to_owned(), json!(self.clock.bank_ms.get(&s))))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let running =
            self.playing() || (self.game.phase() == Phase::Deploy && self.deadline_ms.is_some());
        json!({
            "move_seconds": c.move_seconds,
            "game_seconds": c.game_seconds,
            "increment_seconds": c.increment_seconds,
            "deploy_seconds": c.deploy_seconds,
            "deadline_ms": self.deadline_ms.filter(|_| running),
            "remaining_ms": left,
            "turn_started_ms": self.clock.turn.map(|t| t.started_ms).filter(|_| self.playing()),
            "timeouts": t,
            "max_timeouts": rules.options().max_timeouts,
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
