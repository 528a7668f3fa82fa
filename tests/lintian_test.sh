#!/bin/sh
# lintian on the Debian packages scripts/package made (ctest -L package): no error allowed;
# the warnings and notes are printed (docs/OPERATIONS.md, "The Debian packages", says why
# those that stay do).
#   tests/lintian_test.sh PACKAGE_DIR
set -eu
debs=$1
if ! command -v lintian >/dev/null 2>&1; then
  echo "lintian is not installed (scripts/bootstrap installs it): the packages are not checked" >&2
  exit 77
fi
out=$(lintian --tag-display-limit 0 --display-info "$debs"/*.deb 2>&1) || true
echo "$out"
if echo "$out" | grep -q '^E: '; then
  echo "lintian found errors in the packages (above)" >&2
  exit 1
fi
echo "lintian: no error in $(ls "$debs"/*.deb | wc -l) packages"
