//! The referee's ruling on one attack the mover was allowed to make: the combat table's
//! outcome, adjusted by the rules that depend on identities the mover may not know
//! (shelters, forbidden pairings, the engineer's scouting, the smallest piece digging
//! mines). None of them changes which actions are legal.

use crate::board::Point;
use crate::combat::CombatOutcome;
use crate::piece::{PieceClass, PieceKind};
use crate::rules::{MineDigging, Scouting};

use super::{Position, Slot};

impl Position {
    /// The outcome of piece `att` attacking piece `def` (standing on `def_at`).
    pub(super) fn ruling(&self, att: u8, def: u8, def_at: Point) -> CombatOutcome {
        let rules = &self.rules;
        let a = self.slots[att as usize];
        let d = self.slots[def as usize];
        if self.shielded(def_at) {
            return CombatOutcome::Repel;
        }
        // `engineer_scouts: sacrifice`: the engineer shows the defender to everyone and
        // is spent, unless it digs a mine or takes the flag
        // (docs/sources.md#qa-engineer-scouts).
        if a.kind == PieceKind::Engineer
            && rules.options().engineer_scouts == Scouting::Sacrifice
            && !matches!(d.kind, PieceKind::Mine | PieceKind::Flag)
        {
            return CombatOutcome::Lose;
        }
        // `smallest_digs_mines`: the smallest piece attacks a mine as its stand-in (an
        // engineer digs, a bomb detonates); the table gives the outcome.
        let kind = match rules.options().smallest_digs_mines.stand_in() {
            Some(stand_in) if d.kind == PieceKind::Mine && self.digs_mines(a) => stand_in,
            _ => a.kind,
        };
        match rules.combat_outcome(kind, d.kind) {
            // A pairing the rules forbid, on a kind the mover could not see: repelled.
            CombatOutcome::Illegal => CombatOutcome::Repel,
            o => o,
        }
    }

    /// Whether the piece `a` (not an engineer) attacks mines as its stand-in under
    /// `smallest_digs_mines`: its army has no engineer (and, with
    /// `engineers_and_bombs_gone`, no bomb) on the board, and no officer on the board
    /// ranks lower than it. Face-down pieces (翻棋) count; which kinds an army has left
    /// is public there, since only face-up pieces ever leave the board.
    pub(super) fn digs_mines(&self, a: Slot) -> bool {
        let rules = &self.rules;
        let mode = rules.options().smallest_digs_mines;
        if mode == MineDigging::Off
            || a.kind == PieceKind::Engineer
            || a.kind.class() != PieceClass::Officer
        {
            return false;
        }
        let ranks = &rules.spec().ranks;
        let Some(&mine) = ranks.get(&a.kind) else {
            return false;
        };
        for p in self.occ[a.owner as usize].iter() {
            let k = self.slots[self.cells[p.index()] as usize].kind;
            match k {
                PieceKind::Engineer => return false,
                PieceKind::Bomb if mode == MineDigging::EngineersAndBombsGone => return false,
                _ if k.class() == PieceClass::Officer
                    && ranks.get(&k).is_some_and(|&r| r < mine) =>
                {
                    return false
                }
                _ => {}
            }
        }
        true
    }
}
