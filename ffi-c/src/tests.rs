//! Rust tests of the C boundary: statuses, NULL handling, the panic boundary and
//! poisoning, the enum mirrors, and a game played through the exported functions.
#![allow(clippy::undocumented_unsafe_blocks)] // test code: every pointer is made right here

use std::ffi::{c_char, CStr, CString};
use std::ptr::null_mut;

use junqi_core::{Attack, EndReason, CombatOutcome, Phase, PieceKind, Side};

use crate::boundary::guard;
use crate::status::{junqi_status, Error};
use crate::types::KINDS;
use crate::*;

fn last_error() -> String {
    unsafe { CStr::from_ptr(junqi_last_error_message()) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// Takes ownership of a library string.
fn take(s: *mut c_char) -> String {
    assert!(!s.is_null());
    let text = unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned();
    unsafe { junqi_string_free(s) };
    text
}

fn classic() -> *mut junqi_rules {
    let mut rules = null_mut();
    let name = CString::new("classic").unwrap();
    assert_eq!(
        unsafe { junqi_rules_preset(name.as_ptr(), &mut rules) },
        junqi_status::Ok
    );
    rules
}

fn deployed_game(rules: *const junqi_rules) -> *mut junqi_game {
    let mut game = null_mut();
    unsafe {
        assert_eq!(junqi_game_new(rules, 3, &mut game), junqi_status::Ok);
        assert_eq!(
            junqi_game_deploy_random(game, junqi_side::South as i32, 1, null_mut()),
            junqi_status::Ok
        );
        assert_eq!(
            junqi_game_deploy_random(game, junqi_side::North as i32, 2, null_mut()),
            junqi_status::Ok
        );
    }
    game
}

#[test]
fn status_table_matches_values() {
    for (i, s) in junqi_status::ALL.iter().enumerate() {
        assert_eq!(*s as usize, i);
        let name = unsafe { CStr::from_ptr(junqi_status_name(i as i32)) }
            .to_str()
            .unwrap();
        assert!(name.starts_with("JUNQI_STATUS_"), "{name}");
    }
    let unknown = unsafe { CStr::from_ptr(junqi_status_name(-3)) };
    assert_eq!(unknown.to_str().unwrap(), "JUNQI_STATUS_UNKNOWN");
}

#[test]
fn enums_mirror_the_core() {
    for (i, kind) in PieceKind::ALL.into_iter().enumerate() {
        assert_eq!(KINDS[i] as usize, i);
        // The C constant's name is the core id in upper case.
        let debug = format!("{:?}", KINDS[i]);
        let mut snake = String::new();
        for (j, c) in debug.chars().enumerate() {
            if c.is_uppercase() && j > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        assert_eq!(snake, kind.id());
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { junqi_piece_kind_name(i as i32, &mut name) },
            junqi_status::Ok
        );
        assert_eq!(unsafe { CStr::from_ptr(name) }.to_str().unwrap(), kind.id());
    }
    for side in Side::ALL {
        assert_eq!(types::side_to_c(side) as i32, side as i32);
    }
    assert_eq!(
        types::outcome_to_c(CombatOutcome::Evade) as i32,
        CombatOutcome::Evade as i32
    );
}

#[test]
fn phases_and_reasons_mirror_the_core() {
    // Every core phase and reason has its own C constant (not OTHER), whose name is the
    // core's name; the tables are in C value order.
    for phase in Phase::ALL {
        let c = types::phase_to_c(phase);
        assert_ne!(
            c,
            junqi_phase::Other,
            "{phase:?} has no junqi_phase constant"
        );
        assert_eq!(types::PHASES[c as usize], phase);
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { junqi_phase_name(c as i32, &mut name) },
            junqi_status::Ok
        );
        assert_eq!(
            unsafe { CStr::from_ptr(name) }.to_str().unwrap(),
            phase.name()
        );
    }
    assert_eq!(types::PHASES.len(), Phase::ALL.len());
    for reason in EndReason::ALL {
        let c = types::reason_to_c(reason);
        assert_ne!(c, junqi_end_reason::Other, "{reason:?} has no constant");
        assert_eq!(types::REASONS[c as usize], reason);
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { junqi_end_reason_name(c as i32, &mut name) },
            junqi_status::Ok
        );
        assert_eq!(
            unsafe { CStr::from_ptr(name) }.to_str().unwrap(),
            reason.name()
        );
    }
    assert_eq!(types::REASONS.len(), EndReason::ALL.len());
    // The published values never change.
    assert_eq!(junqi_phase::Over as i32, 2);
    assert_eq!(junqi_phase::Reaction as i32, 3);
    assert_eq!(junqi_end_reason::CommanderCaptured as i32, 7);
    assert_eq!(junqi_end_reason::MutualElimination as i32, 8);
    assert_eq!(junqi_end_reason::Escape as i32, 9);
}

