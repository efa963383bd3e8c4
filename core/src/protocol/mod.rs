//! The line protocol (`docs/protocol.md`): how a referee and an engine — a program in
//! any language — talk over the engine's stdin and stdout, one message per line.
//!
//! The referee tells a seat exactly what that seat may know (its rule set, its seat,
//! its own events as they happen, its view string each turn) and asks for a deployment
//! or an action within a time budget. [`engine`] is the engine side for every built-in
//! agent (`junqi engine --agent search:3`); `referee` runs engine processes, plays
//! games between them with every failure named, and `matches` runs paired matches
//! with Elo and SPRT statistics; `stats` holds the statistics.

use std::io::{BufRead, Read};

pub mod engine;
pub mod stats;
#[cfg(not(target_arch = "wasm32"))]
pub mod process;
#[cfg(not(target_arch = "wasm32"))]
pub mod referee;
#[cfg(not(target_arch = "wasm32"))]
pub mod matches;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod bridge;

/// The protocol version this library speaks (`junqi 1` in the handshake).
pub const VERSION: u32 = 1;

/// Longest line either side may send (bytes, newline excluded). A longer line is a
/// protocol violation: the referee stops reading and the engine loses.
pub const MAX_LINE: usize = 64 * 1024;

/// One line read by [`read_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's text: without its `\n` and a `\r` before it, invalid UTF-8 replaced
    /// by U+FFFD.
    Text(String),
    /// A line over the limit. Its first bytes are consumed, not its end: [`skip_line`]
    /// skips the rest.
    TooLong,
}

/// Reads one line of at most `max` bytes, not counting its `\n` and a `\r` before it
/// (the last line may lack its `\n`); `None` at the end of the input. Reads at most
/// `max + 2` bytes whatever comes. Both sides read with it, `max` being [`MAX_LINE`].
pub fn read_line(r: &mut impl BufRead, max: usize) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    if r.by_ref().take(max as u64 + 1).read_until(b'\n', &mut buf)? == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > max {
        // `max` bytes and a `\r`: a line of `max` bytes if its end follows.
        let end = buf.last() == Some(&b'\r') && matches!(r.fill_buf()?.first(), None | Some(b'\n'));
        if !end {
            return Ok(Some(Line::TooLong));
        }
        if !r.fill_buf()?.is_empty() {
            r.consume(1);
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Line::Text(String::from_utf8_lossy(&buf).into_owned())))
}

/// Consumes the input up to and including the next `\n` (after [`Line::TooLong`]),
/// in constant memory.
pub fn skip_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                r.consume(n);
            }
        }
    }
}

/// Longest text one side quotes back from the other (an error, a refused answer), in
/// characters before escaping.
pub const MAX_QUOTE: usize = 1000;

/// `text` made safe to put inside a protocol line: at most [`MAX_QUOTE`] characters
/// (then `…`), every control character and the Unicode line and paragraph separators
/// escaped (`\n`, `\r`, `\u{1b}`, `\u{2028}`, …) so that it can neither end the line
/// nor split it for a reader that breaks lines elsewhere than at `\n` (Python's text
/// files also break at `\r`). Under 8 kB.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX_QUOTE {
            out.push('…');
            break;
        }
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// An option an engine announces at the handshake: `option <name> <type> <default>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    /// The name (no spaces).
    pub name: String,
    /// `int`, `bool` or `string`.
    pub kind: String,
    /// The default value, as text.
    pub default: String,
}

impl EngineOption {
    /// The handshake line announcing the option.
    pub fn line(&self) -> String {
        format!("option {} {} {}", self.name, self.kind, self.default)
    }
}

/// The rule set as a `newgame` line gives it: a preset's name, or `json` and the rule
/// set as one line of JSON.
pub fn rules_field(rules: &crate::RuleSet) -> String {
    let preset = crate::RuleSet::preset(rules.name()).ok();
    if preset.is_some_and(|p| p.spec() == rules.spec()) {
        rules.name().to_owned()
    } else {
        let v: serde_json::Value = serde_json::from_str(&rules.to_json()).expect("a rule set's JSON reads");
        format!("json {v}")
    }
}

/// Reads a `newgame` rule set field (see [`rules_field`]).
pub fn parse_rules_field(text: &str) -> Result<std::sync::Arc<crate::RuleSet>, crate::RulesError> {
    match text.strip_prefix("json ") {
        Some(json) => crate::RuleSet::from_json(json).map(std::sync::Arc::new),
        None => crate::RuleSet::preset(text.trim()),
    }
}

/// A side's one-letter name in the protocol (`S`, `E`, `N`, `W`).
pub fn side_letter(side: crate::Side) -> char {
    ['S', 'E', 'N', 'W'][side as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = std::io::BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut r, max).unwrap() {
            if line == Line::TooLong {
                skip_line(&mut r).unwrap();
            }
            out.push(line);
        }
        out
    }

    fn text(t: &str) -> Line {
        Line::Text(t.to_owned())
    }

    #[test]
    fn a_line_of_the_limit_reads_whatever_ends_it() {
        // The referee's reader once refused a line of exactly MAX_LINE bytes ended by
        // "\r\n" (the "\r" counted against the limit).
        assert_eq!(lines(b"abcd\r\nabcd\nabcd\rabcd", 4), [text("abcd"), text("abcd"), Line::TooLong]);
        assert_eq!(lines(b"abcd\r", 4), [text("abcd")]);
        let max = "x".repeat(MAX_LINE);
        assert_eq!(lines(format!("{max}\r\nok\n").as_bytes(), MAX_LINE), [text(&max), text("ok")]);
    }

    #[test]
    fn a_line_over_the_limit_is_refused_and_the_next_one_reads_whole() {
        assert_eq!(lines(b"abcde\nok\nabcde\r\nabcdef", 4), [Line::TooLong, text("ok"), Line::TooLong, Line::TooLong]);
        assert_eq!(lines(b"abcd\r\r\nok", 4), [Line::TooLong, text("ok")]);
        assert_eq!(lines(b"\n\r\n\r", 4), [text(""), text(""), text("")]);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced() {
        assert_eq!(lines(b"go \xff1\n", 8), [text("go \u{FFFD}1")]);
    }

    #[test]
    fn quoted_text_is_one_bounded_line() {
        assert_eq!(quote("a\nb\rc\u{1b}[0m\u{2028}d"), "a\\nb\\rc\\u{1b}[0m\\u{2028}d");
        let long = quote(&"\u{1}".repeat(100_000));
        assert!(long.len() < 8 * 1024 && long.ends_with('…') && !long.contains('\u{1}'));
    }
}
