//! # junqi for JavaScript
//!
//! WebAssembly bindings (wasm-bindgen) of the [`junqi`] engine with the nouns of the
//! Rust, C and Python APIs: rule sets ([`RuleSet`]), games ([`Game`]: deployment,
//! legal actions with notation and ids, play, reports, each seat's view and player
//! record, records and replay), beliefs ([`Beliefs`]) and observations, SVG pictures,
//! and the engine's players ([`Agent`]).
//!
//! Structured values (reports, views, events, results, records) cross as the same JSON
//! the core writes everywhere else, parsed into plain JavaScript objects; sides and
//! piece kinds are their names (`"south"`, `"engineer"`). Every refusal is a JavaScript
//! `Error` whose message is the core's and whose `kind` is the core's kind of refusal
//! (`"not_your_turn"`, …; docs/errors.md), and a refused call changes nothing. Hidden
//! information behaves as in the core: a view, beliefs, an observation or an agent's
//! choice for a seat is made from that seat's information only.
//!
//! Built by `tests/wasm/run.sh` into the package folder `wasm/pkg` (docs/js.md).
#![forbid(unsafe_code)]

mod agent;
mod beliefs;
mod game;
mod rules;

pub use agent::Agent;
pub use beliefs::Beliefs;
pub use game::Game;
pub use rules::RuleSet;

use wasm_bindgen::prelude::*;

/// The shapes of the JSON values the bindings return, for the generated `.d.ts`.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A side's name. */
export type Side = "south" | "east" | "north" | "west";
/** A legal action: its notation ("a2-a6", "flip c3") and its id in the action space. */
export interface ActionInfo { notation: string; id: number; }
/** An event as the core writes it: {type: "moved", side, from, to}, {type: "attacked", side, from, to, outcome}, {type: "revealed", point, owner, kind, cause}, {type: "game_over", result}, ... */
export interface GameEvent { type: string; [field: string]: unknown; }
/** What an action produced: the events every seat sees and those told to one seat. */
export interface Report { public: GameEvent[]; private: { [side: string]: GameEvent[] }; }
/** The result of a finished game: the winners (empty for a draw) and why it ended. */
export interface GameResult { winners: Side[]; reason: string; }
/** A piece in a view: kind (and arm) null where the player does not know them. */
export interface ViewPiece { point: string; owner: Side | null; kind: string | null; arm: string | null; }
/** The kind of a refusal (docs/errors.md): every Error the package throws has one. */
export type ErrorKind =
  | "unknown_name" | "out_of_range" | "invalid_json" | "invalid_rules" | "invalid_setup"
  | "invalid_notation" | "invalid_position" | "invalid_record" | "illegal_action"
  | "not_your_turn" | "wrong_phase" | "game_over" | "side_not_in_game" | "wrong_game"
  | "invalid_result" | "buffer_too_small" | "out_of_memory";
/** What the package throws: an Error with the core's message and its kind. */
export interface JunqiError extends Error { kind: ErrorKind; }
/** One player's information set. */
export interface View {
  player: Side; army: Side | null; rules: string; sides: Side[]; phase: string; to_act: Side | null;
  ply: number; no_capture_plies: number; deployed: Side[]; eliminated: Side[]; timeouts: { [side: string]: number };
  pieces: ViewPiece[]; events: GameEvent[]; result: GameResult | null;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `JSON.parse`: the core's JSON becomes plain objects.
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    fn json_parse(text: &str) -> JsValue;
}

/// A JSON value of the core as a JavaScript object.
pub(crate) fn js(value: &serde_json::Value) -> JsValue {
    json_parse(&value.to_string())
}

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `Error`, made here so that a refusal can carry its kind.
    #[wasm_bindgen(js_name = Error)]
    type KindedError;
    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> KindedError;
    #[wasm_bindgen(method, setter = kind)]
    fn set_kind(this: &KindedError, kind: &str);
}

