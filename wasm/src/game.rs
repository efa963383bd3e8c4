//! Games: deployment, legal actions, play, reports, views, records.

use wasm_bindgen::prelude::*;

use crate::{err, js, Beliefs, RuleSet};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify)]
    fn json_stringify(value: &JsValue) -> Option<String>;
}

/// A game under a referee who sees every piece: what each seat may know is asked for
/// by seat (`view`, `beliefs`, `observation`, `playerRecord`).
#[wasm_bindgen]
pub struct Game {
    pub(crate) inner: junqi::Game,
}

/// Refuses a side that does not play in the game's rule set, as the core's play calls
/// do (`PlayError::NotPlaying`).
pub(crate) fn playing(game: &junqi::Game, s: junqi::Side) -> Result<(), JsValue> {
    game.rules().check_side(s).map_err(err)
}

/// A legal action as `{notation, id}`.
pub(crate) fn action_json(action: junqi::Action, rules: &junqi::RuleSet) -> serde_json::Value {
    serde_json::json!({"notation": action.to_notation(rules.board()), "id": action.id(rules)})
}

impl Game {
    pub(crate) fn from_record(text: &str) -> Result<Game, JsValue> {
        let record = junqi::Record::from_json(text).map_err(err)?;
        Ok(Game { inner: junqi::Game::from_record(&record).map_err(err)? })
    }

    /// A report of the core as `{public: Event[], private: {side: Event[]}}`.
    fn report(&self, r: Result<junqi::Report, junqi::GameError>) -> Result<JsValue, JsValue> {
        let r = r.map_err(err)?;
        Ok(js(&r.to_json(self.inner.board())))
    }

    fn seat(&self, name: &str) -> Result<junqi::Side, JsValue> {
        let s = crate::side(name)?;
        playing(&self.inner, s)?;
        Ok(s)
    }
}

