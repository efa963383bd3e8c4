//! Random action-id sequences on every preset, with all the checks.
#![no_main]
use junqi_fuzz::{play_ids, Bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let presets = junqi::RuleSet::preset_names();
    let rules = junqi::RuleSet::preset(presets[b.byte() as usize % presets.len()]).unwrap();
    play_ids(&rules, &mut b, 200);
});
