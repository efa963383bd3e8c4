//! Deployment rules (docs/classic.md, "The rules": pieces and deployment): every error has its
//! own variant and message.
mod common;
use common::*;
use junqi::{Game, PieceKind, Role, Setup, SetupError, Side};

/// A valid South setup with one placement changed.
fn south_with(point: &str, kind: &str) -> Setup {
    let rules = classic();
    let base = setup_with(&rules, Side::South, &[]);
    let mut s = Setup::new();
    let mut replaced = false;
    for (p, k) in base.placements() {
        if p == point {
            s.place(p.clone(), kind);
            replaced = true;
        } else {
            s.place(p.clone(), k.clone());
        }
    }
    if !replaced {
        s.place(point, kind);
    }
    s
}

/// A valid South setup with the kinds on two points swapped.
fn south_swapped(kind_a: PieceKind, point: &str) -> Setup {
    let rules = classic();
    let base = Setup::random(&rules, Side::South, 3);
    let at_point = base.placements().iter().find(|(p, _)| p == point).unwrap().1.clone();
    let kind_point = base.placements().iter().find(|(_, k)| k == kind_a.id()).unwrap().0.clone();
    let mut s = Setup::new();
    for (p, k) in base.placements() {
        if *p == kind_point {
            s.place(p.clone(), at_point.clone());
        } else if p == point {
            s.place(p.clone(), kind_a.id());
        } else {
            s.place(p.clone(), k.clone());
        }
    }
    s
}

fn err(setup: &Setup) -> SetupError {
    setup.validate(&classic(), Side::South).unwrap_err()
}

#[test]
fn random_setups_are_legal_and_deterministic() {
    let rules = classic();
    for seed in 0..300 {
        for side in [Side::South, Side::North] {
            let s = Setup::random(&rules, side, seed);
            let d = s.validate(&rules, side).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(d.pieces().len(), 25);
            assert_eq!(s, Setup::random(&rules, side, seed));
        }
    }
    assert_ne!(Setup::random(&rules, Side::South, 1), Setup::random(&rules, Side::South, 2));
}

#[test]
fn flag_must_be_in_an_hq() {
    match err(&south_swapped(PieceKind::Flag, "c1")) {
        SetupError::WrongRole { kind: PieceKind::Flag, point, role: Role::Post, why } => {
            assert_eq!(point, "c1");
            assert!(why.contains("HQ"));
        }
        e => panic!("{e}"),
    }
    // Both HQs are fine.
    for hq in ["b1", "d1"] {
        assert!(south_swapped(PieceKind::Flag, hq).validate(&classic(), Side::South).is_ok());
    }
}

#[test]
fn mines_only_in_the_last_two_rows() {
    match err(&south_swapped(PieceKind::Mine, "a3")) {
        SetupError::WrongRow { kind: PieceKind::Mine, point, depth: 3, .. } => assert_eq!(point, "a3"),
        e => panic!("{e}"),
    }
    assert!(south_swapped(PieceKind::Mine, "e2").validate(&classic(), Side::South).is_ok());
    let msg = err(&south_swapped(PieceKind::Mine, "a6")).to_string();
    assert!(msg.contains("mine") && msg.contains("a6") && msg.contains("last two rows"), "{msg}");
}

#[test]
fn bombs_not_in_the_front_row() {
    match err(&south_swapped(PieceKind::Bomb, "c6")) {
        SetupError::WrongRow { kind: PieceKind::Bomb, point, depth: 6, .. } => assert_eq!(point, "c6"),
        e => panic!("{e}"),
    }
    assert!(south_swapped(PieceKind::Bomb, "c5").validate(&classic(), Side::South).is_ok());
}

#[test]
fn camps_start_empty() {
    match err(&south_with("c4", "engineer")) {
        SetupError::NotDeployable { point, role: Role::Camp } => assert_eq!(point, "c4"),
        e => panic!("{e}"),
    }
}

#[test]
fn points_outside_the_half() {
    assert_eq!(
        err(&south_with("a7", "engineer")),
        SetupError::OutsideHalf { point: "a7".into(), side: Side::South }
    );
}

