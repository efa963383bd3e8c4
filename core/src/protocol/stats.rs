//! Match statistics: Elo with a 95 % interval from the score, and the sequential
//! probability ratio test (GSPRT, as fishtest and cutechess-cli run it).

/// Wins, draws and losses of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// Elo difference of a score in (0, 1).
fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score of an Elo difference.
fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score and per-game variance of the score.
    fn moments(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let s = (self.wins as f64 + 0.5 * self.draws as f64) / n;
        let var = (self.wins as f64 * (1.0 - s).powi(2) + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        (s, var)
    }

    /// The Elo difference and its 95 % interval (normal approximation of the score);
    /// `None` before a game or when every game had the same result.
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        if self.games() == 0 {
            return None;
        }
        let (s, var) = self.moments();
        if var <= 0.0 {
            return None;
        }
        let half = 1.959_964 * (var / self.games() as f64).sqrt();
        let clamp = |x: f64| x.clamp(1e-6, 1.0 - 1e-6);
        Some((elo_of(clamp(s)), elo_of(clamp(s - half)), elo_of(clamp(s + half))))
    }

    /// The log-likelihood ratio of H1 (elo1) against H0 (elo0), the GSPRT
    /// approximation: `n (s1 - s0) (2 s - s0 - s1) / (2 var)`. 0 before a decisive spread.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        let (s, var) = self.moments();
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of(elo0), score_of(elo1));
        self.games() as f64 * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var)
    }
}

/// The SPRT bounds for alpha = beta = 0.05: (ln(β/(1−α)), ln((1−β)/α)) = (−2.94, 2.94).
pub fn sprt_bounds() -> (f64, f64) {
    let (a, b) = (0.05f64, 0.05f64);
    ((b / (1.0 - a)).ln(), ((1.0 - b) / a).ln())
}

/// The SPRT verdict for an LLR: `H1` accepted, `H0` accepted, or going on.
pub fn sprt_verdict(llr: f64) -> &'static str {
    let (lo, hi) = sprt_bounds();
    if llr >= hi {
        "H1 accepted"
    } else if llr <= lo {
        "H0 accepted"
    } else {
        "continue"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_llr_and_bounds() {
        let even = Tally { wins: 10, draws: 0, losses: 10 };
        let (e, lo, hi) = even.elo().unwrap();
        assert!(e.abs() < 1e-9 && lo < -100.0 && hi > 100.0);
        let strong = Tally { wins: 300, draws: 100, losses: 100 };
        let (e, lo, hi) = strong.elo().unwrap();
        assert!(lo < e && e < hi && (e - 147.0).abs() < 5.0, "{e}");
        assert!(strong.llr(0.0, 10.0) > 2.95 && sprt_verdict(strong.llr(0.0, 10.0)) == "H1 accepted");
        let weak = Tally { wins: 100, draws: 100, losses: 300 };
        assert_eq!(sprt_verdict(weak.llr(0.0, 10.0)), "H0 accepted");
        assert_eq!(sprt_verdict(Tally { wins: 1, draws: 0, losses: 1 }.llr(0.0, 10.0)), "continue");
        let (lo, hi) = sprt_bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
    }
}
