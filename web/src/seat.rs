//! Seats and their tokens. A human seat is joined through a link holding its token: 128
//! bits from the operating system's random source, as 32 hex digits. Whoever holds the
//! token is that seat and no other; a random seat has no token (the server plays it).

use serde::{Deserialize, Serialize};

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A person, through the API with the seat's token.
    Human,
    /// The built-in random player (server side).
    Random,
}

impl SeatKind {
    /// The name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            SeatKind::Human => "human",
            SeatKind::Random => "random",
        }
    }
}

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Who plays it.
    pub kind: SeatKind,
    /// The seat's token (human seats only).
    pub token: Option<String>,
}

/// A fresh unguessable token: 16 bytes from the OS random source, hex.
pub fn new_token() -> String {
    hex(&random_bytes::<16>())
}

/// A fresh game id: 9 random bytes, hex. Ids are not secrets (they grant nothing), but
/// random ids do not tell how many games the server holds.
pub fn new_game_id() -> String {
    hex(&random_bytes::<9>())
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is available");
    b
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two tokens in time independent of where they first differ.
pub fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_compared_exactly() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert!(same_token(&a, &a.clone()));
        assert!(!same_token(&a, &b));
        assert!(!same_token(&a, &a[..31]));
    }
}
