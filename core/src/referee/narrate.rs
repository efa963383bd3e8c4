//! Events in words from one player's side: "your 团长 on e6 was taken by a piece from
//! e7", "you took north's 营长 on d8", "north captured your flag". [`Event::describe`]
//! tells an event as anyone would (`north e7xe6: win (the defender left the board)`);
//! a [`Narrator`] tells it as the player it follows would hear it, naming its own pieces
//! — which it knows from its setup, or from the flips of 翻棋 — and the enemy pieces its
//! log has shown it, and nothing else: it reads only the player's own information (its
//! setup and its event log). The web page's log, the terminal game and the Python
//! package speak with it.
//!
//! ```
//! use junqi::{Game, Side};
//! use junqi::referee::narrate::Narrator;
//! let mut game = Game::new("classic", 1)?;
//! game.deploy_random(Side::South, 1)?;
//! game.deploy_random(Side::North, 2)?;
//! let first = game.legal_actions()[0];
//! game.play(first)?;
//! let words = Narrator::for_game(&game, Side::South).tell_all(game.events(Side::South));
//! assert!(words.last().unwrap().starts_with("you moved your "), "{words:?}");
//! let theirs = Narrator::for_game(&game, Side::North).tell_all(game.events(Side::North));
//! assert!(theirs.last().unwrap().starts_with("south moved "), "{theirs:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use super::{Event, Game};
use crate::board::Point;
use crate::combat::CombatOutcome;
use crate::piece::{PieceKind, Side, SideSet};
use crate::position::{EndReason, GameResult};
use crate::rules::RuleSet;
use crate::setup::Setup;

/// Tells a player's events one after the other from its side, keeping what its log
/// has told it of which piece stands where.
#[derive(Clone, Debug)]
pub struct Narrator {
    rules: Arc<RuleSet>,
    /// The player followed; `None` for a spectator (then every event is told as
    /// [`Event::describe`] tells it, with the kinds the public log showed).
    player: Option<Side>,
    /// The army the player commands (its seat, or in 翻棋 the army its first flip gave
    /// it, once given).
    army: Option<Side>,
    /// The pieces whose owner and kind the player knows, by point.
    known: HashMap<Point, (Side, PieceKind)>,
    /// The language it tells in.
    language: Language,
}

/// Whose a piece is, from the player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Whose {
    Mine,
    Partner,
    Other(Side),
}

impl Whose {
    /// `your`, `your partner's`, `north's`.
    fn en(self) -> String {
        match self {
            Whose::Mine => "your".into(),
            Whose::Partner => "your partner's".into(),
            Whose::Other(side) => format!("{side}'s"),
        }
    }

    /// `你`, `盟友`, `北方`.
    fn zh(self) -> String {
        match self {
            Whose::Mine => "你".into(),
            Whose::Partner => "盟友".into(),
            Whose::Other(side) => Narrator::side_zh(side).into(),
        }
    }
}

/// The language a [`Narrator`] tells in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Language {
    /// English (the default).
    #[default]
    English,
    /// Chinese (简体中文).
    Chinese,
}

impl Language {
    /// The language of a BCP 47 tag: Chinese for `zh…`, else English.
    pub fn from_tag(tag: &str) -> Language {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Language::Chinese
        } else {
            Language::English
        }
    }
}

impl Game {
    /// `player`'s event log in words from its side, in `language`: every event of
    /// [`Game::events`]`(player)` told by [`Narrator::for_game`]. What the Python
    /// package's `Game.narrate` and the C API's `junqi_game_narrate_json` give.
    ///
    /// ```
    /// use junqi::{Game, Side};
    /// use junqi::referee::narrate::Language;
    /// let mut game = Game::new("classic", 1)?;
    /// game.deploy_random(Side::South, 1)?;
    /// game.deploy_random(Side::North, 2)?;
    /// assert_eq!(game.narrate(Side::South, Language::English), ["you deployed", "north deployed"]);
    /// assert_eq!(game.narrate(Side::North, Language::Chinese), ["南方布好了阵", "你布好了阵"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn narrate(&self, player: Side, language: Language) -> Vec<String> {
        Narrator::for_game(self, player).in_language(language).tell_all(self.events(player))
    }
}

