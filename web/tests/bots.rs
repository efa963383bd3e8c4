//! Bot seats through the HTTP API: a bot plays a whole game against a random seat, a
//! search bot plays within the game's clock, a human plays against a bot, and bad seat
//! kinds are refused. Small budgets: the strength is measured elsewhere (docs/agents.md).

mod common;

use std::time::{Duration, Instant};

use common::{create, server, state, Client, TempDb};
use junqi::{Game, Side};
use serde_json::{json, Value};

/// Waits until `done(state)` holds (server seats play by themselves).
async fn until(c: &mut Client, id: &str, limit: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let s = state(c, id, None, false).await;
        if done(&s) {
            return s;
        }
        assert!(start.elapsed() < limit, "not done after {limit:?}: {s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_greedy_bot_plays_a_game_to_the_end_against_a_random_seat() {
    let db = TempDb::new("bot-greedy");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let r = c
        .post(
            "/api/games",
            None,
            r#"{"rules": "classic", "seats": {"south": {"kind": "bot", "agent": "greedy"}, "north": "random"}}"#,
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json();
    assert_eq!(
        created["seats"]["south"],
        json!({"kind": "bot", "agent": "greedy", "name": "greedy bot", "taken": true})
    );
    assert!(
        created["seats"]["south"]["token"].is_null(),
        "a bot seat has no token"
    );
    let id = created["game"].as_str().unwrap().to_owned();
    let over = until(&mut c, &id, Duration::from_secs(120), |s| {
        s["phase"] == "over"
    })
    .await;
    assert_eq!(over["seats"]["south"]["kind"], "bot");
    assert_eq!(over["seats"]["south"]["agent"], "greedy");
    assert!(over["result"]["text"].as_str().is_some());
    let full = c.get(&format!("/api/games/{id}/record"), None).await;
    let game = Game::from_record(&junqi::Record::from_json(&full.body).unwrap()).unwrap();
    assert_eq!(over["view"]["ply"], json!(game.position().ply()));
    assert!(game.result().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_bot_answers_within_the_clock_and_a_human_plays_against_it() {
    let db = TempDb::new("bot-search");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    // South is a person, North the search at level 1 under a 1-second clock: the bot
    // thinks at most half of what is left, so it never times out.
    let g = create(
        &mut c,
        r#"{"rules": "classic", "seats": {"south": "human", "north": {"kind": "bot", "level": 1}}, "move_seconds": 1}"#,
    )
    .await;
    let token = g.tokens["south"].clone();
    // Confirming without a proposal deploys a random setup.
    let r = c
        .post(&format!("/api/games/{}/confirm", g.id), Some(&token), "{}")
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    for _ in 0..3 {
        let s = until(&mut c, &g.id, Duration::from_secs(20), |s| {
            s["to_act"] == "south" || s["phase"] == "over"
        })
        .await;
        if s["phase"] == "over" {
            break;
        }
        let mine = state(&mut c, &g.id, Some(&token), false).await;
        let legal = mine["legal"].as_array().unwrap();
        let r = c
            .post(
                &format!("/api/games/{}/action", g.id),
                Some(&token),
                &json!({"id": legal[0]["id"]}).to_string(),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let s = until(&mut c, &g.id, Duration::from_secs(20), |s| {
        s["to_act"] == "south" || s["phase"] == "over"
    })
    .await;
    assert_eq!(s["seats"]["north"]["agent"], "search:1");
    // North never ran out of time.
    assert_eq!(s["clock"]["timeouts"]["north"], 0, "{s}");
    // The referee: South moved three times and North answered each (or the game ended).
    let handle = server.app.game(&g.id).unwrap();
    let table = handle.lock().await;
    assert!(
        table.game.position().ply() >= 6 || table.over(),
        "ply {}",
        table.game.position().ply()
    );
    assert_eq!(table.game.position().timeouts(Side::North), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_seat_kinds_are_refused() {
    let db = TempDb::new("bot-bad");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    for seat in [
        r#"{"kind": "bot", "level": 9}"#,
        r#"{"kind": "bot", "agent": "search:ms=100000,threads=64"}"#,
        r#""grandmaster""#,
    ] {
        let body = format!(r#"{{"rules": "classic", "seats": {{"south": {seat}}}}}"#);
        let r = c.post("/api/games", None, &body).await;
        assert_eq!(r.status, 400, "{seat}: {}", r.body);
        assert_eq!(r.json()["error"]["code"], "invalid_json", "{}", r.body);
        assert!(
            r.body.contains("seat") || r.body.contains("bot"),
            "{}",
            r.body
        );
    }
    // A bare "bot" is the search at level 3; "greedy" the greedy agent. (A human seat
    // keeps the game in deployment: nobody thinks.)
    for (seats, side, agent) in [
        (r#"{"south": "bot", "north": "human"}"#, "south", "search:3"),
        (
            r#"{"south": "human", "north": "greedy"}"#,
            "north",
            "greedy",
        ),
    ] {
        let body = format!(r#"{{"rules": "classic", "seats": {seats}}}"#);
        let r = c.post("/api/games", None, &body).await;
        assert_eq!(r.status, 201, "{}", r.body);
        assert_eq!(r.json()["seats"][side]["agent"], agent);
    }
}
