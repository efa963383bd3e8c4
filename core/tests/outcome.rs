//! How games end, case by case (core/src/position/outcome.rs and end.rs): the words of
//! each end reason, rewards, resignation and time-outs in each phase and seat, and the
//! players one action puts out together. Written for the survivors of scripts/mutants
//! on those two files (issue #45); each test names the mutants it kills.
mod common;
use std::sync::Arc;

use common::{arrange, pt};
use junqi::{Action, CombatOutcome, EndReason, Game, GameResult, Phase, PieceKind::*, Point, Position, RuleSet, Side, Side::*, SideSet};

fn rules_from(base: &str, options: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::from_json(&format!(r#"{{"extends": "{base}", "name": "t", "options": {options}}}"#)).unwrap())
}

fn mv(r: &RuleSet, text: &str) -> Action {
    Action::parse(r.board(), text).unwrap()
}

fn team(sides: &[Side]) -> SideSet {
    sides.iter().copied().collect()
}

#[test]
fn every_end_reason_has_its_words() {
    // What the CLI, the web page and the Python and JavaScript packages show. Kills
    // `replace EndReason::words -> &'static str with "" / "xyzzy"`.
    let words = [
        (EndReason::FlagCaptured, "the flag was captured"),
        (EndReason::NoLegalMove, "no piece left that can move"),
        (EndReason::NoCaptureLimit, "too many moves in a row without a capture"),
        (EndReason::Resignation, "resignation"),
        (EndReason::Agreement, "a draw was agreed"),
        (EndReason::Timeouts, "too many time-outs"),
        (EndReason::NoMovablePieces, "no movable pieces left"),
        (EndReason::CommanderCaptured, "the commander was captured"),
        (EndReason::MutualElimination, "both armies lost their last movable pieces at once"),
        (EndReason::Escape, "a player left the game"),
    ];
    assert_eq!(words.len(), EndReason::ALL.len(), "a reason without words here");
    for (reason, text) in words {
        assert_eq!(reason.words(), text, "{reason:?}");
    }
}

#[test]
fn rewards_winner_and_draws() {
    // +1 to each winner (a team whole), -1 to every other side, 0 for a draw. Kills
    // `replace GameResult::reward -> f32 with 0.0 / 1.0 / -1.0`, `delete - in
    // GameResult::reward` and `replace GameResult::is_draw -> bool with true`.
    let won = GameResult { winners: SideSet::single(North), reason: EndReason::FlagCaptured };
    assert_eq!((won.reward(North), won.reward(South)), (1.0, -1.0));
    assert!(!won.is_draw());
    assert_eq!(won.winner(), Some(North));
    let teams = GameResult { winners: team(&[East, West]), reason: EndReason::NoLegalMove };
    let rewards: Vec<f32> = [South, East, North, West].iter().map(|&s| teams.reward(s)).collect();
    assert_eq!(rewards, [-1.0, 1.0, -1.0, 1.0]);
    assert!(!teams.is_draw());
    assert_eq!(teams.winner(), None, "a team is not a single winner");
    let draw = GameResult { winners: SideSet::EMPTY, reason: EndReason::Agreement };
    assert_eq!((draw.reward(North), draw.reward(South)), (0.0, 0.0));
    assert!(draw.is_draw());
    assert_eq!(draw.winner(), None);
}

fn four_player_game(seed: u64) -> Game {
    let mut g = Game::new("siguo", seed).unwrap();
    for (i, s) in [South, East, North, West].into_iter().enumerate() {
        g.deploy_random(s, seed + i as u64).unwrap();
    }
    g
}

#[test]
fn a_resignation_passes_the_turn_only_from_the_side_to_act_and_is_no_ply() {
    // Two players: the resignation ends the game and is not a ply (the platform's
    // 30-ply quick-win rule counts plies). Kills `replace == with != in
    // Position::resign` on `self.phase == Phase::Reaction` (which ran the end of a
    // reaction, and so a ply, in every phase).
    let mut g = Game::new("classic", 4).unwrap();
    g.deploy_random(South, 1).unwrap();
    g.deploy_random(North, 2).unwrap();
    for _ in 0..3 {
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
    }
    let ply = g.position().ply();
    assert_eq!(g.to_act(), Some(North));
    g.resign(South).unwrap();
    let r = g.result().unwrap();
    assert_eq!((r.winner(), r.reason), (Some(North), EndReason::Resignation));
    assert_eq!(g.position().ply(), ply, "a resignation is no ply");

    // Four players, South to act. East resigns out of turn: South still acts, and no
    // ply is counted. Kills `replace == with != in Position::resign` on
    // `self.to_act() == Some(side)` and `replace && with || in Position::resign`.
    let mut g = four_player_game(7);
    assert_eq!(g.to_act(), Some(South));
    let ply = g.position().ply();
    g.resign(East).unwrap();
    assert!(g.result().is_none());
    assert_eq!(g.to_act(), Some(South), "a side out of turn resigning passes no turn");
    assert_eq!(g.position().ply(), ply);
    // South resigns on its turn: the turn goes to the next side still in, North (East
    // is out). Kills `replace == with != in Position::resign` on `self.phase ==
    // Phase::Move` (the turn stayed with the side that went out).
    g.resign(South).unwrap();
    assert!(g.result().is_none());
    assert_eq!(g.to_act(), Some(North));
    assert_eq!(g.position().ply(), ply);
    // North resigns: South's team is out, East and West win (East resigned, yet a
    // team wins whole).
    g.resign(North).unwrap();
    let r = g.result().unwrap();
    assert_eq!((r.winners, r.reason), (team(&[East, West]), EndReason::Resignation));
}

/// sanjun-book with North's fighter attacking South's submarine on e7, which evades:
/// South now owes the step away (Phase::Reaction).
fn pending_reaction(options: &str) -> (Arc<RuleSet>, Position) {
    let r = rules_from("sanjun-book", options);
    let mut pos = arrange(
        &r,
        &[
            ("e7", South, Submarine),
            ("e6", South, Destroyer),
            ("e1", South, Flag),
            ("b2", South, Infantry),
            ("e14^", North, Fighter),
            ("e14", North, Flag),
            ("b13", North, Infantry),
        ],
        North,
    );
    let out = pos.play(mv(&r, "e14^-e7^")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Evade));
    assert_eq!((pos.phase(), pos.to_act(), pos.ply()), (Phase::Reaction, Some(South), 0));
    (r, pos)
}

#[test]
fn a_resignation_during_a_reaction_lapses_it_then_counts() {
    // The reacting side resigns: the step lapses (the submarine stays, North's ply is
    // counted) and South is out. Kills `replace == with != in Position::resign` on
    // `self.phase == Phase::Over` (which returned after the lapse, the resignation lost).
    let (r, mut pos) = pending_reaction("{}");
    let (_, result) = pos.resign(South).unwrap();
    let result = result.expect("the resignation ends the game");
    assert_eq!((result.winner(), result.reason), (Some(North), EndReason::Resignation));
    assert_eq!(pos.ply(), 1, "the lapsed reaction ends North's ply");
    assert_eq!(pos.piece_at(pt(&r, "e7")), Some((South, Submarine)));

    // The lapse itself ends the game (the 1-ply draw rule): the resignation comes too
    // late and the draw stands. Kills `replace || with && in Position::resign`, which
    // put the resigning side out of a finished game and made the draw a win.
    let (_, mut pos) = pending_reaction(r#"{"no_capture_draw_plies": 1}"#);
    let (_, result) = pos.resign(North).unwrap();
    let result = result.expect("over");
    assert_eq!((result.winners, result.reason), (SideSet::EMPTY, EndReason::NoCaptureLimit));
    assert_eq!(pos.phase(), Phase::Over);
}

#[test]
fn a_time_out_during_a_reaction_lapses_it_and_counts_toward_the_limit() {
    // No time-out limit: the step lapses, North's ply ends, South moves. Kills
    // `replace == with != in Position::time_out` on `self.phase == Phase::Reaction`
    // (the reaction stayed pending).
    let (r, mut pos) = pending_reaction("{}");
    let t = pos.time_out().unwrap();
    assert_eq!((t.side, t.count, t.result), (South, 1, None));
    assert_eq!((pos.phase(), pos.to_act(), pos.ply()), (Phase::Move, Some(South), 1));
    assert_eq!(pos.piece_at(pt(&r, "e7")), Some((South, Submarine)));

    // A limit of 2: the first time-out does not put South out. Kills `replace >= with
    // < in Position::time_out` (the reaction's `count >= m`).
    let (_, mut pos) = pending_reaction(r#"{"max_timeouts": 2}"#);
    let t = pos.time_out().unwrap();
    assert_eq!((t.count, t.result), (1, None));
    assert_eq!(pos.phase(), Phase::Move);

    // A limit of 1: South is out at once and the game is over for good (the same `!=`
    // mutant ran the lapse on the finished game, back into the move phase).
    let (_, mut pos) = pending_reaction(r#"{"max_timeouts": 1}"#);
    let t = pos.time_out().unwrap();
    let result = t.result.expect("out after one time-out");
    assert_eq!((result.winner(), result.reason), (Some(North), EndReason::Timeouts));
    assert_eq!((pos.phase(), pos.to_act()), (Phase::Over, None));
}

/// Two neighbouring posts of the board, and points at least two steps from both.
fn posts_and_free(rules: &RuleSet) -> (Point, Point, Vec<Point>) {
    let b = rules.board();
    let post = |x: Point| b.role(x) == junqi::Role::Post;
    let (p, q) = b
        .points()
        .filter(|&p| post(p))
        .find_map(|p| b.neighbours(p).iter().find(|(q, _)| post(*q)).map(|&(q, _)| (p, q)))
        .unwrap();
    let free = b
        .points()
        .filter(|&x| x != p && x != q && b.neighbours(x).iter().all(|(y, _)| *y != p && *y != q))
        .collect();
    (p, q, free)
}

#[test]
fn a_side_put_out_for_two_reasons_at_once_is_reported_once() {
    // 四国 with lose_without_movable_pieces: South's commander takes East's flag, East's
    // only piece, so East is out for the flag and for having no movable piece. The
    // game goes on (North and West still play): East is reported once, for the flag.
    // Kills `replace && with || in Losers::push` (East listed twice) and `replace !=
    // with == in Losers::push` (also the same side again, and never another).
    let rules = rules_from("siguo", r#"{"lose_without_movable_pieces": true}"#);
    let (p, q, free) = posts_and_free(&rules);
    let pieces = vec![
        (p, South, Commander),
        (q, East, Flag),
        (free[0], South, Flag),
        (free[7], North, Flag),
        (free[14], North, Engineer),
        (free[21], West, Flag),
        (free[28], West, Engineer),
    ];
    let mut pos = Position::from_arrangement(rules.clone(), &pieces, South).unwrap();
    let out = pos.play(Action::Move { from: p, to: q }).unwrap();
    assert_eq!(out.result, None);
    assert_eq!(out.eliminated.iter().collect::<Vec<_>>(), vec![(East, EndReason::FlagCaptured)]);
    assert_eq!(pos.to_act(), Some(North), "East is out: North is next");
}

#[test]
fn a_team_that_wins_as_its_partner_goes_out_wins_for_the_enemy_s_reason() {
    // The same capture, but North (South's partner) and West have no movable piece
    // either: East (its flag), North and West (no movable pieces) go out at once.
    // South's team wins whole, for why the beaten side went out: East's flag. Kills
    // `delete ! in Position::eliminate_together` (the partner's reason).
    let rules = rules_from("siguo", r#"{"lose_without_movable_pieces": true}"#);
    let (p, q, free) = posts_and_free(&rules);
    let pieces = vec![
        (p, South, Commander),
        (q, East, Flag),
        (free[0], South, Flag),
        (free[7], North, Flag),
        (free[14], West, Flag),
    ];
    let mut pos = Position::from_arrangement(rules.clone(), &pieces, South).unwrap();
    let out = pos.play(Action::Move { from: p, to: q }).unwrap();
    let result = out.result.expect("over");
    assert_eq!((result.winners, result.reason), (team(&[South, North]), EndReason::FlagCaptured));
}

#[test]
fn both_armies_out_in_one_capture_is_a_mutual_elimination_draw() {
    // 翻棋: the two commanders trade, the last movable pieces of both armies: a draw
    // whoever attacks (core/tests/colour_symmetry.rs has the long form). Kills
    // `replace > with == / < in Position::eliminate_together` (the count of sides put
    // out together) and `replace != with == in Losers::push` (only the first listed).
    let rules = RuleSet::preset("fanqi").unwrap();
    for (attacker, defender, from, to) in [(South, North, "d10", "c11"), (North, South, "c11", "c10")] {
        let mut pieces = vec![(from, attacker, Commander), (to, defender, Commander)];
        for (side, flag, mines) in [(South, "b1", ["a1", "c1", "e1"]), (North, "d12", ["a12", "c12", "e12"])] {
            pieces.push((flag, side, Flag));
            pieces.extend(mines.iter().map(|m| (*m, side, Mine)));
        }
        let mut pos = arrange(&rules, &pieces, attacker);
        let out = pos.play(mv(&rules, &format!("{from}-{to}"))).unwrap();
        assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Both));
        let result = out.result.expect("the game is over");
        assert_eq!((result.winners, result.reason), (SideSet::EMPTY, EndReason::MutualElimination), "{attacker} attacking");
    }
}