impl Narrator {
    /// A narrator for `player` (`None`: a spectator) of a game of `rules`, knowing its
    /// own setup if it has deployed (`setup`; refused setups are ignored).
    pub fn new(rules: Arc<RuleSet>, player: Option<Side>, setup: Option<&Setup>) -> Narrator {
        let mut known = HashMap::new();
        let army = player.filter(|_| !rules.deals());
        if let (Some(side), Some(setup)) = (army, setup) {
            if let Ok(d) = setup.validate(&rules, side) {
                known.extend(d.pieces().iter().map(|&(p, k)| (p, (side, k))));
            }
        }
        Narrator { rules, player, army, known, language: Language::English }
    }

    /// The same narrator, telling in `language`.
    pub fn in_language(mut self, language: Language) -> Narrator {
        self.language = language;
        self
    }

    /// A narrator for `player` of `game`, knowing what its player record holds (its
    /// own setup), before any event.
    pub fn for_game(game: &Game, player: Side) -> Narrator {
        let record = game.player_record(player);
        Narrator::new(game.rules().clone(), Some(player), record.setup.as_ref())
    }

    /// A spectator's narrator of `game`'s public events.
    pub fn spectator(game: &Game) -> Narrator {
        Narrator::new(game.rules().clone(), None, None)
    }

    /// Every event of `events` in words, in order.
    pub fn tell_all(&mut self, events: &[Event]) -> Vec<String> {
        events.iter().map(|e| self.tell(e)).collect()
    }

    /// One event in words from the player's side; then what it changed of who stands
    /// where is taken in.
    pub fn tell(&mut self, event: &Event) -> String {
        let text = match self.language {
            Language::English => self.words(event),
            Language::Chinese => self.words_zh(event),
        };
        self.take_in(event);
        text
    }

    fn mine(&self, owner: Side) -> bool {
        self.army == Some(owner)
    }

    fn team(&self) -> SideSet {
        match self.army {
            Some(a) => self.rules.team_of(a),
            None => SideSet::EMPTY,
        }
    }

    /// Whose a piece of army `owner` is, from the player's side.
    fn owner(&self, owner: Side) -> Whose {
        if self.mine(owner) {
            Whose::Mine
        } else if self.team().contains(owner) {
            Whose::Partner
        } else {
            Whose::Other(owner)
        }
    }

    /// Whose a piece moved by the player `actor` is (players and armies differ in 翻棋:
    /// events name the acting player, and a piece's army).
    fn actor(&self, actor: Side) -> Whose {
        if self.player == Some(actor) {
            Whose::Mine
        } else if self.player.is_some_and(|p| self.rules.team_of(p).contains(actor)) {
            Whose::Partner
        } else {
            Whose::Other(actor)
        }
    }

    /// `your`, `your partner's`, `north's`.
    fn whose(&self, owner: Side) -> String {
        self.owner(owner).en()
    }

    fn actors(&self, actor: Side) -> String {
        self.actor(actor).en()
    }

    /// Whether the player acted.
    fn acted(&self, actor: Side) -> bool {
        self.player == Some(actor)
    }

    /// The piece on `at`, moved by `actor` if the event says who: `your 团长`,
    /// `north's 营长`, `north's piece`, `the piece`.
    fn piece(&self, at: Point, actor: Option<Side>) -> String {
        match (self.known.get(&at), actor) {
            (Some(&(o, k)), _) => format!("{} {}", self.whose(o), name(k)),
            (None, Some(a)) => format!("{} piece", self.actors(a)),
            (None, None) => "the piece".into(),
        }
    }

