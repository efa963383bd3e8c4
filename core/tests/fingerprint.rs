//! The rules' fingerprint: 10 000 seeded random games of every preset, every action of
//! every game hashed, compared with `tests/golden/random-fingerprint.txt`. Work on the
//! core's speed (move generation, play, the end checks) must leave what the rules do
//! unchanged; this test says so for some 30 million plies.
//!
//! A game: `Position::random_start(rules, seed)` (the seeded start: deployments, or the
//! 翻棋 deal), then until the game ends (or 3 000 plies) the legal actions, sorted by
//! their ids — so that the order in which move generation finds them does not matter —
//! and one of them drawn with `Rng::new(seed)`; each chosen id is hashed, then the
//! result. The golden file holds the hash after the first 250 games and after all
//! 10 000; a debug build (40× slower) checks the first 250 only.
//!
//! After a change that is meant to change the rules, rewrite the file with
//! `JUNQI_BLESS=1 cargo test --release -p junqi --test fingerprint` and say why in the
//! commit.

use std::collections::BTreeMap;

use junqi::{Action, Position, Rng, RuleSet};

const GAMES: u64 = 10_000;
const FIRST: u64 = 250;
const MAX_PLIES: u32 = 3_000;

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The hashes after `FIRST` and after `games` games of `preset`, and the plies played.
fn fingerprint(preset: &str, games: u64) -> (u64, u64, u64) {
    let rules = RuleSet::preset(preset).unwrap();
    let mut h = Fnv::new();
    let mut first = 0;
    let mut plies = 0u64;
    let mut buf: Vec<Action> = Vec::with_capacity(256);
    let mut ids: Vec<usize> = Vec::with_capacity(256);
    for seed in 0..games {
        let mut pos = Position::random_start(rules.clone(), seed);
        let mut rng = Rng::new(seed);
        while pos.result().is_none() && pos.ply() < MAX_PLIES {
            pos.legal_actions_into(&mut buf);
            if buf.is_empty() {
                break;
            }
            ids.clear();
            ids.extend(buf.iter().map(|a| a.id(&rules).expect("a legal action has an id")));
            ids.sort_unstable();
            let id = ids[rng.below(ids.len())];
            h.word(id as u64);
            pos.play_unchecked(Action::from_id(&rules, id).unwrap());
            plies += 1;
        }
        match pos.result() {
            Some(r) => {
                h.word(r.winners.iter().map(|s| 1u64 << s as u32).sum());
                h.word(r.reason as u64 + 1);
            }
            None => h.word(0),
        }
        if seed + 1 == FIRST {
            first = h.0;
        }
    }
    (first, h.0, plies)
}

fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/random-fingerprint.txt")
}

/// `preset -> (after 250, after 10 000)` from the golden file.
fn golden() -> BTreeMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(golden_path()).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
            (w[0].to_owned(), (hex(w[1]), hex(w[2])))
        })
        .collect()
}

#[test]
fn ten_thousand_random_games_of_every_preset_play_as_they_always_have() {
    let full = !cfg!(debug_assertions) || std::env::var_os("JUNQI_BLESS").is_some();
    let games = if full { GAMES } else { FIRST };
    let presets = RuleSet::preset_names();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(presets.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(preset) = presets.get(i) else { return };
                let f = fingerprint(preset, games);
                results.lock().unwrap().insert(preset.to_string(), f);
            });
        }
    });
    let results = results.into_inner().unwrap();
    if std::env::var_os("JUNQI_BLESS").is_some() {
        let mut text = String::from(
            "# core/tests/fingerprint.rs: preset, the hash of every action of the first 250 and of all\n\
             # 10 000 seeded random games, and the plies of all 10 000.\n",
        );
        for (p, (a, b, plies)) in &results {
            text += &format!("{p:14} {a:016x} {b:016x} {plies}\n");
        }
        std::fs::write(golden_path(), text).unwrap();
        return;
    }
    let golden = golden();
    assert_eq!(golden.len(), presets.len(), "tests/golden/random-fingerprint.txt lists every preset");
    for (p, (first, all, _)) in &results {
        let (g_first, g_all) = golden[p];
        assert_eq!(*first, g_first, "{p}: the first 250 random games play otherwise than they did");
        if full {
            assert_eq!(*all, g_all, "{p}: the 10 000 random games play otherwise than they did");
        }
    }
}
