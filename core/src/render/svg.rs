//! The SVG drawing: board layers, pieces, highlights, coordinates, caption and legend.

use std::fmt::Write;

use super::frame::Frame;
use super::label::{self, Fitted};
use super::SvgOptions;
use crate::board::{Board, EdgeKind, Point, Role};
use crate::combat::CombatOutcome;
use crate::piece::{Arm, PieceKind, Side};
use crate::position::SeenPiece;
use crate::referee::{describe_result, Event, View};

/// The font stack: a CJK font first, so that piece names never come out as boxes.
pub const FONTS: &str =
    "'Noto Sans CJK SC','Noto Sans SC','WenQuanYi Micro Hei','WenQuanYi Zen Hei',\
'PingFang SC','Microsoft YaHei',sans-serif";

const PAPER: &str = "#faf6ec";
const LAND: &str = "#f0dfb4";
const LAND_EDGE: &str = "#b8975a";
const STATION: &str = "#fbf4de";
const INK: &str = "#7a6440";
const ROAD: &str = "#8b7550";
const RAIL: &str = "#262626";
const RIVER: &str = "#cfe6f0";
/// Neutral ground between the halves (四国's centre).
const CENTRE: &str = "#dbeaee";
const WAVE: &str = "#8fc0da";
const WATER: &str = "#a7cfe9";
const SEA_INK: &str = "#2f6f9f";
const AIR: &str = "#4f8fc9";
const SKY: &str = "#e6f3fc";
const MOVE: &str = "#e67e22";
const COMBAT: &str = "#e74c3c";

/// A seat's colour.
pub fn colour(side: Side) -> &'static str {
    match side {
        Side::South => "#c0392b",
        Side::North => "#1f4e9c",
        Side::East => "#1e8449",
        Side::West => "#7d3c98",
    }
}

/// `hex` mixed with white: `t = 0` the colour, `t = 1` white.
fn tint(hex: &str, t: f32) -> String {
    let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0) as f32;
    let m = |v: f32| (v + (255.0 - v) * t).round() as u8;
    format!("#{:02x}{:02x}{:02x}", m(c(1)), m(c(3)), m(c(5)))
}

/// Text made safe for XML text and for attribute values in double quotes.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => s.push(c),
        }
    }
    s
}

/// What a view adds to the board: pieces, the viewer's army, highlights, caption.
pub(crate) struct Scene<'a> {
    pub seat: Side,
    pub army: Option<Side>,
    pub pieces: &'a [SeenPiece],
    pub last_move: Option<(Point, Option<Point>)>,
    pub last_combat: Option<(Point, CombatOutcome)>,
    pub caption: String,
    pub sides: Vec<Side>,
    pub deals: bool,
}

