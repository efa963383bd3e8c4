#!/usr/bin/env bash
# The Python half of scripts/mutants: mutation testing of the `junqi` package's own
# Python code (py/python/junqi/*.py) with mutmut (https://mutmut.readthedocs.io), run by
# scripts/mutants for the .py files among its paths. Not meant to be run alone.
#
#   tests/mutants/mutmut.sh FILE…      # files under py/python/junqi/
#
# mutmut mutates a copy of the package and runs, for each mutant, the tests of
# tests/python that call the mutated function (it records which tests call which
# function in one run of the whole suite first). It needs the compiled module next to
# the copied sources, so this script stages a tree under target/mutants/python/:
#   src/junqi/      the package's sources from the working tree and the compiled
#                   _junqi module of the package tests/python/run.sh installs in .venv
#                   (run first, in its setup-only mode: it builds ./py afresh);
#   tests/, docs/, fuzz/python/   what the tests read (paths relative to their file);
#   pyproject.toml  mutmut's settings: the files to mutate, the tests to run.
# The tests that start Ray clusters on this machine are left out: under mutmut's
# forking runner a cluster does not start (its GCS server times out); the code they run
# is run in one process by the other tests of tests/python/test_distributed.py.
#
# Survivors ("survived", and "no tests": code no test calls) are compared with the
# lines of tests/mutants/accepted.txt that start with "py/": "FILE: FUNCTION: the
# mutated line # reason" (the reason after the last " # "; a mutant that only deletes
# lines is "del " and the deleted lines), so that an edit elsewhere in the file keeps a line accepted
# (mutmut numbers its mutants a function at a time). Prints the counts, the survivors
# not accepted (exit 1), and accepted lines that no longer survive.
#
# For work on one module: MUTMUT_TESTS="tests/python/test_x.py …" narrows the tests
# (mutmut's first run of them all is most of a small module's time), MUTMUT_STAGE=DIR
# stages elsewhere (two runs at once), MUTMUT_NO_INSTALL=1 uses the package already in
# .venv as it is (no rebuild; the compiled module must match the tree).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
accepted=tests/mutants/accepted.txt
version=3.8.1
jobs=${JOBS:-1}
stage=${MUTMUT_STAGE:-target/mutants/python}
selection=${MUTMUT_TESTS:-tests/python}
py=.venv/bin/python
[ $# -gt 0 ] || { echo "mutmut.sh: no file given" >&2; exit 2; }

# The package installed from this tree, with pytest and the RL extras (run.sh's
# installs), and mutmut itself.
if [ "${MUTMUT_NO_INSTALL:-}" != 1 ]; then
  echo "-- mutants: installing the package (tests/python/run.sh, setup only)"
  JUNQI_PY_SETUP_ONLY=1 tests/python/run.sh
fi
if [ "$("$py" -c 'import importlib.metadata as m; print(m.version("mutmut"))' 2>/dev/null)" != "$version" ]; then
  echo "-- mutants: pip install mutmut==$version"
  "$py" -m pip install --quiet "mutmut==$version"
fi
so=$("$py" -c 'import junqi._junqi as m; print(m.__file__)')
bin="${CARGO_TARGET_DIR:-$root/target}/citest/junqi"

rm -rf "$stage"
mkdir -p "$stage/src" "$stage/tests" "$stage/fuzz"
cp -r py/python/junqi "$stage/src/"
rm -f "$stage/src/junqi/"*.so
cp "$so" "$stage/src/junqi/"
cp -r tests/python tests/golden "$stage/tests/"
cp -r docs "$stage/"
cp -r fuzz/python "$stage/fuzz/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
only=""
for f in "$@"; do
  case "$f" in
    py/python/junqi/*.py) only+="${only:+, }\"src/${f#py/python/}\"" ;;
    *) echo "mutmut.sh: $f is not a module of py/python/junqi/" >&2; exit 2 ;;
  esac
done
cat > "$stage/pyproject.toml" <<EOF
[tool.mutmut]
source_paths = ["src"]
only_mutate = [$only]
pytest_add_cli_args_test_selection = [$(printf '"%s", ' $selection)"-k", "not TestLocalCluster and not TestTwoNodes"]
pytest_add_cli_args = ["-q", "-p", "no:cacheprovider"]
also_copy = ["docs", "fuzz"]
EOF

echo "== mutants: $* (mutmut $version, pytest $selection) =="
rc=0
(cd "$stage" && JUNQI_BIN="$bin" "$root/.venv/bin/mutmut" run --max-children "$jobs" > run.log 2>&1) || rc=$?
# The run's last progress line has the counts.
tr '\r' '\n' < "$stage/run.log" | grep -v '^\s*$' | tail -n 3 | sed 's/^/   /'
[ $rc = 0 ] || { echo "-- mutants: mutmut failed (exit $rc; the unmutated tests must pass): $stage/run.log" >&2; exit 1; }

# Every mutant's status, then the survivors' descriptions (file: function: + lines).
(cd "$stage" && "$root/.venv/bin/mutmut" results --all true) > "$stage/results.txt" 2>/dev/null
: > "$stage/survivors.txt"
while read -r name status; do
  name=${name%:}
  case "$status" in survived | "no tests" | no) ;; *) continue ;; esac
  shown=$(cd "$stage" && "$root/.venv/bin/mutmut" show "$name" 2>/dev/null)
  file=$(sed -n 's|^--- src/|py/python/|p' <<< "$shown" | head -n 1)
  # junqi.m.x_f__mutmut_3 → f; junqi.m.xǁCǁf__mutmut_3 → C.f
  func=$(sed -E 's/__mutmut_[0-9]+$//; s/.*\.x(ǁ|_)//; s/ǁ/./g' <<< "$name")
  # The added lines; for a mutant that only deletes, "del " and the deleted ones.
  line=$({ grep '^+ ' <<< "$shown" || true; } | sed -E 's/^\+\s*//' | paste -sd '|' -)
  [ -n "$line" ] || line="del $({ grep '^- ' <<< "$shown" || true; } | sed -E 's/^-\s*//' | paste -sd '|' -)"
  echo "$file: $func: $line" >> "$stage/survivors.txt"
done < <(sed -E 's/^\s+//' "$stage/results.txt")
sort -o "$stage/survivors.txt" "$stage/survivors.txt"

count() { grep -c -E ": ($1)\$" "$stage/results.txt" || true; }
# The reason follows the last " # " (a mutated line may hold a comment of its own).
accepted_py() { grep '^py/' "$accepted" | sed -E 's/^(.*) # .*$/\1/' | sort || true; }
total=$(grep -c ': ' "$stage/results.txt" || true)
new=$(comm -23 "$stage/survivors.txt" <(accepted_py))
echo
echo "-- mutants: module | mutants | killed | survived | no tests | timeouts | accepted"
for f in "$@"; do
  mod=$(sed -E 's|^py/python/||; s|\.py$||; s|/__init__$||; s|/|.|g' <<< "$f")
  of() { grep -E "^\s*$mod\.x[^.]*: ($1)\$" "$stage/results.txt" | wc -l; }
  a=$(comm -12 "$stage/survivors.txt" <(accepted_py) | grep -c "^$f: " || true)
  echo "   $f | $(grep -cE "^\s*$mod\.x[^.]*: " "$stage/results.txt" || true) | $(of killed) | $(of survived) | $(of 'no tests') | $(of timeout) | $a"
done
echo "   (all: $total mutants, $(count killed) killed, $(count survived) survived, $(count 'no tests') without a test, $(count timeout) time-outs, $(count suspicious) suspicious)"
status=0
if [ -n "$new" ]; then
  echo
  echo "-- mutants: Python survivors not in $accepted (kill each with a sharper test, or accept it there with a reason; mutmut show NAME in $stage has the diff):"
  sed 's/^/   /' <<< "$new"
  status=1
fi
stale=$(comm -13 "$stage/survivors.txt" <(accepted_py) | grep -F -f <(printf '%s: \n' "$@") || true)
[ -z "$stale" ] || { echo; echo "-- mutants: accepted in $accepted but killed now (remove them):"; sed 's/^/   /' <<< "$stale"; }
exit $status
