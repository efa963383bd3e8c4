//! The combat table (docs/classic.md, "The rules": combat), every attacker × defender pair against
//! an independent reading of the rules, under each table option.
mod common;
use common::*;
use junqi::{resolve, CombatOutcome, PieceKind, PieceKind::*, RuleSet};

fn rank(k: PieceKind) -> u8 {
    match k {
        Commander => 9,
        ArmyCommander => 8,
        DivisionCommander => 7,
        BrigadeCommander => 6,
        RegimentCommander => 5,
        BattalionCommander => 4,
        CompanyCommander => 3,
        PlatoonLeader => 2,
        Engineer => 1,
        _ => unreachable!(),
    }
}

/// docs/classic.md's combat rules, written out independently of the JSON table.
fn expected(a: PieceKind, d: PieceKind, mine_survives: bool, bomb_may_hit_flag: bool) -> CombatOutcome {
    if matches!(a, Flag | Mine) {
        return CombatOutcome::Illegal; // never move, so never attack
    }
    if d == Flag {
        // "Bomb: both leave the board, whatever the other piece is (a bomb that hits the
        // flag captures it)"; any other attacker captures it and takes the point.
        return match (a, bomb_may_hit_flag) {
            (Bomb, true) => CombatOutcome::Both,
            (Bomb, false) => CombatOutcome::Repel,
            _ => CombatOutcome::Win,
        };
    }
    if a == Bomb || d == Bomb {
        return CombatOutcome::Both;
    }
    if d == Mine {
        return if a == Engineer {
            CombatOutcome::Win
        } else if mine_survives {
            CombatOutcome::Lose
        } else {
            CombatOutcome::Both
        };
    }
    match rank(a).cmp(&rank(d)) {
        std::cmp::Ordering::Greater => CombatOutcome::Win,
        std::cmp::Ordering::Equal => CombatOutcome::Both,
        std::cmp::Ordering::Less => CombatOutcome::Lose,
    }
}

fn check_all(rules: &RuleSet, mine_survives: bool, bomb_may_hit_flag: bool) {
    let kinds: Vec<PieceKind> = rules.army().map(|(k, _)| k).collect();
    assert_eq!(kinds.len(), 12);
    for &a in &kinds {
        for &d in &kinds {
            assert_eq!(
                resolve(rules, a, d),
                expected(a, d, mine_survives, bomb_may_hit_flag),
                "{a} attacking {d} (mine_survives={mine_survives}, bomb_may_hit_flag={bomb_may_hit_flag})"
            );
        }
    }
    // Kinds outside the army are never legal.
    assert_eq!(resolve(rules, Tank, Engineer), CombatOutcome::Illegal);
    assert_eq!(resolve(rules, Engineer, Submarine), CombatOutcome::Illegal);
}

#[test]
fn every_pair_default_options() {
    check_all(&classic(), true, true);
}

