//! Move generation: where a piece may go or strike — road steps, railway runs, sea
//! steps, landings, air runs, missile flights and strikes.
//!
//! Legality uses only the board, occupancy, owners and arms (public) and the mover's
//! own piece kind — never an enemy identity (docs/referee.md, principle 1).
//!
//! Occupancy is kept as bitsets ([`PointSet`]) so a piece's one-step targets are a few
//! word operations; railway runs walk precomputed straight rays, the engineer's turning
//! runs are a breadth-first search over railway edges, and air runs walk precomputed
//! air rays.

use crate::board::{Board, IdOrder, Point, PointBits, PointSet, Role};
use crate::combat::Attack;
use crate::piece::{Arm, PieceKind, Side};
use super::{Position, Slot};
use crate::rules::{Ability, Mobility};

/// Every point the piece on `from` may move to, attack or strike this turn.
#[inline]
pub(crate) fn targets(pos: &Position, from: Point) -> PointSet {
    match pos.slot_at(from) {
        Some(me) => Mover::<PointSet>::new(pos, me.owner).targets(pos, from, me),
        None => PointSet::EMPTY,
    }
}

/// Like [`targets`], keeping attacks the mover knows the rules forbid.
pub(crate) fn reachable(pos: &Position, from: Point) -> PointSet {
    match pos.slot_at(from) {
        Some(me) => Mover::<PointSet>::new(pos, me.owner).reachable(pos, from, me),
        None => PointSet::EMPTY,
    }
}

/// What move generation needs to know about one army's situation, worked out once for
/// all of its pieces (one generation of legal actions asks it for every piece). Sets
/// are held as `S` ([`PointBits`]): one word on a board of at most 64 points.
#[derive(Clone, Copy)]
pub(crate) struct Mover<S> {
    /// Every point holding a piece.
    occupied: S,
    /// The army's and its allies' pieces: never a target.
    own: S,
    /// Targets no piece of the army may take, whatever its kind: its own side's pieces,
    /// face-down pieces and (翻棋) face-up pieces sheltered in an HQ or guarded by mines.
    forbidden: S,
    /// Enemy pieces in camps (for kinds that may not attack into camps).
    camped: S,
    /// Occupied HQs (missiles and `hq_safe_from` kinds never target them).
    held_hqs: S,
    /// Enemy pieces of each arm (army, navy, air).
    enemy_arm: [S; 3],
    /// Points a piece never moves from again (HQs, under `hq_locks`).
    locked: S,
    /// Pieces not the army's own whose identity its player knows (only worked out
    /// when arms are public: see [`Mover::known_forbidden`]).
    known_others: S,
}

impl<S: PointBits> Mover<S> {
    /// The situation of `army`'s pieces in `pos`. (Always inlined, like
    /// [`Mover::targets`]: on one-word boards the sets then stay in registers.)
    #[inline(always)]
    pub(crate) fn new(pos: &Position, army: Side) -> Mover<S> {
        let rules = pos.rules();
        let board = rules.board();
        let opts = rules.options();
        let occupied = S::of(&pos.occupied());
        let face_down = S::of(&pos.face_down());
        let mut own = S::of(&pos.occupied_by(army));
        let team = rules.team_of(army);
        if team.len() > 1 {
            for ally in team.iter() {
                own = own.or(S::of(&pos.occupied_by(ally)));
            }
        }
        // 翻棋: face-down pieces cannot be attacked, and the HQ shelter and the flag's
        // mine guard forbid attacks on face-up pieces, whose kinds (and the mines left)
        // are public. Elsewhere those kinds are hidden, so such an attack stays legal
        // and is repelled.
        let mut forbidden = own.or(face_down);
        if rules.deals() && (opts.hq_shelter || opts.flag_guarded_by_mines) {
            occupied.minus(own).minus(face_down).for_each(|q| {
                if pos.shielded(q) {
                    forbidden.insert(q);
                }
            });
        }
        let (enemy_arm, known_others) = if rules.has_arms() {
            (
                [Arm::Army, Arm::Navy, Arm::Air].map(|arm| S::of(&pos.occupied_by_arm(arm)).minus(own)),
                known_others(pos, army, occupied),
            )
        } else {
            ([S::EMPTY; 3], S::EMPTY)
        };
        Mover {
            occupied,
            own,
            forbidden,
            camped: occupied.minus(own).and(S::of(&board.camps)),
            held_hqs: S::of(&board.hqs).and(occupied),
            enemy_arm,
            locked: if opts.hq_locks { S::of(&board.hqs) } else { S::EMPTY },
            known_others,
        }
    }