#[test]
fn unknown_points_and_kinds() {
    assert_eq!(err(&south_with("z9", "engineer")), SetupError::UnknownPoint("z9".into()));
    assert_eq!(err(&south_with("a1", "general")), SetupError::UnknownKind("general".into()));
    assert_eq!(
        err(&south_with("a1", "tank")),
        SetupError::KindNotInRuleSet { kind: PieceKind::Tank, rules: "classic".into() }
    );
}

#[test]
fn wrong_counts() {
    // a1 holds something; replace it by a fourth engineer (or a different kind).
    let rules = classic();
    let base = Setup::random(&rules, Side::South, 3);
    let (p, k) = base.placements().iter().find(|(_, k)| k != "engineer" && k != "flag").unwrap().clone();
    let mut s = Setup::new();
    for (q, kk) in base.placements() {
        s.place(q.clone(), if *q == p { "engineer".to_string() } else { kk.clone() });
    }
    let e = s.validate(&rules, Side::South).unwrap_err();
    let kind: PieceKind = k.parse().unwrap();
    let (lo, hi) = if kind < PieceKind::Engineer { (kind, PieceKind::Engineer) } else { (PieceKind::Engineer, kind) };
    // The first kind (in catalogue order) whose count is off is reported.
    match e {
        SetupError::WrongCount { kind: reported, expected, found } => {
            assert_eq!(reported, lo);
            if lo == PieceKind::Engineer {
                assert_eq!((expected, found), (3, 4));
            } else {
                assert_eq!(found + 1, expected);
            }
            let _ = hi;
        }
        e => panic!("{e}"),
    }
    // A missing piece.
    let mut short = Setup::new();
    for (q, kk) in base.placements().iter().skip(1) {
        short.place(q.clone(), kk.clone());
    }
    assert!(matches!(short.validate(&rules, Side::South), Err(SetupError::WrongCount { .. })));
}

#[test]
fn duplicate_points() {
    let rules = classic();
    let json = r#"{"a1": "engineer", "a1": "mine"}"#;
    let s = Setup::from_json(json).unwrap();
    assert_eq!(s.validate(&rules, Side::South).unwrap_err(), SetupError::PointTwice("a1".into()));
}

#[test]
fn malformed_json_and_wrong_side() {
    assert!(matches!(Setup::from_json("[1, 2]"), Err(SetupError::Json(_))));
    assert!(matches!(Setup::from_json("{\"a1\": 3}"), Err(SetupError::Json(_))));
    let s = Setup::random(&classic(), Side::South, 1);
    assert_eq!(
        s.validate(&classic(), Side::East).unwrap_err(),
        SetupError::NoSuchSide { side: Side::East, rules: "classic".into() }
    );
}

#[test]
fn chinese_names_and_json_round_trip() {
    let rules = classic();
    let s = Setup::random(&rules, Side::North, 5);
    let zh = Setup::from_json(
        &s.to_json().replace("\"engineer\"", "\"工兵\"").replace("\"flag\"", "\"軍旗\""),
    )
    .unwrap();
    assert_eq!(zh.validate(&rules, Side::North).unwrap(), s.validate(&rules, Side::North).unwrap());
    assert_eq!(Setup::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn game_deploy_errors_leave_the_game_unchanged() {
    let mut g = Game::new("classic", 0).unwrap();
    let bad = south_with("c4", "engineer");
    assert!(g.deploy(Side::South, &bad).is_err());
    assert_eq!(g.deployed(), junqi::SideSet::EMPTY);
    g.deploy_random(Side::North, 1).unwrap();
    g.deploy_random(Side::South, 2).unwrap();
    assert_eq!(g.phase(), junqi::Phase::Move);
    assert!(g.deploy_random(Side::South, 3).is_err());
}

#[test]
fn unsatisfiable_constraints_are_an_error_not_a_panic() {
    // Three mines, but a custom rule lets them stand only in the HQs (two points).
    let rules = std::sync::Arc::new(
        junqi::RuleSet::from_json(
            r#"{"extends": "classic", "name": "broken", "deployment": {"roles": ["post", "hq"],
                "constraints": [{"kind": "mine", "roles": ["hq"]}]}}"#,
        )
        .unwrap(),
    );
    assert!(junqi::Deployment::try_random(&rules, Side::South, 1).is_none());
    let mut g = Game::with_rules(rules, 1);
    assert_eq!(
        g.deploy_random(Side::South, 1).unwrap_err().to_string(),
        "no setup satisfies the deployment constraints of broken"
    );
}
