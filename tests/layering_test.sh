#!/bin/sh
# The layering of docs/ARCHITECTURE.md, checked on the sources and the built CLI:
#   tests/layering_test.sh SOURCE_DIR CLI_BINARY
# Every check prints what broke the rule, and the script exits 1 if any did.
set -u
src=$1
cli=$2
failed=0
fail() {
  echo "layering: $*"
  failed=1
}
cd "$src" || exit 2

# proto/ holds the .proto files (and the CMake that compiles them), no C++.
extra=$(find proto -type f ! -name '*.proto' ! -name CMakeLists.txt)
[ -z "$extra" ] || fail "proto/ holds more than .proto files: $extra"

# core/ knows no transport, no command line, and nothing built on it.
hits=$(grep -rlE '#include "(grpc|grpcpp|httplib|CLI/|server/|service/|client/|builder/)' core)
[ -z "$hits" ] || fail "core/ includes transport, CLI or upper-layer headers: $hits"

# core/'s layers (core/README.md): util < model < search < table < the runtime puzzle and the
# solver (puzzle.h, solver.h, solver_templates.h) < puzzles (each model registers its puzzle).
hits=$(grep -lE '#include "core/(model|puzzles|search|table|solver|puzzle\.h)' core/util/*)
[ -z "$hits" ] || fail "core/util/ includes a higher layer: $hits"
hits=$(grep -lE '#include "core/(puzzles|search|table|solver|puzzle\.h)' core/model/*)
[ -z "$hits" ] || fail "core/model/ includes a higher layer: $hits"
hits=$(grep -lE '#include "core/(puzzles|table|solver|puzzle\.h)' core/search/*)
[ -z "$hits" ] || fail "core/search/ includes a higher layer: $hits"
hits=$(grep -lE '#include "core/(puzzles|solver|puzzle\.h)' core/table/*)
[ -z "$hits" ] || fail "core/table/ includes the solver or a puzzle: $hits"
hits=$(grep -lE '#include "core/puzzles/' core/puzzle.h core/solver.h core/solver.cc core/solver_templates.h)
[ -z "$hits" ] || fail "the runtime puzzle or the solver includes a model: $hits"
# Only a model's own translation unit compiles the model's half of the solver.
hits=$(grep -rlE '#include "core/(solver_templates|puzzles/model_puzzle)\.h"' \
  core service server client builder bench tests fuzz examples --include='*.cc' --include='*.h' |
  grep -vE '^core/puzzles/[a-z0-9_]+\.(cc|h)$' | grep -v '^core/puzzles/model_puzzle\.h$')
[ -z "$hits" ] || fail "a model's templates are compiled outside its translation unit: $hits"

# The service layer knows no transport.
hits=$(grep -rlE '#include "(grpcpp|httplib|CLI/|server/|client/)' service)
[ -z "$hits" ] || fail "service/ includes transport or CLI headers: $hits"

# The server's two bindings sit side by side over its call path (server/call.h): gRPC's
# knows nothing of HTTP's, and HTTP's nothing of gRPC's (not even its status type).
hits=$(grep -lE '#include "(server/http/|boost/beast|boost/asio|httplib)' server/grpc/*)
[ -z "$hits" ] || fail "server/grpc/ includes the HTTP binding: $hits"
hits=$(grep -lE '#include "(server/grpc/|grpcpp|grpc/|puzzledb/v1/solver.grpc)' server/http/*)
[ -z "$hits" ] || fail "server/http/ includes the gRPC binding: $hits"
# Nor does the shared call path know either.
hits=$(grep -lE '#include "(server/grpc/|server/http/|grpcpp|boost/)' server/call.* server/search_pool.* server/metrics.*)
[ -z "$hits" ] || fail "the call path includes a binding: $hits"

# Puzzles are named only by their models, the registry and the wire mapping, and by the web
# page's drawings of their boards (server/web/: a puzzle's look is the page's, not the
# model's; docs/ARCHITECTURE.md, "Adding a puzzle").
hits=$(grep -rlE 'KnightPuzzle|KnobsPuzzle|RotationPuzzle|EightPuzzle|FifteenPuzzle|"(knight|knobs|rotation|eight|fifteen)"' \
  client server builder service core/solver.h core/solver.cc core/search core/table core/util |
  grep -v '^service/wire\.' | grep -v '^server/web/')
[ -z "$hits" ] || fail "a puzzle is named outside core/puzzles/ and service/wire.*: $hits"

# The CLI carries none of the server's machinery.
if ! nm -C "$cli" >/dev/null 2>&1; then
  fail "cannot read the symbols of $cli"
else
  server_symbols=$(nm -C "$cli" | grep -cE 'puzzledb::(BackgroundBuilder|SearchPool|SolverService|PuzzledbServer)')
  [ "$server_symbols" -eq 0 ] || fail "the CLI binary holds $server_symbols symbols of the server"
fi

[ "$failed" -eq 0 ] && echo "layering: every rule holds"
exit "$failed"
