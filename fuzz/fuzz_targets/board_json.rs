//! Board JSON: any text either loads or is refused; a board that loads draws (text and
//! SVG, from every seat) and names every pair of its action space.
#![no_main]
use junqi::render::{board_svg, SvgOptions};
use junqi::{Board, Game, Side};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(board) = Board::from_json(text) else { return };
    for seat in Side::ALL {
        let _ = board_svg(&board, seat, &SvgOptions::default());
    }
    let game = Game::new("classic", 1).unwrap();
    let _ = game.view(Side::South).render(&board);
    for i in 0..board.move_space() {
        let (a, b) = board.move_at(i).unwrap();
        assert_eq!(board.move_index(a, b), Some(i));
        let _ = board.distance(a, b);
    }
});
