//! Reading events back from their JSON form (a player record's event log).

use serde_json::Value;

use crate::board::{Board, Point};
use crate::combat::CombatOutcome;
use crate::piece::{PieceKind, Side};
use crate::position::{EndReason, GameResult, RevealCause};
use crate::referee::Event;

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, String> {
    v.get(key).ok_or_else(|| format!("missing {key:?}"))
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    field(v, key)?
        .as_str()
        .ok_or_else(|| format!("{key:?} is not a string"))
}

fn side(v: &Value, key: &str) -> Result<Side, String> {
    let t = text(v, key)?;
    Side::from_name(t).ok_or_else(|| format!("{key:?}: unknown side {t:?}"))
}

fn point(board: &Board, v: &Value, key: &str) -> Result<Point, String> {
    let t = text(v, key)?;
    board.point(t).ok_or_else(|| format!("{key:?}: unknown point {t:?}"))
}

fn kind(v: &Value, key: &str) -> Result<PieceKind, String> {
    let t = text(v, key)?;
    PieceKind::from_name(t).ok_or_else(|| format!("{key:?}: unknown kind {t:?}"))
}

fn outcome(v: &Value) -> Result<CombatOutcome, String> {
    let t = text(v, "outcome")?;
    CombatOutcome::ALL
        .into_iter()
        .find(|o| o.name() == t)
        .ok_or_else(|| format!("unknown outcome {t:?}"))
}

