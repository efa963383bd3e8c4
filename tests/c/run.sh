#!/usr/bin/env bash
# C API tests: scripts/install-c into a temporary prefix (soname, symlinks, stripped
# libraries with separate debug info, junqi.pc, the CMake package, DESTDIR), the C
# programs in tests/c built with -Wall -Wextra -Werror -std=c11 and linked against the
# installed static and shared libjunqi, the docs/c.md example built through pkg-config
# and through CMake, and the game, sanjun, render, platform, inference, vector, agent and errors programs under Valgrind.
# Installs cmake and valgrind with apt-get when they are missing.
set -euo pipefail
# The whole script is one function, read in full before it runs (so that editing this
# file cannot disturb a run in progress).
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=$ROOT/tests/c/build
step() { echo "-- c: $*"; }

# Runs of this script (e.g. two `scripts/test` at once) share tests/c/build: take turns.
mkdir -p "$BUILD"
if command -v flock > /dev/null; then
  exec 9> "$BUILD/.lock"
  flock 9
fi
find "$BUILD" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +

# The header's freshness is a Rust test (ffi-c/tests/header.rs, cbindgen as a library),
# run by `cargo test --workspace` in scripts/test: nothing to install here.

# 1. The library (built in release here; scripts/test ran its Rust tests in `citest`),
#    installed with scripts/install-c into a temporary prefix. Every program below uses
#    the installed files, as a user would.
step "scripts/install-c into tests/c/build/prefix"
cargo build --release -p junqi-ffi --quiet
PREFIX=$BUILD/prefix
PREFIX=$PREFIX bash scripts/install-c --no-build > /dev/null
LIBDIR=$PREFIX/lib
VERSION=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
for f in include/junqi.h lib/libjunqi.so.$VERSION lib/libjunqi.so.0 lib/libjunqi.so lib/libjunqi.a \
         lib/.debug/libjunqi.so.$VERSION.debug lib/pkgconfig/junqi.pc \
         lib/cmake/junqi/junqiConfig.cmake lib/cmake/junqi/junqiConfigVersion.cmake; do
  [ -e "$PREFIX/$f" ] || { echo "install-c did not install $f" >&2; exit 1; }
done
cmp -s include/junqi.h "$PREFIX/include/junqi.h"
[ "$(readlink "$LIBDIR/libjunqi.so.0")" = "libjunqi.so.$VERSION" ]
[ "$(readlink "$LIBDIR/libjunqi.so")" = "libjunqi.so.0" ]
step "soname, stripped libraries, separate debug info"
[ "$(objdump -p "$LIBDIR/libjunqi.so.$VERSION" | sed -n 's/^ *SONAME *//p')" = "libjunqi.so.0" ] \
  || { echo "libjunqi.so has no soname libjunqi.so.0" >&2; exit 1; }
sections() { readelf -S --wide "$1" 2>/dev/null; }
if grep -q '\.debug_info' <<<"$(sections "$LIBDIR/libjunqi.so.$VERSION")"; then
  echo "the installed libjunqi.so still has debug info" >&2; exit 1
fi
grep -q '\.gnu_debuglink' <<<"$(sections "$LIBDIR/libjunqi.so.$VERSION")" \
  || { echo "the installed libjunqi.so has no .gnu_debuglink" >&2; exit 1; }
grep -q '\.debug_info' <<<"$(sections "$LIBDIR/.debug/libjunqi.so.$VERSION.debug")" \
  || { echo "the debug file has no debug info" >&2; exit 1; }
if grep -q '\.debug_info' <<<"$(readelf -S --wide "$LIBDIR/libjunqi.a" 2>/dev/null)"; then
  echo "the installed libjunqi.a still has debug info" >&2; exit 1
fi
echo "   libjunqi.so $(stat -c %s "$LIBDIR/libjunqi.so.$VERSION") bytes (built: $(stat -c %s target/release/libjunqi.so)), debug info $(stat -c %s "$LIBDIR/.debug/libjunqi.so.$VERSION.debug") bytes apart; libjunqi.a $(stat -c %s "$LIBDIR/libjunqi.a") bytes (built: $(stat -c %s target/release/libjunqi.a))"
step "DESTDIR staging writes the final paths"
PREFIX=/opt/junqi DESTDIR=$BUILD/stage bash scripts/install-c --no-build > /dev/null
[ -e "$BUILD/stage/opt/junqi/lib/libjunqi.so.0" ] && [ ! -e /opt/junqi/lib/libjunqi.so.0 ] \
  || { echo "DESTDIR was not honoured" >&2; exit 1; }
