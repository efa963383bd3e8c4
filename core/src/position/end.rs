//! Turns and endings: passing the turn, the draw rule, time-outs, resignation,
//! eliminations and the result.

use crate::piece::{Side, SideSet};

use super::{Eliminations, EndReason, GameResult, Phase, PlayError, Position, TimeoutOutcome};

/// The players one action puts out, with why, each once (at most four).
#[derive(Clone, Copy, Debug)]
pub(super) struct Losers {
    list: [(Side, EndReason); 4],
    len: usize,
}

impl Default for Losers {
    fn default() -> Self {
        Losers { list: [(Side::South, EndReason::FlagCaptured); 4], len: 0 }
    }
}

impl Losers {
    /// Adds a player (if any, and not listed yet).
    pub(super) fn push(&mut self, player: Option<Side>, reason: EndReason) {
        let Some(player) = player else { return };
        if self.len < self.list.len() && self.as_slice().iter().all(|(s, _)| *s != player) {
            self.list[self.len] = (player, reason);
            self.len += 1;
        }
    }

    /// The players in the order they were added.
    pub(super) fn as_slice(&self) -> &[(Side, EndReason)] {
        &self.list[..self.len]
    }
}

impl Position {
    /// `side` resigns and is out. With two sides (or when its team is then beaten)
    /// the game ends; otherwise its pieces leave the board and play goes on.
    pub fn resign(&mut self, side: Side) -> Result<(Eliminations, Option<GameResult>), PlayError> {
        if self.phase == Phase::Over {
            return Err(PlayError::GameOver);
        }
        if !self.rules.sides().contains(&side) || self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        self.check_resign_allowed()?;
        let mut report = Eliminations::default();
        if self.phase == Phase::Reaction {
            // The pending evasion step lapses: the submarine stays.
            self.finish_reaction(&mut report);
            if self.phase == Phase::Over || self.out.contains(side) {
                return Ok((report, self.result));
            }
        }
        let was_to_act = self.to_act() == Some(side);
        if self.eliminate(side, EndReason::Resignation, &mut report) {
            self.no_capture = 0;
        }
        if self.phase == Phase::Move && was_to_act {
            self.advance_turn();
            self.settle_turn(&mut report);
        } else if self.phase == Phase::Deploy {
            self.start_if_deployed();
        }
        Ok((report, self.result))
    }

    /// Whether `side` may offer or accept a draw: only sides still in play decide one.
    /// A side that is out (四国: resigned, beaten, timed out) or not in the game is
    /// refused with [`PlayError::NotPlaying`]; a finished game with
    /// [`PlayError::GameOver`]; draws are decided in play, so while sides deploy with
    /// [`PlayError::NotMovePhase`]. A draw is agreed ([`Position::agree_draw`]) when every
    /// team still in play agrees; an offer by a side that goes out lapses.
    pub fn may_decide_draw(&self, side: Side) -> Result<(), PlayError> {
        match self.phase {
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Move | Phase::Reaction => {}
        }
        if !self.rules.sides().contains(&side) || self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        Ok(())
    }

    /// Ends the game in a draw by agreement (of the sides still in play: see
    /// [`Position::may_decide_draw`], which the caller asks for each side that agrees).
    pub fn agree_draw(&mut self) -> Result<GameResult, PlayError> {
        match self.phase {
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Move | Phase::Reaction => {}
        }
        self.finish(SideSet::EMPTY, EndReason::Agreement);
        Ok(self.result.expect("just finished"))
    }

    /// The referee's time-out for the side to act: the turn passes; with
    /// `max_timeouts`, a side that reaches it is out.
    pub fn time_out(&mut self) -> Result<TimeoutOutcome, PlayError> {
        match self.phase {
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Move | Phase::Reaction => {}
        }
        if self.phase == Phase::Reaction {
            // The reacting player let its time run out: the submarine stays.
            let side = self.to_act().expect("a reaction names a player");
            let count = &mut self.timeouts[side as usize];
            *count = count.saturating_add(1);
            let count = *count;
            let mut eliminated = Eliminations::default();
            if self.rules.options().max_timeouts.is_some_and(|m| count >= m) {
                self.react_removed |= self.eliminate(side, EndReason::Timeouts, &mut eliminated);
            }
            if self.phase == Phase::Reaction {
                self.finish_reaction(&mut eliminated);
            }
            return Ok(TimeoutOutcome { side, count, eliminated, result: self.result });
        }
        let side = self.rules.sides()[self.turn as usize];
        let count = &mut self.timeouts[side as usize];
        *count = count.saturating_add(1);
        let count = *count;
        let mut eliminated = Eliminations::default();
        let mut removed = false;
        if self.rules.options().max_timeouts.is_some_and(|m| count >= m) {
            removed = self.eliminate(side, EndReason::Timeouts, &mut eliminated);
        }
        self.end_turn(removed, &mut eliminated);
        Ok(TimeoutOutcome {
            side,
            count,
            eliminated,
            result: self.result,
        })
    }

