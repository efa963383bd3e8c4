//! The count propagation: exact filtering of candidate sets against an army's
//! composition (a global cardinality constraint).
//!
//! Pieces on one side, types (army, kind) with their counts on the other: an assignment
//! of kinds to pieces that respects every candidate set and every count is a perfect
//! b-matching. A candidate type `t` of piece `i` survives exactly when some perfect
//! matching gives `t` to `i`: in the residual graph of one perfect matching (piece → each
//! other candidate type, type → each piece matched to it), that is when `i` and `t` lie
//! in one strongly connected component (an alternating cycle moves `i` onto `t`; Régin
//! 1996). Pieces whose kind is already fixed only use up their type's count.
//!
//! Types are few (one army's kinds; both armies' in 翻棋), so the components are found
//! on the types alone: type `a` leads to type `b` when a piece matched to `a` may be a
//! `b` instead, and `t` is in `i`'s component exactly when `t` leads back to the type
//! `i` is matched to (the only way into `i`). The transitive closure of that graph is
//! a few bit-parallel passes (Warshall's algorithm over one machine word per type).
//!
//! A group's types span at most 64 bits except in a four-army deal, so the work is
//! done in `u64` words when they fit (one instruction per set operation) and in
//! `u128` otherwise: one generic code path over [`Word`].

use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

use crate::limits::MAX_PIECES;

const NONE: u8 = u8::MAX;

/// A set of types as the bits of one word (`u64` or `u128`).
pub(super) trait Word:
    Copy + Eq + BitAnd<Output = Self> + BitOr<Output = Self> + BitOrAssign + Not<Output = Self>
{
    const ZERO: Self;
    /// The set of type `i` alone.
    fn bit(i: usize) -> Self;
    /// The low bits of `x` (which must fit).
    fn of(x: u128) -> Self;
    fn wide(self) -> u128;
    fn lowest(self) -> usize;
    fn single(self) -> bool;
    fn has(self, i: usize) -> bool;
    /// The set without its lowest type.
    fn rest(self) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const ZERO: Self = 0;
            #[inline]
            fn bit(i: usize) -> Self {
                1 << i
            }
            #[inline]
            fn of(x: u128) -> Self {
                x as $t
            }
            #[inline]
            fn wide(self) -> u128 {
                self as u128
            }
            #[inline]
            fn lowest(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline]
            fn single(self) -> bool {
                self != 0 && self & (self - 1) == 0
            }
            #[inline]
            fn has(self, i: usize) -> bool {
                self >> i & 1 == 1
            }
            #[inline]
            fn rest(self) -> Self {
                self & (self - 1)
            }
        }
    };
}
word!(u64);
word!(u128);

/// The types of a set, lowest first.
fn each<W: Word>(mut m: W) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != W::ZERO).then(|| {
            let t = m.lowest();
            m = m.rest();
            t
        })
    })
}

/// Kuhn's augmenting path for a b-matching: gives piece `i` a type, moving matched
/// pieces along the way; `visited` holds the types already tried.
pub(super) fn augment<W: Word>(
    i: usize,
    cand: &[W],
    matched: &mut [u8],
    load: &mut [u8],
    cap: &[u8],
    visited: &mut W,
) -> bool {
    // A candidate type with room left takes the piece at once: most calls end here,
    // without moving other pieces.
    for t in each(cand[i] & !*visited) {
        if load[t] < cap[t] {
            *visited |= W::bit(t);
            take(i, t, matched, load);
            return true;
        }
    }
    // Every candidate type is full: move a piece matched to one of them elsewhere.
    for t in each(cand[i] & !*visited) {
        if visited.has(t) {
            continue;
        }
        *visited |= W::bit(t);
        for j in 0..cand.len() {
            if j != i && matched[j] as usize == t && augment(j, cand, matched, load, cap, visited) {
                take(i, t, matched, load);
                return true;
            }
        }
    }
    false
}

fn take(i: usize, t: usize, matched: &mut [u8], load: &mut [u8]) {
    if matched[i] != NONE {
        load[matched[i] as usize] -= 1;
    }
    matched[i] = t as u8;
    load[t] += 1;
}

/// Filters the candidates of the pieces in one group (`range`: the types of the group)
/// to those some full assignment uses. Only slots `0..slots` are looked at. Returns false
/// if no assignment exists (then the candidates are left as they were). When the pieces
/// are fewer than the counts (an army not all in play), an assignment may leave types
/// short.
pub(super) fn filter(
    mask: &mut [u128; MAX_PIECES],
    origin: &[u8; MAX_PIECES],
    counts: &[u8; 128],
    range: u128,
    slots: usize,
) -> bool {
    if range == 0 {
        return true;
    }
    // Type `base + t` is bit `t` of a word.
    let base = range.trailing_zeros() as usize;
    if 128 - range.leading_zeros() as usize - base <= 64 {
        filter_in::<u64>(mask, origin, counts, range, slots, base)
    } else {
        filter_in::<u128>(mask, origin, counts, range, slots, 0)
    }
}

