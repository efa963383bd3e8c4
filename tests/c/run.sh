#!/usr/bin/env bash
# C API tests: header freshness (cbindgen --verify), the C programs in tests/c built with
# -Wall -Wextra -Werror -std=c11 and linked against the static and the shared libjunqi,
# the docs/c.md example, pkg-config, and the game, sanjun, inference and errors programs under
# Valgrind.
set -euo pipefail
# The whole script is one function, read in full before it runs (so that editing this
# file cannot disturb a run in progress).
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=$ROOT/tests/c/build
CBINDGEN_VERSION=0.29.4   # the pinned cbindgen version (see docs/c.md)
export PATH="$HOME/.cargo/bin:$PATH"
step() { echo "-- c: $*"; }

# Runs of this script (e.g. two `scripts/test` at once) share tests/c/build: take turns.
mkdir -p "$BUILD"
if command -v flock > /dev/null; then
  exec 9> "$BUILD/.lock"
  flock 9
fi
find "$BUILD" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +

# 1. cbindgen, pinned, and the checked-in header must be up to date.
if [ "$(cbindgen --version 2>/dev/null || true)" != "cbindgen $CBINDGEN_VERSION" ]; then
  step "installing cbindgen $CBINDGEN_VERSION"
  cargo install --locked cbindgen --version "$CBINDGEN_VERSION"
fi
step "include/junqi.h is up to date (cbindgen --verify)"
# `--verify` rewrites a stale file before failing: verify a copy, so that a failing
# test leaves the checked-in header alone.
mkdir -p "$BUILD/verify"
cp include/junqi.h "$BUILD/verify/junqi.h"
if ! (cd ffi-c && cbindgen --quiet --config cbindgen.toml -o "$BUILD/verify/junqi.h" --verify); then
  diff -u include/junqi.h "$BUILD/verify/junqi.h" | head -n 40 >&2 || true
  echo "include/junqi.h is stale: regenerate it with" >&2
  echo "  (cd ffi-c && cbindgen --config cbindgen.toml -o ../include/junqi.h)" >&2
  exit 1
fi

# 2. The library (already built by `cargo test --workspace --release` in scripts/test).
step "cargo build --release -p junqi-ffi"
cargo build --release -p junqi-ffi --quiet
LIBDIR=$ROOT/target/release
STATIC_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"

# 3. Every program, linked once against each library.
CC=${CC:-cc}
CFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic -O1 -g -I$ROOT/include"
for prog in example game errors sanjun inference; do
  step "compile $prog.c (static and shared)"
  $CC $CFLAGS "tests/c/$prog.c" "$LIBDIR/libjunqi.a" $STATIC_LIBS -o "$BUILD/$prog-static"
  $CC $CFLAGS "tests/c/$prog.c" -L"$LIBDIR" -ljunqi -Wl,-rpath,"$LIBDIR" -o "$BUILD/$prog-shared"
done
# Capture ldd's output first: `ldd | grep -q` under pipefail fails at random when grep
# exits early and ldd dies of SIGPIPE.
static_deps=$(ldd "$BUILD/game-static" || true)
shared_deps=$(ldd "$BUILD/game-shared")
if grep -q libjunqi <<<"$static_deps"; then
  echo "game-static is linked against the shared library" >&2; exit 1
fi
grep -q "libjunqi.so" <<<"$shared_deps" || { echo "game-shared does not use libjunqi.so" >&2; exit 1; }

for kind in static shared; do
  step "run ($kind)"
  "$BUILD/example-$kind" > "$BUILD/example-$kind.out"
  head -n 1 "$BUILD/example-$kind.out"
  for seed in 1 2 3; do "$BUILD/game-$kind" "$seed"; done
  "$BUILD/sanjun-$kind" 8 1
  "$BUILD/inference-$kind" 3
  "$BUILD/errors-$kind" > "$BUILD/errors-$kind.out" 2> "$BUILD/errors-$kind.err" || {
    cat "$BUILD/errors-$kind.out" "$BUILD/errors-$kind.err"; exit 1; }
  tail -n 1 "$BUILD/errors-$kind.out"
done
cmp -s "$BUILD/example-static.out" "$BUILD/example-shared.out" || {
  echo "the static and shared example runs differ" >&2; exit 1; }

# 4. The docs show tests/c/example.c verbatim, and the documented link lines work.
step "docs/c.md shows tests/c/example.c verbatim"
awk '/<!-- example.c begin -->/{f=1; next} /<!-- example.c end -->/{f=0} f' docs/c.md \
  | sed -e '1{/^```c$/d}' -e '${/^```$/d}' > "$BUILD/doc-example.c"
diff -u tests/c/example.c "$BUILD/doc-example.c"
step "plain cc line and pkg-config"
(cd "$BUILD" && cc -std=c11 ../example.c -I"$ROOT/include" -L"$LIBDIR" -ljunqi -o plain-example \
  && LD_LIBRARY_PATH="$LIBDIR" ./plain-example > /dev/null)
PREFIX=$BUILD/prefix
mkdir -p "$PREFIX/include" "$PREFIX/lib/pkgconfig"
cp include/junqi.h "$PREFIX/include/"
cp "$LIBDIR/libjunqi.so" "$LIBDIR/libjunqi.a" "$PREFIX/lib/"
VERSION=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
sed -e "s|@PREFIX@|$PREFIX|" -e "s|@VERSION@|$VERSION|" ffi-c/junqi.pc.in > "$PREFIX/lib/pkgconfig/junqi.pc"
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
[ "$(pkg-config --modversion junqi)" = "$VERSION" ]
# shellcheck disable=SC2046
cc -std=c11 tests/c/example.c $(pkg-config --cflags --libs junqi) -o "$BUILD/pc-example"
LD_LIBRARY_PATH="$PREFIX/lib" "$BUILD/pc-example" > /dev/null

# 5. Valgrind: no memory errors, no definite or indirect leaks.
if ! command -v valgrind > /dev/null; then
  step "installing valgrind"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq valgrind
fi
VG="valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect"
step "valgrind game (static and shared)"
$VG "$BUILD/game-static" 4
$VG "$BUILD/game-shared" 5
step "valgrind sanjun (static and shared)"
$VG "$BUILD/sanjun-static" 1 6
$VG "$BUILD/sanjun-shared" 1 7
step "valgrind inference (shared)"
$VG "$BUILD/inference-shared" 2
step "valgrind errors (shared)"
$VG "$BUILD/errors-shared" > /dev/null 2> "$BUILD/errors-valgrind.err" || {
  cat "$BUILD/errors-valgrind.err"; exit 1; }
step "all C tests passed"
}
main "$@"
