//! The error taxonomy: every kind of refusal is reached by a real call and classified
//! as docs/errors.md says, and that page lists every kind once, in order. The C
//! library, the Python package and the web referee check their own column of the same
//! table (ffi-c/src/tests.rs, tests/python/test_errors.py, web/src/error.rs).

use std::collections::BTreeSet;

use junqi::platform::{Platform, Seat};
use junqi::render::SvgOptions;
use junqi::{
    Action, Error as _, ErrorKind, Game, GameResult, EndReason, Record, RuleSet, Setup, Side, SideSet,
    StepOutput, VectorEnv,
};

/// The rows of docs/errors.md's table: (kind, C status, Python exception, HTTP status).
pub fn documented() -> Vec<(String, String, String, u16)> {
    let page = include_str!("../../docs/errors.md");
    page.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let strip = |s: &str| s.trim_matches('`').to_owned();
            (strip(cells[1]), strip(cells[3]), strip(cells[4]), cells[5].parse().expect("an HTTP status"))
        })
        .collect()
}

fn started(rules: &str) -> Game {
    let mut game = Game::new(rules, 1).unwrap();
    for (i, &side) in game.rules().clone().sides().iter().enumerate() {
        game.deploy_random(side, i as u64 + 10).unwrap();
    }
    game
}

