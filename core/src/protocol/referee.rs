//! The referee side: engine processes behind a bounded, timed line reader, and one
//! game played between them. Every way an engine can fail — an illegal or unreadable
//! answer, silence past its budget, a crash, a line over [`MAX_LINE`] — ends the game
//! as a loss for that engine with a named [`Failure`], and its process is killed and
//! reaped.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{quote, read_line, rules_field, side_letter, EngineOption, Line, MAX_LINE, VERSION};
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
}

impl Failure {
    /// A one-word name of the failure (`timeout`, `crash`, `garbage`, `line_too_long`,
    /// `illegal_action`, `spawn`).
    pub fn name(&self) -> &'static str {
        match self {
            Failure::Timeout => "timeout",
            Failure::Crash => "crash",
            Failure::Garbage(_) => "garbage",
            Failure::LineTooLong => "line_too_long",
            Failure::Illegal(_) => "illegal_action",
            Failure::Spawn(_) => "spawn",
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
            other => f.write_str(other.name()),
        }
    }
}

/// A running engine: its process, its input, and its output lines through a reader
/// thread (bounded lines, so a flood cannot exhaust memory).
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    /// The engine's `id name`.
    pub name: String,
    /// The options it announced.
    pub options: Vec<EngineOption>,
    /// Every line received, for logs (bounded).
    pub transcript: Vec<String>,
    reaped: bool,
}

/// Extra time allowed beyond a budget for pipes and process scheduling.
pub const GRACE: Duration = Duration::from_millis(200);

impl EngineProcess {
    /// Starts `command` with `sh -c` and runs the handshake (`junqi 1` … `ready`)
    /// within `budget`; sends `setoption` for each of `options` (name, value).
    pub fn start(command: &str, budget: Duration, options: &[(String, String)]) -> Result<EngineProcess, Failure> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(command);
        // Its own process group, so that everything the engine started is killed too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Failure::Spawn(format!("{command}: {e}")))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Ok(Some(line)) = read_line(&mut r, MAX_LINE) {
                let last = line == Line::TooLong;
                if tx.send(line).is_err() || last {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            name: String::new(),
            options: Vec::new(),
            transcript: Vec::new(),
            reaped: false,
        };
        e.send(&format!("junqi {VERSION}"))?;
        let deadline = Instant::now() + budget + GRACE;
        loop {
            let line = e.next_line(deadline)?;
            match handshake_line(&line) {
                Ok(Handshake::Ready) => break,
                Ok(Handshake::Name(name)) => e.name = name,
                Ok(Handshake::Option(o)) => e.options.push(o),
                Ok(Handshake::Other) => {}
                Err(f) => return Err(e.fail(f)),
            }
        }
        for (name, value) in options {
            if !e.options.iter().any(|o| &o.name == name) {
                return Err(e.fail(Failure::Garbage(format!("the engine has no option {name:?}"))));
            }
            e.send(&format!("setoption {name} {value}"))?;
        }
        Ok(e)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        let ok = match &mut self.stdin {
            Some(s) => writeln!(s, "{line}").and_then(|_| s.flush()).is_ok(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            Err(self.fail(Failure::Crash))
        }
    }

