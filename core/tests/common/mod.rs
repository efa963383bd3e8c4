//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod soak;

use std::sync::Arc;

use junqi::{Game, Point, Position, PieceKind, RuleSet, Setup, Side};

pub fn classic() -> Arc<RuleSet> {
    RuleSet::preset("classic").unwrap()
}

pub fn rules_with(options_json: &str) -> Arc<RuleSet> {
    Arc::new(
        RuleSet::from_json(&format!(
            r#"{{"extends": "classic", "name": "classic-test", "options": {options_json}}}"#
        ))
        .unwrap(),
    )
}

pub fn pt(rules: &RuleSet, name: &str) -> Point {
    rules.board().point(name).unwrap_or_else(|| panic!("no point {name}"))
}

/// A position with pieces placed by name: `("a2", South, Engineer)`.
pub fn arrange(rules: &Arc<RuleSet>, pieces: &[(&str, Side, PieceKind)], to_act: Side) -> Position {
    let placed: Vec<_> = pieces.iter().map(|&(n, s, k)| (pt(rules, n), s, k)).collect();
    Position::from_arrangement(rules.clone(), &placed, to_act).unwrap()
}

/// Target names of the piece on `from` in the position (the side to act's piece).
pub fn targets(pos: &Position, from: &str) -> Vec<String> {
    let board = pos.rules().board();
    let from = board.point(from).unwrap();
    let mut v: Vec<String> = pos
        .legal_actions()
        .into_iter()
        .filter_map(|a| match a {
            junqi::Action::Move { from: f, to } if f == from => Some(board.name_of(to).to_owned()),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

pub fn names(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// A legal setup for `side` with the given kinds on the given points (the rest random).
pub fn setup_with(rules: &RuleSet, side: Side, wanted: &[(&str, PieceKind)]) -> Setup {
    'seed: for seed in 0..10_000u64 {
        let base = Setup::random(rules, side, seed);
        let mut map: Vec<(String, String)> = base.placements().to_vec();
        for &(point, kind) in wanted {
            let at = map.iter().position(|(p, _)| p == point).expect("point in the half");
            if map[at].1 == kind.id() {
                continue;
            }
            let Some(from) = map
                .iter()
                .position(|(p, k)| k == kind.id() && !wanted.iter().any(|(w, _)| w == p))
            else {
                continue 'seed;
            };
            let displaced = map[at].1.clone();
            map[at].1 = kind.id().to_owned();
            map[from].1 = displaced;
        }
        let mut s = Setup::new();
        for (p, k) in map {
            s.place(p, k);
        }
        if s.validate(rules, side).is_ok() {
            return s;
        }
    }
    panic!("no legal setup with {wanted:?}");
}

/// A game with both sides deployed from the given placements.
pub fn game_with(
    rules: &Arc<RuleSet>,
    south: &[(&str, PieceKind)],
    north: &[(&str, PieceKind)],
) -> Game {
    let mut g = Game::with_rules(rules.clone(), 0);
    g.deploy(Side::South, &setup_with(rules, Side::South, south)).unwrap();
    g.deploy(Side::North, &setup_with(rules, Side::North, north)).unwrap();
    g
}

/// `setup` with the kinds on the points named `a` and `b` exchanged.
pub fn swap_points(setup: &Setup, a: &str, b: &str) -> Setup {
    let kind_of = |n: &str| setup.placements().iter().find(|(p, _)| p == n).unwrap().1.clone();
    let (ka, kb) = (kind_of(a), kind_of(b));
    let mut s = Setup::new();
    for (p, k) in setup.placements() {
        s.place(p.clone(), if p == a { kb.clone() } else if p == b { ka.clone() } else { k.clone() });
    }
    s
}

/// 四国 dealt face down (a rule set a user can load), a player out after one time-out.
pub fn siguo_dealt() -> Arc<RuleSet> {
    Arc::new(
        RuleSet::from_json(
            r#"{"extends": "siguo", "name": "siguo-dealt",
                "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": true},
                "options": {"max_timeouts": 1}}"#,
        )
        .unwrap(),
    )
}

/// The preset `preset` with `kind` moving as `mobility` (a rule set a user can load,
/// named "t").
pub fn moving_as(preset: &str, kind: &str, mobility: &str) -> Arc<RuleSet> {
    let mut spec: serde_json::Value = serde_json::from_str(&RuleSet::preset(preset).unwrap().to_json()).unwrap();
    spec["movement"][kind] = serde_json::json!(mobility);
    let json = serde_json::json!({"extends": preset, "name": "t", "movement": spec["movement"]});
    Arc::new(RuleSet::from_json(&json.to_string()).unwrap())
}
