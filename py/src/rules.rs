//! `RuleSet`: a validated rule set, and the `rules` argument every entry point takes.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::board::Board;
use crate::enums::{kind_arg, side_arg, Ability, Attack, CombatOutcome, PieceKind, Side};
use crate::errors::err;

/// Reads a `rules` argument: a preset name, rule-set JSON text, a dict, or a `RuleSet`.
pub fn rules_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<junqi::RuleSet>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return junqi::RuleSet::preset("classic").map_err(err);
    };
    if let Ok(r) = obj.cast::<RuleSet>() {
        return Ok(r.get().inner.clone());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let text = s.to_cow()?.into_owned();
        return rules_from_text(obj.py(), &text);
    }
    if obj.is_instance_of::<PyDict>() {
        let text: String = obj.py().import("json")?.call_method1("dumps", (obj,))?.extract()?;
        return rules_from_text(obj.py(), &text);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "rules must be a preset name, rule-set JSON text, a dict or a RuleSet, not {}",
        obj.get_type().name()?
    )))
}

/// Compiling a large rule set takes a while: other Python threads run meanwhile.
fn rules_from_text(py: Python<'_>, text: &str) -> PyResult<Arc<junqi::RuleSet>> {
    py.detach(|| junqi::RuleSet::load(text)).map_err(err)
}

/// The names of the built-in rule sets.
#[pyfunction]
pub fn rule_sets() -> Vec<&'static str> {
    junqi::RuleSet::preset_names()
}

/// The outcome of ``attacker`` attacking ``defender`` under a rule set, without a game.
/// A kind the rule set's army does not have gives ``CombatOutcome.ILLEGAL``.
#[pyfunction]
#[pyo3(signature = (rules, attacker, defender))]
pub fn resolve(
    rules: &Bound<'_, PyAny>,
    attacker: &Bound<'_, PyAny>,
    defender: &Bound<'_, PyAny>,
) -> PyResult<CombatOutcome> {
    let rules = rules_arg(Some(rules))?;
    Ok(junqi::resolve(&rules, kind_arg(attacker)?, kind_arg(defender)?).into())
}

/// What an attack does (``resolve_attack``): the combat table's ``outcome`` and its
/// effect on both pieces.
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Resolution {
    /// The combat table's outcome (as ``resolve`` gives it).
    #[pyo3(get)]
    pub outcome: CombatOutcome,
    /// Whether the attacker leaves the board (``lose`` or ``both``, except for a
    /// bombarding ship; a missile whose target evades is spent too).
    #[pyo3(get)]
    pub attacker_leaves: bool,
    /// Whether the defender leaves the board (``win`` or ``both``).
    #[pyo3(get)]
    pub defender_leaves: bool,
    /// Whether the attacker ends on the defender's place: a mover or a missile that
    /// wins, and a plane repelled by a surface piece (it stays above its target).
    #[pyo3(get)]
    pub attacker_moves: bool,
}

impl From<junqi::Resolution> for Resolution {
    fn from(r: junqi::Resolution) -> Self {
        Resolution {
            outcome: r.outcome.into(),
            attacker_leaves: r.attacker_leaves,
            defender_leaves: r.defender_leaves,
            attacker_moves: r.attacker_moves,
        }
    }
}

#[pymethods]
impl Resolution {
    fn __repr__(&self) -> String {
        let b = |v: bool| if v { "True" } else { "False" };
        format!(
            "Resolution(outcome=CombatOutcome.{}, attacker_leaves={}, defender_leaves={}, attacker_moves={})",
            self.outcome.name_str(),
            b(self.attacker_leaves),
            b(self.defender_leaves),
            b(self.attacker_moves)
        )
    }
}

/// What ``attacker`` attacking ``defender`` in a given manner does under a rule set,
/// without a game: the ``CombatOutcome`` of ``resolve`` and its effect on both pieces. For
/// example a gunboat's bombardment of a commander is ``CombatOutcome.LOSE`` with nobody
/// leaving the board. ``attack`` is an ``Attack`` or its name (``"bombardment"``).
#[pyfunction]
#[pyo3(signature = (rules, attacker, defender, attack))]
pub fn resolve_attack(
    rules: &Bound<'_, PyAny>,
    attacker: &Bound<'_, PyAny>,
    defender: &Bound<'_, PyAny>,
    attack: &Bound<'_, PyAny>,
) -> PyResult<Resolution> {
    let rules = rules_arg(Some(rules))?;
    let (attacker, defender) = (kind_arg(attacker)?, kind_arg(defender)?);
    let attack = Attack::extract_arg(attack)?.into();
    Ok(junqi::resolve_attack(&rules, attacker, defender, attack).into())
}

