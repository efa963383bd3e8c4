//! Rule-set JSON: any text either loads or is refused with an error of a rule set's
//! kind (`invalid_rules`, `unknown_name`); a rule set that loads round-trips through its
//! JSON and through the engine protocol's `newgame` field, fits the protocol's line
//! (its name and size are capped at load), and plays a short game that keeps the
//! referee's guarantees.
#![no_main]
use std::sync::Arc;

use junqi::{Error, ErrorKind, RuleSet};
use junqi_fuzz::{play_ids, Bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match RuleSet::from_json(text) {
        Ok(rules) => {
            let again = RuleSet::from_json(&rules.to_json()).expect("a rule set's own JSON loads");
            assert!(again.spec() == rules.spec(), "the rule set does not round-trip through its JSON");
            let field = junqi::protocol::rules_field(&rules);
            assert!(field.len() + "newgame S ".len() <= junqi::protocol::MAX_LINE, "a rule set over a protocol line");
            assert!(rules.name().chars().count() <= junqi::limits::MAX_RULES_NAME);
            let told = junqi::protocol::parse_rules_field(&field).expect("the newgame field reads back");
            assert!(told.spec() == rules.spec(), "the newgame field tells another rule set");
            let seed = data.iter().fold(0u64, |h, b| h.rotate_left(5) ^ *b as u64);
            let bytes = seed.to_le_bytes().repeat(16);
            play_ids(&Arc::new(rules), &mut Bytes(&bytes), 40);
        }
        Err(e) => {
            assert!(matches!(e.kind(), ErrorKind::InvalidRules | ErrorKind::UnknownName), "{e}: {:?}", e.kind());
            assert!(!e.to_string().is_empty());
        }
    }
});
