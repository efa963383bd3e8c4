//! Observation tensors: one fixed-shape encoding of a player's information per rule set,
//! for learning agents.
//!
//! The tensor is `[channels, points]`, `f32`, row-major: one plane per channel over the
//! board's points, in the *observer's order* — the points sorted by rows from the
//! observer's seat (the board turned so that the observer sits south; surface points
//! first, then air positions), so every player sees its own army at the start of each
//! plane. [`ObservationSpec`] lists the channels by name; they are, in order:
//!
//! | channels | value on a point |
//! |---|---|
//! | `own:<kind>` per army kind | 1 where the observer's own piece of that kind stands |
//! | `candidate:<kind>` per army kind | 1 if the other piece there may be that kind |
//! | `probability:<kind>` per army kind | count-weighted probability that it is (below) |
//! | `ally`, `enemy`, `face_down` | a piece of a partner, of an opponent, face down (翻棋) |
//! | `known` | another side's piece whose identity the observer was shown |
//! | `moved` | a piece that has moved |
//! | `role:<role>` per role on the board, `railway` | the board (constant) |
//! | `to_act:<seat>` per seat | all ones for the seat to act (seat 0 = the observer, then in turn order) |
//! | `ply`, `no_capture` | all `ply / 1000` (at most 1); all `no-capture plies / no_capture_draw_plies` |
//! | `modelled:<kind>` per army kind, only with [`Observer::with_model`] | the probability that the other piece there is that kind under the opponent model |
//!
//! The probability of kind `k` for a piece with candidates `C` is `r_k / Σ_{c∈C} r_c`,
//! where `r_k` counts the pieces of kind `k` (of that army) whose identity is not yet
//! fixed: the marginal of a uniform assignment when candidate sets do not interact,
//! otherwise an approximation (exact marginals would need counting all assignments).
//!
//! The optional `modelled:` planes are the modelled beliefs of
//! [`Beliefs::probabilities`]: the same candidates, weighed by how each piece has played
//! under an [`OpponentModel`] (for example the one the engine ships for the rule set,
//! [`OpponentModel::for_rules`]). They come last, so the other channels keep their
//! places with or without them.
//!
//! ```
//! use junqi::{Game, Observer, OpponentModel, Side};
//! let mut game = Game::new("classic", 1).unwrap();
//! game.deploy_random(Side::South, 1).unwrap();
//! game.deploy_random(Side::North, 2).unwrap();
//! let plain = Observer::new(game.rules().clone(), Side::South);
//! let obs = plain.clone().with_model(OpponentModel::for_rules(game.rules()));
//! let kinds = obs.kinds().len();
//! assert_eq!(obs.len(), plain.len() + kinds * obs.points());
//! assert_eq!(obs.spec().channels.last().unwrap(), "modelled:bomb");
//! let mut buf = vec![0.0f32; obs.len()];
//! obs.encode(&game.beliefs(Side::South), game.turn(), &mut buf);
//! // Every enemy piece's modelled probabilities sum to 1, the own pieces have none.
//! let at = |k: usize, i: usize| buf[plain.len() + k * obs.points() + i];
//! let last = obs.points() - 1; // a point of north's back row
//! let sum: f32 = (0..kinds).map(|k| at(k, last)).sum();
//! assert!((sum - 1.0).abs() < 1e-4);
//! assert_eq!((0..kinds).map(|k| at(k, 0)).sum::<f32>(), 0.0);
//! ```

use std::cell::RefCell;
use std::sync::Arc;

use crate::board::{Point, Role, MAX_POINTS};
use crate::piece::{PieceKind, Side};
use crate::referee::Game;
use crate::rules::RuleSet;

use super::{army_of_mask, bits, single, Beliefs, OpponentModel, KNOWN, MOVED, NONE};

/// How many distinct candidate sets, and channel entries in all, one encoding
/// remembers; sets met beyond these are worked out each time they occur.
const CLASSES: usize = 48;
const ENTRIES: usize = 384;

