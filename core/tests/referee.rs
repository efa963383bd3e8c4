//! The referee (docs/referee.md): views, events, private reveals, records.
mod common;
use common::*;
use junqi::{Event, Game, CombatOutcome, PieceKind::*, Record, RevealCause, RuleSet, Side::*};

fn random_game(seed: u64, plies: usize) -> Game {
    let mut g = Game::new("classic", seed).unwrap();
    g.deploy_random(South, seed * 2 + 1).unwrap();
    g.deploy_random(North, seed * 2 + 2).unwrap();
    let mut rng = junqi::Rng::new(seed);
    for _ in 0..plies {
        if g.result().is_some() {
            break;
        }
        let moves = g.legal_actions();
        g.play(moves[rng.below(moves.len())]).unwrap();
    }
    g
}

#[test]
fn views_show_own_pieces_and_hide_the_enemy() {
    let g = random_game(1, 0);
    for me in [South, North] {
        let v = g.view(me);
        assert_eq!(v.pieces.len(), 50);
        for p in &v.pieces {
            if p.owner == Some(me) {
                assert_eq!(Some(p.kind.unwrap()), g.position().piece_at(p.point).map(|x| x.1));
            } else {
                assert_eq!(p.kind, None);
            }
        }
        let json = v.to_json(g.rules());
        assert_eq!(json["player"], me.name());
        assert_eq!(json["to_act"], "south");
        let enemy_kinds: Vec<_> = json["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["owner"] != me.name())
            .map(|p| p["kind"].clone())
            .collect();
        assert!(enemy_kinds.iter().all(|k| k.is_null()));
        let text = v.render(g.board());
        assert_eq!(text.matches("<??>").count(), 25);
    }
}

#[test]
fn attack_events_say_who_left_not_what_they_were() {
    let r = classic();
    let mut g = game_with(&r, &[("a6", Commander)], &[("a7", ArmyCommander)]);
    let report = g.play_notation("a6-a7").unwrap();
    assert_eq!(
        report.public,
        vec![Event::Attacked { side: South, from: pt(&r, "a6"), to: pt(&r, "a7"), outcome: CombatOutcome::Win }]
    );
    assert!(report.private.is_empty());
    let json = report.to_json(g.board()).to_string();
    assert!(!json.contains("commander"), "{json}");
    // North learns nothing about South's piece beyond the outcome.
    assert!(!g.position().knows(North, pt(&r, "a7")));
}

#[test]
fn commander_lost_reveals_flags_publicly() {
    let r = classic();
    let mut g = game_with(&r, &[("a6", Commander)], &[("a7", Commander)]);
    let south_flag = g.position().pieces().find(|(_, s, k)| *s == South && *k == Flag).unwrap().0;
    let report = g.play_notation("a6-a7").unwrap();
    let reveals: Vec<_> = report
        .public
        .iter()
        .filter(|e| matches!(e, Event::Revealed { cause: RevealCause::CommanderLost, .. }))
        .collect();
    assert_eq!(reveals.len(), 2, "both commanders left: both flags shown");
    assert!(g.view(North).pieces.iter().any(|p| p.point == south_flag && p.kind == Some(Flag)));
    assert!(g.events(North).contains(&Event::Revealed {
        point: south_flag,
        owner: South,
        kind: Flag,
        cause: RevealCause::CommanderLost
    }));
}

#[test]
fn engineer_scouts_to_the_attacker_only() {
    let r = rules_with(r#"{"engineer_scouts": "attacker"}"#);
    let mut g = game_with(&r, &[("a6", Engineer)], &[("a7", DivisionCommander)]);
    let report = g.play_notation("a6-a7").unwrap();
    let reveal = Event::Revealed { point: pt(&r, "a7"), owner: North, kind: DivisionCommander, cause: RevealCause::EngineerScout };
    assert_eq!(report.private, vec![(South, reveal)]);
    assert!(g.events(South).contains(&reveal));
    assert!(!g.events(North).contains(&reveal));
    assert!(g.view(South).pieces.iter().any(|p| p.point == pt(&r, "a7") && p.kind == Some(DivisionCommander)));

    let r = rules_with(r#"{"engineer_scouts": "everyone"}"#);
    let mut g = game_with(&r, &[("a6", Engineer)], &[("a7", DivisionCommander)]);
    let report = g.play_notation("a6-a7").unwrap();
    assert!(report.public.iter().any(|e| matches!(e, Event::Revealed { cause: RevealCause::EngineerScout, .. })));
    // The default reveals nothing.
    let mut g = game_with(&classic(), &[("a6", Engineer)], &[("a7", DivisionCommander)]);
    let report = g.play_notation("a6-a7").unwrap();
    assert_eq!(report.public.len(), 1);
    assert!(report.private.is_empty());
}

#[test]
fn out_of_turn_and_bad_notation() {
    let mut g = random_game(2, 0);
    let a = g.legal_actions()[0];
    let err = g.play_as(North, a).unwrap_err();
    assert_eq!(err.to_string(), "it is south's turn, not north's");
    assert!(g.play_notation("a2a6").unwrap_err().to_string().contains("malformed"));
    assert!(g.play_notation("z1-a2").unwrap_err().to_string().contains("unknown point"));
    assert!(g.play_id(1_000_000).is_err());
    assert_eq!(g.position().ply(), 0);
}

#[test]
fn action_ids_and_mask_agree_with_legal_actions() {
    let g = random_game(3, 40);
    let ids = g.legal_action_ids();
    let mask = g.action_mask();
    assert_eq!(mask.len(), g.rules().action_space());
    assert_eq!(mask.iter().filter(|&&m| m).count(), ids.len());
    for a in g.legal_actions() {
        let i = a.id(g.rules()).unwrap();
        assert!(mask[i]);
        assert_eq!(junqi::Action::from_id(g.rules(), i).unwrap(), a);
    }
    let mut h = g.clone();
    let before = h.position().ply();
    h.play_id(ids[0]).unwrap();
    assert_eq!(h.position().ply(), before + 1);
}

#[test]
fn records_replay_to_the_identical_state() {
    for seed in 0..20 {
        let g = random_game(seed, 400);
        let json = g.record().to_json();
        let record = Record::from_json(&json).unwrap();
        assert_eq!(record, g.record());
        let again = Game::from_record(&record).unwrap();
        assert!(again.position().same_state(g.position()), "seed {seed}");
        for side in [South, North] {
            assert_eq!(again.view(side), g.view(side));
        }
    }
}

#[test]
fn records_of_custom_rules_and_bad_records() {
    let r = rules_with(r#"{"rail_max_steps": 2}"#);
    let mut g = Game::with_rules(r, 9);
    g.deploy_random(South, 1).unwrap();
    g.deploy_random(North, 2).unwrap();
    let a = g.legal_actions()[0];
    g.play(a).unwrap();
    let json = g.record().to_json();
    assert!(json.contains("rail_max_steps"), "a custom rule set is stored whole");
    let again = Game::from_record(&Record::from_json(&json).unwrap()).unwrap();
    assert_eq!(again.rules().options().rail_max_steps, Some(2));

    let mut rec = g.record();
    rec.actions.push(junqi::RecordEntry::Action("a1-e12".into()));
    assert!(Game::from_record(&rec).unwrap_err().to_string().contains("entry 3"));
    let mut rec = g.record();
    rec.result = Some(junqi::GameResult { winners: junqi::SideSet::single(South), reason: junqi::EndReason::Resignation });
    assert!(Game::from_record(&rec).is_err());
    assert!(Record::from_json("{").is_err());
    assert!(Record::from_json(&json.replace("junqi-record/1", "other/9")).is_err());
}

#[test]
fn player_records_hold_only_that_players_view() {
    let g = random_game(4, 200);
    let south_setup = g.record().actions[0].clone();
    let pr = g.player_record(North);
    assert_eq!(pr.player, North);
    let junqi::RecordEntry::Deploy { setup: s_setup, .. } = south_setup else { panic!() };
    assert_ne!(pr.setup.as_ref(), Some(&s_setup));
    let json = pr.to_json();
    let back = junqi::PlayerRecord::from_json(&json).unwrap();
    assert_eq!(back, pr);
    assert_eq!(pr.events.len(), g.events(North).len());
    // Nothing of South's army beyond what North was shown: no kind names except in
    // North's own setup and in reveals to North.
    let reveals = g.events(North).iter().filter(|e| matches!(e, Event::Revealed { .. })).count();
    let without_setup = serde_json::to_value(&pr.events).unwrap().to_string();
    assert_eq!(without_setup.matches("\"kind\"").count(), reveals);
}

#[test]
fn rule_set_json_round_trip_and_errors() {
    let r = classic();
    let again = RuleSet::from_json(&r.to_json()).unwrap();
    assert_eq!(again.spec(), r.spec());
    assert!(matches!(RuleSet::preset("chess"), Err(junqi::RulesError::UnknownPreset(_))));
    assert!(matches!(RuleSet::from_json("{"), Err(junqi::RulesError::Json(_))));
    assert!(matches!(
        RuleSet::from_json(r#"{"extends": "classic", "name": "x", "options": {"no_such_option": 1}}"#),
        Err(junqi::RulesError::Json(_))
    ));
    assert!(matches!(RuleSet::from_json(r#"{"extends": "nope"}"#), Err(junqi::RulesError::UnknownPreset(_))));
    let bad_kind = r.to_json().replace("\"@officer\"", "\"@generals\"");
    assert_eq!(RuleSet::from_json(&bad_kind).unwrap_err(), junqi::RulesError::BadPattern("@generals".into()));
    let bad_board = r.to_json().replace("\"board\": \"classic\"", "\"board\": \"hex\"");
    assert!(matches!(RuleSet::from_json(&bad_board), Err(junqi::RulesError::UnknownBoard(_))));
    let bad_army = r.to_json().replace("\"bomb\": 2", "\"bomb\": 3");
    assert!(matches!(RuleSet::from_json(&bad_army), Err(junqi::RulesError::ArmyDoesNotFit { .. })));
}

#[test]
fn random_games_run_to_the_end() {
    for seed in 0..200 {
        let g = random_game(seed, 100_000);
        let result = g.result().expect("every random game ends");
        let last = g.events(South).last().unwrap();
        assert_eq!(*last, Event::GameOver { result });
    }
}

#[test]
fn events_in_words_name_the_outcome_and_who_left() {
    let r = classic();
    let b = r.board();
    let attack = |outcome| Event::Attacked { side: South, from: pt(&r, "c6"), to: pt(&r, "c7"), outcome };
    assert_eq!(attack(CombatOutcome::Lose).describe(b), "south c6xc7: lose (the attacker left the board)");
    assert_eq!(attack(CombatOutcome::Win).describe(b), "south c6xc7: win (the defender left the board)");
    assert_eq!(attack(CombatOutcome::Both).describe(b), "south c6xc7: both (both left the board)");
    assert_eq!(attack(CombatOutcome::Repel).describe(b), "south c6xc7: repel (nobody left the board)");
    let shown = |kind| Event::Revealed { point: pt(&r, "c7"), owner: North, kind, cause: junqi::RevealCause::AntiAir };
    assert_eq!(shown(junqi::PieceKind::AaGun).describe(b), "north's piece on c7 is an aa_gun (anti_air)");
    assert_eq!(shown(Flag).describe(b), "north's piece on c7 is a flag (anti_air)");
    let assigned = Event::ArmyAssigned { player: South, army: North };
    assert_eq!(assigned.describe(b), "the south player commands the army labelled north");
}

#[test]
fn errors_debug_as_their_messages() {
    fn same<E: std::fmt::Debug + std::fmt::Display>(e: E) -> String {
        assert_eq!(format!("{e:?}"), e.to_string());
        e.to_string()
    }
    let r = classic();
    let a2a6 = junqi::Action::parse(r.board(), "a2-a6").unwrap();
    let play = junqi::Position::new(r.clone()).play(a2a6).unwrap_err();
    assert!(same(play).starts_with("the game is in the deployment phase"));
    assert!(same(junqi::Action::parse(r.board(), "a2a6").unwrap_err()).starts_with("malformed action"));
    assert!(same(junqi::Setup::from_json("{").unwrap_err()).starts_with("invalid setup JSON"));
    assert!(same(RuleSet::preset("nope").unwrap_err()).starts_with("unknown rule set \"nope\""));
    assert!(same(junqi::Board::from_json("{").unwrap_err()).starts_with("invalid board JSON"));
    let mut g = Game::new("classic", 1).unwrap();
    assert!(same(g.play_notation("a2-a6").unwrap_err()).starts_with("the game is in the deployment phase"));
}

/// A game of `rules` played at random to its end.
fn random_game_of(rules: std::sync::Arc<RuleSet>, seed: u64) -> Game {
    let mut g = Game::with_rules(rules.clone(), seed);
    for (i, &side) in rules.sides().iter().enumerate() {
        if !rules.deals() {
            g.deploy_random(side, seed * 4 + i as u64).unwrap();
        }
    }
    let mut rng = junqi::Rng::new(seed);
    while g.result().is_none() {
        let moves = g.legal_actions();
        g.play(moves[rng.below(moves.len())]).unwrap();
    }
    g
}

#[test]
fn records_store_their_whole_rule_set_even_a_presets() {
    // A preset's game: the record holds the rule set itself, not a name whose meaning
    // may change.
    let g = random_game(3, 60);
    let rec = g.record();
    assert_eq!(rec.rules, junqi::RulesRef::Spec(Box::new(g.rules().spec().clone())));
    assert_eq!(g.player_record(South).rules, rec.rules);
    // A variant named like its preset whose option differs from the preset's default
    // (as when a default changes after the game) replays to the same game.
    let rules = std::sync::Arc::new(
        RuleSet::from_json(r#"{"extends": "fanqi", "name": "fanqi", "options": {"smallest_digs_mines": "off"}}"#).unwrap(),
    );
    for seed in 0..3 {
        let g = random_game_of(rules.clone(), seed);
        let json = g.record().to_json();
        assert!(json.contains(r#""smallest_digs_mines": "off""#));
        let again = Game::from_record(&Record::from_json(&json).unwrap()).unwrap();
        assert_eq!(again.rules().options().smallest_digs_mines, junqi::MineDigging::Off);
        assert!(again.position().same_state(g.position()), "seed {seed}");
        let beliefs = junqi::Beliefs::from_player_record(&g.player_record(North)).unwrap();
        assert_eq!(beliefs.rules().options().smallest_digs_mines, junqi::MineDigging::Off);
    }
}

#[test]
fn a_records_rules_may_be_rule_set_json_or_an_old_preset_name() {
    let g = random_game(5, 40);
    let mut v: serde_json::Value = serde_json::from_str(&g.record().to_json()).unwrap();
    // Rule-set JSON in the `extends` form, as a user writes it.
    v["rules"] = serde_json::json!({"extends": "classic", "name": "classic"});
    let again = Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap();
    assert!(again.position().same_state(g.position()));
    // The old form, a bare preset name, still loads.
    v["rules"] = serde_json::json!("classic");
    let again = Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap();
    assert!(again.position().same_state(g.position()));
    // Refusals say what is wrong with the rules.
    v["rules"] = serde_json::json!({"extends": "classic"});
    let err = Record::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(err.contains("\"rules\"") && err.contains("needs a \"name\""), "{err}");
    v["rules"] = serde_json::json!(7);
    let err = Record::from_json(&v.to_string()).unwrap_err().to_string();
    assert!(err.contains("\"rules\" must be a preset name or a rule set object"), "{err}");
    v["rules"] = serde_json::json!("chess");
    let err = Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap_err().to_string();
    assert!(err.contains("unknown rule set \"chess\""), "{err}");
    // A name-only record that does not replay says how its name was read.
    v["rules"] = serde_json::json!("classic");
    v["result"] = serde_json::json!({"winners": ["south"], "reason": "resignation"});
    let err = Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap_err().to_string();
    assert!(err.contains("read as that preset stood on 2026-12-01"), "{err}");
}

#[test]
fn old_fuzz_corpus_records_still_replay() {
    // Records written before records stored their rule set (bare preset names).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/corpus/record_json");
    for name in ["classic-3.json", "fanqi-9.json", "sanjun-modern-3.json", "siguo-3.json"] {
        let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        let rec = Record::from_json(&text).unwrap();
        assert!(matches!(rec.rules, junqi::RulesRef::Preset(_)), "{name}");
        Game::from_record(&rec).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn a_name_only_record_means_the_preset_as_it_stood_then() {
    // An old record of sanjun-hk, written before the 2026-12-01 rulings (an officer
    // attacking a missile: both; missiles attack by steps too), replays under those
    // rules, not today's.
    let empty = |rules: &str| {
        let v = serde_json::json!({"format": "junqi-record/1", "rules": rules, "seed": 1, "actions": [], "result": null});
        Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap()
    };
    let then = empty("sanjun-hk").rules().clone();
    let today = RuleSet::preset("sanjun-hk").unwrap();
    assert_eq!(junqi::resolve(&then, Commander, Missile), CombatOutcome::Both);
    assert_eq!(junqi::resolve(&today, Commander, Missile), CombatOutcome::Lose);
    assert!(then.options().attacks_only_by_ability.is_empty());
    // Presets that did not change are today's, shared.
    assert!(std::sync::Arc::ptr_eq(empty("classic").rules(), &RuleSet::preset("classic").unwrap()));
    // A game played then, recorded by name, replays to the same game.
    for seed in 0..2 {
        let g = random_game_of(then.clone(), seed);
        let mut v: serde_json::Value = serde_json::from_str(&g.record().to_json()).unwrap();
        v["rules"] = serde_json::json!("sanjun-hk");
        let again = Game::from_record(&Record::from_json(&v.to_string()).unwrap()).unwrap();
        assert!(again.position().same_state(g.position()), "seed {seed}");
    }
}

#[test]
fn the_frozen_presets_of_name_only_records_never_change() {
    // What a bare preset name in a record means is fixed for ever: these files are
    // the presets as they stood on 2026-12-01. Editing one changes old records' games.
    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/rules/record-1");
    for (name, hash) in [
        ("classic.json", 0xc7855799e9a8efb4),
        ("fanqi.json", 0xf5af796ed9e94c65),
        ("sanjun-book.json", 0x28f1914a76db888c),
        ("sanjun-forum.json", 0xe5a03de0ed53d320),
        ("sanjun-hk.json", 0x20e3651eedee8f4f),
        ("sanjun-modern.json", 0xad3655cae3477c07),
        ("siguo-2p.json", 0x79aa75f13174698a),
        ("siguo.json", 0xfef474fce82e47a9),
    ] {
        let text = std::fs::read(format!("{dir}/{name}")).unwrap();
        assert_eq!(fnv(&text), hash, "{name} was edited");
    }
}

/// Each event carries its ply (`Game::event_plies`, `View::event_plies`): the
/// position's ply count after the change that told it — 0 for deployments, `n` for the
/// `n`-th action or time-out — in every preset, for every seat and for the public view,
/// and entries replayed one by one (`Game::apply_entry`) give the same logs and plies.
#[test]
fn every_event_carries_the_ply_of_the_change_that_told_it() {
    for (k, name) in RuleSet::preset_names().into_iter().enumerate() {
        let rules = RuleSet::preset(name).unwrap();
        let mut g = Game::with_rules(rules.clone(), k as u64 + 1);
        let mut copy = g.clone();
        let mut rng = junqi::Rng::new(k as u64 + 7);
        let sides = rules.sides().to_vec();
        let mut steps = 0u32; // actions and time-outs so far
        let mut seen = vec![0usize; 4];
        for turn in 0..400 {
            if g.result().is_some() {
                break;
            }
            let before = g.record_len();
            if g.phase() == junqi::Phase::Deploy {
                let side = *sides.iter().find(|s| !g.deployed().contains(**s)).unwrap();
                g.deploy_random(side, turn).unwrap();
            } else if turn % 37 == 5 {
                g.time_out().unwrap();
                steps += 1;
            } else {
                let moves = g.legal_actions();
                g.play(moves[rng.below(moves.len())]).unwrap();
                steps += 1;
            }
            assert_eq!(g.position().ply(), steps, "{name}: the ply counts actions and time-outs");
            for &s in &sides {
                let (events, plies) = (g.events(s), g.event_plies(s));
                assert_eq!(events.len(), plies.len(), "{name}");
                assert!(plies[seen[s as usize]..].iter().all(|&p| p == steps), "{name}: {s} {plies:?}");
                seen[s as usize] = events.len();
                let view = g.view(s);
                assert_eq!(view.event_plies, plies, "{name}");
            }
            let public = g.public_view();
            assert_eq!(public.events.len(), public.event_plies.len(), "{name}");
            assert!(public.event_plies.windows(2).all(|w| w[0] <= w[1]), "{name}");
            // The public log is the first seat's log less its private reveals, plies kept.
            let first = g.view(sides[0]);
            let mut i = 0;
            for (e, p) in public.events.iter().zip(&public.event_plies) {
                while first.events[i] != *e {
                    i += 1;
                }
                assert_eq!(first.event_plies[i], *p, "{name}");
                i += 1;
            }
            for entry in g.record_entries(before) {
                copy.apply_entry(&entry).unwrap();
            }
            assert_eq!(copy.record_len(), g.record_len(), "{name}");
        }
        for &s in &sides {
            assert_eq!(copy.events(s), g.events(s), "{name}");
            assert_eq!(copy.event_plies(s), g.event_plies(s), "{name}");
        }
        assert_eq!(copy.position_string(), g.position_string(), "{name}");
        // A refused entry changes nothing.
        let len = copy.record_len();
        assert!(copy.apply_entry(&junqi::RecordEntry::Action("z9-z8".into())).is_err());
        assert!(copy.apply_entry(&junqi::RecordEntry::Start { start: "x".into() }).is_err());
        assert_eq!(copy.record_len(), len);
    }
}
