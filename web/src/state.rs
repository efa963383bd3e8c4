//! What a seat (or a spectator) receives: built from that seat's [`View`] and event
//! log only — never from the referee's [`junqi::Position`]. A spectator's view is the
//! public part of the seats' views: a kind only where every seat knows it, and only
//! the events every seat was told.

use junqi::render::SvgOptions;
use junqi::{describe_result, GameResult, Phase, SeenPiece, Side};
use serde_json::{json, Map, Value};

use crate::table::Table;

/// Who is asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// A seat, proven by its token.
    Seat(Side),
    /// Anybody without a token.
    Spectator,
}

impl Viewer {
    /// The seat, if any.
    pub fn seat(self) -> Option<Side> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        }
    }
}

/// A result as JSON: `{"winners": [...], "reason": "flag_captured", "text": "..."}`.
pub fn result_json(result: &GameResult) -> Value {
    json!({
        "winners": result.winners.iter().map(Side::name).collect::<Vec<_>>(),
        "reason": result.reason.name(),
        "text": describe_result(result),
    })
}

/// What a state request asks for beyond the state itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// The picture (SVG): drawn only when asked for.
    pub svg: bool,
    /// The events from this index of the viewer's log on (0: the whole log).
    pub events_from: usize,
}

/// The state `viewer` sees. `connected[side]` says whether the seat has a live
/// connection.
pub fn state_json(table: &Table, viewer: Viewer, connected: &[bool; 4], ask: Ask) -> Value {
    let game = &table.game;
    let rules = game.rules();
    let board = game.board();
    let mut view = match viewer {
        Viewer::Seat(side) => game.view(side),
        Viewer::Spectator => game.public_view(),
    };
    let pending = viewer
        .seat()
        .and_then(|s| table.pending.get(&s).map(|setup| (s, setup)));
    let picture = if ask.svg {
        // The proposed setup is drawn as if deployed (it is the seat's own knowledge).
        let drawn = match pending {
            Some((side, setup)) if view.phase == Phase::Deploy => {
                let mut v = view.clone();
                v.army = Some(side);
                for (p, k) in setup.placements() {
                    if let (Some(point), Some(kind)) =
                        (board.point(p), junqi::PieceKind::from_name(k))
                    {
                        v.pieces.push(SeenPiece {
                            point,
                            owner: Some(side),
                            kind: Some(kind),
                            arm: kind.arm(),
                        });
                    }
                }
                v.pieces.sort_by_key(|p| p.point);
                Some(v)
            }
            _ => None,
        };
        // A spectator's picture has no caption: the core's caption names a seat's view
        // and army, and the public view is no seat's (the page says "spectator").
        let options = SvgOptions {
            caption: viewer != Viewer::Spectator,
            ..SvgOptions::default()
        };
        Value::String(drawn.as_ref().unwrap_or(&view).to_svg(rules, &options))
    } else {
        Value::Null
    };
    let to_act = match view.phase {
        Phase::Move | Phase::Reaction => view.to_act,
        _ => None,
    };
    let legal: Vec<Value> = match (viewer.seat(), to_act) {
        (Some(seat), Some(act)) if seat == act => game
            .legal_actions()
            .into_iter()
            .map(|a| {
                // A flip has no target: "to" is null, so the page marks it apart.
                let (from, to) = a.endpoints();
                let to = (!a.is_flip()).then(|| board.name_of(to));
                json!({"id": a.id(rules), "notation": a.to_notation(board), "from": board.name_of(from), "to": to})
            })
            .collect(),
        _ => Vec::new(),
    };
    // Each event with the core's ply (0 for the deployment), from `events_from` on.
    let from = ask.events_from.min(view.events.len());
    let events: Vec<Value> = view.events[from..]
        .iter()
        .zip(&view.event_plies[from..])
        .map(|(e, ply)| json!({"ply": ply, "text": e.describe(board), "event": e.to_json(board)}))
        .collect();
    let events_total = view.events.len();
    let connected_seats: Map<String, Value> = rules
        .sides()
        .iter()
        .map(|&s| {
            let mut seat = match table.seats.get(&s) {
                Some(seat) => seat.public_json(),
                None => json!({"kind": "human", "taken": false}),
            };
            seat["connected"] = json!(connected[s as usize]);
            (s.name().to_owned(), seat)
        })
        .collect();
    let clock = table.clock_json(&view.timeouts);
    let pending_json = match pending {
        Some((_, setup)) if view.phase == Phase::Deploy => {
            serde_json::to_value(setup).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    };
    let result = view.result.as_ref().map(result_json);
    let ratings = table
        .ratings
        .as_ref()
        .filter(|r| !r.is_empty())
        .map(|changes| {
            crate::players::changes_json(changes, &|side| {
                Side::from_name(side)
                    .and_then(|s| table.seats.get(&s))
                    .and_then(|s| s.display_name())
            })
        });
    view.events.clear(); // sent once, in words, under "events"
    view.event_plies.clear();
    let mut view_json = view.to_json(rules);
    if let Some(o) = view_json.as_object_mut() {
        o.remove("events");
        if viewer == Viewer::Spectator {
            o.insert("player".into(), Value::Null);
        }
    }
    json!({
        "game": table.id,
        "rules": rules.name(),
        "seat": viewer.seat().map(Side::name),
        "seats": connected_seats,
        "phase": view.phase.name(),
        "to_act": to_act.map(Side::name),
        "deployed": view.deployed,
        "version": table.version,
        "view": view_json,
        // The seat's view string (docs/position-strings.md), for engines and bridges.
        "position": viewer.seat().map(|s| game.view_string(s)),
        "svg": picture,
        "legal": legal,
        "pending_setup": pending_json,
        "events": events,
        "events_from": from,
        "events_total": events_total,
        "result": result,
        "clock": clock,
        "draw_offer": table.draw_offer.filter(|_| to_act.is_some()).map(Side::name),
        "listed": table.settings.listed,
        "rated": table.settings.rated,
        "rematch": table.rematch,
        "rematch_of": table.settings.rematch_of,
        "ratings": ratings,
    })
}
