//! Players and their ratings.
//!
//! A player is a name and a secret token, made by `POST /api/players` and kept by the
//! browser (no password, no e-mail): whoever holds the token is the player. The token
//! is `ID.SECRET` — the id is public (it names the player in games and ratings), the
//! secret 128 random bits compared in constant time.
//!
//! **Ratings** are the platform's ([`junqi::platform`]): the QQ platform's points and 18
//! levels, and the Elo rating the core keeps beside them (K = 32, 1500 to start, a
//! team's mean against the other's), applied by [`junqi::platform::Platform::apply`] to
//! every finished rated game. Two pools: `people` (games where every seat is a person)
//! and `bots` (games with a bot or random seat, the bots rated too), so that beating
//! the computer does not count as beating people. A game is rated when it was created
//! rated, every seat has an identity (a player, or a bot), no player holds two seats,
//! and at least one seat is a player. Rated games are played under the platform's
//! rules ([`junqi::platform::Platform::rules`]: no resignation before ply 20, out after
//! 5 time-outs).

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use junqi::platform::{level_for, Platform, Seat as PlatformSeat};
use junqi::Side;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::app::{App, GameHandle};
use crate::error::ApiError;
use crate::seat::{bot_name, new_token, same_token, SeatKind};
use crate::store::{PlayerRow, RatingChange, RatingRow, Written, POOLS};

/// The longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 24;

/// A player's token as it travels: `ID.SECRET`.
pub fn player_token(p: &PlayerRow) -> String {
    format!("{}.{}", p.id, p.secret)
}

/// The player a token belongs to. A token that is no player's is refused
/// (`bad_token`), never read as "no player".
pub async fn player_of(app: &App, token: &str) -> Result<PlayerRow, ApiError> {
    let refused = || ApiError::bad_token("this token is not a player's token");
    let (id, secret) = token.split_once('.').ok_or_else(refused)?;
    if id.is_empty() || id.len() > 64 || secret.is_empty() {
        return Err(refused());
    }
    let row = app
        .store
        .player(id)
        .await
        .map_err(|e| ApiError::internal(format!("the player could not be read: {e}")))?
        .ok_or_else(refused)?;
    if !same_token(&row.secret, secret) {
        return Err(refused());
    }
    Ok(row)
}

/// Checks a name: 1 to 24 characters once trimmed, printable, no control characters.
pub fn check_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS {
        return Err(ApiError::bad_json(format!(
            "a name is 1 to {MAX_NAME_CHARS} characters"
        )));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(ApiError::bad_json("a name has no control characters"));
    }
    if name.starts_with("bot:") {
        return Err(ApiError::bad_json("a name may not start with \"bot:\""));
    }
    Ok(name.to_owned())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewPlayer {
    name: String,
}

/// `POST /api/players {"name": "…"}`: a new player; answers `{"id", "name", "token"}`
/// (`409 name_taken` for a name in use, compared without case).
pub async fn create(
    State(app): State<Arc<App>>,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let req: NewPlayer = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_json(format!("invalid request body: {e}")))?;
    let name = check_name(&req.name)?;
    let row = PlayerRow {
        id: format!("p{}", &new_token()[..16]),
        name,
        secret: new_token(),
        created_ms: app.now_ms(),
    };
    match app.store.create_player(&row).await {
        Ok(Written::Done) => {}
        Ok(Written::Conflict) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "name_taken",
                format!("the name {:?} is taken", row.name),
            ))
        }
        Err(e) => {
            return Err(ApiError::internal(format!(
                "the player could not be saved: {e}"
            )))
        }
    }
    let body = json!({"id": row.id, "name": row.name, "token": player_token(&row)});
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// A standing as JSON: rating (rounded), points, level, games.
pub fn standing_json(r: &RatingRow) -> Value {
    let level = level_for(r.points);
    json!({
        "pool": r.pool,
        "rating": r.rating.round(),
        "points": r.points,
        "level": {"index": level.index, "name": level.name, "english": level.english},
        "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
    })
}

async fn profile(app: &App, id: &str, name: &str) -> Result<Value, ApiError> {
    let rows = app
        .store
        .ratings_of(id)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let ratings: serde_json::Map<String, Value> = rows
        .iter()
        .map(|r| (r.pool.clone(), standing_json(r)))
        .collect();
    Ok(json!({"id": id, "name": name, "ratings": ratings}))
}

