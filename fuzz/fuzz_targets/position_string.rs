//! Position strings: any text is a position (or view) string or refused with a reason,
//! never a panic; what is read prints back to a string that reads to the same string,
//! and the position it gives plays (legal actions, one action, views) without a panic.
#![no_main]
use junqi::{Phase, Position};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(pos) = Position::from_position_string(text) else { return };
    let printed = pos.position_string();
    let again = Position::from_position_string(&printed).expect("a printed position string reads back");
    assert_eq!(again.position_string(), printed);
    for &side in pos.rules().sides() {
        let view = pos.view_string(side);
        let (seen, whose) = Position::from_view_string_with(pos.rules().clone(), &view).expect("a view string reads back");
        assert_eq!(whose, Some(side));
        assert_eq!(seen.view_string(side), view);
    }
    if pos.phase() != Phase::Over && pos.phase() != Phase::Deploy {
        let legal = pos.legal_actions();
        if let Some(&a) = legal.first() {
            let mut next = pos.clone();
            next.play(a).expect("a legal action plays");
            let _ = next.position_string();
        }
    }
    if let Ok(mut game) = junqi::Game::from_position_string(text, 1) {
        if let Some(side) = game.to_act() {
            let info = game.info_state(side);
            if let Some(&a) = info.legal_actions().first() {
                game.play(a).expect("a legal action plays");
                junqi_fuzz::check_record(&game);
            }
        }
    }
});
