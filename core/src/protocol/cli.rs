//! The `junqi engine` and `junqi match` subcommands (the binary dispatches to these
//! before its own arguments).

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use super::matches::{EngineSpec, MatchSpec};
use crate::agent::AgentSpec;
use crate::RuleSet;

/// Runs a protocol subcommand if `args` (without the program name) starts with one:
/// `engine`, `match` or `bridge`. `None` otherwise.
pub fn dispatch(args: &[String]) -> Option<ExitCode> {
    let rest = &args[1.min(args.len())..];
    let result = match args.first().map(String::as_str) {
        Some("engine") => engine(rest),
        Some("match") => run_match(rest),
        Some("bridge") => bridge(rest),
        _ => return None,
    };
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Usage(e)) => {
            eprintln!("junqi: {e}");
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
        Err(Error::Failed(e)) => {
            eprintln!("junqi: {e}");
            ExitCode::from(2)
        }
    })
}

/// Why a subcommand stopped: its arguments were wrong (the usage text follows the
/// message), or what it ran failed (the message alone).
enum Error {
    Usage(String),
    Failed(String),
}

impl From<String> for Error {
    fn from(e: String) -> Error {
        Error::Usage(e)
    }
}

const USAGE: &str = "usage: junqi engine [--agent SPEC] [--seed N] [--draw agent|accept|offer]
       junqi match --engine NAME=CMD --engine NAME=CMD [--rules R] [--games N] [--time T]
                   [--time-control BASE+INC] [--concurrency K] [--max-plies P] [--seed S]
                   [--sprt ELO0,ELO1] [--out DIR]
       junqi bridge --server http://HOST:PORT --seat-link /play/ID?token=T --engine CMD
  T: time per answer, e.g. 200ms, 2s (a bare number is milliseconds)
  BASE+INC: a game clock in seconds, e.g. 60+1 (a minute a game, a second more an action)";

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, String> {
    *i += 1;
    args.get(*i).map(String::as_str).ok_or_else(|| format!("{flag} needs a value"))
}

fn number<T: std::str::FromStr>(text: &str, flag: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{flag} {text:?} is not a number"))
}

/// `200ms`, `2s`, `0.5s`, or a bare number of milliseconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a time (e.g. 200ms, 2s)");
    let (n, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (text, 1.0)
    };
    let ms: f64 = n.parse().map_err(|_| bad())?;
    if !(ms.is_finite() && ms > 0.0 && ms * scale < 3.6e6) {
        return Err(bad());
    }
    Ok(Duration::from_micros((ms * scale * 1000.0) as u64))
}

fn engine(args: &[String]) -> Result<(), Error> {
    let mut spec: AgentSpec = "random".parse().map_err(|e| format!("{e}"))?;
    let mut seed = None;
    let mut draw = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--agent" => spec = value(args, &mut i, "--agent")?.parse().map_err(|e| format!("--agent: {e}"))?,
            "--seed" => seed = Some(number::<u64>(value(args, &mut i, "--seed")?, "--seed")?),
            "--draw" => {
                let v = value(args, &mut i, "--draw")?;
                if !["agent", "accept", "offer"].contains(&v) {
                    return Err(format!("--draw {v:?} is not agent, accept or offer").into());
                }
                draw = Some(v.to_owned());
            }
            other => return Err(format!("unknown argument {other:?}").into()),
        }
        i += 1;
    }
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    // `--seed N` and `--draw P` are the same as first `setoption` lines.
    let mut first = String::new();
    if let Some(s) = seed {
        first += &format!("setoption seed {s}\n");
    }
    if let Some(d) = draw {
        first += &format!("setoption draw {d}\n");
    }
    let input: Box<dyn std::io::BufRead> = Box::new(std::io::Cursor::new(first).chain(stdin));
    match super::engine::run(spec, input, stdout) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Failed(format!("engine: {e}"))),
    }
}