    fn words(&self, event: &Event) -> String {
        let board = self.rules.board();
        let n = |p: Point| board.name_of(p).to_owned();
        let me = |side: Side| self.acted(side);
        match *event {
            Event::Deployed { side } if me(side) => "you deployed".into(),
            Event::Moved { side, from, to } if me(side) => {
                format!("you moved {} {}-{}", self.piece(from, Some(side)), n(from), n(to))
            }
            Event::Moved { side, from, to } => match self.known.get(&from) {
                Some(_) => format!("{side} moved {} {}-{}", self.piece(from, Some(side)), n(from), n(to)),
                None => format!("{side} moved {}-{}", n(from), n(to)),
            },
            Event::Attacked { side, from, to, outcome } | Event::Struck { side, from, to, outcome } => {
                let strike = matches!(event, Event::Struck { .. });
                self.combat(side, from, to, outcome, strike)
            }
            Event::ShotDown { side, from, at } if me(side) => {
                format!("your {} from {} was shot down at {}", self.plane(from), n(from), n(at))
            }
            Event::Flipped { side, point, owner, kind } => {
                let who = if me(side) { "you".to_owned() } else { side.to_string() };
                format!("{who} turned {} face up: {} {}", n(point), self.whose(owner), name(kind))
            }
            Event::ArmyAssigned { player, army } if Some(player) == self.player => {
                format!("you command the army labelled {army}")
            }
            Event::Revealed { point, owner, kind, cause } => {
                let whose = self.whose(owner);
                match cause {
                    crate::position::RevealCause::CommanderLost if self.mine(owner) => {
                        format!("your commander fell: your flag on {} is shown to everyone", n(point))
                    }
                    crate::position::RevealCause::CommanderLost => {
                        format!("{whose} commander fell: its flag is on {}", n(point))
                    }
                    _ => format!("the piece on {} is {whose} {} ({})", n(point), name(kind), cause.name()),
                }
            }
            Event::Resigned { side } if me(side) => "you resigned".into(),
            Event::Escaped { side } if me(side) => "you left the game".into(),
            Event::TimedOut { side, count } if me(side) => {
                format!("you ran out of time for a move: your turn passed ({})", count_words(count, &self.rules))
            }
            Event::TimedOut { side, count } => {
                format!("{side} ran out of time for a move: its turn passed ({})", count_words(count, &self.rules))
            }
            Event::Eliminated { side, reason } if me(side) => {
                format!("you are out: {}; your pieces leave the board", reason.words())
            }
            Event::Eliminated { side, reason } => {
                format!("{side} is out: {}; its pieces leave the board", reason.words())
            }
            Event::GameOver { result } => self.result(&result),
            _ => event.describe(board),
        }
    }

    fn plane(&self, at: Point) -> String {
        match self.known.get(&at) {
            Some(&(_, k)) => name(k).to_owned(),
            None => "plane".into(),
        }
    }

    /// A combat (an attack by moving, or a strike from where the striker stands) in
    /// words from the player's side.
    fn combat(&self, side: Side, from: Point, to: Point, outcome: CombatOutcome, strike: bool) -> String {
        let board = self.rules.board();
        let (f, t) = (board.name_of(from), board.name_of(to));
        let attacker = self.piece(from, Some(side));
        let defender_owner = self.known.get(&to).map(|&(o, _)| o);
        let defender = self.piece(to, None);
        let verb = if strike { "struck" } else { "attacked" };
        if self.acted(side) {
            return match outcome {
                CombatOutcome::Win => format!("you took {defender} on {t} with {attacker} from {f}"),
                CombatOutcome::Lose if strike => format!("{attacker} on {f} struck {t} and was removed"),
                CombatOutcome::Lose => format!("{attacker} on {f} attacked {t} and was taken"),
                CombatOutcome::Both => format!("{attacker} on {f} and {defender} on {t} were both removed"),
                CombatOutcome::Repel => format!("{attacker} on {f} {verb} {t}: repelled, nobody was removed"),
                CombatOutcome::Evade => format!("{defender} on {t} evaded {attacker} from {f}"),
                CombatOutcome::Illegal => format!("{attacker} on {f} {verb} {t}: no combat"),
            };
        }
        if defender_owner.is_some_and(|o| self.mine(o) || self.team().contains(o)) {
            let by = attacker.clone();
            return match outcome {
                CombatOutcome::Win => format!("{defender} on {t} was taken by {by} from {f}"),
                CombatOutcome::Lose => format!("{defender} on {t} beat {by} from {f}"),
                CombatOutcome::Both => format!("{defender} on {t} and {by} from {f} were both removed"),
                CombatOutcome::Repel => format!("{defender} on {t} repelled {by} from {f}"),
                CombatOutcome::Evade => format!("{defender} on {t} evaded {by} from {f}"),
                CombatOutcome::Illegal => format!("{by} from {f} {verb} {defender} on {t}: no combat"),
            };
        }
        let words = match outcome {
            CombatOutcome::Win => format!("took {defender} on {t}"),
            CombatOutcome::Lose => format!("lost against {defender} on {t}"),
            CombatOutcome::Both => format!("and {defender} on {t} were both removed"),
            CombatOutcome::Repel => format!("{verb} {t}: repelled"),
            CombatOutcome::Evade => format!("{verb} {t}: the piece there evaded"),
            CombatOutcome::Illegal => format!("{verb} {t}: no combat"),
        };
        format!("{attacker} from {f} {words}")
    }