grep -qx 'prefix=/opt/junqi' "$BUILD/stage/opt/junqi/lib/pkgconfig/junqi.pc"
if grep -q '@\|^#' "$BUILD/stage/opt/junqi/lib/pkgconfig/junqi.pc"; then
  echo "junqi.pc has an unfilled field or a comment" >&2; exit 1
fi

# 2. Every program, linked once against each installed library.
STATIC_LIBS="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
CC=${CC:-cc}
CFLAGS="-std=c11 -Wall -Wextra -Werror -pedantic -O1 -g -I$PREFIX/include"
for prog in example game errors sanjun render platform inference vector agent position_string engine_example; do
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
grep -q "libjunqi.so.0 => $LIBDIR/libjunqi.so.0" <<<"$shared_deps" \
  || { echo "game-shared does not load $LIBDIR/libjunqi.so.0:" >&2; echo "$shared_deps" >&2; exit 1; }

# The junqi binary (the referee of the engine protocol), as scripts/test built it.
JUNQI_BIN=${JUNQI_BIN:-$ROOT/target/citest/junqi}
[ -x "$JUNQI_BIN" ] || cargo build --profile citest -p junqi --bin junqi --quiet
for kind in static shared; do
  step "run ($kind)"
  "$BUILD/example-$kind" > "$BUILD/example-$kind.out"
  head -n 1 "$BUILD/example-$kind.out"
  for seed in 1 2 3; do "$BUILD/game-$kind" "$seed"; done
  "$BUILD/sanjun-$kind" 8 1
  "$BUILD/render-$kind"
  "$BUILD/platform-$kind"
  "$BUILD/inference-$kind" 3
  "$BUILD/vector-$kind" 300
  "$BUILD/agent-$kind" 1
  "$BUILD/position_string-$kind"
  "$BUILD/errors-$kind" > "$BUILD/errors-$kind.out" 2> "$BUILD/errors-$kind.err" || {
    cat "$BUILD/errors-$kind.out" "$BUILD/errors-$kind.err"; exit 1; }
  tail -n 1 "$BUILD/errors-$kind.out"
  # The example engine in C plays a paired match against the built-in engine
  # (docs/protocol.md): no failure of either side.
  "$JUNQI_BIN" match --engine c="$BUILD/engine_example-$kind" --engine rust="$JUNQI_BIN engine --agent random" \
    --rules classic --games 2 --time 2s --max-plies 40 > "$BUILD/match-$kind.out" 2> "$BUILD/match-$kind.err"
  if grep -Eq 'illegal|garbage|timeout|crash|spawn' "$BUILD/match-$kind.err"; then
    cat "$BUILD/match-$kind.err"; exit 1
  fi
  head -n 1 "$BUILD/match-$kind.out"
done
cmp -s "$BUILD/example-static.out" "$BUILD/example-shared.out" || {
  echo "the static and shared example runs differ" >&2; exit 1; }

# 3. The docs show tests/c/example.c verbatim, and the documented build lines work.
step "docs/c.md shows tests/c/example.c verbatim"
awk '/<!-- example.c begin -->/{f=1; next} /<!-- example.c end -->/{f=0} f' docs/c.md \
  | sed -e '1{/^```c$/d}' -e '${/^```$/d}' > "$BUILD/doc-example.c"
diff -u tests/c/example.c "$BUILD/doc-example.c"
step "docs/c.md's link commands, as written, in a scratch folder with example.c"
# Each sh block of the "Link" section runs verbatim with PREFIX set as the install
# section tells the reader to (export PREFIX=...), in a folder holding example.c.
mkdir -p "$BUILD/doc-link"
cp tests/c/example.c "$BUILD/doc-link/example.c"
awk '/^## Link/{f=1; next} /^## /{f=0} f' docs/c.md \
  | awk '/^```sh$/{b=1; next} /^```$/{b=0} b' > "$BUILD/doc-link/commands.sh"
