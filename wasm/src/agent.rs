//! The engine's players (junqi::agent): random, greedy, search and pimc.
use wasm_bindgen::prelude::*;

use crate::{err, game::playing, Game};

/// A player of the engine: it deploys and chooses actions for one seat from that
/// seat's information only (the referee hands it `Game::info_state`, never the game).
/// Names as everywhere: `"random"`, `"greedy"`, `"search"` (= `"search:3"`),
/// `"search:1"`…`"search:5"`, `"search:iters=N"`, `"pimc"`, `"pimc:1"`…`"pimc:5"`,
/// `"pimc:iters=N"`. WebAssembly has one thread and no
/// clock here: `threads=N` above 1 and time budgets (`ms=N`) are refused.
#[wasm_bindgen]
pub struct Agent {
    inner: Box<dyn junqi::Agent>,
}

#[wasm_bindgen]
impl Agent {
    /// An agent by name; the same seed gives the same choices.
    #[wasm_bindgen(constructor)]
    pub fn new(
        spec: &str,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<Agent, JsValue> {
        let parsed: junqi::AgentSpec = spec.parse().map_err(err)?;
        let text = parsed.to_string();
        if text.contains("threads=") {
            return Err(crate::fail(
                junqi::ErrorKind::OutOfRange,
                format!("agent {spec:?}: WebAssembly runs one thread here; leave out threads=N"),
            ));
        }
        if text.contains("ms=") {
            return Err(crate::fail(
                junqi::ErrorKind::OutOfRange,
                format!("agent {spec:?}: WebAssembly has no clock here; use a level or iters=N instead of ms=N"),
            ));
        }
        Ok(Agent { inner: parsed.build(crate::seed(seed)?) })
    }

    /// The name that builds this agent again.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name()
    }

    /// Lets the agent act for `side` if it has something to do now: deploys it in the
    /// deployment phase (unless the rule set deals), plays its choice if it is to act.
    /// Returns the report, or `undefined` when `side` has nothing to do.
    #[wasm_bindgen(unchecked_return_type = "Report | undefined")]
    pub fn act(&mut self, game: &mut Game, side: &str) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        playing(&game.inner, s)?;
        match junqi::agent::act(&mut game.inner, s, self.inner.as_mut()).map_err(err)? {
            Some(r) => Ok(crate::js(&r.to_json(game.inner.board()))),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The action the agent would play for `side` now, as `{notation, id}`, without
    /// playing it (`undefined` unless `side` is to act).
    #[wasm_bindgen(unchecked_return_type = "ActionInfo | undefined")]
    pub fn choose(&mut self, game: &Game, side: &str) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        playing(&game.inner, s)?;
        if game.inner.to_act() != Some(s) {
            return Ok(JsValue::UNDEFINED);
        }
        let info = game.inner.info_state(s);
        let a = self.inner.choose(&info);
        Ok(crate::js(&crate::game::action_json(a, game.inner.rules())))
    }
}
