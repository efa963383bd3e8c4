//! The referee: a [`Game`] that keeps the full state, tells each player only what that
//! player may know, and keeps the record.
//!
//! Every action returns a [`Report`]: the public events everybody sees, and private
//! events addressed to single players. Each player's event log is the public events
//! plus its own private ones; [`Game::view`] is that player's whole information set.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::action::{Action, NotationError};
use crate::board::{Board, Point};
use crate::combat::CombatOutcome;
use crate::piece::{PieceKind, Side, SideSet};
pub use crate::position::RevealCause;
use crate::position::{EndReason, Eliminations, GameResult, Phase, PlayError, Position, SeenPiece};
use crate::record::Record;
use crate::rules::{RuleSet, RulesError, Scouting};
use crate::setup::{Deployment, Setup, SetupError};

/// Something that happened, as told to a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event {
    /// A side deployed its army.
    Deployed {
        /// The side.
        side: Side,
    },
    /// A piece moved to an empty point.
    Moved {
        /// The moving side.
        side: Side,
        /// Start point.
        from: Point,
        /// End point.
        to: Point,
    },
    /// A piece attacked another. The outcome says who left the board, not what the
    /// pieces were.
    Attacked {
        /// The attacking side.
        side: Side,
        /// The attacker's point.
        from: Point,
        /// The defender's point.
        to: Point,
        /// What happened.
        outcome: CombatOutcome,
    },
    /// A piece struck another without moving: a fort's strike, a gunboat's shore
    /// bombardment, anti-aircraft fire (海陆空三军棋).
    Struck {
        /// The striking side.
        side: Side,
        /// The striker's point.
        from: Point,
        /// The target's point.
        to: Point,
        /// What happened (a bombarding gunboat never leaves the board).
        outcome: CombatOutcome,
    },
    /// A plane flying from `from` was shot down by an enemy anti-aircraft piece on a
    /// surface point its run passed over (below one of its air positions or between
    /// two of them).
    ShotDown {
        /// The plane's side.
        side: Side,
        /// Where the plane started.
        from: Point,
        /// Where it came down: the air position above the gun, or the gun's own point
        /// when no air position is above it (a gun between the air rows).
        at: Point,
    },
    /// A submarine that evaded must step away: its owner acts next (a reaction).
    ReactionDue {
        /// The player who must react.
        player: Side,
        /// The submarine's point.
        point: Point,
    },
    /// A face-down piece was turned face up (翻棋).
    Flipped {
        /// The player who flipped it.
        side: Side,
        /// Where it stands.
        point: Point,
        /// Its army.
        owner: Side,
        /// Its kind.
        kind: PieceKind,
    },
    /// The first flip fixed which army a player commands (翻棋).
    ArmyAssigned {
        /// The player.
        player: Side,
        /// Its army.
        army: Side,
    },
    /// A piece's identity was shown (to everyone, or privately to this player).
    Revealed {
        /// Where the piece stands (or stood, if it has just left the board).
        point: Point,
        /// Its owner.
        owner: Side,
        /// Its kind.
        kind: PieceKind,
        /// Why.
        cause: RevealCause,
    },
    /// A side resigned.
    Resigned {
        /// The side.
        side: Side,
    },
    /// A player left the game (an escape); the game ends.
    Escaped {
        /// The side.
        side: Side,
    },
    /// The referee applied a time-out to the side to act: its turn passed.
    TimedOut {
        /// The side.
        side: Side,
        /// Its time-outs so far.
        count: u8,
    },
    /// A side is out of a game that goes on; its pieces left the board.
    Eliminated {
        /// The side.
        side: Side,
        /// Why.
        reason: EndReason,
    },
    /// The players agreed to a draw.
    DrawAgreed,
    /// The game ended.
    GameOver {
        /// The result.
        result: GameResult,
    },
}

impl Event {
    /// The event as JSON, with point names from `board`.
    pub fn to_json(&self, board: &Board) -> Value {
        let n = |p: Point| board.name_of(p);
        match *self {
            Event::Deployed { side } => json!({"type": "deployed", "side": side}),
            Event::Moved { side, from, to } => {
                json!({"type": "moved", "side": side, "from": n(from), "to": n(to)})
            }
            Event::Attacked { side, from, to, outcome } => json!({
                "type": "attacked", "side": side, "from": n(from), "to": n(to), "outcome": outcome
            }),
            Event::Struck { side, from, to, outcome } => json!({
                "type": "struck", "side": side, "from": n(from), "to": n(to), "outcome": outcome
            }),
            Event::ShotDown { side, from, at } => json!({"type": "shot_down", "side": side, "from": n(from), "at": n(at)}),
            Event::ReactionDue { player, point } => json!({"type": "reaction_due", "player": player, "point": n(point)}),
            Event::Revealed { point, owner, kind, cause } => json!({
                "type": "revealed", "point": n(point), "owner": owner, "kind": kind, "cause": cause.name()
            }),
            Event::Resigned { side } => json!({"type": "resigned", "side": side}),
            Event::Escaped { side } => json!({"type": "escaped", "side": side}),
            Event::Flipped { side, point, owner, kind } => json!({
                "type": "flipped", "side": side, "point": n(point), "owner": owner, "kind": kind
            }),
            Event::ArmyAssigned { player, army } => json!({"type": "army_assigned", "player": player, "army": army}),
            Event::TimedOut { side, count } => json!({"type": "timed_out", "side": side, "count": count}),
            Event::Eliminated { side, reason } => json!({"type": "eliminated", "side": side, "reason": reason}),
            Event::DrawAgreed => json!({"type": "draw_agreed"}),
            Event::GameOver { result } => json!({"type": "game_over", "result": result}),
        }
    }

