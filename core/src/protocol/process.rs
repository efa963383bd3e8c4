//! An engine's process as the referee holds it: started without a shell wrapper when
//! its command is plain words, its input written by a writer thread from a bounded
//! queue (so that a write never blocks the referee), its output read by a reader thread
//! into a bounded queue (so that a flood cannot exhaust memory), and every process it
//! started ended with it, including those that left its process group.
//!
//! What a referee guarantees with it (docs/protocol.md, "Time, failures, limits"):
//!
//! - **No call blocks past a deadline.** [`EngineProcess::send`] only queues the line;
//!   an engine that leaves more than [`MAX_UNREAD`] bytes of the referee's lines unread
//!   has stopped reading and loses by `timeout` at once, and an engine that does not
//!   read what it was sent cannot answer before its read deadline either.
//! - **Bounded memory whatever the engine prints**: at most [`LINE_QUEUE`] lines of at
//!   most [`MAX_LINE`] bytes wait to be read; `info` lines past that are dropped
//!   (counted in [`EngineProcess::dropped_info`]), other lines wait (the engine's
//!   output pipe fills and the engine blocks: its problem, on its own clock); at most
//!   [`MAX_OPTIONS`] options at the handshake.
//! - **The end of its output is the end of the engine**: a command of plain words is
//!   run directly (no `sh -c` that would keep the output open after the engine closed
//!   it), so closing its output is a `crash` at once.
//! - **Nothing is left running**: the engine leads its own process group, which is
//!   killed; and every process started under it carries a cookie in its environment
//!   ([`COOKIE_VAR`]) by which the processes that left the group (`setsid`) are found
//!   in `/proc` and killed too (Linux; the same way Jenkins' ProcessTreeKiller finds a
//!   build's processes).

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, TrySendError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::referee::{handshake_line, EngineLink, Failure, Handshake, GRACE};
use super::{read_line, EngineOption, Line, MAX_LINE, VERSION};

/// Bytes of the referee's lines that may wait unread by an engine: 4 MiB (a whole long
/// 四国 game told at once is a few hundred kB). More, and the engine has stopped
/// reading its input: it loses by `timeout`.
pub const MAX_UNREAD: usize = 4 << 20;

/// Lines of an engine's output that may wait to be read by the referee: 64 (of at most
/// [`MAX_LINE`] bytes each: 4 MiB). Past that, `info` lines are dropped.
pub const LINE_QUEUE: usize = 64;

/// Most options an engine may announce at the handshake: 256. More is `garbage`.
pub const MAX_OPTIONS: usize = 256;

/// The environment variable that marks every process started under an engine: its
/// value is unique to that engine process.
pub const COOKIE_VAR: &str = "JUNQI_ENGINE_COOKIE";

/// The words of `command` when it is a plain command — words, single or double quotes,
/// backslash escapes — that a shell would run as one program with those arguments;
/// `None` when it uses anything else a shell interprets (`|`, `&&`, `;`, redirections,
/// `$`, globs, `~`, a leading `VAR=value`, …): such a command runs under `sh -c`.
pub fn plain_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\') => word.push(c),
                            // `$`, a backquote or a newline after a backslash: leave
                            // it to the shell.
                            '$' | '`' | '\n' => return None,
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        '$' | '`' => return None,
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next()? {
                    '\n' => return None,
                    c => word.push(c),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | ']' | '#' | '~' | '{'
            | '}' | '\n' | '!' => return None,
            '=' if words.is_empty() => return None,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    // A shell's own words (`exec`, `cd`, `ulimit`, …) are no programs.
    const SHELL_WORDS: [&str; 27] = [
        "exec", "cd", "eval", "export", "set", "unset", ".", "source", "ulimit", "umask", "trap", "alias", "read",
        "command", "if", "while", "until", "for", "case", "time", "builtin", "readonly", "exit", "return", "wait",
        "shift", "local",
    ];
    match words.first() {
        Some(w) if !SHELL_WORDS.contains(&w.as_str()) => Some(words),
        _ => None,
    }
}

