//! The `search` agent: information-set Monte Carlo tree search (single observer), the
//! engine's search at every level (`search:1` … `search:5`; `ismcts` is another name
//! for it). The search by determinization it replaced is [`super::pimc`].
//!
//! **How it decides.** One tree is grown over the player's information: a node is a
//! sequence of actions from the present, and every action of every seat is public in
//! these games (which piece moved from where to where; a flip's point), so the
//! sequence is what the player would see. Each iteration draws a world from the
//! beliefs — weighted by the shipped opponent model ([`crate::OpponentModel::for_rules`])
//! unless the agent is asked for `beliefs=plain`; with the model every
//! [`FRESH_EVERY`]th world is a fresh draw and the others continue a chain of the
//! sampler's swap moves from the last — and walks down the tree on it:
//! - at every node only the children whose action is legal in this world compete, by
//!   UCB with availability counts (a child's exploration term grows with the
//!   iterations in which it *could* have been chosen, not with its parent's visits);
//! - a node opens a new child only while it has fewer available children than
//!   `1 + 1.5·√visits` (progressive widening); the action opened is the untried one
//!   with the best prior: at the root the greedy one-ply score over a few drawn
//!   worlds, elsewhere the capture gain *as the mover knows it* (a piece the mover has
//!   not identified is not a known prize), so opponents in the tree do not play as if
//!   they saw the player's pieces;
//! - the new leaf is scored by a short playout in which each other seat answers once
//!   (best capture of a piece it has identified, else a random action), then the static
//!   evaluation, squashed into (−1, 1); a finished game scores ±1 or 0;
//! - every node on the path adds the score as its mover sees it (its team's side).
//!
//! The action chosen is the root child visited most. With several threads, each grows
//! its own tree on its own worlds (root parallelism) and the root visits are summed.
//!
//! **Levels.** Level *n* is 16 000 × 2ⁿ⁻¹ iterations a move (≈ 0.25 s at level 1 in
//! classic mid-game on one core; each level doubles).
//!
//! **Determinism.** With a budget of iterations (a level or `iters=N`) the choice is a
//! function of the information, the seed, the move number and the thread count. A time
//! budget (`ms=N`) reads the clock every [`CLOCK_EVERY`] iterations and stops at
//! [`TIME_SHARE`] of N (95 %): the rest is the margin for assembling the answer and for
//! a loaded machine's scheduling, so the answer comes within N + 10 % on a busy machine
//! too (docs/agents.md measures it with four times more runnable threads than cores).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::eval::{EvalWeights, Evaluator, WIN};
use super::greedy::{self, one_ply};
use super::pimc::{capture_first, move_seed, order_seed, splitmix, ModelCache};
use super::{Agent, AgentSpec, Budget, InfoState};
use crate::action::Action;
use crate::combat::CombatOutcome;
use crate::inference::ModelledSampler;
use crate::limits::MAX_PIECES;
use crate::piece::{PieceKind, Side, SideSet};
use crate::position::{Phase, Position};
use crate::rng::Rng;
use crate::rules::{resolve, RuleSet};
use crate::setup::Setup;

/// Iterations between two readings of the clock under a time budget.
pub(crate) const CLOCK_EVERY: u64 = 16;
/// The share of a time budget (`ms=N`) spent searching, in percent; the rest is the
/// margin in which the answer reaches the caller.
pub(crate) const TIME_SHARE: u64 = 95;
/// The exploration constant of UCB, for scores in (−1, 1).
const EXPLORE: f32 = 0.9;
/// Progressive widening: a node may have `1 + WIDEN·√visits` available children.
const WIDEN: f32 = 1.5;
/// The evaluation's scale, in piece-value units: `tanh(eval / SCALE)` is the score.
const SCALE: f32 = 12.0;
/// Iterations at level 1; each level doubles them (an iteration costs about 2.4 `pimc`
/// playouts in instructions: ≈ 0.2 s at level 1 on one core in classic mid-game).
pub(crate) const LEVEL1: u32 = 16_000;
/// With modelled beliefs, a fresh world is drawn every `FRESH_EVERY` iterations; the
/// others continue a chain from the previous one by one sweep of the sampler's swaps
/// (each draw exact in the limit, ten times cheaper, not independent of the last).
const FRESH_EVERY: u64 = 16;
/// Worlds drawn to order the root actions by the greedy one-ply score.
const ROOT_ORDER_SAMPLES: usize = 4;

/// Which beliefs the worlds are drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Worlds {
    /// Weighted by the rule set's shipped opponent model (the default).
    Modelled,
    /// Every army consistent with the sound deductions alike.
    Plain,
}

/// Information-set MCTS (see the module documentation).
#[derive(Clone, Debug)]
pub struct Search {
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

/// What one move of the tree search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Iterations run (each on a freshly drawn world).
    pub iterations: u64,
    /// Plies simulated (in the tree and in the playouts).
    pub plies: u64,
    /// Nodes in the trees.
    pub nodes: u64,
    /// The deepest node reached, in plies below the root.
    pub depth: u32,
}

