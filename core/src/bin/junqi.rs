//! `junqi` — plays a refereed sample game between two random players and prints what
//! each player sees as the game goes.
//!
//! ```text
//! cargo run --release -- [--rules classic] [--seed N] [--every N] [--quiet] [--json] [--svg DIR]
//! ```

use std::process::ExitCode;

use junqi::{describe_result, Game, Rng, RuleSet};

const USAGE: &str = "\
usage: junqi [--rules NAME|FILE.json] [--seed N] [--every N] [--max-plies N] [--quiet] [--json] [--svg DIR]

Plays a refereed game between two random players and prints each player's view.
  --rules NAME    rule set preset (default classic; presets: PRESETS) or a JSON file
  --seed N        seed for the setups and the players' choices (default 1)
  --every N       print both players' boards every N plies (default 20; 0 = only at the end)
  --max-plies N   stop after N plies even if the game is not over (default 2000)
  --quiet         print only the result
  --json          print the final views and the record as JSON instead of text
  --svg DIR       also draw each player's view as DIR/RULES-PLY-SEAT.svg at the end
                  (and every N plies with --every N)
";

struct Args {
    rules: String,
    seed: u64,
    every: u32,
    max_plies: u32,
    quiet: bool,
    json: bool,
    svg: Option<String>,
    /// Whether `--every` was given (SVG pictures are drawn every N plies only then).
    every_given: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        rules: "classic".into(),
        seed: 1,
        every: 20,
        max_plies: 2000,
        quiet: false,
        json: false,
        svg: None,
        every_given: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--rules" => a.rules = value("--rules")?,
            "--seed" => a.seed = value("--seed")?.parse().map_err(|e| format!("--seed: {e}"))?,
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
            "-h" | "--help" => {
                print!("{}", USAGE.replace("PRESETS", &RuleSet::preset_names().join(", ")));
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(a)
}

fn load_rules(name: &str) -> Result<std::sync::Arc<RuleSet>, String> {
    if name.ends_with(".json") {
        let text = std::fs::read_to_string(name).map_err(|e| format!("{name}: {e}"))?;
        return RuleSet::from_json(&text).map(std::sync::Arc::new).map_err(|e| e.to_string());
    }
    RuleSet::preset(name).map_err(|e| e.to_string())
}

fn print_views(game: &Game) {
    for &side in game.rules().sides() {
        let view = game.view(side);
        println!("  {side}'s view:");
        for line in view.render(game.board()).lines() {
            println!("    {line}");
        }
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

fn run(args: Args) -> Result<(), String> {
    let rules = load_rules(&args.rules)?;
    let mut game = Game::with_rules(rules.clone(), args.seed);
    let mut rng = Rng::new(args.seed);
    let text = !args.quiet && !args.json;
    if text {
        println!("junqi {} — rule set {}, seed {}", junqi::VERSION, rules.name(), args.seed);
        println!("Each player sees its own pieces by code, other sides' as <??> (<~?> a ship) unless revealed,");
        println!("face-down pieces (翻棋) as ##; ( ) empty camp, [ ] empty HQ, ~ sea. Codes:");
        let codes: Vec<String> = rules.army().map(|(k, _)| format!("{} {}", k.short(), k.id())).collect();
        for line in codes.chunks(5) {
            println!("  {}", line.join(", "));
        }
        if !rules.board().air_lines().is_empty() {
            println!("Planes are listed under the board by air position (c7^ is the air above c7).");
        }
        println!();
    }
    if game.phase() == junqi::Phase::Deploy {
        for &side in rules.sides() {
            game.deploy_random(side, rng.next_u64()).map_err(|e| e.to_string())?;
        }
    }
    if text {
        println!("== start ==");
        print_views(&game);
    }
    while game.result().is_none() && game.position().ply() < args.max_plies {
        let actions = game.legal_actions();
        let action = actions[rng.below(actions.len())];
        let report = game.play(action).map_err(|e| e.to_string())?;
        let ply = game.position().ply();
        if args.every_given && args.every > 0 && ply % args.every == 0 && game.result().is_none() {
            write_svgs(&game, args.svg.as_deref())?;
        }
        if text {
            let ply = game.position().ply();
            for e in &report.public {
                println!("ply {ply:>4} [everyone]   {}", e.describe(game.board()));
            }
            for (side, e) in &report.private {
                println!("ply {ply:>4} [{:<5} only] {}", side.name(), e.describe(game.board()));
            }
            if args.every > 0 && ply % args.every == 0 && game.result().is_none() {
                println!("== after ply {ply} ==");
                print_views(&game);
            }
        }
    }
    write_svgs(&game, args.svg.as_deref())?;
    if args.json {
        let views: Vec<_> = rules.sides().iter().map(|s| game.view(*s).to_json(&rules)).collect();
        let out = serde_json::json!({
            "views": views,
            "record": serde_json::to_value(game.record()).map_err(|e| e.to_string())?,
        });
        println!("{}", serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?);
        return Ok(());
    }
    if text {
        println!("== final ==");
        print_views(&game);
    }
    match game.result() {
        Some(r) => println!("result after {} plies: {}", game.position().ply(), describe_result(&r)),
        None => println!("stopped after {} plies without a result (--max-plies)", game.position().ply()),
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("junqi: {e}");
            eprintln!("{}", USAGE.replace("PRESETS", &RuleSet::preset_names().join(", ")));
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("junqi: {e}");
            ExitCode::FAILURE
        }
    }
}
