//! A bounded load test of the web referee on loopback (run by `scripts/web-load`).
//!
//! Runs `--games` games at once, each driven through the HTTP API by its own client
//! task on its own kept-alive connection: both seats are human seats, the client
//! confirms random setups and then, for the seat to act, fetches that seat's state
//! (`GET /api/games/{id}`: view, legal actions, the new events) and plays one of its
//! legal actions at random (`POST …/action`), until the game ends or `--moves`
//! actions. Reports moves per second and the latency of a move (the action request)
//! and of a state request, median and p99.
//!
//! The server under test is, by default, this crate's server in this process with a
//! fresh SQLite file. `--server-bin PATH` starts that binary instead (another build,
//! e.g. an older one, measured by the same client) as its own process; `--postgres`
//! starts a PostgreSQL of its own (tests/common/pg.rs, durable: PostgreSQL's default
//! commit flush) and `--processes N` server processes on it. With several processes,
//! `--route seat` (the default) sends each seat's requests to its own process, as if
//! the two players were connected to different processes: every move then crosses
//! processes (written by one, announced to the other by NOTIFY); `--route game` sends
//! each game to one process.
//!
//! `cargo run --release -p junqi-web --features load --example load -- [--games 200]
//! [--moves 150] [--rules classic] [--svg] [--server-bin PATH] [--postgres]
//! [--processes N] [--route seat|game] [--server HOST:PORT …] [--rate MOVES_PER_S]`
//! (`--server`: servers already running, one option each).
//!
//! By default every game moves as soon as its last move is answered: the server is
//! saturated and the latency is mostly waiting in line (with N games in flight at R
//! requests/s a request waits about N/R). `--rate R` paces the games instead — each
//! moves once every `games / R` seconds, as players who think do — and measures the
//! latency at that load. The clock starts once every game is made and deployed.

#[path = "../tests/common/http.rs"]
mod http;
#[path = "../tests/common/pg.rs"]
mod pg;

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http::Client;
use serde_json::json;

struct Opts {
    games: usize,
    moves: usize,
    rules: String,
    svg: bool,
    server_bin: Option<String>,
    servers: Vec<SocketAddr>,
    postgres: bool,
    processes: usize,
    route_seat: bool,
    rate: f64,
}

fn opts() -> Opts {
    let mut o = Opts {
        games: 200,
        moves: 150,
        rules: "classic".into(),
        svg: false,
        server_bin: None,
        servers: Vec::new(),
        postgres: false,
        processes: 1,
        route_seat: true,
        rate: 0.0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--games" => o.games = value().parse().expect("--games N"),
            "--moves" => o.moves = value().parse().expect("--moves N"),
            "--rules" => o.rules = value(),
            "--svg" => o.svg = true,
            "--no-svg" => o.svg = false,
            "--server-bin" => o.server_bin = Some(value()),
            "--server" => o.servers.push(
                value().trim_start_matches("http://").parse().expect("--server HOST:PORT"),
            ),
            "--postgres" => o.postgres = true,
            "--processes" => o.processes = value().parse().expect("--processes N"),
            "--rate" => o.rate = value().parse().expect("--rate MOVES_PER_SECOND"),
            "--route" => {
                o.route_seat = match value().as_str() {
                    "seat" => true,
                    "game" => false,
                    other => panic!("--route seat|game, not {other}"),
                }
            }
            _ => panic!("unknown option {a}"),
        }
    }
    o
}

/// Latencies of one game's requests.
#[derive(Default)]
struct Stats {
    moves: usize,
    over: bool,
    action: Vec<Duration>,
    state: Vec<Duration>,
    /// State requests answered with a version older than the one the client knew
    /// (another process had not caught up yet).
    stale: usize,
}

/// The parts of a state the client reads (the rest is skipped unparsed: the client
/// shares the machine with the server and should cost it as little as it can).
#[derive(serde::Deserialize, Default)]
struct Seen {
    #[serde(default)]
    phase: String,
    #[serde(default)]
    to_act: Option<String>,
    #[serde(default)]
    seat: Option<String>,
    #[serde(default)]
    version: u64,
    #[serde(default)]
    events_total: Option<u64>,
    #[serde(default)]
    legal: Vec<LegalId>,
}

#[derive(serde::Deserialize)]
struct LegalId {
    id: u64,
}

fn read(body: &str) -> Seen {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not a state ({e}): {body}"))
}

