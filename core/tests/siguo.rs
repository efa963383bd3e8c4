//! 四国军棋 (docs/siguo.md): the 129-point board, four players in two teams,
//! elimination, time-outs, team victory, views.
mod common;
use std::sync::Arc;

use common::*;
use junqi::{Action, EdgeKind, EndReason, Event, Game, Phase, PieceKind::*, PlayError, RuleSet, Side::*};

fn siguo() -> Arc<RuleSet> {
    RuleSet::preset("siguo").unwrap()
}

fn siguo_with(options: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::from_json(&format!(r#"{{"extends": "siguo", "name": "siguo-test", "options": {options}}}"#)).unwrap())
}

#[test]
fn board_shape() {
    let r = siguo();
    let b = r.board();
    assert_eq!(b.len(), 129);
    assert_eq!(b.edge_count(EdgeKind::Railway), 4 * 16 + 12 + 12 + 4);
    assert_eq!(b.edge_count(EdgeKind::Road), 4 * 49);
    for side in [South, East, North, West] {
        assert_eq!(r.deploy_points(side).len(), 25, "{side}");
    }
    let e = |x: &str, y: &str| b.edge(pt(&r, x), pt(&r, y));
    // North's front links at local columns 0, 2, 4 only (g, i, k); h12 and j12 have none.
    assert_eq!(e("g12", "g11"), Some(EdgeKind::Railway));
    assert_eq!(e("i12", "i11"), Some(EdgeKind::Railway));
    assert_eq!(e("k12", "k11"), Some(EdgeKind::Railway));
    assert!(b.neighbours(pt(&r, "h12")).iter().all(|(q, _)| b.side_of(*q) == Some(North)));
    // Centre grid: nodes two cells apart.
    assert_eq!(e("g11", "i11"), Some(EdgeKind::Railway));
    assert_eq!(e("i11", "i9"), Some(EdgeKind::Railway));
    // Corner arcs.
    assert_eq!(e("g12", "f11"), Some(EdgeKind::Railway));
    assert_eq!(e("k12", "l11"), Some(EdgeKind::Railway));
    assert_eq!(e("g6", "f7"), Some(EdgeKind::Railway));
    assert_eq!(e("k6", "l7"), Some(EdgeKind::Railway));
    // HQs of South (back row 1) and of West (back column a).
    assert_eq!(b.role(pt(&r, "h1")), junqi::Role::Hq);
    assert_eq!(b.role(pt(&r, "a8")), junqi::Role::Hq);
    assert_eq!(b.depth(pt(&r, "a8")), 1);
    assert_eq!(b.depth(pt(&r, "f8")), 6);
}

#[test]
fn runs_through_the_centre_and_round_the_arcs_are_straight() {
    let r = siguo();
    // North's column-6 railway continues through the arc into West's row 6.
    let pos = arrange(&r, &[("g16", North, Commander)], North);
    let t = targets(&pos, "g16");
    for p in ["g12", "f11", "b11", "g11", "g7", "g6", "g2"] {
        assert!(t.contains(&p.to_string()), "{p} in {t:?}");
    }
    // No turn onto the centre row.
    assert!(!t.contains(&"i11".to_string()));
    // The middle column runs front-middle to front-middle.
    let pos = arrange(&r, &[("i12", North, Commander)], North);
    let t = targets(&pos, "i12");
    assert!(t.contains(&"i6".to_string()));
    assert!(!t.contains(&"i5".to_string()), "the middle line ends at South's front row");
}

#[test]
fn allies_are_neither_attacked_nor_entered() {
    let r = siguo();
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    let pos = arrange(&r, &[("i12", North, Commander), ("i11", South, Engineer), ("g11", East, Engineer)], North);
    assert_eq!(pos.check(mv("i12", "i11")), Err(PlayError::AllyPiece("i11".into())));
    assert!(pos.check(mv("i12", "i9")).is_err(), "blocked by the ally");
    let t = targets(&pos, "i12");
    assert!(!t.contains(&"i11".to_string()));
}

fn four_player_game(rules: &Arc<RuleSet>, seed: u64) -> Game {
    let mut g = Game::with_rules(rules.clone(), seed);
    for (i, side) in [South, East, North, West].into_iter().enumerate() {
        g.deploy_random(side, seed * 10 + i as u64).unwrap();
    }
    g
}

#[test]
fn turn_order_is_counter_clockwise() {
    let mut g = four_player_game(&siguo(), 1);
    let mut order = vec![];
    for _ in 0..8 {
        order.push(g.to_act().unwrap());
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
    }
    assert_eq!(order, vec![South, East, North, West, South, East, North, West]);
}

#[test]
fn time_outs_pass_the_turn_and_five_put_a_player_out() {
    let mut g = four_player_game(&siguo(), 2);
    for round in 1..=5u8 {
        assert_eq!(g.to_act(), Some(South));
        let report = g.time_out().unwrap();
        assert_eq!(report.public[0], Event::TimedOut { side: South, count: round });
        if round < 5 {
            for _ in 0..3 {
                let a = g.legal_actions()[0];
                g.play(a).unwrap();
            }
        } else {
            assert!(report.public.contains(&Event::Eliminated { side: South, reason: EndReason::Timeouts }));
        }
    }
    assert!(g.position().eliminated().contains(South));
    assert!(g.position().pieces().all(|(_, s, _)| s != South), "South's pieces left the board");
    // Play goes on without South.
    let mut seen = vec![];
    for _ in 0..6 {
        if g.result().is_some() {
            break;
        }
        seen.push(g.to_act().unwrap());
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
    }
    assert!(!seen.contains(&South));
    // A record with time-outs replays.
    let again = Game::from_record(&g.record()).unwrap();
    assert!(again.position().same_state(g.position()));
}

#[test]
fn capturing_a_flag_puts_one_player_out_and_the_team_plays_on() {
    let r = siguo();
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    // South's engineer next to East's flag; West and North have movable pieces.
    let mut pos = arrange(
        &r,
        &[
            ("p8", South, Engineer), ("h1", South, Flag),
            ("q8", East, Flag), ("n9", East, Engineer),
            ("h17", North, Flag), ("i12", North, Engineer),
            ("a8", West, Flag), ("b9", West, Engineer),
        ],
        South,
    );
    assert_eq!(r.board().side_of(pt(&r, "q8")), Some(East));
    let out = pos.play(mv("p8", "q8")).unwrap();
    assert_eq!(out.eliminated.iter().collect::<Vec<_>>(), vec![(East, EndReason::FlagCaptured)]);
    assert!(out.result.is_none());
    assert_eq!(pos.piece_at(pt(&r, "n9")), None, "East's pieces leave the board");
    assert_eq!(pos.to_act(), Some(North), "East is skipped");
    // East out first, then North takes West's flag: South and North win as a team.
    let mut pos = arrange(
        &r,
        &[
            ("p8", South, Engineer), ("h1", South, Flag),
            ("q8", East, Flag), ("n9", East, Engineer),
            ("h17", North, Flag), ("b8", North, Engineer),
            ("a8", West, Flag), ("b9", West, Engineer),
        ],
        South,
    );
    pos.play(mv("p8", "q8")).unwrap();
    assert_eq!(pos.to_act(), Some(North));
    let out = pos.play(mv("b8", "a8")).unwrap();
    let result = out.result.unwrap();
    assert_eq!(result.reason, EndReason::FlagCaptured);
    assert!(result.winners.contains(South) && result.winners.contains(North));
    assert_eq!(result.winners.len(), 2);
    assert_eq!(pos.phase(), Phase::Over);
}

#[test]
fn a_player_without_a_legal_move_is_out() {
    let r = siguo();
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    // East has only its flag: after South moves, East is out at once and West acts.
    let mut pos = arrange(
        &r,
        &[("h3", South, Engineer), ("q8", East, Flag), ("h17", North, Flag), ("i12", North, Engineer), ("b9", West, Engineer)],
        South,
    );
    let out = pos.play(mv("h3", "h4")).unwrap();
    assert_eq!(out.eliminated.iter().collect::<Vec<_>>(), vec![(East, EndReason::NoLegalMove)]);
    assert_eq!(pos.to_act(), Some(North));
}

#[test]
fn dark_play_and_allies_see_each_other() {
    let g = four_player_game(&siguo(), 3);
    let v = g.view(South);
    assert!(v.pieces.iter().filter(|p| p.owner == Some(North)).all(|p| p.kind.is_none()), "dark: allies hidden");
    let g = four_player_game(&siguo_with(r#"{"allies_see_each_other": true}"#), 3);
    let v = g.view(South);
    assert!(v.pieces.iter().filter(|p| p.owner == Some(North)).all(|p| p.kind.is_some()));
    assert!(v.pieces.iter().filter(|p| p.owner == Some(East)).all(|p| p.kind.is_none()));
}

#[test]
fn random_four_player_games_end() {
    let r = siguo();
    for seed in 0..30 {
        let mut g = four_player_game(&r, seed);
        let mut rng = junqi::Rng::new(seed);
        while g.result().is_none() {
            let a = g.legal_actions();
            g.play(a[rng.below(a.len())]).unwrap();
        }
        let again = Game::from_record(&junqi::Record::from_json(&g.record().to_json()).unwrap()).unwrap();
        assert!(again.position().same_state(g.position()));
    }
}

#[test]
fn resigning_puts_one_player_out() {
    let mut g = four_player_game(&siguo(), 4);
    g.resign(East).unwrap();
    assert!(g.result().is_none());
    assert!(g.position().eliminated().contains(East));
    g.resign(West).unwrap();
    let result = g.result().unwrap();
    assert_eq!(result.reason, EndReason::Resignation);
    assert!(result.winners.contains(South) && result.winners.contains(North));
}

#[test]
fn only_seats_still_in_play_decide_a_draw() {
    // Issue 27, item 5: an eliminated seat may neither offer nor accept a draw.
    let mut g = four_player_game(&siguo(), 5);
    for side in [South, East, North, West] {
        assert!(g.may_decide_draw(side).is_ok(), "{side}");
    }
    g.resign(East).unwrap();
    let err = g.may_decide_draw(East).unwrap_err();
    assert!(matches!(err, junqi::GameError::Play(PlayError::NotPlaying(East))), "{err}");
    assert_eq!(err.to_string(), "east is not in the game");
    assert!(g.may_decide_draw(West).is_ok(), "its partner still decides for the team");
    // Not a side of the game at all, and a finished game.
    let classic = Game::new("classic", 1).unwrap();
    assert!(classic.may_decide_draw(East).is_err());
    g.agree_draw().unwrap();
    assert!(matches!(g.may_decide_draw(South), Err(junqi::GameError::Play(PlayError::GameOver))));
}
