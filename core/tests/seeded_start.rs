//! One seeded start: the same seed starts the same game in every layer. The position
//! strings of tests/golden/random-start.txt are checked here (Rust: `Game` and
//! `Position`, each game of a `VectorEnv`), by tests/c/game.c (C), by
//! tests/python/test_seeded_start.py (Python and the RL adapters) and by the
//! WebAssembly package's tests. Regenerate the file (after a deliberate change of what
//! a seed means) with `JUNQI_WRITE_GOLDEN=1 cargo test -p junqi --test seeded_start`.

use junqi::{Game, Position, RuleSet, VectorEnv};

const GOLDEN: &str = "../tests/golden/random-start.txt";
/// Seeds spread over the range, the largest included.
const SEEDS: [u64; 3] = [0, 7, u64::MAX];

fn lines() -> String {
    let mut out = String::from(
        "# The seeded start of each preset and seed: preset, seed, position string (see core/tests/seeded_start.rs).\n",
    );
    for name in RuleSet::preset_names() {
        for seed in SEEDS {
            let game = Game::random_start(RuleSet::preset(name).unwrap(), seed).unwrap();
            out.push_str(&format!("{name}\t{seed}\t{}\n", game.position_string()));
        }
    }
    out
}

#[test]
fn the_golden_starts_are_todays() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    let now = lines();
    if std::env::var_os("JUNQI_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let golden = std::fs::read_to_string(&path).unwrap();
    assert_eq!(golden, now, "a seed now starts another game: regenerate {GOLDEN} only if that is intended");
}

#[test]
fn game_position_and_vector_env_start_alike() {
    for name in RuleSet::preset_names() {
        let rules = RuleSet::preset(name).unwrap();
        for seed in SEEDS {
            let game = Game::random_start(rules.clone(), seed).unwrap();
            assert!(game.position().same_state(&Position::random_start(rules.clone(), seed)), "{name} {seed}");
            // Deploying each side's seeded setup, in any order, is the same start.
            let mut by_hand = Game::with_rules(rules.clone(), seed);
            for &side in rules.sides().iter().rev() {
                if by_hand.may_deploy(side).is_ok() {
                    by_hand.deploy_start(side).unwrap();
                }
            }
            assert_eq!(by_hand.position_string(), game.position_string(), "{name} {seed}");
        }
        let env = VectorEnv::new(rules.clone(), 3, 11).unwrap();
        for i in 0..env.len() {
            let game = env.game(i);
            let again = Game::random_start(rules.clone(), game.seed()).unwrap();
            assert_eq!(again.record().to_json(), game.record().to_json(), "{name} game {i}");
        }
    }
}