    /// The event in one line of text, e.g. `"south a6xa7: win (the defender left the
    /// board)"`. A combat names its [`CombatOutcome`] (`win`, `lose`, `both`, `repel`,
    /// `evade`, from the attacker's side), then says who left the board.
    pub fn describe(&self, board: &Board) -> String {
        let n = |p: Point| board.name_of(p);
        match *self {
            Event::Deployed { side } => format!("{side} deployed"),
            Event::Moved { side, from, to } => format!("{side} {}-{}", n(from), n(to)),
            Event::Struck { side, from, to, outcome } => {
                format!("{side} {} struck {}: {outcome} ({})", n(from), n(to), strike_words(outcome))
            }
            Event::ShotDown { side, from, at } => format!("{side}'s plane from {} was shot down at {}", n(from), n(at)),
            Event::ReactionDue { player, point } => {
                format!("{player} must step the submarine on {} away", n(point))
            }
            Event::Attacked { side, from, to, outcome } => {
                format!("{side} {}x{}: {outcome} ({})", n(from), n(to), attack_words(outcome))
            }
            Event::Revealed { point, owner, kind, cause } => {
                format!("{owner}'s piece on {} is {} {kind} ({})", n(point), article(kind), cause.name())
            }
            Event::Resigned { side } => format!("{side} resigned"),
            Event::Escaped { side } => format!("{side} left the game (escape)"),
            Event::Flipped { side, point, owner, kind } => {
                format!("{side} flipped {}: {owner}'s {kind}", n(point))
            }
            // In 翻棋 the armies carry side names as labels, which need not be the
            // player's seat: say which is which.
            Event::ArmyAssigned { player, army } => format!("the {player} player commands the army labelled {army}"),
            Event::TimedOut { side, count } => format!("{side} timed out ({count})"),
            Event::Eliminated { side, reason } => {
                format!("{side} is out ({}); its pieces leave the board", reason.name())
            }
            Event::DrawAgreed => "draw agreed".to_owned(),
            Event::GameOver { result } => describe_result(&result),
        }
    }
}

/// `a` or `an` before a kind's id.
fn article(kind: PieceKind) -> &'static str {
    if kind.id().starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Who left the board after an attack made by moving.
fn attack_words(outcome: CombatOutcome) -> &'static str {
    match outcome {
        CombatOutcome::Win => "the defender left the board",
        CombatOutcome::Lose => "the attacker left the board",
        CombatOutcome::Both => "both left the board",
        CombatOutcome::Repel => "nobody left the board",
        CombatOutcome::Evade => "the defender evaded",
        CombatOutcome::Illegal => "no combat",
    }
}

/// Who left the board after a strike (the striker stays on its point).
fn strike_words(outcome: CombatOutcome) -> &'static str {
    match outcome {
        CombatOutcome::Win => "the target left the board",
        CombatOutcome::Lose => "the striker left the board",
        CombatOutcome::Both => "both left the board",
        CombatOutcome::Repel => "no effect",
        CombatOutcome::Evade => "the target evaded",
        CombatOutcome::Illegal => "no combat",
    }
}

/// A result in words, e.g. `"south wins (flag_captured)"`.
pub fn describe_result(result: &GameResult) -> String {
    let reason = result.reason.name();
    if result.is_draw() {
        format!("draw ({reason})")
    } else {
        let names: Vec<&str> = result.winners.iter().map(Side::name).collect();
        format!("{} win{} ({reason})", names.join(" and "), if names.len() == 1 { "s" } else { "" })
    }
}

/// What an action produced: the events every player sees, and those for one player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Events told to every player.
    pub public: Vec<Event>,
    /// Events told only to the named player.
    pub private: Vec<(Side, Event)>,
}

impl Report {
    /// The events `player` learns from this action, in order.
    pub fn events_for(&self, player: Side) -> Vec<Event> {
        let mut v = Vec::new();
        self.events_into(player, &mut v);
        v
    }

    /// Appends what `player` is told of this report to `out` (as
    /// [`Report::events_for`], without allocating a new list).
    pub(crate) fn events_into(&self, player: Side, out: &mut Vec<Event>) {
        out.extend_from_slice(&self.public);
        out.extend(self.private.iter().filter(|(s, _)| *s == player).map(|(_, e)| *e));
    }

    /// The report as JSON: `{"public": [...], "private": {"south": [...]}}`.
    pub fn to_json(&self, board: &Board) -> Value {
        let mut private = serde_json::Map::new();
        for (side, e) in &self.private {
            private
                .entry(side.name())
                .or_insert_with(|| Value::Array(vec![]))
                .as_array_mut()
                .expect("array")
                .push(e.to_json(board));
        }
        json!({
            "public": self.public.iter().map(|e| e.to_json(board)).collect::<Vec<_>>(),
            "private": private,
        })
    }

