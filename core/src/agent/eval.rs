//! The static evaluation of a complete (sampled) position, from one player's side.
//!
//! Everything is derived from the rule set's data — the army, the combat table, the
//! mobility of each kind, the board's distances — never from a preset's coordinates,
//! so it works on every loadable rule set.
//!
//! Terms, in "piece value" units (see [`Evaluator::value`]):
//! - the result, once the game is over: ±[`WIN`] (sooner is better);
//! - material: the values of the pieces of the player's team minus the others';
//! - threats: the side to move next may take the best piece it can reach (its gain
//!   counted at [`THREAT`]); what the player's own pieces threaten counts a little;
//! - flag safety: a flag an enemy could take next counts as lost with the threats; the
//!   pieces standing next to one's own flag guard it;
//! - pressure: pieces nearer the enemy flags score a little (games against weak play
//!   end instead of wandering);
//! - exposure: the worth of the player's pieces an enemy has identified, less the worth
//!   of the enemy pieces the player has identified (an unidentified strong piece keeps
//!   the opponent guessing);
//! - pressing: a material lead counts for less as the no-capture counter nears the
//!   draw limit (the side ahead should capture before the game is drawn).
//!
//! Each term has a weight ([`Weights`]). The *derived* weights are worked out from the
//! rules alone (material from the combat table, fixed shares for the rest, nothing for
//! exposure and pressing); the *fitted* ones are a logistic regression of self-play
//! outcomes on the terms (Texel's method), shipped per rule family in
//! `core/data/eval/` and refitted by `junqi eval fit` (see [`super::tune`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::board::PointSet;
use crate::combat::CombatOutcome;
use crate::rules::resolve;
use crate::piece::{PieceKind, Side, SideSet};
use crate::position::Position;
use crate::rules::{Mobility, RuleSet};

/// The value of a won game.
pub(crate) const WIN: f32 = 10_000.0;
/// The share of a threatened capture counted against the threatened side.
const THREAT: f32 = 0.6;
/// The share of the player's own best threat counted for it.
const OWN_THREAT: f32 = 0.15;
/// A flag's value for the threat terms (taking it ends the game).
const FLAG: f32 = 2_000.0;

/// Which weights an agent's evaluation uses (the agent spec's `eval=fitted|derived`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvalWeights {
    /// The weights fitted to self-play outcomes that the engine ships for the rule
    /// set's family (classic; siguo and siguo-2p; 翻棋; sanjun-modern, -hk and -book),
    /// or the derived ones where it ships none (sanjun-forum, custom rule sets).
    #[default]
    Fitted,
    /// The weights worked out from the rules alone (the evaluation before December 2026).
    Derived,
}

/// The terms of the evaluation of a position for one player, before weighting (see
/// the module's documentation). Each is "ours minus theirs".
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Terms {
    /// Per kind: the team's pieces of that kind less the enemies'.
    pub material: [f32; PieceKind::COUNT],
    /// Σ over the team's face-up mobile pieces of 1 − (distance to the nearest enemy
    /// flag) / (the board's span).
    pub pressure: f32,
    /// The team's mobile pieces next to one of its flags.
    pub guard: f32,
    /// The gain of the best capture of the side that moves next (positive if it is the
    /// team's, negative if an enemy's).
    pub mover: f32,
    /// The same for the team that does not move next.
    pub waiter: f32,
    /// ±1 if the mover's best capture ends the game (a flag, or a commander whose loss
    /// loses), its gain then counted in `mover` less [`FLAG`].
    pub mover_end: f32,
    /// The same for the team that does not move next.
    pub waiter_end: f32,
    /// The worth of the team's pieces an enemy knows, less the worth of the enemy's
    /// pieces the player knows.
    pub exposed: f32,
    /// The material lead (a share of an army's worth, −1 to 1) times the no-capture
    /// counter's share of the draw limit.
    pub press: f32,
}

impl Default for Terms {
    fn default() -> Terms {
        Terms {
            material: [0.0; PieceKind::COUNT],
            pressure: 0.0,
            guard: 0.0,
            mover: 0.0,
            waiter: 0.0,
            mover_end: 0.0,
            waiter_end: 0.0,
            exposed: 0.0,
            press: 0.0,
        }
    }
}

/// The weight of each term, in piece-value units (a fitted set is scaled so that
/// `tanh(score / 12)` is the expected result, 2·P(win) + P(draw) − 1).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Weights {
    /// Per kind of the army, by its name; kinds not named weigh 0.
    pub material: std::collections::BTreeMap<PieceKind, f32>,
    pub pressure: f32,
    pub guard: f32,
    pub mover: f32,
    pub waiter: f32,
    pub mover_end: f32,
    pub waiter_end: f32,
    pub exposed: f32,
    pub press: f32,
}

/// The shipped fitted weights: (the rule sets each serves, JSON) — one file per family,
/// for the presets that share its board and armies.
const SHIPPED: &[(&[&str], &str)] = &[
    (&["classic"], include_str!("../../data/eval/classic.json")),
    (&["siguo", "siguo-2p"], include_str!("../../data/eval/siguo.json")),
    (&["fanqi"], include_str!("../../data/eval/fanqi.json")),
    // sanjun-forum's army has a nuke where the others have an atomic cannon.
    (&["sanjun-modern", "sanjun-hk", "sanjun-book"], include_str!("../../data/eval/sanjun-modern.json")),
];

