#!/bin/sh
# The Python client as a user installs it (ctest python_client): a fresh virtual
# environment that sees Debian's grpcio and protobuf (--system-site-packages), `pip install`
# of the wheel the build made, with no index, and then the client's own tests run from the
# installed copy against real servers, with nothing on PYTHONPATH and the working directory
# outside the source and build trees; before that, mypy --strict over the installed package.
#   python_wheel_test.sh PYTHON WHEEL VERSION TESTS_DIR
# (PUZZLEDB_SERVER, PUZZLEDB_CLI, PUZZLEDB_DB, PUZZLEDB_CERTS_SCRIPT: clients/python/tests.)
set -eu
python=$1 wheel=$2 version=$3 tests=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
# --no-index: pip finds grpcio and protobuf among the system's packages or fails; it never
# downloads.
"$work/venv/bin/python" -m pip install --quiet --no-index "$wheel"
cd "$work"
unset PYTHONPATH
"$work/venv/bin/python" - "$work/venv" "$version" <<'PY'
import importlib.metadata
import sys

import puzzledb

venv, version = sys.argv[1], sys.argv[2]
if not puzzledb.__file__.startswith(venv + "/"):
    sys.exit(f"puzzledb was imported from {puzzledb.__file__}, not from the installed wheel")
if not (puzzledb.__version__ == importlib.metadata.version("puzzledb") == version):
    sys.exit(f"versions differ: puzzledb.__version__ {puzzledb.__version__}, the wheel's "
             f"{importlib.metadata.version('puzzledb')}, the project's {version}")
print(f"puzzledb {version} installed in {venv} and imported from it")
PY
# The package is typed (py.typed): mypy --strict accepts it as installed.
if ! "$python" -m mypy --version >/dev/null 2>&1; then
  echo "mypy is not installed for $python: run scripts/bootstrap (Debian's mypy)" >&2
  exit 1
fi
"$python" -m mypy --config-file "$tests/../pyproject.toml" --python-executable "$work/venv/bin/python" \
  --cache-dir "$work/mypy-cache" -p puzzledb
"$work/venv/bin/python" -m unittest discover -v -s "$tests"
