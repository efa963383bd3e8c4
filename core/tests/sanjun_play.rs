//! 海陆空三军棋 movement and mechanisms, one scenario per rule (docs/sanjun.md §4–§6), on positions arranged by hand; and random games of all four presets.
mod common;
use std::sync::Arc;

use common::{arrange, moving_as, names, pt, targets};
use junqi::{Action, EndReason, Game, CombatOutcome, Phase, PieceKind::*, PlayError, RuleSet, Side::*};

fn rules(name: &str) -> Arc<RuleSet> {
    RuleSet::preset(name).unwrap()
}

fn with_options(base: &str, options: &str) -> Arc<RuleSet> {
    Arc::new(RuleSet::from_json(&format!(r#"{{"extends": "{base}", "name": "t", "options": {options}}}"#)).unwrap())
}

fn mv(r: &RuleSet, text: &str) -> Action {
    Action::parse(r.board(), text).unwrap()
}

#[test]
fn a_fighter_is_shot_down_halfway_along_its_run() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[("c1^", South, Fighter), ("e1", South, Flag), ("c10", North, AaGun), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    assert!(!pos.knows(South, pt(&r, "c10")));
    // The run c1^ → c12^ passes over c10, where the aa gun stands.
    let out = pos.play(mv(&r, "c1^-c12^")).unwrap();
    assert_eq!(out.shot_down_at, Some(pt(&r, "c10^")));
    assert!(pos.piece_at(pt(&r, "c1^")).is_none() && pos.piece_at(pt(&r, "c12^")).is_none());
    assert_eq!(pos.piece_at(pt(&r, "c10")), Some((North, AaGun)), "the gun stays");
    assert!(pos.knows(South, pt(&r, "c10")), "the gun is shown to the plane's owner");
    let reveal = out.reveals[0].unwrap();
    assert_eq!((reveal.to, reveal.kind), (Some(South), AaGun));
    // A run that stops short of the gun is a plain move.
    let mut pos = arrange(&r, &[("c1^", South, Fighter), ("e1", South, Flag), ("c10", North, AaGun), ("e14", North, Flag)], South);
    let out = pos.play(mv(&r, "c1^-c8^")).unwrap();
    assert_eq!(out.shot_down_at, None);
    assert_eq!(pos.piece_at(pt(&r, "c8^")), Some((South, Fighter)));
}

/// Where a South fighter flying `run` comes down (if at all) over the North pieces given.
fn shot_down_over(r: &Arc<RuleSet>, run: &str, north: &[(&str, junqi::PieceKind)]) -> Option<String> {
    let from = run.split('-').next().unwrap();
    let mut pieces = vec![(from, South, Fighter), ("h2", South, Flag), ("b13", North, Flag)];
    pieces.extend(north.iter().map(|&(p, k)| (p, North, k)));
    let mut pos = arrange(r, &pieces, South);
    let out = pos.play(mv(r, run)).unwrap();
    match out.shot_down_at {
        Some(at) => {
            let gun = north.iter().map(|&(p, _)| pt(r, p)).find(|&g| pos.knows(South, g));
            assert!(gun.is_some(), "{run}: the gun that fired is shown to the plane's owner");
            assert!(pos.piece_at(pt(r, from)).is_none(), "{run}: the plane is gone");
            Some(r.board().name_of(at).to_owned())
        }
        None => None,
    }
}

#[test]
fn planes_are_shot_down_over_every_point_their_run_passes_over() {
    for preset in ["sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum"] {
        let r = rules(preset);
        let b = r.board();
        // A gunboat on every anchorage (rows 6 and 9, between the air rows 5/7 and
        // 8/10): a run along its column passes over it.
        for anchorage in b.points().filter(|&p| b.role(p) == junqi::Role::Anchorage) {
            let name = b.name_of(anchorage);
            let col = &name[..1];
            let run = format!("{col}1^-{col}12^");
            assert_eq!(shot_down_over(&r, &run, &[(name, Gunboat)]).as_deref(), Some(name), "{preset} {run} over {name}");
        }
        // An aa gun on each land row between air rows (2, 4, 11, 13), and on a row
        // under the air rows (7), in one column.
        for row in ["2", "4", "11", "13"] {
            let gun = format!("d{row}");
            assert_eq!(shot_down_over(&r, "d1^-d14^", &[(&gun, AaGun)]).as_deref(), Some(gun.as_str()), "{preset} over {gun}");
        }
        assert_eq!(shot_down_over(&r, "d1^-d14^", &[("d7", AaGun)]).as_deref(), Some("d7^"));
        // The first gun on the way fires: d4 before d9, d9 before d11.
        assert_eq!(shot_down_over(&r, "d1^-d14^", &[("d9", Gunboat), ("d4", AaGun)]).as_deref(), Some("d4"));
        assert_eq!(shot_down_over(&r, "d1^-d14^", &[("d9", Gunboat), ("d11", AaGun)]).as_deref(), Some("d9"));
        assert_eq!(shot_down_over(&r, "d3^-d5^", &[("d4", AaGun), ("d6", Gunboat)]).as_deref(), Some("d4"));
        // Ending next to a gun, or flying along a row beside it, is not flying over it.
        assert_eq!(shot_down_over(&r, "d1^-d5^", &[("d6", Gunboat)]), None, "{preset}: stops short of d6");
        assert_eq!(shot_down_over(&r, "d7^-d12^", &[("d6", Gunboat)]), None, "{preset}: starts past d6");
        assert_eq!(shot_down_over(&r, "a5^-i5^", &[("d6", Gunboat), ("e4", AaGun)]), None, "{preset}: along row 5");
        assert_eq!(shot_down_over(&r, "d12^-d14^", &[("d11", AaGun)]), None, "{preset}: behind it");
        assert_eq!(shot_down_over(&r, "c1^-c14^", &[("d11", AaGun), ("d9", Gunboat)]), None, "{preset}: beside them");
        // Allies' and own guns never fire.
        let mut pos = arrange(&r, &[("d1^", South, Fighter), ("d6", South, Gunboat), ("h2", South, Flag), ("b13", North, Flag)], South);
        assert_eq!(pos.play(mv(&r, "d1^-d12^")).unwrap().shot_down_at, None);
    }
    // The board data, not a hand list: every surface point of column d below row 14 is
    // passed over by the run d1^ → d14^, in flying order.
    let r = rules("sanjun-modern");
    let b = r.board();
    let over: Vec<&str> = b.passed_over(pt(&r, "d1^"), pt(&r, "d14^")).map(|p| b.name_of(p)).collect();
    assert_eq!(over, ["d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14"]);
    assert_eq!(b.passed_over(pt(&r, "d1^"), pt(&r, "e3^")).count(), 0, "no air line joins them");
}

#[test]
fn planes_fly_straight_over_everything_but_not_onto_their_own_plane() {
    let r = rules("sanjun-modern");
    let pos = arrange(
        &r,
        &[("c3^", South, Fighter), ("c8^", South, Recon), ("c5", North, Infantry), ("e1", South, Flag), ("e14", North, Flag)],
        South,
    );
    let t = targets(&pos, "c3^");
    assert!(t.contains(&"c12^".to_owned()), "flies over its own recon: {t:?}");
    assert!(!t.contains(&"c8^".to_owned()), "may not end on its own plane");
    assert!(t.contains(&"a3^".to_owned()) && t.contains(&"i3^".to_owned()), "along the row too");
    assert!(!t.contains(&"d5^".to_owned()), "a turn needs a new move");
    assert!(t.iter().all(|n| n.ends_with('^')), "planes stay in the air: {t:?}");
}

#[test]
fn an_aa_gun_strikes_a_plane_two_steps_away_but_not_three() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[("c3", South, AaGun), ("e1", South, Flag), ("c5^", North, Fighter), ("d5^", North, Recon), ("e14", North, Flag)],
        South,
    );
    let t = targets(&pos, "c3");
    assert!(t.contains(&"c5^".to_owned()), "distance 2: {t:?}");
    assert!(!t.contains(&"d5^".to_owned()), "distance 3");
    assert!(matches!(pos.check(mv(&r, "c3-d5^")), Err(PlayError::Unreachable { .. })));
    let out = pos.play(mv(&r, "c3-c5^")).unwrap();
    assert!(out.struck);
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Win));
    assert_eq!(pos.piece_at(pt(&r, "c3")), Some((South, AaGun)), "the striker does not move");
    assert!(pos.piece_at(pt(&r, "c5^")).is_none());
    assert!(pos.knows(North, pt(&r, "c3")), "the gun is shown to the plane's owner");
}