/// A refusal as a JavaScript `Error`: the message, and the kind's name as `kind`
/// (docs/errors.md) — the package's translation of `junqi::ErrorKind`.
pub(crate) fn fail(kind: junqi::ErrorKind, message: impl std::fmt::Display) -> JsValue {
    let e = KindedError::new(&message.to_string());
    e.set_kind(kind.name());
    e.into()
}

/// A refusal of the core, with its kind and message.
pub(crate) fn err<E: junqi::Error>(e: E) -> JsValue {
    fail(e.kind(), e)
}

/// A side from its name (`"south"`, `"east"`, `"north"`, `"west"`).
pub(crate) fn side(name: &str) -> Result<junqi::Side, JsValue> {
    name.parse().map_err(err)
}

/// A seed from a JavaScript number (a whole number from 0 to 2^53 - 1) or BigInt (0
/// to 2^64 - 1); `undefined` draws one from the platform's random source
/// (`crypto.getRandomValues`).
pub(crate) fn seed(value: JsValue) -> Result<u64, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(junqi::random_seed());
    }
    if let Some(n) = value.as_f64() {
        if n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&n) {
            return Ok(n as u64);
        }
        return Err(fail(
            junqi::ErrorKind::OutOfRange,
            format!("a seed is a whole number from 0 to 2^53 - 1 or a BigInt from 0 to 2^64 - 1, not {n}"),
        ));
    }
    if value.is_bigint() {
        return u64::try_from(value.clone()).map_err(|_| {
            fail(
                junqi::ErrorKind::OutOfRange,
                format!(
                    "a BigInt seed is from 0 to 2^64 - 1, not {}",
                    value.as_string().unwrap_or_else(|| format!("{value:?}"))
                ),
            )
        });
    }
    Err(fail(junqi::ErrorKind::OutOfRange, "a seed is a number or a BigInt"))
}

/// The names of the preset rule sets (`"classic"`, `"siguo"`, …).
#[wasm_bindgen(js_name = presetNames)]
pub fn preset_names() -> Vec<String> {
    junqi::RuleSet::preset_names().into_iter().map(String::from).collect()
}

/// The JSON text of a preset rule set (a starting point for your own rule set).
#[wasm_bindgen(js_name = presetJson)]
pub fn preset_json(name: &str) -> Result<String, JsValue> {
    junqi::RuleSet::preset(name).map_err(err)?;
    Ok(junqi::RuleSet::preset_json(name).expect("a preset has its JSON").to_owned())
}

/// A game replayed from its record (JSON text, as [`Game::record`] writes it): the same
/// state as the game that wrote it. Refused with the core's message if the record is
/// malformed or an action in it is illegal.
#[wasm_bindgen]
pub fn replay(record: &str) -> Result<Game, JsValue> {
    Game::from_record(record)
}

/// A seed from the platform's random source (`crypto.getRandomValues`), as a BigInt.
#[wasm_bindgen(js_name = randomSeed)]
pub fn random_seed() -> u64 {
    junqi::random_seed()
}

/// The benchmark of random play (the loop of `cargo bench -p junqi --bench throughput`):
/// plays `games` whole random games of the preset `rules` from random starts
/// (`Position::random_start`; at every ply: generate the legal actions, pick one
/// uniformly, apply it) and returns the plies played. Time it from JavaScript.
#[wasm_bindgen(js_name = randomPlies)]
pub fn random_plies(
    rules: &str,
    games: u32,
    #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
) -> Result<f64, JsValue> {
    let rules = junqi::RuleSet::preset(rules).map_err(err)?;
    let mut rng = junqi::Rng::new(self::seed(seed)?);
    let mut buf: Vec<junqi::Action> = Vec::with_capacity(128);
    let mut plies = 0u64;
    for _ in 0..games {
        let mut pos = junqi::Position::random_start(rules.clone(), rng.next_u64());
        while pos.result().is_none() {
            pos.legal_actions_into(&mut buf);
            let a = buf[rng.below(buf.len())];
            pos.play_unchecked(a);
            plies += 1;
        }
    }
    Ok(plies as f64)
}

