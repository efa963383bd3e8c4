//! Legality and play: the legal actions of the side to act, the check that refuses an
//! illegal action with its reason, and what an action does to the board.

use crate::action::Action;
use crate::board::{Point, PointBits, PointSet, Role};
use crate::combat::{Attack, CombatOutcome};
use crate::rules::resolution;
use crate::position::movegen::{LandGen, Mover};
use crate::piece::{PieceKind, Side};
use crate::rules::{Ability, Mobility, Scouting};

use super::end::Losers;
use super::{Eliminations, EndReason, ActionOutcome, Phase, PlayError, Position, Reveal, RevealCause, NO_PIECE, OFF_BOARD};

impl Position {
    /// The legal actions of the side to act, in a fixed order (by start point, then
    /// target point). Empty when the game is not in the move phase.
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut out = Vec::with_capacity(64);
        self.legal_actions_into(&mut out);
        out
    }

    /// Like [`Position::legal_actions`], filling a buffer the caller reuses.
    pub fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.phase == Phase::Reaction {
            let from = Point(self.slots[self.react as usize].at);
            out.extend(self.evasion_steps(from).iter().map(|to| Action::Move { from, to }));
            return;
        }
        if self.phase != Phase::Move {
            return;
        }
        let side = self.rules.sides()[self.turn as usize];
        if let Some(from) = self.obligation(side) {
            out.extend(self.leaving_targets(from).iter().map(|to| Action::Move { from, to }));
            return;
        }
        if let Some(army) = self.armies[side as usize] {
            let one_word = self.rules.board().fits_one_word();
            if one_word && self.rules.land_classes().is_some() {
                LandGen::<u64>::new(self, army).expect("a land-only rule set").moves_into(self, out);
            } else if let Some(gen) = LandGen::<PointSet>::new(self, army) {
                gen.moves_into(self, out);
            } else if one_word {
                self.moves_into::<u64>(army, out);
            } else {
                self.moves_into::<PointSet>(army, out);
            }
        }
        // 翻棋's flips, word by word.
        for (w, &bits) in self.hidden.0.iter().enumerate() {
            crate::position::movegen::extend_by_word(out, w, bits, |at| Action::Flip { at });
        }
    }

    /// Calls `f(from, targets)` for every face-up piece of `army` with a target: the
    /// points it may move to, attack or strike, as its legal moves have them (without
    /// a plane's obligation to move away). The army's situation is worked out once for
    /// all its pieces, in one machine word where the board fits: for evaluations that
    /// look at every piece's reach, many times cheaper than [`Position::targets`] per
    /// piece.
    pub(crate) fn for_each_targets(&self, army: Side, mut f: impl FnMut(Point, PointSet)) {
        let one_word = self.rules.board().fits_one_word();
        if one_word && self.rules.land_classes().is_some() {
            let gen = LandGen::<u64>::new(self, army).expect("a land-only rule set");
            gen.for_each_targets(self, |from, t| f(from, PointSet([t, 0, 0, 0])));
        } else if let Some(gen) = LandGen::<PointSet>::new(self, army) {
            gen.for_each_targets(self, f);
        } else if one_word {
            let mover = Mover::<u64>::new(self, army);
            u64::of(&self.occ[army as usize]).minus(u64::of(&self.hidden)).for_each(|from| {
                let t = mover.targets(self, from, self.slots[self.cells[from.index()] as usize]);
                if t != 0 {
                    f(from, PointSet([t, 0, 0, 0]));
                }
            });
        } else {
            let mover = Mover::<PointSet>::new(self, army);
            self.occ[army as usize].minus(self.hidden).for_each(|from| {
                let t = mover.targets(self, from, self.slots[self.cells[from.index()] as usize]);
                if !t.is_empty() {
                    f(from, t);
                }
            });
        }
    }

    /// Appends the moves of `army`'s face-up pieces, computing with sets of form `S`.
    #[inline]
    fn moves_into<S: PointBits>(&self, army: Side, out: &mut Vec<Action>) {
        let mover = Mover::<S>::new(self, army);
        S::of(&self.occ[army as usize]).minus(S::of(&self.hidden)).for_each(|from| {
            let me = self.slots[self.cells[from.index()] as usize];
            mover.targets(self, from, me).for_each(|to| out.push(Action::Move { from, to }));
        });
    }

    /// Whether `side` (a player) has any legal action in the current position.
    ///
    /// (Asked after every action, for the side to act next.)
    pub fn has_legal_move(&self, side: Side) -> bool {
        !self.hidden.is_empty()
            || self.armies[side as usize].is_some_and(|army| {
                let one_word = self.rules.board().fits_one_word();
                let lean = if one_word { LandGen::<u64>::can_move(self, army) } else { LandGen::<PointSet>::can_move(self, army) };
                if let Some(can) = lean {
                    debug_assert_eq!(can, self.army_can_move::<PointSet>(army));
                    can
                } else if one_word {
                    self.army_can_move::<u64>(army)
                } else {
                    self.army_can_move::<PointSet>(army)
                }
            })
    }

    /// Whether a face-up piece of `army` has a target, computing with sets of form `S`.
    fn army_can_move<S: PointBits>(&self, army: Side) -> bool {
        let board = self.rules.board();
        let pieces = S::of(&self.occ[army as usize]).minus(S::of(&self.hidden));
        let occupied = S::of(&self.occupied);
        // A land piece free to move with an empty point one road step away has a legal
        // move (nothing forbids entering an empty point); most positions are settled by
        // that without generating any targets.
        let locked = if self.rules.options().hq_locks { S::of(&board.hqs) } else { S::EMPTY };
        let free_step = pieces.minus(locked).any(|p| {
            let kind = self.slots[self.cells[p.index()] as usize].kind;
            matches!(self.rules.mobility(kind), Mobility::Step | Mobility::RailStraight | Mobility::RailTurn)
                && !crate::position::movegen::steps::<S>(board, p).minus(occupied).is_empty()
        });
        free_step || {
            let mover = Mover::<S>::new(self, army);
            pieces.any(|p| {
                let me = self.slots[self.cells[p.index()] as usize];
                !mover.targets(self, p, me).is_empty()
            })
        }
    }

    /// The point of the plane `player` must move away this turn, if any (a plane that
    /// was repelled or scouted must move away on its owner's next turn if it can).
    pub fn obligation(&self, player: Side) -> Option<Point> {
        let army = self.armies[player as usize]?;
        let id = self.obliged[army as usize];
        if id == NO_PIECE || self.slots[id as usize].at == OFF_BOARD {
            return None;
        }
        let at = Point(self.slots[id as usize].at);
        (!self.leaving_targets(at).is_empty()).then_some(at)
    }

    /// The targets of the piece on `at` that take it off its point: every target but a
    /// strike, which is made from where the striker stands (a recon's lock-on under
    /// `recon_lock_on`). Only these discharge an obligation to move away. Whether an
    /// action is a strike depends only on public facts (kinds of one's own pieces, the
    /// owners on the target).
    pub(super) fn leaving_targets(&self, at: Point) -> PointSet {
        let mut t = self.targets(at);
        if let Some(me) = self.slot_at(at) {
            for to in t.iter() {
                if crate::position::movegen::manner(self, at, to, me.kind) == Attack::Strike {
                    t.remove(to);
                }
            }
        }
        t
    }

    /// Empty sea points a submarine on `p` may step to.
    pub(super) fn evasion_steps(&self, p: Point) -> PointSet {
        self.rules.board().sea_step[p.index()].minus(self.occupied)
    }

    /// Whether an action is legal for the side to act.
    pub fn is_legal(&self, action: Action) -> bool {
        self.check(action).is_ok()
    }

    /// Checks an action for the side to act; the error says why it is refused.
    pub fn check(&self, action: Action) -> Result<(), PlayError> {
        let board = self.rules.board();
        let name = |p: Point| board.shared_name(p);
        match self.phase {
            Phase::Deploy => return Err(PlayError::NotMovePhase),
            Phase::Over => return Err(PlayError::GameOver),
            Phase::Reaction => {
                let sub = Point(self.slots[self.react as usize].at);
                return match action {
                    Action::Move { from, to } if from == sub => {
                        if self.evasion_steps(sub).contains(to) {
                            Ok(())
                        } else {
                            Err(PlayError::Unreachable {
                                kind: self.slots[self.react as usize].kind,
                                from: name(from),
                                to: name(to),
                            })
                        }
                    }
                    _ => Err(PlayError::ReactionPending(name(sub))),
                };
            }
            Phase::Move => {}
        }
        let side = self.rules.sides()[self.turn as usize];
        let (from, to) = match action {
            Action::Move { from, to } => (from, to),
            Action::Flip { at } => {
                return if self.is_empty_at(at) {
                    Err(PlayError::NoPiece(name(at)))
                } else if !self.hidden.contains(at) {
                    Err(PlayError::FaceUp(name(at)))
                } else {
                    Ok(())
                };
            }
        };
        let id = self.cells[from.index()];
        if id == NO_PIECE {
            return Err(PlayError::NoPiece(name(from)));
        }
        if self.hidden.contains(from) {
            return Err(PlayError::FaceDown(name(from)));
        }
        let slot = self.slots[id as usize];
        if self.armies[side as usize] != Some(slot.owner) {
            return Err(PlayError::NotYourPiece(name(from)));
        }
        if let Some(must) = self.obligation(side) {
            if must != from || self.targets(from).contains(to) && !self.leaving_targets(from).contains(to) {
                return Err(PlayError::MustMoveAway(name(must)));
            }
        }
        if self.targets(from).contains(to) {
            return Ok(());
        }
        if crate::position::movegen::reachable(self, from).contains(to) {
            // Reachable, but an attack the mover knows is forbidden.
            let def = if self.is_empty_at(to) { board.below(to).unwrap_or(to) } else { to };
            if let Some((_, target)) = self.piece_at(def) {
                return Err(PlayError::ForbiddenAttack { kind: slot.kind, from: name(from), target, to: name(def) });
            }
        }
        let mobility = self.rules.mobility(slot.kind);
        if !self.rules.profile(slot.kind).step_attacks
            && self.slot_at(to).is_some_and(|t| !self.rules.team_of(slot.owner).contains(t.owner))
            && matches!(mobility, Mobility::Step | Mobility::RailStraight | Mobility::RailTurn)
            && crate::position::movegen::land_run(&self.rules, self.occupied, from, mobility, PointSet::EMPTY).contains(to)
        {
            return Err(PlayError::AttacksOnlyByAbility { kind: slot.kind, from: name(from), to: name(to) });
        }
        if mobility == Mobility::Immobile {
            return Err(PlayError::Immobile {
                point: name(from),
                kind: slot.kind,
            });
        }
        if self.rules.options().hq_locks && board.role(from) == Role::Hq {
            return Err(PlayError::InHeadquarters(name(from)));
        }
        match self.slot_at(to) {
            Some(_) if self.hidden.contains(to) => Err(PlayError::TargetFaceDown(name(to))),
            Some(t) if t.owner == slot.owner => Err(PlayError::OwnPiece(name(to))),
            Some(t) if self.rules.team_of(slot.owner).contains(t.owner) => Err(PlayError::AllyPiece(name(to))),
            Some(_) if self.rules.hq_safe_from(slot.kind) && board.role(to) == Role::Hq => Err(PlayError::ProtectedByHq(name(to))),
            Some(_) if !self.rules.may_attack_camps(slot.kind) && board.role(to) == Role::Camp => {
                Err(PlayError::ProtectedByCamp(name(to)))
            }
            Some(t) if self.rules.deals() && self.shielded(to) => Err(if t.kind == PieceKind::Flag {
                PlayError::FlagGuardedByMines(name(to))
            } else {
                PlayError::ProtectedByHq(name(to))
            }),
            _ => Err(PlayError::Unreachable {
                kind: slot.kind,
                from: name(from),
                to: name(to),
            }),
        }
    }

    /// Plays an action of the side to act. An illegal action is refused with the reason
    /// and leaves the position unchanged.
    pub fn play(&mut self, action: Action) -> Result<ActionOutcome, PlayError> {
        self.check(action)?;
        Ok(self.play_unchecked(action))
    }

    /// Plays an action known to be legal (e.g. taken from [`Position::legal_actions`]).
    ///
    /// Playing an illegal action this way leaves the position consistent but not one
    /// the rules could reach; debug builds assert legality.
    pub fn play_unchecked(&mut self, action: Action) -> ActionOutcome {
        debug_assert!(self.check(action).is_ok(), "play_unchecked: illegal {action:?}");
        let (from, to) = match action {
            Action::Move { from, to } => (from, to),
            Action::Flip { at } => return self.flip(at),
        };
        if self.phase == Phase::Reaction {
            return self.evasion_step(from, to);
        }
        let side = self.rules.sides()[self.turn as usize];
        let att = self.cells[from.index()];
        let att_slot = self.slots[att as usize];
        let att_kind = att_slot.kind;
        let army = att_slot.owner;
        self.obliged[army as usize] = NO_PIECE;
        let rules = self.rules.clone();
        let board = rules.board();
        let mut out = ActionOutcome::new(side, from, to, att_kind);
        let manner = crate::position::movegen::manner(self, from, to, att_kind);
        out.struck = matches!(manner, Attack::Strike | Attack::Bombardment);
        let flying = rules.mobility(att_kind) == Mobility::Fly;
        let mut removed = false;
        let mut flag_taken = false;

        // A plane is shot down at the first enemy anti-aircraft piece it flies over or
        // onto; the gun is shown to the plane's owner.
        if flying && manner != Attack::Strike {
            if let Some((at, gun)) = self.first_gun_on_run(from, to, army) {
                let g = self.slots[gun as usize];
                self.known[side as usize] |= 1u128 << gun;
                out.push_reveal(Reveal {
                    point: Point(g.at),
                    owner: g.owner,
                    kind: g.kind,
                    to: Some(side),
                    cause: RevealCause::AntiAir,
                });
                out.shot_down_at = Some(at);
                // A shoot-down is a combat too: open play shows both pieces.
                self.open_play_reveal(&mut out, (att, from), (gun, Point(g.at)));
                self.remove(att);
                self.end_turn(true, &mut out.eliminated);
                out.result = self.result;
                return out;
            }
        }

        // The defender: the piece on the target; for a plane over an empty air position,
        // an enemy piece on the surface below.
        let def_at = if !self.is_empty_at(to) {
            Some(to)
        } else if flying {
            board.below(to).filter(|&s| self.owner_at(s).is_some_and(|o| !rules.team_of(army).contains(o)))
        } else {
            None
        };
        let Some(def_at) = def_at else {
            self.relocate(att, to);
            self.moved.insert(to);
            self.end_turn(false, &mut out.eliminated);
            out.result = self.result;
            return out;
        };
        let def = self.cells[def_at.index()];
        let def_slot = self.slots[def as usize];
        out.defender_at = Some(def_at);
        // An attack the rules forbid on a piece whose kind the mover could not see (so it
        // was legal) is void: the referee rules it repelled.
        let outcome = self.ruling(att, def, def_at);
        out.combat = Some((def_slot.owner, def_slot.kind, outcome));
        let def_player = self.player_of(def_slot.owner);
        if att_kind == PieceKind::Engineer {
            let scouting = rules.options().engineer_scouts;
            out.scouted = scouting;
            match scouting {
                Scouting::Off => {}
                Scouting::Attacker => self.known[side as usize] |= 1u128 << def,
                Scouting::Everyone | Scouting::Sacrifice => self.reveal_to_all(def),
            }
        }
        if rules.has_ability(att_kind, Ability::Scout) {
            self.known[side as usize] |= 1u128 << def;
            out.push_reveal(Reveal {
                point: def_at,
                owner: def_slot.owner,
                kind: def_slot.kind,
                to: Some(side),
                cause: RevealCause::Scouted,
            });
        }
        if board.is_air(def_at) && rules.has_ability(att_kind, Ability::AntiAir) && outcome.defender_leaves() {
            if let Some(p) = def_player {
                self.known[p as usize] |= 1u128 << att;
                out.push_reveal(Reveal { point: from, owner: army, kind: att_kind, to: Some(p), cause: RevealCause::AntiAir });
            }
        }
        self.open_play_reveal(&mut out, (att, from), (def, def_at));
        // Who leaves and who moves (rules::resolution): a bombarding ship never
        // leaves; a missile never enters the air; a repelled plane stays above a
        // surface target but where it was against a plane.
        let res = resolution(&rules, att_kind, outcome, manner);
        let attacker_leaves = res.attacker_leaves;
        if res.defender_leaves {
            self.remove(def);
            removed = true;
            flag_taken = def_slot.kind == PieceKind::Flag;
        }
        if attacker_leaves {
            self.remove(att);
            removed = true;
        } else if res.attacker_moves
            && !(manner == Attack::Flight && board.is_air(to))
            && (outcome == CombatOutcome::Win || self.is_empty_at(to))
        {
            self.relocate(att, to);
        }
        if flying && outcome == CombatOutcome::Repel {
            self.obliged[army as usize] = att;
        }
        // An attack by moving onto the target is a move, whatever its outcome.
        if manner == Attack::Move && self.slots[att as usize].at != OFF_BOARD {
            self.moved.insert(Point(self.slots[att as usize].at));
        }
        let mut n = 0;
        let mut commanders_lost = 0;
        let mut lost_army = army;
        for (gone, kind, owner) in [
            (outcome.defender_leaves(), def_slot.kind, def_slot.owner),
            (attacker_leaves, att_kind, army),
        ] {
            if gone && kind == PieceKind::Commander {
                commanders_lost += 1;
                lost_army = owner;
                if rules.options().commander_reveals_flag {
                    if let Some(flag_at) = self.reveal_flag(owner) {
                        out.flags_revealed[n] = Some((owner, flag_at));
                        n += 1;
                    }
                }
            }
        }
        // Every player this action puts out, decided together: the result never depends
        // on which army is listed first (labels are not rules).
        let mut losers = Losers::default();
        if flag_taken {
            losers.push(self.player_of(def_slot.owner), EndReason::FlagCaptured);
        }
        if rules.options().commander_capture && commanders_lost == 1 {
            losers.push(self.player_of(lost_army), EndReason::CommanderCaptured);
        }
        if removed && rules.options().lose_without_movable_pieces {
            for &a in rules.sides() {
                if !self.has_movable_piece(a) {
                    losers.push(self.player_of(a), EndReason::NoMovablePieces);
                }
            }
        }
        self.eliminate_together(losers.as_slice(), &mut out.eliminated);
        // A submarine that evaded steps away first, if the rule set asks for it and it can.
        if outcome == CombatOutcome::Evade
            && rules.options().evade_step
            && self.phase == Phase::Move
            && !self.evasion_steps(def_at).is_empty()
        {
            self.react = def;
            self.react_removed = removed;
            self.phase = Phase::Reaction;
            out.reaction_due = Some(def_at);
            return out;
        }
        self.end_turn(removed, &mut out.eliminated);
        out.result = self.result;
        out
    }

    /// `open_play` (密布明战法): both pieces of a combat — each given as its id and
    /// point — are shown to every player. Every path that ends a combat calls this.
    fn open_play_reveal(&mut self, out: &mut ActionOutcome, (att, from): (u8, Point), (def, def_at): (u8, Point)) {
        if !self.rules.options().open_play {
            return;
        }
        for (id, at) in [(att, from), (def, def_at)] {
            let s = self.slots[id as usize];
            self.reveal_to_all(id);
            out.push_reveal(Reveal { point: at, owner: s.owner, kind: s.kind, to: None, cause: RevealCause::OpenPlay });
        }
    }

    /// The reacting submarine steps away; then the interrupted turn ends.
    pub(super) fn evasion_step(&mut self, from: Point, to: Point) -> ActionOutcome {
        let id = self.react;
        let slot = self.slots[id as usize];
        let player = self.player_of(slot.owner).unwrap_or(slot.owner);
        self.relocate(id, to);
        self.moved.insert(to);
        let mut out = ActionOutcome::new(player, from, to, slot.kind);
        out.reaction = true;
        self.finish_reaction(&mut out.eliminated);
        out.result = self.result;
        out
    }

    /// Leaves the reaction phase and ends the turn that caused it.
    pub(super) fn finish_reaction(&mut self, report: &mut Eliminations) {
        self.phase = Phase::Move;
        self.react = NO_PIECE;
        let removed = std::mem::take(&mut self.react_removed);
        self.end_turn(removed, report);
    }

    /// The first enemy piece that shoots planes down under a plane's run from `from`
    /// to `to` — on any surface point the run passes over ([`crate::Board::passed_over`]:
    /// below its air positions and between them), excluding what is below the start —
    /// with where the plane came down: the air position above the gun, or the gun's
    /// own point when no air position is above it.
    pub(super) fn first_gun_on_run(&self, from: Point, to: Point, army: Side) -> Option<(Point, u8)> {
        let rules = &self.rules;
        let board = rules.board();
        board.passed_over(from, to).find_map(|s| {
            let id = self.cells[s.index()];
            if id == NO_PIECE {
                return None;
            }
            let g = self.slots[id as usize];
            (!rules.team_of(army).contains(g.owner) && rules.has_ability(g.kind, Ability::AntiAir))
                .then(|| (board.above(s).unwrap_or(s), id))
        })
    }

    /// Turns the face-down piece on `at` face up for everyone; the first flip gives the
    /// flipping player that piece's army and the other player the other army.
    pub(super) fn flip(&mut self, at: Point) -> ActionOutcome {
        let side = self.rules.sides()[self.turn as usize];
        let id = self.cells[at.index()];
        let slot = self.slots[id as usize];
        self.hidden.remove(at);
        self.reveal_to_all(id);
        let mut armies_assigned = false;
        if self.armies[side as usize].is_none() {
            armies_assigned = true;
            let sides = self.rules.sides().to_vec();
            self.armies[side as usize] = Some(slot.owner);
            let others = sides.iter().copied().filter(|s| *s != side);
            let mut free = sides.iter().copied().filter(|a| *a != slot.owner);
            for p in others {
                self.armies[p as usize] = free.next();
            }
        }
        let mut out = ActionOutcome::new(side, at, at, slot.kind);
        out.flipped = true;
        out.armies_assigned = armies_assigned;
        // A flip is progress for the draw rule, like a capture.
        self.end_turn(true, &mut out.eliminated);
        out.result = self.result;
        out
    }
}