/// The distinct candidate sets met while encoding one observation, each with its
/// channels: (offset of the kind's `candidate:` plane from the first, probability)
/// once per kind.
struct Classes {
    /// (candidate set, start and end in `entries`).
    sets: [(u128, u16, u16); CLASSES],
    len: usize,
    entries: [(u16, f32); ENTRIES],
    used: usize,
    /// The channels of a set that did not fit.
    spill: [(u16, f32); 32],
}

thread_local! {
    /// Each thread's [`Classes`], emptied and reused by every encoding rather than
    /// initialized (some 5 KB) per call.
    static SCRATCH: RefCell<Classes> = const { RefCell::new(Classes::new()) };
}

impl Classes {
    const fn new() -> Classes {
        Classes {
            sets: [(0, 0, 0); CLASSES],
            len: 0,
            entries: [(0, 0.0); ENTRIES],
            used: 0,
            spill: [(0, 0.0); 32],
        }
    }

    fn clear(&mut self) {
        self.len = 0;
        self.used = 0;
    }

    /// The channels of a piece with candidates `m`: for each candidate kind (the
    /// armies merged, in 翻棋), its plane's offset (`n` points per plane) and its
    /// probability `r_k / Σ r_c` (1 for a single candidate; uniform when nothing is
    /// left to count).
    fn of(&mut self, m: u128, l: &Layout, n: usize, rem: &[u16; 128]) -> &[(u16, f32)] {
        if let Some(&(_, a, b)) = self.sets[..self.len].iter().find(|c| c.0 == m) {
            return &self.entries[a as usize..b as usize];
        }
        let mut w = [0.0f32; 32];
        let mut present = 0u32;
        if single(m) {
            let k = l.kind_ix[m.trailing_zeros() as usize % 32] as usize % 32;
            present = 1 << k;
            w[k] = 1.0;
        } else {
            let total: u32 = bits(m).map(|t| rem[t] as u32).sum();
            let uniform = 1.0 / m.count_ones() as f32;
            for t in bits(m) {
                let k = l.kind_ix[t % 32] as usize % 32;
                present |= 1 << k;
                w[k] += if total == 0 { uniform } else { rem[t] as f32 / total as f32 };
            }
        }
        let kinds = present.count_ones() as usize;
        let fits = self.len < CLASSES && self.used + kinds <= ENTRIES;
        let (buf, start) = if fits {
            (&mut self.entries[..], self.used)
        } else {
            (&mut self.spill[..], 0)
        };
        let mut at = start;
        while present != 0 {
            let k = present.trailing_zeros() as usize;
            present &= present - 1;
            buf[at] = ((k * n) as u16, w[k]);
            at += 1;
        }
        if fits {
            self.sets[self.len] = (m, start as u16, at as u16);
            self.len += 1;
            self.used = at;
            &self.entries[start..at]
        } else {
            &self.spill[..at]
        }
    }
}

/// The layout of a rule set's observation tensor: channel names and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservationSpec {
    /// Channel names, in order.
    pub channels: Vec<String>,
    /// Points per plane (the board's points).
    pub points: usize,
}

impl ObservationSpec {
    /// The shape `[channels, points]`.
    pub fn shape(&self) -> [usize; 2] {
        [self.channels.len(), self.points]
    }

    /// Number of floats in one observation.
    pub fn len(&self) -> usize {
        self.channels.len() * self.points
    }

