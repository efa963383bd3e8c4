//! Many games stepped together: the engine side of vectorized reinforcement-learning
//! environments ([`VectorEnv`]).
//!
//! A [`VectorEnv`] holds `n` refereed games of one rule set. Each call to
//! [`VectorEnv::step`] plays one action in every game (the action of whichever player
//! is to act there), writes what the next players need — their legal-action masks and,
//! optionally, their observation tensors ([`Observer`]) — and restarts finished games
//! at once ("same-step" auto-reset), keeping each finished game for
//! [`VectorEnv::take_finished`]. Games are stepped in parallel over several threads
//! when asked to; the results never depend on the number of threads.
//!
//! Every game is seeded from the environment's seed, its slot and its episode number
//! within the slot, so a run is reproducible whatever the thread count. Players'
//! observations come from their own beliefs ([`Beliefs`]), updated from the events each
//! action tells them — never from the referee's state.
//!
//! ```
//! use junqi::{RuleSet, VectorEnv};
//!
//! let mut env = VectorEnv::new(RuleSet::preset("classic").unwrap(), 4, 7).unwrap();
//! let space = env.action_space();
//! let mut masks = vec![false; 4 * space];
//! let mut to_act = vec![0i8; 4];
//! env.reset(None, &mut masks, &mut to_act);
//! // Play the first legal action everywhere for a few plies.
//! let mut rewards = vec![0.0f32; 4 * env.seats()];
//! let (mut terminated, mut truncated) = (vec![false; 4], vec![false; 4]);
//! for _ in 0..10 {
//!     let actions: Vec<i64> = (0..4).map(|i| env.legal_action_ids(i)[0] as i64).collect();
//!     env.step(&actions, junqi::StepOutput {
//!         observations: None,
//!         masks: &mut masks,
//!         rewards: &mut rewards,
//!         terminated: &mut terminated,
//!         truncated: &mut truncated,
//!         to_act: &mut to_act,
//!     })
//!     .unwrap();
//! }
//! assert!(env.game(0).position().ply() >= 10);
//! ```

use std::collections::VecDeque;
use std::sync::Arc;

use crate::action::Action;
use crate::inference::{Beliefs, Observer, OpponentModel};
use crate::piece::Side;
use crate::referee::{Event, Game, Report};
use crate::rng::Rng;
use crate::rules::RuleSet;

/// A refused call to a [`VectorEnv`]; the environment is unchanged.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum VectorError {
    /// `n` was zero.
    #[error("a vector environment needs at least one game")]
    NoGames,
    /// `n` is past [`crate::limits::MAX_VECTOR_GAMES`].
    #[error("{n} games asked of a vector environment: at most {max} are allowed")]
    TooManyGames {
        /// The number asked for.
        n: usize,
        /// The limit, [`crate::limits::MAX_VECTOR_GAMES`].
        max: usize,
    },
    /// The memory for `n` games could not be reserved.
    #[error("not enough memory for a vector environment of {n} games")]
    OutOfMemory {
        /// The number asked for.
        n: usize,
    },
    /// The rule set has no random setup (a deployment constraint no setup meets).
    #[error("rule set {0:?} has no random setup, so its games cannot be started")]
    NoRandomSetup(String),
    /// `step` got a different number of actions than there are games.
    #[error("{got} actions for {expected} games")]
    ActionCount {
        /// The number of games.
        expected: usize,
        /// The number of actions given.
        got: usize,
    },
    /// An action that is not legal in its game now.
    #[error("action {action} is not legal in game {env} (its legal actions are in its mask)")]
    IllegalAction {
        /// The game's index.
        env: usize,
        /// The action id given.
        action: i64,
    },
    /// An output buffer of the wrong length.
    #[error("the {name} buffer holds {got} values, {expected} are needed")]
    BufferSize {
        /// Which buffer.
        name: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length given.
        got: usize,
    },
}

/// The kind of each refusal (docs/errors.md; the table is [`crate::ErrorKind`]'s).
impl crate::error::Error for VectorError {
    fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind;
        match self {
            VectorError::NoGames | VectorError::TooManyGames { .. } | VectorError::ActionCount { .. } => {
                ErrorKind::OutOfRange
            }
            VectorError::OutOfMemory { .. } => ErrorKind::OutOfMemory,
            VectorError::NoRandomSetup(_) => ErrorKind::InvalidRules,
            VectorError::IllegalAction { .. } => ErrorKind::IllegalAction,
            VectorError::BufferSize { .. } => ErrorKind::BufferTooSmall,
        }
    }
}

/// Where [`VectorEnv::step`] writes its results, row `i` for game `i`.
pub struct StepOutput<'a> {
    /// `n × observation_len()` floats: the observation of the player to act next in
    /// each game (its own view); `None` to skip observations.
    pub observations: Option<&'a mut [f32]>,
    /// `n × action_space()` flags: the legal actions of the player to act next.
    pub masks: &'a mut [bool],
    /// `n × seats()` rewards: +1 to each seat of the winning side (or team), −1 to
    /// the others, 0 to all for a draw; 0 while a game goes on or when it is cut short.
    pub rewards: &'a mut [f32],
    /// Whether the game ended by the rules with this action (it was then restarted).
    pub terminated: &'a mut [bool],
    /// Whether the game reached the ply limit (`max_plies`) and was cut short (and
    /// restarted).
    pub truncated: &'a mut [bool],
    /// The seat (index into the rule set's sides) to act next in each game.
    pub to_act: &'a mut [i8],
}

