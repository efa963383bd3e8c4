//! Modelled beliefs: how likely each candidate identity is, given how the piece has
//! played.
//!
//! [`Beliefs`] keeps, for every piece, the identities it *can* have; between those,
//! the plain beliefs count every consistent army as likely as another. Players read
//! more than that: a piece that charges up the railway is seldom a platoon leader, a
//! piece that has not moved in eighty plies next to a headquarters seldom a battalion
//! commander, and the engine's own deployments put the flag in a headquarters and the
//! mines around it. An [`OpponentModel`] says how each kind plays, from counts taken
//! from self-play games of the engine's agents; [`Beliefs::probabilities`] turns it into
//! a probability for every candidate of every piece.
//!
//! **The evidence** a player's [`Beliefs`] keep per piece is public: the point it
//! started on, and every move it made, counted in one of [`MOVE_BUCKETS`] kinds of move
//! ([`BUCKET_NAMES`]: a step forward, sideways or back; a longer run forward or
//! elsewhere; an attack on a piece whose identity was not public, on a public weak
//! one, or on a public strong one — strong when it defeats at least half of the
//! army's kinds); and the turns of its army it stood on the board. Forward is towards
//! the other side of the board from the mover's seat. (In rule sets that deal face
//! down, every piece that moves is face up: there is nothing to read, and the model
//! is plain.)
//!
//! **The model** of a kind `k`: a rate `λ_k(b)` per kind of move `b` (moves of that
//! kind per piece and turn on the board) and, per point `p`, the share `π(k | p)` of
//! the pieces that started on `p` that were of kind `k`. A piece with evidence `e`
//! (moves `n_b`, turns `T`, origin `p`) weighs each candidate `k` by
//!
//! ```text
//! w(k) = π(k | p) · Π_b λ_k(b)^n_b · exp(−T · Σ_b λ_k(b))
//! ```
//!
//! — each kind of move a Poisson process whose rate depends on the kind. The counts are
//! smoothed (`λ_k(b) = (moves + ½) / (turns + 1)`, `π(k | p) = (pieces of k on p + s_k)
//! / (pieces on p + 1)` with `s_k` the kind's share of the army), so no candidate ever
//! weighs 0: a modelled belief stays sound.
//!
//! **Joint consistency.** The weights of all pieces are combined with the army's
//! composition by iterative proportional fitting (Sinkhorn scaling): the matrix of
//! pieces × types (candidates only, weighted) is scaled until every piece's row sums to
//! 1 and every type's column to the number of pieces of that type whose identity is
//! not fixed (within 10⁻⁴, at most 100 rounds; rows last, so they sum to 1). With a plain model this is the count-weighted share of the types; with
//! weights it is the maximum-entropy approximation of the posterior marginals (exact
//! marginals would need a permanent). A piece with one candidate keeps it at 1.

mod sampler;
pub(crate) mod tool;

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::board::{Point, MAX_POINTS};
use crate::combat::CombatOutcome;
use crate::limits::MAX_PIECES;
use crate::piece::{PieceKind, Side};
use crate::referee::Game;
use crate::rules::RuleSet;

use super::{bits, single, Beliefs, NONE, PUBLIC};

pub use sampler::ModelledSampler;
pub use tool::cli;

/// How many kinds of move the evidence tells apart.
pub const MOVE_BUCKETS: usize = 8;

/// The kinds of move, in bucket order (the names in a model's JSON).
pub const BUCKET_NAMES: [&str; MOVE_BUCKETS] = [
    "step_forward",
    "step_sideways",
    "step_back",
    "run_forward",
    "run_other",
    "attack_hidden",
    "attack_public_weak",
    "attack_public_strong",
];

/// The tag that opens a model's JSON (`"format"`).
const FORMAT: &str = "junqi-opponent-model 1";
/// The prior log-odds that an army plays as the model says, before any evidence
/// ([`OpponentModel::trust`]).
const TRUST_PRIOR_LOG_ODDS: f64 = 0.0;

/// Per piece (belief slot): what it has done in public.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// Moves by bucket (saturating).
    moves: [[u8; MOVE_BUCKETS]; MAX_PIECES],
    /// The army's turns when the piece left the board, plus one (0: still on it).
    left: [u16; MAX_PIECES],
    /// Turns each army (by index in the rule set's sides) has played.
    turns: [u16; 4],
}

impl Evidence {
    pub(crate) const fn new() -> Evidence {
        Evidence {
            moves: [[0; MOVE_BUCKETS]; MAX_PIECES],
            left: [0; MAX_PIECES],
            turns: [0; 4],
        }
    }
}

impl Beliefs {
    /// The army (index in the rule set's sides) a slot belongs to, where the slots
    /// follow the armies' deployments (not under a deal).
    fn army_of_slot(&self, slot: usize) -> usize {
        slot / self.rules.army_size().max(1)
    }

    /// Counts a turn of `side`'s army.
    pub(super) fn note_turn(&mut self, side: Side) {
        if self.rules.deals() {
            return;
        }
        if let Some(i) = self.side_index(side) {
            let t = &mut self.evidence.turns[i % 4];
            *t = t.saturating_add(1);
        }
    }

    /// Counts a move (or, with `attack`, an attack or strike) of the piece on `from` to
    /// `to`, read before the beliefs follow it.
    pub(super) fn note_move(&mut self, side: Side, from: Point, to: Point, attack: bool) {
        self.note_turn(side);
        if self.rules.deals() {
            return;
        }
        let Some(s) = self.slot_at(from) else { return };
        let bucket = if attack {
            match self.slot_at(to) {
                Some(d) if self.flags[d] & PUBLIC != 0 && single(self.mask[d]) => {
                    let kind = PieceKind::ALL[self.mask[d].trailing_zeros() as usize % 32];
                    if strong(&self.rules, kind) {
                        7
                    } else {
                        6
                    }
                }
                _ => 5,
            }
        } else {
            let board = self.rules.board();
            let army = self.rules.sides()[self.army_of_slot(s) % self.rules.sides().len()];
            let dy = super::observe::seat_frame(board, army, to).1 - super::observe::seat_frame(board, army, from).1;
            let short = board.step[from.index()].contains(to);
            match (short, dy.signum()) {
                (true, 1) => 0,
                (true, 0) => 1,
                (true, _) => 2,
                (false, 1) => 3,
                (false, _) => 4,
            }
        };
        let n = &mut self.evidence.moves[s][bucket];
        *n = n.saturating_add(1);
    }

    /// Notes the turn a piece leaves the board (its time on it ends).
    pub(super) fn note_removed(&mut self, slot: usize) {
        if self.rules.deals() || self.at[slot] == NONE || self.evidence.left[slot] != 0 {
            return;
        }
        let army = self.army_of_slot(slot);
        self.evidence.left[slot] = self.evidence.turns[army % 4].saturating_add(1);
    }

