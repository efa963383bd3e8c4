//! The `pimc` agent: perfect-information Monte Carlo over armies sampled from the
//! beliefs (determinization), with successive halving over the root actions. It was the
//! engine's `search` until the tree search ([`super::search`]) took that name, and it
//! stays as the reference the tree search is measured against (`pimc:1` … `pimc:5`).
//!
//! **How it decides.** The candidates are the legal actions (at most [`MAX_CANDIDATES`],
//! the best by the greedy one-ply score when there are more). The budget of playouts is
//! spent in phases; in each phase every remaining candidate is played on the same
//! fresh positions drawn from the beliefs — weighted by the shipped opponent model
//! ([`crate::OpponentModel::for_rules`]) unless the agent is asked for `beliefs=plain`
//! ([`InfoState::determinize`]'s draw: every identity the player has not seen is drawn,
//! so a 翻棋 flip reveals a drawn identity — chance, from the flipper's point of view), followed by a short playout in which every other
//! seat answers once, taking its best immediate capture or else moving at random, and
//! the position reached is scored by the greedy evaluation. After each phase the worse half of the candidates is
//! dropped; the best mean wins.
//!
//! **Determinism.** Each draw and each playout has its own seed, derived from the
//! agent's seed, the move number, the round and the candidate, and the results are
//! summed in a fixed order: the choice is the same for the same seed whatever the number
//! of threads. A time budget (`ms=N`) is converted into playouts after a first timed
//! phase, and the clock is read again before every round (a round plays each remaining
//! candidate once): at the deadline the search stops and the best mean among the
//! remaining candidates wins, so a machine that gets busier during the move does not
//! make it overshoot. It is not deterministic.
//!
//! **Cost.** The simulation plays [`Position`]s (cloned, allocation-free); the only
//! allocations per move are the candidates' score tables and the drawn positions.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::eval::{EvalWeights, Evaluator, WIN};
use super::greedy::{self, one_ply};
use super::{Agent, AgentSpec, Budget, InfoState, Worlds};
use crate::inference::{ModelledSampler, OpponentModel};
use crate::action::Action;
use crate::combat::CombatOutcome;
use crate::rules::resolve;
use crate::piece::Side;
use crate::limits::MAX_PIECES;
use crate::position::{Phase, Position};
use crate::rng::Rng;
use crate::rules::RuleSet;
use crate::setup::Setup;

/// Playouts at level 1 (see [`Budget::level_playouts`]).
pub(crate) const LEVEL1: u32 = 36_000;

/// Most root actions searched (the rest are cut by the greedy one-ply score).
pub(crate) const MAX_CANDIDATES: usize = 24;

/// Perfect-information Monte Carlo over armies sampled from the beliefs (see the
/// module documentation).
#[derive(Clone, Debug)]
pub struct Pimc {
    budget: Budget,
    threads: usize,
    worlds: Worlds,
    weights: EvalWeights,
    seed: u64,
    moves: u64,
    rng: Rng,
    eval: Option<Evaluator>,
    model: ModelCache,
}

/// What one move of `pimc` did (see [`pimc_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Playouts run (one root action played on one drawn position, then the playout).
    pub playouts: u64,
    /// Plies simulated (root actions and playout plies).
    pub plies: u64,
    /// Positions drawn from the beliefs.
    pub samples: u64,
}

/// One root candidate of a `pimc` move: its action, the playouts it was given and the
/// sum of their scores (see [`pimc_table`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CandidateStats {
    /// The root action.
    pub action: Action,
    /// Playouts run with it: a candidate dropped after a phase has fewer than one kept.
    pub playouts: u32,
    /// The sum of those playouts' scores for the player (the greedy evaluation of the
    /// positions reached); the search compares the means.
    pub score: f64,
}

/// Runs the search for one move of `info`'s player with `budget` on `threads` threads
/// and says what it did, beside the action chosen: for benchmarks and profiling (the
/// `pimc` agent's first move from this seed).
pub fn pimc_stats(info: &InfoState, budget: Budget, threads: usize, seed: u64) -> (Action, Stats) {
    let (action, stats, _) = Pimc::new(budget, threads, seed).choose_with_stats(info);
    (action, stats)
}

