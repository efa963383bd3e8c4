//! A bounded load test of the web referee on loopback (run by `scripts/web-load`).
//!
//! Starts the server in this process (loopback, port 0, a fresh SQLite file), then runs
//! `--games` games at once, each driven through the HTTP API by its own client task:
//! both seats are "human", the client confirms random setups and then, for the seat to
//! act, fetches that seat's state (`GET /api/games/{id}`, the view and legal actions)
//! and plays one of its legal actions at random (`POST …/action`), until the game ends
//! or `--moves` actions. Reports moves per second and the latency of a move (the
//! action request), median and p99.
//!
//! `cargo run --release -p junqi-web --features load --example load -- [--games 200] [--moves 150]
//! [--rules classic] [--no-svg]`

#[path = "../tests/common/http.rs"]
mod http;

use std::time::{Duration, Instant};

use http::Client;
use serde_json::{json, Value};

struct Opts {
    games: usize,
    moves: usize,
    rules: String,
    svg: bool,
}

fn opts() -> Opts {
    let mut o = Opts {
        games: 200,
        moves: 150,
        rules: "classic".into(),
        svg: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--games" => o.games = value().parse().expect("--games N"),
            "--moves" => o.moves = value().parse().expect("--moves N"),
            "--rules" => o.rules = value(),
            "--no-svg" => o.svg = false,
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
}

async fn drive(
    addr: std::net::SocketAddr,
    rules: String,
    max: usize,
    svg: bool,
    seed: u64,
) -> Stats {
    let mut c = Client::new(addr);
    let mut stats = Stats::default();
    let r = c
        .post("/api/games", None, &json!({"rules": rules}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json();
    let id = created["game"].as_str().unwrap().to_owned();
    let token = |side: &str| created["seats"][side]["token"].as_str().unwrap().to_owned();
    let q = if svg { "" } else { "?svg=0" };
    let mut last: Value = Value::Null;
    for side in created["seats"].as_object().unwrap().keys() {
        let r = c
            .post(
                &format!("/api/games/{id}/confirm{q}"),
                Some(&token(side)),
                "",
            )
            .await;
        last = r.json();
    }
    let mut rng = seed | 1;
    while stats.moves < max {
        if last["phase"] != "play" {
            stats.over = last["phase"] == "over";
            break;
        }
        let to_act = last["to_act"].as_str().unwrap().to_owned();
        let t = token(&to_act);
        if last["seat"] != json!(to_act) {
            let start = Instant::now();
            let r = c.get(&format!("/api/games/{id}{q}"), Some(&t)).await;
            stats.state.push(start.elapsed());
            last = r.json();
        }
        let legal = last["legal"].as_array().unwrap();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let a = &legal[(rng % legal.len() as u64) as usize];
        let body = json!({"id": a["id"]}).to_string();
        let start = Instant::now();
        let r = c
            .post(&format!("/api/games/{id}/action{q}"), Some(&t), &body)
            .await;
        stats.action.push(start.elapsed());
        assert_eq!(r.status, 200, "{}", r.body);
        last = r.json();
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

fn main() {
    let o = opts();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let db = std::env::temp_dir().join(format!("junqi-web-load-{}.sqlite", std::process::id()));
        let config = junqi_web::Config {
            port: 0,
            db: db.clone(),
            // One process stands in for every client: one address, a connection per game.
            limits: junqi_web::limits::Limits {
                max_connections: (o.games + 64).max(512),
                max_connections_per_address: o.games + 64,
                ..Default::default()
            },
            ..Default::default()
        };
        let server = junqi_web::start(config).await.expect("server");
        println!(
            "server on http://{}: {} games of {} at once, up to {} moves each, svg {}",
            server.addr,
            o.games,
            o.rules,
            o.moves,
            if o.svg { "on" } else { "off" }
        );
        let start = Instant::now();
        let tasks: Vec<_> = (0..o.games)
            .map(|i| {
                tokio::spawn(drive(
                    server.addr,
                    o.rules.clone(),
                    o.moves,
                    o.svg,
                    0x9E37_79B9 ^ i as u64,
                ))
            })
            .collect();
        let mut all = Stats::default();
        let mut finished = 0;
        for t in tasks {
            let s = t.await.expect("a game task");
            all.moves += s.moves;
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
            "state (GET game) latency:   median {:.2} ms, p99 {:.2} ms",
            percentile(&all.state, 0.5),
            percentile(&all.state, 0.99)
        );
        server.stop();
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
    });
}
