//! Two `junqi-web` processes on one PostgreSQL database serve the same games: moves
//! through either, live updates across them, the lobby and the pairing queue shared,
//! concurrent moves on one game applied once, and a process killed mid-game losing
//! nothing it acknowledged (the other takes over its clocks).
//!
//! The test starts its own PostgreSQL (tests/common/pg.rs: Debian's `postgresql`,
//! `initdb` into a temporary folder, a loopback port) and stops it. It is ignored in a
//! plain `cargo test`; tests/postgres/run.sh installs PostgreSQL when missing and runs
//! it with `--ignored`.

mod common;

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::pg::Pg;
use common::{Client, Pick};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A `junqi-web` process.
struct Web {
    child: Child,
    addr: SocketAddr,
}

impl Web {
    fn start(db: &str) -> Web {
        Web::start_with(db, &[])
    }

    /// A process with extra environment variables.
    fn start_with(db: &str, env: &[(&str, &str)]) -> Web {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junqi-web"))
            .args(["--port", "0", "--db", db, "--bot-delay-ms", "0"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("junqi-web starts");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().expect("piped")),
            &mut line,
        )
        .expect("its first line");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("first line: {line:?}"))
            .parse()
            .expect("an address");
        Web { child, addr }
    }

    /// `kill -9`: the process ends at once, mid-whatever.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn state(c: &mut Client, id: &str, token: Option<&str>) -> Value {
    let r = c.get(&format!("/api/games/{id}"), token).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

