//! `junqi eval fit`: the evaluation's weights fitted to self-play outcomes (Texel's
//! method: a logistic regression of each game's result on the evaluation's terms at
//! the positions it went through), the file the engine ships per rule family in
//! `core/data/eval/` (docs/agents.md, "The evaluation").
//!
//! The fit, in logits: P(the player's team scores) = σ(w · terms), the result counted
//! 1 for a win, ½ for a draw (or a game still going at the ply limit), 0 for a loss,
//! at every `every`-th ply of every game whose index is not 4 mod 5, for every seat
//! still playing. Newton's method on the
//! cross-entropy with a ridge pulling every weight towards the derived weights at
//! their best single scale (so a kind the games never trade keeps its derived value),
//! its strength chosen on the games whose index is 3 mod 5.
//! The weights are written in piece-value units, the logits times [`SCALE`], so that
//! `tanh(score / 12)` (the tree search's squashing) is the expected result. The games
//! whose index is 4 mod 5 are held out: the mean log-loss there, under the derived
//! weights at their best scale and under the fitted ones, is written beside them.

use std::process::ExitCode;
use std::sync::Arc;

use crate::agent;
use crate::piece::{PieceKind, Side};
use crate::record::Record;
use crate::referee::{Game, GameError};
use crate::rng::Rng;
use crate::rules::RuleSet;

use super::eval::{EvalWeights, Evaluator, Fitted, Terms, Weights};
use crate::inference::model::tool::Out;

/// Evaluation units per logit: `tanh(score / 12) = 2σ(score / 6) − 1`.
pub(crate) const SCALE: f64 = 6.0;
/// The ridge strengths tried (in logits², for the whole sample): the one with the
/// least log-loss on the validation games (index 3 mod 5) is used.
const RIDGES: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];

const USAGE: &str = "\
usage: junqi eval fit --rules R [--games N] [--agents A[,B...]] [--seed S] [--max-plies P]
                      [--every K] [--threads T] [--out FILE]

fit  plays N self-play games (default 2000) between the agents (one spec per seat,
     cycled; default greedy:eval=derived), and fits the evaluation's weights to their
     results: a logistic regression of each seat's result (win 1, draw or unfinished
     ½, loss 0) on the evaluation's terms every K plies (default 3) of the games whose
     index is not 4 mod 5; those are held out to measure it. Writes the weights' JSON
     to FILE (default: standard output) and the fit's log-loss to standard error. The
     same arguments give the same file, whatever the thread count.
";

/// Runs `junqi eval ...` (`args` after the program name); `None` if `args` do not
/// start with `eval`.
pub fn cli(args: &[String]) -> Option<ExitCode> {
    if args.first().map(String::as_str) != Some("eval") {
        return None;
    }
    let result = match args.get(1).map(String::as_str) {
        Some("fit") => Opts::parse(&args[2..]).and_then(|o| {
            let out = Out::open(o.out.as_deref(), "junqi eval")?;
            let fitted = fit(&o)?;
            let text = serde_json::to_string_pretty(&fitted).map_err(|e| e.to_string())? + "\n";
            eprintln!(
                "{} positions of {} games; held-out log-loss: derived {:.4}, fitted {:.4}",
                fitted.positions, fitted.games, fitted.derived_loss, fitted.fitted_loss
            );
            out.write(&text, "junqi eval")
        }),
        Some("--help" | "-h") => {
            print!("{USAGE}");
            return Some(ExitCode::SUCCESS);
        }
        _ => Err("junqi eval: say fit".to_owned()),
    };
    Some(crate::inference::model::tool::exit_code(result, USAGE))
}

/// What `junqi eval fit` was asked.
#[derive(Clone, Debug)]
pub(crate) struct Opts {
    pub rules: Arc<RuleSet>,
    pub games: usize,
    pub agents: Vec<String>,
    pub seed: u64,
    pub max_plies: u32,
    pub every: u32,
    pub threads: usize,
    pub out: Option<String>,
}

impl Opts {
    /// The defaults for `rules` (2 000 games of `greedy:eval=derived`, seed 1).
    pub(crate) fn new(rules: Arc<RuleSet>) -> Opts {
        Opts {
            rules,
            games: 2000,
            agents: vec!["greedy:eval=derived".into()],
            seed: 1,
            max_plies: 1000,
            every: 3,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            out: None,
        }
    }