/// Runs the tree search for one move of `info`'s player and says what it did, beside
/// the action chosen (the `search` agent's first move from this seed): for benchmarks,
/// tests and analysis.
///
/// ```
/// use junqi::agent::{search_stats, Budget, Worlds};
/// use junqi::{Game, Side};
/// let mut game = Game::new("classic", 1)?;
/// game.deploy_random(Side::South, 1)?;
/// game.deploy_random(Side::North, 2)?;
/// let info = game.info_state(Side::South);
/// let (action, stats) = search_stats(&info, Budget::Iterations(200), 1, Worlds::Modelled, 7);
/// assert_eq!(stats.iterations, 200);
/// assert!(info.legal().contains(&action));
/// assert_eq!(search_stats(&info, Budget::Iterations(200), 1, Worlds::Modelled, 7), (action, stats));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn search_stats(info: &InfoState, budget: Budget, threads: usize, worlds: Worlds, seed: u64) -> (Action, TreeStats) {
    Search::new(budget, threads, worlds, seed).choose_with_stats(info)
}

#[derive(Clone, Debug)]
struct Node {
    action: Action,
    /// The action's id in the rule set's action space (for the marks in [`Marks`]).
    id: u32,
    /// The seat that played `action`.
    mover: Side,
    visits: u32,
    /// Iterations in which this node's action was legal when its parent was reached.
    avail: u32,
    /// The sum of the scores for `mover`'s team.
    total: f32,
    children: Vec<u32>,
    /// Plies below the root.
    depth: u32,
}

struct Tree {
    nodes: Vec<Node>,
}

/// Marks over the action space, to tell in one look whether an action is legal in this
/// world and whether a node has tried it (no clearing: a mark is a generation number).
struct Marks {
    mark: Vec<u32>,
    generation: u32,
}

impl Marks {
    /// Marks every action of `legal` as legal (generation `g`); returns `g`.
    fn legal(&mut self, rules: &RuleSet, legal: &[Action]) -> u32 {
        if self.generation >= u32::MAX - 2 {
            self.mark.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        let g = self.generation;
        for &a in legal {
            self.mark[action_id(rules, a) as usize] = g;
        }
        g
    }
}

/// An action's id in the rule set's action space, which holds every legal action.
fn action_id(rules: &RuleSet, a: Action) -> u32 {
    a.id(rules).expect("every legal action has an id in the action space") as u32
}

struct Ctx<'a, 'b> {
    info: &'a InfoState,
    eval: &'a Evaluator,
    sampler: Option<&'a ModelledSampler<'b>>,
    player: Side,
    team: SideSet,
    horizon: u32,
    /// The root's legal actions, best prior first.
    root_order: &'a [Action],
}

impl Search {
    /// A tree search with a budget per move on `threads` threads, drawing its worlds
    /// as `worlds` says.
    pub fn new(budget: Budget, threads: usize, worlds: Worlds, seed: u64) -> Search {
        Search {
            budget,
            threads: threads.max(1),
            worlds,
            weights: EvalWeights::Fitted,
            seed,
            moves: 0,
            rng: Rng::new(seed ^ 0x15AC_7500_0000_0001),
            eval: None,
            model: ModelCache::default(),
        }
    }

    /// The same search evaluating its leaves with the weights `weights` names (the
    /// fitted ones by default).
    pub fn with_eval(mut self, weights: EvalWeights) -> Search {
        self.weights = weights;
        self
    }

    /// Chooses, and says what the search did.
    pub(crate) fn choose_with_stats(&mut self, info: &InfoState) -> (Action, TreeStats) {
        let legal = info.legal();
        self.moves += 1;
        if legal.len() == 1 {
            return (legal[0], TreeStats::default());
        }
        // The clock is read only for a time budget: WebAssembly in the browser has no
        // std::time::Instant.
        let started = matches!(self.budget, Budget::Millis(_)).then(Instant::now);
        let player = info.player();
        let move_seed = move_seed(self.seed, self.moves);
        let eval = greedy::evaluator(&mut self.eval, info.rules(), self.weights).clone();
        let model = match self.worlds {
            Worlds::Modelled => Some(self.model.get(info.rules())),
            Worlds::Plain => None,
        };
        let sampler = model.as_ref().map(|m| info.beliefs().sampler(m));
        // The root's actions, best greedy one-ply score first.
        let mut r = Rng::new(order_seed(move_seed));
        let positions = greedy::samples(info, &mut r, ROOT_ORDER_SAMPLES);
        let scores = one_ply(&eval, &positions, legal, player);
        let mut order: Vec<usize> = (0..legal.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let root_order: Vec<Action> = order.iter().map(|&i| legal[i]).collect();
        let ctx = Ctx {
            info,
            eval: &eval,
            sampler: sampler.as_ref(),
            player,
            team: info.rules().team_of(player),
            horizon: info.rules().sides().len() as u32 - 1,
            root_order: &root_order,
        };
        let (iterations, deadline) = match self.budget {
            Budget::Level(l) => (Budget::level_iterations(l) as u64, None),
            Budget::Iterations(n) => (n as u64, None),
            Budget::Millis(ms) => (u64::MAX, started.map(|t| t + Duration::from_micros(ms as u64 * 10 * TIME_SHARE))),
        };
        let threads = self.threads.min(iterations as usize).max(1);
        let per = iterations.div_ceil(threads as u64);
        let grow = |t: u64| -> (Vec<(Action, u32, f32)>, TreeStats) {
            let mut rng = Rng::new(thread_seed(move_seed, t));
            let n = if t + 1 == threads as u64 { iterations - per * t } else { per };
            grow_tree(&ctx, &mut rng, n, deadline)
        };
        let results: Vec<_> = if threads == 1 {
            vec![grow(0)]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads as u64)
                    .map(|t| {
                        let grow = &grow;
                        s.spawn(move || grow(t))
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("search thread")).collect()
            })
        };
        let mut stats = TreeStats::default();
        for (_, s) in &results {
            stats.iterations += s.iterations;
            stats.plies += s.plies;
            stats.nodes += s.nodes;
            stats.depth = stats.depth.max(s.depth);
        }
        let roots: Vec<&[(Action, u32, f32)]> = results.iter().map(|(root, _)| root.as_slice()).collect();
        (most_visited(&root_order, &roots), stats)
    }
}

