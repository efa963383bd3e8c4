//! 海陆空三军棋 and the referee: non-interference (docs/referee.md, principle 2) for
//! all four presets and the book's switches. Two games that differ only in identities a
//! player has never been shown give that player identical views, legal actions, event
//! logs and error texts — with planes shot down, strikes, scouting, submarine
//! reactions and obligations in play.
//!
//! Method as in `noninterference.rs`, tracking pieces by their stable ids: play a
//! random game A; for a player P pick two enemy pieces of different kinds that P was
//! never shown and that never fought (the kinds of pieces that fought shape public
//! results); swap them in the enemy's setup (a swap across arms is not a legal setup
//! and is skipped); replay A's actions. If an enemy action becomes illegal, B is not
//! consistent with what P saw and is skipped; a P action refused in B is a failure.
mod common;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use junqi::{Action, Event, Game, Point, Rng, RuleSet, Setup, Side};
use proptest::prelude::*;

const VARIANTS: &[(&str, &str)] = &[
    ("sanjun-modern", "{}"),
    ("sanjun-hk", "{}"),
    ("sanjun-book", "{}"),
    ("sanjun-book", r#"{"commander_capture": true, "open_play": true}"#),
    ("sanjun-forum", "{}"),
];

fn variant_rules(v: (&str, &str)) -> Arc<RuleSet> {
    Arc::new(RuleSet::from_json(&format!(r#"{{"extends": "{}", "name": "test", "options": {}}}"#, v.0, v.1)).unwrap())
}

struct Played {
    rules: Arc<RuleSet>,
    actions: Vec<Action>,
    setups: Vec<(Side, Setup)>,
    /// Ids of pieces that took part in a combat or were flown over by a plane.
    fought: HashSet<usize>,
    /// Ids of pieces shown to each player.
    revealed: HashMap<Side, HashSet<usize>>,
    /// The id of the piece deployed on each (side, point).
    origin: HashMap<(Side, Point), usize>,
}

fn play_random(variant: (&str, &str), seed: u64, plies: usize) -> Played {
    let rules = variant_rules(variant);
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    let mut setups = Vec::new();
    for &side in rules.sides() {
        let s = Setup::random(&rules, side, rng.next_u64());
        game.deploy(side, &s).unwrap();
        setups.push((side, s));
    }
    let mut origin = HashMap::new();
    for (side, s) in &setups {
        for &(p, _) in s.validate(&rules, *side).unwrap().pieces() {
            origin.insert((*side, p), game.position().piece_id(p).unwrap());
        }
    }
    let board = rules.board().clone();
    let mut actions = Vec::new();
    let mut fought = HashSet::new();
    let mut revealed: HashMap<Side, HashSet<usize>> = HashMap::new();
    for _ in 0..plies {
        if game.result().is_some() {
            break;
        }
        let legal = game.legal_actions();
        let a = legal[rng.below(legal.len())];
        let before = game.position().clone();
        let report = game.play(a).unwrap();
        actions.push(a);
        let id_before = |p: Point| before.piece_id(p);
        // A plane's run shows that nothing it flew over shoots planes down: the pieces
        // on every surface point under its path (below and between its air positions)
        // shaped a public result.
        if let Action::Move { from, to } = a {
            if board.is_air(from) {
                fought.extend(board.passed_over(from, to).filter_map(id_before));
            }
        }
        for e in &report.public {
            match *e {
                Event::Attacked { from, to, .. } | Event::Struck { from, to, .. } => {
                    fought.extend(id_before(from));
                    fought.extend(id_before(to));
                    if let Some(below) = board.below(to) {
                        fought.extend(id_before(below));
                    }
                }
                Event::ShotDown { from, .. } => {
                    fought.extend(id_before(from));
                }
                _ => {}
            }
        }
        for &side in rules.sides() {
            for e in report.events_for(side) {
                if let Event::Revealed { point, .. } = e {
                    let ids = [id_before(point), game.position().piece_id(point)];
                    revealed.entry(side).or_default().extend(ids.into_iter().flatten());
                }
            }
        }
    }
    Played { rules, actions, setups, fought, revealed, origin }
}

fn swapped(setup: &Setup, rules: &RuleSet, x: Point, y: Point) -> Setup {
    common::swap_points(setup, rules.board().name_of(x), rules.board().name_of(y))
}

/// A view, the legal actions, and the refusal (index, error) of the sampled actions:
/// an error's text is a function of its value, so comparing values is the stricter check.
type Observed = (junqi::View, Vec<Action>, Vec<(usize, junqi::PlayError)>);

fn start(rules: &Arc<RuleSet>, setups: &[(Side, Setup)]) -> Game {
    let mut g = Game::with_rules(rules.clone(), 0);
    for (side, s) in setups {
        g.deploy(*side, s).unwrap();
    }
    g
}

/// What `player` observes after each ply (nothing when `observing` is false: a replay
/// only, the cheap first pass that finds whether a swapped game is consistent with A);
/// `None` if an enemy action is illegal here.
fn trace(rules: &Arc<RuleSet>, setups: &[(Side, Setup)], actions: &[Action], player: Side, observing: bool) -> Option<Vec<Observed>> {
    let mut g = start(rules, setups);
    // The errors of a fifth of the action space at each ply (a different fifth at each
    // ply, so every action is checked every five plies) keep the property affordable;
    // legal actions are compared in full.
    let observe = |g: &Game| {
        let mut legal = Vec::new();
        let mut errors = Vec::new();
        if g.to_act() == Some(player) {
            legal = g.legal_actions();
            let fifth = g.position().ply() as usize % 5;
            for i in (fifth..g.rules().action_space()).step_by(5) {
                if let Err(e) = g.position().check(Action::from_id(g.rules(), i).unwrap()) {
                    errors.push((i, e));
                }
            }
        }
        (g.view(player), legal, errors)
    };
    let mut out = Vec::new();
    if observing {
        out.push(observe(&g));
    }
    for (i, act) in actions.iter().enumerate() {
        let mover = g.to_act();
        match g.play(*act) {
            Err(e) if mover == Some(player) => {
                panic!("{player}'s action {i} ({}) is refused in one game only: {e}", act.to_notation(g.board()))
            }
            Err(_) => return None,
            Ok(_) => {}
        }
        if observing {
            out.push(observe(&g));
        }
    }
    Some(out)
}

/// Swaps checked, and the pairs of unseen enemy pieces there were to swap (a long game
/// can leave none: every piece fought, was shown or was flown over).
fn check_player(a: &Played, label: &str, player: Side, enemy: Side, rng: &mut Rng) -> (usize, usize) {
    let rules = &a.rules;
    let seen = a.revealed.get(&player).cloned().unwrap_or_default();
    let enemy_setup = &a.setups.iter().find(|(s, _)| *s == enemy).unwrap().1;
    let deployment = enemy_setup.validate(rules, enemy).unwrap();
    let candidates: Vec<(Point, junqi::PieceKind)> = deployment
        .pieces()
        .iter()
        .copied()
        .filter(|(p, _)| {
            let id = a.origin[&(enemy, *p)];
            !a.fought.contains(&id) && !seen.contains(&id)
        })
        .collect();
    let mut pairs = Vec::new();
    for i in 0..candidates.len() {
        for j in i + 1..candidates.len() {
            if candidates[i].1 != candidates[j].1 && candidates[i].1.arm() == candidates[j].1.arm() {
                pairs.push((candidates[i].0, candidates[j].0));
            }
        }
    }
    rng.shuffle(&mut pairs);
    let available = pairs.len();
    let expected = trace(rules, &a.setups, &a.actions, player, true).expect("A replays");
    let mut checked = 0;
    for (x, y) in pairs.into_iter().take(10) {
        let enemy_b = swapped(enemy_setup, rules, x, y);
        if enemy_b.validate(rules, enemy).is_err() {
            continue; // e.g. the flag swapped out of its HQ
        }
        let setups_b: Vec<(Side, Setup)> =
            a.setups.iter().map(|(s, setup)| (*s, if *s == enemy { enemy_b.clone() } else { setup.clone() })).collect();
        // A replay first: most swaps that are skipped are found here cheaply.
        if trace(rules, &setups_b, &a.actions, player, false).is_none() {
            continue;
        }
        let got = trace(rules, &setups_b, &a.actions, player, true).expect("replays as in the first pass");
        for (ply, (e, g)) in expected.iter().zip(&got).enumerate() {
            assert_eq!(g.0, e.0, "[{label}] {player}'s view differs at ply {ply} after swapping {x:?} and {y:?}");
            assert_eq!(g.1, e.1, "[{label}] {player}'s legal actions differ at ply {ply}");
            assert_eq!(g.2, e.2, "[{label}] {player}'s errors differ at ply {ply}");
        }
        checked += 1;
        if checked == 2 {
            break;
        }
    }
    (checked, available)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, .. ProptestConfig::default() })]
    #[test]
    fn sanjun_views_do_not_depend_on_unseen_enemy_identities(
        seed in any::<u64>(),
        plies in 0usize..300,
        variant in 0..VARIANTS.len(),
    ) {
        let (total, available, actions) = check_game(variant, seed, plies);
        // A swap may be inconsistent with what the player saw (a moved piece swapped with
        // one that cannot move there), so a game with few pairs may check none (seed
        // 8382263232079085586, 165 actions, sanjun-book: its only pair); with more pairs
        // than are tried, one of the ten tried is consistent.
        prop_assert!(total > 0 || available <= 10, "no consistent swap found after {} actions", actions);
    }
}

/// One random game of a variant: (swaps checked, swaps available, actions played).
fn check_game(variant: usize, seed: u64, plies: usize) -> (usize, usize, usize) {
    let played = play_random(VARIANTS[variant], seed, plies);
    let label = format!("{} {}", VARIANTS[variant].0, VARIANTS[variant].1);
    let mut rng = Rng::new(seed ^ 0x5A5A);
    let (mut total, mut available) = (0, 0);
    for (player, enemy) in [(Side::South, Side::North), (Side::North, Side::South)] {
        let (checked, pairs) = check_player(&played, &label, player, enemy, &mut rng);
        total += checked;
        available += pairs;
    }
    (total, available, played.actions.len())
}

/// The soak of `scripts/soak` for the land-sea-air presets: `JUNQI_SOAK_GAMES` random
/// games (default 10 000) per variant from seed `JUNQI_SOAK_SEED` (default 0), each of a
/// random length below 300 actions; `JUNQI_SOAK_VARIANT` filters by label.
#[test]
#[ignore = "long: run by scripts/soak"]
fn soak() {
    let (games, first) = (common::soak::env("JUNQI_SOAK_GAMES", 10_000), common::soak::env("JUNQI_SOAK_SEED", 0));
    let only = std::env::var("JUNQI_SOAK_VARIANT").unwrap_or_default();
    for (i, v) in VARIANTS.iter().enumerate() {
        let label = format!("{} {}", v.0, v.1);
        if !label.contains(&only) {
            continue;
        }
        common::soak::run(&label, games, first, |seed| {
            let (n, _, len) = check_game(i, seed, Rng::new(seed ^ 0x50A4).below(300));
            (n, len as u64)
        });
    }
}

/// A game whose only pair of unseen enemy pieces gives an inconsistent swap checks
/// nothing, and that is not a failure (the property test's first flaky find).
#[test]
fn a_game_with_one_inconsistent_pair_checks_nothing() {
    let (total, available, _) = check_game(2, 8382263232079085586, 165);
    assert_eq!((total, available), (0, 1));
}

/// Every preset, many seeds, one swap each: a cheaper sweep with more games.
#[test]
fn every_preset_keeps_unseen_identities_out_of_views() {
    for (i, v) in VARIANTS.iter().enumerate() {
        for seed in 0..3u64 {
            let played = play_random(*v, seed * 31 + i as u64, 60 + 40 * seed as usize);
            let mut rng = Rng::new(seed);
            let (n, _) = check_player(&played, v.0, Side::North, Side::South, &mut rng);
            assert!(n > 0, "{}: no consistent swap", v.0);
        }
    }
}

