//! Agent speed: the tree search's (`search`) iterations and simulated plies per second
//! per core, `pimc`'s playouts, simulated plies and sampled armies per second, beside
//! the core's random-play figure; the time a move takes for greedy and each level of
//! both searches (the calibration of the levels). Short runs: `cargo bench -p junqi
//! --bench agents` (≈ 1 min). `JUNQI_BENCH_RULES=fanqi` (or any preset) measures another
//! rule set; `JUNQI_BENCH_LEVELS=5` measures levels 1..5 (default 1..3).
//! `JUNQI_BENCH_ONLY=search` (or `pimc`) runs only that agent's line,
//! `JUNQI_BENCH_ITERS=N` iterations (playouts) a position — e.g. under `valgrind
//! --tool=callgrind`, whose instruction counts do not drift with the load.

use std::hint::black_box;
use std::time::Instant;

use junqi::agent::{self, pimc_stats, search_stats, Budget, Worlds};
use junqi::{Game, Position, RuleSet, Side};

/// A mid-game position: both sides deployed by greedy, then random play for `plies`.
fn mid_game(rules: &str, seed: u64, plies: u32) -> Game {
    let mut g = Game::new(rules, seed).unwrap();
    let sides: Vec<Side> = g.rules().sides().to_vec();
    let mut agents: Vec<Box<dyn agent::Agent>> = sides.iter().map(|_| agent::by_name("greedy", seed).unwrap()).collect();
    let mut random: Vec<Box<dyn agent::Agent>> = sides.iter().map(|_| agent::by_name("random", seed).unwrap()).collect();
    while g.result().is_none() && g.position().ply() < plies {
        for (i, &s) in sides.iter().enumerate() {
            let a = if g.phase() == junqi::Phase::Deploy { agents[i].as_mut() } else { random[i].as_mut() };
            agent::act(&mut g, s, a).unwrap();
        }
    }
    g
}

