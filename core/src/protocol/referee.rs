//! The referee side: engine processes behind a bounded, timed line reader, and one
//! game played between them. Every way an engine can fail — an illegal or unreadable
//! answer, silence past its budget, a crash, a line over [`MAX_LINE`] — ends the game
//! as a loss for that engine with a named [`Failure`], and its process is killed and
//! reaped.
//!
//! A referee plays its seats through [`EngineLink`]: an engine process
//! ([`EngineProcess`]) or a built-in engine in the same process ([`InProcessEngine`]),
//! so that the same code serves both. It forwards draw offers between engines and keeps
//! a game clock ([`TimeControl`]) when asked.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{quote, rules_field, side_letter, EngineOption, MAX_LINE, VERSION};
use crate::{Action, Game, GameResult, Phase, RuleSet, Setup, Side};

/// How an engine lost a game other than by the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// No answer within the time budget.
    Timeout,
    /// The process ended or closed its output.
    Crash,
    /// A line that is not the answer asked for (the text, cut short).
    Garbage(String),
    /// A line over [`MAX_LINE`] bytes.
    LineTooLong,
    /// A well-formed answer the rules refuse (the referee's reason).
    Illegal(String),
    /// The process could not be started.
    Spawn(String),
    /// Its game clock ran out ([`TimeControl`]): it lost on time.
    OutOfTime,
    /// Not the engine's failure but the referee's: the game cannot be put into the
    /// protocol's lines (a line over [`MAX_LINE`], a view string over
    /// [`crate::position::MAX_POSITION_STRING`]). No rule set the library loads leads there (its
    /// limits see to it); the game ends without a result and nobody is blamed.
    Referee(String),
}

impl Failure {
    /// A one-word name of the failure (`timeout`, `crash`, `garbage`, `line_too_long`,
    /// `illegal_action`, `spawn`, `out_of_time`).
    pub fn name(&self) -> &'static str {
        match self {
            Failure::Timeout => "timeout",
            Failure::Crash => "crash",
            Failure::Garbage(_) => "garbage",
            Failure::LineTooLong => "line_too_long",
            Failure::Illegal(_) => "illegal_action",
            Failure::Spawn(_) => "spawn",
            Failure::OutOfTime => "out_of_time",
            Failure::Referee(_) => "referee_error",
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Garbage(t) => write!(f, "garbage: {t:?}"),
            // Quoted: the text may come from the engine, and it ends up in other lines
            // (`gameover`) and logs.
            Failure::Illegal(t) => write!(f, "illegal_action: {}", quote(t)),
            Failure::Spawn(t) => write!(f, "spawn: {}", quote(t)),
            Failure::Referee(t) => write!(f, "referee_error: {}", quote(t)),
            other => f.write_str(other.name()),
        }
    }
}

/// What a referee needs of an engine: send it a line, read its next answer line (not
/// `info ...`) before a deadline. Implemented by [`EngineProcess`] and
/// [`InProcessEngine`].
pub trait EngineLink: Send {
    /// Sends one line. A failure (the engine is gone) is [`Failure::Crash`].
    fn send(&mut self, line: &str) -> Result<(), Failure>;

    /// The next line that is not `info ...` or empty, before `deadline`: silence past
    /// it is [`Failure::Timeout`], the end of the engine [`Failure::Crash`], a line over
    /// [`MAX_LINE`] bytes [`Failure::LineTooLong`].
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure>;

    /// The engine failed: stops it (a process is killed and reaped) and returns `f`.
    fn fail(&mut self, f: Failure) -> Failure;

    /// The time by which a game clock measures this engine's thinking: the wall clock
    /// ([`Instant::now`]) unless the link keeps time of its own (a test's simulated
    /// engine, whose thinking takes no real time).
    fn now(&self) -> Instant {
        Instant::now()
    }

    /// Sends `request` and reads the answer `<word> <rest>` within `budget` (plus
    /// [`GRACE`]); returns `rest`. Any other line is [`Failure::Garbage`].
    fn ask(&mut self, request: &str, word: &str, budget: Duration) -> Result<String, Failure> {
        let deadline = Instant::now() + budget + GRACE;
        self.send(request)?;
        let line = self.next_line(deadline)?;
        match answer(&line, word) {
            Ok(rest) => Ok(rest.to_owned()),
            Err(f) => Err(self.fail(f)),
        }
    }
}

