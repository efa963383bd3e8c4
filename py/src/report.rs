//! What the referee tells players: `Event`, `Report`, `View`, `SeenPiece`, and the
//! `GameResult`.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::enums::{side_arg, EndReason, CombatOutcome, Phase, PieceKind, RevealCause, Side};

pub fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// The result of a finished game.
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct GameResult {
    pub inner: junqi::GameResult,
}

#[pymethods]
impl GameResult {
    /// The winning sides (one side or a team); empty for a draw.
    #[getter]
    fn winners(&self) -> Vec<Side> {
        self.inner.winners.iter().map(Into::into).collect()
    }

    /// The single winning side, or None (a draw, or a team win).
    #[getter]
    fn winner(&self) -> Option<Side> {
        self.inner.winner().map(Into::into)
    }

    /// Why the game ended.
    #[getter]
    fn reason(&self) -> EndReason {
        self.inner.reason.into()
    }

    /// Whether the game was drawn.
    #[getter]
    fn is_draw(&self) -> bool {
        self.inner.is_draw()
    }

    /// The reward of ``side`` at the end: +1 to each winner (a team wins whole), -1 to
    /// every other side, 0 to all for a draw — the engine's one reward rule, as in
    /// ``VectorEnv`` and the RL adapters.
    fn reward(&self, side: &Bound<'_, PyAny>) -> PyResult<f32> {
        Ok(self.inner.reward(crate::enums::side_arg(side)?))
    }

    /// The result as a dict: ``{"winners": ["south"], "reason": "flag_captured"}``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &serde_json::to_string(&self.inner).expect("a result serialises"))
    }

    fn __str__(&self) -> String {
        junqi::describe_result(&self.inner)
    }

    fn __repr__(&self) -> String {
        let w: Vec<String> = self.inner.winners.iter().map(|s| format!("Side.{}", Side::from(s).name_str())).collect();
        format!(
            "GameResult(winners=[{}], reason=EndReason.{})",
            w.join(", "),
            EndReason::from(self.inner.reason).name_str()
        )
    }
}

/// Something that happened, as told to a player. Fields that do not apply to the
/// event's ``type`` are None.
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone)]
pub struct Event {
    pub inner: junqi::Event,
    pub board: Arc<junqi::Board>,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}
impl Eq for Event {}
impl std::hash::Hash for Event {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.hash(state)
    }
}

impl Event {
    pub fn new(inner: junqi::Event, board: &Arc<junqi::Board>) -> Event {
        Event { inner, board: board.clone() }
    }

    fn name(&self, p: junqi::Point) -> String {
        self.board.name_of(p).to_owned()
    }

    fn json(&self) -> String {
        self.inner.to_json(&self.board).to_string()
    }
}

#[pymethods]
impl Event {
    /// ``"deployed"``, ``"moved"``, ``"attacked"``, ``"struck"``, ``"shot_down"``,
    /// ``"reaction_due"``, ``"flipped"``, ``"army_assigned"``, ``"revealed"``,
    /// ``"resigned"``, ``"escaped"``, ``"timed_out"``, ``"eliminated"``, ``"draw_agreed"`` or
    /// ``"game_over"``.
    #[getter(r#type)]
    fn event_type(&self) -> String {
        self.inner
            .to_json(&self.board)
            .get("type")
            .and_then(|t| t.as_str())
            .unwrap_or("unknown")
            .to_owned()
    }

    /// The side the event is about (deployed, moved, attacked, struck, shot_down — the
    /// plane's side —, flipped — the player who flipped —, resigned, escaped, timed_out,
    /// eliminated).
    #[getter]
    fn side(&self) -> Option<Side> {
        use junqi::Event as E;
        match self.inner {
            E::Deployed { side }
            | E::Moved { side, .. }
            | E::Attacked { side, .. }
            | E::Struck { side, .. }
            | E::ShotDown { side, .. }
            | E::Flipped { side, .. }
            | E::Resigned { side }
            | E::Escaped { side }
            | E::TimedOut { side, .. }
            | E::Eliminated { side, .. } => Some(side.into()),
            _ => None,
        }
    }

    /// The player given an army by the first flip (army_assigned), or the player who
    /// must step its submarine away (reaction_due).
    #[getter]
    fn player(&self) -> Option<Side> {
        match self.inner {
            junqi::Event::ArmyAssigned { player, .. } | junqi::Event::ReactionDue { player, .. } => {
                Some(player.into())
            }
            _ => None,
        }
    }