    /// The part of the report one player may see, as JSON.
    pub fn to_json_for(&self, board: &Board, player: Side) -> Value {
        Value::Array(self.events_for(player).iter().map(|e| e.to_json(board)).collect())
    }
}

/// One player's information set: everything that player may know, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// Whose view this is.
    pub player: Side,
    /// The army the player commands (its own side, except in 翻棋 before the first
    /// flip, when it is `None`).
    pub army: Option<Side>,
    /// The phase.
    pub phase: Phase,
    /// The side to act.
    pub to_act: Option<Side>,
    /// Plies played.
    pub ply: u32,
    /// Plies in a row without a piece leaving the board.
    pub no_capture_plies: u32,
    /// The sides that have deployed (public).
    pub deployed: SideSet,
    /// The sides that are out of the game: resigned, beaten or timed out in 四国
    /// (public). A front end shows "out" from this, never from the pieces.
    pub eliminated: SideSet,
    /// Each side's time-outs so far, by side index (public).
    pub timeouts: [u8; 4],
    /// Every piece on the board; kinds only where the player knows them.
    pub pieces: Vec<SeenPiece>,
    /// The player's event log (public events and its own private ones).
    pub events: Vec<Event>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
}

impl View {
    /// The view as JSON: `{"player", "army", "rules", "sides", "phase", "to_act",
    /// "ply", "no_capture_plies", "deployed", "eliminated", "timeouts", "pieces",
    /// "events", "result"}` (`"sides"`: the rule set's sides in turn order;
    /// `"timeouts"`: `{side: count}` for each of them).
    pub fn to_json(&self, rules: &RuleSet) -> Value {
        let mut json = self.state_json(rules);
        json["events"] = self.events.iter().map(|e| e.to_json(rules.board())).collect();
        json
    }

    /// The view as JSON without the event log (`"events"`): the current state only,
    /// much cheaper than [`View::to_json`] late in a game.
    ///
    /// ```
    /// let mut game = junqi::Game::new("classic", 1).unwrap();
    /// game.deploy_random(junqi::Side::South, 1).unwrap();
    /// let view = game.view(junqi::Side::North);
    /// let state = view.state_json(game.rules());
    /// assert!(state.get("events").is_none());
    /// assert_eq!(state["pieces"], view.to_json(game.rules())["pieces"]);
    /// ```
    pub fn state_json(&self, rules: &RuleSet) -> Value {
        let board = rules.board();
        json!({
            "player": self.player,
            "army": self.army,
            "rules": rules.name(),
            "sides": rules.sides(),
            "phase": self.phase,
            "to_act": self.to_act,
            "ply": self.ply,
            "no_capture_plies": self.no_capture_plies,
            "deployed": self.deployed,
            "eliminated": self.eliminated,
            "timeouts": rules.sides().iter().map(|&s| (s.name().to_owned(), Value::from(self.timeouts[s as usize]))).collect::<serde_json::Map<_, _>>(),
            "pieces": self.pieces.iter().map(|p| json!({
                "point": board.name_of(p.point), "owner": p.owner, "kind": p.kind, "arm": p.arm
            })).collect::<Vec<_>>(),
            "result": self.result,
        })
    }

