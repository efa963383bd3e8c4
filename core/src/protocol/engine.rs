//! The engine side of the protocol for the built-in agents: reads the referee's lines,
//! rebuilds what its seat knows from the view string it is sent each turn
//! ([`crate::Game::from_position_string_with`]) and answers with the agent's choice.

use std::io::{BufRead, Write};
use std::sync::Arc;

use super::{parse_rules_field, EngineOption, VERSION};
use crate::agent::AgentSpec;
use crate::{Game, RuleSet, Side};

/// The options a built-in engine announces: `agent` (the agent spec) and `seed`.
pub fn options(spec: &AgentSpec) -> Vec<EngineOption> {
    vec![
        EngineOption { name: "agent".into(), kind: "string".into(), default: spec.to_string() },
        EngineOption { name: "seed".into(), kind: "int".into(), default: "0".into() },
    ]
}

/// Plays the engine side of the protocol with a built-in agent until `quit` or the end
/// of the input. Unknown lines are ignored (as the protocol asks of engines); a line
/// it cannot act on gets an `info error ...` line and no answer.
pub fn run(spec: AgentSpec, input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut spec = spec;
    let mut seed = 0u64;
    let mut rules: Option<Arc<RuleSet>> = None;
    let mut seat = Side::South;
    let mut view: Option<String> = None;
    let mut agent = spec.build(seed);
    let mut games = 0u64;
    for line in input.lines() {
        let line = line?;
        let (cmd, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match cmd {
            "junqi" => {
                if rest.trim() != VERSION.to_string() {
                    writeln!(out, "info error this engine speaks protocol {VERSION}")?;
                }
                writeln!(out, "id name junqi {spec}")?;
                writeln!(out, "id author the junqi project")?;
                for o in options(&spec) {
                    writeln!(out, "{}", o.line())?;
                }
                writeln!(out, "ready")?;
            }
            "setoption" => {
                let (name, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match name {
                    "agent" => match value.parse::<AgentSpec>() {
                        Ok(s) => spec = s,
                        Err(e) => writeln!(out, "info error {e}")?,
                    },
                    "seed" => match value.parse() {
                        Ok(s) => seed = s,
                        Err(_) => writeln!(out, "info error seed {value:?} is not a number")?,
                    },
                    _ => writeln!(out, "info error unknown option {name:?}")?,
                }
            }
            "newgame" => {
                let (s, r) = rest.split_once(' ').unwrap_or((rest, ""));
                match (Side::from_name(s), parse_rules_field(r)) {
                    (Some(s), Ok(r)) => {
                        seat = s;
                        rules = Some(r);
                        view = None;
                        games += 1;
                        agent = spec.build(seed ^ games.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    }
                    (_, Err(e)) => writeln!(out, "info error {e}")?,
                    (None, _) => writeln!(out, "info error unknown seat {s:?}")?,
                }
            }
            "position" => view = Some(rest.to_owned()),
            "deploy" => match &rules {
                Some(r) => writeln!(out, "setup {}", agent.deploy(r, seat).to_json())?,
                None => writeln!(out, "info error deploy before newgame")?,
            },
            "go" | "draw" => {
                let game = match (&rules, &view) {
                    (Some(r), Some(v)) => Game::from_position_string_with(r.clone(), v, seed),
                    _ => {
                        writeln!(out, "info error {cmd} before newgame and position")?;
                        out.flush()?;
                        continue;
                    }
                };
                match game {
                    Ok(game) if cmd == "draw" => {
                        let yes = agent.accept_draw(&game.info_state(seat));
                        writeln!(out, "draw {}", if yes { "accept" } else { "decline" })?;
                    }
                    Ok(game) if game.to_act() == Some(seat) => {
                        let action = agent.choose(&game.info_state(seat));
                        writeln!(out, "action {}", action.to_notation(game.board()))?;
                    }
                    Ok(_) => writeln!(out, "info error go when {seat} is not to act")?,
                    Err(e) => writeln!(out, "info error {e}")?,
                }
            }
            "quit" => break,
            // `event` and `gameover` lines need no answer: the view string says all a
            // built-in agent uses.
            _ => {}
        }
        out.flush()?;
    }
    out.flush()
}
