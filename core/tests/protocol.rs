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

/// An engine link that keeps every line sent (`>`) and read (`<`).
struct Recorder<L>(L, Vec<String>);

impl<L: junqi::protocol::referee::EngineLink> junqi::protocol::referee::EngineLink for Recorder<L> {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.1.push(format!("> {line}"));
        self.0.send(line)
    }
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        let line = self.0.next_line(deadline)?;
        self.1.push(format!("< {line}"));
        Ok(line)
    }
    fn fail(&mut self, f: Failure) -> Failure {
        self.0.fail(f)
    }
}

/// Whether the documented line `doc` stands for the real line `real`: equal, or, where
/// the doc shortened it with `…`, the same text around and between the cuts, in order.
fn stands_for(doc: &str, real: &str) -> bool {
    // The spaces around a cut are the page's, not the line's.
    let parts: Vec<&str> = doc.split('…').collect();
    if parts.len() == 1 {
        return doc == real;
    }
    let n = parts.len();
    let parts: Vec<&str> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| match (i, i + 1 == n) {
            (0, _) => p.trim_end_matches(' '),
            (_, true) => p.trim_start_matches(' '),
            _ => p.trim_matches(' '),
        })
        .collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !real.starts_with(first) || !real.ends_with(last) || real.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &real[first.len()..real.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn the_documented_session_is_a_real_one() {
    // docs/protocol.md's "A full session" is read from the page and compared line by
    // line with a real session: the built-in greedy engine as North (`setoption seed
    // 7`), the referee's game seed 1, random play for South. A line of the doc may be
    // shortened with `…`; a line that is `…` alone skips real lines up to the next
    // documented one. When the referee or the engine change what they say, this fails
    // until the page says it too.
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/protocol.md")).unwrap();
    let section = page.split("## A full session").nth(1).unwrap();
    let block = section.split("```text\n").nth(1).unwrap().split("\n```").next().unwrap();
    let doc: Vec<&str> = block.lines().collect();
    // The real session: the handshake and the option as `EngineProcess::start` sends
    // them, the game as `play` referees it, then `quit` as `stop` sends it.
    let north = EngineProcess::start(&builtin("greedy"), Duration::from_secs(5), &[("seed".into(), "7".into())]).unwrap();
    let mut real = vec!["> junqi 1".to_owned()];
    real.extend(north.transcript.iter().map(|l| format!("< {l}")));
    real.push("> setoption seed 7".into());
    let mut north = Recorder(north, Vec::new());
    let mut south =
        junqi::protocol::referee::InProcessEngine::new(junqi::AgentSpec::Random, &[("seed".into(), "3".into())]).unwrap();
    {
        let mut seats: Vec<&mut dyn junqi::protocol::referee::EngineLink> = vec![&mut south, &mut north];
        let played = play(RuleSet::preset("classic").unwrap(), 1, &mut seats, Duration::from_secs(1), 2000);
        assert!(played.failure.is_none(), "{:?}", played.failure);
    }
    real.extend(north.1.drain(..));
    north.0.stop();
    real.push("> quit".into());
    if std::env::var_os("JUNQI_PRINT_SESSION").is_some() {
        eprintln!("{}", real.join("\n"));
    }
    let mut at = 0;
    for (n, line) in doc.iter().enumerate() {
        if line.trim() == "…" {
            // Skip real lines up to where the documented lines up to the next `…` (or
            // the end of the page, which is the end of the session) stand for real ones.
            let segment: Vec<&&str> = doc[n + 1..].iter().take_while(|l| l.trim() != "…").collect();
            let fits = |from: usize| {
                from + segment.len() <= real.len() && segment.iter().enumerate().all(|(k, l)| stands_for(l, &real[from + k]))
            };
            if n + 1 + segment.len() == doc.len() {
                at = at.max(real.len().saturating_sub(segment.len()));
            } else {
                while at < real.len() && !fits(at) {
                    at += 1;
                }
            }
            continue;
        }
        assert!(at < real.len(), "the doc goes on after the session ended: {line:?}");
        assert!(stands_for(line, &real[at]), "docs/protocol.md, session line {}:\n  doc:  {line}\n  real: {}", n + 1, real[at]);
        at += 1;
    }
    assert_eq!(at, real.len(), "the real session goes on after the doc's last line: {:?}", &real[at..]);
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
        .args(["--time-control", "20+0.5"])
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
    let bad = Command::new(JUNQI).args(["match", "--time-control", "soon"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("is not a time control BASE+INC"));
    let bad = Command::new(JUNQI).args(["engine", "--draw", "sometimes"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// What the referee tells a seat, line by line (as `play` sends it), fed to a built-in
/// engine in this process; at each of the seat's turns its answer is compared with the
/// same agent playing in-process from `Game::info_state` (same seat, same seed).
#[test]
fn a_builtin_engine_chooses_as_the_in_process_agent_and_uses_the_history() {
    use junqi::protocol::engine::{agent_seed, BuiltinEngine};
    use junqi::{AgentSpec, Game, InfoState};
    // 翻棋 with the derived weights: with the fitted ones this game's first 40 plies are
    // flips and moves the view string shows as well as the history (so the option
    // `eval=derived` goes through the engine too).
    for (preset, spec) in [
        ("classic", "greedy"),
        ("classic", "search:iters=300"),
        ("siguo", "greedy"),
        ("fanqi", "search:iters=200,eval=derived"),
        ("sanjun-modern", "greedy"),
    ] {
        let rules = RuleSet::preset(preset).unwrap();
        let spec: AgentSpec = spec.parse().unwrap();
        let sides = rules.sides().to_vec();
        let mut game = Game::with_rules(rules.clone(), 11);
        let mut engines: Vec<BuiltinEngine> = sides.iter().map(|_| BuiltinEngine::new(spec)).collect();
        // Each seat's agent from the engine's `seed` option and the seed the referee
        // tells the seat for the game (the `seed` line after `newgame`).
        let told_seed = |s: Side| junqi::protocol::referee::engine_seed(11, s);
        let mut agents: Vec<Box<dyn junqi::Agent>> =
            sides.iter().map(|s| spec.build(agent_seed(5, told_seed(*s)))).collect();
        for (i, s) in sides.iter().enumerate() {
            assert!(engines[i].handle("setoption seed 5").is_empty());
            let letter = junqi::protocol::side_letter(*s);
            assert!(engines[i].handle(&format!("newgame {letter} {}", junqi::protocol::rules_field(&rules))).is_empty());
            assert!(engines[i].handle(&format!("seed {}", told_seed(*s))).is_empty());
        }
        let mut told = vec![0; sides.len()];
        let (mut compared, mut history_told_more) = (0, 0);
        while game.result().is_none() && game.position().ply() < 40 {
            for (i, s) in sides.iter().enumerate() {
                for e in &game.events(*s)[told[i]..] {
                    assert!(engines[i].handle(&format!("event {}", e.to_json(game.board()))).is_empty());
                }
                told[i] = game.events(*s).len();
            }
            let side = game.to_act().unwrap();
            let i = sides.iter().position(|s| *s == side).unwrap();
            if game.phase() == Phase::Deploy {
                let answer = engines[i].handle("deploy 100000");
                let setup = junqi::Setup::from_json(answer[0].strip_prefix("setup ").unwrap()).unwrap();
                assert_eq!(setup, agents[i].deploy(&rules, side), "{preset}");
                game.deploy(side, &setup).unwrap();
                engines[i].handle(&format!("setup {}", setup.to_json()));
                continue;
            }
            let view = game.view_string(side);
            engines[i].handle(&format!("position {view}"));
            // The engine's information state is the seat's, from what it was told.
            let (info, warning) = engines[i].info_state().unwrap();
            assert!(warning.is_none(), "{preset}: {warning:?}");
            let truth = game.info_state(side);
            assert!(info == truth, "{preset} ply {}: the engine knows otherwise", game.position().ply());
            let record = InfoState::from_player_record(&game.player_record(side), &view).unwrap();
            assert!(record == truth);
            // The history tells more than the view string alone (moves, combats).
            let alone = Game::from_position_string_with(rules.clone(), &view, 0).unwrap().info_state(side);
            let count = |x: &InfoState| -> usize {
                x.beliefs().occupied().iter().map(|p| x.beliefs().candidate_identities(p).len()).sum()
            };
            assert!(count(&info) <= count(&alone), "{preset}");
            if count(&info) < count(&alone) {
                history_told_more += 1;
            }
            let answer = engines[i].handle("go 100000");
            let expected = agents[i].choose(&truth);
            assert_eq!(answer, [format!("action {}", expected.to_notation(game.board()))], "{preset}");
            game.play(expected).unwrap();
            compared += 1;
        }
        // Every turn compared up to ply 40, or to the end of a quick game.
        assert!(compared >= 10 || (game.result().is_some() && compared >= 3), "{preset}: {compared}");
        // In 翻棋 most early actions are flips, whose results the view string shows as
        // well as the history (18 of 40 turns here); elsewhere nearly every turn.
        let bar = if preset == "fanqi" { compared / 4 } else { compared / 2 };
        assert!(history_told_more > bar, "{preset}: the history told more only {history_told_more} of {compared} times");
    }
}

/// A simulated clock that the engines of a test share: it moves only when an engine
/// thinks, so that game-clock tests do not depend on the machine's load.
#[derive(Clone)]
struct FakeClock(std::sync::Arc<std::sync::Mutex<Instant>>);

impl FakeClock {
    fn new() -> FakeClock {
        FakeClock(std::sync::Arc::new(std::sync::Mutex::new(Instant::now())))
    }
    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
    fn now(&self) -> Instant {
        *self.0.lock().unwrap()
    }
}

/// A built-in engine in this process that takes `delay` over each `go`, on the shared
/// simulated clock (the game clock reads it through `EngineLink::now`).
struct Slow(junqi::protocol::referee::InProcessEngine, Duration, FakeClock);

impl junqi::protocol::referee::EngineLink for Slow {
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        if line.starts_with("go ") {
            self.2.advance(self.1);
        }
        self.0.send(line)
    }
    fn next_line(&mut self, deadline: Instant) -> Result<String, Failure> {
        self.0.next_line(deadline)
    }
    fn fail(&mut self, f: Failure) -> Failure {
        self.0.fail(f)
    }
    fn now(&self) -> Instant {
        self.2.now()
    }
}

#[test]
fn engines_agree_draws_through_the_referee_and_decline_them() {
    use junqi::protocol::referee::{play_with, InProcessEngine, Refereeing};
    use junqi::EndReason;
    let how = Refereeing { budget: Duration::from_secs(2), clock: None, max_plies: 40 };
    let engine = |draw: &str| {
        let opts = [("seed".to_owned(), "1".to_owned()), ("draw".to_owned(), draw.to_owned())];
        InProcessEngine::new("random".parse().unwrap(), &opts).unwrap()
    };
    // South offers with its first action, North accepts: drawn by agreement at ply 1.
    let rules = RuleSet::preset("classic").unwrap();
    let played = play_with(rules.clone(), 3, &mut [engine("offer"), engine("accept")], &how);
    let result = played.game.result().unwrap();
    assert_eq!((result.reason, result.winners.is_empty(), played.game.position().ply()), (EndReason::Agreement, true, 1));
    assert!(played.winners().is_empty() && played.gameover_line() == "gameover - agreement");
    // The built-in agents decline: the game goes on.
    let played = play_with(rules.clone(), 3, &mut [engine("offer"), engine("agent")], &how);
    assert!(played.capped && played.game.result().is_none(), "{:?}", played.game.result());
    // 四国: an offer is put to both seats of the other team; one declining is enough.
    let siguo = RuleSet::preset("siguo").unwrap();
    let mut seats = [engine("offer"), engine("accept"), engine("accept"), engine("agent")];
    let played = play_with(siguo.clone(), 3, &mut seats, &how);
    assert!(played.game.result().is_none_or(|r| r.reason != EndReason::Agreement));
    let mut seats = [engine("offer"), engine("accept"), engine("agent"), engine("accept")];
    let played = play_with(siguo, 3, &mut seats, &how);
    assert_eq!(played.game.result().map(|r| r.reason), Some(EndReason::Agreement));
    // Over the pipes: an engine process offers, another accepts.
    let start = |draw: &str| {
        EngineProcess::start(&builtin("random"), Duration::from_secs(5), &[("draw".to_owned(), draw.to_owned())]).unwrap()
    };
    let mut seats = [start("offer"), start("accept")];
    let played = play_with(rules, 3, &mut seats, &how);
    assert_eq!(played.game.result().map(|r| r.reason), Some(EndReason::Agreement));
    for s in seats {
        s.stop();
    }
}

#[test]
fn a_game_clock_runs_down_with_each_action_and_its_increment_keeps_it_going() {
    use junqi::protocol::referee::{play_with, InProcessEngine, Refereeing, TimeControl};
    let rules = RuleSet::preset("classic").unwrap();
    let random = || InProcessEngine::new("random".parse().unwrap(), &[]).unwrap();
    // Time on a simulated clock: each engine thinks exactly 60 ms an action.
    let slow = |clock: &FakeClock| Slow(random(), Duration::from_millis(60), clock.clone());
    // 0.3 s for the game, no increment, and the 0.2 s the clock may run below zero:
    // South's 9th action takes it to 0.3 − 9 · 0.06 = −0.24 s, past −0.2: out of time
    // then (ply 16: South acts at the even plies), not at its 8th (−0.18 s).
    let clock = TimeControl::parse("0.3").unwrap();
    let how = Refereeing { budget: Duration::from_secs(2), clock: Some(clock), max_plies: 60 };
    let fake = FakeClock::new();
    let played = play_with(rules.clone(), 1, &mut [slow(&fake), slow(&fake)], &how);
    assert_eq!(played.failure, Some((Side::South, Failure::OutOfTime)));
    assert_eq!(played.game.position().ply(), 16);
    assert_eq!(played.winners(), vec![Side::North]);
    assert_eq!(played.reason(), "out_of_time by south (out_of_time)");
    // The same with 80 ms more an action: each action gains 20 ms, nobody runs out.
    let how = Refereeing { clock: Some(TimeControl::parse("0.3+0.08").unwrap()), ..how };
    let played = play_with(rules.clone(), 1, &mut [slow(&fake), slow(&fake)], &how);
    assert!(played.failure.is_none() && played.capped, "{:?}", played.failure);
    // 60 ms more an action exactly balances: still nobody (the clock never falls).
    let how = Refereeing { clock: Some(TimeControl::parse("0.3+0.06").unwrap()), ..how };
    let played = play_with(rules.clone(), 1, &mut [slow(&fake), slow(&fake)], &how);
    assert!(played.failure.is_none() && played.capped, "{:?}", played.failure);
    // Time controls read as seconds; nonsense is refused.
    assert_eq!(TimeControl::parse("60+1").unwrap(), TimeControl { base: Duration::from_secs(60), increment: Duration::from_secs(1) });
    for bad in ["", "0", "x+1", "60+-1", "1e9"] {
        assert!(TimeControl::parse(bad).is_err(), "{bad}");
    }
    // A silent engine on a clock loses on time.
    let mut seats = vec![
        EngineProcess::start(&hostile("sleep 30"), Duration::from_secs(5), &[]).unwrap(),
        EngineProcess::start(&builtin("random"), Duration::from_secs(5), &[]).unwrap(),
    ];
    let how = Refereeing { budget: Duration::from_secs(2), clock: Some(TimeControl::parse("0.2").unwrap()), max_plies: 60 };
    let played = play_with(rules, 1, &mut seats, &how);
    assert_eq!(played.failure, Some((Side::South, Failure::OutOfTime)));
    for s in seats {
        s.stop();
    }
}

#[test]
fn an_information_state_from_the_seats_knowledge_refuses_what_does_not_fit() {
    use junqi::{Game, InfoState};
    let mut game = Game::new("classic", 4).unwrap();
    game.deploy_random(Side::South, 1).unwrap();
    game.deploy_random(Side::North, 2).unwrap();
    for _ in 0..6 {
        let a = game.legal_actions()[0];
        game.play(a).unwrap();
    }
    let record = game.player_record(Side::South);
    let err = |view: &str, record: &junqi::PlayerRecord| InfoState::from_player_record(record, view).unwrap_err().to_string();
    // Another seat's view, a full position string, a view that does not read.
    assert!(err(&game.view_string(Side::North), &record).contains("is not south's view"));
    assert!(err(&game.position_string(), &record).contains("is not south's view"));
    assert!(err("classic nonsense", &record).contains("does not read"));
    // Events that stop short: the pieces stand elsewhere than the view says.
    let mut short = record.clone();
    short.events.truncate(short.events.len() - 2);
    assert!(err(&game.view_string(Side::South), &short).contains("does not follow from the events"));
    // A seat that does not play.
    let r = RuleSet::preset("classic").unwrap();
    assert!(InfoState::from_knowledge(r, Side::East, None, &[], &game.view_string(Side::South)).is_err());
    // What fits is the referee's information state.
    assert!(InfoState::from_player_record(&record, &game.view_string(Side::South)).unwrap() == game.info_state(Side::South));
}
