//! The C API, structure-aware: the input is a program of C calls over a few handle slots
//! (rule sets, games) with fuzzed arguments — NULLs, bad sides, out-of-range ids, random
//! text, structured rule sets. Every call returns a status of the enum, never PANIC or
//! POISONED; every handle and string is freed, so LeakSanitizer (on with ASan, the
//! cargo-fuzz default) reports any leak.
#![no_main]
use std::ffi::{c_char, CString};
use std::ptr::null_mut;

use junqi_ffi::*;
use junqi_fuzz::{variation, Bytes};
use libfuzzer_sys::fuzz_target;

fn ok_status(s: junqi_status) -> junqi_status {
    assert!(
        !matches!(s, junqi_status::Panic | junqi_status::Poisoned),
        "a C call panicked: {s:?}"
    );
    s
}

/// Frees a string the library returned (NULL is fine).
fn free_str(s: *mut c_char) {
    unsafe { junqi_string_free(s) };
}

fn text(b: &mut Bytes) -> CString {
    let n = b.below(64);
    let raw: Vec<u8> = (0..n).map(|_| b.byte()).filter(|c| *c != 0).collect();
    CString::new(raw).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let mut rules: [*mut junqi_rules; 2] = [null_mut(); 2];
    let mut games: [*mut junqi_game; 3] = [null_mut(); 3];
    let presets = ["classic", "siguo", "fanqi", "sanjun-modern", "siguo-2p", "nope"];
    for _ in 0..64 {
        if b.is_empty() {
            break;
        }
        let op = b.byte() % 18;
        let r = b.below(2);
        let g = b.below(3);
        let side = b.byte() as i32 % 6 - 1; // -1 and 4 are not sides
        let mut out: *mut c_char = null_mut();
        let want_out = b.byte() & 1 == 0;
        let out_ptr = if want_out { &mut out as *mut _ } else { null_mut() };
        unsafe {
            match op {
                0 => {
                    junqi_rules_free(rules[r]);
                    rules[r] = null_mut();
                    let name = CString::new(presets[b.below(presets.len())]).unwrap();
                    ok_status(junqi_rules_preset(name.as_ptr(), &mut rules[r]));
                }
                1 => {
                    junqi_rules_free(rules[r]);
                    rules[r] = null_mut();
                    let json = if b.byte() & 1 == 0 { CString::new(variation(&mut b)).unwrap() } else { text(&mut b) };
                    ok_status(junqi_rules_from_json(json.as_ptr(), &mut rules[r]));
                }
                2 | 3 => {
                    junqi_game_free(games[g]);
                    games[g] = null_mut();
                    if op == 2 {
                        ok_status(junqi_game_new(rules[r], b.u64(), &mut games[g]));
                    } else {
                        ok_status(junqi_game_new_os_seed(rules[r], &mut games[g]));
                    }
                }
                4 => {
                    ok_status(junqi_game_deploy_random(games[g], side, b.u64(), out_ptr));
                }
                5 => {
                    let setup = text(&mut b);
                    ok_status(junqi_game_deploy_json(games[g], side, setup.as_ptr(), out_ptr));
                }
                6 => {
                    let mut ids = [0u32; 64];
                    let mut len = 0usize;
                    let cap = b.below(65);
                    let s = ok_status(junqi_game_legal_action_ids(games[g], ids.as_mut_ptr(), cap, &mut len));
                    let id = if s == junqi_status::Ok && len > 0 && len <= cap && b.byte() < 200 {
                        ids[b.below(len)]
                    } else {
                        b.below(5000) as u32
                    };
                    ok_status(junqi_game_play_id(games[g], id, out_ptr));
                }
                7 => {
                    let notation = text(&mut b);
                    ok_status(junqi_game_play(games[g], notation.as_ptr(), out_ptr));
                }
                8 => {
                    ok_status(junqi_game_view_json(games[g], side, out_ptr));
                }
                9 => {
                    ok_status(junqi_game_view_text(games[g], side, out_ptr));
                }
                10 => {
                    let options = if b.byte() & 1 == 0 { CString::new("{}").unwrap() } else { text(&mut b) };
                    ok_status(junqi_view_svg(games[g], side, options.as_ptr(), out_ptr));
                }
                11 => {
                    let mut json: *mut c_char = null_mut();
                    if ok_status(junqi_game_record_json(games[g], &mut json)) == junqi_status::Ok {
                        let mut copy = null_mut();
                        assert_eq!(junqi_game_from_record(json, &mut copy), junqi_status::Ok, "a record replays");
                        junqi_game_free(copy);
                    }
                    free_str(json);
                }
                12 => {
                    let record = text(&mut b);
                    let mut copy = null_mut();
                    ok_status(junqi_game_from_record(record.as_ptr(), &mut copy));
                    junqi_game_free(copy);
                }
                13 => {
                    let to = (g + 1) % 3;
                    junqi_game_free(games[to]);
                    games[to] = null_mut();
                    ok_status(junqi_game_clone(games[g], &mut games[to]));
                }
                14 => {
                    ok_status(junqi_game_time_out(games[g], out_ptr));
                }
                15 => {
                    ok_status(junqi_game_resign(games[g], side, out_ptr));
                }
                16 => {
                    ok_status(junqi_game_player_record_json(games[g], side, out_ptr));
                }
                _ => {
                    ok_status(junqi_game_events_json(games[g], side, b.below(8), out_ptr));
                }
            }
        }
        free_str(out);
    }
    unsafe {
        for g in games {
            junqi_game_free(g);
        }
        for r in rules {
            junqi_rules_free(r);
        }
    }
});