/// The action chosen from the root children of every thread's tree (action, visits,
/// summed score): the one visited most over all the trees; ties to the better mean
/// score, then to the better prior (the earlier in `root_order`).
fn most_visited(root_order: &[Action], roots: &[&[(Action, u32, f32)]]) -> Action {
    let mut visits = vec![(0u32, 0f32); root_order.len()];
    for root in roots {
        for &(a, v, total) in *root {
            if let Some(i) = root_order.iter().position(|&b| b == a) {
                visits[i].0 += v;
                visits[i].1 += total;
            }
        }
    }
    let best = (0..root_order.len())
        .max_by(|&a, &b| {
            let mean = |i: usize| if visits[i].0 == 0 { f32::NEG_INFINITY } else { visits[i].1 / visits[i].0 as f32 };
            visits[a].0.cmp(&visits[b].0).then(mean(a).total_cmp(&mean(b))).then(b.cmp(&a))
        })
        .expect("two legal actions at least");
    root_order[best]
}

/// The seed of thread `t`'s random numbers (from 0) in a move (like the move's seed,
/// [`move_seed`], pinned: the tables of docs/agents.md replay from them).
fn thread_seed(move_seed: u64, t: u64) -> u64 {
    splitmix(move_seed ^ splitmix(t + 1))
}

/// Grows one tree for `iterations` iterations (or until `deadline`) and returns the
/// root's children: action, visits, summed score.
fn grow_tree(ctx: &Ctx<'_, '_>, rng: &mut Rng, iterations: u64, deadline: Option<Instant>) -> (Vec<(Action, u32, f32)>, TreeStats) {
    let rules = ctx.info.rules();
    let mut tree = Tree {
        nodes: vec![Node {
            action: ctx.root_order[0],
            id: action_id(rules, ctx.root_order[0]),
            mover: ctx.player,
            visits: 0,
            avail: 0,
            total: 0.0,
            children: Vec::new(),
            depth: 0,
        }],
    };
    let mut stats = TreeStats::default();
    let mut types = [u8::MAX; MAX_PIECES];
    // The last world of the chain (modelled beliefs), as drawn.
    let mut chain: Option<Position> = None;
    let mut buf: Vec<Action> = Vec::with_capacity(128);
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut marks = Marks { mark: vec![0; rules.action_space()], generation: 0 };
    let mut i = 0u64;
    while i < iterations {
        if let Some(d) = deadline {
            if i % CLOCK_EVERY == 0 && i > 0 && Instant::now() >= d {
                break;
            }
        }
        let world = match (ctx.sampler, &mut chain) {
            (Some(s), Some(last)) if i % FRESH_EVERY != 0 => {
                ctx.info.chain_position_by(s, rng, &mut types, last);
                last.clone()
            }
            (Some(s), _) => {
                let world = ctx.info.sample_position_by(s, rng, &mut types);
                chain = Some(world.clone());
                world
            }
            (None, _) => ctx.info.sample_position(rng, &mut types),
        };
        let (value, plies) = iterate(ctx, &mut tree, &mut marks, world, rng, &mut buf, &mut path);
        stats.plies += plies as u64;
        for &n in &path {
            let node = &mut tree.nodes[n as usize];
            node.visits += 1;
            node.total += if ctx.team.contains(node.mover) { value } else { -value };
        }
        tree.nodes[0].visits += 1;
        i += 1;
    }
    stats.iterations = i;
    stats.nodes = tree.nodes.len() as u64;
    stats.depth = tree.nodes.iter().map(|n| n.depth).max().unwrap_or(0);
    let root = tree.nodes[0]
        .children
        .iter()
        .map(|&c| {
            let n = &tree.nodes[c as usize];
            (n.action, n.visits, n.total)
        })
        .collect();
    (root, stats)
}

