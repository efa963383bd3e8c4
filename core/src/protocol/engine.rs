//! The engine side of the protocol for the built-in agents ([`BuiltinEngine`]): reads
//! the referee's lines and answers with the agent's choice. Its seat's information
//! state comes from what the protocol tells the seat — its own setup, every `event`
//! line, the view string of each `position` line ([`InfoState::from_knowledge`]) — so
//! a built-in engine chooses exactly as the same agent playing in-process
//! ([`crate::Game::info_state`]) for the same seat and seed.

use std::io::{BufRead, Write};
use std::sync::Arc;

use super::{parse_rules_field, quote, read_line, skip_line, EngineOption, Line, MAX_LINE, VERSION};
use crate::agent::{Agent, AgentSpec, Budget, InfoState};
use crate::referee::Event;
use crate::{Game, GameError, RuleSet, Setup, Side};

/// The options a built-in engine announces: `agent` (the agent spec), `seed`, and
/// `draw` (how it meets draws: `agent`, `accept` or `offer`; see [`DrawPolicy`]).
pub fn options(spec: &AgentSpec) -> Vec<EngineOption> {
    vec![
        EngineOption { name: "agent".into(), kind: "string".into(), default: spec.to_string() },
        EngineOption { name: "seed".into(), kind: "int".into(), default: "0".into() },
        EngineOption { name: "draw".into(), kind: "string".into(), default: DrawPolicy::Agent.name().into() },
    ]
}

/// How a built-in engine meets draws (its `draw` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawPolicy {
    /// The agent answers offers ([`Agent::accept_draw`]: the built-in agents decline)
    /// and never offers: the default.
    Agent,
    /// Accepts every offer, never offers.
    Accept,
    /// Offers a draw with every action and accepts every offer.
    Offer,
}

impl DrawPolicy {
    /// The option value: `agent`, `accept` or `offer`.
    pub fn name(self) -> &'static str {
        match self {
            DrawPolicy::Agent => "agent",
            DrawPolicy::Accept => "accept",
            DrawPolicy::Offer => "offer",
        }
    }

    fn parse(text: &str) -> Option<DrawPolicy> {
        [DrawPolicy::Agent, DrawPolicy::Accept, DrawPolicy::Offer].into_iter().find(|p| p.name() == text)
    }
}

