//! The clocks of a game: a clock per move, a clock for the whole game (with an
//! increment), and a clock for the deployment. The time is the server's
//! ([`crate::clock::Clock`]); what happens when a deadline passes is the core's rule
//! (`junqi::Game::time_out`) or, for the deployment, the server's (below).
//!
//! - **A turn** starts when a seat comes to act (a ply was played, a time-out applied,
//!   or the seat to act changed) and lasts until then; a draw offer or a proposed setup
//!   does not restart it.
//! - **Per move** (`move_seconds`): a turn lasts at most this long.
//! - **Per game** (`game_seconds`, `increment_seconds`): each seat has a bank of time;
//!   a turn uses the bank of the seat to act and lasts at most what is left of it. When
//!   the turn ends, its time is taken from the bank (never below zero), and a seat that
//!   moved (rather than timed out) gets the increment. With both clocks a turn lasts
//!   at most the lesser of the two.
//! - **At the deadline** the referee applies the core's time-out: the turn passes to the
//!   next seat and the core counts it; at the rule set's `max_timeouts` the seat is out
//!   (`timeouts`; 5 in classic, siguo and fanqi). A seat whose bank is empty can no
//!   longer move: each of its turns times out at once, so it is out after
//!   `max_timeouts` of them. (A rule set without `max_timeouts` never puts a seat out
//!   on time; its no-capture limit still ends the game.)
//! - **The deployment** (`deploy_seconds`): counted from when every human seat is taken.
//!   At the deadline every seat that has not deployed deploys what it proposed, or a
//!   random setup if it proposed nothing — the game starts on time.

use std::collections::BTreeMap;

use junqi::{Game, Phase, Side};
use serde::{Deserialize, Serialize};

/// A game's clock settings (fixed at creation; public).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSettings {
    /// Seconds per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_seconds: Option<u32>,
    /// Seconds per seat for the whole game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_seconds: Option<u32>,
    /// Seconds added to a seat's game clock after each of its moves.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub increment_seconds: u32,
    /// Seconds for the deployment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_seconds: Option<u32>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The longest of any clock (a day).
pub const MAX_SECONDS: u32 = 86_400;

impl ClockSettings {
    /// Refuses a clock out of 1…86400 s (an increment: 0…86400).
    pub fn check(&self) -> Result<(), String> {
        for (name, v) in [
            ("move_seconds", self.move_seconds),
            ("game_seconds", self.game_seconds),
            ("deploy_seconds", self.deploy_seconds),
        ] {
            if let Some(s) = v {
                if s == 0 || s > MAX_SECONDS {
                    return Err(format!("{name} must be 1 to {MAX_SECONDS}"));
                }
            }
        }
        if self.increment_seconds > MAX_SECONDS {
            return Err(format!("increment_seconds must be 0 to {MAX_SECONDS}"));
        }
        if self.increment_seconds > 0 && self.game_seconds.is_none() {
            return Err("increment_seconds needs game_seconds".into());
        }
        Ok(())
    }

    /// Whether the game has any clock in play.
    pub fn in_play(&self) -> bool {
        self.move_seconds.is_some() || self.game_seconds.is_some()
    }
}

/// The running state of the clocks (stored with the game).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// What is left of each seat's game clock, in ms, as of the start of the current
    /// turn (empty without a game clock).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bank_ms: BTreeMap<Side, i64>,
    /// The current turn: the seat to act, the ply and when it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Turn>,
    /// When the deployment clock started (every human seat taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_started_ms: Option<i64>,
}

/// A turn: who acts, at which ply, since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The seat to act.
    pub side: Side,
    /// The ply at its start.
    pub ply: u32,
    /// When it started (ms since the Unix epoch).
    pub started_ms: i64,
}

impl ClockState {
    /// A new game's clocks: every seat's bank full.
    pub fn new(settings: &ClockSettings, sides: &[Side]) -> ClockState {
        ClockState {
            bank_ms: match settings.game_seconds {
                Some(s) => sides
                    .iter()
                    .map(|&side| (side, i64::from(s) * 1000))
                    .collect(),
                None => BTreeMap::new(),
            },
            turn: None,
            deploy_started_ms: None,
        }
    }

    /// What is left of `side`'s game clock now (ms), counting the running turn.
    pub fn left_ms(&self, side: Side, now_ms: i64) -> Option<i64> {
        let bank = *self.bank_ms.get(&side)?;
        Some(match self.turn {
            Some(t) if t.side == side => (bank - (now_ms - t.started_ms)).max(0),
            _ => bank,
        })
    }