/// A game that ended (or was cut short) in a [`VectorEnv`], as kept for
/// [`VectorEnv::take_finished`].
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The slot the game was played in.
    pub env: usize,
    /// Its episode number within the slot (0 for the slot's first game).
    pub episode: u64,
    /// The whole game: result, record, every player's log.
    pub game: Game,
    /// Whether it was cut short at the ply limit rather than ended by the rules.
    pub truncated: bool,
}

struct Slot {
    game: Game,
    episode: u64,
    /// Each seat's beliefs (only when observing). A seat's beliefs are brought up to
    /// date when it is to act (its observation is written then), so each step reads
    /// one seat's reports instead of every seat's: the others wait in `pending`.
    beliefs: Vec<Beliefs>,
    /// Per seat: the reports it has not read yet.
    pending: Vec<Pending>,
    /// The legal action ids of the player to act, ascending.
    legal: Vec<u32>,
    /// A buffer for generating legal actions, reused.
    buf: Vec<Action>,
}

/// The reports a seat has been told but has not read into its beliefs yet.
#[derive(Default)]
struct Pending {
    events: Vec<Event>,
    /// Where each report ends in `events`.
    ends: Vec<usize>,
}

impl Pending {
    /// A seat reads its reports at least this often (a seat that no longer acts, such
    /// as an eliminated one, would otherwise collect them for the rest of the game).
    const MAX_REPORTS: usize = 16;

    /// Adds what `seat` is told of `report` (as [`Report::events_for`]).
    fn push(&mut self, report: &Report, seat: Side) {
        report.events_into(seat, &mut self.events);
        self.ends.push(self.events.len());
    }

    /// Reads the reports into `beliefs`, one by one (as they would have been read
    /// when they came).
    fn read_into(&mut self, beliefs: &mut Beliefs) {
        let mut start = 0;
        for &end in &self.ends {
            beliefs.observe(&self.events[start..end]);
            start = end;
        }
        self.clear();
    }

    fn clear(&mut self) {
        self.events.clear();
        self.ends.clear();
    }
}

/// `n` games of one rule set stepped together (see the [module docs](self)).
pub struct VectorEnv {
    rules: Arc<RuleSet>,
    seed: u64,
    max_plies: Option<u32>,
    threads: usize,
    observe: bool,
    observers: Vec<Observer>,
    slots: Vec<Slot>,
    /// At most [`VectorEnv::finished_capacity`] games, oldest first.
    finished: VecDeque<FinishedGame>,
    /// Finished games dropped from a full queue since the environment was made.
    dropped: u64,
    /// Draws [`VectorEnv::random_actions`].
    rng: Rng,
}

impl VectorEnv {
    /// `n` games of `rules`, seeded from `seed`, observing nothing, one thread, no ply
    /// limit (see the `with_` methods). Each episode of each game is the seeded start
    /// [`Game::random_start`] of a seed drawn from `seed`, the game's index and the
    /// episode's number alone (so never of the thread count); a finished game's
    /// [`Game::seed`] is that seed, which starts the same game anywhere.
    ///
    /// `n` is 1 to [`crate::limits::MAX_VECTOR_GAMES`] (else
    /// [`VectorError::NoGames`] or [`VectorError::TooManyGames`]); the games' slots
    /// are reserved fallibly ([`VectorError::OutOfMemory`]).
    ///
    /// ```
    /// use junqi::{limits::MAX_VECTOR_GAMES, RuleSet, VectorEnv, VectorError};
    /// let rules = RuleSet::preset("classic").unwrap();
    /// let err = VectorEnv::new(rules, 1 << 40, 0).err().unwrap();
    /// assert_eq!(err, VectorError::TooManyGames { n: 1 << 40, max: MAX_VECTOR_GAMES });
    /// ```
    pub fn new(rules: Arc<RuleSet>, n: usize, seed: u64) -> Result<VectorEnv, VectorError> {
        if n == 0 {
            return Err(VectorError::NoGames);
        }
        if n > crate::limits::MAX_VECTOR_GAMES {
            return Err(VectorError::TooManyGames {
                n,
                max: crate::limits::MAX_VECTOR_GAMES,
            });
        }
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(n)
            .map_err(|_| VectorError::OutOfMemory { n })?;
        let mut env = VectorEnv {
            observers: rules
                .sides()
                .iter()
                .map(|&s| Observer::new(rules.clone(), s))
                .collect(),
            rules,
            seed,
            max_plies: None,
            threads: 1,
            observe: false,
            slots,
            finished: VecDeque::new(),
            dropped: 0,
            rng: Rng::new(seed ^ 0x5851_F42D_4C95_7F2D),
        };
        for i in 0..n {
            let slot = env.start(i, 0)?;
            env.slots.push(slot);
        }
        Ok(env)
    }

