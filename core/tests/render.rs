//! SVG pictures: every preset from every seat, well-formed, showing only what the
//! view holds, turned to the viewer, with the last move and combat highlighted.

use junqi::render::{board_svg, SvgOptions};
use junqi::{Event, Game, Rng, RuleSet, Side};

/// A game of `rules` after `plies` random plies (or its end).
fn game_after(rules: &str, seed: u64, plies: u32) -> Game {
    let rules = RuleSet::preset(rules).unwrap();
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    if game.phase() == junqi::Phase::Deploy {
        for &side in rules.sides() {
            game.deploy_random(side, rng.next_u64()).unwrap();
        }
    }
    while game.result().is_none() && game.position().ply() < plies {
        let actions = game.legal_actions();
        game.play(actions[rng.below(actions.len())]).unwrap();
    }
    game
}

/// Parses an SVG document, failing the test if it is not well-formed XML.
fn parse(svg: &str) -> roxmltree::Document<'_> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert_eq!(
        doc.root_element().tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    doc
}

fn pieces<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| {
            n.attribute("class").is_some_and(|c| {
                let words: Vec<&str> = c.split(' ').collect();
                words.contains(&"piece") && (class.is_empty() || words.contains(&class))
            })
        })
        .collect()
}

#[test]
fn every_preset_and_seat_draws_well_formed_svg() {
    for name in RuleSet::preset_names() {
        for plies in [0, 30] {
            let game = game_after(name, 5, plies);
            for &seat in game.rules().sides() {
                let view = game.view(seat);
                let svg = view.to_svg(game.rules(), &SvgOptions::default());
                let doc = parse(&svg);
                assert_eq!(pieces(&doc, "").len(), view.pieces.len(), "{name} {seat}");
                let own = view
                    .pieces
                    .iter()
                    .filter(|p| p.owner.is_some() && p.owner == view.army)
                    .count();
                assert_eq!(pieces(&doc, "own").len(), own, "{name} {seat}");
                let compact = view.to_svg(game.rules(), &SvgOptions::compact());
                parse(&compact);
                assert!(compact.len() < svg.len());
                parse(&board_svg(game.board(), seat, &SvgOptions::default()));
            }
        }
    }
}

/// South's picture cannot depend on North's hidden setup: two games that differ only
/// there draw the same picture for South.
#[test]
fn a_view_shows_only_what_the_player_knows() {
    let mut pictures = Vec::new();
    for north_seed in [1, 2] {
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 10).unwrap();
        game.deploy_random(Side::North, north_seed).unwrap();
        let svg = game
            .view(Side::South)
            .to_svg(game.rules(), &SvgOptions::default());
        let doc = parse(&svg);
        assert_eq!(pieces(&doc, "unknown").len(), 25);
        for n in pieces(&doc, "unknown") {
            let title = n
                .children()
                .find(|c| c.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap();
            assert!(title.ends_with("north's piece (unknown)"), "{title}");
        }
        pictures.push(svg);
    }
    assert_eq!(pictures[0], pictures[1]);
    // The referee's own knowledge differs, and North's picture shows it.
    let north = |seed| {
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 10).unwrap();
        game.deploy_random(Side::North, seed).unwrap();
        game.view(Side::North)
            .to_svg(game.rules(), &SvgOptions::default())
    };
    assert_ne!(north(1), north(2));
}

/// Each seat sees its own army at the bottom: the lowest piece tiles are its own.
#[test]
fn each_seat_sees_its_army_at_the_bottom() {
    for name in ["classic", "siguo", "sanjun-modern"] {
        let game = game_after(name, 9, 0);
        for &seat in game.rules().sides() {
            let svg = game.view(seat).to_svg(game.rules(), &SvgOptions::compact());
            let doc = parse(&svg);
            // The y of each piece's tile (its second shape, after the shadow).
            let lowest = doc
                .descendants()
                .filter(|n| {
                    n.attribute("class")
                        .is_some_and(|c| c.starts_with("piece "))
                })
                .map(|n| {
                    let shape = n
                        .descendants()
                        .filter(|d| d.has_tag_name("rect") || d.has_tag_name("path"))
                        .nth(1)
                        .unwrap();
                    let y: f32 = shape.attribute("y").map_or(0.0, |v| v.parse().unwrap());
                    (y, n.attribute("class").unwrap().to_owned())
                })
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap();
            assert_eq!(lowest.1, "piece own", "{name} {seat}");
        }
    }
}

