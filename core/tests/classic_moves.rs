//! Movement (docs/classic.md, "The rules": movement): road steps, railway runs with blockers,
//! engineer turns, HQs, camps, immobile pieces, options.
mod common;
use common::*;
use junqi::{Action, PieceKind::*, PlayError, Side::*};

#[test]
fn road_steps_from_a_post() {
    let r = classic();
    let pos = arrange(&r, &[("c3", South, Commander)], South);
    // c3 is a post: its four orthogonal neighbours; no diagonals (c3 is not a camp).
    assert_eq!(targets(&pos, "c3"), names(&["b3", "c2", "c4", "d3"]));
}

#[test]
fn camp_diagonals() {
    let r = classic();
    let pos = arrange(&r, &[("c4", South, Commander)], South);
    assert_eq!(
        targets(&pos, "c4"),
        names(&["b3", "b4", "b5", "c3", "c5", "d3", "d4", "d5"])
    );
}

#[test]
fn straight_railway_runs_stop_at_blockers() {
    let r = classic();
    // Column a and row 2 are open: the commander runs straight along either.
    let pos = arrange(&r, &[("a2", South, Commander)], South);
    let t = targets(&pos, "a2");
    for p in ["a3", "a6", "a7", "a11", "b2", "e2", "a1"] {
        assert!(t.contains(&p.to_string()), "{p} in {t:?}");
    }
    // No turning: b6 needs a turn at a6; a12 is off the railway.
    for p in ["b6", "e3", "b11", "a12"] {
        assert!(!t.contains(&p.to_string()), "{p} in {t:?}");
    }
    // a1 by road, b3 by the camp diagonal, a3..a11 and b2..e2 by rail.
    assert!(t.contains(&"b3".to_string()));
    assert_eq!(t.len(), 2 + 9 + 4);

    // An own piece blocks; an enemy piece can be attacked but not passed.
    let pos = arrange(
        &r,
        &[("a2", South, Commander), ("a5", South, Engineer), ("c2", North, Engineer)],
        South,
    );
    let t = targets(&pos, "a2");
    assert_eq!(t, names(&["a1", "a3", "a4", "b2", "b3", "c2"]));
}

#[test]
fn no_jumping_over_the_front() {
    let r = classic();
    // b6 and b7 are not joined (mountain): a non-engineer on b6 cannot reach b7 at all.
    let pos = arrange(&r, &[("b6", South, Commander)], South);
    let t = targets(&pos, "b6");
    assert!(!t.contains(&"b7".to_string()));
    assert!(t.contains(&"a6".to_string()) && t.contains(&"e6".to_string()));
    // c6-c7 is its own short straight line: c7, not beyond (c7-c8 is a road).
    let pos = arrange(&r, &[("c6", South, Commander)], South);
    let t = targets(&pos, "c6");
    assert!(t.contains(&"c7".to_string()));
    assert!(!t.contains(&"c8".to_string()) && !t.contains(&"b7".to_string()));
}

#[test]
fn engineers_turn_anywhere_on_the_railway() {
    let r = classic();
    let pos = arrange(&r, &[("a2", South, Engineer)], South);
    let t = targets(&pos, "a2");
    // Every railway point is reachable on an empty board, including b7 via a7.
    for p in ["b6", "e3", "b11", "e11", "c7", "b7", "d7", "e10"] {
        assert!(t.contains(&p.to_string()), "{p}");
    }
    // Hemmed in by its own pieces on both railway exits: only road steps remain.
    let pos = arrange(
        &r,
        &[("a2", South, Engineer), ("a3", South, Commander), ("b2", South, ArmyCommander)],
        South,
    );
    assert_eq!(targets(&pos, "a2"), names(&["a1", "b3"]));
    // One exit open: the engineer goes round the long way (a3 blocked, via row 2 and e).
    let pos = arrange(&r, &[("a2", South, Engineer), ("a3", South, Commander)], South);
    let t = targets(&pos, "a2");
    assert!(t.contains(&"a4".to_string()), "a2-b2-…-e2-e6-a6-a5-a4 {t:?}");
    // An enemy piece ends the run: it is a target but nothing beyond it on that path.
    let pos = arrange(&r, &[("a2", South, Engineer), ("a3", North, Engineer), ("b2", North, Engineer)], South);
    assert_eq!(targets(&pos, "a2"), names(&["a1", "a3", "b2", "b3"]));
}

