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
use junqi::{Action, ErrorKind, Game, RuleSet, Setup, Side};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::app::{App, GameHandle};
use crate::flow::commit;
use crate::error::ApiError;
use crate::limits::Held;
use crate::seat::{new_game_id, new_token, Seat, SeatKind, SeatRequest};
use crate::state::{state_json, Viewer};
use crate::table::{load_rules, Table};

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
        .route("/api/games/{id}/events", get(events))
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

/// The token of a request: `Authorization: Bearer TOKEN` (the scheme in any case), else
/// `?token=TOKEN`; `None` when the request presents neither (a spectator). A presented
/// credential that cannot be a token — another scheme, a malformed or non-ASCII
/// header, an empty `?token=` — is refused (`bad_token`), never read as a spectator.
fn token(headers: &HeaderMap, q: &HashMap<String, String>) -> Result<Option<String>, ApiError> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    if let Some(value) = values.next() {
        if values.next().is_some() {
            return Err(ApiError::bad_token("more than one Authorization header"));
        }
        return crate::seat::bearer_token(value.as_bytes())
            .map(|t| Some(t.to_owned()))
            .map_err(ApiError::bad_token);
    }
    match q.get("token") {
        Some(t) if t.is_empty() => Err(ApiError::bad_token("the token parameter is empty")),
        t => Ok(t.cloned()),
    }
}

/// Who asks: a seat (its token) or a spectator (no token). A token that is no seat's
/// of this game is refused.
fn viewer(table: &Table, token: Option<&str>) -> Result<Viewer, ApiError> {
    match token {
        None => Ok(Viewer::Spectator),
        Some(t) => table
            .seat_of(t)
            .map(Viewer::Seat)
            .ok_or_else(|| ApiError::bad_token("this token is not a seat's token of this game")),
    }
}

/// The seat a request acts for: it must carry a seat's token.
fn seat(table: &Table, token: Option<&str>) -> Result<Side, ApiError> {
    match viewer(table, token)? {
        Viewer::Seat(s) => Ok(s),
        Viewer::Spectator => Err(ApiError::bad_token("this request needs a seat token")),
    }
}

fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_json(format!("invalid request body: {e}")))
}

fn wants_svg(q: &HashMap<String, String>) -> bool {
    !matches!(q.get("svg").map(String::as_str), Some("0" | "false" | "no"))
}

/// The state `viewer` sees, as a response.
fn reply(
    handle: &GameHandle,
    table: &Table,
    viewer: Viewer,
    q: &HashMap<String, String>,
) -> Response {
    Json(state_json(table, viewer, &handle.connected(), wants_svg(q))).into_response()
}