/// The referee's lines waiting for the writer thread.
#[derive(Default)]
struct Outbox {
    lines: VecDeque<String>,
    bytes: usize,
    /// No more lines: the writer closes the engine's input once the queue is empty.
    closed: bool,
    /// A write failed: the engine's input is gone.
    broken: bool,
}

type Shared = Arc<(Mutex<Outbox>, Condvar)>;

fn writer(mut stdin: ChildStdin, outbox: Shared) {
    let (lock, ready) = &*outbox;
    let mut buf = Vec::new();
    loop {
        {
            let mut o = lock.lock().expect("no panic holds it");
            while o.lines.is_empty() && !o.closed {
                o = ready.wait(o).expect("no panic holds it");
            }
            if o.lines.is_empty() {
                return; // closed: dropping stdin closes the engine's input
            }
            buf.clear();
            while let Some(line) = o.lines.pop_front() {
                buf.extend_from_slice(line.as_bytes());
                buf.push(b'\n');
            }
            o.bytes = 0;
        }
        // Blocks while the engine does not read; the referee does not wait for it.
        if stdin.write_all(&buf).and_then(|_| stdin.flush()).is_err() {
            lock.lock().expect("no panic holds it").broken = true;
            return;
        }
    }
}

fn reader(stdout: std::process::ChildStdout, tx: std::sync::mpsc::SyncSender<Line>, dropped: Arc<AtomicU64>) {
    let mut r = BufReader::new(stdout);
    while let Ok(Some(line)) = read_line(&mut r, MAX_LINE) {
        let last = line == Line::TooLong;
        let droppable = matches!(&line, Line::Text(t) if t.starts_with("info") || t.trim().is_empty());
        let sent = if droppable {
            match tx.try_send(line) {
                Ok(()) => Ok(()),
                Err(TrySendError::Full(_)) => {
                    dropped.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
                Err(TrySendError::Disconnected(_)) => Err(()),
            }
        } else {
            tx.send(line).map_err(|_| ())
        };
        if sent.is_err() || last {
            break;
        }
    }
}

/// A running engine: its process, its input through a writer thread, its output lines
/// through a reader thread, both bounded (see the module documentation).
pub struct EngineProcess {
    child: Child,
    outbox: Shared,
    lines: Receiver<Line>,
    dropped: Arc<AtomicU64>,
    cookie: String,
    /// The engine's `id name`.
    pub name: String,
    /// The options it announced.
    pub options: Vec<EngineOption>,
    /// Every line received, for logs (bounded: the first 1 000 lines, 200 characters
    /// each).
    pub transcript: Vec<String>,
    reaped: bool,
}

fn cookie() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}-{:016x}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed), crate::random_seed())
}

impl EngineProcess {
    /// Starts `command` — directly when it is plain words ([`plain_words`]), else with
    /// `sh -c` — in a process group of its own, and runs the handshake (`junqi 1` …
    /// `ready`) within `budget`; sends `setoption` for each of `options` (name, value),
    /// each of which the engine must have announced.
    pub fn start(command: &str, budget: Duration, options: &[(String, String)]) -> Result<EngineProcess, Failure> {
        let mut cmd = match plain_words(command) {
            Some(words) => {
                let mut c = Command::new(&words[0]);
                c.args(&words[1..]);
                c
            }
            None => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(command);
                c
            }
        };
        let cookie = cookie();
        cmd.env(COOKIE_VAR, &cookie);
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
        let stdin = child.stdin.take().expect("stdin is piped");
        let (tx, rx) = sync_channel(LINE_QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let d = dropped.clone();
        std::thread::spawn(move || reader(stdout, tx, d));
        let outbox: Shared = Arc::default();
        let o = outbox.clone();
        std::thread::spawn(move || writer(stdin, o));
        let mut e = EngineProcess {
            child,
            outbox,
            lines: rx,
            dropped,
            cookie,
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
                Ok(Handshake::Name(name)) => e.name = name.chars().take(200).collect(),
                Ok(Handshake::Option(_)) if e.options.len() == MAX_OPTIONS => {
                    return Err(e.fail(Failure::Garbage(format!("more than {MAX_OPTIONS} options"))));
                }
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

    /// Kills the engine's whole process group and every process that carries its
    /// cookie, then reaps the engine (once: after reaping, its id may belong to another
    /// process).
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
        sweep(&self.cookie);
        let mut o = self.outbox.0.lock().expect("no panic holds it");
        o.closed = true;
        o.lines.clear();
        self.outbox.1.notify_all();
    }

    /// Sends one line ([`EngineLink::send`], callable without the trait in scope).
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        EngineLink::send(self, line)
    }

