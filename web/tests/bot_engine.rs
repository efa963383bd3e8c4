//! A bot seat is an engine of the line protocol: with `JUNQI_WEB_BOT_ENGINE` set, the
//! server runs the operator's engine command for each bot answer (here the `junqi`
//! binary's own engine behind a shell that counts its starts), and a command that fails
//! (or answers an illegal action) is replaced by the built-in engine for that turn. Alone in its test binary: the
//! variable is the process's.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{server, state, Client, TempDb};
use serde_json::Value;

fn junqi_bin() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_junqi-web")).with_file_name("junqi");
    assert!(p.exists(), "build the junqi binary first (cargo build -p junqi --bin junqi, same profile): {p:?}");
    p
}

async fn play_out(c: &mut Client, body: &str) -> (String, Value) {
    let r = c.post("/api/games", None, body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"].as_str().unwrap().to_owned();
    let start = Instant::now();
    loop {
        let s = state(c, &id, None, false).await;
        if s["phase"] == "over" || s["view"]["ply"].as_u64().unwrap_or(0) >= 40 {
            return (id, s);
        }
        assert!(start.elapsed() < Duration::from_secs(120), "not done: {s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_seats_run_the_operators_engine_command() {
    let log = std::env::temp_dir().join(format!("junqi-bot-engine-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let command = format!("echo start >> '{}'; exec '{}' engine", log.display(), junqi_bin().display());
    std::env::set_var(junqi_web::bot::ENGINE_ENV, &command);
    let db = TempDb::new("bot-engine");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let body = r#"{"rules": "classic", "seats": {"south": {"kind": "bot", "agent": "greedy"}, "north": "random"}}"#;
    let (_, s) = play_out(&mut c, body).await;
    let bot_turns = s["view"]["ply"].as_u64().unwrap().div_ceil(2);
    let starts = std::fs::read_to_string(&log).unwrap().lines().count() as u64;
    // One process for the deployment, one for each of the bot's actions.
    assert!(bot_turns >= 5 && starts >= bot_turns + 1, "{starts} starts for {bot_turns} turns");
    // An engine command that fails: the built-in engine answers, the game goes on.
    std::env::set_var(junqi_web::bot::ENGINE_ENV, "exit 3");
    let (_, s) = play_out(&mut c, body).await;
    assert!(s["view"]["ply"].as_u64().unwrap() >= 10 || s["phase"] == "over", "{s}");
    // An engine that deploys nothing legal and answers every turn with an illegal
    // action: each of its answers is refused and the built-in engine plays that turn
    // (without it, a bot seat in a game without a clock would wait forever).
    let bad = r#"while read -r l; do case "$l" in
        "junqi "*) echo "id name bad"; echo ready;;
        deploy*) echo "setup {}";;
        go*) echo "action a1-a1";;
        quit) exit 0;;
      esac; done"#;
    std::env::set_var(junqi_web::bot::ENGINE_ENV, bad);
    let (_, s) = play_out(&mut c, body).await;
    assert!(s["view"]["ply"].as_u64().unwrap() >= 10 || s["phase"] == "over", "{s}");
    std::env::remove_var(junqi_web::bot::ENGINE_ENV);
    let _ = std::fs::remove_file(&log);
}
