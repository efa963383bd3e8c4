#!/usr/bin/env python3
"""Mutation testing of the evaluation fit's arithmetic in seconds a mutant, not a minute.

`core/src/agent/tune.rs`'s regression (`sigmoid`, `log_loss`, `softplus`,
`scaled_loss`, `best_scale`, `regress`, `solve`) is pure arithmetic on `f64`s, and its
unit tests call nothing else. Through `scripts/mutants` each of its ~240 mutants costs a
build of the core and the fit's tests (about 50 s on the shared 2-core machine: over
three hours); here those functions and their unit tests are copied verbatim into a
scratch crate (with the core's `Rng`), where cargo-mutants runs them all in about three
minutes. The survivors are printed with the line and column of `tune.rs` (the copied
lines are identical) and compared with `tests/mutants/accepted.txt`; exit 1 on any
other survivor. Other tests of the core (the fit of real games, `core/tests/tools.rs`)
could only kill more, so a survivor here is a survivor or weaker there.

    python3 tests/mutants/tune_arithmetic.py        # from the repository's root
"""
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TUNE = ROOT / "core/src/agent/tune.rs"
RNG = ROOT / "core/src/rng.rs"
OUT = ROOT / "target/mutants/tune-arithmetic"
FUNCTIONS = ["fn scaled_loss", "fn sigmoid", "pub(crate) fn log_loss", "fn softplus",
             "pub(crate) fn best_scale", "pub(crate) fn regress", "fn solve"]
TESTS = ["fn sample(", "fn the_regression_finds", "fn the_fit_is_where", "fn the_ridge_keeps",
         "fn the_best_scale", "fn solve_solves_and", "fn solve_solves_systems", "fn the_log_loss", "fn a_newton_step"]


def block(lines, start, indent=""):
    """The lines from the one starting with `start` to its closing brace."""
    for i, line in enumerate(lines):
        if line.startswith(indent + start):
            j = i
            while lines[j] != indent + "}":
                j += 1
            return lines[i:j + 1]
    sys.exit(f"tune_arithmetic: {start!r} not found in {TUNE}: update FUNCTIONS/TESTS")


def main():
    tune = TUNE.read_text().split("\n")
    out = ["#![allow(dead_code)]", "const SCALE: f64 = 6.0;",
           "struct Sample { x: Vec<f64>, y: f64, held_out: bool, fold: u8 }"]
    for f in FUNCTIONS:
        out += block(tune, f) + [""]
    rng = RNG.read_text()
    body = rng[rng.index("    /// The next 64"):rng.index("/// A seed from the operating")].rstrip()
    out += ["struct Rng(u64);", "impl Rng {", "    fn new(seed: u64) -> Rng { Rng(seed) }",
            body.rstrip("}").rstrip(), "}", ""]
    tests = tune[tune.index("mod tests {"):]
    out += ["#[cfg(test)]", "mod tests {", "    use super::*;"]
    for t in TESTS:
        b = block(tests, t, "    ")
        i = tests.index(b[0])
        out += (["    #[test]"] if tests[i - 1].strip() == "#[test]" else []) + b
    out += ["}", ""]
    shutil.rmtree(OUT, ignore_errors=True)
    (OUT / "src").mkdir(parents=True)
    (OUT / "Cargo.toml").write_text(
        '[package]\nname = "tune-arithmetic"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n')
    (OUT / "src/lib.rs").write_text("\n".join(out))
    lib = out
    regex = "|".join(re.escape(f.split()[-1]) for f in FUNCTIONS)
    run = subprocess.run(["cargo", "mutants", "-j", "1", "--timeout", "20", "-F", f"in ({regex})$|replace ({regex}) ",
                          "-o", str(OUT / "out"), "-d", str(OUT)])
    if run.returncode not in (0, 2, 3):
        sys.exit(f"tune_arithmetic: cargo-mutants failed (exit {run.returncode})")
    d = OUT / "out/mutants.out"
    count = lambda name: len((d / name).read_text().splitlines()) if (d / name).exists() else 0
    missed = (d / "missed.txt").read_text().splitlines() if (d / "missed.txt").exists() else []
    survivors = []
    for m in missed:
        line, col, what = re.match(r"src/lib.rs:(\d+):(\d+): (.*)", m).groups()
        text = lib[int(line) - 1]
        real = [i + 1 for i, l in enumerate(tune) if l == text]
        survivors.append((f"core/src/agent/tune.rs:{real[0] if real else '?'}:{col}: {what}", what))
    accepted = [re.sub(r"^([^:]+):\d+:\d+: ", r"\1: ", l.split(" # ")[0])
                for l in (ROOT / "tests/mutants/accepted.txt").read_text().splitlines()
                if l.startswith("core/src/agent/tune.rs:")]
    new = []
    for full, what in survivors:
        key = f"core/src/agent/tune.rs: {what}"
        if key in accepted:
            accepted.remove(key)
        else:
            new.append(full)
    print(f"-- tune arithmetic: {count('caught.txt') + len(missed) + count('unviable.txt') + count('timeout.txt')} mutants, "
          f"{count('caught.txt')} caught, {count('timeout.txt')} time-outs, {count('unviable.txt')} unviable, "
          f"{len(missed)} missed, {len(missed) - len(new)} of them accepted")
    if new:
        print("-- survivors not in tests/mutants/accepted.txt:")
        print("\n".join("   " + s for s in new))
        sys.exit(1)


if __name__ == "__main__":
    main()
