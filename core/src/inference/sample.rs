//! Sampling the hidden army (determinization): a complete assignment of identities
//! that agrees with a player's beliefs.
//!
//! **The distribution.** Pieces whose identity is not fixed are visited in order of
//! fewest candidates first (ties broken at random); each draws a type among its
//! candidates with probability proportional to the number of pieces of that type still
//! unassigned (count-weighted). A draw that leaves a later piece without a candidate is
//! discarded and started again. When no candidate set constrains anything beyond the
//! counts this is exactly the uniform distribution over assignments (a uniform random
//! permutation of the hidden pieces); with constraints it is close to uniform but not
//! exactly: pieces visited early are drawn from their count-weighted marginal without
//! regard to what their choice leaves for the rest. After 64 discarded draws a
//! matching completes the assignment (always possible for consistent beliefs), so
//! sampling never fails on consistent beliefs.

use std::sync::Arc;

use crate::board::Point;
use crate::piece::{PieceKind, Side};
use crate::limits::MAX_PIECES;
use crate::position::Position;
use crate::referee::{Entry, Game};
use crate::rng::Rng;
use crate::setup::Setup;

use super::{bits, Beliefs, KNOWN, NONE, PUBLIC};

/// One complete assignment of identities drawn from a player's beliefs
/// ([`Beliefs::sample`]): an (army, kind) for every piece, on the board or off it.
#[derive(Clone, Debug)]
pub struct Sample {
    rules: Arc<crate::rules::RuleSet>,
    /// Per belief slot: the type drawn (`army_index * 32 + kind`), `NONE` if unused.
    types: [u8; MAX_PIECES],
    /// Per point: the slot standing there.
    cell: [u8; crate::board::MAX_POINTS],
}

/// Samples are equal when they draw the same identities on the same points.
impl PartialEq for Sample {
    fn eq(&self, o: &Sample) -> bool {
        self.types == o.types && self.cell == o.cell && self.rules.spec() == o.rules.spec()
    }
}

impl Eq for Sample {}

impl Sample {
    /// The identity drawn for the piece on `p` (`None` if the point is empty).
    pub fn identity(&self, p: Point) -> Option<(Side, PieceKind)> {
        let s = *self.cell.get(p.index())?;
        (s != NONE).then(|| self.decode(self.types[s as usize]))
    }

    /// Every piece on the board with its drawn identity, in point order.
    pub fn pieces(&self) -> Vec<(Point, Side, PieceKind)> {
        self.rules
            .board()
            .points()
            .filter_map(|p| self.identity(p).map(|(s, k)| (p, s, k)))
            .collect()
    }

    fn decode(&self, t: u8) -> (Side, PieceKind) {
        (self.rules.sides()[t as usize / 32], PieceKind::ALL[t as usize % 32])
    }
}

impl Beliefs {
    /// Draws one complete assignment of identities consistent with these beliefs (see
    /// the module documentation of `inference::sample` for the distribution), the same
    /// for the same seed. `None` only if the beliefs are inconsistent.
    pub fn sample(&self, seed: u64) -> Option<Sample> {
        let mut types = [NONE; MAX_PIECES];
        if !self.sample_into(&mut Rng::new(seed), &mut types) {
            return None;
        }
        Some(self.sample_of(types))
    }

    /// The [`Sample`] of drawn types (per slot).
    pub(crate) fn sample_of(&self, types: [u8; MAX_PIECES]) -> Sample {
        let mut cell = [NONE; crate::board::MAX_POINTS];
        cell.copy_from_slice(&self.cell);
        Sample {
            rules: self.rules.clone(),
            types,
            cell,
        }
    }

