//! The web referee through its HTTP API, on loopback with a real client: seats cannot
//! read or act for each other, refusals change nothing, a restarted server resumes
//! every game, games of random seats finish, and no seat's JSON carries an enemy
//! piece's kind the seat does not know.

mod common;

use std::time::{Duration, Instant};

use common::{create, server, state, Client, Pick, TempDb};
use junqi::{Game, Side};
use junqi_web::Server;
use serde_json::{json, Value};

/// Checks `json`, the state sent to `seat` (None: a spectator), against the referee:
/// every piece is there, a kind only where the seat knows it (a spectator: where every
/// seat knows it), and the picture names no unknown piece's kind on its point.
async fn assert_no_leak(server: &Server, id: &str, seat: Option<Side>, json: &Value) {
    let handle = server.app.game(id).unwrap();
    let table = handle.lock().await;
    assert_eq!(
        json["version"],
        json!(table.version),
        "the referee moved on (a random seat?)"
    );
    let game: &Game = &table.game;
    let pos = game.position();
    let board = game.board();
    let pieces = json["view"]["pieces"].as_array().unwrap();
    assert_eq!(pieces.len(), pos.pieces().count());
    let svg = json["svg"].as_str();
    for p in pieces {
        let name = p["point"].as_str().unwrap();
        let point = board.point(name).unwrap();
        let (_, kind) = pos.piece_at(point).unwrap();
        // Once the game is over every piece is shown to everyone (Game::end_view).
        let over = game.phase() == junqi::Phase::Over;
        let known = over
            || match seat {
                Some(s) => pos.knows(s, point),
                None => game.rules().sides().iter().all(|&s| pos.knows(s, point)),
            };
        if over {
            assert_eq!(p["kind"], json!(kind), "{name}: the ended game does not show its {kind}");
        } else if known {
            assert!(
                p["kind"].is_null() || p["kind"] == json!(kind),
                "{name}: wrong kind {p}"
            );
        } else {
            assert!(
                p["kind"].is_null(),
                "{seat:?} sees the unknown {kind} on {name}: {p}"
            );
            if let Some(svg) = svg {
                let words = kind.id().replace('_', " ");
                // The piece marker for front ends: `<g class="piece …" data-at="c3" …>`.
                let marker = format!(" data-at=\"{name}\"");
                if let Some(i) = svg.find(&marker) {
                    let tag = &svg[i..i + svg[i..].find('>').unwrap()];
                    assert!(
                        !tag.contains(kind.id()),
                        "{seat:?}'s picture marks the {kind} on {name}: {tag}"
                    );
                }
                let title = format!("<title>{name}: ");
                if let Some(i) = svg.find(&title) {
                    let rest = &svg[i + title.len()..];
                    let text = &rest[..rest.find("</title>").unwrap()];
                    assert!(
                        !text.contains(&words),
                        "{seat:?}'s picture names the {kind} on {name}: {text}"
                    );
                }
            }
        }
    }
    let legal = json["legal"].as_array().unwrap();
    if seat.is_none() || game.to_act() != seat {
        assert!(
            legal.is_empty(),
            "{seat:?} is not to act but gets legal actions"
        );
    }
}

