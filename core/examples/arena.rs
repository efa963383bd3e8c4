//! The strength arena: paired games between two agent specs on a rule set.
//!
//! ```text
//! cargo run --release -p junqi --example arena -- --rules classic --a greedy --b random --pairs 50
//! ```
//!
//! Each pair plays two games from the same game seed and agent seeds, once with `a` on
//! the first team (the first side to act and its allies) and once with `b` there, so
//! that neither the seat nor the seed favours one agent. Prints W/D/L for `a`, its
//! score, and the Elo difference with a 95 % interval (normal approximation on the
//! per-pair scores). A game still going after `--max-plies` plies (default 3000)
//! counts as a draw and is reported. Any illegal action or crash is an error.
//!
//! Options: `--rules NAME|FILE.json`, `--a SPEC`, `--b SPEC`, `--pairs N` (default 20),
//! `--seed S` (default 0), `--jobs N` (games in parallel, default 1), `--max-plies N`.

use std::sync::Arc;
use std::time::Instant;

use junqi::{agent, Game, RuleSet, Side};

struct Args {
    rules: Arc<RuleSet>,
    a: String,
    b: String,
    pairs: u64,
    seed: u64,
    jobs: usize,
    max_plies: u32,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        rules: RuleSet::preset("classic").map_err(|e| e.to_string())?,
        a: "greedy".into(),
        b: "random".into(),
        pairs: 20,
        seed: 0,
        jobs: 1,
        max_plies: 3000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--rules" => {
                let v = value()?;
                args.rules = if v.ends_with(".json") {
                    let text = std::fs::read_to_string(&v).map_err(|e| format!("{v}: {e}"))?;
                    Arc::new(RuleSet::from_json(&text).map_err(|e| e.to_string())?)
                } else {
                    RuleSet::preset(&v).map_err(|e| e.to_string())?
                };
            }
            "--a" => args.a = value()?,
            "--b" => args.b = value()?,
            "--pairs" => args.pairs = value()?.parse().map_err(|e| format!("--pairs: {e}"))?,
            "--seed" => args.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--jobs" => args.jobs = value()?.parse().map_err(|e| format!("--jobs: {e}"))?,
            "--max-plies" => args.max_plies = value()?.parse().map_err(|e| format!("--max-plies: {e}"))?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    agent::by_name(&args.a, 0).map_err(|e| e.to_string())?;
    agent::by_name(&args.b, 0).map_err(|e| e.to_string())?;
    Ok(args)
}

/// One game: `first` plays the first team's seats. Returns (score of the first team's
/// agent: 1, ½, 0; plies; capped).
fn game(args: &Args, seed: u64, first: &str, second: &str) -> Result<(f64, u32, bool), String> {
    let rules = &args.rules;
    let mut g = Game::with_rules(rules.clone(), seed);
    let team = rules.team_of(rules.sides()[0]);
    let mut agents: Vec<(Side, Box<dyn agent::Agent>)> = rules
        .sides()
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let spec = if team.contains(s) { first } else { second };
            (s, agent::by_name(spec, seed.wrapping_mul(31).wrapping_add(i as u64)).expect("checked"))
        })
        .collect();
    loop {
        if g.result().is_some() {
            break;
        }
        if g.position().ply() >= args.max_plies {
            return Ok((0.5, g.position().ply(), true));
        }
        let mut acted = false;
        for (side, a) in agents.iter_mut() {
            match agent::act(&mut g, *side, a.as_mut()) {
                Ok(Some(_)) => acted = true,
                Ok(None) => {}
                Err(e) => return Err(format!("seed {seed}: {} ({side}) was refused: {e}", a.name())),
            }
            if g.result().is_some() {
                break;
            }
        }
        if !acted {
            return Err(format!("seed {seed}: nobody could act at ply {}", g.position().ply()));
        }
    }
    let r = g.result().expect("over");
    let score = if r.is_draw() {
        0.5
    } else if r.winners.iter().any(|w| team.contains(w)) {
        1.0
    } else {
        0.0
    };
    Ok((score, g.position().ply(), false))
}

fn elo(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    -400.0 * (1.0 / p - 1.0).log10()
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("arena: {e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let pairs: Vec<u64> = (0..args.pairs).map(|i| args.seed.wrapping_add(i)).collect();
    let results: Vec<Result<(f64, f64, u32, u32), String>> = std::thread::scope(|s| {
        let chunk = pairs.len().div_ceil(args.jobs.max(1)).max(1);
        let handles: Vec<_> = pairs
            .chunks(chunk)
            .map(|seeds| {
                let args = &args;
                s.spawn(move || {
                    seeds
                        .iter()
                        .map(|&seed| {
                            let (s1, p1, c1) = game(args, seed, &args.a, &args.b)?;
                            let (s2, p2, c2) = game(args, seed, &args.b, &args.a)?;
                            // `a`'s scores: game 1 as the first team, game 2 as the second.
                            Ok((s1, 1.0 - s2, p1 + p2, c1 as u32 + c2 as u32))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("arena thread")).collect()
    });
    let (mut w, mut d, mut l, mut capped, mut plies) = (0u32, 0u32, 0u32, 0u32, 0u64);
    let mut pair_scores: Vec<f64> = Vec::new();
    for r in &results {
        match r {
            Ok((s1, s2, p, c)) => {
                for g in [*s1, *s2] {
                    if g == 1.0 {
                        w += 1
                    } else if g == 0.0 {
                        l += 1
                    } else {
                        d += 1
                    }
                }
                pair_scores.push((s1 + s2) / 2.0);
                plies += *p as u64;
                capped += c;
            }
            Err(e) => {
                eprintln!("arena: ERROR {e}");
                std::process::exit(1);
            }
        }
    }
    let n = pair_scores.len() as f64;
    let mean = pair_scores.iter().sum::<f64>() / n;
    let var = pair_scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let se = (var / n).sqrt();
    let games = 2 * pair_scores.len();
    println!(
        "{} | {} vs {} | {} games | W/D/L {w}/{d}/{l} | score {:.3} | Elo {:+.0} [{:+.0}, {:+.0}] | {} capped at {} plies | {:.0} plies/game | {:.1} s",
        args.rules.name(),
        args.a,
        args.b,
        games,
        mean,
        elo(mean),
        elo(mean - 1.96 * se),
        elo(mean + 1.96 * se),
        capped,
        args.max_plies,
        plies as f64 / games as f64,
        start.elapsed().as_secs_f64(),
    );
}
