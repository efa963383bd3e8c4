//! Agents (`junqi::agent`): every agent plays every preset and a custom rule set without
//! an illegal action; the same seed gives the same game; an agent's choices do not
//! depend on identities its player has not seen; principled deployments; spec names.
//! Budgets are tiny: the searches run with a few dozen iterations (`search`) or playouts
//! (`pimc`) a move.
mod common;

use std::sync::Arc;

use junqi::agent::{self, Agent, AgentSpec, Budget, Worlds};
use junqi::{Action, Game, Phase, RuleSet, Setup, Side};

const AGENTS: &[&str] = &[
    "random",
    "greedy",
    "greedy:eval=derived",
    "pimc:iters=40",
    "pimc:iters=40,beliefs=plain,eval=derived",
    "search:iters=40",
    "search:iters=40,beliefs=plain",
    "ismcts:iters=40,eval=derived",
];

fn all_rules() -> Vec<Arc<RuleSet>> {
    let mut v: Vec<Arc<RuleSet>> = RuleSet::preset_names().into_iter().map(|n| RuleSet::preset(n).unwrap()).collect();
    v.push(Arc::new(
        RuleSet::from_json(
            r#"{"extends": "classic", "name": "custom", "options": {"hq_shelter": true, "flag_guarded_by_mines": true, "rail_max_steps": 3, "engineer_scouts": "everyone"}}"#,
        )
        .unwrap(),
    ));
    v
}

/// Plays a game of `specs` (one per side, cycled) for at most `plies` plies; every
/// action must be accepted. Returns the game.
fn play(rules: &Arc<RuleSet>, specs: &[&str], seed: u64, plies: u32) -> Game {
    let mut game = Game::with_rules(rules.clone(), seed);
    let sides: Vec<Side> = rules.sides().to_vec();
    let mut agents: Vec<Box<dyn Agent>> =
        sides.iter().enumerate().map(|(i, _)| agent::by_name(specs[i % specs.len()], seed + i as u64).unwrap()).collect();
    while game.result().is_none() && game.position().ply() < plies {
        let mut acted = false;
        for (i, &side) in sides.iter().enumerate() {
            let r = agent::act(&mut game, side, agents[i].as_mut());
            let r = r.unwrap_or_else(|e| panic!("{}: {} ({side}) was refused: {e}", rules.name(), agents[i].name()));
            acted |= r.is_some();
        }
        assert!(acted || game.result().is_some(), "{}: nobody acted", rules.name());
    }
    game
}

