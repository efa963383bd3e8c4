//! The bridge: a local engine plays a seat of a junqi-web game through the server's
//! seat-token HTTP API (docs/web.md), the way lichess-bot plays lichess with a UCI
//! engine. The bridge is the referee side of the protocol for its engine: it tells it
//! the seat's events and view string (as the server gives them to the seat) and sends
//! the engine's deployment, actions and draw answers back. A minimal HTTP/1.1 client
//! over `TcpStream` (std only). It follows the game's server-sent event stream
//! (`GET /api/games/{id}/events`: a version after every change) and reads the seat's
//! state when the version changes; if the stream cannot be had (the server's stream
//! caps) or breaks, it polls the state instead, and tries the stream again now and then.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::referee::{EngineLink, Failure};
use super::side_letter;
use crate::Side;

/// Where a seat is: the server (`http://host:port`), the game id and the seat token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatLink {
    /// `host:port` of the server.
    pub host: String,
    /// The game id.
    pub game: String,
    /// The seat's token.
    pub token: String,
}

impl SeatLink {
    /// Reads `--server http://HOST:PORT` and a seat link `/play/ID?token=T` (or the whole
    /// URL of the link). Only `http://` is spoken: keep the bridge on loopback or behind a
    /// TLS-terminating proxy on the same machine.
    pub fn parse(server: &str, link: &str) -> Result<SeatLink, String> {
        let strip = |u: &str| u.strip_prefix("http://").map(str::to_owned);
        let host = strip(server)
            .ok_or_else(|| format!("--server {server:?} is not http://HOST:PORT"))?
            .trim_end_matches('/')
            .to_owned();
        let path = match strip(link) {
            Some(rest) => rest.split_once('/').map(|(_, p)| format!("/{p}")).unwrap_or_default(),
            None => link.to_owned(),
        };
        let (p, query) = path.split_once('?').ok_or_else(|| format!("seat link {link:?} has no ?token="))?;
        let game = p.strip_prefix("/play/").ok_or_else(|| format!("seat link {link:?} is not /play/ID?token=T"))?;
        let token = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("token="))
            .ok_or_else(|| format!("seat link {link:?} has no token"))?;
        let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !ok(game) || !ok(token) {
            return Err(format!("seat link {link:?}: bad game id or token"));
        }
        Ok(SeatLink { host, game: game.to_owned(), token: token.to_owned() })
    }
}

/// Longest HTTP response read (bytes).
const MAX_RESPONSE: u64 = 8 << 20;

/// One HTTP/1.1 request (`Connection: close`); the status and the body as JSON.
pub fn http(host: &str, method: &str, path: &str, token: &str, body: Option<&Value>) -> Result<(u16, Value), String> {
    let mut s = TcpStream::connect(host).map_err(|e| format!("connecting to {host}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| format!("sending to {host}: {e}"))?;
    let mut raw = Vec::new();
    s.take(MAX_RESPONSE).read_to_end(&mut raw).map_err(|e| format!("reading from {host}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, rest) = text.split_once("\r\n\r\n").ok_or("a response without headers")?;
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("not an HTTP response: {:?}", head.lines().next()))?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = if chunked { dechunk(rest)? } else { rest.to_owned() };
    let value = if body.trim().is_empty() { Value::Null } else { serde_json::from_str(&body).map_err(|e| e.to_string())? };
    Ok((status, value))
}

fn dechunk(mut rest: &str) -> Result<String, String> {
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n").ok_or("a broken chunked body")?;
        let n = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16).map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(out);
        }
        out.push_str(after.get(..n).ok_or("a short chunk")?);
        rest = after.get(n + 2..).ok_or("a short chunk")?;
    }
}

/// A body sent with `Transfer-Encoding: chunked`, read as the bytes it carries.
struct Dechunk<R> {
    inner: R,
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Dechunk<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut size = String::new();
            // A chunk size line is short; a longer one is no chunked body.
            (&mut self.inner).take(1024).read_line(&mut size)?;
            let hex = size.split(';').next().unwrap_or("").trim();
            if hex.is_empty() && size.is_empty() {
                self.done = true;
                return Ok(0);
            }
            self.left = usize::from_str_radix(hex, 16)
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "a broken chunked body"))?;
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let want = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            self.done = true;
            return Ok(0);
        }
        self.left -= n;
        if self.left == 0 {
            let mut crlf = String::new();
            (&mut self.inner).take(2).read_line(&mut crlf)?;
        }
        Ok(n)
    }
}

