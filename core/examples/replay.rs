//! Replays record files and prints the state they reach:
//! `cargo run --release --example replay -- RECORD.json...`.
//!
//! For each record (JSON text as `Game::record` writes it, from any API: Rust, C,
//! Python, JavaScript), one line of compact JSON: `{"record", "result", "views",
//! "public"}` — the record written again by the replayed game, the result, every
//! seat's view (`View::to_json`) and the public view. Two games in the same state print
//! the same line; tests/wasm/run.sh compares it with what the WebAssembly package saw.

use junqi::{Game, Record};

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: replay RECORD.json...");
        std::process::exit(2);
    }
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&path, &e));
        let game = Record::from_json(&text).and_then(|r| Game::from_record(&r)).unwrap_or_else(|e| fail(&path, &e));
        let rules = game.rules();
        let views: serde_json::Map<String, serde_json::Value> =
            rules.sides().iter().map(|&s| (s.name().to_owned(), game.view(s).to_json(rules))).collect();
        let line = serde_json::json!({
            "record": game.record().to_json(),
            "result": game.result(),
            "views": views,
            "public": game.public_view().to_json(rules),
        });
        println!("{line}");
    }
}

fn fail(path: &str, e: &dyn std::fmt::Display) -> ! {
    eprintln!("{path}: {e}");
    std::process::exit(1);
}
