//! The platform layer (`junqi::platform`): levels, and the ledger that scores a finished
//! game as the QQ platform does (docs/sources.md#qq-rules), with our Elo rating.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use junqi::platform::{Platform, Seat};

use crate::enums::{side_arg, Side};
use crate::errors::{err, exception};
use junqi::ErrorKind;
use crate::report::GameResult;
use crate::rules::rules_arg;

/// One of the platform's 18 levels, 小兵 (0 points) to 司令 (12 750).
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Level {
    /// Its place, 0 (小兵) to 17 (司令).
    #[pyo3(get)]
    index: u8,
    /// The Chinese name, e.g. ``"排长"``.
    #[pyo3(get)]
    name: String,
    /// An English rendering, e.g. ``"platoon leader"``.
    #[pyo3(get)]
    english: String,
    /// The points from which it is held.
    #[pyo3(get)]
    min_points: i64,
}

impl From<&junqi::platform::Level> for Level {
    fn from(l: &junqi::platform::Level) -> Self {
        Level {
            index: l.index,
            name: l.name.to_owned(),
            english: l.english.to_owned(),
            min_points: l.min_points,
        }
    }
}

#[pymethods]
impl Level {
    fn __repr__(&self) -> String {
        format!(
            "Level({}, {:?}, {:?}, min_points={})",
            self.index, self.name, self.english, self.min_points
        )
    }
}

/// One seat's account of a finished game: the rule applied, the change, new points,
/// level and rating.
#[pyclass(frozen, module = "junqi._junqi")]
#[derive(Clone)]
pub struct SeatScore {
    /// The side.
    #[pyo3(get)]
    side: Side,
    /// ``"win"``, ``"quick_win"``, ``"protected"``, ``"loss"``, ``"draw"`` or
    /// ``"no_score"``.
    #[pyo3(get)]
    rule: String,
    /// Points before the game.
    #[pyo3(get)]
    points_before: i64,
    /// The change.
    #[pyo3(get)]
    delta: i64,
    /// Points after the game.
    #[pyo3(get)]
    points: i64,
    /// The level held after the game.
    #[pyo3(get)]
    level: Level,
    /// Rating before the game (ours: Elo, K = 32).
    #[pyo3(get)]
    rating_before: f64,
    /// Rating after the game.
    #[pyo3(get)]
    rating: f64,
}

#[pymethods]
impl SeatScore {
    fn __repr__(&self) -> String {
        format!(
            "SeatScore(side=Side.{}, rule={:?}, points={}{:+}={}, level={:?}, rating={:.1})",
            self.side.name_str(),
            self.rule,
            self.points_before,
            self.delta,
            self.points,
            self.level.name,
            self.rating
        )
    }
}


/// Seats from ``{side: points}`` and an optional ``{side: rating}``.
pub fn seats_arg(
    points: &Bound<'_, PyDict>,
    ratings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Seat>> {
    let mut seats = Vec::new();
    for (k, v) in points.iter() {
        let side = side_arg(&k)?;
        let p: i64 = v
            .extract()
            .map_err(|_| exception(ErrorKind::InvalidResult, format!("{side}'s points must be an int")))?;
        seats.push(Seat::new(side, p));
    }
    if let Some(r) = ratings {
        for (k, v) in r.iter() {
            let side = side_arg(&k)?;
            let rating: f64 = v
                .extract()
                .map_err(|_| exception(ErrorKind::InvalidResult, format!("{side}'s rating must be a number")))?;
            let seat = seats.iter_mut().find(|s| s.side == side).ok_or_else(|| {
                exception(ErrorKind::InvalidResult, format!("a rating for {side}, which has no points"))
            })?;
            seat.rating = rating;
        }
    }
    Ok(seats)
}

fn scores(list: Vec<junqi::platform::SeatScore>) -> Vec<SeatScore> {
    list.into_iter()
        .map(|s| SeatScore {
            side: s.side.into(),
            rule: s.rule.name().to_owned(),
            points_before: s.points_before,
            delta: s.delta,
            points: s.points,
            level: s.level.into(),
            rating_before: s.rating_before,
            rating: s.rating,
        })
        .collect()
}

/// Scores a finished game of `game` (used by ``Game.platform_score``).
pub fn score_game(game: &junqi::Game, seats: &[Seat]) -> PyResult<Vec<SeatScore>> {
    Platform::QQ
        .apply_game(game, seats)
        .map(scores)
        .map_err(err)
}

/// The level held with ``points`` (小兵 below 0).
#[pyfunction]
pub fn level_for(points: i64) -> Level {
    junqi::platform::level_for(points).into()
}

/// The 18 levels in order.
#[pyfunction]
pub fn levels() -> Vec<Level> {
    junqi::platform::LEVELS.iter().map(Into::into).collect()
}

/// Scores a finished game on the QQ platform from its result and length:
/// ``platform_score(rules, result, plies, points, ratings=None)`` with ``points`` a dict
/// ``{side: points}`` naming every side of the rule set, and ``ratings`` an optional
/// ``{side: rating}`` (1500 if left out). Returns one ``SeatScore`` per seat, in the
/// order of ``points``.
#[pyfunction]
#[pyo3(signature = (rules, result, plies, points, ratings=None))]
pub fn platform_score(
    rules: &Bound<'_, PyAny>,
    result: &GameResult,
    plies: u32,
    points: &Bound<'_, PyDict>,
    ratings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<SeatScore>> {
    let rules = rules_arg(Some(rules))?;
    let seats = seats_arg(points, ratings)?;
    Platform::QQ
        .apply(&rules, &result.inner, plies, &seats)
        .map(scores)
        .map_err(err)
}