/// One iteration on `pos`: selection and expansion in the tree (the path into `path`),
/// then the playout. Returns the score for the player's team and the plies simulated.
fn iterate(ctx: &Ctx<'_, '_>, tree: &mut Tree, marks: &mut Marks, mut pos: Position, rng: &mut Rng, buf: &mut Vec<Action>, path: &mut Vec<u32>) -> (f32, u32) {
    path.clear();
    let mut node = 0usize;
    let mut plies = 0u32;
    loop {
        if pos.phase() == Phase::Over {
            return (terminal(ctx, &pos), plies);
        }
        let Some(mover) = pos.to_act() else { return (terminal(ctx, &pos), plies) };
        pos.legal_actions_into(buf);
        if buf.is_empty() {
            break;
        }
        // Availability: every child legal in this world. A legal action is marked `g`,
        // an available child's `g + 1`, so the untried legal ones keep `g`.
        let g = marks.legal(ctx.info.rules(), buf);
        let mut available = 0usize;
        let mut best: Option<(f32, usize)> = None;
        let parent_visits = tree.nodes[node].visits;
        for k in 0..tree.nodes[node].children.len() {
            let c = tree.nodes[node].children[k] as usize;
            let id = tree.nodes[c].id as usize;
            if marks.mark[id] != g {
                continue;
            }
            marks.mark[id] = g + 1;
            available += 1;
            let child = &mut tree.nodes[c];
            child.avail += 1;
            let score = if child.visits == 0 {
                f32::INFINITY
            } else {
                child.total / child.visits as f32 + EXPLORE * ((child.avail as f32).ln() / child.visits as f32).sqrt()
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, c));
            }
        }
        let room = available < buf.len() && (available as f32) < 1.0 + WIDEN * (parent_visits as f32).sqrt();
        if room {
            // Open the untried action with the best prior.
            let rules = ctx.info.rules();
            let untried = |a: Action| marks.mark[action_id(rules, a) as usize] == g;
            let action = if node == 0 {
                ctx.root_order.iter().copied().find(|&a| untried(a))
            } else {
                let mut pick: Option<(f32, Action)> = None;
                for &a in buf.iter() {
                    if !untried(a) {
                        continue;
                    }
                    let p = prior(ctx.eval, &pos, a, mover) + rng.below(1024) as f32 * 1e-4;
                    if pick.is_none_or(|(q, _)| p > q) {
                        pick = Some((p, a));
                    }
                }
                pick.map(|(_, a)| a)
            };
            if let Some(action) = action {
                let depth = tree.nodes[node].depth + 1;
                let id = tree.nodes.len() as u32;
                tree.nodes.push(Node { action, id: action_id(rules, action), mover, visits: 0, avail: 1, total: 0.0, children: Vec::new(), depth });
                tree.nodes[node].children.push(id);
                path.push(id);
                pos.play_unchecked(action);
                plies += 1;
                break;
            }
        }
        let Some((_, c)) = best else { break };
        path.push(c as u32);
        pos.play_unchecked(tree.nodes[c].action);
        plies += 1;
        node = c;
    }
    // The playout: each other seat answers once.
    for _ in 0..ctx.horizon {
        if pos.phase() == Phase::Over {
            break;
        }
        let Some(mover) = pos.to_act() else { break };
        pos.legal_actions_into(buf);
        if buf.is_empty() {
            break;
        }
        let a = policy(ctx.eval, &pos, buf, mover, rng);
        pos.play_unchecked(a);
        plies += 1;
    }
    if pos.phase() == Phase::Over {
        return (terminal(ctx, &pos), plies);
    }
    ((ctx.eval.eval(&pos, ctx.player) / SCALE).tanh(), plies)
}

/// The score of a finished game for the player's team: 1, −1 or 0.
fn terminal(ctx: &Ctx<'_, '_>, pos: &Position) -> f32 {
    let v = ctx.eval.eval(pos, ctx.player);
    if v >= WIN / 2.0 {
        1.0
    } else if v <= -WIN / 2.0 {
        -1.0
    } else {
        0.0
    }
}

/// What `mover` expects to gain by `action` from what it knows: the value of a piece it
/// has identified and would take (less its own piece if both go), the loss of its own
/// piece where the known defender holds; 0 for an attack on a piece it has not
/// identified and for every other action.
fn prior(eval: &Evaluator, pos: &Position, action: Action, mover: Side) -> f32 {
    let Action::Move { from, to } = action else { return 0.0 };
    let rules = pos.rules();
    let target = if pos.piece_at(to).is_some() { Some(to) } else { rules.board().below(to).filter(|&q| pos.piece_at(q).is_some()) };
    let (Some((_, ka)), Some(t)) = (pos.piece_at(from), target) else { return 0.0 };
    if !pos.knows(mover, t) || pos.is_face_down(t) {
        return 0.0;
    }
    let Some((_, kd)) = pos.piece_at(t) else { return 0.0 };
    match resolve(rules, ka, kd) {
        CombatOutcome::Win if kd == PieceKind::Flag => WIN,
        CombatOutcome::Win => eval.value(kd),
        CombatOutcome::Both => eval.value(kd) - eval.value(ka),
        _ => -eval.value(ka),
    }
}

