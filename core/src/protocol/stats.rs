//! Match statistics, as fishtest computes them: games come in pairs (one seed, the
//! engines trading seats), and a pair's result — the first engine's 0, ½, 1, 1½ or 2
//! points — is one observation ([`Pentanomial`]). Pairs cancel out most of what a seed
//! gives one seat, and a repeated game cannot pass for new evidence: the games of a
//! pair are scored together. Elo with a 95 % interval comes from the mean and spread of
//! the pairs; the SPRT is the generalized log-likelihood ratio of fishtest
//! (maximum-likelihood distributions of the pair results under each hypothesis, with
//! zero counts regularized), so that a run of identical results still decides.

/// Wins, draws and losses of the first engine, game by game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Counts one game's score of the first engine (1, ½ or 0).
    pub fn add(&mut self, score: f64) {
        if score >= 1.0 {
            self.wins += 1;
        } else if score <= 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// The first engine's score in per cent (0 before a game).
    pub fn percent(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            100.0 * (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
        }
    }
}

/// The pairs of a match by the first engine's points in them: `counts[k]` pairs
/// scored `k / 2` points (0: lost both, 1: lost one and drew one, 2: won one and lost
/// one, or drew both, 3, 4: won both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by points ×2: 0, ½, 1, 1½, 2.
    pub counts: [u32; 5],
}

/// Elo difference of a score in (0, 1).
fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Expected score of an Elo difference.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// A pair's result as a per-game score: 0, ¼, ½, ¾, 1.
const VALUES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Pentanomial {
    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Counts one pair from the first engine's two game scores (each 1, ½ or 0).
    pub fn add(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[k] += 1;
    }

    /// Mean per-game score and the variance of a pair's per-game score, of `counts`.
    fn moments(counts: &[f64; 5]) -> (f64, f64) {
        let n: f64 = counts.iter().sum();
        let s = counts.iter().zip(VALUES).map(|(c, v)| c * v).sum::<f64>() / n;
        let var = counts.iter().zip(VALUES).map(|(c, v)| c * (v - s).powi(2)).sum::<f64>() / n;
        (s, var)
    }

    /// The Elo difference and its 95 % interval (normal approximation of the mean of
    /// the pairs); `None` before a pair, or when every pair had the same result (no
    /// spread to measure: an Elo of ±∞ or 0 that no interval describes).
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        if self.pairs() == 0 {
            return None;
        }
        let counts = self.counts.map(f64::from);
        let (s, var) = Pentanomial::moments(&counts);
        if var <= 0.0 {
            return None;
        }
        let half = 1.959_964 * (var / self.pairs() as f64).sqrt();
        let clamp = |x: f64| x.clamp(1e-6, 1.0 - 1e-6);
        Some((elo_of(clamp(s)), elo_of(clamp(s - half)), elo_of(clamp(s + half))))
    }

    /// The generalized log-likelihood ratio of H1 (Elo `elo1`) against H0 (`elo0`), as
    /// fishtest computes it: the counts regularized (a zero count becomes 10⁻³, so
    /// that a result never seen keeps a little probability), for each hypothesis the
    /// distribution over the five results nearest the observed one (maximum
    /// likelihood) whose mean is that hypothesis's score, and the log of the
    /// likelihood ratio of the pairs under the two. 0 before a pair.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let counts = self.counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
        let total: f64 = counts.iter().sum();
        let p = counts.map(|c| c / total);
        let (q0, q1) = (mle(&p, score_of(elo0)), mle(&p, score_of(elo1)));
        n * (0..5).map(|i| p[i] * (q1[i] / q0[i]).ln()).sum::<f64>()
    }
}

