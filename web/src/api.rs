//! The HTTP handlers: the JSON API of docs/web.md. Every request is checked in this
//! order — the game exists, the token (if any) is a seat's of this game, the body is
//! the JSON the endpoint reads, the game's phase and turn allow it, the core accepts it
//! — and a refused request changes nothing.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::Stream;
use junqi::{Action, ErrorKind, RuleSet, Setup, Side};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::app::{App, GameHandle};
use crate::error::ApiError;
use crate::flow::commit;
use crate::limits::Held;
use crate::seat::{PlayerRef, SeatKind, SeatRequest};
use crate::state::Viewer;
use crate::table::{load_rules, Settings, Table};
use crate::timer::ClockSettings;

use crate::newgame::{make_game, NewGame};
use crate::request::{parse, reply, seat, token, viewer};

type Q = Query<HashMap<String, String>>;
type ApiResult = Result<Response, ApiError>;

/// The router of the API and the page.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/api/presets", get(presets))
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/setup", post(setup))
        .route("/api/games/{id}/confirm", post(confirm))
        .route("/api/games/{id}/action", post(action))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/draw", post(draw))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/replay", get(replay))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/join", post(crate::lobby::join))
        .route("/api/games/{id}/rematch", post(crate::lobby::rematch))
        .route("/api/lobby", get(crate::lobby::lobby))
        .route("/api/pair", post(crate::lobby::pair))
        .route(
            "/api/pair/{ticket}",
            get(crate::lobby::pair_poll).delete(crate::lobby::pair_cancel),
        )
        .route("/api/players", post(crate::players::create))
        .route("/api/players/me", get(crate::players::me))
        .route("/api/players/me/games", get(crate::history::finished))
        .route("/api/players/{id}", get(crate::players::show))
        .route("/api/ratings", get(crate::players::leaderboard))
        .route("/favicon.svg", get(favicon))
        .route("/favicon.ico", get(favicon))
        .merge(crate::page::routes())
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
        })
        // Every body is read against the limits first (conn::read_body), so axum's own
        // 2 MB limit (a plain-text 413) is off.
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            crate::conn::read_body,
        ))
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(app)
}

