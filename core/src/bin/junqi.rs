//! `junqi` — plays a refereed sample game between random players (or the engine's
//! agents, or a person at the terminal) and prints what each player sees as the game
//! goes.
//!
//! ```text
//! cargo run --release -- [--rules NAME|FILE|-] [--seed N] [--players LIST] [--agent-seed N]
//!                        [--setup FILE] [--every N] [--quiet] [--json] [--svg DIR]
//! ```

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use junqi::agent::{Agent, AgentSpec};
use junqi::{describe_result, Action, EdgeKind, Game, Report, Rng, RuleSet, Side};

const USAGE: &str = "\
usage: junqi [--rules NAME|FILE|-] [--seed N] [--players LIST] [--agent-seed N] [--setup FILE]
             [--every N] [--max-plies N] [--quiet] [--json] [--svg DIR]

Plays a refereed game between random players (two; four in siguo) and prints what each
player sees: its own pieces, the others' as <??> until the referee shows them.
  --rules R       a preset (default classic), else a file of rule-set JSON: any path,
                  `-` for standard input.
                  Presets: PRESETS
  --seed N        seed for the setups (or the deal) and the players' choices, to replay a
                  game (default: a fresh seed from the operating system, printed)
  --players LIST  who plays each seat, comma-separated in seat order (south,north; siguo
                  south,east,north,west); one name plays every seat. Names: random,
                  greedy, search (= search:3), search:1 .. search:5, search:iters=N,
                  search:ms=N, pimc:1 .. pimc:5 (the older search; agents, see
                  docs/agents.md), or human: you play that seat
                  from standard input and see only its view (`help` lists the
                  commands, `quit` resigns).
                  Play South against the search: --players human,search:3
  --agent-seed N  seed for the agents' choices (default: the --seed)
  --setup FILE    the human seat's setup as JSON {\"point\": \"kind\", ...} (default: random)
  --every N       print every player's board every N plies (default 20; 0 = only at the end)
  --max-plies N   stop after N plies even if the game is not over (default 2000)
  --quiet         print only the seed (to replay the game) and the result
  --json          print the final views and the record as JSON instead of text
  --svg DIR       also draw each player's view as DIR/RULES-PLY-SEAT.svg at the end
                  (and every N plies with --every N)
";

fn usage() -> String {
    USAGE.replace("PRESETS", &RuleSet::preset_names().join(", "))
}

struct Args {
    rules: String,
    seed: u64,
    /// `--players`, one entry per seat (or one for every seat); `None`: the built-in
    /// random players of the game's seed.
    players: Option<Vec<String>>,
    agent_seed: Option<u64>,
    setup: Option<String>,
    every: u32,
    max_plies: u32,
    quiet: bool,
    json: bool,
    svg: Option<String>,
    /// Whether `--every` was given (SVG pictures are drawn every N plies only then).
    every_given: bool,
}

/// The parsed arguments, or `Ok(None)` for `--help`.
fn parse_args() -> Result<Option<Args>, String> {
    let mut a = Args {
        rules: "classic".into(),
        seed: 0,
        players: None,
        agent_seed: None,
        setup: None,
        every: 20,
        max_plies: 2000,
        quiet: false,
        json: false,
        svg: None,
        every_given: false,
    };
    let mut seeded = false;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--rules" => a.rules = value("--rules")?,
            "--seed" => {
                a.seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?;
                seeded = true;
            }
            "--players" => {
                let list = value("--players")?;
                a.players = Some(list.split(',').map(|p| p.trim().to_owned()).collect());
            }
            "--agent-seed" => {
                a.agent_seed =
                    Some(value("--agent-seed")?.parse().map_err(|e| format!("--agent-seed: {e}"))?)
            }
            "--setup" => a.setup = Some(value("--setup")?),
            "--every" => {
                a.every = value("--every")?.parse().map_err(|e| format!("--every: {e}"))?;
                a.every_given = true;
            }
            "--max-plies" => {
                a.max_plies = value("--max-plies")?.parse().map_err(|e| format!("--max-plies: {e}"))?
            }
            "--quiet" => a.quiet = true,
            "--json" => a.json = true,
            "--svg" => a.svg = Some(value("--svg")?),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if !seeded {
        // A referee's seed is a secret: without --seed, a fresh one from the OS.
        a.seed = junqi::random_seed();
    }
    Ok(Some(a))
}

