//! Beliefs of a game started from a position string: no history, so the player knows
//! what the position says it knows — the identities it was shown, the public arms and
//! owners, which pieces have moved (none of an immobile kind) — and the army counts
//! (pieces off the board are unknown ones). A piece that has not moved stands where it
//! started; where the others started is not known, and the modelled beliefs read no
//! deployment from them.

use super::{Beliefs, FACE_UP, KNOWN, MOVED, NONE, ORIGIN_UNKNOWN, PUBLIC};
use crate::board::{PointSet, MAX_POINTS};
use crate::piece::{Arm, PieceKind, Side};
use crate::limits::MAX_PIECES;
use crate::position::{Phase, Position};
use crate::rules::Mobility;

impl Beliefs {
    /// Replaces every slot with the pieces of `pos` as this player knows them, plus
    /// unknown pieces off the board for those the armies miss (after deployment).
    pub(crate) fn start_from(&mut self, pos: &Position) {
        let rules = self.rules.clone();
        let sides = rules.sides();
        let deals = rules.deals();
        self.mask = [0; MAX_PIECES];
        self.at = [NONE; MAX_PIECES];
        self.origin = [NONE; MAX_PIECES];
        self.flags = [0; MAX_PIECES];
        self.cell = [NONE; MAX_POINTS];
        self.occupied = PointSet::EMPTY;
        self.slots = 0;
        if deals {
            self.army = pos.army_of(self.player);
            self.armies = Side::ALL.map(|s| pos.army_of(s));
        }
        let arm_mask = |b: &Beliefs, range: u128, arm: Arm| b.kinds_where(range, |k: PieceKind| k.arm() == arm);
        let mut next = [0usize; 4];
        let mut dealt = 0usize;
        for p in rules.board().points() {
            let Some((owner, kind)) = pos.piece_at(p) else { continue };
            let idx = sides.iter().position(|s| *s == owner).expect("a position's side plays");
            let slot = if deals {
                dealt += 1;
                dealt - 1
            } else {
                next[idx] += 1;
                idx * rules.army_size() + next[idx] - 1
            };
            let known = pos.knows(self.player, p);
            let mut mask = if known {
                1u128 << (idx * 32 + kind as usize)
            } else if pos.is_face_down(p) {
                arm_mask(self, self.types, kind.arm())
            } else {
                arm_mask(self, self.range(owner), kind.arm())
            };
            if pos.has_moved(p) {
                mask &= self.kinds_where(self.types, |k: PieceKind| rules.mobility(k) != Mobility::Immobile);
            }
            self.place(slot, p, mask);
            if deals && !pos.is_face_down(p) {
                self.flags[slot] |= FACE_UP;
            }
            if pos.has_moved(p) {
                // It moved before the position: where it started is not known.
                self.flags[slot] |= MOVED | ORIGIN_UNKNOWN;
            }
            if known {
                self.flags[slot] |= KNOWN;
                if sides.iter().all(|s| pos.knows(*s, p)) {
                    self.flags[slot] |= PUBLIC;
                }
            }
        }
        if pos.phase() != Phase::Deploy {
            // The pieces off the board: unknown, of their army (any army under a deal).
            let origin = rules.board().points().next().expect("a board has points").0;
            let phantom = |b: &mut Beliefs, slot: usize, mask: u128| {
                b.mask[slot] = mask;
                b.origin[slot] = origin;
                b.flags[slot] |= ORIGIN_UNKNOWN;
                b.slots = b.slots.max(slot as u8 + 1);
            };
            if deals {
                let total = rules.army_size() * sides.len();
                for slot in dealt..total.min(MAX_PIECES) {
                    phantom(self, slot, self.types);
                }
            } else {
                for (idx, side) in sides.iter().enumerate() {
                    for j in next[idx]..rules.army_size() {
                        phantom(self, idx * rules.army_size() + j, self.range(*side));
                    }
                }
            }
        }
        self.dirty = if deals { 1 } else { (1u8 << sides.len()) - 1 };
        self.propagate();
    }
}