fn filter_in<W: Word>(
    mask: &mut [u128; MAX_PIECES],
    origin: &[u8; MAX_PIECES],
    counts: &[u8; 128],
    range: u128,
    slots: usize,
    base: usize,
) -> bool {
    let types = W::of(range >> base);
    let mut cap = [0u8; 128];
    for t in each(types) {
        cap[t] = counts[base + t];
    }
    // Fixed pieces use up their type; the others are matched.
    let mut free = [0u8; MAX_PIECES];
    let mut cand = [W::ZERO; MAX_PIECES];
    let mut np = 0;
    for s in 0..slots.min(MAX_PIECES) {
        let m = mask[s] & range;
        if origin[s] == NONE || m == 0 {
            continue;
        }
        let c = W::of(m >> base);
        if c.single() {
            let t = c.lowest();
            if cap[t] == 0 {
                return false;
            }
            cap[t] -= 1;
        } else {
            free[np] = s as u8;
            cand[np] = c;
            np += 1;
        }
    }
    if np == 0 {
        return true;
    }
    let mut matched = [NONE; MAX_PIECES];
    let mut load = [0u8; 128];
    for i in 0..np {
        let mut visited = W::ZERO;
        if !augment(i, &cand[..np], &mut matched[..np], &mut load, &cap, &mut visited) {
            return false;
        }
    }
    // Which types lead to which (reflexive and transitive), and which have room left
    // (none when the army's pieces are all in play: a piece may then also move onto a
    // type whose path ends in room).
    let mut reach = [W::ZERO; 128];
    for t in each(types) {
        reach[t] = W::bit(t);
    }
    for i in 0..np {
        reach[matched[i] as usize] |= cand[i];
    }
    for k in each(types) {
        let (bit, row) = (W::bit(k), reach[k]);
        for t in each(types) {
            if reach[t] & bit != W::ZERO {
                reach[t] |= row;
            }
        }
    }
    let mut room = W::ZERO;
    for t in each(types) {
        if load[t] < cap[t] {
            room |= W::bit(t);
        }
    }
    for i in 0..np {
        let home = W::bit(matched[i] as usize);
        let mut keep = W::ZERO;
        for t in each(cand[i]) {
            if reach[t] & (home | room) != W::ZERO {
                keep |= W::bit(t);
            }
        }
        let s = free[i] as usize;
        mask[s] = (mask[s] & !range) | keep.wide() << base;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(masks: &[u128], counts: &[(usize, u8)]) -> Option<Vec<u128>> {
        let mut mask = [0u128; MAX_PIECES];
        let mut origin = [NONE; MAX_PIECES];
        for (i, m) in masks.iter().enumerate() {
            mask[i] = *m;
            origin[i] = i as u8;
        }
        let mut c = [0u8; 128];
        let mut range = 0u128;
        for &(t, n) in counts {
            c[t] = n;
            range |= 1 << t;
        }
        filter(&mut mask, &origin, &c, range, masks.len()).then(|| mask[..masks.len()].to_vec())
    }

    #[test]
    fn hall_sets_force_the_rest() {
        // Types 0, 1, 2 once each. Pieces 0 and 1 may only be 0 or 1: so piece 2, which
        // might be anything, must be 2 (Hall: two pieces, two types).
        let out = run(&[0b011, 0b011, 0b111], &[(0, 1), (1, 1), (2, 1)]).unwrap();
        assert_eq!(out, vec![0b011, 0b011, 0b100]);
    }

    #[test]
    fn used_up_kinds_are_removed() {
        // Type 0 twice, type 1 once; two pieces known to be 0: the third is 1.
        let out = run(&[0b01, 0b01, 0b11], &[(0, 2), (1, 1)]).unwrap();
        assert_eq!(out[2], 0b10);
    }

    #[test]
    fn counts_with_multiplicity() {
        // Type 0 twice, type 1 twice. Pieces 0, 1 can be {0,1}; pieces 2, 3 only {1}:
        // then 0 and 1 are both type 0.
        let out = run(&[0b11, 0b11, 0b10, 0b11], &[(0, 2), (1, 2)]).unwrap();
        assert_eq!(out, vec![0b11, 0b11, 0b10, 0b11]);
        let out = run(&[0b11, 0b11, 0b10, 0b10], &[(0, 2), (1, 2)]).unwrap();
        assert_eq!(out, vec![0b01, 0b01, 0b10, 0b10]);
    }

    #[test]
    fn contradictions_are_found() {
        assert!(run(&[0b01, 0b01], &[(0, 1), (1, 1)]).is_none());
        assert!(run(&[0b10, 0b10, 0b11], &[(0, 2), (1, 1)]).is_none());
    }

    /// Brute force: the filter keeps exactly the candidates some assignment uses.
    #[test]
    fn filter_is_exact_on_small_cases() {
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..2000 {
            let nt = 1 + rng.below(4);
            let mut counts = Vec::new();
            let mut multiset = Vec::new();
            for t in 0..nt {
                let n = 1 + rng.below(2) as u8;
                counts.push((t, n));
                multiset.extend(std::iter::repeat_n(t, n as usize));
            }
            // Now and then one piece fewer than the counts: types may be left short.
            let np = multiset.len() - usize::from(multiset.len() > 1 && rng.below(3) == 0);
            // Candidate sets are never empty (an empty one is refused before it is stored).
            let masks: Vec<u128> = (0..np).map(|_| (1 + rng.below((1 << nt) - 1)) as u128).collect();
            // Every assignment: permutations of the multiset.
            let mut possible = vec![0u128; np];
            let mut any = false;
            let mut perm = multiset.clone();
            permutations(&mut perm, 0, &mut |p| {
                let p = &p[..np];
                if p.iter().zip(&masks).all(|(t, m)| m >> t & 1 == 1) {
                    any = true;
                    for (i, t) in p.iter().enumerate() {
                        possible[i] |= 1 << t;
                    }
                }
            });
            let got = run(&masks, &counts);
            // The same problem with the types spread over 128 bits (the `u128` words
            // of a four-army deal) gives the same answer, spread alike.
            let spread = |m: u128| (0..nt).filter(|t| m >> t & 1 == 1).fold(0u128, |a, t| a | 1 << (t * 41));
            let wide = run(
                &masks.iter().map(|&m| spread(m)).collect::<Vec<_>>(),
                &counts.iter().map(|&(t, n)| (t * 41, n)).collect::<Vec<_>>(),
            );
            assert_eq!(wide, got.as_ref().map(|v| v.iter().map(|&m| spread(m)).collect::<Vec<_>>()));
            if any {
                assert_eq!(got.as_deref(), Some(&possible[..]), "masks {masks:?} counts {counts:?}");
            } else {
                assert!(got.is_none(), "masks {masks:?} counts {counts:?}");
            }
        }
    }

    #[test]
    fn a_piece_keeps_a_type_with_room_left() {
        // Type 0 twice, types 1 and 2 once; three pieces, so one type is left short.
        // Pieces 1 and 2 take types 1 and 2 between them, so piece 0 is type 0, whose
        // room (a second type 0 nobody is) is the only room left.
        let out = run(&[0b011, 0b110, 0b110], &[(0, 2), (1, 1), (2, 1)]).unwrap();
        assert_eq!(out, vec![0b001, 0b110, 0b110]);
    }

    /// Brute force with fewer pieces than the counts (an army not all in play) and
    /// counts up to 3: the filter keeps exactly the candidates some assignment uses.
    #[test]
    fn filter_is_exact_with_pieces_short_of_the_counts() {
        fn assign(masks: &[u128], left: &mut [u8], i: usize, now: &mut Vec<usize>, possible: &mut [u128]) -> bool {
            if i == masks.len() {
                for (j, &t) in now.iter().enumerate() {
                    possible[j] |= 1 << t;
                }
                return true;
            }
            let mut any = false;
            for t in 0..left.len() {
                if masks[i] >> t & 1 == 1 && left[t] > 0 {
                    left[t] -= 1;
                    now.push(t);
                    any |= assign(masks, left, i + 1, now, possible);
                    now.pop();
                    left[t] += 1;
                }
            }
            any
        }
        let mut rng = crate::rng::Rng::new(9);
        for _ in 0..3000 {
            let nt = 1 + rng.below(4);
            let counts: Vec<(usize, u8)> = (0..nt).map(|t| (t, 1 + rng.below(3) as u8)).collect();
            let total: usize = counts.iter().map(|&(_, n)| n as usize).sum();
            let np = 1 + rng.below(total.min(6));
            let masks: Vec<u128> = (0..np).map(|_| (1 + rng.below((1 << nt) - 1)) as u128).collect();
            let mut left: Vec<u8> = counts.iter().map(|&(_, n)| n).collect();
            let mut possible = vec![0u128; np];
            let any = assign(&masks, &mut left, 0, &mut Vec::new(), &mut possible);
            let got = run(&masks, &counts);
            if any {
                assert_eq!(got.as_deref(), Some(&possible[..]), "masks {masks:?} counts {counts:?}");
            } else {
                assert!(got.is_none(), "masks {masks:?} counts {counts:?}");
            }
        }
    }

    fn permutations(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for i in k..v.len() {
            v.swap(k, i);
            permutations(v, k + 1, f);
            v.swap(k, i);
        }
    }
}