    /// The turns of its army a slot's piece stood on the board.
    fn exposure(&self, slot: usize) -> u16 {
        match self.evidence.left[slot] {
            0 => self.evidence.turns[self.army_of_slot(slot) % 4],
            n => n - 1,
        }
    }

    /// The evidence of the piece on `p`: its moves by bucket ([`BUCKET_NAMES`]) and the
    /// turns of its army it has stood on the board. `None` if the point is empty.
    pub fn evidence(&self, p: Point) -> Option<([u8; MOVE_BUCKETS], u16)> {
        let s = self.slot_at(p)?;
        Some((self.evidence.moves[s], self.exposure(s)))
    }

    /// The probability of every candidate identity of every piece under `model` (see
    /// the module documentation of `inference::model`; [`OpponentModel::plain`] for
    /// the count-weighted plain beliefs). Pieces off the board take part (their kinds
    /// still count) but are not reported.
    ///
    /// ```
    /// use junqi::{Game, OpponentModel, PieceKind, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let beliefs = game.beliefs(Side::South);
    /// let model = OpponentModel::for_rules(game.rules());
    /// let p = beliefs.probabilities(&model);
    /// let c12 = game.board().point("c12").unwrap();
    /// let sum: f64 = p.at(c12).iter().map(|(_, _, q)| q).sum();
    /// assert!((sum - 1.0).abs() < 1e-6);
    /// // The engine's own deployments put a mine on the middle of the back row.
    /// let plain = beliefs.probabilities(&OpponentModel::plain());
    /// assert!(p.kind(c12, PieceKind::Mine) > 2.0 * plain.kind(c12, PieceKind::Mine));
    /// ```
    pub fn probabilities(&self, model: &OpponentModel) -> Probabilities {
        let n = self.slots as usize;
        let mut start = [0u16; MAX_PIECES + 1];
        let mut entries: Vec<(u8, f64)> = Vec::with_capacity(n * 8);
        let mut rem = [0f64; 128];
        for t in bits(self.types) {
            rem[t] = self.counts[t] as f64;
        }
        let mut free: Vec<usize> = Vec::with_capacity(n);
        let trust = model.trust(self);
        for s in 0..n {
            start[s] = entries.len() as u16;
            let m = self.mask[s];
            if self.origin[s] == NONE || m == 0 {
                continue;
            }
            if single(m) {
                let t = m.trailing_zeros() as usize;
                entries.push((t as u8, 1.0));
                rem[t] = (rem[t] - 1.0).max(0.0);
                continue;
            }
            free.push(s);
            let first = entries.len();
            let mut top = f64::NEG_INFINITY;
            for t in bits(m) {
                let ll = trust[self.army_of_slot(s) % 4] * model.log_weight(self, s, t);
                top = top.max(ll);
                entries.push((t as u8, ll));
            }
            // Relative weights, never below e^-200 of the best: sound (no candidate is
            // ever 0) and finite.
            for e in &mut entries[first..] {
                e.1 = (e.1 - top).max(-200.0).exp();
            }
        }
        start[n] = entries.len() as u16;
        for s in n..MAX_PIECES {
            start[s + 1] = entries.len() as u16;
        }
        let row = |s: usize| start[s] as usize..start[s + 1] as usize;
        // Sinkhorn: columns to their counts, rows to 1, until the columns fit.
        for _ in 0..100 {
            for &s in &free {
                let r = row(s);
                let sum: f64 = entries[r.clone()].iter().map(|e| e.1).sum();
                if sum > 0.0 {
                    entries[r].iter_mut().for_each(|e| e.1 /= sum);
                }
            }
            let mut col = [0f64; 128];
            for &s in &free {
                for e in &entries[row(s)] {
                    col[e.0 as usize] += e.1;
                }
            }
            let mut worst = 0f64;
            for t in bits(self.types) {
                if col[t] > 0.0 {
                    worst = worst.max((col[t] - rem[t]).abs());
                }
            }
            if worst < 1e-4 {
                break;
            }
            for &s in &free {
                for e in &mut entries[row(s)] {
                    let c = col[e.0 as usize];
                    if c > 0.0 && rem[e.0 as usize] > 0.0 {
                        e.1 *= rem[e.0 as usize] / c;
                    }
                }
            }
        }
        // Rows last: every piece's probabilities sum to 1.
        for &s in &free {
            let r = row(s);
            let sum: f64 = entries[r.clone()].iter().map(|e| e.1).sum();
            if sum > 0.0 {
                entries[r].iter_mut().for_each(|e| e.1 /= sum);
            }
        }
        let mut cell = [NONE; MAX_POINTS];
        cell.copy_from_slice(&self.cell);
        Probabilities {
            rules: self.rules.clone(),
            cell,
            start,
            entries,
        }
    }
}

/// Whether a kind counts as strong for the evidence: it defeats at least half of its
/// army's kinds when it attacks them.
fn strong(rules: &RuleSet, kind: PieceKind) -> bool {
    let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
    let wins = kinds.iter().filter(|&&d| rules.combat_outcome(kind, d) == CombatOutcome::Win).count();
    2 * wins >= kinds.len()
}

/// The probabilities of every candidate identity of every piece on the board, from one
/// player's [`Beliefs`] and an [`OpponentModel`] ([`Beliefs::probabilities`]).
#[derive(Clone, Debug)]
pub struct Probabilities {
    rules: Arc<RuleSet>,
    /// Per point: the slot standing there.
    cell: [u8; MAX_POINTS],
    /// Per slot: where its entries start in `entries` (and end, at the next slot's).
    start: [u16; MAX_PIECES + 1],
    /// (type `army_index * 32 + kind`, probability).
    entries: Vec<(u8, f64)>,
}

impl Probabilities {
    /// The identities the piece on `p` may have, each with its probability (they sum
    /// to 1); empty if the point is empty.
    pub fn at(&self, p: Point) -> Vec<(Side, PieceKind, f64)> {
        let Some(&s) = self.cell.get(p.index()) else { return Vec::new() };
        if s == NONE {
            return Vec::new();
        }
        let sides = self.rules.sides();
        self.entries[self.start[s as usize] as usize..self.start[s as usize + 1] as usize]
            .iter()
            .map(|&(t, q)| (sides[t as usize / 32], PieceKind::ALL[t as usize % 32], q))
            .collect()
    }

    /// Calls `f(type, probability)` for each candidate type (`army index * 32 + kind`)
    /// of slot `s`'s piece; nothing for a piece off the board or a slot past the army.
    pub(crate) fn for_slot(&self, s: usize, mut f: impl FnMut(usize, f64)) {
        if s >= MAX_PIECES {
            return;
        }
        for &(t, q) in &self.entries[self.start[s] as usize..self.start[s + 1] as usize] {
            f(t as usize, q);
        }
    }

    /// The probability that the piece on `p` is of `kind` (whatever its army); 0 for
    /// an empty point.
    pub fn kind(&self, p: Point, kind: PieceKind) -> f64 {
        self.at(p).iter().filter(|e| e.1 == kind).map(|e| e.2).sum()
    }

