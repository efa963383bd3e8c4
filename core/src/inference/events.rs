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
