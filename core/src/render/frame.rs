//! Where things go on the picture: the board turned to a seat, cell sizes, the gaps of
//! the front line, and the coordinates along the edges.
//!
//! The board's drawing grid has South's back row at `y = 0`, West on the left. A seat
//! sees its own side at the bottom: North's view is turned half round, East's and
//! West's a quarter (so East sees South on its left, as it does at the table).

use crate::board::{Board, Point};
use crate::piece::Side;

/// Screen direction (dx, dy; y down) from the board's centre towards a side's edge,
/// before turning.
fn home(side: Side) -> (i32, i32) {
    match side {
        Side::South => (0, 1),
        Side::North => (0, -1),
        Side::East => (1, 0),
        Side::West => (-1, 0),
    }
}

/// The grid seen from a seat: maps board `(x, y)` to screen `(column, row)`.
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    seat: Side,
    w: i32,
    h: i32,
}

impl Turn {
    /// The turn that puts `seat` at the bottom of a `w`×`h` grid.
    pub fn new(seat: Side, (w, h): (u8, u8)) -> Turn {
        Turn {
            seat,
            w: w as i32,
            h: h as i32,
        }
    }

    /// Screen columns and rows.
    pub fn dims(self) -> (usize, usize) {
        match self.seat {
            Side::South | Side::North => (self.w as usize, self.h as usize),
            Side::East | Side::West => (self.h as usize, self.w as usize),
        }
    }

    /// Screen cell of a board cell.
    pub fn cell(self, (x, y): (u8, u8)) -> (usize, usize) {
        let (x, y, w, h) = (x as i32, y as i32, self.w, self.h);
        let (c, r) = match self.seat {
            Side::South => (x, h - 1 - y),
            Side::North => (w - 1 - x, y),
            Side::East => (y, x),
            Side::West => (h - 1 - y, w - 1 - x),
        };
        (c as usize, r as usize)
    }

    /// Screen direction towards `side`'s edge, seen from this seat.
    pub fn towards(self, side: Side) -> (i32, i32) {
        let (dx, dy) = home(side);
        match self.seat {
            Side::South => (dx, dy),
            Side::North => (-dx, -dy),
            // East at the bottom: what was on the right is now down, the top is right.
            Side::East => (-dy, dx),
            Side::West => (dy, -dx),
        }
    }
}

/// A gap between two screen rows (or columns) where the sides' halves meet: the front
/// line, drawn as a river band.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    /// Whether the band runs across the picture (between rows) or down it.
    pub across: bool,
    /// Where the band starts and ends (y, or x, in px).
    pub from: f32,
    /// End of the band.
    pub to: f32,
    /// The screen row (or column) before the band.
    pub after: usize,
}

/// Everything about where things are drawn.
#[derive(Clone, Debug)]
pub struct Frame<'a> {
    /// The board.
    pub board: &'a Board,
    /// The turn.
    pub turn: Turn,
    /// Cell width and height in px.
    pub cw: f32,
    /// Cell height.
    pub ch: f32,
    col_x: Vec<f32>,
    row_y: Vec<f32>,
    /// Front-line bands.
    pub bands: Vec<Band>,
    /// Total width of the board area, margins included.
    pub width: f32,
    /// Bottom of the board area, margins included.
    pub height: f32,
    /// Top of the board area (below the caption).
    pub top: f32,
    /// Offset (px) at which the air layer is drawn from the surface point below it.
    pub air: (f32, f32),
}

/// Margin around the board for the coordinates.
pub const MARGIN: f32 = 30.0;

