//! Finding a game: the lobby's list of open games and games to watch, joining an open
//! seat, the quick pairing of two waiting people, and the rematch.
//!
//! Everything listed is public: the rule set, the clock settings, the seats' kinds and
//! player names, whether each is taken, the phase and the number of plies — never a
//! token, a setup or a piece. Lists and pairing read the store, so that every process
//! on one database lists the same games and pairs the same queue.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use junqi::{RuleSet, Side};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::App;
use crate::newgame::{make_game, NewGame};
use crate::request::{parse, token};
use crate::error::ApiError;
use crate::flow::commit;
use crate::players::{bearer, player_of};
use crate::seat::{new_token, PlayerRef, SeatKind, SeatRequest};
use crate::store::{Ticket, Written};
use crate::table::Settings;
use crate::timer::ClockSettings;

/// How long a waiting player's ticket lives without being asked for.
pub const TICKET_MS: i64 = 20_000;

/// `GET /api/lobby`: `{"open": [...], "playing": [...]}` — listed games with a free
/// seat, and listed games under way to watch, most recently changed first (at most
/// 100 in all). Public facts only.
pub async fn lobby(State(app): State<Arc<App>>) -> Result<Json<Value>, ApiError> {
    let rows = app
        .store
        .lobby(100)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let (mut open, mut playing) = (Vec::new(), Vec::new());
    for r in rows {
        let settings: Value = serde_json::from_str(&r.settings).unwrap_or(Value::Null);
        let entry = json!({
            "game": r.id,
            "rules": r.rules_name,
            "seats": serde_json::from_str::<Value>(&r.seats).unwrap_or(Value::Null),
            "clock": {
                "move_seconds": settings.get("move_seconds"),
                "game_seconds": settings.get("game_seconds"),
                "increment_seconds": settings.get("increment_seconds"),
                "deploy_seconds": settings.get("deploy_seconds"),
            },
            "rated": settings.get("rated").and_then(Value::as_bool).unwrap_or(false),
            "phase": r.phase,
            "ply": r.ply,
            "open_seats": r.open_seats,
            "url": format!("/play/{}", r.id),
        });
        if r.open_seats > 0 {
            open.push(entry);
        } else {
            playing.push(entry);
        }
    }
    Ok(Json(json!({"open": open, "playing": playing})))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JoinRequest {
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    seat: Option<String>,
}

/// A seat given to its player: the token and the link.
fn seat_json(game: &str, side: Side, token: &str) -> Value {
    json!({
        "game": game,
        "seat": side.name(),
        "token": token,
        "url": format!("/play/{game}?token={token}"),
    })
}

/// `POST /api/games/{id}/join` with `{"player": TOKEN?, "seat": "north"?}`: takes an open
/// seat (the one named, else the first) and answers its token. A player takes at most
/// one seat of a game; a rated game's seats are taken with a player's token only.
pub async fn join(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: JoinRequest = if body.is_empty() {
        JoinRequest::default()
    } else {
        parse(&body)?
    };
    let handle = crate::flow::open_game(&app, &id).await?;
    let player = match &req.player {
        Some(t) => Some(player_of(&app, t).await?),
        None => None,
    };
    let wanted = match &req.seat {
        Some(name) => Some(
            Side::from_name(name)
                .ok_or_else(|| ApiError::bad_json(format!("{name:?} is not a seat")))?,
        ),
        None => None,
    };
    let no_seat = |msg: String| ApiError::new(StatusCode::CONFLICT, "seat_taken", msg);
    for _ in 0..5 {
        let mut table = handle.lock().await;
        if table.over() {
            return Err(ApiError::of_kind(
                junqi::ErrorKind::GameOver,
                "the game is over",
            ));
        }
        if table.settings.rated && player.is_none() {
            // Every seat of a rated game is somebody's: a seat taken without a name
            // would leave the game unrated while it says it is rated.
            return Err(ApiError::bad_token(
                "this game is rated: join with your player token (\"player\"; choose a name in the lobby)",
            ));
        }
        if let Some(p) = &player {
            if table
                .seats
                .values()
                .any(|s| s.player.as_ref().is_some_and(|q| q.id == p.id))
            {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "already_seated",
                    "you already have a seat in this game",
                ));
            }
        }
        let mine = |s: &crate::seat::Seat| s.open();
        let side = match wanted {
            Some(w) => match table.seats.get(&w) {
                Some(s) if mine(s) => w,
                Some(_) => return Err(no_seat(format!("the seat {w} is not open to you"))),
                None => {
                    return Err(ApiError::bad_json(format!(
                        "{w} is not a seat of this game"
                    )))
                }
            },
            None => match table.seats.iter().find(|(_, s)| mine(s)) {
                Some((&s, _)) => s,
                None => return Err(no_seat("no seat of this game is open to you".into())),
            },
        };
        let before = table.clone();
        let token = new_token();
        {
            let seat = table.seats.get_mut(&side).expect("found above");
            seat.token = Some(token.clone());
            seat.player = player.as_ref().map(|p| PlayerRef {
                id: p.id.clone(),
                name: p.name.clone(),
            });
        }
        match commit(&app, &handle, &mut table, before).await {
            Ok(()) => return Ok(Json(seat_json(&id, side, &token)).into_response()),
            Err(e) if e.code == "conflict" => continue,
            Err(e) => return Err(e),
        }
    }
    Err(crate::flow::conflict())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairRequest {
    player: String,
    #[serde(default = "classic")]
    rules: String,
    #[serde(flatten)]
    clock: ClockSettings,
}