    /// The end of the game from the player's side; for a spectator (or a seat whose
    /// army is not assigned yet), who won and why in words, without the reason's
    /// machine name that [`describe_result`](super::describe_result) adds for programs.
    fn result(&self, result: &GameResult) -> String {
        let Some(army) = self.army else {
            let names: Vec<&str> = result.winners.iter().map(Side::name).collect();
            return match result.reason {
                _ if !result.is_draw() => format!(
                    "{} win{}: {}",
                    names.join(" and "),
                    if names.len() == 1 { "s" } else { "" },
                    result.reason.words()
                ),
                EndReason::Agreement => "draw agreed".into(),
                r => format!("draw: {}", r.words()),
            };
        };
        let team = self.rules.team_of(army);
        let winners: Vec<String> = result.winners.iter().map(|s| s.to_string()).collect();
        let won = result.winners.iter().any(|s| team.contains(s));
        if result.is_draw() {
            return match result.reason {
                EndReason::Agreement => "draw agreed".into(),
                _ => format!("draw: {}", result.reason.words()),
            };
        }
        match (result.reason, won) {
            (EndReason::FlagCaptured, true) => "you win: you captured the flag".into(),
            (EndReason::FlagCaptured, false) => format!("you lose: {} captured your flag", winners.join(" and ")),
            (EndReason::Resignation, true) => "you win: the other side resigned".into(),
            (EndReason::Resignation, false) => "you lose: you resigned".into(),
            (_, true) => format!("you win: {}", result.reason.words()),
            (_, false) => format!("you lose: {} ({} win{})", result.reason.words(), winners.join(" and "), if winners.len() == 1 { "s" } else { "" }),
        }
    }