impl<T: EngineLink + ?Sized> EngineLink for &mut T {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        (**self).send(line)
    }
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        (**self).next_line(deadline)
    }
    fn fail(&mut self, f: Failure) -> Failure {
        (**self).fail(f)
    }
    fn now(&self) -> Instant {
        (**self).now()
    }
}

impl<T: EngineLink + ?Sized> EngineLink for Box<T> {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        (**self).send(line)
    }
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        (**self).next_line(deadline)
    }
    fn fail(&mut self, f: Failure) -> Failure {
        (**self).fail(f)
    }
    fn now(&self) -> Instant {
        (**self).now()
    }
}

/// A built-in engine ([`super::engine::BuiltinEngine`]) in the referee's own process:
/// each line sent is answered at once (the agent thinks within [`EngineLink::send`]),
/// the answers queued for [`EngineLink::next_line`]. A request it answers with nothing
/// (an `info error` line only) is [`Failure::Timeout`], as silence from a process is.
pub struct InProcessEngine {
    engine: super::engine::BuiltinEngine,
    answers: std::collections::VecDeque<String>,
    /// Every line the engine answered, for logs (bounded).
    pub transcript: Vec<String>,
    stopped: bool,
}

impl InProcessEngine {
    /// A built-in engine playing `spec`, with `options` set (name, value: `seed`,
    /// `draw`, `agent`); the handshake is done.
    pub fn new(spec: crate::agent::AgentSpec, options: &[(String, String)]) -> Result<InProcessEngine, Failure> {
        let mut e = InProcessEngine {
            engine: super::engine::BuiltinEngine::new(spec),
            answers: Default::default(),
            transcript: Vec::new(),
            stopped: false,
        };
        e.send(&format!("junqi {VERSION}"))?;
        e.answers.clear();
        for (name, value) in options {
            e.send(&format!("setoption {name} {value}"))?;
            if let Some(error) = e.transcript.iter().rev().find(|l| l.starts_with("info error")) {
                return Err(Failure::Garbage(cut(error)));
            }
        }
        Ok(e)
    }
}

impl EngineLink for InProcessEngine {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        if self.stopped {
            return Err(Failure::Crash);
        }
        for answer in self.engine.handle(line) {
            if self.transcript.len() < 1000 {
                self.transcript.push(cut(&answer));
            }
            if !answer.starts_with("info") && !answer.trim().is_empty() {
                self.answers.push_back(answer);
            }
        }
        Ok(())
    }

    fn next_line(&mut self, _deadline: Instant) -> Result<String, Failure> {
        match self.answers.pop_front() {
            Some(line) => Ok(line),
            None => Err(self.fail(Failure::Timeout)),
        }
    }

    fn fail(&mut self, f: Failure) -> Failure {
        self.stopped = true;
        f
    }
}

/// A game clock: each seat has `base` for the whole game and gains `increment` after
/// each of its actions (`60+1`: a minute and a second an action).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each seat's time for the game.
    pub base: Duration,
    /// Added to a seat's clock after each of its actions.
    pub increment: Duration,
}

impl TimeControl {
    /// Reads `BASE+INC` in seconds (`60+1`, `0.5+0.05`), or `BASE` alone (no increment).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("{text:?} is not a time control BASE+INC in seconds (e.g. 60+1)");
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let secs = |t: &str| -> Result<Duration, String> {
            let v: f64 = t.trim().parse().map_err(|_| bad())?;
            if !(v.is_finite() && (0.0..=86_400.0).contains(&v)) {
                return Err(bad());
            }
            Ok(Duration::from_micros((v * 1e6) as u64))
        };
        let (base, increment) = (secs(base)?, secs(inc)?);
        if base.is_zero() {
            return Err(bad());
        }
        Ok(TimeControl { base, increment })
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64(), self.increment.as_secs_f64())
    }
}

/// Extra time allowed beyond a budget for pipes and process scheduling.
pub const GRACE: Duration = Duration::from_millis(200);

pub use super::process::EngineProcess;

fn cut(t: &str) -> String {
    t.chars().take(200).collect()
}

