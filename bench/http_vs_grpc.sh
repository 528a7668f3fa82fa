#!/usr/bin/env bash
# Table answers over HTTP beside gRPC unary, in one run against one server (docs/PERFORMANCE.md):
# random knight boards, CONCURRENCY callers each with one request outstanding, SECONDS each.
# gRPC through `puzzledb bench --mode unary` (one completion queue), HTTP through wrk (one
# thread, keep-alive connections). Both load generators share the machine with the server.
#   bench/http_vs_grpc.sh [BUILD_DIR] [DB]     (defaults: build, build/test-db)
#   SECONDS=5 CONCURRENCY=8 STATES=4096 override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
seconds=${SECONDS_EACH:-5}
concurrency=${CONCURRENCY:-8}
count=${STATES:-4096}
command -v wrk >/dev/null || { echo "wrk is not installed: run scripts/bootstrap" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
cp -r "$db" "$scratch/db"

# Random knight boards (twelve of each knight and the empty cell, shuffled), URL-ready.
for _ in $(seq "$count"); do
  printf '111111111111000000000000*' | fold -w1 | shuf | tr -d '\n'
  echo
done | sed 's/\*/%2A/' > "$scratch/states"

"$build/server/puzzledb-server" --db "$scratch/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 \
  --no-build-missing-tables 2> "$scratch/log" &
server=$!
for _ in $(seq 600); do
  grep -q "web page on" "$scratch/log" && break
  sleep 0.1
done
grpc=$(sed -n 's/.*listening on \(127.0.0.1:[0-9]*\).*/\1/p' "$scratch/log")
http=$(sed -n 's/.*web page on http:\/\/\(127.0.0.1:[0-9]*\)\/.*/\1/p' "$scratch/log")
[ -n "$grpc" ] && [ -n "$http" ] || { cat "$scratch/log" >&2; exit 1; }

echo "== gRPC unary: puzzledb bench --mode unary --concurrency $concurrency --seconds $seconds"
"$build/client/puzzledb" --server "$grpc" bench --puzzle knight --mode unary \
  --concurrency "$concurrency" --seconds "$seconds" | tee "$scratch/grpc"
echo "== HTTP GET /v1/solve: wrk -t1 -c$concurrency -d${seconds}s"
PUZZLEDB_STATES="$scratch/states" wrk -t1 -c"$concurrency" -d"${seconds}s" --latency \
  -s bench/http_requests.lua "http://$http" | tee "$scratch/http"
# Figures of failed requests are no figures.
grep -q "; 0 errors" "$scratch/grpc" || { echo "gRPC requests failed" >&2; exit 1; }
grep -q "0 errors (socket), non-200 seen by thread 1: 0" "$scratch/http" ||
  { echo "HTTP requests failed" >&2; exit 1; }