fn run_match(args: &[String]) -> Result<(), Error> {
    let mut engines = Vec::new();
    let mut rules = "classic".to_owned();
    let (mut games, mut budget, mut concurrency, mut max_plies, mut seed) =
        (2usize, Duration::from_millis(1000), 1usize, 2000u32, None);
    let mut sprt = None;
    let mut out = None;
    let mut clock = None;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        match flag {
            "--engine" => {
                let v = value(args, &mut i, flag)?;
                let (name, cmd) = v.split_once('=').ok_or_else(|| format!("--engine {v:?} is not NAME=CMD"))?;
                engines.push(EngineSpec { name: name.to_owned(), command: cmd.to_owned(), options: Vec::new() });
            }
            "--rules" => rules = value(args, &mut i, flag)?.to_owned(),
            "--games" => games = number(value(args, &mut i, flag)?, flag)?,
            "--time" => budget = parse_duration(value(args, &mut i, flag)?)?,
            "--time-control" => {
                clock = Some(super::referee::TimeControl::parse(value(args, &mut i, flag)?).map_err(|e| format!("{flag}: {e}"))?)
            }
            "--concurrency" => concurrency = number(value(args, &mut i, flag)?, flag)?,
            "--max-plies" => max_plies = number(value(args, &mut i, flag)?, flag)?,
            "--seed" => seed = Some(number(value(args, &mut i, flag)?, flag)?),
            "--out" => out = Some(std::path::PathBuf::from(value(args, &mut i, flag)?)),
            "--sprt" => {
                let v = value(args, &mut i, flag)?;
                let (a, b) = v.split_once(',').ok_or_else(|| format!("--sprt {v:?} is not ELO0,ELO1"))?;
                sprt = Some((number::<f64>(a, flag)?, number::<f64>(b, flag)?));
            }
            other => return Err(format!("unknown argument {other:?}").into()),
        }
        i += 1;
    }
    let [a, b]: [EngineSpec; 2] = engines.try_into().map_err(|_| "a match needs exactly two --engine".to_owned())?;
    let rules = RuleSet::load(&rules).map_err(|e| Error::Failed(e.to_string()))?;
    if games == 0 || concurrency == 0 {
        return Err(Error::Usage("--games and --concurrency must be at least 1".into()));
    }
    // The seed is the referee's secret (it rebuilds the 翻棋 deal and random setups):
    // from the operating system unless given, and printed so that the match can be
    // played again.
    let seed = seed.unwrap_or_else(crate::random_seed);
    eprintln!("match seed {seed} (--seed {seed} plays the same games)");
    let spec = MatchSpec { rules, engines: [a, b], games, budget, clock, concurrency, max_plies, seed, sprt, out };
    let total = games.div_ceil(2) * 2;
    let names = [spec.engines[0].name.clone(), spec.engines[1].name.clone()];
    let result = super::matches::run(&spec, &|g, r| {
        let t = r.tally;
        let first = &names[g.first];
        eprintln!(
            "game {}/{total} (seed pair {}, {first} first): {} {} ({}) — W/D/L {}/{}/{}",
            g.index + 1,
            g.index / 2,
            names[0],
            if g.score == 1.0 {
                "won"
            } else if g.score == 0.0 {
                "lost"
            } else {
                "drew"
            },
            g.reason,
            t.wins,
            t.draws,
            t.losses
        );
    })
    .map_err(|e| Error::Failed(format!("writing the records: {e}")))?;
    print!("{}", result.report(&spec));
    Ok(())
}

fn bridge(args: &[String]) -> Result<(), Error> {
    let (mut server, mut link, mut command) = (None, None, None);
    let mut poll = Duration::from_millis(100);
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        match flag {
            "--server" => server = Some(value(args, &mut i, flag)?.to_owned()),
            "--seat-link" => link = Some(value(args, &mut i, flag)?.to_owned()),
            "--engine" => command = Some(value(args, &mut i, flag)?.to_owned()),
            "--poll" => poll = parse_duration(value(args, &mut i, flag)?)?,
            other => return Err(format!("unknown argument {other:?}").into()),
        }
        i += 1;
    }
    let (Some(server), Some(link), Some(command)) = (server, link, command) else {
        return Err(Error::Usage("a bridge needs --server, --seat-link and --engine".into()));
    };
    let link = super::bridge::SeatLink::parse(&server, &link)?;
    let mut engine = super::referee::EngineProcess::start(&command, Duration::from_secs(10), &[])
        .map_err(|f| Error::Failed(format!("the engine did not start: {f}")))?;
    let done = super::bridge::run(&link, &mut engine, poll).map_err(Error::Failed)?;
    eprintln!(
        "junqi bridge: the game is over ({})",
        if done.followed_stream { "followed its event stream" } else { "polled its state" }
    );
    engine.stop();
    match done.failure {
        Some(f) => Err(Error::Failed(format!("the engine failed ({f}): the seat resigned"))),
        None => {
            println!(
                "{}: {}",
                done.seat,
                done.state["result"]["text"].as_str().unwrap_or("the game is over")
            );
            Ok(())
        }
    }
}
