//! Hostile input and custom rule sets (issue #15): what a user can load either keeps the
//! referee's guarantees or is refused with a specific error.

mod common;
use std::sync::Arc;

use common::siguo_dealt;

use junqi::render::{board_svg, SvgOptions};
use junqi::{
    Action, Board, BoardError, Game, GameError, Phase, Record, RecordEntry, Rng, RuleSet, RuleSpec, RulesError,
    Setup, SetupError, Side,
};

/// A two-point-a-side board whose corners are the far corners of the drawing grid.
fn corner_board(max: u8) -> String {
    format!(
        r#"{{"name": "corners", "points": [
            {{"name": "s1", "x": 0, "y": 0, "role": "hq", "side": "south", "depth": 1}},
            {{"name": "s2", "x": {max}, "y": 1, "role": "post", "side": "south", "depth": 2}},
            {{"name": "m", "x": 30, "y": 30, "role": "post"}},
            {{"name": "n2", "x": 0, "y": {m1}, "role": "post", "side": "north", "depth": 2}},
            {{"name": "n1", "x": {max}, "y": {max}, "role": "hq", "side": "north", "depth": 1}}],
          "edges": {{"road": ["s1-s2", "s2-m", "m-n2", "n2-n1"], "railway": ["s2-n2"]}},
          "rail_lines": [["s2", "n2"]]}}"#,
        m1 = max - 1
    )
}

const TINY_RULES: &str = r#"{"name": "tiny", "board": "corners", "sides": ["south", "north"],
    "army": {"flag": 1, "engineer": 1}, "ranks": {"engineer": 1},
    "deployment": {"roles": ["post", "hq"], "constraints": [{"kind": "flag", "roles": ["hq"]}]},
    "movement": {"flag": "immobile", "*": "rail_turn"},
    "combat": [{"attacker": "*", "defender": "flag", "outcome": "win"},
               {"attacker": "@officer", "defender": "@officer", "outcome": "rank"}],
    "options": {"no_capture_draw_plies": 12}}"#;

/// Plays random legal actions to the end, checking every action is in the action space.
fn play_out(game: &mut Game, seed: u64) {
    let mut rng = Rng::new(seed);
    if game.phase() == Phase::Deploy {
        for &side in game.rules().clone().sides() {
            game.deploy_random(side, rng.next_u64()).unwrap();
        }
    }
    while game.result().is_none() {
        let actions = game.legal_actions();
        let ids = game.legal_action_ids();
        assert_eq!(actions.len(), ids.len(), "every legal action has an id");
        for (a, id) in actions.iter().zip(&ids) {
            assert_eq!(Action::from_id(game.rules(), *id).unwrap(), *a);
        }
        if actions.is_empty() {
            break;
        }
        game.play(actions[rng.below(actions.len())]).unwrap();
    }
}

#[test]
fn a_board_at_the_edge_of_the_grid_renders_and_plays() {
    let board = Arc::new(Board::from_json(&corner_board(junqi::board::MAX_COORD)).unwrap());
    let spec: RuleSpec = serde_json::from_str(TINY_RULES).unwrap();
    let rules = Arc::new(RuleSet::with_board(spec, board.clone()).unwrap());
    let mut game = Game::with_rules(rules.clone(), 5);
    play_out(&mut game, 5);
    for seat in [Side::South, Side::North] {
        let view = game.view(seat);
        let text = view.render(game.board());
        assert!(text.lines().count() > 64, "{text}");
        let svg = view.to_svg(&rules, &SvgOptions::default());
        roxmltree::Document::parse(&svg).unwrap();
        roxmltree::Document::parse(&board_svg(&board, seat, &SvgOptions::default())).unwrap();
    }
    // The board travels in the record and replays.
    let json = game.record().to_json();
    let again = Game::from_record(&Record::from_json(&json).unwrap()).unwrap();
    assert!(again.position().same_state(game.position()));
}

#[test]
fn points_off_the_grid_are_refused() {
    for max in [64, 200, 255] {
        let err = Board::from_json(&corner_board(max)).unwrap_err();
        assert!(matches!(err, BoardError::CoordinateOutOfRange(ref p) if p == "s2"), "{err}");
    }
    // Also when the board comes in a record.
    let board = Arc::new(Board::from_json(&corner_board(10)).unwrap());
    let spec: RuleSpec = serde_json::from_str(TINY_RULES).unwrap();
    let game = Game::with_rules(Arc::new(RuleSet::with_board(spec, board).unwrap()), 1);
    let json = game.record().to_json().replace("\"x\": 10", "\"x\": 255");
    let err = Game::from_record(&Record::from_json(&json).unwrap()).unwrap_err();
    assert!(matches!(err, GameError::Rules(RulesError::Board(BoardError::CoordinateOutOfRange(_)))), "{err}");
}

