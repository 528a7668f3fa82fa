#!/bin/sh
# The systemd units as `cmake --install` writes them (deploy/systemd/), checked by
# systemd-analyze verify: their syntax, every key known to this systemd, and the binaries
# they start present and executable in the install.
#   tests/systemd_units_test.sh BUILD_DIR
set -eu
build_dir=$1
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd-analyze is not installed (the systemd package): the units are not checked" >&2
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
units="$scratch/prefix/lib/systemd/system"
for unit in puzzledb.service puzzledb-build.service; do
  test -f "$units/$unit" || { echo "cmake --install did not write $units/$unit" >&2; exit 1; }
  grep -q "^ExecStart=$scratch/prefix/bin/puzzledb-" "$units/$unit" ||
    { echo "$unit does not start a binary of the install:" >&2; grep ExecStart "$units/$unit" >&2; exit 1; }
  if grep -q '@PUZZLEDB' "$units/$unit"; then
    echo "$unit has a placeholder left" >&2
    exit 1
  fi
done
# Warnings (an unknown key, say) are printed but do not change the exit code: none is allowed.
if ! out=$(cd "$units" && systemd-analyze verify puzzledb.service puzzledb-build.service 2>&1); then
  echo "systemd-analyze verify failed:" >&2
  echo "$out" >&2
  exit 1
fi
if [ -n "$out" ]; then
  echo "systemd-analyze verify warned:" >&2
  echo "$out" >&2
  exit 1
fi
echo "both units verify"