    /// Whether the tensor is empty (never, for a real rule set).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The channel offsets of a rule set's encoding.
#[derive(Clone, Debug)]
struct Layout {
    kinds: Vec<PieceKind>,
    /// Per kind index: its position in `kinds`, or `NONE`.
    kind_ix: [u8; PieceKind::COUNT],
    roles: Vec<Role>,
    own: usize,
    cand: usize,
    prob: usize,
    ally: usize,
    enemy: usize,
    face_down: usize,
    known: usize,
    moved: usize,
    role: usize,
    railway: usize,
    to_act: usize,
    ply: usize,
    no_capture: usize,
    /// The first `modelled:` plane, when there are those planes.
    modelled: Option<usize>,
    channels: usize,
}

impl Layout {
    /// The layout of `rules`' observations, with the `modelled:` planes or without.
    fn of(rules: &RuleSet, modelled: bool) -> Layout {
        let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
        let mut kind_ix = [NONE; PieceKind::COUNT];
        for (i, k) in kinds.iter().enumerate() {
            kind_ix[*k as usize] = i as u8;
        }
        let board = rules.board();
        let roles: Vec<Role> = Role::ALL
            .into_iter()
            .filter(|r| board.points().any(|p| board.role(p) == *r))
            .collect();
        let k = kinds.len();
        let own = 0;
        let cand = own + k;
        let prob = cand + k;
        let ally = prob + k;
        let enemy = ally + 1;
        let face_down = enemy + 1;
        let known = face_down + 1;
        let moved = known + 1;
        let role = moved + 1;
        let railway = role + roles.len();
        let to_act = railway + 1;
        let ply = to_act + rules.sides().len();
        let no_capture = ply + 1;
        let modelled = modelled.then_some(no_capture + 1);
        let channels = no_capture + 1 + if modelled.is_some() { k } else { 0 };
        Layout {
            kinds,
            kind_ix,
            roles,
            own,
            cand,
            prob,
            ally,
            enemy,
            face_down,
            known,
            moved,
            role,
            railway,
            to_act,
            ply,
            no_capture,
            modelled,
            channels,
        }
    }

    fn names(&self, rules: &RuleSet) -> Vec<String> {
        let mut v = Vec::with_capacity(self.channels);
        for prefix in ["own", "candidate", "probability"] {
            v.extend(self.kinds.iter().map(|k| format!("{prefix}:{}", k.id())));
        }
        v.extend(["ally", "enemy", "face_down", "known", "moved"].map(String::from));
        v.extend(self.roles.iter().map(|r| format!("role:{}", r.name())));
        v.push("railway".into());
        v.extend((0..rules.sides().len()).map(|i| format!("to_act:{i}")));
        v.push("ply".into());
        v.push("no_capture".into());
        if self.modelled.is_some() {
            v.extend(self.kinds.iter().map(|k| format!("modelled:{}", k.id())));
        }
        debug_assert_eq!(v.len(), self.channels);
        v
    }
}

impl RuleSet {
    /// The layout of this rule set's observation tensor (see [`Observer`]).
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// let spec = rules.observation_spec();
    /// assert_eq!(spec.points, rules.board().len());
    /// assert_eq!(spec.channels[0], "own:flag");
    /// ```
    pub fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec {
            channels: Layout::of(self, false).names(self),
            points: self.board().len(),
        }
    }

    /// The layout of this rule set's observations with the optional `modelled:<kind>`
    /// planes ([`Observer::with_model`]): [`RuleSet::observation_spec`]'s channels, then
    /// one per army kind.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// let (plain, modelled) = (rules.observation_spec(), rules.modelled_observation_spec());
    /// assert_eq!(modelled.channels[..plain.channels.len()], plain.channels[..]);
    /// assert_eq!(modelled.channels[plain.channels.len()], "modelled:flag");
    /// ```
    pub fn modelled_observation_spec(&self) -> ObservationSpec {
        ObservationSpec {
            channels: Layout::of(self, true).names(self),
            points: self.board().len(),
        }
    }
}

/// The public facts an observation needs besides the beliefs: whose turn, and the
/// counters (all in a player's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The side to act (`None` once the game is over).
    pub to_act: Option<Side>,
    /// Plies played.
    pub ply: u32,
    /// Plies in a row without a piece leaving the board.
    pub no_capture: u32,
}

impl Game {
    /// The turn and counters, as an observation needs them.
    pub fn turn(&self) -> Turn {
        Turn {
            to_act: self.to_act(),
            ply: self.position().ply(),
            no_capture: self.position().no_capture_plies(),
        }
    }