/// What one line of an engine's handshake says (see [`handshake_line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// `ready`: the handshake is over.
    Ready,
    /// `id name <name>`: the engine's name (the rest of the line).
    Name(String),
    /// `option <name> <type> <default>`.
    Option(EngineOption),
    /// Anything else (`id author …`, lines of later versions): ignored.
    Other,
}

/// Reads one line of an engine's handshake (after `junqi 1`, up to `ready`). The
/// words of an `option` line are separated by any white space, its default is the
/// rest of the words joined by single spaces (possibly empty); an `option` line
/// without a name and a type is [`Failure::Garbage`].
pub fn handshake_line(line: &str) -> Result<Handshake, Failure> {
    let mut w = line.split_whitespace();
    Ok(match w.next() {
        Some("ready") => Handshake::Ready,
        Some("id") if line.starts_with("id name ") => Handshake::Name(line["id name ".len()..].to_owned()),
        Some("option") => {
            let (Some(n), Some(k), d) = (w.next(), w.next(), w.collect::<Vec<_>>().join(" ")) else {
                return Err(Failure::Garbage(cut(line)));
            };
            Handshake::Option(EngineOption { name: n.into(), kind: k.into(), default: d })
        }
        _ => Handshake::Other,
    })
}

/// The rest of an answer line `<word> <rest>`: anything else is [`Failure::Garbage`].
pub fn answer<'a>(line: &'a str, word: &str) -> Result<&'a str, Failure> {
    match line.split_once(' ') {
        Some((w, rest)) if w == word => Ok(rest),
        _ => Err(Failure::Garbage(cut(line))),
    }
}

/// Deploys `side` as an engine's `setup` answer (its text after `setup `) says:
/// `random` draws a legal deployment from `seed`; anything else must be setup JSON
/// the rules accept. A refusal is [`Failure::Illegal`] with the reason; the game is
/// then unchanged.
pub fn apply_setup(game: &mut Game, side: Side, answer: &str, seed: u64) -> Result<(), Failure> {
    let result = if answer.trim() == "random" {
        game.deploy_random(side, seed)
    } else {
        match Setup::from_json(answer) {
            Ok(setup) => game.deploy(side, &setup),
            Err(err) => return Err(Failure::Illegal(err.to_string())),
        }
    };
    result.map(|_| ()).map_err(|err| Failure::Illegal(err.to_string()))
}

/// Plays an engine's `action` answer (its text after `action `, in the move
/// notation) as `side`. A refusal is [`Failure::Illegal`] with the reason; the game
/// is then unchanged.
pub fn apply_action(game: &mut Game, side: Side, answer: &str) -> Result<(), Failure> {
    let action =
        Action::parse(game.board(), answer.trim()).map_err(|err| Failure::Illegal(format!("{answer:?}: {err}")))?;
    game.play_as(side, action).map_err(|err| Failure::Illegal(format!("{answer}: {err}")))?;
    Ok(())
}

/// How a refereed game between engines ended.
#[derive(Debug)]
pub struct Played {
    /// The game (its record, each seat's player record).
    pub game: Game,
    /// The engine that failed, if one did, and how (its team lost).
    pub failure: Option<(Side, Failure)>,
    /// Stopped at the ply cap without a result (scored as a draw).
    pub capped: bool,
}

impl Played {
    /// The winning sides (empty for a draw): the rules' result, or the other team of a
    /// failed engine.
    pub fn winners(&self) -> Vec<Side> {
        let rules = self.game.rules();
        if let Some((_, Failure::Referee(_))) = &self.failure {
            return Vec::new();
        }
        if let Some((side, _)) = &self.failure {
            let team = rules.team_of(*side);
            return rules.sides().iter().copied().filter(|s| !team.contains(*s)).collect();
        }
        self.game.result().map_or(Vec::new(), |r: GameResult| r.winners.iter().collect())
    }

    /// Why the game ended, in words (`flag_captured`, `timeout by north`, `max_plies`…).
    pub fn reason(&self) -> String {
        match (&self.failure, self.game.result()) {
            (Some((_, f @ Failure::Referee(_))), _) => f.to_string(),
            (Some((side, f)), _) => format!("{} by {side} ({f})", f.name()),
            (None, Some(r)) => r.reason.name().to_owned(),
            (None, None) => "max_plies".to_owned(),
        }
    }