async fn player(c: &mut Client, name: &str) -> String {
    let r = c.post("/api/players", None, &json!({"name": name}).to_string()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["token"].as_str().unwrap().to_owned()
}

/// A classic game of two people, both deployed, made through `c`.
async fn deployed_game(c: &mut Client, extra: Value) -> (String, Value) {
    let mut body = json!({"rules": "classic"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = c.post("/api/games", None, &body.to_string()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json();
    let id = created["game"].as_str().unwrap().to_owned();
    let tokens = json!({
        "south": created["seats"]["south"]["token"],
        "north": created["seats"]["north"]["token"],
    });
    for side in ["south", "north"] {
        let r = c
            .post(&format!("/api/games/{id}/confirm"), tokens[side].as_str(), "")
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    (id, tokens)
}

/// Waits (a bounded time) until `f` holds of the state `c` reads.
async fn until(c: &mut Client, id: &str, limit: Duration, f: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let s = state(c, id, None).await;
        if f(&s) {
            return s;
        }
        assert!(start.elapsed() < limit, "not within {limit:?}: {s}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Moves alternate through the two processes; each reads what the other wrote; an event
/// stream opened on one process announces a move made through the other.
async fn moves_through_both_and_live_updates_across(a: &Web, b: &Web) {
    let (mut ca, mut cb) = (Client::new(a.addr), Client::new(b.addr));
    let (id, tokens) = deployed_game(&mut ca, json!({})).await;
    let mut pick = Pick::new(3);
    for n in 0..30 {
        let c = if n % 2 == 0 { &mut ca } else { &mut cb };
        let s = until(c, &id, Duration::from_secs(5), |s| s["view"]["ply"] == json!(n)).await;
        if s["phase"] == "over" {
            break;
        }
        let side = s["to_act"].as_str().unwrap();
        let mine = state(c, &id, tokens[side].as_str()).await;
        let legal = mine["legal"].as_array().unwrap();
        let a = &legal[pick.below(legal.len())];
        let r = c
            .post(&format!("/api/games/{id}/action"), tokens[side].as_str(), &json!({"id": a["id"]}).to_string())
            .await;
        assert_eq!(r.status, 200, "move {n}: {}", r.body);
    }
    // Both processes hold the same game: the same state for each seat.
    for side in ["south", "north", "spectator"] {
        let t = tokens.get(side).and_then(Value::as_str);
        let start = Instant::now();
        loop {
            let (sa, sb) = (state(&mut ca, &id, t).await, state(&mut cb, &id, t).await);
            if sa["version"] == sb["version"] {
                assert_eq!(sa, sb, "{side}: the two processes disagree");
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "{side}: never at one version");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    // Live: B's event stream announces A's move.
    let stream = tokio::net::TcpStream::connect(b.addr).await.unwrap();
    let mut sse = BufReader::new(stream);
    let req = format!("GET /api/games/{id}/events HTTP/1.1\r\nHost: x\r\n\r\n");
    sse.get_mut().write_all(req.as_bytes()).await.unwrap();
    let first = next_version(&mut sse).await;
    let s = state(&mut ca, &id, None).await;
    if s["phase"] != "over" {
        let side = s["to_act"].as_str().unwrap();
        let mine = state(&mut ca, &id, tokens[side].as_str()).await;
        let start = Instant::now();
        let r = ca
            .post(
                &format!("/api/games/{id}/action"),
                tokens[side].as_str(),
                &json!({"id": mine["legal"][0]["id"]}).to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json()["version"].as_u64().unwrap();
        loop {
            let seen = next_version(&mut sse).await;
            if seen >= v {
                break;
            }
        }
        // Both processes sweep only every 10 minutes (`JUNQI_WEB_SWEEP_SECONDS`): an
        // announcement at all is the notification's (it was `< 900 ms` of wall time,
        // flaky on a loaded machine and no proof of where it came from).
        let took = start.elapsed();
        println!("an event stream on the other process announced the move after {took:?}");
        assert!(took < Duration::from_secs(60), "{took:?}");
        assert!(v > first);
    }
}

async fn until_version(c: &mut Client, id: &str, token: Option<&str>, v: &Value) -> Value {
    let start = Instant::now();
    loop {
        let s = state(c, id, token).await;
        if &s["version"] == v {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "version {v} never reached: {}", s["version"]);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn next_version<R: AsyncBufReadExt + Unpin>(sse: &mut R) -> u64 {
    let mut line = String::new();
    loop {
        line.clear();
        tokio::time::timeout(Duration::from_secs(5), sse.read_line(&mut line))
            .await
            .expect("an event within 5 s")
            .unwrap();
        if let Some(d) = line.trim().strip_prefix("data: ") {
            return serde_json::from_str::<Value>(d).unwrap()["version"].as_u64().unwrap();
        }
    }
}

/// The same seat's moves sent to both processes at once: exactly one is applied, every
/// time, and both processes then agree.
async fn concurrent_moves_are_applied_once(a: &Web, b: &Web) {
    let (mut ca, mut cb) = (Client::new(a.addr), Client::new(b.addr));
    let (id, tokens) = deployed_game(&mut ca, json!({})).await;
    let mut pick = Pick::new(9);
    let mut rounds = 0;
    for n in 0..25u64 {
        let s = until(&mut cb, &id, Duration::from_secs(5), |s| s["view"]["ply"] == json!(n)).await;
        if s["phase"] == "over" {
            break;
        }
        let side = s["to_act"].as_str().unwrap().to_owned();
        let mine = state(&mut ca, &id, tokens[&side].as_str()).await;
        let legal = mine["legal"].as_array().unwrap();
        let (x, y) = (&legal[pick.below(legal.len())], &legal[pick.below(legal.len())]);
        let path = format!("/api/games/{id}/action");
        let (bx, by) = (json!({"id": x["id"]}).to_string(), json!({"id": y["id"]}).to_string());
        let (ra, rb) = tokio::join!(
            ca.post(&path, tokens[&side].as_str(), &bx),
            cb.post(&path, tokens[&side].as_str(), &by)
        );
        let ok = [&ra, &rb].iter().filter(|r| r.status == 200).count();
        assert_eq!(ok, 1, "round {n}: {} {} / {} {}", ra.status, ra.body, rb.status, rb.body);
        for r in [&ra, &rb] {
            if r.status != 200 {
                assert_eq!(r.status, 409, "{}", r.body);
                assert!(
                    ["not_your_turn", "conflict", "game_over"].contains(&r.code().as_str()),
                    "{}",
                    r.body
                );
            }
        }
        rounds += 1;
    }
    assert!(rounds >= 10, "only {rounds} rounds");
    // One action per round, in both processes' copies and in a fresh process's replay.
    let sa = until(&mut ca, &id, Duration::from_secs(5), |s| s["view"]["ply"].as_u64() >= Some(rounds)).await;
    let sb = until_version(&mut cb, &id, None, &sa["version"]).await;
    assert_eq!(sa["view"]["ply"], sb["view"]["ply"]);
    assert_eq!(sa["view"]["ply"].as_u64(), Some(rounds), "a move was applied twice or lost");
}

/// The lobby and the pairing queue are the database's: a game listed by one process is
/// joined through the other; two players waiting on different processes are paired.
async fn lobby_and_pairing_across(a: &Web, b: &Web) {
    let (mut ca, mut cb) = (Client::new(a.addr), Client::new(b.addr));
    let (x, y) = (player(&mut ca, "xia").await, player(&mut cb, "yan").await);
    let r = ca
        .post("/api/games", None, &json!({"rules": "classic", "lobby": true, "rated": true, "player": x}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json();
    let id = created["game"].as_str().unwrap().to_owned();
    assert!(created["seats"]["north"].get("token").is_none(), "an open seat has no token yet");
    let lobby = cb.get("/api/lobby", None).await;
    assert_eq!(lobby.status, 200);
    let text = lobby.body.clone();
    assert!(!text.contains(created["seats"]["south"]["token"].as_str().unwrap()), "a token in the lobby");
    let open = lobby.json()["open"].as_array().unwrap().clone();
    let entry = open.iter().find(|e| e["game"] == json!(id)).expect("listed on the other process");
    assert_eq!(entry["seats"]["south"]["name"], "xia");
    assert_eq!(entry["seats"]["north"]["taken"], false);
    let r = cb.post(&format!("/api/games/{id}/join"), None, &json!({"player": y}).to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["seat"], "north");
    let s = until(&mut ca, &id, Duration::from_secs(5), |s| s["seats"]["north"]["taken"] == true).await;
    assert_eq!(s["seats"]["north"]["name"], "yan");
    // Pairing: xia waits on A, yan asks on B and gets the game; xia's ticket answers it.
    let w = ca.post("/api/pair", None, &json!({"player": x, "rules": "classic"}).to_string()).await;
    assert_eq!(w.status, 202, "{}", w.body);
    let ticket = w.json()["waiting"]["ticket"].as_str().unwrap().to_owned();
    let p = cb.post("/api/pair", None, &json!({"player": y, "rules": "classic"}).to_string()).await;
    assert_eq!(p.status, 200, "{}", p.body);
    let theirs = p.json()["paired"].clone();
    let mine = ca.get(&format!("/api/pair/{ticket}"), Some(&x)).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    let mine = mine.json()["paired"].clone();
    assert_eq!(mine["game"], theirs["game"]);
    assert_ne!(mine["seat"], theirs["seat"]);
}

/// A player's finished games, listed by the other process; a database from before the
/// list (no `seat_players`) gets it filled from the games' seats by the next process.
async fn finished_games_across(pg: &Pg) {
    let url = pg.database("history");
    let (id, x, y) = {
        let (a, b) = (Web::start(&url), Web::start(&url));
        let (mut ca, mut cb) = (Client::new(a.addr), Client::new(b.addr));
        let (x, y) = (player(&mut ca, "xu").await, player(&mut cb, "ye").await);
        let r = ca
            .post("/api/games", None, &json!({"rules": "classic", "lobby": true, "player": x}).to_string())
            .await;
        assert_eq!(r.status, 201, "{}", r.body);
        let created = r.json();
        let id = created["game"].as_str().unwrap().to_owned();
        let south = created["seats"]["south"]["token"].as_str().unwrap().to_owned();
        let r = cb.post(&format!("/api/games/{id}/join"), None, &json!({"player": y}).to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let north = r.json()["token"].as_str().unwrap().to_owned();
        let r = ca.get("/api/players/me/games", Some(&y)).await;
        assert_eq!(r.json()["games"], json!([]), "a game in play is not listed");
        let r = ca.post(&format!("/api/games/{id}/resign"), Some(&south), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
        let r = cb.get("/api/players/me/games", Some(&y)).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let list = r.json()["games"].clone();
        assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
        assert_eq!((list[0]["id"].as_str(), list[0]["seat"].as_str()), (Some(id.as_str()), Some("north")));
        assert_eq!(list[0]["outcome"], "win");
        assert_eq!(list[0]["url"], json!(format!("/play/{id}?token={north}")));
        (id, x, y)
    };
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    let task = tokio::spawn(conn);
    client.batch_execute("DROP TABLE seat_players").await.unwrap();
    drop(client);
    let _ = task.await;
    let c = Web::start(&url);
    let mut cc = Client::new(c.addr);
    for (token, seat, outcome) in [(&x, "south", "loss"), (&y, "north", "win")] {
        let list = cc.get("/api/players/me/games", Some(token)).await.json()["games"].clone();
        assert_eq!(list.as_array().map(Vec::len), Some(1), "filled again: {list}");
        assert_eq!((list[0]["id"].as_str(), list[0]["seat"].as_str()), (Some(id.as_str()), Some(seat)));
        assert_eq!(list[0]["outcome"], outcome);
    }
}

/// A process killed mid-game (`kill -9`) loses nothing it acknowledged: the other serves
/// every acknowledged move, play goes on through it, and it applies the killed
/// process's time-outs (after its standby delay).
async fn a_killed_process_loses_nothing(pg: &Pg) {
    let url = pg.database("killed");
    let mut a = Web::start(&url);
    let b = Web::start(&url);
    let (mut ca, mut cb) = (Client::new(a.addr), Client::new(b.addr));
    let (id, tokens) = deployed_game(&mut ca, json!({})).await;
    let mut pick = Pick::new(17);
    let mut acked = json!(null);
    for _ in 0..12 {
        let s = state(&mut ca, &id, None).await;
        if s["phase"] == "over" {
            break;
        }
        let side = s["to_act"].as_str().unwrap();
        let mine = state(&mut ca, &id, tokens[side].as_str()).await;
        let legal = mine["legal"].as_array().unwrap();
        let m = &legal[pick.below(legal.len())];
        let r = ca
            .post(&format!("/api/games/{id}/action"), tokens[side].as_str(), &json!({"id": m["id"]}).to_string())
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        acked = r.json();
    }
    // A game with a one-second move clock and one time-out allowed.
    let mut rules: Value = serde_json::from_str(junqi::RuleSet::preset_json("classic").unwrap()).unwrap();
    rules["name"] = json!("classic-one-timeout");
    rules["options"]["max_timeouts"] = json!(1);
    let (clocked, ctokens) = deployed_game(&mut ca, json!({"rules": rules, "move_seconds": 1})).await;
    let _ = ctokens;
    let _ = state(&mut cb, &clocked, None).await; // B holds it (and stands by)
    a.kill();
    let killed = Instant::now();
    let sb = until_version(&mut cb, &id, tokens["south"].as_str(), &acked["version"]).await;
    assert_eq!(sb["view"]["ply"], acked["view"]["ply"], "the other process lost an acknowledged move");
    assert_eq!(sb["view"]["pieces"].as_array().map(Vec::len), acked["view"]["pieces"].as_array().map(Vec::len));
    // Play goes on through B.
    let s = state(&mut cb, &id, None).await;
    if s["phase"] != "over" {
        let side = s["to_act"].as_str().unwrap();
        let mine = state(&mut cb, &id, tokens[side].as_str()).await;
        let r = cb
            .post(
                &format!("/api/games/{id}/action"),
                tokens[side].as_str(),
                &json!({"id": mine["legal"][0]["id"]}).to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // B applies the time-out A would have: South is out after its one time-out. B is
    // the only process alive (A was killed, C is not started yet), so B did it; and not
    // before the deadline (1 s) and its standby delay (a lower bound of wall time: a
    // loaded machine only makes it later).
    let over = until(&mut cb, &clocked, Duration::from_secs(10), |s| s["phase"] == "over").await;
    assert_eq!(over["result"]["reason"], "timeouts");
    let took = killed.elapsed();
    println!("the other process applied the time-out {took:?} after the kill");
    assert!(took >= Duration::from_millis(1500), "{took:?}");
    // A fresh process reads the same game.
    let c = Web::start(&url);
    let mut cc = Client::new(c.addr);
    let sb = state(&mut cb, &id, None).await;
    let sc = until_version(&mut cc, &id, None, &sb["version"]).await;
    assert_eq!(sb["view"], sc["view"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts PostgreSQL: run by tests/postgres/run.sh (cargo test -p junqi-web --test postgres -- --ignored)"]
async fn two_processes_serve_the_same_games_on_one_postgresql() {
    let start = Instant::now();
    let pg = Pg::start(false);
    let url = pg.database("junqi");
    {
        // No sweep within the test: what one process learns of the other's changes,
        // it learns from PostgreSQL's notifications.
        let quiet = [(junqi_web::flow::SWEEP_ENV, "600")];
        let (a, b) = (Web::start_with(&url, &quiet), Web::start_with(&url, &quiet));
        moves_through_both_and_live_updates_across(&a, &b).await;
        concurrent_moves_are_applied_once(&a, &b).await;
        lobby_and_pairing_across(&a, &b).await;
    }
    a_killed_process_loses_nothing(&pg).await;
    finished_games_across(&pg).await;
    println!("PostgreSQL tests: {:?}", start.elapsed());
}

/// Runs openssl (Debian's, beside PostgreSQL) in `dir`.
fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A CA of the test's own (`NAME.pem`, `NAME.key`), in `dir`.
fn make_ca(dir: &std::path::Path, name: &str) {
    openssl(dir, &["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", &format!("{name}.key"), "-out", &format!("{name}.pem"), "-days", "2", "-subj", &format!("/CN=junqi test {name}")]);
}

/// The connection over TLS, as the URL's `sslmode` and `sslrootcert` ask: against a
/// server that refuses plain connections, with a certificate for `localhost` signed by
/// the test's own CA. `require` connects, `verify-full` only with the right CA and the
/// host the certificate names, `verify-ca` with the right CA whatever the host; then two
/// processes on `verify-full` play through both, live updates included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts PostgreSQL: run by tests/postgres/run.sh (cargo test -p junqi-web --test postgres -- --ignored)"]
async fn tls_to_postgresql_checks_the_server_as_asked() {
    let dir = std::env::temp_dir().join(format!("junqi-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    make_ca(&dir, "ca");
    make_ca(&dir, "other");
    openssl(&dir, &["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n").unwrap();
    openssl(&dir, &["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf"]);
    let pg = Pg::start_tls(&dir.join("server.crt"), &dir.join("server.key"));
    let by_ip = pg.database("tls");
    let by_name = by_ip.replace("127.0.0.1", "localhost");
    let (ca, other) = (dir.join("ca.pem"), dir.join("other.pem"));
    let (ca, other) = (ca.display(), other.display());
    let open = |url: String| async move { junqi_web::store::Store::open(&url).await.map(|_| ()).map_err(|e| e.0) };
    // Plain TCP is refused by this server: what connects below connects over TLS.
    let plain = open(by_ip.clone()).await.unwrap_err();
    assert!(plain.contains("no encryption") || plain.contains("pg_hba"), "{plain}");
    open(format!("{by_ip}?sslmode=require")).await.expect("require");
    open(format!("{by_ip}?sslmode=prefer")).await.expect("prefer");
    open(format!("{by_name}?sslmode=verify-full&sslrootcert={ca}")).await.expect("verify-full, the right CA and host");
    open(format!("{by_ip}?sslmode=verify-ca&sslrootcert={ca}")).await.expect("verify-ca, the right CA");
    for (url, why) in [
        (format!("{by_ip}?sslmode=verify-full&sslrootcert={ca}"), "the certificate names localhost, not 127.0.0.1"),
        (format!("{by_name}?sslmode=verify-full&sslrootcert={other}"), "another CA"),
        (format!("{by_ip}?sslmode=verify-ca&sslrootcert={other}"), "another CA"),
        (format!("{by_ip}?sslmode=require&sslrootcert={other}"), "require with a root checks the chain"),
    ] {
        let e = open(url.clone()).await.unwrap_err();
        assert!(e.to_lowercase().contains("certificate"), "{url} ({why}): {e}");
        println!("refused ({why}): {e}");
    }
    let e = open(format!("{by_name}?sslmode=verify-full")).await.unwrap_err();
    assert!(e.contains("needs sslrootcert"), "{e}");
    // Two processes on verify-full: moves through both, live updates over TLS.
    let url = format!("{by_name}?sslmode=verify-full&sslrootcert={ca}");
    let quiet = [(junqi_web::flow::SWEEP_ENV, "600")];
    let (a, b) = (Web::start_with(&url, &quiet), Web::start_with(&url, &quiet));
    moves_through_both_and_live_updates_across(&a, &b).await;
    drop((a, b));
    drop(pg);
    let _ = std::fs::remove_dir_all(&dir);
}
