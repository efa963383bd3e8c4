//! What a seat (or a spectator) receives: built from that seat's [`View`] and event
//! log only — never from the referee's [`junqi::Position`]. A spectator's view is the
//! public part of the seats' views: a kind only where every seat knows it, and only
//! the events every seat was told.

use junqi::render::SvgOptions;
use junqi::{describe_result, GameResult, Phase, RuleSet, SeenPiece, Side, SideSet, View};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::table::Table;

/// Who is asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// A seat, proven by its token.
    Seat(Side),
    /// Anybody without a token.
    Spectator,
}

impl Viewer {
    /// The seat, if any.
    pub fn seat(self) -> Option<Side> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        }
    }
}

/// A result as JSON: `{"winners": [...], "reason": "flag_captured", "text": "..."}`.
pub fn result_json(result: &GameResult) -> Value {
    json!({
        "winners": result.winners.iter().map(Side::name).collect::<Vec<_>>(),
        "reason": result.reason.name(),
        "text": describe_result(result),
    })
}

/// What a state request asks for beyond the state itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ask {
    /// The picture (SVG): drawn only when asked for.
    pub svg: bool,
    /// The events from this index of the viewer's log on (0: the whole log).
    pub events_from: usize,
    /// The language of the event texts and the result's text (`?lang=zh-CN`: Chinese).
    pub lang: junqi::referee::narrate::Language,
    /// The learner's view (`?beliefs=1`): what the seat's own beliefs say each piece it
    /// has not seen can be. The handler refuses it to spectators and in rated games
    /// in play.
    pub beliefs: bool,
}

/// The state a viewer receives, ready to serialize: built from the viewer's view, and
/// written straight to the answer's bytes (no JSON tree in between: a state is a few
/// hundred values, and building them as a tree of maps was most of a request's cost).
#[derive(Serialize)]
pub struct State<'a> {
    game: &'a str,
    rules: &'a str,
    seat: Option<&'static str>,
    seats: Value,
    phase: &'static str,
    to_act: Option<&'static str>,
    deployed: SideSet,
    version: u64,
    view: ViewJson<'a>,
    /// The seat's view string (docs/position-strings.md), for engines and bridges.
    position: Option<String>,
    svg: Option<String>,
    legal: Vec<Legal<'a>>,
    pending_setup: Value,
    events: Vec<Value>,
    events_from: usize,
    events_total: usize,
    result: Option<Value>,
    clock: Value,
    draw_offer: Option<&'static str>,
    listed: bool,
    rated: bool,
    rematch: Option<&'a str>,
    rematch_of: Option<&'a str>,
    ratings: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    beliefs: Option<Value>,
}

/// A legal action as the state lists it.
#[derive(Serialize)]
struct Legal<'a> {
    id: Option<usize>,
    notation: String,
    from: &'a str,
    to: Option<&'a str>,
}

/// The core's view as [`View::state_json`] writes it (the same fields and values, checked
/// by a test), serialized directly; a spectator's `player` is null.
pub struct ViewJson<'a> {
    view: View,
    rules: &'a RuleSet,
    spectator: bool,
}

impl Serialize for ViewJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Timeouts<'b>(&'b [Side], &'b [u8; 4]);
        impl Serialize for Timeouts<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|&side| (side.name(), self.1[side as usize])))
            }
        }
        struct Pieces<'b>(&'b [SeenPiece], &'b junqi::Board);
        impl Serialize for Pieces<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(Serialize)]
                struct Piece<'c> {
                    point: &'c str,
                    owner: Option<Side>,
                    kind: Option<junqi::PieceKind>,
                    arm: junqi::Arm,
                }
                s.collect_seq(self.0.iter().map(|p| Piece {
                    point: self.1.name_of(p.point),
                    owner: p.owner,
                    kind: p.kind,
                    arm: p.arm,
                }))
            }
        }
        let v = &self.view;
        let rules = self.rules;
        let mut m = s.serialize_map(Some(13))?;
        m.serialize_entry("player", &(!self.spectator).then_some(v.player))?;
        m.serialize_entry("army", &v.army)?;
        m.serialize_entry("rules", rules.name())?;
        m.serialize_entry("sides", rules.sides())?;
        m.serialize_entry("phase", &v.phase)?;
        m.serialize_entry("to_act", &v.to_act)?;
        m.serialize_entry("ply", &v.ply)?;
        m.serialize_entry("no_capture_plies", &v.no_capture_plies)?;
        m.serialize_entry("deployed", &v.deployed)?;
        m.serialize_entry("eliminated", &v.eliminated)?;
        m.serialize_entry("timeouts", &Timeouts(rules.sides(), &v.timeouts))?;
        m.serialize_entry("pieces", &Pieces(&v.pieces, rules.board()))?;
        m.serialize_entry("result", &v.result)?;
        m.end()
    }
}

