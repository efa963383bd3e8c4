//! Inference: what one player can deduce about the pieces it cannot see.
//!
//! [`Beliefs`] is a player's information state made explicit: for every piece on the
//! board (and every piece that has left it) the set of identities it may still have —
//! its *candidates*. It is built only from what the player was told: its own setup and
//! its event log ([`Beliefs::from_player_record`] needs nothing else), or kept up to
//! date report by report ([`Beliefs::observe`]); both give the same beliefs.
//!
//! Deductions come from the rule set's data, never from per-preset code:
//! - **deployment**: a piece may only be a kind allowed on the point it started on
//!   (roles, rows from the back);
//! - **movement**: a piece that moved could make that move — its kind's mobility reaches
//!   the target with the board's occupancy at that time (so an immobile kind never moves,
//!   a run with a turn is an engineer's, a run longer than `rail_max_steps` likewise);
//! - **combat**: every attack, strike, bombardment and anti-aircraft shot keeps only
//!   pairs of kinds whose outcome in the compiled combat table (with the HQ shelter and the
//!   flag's mine guard) is the outcome observed, and whose manner (moving onto the target
//!   or striking from afar) matches the event;
//! - **planes**: a plane that flies past or onto an enemy piece unharmed shows that piece
//!   is no anti-aircraft kind; one shot down shows the piece below is;
//! - **reveals**: scouting, anti-aircraft guns, open play, flips (翻棋) and the flag shown
//!   when a commander falls — and a piece that left the board without its side's flag
//!   being shown was no commander;
//! - **counts**: the army's composition, propagated exactly: a candidate survives only if
//!   some assignment of kinds to *all* pieces of that army (on and off the board) gives
//!   every piece one of its candidates and every kind its exact count. This is the
//!   global-cardinality (Hall) argument, computed with a matching and its strongly
//!   connected components (Régin's filtering), so it subsumes "the k remaining pieces of
//!   a kind are among exactly k pieces" and "a kind is used up".
//!
//! Pieces are followed by point through the public events (identities are not public):
//! a piece moving from A to B carries its candidates with it.
//!
//! Candidates are kept as *types*: (army, kind) pairs, so that in 翻棋, where a face-down
//! piece's army is hidden too, the pool of both armies is one matching problem.

mod events;
mod matching;
pub(crate) mod model;
mod observe;
mod sample;
mod start;

use std::sync::Arc;

use crate::board::{Point, PointSet, Role, MAX_POINTS};
use crate::combat::{Attack, CombatOutcome};
use crate::piece::{PieceKind, Side};
use crate::limits::MAX_PIECES;
use crate::position::RevealCause;
use crate::record::PlayerRecord;
use crate::referee::{Event, GameError};
use crate::rules::{Ability, Mobility, RuleSet};
use crate::setup::Setup;

pub use model::{cli as model_cli, ModelError, ModelledSampler, OpponentModel, Probabilities, BUCKET_NAMES, MOVE_BUCKETS};
pub use observe::{ObservationSpec, Observer, Turn};
pub(crate) use events::event_from_json;
pub use sample::{Sample, SampleError};

const NONE: u8 = u8::MAX;
const MOVED: u8 = 1;
const KNOWN: u8 = 2;
const PUBLIC: u8 = 4;
/// The slot's origin is not known: a game started from a position string, where a
/// piece that had moved need not stand where it started, and a piece off the board
/// stood nowhere the player can name. Its `origin` is then only a stand-in point, and
/// the opponent model reads no deployment from it.
const ORIGIN_UNKNOWN: u8 = 8;
/// Under a deal, the piece has been turned face up. `PUBLIC` is not enough: a dealt
/// 四国 game shows the flag of a side whose commander fell to everyone while it stays
/// face down.
const FACE_UP: u8 = 16;

/// A set of piece kinds, as a bit mask over [`PieceKind`] indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KindSet(pub u32);

impl KindSet {
    /// Whether `kind` is in the set.
    pub const fn contains(self, kind: PieceKind) -> bool {
        self.0 >> kind as u32 & 1 == 1
    }

    /// Number of kinds in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds, in index order.
    pub fn iter(self) -> impl Iterator<Item = PieceKind> {
        PieceKind::ALL.into_iter().filter(move |k| self.contains(*k))
    }
}

