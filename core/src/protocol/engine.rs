//! The engine side of the protocol for the built-in agents: reads the referee's lines,
//! rebuilds what its seat knows from the view string it is sent each turn
//! ([`crate::Game::from_position_string_with`]) and answers with the agent's choice.

use std::io::{BufRead, Write};
use std::sync::Arc;

use super::{parse_rules_field, quote, read_line, skip_line, EngineOption, Line, MAX_LINE, VERSION};
use crate::agent::AgentSpec;
use crate::{Game, RuleSet, Side};

/// The options a built-in engine announces: `agent` (the agent spec) and `seed`.
pub fn options(spec: &AgentSpec) -> Vec<EngineOption> {
    vec![
        EngineOption { name: "agent".into(), kind: "string".into(), default: spec.to_string() },
        EngineOption { name: "seed".into(), kind: "int".into(), default: "0".into() },
    ]
}

/// `info error <text>`, the text quoted ([`quote`]: one line, bounded, whatever the
/// referee sent).
fn error(out: &mut impl Write, text: impl std::fmt::Display) -> std::io::Result<()> {
    writeln!(out, "info error {}", quote(&text.to_string()))
}

/// Plays the engine side of the protocol with a built-in agent until `quit` or the end
/// of the input. Unknown lines are ignored (as the protocol asks of engines); a line
/// it cannot act on, or over [`MAX_LINE`] bytes, gets an `info error ...` line and no
/// answer.
pub fn run(spec: AgentSpec, mut input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut spec = spec;
    let mut seed = 0u64;
    let mut rules: Option<Arc<RuleSet>> = None;
    let mut seat = Side::South;
    let mut view: Option<String> = None;
    let mut agent = spec.build(seed);
    let mut games = 0u64;
    while let Some(line) = read_line(&mut input, MAX_LINE)? {
        let line = match line {
            Line::Text(line) => line,
            Line::TooLong => {
                skip_line(&mut input)?;
                error(&mut out, format_args!("a line over {MAX_LINE} bytes: ignored"))?;
                out.flush()?;
                continue;
            }
        };
        let (cmd, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        match cmd {
            "junqi" => {
                if rest.trim() != VERSION.to_string() {
                    error(&mut out, format_args!("this engine speaks protocol {VERSION}"))?;
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
                        Err(e) => error(&mut out, e)?,
                    },
                    "seed" => match value.parse() {
                        Ok(s) => seed = s,
                        Err(_) => error(&mut out, format_args!("seed {value:?} is not a number"))?,
                    },
                    _ => error(&mut out, format_args!("unknown option {name:?}"))?,
                }
            }
            "newgame" => {
                let (s, r) = rest.split_once(' ').unwrap_or((rest, ""));
                match (Side::from_name(s), parse_rules_field(r)) {
                    (Some(s), Ok(r)) if !r.sides().contains(&s) => {
                        error(&mut out, format_args!("{s} does not play in {}", r.name()))?
                    }
                    (Some(s), Ok(r)) => {
                        seat = s;
                        rules = Some(r);
                        view = None;
                        games += 1;
                        agent = spec.build(seed ^ games.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    }
                    (_, Err(e)) => error(&mut out, e)?,
                    (None, _) => error(&mut out, format_args!("unknown seat {s:?}"))?,
                }
            }
            "position" => view = Some(rest.to_owned()),
            "deploy" => match &rules {
                Some(r) if r.deals() => error(&mut out, format_args!("{} deals: nothing to deploy", r.name()))?,
                Some(r) => writeln!(out, "setup {}", agent.deploy(r, seat).to_json())?,
                None => error(&mut out, "deploy before newgame")?,
            },
            "go" | "draw" => {
                let game = match (&rules, &view) {
                    (Some(r), Some(v)) => Game::from_position_string_with(r.clone(), v, seed),
                    _ => {
                        error(&mut out, format_args!("{cmd} before newgame and position"))?;
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
                        let info = game.info_state(seat);
                        // A view whose seat cannot act (no piece that moves, or the
                        // deployment phase) is sent by no referee; an agent asked to
                        // choose among no action panics.
                        if info.legal().is_empty() {
                            error(&mut out, format_args!("go when {seat} has no legal action"))?;
                        } else {
                            let action = agent.choose(&info);
                            writeln!(out, "action {}", action.to_notation(game.board()))?;
                        }
                    }
                    Ok(_) => error(&mut out, format_args!("go when {seat} is not to act"))?,
                    Err(e) => error(&mut out, e)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(input: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        run(AgentSpec::Random, input, &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_line_that_is_not_utf8_does_not_stop_the_engine() {
        // It used to end the engine with an I/O error.
        let out = answers(b"setoption agent rand\xffom\njunqi 1\n");
        assert!(out[0].starts_with("info error unknown agent \"rand\u{FFFD}om\""), "{out:?}");
        assert_eq!(out.last().map(String::as_str), Some("ready"));
    }

    #[test]
    fn a_line_over_max_line_is_refused_and_the_next_one_answered() {
        let mut input = b"position ".to_vec();
        input.resize(3 * MAX_LINE, b'x');
        input.extend_from_slice(b"\njunqi 1\n");
        let out = answers(&input);
        assert_eq!(out[0], format!("info error a line over {MAX_LINE} bytes: ignored"));
        assert_eq!(out[1], "id name junqi random");
    }

    #[test]
    fn error_lines_are_one_line_whatever_the_referee_sent() {
        // A JSON key with an escaped newline came back raw inside serde's message: the
        // error line was two lines, the second one garbage to the referee.
        let input = "newgame S json {\"extends\": \"classic\", \"name\": \"x\", \"a\\nsetup random\": 1}\n";
        let out = answers(input.as_bytes());
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0].starts_with("info error ") && out[0].contains("a\\nsetup random"), "{out:?}");
        // An error quoting a long line is cut short: under MAX_LINE whatever comes.
        let out = answers(format!("setoption {} 1\n", "\u{1}".repeat(60_000)).as_bytes());
        assert!(out.len() == 1 && out[0].len() < 8 * 1024, "{}", out[0].len());
    }

    #[test]
    fn go_without_a_legal_action_is_refused() {
        // Found by the `protocol` fuzz target: the agents panicked choosing among no
        // action (fuzz/corpus/protocol/finding-go-without-legal-action: a view whose
        // seat cannot move, now read as the end of the game; and the deployment phase).
        for agent in [AgentSpec::Random, AgentSpec::Greedy] {
            let mut out = Vec::new();
            let input = "newgame N classic\nposition classic a1=S??,b1=SMI move N 17 0 view=N\ngo 2000\n\
                         newgame S classic\nposition classic - deploy S 0 0 deployed=- view=S\ngo 2000\n";
            run(agent, input.as_bytes(), &mut out).unwrap();
            let expected = "info error go when north is not to act\ninfo error go when south has no legal action\n";
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn no_setup_for_a_seat_that_does_not_play_or_a_dealt_game() {
        // `newgame W classic` was accepted and `deploy` answered `setup {}`.
        let out = answers(b"newgame W classic\ndeploy 1000\nnewgame S fanqi\ndeploy 1000\n");
        let expected = [
            "info error west does not play in classic",
            "info error deploy before newgame",
            "info error fanqi deals: nothing to deploy",
        ];
        assert_eq!(out, expected);
    }
}