    fn parse(args: &[String]) -> Result<Opts, String> {
        let mut o = Opts::new(RuleSet::preset("classic").map_err(|e| e.to_string())?);
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().cloned().ok_or_else(|| format!("junqi eval: {a} needs a value"));
            let number = |v: String| v.parse::<u64>().map_err(|_| format!("junqi eval: {a} takes a number, not {v:?}"));
            match a.as_str() {
                "--rules" => {
                    let v = value()?;
                    let text = match std::path::Path::new(&v).is_file() {
                        true => std::fs::read_to_string(&v).map_err(|e| format!("junqi eval: reading {v}: {e}"))?,
                        false => v,
                    };
                    o.rules = RuleSet::load(&text).map_err(|e| format!("junqi eval: {e}"))?;
                }
                "--games" => o.games = number(value()?)?.clamp(1, 10_000_000) as usize,
                "--agents" => o.agents = value()?.split(',').map(str::to_owned).collect(),
                "--seed" => o.seed = number(value()?)?,
                "--max-plies" => o.max_plies = number(value()?)?.clamp(1, u32::MAX as u64) as u32,
                "--every" => o.every = number(value()?)?.clamp(1, 1000) as u32,
                "--threads" => o.threads = number(value()?)?.clamp(1, 256) as usize,
                "--out" => o.out = Some(value()?),
                _ => return Err(format!("junqi eval: unknown argument {a}")),
            }
        }
        for spec in &o.agents {
            agent::by_name(spec, 0).map_err(|e| format!("junqi eval: {e}"))?;
        }
        if o.games < 5 {
            return Err("junqi eval: --games must be at least 5 (one game in five is held out)".to_owned());
        }
        Ok(o)
    }

    /// The seed of game `i`.
    fn game_seed(&self, i: usize) -> u64 {
        let mut r = Rng::new(self.seed ^ 0x7E58_E1A1_0000_0001);
        r.next_u64() ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The terms as the regression's inputs: the army's kinds in the rule set's order,
/// then pressure, guard, mover, waiter, mover_end, waiter_end, exposed, press.
pub(crate) fn inputs(rules: &RuleSet, t: &Terms) -> Vec<f64> {
    let mut x: Vec<f64> = rules.army().map(|(k, _)| t.material[k as usize] as f64).collect();
    x.extend([t.pressure, t.guard, t.mover, t.waiter, t.mover_end, t.waiter_end, t.exposed, t.press].map(f64::from));
    x
}

/// The weights as a vector in the order of [`inputs`].
fn as_vector(rules: &RuleSet, w: &Weights) -> Vec<f64> {
    let mut v: Vec<f64> = rules.army().map(|(k, _)| w.material.get(&k).copied().unwrap_or(0.0) as f64).collect();
    v.extend([w.pressure, w.guard, w.mover, w.waiter, w.mover_end, w.waiter_end, w.exposed, w.press].map(f64::from));
    v
}

/// The weights from a vector in the order of [`inputs`].
fn from_vector(rules: &RuleSet, v: &[f64]) -> Weights {
    let kinds: Vec<PieceKind> = rules.army().map(|(k, _)| k).collect();
    let n = kinds.len();
    let r = |x: f64| x as f32;
    Weights {
        material: kinds.iter().zip(v).map(|(&k, &x)| (k, r(x))).collect(),
        pressure: r(v[n]),
        guard: r(v[n + 1]),
        mover: r(v[n + 2]),
        waiter: r(v[n + 3]),
        mover_end: r(v[n + 4]),
        waiter_end: r(v[n + 5]),
        exposed: r(v[n + 6]),
        press: r(v[n + 7]),
    }
}

/// One position for the regression: its inputs, the seat's result, and whether it is
/// held out.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    pub x: Vec<f64>,
    pub y: f64,
    pub held_out: bool,
    /// The game's index mod 5 (4: held out, 3: validation for the ridge).
    pub fold: u8,
}

/// Plays game `i` and returns its samples.
fn game_samples(o: &Opts, eval: &Evaluator, i: usize) -> Result<Vec<Sample>, String> {
    let game = crate::inference::model::tool::self_play(&o.rules, &o.agents, o.max_plies, o.game_seed(i), |_, _| {})?;
    record_samples(eval, &game.record(), o.every, i).map_err(|e| e.to_string())
}

/// The samples of one game's record (game `index` of a run: its index mod 5 is its
/// fold): the terms every `every`-th ply for every seat still playing, each with the
/// seat's result (½ for a draw or a game without a result).
pub(crate) fn record_samples(eval: &Evaluator, record: &Record, every: u32, index: usize) -> Result<Vec<Sample>, GameError> {
    let mut seen: Vec<(Side, Vec<f64>)> = Vec::new();
    let mut last = None;
    let game = record.replay_each(usize::MAX, |game| {
        let pos = game.position();
        if pos.result().is_some() || game.phase() == crate::Phase::Deploy || pos.ply() % every != 0 || last == Some(pos.ply()) {
            return;
        }
        last = Some(pos.ply());
        for &p in pos.rules().sides() {
            if pos.eliminated().contains(p) {
                continue;
            }
            if let Some(t) = eval.terms(pos, p) {
                seen.push((p, inputs(pos.rules(), &t)));
            }
        }
    })?;
    let rules = game.rules();
    let result = game.result();
    let fold = (index % 5) as u8;
    Ok(seen
        .into_iter()
        .map(|(p, x)| {
            let y = match &result {
                Some(r) if !r.is_draw() => f64::from(u8::from(r.winners.iter().any(|w| rules.team_of(p).contains(w)))),
                _ => 0.5,
            };
            Sample { x, y, held_out: fold == 4, fold }
        })
        .collect())
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The mean cross-entropy of `samples` under the logits `w · x`.
pub(crate) fn log_loss<'a>(samples: impl Iterator<Item = &'a Sample>, w: &[f64]) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for s in samples {
        let z: f64 = s.x.iter().zip(w).map(|(a, b)| a * b).sum();
        // ln σ(z) and ln(1 − σ(z)) without overflow.
        let ln_p = -softplus(-z);
        let ln_q = -softplus(z);
        sum -= s.y * ln_p + (1.0 - s.y) * ln_q;
        n += 1;
    }
    sum / n.max(1) as f64
}