    /// Also keeps each seat's beliefs up to date, so that observations can be written.
    pub fn with_observations(mut self, observe: bool) -> VectorEnv {
        if observe && !self.observe {
            for slot in &mut self.slots {
                slot.beliefs = self
                    .rules
                    .sides()
                    .iter()
                    .map(|&s| slot.game.beliefs(s))
                    .collect();
                slot.pending = (0..slot.beliefs.len()).map(|_| Pending::default()).collect();
            }
        }
        if !observe {
            for slot in &mut self.slots {
                slot.beliefs.clear();
                slot.pending.clear();
            }
        }
        self.observe = observe;
        self
    }

    /// Observations with the `modelled:<kind>` planes of `model` ([`Observer::with_model`],
    /// [`RuleSet::modelled_observation_spec`]), or without them (`None`, the default).
    /// [`VectorEnv::observation_len`] changes accordingly. The planes cost more than the
    /// rest of the observation: docs/inference.md has the rates.
    ///
    /// ```
    /// use junqi::{OpponentModel, RuleSet, VectorEnv};
    /// let rules = RuleSet::preset("classic").unwrap();
    /// let env = VectorEnv::new(rules.clone(), 2, 7).unwrap().with_observations(true);
    /// let plain = env.observation_len();
    /// let env = env.with_model(Some(OpponentModel::for_rules(&rules)));
    /// assert_eq!(env.observation_shape(), rules.modelled_observation_spec().shape());
    /// assert!(env.observation_len() > plain && env.model().is_some());
    /// ```
    pub fn with_model(mut self, model: Option<OpponentModel>) -> VectorEnv {
        self.set_model(model);
        self
    }

    /// [`VectorEnv::with_model`] in place: the observations written from the next call
    /// on have the `modelled:` planes of `model`, or none.
    pub fn set_model(&mut self, model: Option<OpponentModel>) {
        self.observers = self
            .rules
            .sides()
            .iter()
            .map(|&s| {
                let o = Observer::new(self.rules.clone(), s);
                match &model {
                    Some(m) => o.with_model(m.clone()),
                    None => o,
                }
            })
            .collect();
    }

    /// The opponent model of the observations' `modelled:` planes
    /// ([`VectorEnv::with_model`]).
    pub fn model(&self) -> Option<&OpponentModel> {
        self.observers[0].model()
    }

    /// Cuts games short (truncation) after `max_plies` plies; `None` — or `Some(0)`,
    /// the same — : only the rules end a game. (0 means "no limit" in every API: C
    /// has no `None`, and a limit of 0 plies would cut every game at its first move.)
    pub fn with_max_plies(mut self, max_plies: Option<u32>) -> VectorEnv {
        self.max_plies = max_plies.filter(|&m| m > 0);
        self
    }

    /// The ply limit (`None`: no limit; see [`VectorEnv::with_max_plies`]).
    pub fn max_plies(&self) -> Option<u32> {
        self.max_plies
    }

    /// Steps the games over `threads` threads (at least 1). The results are the same
    /// for any number.
    pub fn with_threads(mut self, threads: usize) -> VectorEnv {
        self.threads = threads.max(1);
        self
    }

