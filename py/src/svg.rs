//! SVG drawings of a board and of a player's view, for Jupyter (`_repr_svg_`).

use std::fmt::Write;

use junqi::{Board, EdgeKind, PieceKind, Point, Role, Side};

const CELL_W: f32 = 64.0;
const CELL_H: f32 = 40.0;
const MARGIN: f32 = 28.0;
/// Air positions (海陆空三军棋) share their grid cell with the surface point below: they
/// are drawn this far up and to the right of it, so that a plane over a piece shows.
const AIR_DX: f32 = 20.0;
const AIR_DY: f32 = -14.0;

fn colour(side: Side) -> &'static str {
    match side {
        Side::South => "#c0392b",
        Side::North => "#2c3e80",
        Side::East => "#1e8449",
        Side::West => "#7d3c98",
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Draws the board, and pieces as `(point, owner, kind if known)`.
pub fn render(board: &Board, pieces: &[(Point, Option<Side>, Option<PieceKind>)]) -> String {
    let (w, h) = board.grid_size();
    let pos = |p: Point| {
        let (x, y) = board.coords(p);
        let (dx, dy) = if board.is_air(p) { (AIR_DX, AIR_DY) } else { (0.0, 0.0) };
        (MARGIN + x as f32 * CELL_W + dx, MARGIN + (h as f32 - 1.0 - y as f32) * CELL_H + dy)
    };
    let air = board.points().any(|p| board.is_air(p));
    let width = MARGIN * 2.0 + (w.max(1) as f32 - 1.0) * CELL_W + if air { AIR_DX } else { 0.0 };
    let height = MARGIN * 2.0 + (h.max(1) as f32 - 1.0) * CELL_H;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="#f7f1e1"/>"##
    );
    for a in board.points() {
        for &(b, kind) in board.neighbours(a) {
            if b <= a {
                continue;
            }
            let ((x1, y1), (x2, y2)) = (pos(a), pos(b));
            let (stroke, width, dash) = match kind {
                EdgeKind::Railway => ("#222", 3.0, ""),
                EdgeKind::Sea | EdgeKind::Coast => ("#5d8aa8", 1.0, ""),
                EdgeKind::Air => ("#a9c4dc", 1.0, r#" stroke-dasharray="3 3""#),
                _ => ("#999", 1.0, ""),
            };
            let _ = write!(
                s,
                r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{width}"{dash}/>"#
            );
        }
    }
    for p in board.points() {
        let (x, y) = pos(p);
        let _ = match board.role(p) {
            Role::Camp => write!(s, r##"<circle cx="{x}" cy="{y}" r="15" fill="#fff" stroke="#555"/>"##),
            Role::Hq => write!(
                s,
                r##"<rect x="{}" y="{}" width="40" height="26" rx="10" fill="#fff" stroke="#555"/>"##,
                x - 20.0,
                y - 13.0
            ),
            Role::Air | Role::Airport => write!(s, r##"<circle cx="{x}" cy="{y}" r="2" fill="#7fa7c9"/>"##),
            Role::Sea | Role::Anchorage => write!(s, r##"<circle cx="{x}" cy="{y}" r="3" fill="#5d8aa8"/>"##),
            _ => write!(s, r##"<circle cx="{x}" cy="{y}" r="3" fill="#555"/>"##),
        };
    }
    for &(p, owner, kind) in pieces {
        let (x, y) = pos(p);
        let label = kind.map_or("?".to_owned(), |k| {
            k.chinese_names().first().map_or(k.short().to_owned(), |n| (*n).to_owned())
        });
        let who = owner.map_or("face down".to_owned(), |o| o.to_string());
        let title = kind.map_or_else(|| format!("{who} (unknown)"), |k| format!("{who} {k}"));
        // A plane's box is smaller, so that it does not hide the piece below it.
        let (bw, bh) = if board.is_air(p) { (36.0, 18.0) } else { (48.0, 24.0) };
        let _ = write!(
            s,
            r##"<g><title>{} {}</title><rect x="{}" y="{}" width="{bw}" height="{bh}" rx="3" fill="#fff" stroke="{c}" stroke-width="2"/><text x="{x}" y="{}" text-anchor="middle" fill="{c}">{}</text></g>"##,
            escape(board.name_of(p)),
            escape(&title),
            x - bw / 2.0,
            y - bh / 2.0,
            y + 4.0,
            escape(&label),
            c = owner.map_or("#7f8c8d", colour),
        );
    }
    s.push_str("</svg>");
    s
}