/// The last move is always highlighted; a combat while it is in the last round (one
/// action per side), and no longer.
#[test]
fn the_last_move_and_combat_are_highlighted() {
    let mut game = game_after("classic", 11, 0);
    let svg = game
        .view(Side::North)
        .to_svg(game.rules(), &SvgOptions::default());
    assert!(!svg.contains("last-move") && !svg.contains("class=\"last-combat\""));
    let mut rng = Rng::new(4);
    let (mut combats, mut quiet) = (0, 2);
    while game.result().is_none() && game.position().ply() < 200 {
        let actions = game.legal_actions();
        let report = game.play(actions[rng.below(actions.len())]).unwrap();
        if report
            .public
            .iter()
            .any(|e| matches!(e, Event::Attacked { .. }))
        {
            combats += 1;
            quiet = 0;
        } else {
            quiet += 1;
        }
        let svg = game
            .view(Side::North)
            .to_svg(game.rules(), &SvgOptions::default());
        let doc = parse(&svg);
        let has = |class: &str| {
            doc.descendants()
                .any(|n| n.attribute("class") == Some(class))
        };
        assert!(has("last-move"));
        assert_eq!(
            has("last-combat"),
            quiet < 2,
            "ply {}",
            game.position().ply()
        );
        let off = SvgOptions {
            highlight: false,
            ..SvgOptions::default()
        };
        assert!(!game
            .view(Side::North)
            .to_svg(game.rules(), &off)
            .contains("last-move"));
    }
    assert!(combats > 3);
}

/// Coordinates along the edges follow the notation, turned with the board.
#[test]
fn coordinates_follow_the_notation_and_the_turn() {
    let text_at = |svg: &str| -> Vec<(String, f32, f32)> {
        let doc = parse(svg);
        doc.descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("font-size") == Some("12"))
            .map(|n| {
                (
                    n.text().unwrap_or("").to_owned(),
                    n.attribute("x").unwrap().parse().unwrap(),
                    n.attribute("y").unwrap().parse().unwrap(),
                )
            })
            .collect()
    };
    let board = RuleSet::preset("classic").unwrap().board().clone();
    let south = text_at(&board_svg(&board, Side::South, &SvgOptions::compact()));
    let north = text_at(&board_svg(&board, Side::North, &SvgOptions::compact()));
    let x_of = |labels: &[(String, f32, f32)], t: &str| labels.iter().find(|l| l.0 == t).unwrap().1;
    let y_of = |labels: &[(String, f32, f32)], t: &str| labels.iter().find(|l| l.0 == t).unwrap().2;
    assert!(x_of(&south, "a") < x_of(&south, "e") && y_of(&south, "1") > y_of(&south, "12"));
    assert!(x_of(&north, "a") > x_of(&north, "e") && y_of(&north, "1") < y_of(&north, "12"));
    // 四国 from East: rows are lettered, columns numbered.
    let siguo = RuleSet::preset("siguo").unwrap().board().clone();
    let east = text_at(&board_svg(&siguo, Side::East, &SvgOptions::compact()));
    assert!(y_of(&east, "a") < y_of(&east, "q"));
    assert!(x_of(&east, "1") < x_of(&east, "17"));
}

#[test]
fn an_empty_board_draws() {
    let board = junqi::Board::from_json(r#"{"name":"empty","points":[],"edges":{}}"#).unwrap();
    for seat in Side::ALL {
        parse(&board_svg(&board, seat, &SvgOptions::default()));
    }
}

#[test]
fn names_from_a_custom_board_are_escaped() {
    let board = junqi::Board::from_json(
        r#"{"name":"<&>","points":[{"name":"a<1","x":0,"y":0,"role":"post"},{"name":"b&2","x":1,"y":0,"role":"camp"}],
            "edges":{"road":["a<1-b&2"]}}"#,
    )
    .unwrap();
    let svg = board_svg(&board, Side::South, &SvgOptions::default());
    parse(&svg);
    assert!(svg.contains("&lt;&amp;&gt;"));
}