#[test]
fn a_recon_scouts_a_mine_privately_and_must_move_away() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[
            ("e1^", South, Recon),
            ("e1", South, Flag),
            ("b2", South, Infantry),
            ("e12", North, Mine),
            ("e14", North, Flag),
            ("b13", North, Infantry),
        ],
        South,
    );
    let north_before = pos.view_pieces(North);
    let out = pos.play(mv(&r, "e1^-e12^")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Repel));
    assert!(pos.knows(South, pt(&r, "e12")), "the recon's owner learns the mine");
    assert_eq!(pos.piece_at(pt(&r, "e12^")), Some((South, Recon)), "the plane stays above its target");
    assert_eq!(out.reveals[0].map(|x| (x.to, x.kind)), Some((Some(South), Mine)));
    // North learned nothing new: its view differs only by where the recon is.
    let north_after = pos.view_pieces(North);
    assert_eq!(north_before.len(), north_after.len());
    assert!(north_after.iter().filter(|p| p.owner == Some(South)).all(|p| p.kind.is_none()));
    pos.play(mv(&r, "b13-b12")).unwrap();
    // South must move the recon away now.
    assert_eq!(pos.obligation(South), Some(pt(&r, "e12^")));
    assert!(pos.legal_actions().iter().all(|a| matches!(a, Action::Move { from, .. } if *from == pt(&r, "e12^"))));
    assert!(matches!(pos.check(mv(&r, "b2-b3")), Err(PlayError::MustMoveAway(_))));
    pos.play(mv(&r, "e12^-e5^")).unwrap();
    pos.play(mv(&r, "b12-b13")).unwrap();
    assert_eq!(pos.obligation(South), None);
    assert!(pos.is_legal(mv(&r, "b2-b3")));
}

