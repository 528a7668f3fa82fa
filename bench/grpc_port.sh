#!/usr/bin/env bash
# What the gRPC port's guard costs a call (docs/PERFORMANCE.md, "The gRPC port (issue 49)"):
# this build's server and another server binary (one built before a change), each on its own
# copy of DB, loaded in turn by `puzzledb bench` over gRPC, mode by mode, ROUNDS rounds
# alternated (A B A B ...), so that the machine's drift falls on both. Prints each run's
# answers per second and p50/p99 in microseconds.
#   bench/grpc_port.sh [BUILD_DIR] [DB] OTHER_SERVER_BINARY
#   ROUNDS=3 SECONDS_EACH=3 override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
other=${3:?"usage: bench/grpc_port.sh [BUILD_DIR] [DB] OTHER_SERVER_BINARY"}
rounds=${ROUNDS:-3}
seconds=${SECONDS_EACH:-3}
scratch=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT

start() {  # NAME BINARY: starts it on a copy of DB
  cp -r "$db" "$scratch/$1-db"
  "$2" --db "$scratch/$1-db" --listen 127.0.0.1:0 --http 127.0.0.1:0 --no-build-missing-tables \
    > /dev/null 2> "$scratch/$1.log" &
  pids+=($!)
}
address() {  # NAME: its gRPC address, once it listens
  for _ in $(seq 600); do
    grep -q "listening on" "$scratch/$1.log" && break
    sleep 0.1
  done
  sed -n 's/.*listening on \(127.0.0.1:[0-9]*\).*/\1/p' "$scratch/$1.log"
}
start this "$build/server/puzzledb-server"
start other "$other"
this=$(address this)
that=$(address other)
[ -n "$this" ] && [ -n "$that" ] || { cat "$scratch"/*.log >&2; exit 1; }

run() {  # ADDRESS MODE ARGS...: one run, "answers/s p50 p99"
  local address=$1
  shift
  "$build/client/puzzledb" --server "$address" bench --puzzle knight --seconds "$seconds" \
    --json "$@" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%8.0f/s  p50 %8.1f us  p99 %8.1f us" % (d["throughput"], d["p50_us"], d["p99_us"]))'
}
for mode in "unary --concurrency 1" "unary --concurrency 8" "stream --concurrency 8" \
            "batch --concurrency 1 --batch-size 1000"; do
  echo "== --mode $mode"
  for round in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    echo "  this build:    $(run "$this" --mode $mode)"
    # shellcheck disable=SC2086
    echo "  $other: $(run "$that" --mode $mode)"
  done
done
