//! What a player deduces in a random game: `cargo run --release --example beliefs [-- RULES SEED PLIES PLAYER]`.
//!
//! Plays a random game for PLIES plies (default classic, seed 7, 80 plies, south), then
//! prints the player's view, its event log, and for every piece it cannot see the
//! candidate kinds, next to what a count-only reasoner would allow.

use junqi::{Beliefs, Game, Rng, Side};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rules = args.first().map_or("classic", String::as_str);
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(7);
    let plies: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(80);
    let player = args.get(3).and_then(|s| Side::from_name(s)).unwrap_or(Side::South);
    let mut game = Game::new(rules, seed).expect("rule set");
    let mut rng = Rng::new(seed);
    if !game.rules().deals() {
        for &side in game.rules().clone().sides() {
            game.deploy_random(side, rng.next_u64()).unwrap();
        }
    }
    // The referee's account of every combat, for the reader (never shown to a player).
    let mut combats = Vec::new();
    for _ in 0..plies {
        if game.result().is_some() {
            break;
        }
        let legal = game.legal_actions();
        let a = legal[rng.below(legal.len())];
        let before = game.position().clone();
        let report = game.play(a).unwrap();
        for e in &report.public {
            if let junqi::Event::Attacked { from, to, .. } | junqi::Event::Struck { from, to, .. } = *e {
                let who = |p| before.piece_at(p).map(|(s, k)| format!("{s} {k}")).unwrap_or_default();
                combats.push(format!(
                    "ply {:>3}: {} [{} against {}]",
                    game.position().ply(),
                    e.describe(game.board()),
                    who(from),
                    who(to)
                ));
            }
        }
    }
    let board = game.board();
    println!(
        "{rules}, seed {seed}, after {} plies, as {player} sees it:\n",
        game.position().ply()
    );
    println!("{}", game.view(player).render(board));
    println!("{player}'s events:");
    for e in game.events(player) {
        println!("  {}", e.describe(board));
    }
    println!("\nthe combats as the referee saw them:");
    for c in &combats {
        println!("  {c}");
    }
    let beliefs: Beliefs = game.beliefs(player);
    println!("\ncandidates of the pieces {player} cannot see (true kind in brackets):");
    for p in board.points() {
        if !beliefs.occupied().contains(p) || beliefs.is_known(p) {
            continue;
        }
        let truth = game
            .position()
            .piece_at(p)
            .map(|(s, k)| format!("{s} {k}"))
            .unwrap_or_default();
        let c: Vec<&str> = beliefs.candidates(p).iter().map(|k| k.id()).collect();
        let moved = if beliefs.has_moved(p) { " moved" } else { "" };
        println!("  {:>4}{moved}: {} [{truth}]", board.name_of(p), c.join(" "));
    }
    let gone = beliefs.off_board();
    if !gone.is_empty() {
        println!("\noff the board:");
        for c in gone {
            let c: Vec<String> = c.iter().map(|(s, k)| format!("{s} {k}")).collect();
            println!("  {}", c.join(" | "));
        }
    }
}