    /// Every point's probabilities by kind (whatever the army) into `out`:
    /// `out[point * PieceKind::COUNT + kind]` (points in the board's order, kinds by
    /// index), 0 for empty points and for kinds a piece cannot be — the layout of
    /// [`Beliefs::mask_into`].
    ///
    /// # Panics
    /// If `out` is shorter than points × [`PieceKind::COUNT`].
    pub fn kinds_into(&self, out: &mut [f64]) {
        let n = self.rules.board().len();
        let out = &mut out[..n * PieceKind::COUNT];
        out.fill(0.0);
        for (i, &s) in self.cell[..n].iter().enumerate() {
            if s == NONE {
                continue;
            }
            for &(t, q) in &self.entries[self.start[s as usize] as usize..self.start[s as usize + 1] as usize] {
                out[i * PieceKind::COUNT + t as usize % 32] += q;
            }
        }
    }

    /// The most likely kind of the piece on `p` (ties: the lowest kind index), `None`
    /// for an empty point.
    pub fn most_likely(&self, p: Point) -> Option<PieceKind> {
        let mut by_kind = [0f64; PieceKind::COUNT];
        let at = self.at(p);
        for &(_, k, q) in &at {
            by_kind[k as usize] += q;
        }
        at.iter()
            .map(|e| e.1)
            .max_by(|a, b| by_kind[*a as usize].total_cmp(&by_kind[*b as usize]).then(b.cmp(a)))
    }
}

/// How each kind of piece plays, as counts from games (see the module documentation of
/// `inference::model`), for [`Beliefs::probabilities`]. The shipped models
/// ([`OpponentModel::for_rules`]) were fitted to self-play games of the engine's
/// agents by `junqi model fit`; [`OpponentModel::plain`] weighs every candidate alike.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentModel {
    /// The rule set the counts come from (`None`: the plain model).
    rules: Option<String>,
    /// What the counts were taken from (free text: agents, seeds).
    source: String,
    games: u64,
    /// Per kind: moves by bucket.
    moves: [[u64; MOVE_BUCKETS]; PieceKind::COUNT],
    /// Per kind: turns of its army its pieces stood on the board, summed.
    turns: [u64; PieceKind::COUNT],
    /// Per point (index): the pieces of each kind that started there.
    origins: Vec<[u32; PieceKind::COUNT]>,
    /// Per kind: each kind's share of the army (for the origin prior's smoothing).
    share: [f64; PieceKind::COUNT],
    /// Derived: ln λ_k(b), Σ_b λ_k(b), ln π(k | p).
    log_rate: [[f64; MOVE_BUCKETS]; PieceKind::COUNT],
    total_rate: [f64; PieceKind::COUNT],
    log_origin: Vec<[f64; PieceKind::COUNT]>,
}

/// Why a model was refused ([`OpponentModel::from_json`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// Not JSON, or not an object.
    #[error("the model is not valid JSON: {0}")]
    Json(String),
    /// The `format` field is missing or names another format.
    #[error("not an opponent model: \"format\" must be \"{FORMAT}\"")]
    Format,
    /// A field is missing or of the wrong type.
    #[error("the model's \"{0}\" is missing or malformed")]
    Field(String),
    /// A kind the rule set's armies do not have.
    #[error("the model counts the kind \"{0}\", which the rule set's armies do not have")]
    UnknownKind(String),
    /// A model name other than `shipped` and `plain` (and not JSON).
    #[error("no model is called \"{0}\": say shipped, plain, or give a model's JSON")]
    UnknownModel(String),
    /// A point the rule set's board does not have.
    #[error("the model counts pieces on \"{0}\", which is no point of the rule set's board")]
    UnknownPoint(String),
}

impl crate::error::Error for ModelError {
    fn kind(&self) -> crate::ErrorKind {
        match self {
            ModelError::UnknownKind(_) | ModelError::UnknownPoint(_) | ModelError::UnknownModel(_) => crate::ErrorKind::UnknownName,
            ModelError::Json(_) | ModelError::Format | ModelError::Field(_) => crate::ErrorKind::InvalidJson,
        }
    }
}

/// The shipped models: (the rule sets each serves, JSON). A model serves the presets of
/// its family that share its board and armies (the sanjun presets differ only in
/// options; siguo-2p is siguo's board and armies with two players).
const SHIPPED: &[(&[&str], &str)] = &[
    (&["classic"], include_str!("../../../data/models/classic.json")),
    (&["siguo", "siguo-2p"], include_str!("../../../data/models/siguo.json")),
    (
        &["sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum"],
        include_str!("../../../data/models/sanjun-modern.json"),
    ),
];

impl OpponentModel {
    /// The plain model: every candidate weighs alike (the probabilities are the
    /// count-weighted shares of the types, kept consistent with the composition).
    pub fn plain() -> OpponentModel {
        OpponentModel {
            rules: None,
            source: String::new(),
            games: 0,
            moves: [[0; MOVE_BUCKETS]; PieceKind::COUNT],
            turns: [0; PieceKind::COUNT],
            origins: Vec::new(),
            share: [0.0; PieceKind::COUNT],
            log_rate: [[0.0; MOVE_BUCKETS]; PieceKind::COUNT],
            total_rate: [0.0; PieceKind::COUNT],
            log_origin: Vec::new(),
        }
    }

    /// The shipped model of a rule set: the one fitted to self-play games of its
    /// family (classic; siguo for siguo and siguo-2p; sanjun-modern for the four sanjun
    /// presets) if the engine ships one for its name, else the plain model (翻棋, which
    /// deals face down, and custom rule sets).
    pub fn for_rules(rules: &RuleSet) -> OpponentModel {
        SHIPPED
            .iter()
            .find(|(names, _)| names.contains(&rules.name()))
            .and_then(|(_, text)| OpponentModel::from_json(rules, text).ok())
            .unwrap_or_else(OpponentModel::plain)
    }

    /// The model a caller names, as every surface (C, Python, WebAssembly, the CLI)
    /// reads it: `"shipped"` (or nothing) for [`OpponentModel::for_rules`], `"plain"`
    /// for [`OpponentModel::plain`], or a model's JSON ([`OpponentModel::from_json`]).
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("classic").unwrap();
    /// assert!(!junqi::OpponentModel::load(&rules, "shipped").unwrap().is_plain());
    /// assert!(junqi::OpponentModel::load(&rules, "plain").unwrap().is_plain());
    /// assert!(junqi::OpponentModel::load(&rules, "psychic").is_err());
    /// ```
    pub fn load(rules: &RuleSet, spec: &str) -> Result<OpponentModel, ModelError> {
        match spec.trim() {
            "" | "shipped" => Ok(OpponentModel::for_rules(rules)),
            "plain" => Ok(OpponentModel::plain()),
            t if t.starts_with('{') => OpponentModel::from_json(rules, t),
            other => Err(ModelError::UnknownModel(other.chars().take(64).collect())),
        }
    }

