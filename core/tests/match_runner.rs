//! Matches you can trust (docs/protocol.md, "The match runner" and "Time, failures,
//! limits"): every game of a match distinct and reproducible, a pair one deal with the
//! seats swapped, the SPRT deciding on the pairs; no write that blocks the referee, the
//! end of an engine's output a crash at once, nothing left running after an engine,
//! rule sets that always fit the protocol's lines, and one-line errors.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use junqi::protocol::matches::{run, EngineSpec, MatchSpec};
use junqi::protocol::referee::{play, EngineProcess, Failure, InProcessEngine};
use junqi::{Record, RuleSet, RulesError, Side};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn engine(name: &str, agent: &str, seed: u64) -> EngineSpec {
    EngineSpec {
        name: name.into(),
        command: format!("{JUNQI} engine --agent {agent}"),
        options: vec![("seed".into(), seed.to_string())],
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("junqi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn spec(rules: &str, engines: [EngineSpec; 2], games: usize, out: Option<std::path::PathBuf>) -> MatchSpec {
    MatchSpec {
        rules: RuleSet::preset(rules).unwrap(),
        engines,
        games,
        budget: Duration::from_secs(2),
        clock: None,
        concurrency: 2,
        max_plies: 80,
        seed: 1,
        sprt: None,
        out,
    }
}

fn records(dir: &std::path::Path, games: usize) -> Vec<Record> {
    (0..games)
        .map(|i| Record::from_json(&std::fs::read_to_string(dir.join(format!("game-{i:04}.json"))).unwrap()).unwrap())
        .collect()
}

#[test]
fn a_match_plays_distinct_games_and_a_pair_is_one_deal_with_the_seats_swapped() {
    // Two copies of one stochastic engine: each pair is the same game twice (the
    // engine in a seat is told the same seed in both games, the referee deals from
    // the same seed), and every pair a different game. Before, every game of a match
    // was the same game: fresh engines seeded their agent from their game counter.
    let dir = temp("pairs");
    let s = spec("classic", [engine("a", "random", 0), engine("b", "random", 0)], 6, Some(dir.clone()));
    let r = run(&s, &|_, _| {}).unwrap();
    let games = records(&dir, 6);
    for pair in games.chunks(2) {
        assert_eq!(pair[0].seed, pair[1].seed);
        assert_eq!(pair[0].actions, pair[1].actions, "a pair of one engine is one game twice");
    }
    for (i, a) in games.iter().enumerate().step_by(2) {
        for b in games.iter().skip(i + 2).step_by(2) {
            assert_ne!(a.actions, b.actions, "two pairs played the same game");
        }
    }
    // Scored by the pairs: a game won by one copy is lost by the other in its pair.
    assert_eq!(r.pairs.pairs(), 3);
    assert_eq!(r.pairs.counts[2], 3, "{:?}", r.pairs);
    // Two different engines: all six games differ, a pair is the same deal (翻棋: the
    // face-down layout comes from the referee's seed) with the engines' seats swapped.
    let dir = temp("fanqi-pairs");
    let s = spec("fanqi", [engine("greedy", "greedy", 0), engine("random", "random", 0)], 6, Some(dir.clone()));
    let r = run(&s, &|_, _| {}).unwrap();
    let games = records(&dir, 6);
    for (i, a) in games.iter().enumerate() {
        for b in &games[i + 1..] {
            assert_ne!(a.actions, b.actions);
        }
    }
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.seed, 1 + i as u64 / 2, "a pair is one seed: one deal");
        assert_eq!(r.games[i].first, i % 2, "the engines trade seats within a pair");
    }
    // The same match again: the same games (reproducible from its seed).
    let again = temp("fanqi-pairs-again");
    run(&MatchSpec { out: Some(again.clone()), ..s }, &|_, _| {}).unwrap();
    assert_eq!(records(&again, 6).iter().map(|g| &g.actions).collect::<Vec<_>>(), games.iter().map(|g| &g.actions).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}

/// A shell engine that deploys at random and answers `go` with `answer`.
fn hostile(answer: &str) -> String {
    format!(
        "while read -r cmd rest; do case $cmd in junqi) echo 'id name hostile'; echo ready;; \
         deploy) echo 'setup random';; go) {answer};; quit) exit 0;; esac; done"
    )
}

#[test]
fn the_sprt_stops_a_match_once_the_pairs_decide() {
    // An engine that crashes at its first `go` loses every game: after two pairs lost
    // twice the LLR for H0 (Elo 0) against H1 (Elo 400) is −3.41 (fishtest's GLR over
    // the pentanomial counts [2, 0, 0, 0, 0], zeros regularized), past −2.94: the match
    // of 20 games stops after 4 (one game at a time). Before, with the trinomial
    // variance of identical results, the LLR stayed 0 and the match never decided.
    let out = Command::new(JUNQI)
        .args(["match", "--engine"])
        .arg(format!("crash={}", hostile("exit 3")))
        .args(["--engine", &format!("random={JUNQI} engine --agent random")])
        .args(["--games", "20", "--time", "2s", "--sprt", "0,400", "--seed", "9"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.starts_with("match seed 9 "), "{stderr}");
    assert!(stdout.contains("crash vs random: 4 games, W/D/L 0/0/4"), "{stdout}");
    assert!(stdout.contains("pairs by crash's points: 0: 2, 0.5: 0, 1: 0, 1.5: 0, 2: 0 (2 pairs)"), "{stdout}");
    assert!(stdout.contains("Elo: not estimable (every pair had the same result"), "{stdout}");
    assert!(stdout.contains("LLR -3.41 (bounds -2.94 .. 2.94): H0 accepted"), "{stdout}");
    // Without --seed, the seed comes from the operating system and is printed.
    let out = Command::new(JUNQI)
        .args(["match", "--engine"])
        .arg(format!("a={JUNQI} engine --agent random"))
        .args(["--engine", &format!("b={JUNQI} engine --agent random"), "--games", "2", "--max-plies", "4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let seed: u64 = stderr.strip_prefix("match seed ").and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
    assert_ne!(seed, 1, "{stderr}");
}

/// True when no live process has id `pid` (zombies not reaped by init yet do not
/// count), within two seconds.
fn gone(pid: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(") ").map(|x| x.1.chars().next().unwrap_or('?')));
        if matches!(state, None | Some('Z')) {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_engine_that_stops_reading_loses_on_time_and_no_write_blocks_the_referee() {
    // It says `ready` and never reads again. A write used to block once the pipe held
    // 64 KiB: `junqi match` hung for as long as the engine lived.
    let deaf = "read l; echo 'id name deaf'; echo ready; exec sleep 30";
    let mut e = EngineProcess::start(deaf, Duration::from_secs(5), &[]).unwrap();
    let pid = e.pid();
    let line = "event ".to_owned() + &"x".repeat(1000);
    let t = Instant::now();
    let mut sent = 0usize;
    let failure = loop {
        match e.send(&line) {
            Ok(()) => sent += line.len() + 1,
            Err(f) => break f,
        }
        assert!(sent < 64 << 20, "no limit on what waits unread");
    };
    assert_eq!(failure, Failure::Timeout);
    assert!(sent >= junqi::protocol::process::MAX_UNREAD - 64 * 1024 - 2000, "{sent}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(gone(&pid.to_string()));
    // In a game: whatever the referee has to say, the deaf engine loses by timeout
    // within its budget.
    let rules = RuleSet::preset("classic").unwrap();
    let mut seats = vec![
        EngineProcess::start(deaf, Duration::from_secs(5), &[]).unwrap(),
        EngineProcess::start(&format!("{JUNQI} engine"), Duration::from_secs(5), &[]).unwrap(),
    ];
    let t = Instant::now();
    let played = play(rules, 1, &mut seats, Duration::from_millis(300), 100);
    assert_eq!(played.failure, Some((Side::South, Failure::Timeout)));
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
fn closing_its_output_is_a_crash_at_once() {
    // A plain command runs without a shell wrapper, so the end of the engine's output
    // is seen at once: it used to be a `timeout` after the whole budget.
    let closes = "python3 -c 'import os, time\nprint(\"id name closes\")\nprint(\"ready\", flush=True)\nos.close(1)\ntime.sleep(30)'";
    assert!(junqi::protocol::process::plain_words(closes).is_some());
    let rules = RuleSet::preset("classic").unwrap();
    let mut seats = vec![
        EngineProcess::start(closes, Duration::from_secs(5), &[]).unwrap(),
        EngineProcess::start(&format!("{JUNQI} engine"), Duration::from_secs(5), &[]).unwrap(),
    ];
    let t = Instant::now();
    let played = play(rules, 1, &mut seats, Duration::from_secs(10), 100);
    assert_eq!(played.failure, Some((Side::South, Failure::Crash)));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[test]
fn a_grandchild_that_leaves_the_process_group_ends_with_the_engine() {
    // A grandchild that calls setsid escaped the kill of the engine's process group
    // and was left running after the match or the web game; it is found by the cookie
    // in its environment.
    let pidfile = temp("grandchild.pid");
    let escaper = format!(
        "setsid sleep 60 & echo $! > {}; read l; echo 'id name escaper'; echo ready; exec sleep 30",
        pidfile.display()
    );
    let e = EngineProcess::start(&escaper, Duration::from_secs(5), &[]).unwrap();
    let grandchild = std::fs::read_to_string(&pidfile).unwrap().trim().to_owned();
    assert!(!gone_now(&grandchild), "the grandchild runs");
    e.stop();
    assert!(gone(&grandchild), "the setsid grandchild {grandchild} is left running");
    let _ = std::fs::remove_file(&pidfile);
}

fn gone_now(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| s.contains(") Z "))
}

#[test]
fn every_rule_set_the_library_loads_fits_the_protocols_lines() {
    // A 17 000-character name made view strings over the engines' 16 KiB limit (both
    // honest engines lost "timeout" at their first `go`); 63 600 characters made the
    // `newgame` line longer than 64 KiB. Names and whole rule sets are capped at load.
    let with = |name: &str, description: &str| {
        let json = serde_json::json!({"extends": "sanjun-forum", "name": name, "description": description});
        RuleSet::from_json(&json.to_string())
    };
    let long = "名".repeat(junqi::limits::MAX_RULES_NAME + 1);
    assert!(matches!(with(&long, ""), Err(RulesError::NameTooLong(65))));
    let e = with(&long, "").unwrap_err();
    assert_eq!(e.to_string(), "a rule set name of 65 characters is over the limit of 64");
    assert_eq!(junqi::Error::kind(&e), junqi::ErrorKind::InvalidRules);
    assert!(matches!(with("big", &"x".repeat(junqi::limits::MAX_RULES_SPEC)), Err(RulesError::SpecTooLarge(_))));
    // The largest rule set that loads — the longest name, in characters whose escapes
    // are the longest, and a description up to the limit — plays between engines.
    let name = "\u{1F600}".repeat(junqi::limits::MAX_RULES_NAME);
    let base = with(&name, "").unwrap().to_json().len();
    // The longest description of control characters (six bytes each in JSON) that
    // loads, by bisection.
    let (mut lo, mut hi) = (0usize, junqi::limits::MAX_RULES_SPEC);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if with(&name, &"\u{7}".repeat(mid)).is_ok() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let description = "\u{7}".repeat(lo);
    let rules = Arc::new(with(&name, &description).unwrap());
    assert!(rules.to_json().len() > base);
    let mut seats: Vec<InProcessEngine> = rules
        .sides()
        .iter()
        .map(|_| InProcessEngine::new(junqi::agent::AgentSpec::Random, &[]).unwrap())
        .collect();
    let played = play(rules.clone(), 3, &mut seats, Duration::from_secs(2), 30);
    assert_eq!(played.failure, None, "{}", played.reason());
    assert!(played.capped || played.game.result().is_some());
    let field = junqi::protocol::rules_field(&rules);
    assert!(field.len() + "newgame S ".len() <= junqi::protocol::MAX_LINE, "{}", field.len());
    for s in rules.sides() {
        assert!(played.game.view_string(*s).len() <= junqi::position::MAX_POSITION_STRING);
    }
}

#[test]
fn the_referee_tells_each_engine_a_seed_of_its_own_that_gives_nothing_away() {
    let game = junqi::Game::new("fanqi", 77).unwrap();
    let lines = junqi::protocol::referee::seat_lines(&game, Side::North);
    assert!(lines[0].starts_with("newgame N fanqi"));
    let told: u64 = lines[1].strip_prefix("seed ").unwrap().parse().unwrap();
    assert_eq!(told, junqi::protocol::referee::engine_seed(77, Side::North));
    assert_ne!(told, junqi::protocol::referee::engine_seed(77, Side::South));
    assert_ne!(told, 77);
    // A built-in engine told another game's seed plays another game.
    let choose = |seed: &str| {
        let mut e = junqi::protocol::engine::BuiltinEngine::new(junqi::agent::AgentSpec::Random);
        e.handle("newgame S classic");
        e.handle(&format!("seed {seed}"));
        e.handle("deploy 1000")
    };
    assert_eq!(choose("5"), choose("5"));
    assert_ne!(choose("5"), choose("6"));
    let mut e = junqi::protocol::engine::BuiltinEngine::new(junqi::agent::AgentSpec::Random);
    assert_eq!(e.handle("seed 5"), ["info error seed before newgame"]);
    e.handle("newgame S classic");
    assert_eq!(e.handle("seed five"), ["info error seed \"five\" is not a number"]);
}

#[test]
fn an_engine_failure_in_the_bridge_is_one_line_without_the_usage_text() {
    let out = Command::new(JUNQI)
        .args(["bridge", "--server", "http://127.0.0.1:9", "--seat-link", "/play/x?token=y", "--engine", "exit 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("junqi: the engine did not start: "), "{stderr}");
    // A wrong argument still shows the usage.
    let out = Command::new(JUNQI).args(["bridge", "--server"]).output().unwrap();
    assert!(String::from_utf8(out.stderr).unwrap().contains("usage: junqi engine"));
}

#[test]
fn handshake_floods_end_with_a_named_failure() {
    // 7 million `option` lines (100 MB) used to go into an unbounded list.
    let flood = "read l; echo 'id name flood'; yes 'option o int 0' | head -n 7000000; echo ready";
    let t = Instant::now();
    let e = EngineProcess::start(flood, Duration::from_secs(20), &[]);
    assert!(matches!(e, Err(Failure::Garbage(ref t)) if t == "more than 256 options"), "{:?}", e.err());
    assert!(t.elapsed() < Duration::from_secs(5));
    // What a link reads is the answer, never an `info` line.
    let mut e = EngineProcess::start(
        "read l; echo ready; read l; echo 'info a'; echo 'info b'; echo 'setup random'",
        Duration::from_secs(5),
        &[],
    )
    .unwrap();
    assert_eq!(e.ask("deploy 1000", "setup", Duration::from_secs(2)).unwrap(), "random");
}

#[test]
fn an_engine_that_does_not_start_loses_every_game_whichever_seat() {
    // `exit 1` ends before its handshake: each game is lost by that engine (scored for
    // the other), in both seats of a pair, and says why. Engine 0 failing scores 0,
    // engine 1 failing scores 1 for engine 0. Kills `replace == with != in play_one` on
    // the score of a seat that did not start (`o == 0`).
    let dead = EngineSpec { name: "dead".into(), command: "exit 1".into(), options: vec![] };
    for (engines, score) in [([dead.clone(), engine("r", "random", 0)], 0.0), ([engine("r", "random", 0), dead], 1.0)] {
        let s = MatchSpec { concurrency: 1, ..spec("classic", engines, 2, None) };
        let r = run(&s, &|_, _| {}).unwrap();
        assert_eq!(r.games.iter().map(|g| g.score).collect::<Vec<_>>(), [score, score]);
        assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), if score == 1.0 { (2, 0, 0) } else { (0, 0, 2) });
        assert_eq!(r.pairs.pairs(), 1);
        for g in &r.games {
            assert!(g.reason.starts_with("crash by "), "{}", g.reason);
        }
    }
}

#[test]
fn the_report_says_whether_elo_is_estimable_and_from_what() {
    // Built from counts, without a game: no pair yet, every pair the same, and pairs
    // with a spread (the Elo line with its interval) and an SPRT line with its LLR.
    // Kills `replace match guard self.pairs.pairs() == 0 with false in
    // MatchResult::report`.
    use junqi::protocol::matches::MatchResult;
    let s = MatchSpec { sprt: Some((0.0, 10.0)), ..spec("classic", [engine("a", "random", 0), engine("b", "random", 0)], 2, None) };
    let none = MatchResult::default().report(&s);
    assert_eq!(
        none,
        "a vs b: 0 games, W/D/L 0/0/0 (score 0.0%)\n\
         pairs by a's points: 0: 0, 0.5: 0, 1: 0, 1.5: 0, 2: 0 (0 pairs)\n\
         Elo: not estimable yet (no pair played)\n\
         SPRT elo0=0 elo1=10 alpha=beta=0.05 (pentanomial): LLR 0.00 (bounds -2.94 .. 2.94): continue\n"
    );
    let mut same = MatchResult::default();
    same.pairs.counts = [0, 0, 3, 0, 0];
    assert!(same.report(&s).contains("\nElo: not estimable (every pair had the same result: no spread to measure)\n"));
    let mut spread = MatchResult::default();
    spread.pairs.counts = [1, 2, 3, 4, 5];
    let (e, lo, hi) = spread.pairs.elo().unwrap();
    assert!(e > 0.0 && lo < e && e < hi);
    let text = spread.report(&s);
    assert!(text.contains(&format!("\nElo a - b: {e:+.1} (95% interval {lo:+.1} .. {hi:+.1}, from the pairs)\n")), "{text}");
    assert!(text.contains(&format!("LLR {:.2} (bounds", spread.pairs.llr(0.0, 10.0))), "{text}");
}