/// The seed of an engine's agent for one game: `seed` is the engine's `seed` option,
/// `game` the game's seed the referee told (the `seed` line after `newgame`), or, when
/// the referee told none, the game's number (from 1) among the engine's games. An
/// in-process agent built with it chooses as the engine does.
pub fn agent_seed(seed: u64, game: u64) -> u64 {
    seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The agent spec an engine thinks one answer with: a search level or time budget is
/// cut to fit the time it has — `go <ms>` alone: four fifths of it; with a game clock
/// (`clock <left> <increment>`): a twentieth of what is left plus three quarters of the
/// increment, and never more than half of what is left. A budget of iterations
/// or playouts (`search:iters=N`, `pimc:iters=N`) is kept as it is (it is deterministic); so is every spec when
/// the referee gives no time.
pub fn fitted(spec: AgentSpec, go_ms: Option<u64>, clock: Option<(u64, u64)>) -> AgentSpec {
    let cap = match (clock, go_ms) {
        (Some((left, inc)), _) => (left / 20 + inc * 3 / 4).min(left / 2),
        (None, Some(ms)) => ms * 4 / 5,
        (None, None) => return spec,
    };
    let cap = cap.clamp(1, 1_000_000_000) as u32;
    match spec.budget() {
        Some(Budget::Level(l)) if Budget::level_millis(l) > cap => spec.with_budget(Budget::Millis(cap)),
        Some(Budget::Millis(ms)) => spec.with_budget(Budget::Millis(ms.min(cap))),
        _ => spec,
    }
}

/// The engine side of the protocol with a built-in agent, one referee line at a time
/// ([`BuiltinEngine::handle`]); [`run`] drives it over a reader and a writer, and the
/// web referee's bot seats drive it in-process.
pub struct BuiltinEngine {
    spec: AgentSpec,
    seed: u64,
    draws: DrawPolicy,
    rules: Option<Arc<RuleSet>>,
    seat: Side,
    own: Option<Setup>,
    events: Vec<Event>,
    view: Option<String>,
    clock: Option<(u64, u64)>,
    agent: Box<dyn Agent>,
    games: u64,
    /// The game's seed from the referee's `seed` line, if it sent one.
    game_seed: Option<u64>,
}

impl BuiltinEngine {
    /// An engine playing `spec` (its `agent` option's default).
    pub fn new(spec: AgentSpec) -> BuiltinEngine {
        BuiltinEngine {
            spec,
            seed: 0,
            draws: DrawPolicy::Agent,
            rules: None,
            seat: Side::South,
            own: None,
            events: Vec::new(),
            view: None,
            clock: None,
            agent: spec.build(0),
            games: 0,
            game_seed: None,
        }
    }

    /// The seed of this game's agent ([`agent_seed`]).
    fn game_key(&self) -> u64 {
        agent_seed(self.seed, self.game_seed.unwrap_or(self.games))
    }

    /// The seat's information state now: from its setup, its events and the last view
    /// string ([`InfoState::from_knowledge`]); from the view string alone when the
    /// referee told no history (a game from a position string), or when the history
    /// does not lead to the view (then `Err` with the reason, and the state from the
    /// view string). `None` before `newgame` and `position`.
    pub fn info_state(&self) -> Option<(InfoState, Option<GameError>)> {
        let (rules, view) = (self.rules.as_ref()?, self.view.as_ref()?);
        let from_view = || {
            Game::from_position_string_with(rules.clone(), view, self.seed)
                .map(|g| g.info_state(self.seat))
                .map_err(|e| GameError::Record(format!("the view string does not read: {e}")))
        };
        if self.events.is_empty() && self.own.is_none() {
            return from_view().ok().map(|i| (i, None));
        }
        match InfoState::from_knowledge(rules.clone(), self.seat, self.own.as_ref(), &self.events, view) {
            Ok(info) => Some((info, None)),
            Err(e) => from_view().ok().map(|i| (i, Some(e))),
        }
    }

    /// The answer lines to one referee line (none for most lines). Unknown lines are
    /// ignored (as the protocol asks of engines); a line it cannot act on gets an
    /// `info error ...` line and no answer. `quit` is the caller's to act on.
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let error = |out: &mut Vec<String>, text: &dyn std::fmt::Display| {
            out.push(format!("info error {}", quote(&text.to_string())));
        };
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let ms = || rest.trim().parse::<u64>().ok();
        match cmd {
            "junqi" => {
                if rest.trim() != VERSION.to_string() {
                    error(&mut out, &format_args!("this engine speaks protocol {VERSION}"));
                }
                out.push(format!("id name junqi {}", self.spec));
                out.push("id author the junqi project".into());
                out.extend(options(&self.spec).iter().map(EngineOption::line));
                out.push("ready".into());
            }
            "setoption" => {
                let (name, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match name {
                    "agent" => match value.parse::<AgentSpec>() {
                        Ok(s) => self.spec = s,
                        Err(e) => error(&mut out, &e),
                    },
                    "seed" => match value.parse() {
                        Ok(s) => self.seed = s,
                        Err(_) => error(&mut out, &format_args!("seed {value:?} is not a number")),
                    },
                    "draw" => match DrawPolicy::parse(value) {
                        Some(p) => self.draws = p,
                        None => error(&mut out, &format_args!("draw {value:?} is not agent, accept or offer")),
                    },
                    _ => error(&mut out, &format_args!("unknown option {name:?}")),
                }
            }
            "newgame" => {
                let (s, r) = rest.split_once(' ').unwrap_or((rest, ""));
                match (Side::from_name(s), parse_rules_field(r)) {
                    (Some(s), Ok(r)) if !r.sides().contains(&s) => {
                        error(&mut out, &format_args!("{s} does not play in {}", r.name()))
                    }
                    (Some(s), Ok(r)) => {
                        self.seat = s;
                        self.rules = Some(r);
                        self.own = None;
                        self.events.clear();
                        self.view = None;
                        self.clock = None;
                        self.games += 1;
                        self.game_seed = None;
                        self.agent = self.spec.build(self.game_key());
                    }
                    (_, Err(e)) => error(&mut out, &e),
                    (None, _) => error(&mut out, &format_args!("unknown seat {s:?}")),
                }
            }
            "setup" => match (&self.rules, Setup::from_json(rest)) {
                (Some(r), Ok(setup)) => match setup.validate(r, self.seat) {
                    Ok(_) => self.own = Some(setup),
                    Err(e) => error(&mut out, &format_args!("setup: {e}")),
                },
                (None, _) => error(&mut out, &"setup before newgame"),
                (_, Err(e)) => error(&mut out, &format_args!("setup: {e}")),
            },
            "event" => match &self.rules {
                Some(r) => {
                    let read = serde_json::from_str::<serde_json::Value>(rest)
                        .map_err(|e| e.to_string())
                        .and_then(|v| crate::inference::event_from_json(r.board(), &v));
                    match read {
                        Ok(e) => self.events.push(e),
                        Err(e) => error(&mut out, &format_args!("event: {e}")),
                    }
                }
                None => error(&mut out, &"event before newgame"),
            },
            "seed" => match rest.trim().parse::<u64>() {
                Ok(n) if self.rules.is_some() => {
                    self.game_seed = Some(n);
                    self.agent = self.spec.build(self.game_key());
                }
                Ok(_) => error(&mut out, &"seed before newgame"),
                Err(_) => error(&mut out, &format_args!("seed {:?} is not a number", rest.trim())),
            },
            "position" => self.view = Some(rest.to_owned()),
            "clock" => {
                let mut w = rest.split_whitespace().map(|t| t.parse::<u64>());
                match (w.next(), w.next(), w.next()) {
                    (Some(Ok(left)), Some(Ok(inc)), None) => self.clock = Some((left, inc)),
                    _ => error(&mut out, &format_args!("clock {rest:?} is not <left ms> <increment ms>")),
                }
            }
            "deploy" => match &self.rules {
                Some(r) if r.deals() => error(&mut out, &format_args!("{} deals: nothing to deploy", r.name())),
                Some(r) => {
                    let setup = self.agent.deploy(r, self.seat);
                    out.push(format!("setup {}", setup.to_json()));
                    self.own = Some(setup);
                }
                None => error(&mut out, &"deploy before newgame"),
            },
            "go" | "draw" => {
                let Some((info, warning)) = self.info_state() else {
                    match (&self.rules, &self.view) {
                        (Some(r), Some(v)) => {
                            if let Err(e) = Game::from_position_string_with(r.clone(), v, 0) {
                                error(&mut out, &e);
                            }
                        }
                        _ => error(&mut out, &format_args!("{cmd} before newgame and position")),
                    }
                    return out;
                };
                if let Some(w) = warning {
                    out.push(format!("info string acting from the view string alone: {}", quote(&w.to_string())));
                }
                if cmd == "draw" {
                    let yes = match self.draws {
                        DrawPolicy::Agent => self.agent.accept_draw(&info),
                        DrawPolicy::Accept | DrawPolicy::Offer => true,
                    };
                    out.push(format!("draw {}", if yes { "accept" } else { "decline" }));
                } else if info.to_act() != Some(self.seat) {
                    error(&mut out, &format_args!("go when {} is not to act", self.seat));
                } else if info.legal().is_empty() {
                    // A view whose seat cannot act (no piece that moves, or the
                    // deployment phase) is sent by no referee; an agent asked to choose
                    // among no action panics.
                    error(&mut out, &format_args!("go when {} has no legal action", self.seat));
                } else {
                    let fitted = fitted(self.spec, ms(), self.clock);
                    let action = if fitted == self.spec {
                        self.agent.choose(&info)
                    } else {
                        // Thinks with the budget the clock leaves, from the same seed.
                        fitted.build(self.game_key() ^ info.view().ply as u64).choose(&info)
                    };
                    if self.draws == DrawPolicy::Offer {
                        out.push("draw offer".into());
                    }
                    out.push(format!("action {}", action.to_notation(info.rules().board())));
                }
            }
            // `gameover` needs no answer; unknown lines are ignored.
            _ => {}
        }
        out
    }
}

/// Plays the engine side of the protocol with a built-in agent until `quit` or the end
/// of the input ([`BuiltinEngine::handle`] for each line). A line over [`MAX_LINE`]
/// bytes gets an `info error ...` line and no answer.
pub fn run(spec: AgentSpec, mut input: impl BufRead, mut out: impl Write) -> std::io::Result<()> {
    let mut engine = BuiltinEngine::new(spec);
    while let Some(line) = read_line(&mut input, MAX_LINE)? {
        let line = match line {
            Line::Text(line) => line,
            Line::TooLong => {
                skip_line(&mut input)?;
                writeln!(out, "info error {}", quote(&format!("a line over {MAX_LINE} bytes: ignored")))?;
                out.flush()?;
                continue;
            }
        };
        if line.split(' ').next() == Some("quit") {
            break;
        }
        for answer in engine.handle(&line) {
            writeln!(out, "{answer}")?;
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
        for agent in [AgentSpec::Random, AgentSpec::GREEDY] {
            let mut out = Vec::new();
            let input = "newgame N classic\nposition classic a1=S??,b1=SMI move N 17 0 view=N\ngo 2000\n\
                         newgame S classic\nposition classic - deploy S 0 0 deployed=- view=S\ngo 2000\n";
            run(agent, input.as_bytes(), &mut out).unwrap();
            let expected = "info error go when north is not to act\ninfo error go when south has no legal action\n";
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn a_budget_is_cut_to_the_time_given_and_playouts_are_kept() {
        let level = |l| AgentSpec::Search { budget: Budget::Level(l), threads: 1, worlds: crate::agent::Worlds::Modelled, eval: crate::agent::EvalWeights::Fitted };
        let ms = |n| AgentSpec::Search { budget: Budget::Millis(n), threads: 1, worlds: crate::agent::Worlds::Modelled, eval: crate::agent::EvalWeights::Fitted };
        // Level 3 thinks 1 s: kept with 2 s to answer, cut to four fifths of 500 ms.
        assert_eq!(fitted(level(3), Some(2000), None), level(3));
        assert_eq!(fitted(level(3), Some(500), None), ms(400));
        // A clock: a twentieth of what is left plus three quarters of the increment,
        // at most half of what is left.
        assert_eq!(fitted(level(5), Some(60_000), Some((60_000, 1000))), ms(3750));
        assert_eq!(fitted(level(5), Some(100), Some((100, 10_000))), ms(50));
        assert_eq!(fitted(ms(300), None, Some((1000, 0))), ms(50));
        let iters = AgentSpec::Search { budget: Budget::Iterations(500), threads: 1, worlds: crate::agent::Worlds::Modelled, eval: crate::agent::EvalWeights::Fitted };
        assert_eq!(fitted(iters, Some(1), Some((1, 0))), iters);
        assert_eq!(fitted(AgentSpec::GREEDY, Some(1), None), AgentSpec::GREEDY);
        assert_eq!(fitted(level(2), None, None), level(2));
    }

    #[test]
    fn draws_follow_the_draw_option_and_the_referees_lines_are_read() {
        let mut game = crate::Game::new("classic", 1).unwrap();
        game.deploy_random(Side::South, 1).unwrap();
        game.deploy_random(Side::North, 2).unwrap();
        let view = game.view_string(Side::South);
        let mut e = BuiltinEngine::new(AgentSpec::Random);
        for line in ["setoption draw offer", "newgame S classic", &format!("position {view}")] {
            assert!(e.handle(line).is_empty(), "{line}");
        }
        let answer = e.handle("go 1000");
        assert_eq!(answer[0], "draw offer");
        assert!(answer[1].starts_with("action "), "{answer:?}");
        assert_eq!(e.handle("draw 1000"), ["draw accept"]);
        e.handle("setoption draw agent");
        assert_eq!(e.handle("draw 1000"), ["draw decline"]);
        assert_eq!(e.handle("setoption draw maybe"), ["info error draw \"maybe\" is not agent, accept or offer"]);
        assert!(e.handle("clock 5000 100").is_empty());
        assert!(e.handle("clock 5000")[0].starts_with("info error clock"));
        assert!(e.handle("setup {\"a1\": \"dragon\"}")[0].starts_with("info error setup: "));
        assert!(e.handle("event {\"type\": \"teleported\"}")[0].starts_with("info error event: "));
        // Events that do not lead to the view: the engine says so and acts from the view.
        let record = game.player_record(Side::South);
        e.handle(&format!("setup {}", record.setup.unwrap().to_json()));
        let answer = e.handle("go 1000");
        assert!(answer[0].starts_with("info string acting from the view string alone: "), "{answer:?}");
        assert!(answer.last().unwrap().starts_with("action "));
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