    /// Draws a type for every slot into `out` (per slot; `NONE` for unused slots).
    /// Allocation-free.
    pub(crate) fn sample_into(&self, rng: &mut Rng, out: &mut [u8; MAX_PIECES]) -> bool {
        if !self.consistent {
            return false;
        }
        let mut rem = [0u16; 128];
        for t in bits(self.types) {
            rem[t] = self.counts[t] as u16;
        }
        let mut free = [0u8; MAX_PIECES];
        let mut nf = 0;
        for (s, o) in out.iter_mut().enumerate() {
            if self.origin[s] == NONE {
                *o = NONE;
                continue;
            }
            let m = self.mask[s];
            if super::single(m) {
                let t = m.trailing_zeros() as usize;
                *o = t as u8;
                rem[t] = rem[t].saturating_sub(1);
            } else {
                free[nf] = s as u8;
                nf += 1;
            }
        }
        let free = &mut free[..nf];
        let mut ends = [0u8; MAX_PIECES];
        let runs = by_candidates(free, &self.mask, &mut ends);
        for _ in 0..64 {
            // Fewest candidates first, ties at random.
            shuffle_runs(free, &ends[..runs], rng);
            let mut left = rem;
            let mut ok = true;
            for &s in free.iter() {
                let m = self.mask[s as usize];
                let total: u32 = bits(m).map(|t| left[t] as u32).sum();
                if total == 0 {
                    ok = false;
                    break;
                }
                let mut r = rng.below(total as usize) as u32;
                for t in bits(m) {
                    let w = left[t] as u32;
                    if r < w {
                        out[s as usize] = t as u8;
                        left[t] -= 1;
                        break;
                    }
                    r -= w;
                }
            }
            if ok {
                return true;
            }
        }
        // Rare: complete with a matching.
        let mut cand = [0u128; MAX_PIECES];
        let mut cap = [0u8; 128];
        for t in 0..128 {
            cap[t] = rem[t].min(255) as u8;
        }
        for (i, &s) in free.iter().enumerate() {
            cand[i] = self.mask[s as usize];
        }
        let mut matched = [NONE; MAX_PIECES];
        let mut load = [0u8; 128];
        for i in 0..nf {
            let mut visited = 0u128;
            if !super::matching::augment(i, &cand[..nf], &mut matched[..nf], &mut load, &cap, &mut visited) {
                return false;
            }
        }
        for (i, &s) in free.iter().enumerate() {
            out[s as usize] = matched[i];
        }
        true
    }
}

/// Orders `slots` for a sequential draw, fewest candidates first (a stable sort), and
/// writes into `ends` where each run of slots with the same number of candidates ends;
/// returns the number of runs. With [`shuffle_runs`] before each attempt this is the
/// order "fewest candidates first, ties at random" without sorting again.
pub(crate) fn by_candidates(slots: &mut [u8], mask: &[u128], ends: &mut [u8; MAX_PIECES]) -> usize {
    let mut keys = [0u8; MAX_PIECES];
    for (k, &s) in keys.iter_mut().zip(slots.iter()) {
        *k = mask[s as usize].count_ones() as u8;
    }
    // Insertion sort: a few dozen slots, often nearly in order.
    for i in 1..slots.len() {
        let (k, s) = (keys[i], slots[i]);
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            slots[j] = slots[j - 1];
            j -= 1;
        }
        keys[j] = k;
        slots[j] = s;
    }
    let mut runs = 0;
    for i in 0..slots.len() {
        if i + 1 == slots.len() || keys[i + 1] != keys[i] {
            ends[runs] = (i + 1) as u8;
            runs += 1;
        }
    }
    runs
}

/// Shuffles each run of `slots` that [`by_candidates`] found (its `ends`).
pub(crate) fn shuffle_runs(slots: &mut [u8], ends: &[u8], rng: &mut Rng) {
    let mut start = 0;
    for &end in ends {
        rng.shuffle(&mut slots[start..end as usize]);
        start = end as usize;
    }
}

impl Game {
    /// What `player` may deduce about every piece (see [`Beliefs`]): from its own record,
    /// plus its partners' setups where the rule set lets partners see each other.
    pub fn beliefs(&self, player: Side) -> Beliefs {
        let own = self.entries().iter().find_map(|e| match e {
            Entry::Deploy(s, setup) if *s == player => Some(&**setup),
            _ => None,
        });
        let mut b = Beliefs::new(self.rules().clone(), player, own).expect("a deployed setup is valid");
        if let Some(Entry::Start(text)) = self.entries().first() {
            let start = Position::from_position_string_with(self.rules().clone(), text)
                .expect("a game's start position string reads back");
            b.start_from(&start);
        }
        if self.rules().options().allies_see_each_other {
            for e in self.entries() {
                if let Entry::Deploy(s, setup) = e {
                    if *s != player && self.rules().team_of(player).contains(*s) {
                        b.learn_setup(*s, setup).expect("a deployed setup is valid");
                    }
                }
            }
        }
        b.observe(self.events(player));
        b
    }