impl<'a> Frame<'a> {
    /// The frame of `board` seen from `seat`, the board starting `top` px down.
    pub fn new(board: &'a Board, seat: Side, top: f32) -> Frame<'a> {
        let turn = Turn::new(seat, board.grid_size());
        // A board with halves on the left and right (四国) is drawn with square cells, so
        // that its four arms are equal whichever seat looks; two-sided boards with the
        // flatter cells of a printed board.
        let square = board
            .points()
            .any(|p| matches!(board.side_of(p), Some(Side::East | Side::West)));
        let (cw, ch) = if square { (52.0, 52.0) } else { (62.0, 44.0) };
        let (cols, rows) = turn.dims();
        // Which sides own each screen row and column (land points only).
        let mut row_sides = vec![Vec::new(); rows];
        let mut col_sides = vec![Vec::new(); cols];
        for p in board.points().filter(|&p| board.is_land(p)) {
            let (c, r) = turn.cell(board.coords(p));
            row_sides[r].push(board.side_of(p));
            col_sides[c].push(board.side_of(p));
        }
        let front = |a: &Vec<Option<Side>>, b: &Vec<Option<Side>>| {
            let only = |v: &Vec<Option<Side>>| {
                let first = (*v.first()?)?;
                v.iter().all(|s| *s == Some(first)).then_some(first)
            };
            matches!((only(a), only(b)), (Some(x), Some(y)) if x != y)
        };
        let gap_r = ch * 0.8;
        let gap_c = cw * 0.8;
        let mut bands = Vec::new();
        let left = MARGIN + cw / 2.0;
        let mut col_x = Vec::with_capacity(cols);
        let mut x = left;
        for c in 0..cols {
            if c > 0 && front(&col_sides[c - 1], &col_sides[c]) {
                bands.push(Band {
                    across: false,
                    from: x - cw / 2.0,
                    to: x - cw / 2.0 + gap_c,
                    after: c - 1,
                });
                x += gap_c;
            }
            col_x.push(x);
            x += cw;
        }
        let mut row_y = Vec::with_capacity(rows);
        let mut y = top + MARGIN + ch / 2.0;
        for r in 0..rows {
            if r > 0 && front(&row_sides[r - 1], &row_sides[r]) {
                bands.push(Band {
                    across: true,
                    from: y - ch / 2.0,
                    to: y - ch / 2.0 + gap_r,
                    after: r - 1,
                });
                y += gap_r;
            }
            row_y.push(y);
            y += ch;
        }
        let width = x - cw / 2.0 + MARGIN;
        let height = y - ch / 2.0 + MARGIN;
        Frame {
            board,
            turn,
            cw,
            ch,
            col_x,
            row_y,
            bands,
            width,
            height,
            top,
            air: (cw * 0.3, -ch * 0.32),
        }
    }

    /// Centre of a screen cell.
    pub fn cell_centre(&self, (c, r): (usize, usize)) -> (f32, f32) {
        (self.col_x[c], self.row_y[r])
    }

    /// Where a point is drawn (air positions up and to the right of the point below).
    pub fn pos(&self, p: Point) -> (f32, f32) {
        let (x, y) = self.cell_centre(self.turn.cell(self.board.coords(p)));
        if self.board.is_air(p) {
            (x + self.air.0, y + self.air.1)
        } else {
            (x, y)
        }
    }

    /// Screen cell of a point.
    pub fn cell(&self, p: Point) -> (usize, usize) {
        self.turn.cell(self.board.coords(p))
    }

    /// Left edge, right edge, top and bottom of the board's cells.
    pub fn extent(&self) -> (f32, f32, f32, f32) {
        // An empty board has no cells: its extent is the margin's corner.
        let first = |v: &[f32], d: f32| v.first().map_or(MARGIN, |x| x - d / 2.0);
        let last = |v: &[f32], d: f32| v.last().map_or(MARGIN, |x| x + d / 2.0);
        (
            first(&self.col_x, self.cw),
            last(&self.col_x, self.cw),
            first(&self.row_y, self.ch),
            last(&self.row_y, self.ch),
        )
    }

    /// Whether a point's tile stands upright: the points of a half that lies to the
    /// left or right of the viewer (四国's side arms), like a piece set down facing
    /// its owner.
    pub fn upright(&self, p: Point) -> bool {
        self.board
            .side_of(p)
            .is_some_and(|s| self.turn.towards(s).0 != 0)
    }

    /// Tile size (w, h) of a piece on a surface point.
    pub fn tile(&self, p: Point) -> (f32, f32) {
        let (w, h) = (self.cw * 0.82, self.ch * 0.64);
        let (w, h) = if self.cw == self.ch {
            (self.cw * 0.84, self.ch * 0.58)
        } else {
            (w, h)
        };
        if self.upright(p) {
            (h, w)
        } else {
            (w, h)
        }
    }

    /// Tile size of a plane (on an air position): smaller, so that the piece below shows.
    pub fn plane_tile(&self) -> (f32, f32) {
        (self.cw * 0.6, self.ch * 0.42)
    }

    /// The coordinates along the edges: `(text, x, y)` for each label. A screen column
    /// is labelled with the letters its points' names share (`c` for `c1`…`c12`), or
    /// else the digits; rows likewise; columns below and above the lowest and highest
    /// point, rows left and right of the outermost points (so that 四国's cross is
    /// labelled along its arms).
    pub fn coordinates(&self) -> Vec<(String, f32, f32)> {
        let (cols, rows) = self.turn.dims();
        let mut by_col: Vec<Vec<Point>> = vec![Vec::new(); cols];
        let mut by_row: Vec<Vec<Point>> = vec![Vec::new(); rows];
        for p in self.board.points() {
            let (c, r) = self.cell(p);
            by_col[c].push(p);
            by_row[r].push(p);
        }
        let mut out = Vec::new();
        let pad = 14.0;
        for (c, pts) in by_col.iter().enumerate() {
            let Some(text) = self.shared_part(pts) else {
                continue;
            };
            let (lo, hi) = snap(pts.iter().map(|&p| self.cell(p).1), rows);
            out.push((
                text.clone(),
                self.col_x[c],
                self.row_y[lo] - self.ch / 2.0 - pad + 4.0,
            ));
            out.push((
                text,
                self.col_x[c],
                self.row_y[hi] + self.ch / 2.0 + pad + 4.0,
            ));
        }
        for (r, pts) in by_row.iter().enumerate() {
            let Some(text) = self.shared_part(pts) else {
                continue;
            };
            let (lo, hi) = snap(pts.iter().map(|&p| self.cell(p).0), cols);
            out.push((
                text.clone(),
                self.col_x[lo] - self.cw / 2.0 - pad,
                self.row_y[r] + 4.0,
            ));
            out.push((
                text,
                self.col_x[hi] + self.cw / 2.0 + pad,
                self.row_y[r] + 4.0,
            ));
        }
        out
    }

    /// The letters (else the digits) every point's name in `pts` shares.
    fn shared_part(&self, pts: &[Point]) -> Option<String> {
        let parts: Vec<(&str, &str)> = pts
            .iter()
            .map(|&p| split_name(self.board.name_of(p)))
            .collect();
        let first = parts.first()?;
        if !first.0.is_empty() && parts.iter().all(|p| p.0 == first.0) {
            return Some(first.0.to_owned());
        }
        if !first.1.is_empty() && parts.iter().all(|p| p.1 == first.1) {
            return Some(first.1.to_owned());
        }
        None
    }
}

/// The first and last of `cells` (screen rows or columns out of `n`), moved out to the
/// edge of the board when they are one cell short of it, so that the labels of a
/// rectangular board line up along its edges while those of 四国's arms follow the
/// cross.
fn snap(cells: impl Iterator<Item = usize> + Clone, n: usize) -> (usize, usize) {
    let lo = cells.clone().min().unwrap_or(0);
    let hi = cells.max().unwrap_or(0);
    (
        if lo <= 1 { 0 } else { lo },
        if hi + 2 >= n { n.saturating_sub(1) } else { hi },
    )
}

/// A point name's letters and digits: `"c12^"` → `("c", "12")`; `("", "")` if the name
/// is not of that form.
fn split_name(name: &str) -> (&str, &str) {
    let name = name.trim_end_matches('^');
    let cut = name
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(name.len());
    let (letters, digits) = name.split_at(cut);
    if digits.chars().all(|c| c.is_ascii_digit()) {
        (letters, digits)
    } else {
        ("", "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_seat_sees_its_side_at_the_bottom() {
        for seat in Side::ALL {
            assert_eq!(Turn::new(seat, (17, 17)).towards(seat), (0, 1), "{seat}");
        }
        // East sees South on its left, as at the table.
        assert_eq!(
            Turn::new(Side::East, (17, 17)).towards(Side::South),
            (-1, 0)
        );
        assert_eq!(Turn::new(Side::West, (17, 17)).towards(Side::South), (1, 0));
        let board = Board::preset("siguo").unwrap();
        for seat in Side::ALL {
            let turn = Turn::new(seat, board.grid_size());
            let back = board
                .points()
                .filter(|&p| board.side_of(p) == Some(seat) && board.depth(p) == 1);
            for p in back {
                assert_eq!(
                    turn.cell(board.coords(p)).1,
                    16,
                    "{seat} {}",
                    board.name_of(p)
                );
            }
        }
    }

    /// 四国 is a square cross: square cells, and the four arms the same size from every
    /// seat.
    #[test]
    fn siguo_is_a_cross_of_four_equal_arms() {
        let board = Board::preset("siguo").unwrap();
        for seat in Side::ALL {
            let frame = Frame::new(&board, seat, 0.0);
            assert_eq!(frame.cw, frame.ch);
            let mut sizes: Vec<(f32, f32)> = Side::ALL
                .iter()
                .map(|&side| {
                    let pts: Vec<(f32, f32)> = board
                        .points()
                        .filter(|&p| board.side_of(p) == Some(side))
                        .map(|p| frame.pos(p))
                        .collect();
                    let span = |f: fn(&(f32, f32)) -> f32| {
                        let v: Vec<f32> = pts.iter().map(f).collect();
                        v.iter().cloned().fold(f32::MIN, f32::max)
                            - v.iter().cloned().fold(f32::MAX, f32::min)
                    };
                    let (w, h) = (span(|p| p.0), span(|p| p.1));
                    (w.max(h), w.min(h))
                })
                .collect();
            sizes.dedup();
            assert_eq!(sizes.len(), 1, "{seat}: {sizes:?}");
        }
    }

    #[test]
    fn names_split_into_letters_and_digits() {
        assert_eq!(split_name("c12^"), ("c", "12"));
        assert_eq!(split_name("q7"), ("q", "7"));
        assert_eq!(split_name("x-1"), ("", ""));
    }

    #[test]
    fn classic_has_one_front_line_band() {
        let board = Board::preset("classic").unwrap();
        for seat in [Side::South, Side::North] {
            let frame = Frame::new(&board, seat, 0.0);
            assert_eq!(frame.bands.len(), 1);
            assert!(frame.bands[0].across && frame.bands[0].after == 5);
        }
        let siguo = Board::preset("siguo").unwrap();
        assert!(Frame::new(&siguo, Side::East, 0.0).bands.is_empty());
    }
}