[ -s "$BUILD/doc-link/commands.sh" ] || { echo "docs/c.md has no link commands" >&2; exit 1; }
(cd "$BUILD/doc-link" && PREFIX=$PREFIX bash -euo pipefail commands.sh > commands.out) \
  || { echo "docs/c.md's link commands failed:" >&2; cat "$BUILD/doc-link/commands.sh" >&2; exit 1; }
[ -x "$BUILD/doc-link/example" ] || { echo "the documented commands built no ./example" >&2; exit 1; }
step "pkg-config (PKG_CONFIG_PATH=\$PREFIX/lib/pkgconfig), shared and static"
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
[ "$(pkg-config --modversion junqi)" = "$VERSION" ]
# shellcheck disable=SC2046
cc -std=c11 tests/c/example.c $(pkg-config --cflags --libs junqi) \
   -Wl,-rpath,"$(pkg-config --variable=libdir junqi)" -o "$BUILD/pc-example"
"$BUILD/pc-example" > /dev/null
# shellcheck disable=SC2046
cc -std=c11 tests/c/example.c $(pkg-config --cflags junqi) "$(pkg-config --variable=libdir junqi)/libjunqi.a" \
   $(pkg-config --static --libs-only-l junqi | sed 's/-ljunqi//') -o "$BUILD/pc-example-static"
"$BUILD/pc-example-static" > /dev/null
step "CMake: find_package(junqi) (tests/c/cmake)"
if ! command -v cmake > /dev/null; then
  step "installing cmake"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq cmake > /dev/null
fi
cmake -S tests/c/cmake -B "$BUILD/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" > "$BUILD/cmake.log" \
  || { cat "$BUILD/cmake.log"; exit 1; }
cmake --build "$BUILD/cmake" > "$BUILD/cmake-build.log" || { cat "$BUILD/cmake-build.log"; exit 1; }
"$BUILD/cmake/example" > /dev/null
"$BUILD/cmake/example_static" > /dev/null
# The installed tree is relocatable, and the version file refuses a newer request.
mv "$PREFIX" "$BUILD/moved"
cmake -S tests/c/cmake -B "$BUILD/cmake-moved" -DCMAKE_PREFIX_PATH="$BUILD/moved" > /dev/null
mv "$BUILD/moved" "$PREFIX"
if cmake -S tests/c/cmake -B "$BUILD/cmake-newer" -DCMAKE_PREFIX_PATH="$PREFIX" \
     -DJUNQI_MIN_VERSION=0.2 > "$BUILD/cmake-newer.log" 2>&1; then
  echo "find_package(junqi 0.2) accepted version $VERSION" >&2; exit 1
fi

# 5. Valgrind: no memory errors, no definite or indirect leaks.
if ! command -v valgrind > /dev/null; then
  step "installing valgrind"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq valgrind
fi
# Built-in rule sets and boards are compiled once and kept for the life of the process;
# valgrind calls their hash tables (pointers into the middle of a block) "possibly lost".
VG="valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-possibly-lost=no"
step "valgrind game (static and shared)"
$VG "$BUILD/game-static" 4
$VG "$BUILD/game-shared" 5
step "valgrind sanjun (static and shared)"
$VG "$BUILD/sanjun-static" 1 6
$VG "$BUILD/sanjun-shared" 1 7
step "valgrind render (shared)"
$VG "$BUILD/render-shared" > /dev/null
step "valgrind platform (static and shared)"
$VG "$BUILD/platform-static" > /dev/null
$VG "$BUILD/platform-shared" > /dev/null
step "valgrind inference (shared)"
$VG "$BUILD/inference-shared" 2
step "valgrind vector (shared)"
$VG "$BUILD/vector-shared" 70
step "valgrind agent (shared)"
$VG "$BUILD/agent-shared" 2 1 > /dev/null
step "valgrind errors (shared)"
$VG "$BUILD/errors-shared" > /dev/null 2> "$BUILD/errors-valgrind.err" || {
  cat "$BUILD/errors-valgrind.err"; exit 1; }
step "all C tests passed"
}
main "$@"
