//! One test per deduction of the `inference` module, each failing if that deduction is
//! dropped. Most use tiny armies on the classic board (two pieces a side, standing in
//! the HQs) so that a few real moves make the situation.
mod common;
use std::sync::Arc;

use common::{moving_as, siguo_dealt};

use junqi::{Beliefs, Event, Game, PieceKind, PieceKind::*, Rng, RuleSet, Setup, Side};

/// Classic board, a two-piece army in the HQs, pieces free to leave the HQ.
fn tiny(army: &str, options: &str) -> Arc<RuleSet> {
    Arc::new(
        RuleSet::from_json(&format!(
            r#"{{"extends": "classic", "name": "tiny", "army": {army},
                "deployment": {{"roles": ["hq"], "constraints": [{{"kind": "flag", "roles": ["hq"]}}]}},
                "options": {options}}}"#
        ))
        .unwrap(),
    )
}

fn setup(pairs: &[(&str, PieceKind)]) -> Setup {
    let mut s = Setup::new();
    for (p, k) in pairs {
        s.place(*p, k.id());
    }
    s
}

fn game(rules: &Arc<RuleSet>, south: &[(&str, PieceKind)], north: &[(&str, PieceKind)], moves: &[&str]) -> Game {
    let mut g = Game::with_rules(rules.clone(), 1);
    g.deploy(Side::South, &setup(south)).unwrap();
    g.deploy(Side::North, &setup(north)).unwrap();
    for m in moves {
        g.play_notation(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn kinds(b: &Beliefs, g: &Game, p: &str) -> Vec<PieceKind> {
    b.candidates(g.board().point(p).unwrap()).iter().collect()
}

#[test]
fn a_run_that_turns_is_an_engineers_and_the_count_names_the_other() {
    let rules = tiny(r#"{"engineer": 1, "platoon_leader": 1}"#, r#"{"hq_locks": false}"#);
    let g = game(
        &rules,
        &[("b1", Engineer), ("d1", PlatoonLeader)],
        &[("b12", Engineer), ("d12", PlatoonLeader)],
        &["b1-b2", "b12-b11", "d1-d2", "b11-a7"],
    );
    let b = g.beliefs(Side::South);
    assert_eq!(
        kinds(&b, &g, "a7"),
        vec![Engineer],
        "b11-a7 turns at a11: only the engineer turns"
    );
    assert_eq!(
        kinds(&b, &g, "d12"),
        vec![PlatoonLeader],
        "the one engineer is accounted for"
    );
    // Before the turning run, nothing was known.
    let g = game(
        &rules,
        &[("b1", Engineer), ("d1", PlatoonLeader)],
        &[("b12", Engineer), ("d12", PlatoonLeader)],
        &["b1-b2", "b12-b11", "d1-d2", "b11-a11"],
    );
    assert_eq!(kinds(&g.beliefs(Side::South), &g, "a11"), vec![PlatoonLeader, Engineer]);
}

#[test]
fn a_run_longer_than_the_limit_is_an_engineers() {
    let rules = tiny(
        r#"{"engineer": 1, "platoon_leader": 1}"#,
        r#"{"hq_locks": false, "rail_max_steps": 2}"#,
    );
    let g = game(
        &rules,
        &[("b1", Engineer), ("d1", PlatoonLeader)],
        &[("b12", Engineer), ("d12", PlatoonLeader)],
        &["b1-b2", "b12-b11", "d1-d2", "b11-e11"],
    );
    assert_eq!(kinds(&g.beliefs(Side::South), &g, "e11"), vec![Engineer]);
}

#[test]
fn a_piece_that_moved_is_not_immobile() {
    let rules = tiny(r#"{"flag": 1, "platoon_leader": 1}"#, r#"{"hq_locks": false}"#);
    let g = game(
        &rules,
        &[("b1", Flag), ("d1", PlatoonLeader)],
        &[("b12", PlatoonLeader), ("d12", Flag)],
        &["d1-d2", "b12-b11"],
    );
    let b = g.beliefs(Side::South);
    assert_eq!(kinds(&b, &g, "b11"), vec![PlatoonLeader]);
    assert_eq!(kinds(&b, &g, "d12"), vec![Flag]);
}

#[test]
fn combat_outcomes_narrow_both_sides() {
    // South's engineer runs round the corner onto b11 and loses: the defender beat an
    // engineer, so it is the platoon leader (engineer against engineer: both leave).
    let rules = tiny(r#"{"engineer": 1, "platoon_leader": 1}"#, r#"{"hq_locks": false}"#);
    let g = game(
        &rules,
        &[("b1", Engineer), ("d1", PlatoonLeader)],
        &[("b12", PlatoonLeader), ("d12", Engineer)],
        &["b1-b2", "b12-b11", "b2-b11"],
    );
    let south = g.beliefs(Side::South);
    assert_eq!(kinds(&south, &g, "b11"), vec![PlatoonLeader]);
    assert_eq!(kinds(&south, &g, "d12"), vec![Engineer]);
    // North saw a piece turn a corner (an engineer) and lose to its platoon leader.
    let north = g.beliefs(Side::North);
    assert_eq!(north.off_board(), vec![vec![(Side::South, Engineer)]]);
    assert_eq!(kinds(&north, &g, "d1"), vec![PlatoonLeader]);
}

#[test]
fn a_fallen_commander_shows_the_flag_and_others_are_no_commanders() {
    // Seven pieces a side, in the HQs and camps.
    let rules = Arc::new(
        RuleSet::from_json(
            r#"{"extends": "classic", "name": "camps",
                "army": {"flag": 1, "commander": 1, "bomb": 1, "platoon_leader": 4},
                "deployment": {"roles": ["hq", "camp"], "constraints": [{"kind": "flag", "roles": ["hq"]}]}}"#,
        )
        .unwrap(),
    );
    let south = [
        ("b1", Flag),
        ("d1", PlatoonLeader),
        ("b3", PlatoonLeader),
        ("d3", PlatoonLeader),
        ("c4", PlatoonLeader),
        ("b5", Bomb),
        ("d5", Commander),
    ];
    let north = |b8: PieceKind, d8: PieceKind| {
        vec![
            ("b12", Flag),
            ("d12", Bomb),
            ("b10", PlatoonLeader),
            ("d10", PlatoonLeader),
            ("c9", PlatoonLeader),
            ("b8", b8),
            ("d8", d8),
        ]
    };
    // South's bomb meets North's b8 piece on a7; both leave.
    let moves = ["b5-a6", "b8-a7", "a6-a7"];
    let north_gone = |g: &Game| -> Vec<PieceKind> {
        let b = g.beliefs(Side::South);
        let gone: Vec<_> = b.off_board().into_iter().filter(|c| c[0].0 == Side::North).collect();
        assert_eq!(gone.len(), 1);
        gone[0].iter().map(|(_, k)| *k).collect()
    };
    // A platoon leader: no flag is shown, so it was no commander (a bomb, or a platoon
    // leader — both meet a bomb alike).
    let g = game(&rules, &south, &north(PlatoonLeader, Commander), &moves);
    assert_eq!(north_gone(&g), vec![PlatoonLeader, Bomb]);
    // The commander: North's flag is shown, and the piece that left was the commander.
    let g = game(&rules, &south, &north(Commander, PlatoonLeader), &moves);
    assert_eq!(north_gone(&g), vec![Commander]);
    assert_eq!(kinds(&g.beliefs(Side::South), &g, "b12"), vec![Flag]);
    // Without `commander_reveals_flag` no flag is ever shown, and that tells nothing.
    let mut spec = rules.spec().clone();
    spec.options.commander_reveals_flag = false;
    let rules = Arc::new(RuleSet::from_spec(spec).unwrap());
    let g = game(&rules, &south, &north(PlatoonLeader, Commander), &moves);
    assert_eq!(north_gone(&g), vec![Commander, PlatoonLeader, Bomb]);
}

#[test]
fn deployment_constraints_limit_where_kinds_start() {
    let mut g = Game::new("classic", 2).unwrap();
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let b = g.beliefs(Side::South);
    // Front row (depth 6): no mine (last two rows), no bomb (not the front row), no flag.
    let front = kinds(&b, &g, "a7");
    assert!(!front.contains(&Mine) && !front.contains(&Bomb) && !front.contains(&Flag));
    assert!(front.contains(&Engineer));
    // An HQ may hold the flag or a mine.
    let hq = kinds(&b, &g, "b12");
    assert!(hq.contains(&Flag) && hq.contains(&Mine));
    // A post on the back row: no flag (it stands in an HQ).
    assert!(!kinds(&b, &g, "a12").contains(&Flag));
}

#[test]
fn the_face_down_pool_shrinks_as_pieces_are_flipped() {
    let mut g = Game::new("fanqi", 4).unwrap();
    let mut rng = Rng::new(4);
    for _ in 0..60 {
        if g.result().is_some() {
            break;
        }
        let legal = g.legal_actions();
        g.play(legal[rng.below(legal.len())]).unwrap();
    }
    let rules = g.rules().clone();
    let pos = g.position();
    let b = g.beliefs(Side::South);
    // Count face-up pieces per (army, kind), on the board or captured (captured pieces
    // were all flipped first).
    let mut up = std::collections::HashMap::new();
    for (p, s, k) in pos.pieces() {
        if !pos.is_face_down(p) {
            *up.entry((s, k)).or_insert(0u8) += 1;
        }
    }
    for c in b.off_board() {
        assert_eq!(c.len(), 1);
        *up.entry(c[0]).or_insert(0) += 1;
    }
    let mut checked = 0;
    for (p, _, _) in pos.pieces().filter(|(p, _, _)| pos.is_face_down(*p)) {
        let ids = b.candidate_identities(p);
        for &side in rules.sides() {
            for (k, n) in rules.army() {
                let used_up = up.get(&(side, k)).copied().unwrap_or(0) >= n;
                assert_eq!(
                    ids.contains(&(side, k)),
                    !used_up,
                    "{side} {k} on {}",
                    g.board().name_of(p)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn planes_shot_down_show_an_anti_aircraft_piece_below() {
    // Search random games for a plane shot down; the piece below the position where it
    // fell is an anti-aircraft kind for everyone who saw it.
    let mut found = 0;
    for seed in 0..400u64 {
        let mut g = Game::new("sanjun-modern", seed).unwrap();
        let mut rng = Rng::new(seed);
        for &s in &[Side::South, Side::North] {
            g.deploy_random(s, rng.next_u64()).unwrap();
        }
        while g.result().is_none() && found < 3 {
            let legal = g.legal_actions();
            let r = g.play(legal[rng.below(legal.len())]).unwrap();
            if let Some(&Event::ShotDown { side, at, .. }) =
                r.public.iter().find(|e| matches!(e, Event::ShotDown { .. }))
            {
                let other = if side == Side::South { Side::North } else { Side::South };
                // Over a gun between the air rows the plane falls at the gun's own
                // (surface) point: the gun is there.
                let below = g.board().below(at).unwrap_or(at);
                let b = g.beliefs(side);
                // The plane's owner was shown the gun; the gun's owner knows its own; so
                // check the rule itself through a third view: the owner's beliefs built
                // without the private reveal.
                let public: Vec<Event> = g
                    .events(side)
                    .iter()
                    .filter(|e| {
                        !matches!(
                            e,
                            Event::Revealed {
                                cause: junqi::RevealCause::AntiAir,
                                ..
                            }
                        )
                    })
                    .copied()
                    .collect();
                let own = g.record().actions.iter().find_map(|e| match e {
                    junqi::RecordEntry::Deploy { deploy, setup } if *deploy == side => Some(setup.clone()),
                    _ => None,
                });
                let mut blind = Beliefs::new(g.rules().clone(), side, own.as_ref()).unwrap();
                blind.observe(&public);
                let c = blind.candidates(below);
                assert!(
                    c.iter().all(|k| g.rules().has_ability(k, junqi::Ability::AntiAir)),
                    "{c:?}"
                );
                assert!(b.candidates(below).len() == 1);
                let _ = other;
                found += 1;
            }
        }
        if found >= 3 {
            break;
        }
    }
    assert!(found > 0, "no plane was shot down in the games searched");
}

#[test]
fn a_started_game_s_beliefs_hold_what_its_position_string_says() {
    // Five pieces a side; North's mine is off the board. South was shown North's engineer
    // on c10 and bomb on e12, North South's platoon leader on c5 and bomb on a5; the
    // pieces marked * moved.
    let rules = Arc::new(
        RuleSet::from_json(
            r#"{"extends": "classic", "name": "five",
                "army": {"flag": 1, "mine": 1, "engineer": 1, "platoon_leader": 1, "bomb": 1},
                "deployment": {"roles": ["camp"], "constraints": []}}"#,
        )
        .unwrap(),
    );
    let text = "five b1=SFL,d1=SMI,c3=SEN*,a5=SBO+N,c5=SPL+N,c8=NPL*,c10=NEN+S,b12=NFL,e12=NBO+S move S 9 2";
    let g = Game::from_position_string_with(rules.clone(), text, 1).unwrap();
    let p = |n: &str| g.board().point(n).unwrap();
    let south = g.beliefs(Side::South);
    assert!(south.is_consistent());
    assert_eq!(kinds(&south, &g, "c10"), vec![Engineer], "shown");
    assert_eq!(kinds(&south, &g, "e12"), vec![Bomb], "shown");
    // It moved (no flag, no mine), and the engineer and the bomb are elsewhere.
    assert_eq!(kinds(&south, &g, "c8"), vec![PlatoonLeader]);
    assert_eq!(kinds(&south, &g, "b12"), vec![Flag, Mine]);
    assert_eq!(south.off_board(), vec![vec![(Side::North, Flag), (Side::North, Mine)]]);
    assert_eq!(kinds(&south, &g, "c3"), vec![Engineer], "its own");
    assert!(south.is_known(p("c10")) && south.is_known(p("c3")) && !south.is_known(p("b12")));
    assert!(south.has_moved(p("c3")) && south.has_moved(p("c8")) && !south.has_moved(p("c10")));
    let north = g.beliefs(Side::North);
    assert_eq!(kinds(&north, &g, "c5"), vec![PlatoonLeader], "shown");
    assert_eq!(kinds(&north, &g, "c3"), vec![Engineer], "moved, and no platoon leader or bomb");
    assert_eq!(kinds(&north, &g, "b1"), vec![Flag, Mine]);
    assert_eq!(kinds(&north, &g, "d1"), vec![Flag, Mine]);
    // Its own pieces off the board: what its pieces on it leave (the counts).
    assert_eq!(north.off_board(), vec![vec![(Side::North, Mine)]]);
    assert!(north.is_known(p("c5")) && !north.is_known(p("c3")));
    // A game drawn from South's beliefs: North still knows South's platoon leader, and
    // South North's engineer.
    let drawn = g.determinize(Side::South, 4);
    assert!(drawn.position().knows(Side::North, p("c5")));
    assert!(drawn.position().knows(Side::South, p("c10")));
    assert!(!drawn.position().knows(Side::North, p("c3")));
    assert_eq!(drawn.position().piece_at(p("c10")), Some((Side::North, Engineer)));
    assert_eq!(drawn.position().piece_at(p("c8")), Some((Side::North, PlatoonLeader)));
}

#[test]
fn a_player_record_of_a_game_left_by_an_escape_reads_back() {
    // The escape is in every player's log: beliefs from the record read it as the
    // game's own beliefs do.
    let mut g = Game::new("classic", 6).unwrap();
    g.deploy_random(Side::South, 1).unwrap();
    g.deploy_random(Side::North, 2).unwrap();
    let a = g.legal_actions()[0];
    g.play(a).unwrap();
    g.escape(Side::North).unwrap();
    for side in [Side::South, Side::North] {
        let record = g.player_record(side);
        assert!(
            Beliefs::from_player_record(&record).unwrap() == g.beliefs(side),
            "{side}"
        );
    }
}

/// In 翻棋 the first flip settles which army each player commands, and the south player
/// may draw the army labelled north. Either way its observation shows the army it
/// commands as its own and the other one, whatever its label, as an opponent's — never
/// as a partner's (the army labelled with the player's own seat was once taken for one).
#[test]
fn a_fanqi_observation_tells_own_and_enemy_pieces_by_who_commands_them() {
    use junqi::{Action, Observer};
    for drawn in [Side::South, Side::North] {
        let mut g = Game::new("fanqi", 4).unwrap();
        let first = g.to_act().unwrap();
        // Flips only, the first one of a piece of the army `drawn`.
        for ply in 0..12 {
            let pos = g.position();
            let flip = g
                .legal_actions()
                .into_iter()
                .find(|a| matches!(a, Action::Flip { at } if ply > 0 || pos.owner_at(*at) == Some(drawn)))
                .unwrap();
            g.play(flip).unwrap();
        }
        assert_eq!(g.position().army_of(first), Some(drawn));
        let spec = g.rules().observation_spec();
        let n = spec.points;
        let plane = |name: &str| spec.channels.iter().position(|c| c == name).unwrap() * n;
        let own: Vec<usize> = (0..spec.channels.len()).filter(|&c| spec.channels[c].starts_with("own:")).map(|c| c * n).collect();
        for &player in g.rules().sides() {
            let army = g.position().army_of(player).unwrap();
            let obs = g.observation(player);
            let mut seen = [0; 2];
            for (i, &p) in Observer::new(g.rules().clone(), player).order().iter().enumerate() {
                let pos = g.position();
                let Some(owner) = pos.owner_at(p).filter(|_| !pos.is_face_down(p)) else { continue };
                let mine = owner == army;
                let what = format!("{player} (commanding {army}) sees {owner}'s piece on {}", g.board().name_of(p));
                let own_planes: f32 = own.iter().map(|&c| obs[c + i]).sum();
                assert_eq!(own_planes, if mine { 1.0 } else { 0.0 }, "{what}: own");
                assert_eq!(obs[plane("enemy") + i], if mine { 0.0 } else { 1.0 }, "{what}: enemy");
                assert_eq!(obs[plane("ally") + i], 0.0, "{what}: ally");
                seen[mine as usize] += 1;
            }
            assert!(seen[0] > 0 && seen[1] > 0, "both armies have face-up pieces");
        }
    }
}

#[test]
fn a_piece_locked_in_an_hq_that_attacks_has_flown() {
    // The position of a sanjun-book game at ply 246 (the agents soak found it): South's
    // missile has stood in the HQ d1 since the deployment, and North's artillery has
    // come to c1 beside it. A piece in an HQ never steps again (`hq_locks`), so the
    // missile's attack is a flight, and only a kind that flies can have made it: North
    // learns that the piece was the missile. (The beliefs once read it as a step from a
    // locked HQ, which no kind may make, and lost every candidate.)
    for name in ["sanjun-book", "sanjun-modern"] {
        let rules = RuleSet::preset(name).unwrap();
        let text = format!(
            "{name} b1=SPG*,c1=NAR*,d1=SMS,e1=SMI,f1=SFL,g1=STR,d2=SBN*,e3=SCP*,h5=SDV*,d6=SDE*,g6=SAM*,b8=SSU*,\
             c8=SPL*,b10=NBS*,d10=NFO,e10=NCO*,c12=NPL*+S,g12=SGN*,b13=NGN*,c14=NTR,d14=NFL,f14=NEN* move S 246 6"
        );
        let mut g = Game::from_position_string_with(rules, &text, 1).unwrap();
        let before = g.beliefs(Side::North);
        assert!(before.candidates(g.board().point("d1").unwrap()).len() > 1, "{name}: North has not seen it");
        g.play_notation("d1-c1").unwrap();
        for side in [Side::South, Side::North] {
            assert!(g.beliefs(side).is_consistent(), "{name}: {side}'s beliefs");
            let _ = g.determinize(side, 3);
        }
        let off = g.beliefs(Side::North).off_board();
        assert!(off.contains(&vec![(Side::South, Missile)]), "{name}: {off:?}");
    }
}

#[test]
fn a_strike_is_made_only_by_a_kind_that_strikes() {
    // North's fort on the harbour mouth d10 has never moved, and South knows nothing of
    // it; it strikes South's division commander on d11 and wins. A commander there
    // would have stepped onto d11 to win, and the fort's strike leaves it where it
    // stands: South learns that d10 is the fort, not any piece that could have beaten
    // a division commander.
    for name in ["sanjun-modern", "sanjun-book", "sanjun-hk", "sanjun-forum"] {
        let rules = RuleSet::preset(name).unwrap();
        let text = format!(
            "{name} b1=SPG*,c1=NAR*,d1=SMS,e1=SMI,f1=SFL,g1=STR,d2=SBN*,e3=SCP*,d6=SDE*,g6=SAM*,b8=SSU*,c8=SPL*,\
             b10=NBS*,d10=NFO,e10=NCO*,d11=SDV*,c12=NPL*+S,g12=SGN*,b13=NGN*,c14=NTR,d14=NFL,f14=NEN* move N 247 6"
        );
        let mut g = Game::from_position_string_with(rules, &text, 1).unwrap();
        assert!(kinds(&g.beliefs(Side::South), &g, "d10").contains(&Commander), "{name}: South has not seen it");
        let r = g.play_notation("d10-d11").unwrap();
        assert!(r.public.iter().any(|e| matches!(e, Event::Struck { .. })), "{name}: {:?}", r.public);
        for side in [Side::South, Side::North] {
            assert_eq!(kinds(&g.beliefs(side), &g, "d10"), vec![Fort], "{name}: {side}'s beliefs");
        }
    }
}

#[test]
fn a_kind_without_a_gun_never_strikes_though_it_sails() {
    // Found by random rule sets: sanjun-forum with the battalion commander made to sail.
    // North's unmoved fort on d10 strikes South's artillery on d11 and loses: the fort
    // leaves the board. A battalion commander on the land point d10 would call its
    // attack on land a bombardment (which never costs the attacker), but it has no gun
    // and cannot strike: the beliefs must not keep a piece on d10.
    let rules = moving_as("sanjun-forum", "battalion_commander", "sail");
    let text = "t b1=SPG*,c1=NAR*,d1=SMS,e1=SMI,f1=SFL,g1=STR,d2=SBN*,e3=SCP*,d6=SDE*,g6=SAM*,b8=SSU*,c8=SPL*,\
                b10=NBS*,d10=NFO,e10=NCO*,d11=SAR*,c12=NPL*+S,g12=SGN*,b13=NGN*,c14=NTR,d14=NFL,f14=NEN* move N 247 6";
    let mut g = Game::from_position_string_with(rules, text, 1).unwrap();
    assert!(kinds(&g.beliefs(Side::South), &g, "d10").contains(&BattalionCommander), "South has not seen it");
    let r = g.play_notation("d10-d11").unwrap();
    assert!(r.public.iter().any(|e| matches!(e, Event::Struck { outcome: junqi::CombatOutcome::Lose, .. })), "{:?}", r.public);
    assert!(g.position().piece_at(g.board().point("d10").unwrap()).is_none());
    for side in [Side::South, Side::North] {
        let b = g.beliefs(side);
        assert!(b.is_consistent(), "{side}");
        assert_eq!(b.occupied(), g.position().occupied(), "{side}'s beliefs keep the fort");
    }
}

#[test]
fn a_missile_repelled_by_a_trap_has_flown_not_moved() {
    // sanjun-modern: South's missile in the HQ d1 flies onto North's trap on d10 and is
    // repelled (the trap repels a missile there): it stays in d1. A flight is no move:
    // both sides' beliefs (and the observation's moved plane) keep it unmoved.
    let rules = RuleSet::preset("sanjun-modern").unwrap();
    let text = "sanjun-modern b1=SPG*,c1=NAR*,d1=SMS,e1=SMI,f1=SFL,g1=STR,d2=SBN*,e3=SCP*,h5=SDV*,d6=SDE*,g6=SAM*,\
                b8=SSU*,c8=SPL*,b10=NBS*,d10=NTR,e10=NCO*,c12=NPL*+S,g12=SGN*,b13=NGN*,d13=NFO,d14=NFL,f14=NEN* \
                move S 246 6";
    let mut g = Game::from_position_string_with(rules, text, 1).unwrap();
    let r = g.play_notation("d1-d10").unwrap();
    assert!(
        r.public.iter().any(|e| matches!(e, Event::Attacked { outcome: junqi::CombatOutcome::Repel, .. })),
        "{:?}",
        r.public
    );
    let d1 = g.board().point("d1").unwrap();
    for side in [Side::South, Side::North] {
        let b = g.beliefs(side);
        assert_eq!(kinds(&b, &g, "d1"), vec![Missile], "{side}'s beliefs");
        assert!(!b.has_moved(d1), "{side}'s beliefs mark the missile as moved");
    }
}

/// Seven pieces a side on the classic board, in the HQs and camps, with `options`, for
/// games started from a position string (the pieces not in it are off the board).
fn seven_of(army: &str, options: &str) -> Result<RuleSet, junqi::RulesError> {
    RuleSet::from_json(&format!(
        r#"{{"extends": "classic", "name": "seven", "army": {army},
            "deployment": {{"roles": ["hq", "camp"], "constraints": [{{"kind": "flag", "roles": ["hq"]}}]}},
            "options": {options}}}"#
    ))
}

/// The army of [`seven_of`] most tests use: flag, mine, commander, four platoon leaders.
const SEVEN: &str = r#"{"flag": 1, "mine": 1, "commander": 1, "platoon_leader": 4}"#;

fn seven(options: &str) -> Arc<RuleSet> {
    Arc::new(seven_of(SEVEN, options).unwrap())
}

/// South's commander on d11 attacks d12, of which South knows nothing, in a game of
/// [`seven`] with `options` started from South's flag on b1, its mine on d1 and
/// `pieces` (a9 to d12); the attack is repelled. The game and South's beliefs after it.
fn repelled_on_d12(options: &str, pieces: &str) -> (Game, Beliefs) {
    let mut g = Game::from_position_string_with(seven(options), &format!("seven b1=SFL,d1=SMI,{pieces} move S 5 0"), 1).unwrap();
    assert_eq!(kinds(&g.beliefs(Side::South), &g, "d12"), vec![Flag, Commander, PlatoonLeader, Mine]);
    let r = g.play_notation("d11-d12").unwrap();
    assert!(
        r.public.iter().any(|e| matches!(e, Event::Attacked { outcome: junqi::CombatOutcome::Repel, .. })),
        "{:?}",
        r.public
    );
    let south = g.beliefs(Side::South);
    assert!(south.is_consistent());
    (g, south)
}

#[test]
fn an_attack_repelled_by_an_hq_s_shelter_tells_no_flag_stands_there() {
    // `hq_shelter` (翻棋's rule): a piece in an HQ is sheltered from attack, but for a
    // mine or the flag. South's commander attacks d12 and is repelled: that is neither
    // the flag nor the mine (either would have met it as anywhere else).
    let (g, south) = repelled_on_d12(r#"{"hq_shelter": true}"#, "a9=NGN*,d10=NMI,d11=SGN*,b12=NFL,d12=NPL");
    assert_eq!(kinds(&south, &g, "d12"), vec![Commander, PlatoonLeader]);
}

#[test]
fn an_attack_on_a_flag_its_mines_guard_is_repelled_and_shows_the_flag() {
    // `flag_guarded_by_mines` (翻棋's rule): while its army has a mine, the flag
    // repels every attack. South's commander attacks d12 and is repelled: against a
    // platoon leader it would have won, against the mine or North's commander it would
    // not have stayed, so d12 is the flag.
    let (g, south) = repelled_on_d12(r#"{"flag_guarded_by_mines": true}"#, "a9=NGN*,d10=NPL,d11=SGN*,b12=NMI,d12=NFL");
    assert_eq!(kinds(&south, &g, "d12"), vec![Flag]);
    assert!(!kinds(&south, &g, "b12").contains(&Flag));
}

#[test]
fn a_plane_that_flies_over_an_enemy_unharmed_shows_it_is_no_anti_aircraft_piece() {
    // Search random games for a plane's flight over enemy pieces it survives, a move or
    // an attack that leaves it on the board: for the plane's owner, none of those
    // pieces (the target aside) is an anti-aircraft kind any more.
    let (mut found, mut attacks) = (0, 0);
    for seed in 0..400u64 {
        let mut g = Game::new("sanjun-modern", seed).unwrap();
        let mut rng = Rng::new(seed);
        for &s in &[Side::South, Side::North] {
            g.deploy_random(s, rng.next_u64()).unwrap();
        }
        while g.result().is_none() && (found < 5 || attacks < 2) && g.position().ply() < 600 {
            let legal = g.legal_actions();
            let before = g.position().clone();
            let r = g.play(legal[rng.below(legal.len())]).unwrap();
            let Some((side, from, to, attack)) = r.public.iter().find_map(|e| match *e {
                Event::Moved { side, from, to } => Some((side, from, to, false)),
                Event::Attacked { side, from, to, outcome: junqi::CombatOutcome::Win | junqi::CombatOutcome::Repel } => {
                    Some((side, from, to, true))
                }
                _ => None,
            }) else {
                continue;
            };
            let board = g.board();
            if !board.is_air(from) || !before.piece_at(from).is_some_and(|(_, k)| g.rules().mobility(k) == junqi::Mobility::Fly) {
                continue;
            }
            let target = board.below(to).unwrap_or(to);
            let enemies: Vec<_> = board
                .passed_over(from, to)
                .filter(|&q| q != to && q != target)
                .filter(|&q| before.owner_at(q).is_some_and(|o| o != side) && !before.knows(side, q))
                .collect();
            if enemies.is_empty() {
                continue;
            }
            // Had it been unknown before, an anti-aircraft kind was still a candidate.
            let b = g.beliefs(side);
            for q in enemies {
                let c = b.candidates(q);
                assert!(
                    !c.iter().any(|k| g.rules().has_ability(k, junqi::Ability::AntiAir)),
                    "seed {seed}: {} passed over {}: {c:?}",
                    side,
                    board.name_of(q)
                );
            }
            found += 1;
            attacks += usize::from(attack);
        }
        if found >= 5 && attacks >= 2 {
            break;
        }
    }
    assert!(found >= 5 && attacks >= 2, "{found} flights over unseen enemies ({attacks} attacks) in the games searched");
}

#[test]
fn the_smallest_piece_that_digs_a_mine_tells_what_it_met() {
    // `smallest_digs_mines: engineers_gone` (翻棋's rule): with no engineer left, the
    // smallest piece attacks a mine as an engineer does and digs it. The army's one
    // engineer is off the board, and the platoon leaders are its smallest pieces.
    let rules = Arc::new(
        seven_of(
            r#"{"flag": 1, "mine": 1, "commander": 1, "engineer": 1, "platoon_leader": 3}"#,
            r#"{"smallest_digs_mines": "engineers_gone"}"#,
        )
        .unwrap(),
    );
    let gone = |g: &Game| -> Vec<Vec<(Side, PieceKind)>> {
        g.beliefs(Side::South).off_board().into_iter().filter(|c| c[0].0 == Side::North).collect()
    };
    // South's platoon leader takes d12: a mine it dug (the flag would have ended the
    // game; the commander and a platoon leader would not have lost).
    let mut g = Game::from_position_string_with(
        rules.clone(),
        "seven b1=SFL,d1=SMI,a9=NGN*,d10=NPL,d11=SPL*,b12=NFL,d12=NMI move S 5 0",
        1,
    )
    .unwrap();
    let before = gone(&g);
    g.play_notation("d11-d12").unwrap();
    assert_eq!(g.position().piece_at(g.board().point("d12").unwrap()), Some((Side::South, PlatoonLeader)), "dug");
    let after = gone(&g);
    assert_eq!(after.len(), before.len() + 1);
    // What a platoon leader takes: the engineer, the flag, or a mine it digs.
    assert!(after.contains(&vec![(Side::North, Flag), (Side::North, Engineer), (Side::North, Mine)]), "{after:?}");
    assert!(!before.iter().any(|c| c.len() == 3), "{before:?}");
    assert!(g.beliefs(Side::South).is_consistent());
    // Both leave: another platoon leader, not a mine (dug, the platoon leader would
    // have stayed).
    let mut g = Game::from_position_string_with(
        rules.clone(),
        "seven b1=SFL,d1=SMI,a9=NGN*,d10=NMI,d11=SPL*,b12=NFL,d12=NPL move S 5 0",
        1,
    )
    .unwrap();
    let before = gone(&g);
    g.play_notation("d11-d12").unwrap();
    let after = gone(&g);
    assert_eq!(after.len(), before.len() + 1);
    assert!(after.contains(&vec![(Side::North, PlatoonLeader)]), "{after:?}");
    // An army without the stand-in's kind is refused when the rules load.
    let err = seven_of(SEVEN, r#"{"smallest_digs_mines": "engineers_gone"}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        "option smallest_digs_mines: seven has no engineer, the kind its smallest piece stands in for against a mine"
    );
}

#[test]
fn a_strike_is_a_striking_kind_s_and_a_winning_attack_moves_the_attacker() {
    // Random sanjun-modern games: after a strike, the striker (still on its point) is
    // for its opponent a kind that strikes (a fort, a gunboat, an anti-aircraft
    // piece), and has not moved for that; after an attack that won by moving onto
    // the target, the attacker has moved.
    let (mut strikes, mut wins) = (0, 0);
    for seed in 0..200u64 {
        let mut g = Game::new("sanjun-modern", seed).unwrap();
        let mut rng = Rng::new(seed ^ 0x5EED);
        for &s in &[Side::South, Side::North] {
            g.deploy_random(s, rng.next_u64()).unwrap();
        }
        while g.result().is_none() && (strikes < 10 || wins < 10) && g.position().ply() < 600 {
            let legal = g.legal_actions();
            let before = g.position().clone();
            let r = g.play(legal[rng.below(legal.len())]).unwrap();
            for e in &r.public {
                match *e {
                    Event::Struck { side, from, .. } if g.position().owner_at(from) == Some(side) => {
                        let other = g.rules().sides().iter().copied().find(|&s| s != side).unwrap();
                        let b = g.beliefs(other);
                        let c = b.candidates(from);
                        assert!(
                            c.iter().all(|k| [junqi::Ability::Strike, junqi::Ability::Bombard, junqi::Ability::AntiAir]
                                .iter()
                                .any(|&a| g.rules().has_ability(k, a))),
                            "seed {seed}: {side} struck from {}: {c:?}",
                            g.board().name_of(from)
                        );
                        assert_eq!(b.has_moved(from), before.has_moved(from), "seed {seed}: a strike is no move");
                        strikes += 1;
                    }
                    Event::Attacked { side, to, outcome: junqi::CombatOutcome::Win, .. }
                        if g.position().owner_at(to) == Some(side) =>
                    {
                        let other = g.rules().sides().iter().copied().find(|&s| s != side).unwrap();
                        assert!(g.beliefs(other).has_moved(to), "seed {seed}: {side} won onto {}", g.board().name_of(to));
                        wins += 1;
                    }
                    _ => {}
                }
            }
        }
        if strikes >= 10 && wins >= 10 {
            break;
        }
    }
    assert!(strikes >= 10 && wins >= 10, "{strikes} strikes, {wins} winning attacks in the games searched");
}

#[test]
fn after_a_contradiction_the_beliefs_follow_the_attacker_s_first_candidate() {
    // An event stream no game makes: North's flag (immobile) "attacks" and wins. The
    // beliefs say they are inconsistent, do not panic, and follow the board as the
    // first candidate kind would: a flag strikes from where it stands, so it stays on
    // b12 and South's piece on b1 leaves.
    let rules = tiny(r#"{"flag": 1, "mine": 1}"#, "{}");
    let own = setup(&[("b1", Flag), ("d1", Mine)]);
    let mut b = Beliefs::new(rules.clone(), Side::South, Some(&own)).unwrap();
    let g = game(&rules, &[("b1", Flag), ("d1", Mine)], &[("b12", Flag), ("d12", Mine)], &[]);
    b.observe(&g.events(Side::South));
    assert!(b.is_consistent());
    let p = |n: &str| g.board().point(n).unwrap();
    b.observe(&[Event::Attacked { side: Side::North, from: p("b12"), to: p("b1"), outcome: junqi::CombatOutcome::Win }]);
    assert!(!b.is_consistent());
    assert_eq!(b.owner(p("b12")), Some(Side::North));
    assert_eq!(b.owner(p("b1")), None);
}

#[test]
fn a_partner_s_setup_learnt_after_the_events_names_each_of_its_pieces() {
    // `allies_see_each_other` in 四国: South's beliefs read from the deployments' events
    // alone, then North's setup (its partner) learnt: each of North's points has
    // exactly its kind and is known, as in the game's own beliefs (which learn it
    // before the events); East's and West's pieces are untouched.
    let rules = Arc::new(
        RuleSet::from_json(r#"{"extends": "siguo", "name": "siguo-open-allies", "options": {"allies_see_each_other": true}}"#).unwrap(),
    );
    let mut g = Game::with_rules(rules.clone(), 1);
    let setups: Vec<(Side, Setup)> = rules.sides().iter().map(|&s| (s, Setup::random(&rules, s, 3 + s as u64))).collect();
    for (side, setup) in &setups {
        g.deploy(*side, setup).unwrap();
    }
    let mut b = Beliefs::new(rules.clone(), Side::South, Some(&setups[0].1)).unwrap();
    b.observe(g.events(Side::South));
    let before: Vec<usize> = rules.board().points().map(|p| b.candidates(p).len()).collect();
    let north = &setups.iter().find(|(s, _)| *s == Side::North).unwrap().1;
    b.learn_setup(Side::North, north).unwrap();
    assert!(b.is_consistent());
    let game_s = g.beliefs(Side::South);
    for &(p, kind) in north.validate(&rules, Side::North).unwrap().pieces() {
        let name = rules.board().name_of(p);
        assert_eq!(kinds(&b, &g, name), vec![kind], "{name}");
        assert_eq!(kinds(&game_s, &g, name), vec![kind], "{name}");
        assert!(b.is_known(p) && game_s.is_known(p), "{name}");
    }
    for (i, p) in rules.board().points().enumerate() {
        if matches!(b.owner(p), Some(Side::East | Side::West)) {
            assert_eq!(b.candidates(p).len(), before[i], "{}", rules.board().name_of(p));
            assert!(!b.is_known(p));
        }
    }
}

#[test]
fn the_deployment_constraints_are_propagated_from_the_start() {
    // Seven pieces a side in the HQs and camps, the flag and the mine both bound to the
    // two HQs: the counts alone tell, from the deployment on, that North's HQs hold the
    // flag and the mine (the commander and the platoon leaders may stand there by the
    // constraints, but then the flag or the mine would have nowhere to go).
    let rules = Arc::new(
        RuleSet::from_json(&format!(
            r#"{{"extends": "classic", "name": "seven", "army": {SEVEN},
                "deployment": {{"roles": ["hq", "camp"], "constraints": [{{"kind": "flag", "roles": ["hq"]}}, {{"kind": "mine", "roles": ["hq"]}}]}}}}"#
        ))
        .unwrap(),
    );
    let mut g = Game::with_rules(rules.clone(), 1);
    for &side in rules.sides() {
        g.deploy(side, &Setup::random(&rules, side, 7)).unwrap();
    }
    let south = g.beliefs(Side::South);
    for hq in ["b12", "d12"] {
        assert_eq!(kinds(&south, &g, hq), vec![Flag, Mine], "{hq}");
    }
    for camp in ["b10", "d10", "c9", "b8", "d8"] {
        assert_eq!(kinds(&south, &g, camp), vec![Commander, PlatoonLeader], "{camp}");
    }
}

#[test]
fn an_eliminated_seat_s_pieces_leave_every_player_s_board() {
    // 四国, random play from a seeded start until a seat is eliminated (its pieces
    // leave the board, `Event::Eliminated`): every seat's beliefs then hold exactly the
    // pieces on the board, the eliminated army's none.
    let rules = RuleSet::preset("siguo").unwrap();
    let mut g = Game::random_start(rules.clone(), 0).unwrap();
    let mut rng = Rng::new(0);
    let mut out = None;
    for _ in 0..3000 {
        if out.is_some() || g.result().is_some() {
            break;
        }
        let legal = g.legal_actions();
        let r = g.play(legal[rng.below(legal.len())]).unwrap();
        out = r.public.iter().find_map(|e| match e {
            Event::Eliminated { side, .. } => Some(*side),
            _ => None,
        });
    }
    let out = out.expect("a seat is eliminated");
    assert!(g.position().occupied_by(out).is_empty());
    for &side in rules.sides() {
        let b = g.beliefs(side);
        assert!(b.is_consistent(), "{side}");
        assert_eq!(b.occupied(), g.position().occupied(), "{side}'s beliefs after {out} is out");
        for p in g.position().occupied().iter() {
            assert!(!b.candidates(p).is_empty(), "{side}: {}", rules.board().name_of(p));
        }
    }
}

/// Where each army's flag stands (`None` when it is off the board).
fn flags(g: &Game) -> [Option<junqi::Point>; 4] {
    let pos = g.position();
    let mut at = [None; 4];
    for p in pos.occupied().iter() {
        if let Some((army, Flag)) = pos.piece_at(p) {
            at[army as usize] = Some(p);
        }
    }
    at
}

fn commanders(g: &Game) -> [usize; 4] {
    let pos = g.position();
    let mut n = [0; 4];
    for p in pos.occupied().iter() {
        if let Some((army, Commander)) = pos.piece_at(p) {
            n[army as usize] += 1;
        }
    }
    n
}

#[test]
fn a_dealt_four_army_game_s_beliefs_follow_flags_shown_face_down_taken_and_left_behind() {
    // Under a deal a commander's fall shows its army's flag where it lies, face down or
    // not; a flag can be taken while no player commands its army (nobody is out, and a
    // later fall of that commander shows nothing); and a player put out takes its army's
    // face-up pieces off the board, the face-down ones (a shown flag too) staying. Random
    // play with time-outs: every player's beliefs stay consistent and hold the board.
    let rules = siguo_dealt();
    let (mut shown_down, mut fell_flagless, mut out_shown_down) = (0, 0, 0);
    // Seeds chosen (out of the first 400) to hold each case.
    for seed in [12, 37, 42, 134] {
        let mut g = Game::with_rules(rules.clone(), seed);
        let mut rng = Rng::new(seed);
        let mut shown = Vec::new();
        // The same game from a position string written at ply 20 (beliefs with no history).
        let mut from_string: Option<Game> = None;
        for ply in 0..3000 {
            let legal = g.legal_actions();
            if g.result().is_some() || legal.is_empty() {
                break;
            }
            if ply == 20 {
                from_string = Some(Game::from_position_string_with(rules.clone(), &g.position_string(), seed).unwrap());
            }
            let (before_flags, before_commanders) = (flags(&g), commanders(&g));
            let report = if rng.below(40) == 0 {
                if let Some(h) = &mut from_string {
                    h.time_out().unwrap();
                }
                g.time_out().unwrap()
            } else {
                let action = legal[rng.below(legal.len())];
                if let Some(h) = &mut from_string {
                    h.play(action).unwrap();
                }
                g.play(action).unwrap()
            };
            if ply % 25 == 0 {
                // A face-down piece's kinds, whatever its army (four armies' candidates).
                for &player in rules.sides() {
                    let b = g.beliefs(player);
                    for p in b.occupied().iter() {
                        let kinds = b.candidate_identities(p).iter().fold(0u32, |m, &(_, k)| m | 1 << k as u32);
                        assert_eq!(b.candidates(p).0, kinds, "seed {seed} ply {ply}: {player}'s kinds on {p:?}");
                    }
                }
            }
            let after = commanders(&g);
            for army in 0..4 {
                fell_flagless += usize::from(after[army] < before_commanders[army] && before_flags[army].is_none());
            }
            for e in &report.public {
                match *e {
                    Event::Revealed { point, .. } if g.position().is_face_down(point) => {
                        shown_down += 1;
                        shown.push(point);
                    }
                    Event::Eliminated { side, .. } => {
                        let army = g.position().army_of(side);
                        out_shown_down += shown
                            .iter()
                            .filter(|&&p| g.position().is_face_down(p) && g.position().piece_at(p).map(|x| Some(x.0)) == Some(army))
                            .count();
                    }
                    _ => {}
                }
            }
        }
        for (g, how) in [(&g, "dealt"), (from_string.as_ref().unwrap(), "from a string")] {
            for &player in rules.sides() {
                let b = g.beliefs(player);
                let name = format!("seed {seed}, {how}: {player}'s beliefs");
                assert!(b.is_consistent(), "{name}");
                assert_eq!(b.occupied(), g.position().occupied(), "{name}");
                for piece in &g.view(player).pieces {
                    if let Some(kind) = piece.kind {
                        assert!(b.candidates(piece.point).contains(kind), "{name}: {kind} on {:?}", piece.point);
                    }
                }
            }
        }
    }
    // The three cases happened (the test would not see them fail otherwise).
    assert!(shown_down > 0 && fell_flagless > 0 && out_shown_down > 0, "{shown_down} {fell_flagless} {out_shown_down}");
}
