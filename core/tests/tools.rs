//! The fitting tools of the `junqi` program, run as a user runs them: `junqi eval fit`
//! (the evaluation's weights, docs/agents.md) and `junqi model fit|measure` (the
//! opponent model, docs/inference.md). Each promise of their usage text is checked:
//! the same arguments give the same file on any thread count, `--out` writes what
//! standard output would show, every option is read, and a bad argument is refused
//! with its reason, the usage and exit status 2.

use std::process::Command;

const JUNQI: &str = env!("CARGO_BIN_EXE_junqi");

/// Runs `junqi ARGS`: (exit code, standard output, standard error).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(JUNQI).args(args).output().expect("junqi runs");
    (
        out.status.code().expect("exited"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A fresh scratch folder of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("junqi-tools-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `junqi eval fit` with a few short classic games and `extra` arguments: its JSON
/// text and standard error.
fn eval_fit(extra: &[&str]) -> (String, String) {
    let mut args = vec!["eval", "fit", "--rules", "classic", "--games", "5", "--seed", "3"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    (out, err)
}

#[test]
fn eval_fit_gives_the_same_weights_on_any_thread_count_and_reads_every_option() {
    let (one, err) = eval_fit(&["--threads", "1"]);
    let (two, _) = eval_fit(&["--threads", "2"]);
    assert_eq!(one, two, "the thread count changed the weights");
    let v = json(&one);
    assert_eq!(v["rules"], "classic");
    assert_eq!(v["games"], 5);
    let positions = v["positions"].as_u64().unwrap();
    assert!(positions > 0);
    assert_eq!(
        v["source"],
        "5 self-play games of greedy:eval=derived, seed 3, every 3 plies, at most 1000 plies: \
         junqi eval fit --rules classic --games 5 --agents greedy:eval=derived --seed 3 --every 3 --max-plies 1000"
    );
    for kind in ["commander", "engineer", "mine", "bomb", "flag"] {
        assert!(v["weights"]["material"][kind].is_number(), "{kind}: {one}");
    }
    // The line on standard error tells the held-out losses the file holds.
    let line = err.lines().last().unwrap();
    let (d, f) = (v["derived_loss"].as_f64().unwrap(), v["fitted_loss"].as_f64().unwrap());
    assert_eq!(
        line,
        format!("{positions} positions of 5 games; held-out log-loss: derived {d:.4}, fitted {f:.4}"),
        "{err}"
    );
    assert!(d > 0.0 && d < 1.0 && f > 0.0 && f < 1.0, "{one}");

    // `--out` writes what standard output shows, and nothing goes to standard output.
    let dir = scratch("eval");
    let file = dir.join("w.json");
    let (code, out, _) = run(&[
        "eval", "fit", "--rules", "classic", "--games", "5", "--seed", "3", "--threads", "2",
        "--out", file.to_str().unwrap(),
    ]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), one);

    // Each option changes what it names.
    let other_seed = json(&eval_fit(&["--seed", "4"]).0);
    assert_ne!(other_seed["weights"], v["weights"], "another seed, other games");
    let more = json(&eval_fit(&["--games", "10"]).0);
    assert_eq!(more["games"], 10);
    let every = json(&eval_fit(&["--every", "1"]).0);
    let p1 = every["positions"].as_u64().unwrap();
    assert!(p1 > 2 * positions && p1 < 4 * positions, "every ply: {p1}, every third: {positions}");
    let short = json(&eval_fit(&["--max-plies", "40"]).0);
    assert!(short["source"].as_str().unwrap().ends_with("--max-plies 40"));
    // At most 40 plies: every game is unfinished (½ for every seat), so the best fit
    // tells nothing: the held-out loss is that of a coin.
    assert!((short["fitted_loss"].as_f64().unwrap() - std::f64::consts::LN_2).abs() < 1e-3, "{short}");
    let agents = json(&eval_fit(&["--agents", "greedy:eval=derived,random"]).0);
    assert!(agents["source"].as_str().unwrap().contains("--agents greedy:eval=derived,random"));
    assert_ne!(agents["weights"], v["weights"]);
    // A rule set from a file.
    let rules = dir.join("mine.json");
    std::fs::write(&rules, r#"{"extends": "classic", "name": "mine", "options": {"rail_max_steps": 3}}"#).unwrap();
    let (code, out, err) = run(&["eval", "fit", "--rules", rules.to_str().unwrap(), "--games", "5", "--max-plies", "60"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["rules"], "mine");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn eval_refuses_bad_arguments_with_the_reason_and_the_usage() {
    let cases: &[(&[&str], &str)] = &[
        (&["eval"], "junqi eval: say fit"),
        (&["eval", "refit"], "junqi eval: say fit"),
        (&["eval", "fit", "--games", "4"], "junqi eval: --games must be at least 5 (one game in five is held out)"),
        (&["eval", "fit", "--games"], "junqi eval: --games needs a value"),
        (&["eval", "fit", "--seed", "x"], "junqi eval: --seed takes a number, not \"x\""),
        (&["eval", "fit", "--bogus"], "junqi eval: unknown argument --bogus"),
        (&["eval", "fit", "--rules", "nosuch"], "junqi eval: "),
        (&["eval", "fit", "--agents", "greedy,nobody"], "junqi eval: "),
        (&["eval", "fit", "--games", "5", "--out", "/nonexistent-folder/w.json"], "junqi eval: writing /nonexistent-folder/w.json: "),
    ];
    for (args, first) in cases {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(out, "", "{args:?}");
        // The reason is the first line after any progress (written with carriage returns).
        let line = err.split(['\n', '\r']).find(|l| !l.is_empty() && !l.ends_with(" games")).unwrap_or("");
        assert!(line.starts_with(first), "{args:?}: {err}");
        assert!(err.contains("usage: junqi eval fit --rules R"), "{args:?}: {err}");
    }
    // A file that cannot be written is refused before the games, not after them.
    for tool in ["eval", "model"] {
        let (code, _, err) = run(&[tool, "fit", "--games", "2000", "--out", "/nonexistent-folder/w.json"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with(&format!("junqi {tool}: writing /nonexistent-folder/w.json: ")), "{err}");
    }
    // The rule set's and the agent's own reasons are passed on.
    assert!(run(&["eval", "fit", "--rules", "nosuch"]).2.contains("nosuch"));
    assert!(run(&["eval", "fit", "--agents", "greedy,nobody"]).2.contains("nobody"));
    for help in ["--help", "-h"] {
        let (code, out, err) = run(&["eval", help]);
        assert_eq!((code, err.as_str()), (0, ""));
        assert!(out.starts_with("usage: junqi eval fit --rules R"), "{out}");
    }
}

#[test]
fn model_fit_gives_the_same_model_on_any_thread_count_and_measure_reports_by_ply() {
    let fit = |extra: &[&str]| {
        let mut args = vec!["model", "fit", "--rules", "classic", "--games", "4", "--seed", "5"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    };
    let one = fit(&["--threads", "1"]);
    assert_eq!(one, fit(&["--threads", "2"]), "the thread count changed the model");
    let v = json(&one);
    assert_eq!(v["format"], "junqi-opponent-model 1");
    assert_eq!((v["rules"].as_str(), v["games"].as_u64()), (Some("classic"), Some(4)));
    assert_ne!(json(&fit(&["--seed", "6"]))["kinds"], v["kinds"], "another seed, other games");
    let dir = scratch("model");
    let file = dir.join("m.json");
    let (code, out, _) = run(&["model", "fit", "--rules", "classic", "--games", "4", "--seed", "5", "--out", file.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), one);

    // The model just written, measured on two games: a row per army and span of plies.
    let (code, out, err) = run(&[
        "model", "measure", "--rules", "classic", "--games", "2", "--seed", "5", "--every", "10", "--samples", "8",
        "--max-plies", "60", "--model", file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 games of classic (greedy)"), "{out}");
    assert!(out.contains("| pieces of | plies |"), "{out}");
    for row in ["| south (greedy) | 0–19 |", "| north (greedy) | 20–39 |"] {
        assert!(out.contains(row), "{row}: {out}");
    }
    let _ = std::fs::remove_dir_all(dir);

    for (args, first) in [
        (&["model"][..], "junqi model: say fit or measure"),
        (&["model", "fit", "--bogus"][..], "junqi model: unknown argument --bogus"),
        (&["model", "fit", "--seed", "-1"][..], "junqi model: --seed takes a number, not \"-1\""),
        (&["model", "fit", "--agents", "nobody"][..], "junqi model: "),
        (&["model", "fit", "--rules", "fanqi"][..], "junqi model: "),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with(first), "{args:?}: {err}");
        assert!(err.contains("usage: junqi model fit"), "{args:?}: {err}");
    }
    // Progress: the games done, at each tenth of the run, on one line.
    let (code, _, err) = run(&["model", "fit", "--games", "25", "--threads", "1", "--max-plies", "2"]);
    assert_eq!(code, 0, "{err}");
    let tenths: String = [3, 5, 8, 10, 13, 15, 18, 20, 23, 25].iter().map(|d| format!("\r{d}/25 games")).collect();
    assert_eq!(err, tenths + "\n");
    for help in ["--help", "-h"] {
        let (code, out, err) = run(&["model", help]);
        assert_eq!((code, err.as_str()), (0, ""));
        assert!(out.starts_with("usage: junqi model fit --rules R"), "{out}");
    }
}
