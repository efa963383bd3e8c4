//! The `junqi` program (the main job): rule sets from any path or standard input, a
//! legend per rule set, and a quiet stop when its reader goes away.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn run(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(JUNQI)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("junqi runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const MINE: &str = r#"{"extends": "classic", "name": "mine", "options": {"rail_max_steps": 3}}"#;

#[test]
fn rules_come_from_a_preset_any_file_or_standard_input() {
    for args in [
        &["--rules", "-", "--quiet"][..],
        &["--rules", "/dev/stdin", "--quiet"],
    ] {
        let (ok, out, err) = run(args, MINE);
        assert!(ok, "{args:?}: {err}");
        // Quiet: the seed (the game can be replayed) and the result.
        let (seed, rest) = out.split_once('\n').unwrap();
        assert!(seed.strip_prefix("seed ").is_some_and(|s| s.parse::<u64>().is_ok()), "{out}");
        assert!(rest.starts_with("result after") || rest.starts_with("stopped after"), "{out}");
    }
    let dir = std::env::temp_dir().join(format!("junqi-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rules.txt"); // any name, not only *.json
    std::fs::write(&file, MINE).unwrap();
    let (ok, out, _) = run(&["--rules", file.to_str().unwrap(), "--max-plies", "3"], "");
    assert!(ok && out.contains("rule set mine"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();

    let (ok, _, err) = run(&["--rules", "nope"], "");
    assert!(
        !ok && err.contains("\"nope\" is not a preset (classic, siguo")
            && err.contains("not a readable file"),
        "{err}"
    );
    let (ok, _, err) = run(&["--rules", "-"], "{");
    assert!(
        !ok && err.contains("standard input: invalid rule set JSON"),
        "{err}"
    );
}

#[test]
fn a_reader_that_goes_away_stops_the_program_quietly() {
    for args in [&["--json"][..], &["--every", "1"]] {
        let mut child = Command::new(JUNQI)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        drop(child.stdout.take()); // `| head -c 16`
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(
            status.success() && err.is_empty(),
            "{args:?}: {status} {err}"
        );
    }
}

#[test]
fn the_legend_fits_the_rule_set() {
    let legend = |rules: &str| {
        let (ok, out, err) = run(&["--rules", rules, "--max-plies", "0", "--every", "0"], "");
        assert!(ok, "{err}");
        out[..out.find("== start ==").unwrap()].to_owned()
    };
    let classic = legend("classic");
    for needed in [
        ". an empty post",
        "( ) an empty camp (行营)",
        "[ ] an empty HQ (大本营)",
        "= and | railway",
        "EN engineer 工兵 ×3",
        "FL flag 军旗",
    ] {
        assert!(
            classic.contains(needed),
            "{needed:?} missing from\n{classic}"
        );
    }
    for absent in ["ship", "翻棋", "~", "plane", "Teams"] {
        assert!(
            !classic.contains(absent),
            "{absent:?} in the classic legend\n{classic}"
        );
    }
    assert!(legend("fanqi").contains("## is a face-down piece (翻棋)"));
    assert!(legend("siguo").contains("Teams: south and north against east and west."));
    let sanjun = legend("sanjun-modern");
    assert!(
        sanjun.contains("<~?> a ship")
            && sanjun.contains("c7^ is the air above c7")
            && sanjun.contains("AA aa_gun 高射炮")
    );
}

#[test]
fn help_names_every_preset_and_the_four_player_game() {
    let (ok, out, _) = run(&["--help"], "");
    assert!(
        ok && out.contains("four in siguo")
            && out.contains("sanjun-forum")
            && out.contains("`-` for standard input")
    );
}

#[test]
fn players_name_an_agent_per_seat_or_one_for_every_seat() {
    let (ok, out, err) = run(
        &["--players", "greedy,random", "--seed", "1", "--max-plies", "4", "--every", "0"],
        "",
    );
    assert!(ok, "{err}");
    assert!(out.contains("players south (greedy), north (random)"), "{out}");
    assert!(out.contains("ply    4"), "{out}");
    // A tiny search plays every seat; the same seeds give the same game.
    let args = ["--players", "search:iters=20", "--seed", "2", "--max-plies", "6", "--quiet"];
    let (ok, first, err) = run(&args, "");
    assert!(ok && first.starts_with("seed 2\nstopped after 6 plies"), "{first}{err}");
    let (_, again, _) = run(&args, "");
    assert_eq!(first, again);
    let (ok, json, _) = run(&["--players", "greedy", "--seed", "3", "--max-plies", "4", "--json"], "");
    let (_, other, _) = run(
        &["--players", "greedy", "--seed", "3", "--agent-seed", "9", "--max-plies", "4", "--json"],
        "",
    );
    assert!(ok && json.contains("\"record\""));
    assert!(json != other || json.contains("\"ply\": 4"), "the agent seed is used");

    let (ok, _, err) = run(&["--players", "grandmaster"], "");
    assert!(!ok && err.contains("grandmaster"), "{err}");
    let (ok, _, err) = run(&["--players", "random,random,random"], "");
    assert!(!ok && err.contains("3 names for the 2 seats of classic"), "{err}");
    let (ok, out, _) = run(&["--help"], "");
    assert!(ok && out.contains("--players human,search:3"), "{out}");
}

#[test]
fn a_person_plays_south_from_standard_input() {
    let args = ["--players", "human,greedy", "--seed", "5", "--max-plies", "3"];
    // `moves` lists the legal moves; the end of the input resigns.
    let (ok, out, err) = run(&args, "moves\n");
    assert!(ok, "{err}");
    assert!(out.contains("== your view (south) =="), "{out}");
    assert!(!out.contains("north's view") && !out.contains("seed 5"), "only South's view: {out}");
    assert!(out.contains("standard input ended"), "{out}");
    assert!(out.contains("after 0 plies"), "{out}");
    let legal = out
        .lines()
        .find_map(|l| l.split("legal: ").nth(1))
        .expect("the legal moves are listed");
    let first = legal.split(' ').next().unwrap();
    // A refused move is explained and asked again; then the move is played and North
    // (the agent) answers.
    let (ok, out, err) = run(&args, &format!("a1-a9\nfoo\n{first}\n"));
    assert!(ok, "{err}");
    assert!(out.matches("refused: ").count() >= 2, "{out}");
    assert!(out.contains("ply    1 [everyone]"), "{out}");
    assert!(out.contains("ply    2 [everyone]"), "North answered: {out}");
    assert!(out.contains("standard input ended"), "{out}");

    // A setup from a file.
    let rules = junqi::RuleSet::preset("classic").unwrap();
    let setup = junqi::Deployment::try_random(&rules, junqi::Side::South, 7)
        .unwrap()
        .to_setup(&rules);
    let dir = std::env::temp_dir().join(format!("junqi-cli-setup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("setup.json");
    std::fs::write(&file, setup.to_json()).unwrap();
    let final_view = |seed: &str, setup: Option<&str>| {
        let mut args = vec!["--players", "human,random", "--max-plies", "0", "--seed", seed];
        if let Some(f) = setup {
            args.extend(["--setup", f]);
        }
        let (ok, out, err) = run(&args, "");
        assert!(ok, "{err}");
        out.split("== final ==").nth(1).expect("a final view").to_owned()
    };
    let file_name = file.to_str().unwrap();
    // South sees only its own pieces: the same setup gives the same view whatever the
    // seed; random setups of two seeds differ.
    assert_eq!(final_view("5", Some(file_name)), final_view("6", Some(file_name)));
    assert_ne!(final_view("5", None), final_view("6", None));
    std::fs::write(&file, "{\"a1\": \"flag\"}").unwrap();
    let (ok, _, err) = run(&["--players", "human,random", "--setup", file.to_str().unwrap()], "");
    assert!(!ok && err.contains("--setup"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
    let (ok, _, err) = run(&["--players", "human", "--rules", "-"], MINE);
    assert!(!ok && err.contains("standard input is the human's"), "{err}");
}

#[test]
fn a_quiet_game_prints_the_seed_that_replays_it_and_starts_as_random_start() {
    let (ok, first, err) = run(&["--quiet", "--max-plies", "30"], "");
    assert!(ok, "{err}");
    let seed = first.lines().next().and_then(|l| l.strip_prefix("seed ")).expect("a seed line");
    let (_, again, _) = run(&["--quiet", "--max-plies", "30", "--seed", seed], "");
    assert_eq!(first, again, "the printed seed replays the game");
    // The random seats deploy the seeded start of the seed, as every layer does.
    let (ok, json, err) = run(&["--seed", "7", "--max-plies", "1", "--json"], "");
    assert!(ok, "{err}");
    let printed: serde_json::Value = serde_json::from_str(&json).unwrap();
    let start = junqi::Game::random_start(junqi::RuleSet::preset("classic").unwrap(), 7).unwrap();
    let expected: serde_json::Value = serde_json::to_value(start.record()).unwrap();
    let deployments = |v: &serde_json::Value| v.as_array().unwrap()[..2].to_vec();
    assert_eq!(deployments(&printed["record"]["actions"]), deployments(&expected["actions"]));
}

#[test]
fn a_person_asks_for_help_and_quits() {
    let args = ["--players", "human,greedy", "--seed", "5", "--max-plies", "20"];
    // `help` lists the commands and asks again: it is no action.
    let (ok, out, err) = run(&args, "help\nquit\n");
    assert!(ok, "{err}");
    assert!(out.contains("`help`") && out.contains("`quit`"), "the prompt names them: {out}");
    let help = out.split("commands:\n").nth(1).expect("help lists the commands");
    for command in ["a2-a3 ", "moves, ?", "resign ", "quit, exit ", "help "] {
        assert!(help.contains(command), "{command:?} missing from {help}");
    }
    assert!(!help.contains("flip"), "no flip outside 翻棋: {help}");
    assert!(!out.contains("malformed") && !out.contains("refused"), "{out}");
    // `quit` ends the game: South resigns, and the result is printed.
    assert!(out.contains("quit: south resigns"), "{out}");
    assert!(out.contains("result after 0 plies: north wins"), "{out}");
    assert!(!out.contains("standard input ended"), "{out}");

    // `exit` too, after a move and North's answer.
    let (_, listed, _) = run(&args, "moves\n");
    let legal = listed.lines().find_map(|l| l.split("legal: ").nth(1)).unwrap();
    let first = legal.split(' ').next().unwrap();
    let (ok, out, err) = run(&args, &format!("{first}\nexit\nmoves\n"));
    assert!(ok, "{err}");
    assert!(out.contains("ply    2 [everyone]"), "North answered: {out}");
    assert!(out.contains("exit: south resigns"), "{out}");
    assert!(out.contains("result after 2 plies: north wins"), "{out}");
    assert!(!out.contains("legal: "), "nothing is read after quitting: {out}");

    // A text that is no command says where the commands are.
    let (ok, out, _) = run(&args, "foo\n");
    assert!(ok && out.contains("malformed action \"foo\"") && out.contains("`help` lists the commands"), "{out}");

    // In 翻棋 the help names the flip.
    let (ok, out, err) = run(&["--players", "human,greedy", "--rules", "fanqi", "--seed", "5"], "help\nexit\n");
    assert!(ok, "{err}");
    let help = out.split("commands:\n").nth(1).expect("help lists the commands");
    assert!(help.contains("flip a3"), "{help}");
    assert!(out.contains("south resigns") && out.contains("result after 0 plies"), "{out}");
}