#[test]
fn two_surface_points_may_not_share_a_cell() {
    let json = r#"{"name": "x", "points": [{"name": "a", "x": 1, "y": 1, "role": "post"},
        {"name": "b", "x": 1, "y": 1, "role": "camp"}], "edges": {}}"#;
    assert_eq!(Board::from_json(json).unwrap_err(), BoardError::SharedCoordinates("a".into(), "b".into()));
    // A point and the air position above it do share a cell.
    let json = r#"{"name": "x", "points": [{"name": "a", "x": 1, "y": 1, "role": "post"},
        {"name": "a^", "x": 1, "y": 1, "role": "air"}], "edges": {}}"#;
    assert!(Board::from_json(json).is_ok());
}

#[test]
fn a_board_without_points_renders_as_text() {
    let board = Board::from_json(r#"{"name":"empty","points":[],"edges":{}}"#).unwrap();
    let game = Game::new("classic", 1).unwrap();
    assert_eq!(game.view(Side::South).render(&board), "");
}

#[test]
fn mixed_arms_dealt_face_down_are_refused() {
    let json = r#"{"extends": "sanjun-modern", "name": "sanjun-dealt",
        "deployment": {"roles": ["post", "harbour_mouth", "hq", "anchorage", "airport"], "constraints": [], "deal": true}}"#;
    let err = RuleSet::from_json(json).unwrap_err();
    assert!(matches!(err, RulesError::HiddenArms(_)), "{err}");
}

#[test]
fn mixed_arms_sharing_deployment_roles_are_refused() {
    // Without constraints any piece may stand anywhere: a ship on a post would be told
    // by its arm.
    let json = r#"{"extends": "sanjun-modern", "name": "sanjun-anywhere",
        "deployment": {"roles": ["post", "harbour_mouth", "hq", "anchorage", "airport"], "constraints": []}}"#;
    let err = RuleSet::from_json(json).unwrap_err();
    assert!(matches!(err, RulesError::HiddenArms(ref m) if m.contains("may both deploy")), "{err}");
    // The presets keep arms apart.
    for name in RuleSet::preset_names() {
        RuleSet::preset(name).unwrap();
    }
}

#[test]
fn a_plane_with_anti_air_off_its_lines_is_refused() {
    let json = r#"{"extends": "sanjun-modern", "name": "dogfight",
        "abilities": {"fort": ["strike"], "gunboat": ["bombard", "anti_air"], "aa_gun": ["anti_air"],
                      "missile": ["flight"], "recon": ["scout"], "fighter": ["anti_air"]}}"#;
    let err = RuleSet::from_json(json).unwrap_err();
    assert!(matches!(err, RulesError::OutsideActionSpace(ref m) if m.contains("fighter")), "{err}");
}

#[test]
fn an_eliminated_army_leaves_its_face_down_pieces_face_down() {
    let rules = siguo_dealt();
    for seed in 0..20u64 {
        let mut game = Game::with_rules(rules.clone(), seed);
        let mut rng = Rng::new(seed);
        // A few flips and moves, then the side to act times out.
        for _ in 0..6 {
            let actions = game.legal_actions();
            game.play(actions[rng.below(actions.len())]).unwrap();
        }
        let before = game.position().face_down();
        let out = game.to_act().unwrap();
        let army = game.position().army_of(out).unwrap();
        game.time_out().unwrap();
        assert!(game.position().eliminated().contains(out));
        let pos = game.position();
        // No face-down piece left, so nobody learns which were the army's.
        assert_eq!(pos.face_down(), before, "seed {seed}");
        // Its face-up pieces left.
        assert!(pos.occupied_by(army).minus(pos.face_down()).is_empty());
        // Every flip offered is of a face-down piece on the board.
        for a in game.legal_actions() {
            if let Action::Flip { at } = a {
                assert!(pos.is_face_down(at) && pos.occupied().contains(at));
            }
        }
        // Play on: flips of the eliminated army's pieces are ordinary.
        play_out(&mut game, seed);
        let json = game.record().to_json();
        let again = Game::from_record(&Record::from_json(&json).unwrap()).unwrap();
        assert!(again.position().same_state(game.position()));
    }
}

