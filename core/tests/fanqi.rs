//! 翻棋 (docs/fanqi.md): the face-down deal, flips, colours fixed by the first flip,
//! attacks on face-up pieces only, HQ shelter, the flag guarded by its mines, losing
//! the movable pieces, the draw rule counting flips as progress.
mod common;
use std::sync::Arc;

use common::*;
use junqi::{Action, EndReason, Event, Game, PieceKind, PieceKind::*, PlayError, Position, RuleSet, Side, Side::*};

fn fanqi() -> Arc<RuleSet> {
    RuleSet::preset("fanqi").unwrap()
}

/// A game dealt with the given pieces on the given points (the rest as seed 1 deals).
fn dealt(rules: &Arc<RuleSet>, wanted: &[(&str, Side, PieceKind)]) -> Game {
    let deal = Position::deal_for(rules, 1);
    let mut pool: Vec<(Side, PieceKind)> = deal.iter().map(|d| (d.1, d.2)).collect();
    for &(_, army, kind) in wanted {
        let i = pool.iter().position(|c| *c == (army, kind)).expect("the army has that piece");
        pool.remove(i);
    }
    let mut pool = pool.into_iter();
    let deal: Vec<_> = deal
        .iter()
        .map(|d| match wanted.iter().find(|w| pt(rules, w.0) == d.0) {
            Some(&(_, army, kind)) => (d.0, army, kind),
            None => {
                let (army, kind) = pool.next().unwrap();
                (d.0, army, kind)
            }
        })
        .collect();
    Game::with_deal(rules.clone(), 1, &deal).unwrap()
}