    /// The board as text from this player's seat: own pieces by their two-letter code
    /// ([`PieceKind::short`]), other sides' pieces in angle brackets (`<??>` when
    /// unknown, `<~?>` for an unknown ship), face-down pieces (翻棋) as `##`; an empty
    /// post is `.`, `( )` an empty camp, `[ ]` an empty HQ, `~` open sea. Railways are
    /// drawn between the points they join: `=` across, `|` up and down, `/` and `\`
    /// for a diagonal railway (the corner arcs of 四国). On a board with an air layer the
    /// planes follow the grid, one line, by air position.
    ///
    /// ```
    /// let game = junqi::Game::new("classic", 1).unwrap();
    /// let text = game.view(junqi::Side::South).render(game.board());
    /// // Row 6, South's front row, is one railway.
    /// assert!(text.lines().any(|l| l == "  6  .=====.=====.=====.=====."));
    /// ```
    pub fn render(&self, board: &Board) -> String {
        use crate::board::{EdgeKind, Role};
        // Every grid column is CELL characters wide: a 4-character cell, then a
        // 2-character gap where a railway to the east is drawn.
        const CELL: usize = 6;
        let (w, h) = board.grid_size();
        let (w, h) = (w as usize, h as usize);
        if h == 0 {
            return String::new(); // a board without points
        }
        // Text rows from the top: grid row y is text row 2 * (h - 1 - y); the rows in
        // between carry the vertical railway marks.
        let mut rows = vec![vec![' '; w * CELL]; 2 * h - 1];
        let text_row = |y: usize| 2 * (h - 1 - y);
        let put = |rows: &mut Vec<Vec<char>>, x: usize, y: usize, cell: &str| {
            for (i, c) in cell.chars().take(4).enumerate() {
                rows[text_row(y)][x * CELL + i] = c;
            }
        };
        // Air positions above a surface point are listed under the grid, not drawn.
        let drawn = |p: Point| !(board.is_air(p) && board.below(p).is_some());
        for p in board.points().filter(|&p| drawn(p)) {
            let (x, y) = board.coords(p);
            let mark = match board.role(p) {
                Role::Camp => "( ) ",
                Role::Hq => "[ ] ",
                Role::Sea | Role::Anchorage => " ~  ",
                Role::Air | Role::Airport => " ^  ",
                _ => " .  ",
            };
            put(&mut rows, x as usize, y as usize, mark);
        }
        // Railways: straight runs along a row or a column, and one-cell diagonals.
        for a in board.points().filter(|&p| drawn(p)) {
            for b in board.neighbours_by(a, EdgeKind::Railway).filter(|&b| a < b && drawn(b)) {
                let ((ax, ay), (bx, by)) = (board.coords(a), board.coords(b));
                let (ax, ay, bx, by) = (ax as usize, ay as usize, bx as usize, by as usize);
                if ay == by {
                    let r = text_row(ay);
                    for c in ax.min(bx) * CELL + 2..ax.max(bx) * CELL + 1 {
                        if rows[r][c] == ' ' {
                            rows[r][c] = '=';
                        }
                    }
                } else if ax == bx {
                    let c = ax * CELL + 1;
                    for r in text_row(ay.max(by)) + 1..text_row(ay.min(by)) {
                        if rows[r][c] == ' ' {
                            rows[r][c] = '|';
                        }
                    }
                } else if ax.abs_diff(bx) == 1 && ay.abs_diff(by) == 1 {
                    // In the gap right of the western point, on the text row between.
                    let (west, east) = if ax < bx { ((ax, ay), (bx, by)) } else { ((bx, by), (ax, ay)) };
                    let r = text_row(west.1.max(east.1)) + 1;
                    let mark = if east.1 > west.1 { '/' } else { '\\' };
                    rows[r][west.0 * CELL + 4] = mark;
                    rows[r][west.0 * CELL + 5] = mark;
                }
            }
        }
        let mut air = Vec::new();
        for piece in &self.pieces {
            // An unknown ship shows its arm (public): `~?`.
            let unknown = if piece.arm == crate::piece::Arm::Navy { "~?" } else { "??" };
            let code = piece.kind.map_or(unknown, PieceKind::short);
            let cell = match piece.owner {
                None => " ## ".to_owned(),
                Some(o) if Some(o) == self.army => format!(" {code} "),
                Some(_) => format!("<{code}>"),
            };
            if !drawn(piece.point) {
                air.push(format!("{} {}", cell.trim(), board.name_of(piece.point)));
                continue;
            }
            let (x, y) = board.coords(piece.point);
            put(&mut rows, x as usize, y as usize, &cell);
        }
        let mut s = String::new();
        for (i, row) in rows.iter().enumerate() {
            let label = if i % 2 == 0 { format!("{:>3} ", h - i / 2) } else { String::new() };
            let line = format!("{label:4}{}", row.iter().collect::<String>());
            s.push_str(line.trim_end());
            s.push('\n');
        }
        let mut columns = String::from("    ");
        for x in 0..w {
            // Columns past `z` (a custom board up to `MAX_COORD` wide) are numbered.
            let label = if x < 26 { ((b'a' + x as u8) as char).to_string() } else { x.to_string() };
            columns.push_str(&format!(" {label:<5}"));
        }
        s.push_str(columns.trim_end());
        s.push('\n');
        if !board.air_lines().is_empty() {
            s.push_str(&format!("    air: {}\n", if air.is_empty() { "-".to_owned() } else { air.join(", ") }));
        }
        s
    }
}

fn push_end(public: &mut Vec<Event>, eliminated: Eliminations, result: Option<GameResult>) {
    public.extend(eliminated.iter().map(|(side, reason)| Event::Eliminated { side, reason }));
    if let Some(result) = result {
        public.push(Event::GameOver { result });
    }
}

/// An action a [`Game`] records (deployments, moves, and game-ending declarations).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Shared, so that cloning a game (search, OpenSpiel's `clone`) copies no setup.
    Deploy(Side, Arc<Setup>),
    Play(Action),
    Resign(Side),
    Escape(Side),
    TimeOut(Side),
    Draw,
    Deal(Vec<(Point, Side, PieceKind)>),
    /// The game started from this position string (always the first entry).
    Start(String),
}

/// A refereed game: the full state, each player's event log, and the record.
///
/// ```
/// use junqi::{Game, Setup, Side};
/// let mut game = Game::new("classic", 7).unwrap();
/// game.deploy_random(Side::South, 1).unwrap();
/// game.deploy_random(Side::North, 2).unwrap();
/// let moves = game.legal_actions();
/// let report = game.play(moves[0]).unwrap();
/// assert!(!report.public.is_empty());
/// // North sees where South's piece went, but not what it is.
/// let view = game.view(Side::North);
/// assert!(view.pieces.iter().filter(|p| p.owner == Some(Side::South)).all(|p| p.kind.is_none()));
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    seed: u64,
    entries: Vec<Entry>,
    logs: [Vec<Event>; 4],
}

/// Anything a [`Game`] method can refuse.
///
/// Its `Debug` form is its message (as for every error type of the crate), so that
/// `fn main() -> Result<(), GameError>`, `?` into `Box<dyn Error>` and `unwrap` print
/// the reason in words rather than the variants (match on the variants to tell the
/// errors apart).
///
/// ```
/// let mut game = junqi::Game::new("classic", 1).unwrap();
/// let err = game.play_notation("a2-a6").unwrap_err();
/// assert_eq!(format!("{err:?}"), err.to_string());
/// assert!(err.to_string().starts_with("the game is in the deployment phase"));
/// ```
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The rule set could not be loaded.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// A setup is not a legal deployment.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Text that is not an action.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// An action the rules do not allow now.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// A record that cannot be read or does not replay.
    #[error("invalid record: {0}")]
    Record(String),
}