fn playing(s: &Seen) -> bool {
    // "move"/"reaction" today; "play" in older servers.
    matches!(s.phase.as_str(), "move" | "reaction" | "play")
}

/// How a game is driven.
#[derive(Clone)]
struct Drive {
    addrs: Vec<SocketAddr>,
    rules: String,
    max: usize,
    svg: bool,
    route_seat: bool,
    /// Time between two moves of one game (zero: as fast as answers come).
    interval: Duration,
    /// Every game waits here once deployed, so that the moves are timed together.
    ready: std::sync::Arc<tokio::sync::Barrier>,
}

async fn drive(d: Drive, seed: u64) -> Stats {
    let Drive { addrs, rules, max, svg, route_seat, interval, ready } = d;
    let n = addrs.len();
    let mut clients: Vec<Client> = addrs.iter().map(|&a| Client::new(a)).collect();
    let home = (seed as usize) % n;
    let mut stats = Stats::default();
    let r = clients[home]
        .post("/api/games", None, &json!({"rules": rules}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json();
    let id = created["game"].as_str().unwrap().to_owned();
    let sides: Vec<String> = created["seats"].as_object().unwrap().keys().cloned().collect();
    let token = |side: &str| created["seats"][side]["token"].as_str().unwrap().to_owned();
    // Which process a seat's requests go to.
    let route = |side: &str| {
        if route_seat && n > 1 {
            sides.iter().position(|s| s == side).unwrap() % n
        } else {
            home
        }
    };
    let q = if svg { "?svg=1" } else { "?svg=0" };
    let mut last = Seen::default();
    for side in &sides {
        let r = clients[route(side)]
            .post(&format!("/api/games/{id}/confirm{q}"), Some(&token(side)), "")
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        last = read(&r.body);
    }
    let mut rng = seed | 1;
    let mut version = last.version;
    ready.wait().await;
    // Paced games start spread over one interval, then move once per interval.
    let mut next = tokio::time::Instant::now() + interval.mul_f64((seed % 1000) as f64 / 1000.0);
    // Each seat's events so far: a state request asks only for the new ones, as the
    // page does (an older server ignores the parameter and sends them all).
    let mut seen: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    while stats.moves < max {
        if !interval.is_zero() {
            tokio::time::sleep_until(next).await;
            next += interval;
        }
        if !playing(&last) {
            stats.over = last.phase == "over";
            break;
        }
        let to_act = last.to_act.clone().expect("a seat to act");
        let t = token(&to_act);
        let c = &mut clients[route(&to_act)];
        if last.seat.as_deref() != Some(to_act.as_str()) {
            // The seat to act reads its state (its process may be catching up).
            loop {
                let start = Instant::now();
                let from = seen.get(&to_act).copied().unwrap_or(0);
                let r = c.get(&format!("/api/games/{id}{q}&events_from={from}"), Some(&t)).await;
                stats.state.push(start.elapsed());
                assert_eq!(r.status, 200, "{}", r.body);
                last = read(&r.body);
                if let Some(total) = last.events_total {
                    seen.insert(to_act.clone(), total);
                }
                if last.version >= version {
                    break;
                }
                stats.stale += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            if !playing(&last) {
                continue;
            }
        }
        let legal = &last.legal;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let a = &legal[(rng % legal.len() as u64) as usize];
        let body = format!("{{\"id\": {}}}", a.id);
        let start = Instant::now();
        let from = seen.get(&to_act).copied().unwrap_or(0);
        let r = c
            .post(&format!("/api/games/{id}/action{q}&events_from={from}"), Some(&t), &body)
            .await;
        stats.action.push(start.elapsed());
        assert_eq!(r.status, 200, "{}", r.body);
        last = read(&r.body);
        if let Some(total) = last.events_total {
            seen.insert(to_act.clone(), total);
        }
        version = last.version.max(version + 1);
        stats.moves += 1;
    }
    stats
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// A server process of `bin` on `db`, with limits for one client address holding a
/// connection per game and process.
fn spawn(bin: &str, db: &str, games: usize) -> (Child, SocketAddr) {
    let cap = (games * 2 + 64).to_string();
    let mut child = Command::new(bin)
        .args(["--port", "0", "--db", db, "--max-connections", &cap, "--max-connections-per-address", &cap])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{bin}: {line:?}"))
        .parse()
        .unwrap();
    (child, addr)
}

fn main() {
    let o = opts();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let db_file = std::env::temp_dir().join(format!("junqi-web-load-{}.sqlite", std::process::id()));
        let pg = o.postgres.then(|| pg::Pg::start(true));
        let db = match &pg {
            Some(pg) => pg.database("load"),
            None => db_file.display().to_string(),
        };
        let mut children = Vec::new();
        let mut addrs = Vec::new();
        let mut in_process = None;
        let bin = o.server_bin.clone().or_else(|| {
            // Several processes of this build: the junqi-web binary beside this example.
            (o.processes > 1 || o.postgres).then(|| {
                let exe = std::env::current_exe().unwrap();
                let p = exe.parent().unwrap().parent().unwrap().join("junqi-web");
                assert!(p.exists(), "build the server first: cargo build --release -p junqi-web ({p:?})");
                p.display().to_string()
            })
        });
        match &bin {
            _ if !o.servers.is_empty() => addrs = o.servers.clone(),
            Some(bin) => {
                for _ in 0..o.processes {
                    let (child, addr) = spawn(bin, &db, o.games);
                    children.push(child);
                    addrs.push(addr);
                }
            }
            None => {
                let config = junqi_web::Config {
                    port: 0,
                    db: db.clone(),
                    limits: junqi_web::limits::Limits {
                        max_connections: (o.games * 2 + 64).max(512),
                        max_connections_per_address: o.games * 2 + 64,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                let server = junqi_web::start(config).await.expect("server");
                addrs.push(server.addr);
                in_process = Some(server);
            }
        }
        println!(
            "{} games of {} at once, up to {} moves each, svg {}; server: {} ({} process{}, {}{})",
            o.games,
            o.rules,
            o.moves,
            if o.svg { "on" } else { "off" },
            if o.servers.is_empty() { bin.as_deref().unwrap_or("in this process") } else { "already running" },
            addrs.len(),
            if addrs.len() == 1 { "" } else { "es" },
            if pg.is_some() { "PostgreSQL" } else { "SQLite" },
            if addrs.len() > 1 { if o.route_seat { ", each seat on its own process" } else { ", each game on one process" } } else { "" },
        );
        let ready = std::sync::Arc::new(tokio::sync::Barrier::new(o.games + 1));
        let d = Drive {
            addrs: addrs.clone(),
            rules: o.rules.clone(),
            max: o.moves,
            svg: o.svg,
            route_seat: o.route_seat,
            interval: if o.rate > 0.0 { Duration::from_secs_f64(o.games as f64 / o.rate) } else { Duration::ZERO },
            ready: ready.clone(),
        };
        let tasks: Vec<_> = (0..o.games)
            .map(|i| tokio::spawn(drive(d.clone(), 0x9E37_79B9 ^ i as u64)))
            .collect();
        // The games are made and deployed first; the clock runs from their first move.
        ready.wait().await;
        let start = Instant::now();
        if o.rate > 0.0 {
            println!("paced: each game moves every {:?} ({} moves/s asked in all)", d.interval, o.rate);
        }
        let mut all = Stats::default();
        let mut finished = 0;
        for t in tasks {
            let s = t.await.expect("a game task");
            all.moves += s.moves;
            all.stale += s.stale;
            finished += usize::from(s.over);
            all.action.extend(s.action);
            all.state.extend(s.state);
        }
        let secs = start.elapsed().as_secs_f64();
        all.action.sort();
        all.state.sort();
        println!(
            "moves: {} in {secs:.2} s = {:.0} moves/s ({} games ended before the cap)",
            all.moves,
            all.moves as f64 / secs,
            finished
        );
        println!(
            "move (POST action) latency: median {:.2} ms, p99 {:.2} ms",
            percentile(&all.action, 0.5),
            percentile(&all.action, 0.99)
        );
        println!(
            "state (GET game) latency:   median {:.2} ms, p99 {:.2} ms{}",
            percentile(&all.state, 0.5),
            percentile(&all.state, 0.99),
            if all.stale > 0 { format!(" ({} answered before the process caught up, asked again)", all.stale) } else { String::new() }
        );
        if let Some(s) = in_process {
            s.stop();
        }
        for mut c in children {
            let _ = c.kill();
            let _ = c.wait();
        }
        drop(pg);
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db_file.display()));
        }
    });
}