/// The distribution over [`VALUES`] of mean `s` nearest to `p` (maximum likelihood of
/// observations distributed as `p`): `q_i = p_i / (1 + λ (v_i − s))`, with `λ` the root
/// of `Σ p_i (v_i − s) / (1 + λ (v_i − s)) = 0` in the interval that keeps every `q_i`
/// positive (the function falls there from +∞ to −∞, so bisection finds it).
fn mle(p: &[f64; 5], s: f64) -> [f64; 5] {
    let d = VALUES.map(|v| v - s);
    let f = |l: f64| (0..5).map(|i| p[i] * d[i] / (1.0 + l * d[i])).sum::<f64>();
    // 1 + λ d_i > 0 for all i: λ in (−1 / max d, −1 / min d).
    let (max_d, min_d) = (d[4], d[0]);
    let (mut lo, mut hi) = (-1.0 / max_d, -1.0 / min_d);
    let eps = 1e-12 * (hi - lo);
    (lo, hi) = (lo + eps, hi - eps);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = 0.5 * (lo + hi);
    let q = (0..5).map(|i| p[i] / (1.0 + l * d[i])).collect::<Vec<_>>();
    let sum: f64 = q.iter().sum();
    [q[0] / sum, q[1] / sum, q[2] / sum, q[3] / sum, q[4] / sum]
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

    fn penta(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    #[test]
    fn elo_is_the_mean_of_the_pairs_with_its_interval() {
        // 10 pairs won both, 10 lost both: mean ½, per-pair variance ¼ (every pair
        // ½ away): half-width 1.96 · √(¼ / 20) = 0.2191, so 0.2809 .. 0.7191.
        let (e, lo, hi) = penta([10, 0, 0, 0, 10]).elo().unwrap();
        assert!(e.abs() < 1e-9, "{e}");
        assert!((lo - elo_of(0.5 - 0.219_13)).abs() < 0.05 && (hi + lo).abs() < 1e-6, "{lo} {hi}");
        // The same games as 20 pairs of one win and one loss: no spread, no interval.
        assert_eq!(penta([0, 0, 20, 0, 0]).elo(), None);
        // 3 pairs at ¾, 1 at ¼: mean 0.625, variance (3·0.125² + 0.375²)/4 = 0.046875.
        let (e, lo, hi) = penta([0, 1, 0, 3, 0]).elo().unwrap();
        let half = 1.959_964 * (0.046_875f64 / 4.0).sqrt();
        assert!((e - elo_of(0.625)).abs() < 1e-9);
        assert!((lo - elo_of(0.625 - half)).abs() < 1e-9 && (hi - elo_of(0.625 + half)).abs() < 1e-9);
        assert_eq!(Pentanomial::default().elo(), None);
    }

    #[test]
    fn the_nearest_distribution_has_the_asked_mean_and_keeps_the_shape() {
        let p = [0.1, 0.2, 0.4, 0.2, 0.1];
        for s in [0.3, 0.5, 0.52, 0.9] {
            let q = mle(&p, s);
            let mean: f64 = q.iter().zip(VALUES).map(|(q, v)| q * v).sum();
            assert!((mean - s).abs() < 1e-9, "{s}: {mean}");
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12 && q.iter().all(|&x| x > 0.0));
        }
        // A distribution with the asked mean already is its own nearest.
        let q = mle(&p, 0.5);
        assert!(q.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-9), "{q:?}");
    }

    #[test]
    fn the_llr_against_values_worked_out_by_hand() {
        // Observed ½ of the pairs at 1½ and ½ at ½ (mean ½): H0 (Elo 0, mean ½) is the
        // observed distribution itself; under H1 (Elo 20, s1 = 0.528 751) the MLE is
        // q = p_i / (1 + λ d_i). With only values ¼ and ¾ non-negligible (regularized
        // 10⁻³ elsewhere), the mean constraint gives q(¾) ≈ (s1 − ¼) / ½ = 0.557 5,
        // q(¼) ≈ 0.442 5: LLR ≈ n · (½ ln(0.5575/0.5) + ½ ln(0.4425/0.5))
        // = n · ½ (0.108 9 − 0.122 2) = −0.006 65 n.
        let t = penta([0, 50, 0, 50, 0]);
        let llr = t.llr(0.0, 20.0);
        assert!((llr / 100.0 + 0.006_65).abs() < 0.000_2, "{llr}");
        // Every pair won twice: each pair is the same evidence, ln(q1(1) / q0(1)) with
        // the mass the regularized zeros leave: it decides, and needs enough pairs to.
        let sweep = |n| penta([0, 0, 0, 0, n]).llr(0.0, 20.0);
        assert!(sweep(15) > 0.5 && sweep(15) < 2.94, "{}", sweep(15));
        assert_eq!(sprt_verdict(sweep(100)), "H1 accepted", "{}", sweep(100));
        assert_eq!(sprt_verdict(penta([100, 0, 0, 0, 0]).llr(0.0, 20.0)), "H0 accepted");
        // 30 wins of 30 games at bounds 0, 200 decides at once.
        assert_eq!(sprt_verdict(penta([0, 0, 0, 0, 15]).llr(0.0, 200.0)), "H1 accepted");
        // Pairs split one-one are evidence of equal strength: H0 against Elo 20.
        assert_eq!(sprt_verdict(penta([0, 0, 200, 0, 0]).llr(0.0, 20.0)), "H0 accepted");
        assert_eq!(sprt_verdict(penta([0, 0, 1, 0, 0]).llr(0.0, 20.0)), "continue");
        assert_eq!(Pentanomial::default().llr(0.0, 20.0), 0.0);
        let (lo, hi) = sprt_bounds();
        assert!((lo + 2.944_4).abs() < 1e-4 && (hi - 2.944_4).abs() < 1e-4);
    }

    #[test]
    fn a_pair_counts_by_its_points() {
        let mut p = Pentanomial::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.0, 0.5), (0.0, 0.0), (1.0, 0.5)] {
            p.add(a, b);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        let mut t = Tally::default();
        for s in [1.0, 0.5, 0.0, 1.0] {
            t.add(s);
        }
        assert_eq!((t.wins, t.draws, t.losses, t.percent()), (2, 1, 1, 62.5));
    }
}