    /// The army that player commands (army_assigned).
    #[getter]
    fn army(&self) -> Option<Side> {
        match self.inner {
            junqi::Event::ArmyAssigned { army, .. } => Some(army.into()),
            _ => None,
        }
    }

    /// The side's time-outs so far (timed_out).
    #[getter]
    fn count(&self) -> Option<u8> {
        match self.inner {
            junqi::Event::TimedOut { count, .. } => Some(count),
            _ => None,
        }
    }

    /// Why a side is out (eliminated).
    #[getter]
    fn reason(&self) -> Option<EndReason> {
        match self.inner {
            junqi::Event::Eliminated { reason, .. } => Some(reason.into()),
            _ => None,
        }
    }

    /// Start point of a move, an attack, a strike (the striker's point, which it does
    /// not leave) or a plane's flight that was shot down.
    #[getter]
    fn from_(&self) -> Option<String> {
        use junqi::Event as E;
        match self.inner {
            E::Moved { from, .. } | E::Attacked { from, .. } | E::Struck { from, .. } | E::ShotDown { from, .. } => {
                Some(self.name(from))
            }
            _ => None,
        }
    }

    /// Target point of a move, an attack or a strike.
    #[getter]
    fn to(&self) -> Option<String> {
        use junqi::Event as E;
        match self.inner {
            E::Moved { to, .. } | E::Attacked { to, .. } | E::Struck { to, .. } => Some(self.name(to)),
            _ => None,
        }
    }

    /// The air position where a plane was shot down (shot_down), e.g. ``"c7^"``.
    #[getter]
    fn at(&self) -> Option<String> {
        match self.inner {
            junqi::Event::ShotDown { at, .. } => Some(self.name(at)),
            _ => None,
        }
    }

    /// The outcome of an attack or a strike (who left the board, not what the pieces
    /// were).
    #[getter]
    fn outcome(&self) -> Option<CombatOutcome> {
        match self.inner {
            junqi::Event::Attacked { outcome, .. } | junqi::Event::Struck { outcome, .. } => Some(outcome.into()),
            _ => None,
        }
    }

    /// Where a revealed or flipped piece stands (or stood), or the submarine that must
    /// step away (reaction_due).
    #[getter]
    fn point(&self) -> Option<String> {
        use junqi::Event as E;
        match self.inner {
            E::Revealed { point, .. } | E::Flipped { point, .. } | E::ReactionDue { point, .. } => {
                Some(self.name(point))
            }
            _ => None,
        }
    }

    /// The owner (army) of a revealed or flipped piece.
    #[getter]
    fn owner(&self) -> Option<Side> {
        match self.inner {
            junqi::Event::Revealed { owner, .. } | junqi::Event::Flipped { owner, .. } => Some(owner.into()),
            _ => None,
        }
    }

    /// The kind of a revealed or flipped piece.
    #[getter]
    fn kind(&self) -> Option<PieceKind> {
        match self.inner {
            junqi::Event::Revealed { kind, .. } | junqi::Event::Flipped { kind, .. } => Some(kind.into()),
            _ => None,
        }
    }

    /// Why a piece was revealed (revealed): ``RevealCause.COMMANDER_LOST``,
    /// ``ENGINEER_SCOUT``, ``SCOUTED``, ``ANTI_AIR`` or ``OPEN_PLAY``.
    #[getter]
    fn cause(&self) -> Option<RevealCause> {
        match self.inner {
            junqi::Event::Revealed { cause, .. } => Some(cause.into()),
            _ => None,
        }
    }

    /// The result of a ``game_over`` event.
    #[getter]
    fn result(&self) -> Option<GameResult> {
        match self.inner {
            junqi::Event::GameOver { result } => Some(GameResult { inner: result }),
            _ => None,
        }
    }

    /// The event as a JSON-style dict (point names, snake_case ids).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.json())
    }

    /// The event as JSON text.
    fn to_json(&self) -> String {
        self.json()
    }

    /// The event in one line of text.
    fn describe(&self) -> String {
        self.inner.describe(&self.board)
    }

    fn __str__(&self) -> String {
        self.describe()
    }

    fn __repr__(&self) -> String {
        format!("<Event {}: {}>", self.event_type(), self.describe())
    }
}

/// What an action produced: the events every player sees, and private events for
/// single players.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct Report {
    pub inner: junqi::Report,
    pub board: Arc<junqi::Board>,
}

impl Report {
    fn events(&self, list: impl IntoIterator<Item = junqi::Event>) -> Vec<Event> {
        list.into_iter().map(|e| Event::new(e, &self.board)).collect()
    }
}