impl Game {
    /// A new game of a preset rule set.
    pub fn new(rules: &str, seed: u64) -> Result<Game, GameError> {
        Ok(Game::with_rules(RuleSet::preset(rules)?, seed))
    }

    /// A new game of a given rule set with a fresh seed from the operating system
    /// ([`crate::random_seed`]): what a game between players should use. The seed is
    /// kept in the record.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("fanqi").unwrap();
    /// let (a, b) = (junqi::Game::with_os_seed(rules.clone()), junqi::Game::with_os_seed(rules));
    /// assert_ne!(a.seed(), b.seed());
    /// ```
    pub fn with_os_seed(rules: Arc<RuleSet>) -> Game {
        Game::with_rules(rules, crate::rng::random_seed())
    }

    /// A new game of a given rule set. The seed is kept in the record (for rule sets
    /// that deal at random).
    ///
    /// A referee's seed is a secret: whoever knows it knows the 翻棋 deal and the
    /// random setups. A chosen seed is for reproducible research (the same seed gives
    /// the same game); a game between players takes its seed from the operating system
    /// ([`Game::with_os_seed`]).
    ///
    /// In a rule set that deals face down (翻棋) the game starts dealt from the seed.
    pub fn with_rules(rules: Arc<RuleSet>, seed: u64) -> Game {
        if rules.deals() {
            let deal = Position::deal_for(&rules, seed);
            return Game::with_deal(rules, seed, &deal).expect("a seed's deal is valid");
        }
        Game {
            position: Position::new(rules),
            seed,
            entries: Vec::new(),
            logs: Default::default(),
        }
    }

    /// The seeded start of `seed` as a game: the seed's deal in a rule set that deals
    /// (翻棋), else every side deployed at random from `seed` ([`Game::deploy_start`]).
    /// The same seed starts the same game in every layer — Rust, C
    /// (`junqi_game_random_start`), Python (`Game.random_start`), JavaScript
    /// (`Game.randomStart`), each game of a `VectorEnv` and the RL adapters — and the
    /// same position as [`Position::random_start`].
    ///
    /// ```
    /// use junqi::{Game, Position, RuleSet};
    /// let rules = RuleSet::preset("classic")?;
    /// let game = Game::random_start(rules.clone(), 7)?;
    /// assert!(game.position().same_state(&Position::random_start(rules, 7)));
    /// assert_eq!(game.seed(), 7);
    /// # Ok::<(), junqi::GameError>(())
    /// ```
    pub fn random_start(rules: Arc<RuleSet>, seed: u64) -> Result<Game, GameError> {
        let mut game = Game::with_rules(rules, seed);
        if !game.rules().deals() {
            for side in game.rules().clone().sides() {
                game.deploy_start(*side)?;
            }
        }
        Ok(game)
    }

