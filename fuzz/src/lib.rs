//! Shared helpers of the fuzz targets: a byte reader that turns fuzz input into choices,
//! structured random rule sets, and the referee's guarantees as assertions.

use std::sync::Arc;

use junqi::{Action, Game, Phase, Record, RuleSet};
use serde_json::{json, Value};

/// Choices drawn from the fuzz input; zeros once it runs out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    /// A number in `0..n` (`n > 0`) from two bytes.
    pub fn below(&mut self, n: usize) -> usize {
        (u16::from_le_bytes([self.byte(), self.byte()]) as usize) % n.max(1)
    }

    /// A 64-bit number.
    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, _| acc << 8 | self.byte() as u64)
    }

    /// Whether the input is used up.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// One of `items`.
    pub fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items[self.below(items.len())]
    }
}

const BOOL_OPTIONS: &[&str] = &[
    "mine_survives",
    "rail_all_turn",
    "bomb_may_hit_flag",
    "hq_locks",
    "camps_protect",
    "allies_see_each_other",
    "commander_reveals_flag",
    "hq_shelter",
    "flag_guarded_by_mines",
    "lose_without_movable_pieces",
    "evade_step",
    "open_play",
    "commander_capture",
    "open_after_deploy",
    "recon_lock_on",
];
const PATTERNS: &[&str] = &["bomb", "@plane", "@ship", "*", "engineer", "@officer", "missile", "@nope"];
const ABILITIES: &[&str] = &["strike", "bombard", "anti_air", "flight", "scout"];
const MOBILITIES: &[&str] = &["immobile", "step", "rail_straight", "rail_turn", "sail", "sail_and_land", "fly"];
const OUTCOMES: &[&str] = &["win", "lose", "both", "repel", "evade", "illegal", "rank"];
const ROLES: &[&str] = &["camp", "airport", "anchorage", "harbour_mouth", "post", "hq", "sea", "air"];

/// A structured random variation of a preset (`{"extends": …}` JSON), every choice
/// drawn from `b`: options, abilities, movement, dealing, deployment, teams, a combat
/// entry.
pub fn variation(b: &mut Bytes) -> String {
    let names = RuleSet::preset_names();
    let preset = names[b.below(names.len())];
    let base: Value = serde_json::from_str(&RuleSet::preset(preset).unwrap().to_json()).unwrap();
    let kinds: Vec<String> = base["army"].as_object().unwrap().keys().cloned().collect();
    let mut v = json!({"extends": preset, "name": "fuzzed"});
    let mut options = serde_json::Map::new();
    for _ in 0..b.below(6) {
        options.insert(b.pick(BOOL_OPTIONS).into(), json!(b.byte() & 1 == 1));
    }
    let flags = b.byte();
    if flags & 1 != 0 {
        options.insert("rail_max_steps".into(), if b.byte() < 64 { Value::Null } else { json!(b.below(6)) });
    }
    if flags & 2 != 0 {
        options.insert("engineer_scouts".into(), json!(b.pick(&["off", "attacker", "everyone", "sacrifice"])));
    }
    if flags & 4 != 0 {
        options.insert("max_timeouts".into(), if b.byte() < 64 { Value::Null } else { json!(b.below(4)) });
    }
    if flags & 8 != 0 {
        options.insert("no_capture_draw_plies".into(), json!(b.below(120)));
    }
    if flags & 16 != 0 {
        options.insert(
            "smallest_digs_mines".into(),
            json!(b.pick(&["off", "engineers_gone", "engineers_and_bombs_gone"])),
        );
    }
    if flags & 32 != 0 {
        let key = b.pick(&["camp_exempt", "hq_safe_from"]);
        options.insert(key.into(), json!([b.pick(PATTERNS)]));
    }
    v["options"] = Value::Object(options);
    let more = b.byte();
    if more & 1 != 0 {
        let mut abilities = base.get("abilities").cloned().unwrap_or(json!({}));
        let list: Vec<&str> = (0..1 + b.below(2)).map(|_| b.pick(ABILITIES)).collect();
        abilities[kinds[b.below(kinds.len())].as_str()] = json!(list);
        v["abilities"] = abilities;
    }
    if more & 2 != 0 {
        let mut movement = base["movement"].clone();
        movement[kinds[b.below(kinds.len())].as_str()] = json!(b.pick(MOBILITIES));
        v["movement"] = movement;
    }
    if more & 4 != 0 {
        let mut deployment = base["deployment"].clone();
        match b.below(3) {
            0 => deployment["deal"] = json!(!deployment["deal"].as_bool().unwrap_or(false)),
            1 => deployment["constraints"] = json!([]),
            _ => deployment["roles"].as_array_mut().unwrap().push(json!(b.pick(ROLES))),
        }
        v["deployment"] = deployment;
    }
    if more & 8 != 0 && base["sides"].as_array().unwrap().len() == 4 {
        v["teams"] = match b.below(3) {
            0 => json!([]),
            1 => json!([["south", "north"], ["east", "west"]]),
            _ => json!([["south", "east"], ["north", "west"]]),
        };
    }
    if more & 16 != 0 {
        let a = &kinds[b.below(kinds.len())];
        let d = &kinds[b.below(kinds.len())];
        v["combat_first"] = json!([{"attacker": a, "defender": d, "outcome": b.pick(OUTCOMES)}]);
    }
    v.to_string()
}