    /// Every point the piece `me` on `from` may move to, attack or strike this turn.
    /// (Always inlined: in the loop over an army's pieces the mover's sets stay in
    /// registers.)
    #[inline(always)]
    pub(crate) fn targets(&self, pos: &Position, from: Point, me: Slot) -> S {
        let t = self.reachable(pos, from, me);
        if pos.rules().has_arms() && !t.is_empty() {
            t.minus(self.known_forbidden(pos, me, t))
        } else {
            t
        }
    }

    /// Like [`Mover::targets`], keeping attacks the mover knows the rules forbid.
    #[inline(always)]
    pub(crate) fn reachable(&self, pos: &Position, from: Point, me: Slot) -> S {
        let rules = pos.rules();
        let profile = rules.profile(me.kind);
        let mobility = profile.mobility;
        // A piece in an HQ never moves again (`hq_locks`), but may still strike.
        let locked = self.locked.contains(from);
        if (mobility == Mobility::Immobile || locked) && !profile.strikes {
            return S::EMPTY;
        }
        // Points the mover may not end on: see [`Mover`]; and enemy pieces in camps.
        let mut forbidden = self.forbidden;
        if profile.spares_camps {
            forbidden = forbidden.or(self.camped);
        }
        // Arms are public: a target of an arm the mover can never attack is refused.
        if profile.refused_arms != 0 {
            for (arm, enemies) in self.enemy_arm.into_iter().enumerate() {
                if profile.refused_arms >> arm & 1 == 1 {
                    forbidden = forbidden.or(enemies);
                }
            }
        }
        // A missile never targets a piece in an HQ, whether it flies or walks (rules §4:
        // "HQ or airport targets: —"; nothing can walk onto an airport); nor does a kind
        // of `hq_safe_from` (a variant in which bombs may not attack HQs,
        // docs/sources.md#modern-bomb-hq). HQs are public.
        if profile.spares_hqs {
            forbidden = forbidden.or(self.held_hqs);
        }
        let mut t = match mobility {
            _ if locked => S::EMPTY,
            Mobility::Immobile => S::EMPTY,
            Mobility::Step | Mobility::RailStraight | Mobility::RailTurn => {
                land_run(rules, self.occupied, from, mobility, forbidden)
            }
            Mobility::Sail | Mobility::SailAndLand => ship_targets(pos, from, mobility, forbidden),
            Mobility::Fly => air_targets(pos, from, self.occupied, self.own, forbidden),
        };
        // `attacks_only_by_ability`: no step or run ends on an enemy piece (nor, for a
        // plane, over one); the abilities below may still reach it.
        if !profile.step_attacks && !t.is_empty() {
            t = t.minus(self.occupied);
            if mobility == Mobility::Fly {
                let board = rules.board();
                let mut over_enemy = S::EMPTY;
                t.and(S::of(&board.air)).for_each(|q| {
                    if board.below[q.index()].is_some_and(|s| self.occupied.contains(s) && !self.own.contains(s)) {
                        over_enemy.insert(q);
                    }
                });
                t = t.minus(over_enemy);
            }
        }
        if profile.strikes {
            t = t.or(strike_targets(pos, from, me, self.occupied, forbidden));
        }
        t
    }

