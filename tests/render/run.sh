#!/usr/bin/env bash
# Picture tests: draws each seat's view of a game in progress for classic, siguo, fanqi
# and sanjun-modern with the CLI (`junqi --svg`), renders them to PNG with librsvg
# (rsvg-convert) and the Noto CJK fonts, and compares them with the reference pictures
# in docs/img/ (the pictures docs/rendering.md and the README show) within a small
# tolerance (tests/render/compare.py). A drawing change is a reviewed change:
#
#   bash tests/render/run.sh --update    # rewrite docs/img/*.png, then look at them
#
# Installs librsvg2-bin and fonts-noto-cjk with apt-get when they are missing.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=$ROOT/tests/render/build
REF=$ROOT/docs/img
update=false
[ "${1:-}" = "--update" ] && update=true
step() { echo "-- render: $*"; }

# The games: rule set, seed, plies. Each seat's view after that many plies.
GAMES="classic:7:40 siguo:7:40 fanqi:7:40 sanjun-modern:7:40"

# Capture fc-list's output first: `fc-list | grep -q` under pipefail fails at random when
# grep exits early and fc-list dies of SIGPIPE.
fonts=$(fc-list 2> /dev/null || true)
if ! command -v rsvg-convert > /dev/null || ! grep -q "Noto Sans CJK" <<< "$fonts"; then
  step "installing librsvg2-bin and fonts-noto-cjk"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq librsvg2-bin fonts-noto-cjk > /dev/null
fi

step "cargo build --release --bin junqi"
cargo build --release -p junqi --bin junqi --quiet
rm -rf "$BUILD"
mkdir -p "$BUILD/svg" "$BUILD/png"
names=()
for game in $GAMES; do
  IFS=: read -r rules seed plies <<< "$game"
  "$ROOT/target/release/junqi" --rules "$rules" --seed "$seed" --max-plies "$plies" --quiet \
    --svg "$BUILD/svg/$rules" > /dev/null
  for svg in "$BUILD/svg/$rules"/*.svg; do
    # rules-PLY-seat.svg -> rules-seat.png
    seat=$(basename "$svg" .svg); seat=${seat##*-}
    rsvg-convert "$svg" -o "$BUILD/png/$rules-$seat.png"
    names+=("$rules-$seat")
  done
done
step "${#names[@]} pictures drawn in tests/render/build/png"

if $update; then
  mkdir -p "$REF"
  for n in "${names[@]}"; do cp "$BUILD/png/$n.png" "$REF/$n.png"; done
  step "references updated in docs/img: look at them, then commit"
  return 0
fi
step "compare with docs/img (tolerance in tests/render/compare.py)"
if ! python3 tests/render/compare.py "$BUILD/png" "$REF" "${names[@]}"; then
  echo "The pictures differ from docs/img. If the drawing changed on purpose, look at" >&2
  echo "tests/render/build/png/, then run: bash tests/render/run.sh --update" >&2
  exit 1
fi
step "all pictures match"
}
main "$@"
