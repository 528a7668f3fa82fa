#!/usr/bin/env bash
# HTTP under idle and slowloris connections (docs/PERFORMANCE.md): starts puzzledb-server on
# loopback ports of its own over a copy of DB, opens IDLE idle connections and SLOW ones that
# send a request head a byte a second, times REQUESTS table answers of a real client
# meanwhile, and prints the figures (bench/http_attack.cc). Give a second build directory to
# run the same against its server, one after the other (e.g. before and after a change).
#   bench/http_attack.sh [BUILD_DIR] [DB] [OTHER_BUILD_DIR]   (defaults: build, build/test-db)
#   IDLE=1000 SLOW=500 REQUESTS=1000 override the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
other=${3:-}
scratch=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
cp -r "$db" "$scratch/db"
ulimit -n "$(ulimit -Hn)"

attack() {  # SERVER_BINARY
  "$1" --db "$scratch/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 --no-build-missing-tables \
    2> "$scratch/log" &
  server=$!
  for _ in $(seq 600); do
    grep -q "web page on" "$scratch/log" && break
    sleep 0.1
  done
  port=$(sed -n 's/.*web page on http:\/\/127.0.0.1:\([0-9]*\)\/.*/\1/p' "$scratch/log")
  [ -n "$port" ] || { cat "$scratch/log" >&2; exit 1; }
  echo "== $1"
  "$build/bench/http_attack" "$port" "$server" "${IDLE:-1000}" "${SLOW:-500}" "${REQUESTS:-1000}"
  kill "$server"
  wait "$server" 2>/dev/null || true
}
attack "$build/server/puzzledb-server"
[ -z "$other" ] || attack "$other/server/puzzledb-server"