#[test]
fn a_submarine_evades_and_its_owner_chooses_the_step() {
    let r = rules("sanjun-book");
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
    assert_eq!(out.reaction_due, Some(pt(&r, "e7")));
    assert_eq!(pos.phase(), Phase::Reaction);
    assert_eq!(pos.to_act(), Some(South), "the submarine's owner reacts");
    assert_eq!(pos.piece_at(pt(&r, "e14^")), Some((North, Fighter)), "the fighter goes back");
    assert_eq!(targets(&pos, "e7"), names(&["d7", "e8", "f7"]), "empty neighbouring sea points");
    assert!(matches!(pos.check(mv(&r, "b2-b3")), Err(PlayError::ReactionPending(_))));
    let step = pos.play(mv(&r, "e7-f7")).unwrap();
    assert!(step.reaction);
    assert_eq!(pos.piece_at(pt(&r, "f7")), Some((South, Submarine)));
    assert_eq!((pos.phase(), pos.to_act()), (Phase::Move, Some(South)), "then South's own turn");
    assert_eq!(pos.ply(), 1, "the reaction belongs to North's ply");

    // sanjun-hk: the submarine evades without a step; modern: the fighter is repelled.
    for (name, outcome) in [("sanjun-hk", CombatOutcome::Evade), ("sanjun-modern", CombatOutcome::Repel)] {
        let r = rules(name);
        let mut pos = arrange(
            &r,
            &[("e7", South, Submarine), ("e1", South, Flag), ("b2", South, Infantry), ("e14^", North, Fighter), ("e14", North, Flag)],
            North,
        );
        let out = pos.play(mv(&r, "e14^-e7^")).unwrap();
        assert_eq!(out.combat.map(|c| c.2), Some(outcome), "{name}");
        assert_eq!((pos.phase(), out.reaction_due), (Phase::Move, None), "{name}");
    }
}

#[test]
fn a_missile_attacking_a_submarine_that_evades_is_spent() {
    let r = rules("sanjun-forum");
    let mut pos = arrange(
        &r,
        &[("e3", South, Missile), ("e1", South, Flag), ("e8", North, Submarine), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "e3-e8")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Evade));
    assert!(pos.piece_at(pt(&r, "e3")).is_none(), "the missile leaves the board");
    assert_eq!(pos.to_act(), Some(North));
    assert_eq!(pos.phase(), Phase::Reaction);
}

#[test]
fn a_battleship_lands_through_a_harbour_mouth_and_captures_the_flag() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[
            ("d9", South, Battleship),
            ("e1", South, Flag),
            ("d14", North, Flag),
            ("h13", North, Infantry),
        ],
        South,
    );
    assert!(targets(&pos, "d9").contains(&"d10".to_owned()), "landing onto its harbour mouth");
    assert!(!targets(&pos, "d9").contains(&"c9".to_owned()), "never onto a pier");
    for (s, n) in [("d9-d10", "h13-h12"), ("d10-d11", "h12-h13"), ("d11-d12", "h13-h12"), ("d12-d13", "h12-h13")] {
        pos.play(mv(&r, s)).unwrap();
        if s == "d10-d11" {
            // Ashore a ship steps by road only: no railway runs.
            let t = targets(&pos, "d11");
            assert!(!t.contains(&"f11".to_owned()), "{t:?}");
        }
        pos.play(mv(&r, n)).unwrap();
    }
    let out = pos.play(mv(&r, "d13-d14")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Win));
    let result = out.result.unwrap();
    assert_eq!((result.winner(), result.reason), (Some(South), EndReason::FlagCaptured));
}

#[test]
fn a_landed_ship_goes_back_to_sea_through_its_harbour_mouth() {
    let r = rules("sanjun-modern");
    let pos = arrange(&r, &[("d10", South, Cruiser), ("e1", South, Flag), ("e14", North, Flag)], South);
    let t = targets(&pos, "d10");
    assert!(t.contains(&"d9".to_owned()) && t.contains(&"d11".to_owned()), "{t:?}");
    // Destroyers, gunboats and submarines never land.
    let pos = arrange(&r, &[("d9", South, Destroyer), ("e1", South, Flag), ("e14", North, Flag)], South);
    assert!(!targets(&pos, "d9").contains(&"d10".to_owned()));
}

#[test]
fn a_gunboat_bombardment_against_a_commander_does_nothing() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[("d9", South, Gunboat), ("e1", South, Flag), ("d10", North, Commander), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    assert!(targets(&pos, "d9").contains(&"d10".to_owned()));
    let out = pos.play(mv(&r, "d9-d10")).unwrap();
    assert!(out.struck);
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Lose), "a battalion commander against a commander");
    assert_eq!(pos.piece_at(pt(&r, "d9")), Some((South, Gunboat)), "the bombardment never costs the gunboat");
    assert_eq!(pos.piece_at(pt(&r, "d10")), Some((North, Commander)));
    // Against a weaker officer the target leaves and the gunboat stays at sea.
    let mut pos = arrange(
        &r,
        &[("d9", South, Gunboat), ("e1", South, Flag), ("d10", North, Infantry), ("e14", North, Flag), ("b13", North, Cavalry)],
        South,
    );
    pos.play(mv(&r, "d9-d10")).unwrap();
    assert!(pos.piece_at(pt(&r, "d10")).is_none());
    assert_eq!(pos.piece_at(pt(&r, "d9")), Some((South, Gunboat)));
}