    fn start(&self, slot: usize, episode: u64) -> Result<Slot, VectorError> {
        start_game(
            &self.rules,
            game_seed(self.seed, slot, episode),
            self.observe,
        )
        .map(|(game, beliefs)| {
            let mut s = Slot {
                game,
                episode,
                pending: (0..beliefs.len()).map(|_| Pending::default()).collect(),
                beliefs,
                legal: Vec::with_capacity(128),
                buf: Vec::with_capacity(128),
            };
            legal_ids_into(&s.game, &mut s.buf, &mut s.legal);
            s
        })
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The number of games.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Always false: an environment holds at least one game.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The number of seats (players) of each game.
    pub fn seats(&self) -> usize {
        self.rules.sides().len()
    }

    /// The size of the action space (the width of a mask row).
    pub fn action_space(&self) -> usize {
        self.rules.action_space()
    }

    /// The length of one observation (`channels × points`, see
    /// [`RuleSet::observation_spec`], or [`RuleSet::modelled_observation_spec`] with a
    /// model).
    pub fn observation_len(&self) -> usize {
        self.observers[0].len()
    }

    /// The shape of one observation, `[channels, points]` (as
    /// [`ObservationSpec::shape`](crate::ObservationSpec::shape), without naming the
    /// channels).
    ///
    /// ```
    /// use junqi::{RuleSet, VectorEnv};
    /// let env = VectorEnv::new(RuleSet::preset("siguo").unwrap(), 1, 0).unwrap();
    /// assert_eq!(env.observation_shape(), env.rules().observation_spec().shape());
    /// ```
    pub fn observation_shape(&self) -> [usize; 2] {
        let points = self.observers[0].points();
        [self.observation_len() / points, points]
    }

    /// Whether observations are kept up to date ([`VectorEnv::with_observations`]).
    pub fn observes(&self) -> bool {
        self.observe
    }

    /// Game `i` as it stands (the referee's whole state).
    pub fn game(&self, i: usize) -> &Game {
        &self.slots[i].game
    }

    /// The legal action ids of the player to act in game `i`, ascending.
    pub fn legal_action_ids(&self, i: usize) -> &[u32] {
        &self.slots[i].legal
    }

    /// A uniformly random legal action id for every game, drawn from the
    /// environment's own generator (seeded from its seed): random players and
    /// exploration without a round trip through the masks.
    ///
    /// # Panics
    /// If `out` does not hold one action per game.
    pub fn random_actions(&mut self, out: &mut [i64]) {
        assert_eq!(out.len(), self.slots.len(), "one action per game");
        for (a, slot) in out.iter_mut().zip(&self.slots) {
            *a = slot.legal.get(self.rng.below(slot.legal.len().max(1))).map_or(-1, |&x| x as i64);
        }
    }

    /// The games finished since the last call, in the order they finished (by step,
    /// then slot): at most [`VectorEnv::finished_capacity`] of them, the newest (older
    /// ones were dropped, see [`VectorEnv::finished_dropped`]).
    pub fn take_finished(&mut self) -> Vec<FinishedGame> {
        std::mem::take(&mut self.finished).into()
    }

    /// The oldest finished game not taken yet, if any (one at a time, as
    /// [`VectorEnv::take_finished`] takes them all).
    pub fn next_finished(&mut self) -> Option<FinishedGame> {
        self.finished.pop_front()
    }

    /// The number of finished games waiting to be taken.
    pub fn finished_len(&self) -> usize {
        self.finished.len()
    }

    /// The most finished games kept: [`crate::limits::MAX_FINISHED_GAMES`], or
    /// [`VectorEnv::len`] when that is more (one step's games always fit). When a
    /// step finishes games past it, the oldest waiting ones are dropped.
    ///
    /// ```
    /// use junqi::{limits::MAX_FINISHED_GAMES, RuleSet, VectorEnv};
    /// let env = VectorEnv::new(RuleSet::preset("classic").unwrap(), 4, 0).unwrap();
    /// assert_eq!(env.finished_capacity(), MAX_FINISHED_GAMES);
    /// ```
    pub fn finished_capacity(&self) -> usize {
        self.slots.len().max(crate::limits::MAX_FINISHED_GAMES)
    }

    /// How many finished games were dropped, unread, from a full queue since the
    /// environment was made.
    pub fn finished_dropped(&self) -> u64 {
        self.dropped
    }

    /// Restarts every game (new episodes; with `seed`, the environment is reseeded and
    /// episodes count from 0 again) and writes the masks and seats to act (and the
    /// observations with [`VectorEnv::reset_observing`]).
    ///
    /// # Panics
    /// If `masks` does not hold `len() × action_space()` flags or `to_act` `len()`
    /// seats (buffers are the caller's to size; [`VectorEnv::step`] reports them as
    /// errors because it also checks actions), before any game is restarted.
    pub fn reset(&mut self, seed: Option<u64>, masks: &mut [bool], to_act: &mut [i8]) {
        // Checked before anything changes: a refused call (here a panic) changes nothing.
        let (space, n) = (self.action_space(), self.len());
        assert_eq!(masks.len(), n * space, "mask buffer");
        assert_eq!(to_act.len(), n, "to_act buffer");
        self.reset_inner(seed);
        for (i, slot) in self.slots.iter().enumerate() {
            write_row(
                &self.rules,
                slot,
                &mut masks[i * space..(i + 1) * space],
                &mut to_act[i],
            );
        }
    }

    /// Like [`VectorEnv::reset`], also writing each next player's observation into
    /// `observations` (`n × observation_len()` floats; the environment must observe).
    ///
    /// # Panics
    /// As [`VectorEnv::reset`], and if the environment does not observe or
    /// `observations` is shorter than `len() × observation_len()` (before any game is
    /// restarted).
    pub fn reset_observing(
        &mut self,
        seed: Option<u64>,
        observations: &mut [f32],
        masks: &mut [bool],
        to_act: &mut [i8],
    ) {
        assert!(
            self.observe,
            "reset_observing on an environment that does not observe"
        );
        assert!(
            observations.len() >= self.len() * self.observation_len(),
            "observation buffer"
        );
        self.reset(seed, masks, to_act);
        let len = self.observation_len();
        for (i, slot) in self.slots.iter().enumerate() {
            encode(
                &self.observers,
                &self.rules,
                slot,
                &mut observations[i * len..(i + 1) * len],
            );
        }
    }

    fn reset_inner(&mut self, seed: Option<u64>) {
        let fresh = seed.is_some();
        if let Some(s) = seed {
            self.seed = s;
            self.rng = Rng::new(s ^ 0x5851_F42D_4C95_7F2D);
        }
        for i in 0..self.slots.len() {
            let episode = if fresh { 0 } else { self.slots[i].episode + 1 };
            // Every game of the rule set started at construction, so it starts again.
            self.slots[i] = self.start(i, episode).expect("the rule set's games start");
        }
        self.finished.clear();
    }

    /// Plays `actions[i]` (an action id) in every game `i`, then writes the results
    /// into `out` (see [`StepOutput`]). A finished game is kept for
    /// [`VectorEnv::take_finished`] and replaced by the slot's next episode, whose
    /// first mask and observation are written.
    ///
    /// Every action is checked before any is played: an illegal one (or a wrong
    /// count, or a buffer of the wrong size) refuses the whole call and changes nothing.
    pub fn step(&mut self, actions: &[i64], out: StepOutput<'_>) -> Result<(), VectorError> {
        let n = self.len();
        if actions.len() != n {
            return Err(VectorError::ActionCount {
                expected: n,
                got: actions.len(),
            });
        }
        let (space, seats) = (self.action_space(), self.seats());
        let check = |name: &'static str, got: usize, expected: usize| {
            if got == expected {
                Ok(())
            } else {
                Err(VectorError::BufferSize {
                    name,
                    expected,
                    got,
                })
            }
        };
        check("masks", out.masks.len(), n * space)?;
        check("rewards", out.rewards.len(), n * seats)?;
        check("terminated", out.terminated.len(), n)?;
        check("truncated", out.truncated.len(), n)?;
        check("to_act", out.to_act.len(), n)?;
        let obs_len = self.observation_len();
        if let Some(o) = &out.observations {
            check("observations", o.len(), n * obs_len)?;
            if !self.observe {
                return Err(VectorError::BufferSize {
                    name: "observations (the environment does not observe)",
                    expected: 0,
                    got: o.len(),
                });
            }
        }
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let legal = u32::try_from(a).is_ok_and(|a| slot.legal.binary_search(&a).is_ok());
            if !legal {
                return Err(VectorError::IllegalAction { env: i, action: a });
            }
        }

