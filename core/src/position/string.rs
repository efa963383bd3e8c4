//! Position strings: one line of text for a whole position (the referee's, every
//! identity told) or for what one player sees of it (a *view string*: every identity
//! that player has not seen written as unknown). The grammar is in
//! `docs/position-strings.md`:
//!
//! ```text
//! <rules> <pieces> <phase> <turn> <ply> <no_capture> [<key>=<value> ...]
//! ```
//!
//! `pieces` is `-` or a comma-separated list of `<point>=<owner><kind><marks>` in board
//! point order; `owner` is `S`, `E`, `N`, `W` (or `?` for a face-down piece in a view),
//! `kind` a two-letter code ([`PieceKind::short`]) or `??`/`?N`/`?A` for an unknown
//! land/naval/air piece; marks are `!` (face down, 翻棋), `*` (the piece has moved: no
//! immobile kind; public, so in view strings too) and `+XY`/`=XY` (players who know
//! the piece beyond the default ones, or all of them, the default ones included). Keys:
//! `deployed`, `out`, `timeouts`, `armies`, `obliged`, `react`, `result`, `view`.
//!
//! A position string holds no history beyond which pieces have moved (the `*` mark,
//! [`Position::has_moved`]): a game started from one has no prior log.

use std::fmt::Write as _;
use std::sync::Arc;

use super::{Eliminations, GameResult, Phase, Position, Slot, NO_PIECE, OFF_BOARD};
use crate::board::Point;
use crate::piece::{Arm, PieceKind, Side, SideSet};
use crate::position::EndReason;
use crate::rules::RuleSet;
use crate::setup::Setup;

/// Why a position string was refused. Every message names the offending text.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionStringError {
    /// Nothing but white space.
    #[error("an empty position string")]
    Empty,
    /// Over [`MAX_POSITION_STRING`] bytes.
    #[error("a position string of {0} bytes is over the limit of {MAX_POSITION_STRING} bytes")]
    TooLong(usize),
    /// Fewer than the six fixed fields.
    #[error("the position string ends before its {0} field")]
    Missing(&'static str),
    /// The rule set could not be loaded (or is not the one given).
    #[error("rule set: {0}")]
    Rules(String),
    /// A piece entry that does not read as `<point>=<owner><kind><marks>`.
    #[error("{0:?} is not a piece (expected <point>=<owner><kind>, e.g. a1=SFL)")]
    Piece(String),
    /// A point name the board does not have.
    #[error("unknown point {0:?}")]
    Point(String),
    /// Two entries for one point, or entries out of board point order.
    #[error("point {0:?} is given twice or out of board point order")]
    PointOrder(String),
    /// A side letter that is not `S`, `E`, `N`, `W`, or a side that does not play.
    #[error("{0:?} is not a side of this rule set")]
    Side(String),
    /// A kind code that is not one of the rule set's kinds.
    #[error("{0:?} is not a piece kind of this rule set")]
    Kind(String),
    /// More pieces of a kind than the army holds.
    #[error("{0}")]
    TooMany(String),
    /// A phase that is not `deploy`, `move`, `reaction` or `over`.
    #[error("{0:?} is not a phase (deploy, move, reaction, over)")]
    Phase(String),
    /// A counter that is not a number.
    #[error("the {0} field {1:?} is not a number")]
    Number(&'static str, String),
    /// An unknown, repeated or malformed `key=value` field.
    #[error("field {0:?} is unknown, repeated, out of order or malformed")]
    Key(String),
    /// Fields that contradict each other or the rules.
    #[error("inconsistent position: {0}")]
    Inconsistent(String),
}

impl std::fmt::Debug for PositionStringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Longest position string read (bytes): far above any board's (a full 4-player board
/// is under 2 kB).
pub const MAX_POSITION_STRING: usize = 16 * 1024;

type E = PositionStringError;

const KEYS: [&str; 8] = ["deployed", "out", "timeouts", "armies", "obliged", "react", "result", "view"];

fn letter(s: Side) -> char {
    ['S', 'E', 'N', 'W'][s as usize]
}

fn side_of(c: char) -> Option<Side> {
    match c {
        'S' => Some(Side::South),
        'E' => Some(Side::East),
        'N' => Some(Side::North),
        'W' => Some(Side::West),
        _ => None,
    }
}

fn letters(set: SideSet) -> String {
    Side::ALL.iter().filter(|s| set.contains(**s)).map(|s| letter(*s)).collect()
}

fn unknown_code(arm: Arm) -> &'static str {
    match arm {
        Arm::Army => "??",
        Arm::Navy => "?N",
        Arm::Air => "?A",
    }
}

