#!/bin/sh
# A definition too large for a complete table, answered through pattern tables of
# projections, against twsearch's optimal solver (-s), side by side on the same scrambles:
#   bench/patterns_vs_twsearch.sh BUILD_DIR TWSEARCH TWS_FILE [COUNT [LENGTH [SEED]]]
# TWSEARCH is twsearch's C++ binary (as for bench/definitions_vs_twsearch.sh), TWS_FILE a
# definition both read (twsearch's 3x3x3.tws). COUNT scrambles (default 20) of LENGTH random
# moves (default 12; no move right after one of the same base name) are drawn with SEED
# (default 1). Ours: puzzledb-build with the projections chosen within --pattern-memory
# (PATTERN_MEMORY, default 512M; PROJECTIONS="spec;spec" names them instead, separated by
# '|'), then one `puzzledb solve --scramble` of every scramble; theirs: twsearch -M 512 -t 2
# -s, once to write its pruning table to its cache, then timed with the cache warm. Prints
# the build's seconds and peak, each side's seconds and peak for the scrambles, and checks
# that both give every scramble the same distance. docs/PERFORMANCE.md, "Definitions
# searched with pattern tables", quotes it.
set -eu
build=$1
twsearch=$2
file=$3
count=${4:-20}
length=${5:-12}
seed=${6:-1}
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "working in $work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
name=p$(basename "$file" .tws | tr -cd 'a-z0-9')
set -- --db "$work/db" --definition "$file" --name "$name" --threads 2 -q \
  --pattern-memory "${PATTERN_MEMORY:-512M}"
if [ -n "${PROJECTIONS:-}" ]; then
  old_ifs=$IFS
  IFS='|'
  for spec in $PROJECTIONS; do set -- "$@" --projection "$spec"; done
  IFS=$old_ifs
fi
/usr/bin/time -f "%e %M" -o "$work/build.time" "$build/builder/puzzledb-build" "$@" >"$work/build.out"
read -r build_s build_kb <"$work/build.time"
echo "puzzledb-build: $build_s s, peak $build_kb kB: $(cat "$work/build.out")"
moves=$("$build/builder/puzzledb-build" info --db "$work/db" | awk '$1 == "moves" { $1 = ""; print }')
echo "$moves" | awk -v n="$count" -v len="$length" -v seed="$seed" '{
  srand(seed)
  for (i = 1; i <= n; i++) {
    line = ""; last = ""
    for (k = 0; k < len;) {
      m = $(1 + int(rand() * NF)); base = m; sub(/[0-9'\'']+$/, "", base)
      if (base == last) continue
      line = line (k ? " " : "") m; last = base; k++
    }
    print line
  } }' >"$work/scrambles"
/usr/bin/time -f "%e %M" -o "$work/ours.time" \
  "$build/client/puzzledb" solve --db "$work/db" --puzzle "$name" --scramble --json \
  <"$work/scrambles" >"$work/ours.json"
mkdir -p "$work/cache"
"$twsearch" -M 512 -t 2 --cachedir "$work/cache" -s "$file" <"$work/scrambles" >/dev/null 2>&1
/usr/bin/time -f "%e %M" -o "$work/theirs.time" \
  "$twsearch" -M 512 -t 2 --cachedir "$work/cache" -s "$file" <"$work/scrambles" >"$work/theirs.out" 2>&1
read -r ours_s ours_kb <"$work/ours.time"
read -r theirs_s theirs_kb <"$work/theirs.time"
nodes=$(sed 's/.*"nodes":"\([0-9]*\)".*/\1/' "$work/ours.json" | awk '{ s += $1 } END { print s }')
echo "$count scrambles of $length moves (seed $seed): puzzledb $ours_s s (peak $ours_kb kB, $nodes nodes), twsearch -s -M 512 $theirs_s s (peak $theirs_kb kB), ratio $(awk -v a="$ours_s" -v b="$theirs_s" 'BEGIN { printf "%.1f", a / b }')"
sed 's/.*"distance":\([0-9]*\).*/\1/' "$work/ours.json" >"$work/ours.distances"
# twsearch prints each solution after "Solving" (and the lines of its table's filling), on a
# line that starts with a space, a move a word.
awk '/^Solving/ { want = 1; next } want && /^ / { print NF; want = 0 }' "$work/theirs.out" >"$work/theirs.distances"
if cmp -s "$work/ours.distances" "$work/theirs.distances"; then
  echo "the same distance for every scramble: $(tr '\n' ' ' <"$work/ours.distances")"
else
  echo "THE DISTANCES DIFFER (ours, then theirs):"
  paste "$work/ours.distances" "$work/theirs.distances"
  exit 1
fi