impl<'a> Scene<'a> {
    /// The scene of a player's view: only what the view holds.
    pub fn of_view(view: &'a View, rules_name: &str, sides: &[Side], deals: bool) -> Scene<'a> {
        let mut last_move = None;
        let mut last_combat = None;
        let mut actions = 0;
        for e in view.events.iter().rev() {
            let (mv, combat) = match *e {
                Event::Moved { from, to, .. } => (Some((from, Some(to))), None),
                Event::Attacked {
                    from, to, outcome, ..
                }
                | Event::Struck {
                    from, to, outcome, ..
                } => (Some((from, Some(to))), Some((to, outcome))),
                Event::ShotDown { from, at, .. } => {
                    (Some((from, Some(at))), Some((at, CombatOutcome::Lose)))
                }
                Event::Flipped { point, .. } => (Some((point, None)), None),
                _ => (None, None),
            };
            if mv.is_none() {
                continue;
            }
            // The last move; the last combat if there was one in the last round (one
            // action per side), not an old one.
            if last_move.is_none() {
                last_move = mv;
            }
            if last_combat.is_none() {
                last_combat = combat;
            }
            actions += 1;
            if last_combat.is_some() || actions >= sides.len().max(1) {
                break;
            }
        }
        let mut caption = format!("{rules_name} · {}'s view · ply {}", view.player, view.ply);
        match (&view.result, view.to_act) {
            (Some(r), _) => write!(caption, " · {}", describe_result(r)).unwrap_or(()),
            (None, Some(s)) => write!(caption, " · {s} to act").unwrap_or(()),
            _ => {}
        }
        match view.army {
            Some(a) if a != view.player => write!(caption, " · commands {a}'s army").unwrap_or(()),
            None => caption.push_str(" · army not yet assigned"),
            _ => {}
        }
        Scene {
            seat: view.player,
            army: view.army,
            pieces: &view.pieces,
            last_move,
            last_combat,
            caption,
            sides: sides.to_vec(),
            deals,
        }
    }
}

/// A tile's outline: a rectangle for the army, a hull for a ship, a rounded pill for a
/// plane (the arm is public, so an unknown ship or plane shows it too).
fn shape(arm: Arm, x: f32, y: f32, w: f32, h: f32) -> String {
    let (x0, y0) = (x - w / 2.0, y - h / 2.0);
    match arm {
        Arm::Army => {
            format!(r#"<rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" rx="3"/>"#)
        }
        Arm::Air => format!(
            r#"<rect x="{x0:.1}" y="{y0:.1}" width="{w:.1}" height="{h:.1}" rx="{:.1}"/>"#,
            h / 2.0
        ),
        Arm::Navy => {
            let k = h * 0.45;
            format!(
                r#"<path d="M{x0:.1} {y0:.1}H{:.1}L{:.1} {:.1}L{:.1} {:.1}H{:.1}L{x0:.1} {:.1}Z"/>"#,
                x0 + w,
                x0 + w,
                y0 + h * 0.45,
                x0 + w - k,
                y0 + h,
                x0 + k,
                y0 + h * 0.45,
            )
        }
    }
}

/// Text lines centred on `(x, y)`.
fn text_lines(s: &mut String, f: &Fitted, x: f32, y: f32, fill: &str, bold: bool) {
    let top = y - f.height() / 2.0;
    for (i, line) in f.lines.iter().enumerate() {
        let centre = top + (i as f32 + 0.5) * f.size * label::LINE;
        let base = centre + 0.36 * f.size;
        let weight = if bold { r#" font-weight="bold""# } else { "" };
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{base:.1}" font-size="{:.1}" fill="{fill}" text-anchor="middle"{weight}>{}</text>"#,
            f.size,
            escape(line)
        );
    }
}

/// A small plane silhouette centred on `(x, y)`, `r` px from nose to tail.
fn plane_icon(x: f32, y: f32, r: f32, fill: &str) -> String {
    let pts: [(f32, f32); 14] = [
        (0.0, -1.0),
        (0.14, -0.3),
        (1.0, 0.15),
        (1.0, 0.35),
        (0.14, 0.15),
        (0.12, 0.7),
        (0.4, 0.9),
        (0.4, 1.0),
        (0.0, 0.92),
        (-0.4, 1.0),
        (-0.4, 0.9),
        (-0.12, 0.7),
        (-0.14, 0.15),
        (-1.0, 0.35),
    ];
    let mut d = String::new();
    for (i, (px, py)) in pts.iter().enumerate() {
        let _ = write!(
            d,
            "{}{:.1} {:.1}",
            if i == 0 { 'M' } else { 'L' },
            x + px * r,
            y + py * r
        );
    }
    let _ = write!(
        d,
        "L{:.1} {:.1}L{:.1} {:.1}Z",
        x - r,
        y + 0.15 * r,
        x - 0.14 * r,
        y - 0.3 * r
    );
    format!(r#"<path d="{d}" fill="{fill}"/>"#)
}

/// Two small peaks: a mountain on the front line (山界), where no road crosses.
fn mountain(x: f32, y: f32, s: f32) -> String {
    format!(
        r##"<path d="M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="#8f9c5c" stroke="#5f6b3a" stroke-width="1"/>"##,
        x - s,
        y + s * 0.5,
        x - s * 0.35,
        y - s * 0.6,
        x,
        y,
        x + s * 0.4,
        y - s * 0.45,
        x + s,
        y + s * 0.5
    )
}

/// An anchor, the mark of an anchorage (锚地).
fn anchor(x: f32, y: f32, r: f32) -> String {
    format!(
        r#"<g fill="none" stroke="{SEA_INK}" stroke-width="1.4" stroke-linecap="round"><circle cx="{x:.1}" cy="{:.1}" r="{:.1}"/><path d="M{x:.1} {:.1}V{:.1}M{:.1} {:.1}H{:.1}M{:.1} {:.1}Q{x:.1} {:.1} {:.1} {:.1}"/></g>"#,
        y - r * 0.75,
        r * 0.22,
        y - r * 0.53,
        y + r * 0.8,
        x - r * 0.35,
        y - r * 0.25,
        x + r * 0.35,
        x - r * 0.7,
        y + r * 0.25,
        y + r * 1.15,
        x + r * 0.7,
        y + r * 0.25,
    )
}

/// Draws `board` from `seat`, with the scene's pieces if any.
pub(crate) fn draw(
    board: &Board,
    seat: Side,
    scene: Option<&Scene<'_>>,
    title: &str,
    opts: &SvgOptions,
) -> String {
    let caption_h = if opts.caption { 30.0 } else { 0.0 };
    let frame = Frame::new(board, seat, caption_h);
    let mut s = String::with_capacity(64 * 1024);
    let mut body = String::with_capacity(64 * 1024);
    layers(&mut body, &frame);
    if let Some(scene) = scene {
        pieces(&mut body, &frame, scene, opts);
    }
    hit_targets(&mut body, &frame);
    if opts.coordinates {
        for (text, x, y) in frame.coordinates() {
            let _ = write!(
                body,
                r#"<text x="{x:.1}" y="{y:.1}" font-size="12" fill="{INK}" text-anchor="middle">{}</text>"#,
                escape(&text)
            );
        }
    }
    if opts.caption {
        let text = scene.map_or(title.to_owned(), |sc| sc.caption.clone());
        let f = label::fit_text(&text, frame.width - 2.0 * 12.0, 22.0, 15.0);
        let _ = write!(
            body,
            r#"<text x="12" y="{:.1}" font-size="{:.1}" fill="{INK}">{}</text>"#,
            12.0 + f.size,
            f.size,
            escape(&text)
        );
    }
    let mut height = frame.height;
    if opts.legend {
        height = legend(&mut body, &frame, scene, height);
    }
    let (w, h) = (frame.width, height);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="{FONTS}"><title>{}</title>"#,
        (w * opts.scale).ceil(),
        (h * opts.scale).ceil(),
        escape(title)
    );
    let _ = write!(
        s,
        r##"<defs><pattern id="facedown" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#7a5c3a"/><rect width="3" height="6" fill="#8d6c47"/></pattern><marker id="arrow" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0 0L10 5L0 10Z" fill="{MOVE}"/></marker></defs><rect width="100%" height="100%" fill="{PAPER}"/>"##
    );
    s.push_str(&body);
    s.push_str("</svg>");
    s
}

/// Invisible hit targets for front ends, above everything on the board: one
/// `<rect class="pt" data-point="NAME">` per point, the size of a piece's tile and a
/// little more, with no fill or stroke drawn (`fill="none"`) but catching the pointer
/// (`pointer-events="all"`), so a page can tell which point was clicked and mark
/// points with CSS (`.pt.target { fill: … }`). Air positions come last, so that a
/// plane's target lies above the ground point below it. The pictures do not change.
fn hit_targets(s: &mut String, f: &Frame<'_>) {
    let b = f.board;
    s.push_str(r#"<g class="points">"#);
    let ground = b.points().filter(|&p| !b.is_air(p));
    for p in ground.chain(b.points().filter(|&p| b.is_air(p))) {
        let (x, y) = f.pos(p);
        let (w, h) = if b.is_air(p) {
            f.plane_tile()
        } else {
            let (w, h) = f.tile(p);
            (w + 4.0, h + 4.0)
        };
        let _ = write!(
            s,
            r#"<rect class="pt" data-point="{}" x="{:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" rx="4" fill="none" pointer-events="all"/>"#,
            escape(b.name_of(p)),
            x - w / 2.0,
            y - h / 2.0
        );
    }
    s.push_str("</g>");
}

/// The board itself: land, river band, sea, edges, points, air layer.
fn layers(s: &mut String, f: &Frame<'_>) {
    let b = f.board;
    // Land: each side's half, and the neutral ground (四国's centre), as panels.
    let mut groups: Vec<(Option<Side>, Vec<Point>)> = Vec::new();
    for p in b.points().filter(|&p| b.is_land(p)) {
        let side = b.side_of(p);
        match groups.iter_mut().find(|g| g.0 == side) {
            Some(g) => g.1.push(p),
            None => groups.push((side, vec![p])),
        }
    }
    groups.sort_by_key(|g| g.0.is_none());
    for (side, pts) in &groups {
        let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for &p in pts {
            let (x, y) = f.pos(p);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        let (pad_x, pad_y) = (f.cw / 2.0 - 3.0, f.ch / 2.0 - 3.0);
        let fill = if side.is_some() { LAND } else { CENTRE };
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6" fill="{fill}" stroke="{LAND_EDGE}" stroke-width="1.5"/>"#,
            x0 - pad_x,
            y0 - pad_y,
            x1 - x0 + 2.0 * pad_x,
            y1 - y0 + 2.0 * pad_y
        );
    }
    // The front line: a river band, with mountains where nothing crosses.
    let (ex0, ex1, ey0, ey1) = f.extent();
    let (cols, rows) = f.turn.dims();
    let mut at_cell = vec![vec![None; rows]; cols];
    for p in b.points().filter(|&p| !b.is_air(p)) {
        let (c, r) = f.cell(p);
        at_cell[c][r] = Some(p);
    }
    for band in &f.bands {
        let (x, y, w, h) = if band.across {
            (ex0, band.from, ex1 - ex0, band.to - band.from)
        } else {
            (band.from, ey0, band.to - band.from, ey1 - ey0)
        };
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{RIVER}"/>"#
        );
        for k in 1..3 {
            let mut d = String::new();
            if band.across {
                let yy = y + h * k as f32 / 3.0;
                let _ = write!(d, "M{x:.1} {yy:.1}");
                let mut xx = x;
                while xx < x + w {
                    let _ = write!(d, "q6 -3 12 0t12 0");
                    xx += 24.0;
                }
            } else {
                let xx = x + w * k as f32 / 3.0;
                let _ = write!(d, "M{xx:.1} {y:.1}");
                let mut yy = y;
                while yy < y + h {
                    let _ = write!(d, "q-3 6 0 12t0 12");
                    yy += 24.0;
                }
            }
            let _ = write!(
                s,
                r#"<path d="{d}" fill="none" stroke="{WAVE}" stroke-width="1.2"/>"#
            );
        }
        // The points facing each other across the band, lane by lane.
        let facing: Vec<(Option<Point>, Option<Point>)> = if band.across {
            at_cell
                .iter()
                .map(|col| (col[band.after], col[band.after + 1]))
                .collect()
        } else {
            at_cell[band.after]
                .iter()
                .copied()
                .zip(at_cell[band.after + 1].iter().copied())
                .collect()
        };
        for (a, c) in facing {
            if let (Some(a), Some(c)) = (a, c) {
                if b.edge(a, c).is_none() {
                    let (mx, my) = if band.across {
                        (f.pos(a).0, (band.from + band.to) / 2.0)
                    } else {
                        ((band.from + band.to) / 2.0, f.pos(a).1)
                    };
                    s.push_str(&mountain(mx, my + 2.0, f.cw.min(f.ch) * 0.32));
                }
            }
        }
    }
    // The sea, cell by cell, so that it reads as water.
    for p in b.points().filter(|&p| b.is_sea(p)) {
        let (x, y) = f.pos(p);
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{WATER}"/>"#,
            x - f.cw / 2.0 - 0.5,
            y - f.ch / 2.0 - 0.5,
            f.cw + 1.0,
            f.ch + 1.0
        );
    }
    for p in b.points().filter(|&p| b.is_sea(p)) {
        let (x, y) = f.pos(p);
        let (wx, wy) = (x - f.cw * 0.3, y + f.ch * 0.3);
        let _ = write!(
            s,
            r##"<path d="M{wx:.1} {wy:.1}q4 -3 8 0t8 0" fill="none" stroke="#ffffff" stroke-opacity="0.7" stroke-width="1"/>"##
        );
    }
    // Edges: sea lanes faint, coast links dashed, roads thin, railways bold; a railway
    // over water is a bridge.
    let mut occupied = vec![vec![false; rows]; cols];
    for p in b.points().filter(|&p| !b.is_air(p)) {
        let (c, r) = f.cell(p);
        occupied[c][r] = true;
    }
    let path_of = |a: Point, c: Point| -> String {
        let ((x1, y1), (x2, y2)) = (f.pos(a), f.pos(c));
        let ((c1, r1), (c2, r2)) = (f.cell(a), f.cell(c));
        if c1.abs_diff(c2) == 1 && r1.abs_diff(r2) == 1 {
            // A diagonal step round a corner of the board (四国's corner railways) is
            // drawn as a quarter circle about that empty corner.
            let empty = [(c1, r2), (c2, r1)]
                .into_iter()
                .find(|&(cc, rr)| !occupied[cc][rr]);
            if let Some(corner) = empty {
                let (cx, cy) = f.cell_centre(corner);
                let cross = (x1 - cx) * (y2 - cy) - (y1 - cy) * (x2 - cx);
                let sweep = u8::from(cross > 0.0);
                return format!(
                    "M{x1:.1} {y1:.1}A{:.1} {:.1} 0 0 {sweep} {x2:.1} {y2:.1}",
                    (x2 - x1).abs(),
                    (y2 - y1).abs()
                );
            }
        }
        format!("M{x1:.1} {y1:.1}L{x2:.1} {y2:.1}")
    };
    let mut roads = String::new();
    let mut rails = String::new();
    let mut bridges = String::new();
    let mut coast = String::new();
    let mut lanes = String::new();
    let mut air = String::new();
    for a in b.points() {
        for &(c, kind) in b.neighbours(a) {
            if c <= a {
                continue;
            }
            let d = path_of(a, c);
            match kind {
                EdgeKind::Road => roads.push_str(&d),
                EdgeKind::Railway => {
                    if b.is_sea(a) || b.is_sea(c) {
                        bridges.push_str(&d);
                    }
                    rails.push_str(&d);
                }
                EdgeKind::Coast
                    if b.edge(a, c) == Some(EdgeKind::Coast)
                        && !b.edges_between(a, c).any(|k| k == EdgeKind::Railway) =>
                {
                    coast.push_str(&d)
                }
                EdgeKind::Coast => {}
                EdgeKind::Sea => lanes.push_str(&d),
                EdgeKind::Air => air.push_str(&d),
            }
        }
    }
    let _ = write!(
        s,
        r##"<path d="{lanes}" fill="none" stroke="#ffffff" stroke-opacity="0.55" stroke-width="1" stroke-dasharray="2 5"/><path d="{coast}" fill="none" stroke="{SEA_INK}" stroke-width="1.3" stroke-dasharray="4 3"/><path d="{roads}" fill="none" stroke="{ROAD}" stroke-width="1.4"/>"##
    );
    if !bridges.is_empty() {
        let _ = write!(
            s,
            r##"<path d="{bridges}" fill="none" stroke="#6b5a3a" stroke-width="13"/><path d="{bridges}" fill="none" stroke="#e3d2a6" stroke-width="10"/>"##
        );
    }
    let _ = write!(
        s,
        r##"<path d="{rails}" fill="none" stroke="{RAIL}" stroke-width="5" stroke-linecap="round"/><path d="{rails}" fill="none" stroke="#f3ead2" stroke-width="1.6" stroke-dasharray="6 6"/>"##
    );
    // The points.
    for p in b.points() {
        let (x, y) = f.pos(p);
        let (tw, th) = f.tile(p);
        let station = |fill: &str, stroke: &str, width: f32| {
            format!(
                r#"<rect x="{:.1}" y="{:.1}" width="{tw:.1}" height="{th:.1}" rx="3" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>"#,
                x - tw / 2.0,
                y - th / 2.0
            )
        };
        match b.role(p) {
            Role::Post => s.push_str(&station(STATION, "#a88d5a", 1.0)),
            Role::Camp => {
                let r = tw.max(th) / 2.0 + 1.5;
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{STATION}" stroke="{ROAD}" stroke-width="1.8"/>"#
                );
            }
            Role::Hq => {
                let (w, h) = (tw + 6.0, th + 6.0);
                let _ = write!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" rx="9" fill="{STATION}" stroke="{ROAD}" stroke-width="1.8"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="7" fill="none" stroke="{ROAD}" stroke-width="0.8"/>"#,
                    x - w / 2.0,
                    y - h / 2.0,
                    x - w / 2.0 + 3.0,
                    y - h / 2.0 + 3.0,
                    w - 6.0,
                    h - 6.0
                );
                let mark = label::fit_text("大本营", tw - 8.0, th - 6.0, 11.0);
                text_lines(s, &mark, x, y, "#c9b588", false);
            }
            Role::Stronghold => {
                s.push_str(&station("#f3e2b8", "#7a6440", 2.2));
            }
            Role::HarbourMouth => s.push_str(&station("#e0eef7", SEA_INK, 1.8)),
            Role::Pier => s.push_str(&station("#e3d2a6", "#5a4a30", 1.8)),
            Role::Anchorage => s.push_str(&anchor(x, y, f.ch * 0.26)),
            Role::Sea => {
                let _ = write!(
                    s,
                    r##"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="none" stroke="#ffffff" stroke-width="1.2"/>"##
                );
            }
            Role::Air | Role::Airport => {}
        }
    }
    // The air layer, quiet: thin lines, small dots, airports marked.
    if !air.is_empty() {
        let _ = write!(
            s,
            r#"<path d="{air}" fill="none" stroke="{AIR}" stroke-opacity="0.45" stroke-width="0.8"/>"#
        );
        for p in b.points().filter(|&p| b.is_air(p)) {
            let (x, y) = f.pos(p);
            if b.role(p) == Role::Airport {
                let r = f.ch * 0.3;
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{SKY}" stroke="{AIR}" stroke-width="1.4"/>"#
                );
                s.push_str(&plane_icon(x, y, r * 0.7, AIR));
            } else {
                let _ = write!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="1.8" fill="{AIR}" fill-opacity="0.6"/>"#
                );
            }
        }
    }
}