/// A preset by name; anything else is a file of rule-set JSON (`-`: standard input).
fn load_rules(name: &str) -> Result<Arc<RuleSet>, String> {
    if RuleSet::preset_names().contains(&name) {
        return RuleSet::preset(name).map_err(|e| e.to_string());
    }
    let text = if name == "-" {
        let mut text = String::new();
        io::stdin().read_to_string(&mut text).map_err(|e| format!("standard input: {e}"))?;
        text
    } else {
        std::fs::read_to_string(name).map_err(|e| {
            let presets = RuleSet::preset_names().join(", ");
            format!("--rules {name:?} is not a preset ({presets}) and not a readable file: {e}")
        })?
    };
    let source = if name == "-" { "standard input" } else { name };
    RuleSet::from_json(&text).map(Arc::new).map_err(|e| format!("{source}: {e}"))
}

/// What the text boards of this rule set show, with every piece's code, id and Chinese
/// name.
fn legend(rules: &RuleSet) -> String {
    let board = rules.board();
    let sea = board.points().any(|p| board.is_sea(p));
    let air = !board.air_lines().is_empty();
    let arcs = board.points().any(|a| {
        board.neighbours_by(a, EdgeKind::Railway).any(|b| {
            let ((ax, ay), (bx, by)) = (board.coords(a), board.coords(b));
            ax != bx && ay != by
        })
    });
    let mut s = String::new();
    let unknown = if sea { "<??> (<~?> a ship)" } else { "<??>" };
    if rules.deals() {
        s.push_str(
            "## is a face-down piece (翻棋): nobody knows it until it is flipped. Face up, a piece\n\
             shows its code to both players: CODE for the player's own army, <CODE> for the other.\n\
             The two armies are labelled south and north; the first flip decides which army each\n\
             player commands.\n",
        );
    } else {
        s.push_str(&format!(
            "Each player sees its own pieces by code and the other sides' as {unknown} until the\n\
             referee shows them (then <CODE>, e.g. <FL>).\n"
        ));
    }
    let partners: Vec<String> = rules
        .sides()
        .iter()
        .filter(|&&side| rules.team_of(side).len() > 1 && rules.team_of(side).iter().next() == Some(side))
        .map(|&side| rules.team_of(side).iter().map(|s| s.name()).collect::<Vec<_>>().join(" and "))
        .collect();
    if !partners.is_empty() {
        s.push_str(&format!("Teams: {}.\n", partners.join(" against ")));
    }
    let land = if sea { "an empty land point" } else { "an empty post (兵站)" };
    s.push_str(&format!("Board: . {land}, ( ) an empty camp (行营), [ ] an empty HQ (大本营)"));
    if sea {
        s.push_str(", ~ sea");
    }
    if air {
        s.push_str(", ^ an airport");
    }
    s.push_str(";\n       = and | railway (铁路)");
    if arcs {
        s.push_str(", // and \\\\ the railway arcs joining neighbouring halves");
    }
    s.push_str(";\n       roads (公路) join neighbouring points and are not drawn.\n");
    if air {
        s.push_str("Planes are listed under the board by air position (c7^ is the air above c7).\n");
    }
    s.push_str("Pieces:\n");
    let entries: Vec<String> = rules
        .army()
        .map(|(k, n)| format!("{} {} {}{}", k.short(), k.id(), k.chinese_names()[0], if n > 1 { format!(" ×{n}") } else { String::new() }))
        .collect();
    for line in entries.chunks(3) {
        s.push_str(&format!("  {}\n", line.join(", ")));
    }
    s
}

fn print_views_of(out: &mut impl Write, game: &Game, sides: &[Side]) -> io::Result<()> {
    for &side in sides {
        writeln!(out, "  {side}'s view:")?;
        print_view(out, game, side)?;
    }
    Ok(())
}

fn print_view(out: &mut impl Write, game: &Game, side: Side) -> io::Result<()> {
    for line in game.view(side).render(game.board()).lines() {
        writeln!(out, "{}", format!("    {line}").trim_end())?;
    }
    Ok(())
}