    /// `player`'s observation tensor (see [`Observer`]), newly allocated. For many
    /// observations without allocating, keep an [`Observer`] and the [`Beliefs`].
    pub fn observation(&self, player: Side) -> Vec<f32> {
        let obs = Observer::new(self.rules().clone(), player);
        let mut out = vec![0.0; obs.len()];
        obs.encode(&self.beliefs(player), self.turn(), &mut out);
        out
    }
}

/// The drawing-grid coordinates of `p` turned so that `seat` sits south: its own back
/// rows have the smallest `y`, and `y` grows towards the other side of the board.
pub(crate) fn seat_frame(board: &crate::board::Board, seat: Side, p: Point) -> (i32, i32) {
    let (w, h) = board.grid_size();
    let (w, h) = (w as i32, h as i32);
    let (x, y) = board.coords(p);
    let (x, y) = (x as i32, y as i32);
    match seat {
        Side::South => (x, y),
        Side::North => (w - 1 - x, h - 1 - y),
        Side::East => (y, w - 1 - x),
        Side::West => (h - 1 - y, x),
    }
}

/// Encodes one player's observations of a rule set (see the module documentation of
/// `inference::observe` for the channels). Build once per (rule set, seat); encoding
/// allocates nothing.
///
/// ```
/// use junqi::{Game, Observer, Side};
/// let mut game = Game::new("siguo", 1).unwrap();
/// for (i, s) in [Side::South, Side::East, Side::North, Side::West].into_iter().enumerate() {
///     game.deploy_random(s, i as u64).unwrap();
/// }
/// let obs = Observer::new(game.rules().clone(), Side::East);
/// let mut buf = vec![0.0f32; obs.len()];
/// obs.encode(&game.beliefs(Side::East), game.turn(), &mut buf);
/// // East sits south: its first point holds one of its own pieces.
/// let own: f32 = (0..obs.kinds().len()).map(|k| buf[k * obs.points()]).sum();
/// assert_eq!(own, 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct Observer {
    rules: Arc<RuleSet>,
    player: Side,
    layout: Layout,
    /// Observer index → point.
    order: Vec<Point>,
    /// Point → observer index.
    index: [u8; MAX_POINTS],
    /// The constant planes (roles, railway), ready to copy.
    board_planes: Vec<f32>,
    /// The opponent model of the `modelled:` planes, if they are wanted.
    model: Option<Arc<OpponentModel>>,
}

impl Observer {
    /// An encoder for `player`'s seat.
    pub fn new(rules: Arc<RuleSet>, player: Side) -> Observer {
        let layout = Layout::of(&rules, false);
        let board = rules.board();
        let rotate = |p: Point| seat_frame(board, player, p);
        let mut order: Vec<Point> = board.points().collect();
        order.sort_by_key(|&p| {
            let (x, y) = rotate(p);
            (board.is_air(p), y, x, p.index())
        });
        let mut index = [NONE; MAX_POINTS];
        for (i, p) in order.iter().enumerate() {
            index[p.index()] = i as u8;
        }
        let n = order.len();
        let mut board_planes = vec![0.0; (layout.railway + 1 - layout.role) * n];
        for (i, &p) in order.iter().enumerate() {
            if let Some(r) = layout.roles.iter().position(|r| *r == board.role(p)) {
                board_planes[r * n + i] = 1.0;
            }
            if board.is_railway(p) {
                board_planes[layout.roles.len() * n + i] = 1.0;
            }
        }
        Observer {
            rules,
            player,
            layout,
            order,
            index,
            board_planes,
            model: None,
        }
    }

    /// This encoder with the `modelled:<kind>` planes: each other piece's probability
    /// of every kind under `model` ([`Beliefs::probabilities`]), after the other
    /// channels ([`RuleSet::modelled_observation_spec`]). Encoding then works the
    /// probabilities out afresh each time, which allocates and costs more than the rest
    /// of the observation (see docs/inference.md).
    pub fn with_model(mut self, model: OpponentModel) -> Observer {
        self.layout = Layout::of(&self.rules, true);
        self.model = Some(Arc::new(model));
        self
    }

