//! The per-move clock. When a game has `move_seconds`, every change restarts the clock
//! for the seat to act: its deadline is stored with the game, so a restarted server
//! keeps it (a deadline that passed while the server was down times out at once). When
//! the deadline passes with the game unchanged, the referee applies a time-out
//! ([`junqi::Game::time_out`]): the turn passes, and the core ends the game when a seat
//! reaches the rule set's `max_timeouts`. There is no clock in the deployment phase.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::app::{commit, App, GameHandle};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Times out the seat to act if the game is still at `version` and its deadline has
/// passed.
pub fn expire(app: &Arc<App>, handle: &Arc<GameHandle>, version: u64) {
    let mut table = handle.lock();
    if table.version != version || !table.playing() {
        return;
    }
    match table.deadline_ms {
        Some(d) if d <= now_ms() => {}
        _ => return,
    }
    let before = table.clone();
    if table.game.time_out().is_ok() {
        let _ = commit(app, handle, &mut table, before);
    }
}