/// A real refusal of each kind, with the call that made it.
fn provoke(kind: ErrorKind) -> Option<(String, Box<dyn junqi::Error>)> {
    let classic = RuleSet::preset("classic").unwrap();
    let board = classic.board();
    let e: (&str, Box<dyn junqi::Error>) = match kind {
        ErrorKind::UnknownName => ("RuleSet::preset(\"chess\")", Box::new(RuleSet::preset("chess").unwrap_err())),
        ErrorKind::OutOfRange => {
            ("Action::from_id(.., 1e9)", Box::new(Action::from_id(&classic, 1_000_000_000).unwrap_err()))
        }
        ErrorKind::InvalidJson => ("SvgOptions::from_json(\"[\")", Box::new(SvgOptions::from_json("[").unwrap_err())),
        ErrorKind::InvalidRules => ("RuleSet::from_json(\"{\")", Box::new(RuleSet::from_json("{").unwrap_err())),
        ErrorKind::InvalidSetup => {
            let setup = Setup::from_json(r#"{"a1": "flag"}"#).unwrap();
            ("a one-piece setup", Box::new(setup.validate(&classic, Side::South).unwrap_err()))
        }
        ErrorKind::InvalidNotation => ("Action::parse(\"a2a6\")", Box::new(Action::parse(board, "a2a6").unwrap_err())),
        ErrorKind::InvalidPosition => {
            ("Game::from_position_string(\"\")", Box::new(Game::from_position_string("", 1).unwrap_err()))
        }
        ErrorKind::InvalidRecord => ("Record::from_json(\"[]\")", Box::new(Record::from_json("[]").unwrap_err())),
        ErrorKind::IllegalAction => ("a1-a12", Box::new(started("classic").play_notation("a1-a12").unwrap_err())),
        ErrorKind::NotYourTurn => {
            let mut g = started("classic");
            let a = g.legal_actions()[0];
            ("north moves first", Box::new(g.play_as(Side::North, a).unwrap_err()))
        }
        ErrorKind::WrongPhase => {
            ("a move before deployment", Box::new(Game::new("classic", 1).unwrap().play_notation("a2-a3").unwrap_err()))
        }
        ErrorKind::GameOver => {
            let mut g = started("classic");
            g.resign(Side::South).unwrap();
            ("a move after the end", Box::new(g.play_notation("a2-a3").unwrap_err()))
        }
        ErrorKind::SideNotInGame => ("east resigns in classic", Box::new(started("classic").resign(Side::East).unwrap_err())),
        ErrorKind::WrongGame => {
            let beliefs = started("classic").beliefs(Side::South);
            let other = started("siguo");
            ("beliefs of another game", Box::new(beliefs.determinize(&other, 1).unwrap_err()))
        }
        ErrorKind::InvalidResult => {
            let both = GameResult { winners: SideSet::single(Side::South).with(Side::North), reason: EndReason::FlagCaptured };
            let seats = [Seat::new(Side::South, 0), Seat::new(Side::North, 0)];
            ("both sides winners", Box::new(Platform::QQ.apply(&classic, &both, 100, &seats).unwrap_err()))
        }
        ErrorKind::BufferTooSmall => {
            let mut env = VectorEnv::new(classic.clone(), 2, 1).unwrap();
            let (mut masks, mut rewards) = (vec![false; 1], vec![0.0; 4]);
            let (mut terminated, mut truncated, mut to_act) = ([false; 2], [false; 2], [0i8; 2]);
            let out = StepOutput {
                observations: None,
                masks: &mut masks,
                rewards: &mut rewards,
                terminated: &mut terminated,
                truncated: &mut truncated,
                to_act: &mut to_act,
            };
            ("a one-flag mask buffer", Box::new(env.step(&[0, 0], out).unwrap_err()))
        }
        // Only a failed allocation gives it (VectorEnv::new reserves fallibly); sizes
        // that could never fit are refused before as out_of_range.
        ErrorKind::OutOfMemory => return None,
    };
    Some((e.0.to_owned(), e.1))
}

#[test]
fn every_kind_is_reached_by_a_real_call_and_classified_as_documented() {
    for kind in ErrorKind::ALL {
        let Some((call, e)) = provoke(kind) else { continue };
        assert_eq!(e.kind(), kind, "{call}: {e}");
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn the_documented_table_lists_every_kind_once_in_order() {
    let rows = documented();
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ErrorKind::NAMES.to_vec(), "docs/errors.md's rows, in ErrorKind order");
    let statuses: BTreeSet<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(statuses.len(), rows.len(), "one C status per kind");
    for (kind, status, _, _) in &rows {
        assert_eq!(status, &format!("JUNQI_STATUS_{}", kind.to_uppercase()), "the C status is the kind's name");
    }
}

#[test]
fn the_layers_ask_the_core_about_turn_phase_and_side() {
    // The checks the C API, Python and the web make before acting on a seat's behalf.
    let mut g = Game::new("classic", 1).unwrap();
    assert_eq!(g.may_act(Side::South).unwrap_err().kind(), ErrorKind::WrongPhase);
    assert!(g.may_deploy(Side::South).is_ok());
    assert_eq!(g.may_deploy(Side::East).unwrap_err().kind(), ErrorKind::SideNotInGame);
    assert_eq!(g.may_decide_draw(Side::South).unwrap_err().kind(), ErrorKind::WrongPhase);
    assert_eq!(g.agree_draw().unwrap_err().kind(), ErrorKind::WrongPhase);
    g.deploy_random(Side::South, 1).unwrap();
    assert_eq!(g.may_deploy(Side::South).unwrap_err().kind(), ErrorKind::WrongPhase);
    g.deploy_random(Side::North, 2).unwrap();
    assert_eq!(g.may_deploy(Side::North).unwrap_err().kind(), ErrorKind::WrongPhase);
    assert!(g.may_act(Side::South).is_ok());
    assert_eq!(g.may_act(Side::North).unwrap_err().kind(), ErrorKind::NotYourTurn);
    assert_eq!(g.may_act(Side::West).unwrap_err().kind(), ErrorKind::SideNotInGame);
    assert!(g.may_decide_draw(Side::North).is_ok());
    let fanqi = Game::new("fanqi", 1).unwrap();
    assert_eq!(fanqi.may_deploy(Side::South).unwrap_err().kind(), ErrorKind::WrongPhase);
    g.resign(Side::North).unwrap();
    for check in [g.may_act(Side::South), g.may_deploy(Side::South), g.may_decide_draw(Side::South)] {
        assert_eq!(check.unwrap_err().kind(), ErrorKind::GameOver);
    }
}
