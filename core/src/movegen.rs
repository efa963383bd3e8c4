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

use crate::board::{Point, PointSet, Role};
use crate::combat::Attack;
use crate::piece::{Arm, PieceKind, Side};
use crate::position::{Position, Slot};
use crate::rules::{Ability, Mobility};

/// Every point the piece on `from` may move to, attack or strike this turn.
#[inline]
pub(crate) fn targets(pos: &Position, from: Point) -> PointSet {
    match pos.slot_at(from) {
        Some(me) => Mover::new(pos, me.owner).targets(pos, from, me),
        None => PointSet::EMPTY,
    }
}

/// Like [`targets`], keeping attacks the mover knows the rules forbid.
pub(crate) fn reachable(pos: &Position, from: Point) -> PointSet {
    match pos.slot_at(from) {
        Some(me) => Mover::new(pos, me.owner).reachable(pos, from, me),
        None => PointSet::EMPTY,
    }
}

/// What move generation needs to know about one army's situation, worked out once for
/// all of its pieces (one generation of legal actions asks it for every piece).
#[derive(Clone, Copy)]
pub(crate) struct Mover {
    /// The army's and its allies' pieces: never a target.
    own: PointSet,
    /// Targets no piece of the army may take, whatever its kind: its own side's pieces,
    /// face-down pieces and (翻棋) face-up pieces sheltered in an HQ or guarded by mines.
    forbidden: PointSet,
    /// Enemy pieces in camps (for kinds that may not attack into camps).
    camped: PointSet,
    /// Occupied HQs (missiles and `hq_safe_from` kinds never target them).
    held_hqs: PointSet,
    /// Enemy pieces of each arm (army, navy, air).
    enemy_arm: [PointSet; 3],
}

impl Mover {
    /// The situation of `army`'s pieces in `pos`.
    #[inline]
    pub(crate) fn new(pos: &Position, army: Side) -> Mover {
        let rules = pos.rules();
        let board = rules.board();
        let opts = rules.options();
        let occupied = pos.occupied();
        let mut own = pos.occupied_by(army);
        let team = rules.team_of(army);
        if team.len() > 1 {
            for ally in team.iter() {
                own = own.or(pos.occupied_by(ally));
            }
        }
        // 翻棋: face-down pieces cannot be attacked, and the HQ shelter and the flag's
        // mine guard forbid attacks on face-up pieces, whose kinds (and the mines left)
        // are public. Elsewhere those kinds are hidden, so such an attack stays legal
        // and is repelled.
        let mut forbidden = own.or(pos.face_down());
        if rules.deals() && (opts.hq_shelter || opts.flag_guarded_by_mines) {
            for q in occupied.minus(own).minus(pos.face_down()).iter() {
                if pos.shielded(q) {
                    forbidden.insert(q);
                }
            }
        }
        let enemy_arm = if rules.has_arms() {
            [Arm::Army, Arm::Navy, Arm::Air].map(|arm| pos.occupied_by_arm(arm).minus(own))
        } else {
            [PointSet::EMPTY; 3]
        };
        Mover {
            own,
            forbidden,
            camped: occupied.minus(own).and(board.camps),
            held_hqs: board.hqs.and(occupied),
            enemy_arm,
        }
    }

    /// Every point the piece `me` on `from` may move to, attack or strike this turn.
    #[inline]
    pub(crate) fn targets(&self, pos: &Position, from: Point, me: Slot) -> PointSet {
        let t = self.reachable(pos, from, me);
        if pos.rules().has_arms() && !t.is_empty() {
            t.minus(known_forbidden(pos, from, me, t))
        } else {
            t
        }
    }

