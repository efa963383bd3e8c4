//! The 海陆空三军棋 board (docs/sanjun.md, section 1) as data: the counts the seeds
//! agree on, the reconstruction's named points and edges, and the air lattice. (The
//! sanjun rule sets themselves are issue #5's next step.)
use junqi::{Board, EdgeKind, Role, Side};

fn board() -> std::sync::Arc<Board> {
    Board::preset("sanjun").unwrap()
}

fn count(b: &Board, side: Option<Side>, role: Role) -> usize {
    b.points().filter(|&p| b.role(p) == role && (side.is_none() || b.side_of(p) == side)).count()
}

#[test]
fn counts_per_side() {
    let b = board();
    assert_eq!(b.len(), 106 + 72, "106 surface points and a 9 x 8 air lattice");
    for side in [Side::South, Side::North] {
        let s = Some(side);
        let land = [Role::Post, Role::HarbourMouth, Role::Stronghold, Role::Pier, Role::Camp, Role::Hq];
        assert_eq!(land.iter().map(|r| count(&b, s, *r)).sum::<usize>(), 37, "{side}: 37 land points");
        assert_eq!(count(&b, s, Role::Post) + count(&b, s, Role::HarbourMouth), 20, "{side}: 20 posts");
        assert_eq!(count(&b, s, Role::HarbourMouth), 5);
        assert_eq!(count(&b, s, Role::Stronghold) + count(&b, s, Role::Pier), 12, "{side}: 12 strongholds");
        assert_eq!(count(&b, s, Role::Camp), 2);
        assert_eq!(count(&b, s, Role::Hq), 3);
        assert_eq!(count(&b, s, Role::Anchorage), 5);
        assert_eq!(count(&b, s, Role::Airport), 2);
    }
    let sea = count(&b, None, Role::Sea) + count(&b, None, Role::Anchorage);
    assert_eq!(sea, 32, "rows 6-9 less the four piers");
    assert_eq!(count(&b, None, Role::Air) + count(&b, None, Role::Airport), 72);
}

#[test]
fn edge_counts() {
    let b = board();
    assert_eq!(b.edge_count(EdgeKind::Railway), 22, "the ring");
    assert_eq!(b.edge_count(EdgeKind::Road), 2 * (52 + 4), "5 x 7 grid less ring edges, plus camp diagonals");
    assert_eq!(b.edge_count(EdgeKind::Sea), 47);
    assert_eq!(b.edge_count(EdgeKind::Coast), 2 * (5 + 6));
    assert_eq!(b.edge_count(EdgeKind::Air), 9 * 7 + 8 * 8);
}

#[test]
fn named_points_and_edges() {
    let b = board();
    let p = |n: &str| b.point(n).unwrap_or_else(|| panic!("{n}"));
    let kinds = |x: &str, y: &str| {
        let mut v: Vec<EdgeKind> = b.edges_between(p(x), p(y)).collect();
        v.sort();
        v
    };
    // Surface and air positions never mix: a1 is an airport in the air only, c6 a pier.
    assert!(b.point("a1").is_none());
    assert_eq!(b.role(p("a1^")), Role::Airport);
    assert_eq!(b.role(p("i14^")), Role::Airport);
    assert!(b.point("c6^").is_none(), "row 6 is not an air row");
    assert_eq!(b.role(p("c6")), Role::Pier);
    assert_eq!(b.role(p("g9")), Role::Pier);
    assert_eq!(b.role(p("e1")), Role::Hq);
    assert_eq!(b.role(p("e14")), Role::Hq);
    assert_eq!(b.role(p("b4")), Role::Camp);
    assert_eq!(b.role(p("h11")), Role::Camp);
    assert_eq!(b.role(p("d5")), Role::HarbourMouth);
    assert_eq!(b.role(p("e6")), Role::Anchorage);
    assert_eq!(b.side_of(p("e9")), Some(Side::North));
    assert_eq!(b.role(p("c7")), Role::Sea);
    assert_eq!((b.depth(p("c6")), b.depth(p("g9"))), (6, 6));
    // A pier meets its bridge by railway and by the coast; bridge points are sea and rail.
    assert_eq!(kinds("c6", "c7"), vec![EdgeKind::Railway, EdgeKind::Coast]);
    assert_eq!(kinds("c7", "c8"), vec![EdgeKind::Railway, EdgeKind::Sea]);
    assert_eq!(kinds("c6", "b6"), vec![EdgeKind::Coast]);
    assert_eq!(kinds("d5", "d6"), vec![EdgeKind::Coast]);
    assert_eq!(kinds("c5", "c6"), vec![EdgeKind::Railway]);
    assert_eq!(kinds("b4", "c3"), vec![EdgeKind::Road]);
    assert_eq!(kinds("c4", "d4"), vec![EdgeKind::Railway]);
    assert_eq!(kinds("b5", "c5"), vec![EdgeKind::Road]);
    assert!(kinds("b5", "b6") == vec![EdgeKind::Coast]);
    assert!(kinds("a6", "b6") == vec![EdgeKind::Sea]);
    assert!(kinds("b4", "b3") == vec![EdgeKind::Road]);
    assert!(kinds("e5", "e4").contains(&EdgeKind::Road));
    assert!(b.edges_between(p("c5"), p("d5")).next().is_some());
    assert!(b.edges_between(p("b6"), p("b7")).eq([EdgeKind::Sea]));
    assert!(b.edges_between(p("b1"), p("b1^")).next().is_none(), "surface and air are not joined");
    // Air lines: 9 vertical lines of 8 positions and 8 horizontal lines of 9.
    let lines = b.air_lines();
    assert_eq!(lines.len(), 17);
    assert_eq!(lines.iter().filter(|l| l.len() == 8).count(), 9);
    assert_eq!(lines.iter().filter(|l| l.len() == 9).count(), 8);
    assert_eq!(b.edge(p("e7^"), p("e8^")), Some(EdgeKind::Air));
    assert_eq!(b.edge(p("e5^"), p("e7^")), Some(EdgeKind::Air), "consecutive lattice rows");
}

#[test]
fn north_is_south_rotated() {
    let b = board();
    for p in b.points() {
        let name = b.name_of(p);
        let (x, y) = b.coords(p);
        let air = name.ends_with('^');
        let rotated = format!("{}{}{}", (b'a' + 8 - x) as char, 15 - (y as u32 + 1), if air { "^" } else { "" });
        let q = b.point(&rotated).unwrap_or_else(|| panic!("{name} has no image {rotated}"));
        assert_eq!(b.role(p), b.role(q), "{name} / {rotated}");
        let flip = |s: Option<Side>| s.map(|s| if s == Side::South { Side::North } else { Side::South });
        assert_eq!(b.side_of(q), flip(b.side_of(p)), "{name} / {rotated}");
        assert_eq!(b.neighbours(p).len(), b.neighbours(q).len(), "{name} / {rotated}");
    }
}