    /// Targets holding a piece the mover *knows* it may not attack (a flag shown after
    /// its commander fell, in `sanjun-forum`; a destroyer a recon scouted on a bridge
    /// point). An attack on a hidden kind stays legal and is repelled; one the mover
    /// can see is simply not a move, so a forbidden attack is never a free pass.
    /// (Out of line: only rule sets with arms call it.)
    #[inline(never)]
    fn known_forbidden(&self, pos: &Position, me: Slot, t: S) -> S {
        let rules = pos.rules();
        let board = rules.board();
        // The defender is the piece on the target, or for a plane over an empty air
        // position the piece below it; only a known one can be refused.
        let mut candidates = t.and(self.known_others);
        if rules.mobility(me.kind) == Mobility::Fly {
            candidates = candidates.or(t.and(S::of(&board.air)).minus(self.occupied));
        }
        let mut out = S::EMPTY;
        candidates.for_each(|q| {
            let def = if self.occupied.contains(q) {
                q
            } else {
                match board.below[q.index()] {
                    Some(s) if self.known_others.contains(s) => s,
                    _ => return,
                }
            };
            if let Some((_, kind)) = pos.piece_at(def) {
                if rules.combat_outcome(me.kind, kind) == crate::combat::CombatOutcome::Illegal {
                    out.insert(q);
                }
            }
        });
        out
    }
}

/// The occupied points, not `army`'s own, whose piece `army`'s player knows. (Out of
/// line: only rule sets with arms ask.)
#[inline(never)]
fn known_others<S: PointBits>(pos: &Position, army: Side, occupied: S) -> S {
    let mut known = S::EMPTY;
    if let Some(player) = pos.player_of(army) {
        occupied.minus(S::of(&pos.occupied_by(army))).for_each(|q| {
            if pos.knows(player, q) {
                known.insert(q);
            }
        });
    }
    known
}

/// Road steps and railway runs of a land piece of a given mobility on `from`, with the
/// board's occupancy given (public knowledge; used by inference too).
pub(crate) fn land_run<S: PointBits>(
    rules: &crate::rules::RuleSet,
    occupied: S,
    from: Point,
    mobility: Mobility,
    forbidden: S,
) -> S {
    let board = rules.board();
    let opts = rules.options();
    let mut t = S::of(&board.step[from.index()]).minus(forbidden);
    if !matches!(mobility, Mobility::RailStraight | Mobility::RailTurn) || !board.is_railway(from) {
        return t;
    }
    let limit = match (mobility, opts.rail_max_steps) {
        (Mobility::RailTurn, _) | (_, None) => usize::MAX,
        (_, Some(n)) => n as usize,
    };
    if mobility == Mobility::RailTurn || opts.rail_all_turn {
        // Breadth-first over railway edges, one layer per step, `limit` steps deep: a
        // layer's empty points carry the run on (a pier ends it); its occupied points
        // end it (a target if enterable).
        let mut seen = S::EMPTY;
        seen.insert(from);
        let mut frontier = seen;
        let mut depth = 0;
        let stops = S::of(&board.piers).or(occupied);
        while !frontier.is_empty() && depth < limit {
            let mut layer = S::EMPTY;
            frontier.for_each(|p| layer = layer.or(S::of(&board.rail_mask[p.index()])));
            layer = layer.minus(seen);
            seen = seen.or(layer);
            frontier = layer.minus(stops);
            t = t.or(layer.minus(forbidden));
            depth += 1;
        }
    } else {
        let (first, last) = board.ray_of[from.index()];
        for r in first as usize..last as usize {
            straight_run(board, r, occupied, forbidden, limit, &mut t);
        }
    }
    t
}

/// Adds to `t` where a run along the straight railway ray `r` (an index of
/// `board.ray_spans`) of at most `limit` steps may end: the ray's points up to the
/// first occupied one, and that one if enterable.
#[inline]
fn straight_run<S: PointBits>(board: &Board, r: usize, occupied: S, forbidden: S, limit: usize, t: &mut S) {
    let ray = &board.ray_sets[r];
    // In one word, when ids rise (fall) along the whole ray, its first occupied point
    // is the lowest (highest) of its occupied points: a few instructions. Otherwise
    // walking the (short) ray is cheaper.
    if S::ONE_WORD && limit == usize::MAX && ray.order != IdOrder::Mixed {
        let points = S::of(&ray.points);
        let blockers = points.and(occupied);
        let (first, before) = if ray.order == IdOrder::Rising {
            let b = blockers.lowest();
            (b, b.map_or(points, |b| points.below(b)))
        } else {
            let b = blockers.highest();
            (b, b.map_or(points, |b| points.above(b)))
        };
        *t = t.or(before);
        if let Some(b) = first {
            if !forbidden.contains(b) {
                t.insert(b);
            }
        }
        return;
    }
    let (start, end) = board.ray_spans[r];
    let ray = &board.ray_points[start as usize..end as usize];
    for &q in &ray[..ray.len().min(limit)] {
        if occupied.contains(q) {
            if !forbidden.contains(q) {
                t.insert(q);
            }
            return;
        }
        t.insert(q);
    }
}