#[test]
fn beliefs_keep_the_other_armies_face_up_pieces_when_a_dealt_player_is_out() {
    // Found by the atheris harness fuzz/python/fuzz_game_calls.py: every player's
    // beliefs dropped all face-up pieces not of its own army (the two-player 翻棋
    // shortcut), while its view still showed them.
    let rules = siguo_dealt();
    for seed in 0..20u64 {
        let mut game = Game::with_rules(rules.clone(), seed);
        let mut rng = Rng::new(seed);
        for _ in 0..6 {
            let actions = game.legal_actions();
            game.play(actions[rng.below(actions.len())]).unwrap();
        }
        game.time_out().unwrap();
        for &player in rules.sides() {
            let beliefs = game.beliefs(player);
            assert!(beliefs.is_consistent(), "seed {seed}");
            for piece in &game.view(player).pieces {
                if let Some(kind) = piece.kind {
                    let c = beliefs.candidates(piece.point);
                    assert!(c.len() == 1 && c.contains(kind), "seed {seed}: {player:?} sees {kind:?} on {:?}", piece.point);
                }
            }
        }
    }
}

#[test]
fn a_tampered_deal_is_a_record_error() {
    let game = Game::new("fanqi", 3).unwrap();
    let mut record = game.record();
    let RecordEntry::Deal { deal } = &mut record.actions[0] else { panic!("a deal comes first") };
    let first = deal.keys().next().unwrap().clone();
    deal.get_mut(&first).unwrap().1 = junqi::PieceKind::Commander;
    let err = Game::from_record(&record).unwrap_err();
    assert!(matches!(err, GameError::Record(ref m) if m.starts_with("deal:")), "{err}");
}

#[test]
fn a_variant_needs_a_name() {
    let err = RuleSet::from_json(r#"{"extends": "classic"}"#).unwrap_err();
    assert_eq!(err, RulesError::MissingName("classic".into()));
    assert!(RuleSet::from_json(r#"{"extends": "classic", "name": "mine"}"#).is_ok());
}

#[test]
fn oversized_json_is_refused_before_parsing() {
    let big = format!("{{\"description\": \"{}\"}}", "x".repeat(junqi::limits::MAX_RULES_JSON));
    assert!(matches!(RuleSet::from_json(&big), Err(RulesError::TooLarge(_))));
    assert!(matches!(Board::from_json(&big), Err(BoardError::TooLarge(_))));
    assert!(matches!(Setup::from_json(&big), Err(SetupError::TooLarge(_))));
    let huge = " ".repeat(junqi::limits::MAX_RECORD_JSON + 1);
    assert!(matches!(Record::from_json(&huge), Err(GameError::Record(ref m)) if m.contains("over the limit")));
    assert!(matches!(junqi::PlayerRecord::from_json(&huge), Err(GameError::Record(_))));
}

#[test]
fn presets_compile_once() {
    let a = RuleSet::preset("sanjun-modern").unwrap();
    let b = RuleSet::preset("sanjun-modern").unwrap();
    assert!(Arc::ptr_eq(&a, &b));
}

#[test]
fn a_long_combat_table_compiles_and_a_longer_one_is_refused_unread() {
    // Entries that never match, then the classic table: compiling must not match every
    // pattern for every pair of kinds (10 000 entries took seconds). Since a rule set
    // must fit a protocol line (48 KiB as compact JSON, `limits::MAX_RULES_SPEC`), the
    // longest table that loads has some 500 such entries; 10 000 are refused before
    // anything is compiled.
    let classic: serde_json::Value = serde_json::from_str(RuleSet::preset_json("classic").unwrap()).unwrap();
    let with = |n: usize| {
        let mut combat = vec![serde_json::json!({"attacker": ["commander", "engineer"], "defender": "flag", "outcome": "win", "if": "open_play"}); n];
        combat.extend(classic["combat"].as_array().unwrap().iter().cloned());
        serde_json::json!({"extends": "classic", "name": "long", "combat": combat}).to_string()
    };
    let rules = RuleSet::from_json(&with(450)).unwrap();
    assert_eq!(rules.combat_outcome(junqi::PieceKind::Engineer, junqi::PieceKind::Mine), junqi::CombatOutcome::Win);
    assert!(matches!(RuleSet::from_json(&with(10_000)), Err(junqi::RulesError::SpecTooLarge(_))));
}