/// A shipped weights file: the weights and where they come from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Fitted {
    /// The rule set fitted on.
    pub rules: String,
    /// How the weights were made (the command that refits them).
    pub source: String,
    /// Games and positions fitted on.
    pub games: u64,
    pub positions: u64,
    /// The ridge's strength chosen on the validation games.
    pub ridge: f64,
    /// Mean log-loss of the outcome on held-out games: under the derived weights at
    /// their best scale, and under these.
    pub derived_loss: f64,
    pub fitted_loss: f64,
    pub weights: Weights,
}

impl Weights {
    /// The weights worked out from the rules alone.
    pub(crate) fn derived(e: &Evaluator) -> Weights {
        Weights {
            material: e.rules.army().map(|(k, _)| (k, e.value[k as usize])).collect(),
            pressure: 0.4,
            guard: 0.3,
            mover: THREAT,
            waiter: OWN_THREAT,
            mover_end: THREAT * FLAG,
            waiter_end: OWN_THREAT * FLAG,
            exposed: 0.0,
            press: 0.0,
        }
    }

    /// The shipped fitted weights for `rules`, if the engine ships a set for its name
    /// (and so for its army).
    pub(crate) fn shipped(rules: &RuleSet) -> Option<Weights> {
        let (_, text) = SHIPPED.iter().find(|(names, _)| names.contains(&rules.name()))?;
        let fitted: Fitted = serde_json::from_str(text).ok()?;
        fitted.weights.material.keys().copied().eq(rules.army().map(|(k, _)| k)).then_some(fitted.weights)
    }
}

/// Piece values and weights for one rule set, worked out once.
#[derive(Clone, Debug)]
pub(crate) struct Evaluator {
    rules: Arc<RuleSet>,
    value: [f32; PieceKind::COUNT],
    mobile: [bool; PieceKind::COUNT],
    /// A kind's worth for the exposure and pressing terms: its value, a game-ending
    /// kind counted as the army's most valuable other kind.
    worth: [f32; PieceKind::COUNT],
    /// The worth of a whole army.
    army_worth: f32,
    /// Largest distance between two points (for the pressure term).
    span: f32,
    choice: EvalWeights,
    /// The weights, dense: material by kind index, then the other terms.
    material: [f32; PieceKind::COUNT],
    weights: Weights,
}

impl Evaluator {
    /// Values from the combat table: a kind is worth what it beats (weighted by how many
    /// of each kind an army holds; a trade counts half), plus half of what loses
    /// attacking it; the flag is worth nothing as material (taking it ends the game),
    /// a commander whose loss loses the game is worth [`FLAG`]. The derived weights.
    pub(crate) fn new(rules: &Arc<RuleSet>) -> Evaluator {
        Evaluator::with(rules, EvalWeights::Derived)
    }

    /// The evaluator with the weights `choice` names.
    pub(crate) fn with(rules: &Arc<RuleSet>, choice: EvalWeights) -> Evaluator {
        let army: Vec<(PieceKind, u8)> = rules.army().collect();
        let mut value = [0f32; PieceKind::COUNT];
        let mut mobile = [false; PieceKind::COUNT];
        for &(k, _) in &army {
            mobile[k as usize] = rules.mobility(k) != Mobility::Immobile;
        }
        for &(k, _) in &army {
            let mut attack = 0f32;
            let mut defence = 0f32;
            for &(d, n) in &army {
                let n = n as f32;
                if mobile[k as usize] {
                    attack += n * match resolve(rules, k, d) {
                        CombatOutcome::Win => if d == PieceKind::Flag { 2.0 } else { 1.0 },
                        CombatOutcome::Both => 0.5,
                        _ => 0.0,
                    };
                }
                if mobile[d as usize] {
                    defence += n * match resolve(rules, d, k) {
                        CombatOutcome::Lose => 1.0,
                        CombatOutcome::Both => 0.5,
                        _ => 0.0,
                    };
                }
            }
            value[k as usize] = 1.0 + attack + 0.5 * defence;
        }
        if rules.has_kind(PieceKind::Flag) {
            value[PieceKind::Flag as usize] = 0.0;
        }
        let mut worth = value;
        if rules.options().commander_capture {
            value[PieceKind::Commander as usize] = FLAG;
            let top = army.iter().filter(|(k, _)| *k != PieceKind::Commander).map(|(k, _)| value[*k as usize]).fold(0f32, f32::max);
            worth[PieceKind::Commander as usize] = top;
        }
        let army_worth = army.iter().map(|&(k, n)| worth[k as usize] * n as f32).sum::<f32>().max(1.0);
        let board = rules.board();
        let mut span = 1u32;
        let (w, h) = board.grid_size();
        span = span.max(w as u32 + h as u32);
        let mut e = Evaluator {
            rules: rules.clone(),
            value,
            mobile,
            worth,
            army_worth,
            span: span as f32,
            choice,
            material: [0.0; PieceKind::COUNT],
            weights: Weights::default(),
        };
        let weights = match choice {
            EvalWeights::Fitted => Weights::shipped(rules).unwrap_or_else(|| Weights::derived(&e)),
            EvalWeights::Derived => Weights::derived(&e),
        };
        e.set_weights(weights);
        e
    }

