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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A deployment drawn row by row from the back (depth 1), each row's points left
    /// to right (drawing-grid x), as the kinds' two-letter codes; "  " for a free point.
    fn drawn(rules: &Arc<RuleSet>, side: Side, setup: &Setup) -> String {
        let board = rules.board();
        let d = setup.validate(rules, side).unwrap_or_else(|e| panic!("{}: {e}", rules.name()));
        let mut points: Vec<Point> = rules.deploy_points(side).to_vec();
        points.sort_by_key(|&p| (board.depth(p), board.coords(p).0, board.coords(p).1));
        let mut rows: Vec<String> = Vec::new();
        let mut depth = None;
        for p in points {
            if depth != Some(board.depth(p)) {
                depth = Some(board.depth(p));
                rows.push(String::new());
            } else {
                rows.last_mut().unwrap().push(' ');
            }
            let kind = d.pieces().iter().find(|(q, _)| *q == p).map_or("  ", |(_, k)| k.short());
            rows.last_mut().unwrap().push_str(kind);
        }
        rows.join("/")
    }

    /// Classic with these deployment constraints (JSON objects) instead of its own.
    fn classic_with(constraints: &str) -> Arc<RuleSet> {
        let json = format!(
            r#"{{"extends": "classic", "name": "test", "deployment": {{"roles": ["post", "hq"], "constraints": [{constraints}]}}}}"#
        );
        Arc::new(RuleSet::from_json(&json).unwrap())
    }

    /// Classic with this army (a JSON object, kind: count) instead of its own.
    fn classic_army(army: &str) -> Arc<RuleSet> {
        Arc::new(RuleSet::from_json(&format!(r#"{{"extends": "classic", "name": "test", "army": {army}}}"#)).unwrap())
    }

    /// Armies unlike the presets', pinned as `principled_deployments_are_pinned`: six
    /// mines (three around the flag, three a step further, where their depth and the
    /// noise choose) and no flag (the mines by depth alone, not round the first one).
    #[test]
    fn armies_with_more_mines_or_no_flag_are_pinned() {
        let six = classic_army(
            r#"{"flag": 1, "commander": 1, "army_commander": 1, "division_commander": 2, "brigade_commander": 2, "regiment_commander": 2, "battalion_commander": 2, "company_commander": 3, "platoon_leader": 3, "mine": 6, "bomb": 2}"#,
        );
        let no_flag = classic_army(
            r#"{"commander": 1, "army_commander": 1, "division_commander": 2, "brigade_commander": 2, "regiment_commander": 2, "battalion_commander": 2, "company_commander": 3, "platoon_leader": 3, "engineer": 4, "mine": 3, "bomb": 2}"#,
        );
        let cases = [
            (&six, 0, "PL MI MI FL MI/BN BO MI MI MI/DV CO BO/CO PL PL BN/BG CO RG/AM GN DV RG BG"),
            (&six, 1, "CO MI MI FL MI/BN BO MI MI MI/BN PL RG/RG PL CO BO/BG PL CO/GN AM DV BG DV"),
            (&six, 2, "MI FL MI MI CO/MI MI MI BN RG/BO PL CO/BO PL CO BN/DV PL DV/GN BG RG AM BG"),
            (&six, 3, "MI FL MI MI PL/MI MI MI BO CO/RG PL RG/BN BO CO BN/CO PL BG/AM DV BG DV GN"),
            (&no_flag, 0, "EN MI EN EN MI/CO BG CO BO MI/CO PL BO/BN PL PL AM/DV EN BN/BG RG GN RG DV"),
            (&no_flag, 1, "EN MI MI PL PL/PL MI RG BO CO/BO EN BN/RG EN EN CO/GN CO BN/AM DV BG DV BG"),
        ];
        for (rules, seed, want) in cases {
            let setup = principled(rules, Side::South, &mut Rng::new(seed));
            assert_eq!(drawn(rules, Side::South, &setup), want, "seed {seed}");
        }
    }

    /// The principled deployments, point by point, of a few seeds: the flag in an HQ,
    /// the mines around it, the bombs a step further, the strong mobile pieces on the
    /// railways and forward, 三军's immobile pieces (forts…) near the flag (seed 2 of
    /// sanjun-modern: where the fort's noise weighs less, it stands elsewhere). Pinned so
    /// that any change of the scores (a weight, a sign, the noise) shows; a deliberate
    /// change of the principles updates these lines.
    #[test]
    fn principled_deployments_are_pinned() {
        let cases = [
            ("classic", Side::South, 0, "EN EN MI FL MI/CO CO BO MI BO/BG EN RG/CO PL PL BN/BN PL BG/AM DV DV RG GN"),
            ("classic", Side::South, 1, "PL EN MI FL MI/RG CO BO MI BO/CO EN CO/BN EN PL BN/RG PL DV/AM GN BG BG DV"),
            ("classic", Side::North, 0, "EN PL MI FL MI/CO RG BO MI BO/RG PL BN/BN EN CO PL/CO EN AM/BG BG DV GN DV"),
            // Two points score alike (the noise is in thousandths): the first keeps it.
            ("classic", Side::North, 30, "MI FL MI EN EN/BO MI BO CO CO/BN PL RG/CO EN PL BG/DV PL GN/DV RG BN AM BG"),
            (
                "sanjun-modern",
                Side::South,
                0,
                "FI SU DE GB BS CR RE/BO MI FL TR MG/CP HO RG EN PL CO IN/DV AR TK AA BN MS/GN PG FO AM AC",
            ),
            (
                "sanjun-modern",
                Side::South,
                2,
                "RE SU GB DE BS CR FI/PL RG MI FL TR/HO MS EN BO CP CO BN/MG IN AA DV AM AR/AC TK FO GN PG",
            ),
            (
                "sanjun-forum",
                Side::North,
                1,
                "RE DE BS CR SU GB FI/IN TR FL MI CO/RG MS PL PG BO MG HO/NU BN DV AM EN AA/GN CP FO TK AR",
            ),
        ];
        for (name, side, seed, want) in cases {
            let rules = RuleSet::preset(name).unwrap();
            let setup = principled(&rules, side, &mut Rng::new(seed));
            assert_eq!(drawn(&rules, side, &setup), want, "{name} {side} seed {seed}");
        }
    }

    /// The flag goes to a headquarters where the rules let it stand anywhere, and to
    /// the back rows where they keep it off the headquarters (the pinned presets all
    /// put it in one of two equally deep headquarters, where only the noise decides).
    #[test]
    fn the_flag_prefers_a_headquarters_then_the_back_rows() {
        let free = classic_with("");
        let posts = classic_with(r#"{"kind": "flag", "roles": ["post"]}"#);
        let mut depths = [0; 7];
        for seed in 0..30 {
            let flag = |rules: &Arc<RuleSet>| {
                let d = principled(rules, Side::South, &mut Rng::new(seed)).validate(rules, Side::South).unwrap();
                d.pieces().iter().find(|(_, k)| *k == PieceKind::Flag).unwrap().0
            };
            assert_eq!(free.board().role(flag(&free)), Role::Hq, "seed {seed}");
            depths[posts.board().depth(flag(&posts)) as usize] += 1;
        }
        // −2 a row against noise up to 3: the back row mostly, the second sometimes.
        assert_eq!(depths[1] + depths[2], 30, "{depths:?}");
        assert!(depths[1] > 15 && depths[2] > 0, "{depths:?}");
    }

    /// An attempt that leaves a kind nowhere to go is repeated with the next attempt's
    /// seed (the first seed mixed with the attempt number).
    #[test]
    fn a_failed_attempt_is_retried_with_the_next_seed() {
        // Division commanders in the back row: the flag, the mines around it and the
        // bombs sometimes leave them one point there.
        let rules = classic_with(r#"{"kind": "flag", "roles": ["hq"]}, {"kind": "division_commander", "max_depth": 1}"#);
        let side = Side::South;
        let retried = (0..200u64)
            .find_map(|s| {
                let seed = Rng::new(s).next_u64();
                let first = attempt_once(&rules, side, &mut Rng::new(seed));
                let second = attempt_once(&rules, side, &mut Rng::new(seed ^ 0x9E37_79B9_7F4A_7C15));
                (first.is_none() && second.is_some()).then(|| (s, second.unwrap()))
            })
            .expect("a seed whose first attempt fails and second succeeds");
        let (s, second) = retried;
        assert!(second.validate(&rules, side).is_ok());
        assert_eq!(principled(&rules, side, &mut Rng::new(s)), second, "seed {s}");
        // And most seeds succeed at once.
        let at_once = (0..40u64).filter(|&s| attempt_once(&rules, side, &mut Rng::new(Rng::new(s).next_u64())).is_some()).count();
        assert!(at_once > 20, "{at_once} of 40");
    }

    /// When no attempt succeeds, the random legal deployment of the same seed; when no
    /// legal deployment exists, an empty setup (which the referee refuses with why).
    #[test]
    fn without_a_principled_placement_the_random_deployment_is_used() {
        // Engineers in the back row: the flag and the two mines beside it leave two
        // points there for three engineers, on every attempt.
        let rules = classic_with(r#"{"kind": "flag", "roles": ["hq"]}, {"kind": "engineer", "max_depth": 1}"#);
        for s in 0..3 {
            let seed = Rng::new(s).next_u64();
            assert!(attempt_once(&rules, Side::South, &mut Rng::new(seed)).is_none());
            let want = Deployment::try_random(&rules, Side::South, seed).unwrap().to_setup(&rules);
            assert_eq!(principled(&rules, Side::South, &mut Rng::new(s)), want, "seed {s}");
        }
        // Six pieces for the back row's five points, one of them the flag's.
        let rules = classic_with(
            r#"{"kind": "flag", "roles": ["hq"]}, {"kind": "engineer", "max_depth": 1}, {"kind": "platoon_leader", "max_depth": 1}"#,
        );
        assert!(Deployment::try_random(&rules, Side::North, 1).is_none());
        assert_eq!(principled(&rules, Side::North, &mut Rng::new(1)), Setup::new());
    }
}