    /// The line that tells the engines the game is over: `gameover <winners> <reason>`
    /// (`-` for no winner).
    pub fn gameover_line(&self) -> String {
        let winners: String = self.winners().into_iter().map(side_letter).collect();
        format!("gameover {} {}", if winners.is_empty() { "-".to_owned() } else { winners }, self.reason())
    }
}

/// How a referee runs a game ([`play_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refereeing {
    /// The time for each answer (`deploy`, and `go` and `draw` without a game clock).
    pub budget: Duration,
    /// A game clock for the actions and draw answers, if any.
    pub clock: Option<TimeControl>,
    /// Plies after which a game that is not over is stopped (scored a draw).
    pub max_plies: u32,
}

/// Plays one game of `rules` from `seed` between engines, one per seat (`seats[i]`
/// plays `rules.sides()[i]`), each answer within `budget`, stopping (a draw) after
/// `max_plies` plies if it is not over: [`play_with`] without a game clock.
pub fn play<L: EngineLink>(
    rules: Arc<RuleSet>,
    seed: u64,
    seats: &mut [L],
    budget: Duration,
    max_plies: u32,
) -> Played {
    play_with(rules, seed, seats, &Refereeing { budget, clock: None, max_plies })
}

/// Plays one game of `rules` from `seed` between engines, one per seat (`seats[i]`
/// plays `rules.sides()[i]`), as docs/protocol.md says: each seat hears its own events
/// as they happen, deploys (and is told the setup it got), and when it is to act gets
/// its view string and `go`. An engine may offer a draw with its action (a `draw
/// offer` line before its `action`): after the action, every seat of the other teams
/// still in play is asked (`draw <ms>`), and when all accept the game is drawn by
/// agreement ([`Game::agree_draw`]). With a game clock, each seat's clock runs while it
/// thinks over an action or a draw answer (it is told `clock <left> <increment>`
/// first), and a seat whose clock runs out loses ([`Failure::OutOfTime`]).
pub fn play_with<L: EngineLink>(rules: Arc<RuleSet>, seed: u64, seats: &mut [L], how: &Refereeing) -> Played {
    let mut game = Game::with_rules(rules.clone(), seed);
    let sides: Vec<Side> = rules.sides().to_vec();
    let mut told = vec![0usize; sides.len()];
    let budget = how.budget;
    let ms = budget.as_millis();
    let field = rules_field(&rules);
    // Each seat's game clock in microseconds: it may run below zero by the grace
    // (pipes, scheduling), over the whole game, not more.
    let mut clocks: Vec<i64> = sides.iter().map(|_| how.clock.map_or(0, |c| micros(c.base))).collect();
    // The time a seat has for an answer of the game (an action, a draw answer) and the
    // line that tells it its clock.
    let timed = |clocks: &[i64], i: usize| -> (Duration, Option<String>) {
        match how.clock {
            Some(c) => {
                let left = Duration::from_micros(clocks[i].max(0) as u64);
                (left, Some(format!("clock {} {}", left.as_millis(), c.increment.as_millis())))
            }
            None => (budget, None),
        }
    };
    // Charges `took` to seat `i`'s clock (and adds the increment after an action): a
    // clock run out past the grace loses on time.
    let charge = |clocks: &mut [i64], i: usize, took: Duration, action: bool| -> Result<(), Failure> {
        let Some(c) = how.clock else { return Ok(()) };
        clocks[i] -= micros(took);
        if clocks[i] < -micros(GRACE) {
            return Err(Failure::OutOfTime);
        }
        if action {
            clocks[i] += micros(c.increment);
        }
        Ok(())
    };
    // On a clock, an engine silent past its time has lost on time.
    let on_time = |f: Failure| if how.clock.is_some() && f == Failure::Timeout { Failure::OutOfTime } else { f };
    let mut offer: Option<Side> = None;
    let failure = (|| -> Result<bool, (Side, Failure)> {
        for (i, s) in sides.iter().enumerate() {
            let line = format!("newgame {} {field}", side_letter(*s));
            fits(&line, MAX_LINE).map_err(|f| (*s, f))?;
            seats[i].send(&line).map_err(|f| (*s, f))?;
            seats[i].send(&format!("seed {}", engine_seed(seed, *s))).map_err(|f| (*s, f))?;
        }
        loop {
            // Each seat hears its own new events.
            for (i, s) in sides.iter().enumerate() {
                let events = game.events(*s);
                for e in &events[told[i]..] {
                    seats[i].send(&format!("event {}", e.to_json(game.board()))).map_err(|f| (*s, f))?;
                }
                told[i] = events.len();
            }
            if game.phase() == Phase::Over {
                return Ok(false);
            }
            if let Some(by) = offer.take() {
                if ask_draw(&mut game, &sides, seats, by, &mut clocks, &timed, &charge, &on_time)? {
                    continue;
                }
            }
            if game.position().ply() >= how.max_plies {
                return Ok(true);
            }
            let Some(side) = game.to_act() else { return Ok(false) };
            let i = sides.iter().position(|s| *s == side).expect("the side to act plays");
            if game.phase() == Phase::Deploy {
                let e = &mut seats[i];
                let answer = e.ask(&format!("deploy {ms}"), "setup", budget).map_err(|f| (side, f))?;
                let seed = seed ^ (i as u64 + 1).wrapping_mul(0x51_7CC1_B727_220A);
                apply_setup(&mut game, side, &answer, seed).map_err(|f| (side, f))?;
                // The seat's own setup, as its player record holds it (it may have let
                // the referee draw it).
                if let Some(setup) = game.player_record(side).setup {
                    e.send(&format!("setup {}", setup.to_json())).map_err(|f| (side, f))?;
                }
                continue;
            }
            let (left, clock_line) = timed(&clocks, i);
            let e = &mut seats[i];
            e.send(&position_line(&game, side).map_err(|f| (side, f))?).map_err(|f| (side, f))?;
            if let Some(line) = clock_line {
                e.send(&line).map_err(|f| (side, f))?;
            }
            let start = e.now();
            let (answer, offered) = go(e, left).map_err(|f| (side, on_time(f)))?;
            let took = e.now().saturating_duration_since(start);
            charge(&mut clocks, i, took, true).map_err(|f| (side, e.fail(f)))?;
            apply_action(&mut game, side, &answer).map_err(|f| (side, e.fail(f)))?;
            if offered && game.phase() != Phase::Over && game.may_decide_draw(side).is_ok() {
                offer = Some(side);
            }
        }
    })();
    let (failure, capped) = match failure {
        Ok(capped) => (None, capped),
        Err((side, f)) => {
            if game.phase() != Phase::Over && !matches!(f, Failure::Referee(_)) {
                let _ = game.resign(side);
            }
            (Some((side, f)), false)
        }
    };
    let played = Played { game, failure, capped };
    let end = played.gameover_line();
    for (i, s) in seats.iter_mut().enumerate() {
        // Not to the engine that failed (it is stopped), but to every seat when the
        // failure is the referee's own.
        if played.failure.as_ref().is_none_or(|(f, why)| *f != sides[i] || matches!(why, Failure::Referee(_))) {
            let _ = s.send(&end);
        }
    }
    played
}

