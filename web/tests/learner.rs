//! The learner's view (`?beliefs=1`): for a seat, the kinds each piece it has not seen
//! can still be, by its own deductions; never for a spectator, off in a rated game until
//! it ends.

mod common;

use std::collections::BTreeMap;

use common::{create, server, state, Client, Pick, TempDb};
use serde_json::{json, Value};

/// Plays `plies` random legal plies of a two-seat game through the API.
async fn play(c: &mut Client, id: &str, tokens: &BTreeMap<String, String>, plies: usize, seed: u64) {
    let mut pick = Pick::new(seed);
    for _ in 0..plies {
        let s = state(c, id, None, false).await;
        let Some(side) = s["to_act"].as_str() else { return };
        let mine = state(c, id, Some(&tokens[side]), false).await;
        let legal = mine["legal"].as_array().unwrap();
        let a = &legal[pick.below(legal.len())];
        let r = c.post(&format!("/api/games/{id}/action"), Some(&tokens[side]), &json!({"id": a["id"]}).to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

/// Point -> kind of every piece a seat's view shows with its kind.
fn kinds(view: &Value) -> BTreeMap<String, String> {
    view["view"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some((p["point"].as_str()?.to_owned(), p["kind"].as_str()?.to_owned())))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_sees_what_its_deductions_leave() {
    let db = TempDb::new("learner");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let g = create(&mut c, r#"{"rules": "classic"}"#).await;
    for t in g.tokens.values() {
        let r = c.post(&format!("/api/games/{}/confirm", g.id), Some(t), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    play(&mut c, &g.id, &g.tokens, 30, 11).await;
    let south = &g.tokens["south"];
    let plain = state(&mut c, &g.id, Some(south), false).await;
    assert!(plain.get("beliefs").is_none(), "only when asked");
    let r = c.get(&format!("/api/games/{}?beliefs=1", g.id), Some(south)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let s = r.json();
    let beliefs = s["beliefs"]["pieces"].as_object().expect("beliefs").clone();
    assert_eq!(s["beliefs"]["names"]["engineer"], "工兵", "the kinds' names (the Chinese originals)");
    // Exactly the pieces whose kind South's view does not show, each with the kinds
    // left, the true one (North's own view shows it) among them.
    let shown = kinds(&s);
    let unknown: Vec<String> = s["view"]["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"].is_null())
        .map(|p| p["point"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(beliefs.keys().cloned().collect::<Vec<_>>(), { let mut u = unknown.clone(); u.sort(); u });
    assert!(!unknown.is_empty() && beliefs.keys().all(|p| !shown.contains_key(p)));
    let truth = kinds(&state(&mut c, &g.id, Some(&g.tokens["north"]), false).await);
    let mut narrowed = 0;
    for (point, left) in &beliefs {
        let left: Vec<&str> = left.as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        assert!(left.contains(&truth[point].as_str()), "{point}: {left:?} lacks the true {}", truth[point]);
        narrowed += usize::from(left.len() < 10);
    }
    assert!(beliefs.values().any(|k| k.as_array().unwrap().len() > 1));
    println!("{} unknown pieces, {narrowed} narrowed below 10 kinds", beliefs.len());
    // The likeliest kinds: the core's modelled beliefs of South, rebuilt here from
    // South's own record, under the model shipped for classic — at most three kinds of
    // at least 1 %, likeliest first, rounded to 0.001.
    let likely = s["beliefs"]["likely"].as_object().expect("likely");
    assert_eq!(likely.keys().collect::<Vec<_>>(), beliefs.keys().collect::<Vec<_>>());
    let r = c.get(&format!("/api/games/{}/record", g.id), Some(south)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let record = junqi::PlayerRecord::from_json(&r.body).unwrap();
    let b = junqi::Beliefs::from_player_record(&record).unwrap();
    let rules = b.rules().clone();
    let model = junqi::OpponentModel::for_rules(&rules);
    assert!(!model.is_plain());
    let p = b.probabilities(&model);
    let plain = b.probabilities(&junqi::OpponentModel::plain());
    let (mut listed, mut unlike_plain) = (0, 0);
    for (point, kinds) in likely {
        let at = rules.board().point(point).unwrap();
        let mut want: Vec<(junqi::PieceKind, f64)> = b.candidates(at).iter().map(|k| (k, p.kind(at, k))).collect();
        want.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        let want: Vec<Value> = want
            .into_iter()
            .take(3)
            .filter(|e| e.1 >= 0.01)
            .map(|(k, q)| json!([k.id(), (q * 1000.0).round() / 1000.0]))
            .collect();
        assert_eq!(kinds.as_array().unwrap(), &want, "{point}");
        listed += want.len();
        let top = &kinds[0];
        let kind: junqi::PieceKind = top[0].as_str().unwrap().parse().unwrap();
        unlike_plain += usize::from((plain.kind(at, kind) - top[1].as_f64().unwrap()).abs() > 0.01);
    }
    assert!(listed > likely.len(), "several kinds listed for some pieces");
    println!("{listed} likely kinds listed; {unlike_plain} pieces' likeliest weighed unlike the plain beliefs");
    // Never for a spectator.
    let r = c.get(&format!("/api/games/{}?beliefs=1", g.id), None).await;
    assert_eq!((r.status, r.code().as_str()), (403, "bad_token"), "{}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_in_a_rated_game_until_it_ends() {
    let db = TempDb::new("learner-rated");
    let server = server(&db).await;
    let mut c = Client::new(server.addr);
    let mut players = Vec::new();
    for name in ["lin", "mei"] {
        let r = c.post("/api/players", None, &json!({"name": name}).to_string()).await;
        players.push(r.json()["token"].as_str().unwrap().to_owned());
    }
    let r = c
        .post("/api/games", None, &json!({"rules": "classic", "lobby": true, "rated": true, "player": players[0]}).to_string())
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["game"].as_str().unwrap().to_owned();
    let south = r.json()["seats"]["south"]["token"].as_str().unwrap().to_owned();
    let r = c.post(&format!("/api/games/{id}/join"), None, &json!({"player": players[1]}).to_string()).await;
    let north = r.json()["token"].as_str().unwrap().to_owned();
    for t in [&south, &north] {
        let r = c.post(&format!("/api/games/{id}/confirm"), Some(t), "").await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = c.get(&format!("/api/games/{id}?beliefs=1"), Some(&south)).await;
    assert_eq!((r.status, r.code().as_str()), (403, "learner_view_off"), "{}", r.body);
    // An action asking for it is played, and answered without it.
    let mine = state(&mut c, &id, Some(&south), false).await;
    let a = mine["legal"][0]["id"].clone();
    let r = c.post(&format!("/api/games/{id}/action?beliefs=1"), Some(&south), &json!({"id": a}).to_string()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json().get("beliefs").is_none(), "the learner's view in a rated game's answer");
    // After the end (a draw agreed) it is there.
    for (t, body) in [(&north, json!({"offer": true})), (&south, json!({"accept": true}))] {
        let r = c.post(&format!("/api/games/{id}/draw"), Some(t), &body.to_string()).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = c.get(&format!("/api/games/{id}?beliefs=1"), Some(&south)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["phase"], "over");
    assert!(r.json()["beliefs"]["pieces"].is_object());
}
