//! Deals: any list of (point, army, kind) either starts a dealt game or is refused; a
//! dealt game plays on with the referee's guarantees.
#![no_main]
use std::sync::Arc;

use junqi::{Game, PieceKind, RuleSet, Side};
use junqi_fuzz::{check_action_space, check_record, check_views, Bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let rules: Arc<RuleSet> = if b.byte() & 1 == 0 {
        RuleSet::preset("fanqi").unwrap()
    } else {
        Arc::new(
            RuleSet::from_json(
                r#"{"extends": "siguo", "name": "siguo-dealt", "options": {"max_timeouts": 1},
                    "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": true}}"#,
            )
            .unwrap(),
        )
    };
    // A real deal, then a few fuzzed edits to it.
    let mut deal = junqi::Position::deal_for(&rules, b.u64());
    for _ in 0..b.below(4) {
        let i = b.below(deal.len());
        match b.byte() % 4 {
            0 => deal[i].0 = rules.board().point_at(b.below(rules.board().len())).unwrap(),
            1 => deal[i].1 = Side::ALL[b.below(4)],
            2 => deal[i].2 = PieceKind::ALL[b.below(PieceKind::COUNT)],
            _ => {
                deal.remove(i);
            }
        }
    }
    let mut game = match Game::with_deal(rules.clone(), 0, &deal) {
        Ok(game) => game,
        Err(e) => {
            // A refused deal is a bad setup (or names an army that does not play),
            // said in words: every point it names is the board's own.
            let kind = junqi::Error::kind(&e);
            assert!(matches!(kind, junqi::ErrorKind::InvalidSetup | junqi::ErrorKind::SideNotInGame), "{e}: {kind:?}");
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    // Every dealt piece stands where it was dealt, of its army and kind, face down (the
    // full position string names it: `a1=SMI!`), and nothing else stands.
    let text = game.position().position_string();
    let pieces: Vec<&str> = text.split(' ').nth(1).unwrap_or("").split(',').collect();
    assert_eq!(pieces.len(), deal.len(), "{text}");
    for (point, side, kind) in &deal {
        let name = game.board().name_of(*point);
        let entry = format!("{name}={}{}!", junqi::protocol::side_letter(*side), kind.short());
        assert!(pieces.contains(&entry.as_str()), "{entry} is not in the dealt position: {text}");
    }
    for _ in 0..200 {
        if game.result().is_some() || b.is_empty() {
            break;
        }
        check_action_space(&game);
        if b.byte() == 0xFF {
            game.time_out().unwrap();
            continue;
        }
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        game.play(legal[b.below(legal.len())]).unwrap();
    }
    check_views(&game);
    check_record(&game);
    junqi_fuzz::check_position_string(&game);
});