/// Everything a referee has told `side` of `game` so far, as protocol lines: `newgame`,
/// its own `setup` once deployed, each of its events, and its view string (`position`)
/// once the game is in play. A referee that runs an engine only when its seat must act
/// (the web server's bot seats: a fresh engine each time, so that nothing is kept
/// between turns) sends these, then `go` ([`ask_action`]) or `deploy`.
pub fn seat_lines(game: &Game, side: Side) -> Vec<String> {
    let mut lines = vec![
        format!("newgame {} {}", side_letter(side), rules_field(game.rules())),
        format!("seed {}", engine_seed(game.seed(), side)),
    ];
    let record = game.player_record(side);
    if let Some(setup) = &record.setup {
        lines.push(format!("setup {}", setup.to_json()));
    }
    lines.extend(game.events(side).iter().map(|e| format!("event {}", e.to_json(game.board()))));
    if matches!(game.phase(), Phase::Move | Phase::Reaction) {
        lines.push(format!("position {}", game.view_string(side)));
    }
    lines
}

/// Sends `lines` (what the seat has been told, [`seat_lines`]), then `go` with `budget`,
/// and reads the engine's action: its notation, and whether it offered a draw with it.
pub fn ask_action<L: EngineLink>(e: &mut L, lines: &[String], budget: Duration) -> Result<(String, bool), Failure> {
    for line in lines {
        e.send(line)?;
    }
    go(e, budget)
}