        // Threads take chunks of consecutive games from a queue as they finish the
        // last, so a thread slowed by restarts (or by the machine) does less.
        let threads = self.threads.min(n.div_ceil(64)).max(1);
        let chunk = if threads == 1 { n } else { n.div_ceil(threads * 8).max(16) };
        let ctx = Ctx {
            rules: &self.rules,
            observers: &self.observers,
            seed: self.seed,
            max_plies: self.max_plies,
            observe: self.observe,
        };
        let mut observations = out.observations;
        let mut finished: Vec<Vec<(usize, FinishedGame)>> = Vec::with_capacity(threads);
        {
            let mut work: Vec<Work<'_>> = Vec::with_capacity(threads);
            let mut slots: &mut [Slot] = &mut self.slots;
            let (mut masks, mut rewards, mut term, mut trunc, mut to_act) = (
                out.masks,
                out.rewards,
                out.terminated,
                out.truncated,
                out.to_act,
            );
            let mut acts = actions;
            let mut base = 0;
            while !slots.is_empty() {
                let k = chunk.min(slots.len());
                let (s, rest) = slots.split_at_mut(k);
                slots = rest;
                let (m, rest) = masks.split_at_mut(k * space);
                masks = rest;
                let (r, rest) = rewards.split_at_mut(k * seats);
                rewards = rest;
                let (te, rest) = term.split_at_mut(k);
                term = rest;
                let (tr, rest) = trunc.split_at_mut(k);
                trunc = rest;
                let (ta, rest) = to_act.split_at_mut(k);
                to_act = rest;
                let (a, rest) = acts.split_at(k);
                acts = rest;
                let o = match observations.take() {
                    Some(all) => {
                        let (o, rest) = all.split_at_mut(k * obs_len);
                        observations = Some(rest);
                        Some(o)
                    }
                    None => None,
                };
                work.push(Work {
                    base,
                    slots: s,
                    actions: a,
                    observations: o,
                    masks: m,
                    rewards: r,
                    terminated: te,
                    truncated: tr,
                    to_act: ta,
                });
                base += k;
            }
            if threads == 1 {
                for w in work {
                    finished.push(step_chunk(&ctx, w));
                }
            } else {
                // The calling thread is one of the workers: one spawn fewer per step.
                let queue = std::sync::Mutex::new(work.into_iter());
                let next = || queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                let run = || {
                    let mut done = Vec::new();
                    while let Some(w) = next() {
                        done.push(step_chunk(&ctx, w));
                    }
                    done
                };
                std::thread::scope(|scope| {
                    let handles: Vec<_> = (1..threads).map(|_| scope.spawn(run)).collect();
                    finished.extend(run());
                    for h in handles {
                        match h.join() {
                            Ok(f) => finished.extend(f),
                            Err(p) => std::panic::resume_unwind(p),
                        }
                    }
                });
            }
        }
        // In slot order, whichever thread stepped which game.
        let mut finished: Vec<(usize, FinishedGame)> = finished.into_iter().flatten().collect();
        finished.sort_by_key(|(i, _)| *i);
        self.finished.extend(finished.into_iter().map(|(_, f)| f));
        let excess = self.finished.len().saturating_sub(self.finished_capacity());
        if excess > 0 {
            self.finished.drain(..excess);
            self.dropped += excess as u64;
        }
        Ok(())
    }
}

