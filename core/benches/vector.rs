//! VectorEnv benchmark: `cargo bench -p junqi --bench vector [-- RULES [N [STEPS]]]`.
//!
//! Steps `N` games (default 1 024) of a rule set (default classic) with uniformly
//! random legal actions, and prints env steps per second (one step = one action in one
//! game) with masks only and with observations, on one thread and on every core.
//! `--threads=K` fixes the thread count; `--masks-only` skips the observation runs and
//! `--observations-only` the others (for counting instructions with callgrind);
//! `--beliefs-only` keeps every seat's beliefs up to date but writes no observation
//! (the cost of inference without the tensors).

use std::time::Instant;

use junqi::{RuleSet, StepOutput, VectorEnv};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let flag = |name: &str| std::env::args().find_map(|a| a.strip_prefix(name).map(str::to_owned));
    let name = args.first().map_or("classic", String::as_str);
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let steps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads: Vec<usize> = match flag("--threads=").and_then(|t| t.parse().ok()) {
        Some(t) => vec![t],
        None if cores > 1 => vec![1, cores],
        None => vec![1],
    };
    let masks_only = std::env::args().any(|a| a == "--masks-only");
    let observations_only = std::env::args().any(|a| a == "--observations-only");
    let beliefs_only = std::env::args().any(|a| a == "--beliefs-only");
    println!("junqi VectorEnv — rule set {name}, {n} games, {steps} steps per measurement");
    for observe in [false, true] {
        if (observe && masks_only) || (!observe && (observations_only || beliefs_only)) {
            continue;
        }
        for &t in &threads {
            let rate = run(name, n, steps, t, observe, !beliefs_only);
            println!(
                "{:<18} {t} thread{}  {:>12.0} env steps/s",
                if observe && beliefs_only {
                    "beliefs, no tensor"
                } else if observe {
                    "with observations"
                } else {
                    "masks only"
                },
                if t == 1 { " " } else { "s" },
                rate
            );
        }
    }
}

fn run(name: &str, n: usize, steps: usize, threads: usize, observe: bool, tensors: bool) -> f64 {
    let rules = RuleSet::preset(name).expect("rule set");
    let mut env = VectorEnv::new(rules, n, 1)
        .unwrap()
        .with_observations(observe)
        .with_threads(threads);
    let mut obs = vec![
        0.0f32;
        if observe {
            n * env.observation_len()
        } else {
            0
        }
    ];
    let mut masks = vec![false; n * env.action_space()];
    let mut rewards = vec![0.0f32; n * env.seats()];
    let (mut term, mut trunc, mut to_act) = (vec![false; n], vec![false; n], vec![0i8; n]);
    let mut actions = vec![0i64; n];
    let start = Instant::now();
    for _ in 0..steps {
        env.random_actions(&mut actions);
        env.step(
            &actions,
            StepOutput {
                observations: (observe && tensors).then_some(&mut obs[..]),
                masks: &mut masks,
                rewards: &mut rewards,
                terminated: &mut term,
                truncated: &mut trunc,
                to_act: &mut to_act,
            },
        )
        .unwrap();
        env.take_finished();
    }
    (n * steps) as f64 / start.elapsed().as_secs_f64()
}
