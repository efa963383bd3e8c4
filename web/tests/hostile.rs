//! Hostile input to the web referee (issue 27): credentials that are not a Bearer
//! token, rows of the database that do not load, rule sets too large to keep, and
//! bounded loopback attacks on connections (a few hundred half-sent requests or idle
//! event streams against low limits).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::http::{raw, read_head};
use common::{create, server, Client, TempDb};
use junqi_web::limits::Limits;
use junqi_web::Config;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};

/// A GET of `path` with `authorization` as the raw bytes of the header's value.
async fn get_with(
    addr: std::net::SocketAddr,
    path: &str,
    authorization: &[u8],
) -> common::http::Reply {
    let mut req =
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: ")
            .into_bytes();
    req.extend_from_slice(authorization);
    req.extend_from_slice(b"\r\n\r\n");
    raw(addr, &req).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_is_a_bearer_token_or_refused() {
    let db = TempDb::new("auth");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(
        &mut c,
        r#"{"rules": "classic", "seats": {"north": "random"}}"#,
    )
    .await;
    let token = &g.tokens["south"];
    let state = format!("/api/games/{}?svg=0", g.id);
    // The scheme is case-insensitive (RFC 7235 section 2.1).
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let r = get_with(server.addr, &state, format!("{scheme} {token}").as_bytes()).await;
        assert_eq!(r.status, 200, "{scheme}: {}", r.body);
        assert_eq!(r.json()["seat"], json!("south"), "{scheme}");
    }
    // Any other credential is refused, not read as a spectator's request.
    let refused: [&[u8]; 6] = [
        b"Basic dXNlcjpwYXNz",
        b"Bearer",
        b"Token abc",
        b"Bearer a b",
        "Bearer 令牌".as_bytes(),
        b"Bearer \xff\xfe",
    ];
    for bad in refused {
        let shown = String::from_utf8_lossy(bad).into_owned();
        for path in [state.clone(), format!("/api/games/{}/record", g.id)] {
            let r = get_with(server.addr, &path, bad).await;
            assert_eq!(
                (r.status, r.code()),
                (403, "bad_token".to_owned()),
                "{shown} {path}: {}",
                r.body
            );
        }
    }
    // An event stream with another scheme is refused before it opens.
    let r = get_with(
        server.addr,
        &format!("/api/games/{}/events", g.id),
        b"Basic dXNlcjpwYXNz",
    )
    .await;
    assert_eq!(
        (r.status, r.code()),
        (403, "bad_token".to_owned()),
        "{}",
        r.body
    );
    // An empty ?token= is a malformed credential too; no token at all is a spectator.
    let r = c
        .get(&format!("/api/games/{}?svg=0&token=", g.id), None)
        .await;
    assert_eq!(
        (r.status, r.code()),
        (403, "bad_token".to_owned()),
        "{}",
        r.body
    );
    let r = c.get(&state, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["seat"], json!(null));
    // A refused credential acts for nobody: the game is where it was.
    let r = raw(
        server.addr,
        format!("POST /api/games/{}/confirm HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic {token}\r\nContent-Length: 0\r\n\r\n", g.id).as_bytes(),
    )
    .await;
    assert_eq!(
        (r.status, r.code()),
        (403, "bad_token".to_owned()),
        "{}",
        r.body
    );
    let r = c.get(&state, Some(token)).await;
    assert_eq!(r.json()["version"], json!(1));
}

