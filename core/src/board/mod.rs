//! Board geometry: named points with roles, typed edges and straight railway lines.
//!
//! A board is data. [`BoardSpec`] is the JSON form (see `core/data/boards/*.json`);
//! [`Board::from_spec`] validates it and precomputes the adjacency tables that move
//! generation runs on. Inside the engine a point is a small integer ([`Point`]); names
//! such as `"c6"` appear only at the edges of the API.

use crate::names::named_enum;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::piece::Side;

/// Most points a board may have (point ids are one byte).
pub const MAX_POINTS: usize = 255;

/// Largest drawing-grid coordinate (`x` and `y`) a point may have: the grid is at most
/// 64 × 64 cells, which every renderer draws and every distance fits.
pub const MAX_COORD: u8 = 63;

mod points;

pub use points::{Point, PointSet, PointSetIter};
pub(crate) use points::PointBits;

named_enum! {
    /// What a point is (its role in the rules).
    pub enum Role {
        /// An ordinary land point (兵站).
        Post = "post",
        /// A camp (行营): pieces in it cannot be attacked (per rule set).
        Camp = "camp",
        /// A headquarters (大本营): the flag stands in one; pieces in it stop for good.
        Hq = "hq",
        /// A stronghold (据点).
        Stronghold = "stronghold",
        /// A harbour mouth (海口): land point on the coast.
        HarbourMouth = "harbour_mouth",
        /// A pier (bridgehead): railway stronghold at the end of a bridge.
        Pier = "pier",
        /// An anchorage (锚地): sea point where ships deploy.
        Anchorage = "anchorage",
        /// Open sea.
        Sea = "sea",
        /// An airport: air position where planes deploy.
        Airport = "airport",
        /// An air position.
        Air = "air",
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

named_enum! {
    /// The kind of an edge between two points.
    #[derive(PartialOrd, Ord)]
    pub enum EdgeKind {
        /// A road: one step for land pieces.
        Road = "road",
        /// A railway: one step, or part of a railway run.
        Railway = "railway",
        /// A sea lane between two sea points.
        Sea = "sea",
        /// A coast link between a land point and a sea point.
        Coast = "coast",
        /// An air line segment between two air positions.
        Air = "air",
    }
}

/// One point as described in a board file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointSpec {
    /// The point's name, e.g. `"c6"`.
    pub name: String,
    /// Column on the drawing grid (0 = left as South sees it).
    pub x: u8,
    /// Row on the drawing grid (0 = South's back row).
    pub y: u8,
    /// What the point is.
    pub role: Role,
    /// The side whose half the point is in, if any.
    #[serde(default)]
    pub side: Option<Side>,
    /// Row counted from the owning side's back row (1 = back row); 0 if not in a half.
    #[serde(default)]
    pub depth: u8,
}

/// A board as described in a JSON file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSpec {
    /// The board's name, e.g. `"classic"`.
    pub name: String,
    /// Free-form description.
    #[serde(default)]
    pub description: String,
    /// The points, in id order.
    pub points: Vec<PointSpec>,
    /// Edges by kind, each written `"a1-a2"`.
    pub edges: BTreeMap<EdgeKind, Vec<String>>,
    /// Straight railway lines a piece that may not turn can run along, as point names
    /// in order.
    #[serde(default)]
    pub rail_lines: Vec<Vec<String>>,
    /// Air lines (海陆空三军棋): the straight lines a plane flies along, as air positions
    /// in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub air_lines: Vec<Vec<String>>,
}

/// A board file that does not describe a usable board.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The JSON text could not be read.
    #[error("invalid board JSON: {0}")]
    Json(String),
    /// More points than point ids.
    #[error("a board has at most {MAX_POINTS} points, this one has {0}")]
    TooManyPoints(usize),
    /// Two points share a name.
    #[error("point name {0:?} is used twice")]
    DuplicatePoint(String),
    /// An edge or line names a point the board does not have.
    #[error("unknown point {0:?} in {1}")]
    UnknownPoint(String, &'static str),
    /// An edge is not written `"a1-a2"`.
    #[error("edge {0:?} is not of the form \"a1-a2\"")]
    MalformedEdge(String),
    /// An edge joins a point to itself, or is listed twice with the same kind.
    #[error("edge {0:?} is a loop or listed twice")]
    BadEdge(String),
    /// Consecutive points of an air line are not joined by an air edge.
    #[error("air line step {0}-{1} is not an air edge")]
    LineNotInAir(String, String),
    /// Consecutive points of a railway line are not joined by a railway edge.
    #[error("railway line step {0}-{1} is not a railway edge")]
    LineNotOnRailway(String, String),
    /// The JSON text is longer than [`crate::limits::MAX_BOARD_JSON`] bytes.
    #[error("board JSON of {0} bytes is over the limit of {max} bytes", max = crate::limits::MAX_BOARD_JSON)]
    TooLarge(usize),
    /// A point lies outside the drawing grid ([`MAX_COORD`]).
    #[error("point {0:?} lies outside the drawing grid: x and y must be at most {MAX_COORD}")]
    CoordinateOutOfRange(String),
    /// Two surface points, or two air positions, share drawing coordinates (each grid
    /// cell holds at most one surface point and the air position above it).
    #[error("points {0:?} and {1:?} share drawing coordinates")]
    SharedCoordinates(String, String),
}