/// What the threads share.
struct Ctx<'a> {
    rules: &'a Arc<RuleSet>,
    observers: &'a [Observer],
    seed: u64,
    max_plies: Option<u32>,
    observe: bool,
}

/// One thread's share of a step: consecutive slots from `base` and their rows.
struct Work<'a> {
    base: usize,
    slots: &'a mut [Slot],
    actions: &'a [i64],
    observations: Option<&'a mut [f32]>,
    masks: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
    to_act: &'a mut [i8],
}

fn step_chunk(ctx: &Ctx<'_>, w: Work<'_>) -> Vec<(usize, FinishedGame)> {
    let rules = ctx.rules;
    let (space, seats) = (rules.action_space(), rules.sides().len());
    let obs_len = ctx.observers[0].len();
    let mut done = Vec::new();
    let mut observations = w.observations;
    for (k, slot) in w.slots.iter_mut().enumerate() {
        let i = w.base + k;
        let action = Action::from_id(rules, w.actions[k] as usize).expect("checked legal");
        // `step` found the id in this slot's list of legal ids.
        let report = slot.game.play_legal(action);
        if ctx.observe {
            // Only the seat to act needs its beliefs now (for its observation).
            let next = slot.game.to_act();
            // Its beliefs are likely out of cache (the other games were stepped since
            // it last acted): ask for all their lines at once.
            if let Some(seat) = next.and_then(|n| rules.sides().iter().position(|&s| s == n)) {
                slot.beliefs[seat].warm();
            }
            for ((b, p), &seat) in slot.beliefs.iter_mut().zip(&mut slot.pending).zip(rules.sides()) {
                p.push(&report, seat);
                if next == Some(seat) || p.ends.len() >= Pending::MAX_REPORTS {
                    p.read_into(b);
                }
            }
        }
        let rewards = &mut w.rewards[k * seats..(k + 1) * seats];
        rewards.fill(0.0);
        let result = slot.game.result();
        let cut = result.is_none()
            && ctx
                .max_plies
                .is_some_and(|m| slot.game.position().ply() >= m);
        w.terminated[k] = result.is_some();
        w.truncated[k] = cut;
        if let Some(r) = result {
            // Winners are players (seats): in 翻棋 a seat may command either army.
            for (reward, &seat) in rewards.iter_mut().zip(rules.sides()) {
                *reward = r.reward(seat);
            }
        }
        if result.is_some() || cut {
            let episode = slot.episode + 1;
            let seed = game_seed(ctx.seed, i, episode);
            let (game, beliefs) =
                start_game(rules, seed, ctx.observe).expect("the rule set's games start");
            let old = std::mem::replace(&mut slot.game, game);
            slot.beliefs = beliefs;
            slot.pending.iter_mut().for_each(Pending::clear);
            done.push((
                i,
                FinishedGame {
                    env: i,
                    episode: slot.episode,
                    game: old,
                    truncated: cut,
                },
            ));
            slot.episode = episode;
        }
        legal_ids_into(&slot.game, &mut slot.buf, &mut slot.legal);
        write_row(
            rules,
            slot,
            &mut w.masks[k * space..(k + 1) * space],
            &mut w.to_act[k],
        );
        if let Some(o) = observations.as_deref_mut() {
            encode(
                ctx.observers,
                rules,
                slot,
                &mut o[k * obs_len..(k + 1) * obs_len],
            );
        }
    }
    done
}

