//! Rule-set JSON: any text either loads or is refused with a specific error; a rule set
//! that loads plays a short game that keeps the referee's guarantees.
#![no_main]
use std::sync::Arc;

use junqi_fuzz::{play_ids, Bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(rules) = junqi::RuleSet::from_json(text) {
        let seed = data.iter().fold(0u64, |h, b| h.rotate_left(5) ^ *b as u64);
        let bytes = seed.to_le_bytes().repeat(16);
        play_ids(&Arc::new(rules), &mut Bytes(&bytes), 40);
    }
});