fn classic() -> String {
    "classic".into()
}

/// What a waiting player waits for: the same preset and the same clocks.
fn pair_key(rules: &str, c: &ClockSettings) -> String {
    format!(
        "{rules}|{}|{}|{}|{}",
        c.move_seconds.unwrap_or(0),
        c.game_seconds.unwrap_or(0),
        c.increment_seconds,
        c.deploy_seconds.unwrap_or(0)
    )
}

/// `POST /api/pair` with `{"player": TOKEN, "rules": "classic", clocks…}`: pairs the
/// player with another waiting for the same preset and clocks — a rated game of the
/// two, sides drawn at random, listed to watch — and answers `{"paired": {"game",
/// "seat", "token", "url"}}`; or, with nobody waiting, queues the player and answers
/// `{"waiting": {"ticket": …}}` (ask `GET /api/pair/{ticket}` with the player's token
/// until paired; a ticket not asked for in 20 s is dropped). Two-player presets only.
pub async fn pair(State(app): State<Arc<App>>, body: Bytes) -> Result<Response, ApiError> {
    let req: PairRequest = parse(&body)?;
    let me = player_of(&app, &req.player).await?;
    let rules = RuleSet::preset(&req.rules)?;
    if rules.sides().len() != 2 {
        return Err(ApiError::bad_json(format!(
            "quick pairing is for two-player rule sets; {} has {} seats (create a game in the lobby instead)",
            req.rules,
            rules.sides().len()
        )));
    }
    req.clock.check().map_err(ApiError::bad_json)?;
    let key = pair_key(&req.rules, &req.clock);
    // A ticket of the player's from before (another tab, a reloaded page): if it was
    // paired, that game is the answer; a waiting one is dropped (one queue place each).
    if let Some(t) = app.store.pair_withdraw(&me.id).await.map_err(store_err)? {
        return paired_answer(&app, &t, &me.id).await;
    }
    if let Some(paired) = pair_with_waiting(&app, &me, &req.rules, &req.clock, &key).await? {
        return Ok(paired);
    }
    let ticket = Ticket {
        ticket: new_token(),
        player: me.id.clone(),
        key,
        polled_ms: app.now_ms(),
        game: None,
        seat: None,
        token: None,
    };
    app.store.pair_enqueue(&ticket).await.map_err(store_err)?;
    Ok(waiting(&ticket.ticket))
}

fn store_err(e: crate::store::StoreError) -> ApiError {
    ApiError::internal(e.to_string())
}

