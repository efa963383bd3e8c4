//! The game platform around the rules: surrender, escape, scoring and levels as the QQ
//! 四国军棋 platform describes them (docs/sources.md#qq-rules), and an Elo rating of our
//! own next to the platform's points.
//!
//! The engine enforces what happens inside a game: [`Options::min_plies_before_resign`](crate::Options::min_plies_before_resign)
//! (20 on the platform, see [`Platform::rules`]), `max_timeouts` and the 70-ply draw
//! ([`crate::Options`]), and escapes ([`crate::Game::escape`], [`EndReason::Escape`]).
//! This module scores a finished game: [`Platform::apply`] takes its result, its length
//! in plies and each seat's current points (and rating), and gives each seat's change,
//! new points and [`Level`].
//!
//! Decisions, each from the QQ rules (the passages are quoted in docs/sources.md, at the
//! anchors given):
//! - A *step* (步) is one ply: one action by any player.
//! - A win scores +1 for the winner and −1 for the loser with two players, +2 and −2
//!   per seat with four (docs/sources.md#qq-scoring).
//! - When the game ends within 30 plies (two players) or 40 plies (four), that is at a
//!   ply count ≤ 30 / ≤ 40, the winners score 0 (docs/sources.md#qq-quick-win); the
//!   losers still lose their points (only the winner's gain is named).
//! - A winner with more than 50 points gains nothing if one of its opponents has fewer
//!   than 50 (docs/sources.md#qq-50-points); exactly 50 is neither. Losses are never reduced.
//! - Draws score 0 for everyone (the 70-ply rule, docs/sources.md#qq-no-capture-draw; agreement).
//! - Escapes (docs/sources.md#qq-escape): with no partner of the escaper left in the game the escaper's
//!   opponents win and it is scored as a win; with a partner still in, nobody scores.
//! - Points may go below 0; every level starts at its threshold and negative points are
//!   小兵 (docs/sources.md#qq-levels: the first starts at 0).
//!
//! ```
//! use junqi::platform::{level_for, Platform, Seat};
//! use junqi::{EndReason, GameResult, RuleSet, Side, SideSet};
//! assert_eq!(level_for(160).name, "连长");
//! let rules = RuleSet::preset("classic").unwrap();
//! let result = GameResult { winners: SideSet::single(Side::South), reason: EndReason::FlagCaptured };
//! let seats = [Seat::new(Side::South, 49), Seat::new(Side::North, 10)];
//! let scores = Platform::QQ.apply(&rules, &result, 120, &seats).unwrap();
//! assert_eq!((scores[0].delta, scores[0].points, scores[0].level.name), (1, 50, "排长"));
//! assert_eq!(scores[1].delta, -1);
//! ```

use crate::names::named_enum;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::piece::Side;
use crate::position::{EndReason, GameResult};
use crate::referee::Game;
use crate::rules::{RuleSet, RulesError};

/// One of the platform's 18 levels (docs/sources.md#qq-levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Level {
    /// Its place, 0 (小兵) to 17 (司令).
    pub index: u8,
    /// The Chinese name, e.g. `"排长"`.
    pub name: &'static str,
    /// An English rendering, e.g. `"platoon leader"`.
    pub english: &'static str,
    /// The points from which it is held.
    pub min_points: i64,
}

const fn level(index: u8, name: &'static str, english: &'static str, min_points: i64) -> Level {
    Level {
        index,
        name,
        english,
        min_points,
    }
}

/// The 18 levels in order, with the points from which each is held.
pub const LEVELS: [Level; 18] = [
    level(0, "小兵", "private", 0),
    level(1, "副班长", "deputy squad leader", 10),
    level(2, "正班长", "squad leader", 20),
    level(3, "副排长", "deputy platoon leader", 30),
    level(4, "排长", "platoon leader", 50),
    level(5, "副连长", "deputy company commander", 100),
    level(6, "连长", "company commander", 150),
    level(7, "副营长", "deputy battalion commander", 220),
    level(8, "营长", "battalion commander", 350),
    level(9, "副团长", "deputy regiment commander", 500),
    level(10, "团长", "regiment commander", 750),
    level(11, "副旅长", "deputy brigade commander", 1000),
    level(12, "旅长", "brigade commander", 1550),
    level(13, "副师长", "deputy division commander", 2150),
    level(14, "师长", "division commander", 3150),
    level(15, "副军长", "deputy army commander", 5000),
    level(16, "军长", "army commander", 6350),
    level(17, "司令", "commander", 12750),
];

/// The level held with `points`: the highest whose threshold is reached (小兵 below 0).
///
/// ```
/// use junqi::platform::level_for;
/// assert_eq!(level_for(0).name, "小兵");
/// assert_eq!(level_for(49).name, "副排长");
/// assert_eq!(level_for(12_750).name, "司令");
/// ```
pub fn level_for(points: i64) -> &'static Level {
    LEVELS
        .iter()
        .rev()
        .find(|l| points >= l.min_points)
        .unwrap_or(&LEVELS[0])
}