#[test]
fn the_fort_strikes_a_ship_at_its_mouth_and_a_neighbour_on_land() {
    let r = rules("sanjun-modern");
    let mut pos = arrange(
        &r,
        &[("d5", South, Fort), ("e1", South, Flag), ("d6", North, Cruiser), ("d4", North, Infantry), ("e14", North, Flag)],
        South,
    );
    assert_eq!(targets(&pos, "d5"), names(&["d4", "d6"]));
    let out = pos.play(mv(&r, "d5-d6")).unwrap();
    assert!(out.struck);
    assert!(pos.piece_at(pt(&r, "d6")).is_none());
    assert_eq!(pos.piece_at(pt(&r, "d5")), Some((South, Fort)));
}

/// Plays `action` from `pos` in a game, so that both players' beliefs read it.
fn play_in_game(r: &Arc<RuleSet>, pos: &junqi::Position, action: &str) -> (Game, junqi::Report) {
    let mut game = Game::from_position_string_with(r.clone(), &pos.position_string(), 0).unwrap();
    let report = game.play(mv(r, action)).unwrap();
    for &side in r.sides() {
        assert!(game.beliefs(side).is_consistent(), "{side}'s beliefs after {action}");
    }
    (game, report)
}

#[test]
fn a_kind_given_moves_and_a_gun_fires_at_what_its_moves_cannot_reach() {
    // A gunboat that runs by rail (found by random rule sets: its bombardment was taken
    // for a move, which carried it ashore and left every player's beliefs inconsistent).
    // From the sea its runs reach nothing, so the attack on d10 is a bombardment.
    let r = moving_as("sanjun-modern", "gunboat", "rail_turn");
    let pos = arrange(
        &r,
        &[("d9", South, Gunboat), ("e1", South, Flag), ("d10", North, Infantry), ("e14", North, Flag), ("b13", North, Cavalry)],
        South,
    );
    let (game, report) = play_in_game(&r, &pos, "d9-d10");
    assert!(matches!(report.public[0], junqi::Event::Struck { .. }), "{:?}", report.public);
    assert!(game.position().piece_at(pt(&r, "d10")).is_none());
    assert_eq!(game.position().piece_at(pt(&r, "d9")), Some((South, Gunboat)), "it fired from the sea");
    // A fort that steps: onto a land neighbour it moves (and takes the point); at the
    // ship on the sea point coast-linked to it, which no step reaches, it strikes.
    let r = moving_as("sanjun-modern", "fort", "step");
    let pieces = [("d5", South, Fort), ("e1", South, Flag), ("d6", North, Cruiser), ("d4", North, Infantry), ("e14", North, Flag)];
    let pos = arrange(&r, &pieces, South);
    let (game, report) = play_in_game(&r, &pos, "d5-d4");
    assert!(matches!(report.public[0], junqi::Event::Attacked { .. }), "{:?}", report.public);
    assert_eq!(game.position().piece_at(pt(&r, "d4")), Some((South, Fort)), "it moved");
    let (game, report) = play_in_game(&r, &pos, "d5-d6");
    assert!(matches!(report.public[0], junqi::Event::Struck { .. }), "{:?}", report.public);
    assert!(game.position().piece_at(pt(&r, "d6")).is_none());
    assert_eq!(game.position().piece_at(pt(&r, "d5")), Some((South, Fort)), "it fired from d5");
}

#[test]
fn a_missile_that_sails_or_flies_still_flies_at_what_its_moves_cannot_reach() {
    // Found by random rule sets: a missile made to sail and land flew from the HQ d1
    // and its flight was taken for a step (in an HQ, locked), so every player's
    // beliefs had no piece that could have made the attack.
    // The same for a missile made to fly (a flyer's runs end on air positions).
    for mobility in ["sail_and_land", "fly"] {
        let r = moving_as("sanjun-modern", "missile", mobility);
        let pos = arrange(
            &r,
            &[("d1", South, Missile), ("e1", South, Flag), ("d12", North, ArmyCommander), ("e14", North, Flag), ("b13", North, Infantry)],
            South,
        );
        assert!(targets(&pos, "d1").contains(&"d12".to_owned()), "{mobility}");
        let (game, _) = play_in_game(&r, &pos, "d1-d12");
        assert!(game.position().piece_at(pt(&r, "d1")).is_none(), "{mobility}: a missile is spent");
        assert!(game.position().piece_at(pt(&r, "d12")).is_none(), "{mobility}");
    }
}

#[test]
fn a_railway_run_must_stop_on_a_pier() {
    let r = rules("sanjun-modern");
    let pos = arrange(&r, &[("c4", South, Tank), ("e1", South, Flag), ("e14", North, Flag)], South);
    let t = targets(&pos, "c4");
    for n in ["c5", "c6", "d4", "e4", "f4", "c3"] {
        assert!(t.contains(&n.to_owned()), "{n} in {t:?}");
    }
    assert!(!t.contains(&"c7".to_owned()), "no run through the pier c6");
    assert!(!t.contains(&"g4".to_owned()), "at most 3 steps");
    let pos = arrange(&r, &[("c4", South, Engineer), ("e1", South, Flag), ("e14", North, Flag)], South);
    let t = targets(&pos, "c4");
    assert!(t.contains(&"g6".to_owned()) && !t.contains(&"g7".to_owned()) && !t.contains(&"c7".to_owned()), "{t:?}");
    let pos = arrange(&r, &[("c6", South, Engineer), ("e1", South, Flag), ("e14", North, Flag)], South);
    let t = targets(&pos, "c6");
    assert!(t.contains(&"c9".to_owned()) && !t.contains(&"c10".to_owned()), "over the bridge to the next pier: {t:?}");
    // sanjun-forum: no step limit.
    let r = rules("sanjun-forum");
    let pos = arrange(&r, &[("c4", South, Tank), ("e1", South, Flag), ("e14", North, Flag)], South);
    assert!(targets(&pos, "c4").contains(&"g6".to_owned()));
}