#[wasm_bindgen]
impl Game {
    /// A new game: `rules` is a preset name (default `"classic"`) or rule-set JSON
    /// text; `seed` (a number or BigInt) fixes the referee's random choices, and
    /// without one a seed is drawn from the platform's random source.
    #[wasm_bindgen(constructor)]
    pub fn new(
        rules: Option<String>,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<Game, JsValue> {
        let rules = junqi::RuleSet::load(rules.as_deref().unwrap_or("classic")).map_err(err)?;
        Ok(Game { inner: junqi::Game::with_rules(rules, crate::seed(seed)?) })
    }

    /// The seeded start of `seed`: the seed's deal in a rule set that deals (翻棋), else
    /// every side deployed at random from the seed — the same game as Rust's
    /// `Game::random_start`, C's `junqi_game_random_start`, Python's
    /// `Game.random_start` and a `VectorEnv` game with that seed. `rules` as in the
    /// constructor; without a seed one is drawn.
    #[wasm_bindgen(js_name = randomStart)]
    pub fn random_start(
        rules: Option<String>,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<Game, JsValue> {
        let rules = junqi::RuleSet::load(rules.as_deref().unwrap_or("classic")).map_err(err)?;
        Ok(Game { inner: junqi::Game::random_start(rules, crate::seed(seed)?).map_err(err)? })
    }

    /// A new game of a `RuleSet`.
    #[wasm_bindgen(js_name = withRules)]
    pub fn with_rules(
        rules: &RuleSet,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<Game, JsValue> {
        Ok(Game { inner: junqi::Game::with_rules(rules.inner.clone(), crate::seed(seed)?) })
    }

    /// A game replayed from its record (JSON text from `record()`).
    #[wasm_bindgen(js_name = fromRecord)]
    pub fn from_record_js(record: &str) -> Result<Game, JsValue> {
        Game::from_record(record)
    }

    /// The rule set.
    #[wasm_bindgen(getter)]
    pub fn rules(&self) -> RuleSet {
        RuleSet { inner: self.inner.rules().clone() }
    }

    /// The referee's seed (a BigInt).
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// `"deploy"`, `"move"`, `"reaction"` (海陆空) or `"over"`.
    #[wasm_bindgen(getter, unchecked_return_type = "\"deploy\" | \"move\" | \"reaction\" | \"over\"")]
    pub fn phase(&self) -> JsValue {
        js(&serde_json::to_value(self.inner.phase()).expect("a phase is JSON"))
    }

    /// The side to act, or `undefined`.
    #[wasm_bindgen(getter, js_name = toAct)]
    pub fn to_act(&self) -> Option<String> {
        self.inner.to_act().map(|s| s.name().to_owned())
    }

    /// Plies played.
    #[wasm_bindgen(getter)]
    pub fn ply(&self) -> u32 {
        self.inner.position().ply()
    }

    /// Plies in a row without a piece leaving the board.
    #[wasm_bindgen(getter, js_name = noCapturePlies)]
    pub fn no_capture_plies(&self) -> u32 {
        self.inner.position().no_capture_plies()
    }

    /// Whether the game is over.
    #[wasm_bindgen(getter, js_name = isOver)]
    pub fn is_over(&self) -> bool {
        self.inner.result().is_some()
    }

    /// The result once the game is over (`{winners, reason, ...}`), else `undefined`.
    #[wasm_bindgen(getter, unchecked_return_type = "GameResult | undefined")]
    pub fn result(&self) -> JsValue {
        match self.inner.result() {
            Some(r) => js(&serde_json::to_value(r).expect("a result is JSON")),
            None => JsValue::UNDEFINED,
        }
    }

    /// The result in words (`"south wins: the flag was captured (flag_captured)"`), or `undefined`.
    #[wasm_bindgen(getter, js_name = resultText)]
    pub fn result_text(&self) -> Option<String> {
        self.inner.result().map(|r| junqi::describe_result(&r))
    }

    /// The sides that have deployed.
    #[wasm_bindgen(getter)]
    pub fn deployed(&self) -> Vec<String> {
        self.inner.deployed().iter().map(|s| s.name().to_owned()).collect()
    }

    /// Deploys `side` from a setup: `{point: kind}` or its JSON text. A setup that is
    /// not legal is refused with the core's reason and nothing changes.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn deploy(
        &mut self,
        side: &str,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string> | string")] setup: JsValue,
    ) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let text = match setup.as_string() {
            Some(t) => t,
            None if setup.is_object() => json_stringify(&setup).unwrap_or_default(),
            None => {
                return Err(crate::fail(junqi::ErrorKind::InvalidSetup, "a setup is an object {point: kind} or JSON text"))
            }
        };
        let r = self.inner.deploy_json(s, &text);
        self.report(r)
    }

    /// Deploys `side` with a random legal setup (the same for the same seed). Without
    /// a seed, the side's setup of the seeded start of the game's seed
    /// (`Game.randomStart`).
    #[wasm_bindgen(unchecked_return_type = "Report", js_name = deployRandom)]
    pub fn deploy_random(
        &mut self,
        side: &str,
        #[wasm_bindgen(unchecked_param_type = "number | bigint | undefined")] seed: JsValue,
    ) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let r = if seed.is_undefined() || seed.is_null() {
            self.inner.deploy_start(s)
        } else {
            self.inner.deploy_random(s, crate::seed(seed)?)
        };
        self.report(r)
    }

    /// The legal actions of the side to act: `[{notation, id}]` (empty when no one is
    /// to act).
    #[wasm_bindgen(unchecked_return_type = "ActionInfo[]", js_name = legalActions)]
    pub fn legal_actions(&self) -> JsValue {
        let rules = self.inner.rules();
        js(&self.inner.legal_actions().into_iter().map(|a| action_json(a, rules)).collect())
    }

    /// The ids of the legal actions, ascending.
    #[wasm_bindgen(js_name = legalActionIds)]
    pub fn legal_action_ids(&self) -> Vec<u32> {
        self.inner.legal_action_ids().into_iter().map(|i| i as u32).collect()
    }

    /// Whether `notation` is a legal action now.
    #[wasm_bindgen(js_name = isLegal)]
    pub fn is_legal(&self, notation: &str) -> bool {
        match junqi::Action::parse(self.inner.board(), notation) {
            Ok(a) => self.inner.legal_actions().contains(&a),
            Err(_) => false,
        }
    }