#[pymethods]
impl Report {
    /// Events told to every player.
    #[getter]
    fn public(&self) -> Vec<Event> {
        self.events(self.inner.public.iter().copied())
    }

    /// Events told only to one player: ``{Side: [Event, ...]}``.
    #[getter]
    fn private<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (side, e) in &self.inner.private {
            let key = Side::from(*side);
            let item = Event::new(*e, &self.board);
            match d.get_item(key)? {
                Some(list) => list.call_method1("append", (item,)).map(drop)?,
                None => d.set_item(key, vec![item])?,
            }
        }
        Ok(d)
    }

    /// The events ``player`` learns from this action, in order.
    fn events_for(&self, player: &Bound<'_, PyAny>) -> PyResult<Vec<Event>> {
        Ok(self.events(self.inner.events_for(side_arg(player)?)))
    }

    /// The result, if this action ended the game.
    #[getter]
    fn result(&self) -> Option<GameResult> {
        self.inner.public.iter().find_map(|e| match e {
            junqi::Event::GameOver { result } => Some(GameResult { inner: *result }),
            _ => None,
        })
    }

    /// The report as JSON: ``{"public": [...], "private": {"south": [...]}}``.
    fn to_json(&self) -> String {
        self.inner.to_json(&self.board).to_string()
    }

    /// The report as a dict (same shape as ``to_json``).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.to_json())
    }

    /// The part of the report one player may see, as JSON text (a list of events).
    fn to_json_for(&self, player: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.inner.to_json_for(&self.board, side_arg(player)?).to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Report>().is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __str__(&self) -> String {
        let mut lines: Vec<String> = self.inner.public.iter().map(|e| e.describe(&self.board)).collect();
        for (side, e) in &self.inner.private {
            lines.push(format!("[to {side}] {}", e.describe(&self.board)));
        }
        lines.join("\n")
    }

    fn __repr__(&self) -> String {
        let public: Vec<String> = self.inner.public.iter().map(|e| e.describe(&self.board)).collect();
        format!("<Report public={:?} private={}>", public, self.inner.private.len())
    }
}

/// A piece as one player sees it: where, whose, and its kind if the player knows it.
#[pyclass(frozen, eq, hash, module = "junqi._junqi")]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SeenPiece {
    /// Point name.
    #[pyo3(get)]
    pub point: String,
    /// Owner (public), or None while the piece is face down (翻棋).
    #[pyo3(get)]
    pub owner: Option<Side>,
    /// Kind, or None when the player does not know it.
    #[pyo3(get)]
    pub kind: Option<PieceKind>,
    /// Arm (army, navy or air force): public, even when the kind is not.
    #[pyo3(get)]
    pub arm: crate::enums::Arm,
}

#[pymethods]
impl SeenPiece {
    fn __repr__(&self) -> String {
        format!(
            "SeenPiece(point={:?}, owner={}, kind={}, arm=Arm.{})",
            self.point,
            self.owner.map_or("None".to_owned(), |o| format!("Side.{}", o.name_str())),
            self.kind.map_or("None".to_owned(), |k| format!("PieceKind.{}", k.name_str())),
            self.arm.name_str()
        )
    }
}

/// One player's information set: everything that player may know, and nothing else.
#[pyclass(frozen, module = "junqi._junqi")]
pub struct View {
    pub inner: junqi::View,
    pub rules: Arc<junqi::RuleSet>,
}

#[pymethods]
impl View {
    /// Whose view this is.
    #[getter]
    fn player(&self) -> Side {
        self.inner.player.into()
    }

    /// The army the player commands: its own side, except in 翻棋 before the first
    /// flip (None).
    #[getter]
    fn army(&self) -> Option<Side> {
        self.inner.army.map(Into::into)
    }

    /// The phase.
    #[getter]
    fn phase(&self) -> Phase {
        self.inner.phase.into()
    }

    /// The side to act, or None once the game is over.
    #[getter]
    fn to_act(&self) -> Option<Side> {
        self.inner.to_act.map(Into::into)
    }

    /// The sides that have deployed (public).
    #[getter]
    fn deployed(&self) -> Vec<Side> {
        self.inner.deployed.iter().map(Into::into).collect()
    }

    /// The sides that are out of the game (public): resigned, beaten or timed out.
    #[getter]
    fn eliminated(&self) -> Vec<Side> {
        self.inner.eliminated.iter().map(Into::into).collect()
    }