/// The presets, and each one's seats (its sides in turn order), so that a page offers
/// the seats the core decides.
async fn presets() -> Json<Value> {
    let sides: Map<String, Value> = RuleSet::preset_names()
        .into_iter()
        .filter_map(|name| {
            RuleSet::preset(name)
                .ok()
                .map(|r| (name.to_owned(), json!(r.sides())))
        })
        .collect();
    Json(json!({"presets": RuleSet::preset_names(), "sides": sides}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    rules: Value,
    #[serde(default)]
    seats: HashMap<String, SeatRequest>,
    #[serde(flatten)]
    clock: ClockSettings,
    /// List the game in the lobby: the human seats but the creator's stay open for
    /// whoever joins.
    #[serde(default)]
    lobby: bool,
    /// Rate the game when it ends (played under the platform's rules).
    #[serde(default)]
    rated: bool,
    /// The creator's player token (its seat is the player's).
    #[serde(default)]
    player: Option<String>,
    /// The creator's seat (default: the first human seat).
    #[serde(default)]
    seat: Option<String>,
}

/// The largest custom rule set a game may be created with, as compact JSON: 64 KiB, about
/// three times a complete 三军 rule set with its board inline (22 KB). A game keeps its
/// rule set in memory and in its stored record, so this bounds what one request can
/// make the server keep per game (the core alone accepts up to 1 MiB).
pub const MAX_RULES_BYTES: usize = 64 * 1024;

/// The seats of a created game as the creator receives them: tokens and links for
/// the seats it may hand out.
fn created_json(table: &Table, only: Option<Side>) -> Value {
    let id = &table.id;
    let seats: Map<String, Value> = table
        .seats
        .iter()
        .map(|(side, seat)| {
            let mut v = seat.public_json();
            if let Some(t) = seat
                .token
                .as_ref()
                .filter(|_| only.is_none_or(|s| s == *side))
            {
                v["token"] = json!(t);
                v["url"] = json!(format!("/play/{id}?token={t}"));
            }
            (side.name().to_owned(), v)
        })
        .collect();
    json!({
        "game": id,
        "rules": table.game.rules().name(),
        "seats": seats,
        "spectate": format!("/play/{id}"),
        "version": table.version,
        "listed": table.settings.listed,
        "rated": table.settings.rated,
    })
}

async fn create(State(app): State<Arc<App>>, body: Bytes) -> ApiResult {
    let req: CreateRequest = parse(&body)?;
    let rules_json = req.rules.to_string();
    if req.rules.is_object() && rules_json.len() > MAX_RULES_BYTES {
        return Err(ApiError::too_large(format!(
            "a custom rule set is at most {MAX_RULES_BYTES} bytes of JSON; this one is {}",
            rules_json.len()
        )));
    }
    let rules = load_rules(&req.rules)?;
    for name in req.seats.keys() {
        match Side::from_name(name) {
            Some(s) if rules.sides().contains(&s) => {}
            _ => {
                return Err(ApiError::bad_json(format!(
                    "{name:?} is not a seat of {}",
                    rules.name()
                )))
            }
        }
    }
    req.clock.check().map_err(ApiError::bad_json)?;
    let kind = |s: Side| req.seats.get(s.name()).map_or(SeatKind::Human, |r| r.kind);
    let humans: Vec<Side> = rules
        .sides()
        .iter()
        .copied()
        .filter(|&s| kind(s) == SeatKind::Human)
        .collect();
    let mine = match &req.seat {
        Some(name) => match Side::from_name(name) {
            Some(s) if humans.contains(&s) => Some(s),
            _ => {
                return Err(ApiError::bad_json(format!(
                    "{name:?} is not a human seat of this game"
                )))
            }
        },
        None => humans.first().copied(),
    };
    let player = match &req.player {
        Some(t) => Some(crate::players::player_of(&app, t).await?),
        None => None,
    };
    if req.rated && !req.lobby && humans.len() > 1 {
        // Every seat's link would go to the creator: the other seats would have no
        // player and the game could never be rated.
        return Err(ApiError::bad_json(
            "a rated game of several people is listed in the lobby (\"lobby\": true), so that each seat is taken under its player's name",
        ));
    }
    if req.rated && player.is_none() {
        return Err(ApiError::bad_token(
            "a rated game needs its creator's player token (\"player\"; choose a name in the lobby)",
        ));
    }
    if req.lobby && mine.is_none() {
        return Err(ApiError::bad_json(
            "a game listed in the lobby needs a human seat for its creator",
        ));
    }
    let new = NewGame {
        rules: req.rules.clone(),
        seats: rules
            .sides()
            .iter()
            .map(|&s| {
                let r = req.seats.get(s.name()).cloned().unwrap_or(SeatRequest {
                    kind: SeatKind::Human,
                    agent: None,
                });
                let p = player
                    .as_ref()
                    .filter(|_| Some(s) == mine)
                    .map(|p| PlayerRef {
                        id: p.id.clone(),
                        name: p.name.clone(),
                    });
                (s, r, p)
            })
            .collect(),
        settings: Settings {
            clock: req.clock,
            listed: req.lobby,
            rated: req.rated,
            rematch_of: None,
            created_ms: app.now_ms(),
        },
        open: if req.lobby {
            humans
                .iter()
                .copied()
                .filter(|&s| Some(s) != mine)
                .collect()
        } else {
            Vec::new()
        },
    };
    let handle = make_game(&app, new).await?;
    let table = handle.lock().await;
    let body = created_json(&table, req.lobby.then_some(mine).flatten());
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn show(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    let handle = crate::flow::open_game(&app, &id).await?;
    let token = token(&headers, &q)?;
    let mut table = handle.lock().await;
    let viewer = viewer(&table, token.as_deref())?;
    if crate::request::ask(&q).beliefs {
        crate::request::learner_view(&table, viewer)?;
    }
    if table.over() && table.ratings.is_none() && table.settings.rated && table.rated_done {
        // Rated by another process: read the changes once.
        if let Ok(changes) = app.store.rating_changes(&table.id).await {
            table.ratings = Some(changes);
        }
    }
    Ok(reply(&handle, &table, viewer, &q))
}

/// Runs a change for the seat of the request's token: `change` checks and changes the
/// table (refusing leaves it as it was), then the change is committed. When another
/// process changed the game first, the copy is caught up and the change tried again
/// (a few times), so that the change is checked against the game as it is.
pub(crate) async fn change(
    app: &Arc<App>,
    id: &str,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
    mut change: impl FnMut(&mut Table, Side) -> Result<(), ApiError>,
) -> ApiResult {
    let handle = crate::flow::open_game(&app, id).await?;
    let token = token(headers, q)?;
    let mut tries = 0;
    loop {
        let mut table = handle.lock().await;
        let side = seat(&table, token.as_deref())?;
        let before = table.clone();
        if let Err(e) = change(&mut table, side) {
            *table = before;
            return Err(e);
        }
        match commit(app, &handle, &mut table, before).await {
            Ok(()) => return Ok(reply(&handle, &table, Viewer::Seat(side), q)),
            Err(e) if e.code == "conflict" && tries < 4 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Checks the token before the body: a stranger learns nothing from the body's errors.
async fn authorised(
    app: &Arc<App>,
    id: &str,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<(), ApiError> {
    let handle = crate::flow::open_game(&app, id).await?;
    let token = token(headers, q)?;
    let table = handle.lock().await;
    seat(&table, token.as_deref()).map(|_| ())
}

async fn setup(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    authorised(&app, &id, &headers, &q).await?;
    let req: Map<String, Value> = parse(&body)?;
    if req.len() != 1 {
        return Err(ApiError::bad_json(
            "expected one of {\"random\": true}, {\"swap\": [a, b]}, {\"setup\": …}",
        ));
    }
    change(&app, &id, &headers, &q, |table, side| {
        table.game.may_deploy(side)?;
        let proposal = match req.iter().next() {
            Some((k, Value::Bool(true))) if k == "random" => table.random_setup(side)?,
            Some((k, Value::Array(points))) if k == "swap" => match points.as_slice() {
                [Value::String(a), Value::String(b)] => table.swapped(side, a, b)?,
                _ => return Err(ApiError::bad_json("\"swap\" takes two point names")),
            },
            Some((k, v)) if k == "setup" => {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Object(_) => v.to_string(),
                    _ => {
                        return Err(ApiError::bad_json(
                            "\"setup\" is a setup object or its JSON text",
                        ))
                    }
                };
                let setup = Setup::from_json(&text)?;
                setup.validate(table.game.rules(), side)?;
                setup
            }
            _ => {
                return Err(ApiError::bad_json(
                    "expected one of {\"random\": true}, {\"swap\": [a, b]}, {\"setup\": …}",
                ))
            }
        };
        table.pending.insert(side, proposal);
        Ok(())
    })
    .await
}

async fn confirm(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    change(&app, &id, &headers, &q, |table, side| {
        table.game.may_deploy(side)?;
        // The proposal, or without one the core's random deployment (the seat's setup
        // of the game's seeded start).
        match table.pending.get(&side) {
            Some(s) => table.game.deploy(side, &s.clone())?,
            None => table.game.deploy_start(side)?,
        };
        table.pending.remove(&side);
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionRequest {
    id: Option<usize>,
    notation: Option<String>,
}

async fn action(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    authorised(&app, &id, &headers, &q).await?;
    let req: ActionRequest = parse(&body)?;
    change(&app, &id, &headers, &q, |table, side| {
        table.game.may_act(side)?;
        let action = match (req.id, &req.notation) {
            (Some(i), None) => Action::from_id(table.game.rules(), i)?,
            (None, Some(n)) => Action::parse(table.game.board(), n)?,
            _ => {
                return Err(ApiError::bad_json(
                    "give exactly one of \"id\" and \"notation\"",
                ))
            }
        };
        table.game.play_as(side, action)?;
        table.draw_offer = None;
        Ok(())
    })
    .await
}

async fn resign(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    change(&app, &id, &headers, &q, |table, side| {
        table.game.resign(side)?;
        table.pending.remove(&side);
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawRequest {
    #[serde(default)]
    offer: bool,
    #[serde(default)]
    accept: bool,
    #[serde(default)]
    decline: bool,
}

async fn draw(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    authorised(&app, &id, &headers, &q).await?;
    let req: DrawRequest = parse(&body)?;
    if [req.offer, req.accept, req.decline]
        .iter()
        .filter(|&&b| b)
        .count()
        != 1
    {
        return Err(ApiError::bad_json(
            "give one of {\"offer\": true}, {\"accept\": true}, {\"decline\": true}",
        ));
    }
    change(&app, &id, &headers, &q, |table, side| {
        // Only seats still in play offer or accept a draw, in play (the core decides).
        table.game.may_decide_draw(side)?;
        let team = table.game.rules().team_of(side);
        // An offer of the other team, which this seat may accept or decline.
        let other = table.draw_offer.filter(|o| !team.contains(*o));
        if req.offer {
            if other.is_some() {
                table.game.agree_draw()?; // offering back is accepting
            } else if table.draw_offer.is_some() {
                return Err(ApiError::of_kind(
                    ErrorKind::IllegalAction,
                    "your side already offers a draw",
                ));
            } else {
                table.draw_offer = Some(side);
            }
        } else if other.is_none() {
            return Err(ApiError::of_kind(
                ErrorKind::IllegalAction,
                "there is no draw offer of the other side to answer",
            ));
        } else if req.accept {
            table.game.agree_draw()?;
        } else {
            table.draw_offer = None;
        }
        Ok(())
    })
    .await
}

async fn record(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    let handle = crate::flow::open_game(&app, &id).await?;
    let token = token(&headers, &q)?;
    let table = handle.lock().await;
    let viewer = viewer(&table, token.as_deref())?;
    let full = matches!(
        q.get("full").map(String::as_str),
        Some("1" | "true" | "yes")
    );
    let json = match viewer {
        Viewer::Seat(side) if !full => serde_json::to_value(table.game.player_record(side)),
        _ if table.over() => serde_json::to_value(table.game.record()),
        _ => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "game_not_over",
                "the full record is available once the game is over",
            ))
        }
    };
    Ok(Json(json.map_err(|e| ApiError::internal(e.to_string()))?).into_response())
}

/// One step of the replay of a finished game: `?step=K` (0: the start, `steps`: the
/// end; default the end), `&view=seat` (the seat's own view at that step, with its
/// token) or `view=full` (the default: every piece shown). Answers the step, the number
/// of steps, the ply, what the step did in words (the public events it added) and the
/// picture. Refused while the game is on (`409 game_not_over`): a replay shows every
/// piece.
async fn replay(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    let handle = crate::flow::open_game(&app, &id).await?;
    let token = token(&headers, &q)?;
    let (record, viewer) = {
        let table = handle.lock().await;
        let viewer = viewer(&table, token.as_deref())?;
        if !table.over() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "game_not_over",
                "a game is replayed once it is over",
            ));
        }
        (table.game.record(), viewer)
    };
    let steps = record.steps();
    let step = match q.get("step") {
        None => steps,
        Some(t) => t
            .parse::<usize>()
            .ok()
            .filter(|k| *k <= steps)
            .ok_or_else(|| ApiError::of_kind(ErrorKind::OutOfRange, format!("step {t:?} is not a step from 0 to {steps}")))?,
    };
    let full = match q.get("view").map(String::as_str) {
        None | Some("full") => true,
        Some("seat") => false,
        Some(other) => {
            return Err(ApiError::of_kind(ErrorKind::OutOfRange, format!("view {other:?} is not full or seat")))
        }
    };
    // Replaying is linear in the record: off the async threads.
    let answer = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let here = record.replay_to(step).map_err(|e| ApiError::internal(e.to_string()))?;
        let first = here.rules().sides()[0];
        let seat = match viewer {
            Viewer::Seat(s) => s,
            Viewer::Spectator => first,
        };
        let view = match (full, viewer) {
            (false, Viewer::Seat(s)) => here.view(s),
            (false, Viewer::Spectator) => here.public_view(),
            (true, _) => here.full_view(seat),
        };
        // What this step added, in words: the public events beyond the step before.
        let before = if step == 0 { 0 } else {
            record.replay_to(step - 1).map_err(|e| ApiError::internal(e.to_string()))?.public_view().events.len()
        };
        let public = here.public_view().events;
        let lang = q.get("lang").map_or(Default::default(), |t| junqi::referee::narrate::Language::from_tag(t));
        let told = junqi::referee::narrate::Narrator::spectator(&here).in_language(lang).tell_all(&public);
        let words: Vec<String> = told[before.min(told.len())..].to_vec();
        // No caption, as in the game's picture: the page's step line says it.
        let options = junqi::render::SvgOptions { caption: false, ..Default::default() };
        let svg = view.to_svg(here.rules(), &options);
        Ok(json!({
            "step": step,
            "steps": steps,
            "ply": here.position().ply(),
            "view": if full { "full" } else { "seat" },
            "text": words.join("; "),
            "svg": svg,
        }))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(answer).into_response())
}

/// Counts a seat's live connection while an SSE stream lives.
struct Connected(Arc<GameHandle>, Option<Side>);

impl Connected {
    fn new(handle: Arc<GameHandle>, seat: Option<Side>) -> Connected {
        if let Some(s) = seat {
            handle.connected[s as usize].fetch_add(1, Ordering::Relaxed);
        }
        Connected(handle, seat)
    }
}

impl Drop for Connected {
    fn drop(&mut self) {
        if let Some(s) = self.1 {
            self.0.connected[s as usize].fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Counts an open event stream for its client address and for its game, refusing one
/// over either cap.
fn count_stream(app: &App, handle: &GameHandle, peer: SocketAddr) -> Result<[Held; 2], ApiError> {
    let limits = &app.limits;
    let mine = app
        .streams
        .take(peer.ip(), usize::MAX, limits.max_streams_per_address)
        .map_err(|_| {
            ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_streams",
                format!(
                    "your address has its maximum of {} event streams open; close one first",
                    limits.max_streams_per_address
                ),
            )
        })?;
    let game = handle
        .streams
        .take(peer.ip(), limits.max_streams_per_game, usize::MAX)
        .map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "too_many_streams",
                format!(
                    "this game has its maximum of {} event streams open; try again later",
                    limits.max_streams_per_game
                ),
            )
        })?;
    Ok([mine, game])
}

async fn events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let handle = crate::flow::open_game(&app, &id).await?;
    let token = token(&headers, &q)?;
    let seat = {
        let table = handle.lock().await;
        viewer(&table, token.as_deref())?.seat()
    };
    let counted = count_stream(&app, &handle, peer)?;
    let mut rx = handle.updates.subscribe();
    let first = *rx.borrow_and_update();
    let guard = (Connected::new(handle, seat), counted);
    let stream = futures_util::stream::unfold(
        (rx, guard, Some(first)),
        |(mut rx, guard, first)| async move {
            let version = match first {
                Some(v) => v,
                None => {
                    rx.changed().await.ok()?;
                    *rx.borrow_and_update()
                }
            };
            let event = SseEvent::default()
                .event("update")
                .data(json!({"version": version}).to_string());
            Some((Ok(event), (rx, guard, None)))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// The page's icon, `web/static/favicon.svg` (a flag drawn in paths: no font needed),
/// also answered at `/favicon.ico`, where browsers look for one by default.
async fn favicon() -> impl IntoResponse {
    (
        [
            (axum::http::header::CONTENT_TYPE, "image/svg+xml"),
            (axum::http::header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        include_str!("../static/favicon.svg"),
    )
}
