//! Random rule sets (issue #15): structure-aware variations of every preset — options,
//! kinds' abilities and movement, dealing, deployment constraints, teams, combat
//! entries — either load with a specific error or load and play random games that keep
//! the referee's guarantees: no panic; a refused call changes nothing; every legal
//! action is in the action space and round-trips through its id; records replay to the
//! identical state; a view names a piece's kind only where its player knows it; every
//! player's beliefs stay consistent and hold the board.
//!
//! `JUNQI_RULESETS_CASES` sets the number of rule sets (default 40).

use std::sync::Arc;

use junqi::{Action, Game, GameError, Phase, Record, Rng, RuleSet, RulesError, Side};
use proptest::prelude::*;
use serde_json::{json, Value};

const BOOL_OPTIONS: &[&str] = &[
    "mine_survives",
    "rail_all_turn",
    "bomb_may_hit_flag",
    "hq_locks",
    "camps_protect",
    "allies_see_each_other",
    "commander_reveals_flag",
    "hq_shelter",
    "flag_guarded_by_mines",
    "lose_without_movable_pieces",
    "evade_step",
    "open_play",
    "commander_capture",
    "open_after_deploy",
    "recon_lock_on",
];
const PATTERNS: &[&str] = &["bomb", "@plane", "@ship", "*", "engineer", "@officer", "missile", "@nope"];
const ABILITIES: &[&str] = &["strike", "bombard", "anti_air", "flight", "scout"];
const MOBILITIES: &[&str] = &["immobile", "step", "rail_straight", "rail_turn", "sail", "sail_and_land", "fly"];
const OUTCOMES: &[&str] = &["win", "lose", "both", "repel", "evade", "illegal", "rank"];

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

/// A random variation of a preset, as `{"extends": …}` JSON.
fn variation(preset: &str, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let base: Value = serde_json::from_str(&RuleSet::preset(preset).unwrap().to_json()).unwrap();
    let kinds: Vec<String> = base["army"].as_object().unwrap().keys().cloned().collect();
    let kind = |rng: &mut Rng| kinds[rng.below(kinds.len())].clone();
    let mut v = json!({"extends": preset, "name": format!("{preset}-variation-{seed}")});
    let mut options = serde_json::Map::new();
    for _ in 0..rng.below(6) {
        let name = pick(&mut rng, BOOL_OPTIONS);
        options.insert(name.into(), json!(rng.below(2) == 1));
    }
    let roll = |rng: &mut Rng, n: usize| rng.below(n) == 0;
    if roll(&mut rng, 3) {
        options.insert("rail_max_steps".into(), if roll(&mut rng, 3) { Value::Null } else { json!(rng.below(6)) });
    }
    if roll(&mut rng, 3) {
        options.insert("engineer_scouts".into(), json!(pick(&mut rng, &["off", "attacker", "everyone", "sacrifice"])));
    }
    if roll(&mut rng, 3) {
        options.insert("max_timeouts".into(), if roll(&mut rng, 3) { Value::Null } else { json!(rng.below(4)) });
    }
    if roll(&mut rng, 3) {
        options.insert("no_capture_draw_plies".into(), json!(rng.below(120)));
    }
    if roll(&mut rng, 4) {
        let v = pick(&mut rng, &["off", "engineers_gone", "engineers_and_bombs_gone"]);
        options.insert("smallest_digs_mines".into(), json!(v));
    }
    if roll(&mut rng, 4) {
        options.insert("min_plies_before_resign".into(), json!(rng.below(30)));
    }
    for key in ["camp_exempt", "hq_safe_from", "attacks_only_by_ability"] {
        if roll(&mut rng, 5) {
            options.insert(key.into(), json!([pick(&mut rng, PATTERNS)]));
        }
    }
    v["options"] = Value::Object(options);
    if roll(&mut rng, 4) {
        let mut abilities = base.get("abilities").cloned().unwrap_or(json!({}));
        for _ in 0..1 + rng.below(2) {
            let list: Vec<&str> = (0..1 + rng.below(2)).map(|_| pick(&mut rng, ABILITIES)).collect();
            abilities[kind(&mut rng)] = json!(list);
        }
        v["abilities"] = abilities;
    }
    if roll(&mut rng, 4) {
        let mut movement = base["movement"].clone();
        movement[kind(&mut rng)] = json!(pick(&mut rng, MOBILITIES));
        v["movement"] = movement;
    }
    if roll(&mut rng, 4) {
        let mut deployment = base["deployment"].clone();
        match rng.below(3) {
            0 => deployment["deal"] = json!(!deployment["deal"].as_bool().unwrap_or(false)),
            1 => deployment["constraints"] = json!([]),
            _ => {
                let roles = deployment["roles"].as_array_mut().unwrap();
                roles.push(json!(pick(&mut rng, &["camp", "airport", "anchorage", "harbour_mouth", "post"])));
            }
        }
        if deployment["deal"] == json!(true) {
            v["options"]["open_after_deploy"] = json!(false);
        }
        v["deployment"] = deployment;
    }
    if base["sides"].as_array().unwrap().len() == 4 && roll(&mut rng, 3) {
        v["teams"] = match rng.below(3) {
            0 => json!([]),
            1 => json!([["south", "north"], ["east", "west"]]),
            _ => json!([["south", "east"], ["north", "west"]]),
        };
    }
    if roll(&mut rng, 4) {
        let entry = json!({"attacker": kind(&mut rng), "defender": kind(&mut rng), "outcome": pick(&mut rng, OUTCOMES)});
        v["combat_first"] = json!([entry]);
    }
    v.to_string()
}