    /// Replaces the weights (kinds not in the army are ignored).
    pub(crate) fn set_weights(&mut self, weights: Weights) {
        self.material = [0.0; PieceKind::COUNT];
        for (&k, &w) in &weights.material {
            if self.rules.has_kind(k) {
                self.material[k as usize] = w;
            }
        }
        self.weights = weights;
    }

    /// Whether this evaluator was made for `rules`: the same rule set on the same board
    /// ([`RuleSet::same_as`]; the same description on another board is another rule set).
    pub(crate) fn is_for(&self, rules: &Arc<RuleSet>, choice: EvalWeights) -> bool {
        self.choice == choice && self.rules.same_as(rules)
    }

    /// A kind's material value.
    pub(crate) fn value(&self, kind: PieceKind) -> f32 {
        self.value[kind as usize]
    }

    /// Whether the kind moves.
    pub(crate) fn mobile(&self, kind: PieceKind) -> bool {
        self.mobile[kind as usize]
    }

    fn threat_value(&self, kind: PieceKind) -> f32 {
        if kind == PieceKind::Flag {
            FLAG
        } else {
            self.value[kind as usize]
        }
    }

    /// The armies on `player`'s side (its team's armies) and those against it.
    pub(crate) fn camps(pos: &Position, player: Side) -> (SideSet, SideSet) {
        let rules = pos.rules();
        let mut ours = SideSet::EMPTY;
        let mut theirs = SideSet::EMPTY;
        for &p in rules.sides() {
            if let Some(a) = pos.army_of(p) {
                if rules.team_of(player).contains(p) {
                    ours = ours.with(a);
                } else if !pos.eliminated().contains(p) {
                    theirs = theirs.with(a);
                }
            }
        }
        (ours, theirs)
    }

    /// What the best capture of an army in `attackers` against one in `targets` gains
    /// (the value taken minus the value lost), if positive.
    fn best_capture(&self, pos: &Position, attackers: SideSet, targets: SideSet) -> f32 {
        let mut best = 0f32;
        // Only a point with a piece on it, or (air) over one, holds a capture.
        let board = self.rules.board();
        let hot = pos.occupied().or(board.air);
        for a in attackers.iter() {
            pos.for_each_targets(a, |from, reach| {
                let Some((_, ka)) = pos.piece_at(from) else { return };
                if !self.mobile(ka) {
                    return;
                }
                reach.and(hot).for_each(|to| {
                    let Some((owner, kd)) = pos.piece_at(to).or_else(|| board.below(to).and_then(|q| pos.piece_at(q))) else {
                        return;
                    };
                    if !targets.contains(owner) || pos.is_face_down(to) {
                        return;
                    }
                    let outcome = if pos.shielded(to) { CombatOutcome::Repel } else { resolve(&self.rules, ka, kd) };
                    let gain = match outcome {
                        CombatOutcome::Win => self.threat_value(kd),
                        CombatOutcome::Both => self.threat_value(kd) - self.value(ka),
                        CombatOutcome::Lose => -self.value(ka),
                        _ => 0.0,
                    };
                    best = best.max(gain);
                });
            });
        }
        best
    }

    /// The evaluation of `pos` for `player` (higher is better for it): ±[`WIN`] once the
    /// game is over (sooner is better), else the weighted [`Terms`].
    pub(crate) fn eval(&self, pos: &Position, player: Side) -> f32 {
        if let Some(r) = pos.result() {
            let team = self.rules.team_of(player);
            let ply = pos.ply() as f32;
            return if r.is_draw() {
                0.0
            } else if r.winners.iter().any(|w| team.contains(w)) {
                WIN - ply
            } else {
                -WIN + ply
            };
        }
        match self.terms(pos, player) {
            Some(t) => self.weigh(&t),
            None => 0.0, // 翻棋 before the first flip: no army yet
        }
    }

    /// The weighted sum of the terms.
    pub(crate) fn weigh(&self, t: &Terms) -> f32 {
        let w = &self.weights;
        let mut score = 0f32;
        for (m, x) in self.material.iter().zip(&t.material) {
            score += m * x;
        }
        score
            + w.pressure * t.pressure
            + w.guard * t.guard
            + w.mover * t.mover
            + w.waiter * t.waiter
            + w.mover_end * t.mover_end
            + w.waiter_end * t.waiter_end
            + w.exposed * t.exposed
            + w.press * t.press
    }

