//! A database file written by junqi-web 0.1.0 (one `games` table, each game's whole
//! record in a row) is migrated when the server starts on it: its games in play are
//! served at the same ply and view, their seats' tokens still work, a row that does not
//! convert is reported and kept in `games_0_1`, and a second start changes nothing.

mod common;

use common::{server, state, Client, TempDb};
use junqi::{Game, Side};
use rusqlite::{params, Connection};
use serde_json::{json, Value};

/// 0.1.0's schema, as its `Store::open` made it.
const SCHEMA_0_1: &str = "CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    seats TEXT NOT NULL,
    move_seconds INTEGER,
    deadline_ms INTEGER,
    record TEXT NOT NULL,
    version INTEGER NOT NULL,
    draw_offer TEXT,
    pending TEXT NOT NULL,
    over INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
);";

const PLAYING: &str = "0123456789abcdef01";
const WITH_RANDOM: &str = "0123456789abcdef02";
const BAD_RECORD: &str = "0123456789abcdef03";
const BAD_SEATS: &str = "0123456789abcdef04";
const SOUTH: &str = "5555555555555555aaaaaaaaaaaaaaaa";
const NORTH: &str = "7777777777777777bbbbbbbbbbbbbbbb";
const LONE: &str = "9999999999999999cccccccccccccccc";

/// A classic game, deployed, with `plies` moves played (the first legal each time).
fn classic(seed: u64, plies: usize) -> Game {
    let mut g = Game::new("classic", seed).unwrap();
    g.deploy_random(Side::South, seed + 1).unwrap();
    g.deploy_random(Side::North, seed + 2).unwrap();
    for i in 0..plies {
        let legal = g.legal_actions();
        g.play(legal[i % legal.len()]).unwrap();
    }
    g
}

#[allow(clippy::too_many_arguments)]
fn insert(
    db: &Connection,
    id: &str,
    seats: &Value,
    move_seconds: Option<u32>,
    deadline_ms: Option<i64>,
    record: &str,
    version: u64,
    over: bool,
) {
    db.execute(
        "INSERT INTO games (id, rules, seats, move_seconds, deadline_ms, record, version,
            draw_offer, pending, over, updated_ms)
         VALUES (?1, '\"classic\"', ?2, ?3, ?4, ?5, ?6, NULL, '{}', ?7, 1700000000000)",
        params![
            id,
            seats.to_string(),
            move_seconds,
            deadline_ms,
            record,
            version as i64,
            over
        ],
    )
    .unwrap();
}

