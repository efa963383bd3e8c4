//! The line protocol (docs/protocol.md): the built-in engine's conformance, a short
//! paired match between engine processes, and hostile engines — each failure ends the
//! game with its own reason, quickly, and leaves no process behind.

use std::process::Command;
use std::time::{Duration, Instant};

use junqi::protocol::referee::{play, EngineProcess, Failure};
use junqi::{Phase, RuleSet, Side};

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

fn builtin(agent: &str) -> String {
    format!("{JUNQI} engine --agent {agent}")
}

/// No live process is left in the engine's process group (zombies that the machine's
/// init has not reaped yet do not count), within a second.
fn gone(pid: u32) -> bool {
    let live = || {
        std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { return false };
            // pid (comm) state ppid pgrp ...
            let Some(after) = stat.rsplit_once(") ").map(|x| x.1) else { return false };
            let f: Vec<&str> = after.split(' ').collect();
            f.len() > 2 && f[0] != "Z" && f[2] == pid.to_string()
        })
    };
    let until = Instant::now() + Duration::from_secs(1);
    while live() {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[test]
fn the_builtin_engine_announces_itself_and_plays_legal_games_in_every_family() {
    for rules in ["classic", "siguo", "fanqi", "sanjun-modern"] {
        let rules = RuleSet::preset(rules).unwrap();
        let mut seats: Vec<EngineProcess> = rules
            .sides()
            .iter()
            .map(|_| EngineProcess::start(&builtin("random"), Duration::from_secs(5), &[("seed".into(), "3".into())]).unwrap())
            .collect();
        assert_eq!(seats[0].name, "junqi random");
        assert!(seats[0].options.iter().any(|o| o.name == "agent" && o.kind == "string" && o.default == "random"));
        let played = play(rules.clone(), 5, &mut seats, Duration::from_secs(2), 40);
        assert!(played.failure.is_none(), "{}: {:?}", rules.name(), played.failure);
        assert!(played.capped || played.game.phase() == Phase::Over);
        assert!(played.game.position().ply() >= 30 || played.game.phase() == Phase::Over);
        let pids: Vec<u32> = seats.iter().map(|s| s.pid()).collect();
        for s in seats {
            s.stop();
        }
        assert!(pids.into_iter().all(gone));
    }
}

#[test]
fn the_builtin_engine_answers_the_documented_session() {
    // Straight from docs/protocol.md: the handshake, a deployment, a move.
    let mut child = Command::new(JUNQI)
        .args(["engine", "--agent", "greedy"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let game = {
        let mut g = junqi::Game::new("classic", 1).unwrap();
        g.deploy_random(Side::South, 1).unwrap();
        g.deploy_random(Side::North, 2).unwrap();
        g
    };
    let script = format!(
        "junqi 1\nsetoption seed 7\nnewgame N classic\ndeploy 1000\nposition {}\ngo 1000\nquit\n",
        game.view_string(Side::North).replace(" move S ", " move N ")
    );
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "id name junqi greedy");
    assert!(lines.contains(&"ready"));
    let setup = lines.iter().find_map(|l| l.strip_prefix("setup ")).unwrap();
    let setup = junqi::Setup::from_json(setup).unwrap();
    assert!(setup.validate(game.rules(), Side::North).is_ok());
    assert!(lines.last().unwrap().starts_with("action "), "{text}");
}

/// A shell engine that deploys at random and answers `go` with `answer`.
fn hostile(answer: &str) -> String {
    format!(
        "while read -r cmd rest; do case $cmd in junqi) echo 'id name hostile'; echo ready;; \
         deploy) echo 'setup random';; go) {answer};; quit) exit 0;; esac; done"
    )
}

fn against_hostile(answer: &str, budget: Duration) -> (Failure, Duration, Vec<u32>) {
    let rules = RuleSet::preset("classic").unwrap();
    let mut seats = vec![
        EngineProcess::start(&hostile(answer), Duration::from_secs(5), &[]).unwrap(),
        EngineProcess::start(&builtin("random"), Duration::from_secs(5), &[]).unwrap(),
    ];
    let pids = seats.iter().map(|s| s.pid()).collect();
    let t = Instant::now();
    let played = play(rules, 1, &mut seats, budget, 100);
    let took = t.elapsed();
    for s in seats {
        s.stop();
    }
    let (side, failure) = played.failure.clone().expect("the hostile engine fails");
    assert_eq!(side, Side::South);
    assert_eq!(played.winners(), vec![Side::North]);
    assert!(played.reason().starts_with(failure.name()));
    (failure, took, pids)
}

#[test]
fn hostile_engines_lose_with_a_named_reason_and_leave_no_process() {
    let quick = Duration::from_millis(300);
    let cases: [(&str, fn(&Failure) -> bool); 5] = [
        ("echo 'action a1-a12'", |f| matches!(f, Failure::Illegal(_))),
        ("echo 'hello there'", |f| matches!(f, Failure::Garbage(_))),
        ("sleep 30", |f| *f == Failure::Timeout),
        ("exit 3", |f| *f == Failure::Crash),
        ("head -c 3000000 /dev/zero | tr '\\0' x; echo", |f| *f == Failure::LineTooLong),
    ];
    for (answer, expected) in cases {
        let (failure, took, pids) = against_hostile(answer, quick);
        assert!(expected(&failure), "{answer}: {failure}");
        assert!(took < Duration::from_secs(5), "{answer}: {took:?}");
        assert!(pids.iter().all(|p| gone(*p)), "{answer}: a process is left");
    }
}

#[test]
fn a_paired_match_between_engine_processes_reports_wdl_elo_and_sprt() {
    let dir = std::env::temp_dir().join(format!("junqi-match-{}", std::process::id()));
    let out = Command::new(JUNQI)
        .args(["match", "--engine", &format!("r1={}", builtin("random")), "--engine"])
        .arg(format!("r2={}", builtin("random")))
        .args(["--rules", "classic", "--games", "2", "--time", "1s", "--concurrency", "2", "--max-plies", "60"])
        .args(["--sprt", "0,10", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("r1 vs r2: 2 games, W/D/L "), "{stdout}");
    assert!(stdout.contains("Elo") && stdout.contains("SPRT elo0=0 elo1=10"), "{stdout}");
    assert_eq!(stderr.matches("game ").count(), 2, "{stderr}");
    // Both seat assignments of the same seed, every record and player record written.
    assert!(stderr.contains("r1 first") && stderr.contains("r2 first"));
    for i in 0..2 {
        let record = std::fs::read_to_string(dir.join(format!("game-{i:04}.json"))).unwrap();
        junqi::Record::from_json(&record).unwrap().replay().unwrap();
        for side in ["south", "north"] {
            let p = std::fs::read_to_string(dir.join(format!("game-{i:04}-{side}.json"))).unwrap();
            junqi::PlayerRecord::from_json(&p).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Bad arguments are refused with a reason.
    let bad = Command::new(JUNQI).args(["match", "--engine", "x"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("NAME=CMD"));
}
