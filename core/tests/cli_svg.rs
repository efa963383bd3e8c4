//! The command line's `--svg DIR`: each seat's view at the end, and every N plies with
//! `--every N`.

use std::path::PathBuf;
use std::process::Command;

fn run_in(dir: &str, args: &[&str]) -> Vec<String> {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_junqi"))
        .args(args)
        .args(["--quiet", "--svg", out.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for n in &names {
        let text = std::fs::read_to_string(out.join(n)).unwrap();
        assert!(text.starts_with("<svg") && text.ends_with("</svg>"), "{n}");
    }
    names
}

#[test]
fn svg_writes_each_seat_at_the_end() {
    let names = run_in(
        "cli-end",
        &["--rules", "classic", "--seed", "3", "--max-plies", "7"],
    );
    assert_eq!(names, ["classic-0007-north.svg", "classic-0007-south.svg"]);
}

#[test]
fn svg_with_every_writes_every_n_plies() {
    let names = run_in(
        "cli-every",
        &[
            "--rules",
            "siguo",
            "--seed",
            "3",
            "--max-plies",
            "7",
            "--every",
            "3",
        ],
    );
    let plies: Vec<&str> = names.iter().map(|n| &n[6..10]).collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert_eq!(plies.iter().filter(|p| **p == "0003").count(), 4);
    assert_eq!(plies.iter().filter(|p| **p == "0006").count(), 4);
    assert!(names.contains(&"siguo-0007-east.svg".to_owned()));
}
