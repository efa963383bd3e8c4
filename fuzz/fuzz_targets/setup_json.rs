//! Setups: any JSON deploys or is refused, and a refused deployment changes nothing.
#![no_main]
use junqi::{Game, Side};
use junqi_fuzz::{check_record, snapshot, unchanged};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let presets = ["classic", "siguo", "siguo-2p", "sanjun-modern"];
    let mut game = Game::new(presets[choice as usize % presets.len()], 1).unwrap();
    let side = Side::ALL[(choice as usize / 4) % 4];
    let before = snapshot(&game);
    match game.deploy_json(side, text) {
        Ok(_) => check_record(&game),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            assert!(unchanged(&game, &before), "a refused deployment changed the game");
        }
    }
});
