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

/// The token of an `Authorization` header, read as RFC 7235 and RFC 6750 say: the
/// scheme is case-insensitive (`Bearer`, `bearer`, `BEARER`), one or more spaces
/// follow it, then a token68 (letters, digits and `-._~+/`, then any `=`), then
/// nothing but optional white space. Anything else is refused with the reason: another
/// scheme (`Basic …`), no token, a malformed or non-ASCII credential. A presented
/// credential is never silently read as "no token".
pub fn bearer_token(header: &[u8]) -> Result<&str, &'static str> {
    let text = std::str::from_utf8(header)
        .ok()
        .filter(|t| t.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)))
        .ok_or("the Authorization header is not printable ASCII")?;
    let text = text.trim_matches([' ', '\t']);
    let (scheme, credential) = text.split_once([' ', '\t']).unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("the Authorization header must use the Bearer scheme");
    }
    let credential = credential.trim_start_matches([' ', '\t']);
    if credential.is_empty() {
        return Err("the Authorization header has no Bearer token");
    }
    let body = credential.trim_end_matches('=');
    let token68 = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b);
    if body.is_empty() || !body.bytes().all(token68) {
        return Err("the Bearer token is malformed");
    }
    Ok(credential)
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

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_nothing_else_passes() {
        let t = "0123456789abcdef0123456789abcdef";
        for ok in [
            format!("Bearer {t}"),
            format!("bearer {t}"),
            format!("BEARER  {t} "),
            format!("Bearer\t{t}"),
        ] {
            assert_eq!(bearer_token(ok.as_bytes()), Ok(t), "{ok:?}");
        }
        assert_eq!(bearer_token(b"Bearer abc=="), Ok("abc=="));
        let refused: [&[u8]; 9] = [
            b"Basic dXNlcjpwYXNz",
            b"Bearer",
            b"Bearer   ",
            b"Token abc",
            b"Bearerabc",
            b"Bearer a b",
            b"Bearer a,b",
            b"Bearer ==",
            "Bearer \u{4ee4}\u{724c}".as_bytes(),
        ];
        for bad in refused {
            assert!(
                bearer_token(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert!(bearer_token(b"Bearer \xff\xfe").is_err());
        assert!(bearer_token(b"Bearer a\x01").is_err());
    }
}