    /// A side's name in Chinese: `南方`.
    fn side_zh(side: Side) -> &'static str {
        match side {
            Side::South => "南方",
            Side::North => "北方",
            Side::East => "东方",
            Side::West => "西方",
        }
    }

    /// `你的`, `盟友的`, `北方的`.
    fn whose_zh(&self, owner: Side) -> String {
        self.owner(owner).zh() + "的"
    }

    fn actors_zh(&self, actor: Side) -> String {
        self.actor(actor).zh() + "的"
    }

    /// The piece on `at` in Chinese as its owner and what it is: (`你`, `司令`),
    /// (`北方`, `营长`), (`北方`, `棋子`), (`对方`, `棋子`), to read `你在 c6 的司令`.
    fn piece_zh(&self, at: Point, actor: Option<Side>) -> (String, String) {
        match (self.known.get(&at), actor) {
            (Some(&(o, k)), _) => (self.owner(o).zh(), name(k).into()),
            (None, Some(a)) => (self.actor(a).zh(), "棋子".into()),
            (None, None) => ("对方".into(), "棋子".into()),
        }
    }

    /// `你在 c6 的司令`.
    fn at_zh(&self, at: Point, actor: Option<Side>) -> String {
        let (who, what) = self.piece_zh(at, actor);
        format!("{who}在 {} 的{what}", self.rules.board().name_of(at))
    }

    /// Who acted, in Chinese: `你` or `北方`.
    fn who_zh(&self, side: Side) -> &'static str {
        if self.acted(side) {
            "你"
        } else {
            Self::side_zh(side)
        }
    }

    fn words_zh(&self, event: &Event) -> String {
        let board = self.rules.board();
        let n = |p: Point| board.name_of(p).to_owned();
        match *event {
            Event::Deployed { side } => format!("{}布好了阵", self.who_zh(side)),
            Event::Moved { side, from, to } if self.acted(side) || self.known.contains_key(&from) => {
                let (_, what) = self.piece_zh(from, Some(side));
                format!("{}把{what}从 {} 走到 {}", self.who_zh(side), n(from), n(to))
            }
            Event::Moved { side, from, to } => format!("{}从 {} 走到 {}", self.who_zh(side), n(from), n(to)),
            Event::Attacked { side, from, to, outcome } | Event::Struck { side, from, to, outcome } => {
                let strike = matches!(event, Event::Struck { .. });
                self.combat_zh(side, from, to, outcome, strike)
            }
            Event::ShotDown { side, from, at } => {
                format!("{}从 {} 起飞的{}在 {} 被击落", self.actors_zh(side), n(from), self.plane_zh(from), n(at))
            }
            Event::ReactionDue { player, point } => {
                format!("{}必须把 {} 的潜艇移开", self.who_zh(player), n(point))
            }
            Event::Flipped { side, point, owner, kind } => {
                format!("{}翻开了 {}：{}{}", self.who_zh(side), n(point), self.whose_zh(owner), name(kind))
            }
            Event::ArmyAssigned { player, army } => {
                format!("{}执掌标为{}的一方", self.who_zh(player), Self::side_zh(army))
            }
            Event::Revealed { point, owner, kind, cause } => match cause {
                crate::position::RevealCause::CommanderLost if self.mine(owner) => {
                    format!("你的司令阵亡：你在 {} 的军旗向所有人亮明", n(point))
                }
                crate::position::RevealCause::CommanderLost => {
                    format!("{}司令阵亡：其军旗在 {}", self.whose_zh(owner), n(point))
                }
                _ => format!("{} 的棋子是{}{}", n(point), self.whose_zh(owner), name(kind)),
            },
            Event::Resigned { side } => format!("{}认输了", self.who_zh(side)),
            Event::Escaped { side } => format!("{}离开了对局（逃跑）", self.who_zh(side)),
            Event::TimedOut { side, count } => {
                format!("{}超时，这一手作废（{}）", self.who_zh(side), count_words(count, &self.rules))
            }
            Event::Eliminated { side, reason } => {
                format!("{}出局：{}；其棋子离开棋盘", self.who_zh(side), reason_zh(reason))
            }
            Event::DrawAgreed => "双方同意和棋".into(),
            Event::GameOver { result } => self.result_zh(&result),
        }
    }

    fn plane_zh(&self, at: Point) -> String {
        match self.known.get(&at) {
            Some(&(_, k)) => name(k).to_owned(),
            None => "飞机".into(),
        }
    }

    fn combat_zh(&self, side: Side, from: Point, to: Point, outcome: CombatOutcome, strike: bool) -> String {
        let board = self.rules.board();
        let t = board.name_of(to);
        let attacker = self.at_zh(from, Some(side));
        let defender = self.at_zh(to, None);
        let verb = if strike { "打击" } else { "进攻" };
        let defender_owner = self.known.get(&to).map(|&(o, _)| o);
        let ours = defender_owner.is_some_and(|o| self.mine(o) || self.team().contains(o));
        match outcome {
            CombatOutcome::Win if ours => format!("{defender}被{attacker}吃掉了"),
            CombatOutcome::Win => format!("{attacker}吃掉了{defender}"),
            CombatOutcome::Lose if ours => format!("{defender}挡住了{attacker}，将其吃掉"),
            CombatOutcome::Lose => format!("{attacker}{verb} {t}，被吃掉了"),
            CombatOutcome::Both => format!("{attacker}和{defender}同归于尽"),
            CombatOutcome::Repel => format!("{attacker}{verb} {t}：被击退，双方都没有损失"),
            CombatOutcome::Evade => format!("{defender}躲开了{attacker}"),
            CombatOutcome::Illegal => format!("{attacker}{verb} {t}：没有交战"),
        }
    }

    fn result_zh(&self, result: &GameResult) -> String {
        let winners: Vec<&str> = result.winners.iter().map(Self::side_zh).collect();
        if result.is_draw() {
            return match result.reason {
                EndReason::Agreement => "和棋：双方同意".into(),
                r => format!("和棋：{}", reason_zh(r)),
            };
        }
        let Some(army) = self.army else {
            return format!("{}胜：{}", winners.join("、"), reason_zh(result.reason));
        };
        let won = result.winners.iter().any(|s| self.rules.team_of(army).contains(s));
        match (result.reason, won) {
            (EndReason::FlagCaptured, true) => "你赢了：你扛走了对方的军旗".into(),
            (EndReason::FlagCaptured, false) => format!("你输了：{}扛走了你的军旗", winners.join("、")),
            (EndReason::Resignation, true) => "你赢了：对方认输".into(),
            (EndReason::Resignation, false) => "你输了：你认输了".into(),
            (r, true) => format!("你赢了：{}", reason_zh(r)),
            (r, false) => format!("你输了：{}（{}胜）", reason_zh(r), winners.join("、")),
        }
    }

    /// Takes in what `event` changed of who stands where.
    fn take_in(&mut self, event: &Event) {
        match *event {
            Event::Moved { from, to, .. } => self.step(from, to),
            Event::Attacked { from, to, outcome, .. } => match outcome {
                CombatOutcome::Win => self.step(from, to),
                CombatOutcome::Lose => {
                    self.known.remove(&from);
                }
                CombatOutcome::Both => {
                    self.known.remove(&from);
                    self.known.remove(&to);
                }
                CombatOutcome::Repel | CombatOutcome::Evade | CombatOutcome::Illegal => {}
            },
            Event::Struck { from, to, outcome, .. } => match outcome {
                CombatOutcome::Win => {
                    self.known.remove(&to);
                }
                CombatOutcome::Lose => {
                    self.known.remove(&from);
                }
                CombatOutcome::Both => {
                    self.known.remove(&from);
                    self.known.remove(&to);
                }
                _ => {}
            },
            Event::ShotDown { from, .. } => {
                self.known.remove(&from);
            }
            Event::Flipped { point, owner, kind, .. } | Event::Revealed { point, owner, kind, .. } => {
                self.known.insert(point, (owner, kind));
            }
            Event::ArmyAssigned { player, army } if Some(player) == self.player => self.army = Some(army),
            Event::Eliminated { side, .. } => self.known.retain(|_, (o, _)| *o != side),
            _ => {}
        }
    }

    /// A piece went from `from` to `to`: what was known of it goes along, and what was
    /// known of `to` is gone.
    fn step(&mut self, from: Point, to: Point) {
        match self.known.remove(&from) {
            Some(p) => {
                self.known.insert(to, p);
            }
            None => {
                self.known.remove(&to);
            }
        }
    }
}