/// A validated board with its precomputed move tables. Shared behind an [`Arc`].
#[derive(Debug)]
pub struct Board {
    spec: BoardSpec,
    names: HashMap<String, Point>,
    /// Each point's name, shared: errors carry it without allocating.
    shared_names: Vec<Arc<str>>,
    neighbours: Vec<Vec<(Point, EdgeKind)>>,
    /// Land steps: road and railway neighbours.
    pub(crate) step: Vec<PointSet>,
    /// Role of each point (a compact copy of the spec's).
    pub(crate) roles: Vec<Role>,
    /// The camps.
    pub(crate) camps: PointSet,
    /// Railway neighbours.
    pub(crate) rail: Vec<Vec<Point>>,
    /// Railway neighbours as sets, for the engineer's layer-by-layer search.
    pub(crate) rail_mask: Vec<PointSet>,
    /// Straight railway rays leaving each point (not including the point), flattened:
    /// the rays of point `p` are `ray_spans[ray_of[p].0..ray_of[p].1]`, each a span of
    /// `ray_points`. Flat arrays keep the hot loop of move generation cache-friendly.
    pub(crate) ray_of: Vec<(u32, u32)>,
    pub(crate) ray_spans: Vec<(u32, u32)>,
    pub(crate) ray_points: Vec<Point>,
    /// Piers: a railway run may end on one but not pass through it.
    pub(crate) piers: PointSet,
    /// Headquarters.
    pub(crate) hqs: PointSet,
    /// Land points (posts, camps, HQs, strongholds, harbour mouths, piers).
    pub(crate) land: PointSet,
    /// Sea points (open sea and anchorages).
    pub(crate) sea: PointSet,
    /// Air positions (air and airports).
    pub(crate) air: PointSet,
    /// Sea-lane neighbours.
    pub(crate) sea_step: Vec<PointSet>,
    /// Coast-link neighbours (land ↔ sea).
    pub(crate) coast: Vec<PointSet>,
    /// The air position above a surface point, and the surface point below an air
    /// position (same drawing coordinates), if any.
    pub(crate) above: Vec<Option<Point>>,
    pub(crate) below: Vec<Option<Point>>,
    /// Straight air rays leaving each air position (flattened like the railway rays).
    pub(crate) air_ray_of: Vec<(u32, u32)>,
    pub(crate) air_ray_spans: Vec<(u32, u32)>,
    pub(crate) air_ray_points: Vec<Point>,
    /// Per entry of `air_ray_points`: the surface points a plane passes over on the way
    /// to that position from the one before it on the ray (those between the two, then
    /// the one below it), in flying order — a span of `air_over_points`.
    pub(crate) air_over_spans: Vec<(u32, u32)>,
    pub(crate) air_over_points: Vec<Point>,
    lines: Vec<Vec<Point>>,
    air_lines: Vec<Vec<Point>>,
    width: u8,
    height: u8,
    move_pairs: Vec<(Point, Point)>,
    pair_index: Vec<u16>,
    /// On a board of at most 64 points, the move tables again as plain words
    /// ([`WordTables`]); `None` on larger boards.
    pub(crate) words: Option<Box<WordTables>>,
}

/// The move tables of a board of at most 64 points as plain `u64` words, indexed by
/// point id masked to six bits: the hot loop of move generation reads them with no
/// conversion from [`PointSet`] and no bounds check. Built by [`Board::from_spec`]
/// alongside the set tables, which they copy.
#[derive(Debug)]
pub(crate) struct WordTables {
    /// Land steps (road and railway neighbours) of each point.
    pub(crate) step: [u64; 64],
    /// Railway neighbours of each point.
    pub(crate) rail: [u64; 64],
    /// The points a railway edge touches.
    pub(crate) on_rail: u64,
    /// Piers: a railway run may end on one but not pass through it.
    pub(crate) piers: u64,
}