#[test]
fn attacks_mirror_the_core() {
    // Every core attack has its C constant, in `ATTACKS` order, named as in Python.
    let core = [Attack::Move, Attack::Flight, Attack::Strike, Attack::Bombardment];
    let c = [
        junqi_attack::Move,
        junqi_attack::Flight,
        junqi_attack::Strike,
        junqi_attack::Bombardment,
    ];
    let names = ["move", "flight", "strike", "bombardment"];
    assert_eq!(types::ATTACKS, core);
    for i in 0..core.len() {
        assert_eq!(c[i] as usize, i, "published values never change");
        assert_eq!(types::attack_arg(i as i32).unwrap(), core[i]);
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { junqi_attack_name(i as i32, &mut name) },
            junqi_status::Ok
        );
        assert_eq!(unsafe { CStr::from_ptr(name) }.to_str().unwrap(), names[i]);
    }
    for bad in [-1, 4, 99] {
        let e = types::attack_arg(bad).unwrap_err();
        assert_eq!(e.status, junqi_status::OutOfRange);
        assert!(e.message.contains("junqi_attack"), "{}", e.message);
        let mut name = std::ptr::null();
        assert_eq!(
            unsafe { junqi_attack_name(bad, &mut name) },
            junqi_status::OutOfRange
        );
    }
}

fn preset(name: &str) -> *mut junqi_rules {
    let mut rules = null_mut();
    let name = CString::new(name).unwrap();
    assert_eq!(
        unsafe { junqi_rules_preset(name.as_ptr(), &mut rules) },
        junqi_status::Ok
    );
    rules
}

#[test]
fn resolve_attack_through_the_c_api() {
    let rules = preset("sanjun-modern");
    let core = junqi_core::RuleSet::preset("sanjun-modern").unwrap();
    let k = |kind: PieceKind| kind as i32;
    unsafe {
        let mut r = types::resolution_to_c(junqi_core::resolve_attack(
            &core,
            PieceKind::Flag,
            PieceKind::Flag,
            Attack::Move,
        ));
        // A gunboat's bombardment of a commander: the gunboat loses, nobody leaves.
        assert_eq!(
            junqi_resolve_attack(
                rules,
                k(PieceKind::Gunboat),
                k(PieceKind::Commander),
                junqi_attack::Bombardment as i32,
                &mut r
            ),
            junqi_status::Ok
        );
        assert_eq!(r.outcome, junqi_outcome::Lose);
        assert!(!r.attacker_leaves && !r.defender_leaves && !r.attacker_moves);
        // Every kind pair and manner agrees with the core.
        for a in PieceKind::ALL {
            for d in PieceKind::ALL {
                for (i, attack) in types::ATTACKS.into_iter().enumerate() {
                    assert_eq!(
                        junqi_resolve_attack(rules, k(a), k(d), i as i32, &mut r),
                        junqi_status::Ok
                    );
                    let want = junqi_core::resolve_attack(&core, a, d, attack);
                    assert_eq!(r, types::resolution_to_c(want), "{a:?} {d:?} {attack:?}");
                }
            }
        }
        let before = r;
        assert_eq!(
            junqi_resolve_attack(rules, 0, 0, 4, &mut r),
            junqi_status::OutOfRange
        );
        assert!(last_error().contains("junqi_attack"));
        assert_eq!(
            junqi_resolve_attack(rules, 32, 0, 0, &mut r),
            junqi_status::OutOfRange
        );
        assert_eq!(r, before, "nothing written on failure");
        assert_eq!(
            junqi_resolve_attack(rules, 0, 0, 0, null_mut()),
            junqi_status::NullPointer
        );
        assert!(last_error().contains("resolution_out"));
        assert_eq!(
            junqi_resolve_attack(std::ptr::null(), 0, 0, 0, &mut r),
            junqi_status::NullPointer
        );
        junqi_rules_free(rules);
    }
}