fn count(db: &Connection, sql: &str) -> i64 {
    db.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_0_1_0_file_is_migrated_on_start_and_its_games_go_on() {
    let db = TempDb::new("migrate");
    let playing = classic(7, 6);
    let with_random = classic(11, 0);
    {
        let c = Connection::open(&db.0).unwrap();
        c.execute_batch(SCHEMA_0_1).unwrap();
        let humans = json!({
            "south": {"kind": "human", "token": SOUTH},
            "north": {"kind": "human", "token": NORTH},
        });
        let record = |g: &Game| serde_json::to_string(&g.record()).unwrap();
        insert(
            &c,
            PLAYING,
            &humans,
            None,
            None,
            &record(&playing),
            9,
            false,
        );
        let mixed = json!({
            "south": {"kind": "human", "token": LONE},
            "north": {"kind": "random", "token": null},
        });
        // A move clock of a day, its turn started now.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        let deadline = now + 86_400_000;
        insert(
            &c,
            WITH_RANDOM,
            &mixed,
            Some(86_400),
            Some(deadline),
            &record(&with_random),
            3,
            false,
        );
        insert(
            &c,
            BAD_RECORD,
            &humans,
            None,
            None,
            "{\"format\": \"nonsense\"",
            4,
            false,
        );
        let random_with_token = json!({
            "south": {"kind": "human", "token": SOUTH},
            "north": {"kind": "random", "token": NORTH},
        });
        insert(
            &c,
            BAD_SEATS,
            &random_with_token,
            None,
            None,
            &record(&playing),
            9,
            false,
        );
    }

    let s = server(&db).await;
    let mut c = Client::new(s.addr);

    // The game in play: the same ply, version and view for each seat, and a legal move
    // by its old token is taken.
    for (side, token) in [(Side::South, SOUTH), (Side::North, NORTH)] {
        let st = state(&mut c, PLAYING, Some(token), false).await;
        assert_eq!(st["seat"], json!(side.name()));
        assert_eq!(st["version"], json!(9));
        assert_eq!(st["view"]["ply"], json!(playing.position().ply()));
        assert_eq!(
            st["view"],
            playing.view(side).state_json(playing.rules()),
            "{side}"
        );
        assert_eq!(st["listed"], json!(false));
        assert_eq!(st["rated"], json!(false));
    }
    let to_act = playing.to_act().unwrap();
    let token = if to_act == Side::South { SOUTH } else { NORTH };
    let st = state(&mut c, PLAYING, Some(token), false).await;
    let action = st["legal"][0]["id"].clone();
    let r = c
        .post(
            &format!("/api/games/{PLAYING}/action"),
            Some(token),
            &json!({ "id": action }).to_string(),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["version"], json!(10));
    assert_eq!(r.json()["view"]["ply"], json!(playing.position().ply() + 1));

    // The game with a random seat and a move clock: served, its clock kept.
    let st = state(&mut c, WITH_RANDOM, Some(LONE), false).await;
    assert_eq!(st["seat"], json!("south"));
    assert_eq!(st["seats"]["north"]["kind"], json!("random"));
    assert_eq!(st["clock"]["move_seconds"], json!(86_400));

    // The rows that do not convert are reported and refused, and kept as they were.
    {
        let broken = s.app.broken.read().unwrap();
        for id in [BAD_RECORD, BAD_SEATS] {
            assert!(broken.contains_key(id), "{id} not reported: {broken:?}");
        }
        assert!(
            broken[BAD_RECORD].contains("record"),
            "{}",
            broken[BAD_RECORD]
        );
        assert!(broken[BAD_SEATS].contains("seats"), "{}", broken[BAD_SEATS]);
    }
    let r = c
        .get(&format!("/api/games/{BAD_RECORD}"), Some(SOUTH))
        .await;
    assert_eq!(r.code(), "game_unavailable", "{}", r.body);
    {
        let f = Connection::open(&db.0).unwrap();
        assert_eq!(count(&f, "SELECT count(*) FROM games_0_1"), 4);
        assert_eq!(count(&f, "SELECT count(*) FROM games"), 2);
        assert_eq!(
            count(&f, &format!("SELECT count(*) FROM games_0_1 WHERE id = '{BAD_RECORD}' AND record = '{{\"format\": \"nonsense\"' AND version = 4")),
            1
        );
        assert_eq!(
            count(
                &f,
                &format!("SELECT count(*) FROM entries WHERE game = '{PLAYING}'")
            ),
            playing.record_len() as i64 + 1
        );
    }
    s.stop();
    drop(s);

    // A second start: nothing more is migrated, the game goes on where it was, the rows
    // that do not convert are reported again.
    let s = server(&db).await;
    let mut c = Client::new(s.addr);
    let st = state(&mut c, PLAYING, Some(SOUTH), false).await;
    assert_eq!(st["version"], json!(10));
    assert_eq!(st["view"]["ply"], json!(playing.position().ply() + 1));
    assert!(s.app.broken.read().unwrap().contains_key(BAD_RECORD));
    {
        let f = Connection::open(&db.0).unwrap();
        assert_eq!(count(&f, "SELECT count(*) FROM games_0_1"), 4);
        assert_eq!(count(&f, "SELECT count(*) FROM games"), 2);
    }
    s.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_file_has_no_old_table() {
    let db = TempDb::new("migrate-new");
    let s = server(&db).await;
    assert!(s.app.broken.read().unwrap().is_empty());
    s.stop();
    drop(s);
    let s = server(&db).await;
    s.stop();
    let f = Connection::open(&db.0).unwrap();
    assert_eq!(
        count(
            &f,
            "SELECT count(*) FROM sqlite_master WHERE name = 'games_0_1'"
        ),
        0
    );
}