    /// Sends `request` and reads the answer `<word> <rest>` within `budget`
    /// ([`EngineLink::ask`]).
    pub fn ask(&mut self, request: &str, word: &str, budget: Duration) -> Result<String, Failure> {
        EngineLink::ask(self, request, word, budget)
    }

    /// The process id (for tests that check it was reaped).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The `info` lines dropped because the referee's queue of the engine's lines was
    /// full ([`LINE_QUEUE`]).
    pub fn dropped_info(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Sends `quit`, closes the engine's input, waits a moment for the process to end,
    /// then kills what is left and reaps it.
    pub fn stop(mut self) {
        let _ = self.send("quit");
        {
            let mut o = self.outbox.0.lock().expect("no panic holds it");
            o.closed = true;
            self.outbox.1.notify_all();
        }
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

impl EngineLink for EngineProcess {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        let failure = {
            let mut o = self.outbox.0.lock().expect("no panic holds it");
            if o.broken || o.closed {
                Some(Failure::Crash)
            } else if o.bytes + line.len() + 1 > MAX_UNREAD {
                // It has stopped reading its input.
                Some(Failure::Timeout)
            } else {
                o.bytes += line.len() + 1;
                o.lines.push_back(line.to_owned());
                self.outbox.1.notify_all();
                None
            }
        };
        match failure {
            None => Ok(()),
            Some(f) => Err(self.fail(f)),
        }
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Text(t)) => {
                    if self.transcript.len() < 1000 {
                        self.transcript.push(t.chars().take(200).collect());
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

    /// Kills and reaps the process, returning the failure.
    fn fail(&mut self, f: Failure) -> Failure {
        self.kill();
        f
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
        }
    }
}

/// Kills every process whose environment holds `COOKIE_VAR=cookie` (those that left
/// the engine's process group), until none is left (a few rounds, for processes that
/// fork while they are killed).
fn sweep(cookie: &str) {
    #[cfg(target_os = "linux")]
    for _ in 0..5 {
        let pids = marked(cookie);
        if pids.is_empty() {
            return;
        }
        let _ = Command::new("kill").arg("-KILL").arg("--").args(&pids).stderr(Stdio::null()).status();
        std::thread::sleep(Duration::from_millis(5));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cookie;
}

/// The processes of `/proc` whose environment holds `COOKIE_VAR=cookie`.
#[cfg(target_os = "linux")]
fn marked(cookie: &str) -> Vec<String> {
    let needle = format!("{COOKIE_VAR}={cookie}").into_bytes();
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.bytes().all(|b| b.is_ascii_digit()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == needle.as_slice()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::plain_words;

    #[test]
    fn plain_commands_are_split_like_a_shell_and_the_rest_goes_to_sh() {
        let w = |c: &str| plain_words(c).map(|v| v.join("|"));
        assert_eq!(w("junqi engine --agent search:3").as_deref(), Some("junqi|engine|--agent|search:3"));
        assert_eq!(w("  python3  'my engine.py' \"a \\\"b\\\"\" c\\ d ").as_deref(), Some("python3|my engine.py|a \"b\"|c d"));
        assert_eq!(w("prog ''").as_deref(), Some("prog|"));
        assert_eq!(w("prog --x=1").as_deref(), Some("prog|--x=1"));
        for shell in [
            "a | b", "a && b", "a; b", "a > f", "exec a", "A=1 a", "a $HOME", "a *.py", "~/a", "a 'open",
            "a \"$x\"", "(a)", "a `b`", "", "   ", "a\nb", "cd dir", "ulimit -v 1000",
        ] {
            assert_eq!(plain_words(shell), None, "{shell:?}");
        }
    }
}
