//! What a seat (or a spectator) receives: built from that seat's [`View`] and event
//! log only — never from the referee's [`junqi::Position`]. A spectator's view is the
//! public part of the seats' views: a kind only where every seat knows it, and only
//! the events every seat was told.

use std::collections::HashMap;

use junqi::render::SvgOptions;
use junqi::{describe_result, Event, Game, GameResult, Phase, SeenPiece, Side, View};
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

/// The phase on the wire: `deploy`, `play` (moves and reactions) or `over`.
pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Deploy => "deploy",
        Phase::Over => "over",
        _ => "play",
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
        Viewer::Spectator => public_view(game),
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
                let (from, to) = match a {
                    junqi::Action::Move { from, to } => (board.name_of(from), Some(board.name_of(to))),
                    junqi::Action::Flip { at } => (board.name_of(at), None),
                    _ => ("", None),
                };
                json!({"id": a.index(rules), "notation": a.to_notation(board), "from": from, "to": to})
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut deployed = Vec::new();
    let mut timeouts: HashMap<Side, u8> = HashMap::new();
    let mut ply = 0u32;
    let mut events = Vec::with_capacity(view.events.len());
    for e in &view.events {
        match *e {
            Event::Deployed { side } => deployed.push(side.name()),
            Event::TimedOut { side, count } => {
                timeouts.insert(side, count);
                ply += 1;
            }
            Event::Moved { .. }
            | Event::Attacked { .. }
            | Event::Struck { .. }
            | Event::ShotDown { .. } => ply += 1,
            Event::Flipped { .. } => ply += 1,
            _ => {}
        }
        events.push(json!({"ply": ply, "text": e.describe(board), "event": e.to_json(board)}));
    }
    let seats: Map<String, Value> = rules
        .sides()
        .iter()
        .map(|&s| {
            let kind = table.kind_of(s);
            (
                s.name().to_owned(),
                json!({"kind": kind.name(), "connected": connected[s as usize]}),
            )
        })
        .collect();
    let clock = table.move_seconds.map(|secs| {
        let t: Map<String, Value> =
            rules.sides().iter().map(|&s| (s.name().to_owned(), json!(timeouts.get(&s).copied().unwrap_or(0)))).collect();
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
        "phase": phase_name(view.phase),
        "to_act": to_act.map(Side::name),
        "deployed": deployed,
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

/// The public view: the pieces as every seat sees them (owner and arm), a kind only
/// where every seat knows it, and the events every seat was told. Built from the
/// seats' views alone.
pub fn public_view(game: &Game) -> View {
    let sides = game.rules().sides();
    let views: Vec<View> = sides.iter().map(|&s| game.view(s)).collect();
    let first = &views[0];
    let pieces = first
        .pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let agreed = views.iter().all(|v| {
                v.pieces
                    .get(i)
                    .is_some_and(|q| q.point == p.point && q.kind == p.kind)
            });
            SeenPiece {
                kind: if agreed { p.kind } else { None },
                ..*p
            }
        })
        .collect();
    let logs: Vec<&[Event]> = views.iter().map(|v| v.events.as_slice()).collect();
    View {
        player: sides[0],
        army: None,
        phase: first.phase,
        to_act: first.to_act,
        ply: first.ply,
        quiet_plies: first.quiet_plies,
        pieces,
        events: public_events(&logs),
        result: first.result,
    }
}

/// The events in every log. The referee tells a player privately only `Revealed`
/// events; every other event is public and stands in the same order in every log. So
/// the logs are cut at the public events, and between two of them a reveal is kept
/// when every log has it.
pub fn public_events(logs: &[&[Event]]) -> Vec<Event> {
    fn segments(log: &[Event]) -> Vec<(Vec<Event>, Option<Event>)> {
        let mut out = Vec::new();
        let mut run = Vec::new();
        for e in log {
            if matches!(e, Event::Revealed { .. }) {
                run.push(*e);
            } else {
                out.push((std::mem::take(&mut run), Some(*e)));
            }
        }
        out.push((run, None));
        out
    }
    let cut: Vec<_> = logs.iter().map(|l| segments(l)).collect();
    let mut events = Vec::new();
    for (i, (reveals, end)) in cut[0].iter().enumerate() {
        let mut others: Vec<Vec<Event>> = cut[1..]
            .iter()
            .map(|c| c.get(i).map(|s| s.0.clone()).unwrap_or_default())
            .collect();
        for r in reveals {
            let everywhere = others.iter().all(|o| o.contains(r));
            if everywhere {
                for o in &mut others {
                    let j = o.iter().position(|x| x == r).expect("present");
                    o.remove(j);
                }
                events.push(*r);
            }
        }
        events.extend(end);
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use junqi::{PieceKind, RevealCause, RuleSet};

    #[test]
    fn public_events_keep_what_every_log_has() {
        let rules = RuleSet::preset("classic").unwrap();
        let p = |n| rules.board().point(n).unwrap();
        let reveal = |point, kind| Event::Revealed {
            point: p(point),
            owner: Side::North,
            kind,
            cause: RevealCause::EngineerScout,
        };
        let moved = Event::Moved {
            side: Side::South,
            from: p("a2"),
            to: p("a3"),
        };
        let private = reveal("b7", PieceKind::Bomb);
        let public = reveal("c7", PieceKind::Mine);
        let south = [
            Event::Deployed { side: Side::South },
            private,
            public,
            moved,
            private,
        ];
        let north = [Event::Deployed { side: Side::South }, public, moved];
        assert_eq!(
            public_events(&[&south, &north]),
            vec![Event::Deployed { side: Side::South }, public, moved]
        );
        // The same reveal told privately to each of two players at once is known to both.
        assert_eq!(public_events(&[&[private], &[private]]), vec![private]);
        assert_eq!(
            public_events(&[&[private, private], &[private]]),
            vec![private]
        );
    }
}
