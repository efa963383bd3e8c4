//! The match statistics (`junqi::protocol::stats`) against values computed apart from the
//! crate: counts by hand, and the Elo, its interval and the SPRT's LLR by a 60-digit
//! evaluation of the same formulas (mpmath; the script is quoted below), to 1e-9. Written
//! for the survivors of scripts/mutants on core/src/protocol/stats.rs (issue #45): the
//! unit tests in the module check the LLR to 2 % and the verdicts far from the bounds,
//! which let arithmetic mutants of the LLR, the interval's clamp and the bounds through.
//!
//! The reference (Python, mpmath at 60 digits):
//! ```text
//! V = [0, 1/4, 1/2, 3/4, 1]
//! score_of(e) = 1 / (1 + 10^(-e/400));  elo_of(s) = -400 log10(1/s - 1)
//! elo(c): n = Σc, s = Σ c_i V_i / n, var = Σ c_i (V_i - s)² / n,
//!         half = 1.959964 √(var / n), clamp to [1e-6, 1 - 1e-6],
//!         (elo_of(s), elo_of(s - half), elo_of(s + half))
//! llr(c, e0, e1): p = c (zeros as 1e-3) / Σ, q(s) = p_i / (1 + λ (V_i - s)) with λ the root
//!         of Σ p_i (V_i - s) / (1 + λ (V_i - s)) = 0 (400 bisection steps),
//!         Σc · Σ p_i ln(q(score_of(e1))_i / q(score_of(e0))_i)
//! ```
use junqi::protocol::stats::{score_of, sprt_bounds, sprt_verdict, Pentanomial, Tally};

fn penta(counts: [u32; 5]) -> Pentanomial {
    Pentanomial { counts }
}

fn close(got: f64, want: f64, label: &str) {
    assert!((got - want).abs() < 1e-9 * want.abs().max(1.0), "{label}: {got}, expected {want}");
}

#[test]
fn a_tally_counts_games_and_scores_them_in_per_cent() {
    // 3 wins, 2 draws, 5 losses: 10 games, (3 + 2/2) / 10 = 40 %. Distinct counts, so a
    // sum mutated to a difference or product, or a half to a sum, shows.
    let mut t = Tally::default();
    assert_eq!((t.games(), t.percent()), (0, 0.0));
    for s in [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.5, 0.0, 1.0, 0.0] {
        t.add(s);
    }
    assert_eq!(t, Tally { wins: 3, draws: 2, losses: 5 });
    assert_eq!(t.games(), 10);
    close(t.percent(), 40.0, "percent");
    // One game of each kind, one at a time.
    for (s, want) in [(1.0, (1, 0, 0)), (0.5, (0, 1, 0)), (0.0, (0, 0, 1))] {
        let mut t = Tally::default();
        t.add(s);
        assert_eq!((t.wins, t.draws, t.losses), want, "{s}");
        assert_eq!(t.games(), 1);
    }
    let t = Tally { wins: 7, draws: 0, losses: 0 };
    assert_eq!((t.games(), t.percent()), (7, 100.0));
    let t = Tally { wins: 0, draws: 4, losses: 0 };
    assert_eq!((t.games(), t.percent()), (4, 50.0));
}

#[test]
fn a_pair_goes_to_the_count_of_its_points() {
    // Every pair of game scores and the count it lands in (points × 2).
    let scores = [0.0, 0.5, 1.0];
    for a in scores {
        for b in scores {
            let mut p = Pentanomial::default();
            p.add(a, b);
            let k = ((a + b) * 2.0) as usize;
            let mut want = [0; 5];
            want[k] = 1;
            assert_eq!(p.counts, want, "{a} + {b}");
            assert_eq!(p.pairs(), 1);
        }
    }
    let mut p = Pentanomial::default();
    for (a, b) in [(1.0, 1.0), (1.0, 1.0), (0.5, 1.0), (0.0, 0.0)] {
        p.add(a, b);
    }
    assert_eq!((p.counts, p.pairs()), ([1, 0, 0, 1, 2], 4));
    assert_eq!(penta([1, 2, 3, 4, 5]).pairs(), 15);
}

#[test]
fn the_expected_score_of_an_elo_difference() {
    // 1 / (1 + 10^(-e/400)): ½ at 0, 10/11 at +400 (10^-1 = 0.1), and at −200 the
    // 0.240253073352 of the platform's Elo test.
    close(score_of(0.0), 0.5, "0");
    close(score_of(400.0), 10.0 / 11.0, "400");
    close(score_of(-200.0), 0.240_253_073_352_042_15, "-200");
    close(score_of(35.0), 0.550_199_353_253_536_99, "35");
}

