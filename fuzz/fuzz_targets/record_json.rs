//! Records: any text replays or is refused with a record (or rules) error; a record
//! that replays records itself again identically.
#![no_main]
use junqi::{Game, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = junqi::PlayerRecord::from_json(text);
    let Ok(record) = Record::from_json(text) else { return };
    let Ok(game) = Game::from_record(&record) else { return };
    let again = Game::from_record(&game.record()).expect("a replayed game's record replays");
    assert!(again.position().same_state(game.position()));
    junqi_fuzz::check_views(&game);
});
