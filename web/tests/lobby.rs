//! Players, the lobby, quick pairing, rematch, ratings and clocks through the HTTP API
//! (SQLite): what a person finds and plays, and that none of it tells a game's hidden
//! facts.

mod common;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{create, server, state, Client, Pick, TempDb};
use junqi_web::clock::Clock;
use junqi_web::Config;
use serde_json::{json, Value};

async fn player(c: &mut Client, name: &str) -> (String, String) {
    let r = c.post("/api/players", None, &json!({"name": name}).to_string()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let j = r.json();
    (j["id"].as_str().unwrap().to_owned(), j["token"].as_str().unwrap().to_owned())
}

/// Plays random legal moves for the human seats whose tokens are given until the game
/// ends, `plies` plies are played, or `limit` passes (server seats play themselves).
async fn play_until(c: &mut Client, id: &str, tokens: &[(&str, String)], plies: u64, seed: u64) -> Value {
    let mut pick = Pick::new(seed);
    let start = Instant::now();
    loop {
        let s = state(c, id, None, false).await;
        if s["phase"] == "over" || s["view"]["ply"].as_u64() >= Some(plies) {
            return s;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "stuck: {s}");
        let Some(to_act) = s["to_act"].as_str() else {
            tokio::time::sleep(Duration::from_millis(2)).await;
            continue;
        };
        let Some((_, t)) = tokens.iter().find(|(side, _)| *side == to_act) else {
            tokio::time::sleep(Duration::from_millis(2)).await;
            continue;
        };
        let mine = state(c, id, Some(t), false).await;
        let legal = mine["legal"].as_array().unwrap();
        if legal.is_empty() {
            continue;
        }
        let a = &legal[pick.below(legal.len())];
        let r = c
            .post(&format!("/api/games/{id}/action"), Some(t), &json!({"id": a["id"]}).to_string())
            .await;
        assert!(r.status == 200 || r.code() == "not_your_turn", "{}", r.body);
    }
}

/// No token, secret or hidden piece in a public answer.
fn assert_public(text: &str, secrets: &[&str]) {
    for s in secrets {
        assert!(!text.contains(s), "a secret in a public answer: {text}");
    }
    let v: Value = serde_json::from_str(text).unwrap();
    fn walk(v: &Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    assert!(!["token", "pending", "setup", "pieces", "position", "legal"].contains(&k.as_str()), "{k} in {v}");
                    walk(x);
                }
            }
            Value::Array(a) => a.iter().for_each(walk),
            _ => {}
        }
    }
    walk(&v);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_list_join_play_and_are_rated() {
    let db = TempDb::new("lobby");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (alice_id, alice) = player(&mut c, "Alice").await;
    let (bob_id, bob) = player(&mut c, "bob").await;
    // Names are unique without case, and checked.
    let r = c.post("/api/players", None, r#"{"name": "ALICE"}"#).await;
    assert_eq!((r.status, r.code().as_str()), (409, "name_taken"));
    for bad in [r#"{"name": ""}"#, r#"{"name": "   "}"#, r#"{"name": "bot:greedy"}"#, r#"{"name": "a\u0007b"}"#] {
        assert_eq!(c.post("/api/players", None, bad).await.code(), "invalid_json", "{bad}");
    }
    let long = json!({"name": "x".repeat(25)}).to_string();
    assert_eq!(c.post("/api/players", None, &long).await.code(), "invalid_json");
    let me = c.get("/api/players/me", Some(&alice)).await;
    assert_eq!(me.json()["name"], "Alice");
    let forged = format!("{alice_id}.00000000000000000000000000000000");
    assert_eq!(c.get("/api/players/me", Some(&forged)).await.code(), "bad_token");
    // Alice lists a rated game in the lobby and takes South; North stays open.
    let r = c
        .post("/api/games", None, &json!({"rules": "classic", "lobby": true, "rated": true, "player": alice, "move_seconds": 600}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let g = r.json();
    let id = g["game"].as_str().unwrap().to_owned();
    let south = g["seats"]["south"]["token"].as_str().unwrap().to_owned();
    assert!(g["seats"]["north"].get("token").is_none());
    let lobby = c.get("/api/lobby", None).await;
    assert_public(&lobby.body, &[&south, &alice]);
    let entry = lobby.json()["open"].as_array().unwrap().iter().find(|e| e["game"] == json!(id)).cloned().unwrap();
    assert_eq!(entry["seats"]["south"], json!({"kind": "human", "taken": true, "name": "Alice", "player": alice_id}));
    assert_eq!(entry["seats"]["north"], json!({"kind": "human", "taken": false}));
    assert_eq!((entry["rated"].clone(), entry["clock"]["move_seconds"].clone()), (json!(true), json!(600)));
    // Alice cannot take a second seat; Bob takes North; then nobody else can join.
    let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": alice}).to_string()).await;
    assert_eq!((r.status, r.code().as_str()), (409, "already_seated"));
    let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": bob}).to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let north = r.json()["token"].as_str().unwrap().to_owned();
    let (_, carol) = player(&mut c, "carol").await;
    let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": carol}).to_string()).await;
    assert_eq!((r.status, r.code().as_str()), (409, "seat_taken"));
    let lobby = c.get("/api/lobby", None).await;
    assert_public(&lobby.body, &[&south, &north, &alice, &bob]);
    assert!(lobby.json()["playing"].as_array().unwrap().iter().any(|e| e["game"] == json!(id)), "now listed to watch");
    for t in [&south, &north] {
        let r = c.post(&format!("/api/games/{id}/confirm"), Some(t), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // A rated game is played under the platform's rules: no resignation before ply 20.
    let r = c.post(&format!("/api/games/{id}/resign"), Some(&north), "").await;
    assert_eq!((r.status, r.code().as_str()), (422, "illegal_action"), "{}", r.body);
    let tokens = [("south", south.clone()), ("north", north.clone())];
    let s = play_until(&mut c, &id, &tokens, 31, 7).await;
    let over = if s["phase"] == "over" {
        s
    } else {
        let r = c.post(&format!("/api/games/{id}/resign"), Some(&north), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    };
    assert_eq!(over["phase"], "over");
    // The ratings arrive shortly after the end, for every viewer.
    let start = Instant::now();
    let seen = loop {
        let s = state(&mut c, &id, None, false).await;
        if !s["ratings"].is_null() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "no ratings: {s}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let ratings = &seen["ratings"];
    assert_public(&ratings.to_string(), &[&south, &north]);
    let winners = over["result"]["winners"].as_array().unwrap().clone();
    for (side, name, pid) in [("south", "Alice", &alice_id), ("north", "bob", &bob_id)] {
        let r = &ratings[side];
        assert_eq!((r["name"].as_str(), r["player"].as_str(), r["pool"].as_str()), (Some(name), Some(pid.as_str()), Some("people")));
        assert_eq!(r["rating_before"], 1500.0);
        let won = winners.contains(&json!(side));
        let drawn = winners.is_empty();
        let delta = r["rating_delta"].as_f64().unwrap();
        match (drawn, won) {
            (true, _) => assert_eq!(delta, 0.0),
            (false, true) => assert_eq!((delta, r["points"].as_i64()), (16.0, Some(1)), "{r}"),
            (false, false) => assert_eq!((delta, r["points"].as_i64()), (-16.0, Some(-1)), "{r}"),
        }
        // The player's profile and the leaderboard say the same.
        let p = c.get(&format!("/api/players/{pid}"), None).await.json();
        assert_eq!(p["ratings"]["people"]["rating"], r["rating"]);
        assert_eq!(p["ratings"]["people"]["games"], 1);
        // Counted as won, drawn or lost (kills `delete ! in rate_game` on
        // `!result.is_draw()`, which counted every decided game a draw).
        let counts = |k: &str| p["ratings"]["people"][k].as_i64().unwrap();
        assert_eq!((counts("wins"), counts("draws"), counts("losses")), (won as i64, drawn as i64, (!won && !drawn) as i64), "{p}");
    }
    let board = c.get("/api/ratings?pool=people", None).await;
    assert_public(&board.body, &[&alice, &bob]);
    let names: Vec<Value> = board.json()["players"].as_array().unwrap().iter().map(|p| p["name"].clone()).collect();
    assert_eq!(names.len(), 2);
    assert_eq!(c.get("/api/ratings?pool=elves", None).await.code(), "invalid_json");
    // A rematch: same players, sides swapped; each seat gets its own new token.
    let r = c.post(&format!("/api/games/{id}/rematch"), Some(&south), "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let again = r.json();
    assert_eq!(again["seat"], "north", "Alice plays North in the rematch");
    let rid = again["game"].as_str().unwrap().to_owned();
    assert_eq!(state(&mut c, &id, None, false).await["rematch"], json!(rid));
    let r = c.post(&format!("/api/games/{id}/rematch"), Some(&north), "").await;
    let bobs = r.json();
    assert_eq!((bobs["game"].as_str(), bobs["seat"].as_str()), (Some(rid.as_str()), Some("south")));
    assert_ne!(bobs["token"], again["token"]);
    let rs = state(&mut c, &rid, bobs["token"].as_str(), false).await;
    assert_eq!((rs["seat"].as_str(), rs["seats"]["south"]["name"].as_str()), (Some("south"), Some("bob")));
    assert_eq!(rs["rematch_of"], json!(id));
    assert_eq!(rs["clock"]["move_seconds"], 600);
    assert_eq!(c.post(&format!("/api/games/{id}/rematch"), None, "").await.code(), "bad_token");
    // A game in play has no rematch yet.
    assert_eq!(c.post(&format!("/api/games/{rid}/rematch"), bobs["token"].as_str(), "").await.code(), "wrong_phase");
    // After a restart the finished game still shows its rating changes, and every
    // standing is as it was (nothing rated twice).
    let profile = c.get(&format!("/api/players/{alice_id}"), None).await.json();
    drop(server);
    let server = common::server(&db).await;
    let mut c = Client::new(server.addr);
    let again = state(&mut c, &id, None, false).await;
    assert_eq!(again["ratings"], seen["ratings"]);
    assert_eq!(c.get(&format!("/api/players/{alice_id}"), None).await.json(), profile);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_the_computer_to_the_end_in_the_bots_pool() {
    let db = TempDb::new("computer");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (_, dan) = player(&mut c, "dan").await;
    let r = c
        .post("/api/games", None, &json!({"rules": "classic", "seats": {"north": "greedy"}, "rated": true, "player": dan}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let g = r.json();
    let id = g["game"].as_str().unwrap().to_owned();
    let t = g["seats"]["south"]["token"].as_str().unwrap().to_owned();
    c.post(&format!("/api/games/{id}/confirm"), Some(&t), "").await;
    let over = play_until(&mut c, &id, &[("south", t.clone())], 10_000, 3).await;
    assert_eq!(over["phase"], "over");
    let start = Instant::now();
    let s = loop {
        let s = state(&mut c, &id, None, false).await;
        if !s["ratings"].is_null() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(5));
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(s["ratings"]["north"]["player"], "bot:greedy");
    assert_eq!(s["ratings"]["north"]["name"], "greedy bot");
    assert_eq!(s["ratings"]["south"]["pool"], "bots");
    let board = c.get("/api/ratings?pool=bots", None).await.json();
    assert!(board["players"].as_array().unwrap().iter().any(|p| p["name"] == "greedy bot"));
    assert!(c.get("/api/ratings?pool=people", None).await.json()["players"].as_array().unwrap().is_empty(), "people's pool untouched");
    // An unrated game (no player) is settled without ratings.
    let plain = create(&mut c, r#"{"rules": "classic", "seats": {"south": "random", "north": "random"}}"#).await;
    let start = Instant::now();
    while state(&mut c, &plain.id, None, false).await["phase"] != "over" {
        assert!(start.elapsed() < Duration::from_secs(60));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(state(&mut c, &plain.id, None, false).await["ratings"].is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_pairs_two_waiting_people() {
    let db = TempDb::new("pairing");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (_, ann) = player(&mut c, "ann").await;
    let (_, ben) = player(&mut c, "ben").await;
    let (_, cid) = player(&mut c, "cid").await;
    let ask = |p: &str, extra: Value| {
        let mut b = json!({"player": p, "rules": "classic", "game_seconds": 300, "increment_seconds": 2});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b.to_string()
    };
    let r = c.post("/api/pair", None, &ask(&ann, json!({}))).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let ticket = r.json()["waiting"]["ticket"].as_str().unwrap().to_owned();
    assert_eq!(c.get(&format!("/api/pair/{ticket}"), Some(&ann)).await.status, 202);
    // Another's token cannot read the ticket.
    assert_eq!(c.get(&format!("/api/pair/{ticket}"), Some(&ben)).await.code(), "unknown_ticket");
    // Cid asks for another clock: he waits apart.
    let r = c.post("/api/pair", None, &ask(&cid, json!({"game_seconds": 600}))).await;
    assert_eq!(r.status, 202);
    let cids = r.json()["waiting"]["ticket"].as_str().unwrap().to_owned();
    // Ben asks for Ann's: paired at once.
    let r = c.post("/api/pair", None, &ask(&ben, json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let bens = r.json()["paired"].clone();
    let r = c.get(&format!("/api/pair/{ticket}"), Some(&ann)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let anns = r.json()["paired"].clone();
    assert_eq!(anns["game"], bens["game"]);
    assert_ne!(anns["seat"], bens["seat"]);
    let id = anns["game"].as_str().unwrap();
    let s = state(&mut c, id, anns["token"].as_str(), false).await;
    assert_eq!(s["rated"], true);
    assert_eq!(s["clock"]["game_seconds"], 300);
    assert_eq!(s["seats"][anns["seat"].as_str().unwrap()]["name"], "ann");
    // The ticket is done; Cid stops waiting.
    assert_eq!(c.get(&format!("/api/pair/{ticket}"), Some(&ann)).await.code(), "unknown_ticket");
    let r = c.request("DELETE", &format!("/api/pair/{cids}"), Some(&cid), None).await;
    assert_eq!(r.status, 204);
    assert_eq!(c.get(&format!("/api/pair/{cids}"), Some(&cid)).await.code(), "unknown_ticket");
    // Four seats cannot be paired two by two.
    let r = c.post("/api/pair", None, &json!({"player": ann, "rules": "siguo"}).to_string()).await;
    assert_eq!(r.code(), "invalid_json");
    let r = c.post("/api/pair", None, &json!({"player": "nobody.x", "rules": "classic"}).to_string()).await;
    assert_eq!(r.code(), "bad_token");
    // Two who asked at the same moment both wait (neither found the other): the next
    // ask of either pairs them, into one game.
    let (ann_id, ben_id) = (ann.split('.').next().unwrap(), ben.split('.').next().unwrap());
    for (who, t) in [(ann_id, "t-ann"), (ben_id, "t-ben")] {
        let ticket = junqi_web::store::Ticket {
            ticket: t.into(),
            player: who.into(),
            key: "classic|0|0|0|0".into(),
            polled_ms: server.app.now_ms(),
            game: None,
            seat: None,
            token: None,
        };
        server.app.store.pair_enqueue(&ticket).await.unwrap();
    }
    let r = c.get("/api/pair/t-ben", Some(&ben)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let bens = r.json()["paired"].clone();
    let r = c.get("/api/pair/t-ann", Some(&ann)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["paired"]["game"], bens["game"]);
    assert_ne!(r.json()["paired"]["seat"], bens["seat"]);
    // One queue place per player: asking again (another tab) replaces the waiting
    // ticket; once paired, asking again answers that game.
    let r = c.post("/api/pair", None, &ask(&ann, json!({}))).await;
    let first = r.json()["waiting"]["ticket"].as_str().unwrap().to_owned();
    let r = c.post("/api/pair", None, &ask(&ann, json!({}))).await;
    let second = r.json()["waiting"]["ticket"].as_str().unwrap().to_owned();
    assert_eq!(c.get(&format!("/api/pair/{first}"), Some(&ann)).await.code(), "unknown_ticket");
    let r = c.post("/api/pair", None, &ask(&ben, json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let game = r.json()["paired"]["game"].clone();
    let r = c.post("/api/pair", None, &ask(&ann, json!({}))).await;
    assert_eq!((r.status, &r.json()["paired"]["game"]), (200, &game), "{}", r.body);
    assert_eq!(c.get(&format!("/api/pair/{second}"), Some(&ann)).await.code(), "unknown_ticket");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seat_of_a_rated_game_is_a_players() {
    let db = TempDb::new("rated-seats");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (_, ann) = player(&mut c, "ann").await;
    // Rated without the creator's player token: refused, nothing made.
    let r = c.post("/api/games", None, r#"{"rules": "classic", "lobby": true, "rated": true}"#).await;
    assert_eq!(r.code(), "bad_token", "{}", r.body);
    // Rated and unlisted with two people: both links would go to the creator.
    let r = c.post("/api/games", None, &json!({"rules": "classic", "rated": true, "player": ann}).to_string()).await;
    assert_eq!(r.code(), "invalid_json", "{}", r.body);
    let r = c
        .post("/api/games", None, &json!({"rules": "classic", "lobby": true, "rated": true, "player": ann}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"].as_str().unwrap().to_owned();
    // Joining it without a name is refused; with one, it is taken.
    let r = c.post(&format!("/api/games/{id}/join"), None, "{}").await;
    assert_eq!(r.code(), "bad_token", "{}", r.body);
    let (_, ben) = player(&mut c, "ben").await;
    let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": ben}).to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A clock the test moves by hand.
struct Hand(AtomicI64);

impl Clock for Hand {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_clock_takes_each_turn_from_the_bank_and_adds_the_increment() {
    let db = TempDb::new("game-clock");
    let hand = Arc::new(Hand(AtomicI64::new(1_000_000)));
    let server = junqi_web::start_with_clock(
        Config { port: 0, db: db.0.display().to_string(), bot_delay: Duration::ZERO, ..Config::default() },
        hand.clone(),
    )
    .await
    .unwrap();
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic", "game_seconds": 60, "increment_seconds": 2, "move_seconds": 30}"#).await;
    for side in ["south", "north"] {
        c.post(&format!("/api/games/{}/confirm", g.id), Some(&g.tokens[side]), "").await;
    }
    let s = state(&mut c, &g.id, None, false).await;
    let clock = &s["clock"];
    assert_eq!(clock["remaining_ms"], json!({"south": 60_000, "north": 60_000}));
    assert_eq!(clock["turn_started_ms"], 1_000_000);
    assert_eq!(clock["deadline_ms"], 1_030_000, "the move clock is the lesser limit");
    // South thinks 7 s and moves: 60 − 7 + 2 = 55 s left; North's turn starts.
    hand.0.store(1_007_000, Ordering::SeqCst);
    let mine = state(&mut c, &g.id, Some(&g.tokens["south"]), false).await;
    let r = c
        .post(&format!("/api/games/{}/action", g.id), Some(&g.tokens["south"]), &json!({"id": mine["legal"][0]["id"]}).to_string())
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let clock = &r.json()["clock"];
    assert_eq!(clock["remaining_ms"], json!({"south": 55_000, "north": 60_000}));
    assert_eq!((clock["turn_started_ms"].as_i64(), clock["deadline_ms"].as_i64()), (Some(1_007_000), Some(1_037_000)));
    // A draw offer does not restart North's turn.
    hand.0.store(1_009_000, Ordering::SeqCst);
    let r = c.post(&format!("/api/games/{}/draw", g.id), Some(&g.tokens["south"]), r#"{"offer": true}"#).await;
    assert_eq!(r.json()["clock"]["turn_started_ms"], 1_007_000);
    // North uses 40 s of its bank in three turns of 13 s... its bank alone then limits.
    hand.0.store(1_007_000 + 29_000, Ordering::SeqCst);
    let mine = state(&mut c, &g.id, Some(&g.tokens["north"]), false).await;
    let r = c
        .post(&format!("/api/games/{}/action", g.id), Some(&g.tokens["north"]), &json!({"id": mine["legal"][0]["id"]}).to_string())
        .await;
    let clock = &r.json()["clock"];
    assert_eq!(clock["remaining_ms"]["north"], 60_000 - 29_000 + 2_000);
    assert_eq!(clock["deadline_ms"], 1_036_000 + 30_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deployment_clock_deploys_the_proposal_or_a_random_setup() {
    // On a clock the test moves by hand: nothing is deployed while the game's clock is
    // before the deadline, however long the test waits, and the proposal is deployed
    // once it is past. (It was a 1 s deadline asserted as ">= 500 ms" of wall time.)
    let db = TempDb::new("deploy-clock");
    let hand = Arc::new(Hand(AtomicI64::new(5_000_000)));
    let server = junqi_web::start_with_clock(
        Config { port: 0, db: db.0.display().to_string(), bot_delay: Duration::ZERO, ..Config::default() },
        hand.clone(),
    )
    .await
    .unwrap();
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic", "deploy_seconds": 1}"#).await;
    let s = state(&mut c, &g.id, None, false).await;
    assert_eq!(s["clock"]["deadline_ms"], 5_001_000, "{}", s["clock"]);
    let r = c.post(&format!("/api/games/{}/setup", g.id), Some(&g.tokens["south"]), r#"{"random": true}"#).await;
    let proposal = r.json()["pending_setup"].clone();
    // 1.3 s of real time, the timer woken at least once: the game's clock says 0.999 s.
    hand.0.store(5_000_999, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(state(&mut c, &g.id, None, false).await["phase"], "deploy", "deployed before the deadline");
    hand.0.store(5_001_000, Ordering::SeqCst);
    let start = Instant::now();
    let s = loop {
        let s = state(&mut c, &g.id, Some(&g.tokens["south"]), false).await;
        if s["phase"] != "deploy" {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "not deployed at the deadline");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(s["deployed"], json!(["south", "north"]));
    for p in s["view"]["pieces"].as_array().unwrap().iter().filter(|p| p["owner"] == "south") {
        assert_eq!(proposal[p["point"].as_str().unwrap()], p["kind"], "South's proposal was deployed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_carry_the_cores_ply_and_the_picture_comes_when_asked() {
    let db = TempDb::new("events");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic"}"#).await;
    for side in ["south", "north"] {
        c.post(&format!("/api/games/{}/confirm", g.id), Some(&g.tokens[side]), "").await;
    }
    let tokens = [("south", g.tokens["south"].clone()), ("north", g.tokens["north"].clone())];
    play_until(&mut c, &g.id, &tokens, 6, 1).await;
    let s = state(&mut c, &g.id, Some(&g.tokens["north"]), false).await;
    let events = s["events"].as_array().unwrap();
    assert!(s["svg"].is_null(), "no picture unless asked");
    assert_eq!(s["events_total"].as_u64(), Some(events.len() as u64));
    // Deployments at ply 0; the n-th move's events at ply n; the last ply is the view's.
    assert_eq!(events[0]["ply"], 0);
    assert_eq!(events[1]["ply"], 0);
    let plies: Vec<u64> = events.iter().map(|e| e["ply"].as_u64().unwrap()).collect();
    assert!(plies.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(plies.last().copied(), s["view"]["ply"].as_u64());
    let moves = events.iter().filter(|e| ["moved", "attacked"].contains(&e["event"]["type"].as_str().unwrap())).count() as u64;
    assert_eq!(Some(moves), s["view"]["ply"].as_u64());
    // The tail from an index on.
    let tail = c.get(&format!("/api/games/{}?events_from=3", g.id), Some(&g.tokens["north"])).await.json();
    assert_eq!(tail["events"].as_array().unwrap()[..], events[3..]);
    assert_eq!(tail["events_from"], 3);
    // The picture when asked; a spectator's has no caption naming a seat's view.
    let seat = c.get(&format!("/api/games/{}?svg=1", g.id), Some(&g.tokens["north"])).await.json();
    assert!(seat["svg"].as_str().unwrap().contains("north's view"));
    let spectator = c.get(&format!("/api/games/{}?svg=1", g.id), None).await.json();
    let svg = spectator["svg"].as_str().unwrap();
    assert!(!svg.contains("'s view") && !svg.contains("army not yet assigned"), "a spectator's picture claims a seat");
    assert!(svg.contains("<title>classic — the public view (spectator)</title>"));
    // The spectator's log holds the public events, with the same plies.
    assert!(spectator["events"].as_array().unwrap().iter().all(|e| e["event"]["type"] != "revealed" || e["event"]["cause"] != "engineer_scout"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seats_asking_for_a_rematch_at_once_get_one() {
    let db = TempDb::new("rematch-race");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic"}"#).await;
    let (south, north) = (g.tokens["south"].clone(), g.tokens["north"].clone());
    for t in [&south, &north] {
        let r = c.post(&format!("/api/games/{}/confirm", g.id), Some(t), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = c.post(&format!("/api/games/{}/resign", g.id), Some(&south), "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let (mut a, mut b) = (Client::new(server.addr), Client::new(server.addr));
    let path = format!("/api/games/{}/rematch", g.id);
    let (ra, rb) = tokio::join!(a.post(&path, Some(&south), ""), b.post(&path, Some(&north), ""));
    assert_eq!((ra.status, rb.status), (200, 200), "{} {}", ra.body, rb.body);
    assert_eq!(ra.json()["game"], rb.json()["game"], "one rematch for both");
    assert_ne!(ra.json()["seat"], rb.json()["seat"]);
    let rid = ra.json()["game"].as_str().unwrap().to_owned();
    assert_eq!(state(&mut c, &g.id, None, false).await["rematch"], json!(rid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_s_id_is_1_to_64_characters_even_for_ids_the_store_holds() {
    // The API makes ids of 17 characters; rows with an empty id and ids of 64 and 65
    // characters are written straight into the store, so that only the length check
    // refuses them. Kills `replace > with == / >=` on `id.len() > 64` in player_of and
    // show, and both `replace || with &&` in player_of (an empty id looked up).
    let db = TempDb::new("long-ids");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let store = junqi_web::store::Store::open(&db.0.display().to_string()).await.unwrap();
    let secret = "s".repeat(32);
    for (id, name) in [(String::new(), "empty"), ("i".repeat(64), "sixty-four"), ("j".repeat(65), "sixty-five")] {
        let row = junqi_web::store::PlayerRow { id, name: name.into(), secret: secret.clone(), created_ms: 0 };
        assert!(matches!(store.create_player(&row).await.unwrap(), junqi_web::store::Written::Done));
    }
    let i64 = "i".repeat(64);
    let me = c.get("/api/players/me", Some(&format!("{i64}.{secret}"))).await;
    assert_eq!((me.status, me.json()["name"].as_str()), (200, Some("sixty-four")), "{}", me.body);
    assert_eq!(c.get(&format!("/api/players/{i64}"), None).await.json()["name"], "sixty-four");
    let j65 = "j".repeat(65);
    assert_eq!(c.get("/api/players/me", Some(&format!("{j65}.{secret}"))).await.code(), "bad_token");
    let r = c.get(&format!("/api/players/{j65}"), None).await;
    assert_eq!((r.status, r.code().as_str()), (404, "unknown_player"));
    assert_eq!(c.get("/api/players/me", Some(&format!(".{secret}"))).await.code(), "bad_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unrated_game_of_a_player_against_a_bot_is_settled_without_ratings() {
    // A player, a bot: every seat has an identity, each its own, one a player — all
    // that a rated game needs but being created rated. Once the server has settled it
    // (the `rated` mark of the games table, read from the file), nobody has a standing.
    // Kills each `replace && with || in rate_game` of the ratable condition.
    let db = TempDb::new("unrated-bot");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (pid, eve) = player(&mut c, "eve").await;
    let r = c
        .post("/api/games", None, &json!({"rules": "classic", "seats": {"north": "random"}, "player": eve}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let g = r.json();
    let id = g["game"].as_str().unwrap().to_owned();
    let t = g["seats"]["south"]["token"].as_str().unwrap().to_owned();
    assert_eq!(c.post(&format!("/api/games/{id}/confirm"), Some(&t), "").await.status, 200);
    let r = c.post(&format!("/api/games/{id}/resign"), Some(&t), "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let file = rusqlite::Connection::open(&db.0).unwrap();
    let start = Instant::now();
    while file.query_row("SELECT rated FROM games WHERE id = ?1", [&id], |r| r.get::<_, i64>(0)).unwrap() != 1 {
        assert!(start.elapsed() < Duration::from_secs(5), "never settled");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(state(&mut c, &id, None, false).await["ratings"].is_null());
    assert_eq!(c.get(&format!("/api/players/{pid}"), None).await.json()["ratings"], json!({}));
    assert!(c.get("/api/ratings?pool=bots", None).await.json()["players"].as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_without_a_player_seat_is_settled_without_ratings() {
    // Created rated with the creator's token, but every seat a bot (the creator sits
    // nowhere): each seat has an identity of its own, none a player's, so the game is
    // not rated and no bot gains a standing. Kills `replace > with >= in rate_game` on
    // `named > 0`.
    let db = TempDb::new("rated-bots");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (_, fay) = player(&mut c, "fay").await;
    // A draw at the first ply without a capture: the game ends at once.
    let short = json!({"extends": "classic", "name": "short", "options": {"no_capture_draw_plies": 1}});
    let r = c
        .post(
            "/api/games",
            None,
            &json!({"rules": short, "seats": {"south": "greedy", "north": "random"}, "rated": true, "player": fay}).to_string(),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"].as_str().unwrap().to_owned();
    let file = rusqlite::Connection::open(&db.0).unwrap();
    let start = Instant::now();
    while file.query_row("SELECT rated FROM games WHERE id = ?1", [&id], |r| r.get::<_, i64>(0)).unwrap() != 1 {
        assert!(start.elapsed() < Duration::from_secs(10), "never settled");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(state(&mut c, &id, None, false).await["phase"], "over");
    assert!(state(&mut c, &id, None, false).await["ratings"].is_null());
    assert!(c.get("/api/ratings?pool=bots", None).await.json()["players"].as_array().unwrap().is_empty());
}