#[test]
fn a_missile_may_not_target_an_hq_or_an_airport() {
    let r = rules("sanjun-modern");
    let pos = arrange(
        &r,
        &[
            ("e3", South, Missile),
            ("e1", South, Flag),
            ("e12", North, Commander),
            ("e14", North, Flag),
            ("e8^", North, Fighter),
        ],
        South,
    );
    let t = targets(&pos, "e3");
    assert!(t.contains(&"e12".to_owned()) && t.contains(&"e8^".to_owned()), "{t:?}");
    assert!(!t.contains(&"e14".to_owned()), "the flag in its HQ is out of reach");
    let pos = arrange(
        &r,
        &[("b1", South, Missile), ("e1", South, Flag), ("a1^", North, Recon), ("c1^", North, Fighter), ("e14", North, Flag)],
        South,
    );
    let t = targets(&pos, "b1");
    assert!(t.contains(&"c1^".to_owned()) && !t.contains(&"a1^".to_owned()), "{t:?}");
    // Off the lattice (row 2) a missile cannot fly.
    let pos = arrange(&r, &[("e2", South, Missile), ("e1", South, Flag), ("e12", North, Commander), ("e14", North, Flag)], South);
    assert!(!targets(&pos, "e2").contains(&"e12".to_owned()));
}

#[test]
fn a_hk_missile_attacks_only_along_air_lines() {
    // Issue 34, item 4 (docs/sources.md#hk-missile: 攻擊時沿空軍航線攻擊): a sanjun-hk missile still walks,
    // but a step may not end on an enemy piece; its flights may.
    let pieces = [("e2", South, Missile), ("e1", South, Flag), ("e3", North, Infantry), ("e14", North, Flag), ("b13", North, Tank)];
    let modern = rules("sanjun-modern");
    assert!(targets(&arrange(&modern, &pieces, South), "e2").contains(&"e3".to_owned()), "modern: a step attack");
    let r = rules("sanjun-hk");
    let pos = arrange(&r, &pieces, South);
    // Off the air lattice (row 2) it cannot fly, so it cannot attack e3 at all.
    assert!(!targets(&pos, "e2").contains(&"e3".to_owned()));
    let err = pos.check(mv(&r, "e2-e3")).unwrap_err();
    assert!(matches!(err, PlayError::AttacksOnlyByAbility { .. }), "{err}");
    assert!(err.to_string().contains("air lines"), "{err}");
    // It still walks onto empty points.
    let pos = arrange(&r, &[("e2", South, Missile), ("e1", South, Flag), ("e14", North, Flag), ("b13", North, Tank)], South);
    assert!(targets(&pos, "e2").contains(&"e3".to_owned()));
    // From the lattice the same neighbour is under its air line: a flight, allowed.
    // (d3 is both a road step from e3 and below d3^, on e3^'s air line.)
    let mut pos = arrange(&r, &[("e3", South, Missile), ("e1", South, Flag), ("d3", North, Infantry), ("e14", North, Flag), ("b13", North, Tank)], South);
    assert!(targets(&pos, "e3").contains(&"d3".to_owned()));
    let out = pos.play(mv(&r, "e3-d3")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Both));
    assert!(pos.piece_at(pt(&r, "d3")).is_none() && pos.piece_at(pt(&r, "e3")).is_none());
}

#[test]
fn a_hk_officer_attacking_a_missile_loses() {
    // Issue 34, item 3 (docs/sources.md#hk-officers: 官兵遇武器即敗): in sanjun-hk an officer or
    // soldier attacking a missile loses; modern gives both.
    let pieces = [("e3", South, Commander), ("e1", South, Flag), ("e4", North, Missile), ("e14", North, Flag), ("b13", North, Tank)];
    for (preset, want) in [("sanjun-hk", CombatOutcome::Lose), ("sanjun-modern", CombatOutcome::Both)] {
        let r = rules(preset);
        let mut pos = arrange(&r, &pieces, South);
        let out = pos.play(mv(&r, "e3-e4")).unwrap();
        assert_eq!(out.combat.map(|c| c.2), Some(want), "{preset}");
    }
    let hk = rules("sanjun-hk");
    assert_eq!(junqi::resolve(&hk, Engineer, Missile), CombatOutcome::Lose, "the engineer is a soldier too");
    assert_eq!(junqi::resolve(&hk, Missile, Commander), CombatOutcome::Both, "a missile that hits takes its target with it");
}

