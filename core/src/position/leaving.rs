//! Players leaving a game: the minimum number of plies before a resignation
//! (`min_plies_before_resign`) and escapes (a player who leaves mid-game,
//! docs/sources.md#qq-escape), which the referee records as an ending of their own.

use crate::piece::{Side, SideSet};

use super::{EndReason, GameResult, Phase, PlayError, Position};

impl Position {
    /// Refuses a resignation before `min_plies_before_resign` plies have been played
    /// (docs/sources.md#qq-resign: "20 步之内不允许投降").
    pub(super) fn check_resign_allowed(&self) -> Result<(), PlayError> {
        let min = self.rules.options().min_plies_before_resign;
        if self.ply < min {
            return Err(PlayError::TooEarlyToResign { ply: self.ply, min });
        }
        Ok(())
    }

    /// `side` escapes (leaves the game): the game ends at once (docs/sources.md#qq-escape,
    /// "有人逃跑时，本局必须结束").
    ///
    /// - If the escaper has no partner still in the game (two players, or a partner
    ///   already out), the other sides still in — and their team — win.
    /// - If a partner of the escaper is still in, nobody wins: the game ends with no
    ///   winner ("双方不计分", nobody scores).
    ///
    /// The reason is [`EndReason::Escape`] either way. Allowed in any phase but the end.
    ///
    /// ```
    /// use junqi::{EndReason, Position, RuleSet, Side};
    /// let mut pos = Position::random_start(RuleSet::preset("classic").unwrap(), 1);
    /// let result = pos.escape(Side::North).unwrap();
    /// assert_eq!(result.winner(), Some(Side::South));
    /// assert_eq!(result.reason, EndReason::Escape);
    /// ```
    pub fn escape(&mut self, side: Side) -> Result<GameResult, PlayError> {
        if self.phase == Phase::Over {
            return Err(PlayError::GameOver);
        }
        if !self.rules.sides().contains(&side) || self.out.contains(side) {
            return Err(PlayError::NotPlaying(side));
        }
        let team = self.rules.team_of(side);
        let sides = self.rules.sides().to_vec();
        let partner_in = sides
            .iter()
            .any(|&s| s != side && team.contains(s) && !self.out.contains(s));
        self.out = self.out.with(side);
        let winners = if partner_in {
            SideSet::EMPTY
        } else {
            sides
                .iter()
                .filter(|&&s| !team.contains(s) && !self.out.contains(s))
                .fold(SideSet::EMPTY, |acc, &s| {
                    let mut acc = acc;
                    for t in self.rules.team_of(s).iter() {
                        acc = acc.with(t);
                    }
                    acc
                })
        };
        self.react = super::NO_PIECE;
        self.finish(winners, EndReason::Escape);
        Ok(self.result.expect("just finished"))
    }
}
