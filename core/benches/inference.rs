//! Inference benchmark: `cargo bench -p junqi --bench inference [-- RULES [GAMES]]`.
//!
//! For a rule set (default: every preset in turn), over random games, on one core:
//! - the average number of candidate kinds per unseen enemy piece at plies 50, 100 and
//!   200, against a count-only baseline (every kind of the army whose pieces have not
//!   all been shown on the board);
//! - the cost of updating one player's beliefs by one ply's events (`Beliefs::observe`);
//! - `Beliefs::sample`, `ModelledSampler::sample` (the shipped model) and
//!   `Game::determinize` per second in mid-game (ply 100);
//! - the observation encode time (`Observer::encode`), without and with the modelled
//!   planes (`Observer::with_model`).

use std::hint::black_box;
use std::time::Instant;

use junqi::{Beliefs, Event, Game, Observer, PieceKind, Rng, RuleSet, Side};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let games: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let names: Vec<&str> = match args.first().map(String::as_str) {
        None | Some("all") => RuleSet::preset_names(),
        Some(n) => vec![n],
    };
    for name in names {
        bench(name, games);
        println!();
    }
}

/// A random game to its end, with every report's events per player.
fn play(rules: &std::sync::Arc<RuleSet>, seed: u64) -> (Game, Vec<Vec<Vec<Event>>>) {
    let mut game = Game::with_rules(rules.clone(), seed);
    let mut rng = Rng::new(seed);
    let mut reports: Vec<Vec<Vec<Event>>> = vec![Vec::new(); 4];
    if !rules.deals() {
        for &side in rules.sides() {
            let r = game.deploy_random(side, rng.next_u64()).unwrap();
            for &p in rules.sides() {
                reports[p as usize].push(r.events_for(p));
            }
        }
    }
    while game.result().is_none() {
        let legal = game.legal_actions();
        let r = game.play(legal[rng.below(legal.len())]).unwrap();
        for &p in rules.sides() {
            reports[p as usize].push(r.events_for(p));
        }
    }
    (game, reports)
}

fn new_beliefs(game: &Game, player: Side) -> Beliefs {
    let own = game.record().actions.iter().find_map(|e| match e {
        junqi::RecordEntry::Deploy { deploy, setup } if *deploy == player => Some(setup.clone()),
        _ => None,
    });
    Beliefs::new(game.rules().clone(), player, own.as_ref()).unwrap()
}

/// Candidates and the count-only baseline, summed over unseen enemy pieces.
fn candidates(b: &Beliefs, rules: &RuleSet) -> (usize, usize, usize) {
    let board = rules.board();
    let team = b.army().map(|a| rules.team_of(a));
    let mut shown = [[0u8; PieceKind::COUNT]; 4];
    for p in b.occupied().iter() {
        if b.is_known(p) {
            if let (Some(o), Some(k)) = (b.owner(p), b.candidates(p).iter().next()) {
                shown[o as usize][k as usize] += 1;
            }
        }
    }
    let (mut sum, mut base, mut n) = (0, 0, 0);
    for p in board.points() {
        if !b.occupied().contains(p) || b.is_known(p) {
            continue;
        }
        let owner = b.owner(p);
        if owner.is_some_and(|o| team.is_some_and(|t| t.contains(o))) {
            continue;
        }
        sum += b.candidates(p).len();
        base += rules
            .army()
            .filter(|(k, c)| match owner {
                Some(o) => *c > shown[o as usize][*k as usize],
                None => rules.sides().iter().any(|o| *c > shown[*o as usize][*k as usize]),
            })
            .count();
        n += 1;
    }
    (sum, base, n)
}

