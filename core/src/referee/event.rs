//! Events: what happened, as told to a player, in JSON and in words; and the public
//! part of several players' logs.

use serde_json::{json, Value};

use crate::board::{Board, Point};
use crate::combat::CombatOutcome;
use crate::piece::{PieceKind, Side};
use crate::position::{EndReason, Eliminations, GameResult, RevealCause};

/// Something that happened, as told to a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event {
    /// A side deployed its army.
    Deployed {
        /// The side.
        side: Side,
    },
    /// A piece moved to an empty point.
    Moved {
        /// The moving side.
        side: Side,
        /// Start point.
        from: Point,
        /// End point.
        to: Point,
    },
    /// A piece attacked another. The outcome says who left the board, not what the
    /// pieces were.
    Attacked {
        /// The attacking side.
        side: Side,
        /// The attacker's point.
        from: Point,
        /// The defender's point.
        to: Point,
        /// What happened.
        outcome: CombatOutcome,
    },
    /// A piece struck another without moving: a fort's strike, a gunboat's shore
    /// bombardment, anti-aircraft fire (海陆空三军棋).
    Struck {
        /// The striking side.
        side: Side,
        /// The striker's point.
        from: Point,
        /// The target's point.
        to: Point,
        /// What happened (a bombarding gunboat never leaves the board).
        outcome: CombatOutcome,
    },
    /// A plane flying from `from` was shot down by an enemy anti-aircraft piece on a
    /// surface point its run passed over (below one of its air positions or between
    /// two of them).
    ShotDown {
        /// The plane's side.
        side: Side,
        /// Where the plane started.
        from: Point,
        /// Where it came down: the air position above the gun, or the gun's own point
        /// when no air position is above it (a gun between the air rows).
        at: Point,
    },
    /// A submarine that evaded must step away: its owner acts next (a reaction).
    ReactionDue {
        /// The player who must react.
        player: Side,
        /// The submarine's point.
        point: Point,
    },
    /// A face-down piece was turned face up (翻棋).
    Flipped {
        /// The player who flipped it.
        side: Side,
        /// Where it stands.
        point: Point,
        /// Its army.
        owner: Side,
        /// Its kind.
        kind: PieceKind,
    },
    /// The first flip fixed which army a player commands (翻棋).
    ArmyAssigned {
        /// The player.
        player: Side,
        /// Its army.
        army: Side,
    },
    /// A piece's identity was shown (to everyone, or privately to this player).
    Revealed {
        /// Where the piece stands (or stood, if it has just left the board).
        point: Point,
        /// Its owner.
        owner: Side,
        /// Its kind.
        kind: PieceKind,
        /// Why.
        cause: RevealCause,
    },
    /// A side resigned.
    Resigned {
        /// The side.
        side: Side,
    },
    /// A player left the game (an escape); the game ends.
    Escaped {
        /// The side.
        side: Side,
    },
    /// The referee applied a time-out to the side to act: its turn passed.
    TimedOut {
        /// The side.
        side: Side,
        /// Its time-outs so far.
        count: u8,
    },
    /// A side is out of a game that goes on; its pieces left the board.
    Eliminated {
        /// The side.
        side: Side,
        /// Why.
        reason: EndReason,
    },
    /// The players agreed to a draw.
    DrawAgreed,
    /// The game ended.
    GameOver {
        /// The result.
        result: GameResult,
    },
}

impl Event {
    /// The event as JSON, with point names from `board`.
    pub fn to_json(&self, board: &Board) -> Value {
        let n = |p: Point| board.name_of(p);
        match *self {
            Event::Deployed { side } => json!({"type": "deployed", "side": side}),
            Event::Moved { side, from, to } => {
                json!({"type": "moved", "side": side, "from": n(from), "to": n(to)})
            }
            Event::Attacked { side, from, to, outcome } => json!({
                "type": "attacked", "side": side, "from": n(from), "to": n(to), "outcome": outcome
            }),
            Event::Struck { side, from, to, outcome } => json!({
                "type": "struck", "side": side, "from": n(from), "to": n(to), "outcome": outcome
            }),
            Event::ShotDown { side, from, at } => json!({"type": "shot_down", "side": side, "from": n(from), "at": n(at)}),
            Event::ReactionDue { player, point } => json!({"type": "reaction_due", "player": player, "point": n(point)}),
            Event::Revealed { point, owner, kind, cause } => json!({
                "type": "revealed", "point": n(point), "owner": owner, "kind": kind, "cause": cause.name()
            }),
            Event::Resigned { side } => json!({"type": "resigned", "side": side}),
            Event::Escaped { side } => json!({"type": "escaped", "side": side}),
            Event::Flipped { side, point, owner, kind } => json!({
                "type": "flipped", "side": side, "point": n(point), "owner": owner, "kind": kind
            }),
            Event::ArmyAssigned { player, army } => json!({"type": "army_assigned", "player": player, "army": army}),
            Event::TimedOut { side, count } => json!({"type": "timed_out", "side": side, "count": count}),
            Event::Eliminated { side, reason } => json!({"type": "eliminated", "side": side, "reason": reason}),
            Event::DrawAgreed => json!({"type": "draw_agreed"}),
            Event::GameOver { result } => json!({"type": "game_over", "result": result}),
        }
    }