#[test]
fn obligations_through_the_c_api() {
    let rules = preset("sanjun-modern");
    let mut found = 0;
    unsafe {
        let mut space = 0;
        assert_eq!(junqi_rules_action_space(rules, &mut space), junqi_status::Ok);
        let mut ids = vec![0u32; space];
        for seed in 0..20u64 {
            let mut game = null_mut();
            assert_eq!(junqi_game_new(rules, seed, &mut game), junqi_status::Ok);
            let mut point = 0;
            // Before and right after deployment nobody has an obligation.
            assert_eq!(
                junqi_game_obligation(game, junqi_side::South as i32, &mut point),
                junqi_status::Ok
            );
            assert_eq!(point, JUNQI_POINT_NONE);
            for (side, s) in [(junqi_side::South, 1), (junqi_side::North, 2)] {
                assert_eq!(
                    junqi_game_deploy_random(game, side as i32, seed * 2 + s, null_mut()),
                    junqi_status::Ok
                );
            }
            for side in [junqi_side::South, junqi_side::North] {
                assert_eq!(
                    junqi_game_obligation(game, side as i32, &mut point),
                    junqi_status::Ok
                );
                assert_eq!(point, JUNQI_POINT_NONE);
            }
            let mut plies = 0usize;
            loop {
                let (mut side, mut phase) = (junqi_side::None, junqi_phase::Deploy);
                assert_eq!(
                    junqi_game_to_act(game, &mut side, &mut phase),
                    junqi_status::Ok
                );
                if phase == junqi_phase::Over {
                    break;
                }
                let mut n = 0;
                assert_eq!(
                    junqi_game_legal_action_ids(game, ids.as_mut_ptr(), space, &mut n),
                    junqi_status::Ok
                );
                if phase == junqi_phase::Move {
                    assert_eq!(
                        junqi_game_obligation(game, side as i32, &mut point),
                        junqi_status::Ok
                    );
                    if point != JUNQI_POINT_NONE {
                        // Every legal action moves the obliged plane.
                        found += 1;
                        for &id in &ids[..n] {
                            let mut mv = junqi_move { from: 0, to: 0 };
                            assert_eq!(
                                junqi_move_from_id(rules, id, &mut mv),
                                junqi_status::Ok
                            );
                            assert_eq!(mv.from, point);
                        }
                        let mut name = null_mut();
                        assert_eq!(junqi_point_print(rules, point, &mut name), junqi_status::Ok);
                        assert!(take(name).ends_with('^'), "a plane is in the air");
                    }
                }
                let pick = (plies * 7 + seed as usize) % n;
                assert_eq!(
                    junqi_game_play_id(game, ids[pick], null_mut()),
                    junqi_status::Ok
                );
                plies += 1;
                assert!(plies < 100_000);
            }
            assert_eq!(
                junqi_game_obligation(game, junqi_side::East as i32, &mut point),
                junqi_status::SideNotInGame
            );
            assert_eq!(
                junqi_game_obligation(game, 4, &mut point),
                junqi_status::OutOfRange
            );
            assert_eq!(
                junqi_game_obligation(game, junqi_side::South as i32, null_mut()),
                junqi_status::NullPointer
            );
            junqi_game_free(game);
        }
        junqi_rules_free(rules);
    }
    assert!(found > 0, "no random game had an obligation");
}