fn play(g: &mut Game, text: &str) -> junqi::Report {
    g.play_notation(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn the_deal_is_face_down_and_seeded() {
    let r = fanqi();
    let g = Game::with_rules(r.clone(), 7);
    assert_eq!(g.phase(), junqi::Phase::Move);
    assert_eq!(g.to_act(), Some(South));
    let v = g.view(South);
    assert_eq!(v.pieces.len(), 50);
    assert!(v.pieces.iter().all(|p| p.owner.is_none() && p.kind.is_none()));
    assert!(v.pieces.iter().all(|p| r.board().role(p.point) != junqi::Role::Camp), "camps start empty");
    assert_eq!(v.army, None);
    assert_eq!(Position::deal_for(&r, 7), Position::deal_for(&r, 7));
    assert_ne!(Position::deal_for(&r, 7), Position::deal_for(&r, 8));
    // Before any flip the only actions are the 50 flips, indexed after the moves.
    let actions = g.legal_actions();
    assert_eq!(actions.len(), 50);
    assert!(actions.iter().all(|a| matches!(a, Action::Flip { .. })));
    let ids = g.legal_action_ids();
    assert!(ids.iter().all(|&i| i >= r.board().move_space() && i < r.action_space()));
    assert!(g.clone().deploy_random(South, 1).is_err(), "nothing to deploy");
}

#[test]
fn a_deal_onto_a_camp_is_refused_as_such() {
    // Found by the `deal` fuzz target once it checked the refusals' kinds: a piece dealt
    // onto the camp b8 was refused as "unknown point \"b8\"" (kind unknown_name), of
    // a point the board has.
    let r = fanqi();
    let mut deal = Position::deal_for(&r, 7);
    deal[0].0 = pt(&r, "b8");
    let e = Game::with_deal(r.clone(), 1, &deal).unwrap_err();
    assert_eq!(e.to_string(), "nothing may be deployed on b8: it is a camp, and camps start empty");
    assert_eq!(junqi::Error::kind(&e), junqi::ErrorKind::InvalidSetup);
}

#[test]
fn the_first_flip_fixes_the_colours() {
    let r = fanqi();
    let mut g = dealt(&r, &[("c6", North, Commander)]);
    let report = play(&mut g, "flip c6");
    assert_eq!(report.public[0], Event::Flipped { side: South, point: pt(&r, "c6"), owner: North, kind: Commander });
    assert!(report.public.contains(&Event::ArmyAssigned { player: South, army: North }));
    assert!(report.public.contains(&Event::ArmyAssigned { player: North, army: South }));
    assert_eq!(g.position().army_of(South), Some(North));
    assert_eq!(g.view(North).army, Some(South));
    // Face-up identities are public.
    let seen = g.view(North).pieces.into_iter().find(|p| p.point == pt(&r, "c6")).unwrap();
    assert_eq!((seen.owner, seen.kind), (Some(North), Some(Commander)));
    // Flipping twice is refused.
    assert_eq!(
        g.play_notation("flip c6").unwrap_err().to_string(),
        "the piece on c6 is already face up"
    );
}

#[test]
fn only_face_up_pieces_are_attacked_and_face_down_ones_block() {
    let r = fanqi();
    let mut g = dealt(&r, &[("c6", South, Commander), ("c7", North, Engineer), ("e1", South, Mine)]);
    play(&mut g, "flip c6"); // South commands south
    play(&mut g, "flip e1"); // North flips something else
    let err = g.play_notation("c6-c7").unwrap_err();
    assert!(matches!(err, junqi::GameError::Play(PlayError::TargetFaceDown(_))), "{err}");
    // A face-down piece cannot move either.
    assert!(matches!(g.play_notation("c5-c4").unwrap_err(), junqi::GameError::Play(PlayError::FaceDown(_))));
    play(&mut g, "flip c7"); // South flips the north engineer
    play(&mut g, "flip a1"); // North flips anything
    let report = play(&mut g, "c6-c7");
    assert!(matches!(report.public[0], Event::Attacked { outcome: junqi::CombatOutcome::Win, .. }));
}

#[test]
fn hq_shelters_all_but_mines_and_flags_and_hq_pieces_move() {
    let r = fanqi();
    let mut g = dealt(
        &r,
        &[("b11", South, Commander), ("b12", North, DivisionCommander), ("d11", South, Engineer), ("d12", North, Mine)],
    );
    for p in ["b11", "b12", "d11", "d12"] {
        play(&mut g, &format!("flip {p}"));
    }
    // South commands south (first flip). b12 holds a sheltered division commander.
    assert!(matches!(g.play_notation("b11-b12").unwrap_err(), junqi::GameError::Play(PlayError::ProtectedByHq(_))));
    // A mine in an HQ can be attacked.
    play(&mut g, "d11-d12");
    assert_eq!(g.position().piece_at(pt(&r, "d12")), Some((South, Engineer)));
    // North's division commander in the HQ may still move (no HQ lock in 翻棋): it can
    // attack the commander on b11.
    assert!(g.legal_actions().contains(&Action::Move { from: pt(&r, "b12"), to: pt(&r, "b11") }));
}

#[test]
fn the_flag_is_guarded_by_its_mines() {
    let r = fanqi();
    let mut g = dealt(
        &r,
        &[
            ("a8", South, Engineer), ("b12", South, Commander),
            ("a9", North, Mine), ("a10", North, Mine), ("a11", North, Mine), ("a12", North, Flag),
        ],
    );
    for p in ["a8", "a9", "a10", "a11", "a12", "b12"] {
        play(&mut g, &format!("flip {p}"));
    }
    // South (south army) to act; the north flag still has three mines.
    assert_eq!(g.to_act(), Some(South));
    let err = g.play_notation("b12-a12").unwrap_err();
    assert_eq!(err.to_string(), "the flag on a12 cannot be attacked while its side still has mines");
    for (dig, north_flip) in [("a8-a9", "flip e12"), ("a9-a10", "flip e11"), ("a10-a11", "flip e10")] {
        play(&mut g, dig);
        assert!(g.result().is_none());
        play(&mut g, north_flip);
    }
    let report = play(&mut g, "b12-a12");
    let result = g.result().unwrap();
    assert_eq!(result.winner(), Some(South));
    assert_eq!(result.reason, EndReason::FlagCaptured);
    assert!(matches!(report.public.last(), Some(Event::GameOver { .. })));
}

#[test]
fn flips_count_as_progress_for_the_draw() {
    let r = Arc::new(RuleSet::from_json(r#"{"extends": "fanqi", "name": "f", "options": {"no_capture_draw_plies": 6}}"#).unwrap());
    let mut g = dealt(&r, &[("b4", South, Commander), ("b9", North, Commander)]);
    play(&mut g, "flip b4");
    play(&mut g, "flip b9");
    assert_eq!(g.position().no_capture_plies(), 0);
    for m in ["b4-b3", "b9-b8", "b3-b4", "b8-b9", "b4-b3"] {
        play(&mut g, m);
        assert!(g.result().is_none());
    }
    play(&mut g, "b9-b8");
    assert_eq!(g.result().unwrap().reason, EndReason::NoCaptureLimit);
}

#[test]
fn random_games_end_and_replay() {
    let r = fanqi();
    for seed in 0..60 {
        let mut g = Game::with_rules(r.clone(), seed);
        let mut rng = junqi::Rng::new(seed);
        while g.result().is_none() {
            let a = g.legal_actions();
            g.play(a[rng.below(a.len())]).unwrap();
        }
        let result = g.result().unwrap();
        // (When one capture takes both armies' last movable pieces, the ending is
        // simultaneous; that case is the draw rule's, not checked here.)
        let simultaneous = !g.position().pieces().any(|(_, _, k)| !matches!(k, Flag | Mine));
        if result.reason == EndReason::NoMovablePieces && !simultaneous {
            // The loser's army has no piece that can move; the winner's has.
            let winner = result.winner().unwrap();
            let win_army = g.position().army_of(winner).unwrap();
            let lose_army = if win_army == South { North } else { South };
            let mobile = |army| g.position().pieces().any(|(_, s, k)| s == army && !matches!(k, Flag | Mine));
            assert!(!mobile(lose_army) && mobile(win_army), "seed {seed}");
        }
        let json = g.record().to_json();
        let again = Game::from_record(&junqi::Record::from_json(&json).unwrap()).unwrap();
        assert!(again.position().same_state(g.position()), "seed {seed}");
    }
}

#[test]
fn losing_the_commander_reveals_no_face_down_flag() {
    let r = fanqi();
    let mut g = dealt(&r, &[("c6", South, Bomb), ("c7", North, Commander), ("a12", North, Flag)]);
    play(&mut g, "flip c6"); // South commands south
    play(&mut g, "flip c7");
    play(&mut g, "c6-c7"); // bomb and commander both leave
    assert!(g.position().piece_at(pt(&r, "c7")).is_none());
    for player in [South, North] {
        let flag = g.view(player).pieces.into_iter().find(|p| p.point == pt(&r, "a12")).unwrap();
        assert_eq!((flag.owner, flag.kind), (None, None), "{player}");
    }
    assert!(!g.events(South).iter().any(|e| matches!(e, Event::Revealed { .. })));
}

#[test]
fn bad_deals_are_refused() {
    let r = fanqi();
    let mut deal = Position::deal_for(&r, 1);
    deal.pop();
    assert!(matches!(Game::with_deal(r.clone(), 1, &deal), Err(junqi::GameError::Setup(_))));
    let full = Position::deal_for(&r, 1);
    let mut twice = full.clone();
    twice[0].0 = twice[1].0;
    assert!(Game::with_deal(r.clone(), 1, &twice).is_err());
    assert!(matches!(
        Game::with_deal(RuleSet::preset("classic").unwrap(), 1, &full),
        Err(junqi::GameError::Setup(junqi::SetupError::NotDealt(_)))
    ));
}
