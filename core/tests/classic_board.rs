//! The classic board (docs/classic.md, "Board").
mod common;
use common::*;
use junqi::{Board, EdgeKind, Role, Side};

#[test]
fn sixty_points_with_roles_and_sides() {
    let rules = classic();
    let b = rules.board();
    assert_eq!(b.len(), 60);
    let role_names = |role: Role| {
        let mut v: Vec<&str> = b.points().filter(|&p| b.role(p) == role).map(|p| b.name_of(p)).collect();
        v.sort();
        v
    };
    assert_eq!(role_names(Role::Hq), vec!["b1", "b12", "d1", "d12"]);
    assert_eq!(
        role_names(Role::Camp),
        vec!["b10", "b3", "b5", "b8", "c4", "c9", "d10", "d3", "d5", "d8"]
    );
    for p in b.points() {
        let row: u8 = b.name_of(p)[1..].parse().unwrap();
        let side = if row <= 6 { Side::South } else { Side::North };
        assert_eq!(b.side_of(p), Some(side), "{}", b.name_of(p));
        let depth = if row <= 6 { row } else { 13 - row };
        assert_eq!(b.depth(p), depth);
    }
    assert_eq!(rules.deploy_points(Side::South).len(), 25);
    assert_eq!(rules.deploy_points(Side::North).len(), 25);
}

#[test]
fn edge_counts() {
    let b = classic().board().clone();
    assert_eq!(b.edge_count(EdgeKind::Railway), 35);
    // 33 orthogonal road edges a half + 16 camp diagonals a half.
    assert_eq!(b.edge_count(EdgeKind::Road), 2 * (33 + 16));
    let rail_points = b.points().filter(|&p| b.is_railway(p)).count();
    // rows 2, 6, 7, 11 (20 points) and columns a, e rows 3..5 and 8..10 (12 points).
    assert_eq!(rail_points, 32);
}

#[test]
fn named_edges() {
    let rules = classic();
    let b = rules.board();
    let e = |x: &str, y: &str| b.edge(pt(&rules, x), pt(&rules, y));
    // Front crossings: only a, c and e; b and d are mountains.
    assert_eq!(e("a6", "a7"), Some(EdgeKind::Railway));
    assert_eq!(e("c6", "c7"), Some(EdgeKind::Railway));
    assert_eq!(e("e6", "e7"), Some(EdgeKind::Railway));
    assert_eq!(e("b6", "b7"), None);
    assert_eq!(e("d6", "d7"), None);
    // Railway rows and columns.
    assert_eq!(e("a2", "b2"), Some(EdgeKind::Railway));
    assert_eq!(e("a5", "a6"), Some(EdgeKind::Railway));
    assert_eq!(e("e10", "e11"), Some(EdgeKind::Railway));
    // Roads.
    assert_eq!(e("a1", "a2"), Some(EdgeKind::Road));
    assert_eq!(e("c5", "c6"), Some(EdgeKind::Road));
    assert_eq!(e("b2", "b3"), Some(EdgeKind::Road));
    // Camp diagonals; c4's diagonals are the other camps.
    for (x, y) in [("b3", "a2"), ("b3", "c2"), ("b3", "a4"), ("b3", "c4"), ("c4", "d3"), ("c4", "b5"),
                   ("c4", "d5"), ("d5", "e6"), ("b5", "c6"), ("c9", "b8"), ("b10", "a11")] {
        assert_eq!(e(x, y), Some(EdgeKind::Road), "{x}-{y}");
    }
    // No diagonal between two non-camp points.
    assert_eq!(e("a1", "b2"), None);
    assert_eq!(e("c3", "b4"), None);
    // Every camp has exactly four diagonal neighbours.
    for camp in ["b3", "d3", "c4", "b5", "d5", "b10", "d10", "c9", "b8", "d8"] {
        let p = pt(&rules, camp);
        let (x, y) = b.coords(p);
        let diag = b.neighbours(p).iter().filter(|(q, _)| { let (a, c) = b.coords(*q); a != x && c != y }).count();
        assert_eq!(diag, 4, "{camp}");
    }
}

#[test]
fn straight_railway_lines() {
    let rules = classic();
    let b = rules.board();
    let mut lines: Vec<Vec<&str>> =
        b.rail_lines().iter().map(|l| l.iter().map(|&p| b.name_of(p)).collect()).collect();
    lines.sort();
    assert_eq!(lines.len(), 7);
    assert!(lines.contains(&vec!["a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11"]));
    assert!(lines.contains(&vec!["a7", "b7", "c7", "d7", "e7"]));
    assert!(lines.contains(&vec!["c6", "c7"]));
}

#[test]
fn json_round_trip_and_action_space() {
    let b = classic().board().clone();
    let json = serde_json::to_string(b.spec()).unwrap();
    let again = Board::from_json(&json).unwrap();
    assert_eq!(again.spec(), b.spec());
    // Every action index maps back to its pair.
    for i in 0..b.move_space() {
        let (from, to) = b.move_at(i).unwrap();
        assert_eq!(b.move_index(from, to), Some(i));
    }
    let a1 = b.point("a1").unwrap();
    let e12 = b.point("e12").unwrap();
    assert_eq!(b.move_index(a1, e12), None);
}
