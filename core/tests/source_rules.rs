//! The rules taken from the sources in issue 16 (docs/sources.md), one scenario each: the smallest piece digs mines (翻棋),
//! 明棋 (`open_after_deploy`), `siguo-2p`, five time-outs in classic, the engineer's
//! costly scouting, bombs and HQs in sanjun, the hk fighter against the trap, and the
//! recon's lock-on.
mod common;
use std::sync::Arc;

use common::{arrange, game_with, pt, rules_with, targets};
use junqi::{
    resolve, Action, EndReason, Event, Game, CombatOutcome, PieceKind::*, PlayError, RevealCause,
    RuleSet, RulesError, Side::*,
};

fn rules(name: &str) -> Arc<RuleSet> {
    RuleSet::preset(name).unwrap()
}

fn with_options(base: &str, options: &str) -> Result<RuleSet, RulesError> {
    RuleSet::from_json(&format!(
        r#"{{"extends": "{base}", "name": "t", "options": {options}}}"#
    ))
}

fn mv(r: &RuleSet, text: &str) -> Action {
    Action::parse(r.board(), text).unwrap()
}

// 1. 翻棋: the smallest piece digs mines.

/// South attacks the North mine on a10 from a9 with `attacker`; South also has `others`.
fn dig(
    r: &Arc<RuleSet>,
    attacker: junqi::PieceKind,
    others: &[(&str, junqi::PieceKind)],
) -> CombatOutcome {
    let mut pieces = vec![
        ("a9", South, attacker),
        ("a10", North, Mine),
        ("b12", North, Flag),
        ("e12", North, Commander),
    ];
    pieces.extend(others.iter().map(|&(p, k)| (p, South, k)));
    let mut pos = arrange(r, &pieces, South);
    pos.play(mv(r, "a9-a10")).unwrap().combat.unwrap().2
}