/// How a piece is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Face {
    /// The viewer's own piece, or a face-up piece it knows.
    Own,
    /// Another side's piece the viewer knows.
    Revealed,
    /// Another side's piece, kind unknown: its back.
    Unknown,
    /// Face down (翻棋): nobody's yet.
    Down,
}

/// The box a piece's label must fit in on `point` (px), and the label's vertical
/// offset from the point: a tile less its padding, the upper part of a ship's hull.
pub(crate) fn label_box(f: &Frame<'_>, point: Point, arm: Arm) -> (f32, f32, f32) {
    if f.board.is_air(point) {
        let (w, h) = f.plane_tile();
        return (w - h * 0.5, h - 4.0, 0.0);
    }
    let (w, h) = f.tile(point);
    if arm == Arm::Navy {
        // The hull narrows below 0.45 h; the box ends at 0.67 h, where it is 0.18 h
        // narrower on each side.
        (w - 2.0 * (3.0 + h * 0.18), h * 0.62, -h * 0.14)
    } else {
        (w - 6.0, h - 5.0, 0.0)
    }
}

/// A piece's label laid out for its tile on `point`: the label, its box, the offset.
pub(crate) fn piece_label(
    f: &Frame<'_>,
    point: Point,
    arm: Arm,
    kind: PieceKind,
) -> (Fitted, (f32, f32), f32) {
    let (w, h, dy) = label_box(f, point, arm);
    let base = if f.board.is_air(point) {
        12.0
    } else {
        (f.ch * 0.36).min(16.0)
    };
    (label::fit(kind, w, h, base), (w, h), dy)
}