#[test]
fn hq_pieces_flags_and_mines_never_move() {
    let r = classic();
    let pos = arrange(
        &r,
        &[("b1", South, Commander), ("a1", South, Flag), ("c1", South, Mine), ("e1", South, Engineer)],
        South,
    );
    let b = r.board();
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    assert!(targets(&pos, "b1").is_empty());
    assert_eq!(pos.check(mv("b1", "b2")), Err(PlayError::InHeadquarters("b1".into())));
    assert_eq!(pos.check(mv("a1", "a2")), Err(PlayError::Immobile { point: "a1".into(), kind: Flag }));
    assert_eq!(pos.check(mv("c1", "c2")), Err(PlayError::Immobile { point: "c1".into(), kind: Mine }));
    // A piece may walk into its own HQ, and then it is stuck.
    let mut pos = arrange(&r, &[("d2", South, Commander), ("a12", North, Engineer)], South);
    pos.play(mv("d2", "d1")).unwrap();
    pos.play(mv("a12", "b12")).unwrap();
    assert!(targets(&pos, "d1").is_empty());
    let _ = b;
}

#[test]
fn camps_protect_their_occupant() {
    let r = classic();
    let pos = arrange(&r, &[("c3", South, Commander), ("c4", North, Engineer)], South);
    assert!(!targets(&pos, "c3").contains(&"c4".to_string()));
    let a = Action::Move { from: pt(&r, "c3"), to: pt(&r, "c4") };
    assert_eq!(pos.check(a), Err(PlayError::ProtectedByCamp("c4".into())));
    // With camps_protect off (a user rule set), the attack is allowed.
    let r2 = rules_with(r#"{"camps_protect": false}"#);
    let pos = arrange(&r2, &[("c3", South, Commander), ("c4", North, Engineer)], South);
    assert!(targets(&pos, "c3").contains(&"c4".to_string()));
}

#[test]
fn errors_for_bad_moves() {
    let r = classic();
    let pos = arrange(
        &r,
        &[("c3", South, Commander), ("c2", South, Engineer), ("a12", North, Engineer)],
        South,
    );
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    assert_eq!(pos.check(mv("c5", "c6")), Err(PlayError::NoPiece("c5".into())));
    assert_eq!(pos.check(mv("a12", "a11")), Err(PlayError::NotYourPiece("a12".into())));
    assert_eq!(pos.check(mv("c3", "c2")), Err(PlayError::OwnPiece("c2".into())));
    assert_eq!(
        pos.check(mv("c3", "c6")),
        Err(PlayError::Unreachable { kind: Commander, from: "c3".into(), to: "c6".into() })
    );
    let mut copy = pos.clone();
    assert!(copy.play(mv("c3", "c6")).is_err());
    assert!(copy.same_state(&pos), "a refused move changes nothing");
}

#[test]
fn rail_max_steps_limits_all_but_engineers() {
    let r = rules_with(r#"{"rail_max_steps": 3}"#);
    let pos = arrange(&r, &[("a2", South, Commander), ("e2", South, Engineer)], South);
    let t = targets(&pos, "a2");
    assert!(t.contains(&"a5".to_string()) && !t.contains(&"a6".to_string()));
    assert!(t.contains(&"d2".to_string()));
    assert!(targets(&pos, "e2").contains(&"e11".to_string()), "engineers are unlimited");
}

#[test]
fn rail_all_turn_lets_every_piece_turn() {
    let r = rules_with(r#"{"rail_all_turn": true, "rail_max_steps": 3}"#);
    let pos = arrange(&r, &[("a5", South, Commander)], South);
    let t = targets(&pos, "a5");
    assert!(t.contains(&"b6".to_string()), "a5-a6-b6 turns");
    assert!(t.contains(&"b7".to_string()), "a5-a6-a7-b7 is three steps");
    assert!(!t.contains(&"c7".to_string()), "four steps");
}
