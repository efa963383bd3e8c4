#!/usr/bin/env bash
# The Python suite: builds and installs the `junqi` package (pip install ./py) into a
# virtualenv at .venv (reused when present), then runs pytest on tests/python and
# checks the hand-written stubs against the compiled module with mypy's stubtest.
#
# Needs Rust, a C compiler and Python >= 3.9 with venv; pip must reach PyPI the first
# time (maturin, pytest, mypy, the RL extras: pettingzoo, gymnasium, open_spiel, and
# the ray extras: ray, pyarrow).
# Set PYTHON to choose the interpreter; JUNQI_PY_SETUP_ONLY=1 installs and builds
# everything, then stops before the tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
venv="$root/.venv"
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
  echo "-- creating $venv"
  "$python" -m venv "$venv"
fi
py="$venv/bin/python"

# Tools (quiet when already installed).
if ! "$py" -c "import maturin, pytest, mypy, numpy" >/dev/null 2>&1; then
  "$py" -m pip install --quiet --upgrade pip
  "$py" -m pip install --quiet "maturin>=1.7,<2" pytest mypy numpy
fi

# The optional dependencies of the RL adapters (the `rl` extras of py/pyproject.toml),
# once: their tests run with the rest.
if ! "$py" -c "import pettingzoo, gymnasium, pyspiel" >/dev/null 2>&1; then
  rl_extras=$("$py" -c 'import re; t = open("py/pyproject.toml").read(); print(" ".join(re.findall(r"\"([^\"]+)\"", re.search(r"^rl = \[(.*?)\]", t, re.M | re.S).group(1))))')
  echo "-- pip install $rl_extras"
  "$py" -m pip install --quiet $rl_extras
fi

# The optional dependencies of junqi.distributed (the `ray` extras), once: its tests
# start Ray clusters on this machine (on loopback addresses, with a fresh auth token).
if ! "$py" -c "import ray, pyarrow" >/dev/null 2>&1; then
  ray_extras=$("$py" -c 'import re; t = open("py/pyproject.toml").read(); print(" ".join(re.findall(r"\"([^\"]+)\"", re.search(r"^ray = \[(.*?)\]", t, re.M | re.S).group(1))))')
  echo "-- pip install $ray_extras"
  "$py" -m pip install --quiet $ray_extras
fi

echo "-- pip install ./py"
# --no-build-isolation reuses the venv's maturin (no fresh download per run); the
# build shares the workspace's target/ directory with cargo.
"$py" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps ./py

# The `junqi` binary tests/python/test_engine.py plays a match with: the build under
# test, target/citest/junqi, which scripts/test's `cargo test --workspace --profile
# citest` has just built (the same features: a no-op then), built here when this runs
# on its own.
if [ -z "${JUNQI_BIN:-}" ]; then
  echo "-- cargo build --workspace --profile citest --bin junqi"
  cargo build --quiet --workspace --profile citest --bin junqi
  JUNQI_BIN="${CARGO_TARGET_DIR:-$root/target}/citest/junqi"
fi
export JUNQI_BIN
# JUNQI_PY_SETUP_ONLY=1: stop here, everything installed and built (scripts/mutants
# runs mutmut on the installed package).
if [ "${JUNQI_PY_SETUP_ONLY:-}" = 1 ]; then exit 0; fi

echo "-- pytest tests/python"
"$py" -m pytest -q tests/python

echo "-- stubtest junqi"
# Run from an empty directory so mypy sees only the installed package.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && "$py" -m mypy.stubtest junqi --allowlist "$root/tests/python/stubtest-allowlist.txt")
(cd "$tmp" && "$py" -m mypy --strict "$root/tests/python" --no-incremental >/dev/null) \
  && echo "mypy --strict tests/python: ok" \
  || { (cd "$tmp" && "$py" -m mypy --strict "$root/tests/python" --no-incremental) ; exit 1; }
# The package's pure-Python modules (junqi.distributed, the RL adapters) from source.
(cd "$tmp" && "$py" -m mypy --strict "$root/py/python/junqi" --no-incremental >/dev/null) \
  && echo "mypy --strict py/python/junqi: ok" \
  || { (cd "$tmp" && "$py" -m mypy --strict "$root/py/python/junqi" --no-incremental) ; exit 1; }
echo "-- python: all passed"