/// Sends `lines` (what the seat has been told, [`seat_lines`]), then `deploy` with
/// `budget`, and reads the engine's setup: the text after `setup ` (`random` or setup
/// JSON, for [`apply_setup`]).
pub fn ask_setup<L: EngineLink>(e: &mut L, lines: &[String], budget: Duration) -> Result<String, Failure> {
    for line in lines {
        e.send(line)?;
    }
    e.ask(&format!("deploy {}", budget.as_millis()), "setup", budget)
}

/// The seed a referee tells `side`'s engine for a game of seed `game_seed` (the `seed`
/// line after `newgame`), for the engine's own chance: a keyed hash (SipHash-2-4,
/// [`crate::rng::KeyedRng`]) of the game's seed and the seat, so that it tells nothing
/// of the game's seed (which rebuilds the 翻棋 deal and random setups). The two games
/// of a match's pair have one seed: the engine in a seat draws the same in both.
pub fn engine_seed(game_seed: u64, side: Side) -> u64 {
    crate::rng::KeyedRng::new(game_seed, 0xE761_0E5E_ED00 + side as u64).next_u64()
}

/// `Ok` when `line` fits in `max` bytes, else the referee's own [`Failure::Referee`].
fn fits(line: &str, max: usize) -> Result<(), Failure> {
    if line.len() <= max {
        Ok(())
    } else {
        let word = line.split(' ').next().unwrap_or_default();
        Err(Failure::Referee(format!("a `{word}` line of {} bytes is over the limit of {max}", line.len())))
    }
}

/// The `position` line of `side`: its view string, which must fit both the line limit
/// and the position strings' own ([`crate::position::MAX_POSITION_STRING`]).
fn position_line(game: &Game, side: Side) -> Result<String, Failure> {
    let view = game.view_string(side);
    fits(&view, crate::position::MAX_POSITION_STRING)?;
    Ok(format!("position {view}"))
}

fn micros(d: Duration) -> i64 {
    d.as_micros().min(i64::MAX as u128) as i64
}

/// Sends `go` with the time `left` and reads the answer: `action <notation>`, after at
/// most one `draw offer` line. Returns the notation and whether a draw was offered.
fn go<L: EngineLink>(e: &mut L, left: Duration) -> Result<(String, bool), Failure> {
    let deadline = Instant::now() + left + GRACE;
    e.send(&format!("go {}", left.as_millis()))?;
    let mut offered = false;
    loop {
        let line = e.next_line(deadline)?;
        if line.trim_end() == "draw offer" && !offered {
            offered = true;
            continue;
        }
        return match answer(&line, "action") {
            Ok(rest) => Ok((rest.to_owned(), offered)),
            Err(f) => Err(e.fail(f)),
        };
    }
}

