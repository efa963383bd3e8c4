//! Seats and their tokens. A human seat is joined through a link holding its token: 128
//! bits from the operating system's random source, as 32 hex digits. Whoever holds the
//! token is that seat and no other; a random or bot seat has no token (the server plays
//! it, see [`crate::bot`]).

use serde::{Deserialize, Serialize};

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKind {
    /// A person, through the API with the seat's token.
    Human,
    /// The built-in random player (server side).
    Random,
    /// One of the engine's agents (server side): `greedy` or the search at a level;
    /// [`Seat::agent`] names it.
    Bot,
}

impl SeatKind {
    /// The name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            SeatKind::Human => "human",
            SeatKind::Random => "random",
            SeatKind::Bot => "bot",
        }
    }

    /// Whether the server plays the seat.
    pub fn is_server(self) -> bool {
        !matches!(self, SeatKind::Human)
    }
}

/// One seat of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Who plays it.
    pub kind: SeatKind,
    /// The seat's token (human seats only). A human seat without a token is open: a
    /// game listed in the lobby waits for someone to take it.
    pub token: Option<String>,
    /// The agent of a bot seat, as the API names it: `"greedy"` or `"search:N"` (level N,
    /// 1 to 5). Absent for other seats (and in rows stored before bots existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The player who took the seat, if it was taken with a player's token (for the
    /// ratings): the player's id and name, both public.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerRef>,
    /// The seat's token in the rematch, once one is made: answered to this seat's
    /// token only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch_token: Option<String>,
}

/// A player as a seat names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRef {
    /// The player id.
    pub id: String,
    /// The player's name.
    pub name: String,
}

impl Seat {
    /// A seat of this kind, with no player.
    pub fn new(kind: SeatKind, token: Option<String>, agent: Option<String>) -> Seat {
        Seat {
            kind,
            token,
            agent,
            player: None,
            rematch_token: None,
        }
    }

    /// Whether the seat waits for a person to take it.
    pub fn open(&self) -> bool {
        self.kind == SeatKind::Human && self.token.is_none()
    }

    /// Who is rated for this seat: a player's id, or the bot's (`bot:greedy`,
    /// `bot:search:3`, `bot:random`); `None` for a person who took the seat without a
    /// player name (the game is then not rated).
    pub fn identity(&self) -> Option<String> {
        match self.kind {
            SeatKind::Human => self.player.as_ref().map(|p| p.id.clone()),
            SeatKind::Random => Some("bot:random".into()),
            SeatKind::Bot => Some(format!("bot:{}", self.agent.as_deref().unwrap_or("greedy"))),
        }
    }

    /// The name shown for the seat: the player's, or the bot's.
    pub fn display_name(&self) -> Option<String> {
        match self.kind {
            SeatKind::Human => self.player.as_ref().map(|p| p.name.clone()),
            _ => self.identity().as_deref().map(bot_name),
        }
    }

    /// The seat as anybody may see it: its kind, its bot, its player's name and id,
    /// whether it is taken. Never its token.
    pub fn public_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"kind": self.kind.name(), "taken": !self.open()});
        if let Some(a) = &self.agent {
            v["agent"] = serde_json::json!(a);
        }
        if let Some(name) = self.display_name() {
            v["name"] = serde_json::json!(name);
        }
        if let Some(p) = &self.player {
            v["player"] = serde_json::json!(p.id);
        }
        v
    }
}

/// The name of a bot identity (`bot:search:3` → "level 3 bot").
pub fn bot_name(identity: &str) -> String {
    match identity.strip_prefix("bot:") {
        Some("random") => "random player".into(),
        Some("greedy") => "greedy bot".into(),
        Some(a) => match a.strip_prefix("search:") {
            Some(level) => format!("level {level} bot"),
            None => a.to_owned(),
        },
        None => identity.to_owned(),
    }
}

/// A seat as a create request names it: `"human"`, `"random"`, `"greedy"`, `"bot"`
/// (the search at level 3), `{"kind": "bot", "level": 1..5}` (the search at that level)
/// or `{"kind": "bot", "agent": "greedy"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRequest {
    /// Who plays it.
    pub kind: SeatKind,
    /// The bot's agent (bots only): `"greedy"` or `"search:N"`.
    pub agent: Option<String>,
}

/// The level of a bare `"bot"` seat.
pub const DEFAULT_LEVEL: u8 = 3;

const SEAT_FORMS: &str = "a seat is \"human\", \"random\", \"greedy\", \"bot\", {\"kind\": \"bot\", \"level\": 1 to 5} or {\"kind\": \"bot\", \"agent\": \"greedy\"}";

