//! Modelled beliefs (`inference::model`): the evidence each piece leaves, the model's
//! counts and JSON, and the probabilities — sound (the true identity never at 0), exact
//! where the candidates are (one candidate: 1), consistent with the army's composition,
//! and informative (the shipped model prefers what the engine's deployments do).
use std::sync::Arc;

use junqi::{Action, Game, ModelError, OpponentModel, PieceKind, Rng, RuleSet, Side};

/// A game of `rules` between random players for at most `plies` plies (random setups).
fn random_game(rules: &Arc<RuleSet>, seed: u64, plies: usize) -> Game {
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    if !rules.deals() {
        for &side in rules.sides() {
            game.deploy_random(side, rng.next_u64()).unwrap();
        }
    }
    for _ in 0..plies {
        if game.result().is_some() {
            break;
        }
        let legal = game.legal_actions();
        game.play(legal[rng.below(legal.len())]).unwrap();
    }
    game
}

fn all_rules() -> Vec<Arc<RuleSet>> {
    let mut v: Vec<Arc<RuleSet>> = ["classic", "siguo", "siguo-2p", "fanqi", "sanjun-modern", "sanjun-book"]
        .into_iter()
        .map(|n| RuleSet::preset(n).unwrap())
        .collect();
    v.push(Arc::new(
        RuleSet::from_json(r#"{"extends": "classic", "name": "custom", "options": {"rail_max_steps": 3, "engineer_scouts": "everyone"}}"#)
            .unwrap(),
    ));
    v
}

/// A model counted from a few random games of `rules` (so every rule set has one that
/// is not plain).
fn model_of(rules: &Arc<RuleSet>) -> OpponentModel {
    let mut m = OpponentModel::empty(rules, "test");
    for seed in 0..3 {
        m.count(&random_game(rules, 100 + seed, 150));
    }
    m
}

#[test]
fn modelled_probabilities_are_sound_and_consistent_on_every_rule_set() {
    for rules in all_rules() {
        let models = [OpponentModel::plain(), OpponentModel::for_rules(&rules), model_of(&rules)];
        for seed in 0..3u64 {
            let game = random_game(&rules, seed, 40 + 60 * seed as usize);
            for &player in rules.sides() {
                let beliefs = game.beliefs(player);
                for model in &models {
                    let probs = beliefs.probabilities(model);
                    // Per type: the probabilities of the pieces on the board whose type is
                    // open, which with the pieces off the board make up the count.
                    for (p, side, kind) in game.position().pieces() {
                        let at = probs.at(p);
                        let label = format!("{} seed {seed} {player} on {}", rules.name(), game.board().name_of(p));
                        let sum: f64 = at.iter().map(|e| e.2).sum();
                        assert!((sum - 1.0).abs() < 1e-9, "[{label}] sums to {sum}");
                        let truth = at.iter().find(|e| e.0 == side && e.1 == kind).map_or(0.0, |e| e.2);
                        assert!(truth > 0.0, "[{label}] the true {side} {kind} has probability 0: {at:?}");
                        let ids = beliefs.candidate_identities(p);
                        assert_eq!(at.len(), ids.len(), "[{label}] one probability per candidate");
                        if ids.len() == 1 {
                            assert_eq!(at[0].2, 1.0, "[{label}] a single candidate keeps probability 1");
                        }
                        assert!(at.iter().all(|e| e.2 > 0.0 && e.2 <= 1.0), "[{label}] {at:?}");
                    }
                    read_by_kind_alike(&game, &probs);
                }
            }
        }
    }
}

/// `kinds_into`, `kind` and `most_likely` read the same probabilities as `at`: per point,
/// the sums by kind over the candidates' armies (0 for an empty point and for a kind the
/// piece cannot be), and the kind with the largest sum (ties: the lowest kind index).
fn read_by_kind_alike(game: &Game, probs: &junqi::Probabilities) {
    let n = game.board().len();
    let mut out = vec![f64::NAN; n * PieceKind::COUNT + 3];
    probs.kinds_into(&mut out);
    assert!(out[n * PieceKind::COUNT..].iter().all(|x| x.is_nan()), "kinds_into wrote past points × kinds");
    for p in game.board().points() {
        let mut want = [0f64; PieceKind::COUNT];
        let at = probs.at(p);
        for &(_, k, q) in &at {
            want[k as usize] += q;
        }
        for (k, &w) in want.iter().enumerate() {
            let got = out[p.index() * PieceKind::COUNT + k];
            assert!((got - w).abs() < 1e-12, "{}: {:?}: {got}, not {w}", game.board().name_of(p), PieceKind::ALL[k]);
            if w > 0.0 || k == 0 {
                assert!((probs.kind(p, PieceKind::ALL[k]) - w).abs() < 1e-12);
            }
        }
        let mut best: Option<usize> = None;
        for k in (0..PieceKind::COUNT).filter(|&k| at.iter().any(|e| e.1 as usize == k)) {
            if best.is_none_or(|b| want[k] > want[b]) {
                best = Some(k);
            }
        }
        assert_eq!(probs.most_likely(p), best.map(|k| PieceKind::ALL[k]), "{}: {want:?}", game.board().name_of(p));
    }
}

#[test]
fn at_the_start_the_plain_probabilities_are_the_count_weighted_shares() {
    // Before any move, an enemy piece's candidates are its point's allowed kinds; the
    // scaling gives each piece of one group of interchangeable points the same row,
    // and every kind's probabilities add up to its count.
    let rules = RuleSet::preset("classic").unwrap();
    let game = random_game(&rules, 5, 0);
    let beliefs = game.beliefs(Side::South);
    let probs = beliefs.probabilities(&OpponentModel::plain());
    let mut total = [0f64; PieceKind::COUNT];
    for (p, side, _) in game.position().pieces() {
        if side == Side::North {
            for (_, k, q) in probs.at(p) {
                total[k as usize] += q;
            }
        }
    }
    for (kind, n) in rules.army() {
        assert!((total[kind as usize] - n as f64).abs() < 1e-3, "{kind}: {} for {n} pieces", total[kind as usize]);
    }
    // Flags stand in an HQ: the two HQs share the one flag (and the rest), alike.
    let (b12, d12) = (game.board().point("b12").unwrap(), game.board().point("d12").unwrap());
    assert!((probs.kind(b12, PieceKind::Flag) - 0.5).abs() < 1e-3);
    assert!((probs.kind(d12, PieceKind::Flag) - 0.5).abs() < 1e-3);
}

#[test]
fn the_evidence_counts_each_kind_of_move_and_the_turns_on_the_board() {
    // Random play on classic; after every ply the other player's beliefs must show the
    // mover's move in the bucket its direction and length give, seen from the mover's
    // seat (the drawing grid has South's back row at y = 0, North's at the top), and
    // one more turn for every piece of the mover's army.
    let rules = RuleSet::preset("classic").unwrap();
    let mut seen = [[false; 5]; 2];
    for seed in 0..6u64 {
        let mut game = random_game(&rules, seed, 0);
        let b = rules.board();
        let mut rng = Rng::new(seed);
        while game.result().is_none() && game.position().ply() < 300 {
            let side = game.to_act().unwrap();
            let other = if side == Side::South { Side::North } else { Side::South };
            let before = game.beliefs(other);
            let legal = game.legal_actions();
            let a = legal[rng.below(legal.len())];
            let Action::Move { from, to } = a else { unreachable!() };
            let empty = game.position().piece_at(to).is_none();
            let (m0, t0) = before.evidence(from).unwrap();
            game.play(a).unwrap();
            let after = game.beliefs(other);
            // Every other piece of the army that stays: one more turn, no move.
            for (p, s, _) in game.position().pieces() {
                if s == side && p != to && p != from {
                    let (m, t) = after.evidence(p).unwrap();
                    assert_eq!((m, t), (before.evidence(p).unwrap().0, before.evidence(p).unwrap().1 + 1));
                }
            }
            if !empty || game.position().piece_at(to).map(|x| x.0) != Some(side) {
                continue; // an attack, or the mover left the board
            }
            let (m1, t1) = after.evidence(to).unwrap();
            assert_eq!(t1, t0 + 1);
            let (ys, yt) = (b.coords(from).1 as i32, b.coords(to).1 as i32);
            let forward = if side == Side::South { yt > ys } else { yt < ys };
            let step = b.neighbours(from).iter().any(|(q, _)| *q == to);
            let bucket = match (step, forward, yt == ys) {
                (true, true, _) => 0,
                (true, false, true) => 1,
                (true, false, false) => 2,
                (false, true, _) => 3,
                (false, false, _) => 4,
            };
            let mut want = m0;
            want[bucket] += 1;
            assert_eq!(m1, want, "{side} {}-{}", b.name_of(from), b.name_of(to));
            seen[(side == Side::North) as usize][bucket] = true;
        }
    }
    assert!(seen.iter().all(|s| s.iter().all(|&x| x)), "every kind of move seen from both seats: {seen:?}");
}

#[test]
fn attacks_are_counted_in_an_attack_bucket() {
    let rules = RuleSet::preset("classic").unwrap();
    let mut attacks = 0;
    for seed in 0..6u64 {
        let mut game = random_game(&rules, seed, 0);
        let mut rng = Rng::new(seed);
        while game.result().is_none() && game.position().ply() < 300 {
            let side = game.to_act().unwrap();
            let other = if side == Side::South { Side::North } else { Side::South };
            let legal = game.legal_actions();
            let a = legal[rng.below(legal.len())];
            let Action::Move { from, to } = a else { unreachable!() };
            if game.position().piece_at(to).is_none() {
                game.play(a).unwrap();
                continue;
            }
            let before = game.beliefs(other);
            let (m0, t0) = before.evidence(from).unwrap();
            game.play(a).unwrap();
            attacks += 1;
            let after = game.beliefs(other);
            match after.evidence(to) {
                Some((m1, t1)) if game.position().piece_at(to).map(|x| x.0) == Some(side) => {
                    // It won and stands on the target: one more attack, nothing else.
                    assert_eq!(t1, t0 + 1);
                    let diff: Vec<i32> = (0..8).map(|i| m1[i] as i32 - m0[i] as i32).collect();
                    assert_eq!(diff.iter().sum::<i32>(), 1, "{diff:?}");
                    assert!(diff[5..].iter().sum::<i32>() == 1, "an attack bucket: {diff:?}");
                }
                _ => {}
            }
        }
    }
    assert!(attacks > 20);
}

#[test]
fn a_model_reads_back_from_its_json_and_merges_as_one() {
    let rules = RuleSet::preset("classic").unwrap();
    let games: Vec<Game> = (0..4).map(|s| random_game(&rules, s, 120)).collect();
    let mut all = OpponentModel::empty(&rules, "four games");
    for g in &games {
        assert!(all.count(g));
    }
    let (mut a, mut b) = (OpponentModel::empty(&rules, "four games"), OpponentModel::empty(&rules, "four games"));
    a.count(&games[0]);
    a.count(&games[1]);
    b.count(&games[2]);
    b.count(&games[3]);
    assert!(a.merge(&b));
    assert_eq!(a, all);
    assert_eq!(all.games(), 4);
    let text = all.to_json(&rules);
    assert_eq!(OpponentModel::from_json(&rules, &text).unwrap(), all);
    let plain = OpponentModel::plain();
    assert_eq!(OpponentModel::from_json(&rules, &plain.to_json(&rules)).unwrap(), plain);
    // The shipped models are files `to_json` wrote, each count once (no zero counts).
    for (name, file) in [
        ("classic", include_str!("../data/models/classic.json")),
        ("siguo", include_str!("../data/models/siguo.json")),
        ("sanjun-modern", include_str!("../data/models/sanjun-modern.json")),
    ] {
        let rules = RuleSet::preset(name).unwrap();
        assert_eq!(OpponentModel::for_rules(&rules).to_json(&rules), file, "{name}");
        assert!(!file.contains(": 0,") && !file.contains(": 0}"), "{name}");
    }
    // A kind the army lists with no piece is left out of the JSON (reading it back would
    // refuse the kind).
    let no_bombs = Arc::new(RuleSet::from_json(r#"{"extends": "classic", "name": "unarmed", "army": {"flag": 1, "commander": 1, "army_commander": 1, "division_commander": 2, "brigade_commander": 2, "regiment_commander": 2, "battalion_commander": 2, "company_commander": 3, "platoon_leader": 5, "engineer": 3, "mine": 3, "bomb": 0}}"#).unwrap());
    assert!(no_bombs.army().any(|(k, n)| k == PieceKind::Bomb && n == 0));
    let mut m = OpponentModel::empty(&no_bombs, "x");
    assert!(m.count(&random_game(&no_bombs, 1, 30)));
    assert!(!m.to_json(&no_bombs).contains("\"bomb\""), "{}", m.to_json(&no_bombs));
    assert_eq!(OpponentModel::from_json(&no_bombs, &m.to_json(&no_bombs)).unwrap(), m);
    // And a model that counts bombs is not one of it.
    assert_eq!(OpponentModel::from_json(&no_bombs, &text), Err(ModelError::UnknownKind("bomb".into())));
    // Another rule set's games are not counted.
    let siguo = RuleSet::preset("siguo").unwrap();
    assert!(!all.count(&random_game(&siguo, 1, 10)));
    assert!(!all.merge(&OpponentModel::empty(&siguo, "x")));
    // Nor are those of a rule set on the same board under another name, or of one that
    // deals face down (nothing to read), even into a model of its own.
    let open = Arc::new(RuleSet::from_json(r#"{"extends": "classic", "name": "open", "options": {"open_play": true}}"#).unwrap());
    assert!(!all.count(&random_game(&open, 1, 10)));
    assert!(!all.merge(&OpponentModel::empty(&open, "x")));
    let fanqi = RuleSet::preset("fanqi").unwrap();
    assert!(!OpponentModel::empty(&fanqi, "x").count(&random_game(&fanqi, 1, 10)));
    assert_eq!(all.games(), 4);
    assert_eq!(all.rules_name(), Some("classic"));
    assert_eq!(OpponentModel::plain().rules_name(), None);
    assert_eq!(OpponentModel::for_rules(&siguo).rules_name(), Some("siguo"));
}

/// Counting a game adds, for every piece, the evidence its opponent's beliefs hold (its
/// moves by bucket, its turns on the board) to its true kind, and one piece of that kind
/// to the point it was deployed on; a second game adds as much again.
#[test]
fn a_counted_game_adds_each_piece_s_public_evidence_to_its_true_kind() {
    let rules = RuleSet::preset("classic").unwrap();
    for seed in 0..3u64 {
        let mut game = random_game(&rules, seed, 0);
        let deployed: Vec<_> = game.position().pieces().collect();
        // Quiet moves only (no piece leaves the board: each one's evidence stays readable).
        let mut rng = Rng::new(seed);
        for _ in 0..(40 + 30 * seed) {
            let quiet: Vec<Action> = game
                .legal_actions()
                .into_iter()
                .filter(|a| matches!(a, Action::Move { to, .. } if game.position().piece_at(*to).is_none()))
                .collect();
            if quiet.is_empty() || game.result().is_some() {
                break;
            }
            game.play(quiet[rng.below(quiet.len())]).unwrap();
        }
        let (mut moves, mut turns) = ([[0u64; 8]; PieceKind::COUNT], [0u64; PieceKind::COUNT]);
        for (p, side, kind) in game.position().pieces() {
            let observer = if side == Side::South { Side::North } else { Side::South };
            let (m, t) = game.beliefs(observer).evidence(p).unwrap();
            for (b, n) in m.iter().enumerate() {
                moves[kind as usize][b] += *n as u64;
            }
            turns[kind as usize] += t as u64;
        }
        let mut model = OpponentModel::empty(&rules, "one game");
        for games in 1..=2u64 {
            assert!(model.count(&game));
            let v: serde_json::Value = serde_json::from_str(&model.to_json(&rules)).unwrap();
            assert_eq!(v["games"], games);
            for (kind, _) in rules.army() {
                let k = &v["kinds"][kind.id()];
                let want: Vec<u64> = moves[kind as usize].iter().map(|n| n * games).collect();
                assert_eq!(k["moves"], serde_json::json!(want), "seed {seed}: {kind:?}");
                assert_eq!(k["turns"], turns[kind as usize] * games, "seed {seed}: {kind:?}");
            }
            let mut origins = serde_json::Map::new();
            for &(p, _, kind) in &deployed {
                let row = origins.entry(game.board().name_of(p)).or_insert(serde_json::json!({}));
                row[kind.id()] = serde_json::json!(row[kind.id()].as_u64().unwrap_or(0) + games);
            }
            assert_eq!(v["origins"], serde_json::Value::Object(origins), "seed {seed}");
        }
    }
}

#[test]
fn malformed_models_are_refused_with_the_reason() {
    let rules = RuleSet::preset("classic").unwrap();
    let good = OpponentModel::for_rules(&rules).to_json(&rules);
    let cases: &[(String, ModelError)] = &[
        ("[1, 2".into(), ModelError::Json(String::new())),
        ("{}".into(), ModelError::Format),
        (good.replace("\"games\"", "\"gamez\""), ModelError::Field("games".into())),
        (good.replace("\"engineer\":", "\"pawn\":"), ModelError::UnknownKind("pawn".into())),
        (good.replace("\"a1\":", "\"z99\":"), ModelError::UnknownPoint("z99".into())),
        (good.replace("\"step_back\"", "\"back\""), ModelError::Field("buckets".into())),
    ];
    for (text, want) in cases {
        let got = OpponentModel::from_json(&rules, text).unwrap_err();
        match (want, &got) {
            (ModelError::Json(_), ModelError::Json(_)) => {}
            _ => assert_eq!(&got, want, "{text}"),
        }
        assert!(!got.to_string().is_empty());
    }
    // A name that is neither a model's nor JSON is refused as a name.
    assert_eq!(OpponentModel::load(&rules, " psychic ").unwrap_err(), ModelError::UnknownModel("psychic".into()));
    assert!(matches!(OpponentModel::load(&rules, "{oops"), Err(ModelError::Json(_))));
    // A siguo model's points are no classic points.
    let siguo = RuleSet::preset("siguo").unwrap();
    let m = OpponentModel::empty(&siguo, "x");
    let mut m2 = m.clone();
    m2.count(&random_game(&siguo, 2, 30));
    assert!(matches!(OpponentModel::from_json(&rules, &m2.to_json(&siguo)), Err(ModelError::UnknownPoint(_) | ModelError::UnknownKind(_))));
}

#[test]
fn the_shipped_model_reads_what_the_engine_s_deployments_do() {
    let rules = RuleSet::preset("classic").unwrap();
    let model = OpponentModel::for_rules(&rules);
    assert!(!model.is_plain(), "classic ships a model");
    assert!(model.games() >= 1000);
    // Custom and dealt rule sets get the plain model.
    assert!(OpponentModel::for_rules(&RuleSet::preset("fanqi").unwrap()).is_plain());
    let custom = RuleSet::from_json(r#"{"extends": "classic", "name": "custom"}"#).unwrap();
    assert!(OpponentModel::for_rules(&custom).is_plain());
    // Agents' deployments, seen from South before any move: the modelled flag is in an
    // HQ more surely than the plain one, and a piece that has charged and won is more
    // likely a strong officer.
    let mut hits = [0.0f64; 2];
    for seed in 0..20u64 {
        let mut game = Game::with_rules(rules.clone(), seed);
        for (i, &side) in rules.sides().iter().enumerate() {
            let mut agent = junqi::agent::by_name("greedy", seed * 2 + i as u64).unwrap();
            junqi::agent::act(&mut game, side, agent.as_mut()).unwrap();
        }
        let beliefs = game.beliefs(Side::South);
        let (plain, modelled) = (beliefs.probabilities(&OpponentModel::plain()), beliefs.probabilities(&model));
        for (p, side, kind) in game.position().pieces() {
            if side == Side::North {
                hits[0] += plain.kind(p, kind);
                hits[1] += modelled.kind(p, kind);
            }
        }
    }
    assert!(hits[1] > 1.5 * hits[0], "mean probability of the true kind: plain {}, modelled {}", hits[0], hits[1]);
}
