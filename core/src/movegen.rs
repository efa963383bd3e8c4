//! Move generation: where a piece may go, by road steps and railway runs.
//!
//! Legality uses only the board, occupancy and owners (public) and the mover's own
//! piece kind — never an enemy identity (rules/referee.md, principle 1).
//!
//! Occupancy is kept as bitsets ([`PointSet`]) so a piece's one-step targets are a few
//! word operations; railway runs walk precomputed straight rays, and the engineer's
//! turning runs are a breadth-first search over railway edges.

use crate::board::{Point, PointSet, Role};
use crate::position::Position;
use crate::rules::Mobility;

/// Every point the piece on `from` may move to or attack this turn.
#[inline]
pub(crate) fn targets(pos: &Position, from: Point) -> PointSet {
    let Some(me) = pos.slot_at(from) else {
        return PointSet::EMPTY;
    };
    let rules = pos.rules();
    let board = rules.board();
    let opts = rules.options();
    let mobility = rules.mobility(me.kind);
    if mobility == Mobility::Immobile || (opts.hq_locks && board.roles[from.index()] == Role::Hq) {
        return PointSet::EMPTY;
    }
    let occupied = pos.occupied();
    // Points the mover may not end on: its own and its allies' pieces, and enemy pieces
    // in camps.
    let mut own = pos.occupied_by(me.owner);
    let team = rules.team_of(me.owner);
    if team.len() > 1 {
        for ally in team.iter() {
            own = own.or(pos.occupied_by(ally));
        }
    }
    let mut forbidden = if opts.camps_protect {
        own.or(occupied.minus(own).and(board.camps))
    } else {
        own
    };
    // 翻棋: face-down pieces cannot be attacked, and the HQ shelter and the flag's mine
    // guard forbid attacks on face-up pieces, whose kinds (and the mines left) are public.
    // Elsewhere those kinds are hidden, so such an attack stays legal and is repelled.
    forbidden = forbidden.or(pos.face_down());
    if rules.deals() && (opts.hq_shelter || opts.flag_guarded_by_mines) {
        for q in occupied.minus(own).minus(pos.face_down()).iter() {
            if pos.shielded(q) {
                forbidden.insert(q);
            }
        }
    }
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
        // layer's empty points carry the run on; its occupied points end it (a target
        // if enterable).
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
            frontier = layer.minus(occupied);
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
