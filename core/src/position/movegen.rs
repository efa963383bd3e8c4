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

use crate::board::{Board, Point, PointBits, PointSet, Role, WordTables};
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
    /// Targets a piece of the army may not take. "Base": what no piece of the army may
    /// take, whatever its kind — its own side's pieces, face-down pieces and (翻棋)
    /// face-up pieces sheltered in an HQ or guarded by mines; "camped": enemy pieces in
    /// camps (for kinds that may not attack into camps); "held HQs": occupied HQs
    /// (missiles and `hq_safe_from` kinds never target them). In one word, entry `i`
    /// is base, with camped if `i & 1` and held HQs if `i & 2`: a kind's set is one
    /// load. In more words (where four sets cost more to build than two tests per
    /// piece), entries 0, 1, 2 are base, camped and held HQs. See
    /// [`Mover::reachable`].
    forbidden: [S; 4],
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
            forbidden = forbidden.or(shielded(pos, occupied.minus(own).minus(face_down)));
        }
        let (enemy_arm, known_others) = if rules.has_arms() {
            (
                [Arm::Army, Arm::Navy, Arm::Air].map(|arm| S::of(&pos.occupied_by_arm(arm)).minus(own)),
                known_others(pos, army, occupied),
            )
        } else {
            ([S::EMPTY; 3], S::EMPTY)
        };
        let camped = occupied.minus(own).and(S::of(&board.camps));
        let held_hqs = S::of(&board.hqs).and(occupied);
        Mover {
            occupied,
            own,
            forbidden: if S::ONE_WORD {
                [forbidden, forbidden.or(camped), forbidden.or(held_hqs), forbidden.or(camped).or(held_hqs)]
            } else {
                [forbidden, camped, held_hqs, S::EMPTY]
            },
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
        if !pos.rules().has_arms() || t.is_empty() {
            return t;
        }
        // Only a known defender can be refused: on the target, or for a plane over an
        // empty air position, below it.
        let mut candidates = t.and(self.known_others);
        if pos.rules().mobility(me.kind) == Mobility::Fly {
            candidates = candidates.or(t.and(S::of(&pos.rules().board().air)).minus(self.occupied));
        }
        if candidates.is_empty() {
            t
        } else {
            t.minus(self.known_forbidden(pos, me, candidates))
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
        // Points the mover may not end on: see [`Mover::forbidden`]; and enemy pieces
        // in camps for a kind that spares them. A missile never targets a piece in an
        // HQ, whether it flies or walks (rules §4: "HQ or airport targets: —"; nothing
        // can walk onto an airport); nor does a kind of `hq_safe_from` (a variant in
        // which bombs may not attack HQs, docs/sources.md#modern-bomb-hq). HQs are
        // public.
        let mut forbidden = if S::ONE_WORD {
            self.forbidden[usize::from(profile.spares_camps) | usize::from(profile.spares_hqs) << 1]
        } else {
            let mut f = self.forbidden[0];
            if profile.spares_camps {
                f = f.or(self.forbidden[1]);
            }
            if profile.spares_hqs {
                f = f.or(self.forbidden[2]);
            }
            f
        };
        // Arms are public: a target of an arm the mover can never attack is refused.
        if profile.refused_arms != 0 {
            for (arm, enemies) in self.enemy_arm.into_iter().enumerate() {
                if profile.refused_arms >> arm & 1 == 1 {
                    forbidden = forbidden.or(enemies);
                }
            }
        }
        let mut t = match mobility {
            _ if locked => S::EMPTY,
            Mobility::Immobile => S::EMPTY,
            Mobility::Step | Mobility::RailStraight | Mobility::RailTurn => {
                land_run(rules, self.occupied, from, mobility, forbidden)
            }
            Mobility::Sail | Mobility::SailAndLand => ship_targets(rules.board(), from, mobility, forbidden),
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
    /// Of `candidates`, the targets that hold a known piece or (for a plane) are an
    /// empty air position over one ([`Mover::targets`] picks them). (Out of line:
    /// only rule sets with arms call it.)
    #[inline(never)]
    fn known_forbidden(&self, pos: &Position, me: Slot, candidates: S) -> S {
        let rules = pos.rules();
        let board = rules.board();
        // The defender is the piece on the target, or for a plane over an empty air
        // position the piece below it; only a known one can be refused.
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

/// The lean generator of land-only rule sets
/// ([`RuleSet::land_classes`](crate::rules::RuleSet::land_classes): classic, 翻棋,
/// 四国): the same targets as [`Mover::targets`], with every rule-set question asked
/// once per generation instead of once per piece, and each piece's class one load.
/// Sets are held as `S` ([`PointBits`]): one word on a board of at most 64 points.
pub(crate) struct LandGen<'a, S> {
    rules: &'a crate::rules::RuleSet,
    occupied: S,
    /// What a piece may not end on, by its class's forbidden bits (see
    /// [`Mover::forbidden`]).
    forbidden: [S; 4],
    classes: &'a [u8; PieceKind::COUNT],
    /// Straight runs are read by ray segments (no `rail_all_turn`).
    straight_segments: bool,
    /// The army's face-up pieces that may move (not locked in an HQ).
    pieces: S,
}

/// Whether `p` is on the railway, from the word tables on a one-word board.
#[inline(always)]
fn on_rail<S: PointBits>(board: &Board, p: Point) -> bool {
    if S::ONE_WORD {
        if let Some(words) = board.words.as_deref() {
            return words.on_rail >> (p.index() & 63) & 1 == 1;
        }
    }
    board.is_railway(p)
}

/// The class byte of the piece on `p` (occupied).
#[inline(always)]
fn class_at(pos: &Position, classes: &[u8; PieceKind::COUNT], p: Point) -> u8 {
    // A piece id is below MAX_PIECES, a power of two: the mask keeps the index in
    // bounds without a check.
    const _: () = assert!(super::MAX_PIECES.is_power_of_two());
    classes[pos.slots[usize::from(pos.cells[p.index()]) & (super::MAX_PIECES - 1)].kind as usize]
}

impl<'a, S: PointBits> LandGen<'a, S> {
    /// The generator of `army`'s moves in `pos`, if the rule set is land-only.
    #[inline(always)]
    pub(crate) fn new(pos: &'a Position, army: Side) -> Option<LandGen<'a, S>> {
        let rules: &'a crate::rules::RuleSet = &pos.rules;
        let classes = rules.land_classes()?;
        let mover = Mover::<S>::new(pos, army);
        let opts = rules.options();
        let forbidden = if S::ONE_WORD {
            mover.forbidden
        } else {
            let [base, camped, held_hqs, _] = mover.forbidden;
            [base, base.or(camped), base.or(held_hqs), base.or(camped).or(held_hqs)]
        };
        Some(LandGen {
            rules,
            occupied: mover.occupied,
            forbidden,
            classes,
            straight_segments: !opts.rail_all_turn,
            pieces: S::of(&pos.occ[army as usize]).minus(S::of(&pos.hidden)).minus(mover.locked),
        })
    }

    /// The targets of a piece of class `class` (not immobile) on `p`.
    #[inline(always)]
    fn targets(&self, p: Point, class: u8) -> S {
        use crate::rules::LandClass;
        let board = self.rules.board();
        let forbidden = self.forbidden[usize::from(class >> 2 & 3)];
        let mut t = steps::<S>(board, p).minus(forbidden);
        let moves = class & 3;
        if moves < LandClass::STRAIGHT || !on_rail::<S>(board, p) {
            return t;
        }
        if moves == LandClass::STRAIGHT && self.straight_segments {
            straight_runs(self.rules, p, self.occupied, forbidden, &mut t);
            return t;
        }
        let mobility = if moves == LandClass::TURN { Mobility::RailTurn } else { Mobility::RailStraight };
        land_run(self.rules, self.occupied, p, mobility, forbidden)
    }

    /// Appends every move of the army, in the order of [`Mover::targets`] over the
    /// pieces by point (the order the rules' fingerprint hashes).
    #[inline(always)]
    pub(crate) fn moves_into(&self, pos: &Position, out: &mut Vec<crate::Action>) {
        self.pieces.for_each(|from| {
            let class = class_at(pos, self.classes, from);
            if class & 3 == 0 {
                return;
            }
            let t = self.targets(from, class);
            debug_assert!(t == Mover::<S>::new(pos, pos.slots[usize::from(pos.cells[from.index()])].owner).targets(
                pos,
                from,
                pos.slots[usize::from(pos.cells[from.index()])]
            ));
            for w in 0..S::WORDS {
                extend_by_word(out, w, t.word_at(w), |to| crate::Action::Move { from, to });
            }
        });
    }

    /// Calls `f(from, targets)` for every piece of the army that has a target, in the
    /// order of [`LandGen::moves_into`].
    #[inline(always)]
    pub(crate) fn for_each_targets(&self, pos: &Position, mut f: impl FnMut(Point, S)) {
        self.pieces.for_each(|from| {
            let class = class_at(pos, self.classes, from);
            if class & 3 == 0 {
                return;
            }
            let t = self.targets(from, class);
            if !t.is_empty() {
                f(from, t);
            }
        });
    }

    /// Whether `army` has a move, if the rule set is land-only: a mobile piece with an
    /// empty point one step away (nothing forbids entering an empty point) settles
    /// most positions without the mover's forbidden sets; else any target.
    #[inline(always)]
    pub(crate) fn can_move(pos: &Position, army: Side) -> Option<bool> {
        let rules = pos.rules();
        let classes = rules.land_classes()?;
        let board = rules.board();
        let locked = if rules.options().hq_locks { S::of(&board.hqs) } else { S::EMPTY };
        let occupied = S::of(&pos.occupied);
        let pieces = S::of(&pos.occ[army as usize]).minus(S::of(&pos.hidden)).minus(locked);
        // A piece that has moved is of a mobile kind: no class to look up, and in the
        // open more often than the back rows the other pieces start with.
        let moved = pieces.and(S::of(&pos.moved));
        if moved.any(|p| !steps::<S>(board, p).minus(occupied).is_empty()) {
            return Some(true);
        }
        let mut mobile = moved;
        let free_step = pieces.minus(moved).any(|p| {
            if class_at(pos, classes, p) & 3 == 0 {
                return false;
            }
            mobile.insert(p);
            !steps::<S>(board, p).minus(occupied).is_empty()
        });
        if free_step {
            return Some(true);
        }
        if mobile.is_empty() {
            return Some(false);
        }
        let gen = LandGen::<S>::new(pos, army)?;
        Some(mobile.any(|p| !gen.targets(p, class_at(pos, classes, p)).is_empty()))
    }
}

/// Appends `action(p)` for every point `p` of word `w` of a set (its bits `bits`), in
/// increasing order. A map over a range has an exact length the vector trusts: one
/// capacity check, then plain stores; an empty word (most pieces of the back rows have
/// no move) appends nothing.
#[inline(always)]
pub(crate) fn extend_by_word(out: &mut Vec<crate::Action>, w: usize, mut bits: u64, action: impl Fn(Point) -> crate::Action) {
    if bits == 0 {
        return;
    }
    out.extend((0..bits.count_ones()).map(|_| {
        let p = Point((w * 64) as u8 | bits.trailing_zeros() as u8);
        bits &= bits.wrapping_sub(1);
        action(p)
    }));
}

/// The points of `candidates` (occupied, face up) whose piece may not be attacked
/// because an HQ shelters it or its side's mines guard it ([`Position::shielded`]),
/// counting each side's mines at most once. (Out of line: only 翻棋 asks.)
#[inline(never)]
fn shielded<S: PointBits>(pos: &Position, candidates: S) -> S {
    let opts = pos.rules().options();
    let board = pos.rules().board();
    let mut out = S::EMPTY;
    // The HQ shelter: a face-up piece in an HQ, unless a mine or the flag.
    if opts.hq_shelter {
        candidates.and(S::of(&board.hqs)).for_each(|q| {
            if !matches!(pos.slots[usize::from(pos.cells[q.index()])].kind, PieceKind::Mine | PieceKind::Flag) {
                out.insert(q);
            }
        });
    }
    // The mines' guard: a face-up flag while its side has a mine on the board. Flags
    // never move, so a piece that has moved is none.
    if opts.flag_guarded_by_mines {
        let mut mines_left: [Option<bool>; 4] = [None; 4];
        candidates.minus(S::of(&pos.moved)).for_each(|q| {
            let s = pos.slots[usize::from(pos.cells[q.index()])];
            if s.kind == PieceKind::Flag && *mines_left[s.owner as usize].get_or_insert_with(|| pos.has_mines(s.owner)) {
                out.insert(q);
            }
        });
    }
    debug_assert!(!candidates.any(|q| pos.shielded(q) != out.contains(q)));
    out
}

/// The occupied points, not `army`'s own, whose piece `army`'s player knows: the
/// points of the pieces of the player's knowledge (a set of piece ids), less the
/// army's own ids. (Out of line: only rule sets with arms ask.)
#[inline(never)]
fn known_others<S: PointBits>(pos: &Position, army: Side, occupied: S) -> S {
    let mut known = S::EMPTY;
    let Some(player) = pos.player_of(army) else { return known };
    let rules = pos.rules();
    let mut ids = pos.known[player as usize];
    // The army's pieces have the ids of its place in the turn order.
    if let Some(place) = rules.sides().iter().position(|&s| s == army) {
        let n = rules.army_size() as u32;
        let own = 1u128.checked_shl(n).map_or(u128::MAX, |b| b - 1);
        ids &= !own.checked_shl(place as u32 * n).unwrap_or(0);
    }
    while ids != 0 {
        let id = ids.trailing_zeros() as usize;
        ids &= ids - 1;
        let s = pos.slots[id];
        if s.at != super::OFF_BOARD && s.owner != army && pos.cells[s.at as usize] as usize == id {
            known.insert(Point(s.at));
        }
    }
    debug_assert!(known == {
        let mut slow = S::EMPTY;
        occupied.minus(S::of(&pos.occupied_by(army))).for_each(|q| {
            if pos.knows(player, q) {
                slow.insert(q);
            }
        });
        slow
    });
    known
}

/// The land steps (road and railway neighbours) of `p`, in the form `S`: from the
/// board's [`WordTables`] on a board of at most 64 points.
#[inline(always)]
pub(crate) fn steps<S: PointBits>(board: &Board, p: Point) -> S {
    if S::ONE_WORD {
        if let Some(words) = board.words.as_deref() {
            return S::from_word(words.step[p.index() & 63]);
        }
    }
    S::of(&board.step[p.index()])
}

/// Road steps and railway runs of a land piece of a given mobility on `from`, with the
/// board's occupancy given (public knowledge; used by inference too). (Always inlined:
/// in move generation's loop over pieces the one-word run is a few instructions.)
#[inline(always)]
pub(crate) fn land_run<S: PointBits>(
    rules: &crate::rules::RuleSet,
    occupied: S,
    from: Point,
    mobility: Mobility,
    forbidden: S,
) -> S {
    if S::ONE_WORD {
        if let Some(words) = rules.board().words.as_deref() {
            return S::from_word(word_run(rules, words, occupied.word(), from, mobility, forbidden.word()));
        }
    }
    walked_run(rules, occupied, from, mobility, forbidden)
}

/// [`land_run`] on a board of at most 64 points, from its [`WordTables`]: a road step
/// is one mask, straight railway runs read the rule set's ray segments
/// ([`straight_runs`]), and the engineer's turning run is a flood fill over the
/// railway masks.
#[inline(always)]
fn word_run(
    rules: &crate::rules::RuleSet,
    words: &WordTables,
    occupied: u64,
    from: Point,
    mobility: Mobility,
    forbidden: u64,
) -> u64 {
    let i = from.index() & 63;
    let mut t = words.step[i] & !forbidden;
    if !matches!(mobility, Mobility::RailStraight | Mobility::RailTurn) || words.on_rail >> i & 1 == 0 {
        return t;
    }
    let opts = rules.options();
    if mobility == Mobility::RailTurn || opts.rail_all_turn {
        // Layer by layer, `limit` steps deep: a layer's empty points carry the run on
        // (a pier ends it); its occupied points end it (a target if enterable).
        let limit = match (mobility, opts.rail_max_steps) {
            (Mobility::RailTurn, _) | (_, None) => u32::MAX,
            (_, Some(n)) => u32::from(n),
        };
        let stops = words.piers | occupied;
        let mut seen = 1u64 << i;
        let mut frontier = seen;
        let mut depth = 0;
        while frontier != 0 && depth < limit {
            let mut layer = 0;
            let mut f = frontier;
            while f != 0 {
                layer |= words.rail[f.trailing_zeros() as usize & 63];
                f &= f - 1;
            }
            layer &= !seen;
            seen |= layer;
            frontier = layer & !stops;
            t |= layer & !forbidden;
            depth += 1;
        }
        return t;
    }
    straight_runs(rules, from, occupied, forbidden, &mut t);
    t
}

/// [`land_run`] over the board's set tables (boards of more than 64 points): straight
/// runs by the rule set's ray segments, turning runs layer by layer. (Out of line.)
#[inline(never)]
fn walked_run<S: PointBits>(
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
        straight_runs(rules, from, occupied, forbidden, &mut t);
    }
    t
}

/// Adds to `t` where straight railway runs from `from` may end (each ray cut after
/// `rail_max_steps` points): along each ray, the points up to its first occupied one,
/// and that one if enterable. The ray is read by segments ([`RaySegment`]): in each,
/// the first occupied point is its lowest (highest) occupied bit.
///
/// [`RaySegment`]: crate::board::RaySegment
#[inline]
fn straight_runs<S: PointBits>(rules: &crate::rules::RuleSet, from: Point, occupied: S, forbidden: S, t: &mut S) {
    let segments = rules.rail_segments(from);
    let base = rules.rail_segment_of_start(from);
    let mut k = 0;
    while k < segments.len() {
        let seg = segments[k];
        let w = usize::from(seg.word);
        let blockers = seg.mask & occupied.word_at(w);
        if blockers == 0 {
            t.or_word(w, seg.mask);
            k += 1;
            continue;
        }
        let (first, open) = if seg.rising {
            let first = blockers & blockers.wrapping_neg();
            (first, seg.mask & first.wrapping_sub(1))
        } else {
            let first = 1u64 << (63 - blockers.leading_zeros());
            (first, seg.mask & !(first | (first - 1)))
        };
        t.or_word(w, open | first & !forbidden.word_at(w));
        // The rest of this ray is behind the blocker.
        k = seg.ray_end as usize - base;
    }
}

/// Sea steps; for landing ships also the landing, road steps ashore, and going back.
fn ship_targets<S: PointBits>(board: &crate::board::Board, from: Point, mobility: Mobility, forbidden: S) -> S {
    let i = from.index();
    if board.sea.contains(from) {
        let mut t = S::of(&board.sea_step[i]);
        if mobility == Mobility::SailAndLand && board.roles[i] == Role::Anchorage {
            t = t.or(harbour_mouths(board, S::of(&board.coast[i])));
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

fn harbour_mouths<S: PointBits>(board: &crate::board::Board, set: S) -> S {
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
    let rules = pos.rules();
    // Only a scouting plane under `recon_lock_on` asks whether its run ends on an enemy.
    let asks = rules.mobility(kind) == Mobility::Fly && rules.options().recon_lock_on && rules.has_ability(kind, Ability::Scout);
    manner_in(rules, pos.occupied(), from, to, kind, asks && lock_on_target(pos, from, to))
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
    // `recon_lock_on`: a scout's attack is made from where it is (lock-on).
    if mobility == Mobility::Fly && rules.options().recon_lock_on && rules.has_ability(kind, Ability::Scout) && enemy_target {
        return Attack::Strike;
    }
    if mobility == Mobility::Immobile {
        return Attack::Strike;
    }
    if mobility != Mobility::Fly && board.air.contains(to) {
        // A ground or sea piece against a plane: anti-aircraft fire, or a missile.
        return if rules.has_ability(kind, Ability::AntiAir) { Attack::Strike } else { Attack::Flight };
    }
    let ship = matches!(mobility, Mobility::Sail | Mobility::SailAndLand);
    if rules.profile(kind).strikes && !moves_onto(rules, occupied, from, to, kind) {
        // Its own movement could not make the attack (locked in an HQ, out of reach, or
        // a kind that attacks only with its abilities): an ability made it. A missile
        // flew (the outcome is the same), also one a rule set makes sail or fly; a
        // mover a rule set gives `bombard` or `strike` fired from where it stands, as a
        // gunboat or a fort does (a ship's gun is read below).
        if rules.has_ability(kind, Ability::Flight) {
            return Attack::Flight;
        }
        if !ship && mobility != Mobility::Fly {
            if rules.has_ability(kind, Ability::Bombard) && board.land.contains(to) && board.coast[from.index()].contains(to) {
                return Attack::Bombardment;
            }
            if rules.has_ability(kind, Ability::Strike) {
                return Attack::Strike;
            }
        }
    }
    if ship {
        let landing = mobility == Mobility::SailAndLand
            && (board.land.contains(from) || board.roles[to.index()] == Role::HarbourMouth && board.coast[from.index()].contains(to));
        if board.land.contains(to) && !landing {
            return Attack::Bombardment;
        }
    }
    Attack::Move
}

/// Whether a piece of `kind` on `from` may make an attack on `to` by its own movement:
/// not locked in an HQ (`hq_locks`), allowed to end a step or run on an enemy (not a
/// kind of `attacks_only_by_ability`), and reaching `to` by road or rail, by sea or
/// landing, or (a flyer) by an air run, which ends on an air position.
fn moves_onto(rules: &crate::rules::RuleSet, occupied: PointSet, from: Point, to: Point, kind: PieceKind) -> bool {
    let board = rules.board();
    let mobility = rules.mobility(kind);
    !(rules.options().hq_locks && board.roles[from.index()] == Role::Hq)
        && (rules.profile(kind).step_attacks || !occupied.contains(to))
        && match mobility {
            Mobility::Fly => board.air.contains(to),
            Mobility::Sail | Mobility::SailAndLand => ship_targets(board, from, mobility, PointSet::EMPTY).contains(to),
            _ => land_run(rules, occupied, from, mobility, PointSet::EMPTY).contains(to),
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// Straight railway runs read by segments end where a walk along each ray ends:
    /// every preset's board, whole rays and rays cut after 1, 2 and 3 steps, many
    /// occupancies (sets of every word: siguo and the sanjun boards pass 64 points).
    #[test]
    fn straight_runs_by_segments_are_the_walks() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut rays_seen = 0;
        for name in RuleSet::preset_names() {
            for limit in [None, Some(1u8), Some(2), Some(3)] {
                let json = format!(
                    r#"{{"extends": "{name}", "name": "cut", "options": {{"rail_max_steps": {}}}}}"#,
                    limit.map_or("null".to_owned(), |n| n.to_string())
                );
                let rules = RuleSet::load(&json).unwrap();
                let board = rules.board();
                let n = board.len();
                for round in 0..40 {
                    // Sparse to dense occupancies, forbidden a part of them.
                    let mut occupied = PointSet::EMPTY;
                    let mut forbidden = PointSet::EMPTY;
                    for i in 0..n {
                        let r = next();
                        if r % 8 < round % 8 {
                            occupied.insert(Point(i as u8));
                            if r >> 8 & 1 == 1 {
                                forbidden.insert(Point(i as u8));
                            }
                        }
                    }
                    for from in 0..n {
                        let from = Point(from as u8);
                        let mut by_segments = PointSet::EMPTY;
                        straight_runs(&rules, from, occupied, forbidden, &mut by_segments);
                        let mut walked = PointSet::EMPTY;
                        let (first, last) = board.ray_of[from.index()];
                        for &(a, b) in &board.ray_spans[first as usize..last as usize] {
                            rays_seen += 1;
                            let ray = &board.ray_points[a as usize..b as usize];
                            for &q in &ray[..ray.len().min(limit.map_or(usize::MAX, usize::from))] {
                                if occupied.contains(q) {
                                    if !forbidden.contains(q) {
                                        walked.insert(q);
                                    }
                                    break;
                                }
                                walked.insert(q);
                            }
                        }
                        assert_eq!(by_segments, walked, "{name}, limit {limit:?}, from {}", board.name_of(from));
                        if n <= 64 {
                            let mut word = 0u64;
                            straight_runs(&rules, from, occupied.0[0], forbidden.0[0], &mut word);
                            assert_eq!(word, walked.0[0], "{name} in one word, limit {limit:?}");
                        }
                    }
                }
            }
        }
        assert!(rays_seen > 10_000);
    }

    /// A ray whose ids do not run one way is cut into segments that do, each within
    /// one word (siguo's board has such rays, and rays across words).
    #[test]
    fn segments_run_one_way_within_a_word() {
        let rules = RuleSet::preset("siguo").unwrap();
        let board = rules.board();
        let (of, segments) = board.ray_segments(None);
        let mut mixed = 0;
        for p in 0..board.len() {
            let (a, b) = of[p];
            let (first, last) = board.ray_of[p];
            let rays = &board.ray_spans[first as usize..last as usize];
            // As many rays as ray ends, in order.
            let mut ends: Vec<u32> = segments[a as usize..b as usize].iter().map(|s| s.ray_end).collect();
            ends.dedup();
            assert_eq!(ends.len(), rays.len());
            assert_eq!(ends.last().copied().unwrap_or(a), b);
            for (r, &(s, e)) in rays.iter().enumerate() {
                let start = if r == 0 { a } else { ends[r - 1] };
                let ray = &board.ray_points[s as usize..e as usize];
                let segs = &segments[start as usize..ends[r] as usize];
                mixed += usize::from(segs.len() > 1);
                // The segments cover the ray's points in order, each one way.
                let mut i = 0;
                for seg in segs {
                    let k = seg.mask.count_ones() as usize;
                    let part = &ray[i..i + k];
                    assert!(part.iter().all(|q| q.index() >> 6 == usize::from(seg.word)));
                    assert!(part.windows(2).all(|w| (w[0] < w[1]) == seg.rising));
                    assert_eq!(part.iter().fold(0u64, |m, q| m | 1 << (q.index() & 63)), seg.mask);
                    i += k;
                }
                assert_eq!(i, ray.len());
            }
        }
        assert!(mixed > 0, "siguo has rays that need more than one segment");
    }
}
