//! Structured random rule sets (variations of the presets drawn from the input): each
//! loads with a specific error, or plays a game with all the checks.
#![no_main]
use std::sync::Arc;

use junqi_fuzz::{play_ids, variation, Bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let json = variation(&mut b);
    match junqi::RuleSet::from_json(&json) {
        Ok(rules) => {
            play_ids(&Arc::new(rules), &mut b, 200);
        }
        Err(e) => assert!(!matches!(e, junqi::RulesError::Json(_)), "{json}: {e}"),
    }
});