fn softplus(z: f64) -> f64 {
    if z > 30.0 {
        z
    } else {
        z.exp().ln_1p()
    }
}

/// The best single scale `c` of the logits `c · (w · x)` (Newton's method in one
/// variable with step halving, from 1/[`SCALE`]).
pub(crate) fn best_scale(samples: &[&Sample], w: &[f64]) -> f64 {
    let s: Vec<(f64, f64)> = samples.iter().map(|s| (s.x.iter().zip(w).map(|(a, b)| a * b).sum::<f64>(), s.y)).collect();
    let loss = |c: f64| scaled_loss(&s, c);
    let mut c = 1.0 / SCALE;
    let mut f = loss(c);
    for _ in 0..100 {
        let (mut g, mut h) = (0.0, 1e-12);
        for &(z, y) in &s {
            let p = sigmoid(c * z);
            g += (p - y) * z;
            h += p * (1.0 - p) * z * z;
        }
        let step = g / h;
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let ft = loss(c - t * step);
            if ft <= f {
                moved = f - ft > 1e-12 * f.max(1.0);
                c -= t * step;
                f = ft;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            break;
        }
    }
    c
}

/// The summed cross-entropy of the logits `c · z` against the results `y` of `(z, y)`.
fn scaled_loss(s: &[(f64, f64)], c: f64) -> f64 {
    s.iter().map(|&(z, y)| y * softplus(-c * z) + (1.0 - y) * softplus(c * z)).sum()
}

/// Ridge logistic regression by Newton's method with step halving: the `w` that
/// minimizes Σ CE(y, σ(w · x)) + ridge/2 · |w − prior|².
pub(crate) fn regress(samples: &[&Sample], prior: &[f64], ridge: f64) -> Vec<f64> {
    let n = prior.len();
    let objective = |w: &[f64]| {
        let data: f64 = log_loss(samples.iter().copied(), w) * samples.len() as f64;
        data + 0.5 * ridge * w.iter().zip(prior).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()
    };
    let mut w = prior.to_vec();
    let mut f = objective(&w);
    for _ in 0..100 {
        let mut g: Vec<f64> = w.iter().zip(prior).map(|(a, b)| ridge * (a - b)).collect();
        let mut h = vec![0.0; n * n];
        for i in 0..n {
            h[i * n + i] = ridge;
        }
        for s in samples {
            let z: f64 = s.x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let (r, v) = (p - s.y, p * (1.0 - p));
            for i in 0..n {
                if s.x[i] == 0.0 {
                    continue;
                }
                g[i] += r * s.x[i];
                let vi = v * s.x[i];
                for j in 0..n {
                    h[i * n + j] += vi * s.x[j];
                }
            }
        }
        let Some(step) = solve(h, g, n) else { break };
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..30 {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, d)| a - t * d).collect();
            let ft = objective(&trial);
            if ft <= f {
                improved = f - ft > 1e-9 * f.abs().max(1.0);
                w = trial;
                f = ft;
                break;
            }
            t *= 0.5;
        }
        if !improved {
            break;
        }
    }
    w
}