/// An event from its JSON form ([`Event::to_json`]).
pub(crate) fn event_from_json(board: &Board, v: &Value) -> Result<Event, String> {
    Ok(match text(v, "type")? {
        "deployed" => Event::Deployed { side: side(v, "side")? },
        "moved" => Event::Moved {
            side: side(v, "side")?,
            from: point(board, v, "from")?,
            to: point(board, v, "to")?,
        },
        "attacked" => Event::Attacked {
            side: side(v, "side")?,
            from: point(board, v, "from")?,
            to: point(board, v, "to")?,
            outcome: outcome(v)?,
        },
        "struck" => Event::Struck {
            side: side(v, "side")?,
            from: point(board, v, "from")?,
            to: point(board, v, "to")?,
            outcome: outcome(v)?,
        },
        "shot_down" => Event::ShotDown {
            side: side(v, "side")?,
            from: point(board, v, "from")?,
            at: point(board, v, "at")?,
        },
        "reaction_due" => Event::ReactionDue {
            player: side(v, "player")?,
            point: point(board, v, "point")?,
        },
        "flipped" => Event::Flipped {
            side: side(v, "side")?,
            point: point(board, v, "point")?,
            owner: side(v, "owner")?,
            kind: kind(v, "kind")?,
        },
        "army_assigned" => Event::ArmyAssigned {
            player: side(v, "player")?,
            army: side(v, "army")?,
        },
        "revealed" => {
            let c = text(v, "cause")?;
            Event::Revealed {
                point: point(board, v, "point")?,
                owner: side(v, "owner")?,
                kind: kind(v, "kind")?,
                cause: RevealCause::ALL
                    .into_iter()
                    .find(|r| r.name() == c)
                    .ok_or_else(|| format!("unknown reveal cause {c:?}"))?,
            }
        }
        "resigned" => Event::Resigned { side: side(v, "side")? },
        "escaped" => Event::Escaped { side: side(v, "side")? },
        "timed_out" => Event::TimedOut {
            side: side(v, "side")?,
            count: field(v, "count")?
                .as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or("\"count\" is not a small number")?,
        },
        "eliminated" => Event::Eliminated {
            side: side(v, "side")?,
            reason: serde_json::from_value::<EndReason>(field(v, "reason")?.clone()).map_err(|e| e.to_string())?,
        },
        "draw_agreed" => Event::DrawAgreed,
        "game_over" => Event::GameOver {
            result: serde_json::from_value::<GameResult>(field(v, "result")?.clone()).map_err(|e| e.to_string())?,
        },
        other => return Err(format!("unknown event type {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::SideSet;
    use crate::rules::RuleSet;
    use serde_json::json;

    /// One event of every type a player's log holds, each field distinct from the
    /// others of its event (so that a field read from the wrong key shows).
    fn every_event(board: &Board) -> Vec<Event> {
        let p = |n: &str| board.point(n).unwrap();
        let mut events = vec![
            Event::Deployed { side: Side::North },
            Event::Moved {
                side: Side::South,
                from: p("a2"),
                to: p("a3"),
            },
            Event::Struck {
                side: Side::North,
                from: p("e7"),
                to: p("d6"),
                outcome: CombatOutcome::Repel,
            },
            Event::ShotDown {
                side: Side::North,
                from: p("c8"),
                at: p("c5"),
            },
            Event::ReactionDue {
                player: Side::North,
                point: p("b4"),
            },
            Event::Flipped {
                side: Side::South,
                point: p("d2"),
                owner: Side::North,
                kind: PieceKind::Bomb,
            },
            Event::ArmyAssigned {
                player: Side::South,
                army: Side::North,
            },
            Event::Resigned { side: Side::North },
            Event::Escaped { side: Side::North },
            Event::TimedOut {
                side: Side::North,
                count: 255,
            },
            Event::DrawAgreed,
            Event::GameOver {
                result: GameResult {
                    winners: SideSet::single(Side::North),
                    reason: EndReason::Resignation,
                },
            },
        ];
        for outcome in CombatOutcome::ALL {
            events.push(Event::Attacked {
                side: Side::North,
                from: p("b7"),
                to: p("b6"),
                outcome,
            });
        }
        for cause in RevealCause::ALL {
            events.push(Event::Revealed {
                point: p("c9"),
                owner: Side::North,
                kind: PieceKind::Engineer,
                cause,
            });
        }
        for reason in EndReason::ALL {
            events.push(Event::Eliminated { side: Side::North, reason });
        }
        events
    }

    #[test]
    fn every_event_reads_back_from_its_json() {
        let rules = RuleSet::preset("classic").unwrap();
        let board = rules.board();
        for e in every_event(board) {
            let v = e.to_json(board);
            assert_eq!(event_from_json(board, &v), Ok(e), "{v}");
        }
    }

    #[test]
    fn malformed_events_are_refused_with_the_reason() {
        let rules = RuleSet::preset("classic").unwrap();
        let board = rules.board();
        let err = |v: Value| event_from_json(board, &v).unwrap_err();
        assert_eq!(err(json!({})), "missing \"type\"");
        assert_eq!(err(json!({"type": 3})), "\"type\" is not a string");
        assert_eq!(err(json!({"type": "teleported"})), "unknown event type \"teleported\"");
        assert_eq!(err(json!({"type": "deployed"})), "missing \"side\"");
        assert_eq!(
            err(json!({"type": "deployed", "side": "up"})),
            "\"side\": unknown side \"up\""
        );
        assert_eq!(
            err(json!({"type": "moved", "side": "south", "from": "a2", "to": "z9"})),
            "\"to\": unknown point \"z9\""
        );
        assert_eq!(
            err(json!({"type": "attacked", "side": "south", "from": "a2", "to": "a3", "outcome": "draw"})),
            "unknown outcome \"draw\""
        );
        assert_eq!(
            err(json!({"type": "flipped", "side": "south", "point": "a2", "owner": "north", "kind": "king"})),
            "\"kind\": unknown kind \"king\""
        );
        assert_eq!(
            err(json!({"type": "revealed", "point": "a2", "owner": "north", "kind": "bomb", "cause": "luck"})),
            "unknown reveal cause \"luck\""
        );
        for count in [json!(256), json!(-1), json!("3")] {
            assert_eq!(
                err(json!({"type": "timed_out", "side": "south", "count": count})),
                "\"count\" is not a small number"
            );
        }
        assert!(event_from_json(board, &json!({"type": "eliminated", "side": "south", "reason": "boredom"})).is_err());
        assert!(event_from_json(board, &json!({"type": "game_over", "result": {"winners": []}})).is_err());
    }
}
