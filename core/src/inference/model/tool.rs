//! `junqi model`: fits an [`OpponentModel`] to self-play games of the engine's agents,
//! and measures how much it tells (docs/inference.md, "Modelled beliefs").

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use crate::agent::{self, Agent};
use crate::piece::Side;
use crate::referee::Game;
use crate::rng::Rng;
use crate::rules::RuleSet;

use super::OpponentModel;

const USAGE: &str = "\
usage: junqi model fit --rules R [--games N] [--agents A[,B...]] [--seed S] [--max-plies P]
                       [--threads T] [--out FILE]
       junqi model measure --rules R [--games N] [--agents A[,B...]] [--seed S] [--max-plies P]
                       [--threads T] [--model FILE|shipped|plain] [--every K] [--samples M]

fit      plays N self-play games (default 2000) between the agents (one spec per seat,
         cycled; default greedy), counts how every kind played and where it started,
         and writes the model's JSON to FILE (default: standard output). The same
         arguments give the same model, whatever the thread count.
measure  plays N other games (default 200, seeds apart from fit's) and, every K plies
         (default 10), compares for every enemy piece not yet identified the probability
         each belief gives its true kind: plain (the share of M uniformly drawn
         consistent armies, default 64, that give it), and modelled (the model's), with
         the share of pieces whose most likely kind is the true one and the mean
         log-likelihood; by ply, and by the agent whose pieces are guessed.
";

/// Runs `junqi model ...` (`args` after `model`); `None` if `args` do not start with
/// `model`.
pub fn cli(args: &[String]) -> Option<ExitCode> {
    if args.first().map(String::as_str) != Some("model") {
        return None;
    }
    let result = match args.get(1).map(String::as_str) {
        Some("fit") => Opts::parse(&args[2..]).and_then(|o| fit(&o)),
        Some("measure") => Opts::parse(&args[2..]).and_then(|o| measure(&o)),
        Some("--help" | "-h") => {
            print!("{USAGE}");
            return Some(ExitCode::SUCCESS);
        }
        _ => Err("junqi model: say fit or measure".to_owned()),
    };
    Some(exit_code(result, USAGE))
}

/// Where a tool writes its result: the `--out` file, opened before any game is played
/// (so that a path that cannot be written is refused at once, not after the games) but
/// emptied only when the result is written (a run that fails leaves an older file as
/// it was, and removes one it created), or standard output.
pub(crate) enum Out {
    File { path: String, file: Option<std::fs::File>, created: bool },
    Stdout,
}

impl Out {
    /// Opens `path` for writing (`tool` names the program in the error: "junqi model").
    pub(crate) fn open(path: Option<&str>, tool: &str) -> Result<Out, String> {
        let Some(p) = path else { return Ok(Out::Stdout) };
        let created = !std::path::Path::new(p).exists();
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(p)
            .map(|f| Out::File { path: p.to_owned(), file: Some(f), created })
            .map_err(|e| format!("{tool}: writing {p}: {e}"))
    }

    /// Writes `text` there (the file's old contents replaced).
    pub(crate) fn write(mut self, text: &str, tool: &str) -> Result<(), String> {
        match &mut self {
            Out::File { path, file, .. } => {
                let mut f = file.take().expect("written once");
                f.set_len(0)
                    .and_then(|()| f.write_all(text.as_bytes()))
                    .map_err(|e| format!("{tool}: writing {path}: {e}"))
            }
            Out::Stdout => {
                print!("{text}");
                Ok(())
            }
        }
    }
}

impl Drop for Out {
    /// A file this run created and never wrote (the run failed) is removed.
    fn drop(&mut self) {
        if let Out::File { path, file: Some(_), created: true } = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A tool's exit: success, or the error and the usage on standard error and code 2.
pub(crate) fn exit_code(result: Result<(), String>, usage: &str) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            eprint!("{usage}");
            ExitCode::from(2)
        }
    }
}

struct Opts {
    rules: Arc<RuleSet>,
    games: Option<usize>,
    agents: Vec<String>,
    seed: u64,
    max_plies: u32,
    threads: usize,
    out: Option<String>,
    model: String,
    every: u32,
    samples: u32,
}

impl Opts {
    fn parse(args: &[String]) -> Result<Opts, String> {
        let mut o = Opts {
            rules: RuleSet::preset("classic").map_err(|e| e.to_string())?,
            games: None,
            agents: vec!["greedy".into()],
            seed: 1,
            max_plies: 1000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            out: None,
            model: "shipped".into(),
            every: 10,
            samples: 64,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().cloned().ok_or_else(|| format!("junqi model: {a} needs a value"));
            let number = |v: String| v.parse::<u64>().map_err(|_| format!("junqi model: {a} takes a number, not {v:?}"));
            match a.as_str() {
                "--rules" => {
                    let v = value()?;
                    let text = match std::path::Path::new(&v).is_file() {
                        true => std::fs::read_to_string(&v).map_err(|e| format!("junqi model: reading {v}: {e}"))?,
                        false => v,
                    };
                    o.rules = RuleSet::load(&text).map_err(|e| format!("junqi model: {e}"))?;
                }
                "--games" => o.games = Some(number(value()?)? as usize),
                "--agents" => o.agents = value()?.split(',').map(str::to_owned).collect(),
                "--seed" => o.seed = number(value()?)?,
                "--max-plies" => o.max_plies = number(value()?)? as u32,
                "--threads" => o.threads = (number(value()?)? as usize).max(1),
                "--out" => o.out = Some(value()?),
                "--model" => o.model = value()?,
                "--every" => o.every = (number(value()?)? as u32).max(1),
                "--samples" => o.samples = (number(value()?)? as u32).max(1),
                _ => return Err(format!("junqi model: unknown argument {a}")),
            }
        }
        for spec in &o.agents {
            agent::by_name(spec, 0).map_err(|e| format!("junqi model: {e}"))?;
        }
        if o.rules.deals() {
            return Err(format!(
                "junqi model: {} deals face down: every piece that moves is face up, so there is nothing to model",
                o.rules.name()
            ));
        }
        Ok(o)
    }

    /// The seed of game `i` (measure's games are apart from fit's).
    fn game_seed(&self, i: usize, measuring: bool) -> u64 {
        let mut r = Rng::new(self.seed ^ if measuring { 0x6D65_6173_7572_6521 } else { 0 });
        for _ in 0..=(i % 4) {
            r.next_u64();
        }
        r.next_u64() ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Plays one self-play game, calling `each` after every ply.
fn play(o: &Opts, seed: u64, each: impl FnMut(&Game, &crate::referee::Report)) -> Result<Game, String> {
    self_play(&o.rules, &o.agents, o.max_plies, seed, each)
}

/// Plays one self-play game of `rules` from `seed` between `agents` (one spec per seat,
/// cycled; each seeded from `seed` and its seat), to the end or `max_plies`, calling
/// `each` after every ply.
pub(crate) fn self_play(
    rules: &Arc<RuleSet>,
    specs: &[String],
    max_plies: u32,
    seed: u64,
    mut each: impl FnMut(&Game, &crate::referee::Report),
) -> Result<Game, String> {
    let mut game = Game::with_rules(rules.clone(), seed);
    let sides: Vec<Side> = rules.sides().to_vec();
    let mut agents: Vec<Box<dyn Agent>> = (0..sides.len())
        .map(|i| agent::by_name(&specs[i % specs.len()], seed ^ (i as u64 + 1)).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    while game.result().is_none() && game.position().ply() < max_plies {
        let mut acted = false;
        for (i, &side) in sides.iter().enumerate() {
            if let Some(report) = agent::act(&mut game, side, agents[i].as_mut()).map_err(|e| e.to_string())? {
                acted = true;
                each(&game, &report);
            }
        }
        if !acted {
            break;
        }
    }
    Ok(game)
}

/// Runs `work(i)` for every game index on `threads` threads, in order of index within
/// each thread; prints progress to standard error.
pub(crate) fn parallel<T: Send>(n: usize, threads: usize, work: impl Fn(usize) -> Result<T, String> + Sync) -> Result<Vec<T>, String> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Vec<(usize, T)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(n).max(1))
            .map(|t| {
                let (work, done) = (&work, &done);
                scope.spawn(move || {
                    let mut out = Vec::new();
                    for i in (t..n).step_by(threads.min(n).max(1)) {
                        out.push((i, work(i)?));
                        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if d * 10 / n != (d - 1) * 10 / n {
                            eprint!("\r{d}/{n} games");
                            let _ = std::io::stderr().flush();
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into()))).collect()
    });
    eprintln!();
    let mut all: Vec<(usize, T)> = Vec::with_capacity(n);
    for r in results {
        all.extend(r?);
    }
    all.sort_by_key(|e| e.0);
    Ok(all.into_iter().map(|e| e.1).collect())
}

fn fit(o: &Opts) -> Result<(), String> {
    let out = Out::open(o.out.as_deref(), "junqi model")?;
    let n = o.games.unwrap_or(2000);
    let source = format!(
        "{n} self-play games of {}, seed {}, at most {} plies: junqi model fit --rules {} --games {n} --agents {} --seed {} --max-plies {}",
        o.agents.join(" against "),
        o.seed,
        o.max_plies,
        o.rules.name(),
        o.agents.join(","),
        o.seed,
        o.max_plies
    );
    let parts = parallel(n, o.threads, |i| {
        let game = play(o, o.game_seed(i, false), |_, _| {})?;
        let mut m = OpponentModel::empty(&o.rules, &source);
        m.count(&game);
        Ok(m)
    })?;
    let mut model = OpponentModel::empty(&o.rules, &source);
    for p in &parts {
        model.merge(p);
    }
    let text = model.to_json(&o.rules);
    out.write(&text, "junqi model")
}

/// Sums of one row of the measurement table.
#[derive(Clone, Copy, Default)]
struct Row {
    pieces: f64,
    plain: f64,
    plain_top: f64,
    modelled: f64,
    modelled_top: f64,
    plain_ll: f64,
    modelled_ll: f64,
}

impl Row {
    fn add(&mut self, o: &Row) {
        self.pieces += o.pieces;
        self.plain += o.plain;
        self.plain_top += o.plain_top;
        self.modelled += o.modelled;
        self.modelled_top += o.modelled_top;
        self.plain_ll += o.plain_ll;
        self.modelled_ll += o.modelled_ll;
    }
}

const PLY_BANDS: [(u32, u32); 6] = [(0, 20), (20, 40), (40, 80), (80, 160), (160, 320), (320, u32::MAX)];

fn band(ply: u32) -> usize {
    PLY_BANDS.iter().position(|&(a, b)| ply >= a && ply < b).unwrap_or(PLY_BANDS.len() - 1)
}

fn measure(o: &Opts) -> Result<(), String> {
    let text = match std::path::Path::new(&o.model).is_file() {
        true => std::fs::read_to_string(&o.model).map_err(|e| format!("junqi model: reading {}: {e}", o.model))?,
        false => o.model.clone(),
    };
    let model = OpponentModel::load(&o.rules, &text).map_err(|e| format!("junqi model: {}: {e}", o.model))?;
    let total = measure_tables(o, &model)?;
    print!("{}", report(o, &model, &total));
    Ok(())
}

/// The measurement's sums over its games: per seat whose pieces are guessed, per ply band.
fn measure_tables(o: &Opts, model: &OpponentModel) -> Result<Vec<[Row; PLY_BANDS.len()]>, String> {
    let n = o.games.unwrap_or(200);
    let seats = o.rules.sides().len();
    // Per game: [seat whose pieces are guessed][ply band].
    let tables = parallel(n, o.threads, |i| {
        let mut table = vec![[Row::default(); PLY_BANDS.len()]; seats];
        let seed = o.game_seed(i, true);
        let mut err = Ok(());
        let mut last = None;
        // Every player's beliefs, kept up to date report by report from the first ply.
        let mut kept: Vec<super::Beliefs> = Vec::new();
        play(o, seed, |game, report| {
            if game.phase() == crate::Phase::Deploy {
                return;
            }
            if kept.is_empty() {
                kept = o.rules.sides().iter().map(|&p| game.beliefs(p)).collect();
            } else {
                for b in &mut kept {
                    b.observe(&report.events_for(b.player()));
                }
            }
            let ply = game.position().ply();
            if ply % o.every != 0 || err.is_err() || last == Some(ply) {
                return;
            }
            last = Some(ply);
            for (pi, &player) in o.rules.sides().iter().enumerate() {
                let beliefs = &kept[pi];
                debug_assert!(*beliefs == game.beliefs(player));
                let modelled = beliefs.probabilities(model);
                let plain = beliefs.probabilities(&OpponentModel::plain());
                let samples: Vec<_> = (0..o.samples)
                    .filter_map(|k| beliefs.sample(seed ^ (ply as u64) << 20 ^ (pi as u64) << 40 ^ k as u64))
                    .collect();
                for p in game.board().points() {
                    let Some((owner, kind)) = game.position().piece_at(p) else { continue };
                    if o.rules.team_of(player).contains(owner) || beliefs.candidates(p).len() < 2 {
                        continue;
                    }
                    let seat = o.rules.sides().iter().position(|&s| s == owner).unwrap_or(0);
                    let hits = samples.iter().filter(|s| s.identity(p).map(|x| x.1) == Some(kind)).count();
                    let share = hits as f64 / samples.len().max(1) as f64;
                    let q = modelled.kind(p, kind);
                    let row = Row {
                        pieces: 1.0,
                        plain: share,
                        plain_top: (most_sampled(&samples, p) == Some(kind)) as u8 as f64,
                        modelled: q,
                        modelled_top: (modelled.most_likely(p) == Some(kind)) as u8 as f64,
                        plain_ll: plain.kind(p, kind).max(1e-300).ln(),
                        modelled_ll: q.max(1e-300).ln(),
                    };
                    if q <= 0.0 {
                        err = Err(format!("game {i} (seed {seed}), ply {ply}: the modelled beliefs give the true kind 0"));
                    }
                    table[seat][band(ply)].add(&row);
                }
            }
        })?;
        err.map(|_| table)
    })?;
    let mut total = vec![[Row::default(); PLY_BANDS.len()]; seats];
    for t in &tables {
        for (a, b) in total.iter_mut().zip(t) {
            for (x, y) in a.iter_mut().zip(b) {
                x.add(y);
            }
        }
    }
    Ok(total)
}

/// The measurement's table (Markdown): a row per seat and ply band with pieces, then
/// the seat's plies from 40 on.
fn report(o: &Opts, model: &OpponentModel, total: &[[Row; PLY_BANDS.len()]]) -> String {
    let mut out = format!(
        "{} games of {} ({}), model: {} ({} games), every {} plies, plain from {} drawn armies\n",
        o.games.unwrap_or(200),
        o.rules.name(),
        o.agents.join(" against "),
        o.model,
        model.games(),
        o.every,
        o.samples
    );
    out.push_str("| pieces of | plies | pieces | P(true) plain | P(true) modelled | ratio | top-1 plain | top-1 modelled | log-lik. plain | log-lik. modelled |\n");
    out.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (seat, rows) in total.iter().enumerate() {
        let who = format!("{} ({})", o.rules.sides()[seat], o.agents[seat % o.agents.len()]);
        let mut late = Row::default();
        for (b, r) in rows.iter().enumerate() {
            if b >= 2 {
                late.add(r);
            }
            out.push_str(&format_row(&who, &band_name(b), r));
        }
        out.push_str(&format_row(&who, "40 on", &late));
    }
    out
}

fn band_name(b: usize) -> String {
    match PLY_BANDS[b] {
        (a, u32::MAX) => format!("{a} on"),
        (a, z) => format!("{a}–{}", z - 1),
    }
}

/// One line of the table: the row's means per piece ("" for a row without pieces).
fn format_row(who: &str, plies: &str, r: &Row) -> String {
    if r.pieces == 0.0 {
        return String::new();
    }
    let n = r.pieces;
    format!(
        "| {who} | {plies} | {:.0} | {:.3} | {:.3} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
        n,
        r.plain / n,
        r.modelled / n,
        r.modelled / r.plain.max(1e-12),
        r.plain_top / n,
        r.modelled_top / n,
        r.plain_ll / n,
        r.modelled_ll / n
    )
}

/// The kind drawn most often for the piece on `p` (ties: the lowest kind index).
fn most_sampled(samples: &[super::super::Sample], p: crate::board::Point) -> Option<crate::piece::PieceKind> {
    let mut n = [0u32; crate::piece::PieceKind::COUNT];
    for s in samples {
        if let Some((_, k)) = s.identity(p) {
            n[k as usize] += 1;
        }
    }
    let best = (0..n.len()).max_by(|&a, &b| n[a].cmp(&n[b]).then(b.cmp(&a)))?;
    (n[best] > 0).then(|| crate::piece::PieceKind::ALL[best])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::PieceKind;

    #[test]
    fn an_out_file_is_replaced_only_by_a_result() {
        let dir = std::env::temp_dir().join(format!("junqi-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let old = dir.join("old.json");
        let p = old.to_str().unwrap();
        std::fs::write(&old, "an older, longer file").unwrap();
        // A run that fails after opening it leaves it as it was.
        drop(Out::open(Some(p), "junqi model").unwrap());
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "an older, longer file");
        // A result replaces it whole.
        Out::open(Some(p), "junqi model").unwrap().write("new", "junqi model").unwrap();
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "new");
        // A file the failed run created is removed; one it wrote stays.
        let fresh = dir.join("fresh.json");
        let f = fresh.to_str().unwrap();
        let out = Out::open(Some(f), "junqi model").unwrap();
        assert!(fresh.exists());
        drop(out);
        assert!(!fresh.exists());
        Out::open(Some(f), "junqi model").unwrap().write("x", "junqi model").unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "x");
        let err = Out::open(Some("/nonexistent-folder/m.json"), "junqi model").err().unwrap();
        assert!(err.starts_with("junqi model: writing /nonexistent-folder/m.json: "), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }

    /// A self-play game is the game its agents play, each seeded from the game's seed and
    /// its seat (`seed ^ (seat + 1)`), the specs cycled over the seats, until the end or
    /// the first round that reaches `max_plies`; `each` sees every ply.
    #[test]
    fn self_play_seeds_each_seat_s_agent_and_stops_at_the_ply_cap() {
        for (rules, specs, seed) in [("classic", &["random", "greedy"][..], 11u64), ("siguo", &["random"][..], 12)] {
            let rules = RuleSet::preset(rules).unwrap();
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            let mut seen = 0;
            let game = self_play(&rules, &specs, 24, seed, |_, _| seen += 1).unwrap();
            let mut by_hand = Game::with_rules(rules.clone(), seed);
            let sides = rules.sides().to_vec();
            let mut agents: Vec<Box<dyn Agent>> =
                (0..sides.len()).map(|i| agent::by_name(&specs[i % specs.len()], seed ^ (i as u64 + 1)).unwrap()).collect();
            let mut plies = 0;
            while by_hand.result().is_none() && by_hand.position().ply() < 24 {
                for (i, &side) in sides.iter().enumerate() {
                    plies += agent::act(&mut by_hand, side, agents[i].as_mut()).unwrap().is_some() as u32;
                }
            }
            assert_eq!(game.position_string(), by_hand.position_string(), "{}", rules.name());
            assert_eq!(game.position().ply(), 24, "{}: the cap is a multiple of the seats", rules.name());
            assert_eq!(seen, plies);
        }
    }

    fn opts(args: &[&str]) -> Opts {
        Opts::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>()).unwrap()
    }

    /// The table gives each band's means per piece, and each seat's plies from 40 on
    /// (the bands from 40–79), leaving out rows without pieces.
    #[test]
    fn the_report_gives_each_band_s_means_and_the_plies_from_40_on() {
        assert_eq!((0..6).map(band_name).collect::<Vec<_>>(), ["0–19", "20–39", "40–79", "80–159", "160–319", "320 on"]);
        assert_eq!([0, 19, 20, 39, 40, 79, 80, 159, 160, 319, 320, u32::MAX].map(band), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        let a = Row { pieces: 4.0, plain: 1.0, plain_top: 2.0, modelled: 3.0, modelled_top: 1.0, plain_ll: -2.0, modelled_ll: -1.0 };
        let b = Row { pieces: 6.0, plain: 3.0, plain_top: 3.0, modelled: 1.4, modelled_top: 6.0, plain_ll: -3.0, modelled_ll: -12.0 };
        let mut south = [Row::default(); PLY_BANDS.len()];
        (south[0], south[2], south[5]) = (a, b, a);
        let mut north = [Row::default(); PLY_BANDS.len()];
        north[1] = b;
        let o = opts(&["--games", "3", "--agents", "greedy,random", "--every", "5", "--samples", "9"]);
        let text = report(&o, &OpponentModel::plain(), &[south, north]);
        let want = "3 games of classic (greedy against random), model: shipped (0 games), every 5 plies, plain from 9 drawn armies
| pieces of | plies | pieces | P(true) plain | P(true) modelled | ratio | top-1 plain | top-1 modelled | log-lik. plain | log-lik. modelled |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
| south (greedy) | 0–19 | 4 | 0.250 | 0.750 | 3.00 | 0.500 | 0.250 | -0.500 | -0.250 |
| south (greedy) | 40–79 | 6 | 0.500 | 0.233 | 0.47 | 0.500 | 1.000 | -0.500 | -2.000 |
| south (greedy) | 320 on | 4 | 0.250 | 0.750 | 3.00 | 0.500 | 0.250 | -0.500 | -0.250 |
| south (greedy) | 40 on | 10 | 0.400 | 0.440 | 1.10 | 0.500 | 0.700 | -0.500 | -1.300 |
| north (random) | 20–39 | 6 | 0.500 | 0.233 | 0.47 | 0.500 | 1.000 | -0.500 | -2.000 |
";
        assert_eq!(text, want);
    }

    /// The measurement's sums, worked out again from the library: at every K-th ply, for
    /// every player and every enemy piece it has not identified, the share of its drawn
    /// armies that give the true kind (and whether that kind is the one drawn most, ties
    /// to the lowest index), the modelled probability of it (and whether it is the most
    /// likely kind), and both log-likelihoods — added to the row of the piece's seat and
    /// the ply's band.
    #[test]
    fn the_measurement_sums_every_unidentified_enemy_piece_at_every_kth_ply() {
        let o = opts(&["--games", "1", "--max-plies", "60", "--every", "8", "--samples", "12", "--agents", "greedy,random"]);
        let model = OpponentModel::for_rules(&o.rules);
        let total = measure_tables(&o, &model).unwrap();
        let seed = o.game_seed(0, true);
        let sides = o.rules.sides().to_vec();
        let mut want = vec![[Row::default(); PLY_BANDS.len()]; 2];
        let (mut measured, mut identified) = (Vec::new(), 0);
        play(&o, seed, |game, _| {
            let ply = game.position().ply();
            if game.phase() == crate::Phase::Deploy || ply % 8 != 0 {
                return;
            }
            measured.push(ply);
            let band = if ply < 20 { 0 } else if ply < 40 { 1 } else { 2 };
            for (pi, &player) in sides.iter().enumerate() {
                let b = game.beliefs(player);
                let salt = seed ^ ((ply as u64) << 20) ^ ((pi as u64) << 40);
                let samples: Vec<_> = (0..12u64).filter_map(|k| b.sample(salt ^ k)).collect();
                let (modelled, plain) = (b.probabilities(&model), b.probabilities(&OpponentModel::plain()));
                for (p, owner, kind) in game.position().pieces() {
                    identified += (owner != player && b.candidates(p).len() < 2) as u32;
                    if owner == player || b.candidates(p).len() < 2 {
                        continue;
                    }
                    let mut drawn = [0usize; PieceKind::COUNT];
                    for s in &samples {
                        drawn[s.identity(p).unwrap().1 as usize] += 1;
                    }
                    let mut top = 0;
                    for k in 1..PieceKind::COUNT {
                        if drawn[k] > drawn[top] {
                            top = k;
                        }
                    }
                    let q = modelled.kind(p, kind);
                    let r = &mut want[(owner == Side::North) as usize][band];
                    r.pieces += 1.0;
                    r.plain += drawn[kind as usize] as f64 / samples.len() as f64;
                    r.plain_top += (top == kind as usize) as u8 as f64;
                    r.modelled += q;
                    r.modelled_top += (modelled.most_likely(p) == Some(kind)) as u8 as f64;
                    r.plain_ll += plain.kind(p, kind).ln();
                    r.modelled_ll += q.ln();
                }
            }
        })
        .unwrap();
        assert_eq!(measured, [0, 8, 16, 24, 32, 40, 48, 56]);
        assert!(identified > 0, "no enemy piece was identified: none left out");
        for (seat, (got, want)) in total.iter().zip(&want).enumerate() {
            for (band, (g, w)) in got.iter().zip(want).enumerate() {
                let g = [g.pieces, g.plain, g.plain_top, g.modelled, g.modelled_top, g.plain_ll, g.modelled_ll];
                let w = [w.pieces, w.plain, w.plain_top, w.modelled, w.modelled_top, w.plain_ll, w.modelled_ll];
                assert!(g.iter().zip(&w).all(|(x, y)| (x - y).abs() < 1e-9), "seat {seat} band {band}: {g:?}, not {w:?}");
            }
            assert!(want.iter().take(3).all(|r| r.pieces > 0.0), "seat {seat}: {:?}", want.iter().map(|r| r.pieces).collect::<Vec<_>>());
        }
    }

    /// A measurement row adds up field by field.
    #[test]
    fn rows_add_field_by_field() {
        let a = Row { pieces: 1.0, plain: 2.0, plain_top: 3.0, modelled: 4.0, modelled_top: 5.0, plain_ll: 6.0, modelled_ll: 7.0 };
        let mut b = Row { pieces: 10.0, plain: 20.0, plain_top: 30.0, modelled: 40.0, modelled_top: 50.0, plain_ll: 60.0, modelled_ll: 70.0 };
        b.add(&a);
        let got = [b.pieces, b.plain, b.plain_top, b.modelled, b.modelled_top, b.plain_ll, b.modelled_ll];
        assert_eq!(got, [11.0, 22.0, 33.0, 44.0, 55.0, 66.0, 77.0]);
    }

    #[test]
    fn game_seeds_are_pinned_and_measure_s_games_are_apart_from_fit_s() {
        // The shipped models (core/data/models/) are refitted by the command in their
        // "source", and docs/inference.md's tables come from `junqi model measure`:
        // the games' seeds must not change.
        let o = Opts::parse(&["--seed".to_owned(), "5".to_owned()]).unwrap();
        let fit: Vec<u64> = (0..3).map(|i| o.game_seed(i, false)).collect();
        let measure: Vec<u64> = (0..3).map(|i| o.game_seed(i, true)).collect();
        assert_eq!(fit, [0xC097_314D_9397_36F8, 0xA5A5_AA49_6F21_BD52, 0x2500_BDB0_2491_416F]);
        assert_eq!(measure, [0xA0E5_C6C8_4721_FBD4, 0x9AE5_C217_4035_E36A, 0x8E1F_52E7_E8CC_C17A]);
        assert!(fit.iter().all(|s| !measure.contains(s)));
    }
}
