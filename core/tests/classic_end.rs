//! End of game (docs/classic.md, "The rules": information and the end).
mod common;
use common::*;
use junqi::{Action, EndReason, Phase, PieceKind::*, Side, Side::*, SideSet};

fn mv(r: &junqi::RuleSet, f: &str, t: &str) -> Action {
    Action::Move { from: pt(r, f), to: pt(r, t) }
}

#[test]
fn capturing_the_flag_wins() {
    let r = classic();
    let mut pos = arrange(
        &r,
        &[("b11", South, PlatoonLeader), ("a1", South, Flag), ("b12", North, Flag), ("e12", North, Engineer)],
        South,
    );
    let out = pos.play(mv(&r, "b11", "b12")).unwrap();
    let result = out.result.unwrap();
    assert_eq!(result.winner(), Some(South));
    assert_eq!(result.reason, EndReason::FlagCaptured);
    assert_eq!(pos.phase(), Phase::Over);
    assert_eq!(pos.to_act(), None);
    assert!(pos.legal_actions().is_empty());
    assert_eq!(pos.play(mv(&r, "e12", "e11")).unwrap_err(), junqi::PlayError::GameOver);
}

#[test]
fn a_bomb_that_hits_the_flag_captures_it() {
    let r = classic();
    let mut pos = arrange(
        &r,
        &[("b11", South, Bomb), ("a1", South, Flag), ("b12", North, Flag), ("e12", North, Engineer)],
        South,
    );
    let out = pos.play(mv(&r, "b11", "b12")).unwrap();
    assert_eq!(out.result.unwrap().winner(), Some(South));
    assert_eq!(pos.piece_at(pt(&r, "b12")), None, "both leave the board");
}

#[test]
fn no_legal_move_loses() {
    let r = classic();
    // North has only its flag and a mine: after South moves, North cannot move.
    let mut pos = arrange(
        &r,
        &[("c3", South, Engineer), ("a1", South, Flag), ("b12", North, Flag), ("a12", North, Mine)],
        South,
    );
    let out = pos.play(mv(&r, "c3", "c2")).unwrap();
    let res = out.result.unwrap();
    assert_eq!(res.winner(), Some(South));
    assert_eq!(res.reason, EndReason::NoLegalMove);
    // A side to act without a move loses at once.
    let pos = arrange(&r, &[("c3", South, Engineer), ("b12", North, Flag)], North);
    assert_eq!(pos.result().unwrap().reason, EndReason::NoLegalMove);
    assert_eq!(pos.result().unwrap().winner(), Some(South));
    // A piece locked in an HQ is no legal move either.
    let pos = arrange(&r, &[("c3", South, Engineer), ("d12", North, Commander)], North);
    assert_eq!(pos.result().unwrap().winner(), Some(South));
}

fn shuffle_until_end(limit: Option<u32>) -> (u32, Option<junqi::GameResult>) {
    let r = match limit {
        None => classic(),
        Some(n) => rules_with(&format!(r#"{{"no_capture_draw_plies": {n}}}"#)),
    };
    let mut pos = arrange(&r, &[("c3", South, Engineer), ("c10", North, Engineer)], South);
    let moves = [("c3", "c2"), ("c10", "c11"), ("c2", "c3"), ("c11", "c10")];
    let mut i = 0;
    while pos.result().is_none() && i < 1000 {
        let (f, t) = moves[i % 4];
        pos.play(mv(&r, f, t)).unwrap();
        i += 1;
    }
    (pos.ply(), pos.result())
}

#[test]
fn seventy_quiet_plies_draw() {
    let (plies, result) = shuffle_until_end(None);
    assert_eq!(plies, 70);
    let result = result.unwrap();
    assert!(result.is_draw());
    assert_eq!(result.winners, SideSet::EMPTY);
    assert_eq!(result.reason, EndReason::NoCaptureLimit);
    let (plies, _) = shuffle_until_end(Some(12));
    assert_eq!(plies, 12);
    // 0 turns the rule off.
    let (plies, result) = shuffle_until_end(Some(0));
    assert_eq!((plies, result), (1000, None));
}

#[test]
fn a_capture_resets_the_quiet_count() {
    let r = rules_with(r#"{"no_capture_draw_plies": 4}"#);
    let mut pos = arrange(
        &r,
        &[("c3", South, Engineer), ("a3", South, Commander), ("c10", North, Engineer), ("a5", North, PlatoonLeader)],
        South,
    );
    pos.play(mv(&r, "c3", "c2")).unwrap();
    pos.play(mv(&r, "c10", "c11")).unwrap();
    pos.play(mv(&r, "a3", "a4")).unwrap();
    assert_eq!(pos.no_capture_plies(), 3);
    pos.play(mv(&r, "a5", "a4")).unwrap(); // platoon leader attacks the commander and loses
    assert_eq!(pos.no_capture_plies(), 0);
    assert!(pos.result().is_none());
}

#[test]
fn commander_lost_reveals_the_flag_to_everyone() {
    let r = classic();
    let mut pos = arrange(
        &r,
        &[("c5", South, Commander), ("d1", South, Flag), ("c6", North, Bomb), ("b12", North, Flag), ("a12", North, Engineer)],
        South,
    );
    assert!(!pos.knows(North, pt(&r, "d1")));
    let out = pos.play(mv(&r, "c5", "c6")).unwrap();
    assert_eq!(out.flags_revealed[0], Some((South, pt(&r, "d1"))));
    assert!(pos.knows(North, pt(&r, "d1")));
    assert!(!pos.knows(South, pt(&r, "b12")), "only the side that lost its commander");
}

#[test]
fn resignation_and_agreement() {
    let mut g = junqi::Game::new("classic", 3).unwrap();
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let mut h = g.clone();
    g.resign(Side::South).unwrap();
    assert_eq!(g.result().unwrap().winner(), Some(North));
    assert_eq!(g.result().unwrap().reason, EndReason::Resignation);
    h.agree_draw().unwrap();
    assert!(h.result().unwrap().is_draw());
    assert!(h.resign(South).is_err());
}
