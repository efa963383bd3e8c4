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
//! `--seed S` (default 0), `--jobs N` (games in parallel, default 1), `--max-plies N`,
//! `--out FILE` (each pair's result appended as a JSON line as soon as it ends; a run
//! started again with the same file plays only the pairs not in it, and the summary
//! counts them all, so a long table can be built over several runs), `--quiet` (no
//! line per pair on standard error).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
    out: Option<String>,
    quiet: bool,
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
        out: None,
        quiet: false,
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
            "--out" => args.out = Some(value()?),
            "--quiet" => args.quiet = true,
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

/// A finished pair: `a`'s score in each game (as the first team, then as the second),
/// the plies of both games and how many were capped.
#[derive(Clone, Copy)]
struct Pair {
    seed: u64,
    s1: f64,
    s2: f64,
    plies: u32,
    capped: u32,
}

impl Pair {
    fn json(&self, args: &Args) -> String {
        serde_json::json!({
            "rules": args.rules.name(), "a": args.a, "b": args.b, "max_plies": args.max_plies,
            "seed": self.seed, "s1": self.s1, "s2": self.s2, "plies": self.plies, "capped": self.capped,
        })
        .to_string()
    }

    /// A line of `--out` written by a run of the same match, else `None`.
    fn read(line: &str, args: &Args) -> Option<Pair> {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let same = v["rules"] == args.rules.name() && v["a"] == args.a.as_str() && v["b"] == args.b.as_str() && v["max_plies"] == args.max_plies;
        same.then_some(Pair {
            seed: v["seed"].as_u64()?,
            s1: v["s1"].as_f64()?,
            s2: v["s2"].as_f64()?,
            plies: v["plies"].as_u64()? as u32,
            capped: v["capped"].as_u64()? as u32,
        })
    }
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
    let seeds: Vec<u64> = (0..args.pairs).map(|i| args.seed.wrapping_add(i)).collect();
    // Pairs an earlier run with the same file finished.
    let mut done: Vec<Pair> = Vec::new();
    if let Some(path) = &args.out {
        if let Ok(text) = std::fs::read_to_string(path) {
            for p in text.lines().filter_map(|l| Pair::read(l, &args)) {
                if seeds.contains(&p.seed) && !done.iter().any(|d| d.seed == p.seed) {
                    done.push(p);
                }
            }
        }
    }
    let todo: Vec<u64> = seeds.iter().copied().filter(|s| !done.iter().any(|d| d.seed == *s)).collect();
    if !done.is_empty() && !args.quiet {
        eprintln!("arena: {} of {} pairs already in {}; playing {}", done.len(), seeds.len(), args.out.as_deref().unwrap_or(""), todo.len());
    }
    let out = match &args.out {
        Some(path) => match std::fs::OpenOptions::new().create(true).append(true).open(path) {
            Ok(f) => Some(Mutex::new(f)),
            Err(e) => {
                eprintln!("arena: {path}: {e}");
                std::process::exit(2);
            }
        },
        None => None,
    };
    let next = AtomicUsize::new(0);
    let finished = Mutex::new(done);
    let failure: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..args.jobs.clamp(1, todo.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= todo.len() || failure.lock().unwrap().is_some() {
                    break;
                }
                let seed = todo[i];
                let pair = game(&args, seed, &args.a, &args.b).and_then(|(s1, p1, c1)| {
                    let (s2, p2, c2) = game(&args, seed, &args.b, &args.a)?;
                    // `a`'s scores: game 1 as the first team, game 2 as the second.
                    Ok(Pair { seed, s1, s2: 1.0 - s2, plies: p1 + p2, capped: c1 as u32 + c2 as u32 })
                });
                match pair {
                    Ok(p) => {
                        if let Some(f) = &out {
                            let mut f = f.lock().unwrap();
                            if let Err(e) = writeln!(f, "{}", p.json(&args)).and_then(|_| f.flush()) {
                                *failure.lock().unwrap() = Some(format!("writing the result: {e}"));
                            }
                        }
                        let mut all = finished.lock().unwrap();
                        all.push(p);
                        if !args.quiet {
                            let score = all.iter().map(|p| p.s1 + p.s2).sum::<f64>() / (2 * all.len()) as f64;
                            eprintln!(
                                "arena: pair {}/{} (seed {seed}): {} {} | score so far {score:.3} | {:.0} s",
                                all.len(),
                                seeds.len(),
                                p.s1,
                                p.s2,
                                start.elapsed().as_secs_f64()
                            );
                        }
                    }
                    Err(e) => *failure.lock().unwrap() = Some(e),
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap() {
        eprintln!("arena: ERROR {e}");
        std::process::exit(1);
    }
    let results = finished.into_inner().unwrap();
    let (mut w, mut d, mut l, mut capped, mut plies) = (0u32, 0u32, 0u32, 0u32, 0u64);
    let mut pair_scores: Vec<f64> = Vec::new();
    for r in &results {
        for g in [r.s1, r.s2] {
            if g == 1.0 {
                w += 1
            } else if g == 0.0 {
                l += 1
            } else {
                d += 1
            }
        }
        pair_scores.push((r.s1 + r.s2) / 2.0);
        plies += r.plies as u64;
        capped += r.capped;
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