    /// Puts `side` out. If the game goes on, its pieces leave the board (and the
    /// elimination is reported); if this decides the game, the board stays as it is.
    /// Returns whether pieces left the board.
    pub(super) fn eliminate(&mut self, side: Side, reason: EndReason, report: &mut Eliminations) -> bool {
        self.eliminate_together(&[(side, reason)], report)
    }

    /// Puts out every player one action eliminates, all at once: they leave together,
    /// then the game is decided. When nobody is left — one action ended the game for
    /// both sides — it is a draw ([`EndReason::MutualElimination`]), whatever the
    /// sides are called. If the game goes on, their pieces leave the board and each
    /// elimination is reported. Returns whether pieces left the board.
    pub(super) fn eliminate_together(&mut self, losers: &[(Side, EndReason)], report: &mut Eliminations) -> bool {
        let mut fresh = Losers::default();
        for &(side, reason) in losers {
            if !self.out.contains(side) {
                fresh.push(Some(side), reason);
            }
        }
        let fresh = fresh.as_slice();
        let Some(&(_, first_reason)) = fresh.first() else {
            return false;
        };
        for &(side, _) in fresh {
            self.out = self.out.with(side);
        }
        let mut alive = self.rules.sides().iter().copied().filter(|s| !self.out.contains(*s));
        match alive.next() {
            None => {
                let reason = if fresh.len() > 1 { EndReason::MutualElimination } else { first_reason };
                self.finish(SideSet::EMPTY, reason);
                return false;
            }
            Some(first) => {
                let team = self.rules.team_of(first);
                if alive.all(|s| team.contains(s)) {
                    // The reason the (last) beaten side went out.
                    let reason = fresh.iter().find(|(s, _)| !team.contains(*s)).map_or(first_reason, |l| l.1);
                    self.finish(team, reason);
                    return false;
                }
            }
        }
        let mut removed = false;
        for &(side, reason) in fresh {
            report.push(side, reason);
            let Some(army) = self.armies[side as usize] else { continue };
            // Face-down pieces (翻棋) stay face down: nobody may learn which of them
            // were this army's. Flipped later, such a piece stays where it is, face up,
            // commanded by nobody.
            for p in self.occ[army as usize].minus(self.hidden).iter() {
                let id = self.cells[p.index()];
                self.remove(id);
                removed = true;
            }
        }
        removed
    }

    /// After an action: count the ply, apply the draw rule, pass the turn to the next
    /// side still in, and put out every side that has no legal move on its turn.
    pub(super) fn end_turn(&mut self, removed: bool, report: &mut Eliminations) {
        self.ply += 1;
        self.no_capture = if removed { 0 } else { self.no_capture + 1 };
        if self.phase == Phase::Over {
            return;
        }
        let limit = self.rules.options().no_capture_draw_plies;
        if limit > 0 && self.no_capture >= limit {
            self.finish(SideSet::EMPTY, EndReason::NoCaptureLimit);
            return;
        }
        self.advance_turn();
        self.settle_turn(report);
    }

    /// Puts out sides to act with no legal move until one has a move or the game ends.
    pub(super) fn settle_turn(&mut self, report: &mut Eliminations) {
        while self.phase == Phase::Move {
            let side = self.rules.sides()[self.turn as usize];
            if self.has_legal_move(side) {
                return;
            }
            if self.eliminate(side, EndReason::NoLegalMove, report) {
                self.no_capture = 0;
            }
            if self.phase == Phase::Move {
                self.advance_turn();
            }
        }
    }

    pub(super) fn advance_turn(&mut self) {
        let n = self.rules.sides().len();
        for _ in 0..n {
            self.turn = ((self.turn as usize + 1) % n) as u8;
            if !self.out.contains(self.rules.sides()[self.turn as usize]) {
                return;
            }
        }
    }

    pub(super) fn finish(&mut self, winners: SideSet, reason: EndReason) {
        self.phase = Phase::Over;
        self.result = Some(GameResult { winners, reason });
    }

    /// The side to move is out if it has no legal move.
    pub(super) fn check_stalemate(&mut self) {
        let mut ignored = Eliminations::default();
        self.settle_turn(&mut ignored);
    }
}
