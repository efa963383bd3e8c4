//! Pictures: SVG drawings of a board and of a player's view.
//!
//! One renderer for every front end (Rust, C, Python, the CLI). A view is drawn from the
//! seat of its player — its own army at the bottom, North's view turned half round,
//! East's and West's (四国) a quarter — with the coordinates of the notation along the
//! edges. Railways are bold, roads thin, camps circles, headquarters double-framed; the
//! front line of a two-sided board is a river band with mountains where no road
//! crosses, 四国's neutral centre a panel of its own; on the land-sea-air board the sea
//! is water with anchors on the anchorages, piers and bridges, and a quiet air layer
//! (thin lines, airports marked) where planes are drawn as pills above the ground.
//!
//! Pieces carry their Chinese names in a CJK font stack ([`FONTS`]), laid out to fit
//! their tiles (see [`label`]); the viewer's pieces are white, another side's unknown
//! pieces show their backs in that side's colour (the shape still tells a ship or a
//! plane, which is public), revealed ones are tinted and marked with a dot, face-down
//! pieces (翻棋) are hatched. The last move is an arrow from a dashed frame, the last
//! combat a burst. A picture of a view is made from the [`View`] alone, so it shows
//! exactly what the player may know.
//!
//! For front ends the pictures are clickable: above the board lies one invisible hit
//! target per point, `<rect class="pt" data-point="c3" fill="none"
//! pointer-events="all"/>` (air positions last, over the ground), and every piece is a
//! `<g class="piece own|revealed|unknown|facedown" data-at="c3" data-owner="south"
//! data-kind="engineer">` group — `data-kind` only where the view knows the kind. They
//! draw nothing: a page finds the clicked point with `closest("[data-point]")` and
//! marks points with CSS.
//!
//! ```
//! use junqi::{render::SvgOptions, Game, Side};
//! let mut game = Game::new("classic", 7)?;
//! game.deploy_random(Side::South, 1)?;
//! game.deploy_random(Side::North, 2)?;
//! let svg = game.view(Side::North).to_svg(game.rules(), &SvgOptions::default());
//! assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
//! assert!(svg.contains("north's view"));
//! // The empty board from South's seat, without the legend:
//! let plain = SvgOptions { legend: false, ..SvgOptions::default() };
//! let board = game.board().to_svg(Side::South, &plain);
//! assert!(board.contains("大本营"));
//! # Ok::<(), junqi::GameError>(())
//! ```

pub mod frame;
pub mod label;
mod svg;
pub(crate) mod text;

pub use svg::{escape, FONTS};

use crate::board::Board;
use crate::piece::Side;
use crate::referee::View;
use crate::rules::RuleSet;

/// What a drawing includes. `SvgOptions::default()` draws everything at scale 1.
///
/// As JSON (the C API, [`SvgOptions::from_json`]) every field is optional:
/// `{"legend": false, "scale": 0.5}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SvgOptions {
    /// A legend below the board (default true).
    pub legend: bool,
    /// The coordinates of the notation along the edges (default true).
    pub coordinates: bool,
    /// A caption above the board: rule set, seat, ply, who is to act (default true).
    pub caption: bool,
    /// The last move and the last combat highlighted (default true).
    pub highlight: bool,
    /// Scale of the `width` and `height` attributes (the drawing's own units are
    /// unchanged; default 1.0).
    pub scale: f32,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            legend: true,
            coordinates: true,
            caption: true,
            highlight: true,
            scale: 1.0,
        }
    }
}

impl SvgOptions {
    /// Options without legend and caption: the board alone, with its coordinates.
    pub fn compact() -> Self {
        SvgOptions {
            legend: false,
            caption: false,
            ..SvgOptions::default()
        }
    }

    /// Options from JSON such as `{"legend": false}`; missing fields keep their
    /// defaults, unknown fields and a scale that is not a positive number are refused.
    pub fn from_json(json: &str) -> Result<SvgOptions, SvgOptionsError> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| SvgOptionsError(e.to_string()))?;
        if !value.is_object() {
            return Err(SvgOptionsError(format!(
                "expected a JSON object, not {value}"
            )));
        }
        let options: SvgOptions =
            serde_json::from_value(value).map_err(|e| SvgOptionsError(e.to_string()))?;
        if !(options.scale.is_finite() && options.scale > 0.0) {
            return Err(SvgOptionsError(format!(
                "scale must be a positive number, not {}",
                options.scale
            )));
        }
        Ok(options)
    }
}

/// SVG options that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid SVG options: {0}")]
pub struct SvgOptionsError(pub String);

/// The kind of each refusal (docs/errors.md; the table is [`crate::ErrorKind`]'s).
impl crate::error::Error for SvgOptionsError {
    fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind;
        ErrorKind::InvalidJson
    }
}

/// A player's view as SVG, drawn from that player's seat: see the [module
/// docs](self). Uses only what the view holds.
pub fn view_svg(view: &View, rules: &RuleSet, options: &SvgOptions) -> String {
    let scene = svg::Scene::of_view(view, rules.name(), rules.sides(), rules.deals());
    let title = format!("{} — {}'s view", rules.name(), view.player);
    svg::draw(rules.board(), view.player, Some(&scene), &title, options)
}

