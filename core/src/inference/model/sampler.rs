//! Drawing hidden armies from modelled beliefs.
//!
//! The target: an assignment of types to the pieces whose identity is open, consistent
//! with every candidate set and every count, with probability proportional to the
//! product of the pieces' model weights `Π_s w_s(t_s)` (see the module documentation of
//! `inference::model`). A draw is made in two steps:
//!
//! 1. **Sequential, weighted**: as [`Beliefs::sample`] (fewest candidates first, ties at
//!    random, restarts, a matching after 64 failures), but each piece draws a type with
//!    probability proportional to (pieces of that type still unassigned) × its weight.
//!    This alone over-weights the pieces drawn first.
//! 2. **Swaps**: [`SWEEPS`] sweeps of Metropolis moves, each proposing to exchange the
//!    types of two pieces of the same group (each type among the other's candidates),
//!    accepted with probability `min(1, w_i(t_j) w_j(t_i) / (w_i(t_i) w_j(t_j)))`. A swap
//!    keeps the counts and the candidates, and the moves leave the target distribution
//!    unchanged, so they pull the first step's draw towards it.
//!
//! The weights are worked out once per [`ModelledSampler`]; a draw allocates nothing.

use crate::limits::MAX_PIECES;
use crate::referee::Game;
use crate::rng::Rng;

use super::super::sample::{by_candidates, shuffle_runs};
use super::super::{bits, single, Beliefs, Sample, SampleError, NONE};
use super::OpponentModel;

/// Sweeps of swap moves after the sequential draw (one sweep: as many proposals as
/// pieces with an open identity).
pub const SWEEPS: usize = 8;

/// Draws hidden armies from one player's beliefs weighted by an [`OpponentModel`]
/// ([`Beliefs::sampler`]); see the module documentation of `inference::model::sampler`.
#[derive(Clone, Debug)]
pub struct ModelledSampler<'a> {
    beliefs: &'a Beliefs,
    /// The slots whose identity is open, fewest candidates first.
    free: Vec<u8>,
    /// Where each run of `free` with the same number of candidates ends.
    ends: Vec<u8>,
    /// Per slot: its (type, weight) candidates, from `start[s]` to `start[s + 1]`.
    start: Vec<u16>,
    entries: Vec<(u8, f64)>,
    /// Per type: pieces of that type whose identity is open.
    rem: [u16; 128],
    /// The fixed slots' types (the open ones are drawn).
    fixed: [u8; MAX_PIECES],
    /// Per slot and type: the weight (0 for a type that is no candidate).
    dense: Vec<f64>,
}

impl Beliefs {
    /// A sampler of hidden armies weighted by `model` (the plain model draws as
    /// [`Beliefs::sample`] does, followed by swaps that keep every consistent army
    /// alike).
    ///
    /// ```
    /// use junqi::{Game, OpponentModel, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let beliefs = game.beliefs(Side::South);
    /// let model = OpponentModel::for_rules(game.rules());
    /// let sampler = beliefs.sampler(&model);
    /// let a = sampler.sample(7).unwrap();
    /// assert_eq!(a, sampler.sample(7).unwrap());
    /// let world = sampler.determinize(&game, 7).unwrap();
    /// assert_eq!(world.position().occupied(), game.position().occupied());
    /// ```
    pub fn sampler(&self, model: &OpponentModel) -> ModelledSampler<'_> {
        let n = self.slots as usize;
        let mut rem = [0u16; 128];
        for t in bits(self.types) {
            rem[t] = self.counts[t] as u16;
        }
        let mut fixed = [NONE; MAX_PIECES];
        let mut free = Vec::new();
        let mut start = Vec::with_capacity(n + 1);
        let mut entries = Vec::new();
        let trust = model.trust(self);
        for s in 0..n {
            start.push(entries.len() as u16);
            let m = self.mask[s];
            if self.origin[s] == NONE || m == 0 {
                continue;
            }
            if single(m) {
                let t = m.trailing_zeros() as usize;
                fixed[s] = t as u8;
                rem[t] = rem[t].saturating_sub(1);
                continue;
            }
            free.push(s as u8);
            let first = entries.len();
            let mut top = f64::NEG_INFINITY;
            for t in bits(m) {
                let ll = trust[self.army_of_slot(s) % 4] * model.log_weight(self, s, t);
                top = top.max(ll);
                entries.push((t as u8, ll));
            }
            for e in &mut entries[first..] {
                e.1 = (e.1 - top).max(-200.0).exp();
            }
        }
        start.push(entries.len() as u16);
        let mut ends = [0u8; MAX_PIECES];
        let runs = by_candidates(&mut free, &self.mask, &mut ends);
        let mut s = ModelledSampler {
            beliefs: self,
            free,
            ends: ends[..runs].to_vec(),
            start,
            entries,
            rem,
            fixed,
            dense: Vec::new(),
        };
        s.densify();
        s
    }
}