/// The seed of a slot's episode: a function of the environment's seed, the slot and
/// the episode only (so never of the thread count).
fn game_seed(seed: u64, slot: usize, episode: u64) -> u64 {
    let mut rng = Rng::new(seed ^ (slot as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    let a = rng.next_u64();
    Rng::new(a ^ episode.wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// A new game from a seed: the seeded start of [`Game::random_start`].
fn start_game(
    rules: &Arc<RuleSet>,
    seed: u64,
    observe: bool,
) -> Result<(Game, Vec<Beliefs>), VectorError> {
    let game = Game::random_start(rules.clone(), seed)
        .map_err(|_| VectorError::NoRandomSetup(rules.name().to_owned()))?;
    let beliefs = if observe {
        rules.sides().iter().map(|&s| game.beliefs(s)).collect()
    } else {
        Vec::new()
    };
    Ok((game, beliefs))
}

/// Works out the legal action ids of the player to act into `ids` (ascending),
/// through the reusable action buffer `buf`.
fn legal_ids_into(game: &Game, buf: &mut Vec<Action>, ids: &mut Vec<u32>) {
    game.position().legal_actions_into(buf);
    let rules = game.rules();
    ids.clear();
    ids.extend(buf.iter().filter_map(|a| a.id(rules)).map(|i| i as u32));
    ids.sort_unstable();
}

fn seat_of(rules: &RuleSet, side: Option<Side>) -> i8 {
    side.and_then(|s| rules.sides().iter().position(|&x| x == s))
        .map_or(-1, |i| i as i8)
}

fn write_row(rules: &RuleSet, slot: &Slot, mask: &mut [bool], to_act: &mut i8) {
    mask.fill(false);
    for &a in &slot.legal {
        mask[a as usize] = true;
    }
    *to_act = seat_of(rules, slot.game.to_act());
}

fn encode(observers: &[Observer], rules: &RuleSet, slot: &Slot, out: &mut [f32]) {
    let seat = seat_of(rules, slot.game.to_act());
    if seat < 0 {
        out.fill(0.0);
        return;
    }
    let seat = seat as usize;
    observers[seat].encode(&slot.beliefs[seat], slot.game.turn(), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(env: &VectorEnv) -> (Vec<f32>, Vec<bool>, Vec<f32>, Vec<bool>, Vec<bool>, Vec<i8>) {
        let n = env.len();
        (
            vec![0.0; n * env.observation_len()],
            vec![false; n * env.action_space()],
            vec![0.0; n * env.seats()],
            vec![false; n],
            vec![false; n],
            vec![0; n],
        )
    }

    /// Plays `steps` random steps; returns the finished games' records and the last
    /// observations and masks.
    fn run(
        rules: &str,
        n: usize,
        threads: usize,
        steps: usize,
    ) -> (Vec<String>, Vec<f32>, Vec<bool>, Vec<f32>) {
        let rules = RuleSet::preset(rules).unwrap();
        let mut env = VectorEnv::new(rules.clone(), n, 5)
            .unwrap()
            .with_observations(true)
            .with_threads(threads)
            .with_max_plies(Some(300));
        let (mut obs, mut masks, mut rewards, mut term, mut trunc, mut to_act) = buffers(&env);
        env.reset_observing(None, &mut obs, &mut masks, &mut to_act);
        let mut rng = Rng::new(1);
        let mut total = vec![0.0; n * env.seats()];
        let mut records = Vec::new();
        for step in 0..steps {
            let actions: Vec<i64> = (0..n)
                .map(|i| {
                    let legal = env.legal_action_ids(i);
                    legal[rng.below(legal.len())] as i64
                })
                .collect();
            env.step(
                &actions,
                StepOutput {
                    observations: Some(&mut obs),
                    masks: &mut masks,
                    rewards: &mut rewards,
                    terminated: &mut term,
                    truncated: &mut trunc,
                    to_act: &mut to_act,
                },
            )
            .unwrap();
            for (t, r) in total.iter_mut().zip(&rewards) {
                *t += r;
            }
            for f in env.take_finished() {
                assert_eq!(f.truncated, f.game.result().is_none());
                // The rewards are the winners' (players, whatever army they command).
                let row = &rewards[f.env * env.seats()..(f.env + 1) * env.seats()];
                let expected: Vec<f32> = match f.game.result() {
                    Some(r) if !r.winners.is_empty() => {
                        rules.sides().iter().map(|&s| if r.winners.contains(s) { 1.0 } else { -1.0 }).collect()
                    }
                    _ => vec![0.0; env.seats()],
                };
                assert_eq!(row, &expected[..]);
                records.push(f.game.record().to_json());
            }
            // Masks agree with the games, and observations with each player's own view
            // (beliefs rebuilt from its whole log), now and then.
            for i in (0..n).filter(|i| (step + i) % 23 == 0) {
                let g = env.game(i);
                let row = &masks[i * env.action_space()..(i + 1) * env.action_space()];
                assert_eq!(row, &g.action_mask()[..]);
                let seat = g.to_act().unwrap();
                assert_eq!(
                    to_act[i] as usize,
                    rules.sides().iter().position(|&s| s == seat).unwrap()
                );
                let len = env.observation_len();
                assert_eq!(&obs[i * len..(i + 1) * len], &g.observation(seat)[..]);
            }
        }
        (records, obs, masks, total)
    }

    /// With a model, the observations carry the `modelled:` planes worked out from each
    /// player's beliefs as the environment keeps them (updated event by event), equal to
    /// those of beliefs rebuilt from the player's whole log; the other channels are the
    /// plain observation's.
    #[test]
    fn modelled_observations_come_from_each_players_own_beliefs() {
        for (preset, n, seed) in [("classic", 3, 11), ("siguo", 2, 12)] {
            let rules = RuleSet::preset(preset).unwrap();
            let model = OpponentModel::for_rules(&rules);
            assert!(!model.is_plain(), "{preset} ships a model");
            let mut env = VectorEnv::new(rules.clone(), n, seed)
                .unwrap()
                .with_observations(true)
                .with_model(Some(model.clone()))
                .with_max_plies(Some(200));
            let observers: Vec<Observer> = rules.sides().iter().map(|&s| Observer::new(rules.clone(), s).with_model(model.clone())).collect();
            let len = env.observation_len();
            assert_eq!(len, rules.modelled_observation_spec().len());
            let plain = rules.observation_spec().len();
            let (mut obs, mut masks, mut rewards, mut term, mut trunc, mut to_act) = buffers(&env);
            env.reset_observing(None, &mut obs, &mut masks, &mut to_act);
            let mut rng = Rng::new(seed);
            let mut checked = 0;
            for step in 0..120 {
                let actions: Vec<i64> = (0..n)
                    .map(|i| {
                        let legal = env.legal_action_ids(i);
                        legal[rng.below(legal.len())] as i64
                    })
                    .collect();
                let out = StepOutput {
                    observations: Some(&mut obs),
                    masks: &mut masks,
                    rewards: &mut rewards,
                    terminated: &mut term,
                    truncated: &mut trunc,
                    to_act: &mut to_act,
                };
                env.step(&actions, out).unwrap();
                for i in (0..n).filter(|i| (step + i) % 10 == 0) {
                    let g = env.game(i);
                    let seat = to_act[i] as usize;
                    let player = rules.sides()[seat];
                    let mut want = vec![0.0f32; len];
                    observers[seat].encode(&g.beliefs(player), g.turn(), &mut want);
                    let got = &obs[i * len..(i + 1) * len];
                    assert_eq!(&got[..plain], &g.observation(player)[..], "{preset} step {step}");
                    for (j, (a, b)) in got[plain..].iter().zip(&want[plain..]).enumerate() {
                        assert!((a - b).abs() < 1e-5, "{preset} step {step} game {i}: float {j} of the modelled planes is {a}, not {b}");
                    }
                    checked += 1;
                }
            }
            assert!(checked >= 20);
        }
        let rules = RuleSet::preset("classic").unwrap();
        let env = VectorEnv::new(rules.clone(), 1, 0).unwrap().with_model(Some(OpponentModel::plain()));
        assert!(env.model().is_some_and(|m| m.is_plain()));
        let env = env.with_model(None);
        assert!(env.model().is_none());
        assert_eq!(env.observation_len(), rules.observation_spec().len());
    }

    #[test]
    fn fanqi_rewards_go_to_the_players_whatever_army_they_command() {
        // `run` checks every finished game's rewards against its winners (players);
        // make sure some of them had South's seat commanding the North army.
        let (records, _, _, _) = run("fanqi", 12, 1, 700);
        let swapped = records
            .iter()
            .map(|r| Game::from_record(&crate::Record::from_json(r).unwrap()).unwrap())
            .filter(|g| g.result().is_some_and(|r| !r.winners.is_empty()))
            .filter(|g| g.position().army_of(Side::South) == Some(Side::North))
            .count();
        assert!(swapped > 0, "a decided game with the armies swapped finished");
    }

    #[test]
    fn the_same_games_whatever_the_thread_count() {
        let (a, oa, ma, ra) = run("classic", 130, 1, 400);
        let (b, ob, mb, rb) = run("classic", 130, 3, 400);
        assert!(a.len() > 100, "games finished: {}", a.len());
        assert_eq!(a, b);
        assert_eq!((oa, ma, ra), (ob, mb, rb));
    }

    #[test]
    fn every_preset_steps_and_scores_zero_sum() {
        for name in RuleSet::preset_names() {
            let (records, _, _, total) = run(name, 3, 2, 350);
            assert!(
                !records.is_empty(),
                "{name}: a game finished or was cut short"
            );
            // Winners +1, losers −1: over two sides the totals are opposite.
            let rules = RuleSet::preset(name).unwrap();
            if rules.sides().len() == 2 {
                for i in 0..3 {
                    assert_eq!(total[2 * i], -total[2 * i + 1], "{name}");
                }
            }
            for r in records {
                let record = crate::Record::from_json(&r).unwrap();
                assert!(
                    Game::from_record(&record).is_ok(),
                    "{name}: a finished game's record replays"
                );
            }
        }
    }

    #[test]
    fn an_illegal_action_changes_nothing() {
        let rules = RuleSet::preset("classic").unwrap();
        let mut env = VectorEnv::new(rules, 3, 1).unwrap();
        let (_, mut masks, mut rewards, mut term, mut trunc, mut to_act) = buffers(&env);
        let good: Vec<i64> = (0..3).map(|i| env.legal_action_ids(i)[0] as i64).collect();
        let illegal = (0..env.action_space() as i64)
            .find(|a| !env.legal_action_ids(2).contains(&(*a as u32)))
            .unwrap();
        for bad in [
            vec![good[0], good[1], illegal],
            vec![good[0], good[1], -1],
            vec![good[0], good[1]],
        ] {
            let err = env
                .step(
                    &bad,
                    StepOutput {
                        observations: None,
                        masks: &mut masks,
                        rewards: &mut rewards,
                        terminated: &mut term,
                        truncated: &mut trunc,
                        to_act: &mut to_act,
                    },
                )
                .unwrap_err();
            assert!(
                matches!(
                    err,
                    VectorError::IllegalAction { env: 2, .. } | VectorError::ActionCount { .. }
                ),
                "{err}"
            );
            for i in 0..3 {
                assert_eq!(env.game(i).position().ply(), 0);
            }
        }
        assert_eq!(
            VectorError::IllegalAction { env: 2, action: 7 }.to_string(),
            "action 7 is not legal in game 2 (its legal actions are in its mask)"
        );
    }
}