/// A seat at the end of a game: its side, points and rating before the game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// The side played.
    pub side: Side,
    /// QQ points before the game.
    pub points: i64,
    /// Rating before the game (ours, not the platform's); 1500 for a new player.
    #[serde(default = "default_rating")]
    pub rating: f64,
}

fn default_rating() -> f64 {
    Platform::QQ.initial_rating
}

impl Seat {
    /// A seat with these points and the initial rating.
    pub fn new(side: Side, points: i64) -> Seat {
        Seat {
            side,
            points,
            rating: Platform::QQ.initial_rating,
        }
    }
}

named_enum! {
    /// Which scoring rule decided a seat's change.
    pub enum ScoreRule {
        /// A win, scored in full.
        Win = "win",
        /// A win within 30 plies (two players) or 40 (four): no points.
        QuickWin = "quick_win",
        /// A win by a seat above 50 points against an opponent below 50: no points.
        Protected = "protected",
        /// A loss.
        Loss = "loss",
        /// A draw: no points.
        Draw = "draw",
        /// An escape while the escaper's partner was still in: nobody scores.
        NoScore = "no_score",
    }
}

/// One seat's account of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SeatScore {
    /// The side.
    pub side: Side,
    /// The rule applied.
    pub rule: ScoreRule,
    /// Points before.
    pub points_before: i64,
    /// The change.
    pub delta: i64,
    /// Points after.
    pub points: i64,
    /// The level held after the game.
    pub level: &'static Level,
    /// Rating before.
    pub rating_before: f64,
    /// Rating after.
    pub rating: f64,
}

/// Refuses winners that no game of `rules` can have: every side (nobody lost), or a
/// side without its allies (a team wins whole). A draw names no winner.
fn check_winners(rules: &RuleSet, result: &GameResult) -> Result<(), PlatformError> {
    let names = || {
        let names: Vec<String> = result.winners.iter().map(|s| s.to_string()).collect();
        names.join(" and ")
    };
    if !result.winners.is_empty() && rules.sides().iter().all(|s| result.winners.contains(*s)) {
        return Err(PlatformError::Winners(format!(
            "{} all won: a decided game has a losing side (a draw names no winner)",
            names()
        )));
    }
    for w in result.winners.iter() {
        if let Some(ally) = rules
            .team_of(w)
            .iter()
            .find(|a| !result.winners.contains(*a))
        {
            return Err(PlatformError::Winners(format!(
                "{} won without its ally {ally}: a team wins or loses together",
                w
            )));
        }
    }
    Ok(())
}

/// A finished game that cannot be scored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The game is not over.
    #[error("the game is not over")]
    NotOver,
    /// The seats do not name each side of the rule set exactly once.
    #[error("seats: {0}")]
    Seats(String),
    /// A result no game of the rule set can have: every side a winner (nobody lost),
    /// or a winner whose allies did not win with it (a team wins or loses whole).
    #[error("result: {0}")]
    Winners(String),
    /// The platform's rules could not be applied to a rule set.
    #[error(transparent)]
    Rules(#[from] RulesError),
}

/// The kind of each refusal (docs/errors.md; the table is [`crate::ErrorKind`]'s).
impl crate::error::Error for PlatformError {
    fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind;
        match self {
            PlatformError::NotOver => ErrorKind::WrongPhase,
            PlatformError::Seats(_) | PlatformError::Winners(_) => ErrorKind::InvalidResult,
            PlatformError::Rules(e) => e.kind(),
        }
    }
}

/// The platform's numbers. [`Platform::QQ`] is the QQ platform's (docs/sources.md#qq-rules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Platform {
    /// Plies before a resignation is allowed (docs/sources.md#qq-resign).
    pub min_plies_before_resign: u32,
    /// Time-outs after which a player loses (docs/sources.md#qq-timeouts).
    pub max_timeouts: u8,
    /// Points of a win, per seat, with two players (docs/sources.md#qq-scoring).
    pub win_two: i64,
    /// Points of a win, per seat, with four players (docs/sources.md#qq-scoring).
    pub win_four: i64,
    /// A game this short (in plies) gives its winner nothing, two players (docs/sources.md#qq-quick-win).
    pub quick_two: u32,
    /// The same with four players (docs/sources.md#qq-quick-win).
    pub quick_four: u32,
    /// The 50-point rule's line (docs/sources.md#qq-50-points).
    pub protect_line: i64,
    /// Our rating: the Elo K factor.
    pub elo_k: f64,
    /// Our rating: a new player's rating.
    pub initial_rating: f64,
}

impl Platform {
    /// The QQ platform (docs/sources.md#qq-rules), with our Elo rating (K = 32, 1500 to start).
    pub const QQ: Platform = Platform {
        min_plies_before_resign: 20,
        max_timeouts: 5,
        win_two: 1,
        win_four: 2,
        quick_two: 30,
        quick_four: 40,
        protect_line: 50,
        elo_k: 32.0,
        initial_rating: 1500.0,
    };