impl ModelledSampler<'_> {
    /// Fills the dense table of weights from the rows.
    fn densify(&mut self) {
        let n = self.start.len().saturating_sub(1);
        self.dense = vec![0.0; n * 128];
        for s in 0..n {
            for i in self.start[s] as usize..self.start[s + 1] as usize {
                let (t, w) = self.entries[i];
                self.dense[s * 128 + t as usize % 128] = w;
            }
        }
    }
}

impl ModelledSampler<'_> {
    fn row(&self, s: usize) -> &[(u8, f64)] {
        &self.entries[self.start[s] as usize..self.start[s + 1] as usize]
    }

    /// The weight of type `t` for slot `s` (0 if not a candidate).
    fn weight(&self, s: usize, t: u8) -> f64 {
        self.dense[s * 128 + t as usize % 128]
    }

    /// One draw (see the module documentation), the same for the same seed; `None` only
    /// if the beliefs are inconsistent.
    pub fn sample(&self, seed: u64) -> Option<Sample> {
        let mut types = [NONE; MAX_PIECES];
        self.sample_into(&mut Rng::new(seed), &mut types).then(|| self.beliefs.sample_of(types))
    }

    /// A game drawn from the player's information, as [`Beliefs::determinize`], with
    /// the identities drawn by this sampler.
    pub fn determinize(&self, game: &Game, seed: u64) -> Result<Game, SampleError> {
        self.beliefs.determinize_by(game, seed, |rng, types| self.sample_into(rng, types))
    }

    /// Draws a type for every slot into `out` (per slot; `NONE` for unused slots).
    pub(crate) fn sample_into(&self, rng: &mut Rng, out: &mut [u8; MAX_PIECES]) -> bool {
        if !self.beliefs.consistent {
            return false;
        }
        *out = self.fixed;
        let mut order = [0u8; MAX_PIECES];
        let nf = self.free.len();
        order[..nf].copy_from_slice(&self.free);
        let order = &mut order[..nf];
        let mut done = false;
        for _ in 0..64 {
            // Fewest candidates first, ties at random.
            shuffle_runs(order, &self.ends, rng);
            let mut left = self.rem;
            let mut ok = true;
            for &s in order.iter() {
                let row = self.row(s as usize);
                let total: f64 = row.iter().map(|&(t, w)| left[t as usize] as f64 * w).sum();
                if total <= 0.0 {
                    ok = false;
                    break;
                }
                let mut r = rng.next_f64() * total;
                let mut pick = NONE;
                for &(t, w) in row {
                    let x = left[t as usize] as f64 * w;
                    if x > 0.0 {
                        pick = t;
                        if r < x {
                            break;
                        }
                        r -= x;
                    }
                }
                out[s as usize] = pick;
                left[pick as usize] -= 1;
            }
            if ok {
                done = true;
                break;
            }
        }
        if !done {
            // Rare: the plain draw's matching completes it; the swaps then weigh it.
            let mut plain = [NONE; MAX_PIECES];
            if !self.beliefs.sample_into(rng, &mut plain) {
                return false;
            }
            for &s in &self.free {
                out[s as usize] = plain[s as usize];
            }
        }
        self.swap_into(rng, out, SWEEPS);
        true
    }

    /// Continues a chain of draws: `sweeps` sweeps of the swap moves on `out`, a draw of
    /// this sampler (its previous state). The moves leave the target distribution
    /// unchanged, so a chain of such steps draws from it with less work a draw than
    /// [`ModelledSampler::sample_into`] (whose first step is not), at the price of
    /// successive draws that are not independent — what a tree search, which wants many
    /// worlds cheaply rather than each one fresh, can use.
    pub(crate) fn swap_into(&self, rng: &mut Rng, out: &mut [u8; MAX_PIECES], sweeps: usize) {
        // Swaps between pieces of one group (one army, or the pool under a deal).
        let groups = !self.beliefs.rules.deals();
        let nf = self.free.len();
        if nf < 2 {
            return;
        }
        for _ in 0..sweeps * nf {
            let a = rng.below(nf);
            let b = (a + 1 + rng.below(nf - 1)) % nf;
            let (i, j) = (self.free[a] as usize, self.free[b] as usize);
            let (ti, tj) = (out[i], out[j]);
            if ti == tj || groups && ti / 32 != tj / 32 {
                continue;
            }
            let (wij, wji) = (self.weight(i, tj), self.weight(j, ti));
            if wij == 0.0 || wji == 0.0 {
                continue;
            }
            let ratio = wij * wji / (self.weight(i, ti) * self.weight(j, tj));
            if ratio >= 1.0 || rng.next_f64() < ratio {
                out[i] = tj;
                out[j] = ti;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::{PieceKind, Side};
    use crate::rules::RuleSet;

    /// A sampler over a hand-made problem: slot `s` has candidates `(type, weight)`,
    /// type `t` occurs `counts[t]` times.
    fn problem(rows: &[&[(u8, f64)]], counts: &[u8]) -> (Beliefs, Vec<Vec<(u8, f64)>>) {
        problem_in("classic", rows, counts)
    }

    fn problem_in(preset: &str, rows: &[&[(u8, f64)]], counts: &[u8]) -> (Beliefs, Vec<Vec<(u8, f64)>>) {
        let mut b = Beliefs::new(RuleSet::preset(preset).unwrap(), Side::South, None).unwrap();
        b.counts = [0; 128];
        b.types = 0;
        for (t, &n) in counts.iter().enumerate() {
            b.counts[t] = n;
            b.types |= 1 << t;
        }
        for (s, row) in rows.iter().enumerate() {
            b.mask[s] = row.iter().fold(0, |m, e| m | 1u128 << e.0);
            b.origin[s] = s as u8;
        }
        b.slots = rows.len() as u8;
        (b, rows.iter().map(|r| r.to_vec()).collect())
    }

    fn sampler<'a>(b: &'a Beliefs, rows: &[Vec<(u8, f64)>]) -> ModelledSampler<'a> {
        let mut s = b.sampler(&OpponentModel::plain());
        let mut start = Vec::new();
        let mut entries = Vec::new();
        for r in rows {
            start.push(entries.len() as u16);
            entries.extend(r.iter().copied());
        }
        start.push(entries.len() as u16);
        s.start = start;
        s.entries = entries;
        s.densify();
        s
    }

    #[test]
    fn draws_follow_the_weights_jointly() {
        // Three pieces, types 0, 1, 2 once each. Piece 0 may be 0 or 1 (weights 1 and
        // 4), piece 1 may be anything (weights 1, 1, 1), piece 2 may be 1 or 2 (weights
        // 2 and 1). Assignments and their weights: (0,1,2): 1·1·1 = 1, (0,2,1): 1·1·2 = 2,
        // (1,0,2): 4·1·1 = 4, (1,2,?) impossible (piece 2 would need 0). Total 7.
        let (b, rows) = problem(&[&[(0, 1.0), (1, 4.0)], &[(0, 1.0), (1, 1.0), (2, 1.0)], &[(1, 2.0), (2, 1.0)]], &[1, 1, 1]);
        let s = sampler(&b, &rows);
        let n = 14_000;
        let mut seen = [0u32; 3];
        for seed in 0..n {
            let mut out = [NONE; MAX_PIECES];
            assert!(s.sample_into(&mut Rng::new(seed), &mut out));
            let i = match (out[0], out[1], out[2]) {
                (0, 1, 2) => 0,
                (0, 2, 1) => 1,
                (1, 0, 2) => 2,
                other => panic!("not an assignment: {other:?}"),
            };
            seen[i] += 1;
        }
        // Expected 2 000, 4 000, 8 000 (standard deviations about 40, 55, 60).
        let want = [2000.0, 4000.0, 8000.0];
        for (got, want) in seen.iter().zip(want) {
            assert!((*got as f64 - want).abs() < 250.0, "{seen:?}");
        }
    }

    /// The draws of the three-piece problem of `draws_follow_the_weights_jointly`, seed
    /// by seed: 0 for (0, 1, 2), 1 for (0, 2, 1), 2 for (1, 0, 2). Pinned, so that a
    /// change of the random numbers a draw uses (a proposal more or less, a number
    /// drawn for a swap that cannot be made) shows, which the frequencies cannot.
    fn pinned_draws(s: &ModelledSampler<'_>) -> String {
        (0..60)
            .map(|seed| {
                let mut out = [NONE; MAX_PIECES];
                assert!(s.sample_into(&mut Rng::new(seed), &mut out));
                match (out[0], out[1], out[2]) {
                    (0, 1, 2) => '0',
                    (0, 2, 1) => '1',
                    (1, 0, 2) => '2',
                    other => panic!("not an assignment: {other:?}"),
                }
            })
            .collect()
    }

    #[test]
    fn the_draws_of_each_seed_are_pinned() {
        let (b, rows) = problem(&[&[(0, 1.0), (1, 4.0)], &[(0, 1.0), (1, 1.0), (2, 1.0)], &[(1, 2.0), (2, 1.0)]], &[1, 1, 1]);
        assert_eq!(pinned_draws(&sampler(&b, &rows)), "102210100102222022122202211012002021022211221012122121022211");
    }

    #[test]
    fn a_chain_of_sweeps_follows_the_weights_too() {
        // The problem above, drawn as a tree search does: one draw, then a sweep of the
        // swaps a draw. Successive draws are correlated, so the bounds are wider.
        let (b, rows) = problem(&[&[(0, 1.0), (1, 4.0)], &[(0, 1.0), (1, 1.0), (2, 1.0)], &[(1, 2.0), (2, 1.0)]], &[1, 1, 1]);
        let s = sampler(&b, &rows);
        let mut rng = Rng::new(5);
        let mut out = [NONE; MAX_PIECES];
        assert!(s.sample_into(&mut rng, &mut out));
        let mut seen = [0u32; 3];
        for _ in 0..14_000 {
            s.swap_into(&mut rng, &mut out, 1);
            seen[match (out[0], out[1], out[2]) {
                (0, 1, 2) => 0,
                (0, 2, 1) => 1,
                (1, 0, 2) => 2,
                other => panic!("not an assignment: {other:?}"),
            }] += 1;
        }
        let want = [2000.0, 4000.0, 8000.0];
        for (got, want) in seen.iter().zip(want) {
            assert!((*got as f64 - want).abs() < 500.0, "{seen:?}");
        }
    }

    #[test]
    fn under_a_deal_the_chain_swaps_types_across_armies() {
        // 翻棋: a face-down piece may be of either army. Two pieces, one type of each
        // army (0 and 32); piece 0 weighs them 1 and 3, piece 1 alike: the assignments
        // (0, 32) and (32, 0) weigh 1 and 3, and a chain started at the first must reach
        // the second three times as often.
        let (mut b, rows) = problem_in("fanqi", &[&[(0, 1.0), (32, 3.0)], &[(0, 1.0), (32, 1.0)]], &[]);
        b.counts[0] = 1;
        b.counts[32] = 1;
        b.types = 1 | 1 << 32;
        let s = sampler(&b, &rows);
        let mut rng = Rng::new(1);
        let mut out = [NONE; MAX_PIECES];
        out[0] = 0;
        out[1] = 32;
        let mut second = 0;
        for _ in 0..4000 {
            s.swap_into(&mut rng, &mut out, 1);
            second += u32::from(out[0] == 32);
        }
        assert!((2700..3300).contains(&second), "{second} of 4000");
    }

    #[test]
    fn slots_are_ordered_by_candidates_with_ties_at_random() {
        use super::super::super::sample::{by_candidates, shuffle_runs};
        let mut mask = [0u128; MAX_PIECES];
        // Slots 0..6 with 3, 1, 2, 3, 1, 2 candidates.
        for (s, n) in [3, 1, 2, 3, 1, 2].into_iter().enumerate() {
            mask[s] = (1u128 << n) - 1;
        }
        let mut slots = [0u8, 1, 2, 3, 4, 5];
        let mut ends = [0u8; MAX_PIECES];
        let runs = by_candidates(&mut slots, &mask, &mut ends);
        assert_eq!((slots, &ends[..runs]), ([1, 4, 2, 5, 0, 3], &[2u8, 4, 6][..]));
        let mut firsts = [0u32; 6];
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            shuffle_runs(&mut slots, &ends[..runs], &mut rng);
            let keys = slots.map(|s| mask[s as usize].count_ones());
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{slots:?}");
            firsts[slots[0] as usize] += 1;
        }
        // Either 1-candidate slot first, about equally often.
        assert!(firsts[1] > 850 && firsts[4] > 850, "{firsts:?}");
    }

    #[test]
    fn the_plain_model_draws_every_consistent_army_alike() {
        let (b, _) = problem(&[&[(0, 1.0), (1, 1.0)], &[(0, 1.0), (1, 1.0), (2, 1.0)], &[(0, 1.0), (1, 1.0), (2, 1.0)]], &[1, 1, 1]);
        let s = b.sampler(&OpponentModel::plain());
        let zeros = (0..4000).filter(|&seed| {
            let mut out = [NONE; MAX_PIECES];
            assert!(s.sample_into(&mut Rng::new(seed), &mut out));
            out[0] == 0
        });
        // Of the four assignments, two give piece 0 type 0.
        let zeros = zeros.count();
        assert!((1800..2200).contains(&zeros), "{zeros} of 4000");
    }

    /// The share of `n` draws in which `slot` gets `t`, every draw checked: each slot
    /// one of its candidates, no type more often than it occurs.
    fn share(b: &Beliefs, s: &ModelledSampler<'_>, n: u64, slot: usize, t: u8) -> f64 {
        let mut hits = 0;
        for seed in 0..n {
            let mut out = [NONE; MAX_PIECES];
            assert!(s.sample_into(&mut Rng::new(seed), &mut out), "seed {seed}");
            let mut used = [0u8; 128];
            for (i, &u) in out.iter().enumerate().take(b.slots as usize) {
                assert!(b.mask[i] >> u & 1 == 1, "seed {seed}: slot {i} drew {u}");
                used[u as usize] += 1;
                assert!(used[u as usize] <= b.counts[u as usize], "seed {seed}: type {u} drawn too often");
            }
            hits += (out[slot] == t) as u32;
        }
        hits as f64 / n as f64
    }

    #[test]
    fn a_lone_open_piece_and_a_pair_draw_by_their_weights() {
        // One open piece, type 0 (weight 1) or 1 (weight 3): no swap to make, the
        // weighted draw alone gives type 1 three times in four (the plain draw: half).
        let (b, rows) = problem(&[&[(0, 1.0), (1, 3.0)]], &[1, 1]);
        let p = share(&b, &sampler(&b, &rows), 4000, 0, 1);
        assert!((0.72..0.78).contains(&p), "{p}");
        // Three types for one piece, weights 1, 1 and 2: a quarter, a quarter, a half
        // (with two candidates, a pick that kept the first type or else the last would
        // pass).
        let (b, rows) = problem(&[&[(0, 1.0), (1, 1.0), (2, 2.0)]], &[1, 1, 1]);
        let s = sampler(&b, &rows);
        let p = [0, 1, 2].map(|t| share(&b, &s, 4000, 0, t));
        assert!((0.22..0.28).contains(&p[0]) && (0.22..0.28).contains(&p[1]) && (0.47..0.53).contains(&p[2]), "{p:?}");
        // Two pieces, types 0 and 1 once each; piece 0 weighs them 1 and 4, piece 1
        // alike: (1, 0) weighs 4, (0, 1) 1, so piece 0 is type 1 in 0.8 of the draws
        // (the sequential draw alone, which picks piece 1 first half the time: 0.65).
        let (b, rows) = problem(&[&[(0, 1.0), (1, 4.0)], &[(0, 1.0), (1, 1.0)]], &[1, 1]);
        let p = share(&b, &sampler(&b, &rows), 4000, 0, 1);
        assert!((0.77..0.83).contains(&p), "{p}");
    }

    #[test]
    fn a_problem_the_weighted_draws_nearly_always_fail_is_completed_by_the_plain_matching() {
        // Sixty pieces in a ring, piece i of type i or i + 1: only the two rotations fit
        // (as in `inference::sample`'s test), and 64 weighted draws nearly always fail.
        let n = 60usize;
        let rows: Vec<Vec<(u8, f64)>> = (0..n).map(|i| vec![(i as u8, 1.0), (((i + 1) % n) as u8, 2.0)]).collect();
        let rows: Vec<&[(u8, f64)]> = rows.iter().map(|r| &r[..]).collect();
        let (b, rows) = problem(&rows, &[1; 60]);
        let s = sampler(&b, &rows);
        for seed in 0..8 {
            let mut out = [NONE; MAX_PIECES];
            assert!(s.sample_into(&mut Rng::new(seed), &mut out), "seed {seed}");
            let turn = out[0] as usize;
            assert!((0..n).all(|i| out[i] as usize == (i + turn) % n), "seed {seed}: not a rotation: {:?}", &out[..n]);
        }
    }

    /// South's beliefs after 10 plies of classic: South plays at random, North as the
    /// greedy agent, so the shipped model trusts North's army in part (0.81) and South's
    /// own not at all.
    fn north_greedy() -> Game {
        let mut g = Game::new("classic", 3).unwrap();
        let mut a = crate::agent::by_name("random", 3).unwrap();
        // The derived weights: the game these tests pinned (the fitted ones play another).
        let mut b = crate::agent::by_name("greedy:eval=derived", 4).unwrap();
        while g.position().ply() < 10 {
            crate::agent::act(&mut g, Side::South, a.as_mut()).unwrap();
            crate::agent::act(&mut g, Side::North, b.as_mut()).unwrap();
        }
        g
    }

    #[test]
    fn the_rows_hold_the_model_s_weights_scaled_by_the_army_s_trust() {
        let g = north_greedy();
        let b = g.beliefs(Side::South);
        let model = OpponentModel::for_rules(g.rules());
        let trust = model.trust(&b);
        assert!(trust[0] < 1e-6 && (0.5..0.95).contains(&trust[1]), "{trust:?}");
        let s = b.sampler(&model);
        let (mut free, mut rem, mut moved) = (Vec::new(), [0u16; 128], 0);
        for t in bits(b.types) {
            rem[t] = b.counts[t] as u16;
        }
        for slot in 0..MAX_PIECES {
            let m = b.mask[slot];
            let open = slot < b.slots as usize && b.origin[slot] != NONE && m != 0 && !single(m);
            if slot < b.slots as usize && b.origin[slot] != NONE && single(m) {
                rem[m.trailing_zeros() as usize] -= 1;
                assert_eq!(s.fixed[slot], m.trailing_zeros() as u8);
            } else {
                assert_eq!(s.fixed[slot], NONE);
            }
            if slot >= b.slots as usize {
                continue;
            }
            if !open {
                assert!(s.row(slot).is_empty());
                continue;
            }
            // w(t) = exp(trust · ln w_model(t) − the row's largest), at least e^−200.
            let ll = |t: usize| trust[b.army_of_slot(slot) % 4] * model.log_weight(&b, slot, t);
            let top = bits(m).map(ll).fold(f64::NEG_INFINITY, f64::max);
            let want: Vec<(u8, f64)> = bits(m).map(|t| (t as u8, (ll(t) - top).max(-200.0).exp())).collect();
            assert_eq!(s.row(slot), &want[..], "slot {slot}");
            for t in 0..128u8 {
                let w = want.iter().find(|e| e.0 == t).map_or(0.0, |e| e.1);
                assert_eq!(s.weight(slot, t), w, "slot {slot}, type {t}");
            }
            moved += (want.iter().filter(|e| e.1 < 0.5).count() > 0) as usize;
            free.push(slot as u8);
        }
        // The open slots, fewest candidates first (stable), and where each run ends.
        free.sort_by_key(|&slot| b.mask[slot as usize].count_ones());
        assert_eq!(s.free, free);
        let ends: Vec<u8> = (1..=free.len())
            .filter(|&i| i == free.len() || b.mask[free[i] as usize].count_ones() != b.mask[free[i - 1] as usize].count_ones())
            .map(|i| i as u8)
            .collect();
        assert_eq!(s.ends, ends);
        assert_eq!(s.rem, rem);
        // North's 25 pieces are open, and the model tells most of them apart.
        assert_eq!(free.len(), 25);
        assert!(moved > 20, "{moved} rows with a weight under 0.5");
    }

    #[test]
    fn a_sample_and_a_world_are_the_draw_of_their_seed() {
        let g = north_greedy();
        let b = g.beliefs(Side::South);
        let model = OpponentModel::for_rules(g.rules());
        let s = b.sampler(&model);
        for seed in 0..3 {
            let mut types = [NONE; MAX_PIECES];
            assert!(s.sample_into(&mut Rng::new(seed), &mut types));
            let sample = s.sample(seed).unwrap();
            let world = s.determinize(&g, seed).unwrap();
            assert_eq!(world.position().occupied(), g.position().occupied());
            let mut north = 0;
            for (p, side, kind) in g.position().pieces() {
                let drawn = sample.identity(p).unwrap();
                if side == Side::South {
                    assert_eq!(drawn, (side, kind));
                } else {
                    let slot = b.cell[p.index()] as usize;
                    assert_eq!(drawn, (Side::North, PieceKind::ALL[types[slot] as usize % 32]));
                    assert!(b.mask[slot] >> types[slot] & 1 == 1);
                    north += 1;
                }
                let (_, ws, wk) = world.position().pieces().find(|q| q.0 == p).unwrap();
                assert_eq!((ws, wk), drawn);
            }
            assert_eq!(north, 24); // one of North's 25 is off the board
        }
        // Inconsistent beliefs: no draw, no world.
        let mut bad = b.clone();
        bad.consistent = false;
        let s = bad.sampler(&model);
        assert!(!s.sample_into(&mut Rng::new(1), &mut [NONE; MAX_PIECES]));
        assert_eq!(s.sample(1), None);
        assert_eq!(s.determinize(&g, 1).unwrap_err(), SampleError::Inconsistent);
    }
}
