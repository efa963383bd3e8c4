//! Reports: what one action produced, for every player and for one.

use serde_json::{json, Value};

use crate::board::Board;
use crate::piece::Side;

use super::Event;

/// What an action produced: the events every player sees, and those for one player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Events told to every player.
    pub public: Vec<Event>,
    /// Events told only to the named player.
    pub private: Vec<(Side, Event)>,
}

impl Report {
    /// The events `player` learns from this action, in order.
    pub fn events_for(&self, player: Side) -> Vec<Event> {
        let mut v = Vec::new();
        self.events_into(player, &mut v);
        v
    }

    /// Appends what `player` is told of this report to `out` (as
    /// [`Report::events_for`], without allocating a new list).
    pub(crate) fn events_into(&self, player: Side, out: &mut Vec<Event>) {
        out.extend_from_slice(&self.public);
        out.extend(self.private.iter().filter(|(s, _)| *s == player).map(|(_, e)| *e));
    }

    /// The report as JSON: `{"public": [...], "private": {"south": [...]}}`.
    pub fn to_json(&self, board: &Board) -> Value {
        let mut private = serde_json::Map::new();
        for (side, e) in &self.private {
            private
                .entry(side.name())
                .or_insert_with(|| Value::Array(vec![]))
                .as_array_mut()
                .expect("array")
                .push(e.to_json(board));
        }
        json!({
            "public": self.public.iter().map(|e| e.to_json(board)).collect::<Vec<_>>(),
            "private": private,
        })
    }

    /// The part of the report one player may see, as JSON.
    pub fn to_json_for(&self, board: &Board, player: Side) -> Value {
        Value::Array(self.events_for(player).iter().map(|e| e.to_json(board)).collect())
    }
}
