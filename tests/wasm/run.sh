#!/usr/bin/env bash
# The WebAssembly package (wasm/, docs/js.md): builds it, generates the ES module and
# the TypeScript declarations into wasm/pkg, checks the declarations with tsc, runs the
# package's tests under Node's test runner (wasm/pkg/test), replays a record made in
# JavaScript with the native CLI, and plays the offline page (wasm/demo) to the end of
# a game in headless Chromium (tests/wasm/page.py).
#
#   bash tests/wasm/run.sh            # build + tests
#   bash tests/wasm/run.sh --build    # build the package only
#   bash tests/wasm/run.sh --bench    # build, then wasm vs native random play (docs/js.md)
#
# The toolchain: rustup here has only the x86_64 standard library, so the package is
# built with Debian's rustc-web (and its standard library's source, rust-web-src) with
# -Zbuild-std into target/wasm (the standard library is built once and stays cached
# there; the rustup builds in target/ are untouched), linked by LLVM's wasm-ld, then
# wasm-bindgen-cli (installed with cargo install --locked at the version wasm/Cargo.lock
# pins, into ~/.cargo/junqi-wasm-tools, shared by every checkout) writes the JavaScript
# glue. Installs what is missing: the Debian packages rustc-web cargo-web rust-web-src
# lld-22 nodejs node-typescript (chromium and chromium-driver for the page test) with
# apt-get.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
mode=${1:-test}
step() { echo "-- wasm: $*"; }

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
need=()
pkgs=(rustc-web cargo-web rust-web-src lld-22 nodejs node-typescript)
[ "$mode" = test ] && pkgs+=(chromium chromium-driver)
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" > /dev/null
fi

TARGET=$ROOT/target/wasm
BINDGEN_VERSION=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p}' wasm/Cargo.lock)
# wasm-bindgen-cli is shared by every checkout (Cargo's home, one folder per version):
# its install is the longest step of a cold run.
TOOLS=${CARGO_HOME:-$HOME/.cargo}/junqi-wasm-tools/wasm-bindgen-$BINDGEN_VERSION
if [ "$("$TOOLS/bin/wasm-bindgen" --version 2>/dev/null)" != "wasm-bindgen $BINDGEN_VERSION" ]; then
  step "cargo install --locked wasm-bindgen-cli@$BINDGEN_VERSION (once, into $TOOLS)"
  cargo install --quiet --locked --root "$TOOLS" wasm-bindgen-cli --version "$BINDGEN_VERSION"
fi

step "build junqi-wasm (Debian rustc-web, -Zbuild-std, wasm-ld)"
(
  cd wasm
  # Debian's cargo and rustc (not rustup's), the nightly-only -Zbuild-std allowed by
  # RUSTC_BOOTSTRAP; the standard library is built with the package's release profile
  # (LTO, panic=abort) and cached in target/wasm.
  RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
  CARGO_TARGET_DIR="$TARGET" \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-22/bin/wasm-ld \
  /usr/bin/cargo build --quiet --release --target wasm32-unknown-unknown \
    -Zbuild-std=std,panic_abort
)
WASM=$TARGET/wasm32-unknown-unknown/release/junqi_wasm.wasm
step "wasm-bindgen --target web -> wasm/pkg"
"$TOOLS/bin/wasm-bindgen" --target web --out-dir wasm/pkg/dist --out-name junqi "$WASM"
ls -l "$WASM" wasm/pkg/dist/junqi_bg.wasm | awk '{print "-- wasm: " $5 " bytes " $9}'
echo "-- wasm: $(gzip -9 -c wasm/pkg/dist/junqi_bg.wasm | wc -c) bytes gzipped (gzip -9)"
[ "$mode" = --build ] && return 0

if [ "$mode" = --bench ]; then
  step "bench: random play, native (cargo bench, rustup) and wasm (Node), same run"
  native=$(cargo bench --quiet -p junqi --bench throughput -- classic 3 2>/dev/null | grep -E "random plies|full random")
  echo "native (rustup, cargo bench) $native"
  JUNQI_NATIVE_PLIES=$(echo "$native" | sed -n 's/^random plies.* \([0-9]*\) plies\/s.*/\1/p') \
  JUNQI_NATIVE_GAMES=$(echo "$native" | sed -n 's/^full random games.* \([0-9.]*\) games\/s.*/\1/p') \
    node wasm/bench.mjs classic 3
  return 0
fi

step "tsc --strict: the package's declarations and test/types.ts"
tsc --noEmit --strict --target es2020 --module es2022 --moduleResolution node \
  wasm/pkg/test/symbol-dispose.d.ts wasm/pkg/index.d.ts wasm/pkg/test/types.ts

step "node --test wasm/pkg/test (a game of every preset, agents, errors, views, the docs' examples)"
records=$TARGET/records
rm -rf "$records"
(cd wasm/pkg && JUNQI_JS_RECORDS="$records" node --test test/*.test.mjs)

step "the records made in JavaScript replay natively to the same state (core/examples/replay.rs)"
cargo build --quiet --profile citest -p junqi --example replay
for expected in "$records"/*.expected.json; do
  name=$(basename "$expected" .expected.json)
  "$ROOT/target/citest/examples/replay" "$records/$name.record.json" > "$records/$name.native.json"
  cmp -s "$expected" "$records/$name.native.json" || {
    echo "-- wasm: $name: the native replay differs from what JavaScript saw:" >&2
    diff <(tr ',' '\n' < "$expected") <(tr ',' '\n' < "$records/$name.native.json") | head -20 >&2
    return 1
  }
done
echo "-- wasm: $(ls "$records"/*.native.json | wc -l) records replayed natively, identical"

step "the offline page (wasm/demo) in headless Chromium, to the end of a game"
timeout --kill-after=10 400 python3 tests/wasm/page.py
}
main "$@"
