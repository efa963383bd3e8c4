//! The bridge: a local engine plays a seat of a junqi-web game through the server's
//! seat-token HTTP API (docs/web.md), the way lichess-bot plays lichess with a UCI
//! engine. The bridge is the referee side of the protocol for its engine: it tells it
//! the seat's events and view string (as the server gives them to the seat) and sends
//! the engine's deployment and actions back. A minimal HTTP/1.1 client over
//! `TcpStream` (std only); it polls the seat's state.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::referee::{EngineProcess, Failure};
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

/// How a bridged game ended for the seat.
#[derive(Debug)]
pub struct Bridged {
    /// The seat played.
    pub seat: Side,
    /// The final state, as the server gave it to the seat.
    pub state: Value,
    /// The engine's failure, if it failed (the bridge then resigned the seat).
    pub failure: Option<Failure>,
}

/// Plays the seat with `engine` until the game is over (polling every `poll`).
pub fn run(link: &SeatLink, engine: &mut EngineProcess, poll: Duration) -> Result<Bridged, String> {
    let path = format!("/api/games/{}?svg=0", link.game);
    let get = || -> Result<Value, String> {
        match http(&link.host, "GET", &path, &link.token, None)? {
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
    let mut state = get()?;
    let seat = state["seat"].as_str().and_then(Side::from_name).ok_or("the link is not a seat's")?;
    let rules = state["rules"].as_str().ok_or("the state names no rule set")?.to_owned();
    let mut told = 0usize;
    let resign = |f: Failure, state: Value| -> Result<Bridged, String> {
        let _ = post("resign", json!({}));
        Ok(Bridged { seat, state, failure: Some(f) })
    };
    if let Err(f) = engine.send(&format!("newgame {} {rules}", side_letter(seat))) {
        return resign(f, state);
    }
    let mut acted_version = None;
    loop {
        let events = state["events"].as_array().cloned().unwrap_or_default();
        for e in events.iter().skip(told) {
            if let Err(f) = engine.send(&format!("event {}", e["event"])) {
                return resign(f, state);
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
            return Ok(Bridged { seat, state, failure: None });
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
        let me = Some(seat.name());
        if acted_version != version && state["phase"] == "deploy" && !deployed {
            let ms = budget.as_millis();
            let answer = match engine.ask(&format!("deploy {ms}"), "setup", budget) {
                Ok(a) => a,
                Err(f) => return resign(f, state),
            };
            let body = if answer.trim() == "random" {
                json!({"random": true})
            } else {
                match serde_json::from_str::<Value>(&answer) {
                    Ok(v) => json!({"setup": v}),
                    Err(e) => return resign(Failure::Garbage(e.to_string()), state),
                }
            };
            if let Err(e) = post("setup", body).and_then(|_| post("confirm", json!({}))) {
                return resign(Failure::Illegal(e), state);
            }
            acted_version = version;
        } else if acted_version != version && matches!(state["phase"].as_str(), Some("move" | "reaction")) && state["to_act"].as_str() == me {
            let view = state["position"].as_str().ok_or("the server sends no view string")?.to_owned();
            let answer = engine
                .send(&format!("position {view}"))
                .and_then(|_| engine.ask(&format!("go {}", budget.as_millis()), "action", budget));
            let answer = match answer {
                Ok(a) => a,
                Err(f) => return resign(f, state),
            };
            if let Err(e) = post("action", json!({"notation": answer.trim()})) {
                return resign(Failure::Illegal(e), state);
            }
            acted_version = version;
        } else {
            std::thread::sleep(poll);
        }
        let t = Instant::now();
        state = get()?;
        let _ = t;
    }
}