/// `GET /api/players/me` with the player's token (`Authorization: Bearer ID.SECRET`):
/// the player's name and standings.
pub async fn me(State(app): State<Arc<App>>, headers: HeaderMap) -> Result<Json<Value>, ApiError> {
    let token = bearer(&headers)?
        .ok_or_else(|| ApiError::bad_token("this request needs a player's token"))?;
    let p = player_of(&app, &token).await?;
    Ok(Json(profile(&app, &p.id, &p.name).await?))
}

/// `GET /api/players/{id}`: a player's (or a bot's) public standings.
pub async fn show(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if id.starts_with("bot:") {
        return Ok(Json(profile(&app, &id, &bot_name(&id)).await?));
    }
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_player",
            format!("no player {id:?}"),
        )
    };
    if id.len() > 64 {
        return Err(not_found());
    }
    let p = app
        .store
        .player(&id)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .ok_or_else(not_found)?;
    Ok(Json(profile(&app, &p.id, &p.name).await?))
}

/// `GET /api/ratings?pool=people|bots`: the best 50 of a pool.
pub async fn leaderboard(
    State(app): State<Arc<App>>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let pool = q.get("pool").map_or("people", String::as_str);
    if !POOLS.contains(&pool) {
        return Err(ApiError::bad_json(format!("the pools are {POOLS:?}")));
    }
    let rows = app
        .store
        .leaderboard(pool, 50)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let players: Vec<Value> = rows
        .iter()
        .map(|(r, name)| {
            let mut v = standing_json(r);
            v["id"] = json!(r.player);
            v["name"] = json!(if r.player.starts_with("bot:") {
                bot_name(&r.player)
            } else {
                name.clone()
            });
            v
        })
        .collect();
    Ok(Json(json!({"pool": pool, "players": players})))
}

/// The Bearer credential of a request, if any (see [`crate::seat::bearer_token`]).
pub fn bearer(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(ApiError::bad_token("more than one Authorization header"));
    }
    crate::seat::bearer_token(value.as_bytes())
        .map(|t| Some(t.to_owned()))
        .map_err(ApiError::bad_token)
}

/// A new standing from a platform score.
fn after(before: &RatingRow, rating: f64, points: i64, won: Option<bool>) -> RatingRow {
    RatingRow {
        rating,
        points,
        games: before.games + 1,
        wins: before.wins + i64::from(won == Some(true)),
        draws: before.draws + i64::from(won.is_none()),
        losses: before.losses + i64::from(won == Some(false)),
        ..before.clone()
    }
}

/// Rates a finished game once (any process may call it: the store claims the game):
/// the platform's scoring applied to each seat's standing in the game's pool. A game
/// that is not to be rated is settled without changes. The changes are kept on the
/// table and announced (the pages show them).
pub async fn rate_game(app: &Arc<App>, handle: &Arc<GameHandle>) {
    let (id, players, pool, rules, result, plies, sides) = {
        let table = handle.lock().await;
        if !table.over() || table.rated_done {
            return;
        }
        let Some(result) = table.game.result() else {
            return;
        };
        let idents: Vec<(Side, Option<String>)> = table
            .seats
            .iter()
            .map(|(s, seat)| (*s, seat.identity()))
            .collect();
        let mut ids: Vec<&String> = idents.iter().filter_map(|(_, i)| i.as_ref()).collect();
        ids.sort();
        ids.dedup();
        let people = table
            .seats
            .values()
            .filter(|s| s.kind == SeatKind::Human)
            .count();
        let named = table.seats.values().filter(|s| s.player.is_some()).count();
        let ratable = table.settings.rated
            && idents.iter().all(|(_, i)| i.is_some())
            && ids.len() == idents.len()
            && named > 0;
        let pool = if people == table.seats.len() {
            "people"
        } else {
            "bots"
        };
        let players: Vec<(String, String)> = if ratable {
            idents
                .iter()
                .map(|(_, i)| (i.clone().expect("checked"), pool.to_owned()))
                .collect()
        } else {
            Vec::new()
        };
        let sides: Vec<Side> = idents.iter().map(|(s, _)| *s).collect();
        (
            table.id.clone(),
            players,
            pool,
            table.game.rules().clone(),
            result,
            table.game.position().ply(),
            sides,
        )
    };
    let initial = RatingRow {
        player: String::new(),
        pool: pool.to_owned(),
        rating: Platform::QQ.initial_rating,
        points: 0,
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
    };
    let game = id.clone();
    let score = move |before: &[RatingRow]| -> Vec<(RatingRow, RatingChange)> {
        if before.is_empty() {
            return Vec::new();
        }
        let seats: Vec<PlatformSeat> = sides
            .iter()
            .zip(before)
            .map(|(&side, r)| PlatformSeat {
                side,
                points: r.points,
                rating: r.rating,
            })
            .collect();
        let Ok(scores) = Platform::QQ.apply(&rules, &result, plies, &seats) else {
            return Vec::new();
        };
        scores
            .iter()
            .zip(before)
            .map(|(s, b)| {
                let won = (!result.is_draw()).then(|| result.winners.contains(s.side));
                (
                    after(b, s.rating, s.points, won),
                    RatingChange {
                        game: game.clone(),
                        side: s.side.name().to_owned(),
                        player: b.player.clone(),
                        pool: b.pool.clone(),
                        rating_before: s.rating_before,
                        rating: s.rating,
                        points_before: s.points_before,
                        points: s.points,
                        rule: s.rule.name().to_owned(),
                    },
                )
            })
            .collect()
    };
    let Ok(done) = app.store.rate(&id, &players, &initial, &score).await else {
        return; // the store failed: the next start settles it
    };
    let changes = match done {
        Some(c) => c,
        // Settled by another process (or before): read what it wrote.
        None => app.store.rating_changes(&id).await.unwrap_or_default(),
    };
    let mut table = handle.lock().await;
    table.rated_done = true;
    table.ratings = Some(changes);
    let v = table.version;
    handle.updates.send_replace(v);
}