/// Like [`pimc_stats`], and gives every candidate's playouts and summed score as well,
/// in the order the candidates were searched (one candidate with no playouts when there
/// was a single legal action): for tests and analysis. With an iteration budget the
/// whole answer is the same for the same seed whatever the number of threads.
///
/// ```
/// use junqi::agent::{pimc_table, Budget};
/// use junqi::{Game, Side};
/// let mut game = Game::new("classic", 1)?;
/// game.deploy_random(Side::South, 1)?;
/// game.deploy_random(Side::North, 2)?;
/// let info = game.info_state(Side::South);
/// let (action, stats, table) = pimc_table(&info, Budget::Iterations(60), 2, 7);
/// assert_eq!(table.iter().map(|c| c.playouts as u64).sum::<u64>(), stats.playouts);
/// assert!(table.iter().any(|c| c.action == action));
/// assert_eq!(pimc_table(&info, Budget::Iterations(60), 1, 7), (action, stats, table));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pimc_table(info: &InfoState, budget: Budget, threads: usize, seed: u64) -> (Action, Stats, Vec<CandidateStats>) {
    Pimc::new(budget, threads, seed).choose_with_stats(info)
}

impl Pimc {
    /// A `pimc` agent with a budget per move, on `threads` threads.
    pub fn new(budget: Budget, threads: usize, seed: u64) -> Pimc {
        Pimc {
            budget,
            threads: threads.max(1),
            worlds: Worlds::Modelled,
            weights: EvalWeights::Fitted,
            seed,
            moves: 0,
            rng: Rng::new(seed ^ 0x5EA2_C400_0000_0001),
            eval: None,
            model: ModelCache::default(),
        }
    }

    /// The same search drawing its armies as `worlds` says (by the opponent model,
    /// [`Worlds::Modelled`], by default).
    pub fn with_worlds(mut self, worlds: Worlds) -> Pimc {
        self.worlds = worlds;
        self
    }

    /// The same search evaluating its leaves with the weights `weights` names (the
    /// fitted ones by default).
    pub fn with_eval(mut self, weights: EvalWeights) -> Pimc {
        self.weights = weights;
        self
    }

    /// Chooses, and says what the search did: the totals and each candidate's playouts
    /// and summed score.
    fn choose_with_stats(&mut self, info: &InfoState) -> (Action, Stats, Vec<CandidateStats>) {
        // The clock is read only for a time budget: an iteration budget must not need
        // one (WebAssembly in the browser has no std::time::Instant).
        let started = matches!(self.budget, Budget::Millis(_)).then(Instant::now);
        self.choose_clocked(info, &move || started.map_or(Duration::ZERO, |t| t.elapsed()))
    }

    /// [`Pimc::choose_with_stats`] with the time since the move began read from
    /// `clock` (a fake clock in the tests); read only under a time budget.
    fn choose_clocked(&mut self, info: &InfoState, clock: &(dyn Fn() -> Duration + Sync)) -> (Action, Stats, Vec<CandidateStats>) {
        let legal = info.legal();
        self.moves += 1;
        let mut stats = Stats::default();
        if legal.len() == 1 {
            return (legal[0], stats, vec![CandidateStats { action: legal[0], playouts: 0, score: 0.0 }]);
        }
        let player = info.player();
        let move_seed = move_seed(self.seed, self.moves);
        let eval = greedy::evaluator(&mut self.eval, info.rules(), self.weights).clone();
        let model = (self.worlds == Worlds::Modelled).then(|| self.model.get(info.rules()));
        let sampler = model.as_ref().map(|m| info.beliefs().sampler(m));
        // Candidates: every legal action, or the best by the greedy score.
        let mut candidates: Vec<Action> = legal.to_vec();
        if candidates.len() > MAX_CANDIDATES {
            let mut r = Rng::new(order_seed(move_seed));
            let positions = greedy::samples(info, &mut r, 4);
            let scores = one_ply(&eval, &positions, &candidates, player);
            let mut order: Vec<usize> = (0..candidates.len()).collect();
            order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            candidates = order[..MAX_CANDIDATES].iter().map(|&i| candidates[i]).collect();
            stats.samples += 4;
        }
        let n = candidates.len();
        let mut sum = vec![0f64; n];
        let mut count = vec![0u32; n];
        let mut alive: Vec<usize> = (0..n).collect();
        let phases = (usize::BITS - (n - 1).leading_zeros()).max(1) as u64;
        let deadline = match self.budget {
            Budget::Millis(ms) => Some(Duration::from_millis(ms as u64)),
            _ => None,
        };
        let mut total = match self.budget {
            Budget::Level(l) => Budget::level_playouts(l) as u64,
            Budget::Iterations(n) => n as u64,
            Budget::Millis(_) => 0, // set after the first phase
        };
        // Every other seat answers once (longer playouts measured weaker: noise).
        let horizon = info.rules().sides().len() as u32 - 1;
        let mut round = 0u64;
        let mut phase = 0u64;
        while alive.len() > 1 || phase == 0 {
            let per_phase = if total == 0 { alive.len() as u64 * 4 } else { (total / phases).max(alive.len() as u64) };
            let rounds = (per_phase / alive.len() as u64).max(1);
            let ctx = Ctx { info, eval: &eval, sampler: sampler.as_ref(), candidates: &candidates, player, horizon, move_seed };
            let results = run_rounds(&ctx, &alive, round, rounds, self.threads, deadline.map(|d| (d, clock)));
            let rounds = results.len() as u64;
            // What ran, not what was asked for: a round lost by a thread shows.
            for row in &results {
                for (j, &(v, plies)) in row.iter().enumerate() {
                    sum[alive[j]] += v as f64;
                    count[alive[j]] += 1;
                    stats.plies += plies as u64;
                    stats.playouts += 1;
                }
                stats.samples += 1;
            }
            round += rounds;
            phase += 1;
            if let (Budget::Millis(ms), 0) = (self.budget, total) {
                let spent = clock().as_secs_f64().max(1e-6);
                let rate = stats.playouts as f64 / spent;
                total = ((ms as f64 / 1000.0) * rate) as u64;
                total = total.max(stats.playouts + 1);
            }
            if alive.len() > 1 {
                alive.sort_by(|&a, &b| {
                    let (ma, mb) = (sum[a] / count[a] as f64, sum[b] / count[b] as f64);
                    mb.total_cmp(&ma).then(a.cmp(&b))
                });
                alive.truncate(alive.len().div_ceil(2));
                alive.sort_unstable();
            }
            if phase > 64 || deadline.is_some_and(|d| clock() >= d) {
                break;
            }
        }
        let best = best_mean(&alive, &sum, &count);
        let _ = &mut self.rng;
        let table = candidates
            .iter()
            .zip(count.iter().zip(&sum))
            .map(|(&action, (&playouts, &score))| CandidateStats { action, playouts, score })
            .collect();
        (candidates[best], stats, table)
    }
}