#[test]
fn null_pointers_are_reported() {
    let rules = classic();
    let mut out = null_mut();
    unsafe {
        assert_eq!(
            junqi_rules_preset(std::ptr::null(), &mut out),
            junqi_status::NullPointer
        );
        assert!(last_error().contains("name is NULL"));
        assert_eq!(
            junqi_rules_name(rules, null_mut()),
            junqi_status::NullPointer
        );
        assert_eq!(
            junqi_game_new(std::ptr::null(), 1, null_mut()),
            junqi_status::NullPointer
        );
        assert_eq!(
            junqi_game_play(null_mut(), std::ptr::null(), null_mut()),
            junqi_status::NullPointer
        );
        let mut len = 0;
        assert_eq!(
            junqi_rules_sides(rules, null_mut(), 2, &mut len),
            junqi_status::NullPointer
        );
        // NULL is fine for every _free.
        junqi_string_free(null_mut());
        junqi_game_free(null_mut());
        junqi_rules_free(null_mut());
        junqi_rules_free(rules);
    }
}

#[test]
fn invalid_utf8_and_json() {
    let mut out = null_mut();
    let bad = [0xffu8, 0xfe, 0];
    unsafe {
        assert_eq!(
            junqi_rules_preset(bad.as_ptr().cast(), &mut out),
            junqi_status::InvalidUtf8
        );
        // Text that is not JSON is of the kind of what it should have been
        // (docs/errors.md).
        let text = CString::new("{").unwrap();
        assert_eq!(
            junqi_rules_from_json(text.as_ptr(), &mut out),
            junqi_status::InvalidRules
        );
        assert_eq!(
            junqi_game_from_record(text.as_ptr(), null_mut()),
            junqi_status::NullPointer
        );
        let mut game = null_mut();
        assert_eq!(
            junqi_game_from_record(text.as_ptr(), &mut game),
            junqi_status::InvalidRecord
        );
        assert!(game.is_null());
    }
}

#[test]
fn the_boundary_catches_panics() {
    assert_eq!(guard(|| panic!("boom {}", 42)), junqi_status::Panic);
    assert!(last_error().contains("boom 42"), "{}", last_error());
    assert_eq!(
        guard(|| Err(Error::out_of_range("far"))),
        junqi_status::OutOfRange
    );
    assert_eq!(last_error(), "far");
    assert_eq!(guard(|| Ok(())), junqi_status::Ok);
    assert_eq!(last_error(), "far", "success leaves the last error alone");
}

#[test]
fn a_panic_poisons_the_game() {
    let rules = classic();
    let game = deployed_game(rules);
    unsafe {
        assert_eq!(junqi_test_panic(game), junqi_status::Panic);
        let (mut side, mut phase) = (junqi_side::None, junqi_phase::Deploy);
        assert_eq!(
            junqi_game_to_act(game, &mut side, &mut phase),
            junqi_status::Poisoned
        );
        assert_eq!(
            junqi_game_play_id(game, 0, null_mut()),
            junqi_status::Poisoned
        );
        assert_eq!(junqi_test_panic(game), junqi_status::Poisoned);
        junqi_game_free(game);
        // The rule set is immutable and stays usable.
        let mut size = 0;
        assert_eq!(junqi_rules_action_space(rules, &mut size), junqi_status::Ok);
        junqi_rules_free(rules);
    }
}