    /// Like [`Mover::targets`], keeping attacks the mover knows the rules forbid.
    #[inline]
    pub(crate) fn reachable(&self, pos: &Position, from: Point, me: Slot) -> PointSet {
        let rules = pos.rules();
        let board = rules.board();
        let mobility = rules.mobility(me.kind);
        let strikes = rules.strikes(me.kind);
        // A piece in an HQ never moves again (`hq_locks`), but may still strike.
        let locked = rules.options().hq_locks && board.roles[from.index()] == Role::Hq;
        if (mobility == Mobility::Immobile || locked) && !strikes {
            return PointSet::EMPTY;
        }
        // Points the mover may not end on: see [`Mover`]; and enemy pieces in camps.
        let mut forbidden = self.forbidden;
        if !rules.may_attack_camps(me.kind) {
            forbidden = forbidden.or(self.camped);
        }
        // Arms are public: a target of an arm the mover can never attack is refused.
        if rules.has_arms() {
            for (arm, enemies) in [Arm::Army, Arm::Navy, Arm::Air].into_iter().zip(self.enemy_arm) {
                if !rules.attacks_arm(me.kind, arm) {
                    forbidden = forbidden.or(enemies);
                }
            }
        }
        // A missile never targets a piece in an HQ, whether it flies or walks (rules §4:
        // "HQ or airport targets: —"; nothing can walk onto an airport); nor does a kind
        // of `hq_safe_from` (seed 001's variant: bombs may not attack HQs). HQs are public.
        if rules.has_ability(me.kind, Ability::Flight) || rules.spares_hqs(me.kind) {
            forbidden = forbidden.or(self.held_hqs);
        }
        let mut t = match mobility {
            _ if locked => PointSet::EMPTY,
            Mobility::Immobile => PointSet::EMPTY,
            Mobility::Step | Mobility::RailStraight | Mobility::RailTurn => land_targets(pos, from, mobility, forbidden),
            Mobility::Sail | Mobility::SailAndLand => ship_targets(pos, from, mobility, forbidden),
            Mobility::Fly => air_targets(pos, from, self.own, forbidden),
        };
        if strikes {
            t = t.or(strike_targets(pos, from, me, forbidden));
        }
        t
    }
}

/// Targets holding a piece the mover *knows* it may not attack (a flag shown after its
/// commander fell, in `sanjun-forum`; a destroyer a recon scouted on a bridge point).
/// An attack on a hidden kind stays legal and is repelled; one the mover can see is
/// simply not a move, so a forbidden attack is never a free pass.
fn known_forbidden(pos: &Position, from: Point, me: Slot, t: PointSet) -> PointSet {
    let rules = pos.rules();
    let board = rules.board();
    let Some(player) = pos.player_of(me.owner) else { return PointSet::EMPTY };
    let flying = rules.mobility(me.kind) == Mobility::Fly;
    let mut out = PointSet::EMPTY;
    for q in t.and(pos.occupied().or(if flying { board.air } else { PointSet::EMPTY })).iter() {
        let def = if pos.occupied().contains(q) {
            q
        } else {
            match board.below[q.index()] {
                Some(s) if pos.occupied().contains(s) && !pos.occupied_by(me.owner).contains(s) => s,
                _ => continue,
            }
        };
        if def == from || !pos.knows(player, def) {
            continue;
        }
        if let Some((_, kind)) = pos.piece_at(def) {
            if rules.combat_outcome(me.kind, kind) == crate::combat::Outcome::Illegal {
                out.insert(q);
            }
        }
    }
    out
}

/// Road steps and railway runs of a land piece.
fn land_targets(pos: &Position, from: Point, mobility: Mobility, forbidden: PointSet) -> PointSet {
    land_run(pos.rules(), pos.occupied(), from, mobility, forbidden)
}

/// Road steps and railway runs of a land piece of a given mobility on `from`, with the
/// board's occupancy given (public knowledge; used by inference too).
pub(crate) fn land_run(
    rules: &crate::rules::RuleSet,
    occupied: PointSet,
    from: Point,
    mobility: Mobility,
    forbidden: PointSet,
) -> PointSet {
    let board = rules.board();
    let opts = rules.options();
    let mut t = board.step[from.index()].minus(forbidden);
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
        let mut seen = PointSet::EMPTY;
        seen.insert(from);
        let mut frontier = seen;
        let mut depth = 0;
        while !frontier.is_empty() && depth < limit {
            let mut layer = PointSet::EMPTY;
            for p in frontier.iter() {
                layer = layer.or(board.rail_mask[p.index()]);
            }
            layer = layer.minus(seen);
            seen = seen.or(layer);
            frontier = layer.minus(occupied).minus(board.piers);
            t = t.or(layer.minus(forbidden));
            depth += 1;
        }
    } else {
        let (first, last) = board.ray_of[from.index()];
        for &(start, end) in &board.ray_spans[first as usize..last as usize] {
            let ray = &board.ray_points[start as usize..end as usize];
            for &q in &ray[..ray.len().min(limit)] {
                if !occupied.contains(q) {
                    t.insert(q);
                } else {
                    if !forbidden.contains(q) {
                        t.insert(q);
                    }
                    break;
                }
            }
        }
    }
    t
}