/// What a refused call must not change: the state, the record's length and every
/// player's event log.
pub struct Snapshot {
    position: junqi::Position,
    entries: usize,
    events: Vec<usize>,
}

/// The game's [`Snapshot`].
pub fn snapshot(game: &Game) -> Snapshot {
    Snapshot {
        position: game.position().clone(),
        entries: game.record().actions.len(),
        events: game.rules().sides().iter().map(|&s| game.events(s).len()).collect(),
    }
}

/// Whether the game is as it was at `before`.
pub fn unchanged(game: &Game, before: &Snapshot) -> bool {
    let now = snapshot(game);
    game.position().same_state(&before.position) && now.entries == before.entries && now.events == before.events
}

/// Every legal action is in the action space and round-trips through its id and its
/// notation; the mask agrees.
pub fn check_action_space(game: &Game) {
    let rules = game.rules();
    let actions = game.legal_actions();
    let ids = game.legal_action_ids();
    assert_eq!(actions.len(), ids.len(), "a legal action has no id");
    for a in &actions {
        let id = a.id(rules).expect("every legal action has an id");
        assert!(id < rules.action_space());
        assert_eq!(Action::from_id(rules, id).unwrap(), *a);
        assert_eq!(Action::parse(game.board(), &a.to_notation(game.board())).unwrap(), *a);
    }
    assert_eq!(game.action_mask().iter().filter(|m| **m).count(), ids.len());
}

/// A view names a piece's kind only where its player knows it, and renders.
pub fn check_views(game: &Game) {
    let pos = game.position();
    for &player in game.rules().sides() {
        let view = game.view(player);
        for piece in &view.pieces {
            assert_eq!(piece.kind.is_some(), pos.knows(player, piece.point));
        }
        let _ = view.render(game.board());
    }
}

/// The position's string reads back under the game's rule set and prints the same,
/// with the same player to act and the same legal actions (a position string is the
/// whole state, docs/position-strings.md).
pub fn check_position_string(game: &Game) {
    let pos = game.position();
    let text = pos.position_string();
    let back = junqi::Position::from_position_string_with(game.rules().clone(), &text)
        .unwrap_or_else(|e| panic!("a printed position string does not read back: {e}\n{text}"));
    assert_eq!(back.position_string(), text, "the position string does not round-trip");
    assert_eq!(back.to_act(), pos.to_act());
    if pos.phase() != Phase::Over && pos.phase() != Phase::Deploy {
        assert_eq!(back.legal_actions(), pos.legal_actions(), "the string's position plays otherwise: {text}");
    }
}

/// The record replays to the identical state.
pub fn check_record(game: &Game) {
    let json = game.record().to_json();
    let again = Game::from_record(&Record::from_json(&json).unwrap()).expect("the record replays");
    assert!(again.position().same_state(game.position()), "the replay differs");
}

/// Deploys every side at random (false if the constraints cannot be met), then plays
/// the action ids drawn from `b` — a legal one when the drawn id is not legal, after
/// checking that playing it is refused and changes nothing — with all the checks.
pub fn play_ids(rules: &Arc<RuleSet>, b: &mut Bytes, max_plies: usize) -> Option<Game> {
    let mut game = Game::with_rules(rules.clone(), b.u64());
    if game.phase() == Phase::Deploy {
        for &side in rules.sides() {
            let seed = b.u64();
            if game.deploy_random(side, seed).is_err() {
                return None;
            }
        }
    }
    for ply in 0..max_plies {
        if game.result().is_some() || b.is_empty() {
            break;
        }
        if ply % 4 == 0 {
            check_action_space(&game);
        }
        let legal = game.legal_action_ids();
        let id = b.below(rules.action_space() + 1);
        if b.byte() == 0xFF && game.phase() == Phase::Move {
            game.time_out().unwrap();
            continue;
        }
        if !legal.contains(&id) && ply % 8 == 0 {
            let before = snapshot(&game);
            assert!(game.play_id(id).is_err(), "an id that is not legal was played");
            assert!(unchanged(&game, &before), "a refused call changed the game");
            if legal.is_empty() {
                break;
            }
            game.play_id(legal[id % legal.len()]).expect("a legal id plays");
        } else if legal.contains(&id) {
            game.play_id(id).expect("a legal id plays");
        } else if !legal.is_empty() {
            game.play_id(legal[id % legal.len()]).expect("a legal id plays");
        } else {
            break;
        }
    }
    check_views(&game);
    check_record(&game);
    check_position_string(&game);
    Some(game)
}
