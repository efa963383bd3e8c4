//! A player's finished games (`GET /api/players/me/games`, SQLite): only the player's
//! own, only finished ones, the most recent first, each with the player's own seat
//! link and the outcome from that seat; kept across a restart, and filled from the
//! games' seats when a file from before the list is opened.

mod common;

use common::{server, state, Client, TempDb};
use serde_json::{json, Value};

async fn player(c: &mut Client, name: &str) -> (String, String) {
    let r = c.post("/api/players", None, &json!({"name": name}).to_string()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let j = r.json();
    (j["id"].as_str().unwrap().to_owned(), j["token"].as_str().unwrap().to_owned())
}

/// A classic game with `south` created by `host`'s player token and North taken by
/// `guest`'s (or played by the random player): its id and the seats' tokens.
async fn game(c: &mut Client, host: &str, guest: Option<&str>) -> (String, String, Option<String>) {
    let mut body = json!({"rules": "classic", "player": host, "lobby": guest.is_some()});
    if guest.is_none() {
        body["seats"] = json!({"north": "random"});
    }
    let r = c.post("/api/games", None, &body.to_string()).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let g = r.json();
    let id = g["game"].as_str().unwrap().to_owned();
    let south = g["seats"]["south"]["token"].as_str().unwrap().to_owned();
    let north = match guest {
        Some(p) => {
            let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": p}).to_string()).await;
            assert_eq!(r.status, 200, "{}", r.body);
            Some(r.json()["token"].as_str().unwrap().to_owned())
        }
        None => None,
    };
    (id, south, north)
}

async fn games(c: &mut Client, token: &str, query: &str) -> Vec<Value> {
    let r = c.get(&format!("/api/players/me/games{query}"), Some(token)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["games"].as_array().unwrap().clone()
}

fn ids(list: &[Value]) -> Vec<&str> {
    list.iter().map(|g| g["id"].as_str().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_lists_and_reopens_the_finished_games() {
    let db = TempDb::new("history");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let (alice_id, alice) = player(&mut c, "alice").await;
    let (bob_id, bob) = player(&mut c, "bob").await;
    let (_, carol) = player(&mut c, "carol").await;
    // Game 1: Alice (South) against Bob; Alice resigns during the deployment.
    let (g1, south1, north1) = game(&mut c, &alice, Some(&bob)).await;
    let north1 = north1.unwrap();
    assert!(games(&mut c, &alice, "").await.is_empty(), "a game in play is not listed");
    let r = c.post(&format!("/api/games/{g1}/resign"), Some(&south1), "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Game 2: Alice against the random player, finished later; game 3 still in play;
    // game 4 Carol's alone.
    let (g2, south2, _) = game(&mut c, &alice, None).await;
    let (_g3, _, _) = game(&mut c, &alice, None).await;
    let (g4, south4, _) = game(&mut c, &carol, None).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    for (g, t) in [(&g2, &south2), (&g4, &south4)] {
        let r = c.post(&format!("/api/games/{g}/resign"), Some(t), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }

    let list = games(&mut c, &alice, "").await;
    assert_eq!(ids(&list), [g2.as_str(), g1.as_str()], "Alice's finished games, the latest first: {list:?}");
    let first = &list[1];
    assert_eq!(
        (first["rules"].as_str(), first["seat"].as_str(), first["outcome"].as_str(), first["reason"].as_str()),
        (Some("classic"), Some("south"), Some("loss"), Some("resignation")),
        "{first}"
    );
    assert_eq!(first["text"], "you lose: you resigned");
    assert_eq!(first["url"], json!(format!("/play/{g1}?token={south1}")), "her own seat's link");
    assert_eq!(first["players"]["south"]["player"], json!(alice_id));
    assert_eq!(first["players"]["north"]["name"], json!("bob"));
    assert!(!first.to_string().contains(&north1), "another seat's token in the list");
    assert_eq!(ids(&games(&mut c, &alice, "?limit=1").await), [g2.as_str()]);
    // Bob sees the same game from North: a win, with his own link.
    let bobs = games(&mut c, &bob, "").await;
    assert_eq!(ids(&bobs), [g1.as_str()]);
    assert_eq!((bobs[0]["seat"].as_str(), bobs[0]["outcome"].as_str()), (Some("north"), Some("win")));
    assert_eq!(bobs[0]["url"], json!(format!("/play/{g1}?token={north1}")));
    assert_eq!(bobs[0]["text"], "you win: the other side resigned");
    let zh = c.get("/api/players/me/games?lang=zh-CN", Some(&bob)).await.json();
    assert!(zh["games"][0]["text"].as_str().unwrap().starts_with("你赢了"), "{zh}");
    assert_eq!(bobs[0]["players"]["south"]["player"], json!(alice_id));
    assert_ne!(bobs[0]["players"]["north"]["player"], json!(alice_id));
    assert_eq!(bobs[0]["players"]["north"]["player"], json!(bob_id));
    assert_eq!(ids(&games(&mut c, &carol, "").await), [g4.as_str()]);
    // The link opens the game as that seat.
    let token = bobs[0]["url"].as_str().unwrap().rsplit_once("token=").unwrap().1.to_owned();
    let s = state(&mut c, &g1, Some(&token), false).await;
    assert_eq!((s["seat"].as_str(), s["phase"].as_str()), (Some("north"), Some("over")));

    // Refused: no token, a forged one, a seat's token, a bad limit.
    assert_eq!(c.get("/api/players/me/games", None).await.code(), "bad_token");
    let forged = format!("{alice_id}.{}", "0".repeat(32));
    assert_eq!(c.get("/api/players/me/games", Some(&forged)).await.code(), "bad_token");
    assert_eq!(c.get("/api/players/me/games", Some(&south1)).await.code(), "bad_token");
    for bad in ["0", "101", "-1", "x", ""] {
        let r = c.get(&format!("/api/players/me/games?limit={bad}"), Some(&alice)).await;
        assert_eq!((r.status, r.code().as_str()), (400, "bad_limit"), "limit={bad}: {}", r.body);
    }
    assert_eq!(games(&mut c, &alice, "?limit=100").await.len(), 2);

    // A restart keeps the list; a file from before the list (no seat_players table)
    // gets it filled from the games' seats when opened.
    drop(server);
    let server = common::server(&db).await;
    let mut c = Client::new(server.addr);
    assert_eq!(ids(&games(&mut c, &alice, "").await), [g2.as_str(), g1.as_str()]);
    drop(server);
    {
        let conn = rusqlite::Connection::open(&db.0).unwrap();
        conn.execute_batch("DROP TABLE seat_players").unwrap();
    }
    let server = common::server(&db).await;
    let mut c = Client::new(server.addr);
    assert_eq!(ids(&games(&mut c, &alice, "").await), [g2.as_str(), g1.as_str()], "filled again");
    assert_eq!(ids(&games(&mut c, &bob, "").await), [g1.as_str()]);
}
