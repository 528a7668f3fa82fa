#!/bin/sh
# The fifteen puzzle written as a definition (data/puzzles/fifteen.tws) against
# the built-in fifteen, in one run: issue 51's targets 1 and 3.
#   bench/definition_vs_model.sh BUILD_DIR [FIRST [SET [ROUNDS]]]
# SET is 7-8 (default) or 6-6-3: the model's pattern set (puzzledb-build --puzzle fifteen
# --patterns SET) and the definition's projections of the same tiles with the blank free
# (T 1-8 ~16 and T 9-15 ~16; T 1-4,7,8 ~16, T 5,6,9,10,13,14 ~16 and T 11,12,15 ~16): the
# same entries. SET chosen: the definition's tables are the builder's own choice within
# MEMORY (default 1G, no --projection), against the model's 7-8. Builds both (each build's seconds and peak), then, ROUNDS times (default 2),
# solves Korf's first FIRST boards (default 100) with the model and then with the
# definition, each side one `puzzledb solve --json` process over its database, and prints
# each round's total search time (the answers' own microseconds) and nodes, and their ratio.
# Exits 1 if the two give any board another distance or other moves. docs/PERFORMANCE.md,
# "Definitions searched with pattern tables", quotes it.
set -eu
build=$1
first=${2:-100}
set_name=${3:-7-8}
rounds=${4:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "working in $work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
model_set=$set_name
memory=3G
case $set_name in
  7-8) projections='T 1-8 ~16|T 9-15 ~16' ;;
  6-6-3) projections='T 1-4,7,8 ~16|T 5,6,9,10,13,14 ~16|T 11,12,15 ~16' ;;
  chosen)
    # The builder's own choice within MEMORY (default 1G), against the model's 7-8.
    projections=''
    memory=${MEMORY:-1G}
    model_set=7-8
    ;;
  *) echo "SET is 7-8, 6-6-3 or chosen" >&2; exit 2 ;;
esac

/usr/bin/time -f "%e %M" -o "$work/model.time" \
  "$build/builder/puzzledb-build" --db "$work/model" --puzzle fifteen --patterns "$model_set" -q
read -r model_s model_kb <"$work/model.time"
# The definition's tables decoded from their pages at load, as the model's are (its pattern
# tables get no unpacked copy): a copy written just now would be mapped from a page cache of
# small pages, which costs its walks about 13 % until the file is read in again.
set -- --db "$work/defined" --definition "$here/data/puzzles/fifteen.tws" --name fifteen_as_data -q \
  --pattern-memory "$memory" --unpacked-copies none
old_ifs=$IFS
IFS='|'
for spec in $projections; do set -- "$@" --projection "$spec"; done
IFS=$old_ifs
/usr/bin/time -f "%e %M" -o "$work/defined.time" "$build/builder/puzzledb-build" "$@"
read -r defined_s defined_kb <"$work/defined.time"
[ -z "$projections" ] && "$build/builder/puzzledb-build" info --db "$work/defined" | sed -n 's/.*; chosen: /chosen: /p'
echo "build $set_name: model $model_s s (peak $model_kb kB), definition $defined_s s (peak $defined_kb kB), ratio $(awk -v a="$defined_s" -v b="$model_s" 'BEGIN { printf "%.2f", a / b }')"

# Korf's boards: the model's input (a count, then four rows a board), the definition's
# compact form (the blank is 16).
grep -v '^#' "$here/tests/golden/fifteen_korf100.txt" | head -n "$first" >"$work/korf"
{
  echo "$first"
  awk '{ for (r = 0; r < 4; r++) print $(4 * r + 1), $(4 * r + 2), $(4 * r + 3), $(4 * r + 4) }' "$work/korf"
} >"$work/model.in"
awk '{ line = ""; for (i = 1; i <= 16; i++) line = line (i > 1 ? " " : "") ($i == 0 ? 16 : $i); print line }' \
  "$work/korf" >"$work/defined.in"

# One answer a line: distance, moves (joined), nodes, microseconds.
fields() {
  # (distance, a proto3 optional, comes last: docs/API.md)
  sed 's/.*"moves":\[\([^]]*\)\].*"nodes":"\([0-9]*\)","micros":"\([0-9]*\)".*"distance":\([0-9]*\).*/\4 \1 \2 \3/' "$1" |
    tr -d '",'
}
status=0
round=1
while [ "$round" -le "$rounds" ]; do
  "$build/client/puzzledb" solve --db "$work/model" --puzzle fifteen --json --max-moves 80 \
    <"$work/model.in" >"$work/model.json"
  "$build/client/puzzledb" solve --db "$work/defined" --puzzle fifteen_as_data --json \
    <"$work/defined.in" >"$work/defined.json"
  fields "$work/model.json" >"$work/model.out"
  fields "$work/defined.json" >"$work/defined.out"
  if ! paste -d'|' "$work/model.out" "$work/defined.out" |
    awk -F'|' '{ split($1, a, " "); split($2, b, " ");
                 if (a[1] != b[1] || a[2] != b[2]) { print "board " NR ": model " a[1] " " a[2] ", definition " b[1] " " b[2]; bad = 1 } }
               END { exit bad }'; then
    status=1
  fi
  awk -v round="$round" -v n="$first" '
    FNR == NR { mn += $3; mt += $4; next }
    { dn += $3; dt += $4 }
    END { printf "round %d, %d boards: model %.3f s (%d nodes), definition %.3f s (%d nodes), time ratio %.2f, nodes ratio %.2f\n",
          round, n, mt / 1e6, mn, dt / 1e6, dn, dt / mt, dn / mn }' "$work/model.out" "$work/defined.out"
  round=$((round + 1))
done
[ "$status" -eq 0 ] && echo "the same distance and moves for every board"
exit "$status"