impl WordTables {
    /// The word tables of a board of at most 64 points (`None` for a larger one).
    fn of(n: usize, step: &[PointSet], rail: &[PointSet], piers: PointSet) -> Option<Box<WordTables>> {
        if n > 64 {
            return None;
        }
        let mut w = Box::new(WordTables {
            step: [0; 64],
            rail: [0; 64],
            on_rail: 0,
            piers: piers.0[0],
        });
        for p in 0..n {
            w.step[p] = step[p].0[0];
            w.rail[p] = rail[p].0[0];
            if rail[p] != PointSet::EMPTY {
                w.on_rail |= 1 << p;
            }
        }
        Some(w)
    }
}

const NO_PAIR: u16 = u16::MAX;

/// A piece of a straight railway ray for runs over sets of any size: the longest
/// stretch of consecutive ray points whose ids lie in one word of a [`PointSet`] and
/// rise (or fall) all along, so that the first occupied point of the stretch is its
/// lowest (highest) occupied bit. A run walks a ray's segments in order and stops at
/// the first one with an occupied point: a few word operations per segment instead
/// of a look-up per point ([`Board::ray_segments`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RaySegment {
    /// The stretch's points, in word `word` of a set.
    pub(crate) mask: u64,
    /// Which word of a [`PointSet`] (point ids `64 * word ..`).
    pub(crate) word: u8,
    /// Whether ids rise along the ray (a one-point stretch rises).
    pub(crate) rising: bool,
    /// The index (in the segment table) just past the last segment of this ray.
    pub(crate) ray_end: u32,
}

impl Board {
    /// The straight railway rays of every point cut into [`RaySegment`]s, each ray cut
    /// after its first `limit` points (`rail_max_steps`; `None`: whole rays): per
    /// point the range of its segments, and the segments.
    pub(crate) fn ray_segments(&self, limit: Option<u8>) -> (Vec<(u32, u32)>, Vec<RaySegment>) {
        let mut of = Vec::with_capacity(self.len());
        let mut segments: Vec<RaySegment> = Vec::new();
        for p in 0..self.len() {
            let start = segments.len() as u32;
            let (first, last) = self.ray_of[p];
            for &(a, b) in &self.ray_spans[first as usize..last as usize] {
                let mut ray = &self.ray_points[a as usize..b as usize];
                if let Some(n) = limit {
                    ray = &ray[..ray.len().min(usize::from(n))];
                }
                let ray_start = segments.len();
                let mut prev: Option<Point> = None;
                for &q in ray {
                    let word = (q.index() >> 6) as u8;
                    let bit = 1u64 << (q.index() & 63);
                    // Whether `q` carries on the open segment: the same word, and the
                    // direction of its ids (which a one-point segment takes from `q`).
                    let joins = match (prev, segments.len() > ray_start) {
                        (Some(r), true) => {
                            let seg = segments.last_mut().expect("a segment is open");
                            let rises = r.index() < q.index();
                            if seg.word != word {
                                false
                            } else if seg.mask.count_ones() == 1 {
                                seg.rising = rises;
                                true
                            } else {
                                seg.rising == rises
                            }
                        }
                        _ => false,
                    };
                    if joins {
                        segments.last_mut().expect("a segment is open").mask |= bit;
                    } else {
                        segments.push(RaySegment { mask: bit, word, rising: true, ray_end: 0 });
                    }
                    prev = Some(q);
                }
                let end = segments.len() as u32;
                for seg in &mut segments[ray_start..] {
                    seg.ray_end = end;
                }
            }
            of.push((start, segments.len() as u32));
        }
        (of, segments)
    }
}

/// The longest reach of a strike against a plane, in drawing-grid steps
/// (`|dx| + |dy|`): the action space holds every surface-to-air pair this close.
pub const STRIKE_RANGE: i32 = 2;

