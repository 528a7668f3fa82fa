#!/bin/sh
# puzzledb-build --definition against twsearch's God's-algorithm count (-g), side by side:
#   bench/definitions_vs_twsearch.sh BUILD_DIR TWSEARCH TWS_DIR [ROUNDS]
# TWSEARCH is twsearch's C++ binary (github cubing/twsearch, src/cpp, every source file
# compiled with g++ -O3 -std=c++20 -DUSE_PTHREADS), TWS_DIR the folder of its sample .tws
# files. For each of 2x2x2, skewb and tangram, ROUNDS (default 3) rounds of one run of each,
# alternating (ours, theirs, ours, ...), on 2 threads: the wall seconds and peak resident kB
# of every run, the ratio of each pair, and a check that both count the same positions at
# every distance (ours from `puzzledb census`, theirs from its "Dist" lines).
# docs/PERFORMANCE.md, "Definitions", quotes it.
set -eu
build=$1
twsearch=$2
tws=$3
rounds=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for puzzle in 2x2x2 skewb tangram; do
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
