#!/usr/bin/env bash
# The embedded path, puzzledb-server and the gRPC floor (bench/grpc_floor_server.cc, which
# answers at once with an empty answer), loaded one after the other in one run by
# `puzzledb bench` with random table-covered knight boards (docs/PERFORMANCE.md): in-process
# (one thread), unary with 1 and 8 callers, one stream. The load generator shares the
# machine with the servers; compare figures of the same run.
#   bench/server_vs_floor.sh [BUILD_DIR] [DB]     (defaults: build, build/test-db)
#   SECONDS_EACH=3 PUZZLE=knight override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
seconds=${SECONDS_EACH:-3}
puzzle=${PUZZLE:-knight}
scratch=$(mktemp -d)
server= floor=
trap 'kill $server $floor 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
cp -r "$db" "$scratch/db"

"$build/server/puzzledb-server" --db "$scratch/db" --listen 127.0.0.1:0 --http "" \
  --no-build-missing-tables 2> "$scratch/server.log" &
server=$!
"$build/bench/grpc_floor_server" 127.0.0.1:0 2> "$scratch/floor.log" &
floor=$!
address() {  # the address a start-up line names, waiting up to a minute for it
  for _ in $(seq 600); do
    local found
    found=$(sed -n 's/.*listening on \(127.0.0.1:[0-9]*\).*/\1/p' "$1")
    [ -n "$found" ] && { echo "$found"; return; }
    sleep 0.1
  done
  cat "$1" >&2
  return 1
}
server_address=$(address "$scratch/server.log")
floor_address=$(address "$scratch/floor.log")

cli=("$build/client/puzzledb")
run() {  # label, then the bench arguments; one line of figures, which must have no error
  local label=$1
  shift
  printf '%-22s ' "$label"
  "${cli[@]}" "$@" --puzzle "$puzzle" --seconds "$seconds" | tee -a "$scratch/all"
}
run "in-process" --db "$scratch/db" bench --mode inprocess
for target in "server $server_address" "floor $floor_address"; do
  set -- $target
  run "$1, unary 1" --server "$2" bench --mode unary --concurrency 1
  run "$1, unary 8" --server "$2" bench --mode unary --concurrency 8
  run "$1, stream 1" --server "$2" bench --mode stream --concurrency 1
done
# Figures of failed requests are no figures.
[ "$(grep -c '; 0 errors$' "$scratch/all")" = 7 ] || { echo "requests failed" >&2; exit 1; }
