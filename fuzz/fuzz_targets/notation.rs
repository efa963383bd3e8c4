//! Notation: any text is an action of the game or refused, and a refused one changes
//! nothing; parsing and printing round-trip.
#![no_main]
use junqi::{Action, Game};
use junqi_fuzz::{snapshot, unchanged};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let presets = junqi::RuleSet::preset_names();
    let rules = junqi::RuleSet::preset(presets[choice as usize % presets.len()]).unwrap();
    let mut game = Game::with_rules(rules.clone(), choice as u64);
    if game.phase() == junqi::Phase::Deploy {
        for (i, &side) in rules.sides().iter().enumerate() {
            game.deploy_random(side, i as u64).unwrap();
        }
    }
    if let Ok(a) = Action::parse(game.board(), text) {
        assert_eq!(Action::parse(game.board(), &a.to_notation(game.board())).unwrap(), a);
    }
    let before = snapshot(&game);
    if game.play_notation(text).is_err() {
        assert!(unchanged(&game, &before), "a refused action changed the game");
    } else {
        junqi_fuzz::check_record(&game);
    }
});