fn main() {
    let rules_name = std::env::var("JUNQI_BENCH_RULES").unwrap_or_else(|_| "classic".into());
    let levels: u8 = std::env::var("JUNQI_BENCH_LEVELS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let rules = RuleSet::preset(&rules_name).unwrap();

    let only = std::env::var("JUNQI_BENCH_ONLY").unwrap_or_default();
    let only_tree = only == "search" || only == "ismcts";
    let only_pimc = only == "pimc";

    // The core's random play, for reference.
    let t = Instant::now();
    let mut plies = 0u64;
    let mut buf = Vec::new();
    let mut rng = junqi::Rng::new(1);
    let mut seed = 0;
    while only.is_empty() && t.elapsed().as_secs_f64() < 2.0 {
        let mut pos = Position::random_start(rules.clone(), seed);
        seed += 1;
        while pos.result().is_none() && pos.ply() < 2000 {
            pos.legal_actions_into(&mut buf);
            if buf.is_empty() {
                break;
            }
            pos.play_unchecked(buf[rng.below(buf.len())]);
            plies += 1;
        }
    }
    if only.is_empty() {
        println!("{rules_name}: random play (Position): {:.2} M plies/s", plies as f64 / t.elapsed().as_secs_f64() / 1e6);
    }

    // Mid-game information states (ply 60), several games.
    let infos: Vec<_> = (0..4)
        .filter_map(|s| {
            let g = mid_game(&rules_name, s, 60);
            let side = g.to_act()?;
            Some(g.info_state(side))
        })
        .collect();

    if only_tree {
        tree_search(&rules_name, &infos, false);
        return;
    }

    // Sampled armies per second.
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed().as_secs_f64() < 1.0 {
        for info in &infos {
            black_box(info.determinize(n));
            n += 1;
        }
    }
    println!("{rules_name}: InfoState::determinize (ply 60): {:.0} sampled positions/s", n as f64 / t.elapsed().as_secs_f64());

    if only_pimc {
        let iterations: u32 = std::env::var("JUNQI_BENCH_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        let (mut playouts, mut plies) = (0u64, 0u64);
        let t = Instant::now();
        for (i, info) in infos.iter().enumerate() {
            let (_, st) = pimc_stats(info, Budget::Iterations(iterations), 1, i as u64);
            playouts += st.playouts;
            plies += st.plies;
        }
        let secs = t.elapsed().as_secs_f64();
        println!("{rules_name}: pimc, 1 thread: {:.0} playouts/s, {:.2} M simulated plies/s", playouts as f64 / secs, plies as f64 / secs / 1e6);
        return;
    }

    // pimc's speed on one core.
    let (mut playouts, mut splies, mut samples) = (0u64, 0u64, 0u64);
    let t = Instant::now();
    for (i, info) in infos.iter().enumerate() {
        let (_, st) = pimc_stats(info, Budget::Iterations(20_000), 1, i as u64);
        playouts += st.playouts;
        splies += st.plies;
        samples += st.samples;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{rules_name}: pimc, 1 thread: {:.0} playouts/s, {:.2} M simulated plies/s, {:.0} sampled armies/s",
        playouts as f64 / secs,
        splies as f64 / secs / 1e6,
        samples as f64 / secs
    );
    let t = Instant::now();
    for (i, info) in infos.iter().enumerate() {
        black_box(pimc_stats(info, Budget::Iterations(20_000), 2, i as u64));
    }
    println!("{rules_name}: pimc, 2 threads: {:.0} playouts/s", playouts as f64 / t.elapsed().as_secs_f64());

    tree_search(&rules_name, &infos, true);

    // Time per move: greedy and the levels.
    let t = Instant::now();
    let mut g = agent::by_name("greedy", 1).unwrap();
    for info in &infos {
        black_box(g.choose(info));
    }
    println!("{rules_name}: greedy: {:.1} ms/move", t.elapsed().as_secs_f64() * 1e3 / infos.len() as f64);
    for level in 1..=levels {
        let t = Instant::now();
        for (i, info) in infos.iter().enumerate() {
            black_box(search_stats(info, Budget::Level(level), 1, Worlds::Modelled, i as u64));
        }
        println!(
            "{rules_name}: search:{level} ({} iterations): {:.0} ms/move",
            Budget::level_iterations(level),
            t.elapsed().as_secs_f64() * 1e3 / infos.len() as f64
        );
        let t = Instant::now();
        for (i, info) in infos.iter().enumerate() {
            black_box(pimc_stats(info, Budget::Level(level), 1, i as u64));
        }
        println!(
            "{rules_name}: pimc:{level} ({} playouts): {:.0} ms/move",
            Budget::level_playouts(level),
            t.elapsed().as_secs_f64() * 1e3 / infos.len() as f64
        );
    }
}

/// The tree search's iterations and simulated plies a second on one core, with worlds
/// drawn from each kind of beliefs, and (`two_threads`) on two threads.
fn tree_search(rules_name: &str, infos: &[junqi::InfoState], two_threads: bool) {
    let iterations: u32 = std::env::var("JUNQI_BENCH_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(8_000);
    for worlds in [Worlds::Modelled, Worlds::Plain] {
        let (mut its, mut plies, mut depth) = (0u64, 0u64, 0u32);
        let t = Instant::now();
        for (i, info) in infos.iter().enumerate() {
            let (_, st) = search_stats(info, Budget::Iterations(iterations), 1, worlds, i as u64);
            its += st.iterations;
            plies += st.plies;
            depth = depth.max(st.depth);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{rules_name}: search ({worlds:?} worlds), 1 thread: {:.0} iterations/s, {:.2} M simulated plies/s, {:.1} plies an iteration, depth {depth}",
            its as f64 / secs,
            plies as f64 / secs / 1e6,
            plies as f64 / its as f64
        );
    }
    if !two_threads {
        return;
    }
    // Two threads: one tree each, the iterations split between them.
    let t = Instant::now();
    let mut its = 0u64;
    for (i, info) in infos.iter().enumerate() {
        its += search_stats(info, Budget::Iterations(iterations), 2, Worlds::Modelled, i as u64).1.iterations;
    }
    println!("{rules_name}: search (Modelled worlds), 2 threads: {:.0} iterations/s", its as f64 / t.elapsed().as_secs_f64());
}