/// The playout policy: most of the time the best capture of a piece the mover has
/// identified, else a random action.
fn policy(eval: &Evaluator, pos: &Position, legal: &[Action], mover: Side, rng: &mut Rng) -> Action {
    capture_first(legal, rng, |a| prior(eval, pos, a, mover))
}

impl Agent for Search {
    fn name(&self) -> String {
        AgentSpec::Search { budget: self.budget, threads: self.threads as u16, worlds: self.worlds, eval: self.weights }.to_string()
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
    use super::*;
    use crate::referee::Game;

    /// [`iterate`] as it was before the marks: availability and "tried" by scanning
    /// the legal actions and the node's children.
    fn iterate_by_scan(ctx: &Ctx<'_, '_>, tree: &mut Tree, mut pos: Position, rng: &mut Rng, buf: &mut Vec<Action>, path: &mut Vec<u32>) -> (f32, u32) {
        path.clear();
        let mut node = 0usize;
        let mut plies = 0u32;
        loop {
            if pos.phase() == Phase::Over {
                return (terminal(ctx, &pos), plies);
            }
            let Some(mover) = pos.to_act() else { return (terminal(ctx, &pos), plies) };
            pos.legal_actions_into(buf);
            if buf.is_empty() {
                break;
            }
            let mut available = 0usize;
            let mut best: Option<(f32, usize)> = None;
            let parent_visits = tree.nodes[node].visits;
            for k in 0..tree.nodes[node].children.len() {
                let c = tree.nodes[node].children[k] as usize;
                if !buf.contains(&tree.nodes[c].action) {
                    continue;
                }
                available += 1;
                let child = &mut tree.nodes[c];
                child.avail += 1;
                let score = if child.visits == 0 {
                    f32::INFINITY
                } else {
                    child.total / child.visits as f32 + EXPLORE * ((child.avail as f32).ln() / child.visits as f32).sqrt()
                };
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, c));
                }
            }
            let room = available < buf.len() && (available as f32) < 1.0 + WIDEN * (parent_visits as f32).sqrt();
            if room {
                let tried = |a: &Action| tree.nodes[node].children.iter().any(|&c| tree.nodes[c as usize].action == *a);
                let action = if node == 0 {
                    ctx.root_order.iter().copied().find(|a| buf.contains(a) && !tried(a))
                } else {
                    let mut pick: Option<(f32, Action)> = None;
                    for &a in buf.iter() {
                        if tried(&a) {
                            continue;
                        }
                        let p = prior(ctx.eval, &pos, a, mover) + rng.below(1024) as f32 * 1e-4;
                        if pick.is_none_or(|(q, _)| p > q) {
                            pick = Some((p, a));
                        }
                    }
                    pick.map(|(_, a)| a)
                };
                if let Some(action) = action {
                    let depth = tree.nodes[node].depth + 1;
                    let id = tree.nodes.len() as u32;
                    let aid = action_id(ctx.info.rules(), action);
                    tree.nodes.push(Node { action, id: aid, mover, visits: 0, avail: 1, total: 0.0, children: Vec::new(), depth });
                    tree.nodes[node].children.push(id);
                    path.push(id);
                    pos.play_unchecked(action);
                    plies += 1;
                    break;
                }
            }
            let Some((_, c)) = best else { break };
            path.push(c as u32);
            pos.play_unchecked(tree.nodes[c].action);
            plies += 1;
            node = c;
        }
        for _ in 0..ctx.horizon {
            if pos.phase() == Phase::Over {
                break;
            }
            let Some(mover) = pos.to_act() else { break };
            pos.legal_actions_into(buf);
            if buf.is_empty() {
                break;
            }
            let a = policy(ctx.eval, &pos, buf, mover, rng);
            pos.play_unchecked(a);
            plies += 1;
        }
        if pos.phase() == Phase::Over {
            return (terminal(ctx, &pos), plies);
        }
        ((ctx.eval.eval(&pos, ctx.player) / SCALE).tanh(), plies)
    }

    /// Grows a tree on plain worlds with [`iterate`] (its marks starting at
    /// `generation`) or with the scans; returns every node as (action, mover, visits,
    /// avail, total, children, depth) and the plies.
    #[allow(clippy::type_complexity)]
    fn grow(ctx: &Ctx<'_, '_>, iterations: u32, by_scan: bool, generation: u32) -> (Vec<(Action, Side, u32, u32, f32, Vec<u32>, u32)>, u64) {
        let rules = ctx.info.rules();
        let root = ctx.root_order[0];
        let mut tree = Tree {
            nodes: vec![Node { action: root, id: action_id(rules, root), mover: ctx.player, visits: 0, avail: 0, total: 0.0, children: Vec::new(), depth: 0 }],
        };
        let mut marks = Marks { mark: vec![0; rules.action_space()], generation };
        let (mut rng, mut types, mut buf, mut path, mut plies) = (Rng::new(17), [u8::MAX; MAX_PIECES], Vec::new(), Vec::new(), 0);
        for _ in 0..iterations {
            let world = ctx.info.sample_position(&mut rng, &mut types);
            let (value, p) = if by_scan {
                iterate_by_scan(ctx, &mut tree, world, &mut rng, &mut buf, &mut path)
            } else {
                iterate(ctx, &mut tree, &mut marks, world, &mut rng, &mut buf, &mut path)
            };
            plies += p as u64;
            for &n in &path {
                let node = &mut tree.nodes[n as usize];
                node.visits += 1;
                node.total += if ctx.team.contains(node.mover) { value } else { -value };
            }
            tree.nodes[0].visits += 1;
        }
        for n in &tree.nodes {
            assert_eq!(n.id, action_id(rules, n.action));
        }
        let nodes = tree.nodes.iter().map(|n| (n.action, n.mover, n.visits, n.avail, n.total, n.children.clone(), n.depth)).collect();
        (nodes, plies)
    }

    #[test]
    fn the_marks_grow_the_tree_the_scans_grew() {
        // The same worlds and random numbers: every node alike (action, visits,
        // availability, score, children, depth), in mid-games of three rule sets, with
        // the marks' generations starting low and just below their wrap-around.
        let mut deepest = 0;
        for (name, seed, plies) in [("classic", 4u64, 16usize), ("siguo", 5, 12), ("fanqi", 6, 10)] {
            let info = mid_game(name, seed, plies);
            let player = info.player();
            let eval = Evaluator::new(info.rules());
            let root_order: Vec<Action> = info.legal().to_vec();
            let ctx = Ctx {
                info: &info,
                eval: &eval,
                sampler: None,
                player,
                team: info.rules().team_of(player),
                horizon: info.rules().sides().len() as u32 - 1,
                root_order: &root_order,
            };
            let want = grow(&ctx, 120, true, 0);
            deepest = deepest.max(want.0.iter().map(|n| n.6).max().unwrap());
            assert!(want.0.len() > 60, "{name}: {} nodes", want.0.len());
            for generation in [0, u32::MAX - 7] {
                assert!(grow(&ctx, 120, false, generation) == want, "{name}, marks from {generation}");
            }
        }
        assert!(deepest >= 3, "depth {deepest}");
    }

    #[test]
    fn the_seeds_stay_what_the_tables_replay_from() {
        // A change of these values changes every game a seed of the search replays
        // (docs/agents.md's tables, a match's records): only on purpose, with the tables.
        assert_eq!([move_seed(7, 1), move_seed(7, 2), move_seed(8, 1)], [8581286081765471666, 1988111358474182198, 3181050607885091801]);
        assert_eq!([thread_seed(11, 0), thread_seed(11, 1), thread_seed(12, 0)], [4812848887025454323, 4151575084847030871, 2558665151083100388]);
        assert_eq!(order_seed(0x1234_5678_9ABC_DEF0), 0x1234_5678_9A7C_211E);
    }

    /// A game of `name` after random deployments and `plies` random plies from `seed`:
    /// the information state of the seat to act.
    fn mid_game(name: &str, seed: u64, plies: usize) -> InfoState {
        let mut game = Game::new(name, seed).unwrap();
        let mut rng = Rng::new(seed);
        while game.phase() == Phase::Deploy {
            let side = game.position().rules().sides().iter().copied().find(|&s| game.position().may_deploy(s).is_ok()).unwrap();
            game.deploy_random(side, rng.next_u64()).unwrap();
        }
        for _ in 0..plies {
            let legal = game.legal_actions();
            game.play(legal[rng.below(legal.len())]).unwrap();
        }
        game.info_state(game.position().to_act().unwrap())
    }

    #[test]
    fn each_move_of_an_agent_draws_from_its_own_seed() {
        // The agent's first move is search_stats'; its second, at the same information,
        // is another search (the move number is in the seed).
        let info = mid_game("classic", 3, 14);
        for threads in [1, 2] {
            let mut agent = Search::new(Budget::Iterations(200), threads, Worlds::Modelled, 9);
            let first = agent.choose_with_stats(&info);
            assert_eq!(first, search_stats(&info, Budget::Iterations(200), threads, Worlds::Modelled, 9));
            let second = agent.choose_with_stats(&info);
            assert_ne!(first.1, second.1, "{threads} threads: the second move searched as the first");
        }
    }

    #[test]
    fn the_first_iterations_open_root_actions_and_every_other_seat_answers_once() {
        // Widening allows 1 + 1.5·√visits children: the first four iterations each open a
        // new root action (1 < 2.5, 2 < 3.1, 3 < 3.6; not 4 < 4), a ply, after which the
        // playout lets every other seat answer once: as many plies as seats each.
        for (name, seed, plies) in [("classic", 3u64, 14usize), ("siguo", 5, 12), ("fanqi", 6, 10), ("sanjun-modern", 4, 8)] {
            let info = mid_game(name, seed, plies);
            let seats = info.rules().sides().len() as u64;
            for worlds in [Worlds::Modelled, Worlds::Plain] {
                let (_, stats) = search_stats(&info, Budget::Iterations(4), 1, worlds, 1);
                assert_eq!(stats, TreeStats { iterations: 4, plies: 4 * seats, nodes: 5, depth: 1 }, "{name}");
                let (_, stats) = search_stats(&info, Budget::Iterations(5), 1, worlds, 1);
                assert_eq!((stats.nodes, stats.depth), (6, 2), "{name}: the fifth iteration goes below the root");
            }
        }
    }

    #[test]
    fn the_choice_is_the_root_action_visited_most_over_all_the_trees() {
        let info = mid_game("classic", 3, 14);
        let order: Vec<Action> = info.legal()[..4].to_vec();
        let [a, b, c, d] = [order[0], order[1], order[2], order[3]];
        // Summed over two trees: b 3 + 4 beats a 5 + 1 (and c, the most visited in one).
        assert_eq!(most_visited(&order, &[&[(a, 5, 1.0), (b, 3, 0.0)], &[(c, 6, 0.0), (b, 4, 0.0), (a, 1, 0.0)]]), b);
        // The same visits: the better mean (c's), whatever the order of the children.
        assert_eq!(most_visited(&order, &[&[(b, 4, 1.0), (c, 4, 2.0), (d, 4, -1.0)]]), c);
        assert_eq!(most_visited(&order, &[&[(d, 4, -1.0), (c, 2, 1.5)], &[(b, 4, 1.0), (c, 2, 0.5)]]), c);
        // A mean of 1, every visit a win, is the best there is.
        assert_eq!(most_visited(&order, &[&[(a, 2, 1.0), (c, 2, 2.0)]]), c);
        // The same visits and means: the better prior, the earlier in the order.
        assert_eq!(most_visited(&order, &[&[(d, 3, 0.5), (c, 3, 0.5), (b, 2, 0.5)]]), c);
        // Nothing visited (no tree opened a child): the first in the order.
        assert_eq!(most_visited(&order, &[&[], &[]]), a);
        // A tree's child that is not a root action of the order counts for nothing.
        assert_eq!(most_visited(&order[1..], &[&[(a, 9, 0.0), (d, 1, 0.0)]]), d);
    }

    #[test]
    fn a_passed_deadline_stops_at_the_first_reading_of_the_clock() {
        // The clock is read every CLOCK_EVERY iterations, never before the first: a
        // deadline already passed still grows one round of them, so there is a choice.
        let info = mid_game("classic", 3, 14);
        let eval = Evaluator::new(info.rules());
        let root_order: Vec<Action> = info.legal().to_vec();
        let player = info.player();
        let ctx = Ctx { info: &info, eval: &eval, sampler: None, player, team: info.rules().team_of(player), horizon: 1, root_order: &root_order };
        let (root, stats) = grow_tree(&ctx, &mut Rng::new(5), 1000, Some(Instant::now()));
        assert_eq!(stats.iterations, CLOCK_EVERY);
        assert_eq!(root.iter().map(|r| r.1 as u64).sum::<u64>(), CLOCK_EVERY);
        let (_, stats) = grow_tree(&ctx, &mut Rng::new(5), 1000, Some(Instant::now() + Duration::from_secs(3600)));
        assert_eq!(stats.iterations, 1000);
    }

    /// Random games of `name` to their end (or `max` plies), each position passed to
    /// `f` before its ply; returns the finished positions.
    fn random_games(name: &str, games: u64, max: usize, mut f: impl FnMut(&Game)) -> Vec<Game> {
        let mut over = Vec::new();
        for seed in 0..games {
            let mut game = Game::new(name, seed).unwrap();
            let mut rng = Rng::new(seed);
            while game.phase() == Phase::Deploy {
                let side = game.position().rules().sides().iter().copied().find(|&s| game.position().may_deploy(s).is_ok()).unwrap();
                game.deploy_random(side, rng.next_u64()).unwrap();
            }
            for _ in 0..max {
                if game.phase() == Phase::Over {
                    break;
                }
                f(&game);
                let legal = game.legal_actions();
                game.play(legal[rng.below(legal.len())]).unwrap();
            }
            if game.phase() == Phase::Over {
                over.push(game);
            }
        }
        over
    }

    #[test]
    fn a_finished_game_scores_one_for_the_winners_team_and_nothing_for_a_draw() {
        let mut seen = [0; 3];
        for name in ["classic", "siguo", "fanqi"] {
            for game in random_games(name, 12, 3000, |_| {}) {
                let result = game.position().result().expect("a result");
                for &player in game.position().rules().sides() {
                    let info = game.info_state(player);
                    let eval = Evaluator::new(info.rules());
                    let team = info.rules().team_of(player);
                    let ctx = Ctx { info: &info, eval: &eval, sampler: None, player, team, horizon: 1, root_order: &[] };
                    let want = if result.winners.is_empty() {
                        0.0
                    } else if result.winners.contains(player) {
                        1.0
                    } else {
                        -1.0
                    };
                    assert_eq!(terminal(&ctx, game.position()), want, "{name}: {player:?}, {result:?}");
                    seen[(want + 1.0) as usize] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "losses, draws, wins: {seen:?}");
    }

    #[test]
    fn the_prior_is_the_gain_of_a_capture_the_mover_can_see_and_nothing_unseen() {
        // Random positions of games whose pieces are hidden (classic), flipped face up
        // (翻棋) and with planes above the ground (三军): an attack on a piece the mover
        // has identified is worth what the combat table says it wins or loses, the
        // enemy flag the game; an attack on a piece it has not, and any other action, 0.
        let mut seen = [0usize; 5];
        for name in ["classic", "fanqi", "sanjun-modern"] {
            let rules = RuleSet::preset(name).unwrap();
            let eval = Evaluator::new(&rules);
            random_games(name, 6, 400, |game| {
                let pos = game.position();
                let mover = pos.to_act().unwrap();
                for a in game.legal_actions() {
                    let got = prior(&eval, pos, a, mover);
                    let target = match a {
                        Action::Move { from, to } => [Some(to), rules.board().below(to)].into_iter().flatten().find(|&q| pos.piece_at(q).is_some()).map(|t| (from, t)),
                        _ => None,
                    };
                    let Some((from, t)) = target else {
                        assert_eq!(got, 0.0, "{name}: {a:?} attacks nothing");
                        continue;
                    };
                    if !pos.knows(mover, t) || pos.is_face_down(t) {
                        assert_eq!(got, 0.0, "{name}: {a:?} on a piece {mover:?} has not identified");
                        seen[4] += 1;
                        continue;
                    }
                    let (ka, kd) = (pos.piece_at(from).unwrap().1, pos.piece_at(t).unwrap().1);
                    let (want, case) = match resolve(&rules, ka, kd) {
                        CombatOutcome::Win if kd == PieceKind::Flag => (WIN, 0),
                        CombatOutcome::Win => (eval.value(kd), 1),
                        CombatOutcome::Both => (eval.value(kd) - eval.value(ka), 2),
                        _ => (-eval.value(ka), 3),
                    };
                    assert_eq!(got, want, "{name}: {a:?}, {ka:?} on {kd:?}");
                    seen[case] += 1;
                }
            });
        }
        assert!(seen.iter().all(|&n| n > 0), "flag, win, both, lose, unseen: {seen:?}");
    }

    #[test]
    fn with_the_model_every_sixteenth_world_is_fresh_and_the_others_chain() {
        // grow_tree against the module docs' schedule written out: iteration i draws a
        // fresh modelled world when i is a multiple of FRESH_EVERY, else moves the last
        // world by one sweep of the sampler's swaps; the same random numbers, the same
        // tree (its root's children and the totals).
        let mut game = Game::new("classic", 4).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let mut rng = Rng::new(4);
        for _ in 0..12 {
            let legal = game.legal_actions();
            game.play(legal[rng.below(legal.len())]).unwrap();
        }
        let player = game.position().to_act().unwrap();
        let info = game.info_state(player);
        let rules = info.rules();
        let eval = Evaluator::new(rules);
        let model = crate::OpponentModel::for_rules(rules);
        assert!(!model.is_plain());
        let sampler = info.beliefs().sampler(&model);
        let root_order: Vec<Action> = info.legal().to_vec();
        let ctx = Ctx {
            info: &info,
            eval: &eval,
            sampler: Some(&sampler),
            player,
            team: rules.team_of(player),
            horizon: 1,
            root_order: &root_order,
        };
        let iterations = 200;
        let (root, stats) = grow_tree(&ctx, &mut Rng::new(23), iterations, None);
        let root_order_ids: Vec<u32> = root_order.iter().map(|&a| action_id(rules, a)).collect();
        assert!(root.iter().all(|(a, _, _)| root_order_ids.contains(&action_id(rules, *a))));
        let mut tree = Tree {
            nodes: vec![Node { action: root_order[0], id: action_id(rules, root_order[0]), mover: player, visits: 0, avail: 0, total: 0.0, children: Vec::new(), depth: 0 }],
        };
        let mut marks = Marks { mark: vec![0; rules.action_space()], generation: 0 };
        let (mut rng, mut types, mut buf, mut path, mut plies) = (Rng::new(23), [u8::MAX; MAX_PIECES], Vec::new(), Vec::new(), 0u64);
        let mut last: Option<Position> = None;
        let mut fresh = 0;
        for i in 0..iterations {
            let world = if i % FRESH_EVERY == 0 {
                fresh += 1;
                let w = info.sample_position_by(&sampler, &mut rng, &mut types);
                last = Some(w.clone());
                w
            } else {
                let w = last.as_mut().expect("a fresh world first");
                info.chain_position_by(&sampler, &mut rng, &mut types, w);
                w.clone()
            };
            let (value, p) = iterate(&ctx, &mut tree, &mut marks, world, &mut rng, &mut buf, &mut path);
            plies += p as u64;
            for &n in &path {
                let node = &mut tree.nodes[n as usize];
                node.visits += 1;
                node.total += if ctx.team.contains(node.mover) { value } else { -value };
            }
            tree.nodes[0].visits += 1;
        }
        assert_eq!(fresh, 13);
        let want: Vec<(Action, u32, f32)> = tree.nodes[0].children.iter().map(|&c| &tree.nodes[c as usize]).map(|n| (n.action, n.visits, n.total)).collect();
        assert_eq!(root, want);
        assert_eq!((stats.iterations, stats.nodes, stats.plies), (iterations, tree.nodes.len() as u64, plies));
    }
}