#[test]
fn a_missile_never_walks_into_an_hq_either() {
    let r = rules("sanjun-modern");
    let pos = arrange(&r, &[("e13", South, Missile), ("e1", South, Flag), ("e14", North, Flag), ("b13", North, Infantry)], South);
    assert!(!targets(&pos, "e13").contains(&"e14".to_owned()));
    let pos = arrange(&r, &[("e13", South, Tank), ("e1", South, Flag), ("e14", North, Flag), ("b13", North, Infantry)], South);
    assert!(targets(&pos, "e13").contains(&"e14".to_owned()), "other pieces may");
}

#[test]
fn a_missile_flies_past_planes_to_the_piece_below() {
    let r = rules("sanjun-modern");
    // Its own recon hovering over the target does not shield the target.
    let pos = arrange(
        &r,
        &[("e3", South, Missile), ("e12^", South, Recon), ("e1", South, Flag), ("e12", North, Cavalry), ("e14", North, Flag)],
        South,
    );
    assert!(targets(&pos, "e3").contains(&"e12".to_owned()));
    // An enemy plane over an enemy piece: either may be hit (two actions).
    let pos = arrange(
        &r,
        &[("e3", South, Missile), ("e1", South, Flag), ("e12^", North, Recon), ("e12", North, Cavalry), ("e14", North, Flag)],
        South,
    );
    let t = targets(&pos, "e3");
    assert!(t.contains(&"e12".to_owned()) && t.contains(&"e12^".to_owned()), "{t:?}");
}

#[test]
fn an_attack_the_mover_knows_is_forbidden_is_no_move() {
    // sanjun-forum: only engineers and aa guns may attack the flag. Hidden, an attack on
    // it is legal and repelled; once the flag is shown, it is simply not a move.
    let r = rules("sanjun-forum");
    let mut pos = arrange(
        &r,
        &[
            ("d3", South, Bomb),
            ("e2", South, Tank),
            ("f3", South, Engineer),
            ("e1", South, Flag),
            ("d4", North, Commander),
            ("e3", North, Flag),
            ("b13", North, Infantry),
        ],
        South,
    );
    assert!(targets(&pos, "e2").contains(&"e3".to_owned()));
    let out = pos.play(mv(&r, "d3-d4")).unwrap();
    assert_eq!(out.flags_revealed[0].map(|f| f.0), Some(North), "the commander fell: the flag is shown");
    pos.play(mv(&r, "b13-b12")).unwrap();
    assert!(!targets(&pos, "e2").contains(&"e3".to_owned()), "the tank now knows it may not attack the flag");
    let err = pos.check(mv(&r, "e2-e3")).unwrap_err();
    assert!(matches!(err, PlayError::ForbiddenAttack { target: Flag, .. }), "{err}");
    assert_eq!(err.to_string(), "the tank on e2 may not attack the flag on e3");
    assert!(targets(&pos, "f3").contains(&"e3".to_owned()), "the engineer still may");
}

#[test]
fn a_gun_in_an_hq_still_fires_and_bombardment_spares_landed_ships() {
    let r = rules("sanjun-modern");
    let pos = arrange(&r, &[("e1", South, AaGun), ("d1", South, Flag), ("e3^", North, Fighter), ("e14", North, Flag)], South);
    assert_eq!(targets(&pos, "e1"), names(&["e3^"]), "an HQ stops moves, not fire");
    let pos = arrange(&r, &[("d9", South, Gunboat), ("e1", South, Flag), ("d10", North, Cruiser), ("e14", North, Flag)], South);
    assert!(!targets(&pos, "d9").contains(&"d10".to_owned()), "bombardment hits army pieces only");
}

#[test]
fn arms_are_public_so_small_ships_cannot_target_land_pieces() {
    let r = rules("sanjun-modern");
    // A destroyer next to an infantry on a bridge point: no such move.
    let pos = arrange(&r, &[("d8", North, Destroyer), ("c8", South, Infantry), ("e1", South, Flag), ("e14", North, Flag)], North);
    assert!(!targets(&pos, "d8").contains(&"c8".to_owned()));
    let pos = arrange(&r, &[("d8", North, Cruiser), ("c8", South, Infantry), ("e1", South, Flag), ("e14", North, Flag)], North);
    assert!(targets(&pos, "d8").contains(&"c8".to_owned()));
    // A land piece against a ship on a bridge point: legal whatever the ship is; a
    // destroyer (which land pieces cannot attack) repels it.
    let mut pos = arrange(
        &r,
        &[("c6", South, Infantry), ("c7", North, Destroyer), ("e1", South, Flag), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "c6-c7")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Repel));
    assert_eq!(pos.piece_at(pt(&r, "c6")), Some((South, Infantry)));
}

#[test]
fn camps_shelter_per_preset() {
    for (name, open) in [("sanjun-modern", false), ("sanjun-book", false), ("sanjun-hk", true), ("sanjun-forum", false)] {
        let r = rules(name);
        let pos = arrange(
            &r,
            &[("b10", South, Battleship), ("e1", South, Flag), ("b11", North, Infantry), ("e14", North, Flag)],
            South,
        );
        assert_eq!(targets(&pos, "b10").contains(&"b11".to_owned()), open, "{name}: a landed ship against a camp");
        if !open {
            assert!(matches!(pos.check(mv(&r, "b10-b11")), Err(PlayError::ProtectedByCamp(_))));
        }
    }
}