/// Why a run stopped early: a game error, or standard output went away.
enum Failure {
    Game(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

/// Draws each player's view as `DIR/RULES-PLY-SEAT.svg` (nothing without `--svg`).
fn write_svgs(game: &Game, dir: Option<&str>) -> Result<(), String> {
    let Some(dir) = dir else { return Ok(()) };
    std::fs::create_dir_all(dir).map_err(|e| format!("--svg {dir}: {e}"))?;
    let options = junqi::render::SvgOptions::default();
    for &side in game.rules().sides() {
        let svg = game.view(side).to_svg(game.rules(), &options);
        // A custom rule set's name may hold anything: keep it to a plain file name.
        let rules: String = game
            .rules()
            .name()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .collect();
        let name = format!("{rules}-{:04}-{side}.svg", game.position().ply());
        let path = std::path::Path::new(dir).join(name);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

impl From<String> for Failure {
    fn from(e: String) -> Failure {
        Failure::Game(e)
    }
}

/// Who plays a seat.
enum Player {
    /// The built-in random player of the game's seed (without `--players`).
    Builtin,
    /// One of the engine's agents.
    Agent(Box<dyn Agent>),
    /// A person at the terminal.
    Human,
}

/// The players of every seat from `--players` (one name for every seat, or one per seat).
fn players(args: &Args, rules: &RuleSet) -> Result<Vec<Player>, String> {
    let sides = rules.sides();
    let Some(names) = &args.players else {
        return Ok(sides.iter().map(|_| Player::Builtin).collect());
    };
    let names: Vec<&str> = match names.len() {
        1 => vec![names[0].as_str(); sides.len()],
        n if n == sides.len() => names.iter().map(String::as_str).collect(),
        n => {
            let seats = sides.iter().map(|s| s.name()).collect::<Vec<_>>().join(",");
            return Err(format!(
                "--players: {n} names for the {} seats of {} ({seats}): give one name, or one per seat",
                sides.len(),
                rules.name()
            ));
        }
    };
    let mut seeds = Rng::new(args.agent_seed.unwrap_or(args.seed));
    names
        .iter()
        .map(|&name| {
            let seed = seeds.next_u64();
            if name == "human" {
                return Ok(Player::Human);
            }
            let spec: AgentSpec = name.parse().map_err(|e| format!("--players {name:?}: {e}"))?;
            Ok(Player::Agent(spec.build(seed)))
        })
        .collect()
}

/// A player's name for the first line.
fn player_name(player: &Player) -> String {
    match player {
        Player::Builtin => "random".into(),
        Player::Agent(a) => a.name(),
        Player::Human => "human".into(),
    }
}

/// What a person's turn came to: an action the referee accepted, or the person leaving
/// (`quit`, `exit`, or the end of standard input), who then resigns.
enum Turn {
    Played(Report),
    Leaves(&'static str),
}

/// The commands of a person's turn, for `help` (a 翻棋 rule set adds `flip`, a board
/// with air positions their names).
fn commands(game: &Game) -> String {
    let rules = game.rules();
    let mut s = String::from("commands:\n  a2-a3       move your piece on a2 to a3 (a step, a railway run or an attack)\n");
    if rules.deals() {
        s.push_str("  flip a3     turn the face-down piece on a3 face up (翻棋)\n");
    }
    if !game.board().air_lines().is_empty() {
        s.push_str("              (c7^ is the air above c7: planes fly between air positions, a1^-a7^)\n");
    }
    s.push_str(
        "  moves, ?    list your legal actions in this notation\n\
         \x20 resign      resign the game\n\
         \x20 quit, exit  leave the game: you resign (as at the end of the input)\n\
         \x20 help        this list\n",
    );
    s
}

/// Reads the human's action for `side` from `input` until the referee accepts one or
/// the person leaves (`quit`, `exit`, the end of the input).
fn human_turn(
    game: &mut Game,
    side: Side,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<Turn, Failure> {
    writeln!(out, "== your view ({side}) ==")?;
    print_view(out, game, side)?;
    let example = if game.rules().deals() { "a2-a3 or flip a3" } else { "a2-a3" };
    loop {
        write!(out, "{side} to act ({example}; `moves` lists them; `help`; `quit`): ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(Turn::Leaves("standard input ended"));
        }
        let text = line.trim();
        match text {
            "" => continue,
            "help" | "h" => write!(out, "{}", commands(game))?,
            "quit" | "q" => return Ok(Turn::Leaves("quit")),
            "exit" => return Ok(Turn::Leaves("exit")),
            "moves" | "?" => {
                let board = game.board();
                let moves: Vec<String> =
                    game.legal_actions().iter().map(|a| a.to_notation(board)).collect();
                writeln!(out, "legal: {}", moves.join(" "))?;
            }
            "resign" => match game.resign(side) {
                Ok(report) => return Ok(Turn::Played(report)),
                Err(e) => writeln!(out, "refused: {e}")?,
            },
            _ => match Action::parse(game.board(), text) {
                Err(e) => {
                    let hint = matches!(e, junqi::NotationError::Malformed(_));
                    let hint = if hint { " (`help` lists the commands)" } else { "" };
                    writeln!(out, "refused: {}{hint}", junqi::GameError::from(e))?
                }
                Ok(a) => match game.play_as(side, a) {
                    Ok(report) => return Ok(Turn::Played(report)),
                    Err(e) => writeln!(out, "refused: {e}")?,
                },
            },
        }
    }
}

fn run(args: Args, out: &mut impl Write) -> Result<(), Failure> {
    let rules = load_rules(&args.rules)?;
    let mut seats = players(&args, &rules)?;
    let humans: Vec<Side> = rules
        .sides()
        .iter()
        .zip(&seats)
        .filter(|(_, p)| matches!(p, Player::Human))
        .map(|(&s, _)| s)
        .collect();
    if !humans.is_empty() {
        if args.rules == "-" {
            return Err("--rules -: standard input is the human's; load the rule set from a file".to_owned().into());
        }
        if args.json || args.quiet || args.svg.is_some() {
            return Err("--json, --quiet and --svg are for games without a human seat".to_owned().into());
        }
    }
    if args.setup.is_some() && humans.len() != 1 {
        return Err("--setup is the setup of the one human seat (--players human,...)".to_owned().into());
    }
    // What the output may show: every seat's view, or the human's only.
    let shown: Vec<Side> = if humans.is_empty() { rules.sides().to_vec() } else { humans.clone() };
    let mut game = Game::with_rules(rules.clone(), args.seed);
    let mut rng = Rng::new(args.seed);
    let text = !args.quiet && !args.json;
    if text {
        let players = rules
            .sides()
            .iter()
            .zip(&seats)
            .map(|(s, p)| if args.players.is_some() { format!("{} ({})", s.name(), player_name(p)) } else { s.name().to_owned() })
            .collect::<Vec<_>>()
            .join(", ");
        // The seed is the referee's secret: a person playing must not see it.
        let seed = if humans.is_empty() { format!(", seed {}", args.seed) } else { String::new() };
        writeln!(out, "junqi {} — rule set {}{seed}; players {players}", junqi::VERSION, rules.name())?;
        write!(out, "{}", legend(&rules))?;
        writeln!(out)?;
    }
    if game.phase() == junqi::Phase::Deploy {
        for (&side, player) in rules.sides().iter().zip(seats.iter_mut()) {
            match player {
                Player::Agent(agent) => {
                    junqi::agent::act(&mut game, side, agent.as_mut()).map_err(|e| e.to_string())?;
                }
                Player::Human if args.setup.is_some() => {
                    let path = args.setup.as_deref().unwrap_or_default();
                    let json = std::fs::read_to_string(path).map_err(|e| format!("--setup {path}: {e}"))?;
                    game.deploy_json(side, &json).map_err(|e| format!("--setup {path}: {e}"))?;
                }
                _ => {
                    // The seat's setup of the seeded start (`Game::random_start`): the
                    // game a seed starts is the same here as in every other layer.
                    game.deploy_start(side).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    if text && humans.is_empty() {
        writeln!(out, "== start ==")?;
        print_views_of(out, &game, &shown)?;
    }
    // Each person's narrator, and how much of its log it has told.
    let mut narrators: Vec<(Side, junqi::referee::narrate::Narrator, usize)> = humans
        .iter()
        .map(|&s| {
            let mut n = junqi::referee::narrate::Narrator::for_game(&game, s);
            let told = game.events(s).len();
            n.tell_all(game.events(s));
            (s, n, told)
        })
        .collect();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    // Why the game stopped without a result when a person left it (quit, end of input).
    let mut left: Option<&str> = None;
    while game.result().is_none() && game.position().ply() < args.max_plies {
        let Some(side) = game.to_act() else { break };
        let seat = rules.sides().iter().position(|&s| s == side).unwrap_or(0);
        let report = match &mut seats[seat] {
            Player::Builtin => {
                let actions = game.legal_actions();
                let action = actions[rng.below(actions.len())];
                game.play(action).map_err(|e| e.to_string())?
            }
            Player::Agent(agent) => match junqi::agent::act(&mut game, side, agent.as_mut()).map_err(|e| e.to_string())? {
                Some(report) => report,
                None => return Err(format!("the agent of {side} had nothing to do on its turn").into()),
            },
            Player::Human => match human_turn(&mut game, side, &mut input, out)? {
                Turn::Played(report) => report,
                Turn::Leaves(why) => match game.resign(side) {
                    Ok(report) => {
                        writeln!(out, "{why}: {side} resigns")?;
                        report
                    }
                    Err(e) => {
                        writeln!(out, "{why}; {side} cannot resign ({e}): the game stops")?;
                        left = Some(why);
                        break;
                    }
                },
            },
        };
        let ply = game.position().ply();
        if args.every_given && args.every > 0 && ply % args.every == 0 && game.result().is_none() {
            write_svgs(&game, args.svg.as_deref())?;
        }
        if text && !narrators.is_empty() {
            // A person at the terminal hears the events from its side (the core's
            // narrator: "your 团长 on e6 was taken by north's piece from e7"), the public
            // ones once, from the first person's side, its own private ones as its own.
            for (i, (side, narrator, told)) in narrators.iter_mut().enumerate() {
                let log = game.events(*side);
                for e in &log[*told..] {
                    let words = narrator.tell(e);
                    let public = report.public.contains(e) && !report.private.iter().any(|(s, p)| s == side && p == e);
                    if public && i == 0 {
                        writeln!(out, "ply {ply:>4} [everyone]   {words}")?;
                    } else if !public {
                        writeln!(out, "ply {ply:>4} [{:<5} only] {words}", side.name())?;
                    }
                }
                *told = log.len();
            }
        } else if text {
            for e in &report.public {
                writeln!(out, "ply {ply:>4} [everyone]   {}", e.describe(game.board()))?;
            }
            for (side, e) in report.private.iter().filter(|(s, _)| shown.contains(s)) {
                writeln!(out, "ply {ply:>4} [{:<5} only] {}", side.name(), e.describe(game.board()))?;
            }
            if humans.is_empty() && args.every > 0 && ply % args.every == 0 && game.result().is_none() {
                writeln!(out, "== after ply {ply} ==")?;
                print_views_of(out, &game, &shown)?;
            }
        }
    }
    write_svgs(&game, args.svg.as_deref())?;
    if args.json {
        let views: Vec<_> = rules.sides().iter().map(|s| game.view(*s).to_json(&rules)).collect();
        let json = serde_json::json!({
            "views": views,
            "record": serde_json::to_value(game.record()).map_err(|e| e.to_string())?,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?)?;
        return Ok(out.flush()?);
    }
    if text {
        writeln!(out, "== final ==")?;
        print_views_of(out, &game, &shown)?;
    }
    if args.quiet && humans.is_empty() {
        // Quiet still tells how to replay the game (a person playing never sees it).
        writeln!(out, "seed {}", args.seed)?;
    }
    match (game.result(), left) {
        (Some(r), _) => writeln!(out, "result after {} plies: {}", game.position().ply(), describe_result(&r))?,
        (None, Some(why)) => writeln!(out, "stopped after {} plies without a result ({why})", game.position().ply())?,
        (None, None) => writeln!(out, "stopped after {} plies without a result (--max-plies)", game.position().ply())?,
    }
    Ok(out.flush()?)
}

fn main() -> ExitCode {
    // The engine protocol's subcommands (docs/protocol.md): `junqi engine`, `junqi match`.
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(code) = junqi::protocol::cli::dispatch(&std::env::args().skip(1).collect::<Vec<_>>()) {
        return code;
    }
    // `junqi model fit|measure` (docs/inference.md).
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(code) = junqi::inference::model_cli(&std::env::args().skip(1).collect::<Vec<_>>()) {
        return code;
    }
    // `junqi eval fit` (docs/agents.md).
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(code) = junqi::agent::eval_cli(&std::env::args().skip(1).collect::<Vec<_>>()) {
        return code;
    }
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            // Even `junqi --help | head -n 1` must not panic on the closed pipe.
            let _ = io::stdout().lock().write_all(usage().as_bytes());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("junqi: {e}");
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    };
    let mut out = BufWriter::new(io::stdout().lock());
    match run(args, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`junqi --json | head`): stop quietly, as `cat` does.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            eprintln!("junqi: writing the output: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Game(e)) => {
            eprintln!("junqi: {e}");
            ExitCode::FAILURE
        }
    }
}
