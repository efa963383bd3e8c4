//! Limits against clients that hold the server's resources without finishing their
//! business: timeouts on reading a request, caps on open connections and on event
//! streams, in total and per client address. Each refusal is an answer the client can
//! read (docs/web.md, "Limits").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The server's limits. [`Default`] gives the documented defaults; tests set small ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How long a connection may take to send a request's complete header, counted
    /// from when it opens or from its previous response: a half-sent request, and a
    /// kept-alive connection idle this long, are closed.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive once its header has; past it the
    /// request is answered `408 request_timeout` and the connection closed.
    pub body_timeout: Duration,
    /// The largest request body; a larger one is answered `413 too_large`.
    pub max_body_bytes: usize,
    /// Open connections in all; one more is answered `503 too_many_connections` and
    /// closed.
    pub max_connections: usize,
    /// Open connections from one client address (an IPv6 address counts by its /64);
    /// one more is answered `429 too_many_connections` and closed.
    pub max_connections_per_address: usize,
    /// Requests on one kept-alive connection; the answer to the last one closes it.
    pub max_requests_per_connection: usize,
    /// Open event streams (`GET /api/games/{id}/events`) of one game; one more is
    /// answered `503 too_many_streams`.
    pub max_streams_per_game: usize,
    /// Open event streams from one client address, over all games; one more is
    /// answered `429 too_many_streams`.
    pub max_streams_per_address: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_body_bytes: 256 * 1024,
            max_connections: 512,
            max_connections_per_address: 64,
            max_requests_per_connection: 1000,
            max_streams_per_game: 64,
            max_streams_per_address: 16,
        }
    }
}

impl Limits {
    /// Refuses limits that would refuse everything (a zero count or time).
    pub fn check(&self) -> Result<(), String> {
        let counts = [
            ("max_body_bytes", self.max_body_bytes),
            ("max_connections", self.max_connections),
            (
                "max_connections_per_address",
                self.max_connections_per_address,
            ),
            (
                "max_requests_per_connection",
                self.max_requests_per_connection,
            ),
            ("max_streams_per_game", self.max_streams_per_game),
            ("max_streams_per_address", self.max_streams_per_address),
        ];
        if let Some((name, _)) = counts.iter().find(|(_, n)| *n == 0) {
            return Err(format!("{name} must be at least 1"));
        }
        if self.header_timeout.is_zero() || self.body_timeout.is_zero() {
            return Err("a timeout must be at least 1 ms".to_owned());
        }
        Ok(())
    }
}

/// The address a client is counted by: an IPv4 address (also when mapped into IPv6),
/// or the /64 network of an IPv6 address (one host commonly holds a whole /64).
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
        v4 => v4,
    }
}

/// Which cap a [`Tally::take`] ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Full {
    /// The total.
    Total,
    /// The client address's share.
    Address,
}

/// Counts what is held open (connections, streams), in total and per client address.
#[derive(Debug, Default)]
pub struct Tally {
    counts: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

impl Tally {
    /// Counts one more for `ip` unless that passes `max_total` in all or
    /// `max_per_address` for the address. The count lasts as long as the [`Held`].
    pub fn take(
        self: &Arc<Self>,
        ip: IpAddr,
        max_total: usize,
        max_per_address: usize,
    ) -> Result<Held, Full> {
        let key = client_key(ip);
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let (total, per) = &mut *counts;
        if *total >= max_total {
            return Err(Full::Total);
        }
        let mine = per.entry(key).or_insert(0);
        if *mine >= max_per_address {
            return Err(Full::Address);
        }
        *mine += 1;
        *total += 1;
        Ok(Held {
            tally: self.clone(),
            key,
        })
    }

    /// How many are held in all.
    pub fn total(&self) -> usize {
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).0
    }
}

/// One counted connection or stream; dropping it counts it out.
#[derive(Debug)]
pub struct Held {
    tally: Arc<Tally>,
    key: IpAddr,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut counts = self.tally.counts.lock().unwrap_or_else(|e| e.into_inner());
        let (total, per) = &mut *counts;
        *total -= 1;
        if let Some(n) = per.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                per.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_caps_in_total_and_per_address_and_counts_out_on_drop() {
        let t = Arc::new(Tally::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = t.take(a, 3, 2).unwrap();
        let _a2 = t.take(a, 3, 2).unwrap();
        assert_eq!(t.take(a, 3, 2).unwrap_err(), Full::Address);
        let _b1 = t.take(b, 3, 2).unwrap();
        assert_eq!(t.take(b, 3, 2).unwrap_err(), Full::Total);
        drop(a1);
        assert_eq!(t.total(), 2);
        let _a3 = t.take(a, 3, 2).unwrap();
        // An IPv6 host counts by its /64; an IPv4-mapped address as its IPv4 address.
        let v6 = |s: &str| client_key(s.parse().unwrap());
        assert_eq!(v6("2001:db8::1"), v6("2001:db8::ffff:2"));
        assert_ne!(v6("2001:db8::1"), v6("2001:db8:0:1::1"));
        assert_eq!(v6("::ffff:10.0.0.1"), a);
    }
}