    /// Deploys `side`'s setup of the seeded start of this game's seed: the setup
    /// [`Game::random_start`] gives it ([`Position::start_setup_seed`]), whoever else
    /// deployed what. This is what deploying at random without a seed of its own means
    /// in every layer.
    pub fn deploy_start(&mut self, side: Side) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let seed = Position::start_setup_seed(self.rules(), self.seed, side);
        self.deploy_random(side, seed)
    }

    /// A game of a dealing rule set (翻棋) with a given deal: (point, army, kind).
    pub fn with_deal(rules: Arc<RuleSet>, seed: u64, deal: &[(Point, Side, PieceKind)]) -> Result<Game, GameError> {
        if !rules.deals() {
            return Err(SetupError::NotDealt(rules.name().to_owned()).into());
        }
        let position = Position::from_deal(rules, deal)?;
        let mut sorted = deal.to_vec();
        sorted.sort();
        Ok(Game {
            position,
            seed,
            entries: vec![Entry::Deal(sorted)],
            logs: Default::default(),
        })
    }

    /// The rule set.
    pub fn rules(&self) -> &Arc<RuleSet> {
        self.position.rules()
    }

    /// The board.
    pub fn board(&self) -> &Board {
        self.position.rules().board()
    }

    /// The game's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The full state (the referee's knowledge: do not show it to a player).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.position.phase()
    }

    /// The side to act (see [`Position::to_act`]).
    pub fn to_act(&self) -> Option<Side> {
        self.position.to_act()
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.position.result()
    }

    /// Deploys a side from a setup. Sides may deploy in any order.
    pub fn deploy(&mut self, side: Side, setup: &Setup) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let deployment = setup.validate(self.rules(), side)?;
        self.deploy_validated(&deployment)
    }

    /// Whether `side` may deploy now: `Ok`, or the refusal [`Game::deploy`] gives
    /// whatever the setup (see [`Position::may_deploy`]).
    pub fn may_deploy(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_deploy(side)?)
    }

    /// Whether `side` may act now: `Ok`, or the refusal [`Game::play_as`] gives
    /// whatever the action (see [`Position::may_act`]).
    pub fn may_act(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_act(side)?)
    }

    /// Deploys a side from a JSON setup `{"a1": "flag", …}`.
    pub fn deploy_json(&mut self, side: Side, json: &str) -> Result<Report, GameError> {
        let setup = Setup::from_json(json)?;
        self.deploy(side, &setup)
    }

    /// Deploys a random legal setup for `side`, the same for the same seed.
    pub fn deploy_random(&mut self, side: Side, seed: u64) -> Result<Report, GameError> {
        self.may_deploy(side)?;
        let deployment = Deployment::try_random(self.rules(), side, seed)
            .ok_or_else(|| SetupError::Unsatisfiable(self.rules().name().to_owned()))?;
        self.deploy_validated(&deployment)
    }

    fn deploy_validated(&mut self, deployment: &Deployment) -> Result<Report, GameError> {
        self.position.deploy(deployment)?;
        let side = deployment.side();
        self.entries.push(Entry::Deploy(side, Arc::new(deployment.to_setup(self.rules()))));
        let mut public = vec![Event::Deployed { side }];
        self.push_opening(&mut public);
        if let Some(result) = self.position.result() {
            public.push(Event::GameOver { result });
        }
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// 明棋 (`open_after_deploy`): when the last deployment starts play, every piece is
    /// shown to everyone — told as public `Revealed` events (cause `open_play`), so that
    /// each player's log and record say what it knows.
    fn push_opening(&self, public: &mut Vec<Event>) {
        if self.rules().options().open_after_deploy && self.position.phase() != Phase::Deploy {
            public.extend(self.position.pieces().map(|(point, owner, kind)| Event::Revealed {
                point,
                owner,
                kind,
                cause: RevealCause::OpenPlay,
            }));
        }
    }

    /// The legal actions of the side to act (see [`Position::legal_actions`]).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.position.legal_actions()
    }

    /// The legal actions as indices in the rule set's fixed action space, ascending.
    pub fn legal_action_ids(&self) -> Vec<usize> {
        let rules = self.rules();
        let actions = self.legal_actions();
        let mut ids = Vec::with_capacity(actions.len());
        ids.extend(actions.into_iter().filter_map(|a| a.id(rules)));
        ids.sort_unstable();
        ids
    }

    /// A mask over the action space: `true` where the action is legal now.
    pub fn action_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.rules().action_space()];
        for i in self.legal_action_ids() {
            mask[i] = true;
        }
        mask
    }

    /// Plays an action of the side to act.
    pub fn play(&mut self, action: Action) -> Result<Report, GameError> {
        let outcome = self.position.play(action)?;
        Ok(self.played(action, outcome))
    }

    /// Plays an action the caller took from this position's legal actions (the vector
    /// environment checks each id against the list it generated), without checking it
    /// again.
    pub(crate) fn play_legal(&mut self, action: Action) -> Report {
        let outcome = self.position.play_unchecked(action);
        self.played(action, outcome)
    }

    /// Records an action the position has just played and tells the players.
    fn played(&mut self, action: Action, outcome: crate::position::ActionOutcome) -> Report {
        self.entries.push(Entry::Play(action));
        let mut public = Vec::with_capacity(3);
        let mut private = Vec::new();
        let (side, from, to) = (outcome.side, outcome.from, outcome.to);
        if outcome.flipped {
            let owner = self.position.piece_at(from).map_or(side, |p| p.0);
            public.push(Event::Flipped { side, point: from, owner, kind: outcome.kind });
            if outcome.armies_assigned {
                for &player in self.rules().sides() {
                    if let Some(army) = self.position.army_of(player) {
                        public.push(Event::ArmyAssigned { player, army });
                    }
                }
            }
        }
        match outcome.combat {
            None if outcome.flipped => {}
            None if outcome.shot_down_at.is_some() => {}
            None => public.push(Event::Moved { side, from, to }),
            Some((owner, def_kind, result)) => {
                let reveal = Event::Revealed {
                    point: outcome.defender_at.unwrap_or(to),
                    owner,
                    kind: def_kind,
                    cause: RevealCause::EngineerScout,
                };
                match outcome.scouted {
                    Scouting::Off => {}
                    Scouting::Attacker => private.push((side, reveal)),
                    Scouting::Everyone | Scouting::Sacrifice => public.push(reveal),
                }
                public.push(if outcome.struck {
                    Event::Struck { side, from, to, outcome: result }
                } else {
                    Event::Attacked { side, from, to, outcome: result }
                });
            }
        }
        for r in outcome.reveals.into_iter().flatten() {
            let e = Event::Revealed { point: r.point, owner: r.owner, kind: r.kind, cause: r.cause };
            match r.to {
                Some(p) => private.push((p, e)),
                None => public.push(e),
            }
        }
        if let Some(at) = outcome.shot_down_at {
            public.push(Event::ShotDown { side, from, at });
        }
        if let (Some(point), Some(player)) = (outcome.reaction_due, self.position.to_act()) {
            public.push(Event::ReactionDue { player, point });
        }
        for (owner, point) in outcome.flags_revealed.into_iter().flatten() {
            public.push(Event::Revealed {
                point,
                owner,
                kind: PieceKind::Flag,
                cause: RevealCause::CommanderLost,
            });
        }
        push_end(&mut public, outcome.eliminated, outcome.result);
        self.log(Report { public, private })
    }

    /// The referee's time-out for the side to act (a player who ran out of time): the
    /// turn passes, and with `max_timeouts` the side is out after that many.
    pub fn time_out(&mut self) -> Result<Report, GameError> {
        let outcome = self.position.time_out()?;
        self.entries.push(Entry::TimeOut(outcome.side));
        let mut public = vec![Event::TimedOut {
            side: outcome.side,
            count: outcome.count,
        }];
        push_end(&mut public, outcome.eliminated, outcome.result);
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// Plays an action given in notation (`"a2-a6"`).
    pub fn play_notation(&mut self, text: &str) -> Result<Report, GameError> {
        let action = Action::parse(self.board(), text)?;
        self.play(action)
    }

    /// Plays the action with a given index in the action space.
    pub fn play_id(&mut self, index: usize) -> Result<Report, GameError> {
        let action = Action::from_id(self.rules(), index)?;
        self.play(action)
    }

    /// Plays an action on behalf of `side`, refusing it if `side` is not to act.
    pub fn play_as(&mut self, side: Side, action: Action) -> Result<Report, GameError> {
        self.may_act(side)?;
        self.play(action)
    }

    /// `side` resigns and is out: in a two-sided game the other side wins; with teams
    /// play goes on until one team is left.
    pub fn resign(&mut self, side: Side) -> Result<Report, GameError> {
        let deploying = self.position.phase() == Phase::Deploy;
        let (eliminated, result) = self.position.resign(side)?;
        self.entries.push(Entry::Resign(side));
        let mut public = vec![Event::Resigned { side }];
        if deploying && self.position.phase() != Phase::Over {
            self.push_opening(&mut public);
        }
        push_end(&mut public, eliminated, result);
        Ok(self.log(Report {
            public,
            private: vec![],
        }))
    }

    /// `side` leaves the game (an escape, docs/sources.md#qq-escape): the game ends at once.
    /// With no partner of the escaper still in, the other team wins; with one still
    /// in, nobody wins (see [`Position::escape`]). The reason is
    /// [`EndReason::Escape`].
    ///
    /// ```
    /// use junqi::{EndReason, Game, Side};
    /// let mut game = Game::new("siguo", 1).unwrap();
    /// for (i, s) in [Side::South, Side::East, Side::North, Side::West].into_iter().enumerate() {
    ///     game.deploy_random(s, i as u64).unwrap();
    /// }
    /// game.escape(Side::East).unwrap();        // West, East's partner, is still in
    /// let result = game.result().unwrap();
    /// assert!(result.winners.is_empty());
    /// assert_eq!(result.reason, EndReason::Escape);
    /// ```
    pub fn escape(&mut self, side: Side) -> Result<Report, GameError> {
        let result = self.position.escape(side)?;
        self.entries.push(Entry::Escape(side));
        Ok(self.log(Report {
            public: vec![Event::Escaped { side }, Event::GameOver { result }],
            private: vec![],
        }))
    }

    /// Whether `side` may offer or accept a draw: only sides still in play decide one
    /// (see [`Position::may_decide_draw`]; docs/siguo.md). A referee that takes draw
    /// offers asks this for the side offering and for each side accepting, and drops an
    /// offer whose side goes out.
    ///
    /// ```
    /// let mut g = junqi::Game::new("siguo", 1).unwrap();
    /// for (i, side) in junqi::Side::ALL.into_iter().enumerate() {
    ///     g.deploy_random(side, i as u64).unwrap();
    /// }
    /// assert!(g.may_decide_draw(junqi::Side::East).is_ok());
    /// g.resign(junqi::Side::East).unwrap();
    /// assert!(g.may_decide_draw(junqi::Side::East).is_err());
    /// assert!(g.may_decide_draw(junqi::Side::West).is_ok());
    /// ```
    pub fn may_decide_draw(&self, side: Side) -> Result<(), GameError> {
        Ok(self.position.may_decide_draw(side)?)
    }

    /// The players agree to a draw.
    pub fn agree_draw(&mut self) -> Result<Report, GameError> {
        let result = self.position.agree_draw()?;
        self.entries.push(Entry::Draw);
        Ok(self.log(Report {
            public: vec![Event::DrawAgreed, Event::GameOver { result }],
            private: vec![],
        }))
    }

    fn log(&mut self, report: Report) -> Report {
        for &side in self.position.rules().sides() {
            let log = &mut self.logs[side as usize];
            log.extend_from_slice(&report.public);
            log.extend(report.private.iter().filter(|(s, _)| *s == side).map(|(_, e)| *e));
        }
        report
    }

    /// The number of entries in the game's record so far (the deal, deployments,
    /// actions, time-outs, resignations, escapes, an agreed draw). Every call that
    /// changes the game adds one, so it tells callers caching something about the game
    /// (legal actions, say) whether the game has changed since.
    pub fn record_len(&self) -> usize {
        self.entries.len()
    }

    /// A player's event log: the public events and its own private ones.
    pub fn events(&self, player: Side) -> &[Event] {
        &self.logs[player as usize]
    }

    /// One player's information set.
    pub fn view(&self, player: Side) -> View {
        View {
            player,
            army: self.position.army_of(player),
            phase: self.position.phase(),
            to_act: self.position.to_act(),
            ply: self.position.ply(),
            no_capture_plies: self.position.no_capture_plies(),
            deployed: self.position.deployed(),
            eliminated: self.position.eliminated(),
            timeouts: Side::ALL.map(|s| self.position.timeouts(s)),
            pieces: self.position.view_pieces(player),
            events: self.logs[player as usize].clone(),
            result: self.position.result(),
        }
    }

    /// The public view, what a spectator may see: every piece as every seat sees it
    /// (where it stands, its owner and arm where those are public), a kind only where
    /// every seat knows it, and only the events every seat was told. Built from the
    /// seats' views alone, so it holds nothing some seat was told privately. Its
    /// `player` is the rule set's first seat and its `army` is `None`.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// let mut game = Game::new("classic", 1).unwrap();
    /// game.deploy_random(Side::South, 1).unwrap();
    /// game.deploy_random(Side::North, 2).unwrap();
    /// let public = game.public_view();
    /// assert_eq!(public.pieces.len(), 50);
    /// assert!(public.pieces.iter().all(|p| p.kind.is_none()));
    /// ```
    pub fn public_view(&self) -> View {
        let sides = self.rules().sides();
        let views: Vec<View> = sides.iter().map(|&s| self.view(s)).collect();
        let first = &views[0];
        let pieces = first
            .pieces
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let agreed = views
                    .iter()
                    .all(|v| v.pieces.get(i).is_some_and(|q| q.point == p.point && q.kind == p.kind));
                SeenPiece {
                    kind: if agreed { p.kind } else { None },
                    ..*p
                }
            })
            .collect();
        let logs: Vec<&[Event]> = views.iter().map(|v| v.events.as_slice()).collect();
        View {
            player: sides[0],
            army: None,
            phase: first.phase,
            to_act: first.to_act,
            ply: first.ply,
            no_capture_plies: first.no_capture_plies,
            deployed: first.deployed,
            eliminated: first.eliminated,
            timeouts: first.timeouts,
            pieces,
            events: public_events(&logs),
            result: first.result,
        }
    }

    /// The full record: rule set, seed, setups and every action. Replays to the
    /// identical state with [`Game::from_record`].
    pub fn record(&self) -> Record {
        Record::of_game(self)
    }

    /// Replays a record.
    pub fn from_record(record: &Record) -> Result<Game, GameError> {
        record.replay()
    }

    /// Inference hook: a game from its parts (see [`Game::determinize`]).
    pub(crate) fn from_parts(position: Position, seed: u64, entries: Vec<Entry>, logs: [Vec<Event>; 4]) -> Game {
        Game { position, seed, entries, logs }
    }

    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The sides that have deployed.
    pub fn deployed(&self) -> SideSet {
        self.position.deployed()
    }
}