/// What one player may deduce about every piece: the candidate identities of each piece
/// it cannot see, kept consistent with the army's composition.
///
/// ```
/// use junqi::{Game, Side, PieceKind};
/// let mut game = Game::new("classic", 1).unwrap();
/// game.deploy_random(Side::South, 1).unwrap();
/// game.deploy_random(Side::North, 2).unwrap();
/// let beliefs = game.beliefs(Side::South);
/// // North's piece on b12 stands in an HQ: it may be the flag; one on a front-row post
/// // may not (mines stand in the last two rows, the flag in an HQ).
/// let b = game.board();
/// assert!(beliefs.candidates(b.point("b12").unwrap()).contains(PieceKind::Flag));
/// assert!(!beliefs.candidates(b.point("a7").unwrap()).contains(PieceKind::Mine));
/// assert!(beliefs.is_consistent());
/// ```
#[derive(Clone, Debug)]
pub struct Beliefs {
    rules: Arc<RuleSet>,
    player: Side,
    /// The army the player commands (翻棋: `None` until the first flip).
    army: Option<Side>,
    /// Under a deal: the army each player commands (by `Side as usize`), from the
    /// public `ArmyAssigned` events; `None` until announced.
    armies: [Option<Side>; 4],
    /// Per piece ("slot"): candidate types, bit `army_index * 32 + kind`.
    mask: [u128; MAX_PIECES],
    /// Per slot: where it stands (`NONE` off the board or unused).
    at: [u8; MAX_PIECES],
    /// Per slot: where it started (`NONE` if unused).
    origin: [u8; MAX_PIECES],
    /// Slots `0..slots` are the only ones ever used.
    slots: u8,
    /// Per slot: `MOVED`, `KNOWN` (to the player), `PUBLIC` (shown to everyone),
    /// `ORIGIN_UNKNOWN`, `FACE_UP` (turned up, under a deal).
    flags: [u8; MAX_PIECES],
    /// Per point: the slot standing there (`NONE` if empty).
    cell: [u8; MAX_POINTS],
    occupied: PointSet,
    /// Per type: pieces of that type in the game.
    counts: [u8; 128],
    /// Types that occur.
    types: u128,
    /// Matching groups whose candidates changed since the last propagation.
    dirty: u8,
    consistent: bool,
    /// Setups the player knows (its own; its partners' where partners see each other),
    /// by side index, placed when that side's `Deployed` event arrives.
    setups: [Vec<(Point, PieceKind)>; 4],
    /// Slots removed by the combat of the action being read, and the sides whose flag it
    /// showed (for the commander deduction).
    removed: [u8; 2],
    flag_shown: u8,
    in_action: bool,
    /// The attacker and defender of the last combat: (slot, point before the action).
    last_att: (u8, u8),
    last_def: (u8, u8),
    /// How each piece has played (moves by kind of move, turns on the board), for
    /// modelled beliefs ([`OpponentModel`]); public facts only.
    evidence: model::Evidence,
}

/// Two beliefs are equal when they hold the same information about the same rule set:
/// every piece's place, candidates and flags.
impl PartialEq for Beliefs {
    fn eq(&self, o: &Beliefs) -> bool {
        self.rules.spec() == o.rules.spec()
            && self.player == o.player
            && self.army == o.army
            && self.armies == o.armies
            && self.mask == o.mask
            && self.at == o.at
            && self.origin == o.origin
            && self.flags == o.flags
            && self.cell == o.cell
            && self.consistent == o.consistent
            && self.evidence == o.evidence
    }
}

impl Eq for Beliefs {}

impl Beliefs {
    /// The beliefs of `player` before any event: `own` is its own setup (ignored in a
    /// rule set that deals face down). Feed it each report's events for this player with
    /// [`Beliefs::observe`].
    ///
    /// Fails if the setup is not a legal deployment for `player`.
    pub fn new(rules: Arc<RuleSet>, player: Side, own: Option<&Setup>) -> Result<Beliefs, GameError> {
        let mut setups: [Vec<(Point, PieceKind)>; 4] = Default::default();
        if let (Some(s), false) = (own, rules.deals()) {
            let idx = rules.sides().iter().position(|x| *x == player).unwrap_or(0);
            setups[idx] = s.validate(&rules, player)?.pieces().to_vec();
        }
        let mut counts = [0u8; 128];
        let mut types = 0u128;
        for (i, _) in rules.sides().iter().enumerate() {
            for (kind, n) in rules.army() {
                counts[i * 32 + kind as usize] = n;
                if n > 0 {
                    types |= 1u128 << (i * 32 + kind as usize);
                }
            }
        }
        let mut b = Beliefs {
            army: if rules.deals() { None } else { Some(player) },
            armies: [None; 4],
            rules: rules.clone(),
            player,
            mask: [0; MAX_PIECES],
            at: [NONE; MAX_PIECES],
            origin: [NONE; MAX_PIECES],
            slots: 0,
            flags: [0; MAX_PIECES],
            cell: [NONE; MAX_POINTS],
            occupied: PointSet::EMPTY,
            counts,
            types,
            dirty: 0,
            consistent: true,
            setups,
            removed: [NONE; 2],
            flag_shown: 0,
            in_action: false,
            last_att: (NONE, NONE),
            last_def: (NONE, NONE),
            evidence: model::Evidence::new(),
        };
        if rules.deals() {
            // Every deployable point of every side holds a face-down piece of either army.
            let mut points: Vec<Point> = rules
                .sides()
                .iter()
                .flat_map(|s| rules.deploy_points(*s).iter().copied())
                .collect();
            points.sort();
            for (slot, p) in points.into_iter().enumerate() {
                b.place(slot, p, types);
            }
            b.dirty = 1;
            b.propagate();
        }
        Ok(b)
    }

