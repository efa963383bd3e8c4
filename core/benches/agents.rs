//! Agent speed: the search's simulated plies and playouts per second per core and the
//! sampled armies per second, beside the core's random-play figure; the time a move
//! takes for greedy and each search level (the calibration of the levels). Short runs:
//! `cargo bench -p junqi --bench agents` (≈ 1 min). `JUNQI_BENCH_RULES=fanqi` (or any
//! preset) measures another rule set; `JUNQI_BENCH_LEVELS=5` measures levels 1..5
//! (default 1..3).

use std::hint::black_box;
use std::time::Instant;

use junqi::agent::{self, search_stats, Budget};
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

    // The core's random play, for reference.
    let t = Instant::now();
    let mut plies = 0u64;
    let mut buf = Vec::new();
    let mut rng = junqi::Rng::new(1);
    let mut seed = 0;
    while t.elapsed().as_secs_f64() < 2.0 {
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
    println!("{rules_name}: random play (Position): {:.2} M plies/s", plies as f64 / t.elapsed().as_secs_f64() / 1e6);

    // Mid-game information states (ply 60), several games.
    let infos: Vec<_> = (0..4)
        .filter_map(|s| {
            let g = mid_game(&rules_name, s, 60);
            let side = g.to_act()?;
            Some(g.info_state(side))
        })
        .collect();

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

    // The search's speed on one core.
    let (mut playouts, mut splies, mut samples) = (0u64, 0u64, 0u64);
    let t = Instant::now();
    for (i, info) in infos.iter().enumerate() {
        let (_, st) = search_stats(info, Budget::Iterations(20_000), 1, i as u64);
        playouts += st.playouts;
        splies += st.plies;
        samples += st.samples;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{rules_name}: search, 1 thread: {:.0} playouts/s, {:.2} M simulated plies/s, {:.0} sampled armies/s",
        playouts as f64 / secs,
        splies as f64 / secs / 1e6,
        samples as f64 / secs
    );
    let t = Instant::now();
    for (i, info) in infos.iter().enumerate() {
        black_box(search_stats(info, Budget::Iterations(20_000), 2, i as u64));
    }
    println!("{rules_name}: search, 2 threads: {:.0} playouts/s", playouts as f64 / t.elapsed().as_secs_f64());

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
            black_box(search_stats(info, Budget::Level(level), 1, i as u64));
        }
        println!(
            "{rules_name}: search:{level} ({} playouts): {:.0} ms/move",
            Budget::level_iterations(level),
            t.elapsed().as_secs_f64() * 1e3 / infos.len() as f64
        );
    }
}