    /// The opponent model of the `modelled:` planes ([`Observer::with_model`]).
    pub fn model(&self) -> Option<&OpponentModel> {
        self.model.as_deref()
    }

    /// Floats in one observation (`channels × points`).
    pub fn len(&self) -> usize {
        self.layout.channels * self.order.len()
    }

    /// Whether an observation is empty (never, for a real rule set).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Points per plane.
    pub fn points(&self) -> usize {
        self.order.len()
    }

    /// The army's kinds, in channel order.
    pub fn kinds(&self) -> &[PieceKind] {
        &self.layout.kinds
    }

    /// The points in plane order (the observer's seat: its own back rows first).
    pub fn order(&self) -> &[Point] {
        &self.order
    }

    /// The layout (channel names and shape).
    pub fn spec(&self) -> ObservationSpec {
        ObservationSpec {
            channels: self.layout.names(&self.rules),
            points: self.order.len(),
        }
    }

    /// Writes the observation of `beliefs` (which must be this seat's) into `out`
    /// (at least [`Observer::len`] floats). Allocation-free without the `modelled:`
    /// planes.
    ///
    /// # Panics
    /// If `out` is too short or the beliefs are another player's.
    pub fn encode(&self, beliefs: &Beliefs, turn: Turn, out: &mut [f32]) {
        assert_eq!(beliefs.player, self.player, "beliefs of another player");
        let n = self.order.len();
        let l = &self.layout;
        let out = &mut out[..l.channels * n];
        // Every float is written once: the planes of pieces zeroed, the board's copied,
        // the turn's filled below.
        out[..l.role * n].fill(0.0);
        out[l.role * n..(l.railway + 1) * n].copy_from_slice(&self.board_planes);
        out[l.to_act * n..l.ply * n].fill(0.0);
        if let Some(m) = l.modelled {
            out[m * n..].fill(0.0);
        }
        // Pieces of each type whose identity is not fixed.
        // (Counts are 0 for the types that do not occur.)
        let mut rem = [0u16; 128];
        for (r, &c) in rem.iter_mut().zip(&beliefs.counts) {
            *r = c as u16;
        }
        for s in 0..beliefs.slots as usize {
            let m = beliefs.mask[s];
            if beliefs.origin[s] != NONE && single(m) {
                let t = m.trailing_zeros() as usize;
                rem[t] = rem[t].saturating_sub(1);
            }
        }
        // How the observer sees each army's pieces (by army index): its own (0), a
        // partner's (1) or an opponent's (2), by the player commanding the army: under a
        // deal (翻棋), the one it was assigned to (the south player may command the army
        // labelled north), else the side it is labelled with.
        let team = self.rules.team_of(self.player);
        let army = beliefs.army;
        let mut seen = [2u8; 4];
        for (c, &o) in seen.iter_mut().zip(self.rules.sides()) {
            let commander = self.rules.sides().iter().copied().find(|&p| beliefs.armies[p as usize] == Some(o));
            *c = if army == Some(o) {
                0
            } else if team.contains(commander.unwrap_or(o)) {
                1
            } else {
                2
            };
        }
        // Pieces of the same candidate set share their channel values: each distinct set
        // is worked out once, as (plane offset of `candidate:<kind>`, probability) runs
        // in `entries`. The pieces are walked in slot order (the order of `mask`).
        let (cand, prob) = (l.cand * n, (l.prob - l.cand) * n);
        SCRATCH.with_borrow_mut(|classes| {
            classes.clear();
            for s in 0..beliefs.slots as usize {
                let at = beliefs.at[s];
                if at == NONE {
                    continue;
                }
                let i = self.index[at as usize] as usize;
                let m = beliefs.mask[s];
                let flags = beliefs.flags[s];
                if flags & MOVED != 0 {
                    out[l.moved * n + i] = 1.0;
                }
                // The armies the candidates belong to: one (its owner is known) or several
                // (a face-down piece of 翻棋).
                match army_of_mask(m) {
                    None => out[l.face_down * n + i] = 1.0,
                    Some(a) => match seen[a % 4] {
                        0 => {
                            let k = l.kind_ix[m.trailing_zeros() as usize % 32] as usize;
                            out[(l.own + k) * n + i] = 1.0;
                            continue;
                        }
                        1 => out[l.ally * n + i] = 1.0,
                        _ => out[l.enemy * n + i] = 1.0,
                    },
                }
                if flags & KNOWN != 0 {
                    out[l.known * n + i] = 1.0;
                }
                for &(plane, w) in classes.of(m, l, n, &rem) {
                    let j = cand + plane as usize + i;
                    out[j] = 1.0;
                    out[j + prob] = w;
                }
            }
        });
        if let (Some(first), Some(model)) = (l.modelled, &self.model) {
            // The same pieces as the `probability:` planes: every piece but the own.
            let p = beliefs.probabilities(model);
            for s in 0..beliefs.slots as usize {
                let at = beliefs.at[s];
                if at == NONE || army_of_mask(beliefs.mask[s]).is_some_and(|a| seen[a % 4] == 0) {
                    continue;
                }
                let i = self.index[at as usize] as usize;
                p.for_slot(s, |t, q| {
                    let k = l.kind_ix[t % 32] as usize;
                    out[(first + k) * n + i] += q as f32;
                });
            }
        }
        if let Some(side) = turn.to_act {
            let sides = self.rules.sides();
            let me = sides.iter().position(|s| *s == self.player).unwrap_or(0);
            if let Some(it) = sides.iter().position(|s| *s == side) {
                let seat = (it + sides.len() - me) % sides.len();
                out[(l.to_act + seat) * n..(l.to_act + seat + 1) * n].fill(1.0);
            }
        }
        out[l.ply * n..(l.ply + 1) * n].fill((turn.ply as f32 / 1000.0).min(1.0));
        let limit = self.rules.options().no_capture_draw_plies;
        let limit = if limit == 0 { 100 } else { limit };
        out[l.no_capture * n..(l.no_capture + 1) * n].fill((turn.no_capture as f32 / limit as f32).min(1.0));
    }