#[test]
fn a_game_through_the_c_api() {
    let rules = classic();
    let game = deployed_game(rules);
    let mut space = 0;
    unsafe {
        assert_eq!(junqi_game_action_space(game, &mut space), junqi_status::Ok);
        let mut ids = vec![0u32; space];
        let mut plies = 0;
        loop {
            let (mut side, mut phase) = (junqi_side::None, junqi_phase::Deploy);
            assert_eq!(
                junqi_game_to_act(game, &mut side, &mut phase),
                junqi_status::Ok
            );
            if phase != junqi_phase::Move {
                assert_eq!(phase, junqi_phase::Over);
                assert_eq!(side, junqi_side::None);
                break;
            }
            let mut n = 0;
            assert_eq!(
                junqi_game_legal_action_ids(game, ids.as_mut_ptr(), space, &mut n),
                junqi_status::Ok
            );
            let mut report = null_mut();
            assert_eq!(
                junqi_game_play_id(game, ids[(plies * 7) % n], &mut report),
                junqi_status::Ok
            );
            let report: serde_json::Value = serde_json::from_str(&take(report)).unwrap();
            assert!(report["public"].is_array());
            plies += 1;
            assert!(plies < 100_000);
        }
        let mut result = types::result_to_c(None);
        assert_eq!(junqi_game_result(game, &mut result), junqi_status::Ok);
        assert!(result.over);

        let mut record = null_mut();
        assert_eq!(junqi_game_record_json(game, &mut record), junqi_status::Ok);
        let record = CString::new(take(record)).unwrap();
        let mut replay = null_mut();
        assert_eq!(
            junqi_game_from_record(record.as_ptr(), &mut replay),
            junqi_status::Ok
        );
        let (mut a, mut b) = (null_mut(), null_mut());
        assert_eq!(
            junqi_game_view_json(game, junqi_side::North as i32, &mut a),
            junqi_status::Ok
        );
        assert_eq!(
            junqi_game_view_json(replay, junqi_side::North as i32, &mut b),
            junqi_status::Ok
        );
        assert_eq!(take(a), take(b));
        junqi_game_free(replay);
        junqi_game_free(game);
        junqi_rules_free(rules);
    }
}

#[test]
fn views_hide_enemy_identities() {
    let rules = classic();
    let game = deployed_game(rules);
    let mut view = null_mut();
    unsafe {
        assert_eq!(
            junqi_game_view_json(game, junqi_side::North as i32, &mut view),
            junqi_status::Ok
        );
    }
    let view: serde_json::Value = serde_json::from_str(&take(view)).unwrap();
    for piece in view["pieces"].as_array().unwrap() {
        if piece["owner"] == "south" {
            assert!(piece["kind"].is_null(), "{piece}");
        } else {
            assert!(piece["kind"].is_string(), "{piece}");
        }
    }
    unsafe {
        junqi_game_free(game);
        junqi_rules_free(rules);
    }
}

#[test]
fn buffers_and_ranges() {
    let rules = classic();
    let game = deployed_game(rules);
    unsafe {
        let mut n = 0;
        assert_eq!(
            junqi_game_legal_action_ids(game, null_mut(), 0, &mut n),
            junqi_status::BufferTooSmall
        );
        assert!(n > 0);
        let mut one = [u32::MAX; 1];
        assert_eq!(
            junqi_game_legal_action_ids(game, one.as_mut_ptr(), 1, &mut n),
            junqi_status::BufferTooSmall
        );
        assert_eq!(one[0], u32::MAX, "nothing written on BUFFER_TOO_SMALL");
        let mut out = null_mut();
        assert_eq!(
            junqi_game_view_json(game, 4, &mut out),
            junqi_status::OutOfRange
        );
        assert_eq!(
            junqi_game_view_json(game, junqi_side::East as i32, &mut out),
            junqi_status::SideNotInGame
        );
        assert_eq!(
            junqi_game_play_id(game, u32::MAX, null_mut()),
            junqi_status::OutOfRange
        );
        let mut outcome = junqi_outcome::Win;
        assert_eq!(
            junqi_resolve(rules, 0, 32, &mut outcome),
            junqi_status::OutOfRange
        );
        junqi_game_free(game);
        junqi_rules_free(rules);
    }
}

