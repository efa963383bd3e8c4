//! The line protocol (docs/protocol.md), both sides, from a session transcript: lines
//! marked `>` are the referee's (fed to the built-in engine, `junqi::protocol::engine`),
//! lines marked `<` an engine's (fed to every parser of the referee side: the bounded
//! line reader, the handshake, the answers, setups and actions played on the game the
//! referee would hold), unmarked lines go to both.
//!
//! Asserts: no panic; the line reader agrees with a model of the framing (`\n`, a `\r`
//! before it, lines over the limit refused, the next line read whole); the engine
//! answers each request with the answer asked for (or `info error …`), always in lines
//! of at most `MAX_LINE` bytes without control characters, and what it answers is
//! legal; what the referee side parses prints back and parses to the same value; a
//! refused answer is a failure with a text and changes nothing; whatever an engine
//! sends, the `gameover` line the referee would send to the others is one clean line.
//!
//! The first byte chooses the engine's agent (random or greedy) and the line limit of
//! the framing check (1 to 128 bytes). The referee's lines include those of draws
//! (`draw <ms>`, an engine's `draw offer` before its action, `setoption draw offer`)
//! and of a game clock (`clock <left> <increment>`), and the engine's own `setup` and
//! `event` lines, from which it builds its information state.
#![no_main]
use std::cell::Cell;
use std::io::{BufRead, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use junqi::protocol::engine;
use junqi::protocol::referee::{answer, apply_action, apply_setup, handshake_line, Failure, Handshake, Played};
use junqi::protocol::{parse_rules_field, read_line, skip_line, Line, MAX_LINE};
use junqi::{Action, AgentSpec, Game, Phase, RuleSet, Setup, Side};
use junqi_fuzz::{check_record, snapshot, unchanged};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, text)) = data.split_first() else { return };
    framing(text, 1 + (choice >> 1) as usize);
    // (to the engine, to the referee, the line)
    let session: Vec<(bool, bool, &[u8])> = text
        .split(|b| *b == b'\n')
        .map(|line| match line {
            [b'>', rest @ ..] => (true, false, rest.strip_prefix(b" ").unwrap_or(rest)),
            [b'<', rest @ ..] => (false, true, rest.strip_prefix(b" ").unwrap_or(rest)),
            _ => (true, true, line),
        })
        .collect();
    let agent = if choice & 1 == 0 { AgentSpec::Random } else { AgentSpec::GREEDY };
    let to_engine: Vec<&[u8]> = session.iter().filter(|l| l.0).map(|l| l.2).collect();
    engine_side(agent, &to_engine);
    referee_side(&session);
});

/// A line one side may send the other: at most `MAX_LINE` bytes, no control character
/// (nothing that a reader could take for the end of a line).
fn clean(line: &str) -> bool {
    line.len() <= MAX_LINE && !line.chars().any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
}

/// `read_line` (then `skip_line` after a line over the limit, as the engine reads)
/// against a model: lines end at `\n`, a `\r` before it is dropped, a line longer than
/// `max` is refused and the reading resumes after it.
fn framing(input: &[u8], max: usize) {
    let mut expected = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (line, after) = match rest.iter().position(|b| *b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        expected.push(if line.len() > max {
            Line::TooLong
        } else {
            Line::Text(String::from_utf8_lossy(line).into_owned())
        });
        rest = after;
    }
    let mut r = std::io::BufReader::with_capacity(7, input);
    let mut got = Vec::new();
    while let Some(line) = read_line(&mut r, max).expect("reading a slice") {
        if line == Line::TooLong {
            skip_line(&mut r).expect("reading a slice");
        }
        got.push(line);
    }
    assert_eq!(got, expected, "framing with lines of at most {max} bytes");
}

/// Input for the engine that counts the newlines it has handed out, so that each answer
/// is matched with the request it answers (the engine answers before reading on).
struct Counting<'a> {
    data: &'a [u8],
    lines: Rc<Cell<usize>>,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Counting<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        // Never past a newline: a line is handed out whole before the next begins.
        let end = self.data.iter().position(|b| *b == b'\n').map_or(self.data.len(), |i| i + 1);
        Ok(&self.data[..end])
    }

    fn consume(&mut self, n: usize) {
        self.lines.set(self.lines.get() + self.data[..n].iter().filter(|b| **b == b'\n').count());
        self.data = &self.data[n..];
    }
}

/// Output of the engine, each line tagged with the number of input lines read by then.
struct Tagged {
    lines: Rc<Cell<usize>>,
    partial: Vec<u8>,
    out: Vec<(usize, String)>,
}