    /// The beliefs of a player from its own record alone (its setup and event log).
    pub fn from_player_record(record: &PlayerRecord) -> Result<Beliefs, GameError> {
        let rules = record.rules.load_for_inference()?;
        let mut b = Beliefs::new(rules.clone(), record.player, record.setup.as_ref())?;
        let mut events = Vec::with_capacity(record.events.len());
        for (i, v) in record.events.iter().enumerate() {
            events.push(
                events::event_from_json(rules.board(), v).map_err(|e| GameError::Record(format!("event {i}: {e}")))?,
            );
        }
        b.observe(&events);
        Ok(b)
    }

    /// Adds what the player knows of another side's setup (a partner's, in a rule set
    /// where partners see each other). Best called before the events are read (as
    /// [`crate::Game::beliefs`] does): deductions made before it was known are not
    /// redone.
    pub fn learn_setup(&mut self, side: Side, setup: &Setup) -> Result<(), GameError> {
        let deployment = setup.validate(&self.rules, side)?;
        let Some(idx) = self.side_index(side) else {
            return Ok(());
        };
        if self.rules.deals() {
            return Ok(());
        }
        self.setups[idx] = deployment.pieces().to_vec();
        let base = idx * self.rules.army_size();
        for (i, &(_, kind)) in deployment.pieces().iter().enumerate() {
            let slot = base + i;
            if self.origin[slot] == NONE {
                continue;
            }
            self.restrict(slot, 1u128 << (idx * 32 + kind as usize));
            self.flags[slot] |= KNOWN;
        }
        self.propagate();
        Ok(())
    }

    /// Reads one word of every cache line the next update and encoding will use, all
    /// at once: the loads are independent, so the processor waits for them together
    /// rather than for each in turn as the work reaches it. Worth it when the beliefs
    /// are likely out of cache (as in a [`VectorEnv`](crate::VectorEnv) of many games).
    pub(crate) fn warm(&self) {
        let n = self.slots as usize;
        let mut x = 0u64;
        for m in self.mask[..n].iter().step_by(4) {
            x ^= *m as u64;
        }
        for s in (0..n).step_by(64) {
            x ^= (self.at[s] ^ self.origin[s] ^ self.flags[s]) as u64;
        }
        for c in self.cell.iter().step_by(64) {
            x ^= *c as u64;
        }
        for c in self.counts.iter().step_by(64) {
            x ^= *c as u64;
        }
        std::hint::black_box(x);
    }

    /// Reads the events of one report as told to this player (or any run of its event
    /// log, in order), then propagates the army counts.
    pub fn observe(&mut self, events: &[Event]) {
        for e in events {
            self.event(e);
        }
        self.end_action();
    }