/// Pairs `me` with a player waiting under `key` (the same preset and clocks): makes
/// their game, fills the other's ticket and answers `{"paired": …}` for `me`; `None`
/// when nobody is waiting (or every candidate was taken by somebody else first).
async fn pair_with_waiting(
    app: &Arc<App>,
    me: &crate::store::PlayerRow,
    rules_name: &str,
    clock: &ClockSettings,
    key: &str,
) -> Result<Option<Response>, ApiError> {
    let rules = RuleSet::preset(rules_name)?;
    for _ in 0..4 {
        let now = app.now_ms();
        let Some(other) = app
            .store
            .pair_candidate(key, &me.id, now - TICKET_MS)
            .await
            .map_err(store_err)?
        else {
            break;
        };
        // Sides at random (OS randomness).
        let mut coin = [0u8; 1];
        getrandom::fill(&mut coin).map_err(|e| ApiError::internal(e.to_string()))?;
        // Taken before the game is made: nobody else pairs this ticket meanwhile, and no
        // game is made for a ticket somebody else got.
        if app.store.pair_take(&other.ticket).await.map_err(store_err)? == Written::Conflict {
            continue;
        }
        let them = match app.store.player(&other.player).await {
            Ok(Some(them)) => them,
            Ok(None) => {
                let _ = app.store.pair_cancel(&other.ticket, &other.player).await;
                continue;
            }
            Err(e) => {
                let _ = app.store.pair_release(&other.ticket).await;
                return Err(store_err(e));
            }
        };
        // Both seats given to their players.
        let sides = rules.sides();
        let (mine, theirs) = if coin[0] & 1 == 0 {
            (sides[0], sides[1])
        } else {
            (sides[1], sides[0])
        };
        let human = SeatRequest {
            kind: SeatKind::Human,
            agent: None,
        };
        let refs = |p: &crate::store::PlayerRow| PlayerRef {
            id: p.id.clone(),
            name: p.name.clone(),
        };
        let new = NewGame {
            rules: Value::String(rules_name.to_owned()),
            seats: vec![
                (mine, human.clone(), Some(refs(me))),
                (theirs, human, Some(refs(&them))),
            ],
            settings: Settings {
                clock: *clock,
                listed: true,
                rated: true,
                rematch_of: None,
                created_ms: now,
            },
            open: Vec::new(),
        };
        let handle = match make_game(app, new).await {
            Ok(h) => h,
            Err(e) => {
                let _ = app.store.pair_release(&other.ticket).await;
                return Err(e);
            }
        };
        let (gid, my_token, their_token) = {
            let t = handle.lock().await;
            let token = |s: Side| {
                t.seats[&s]
                    .token
                    .clone()
                    .expect("a human seat of a made game has a token")
            };
            (t.id.clone(), token(mine), token(theirs))
        };
        let filled = app.store.pair_fill(&other.ticket, &gid, theirs.name(), &their_token).await;
        if let Ok(Written::Done) = filled {
            return Ok(Some(Json(json!({"paired": seat_json(&gid, mine, &my_token)})).into_response()));
        }
        // The ticket could not be given its game (the database refused): the game was
        // never seen by anybody; drop it and put the ticket back.
        app.games.write().unwrap_or_else(|e| e.into_inner()).remove(&gid);
        let _ = app.store.delete_game(&gid).await;
        let _ = app.store.pair_release(&other.ticket).await;
        filled.map_err(store_err)?;
    }
    Ok(None)
}

/// The preset and clocks of a pairing key ([`pair_key`]).
fn unkey(key: &str) -> Option<(String, ClockSettings)> {
    let mut f = key.split('|');
    let rules = f.next()?.to_owned();
    let mut n = || f.next()?.parse::<u32>().ok();
    let some = |v: u32| (v != 0).then_some(v);
    let (m, g, i, d) = (n()?, n()?, n()?, n()?);
    Some((
        rules,
        ClockSettings {
            move_seconds: some(m),
            game_seconds: some(g),
            increment_seconds: i,
            deploy_seconds: some(d),
        },
    ))
}

fn waiting(ticket: &str) -> Response {
    (StatusCode::ACCEPTED, Json(json!({"waiting": {"ticket": ticket}}))).into_response()
}

/// The answer to a paired ticket: the player's seat; the ticket is then done.
async fn paired_answer(app: &App, t: &Ticket, player: &str) -> Result<Response, ApiError> {
    let _ = app.store.pair_cancel(&t.ticket, player).await;
    let (Some(g), Some(s), Some(tok)) = (&t.game, &t.seat, &t.token) else {
        return Err(ApiError::internal("a paired ticket without its game"));
    };
    let side = Side::from_name(s).ok_or_else(|| ApiError::internal("a stored seat is no side"))?;
    Ok(Json(json!({"paired": seat_json(g, side, tok)})).into_response())
}

async fn ticket_owner(app: &App, headers: &HeaderMap) -> Result<crate::store::PlayerRow, ApiError> {
    let token = bearer(headers)?
        .ok_or_else(|| ApiError::bad_token("this request needs the player's token"))?;
    player_of(app, &token).await
}

/// `GET /api/pair/{ticket}` with the player's token: `{"paired": …}` once paired (the
/// ticket is then done), else `{"waiting": …}`; `404 unknown_ticket` for a ticket that
/// is not this player's or was dropped.
pub async fn pair_poll(
    State(app): State<Arc<App>>,
    Path(ticket): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = ticket_owner(&app, &headers).await?;
    let t = app
        .store
        .pair_poll(&ticket, &me.id, app.now_ms())
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "unknown_ticket",
                "no such ticket of yours",
            )
        })?;
    match (&t.game, &t.seat) {
        (Some(_), Some(_)) => paired_answer(&app, &t, &me.id).await,
        // Somebody is pairing this ticket right now: its game comes with the next ask.
        (Some(_), None) => Ok(waiting(&t.ticket)),
        _ => {
            // Still waiting: look for a partner too (two players who asked at the same
            // moment both queued). The ticket is taken while its player looks, so that
            // nobody pairs it meanwhile, and put back in its place if nobody is found.
            if app.store.pair_take(&ticket).await.map_err(store_err)? == Written::Conflict {
                return Ok(waiting(&t.ticket));
            }
            let found = match unkey(&t.key) {
                Some((rules, clock)) => pair_with_waiting(&app, &me, &rules, &clock, &t.key).await,
                None => Ok(None),
            };
            match found {
                Ok(Some(paired)) => {
                    let _ = app.store.pair_cancel(&ticket, &me.id).await;
                    Ok(paired)
                }
                other => {
                    app.store.pair_release(&ticket).await.map_err(store_err)?;
                    other.map(|_| waiting(&t.ticket))
                }
            }
        }
    }
}

