//! A player's view: its whole information set ([`View`]).

use serde_json::{json, Value};

use crate::piece::{Side, SideSet};
use crate::position::{GameResult, Phase, SeenPiece};
use crate::rules::RuleSet;

use super::Event;

/// One player's information set: everything that player may know, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Whose view this is.
    pub player: Side,
    /// The army the player commands (its own side, except in 翻棋 before the first
    /// flip, when it is `None`).
    pub army: Option<Side>,
    /// The phase.
    pub phase: Phase,
    /// The side to act.
    pub to_act: Option<Side>,
    /// Plies played.
    pub ply: u32,
    /// Plies in a row without a piece leaving the board.
    pub no_capture_plies: u32,
    /// The sides that have deployed (public).
    pub deployed: SideSet,
    /// The sides that are out of the game: resigned, beaten or timed out in 四国
    /// (public). A front end shows "out" from this, never from the pieces.
    pub eliminated: SideSet,
    /// Each side's time-outs so far, by side index (public).
    pub timeouts: [u8; 4],
    /// Every piece on the board; kinds only where the player knows them.
    pub pieces: Vec<SeenPiece>,
    /// The player's event log (public events and its own private ones).
    pub events: Vec<Event>,
    /// The ply of each event of `events`, index for index ([`crate::Game::event_plies`]):
    /// 0 for what was told during deployment, `n` for what the `n`-th action or
    /// time-out told. Empty in the view of an [`crate::agent::InfoState`] (an engine is
    /// told its events without their plies).
    pub event_plies: Vec<u32>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
}

impl View {
    /// The view as JSON: `{"player", "army", "rules", "sides", "phase", "to_act",
    /// "ply", "no_capture_plies", "deployed", "eliminated", "timeouts", "pieces",
    /// "events", "result"}` (`"sides"`: the rule set's sides in turn order;
    /// `"timeouts"`: `{side: count}` for each of them).
    pub fn to_json(&self, rules: &RuleSet) -> Value {
        let mut json = self.state_json(rules);
        json["events"] = self.events.iter().map(|e| e.to_json(rules.board())).collect();
        json
    }

    /// The view as JSON without the event log (`"events"`): the current state only,
    /// much cheaper than [`View::to_json`] late in a game.
    ///
    /// ```
    /// let mut game = junqi::Game::new("classic", 1).unwrap();
    /// game.deploy_random(junqi::Side::South, 1).unwrap();
    /// let view = game.view(junqi::Side::North);
    /// let state = view.state_json(game.rules());
    /// assert!(state.get("events").is_none());
    /// assert_eq!(state["pieces"], view.to_json(game.rules())["pieces"]);
    /// ```
    pub fn state_json(&self, rules: &RuleSet) -> Value {
        let board = rules.board();
        json!({
            "player": self.player,
            "army": self.army,
            "rules": rules.name(),
            "sides": rules.sides(),
            "phase": self.phase,
            "to_act": self.to_act,
            "ply": self.ply,
            "no_capture_plies": self.no_capture_plies,
            "deployed": self.deployed,
            "eliminated": self.eliminated,
            "timeouts": rules.sides().iter().map(|&s| (s.name().to_owned(), Value::from(self.timeouts[s as usize]))).collect::<serde_json::Map<_, _>>(),
            "pieces": self.pieces.iter().map(|p| json!({
                "point": board.name_of(p.point), "owner": p.owner, "kind": p.kind, "arm": p.arm
            })).collect::<Vec<_>>(),
            "result": self.result,
        })
    }
}