    /// The player whose beliefs these are.
    pub fn player(&self) -> Side {
        self.player
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The army the player commands (翻棋: `None` until the first flip).
    pub fn army(&self) -> Option<Side> {
        self.army
    }

    /// Whether some assignment of kinds gives every piece one of its candidates and every
    /// army its exact composition. Always true for beliefs built from a real game; false
    /// only for contradictory event streams.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// The candidate kinds of the piece on `p` (empty if the point is empty). A piece the
    /// player knows has exactly one.
    pub fn candidates(&self, p: Point) -> KindSet {
        match self.cell.get(p.index()) {
            Some(&s) if s != NONE => KindSet(fold_kinds(self.mask[s as usize])),
            _ => KindSet(0),
        }
    }

    /// The candidate (army, kind) pairs of the piece on `p`: one army except for a
    /// face-down piece in 翻棋.
    pub fn candidate_identities(&self, p: Point) -> Vec<(Side, PieceKind)> {
        match self.cell.get(p.index()) {
            Some(&s) if s != NONE => self.identities(self.mask[s as usize]),
            _ => Vec::new(),
        }
    }

    /// The owner of the piece on `p`, if the player knows it (always, except for a
    /// face-down piece in 翻棋).
    pub fn owner(&self, p: Point) -> Option<Side> {
        let s = *self.cell.get(p.index())?;
        (s != NONE).then(|| self.owner_of_mask(self.mask[s as usize])).flatten()
    }

    /// Whether the player knows the identity of the piece on `p` because it was shown
    /// (its own, revealed, flipped) — not merely deduced.
    pub fn is_known(&self, p: Point) -> bool {
        matches!(self.cell.get(p.index()), Some(&s) if s != NONE && self.flags[s as usize] & KNOWN != 0)
    }

    /// Whether the piece on `p` has moved or attacked by moving.
    pub fn has_moved(&self, p: Point) -> bool {
        matches!(self.cell.get(p.index()), Some(&s) if s != NONE && self.flags[s as usize] & MOVED != 0)
    }

    /// Points holding a piece.
    pub fn occupied(&self) -> PointSet {
        self.occupied
    }

    /// The candidates as a boolean matrix `[points][PieceKind::COUNT]`, row-major: entry
    /// `p * PieceKind::COUNT + kind` is true if the piece on `p` may be `kind`.
    pub fn mask_into(&self, out: &mut [bool]) {
        let n = self.rules.board().len();
        assert!(out.len() >= n * PieceKind::COUNT, "mask buffer too small");
        for p in 0..n {
            let m = self.candidates(Point(p as u8)).0;
            for k in 0..PieceKind::COUNT {
                out[p * PieceKind::COUNT + k] = m >> k & 1 == 1;
            }
        }
    }

    /// Pieces that left the board, with their candidate identities (their kinds count
    /// in the army's composition, so their candidates matter too).
    pub fn off_board(&self) -> Vec<Vec<(Side, PieceKind)>> {
        (0..MAX_PIECES)
            .filter(|&s| self.origin[s] != NONE && self.at[s] == NONE)
            .map(|s| self.identities(self.mask[s]))
            .collect()
    }

    /// Total number of candidates over the unseen pieces of other sides on the board,
    /// and the number of such pieces (for the average).
    pub fn unseen_candidate_total(&self) -> (usize, usize) {
        let (mut total, mut n) = (0, 0);
        for p in self.occupied.iter() {
            let s = self.cell[p.index()] as usize;
            if self.flags[s] & KNOWN != 0 {
                continue;
            }
            if self.owner_of_mask(self.mask[s]) == self.army && self.army.is_some() {
                continue;
            }
            total += self.mask[s].count_ones() as usize;
            n += 1;
        }
        (total, n)
    }

    // ---- internals ----

    fn side_index(&self, side: Side) -> Option<usize> {
        self.rules.sides().iter().position(|s| *s == side)
    }

    fn range(&self, side: Side) -> u128 {
        self.side_index(side).map_or(0, |i| 0xFFFF_FFFFu128 << (32 * i)) & self.types
    }

    fn identities(&self, mask: u128) -> Vec<(Side, PieceKind)> {
        let sides = self.rules.sides();
        bits(mask).map(|t| (sides[t / 32], PieceKind::ALL[t % 32])).collect()
    }

    fn owner_of_mask(&self, mask: u128) -> Option<Side> {
        army_of_mask(mask).map(|a| self.rules.sides()[a])
    }

    fn group_of(&self, mask: u128) -> u8 {
        if self.rules.deals() {
            1
        } else {
            mask.trailing_zeros().checked_div(32).map_or(0, |i| 1 << i)
        }
    }

    fn place(&mut self, slot: usize, p: Point, mask: u128) {
        self.mask[slot] = mask;
        self.at[slot] = p.0;
        self.origin[slot] = p.0;
        self.slots = self.slots.max(slot as u8 + 1);
        self.cell[p.index()] = slot as u8;
        self.occupied.insert(p);
    }

    /// Narrows a slot's candidates; an empty result (a contradiction) is refused and
    /// marks the beliefs inconsistent.
    fn restrict(&mut self, slot: usize, keep: u128) {
        let m = self.mask[slot] & keep;
        if m == self.mask[slot] {
            return;
        }
        if m == 0 {
            self.consistent = false;
            return;
        }
        self.mask[slot] = m;
        self.dirty |= self.group_of(m);
    }

    fn slot_at(&self, p: Point) -> Option<usize> {
        let s = *self.cell.get(p.index())?;
        (s != NONE).then_some(s as usize)
    }

    fn relocate(&mut self, slot: usize, to: Point) {
        let from = self.at[slot];
        if from != NONE {
            self.cell[from as usize] = NONE;
            self.occupied.remove(Point(from));
        }
        self.at[slot] = to.0;
        self.cell[to.index()] = slot as u8;
        self.occupied.insert(to);
    }

    fn remove(&mut self, slot: usize) {
        self.note_removed(slot);
        let at = self.at[slot];
        if at != NONE && self.cell[at as usize] == slot as u8 {
            self.cell[at as usize] = NONE;
            self.occupied.remove(Point(at));
        }
        self.at[slot] = NONE;
    }

    /// The types of a side's kinds that satisfy `pred`.
    fn kinds_where(&self, side_range: u128, pred: impl Fn(PieceKind) -> bool) -> u128 {
        let mut m = 0u128;
        for t in bits(side_range) {
            if pred(PieceKind::ALL[t % 32]) {
                m |= 1u128 << t;
            }
        }
        m
    }

    fn deploy(&mut self, side: Side) {
        let Some(idx) = self.side_index(side) else { return };
        let rules = self.rules.clone();
        let board = rules.board();
        let base = idx * rules.army_size();
        if self.origin[base] != NONE {
            return;
        }
        let range = self.range(side);
        let known = !self.setups[idx].is_empty();
        for (i, &p) in rules.deploy_points(side).iter().enumerate() {
            let mask = if known {
                let kind = self.setups[idx][i].1;
                1u128 << (idx * 32 + kind as usize)
            } else {
                // Kinds the deployment constraints allow on this point.
                self.kinds_where(range, |k| {
                    rules
                        .spec()
                        .deployment
                        .constraints
                        .iter()
                        .filter(|c| c.kind == k)
                        .all(|c| crate::setup::allows(rules.board(), c, p))
                })
            };
            let _ = board;
            self.place(base + i, p, mask);
            if known {
                self.flags[base + i] |= KNOWN;
            }
        }
        self.dirty |= 1 << idx;
    }

    fn start_action(&mut self) {
        self.end_action();
        self.in_action = true;
    }

    /// Closes the action being read: the commander deduction, then the count
    /// propagation.
    fn end_action(&mut self) {
        // The deduction needs the flag on the board: an army without one shows nothing.
        if self.in_action && self.rules.options().commander_reveals_flag && self.rules.has_kind(PieceKind::Flag) {
            let removed = self.removed;
            for (i, &s) in removed.iter().enumerate() {
                if s == NONE {
                    continue;
                }
                let s = s as usize;
                let Some(owner) = self.owner_of_mask(self.mask[s]) else {
                    continue;
                };
                let Some(idx) = self.side_index(owner) else { continue };
                let commander = 1u128 << (idx * 32 + PieceKind::Commander as usize);
                if self.flag_shown >> idx & 1 == 1 {
                    // That side's flag was shown: its commander left the board in this
                    // action. If this is the only piece of that side that left, it was.
                    let other = removed[1 - i];
                    let other_same = other != NONE && self.owner_of_mask(self.mask[other as usize]) == Some(owner);
                    if !other_same {
                        self.restrict(s, commander);
                    }
                } else if !self.rules.deals() {
                    // Only where nothing is dealt. Under a deal every piece that fights
                    // is face up, known to all, so this would tell nothing; and there a
                    // flag can be taken while no player commands its army (nobody is
                    // out), after which its commander's fall shows nothing.
                    self.restrict(s, !commander);
                }
            }
        }
        self.in_action = false;
        self.removed = [NONE; 2];
        self.flag_shown = 0;
        self.propagate();
    }

    fn event(&mut self, e: &Event) {
        match *e {
            Event::Deployed { side } => {
                self.start_action();
                self.deploy(side);
            }
            Event::Moved { side, from, to } => {
                self.start_action();
                self.note_move(side, from, to, false);
                self.moved(from, to);
            }
            Event::Attacked {
                side,
                from,
                to,
                outcome,
            } => {
                self.start_action();
                self.note_move(side, from, to, true);
                self.combat(from, to, outcome, false);
            }
            Event::Struck {
                side,
                from,
                to,
                outcome,
            } => {
                self.start_action();
                self.note_move(side, from, to, true);
                self.combat(from, to, outcome, true);
            }
            Event::ShotDown { side, from, at } => {
                self.start_action();
                self.note_turn(side);
                self.shot_down(from, at);
            }
            Event::Flipped {
                side: _,
                point,
                owner,
                kind,
            } => {
                self.start_action();
                if let (Some(s), Some(idx)) = (self.slot_at(point), self.side_index(owner)) {
                    self.restrict(s, 1u128 << (idx * 32 + kind as usize));
                    self.flags[s] |= KNOWN | PUBLIC | FACE_UP;
                    self.dirty |= self.group_of(self.mask[s]);
                }
            }
            Event::ArmyAssigned { player, army } => {
                self.armies[player as usize] = Some(army);
                if player == self.player {
                    self.army = Some(army);
                }
            }
            Event::Revealed {
                point,
                owner,
                kind,
                cause,
            } => self.revealed(point, owner, kind, cause),
            Event::Resigned { .. } | Event::Escaped { .. } | Event::TimedOut { .. } | Event::DrawAgreed => self.start_action(),
            Event::Eliminated { side, .. } => {
                // Its army's pieces leave the board (their kinds still count). Under a
                // deal, the army its player commands (announced to all; none before the
                // first flip, and then nothing leaves), and only its face-up pieces: the
                // face-down ones stay, as the referee leaves them (see `position::end`).
                let deals = self.rules.deals();
                let army = if deals { self.armies[side as usize] } else { Some(side) };
                if let Some(army) = army {
                    let range = self.range(army);
                    for s in 0..MAX_PIECES {
                        if self.at[s] != NONE
                            && self.mask[s] & !range == 0
                            && (!deals || self.flags[s] & FACE_UP != 0)
                        {
                            self.remove(s);
                        }
                    }
                }
            }
            Event::ReactionDue { .. } | Event::GameOver { .. } => {}
        }
    }

    fn revealed(&mut self, point: Point, owner: Side, kind: PieceKind, cause: RevealCause) {
        let Some(idx) = self.side_index(owner) else { return };
        let range = self.range(owner);
        // The piece stands on `point`, or stood there before the action just read. A
        // face-up piece on `point` is the owner's when it is of the owner's army alone;
        // a face-down one (under a deal: a fallen commander's flag is shown where it lies)
        // when it may be of that army.
        let deals = self.rules.deals();
        let slot = match self.slot_at(point) {
            Some(s) if self.mask[s] & range != 0 && (self.mask[s] & !range == 0 || deals && self.flags[s] & FACE_UP == 0) => {
                Some(s)
            }
            _ => [self.last_att, self.last_def]
                .into_iter()
                .find(|&(s, p)| s != NONE && p == point.0 && self.mask[s as usize] & !range == 0)
                .map(|(s, _)| s as usize),
        };
        let Some(s) = slot else {
            self.consistent = false;
            return;
        };
        self.restrict(s, 1u128 << (idx * 32 + kind as usize));
        self.flags[s] |= KNOWN;
        if cause == RevealCause::CommanderLost {
            self.flag_shown |= 1 << idx;
            self.flags[s] |= PUBLIC;
        }
        if matches!(cause, RevealCause::OpenPlay) {
            self.flags[s] |= PUBLIC;
        }
    }

    /// The types that may have made a move from `from` to the empty point `to`.
    fn movers(&self, mask: u128, from: Point, to: Point) -> u128 {
        let rules = &self.rules;
        let board = rules.board();
        let locked = rules.options().hq_locks && board.role(from) == Role::Hq;
        let mut keep = 0u128;
        // One reach computation per mobility, not per kind.
        let mut decided = [None::<bool>; 7];
        for t in bits(mask) {
            let kind = PieceKind::ALL[t % 32];
            let mobility = rules.mobility(kind);
            let ok = !locked
                && *decided[mobility as usize].get_or_insert_with(|| match mobility {
                    Mobility::Immobile => false,
                    Mobility::Step | Mobility::RailStraight | Mobility::RailTurn => {
                        crate::position::movegen::land_run(rules, self.occupied, from, mobility, PointSet::EMPTY).contains(to)
                    }
                    Mobility::Sail => board.sea_step[from.index()].contains(to),
                    // Sea steps, landings, road steps ashore, back to the anchorage.
                    Mobility::SailAndLand => {
                        board.sea_step[from.index()].contains(to)
                            || board.coast[from.index()].contains(to)
                            || board.step[from.index()].contains(to)
                    }
                    Mobility::Fly => air_run(board, from, to).is_some(),
                });
            if ok {
                keep |= 1u128 << t;
            }
        }
        keep
    }

    fn moved(&mut self, from: Point, to: Point) {
        let Some(s) = self.slot_at(from) else {
            self.consistent = false;
            return;
        };
        if self.mask[s].count_ones() > 1 {
            let keep = self.movers(self.mask[s], from, to);
            self.restrict(s, keep);
        }
        self.flags[s] |= MOVED;
        self.planes_pass(s, from, to);
        self.relocate(s, to);
    }

    /// A plane of slot `s` flew from `from` to `to` unharmed: the enemy pieces on every
    /// surface point its run passed over ([`Board::passed_over`]) are no anti-aircraft
    /// kinds.
    fn planes_pass(&mut self, s: usize, from: Point, to: Point) {
        let board = self.rules.board().clone();
        if !board.is_air(from) {
            return;
        }
        let over: Vec<Point> = board.passed_over(from, to).collect();
        self.not_anti_air(s, &over);
    }

    /// The pieces on `points` are not enemy anti-aircraft pieces of the plane in slot `s`.
    fn not_anti_air(&mut self, s: usize, points: &[Point]) {
        let Some(owner) = self.owner_of_mask(self.mask[s]) else {
            return;
        };
        let team = self.rules.team_of(owner);
        for &q in points {
            let Some(g) = self.slot_at(q) else { continue };
            let Some(o) = self.owner_of_mask(self.mask[g]) else {
                continue;
            };
            if team.contains(o) {
                continue;
            }
            let range = self.range(o);
            let not_aa = self.kinds_where(range, |k| !self.rules.has_ability(k, Ability::AntiAir));
            self.restrict(g, not_aa | !range);
        }
    }

    /// A plane was shot down flying from `from`, at `at`: the air position above the gun,
    /// or the gun's own point when none is above it. The gun is an anti-aircraft piece;
    /// what the run passed over before it is not.
    fn shot_down(&mut self, from: Point, at: Point) {
        let Some(s) = self.slot_at(from) else {
            self.consistent = false;
            return;
        };
        let board = self.rules.board().clone();
        let gun = if board.is_air(at) { board.below(at) } else { Some(at) };
        if let Some(gun) = gun {
            // The run's points before the gun, along the air line that passes over it.
            let before: Option<Vec<Point>> = board.points().filter(|&e| board.is_air(e)).find_map(|e| {
                let over: Vec<Point> = board.passed_over(from, e).collect();
                over.iter().position(|&q| q == gun).map(|k| over[..k].to_vec())
            });
            if let Some(before) = before {
                self.not_anti_air(s, &before);
            }
            if let Some(g) = self.slot_at(gun) {
                if let Some(o) = self.owner_of_mask(self.mask[g]) {
                    let range = self.range(o);
                    let aa = self.kinds_where(range, |k| self.rules.has_ability(k, Ability::AntiAir));
                    self.restrict(g, aa | !range);
                }
            }
        }
        self.flags[s] |= MOVED;
        self.remove(s);
    }

    /// The outcomes the referee may rule for `att` on `def` standing on `def_at`.
    fn possible(&self, att: PieceKind, def: PieceKind, def_at: Point, observed: CombatOutcome) -> bool {
        let opts = self.rules.options();
        let base = match self.rules.combat_outcome(att, def) {
            CombatOutcome::Illegal => CombatOutcome::Repel,
            o => o,
        };
        if opts.hq_shelter
            && self.rules.board().role(def_at) == Role::Hq
            && !matches!(def, PieceKind::Mine | PieceKind::Flag)
        {
            return observed == CombatOutcome::Repel;
        }
        if opts.flag_guarded_by_mines && def == PieceKind::Flag && observed == CombatOutcome::Repel {
            return true;
        }
        // `engineer_scouts: sacrifice`: the engineer is spent on all but mines and flags.
        if att == PieceKind::Engineer
            && opts.engineer_scouts == crate::rules::Scouting::Sacrifice
            && !matches!(def, PieceKind::Mine | PieceKind::Flag)
        {
            return observed == CombatOutcome::Lose;
        }
        // `smallest_digs_mines`: an officer may take on a mine as its stand-in would (an
        // engineer digs, a bomb detonates) when it is its army's smallest piece and the
        // engineers (and bombs) are gone: allowed either way.
        if let Some(stand_in) = opts.smallest_digs_mines.stand_in() {
            if def == PieceKind::Mine
                && att != PieceKind::Engineer
                && att.class() == crate::piece::PieceClass::Officer
                && self.rules.combat_outcome(stand_in, PieceKind::Mine) == observed
            {
                return true;
            }
        }
        base == observed
    }

    fn combat(&mut self, from: Point, to: Point, outcome: CombatOutcome, struck: bool) {
        let rules = self.rules.clone();
        let board = rules.board();
        let Some(a) = self.slot_at(from) else {
            self.consistent = false;
            return;
        };
        let att_owner = self.owner_of_mask(self.mask[a]);
        let def_at = if self.occupied.contains(to) {
            Some(to)
        } else {
            board.below(to).filter(|&s| {
                self.slot_at(s)
                    .is_some_and(|d| match (att_owner, self.owner_of_mask(self.mask[d])) {
                        (Some(x), Some(y)) => !rules.team_of(x).contains(y),
                        _ => true,
                    })
            })
        };
        let Some(def_at) = def_at else {
            self.consistent = false;
            return;
        };
        let d = self.slot_at(def_at).expect("occupied");
        // Keep the pairs of kinds the event allows: the manner (a strike or a move onto
        // the target) and the outcome.
        let (ma, md) = (self.mask[a], self.mask[d]);
        let locked = rules.options().hq_locks && board.role(from) == Role::Hq;
        let mut keep_a = 0u128;
        let mut keep_d = 0u128;
        let mut manner_of = None;
        let mut reach = [None::<bool>; 7];
        let in_camp = board.role(def_at) == Role::Camp;
        for ta in bits(ma) {
            let ka = PieceKind::ALL[ta % 32];
            let manner = crate::position::movegen::manner_in(&rules, self.occupied, from, to, ka, true);
            let strike = matches!(manner, Attack::Strike | Attack::Bombardment);
            // The manner must match the event, and the mover must be allowed to attack
            // a piece in a camp if the target stands in one.
            if strike != struck || in_camp && !rules.may_attack_camps(ka) {
                continue;
            }
            // A strike is made with an ability (a plane's with lock-on): a kind without
            // one never strikes, though its manner would be called one (an immobile
            // piece; a kind a rule set makes sail, standing on land).
            if strike && !rules.profile(ka).strikes && rules.mobility(ka) != Mobility::Fly {
                continue;
            }
            if manner == Attack::Move {
                let mobility = rules.mobility(ka);
                if locked {
                    continue;
                }
                if matches!(mobility, Mobility::Step | Mobility::RailStraight | Mobility::RailTurn)
                    && !*reach[mobility as usize].get_or_insert_with(|| {
                        crate::position::movegen::land_run(&rules, self.occupied, from, mobility, PointSet::EMPTY).contains(to)
                    })
                {
                    continue;
                }
            }
            let mut any = false;
            for td in bits(md) {
                let kd = PieceKind::ALL[td % 32];
                // Arms are public: nobody attacks an arm it can never attack.
                if rules.attacks_arm(ka, kd.arm()) && self.possible(ka, kd, def_at, outcome) {
                    keep_d |= 1u128 << td;
                    any = true;
                }
            }
            if any {
                keep_a |= 1u128 << ta;
                manner_of.get_or_insert((ka, manner));
            }
        }
        self.restrict(a, keep_a);
        self.restrict(d, keep_d);
        if !struck && manner_of.is_some_and(|(_, m)| m == Attack::Move) {
            self.flags[a] |= MOVED;
        }
        if let Some((ka, _)) = manner_of {
            if rules.mobility(ka) == Mobility::Fly && !struck && !outcome.attacker_leaves() {
                self.planes_pass(a, from, to);
            }
        }
        self.last_att = (a as u8, from.0);
        self.last_def = (d as u8, def_at.0);
        // What happens to the pieces (rules::resolution, as the referee applies it).
        let Some((ka, manner)) = manner_of.or_else(|| {
            // A contradiction: follow the board as the most common case would.
            self.consistent = false;
            bits(ma).next().map(|t| {
                let k = PieceKind::ALL[t % 32];
                (k, crate::position::movegen::manner_in(&rules, self.occupied, from, to, k, true))
            })
        }) else {
            return;
        };
        let res = crate::rules::resolution(&rules, ka, outcome, manner);
        let mut n = 0;
        if res.defender_leaves {
            self.remove(d);
            self.removed[n] = d as u8;
            n += 1;
        }
        if res.attacker_leaves {
            self.remove(a);
            self.removed[n] = a as u8;
        } else if res.attacker_moves
            && !(manner == Attack::Flight && board.is_air(to))
            && (outcome == CombatOutcome::Win || !self.occupied.contains(to))
        {
            self.relocate(a, to);
        }
    }

    /// Runs the count propagation on every group whose candidates changed.
    fn propagate(&mut self) {
        while self.dirty != 0 {
            let g = self.dirty.trailing_zeros() as usize;
            self.dirty &= !(1 << g);
            let range = if self.rules.deals() {
                self.types
            } else {
                self.types & (0xFFFF_FFFFu128 << (32 * g))
            };
            if !matching::filter(&mut self.mask, &self.origin, &self.counts, range, self.slots as usize) {
                self.consistent = false;
            }
        }
    }

    pub(crate) fn slot_origin(&self, s: usize) -> Point {
        Point(self.origin[s])
    }

    /// Where slot `s`'s piece started, when that is known (see [`ORIGIN_UNKNOWN`]).
    pub(crate) fn known_origin(&self, s: usize) -> Option<usize> {
        (self.origin[s] != NONE && self.flags[s] & ORIGIN_UNKNOWN == 0).then_some(self.origin[s] as usize)
    }
}

/// Whether a mask holds exactly one type.
/// The army index (in the rule set's sides) all of a mask's candidate types belong
/// to; `None` when they span several armies (a face-down piece of 翻棋) or none.
pub(crate) fn army_of_mask(mask: u128) -> Option<usize> {
    if mask == 0 {
        return None;
    }
    let lo = mask.trailing_zeros() as usize / 32;
    let hi = (127 - mask.leading_zeros() as usize) / 32;
    (lo == hi).then_some(lo)
}

pub(crate) fn single(m: u128) -> bool {
    m != 0 && m & (m - 1) == 0
}

/// The set bits of a mask, lowest first (walked as two 64-bit halves: a `u128` bit
/// operation costs several instructions, a `u64` one a single one).
pub(crate) fn bits(m: u128) -> impl Iterator<Item = usize> {
    let (mut lo, mut hi) = (m as u64, (m >> 64) as u64);
    std::iter::from_fn(move || {
        if lo != 0 {
            let t = lo.trailing_zeros() as usize;
            lo &= lo - 1;
            Some(t)
        } else if hi != 0 {
            let t = hi.trailing_zeros() as usize;
            hi &= hi - 1;
            Some(64 + t)
        } else {
            None
        }
    })
}

/// The kinds of a type mask, whatever the army.
pub(crate) fn fold_kinds(m: u128) -> u32 {
    (m as u32) | ((m >> 32) as u32) | ((m >> 64) as u32) | ((m >> 96) as u32)
}

/// The air positions of a straight air run from `from` to `to` (excluding `from`).
fn air_run(board: &crate::board::Board, from: Point, to: Point) -> Option<&[Point]> {
    let (first, last) = board.air_ray_of[from.index()];
    for &(start, end) in &board.air_ray_spans[first as usize..last as usize] {
        let ray = &board.air_ray_points[start as usize..end as usize];
        if let Some(len) = ray.iter().position(|&q| q == to) {
            return Some(&ray[..=len]);
        }
    }
    None
}

impl crate::record::RulesRef {
    /// The rule set a record names (for inference from a player record).
    pub(crate) fn load_for_inference(&self) -> Result<Arc<RuleSet>, GameError> {
        // The same reading as a full record's (a bare name is the frozen preset).
        self.load(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_air_run_is_the_air_positions_on_the_straight_line_up_to_its_end() {
        // On the 三军 board every air line runs along a whole row or column of the
        // drawing grid: a run from one air position to another on its row or column holds
        // the air positions between them, nearest first, then the end; there is no run
        // to an air position off both lines.
        let rules = RuleSet::preset("sanjun-modern").unwrap();
        let board = rules.board();
        let air: Vec<Point> = board.points().filter(|&p| board.is_air(p)).collect();
        let mut runs = 0;
        for &a in &air {
            let (ax, ay) = board.coords(a);
            for &b in &air {
                let (bx, by) = board.coords(b);
                let got = air_run(board, a, b);
                if a == b {
                    continue;
                }
                if ax != bx && ay != by {
                    assert!(got.is_none(), "{a:?} -> {b:?}");
                    continue;
                }
                let d = |p: Point| {
                    let (x, y) = board.coords(p);
                    (x as i32 - ax as i32).abs() + (y as i32 - ay as i32).abs()
                };
                let same_line = |p: Point| {
                    let (x, y) = board.coords(p);
                    if ax == bx { x == ax && (y > ay) == (by > ay) } else { y == ay && (x > ax) == (bx > ax) }
                };
                let mut want: Vec<Point> = air.iter().copied().filter(|&p| p != a && same_line(p) && d(p) <= d(b)).collect();
                want.sort_by_key(|&p| d(p));
                assert_eq!(got, Some(&want[..]), "{a:?} -> {b:?}");
                runs += 1;
            }
        }
        assert!(runs > 100, "{runs}");
    }
}