/// What one player may see, for checking that refused calls change nothing.
fn snapshot(game: &Game) -> (Vec<String>, usize, Option<Side>) {
    let views = game.rules().sides().iter().map(|&s| game.view(s).to_json(game.rules()).to_string()).collect();
    (views, game.record().actions.len(), game.to_act())
}

fn check_action_space(game: &Game) {
    let rules = game.rules();
    let actions = game.legal_actions();
    let ids = game.legal_action_ids();
    assert_eq!(actions.len(), ids.len(), "[{}] a legal action has no id: {actions:?}", rules.name());
    for a in &actions {
        let id = a.id(rules).expect("every legal action has an id");
        assert!(id < rules.action_space());
        assert_eq!(Action::from_id(rules, id).unwrap(), *a, "[{}] id {id} round-trips", rules.name());
        assert_eq!(Action::parse(game.board(), &a.to_notation(game.board())).unwrap(), *a);
    }
    assert_eq!(game.action_mask().iter().filter(|m| **m).count(), ids.len());
}

/// Views name a kind only where the player knows it.
fn check_views(game: &Game) {
    let pos = game.position();
    for &player in game.rules().sides() {
        let view = game.view(player);
        for piece in &view.pieces {
            assert_eq!(piece.kind.is_some(), pos.knows(player, piece.point), "[{}] {player}", game.rules().name());
            if let Some(kind) = piece.kind {
                assert_eq!(pos.piece_at(piece.point).map(|p| p.1), Some(kind));
            }
        }
        let _ = view.render(game.board());
    }
}

/// Every player's beliefs hold the board as it is: consistent (an agent draws its
/// worlds from them), the occupied points, and each kind its view names among the
/// candidates there.
fn check_beliefs(game: &Game) {
    let name = game.rules().name();
    for &player in game.rules().sides() {
        let beliefs = game.beliefs(player);
        assert!(beliefs.is_consistent(), "[{name}] {player}'s beliefs are inconsistent");
        assert_eq!(beliefs.occupied(), game.position().occupied(), "[{name}] {player}'s beliefs");
        for piece in &game.view(player).pieces {
            if let Some(kind) = piece.kind {
                assert!(beliefs.candidates(piece.point).contains(kind), "[{name}] {player} sees {kind} on {:?}", piece.point);
            }
        }
    }
}

