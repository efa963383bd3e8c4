//! The line protocol (`docs/protocol.md`): how a referee and an engine — a program in
//! any language — talk over the engine's stdin and stdout, one message per line.
//!
//! The referee tells a seat exactly what that seat may know (its rule set, its seat,
//! its own events as they happen, its view string each turn) and asks for a deployment
//! or an action within a time budget. [`engine`] is the engine side for every built-in
//! agent (`junqi engine --agent search:3`); `referee` runs engine processes, plays
//! games between them with every failure named, and `matches` runs paired matches
//! with Elo and SPRT statistics; `stats` holds the statistics.

pub mod engine;
pub mod stats;
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
