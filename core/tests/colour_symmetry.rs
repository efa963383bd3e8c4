//! Colours are labels: exchanging the armies' labels — mirrored setups or deal, mirrored
//! actions on the mirrored board, the turn order carried along — mirrors every report,
//! view, legal-action list and result. A rule that consults a side's name (say, the
//! first army in a list) instead of the position breaks this.
//!
//! The mirror is found from the board data: a symmetry of the drawing grid (one of the
//! eight of the square) that maps points onto points with the same role, depth and
//! edges, and each side's half onto its image's half. The classic and land-sea-air
//! boards are symmetric under the 180° turn that swaps south and north; the four-player
//! board under the quarter turn that takes south to east, east to north and so on.
//! Every preset board has such a symmetry, so nothing is left unmirrored.
mod common;

use std::sync::Arc;

use junqi::{Action, Board, Game, Point, Position, RuleSet, Setup, Side};
use serde_json::Value;

/// A label map on sides and the board symmetry that goes with it.
struct Mirror {
    side: [Side; 4],
    point: Vec<Point>,
}

impl Mirror {
    fn side(&self, s: Side) -> Side {
        self.side[s as usize]
    }

    fn point(&self, p: Point) -> Point {
        self.point[p.index()]
    }

    fn action(&self, a: Action) -> Action {
        match a {
            Action::Move { from, to } => Action::Move { from: self.point(from), to: self.point(to) },
            Action::Flip { at } => Action::Flip { at: self.point(at) },
            other => panic!("no mirror for {other:?}"),
        }
    }

    /// A JSON value with every point name and side name (values and object keys)
    /// replaced by its image.
    fn json(&self, board: &Board, v: &Value) -> Value {
        let name = |s: &str| -> String {
            if let Some(p) = board.point(s) {
                return board.name_of(self.point(p)).to_owned();
            }
            match Side::ALL.iter().find(|x| x.name() == s) {
                Some(&x) => self.side(x).name().to_owned(),
                None => s.to_owned(),
            }
        };
        match v {
            Value::String(s) => Value::String(name(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|x| self.json(board, x)).collect())
            }
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (name(k), self.json(board, x))).collect()),
            other => other.clone(),
        }
    }
}

/// The eight symmetries of a `w` × `h` grid (those that fit it).
fn grid_maps(w: i32, h: i32) -> Vec<Box<dyn Fn(i32, i32) -> (i32, i32)>> {
    let mut maps: Vec<Box<dyn Fn(i32, i32) -> (i32, i32)>> = vec![
        Box::new(move |x, y| (w - 1 - x, h - 1 - y)),
        Box::new(move |x, y| (x, h - 1 - y)),
        Box::new(move |x, y| (w - 1 - x, y)),
    ];
    if w == h {
        maps.push(Box::new(move |x, y| (y, w - 1 - x)));
        maps.push(Box::new(move |x, y| (w - 1 - y, x)));
        maps.push(Box::new(move |x, y| (y, x)));
        maps.push(Box::new(move |x, y| (w - 1 - y, h - 1 - x)));
    }
    maps
}

/// A board symmetry carrying each side's half to `side_map`'s image, if one exists.
fn find_mirror(board: &Board, side_map: [Side; 4]) -> Option<Mirror> {
    let (w, h) = board.grid_size();
    let at = |x: i32, y: i32, air: bool| {
        board.points().find(|&q| {
            let (qx, qy) = board.coords(q);
            (qx as i32, qy as i32) == (x, y) && board.is_air(q) == air
        })
    };
    'maps: for f in grid_maps(w as i32, h as i32) {
        let mut point = Vec::with_capacity(board.len());
        for p in board.points() {
            let (x, y) = board.coords(p);
            let (mx, my) = f(x as i32, y as i32);
            let Some(q) = at(mx, my, board.is_air(p)) else { continue 'maps };
            if board.role(q) != board.role(p)
                || board.depth(q) != board.depth(p)
                || board.side_of(q) != board.side_of(p).map(|s| side_map[s as usize])
            {
                continue 'maps;
            }
            point.push(q);
        }
        for p in board.points() {
            for &(r, kind) in board.neighbours(p) {
                if !board.edges_between(point[p.index()], point[r.index()]).any(|k| k == kind) {
                    continue 'maps;
                }
            }
        }
        let lines = |ls: &[Vec<Point>], map: &dyn Fn(Point) -> Point| {
            let mut v: Vec<Vec<Point>> = ls
                .iter()
                .map(|l| {
                    let mut m: Vec<Point> = l.iter().map(|p| map(*p)).collect();
                    m.sort();
                    m
                })
                .collect();
            v.sort();
            v
        };
        let id = |p: Point| p;
        let img = |p: Point| point[p.index()];
        if lines(board.rail_lines(), &img) != lines(board.rail_lines(), &id)
            || lines(board.air_lines(), &img) != lines(board.air_lines(), &id)
        {
            continue 'maps;
        }
        return Some(Mirror { side: side_map, point });
    }
    None
}