/// What the event stream tells: a version of the game, or that it ended (why).
enum Update {
    Version(u64),
    Closed(String),
}

/// The game's server-sent event stream, read by a thread into a channel.
struct EventStream {
    updates: Receiver<Update>,
    socket: TcpStream,
}

/// Longest line of an event stream read (bytes): an update is a few dozen.
const MAX_EVENT_LINE: u64 = 4096;

impl EventStream {
    /// Opens `GET /api/games/{id}/events` with the seat's token; refused unless the
    /// server answers `200` with an event stream.
    fn open(link: &SeatLink) -> Result<EventStream, String> {
        let host = &link.host;
        let mut s = TcpStream::connect(host).map_err(|e| format!("connecting to {host}: {e}"))?;
        // The server sends a keep-alive comment every 15 s: a minute of silence is a
        // dead stream.
        s.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
        let req = format!(
            "GET /api/games/{}/events HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\n\
             Accept: text/event-stream\r\nConnection: close\r\n\r\n",
            link.game, link.token
        );
        s.write_all(req.as_bytes()).map_err(|e| format!("sending to {host}: {e}"))?;
        let socket = s.try_clone().map_err(|e| e.to_string())?;
        let mut r = BufReader::new(s);
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            if (&mut r).take(MAX_EVENT_LINE).read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the event stream closed before its headers".into());
            }
            if line.trim_end().is_empty() {
                break;
            }
            head.push(line.trim_end().to_ascii_lowercase());
            if head.len() > 100 {
                return Err("an event stream with too many headers".into());
            }
        }
        let status = head.first().and_then(|l| l.split(' ').nth(1)).unwrap_or("");
        if status != "200" || !head.iter().any(|h| h.starts_with("content-type:") && h.contains("text/event-stream")) {
            return Err(format!("the event stream was refused: {}", head.first().map_or("", String::as_str)));
        }
        let chunked = head.iter().any(|h| h.starts_with("transfer-encoding:") && h.contains("chunked"));
        let body: Box<dyn BufRead + Send> =
            if chunked { Box::new(BufReader::new(Dechunk { inner: r, left: 0, done: false })) } else { Box::new(r) };
        let (tx, updates) = channel();
        std::thread::spawn(move || {
            let mut body = body;
            loop {
                let mut line = String::new();
                match (&mut body).take(MAX_EVENT_LINE).read_line(&mut line) {
                    Ok(0) => {
                        let _ = tx.send(Update::Closed("the server closed the event stream".into()));
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let _ = tx.send(Update::Closed(format!("the event stream broke: {e}")));
                        return;
                    }
                }
                let Some(data) = line.trim_end().strip_prefix("data:") else { continue };
                let version = serde_json::from_str::<Value>(data.trim()).ok().and_then(|v| v["version"].as_u64());
                if let Some(v) = version {
                    if tx.send(Update::Version(v)).is_err() {
                        return;
                    }
                }
            }
        });
        Ok(EventStream { updates, socket })
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        // Ends the reading thread.
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }
}

/// How the bridge learns that the game changed: the event stream, or polling.
struct Watch<'a> {
    link: &'a SeatLink,
    stream: Option<EventStream>,
    poll: Duration,
    /// When to try the stream again (while polling).
    retry: Instant,
    /// Whether the stream has been followed (for the report).
    followed: bool,
}

/// How long the bridge waits on a quiet stream before reading the state anyway.
const QUIET: Duration = Duration::from_secs(5);
/// How often a polling bridge tries the event stream again.
const RETRY: Duration = Duration::from_secs(10);