/// Rule set names are written with every byte outside `[A-Za-z0-9._-]` as `%XX`.
fn escape(name: &str) -> String {
    let mut out = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn unescape(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Position {
    /// The players who know a piece without being told: nobody for a face-down piece,
    /// everybody for a face-up piece of a dealt game (翻棋 flips are public) or once a
    /// 明棋 game has started, else its owner's team (or the owner alone).
    fn default_knowers(&self, p: Point, owner: Side) -> SideSet {
        if self.hidden.contains(p) {
            return SideSet::EMPTY;
        }
        let opts = self.rules.options();
        if self.rules.deals() || (opts.open_after_deploy && self.phase != Phase::Deploy) {
            return self.rules.sides().iter().copied().collect();
        }
        if opts.allies_see_each_other {
            self.rules.team_of(owner)
        } else {
            SideSet::single(owner)
        }
    }

    fn knowers(&self, id: u8) -> SideSet {
        self.rules.sides().iter().copied().filter(|s| self.known[*s as usize] >> id & 1 == 1).collect()
    }

    /// The position as one line of text, every identity told (the referee's knowledge);
    /// [`Position::from_position_string`] reads it back to a position that prints the
    /// same and plays the same.
    ///
    /// ```
    /// use junqi::{Position, RuleSet};
    /// let pos = Position::random_start(RuleSet::preset("classic").unwrap(), 1);
    /// let text = pos.position_string();
    /// assert!(text.starts_with("classic "));
    /// let back = Position::from_position_string(&text).unwrap();
    /// assert_eq!(back.position_string(), text);
    /// assert_eq!(back.legal_actions(), pos.legal_actions());
    /// ```
    pub fn position_string(&self) -> String {
        self.write_string(None)
    }

    /// What `player` sees, as one line of text: like [`Position::position_string`], but
    /// every piece whose identity `player` does not know is written as unknown (`??`,
    /// or `?N`/`?A` for naval and air pieces, whose arm is public), a face-down piece's
    /// owner as `?`, and nobody's knowledge is told. Ends with `view=<player>`.
    ///
    /// ```
    /// use junqi::{Position, RuleSet, Side};
    /// let pos = Position::random_start(RuleSet::preset("classic").unwrap(), 1);
    /// let view = pos.view_string(Side::South);
    /// assert!(view.contains("=N??") && !view.contains("=NFL") && view.ends_with("view=S"));
    /// ```
    pub fn view_string(&self, player: Side) -> String {
        self.write_string(Some(player))
    }

    fn write_string(&self, view: Option<Side>) -> String {
        let rules = &self.rules;
        let board = rules.board();
        let mut out = escape(rules.name());
        out.push(' ');
        let mut first = true;
        for p in board.points() {
            let id = self.cells[p.index()];
            if id == NO_PIECE {
                continue;
            }
            let s = self.slots[id as usize];
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(board.name_of(p));
            out.push('=');
            let down = self.hidden.contains(p);
            let moved = self.moved.contains(p);
            match view {
                Some(v) => {
                    out.push(if down { '?' } else { letter(s.owner) });
                    if self.known[v as usize] >> id & 1 == 1 {
                        out.push_str(s.kind.short());
                    } else {
                        out.push_str(unknown_code(s.kind.arm()));
                    }
                    if moved {
                        out.push('*');
                    }
                }
                None => {
                    out.push(letter(s.owner));
                    out.push_str(s.kind.short());
                    if down {
                        out.push('!');
                    }
                    if moved {
                        out.push('*');
                    }
                    let known = self.knowers(id);
                    let default = self.default_knowers(p, s.owner);
                    if known != default {
                        if !default.iter().all(|k| known.contains(k)) {
                            let _ = write!(out, "={}", letters(known));
                        } else {
                            let extra: SideSet = known.iter().filter(|k| !default.contains(*k)).collect();
                            let _ = write!(out, "+{}", letters(extra));
                        }
                    }
                }
            }
        }
        if first {
            out.push('-');
        }
        let sides = rules.sides();
        let _ = write!(
            out,
            " {} {} {} {}",
            self.phase.name(),
            letter(sides[(self.turn as usize).min(sides.len() - 1)]),
            self.ply,
            self.no_capture
        );
        if self.phase == Phase::Deploy {
            let _ = write!(out, " deployed={}", or_dash(letters(self.deployed)));
        }
        if !self.out.is_empty() {
            let _ = write!(out, " out={}", letters(self.out));
        }
        let t: Vec<String> = sides
            .iter()
            .filter(|s| self.timeouts[**s as usize] > 0)
            .map(|s| format!("{}{}", letter(*s), self.timeouts[*s as usize]))
            .collect();
        if !t.is_empty() {
            let _ = write!(out, " timeouts={}", t.join(","));
        }
        if rules.deals() {
            let a: Vec<String> = sides
                .iter()
                .filter_map(|s| self.armies[*s as usize].map(|a| format!("{}{}", letter(*s), letter(a))))
                .collect();
            let _ = write!(out, " armies={}", or_dash(a.join(",")));
        }
        // An obliged plane that has since been shot down obliges nothing (see
        // `Position::obligation`): it has no point to name.
        let o: Vec<&str> = sides
            .iter()
            .map(|s| self.obliged[*s as usize])
            .filter(|id| *id != NO_PIECE && self.slots[*id as usize].at != OFF_BOARD)
            .map(|id| board.name_of(Point(self.slots[id as usize].at)))
            .collect();
        if !o.is_empty() {
            let _ = write!(out, " obliged={}", o.join(","));
        }
        if self.phase == Phase::Reaction {
            let at = Point(self.slots[self.react as usize].at);
            let _ = write!(out, " react={}{}", board.name_of(at), if self.react_removed { "+" } else { "" });
        }
        if let Some(r) = self.result {
            let _ = write!(out, " result={}:{}", or_dash(letters(r.winners)), r.reason.name());
        }
        if let Some(v) = view {
            let _ = write!(out, " view={}", letter(v));
        }
        out
    }

    /// Reads a position string (or a view string) of a built-in rule set (a preset).
    ///
    /// A view string's unknown pieces are given *stand-in* identities — the first kinds
    /// of their army (of their arm) not accounted for by the pieces shown — so that the
    /// position plays as the viewer may play: the viewer's legal actions do not depend
    /// on what it has not seen. Nothing about the hidden truth is in the result.
    ///
    /// Fails with a [`PositionStringError`] naming the offending text.
    pub fn from_position_string(text: &str) -> Result<Position, PositionStringError> {
        if text.len() > MAX_POSITION_STRING {
            return Err(E::TooLong(text.len()));
        }
        let name = text.split_whitespace().next().ok_or(E::Empty)?;
        let name = unescape(name).ok_or_else(|| E::Rules(format!("{name:?} is not a rule set name")))?;
        let rules = RuleSet::preset(&name).map_err(|e| E::Rules(e.to_string()))?;
        Position::from_position_string_with(rules, text)
    }

    /// Reads a position string of the given rule set (for custom rule sets); the
    /// string's rule set field must be its name.
    pub fn from_position_string_with(rules: Arc<RuleSet>, text: &str) -> Result<Position, PositionStringError> {
        Ok(parse(rules, text)?.0)
    }

    /// Like [`Position::from_position_string_with`], also telling whose view the string
    /// was (`None` for a full position string).
    pub fn from_view_string_with(
        rules: Arc<RuleSet>,
        text: &str,
    ) -> Result<(Position, Option<Side>), PositionStringError> {
        parse(rules, text)
    }
}

fn or_dash(s: String) -> String {
    if s.is_empty() {
        "-".to_owned()
    } else {
        s
    }
}

/// One piece entry as read.
struct Entry {
    point: Point,
    owner: Option<Side>,
    kind: Result<PieceKind, Arm>,
    down: bool,
    moved: bool,
    knowers: Option<(bool, SideSet)>,
}

fn parse_sides(rules: &RuleSet, text: &str) -> Result<SideSet, E> {
    let mut set = SideSet::EMPTY;
    if text == "-" {
        return Ok(set);
    }
    for c in text.chars() {
        let s = side_of(c).filter(|s| rules.sides().contains(s)).ok_or_else(|| E::Side(c.to_string()))?;
        if set.contains(s) {
            return Err(E::Side(text.to_owned()));
        }
        set = set.with(s);
    }
    Ok(set)
}

fn parse_side(rules: &RuleSet, text: &str) -> Result<Side, E> {
    let mut c = text.chars();
    match (c.next().and_then(side_of), c.next()) {
        (Some(s), None) if rules.sides().contains(&s) => Ok(s),
        _ => Err(E::Side(text.to_owned())),
    }
}

fn parse_piece(rules: &RuleSet, text: &str, view: bool) -> Result<Entry, E> {
    let board = rules.board();
    let bad = || E::Piece(text.to_owned());
    let (name, rest) = text.split_once('=').ok_or_else(bad)?;
    let point = board.point(name).ok_or_else(|| E::Point(name.to_owned()))?;
    let owner_c = rest.chars().next().ok_or_else(bad)?;
    let owner = if owner_c == '?' {
        None
    } else {
        Some(side_of(owner_c).filter(|s| rules.sides().contains(s)).ok_or_else(|| E::Side(owner_c.to_string()))?)
    };
    let code = rest.get(1..3).ok_or_else(bad)?;
    let kind = match code {
        "??" => Err(Arm::Army),
        "?N" => Err(Arm::Navy),
        "?A" => Err(Arm::Air),
        _ => Ok(PieceKind::ALL
            .into_iter()
            .find(|k| k.short() == code && rules.has_kind(*k))
            .ok_or_else(|| E::Kind(code.to_owned()))?),
    };
    let mut marks = &rest[3..];
    let mut down = false;
    if let Some(m) = marks.strip_prefix('!') {
        down = true;
        marks = m;
    }
    let mut moved = false;
    if let Some(m) = marks.strip_prefix('*') {
        moved = true;
        marks = m;
    }
    let knowers = if marks.is_empty() {
        None
    } else {
        let exact = match marks.as_bytes()[0] {
            b'+' => false,
            b'=' => true,
            _ => return Err(bad()),
        };
        Some((exact, parse_sides(rules, &marks[1..]).map_err(|_| bad())?))
    };
    // A view writes no marks; a full string knows every identity and owner.
    if (view && (down || knowers.is_some())) || (!view && (owner.is_none() || kind.is_err())) {
        return Err(bad());
    }
    if (owner.is_none() || down) && !rules.deals() {
        return Err(E::Inconsistent(format!("{name} is face down but {} deals nothing", rules.name())));
    }
    // A face-down piece is usually known to nobody, but a rule can tell it while it
    // stays face down: in a dealt 四国 game the flag of a side whose commander fell is
    // shown to everyone, turned up or not (the fuzzer's `deal` target found such a
    // position, which the writer printed and this reader refused).
    // Face-down pieces never move; immobile kinds never do.
    if moved && (down || owner.is_none()) {
        return Err(E::Inconsistent(format!("{name} is face down: it has not moved")));
    }
    if let (true, Ok(k)) = (moved, kind) {
        if rules.mobility(k) == crate::rules::Mobility::Immobile {
            return Err(E::Inconsistent(format!("{name} has moved: a {} never moves", k.id())));
        }
    }
    Ok(Entry {
        point,
        owner,
        kind,
        down: down || owner.is_none(),
        moved,
        knowers,
    })
}

fn number(field: &'static str, text: &str) -> Result<u32, E> {
    if text.is_empty() || text.len() > 9 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(E::Number(field, text.to_owned()));
    }
    text.parse().map_err(|_| E::Number(field, text.to_owned()))
}

fn parse(rules: Arc<RuleSet>, text: &str) -> Result<(Position, Option<Side>), E> {
    if text.len() > MAX_POSITION_STRING {
        return Err(E::TooLong(text.len()));
    }
    let mut f = text.split_whitespace();
    let name = f.next().ok_or(E::Empty)?;
    if unescape(name).as_deref() != Some(rules.name()) {
        return Err(E::Rules(format!("the string is of {name:?}, not of {:?}", rules.name())));
    }
    let pieces = f.next().ok_or(E::Missing("pieces"))?;
    let phase_t = f.next().ok_or(E::Missing("phase"))?;
    let turn_t = f.next().ok_or(E::Missing("turn"))?;
    let ply = number("ply", f.next().ok_or(E::Missing("ply"))?)?;
    let quiet = number("quiet", f.next().ok_or(E::Missing("quiet"))?)?;
    let phase = Phase::ALL
        .into_iter()
        .find(|p| p.name() == phase_t)
        .ok_or_else(|| E::Phase(phase_t.to_owned()))?;
    let turn = parse_side(&rules, turn_t)?;
    // Keys, in their fixed order, each at most once.
    let mut keys: [Option<&str>; 8] = [None; 8];
    let mut last = None;
    for kv in f {
        let (k, v) = kv.split_once('=').ok_or_else(|| E::Key(kv.to_owned()))?;
        let i = KEYS.iter().position(|x| *x == k).ok_or_else(|| E::Key(kv.to_owned()))?;
        if last.is_some_and(|l| l >= i) || v.is_empty() {
            return Err(E::Key(kv.to_owned()));
        }
        last = Some(i);
        keys[i] = Some(v);
    }
    let [deployed_t, out_t, timeouts_t, armies_t, obliged_t, react_t, result_t, view_t] = keys;
    let view = view_t.map(|v| parse_side(&rules, v)).transpose()?;
    let board = rules.board().clone();
    let mut entries = Vec::new();
    if pieces != "-" {
        for t in pieces.split(',') {
            let e = parse_piece(&rules, t, view.is_some())?;
            if entries.last().is_some_and(|l: &Entry| l.point >= e.point) {
                return Err(E::PointOrder(board.name_of(e.point).to_owned()));
            }
            entries.push(e);
        }
    }
    let sides = rules.sides();
    let inconsistent = |m: String| E::Inconsistent(m);
    // Stand-ins for what a view does not tell; counts checked for what it tells.
    let mut left: Vec<Vec<(PieceKind, u8)>> = sides.iter().map(|_| rules.army().collect()).collect();
    let side_idx = |s: Side| sides.iter().position(|x| *x == s).expect("a checked side plays");
    for e in &entries {
        if let (Some(o), Ok(k)) = (e.owner, e.kind) {
            let slot = left[side_idx(o)].iter_mut().find(|(x, _)| *x == k).expect("a rule set kind");
            if slot.1 == 0 {
                return Err(E::TooMany(format!("more {} of {o} than its army holds", k.id())));
            }
            slot.1 -= 1;
        }
    }
    // Stand-ins: first for the pieces that have moved (of a mobile kind, as they must
    // be), then for the others (mobile kinds first: a stand-in should not end the game).
    let mut placed: Vec<Option<(Point, Side, PieceKind)>> = vec![None; entries.len()];
    for pass_moved in [true, false] {
        for (j, e) in entries.iter().enumerate() {
            if e.moved != pass_moved {
                continue;
            }
            let (owner, kind) = match (e.owner, e.kind) {
                (Some(o), Ok(k)) => (o, k),
                (owner, Err(arm)) => {
                    let mobile = |k: &PieceKind| rules.mobility(*k) != crate::rules::Mobility::Immobile;
                    let pick = sides
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| owner.is_none_or(|o| o == **s))
                        .find_map(|(i, s)| {
                            let fits = |k: &PieceKind, n: &u8| *n > 0 && k.arm() == arm;
                            (left[i].iter().position(|(k, n)| fits(k, n) && mobile(k)))
                                .or_else(|| (!e.moved).then(|| left[i].iter().position(|(k, n)| fits(k, n))).flatten())
                                .map(|j| (i, j, *s))
                        })
                        .ok_or_else(|| {
                            let name = board.name_of(e.point);
                            if e.moved {
                                inconsistent(format!("{name} has moved but its army has no mobile piece left for it"))
                            } else {
                                inconsistent(format!("{name} holds more pieces than the armies have"))
                            }
                        })?;
                    left[pick.0][pick.1].1 -= 1;
                    (pick.2, left[pick.0][pick.1].0)
                }
                (None, Ok(_)) => return Err(E::Piece(board.name_of(e.point).to_owned())),
            };
            placed[j] = Some((e.point, owner, kind));
        }
    }
    let placed: Vec<(Point, Side, PieceKind)> = placed.into_iter().map(|p| p.expect("every entry is placed")).collect();
    let mut pos = Position::new(rules.clone());
    pos.ply = ply;
    pos.no_capture = quiet;
    pos.turn = side_idx(turn) as u8;
    if let Some(t) = out_t {
        pos.out = parse_sides(&rules, t)?;
    }
    if let Some(t) = timeouts_t {
        for item in t.split(',') {
            let s = parse_side(&rules, item.get(..1).ok_or_else(|| E::Key(t.to_owned()))?)?;
            let n = number("timeouts", &item[1..])?;
            if n > u8::MAX as u32 || pos.timeouts[s as usize] != 0 || n == 0 {
                return Err(E::Key(format!("timeouts={t}")));
            }
            pos.timeouts[s as usize] = n as u8;
        }
    }
    if phase == Phase::Deploy {
        // A deployment phase is built through the deployments themselves.
        if rules.deals() {
            return Err(inconsistent(format!("{} deals: it has no deployment phase", rules.name())));
        }
        let deployed = parse_sides(&rules, deployed_t.ok_or(E::Missing("deployed"))?)?;
        if armies_t.or(obliged_t).or(react_t).or(result_t).is_some() || ply != 0 || quiet != 0 || turn != sides[0] {
            return Err(inconsistent("the deployment phase has no counters, obligations or result".into()));
        }
        if entries.iter().any(|e| e.knowers.is_some()) {
            return Err(inconsistent("pieces are known only to their own team during deployment".into()));
        }
        if let Some(e) = entries.iter().find(|e| e.moved) {
            return Err(inconsistent(format!("{} has moved during the deployment phase", board.name_of(e.point))));
        }
        for &s in sides {
            let mine: Vec<_> = placed.iter().filter(|x| x.1 == s).collect();
            if !deployed.contains(s) {
                if !mine.is_empty() {
                    return Err(inconsistent(format!("{s} has pieces but has not deployed")));
                }
                continue;
            }
            if pos.out.contains(s) {
                return Err(inconsistent(format!("{s} is out but deployed")));
            }
            let d = if entries.iter().any(|e| e.owner == Some(s) && e.kind.is_err()) {
                // A view: a stand-in deployment on the same points.
                let d = crate::setup::Deployment::random(&rules, s, 0);
                let mut a: Vec<Point> = d.pieces().iter().map(|x| x.0).collect();
                let mut b: Vec<Point> = mine.iter().map(|x| x.0).collect();
                a.sort();
                b.sort();
                if a != b {
                    return Err(inconsistent(format!("{s}'s pieces do not stand on a deployment's points")));
                }
                d
            } else {
                let mut setup = Setup::new();
                for (p, _, k) in &mine {
                    setup.place(board.name_of(*p), k.id());
                }
                setup.validate(&rules, s).map_err(|e| inconsistent(format!("{s}'s deployment: {e}")))?
            };
            pos.deploy(&d).map_err(|e| inconsistent(e.to_string()))?;
        }
        if pos.phase != Phase::Deploy {
            return Err(inconsistent("every side has deployed: the game is in the move phase".into()));
        }
        return Ok((pos, view));
    }
    if deployed_t.is_some() {
        return Err(E::Key(format!("deployed={}", deployed_t.unwrap_or_default())));
    }
    pos.phase = phase;
    pos.deployed = sides.iter().copied().collect();
    if rules.deals() {
        pos.armies = [None; 4];
        let t = armies_t.ok_or(E::Missing("armies"))?;
        if t != "-" {
            for item in t.split(',') {
                let mut c = item.chars();
                let (Some(pl), Some(ar), None) = (c.next(), c.next(), c.next()) else {
                    return Err(E::Key(format!("armies={t}")));
                };
                let pl = parse_side(&rules, &pl.to_string())?;
                let ar = parse_side(&rules, &ar.to_string())?;
                if pos.armies[pl as usize].is_some() || pos.armies.contains(&Some(ar)) {
                    return Err(E::Key(format!("armies={t}")));
                }
                pos.armies[pl as usize] = Some(ar);
            }
        }
    } else if armies_t.is_some() {
        return Err(inconsistent(format!("{} deals nothing: every player commands its own army", rules.name())));
    }
    // Pieces: ids by side in turn order, each side's pieces in point order.
    let mut next = [0usize; 4];
    let mut stand_ins = Vec::new();
    for (e, &(p, owner, kind)) in entries.iter().zip(&placed) {
        let i = side_idx(owner);
        let id = i * rules.army_size() + next[i];
        next[i] += 1;
        if e.kind.is_err() {
            stand_ins.push(id);
        }
        pos.slots[id] = Slot { kind, owner, at: p.0 };
        pos.cells[p.index()] = id as u8;
        pos.occ[owner as usize].insert(p);
        pos.occupied.insert(p);
        pos.arm_occ[kind.arm() as usize].insert(p);
        if e.down {
            pos.hidden.insert(p);
        }
        if e.moved {
            pos.moved.insert(p);
        }
        let default = pos.default_knowers(p, owner);
        let knowers = match (view, e.knowers) {
            // A view: the viewer knows what it was shown; the stand-ins are their
            // owners' (nothing true is told by them).
            (Some(v), _) => {
                if e.kind.is_ok() {
                    default.with(v)
                } else if default.contains(v) {
                    // Its own pieces (its team's, public ones) the viewer always knows.
                    let name = board.name_of(p);
                    return Err(inconsistent(format!("{name} is always known to {}", letters(default))));
                } else {
                    default.iter().filter(|s| *s != v).collect()
                }
            }
            (None, None) => default,
            // A piece is always known to its owner (its team, or everyone once pieces
            // are public): an exact mark may add players, never drop one of those.
            (None, Some((true, set))) if default.iter().all(|k| set.contains(k)) => set,
            (None, Some((true, _))) => {
                let name = board.name_of(p);
                return Err(inconsistent(format!("{name} is always known to {}", letters(default))));
            }
            (None, Some((false, set))) => set.iter().chain(default.iter()).collect(),
        };
        for s in knowers.iter() {
            pos.known[s as usize] |= 1u128 << id;
        }
    }
    if let Some(t) = obliged_t {
        for name in t.split(',') {
            let p = board.point(name).ok_or_else(|| E::Point(name.to_owned()))?;
            let id = pos.cells[p.index()];
            if id == NO_PIECE || pos.slots[id as usize].kind.arm() != Arm::Air {
                return Err(inconsistent(format!("obliged {name} is not a plane")));
            }
            let army = pos.slots[id as usize].owner as usize;
            if pos.obliged[army] != NO_PIECE {
                return Err(inconsistent(format!("two obliged planes of one army at {name}")));
            }
            pos.obliged[army] = id;
        }
    }
    match (phase, react_t) {
        (Phase::Reaction, Some(t)) => {
            let (name, removed) = t.strip_suffix('+').map_or((t, false), |n| (n, true));
            let p = board.point(name).ok_or_else(|| E::Point(name.to_owned()))?;
            let id = pos.cells[p.index()];
            if id == NO_PIECE || pos.slots[id as usize].kind != PieceKind::Submarine || pos.hidden.contains(p) {
                return Err(inconsistent(format!("the reacting piece at {name} is not a submarine")));
            }
            pos.react = id;
            pos.react_removed = removed;
        }
        (Phase::Reaction, None) => return Err(E::Missing("react")),
        (_, Some(t)) => return Err(inconsistent(format!("react={t} outside the reaction phase"))),
        _ => {}
    }
    match (phase, result_t) {
        (Phase::Over, Some(t)) => {
            let (w, reason) = t.split_once(':').ok_or_else(|| E::Key(format!("result={t}")))?;
            let reason = EndReason::ALL
                .into_iter()
                .find(|r| r.name() == reason)
                .ok_or_else(|| E::Key(format!("result={t}")))?;
            pos.result = Some(GameResult { winners: parse_sides(&rules, w)?, reason });
        }
        (Phase::Over, None) => return Err(E::Missing("result")),
        (_, Some(t)) => return Err(inconsistent(format!("result={t} before the game is over"))),
        _ => {}
    }
    if phase != Phase::Over {
        match pos.to_act() {
            Some(s) if !pos.out.contains(s) => {}
            _ => return Err(inconsistent("the side to act is out or commands no army".into())),
        }
        if sides.iter().filter(|s| !pos.out.contains(**s)).count() < 2 {
            return Err(inconsistent("fewer than two sides are still in".into()));
        }
    }
    // In the move phase a side to act that cannot act is out, as the rules say. In a
    // view, whether a side other than the viewer can act may depend on the stand-ins:
    // one of them is first given another kind so that it can, as it could in the
    // position the view was taken from, and only a side that cannot act whatever such
    // change is made is out (the viewer's own actions never depend on stand-ins). Read as it was
    // told, such a view gave a game whose side to act had no action, and whose record
    // (it starts with the full string, read by this rule) replayed to another game.
    if phase == Phase::Move {
        while pos.phase == Phase::Move {
            let side = sides[pos.turn as usize];
            let army = pos.armies[side as usize].map_or(0, side_idx);
            if pos.has_legal_move(side) || unstick(&mut pos, side, &stand_ins, &mut left[army]) {
                break;
            }
            // One step of `check_stalemate`.
            if pos.eliminate(side, EndReason::NoLegalMove, &mut Eliminations::default()) {
                pos.no_capture = 0;
            }
            if pos.phase == Phase::Move {
                pos.advance_turn();
            }
        }
    }
    Ok((pos, view))
}

