//! Beliefs (the `inference` module) on random games of every preset and option variant:
//! at every ply, for every player, the true identity of every piece is among its
//! candidates (soundness), the candidates admit a full assignment (consistency), and the
//! beliefs kept report by report equal those rebuilt from the player's own record.
//! Determinizations agree with the beliefs, and observations have the documented shape.
use std::sync::Arc;

use junqi::{Beliefs, Game, Observer, OpponentModel, PieceKind, Point, Rng, Role, RuleSet, Setup, Side, Turn};

const VARIANTS: &[(&str, &str)] = &[
    ("classic", "{}"),
    ("classic", r#"{"engineer_scouts": "attacker"}"#),
    ("classic", r#"{"engineer_scouts": "everyone", "mine_survives": false}"#),
    ("classic", r#"{"rail_max_steps": 3}"#),
    (
        "classic",
        r#"{"rail_all_turn": true, "rail_max_steps": 2, "bomb_may_hit_flag": false}"#,
    ),
    (
        "classic",
        r#"{"hq_shelter": true, "flag_guarded_by_mines": true, "hq_locks": false}"#,
    ),
    (
        "classic",
        r#"{"engineer_scouts": "sacrifice", "smallest_digs_mines": "engineers_and_bombs_gone", "open_after_deploy": true}"#,
    ),
    ("classic", r#"{"smallest_digs_mines": "engineers_gone", "hq_safe_from": ["bomb"]}"#),
    ("siguo", "{}"),
    ("siguo-2p", "{}"),
    (
        "siguo",
        r#"{"allies_see_each_other": true, "engineer_scouts": "attacker"}"#,
    ),
    ("fanqi", "{}"),
    ("sanjun-modern", "{}"),
    ("sanjun-modern", r#"{"open_play": true, "commander_capture": true}"#),
    ("sanjun-modern", r#"{"recon_lock_on": true, "hq_safe_from": ["bomb"]}"#),
    ("sanjun-hk", "{}"),
    ("sanjun-book", "{}"),
    ("sanjun-forum", "{}"),
];

fn rules_of(v: (&str, &str)) -> Arc<RuleSet> {
    Arc::new(
        RuleSet::from_json(&format!(
            r#"{{"extends": "{}", "name": "test", "options": {}}}"#,
            v.0, v.1
        ))
        .unwrap(),
    )
}

/// Checks every player's beliefs against the referee's truth.
/// A game of `rules` seeded with `seed`, random deployments (unless dealt) and up to
/// `plies` random plies, all drawn from `Rng::new(seed)`; the generator is returned to
/// draw on.
fn random_game(rules: &Arc<RuleSet>, seed: u64, plies: usize) -> (Game, Rng) {
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
    (game, rng)
}

fn check_sound(game: &Game, beliefs: &Beliefs, label: &str, ply: usize) {
    let player = beliefs.player();
    assert!(
        beliefs.is_consistent(),
        "[{label}] {player}'s beliefs inconsistent at ply {ply}"
    );
    let pos = game.position();
    for (p, side, kind) in pos.pieces() {
        let ids = beliefs.candidate_identities(p);
        assert!(
            ids.contains(&(side, kind)),
            "[{label}] ply {ply}: {player} excludes the true {side} {kind} on {} (candidates {ids:?})",
            game.board().name_of(p)
        );
        if !pos.is_face_down(p) {
            assert_eq!(
                beliefs.owner(p),
                Some(side),
                "[{label}] owner on {}",
                game.board().name_of(p)
            );
        }
        if pos.knows(player, p) && !pos.is_face_down(p) {
            assert_eq!(
                beliefs.candidates(p).len(),
                1,
                "[{label}] a known piece has one candidate"
            );
        }
    }
    assert_eq!(
        beliefs.occupied(),
        pos.occupied(),
        "[{label}] ply {ply}: {player} tracks the board"
    );
    check_accessors(game, beliefs, &format!("{label} ply {ply}"));
}

/// The beliefs' other readings agree with the candidates and with the board: the
/// boolean matrix, the marks of a moved or shown piece, an empty point's answers, and
/// the unseen pieces' candidate count worked out from the candidates.
fn check_accessors(game: &Game, beliefs: &Beliefs, label: &str) {
    let player = beliefs.player();
    let pos = game.position();
    let n = game.board().len();
    let mut matrix = vec![true; n * PieceKind::COUNT + 3];
    beliefs.mask_into(&mut matrix);
    assert!(matrix[n * PieceKind::COUNT..].iter().all(|&b| b), "[{label}] mask_into writes past the board");
    let (mut total, mut unseen) = (0, 0);
    for p in game.board().points() {
        let c = beliefs.candidates(p);
        for k in PieceKind::ALL {
            assert_eq!(matrix[p.index() * PieceKind::COUNT + k as usize], c.contains(k), "[{label}] mask_into {k} on {p:?}");
        }
        let ids = beliefs.candidate_identities(p);
        let mut kinds: Vec<PieceKind> = ids.iter().map(|&(_, k)| k).collect();
        kinds.sort_by_key(|k| *k as usize);
        kinds.dedup();
        assert_eq!(c.iter().collect::<Vec<_>>(), kinds, "[{label}] candidates and identities on {p:?}");
        assert_eq!(c.len(), kinds.len());
        assert_eq!(c.is_empty(), pos.piece_at(p).is_none(), "[{label}] an empty point has no candidate");
        assert_eq!(beliefs.has_moved(p), pos.has_moved(p), "[{label}] {player}: the moved mark on {p:?}");
        if pos.piece_at(p).is_none() {
            assert!(ids.is_empty() && beliefs.owner(p).is_none() && !beliefs.is_known(p), "[{label}] empty {p:?}");
            continue;
        }
        if beliefs.is_known(p) {
            assert_eq!(ids.len(), 1, "[{label}] a shown piece has one candidate");
        }
        assert_eq!(
            beliefs.is_known(p),
            pos.knows(player, p) && !pos.is_face_down(p),
            "[{label}] {player} was shown the piece on {p:?}"
        );
        let own = beliefs.army().is_some() && beliefs.owner(p) == beliefs.army();
        if !beliefs.is_known(p) && !own {
            total += ids.len();
            unseen += 1;
        }
    }
    assert_eq!(beliefs.unseen_candidate_total(), (total, unseen), "[{label}] {player}'s unseen candidates");
}

fn fresh(game: &Game, rules: &Arc<RuleSet>, player: Side, setups: &[(Side, Setup)]) -> Beliefs {
    let own = setups.iter().find(|(s, _)| *s == player).map(|(_, s)| s);
    let mut b = Beliefs::new(rules.clone(), player, own).unwrap();
    if rules.options().allies_see_each_other {
        for (s, setup) in setups {
            if *s != player && rules.team_of(player).contains(*s) {
                b.learn_setup(*s, setup).unwrap();
            }
        }
    }
    let _ = game;
    b
}

/// Plays one random game, checking at every ply. `record_every`: how often beliefs are
/// rebuilt from the player's record and compared.
fn run(variant: (&str, &str), seed: u64, plies: usize, record_every: usize) -> usize {
    let rules = rules_of(variant);
    let label = format!("{} {} seed {seed}", variant.0, variant.1);
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    let mut setups = Vec::new();
    if !rules.deals() {
        for &side in rules.sides() {
            setups.push((side, Setup::random(&rules, side, rng.next_u64())));
        }
    }
    let mut beliefs: Vec<Beliefs> = rules
        .sides()
        .iter()
        .map(|&p| fresh(&game, &rules, p, &setups))
        .collect();
    for (side, s) in &setups {
        let report = game.deploy(*side, s).unwrap();
        for b in &mut beliefs {
            b.observe(&report.events_for(b.player()));
        }
    }
    let mut ply = 0;
    while ply < plies && game.result().is_none() {
        let legal = game.legal_actions();
        let a = legal[rng.below(legal.len())];
        let report = game.play(a).unwrap();
        ply += 1;
        for b in &mut beliefs {
            b.observe(&report.events_for(b.player()));
            check_sound(&game, b, &label, ply);
        }
        if ply <= 20 || ply % record_every == 0 || game.result().is_some() {
            for b in &beliefs {
                let player = b.player();
                let mut from_record = Beliefs::from_player_record(&game.player_record(player)).unwrap();
                if rules.options().allies_see_each_other {
                    // A player record holds only the player's own setup: compare with
                    // the game's beliefs, which add the partners' setups.
                    from_record = game.beliefs(player);
                }
                assert!(
                    *b == from_record,
                    "[{label}] ply {ply}: {player}'s incremental beliefs differ from its record's"
                );
            }
        }
    }
    ply
}

/// Three games per variant; `JUNQI_INFERENCE_GAMES=200` (and `JUNQI_INFERENCE_SEED`) for a
/// longer soak.
#[test]
fn beliefs_are_sound_consistent_and_incremental_on_every_preset() {
    let games: u64 = std::env::var("JUNQI_INFERENCE_GAMES").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let base: u64 = std::env::var("JUNQI_INFERENCE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut total = 0;
    for (i, v) in VARIANTS.iter().enumerate() {
        for g in 0..games {
            let seed = base + 1000 * i as u64 + g;
            total += run(*v, seed, 400, 30);
        }
    }
    assert!(total > 3000, "random games too short: {total} plies");
}

#[test]
fn determinize_agrees_with_the_beliefs_and_the_seed() {
    for v in VARIANTS {
        let rules = rules_of(*v);
        let (game, _) = random_game(&rules, 5, 120);
        for &player in rules.sides() {
            let beliefs = game.beliefs(player);
            let a = game.determinize(player, 7);
            let b = game.determinize(player, 7);
            assert!(
                a.position().same_state(b.position()),
                "[{}] same seed, same sample",
                v.0
            );
            assert_eq!(a.position().occupied(), game.position().occupied());
            assert_eq!(a.to_act(), game.to_act());
            assert_eq!(
                a.view(player).pieces,
                game.view(player).pieces,
                "[{}] the player's view is kept",
                v.0
            );
            for (p, side, kind) in a.position().pieces() {
                assert!(
                    beliefs.candidate_identities(p).contains(&(side, kind)),
                    "[{}] sample outside the candidates",
                    v.0
                );
            }
            // Exact counts: every army is complete (on and off the board) — checked
            // through the drawn setups, which must validate.
            for (side, count) in rules.sides().iter().map(|s| (*s, a.position().occupied_by(*s).len())) {
                assert_eq!(count, game.position().occupied_by(side).len());
            }
            if !rules.deals() {
                let record = a.record();
                for e in &record.actions {
                    if let junqi::RecordEntry::Deploy { deploy, setup } = e {
                        assert!(
                            setup.validate(&rules, *deploy).is_ok(),
                            "[{}] a drawn setup is legal",
                            v.0
                        );
                    }
                }
            }
            // Different seeds draw different hidden armies (nearly always).
            let differs = (0..8).any(|s| !game.determinize(player, 100 + s).position().same_state(a.position()));
            assert!(differs || beliefs.unseen_candidate_total().0 == beliefs.unseen_candidate_total().1);
        }
    }
}

#[test]
fn observation_shape_and_content() {
    for v in VARIANTS {
        let rules = rules_of(*v);
        let spec = rules.observation_spec();
        let (game, _) = random_game(&rules, 9, 60);
        for &player in rules.sides() {
            let obs = game.observation(player);
            assert_eq!(obs.len(), spec.len());
            let n = spec.points;
            let ch = |name: &str| spec.channels.iter().position(|c| c == name).unwrap();
            // Probabilities of each unseen piece sum to one; candidates cover them.
            let kinds: Vec<usize> = spec
                .channels
                .iter()
                .enumerate()
                .filter(|(_, c)| c.starts_with("probability:"))
                .map(|(i, _)| i)
                .collect();
            let observer = Observer::new(rules.clone(), player);
            for (i, &p) in observer.order().iter().enumerate() {
                let occupied = game.position().occupied().contains(p);
                let other = occupied && game.position().owner_at(p) != game.position().army_of(player);
                let face_down = game.position().is_face_down(p);
                let sum: f32 = kinds.iter().map(|&c| obs[c * n + i]).sum();
                if other || face_down {
                    assert!((sum - 1.0).abs() < 1e-4, "[{}] probabilities sum to {sum}", v.0);
                } else {
                    assert_eq!(sum, 0.0);
                }
            }
            let me = ch("to_act:0");
            let my_turn = game.to_act() == Some(player);
            assert_eq!(obs[me * n] == 1.0, my_turn);
            // Batched form = one by one.
            let b = game.beliefs(player);
            let mut batch = vec![0.0f32; 2 * observer.len()];
            observer.encode_batch(&[(&b, game.turn()), (&b, game.turn())], &mut batch);
            assert_eq!(&batch[..observer.len()], &obs[..]);
            assert_eq!(&batch[observer.len()..], &obs[..]);
        }
    }
}

/// `b`'s observation worked out from the table in the documentation of
/// `inference::observe` with the public API alone (the beliefs' candidates, owners and
/// marks, who commands each army, the board and `turn`), in plane order `order`.
fn expected_observation(game: &Game, b: &Beliefs, turn: Turn, order: &[Point]) -> Vec<f32> {
    let rules = b.rules();
    let board = rules.board();
    let player = b.player();
    let sides = rules.sides();
    let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
    let roles: Vec<Role> = Role::ALL.into_iter().filter(|r| board.points().any(|p| board.role(p) == *r)).collect();
    let kix = |kind: PieceKind| kinds.iter().position(|&x| x == kind).unwrap();
    let k = kinds.len();
    let (ally, enemy, face_down, known, moved, role) = (3 * k, 3 * k + 1, 3 * k + 2, 3 * k + 3, 3 * k + 4, 3 * k + 5);
    let railway = role + roles.len();
    let to_act = railway + 1;
    let ply = to_act + sides.len();
    let no_capture = ply + 1;
    let n = order.len();
    let mut out = vec![0.0f32; (no_capture + 1) * n];
    // Pieces of each identity not yet fixed: the army's count less the pieces (on the
    // board or off it) with that one candidate.
    let on: Vec<Point> = board.points().filter(|&p| b.occupied().contains(p)).collect();
    let mut rem: Vec<((Side, PieceKind), usize)> = Vec::new();
    for &s in sides {
        rem.extend(rules.army().map(|(kind, c)| ((s, kind), c as usize)));
    }
    for ids in on.iter().map(|&p| b.candidate_identities(p)).chain(b.off_board()) {
        if let [id] = ids[..] {
            let r = &mut rem.iter_mut().find(|(x, _)| *x == id).unwrap().1;
            *r = r.saturating_sub(1);
        }
    }
    let rem_of = |id: (Side, PieceKind)| rem.iter().find(|(x, _)| *x == id).unwrap().1;
    for (i, &p) in order.iter().enumerate() {
        out[(role + roles.iter().position(|r| *r == board.role(p)).unwrap()) * n + i] = 1.0;
        if board.is_railway(p) {
            out[railway * n + i] = 1.0;
        }
        if !on.contains(&p) {
            continue;
        }
        if b.has_moved(p) {
            out[moved * n + i] = 1.0;
        }
        let ids = b.candidate_identities(p);
        match b.owner(p) {
            None => out[face_down * n + i] = 1.0,
            Some(o) if b.army() == Some(o) => {
                assert_eq!(ids.len(), 1, "own pieces are known");
                out[kix(ids[0].1) * n + i] = 1.0;
                continue;
            }
            // A partner's army or an opponent's: by the player commanding it (under a
            // deal, the army labelled with a side may be another side's).
            Some(o) => {
                let commander = game.position().player_of(o).unwrap();
                let c = if rules.team_of(player).contains(commander) { ally } else { enemy };
                out[c * n + i] = 1.0;
            }
        }
        if b.is_known(p) {
            out[known * n + i] = 1.0;
        }
        let total: usize = ids.iter().map(|&id| rem_of(id)).sum();
        for &id in &ids {
            let c = kix(id.1);
            out[(k + c) * n + i] = 1.0;
            out[(2 * k + c) * n + i] += if ids.len() == 1 {
                1.0
            } else if total == 0 {
                1.0 / ids.len() as f32
            } else {
                rem_of(id) as f32 / total as f32
            };
        }
    }
    let seat_of = |s: Side| sides.iter().position(|&x| x == s).unwrap();
    if let Some(s) = turn.to_act {
        let seat = (seat_of(s) + sides.len() - seat_of(player)) % sides.len();
        out[(to_act + seat) * n..(to_act + seat + 1) * n].fill(1.0);
    }
    out[ply * n..(ply + 1) * n].fill((turn.ply as f32 / 1000.0).min(1.0));
    let limit = match rules.options().no_capture_draw_plies {
        0 => 100,
        l => l,
    };
    out[no_capture * n..(no_capture + 1) * n].fill((turn.no_capture as f32 / limit as f32).min(1.0));
    out
}

/// Every float of the observation tensor, as the table in the documentation of
/// `inference::observe` has it: games of every variant (and of one whose no-capture draw
/// is off, one whose army lists a kind 0 times) at the start, mid-game and late, for
/// every player, with their own turn and counters and made-up ones (every seat to act or
/// none, counters past their caps). Also the channel names and the accessors of the spec
/// and the observer.
#[test]
fn observation_channels_hold_what_the_beliefs_say() {
    let mut variants: Vec<(String, Arc<RuleSet>)> = VARIANTS.iter().map(|v| (format!("{} {}", v.0, v.1), rules_of(*v))).collect();
    variants.push(("no draw".into(), rules_of(("classic", r#"{"no_capture_draw_plies": 0}"#))));
    let army = r#"{"flag": 1, "commander": 1, "army_commander": 1, "division_commander": 2, "brigade_commander": 2,
        "regiment_commander": 2, "battalion_commander": 2, "company_commander": 3, "platoon_leader": 3, "engineer": 5,
        "mine": 3, "bomb": 0}"#;
    let no_bombs = RuleSet::from_json(&format!(r#"{{"extends": "classic", "name": "test", "army": {army}}}"#)).unwrap();
    assert!(no_bombs.army().any(|(k, n)| k == PieceKind::Bomb && n == 0));
    variants.push(("no bombs".into(), Arc::new(no_bombs)));
    for (label, rules) in variants {
        let board = rules.board();
        let spec = rules.observation_spec();
        let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
        let mut names: Vec<String> = Vec::new();
        for prefix in ["own", "candidate", "probability"] {
            names.extend(kinds.iter().map(|k| format!("{prefix}:{}", k.id())));
        }
        names.extend(["ally", "enemy", "face_down", "known", "moved"].map(String::from));
        let roles = Role::ALL.into_iter().filter(|r| board.points().any(|p| board.role(p) == *r));
        names.extend(roles.map(|r| format!("role:{}", r.name())));
        names.push("railway".into());
        names.extend((0..rules.sides().len()).map(|i| format!("to_act:{i}")));
        names.extend(["ply", "no_capture"].map(String::from));
        assert_eq!(spec.channels, names, "[{label}]");
        assert_eq!(spec.points, board.len());
        assert_eq!(spec.shape(), [names.len(), board.len()]);
        assert_eq!(spec.len(), names.len() * board.len());
        assert!(!spec.is_empty());
        let empty = junqi::ObservationSpec { channels: Vec::new(), points: spec.points };
        assert!(empty.is_empty() && empty.len() == 0 && empty.shape() == [0, spec.points]);
        for &player in rules.sides() {
            let observer = Observer::new(rules.clone(), player);
            assert_eq!(observer.spec(), spec);
            assert_eq!((observer.len(), observer.points()), (spec.len(), spec.points));
            assert!(!observer.is_empty());
            assert_eq!(observer.kinds(), &kinds[..]);
            // The plane order: the board turned so that the player sits south, read row
            // by row from the player's own back row forward, each row from the player's
            // left to its right (the surface first, then the air). Per seat, the grid
            // directions (x, y) of "forward" and of "to the right".
            let ((fx, fy), (rx, ry)) = match player {
                Side::South => ((0, 1), (1, 0)),
                Side::North => ((0, -1), (-1, 0)),
                Side::East => ((-1, 0), (0, 1)),
                Side::West => ((1, 0), (0, -1)),
            };
            let mut order: Vec<Point> = board.points().collect();
            order.sort_by_key(|&p| {
                let (x, y) = board.coords(p);
                let (x, y) = (x as i32, y as i32);
                (board.is_air(p), fx * x + fy * y, rx * x + ry * y, p.index())
            });
            assert_eq!(observer.order(), &order[..], "[{label}] {player}'s plane order");
        }
        for (seed, plies) in [(5, 0), (9, 60), (13, 300)] {
            let (game, _) = random_game(&rules, seed, plies);
            for &player in rules.sides() {
                let observer = Observer::new(rules.clone(), player);
                let b = game.beliefs(player);
                let mut turns = vec![game.turn()];
                for (i, &s) in rules.sides().iter().enumerate() {
                    turns.push(Turn { to_act: Some(s), ply: 1 + 333 * i as u32, no_capture: 7 * i as u32 });
                }
                turns.push(Turn { to_act: None, ply: 1500, no_capture: 400 });
                // Written over garbage (NaN): every float of the observation is written,
                // none past it.
                let mut out = vec![f32::NAN; observer.len() + 3];
                for turn in turns {
                    out[..observer.len()].fill(f32::NAN);
                    observer.encode(&b, turn, &mut out);
                    let want = expected_observation(&game, &b, turn, observer.order());
                    let n = observer.points();
                    for (j, (&got, &want)) in out.iter().zip(&want).enumerate() {
                        assert!(
                            (got - want).abs() <= 1e-6,
                            "[{label}] seed {seed} ply {}: {player}'s {} on {} is {got}, not {want} ({turn:?})",
                            game.position().ply(),
                            spec.channels[j / n],
                            board.name_of(observer.order()[j % n])
                        );
                    }
                    assert!(out[observer.len()..].iter().all(|x| x.is_nan()), "[{label}] wrote past the observation");
                }
                observer.encode(&b, game.turn(), &mut out);
                assert_eq!(game.observation(player), out[..observer.len()], "[{label}]");
            }
        }
    }
}

/// The optional `modelled:<kind>` planes: after all the other channels, which stay as
/// they are; on every point of another player's piece its probability of each kind under
/// the model ([`Beliefs::probabilities`], kinds merged over armies), 0 elsewhere. On
/// every variant (with a model counted from a game of it) and on the shipped models.
#[test]
fn modelled_planes_hold_the_modelled_beliefs() {
    let mut cases: Vec<(String, Arc<RuleSet>, OpponentModel)> = Vec::new();
    for v in VARIANTS {
        let rules = rules_of(*v);
        let mut model = OpponentModel::empty(&rules, "test");
        for seed in [3, 4] {
            model.count(&random_game(&rules, seed, 200).0);
        }
        cases.push((format!("{} {}", v.0, v.1), rules, model));
    }
    for preset in ["classic", "siguo", "sanjun-modern"] {
        let rules = RuleSet::preset(preset).unwrap();
        let model = OpponentModel::for_rules(&rules);
        assert!(!model.is_plain(), "{preset} ships a model");
        cases.push((format!("{preset} shipped"), rules, model));
    }
    let mut weighed = 0;
    for (label, rules, model) in cases {
        let (plain_spec, spec) = (rules.observation_spec(), rules.modelled_observation_spec());
        let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
        let mut names = plain_spec.channels.clone();
        names.extend(kinds.iter().map(|k| format!("modelled:{}", k.id())));
        assert_eq!(spec.channels, names, "[{label}]");
        let (first, n) = (plain_spec.channels.len(), spec.points);
        let (game, _) = random_game(&rules, 21, 90);
        let mut differs = 0;
        for &player in rules.sides() {
            let plain = Observer::new(rules.clone(), player);
            let observer = plain.clone().with_model(model.clone());
            assert_eq!((observer.spec(), observer.len()), (spec.clone(), spec.len()), "[{label}]");
            assert_eq!(observer.model(), Some(&model));
            assert_eq!(plain.model(), None);
            let b = game.beliefs(player);
            // Over garbage: every float written, none past the observation.
            let mut out = vec![f32::NAN; observer.len() + 2];
            observer.encode(&b, game.turn(), &mut out);
            assert!(out[observer.len()..].iter().all(|x| x.is_nan()), "[{label}] wrote past the observation");
            assert_eq!(out[..first * n], game.observation(player)[..], "[{label}] the plain channels moved");
            let p = b.probabilities(&model);
            let uniform = b.probabilities(&OpponentModel::plain());
            for (i, &pt) in observer.order().iter().enumerate() {
                let other = b.occupied().contains(pt) && (b.owner(pt).is_none() || b.owner(pt) != b.army());
                let mut sum = 0.0;
                for (c, &kind) in kinds.iter().enumerate() {
                    let got = out[(first + c) * n + i];
                    let want = if other { p.kind(pt, kind) as f32 } else { 0.0 };
                    assert!((got - want).abs() < 1e-5, "[{label}] {player}'s modelled:{} on {} is {got}, not {want}", kind.id(), rules.board().name_of(pt));
                    if other && (p.kind(pt, kind) - uniform.kind(pt, kind)).abs() > 1e-3 {
                        differs += 1;
                    }
                    sum += got;
                }
                assert!(if other { (sum - 1.0).abs() < 1e-4 } else { sum == 0.0 }, "[{label}] {player}'s modelled planes on {} sum to {sum}", rules.board().name_of(pt));
            }
            // Written again over another player's observation: the same floats.
            let mut again = vec![0.5f32; observer.len()];
            observer.encode(&b, game.turn(), &mut again);
            assert_eq!(again, out[..observer.len()], "[{label}]");
        }
        // (A model trusts play like its own only: on these random games the shipped ones
        // fall back to the plain beliefs, as may the counted ones; see `weighed`.)
        weighed += differs;
    }
    // The planes are not the plain beliefs over again: some models weigh differently.
    assert!(weighed > 100, "{weighed} modelled probabilities differ from the plain ones");
}

/// A game started from a position string (no history): each player's beliefs start from
/// what the string says it knows — the identities it was shown (exactly those), which
/// pieces moved (no immobile kind among their candidates), the public owners and arms —
/// and the army counts, with the pieces off the board as unknown ones. They are sound,
/// and stay sound and incremental as the game goes on.
#[test]
fn beliefs_of_a_game_started_from_a_position_string() {
    use junqi::{Mobility, Phase};
    for (i, v) in VARIANTS.iter().enumerate() {
        let rules = rules_of(*v);
        let label = format!("{} {} started", v.0, v.1);
        let seed = 77 + i as u64;
        let (game, mut rng) = random_game(&rules, seed, 60);
        let mut started = Game::from_position_string_with(rules.clone(), &game.position_string(), seed).unwrap();
        let pos = started.position().clone();
        assert_ne!(pos.phase(), Phase::Deploy);
        let on_board = pos.pieces().count();
        let mut beliefs: Vec<Beliefs> = rules.sides().iter().map(|&p| started.beliefs(p)).collect();
        for b in &beliefs {
            let player = b.player();
            check_sound(&started, b, &label, 0);
            for (p, _, _) in pos.pieces() {
                let name = started.board().name_of(p);
                assert_eq!(b.is_known(p), pos.knows(player, p), "[{label}] {player} knows {name}");
                assert_eq!(b.has_moved(p), pos.has_moved(p), "[{label}] {name} moved");
                if pos.has_moved(p) {
                    assert!(
                        b.candidates(p).iter().all(|k| rules.mobility(k) != Mobility::Immobile),
                        "[{label}] {player}: a piece that moved is of no immobile kind ({name})"
                    );
                }
            }
            // Every piece of every army not on the board is off it, unknown.
            assert_eq!(
                b.off_board().len(),
                rules.army_size() * rules.sides().len() - on_board,
                "[{label}] {player}'s pieces off the board"
            );
        }
        // In a game drawn from a player's beliefs, the others know what was shown to
        // everyone.
        for b in &beliefs {
            let drawn = started.determinize(b.player(), 3);
            for (p, _, _) in pos.pieces() {
                for &viewer in rules.sides() {
                    if rules.sides().iter().all(|&s| pos.knows(s, p)) {
                        assert!(
                            drawn.position().knows(viewer, p),
                            "[{label}] in {}'s sample, {viewer} knows the public {}",
                            b.player(),
                            started.board().name_of(p)
                        );
                    }
                }
            }
        }
        for ply in 1..=40 {
            if started.result().is_some() {
                break;
            }
            let legal = started.legal_actions();
            let report = started.play(legal[rng.below(legal.len())]).unwrap();
            for b in &mut beliefs {
                b.observe(&report.events_for(b.player()));
                check_sound(&started, b, &label, ply);
                assert!(
                    *b == started.beliefs(b.player()),
                    "[{label}] ply {ply}: {}'s incremental beliefs differ from the game's",
                    b.player()
                );
            }
        }
    }
}

/// A sample draws, for every piece on the board, an identity among its candidates; the
/// same seed draws the same sample and other seeds others. In the game drawn from a
/// player's beliefs, the player knows what it was shown, the others their own pieces and
/// (nothing more than) what was shown to everyone; a dealt game's drawn deal holds every
/// army's exact composition.
#[test]
fn samples_and_drawn_games_agree_with_the_beliefs() {
    for v in VARIANTS {
        let rules = rules_of(*v);
        let shared = rules.options().allies_see_each_other;
        let (game, _) = random_game(&rules, 11, 80);
        let pos = game.position();
        for &player in rules.sides() {
            let b = game.beliefs(player);
            let s = b.sample(1).unwrap();
            assert!(s == b.sample(1).unwrap(), "[{}] same seed, same sample", v.0);
            let open = pos.pieces().any(|(p, _, _)| b.candidate_identities(p).len() > 1);
            if open {
                assert!((2..30).any(|k| b.sample(k).unwrap() != s), "[{}] other seeds, other samples", v.0);
            }
            assert_eq!(s.pieces().len(), pos.pieces().count());
            for (p, side, kind) in s.pieces() {
                assert!(b.candidate_identities(p).contains(&(side, kind)), "[{}] sample outside the candidates", v.0);
                assert_eq!(s.identity(p), Some((side, kind)));
            }
            for p in game.board().points().filter(|p| !pos.occupied().contains(*p)) {
                assert_eq!(s.identity(p), None);
            }
            let drawn = game.determinize(player, 5);
            let dp = drawn.position();
            for (p, owner, _) in dp.pieces() {
                let name = game.board().name_of(p);
                assert_eq!(dp.knows(player, p), b.is_known(p), "[{}] {player} on {name}", v.0);
                let everyone = rules.sides().iter().all(|&x| pos.knows(x, p));
                for &viewer in rules.sides().iter().filter(|&&x| x != player) {
                    let own = !rules.deals() && (owner == viewer || shared && rules.team_of(viewer).contains(owner));
                    if own || rules.deals() && !pos.is_face_down(p) {
                        assert!(dp.knows(viewer, p), "[{}] {viewer} knows {name} ({player}'s sample)", v.0);
                    } else if !everyone {
                        assert!(!dp.knows(viewer, p), "[{}] {viewer} told {name} ({player}'s sample)", v.0);
                    }
                }
            }
            if rules.deals() {
                let record = drawn.record();
                let Some(junqi::RecordEntry::Deal { deal }) = record.actions.first() else {
                    panic!("[{}] a drawn deal", v.0)
                };
                assert_eq!(deal.len(), rules.army_size() * rules.sides().len());
                for &side in rules.sides() {
                    for (kind, n) in rules.army() {
                        let drawn_n = deal.values().filter(|&&(s, k)| s == side && k == kind).count();
                        assert_eq!(drawn_n, n as usize, "[{}] {side} {kind} in the drawn deal", v.0);
                    }
                }
            }
        }
    }
}

/// Beliefs are refused for a game they are not about, each refusal a wrong-game error.
#[test]
fn determinize_refuses_beliefs_about_another_game() {
    use junqi::{Error, ErrorKind, SampleError};
    let game = |options: &str, plies: usize| {
        let mut g = Game::with_rules(rules_of(("classic", options)), 1);
        g.deploy_random(Side::South, 1).unwrap();
        g.deploy_random(Side::North, 2).unwrap();
        let mut rng = Rng::new(3);
        for _ in 0..plies {
            let legal = g.legal_actions();
            g.play(legal[rng.below(legal.len())]).unwrap();
        }
        g
    };
    let g = game("{}", 4);
    // The same rule set read again (another Arc) is the same rule set.
    let from_record = Beliefs::from_player_record(&g.player_record(Side::South)).unwrap();
    assert!(!Arc::ptr_eq(from_record.rules(), g.rules()));
    assert!(from_record.determinize(&g, 1).is_ok());
    let refused = |b: &Beliefs, g: &Game| b.determinize(g, 1).err().unwrap();
    // Same pieces on the same points, another rule set.
    let other_rules = game(r#"{"engineer_scouts": "attacker"}"#, 4);
    assert_eq!(other_rules.position().occupied(), g.position().occupied());
    let e = refused(&g.beliefs(Side::South), &other_rules);
    assert_eq!(e, SampleError::OtherRules);
    // The same game a ply later.
    let later = game("{}", 5);
    assert_eq!(refused(&g.beliefs(Side::South), &later), SampleError::OtherGame);
    // Beliefs told of a move from an empty point.
    let mut b = g.beliefs(Side::South);
    let empty: Vec<_> = g.board().points().filter(|p| !g.position().occupied().contains(*p)).take(2).collect();
    b.observe(&[junqi::Event::Moved {
        side: Side::North,
        from: empty[0],
        to: empty[1],
    }]);
    assert!(!b.is_consistent() && b.sample(1).is_none());
    assert_eq!(refused(&b, &g), SampleError::Inconsistent);
    for e in [SampleError::OtherRules, SampleError::OtherGame, SampleError::Inconsistent] {
        assert_eq!(e.kind(), ErrorKind::WrongGame);
        assert_eq!(format!("{e:?}"), e.to_string());
    }
}

/// Two beliefs are equal exactly when they hold the same information: each player's
/// own, the same player's a ply apart, and the same player's under another rule set
/// (the same pieces on the same points) all differ; a copy and a rebuild are equal.
#[test]
fn beliefs_are_equal_only_when_they_hold_the_same_information() {
    for v in VARIANTS {
        let rules = rules_of(*v);
        let (mut game, mut rng) = random_game(&rules, 11, 0);
        let before: Vec<Beliefs> = rules.sides().iter().map(|&s| game.beliefs(s)).collect();
        for (i, a) in before.iter().enumerate() {
            assert!(*a == a.clone(), "[{}] a copy", v.0);
            for b in &before[i + 1..] {
                assert!(*a != *b, "[{}] {} and {} know different things", v.0, a.player(), b.player());
            }
        }
        let legal = game.legal_actions();
        game.play(legal[rng.below(legal.len())]).unwrap();
        for (a, &s) in before.iter().zip(rules.sides()) {
            assert!(*a != game.beliefs(s), "[{}] {s} a ply apart", v.0);
        }
    }
    let other = rules_of(("classic", r#"{"engineer_scouts": "attacker"}"#));
    let (a, _) = random_game(&rules_of(("classic", "{}")), 11, 0);
    let (b, _) = random_game(&other, 11, 0);
    assert_eq!(a.position().occupied(), b.position().occupied());
    assert!(a.beliefs(Side::South) != b.beliefs(Side::South), "another rule set");
}