impl Watch<'_> {
    fn open(&mut self) {
        match EventStream::open(self.link) {
            Ok(s) => {
                if !self.followed {
                    eprintln!("junqi bridge: following the game's event stream");
                }
                self.followed = true;
                self.stream = Some(s);
            }
            Err(e) => {
                eprintln!("junqi bridge: {e}; polling the state every {:?}", self.poll);
                self.stream = None;
                self.retry = Instant::now() + RETRY;
            }
        }
    }

    /// Waits until the game may have moved past `version`: a newer version on the
    /// stream (or a quiet stream after [`QUIET`]); while polling, `poll`.
    fn wait(&mut self, version: Option<u64>) {
        if self.stream.is_none() && Instant::now() >= self.retry {
            self.open();
        }
        let Some(s) = &self.stream else {
            std::thread::sleep(self.poll);
            return;
        };
        let until = Instant::now() + QUIET;
        loop {
            match s.updates.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(Update::Version(v)) if version.is_none_or(|known| v > known) => return,
                Ok(Update::Version(_)) => {}
                Ok(Update::Closed(why)) => {
                    eprintln!("junqi bridge: {why}; polling the state every {:?}", self.poll);
                    self.stream = None;
                    self.retry = Instant::now() + RETRY;
                    return;
                }
                Err(RecvTimeoutError::Timeout) => return,
                Err(RecvTimeoutError::Disconnected) => {
                    self.stream = None;
                    self.retry = Instant::now() + RETRY;
                    return;
                }
            }
        }
    }
}

/// How a bridged game ended for the seat.
#[derive(Debug)]
pub struct Bridged {
    /// The seat played.
    pub seat: Side,
    /// The final state, as the server gave it to the seat.
    pub state: Value,
    /// The engine's failure, if it failed (the bridge then resigned the seat).
    pub failure: Option<Failure>,
    /// Whether the bridge followed the game's event stream (else it polled).
    pub followed_stream: bool,
}