/// The rule set with its sides renamed by the mirror (turn order and teams carried).
fn mirrored_rules(rules: &RuleSet, m: &Mirror) -> Arc<RuleSet> {
    let sides: Vec<&str> = rules.sides().iter().map(|s| m.side(*s).name()).collect();
    let teams: Vec<Vec<&str>> =
        rules.spec().teams.iter().map(|t| t.iter().map(|s| m.side(*s).name()).collect()).collect();
    let mut json: Value = serde_json::from_str(&rules.to_json()).unwrap();
    json["name"] = format!("{}-mirrored", rules.name()).into();
    json["sides"] = serde_json::json!(sides);
    json["teams"] = serde_json::json!(teams);
    Arc::new(RuleSet::from_json(&json.to_string()).unwrap())
}

/// The view as JSON without its event log (compared report by report instead).
fn view_json(game: &Game, player: Side) -> Value {
    let mut v = game.view(player).to_json(game.rules());
    let o = v.as_object_mut().unwrap();
    o.remove("events");
    o.remove("rules");
    v
}

/// Sets in a canonical order: a view's pieces (point order differs between the
/// boards) and lists of sides (winners: side order differs between the labellings).
fn canon(v: Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.into_iter().map(canon).collect();
            if items.iter().all(|x| x.as_str().is_some_and(|s| Side::ALL.iter().any(|y| y.name() == s))) {
                items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            }
            Value::Array(items)
        }
        Value::Object(m) => {
            let mut m: serde_json::Map<String, Value> = m.into_iter().map(|(k, x)| (k, canon(x))).collect();
            if let Some(Value::Array(pieces)) = m.get_mut("pieces") {
                pieces.sort_by_key(|p| p.to_string());
            }
            Value::Object(m)
        }
        other => other,
    }
}

fn sorted_legal(game: &Game) -> Vec<String> {
    let mut v: Vec<String> = game.legal_actions().iter().map(|a| a.to_notation(game.board())).collect();
    v.sort();
    v
}

/// Plays a random game of `rules` from `seed` and the same game with the labels
/// exchanged, comparing everything each player is told at every ply. Returns the
/// first game's result.
fn check_game(rules: &Arc<RuleSet>, m: &Mirror, seed: u64, max_plies: usize) -> Option<junqi::GameResult> {
    let board = rules.board().clone();
    let mirrored = mirrored_rules(rules, m);
    let mut a;
    let mut b;
    if rules.deals() {
        let deal = Position::deal_for(rules, seed);
        let image: Vec<_> = deal.iter().map(|&(p, s, k)| (m.point(p), m.side(s), k)).collect();
        a = Game::with_deal(rules.clone(), seed, &deal).unwrap();
        b = Game::with_deal(mirrored.clone(), seed, &image).unwrap();
    } else {
        a = Game::with_rules(rules.clone(), seed);
        b = Game::with_rules(mirrored.clone(), seed);
        for (i, &side) in rules.sides().iter().enumerate() {
            let d = Setup::random(rules, side, seed * 7 + i as u64).validate(rules, side).unwrap();
            let mut image = Setup::new();
            for &(p, k) in d.pieces() {
                image.place(board.name_of(m.point(p)), k.id());
            }
            let ra = a.deploy(side, &d.to_setup(rules)).unwrap();
            let rb = b.deploy(m.side(side), &image).unwrap();
            assert_eq!(canon(m.json(&board, &ra.to_json(&board))), canon(rb.to_json(&board)), "{} seed {seed}: deployment", rules.name());
        }
    }
    let mut rng = junqi::Rng::new(seed);
    for ply in 0..max_plies {
        let ctx = format!("{} seed {seed} ply {ply}", rules.name());
        for &player in rules.sides() {
            let (va, vb) = (view_json(&a, player), view_json(&b, m.side(player)));
            assert_eq!(canon(m.json(&board, &va)), canon(vb), "{ctx}: {player}'s view");
        }
        let image: Vec<String> = {
            let mut v: Vec<String> =
                a.legal_actions().iter().map(|x| m.action(*x).to_notation(&board)).collect();
            v.sort();
            v
        };
        assert_eq!(image, sorted_legal(&b), "{ctx}: legal actions");
        if a.result().is_some() {
            break;
        }
        let legal = a.legal_actions();
        let act = legal[rng.below(legal.len())];
        let ra = a.play(act).unwrap();
        let rb = b.play(m.action(act)).unwrap();
        assert_eq!(canon(m.json(&board, &ra.to_json(&board))), canon(rb.to_json(&board)), "{ctx}: the report of {}", act.to_notation(&board));
    }
    let image = a.result().map(|r| canon(m.json(&board, &serde_json::to_value(r).unwrap())));
    assert_eq!(image, b.result().map(|r| canon(serde_json::to_value(r).unwrap())), "{}: results", rules.name());
    a.result()
}

fn mirror_for(rules: &RuleSet) -> Mirror {
    use Side::*;
    let side_map = if rules.sides().len() == 4 {
        [East, North, West, South] // south → east → north → west → south
    } else {
        [North, East, South, West]
    };
    find_mirror(rules.board(), side_map)
        .unwrap_or_else(|| panic!("the {} board has no symmetry exchanging the sides", rules.board().name()))
}

