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
# core/definition/ (puzzles as data: the reader and the definition) sits beside model/:
# it uses util/ alone.
hits=$(grep -lE '#include "core/(model|puzzles|search|table|sliding|solver|puzzle\.h)' core/definition/*)
[ -z "$hits" ] || fail "core/definition/ includes a higher layer: $hits"
# core/defined/ (a definition made a puzzle: its search, its model, its registration) sits
# above the solver beside the built-in models: it may include every generic layer and the
# model template (core/puzzles/model_puzzle.h), and no built-in model.
hits=$(grep -lE '#include "core/(puzzles/(knight|knobs|rotation|eight|fifteen|cube2)|sliding)' core/defined/*)
[ -z "$hits" ] || fail "core/defined/ includes a built-in model or family: $hits"
hits=$(grep -rlE '#include "core/defined/' core/util core/definition core/model core/search core/table \
  core/puzzle.h core/solver.h core/solver.cc core/solver_templates.h core/puzzles core/sliding)
[ -z "$hits" ] || fail "a lower layer includes core/defined/: $hits"
hits=$(grep -lE '#include "core/(puzzles|search|table|solver|puzzle\.h)' core/model/*)
[ -z "$hits" ] || fail "core/model/ includes a higher layer: $hits"
hits=$(grep -lE '#include "core/(puzzles|table|solver|puzzle\.h)' core/search/*)
[ -z "$hits" ] || fail "core/search/ includes a higher layer: $hits"
hits=$(grep -lE '#include "core/(puzzles|solver|puzzle\.h)' core/table/*)
[ -z "$hits" ] || fail "core/table/ includes the solver or a puzzle: $hits"
hits=$(grep -lE '#include "core/puzzles/' core/puzzle.h core/solver.h core/solver.cc core/solver_templates.h)
[ -z "$hits" ] || fail "the runtime puzzle or the solver includes a model: $hits"
# A family's machinery (core/sliding/: the sliding-tile model, the pattern tables and their
# search) sits above the generic layers and below the models: a model includes its family,
# and the generic layers ask the model (its Guide), never the family.
hits=$(grep -lE '#include "core/(puzzles|solver|puzzle\.h)' core/sliding/*)
[ -z "$hits" ] || fail "core/sliding/ includes the solver or a puzzle: $hits"
hits=$(grep -rlE '#include "core/sliding/' core/util core/model core/search core/table \
  core/puzzle.h core/solver.h core/solver.cc core/solver_templates.h core/puzzles/model_puzzle.h)
[ -z "$hits" ] || fail "a generic layer includes the sliding-tile family: $hits"
# Only a model's own translation unit compiles the model's half of the solver.
hits=$(grep -rlE '#include "core/(solver_templates|puzzles/model_puzzle)\.h"' \
  core service server client builder bench tests fuzz examples --include='*.cc' --include='*.h' |
  grep -vE '^core/puzzles/[a-z0-9_]+\.(cc|h)$' | grep -v '^core/puzzles/model_puzzle\.h$' |
  grep -v '^core/defined/defined_puzzle\.cc$')
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
# The gRPC port's guard (server/guard/) stands in front of gRPC's transport as bytes: it
# knows neither binding, nor gRPC's API (server.cc hands gRPC what it opens).
hits=$(grep -lE '#include "(server/grpc/|server/http/|grpcpp|grpc/|puzzledb/v1/)' server/guard/*)
[ -z "$hits" ] || fail "server/guard/ includes a binding or gRPC: $hits"
# Nor does the shared call path know either.
hits=$(grep -lE '#include "(server/grpc/|server/http/|grpcpp|boost/)' server/call.* server/search_pool.* server/metrics.*)
[ -z "$hits" ] || fail "the call path includes a binding: $hits"

# One puzzle, one place (docs/ARCHITECTURE.md): outside core/, no code, script or page names
# a puzzle (the names are the registry's, as the CLI lists them), but the typed messages of
# the API's first version and their one mapping (service/wire.*), with the clients' side of it
# (client/table_id.cc, clients/python/puzzledb/typed.py).
names=$("$cli" puzzles | grep -v '^ ' | cut -d' ' -f1)
[ -n "$names" ] || fail "the CLI lists no puzzle"
for name in $names; do
  hits=$(grep -rlwi -- "$name" service server client builder scripts clients/python/puzzledb proto |
    grep -vE '^service/wire\.(h|cc)$|^client/table_id\.cc$|^clients/python/puzzledb/(typed|__init__)\.py$|^proto/puzzledb/v1/solver\.proto$')
  [ -z "$hits" ] || fail "puzzle '$name' is named outside core/ and the typed mapping: $hits"
done
# The first version's typed messages are the only puzzle names in the wire API.
typed=$(grep -oE '^    [A-Za-z]+ [a-z0-9]+ = [0-9]+;' proto/puzzledb/v1/solver.proto | awk '{print $2}')
for name in $names; do
  if grep -qwi -- "$name" proto/puzzledb/v1/solver.proto && ! echo "$typed" | grep -qx -- "$name"; then
    fail "solver.proto names puzzle '$name', which has no typed message of the first version"
  fi
done

# The CLI carries none of the server's machinery.
if ! nm -C "$cli" >/dev/null 2>&1; then
  fail "cannot read the symbols of $cli"
else
  server_symbols=$(nm -C "$cli" | grep -cE 'puzzledb::(BackgroundBuilder|SearchPool|SolverService|PuzzledbServer)')
  [ "$server_symbols" -eq 0 ] || fail "the CLI binary holds $server_symbols symbols of the server"
fi

[ "$failed" -eq 0 ] && echo "layering: every rule holds"
exit "$failed"
