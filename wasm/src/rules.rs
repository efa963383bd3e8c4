//! Rule sets: presets and JSON.
use std::sync::Arc;

use wasm_bindgen::prelude::*;

use crate::err;

/// A rule set: the board, the armies, combat and every option, as data.
#[wasm_bindgen]
#[derive(Clone)]
pub struct RuleSet {
    pub(crate) inner: Arc<junqi::RuleSet>,
}

#[wasm_bindgen]
impl RuleSet {
    /// A preset by name (see `presetNames()`).
    pub fn preset(name: &str) -> Result<RuleSet, JsValue> {
        Ok(RuleSet { inner: junqi::RuleSet::preset(name).map_err(err)? })
    }

    /// A rule set from JSON text (the format of `presetJson`), checked by the core.
    #[wasm_bindgen(js_name = fromJson)]
    pub fn from_json(text: &str) -> Result<RuleSet, JsValue> {
        Ok(RuleSet { inner: Arc::new(junqi::RuleSet::from_json(text).map_err(err)?) })
    }

    /// The rule set's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// The rule set as JSON text; `RuleSet.fromJson` reads it back.
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// The seats in turn order (`["south", "north"]` for classic).
    #[wasm_bindgen(getter)]
    pub fn sides(&self) -> Vec<String> {
        self.inner.sides().iter().map(|s| s.name().to_owned()).collect()
    }

    /// The sides of `side`'s team (itself alone in a two-player game).
    #[wasm_bindgen(js_name = teamOf)]
    pub fn team_of(&self, side: &str) -> Result<Vec<String>, JsValue> {
        let s = crate::side(side)?;
        Ok(self.inner.team_of(s).iter().map(|s| s.name().to_owned()).collect())
    }

    /// The army: `{kind: count}`.
    #[wasm_bindgen(unchecked_return_type = "Record<string, number>")]
    pub fn army(&self) -> JsValue {
        let map: serde_json::Map<String, serde_json::Value> =
            self.inner.army().map(|(k, n)| (k.id().to_owned(), n.into())).collect();
        crate::js(&serde_json::Value::Object(map))
    }

    /// Pieces in one army.
    #[wasm_bindgen(getter, js_name = armySize)]
    pub fn army_size(&self) -> usize {
        self.inner.army_size()
    }

    /// The size of the fixed action space (action ids are `0..actionSpace`).
    #[wasm_bindgen(getter, js_name = actionSpace)]
    pub fn action_space(&self) -> usize {
        self.inner.action_space()
    }

    /// Whether the pieces are dealt face down (翻棋) instead of deployed.
    #[wasm_bindgen(getter)]
    pub fn deals(&self) -> bool {
        self.inner.deals()
    }

    /// The points where `side` deploys.
    #[wasm_bindgen(js_name = deployPoints)]
    pub fn deploy_points(&self, side: &str) -> Result<Vec<String>, JsValue> {
        let s = crate::side(side)?;
        let board = self.inner.board();
        Ok(self.inner.deploy_points(s).iter().map(|&p| board.name_of(p).to_owned()).collect())
    }

    /// The notation of action id `id` (every id of the space has one).
    #[wasm_bindgen(js_name = actionAt)]
    pub fn action_at(&self, id: usize) -> Result<String, JsValue> {
        let a = junqi::Action::from_id(&self.inner, id).map_err(err)?;
        Ok(a.to_notation(self.inner.board()))
    }

    /// The action id of `notation` (e.g. `"a2-a6"`).
    #[wasm_bindgen(js_name = actionId)]
    pub fn action_id(&self, notation: &str) -> Result<usize, JsValue> {
        let a = junqi::Action::parse(self.inner.board(), notation).map_err(err)?;
        a.id(&self.inner)
            .ok_or_else(|| crate::err(junqi::NotationError::NotInActionSpace(notation.to_owned())))
    }

    /// A random legal setup for `side` as `{point: kind}` (the same for the same seed).
    #[wasm_bindgen(js_name = randomSetup, unchecked_return_type = "Record<string, string>")]
    pub fn random_setup(
        &self,
        side: &str,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let setup = junqi::Setup::random(&self.inner, s, crate::seed(seed)?);
        Ok(crate::json_parse(&setup.to_json()))
    }

    /// The layout of an observation: `{channels: string[], points: number}`
    /// (`Game.observation` returns `channels.length * points` floats, channel-major);
    /// `modelled`: with the `modelled:<kind>` planes a model adds.
    #[wasm_bindgen(js_name = observationSpec, unchecked_return_type = "{ channels: string[]; points: number }")]
    pub fn observation_spec(&self, modelled: Option<bool>) -> JsValue {
        let spec = if modelled.unwrap_or(false) {
            self.inner.modelled_observation_spec()
        } else {
            self.inner.observation_spec()
        };
        crate::js(&serde_json::json!({"channels": spec.channels, "points": spec.points}))
    }

    /// The outcome when a piece of kind `attacker` attacks one of kind `defender`
    /// under these rules: `"win"`, `"lose"`, `"both"` (both leave), `"repel"` (nobody
    /// leaves), `"evade"` (a submarine evades, 海陆空) or `"illegal"` (not an attack these
    /// rules allow).
    #[wasm_bindgen(unchecked_return_type = "\"win\" | \"lose\" | \"both\" | \"repel\" | \"evade\" | \"illegal\"")]
    pub fn resolve(&self, attacker: &str, defender: &str) -> Result<JsValue, JsValue> {
        let a: junqi::PieceKind = attacker.parse().map_err(err)?;
        let d: junqi::PieceKind = defender.parse().map_err(err)?;
        let outcome = junqi::resolve(&self.inner, a, d);
        Ok(crate::js(&serde_json::to_value(outcome).expect("an outcome is JSON")))
    }

    /// The empty board as SVG, seen from `seat`; `options` is JSON such as
    /// `{"legend": false, "scale": 0.5}` (see `Game.svg`).
    #[wasm_bindgen(js_name = boardSvg)]
    pub fn board_svg(&self, seat: &str, options: Option<String>) -> Result<String, JsValue> {
        let s = crate::side(seat)?;
        let options = svg_options(options)?;
        Ok(junqi::render::board_svg(self.inner.board(), s, &options))
    }
}

/// SVG options from optional JSON text.
pub(crate) fn svg_options(options: Option<String>) -> Result<junqi::render::SvgOptions, JsValue> {
    match options {
        None => Ok(junqi::render::SvgOptions::default()),
        Some(text) => junqi::render::SvgOptions::from_json(&text).map_err(err),
    }
}