/// Every column of a stored game, as SQLite holds it: its row and its entries.
fn stored_row(conn: &rusqlite::Connection, id: &str) -> Vec<rusqlite::types::Value> {
    let mut row: Vec<rusqlite::types::Value> = conn
        .query_row(
            "SELECT id, rules, head, settings, seats, pending, state, version, entries, rules_name,
                phase, ply, over, result, listed, open_seats, seats_public, rated, created_ms, updated_ms
             FROM games WHERE id = ?1",
            [id],
            |r| (0..20).map(|i| r.get(i)).collect(),
        )
        .unwrap();
    let mut stmt = conn
        .prepare("SELECT seq, entry FROM entries WHERE game = ?1 ORDER BY seq")
        .unwrap();
    let entries = stmt
        .query_map([id], |r| Ok([r.get(0)?, r.get(1)?]))
        .unwrap()
        .map(Result::unwrap);
    row.extend(entries.flatten());
    row
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_row_is_kept_and_reported_and_every_other_game_is_served() {
    let db = TempDb::new("bad-rows");
    let games = {
        let server = server(&db).await;
        let mut c = Client::new(server.addr);
        let mut games = Vec::new();
        for _ in 0..4 {
            games.push(create(&mut c, r#"{"rules": "classic"}"#).await);
        }
        games
    };
    // Corrupt three games of the real SQLite file, each in its own way: an entry that
    // does not replay appended to the record, seats that are not JSON, a version that
    // is not a number.
    let conn = rusqlite::Connection::open(&db.0).unwrap();
    let entries: i64 = conn
        .query_row(
            "SELECT entries FROM games WHERE id = ?1",
            [&games[1].id],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "INSERT INTO entries (game, seq, entry) VALUES (?1, ?2, '\"a1-a2\"')",
        rusqlite::params![games[1].id, entries],
    )
    .unwrap();
    let corrupt = [
        (
            "UPDATE games SET entries = entries + 1 WHERE id = ?1 AND ?2 = ?2",
            String::new(),
        ),
        (
            "UPDATE games SET seats = ?2 WHERE id = ?1",
            r#"{"south": "#.to_owned(),
        ),
        (
            "UPDATE games SET version = ?2 WHERE id = ?1",
            "many".to_owned(),
        ),
    ];
    for (game, (sql, value)) in games[1..].iter().zip(corrupt) {
        assert_eq!(conn.execute(sql, [&game.id, &value]).unwrap(), 1);
    }
    let before: Vec<_> = games[1..]
        .iter()
        .map(|g| stored_row(&conn, &g.id))
        .collect();

    let server = server(&db).await; // today: start-up failed on the first bad row
    {
        let broken = server.app.broken.read().unwrap();
        let mut ids: Vec<&String> = broken.keys().collect();
        ids.sort();
        let mut want: Vec<&String> = games[1..].iter().map(|g| &g.id).collect();
        want.sort();
        assert_eq!(ids, want);
        assert!(broken[&games[1].id].starts_with("record: "), "{broken:?}");
        assert!(broken[&games[2].id].starts_with("seats: "), "{broken:?}");
        assert!(broken[&games[3].id].contains("version"), "{broken:?}");
    }
    let mut c = Client::new(server.addr);
    // The good game is served and still changes.
    let good = &games[0];
    let r = c
        .post(
            &format!("/api/games/{}/confirm?svg=0", good.id),
            Some(&good.tokens["south"]),
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // The bad ones are refused clearly, without the reason (it may name hidden pieces).
    for g in &games[1..] {
        let t = g.tokens.get("south").map(String::as_str);
        for r in [
            c.get(&format!("/api/games/{}?svg=0", g.id), None).await,
            c.get(&format!("/api/games/{}/events", g.id), None).await,
            c.post(&format!("/api/games/{}/confirm", g.id), t, "").await,
        ] {
            assert_eq!(
                (r.status, r.code()),
                (500, "game_unavailable".to_owned()),
                "{}",
                r.body
            );
            assert_eq!(
                r.json()["error"]["message"],
                json!(format!(
                    "game {:?} is stored but could not be loaded; it is kept unchanged and the server log says why",
                    g.id
                ))
            );
        }
    }
    let r = c.get("/api/games/000000000000000000?svg=0", None).await;
    assert_eq!(r.code(), "unknown_game");
    drop(server);
    // The bad rows are exactly as they were; the good one moved on.
    let after: Vec<_> = games[1..]
        .iter()
        .map(|g| stored_row(&conn, &g.id))
        .collect();
    assert_eq!(before, after);
    let version: i64 = conn
        .query_row("SELECT version FROM games WHERE id = ?1", [&good.id], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(version, 2);
}

/// A valid custom rule set of about `bytes` bytes of JSON (a long description).
fn rules_of_size(bytes: usize) -> serde_json::Value {
    json!({"extends": "classic", "name": "wordy", "description": "x".repeat(bytes)})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_rule_set_is_capped_and_not_rewritten_on_every_change() {
    let db = TempDb::new("rules-cap");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let cap = junqi_web::api::MAX_RULES_BYTES;
    let big = json!({"rules": rules_of_size(cap + 1)}).to_string();
    let r = c.post("/api/games", None, &big).await;
    assert_eq!(
        (r.status, r.code()),
        (413, "too_large".to_owned()),
        "{}",
        &r.body[..200.min(r.body.len())]
    );
    assert!(
        r.body.contains(&format!("at most {cap} bytes")),
        "{}",
        r.body
    );
    // A body over the limit (256 KiB) is refused from its declared length, unread.
    let r = raw(
        server.addr,
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 300000\r\n\r\n",
    )
    .await;
    assert_eq!(
        (r.status, r.code()),
        (413, "too_large".to_owned()),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("a request body is at most 262144 bytes"),
        "{}",
        r.body
    );
    // A header over 16 KiB is refused by hyper (431) before any handler runs.
    let long = format!(
        "GET /api/presets HTTP/1.1\r\nHost: x\r\nX-Long: {}\r\n\r\n",
        "y".repeat(20_000)
    );
    assert_eq!(raw(server.addr, long.as_bytes()).await.status, 431);
    // Under the cap, the core's own limits still hold: a rule set over 48 KiB as
    // compact JSON, or with a name over 64 characters, would not fit the engine
    // protocol's lines (a bot seat's engine could not be told the game: a 63 600-
    // character name hung the game's creation on a stuck write).
    let spec_cap = junqi::limits::MAX_RULES_SPEC;
    let r = c
        .post("/api/games", None, &json!({"rules": rules_of_size(spec_cap)}).to_string())
        .await;
    assert_eq!((r.status, r.code()), (422, "invalid_rules".to_owned()), "{}", r.body);
    assert!(r.body.contains("over the limit of 49152 (a protocol line must hold it)"), "{}", r.body);
    let long_name = json!({"rules": {"extends": "classic", "name": "n".repeat(65)}, "seats": {"north": "greedy"}});
    let r = c.post("/api/games", None, &long_name.to_string()).await;
    assert_eq!((r.status, r.code()), (422, "invalid_rules".to_owned()), "{}", r.body);
    assert!(r.body.contains("a rule set name of 65 characters is over the limit of 64"), "{}", r.body);
    // Under both it is a game like any other.
    let g = create(
        &mut c,
        &json!({"rules": rules_of_size(spec_cap - 3000)}).to_string(),
    )
    .await;
    // The rule set column is written once: mark it, change the game, and the mark stays.
    let conn = rusqlite::Connection::open(&db.0).unwrap();
    conn.execute("UPDATE games SET rules = 'mark' WHERE id = ?1", [&g.id])
        .unwrap();
    let r = c
        .post(
            &format!("/api/games/{}/confirm?svg=0", g.id),
            Some(&g.tokens["south"]),
            "",
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let (rules, version): (String, i64) = conn
        .query_row(
            "SELECT rules, version FROM games WHERE id = ?1",
            [&g.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((rules.as_str(), version), ("mark", 2));
}

/// A connection to `addr` from the loopback address `from` (127.0.0.x: every address
/// of 127/8 is this host's own on Linux), so that a test can be several clients.
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("a loopback source address");
    socket.connect(addr).await.expect("connect")
}

/// Reads until the server closes the connection or `limit` passes: what it sent, and
/// whether (and after how long) it closed.
async fn read_until_closed(mut s: TcpStream, limit: Duration) -> (String, Option<Duration>) {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (String::from_utf8_lossy(&got).into(), Some(start.elapsed()))
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&got).into(), None),
        }
    }
}

/// One whole request from `from` on a fresh connection; its status.
async fn status_from(from: [u8; 4], addr: SocketAddr, path: &str) -> (u16, String) {
    let s = connect_from(from, addr).await;
    let mut s = BufReader::new(s);
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    s.get_mut().write_all(req.as_bytes()).await.unwrap();
    let (status, _) = tokio::time::timeout(Duration::from_secs(5), read_head(&mut s))
        .await
        .expect("an answer, not a hang")
        .expect("a response head");
    let mut body = String::new();
    let _ = s.read_to_string(&mut body).await;
    (status, body)
}

/// Waits (a bounded time) until `f` holds.
async fn eventually(what: &str, f: impl Fn() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < Duration::from_secs(5), "never: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn server_with(db: &TempDb, limits: Limits) -> junqi_web::Server {
    junqi_web::start(Config {
        port: 0,
        db: db.0.display().to_string(),
        bot_delay: Duration::ZERO,
        limits,
        ..Config::default()
    })
    .await
    .expect("server starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_capped_per_address_and_timed_out() {
    let db = TempDb::new("half-sent");
    let timeout = Duration::from_millis(800);
    let limits = Limits {
        header_timeout: timeout,
        body_timeout: timeout,
        max_connections: 40,
        max_connections_per_address: 24,
        max_requests_per_connection: 3,
        ..Limits::default()
    };
    let server = server_with(&db, limits).await;
    let addr = server.addr;
    // 300 connections from 127.0.0.1, each with half a request: two in three stop in
    // the header, one in three in the body.
    let mut attack = tokio::task::JoinSet::new();
    for i in 0..300 {
        let mut s = connect_from([127, 0, 0, 1], addr).await;
        let half = if i % 3 == 0 {
            "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"rules\""
        } else {
            "GET /api/presets HTTP/1.1\r\nHost: x\r\nUser-Agent: slow"
        };
        let _ = s.write_all(half.as_bytes()).await;
        attack.spawn(read_until_closed(s, timeout + Duration::from_secs(4)));
    }
    // Meanwhile another client is answered at once.
    let (status, body) = status_from([127, 0, 0, 2], addr, "/api/presets").await;
    assert_eq!(status, 200, "{body}");
    let mut refused = 0;
    let mut timed_out = 0;
    while let Some(r) = attack.join_next().await {
        let (text, closed) = r.unwrap();
        // Today's server answered none of them and closed none.
        let closed = closed.unwrap_or_else(|| panic!("a half-sent request kept open: {text:?}"));
        if text.starts_with("HTTP/1.1 429") {
            assert!(text.contains("\"too_many_connections\""), "{text}");
            assert!(text.contains("maximum of 24 connections"), "{text}");
            assert!(closed < timeout, "refused after {closed:?}");
            refused += 1;
        } else {
            // Held until its deadline: a half-sent header is closed without a word,
            // a half-sent body is answered 408.
            assert!(closed >= timeout / 2, "closed after {closed:?}: {text:?}");
            assert!(
                text.is_empty()
                    || text.starts_with("HTTP/1.1 408") && text.contains("\"request_timeout\""),
                "{text}"
            );
            timed_out += 1;
        }
    }
    assert_eq!((refused, timed_out), (276, 24));
    eventually("every connection closed", || server.open_connections() == 0).await;

    // The total cap: 24 from one address and 24 from another make 48 > 40.
    let mut held = Vec::new();
    let mut answers = Vec::new();
    for from in [[127, 0, 0, 1], [127, 0, 0, 3]] {
        for _ in 0..24 {
            let mut s = connect_from(from, addr).await;
            let _ = s.write_all(b"GET /api/presets HTTP/1.1\r\n").await;
            held.push(s);
        }
    }
    eventually("40 connections held", || server.open_connections() == 40).await;
    // (Asked at once: the held connections time out after 0.8 s.)
    let (status, body) = status_from([127, 0, 0, 2], addr, "/api/presets").await;
    assert_eq!(status, 503, "{body}");
    for s in held.drain(40..) {
        answers.push(read_until_closed(s, Duration::from_secs(2)).await);
    }
    for (text, closed) in &answers {
        assert!(
            closed.is_some() && text.starts_with("HTTP/1.1 503"),
            "{text}"
        );
        assert!(text.contains("maximum of 40 connections"), "{text}");
    }
    drop(held);
    eventually("every connection closed", || server.open_connections() == 0).await;

    // Keep-alive: the third request on a connection is answered with Connection:
    // close; a connection left idle after an answer is closed at the header timeout.
    let mut s = BufReader::new(connect_from([127, 0, 0, 2], addr).await);
    for n in 1..=3 {
        s.get_mut()
            .write_all(b"GET /api/presets HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let (status, headers) = read_head(&mut s).await.unwrap();
        assert_eq!(status, 200);
        let close = headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("connection") && v == "close");
        assert_eq!(close, n == 3, "request {n}: {headers:?}");
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .unwrap()
            .1
            .parse()
            .unwrap();
        let mut body = vec![0; len];
        s.read_exact(&mut body).await.unwrap();
    }
    let (_, closed) = read_until_closed(s.into_inner(), Duration::from_secs(2)).await;
    assert!(closed.is_some());
    let mut s = BufReader::new(connect_from([127, 0, 0, 2], addr).await);
    s.get_mut()
        .write_all(b"GET /api/presets HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(read_head(&mut s).await.unwrap().0, 200);
    let (_, closed) = read_until_closed(s.into_inner(), timeout + Duration::from_secs(4)).await;
    assert!(closed.is_some(), "an idle kept-alive connection stays open");
    eventually("every connection closed", || server.open_connections() == 0).await;
}

/// Opens an event stream of `game` from `from`: its status and, for a refusal, the body.
async fn open_stream(
    from: [u8; 4],
    addr: SocketAddr,
    game: &str,
) -> (u16, String, BufReader<TcpStream>) {
    let mut s = BufReader::new(connect_from(from, addr).await);
    let req = format!("GET /api/games/{game}/events HTTP/1.1\r\nHost: x\r\n\r\n");
    s.get_mut().write_all(req.as_bytes()).await.unwrap();
    let (status, headers) = tokio::time::timeout(Duration::from_secs(5), read_head(&mut s))
        .await
        .expect("an answer")
        .unwrap();
    let mut body = String::new();
    if status != 200 {
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map_or(0, |(_, v)| v.parse().unwrap());
        let mut buf = vec![0; len];
        s.read_exact(&mut buf).await.unwrap();
        body = String::from_utf8(buf).unwrap();
    }
    (status, body, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_event_streams_are_capped_per_address_and_per_game() {
    let db = TempDb::new("streams");
    let limits = Limits {
        max_connections: 400,
        max_connections_per_address: 400,
        max_streams_per_game: 12,
        max_streams_per_address: 8,
        ..Limits::default()
    };
    let server = server_with(&db, limits).await;
    let addr = server.addr;
    let mut c = Client::new(addr);
    let a = create(&mut c, r#"{"rules": "classic"}"#).await;
    let b = create(&mut c, r#"{"rules": "classic"}"#).await;
    drop(c);
    // 300 idle streams of one game from one address: 8 open, the rest refused.
    let mut open = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..300 {
        let (status, body, s) = open_stream([127, 0, 0, 1], addr, &a.id).await;
        match status {
            200 => open.push(s),
            _ => {
                assert_eq!(status, 429, "{body}");
                assert!(body.contains("\"too_many_streams\""), "{body}");
                assert!(body.contains("maximum of 8 event streams"), "{body}");
                refused.push(s);
            }
        }
    }
    assert_eq!((open.len(), refused.len()), (8, 292));
    // Another address: the game's cap (12) leaves it four.
    for n in 0..6 {
        let (status, body, s) = open_stream([127, 0, 0, 2], addr, &a.id).await;
        if n < 4 {
            assert_eq!(status, 200, "{body}");
            open.push(s);
        } else {
            assert_eq!(status, 503, "{body}");
            assert!(
                body.contains("this game has its maximum of 12 event streams"),
                "{body}"
            );
        }
    }
    // Another game is not full; every open stream is a live one.
    let (status, body, s) = open_stream([127, 0, 0, 2], addr, &b.id).await;
    assert_eq!(status, 200, "{body}");
    open.push(s);
    for s in &mut open {
        let mut line = String::new();
        while !line.starts_with("data:") {
            line.clear();
            s.read_line(&mut line).await.unwrap();
        }
    }
    assert_eq!(server.app.streams.total(), 13);
    // Requests are answered all the while.
    let (status, body) =
        status_from([127, 0, 0, 1], addr, &format!("/api/games/{}?svg=0", a.id)).await;
    assert_eq!(status, 200, "{body}");
    // Closing the streams counts them out; the refused connections close too.
    drop(refused);
    let last = open.pop().unwrap();
    drop(open);
    eventually("the streams counted out", || {
        server.app.streams.total() == 1
    })
    .await;
    eventually("the connections closed", || server.open_connections() == 1).await;
    let handle = server.app.game(&a.id).unwrap();
    assert_eq!(handle.streams.total(), 0);
    // Stopping the server closes what is still open, a stream too.
    server.stop();
    let (_, closed) = read_until_closed(last.into_inner(), Duration::from_secs(4)).await;
    assert!(closed.is_some(), "a stream outlived the server");
    eventually("nothing open", || {
        server.open_connections() == 0 && server.app.streams.total() == 0
    })
    .await;
}