#[test]
fn forum_only_engineers_and_aa_guns_attack_the_flag() {
    let r = rules("sanjun-forum");
    let mut pos = arrange(
        &r,
        &[("e2", South, Tank), ("d3", South, Engineer), ("e1", South, Flag), ("e3", North, Flag), ("b13", North, Infantry)],
        South,
    );
    // Legal (the tank cannot know what is on e3) and ruled a repel.
    let out = pos.play(mv(&r, "e2-e3")).unwrap();
    assert_eq!(out.combat.map(|c| c.2), Some(CombatOutcome::Repel));
    pos.play(mv(&r, "b13-b12")).unwrap();
    let out = pos.play(mv(&r, "d3-e3")).unwrap();
    assert_eq!(out.result.map(|x| (x.winner(), x.reason)), Some((Some(South), EndReason::FlagCaptured)));
}

#[test]
fn commander_capture_ends_the_game_unless_both_commanders_fall() {
    let r = with_options("sanjun-book", r#"{"commander_capture": true}"#);
    let mut pos = arrange(
        &r,
        &[("d3", South, Bomb), ("e1", South, Flag), ("d4", North, Commander), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "d3-d4")).unwrap();
    assert_eq!(out.result.map(|x| (x.winner(), x.reason)), Some((Some(South), EndReason::CommanderCaptured)));
    // Both commanders leave in one combat: both flags are shown and play goes on.
    let mut pos = arrange(
        &r,
        &[("d3", South, Commander), ("e1", South, Flag), ("b2", South, Infantry), ("d4", North, Commander), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "d3-d4")).unwrap();
    assert_eq!(out.result, None);
    assert!(out.flags_revealed.iter().all(|f| f.is_some()));
    assert!(pos.knows(South, pt(&r, "e14")) && pos.knows(North, pt(&r, "e1")));
    // Without the option a lost commander only shows the flag.
    let r = rules("sanjun-book");
    let mut pos = arrange(
        &r,
        &[("d3", South, Bomb), ("e1", South, Flag), ("d4", North, Commander), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    assert_eq!(pos.play(mv(&r, "d3-d4")).unwrap().result, None);
    assert!(pos.knows(South, pt(&r, "e14")));
}

#[test]
fn open_play_shows_both_pieces_of_every_combat() {
    let r = with_options("sanjun-book", r#"{"open_play": true}"#);
    let mut pos = arrange(
        &r,
        &[("d3", South, Engineer), ("e1", South, Flag), ("d4", North, Cavalry), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    pos.play(mv(&r, "d3-d4")).unwrap();
    assert!(pos.knows(South, pt(&r, "d4")), "the winner is shown to the loser's owner");
    assert!(!pos.knows(South, pt(&r, "b13")));
    let r = rules("sanjun-book");
    let mut pos = arrange(
        &r,
        &[("d3", South, Engineer), ("e1", South, Flag), ("d4", North, Cavalry), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    pos.play(mv(&r, "d3-d4")).unwrap();
    assert!(!pos.knows(South, pt(&r, "d4")), "referee play shows nothing");
}

/// The open-play reveals of an action: (kind, told to) per revealed piece.
fn open_reveals(out: &junqi::ActionOutcome) -> Vec<(junqi::PieceKind, Option<junqi::Side>)> {
    out.reveals
        .iter()
        .flatten()
        .filter(|x| x.cause == junqi::RevealCause::OpenPlay)
        .map(|x| (x.kind, x.to))
        .collect()
}

#[test]
fn open_play_shows_both_pieces_of_a_shoot_down() {
    // Issue 34, bug 2: a plane ending over an aa gun, or shot down on its way, fought
    // the gun; both are shown to both players, like every combat under open play.
    let r = with_options("sanjun-book", r#"{"open_play": true}"#);
    for run in ["c1^-c10^", "c1^-c12^"] {
        let mut pos = arrange(
            &r,
            &[("c1^", South, Fighter), ("e1", South, Flag), ("c10", North, AaGun), ("e14", North, Flag), ("b13", North, Infantry)],
            South,
        );
        let out = pos.play(mv(&r, run)).unwrap();
        assert!(out.shot_down_at.is_some(), "{run}");
        assert_eq!(open_reveals(&out), vec![(Fighter, None), (AaGun, None)], "{run}");
        assert!(pos.knows(South, pt(&r, "c10")) && pos.knows(North, pt(&r, "c10")), "{run}");
    }
    // The reverse, a gun striking a fighter: both shown too.
    let mut pos = arrange(
        &r,
        &[("c3", South, AaGun), ("e1", South, Flag), ("c5^", North, Fighter), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "c3-c5^")).unwrap();
    assert_eq!(open_reveals(&out), vec![(AaGun, None), (Fighter, None)]);
}

#[test]
fn every_reveal_of_an_action_is_kept() {
    // A custom rule set gives the aa gun the recon's scouting too: one strike then shows
    // the plane to the gun's owner (scouting), the gun to the plane's (anti-aircraft
    // fire) and both to everyone (open play) — four reveals, none dropped.
    let book: serde_json::Value = serde_json::from_str(&rules("sanjun-book").to_json()).unwrap();
    let mut abilities = book["abilities"].clone();
    abilities["aa_gun"] = serde_json::json!(["anti_air", "scout"]);
    let json = serde_json::json!({"extends": "sanjun-book", "name": "t", "abilities": abilities, "options": {"open_play": true}});
    let r = Arc::new(RuleSet::from_json(&json.to_string()).unwrap());
    let mut pos = arrange(
        &r,
        &[("c3", South, AaGun), ("e1", South, Flag), ("c5^", North, Fighter), ("e14", North, Flag), ("b13", North, Infantry)],
        South,
    );
    let out = pos.play(mv(&r, "c3-c5^")).unwrap();
    let causes: Vec<_> = out.reveals.iter().flatten().map(|x| (x.kind, x.to, x.cause)).collect();
    use junqi::RevealCause::*;
    assert_eq!(
        causes,
        vec![(Fighter, Some(South), Scouted), (AaGun, Some(North), AntiAir), (AaGun, None, OpenPlay), (Fighter, None, OpenPlay)]
    );
}

#[test]
fn deployment_puts_every_arm_in_its_place() {
    let r = rules("sanjun-modern");
    let setup = junqi::Setup::random(&r, South, 3);
    let d = setup.validate(&r, South).unwrap();
    assert_eq!(d.pieces().len(), 30);
    let board = r.board();
    for &(p, k) in d.pieces() {
        let role = board.role(p);
        let ok = match k.arm() {
            junqi::Arm::Navy => role == junqi::Role::Anchorage,
            junqi::Arm::Air => role == junqi::Role::Airport,
            junqi::Arm::Army => matches!(role, junqi::Role::Post | junqi::Role::HarbourMouth | junqi::Role::Hq),
        };
        assert!(ok, "{k} on {} ({role})", board.name_of(p));
    }
    // Specific errors: a ship on a post, the fort off the coast.
    let swap = |a: &str, b: &str| common::swap_points(&setup, a, b);
    let at = |kind: &str| setup.placements().iter().find(|(_, k)| k == kind).unwrap().0.clone();
    let ship_on_post = swap(&at("battleship"), "c2");
    let err = ship_on_post.validate(&r, South).unwrap_err();
    assert!(matches!(err, junqi::SetupError::WrongRole { .. }), "{err}");
    assert!(err.to_string().contains("ships deploy on the side's anchorages") || err.to_string().contains("army pieces"), "{err}");
    let fort_inland = swap(&at("fort"), "c2");
    assert!(matches!(fort_inland.validate(&r, South), Err(junqi::SetupError::WrongRole { .. })));
    let flag_out = swap(&at("flag"), "c2");
    assert!(matches!(flag_out.validate(&r, South), Err(junqi::SetupError::WrongRole { .. })));
}

#[test]
fn views_show_every_piece_s_arm_but_not_its_kind() {
    let mut game = Game::new("sanjun-modern", 1).unwrap();
    game.deploy_random(South, 1).unwrap();
    game.deploy_random(North, 2).unwrap();
    let view = game.view(North);
    let board = game.board();
    for p in view.pieces.iter().filter(|p| p.owner == Some(South)) {
        assert_eq!(p.kind, None);
        let expected = match board.role(p.point) {
            junqi::Role::Anchorage => junqi::Arm::Navy,
            junqi::Role::Airport => junqi::Arm::Air,
            _ => junqi::Arm::Army,
        };
        assert_eq!(p.arm, expected, "{}", board.name_of(p.point));
    }
    let json = view.to_json(game.rules());
    assert!(json["pieces"].as_array().unwrap().iter().any(|p| p["arm"] == "navy" && p["kind"].is_null()));
}

/// Random games of every preset run to their end; every legal action has an index in
/// the action space that maps back to it.
#[test]
fn random_games_of_every_preset_end_without_panics() {
    for name in ["sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum"] {
        let mut reactions = 0;
        // About one book game in four meets an evasion: play more of them.
        let games = if name == "sanjun-book" { 40 } else { 12 };
        for seed in 0..games {
            let r = with_options(name, if seed % 2 == 0 { "{}" } else { r#"{"evade_step": true, "commander_capture": true, "open_play": true}"# });
            let mut game = Game::with_rules(r.clone(), seed);
            game.deploy_random(South, seed * 2 + 1).unwrap();
            game.deploy_random(North, seed * 2 + 2).unwrap();
            let mut rng = junqi::Rng::new(seed);
            while game.result().is_none() {
                let legal = game.legal_actions();
                assert!(!legal.is_empty(), "{name} seed {seed}: no legal action but no result");
                for a in &legal {
                    let i = a.id(&r).unwrap_or_else(|| panic!("{name}: {} has no index", a.to_notation(r.board())));
                    assert_eq!(Action::from_id(&r, i).unwrap(), *a);
                }
                if game.phase() == Phase::Reaction {
                    reactions += 1;
                }
                game.play(legal[rng.below(legal.len())]).unwrap();
                assert!(game.position().ply() < 5000);
            }
            // The record replays to the same state.
            let replayed = Game::from_record(&game.record()).unwrap();
            assert!(replayed.position().same_state(game.position()), "{name} seed {seed}");
        }
        if name == "sanjun-book" {
            assert!(reactions > 0, "{name}: random games should meet a submarine's evasion");
        }
    }
}
