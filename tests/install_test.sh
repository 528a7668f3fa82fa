#!/bin/sh
# Installs puzzledb from the build tree into a scratch prefix, builds the embedding example
# against it with find_package(puzzledb) twice, with the client alone and with the engine
# (the component core, to check answers by the rules), checks that the first links nothing
# of the engine, and runs both against a real server on a free port; then checks that the
# installed binaries stand alone.
set -eu
build_dir=$1
source_dir=$2
db=$3
scratch=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
test -f "$scratch/prefix/lib/cmake/puzzledb/puzzledbConfig.cmake"
test -f "$scratch/prefix/include/puzzledb/client.h"
test -f "$scratch/prefix/include/puzzledb/engine.h"
cmake -S "$source_dir/examples/embedding" -B "$scratch/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/example" >/dev/null
cmake -S "$source_dir/examples/embedding" -B "$scratch/example-core" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" -DHINT_SERVICE_VERIFY=ON >/dev/null
cmake --build "$scratch/example-core" >/dev/null
# The client alone needs no RocksDB, no compression library, nothing of the engine: not
# among the libraries it names, nor among those they load.
needed=$(readelf -d "$scratch/example/hint_service" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "$needed" | grep -q '^libpuzzledb-client\.so\.0$' || { echo "hint_service does not link libpuzzledb-client.so.0: $needed" >&2; exit 1; }
if LD_LIBRARY_PATH="$scratch/prefix/lib" ldd "$scratch/example/hint_service" | grep -E 'rocksdb|zstd|deflate|snappy|lz4|bz2'; then
  echo "hint_service built against the client alone loads the engine's libraries" >&2
  exit 1
fi
if nm -C "$scratch/example/hint_service" | grep -q 'puzzledb::TableStore'; then
  echo "hint_service built against the client alone holds the engine" >&2
  exit 1
fi
cp -r "$db" "$scratch/db"
"$scratch/prefix/bin/puzzledb-server" --db "$scratch/db" --listen 127.0.0.1:0 --http 127.0.0.1:0 2>"$scratch/log" &
server=$!
for i in $(seq 100); do
  port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$scratch/log")
  [ -n "$port" ] && break
  sleep 0.1
done
# A program that compiles grpc/health/v1/health.proto itself (for a health service of its
# own) links the client too, and both work: the client's shared library defines none of
# its classes.
mkdir -p "$scratch/own_health"
protoc --proto_path="$source_dir/proto" --cpp_out="$scratch/own_health" grpc/health/v1/health.proto
cat > "$scratch/own_health/main.cc" <<'EOF'
#include <iostream>

#include "grpc/health/v1/health.pb.h"
#include "puzzledb/client.h"

int main(int argc, char** argv) {
  grpc::health::v1::HealthCheckRequest own;
  own.set_service("its own");
  puzzledb::Client client({.target = argv[1]});
  const absl::Status up = client.WaitUntilServing(std::chrono::seconds(10));
  std::cout << own.service() << ": " << (up.ok() ? "serving" : std::string(up.message())) << "\n";
  return up.ok() ? 0 : 1;
}
EOF
cat > "$scratch/own_health/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.22)
project(own_health LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(puzzledb CONFIG REQUIRED COMPONENTS client)
add_executable(own_health main.cc grpc/health/v1/health.pb.cc)
target_include_directories(own_health PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(own_health PRIVATE puzzledb::client)
EOF
cmake -S "$scratch/own_health" -B "$scratch/own_health/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/own_health/build" >/dev/null
if nm -D --defined-only "$scratch/prefix/lib/libpuzzledb-client.so.0" | grep -q 'grpc6health2v1'; then
  echo "libpuzzledb-client.so.0 defines grpc.health.v1's classes" >&2
  exit 1
fi
for example in example example-core; do
  out=$(echo "1111111111000*10000100000" | "$scratch/$example/hint_service" "127.0.0.1:$port")
  echo "$example: $out"
  [ "$out" = "1111111111000*10000100000: 3 moves from the goal; play c1 (then 2); 1 optimal solution" ]
done
out=$("$scratch/own_health/build/own_health" "127.0.0.1:$port")
echo "own_health: $out"
[ "$out" = "its own: serving" ]

# The installed binaries do not depend on the source tree: its path is in none of them, the
# default parameters (the knobs wirings) travel with the install (compiled in, and as files for reference), and the
# installed builder makes every default table from another folder (the fifteen puzzle's
# pattern tables as the 6-6-3 partition, built by the same code as the default 7-8 in a
# second instead of 1.5 minutes; build_fifteen_db builds the 7-8 tables).
for binary in puzzledb puzzledb-build puzzledb-server; do
  if grep -q -F "$source_dir" "$scratch/prefix/bin/$binary"; then
    echo "$binary names the source tree $source_dir" >&2
    exit 1
  fi
done
test -f "$scratch/prefix/share/puzzledb/params/knobs/knobs_9001.in"
# The nginx configuration travels too, with the installed builder's default tables in its
# map (docs/OPERATIONS.md, "Replicas behind nginx").
conf="$scratch/prefix/share/puzzledb/nginx/puzzledb.conf"
test -f "$conf"
"$scratch/prefix/bin/puzzledb-build" default-tables > "$scratch/defaults.txt"
[ "$(wc -l < "$scratch/defaults.txt")" -ge 5 ]
while read -r id; do
  grep -q "^    $id 1;\$" "$conf" || { echo "$conf does not spread $id" >&2; exit 1; }
done < "$scratch/defaults.txt"
# As installed (the operator's folder /etc/nginx/puzzledb-tables.d need not exist), nginx
# accepts it.
mkdir -p "$scratch/nginx/logs"
cat > "$scratch/nginx/nginx.conf" <<EOF
pid $scratch/nginx/nginx.pid;
error_log $scratch/nginx/logs/error.log;
events { worker_connections 64; }
http {
  client_body_temp_path $scratch/nginx/cb; proxy_temp_path $scratch/nginx/p;
  fastcgi_temp_path $scratch/nginx/f; uwsgi_temp_path $scratch/nginx/u;
  scgi_temp_path $scratch/nginx/s;
  include $conf;
}
EOF
/usr/sbin/nginx -t -q -p "$scratch/nginx" -c "$scratch/nginx/nginx.conf" -e "$scratch/nginx/logs/error.log"
mkdir "$scratch/elsewhere"
(cd "$scratch/elsewhere" && "$scratch/prefix/bin/puzzledb-build" --quiet --db built --patterns 6-6-3) >"$scratch/built.txt"
cat "$scratch/built.txt"
# One line per table of the default database, as the builder lists them (default-tables),
# each a complete table or a set of pattern tables.
tables=$("$scratch/prefix/bin/puzzledb-build" default-tables | wc -l)
[ "$(grep -cE '^[a-z0-9-]+: (.* states, complete|pattern tables of )' "$scratch/built.txt")" = "$tables" ]
grep -q '^fifteen-6-6-3: pattern tables of tiles 1-4,7,8/5,6,9,10,13,14/11,12,15' "$scratch/built.txt"
"$scratch/prefix/bin/puzzledb-build" info --db "$scratch/elsewhere/built" | grep -q ": $tables tables,"