    /// Brings the clocks up to a change of the game, made at `now_ms`: ends the turn that
    /// the change ended (charging its time to its seat's bank, with the increment if the
    /// seat moved rather than timed out), starts the next, and starts the deployment
    /// clock when `full` (every human seat taken). Returns the deadline: the turn's, or
    /// the deployment's, if a clock applies.
    pub fn settle(
        &mut self,
        settings: &ClockSettings,
        game: &Game,
        full: bool,
        timed_out: bool,
        now_ms: i64,
    ) -> Option<i64> {
        let playing = matches!(game.phase(), Phase::Move | Phase::Reaction);
        let now = playing
            .then(|| game.to_act())
            .flatten()
            .map(|side| (side, game.position().ply()));
        if let Some(turn) = self.turn {
            if now != Some((turn.side, turn.ply)) {
                if let Some(bank) = self.bank_ms.get_mut(&turn.side) {
                    *bank = (*bank - (now_ms - turn.started_ms)).max(0);
                    if !timed_out && game.position().ply() > turn.ply {
                        *bank += i64::from(settings.increment_seconds) * 1000;
                    }
                }
                self.turn = None;
            }
        }
        if self.turn.is_none() {
            self.turn = now.map(|(side, ply)| Turn {
                side,
                ply,
                started_ms: now_ms,
            });
        }
        if game.phase() == Phase::Deploy {
            if full && self.deploy_started_ms.is_none() && settings.deploy_seconds.is_some() {
                self.deploy_started_ms = Some(now_ms);
            }
            return settings
                .deploy_seconds
                .zip(self.deploy_started_ms)
                .map(|(s, start)| start + i64::from(s) * 1000);
        }
        self.deadline(settings)
    }

    /// The deadline of the current turn, if a clock applies.
    pub fn deadline(&self, settings: &ClockSettings) -> Option<i64> {
        let turn = self.turn?;
        let limits = [
            settings.move_seconds.map(|s| i64::from(s) * 1000),
            self.bank_ms.get(&turn.side).copied(),
        ];
        limits
            .into_iter()
            .flatten()
            .min()
            .map(|ms| turn.started_ms + ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        let mut g = Game::new("classic", 3).unwrap();
        g.deploy_random(Side::South, 1).unwrap();
        g.deploy_random(Side::North, 2).unwrap();
        g
    }

    #[test]
    fn a_turn_uses_the_bank_and_the_move_clock_and_a_move_earns_the_increment() {
        let settings = ClockSettings {
            move_seconds: Some(30),
            game_seconds: Some(60),
            increment_seconds: 2,
            deploy_seconds: None,
        };
        let mut g = game();
        let mut c = ClockState::new(&settings, g.rules().sides());
        // South's first turn: the move clock (30 s) is the lesser limit.
        assert_eq!(c.settle(&settings, &g, true, false, 1_000), Some(31_000));
        // A draw offer does not restart the turn.
        assert_eq!(c.settle(&settings, &g, true, false, 5_000), Some(31_000));
        assert_eq!(c.left_ms(Side::South, 11_000), Some(50_000));
        // South moves after 20 s: 60 − 20 + 2 = 42 s left; North's turn starts.
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
        assert_eq!(c.settle(&settings, &g, true, false, 21_000), Some(51_000));
        assert_eq!(c.bank_ms[&Side::South], 42_000);
        // North times out at its deadline (30 s): no increment, 30 s left.
        g.time_out().unwrap();
        assert_eq!(
            c.settle(&settings, &g, true, true, 51_000),
            Some(51_000 + 30_000)
        );
        assert_eq!(c.bank_ms[&Side::North], 30_000);
        // With less in the bank than the move clock, the bank decides.
        c.bank_ms.insert(Side::South, 4_000);
        c.turn = Some(Turn {
            side: Side::South,
            ply: g.position().ply(),
            started_ms: 90_000,
        });
        assert_eq!(c.deadline(&settings), Some(94_000));
        // An empty bank: the turn ends at once.
        c.bank_ms.insert(Side::South, 0);
        assert_eq!(c.deadline(&settings), Some(90_000));
    }

    #[test]
    fn the_deployment_clock_starts_when_every_seat_is_taken() {
        let settings = ClockSettings {
            deploy_seconds: Some(120),
            ..Default::default()
        };
        let g = Game::new("classic", 1).unwrap();
        let mut c = ClockState::new(&settings, g.rules().sides());
        assert_eq!(c.settle(&settings, &g, false, false, 1_000), None);
        assert_eq!(c.settle(&settings, &g, true, false, 5_000), Some(125_000));
        assert_eq!(c.settle(&settings, &g, true, false, 9_000), Some(125_000));
        assert!(settings.check().is_ok());
        let bad = ClockSettings {
            increment_seconds: 5,
            ..Default::default()
        };
        assert!(bad.check().is_err());
        assert!(ClockSettings {
            move_seconds: Some(0),
            ..Default::default()
        }
        .check()
        .is_err());
    }
}
