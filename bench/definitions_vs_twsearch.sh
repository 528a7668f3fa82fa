#!/bin/sh
# puzzledb-build --definition against twsearch's God's-algorithm count (-g), side by side:
#   bench/definitions_vs_twsearch.sh BUILD_DIR TWSEARCH TWS_DIR [ROUNDS]
# TWSEARCH is twsearch's C++ binary (github cubing/twsearch, src/cpp, every source file
# compiled with g++ -O3 -std=c++20 -DUSE_PTHREADS), TWS_DIR the folder of its sample .tws
# files. For each of 2x2x2, skewb and tangram, ROUNDS (default 3) rounds of one run of each,
# alternating (ours, theirs, ours, ...), on 2 threads: the wall seconds and peak resident kB
# of every run, the ratio of each pair, and a check that both count the same positions at
# every distance (ours from `puzzledb census`, theirs from its "Dist" lines). Then the
# memory of our build beside its table: the peak beyond that of a build of a two-position
# definition (the program, its libraries and RocksDB), over the table's entries (its index
# times 2 bits, or a byte a state for an exact or guarded table). PUZZLES="2x2x2 ..." picks
# other files of TWS_DIR.
# docs/PERFORMANCE.md, "Definitions", quotes it.
set -eu
build=$1
twsearch=$2
tws=$3
rounds=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
printf 'Set P 2 1\nSolved\nP\n1 2\nEnd\nMove S\nP\n2 1\nEnd\n' >"$work/tiny.tws"
/usr/bin/time -f "%e %M" -o "$work/tiny.time" \
  "$build/builder/puzzledb-build" --db "$work/tiny" --definition "$work/tiny.tws" --threads 2 -q >/dev/null
read -r _ tiny_kb <"$work/tiny.time"
echo "a build of a two-position definition: peak $tiny_kb kB"
for puzzle in ${PUZZLES:-2x2x2 skewb tangram}; do
  file="$tws/$puzzle.tws"
  name=p$(echo "$puzzle" | tr -cd 'a-z0-9')
  round=1
  while [ "$round" -le "$rounds" ]; do
    rm -rf "$work/db"
    /usr/bin/time -f "%e %M" -o "$work/ours.time" \
      "$build/builder/puzzledb-build" --db "$work/db" --definition "$file" --name "$name" \
      --threads 2 -q >/dev/null
    /usr/bin/time -f "%e %M" -o "$work/theirs.time" "$twsearch" -g -t 2 "$file" >"$work/theirs.out" 2>&1
    read -r ours_s ours_kb <"$work/ours.time"
    read -r theirs_s theirs_kb <"$work/theirs.time"
    ratio=$(awk -v a="$ours_s" -v b="$theirs_s" 'BEGIN { printf "%.2f", a / b }')
    echo "$puzzle round $round: puzzledb-build $ours_s s $ours_kb kB, twsearch -g $theirs_s s $theirs_kb kB, ratio $ratio"
    round=$((round + 1))
  done
  "$build/builder/puzzledb-build" info --db "$work/db" >"$work/info"
  entries=$(awk '$1 == "index" { print $2 }' "$work/info")
  bits=$(grep -q '^  encoding .* 2 bits' "$work/info" && echo 2 || echo 8)
  awk -v peak="$ours_kb" -v tiny="$tiny_kb" -v n="$entries" -v bits="$bits" -v p="$puzzle" 'BEGIN {
    table = n * bits / 8 / 1024
    printf "%s: the last build peaked at %d kB, %d kB beyond the two-position build: %.2f x its table (%d entries of %d bits, %d kB)\n",
           p, peak, peak - tiny, (peak - tiny) / table, n, bits, table }'
  "$build/client/puzzledb" census --db "$work/db" --puzzle "$name" >"$work/ours.census"
  awk '$1 == "Dist" && $4 != 0 { print $2, $4 }' "$work/theirs.out" >"$work/theirs.census"
  if cmp -s "$work/ours.census" "$work/theirs.census"; then
    echo "$puzzle: the same counts at all $(wc -l <"$work/ours.census") distances ($(awk '{ s += $2 } END { print s }' "$work/ours.census") positions)"
  else
    echo "$puzzle: THE COUNTS DIFFER"
    diff "$work/ours.census" "$work/theirs.census" || true
    status=1
  fi
done
exit $status
