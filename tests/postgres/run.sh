#!/usr/bin/env bash
# PostgreSQL as the shared store of several junqi-web processes (docs/web.md): two
# processes on one database, moves through both, live updates across them, the lobby
# and the pairing queue shared, concurrent moves on one game applied once, a process
# killed mid-game (web/tests/postgres.rs). The test starts its own PostgreSQL
# (initdb into a temporary folder, a loopback port, as `nobody` when run as root) and
# stops it; about 10 s.
#
#   bash tests/postgres/run.sh
#
# Installs Debian's postgresql with apt-get when it is missing.
set -euo pipefail
main() {
cd "$(dirname "$0")/../.."
step() { echo "-- postgres: $*"; }
if ! ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  step "installing postgresql"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql > /dev/null
fi
# Debian's package starts a cluster of its own on port 5432; the test does not use it.
# --workspace, as scripts/test's Rust step builds: the same features, so the test binary
# built there is reused instead of rebuilt for junqi-web alone (about a minute).
step "cargo test --workspace --profile citest --test postgres -- --ignored"
timeout --kill-after=10 240 cargo test --workspace --profile citest --test postgres -- --ignored
}
main "$@"
