#!/usr/bin/env bash
# Hostile clients against the server's memory and its other callers (docs/PERFORMANCE.md,
# "Memory under hostile clients (issue 35)"): for each probe of tests/memory_probes.h, starts
# puzzledb-server on loopback ports of its own over a copy of DB, runs the probe while it
# samples the server's memory and times table GETs, and prints the figures
# (bench/memory_probes.cc). With more server binaries (e.g. one built before a change), each
# probe runs against each of them in turn, every one on a fresh server.
#   bench/memory_probes.sh [BUILD_DIR] [DB] [OTHER_SERVER_BINARY...]   (defaults: build, build/test-db)
#   PROBES="json stream listings batch reset smuggle badstream" chooses the probes;
#   SERVER_FLAGS="--memory-budget 256M" adds flags to every server.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
shift $(( $# < 2 ? $# : 2 ))
servers=("$build/server/puzzledb-server" "$@")
scratch=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
ulimit -n "$(ulimit -Hn)"

probe() {  # SERVER_BINARY PROBE
  rm -rf "$scratch/db"
  cp -r "$db" "$scratch/db"
  "$1" --db "$scratch/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 --no-build-missing-tables \
    ${SERVER_FLAGS:-} 2> "$scratch/log" &
  server=$!
  for _ in $(seq 600); do
    grep -q "web page on" "$scratch/log" && break
    sleep 0.1
  done
  grpc_port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$scratch/log")
  http_port=$(sed -n 's/.*web page on http:\/\/127.0.0.1:\([0-9]*\)\/.*/\1/p' "$scratch/log")
  [ -n "$http_port" ] || { cat "$scratch/log" >&2; exit 1; }
  echo "== $1"
  "$build/bench/memory_probes" "$grpc_port" "$http_port" "$server" "$2"
  kill "$server"
  wait "$server" 2>/dev/null || true
}
for p in ${PROBES:-json stream listings batch reset smuggle badstream}; do
  for s in "${servers[@]}"; do probe "$s" "$p"; done
done
