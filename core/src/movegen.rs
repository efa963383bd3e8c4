//! Move generation: where a piece may go, by road steps and railway runs.
//!
//! Legality uses only the board, occupancy and owners (public) and the mover's own
//! piece kind — never an enemy identity (rules/referee.md, principle 1).

use crate::board::{Point, Role};
use crate::position::Position;
use crate::rules::Mobility;

/// A set of target points (one bit per point).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Targets([u64; 4]);

impl Targets {
    #[inline]
    fn insert(&mut self, p: Point) {
        self.0[p.index() >> 6] |= 1 << (p.index() & 63);
    }

    #[inline]
    pub(crate) fn contains(&self, p: Point) -> bool {
        self.0[p.index() >> 6] >> (p.index() & 63) & 1 == 1
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The points in increasing order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Point> {
        self.0.into_iter().enumerate().flat_map(|(w, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    Point((w * 64 + b) as u8)
                })
            })
        })
    }
}

/// Every point the piece on `from` may move to or attack this turn.
pub(crate) fn targets(pos: &Position, from: Point) -> Targets {
    let mut t = Targets::default();
    let Some(me) = pos.slot_at(from) else {
        return t;
    };
    let rules = pos.rules();
    let board = rules.board();
    let opts = rules.options();
    let mobility = rules.mobility(me.kind);
    if mobility == Mobility::Immobile || (opts.hq_locks && board.role(from) == Role::Hq) {
        return t;
    }
    // May the mover end on `q`? Empty, or an enemy piece not sheltered by a camp.
    let enterable = |q: Point| match pos.slot_at(q) {
        None => true,
        Some(s) => s.owner != me.owner && !(opts.camps_protect && board.role(q) == Role::Camp),
    };
    for &q in &board.step[from.index()] {
        if enterable(q) {
            t.insert(q);
        }
    }
    if !matches!(mobility, Mobility::RailStraight | Mobility::RailTurn) || !board.is_railway(from) {
        return t;
    }
    let limit = match (mobility, opts.rail_max_steps) {
        (Mobility::RailTurn, _) | (_, None) => usize::MAX,
        (_, Some(n)) => n as usize,
    };
    if mobility == Mobility::RailTurn || opts.rail_all_turn {
        // Breadth-first over railway edges through empty points.
        let mut seen = Targets::default();
        seen.insert(from);
        let mut queue = [Point(0); 256];
        let (mut head, mut tail) = (0, 0);
        queue[tail] = from;
        tail += 1;
        let mut depth_end = tail;
        let mut depth = 0;
        while head < tail && depth < limit {
            let p = queue[head];
            head += 1;
            for &q in &board.rail[p.index()] {
                if seen.contains(q) {
                    continue;
                }
                seen.insert(q);
                if pos.is_empty_at(q) {
                    t.insert(q);
                    queue[tail] = q;
                    tail += 1;
                } else if enterable(q) {
                    t.insert(q);
                }
            }
            if head == depth_end {
                depth += 1;
                depth_end = tail;
            }
        }
    } else {
        for ray in &board.rays[from.index()] {
            for &q in ray.iter().take(limit) {
                if pos.is_empty_at(q) {
                    t.insert(q);
                } else {
                    if enterable(q) {
                        t.insert(q);
                    }
                    break;
                }
            }
        }
    }
    t
}