#[test]
fn every_agent_plays_every_rule_set_legally() {
    for rules in all_rules() {
        for (i, spec) in AGENTS.iter().enumerate() {
            let searches = |s: &str| s.starts_with("search") || s.starts_with("pimc") || s.starts_with("ismcts");
            let plies = if searches(spec) { 8 } else { 60 };
            let opponent = AGENTS[(i + 1) % AGENTS.len()];
            let opponent = if searches(opponent) { "random" } else { opponent };
            let g = play(&rules, &[spec, opponent], 11 + i as u64, plies);
            assert!(g.phase() != Phase::Deploy, "{}: {spec} never got past deployment", rules.name());
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_game() {
    for name in ["classic", "fanqi", "siguo", "sanjun-modern"] {
        let rules = RuleSet::preset(name).unwrap();
        for spec in AGENTS {
            let plies = if spec.starts_with("search") || spec.starts_with("pimc") || spec.starts_with("ismcts") { 6 } else { 40 };
            let a = play(&rules, &[spec, "greedy"], 5, plies);
            let b = play(&rules, &[spec, "greedy"], 5, plies);
            assert_eq!(a.record(), b.record(), "{name}: {spec} is not deterministic");
        }
    }
}

#[test]
fn the_thread_count_changes_nothing_of_pimc() {
    // Issue #45: a last thread that dropped one round of every phase kept the choice at
    // one classic position, so the whole search is compared: the choice, the totals
    // (playouts, plies, samples, as run) and every candidate's playouts and summed score,
    // for 1, 2 and 3 threads, at several positions of three rule sets.
    let mut searched = 0;
    for name in ["classic", "siguo", "fanqi"] {
        let rules = RuleSet::preset(name).unwrap();
        for (seed, plies) in [(3u64, 1u32), (4, 12), (5, 30)] {
            let g = play(&rules, &["random"], seed, plies);
            let Some(player) = g.to_act() else { continue };
            let info = g.info_state(player);
            let label = format!("{name}, seed {seed}, ply {}", g.position().ply());
            let budget = Budget::Iterations(300);
            let (action, stats, table) = agent::pimc_table(&info, budget, 1, seed + 9);
            if table.len() < 2 {
                continue;
            }
            // The table accounts for every playout, and the choice is the best mean of the
            // candidates that lasted to the end (the most playouts).
            assert_eq!(table.iter().map(|c| c.playouts as u64).sum::<u64>(), stats.playouts, "[{label}]");
            let last = table.iter().map(|c| c.playouts).max().unwrap();
            assert!(table.iter().all(|c| c.playouts > 0), "[{label}] a candidate never played: {table:?}");
            let finalists: Vec<_> = table.iter().filter(|c| c.playouts == last).collect();
            let best = finalists.iter().map(|c| c.score / c.playouts as f64).fold(f64::MIN, f64::max);
            let chosen = table.iter().find(|c| c.action == action).expect("the choice is a candidate");
            assert_eq!((chosen.playouts, chosen.score / chosen.playouts as f64), (last, best), "[{label}]");
            assert!(stats.playouts > 200 && stats.playouts <= 300, "[{label}] {} playouts of 300", stats.playouts);
            assert_eq!(agent::pimc_stats(&info, budget, 1, seed + 9), (action, stats), "[{label}]");
            for threads in [2, 3] {
                let other = agent::pimc_table(&info, budget, threads, seed + 9);
                assert_eq!(other.1, stats, "[{label}] {threads} threads: totals differ");
                assert_eq!(other.2, table, "[{label}] {threads} threads: candidate tables differ");
                assert_eq!(other.0, action, "[{label}] {threads} threads: another choice");
            }
            searched += 1;
        }
    }
    assert!(searched >= 8, "only {searched} positions with a choice");
}

#[test]
fn the_tree_search_spends_its_budget_and_is_deterministic_per_seed_and_thread_count() {
    let mut searched = 0;
    for name in ["classic", "siguo", "fanqi", "sanjun-modern"] {
        let rules = RuleSet::preset(name).unwrap();
        for (seed, plies) in [(3u64, 1u32), (5, 30)] {
            let g = play(&rules, &["random"], seed, plies);
            let Some(player) = g.to_act() else { continue };
            let info = g.info_state(player);
            if info.legal().len() < 2 {
                continue;
            }
            let label = format!("{name}, seed {seed}, ply {}", g.position().ply());
            for worlds in [Worlds::Modelled, Worlds::Plain] {
                for threads in [1, 2, 3] {
                    // 301 iterations: no thread count here divides them, so the last
                    // thread's share differs from the others'.
                    let budget = Budget::Iterations(301);
                    let (action, stats) = agent::search_stats(&info, budget, threads, worlds, seed);
                    assert!(info.legal().contains(&action), "[{label}] an illegal choice");
                    // Every iteration of every thread runs: a thread that dropped some shows.
                    assert_eq!(stats.iterations, 301, "[{label}] {threads} threads");
                    // Each iteration opens at most one node per tree, and the tree is
                    // deeper than the root's children.
                    assert!(stats.nodes > threads as u64 && stats.nodes <= 301 + threads as u64, "[{label}] {stats:?}");
                    assert!(stats.depth >= 2, "[{label}] {threads} threads: depth {}", stats.depth);
                    assert!(stats.plies >= stats.iterations, "[{label}] {stats:?}");
                    assert_eq!(agent::search_stats(&info, budget, threads, worlds, seed), (action, stats), "[{label}]");
                }
            }
            searched += 1;
        }
    }
    assert!(searched >= 6, "only {searched} positions with a choice");
}

#[test]
fn the_tree_search_answers_within_its_time() {
    let rules = RuleSet::preset("classic").unwrap();
    let g = play(&rules, &["random"], 7, 20);
    let info = g.info_state(g.to_act().unwrap());
    // 150 ms of thinking: the clock is read as it goes, so the answer comes at the
    // deadline (95 % of the budget, the rest a margin for answering), not after a budget
    // worked out from a first phase. (Not a timing test of speed: the upper bound is the
    // deadline plus a margin for a loaded machine.)
    for threads in [1, 2] {
        let t = std::time::Instant::now();
        let (_, stats) = agent::search_stats(&info, Budget::Millis(150), threads, Worlds::Modelled, 1);
        let took = t.elapsed();
        assert!(took >= std::time::Duration::from_micros(142_500), "{threads} threads: answered after {took:?}");
        assert!(took < std::time::Duration::from_millis(1500), "{threads} threads: answered after {took:?}");
        assert!(stats.iterations > 0);
    }
}

/// Two games that differ only in enemy identities `player` has not seen: the same
/// information state, the same sampled positions (piece ids included) and the same
/// choice from each agent.
fn same_choices(a: &Game, b: &Game, label: &str) {
    let Some(player) = a.to_act() else { return };
    let (ia, ib) = (a.info_state(player), b.info_state(player));
    assert!(ia == ib, "[{label}] information states differ");
    for seed in [1, 2] {
        let (pa, pb) = (ia.determinize(seed), ib.determinize(seed));
        assert!(pa.same_state(&pb), "[{label}] sampled positions differ");
        let ids = |p: &junqi::Position| a.board().points().map(|q| p.piece_id(q)).collect::<Vec<_>>();
        assert_eq!(ids(&pa), ids(&pb), "[{label}] sampled piece ids differ");
    }
    for spec in AGENTS {
        let mut x = agent::by_name(spec, 77).unwrap();
        let mut y = agent::by_name(spec, 77).unwrap();
        for _ in 0..2 {
            assert_eq!(x.choose(&ia), y.choose(&ib), "[{label}] {spec} chooses differently");
        }
    }
}

/// Plays random actions; returns the actions.
fn random_actions(game: &mut Game, seed: u64, plies: usize) -> Vec<Action> {
    let mut rng = junqi::Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..plies {
        if game.result().is_some() {
            break;
        }
        let legal = game.legal_actions();
        let a = legal[rng.below(legal.len())];
        game.play(a).unwrap();
        out.push(a);
    }
    out
}

#[test]
fn choices_do_not_depend_on_unseen_enemy_identities() {
    let mut checked = 0;
    for rules in all_rules() {
        let label = rules.name().to_owned();
        for seed in 0..2u64 {
            let plies = 20 + 15 * seed as usize;
            if rules.deals() {
                let deal = junqi::Position::deal_for(&rules, seed);
                let mut a = Game::with_deal(rules.clone(), seed, &deal).unwrap();
                let actions = random_actions(&mut a, seed, plies);
                let down: Vec<usize> = (0..deal.len()).filter(|&i| a.position().is_face_down(deal[i].0)).collect();
                for k in 0..down.len().saturating_sub(1).min(6) {
                    let (i, j) = (down[k], down[k + 1]);
                    if (deal[i].1, deal[i].2) == (deal[j].1, deal[j].2) {
                        continue;
                    }
                    let mut swapped = deal.clone();
                    (swapped[i].1, swapped[j].1) = (deal[j].1, deal[i].1);
                    (swapped[i].2, swapped[j].2) = (deal[j].2, deal[i].2);
                    let mut b = Game::with_deal(rules.clone(), seed, &swapped).unwrap();
                    if actions.iter().any(|x| b.play(*x).is_err()) {
                        continue;
                    }
                    let p = a.to_act();
                    if p.is_none() || p != b.to_act() || a.view(p.unwrap()) != b.view(p.unwrap()) {
                        continue;
                    }
                    same_choices(&a, &b, &label);
                    checked += 1;
                    break;
                }
                continue;
            }
            let sides = rules.sides().to_vec();
            let setups: Vec<Setup> = sides.iter().map(|&s| Setup::random(&rules, s, seed * 10 + s as u64)).collect();
            let start = |setups: &[Setup]| {
                let mut g = Game::with_rules(rules.clone(), seed);
                for (s, setup) in sides.iter().zip(setups) {
                    g.deploy(*s, setup).unwrap();
                }
                g
            };
            let mut a = start(&setups);
            let actions = random_actions(&mut a, seed, plies);
            let Some(player) = a.to_act() else { continue };
            // Swap two pieces of an enemy of `player`.
            let enemy_idx = sides.iter().position(|s| !rules.team_of(player).contains(*s)).unwrap();
            let placements = setups[enemy_idx].placements().to_vec();
            let mut rng = junqi::Rng::new(seed ^ 0xBEEF);
            let mut done = false;
            for _ in 0..40 {
                let (x, y) = (rng.below(placements.len()), rng.below(placements.len()));
                if placements[x].1 == placements[y].1 {
                    continue;
                }
                let swapped = common::swap_points(&setups[enemy_idx], &placements[x].0, &placements[y].0);
                if swapped.validate(&rules, sides[enemy_idx]).is_err() {
                    continue;
                }
                let mut setups_b = setups.clone();
                setups_b[enemy_idx] = swapped;
                let mut b = start(&setups_b);
                if actions.iter().any(|x| b.play(*x).is_err()) {
                    continue;
                }
                // Consistent with what `player` saw (the swap was never observed).
                if b.to_act() != Some(player) || a.view(player) != b.view(player) {
                    continue;
                }
                same_choices(&a, &b, &label);
                checked += 1;
                done = true;
                break;
            }
            let _ = done;
        }
    }
    assert!(checked >= 8, "only {checked} swaps were consistent");
}

#[test]
fn sampled_piece_ids_do_not_tell_a_face_down_piece_s_army() {
    // 翻棋: the referee numbers pieces by army (0-24 South's); a sampled game numbers
    // them by what the player knows, so two deals give the same numbering.
    let rules = RuleSet::preset("fanqi").unwrap();
    let ids = |seed: u64| {
        let g = Game::with_rules(rules.clone(), seed);
        let d = g.determinize(Side::South, 1);
        let i = g.info_state(Side::South).determinize(1);
        let a: Vec<_> = g.board().points().map(|p| d.position().piece_id(p)).collect();
        let b: Vec<_> = g.board().points().map(|p| i.piece_id(p)).collect();
        assert_eq!(a, b);
        a
    };
    assert_eq!(ids(1), ids(2));
}

#[test]
fn beliefs_of_another_game_are_refused() {
    let mut a = Game::new("classic", 1).unwrap();
    a.deploy_random(Side::South, 1).unwrap();
    a.deploy_random(Side::North, 2).unwrap();
    let mut b = a.clone();
    let legal = b.legal_actions();
    b.play(legal[0]).unwrap();
    let beliefs = a.beliefs(Side::South);
    assert_eq!(beliefs.determinize(&b, 1).unwrap_err(), junqi::SampleError::OtherGame);
    let c = Game::new("siguo", 1).unwrap();
    assert_eq!(beliefs.determinize(&c, 1).unwrap_err(), junqi::SampleError::OtherRules);
    assert!(beliefs.determinize(&a, 1).is_ok());
}

#[test]
fn principled_deployments_put_the_flag_in_a_headquarters() {
    for rules in all_rules() {
        if rules.deals() || !rules.has_kind(junqi::PieceKind::Flag) {
            continue;
        }
        for &side in rules.sides() {
            let hq_allowed = rules.deploy_points(side).iter().any(|&p| rules.board().role(p) == junqi::Role::Hq);
            // Every agent that plays for strength deploys this way.
            for (spec, seed) in ["greedy", "search:1", "pimc:1"].into_iter().flat_map(|s| (0..3).map(move |seed| (s, seed))) {
                let mut g = agent::by_name(spec, seed).unwrap();
                let setup = g.deploy(&rules, side);
                let d = setup.validate(&rules, side).unwrap_or_else(|e| panic!("{spec}, {}: {e}", rules.name()));
                let flag = d.pieces().iter().find(|(_, k)| *k == junqi::PieceKind::Flag).unwrap().0;
                if hq_allowed {
                    assert_eq!(rules.board().role(flag), junqi::Role::Hq, "{spec}, {}: flag on {}", rules.name(), rules.board().name_of(flag));
                }
                // Mines (where the army has them) stand as near the flag as random
                // setups ever put one.
                let nearest_mine = |d: &junqi::Deployment| {
                    let flag = d.pieces().iter().find(|(_, k)| *k == junqi::PieceKind::Flag).unwrap().0;
                    d.pieces()
                        .iter()
                        .filter(|(_, k)| *k == junqi::PieceKind::Mine)
                        .map(|(p, _)| rules.board().distance(*p, flag))
                        .min()
                };
                if let Some(nearest) = nearest_mine(&d) {
                    let random_best = (0..20)
                        .filter_map(|s| nearest_mine(&Setup::random(&rules, side, s).validate(&rules, side).unwrap()))
                        .min()
                        .unwrap();
                    assert!(nearest <= random_best, "{spec}, {}: mines {nearest} from the flag", rules.name());
                }
            }
        }
    }
    // Not uniform: the seed varies it.
    let rules = RuleSet::preset("classic").unwrap();
    let a = agent::by_name("greedy", 1).unwrap().deploy(&rules, Side::South);
    let b = agent::by_name("greedy", 2).unwrap().deploy(&rules, Side::South);
    assert_ne!(a, b);
}

#[test]
fn agent_names_parse_and_print() {
    for s in [
        "random",
        "greedy",
        "search:1",
        "search:5",
        "search:iters=300",
        "search:ms=250,threads=2",
        "search:2,threads=4",
        "search:iters=300,beliefs=plain",
        "search:iters=300,eval=derived",
        "search:2,threads=2,beliefs=plain,eval=derived",
        "greedy:eval=derived",
        "pimc:1",
        "pimc:4,eval=derived",
        "pimc:iters=300,beliefs=plain",
        "pimc:ms=250,threads=2",
        "pimc:2,threads=2,beliefs=plain,eval=derived",
    ] {
        let spec: AgentSpec = s.parse().unwrap();
        assert_eq!(spec.to_string(), s);
        assert_eq!(spec.build(1).name(), s);
    }
    assert_eq!("search".parse::<AgentSpec>().unwrap().to_string(), "search:3");
    assert_eq!("pimc".parse::<AgentSpec>().unwrap().to_string(), "pimc:3");
    assert_eq!("pimc:2,beliefs=modelled".parse::<AgentSpec>().unwrap().to_string(), "pimc:2");
    // `ismcts` is another name for the tree search, `search`.
    assert_eq!("ismcts".parse::<AgentSpec>().unwrap(), "search".parse::<AgentSpec>().unwrap());
    assert_eq!("ISMCTS:iters=7,beliefs=plain".parse::<AgentSpec>().unwrap().to_string(), "search:iters=7,beliefs=plain");
    assert!(matches!("search:1".parse::<AgentSpec>().unwrap(), AgentSpec::Search { .. }));
    assert!(matches!("pimc:1".parse::<AgentSpec>().unwrap(), AgentSpec::Pimc { .. }));
    assert_eq!("search:2,beliefs=modelled".parse::<AgentSpec>().unwrap().to_string(), "search:2");
    assert_eq!("search:2,eval=fitted".parse::<AgentSpec>().unwrap().to_string(), "search:2");
    assert_eq!("greedy:eval=fitted".parse::<AgentSpec>().unwrap().to_string(), "greedy");
    assert_eq!("greedy:eval=fitted".parse::<AgentSpec>().unwrap(), AgentSpec::GREEDY);
    assert_eq!("search:eval=derived,iters=5".parse::<AgentSpec>().unwrap().to_string(), "search:iters=5,eval=derived");
    for (bad, starts) in [
        ("ismcts:0", "search level"),
        ("pimc:6", "search level"),
        ("pimc:beliefs=psychic", "unknown agent option"),
        ("search:beliefs=psychic", "unknown agent option"),
        ("grandmaster", "unknown agent"),
        ("search:0", "search level"),
        ("search:6", "search level"),
        ("search:iters=0", "bad search budget"),
        ("search:ms=x", "bad search budget"),
        ("search:3,threads=0", "bad thread count"),
        ("search:depth=3", "unknown agent option"),
        ("greedy:2", "unknown agent option"),
        ("greedy:eval=tuned", "unknown agent option"),
        ("search:eval=", "unknown agent option"),
        ("random:eval=derived", "unknown agent option"),
    ] {
        let e = agent::by_name(bad, 1).err().unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(e.to_string().starts_with(starts), "{bad}: {e}");
        assert_eq!(format!("{e:?}"), e.to_string());
    }
}

#[test]
fn act_does_nothing_for_a_seat_with_nothing_to_do() {
    let mut g = Game::new("classic", 1).unwrap();
    let mut a = agent::by_name("random", 1).unwrap();
    assert!(agent::act(&mut g, Side::South, a.as_mut()).unwrap().is_some()); // deploys
    assert!(agent::act(&mut g, Side::South, a.as_mut()).unwrap().is_none()); // already deployed
    assert!(agent::act(&mut g, Side::East, a.as_mut()).is_err()); // not a side of classic
    assert!(agent::act(&mut g, Side::North, a.as_mut()).unwrap().is_some());
    assert_eq!(g.to_act(), Some(Side::South));
    assert!(agent::act(&mut g, Side::North, a.as_mut()).unwrap().is_none()); // not to act
    assert!(agent::act(&mut g, Side::South, a.as_mut()).unwrap().is_some());
    // 翻棋 deals: nobody deploys.
    let mut f = Game::new("fanqi", 1).unwrap();
    assert_eq!(f.to_act(), Some(Side::South));
    assert!(agent::act(&mut f, Side::North, a.as_mut()).unwrap().is_none());
}

#[test]
fn greedy_beats_random() {
    // Paired games on classic: greedy wins nearly all (measured 100 of 100 decided
    // games in the arena); require a clear majority of 6 paired games, which fails only
    // if greedy is broken.
    let rules = RuleSet::preset("classic").unwrap();
    let mut wins = 0;
    for seed in 0..3u64 {
        for (first, second) in [("greedy", "random"), ("random", "greedy")] {
            let g = play(&rules, &[first, second], seed, 600);
            if let Some(w) = g.result().and_then(|r| r.winner()) {
                let greedy_side = if first == "greedy" { Side::South } else { Side::North };
                wins += (w == greedy_side) as u32;
            }
        }
    }
    assert!(wins >= 5, "greedy won only {wins} of 6 games against random");
}

#[test]
fn information_states_are_equal_only_when_everything_the_player_knows_is() {
    // `==` is what the no-peeking tests rely on: a lenient `==` makes them pass on a
    // leak. Each pair below differs in a part of the state and must compare unequal.
    // Kills `replace <impl PartialEq for InfoState>::eq -> bool with true` and each
    // `replace && with || in <impl PartialEq for InfoState>::eq`.
    let mut g = Game::new("classic", 3).unwrap();
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let before = g.info_state(Side::North);
    assert!(before == g.info_state(Side::North));
    // South times out: North's beliefs stay (no piece moved, nothing shown), its view
    // (the time-out, the turn), its legal actions and the skeleton's turn change.
    g.time_out().unwrap();
    let after = g.info_state(Side::North);
    assert!(after.beliefs() == before.beliefs(), "a time-out tells nothing about pieces");
    assert!(after.view() != before.view());
    assert!(!(after == before), "a time-out later: the same player, the same beliefs, another view");
    // 四国 before anyone deploys: East and West both wait (no legal action) on the same
    // empty board, so the legal actions and skeletons agree; the players, their
    // beliefs and views do not.
    let s = Game::new("siguo", 1).unwrap();
    let (east, west) = (s.info_state(Side::East), s.info_state(Side::West));
    assert!(east.legal().is_empty() && west.legal().is_empty());
    assert!(!(east == west), "two players are two information states");
    assert!(east == s.info_state(Side::East));
}

#[test]
fn an_information_state_from_the_seat_s_own_knowledge_is_the_referee_s() {
    // What an engine rebuilds from its record and view string over the line protocol
    // equals the referee's InfoState, legal actions included, for the seat to act and
    // the other; another seat's view string is refused. Kills `replace != with ==`
    // (whose view), `delete !` (the shown identities the events allow) and `replace
    // == with !=` (the legal actions of the seat to act) in InfoState::from_beliefs.
    let mut g = Game::new("classic", 8).unwrap();
    g.deploy_random(Side::South, 5).unwrap();
    g.deploy_random(Side::North, 6).unwrap();
    random_actions(&mut g, 9, 12);
    assert!(g.result().is_none());
    for side in [Side::South, Side::North] {
        let record = g.player_record(side);
        let info = junqi::InfoState::from_player_record(&record, &g.view_string(side)).unwrap();
        assert!(info == g.info_state(side), "{side}");
        assert_eq!(info.legal_actions(), if g.to_act() == Some(side) { g.legal_actions() } else { vec![] });
        let other = if side == Side::South { Side::North } else { Side::South };
        let e = junqi::InfoState::from_player_record(&record, &g.view_string(other)).unwrap_err();
        assert!(e.to_string().contains(&format!("is not {side}'s view")), "{e}");
    }
}

#[test]
fn agents_decline_draws_unless_they_say_otherwise() {
    // The trait's default (every agent of the crate keeps it). Kills `replace
    // Agent::accept_draw -> bool with true`.
    let mut g = Game::new("classic", 1).unwrap();
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let info = g.info_state(Side::North);
    for spec in AGENTS {
        assert!(!agent::by_name(spec, 1).unwrap().accept_draw(&info), "{spec}");
    }
}

#[test]
fn search_levels_stand_for_doubling_budgets_and_refusals_have_kinds() {
    // docs/agents.md: `search` level 1 is 16 000 iterations, `pimc` level 1 36 000
    // playouts, each level doubles; where time is the budget, 250 ms at level 1 to 4 s
    // at level 5; out-of-range levels clamped. Kills the mutants of
    // Budget::level_iterations, level_playouts and level_millis, and `replace <impl
    // Error for AgentError>::kind with Default::default()`.
    let iterations: Vec<u32> = [0u8, 1, 2, 3, 4, 5, 6].into_iter().map(Budget::level_iterations).collect();
    assert_eq!(iterations, [16_000, 16_000, 32_000, 64_000, 128_000, 256_000, 256_000]);
    let playouts: Vec<u32> = [0u8, 1, 2, 3, 4, 5, 9].into_iter().map(Budget::level_playouts).collect();
    assert_eq!(playouts, [36_000, 36_000, 72_000, 144_000, 288_000, 576_000, 576_000]);
    let millis: Vec<u32> = [0u8, 1, 2, 3, 4, 5, 6, 255].into_iter().map(Budget::level_millis).collect();
    assert_eq!(millis, [250, 250, 500, 1000, 2000, 4000, 4000, 4000]);
    use junqi::{Error as _, ErrorKind};
    for (bad, kind) in [
        ("grandmaster", ErrorKind::UnknownName),
        ("greedy:2", ErrorKind::UnknownName),
        ("search:6", ErrorKind::OutOfRange),
        ("search:iters=0", ErrorKind::OutOfRange),
        ("search:3,threads=300", ErrorKind::OutOfRange),
    ] {
        assert_eq!(agent::by_name(bad, 1).err().unwrap().kind(), kind, "{bad}");
    }
}

#[test]
fn an_information_state_tells_its_player_phase_turn_rules_and_legal_actions() {
    // What an engine or an agent of another crate reads (the protocol engine asks
    // `to_act`). Kills the accessor mutants of InfoState (`to_act -> None`, `legal ->
    // empty`, `legal_actions -> vec![]` / `vec![Default::default()]`, …).
    let mut g = Game::new("classic", 2).unwrap();
    let deploying = g.info_state(Side::North);
    assert_eq!((deploying.player(), deploying.phase()), (Side::North, Phase::Deploy));
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let a = g.legal_actions()[0];
    g.play(a).unwrap();
    assert_eq!(g.to_act(), Some(Side::North));
    for side in [Side::South, Side::North] {
        let info = g.info_state(side);
        assert_eq!((info.player(), info.phase(), info.to_act()), (side, Phase::Move, Some(Side::North)));
        assert_eq!(info.rules().spec(), g.rules().spec());
        assert_eq!((info.view().player, info.beliefs().player()), (side, side));
        let legal = if side == Side::North { g.legal_actions() } else { vec![] };
        assert_eq!((info.legal_actions(), info.legal().to_vec()), (legal.clone(), legal));
        assert!(info.determinize(4).same_state(&info.determinize(4)));
        assert_eq!(info.determinize(4).occupied(), g.position().occupied());
    }
}