/// A validated rule set: army, deployment constraints, movement, combat table, options.
///
/// ``RuleSet("classic")`` loads a preset; ``RuleSet('{"extends": "classic", "name": "mine", "options":
/// {...}}')`` (or the same as a dict) loads a variant.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct RuleSet {
    pub inner: Arc<junqi::RuleSet>,
}

#[pymethods]
impl RuleSet {
    #[new]
    #[pyo3(signature = (rules=None), text_signature = "(rules='classic')")]
    fn py_new(rules: Option<&Bound<'_, PyAny>>) -> PyResult<RuleSet> {
        Ok(RuleSet { inner: rules_arg(rules)? })
    }

    /// The layout of ``Game.observation``: ``{"channels": [names], "shape": (channels,
    /// points)}``. ``modelled=True``: with the ``modelled:<kind>`` planes that a
    /// ``model`` adds (after the others).
    #[pyo3(signature = (modelled = false))]
    fn observation_spec<'py>(&self, py: Python<'py>, modelled: bool) -> PyResult<Bound<'py, PyDict>> {
        let spec = if modelled { self.inner.modelled_observation_spec() } else { self.inner.observation_spec() };
        let d = PyDict::new(py);
        d.set_item("channels", spec.channels.clone())?;
        d.set_item("shape", (spec.channels.len(), spec.points))?;
        Ok(d)
    }

    /// A built-in rule set by name.
    #[staticmethod]
    fn preset(name: &str) -> PyResult<RuleSet> {
        Ok(RuleSet { inner: junqi::RuleSet::preset(name).map_err(err)? })
    }

    /// A rule set from JSON: complete, or ``{"extends": "<preset>", ...}``.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<RuleSet> {
        let rules = py.detach(|| junqi::RuleSet::from_json(text)).map_err(err)?;
        Ok(RuleSet { inner: Arc::new(rules) })
    }

    /// The rule set's name.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Free-form description.
    #[getter]
    fn description(&self) -> &str {
        &self.inner.spec().description
    }

    /// The sides in turn order.
    #[getter]
    fn sides(&self) -> Vec<Side> {
        self.inner.sides().iter().map(|&s| s.into()).collect()
    }

    /// Teams of allied sides (empty when every side plays alone).
    #[getter]
    fn teams(&self) -> Vec<Vec<Side>> {
        self.inner.spec().teams.iter().map(|t| t.iter().map(|&s| s.into()).collect()).collect()
    }

    /// The sides allied with ``side`` (per the core's ``team_of``).
    fn team_of(&self, side: &Bound<'_, PyAny>) -> PyResult<Vec<Side>> {
        Ok(self.inner.team_of(side_arg(side)?).iter().map(Into::into).collect())
    }

    /// One side's army: kind → count.
    #[getter]
    fn army<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        army_dict(py, &self.inner)
    }

    /// Number of pieces in one side's army.
    #[getter]
    fn army_size(&self) -> usize {
        self.inner.army_size()
    }

    /// Size of the fixed action space (``Game.legal_action_ids`` indexes into it).
    #[getter]
    fn action_space(&self) -> usize {
        self.inner.action_space()
    }

    /// The action (a move, or a 翻棋 flip) with a given id in the action space.
    fn action_at(&self, index: i64) -> PyResult<crate::game::Action> {
        let size = self.inner.action_space();
        usize::try_from(index)
            .ok()
            .and_then(|i| junqi::Action::from_id(&self.inner, i).ok())
            .map(|a| crate::game::Action::of(a, &self.inner))
            .ok_or_else(|| {
                crate::errors::exception(junqi::ErrorKind::OutOfRange, format!(
                    "action id {index} is outside the action space (0..{size})"
                ))
            })
    }

    /// The options as a dict (``{"mine_survives": True, ...}``).
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(self.inner.options()).expect("options serialise");
        py.import("json")?.call_method1("loads", (text,))
    }

    /// The board.
    #[getter]
    fn board(&self) -> Board {
        Board { inner: self.inner.board().clone() }
    }

    /// Whether a kind is part of the army.
    fn has_kind(&self, kind: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.has_kind(kind_arg(kind)?))
    }

    /// How a kind moves: ``"immobile"``, ``"step"``, ``"rail_straight"``, ``"rail_turn"``,
    /// ``"sail"``, ``"sail_and_land"`` or ``"fly"``.
    fn mobility(&self, kind: &Bound<'_, PyAny>) -> PyResult<String> {
        let m = self.inner.mobility(kind_arg(kind)?);
        Ok(m.name().to_owned())
    }

    /// The powers a kind has besides moving (海陆空三军棋), in ``Ability`` order.
    fn abilities(&self, kind: &Bound<'_, PyAny>) -> PyResult<Vec<Ability>> {
        let kind = kind_arg(kind)?;
        Ok(junqi::Ability::ALL
            .into_iter()
            .filter(|&a| self.inner.has_ability(kind, a))
            .map(Into::into)
            .collect())
    }

    /// Whether a kind has an ability.
    fn has_ability(&self, kind: &Bound<'_, PyAny>, ability: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.has_ability(kind_arg(kind)?, Ability::extract_arg(ability)?.into()))
    }

    /// The combat outcome of ``attacker`` attacking ``defender``.
    fn resolve(&self, attacker: &Bound<'_, PyAny>, defender: &Bound<'_, PyAny>) -> PyResult<CombatOutcome> {
        Ok(self.inner.combat_outcome(kind_arg(attacker)?, kind_arg(defender)?).into())
    }

    /// What ``attacker`` attacking ``defender`` in a given manner (an ``Attack`` or its
    /// name) does: see ``junqi.resolve_attack``.
    fn resolve_attack(
        &self,
        attacker: &Bound<'_, PyAny>,
        defender: &Bound<'_, PyAny>,
        attack: &Bound<'_, PyAny>,
    ) -> PyResult<Resolution> {
        let (attacker, defender) = (kind_arg(attacker)?, kind_arg(defender)?);
        let attack = Attack::extract_arg(attack)?.into();
        Ok(junqi::resolve_attack(&self.inner, attacker, defender, attack).into())
    }

    /// The points a side's army fills at deployment.
    fn deploy_points(&self, side: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let side = side_arg(side)?;
        let board = self.inner.board();
        Ok(self.inner.deploy_points(side).iter().map(|&p| board.name_of(p).to_owned()).collect())
    }

    /// A random legal setup for ``side`` as a dict ``{point: PieceKind}``; the same seed
    /// gives the same setup. Edit it and pass it to ``Game.deploy``.
    fn random_setup<'py>(&self, py: Python<'py>, side: &Bound<'_, PyAny>, seed: u64) -> PyResult<Bound<'py, PyDict>> {
        let side = side_arg(side)?;
        self.inner.check_side(side).map_err(err)?;
        let rules = self.inner.clone();
        let d = std::panic::catch_unwind(|| junqi::Deployment::random(&rules, side, seed))
            .map_err(|p| crate::errors::panic_err("no random setup exists for this rule set", p))?;
        let out = PyDict::new(py);
        let board = self.inner.board();
        for &(p, k) in d.pieces() {
            out.set_item(board.name_of(p), PieceKind::from(k))?;
        }
        Ok(out)
    }

    /// The rule set as JSON (a complete description).
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<RuleSet>()
            .is_ok_and(|o| o.get().inner.spec() == self.inner.spec())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.to_json().hash(&mut h);
        h.finish()
    }

    fn __repr__(&self) -> String {
        format!("RuleSet({:?})", self.inner.name())
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, pyo3::types::PyType>, Bound<'py, PyTuple>)> {
        Ok((py.get_type::<RuleSet>(), PyTuple::new(py, [self.inner.to_json()])?))
    }
}

/// `army` as a {PieceKind: count} dict.
pub fn army_dict<'py>(py: Python<'py>, rules: &junqi::RuleSet) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, n) in rules.army() {
        d.set_item(PieceKind::from(k), n)?;
    }
    Ok(d)
}