    /// A game drawn from what `player` knows (determinization, for search over
    /// information sets): every piece `player` cannot see gets an identity drawn from
    /// its beliefs ([`Beliefs::sample`]), the rest — the board, `player`'s own pieces and
    /// what it was shown, the turn, the counters — is as in this game. The same seed
    /// gives the same game, and nothing in it depends on identities `player` has not
    /// seen.
    ///
    /// Piece ids ([`Position::piece_id`]) are renumbered from what `player` knows:
    /// the piece with id `i` is the one `player`'s beliefs follow in slot `i` (slots
    /// follow each army's deployment in point order, or under a deal the dealt points in
    /// point order). The referee's ids would tell, in 翻棋, which army each face-down
    /// piece belongs to.
    ///
    /// In the returned game each other player knows its own (and, where partners see
    /// each other, its team's) pieces and what was shown to everyone; `player`'s event
    /// log is kept and the other players' logs are empty; its seed is `seed` (the
    /// game's own seed is the referee's). Its record holds the drawn
    /// setups (or deal) and the actions played; it need not replay, since a draw agrees
    /// with each piece's candidates but not with every joint observation.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 3).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let a = game.determinize(Side::South, 9);
    /// assert_eq!(a.position().occupied(), game.position().occupied());
    /// assert!(a.position().same_state(&game.determinize(Side::South, 9).position()));
    /// ```
    pub fn determinize(&self, player: Side, seed: u64) -> Game {
        let beliefs = self.beliefs(player);
        beliefs.determinize(self, seed).expect("a game's own beliefs are about it and consistent")
    }
}

/// Why a determinization was refused ([`Beliefs::determinize`]).
#[derive(Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SampleError {
    /// The beliefs are about another rule set than the game's.
    #[error("the beliefs are about another rule set than the game's")]
    OtherRules,
    /// The beliefs follow pieces on other points than the game's (another game, or
    /// the same game at another moment).
    #[error("the beliefs are about another game: their pieces stand on other points than the game's")]
    OtherGame,
    /// The beliefs contradict themselves (no assignment of kinds fits them).
    #[error("the beliefs are inconsistent: no assignment of identities agrees with them")]
    Inconsistent,
}

/// The kind of each refusal (docs/errors.md; the table is [`crate::ErrorKind`]'s).
impl crate::error::Error for SampleError {
    fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind;
        ErrorKind::WrongGame
    }
}

impl std::fmt::Debug for SampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Beliefs {
    /// Refuses a position these beliefs are not about (another rule set, or pieces on
    /// other points).
    pub(crate) fn check_about(&self, pos: &Position) -> Result<(), SampleError> {
        if !Arc::ptr_eq(&self.rules, pos.rules()) && self.rules.spec() != pos.rules().spec() {
            return Err(SampleError::OtherRules);
        }
        if self.occupied != pos.occupied() {
            return Err(SampleError::OtherGame);
        }
        if !self.consistent {
            return Err(SampleError::Inconsistent);
        }
        Ok(())
    }

    /// `pos` (a position these beliefs are about, [`Beliefs::check_about`]) with its
    /// pieces renumbered by belief slot and given the identities `types` (per slot). Who
    /// knows each piece: this player what it was shown; the others what was shown to
    /// everyone, and (except under a deal) their own and, where partners see each
    /// other, their team's pieces of the drawn owners.
    pub(crate) fn rebuild(&self, pos: &Position, types: &[u8; MAX_PIECES]) -> Position {
        pos.renumbered(self.slots as usize, |s| self.drawn_piece(s, types))
    }

    /// Changes a position rebuilt from `old` (by [`Beliefs::rebuild`] or this) into the
    /// one `new` rebuilds, in place: only the slots whose drawn type differs change.
    pub(crate) fn repatch(&self, pos: &mut Position, old: &[u8; MAX_PIECES], new: &[u8; MAX_PIECES]) {
        for s in 0..self.slots as usize {
            if old[s] != new[s] {
                let (_, owner, kind, knows) = self.drawn_piece(s, new).expect("a drawn slot stays drawn");
                pos.reassign(s, owner, kind, knows);
            }
        }
        debug_assert!(pos.same_state(&self.rebuild(pos, new)));
    }