impl Write for Tagged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let text = String::from_utf8(std::mem::take(&mut self.partial)).expect("the engine writes UTF-8");
                self.out.push((self.lines.get(), text));
            } else {
                self.partial.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a seat knows by a given line, as the referee told it.
#[derive(Clone)]
struct Seat {
    rules: Option<Arc<RuleSet>>,
    seat: Side,
    view: Option<String>,
}

impl Seat {
    fn new() -> Seat {
        Seat { rules: None, seat: Side::South, view: None }
    }

    /// Follows one referee line as the engine does.
    fn hear(&mut self, line: &str) {
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        match cmd {
            "newgame" => {
                let (s, r) = rest.split_once(' ').unwrap_or((rest, ""));
                if let (Some(s), Ok(r)) = (Side::from_name(s), parse_rules_field(r)) {
                    if r.sides().contains(&s) {
                        *self = Seat { rules: Some(r), seat: s, view: None };
                    }
                }
            }
            "position" => self.view = Some(rest.to_owned()),
            _ => {}
        }
    }

    /// The game the seat knows (from its view string), if it reads.
    fn game(&self) -> Option<Game> {
        Game::from_position_string_with(self.rules.clone()?, self.view.as_deref()?, 0).ok()
    }
}

/// The built-in engine over the referee lines: each request gets the answer asked for.
fn engine_side(agent: AgentSpec, lines: &[&[u8]]) {
    let mut input = Vec::new();
    for line in lines {
        let line = String::from_utf8_lossy(line);
        // A referee may ask for any agent; a search would make a slow fuzz target.
        if let Some(spec) = line.strip_prefix("setoption agent ") {
            if let Ok(s) = spec.parse::<AgentSpec>() {
                assert_eq!(s.to_string().parse::<AgentSpec>().unwrap(), s, "agent spec {spec:?}");
                if !matches!(s, AgentSpec::Random | AgentSpec::Greedy { .. }) {
                    continue;
                }
            }
        }
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let counter = Rc::new(Cell::new(0));
    let mut out = Tagged { lines: counter.clone(), partial: Vec::new(), out: Vec::new() };
    engine::run(agent, Counting { data: &input, lines: counter }, &mut out).expect("the engine reads any input");
    assert!(out.partial.is_empty(), "an unfinished line");
    // The requests as the engine reads them: a `\r` before the `\n` dropped.
    let requests: Vec<&str> = input
        .split(|b| *b == b'\n')
        .map(|l| std::str::from_utf8(l.strip_suffix(b"\r").unwrap_or(l)).unwrap())
        .collect();
    let mut seat = Seat::new();
    let mut at = 0;
    for (i, request) in requests.iter().enumerate() {
        // The answers to request i were written once i + 1 lines were read.
        let start = at;
        while at < out.out.len() && out.out[at].0 == i + 1 {
            at += 1;
        }
        let answers: Vec<&str> = out.out[start..at].iter().map(|(_, t)| t.as_str()).collect();
        for a in &answers {
            assert!(clean(a), "answer {a:?} to {request:?}");
        }
        let (cmd, rest) = request.split_once(' ').unwrap_or((request, ""));
        // Other `info` lines (the engine telling why it acts from the view string
        // alone: events that do not lead to the view) are for logs.
        let answers: Vec<&str> =
            answers.into_iter().filter(|a| a.starts_with("info error ") || !a.starts_with("info ")).collect();
        let errors = answers.iter().filter(|a| a.starts_with("info error ")).count();
        let replies: Vec<&str> = answers.iter().copied().filter(|a| !a.starts_with("info error ")).collect();
        match cmd {
            "junqi" => {
                assert_eq!(errors, usize::from(rest.trim() != "1"), "{request:?}: {answers:?}");
                assert!(replies.len() >= 3, "{answers:?}");
                assert!(replies[0].starts_with("id name ") && replies.last() == Some(&"ready"), "{answers:?}");
                for r in &replies[..replies.len() - 1] {
                    match handshake_line(r).expect("a handshake line reads") {
                        Handshake::Name(n) => assert_eq!(format!("id name {n}"), *r),
                        Handshake::Option(o) => assert_eq!(o.line(), *r),
                        Handshake::Other => assert!(r.starts_with("id author ")),
                        Handshake::Ready => panic!("ready before the end"),
                    }
                }
            }
            "deploy" => {
                assert_eq!(answers.len(), 1, "{request:?}: {answers:?}");
                if let Some(json) = answers[0].strip_prefix("setup ") {
                    let rules = seat.rules.as_ref().expect("a setup without a rule set");
                    let setup = Setup::from_json(json).expect("the engine's setup reads");
                    setup.validate(rules, seat.seat).expect("the engine's setup is legal");
                } else {
                    assert!(errors == 1 && seat.rules.as_ref().is_none_or(|r| r.deals()), "{request:?}: {answers:?}");
                }
            }
            "go" | "draw" => {
                // A draw may be offered with an action (the engine's `draw` option).
                let answers: Vec<&str> = match answers.as_slice() {
                    ["draw offer", action] if cmd == "go" && action.starts_with("action ") => vec![action],
                    other => other.to_vec(),
                };
                assert_eq!(answers.len(), 1, "{request:?}: {answers:?}");
                let game = seat.game();
                if cmd == "draw" {
                    assert!(matches!(answers[0], "draw accept" | "draw decline") || game.is_none(), "{answers:?}");
                } else if let Some(notation) = answers[0].strip_prefix("action ") {
                    let game = game.expect("an action without a position");
                    let a = Action::parse(game.board(), notation).expect("the engine's action reads");
                    assert!(game.legal_actions().contains(&a), "{notation} is not legal in {:?}", seat.view);
                    assert_eq!(game.to_act(), Some(seat.seat));
                } else {
                    assert_eq!(errors, 1, "{answers:?}");
                    let acts = |g: Game| g.to_act() == Some(seat.seat) && !g.legal_actions().is_empty();
                    assert!(!game.is_some_and(acts), "{request:?}: {answers:?}");
                }
            }
            "quit" => {
                assert!(answers.is_empty() && at == out.out.len(), "output after quit");
                break;
            }
            // No answer to anything else, at most an error.
            _ => assert!(replies.is_empty() && errors <= 1, "{request:?}: {answers:?}"),
        }
        seat.hear(request);
    }
}

/// A failure names itself with a text, and the `gameover` line telling the others about
/// it is one clean line.
fn check_failure(f: Failure, game: &Game, side: Side) {
    let text = f.to_string();
    assert!(text.len() > f.name().len() || matches!(f, Failure::Timeout | Failure::Crash | Failure::LineTooLong));
    assert!(clean(&text) && text.len() < 10_000, "failure text {text:?}");
    let played = Played { game: game.clone(), failure: Some((side, f)), capped: false };
    let line = played.gameover_line();
    assert!(clean(&line), "{line:?}");
    assert!(line.starts_with("gameover "));
}

/// The referee side over an engine's lines, in the session's order: each answer is
/// about what the referee told the engine last (its rule set, seat and position).
fn referee_side(session: &[(bool, bool, &[u8])]) {
    let mut seat = Seat::new();
    let mut fresh: Option<Game> = None;
    let mut game: Option<Game> = None;
    for (n, &(engine_hears, referee_reads, raw)) in session.iter().enumerate() {
        // As both sides read it: a `\r` before the `\n` dropped.
        let line = String::from_utf8_lossy(raw.strip_suffix(b"\r").unwrap_or(raw));
        if engine_hears {
            seat.hear(&line);
            if line.starts_with("newgame ") || line.starts_with("position ") {
                game = seat.game();
                fresh = None;
            }
        }
        if !referee_reads {
            continue;
        }
        let rules = seat.rules.clone().unwrap_or_else(|| RuleSet::preset("classic").unwrap());
        let fresh = fresh.get_or_insert_with(|| Game::with_rules(rules.clone(), 7));
        match handshake_line(&line) {
            Ok(Handshake::Option(o)) => {
                assert_eq!(handshake_line(&o.line()), Ok(Handshake::Option(o.clone())), "{line:?}");
                assert!(!o.name.is_empty() && !o.name.contains(char::is_whitespace));
            }
            Ok(Handshake::Name(name)) => assert_eq!(format!("id name {name}"), line),
            Ok(Handshake::Ready | Handshake::Other) => {}
            Err(f) => {
                assert!(matches!(f, Failure::Garbage(_)) && line.split_whitespace().count() < 3, "{line:?}");
                check_failure(f, fresh, Side::South);
            }
        }
        for word in ["setup", "action", "draw"] {
            match answer(&line, word) {
                Ok(rest) => assert_eq!(format!("{word} {rest}"), line),
                Err(f) => check_failure(f, fresh, Side::South),
            }
        }
        if let Ok(json) = answer(&line, "setup") {
            let side = if rules.sides().contains(&seat.seat) { seat.seat } else { rules.sides()[0] };
            if fresh.phase() == Phase::Deploy {
                let before = snapshot(fresh);
                match apply_setup(fresh, side, json, n as u64) {
                    Ok(()) => assert!(!unchanged(fresh, &before), "a setup played nothing"),
                    Err(f) => {
                        assert!(unchanged(fresh, &before), "a refused setup changed the game");
                        check_failure(f, fresh, side);
                    }
                }
            }
        }
        if let (Ok(notation), Some(g)) = (answer(&line, "action"), game.as_mut()) {
            let before = snapshot(g);
            let legal = g.legal_actions();
            let to_act = g.to_act();
            match apply_action(g, seat.seat, notation) {
                Ok(()) => {
                    let a = Action::parse(g.board(), notation.trim()).expect("a played action reads");
                    assert!(legal.contains(&a) && to_act == Some(seat.seat), "{notation:?} played");
                    check_record(g);
                }
                Err(f) => {
                    assert!(unchanged(g, &before), "a refused action changed the game");
                    check_failure(f, g, seat.seat);
                }
            }
        }
    }
}
