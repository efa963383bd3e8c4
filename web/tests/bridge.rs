//! `junqi bridge` (docs/protocol.md) plays a web seat with a local engine through the
//! seat-token API, to the end of the game: the server on loopback with an ephemeral
//! port and a temporary SQLite file, the bridge and its engine as processes.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{create, server, state, Client, TempDb};

/// The `junqi` binary, built beside this crate's binaries.
fn junqi_bin() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_BIN_EXE_junqi-web")).with_file_name("junqi");
    assert!(
        p.exists(),
        "build the junqi binary first (cargo build -p junqi --bin junqi, same profile): {p:?}"
    );
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_engine_plays_a_web_seat_to_the_end() {
    let db = TempDb::new("bridge");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(
        &mut c,
        r#"{"rules": "classic", "seats": {"south": "human", "north": "random"}}"#,
    )
    .await;
    let token = g.tokens["south"].clone();
    let bin = junqi_bin();
    let engine = format!("{} engine --agent greedy", bin.display());
    let args = [
        "bridge".to_owned(),
        "--server".to_owned(),
        format!("http://{}", server.addr),
        "--seat-link".to_owned(),
        format!("/play/{}?token={token}", g.id),
        "--engine".to_owned(),
        engine,
        "--poll".to_owned(),
        "5ms".to_owned(),
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("south: "), "{stdout}");
    let end = state(&mut c, &g.id, Some(&token), false).await;
    assert_eq!(end["phase"], "over");
    // The engine played, it did not resign: the seat made moves and the game ended by the rules.
    assert_ne!(end["result"]["reason"], "resignation", "{}", end["result"]);
    assert!(end["view"]["ply"].as_u64().unwrap() > 2);
    // The view string the server hands the seat holds no enemy identity it has not seen.
    let first = state(&mut c, &g.id, Some(&token), false).await;
    assert!(first["position"].as_str().unwrap().ends_with("view=S"));
}