    /// Plays an action by notation (`"a2-a6"`; a flip in 翻棋 is `"flip c3"`) for the
    /// side to act and returns the report. An illegal action is refused; nothing changes.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn play(&mut self, notation: &str) -> Result<JsValue, JsValue> {
        let r = self.inner.play_notation(notation);
        self.report(r)
    }

    /// Plays an action by id.
    #[wasm_bindgen(unchecked_return_type = "Report", js_name = playId)]
    pub fn play_id(&mut self, id: usize) -> Result<JsValue, JsValue> {
        let r = self.inner.play_id(id);
        self.report(r)
    }

    /// Plays an action for `side`, refused unless `side` is to act (or is asked to
    /// react, 海陆空).
    #[wasm_bindgen(unchecked_return_type = "Report", js_name = playAs)]
    pub fn play_as(&mut self, side: &str, notation: &str) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let action = junqi::Action::parse(self.inner.board(), notation).map_err(err)?;
        let r = self.inner.play_as(s, action);
        self.report(r)
    }

    /// `side` resigns.
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn resign(&mut self, side: &str) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let r = self.inner.resign(s);
        self.report(r)
    }

    /// `side` leaves the game (逃跑, the platforms' escape rule).
    #[wasm_bindgen(unchecked_return_type = "Report")]
    pub fn escape(&mut self, side: &str) -> Result<JsValue, JsValue> {
        let s = crate::side(side)?;
        let r = self.inner.escape(s);
        self.report(r)
    }

    /// The sides out of the game (四国: a seat whose army is beaten or that resigned).
    #[wasm_bindgen(getter)]
    pub fn eliminated(&self) -> Vec<String> {
        self.inner.position().eliminated().iter().map(|s| s.name().to_owned()).collect()
    }

    /// Time-outs `side` has had (the platform's time-out rule).
    pub fn timeouts(&self, side: &str) -> Result<u8, JsValue> {
        let s = self.seat(side)?;
        Ok(self.inner.position().timeouts(s))
    }

    /// Ends the game as a draw both sides agreed.
    #[wasm_bindgen(unchecked_return_type = "Report", js_name = agreeDraw)]
    pub fn agree_draw(&mut self) -> Result<JsValue, JsValue> {
        let r = self.inner.agree_draw();
        self.report(r)
    }

    /// The side to act ran out of time (the platform's time-out rule).
    #[wasm_bindgen(unchecked_return_type = "Report", js_name = timeOut)]
    pub fn time_out(&mut self) -> Result<JsValue, JsValue> {
        let r = self.inner.time_out();
        self.report(r)
    }

    /// What `player` may know, as an object: `{player, army, rules, phase, to_act,
    /// ply, no_capture_plies, pieces: [{point, owner, kind, arm}], events, result}` — an
    /// enemy piece's `kind` is `null` unless the player was shown it.
    #[wasm_bindgen(unchecked_return_type = "View")]
    pub fn view(&self, player: &str) -> Result<JsValue, JsValue> {
        let s = self.seat(player)?;
        Ok(js(&self.inner.view(s).to_json(self.inner.rules())))
    }

    /// What a spectator may see: only what every seat knows.
    #[wasm_bindgen(unchecked_return_type = "View", js_name = publicView)]
    pub fn public_view(&self) -> JsValue {
        js(&self.inner.public_view().to_json(self.inner.rules()))
    }

    /// `player`'s view as SVG, from its seat (junqi::render): `options` is JSON such as
    /// `{"legend": false, "caption": false, "coordinates": true, "highlight": true,
    /// "scale": 0.8}`.
    pub fn svg(&self, player: &str, options: Option<String>) -> Result<String, JsValue> {
        let s = self.seat(player)?;
        let options = crate::rules::svg_options(options)?;
        Ok(junqi::render::view_svg(&self.inner.view(s), self.inner.rules(), &options))
    }

    /// `player`'s view as text (the CLI's board).
    pub fn text(&self, player: &str) -> Result<String, JsValue> {
        let s = self.seat(player)?;
        Ok(self.inner.view(s).render(self.inner.board()))
    }

    /// `player`'s event log: the public events and its own private ones.
    #[wasm_bindgen(unchecked_return_type = "GameEvent[]")]
    pub fn events(&self, player: &str) -> Result<JsValue, JsValue> {
        let s = self.seat(player)?;
        let board = self.inner.board();
        Ok(js(&self.inner.events(s).iter().map(|e| e.to_json(board)).collect()))
    }

    /// What `player` may deduce of every piece it cannot see.
    pub fn beliefs(&self, player: &str) -> Result<Beliefs, JsValue> {
        let s = self.seat(player)?;
        Ok(Beliefs { inner: self.inner.beliefs(s) })
    }

    /// `player`'s observation tensor, `channels * points` floats channel-major (see
    /// `RuleSet.observationSpec`), from its information only. With `model`
    /// (`"shipped"`, `"plain"` or a model's JSON, as for `Beliefs.probabilities`), the
    /// `modelled:<kind>` planes follow the others: each other piece's probability of
    /// every kind under that model (`RuleSet.observationSpec(true)`).
    pub fn observation(&self, player: &str, model: Option<String>) -> Result<Vec<f32>, JsValue> {
        let s = self.seat(player)?;
        let Some(model) = model else {
            return Ok(self.inner.observation(s));
        };
        let model = junqi::OpponentModel::load(self.inner.rules(), &model).map_err(crate::err)?;
        let observer = junqi::Observer::new(self.inner.rules().clone(), s).with_model(model);
        let mut out = vec![0.0; observer.len()];
        observer.encode(&self.inner.beliefs(s), self.inner.turn(), &mut out);
        Ok(out)
    }

    /// A game drawn from what `player` knows (every unseen identity drawn from its
    /// beliefs; the same for the same seed).
    pub fn determinize(
        &self,
        player: &str,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<Game, JsValue> {
        let s = self.seat(player)?;
        Ok(Game { inner: self.inner.determinize(s, crate::seed(seed)?) })
    }

    /// The position as a position string (docs/position-strings.md): REFEREE knowledge,
    /// every identity told. Give a player `viewString` instead.
    #[wasm_bindgen(js_name = positionString)]
    pub fn position_string(&self) -> String {
        self.inner.position_string()
    }

    /// What `player` knows of the position as a view string: pieces it has not seen
    /// are unknown.
    #[wasm_bindgen(js_name = viewString)]
    pub fn view_string(&self, player: &str) -> Result<String, JsValue> {
        let s = self.seat(player)?;
        Ok(self.inner.view_string(s))
    }

    /// A game starting from a position string (or a view string, whose unknown pieces
    /// get stand-ins); its record starts with the string.
    #[wasm_bindgen(js_name = fromPositionString)]
    pub fn from_position_string(
        text: &str,
        #[wasm_bindgen(unchecked_param_type = "number | bigint | undefined")] seed: JsValue,
    ) -> Result<Game, JsValue> {
        Ok(Game { inner: junqi::Game::from_position_string(text, crate::seed(seed)?).map_err(err)? })
    }

    /// The full record as JSON text (rule set, seed, setups, every action): it replays
    /// to the identical state (`Game.fromRecord`, `replay`, and every other API).
    pub fn record(&self) -> String {
        self.inner.record().to_json()
    }

    /// What `player` saw of the game as JSON text: its own setup and its event log.
    #[wasm_bindgen(js_name = playerRecord)]
    pub fn player_record(&self, player: &str) -> Result<String, JsValue> {
        let s = self.seat(player)?;
        Ok(self.inner.player_record(s).to_json())
    }

    /// An independent copy.
    pub fn copy(&self) -> Game {
        Game { inner: self.inner.clone() }
    }

    /// Plays random legal actions (deploying every side that has not deployed at
    /// random) until the game ends or `maxPlies` more plies are played; returns the
    /// plies played. The loop runs inside WebAssembly (benchmarks, quick simulations).
    #[wasm_bindgen(js_name = playRandom)]
    pub fn play_random(
        &mut self,
        #[wasm_bindgen(js_name = maxPlies)] max_plies: u32,
        #[wasm_bindgen(unchecked_param_type = "number | bigint")] seed: JsValue,
    ) -> Result<u32, JsValue> {
        let mut rng = junqi::Rng::new(crate::seed(seed)?);
        for s in self.inner.rules().sides().to_vec() {
            if self.inner.phase() == junqi::Phase::Deploy && !self.inner.deployed().contains(s) && !self.inner.rules().deals() {
                self.inner.deploy_random(s, rng.next_u64()).map_err(err)?;
            }
        }
        let mut plies = 0;
        let mut actions = Vec::new();
        while plies < max_plies && self.inner.result().is_none() {
            actions.clear();
            actions.extend(self.inner.legal_actions());
            if actions.is_empty() {
                break;
            }
            let a = actions[rng.below(actions.len())];
            self.inner.play(a).map_err(err)?;
            plies += 1;
        }
        Ok(plies)
    }
}
