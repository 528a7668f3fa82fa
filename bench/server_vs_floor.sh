#!/usr/bin/env bash
# The embedded path, puzzledb-server and the gRPC floor (bench/grpc_floor_server.cc, which
# answers at once with an empty answer), loaded by `puzzledb bench` with random table-covered
# knight boards (docs/PERFORMANCE.md): in-process (one thread), then unary with 1 and 8
# callers and one stream, server and floor alternated mode by mode for ROUNDS rounds
# (A B A B ...), so that the machine's drift falls on both. Prints each run, then for each
# mode the ratio of each pair (server over floor: answers per second, and p50) and their
# median. The load generator shares the machine with the servers: compare figures of one run.
#   bench/server_vs_floor.sh [BUILD_DIR] [DB]     (defaults: build, build/test-db)
#   SECONDS_EACH=3 ROUNDS=3 PUZZLE=knight SERVER_FLAGS=... override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:-$build/test-db}
seconds=${SECONDS_EACH:-3}
rounds=${ROUNDS:-3}
puzzle=${PUZZLE:-knight}
scratch=$(mktemp -d)
server= floor=
trap 'kill $server $floor 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$scratch"' EXIT
cp -r "$db" "$scratch/db"

# shellcheck disable=SC2086
"$build/server/puzzledb-server" --db "$scratch/db" --listen 127.0.0.1:0 --http "" \
  --no-build-missing-tables ${SERVER_FLAGS:-} 2> "$scratch/server.log" &
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
run() {  # LABEL FILE, then the bench arguments: one line of figures, which must have no
         # error; "answers/s p50_us" appended to FILE
  local label=$1 file=$2
  shift 2
  printf '%-22s ' "$label"
  "${cli[@]}" "$@" --puzzle "$puzzle" --seconds "$seconds" --json > "$scratch/run.json"
  /usr/bin/python3 - "$scratch/run.json" "$file" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("%9.0f answers/s  p50 %8.1f us  p99 %8.1f us  %d errors"
      % (d["throughput"], d["p50_us"], d["p99_us"], d["errors"]))
if d["errors"]:
    sys.exit("requests failed: figures of failed requests are no figures")
with open(sys.argv[2], "a") as f:
    f.write("%f %f\n" % (d["throughput"], d["p50_us"]))
EOF
}
run "in-process" /dev/null --db "$scratch/db" bench --mode inprocess
modes=("unary --concurrency 1" "unary --concurrency 8" "stream --concurrency 1")
names=("unary 1" "unary 8" "stream 1")
for i in "${!modes[@]}"; do
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    run "server, ${names[$i]}" "$scratch/server-$i" --server "$server_address" bench --mode ${modes[$i]}
    # shellcheck disable=SC2086
    run "floor, ${names[$i]}" "$scratch/floor-$i" --server "$floor_address" bench --mode ${modes[$i]}
  done
done
echo "server over floor, each pair of the run, then their median (targets, issue 64: one"
echo "stream's rate >= 0.8, unary 1's p50 <= 1.25, unary 8's rate >= 0.8):"
for i in "${!modes[@]}"; do
  /usr/bin/python3 - "${names[$i]}" "$scratch/server-$i" "$scratch/floor-$i" <<'EOF'
import statistics, sys
name, s, f = sys.argv[1], open(sys.argv[2]).read().split("\n"), open(sys.argv[3]).read().split("\n")
pairs = [(list(map(float, a.split())), list(map(float, b.split()))) for a, b in zip(s, f) if a and b]
rate = [a[0] / b[0] for a, b in pairs]
p50 = [a[1] / b[1] for a, b in pairs]
print("  %-9s rate %s -> %.2f   p50 %s -> %.2f" % (
    name, " ".join("%.2f" % r for r in rate), statistics.median(rate),
    " ".join("%.2f" % r for r in p50), statistics.median(p50)))
EOF
done
