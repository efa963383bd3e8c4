//! Beliefs: what a player may deduce of the pieces it cannot see.
use wasm_bindgen::prelude::*;

use crate::err;

/// One player's beliefs: for every piece, the kinds it may still be, deduced from that
/// player's own information only (`Game.beliefs`).
#[wasm_bindgen]
pub struct Beliefs {
    pub(crate) inner: junqi::Beliefs,
}

impl Beliefs {
    fn point(&self, name: &str) -> Result<junqi::Point, JsValue> {
        junqi::parse_point(self.inner.rules().board(), name).map_err(err)
    }
}

fn identities(list: &[(junqi::Side, junqi::PieceKind)]) -> Vec<JsValue> {
    list.iter()
        .map(|(s, k)| crate::js(&serde_json::json!([s.name(), k.id()])))
        .collect()
}

#[wasm_bindgen]
impl Beliefs {
    /// The player whose beliefs these are.
    #[wasm_bindgen(getter)]
    pub fn player(&self) -> String {
        self.inner.player().name().to_owned()
    }

    /// The army the player commands (翻棋: `undefined` until its first flip).
    #[wasm_bindgen(getter)]
    pub fn army(&self) -> Option<String> {
        self.inner.army().map(|s| s.name().to_owned())
    }

    /// Whether some assignment of kinds satisfies every piece's candidates and every
    /// army's composition (always, for a real game).
    #[wasm_bindgen(getter, js_name = isConsistent)]
    pub fn is_consistent(&self) -> bool {
        self.inner.is_consistent()
    }

    /// The kinds the piece on `point` may be (empty for an empty point; one kind for a
    /// piece the player knows).
    pub fn candidates(&self, point: &str) -> Result<Vec<String>, JsValue> {
        let p = self.point(point)?;
        Ok(self.inner.candidates(p).iter().map(|k| k.id().to_owned()).collect())
    }

    /// The `[army, kind]` pairs the piece on `point` may be (several armies only for a
    /// face-down piece in 翻棋).
    #[wasm_bindgen(js_name = candidateIdentities, unchecked_return_type = "[string, string][]")]
    pub fn candidate_identities(&self, point: &str) -> Result<Vec<JsValue>, JsValue> {
        let p = self.point(point)?;
        Ok(identities(&self.inner.candidate_identities(p)))
    }

    /// The owner of the piece on `point`, if the player knows it.
    pub fn owner(&self, point: &str) -> Result<Option<String>, JsValue> {
        let p = self.point(point)?;
        Ok(self.inner.owner(p).map(|s| s.name().to_owned()))
    }

    /// Whether the player was shown the piece on `point` (its own, revealed, flipped)
    /// rather than deducing it.
    #[wasm_bindgen(js_name = isKnown)]
    pub fn is_known(&self, point: &str) -> Result<bool, JsValue> {
        let p = self.point(point)?;
        Ok(self.inner.is_known(p))
    }

    /// Whether the piece on `point` has moved.
    #[wasm_bindgen(js_name = hasMoved)]
    pub fn has_moved(&self, point: &str) -> Result<bool, JsValue> {
        let p = self.point(point)?;
        Ok(self.inner.has_moved(p))
    }

    /// The identities the piece on `point` may have, each with its probability under
    /// an opponent model, as `[army, kind, probability]` (they sum to 1; empty for an
    /// empty point). `model`: `"shipped"` (default: how each kind played in the
    /// engine's self-play games, where the engine ships a model for the rule set),
    /// `"plain"` (every consistent army alike), or a model's JSON. See docs/inference.md,
    /// "Modelled beliefs".
    #[wasm_bindgen(unchecked_return_type = "[string, string, number][]")]
    pub fn probabilities(&self, point: &str, model: Option<String>) -> Result<Vec<JsValue>, JsValue> {
        let p = self.point(point)?;
        let m = junqi::OpponentModel::load(self.inner.rules(), model.as_deref().unwrap_or("shipped")).map_err(err)?;
        Ok(self
            .inner
            .probabilities(&m)
            .at(p)
            .into_iter()
            .map(|(s, k, q)| crate::js(&serde_json::json!([s.name(), k.id(), q])))
            .collect())
    }

    /// What the piece on `point` has done in public, as modelled beliefs read it: its
    /// moves by kind of move (`step_forward`, `step_sideways`, `step_back`,
    /// `run_forward`, `run_other`, `attack_hidden`, `attack_public_weak`,
    /// `attack_public_strong`) and `turns`, the turns of its army it has stood on the
    /// board; `undefined` for an empty point.
    #[wasm_bindgen(unchecked_return_type = "Record<string, number> | undefined")]
    pub fn evidence(&self, point: &str) -> Result<JsValue, JsValue> {
        let p = self.point(point)?;
        Ok(match self.inner.evidence(p) {
            None => JsValue::UNDEFINED,
            Some((moves, turns)) => {
                let mut m = serde_json::Map::new();
                for (name, n) in junqi::inference::BUCKET_NAMES.iter().zip(moves) {
                    m.insert((*name).to_owned(), n.into());
                }
                m.insert("turns".into(), turns.into());
                crate::js(&serde_json::Value::Object(m))
            }
        })
    }

    /// The points that hold a piece.
    pub fn occupied(&self) -> Vec<String> {
        let board = self.inner.rules().board();
        self.inner.occupied().iter().map(|p| board.name_of(p).to_owned()).collect()
    }

    /// The pieces that left the board, each as its candidate `[army, kind]` pairs.
    #[wasm_bindgen(js_name = offBoard, unchecked_return_type = "[string, string][][]")]
    pub fn off_board(&self) -> Vec<JsValue> {
        self.inner
            .off_board()
            .iter()
            .map(|list| {
                let items: Vec<serde_json::Value> =
                    list.iter().map(|(s, k)| serde_json::json!([s.name(), k.id()])).collect();
                crate::js(&serde_json::Value::Array(items))
            })
            .collect()
    }
}