    /// Whether this is the plain model.
    pub fn is_plain(&self) -> bool {
        self.rules.is_none()
    }

    /// The rule set the counts come from (`None` for the plain model).
    pub fn rules_name(&self) -> Option<&str> {
        self.rules.as_deref()
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// An empty model of `rules` (no games yet), to [`OpponentModel::count`] games into.
    pub fn empty(rules: &RuleSet, source: &str) -> OpponentModel {
        let mut m = OpponentModel::plain();
        m.rules = Some(rules.name().to_owned());
        m.source = source.to_owned();
        m.origins = vec![[0; PieceKind::COUNT]; rules.board().len()];
        let size = rules.army_size().max(1) as f64;
        for (k, n) in rules.army() {
            m.share[k as usize] = n as f64 / size;
        }
        m.derive();
        m
    }

    /// Counts a game's pieces into the model: for every army, its pieces' evidence as
    /// an opponent's beliefs hold it, by their true kinds. Games of another rule set
    /// (by name and board) and games that deal face down are skipped (returns false).
    pub fn count(&mut self, game: &Game) -> bool {
        let rules = game.rules();
        if self.rules.as_deref() != Some(rules.name()) || self.origins.len() != rules.board().len() || rules.deals() {
            return false;
        }
        let sides = rules.sides();
        for (a, &army) in sides.iter().enumerate() {
            let Some(&observer) = sides.iter().find(|&&o| !rules.team_of(army).contains(o)) else {
                continue;
            };
            let seen = game.beliefs(observer);
            let own = game.beliefs(army);
            let size = rules.army_size();
            for s in a * size..(a + 1) * size {
                if own.origin[s] == NONE || !single(own.mask[s]) {
                    continue;
                }
                let k = own.mask[s].trailing_zeros() as usize % 32;
                for (b, &n) in seen.evidence.moves[s].iter().enumerate() {
                    self.moves[k][b] += n as u64;
                }
                self.turns[k] += seen.exposure(s) as u64;
                if let Some(o) = own.known_origin(s) {
                    self.origins[o][k] += 1;
                }
            }
        }
        self.games += 1;
        self.derive();
        true
    }

    /// Adds another model's counts (of the same rule set) to this one's: models fitted
    /// on several machines merge into the one all the games would give.
    pub fn merge(&mut self, other: &OpponentModel) -> bool {
        if other.rules != self.rules || other.origins.len() != self.origins.len() {
            return false;
        }
        for k in 0..PieceKind::COUNT {
            for b in 0..MOVE_BUCKETS {
                self.moves[k][b] += other.moves[k][b];
            }
            self.turns[k] += other.turns[k];
        }
        for (a, b) in self.origins.iter_mut().zip(&other.origins) {
            for k in 0..PieceKind::COUNT {
                a[k] += b[k];
            }
        }
        self.games += other.games;
        self.derive();
        true
    }

    /// Works out the smoothed rates and priors from the counts.
    fn derive(&mut self) {
        if self.rules.is_none() {
            return;
        }
        for k in 0..PieceKind::COUNT {
            let mut total = 0.0;
            for b in 0..MOVE_BUCKETS {
                let rate = (self.moves[k][b] as f64 + 0.5) / (self.turns[k] as f64 + 1.0);
                self.log_rate[k][b] = rate.ln();
                total += rate;
            }
            self.total_rate[k] = total;
        }
        self.log_origin = self
            .origins
            .iter()
            .map(|o| {
                let n: f64 = o.iter().map(|&c| c as f64).sum();
                let mut l = [0.0; PieceKind::COUNT];
                for k in 0..PieceKind::COUNT {
                    l[k] = ((o[k] as f64 + self.share[k]) / (n + 1.0)).max(1e-300).ln();
                }
                l
            })
            .collect();
    }

    /// How far each army (by index in the rule set's sides) plays as the model says, from
    /// 0 (like any other army: the plain beliefs) to 1 (the model's weights in full): the
    /// posterior probability, at even prior odds, that the army's public evidence comes
    /// from the model's kind of play rather than from play that ignores identities
    /// (every kind at the army's mean rates, deployed anywhere). Per piece, the model's
    /// likelihood is averaged over the piece's candidates by their counts; the pieces are
    /// taken as independent. The model's log-weights are scaled by it
    /// ([`Beliefs::probabilities`] and [`Beliefs::sampler`] alike), so an opponent that
    /// plays unlike the engine's agents (at random, say) soon gets the plain beliefs back.
    pub(crate) fn trust(&self, beliefs: &Beliefs) -> [f64; 4] {
        if self.rules.is_none() || beliefs.rules.deals() {
            return [0.0; 4];
        }
        let rules = &beliefs.rules;
        let movable = |k: usize| rules.mobility(PieceKind::ALL[k]) != crate::rules::Mobility::Immobile;
        let mut log_odds = [TRUST_PRIOR_LOG_ODDS; 4];
        let sides = beliefs.rules.sides();
        let n = beliefs.slots as usize;
        let mut terms = [0f64; 128];
        for slot in 0..n {
            let m = beliefs.mask[slot];
            // (A piece whose origin is not known, in a game started from a position
            // string, says nothing either way: neither deployment can be read.)
            if beliefs.known_origin(slot).is_none() || m == 0 {
                continue;
            }
            // Blind deployment: each kind as often as the army has it, among the kinds
            // the rules let stand on the piece's origin.
            let army = beliefs.army_of_slot(slot);
            let side = sides[army % sides.len()];
            let origin = crate::board::Point(beliefs.origin[slot]);
            let plan = beliefs.rules.deploy_plan(side);
            let allowed: f64 = plan.iter().filter(|(_, _, at)| at.contains(origin)).map(|&(_, c, _)| c as f64).sum();
            // Blind play moves a movable piece as the model moves the movable pieces of
            // this origin on average, whatever its kind: ln L̄ = ln Σ P(k | o) L(moves | k)
            // − ln Σ P(k | o), over the movable kinds allowed there.
            let log_origin = self.log_origin.get(beliefs.origin[slot] as usize);
            let (mut joint, mut prior, mut nj) = ([0f64; PieceKind::COUNT], [0f64; PieceKind::COUNT], 0);
            let mut here = [0f64; PieceKind::COUNT];
            for &(kind, c, ref at) in plan.iter() {
                let k = kind as usize;
                if at.contains(origin) {
                    here[k] += c as f64;
                }
            }
            for k in (0..PieceKind::COUNT).filter(|&k| here[k] > 0.0 && movable(k)) {
                joint[nj] = self.log_weight(beliefs, slot, k);
                prior[nj] = log_origin.map_or(0.0, |o| o[k]);
                nj += 1;
            }
            let blind_moves = log_sum_exp(&joint[..nj]) - log_sum_exp(&prior[..nj]);
            // The piece's Bayes factor: Σ over its candidates of P(kind | origin) · L(moves |
            // kind) under the model, against the blind deployment's share of the kind
            // there times L̄ (for an immobile kind, the model's own L(moves | kind), as no
            // play moves it). Summing over the candidates only takes what ruled the others
            // out (a reveal, a combat) as evidence both hypotheses explain alike.
            let (mut model_len, mut blind_len) = (0, 0);
            let mut blind_terms = [0f64; 128];
            for t in bits(m) {
                let k = t % 32;
                if k >= PieceKind::COUNT {
                    continue;
                }
                let w = self.log_weight(beliefs, slot, t);
                terms[model_len] = w;
                model_len += 1;
                if here[k] > 0.0 && allowed > 0.0 {
                    let moves_term = if movable(k) { blind_moves } else { w - log_origin.map_or(0.0, |o| o[k]) };
                    blind_terms[blind_len] = (here[k] / allowed).ln() + moves_term;
                    blind_len += 1;
                }
            }
            if model_len == 0 || blind_len == 0 || nj == 0 {
                continue;
            }
            log_odds[army % 4] += log_sum_exp(&terms[..model_len]) - log_sum_exp(&blind_terms[..blind_len]);
        }
        log_odds.map(|x| 1.0 / (1.0 + (-x).exp()))
    }

    /// ln w(type `t`) of slot `s` of `beliefs` (0 for the plain model): ln P(kind |
    /// origin) plus the log-likelihood of the piece's moves for the kind.
    fn log_weight(&self, beliefs: &Beliefs, s: usize, t: usize) -> f64 {
        if self.rules.is_none() || beliefs.rules.deals() {
            return 0.0;
        }
        let k = t % 32;
        if k >= PieceKind::COUNT {
            return 0.0;
        }
        let mut ll = beliefs.known_origin(s).and_then(|o| self.log_origin.get(o)).map_or(0.0, |o| o[k]);
        let moves = &beliefs.evidence.moves[s];
        for b in 0..MOVE_BUCKETS {
            if moves[b] != 0 {
                ll += moves[b] as f64 * self.log_rate[k][b];
            }
        }
        ll - beliefs.exposure(s) as f64 * self.total_rate[k]
    }

    /// The model as JSON (its counts; the rates and priors are worked out from them
    /// when it is read), one kind and one point per line. `rules` names the points.
    pub fn to_json(&self, rules: &RuleSet) -> String {
        if self.rules.is_none() {
            return json!({"format": FORMAT, "plain": true}).to_string() + "\n";
        }
        let mut out = String::new();
        let line = |out: &mut String, key: &str, v: Value, last: bool| {
            out.push_str(&format!("  {}: {}{}\n", json!(key), v, if last { "" } else { "," }));
        };
        out.push_str("{\n");
        line(&mut out, "format", json!(FORMAT), false);
        line(&mut out, "rules", json!(self.rules), false);
        line(&mut out, "source", json!(self.source), false);
        line(&mut out, "games", json!(self.games), false);
        line(&mut out, "buckets", json!(BUCKET_NAMES), false);
        out.push_str("  \"kinds\": {\n");
        let kinds: Vec<PieceKind> = rules.army().filter(|(_, n)| *n > 0).map(|(k, _)| k).collect();
        for (i, k) in kinds.iter().enumerate() {
            let v = json!({"moves": self.moves[*k as usize].to_vec(), "turns": self.turns[*k as usize]});
            out.push_str(&format!("    {}: {}{}\n", json!(k.id()), v, if i + 1 < kinds.len() { "," } else { "" }));
        }
        out.push_str("  },\n  \"origins\": {\n");
        let mut rows = Vec::new();
        for p in rules.board().points() {
            let Some(o) = self.origins.get(p.index()) else { continue };
            let mut m = Map::new();
            for &k in &kinds {
                if o[k as usize] > 0 {
                    m.insert(k.id().to_owned(), json!(o[k as usize]));
                }
            }
            if !m.is_empty() {
                rows.push(format!("    {}: {}", json!(rules.board().name_of(p)), Value::Object(m)));
            }
        }
        out.push_str(&rows.join(",\n"));
        out.push_str("\n  }\n}\n");
        out
    }

    /// Reads a model written by [`OpponentModel::to_json`] for `rules` (its kinds and
    /// points must be the rule set's).
    pub fn from_json(rules: &RuleSet, text: &str) -> Result<OpponentModel, ModelError> {
        let v: Value = serde_json::from_str(text).map_err(|e| ModelError::Json(e.to_string()))?;
        let obj = v.as_object().ok_or_else(|| ModelError::Json("not an object".into()))?;
        if obj.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(ModelError::Format);
        }
        if obj.get("plain").and_then(Value::as_bool) == Some(true) {
            return Ok(OpponentModel::plain());
        }
        let field = |name: &str| ModelError::Field(name.to_owned());
        let source = obj.get("source").and_then(Value::as_str).unwrap_or("");
        let mut m = OpponentModel::empty(rules, source);
        if let Some(name) = obj.get("rules").and_then(Value::as_str) {
            m.rules = Some(name.to_owned());
        }
        m.games = obj.get("games").and_then(Value::as_u64).ok_or_else(|| field("games"))?;
        let buckets = obj.get("buckets").and_then(Value::as_array).ok_or_else(|| field("buckets"))?;
        if buckets.len() != MOVE_BUCKETS || buckets.iter().zip(BUCKET_NAMES).any(|(b, n)| b.as_str() != Some(n)) {
            return Err(field("buckets"));
        }
        let in_army = |name: &str| -> Result<PieceKind, ModelError> {
            name.parse::<PieceKind>()
                .ok()
                .filter(|k| rules.army().any(|(a, n)| a == *k && n > 0))
                .ok_or_else(|| ModelError::UnknownKind(name.to_owned()))
        };
        for (name, entry) in obj.get("kinds").and_then(Value::as_object).ok_or_else(|| field("kinds"))? {
            let k = in_army(name)? as usize;
            let moves = entry.get("moves").and_then(Value::as_array).filter(|a| a.len() == MOVE_BUCKETS);
            let moves = moves.ok_or_else(|| field(&format!("kinds.{name}.moves")))?;
            for (b, n) in moves.iter().enumerate() {
                m.moves[k][b] = n.as_u64().ok_or_else(|| field(&format!("kinds.{name}.moves")))?;
            }
            m.turns[k] = entry.get("turns").and_then(Value::as_u64).ok_or_else(|| field(&format!("kinds.{name}.turns")))?;
        }
        for (point, counts) in obj.get("origins").and_then(Value::as_object).ok_or_else(|| field("origins"))? {
            let p = rules.board().point(point).ok_or_else(|| ModelError::UnknownPoint(point.clone()))?;
            for (name, n) in counts.as_object().ok_or_else(|| field(&format!("origins.{point}")))? {
                let k = in_army(name)? as usize;
                let n = n.as_u64().and_then(|n| u32::try_from(n).ok());
                m.origins[p.index()][k] = n.ok_or_else(|| field(&format!("origins.{point}.{name}")))?;
            }
        }
        m.derive();
        Ok(m)
    }
}

