//! The referee side: engine processes behind a bounded, timed line reader, and one
//! game played between them. Every way an engine can fail — an illegal or unreadable
//! answer, silence past its budget, a crash, a line over [`MAX_LINE`] — ends the game
//! as a loss for that engine with a named [`Failure`], and its process is killed and
//! reaped.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{rules_field, side_letter, EngineOption, MAX_LINE, VERSION};
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
            Failure::Illegal(t) => write!(f, "illegal_action: {t}"),
            Failure::Spawn(t) => write!(f, "spawn: {t}"),
            other => f.write_str(other.name()),
        }
    }
}

enum Line {
    Text(String),
    TooLong,
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
            loop {
                let mut buf = Vec::new();
                match r.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                } else if buf.len() > MAX_LINE {
                    let _ = tx.send(Line::TooLong);
                    break;
                }
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                if tx.send(Line::Text(text)).is_err() {
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
            let mut w = line.split_whitespace();
            match w.next() {
                Some("ready") => break,
                Some("id") if line.starts_with("id name ") => e.name = line["id name ".len()..].to_owned(),
                Some("option") => {
                    let (Some(n), Some(k), d) = (w.next(), w.next(), w.collect::<Vec<_>>().join(" ")) else {
                        return Err(e.fail(Failure::Garbage(cut(&line))));
                    };
                    e.options.push(EngineOption { name: n.into(), kind: k.into(), default: d });
                }
                _ => {}
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
        match line.split_once(' ') {
            Some((w, rest)) if w == word => Ok(rest.to_owned()),
            _ => Err(self.fail(Failure::Garbage(cut(&line)))),
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
                let result = if answer.trim() == "random" {
                    game.deploy_random(side, seed ^ (i as u64 + 1).wrapping_mul(0x51_7CC1_B727_220A))
                } else {
                    match Setup::from_json(&answer) {
                        Ok(setup) => game.deploy(side, &setup),
                        Err(err) => return Err((side, Failure::Illegal(err.to_string()))),
                    }
                };
                result.map_err(|err| (side, Failure::Illegal(err.to_string())))?;
                continue;
            }
            e.send(&format!("position {}", game.view_string(side))).map_err(|f| (side, f))?;
            let answer = e.ask(&format!("go {ms}"), "action", budget).map_err(|f| (side, f))?;
            let action = Action::parse(game.board(), answer.trim())
                .map_err(|err| (side, Failure::Illegal(format!("{answer:?}: {err}"))))?;
            game.play_as(side, action).map_err(|err| (side, Failure::Illegal(format!("{answer}: {err}"))))?;
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
    let winners: String = played.winners().into_iter().map(side_letter).collect();
    let end = format!("gameover {} {}", if winners.is_empty() { "-".to_owned() } else { winners }, played.reason());
    for (i, s) in seats.iter_mut().enumerate() {
        if played.failure.as_ref().is_none_or(|(f, _)| *f != sides[i]) {
            let _ = s.send(&end);
        }
    }
    played
}