#[test]
fn every_pair_mine_dies_with_its_attacker() {
    check_all(&rules_with(r#"{"mine_survives": false}"#), false, true);
}

#[test]
fn every_pair_bomb_may_not_hit_flag() {
    check_all(&rules_with(r#"{"bomb_may_hit_flag": false}"#), true, false);
}

#[test]
fn spot_checks() {
    let r = classic();
    assert_eq!(resolve(&r, Commander, ArmyCommander), CombatOutcome::Win);
    assert_eq!(resolve(&r, PlatoonLeader, Engineer), CombatOutcome::Win);
    assert_eq!(resolve(&r, Engineer, Commander), CombatOutcome::Lose);
    assert_eq!(resolve(&r, DivisionCommander, DivisionCommander), CombatOutcome::Both);
    assert_eq!(resolve(&r, Engineer, Mine), CombatOutcome::Win);
    assert_eq!(resolve(&r, Commander, Mine), CombatOutcome::Lose);
    assert_eq!(resolve(&r, Bomb, Mine), CombatOutcome::Both);
    assert_eq!(resolve(&r, Bomb, Flag), CombatOutcome::Both);
    assert_eq!(resolve(&r, Engineer, Flag), CombatOutcome::Win);
}

#[test]
fn combat_on_the_board() {
    use junqi::{Action, Side::*};
    let r = classic();
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    // Win: the attacker takes the point.
    let mut pos = arrange(&r, &[("c5", South, Commander), ("c6", North, Engineer), ("a12", North, Engineer)], South);
    let out = pos.play(mv("c5", "c6")).unwrap();
    assert_eq!(out.combat, Some((North, Engineer, CombatOutcome::Win)));
    assert_eq!(pos.piece_at(pt(&r, "c6")), Some((South, Commander)));
    assert_eq!(pos.piece_at(pt(&r, "c5")), None);
    // Lose: the attacker leaves, the defender stays.
    let mut pos = arrange(&r, &[("c5", South, Engineer), ("c6", North, Commander), ("a12", North, Engineer)], South);
    pos.play(mv("c5", "c6")).unwrap();
    assert_eq!(pos.piece_at(pt(&r, "c6")), Some((North, Commander)));
    assert_eq!(pos.piece_at(pt(&r, "c5")), None);
    // Both: the point is empty afterwards.
    let mut pos = arrange(&r, &[("c5", South, Bomb), ("c6", North, Commander), ("a12", North, Engineer)], South);
    pos.play(mv("c5", "c6")).unwrap();
    assert_eq!(pos.piece_at(pt(&r, "c6")), None);
    assert_eq!(pos.piece_at(pt(&r, "c5")), None);
    // An engineer digs a mine out and takes its point; anybody else dies on it.
    let mut pos = arrange(&r, &[("c5", South, Engineer), ("c6", North, Mine), ("a12", North, Engineer)], South);
    pos.play(mv("c5", "c6")).unwrap();
    assert_eq!(pos.piece_at(pt(&r, "c6")), Some((South, Engineer)));
    let mut pos = arrange(&r, &[("c5", South, Commander), ("c6", North, Mine), ("a12", North, Engineer)], South);
    pos.play(mv("c5", "c6")).unwrap();
    assert_eq!(pos.piece_at(pt(&r, "c6")), Some((North, Mine)));
    // Repel (bomb_may_hit_flag off): nobody moves, the turn passes.
    let r2 = rules_with(r#"{"bomb_may_hit_flag": false}"#);
    let mv2 = |f: &str, t: &str| Action::Move { from: pt(&r2, f), to: pt(&r2, t) };
    let mut pos = arrange(&r2, &[("b2", South, Bomb), ("b1", North, Flag), ("a12", North, Engineer)], South);
    let out = pos.play(mv2("b2", "b1")).unwrap();
    assert_eq!(out.combat, Some((North, Flag, CombatOutcome::Repel)));
    assert_eq!(pos.piece_at(pt(&r2, "b2")), Some((South, Bomb)));
    assert_eq!(pos.piece_at(pt(&r2, "b1")), Some((North, Flag)));
    assert_eq!(pos.result(), None);
    assert_eq!(pos.to_act(), Some(North));
}

#[test]
fn shelter_and_guard_options_repel_unseen_targets_outside_fanqi() {
    // In a face-down game the mover cannot know the kind in the HQ or whether a flag's
    // mines remain: the attack is legal (legality never uses a hidden identity) and the
    // referee rules it repelled.
    use junqi::{Action, Side::*};
    let r = rules_with(r#"{"hq_shelter": true, "flag_guarded_by_mines": true}"#);
    let mv = |f: &str, t: &str| Action::Move { from: pt(&r, f), to: pt(&r, t) };
    let mut pos = arrange(
        &r,
        &[("b11", South, Commander), ("d11", South, Engineer), ("b12", North, DivisionCommander),
          ("d12", North, Flag), ("a12", North, Mine), ("e12", North, Engineer)],
        South,
    );
    assert!(pos.is_legal(mv("b11", "b12")));
    let out = pos.play(mv("b11", "b12")).unwrap();
    assert_eq!(out.combat, Some((North, DivisionCommander, CombatOutcome::Repel)));
    assert_eq!(pos.piece_at(pt(&r, "b12")), Some((North, DivisionCommander)));
    pos.play(mv("e12", "e11")).unwrap();
    let out = pos.play(mv("d11", "d12")).unwrap();
    assert_eq!(out.combat, Some((North, Flag, CombatOutcome::Repel)), "the flag's mine still stands");
    assert!(pos.result().is_none());
}