/// A refused call must leave the game as it was.
fn check_refusals(game: &mut Game, rng: &mut Rng) {
    let before = snapshot(game);
    let legal = game.legal_action_ids();
    let space = game.rules().action_space();
    let id = rng.below(space + 2);
    if !legal.contains(&id) {
        assert!(game.play_id(id).is_err(), "[{}] id {id} is not legal but was played", game.rules().name());
    }
    assert!(game.play_notation("a1-").is_err());
    assert!(game.play_notation("zz9-zz8").is_err());
    if let Some(side) = game.to_act() {
        if let Some(other) = game.rules().sides().iter().copied().find(|s| *s != side) {
            if let Some(a) = game.legal_actions().first() {
                assert!(game.play_as(other, *a).is_err());
            }
        }
    }
    assert_eq!(snapshot(game), before, "[{}] a refused call changed the game", game.rules().name());
}

/// Plays one random game of `rules` with all the checks.
fn play(rules: &Arc<RuleSet>, seed: u64, plies: usize) {
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    if game.phase() == Phase::Deploy {
        for &side in rules.sides() {
            match game.deploy_random(side, rng.next_u64()) {
                Ok(_) => {}
                // Constraints no setup meets: refused with a specific error.
                Err(GameError::Setup(junqi::SetupError::Unsatisfiable(_))) => return,
                Err(e) => panic!("[{}] deploy_random: {e}", rules.name()),
            }
        }
    }
    for ply in 0..plies {
        if game.result().is_some() {
            break;
        }
        check_action_space(&game);
        if ply % 4 == 0 {
            check_views(&game);
        }
        if ply % 8 == 0 {
            check_refusals(&mut game, &mut rng);
        }
        let actions = game.legal_actions();
        if game.phase() == Phase::Move && rng.below(40) == 0 {
            game.time_out().unwrap();
            continue;
        }
        assert!(!actions.is_empty(), "[{}] no legal action but the game goes on", rules.name());
        let a = actions[rng.below(actions.len())];
        game.play(a).unwrap_or_else(|e| panic!("[{}] a legal action was refused: {e}", rules.name()));
    }
    check_views(&game);
    check_beliefs(&game);
    for &side in rules.sides() {
        let view = game.view(side);
        roxmltree::Document::parse(&view.to_svg(rules, &junqi::render::SvgOptions::default())).unwrap();
        let _ = game.player_record(side).to_json();
    }
    let json = game.record().to_json();
    let again = Game::from_record(&Record::from_json(&json).unwrap())
        .unwrap_or_else(|e| panic!("[{}] the record does not replay: {e}", rules.name()));
    assert!(again.position().same_state(game.position()), "[{}] the replay differs", rules.name());
}

fn cases() -> u32 {
    std::env::var("JUNQI_RULESETS_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(40)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, .. ProptestConfig::default() })]
    #[test]
    fn random_rule_sets_load_with_a_specific_error_or_keep_the_guarantees(
        preset in 0..RuleSet::preset_names().len(),
        seed in any::<u64>(),
    ) {
        let preset = RuleSet::preset_names()[preset];
        let json = variation(preset, seed);
        match RuleSet::from_json(&json) {
            Ok(rules) => {
                let rules = Arc::new(rules);
                for g in 0..2 {
                    play(&rules, seed.wrapping_add(g), 120);
                }
            }
            // A specific error with a message; never a JSON error for JSON we built right.
            Err(e) => {
                prop_assert!(!e.to_string().is_empty());
                prop_assert!(!matches!(e, RulesError::Json(_)), "{}: {}", json, e);
            }
        }
    }
}

/// The variations reach both outcomes: some load, some are refused.
#[test]
fn variations_both_load_and_fail() {
    let (mut ok, mut err) = (0, 0);
    for seed in 0..200 {
        let preset = RuleSet::preset_names()[seed as usize % RuleSet::preset_names().len()];
        match RuleSet::from_json(&variation(preset, seed)) {
            Ok(_) => ok += 1,
            Err(e) => {
                err += 1;
                if std::env::var("JUNQI_SHOW_REFUSALS").is_ok() {
                    eprintln!("{preset}: {e}");
                }
            }
        }
    }
    assert!(ok > 50 && err > 10, "{ok} loaded, {err} refused");
}