    /// Encodes many observations into one `[N, channels, points]` buffer: item `i` into
    /// `out[i * len..(i + 1) * len]`. Allocation-free.
    pub fn encode_batch(&self, items: &[(&Beliefs, Turn)], out: &mut [f32]) {
        let len = self.len();
        assert!(out.len() >= items.len() * len, "batch buffer too small");
        for (i, (b, t)) in items.iter().enumerate() {
            self.encode(b, *t, &mut out[i * len..(i + 1) * len]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The channels of candidate set `m` by the rule of [`Classes::of`], worked out
    /// directly: per kind (the armies merged) in kind order, its plane offset and
    /// `Σ r_t / Σ_{t∈m} r_t` over its types (1 for a single type; uniform when all the
    /// `r_t` are 0).
    fn expected(m: u128, l: &Layout, n: usize, rem: &[u16; 128]) -> Vec<(u16, f32)> {
        let types: Vec<usize> = (0..128).filter(|t| m >> t & 1 == 1).collect();
        let total: u32 = types.iter().map(|&t| rem[t] as u32).sum();
        let mut w = vec![0.0f32; l.kinds.len()];
        for &t in &types {
            w[l.kind_ix[t % 32] as usize] += if types.len() == 1 {
                1.0
            } else if total == 0 {
                1.0 / types.len() as f32
            } else {
                rem[t] as f32 / total as f32
            };
        }
        let present = types.iter().map(|&t| l.kind_ix[t % 32] as usize);
        (0..l.kinds.len()).filter(|k| present.clone().any(|x| x == *k)).map(|k| ((k * n) as u16, w[k])).collect()
    }

    fn check(classes: &mut Classes, m: u128, l: &Layout, n: usize, rem: &[u16; 128], what: &str) {
        let got = classes.of(m, l, n, rem).to_vec();
        let want = expected(m, l, n, rem);
        assert_eq!(got.len(), want.len(), "{what}: mask {m:#x}: {got:?}, not {want:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(g.0 == w.0 && (g.1 - w.1).abs() < 1e-6, "{what}: mask {m:#x}: {got:?}, not {want:?}");
        }
    }

    /// More distinct candidate sets than the cache holds (48), first of few kinds (the set
    /// count runs out), then of many (the entries run out): the sets met beyond the cache
    /// get the same channels as the cached ones, and every set met again its own.
    #[test]
    fn candidate_sets_beyond_the_cache_get_their_own_channels() {
        let rules = RuleSet::preset("siguo").unwrap();
        let l = Layout::of(&rules, false);
        let n = rules.board().len();
        let k = l.kinds.len();
        let types = |army: usize, kinds: &[usize]| kinds.iter().fold(0u128, |m, &i| m | 1u128 << (army * 32 + l.kinds[i] as usize));
        let mut rem = [0u16; 128];
        for a in 0..4 {
            for (i, &kind) in l.kinds.iter().enumerate() {
                rem[a * 32 + kind as usize] = (1 + (i + a) % 3) as u16;
            }
        }
        // 80 pairs of kinds (20 of each army): the 48 sets run out; then 60 sets of all
        // kinds of an army but two or three: the 384 entries run out first.
        let small: Vec<u128> = (0..80).map(|i| types(i % 4, &[i / 4 % k, (i / 4 + 1 + i / 4 / k) % k])).collect();
        let large: Vec<u128> = (0..60)
            .map(|i| {
                let keep: Vec<usize> = (0..k).filter(|&j| j != i / 4 % k && j != (i / 4 + 3) % k && (i < 40 || j != (i / 4 + 6) % k)).collect();
                types(i % 4, &keep)
            })
            .collect();
        assert!(k >= 9 && small.iter().chain(&large).all(|&m| m.count_ones() >= 2));
        let mut distinct = small.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() > CLASSES, "{} distinct small sets", distinct.len());
        let entries: usize = large.iter().map(|m| m.count_ones() as usize).sum();
        assert!(entries > ENTRIES && large.len() < CLASSES * 2);
        let mut classes = Classes::new();
        for masks in [&small, &large] {
            classes.clear();
            for (i, &m) in masks.iter().enumerate() {
                check(&mut classes, m, &l, n, &rem, &format!("set {i}"));
                // Met again: its own channels, not another set's.
                check(&mut classes, masks[i / 2], &l, n, &rem, &format!("set {} again", i / 2));
            }
        }
        // One of each kind (probability 1), and the counts of other encodings forgotten.
        classes.clear();
        for (i, &kind) in l.kinds.iter().enumerate() {
            check(&mut classes, 1u128 << (32 + kind as usize), &l, n, &rem, &format!("single {i}"));
        }
        let other = rem.map(|r| 4 - r);
        classes.clear();
        check(&mut classes, small[0], &l, n, &other, "after clear");
    }

    /// Candidates of several armies (a face-down piece of 翻棋) merge by kind, weighted by
    /// the counts left; with nothing left to count (never in consistent beliefs: a
    /// piece's true type is left) they are uniform over the candidate types.
    #[test]
    fn candidates_merge_by_kind_and_fall_back_to_uniform() {
        let rules = RuleSet::preset("fanqi").unwrap();
        let l = Layout::of(&rules, false);
        let n = rules.board().len();
        let (a, b) = (l.kinds[0] as usize, l.kinds[3] as usize);
        let m = 1u128 << a | 1u128 << (32 + a) | 1u128 << (32 + b);
        let mut rem = [0u16; 128];
        let mut classes = Classes::new();
        check(&mut classes, m, &l, n, &rem, "nothing left");
        assert_eq!(classes.of(m, &l, n, &rem), &[(0, 2.0 / 3.0), ((3 * n) as u16, 1.0 / 3.0)]);
        rem[a] = 1;
        rem[32 + b] = 3;
        classes.clear();
        assert_eq!(classes.of(m, &l, n, &rem), &[(0, 0.25), ((3 * n) as u16, 0.75)]);
    }
}