/// ln Σ e^x, computed without overflow (−∞ for no terms).
fn log_sum_exp(xs: &[f64]) -> f64 {
    let top = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + xs.iter().map(|x| (x - top).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent;
    use crate::referee::Game;

    /// Plays `south` against `north` for `plies` plies of classic from `seed`.
    fn game(south: &str, north: &str, seed: u64, plies: u32) -> Game {
        let mut g = Game::new("classic", seed).unwrap();
        let mut a = agent::by_name(south, seed).unwrap();
        let mut b = agent::by_name(north, seed + 1).unwrap();
        while g.result().is_none() && g.position().ply() < plies {
            agent::act(&mut g, Side::South, a.as_mut()).unwrap();
            agent::act(&mut g, Side::North, b.as_mut()).unwrap();
        }
        g
    }

    /// Classic with `open_play`: both pieces of a combat are shown to everyone.
    fn open_play() -> Arc<RuleSet> {
        Arc::new(RuleSet::from_json(r#"{"extends": "classic", "name": "open", "options": {"open_play": true}}"#).unwrap())
    }

    /// A two-army game of `rules` from `seed`: random deployments, then up to `plies`
    /// random plies; with the generator that chose them, to play on.
    fn random_game(rules: &Arc<RuleSet>, seed: u64, plies: u64) -> (Game, crate::Rng) {
        let mut g = Game::with_rules(rules.clone(), seed);
        let mut rng = crate::Rng::new(seed);
        g.deploy_random(Side::South, rng.next_u64()).unwrap();
        g.deploy_random(Side::North, rng.next_u64()).unwrap();
        for _ in 0..plies {
            if g.result().is_some() {
                break;
            }
            let legal = g.legal_actions();
            g.play(legal[rng.below(legal.len())]).unwrap();
        }
        (g, rng)
    }

    /// Random play in classic with `open_play` (both pieces of a combat are shown to
    /// everyone, so attacks on public pieces of both strengths happen): after every ply,
    /// each player's beliefs hold an attack in the bucket its target had in them before
    /// it (a public piece: weak or strong by its true kind; else "hidden"), whatever
    /// became of the attacker; and every piece of either army has stood on the board
    /// for its army's turns until it left (a piece taken keeps the turns it had).
    #[test]
    fn an_attack_goes_by_what_its_target_showed_and_a_taken_piece_keeps_its_turns() {
        use crate::action::Action;
        let rules = open_play();
        // Classic's kinds that beat at least 6 of its 12: the marshal (9: the flag, the
        // engineer and the seven officers below it), the army commander (8), the
        // division (7) and brigade (6) commanders; the regiment commander beats 5.
        let strong = [
            PieceKind::Commander,
            PieceKind::ArmyCommander,
            PieceKind::DivisionCommander,
            PieceKind::BrigadeCommander,
        ];
        for k in PieceKind::ALL.into_iter().filter(|&k| rules.army().any(|(a, n)| a == k && n > 0)) {
            assert_eq!(super::strong(&rules, k), strong.contains(&k), "{k:?}");
        }
        let mut seen = [0u32; 3];
        for seed in 0..4u64 {
            let (mut g, mut rng) = random_game(&rules, seed, 0);
            let mut turns = [0u16; 2];
            let mut left = [[None::<u16>; MAX_PIECES]; 2];
            while g.result().is_none() && g.position().ply() < 400 {
                let side = g.to_act().unwrap();
                let before = [g.beliefs(Side::South), g.beliefs(Side::North)];
                let legal = g.legal_actions();
                let a = legal[rng.below(legal.len())];
                let Action::Move { from, to } = a else { unreachable!() };
                let target = g.position().piece_at(to);
                g.play(a).unwrap();
                turns[(side == Side::North) as usize] += 1;
                let after = [g.beliefs(Side::South), g.beliefs(Side::North)];
                for (o, (b0, b1)) in before.iter().zip(&after).enumerate() {
                    if let Some((_, kind)) = target {
                        let (s, d) = (b0.slot_at(from).unwrap(), b0.slot_at(to).unwrap());
                        let public = b0.flags[d] & PUBLIC != 0;
                        let want = match (public, strong.contains(&kind)) {
                            (false, _) => 5,
                            (true, false) => 6,
                            (true, true) => 7,
                        };
                        let mut moves = b0.evidence.moves[s];
                        moves[want] += 1;
                        assert_eq!(b1.evidence.moves[s], moves, "seed {seed} ply {}, player {o}: {a:?} on a {kind:?}", g.position().ply());
                        seen[want - 5] += 1;
                    }
                    for slot in 0..b1.slots as usize {
                        let army = slot / rules.army_size();
                        if b1.at[slot] == NONE {
                            let t = *left[o][slot].get_or_insert(turns[army]);
                            assert_eq!(b1.exposure(slot), t, "seed {seed}: slot {slot} taken after {t} turns");
                        } else {
                            assert_eq!(b1.exposure(slot), turns[army], "seed {seed}: slot {slot}");
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 10), "attacks on hidden, public weak and public strong pieces: {seen:?}");
    }

    /// Strong is beating at least half of the kinds the army has: a kind the rule set
    /// lists with no piece does not count (without mines and bombs, 10 kinds, and the
    /// regiment commander's 5 wins are half).
    #[test]
    fn strong_counts_only_the_kinds_the_army_has() {
        let rules = RuleSet::from_json(
            r#"{"extends": "classic", "name": "unarmed", "army": {"flag": 1, "commander": 1, "army_commander": 1,
            "division_commander": 2, "brigade_commander": 2, "regiment_commander": 2, "battalion_commander": 2,
            "company_commander": 3, "platoon_leader": 8, "engineer": 3, "mine": 0, "bomb": 0}}"#,
        )
        .unwrap();
        assert_eq!(rules.army().count(), 12);
        assert!(super::strong(&rules, PieceKind::RegimentCommander));
        assert!(!super::strong(&rules, PieceKind::BattalionCommander));
    }

    /// Every type's probabilities, over all its army's pieces (on the board and off it,
    /// identified or not), add up to its count: a piece the player has identified takes
    /// one of its type away from the others (classic with `open_play`, where combats show
    /// pieces while others of their types are still open).
    #[test]
    fn every_type_s_probabilities_add_up_to_its_count() {
        let rules = open_play();
        let mut mixed = 0;
        for seed in 0..4u64 {
            let (g, _) = random_game(&rules, seed, 30 + 40 * seed);
            let b = g.beliefs(Side::South);
            let probs = b.probabilities(&OpponentModel::plain());
            let mut total = [0f64; 128];
            let (mut known, mut open) = ([0u32; 128], [0u32; 128]);
            // (Slots past the army's, to past the last, have nothing.)
            for slot in b.slots as usize..=MAX_PIECES {
                probs.for_slot(slot, |t, q| panic!("slot {slot} of {}: type {t} at {q}", b.slots));
            }
            for slot in 0..b.slots as usize {
                probs.for_slot(slot, |t, q| total[t] += q);
                for t in bits(b.mask[slot]) {
                    if single(b.mask[slot]) {
                        known[t] += 1;
                    } else {
                        open[t] += 1;
                    }
                }
            }
            for t in bits(b.types) {
                assert!((total[t] - b.counts[t] as f64).abs() < 1e-3, "seed {seed}: type {t}: {} for {} pieces", total[t], b.counts[t]);
                mixed += (known[t] > 0 && open[t] > 0) as u32;
            }
        }
        assert!(mixed > 4, "types with identified and open pieces at once: {mixed}");
    }

    /// A piece that has made many moves of one kind is, under the model, far more likely
    /// the candidate kind whose log-weight for them is the highest than the one whose
    /// is the lowest — even when all of its candidates' weights are tiny (e^-300 and
    /// below: the weights are taken relative to the best one before they are
    /// exponentiated, not clamped where they would all be alike).
    #[test]
    fn a_piece_with_long_evidence_is_the_kind_that_explains_it_best() {
        let g = game("greedy", "greedy", 7, 40);
        let model = OpponentModel::for_rules(g.rules());
        let mut b = g.beliefs(Side::South);
        let army = b.rules.army_size();
        let s = (army..2 * army).find(|&s| b.at[s] != NONE && b.mask[s].count_ones() > 3).unwrap();
        // 150 forward runs: the rail runners' kind of move.
        b.evidence.moves[s][3] = 150;
        let weights: Vec<(usize, f64)> = bits(b.mask[s]).map(|t| (t, model.log_weight(&b, s, t))).collect();
        let best = weights.iter().copied().max_by(|x, y| x.1.total_cmp(&y.1)).unwrap();
        let worst = weights.iter().copied().min_by(|x, y| x.1.total_cmp(&y.1)).unwrap();
        assert!(best.1 < -300.0 && best.1 - worst.1 > 50.0, "{weights:?}");
        assert!(model.trust(&b)[1] > 0.5, "{:?}", model.trust(&b));
        let probs = b.probabilities(&model);
        let (mut q_best, mut q_worst) = (0.0, 0.0);
        probs.for_slot(s, |t, p| {
            if t == best.0 {
                q_best = p;
            } else if t == worst.0 {
                q_worst = p;
            }
        });
        assert!(q_best > 1e6 * q_worst, "kind {} at {q_best}, kind {} at {q_worst}: {weights:?}", best.0, worst.0);
    }

    /// The rates and priors, by hand: λ = (moves + ½) / (turns + 1) per kind of move and
    /// their sum, π(k | p) = (pieces of k on p + the kind's share) / (pieces on p + 1).
    #[test]
    fn the_rates_and_priors_are_the_smoothed_counts() {
        let rules = RuleSet::preset("classic").unwrap();
        let mut m = OpponentModel::empty(&rules, "by hand");
        let (k, j) = (PieceKind::Engineer as usize, PieceKind::Mine as usize);
        m.moves[k] = [3, 0, 1, 9, 0, 0, 0, 2];
        m.turns[k] = 19;
        let p = rules.board().point("c2").unwrap().index();
        m.origins[p][k] = 2;
        m.origins[p][j] = 5;
        m.derive();
        for (b, &n) in m.moves[k].iter().enumerate() {
            assert!((m.log_rate[k][b] - ((n as f64 + 0.5) / 20.0).ln()).abs() < 1e-12, "bucket {b}");
        }
        assert!((m.total_rate[k] - 19.0 / 20.0).abs() < 1e-12, "{}", m.total_rate[k]);
        // A kind never seen: every rate ½.
        assert!((m.total_rate[PieceKind::Commander as usize] - 4.0).abs() < 1e-12);
        // Classic's army of 25 has 3 engineers and 3 mines.
        assert!((m.log_origin[p][k] - ((2.0 + 3.0 / 25.0) / 8.0f64).ln()).abs() < 1e-12);
        assert!((m.log_origin[p][j] - ((5.0 + 3.0 / 25.0) / 8.0f64).ln()).abs() < 1e-12);
        let q = rules.board().point("c3").unwrap().index();
        assert!((m.log_origin[q][k] - (3.0f64 / 25.0).ln()).abs() < 1e-12);
    }

    /// The trust's value, pinned (the module documentation and docs/inference.md give
    /// its formula) on armies read early, where it is neither 0 nor 1, and where pieces
    /// whose origin the player cannot know (a game started from a position string) weigh
    /// nothing: their candidates struck out, the trust is the same to the last bit.
    #[test]
    fn the_trust_is_pinned_and_ignores_pieces_of_unknown_origin() {
        let model = OpponentModel::for_rules(&crate::rules::RuleSet::preset("classic").unwrap());
        let mut got = Vec::new();
        for (seed, plies) in [(1, 8), (2, 6), (3, 12), (4, 4)] {
            let g = game("greedy", "random", seed, plies);
            got.push(model.trust(&g.beliefs(Side::South))[1]);
            got.push(model.trust(&g.beliefs(Side::North))[0]);
        }
        let pinned = [
            0.02607213196825886,
            0.9913925116515591,
            0.1521283202615776,
            0.9511647557382388,
            0.8008703467768202,
            0.9760539913819208,
            0.010947593703177496,
            0.9019891821652157,
        ];
        for (g, p) in got.iter().zip(pinned) {
            assert!((g - p).abs() < 1e-9 * p, "{got:?}");
        }
        let g = game("greedy", "greedy", 5, 40);
        let started = Game::from_position_string_with(g.rules().clone(), &g.position_string(), 5).unwrap();
        for side in [Side::South, Side::North] {
            let b = started.beliefs(side);
            let mut known = b.clone();
            for s in 0..b.slots as usize {
                if b.known_origin(s).is_none() {
                    known.mask[s] = 0;
                }
            }
            assert_ne!(known, b);
            assert_eq!(model.trust(&b), model.trust(&known), "{side}");
        }
    }

    /// A piece whose origin allows only kinds that never move (here the HQs of a rule set
    /// whose mobile kinds must stand on posts) tells nothing of how its army plays:
    /// struck out, the trust is the same.
    #[test]
    fn a_piece_where_only_immobile_kinds_may_stand_weighs_nothing_in_the_trust() {
        let mobile = ["commander", "army_commander", "division_commander", "brigade_commander", "regiment_commander"];
        let mobile = mobile.iter().chain(&["battalion_commander", "company_commander", "platoon_leader", "engineer", "bomb"]);
        let constraints: Vec<String> = mobile.map(|k| format!(r#"{{"kind": "{k}", "roles": ["post"]}}"#)).collect();
        let json = format!(
            r#"{{"extends": "classic", "name": "posts", "deployment": {{"roles": ["post", "hq"], "constraints": [
                {{"kind": "flag", "roles": ["hq"]}}, {{"kind": "mine", "max_depth": 2}}, {}]}}}}"#,
            constraints.join(", ")
        );
        let rules = Arc::new(RuleSet::from_json(&json).unwrap());
        let play = |seed: u64| random_game(&rules, seed, 30).0;
        let mut model = OpponentModel::empty(&rules, "test");
        for seed in 0..3 {
            assert!(model.count(&play(seed)));
        }
        let g = play(9);
        let b = g.beliefs(Side::South);
        let hq: Vec<Point> = ["b12", "d12"].iter().map(|n| rules.board().point(n).unwrap()).collect();
        let mut known = b.clone();
        for s in 0..b.slots as usize {
            if b.known_origin(s).is_some_and(|o| hq.iter().any(|p| p.index() == o)) {
                assert!(bits(b.mask[s]).all(|t| [PieceKind::Flag, PieceKind::Mine].contains(&PieceKind::ALL[t % 32])));
                known.mask[s] = 0;
            }
        }
        assert_ne!(known, b);
        let t = model.trust(&b)[1];
        assert!(t > 0.0 && t < 1.0 && t == model.trust(&known)[1], "{t} {:?}", model.trust(&known));
    }

    #[test]
    fn the_model_is_trusted_for_an_army_that_plays_like_the_engine_and_not_for_a_random_one() {
        let model = OpponentModel::for_rules(&crate::rules::RuleSet::preset("classic").unwrap());
        let (mut engine_like, mut random) = (Vec::new(), Vec::new());
        for seed in 1..=6 {
            let g = game("greedy", "random", seed, 60);
            // South (greedy) reads North's random army; North reads South's greedy one.
            random.push(model.trust(&g.beliefs(Side::South))[1]);
            engine_like.push(model.trust(&g.beliefs(Side::North))[0]);
            // The plain model trusts nothing; trust is a probability.
            assert_eq!(OpponentModel::plain().trust(&g.beliefs(Side::South)), [0.0; 4]);
        }
        assert!(random.iter().all(|t| (0.0..=1.0).contains(t)) && engine_like.iter().all(|t| (0.0..=1.0).contains(t)));
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean(&random) < 0.2, "a random army trusted: {random:?}");
        assert!(mean(&engine_like) > 0.9, "an engine-like army distrusted: {engine_like:?}");
    }

    /// A game started from a position string: a piece that has not moved stands where
    /// it started, and the model reads its deployment; one that had moved, or one off
    /// the board, started where the player cannot say, and the model reads nothing from
    /// its (stand-in) origin — neither its weights nor the army's trust. Nor does
    /// counting such a game into a model add deployments that were not seen.
    #[test]
    fn a_game_started_from_a_position_string_reads_no_origin_it_cannot_know() {
        let g = game("greedy", "greedy", 5, 40);
        let started = Game::from_position_string_with(g.rules().clone(), &g.position_string(), 5).unwrap();
        let model = OpponentModel::for_rules(g.rules());
        let b = started.beliefs(Side::South);
        let (mut moved, mut still, mut off) = (0, 0, 0);
        for s in 0..b.slots as usize {
            if b.origin[s] == NONE || b.army_of_slot(s) != 1 || single(b.mask[s]) {
                continue;
            }
            let origin_term = |t: usize| model.log_origin.get(b.origin[s] as usize).map_or(0.0, |o| o[t % 32]);
            for t in bits(b.mask[s]) {
                let w = model.log_weight(&b, s, t);
                if b.at[s] == NONE || b.flags[s] & crate::inference::MOVED != 0 {
                    assert_eq!(w, 0.0, "slot {s}: no evidence, no origin, yet weight {w}");
                } else {
                    assert!((w - origin_term(t)).abs() < 1e-12, "slot {s}: weight {w}, not its origin's");
                }
            }
            match (b.at[s] == NONE, b.flags[s] & crate::inference::MOVED != 0) {
                (true, _) => off += 1,
                (false, true) => moved += 1,
                (false, false) => still += 1,
            }
        }
        assert!(moved > 0 && still > 0 && off > 0, "{moved} moved, {still} still, {off} off the board");
        // The moved and taken pieces weigh nothing in the trust: North's depends on its
        // unmoved pieces only, which stand where the engine's deployments put them.
        assert!(model.trust(&b)[1] > 0.5, "{:?}", model.trust(&b));
        let mut counted = OpponentModel::empty(g.rules(), "test");
        assert!(counted.count(&started));
        let placed: u64 = counted.origins.iter().flatten().map(|&c| c as u64).sum();
        let unmoved = started.position().pieces().filter(|&(p, _, _)| !started.position().has_moved(p)).count();
        assert_eq!(placed, unmoved as u64, "only the pieces that have not moved were counted where they stand");
    }

    #[test]
    fn an_army_the_model_is_not_trusted_for_gets_the_plain_probabilities() {
        let g = game("greedy", "random", 3, 80);
        let beliefs = g.beliefs(Side::South);
        let model = OpponentModel::for_rules(g.rules());
        assert!(model.trust(&beliefs)[1] < 1e-6, "{:?}", model.trust(&beliefs));
        let (modelled, plain) = (beliefs.probabilities(&model), beliefs.probabilities(&OpponentModel::plain()));
        let mut compared = 0;
        for (p, owner, _) in g.position().pieces() {
            if owner != Side::North {
                continue;
            }
            for ((_, k, a), (_, _, b)) in modelled.at(p).into_iter().zip(plain.at(p)) {
                assert!((a - b).abs() < 1e-3, "{k:?} on {}: {a} modelled, {b} plain", g.board().name_of(p));
            }
            compared += 1;
        }
        assert!(compared > 5);
        // The sampler scales by the same trust: the kinds it draws for North's pieces
        // are as often as the plain sampler's, within the noise of 400 draws (0.07 here;
        // a sampler that ignored the trust is 0.5 away).
        let north: Vec<Point> = g.position().pieces().filter(|&(_, o, _)| o == Side::North).map(|(p, _, _)| p).collect();
        let freq = |sampler: &ModelledSampler<'_>| {
            let mut f = vec![[0f64; PieceKind::COUNT]; north.len()];
            for seed in 0..400 {
                let drawn = sampler.sample(seed).unwrap();
                for (i, &p) in north.iter().enumerate() {
                    f[i][drawn.identity(p).unwrap().1 as usize] += 1.0 / 400.0;
                }
            }
            f
        };
        let (a, b) = (freq(&beliefs.sampler(&model)), freq(&beliefs.sampler(&OpponentModel::plain())));
        let distance: f64 = a.iter().zip(&b).map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()).sum::<f64>() / 2.0).sum::<f64>() / north.len() as f64;
        assert!(distance < 0.2, "mean total variation {distance} from the plain sampler");
    }
}
