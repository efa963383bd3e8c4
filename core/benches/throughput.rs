//! Throughput benchmark: `cargo bench -p junqi --bench throughput [-- RULES [SECONDS]]`.
//!
//! Measures, on one core, for a rule set (default: every preset in turn):
//! - random plies per second in full random games (a ply = generate the legal actions,
//!   pick one uniformly, apply it);
//! - legal-action generation alone, apply alone and `Position::clone`, in ns per call;
//! - full random games per second (deployment included).
//!
//! `-- RULES --plies=N` instead plays exactly N random plies and stops: a fixed amount
//! of work, for counting instructions per ply with
//! `valgrind --tool=callgrind` (repeatable whatever else the machine is doing).

use std::hint::black_box;
use std::time::{Duration, Instant};

use junqi::{Action, Position, Rng, RuleSet};

fn fresh(rules: &std::sync::Arc<RuleSet>, rng: &mut Rng) -> Position {
    Position::random_start(rules.clone(), rng.next_u64())
}

/// Collects positions along random games to time single operations on.
fn sample_positions(rules: &std::sync::Arc<RuleSet>, n: usize) -> Vec<Position> {
    let mut rng = Rng::new(99);
    let mut out = Vec::with_capacity(n);
    let mut buf = Vec::new();
    while out.len() < n {
        let mut pos = fresh(rules, &mut rng);
        while pos.result().is_none() && out.len() < n {
            pos.legal_actions_into(&mut buf);
            if rng.below(4) == 0 {
                out.push(pos.clone());
            }
            pos.play_unchecked(buf[rng.below(buf.len())]);
        }
    }
    out
}

fn per_call(label: &str, calls: u64, elapsed: Duration) {
    println!("{label:<34} {:>9.1} ns/call   ({calls} calls)", elapsed.as_nanos() as f64 / calls as f64);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let fixed = std::env::args().find_map(|a| a.strip_prefix("--plies=").and_then(|n| n.parse::<u64>().ok()));
    if let Some(n) = fixed {
        fixed_plies(args.first().map_or("classic", String::as_str), n);
        return;
    }
    let seconds: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let names: Vec<&str> = match args.first().map(String::as_str) {
        None | Some("all") => RuleSet::preset_names(),
        Some(n) => vec![n],
    };
    for name in names {
        bench(name, seconds);
        println!();
    }
}

/// Exactly `n` random plies (new games as needed; their starts are not counted apart).
fn fixed_plies(name: &str, n: u64) {
    let rules = RuleSet::preset(name).expect("rule set");
    let mut rng = Rng::new(1);
    let mut buf: Vec<Action> = Vec::with_capacity(128);
    let mut pos = fresh(&rules, &mut rng);
    let (mut plies, mut games) = (0u64, 1u64);
    while plies < n {
        if pos.result().is_some() {
            pos = fresh(&rules, &mut rng);
            games += 1;
        }
        pos.legal_actions_into(&mut buf);
        let a = buf[rng.below(buf.len())];
        black_box(pos.play_unchecked(a));
        plies += 1;
    }
    println!("{name}: {plies} random plies in {games} games");
}

fn bench(name: &str, seconds: f64) {
    let rules = RuleSet::preset(name).expect("rule set");
    println!("junqi throughput — rule set {name}, {seconds} s per measurement, one thread");

    // Random plies per second.
    let mut rng = Rng::new(1);
    let mut buf: Vec<Action> = Vec::with_capacity(128);
    let (mut plies, mut games) = (0u64, 0u64);
    let start = Instant::now();
    let budget = Duration::from_secs_f64(seconds);
    let mut ply_time = Duration::ZERO;
    while start.elapsed() < budget {
        let mut pos = fresh(&rules, &mut rng);
        let t = Instant::now();
        while pos.result().is_none() {
            pos.legal_actions_into(&mut buf);
            let a = buf[rng.below(buf.len())];
            black_box(pos.play_unchecked(a));
            plies += 1;
        }
        ply_time += t.elapsed();
        games += 1;
    }
    let total = start.elapsed();
    println!(
        "random plies (gen + pick + apply)  {:>9.0} plies/s   ({plies} plies in {games} games, {:.0} plies/game)",
        plies as f64 / ply_time.as_secs_f64(),
        plies as f64 / games as f64
    );
    println!(
        "full random games (with deploy)    {:>9.1} games/s",
        games as f64 / total.as_secs_f64()
    );

    let positions = sample_positions(&rules, 4096);
    let rounds = |per: u64| (seconds * 1e9 / 3.0 / per as f64).max(1.0) as u64;

    let r = rounds(positions.len() as u64 * 1000);
    let t = Instant::now();
    for _ in 0..r {
        for p in &positions {
            p.legal_actions_into(&mut buf);
            black_box(buf.len());
        }
    }
    per_call("legal-action generation", r * positions.len() as u64, t.elapsed());

    let moves: Vec<Action> = positions
        .iter()
        .map(|p| {
            p.legal_actions_into(&mut buf);
            buf[0]
        })
        .collect();
    let r = rounds(positions.len() as u64 * 300);
    let mut cloned = Duration::ZERO;
    let mut applied = Duration::ZERO;
    let mut checked = Duration::ZERO;
    let mut copies: Vec<Position> = positions.to_vec();
    for _ in 0..r {
        let t = Instant::now();
        copies.clone_from_slice(&positions);
        black_box(&copies);
        cloned += t.elapsed();
        let t = Instant::now();
        for (p, a) in copies.iter_mut().zip(&moves) {
            black_box(p.play_unchecked(*a));
        }
        applied += t.elapsed();
        copies.clone_from_slice(&positions);
        let t = Instant::now();
        for (p, a) in copies.iter_mut().zip(&moves) {
            black_box(p.play(*a).ok());
        }
        checked += t.elapsed();
    }
    let n = r * positions.len() as u64;
    per_call("Position::clone", n, cloned);
    per_call("apply (play_unchecked)", n, applied);
    per_call("apply with legality check (play)", n, checked);
    println!("Position size: {} bytes", std::mem::size_of::<Position>());
}
