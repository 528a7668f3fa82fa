#!/bin/sh
# A built-in puzzle beside its definition (data/puzzles/, issue 65's targets 1 and 6), in one
# run: each side's complete table built into a database of its own (seconds and peak memory),
# the tables' sizes as stored, their censuses (the largest distance must be equal: exit 1
# otherwise; a model with a symmetry quotient counts classes of states), and
# in-process table answers (`puzzledb bench --mode inprocess`), the two sides alternated
# ROUNDS times (default 3).
#   [MODEL_ARGS=...] bench/builtin_as_data.sh BUILD_DIR PUZZLE [DEFINITION [ROUNDS]]
# PUZZLE is the built-in's name (knight); DEFINITION defaults to data/puzzles/PUZZLE.tws.
# MODEL_ARGS: more options for the model's build, e.g. the parameters of a definition's
# example for a puzzle with parameters (the knobs: MODEL_ARGS="--wiring
# data/params/knobs/knobs_9001.in", the wiring data/puzzles/knobs.tws's Example gives).
set -eu
build=$1
puzzle=$2
here=$(cd "$(dirname "$0")/.." && pwd)
definition=${3:-$here/data/puzzles/$puzzle.tws}
rounds=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=${puzzle}_as_data

timed() {  # OUT_FILE COMMAND...: runs it, "seconds peak_kb" in OUT_FILE
  out=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out" "$@"
}
# shellcheck disable=SC2086 # MODEL_ARGS is split on purpose
timed "$work/model.time" "$build/builder/puzzledb-build" --db "$work/model" --puzzle "$puzzle" ${MODEL_ARGS:-} -q
timed "$work/data.time" "$build/builder/puzzledb-build" --db "$work/data" --definition "$definition" \
  --name "$name" -q
read -r model_s model_kb <"$work/model.time"
read -r data_s data_kb <"$work/data.time"
size() {  # DB: the stored bytes its info reports, in MB
  "$build/builder/puzzledb-build" info --db "$1" | sed -n 's/^  size *\([0-9.]*\) MB stored.*/\1/p' | head -1
}
model_mb=$(size "$work/model")
data_mb=$(size "$work/data")
histogram() {  # DB: the per-distance counts its info reports
  "$build/builder/puzzledb-build" info --db "$1" | sed -n 's/^  distances .*per distance//p' | head -1
}
largest() {  # DB: the largest distance its info reports
  "$build/builder/puzzledb-build" info --db "$1" | sed -n 's/^  distances *largest \([0-9]*\);.*/\1/p' | head -1
}
# A table that keeps one entry per class of symmetric states counts classes (the knight's
# model, and its definition where the index takes its symmetries: docs/FORMAT.md, step 7):
# the counts differ where only one side does, the largest distance may not.
if [ "$(largest "$work/model")" != "$(largest "$work/data")" ]; then
  echo "the largest distances differ: model $(largest "$work/model"), definition $(largest "$work/data")" >&2
  exit 1
fi
"$build/builder/puzzledb-build" info --db "$work/data" | grep -E "^  (index|ways back|encoding)" || true
printf '%-12s %9s %10s %10s\n' "" "build s" "peak MB" "stored MB"
printf '%-12s %9s %10d %10s\n' "model" "$model_s" $((model_kb / 1024)) "$model_mb"
printf '%-12s %9s %10d %10s\n' "definition" "$data_s" $((data_kb / 1024)) "$data_mb"
echo "census, model (its table's entries):      $(histogram "$work/model")"
echo "census, definition (its table's entries): $(histogram "$work/data")"
p50() {  # DB PUZZLE: in-process p50 in microseconds
  "$build/client/puzzledb" --db "$1" bench --puzzle "$2" --mode inprocess --seconds 2 --json |
    /usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["p50_us"])'
}
round=1
while [ "$round" -le "$rounds" ]; do
  m=$(p50 "$work/model" "$puzzle")
  d=$(p50 "$work/data" "$name")
  echo "round $round: in-process p50 model $m us, definition $d us, ratio $(echo "$d $m" | awk '{printf "%.2f", $1 / $2}')"
  round=$((round + 1))
done