/// Puts `by`'s draw offer to every seat of the other teams still in play: each is sent
/// its view string and `draw <ms>` and answers `draw accept` or `draw decline`. When all
/// accept, the game is drawn by agreement (true).
fn ask_draw<L: EngineLink>(
    game: &mut Game,
    sides: &[Side],
    seats: &mut [L],
    by: Side,
    clocks: &mut [i64],
    timed: &dyn Fn(&[i64], usize) -> (Duration, Option<String>),
    charge: &dyn Fn(&mut [i64], usize, Duration, bool) -> Result<(), Failure>,
    on_time: &dyn Fn(Failure) -> Failure,
) -> Result<bool, (Side, Failure)> {
    if game.may_decide_draw(by).is_err() {
        return Ok(false);
    }
    let team = game.rules().team_of(by);
    let mut all = true;
    for (i, &s) in sides.iter().enumerate() {
        if team.contains(s) || game.may_decide_draw(s).is_err() {
            continue;
        }
        let (left, clock_line) = timed(clocks, i);
        let e = &mut seats[i];
        e.send(&position_line(game, s).map_err(|f| (s, f))?).map_err(|f| (s, f))?;
        if let Some(line) = &clock_line {
            e.send(line).map_err(|f| (s, f))?;
        }
        let start = e.now();
        let reply = e.ask(&format!("draw {}", left.as_millis()), "draw", left).map_err(|f| (s, on_time(f)))?;
        let took = e.now().saturating_duration_since(start);
        charge(clocks, i, took, false).map_err(|f| (s, e.fail(f)))?;
        match reply.trim() {
            "accept" => {}
            "decline" => all = false,
            other => return Err((s, e.fail(Failure::Garbage(format!("draw {}", cut(other)))))),
        }
    }
    if all {
        game.agree_draw().map_err(|err| (by, Failure::Illegal(err.to_string())))?;
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_reads_names_and_options() {
        assert_eq!(handshake_line("ready"), Ok(Handshake::Ready));
        assert_eq!(handshake_line("id name my  engine "), Ok(Handshake::Name("my  engine ".into())));
        assert_eq!(handshake_line("id author me"), Ok(Handshake::Other));
        let o = EngineOption { name: "depth".into(), kind: "int".into(), default: "3 or 4".into() };
        assert_eq!(handshake_line(" option\tdepth int  3 or\t4"), Ok(Handshake::Option(o.clone())));
        assert_eq!(handshake_line(&o.line()), Ok(Handshake::Option(o)));
        assert!(matches!(handshake_line("option depth"), Err(Failure::Garbage(_))));
    }

    #[test]
    fn the_referees_own_fault_blames_no_engine() {
        assert!(fits(&"x".repeat(MAX_LINE), MAX_LINE).is_ok());
        let f = fits(&format!("newgame {}", "x".repeat(MAX_LINE)), MAX_LINE).unwrap_err();
        assert_eq!(f, Failure::Referee(format!("a `newgame` line of {} bytes is over the limit of {MAX_LINE}", MAX_LINE + 8)));
        let game = Game::with_rules(RuleSet::preset("classic").unwrap(), 1);
        let played = Played { game, failure: Some((Side::South, f)), capped: false };
        assert_eq!(played.winners(), Vec::<Side>::new());
        assert!(played.reason().starts_with("referee_error: a `newgame` line of "), "{}", played.reason());
        assert!(played.gameover_line().starts_with("gameover - referee_error: "), "{}", played.gameover_line());
    }

    #[test]
    fn answers_are_their_word_and_a_space() {
        assert_eq!(answer("action a1-a2", "action"), Ok("a1-a2"));
        assert_eq!(answer("action ", "action"), Ok(""));
        assert!(matches!(answer("action", "action"), Err(Failure::Garbage(_))));
        assert!(matches!(answer("setup random", "action"), Err(Failure::Garbage(_))));
    }

    #[test]
    fn a_refused_answer_changes_nothing_and_the_gameover_line_stays_one_line() {
        let rules = RuleSet::preset("classic").unwrap();
        let mut game = Game::with_rules(rules, 1);
        assert!(matches!(apply_setup(&mut game, Side::South, "{\"a1\": \"dragon\"}", 1), Err(Failure::Illegal(_))));
        assert!(matches!(apply_setup(&mut game, Side::South, "[1]", 1), Err(Failure::Illegal(_))));
        assert_eq!(game.position().ply(), 0);
        apply_setup(&mut game, Side::South, " random ", 1).unwrap();
        apply_setup(&mut game, Side::North, "random", 2).unwrap();
        assert_eq!(game.phase(), Phase::Move);
        let before = game.position().clone();
        // South's move answered by North, with "\r" around it: the notation reads, the
        // move is refused. The refusal quoted the answer raw, "\r" and all, into the
        // `gameover` line the other engines receive: a reader that breaks lines at "\r"
        // (Python's text files) read two lines.
        let south = game.legal_actions();
        let answer = format!("\r{}\r", south[0].to_notation(game.board()));
        let failure = apply_action(&mut game, Side::North, &answer).unwrap_err();
        assert!(game.position().same_state(&before));
        let played = Played { game, failure: Some((Side::North, failure)), capped: false };
        let line = played.gameover_line();
        assert!(line.starts_with("gameover S illegal_action by north (illegal_action: \\r"), "{line}");
        assert!(!line.contains('\r'), "{line:?}");
    }
}
