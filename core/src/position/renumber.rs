//! Renumbering a position's pieces (for determinization): piece ids are referee
//! knowledge — in 翻棋 they follow the deal's armies — so a sampled position numbers its
//! pieces from what its player knows instead (its belief slots).

use super::{Position, Slot, NO_PIECE, NO_SLOT, OFF_BOARD};
use crate::board::{Point, PointSet, MAX_POINTS};
use crate::piece::{PieceKind, Side};

/// One piece of a renumbered position: where it stands (`None` off the board), its
/// owner and kind, and who knows it (bit `Side as usize`).
pub(crate) type Renumbered = (Option<Point>, Side, PieceKind, u8);

impl Position {
    /// A copy whose piece table is rebuilt: `piece(id)` gives the piece with new id `id`
    /// (for `id` in `0..n`; `None` for an unused id). Every field keyed by piece id —
    /// cells, slots, occupancy by side and arm, knowledge, the obliged plane, the pending
    /// reaction — is rebuilt from it; the public rest (turn, phase, counters, face-down
    /// points, armies, eliminations, result) is kept. The pieces given must stand on
    /// exactly the occupied points of `self`; the obliged plane and the reacting
    /// submarine are followed by their points.
    pub(crate) fn renumbered(&self, n: usize, piece: impl Fn(usize) -> Option<Renumbered>) -> Position {
        let mut pos = self.clone();
        pos.cells = [NO_PIECE; MAX_POINTS];
        pos.slots = [NO_SLOT; super::MAX_PIECES];
        pos.occ = [PointSet::EMPTY; 4];
        pos.arm_occ = [PointSet::EMPTY; 3];
        pos.known = [0; 4];
        for id in 0..n.min(super::MAX_PIECES) {
            let Some((at, owner, kind, knows)) = piece(id) else { continue };
            pos.slots[id] = Slot {
                kind,
                owner,
                at: at.map_or(OFF_BOARD, |p| p.0),
            };
            if let Some(p) = at {
                pos.cells[p.index()] = id as u8;
                pos.occ[owner as usize].insert(p);
                pos.arm_occ[kind.arm() as usize].insert(p);
            }
            for s in 0..4 {
                if knows >> s & 1 == 1 {
                    pos.known[s] |= 1u128 << id;
                }
            }
        }
        let follow = |old: u8| -> u8 {
            if old == NO_PIECE || self.slots[old as usize].at == OFF_BOARD {
                return NO_PIECE;
            }
            pos.cells[self.slots[old as usize].at as usize]
        };
        let obliged = self.obliged.map(follow);
        let react = follow(self.react);
        pos.obliged = obliged;
        pos.react = react;
        debug_assert!(pos.cells.iter().zip(self.cells.iter()).all(|(a, b)| (*a == NO_PIECE) == (*b == NO_PIECE)));
        pos
    }

    /// Gives piece `id` of a renumbered position (see [`Position::renumbered`]) another
    /// owner, kind and knowers, where it stands: the piece table changed in place for
    /// one piece, as [`Position::renumbered`] would have built it.
    pub(crate) fn reassign(&mut self, id: usize, owner: Side, kind: PieceKind, knows: u8) {
        let old = self.slots[id];
        if old.at != OFF_BOARD {
            let p = Point(old.at);
            self.occ[old.owner as usize].remove(p);
            self.arm_occ[old.kind.arm() as usize].remove(p);
            self.occ[owner as usize].insert(p);
            self.arm_occ[kind.arm() as usize].insert(p);
        }
        self.slots[id] = Slot { kind, owner, at: old.at };
        for s in 0..4 {
            if knows >> s & 1 == 1 {
                self.known[s] |= 1u128 << id;
            } else {
                self.known[s] &= !(1u128 << id);
            }
        }
    }

}