/// Straight rays along `lines` leaving each point (not including it), flattened: the
/// rays of point `p` are `spans[of[p].0..of[p].1]`, each a span of `points`.
#[allow(clippy::type_complexity)]
fn flat_rays(n: usize, lines: &[Vec<Point>]) -> (Vec<(u32, u32)>, Vec<(u32, u32)>, Vec<Point>) {
    let mut rays: Vec<Vec<Vec<Point>>> = vec![Vec::new(); n];
    for line in lines {
        for (i, p) in line.iter().enumerate() {
            if i + 1 < line.len() {
                rays[p.index()].push(line[i + 1..].to_vec());
            }
            if i > 0 {
                rays[p.index()].push(line[..i].iter().rev().copied().collect());
            }
        }
    }
    let (mut of, mut spans, mut points) = (Vec::with_capacity(n), Vec::new(), Vec::new());
    for point_rays in &rays {
        let first = spans.len() as u32;
        for ray in point_rays {
            let start = points.len() as u32;
            points.extend_from_slice(ray);
            spans.push((start, points.len() as u32));
        }
        of.push((first, spans.len() as u32));
    }
    (of, spans, points)
}

/// The points of `candidates` strictly inside the straight segment from `a` to `b`
/// (drawing-grid coordinates), nearest `a` first.
fn segment_interior(
    a: (i32, i32),
    b: (i32, i32),
    candidates: &[usize],
    xy: &dyn Fn(usize) -> (i32, i32),
) -> Vec<Point> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let mut inside: Vec<(i32, Point)> = candidates
        .iter()
        .filter_map(|&i| {
            let (x, y) = xy(i);
            let (px, py) = (x - a.0, y - a.1);
            let along = px * dx + py * dy;
            (px * dy == py * dx && along > 0 && along < len2).then_some((along, Point(i as u8)))
        })
        .collect();
    inside.sort();
    inside.into_iter().map(|(_, p)| p).collect()
}

impl Board {
    /// The built-in boards: `classic`, `siguo`, and `sanjun` (the land-sea-air board;
    /// its rule sets are still to come).
    pub fn preset(name: &str) -> Option<Arc<Board>> {
        // Each built-in board is built once per process and shared (records compare a
        // game's board with its preset on every call).
        static CACHE: [std::sync::OnceLock<Arc<Board>>; 3] = [const { std::sync::OnceLock::new() }; 3];
        let (i, json) = match name {
            "classic" => (0, include_str!("../../data/boards/classic.json")),
            "siguo" => (1, include_str!("../../data/boards/siguo.json")),
            "sanjun" => (2, include_str!("../../data/boards/sanjun.json")),
            _ => return None,
        };
        Some(
            CACHE[i]
                .get_or_init(|| Arc::new(Board::from_json(json).expect("built-in board data is valid")))
                .clone(),
        )
    }