#[test]
fn fanqi_smallest_piece_digs_mines_once_the_engineers_are_gone() {
    let r = rules("fanqi");
    assert_eq!(
        r.options().smallest_digs_mines,
        junqi::MineDigging::EngineersGone
    );
    // No engineer left: the platoon leader, South's smallest, takes the mine.
    assert_eq!(dig(&r, PlatoonLeader, &[("e2", Commander)]), CombatOutcome::Win);
    // A bigger piece still dies on it.
    assert_eq!(
        dig(&r, CompanyCommander, &[("e2", PlatoonLeader)]),
        CombatOutcome::Lose
    );
    // An engineer is left (anywhere): the platoon leader dies on the mine.
    assert_eq!(dig(&r, PlatoonLeader, &[("e2", Engineer)]), CombatOutcome::Lose);
    // Without platoon leaders the company commander is the smallest.
    assert_eq!(
        dig(&r, CompanyCommander, &[("e2", Commander)]),
        CombatOutcome::Win
    );
    // Bombs do not matter by default ...
    assert_eq!(dig(&r, PlatoonLeader, &[("e2", Bomb)]), CombatOutcome::Win);
    // ... but with "engineers_and_bombs_gone" (docs/sources.md#fanqi-smallest-detonates)
    // they do.
    let both = Arc::new(
        with_options(
            "fanqi",
            r#"{"smallest_digs_mines": "engineers_and_bombs_gone"}"#,
        )
        .unwrap(),
    );
    assert_eq!(dig(&both, PlatoonLeader, &[("e2", Bomb)]), CombatOutcome::Lose);
    // ... and then the smallest piece detonates the mine rather than digging it.
    assert_eq!(
        dig(&both, PlatoonLeader, &[("e2", Commander)]),
        CombatOutcome::Both
    );
    // Classic keeps the table: off by default, an option there.
    assert_eq!(
        dig(&rules("classic"), PlatoonLeader, &[("e2", Commander)]),
        CombatOutcome::Lose
    );
    let classic = rules_with(r#"{"smallest_digs_mines": "engineers_gone"}"#);
    assert_eq!(
        dig(&classic, PlatoonLeader, &[("e2", Commander)]),
        CombatOutcome::Win
    );
}

#[test]
fn with_engineers_and_bombs_gone_the_smallest_piece_detonates_the_mine() {
    // Issue 34, item 5 (docs/sources.md#fanqi-smallest-detonates: 引爆地雷（踩地雷）): mine
    // and piece both leave; "engineers_gone" (docs/sources.md#fanqi-smallest-digs: 挖) digs,
    // the piece taking the mine's point.
    for (mode, outcome, stays) in [
        ("engineers_and_bombs_gone", CombatOutcome::Both, None),
        ("engineers_gone", CombatOutcome::Win, Some((South, PlatoonLeader))),
    ] {
        let r = Arc::new(with_options("fanqi", &format!(r#"{{"smallest_digs_mines": "{mode}"}}"#)).unwrap());
        let pieces = [("a9", South, PlatoonLeader), ("e2", South, Commander), ("a10", North, Mine), ("b12", North, Flag), ("e12", North, Commander)];
        let mut pos = arrange(&r, &pieces, South);
        let out = pos.play(mv(&r, "a9-a10")).unwrap();
        assert_eq!(out.combat.unwrap().2, outcome, "{mode}");
        assert_eq!(pos.piece_at(pt(&r, "a10")), stays, "{mode}");
        assert!(pos.piece_at(pt(&r, "a9")).is_none(), "{mode}");
    }
}

#[test]
fn fanqi_flag_becomes_takeable_when_the_smallest_piece_digs_the_last_mine() {
    let r = rules("fanqi");
    let mut pos = arrange(
        &r,
        &[
            ("a9", South, PlatoonLeader),
            ("b11", South, PlatoonLeader),
            ("e2", South, Commander),
            ("a10", North, Mine),
            ("b12", North, Flag),
            ("e12", North, Commander),
        ],
        South,
    );
    assert!(
        !targets(&pos, "b11").contains(&"b12".to_owned()),
        "the flag is guarded by its mine"
    );
    assert_eq!(
        pos.check(mv(&r, "b11-b12")),
        Err(PlayError::FlagGuardedByMines("b12".into()))
    );
    pos.play(mv(&r, "a9-a10")).unwrap();
    pos.play(mv(&r, "e12-e11")).unwrap();
    assert!(targets(&pos, "b11").contains(&"b12".to_owned()));
    let out = pos.play(mv(&r, "b11-b12")).unwrap();
    assert_eq!(
        out.result.map(|x| (x.winner(), x.reason)),
        Some((Some(South), EndReason::FlagCaptured))
    );
}

// 2. 明棋: open after deployment.

#[test]
fn open_after_deploy_shows_every_piece_once_both_have_deployed() {
    let r = rules_with(r#"{"open_after_deploy": true}"#);
    let mut g = Game::with_rules(r.clone(), 1);
    g.deploy_random(South, 1).unwrap();
    // Deployment is secret: North has not seen South's setup yet.
    assert!(g.view(North).pieces.iter().all(|p| p.kind.is_none()));
    g.deploy_random(North, 2).unwrap();
    for player in [South, North] {
        assert!(
            g.view(player).pieces.iter().all(|p| p.kind.is_some()),
            "{player} sees every piece"
        );
    }
    // The default is dark, and open_play (both pieces of a combat) is another rule.
    let mut g = Game::with_rules(rules("classic"), 1);
    g.deploy_random(South, 1).unwrap();
    g.deploy_random(North, 2).unwrap();
    assert!(g
        .view(North)
        .pieces
        .iter()
        .filter(|p| p.owner == Some(South))
        .all(|p| p.kind.is_none()));
    // siguo takes it too; 翻棋 refuses it (nothing is deployed).
    let siguo = Arc::new(with_options("siguo", r#"{"open_after_deploy": true}"#).unwrap());
    let mut g = Game::with_rules(siguo, 3);
    for (i, s) in [South, East, North, West].into_iter().enumerate() {
        g.deploy_random(s, i as u64).unwrap();
    }
    assert!(g.view(East).pieces.iter().all(|p| p.kind.is_some()));
    assert!(matches!(
        with_options("fanqi", r#"{"open_after_deploy": true}"#),
        Err(RulesError::Incompatible {
            option: "open_after_deploy",
            ..
        })
    ));
}

// 3. 两国 on the four-player board.

#[test]
fn siguo_2p_is_two_players_on_the_siguo_board() {
    let r = rules("siguo-2p");
    assert_eq!(r.sides(), &[South, North]);
    assert_eq!(r.board().name(), "siguo");
    assert_eq!(r.team_of(South).len(), 1);
    assert_eq!(r.options().max_timeouts, Some(5));
    for seed in 0..6 {
        let mut g = Game::with_rules(r.clone(), seed);
        g.deploy_random(South, seed).unwrap();
        g.deploy_random(North, seed + 100).unwrap();
        assert!(g
            .position()
            .pieces()
            .all(|(_, s, _)| s == South || s == North));
        let mut rng = junqi::Rng::new(seed);
        while g.result().is_none() {
            let a = g.legal_actions();
            g.play(a[rng.below(a.len())]).unwrap();
        }
        let result = g.result().unwrap();
        assert!(result.is_draw() || result.winners.len() == 1, "{result:?}");
        let again = Game::from_record(&g.record()).unwrap();
        assert!(again.position().same_state(g.position()));
    }
}

// 4. Five time-outs lose in classic (and 翻棋), as in siguo.

#[test]
fn five_time_outs_lose_in_classic() {
    for name in ["classic", "fanqi"] {
        let r = rules(name);
        assert_eq!(r.options().max_timeouts, Some(5), "{name}");
        let mut g = Game::with_rules(r.clone(), 4);
        if !r.deals() {
            g.deploy_random(South, 1).unwrap();
            g.deploy_random(North, 2).unwrap();
        }
        for _ in 0..4 {
            g.time_out().unwrap(); // South
            g.time_out().unwrap(); // North
            assert!(g.result().is_none());
        }
        g.time_out().unwrap();
        let result = g.result().unwrap();
        assert_eq!(
            (result.winner(), result.reason),
            (Some(North), EndReason::Timeouts),
            "{name}"
        );
    }
}

// 5. Engineer scouting that costs the engineer.

#[test]
fn sacrifice_scouting_shows_the_defender_to_everyone_and_spends_the_engineer() {
    let r = rules_with(r#"{"engineer_scouts": "sacrifice"}"#);
    let mut g = game_with(&r, &[("a6", Engineer)], &[("a7", PlatoonLeader)]);
    let report = g.play_notation("a6-a7").unwrap();
    let reveal = Event::Revealed {
        point: pt(&r, "a7"),
        owner: North,
        kind: PlatoonLeader,
        cause: RevealCause::EngineerScout,
    };
    assert!(report.public.contains(&reveal), "shown to every player");
    assert!(report.public.contains(&Event::Attacked {
        side: South,
        from: pt(&r, "a6"),
        to: pt(&r, "a7"),
        outcome: CombatOutcome::Lose
    }));
    // The engineer would have lost anyway; against a piece it beats it is spent too.
    assert_eq!(
        g.position().piece_at(pt(&r, "a7")),
        Some((North, PlatoonLeader))
    );
    assert!(g.position().piece_at(pt(&r, "a6")).is_none());
    let mut pos = arrange(
        &r,
        &[
            ("a6", South, Engineer),
            ("a7", North, Engineer),
            ("b12", North, Flag),
        ],
        South,
    );
    let out = pos.play(mv(&r, "a6-a7")).unwrap();
    assert_eq!(
        out.combat.map(|c| c.2),
        Some(CombatOutcome::Lose),
        "not the table's both"
    );
    assert!(pos.knows(North, pt(&r, "a7")) && pos.knows(South, pt(&r, "a7")));
    // Digging mines is the engineer's other ability: it still takes a mine.
    let mut pos = arrange(
        &r,
        &[
            ("a10", South, Engineer),
            ("a11", North, Mine),
            ("b12", North, Flag),
        ],
        South,
    );
    assert_eq!(
        pos.play(mv(&r, "a10-a11")).unwrap().combat.map(|c| c.2),
        Some(CombatOutcome::Win)
    );
    assert_eq!(pos.piece_at(pt(&r, "a11")), Some((South, Engineer)));
}

// 6. Bombs and HQs in sanjun; bomb_may_hit_flag works there.

#[test]
fn sanjun_bombs_may_be_kept_out_of_hqs_and_bomb_may_hit_flag_works() {
    let pieces = [
        ("e13", South, Bomb),
        ("e1", South, Flag),
        ("e14", North, Flag),
        ("d13", North, Infantry),
    ];
    let r = rules("sanjun-modern");
    let pos = arrange(&r, &pieces, South);
    assert!(targets(&pos, "e13").contains(&"e14".to_owned()));
    let safe = Arc::new(with_options("sanjun-modern", r#"{"hq_safe_from": ["bomb"]}"#).unwrap());
    let pos = arrange(&safe, &pieces, South);
    assert!(
        !targets(&pos, "e13").contains(&"e14".to_owned()),
        "an HQ is out of a bomb's reach"
    );
    assert!(
        targets(&pos, "e13").contains(&"d13".to_owned()),
        "other attacks stand"
    );
    assert_eq!(
        pos.check(mv(&safe, "e13-e14")),
        Err(PlayError::ProtectedByHq("e14".into()))
    );
    assert!(with_options("sanjun-hk", r#"{"hq_safe_from": ["@nothing"]}"#).is_err());
    // bomb_may_hit_flag: on by default (the bomb takes the flag), off: repelled.
    assert_eq!(resolve(&r, Bomb, Flag), CombatOutcome::Win);
    for preset in ["sanjun-modern", "sanjun-hk", "sanjun-book"] {
        let off = with_options(preset, r#"{"bomb_may_hit_flag": false}"#).unwrap();
        assert_eq!(resolve(&off, Bomb, Flag), CombatOutcome::Repel, "{preset}");
    }
    // In sanjun-forum only engineers and aa guns attack the flag: turning the option on
    // is refused, not ignored.
    assert!(!rules("sanjun-forum").options().bomb_may_hit_flag);
    assert!(matches!(
        with_options("sanjun-forum", r#"{"bomb_may_hit_flag": true}"#),
        Err(RulesError::Incompatible {
            option: "bomb_may_hit_flag",
            ..
        })
    ));
}

// 7. sanjun-hk: the fighter beats the trap.

#[test]
fn hk_fighter_beats_the_trap() {
    assert_eq!(resolve(&rules("sanjun-hk"), Fighter, Trap), CombatOutcome::Win);
    assert_eq!(
        resolve(&rules("sanjun-modern"), Fighter, Trap),
        CombatOutcome::Repel
    );
    let r = rules("sanjun-hk");
    let mut pos = arrange(
        &r,
        &[
            ("e1^", South, Fighter),
            ("e1", South, Flag),
            ("e12", North, Trap),
            ("e14", North, Flag),
        ],
        South,
    );
    pos.play(mv(&r, "e1^-e12^")).unwrap();
    assert!(pos.piece_at(pt(&r, "e12")).is_none(), "the trap is gone");
    assert_eq!(pos.piece_at(pt(&r, "e12^")), Some((South, Fighter)));
}

// 8. Recon lock-on scouting (docs/sources.md#modern-recon).

#[test]
fn recon_lock_on_scouts_along_its_line_without_flying() {
    let r = Arc::new(with_options("sanjun-modern", r#"{"recon_lock_on": true}"#).unwrap());
    let pieces = [
        ("e1^", South, Recon),
        ("e1", South, Flag),
        ("e10", North, AaGun),
        ("e12", North, Mine),
        ("e14", North, Flag),
    ];
    let mut pos = arrange(&r, &pieces, South);
    let out = pos.play(mv(&r, "e1^-e12^")).unwrap();
    assert_eq!(out.shot_down_at, None, "a lock-on flies over no gun");
    assert!(out.struck);
    assert!(pos.knows(South, pt(&r, "e12")) && !pos.knows(North, pt(&r, "e1^")));
    assert_eq!(
        pos.piece_at(pt(&r, "e1^")),
        Some((South, Recon)),
        "the recon stays where it was"
    );
    // Without the option the same run is shot down over the aa gun.
    let modern = rules("sanjun-modern");
    let mut pos = arrange(&modern, &pieces, South);
    assert!(pos
        .play(mv(&modern, "e1^-e12^"))
        .unwrap()
        .shot_down_at
        .is_some());
    // Rule sets without a scout refuse the option.
    assert!(matches!(
        with_options("classic", r#"{"recon_lock_on": true}"#),
        Err(RulesError::Incompatible {
            option: "recon_lock_on",
            ..
        })
    ));
}

#[test]
fn a_recon_that_locked_on_must_leave_its_point_next_turn() {
    // A second lock-on from the same point is no move away (issue 34, bug 1): only an
    // action that takes the recon off e1^ discharges the obligation.
    let r = Arc::new(with_options("sanjun-modern", r#"{"recon_lock_on": true}"#).unwrap());
    let pieces = [
        ("e1^", South, Recon),
        ("e1", South, Flag),
        ("b2", South, Infantry),
        ("e12", North, Cavalry),
        ("e10", North, Infantry),
        ("h13", North, Tank),
        ("e14", North, Flag),
    ];
    let mut pos = arrange(&r, &pieces, South);
    assert!(pos.play(mv(&r, "e1^-e12^")).unwrap().struck);
    pos.play(mv(&r, "h13-h12")).unwrap();
    assert_eq!(pos.obligation(South), Some(pt(&r, "e1^")));
    assert!(matches!(pos.check(mv(&r, "e1^-e10^")), Err(PlayError::MustMoveAway(_))));
    let legal = pos.legal_actions();
    assert!(!legal.is_empty());
    for a in &legal {
        let Action::Move { from, to } = *a else { panic!("{a:?}") };
        assert_eq!(from, pt(&r, "e1^"));
        assert_ne!(to, pt(&r, "e10^"), "no second lock-on");
        assert_ne!(to, pt(&r, "e12^"), "no second lock-on");
    }
    // Flying off the point discharges it.
    pos.play(mv(&r, "e1^-e5^")).unwrap();
    assert_eq!(pos.piece_at(pt(&r, "e5^")), Some((South, Recon)));
    assert_eq!(pos.obligation(South), None);
}