    /// A rule set as played on the platform: the same rules with
    /// `min_plies_before_resign` and `max_timeouts` set to the platform's.
    ///
    /// ```
    /// use junqi::{platform::Platform, RuleSet};
    /// let rules = Platform::QQ.rules(&RuleSet::preset("siguo").unwrap()).unwrap();
    /// assert_eq!(rules.options().min_plies_before_resign, 20);
    /// ```
    pub fn rules(&self, rules: &RuleSet) -> Result<Arc<RuleSet>, PlatformError> {
        let mut spec = rules.spec().clone();
        spec.options.min_plies_before_resign = self.min_plies_before_resign;
        spec.options.max_timeouts = Some(self.max_timeouts);
        Ok(Arc::new(RuleSet::with_board(spec, rules.board().clone())?))
    }

    /// Scores a finished game: its result, its length in plies and each seat before
    /// the game (every side of the rule set exactly once). Returns the seats in the
    /// order given.
    pub fn apply(
        &self,
        rules: &RuleSet,
        result: &GameResult,
        plies: u32,
        seats: &[Seat],
    ) -> Result<Vec<SeatScore>, PlatformError> {
        let sides = rules.sides();
        for (i, s) in seats.iter().enumerate() {
            if !sides.contains(&s.side) {
                return Err(PlatformError::Seats(format!(
                    "{} does not play {}",
                    s.side,
                    rules.name()
                )));
            }
            if seats[..i].iter().any(|t| t.side == s.side) {
                return Err(PlatformError::Seats(format!("{} is seated twice", s.side)));
            }
            if !s.rating.is_finite() {
                return Err(PlatformError::Seats(format!(
                    "{}'s rating is not a finite number",
                    s.side
                )));
            }
        }
        if let Some(w) = result.winners.iter().find(|w| !sides.contains(w)) {
            return Err(PlatformError::Seats(format!(
                "the result names {w} as a winner, who does not play {}",
                rules.name()
            )));
        }
        if let Some(missing) = sides.iter().find(|s| !seats.iter().any(|t| t.side == **s)) {
            return Err(PlatformError::Seats(format!("{missing} has no seat")));
        }
        check_winners(rules, result)?;
        let four = sides.len() > 2;
        let (win, quick) = if four {
            (self.win_four, self.quick_four)
        } else {
            (self.win_two, self.quick_two)
        };
        let no_score = result.winners.is_empty() && result.reason == EndReason::Escape;
        let draw = result.winners.is_empty();
        // Our Elo: each seat against the mean rating of its opponents, its team's mean
        // against theirs; a no-score escape changes nothing.
        let mean = |f: &dyn Fn(&Seat) -> bool| {
            let v: Vec<f64> = seats.iter().filter(|s| f(s)).map(|s| s.rating).collect();
            if v.is_empty() {
                None
            } else {
                Some(v.iter().sum::<f64>() / v.len() as f64)
            }
        };
        Ok(seats
            .iter()
            .map(|s| {
                let team = rules.team_of(s.side);
                let won = result.winners.contains(s.side);
                let (rule, delta) = if no_score {
                    (ScoreRule::NoScore, 0)
                } else if draw {
                    (ScoreRule::Draw, 0)
                } else if !won {
                    (ScoreRule::Loss, -win)
                } else if plies <= quick {
                    (ScoreRule::QuickWin, 0)
                } else if s.points > self.protect_line
                    && seats
                        .iter()
                        .any(|o| !team.contains(o.side) && o.points < self.protect_line)
                {
                    (ScoreRule::Protected, 0)
                } else {
                    (ScoreRule::Win, win)
                };
                let rating = match (
                    mean(&|o: &Seat| team.contains(o.side)),
                    mean(&|o: &Seat| !team.contains(o.side)),
                ) {
                    (Some(us), Some(them)) if !no_score => {
                        let expected = 1.0 / (1.0 + 10f64.powf((them - us) / 400.0));
                        let actual = if draw {
                            0.5
                        } else if won {
                            1.0
                        } else {
                            0.0
                        };
                        s.rating + self.elo_k * (actual - expected)
                    }
                    _ => s.rating,
                };
                let points = s.points.saturating_add(delta);
                SeatScore {
                    side: s.side,
                    rule,
                    points_before: s.points,
                    delta,
                    points,
                    level: level_for(points),
                    rating_before: s.rating,
                    rating,
                }
            })
            .collect())
    }

    /// Scores a finished [`Game`] (see [`Platform::apply`]).
    pub fn apply_game(&self, game: &Game, seats: &[Seat]) -> Result<Vec<SeatScore>, PlatformError> {
        let result = game.result().ok_or(PlatformError::NotOver)?;
        self.apply(game.rules(), &result, game.position().ply(), seats)
    }
}