/// Sea steps; for landing ships also the landing, road steps ashore, and going back.
fn ship_targets<S: PointBits>(pos: &Position, from: Point, mobility: Mobility, forbidden: S) -> S {
    let board = pos.rules().board();
    let i = from.index();
    if board.sea.contains(from) {
        let mut t = S::of(&board.sea_step[i]);
        if mobility == Mobility::SailAndLand && board.roles[i] == Role::Anchorage {
            t = t.or(harbour_mouths(pos, S::of(&board.coast[i])));
        }
        return t.minus(forbidden);
    }
    if mobility != Mobility::SailAndLand {
        return S::EMPTY;
    }
    // Ashore: road steps between land points, and back to sea from a harbour mouth.
    let mut t = S::of(&board.step[i]).and(S::of(&board.land));
    if board.roles[i] == Role::HarbourMouth {
        S::of(&board.coast[i]).for_each(|q| {
            if board.roles[q.index()] == Role::Anchorage {
                t.insert(q);
            }
        });
    }
    t.minus(forbidden)
}

fn harbour_mouths<S: PointBits>(pos: &Position, set: S) -> S {
    let board = pos.rules().board();
    let mut out = S::EMPTY;
    set.for_each(|q| {
        if board.roles[q.index()] == Role::HarbourMouth {
            out.insert(q);
        }
    });
    out
}

/// One straight air run: any position of an air line through `from`, flying over
/// everything, except one holding the mover's own (or an ally's) plane.
fn air_targets<S: PointBits>(pos: &Position, from: Point, occupied: S, own: S, forbidden: S) -> S {
    let board = pos.rules().board();
    let mut t = S::EMPTY;
    let (first, last) = board.air_ray_of[from.index()];
    for &(start, end) in &board.air_ray_spans[first as usize..last as usize] {
        for &q in &board.air_ray_points[start as usize..end as usize] {
            if forbidden.contains(q) {
                continue;
            }
            // Over a surface enemy the run is an attack, which a camp (say) may forbid.
            if !occupied.contains(q) {
                if let Some(s) = board.below[q.index()] {
                    if forbidden.contains(s) && !own.contains(s) {
                        continue;
                    }
                }
            }
            t.insert(q);
        }
    }
    t
}

/// Strikes (the striker stays), anti-aircraft fire and missile flights.
fn strike_targets<S: PointBits>(pos: &Position, from: Point, me: Slot, occupied: S, forbidden: S) -> S {
    let rules = pos.rules();
    let board = rules.board();
    let enemy = occupied.minus(forbidden);
    let i = from.index();
    let land = S::of(&board.land);
    let coast = S::of(&board.coast[i]);
    let mut t = S::EMPTY;
    if rules.has_ability(me.kind, Ability::Strike) {
        // A neighbouring land point, or a coast-linked sea point.
        t = t.or(S::of(&board.step[i]).and(land).or(coast).and(enemy));
    }
    if rules.has_ability(me.kind, Ability::Bombard) {
        // Shore bombardment hits army pieces: a landed ship is not a shore target.
        t = t.or(coast.and(land).and(enemy).and(S::of(&pos.occupied_by_arm(Arm::Army))));
    }
    if rules.has_ability(me.kind, Ability::AntiAir) {
        enemy.and(S::of(&board.air)).for_each(|q| {
            if board.distance(from, q) as i32 <= crate::board::STRIKE_RANGE {
                t.insert(q);
            }
        });
    }
    if rules.has_ability(me.kind, Ability::Flight) {
        t = t.or(flight_targets(pos, from, occupied, forbidden));
    }
    t
}

