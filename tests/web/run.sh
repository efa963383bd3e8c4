#!/usr/bin/env bash
# Browser tests of the junqi-web page: headless Chromium over WebDriver (chromedriver)
# plays games through the page — a classic game with both seats in two browser
# sessions, a siguo game with one seat against three random seats, a fanqi game that
# flips tiles against a greedy bot, a sanjun-modern game that flies planes, and the
# players' pages (names, joining from the lobby, a game clock, quick pairing on a
# phone-sized window, a game against the computer to the end, its rating change and a
# rematch) — and checks after every update that no page shows an enemy piece its seat
# has not seen, and that the lobby shows no token and no piece (tests/web/driver.py).
# First, in a Chromium without any CJK font, that the page's own font gives the piece
# labels and the title real glyphs (tests/web/fonts.py, a few seconds).
#
#   bash tests/web/run.sh                 # the tests (about a minute and a half)
#   bash tests/web/run.sh --screenshots   # also rewrite docs/img/web-*.png (lobby, classic, siguo, 390, 1024, 1440, 1920; phone, rated)
#
# Installs Debian's chromium and chromium-driver with apt-get when they are missing.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
step() { echo "-- web: $*"; }
shots=()
[ "${1:-}" = "--screenshots" ] && shots=(--screenshots "$ROOT/docs/img")

if ! command -v chromium > /dev/null || ! command -v chromedriver > /dev/null; then
  step "installing chromium and chromium-driver"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver > /dev/null
fi

# The citest profile (release without LTO, as scripts/test's Rust step) and the
# workspace's features: most of it is built already when run from scripts/test.
step "cargo build --workspace --profile citest --bin junqi-web"
cargo build --workspace --profile citest --bin junqi-web --quiet
step "fonts: the labels' glyphs in a Chromium without CJK fonts"
timeout --kill-after=10 120 python3 tests/web/fonts.py --server "$ROOT/target/citest/junqi-web"
# The whole run is bounded: the games cap themselves (about 55 s for classic, a few
# dozen moves for the others); this is the backstop.
timeout --kill-after=10 480 python3 tests/web/driver.py --server "$ROOT/target/citest/junqi-web" "${shots[@]}"
}
main "$@"