/// Gives one stand-in (a piece of `stand_ins`) of `side`'s army another kind of its arm
/// — another stand-in's (the two swap) or one its army has left (`left`, the kinds and
/// counts no piece of the string stands for) — so that `side` has a legal move; false,
/// with nothing changed, if no such change gives it one. In the position a view was
/// taken from, some piece of the side to act could move: a stand-in given that piece's
/// kind on its point can too. The stand-ins stay a function of the view string alone.
fn unstick(pos: &mut Position, side: Side, stand_ins: &[usize], left: &mut [(PieceKind, u8)]) -> bool {
    let Some(army) = pos.armies[side as usize] else { return false };
    let mine: Vec<usize> =
        stand_ins.iter().copied().filter(|&id| pos.slots[id].owner == army && pos.slots[id].at != OFF_BOARD).collect();
    // A piece that has moved takes no immobile kind.
    let fits = |pos: &Position, id: usize, k: PieceKind| {
        !pos.moved.contains(Point(pos.slots[id].at)) || pos.rules.mobility(k) != crate::rules::Mobility::Immobile
    };
    for &a in &mine {
        let ka = pos.slots[a].kind;
        for &b in &mine {
            let kb = pos.slots[b].kind;
            if kb == ka || kb.arm() != ka.arm() || !fits(pos, a, kb) || !fits(pos, b, ka) {
                continue;
            }
            pos.slots[a].kind = kb;
            pos.slots[b].kind = ka;
            if pos.has_legal_move(side) {
                return true;
            }
            pos.slots[a].kind = ka;
            pos.slots[b].kind = kb;
        }
        for j in 0..left.len() {
            let (k, n) = left[j];
            if n == 0 || k == ka || k.arm() != ka.arm() || !fits(pos, a, k) {
                continue;
            }
            pos.slots[a].kind = k;
            if pos.has_legal_move(side) {
                left[j].1 -= 1;
                if let Some(back) = left.iter_mut().find(|(x, _)| *x == ka) {
                    back.1 += 1;
                }
                return true;
            }
            pos.slots[a].kind = ka;
        }
    }
    false
}