struct Ctx<'a, 'b> {
    info: &'a InfoState,
    eval: &'a Evaluator,
    sampler: Option<&'a ModelledSampler<'b>>,
    candidates: &'a [Action],
    player: Side,
    horizon: u32,
    move_seed: u64,
}

/// Runs rounds `first..first + rounds`: each draws a position and plays every alive
/// candidate on it. Returns, per round, per alive candidate: (value, plies simulated).
/// With a deadline, a thread starts no round after it (but each runs one at least), so
/// fewer rounds may come back; the rounds that do are the first ones of each thread's
/// share, in order.
fn run_rounds(
    ctx: &Ctx<'_, '_>,
    alive: &[usize],
    first: u64,
    rounds: u64,
    threads: usize,
    deadline: Option<(Duration, &(dyn Fn() -> Duration + Sync))>,
) -> Vec<Vec<(f32, u32)>> {
    let open = |r: u64, lo: u64| r == lo || deadline.is_none_or(|(d, clock)| clock() < d);
    let one = |r: u64| -> Vec<(f32, u32)> {
        let mut types = [u8::MAX; MAX_PIECES];
        let round_seed = round_seed(ctx.move_seed, r);
        let mut rng = Rng::new(round_seed);
        let root = match ctx.sampler {
            Some(s) => ctx.info.sample_position_by(s, &mut rng, &mut types),
            None => ctx.info.sample_position(&mut rng, &mut types),
        };
        let mut buf = Vec::with_capacity(64);
        alive
            .iter()
            .map(|&c| {
                let mut rng = Rng::new(candidate_seed(round_seed, c));
                playout(ctx, &root, ctx.candidates[c], &mut rng, &mut buf)
            })
            .collect()
    };
    let threads = threads.min(rounds as usize).max(1);
    if threads == 1 {
        return (first..first + rounds).take_while(|&r| open(r, first)).map(one).collect();
    }
    let per = rounds.div_ceil(threads as u64);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let lo = first + t * per;
                let hi = (lo + per).min(first + rounds);
                let (one, open) = (&one, &open);
                s.spawn(move || (lo..hi).take_while(|&r| open(r, lo)).map(one).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("search thread")).collect()
    })
}

