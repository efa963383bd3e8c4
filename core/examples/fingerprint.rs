//! A behaviour fingerprint for refactoring: for every preset and a few seeds, plays a
//! seeded random game through `Game` and hashes, at every ply, the legal actions (in
//! notation), the position string, the acting player's observation tensor, and at the
//! end the record's actions and result. Run it before and after a change that must not
//! change behaviour, and compare:
//!
//! ```sh
//! cargo run --release -p junqi --example fingerprint
//! ```
//!
//! It keeps to calls that change rarely (`Game::new`, `deploy_random`, `play`,
//! `legal_actions`, `position_string`, `observation`, `record`), so that an older
//! checkout can run the same file.
use junqi::{Game, RuleSet, Rng};
use std::hash::Hasher;

struct Fnv(u64);
impl Hasher for Fnv {
    fn finish(&self) -> u64 { self.0 }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes { self.0 ^= *b as u64; self.0 = self.0.wrapping_mul(0x100000001b3); }
    }
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut total = Fnv(0xcbf29ce484222325);
    for name in RuleSet::preset_names() {
        let (mut moves, mut strings, mut tensors, mut records) =
            (Fnv(0xcbf29ce484222325), Fnv(0xcbf29ce484222325), Fnv(0xcbf29ce484222325), Fnv(0xcbf29ce484222325));
        for seed in 0..12u64 {
            let mut game = Game::new(name, seed).unwrap();
            for (i, side) in game.rules().clone().sides().iter().enumerate() {
                if game.phase() == junqi::Phase::Deploy {
                    game.deploy_random(*side, seed * 31 + i as u64).unwrap();
                }
            }
            let mut rng = Rng::new(seed ^ 0xABCD);
            let mut plies = 0;
            while game.result().is_none() && plies < 300 {
                let actions = game.legal_actions();
                for a in &actions { moves.write(a.to_notation(game.board()).as_bytes()); }
                let text = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.position_string()))
                    .unwrap_or_else(|_| "PANIC".into());
                strings.write(text.as_bytes());
                let side = game.to_act().unwrap();
                for x in game.observation(side) { tensors.write(&x.to_bits().to_le_bytes()); }
                if actions.is_empty() { break; }
                game.play(actions[rng.below(actions.len())]).unwrap();
                plies += 1;
            }
            let rec: serde_json::Value = serde_json::from_str(&game.record().to_json()).unwrap();
            records.write(rec["actions"].to_string().as_bytes());
            records.write(format!("{:?}", game.result().map(|r| (r.winners, r.reason.name()))).as_bytes());
        }
        println!("{name:14} moves {:016x} strings {:016x} tensors {:016x} records {:016x}", moves.finish(), strings.finish(), tensors.finish(), records.finish());
        for h in [moves.finish(), strings.finish(), tensors.finish(), records.finish()] { total.write(&h.to_le_bytes()); }
    }
    println!("total {:016x}", total.finish());
}