    /// Names of the built-in boards.
    pub fn preset_names() -> &'static [&'static str] {
        &["classic", "siguo", "sanjun"]
    }

    /// Reads and validates a board from its JSON description.
    pub fn from_json(json: &str) -> Result<Board, BoardError> {
        if json.len() > crate::limits::MAX_BOARD_JSON {
            return Err(BoardError::TooLarge(json.len()));
        }
        let spec: BoardSpec =
            serde_json::from_str(json).map_err(|e| BoardError::Json(e.to_string()))?;
        Board::from_spec(spec)
    }

    /// Validates a board description and builds its tables.
    pub fn from_spec(spec: BoardSpec) -> Result<Board, BoardError> {
        let n = spec.points.len();
        if n > MAX_POINTS {
            return Err(BoardError::TooManyPoints(n));
        }
        if let Some(p) = spec.points.iter().find(|p| p.x > MAX_COORD || p.y > MAX_COORD) {
            return Err(BoardError::CoordinateOutOfRange(p.name.clone()));
        }
        let mut names = HashMap::with_capacity(n);
        for (i, p) in spec.points.iter().enumerate() {
            if names.insert(p.name.clone(), Point(i as u8)).is_some() {
                return Err(BoardError::DuplicatePoint(p.name.clone()));
            }
        }
        let lookup = |name: &str, ctx: &'static str| {
            names
                .get(name)
                .copied()
                .ok_or_else(|| BoardError::UnknownPoint(name.to_owned(), ctx))
        };
        let mut neighbours = vec![Vec::new(); n];
        let mut seen = HashSet::new();
        for kind in EdgeKind::ALL {
            for e in spec.edges.get(&kind).into_iter().flatten() {
                let (a, b) = e
                    .split_once('-')
                    .ok_or_else(|| BoardError::MalformedEdge(e.clone()))?;
                let (a, b) = (lookup(a, "an edge")?, lookup(b, "an edge")?);
                // Two points may be joined by edges of several kinds (a pier and its
                // bridge point are joined by railway and by the coast), once each.
                if a == b || !seen.insert((a.min(b), a.max(b), kind)) {
                    return Err(BoardError::BadEdge(e.clone()));
                }
                neighbours[a.index()].push((b, kind));
                neighbours[b.index()].push((a, kind));
            }
        }
        for list in &mut neighbours {
            list.sort();
        }
        let of_kind = |kinds: &[EdgeKind]| -> Vec<Vec<Point>> {
            neighbours
                .iter()
                .map(|l| {
                    l.iter()
                        .filter(|(_, k)| kinds.contains(k))
                        .map(|(p, _)| *p)
                        .collect()
                })
                .collect()
        };
        let step: Vec<PointSet> = of_kind(&[EdgeKind::Road, EdgeKind::Railway])
            .into_iter()
            .map(|l| l.into_iter().collect::<PointSet>())
            .collect();
        let roles: Vec<Role> = spec.points.iter().map(|p| p.role).collect();
        let camps = (0..n)
            .filter(|&i| roles[i] == Role::Camp)
            .map(|i| Point(i as u8))
            .collect();
        let rail = of_kind(&[EdgeKind::Railway]);

        let mut lines = Vec::new();
        for line in &spec.rail_lines {
            let pts = line
                .iter()
                .map(|s| lookup(s, "a railway line"))
                .collect::<Result<Vec<_>, _>>()?;
            for w in pts.windows(2) {
                if !rail[w[0].index()].contains(&w[1]) {
                    return Err(BoardError::LineNotOnRailway(
                        spec.points[w[0].index()].name.clone(),
                        spec.points[w[1].index()].name.clone(),
                    ));
                }
            }
            lines.push(pts);
        }
        let mut air_lines = Vec::new();
        for line in &spec.air_lines {
            let pts = line
                .iter()
                .map(|s| lookup(s, "an air line"))
                .collect::<Result<Vec<_>, _>>()?;
            for w in pts.windows(2) {
                if !neighbours[w[0].index()].contains(&(w[1], EdgeKind::Air)) {
                    return Err(BoardError::LineNotInAir(
                        spec.points[w[0].index()].name.clone(),
                        spec.points[w[1].index()].name.clone(),
                    ));
                }
            }
            air_lines.push(pts);
        }
        let rail_mask: Vec<PointSet> = rail.iter().map(|l| l.iter().copied().collect()).collect();
        let (ray_of, ray_spans, ray_points) = flat_rays(n, &lines);
        let (air_ray_of, air_ray_spans, air_ray_points) = flat_rays(n, &air_lines);
        let set_of = |f: &dyn Fn(Role) -> bool| -> PointSet {
            (0..n).filter(|&i| f(roles[i])).map(|i| Point(i as u8)).collect()
        };
        let piers = set_of(&|r| r == Role::Pier);
        let hqs = set_of(&|r| r == Role::Hq);
        let sea = set_of(&|r| matches!(r, Role::Sea | Role::Anchorage));
        let air = set_of(&|r| matches!(r, Role::Air | Role::Airport));
        let land = set_of(&|r| !matches!(r, Role::Sea | Role::Anchorage | Role::Air | Role::Airport));
        let sets_of = |kind: EdgeKind| -> Vec<PointSet> {
            of_kind(&[kind]).into_iter().map(|l| l.into_iter().collect()).collect()
        };
        let sea_step = sets_of(EdgeKind::Sea);
        let coast = sets_of(EdgeKind::Coast);
        let mut at_coords: HashMap<(u8, u8), (Option<Point>, Option<Point>)> = HashMap::new();
        for (i, p) in spec.points.iter().enumerate() {
            let e = at_coords.entry((p.x, p.y)).or_default();
            let slot = if air.contains(Point(i as u8)) { &mut e.1 } else { &mut e.0 };
            if let Some(other) = slot.replace(Point(i as u8)) {
                return Err(BoardError::SharedCoordinates(spec.points[other.index()].name.clone(), p.name.clone()));
            }
        }
        let mut above = vec![None; n];
        let mut below = vec![None; n];
        for (surface, air_pos) in at_coords.values() {
            if let (Some(s), Some(a)) = (surface, air_pos) {
                above[s.index()] = Some(*a);
                below[a.index()] = Some(*s);
            }
        }
        // What a plane passes over on each step of each air ray: the surface points
        // strictly between the two positions on the drawing grid, then the one below.
        let surface: Vec<usize> = (0..n).filter(|&i| !air.contains(Point(i as u8))).collect();
        let xy = |i: usize| (spec.points[i].x as i32, spec.points[i].y as i32);
        let mut air_over_spans = Vec::with_capacity(air_ray_points.len());
        let mut air_over_points = Vec::new();
        for (p, &(first, last)) in air_ray_of.iter().enumerate() {
            for &(start, end) in &air_ray_spans[first as usize..last as usize] {
                let mut prev = p;
                for q in &air_ray_points[start as usize..end as usize] {
                    let begin = air_over_points.len() as u32;
                    air_over_points.extend(segment_interior(xy(prev), xy(q.index()), &surface, &xy));
                    air_over_points.extend(below[q.index()]);
                    air_over_spans.push((begin, air_over_points.len() as u32));
                    prev = q.index();
                }
            }
        }
        // The fixed action space: every ordered pair a move could ever join — one edge
        // apart, or in the same railway component.
        let mut component = vec![usize::MAX; n];
        let mut next_comp = 0;
        for start in 0..n {
            if rail[start].is_empty() || component[start] != usize::MAX {
                continue;
            }
            let mut queue = VecDeque::from([start]);
            component[start] = next_comp;
            while let Some(p) = queue.pop_front() {
                for q in &rail[p] {
                    if component[q.index()] == usize::MAX {
                        component[q.index()] = next_comp;
                        queue.push_back(q.index());
                    }
                }
            }
            next_comp += 1;
        }
        // With an air layer: two positions of one air line (a flight), a surface point
        // under the lattice and a position of a line through it or the point below
        // that (a missile's flight), and a surface point with an air position at most
        // `STRIKE_RANGE` away (an anti-aircraft strike).
        let mut on_line = vec![false; n * n];
        for line in &air_lines {
            for &a in line {
                for &b in line {
                    on_line[a.index() * n + b.index()] = true;
                }
            }
        }
        let coords = |i: usize| (spec.points[i].x as i32, spec.points[i].y as i32);
        let air_joined = |a: usize, b: usize| -> bool {
            let is_air = |i: usize| air.contains(Point(i as u8));
            if is_air(a) {
                return is_air(b) && on_line[a * n + b];
            }
            let Some(up) = above[a] else {
                return is_air(b) && {
                    let ((ax, ay), (bx, by)) = (coords(a), coords(b));
                    (ax - bx).abs() + (ay - by).abs() <= STRIKE_RANGE
                };
            };
            let target_air = if is_air(b) { Some(Point(b as u8)) } else { above[b] };
            let ((ax, ay), (bx, by)) = (coords(a), coords(b));
            target_air.is_some_and(|t| on_line[up.index() * n + t.index()])
                || (is_air(b) && (ax - bx).abs() + (ay - by).abs() <= STRIKE_RANGE)
        };
        let mut move_pairs = Vec::new();
        let mut pair_index = vec![NO_PAIR; n * n];
        for a in 0..n {
            for b in 0..n {
                let joined = neighbours[a].iter().any(|(q, _)| q.index() == b)
                    || (a != b && component[a] != usize::MAX && component[a] == component[b])
                    || (a != b && !air.is_empty() && air_joined(a, b));
                if joined {
                    pair_index[a * n + b] = move_pairs.len() as u16;
                    move_pairs.push((Point(a as u8), Point(b as u8)));
                }
            }
        }
        let width = spec.points.iter().map(|p| p.x + 1).max().unwrap_or(0);
        let height = spec.points.iter().map(|p| p.y + 1).max().unwrap_or(0);
        let shared_names = spec.points.iter().map(|p| Arc::from(p.name.as_str())).collect();
        let words = WordTables::of(n, &step, &rail_mask, piers);
        Ok(Board {
            spec,
            names,
            shared_names,
            neighbours,
            step,
            roles,
            camps,
            rail,
            rail_mask,
            ray_of,
            ray_spans,
            ray_points,
            piers,
            hqs,
            land,
            sea,
            air,
            sea_step,
            coast,
            above,
            below,
            air_ray_of,
            air_ray_spans,
            air_ray_points,
            air_over_spans,
            air_over_points,
            lines,
            air_lines,
            width,
            height,
            move_pairs,
            pair_index,
            words,
        })
    }

    /// The board's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The description this board was built from (serialises back to its JSON).
    pub fn spec(&self) -> &BoardSpec {
        &self.spec
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.spec.points.len()
    }

    /// Whether every set of the board's points fits in one 64-bit word (at most 64
    /// points): move generation then computes with single words ([`PointBits`]).
    pub(crate) fn fits_one_word(&self) -> bool {
        self.len() <= 64
    }

    /// Whether the board has no points.
    pub fn is_empty(&self) -> bool {
        self.spec.points.is_empty()
    }

    /// Every point, in id order.
    pub fn points(&self) -> impl ExactSizeIterator<Item = Point> + '_ {
        (0..self.len()).map(|i| Point(i as u8))
    }

    /// The point at an index, if the board has it.
    pub fn point_at(&self, index: usize) -> Option<Point> {
        (index < self.len()).then_some(Point(index as u8))
    }

    /// The point with a name, e.g. `board.point("c6")`.
    pub fn point(&self, name: &str) -> Option<Point> {
        self.names.get(name.trim()).copied()
    }

    /// A point's name.
    pub fn name_of(&self, p: Point) -> &str {
        &self.spec.points[p.index()].name
    }

    /// A point's name as a shared string (cloning it does not allocate).
    pub(crate) fn shared_name(&self, p: Point) -> Arc<str> {
        self.shared_names[p.index()].clone()
    }

    /// A point's role.
    pub fn role(&self, p: Point) -> Role {
        self.roles[p.index()]
    }

    /// The side whose half a point is in.
    pub fn side_of(&self, p: Point) -> Option<Side> {
        self.spec.points[p.index()].side
    }

    /// Row of a point counted from its side's back row (1 = back row).
    pub fn depth(&self, p: Point) -> u8 {
        self.spec.points[p.index()].depth
    }

    /// Drawing-grid coordinates `(x, y)` of a point.
    pub fn coords(&self, p: Point) -> (u8, u8) {
        let s = &self.spec.points[p.index()];
        (s.x, s.y)
    }

    /// Width and height of the drawing grid.
    pub fn grid_size(&self) -> (u8, u8) {
        (self.width, self.height)
    }

    /// Neighbours of a point with the kind of edge joining them, sorted.
    pub fn neighbours(&self, p: Point) -> &[(Point, EdgeKind)] {
        &self.neighbours[p.index()]
    }

    /// Neighbours of a point along one kind of edge.
    pub fn neighbours_by(&self, p: Point, kind: EdgeKind) -> impl Iterator<Item = Point> + '_ {
        self.neighbours[p.index()]
            .iter()
            .filter(move |(_, k)| *k == kind)
            .map(|(q, _)| *q)
    }

    /// The kind of edge joining two points, if any.
    pub fn edge(&self, a: Point, b: Point) -> Option<EdgeKind> {
        self.neighbours[a.index()]
            .iter()
            .find(|(q, _)| *q == b)
            .map(|(_, k)| *k)
    }

    /// Whether a railway edge touches the point.
    pub fn is_railway(&self, p: Point) -> bool {
        !self.rail[p.index()].is_empty()
    }

    /// Number of edges of one kind.
    pub fn edge_count(&self, kind: EdgeKind) -> usize {
        self.spec.edges.get(&kind).map_or(0, Vec::len)
    }

    /// The straight railway lines.
    pub fn rail_lines(&self) -> &[Vec<Point>] {
        &self.lines
    }

    /// The air lines (boards with an air layer).
    pub fn air_lines(&self) -> &[Vec<Point>] {
        &self.air_lines
    }

    /// Every kind of edge joining two points (a pier and its bridge point, say, are
    /// joined by railway and by the coast).
    pub fn edges_between(&self, a: Point, b: Point) -> impl Iterator<Item = EdgeKind> + '_ {
        self.neighbours[a.index()].iter().filter(move |(q, _)| *q == b).map(|(_, k)| *k)
    }

    /// Whether the point is an air position (a plane's place; named with a trailing
    /// `^`, e.g. `c7^`).
    pub fn is_air(&self, p: Point) -> bool {
        self.air.contains(p)
    }

    /// Whether the point is at sea (open sea or an anchorage).
    pub fn is_sea(&self, p: Point) -> bool {
        self.sea.contains(p)
    }

    /// Whether the point is on land.
    pub fn is_land(&self, p: Point) -> bool {
        self.land.contains(p)
    }

    /// The air position directly above a surface point, if the air lattice covers it.
    pub fn above(&self, p: Point) -> Option<Point> {
        self.above[p.index()]
    }

    /// The surface point directly below an air position, if any.
    pub fn below(&self, p: Point) -> Option<Point> {
        self.below[p.index()]
    }

    /// The surface points a plane passes over flying from air position `from` to `to`
    /// along an air line (excluding what is below `from`), in flying order: for each
    /// position of the run, the surface points strictly between it and the previous
    /// one on the drawing grid, then the point below it. Empty if no air line joins
    /// the two positions.
    ///
    /// ```
    /// let rules = junqi::RuleSet::preset("sanjun-modern").unwrap();
    /// let b = rules.board();
    /// let names: Vec<&str> = b
    ///     .passed_over(b.point("d5^").unwrap(), b.point("d7^").unwrap())
    ///     .map(|p| b.name_of(p))
    ///     .collect();
    /// assert_eq!(names, ["d6", "d7"]); // row 6 lies between the air rows 5 and 7
    /// ```
    pub fn passed_over(&self, from: Point, to: Point) -> impl Iterator<Item = Point> + '_ {
        let (first, last) = self.air_ray_of.get(from.index()).copied().unwrap_or((0, 0));
        let run = self.air_ray_spans[first as usize..last as usize].iter().find_map(|&(start, end)| {
            let ray = &self.air_ray_points[start as usize..end as usize];
            ray.iter().position(|&q| q == to).map(|k| start as usize..=start as usize + k)
        });
        run.into_iter().flatten().flat_map(move |i| {
            let (a, b) = self.air_over_spans[i];
            self.air_over_points[a as usize..b as usize].iter().copied()
        })
    }

    /// Lattice distance `|dx| + |dy|` between two points, in drawing-grid steps.
    pub fn distance(&self, a: Point, b: Point) -> u32 {
        let ((ax, ay), (bx, by)) = (self.coords(a), self.coords(b));
        (ax.abs_diff(bx) + ay.abs_diff(by)) as u32
    }

    /// Size of the fixed move action space (see [`Board::move_index`]).
    pub fn move_space(&self) -> usize {
        self.move_pairs.len()
    }

    /// The stable index of the move `from → to` in the board's action space, if a move
    /// could ever join those points.
    pub fn move_index(&self, from: Point, to: Point) -> Option<usize> {
        let i = self.pair_index[from.index() * self.len() + to.index()];
        (i != NO_PAIR).then_some(i as usize)
    }

    /// The move `(from, to)` with a given index.
    pub fn move_at(&self, index: usize) -> Option<(Point, Point)> {
        self.move_pairs.get(index).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-word and whole-set forms of [`PointBits`] agree with each other and
    /// with the definitions (the whole-set ones on points beyond the first word too).
    #[test]
    fn point_bits_forms_agree() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let words = [next(), next() & next(), if round % 3 == 0 { 0 } else { next() }, next() >> (round % 64)];
            let set = PointSet(words);
            let word = words[0];
            for w in 0..4 {
                assert_eq!(PointBits::word_at(set, w), words[w]);
                let mut more = set;
                PointBits::or_word(&mut more, w, 0b1010);
                assert_eq!(more.0[w], words[w] | 0b1010);
            }
            let mut more = word;
            PointBits::or_word(&mut more, 0, 0b1010);
            assert_eq!((PointBits::word_at(word, 0), more), (word, word | 0b1010));
            for i in [0, 1, 17, 63] {
                assert_eq!(PointBits::contains(word, Point(i)), set.contains(Point(i)));
            }
            let mut seen = Vec::new();
            PointBits::for_each(word, |p| seen.push(p));
            assert_eq!(seen, PointSet([word, 0, 0, 0]).iter().collect::<Vec<_>>());
            assert_eq!(PointBits::any(word, |p| p.index() == 5), word >> 5 & 1 == 1);
        }
    }

    #[test]
    fn rejects_bad_boards() {
        let base = r#"{"name":"t","points":[
            {"name":"a1","x":0,"y":0,"role":"post"},{"name":"a2","x":0,"y":1,"role":"post"}],
            "edges":{"road":[EDGES]},"rail_lines":[LINES]}"#;
        let make = |edges: &str, lines: &str| {
            Board::from_json(&base.replace("EDGES", edges).replace("LINES", lines))
        };
        assert!(make(r#""a1-a2""#, "").is_ok());
        assert_eq!(
            make(r#""a1-a3""#, "").unwrap_err(),
            BoardError::UnknownPoint("a3".into(), "an edge")
        );
        assert_eq!(
            make(r#""a1a2""#, "").unwrap_err(),
            BoardError::MalformedEdge("a1a2".into())
        );
        assert_eq!(
            make(r#""a1-a2","a2-a1""#, "").unwrap_err(),
            BoardError::BadEdge("a2-a1".into())
        );
        assert_eq!(
            make(r#""a1-a2""#, r#"["a1","a2"]"#).unwrap_err(),
            BoardError::LineNotOnRailway("a1".into(), "a2".into())
        );
        assert!(matches!(Board::from_json("{"), Err(BoardError::Json(_))));
    }
}