    /// The piece of slot `s` in a position rebuilt with `types`: where it stands, its
    /// owner and kind, and who knows it (see [`Beliefs::rebuild`]).
    fn drawn_piece(&self, s: usize, types: &[u8; MAX_PIECES]) -> Option<crate::position::Renumbered> {
        if self.origin[s] == NONE || types[s] == NONE {
            return None;
        }
        let rules = &self.rules;
        let sides = rules.sides();
        let (owner, kind) = (sides[types[s] as usize / 32], PieceKind::ALL[types[s] as usize % 32]);
        let at = (self.at[s] != NONE).then_some(Point(self.at[s]));
        let flags = self.flags[s];
        let mut knows = 0u8;
        for &viewer in sides {
            let k = if viewer == self.player {
                flags & KNOWN != 0
            } else if flags & PUBLIC != 0 {
                true
            } else if rules.deals() {
                false
            } else {
                owner == viewer || rules.options().allies_see_each_other && rules.team_of(viewer).contains(owner)
            };
            if k {
                knows |= 1 << viewer as usize;
            }
        }
        Some((at, owner, kind, knows))
    }

    /// Draws identities into `out` and rebuilds `pos` with them (allocation-free).
    pub(crate) fn sampled_position(&self, pos: &Position, rng: &mut Rng, out: &mut [u8; MAX_PIECES]) -> Option<Position> {
        self.sample_into(rng, out).then(|| self.rebuild(pos, out))
    }

    /// The identities of a canonical fill: each slot's first candidate (for a skeleton
    /// position in which nothing unseen is told; the counts need not add up).
    pub(crate) fn first_candidates(&self) -> [u8; MAX_PIECES] {
        let mut out = [NONE; MAX_PIECES];
        let n = self.slots as usize;
        for (s, o) in out[..n].iter_mut().enumerate() {
            if self.origin[s] != NONE && self.mask[s] != 0 {
                *o = self.mask[s].trailing_zeros() as u8;
            }
        }
        out
    }

    /// The game `game` with every identity this player cannot see drawn from these
    /// beliefs, and its pieces renumbered from what the player knows (see
    /// [`Game::determinize`]). `game` must be the game these beliefs are about; only its
    /// public parts (occupancy, turn, counters, actions) are used.
    ///
    /// Fails if the beliefs are about another rule set or another game (pieces on other
    /// points), or are inconsistent.
    pub fn determinize(&self, game: &Game, seed: u64) -> Result<Game, SampleError> {
        self.determinize_by(game, seed, |rng, types| self.sample_into(rng, types))
    }