/// Plays `action` on a copy of `root`, then up to `horizon` plies of the capture-first
/// policy, and scores the result for the player.
fn playout(ctx: &Ctx<'_, '_>, root: &Position, action: Action, rng: &mut Rng, buf: &mut Vec<Action>) -> (f32, u32) {
    let mut pos = root.clone();
    if pos.play(action).is_err() {
        return (-WIN, 0);
    }
    let mut plies = 1;
    for _ in 0..ctx.horizon {
        if pos.phase() == Phase::Over {
            break;
        }
        pos.legal_actions_into(buf);
        if buf.is_empty() {
            break;
        }
        let a = policy(ctx.eval, &pos, buf, rng);
        pos.play_unchecked(a);
        plies += 1;
    }
    (ctx.eval.eval(&pos, ctx.player), plies)
}

/// The playout policy: the best immediate capture by the sampled identities (most of
/// the time), else a random action.
fn policy(eval: &Evaluator, pos: &Position, legal: &[Action], rng: &mut Rng) -> Action {
    capture_first(legal, rng, |a| gain(eval, pos, a))
}

/// What `action` wins in `pos` by the identities there (a drawn world: the playout
/// knows every piece): the value of the piece it takes (less its own if both go), the
/// game for the flag, −1 for an attack that loses; −∞ for an action that takes nothing
/// and for an attack on a face-down piece.
fn gain(eval: &Evaluator, pos: &Position, action: Action) -> f32 {
    let rules = pos.rules();
    let Action::Move { from, to } = action else { return f32::NEG_INFINITY };
    let (Some((_, ka)), Some((_, kd))) = (pos.piece_at(from), pos.piece_at(to).or_else(|| rules.board().below(to).and_then(|q| pos.piece_at(q)))) else {
        return f32::NEG_INFINITY;
    };
    if pos.is_face_down(to) {
        return f32::NEG_INFINITY;
    }
    match resolve(rules, ka, kd) {
        CombatOutcome::Win if kd == crate::piece::PieceKind::Flag => WIN,
        CombatOutcome::Win => eval.value(kd),
        CombatOutcome::Both => eval.value(kd) - eval.value(ka),
        _ => -1.0,
    }
}

/// The playout policy of both search agents: 7 times in 8 the action whose `gain` is
/// best and above half a piece, else (or when there is none) a random legal action.
pub(super) fn capture_first(legal: &[Action], rng: &mut Rng, gain: impl Fn(Action) -> f32) -> Action {
    if rng.below(8) != 0 {
        let mut best = None;
        let mut best_gain = 0.5f32;
        for &a in legal {
            let g = gain(a);
            if g > best_gain {
                best_gain = g;
                best = Some(a);
            }
        }
        if let Some(a) = best {
            return a;
        }
    }
    legal[rng.below(legal.len())]
}

/// The opponent model of the last rule set an agent played, kept between moves.
#[derive(Clone, Debug, Default)]
pub(super) struct ModelCache(Option<(Arc<RuleSet>, Arc<OpponentModel>)>);

impl ModelCache {
    /// The shipped model of `rules` ([`OpponentModel::for_rules`]), made once per rule set
    /// (the same on the same board: [`RuleSet::same_as`]).
    pub(super) fn get(&mut self, rules: &Arc<RuleSet>) -> Arc<OpponentModel> {
        match &self.0 {
            Some((r, m)) if r.same_as(rules) => m.clone(),
            _ => {
                let m = Arc::new(OpponentModel::for_rules(rules));
                self.0 = Some((rules.clone(), m.clone()));
                m
            }
        }
    }
}

/// A 64-bit mix (SplitMix64's finalizer): the search agents' seeds per move, round
/// and thread.
/// The candidate of `alive` (indices, at least one) with the best mean score
/// (`sum / count`); ties to the earlier candidate.
fn best_mean(alive: &[usize], sum: &[f64], count: &[u32]) -> usize {
    alive
        .iter()
        .copied()
        .max_by(|&a, &b| (sum[a] / count[a] as f64).total_cmp(&(sum[b] / count[b] as f64)).then(b.cmp(&a)))
        .expect("one candidate at least")
}

/// The seed of the `moves`-th move (from 1) of an agent seeded with `seed` (`pimc`'s
/// and `search`'s). The seeds are part of what a seed reproduces: the tables of
/// docs/agents.md replay from their commands only while these stay the same.
pub(super) fn move_seed(seed: u64, moves: u64) -> u64 {
    splitmix(seed ^ splitmix(moves))
}

/// The seed of the draws that order a move's root actions by the greedy score.
pub(super) fn order_seed(move_seed: u64) -> u64 {
    move_seed ^ 0xC0FFEE
}

/// The seed of round `r` (from 0 through the whole move) of a move.
fn round_seed(move_seed: u64, r: u64) -> u64 {
    splitmix(move_seed ^ splitmix(r + 1))
}