    /// The terms of an unfinished position for `player` (`None` while `player`'s team
    /// has no army yet: 翻棋 before the first flip).
    pub(crate) fn terms(&self, pos: &Position, player: Side) -> Option<Terms> {
        let (ours, theirs) = Evaluator::camps(pos, player);
        if ours.is_empty() {
            return None;
        }
        let rules = &self.rules;
        let board = rules.board();
        let mut t = Terms::default();
        let team = rules.team_of(player);
        // The players against `player`'s team (knowledge is per player, not per army).
        let enemies: SideSet = rules.sides().iter().copied().filter(|&s| !team.contains(s) && !pos.eliminated().contains(s)).collect();
        // Every flag of either camp: a custom rule set may give an army several (and a
        // team has one army's worth a member).
        let mut own_flags = PointSet::EMPTY;
        let mut enemy_flags = PointSet::EMPTY;
        let mut lead = 0f32;
        for (p, owner, kind) in pos.pieces() {
            let k = kind as usize;
            if ours.contains(owner) {
                t.material[k] += 1.0;
                lead += self.worth[k];
                if kind == PieceKind::Flag {
                    own_flags.insert(p);
                }
                if enemies.iter().any(|e| pos.knows(e, p)) {
                    t.exposed += self.worth[k];
                }
            } else if theirs.contains(owner) {
                t.material[k] -= 1.0;
                lead -= self.worth[k];
                if kind == PieceKind::Flag {
                    enemy_flags.insert(p);
                }
                if pos.knows(player, p) {
                    t.exposed -= self.worth[k];
                }
            }
        }
        // Pressure: own mobile pieces near an enemy flag; guards around one's own.
        for (p, owner, kind) in pos.pieces() {
            if !ours.contains(owner) || !self.mobile(kind) || pos.is_face_down(p) {
                continue;
            }
            if let Some(d) = enemy_flags.iter().map(|f| board.distance(p, f)).min() {
                t.pressure += 1.0 - d as f32 / self.span;
            }
            if own_flags.iter().any(|f| board.distance(p, f) <= 1) {
                t.guard += 1.0;
            }
        }
        // Pressing: a lead is worth less as the no-capture draw nears.
        let limit = rules.options().no_capture_draw_plies;
        if limit > 0 {
            let members = team.iter().filter(|s| rules.sides().contains(s)).count().max(1) as f32;
            t.press = (lead / (self.army_worth * members)).clamp(-1.0, 1.0) * (pos.no_capture_plies().min(limit) as f32 / limit as f32);
        }
        // Threats: who moves next may take what it reaches.
        let next = pos.to_act().and_then(|s| pos.army_of(s));
        let ours_next = next.is_some_and(|a| ours.contains(a));
        let their_gain = self.best_capture(pos, theirs, ours);
        let our_gain = self.best_capture(pos, ours, theirs);
        // A game-ending capture is counted apart: its own term, and the rest of the gain.
        let split = |gain: f32| if gain >= FLAG / 2.0 { (gain - FLAG, 1.0) } else { (gain, 0.0) };
        let (ours_gain, ours_end) = split(our_gain);
        let (theirs_gain, theirs_end) = split(their_gain);
        if ours_next {
            (t.mover, t.mover_end, t.waiter, t.waiter_end) = (ours_gain, ours_end, -theirs_gain, -theirs_end);
        } else {
            (t.mover, t.mover_end, t.waiter, t.waiter_end) = (-theirs_gain, -theirs_end, ours_gain, ours_end);
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Point;

    #[test]
    fn the_weighted_sum_is_every_weight_times_its_term() {
        let mut e = Evaluator::new(&RuleSet::preset("classic").unwrap());
        let w = &mut e.weights;
        (w.pressure, w.guard, w.mover, w.waiter, w.mover_end, w.waiter_end, w.exposed, w.press) = (2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0);
        let t = Terms { material: [0.0; PieceKind::COUNT], pressure: 1.0, guard: 10.0, mover: 100.0, waiter: 1000.0, mover_end: 0.5, waiter_end: 0.25, exposed: 0.125, press: 4.0 };
        assert_eq!(e.weigh(&t), 2.0 + 30.0 + 500.0 + 7000.0 + 5.5 + 3.25 + 2.125 + 76.0);
    }

    #[test]
    fn an_army_is_worth_its_pieces_and_a_commander_whose_loss_loses_the_best_other() {
        // The press term's measure of a lead: the army's pieces at their values (the
        // flag 0); a commander whose capture loses the game is valued as the game but
        // worth the best other piece there.
        for capture in [false, true] {
            let mut spec = RuleSet::preset("classic").unwrap().spec().clone();
            spec.options.commander_capture = capture;
            let rules = Arc::new(RuleSet::from_spec(spec).unwrap());
            let e = Evaluator::new(&rules);
            let army: Vec<(PieceKind, u8)> = rules.army().collect();
            let top = army.iter().filter(|(k, _)| *k != PieceKind::Commander).map(|&(k, _)| e.value(k)).fold(0f32, f32::max);
            let worth = |k: PieceKind| if capture && k == PieceKind::Commander { top } else { e.value(k) };
            assert_eq!(e.army_worth, army.iter().map(|&(k, n)| worth(k) * n as f32).sum::<f32>(), "commander capture {capture}");
            assert_eq!(e.value(PieceKind::Commander) == FLAG, capture);
        }
    }

    #[test]
    fn without_the_no_capture_draw_nothing_presses() {
        // A rule set may have no no-capture draw (0 plies: never); the press term, a
        // share of that limit, is then 0, never 0 / 0.
        let mut spec = RuleSet::preset("classic").unwrap().spec().clone();
        spec.options.no_capture_draw_plies = 0;
        let rules = Arc::new(RuleSet::from_spec(spec).unwrap());
        let e = Evaluator::new(&rules);
        let mut game = crate::referee::Game::with_rules(rules.clone(), 1);
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let mut rng = crate::rng::Rng::new(3);
        let mut lead = 0;
        for _ in 0..300 {
            if game.phase() == crate::position::Phase::Over {
                break;
            }
            let pos = game.position();
            if let Some(t) = e.terms(pos, Side::South) {
                assert_eq!(t.press, 0.0);
                lead += (t.material.iter().sum::<f32>() != 0.0) as u32;
            }
            assert!(e.eval(pos, Side::South).is_finite());
            let legal = game.legal_actions();
            game.play(legal[rng.below(legal.len())]).unwrap();
        }
        assert!(lead > 0, "no position with a material lead");
    }

    /// `best_capture` as it was first written: every piece's targets asked one by one
    /// ([`Position::targets`]) and every target looked at.
    fn best_capture_by_piece(e: &Evaluator, pos: &Position, attackers: SideSet, targets: SideSet) -> f32 {
        let mut best = 0f32;
        for a in attackers.iter() {
            for from in pos.occupied_by(a).minus(pos.face_down()).iter() {
                let Some((_, ka)) = pos.piece_at(from) else { continue };
                if !e.mobile(ka) {
                    continue;
                }
                for to in pos.targets(from).iter() {
                    let Some((owner, kd)) = pos.piece_at(to).or_else(|| e.rules.board().below(to).and_then(|q| pos.piece_at(q))) else {
                        continue;
                    };
                    if !targets.contains(owner) || pos.is_face_down(to) {
                        continue;
                    }
                    let outcome = if pos.shielded(to) { CombatOutcome::Repel } else { resolve(&e.rules, ka, kd) };
                    best = best.max(match outcome {
                        CombatOutcome::Win => e.threat_value(kd),
                        CombatOutcome::Both => e.threat_value(kd) - e.value(ka),
                        CombatOutcome::Lose => -e.value(ka),
                        _ => 0.0,
                    });
                }
            }
        }
        best
    }

    #[test]
    fn the_armywide_threat_scan_finds_what_the_piece_by_piece_one_does() {
        // Random games on every preset: the best capture of every army against every
        // other (and its team) at every 7th ply, both ways of scanning.
        let mut compared = 0;
        let mut captures = 0;
        for name in crate::rules::RuleSet::preset_names() {
            let rules = crate::rules::RuleSet::preset(name).unwrap();
            let e = Evaluator::new(&rules);
            let mut rng = crate::rng::Rng::new(11);
            let mut buf = Vec::new();
            for seed in 0..6 {
                let mut pos = Position::random_start(rules.clone(), seed);
                while pos.result().is_none() && pos.ply() < 400 {
                    if pos.ply() % 7 == 0 {
                        for &a in rules.sides() {
                            for &b in rules.sides() {
                                let (x, y) = (SideSet::EMPTY.with(a), SideSet::EMPTY.with(b).with(a));
                                let fast = e.best_capture(&pos, x, y);
                                assert_eq!(fast, best_capture_by_piece(&e, &pos, x, y), "{name} seed {seed} ply {}", pos.ply());
                                compared += 1;
                                captures += (fast > 0.0) as u32;
                            }
                        }
                    }
                    pos.legal_actions_into(&mut buf);
                    if buf.is_empty() {
                        break;
                    }
                    pos.play_unchecked(buf[rng.below(buf.len())]);
                }
            }
        }
        assert!(compared > 2000 && captures > 500, "{compared} compared, {captures} with a capture");
    }

    /// The evaluation as it was written before its terms had weights (the derived
    /// weights must give it still).
    fn old_eval(e: &Evaluator, pos: &Position, player: Side) -> f32 {
        let (ours, theirs) = Evaluator::camps(pos, player);
        if ours.is_empty() {
            return 0.0;
        }
        let board = e.rules.board();
        let mut score = 0f32;
        let (mut own_flags, mut enemy_flags) = (PointSet::EMPTY, PointSet::EMPTY);
        for (p, owner, kind) in pos.pieces() {
            if ours.contains(owner) {
                score += e.value(kind);
                if kind == PieceKind::Flag {
                    own_flags.insert(p);
                }
            } else if theirs.contains(owner) {
                score -= e.value(kind);
                if kind == PieceKind::Flag {
                    enemy_flags.insert(p);
                }
            }
        }
        for (p, owner, kind) in pos.pieces() {
            if !ours.contains(owner) || !e.mobile(kind) || pos.is_face_down(p) {
                continue;
            }
            if let Some(d) = enemy_flags.iter().map(|f| board.distance(p, f)).min() {
                score += 0.4 * (1.0 - d as f32 / e.span);
            }
            if own_flags.iter().any(|f| board.distance(p, f) <= 1) {
                score += 0.3;
            }
        }
        let ours_next = pos.to_act().and_then(|s| pos.army_of(s)).is_some_and(|a| ours.contains(a));
        let their_gain = e.best_capture(pos, theirs, ours);
        let our_gain = e.best_capture(pos, ours, theirs);
        if ours_next {
            score + THREAT * our_gain - OWN_THREAT * their_gain
        } else {
            score + OWN_THREAT * our_gain - THREAT * their_gain
        }
    }

    /// Random games on every preset, every 5th ply, every seat.
    fn positions(mut each: impl FnMut(&str, &Position, Side)) {
        for name in crate::rules::RuleSet::preset_names() {
            let rules = crate::rules::RuleSet::preset(name).unwrap();
            let mut rng = crate::rng::Rng::new(23);
            let mut buf = Vec::new();
            for seed in 0..5 {
                let mut pos = Position::random_start(rules.clone(), seed);
                while pos.result().is_none() && pos.ply() < 300 {
                    if pos.ply() % 5 == 0 {
                        for &p in rules.sides() {
                            each(name, &pos, p);
                        }
                    }
                    pos.legal_actions_into(&mut buf);
                    if buf.is_empty() {
                        break;
                    }
                    pos.play_unchecked(buf[rng.below(buf.len())]);
                }
            }
        }
    }

    #[test]
    fn the_derived_weights_give_the_evaluation_as_it_was() {
        // Kills any change to a derived weight, a term's sign or the split of a
        // game-ending capture: the weighted terms against the old formula.
        let mut ends = 0;
        let mut seen = 0;
        positions(|name, pos, p| {
            let e = Evaluator::new(pos.rules());
            let (new, old) = (e.eval(pos, p), old_eval(&e, pos, p));
            assert!((new - old).abs() <= 1e-3 * old.abs().max(1.0), "{name} ply {}: {new} != {old}", pos.ply());
            if let Some(t) = e.terms(pos, p) {
                ends += (t.mover_end != 0.0 || t.waiter_end != 0.0) as u32;
                // A game-ending capture is ±1, its gain counted apart.
                for (end, gain) in [(t.mover_end, t.mover), (t.waiter_end, t.waiter)] {
                    assert!(end == 0.0 || end.abs() == 1.0);
                    assert!(gain.abs() < FLAG / 2.0, "{name}: {gain}");
                }
            }
            seen += 1;
        });
        assert!(seen > 1000 && ends > 20, "{seen} positions, {ends} with a game-ending capture");
    }

    #[test]
    fn exposure_counts_what_the_other_side_has_seen() {
        // Against each player's own view of the board (`view_pieces`: the kinds it
        // knows), worth of the own pieces the enemies know less the enemy pieces the
        // player knows; and pressing from the counter.
        let mut exposed = 0;
        let mut pressed = 0;
        positions(|name, pos, p| {
            let e = Evaluator::new(pos.rules());
            let Some(t) = e.terms(pos, p) else { return };
            let rules = pos.rules();
            let (ours, theirs) = Evaluator::camps(pos, p);
            let mut want = 0f32;
            for &q in rules.sides() {
                if pos.eliminated().contains(q) {
                    continue;
                }
                for seen in pos.view_pieces(q) {
                    let Some(kind) = seen.kind else { continue };
                    let owner = pos.piece_at(seen.point).expect("a seen piece").0;
                    if !rules.team_of(p).contains(q) && ours.contains(owner) {
                        // Counted once however many enemies know it.
                        let first = rules.sides().iter().find(|&&r| !rules.team_of(p).contains(r) && !pos.eliminated().contains(r) && pos.knows(r, seen.point));
                        if first == Some(&q) {
                            want += e.worth[kind as usize];
                        }
                    } else if q == p && theirs.contains(owner) {
                        want -= e.worth[kind as usize];
                    }
                }
            }
            assert!((t.exposed - want).abs() < 1e-3, "{name} ply {}: exposed {} != {want}", pos.ply(), t.exposed);
            exposed += (want != 0.0) as u32;
            // Pressing: the lead in worth, a share of the team's armies, times the
            // counter's share of the limit.
            let limit = rules.options().no_capture_draw_plies;
            let lead: f32 = pos.pieces().map(|(_, o, k)| if ours.contains(o) { e.worth[k as usize] } else if theirs.contains(o) { -e.worth[k as usize] } else { 0.0 }).sum();
            let members = rules.team_of(p).iter().filter(|s| rules.sides().contains(s)).count() as f32;
            let want = (lead / (e.army_worth * members)).clamp(-1.0, 1.0) * pos.no_capture_plies().min(limit) as f32 / limit as f32;
            assert!((t.press - want).abs() < 1e-5, "{name} ply {}: press {} != {want}", pos.ply(), t.press);
            pressed += (want != 0.0) as u32;
        });
        assert!(exposed > 100 && pressed > 100, "{exposed} exposed, {pressed} pressed");
    }

    #[test]
    fn every_preset_has_fitted_weights_for_its_army() {
        for name in crate::rules::RuleSet::preset_names() {
            let rules = crate::rules::RuleSet::preset(name).unwrap();
            if name == "sanjun-forum" {
                // Its army differs from the other sanjun presets' (a nuke): derived weights,
                // even were it named as one of them.
                assert!(Weights::shipped(&rules).is_none());
                let mut spec: serde_json::Value = serde_json::from_str(&rules.to_json()).unwrap();
                spec["name"] = "sanjun-modern".into();
                assert!(Weights::shipped(&RuleSet::from_json(&spec.to_string()).unwrap()).is_none());
                assert_eq!(Evaluator::with(&rules, EvalWeights::Fitted).weights, Evaluator::new(&rules).weights);
                continue;
            }
            let (names, text) = SHIPPED.iter().find(|(names, _)| names.contains(&name)).unwrap_or_else(|| panic!("{name}: no weights"));
            let fitted: Fitted = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(names.contains(&fitted.rules.as_str()));
            let kinds: Vec<PieceKind> = rules.army().map(|(k, _)| k).collect();
            assert_eq!(fitted.weights.material.keys().copied().collect::<Vec<_>>(), kinds, "{name}");
            assert!(fitted.games >= 1000 && fitted.fitted_loss <= fitted.derived_loss, "{name}");
            let e = Evaluator::with(&rules, EvalWeights::Fitted);
            assert_eq!(e.weights, fitted.weights, "{name}");
            assert_ne!(e.weights, Evaluator::new(&rules).weights, "{name}");
        }
        // A custom rule set has none: the fitted choice falls back to the derived weights.
        let mut spec: serde_json::Value = serde_json::from_str(&crate::rules::RuleSet::preset("classic").unwrap().to_json()).unwrap();
        spec["name"] = "custom".into();
        let custom = Arc::new(RuleSet::from_json(&spec.to_string()).unwrap());
        assert!(Weights::shipped(&custom).is_none());
        assert_eq!(Evaluator::with(&custom, EvalWeights::Fitted).weights, Evaluator::new(&custom).weights);
    }

    fn at(text: &str) -> (Position, Evaluator) {
        let pos = Position::from_position_string(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let eval = Evaluator::new(pos.rules());
        (pos, eval)
    }

    fn point(pos: &Position, name: &str) -> Point {
        pos.rules().board().point(name).unwrap()
    }

    const S: SideSet = SideSet::single(Side::South);
    const N: SideSet = SideSet::single(Side::North);

    #[test]
    fn mobility_and_threat_values_come_from_the_rules() {
        let (_, e) = at("classic d1=SFL,a6=SRG,a7=NBN,b12=NFL move S 4 4");
        assert!(e.mobile(PieceKind::Commander) && e.mobile(PieceKind::Engineer));
        assert!(!e.mobile(PieceKind::Mine) && !e.mobile(PieceKind::Flag));
        // A flag threatened counts as the game; any other piece as its value.
        assert_eq!(e.threat_value(PieceKind::Flag), FLAG);
        assert_eq!(e.threat_value(PieceKind::BattalionCommander), e.value(PieceKind::BattalionCommander));
        assert!(e.value(PieceKind::Commander) > e.value(PieceKind::BattalionCommander));
        assert!(e.value(PieceKind::BattalionCommander) > 0.0);
    }

    #[test]
    fn the_best_capture_is_the_value_taken_less_the_value_lost() {
        // South's regiment commander takes North's battalion commander; North's only
        // capture would lose it, so North has none worth making.
        let (pos, e) = at("classic d1=SFL,a6=SRG,a7=NBN,b12=NFL move S 4 4");
        let bn = e.value(PieceKind::BattalionCommander);
        assert_eq!(e.best_capture(&pos, S, N), bn);
        assert_eq!(e.best_capture(&pos, N, S), 0.0);
        // A bomb trades itself for the commander: the commander's value less the bomb's.
        let (pos, e) = at("classic d1=SFL,a6=SBO*,a7=NGN,b12=NFL move S 4 4");
        let trade = e.value(PieceKind::Commander) - e.value(PieceKind::Bomb);
        assert!(trade > 0.0);
        assert_eq!(e.best_capture(&pos, S, N), trade);
        // Own pieces next to each other are no targets.
        let (pos, e) = at("classic d1=SFL,a5=SBN,a6=SGN,b12=NFL move S 4 4");
        assert_eq!(e.best_capture(&pos, S, N), 0.0);
        // A piece that cannot move threatens nothing.
        let (pos, e) = at("classic b1=SMI,d1=SFL,b2=NPL*,b12=NFL move S 4 4");
        assert_eq!(e.best_capture(&pos, S, N), 0.0);
        // The flag within reach: a capture worth the game.
        let (pos, e) = at("classic d1=SFL,b11=SEN*,b12=NFL move S 4 4");
        assert_eq!(e.best_capture(&pos, S, N), FLAG);
    }

    #[test]
    fn the_evaluation_adds_material_pressure_and_threats_by_who_moves_next() {
        for (to_move, ours_next) in [("S", true), ("N", false)] {
            let (pos, e) = at(&format!("classic d1=SFL,a6=SRG,a7=NBN,b12=NFL move {to_move} 4 4"));
            let (rg, bn) = (e.value(PieceKind::RegimentCommander), e.value(PieceKind::BattalionCommander));
            let board = pos.rules().board();
            let d = board.distance(point(&pos, "a6"), point(&pos, "b12")) as f32;
            let pressure = 0.4 * (1.0 - d / e.span);
            // South threatens the battalion commander; North threatens nothing.
            let threat = if ours_next { THREAT * bn } else { OWN_THREAT * bn };
            let want = rg - bn + pressure + threat;
            let got = e.eval(&pos, Side::South);
            assert!((got - want).abs() < 1e-4, "{to_move} to move: {got} != {want}");
            // North's evaluation: its material and its loss to come, no pressure (its
            // piece's nearest enemy flag is South's).
            let d_n = board.distance(point(&pos, "a7"), point(&pos, "d1")) as f32;
            let threat_n = if ours_next { -THREAT * bn } else { -OWN_THREAT * bn };
            let want_n = bn - rg + 0.4 * (1.0 - d_n / e.span) + threat_n;
            let got_n = e.eval(&pos, Side::North);
            assert!((got_n - want_n).abs() < 1e-4, "{to_move} to move, North: {got_n} != {want_n}");
        }
        // A guard next to its own flag counts.
        let (pos, e) = at("classic c1=SPL*,d1=SFL,b12=NFL,e12=NPL move N 4 4");
        let board = pos.rules().board();
        let d = board.distance(point(&pos, "c1"), point(&pos, "b12")) as f32;
        let want = 0.4 * (1.0 - d / e.span) + 0.3;
        let got = e.eval(&pos, Side::South);
        assert!((got - want).abs() < 1e-4, "{got} != {want}");
    }

    #[test]
    fn a_finished_game_is_worth_the_win_sooner_rather_than_later() {
        let (pos, e) = at("classic d1=SFL,a6=SRG over N 4 4 result=S:flag_captured");
        assert_eq!(e.eval(&pos, Side::South), WIN - pos.ply() as f32);
        assert_eq!(e.eval(&pos, Side::North), -WIN + pos.ply() as f32);
    }

    #[test]
    fn every_flag_counts_however_many_an_army_has() {
        // RuleSet checks only that an army fills its side's points, so a loaded rule set
        // may give it several flags: four a side here (two allies of 四国 would have two,
        // and so two each). Pressure is towards the nearest of all the enemy's flags, a
        // guard stands next to any of its own (the evaluation once kept two own and three
        // enemy flags, and a read of a third own flag was one `<` away from a panic).
        let rules = Arc::new(
            RuleSet::from_json(
                r#"{"extends": "classic", "name": "four-flags",
                    "army": {"flag": 4, "commander": 1, "army_commander": 1, "division_commander": 2,
                             "brigade_commander": 2, "regiment_commander": 2, "battalion_commander": 2,
                             "company_commander": 3, "platoon_leader": 3, "engineer": 3, "mine": 1, "bomb": 1},
                    "deployment": {"roles": ["post", "hq"], "constraints": []}}"#,
            )
            .unwrap(),
        );
        let e = Evaluator::new(&rules);
        let board = rules.board();
        let p = |n: &str| board.point(n).unwrap();
        let own = ["a1", "c1", "e1", "c6"].map(p);
        let enemy = ["a12", "c12", "e12", "c7"].map(p);
        let (cc, pl) = (PieceKind::CompanyCommander, PieceKind::PlatoonLeader);
        let mut guarded = 0;
        for spot in ["a2", "c2", "e2", "c5", "b8", "d8", "a11", "e11"].map(p) {
            let mut pieces: Vec<(Point, Side, PieceKind)> = Vec::new();
            pieces.extend(own.iter().map(|&f| (f, Side::South, PieceKind::Flag)));
            pieces.extend(enemy.iter().map(|&f| (f, Side::North, PieceKind::Flag)));
            pieces.push((spot, Side::South, cc));
            pieces.push((p("b10"), Side::North, pl));
            let pos = Position::from_arrangement(rules.clone(), &pieces, Side::South).unwrap();
            assert!(pos.result().is_none());
            let d = enemy.iter().map(|&f| board.distance(spot, f)).min().unwrap() as f32;
            let guard = own.iter().any(|&f| board.distance(spot, f) <= 1);
            guarded += guard as u32;
            let want = e.value(cc) - e.value(pl)
                + 0.4 * (1.0 - d / e.span)
                + if guard { 0.3 } else { 0.0 }
                + THREAT * e.best_capture(&pos, S, N)
                - OWN_THREAT * e.best_capture(&pos, N, S);
            let got = e.eval(&pos, Side::South);
            assert!((got - want).abs() < 1e-3, "guard at {}: {got} != {want}", board.name_of(spot));
        }
        assert_eq!(guarded, 4);
    }

    #[test]
    fn an_evaluator_is_for_the_same_rule_set_on_the_same_board() {
        let classic = RuleSet::preset("classic").unwrap();
        let e = Evaluator::new(&classic);
        assert!(e.is_for(&classic, EvalWeights::Derived));
        // Another copy of the same rule set: the evaluator serves it too.
        let again = Arc::new(RuleSet::from_json(&classic.to_json()).unwrap());
        assert!(!Arc::ptr_eq(&classic, &again) && e.is_for(&again, EvalWeights::Derived));
        assert!(!e.is_for(&RuleSet::preset("siguo").unwrap(), EvalWeights::Derived));
        // The same rule set with the other weights is another evaluator.
        assert!(!e.is_for(&classic, EvalWeights::Fitted));
        // The same description compiled on another board is not the same rule set (the
        // evaluator reads the board: distances, air points).
        let mut board = classic.board().spec().clone();
        board.name = "renamed".into();
        let other = RuleSet::with_board(classic.spec().clone(), crate::board::Board::from_spec(board).unwrap().into()).unwrap();
        assert!(!e.is_for(&Arc::new(other), EvalWeights::Derived));
    }
}