#[test]
fn the_elo_and_its_interval_against_the_reference() {
    // (counts, Elo, low, high), the reference's values. [1, 2, 3, 4, 5]: mean 2/3,
    // variance 0.0972…; its mirror gives the negated interval.
    let cases = [
        ([1, 2, 3, 4, 5], 120.411_998_265_592_478, 6.167_333_114_086_768_4, 268.715_909_545_874_49),
        ([5, 4, 3, 2, 1], -120.411_998_265_592_478, -268.715_909_545_874_49, -6.167_333_114_086_768_4),
        ([0, 1, 0, 3, 0], 88.739_499_846_542_547, -61.198_710_999_987_846, 284.434_658_890_224_92),
        ([2, 0, 7, 0, 1], -34.860_070_287_560_066, -161.394_577_904_519_92, 82.749_963_626_310_246),
        // Mean 0.9, half-width 0.186 > 0.1: the high end is clamped at 1 − 10⁻⁶,
        // Elo −400 log10(10⁻⁶ / (1 − 10⁻⁶)) = 2399.99983; and the low end, mirrored.
        ([1, 0, 0, 0, 9], 381.697_003_775_729_95, 158.985_183_824_652_08, 2_399.999_826_282_120_4),
        ([9, 0, 0, 0, 1], -381.697_003_775_729_95, -2_399.999_826_282_120_4, -158.985_183_824_652_08),
    ];
    for (counts, e, lo, hi) in cases {
        let (ge, glo, ghi) = penta(counts).elo().unwrap_or_else(|| panic!("{counts:?}: no Elo"));
        close(ge, e, &format!("{counts:?} Elo"));
        close(glo, lo, &format!("{counts:?} low"));
        close(ghi, hi, &format!("{counts:?} high"));
    }
    // No pair, or pairs all alike: no interval.
    assert_eq!(Pentanomial::default().elo(), None);
    assert_eq!(penta([0, 0, 0, 0, 3]).elo(), None);
    assert_eq!(penta([0, 0, 4, 0, 0]).elo(), None);
    // One pair of each result: mean ½, an Elo of 0 with an interval around it.
    let (e, lo, hi) = penta([1, 1, 1, 1, 1]).elo().unwrap();
    assert!(e.abs() < 1e-9 && lo < -50.0 && (lo + hi).abs() < 1e-6, "{e} {lo} {hi}");
}

#[test]
fn the_llr_against_the_reference() {
    // (counts, elo0, elo1, LLR). The maximum-likelihood λ of the reference lies above 0
    // for some hypotheses and below for others (the mean of the pairs above or below
    // the hypothesis's score), so both halves of the bisection's interval are used.
    let cases = [
        ([1, 2, 3, 4, 5], 0.0, 5.0, 0.141_339_941_949_729_78),
        ([1, 2, 3, 4, 5], -10.0, 40.0, 1.277_747_403_631_255_4),
        ([5, 4, 3, 2, 1], 0.0, 20.0, -0.615_566_205_736_088_40),
        // Zero counts are regularized to 10⁻³.
        ([0, 3, 10, 5, 0], 0.0, 10.0, 0.193_129_682_033_996_01),
        ([0, 0, 0, 0, 15], 0.0, 200.0, 6.274_507_712_117_238_6),
        ([7, 30, 60, 40, 9], 0.0, 5.0, 0.371_889_041_129_851_72),
        // The module's own hand-worked case (−0.006 65 per pair, to 2 % there).
        ([0, 50, 0, 50, 0], 0.0, 20.0, -0.665_653_360_816_593_96),
    ];
    for (counts, e0, e1, want) in cases {
        close(penta(counts).llr(e0, e1), want, &format!("{counts:?} LLR({e0}, {e1})"));
    }
    assert_eq!(Pentanomial::default().llr(0.0, 5.0), 0.0);
}

#[test]
fn the_sprt_bounds_and_the_verdict_at_them() {
    // alpha = beta = 0.05: ln(0.05 / 0.95) and ln(0.95 / 0.05) = ∓2.944438979166440.
    let (lo, hi) = sprt_bounds();
    close(lo, -2.944_438_979_166_440_5, "lower bound");
    close(hi, 2.944_438_979_166_440_5, "upper bound");
    // A bound reached decides (>=, <=); a hair inside goes on.
    assert_eq!(sprt_verdict(hi), "H1 accepted");
    assert_eq!(sprt_verdict(lo), "H0 accepted");
    assert_eq!(sprt_verdict(hi - 1e-9), "continue");
    assert_eq!(sprt_verdict(lo + 1e-9), "continue");
    assert_eq!(sprt_verdict(0.0), "continue");
    assert_eq!(sprt_verdict(100.0), "H1 accepted");
    assert_eq!(sprt_verdict(-100.0), "H0 accepted");
    // Through the LLR: 15 pairs won twice at bounds 0, 200 decide (6.27 > 2.94).
    assert_eq!(sprt_verdict(penta([0, 0, 0, 0, 15]).llr(0.0, 200.0)), "H1 accepted");
}