/// The empty board as SVG, as `seat` sees it (South: the board as printed).
pub fn board_svg(board: &Board, seat: Side, options: &SvgOptions) -> String {
    let title = format!("board {} seen from {seat}", board.name());
    svg::draw(board, seat, None, &title, options)
}

impl View {
    /// This view as SVG, from the player's seat (see [`view_svg`]).
    pub fn to_svg(&self, rules: &RuleSet, options: &SvgOptions) -> String {
        view_svg(self, rules, options)
    }
}

impl Board {
    /// The empty board as SVG, as `seat` sees it (see [`board_svg`]).
    pub fn to_svg(&self, seat: Side, options: &SvgOptions) -> String {
        board_svg(self, seat, options)
    }
}

#[cfg(test)]
mod tests {
    use super::frame::Frame;
    use super::label::MIN_SIZE;
    use super::svg::piece_label;
    use crate::piece::Arm;
    use crate::{PieceKind, RuleSet};

    #[test]
    fn options_read_from_json() {
        use super::SvgOptions;
        let o = SvgOptions::from_json(r#"{"legend": false, "scale": 0.5}"#).unwrap();
        assert_eq!(
            o,
            SvgOptions {
                legend: false,
                scale: 0.5,
                ..SvgOptions::default()
            }
        );
        assert_eq!(SvgOptions::from_json("{}").unwrap(), SvgOptions::default());
        let unknown = SvgOptions::from_json(r#"{"legnd": false}"#).unwrap_err();
        assert!(unknown.to_string().contains("legnd"), "{unknown}");
        assert!(SvgOptions::from_json(r#"{"scale": 0}"#).is_err());
        assert!(SvgOptions::from_json("[").is_err());
        assert!(SvgOptions::from_json("[]").is_err());
    }

    /// Every point of every preset's board is one click target (`data-point`) exactly
    /// once in a view's picture, from every seat, and every piece names its point.
    #[test]
    fn every_point_is_a_click_target_once() {
        use crate::Game;
        for name in RuleSet::preset_names() {
            let mut game = Game::new(name, 3).unwrap();
            if !game.rules().deals() {
                for (i, &side) in game.rules().sides().to_vec().iter().enumerate() {
                    game.deploy_random(side, i as u64 + 1).unwrap();
                }
            }
            let board = game.rules().board();
            for &seat in game.rules().sides() {
                let view = game.view(seat);
                let svg = view.to_svg(game.rules(), &super::SvgOptions::default());
                let mut seen: Vec<&str> = svg
                    .split(r#"data-point=""#)
                    .skip(1)
                    .map(|rest| &rest[..rest.find('"').unwrap()])
                    .collect();
                seen.sort_unstable();
                let mut names: Vec<&str> = board.points().map(|p| board.name_of(p)).collect();
                names.sort_unstable();
                assert_eq!(seen, names, "{name} from {seat}");
                assert_eq!(svg.matches(r#"class="pt""#).count(), names.len());
                assert!(!view.pieces.is_empty(), "{name}");
                for p in &view.pieces {
                    let at = format!(r#"data-at="{}""#, board.name_of(p.point));
                    assert_eq!(svg.matches(&at).count(), 1, "{name} {seat} {at}");
                }
                // A kind is written only where the view knows it.
                let known = view.pieces.iter().filter(|p| p.kind.is_some()).count();
                assert_eq!(svg.matches("data-kind=").count(), known, "{name} {seat}");
            }
        }
    }

    /// Every piece of every preset fits every tile it could stand on, seen from every
    /// seat, at a readable size: the label's computed width and height against the box.
    #[test]
    fn every_label_fits_its_tile() {
        for name in RuleSet::preset_names() {
            let rules = RuleSet::preset(name).unwrap();
            let board = rules.board();
            for &seat in rules.sides() {
                let frame = Frame::new(board, seat, 0.0);
                for p in board.points() {
                    for (kind, _) in rules.army() {
                        let arm = kind.arm();
                        if board.is_air(p) != (arm == Arm::Air) {
                            continue;
                        }
                        let (fit, (w, h), _) = piece_label(&frame, p, arm, kind);
                        assert!(
                            fit.width() <= w + 0.01 && fit.height() <= h + 0.01,
                            "{name} {seat} {} {kind}: {fit:?} in {w}x{h}",
                            board.name_of(p)
                        );
                        assert!(fit.size >= MIN_SIZE, "{name} {seat} {kind}: {fit:?}");
                        assert!(!fit.lines.is_empty());
                    }
                }
            }
        }
        // The longest name is shortened only where it must be.
        let rules = RuleSet::preset("sanjun-modern").unwrap();
        let frame = Frame::new(rules.board(), crate::Side::South, 0.0);
        let e5 = rules.board().point("e5").unwrap();
        let (fit, _, _) = piece_label(&frame, e5, Arm::Army, PieceKind::CorpsCommander);
        assert_eq!(fit.lines.concat(), "兵团司令");
    }
}