/// The rating changes of a finished game as its state shows them: by side, with the
/// player's name, the rating before and after and the platform's points and level.
pub fn changes_json(changes: &[RatingChange], names: &dyn Fn(&str) -> Option<String>) -> Value {
    Value::Object(
        changes
            .iter()
            .map(|c| {
                let level = level_for(c.points);
                (
                    c.side.clone(),
                    json!({
                        "player": c.player,
                        "name": names(&c.side),
                        "pool": c.pool,
                        "rating_before": c.rating_before.round(),
                        "rating": c.rating.round(),
                        "rating_delta": c.rating.round() - c.rating_before.round(),
                        "points_before": c.points_before,
                        "points": c.points,
                        "points_delta": c.points - c.points_before,
                        "rule": c.rule,
                        "level": {"index": level.index, "name": level.name, "english": level.english},
                    }),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standing_after_a_game_counts_it_once_as_won_drawn_or_lost() {
        // From a standing that has games of every kind (so that + 1 differs from - 1,
        // * 1 and + 0): the new rating and points, one more game, and one more win, draw
        // or loss. Kills every mutant of `after`: `replace after -> RatingRow with
        // Default::default()`, the deleted fields, `+` with `-` / `*` and `==` with `!=`.
        let before = RatingRow {
            player: "p1".into(),
            pool: "people".into(),
            rating: 1500.0,
            points: 7,
            games: 9,
            wins: 4,
            draws: 3,
            losses: 2,
        };
        let counts = |r: &RatingRow| (r.games, r.wins, r.draws, r.losses);
        for (won, want) in [
            (Some(true), (10, 5, 3, 2)),
            (None, (10, 4, 4, 2)),
            (Some(false), (10, 4, 3, 3)),
        ] {
            let a = after(&before, 1516.5, 8, won);
            assert_eq!(counts(&a), want, "{won:?}");
            assert_eq!((a.rating, a.points), (1516.5, 8));
            assert_eq!((a.player.as_str(), a.pool.as_str()), ("p1", "people"));
        }
    }

    #[test]
    fn names_are_one_to_24_characters_trimmed() {
        // Kills `replace > with >= in check_name` (24 characters refused) and the other
        // mutants of the length check.
        let name = "名".repeat(MAX_NAME_CHARS);
        assert_eq!(check_name(&format!("  {name} ")).ok(), Some(name.clone()));
        assert!(check_name(&format!("{name}x")).is_err());
        assert_eq!(check_name("a").ok().as_deref(), Some("a"));
        assert!(check_name(" \t ").is_err());
        assert!(check_name("bot:x").is_err());
        assert!(check_name("a\u{7}b").is_err());
    }
}