/// `DELETE /api/pair/{ticket}` with the player's token: stops waiting.
pub async fn pair_cancel(
    State(app): State<Arc<App>>,
    Path(ticket): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = ticket_owner(&app, &headers).await?;
    app.store
        .pair_cancel(&ticket, &me.id)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/games/{id}/rematch` with a seat's token, once the game is over: the first
/// seat to ask makes the rematch — the same rule set, clocks and settings, every seat
/// played by the same person or bot, the sides turned one seat on (two players swap
/// sides) — and every seat that asks gets its own seat of it: `{"game", "seat",
/// "token", "url"}` (a bot's seat: no token). The finished game's state names the
/// rematch (`"rematch": ID`), so the other pages can offer to follow.
pub async fn rematch(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let handle = crate::flow::open_game(&app, &id).await?;
    let token = token(&headers, &q)?;
    for _ in 0..5 {
        let table = handle.lock().await;
        let side = crate::request::seat(&table, token.as_deref())?;
        if !table.over() {
            return Err(ApiError::of_kind(
                junqi::ErrorKind::WrongPhase,
                "a rematch follows the end of the game",
            ));
        }
        let order: Vec<Side> = table.game.rules().sides().to_vec();
        let turned = |s: Side| {
            let i = order
                .iter()
                .position(|&x| x == s)
                .expect("a seat of the game");
            order[(i + 1) % order.len()]
        };
        if let Some(r) = table.rematch.clone() {
            let tok = table.seats[&side].rematch_token.clone();
            return Ok(Json(match tok {
                Some(t) => seat_json(&r, turned(side), &t),
                None => {
                    json!({"game": r, "seat": turned(side).name(), "url": format!("/play/{r}")})
                }
            })
            .into_response());
        }
        let rules: Value = serde_json::from_str(&table.rules_json).unwrap_or(Value::Null);
        let new = NewGame {
            rules,
            seats: table
                .seats
                .iter()
                .map(|(&s, seat)| {
                    (
                        turned(s),
                        SeatRequest {
                            kind: seat.kind,
                            agent: seat.agent.clone(),
                        },
                        seat.player.clone(),
                    )
                })
                .collect(),
            settings: Settings {
                rematch_of: Some(table.id.clone()),
                created_ms: app.now_ms(),
                ..table.settings.clone()
            },
            open: Vec::new(),
        };
        // Made without this game's lock (a bot's engine may take seconds to deploy, and
        // the finished game's pages must not wait): whoever records its rematch first
        // wins; a rematch made meanwhile by another seat or process drops this one.
        drop(table);
        let made = make_game(&app, new).await?;
        let mut table = handle.lock().await;
        let drop_made = |rid: &str| {
            app.games.write().unwrap_or_else(|e| e.into_inner()).remove(rid);
        };
        if table.rematch.is_some() {
            let rid = made.lock().await.id.clone();
            drop_made(&rid);
            let _ = app.store.delete_game(&rid).await;
            continue;
        }
        let before = table.clone();
        let (rid, tokens) = {
            let t = made.lock().await;
            (
                t.id.clone(),
                t.seats
                    .iter()
                    .map(|(s, seat)| (*s, seat.token.clone()))
                    .collect::<HashMap<_, _>>(),
            )
        };
        table.rematch = Some(rid.clone());
        let sides: Vec<Side> = table.seats.keys().copied().collect();
        for s in sides {
            let t = tokens.get(&turned(s)).cloned().flatten();
            table.seats.get_mut(&s).expect("a seat").rematch_token = t;
        }
        match commit(&app, &handle, &mut table, before).await {
            Ok(()) => {
                let tok = table.seats[&side].rematch_token.clone();
                return Ok(Json(match tok {
                    Some(t) => seat_json(&rid, turned(side), &t),
                    None => json!({"game": rid, "seat": turned(side).name(), "url": format!("/play/{rid}")}),
                })
                .into_response());
            }
            Err(e) => {
                drop_made(&rid);
                let _ = app.store.delete_game(&rid).await;
                if e.code != "conflict" {
                    return Err(e);
                }
            }
        }
    }
    Err(crate::flow::conflict())
}