/// Solves `h · x = g` (Gaussian elimination with partial pivoting); `None` if `h` is
/// singular.
fn solve(mut h: Vec<f64>, mut g: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    for c in 0..n {
        let p = (c..n).max_by(|&a, &b| h[a * n + c].abs().total_cmp(&h[b * n + c].abs()))?;
        if h[p * n + c].abs() < 1e-300 {
            return None;
        }
        if p != c {
            for j in 0..n {
                h.swap(c * n + j, p * n + j);
            }
            g.swap(c, p);
        }
        for r in c + 1..n {
            let f = h[r * n + c] / h[c * n + c];
            if f != 0.0 {
                for j in c..n {
                    h[r * n + j] -= f * h[c * n + j];
                }
                g[r] -= f * g[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for c in (0..n).rev() {
        let s: f64 = (c + 1..n).map(|j| h[c * n + j] * x[j]).sum();
        x[c] = (g[c] - s) / h[c * n + c];
    }
    Some(x)
}

/// Why [`EvalFit::fit`] refused.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalFitError {
    /// Fewer than 5 games counted (one in five is held out, one in five chooses the
    /// ridge).
    #[error("a fit needs at least 5 games (one in five is held out), not {0}")]
    TooFewGames(usize),
    /// The games counted hold no position to fit on, in the training or the held-out
    /// games (all over before the first move, say).
    #[error("the games counted hold no position to fit on (were they over before their first move?)")]
    NoPositions,
}

impl std::fmt::Debug for EvalFitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// The kind of each refusal (docs/errors.md).
impl crate::error::Error for EvalFitError {
    fn kind(&self) -> crate::ErrorKind {
        crate::ErrorKind::OutOfRange
    }
}

/// The evaluation's weights fitted to self-play results (Texel's method; see
/// docs/agents.md, "The evaluation"): [`EvalFit::count`] the games, in a fixed order,
/// then [`EvalFit::fit`] writes the weights file the engine ships per rule family
/// (`core/data/eval/`). `junqi eval fit` plays the games and counts them; Python's
/// `junqi.distributed.fit_eval` plays them on Ray.
///
/// ```
/// use junqi::{agent::{self, EvalFit}, Game, RuleSet, Side};
/// let rules = RuleSet::preset("classic")?;
/// let mut fit = EvalFit::new(&rules, 3);
/// for seed in 0..5 {
///     let mut game = Game::with_rules(rules.clone(), seed);
///     let mut south = agent::by_name("greedy", seed)?;
///     let mut north = agent::by_name("random", seed)?;
///     while game.result().is_none() && game.position().ply() < 200 {
///         agent::act(&mut game, Side::South, south.as_mut())?;
///         agent::act(&mut game, Side::North, north.as_mut())?;
///     }
///     assert!(fit.count(&game));
/// }
/// let json = fit.fit("five games of greedy against random")?;
/// assert!(json.contains("\"weights\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct EvalFit {
    rules: Arc<RuleSet>,
    eval: Evaluator,
    every: u32,
    games: usize,
    samples: Vec<Sample>,
}

impl EvalFit {
    /// An empty fit for `rules`, reading the terms every `every` plies (at least 1;
    /// `junqi eval fit` reads every 3rd).
    pub fn new(rules: &Arc<RuleSet>, every: u32) -> EvalFit {
        EvalFit { rules: rules.clone(), eval: Evaluator::with(rules, EvalWeights::Derived), every: every.max(1), games: 0, samples: Vec::new() }
    }

    /// Counts a game (over or not: a game without a result counts as drawn). Games
    /// are told apart by the order they are counted in: the 5th, 10th, … are held out
    /// to measure the fit, the 4th, 9th, … choose the ridge. `false` (nothing counted)
    /// for a game of another rule set.
    pub fn count(&mut self, game: &Game) -> bool {
        if !game.rules().same_as(&self.rules) {
            return false;
        }
        match record_samples(&self.eval, &game.record(), self.every, self.games) {
            Ok(samples) => {
                self.samples.extend(samples);
                self.games += 1;
                true
            }
            // A game of the engine's always replays; were one not to, it is not counted.
            Err(_) => false,
        }
    }

    /// Games counted.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Positions counted (a position counts once for every seat still playing).
    pub fn positions(&self) -> usize {
        self.samples.len()
    }

    /// The fitted weights as the JSON of a weights file, `source` saying where the
    /// games come from. The same games in the same order give the same text.
    pub fn fit(&self, source: &str) -> Result<String, EvalFitError> {
        let fitted = self.fitted(source)?;
        Ok(serde_json::to_string_pretty(&fitted).expect("weights serialize") + "\n")
    }

    pub(crate) fn fitted(&self, source: &str) -> Result<Fitted, EvalFitError> {
        if self.games < 5 {
            return Err(EvalFitError::TooFewGames(self.games));
        }
        let samples = &self.samples;
        let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
        let test: Vec<&Sample> = samples.iter().filter(|s| s.held_out).collect();
        if train.is_empty() || test.is_empty() {
            return Err(EvalFitError::NoPositions);
        }
        let derived = as_vector(&self.rules, &Weights::derived(&self.eval));
        let c = best_scale(&train, &derived);
        let prior: Vec<f64> = derived.iter().map(|w| w * c).collect();
        // The ridge: the strength whose fit on the games 0, 1, 2 mod 5 predicts the games
        // 3 mod 5 best (positions of one game are far from independent, so the sample
        // is smaller than its count of positions).
        let fitting: Vec<&Sample> = samples.iter().filter(|s| s.fold < 3).collect();
        let validation: Vec<&Sample> = samples.iter().filter(|s| s.fold == 3).collect();
        let ridge = RIDGES
            .iter()
            .map(|&r| (r, log_loss(validation.iter().copied(), &regress(&fitting, &prior, r))))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(RIDGES[0], |(r, _)| r);
        let w = regress(&train, &prior, ridge);
        let units: Vec<f64> = w.iter().map(|x| x * SCALE).collect();
        Ok(Fitted {
            rules: self.rules.name().to_owned(),
            source: source.to_owned(),
            games: self.games as u64,
            positions: samples.len() as u64,
            ridge,
            derived_loss: round(log_loss(test.iter().copied(), &prior)),
            fitted_loss: round(log_loss(test.iter().copied(), &w)),
            weights: from_vector(&self.rules, &units),
        })
    }
}

/// Plays the games and fits the weights (see the module documentation).
pub(crate) fn fit(o: &Opts) -> Result<Fitted, String> {
    let eval = Evaluator::with(&o.rules, EvalWeights::Derived);
    let games = crate::inference::model::tool::parallel(o.games, o.threads, |i| game_samples(o, &eval, i))?;
    let mut all = EvalFit::new(&o.rules, o.every);
    for g in games {
        all.samples.extend(g);
        all.games += 1;
    }
    let source = format!(
        "{} self-play games of {}, seed {}, every {} plies, at most {} plies: junqi eval fit --rules {} --games {} --agents {} --seed {} --every {} --max-plies {}",
        o.games,
        o.agents.join(" against "),
        o.seed,
        o.every,
        o.max_plies,
        o.rules.name(),
        o.games,
        o.agents.join(","),
        o.seed,
        o.every,
        o.max_plies
    );
    all.fitted(&source).map_err(|e| format!("junqi eval: {e}"))
}

/// Six significant decimals (the file is read by people too).
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Agent;

    fn sample(x: &[f64], y: f64) -> Sample {
        Sample { x: x.to_vec(), y, held_out: false, fold: 0 }
    }

    #[test]
    fn the_regression_finds_the_logits_that_made_the_data() {
        // Results drawn from σ(2a − b): the fitted weights come back near (2, −1), and
        // beat the prior (0, 0) on the log-loss.
        let mut rng = Rng::new(5);
        let mut data = Vec::new();
        for _ in 0..20_000 {
            let a = rng.below(7) as f64 - 3.0;
            let b = rng.below(5) as f64 - 2.0;
            let p = sigmoid(2.0 * a - b);
            let y = if (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p { 1.0 } else { 0.0 };
            data.push(sample(&[a, b], y));
        }
        let refs: Vec<&Sample> = data.iter().collect();
        let w = regress(&refs, &[0.0, 0.0], 1.0);
        assert!((w[0] - 2.0).abs() < 0.15 && (w[1] + 1.0).abs() < 0.15, "{w:?}");
        assert!(log_loss(refs.iter().copied(), &w) < log_loss(refs.iter().copied(), &[0.0, 0.0]) - 0.3);
    }

    #[test]
    fn the_fit_is_where_the_penalized_loss_is_flat() {
        // Few samples and a strong ridge, so that both pulls matter: at the result the
        // gradient Σ (σ(w·x) − y) x + ridge (w − prior) is 0.
        let data = [sample(&[1.0, 0.5], 1.0), sample(&[-1.0, 2.0], 0.0), sample(&[2.0, -1.0], 0.5), sample(&[0.5, 0.5], 1.0)];
        let refs: Vec<&Sample> = data.iter().collect();
        let (prior, ridge) = ([0.3, -0.2], 2.0);
        let w = regress(&refs, &prior, ridge);
        for i in 0..2 {
            let g: f64 = data.iter().map(|s| (sigmoid(s.x[0] * w[0] + s.x[1] * w[1]) - s.y) * s.x[i]).sum::<f64>() + ridge * (w[i] - prior[i]);
            assert!(g.abs() < 1e-6, "{w:?}: gradient {g} in {i}");
        }
        assert!((w[0] - prior[0]).abs() > 0.05, "{w:?}");
    }

    #[test]
    fn the_ridge_keeps_a_weight_the_data_cannot_see() {
        // The second input is always 0: its weight stays at the prior's.
        let data = [sample(&[1.0, 0.0], 1.0), sample(&[-1.0, 0.0], 0.0), sample(&[1.0, 0.0], 0.5)];
        let refs: Vec<&Sample> = data.iter().collect();
        let w = regress(&refs, &[0.0, 7.0], 1.0);
        assert_eq!(w[1], 7.0);
        assert!(w[0] > 0.0);
    }

    #[test]
    fn the_best_scale_fits_one_factor() {
        // Results σ(z / 6) exactly (soft targets): the best scale is 1/6, from any
        // starting point.
        let data: Vec<Sample> = (-20..=20).map(|z| sample(&[z as f64], sigmoid(z as f64 / 3.0))).collect();
        let refs: Vec<&Sample> = data.iter().collect();
        assert!((best_scale(&refs, &[1.0]) - 1.0 / 3.0).abs() < 1e-9);
        assert!((best_scale(&refs, &[2.0]) - 1.0 / 6.0).abs() < 1e-9);
    }

    #[test]
    fn solve_solves_and_refuses_singular_systems() {
        let x = solve(vec![0.0, 2.0, 4.0, 1.0], vec![2.0, 9.0], 2).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12, "{x:?}");
        assert!(solve(vec![1.0, 2.0, 2.0, 4.0], vec![1.0, 2.0], 2).is_none());
    }

    #[test]
    fn the_log_loss_is_the_mean_cross_entropy_written_out() {
        // −(y ln σ(z) + (1 − y) ln(1 − σ(z))), averaged; logits far past where e^z
        // overflows stay finite (ln σ(z) → −|z|); no sample, no loss.
        let data = [sample(&[1.0, 2.0], 1.0), sample(&[-0.5, 0.25], 0.0), sample(&[3.0, -1.0], 0.25)];
        let w = [0.5, -0.75];
        let direct: f64 = data
            .iter()
            .map(|s| {
                let p = 1.0 / (1.0 + (-(s.x[0] * w[0] + s.x[1] * w[1])).exp());
                -(s.y * p.ln() + (1.0 - s.y) * (1.0 - p).ln())
            })
            .sum::<f64>()
            / 3.0;
        let got = log_loss(data.iter(), &w);
        assert!((got - direct).abs() < 1e-12, "{got} against {direct}");
        let far = [sample(&[800.0], 0.0), sample(&[-900.0], 1.0), sample(&[800.0], 1.0)];
        assert_eq!(log_loss(far.iter(), &[1.0]), (800.0 + 900.0) / 3.0);
        assert_eq!(log_loss(std::iter::empty(), &[1.0]), 0.0);
        // ln(1 + e^z) itself, on both sides of the point where it turns to z.
        for z in [-40.0, -3.0, 0.0, 2.5, 29.0, 30.0] {
            assert_eq!(softplus(z), z.exp().ln_1p(), "{z}");
        }
        assert_eq!(softplus(31.0), 31.0);
        assert_eq!(softplus(1000.0), 1000.0);
        // The scale's loss is the same cross-entropy, summed, of the scaled logits.
        let z: Vec<(f64, f64)> = data.iter().map(|s| (s.x[0] * w[0] + s.x[1] * w[1], s.y)).collect();
        for c in [-2.0, 0.5, 3.0] {
            let scaled = [w[0] * c, w[1] * c];
            assert!((scaled_loss(&z, c) - 3.0 * log_loss(data.iter(), &scaled)).abs() < 1e-12, "{c}");
        }
    }

    #[test]
    fn solve_solves_systems_that_need_row_swaps_at_any_column() {
        // Random systems of 1 to 6 unknowns with zeros sprinkled in (so that most columns
        // need a row swap), checked by their residual; and a tiny first pivot that only
        // partial pivoting gets right.
        let mut rng = Rng::new(9);
        let mut solved = 0;
        for _ in 0..400 {
            let n = 1 + rng.below(6);
            let h: Vec<f64> = (0..n * n).map(|_| if rng.below(3) == 0 { 0.0 } else { rng.below(19) as f64 - 9.0 }).collect();
            let g: Vec<f64> = (0..n).map(|_| rng.below(11) as f64 - 5.0).collect();
            if let Some(x) = solve(h.clone(), g.clone(), n) {
                solved += 1;
                for r in 0..n {
                    let lhs: f64 = (0..n).map(|j| h[r * n + j] * x[j]).sum();
                    assert!((lhs - g[r]).abs() < 1e-8 * (1.0 + x.iter().map(|v| v.abs()).sum::<f64>()), "{n}: {h:?} {g:?} -> {x:?}");
                }
            }
        }
        assert!(solved > 300, "{solved}");
        let x = solve(vec![1e-20, 1.0, 1.0, 1.0], vec![1.0, 2.0], 2).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12, "{x:?}");
        // A row swap at the second column of three.
        let x = solve(vec![2.0, 1.0, 1.0, 4.0, 2.0, 3.0, -2.0, 5.0, 1.0], vec![5.0, 12.0, 5.0], 3).unwrap();
        for (a, b) in x.iter().zip([1.0, 1.0, 2.0]) {
            assert!((a - b).abs() < 1e-12, "{x:?}");
        }
    }

    #[test]
    fn a_newton_step_that_overshoots_is_halved() {
        // From 1/SCALE, where the logits ±100/6 are saturated, the first Newton step of
        // the scale overshoots far; so does the regression's from a prior of 5 with a
        // weak ridge. Both must still reach the minimum.
        let data: Vec<Sample> = (-10..=10).map(|i| sample(&[10.0 * i as f64], sigmoid(0.1 * i as f64))).collect();
        let refs: Vec<&Sample> = data.iter().collect();
        assert!((best_scale(&refs, &[1.0]) - 0.01).abs() < 1e-9, "{}", best_scale(&refs, &[1.0]));
        let ridge = 1e-3;
        let w = regress(&refs, &[5.0], ridge);
        let g: f64 = data.iter().map(|s| (sigmoid(s.x[0] * w[0]) - s.y) * s.x[0]).sum::<f64>() + ridge * (w[0] - 5.0);
        assert!(g.abs() < 1e-6 && (w[0] - 0.01).abs() < 1e-4, "{w:?}: gradient {g}");
        // Results of 0 and 1 drawn from σ(z / 20), as in a fit: the scale is where the
        // log-loss is flat.
        let mut rng = Rng::new(3);
        let data: Vec<Sample> = (0..2000)
            .map(|_| {
                let z = rng.below(121) as f64 - 60.0;
                sample(&[z], if rng.next_f64() < sigmoid(z / 20.0) { 1.0 } else { 0.0 })
            })
            .collect();
        let refs: Vec<&Sample> = data.iter().collect();
        let c = best_scale(&refs, &[1.0]);
        let g: f64 = data.iter().map(|s| (sigmoid(c * s.x[0]) - s.y) * s.x[0]).sum();
        assert!(g.abs() < 1e-6 && (c - 0.05).abs() < 0.01, "{c}: gradient {g}");
        // And from below: results drawn from σ(2z).
        let data: Vec<Sample> = (0..2000)
            .map(|_| {
                let z = rng.below(11) as f64 - 5.0;
                sample(&[z], if rng.next_f64() < sigmoid(2.0 * z) { 1.0 } else { 0.0 })
            })
            .collect();
        let refs: Vec<&Sample> = data.iter().collect();
        let c = best_scale(&refs, &[1.0]);
        let g: f64 = data.iter().map(|s| (sigmoid(c * s.x[0]) - s.y) * s.x[0]).sum();
        assert!(g.abs() < 1e-6 && (c - 2.0).abs() < 0.3, "{c}: gradient {g}");
    }

    #[test]
    fn the_regression_weighs_each_term_with_the_weight_of_its_name() {
        // The regression's x · w is the evaluator's weighted sum with the weights read
        // back from w: every term and weight in its own place (distinct values, so a
        // term read from another place shows), on two armies.
        for name in ["classic", "sanjun-modern"] {
            let rules = RuleSet::preset(name).unwrap();
            let n = rules.army().count();
            let v: Vec<f64> = (0..n + 8).map(|i| i as f64 + 0.5).collect();
            let w = from_vector(&rules, &v);
            assert_eq!(as_vector(&rules, &w), v, "{name}");
            let named = [w.pressure, w.guard, w.mover, w.waiter, w.mover_end, w.waiter_end, w.exposed, w.press];
            assert_eq!(named.map(f64::from).to_vec(), v[n..].to_vec(), "{name}");
            let mut t = Terms::default();
            for (i, (k, _)) in rules.army().enumerate() {
                t.material[k as usize] = (3 * i + 1) as f32;
            }
            [t.pressure, t.guard, t.mover, t.waiter, t.mover_end, t.waiter_end, t.exposed, t.press] =
                [-1.0, 2.0, -3.0, 4.0, -5.0, 6.0, -7.0, 8.0];
            let x = inputs(&rules, &t);
            assert_eq!(x.len(), n + 8);
            let dot: f64 = x.iter().zip(&v).map(|(a, b)| a * b).sum();
            let mut e = Evaluator::with(&rules, EvalWeights::Derived);
            e.set_weights(w);
            assert_eq!(f64::from(e.weigh(&t)), dot, "{name}");
        }
    }

    #[test]
    fn a_game_s_samples_are_its_positions_in_play_with_each_seat_s_result() {
        // A classic game of greedy agents played to its end, every position in play
        // counted as it is met: one sample a seat at each, none of the deployment or of
        // the finished position; the winner's say 1, the loser's 0.
        let rules = RuleSet::preset("classic").unwrap();
        let eval = Evaluator::with(&rules, EvalWeights::Derived);
        let mut decisive = None;
        for seed in 0..20u64 {
            let mut g = Game::with_rules(rules.clone(), seed);
            let mut agents: Vec<Box<dyn Agent>> = (0..2).map(|k| agent::by_name("greedy:eval=derived", seed * 2 + k).unwrap()).collect();
            let mut in_play = 0;
            while g.result().is_none() && g.position().ply() < 400 {
                for (k, &side) in rules.sides().iter().enumerate() {
                    if g.result().is_none() && g.phase() == crate::Phase::Move && g.position().to_act() == Some(side) {
                        in_play += 1;
                    }
                    agent::act(&mut g, side, agents[k].as_mut()).unwrap();
                }
            }
            if g.result().is_some_and(|r| !r.is_draw()) {
                decisive = Some((g, in_play));
                break;
            }
        }
        let (g, in_play) = decisive.expect("a decisive game in 20 seeds");
        let samples = record_samples(&eval, &g.record(), 1, 7).unwrap();
        assert_eq!(samples.len(), 2 * in_play, "two seats at each of {in_play} positions");
        let winner = g.result().unwrap().winners.iter().next();
        let mut seen = [0usize; 2];
        for (i, s) in samples.iter().enumerate() {
            // The seats are read in the rule set's order at each position.
            let seat = rules.sides()[i % 2];
            assert_eq!(s.y, if Some(seat) == winner { 1.0 } else { 0.0 }, "{seat}");
            assert_eq!((s.fold, s.held_out), (2, false), "game 7 is in fold 2");
            seen[i % 2] += 1;
        }
        assert_eq!(seen[0], seen[1]);
        // Every other position with `every` 2; game 9 is held out.
        let half = record_samples(&eval, &g.record(), 2, 9).unwrap();
        assert!(half.len() * 2 >= samples.len() - 2 && half.len() * 2 <= samples.len() + 2, "{} of {}", half.len(), samples.len());
        assert!(half.iter().all(|s| s.held_out && s.fold == 4));
        // A draw, and a game without a result: ½ for every seat.
        let mut drawn = Game::with_rules(rules.clone(), 3);
        drawn.deploy_random(Side::South, 1).unwrap();
        drawn.deploy_random(Side::North, 2).unwrap();
        let mut rng = Rng::new(4);
        for _ in 0..12 {
            let legal = drawn.legal_actions();
            drawn.play(legal[rng.below(legal.len())]).unwrap();
        }
        let open = record_samples(&eval, &drawn.record(), 1, 0).unwrap();
        assert_eq!(open.len(), 2 * 13, "12 plies played, 13 positions");
        assert!(open.iter().all(|s| s.y == 0.5));
        drawn.agree_draw().unwrap();
        let agreed = record_samples(&eval, &drawn.record(), 1, 0).unwrap();
        assert_eq!(agreed.len(), open.len());
        assert!(agreed.iter().all(|s| s.y == 0.5));
    }

    #[test]
    fn the_ridge_is_chosen_on_the_validation_games_and_the_fit_needs_held_out_positions() {
        let rules = RuleSet::preset("classic").unwrap();
        let mut o = Opts::new(rules.clone());
        o.games = 10;
        o.max_plies = 200;
        o.threads = 1;
        let eval = Evaluator::with(&rules, EvalWeights::Derived);
        // Games 0..n of `o`, counted in order (as `fit` counts them).
        let counted = |n: usize| {
            let mut f = EvalFit::new(&rules, o.every);
            for i in 0..n {
                f.samples.extend(game_samples(&o, &eval, i).unwrap());
                f.games += 1;
            }
            f
        };
        let fit = counted(o.games);
        let fitted = fit.fitted("").unwrap();
        // The ridge worked out here: fitted on folds 0-2, judged on fold 3.
        let derived = as_vector(&rules, &Weights::derived(&eval));
        let train: Vec<&Sample> = fit.samples.iter().filter(|s| !s.held_out).collect();
        let c = best_scale(&train, &derived);
        let prior: Vec<f64> = derived.iter().map(|w| w * c).collect();
        let on = |fit_folds: &dyn Fn(u8) -> bool, judge: u8| {
            let fitting: Vec<&Sample> = fit.samples.iter().filter(|s| fit_folds(s.fold)).collect();
            let judged: Vec<&Sample> = fit.samples.iter().filter(|s| s.fold == judge).collect();
            RIDGES.iter().map(|&r| (r, log_loss(judged.iter().copied(), &regress(&fitting, &prior, r)))).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0
        };
        assert_eq!(fitted.ridge, on(&|f| f < 3, 3));
        // (These games tell the folds apart: fitted on the held-out fold, another ridge.)
        assert_ne!(fitted.ridge, on(&|f| f > 3, 3));
        // Played games with no held-out position: refused, as with none at all.
        let mut few = counted(4);
        assert!(few.count(&Game::with_rules(rules.clone(), 99)), "an unplayed game counts, with no position");
        assert!(few.samples.iter().all(|s| !s.held_out));
        assert_eq!(few.fitted("").unwrap_err(), EvalFitError::NoPositions);
    }

    #[test]
    fn game_seeds_are_pinned() {
        // The shipped weights (core/data/eval/) are refitted from their seed by the
        // command in their "source": the games' seeds must not change.
        let o = Opts::new(RuleSet::preset("classic").unwrap());
        let seeds: Vec<u64> = (0..3).map(|i| o.game_seed(i)).collect();
        assert_eq!(seeds, [0x2910_1AF6_3101_324A, 0xB727_634F_4E4B_4E5F, 0x157E_E984_CF95_CA60]);
        assert_eq!(seeds[1] ^ seeds[0], 0x9E37_79B9_7F4A_7C15, "game i's seed differs from game 0's by i × the golden ratio");
    }

    #[test]
    fn a_fit_of_a_few_games_is_the_same_on_any_thread_count_and_round_trips() {
        let rules = RuleSet::preset("classic").unwrap();
        let mut o = Opts::new(rules.clone());
        o.games = 10;
        o.max_plies = 200;
        o.threads = 1;
        let one = fit(&o).unwrap();
        o.threads = 3;
        let three = fit(&o).unwrap();
        assert_eq!(serde_json::to_string(&one).unwrap(), serde_json::to_string(&three).unwrap());
        assert!(one.positions > 100, "{}", one.positions);
        assert!(one.fitted_loss.is_finite() && one.derived_loss.is_finite());
        // The same games counted one by one into an EvalFit give the same weights.
        let mut counted = EvalFit::new(&rules, o.every);
        for i in 0..o.games {
            let seed = o.game_seed(i);
            let mut game = Game::with_rules(rules.clone(), seed);
            let mut agents: Vec<Box<dyn Agent>> = (0..2).map(|k| agent::by_name(&o.agents[0], seed ^ (k as u64 + 1)).unwrap()).collect();
            while game.result().is_none() && game.position().ply() < o.max_plies {
                for (k, &side) in rules.sides().iter().enumerate() {
                    agent::act(&mut game, side, agents[k].as_mut()).unwrap();
                }
            }
            assert!(counted.count(&game));
        }
        assert_eq!(counted.games(), 10);
        assert_eq!(counted.positions() as u64, one.positions);
        assert_eq!(counted.fitted(&one.source).unwrap().weights, one.weights);
        // Game i is in fold i mod 5; fold 4 is held out, and the fitted log-loss is
        // that of the fitted weights (in logits) on it.
        assert!(counted.samples.iter().all(|s| s.held_out == (s.fold == 4)));
        assert!((0..5).all(|f| counted.samples.iter().any(|s| s.fold == f)));
        let held: Vec<&Sample> = counted.samples.iter().filter(|s| s.held_out).collect();
        let logits: Vec<f64> = as_vector(&rules, &one.weights).iter().map(|w| w / SCALE).collect();
        assert!((log_loss(held.iter().copied(), &logits) - one.fitted_loss).abs() < 1e-4, "{}", one.fitted_loss);
        // Another rule set's game is not counted; fewer than 5 games are refused.
        assert!(!counted.count(&Game::new("siguo", 1).unwrap()));
        let mut few = EvalFit::new(&rules, 3);
        assert_eq!(few.fit("").unwrap_err(), EvalFitError::TooFewGames(0));
        for seed in 0..5 {
            assert!(few.count(&Game::with_rules(rules.clone(), seed)));
        }
        assert_eq!(few.fit("").unwrap_err(), EvalFitError::NoPositions);
        assert!(few.fit("").unwrap_err().to_string().contains("no position"));
        // Debug is the message too, so an unwrap shows it (as every error of the crate).
        assert_eq!(format!("{:?}", few.fit("").unwrap_err()), few.fit("").unwrap_err().to_string());
        // The file reads back into an evaluator that weighs the terms with it.
        let text = serde_json::to_string(&one).unwrap();
        let back: Fitted = serde_json::from_str(&text).unwrap();
        assert_eq!(back.weights, one.weights);
        let mut e = Evaluator::with(&rules, EvalWeights::Derived);
        e.set_weights(back.weights.clone());
        let t = Terms { pressure: 1.0, ..Terms::default() };
        assert_eq!(e.weigh(&t), back.weights.pressure);
        let mut t = Terms::default();
        t.material[PieceKind::Commander as usize] = 1.0;
        assert_eq!(e.weigh(&t), back.weights.material[&PieceKind::Commander]);
    }
}