/// A missile's flight from under the air lattice: along an air line through the
/// position above it, onto an enemy plane or the enemy piece below a position — never
/// one in an HQ or on an airport.
fn flight_targets<S: PointBits>(pos: &Position, from: Point, occupied: S, forbidden: S) -> S {
    let board = pos.rules().board();
    let Some(up) = board.above[from.index()] else {
        return S::EMPTY;
    };
    let mut t = S::EMPTY;
    let (first, last) = board.air_ray_of[up.index()];
    // Both an enemy plane at a position and the enemy piece below it are targets (two
    // actions: `e3-e12^` and `e3-e12`); any plane overhead is flown past.
    let mut consider = |q: Point| {
        if board.roles[q.index()] == Role::Airport {
            return;
        }
        if occupied.contains(q) && !forbidden.contains(q) {
            t.insert(q);
        }
        if let Some(s) = board.below[q.index()] {
            // `forbidden` holds the mover's own point and every occupied HQ.
            if occupied.contains(s) && !forbidden.contains(s) {
                t.insert(s);
            }
        }
    };
    consider(up);
    for &(start, end) in &board.air_ray_spans[first as usize..last as usize] {
        for &q in &board.air_ray_points[start as usize..end as usize] {
            consider(q);
        }
    }
    t
}

/// Whether a plane's run from `from` to `to` ends on an enemy piece: a plane at `to`,
/// or a surface piece below an empty air position.
fn lock_on_target(pos: &Position, from: Point, to: Point) -> bool {
    let board = pos.rules().board();
    let Some(me) = pos.slot_at(from) else { return false };
    let team = pos.rules().team_of(me.owner);
    let at = if pos.occupied().contains(to) { Some(to) } else { board.below(to) };
    at.and_then(|q| pos.owner_at(q)).is_some_and(|o| !team.contains(o))
}

/// The manner of a legal action (see [`targets`]).
pub(crate) fn manner(pos: &Position, from: Point, to: Point, kind: PieceKind) -> Attack {
    manner_in(pos.rules(), pos.occupied(), from, to, kind, lock_on_target(pos, from, to))
}

/// The manner of an action by a piece of `kind`, from the board's occupancy (public);
/// `enemy_target`: whether a plane's run ends on an enemy piece (owners are public).
pub(crate) fn manner_in(
    rules: &crate::rules::RuleSet,
    occupied: PointSet,
    from: Point,
    to: Point,
    kind: PieceKind,
    enemy_target: bool,
) -> Attack {
    let board = rules.board();
    let mobility = rules.mobility(kind);
    if mobility == Mobility::Fly {
        // `recon_lock_on`: a scout's attack is made from where it is (lock-on).
        if rules.options().recon_lock_on && rules.has_ability(kind, Ability::Scout) && enemy_target {
            return Attack::Strike;
        }
        return Attack::Move;
    }
    if mobility == Mobility::Immobile {
        return Attack::Strike;
    }
    if board.air.contains(to) {
        // A ground or sea piece against a plane: anti-aircraft fire, or a missile.
        return if rules.has_ability(kind, Ability::AntiAir) { Attack::Strike } else { Attack::Flight };
    }
    if matches!(mobility, Mobility::Sail | Mobility::SailAndLand) {
        let landing = mobility == Mobility::SailAndLand
            && (board.land.contains(from) || board.roles[to.index()] == Role::HarbourMouth && board.coast[from.index()].contains(to));
        if board.land.contains(to) && !landing {
            return Attack::Bombardment;
        }
        return Attack::Move;
    }
    if rules.has_ability(kind, Ability::Flight)
        && (!rules.profile(kind).step_attacks && occupied.contains(to)
            || !land_run(rules, occupied, from, mobility, PointSet::EMPTY).contains(to))
    {
        // Out of reach by road or rail, or a kind that attacks only with its abilities
        // (`attacks_only_by_ability`): the missile flew (the outcome is the same).
        return Attack::Flight;
    }
    Attack::Move
}