/// One tile.
fn tile(s: &mut String, f: &Frame<'_>, piece: &SeenPiece, face: Face) {
    let (x, y) = f.pos(piece.point);
    let plane = f.board.is_air(piece.point);
    let (w, h) = if plane {
        f.plane_tile()
    } else {
        f.tile(piece.point)
    };
    let arm = if plane {
        Arm::Air
    } else if piece.arm == Arm::Air {
        Arm::Army
    } else {
        piece.arm
    };
    let seat = piece.owner.map_or("#4e3d24", colour);
    let (fill, stroke) = match face {
        Face::Own => (
            if plane {
                SKY.to_owned()
            } else {
                "#fffdf6".to_owned()
            },
            seat.to_owned(),
        ),
        Face::Revealed => (tint(seat, 0.82), seat.to_owned()),
        Face::Unknown => (seat.to_owned(), seat.to_owned()),
        Face::Down => ("url(#facedown)".to_owned(), "#4e3d24".to_owned()),
    };
    let who = match (piece.owner, face) {
        (None, _) => "face-down piece".to_owned(),
        (Some(o), _) => format!(
            "{o}'s {}",
            piece
                .kind
                .map_or("piece (unknown)".to_owned(), |k| k.id().replace('_', " "))
        ),
    };
    let class = match face {
        Face::Own => "own",
        Face::Revealed => "revealed",
        Face::Unknown => "unknown",
        Face::Down => "facedown",
    };
    // For front ends: where the piece stands, its owner and its kind — only what the
    // view holds, as the title already says it.
    let _ = write!(
        s,
        r#"<g class="piece {class}" data-at="{}""#,
        escape(f.board.name_of(piece.point))
    );
    if let Some(o) = piece.owner {
        let _ = write!(s, r#" data-owner="{o}""#);
    }
    if let Some(k) = piece.kind {
        let _ = write!(s, r#" data-kind="{}""#, k.id());
    }
    let _ = write!(
        s,
        r#"><title>{}: {}</title>"#,
        escape(f.board.name_of(piece.point)),
        escape(&who)
    );
    let lift = if plane {
        (3.0, 4.0, 0.25)
    } else {
        (1.2, 1.8, 0.2)
    };
    let _ = write!(
        s,
        r##"<g fill="#000000" fill-opacity="{}">{}</g>"##,
        lift.2,
        shape(arm, x + lift.0, y + lift.1, w, h)
    );
    let _ = write!(
        s,
        r#"<g fill="{fill}" stroke="{stroke}" stroke-width="1.8">{}</g>"#,
        shape(arm, x, y, w, h)
    );
    match (face, piece.kind) {
        (Face::Unknown, _) => {
            // The back of a piece: an inner line; a ship's back shows waves, a plane's
            // a wing.
            let _ = write!(
                s,
                r##"<g fill="none" stroke="#ffffff" stroke-opacity="0.55" stroke-width="1">{}</g>"##,
                shape(arm, x, y, w - 6.0, h - 6.0)
            );
            if plane {
                s.push_str(&plane_icon(x, y, h * 0.36, "#ffffff"));
            }
        }
        (Face::Own | Face::Revealed, Some(kind)) => {
            let (fit, _, dy) = piece_label(f, piece.point, piece.arm, kind);
            text_lines(s, &fit, x, y + dy, seat, true);
            if face == Face::Revealed {
                let _ = write!(
                    s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="3.2" fill="{seat}" stroke="#ffffff" stroke-width="1"/>"##,
                    x + w / 2.0 - 1.0,
                    y - h / 2.0 + 1.0
                );
            }
        }
        _ => {}
    }
    s.push_str("</g>");
}

/// The pieces and the highlights of the last move and combat.
fn pieces(s: &mut String, f: &Frame<'_>, scene: &Scene<'_>, opts: &SvgOptions) {
    if opts.highlight {
        if let Some((at, _)) = scene.last_combat {
            let (x, y) = f.pos(at);
            let r = f.cw.max(f.ch) * if f.board.is_air(at) { 0.4 } else { 0.56 };
            let mut d = String::new();
            for i in 0..16 {
                let a = std::f32::consts::PI * i as f32 / 8.0;
                let rr = if i % 2 == 0 { r } else { r * 0.72 };
                let _ = write!(
                    d,
                    "{}{:.1} {:.1}",
                    if i == 0 { 'M' } else { 'L' },
                    x + rr * a.cos(),
                    y + rr * a.sin()
                );
            }
            let _ = write!(
                s,
                r#"<path class="last-combat" d="{d}Z" fill="{COMBAT}" fill-opacity="0.35" stroke="{COMBAT}" stroke-width="1.5"/>"#
            );
        }
        if let Some((from, _)) = scene.last_move {
            let (x, y) = f.pos(from);
            let (w, h) = if f.board.is_air(from) {
                f.plane_tile()
            } else {
                f.tile(from)
            };
            let _ = write!(
                s,
                r#"<rect class="last-move" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4" fill="none" stroke="{MOVE}" stroke-width="2.2" stroke-dasharray="4 3"/>"#,
                x - w / 2.0 - 3.0,
                y - h / 2.0 - 3.0,
                w + 6.0,
                h + 6.0
            );
        }
    }
    let face = |p: &SeenPiece| match (p.owner, p.kind) {
        (None, _) => Face::Down,
        (Some(_), None) => Face::Unknown,
        (Some(o), Some(_)) if Some(o) == scene.army => Face::Own,
        (Some(_), Some(_)) => Face::Revealed,
    };
    for p in scene.pieces.iter().filter(|p| !f.board.is_air(p.point)) {
        tile(s, f, p, face(p));
    }
    for p in scene.pieces.iter().filter(|p| f.board.is_air(p.point)) {
        tile(s, f, p, face(p));
    }
    if opts.highlight {
        if let Some((from, Some(to))) = scene.last_move {
            let ((x1, y1), (x2, y2)) = (f.pos(from), f.pos(to));
            let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
            let cut = (f.ch * 0.3).min(len / 3.0);
            let (ux, uy) = ((x2 - x1) / len, (y2 - y1) / len);
            let _ = write!(
                s,
                r#"<path class="last-move" d="M{:.1} {:.1}L{:.1} {:.1}" stroke="{MOVE}" stroke-width="3.5" stroke-opacity="0.9" stroke-linecap="round" marker-end="url(#arrow)"/>"#,
                x1 + ux * cut,
                y1 + uy * cut,
                x2 - ux * cut,
                y2 - uy * cut
            );
        }
    }
}

/// The legend below the board; returns the new height.
fn legend(s: &mut String, f: &Frame<'_>, scene: Option<&Scene<'_>>, top: f32) -> f32 {
    let b = f.board;
    type Swatch = Box<dyn Fn(f32, f32) -> String>;
    let mut items: Vec<(Swatch, &str)> = Vec::new();
    let own_tile = |owner: Side, kind: Option<PieceKind>, face: Face| -> Swatch {
        Box::new(move |x: f32, y: f32| {
            let (w, h) = (30.0, 20.0);
            let seat = colour(owner);
            let (fill, stroke) = match face {
                Face::Revealed => (tint(seat, 0.82), seat.to_owned()),
                Face::Unknown => (seat.to_owned(), seat.to_owned()),
                Face::Down => ("url(#facedown)".to_owned(), "#4e3d24".to_owned()),
                Face::Own => ("#fffdf6".to_owned(), seat.to_owned()),
            };
            let mut out = format!(
                r#"<g fill="{fill}" stroke="{stroke}" stroke-width="1.6">{}</g>"#,
                shape(Arm::Army, x, y, w, h)
            );
            if let Some(k) = kind {
                text_lines(
                    &mut out,
                    &label::fit(k, w - 4.0, h - 4.0, 12.0),
                    x,
                    y,
                    seat,
                    true,
                );
            }
            out
        })
    };
    if let Some(sc) = scene {
        let mine = sc.army.unwrap_or(sc.seat);
        let other = sc
            .sides
            .iter()
            .copied()
            .find(|&o| o != mine && (sc.sides.len() < 4 || o != opposite(mine)))
            .unwrap_or(Side::North);
        if sc.army.is_some() {
            items.push((
                own_tile(mine, Some(PieceKind::Engineer), Face::Own),
                "your piece",
            ));
        }
        if !sc.deals
            || sc
                .pieces
                .iter()
                .any(|p| p.owner.is_some() && p.kind.is_none())
        {
            items.push((own_tile(other, None, Face::Unknown), "enemy, unknown"));
        }
        items.push((
            own_tile(other, Some(PieceKind::Engineer), Face::Revealed),
            "enemy, revealed",
        ));
        if sc.deals || sc.pieces.iter().any(|p| p.owner.is_none()) {
            items.push((own_tile(Side::South, None, Face::Down), "face down 暗子"));
        }
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r#"<path d="M{:.1} {y:.1}H{:.1}" stroke="{MOVE}" stroke-width="3.5" marker-end="url(#arrow)"/>"#,
                    x - 15.0,
                    x + 10.0
                )
            }),
            "last move",
        ));
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="10" fill="{COMBAT}" fill-opacity="0.35" stroke="{COMBAT}" stroke-width="1.5"/>"#)
            }),
            "last combat",
        ));
    }
    let has = |r: Role| b.points().any(|p| b.role(p) == r);
    items.push((
        Box::new(|x: f32, y: f32| {
            format!(r##"<path d="M{:.1} {y:.1}H{:.1}" stroke="{RAIL}" stroke-width="5"/><path d="M{:.1} {y:.1}H{:.1}" stroke="#f3ead2" stroke-width="1.6" stroke-dasharray="6 6"/>"##, x - 15.0, x + 15.0, x - 15.0, x + 15.0)
        }),
        "railway 铁路",
    ));
    items.push((
        Box::new(|x: f32, y: f32| {
            format!(
                r#"<path d="M{:.1} {y:.1}H{:.1}" stroke="{ROAD}" stroke-width="1.4"/>"#,
                x - 15.0,
                x + 15.0
            )
        }),
        "road 公路",
    ));
    if has(Role::Camp) {
        items.push((
            Box::new(|x: f32, y: f32| format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="10" fill="{STATION}" stroke="{ROAD}" stroke-width="1.8"/>"#)),
            "camp 行营",
        ));
    }
    if has(Role::Hq) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r#"<rect x="{:.1}" y="{:.1}" width="30" height="20" rx="7" fill="{STATION}" stroke="{ROAD}" stroke-width="1.8"/>"#, x - 15.0, y - 10.0)
            }),
            "HQ 大本营",
        ));
    }
    if !f.bands.is_empty() {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="30" height="20" fill="{RIVER}"/>{}"#,
                    x - 15.0,
                    y - 10.0,
                    mountain(x, y + 2.0, 9.0)
                )
            }),
            "front line, mountain 山界",
        ));
    }
    if b.points().any(|p| b.is_land(p) && b.side_of(p).is_none()) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="30" height="20" rx="4" fill="{CENTRE}" stroke="{LAND_EDGE}" stroke-width="1.5"/>"#,
                    x - 15.0,
                    y - 10.0
                )
            }),
            "centre 中央",
        ));
    }
    if has(Role::Stronghold) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r##"<rect x="{:.1}" y="{:.1}" width="30" height="20" rx="3" fill="#f3e2b8" stroke="#7a6440" stroke-width="2.2"/>"##, x - 15.0, y - 10.0)
            }),
            "stronghold 据点",
        ));
    }
    if b.points().any(|p| b.is_sea(p)) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r#"<rect x="{:.1}" y="{:.1}" width="30" height="20" fill="{WATER}"/>"#,
                    x - 15.0,
                    y - 10.0
                )
            }),
            "sea 海",
        ));
    }
    if has(Role::Anchorage) {
        items.push((
            Box::new(|x: f32, y: f32| anchor(x, y, 10.0)),
            "anchorage 锚地",
        ));
    }
    if has(Role::HarbourMouth) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r##"<rect x="{:.1}" y="{:.1}" width="30" height="20" rx="3" fill="#e0eef7" stroke="{SEA_INK}" stroke-width="1.8"/>"##, x - 15.0, y - 10.0)
            }),
            "harbour mouth 海口",
        ));
    }
    if has(Role::Pier) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r##"<rect x="{:.1}" y="{:.1}" width="30" height="20" rx="3" fill="#e3d2a6" stroke="#5a4a30" stroke-width="1.8"/>"##, x - 15.0, y - 10.0)
            }),
            "pier, bridge 码头",
        ));
    }
    if b.points().any(|p| b.is_air(p)) {
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r#"<path d="M{:.1} {y:.1}H{:.1}" stroke="{AIR}" stroke-opacity="0.6" stroke-width="0.8"/><circle cx="{x:.1}" cy="{y:.1}" r="1.8" fill="{AIR}"/>"#, x - 15.0, x + 15.0)
            }),
            "air line 航线",
        ));
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="10" fill="{SKY}" stroke="{AIR}" stroke-width="1.4"/>{}"#, plane_icon(x, y, 7.0, AIR))
            }),
            "airport 机场",
        ));
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r#"<g fill="{SKY}" stroke="{}" stroke-width="1.6">{}</g>"#,
                    colour(Side::South),
                    shape(Arm::Air, x, y, 30.0, 16.0)
                )
            }),
            "plane 飞机",
        ));
        items.push((
            Box::new(|x: f32, y: f32| {
                format!(
                    r##"<g fill="#fffdf6" stroke="{}" stroke-width="1.6">{}</g>"##,
                    colour(Side::South),
                    shape(Arm::Navy, x, y, 30.0, 20.0)
                )
            }),
            "ship 舰艇",
        ));
    }
    let per_row = (((f.width - 2.0 * 12.0) / 150.0).floor() as usize).max(2);
    let item_w = (f.width - 2.0 * 12.0) / per_row as f32;
    let row_h = 28.0;
    let y0 = top + 4.0;
    // One group, with the height where it starts: a page may show the board and its
    // legend apart (the web page puts the legend beside the board).
    let _ = write!(s, r#"<g class="legend" data-top="{top:.0}">"#);
    for (i, (swatch, text)) in items.iter().enumerate() {
        let (col, row) = (i % per_row, i / per_row);
        let x = 12.0 + col as f32 * item_w + 18.0;
        let y = y0 + row as f32 * row_h + row_h / 2.0;
        s.push_str(&swatch(x, y));
        let fit = label::fit_text(text, item_w - 42.0, 16.0, 12.0);
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="{:.1}" fill="{INK}">{}</text>"#,
            x + 24.0,
            y + 0.36 * fit.size,
            fit.size,
            escape(text)
        );
    }
    s.push_str("</g>");
    y0 + items.len().div_ceil(per_row) as f32 * row_h + 8.0
}

/// The side across the board.
fn opposite(side: Side) -> Side {
    match side {
        Side::South => Side::North,
        Side::North => Side::South,
        Side::East => Side::West,
        Side::West => Side::East,
    }
}