/// The events in every log. The referee tells a player privately only `Revealed`
/// events; every other event is public and stands in the same order in every log. So
/// the logs are cut at the public events, and between two of them a reveal is kept
/// when every log has it.
pub(crate) fn public_events(logs: &[&[Event]]) -> Vec<Event> {
    fn segments(log: &[Event]) -> Vec<(Vec<Event>, Option<Event>)> {
        let mut out = Vec::new();
        let mut run = Vec::new();
        for e in log {
            if matches!(e, Event::Revealed { .. }) {
                run.push(*e);
            } else {
                out.push((std::mem::take(&mut run), Some(*e)));
            }
        }
        out.push((run, None));
        out
    }
    let cut: Vec<_> = logs.iter().map(|l| segments(l)).collect();
    let mut events = Vec::new();
    for (i, (reveals, end)) in cut[0].iter().enumerate() {
        let mut others: Vec<Vec<Event>> = cut[1..]
            .iter()
            .map(|c| c.get(i).map(|s| s.0.clone()).unwrap_or_default())
            .collect();
        for r in reveals {
            let everywhere = others.iter().all(|o| o.contains(r));
            if everywhere {
                for o in &mut others {
                    let j = o.iter().position(|x| x == r).expect("present");
                    o.remove(j);
                }
                events.push(*r);
            }
        }
        events.extend(end);
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PieceKind, RevealCause, RuleSet};

    #[test]
    fn public_events_keep_what_every_log_has() {
        let rules = RuleSet::preset("classic").unwrap();
        let p = |n| rules.board().point(n).unwrap();
        let reveal = |point, kind| Event::Revealed {
            point: p(point),
            owner: Side::North,
            kind,
            cause: RevealCause::EngineerScout,
        };
        let moved = Event::Moved {
            side: Side::South,
            from: p("a2"),
            to: p("a3"),
        };
        let private = reveal("b7", PieceKind::Bomb);
        let public = reveal("c7", PieceKind::Mine);
        let south = [
            Event::Deployed { side: Side::South },
            private,
            public,
            moved,
            private,
        ];
        let north = [Event::Deployed { side: Side::South }, public, moved];
        assert_eq!(
            public_events(&[&south, &north]),
            vec![Event::Deployed { side: Side::South }, public, moved]
        );
        // The same reveal told privately to each of two players at once is known to both.
        assert_eq!(public_events(&[&[private], &[private]]), vec![private]);
        assert_eq!(
            public_events(&[&[private, private], &[private]]),
            vec![private]
        );
    }
}