/// The presets, and each one's seats (its sides in turn order), so that a page offers
/// the seats the core decides.
async fn presets() -> Json<Value> {
    let sides: Map<String, Value> = RuleSet::preset_names()
        .into_iter()
        .filter_map(|name| RuleSet::preset(name).ok().map(|r| (name.to_owned(), json!(r.sides()))))
        .collect();
    Json(json!({"presets": RuleSet::preset_names(), "sides": sides}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    rules: Value,
    #[serde(default)]
    seats: HashMap<String, SeatRequest>,
    #[serde(default)]
    move_seconds: Option<u32>,
}

/// The longest per-move clock (a day).
const MAX_MOVE_SECONDS: u32 = 86_400;

/// The largest custom rule set a game may be created with, as compact JSON: 64 KiB, about
/// three times a complete 三军 rule set with its board inline (22 KB). A game keeps its
/// rule set in memory and in its stored record, so this bounds what one request can
/// make the server keep per game (the core alone accepts up to 1 MiB).
pub const MAX_RULES_BYTES: usize = 64 * 1024;

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
    if let Some(s) = req.move_seconds {
        if s == 0 || s > MAX_MOVE_SECONDS {
            return Err(ApiError::bad_json(format!(
                "move_seconds must be 1 to {MAX_MOVE_SECONDS}"
            )));
        }
    }
    let mut game = Game::with_os_seed(rules.clone());
    let mut seats = std::collections::BTreeMap::new();
    for &side in rules.sides() {
        let asked = req.seats.get(side.name()).cloned();
        let (kind, agent) = asked.map_or((SeatKind::Human, None), |r| (r.kind, r.agent));
        let token = (kind == SeatKind::Human).then(new_token);
        let seat = Seat { kind, token, agent };
        if !rules.deals() {
            crate::bot::deploy(&mut game, side, &seat)?;
        }
        seats.insert(side, seat);
    }
    let id = loop {
        let id = new_game_id();
        if !app.taken(&id) {
            break id;
        }
    };
    let table = Table {
        id: id.clone(),
        game,
        rules_json,
        seats,
        move_seconds: req.move_seconds,
        deadline_ms: None,
        version: 0,
        draw_offer: None,
        pending: Default::default(),
    };
    let before = table.clone();
    let handle = app.insert(table);
    {
        let mut table = handle.lock();
        if let Err(e) = commit(&app, &handle, &mut table, before) {
            drop(table);
            app.games
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            return Err(e);
        }
    }
    let table = handle.lock();
    let seats: Map<String, Value> = table
        .seats
        .iter()
        .map(|(side, seat)| {
            let mut v = json!({"kind": seat.kind.name()});
            if let Some(a) = &seat.agent {
                v["agent"] = json!(a);
            }
            if let Some(t) = &seat.token {
                v["token"] = json!(t);
                v["url"] = json!(format!("/play/{id}?token={t}"));
            }
            (side.name().to_owned(), v)
        })
        .collect();
    let body = json!({
        "game": id,
        "rules": table.game.rules().name(),
        "seats": seats,
        "spectate": format!("/play/{id}"),
        "version": table.version,
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn show(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    let handle = app.game(&id)?;
    let table = handle.lock();
    let viewer = viewer(&table, token(&headers, &q)?.as_deref())?;
    Ok(reply(&handle, &table, viewer, &q))
}

/// Runs a change for the seat of the request's token: `change` checks and changes the
/// table (refusing leaves it as it was), then the change is committed.
fn change(
    app: &Arc<App>,
    id: &str,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
    change: impl FnOnce(&mut Table, Side) -> Result<(), ApiError>,
) -> ApiResult {
    let handle = app.game(id)?;
    let mut table = handle.lock();
    let side = seat(&table, token(headers, q)?.as_deref())?;
    let before = table.clone();
    if let Err(e) = change(&mut table, side) {
        *table = before;
        return Err(e);
    }
    commit(app, &handle, &mut table, before)?;
    Ok(reply(&handle, &table, Viewer::Seat(side), q))
}

/// Checks the token before the body: a stranger learns nothing from the body's errors.
fn authorised(
    app: &Arc<App>,
    id: &str,
    headers: &HeaderMap,
    q: &HashMap<String, String>,
) -> Result<(), ApiError> {
    let handle = app.game(id)?;
    let table = handle.lock();
    seat(&table, token(headers, q)?.as_deref()).map(|_| ())
}

async fn setup(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    authorised(&app, &id, &headers, &q)?;
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
}

async fn confirm(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    change(&app, &id, &headers, &q, |table, side| {
        table.game.may_deploy(side)?;
        let setup = match table.pending.get(&side) {
            Some(s) => s.clone(),
            None => table.random_setup(side)?,
        };
        table.game.deploy(side, &setup)?;
        table.pending.remove(&side);
        Ok(())
    })
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
    authorised(&app, &id, &headers, &q)?;
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
    authorised(&app, &id, &headers, &q)?;
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
}

async fn record(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Query(q): Q,
    headers: HeaderMap,
) -> ApiResult {
    let handle = app.game(&id)?;
    let table = handle.lock();
    let viewer = viewer(&table, token(&headers, &q)?.as_deref())?;
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
    let handle = app.game(&id)?;
    let seat = {
        let table = handle.lock();
        viewer(&table, token(&headers, &q)?.as_deref())?.seat()
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
