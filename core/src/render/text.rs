//! The text board: one player's view as lines of text, from its seat (the CLI's
//! pictures and [`View::render`]).

use crate::board::{Board, Point};
use crate::piece::PieceKind;
use crate::referee::View;

impl View {
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
        view_text(self, board)
    }
}

fn view_text(view: &View, board: &Board) -> String {
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
    for piece in &view.pieces {
        // An unknown ship shows its arm (public): `~?`.
        let unknown = if piece.arm == crate::piece::Arm::Navy { "~?" } else { "??" };
        let code = piece.kind.map_or(unknown, PieceKind::short);
        let cell = match piece.owner {
            None => " ## ".to_owned(),
            Some(o) if Some(o) == view.army => format!(" {code} "),
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