    /// Each side's time-outs so far, ``{side: count}`` for the rule set's sides.
    #[getter]
    fn timeouts(&self) -> std::collections::HashMap<Side, u8> {
        self.rules.sides().iter().map(|&s| (s.into(), self.inner.timeouts[s as usize])).collect()
    }

    /// Plies played.
    #[getter]
    fn ply(&self) -> u32 {
        self.inner.ply
    }

    /// Plies in a row without a piece leaving the board.
    #[getter]
    fn no_capture_plies(&self) -> u32 {
        self.inner.no_capture_plies
    }

    /// ``no_capture_plies`` under its name of development versions (deprecated).
    #[getter]
    fn quiet_plies(&self, py: Python<'_>) -> PyResult<u32> {
        crate::game::deprecated(py, "View.quiet_plies", "View.no_capture_plies")?;
        Ok(self.inner.no_capture_plies)
    }

    /// Every piece on the board, in point order; kinds only where the player knows them.
    #[getter]
    fn pieces(&self) -> Vec<SeenPiece> {
        let board = self.rules.board();
        self.inner
            .pieces
            .iter()
            .map(|p| SeenPiece {
                point: board.name_of(p.point).to_owned(),
                owner: p.owner.map(Into::into),
                kind: p.kind.map(Into::into),
                arm: p.arm.into(),
            })
            .collect()
    }

    /// The piece on a point as this player sees it, or None if the point is empty.
    fn piece_at(&self, point: &str) -> PyResult<Option<SeenPiece>> {
        let board = self.rules.board();
        let p = junqi::parse_point(board, point).map_err(crate::errors::err)?;
        Ok(self.inner.pieces.iter().find(|s| s.point == p).map(|s| SeenPiece {
            point: board.name_of(s.point).to_owned(),
            owner: s.owner.map(Into::into),
            kind: s.kind.map(Into::into),
            arm: s.arm.into(),
        }))
    }

    /// The player's event log (public events and its own private ones).
    #[getter]
    fn events(&self) -> Vec<Event> {
        self.inner.events.iter().map(|e| Event::new(*e, self.rules.board())).collect()
    }

    /// The result, once the game is over.
    #[getter]
    fn result(&self) -> Option<GameResult> {
        self.inner.result.map(|inner| GameResult { inner })
    }

    /// The view as JSON text. With ``events=False`` the ``"events"`` key (the whole
    /// event log, which grows with the game) is left out: the current state only.
    #[pyo3(signature = (events = true))]
    fn to_json(&self, events: bool) -> String {
        if events {
            self.inner.to_json(&self.rules).to_string()
        } else {
            self.inner.state_json(&self.rules).to_string()
        }
    }

    /// The view as a dict (same shape as ``to_json``). ``events=False`` leaves the event
    /// log out: much cheaper late in a game, for a bot that needs only the state.
    #[pyo3(signature = (events = true))]
    fn to_dict<'py>(&self, py: Python<'py>, events: bool) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.to_json(events))
    }

    /// The board as text from this player's seat (unknown enemy pieces as ``??``).
    fn render(&self) -> String {
        self.inner.render(self.rules.board())
    }

    fn __str__(&self) -> String {
        self.render()
    }

    /// An SVG picture of the view from the player's seat (its army at the bottom), with
    /// Chinese piece names, the coordinates of the notation, the last move and combat
    /// highlighted and a legend; ``legend``, ``coordinates``, ``caption`` and
    /// ``highlight`` switch those parts, ``scale`` sizes the picture. It shows only
    /// what the view holds.
    #[pyo3(signature = (*, legend = true, coordinates = true, caption = true, highlight = true, scale = 1.0))]
    fn to_svg(&self, legend: bool, coordinates: bool, caption: bool, highlight: bool, scale: f32) -> PyResult<String> {
        let options = crate::render::options(legend, coordinates, caption, highlight, scale)?;
        Ok(self.inner.to_svg(&self.rules, &options))
    }

    /// An SVG picture of the view (shown by Jupyter): ``to_svg()`` with its defaults.
    fn _repr_svg_(&self) -> String {
        self.inner.to_svg(&self.rules, &junqi::render::SvgOptions::default())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<View>().is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "<View of {} ply={} phase={} to_act={} pieces={}>",
            self.inner.player,
            self.inner.ply,
            Phase::from(self.inner.phase).id_str(),
            self.inner.to_act.map_or("None".to_owned(), |s| s.to_string()),
            self.inner.pieces.len()
        )
    }
}
