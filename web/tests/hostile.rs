//! Hostile input to the web referee (issue 27): credentials that are not a Bearer
//! token, rows of the database that do not load, rule sets too large to keep.

mod common;

use common::http::raw;
use common::{create, server, Client, TempDb};
use serde_json::json;

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

/// Every column of a stored row, as SQLite holds it.
fn stored_row(conn: &rusqlite::Connection, id: &str) -> Vec<rusqlite::types::Value> {
    conn.query_row(
        "SELECT id, rules, seats, move_seconds, deadline_ms, record, version, draw_offer, pending, over, updated_ms
         FROM games WHERE id = ?1",
        [id],
        |r| (0..11).map(|i| r.get(i)).collect(),
    )
    .unwrap()
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
    // Corrupt three rows of the real SQLite file, each in its own way.
    let conn = rusqlite::Connection::open(&db.0).unwrap();
    let record: String = conn
        .query_row(
            "SELECT record FROM games WHERE id = ?1",
            [&games[1].id],
            |r| r.get(0),
        )
        .unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&record).unwrap();
    record["actions"]
        .as_array_mut()
        .unwrap()
        .push(json!("a1-a2"));
    let corrupt = [
        (
            "UPDATE games SET record = ?2 WHERE id = ?1",
            record.to_string(),
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
    // Under the cap it is a game like any other.
    let g = create(
        &mut c,
        &json!({"rules": rules_of_size(cap - 200)}).to_string(),
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