/// The state `viewer` sees. `connected[side]` says whether the seat has a live
/// connection.
pub fn state<'a>(table: &'a Table, viewer: Viewer, connected: &[bool; 4], ask: Ask) -> State<'a> {
    let game = &table.game;
    let rules = game.rules();
    let board = game.board();
    // Once the game is over every piece is shown, to the seats and to spectators
    // (Game::end_view); a spectator's events stay the public ones.
    let mut view = match viewer {
        Viewer::Seat(side) => game.end_view(side),
        Viewer::Spectator => {
            let mut v = game.public_view();
            if game.phase() == Phase::Over {
                v.pieces = game.end_view(rules.sides()[0]).pieces;
            }
            v
        }
    };
    let pending = viewer
        .seat()
        .and_then(|s| table.pending.get(&s).map(|setup| (s, setup)));
    let svg = ask.svg.then(|| {
        // The proposed setup is drawn as if deployed (it is the seat's own knowledge).
        let drawn = match pending {
            Some((side, setup)) if view.phase == Phase::Deploy => {
                let mut v = view.clone();
                v.army = Some(side);
                for (p, k) in setup.placements() {
                    if let (Some(point), Some(kind)) = (board.point(p), junqi::PieceKind::from_name(k))
                    {
                        v.pieces.push(SeenPiece {
                            point,
                            owner: Some(side),
                            kind: Some(kind),
                            arm: kind.arm(),
                        });
                    }
                }
                v.pieces.sort_by_key(|p| p.point);
                Some(v)
            }
            _ => None,
        };
        // No caption in the picture: the page's status line above the board says the
        // rule set, the seat, the ply and whose turn it is, in the page's language (the
        // core's caption is English), and the board gets the room.
        let options = SvgOptions {
            caption: false,
            ..SvgOptions::default()
        };
        let svg = drawn.as_ref().unwrap_or(&view).to_svg(rules, &options);
        match viewer {
            Viewer::Seat(_) => svg,
            // The picture's title names the view's seat too: a spectator's names none.
            Viewer::Spectator => spectators_title(svg, rules.name()),
        }
    });
    let to_act = match view.phase {
        Phase::Move | Phase::Reaction => view.to_act,
        _ => None,
    };
    let legal: Vec<Legal<'a>> = match (viewer.seat(), to_act) {
        (Some(seat), Some(act)) if seat == act => game
            .legal_actions()
            .into_iter()
            .map(|a| {
                // A flip has no target: "to" is null, so the page marks it apart.
                let (from, to) = a.endpoints();
                Legal {
                    id: a.id(rules),
                    notation: a.to_notation(board),
                    from: board.name_of(from),
                    to: (!a.is_flip()).then(|| board.name_of(to)),
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    // Each event with the core's ply (0 for the deployment), from `events_from` on, in
    // words from the viewer's side (the core's narrator reads the whole log, from the
    // seat's own setup: what the seat knows of who stands where).
    let from = ask.events_from.min(view.events.len());
    let mut narrator = match viewer {
        Viewer::Seat(side) => junqi::referee::narrate::Narrator::for_game(game, side),
        Viewer::Spectator => junqi::referee::narrate::Narrator::spectator(game),
    }
    .in_language(ask.lang);
    let texts = narrator.tell_all(&view.events);
    let events: Vec<Value> = view.events[from..]
        .iter()
        .zip(&view.event_plies[from..])
        .zip(&texts[from..])
        .map(|((e, ply), text)| json!({"ply": ply, "text": text, "event": e.to_json(board)}))
        .collect();
    let events_total = view.events.len();
    let seats: Map<String, Value> = rules
        .sides()
        .iter()
        .map(|&s| {
            let mut seat = match table.seats.get(&s) {
                Some(seat) => seat.public_json(),
                None => json!({"kind": "human", "taken": false}),
            };
            seat["connected"] = json!(connected[s as usize]);
            (s.name().to_owned(), seat)
        })
        .collect();
    let clock = table.clock_json(&view.timeouts);
    let pending_setup = match pending {
        Some((_, setup)) if view.phase == Phase::Deploy => {
            serde_json::to_value(setup).unwrap_or(Value::Null)
        }
        _ => Value::Null,
    };
    // The result's text: the narrator's, from the viewer's side ("you lose: north
    // captured your flag"; a spectator's "north wins: the flag was captured"), in the
    // page's language.
    let result = view.result.as_ref().map(|r| {
        let mut j = result_json(r);
        j["text"] = json!(narrator.clone().tell(&junqi::Event::GameOver { result: *r }));
        j
    });
    let ratings = table.ratings.as_ref().filter(|r| !r.is_empty()).map(|changes| {
        crate::players::changes_json(changes, &|side| {
            Side::from_name(side).and_then(|s| table.seats.get(&s)).and_then(|s| s.display_name())
        })
    });
    view.events = Vec::new(); // sent once, in words, under "events"
    view.event_plies = Vec::new();
    // The learner's view: for every piece on the board whose kind the seat does not
    // know, the kinds its beliefs (built from its own information only) leave, and the
    // likeliest of them by the modelled beliefs (the model the engine ships for the
    // rule set: how each kind played in its own games; the plain beliefs elsewhere).
    let beliefs = match (ask.beliefs, viewer) {
        (true, Viewer::Seat(side)) => {
            let b = game.beliefs(side);
            let model = junqi::OpponentModel::for_rules(rules);
            let probabilities = b.probabilities(&model);
            let mut out = Map::new();
            let mut likely = Map::new();
            let mut names = Map::new();
            for p in view.pieces.iter().filter(|p| p.kind.is_none()) {
                let left = b.candidates(p.point);
                for k in left.iter() {
                    let name = k.chinese_names().first().copied().unwrap_or(k.id());
                    names.insert(k.id().to_owned(), json!(name));
                }
                let kinds: Vec<&str> = left.iter().map(|k| k.id()).collect();
                let point = board.name_of(p.point).to_owned();
                likely.insert(point.clone(), json!(likeliest(&probabilities, p.point, &left)));
                out.insert(point, json!(kinds));
            }
            Some(json!({"pieces": out, "likely": likely, "names": names}))
        }
        _ => None,
    };
    State {
        beliefs,
        game: &table.id,
        rules: rules.name(),
        seat: viewer.seat().map(Side::name),
        seats: Value::Object(seats),
        phase: view.phase.name(),
        to_act: to_act.map(Side::name),
        deployed: view.deployed,
        version: table.version,
        position: viewer.seat().map(|s| game.view_string(s)),
        svg,
        legal,
        pending_setup,
        events,
        events_from: from,
        events_total,
        result,
        clock,
        draw_offer: table.draw_offer.filter(|_| to_act.is_some()).map(Side::name),
        listed: table.settings.listed,
        rated: table.settings.rated,
        rematch: table.rematch.as_deref(),
        rematch_of: table.settings.rematch_of.as_deref(),
        ratings,
        view: ViewJson { view, rules, spectator: viewer == Viewer::Spectator },
    }
}

/// The picture's first `<title>` (the core's "RULES — SEAT's view") as a spectator's.
fn spectators_title(svg: String, rules: &str) -> String {
    match (svg.find("<title>"), svg.find("</title>")) {
        (Some(a), Some(b)) if a < b => {
            let title = format!("<title>{} — the public view (spectator)</title>", xml_escape(rules));
            format!("{}{title}{}", &svg[..a], &svg[b + "</title>".len()..])
        }
        _ => svg,
    }
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The state `viewer` sees, as a JSON tree (for tests and tools; the server writes
/// [`state`] directly).
pub fn state_json(table: &Table, viewer: Viewer, connected: &[bool; 4], ask: Ask) -> Value {
    serde_json::to_value(state(table, viewer, connected, ask)).expect("a state serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The view written directly is the core's `View::state_json`, value for value.
    #[test]
    fn the_view_is_written_as_the_core_writes_it() {
        for name in junqi::RuleSet::preset_names() {
            let rules = junqi::RuleSet::preset(name).unwrap();
            let mut g = junqi::Game::with_rules(rules.clone(), 5);
            let mut rng = junqi::Rng::new(3);
            for step in 0..60 {
                if g.result().is_some() {
                    break;
                }
                if g.phase() == Phase::Deploy {
                    let side = *rules.sides().iter().find(|s| !g.deployed().contains(**s)).unwrap();
                    g.deploy_random(side, step).unwrap();
                } else {
                    let moves = g.legal_actions();
                    g.play(moves[rng.below(moves.len())]).unwrap();
                }
                for (view, spectator) in rules
                    .sides()
                    .iter()
                    .map(|&s| (g.view(s), false))
                    .chain([(g.public_view(), true)])
                {
                    let mut want = view.state_json(&rules);
                    if spectator {
                        want["player"] = Value::Null;
                    }
                    let got = serde_json::to_value(ViewJson { view, rules: &rules, spectator }).unwrap();
                    assert_eq!(got, want, "{name}");
                }
            }
        }
    }
}

/// How many of a piece's likeliest kinds the learner's view lists.
const LIKELIEST: usize = 3;

/// The learner's view of one piece: its likeliest kinds (at most [`LIKELIEST`], each at
/// least 1 %) with their probabilities rounded to 0.001, likeliest first (ties in the
/// kinds' order).
fn likeliest(p: &junqi::Probabilities, point: junqi::Point, kinds: &junqi::KindSet) -> Vec<(&'static str, f64)> {
    let mut by_kind: Vec<(junqi::PieceKind, f64)> = kinds.iter().map(|k| (k, p.kind(point, k))).collect();
    by_kind.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    by_kind
        .into_iter()
        .take(LIKELIEST)
        .filter(|&(_, q)| q >= 0.01)
        .map(|(k, q)| (k.id(), (q * 1000.0).round() / 1000.0))
        .collect()
}