/// Plays the seat with `engine` until the game is over, following the game's event
/// stream (polling every `poll` when the stream cannot be had). The engine is told the
/// seat's events, its own setup (from the seat's player record), its view string and
/// `go` when it must act, and `draw` when another team offers one; its deployment,
/// actions, draw offers and answers go to the server.
pub fn run<L: EngineLink>(link: &SeatLink, engine: &mut L, poll: Duration) -> Result<Bridged, String> {
    let path = format!("/api/games/{}?svg=0", link.game);
    let get = |path: &str| -> Result<Value, String> {
        match http(&link.host, "GET", path, &link.token, None)? {
            (200, v) => Ok(v),
            (code, v) => Err(format!("GET {path}: {code} {v}")),
        }
    };
    let post = |what: &str, body: Value| -> Result<Value, String> {
        let p = format!("/api/games/{}/{what}", link.game);
        match http(&link.host, "POST", &p, &link.token, Some(&body))? {
            (200, v) => Ok(v),
            (code, v) => Err(format!("POST {p}: {code} {v}")),
        }
    };
    let mut watch = Watch { link, stream: None, poll, retry: Instant::now(), followed: false };
    watch.open();
    let mut state = get(&path)?;
    let seat = state["seat"].as_str().and_then(Side::from_name).ok_or("the link is not a seat's")?;
    let rules = state["rules"].as_str().ok_or("the state names no rule set")?.to_owned();
    // The seat's team, where the rule set is a preset (a partner's offer is not the
    // seat's to answer).
    let team = crate::RuleSet::preset(&rules).ok().map(|r| r.team_of(seat));
    let mut told = 0usize;
    let followed = |w: &Watch| w.followed;
    let resign = |f: Failure, state: Value, w: &Watch| -> Result<Bridged, String> {
        let _ = post("resign", json!({}));
        Ok(Bridged { seat, state, failure: Some(f), followed_stream: followed(w) })
    };
    // The server keeps the game's seed: the engine's own seed for the game is fresh
    // from the operating system (so that its games differ).
    let newgame = format!("newgame {} {rules}", side_letter(seat));
    if let Err(f) = engine.send(&newgame).and_then(|_| engine.send(&format!("seed {}", crate::random_seed()))) {
        return resign(f, state, &watch);
    }
    let mut acted_version = None;
    let mut answered_offer = None;
    let mut setup_told = false;
    loop {
        let events = state["events"].as_array().cloned().unwrap_or_default();
        for e in events.iter().skip(told) {
            if let Err(f) = engine.send(&format!("event {}", e["event"])) {
                return resign(f, state, &watch);
            }
        }
        told = told.max(events.len());
        if state["phase"] == "over" {
            let winners: String = state["result"]["winners"]
                .as_array()
                .map(|w| w.iter().filter_map(|s| s.as_str().and_then(Side::from_name)).map(side_letter).collect())
                .unwrap_or_default();
            let reason = state["result"]["reason"].as_str().unwrap_or("over");
            let _ = engine.send(&format!("gameover {} {reason}", if winners.is_empty() { "-" } else { &winners }));
            return Ok(Bridged { seat, state, failure: None, followed_stream: watch.followed });
        }
        let version = state["version"].as_u64();
        let budget = state["clock"]["deadline_ms"]
            .as_u64()
            .and_then(|d| {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as u64;
                // Keep a margin for the round trip.
                Some(Duration::from_millis(d.saturating_sub(now).saturating_sub(500).max(100)))
            })
            .unwrap_or(Duration::from_secs(10));
        let deployed = state["deployed"].as_array().is_some_and(|d| d.iter().any(|s| s == seat.name()));
        if deployed && !setup_told {
            // The seat's own setup, as its player record holds it (none when dealt).
            setup_told = true;
            if let Ok(record) = get(&format!("/api/games/{}/record", link.game)) {
                if record["setup"].is_object() {
                    if let Err(f) = engine.send(&format!("setup {}", record["setup"])) {
                        return resign(f, state, &watch);
                    }
                }
            }
        }
        let me = Some(seat.name());
        let playing = matches!(state["phase"].as_str(), Some("move" | "reaction"));
        let offer = state["draw_offer"].as_str().and_then(Side::from_name);
        let mut acted = false;
        let other_team = offer.is_some_and(|o| o != seat && team.is_none_or(|t| !t.contains(o)));
        if playing && other_team && answered_offer != version {
            // Another seat offers a draw: the engine answers with what it sees now.
            let view = state["position"].as_str().ok_or("the server sends no view string")?.to_owned();
            let answer = engine
                .send(&format!("position {view}"))
                .and_then(|_| engine.ask(&format!("draw {}", budget.as_millis()), "draw", budget));
            let answer = match answer {
                Ok(a) => a,
                Err(f) => return resign(f, state, &watch),
            };
            let body = match answer.trim() {
                "accept" => json!({"accept": true}),
                "decline" => json!({"decline": true}),
                other => return resign(Failure::Garbage(format!("draw {other}")), state, &watch),
            };
            // Refused when the offer lapsed meanwhile (a move, a time-out): no harm.
            let _ = post("draw", body);
            answered_offer = version;
            acted = true;
        } else if acted_version != version && state["phase"] == "deploy" && !deployed {
            let ms = budget.as_millis();
            let answer = match engine.ask(&format!("deploy {ms}"), "setup", budget) {
                Ok(a) => a,
                Err(f) => return resign(f, state, &watch),
            };
            let body = if answer.trim() == "random" {
                json!({"random": true})
            } else {
                match serde_json::from_str::<Value>(&answer) {
                    Ok(v) => json!({"setup": v}),
                    Err(e) => return resign(Failure::Garbage(e.to_string()), state, &watch),
                }
            };
            if let Err(e) = post("setup", body).and_then(|_| post("confirm", json!({}))) {
                return resign(Failure::Illegal(e), state, &watch);
            }
            acted_version = version;
            acted = true;
        } else if acted_version != version && playing && state["to_act"].as_str() == me {
            let view = state["position"].as_str().ok_or("the server sends no view string")?.to_owned();
            let answer = engine.send(&format!("position {view}")).and_then(|_| {
                let deadline = Instant::now() + budget + super::referee::GRACE;
                engine.send(&format!("go {}", budget.as_millis()))?;
                let mut offered = false;
                loop {
                    let line = engine.next_line(deadline)?;
                    if line.trim_end() == "draw offer" && !offered {
                        offered = true;
                        continue;
                    }
                    return match super::referee::answer(&line, "action") {
                        Ok(rest) => Ok((rest.to_owned(), offered)),
                        Err(f) => Err(engine.fail(f)),
                    };
                }
            });
            let (answer, offered) = match answer {
                Ok(a) => a,
                Err(f) => return resign(f, state, &watch),
            };
            let after = match post("action", json!({"notation": answer.trim()})) {
                Ok(v) => v,
                Err(e) => return resign(Failure::Illegal(e), state, &watch),
            };
            if offered && after["phase"] != "over" {
                let _ = post("draw", json!({"offer": true}));
            }
            acted_version = version;
            acted = true;
        }
        if !acted {
            watch.wait(version);
        }
        state = get(&path)?;
    }
}