/// Why a game ended, in Chinese.
fn reason_zh(reason: EndReason) -> &'static str {
    match reason {
        EndReason::FlagCaptured => "军旗被扛",
        EndReason::NoLegalMove => "没有可以走的棋子了",
        EndReason::NoCaptureLimit => "连续太多步没有吃子",
        EndReason::Resignation => "认输",
        EndReason::Agreement => "双方同意和棋",
        EndReason::Timeouts => "超时次数太多",
        EndReason::NoMovablePieces => "没有能动的棋子了",
        EndReason::CommanderCaptured => "司令被吃",
        EndReason::MutualElimination => "双方同时失去最后能动的棋子",
        EndReason::Escape => "有玩家离开了对局",
    }
}

/// A kind's name in words: its Chinese name (the original).
fn name(kind: PieceKind) -> &'static str {
    kind.chinese_names().first().copied().unwrap_or_else(|| kind.id())
}

fn count_words(count: u8, rules: &RuleSet) -> String {
    match rules.options().max_timeouts {
        Some(max) => format!("{count} of {max}"),
        None => format!("{count}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;

    /// A classic game in which South's first action is an attack or a move, told to
    /// both players: each names its own pieces only.
    #[test]
    fn each_player_hears_its_own_pieces_named_and_nothing_else() {
        for seed in 0..40u64 {
            let mut game = Game::new("classic", seed).unwrap();
            game.deploy_random(Side::South, seed).unwrap();
            game.deploy_random(Side::North, seed + 100).unwrap();
            let mut rng = crate::Rng::new(seed);
            for _ in 0..60 {
                if game.result().is_some() {
                    break;
                }
                let legal = game.legal_actions();
                game.play(legal[rng.below(legal.len())]).unwrap();
            }
            for side in [Side::South, Side::North] {
                let other = if side == Side::South { Side::North } else { Side::South };
                let words = Narrator::for_game(&game, side).tell_all(game.events(side));
                let setup = game.player_record(other).setup.unwrap().validate(game.rules(), other).unwrap();
                // No word names an enemy kind the player was not shown: every enemy kind
                // named follows a reveal of it in the player's log.
                let shown: Vec<PieceKind> = game
                    .events(side)
                    .iter()
                    .filter_map(|e| match e {
                        Event::Revealed { owner, kind, .. } if *owner == other => Some(*kind),
                        _ => None,
                    })
                    .collect();
                for (w, e) in words.iter().zip(game.events(side)) {
                    if let Event::Moved { side: s, .. } = e {
                        if *s == side {
                            assert!(w.starts_with("you moved your "), "{w}");
                        }
                    }
                    for &(_, k) in setup.pieces() {
                        let named = format!("{other}'s {}", name(k));
                        if w.contains(&named) {
                            assert!(shown.contains(&k), "{side} heard {named:?} unshown: {w}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_combat_is_told_from_each_side() {
        let rules = RuleSet::preset("classic").unwrap();
        let board = rules.board();
        let p = |n: &str| board.point(n).unwrap();
        let setup = Setup::from_json(
            r#"{"a1": "mine", "b1": "flag", "c1": "mine", "d1": "company_commander", "e1": "mine",
                "a2": "engineer", "b2": "platoon_leader", "c2": "bomb", "d2": "连长", "e2": "排长",
                "a3": "battalion_commander", "c3": "regiment_commander", "e3": "battalion_commander",
                "a4": "brigade_commander", "b4": "bomb", "d4": "regiment_commander", "e4": "旅长",
                "a5": "division_commander", "c5": "army_commander", "e5": "division_commander",
                "a6": "engineer", "b6": "company_commander", "c6": "commander", "d6": "platoon_leader",
                "e6": "工兵"}"#,
        )
        .unwrap();
        let mut south = Narrator::new(rules.clone(), Some(Side::South), Some(&setup));
        let mut north = Narrator::new(rules.clone(), Some(Side::North), None);
        let attack = Event::Attacked { side: Side::North, from: p("c7"), to: p("c6"), outcome: CombatOutcome::Win };
        assert_eq!(south.tell(&attack), "your 司令 on c6 was taken by north's piece from c7");
        assert_eq!(north.tell(&attack), "you took the piece on c6 with your piece from c7");
        let counter = Event::Attacked { side: Side::South, from: p("b6"), to: p("c6"), outcome: CombatOutcome::Both };
        assert_eq!(south.tell(&counter), "your 连长 on b6 and the piece on c6 were both removed");
        let end = Event::GameOver { result: GameResult { winners: SideSet::single(Side::North), reason: EndReason::FlagCaptured } };
        assert_eq!(south.tell(&end), "you lose: north captured your flag");
        assert_eq!(north.tell(&end), "you win: you captured the flag");
        assert_eq!(Narrator::new(rules.clone(), None, None).tell(&end), "north wins: the flag was captured");
        let drawn = GameResult { winners: SideSet::EMPTY, reason: EndReason::NoCaptureLimit };
        assert_eq!(Narrator::new(rules.clone(), None, None).tell(&Event::GameOver { result: drawn }), "draw: too many moves in a row without a capture");
        // The same in Chinese.
        let mut south = Narrator::new(rules.clone(), Some(Side::South), Some(&setup)).in_language(Language::Chinese);
        let mut north = Narrator::new(rules, Some(Side::North), None).in_language(Language::from_tag("zh-CN"));
        assert_eq!(south.tell(&attack), "你在 c6 的司令被北方在 c7 的棋子吃掉了");
        assert_eq!(north.tell(&attack), "你在 c7 的棋子吃掉了对方在 c6 的棋子");
        assert_eq!(south.tell(&end), "你输了：北方扛走了你的军旗");
        assert_eq!(north.tell(&end), "你赢了：你扛走了对方的军旗");
    }
}
