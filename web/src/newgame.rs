//! Making a game: the rule set loaded (the platform's for a rated game), the seats
//! given tokens, the server's seats deployed, the game stored and held. Below the
//! handlers that make games — the create request ([`crate::api`]), the pairing and the
//! rematch ([`crate::lobby`]).

use std::sync::Arc;

use junqi::{Game, Side};
use serde_json::Value;

use crate::app::{App, GameHandle};
use crate::error::ApiError;
use crate::seat::{new_game_id, new_token, PlayerRef, Seat, SeatKind, SeatRequest};
use crate::table::{load_rules, Settings, Table};

/// A new game, as the create request, the pairing and the rematch make it.
pub(crate) struct NewGame {
    /// The rule set as given.
    pub rules: Value,
    /// Who plays each seat; a human seat with `Some(player)` is that player's, with
    /// `None` a seat for whoever has its link.
    pub seats: Vec<(Side, SeatRequest, Option<PlayerRef>)>,
    /// The settings.
    pub settings: Settings,
    /// The human seats that stay open (listed games).
    pub open: Vec<Side>,
}

/// Makes, stores and holds a game: deals or leaves the deployment to the seats, deploys
/// the server's seats, gives every human seat that is not open a token.
pub(crate) async fn make_game(app: &Arc<App>, new: NewGame) -> Result<Arc<GameHandle>, ApiError> {
    let rules_json = new.rules.to_string();
    let mut rules = load_rules(&new.rules)?;
    if new.settings.rated {
        // Rated games are played under the platform's rules (no resignation before ply
        // 20, out after 5 time-outs), decided in the core.
        rules = junqi::platform::Platform::QQ.rules(&rules)?;
    }
    let mut game = Game::with_os_seed(rules.clone());
    let mut seats = std::collections::BTreeMap::new();
    for &side in rules.sides() {
        let (asked, player) = new
            .seats
            .iter()
            .find(|(s, _, _)| *s == side)
            .map(|(_, r, p)| (r.clone(), p.clone()))
            .unwrap_or((
                SeatRequest {
                    kind: SeatKind::Human,
                    agent: None,
                },
                None,
            ));
        let open = asked.kind == SeatKind::Human && new.open.contains(&side);
        let token = (asked.kind == SeatKind::Human && !open).then(new_token);
        let mut seat = Seat::new(asked.kind, token, asked.agent);
        seat.player = player;
        seats.insert(side, seat);
    }
    if !rules.deals() {
        // The server's seats deploy: a bot's engine may be an operator's process that
        // takes seconds, so off the async threads (as bots think, crate::bot).
        let server_seats: Vec<(Side, Seat)> = seats
            .iter()
            .filter(|(_, s)| s.kind != SeatKind::Human)
            .map(|(&side, s)| (side, s.clone()))
            .collect();
        game = tokio::task::spawn_blocking(move || {
            for (side, seat) in &server_seats {
                crate::bot::deploy(&mut game, *side, seat)?;
            }
            Ok::<Game, ApiError>(game)
        })
        .await
        .map_err(|e| ApiError::internal(format!("the server's seats did not deploy: {e}")))??;
    }
    // The stored rule set is the one played (the platform's, for a rated game).
    let rules_json = if new.settings.rated {
        serde_json::to_string(rules.spec()).expect("a rule set serialises")
    } else {
        rules_json
    };
    for _ in 0..8 {
        let id = new_game_id();
        if app.held(&id).is_some() {
            continue;
        }
        let table = Table::new(
            id,
            game.clone(),
            rules_json.clone(),
            seats.clone(),
            new.settings.clone(),
        );
        match crate::flow::create(app, table).await {
            Err(e) if e.code == "conflict" => continue,
            other => return other,
        }
    }
    Err(ApiError::internal("no free game id"))
}
