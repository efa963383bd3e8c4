//! Piece labels that fit their tile.
//!
//! A label's width is estimated from its characters (a CJK ideograph is one em wide in
//! every CJK font of the font stack; other characters are counted at a generous 0.65
//! em), and the label is laid out in the tile: on one line, on two lines (a
//! four-character name such as 兵团司令), or one character a line in an upright tile.
//! If the full name would be smaller than [`MIN_SIZE`], the short form is used
//! (战斗机 → 战机); as a last resort the text shrinks until it fits.

use crate::piece::PieceKind;

/// Smallest font size (px) a label is drawn at before the short form is tried.
pub const MIN_SIZE: f32 = 10.0;

/// Line height as a multiple of the font size.
pub const LINE: f32 = 1.12;

/// A label laid out for a tile.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The lines, top to bottom.
    pub lines: Vec<String>,
    /// The font size in px.
    pub size: f32,
}

impl Fitted {
    /// Width of the widest line, in px.
    pub fn width(&self) -> f32 {
        self.lines
            .iter()
            .map(|l| text_width(l, self.size))
            .fold(0.0, f32::max)
    }

    /// Height of the lines, in px.
    pub fn height(&self) -> f32 {
        self.lines.len() as f32 * self.size * LINE
    }
}

/// Whether a character is drawn one em wide (CJK ideographs and full-width forms).
fn is_wide(c: char) -> bool {
    matches!(c as u32, 0x2E80..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFF60)
}

/// Estimated advance width of `text` at `size` px.
pub fn text_width(text: &str, size: f32) -> f32 {
    text.chars()
        .map(|c| if is_wide(c) { 1.0 } else { 0.65 })
        .sum::<f32>()
        * size
}

/// The name drawn on a piece: its first Chinese name.
pub fn full_name(kind: PieceKind) -> &'static str {
    kind.chinese_names()
        .first()
        .copied()
        .unwrap_or_else(|| kind.short())
}

/// The short form players write for a long name, if it has one.
pub fn short_name(kind: PieceKind) -> Option<&'static str> {
    use PieceKind::*;
    Some(match kind {
        CorpsCommander => "兵团",
        Fighter => "战机",
        Recon => "侦察",
        Battleship => "主力",
        Cruiser => "巡洋",
        Destroyer => "驱逐",
        Submarine => "潜艇",
        Gunboat => "炮舰",
        MachineGun => "机枪",
        AaGun => "高炮",
        AtomicCannon => "原炮",
        Commander => "司",
        ArmyCommander => "军",
        DivisionCommander => "师",
        BrigadeCommander => "旅",
        RegimentCommander => "团",
        BattalionCommander => "营",
        CompanyCommander => "连",
        PlatoonLeader => "排",
        Engineer => "工",
        Mine => "雷",
        Bomb => "炸",
        Flag => "旗",
        _ => return None,
    })
}

/// Splits `text` into `n` lines of nearly equal length (in characters).
fn split(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let per = chars.len().div_ceil(n.max(1)).max(1);
    chars.chunks(per).map(|c| c.iter().collect()).collect()
}

/// The largest size (≤ `base`) at which `lines` fit a `w`×`h` box.
fn size_for(lines: &[String], w: f32, h: f32, base: f32) -> f32 {
    let widest = lines.iter().map(|l| text_width(l, 1.0)).fold(0.0, f32::max);
    let by_w = if widest > 0.0 { w / widest } else { base };
    let by_h = h / (lines.len() as f32 * LINE);
    base.min(by_w).min(by_h)
}

/// Lays `text` out in a `w`×`h` box: the layout with the largest font size, if that
/// size is at least `min`. `upright` tiles (taller than wide) stack the characters.
fn layout(text: &str, w: f32, h: f32, base: f32, min: f32, upright: bool) -> Option<Fitted> {
    let n = text.chars().count();
    let mut options = vec![split(text, 1)];
    if n >= 2 {
        options.push(split(text, 2));
    }
    if upright && n >= 3 {
        options.push(split(text, n));
    }
    options
        .into_iter()
        .map(|lines| {
            let size = size_for(&lines, w, h, base);
            Fitted { lines, size }
        })
        .filter(|f| f.size >= min)
        .max_by(|a, b| a.size.total_cmp(&b.size))
}

/// The label of `kind` in a box of `w`×`h` px (the tile less its padding), at most
/// `base` px: the full name if it fits at [`MIN_SIZE`] or more, else the short form,
/// else the full name shrunk to fit.
pub fn fit(kind: PieceKind, w: f32, h: f32, base: f32) -> Fitted {
    let upright = h > w * 1.2;
    let full = full_name(kind);
    layout(full, w, h, base, MIN_SIZE.min(base), upright)
        .or_else(|| {
            short_name(kind).and_then(|s| layout(s, w, h, base, MIN_SIZE.min(base), upright))
        })
        .or_else(|| layout(short_name(kind).unwrap_or(full), w, h, base, 0.0, upright))
        .unwrap_or(Fitted {
            lines: vec![],
            size: base,
        })
}

/// Lays free text (a mark such as 大本营) out in a box, shrinking it to fit.
pub fn fit_text(text: &str, w: f32, h: f32, base: f32) -> Fitted {
    layout(text, w, h, base, 0.0, h > w * 1.2).unwrap_or(Fitted {
        lines: vec![],
        size: base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_ideographs_as_one_em() {
        assert_eq!(text_width("司令", 10.0), 20.0);
        assert_eq!(text_width("A8", 10.0), 13.0);
    }

    #[test]
    fn long_names_wrap_or_shorten() {
        let f = fit(PieceKind::CorpsCommander, 46.0, 24.0, 14.0);
        assert!(f.width() <= 46.0 && f.height() <= 24.0, "{f:?}");
        assert!(f.size >= MIN_SIZE);
        let plane = fit(PieceKind::Fighter, 26.0, 14.0, 12.0);
        assert_eq!(plane.lines, vec!["战机".to_owned()]);
        let upright = fit(PieceKind::Engineer, 24.0, 40.0, 14.0);
        assert_eq!(upright.lines.len(), 2, "{upright:?}");
        // Nothing is too long for a tiny tile: it shrinks.
        let tiny = fit(PieceKind::CorpsCommander, 8.0, 8.0, 14.0);
        assert!(tiny.width() <= 8.0 && tiny.height() <= 8.0);
    }
}
