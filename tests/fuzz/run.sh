#!/usr/bin/env bash
# The fuzz targets in the test command, without cargo-fuzz: fuzz/ built as an ordinary
# crate (profile `replay`: opt-level 1, quick to compile; libFuzzer's driver, no
# sanitizer, no coverage instrumentation), then
# each target replays its checked-in corpus (fuzz/corpus/TARGET) and runs a few seconds
# of libFuzzer's mutations from it. A panic or failed assertion fails the run and leaves
# the input in fuzz/target/replay-artifacts/. The coverage-guided runs under
# AddressSanitizer/LeakSanitizer are `scripts/fuzz [SECONDS]` (docs/robustness.md).
#
#   tests/fuzz/run.sh [SECONDS]      # seconds of mutation per target, default 3
set -euo pipefail
cd "$(dirname "$0")/../../fuzz"
seconds="${1:-3}"
echo "-- fuzz: cargo build --profile replay (fuzz/, uninstrumented)"
cargo build --profile replay --bins --quiet
artifacts=target/replay-artifacts
mkdir -p "$artifacts"
mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^junqi-fuzz$')
for t in "${targets[@]}"; do
  log="target/replay-$t.log"
  n=$(ls "corpus/$t" | wc -l)
  # Replay every corpus input once, then mutate from the corpus for a few seconds (into a
  # scratch copy: the checked-in corpus is read only).
  work="target/replay-corpus/$t"
  rm -rf "$work" && mkdir -p "$work" && cp "corpus/$t"/* "$work"/
  if ! { "./target/replay/$t" -artifact_prefix="$artifacts/$t-" "corpus/$t"/* \
         && "./target/replay/$t" -artifact_prefix="$artifacts/$t-" -max_total_time="$seconds" \
              -timeout=30 -rss_limit_mb=4096 "$work"; } > "$log" 2>&1; then
    tail -30 "$log" >&2
    echo "-- fuzz: $t FAILED (input in fuzz/$artifacts/)" >&2
    exit 1
  fi
  runs=$(grep -o '^Done [0-9]* runs' "$log" | grep -o '[0-9]*' | tail -1 || echo "?")
  echo "-- fuzz: $t: $n corpus inputs replayed, ${runs} mutated inputs in ${seconds}s"
done
echo "-- fuzz: all targets passed"