/// Sea steps; for landing ships also the landing, road steps ashore, and going back.
fn ship_targets(pos: &Position, from: Point, mobility: Mobility, forbidden: PointSet) -> PointSet {
    let board = pos.rules().board();
    let i = from.index();
    if board.sea.contains(from) {
        let mut t = board.sea_step[i];
        if mobility == Mobility::SailAndLand && board.roles[i] == Role::Anchorage {
            t = t.or(harbour_mouths(pos, board.coast[i]));
        }
        return t.minus(forbidden);
    }
    if mobility != Mobility::SailAndLand {
        return PointSet::EMPTY;
    }
    // Ashore: road steps between land points, and back to sea from a harbour mouth.
    let mut t = board.step[i].and(board.land);
    if board.roles[i] == Role::HarbourMouth {
        for q in board.coast[i].iter() {
            if board.roles[q.index()] == Role::Anchorage {
                t.insert(q);
            }
        }
    }
    t.minus(forbidden)
}

fn harbour_mouths(pos: &Position, set: PointSet) -> PointSet {
    let board = pos.rules().board();
    set.iter().filter(|q| board.roles[q.index()] == Role::HarbourMouth).collect()
}

/// One straight air run: any position of an air line through `from`, flying over
/// everything, except one holding the mover's own (or an ally's) plane.
fn air_targets(pos: &Position, from: Point, own: PointSet, forbidden: PointSet) -> PointSet {
    let board = pos.rules().board();
    let occupied = pos.occupied();
    let mut t = PointSet::EMPTY;
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
fn strike_targets(pos: &Position, from: Point, me: Slot, forbidden: PointSet) -> PointSet {
    let rules = pos.rules();
    let board = rules.board();
    let enemy = pos.occupied().minus(forbidden);
    let i = from.index();
    let mut t = PointSet::EMPTY;
    if rules.has_ability(me.kind, Ability::Strike) {
        // A neighbouring land point, or a coast-linked sea point.
        t = t.or(board.step[i].and(board.land).or(board.coast[i]).and(enemy));
    }
    if rules.has_ability(me.kind, Ability::Bombard) {
        // Shore bombardment hits army pieces: a landed ship is not a shore target.
        t = t.or(board.coast[i].and(board.land).and(enemy).and(pos.occupied_by_arm(Arm::Army)));
    }
    if rules.has_ability(me.kind, Ability::AntiAir) {
        for q in enemy.and(board.air).iter() {
            if board.distance(from, q) as i32 <= crate::board::STRIKE_RANGE {
                t.insert(q);
            }
        }
    }
    if rules.has_ability(me.kind, Ability::Flight) {
        t = t.or(flight_targets(pos, from, forbidden));
    }
    t
}

/// A missile's flight from under the air lattice: along an air line through the
/// position above it, onto an enemy plane or the enemy piece below a position — never
/// one in an HQ or on an airport.
fn flight_targets(pos: &Position, from: Point, forbidden: PointSet) -> PointSet {
    let board = pos.rules().board();
    let Some(up) = board.above[from.index()] else {
        return PointSet::EMPTY;
    };
    let occupied = pos.occupied();
    let mut t = PointSet::EMPTY;
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
    if rules.has_ability(kind, Ability::Flight) && !land_run(rules, occupied, from, mobility, PointSet::EMPTY).contains(to) {
        // Out of reach by road or rail: the missile flew (the outcome is the same).
        return Attack::Flight;
    }
    Attack::Move
}