    /// [`Beliefs::determinize`] with the identities drawn by `draw` (a sampler of these
    /// beliefs).
    pub(crate) fn determinize_by(
        &self,
        game: &Game,
        seed: u64,
        draw: impl FnOnce(&mut Rng, &mut [u8; MAX_PIECES]) -> bool,
    ) -> Result<Game, SampleError> {
        self.check_about(game.position())?;
        let mut types = [NONE; MAX_PIECES];
        if !draw(&mut Rng::new(seed), &mut types) {
            return Err(SampleError::Inconsistent);
        }
        let position = self.rebuild(game.position(), &types);
        let rules = self.rules.clone();
        let sides = rules.sides();
        let deals = rules.deals();
        let decode = |t: u8| (sides[t as usize / 32], PieceKind::ALL[t as usize % 32]);
        // The record: drawn setups (or deal), then the actions as played.
        let board = rules.board();
        let mut entries = Vec::with_capacity(game.entries().len());
        if let Some(Entry::Start(_)) = game.entries().first() {
            // A started game: the sample starts from the sampled position itself (its
            // true start would tell what the player has not seen), with no log before.
            let start = Entry::Start(position.position_string());
            return Ok(Game::from_parts(position, seed, vec![start], Default::default(), Default::default()));
        }
        if deals {
            let mut deal: Vec<(Point, Side, PieceKind)> = (0..MAX_PIECES)
                .filter(|&s| self.origin[s] != NONE)
                .map(|s| {
                    let (o, k) = decode(types[s]);
                    (self.slot_origin(s), o, k)
                })
                .collect();
            deal.sort();
            entries.push(Entry::Deal(deal));
        }
        for e in game.entries() {
            match e {
                Entry::Deal(_) => {}
                Entry::Deploy(side, _) => {
                    let idx = sides.iter().position(|s| s == side).expect("a deployed side plays");
                    let mut setup = Setup::new();
                    for i in 0..rules.army_size() {
                        let s = idx * rules.army_size() + i;
                        if self.origin[s] == NONE || types[s] == NONE {
                            return Err(SampleError::OtherGame);
                        }
                        setup.place(board.name_of(self.slot_origin(s)), decode(types[s]).1.id());
                    }
                    entries.push(Entry::Deploy(*side, Arc::new(setup)));
                }
                other => entries.push(other.clone()),
            }
        }
        let mut logs: [Vec<crate::referee::Event>; 4] = Default::default();
        logs[self.player as usize] = game.events(self.player).to_vec();
        let mut plies: [Vec<u32>; 4] = Default::default();
        plies[self.player as usize] = game.event_plies(self.player).to_vec();
        // The game's seed is the referee's (it rebuilds a 翻棋 deal): the sample's own
        // seed stands in for it.
        Ok(Game::from_parts(position, seed, entries, logs, plies))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// South's beliefs reduced to a hand-made problem: slot `s` has candidate types
    /// `masks[s]`, type `t` occurs `counts[t]` times.
    fn problem(masks: &[u128], counts: &[u8]) -> Beliefs {
        let mut b = Beliefs::new(RuleSet::preset("classic").unwrap(), Side::South, None).unwrap();
        b.counts = [0; 128];
        b.types = 0;
        for (t, &n) in counts.iter().enumerate() {
            b.counts[t] = n;
            b.types |= 1 << t;
        }
        for (s, &m) in masks.iter().enumerate() {
            b.mask[s] = m;
            b.origin[s] = s as u8;
        }
        b.slots = masks.len() as u8;
        b
    }

    /// Draws one assignment and checks it: every slot in use gets one of its candidates,
    /// no type more often than it occurs, unused slots nothing.
    fn draw(b: &Beliefs, seed: u64) -> [u8; MAX_PIECES] {
        let mut out = [0; MAX_PIECES];
        assert!(b.sample_into(&mut Rng::new(seed), &mut out), "seed {seed}");
        let mut used = [0u8; 128];
        for (s, &t) in out.iter().enumerate() {
            if s >= b.slots as usize {
                assert_eq!(t, NONE);
                continue;
            }
            assert!(b.mask[s] >> t & 1 == 1, "seed {seed}: slot {s} drew {t}");
            used[t as usize] += 1;
            assert!(used[t as usize] <= b.counts[t as usize], "seed {seed}: type {t} drawn too often");
        }
        out
    }

    #[test]
    fn a_problem_the_draws_nearly_always_fail_is_completed_by_the_matching() {
        // Sixty pieces in a ring, piece i of type i or i + 1: only the two rotations fit,
        // and a draw that picks at random fails unless every free pick turns the same way.
        let n = 60;
        let masks: Vec<u128> = (0..n).map(|i| 1 << i | 1 << ((i + 1) % n)).collect();
        let b = problem(&masks, &[1; 60]);
        for seed in 0..8 {
            let out = draw(&b, seed);
            let turn = out[0] as usize;
            assert!((0..n).all(|i| out[i] as usize == (i + turn) % n), "a rotation");
        }
    }

    #[test]
    fn draws_are_count_weighted_and_uniform_without_constraints() {
        // Three pieces that may be anything, type 0 twice and type 1 once: the three
        // assignments are equally likely.
        let b = problem(&[0b11, 0b11, 0b11], &[2, 1]);
        let mut seen = [0u32; 3];
        for seed in 0..3000 {
            let out = draw(&b, seed);
            let one = (0..3).find(|&s| out[s] == 1).unwrap();
            seen[one] += 1;
        }
        // 1000 each expected, standard deviation 26.
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
        // Piece 0 is type 0 or 1; pieces 1 and 2 also type 2; one of each type. Of the
        // four assignments, two give piece 0 each type.
        let b = problem(&[0b011, 0b111, 0b111], &[1, 1, 1]);
        let zeros = (0..2000).filter(|&seed| draw(&b, seed)[0] == 0).count();
        assert!((850..1150).contains(&zeros), "{zeros} of 2000");
    }

    #[test]
    fn inconsistent_beliefs_draw_nothing() {
        let mut b = problem(&[0b01, 0b01], &[1, 1]);
        b.consistent = false;
        assert!(!b.sample_into(&mut Rng::new(1), &mut [NONE; MAX_PIECES]));
        assert!(b.sample(1).is_none());
    }

    #[test]
    fn the_first_candidates_are_each_piece_s_lowest_type() {
        let b = problem(&[0b0110, 0b1000, 0b1111], &[1, 1, 1, 1]);
        let fill = b.first_candidates();
        assert_eq!(&fill[..4], &[1, 3, 0, NONE]);
        assert!(fill[3..].iter().all(|&t| t == NONE));
    }
}