/// The seed of candidate `c`'s playout in a round.
fn candidate_seed(round_seed: u64, c: usize) -> u64 {
    splitmix(round_seed ^ (c as u64 + 1).wrapping_mul(0x9E37_79B9))
}

pub(super) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl Agent for Pimc {
    fn name(&self) -> String {
        AgentSpec::Pimc {
            budget: self.budget,
            threads: self.threads as u16,
            worlds: self.worlds,
            eval: self.weights,
        }
        .to_string()
    }

    fn deploy(&mut self, rules: &Arc<RuleSet>, side: Side) -> Setup {
        super::deploy::principled(rules, side, &mut self.rng)
    }

    fn choose(&mut self, info: &InfoState) -> Action {
        self.choose_with_stats(info).0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::referee::Game;

    #[test]
    fn a_time_budget_reads_the_clock_as_it_goes_and_stops_at_the_deadline() {
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let info = game.info_state(Side::South);
        // A clock that moves 1 ms a reading: 40 ms are 40 readings, whatever the work
        // between them. (Converting the budget into playouts after the first phase, as
        // the search once did, reads it once and then plays 40 times that phase.)
        let readings = AtomicU64::new(0);
        let clock = || Duration::from_millis(readings.fetch_add(1, Ordering::Relaxed) + 1);
        for threads in [1, 2] {
            readings.store(0, Ordering::Relaxed);
            let (action, stats, table) = Pimc::new(Budget::Millis(40), threads, 5).choose_clocked(&info, &clock);
            assert!(info.legal().contains(&action));
            let n = table.len() as u64;
            let read = readings.load(Ordering::Relaxed);
            // The first reading at or past the deadline (the 40th) stops its thread's
            // rounds; each other thread reads at most once more, then the phase's end
            // check reads and ends the search: no later round or phase.
            assert!((40..=40 + threads as u64).contains(&read), "{read} readings on {threads} threads");
            // A round plays each remaining candidate once and reads the clock once per
            // thread, so at most about 40 rounds of at most n playouts each.
            assert!(stats.playouts >= 40 / threads as u64, "{stats:?}");
            assert!(stats.playouts <= (44 + 2 * threads as u64) * n, "{} playouts of {n} candidates on {threads} threads", stats.playouts);
        }
    }

    #[test]
    fn the_model_cache_keeps_one_model_per_rule_set_and_board() {
        let classic = RuleSet::preset("classic").unwrap();
        let mut cache = ModelCache::default();
        let m = cache.get(&classic);
        assert!(!m.is_plain());
        // The same rule set, another copy: the model made once is kept.
        let again = Arc::new(RuleSet::from_json(&classic.to_json()).unwrap());
        assert!(Arc::ptr_eq(&cache.get(&again), &m));
        assert!(Arc::ptr_eq(&cache.get(&classic), &m));
        // Another rule set gets its own (翻棋's is the plain model), and so does the same
        // description compiled on another board.
        assert!(cache.get(&RuleSet::preset("fanqi").unwrap()).is_plain());
        let m = cache.get(&classic);
        let mut board = classic.board().spec().clone();
        board.name = "renamed".into();
        let other = Arc::new(RuleSet::with_board(classic.spec().clone(), crate::board::Board::from_spec(board).unwrap().into()).unwrap());
        assert!(!Arc::ptr_eq(&cache.get(&other), &m));
    }

    /// The playouts each candidate gets under an iteration budget of `total`, as the
    /// module docs say: ⌈log₂ n⌉ phases (one at least) share the budget evenly, each
    /// gives every remaining candidate the same whole number of rounds (one at least),
    /// and the worse half is dropped after each. Sorted, most first.
    fn schedule(n: usize, total: u64) -> Vec<u32> {
        let phases = (1..=64).find(|&k| 1u64 << k >= n as u64).unwrap_or(1).max(1);
        let (mut alive, mut given, mut played) = (n, 0u32, Vec::new());
        for _ in 0..phases {
            let rounds = ((total / phases).max(alive as u64) / alive as u64).max(1) as u32;
            given += rounds;
            let kept = alive.div_ceil(2);
            played.extend(std::iter::repeat_n(given, alive - kept));
            alive = kept;
        }
        played.extend(std::iter::repeat_n(given, alive));
        played.sort_unstable_by(|a, b| b.cmp(a));
        played
    }

    #[test]
    fn each_candidate_plays_the_move_s_first_rounds_as_the_phases_give_them() {
        // Round r draws one world and plays every remaining candidate on it, and rounds
        // are numbered through the whole move: a candidate given k playouts played rounds
        // 0..k, so its summed score is that of those rounds, each worked out alone here
        // (the shipped model's worlds, the first move's seed). A search that drew the
        // rounds of a phase again, or plain worlds, or cut the phases otherwise, differs.
        let mut start = Game::new("classic", 3).unwrap();
        start.deploy_random(Side::South, 1).unwrap();
        start.deploy_random(Side::North, 2).unwrap();
        // A lone company commander in a corner: two moves (one phase, not two).
        let corner = Game::from_position_string("classic a1=SCO,d1=SFL,b12=NFL,e12=NPL move S 4 4", 1).unwrap();
        for (game, n, total, seed) in [(&start, MAX_CANDIDATES, 150, 5), (&start, MAX_CANDIDATES, 61, 6), (&corner, 2, 40, 7)] {
            let side = Side::South;
            let info = game.info_state(side);
            let (_, stats, table) = Pimc::new(Budget::Iterations(total), 1, seed).choose_with_stats(&info);
            assert_eq!(table.len(), n);
            let mut played: Vec<u32> = table.iter().map(|c| c.playouts).collect();
            played.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(played, schedule(n, total as u64), "{total} playouts");
            assert_eq!(stats.playouts, played.iter().map(|&k| k as u64).sum::<u64>());
            // A world a round, and four more to order the candidates when there are
            // more legal actions than candidates; a root action at least a playout.
            let ordered = if info.legal().len() > MAX_CANDIDATES { 4 } else { 0 };
            assert_eq!(stats.samples, played[0] as u64 + ordered, "{total} playouts");
            assert!(stats.plies >= stats.playouts, "{stats:?}");
            let rules = info.rules();
            let eval = Evaluator::with(rules, EvalWeights::Fitted);
            let model = OpponentModel::for_rules(rules);
            let sampler = info.beliefs().sampler(&model);
            let candidates: Vec<Action> = table.iter().map(|c| c.action).collect();
            let ctx = Ctx {
                info: &info,
                eval: &eval,
                sampler: Some(&sampler),
                candidates: &candidates,
                player: side,
                horizon: 1,
                move_seed: move_seed(seed, 1),
            };
            for (c, row) in table.iter().enumerate() {
                let mut sum = 0f64;
                for r in 0..row.playouts as u64 {
                    sum += run_rounds(&ctx, &[c], r, 1, 1, None)[0][0].0 as f64;
                }
                assert_eq!(sum, row.score, "candidate {c}, {} playouts", row.playouts);
            }
        }
    }

    #[test]
    fn the_seeds_stay_what_the_tables_replay_from() {
        // As search's (which pins move_seed and order_seed): a change replays no table.
        assert_eq!([round_seed(9, 0), round_seed(9, 1), round_seed(10, 0)], [3681697457321254924, 15092334581794935969, 14077953017310334265]);
        assert_eq!([candidate_seed(5, 0), candidate_seed(5, 1), candidate_seed(6, 0)], [5957839757758064839, 2192170880205811547, 11195466855578458902]);
    }

    #[test]
    fn the_choice_is_the_best_mean_of_the_candidates_left() {
        let (sum, count) = ([3.0, 1.0, 2.0, 9.0, -1.0], [4, 1, 2, 9, 2]);
        // Means 0.75, 1, 1, 1, -0.5: a mean of 1 (every playout won) is the best, ties
        // to the earlier candidate; a candidate no longer left counts for nothing.
        assert_eq!(best_mean(&[0, 1, 2, 4], &sum, &count), 1);
        assert_eq!(best_mean(&[0, 2, 4], &sum, &count), 2);
        assert_eq!(best_mean(&[0, 4], &sum, &count), 0);
        assert_eq!(best_mean(&[4], &sum, &count), 4);
    }

    #[test]
    fn a_time_budget_gives_the_first_phase_four_rounds_then_sizes_the_budget_by_its_rate() {
        // One thread; a scripted clock: 0 ms while the first phase's four rounds start
        // (3 readings), 10 ms when the phase ends, so 4n playouts took 10 ms and 100 ms
        // hold 40n; the second phase gives its n/2 candidates 40n / phases playouts, in
        // rounds that read 10 ms, and the reading after them says 100 ms: the end.
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let info = game.info_state(Side::South);
        let n = MAX_CANDIDATES as u64;
        let phases = 5; // ⌈log₂ 24⌉
        let second = 40 * n / phases / (n / 2);
        let readings = AtomicU64::new(0);
        let clock = || {
            let k = readings.fetch_add(1, Ordering::Relaxed) + 1;
            Duration::from_millis(match k {
                ..=3 => 0,
                _ if k <= 3 + 1 + 1 + (second - 1) => 10,
                _ => 100,
            })
        };
        let (_, stats, table) = Pimc::new(Budget::Millis(100), 1, 5).choose_clocked(&info, &clock);
        assert_eq!(table.len() as u64, n);
        let mut played: Vec<u32> = table.iter().map(|c| c.playouts).collect();
        played.sort_unstable();
        assert_eq!((played[0], played[played.len() - 1]), (4, 4 + second as u32), "{played:?}");
        assert_eq!(stats.playouts, 4 * n + second * n / 2);
        assert_eq!(readings.load(Ordering::Relaxed), 3 + 1 + 1 + (second - 1) + 1);
    }

    #[test]
    fn a_playout_plays_the_action_then_every_other_seat_once() {
        // Random mid-game worlds of a two- and a four-seat game: the action, then one
        // ply of each other seat, unless the game ends first.
        for (name, seed, seats) in [("classic", 3u64, 2u32), ("siguo", 4, 4)] {
            let mut game = Game::new(name, seed).unwrap();
            let mut rng = Rng::new(seed);
            while game.phase() == Phase::Deploy {
                let side = game.position().rules().sides().iter().copied().find(|&s| game.position().may_deploy(s).is_ok()).unwrap();
                game.deploy_random(side, rng.next_u64()).unwrap();
            }
            let (mut full, mut ended) = (0, 0);
            for _ in 0..40 {
                if game.phase() == Phase::Over {
                    break;
                }
                let player = game.position().to_act().unwrap();
                let info = game.info_state(player);
                let eval = Evaluator::new(info.rules());
                let candidates = info.legal().to_vec();
                let ctx = Ctx { info: &info, eval: &eval, sampler: None, candidates: &candidates, player, horizon: seats - 1, move_seed: 1 };
                let world = info.sample_position(&mut rng, &mut [u8::MAX; MAX_PIECES]);
                for &a in &candidates {
                    let (_, plies) = playout(&ctx, &world, a, &mut rng, &mut Vec::new());
                    if plies == seats {
                        full += 1;
                    } else {
                        // Fewer only when the game ended on the way (rarely).
                        assert!(plies >= 1 && plies < seats, "{name}: {plies} plies");
                        ended += 1;
                    }
                }
                let legal = game.legal_actions();
                game.play(legal[rng.below(legal.len())]).unwrap();
            }
            assert!(full > 100 && ended * 10 < full, "{name}: {full} full playouts, {ended} ended early");
        }
    }

    #[test]
    fn the_playout_s_gain_is_the_capture_by_the_world_s_identities() {
        // In a drawn world every piece is known: an attack is worth what the combat
        // table gives (the game for the flag), −1 if it loses; anything else, and an
        // attack on a face-down piece, −∞ (never a capture to prefer).
        let mut seen = [0usize; 5];
        for name in ["classic", "fanqi", "sanjun-modern"] {
            let rules = RuleSet::preset(name).unwrap();
            let eval = Evaluator::new(&rules);
            for seed in 0..4 {
                let mut game = Game::new(name, seed).unwrap();
                let mut rng = Rng::new(seed);
                while game.phase() == Phase::Deploy {
                    let side = rules.sides().iter().copied().find(|&s| game.position().may_deploy(s).is_ok()).unwrap();
                    game.deploy_random(side, rng.next_u64()).unwrap();
                }
                for _ in 0..300 {
                    if game.phase() == Phase::Over {
                        break;
                    }
                    let pos = game.position();
                    for a in game.legal_actions() {
                        let got = gain(&eval, pos, a);
                        let target = match a {
                            Action::Move { from, to } => [Some(to), rules.board().below(to)].into_iter().flatten().find(|&q| pos.piece_at(q).is_some()).map(|t| (from, to, t)),
                            _ => None,
                        };
                        let Some((from, to, t)) = target else {
                            assert_eq!(got, f32::NEG_INFINITY, "{name}: {a:?}");
                            continue;
                        };
                        if pos.is_face_down(to) {
                            assert_eq!(got, f32::NEG_INFINITY, "{name}: {a:?} on a face-down piece");
                            seen[4] += 1;
                            continue;
                        }
                        let (ka, kd) = (pos.piece_at(from).unwrap().1, pos.piece_at(t).unwrap().1);
                        let (want, case) = match resolve(&rules, ka, kd) {
                            CombatOutcome::Win if kd == crate::piece::PieceKind::Flag => (WIN, 0),
                            CombatOutcome::Win => (eval.value(kd), 1),
                            CombatOutcome::Both => (eval.value(kd) - eval.value(ka), 2),
                            _ => (-1.0, 3),
                        };
                        assert_eq!(got, want, "{name}: {a:?}, {ka:?} on {kd:?}");
                        seen[case] += 1;
                    }
                    let legal = game.legal_actions();
                    game.play(legal[rng.below(legal.len())]).unwrap();
                }
            }
        }
        assert!(seen[..4].iter().all(|&n| n > 0), "flag, win, both, lose, face down: {seen:?}");
    }

    #[test]
    fn capture_first_takes_the_best_gain_above_half_a_piece_seven_times_in_eight() {
        let mut game = Game::new("classic", 1).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let legal: Vec<Action> = game.legal_actions()[..4].to_vec();
        let pick = |gains: [f32; 4], draws: u64| -> [u32; 4] {
            let mut rng = Rng::new(draws);
            let mut n = [0; 4];
            for _ in 0..draws {
                let a = capture_first(&legal, &mut rng, |a| gains[legal.iter().position(|&b| b == a).unwrap()]);
                n[legal.iter().position(|&b| b == a).unwrap()] += 1;
            }
            n
        };
        // The best, 3, tied by a later one: the first of them, 7 in 8 draws, plus its
        // share of the random rest (1 in 32).
        let n = pick([1.0, 3.0, 3.0, 0.0], 8000);
        assert!((6900..7300).contains(&n[1]), "{n:?}");
        assert!(n[2] < 400 && n[0] < 400, "{n:?}");
        // Half a piece is not enough: every action alike, at random.
        let n = pick([0.5, 0.2, f32::NEG_INFINITY, -1.0], 8000);
        assert!(n.iter().all(|&k| (1800..2200).contains(&k)), "{n:?}");
    }

    #[test]
    fn a_round_starts_only_before_the_deadline_but_each_thread_runs_one() {
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let info = game.info_state(Side::South);
        let eval = Evaluator::new(info.rules());
        let candidates: Vec<Action> = info.legal()[..3].to_vec();
        let ctx = Ctx { info: &info, eval: &eval, sampler: None, candidates: &candidates, player: Side::South, horizon: 1, move_seed: 9 };
        let alive = [0, 1, 2];
        let all = run_rounds(&ctx, &alive, 4, 10, 1, None);
        assert_eq!(all.len(), 10);
        // Reading k says k ms: rounds 4, 5, … start on readings 1, 2, … (the first one
        // reads nothing), and the reading of 5 ms stops them: five rounds, the first five.
        let readings = AtomicU64::new(0);
        let counting = || Duration::from_millis(readings.fetch_add(1, Ordering::Relaxed) + 1);
        let some = run_rounds(&ctx, &alive, 4, 10, 1, Some((Duration::from_millis(5), &counting)));
        assert_eq!((some.len(), readings.load(Ordering::Relaxed)), (5, 5));
        assert_eq!(some[..], all[..5]);
        // Past the deadline from the start: each thread still runs its share's first round.
        let late = || Duration::from_millis(100);
        for threads in [1, 2, 3] {
            let firsts = run_rounds(&ctx, &alive, 4, 10, threads, Some((Duration::from_millis(5), &late)));
            let per = 10usize.div_ceil(threads);
            let want: Vec<_> = (0..threads).map(|t| all[t * per].clone()).collect();
            assert_eq!(firsts, want, "{threads} threads");
        }
    }

    #[test]
    fn every_round_draws_its_own_world_whatever_the_move_s_seed() {
        // A round's seed mixes the move's seed with the round number: with any move seed
        // (all bits clear or set included) the rounds draw different worlds, so their
        // playouts differ.
        let mut game = Game::new("classic", 3).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let info = game.info_state(Side::South);
        let eval = Evaluator::new(info.rules());
        let candidates: Vec<Action> = info.legal()[..4].to_vec();
        for move_seed in [0, u64::MAX, 9] {
            let ctx = Ctx { info: &info, eval: &eval, sampler: None, candidates: &candidates, player: Side::South, horizon: 1, move_seed };
            let rows = run_rounds(&ctx, &[0, 1, 2, 3], 0, 8, 1, None);
            let distinct = (0..rows.len()).filter(|&i| !rows[..i].contains(&rows[i])).count();
            assert!(distinct >= 6, "move seed {move_seed:#x}: {distinct} distinct rounds of 8: {rows:?}");
        }
    }
}
