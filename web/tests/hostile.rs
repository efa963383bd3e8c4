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