impl SeatRequest {
    fn bot(agent: String) -> SeatRequest {
        SeatRequest {
            kind: SeatKind::Bot,
            agent: Some(agent),
        }
    }

    fn level(level: u64) -> Result<SeatRequest, String> {
        if (1..=5).contains(&level) {
            Ok(SeatRequest::bot(format!("search:{level}")))
        } else {
            Err(format!(
                "bot level {level} is out of range: levels are 1 to 5"
            ))
        }
    }

    /// Reads a seat of a create request.
    pub fn from_json(v: &serde_json::Value) -> Result<SeatRequest, String> {
        use serde_json::Value;
        let plain = |kind| SeatRequest { kind, agent: None };
        match v {
            Value::String(s) => match s.as_str() {
                "human" => Ok(plain(SeatKind::Human)),
                "random" => Ok(plain(SeatKind::Random)),
                "greedy" => Ok(SeatRequest::bot("greedy".into())),
                "bot" => SeatRequest::level(u64::from(DEFAULT_LEVEL)),
                other => Err(format!("unknown seat kind {other:?}: {SEAT_FORMS}")),
            },
            Value::Object(o) => {
                if let Some(k) = o
                    .keys()
                    .find(|k| !matches!(k.as_str(), "kind" | "level" | "agent"))
                {
                    return Err(format!("unknown seat field {k:?}: {SEAT_FORMS}"));
                }
                let kind = o.get("kind").and_then(Value::as_str);
                match (kind, o.get("level"), o.get("agent")) {
                    (Some("bot"), Some(_), Some(_)) => Err("a bot has a level or an agent, not both".into()),
                    (Some("bot"), Some(level), None) => match level.as_u64() {
                        Some(n) => SeatRequest::level(n),
                        None => Err(format!("bot level {level} is not a whole number from 1 to 5")),
                    },
                    (Some("bot"), None, Some(Value::String(a))) => match a.as_str() {
                        "greedy" => Ok(SeatRequest::bot("greedy".into())),
                        "random" => Ok(plain(SeatKind::Random)),
                        "search" => SeatRequest::level(u64::from(DEFAULT_LEVEL)),
                        other => match other.strip_prefix("search:").map(str::parse::<u64>) {
                            Some(Ok(n)) => SeatRequest::level(n),
                            _ => Err(format!(
                                "unknown bot agent {other:?}: expected \"greedy\", \"random\" or \"search:1\" to \"search:5\""
                            )),
                        },
                    },
                    (Some("bot"), None, None) => SeatRequest::level(u64::from(DEFAULT_LEVEL)),
                    (Some(k @ ("human" | "random")), None, None) => {
                        Ok(plain(if k == "human" { SeatKind::Human } else { SeatKind::Random }))
                    }
                    _ => Err(SEAT_FORMS.into()),
                }
            }
            _ => Err(SEAT_FORMS.into()),
        }
    }
}

impl<'de> Deserialize<'de> for SeatRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SeatRequest, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        SeatRequest::from_json(&v).map_err(serde::de::Error::custom)
    }
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
    fn seat_requests_name_humans_random_seats_and_bots() {
        let read = |text: &str| SeatRequest::from_json(&serde_json::from_str(text).unwrap());
        let bot = |a: &str| {
            Ok(SeatRequest {
                kind: SeatKind::Bot,
                agent: Some(a.into()),
            })
        };
        assert_eq!(
            read(r#""human""#),
            Ok(SeatRequest {
                kind: SeatKind::Human,
                agent: None
            })
        );
        assert_eq!(
            read(r#""random""#),
            Ok(SeatRequest {
                kind: SeatKind::Random,
                agent: None
            })
        );
        assert_eq!(read(r#""greedy""#), bot("greedy"));
        assert_eq!(read(r#""bot""#), bot("search:3"));
        assert_eq!(read(r#"{"kind": "bot", "level": 5}"#), bot("search:5"));
        assert_eq!(
            read(r#"{"kind": "bot", "agent": "search:1"}"#),
            bot("search:1")
        );
        assert_eq!(read(r#"{"kind": "bot", "agent": "greedy"}"#), bot("greedy"));
        for bad in [
            r#"{"kind": "bot", "level": 6}"#,
            r#"{"kind": "bot", "level": 0}"#,
            r#"{"kind": "bot", "level": "2"}"#,
            r#"{"kind": "bot", "agent": "search:ms=100000"}"#,
            r#"{"kind": "bot", "level": 2, "agent": "greedy"}"#,
            r#"{"kind": "bot", "threads": 64}"#,
            r#""grandmaster""#,
            r#"3"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

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