#[test]
fn the_mirror_is_a_board_symmetry() {
    let classic = RuleSet::preset("classic").unwrap();
    let m = mirror_for(&classic);
    let b = classic.board();
    assert_eq!(b.name_of(m.point(b.point("a1").unwrap())), "e12", "the classic mirror is the 180° turn");
    let siguo = RuleSet::preset("siguo").unwrap();
    let m = mirror_for(&siguo);
    let b = siguo.board();
    let south_back = b.points().find(|&p| b.side_of(p) == Some(Side::South) && b.depth(p) == 1).unwrap();
    assert_eq!(b.side_of(m.point(south_back)), Some(Side::East));
}

#[test]
fn every_preset_is_colour_symmetric() {
    for (preset, games) in [
        ("classic", 4),
        ("siguo", 2),
        ("fanqi", 30),
        ("sanjun-modern", 3),
        ("sanjun-hk", 2),
        ("sanjun-book", 2),
        ("sanjun-forum", 2),
    ] {
        let rules = RuleSet::preset(preset).unwrap();
        let m = mirror_for(&rules);
        for seed in 0..games {
            check_game(&rules, &m, seed, 2_000);
        }
    }
}

#[test]
fn option_variants_are_colour_symmetric() {
    for json in [
        r#"{"extends": "sanjun-book", "name": "book-open", "options": {"open_play": true, "commander_capture": true}}"#,
        r#"{"extends": "classic", "name": "classic-scouts", "options": {"engineer_scouts": "everyone", "rail_max_steps": 3}}"#,
        r#"{"extends": "siguo", "name": "siguo-open", "options": {"allies_see_each_other": true}}"#,
    ] {
        let rules = Arc::new(RuleSet::from_json(json).unwrap());
        let m = mirror_for(&rules);
        for seed in 0..2 {
            check_game(&rules, &m, seed, 2_000);
        }
    }
}

/// 翻棋 ends when both armies lose their last movable pieces in one capture: a draw,
/// whichever army attacked (it used to eliminate the army listed first, south).
#[test]
fn fanqi_mutual_elimination_is_a_draw_whoever_attacks() {
    use junqi::PieceKind::*;
    use junqi::{EndReason, Side::*};
    let rules = RuleSet::preset("fanqi").unwrap();
    // The position of the report (south's commander on d10 takes north's on c11), and
    // the same trade started by either colour on two posts.
    for (attacker, defender, from, to) in
        [(South, North, "d10", "c11"), (South, North, "c10", "c11"), (North, South, "c11", "c10")]
    {
        let mut pieces = vec![(from, attacker, Commander), (to, defender, Commander)];
        for (side, flag, mines) in [(South, "b1", ["a1", "c1", "e1"]), (North, "d12", ["a12", "c12", "e12"])] {
            pieces.push((flag, side, Flag));
            pieces.extend(mines.iter().map(|m| (*m, side, Mine)));
        }
        let mut pos = common::arrange(&rules, &pieces, attacker);
        let out = pos.play(Action::parse(rules.board(), &format!("{from}-{to}")).unwrap()).unwrap();
        assert_eq!(out.combat.map(|c| c.2), Some(junqi::CombatOutcome::Both));
        let result = out.result.expect("the game is over");
        assert!(result.is_draw(), "{attacker} attacking: {result:?}");
        assert_eq!(result.reason, EndReason::MutualElimination);
    }
}

/// The same in a four-player custom rule set: one capture that leaves nobody with a
/// movable piece ends in a draw, not in a win for whichever team is listed first.
#[test]
fn four_player_mutual_elimination_is_a_draw() {
    use junqi::PieceKind::*;
    use junqi::{EndReason, Side::*};
    let rules = Arc::new(
        RuleSet::from_json(r#"{"extends": "siguo", "name": "siguo-movable", "options": {"lose_without_movable_pieces": true}}"#)
            .unwrap(),
    );
    let b = rules.board();
    // Two neighbouring points for the two commanders; flags far from them.
    let post = |x: Point| b.role(x) == junqi::Role::Post;
    let (p, q) = b
        .points()
        .filter(|&p| post(p))
        .find_map(|p| b.neighbours(p).iter().find(|(q, _)| post(*q)).map(|&(q, _)| (p, q)))
        .unwrap();
    let free: Vec<Point> = b.points().filter(|&x| x != p && x != q && b.neighbours(x).iter().all(|(y, _)| *y != p && *y != q)).collect();
    for (attacker, defender) in [(South, West), (West, South), (East, North)] {
        let mut pieces = vec![(p, attacker, Commander), (q, defender, Commander)];
        for (i, side) in [South, East, North, West].into_iter().enumerate() {
            pieces.push((free[i * 7], side, Flag));
        }
        let mut pos = Position::from_arrangement(rules.clone(), &pieces, attacker).unwrap();
        let out = pos.play(Action::Move { from: p, to: q }).unwrap();
        let result = out.result.expect("over");
        assert!(result.is_draw(), "{attacker} on {defender}: {result:?}");
        assert_eq!(result.reason, EndReason::MutualElimination);
    }
}
