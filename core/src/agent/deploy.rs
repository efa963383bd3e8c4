//! Deployments that follow the game's well-known principles, derived from the rule
//! set's data: the flag in a headquarters (or as deep as it may stand), mines on the
//! free points nearest it and bombs close behind them, the strongest pieces on
//! railway points, with some randomness from the seed. Every constraint of the rule
//! set is kept; if the principled placement leaves a kind nowhere to go, a random
//! legal deployment is used instead.

use crate::board::{Point, Role};
use crate::piece::{PieceKind, Side};
use crate::rng::Rng;
use crate::rules::RuleSet;
use crate::setup::{Deployment, Setup};

use super::eval::Evaluator;

/// A principled deployment for `side`, the same for the same seed.
pub(crate) fn principled(rules: &std::sync::Arc<RuleSet>, side: Side, rng: &mut Rng) -> Setup {
    let seed = rng.next_u64();
    for attempt in 0..8u64 {
        let mut r = Rng::new(seed ^ attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if let Some(setup) = attempt_once(rules, side, &mut r) {
            if setup.validate(rules, side).is_ok() {
                return setup;
            }
        }
    }
    match Deployment::try_random(rules, side, seed) {
        Some(d) => d.to_setup(rules),
        None => Setup::new(), // no legal setup exists: the referee says why
    }
}

fn attempt_once(rules: &std::sync::Arc<RuleSet>, side: Side, rng: &mut Rng) -> Option<Setup> {
    let board = rules.board();
    let points: Vec<Point> = rules.deploy_points(side).to_vec();
    let constraints = &rules.spec().deployment.constraints;
    let allowed = |kind: PieceKind, p: Point| {
        constraints.iter().filter(|c| c.kind == kind).all(|c| crate::setup::allows(board, c, p))
    };
    let eval = Evaluator::new(rules);
    // Kinds in order: the flag, then the pieces that guard it, then the most
    // constrained (fewest points they may stand on: a kind that may stand anywhere
    // takes what is left), and among equally constrained kinds by value, strongest
    // first (so they get the railway points).
    let mut kinds: Vec<(PieceKind, u8)> = rules.army().collect();
    let room = |k: PieceKind| points.iter().filter(|&&p| allowed(k, p)).count();
    let rank = |k: PieceKind| match k {
        PieceKind::Flag => 0,
        PieceKind::Mine => 1,
        PieceKind::Bomb => 2,
        _ => 3,
    };
    kinds.sort_by(|a, b| {
        rank(a.0)
            .cmp(&rank(b.0))
            .then(room(a.0).cmp(&room(b.0)))
            .then(eval.value(b.0).partial_cmp(&eval.value(a.0)).unwrap_or(std::cmp::Ordering::Equal))
    });
    let top = kinds.iter().map(|(k, _)| eval.value(*k)).fold(1f32, f32::max);
    let mut free: Vec<Point> = points.clone();
    let mut flag: Option<Point> = None;
    let mut placed: Vec<(Point, PieceKind)> = Vec::with_capacity(points.len());
    for &(kind, n) in &kinds {
        for _ in 0..n {
            let mut best: Option<(f32, usize)> = None;
            for (i, &p) in free.iter().enumerate() {
                if !allowed(kind, p) {
                    continue;
                }
                let noise = (rng.below(1000) as f32) / 1000.0;
                let depth = board.depth(p) as f32;
                let near_flag = flag.map_or(0.0, |f| board.distance(p, f) as f32);
                let score = match kind {
                    PieceKind::Flag => {
                        (if board.role(p) == Role::Hq { 20.0 } else { 0.0 }) - 2.0 * depth + 3.0 * noise
                    }
                    PieceKind::Mine => -3.0 * near_flag - 0.5 * depth + 2.0 * noise,
                    PieceKind::Bomb => {
                        // Close to the flag but not on the points the mines want.
                        -(near_flag - 2.0).abs() + (if board.is_railway(p) { 1.0 } else { 0.0 }) + 2.0 * noise
                    }
                    _ => {
                        let strength = eval.value(kind) / top;
                        let rail = if board.is_railway(p) { 1.0 } else { 0.0 };
                        let mobile = eval.mobile(kind);
                        // Strong mobile pieces on the railways and forward; weak ones
                        // anywhere; immobile ones near the flag.
                        if mobile {
                            4.0 * strength * rail + strength * depth * 0.3 + 3.0 * noise
                        } else {
                            -near_flag + 3.0 * noise
                        }
                    }
                };
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, i));
                }
            }
            let (_, i) = best?;
            let p = free.swap_remove(i);
            if kind == PieceKind::Flag && flag.is_none() {
                flag = Some(p);
            }
            placed.push((p, kind));
        }
    }
    let mut setup = Setup::new();
    for (p, k) in placed {
        setup.place(board.name_of(p), k.id());
    }
    Some(setup)
}