    /// The next line that is not `info ...`, before `deadline`.
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(t)) => {
                    if self.transcript.len() < 1000 {
                        self.transcript.push(cut(&t));
                    }
                    if t.starts_with("info") || t.trim().is_empty() {
                        continue;
                    }
                    return Ok(t);
                }
                Ok(Line::TooLong) => return Err(self.fail(Failure::LineTooLong)),
                Err(RecvTimeoutError::Timeout) => return Err(self.fail(Failure::Timeout)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.fail(Failure::Crash)),
            }
        }
    }

    /// Sends `request` and reads the answer `<word> <rest>` within `budget`; returns
    /// `rest`.
    pub fn ask(&mut self, request: &str, word: &str, budget: Duration) -> Result<String, Failure> {
        let deadline = Instant::now() + budget + GRACE;
        self.send(request)?;
        let line = self.next_line(deadline)?;
        match answer(&line, word) {
            Ok(rest) => Ok(rest.to_owned()),
            Err(f) => Err(self.fail(f)),
        }
    }

    /// Kills and reaps the process (after a failure), returning the failure.
    fn fail(&mut self, f: Failure) -> Failure {
        self.stdin = None;
        self.kill();
        f
    }

    /// Kills the engine's whole process group, then reaps the engine (once: after
    /// reaping, its id may belong to another process).
    fn kill(&mut self) {
        if self.reaped {
            return;
        }
        self.reaped = true;
        #[cfg(unix)]
        {
            // std has no killpg: `kill` reaches the group the engine leads.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The process id (for tests that check it was reaped).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `quit`, waits a moment for the process to end, then kills and reaps it.
    pub fn stop(mut self) {
        let _ = self.send("quit");
        self.stdin = None;
        // Wait (without reaping, so the group id stays the engine's) for its output
        // to close, then kill whatever is left of its group.
        let deadline = Instant::now() + Duration::from_millis(300);
        while let Ok(_) | Err(RecvTimeoutError::Timeout) =
            self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            if Instant::now() >= deadline {
                break;
            }
        }
        self.kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
        }
    }
}

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
        if let Some((side, _)) = &self.failure {
            let team = rules.team_of(*side);
            return rules.sides().iter().copied().filter(|s| !team.contains(*s)).collect();
        }
        self.game.result().map_or(Vec::new(), |r: GameResult| r.winners.iter().collect())
    }

    /// Why the game ended, in words (`flag_captured`, `timeout by north`, `max_plies`…).
    pub fn reason(&self) -> String {
        match (&self.failure, self.game.result()) {
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

/// Plays one game of `rules` from `seed` between engines, one per seat (`seats[i]`
/// plays `rules.sides()[i]`), each move within `budget`, stopping (a draw) after
/// `max_plies` plies if it is not over.
pub fn play(
    rules: Arc<RuleSet>,
    seed: u64,
    seats: &mut [EngineProcess],
    budget: Duration,
    max_plies: u32,
) -> Played {
    let mut game = Game::with_rules(rules.clone(), seed);
    let sides: Vec<Side> = rules.sides().to_vec();
    let mut told = vec![0usize; sides.len()];
    let ms = budget.as_millis();
    let field = rules_field(&rules);
    let failure = (|| -> Result<bool, (Side, Failure)> {
        for (i, s) in sides.iter().enumerate() {
            seats[i].send(&format!("newgame {} {field}", side_letter(*s))).map_err(|f| (*s, f))?;
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
            if game.position().ply() >= max_plies {
                return Ok(true);
            }
            let Some(side) = game.to_act() else { return Ok(false) };
            let i = sides.iter().position(|s| *s == side).expect("the side to act plays");
            let e = &mut seats[i];
            if game.phase() == Phase::Deploy {
                let answer = e.ask(&format!("deploy {ms}"), "setup", budget).map_err(|f| (side, f))?;
                let seed = seed ^ (i as u64 + 1).wrapping_mul(0x51_7CC1_B727_220A);
                apply_setup(&mut game, side, &answer, seed).map_err(|f| (side, f))?;
                continue;
            }
            e.send(&format!("position {}", game.view_string(side))).map_err(|f| (side, f))?;
            let answer = e.ask(&format!("go {ms}"), "action", budget).map_err(|f| (side, f))?;
            apply_action(&mut game, side, &answer).map_err(|f| (side, f))?;
        }
    })();
    let (failure, capped) = match failure {
        Ok(capped) => (None, capped),
        Err((side, f)) => {
            if game.phase() != Phase::Over {
                let _ = game.resign(side);
            }
            (Some((side, f)), false)
        }
    };
    let played = Played { game, failure, capped };
    let end = played.gameover_line();
    for (i, s) in seats.iter_mut().enumerate() {
        if played.failure.as_ref().is_none_or(|(f, _)| *f != sides[i]) {
            let _ = s.send(&end);
        }
    }
    played
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