#[test]
fn the_last_error_is_per_thread() {
    let mut out = null_mut();
    let bad = CString::new("chess").unwrap();
    assert_eq!(
        unsafe { junqi_rules_preset(bad.as_ptr(), &mut out) },
        junqi_status::UnknownName
    );
    let mine = last_error();
    assert!(mine.contains("chess"));
    std::thread::spawn(|| {
        assert_eq!(last_error(), "", "a new thread starts with no error");
        assert_eq!(
            guard(|| Err(Error::out_of_range("other thread"))),
            junqi_status::OutOfRange
        );
        assert_eq!(last_error(), "other thread");
    })
    .join()
    .unwrap();
    assert_eq!(last_error(), mine);
}

#[test]
fn rules_are_shared_between_threads() {
    struct Shared(*mut junqi_rules);
    // SAFETY (test): a `junqi_rules` is immutable and documented as shareable.
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}
    let rules = std::sync::Arc::new(Shared(classic()));
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let rules = std::sync::Arc::clone(&rules);
            std::thread::spawn(move || {
                let game = deployed_game(rules.0);
                let mut board = null_mut();
                assert_eq!(
                    unsafe { junqi_rules_board_json(rules.0, &mut board) },
                    junqi_status::Ok
                );
                let board: serde_json::Value = serde_json::from_str(&take(board)).unwrap();
                assert_eq!(board["points"].as_array().unwrap().len(), 60);
                let mut n = 0;
                assert_eq!(
                    unsafe { junqi_game_legal_action_ids(game, null_mut(), 0, &mut n) },
                    junqi_status::BufferTooSmall
                );
                assert!(n > 0, "thread {i}");
                unsafe { junqi_game_free(game) };
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    unsafe { junqi_rules_free(rules.0) };
}

#[test]
fn games_without_a_seed_take_one_from_the_os() {
    let rules = classic();
    let seed_of = |game: *mut junqi_game| {
        let mut json = null_mut();
        assert_eq!(unsafe { junqi_game_record_json(game, &mut json) }, junqi_status::Ok);
        let record: serde_json::Value = serde_json::from_str(&take(json)).unwrap();
        record["seed"].as_u64().unwrap()
    };
    let (mut a, mut b) = (null_mut(), null_mut());
    unsafe {
        assert_eq!(junqi_game_new_os_seed(rules, &mut a), junqi_status::Ok);
        assert_eq!(junqi_game_new_os_seed(rules, &mut b), junqi_status::Ok);
        assert_eq!(junqi_game_new_os_seed(std::ptr::null(), &mut b), junqi_status::NullPointer);
    }
    assert_ne!(seed_of(a), seed_of(b));
    unsafe {
        junqi_game_free(a);
        junqi_game_free(b);
        junqi_rules_free(rules);
    }
}

#[test]
fn vector_env_sizes_past_the_limit_are_refused() {
    // Issue #27: 1 << 40 games aborted the process; SIZE_MAX was "capacity overflow".
    let rules = classic();
    for n in [JUNQI_MAX_VECTOR_GAMES + 1, 1 << 40, usize::MAX] {
        let mut env = null_mut();
        let st = unsafe { junqi_vector_env_new(rules, n, 1, false, 0, 1, &mut env) };
        assert_eq!(st, junqi_status::OutOfRange);
        assert!(env.is_null());
        assert_eq!(
            last_error(),
            format!("{n} games asked of a vector environment: at most 65536 are allowed")
        );
    }
    unsafe { junqi_rules_free(rules) };
}

#[test]
fn vector_env_finished_queue_is_bounded() {
    let rules = classic();
    let mut env = null_mut();
    // max_plies 1: both games are cut short at every step.
    assert_eq!(
        unsafe { junqi_vector_env_new(rules, 2, 4, false, 1, 1, &mut env) },
        junqi_status::Ok
    );
    let mut shape = junqi_vector_shape::default();
    assert_eq!(unsafe { junqi_vector_env_shape(env, &mut shape) }, junqi_status::Ok);
    let mut masks = vec![false; 2 * shape.action_space];
    let mut rewards = vec![0.0f32; 2 * shape.seats];
    let (mut term, mut trunc, mut to_act) = ([false; 2], [false; 2], [0i8; 2]);
    let bufs = junqi_vector_buffers {
        observations: null_mut(),
        observations_len: 0,
        masks: masks.as_mut_ptr(),
        masks_len: masks.len(),
        rewards: rewards.as_mut_ptr(),
        rewards_len: rewards.len(),
        terminated: term.as_mut_ptr(),
        truncated: trunc.as_mut_ptr(),
        to_act: to_act.as_mut_ptr(),
        games_len: 2,
    };
    let mut actions = [0i64; 2];
    for _ in 0..JUNQI_MAX_FINISHED_GAMES / 2 + 3 {
        unsafe {
            assert_eq!(junqi_vector_env_random_actions(env, actions.as_mut_ptr(), 2), junqi_status::Ok);
            assert_eq!(junqi_vector_env_step(env, actions.as_ptr(), 2, &bufs), junqi_status::Ok);
        }
    }
    let (mut len, mut capacity, mut dropped) = (0usize, 0usize, 0u64);
    assert_eq!(
        unsafe { junqi_vector_env_finished_len(env, &mut len, &mut capacity, &mut dropped) },
        junqi_status::Ok
    );
    assert_eq!((len, capacity, dropped), (JUNQI_MAX_FINISHED_GAMES, JUNQI_MAX_FINISHED_GAMES, 6));
    let (mut game, mut slot, mut episode) = (null_mut(), 9usize, 0u64);
    assert_eq!(
        unsafe { junqi_vector_env_next_finished(env, &mut game, &mut slot, &mut episode, null_mut()) },
        junqi_status::Ok
    );
    assert_eq!((slot, episode), (0, 3));
    assert!(!game.is_null());
    unsafe {
        junqi_game_free(game);
        assert_eq!(junqi_vector_env_finished_len(env, &mut len, null_mut(), null_mut()), junqi_status::Ok);
        assert_eq!(len, JUNQI_MAX_FINISHED_GAMES - 1);
        assert_eq!(
            junqi_vector_env_finished_len(env, null_mut(), null_mut(), null_mut()),
            junqi_status::NullPointer
        );
        junqi_vector_env_free(env);
        junqi_rules_free(rules);
    }
}

#[test]
fn platform_score_refuses_both_sides_as_winners() {
    let rules = classic();
    let request = CString::new(
        r#"{"result": {"winners": ["south", "north"], "reason": "flag_captured"}, "plies": 120,
            "seats": [{"side": "south", "points": 5}, {"side": "north", "points": 5}]}"#,
    )
    .unwrap();
    let mut out = null_mut();
    let st = unsafe { junqi_platform_score(rules, request.as_ptr(), &mut out) };
    assert_eq!(st, junqi_status::InvalidResult);
    assert!(out.is_null());
    assert_eq!(
        last_error(),
        "result: south and north all won: a decided game has a losing side (a draw names no winner)"
    );
    unsafe { junqi_rules_free(rules) };
}

/// The C column of docs/errors.md: each kind of the core has the status the page
/// gives, and every status of a kind is a distinct value.
#[test]
fn each_error_kind_has_its_documented_status() {
    let page = include_str!("../../docs/errors.md");
    let rows: Vec<(String, String)> = page
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_owned(), cells[3].trim_matches('`').to_owned())
        })
        .collect();
    assert_eq!(rows.len(), junqi_core::ErrorKind::COUNT);
    for (kind, (name, status)) in junqi_core::ErrorKind::ALL.into_iter().zip(&rows) {
        assert_eq!(kind.name(), name);
        let ours = crate::status::status_of(kind);
        assert_eq!(ours.c_name().trim_end_matches('\0'), status, "{kind}");
    }
}
