//! Time, injected: the server reads the time through a [`Clock`] that [`crate::App`]
//! holds, never from the system directly, so that tests can run the per-move clock on
//! a time of their own. What the clock decides (deadlines, time-outs) is in
//! [`crate::flow`].

use std::time::{SystemTime, UNIX_EPOCH};

/// Where the server reads the time.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system's time (the server's default).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    }
}
