//! What a seat (or a spectator) receives: built from that seat's [`View`] and event
//! log only — never from the referee's [`junqi::Position`]. A spectator's view is the
//! public part of the seats' views: a kind only where every seat knows it, and only
//! the events every seat was told.


use junqi::render::SvgOptions;
use junqi::{describe_result, Event, GameResult, Phase, SeenPiece, Side};
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

/// The state `viewer` sees. `connected[side]` says whether the seat has a live
/// connection; `svg` whether to draw the picture.
pub fn state_json(table: &Table, viewer: Viewer, connected: &[bool; 4], svg: bool) -> Value {
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
    // The proposed setup is drawn as if deployed (it is the seat's own knowledge).
    let drawn = match pending {
        Some((side, setup)) if view.phase == Phase::Deploy => {
            let mut v = view.clone();
            v.army = Some(side);
            for (p, k) in setup.placements() {
                if let (Some(point), Some(kind)) = (board.point(p), junqi::PieceKind::from_name(k))
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
    let picture = if svg {
        Value::String(
            drawn
                .as_ref()
                .unwrap_or(&view)
                .to_svg(rules, &SvgOptions::default()),
        )
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
    let mut ply = 0u32;
    let mut events = Vec::with_capacity(view.events.len());
    for e in &view.events {
        if matches!(
            e,
            Event::TimedOut { .. }
                | Event::Moved { .. }
                | Event::Attacked { .. }
                | Event::Struck { .. }
                | Event::ShotDown { .. }
                | Event::Flipped { .. }
        ) {
            ply += 1;
        }
        events.push(json!({"ply": ply, "text": e.describe(board), "event": e.to_json(board)}));
    }
    let seats: Map<String, Value> = rules
        .sides()
        .iter()
        .map(|&s| {
            let kind = table.kind_of(s);
            let mut seat = json!({"kind": kind.name(), "connected": connected[s as usize]});
            if let Some(agent) = table.seats.get(&s).and_then(|seat| seat.agent.as_ref()) {
                seat["agent"] = json!(agent);
            }
            (s.name().to_owned(), seat)
        })
        .collect();
    let clock = table.move_seconds.map(|secs| {
        let t: Map<String, Value> =
            rules.sides().iter().map(|&s| (s.name().to_owned(), json!(view.timeouts[s as usize]))).collect();
        json!({"move_seconds": secs, "deadline_ms": table.deadline_ms.filter(|_| to_act.is_some()), "timeouts": t,
               "max_timeouts": rules.options().max_timeouts})
    });
    let pending_json = match pending {
        Some((_, setup)) if view.phase == Phase::Deploy => {
            serde_json::to_value(setup).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    };
    let result = view.result.as_ref().map(result_json);
    view.events.clear(); // sent once, in words, under "events"
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
        "seats": seats,
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
        "result": result,
        "clock": clock,
        "draw_offer": table.draw_offer.filter(|_| to_act.is_some()).map(Side::name),
    })
}