/// Plays random legal actions through the API until the game ends or `max` actions,
/// checking every seat's state against the referee after each. Returns the actions.
async fn play(
    server: &Server,
    c: &mut Client,
    id: &str,
    tokens: &[(Side, String)],
    seed: u64,
    max: usize,
) -> usize {
    let mut pick = Pick::new(seed);
    for n in 0..max {
        let mut acted = false;
        for (side, token) in tokens {
            let s = state(c, id, Some(token), n % 25 == 0).await;
            assert_no_leak(server, id, Some(*side), &s).await;
            if s["phase"] == "over" {
                return n;
            }
            if s["to_act"] != json!(side.name()) {
                continue;
            }
            let legal = s["legal"].as_array().unwrap();
            assert!(!legal.is_empty());
            let a = &legal[pick.below(legal.len())];
            let body = if n % 2 == 0 {
                json!({"id": a["id"]})
            } else {
                json!({"notation": a["notation"]})
            };
            let r = c
                .post(
                    &format!("/api/games/{id}/action?svg=0"),
                    Some(token),
                    &body.to_string(),
                )
                .await;
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(
                r.json()["version"],
                json!(s["version"].as_u64().unwrap() + 1)
            );
            acted = true;
            break;
        }
        if !acted {
            // A random seat is to act: wait for it.
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    max
}

async fn deploy_all(c: &mut Client, id: &str, tokens: &[(Side, String)]) {
    for (_, t) in tokens {
        let r = c
            .post(&format!("/api/games/{id}/confirm?svg=0"), Some(t), "")
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

fn seats(created: &common::Created) -> Vec<(Side, String)> {
    created
        .tokens
        .iter()
        .map(|(k, v)| (Side::from_name(k).unwrap(), v.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_cannot_read_or_act_for_another() {
    let db = TempDb::new("seats");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let a = create(&mut c, r#"{"rules": "classic"}"#).await;
    let b = create(&mut c, r#"{"rules": "classic"}"#).await;
    let (south, north) = (a.tokens["south"].clone(), a.tokens["north"].clone());
    let other = b.tokens["south"].clone();
    let id = &a.id;
    deploy_all(&mut c, id, &seats(&a)).await;
    // Each token reads its own seat's view.
    let s = state(&mut c, id, Some(&south), true).await;
    assert_eq!(s["seat"], "south");
    assert_eq!(s["view"]["player"], "south");
    assert_no_leak(&server, id, Some(Side::South), &s).await;
    let n = state(&mut c, id, Some(&north), true).await;
    assert_eq!(n["seat"], "north");
    assert!(
        n["legal"].as_array().unwrap().is_empty(),
        "north is not to act"
    );
    assert_no_leak(&server, id, Some(Side::North), &n).await;
    let spectator = state(&mut c, id, None, true).await;
    assert!(spectator["seat"].is_null() && spectator["view"]["player"].is_null());
    assert_no_leak(&server, id, None, &spectator).await;
    assert!(spectator["view"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["kind"].is_null()));
    // North cannot act on South's turn; a token of another game, a made-up token, and
    // no token at all are refused on every endpoint of this game.
    let move_ = format!(r#"{{"id": {}}}"#, s["legal"][0]["id"]);
    let r = c
        .post(&format!("/api/games/{id}/action"), Some(&north), &move_)
        .await;
    assert_eq!((r.status, r.code().as_str()), (409, "not_your_turn"));
    let endpoints: [(&str, &str, &str); 9] = [
        ("GET", "", ""),
        ("POST", "/setup", r#"{"random": true}"#),
        ("POST", "/confirm", ""),
        ("POST", "/action", &move_),
        ("POST", "/resign", ""),
        ("POST", "/draw", r#"{"offer": true}"#),
        ("GET", "/record", ""),
        ("GET", "/record?full=1", ""),
        ("GET", "/events", ""),
    ];
    let version = s["version"].clone();
    for (method, path, body) in endpoints {
        for token in [
            Some(other.as_str()),
            Some("00000000000000000000000000000000"),
            Some(&south[..31]),
        ] {
            let r = c
                .request(method, &format!("/api/games/{id}{path}"), token, Some(body))
                .await;
            assert_eq!(
                (r.status, r.code().as_str()),
                (403, "bad_token"),
                "{method} {path}: {}",
                r.body
            );
        }
        if method == "POST" {
            let r = c
                .request(method, &format!("/api/games/{id}{path}"), None, Some(body))
                .await;
            assert_eq!(
                (r.status, r.code().as_str()),
                (403, "bad_token"),
                "{method} {path} without a token"
            );
        }
    }
    // The token in the query works like the header; another game's token is refused.
    let q = c
        .get(&format!("/api/games/{id}?token={north}&svg=0"), None)
        .await;
    assert_eq!(q.json()["seat"], "north");
    let r = c
        .get(&format!("/api/games/{}?token={south}", b.id), None)
        .await;
    assert_eq!(r.code(), "bad_token");
    // A seat's record is its own: North's holds North's setup only.
    let rec = c
        .get(&format!("/api/games/{id}/record"), Some(&north))
        .await
        .json();
    assert_eq!(rec["player"], "north");
    assert_eq!(rec["format"], "junqi-player-record/1");
    let r = c.get(&format!("/api/games/{id}/record"), None).await;
    assert_eq!((r.status, r.code().as_str()), (409, "game_not_over"));
    let r = c
        .get(&format!("/api/games/{id}/record?full=1"), Some(&south))
        .await;
    assert_eq!(r.code(), "game_not_over");
    assert_eq!(
        state(&mut c, id, Some(&south), false).await["version"],
        version,
        "nothing changed"
    );
}

/// Sends a request that must be refused with `code`, and checks that neither the
/// version nor any seat's state changed.
async fn refused(
    c: &mut Client,
    id: &str,
    tokens: &[(Side, String)],
    path: &str,
    token: Option<&str>,
    body: &str,
    code: &str,
) {
    let before: Vec<Value> = {
        let mut v = vec![state(c, id, None, true).await];
        for (_, t) in tokens {
            v.push(state(c, id, Some(t), true).await);
        }
        v
    };
    let r = c.post(&format!("/api/games/{id}{path}"), token, body).await;
    assert!(
        (400..500).contains(&r.status),
        "{path} {body}: {} {}",
        r.status,
        r.body
    );
    assert_eq!(r.code(), code, "{path} {body}: {}", r.body);
    assert!(!r.json()["error"]["message"].as_str().unwrap().is_empty());
    let mut after = vec![state(c, id, None, true).await];
    for (_, t) in tokens {
        after.push(state(c, id, Some(t), true).await);
    }
    assert_eq!(before, after, "{path} {body} changed the game");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_change_nothing() {
    let db = TempDb::new("refusals");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic", "move_seconds": 3600}"#).await;
    let (id, tokens) = (g.id.as_str(), seats(&g));
    let (south, north) = (g.tokens["south"].as_str(), g.tokens["north"].as_str());
    // Deployment phase.
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"notation": "a2-a3"}"#,
        "wrong_phase",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(south),
        r#"{"offer": true}"#,
        "wrong_phase",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        "{",
        "invalid_json",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        r#"{"shuffle": true}"#,
        "invalid_json",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        r#"{"swap": ["a1", "a2"]}"#,
        "invalid_setup",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        r#"{"setup": {"a1": "flag"}}"#,
        "invalid_setup",
    )
    .await;
    let r = c
        .post(
            &format!("/api/games/{id}/setup"),
            Some(south),
            r#"{"random": true}"#,
        )
        .await;
    assert_eq!(r.status, 200);
    let proposal = r.json()["pending_setup"].clone();
    let flag = proposal
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, k)| *k == "flag")
        .unwrap()
        .0
        .clone();
    let front = proposal
        .as_object()
        .unwrap()
        .iter()
        .find(|(p, _)| p.ends_with('6'))
        .unwrap()
        .0
        .clone();
    // The flag must stay in a headquarters: this swap is refused, nothing changes.
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        &json!({"swap": [flag, front]}).to_string(),
        "invalid_setup",
    )
    .await;
    // A legal swap changes the proposal (two front-row pieces of different kinds).
    let row6: Vec<(String, Value)> = proposal
        .as_object()
        .unwrap()
        .iter()
        .filter(|(p, _)| p.ends_with('6'))
        .map(|(p, k)| (p.clone(), k.clone()))
        .collect();
    if let Some((a, b)) = row6
        .iter()
        .zip(row6.iter().skip(1))
        .find(|(a, b)| a.1 != b.1)
    {
        let r = c
            .post(
                &format!("/api/games/{id}/setup"),
                Some(south),
                &json!({"swap": [a.0, b.0]}).to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.json()["pending_setup"][&a.0], b.1);
    }
    // North cannot see South's proposal.
    assert!(state(&mut c, id, Some(north), false).await["pending_setup"].is_null());
    let pasted = proposal.to_string();
    let r = c
        .post(
            &format!("/api/games/{id}/setup"),
            Some(south),
            &json!({"setup": pasted}).to_string(),
        )
        .await;
    assert_eq!(
        r.json()["pending_setup"],
        proposal,
        "a pasted setup (JSON text)"
    );
    let r = c
        .post(&format!("/api/games/{id}/confirm"), Some(south), "")
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["deployed"], json!(["south"]));
    refused(
        &mut c,
        id,
        &tokens,
        "/confirm",
        Some(south),
        "",
        "wrong_phase",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/setup",
        Some(south),
        r#"{"random": true}"#,
        "wrong_phase",
    )
    .await;
    c.post(&format!("/api/games/{id}/confirm"), Some(north), "")
        .await;
    // Play phase.
    let s = state(&mut c, id, Some(south), false).await;
    assert_eq!(s["to_act"], "south");
    assert!(s["clock"]["deadline_ms"].as_i64().unwrap() > 0);
    let legal = s["legal"][0]["id"].clone();
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(north),
        &json!({"id": legal}).to_string(),
        "not_your_turn",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        "not json",
        "invalid_json",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"id": 1, "notation": "a2-a3"}"#,
        "invalid_json",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"move": "a2-a3"}"#,
        "invalid_json",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"notation": "a1-a12"}"#,
        "illegal_action",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"notation": "z9-a1"}"#,
        "unknown_name",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        r#"{"id": 99999999}"#,
        "out_of_range",
    )
    .await;
    let illegal = (0..2000)
        .find(|i| {
            !s["legal"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["id"] == json!(i))
        })
        .unwrap();
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        &json!({"id": illegal}).to_string(),
        "illegal_action",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(north),
        r#"{"accept": true}"#,
        "illegal_action",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(north),
        r#"{"offer": true, "accept": true}"#,
        "invalid_json",
    )
    .await;
    // Draws: offer, decline, offer, accept.
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(south),
            r#"{"offer": true}"#,
        )
        .await;
    assert_eq!(r.json()["draw_offer"], "south");
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(south),
        r#"{"accept": true}"#,
        "illegal_action",
    )
    .await;
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(north),
            r#"{"decline": true}"#,
        )
        .await;
    assert!(r.json()["draw_offer"].is_null());
    c.post(
        &format!("/api/games/{id}/draw"),
        Some(north),
        r#"{"offer": true}"#,
    )
    .await;
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(south),
            r#"{"accept": true}"#,
        )
        .await;
    let over = r.json();
    assert_eq!(over["phase"], "over");
    assert_eq!(over["result"]["reason"], "agreement");
    assert!(over["clock"]["deadline_ms"].is_null());
    // Game over.
    refused(
        &mut c,
        id,
        &tokens,
        "/action",
        Some(south),
        &json!({"id": legal}).to_string(),
        "game_over",
    )
    .await;
    refused(&mut c, id, &tokens, "/resign", Some(north), "", "game_over").await;
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(north),
        r#"{"offer": true}"#,
        "game_over",
    )
    .await;
    refused(
        &mut c,
        id,
        &tokens,
        "/confirm",
        Some(north),
        "",
        "game_over",
    )
    .await;
    // The full record, now for anybody; it replays to the same result.
    let full = c.get(&format!("/api/games/{id}/record"), None).await;
    assert_eq!(full.status, 200);
    let record = junqi::Record::from_json(&full.body).unwrap();
    assert_eq!(
        Game::from_record(&record).unwrap().result().unwrap().reason,
        junqi::EndReason::Agreement
    );
    // Unknown games and bad creations.
    let r = c.get("/api/games/nope", None).await;
    assert_eq!((r.status, r.code().as_str()), (404, "unknown_game"));
    for (body, code) in [
        ("{", "invalid_json"),
        (r#"{"rules": "chess"}"#, "unknown_name"),
        (r#"{"rules": {"name": "x"}}"#, "invalid_rules"),
        (
            r#"{"rules": "classic", "seats": {"east": "human"}}"#,
            "invalid_json",
        ),
        (
            r#"{"rules": "classic", "seats": {"south": "robot"}}"#,
            "invalid_json",
        ),
        (r#"{"rules": "classic", "move_seconds": 0}"#, "invalid_json"),
    ] {
        let r = c.post("/api/games", None, body).await;
        assert_eq!(r.code(), code, "{body}: {}", r.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_resumes_every_game() {
    let db = TempDb::new("restart");
    let first = server(&db).await;
    let mut c = Client::new(first.addr);
    let g = create(&mut c, r#"{"rules": "classic", "move_seconds": 3600}"#).await;
    let (id, tokens) = (g.id.clone(), seats(&g));
    deploy_all(&mut c, &id, &tokens).await;
    play(&first, &mut c, &id, &tokens, 11, 20).await;
    // A second game still deploying: South's proposal must survive too.
    let d = create(
        &mut c,
        r#"{"rules": "siguo", "seats": {"east": "random", "west": "random"}}"#,
    )
    .await;
    let dsouth = d.tokens["south"].clone();
    let proposal = c
        .post(
            &format!("/api/games/{}/setup?svg=1", d.id),
            Some(&dsouth),
            r#"{"random": true}"#,
        )
        .await
        .json();
    let mut before = Vec::new();
    for (_, t) in &tokens {
        before.push(state(&mut c, &id, Some(t), true).await);
    }
    before.push(state(&mut c, &id, None, true).await);
    drop(first);
    let second = server(&db).await;
    let mut c = Client::new(second.addr);
    let mut after = Vec::new();
    for (_, t) in &tokens {
        after.push(state(&mut c, &id, Some(t), true).await);
    }
    after.push(state(&mut c, &id, None, true).await);
    assert_eq!(
        before, after,
        "same views, legal actions, clocks and versions after the restart"
    );
    let resumed = state(&mut c, &d.id, Some(&dsouth), true).await;
    assert_eq!(resumed["pending_setup"], proposal["pending_setup"]);
    assert_eq!(resumed["svg"], proposal["svg"]);
    // Play goes on to the end.
    let n = play(&second, &mut c, &id, &tokens, 12, 5000).await;
    assert!(n < 5000);
    assert_eq!(state(&mut c, &id, None, false).await["phase"], "over");
}

/// Waits until the game is over (random seats play by themselves).
async fn until_over(c: &mut Client, id: &str, limit: Duration) -> Value {
    let start = Instant::now();
    loop {
        let s = state(c, id, None, false).await;
        if s["phase"] == "over" {
            return s;
        }
        assert!(start.elapsed() < limit, "not over after {limit:?}: {s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_classic_game_of_random_seats_finishes() {
    let db = TempDb::new("random");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(
        &mut c,
        r#"{"rules": "classic", "seats": {"south": "random", "north": "random"}}"#,
    )
    .await;
    assert!(g.tokens.is_empty(), "random seats have no tokens");
    let over = until_over(&mut c, &g.id, Duration::from_secs(120)).await;
    assert!(over["result"]["text"].as_str().is_some());
    let full = c.get(&format!("/api/games/{}/record", g.id), None).await;
    let game = Game::from_record(&junqi::Record::from_json(&full.body).unwrap()).unwrap();
    assert_eq!(over["view"]["ply"], json!(game.position().ply()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn siguo_with_four_seats() {
    let db = TempDb::new("siguo");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "siguo", "seats": {"south": "human", "north": "human", "east": "random", "west": "random"}}"#).await;
    let tokens = seats(&g);
    assert_eq!(tokens.len(), 2);
    let s = state(&mut c, &g.id, Some(&g.tokens["south"]), false).await;
    assert_eq!(s["seats"].as_object().unwrap().len(), 4);
    assert_eq!(
        s["deployed"],
        json!(["east", "west"]),
        "random seats deploy at creation"
    );
    deploy_all(&mut c, &g.id, &tokens).await;
    // The humans play through the API, the random seats by themselves; every state a
    // human receives is checked against the referee (the version must match, so the
    // check runs when a human is to act and the random seats wait for it). After 120
    // human actions the humans' team resigns, one seat after the other.
    let mut pick = Pick::new(5);
    let mut actions = 0;
    loop {
        if actions == 120 {
            for (_, token) in &tokens {
                let r = c
                    .post(
                        &format!("/api/games/{}/resign?svg=0", g.id),
                        Some(token),
                        "",
                    )
                    .await;
                assert!(
                    r.status == 200 || r.code() == "illegal_action" || r.code() == "game_over",
                    "{}",
                    r.body
                );
            }
            let over = state(&mut c, &g.id, None, false).await;
            assert_eq!(over["phase"], "over");
            assert_eq!(over["result"]["winners"], json!(["east", "west"]));
            return;
        }
        let mut acted = false;
        for (side, token) in &tokens {
            let s = state(&mut c, &g.id, Some(token), false).await;
            if s["phase"] == "over" {
                assert!(s["result"]["winners"].as_array().is_some());
                return;
            }
            if s["to_act"] == json!(side.name()) {
                assert_no_leak(&server, &g.id, Some(*side), &s).await;
                let legal = s["legal"].as_array().unwrap();
                let a = &legal[pick.below(legal.len())];
                let r = c
                    .post(
                        &format!("/api/games/{}/action?svg=0", g.id),
                        Some(token),
                        &json!({"id": a["id"]}).to_string(),
                    )
                    .await;
                assert_eq!(r.status, 200, "{}", r.body);
                acted = true;
                actions += 1;
            }
        }
        if !acted {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_times_out_and_the_core_ends_the_game() {
    let db = TempDb::new("clock");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    // A custom rule set: classic with one time-out allowed.
    let mut rules: Value =
        serde_json::from_str(junqi::RuleSet::preset_json("classic").unwrap()).unwrap();
    rules["name"] = json!("classic-one-timeout");
    rules["options"]["max_timeouts"] = json!(1);
    let g = create(
        &mut c,
        &json!({"rules": rules, "move_seconds": 1}).to_string(),
    )
    .await;
    let tokens = seats(&g);
    deploy_all(&mut c, &g.id, &tokens).await;
    let s = state(&mut c, &g.id, Some(&g.tokens["north"]), false).await;
    assert_eq!(s["rules"], "classic-one-timeout");
    assert_eq!(s["clock"]["move_seconds"], 1);
    let over = until_over(&mut c, &g.id, Duration::from_secs(5)).await;
    assert_eq!(over["result"]["reason"], "timeouts");
    assert_eq!(over["result"]["winners"], json!(["north"]));
    assert_eq!(over["clock"]["timeouts"]["south"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_sent_events_carry_versions_only() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let db = TempDb::new("sse");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic"}"#).await;
    let north = g.tokens["north"].clone();
    let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut sse = BufReader::new(stream);
    let req = format!(
        "GET /api/games/{}/events?token={north} HTTP/1.1\r\nHost: x\r\n\r\n",
        g.id
    );
    sse.get_mut().write_all(req.as_bytes()).await.unwrap();
    let (status, _) = common::http::read_head(&mut sse).await.unwrap();
    assert_eq!(status, 200);
    let mut data = Vec::new();
    let mut line = String::new();
    let mut changed = false;
    while data.len() < 2 {
        line.clear();
        tokio::time::timeout(Duration::from_secs(5), sse.read_line(&mut line))
            .await
            .unwrap()
            .unwrap();
        if let Some(d) = line.trim().strip_prefix("data: ") {
            data.push(serde_json::from_str::<Value>(d).unwrap());
            if !changed {
                // North is connected now; South's change arrives as a new version.
                let s = state(&mut c, &g.id, Some(&g.tokens["south"]), false).await;
                assert_eq!(s["seats"]["north"]["connected"], true);
                assert_eq!(s["seats"]["south"]["connected"], false);
                c.post(
                    &format!("/api/games/{}/setup", g.id),
                    Some(&g.tokens["south"]),
                    r#"{"random": true}"#,
                )
                .await;
                changed = true;
            }
        }
    }
    assert_eq!(data, vec![json!({"version": 1}), json!({"version": 2})]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fanqi_flips_and_has_no_deployment() {
    let db = TempDb::new("fanqi");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "fanqi"}"#).await;
    let tokens = seats(&g);
    let s = state(&mut c, &g.id, Some(&g.tokens["south"]), true).await;
    assert_eq!(s["phase"], "move");
    assert_no_leak(&server, &g.id, Some(Side::South), &s).await;
    assert!(s["legal"]
        .as_array()
        .unwrap()
        .iter()
        .all(|a| a["to"].is_null() && a["notation"].as_str().unwrap().starts_with("flip")));
    let r = c
        .post(
            &format!("/api/games/{}/confirm", g.id),
            Some(&g.tokens["south"]),
            "",
        )
        .await;
    assert_eq!(r.code(), "wrong_phase");
    play(&server, &mut c, &g.id, &tokens, 3, 40).await;
    let r = c
        .post(
            &format!("/api/games/{}/resign", g.id),
            Some(&g.tokens["north"]),
            "",
        )
        .await;
    assert_eq!(r.json()["result"]["winners"], json!(["south"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_seats_in_play_decide_a_siguo_draw() {
    // An eliminated seat can neither offer nor accept a draw, and its pending offer
    // lapses when it goes out (the core's Game::may_decide_draw decides).
    let db = TempDb::new("siguo-draws");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "siguo"}"#).await;
    let (id, tokens) = (g.id.as_str(), seats(&g));
    assert_eq!(tokens.len(), 4);
    deploy_all(&mut c, id, &tokens).await;
    let t = |s: &str| g.tokens[s].clone();
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(&t("east")),
            r#"{"offer": true}"#,
        )
        .await;
    assert_eq!(r.json()["draw_offer"], "east", "{}", r.body);
    let r = c
        .post(&format!("/api/games/{id}/resign"), Some(&t("east")), "")
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.json()["draw_offer"].is_null(),
        "the offer lapses with its seat: {}",
        r.json()["draw_offer"]
    );
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(&t("east")),
        r#"{"offer": true}"#,
        "side_not_in_game",
    )
    .await;
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(&t("south")),
            r#"{"offer": true}"#,
        )
        .await;
    assert_eq!(r.json()["draw_offer"], "south", "{}", r.body);
    refused(
        &mut c,
        id,
        &tokens,
        "/draw",
        Some(&t("east")),
        r#"{"accept": true}"#,
        "side_not_in_game",
    )
    .await;
    let r = c
        .post(
            &format!("/api/games/{id}/draw"),
            Some(&t("west")),
            r#"{"accept": true}"#,
        )
        .await;
    assert_eq!(r.json()["result"]["reason"], "agreement", "{}", r.body);
}