    /// The event in one line of text, e.g. `"south a6xa7: win (the defender left the
    /// board)"`. A combat names its [`CombatOutcome`] (`win`, `lose`, `both`, `repel`,
    /// `evade`, from the attacker's side), then says who left the board.
    pub fn describe(&self, board: &Board) -> String {
        let n = |p: Point| board.name_of(p);
        match *self {
            Event::Deployed { side } => format!("{side} deployed"),
            Event::Moved { side, from, to } => format!("{side} {}-{}", n(from), n(to)),
            Event::Struck { side, from, to, outcome } => {
                format!("{side} {} struck {}: {outcome} ({})", n(from), n(to), strike_words(outcome))
            }
            Event::ShotDown { side, from, at } => format!("{side}'s plane from {} was shot down at {}", n(from), n(at)),
            Event::ReactionDue { player, point } => {
                format!("{player} must step the submarine on {} away", n(point))
            }
            Event::Attacked { side, from, to, outcome } => {
                format!("{side} {}x{}: {outcome} ({})", n(from), n(to), attack_words(outcome))
            }
            Event::Revealed { point, owner, kind, cause } => {
                format!("{owner}'s piece on {} is {} {kind} ({})", n(point), article(kind), cause.name())
            }
            Event::Resigned { side } => format!("{side} resigned"),
            Event::Escaped { side } => format!("{side} left the game (escape)"),
            Event::Flipped { side, point, owner, kind } => {
                format!("{side} flipped {}: {owner}'s {kind}", n(point))
            }
            // In 翻棋 the armies carry side names as labels, which need not be the
            // player's seat: say which is which.
            Event::ArmyAssigned { player, army } => format!("the {player} player commands the army labelled {army}"),
            Event::TimedOut { side, count } => format!("{side} timed out ({count})"),
            Event::Eliminated { side, reason } => {
                format!("{side} is out: {} ({}); its pieces leave the board", reason.words(), reason.name())
            }
            Event::DrawAgreed => "draw agreed".to_owned(),
            Event::GameOver { result } => describe_result(&result),
        }
    }
}

/// `a` or `an` before a kind's id.
fn article(kind: PieceKind) -> &'static str {
    if kind.id().starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Who left the board after an attack made by moving.
fn attack_words(outcome: CombatOutcome) -> &'static str {
    match outcome {
        CombatOutcome::Win => "the defender left the board",
        CombatOutcome::Lose => "the attacker left the board",
        CombatOutcome::Both => "both left the board",
        CombatOutcome::Repel => "nobody left the board",
        CombatOutcome::Evade => "the defender evaded",
        CombatOutcome::Illegal => "no combat",
    }
}

/// Who left the board after a strike (the striker stays on its point).
fn strike_words(outcome: CombatOutcome) -> &'static str {
    match outcome {
        CombatOutcome::Win => "the target left the board",
        CombatOutcome::Lose => "the striker left the board",
        CombatOutcome::Both => "both left the board",
        CombatOutcome::Repel => "no effect",
        CombatOutcome::Evade => "the target evaded",
        CombatOutcome::Illegal => "no combat",
    }
}

/// A result in words for people, with the machine name of the reason kept for
/// programs: `"south wins: the flag was captured (flag_captured)"`, `"draw agreed
/// (agreement)"` — the text the CLI, the web page and the packages show.
///
/// ```
/// use junqi::{describe_result, EndReason, GameResult, Side, SideSet};
/// let r = GameResult { winners: SideSet::single(Side::North), reason: EndReason::NoLegalMove };
/// assert_eq!(describe_result(&r), "north wins: no piece left that can move (no_legal_move)");
/// ```
pub fn describe_result(result: &GameResult) -> String {
    let (words, name) = (result.reason.words(), result.reason.name());
    if result.is_draw() {
        match result.reason {
            EndReason::Agreement => format!("draw agreed ({name})"),
            _ => format!("draw: {words} ({name})"),
        }
    } else {
        let names: Vec<&str> = result.winners.iter().map(Side::name).collect();
        format!("{} win{}: {words} ({name})", names.join(" and "), if names.len() == 1 { "s" } else { "" })
    }
}

/// The events in every log. The referee tells a player privately only `Revealed`
/// events; every other event is public and stands in the same order in every log. So
/// the logs are cut at the public events, and between two of them a reveal is kept
/// when every log has it. Returns the public events as indices into the first log (so
/// that what the log keeps beside each event, its ply, comes along).
pub(crate) fn public_events(logs: &[&[Event]]) -> Vec<usize> {
    /// Each log cut at its non-reveal events: (the reveals before, as indices into the
    /// log, the event that ends the run).
    fn segments(log: &[Event]) -> Vec<(Vec<usize>, Option<usize>)> {
        let mut out = Vec::new();
        let mut run = Vec::new();
        for (i, e) in log.iter().enumerate() {
            if matches!(e, Event::Revealed { .. }) {
                run.push(i);
            } else {
                out.push((std::mem::take(&mut run), Some(i)));
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
            .zip(&logs[1..])
            .map(|(c, log)| c.get(i).map(|s| s.0.iter().map(|&j| log[j]).collect()).unwrap_or_default())
            .collect();
        for &r in reveals {
            let revealed = logs[0][r];
            let everywhere = others.iter().all(|o| o.contains(&revealed));
            if everywhere {
                for o in &mut others {
                    let j = o.iter().position(|x| *x == revealed).expect("present");
                    o.remove(j);
                }
                events.push(r);
            }
        }
        events.extend(end);
    }
    events
}

/// The end of a report: the sides that went out, then the end of the game.
pub(crate) fn push_end(public: &mut Vec<Event>, eliminated: Eliminations, result: Option<GameResult>) {
    public.extend(eliminated.iter().map(|(side, reason)| Event::Eliminated { side, reason }));
    if let Some(result) = result {
        public.push(Event::GameOver { result });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PieceKind, RevealCause, RuleSet};

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
        // The public events, as indices into the first log.
        assert_eq!(public_events(&[&south, &north]), vec![0, 2, 3]);
        // The same reveal told privately to each of two players at once is known to both.
        assert_eq!(public_events(&[&[private], &[private]]), vec![0]);
        assert_eq!(public_events(&[&[private, private], &[private]]), vec![0]);
    }
}
