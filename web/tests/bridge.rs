//! `junqi bridge` (docs/protocol.md) plays a web seat with a local engine through the
//! seat-token API, to the end of the game: the server on loopback with an ephemeral
//! port and a temporary SQLite file, the bridge and its engine as processes. The bridge
//! follows the game's event stream; when the server refuses it one (its stream caps),
//! it polls the state.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{create, state, Client, TempDb};
use junqi_web::limits::Limits;
use junqi_web::Config;

/// The `junqi` binary, built beside this crate's binaries.
fn junqi_bin() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_junqi-web")).with_file_name("junqi");
    assert!(
        p.exists(),
        "build the junqi binary first (cargo build -p junqi --bin junqi, same profile): {p:?}"
    );
    p
}

async fn server_with(db: &TempDb, limits: Limits) -> junqi_web::Server {
    junqi_web::start(Config { port: 0, db: db.0.display().to_string(), bot_delay: Duration::ZERO, limits, ..Config::default() })
        .await
        .expect("server starts")
}

/// Runs the bridge for the south seat of a new game against a random north seat, with
/// `agent` as the engine, polling every `poll` if it polls; returns (stdout, stderr),
/// the client and the game's id and south token.
async fn bridge_a_game(
    server: &junqi_web::Server,
    agent: &str,
    poll: &str,
    hold_stream: bool,
) -> (String, String, Client, String, String) {
    let mut c = Client::new(server.addr);
    let g = create(
        &mut c,
        r#"{"rules": "classic", "seats": {"south": "human", "north": "random"}}"#,
    )
    .await;
    let token = g.tokens["south"].clone();
    // With `hold_stream`, this test holds the game's one event stream the server allows.
    let _held = if hold_stream {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let req = format!("GET /api/games/{}/events HTTP/1.1\r\nHost: x\r\n\r\n", g.id);
        s.write_all(req.as_bytes()).await.unwrap();
        let mut buf = [0u8; 12];
        s.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"HTTP/1.1 200");
        Some(s)
    } else {
        None
    };
    let bin = junqi_bin();
    let args = [
        "bridge".to_owned(),
        "--server".to_owned(),
        format!("http://{}", server.addr),
        "--seat-link".to_owned(),
        format!("/play/{}?token={token}", g.id),
        "--engine".to_owned(),
        format!("{} engine --agent {agent}", bin.display()),
        "--poll".to_owned(),
        poll.to_owned(),
    ];
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(bin).args(args).output().unwrap()
        }),
    )
    .await
    .expect("the bridge finishes")
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout} {stderr}");
    (stdout, stderr, c, g.id, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_engine_follows_the_event_stream_and_plays_a_web_seat_to_the_end() {
    let db = TempDb::new("bridge");
    let server = server_with(&db, Limits::default()).await;
    // Polling every 30 s would not finish a game in the time allowed: the stream does.
    let (stdout, stderr, mut c, id, token) = bridge_a_game(&server, "greedy", "30s", false).await;
    assert!(stdout.starts_with("south: "), "{stdout}");
    assert!(stderr.contains("following the game's event stream"), "{stderr}");
    assert!(stderr.contains("the game is over (followed its event stream)"), "{stderr}");
    let end = state(&mut c, &id, Some(&token), false).await;
    assert_eq!(end["phase"], "over");
    // The engine played, it did not resign: the seat made moves and the game ended by the rules.
    assert_ne!(end["result"]["reason"], "resignation", "{}", end["result"]);
    assert!(end["view"]["ply"].as_u64().unwrap() > 2);
    // The view string the server hands the seat is the seat's.
    assert!(end["position"].as_str().unwrap().ends_with("view=S"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_refused_the_event_stream_polls_the_state() {
    let db = TempDb::new("bridge-poll");
    let limits = Limits { max_streams_per_game: 1, ..Limits::default() };
    let server = server_with(&db, limits).await;
    let (stdout, stderr, mut c, id, token) = bridge_a_game(&server, "random", "5ms", true).await;
    assert!(stdout.starts_with("south: "), "{stdout}");
    assert!(stderr.contains("the event stream was refused: http/1.1 503"), "{stderr}");
    assert!(stderr.contains("the game is over (polled its state)"), "{stderr}");
    let end = state(&mut c, &id, Some(&token), false).await;
    assert_eq!(end["phase"], "over");
    assert_ne!(end["result"]["reason"], "resignation", "{}", end["result"]);
}

/// Starts the bridge for `token`'s seat of game `id` with `engine_args`, in the background.
fn spawn_bridge(server: &junqi_web::Server, id: &str, token: &str, engine_args: &str) -> std::process::Child {
    let bin = junqi_bin();
    std::process::Command::new(&bin)
        .args(["bridge", "--server", &format!("http://{}", server.addr)])
        .args(["--seat-link", &format!("/play/{id}?token={token}")])
        .args(["--engine", &format!("{} engine {engine_args}", bin.display())])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `done` holds of the state of `token`'s seat.
async fn until(c: &mut Client, id: &str, token: &str, done: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let start = std::time::Instant::now();
    loop {
        let s = state(c, id, Some(token), false).await;
        if done(&s) {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "not done: {s}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_engine_answers_and_offers_draws() {
    let db = TempDb::new("bridge-draws");
    let server = server_with(&db, Limits::default()).await;
    let mut c = Client::new(server.addr);
    for (engine, person_offers) in [("--agent random --draw accept", true), ("--agent random --draw offer", false)] {
        let g = create(&mut c, r#"{"rules": "classic", "seats": {"south": "human", "north": "human"}}"#).await;
        let north = g.tokens["north"].clone();
        let r = c.post(&format!("/api/games/{}/confirm", g.id), Some(&north), "{}").await;
        assert_eq!(r.status, 200, "{}", r.body);
        let bridge = spawn_bridge(&server, &g.id, &g.tokens["south"], engine);
        // The bridged engine moves first (South).
        until(&mut c, &g.id, &north, |s| s["to_act"] == "north").await;
        if person_offers {
            let r = c.post(&format!("/api/games/{}/draw", g.id), Some(&north), r#"{"offer": true}"#).await;
            assert_eq!(r.status, 200, "{}", r.body);
        } else {
            // The engine offered with its action: North accepts.
            let s = until(&mut c, &g.id, &north, |s| s["draw_offer"] == "south").await;
            assert_eq!(s["to_act"], "north");
            let r = c.post(&format!("/api/games/{}/draw", g.id), Some(&north), r#"{"accept": true}"#).await;
            assert_eq!(r.status, 200, "{}", r.body);
        }
        let end = until(&mut c, &g.id, &north, |s| s["phase"] == "over").await;
        assert_eq!(end["result"]["reason"], "agreement", "{engine}: {}", end["result"]);
        let out = tokio::task::spawn_blocking(move || bridge.wait_with_output().unwrap()).await.unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}