fn bench(name: &str, games: usize) {
    let rules = RuleSet::preset(name).expect("rule set");
    println!("junqi inference — rule set {name}, {games} random games, one thread");
    let checkpoints = [50usize, 100, 200];
    let mut stats = [(0usize, 0usize, 0usize); 3];
    let mut update_ns = 0u128;
    let mut updates = 0u64;
    let mut plies = 0usize;
    let mut mid: Vec<(Game, Side)> = Vec::new();
    for g in 0..games {
        let (game, reports) = play(&rules, 7000 + g as u64);
        plies += game.position().ply() as usize;
        for &player in rules.sides() {
            let log = &reports[player as usize];
            // Time the updates alone.
            let mut b = new_beliefs(&game, player);
            let t = Instant::now();
            for r in log {
                b.observe(black_box(r));
            }
            update_ns += t.elapsed().as_nanos();
            updates += log.len() as u64;
            // Candidates at the checkpoints (a report is one ply after deployment).
            let deploys = if rules.deals() { 0 } else { rules.sides().len() };
            let mut b = new_beliefs(&game, player);
            for (i, r) in log.iter().enumerate() {
                b.observe(r);
                if let Some(c) = checkpoints.iter().position(|&c| i + 1 == deploys + c) {
                    let (s, base, n) = candidates(&b, &rules);
                    stats[c].0 += s;
                    stats[c].1 += base;
                    stats[c].2 += n;
                }
            }
        }
        if mid.len() < 8 {
            // Replay to ply 100 for the sampling and encoding measurements.
            let record = game.record();
            let mut short = record.clone();
            let deploys = record
                .actions
                .iter()
                .take_while(|e| !matches!(e, junqi::RecordEntry::Action(_)))
                .count();
            if record.actions.len() > deploys + 100 {
                short.actions.truncate(deploys + 100);
                short.result = None;
                if let Ok(g) = short.replay() {
                    mid.push((g, rules.sides()[mid.len() % rules.sides().len()]));
                }
            }
        }
    }
    println!("average plies per game: {}", plies / games.max(1));
    for (i, c) in checkpoints.iter().enumerate() {
        let (s, base, n) = stats[i];
        if n == 0 {
            println!("ply {c:>3}: no game lasted that long");
            continue;
        }
        println!(
            "ply {c:>3}: {:.2} candidate kinds per unseen enemy piece (count-only baseline {:.2}; {n} pieces)",
            s as f64 / n as f64,
            base as f64 / n as f64
        );
    }
    println!(
        "belief update: {:.0} ns per ply per player ({updates} updates)",
        update_ns as f64 / updates as f64
    );
    if mid.is_empty() {
        return;
    }
    // Sampling at ply 100.
    let beliefs: Vec<Beliefs> = mid.iter().map(|(g, p)| g.beliefs(*p)).collect();
    let n = 200_000 / beliefs.len();
    let t = Instant::now();
    let mut count = 0u64;
    for b in &beliefs {
        for s in 0..n {
            black_box(b.sample(s as u64));
            count += 1;
        }
    }
    let el = t.elapsed().as_secs_f64();
    println!("Beliefs::sample (ply 100): {:.0} samples/s", count as f64 / el);
    // Modelled sampling: the rule set's shipped model (plain where none is shipped),
    // the sampler built once per position as a search would.
    let model = junqi::OpponentModel::for_rules(mid[0].0.rules());
    let t = Instant::now();
    let reps = 2000 / beliefs.len() + 1;
    for b in &beliefs {
        for _ in 0..reps {
            black_box(b.probabilities(black_box(&model)));
        }
    }
    println!(
        "Beliefs::probabilities (ply 100, {} model): {:.1} µs",
        if model.is_plain() { "plain" } else { "shipped" },
        t.elapsed().as_secs_f64() * 1e6 / (reps * beliefs.len()) as f64
    );
    let t = Instant::now();
    let samplers: Vec<_> = beliefs.iter().map(|b| b.sampler(&model)).collect();
    let build = t.elapsed().as_secs_f64() / beliefs.len() as f64;
    let t = Instant::now();
    let mut count = 0u64;
    for s in &samplers {
        for i in 0..n {
            black_box(s.sample(i as u64));
            count += 1;
        }
    }
    println!(
        "ModelledSampler::sample (ply 100, {} model): {:.0} samples/s, {:.1} µs to build a sampler",
        if model.is_plain() { "plain" } else { "shipped" },
        count as f64 / t.elapsed().as_secs_f64(),
        build * 1e6
    );
    let t = Instant::now();
    let mut count = 0u64;
    for (b, (g, _)) in beliefs.iter().zip(&mid) {
        for s in 0..n / 10 {
            black_box(b.determinize(g, s as u64).unwrap());
            count += 1;
        }
    }
    println!(
        "Beliefs::determinize -> Game (ply 100): {:.0} games/s",
        count as f64 / t.elapsed().as_secs_f64()
    );
    // Encoding.
    let observers: Vec<Observer> = mid.iter().map(|(g, p)| Observer::new(g.rules().clone(), *p)).collect();
    let mut buf = vec![0.0f32; observers[0].len()];
    let reps = 200_000 / beliefs.len();
    let t = Instant::now();
    for ((b, o), (g, _)) in beliefs.iter().zip(&observers).zip(&mid) {
        let turn = g.turn();
        for _ in 0..reps {
            o.encode(black_box(b), turn, &mut buf);
            black_box(&buf);
        }
    }
    println!(
        "observation encode ({} floats): {:.0} ns",
        buf.len(),
        t.elapsed().as_nanos() as f64 / (reps * beliefs.len()) as f64
    );
    // Encoding with the `modelled:` planes of the model shipped for the rule set (the
    // plain one where none is shipped): the probabilities are worked out afresh.
    let model = junqi::OpponentModel::for_rules(mid[0].0.rules());
    let modelled: Vec<Observer> = observers.iter().map(|o| o.clone().with_model(model.clone())).collect();
    let mut buf = vec![0.0f32; modelled[0].len()];
    let reps = (reps / 20).max(1);
    let t = Instant::now();
    for ((b, o), (g, _)) in beliefs.iter().zip(&modelled).zip(&mid) {
        let turn = g.turn();
        for _ in 0..reps {
            o.encode(black_box(b), turn, &mut buf);
            black_box(&buf);
        }
    }
    println!(
        "observation encode with the modelled planes ({} floats, {} model): {:.0} ns",
        buf.len(),
        if model.is_plain() { "plain" } else { "shipped" },
        t.elapsed().as_nanos() as f64 / (reps * beliefs.len()) as f64
    );
    // Rebuilding from a player record (for comparison with the incremental update).
    let (g, p) = &mid[0];
    let rec = g.player_record(*p);
    let t = Instant::now();
    for _ in 0..200 {
        black_box(Beliefs::from_player_record(&rec).unwrap());
    }
    println!(
        "Beliefs::from_player_record at ply 100: {:.1} µs",
        t.elapsed().as_secs_f64() * 1e6 / 200.0
    );
}
