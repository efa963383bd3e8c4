//! A short tour of the API: `cargo run --release --example tour`.
//!
//! Loads the classic rule set, deploys both sides, plays a few moves by notation and by
//! action index, and prints what each player sees.

use junqi::{Game, PieceKind, RuleSet, Side};

fn main() -> Result<(), junqi::GameError> {
    let rules = RuleSet::preset("classic")?;
    println!(
        "{}: {} points, {} pieces a side, {} actions in the action space",
        rules.name(),
        rules.board().len(),
        rules.army_size(),
        rules.action_space()
    );
    println!(
        "engineer vs mine: {}; commander vs bomb: {}",
        junqi::resolve(&rules, PieceKind::Engineer, PieceKind::Mine),
        junqi::resolve(&rules, PieceKind::Commander, PieceKind::Bomb)
    );

    let mut game = Game::with_rules(rules, 2026);
    game.deploy_random(Side::South, 1)?;
    game.deploy_random(Side::North, 2)?;
    for _ in 0..6 {
        let ids = game.legal_action_ids();
        let report = game.play_id(ids[ids.len() / 2])?;
        for e in &report.public {
            println!("everyone sees: {}", e.describe(game.board()));
        }
    }
    match game.play_notation("a1-e12") {
        Err(e) => println!("refused: {e}"),
        Ok(_) => unreachable!("a1-e12 is never a move"),
    }
    print!("{}", game.view(Side::North).render(game.board()));
    Ok(())
}
