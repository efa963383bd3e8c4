//! A finished game opens as a replay (`GET /api/games/ID/replay?step=K&view=full|seat`):
//! refused while the game is on, every step from the start to the end, every piece
//! shown in the full view, a seat's own view at that step with its token.

mod common;

use common::{create, server, state, Client, Pick, TempDb};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_replays_step_by_step() {
    let db = TempDb::new("replay");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic"}"#).await;
    for side in ["south", "north"] {
        let r = c.post(&format!("/api/games/{}/confirm", g.id), Some(&g.tokens[side]), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // While the game is on, a replay would show every piece: refused.
    let r = c.get(&format!("/api/games/{}/replay", g.id), None).await;
    assert_eq!((r.status, r.code()), (409, "game_not_over".to_owned()), "{}", r.body);
    let mut pick = Pick::new(5);
    for _ in 0..6 {
        let s = state(&mut c, &g.id, None, false).await;
        let side = s["to_act"].as_str().unwrap().to_owned();
        let mine = state(&mut c, &g.id, Some(&g.tokens[&side]), false).await;
        let legal = mine["legal"].as_array().unwrap();
        let a = &legal[pick.below(legal.len())];
        let r = c.post(&format!("/api/games/{}/action", g.id), Some(&g.tokens[&side]), &json!({"id": a["id"]}).to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = c.post(&format!("/api/games/{}/resign", g.id), Some(&g.tokens["south"]), "{}").await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Two deployments, six actions, the resignation: nine steps.
    let end = c.get(&format!("/api/games/{}/replay", g.id), None).await.json();
    assert_eq!((end["step"].as_u64(), end["steps"].as_u64(), end["ply"].as_u64()), (Some(9), Some(9), Some(6)), "{end}");
    assert_eq!(end["text"], "south resigned; north wins: resignation");
    let start = c.get(&format!("/api/games/{}/replay?step=0", g.id), None).await.json();
    assert_eq!((start["step"].as_u64(), start["ply"].as_u64()), (Some(0), Some(0)));
    let deployed = c.get(&format!("/api/games/{}/replay?step=2", g.id), None).await.json();
    assert_eq!(deployed["text"], "north deployed");
    // The full view names every piece: 50 of them, each with its kind.
    let svg = deployed["svg"].as_str().unwrap();
    assert_eq!(svg.matches("class=\"piece ").count(), 50, "{svg}");
    assert_eq!(svg.matches("class=\"piece unknown").count(), 0);
    // South's own view at that step: North's pieces unknown to it.
    let seat = c
        .get(&format!("/api/games/{}/replay?step=2&view=seat", g.id), Some(&g.tokens["south"]))
        .await
        .json();
    assert_eq!(seat["view"], "seat");
    assert_eq!(seat["svg"].as_str().unwrap().matches("class=\"piece unknown").count(), 25);
    // Steps out of range and unknown views are refused with a reason.
    let r = c.get(&format!("/api/games/{}/replay?step=10", g.id), None).await;
    assert_eq!((r.status, r.code()), (422, "out_of_range".to_owned()), "{}", r.body);
    assert!(r.body.contains("is not a step from 0 to 9"), "{}", r.body);
    let r = c.get(&format!("/api/games/{}/replay?view=x", g.id), None).await;
    assert_eq!(r.code(), "out_of_range", "{}", r.body);
}
