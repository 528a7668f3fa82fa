#!/bin/sh
# The Debian packages installed for real (ctest -L package): scripts/package builds them;
# this makes a clean Debian 12 root (debootstrap --variant=minbase, from this machine's
# Debian sources), installs puzzledb-server in it with apt, starts the database build and the
# server as their units would (ExecStart, EnvironmentFile, User: no systemd runs as PID 1
# in a chroot), answers the golden samples over gRPC (the installed CLI) and HTTP, builds
# examples/embedding against libpuzzledb-client-dev alone (the example's folder, no source
# tree), checks that it links nothing of the engine, runs it against that server; then
# removes the packages (the database and the settings stay) and purges them (both go).
# Prints the times of each step: the .deb files to the first answer, and the build.
#   tests/package_install_test.sh SOURCE_DIR PACKAGE_DIR WORK_DIR
# Exits 77 (ctest: skipped), saying why, where no clean root can be made (not root, no
# debootstrap, no Debian mirror reachable): it never passes without installing.
set -eu
src=$1
debs=$2
work=$3
say() { echo "package test: $*"; }
skip() {
  echo "package test SKIPPED: $*" >&2
  exit 77
}
root=$work/root
server=""
mounted=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  # The chroot's own processes (a server started in it) before its mounts.
  if [ -d "$root/proc" ]; then
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] && kill -9 "$pid" 2>/dev/null || true
    done
  fi
  for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || skip "making a Debian root and installing into it needs root"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed (scripts/bootstrap installs it)"
ls "$debs"/puzzledb-server_*.deb "$debs"/libpuzzledb-client0_*.deb \
  "$debs"/libpuzzledb-client-dev_*.deb "$debs"/libpuzzledb-core-dev_*.deb >/dev/null

# This machine's Debian mirror (deb822 or one-line sources).
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(http[^ ]*debian\) bookworm .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)
[ -n "$mirror" ] || skip "no Debian mirror in this machine's apt sources"

# A clean root: debootstrap's minimal Debian 12, its packages from this machine's apt cache
# where they are there already. What an earlier run left mounted in it is unmounted first,
# and nothing is removed across a mount point (the apt cache is bound into the root).
unmount_all() {
  for m in $(awk -v r="$root/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}
unmount_all
rm -rf --one-file-system "$work"
mkdir -p "$work"
started=$(date +%s)
if ! debootstrap --variant=minbase --cache-dir=/var/cache/apt/archives bookworm "$root" "$mirror" \
    >"$work/debootstrap.log" 2>&1; then
  tail -20 "$work/debootstrap.log" >&2
  skip "debootstrap could not make a Debian 12 root from $mirror (its log is above)"
fi
say "a clean Debian 12 root made in $(($(date +%s) - started)) s"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
EOF
security=$(sed -n 's/^URIs: *\(http[^ ]*debian-security\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -z "$security" ] || echo "deb $security bookworm-security main" >> "$root/etc/apt/sources.list"
# Nothing starts services in the root (policy-rc.d), and apt downloads into this machine's cache.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
if mount -t proc proc "$root/proc" 2>/dev/null; then mounted="$root/proc $mounted"; fi
if mount --bind /var/cache/apt/archives "$root/var/cache/apt/archives" 2>/dev/null; then
  mounted="$root/var/cache/apt/archives $mounted"
fi
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update -qq >"$work/apt.log" 2>&1 || { tail "$work/apt.log" >&2; skip "apt-get update failed in the root"; }
mkdir -p "$root/debs"
cp "$debs"/*.deb "$root/debs/"
deb_of() { echo "/debs/$(basename "$(ls "$debs"/"$1"_*.deb)")"; }

# ---- the server's package: installed, its user, settings and units in place.
t0=$(date +%s)
in_root apt-get install -y -qq --no-install-recommends "$(deb_of puzzledb-server)" "$(deb_of libpuzzledb-client0)" \
  >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; echo "apt-get install of puzzledb-server failed" >&2; exit 1; }
t_installed=$(date +%s)
say "puzzledb-server and libpuzzledb-client0 installed by apt in $((t_installed - t0)) s"
in_root getent passwd puzzledb >/dev/null || { echo "the package made no user puzzledb" >&2; exit 1; }
for f in /usr/bin/puzzledb /usr/bin/puzzledb-build /usr/bin/puzzledb-server /etc/default/puzzledb \
    /lib/systemd/system/puzzledb.service /lib/systemd/system/puzzledb-build.service \
    /lib/systemd/system/puzzledb.service.d/debian.conf /usr/share/doc/puzzledb-server/copyright; do
  [ -e "$root$f" ] || { echo "the package did not install $f" >&2; exit 1; }
done
grep -q '^ExecStart=/usr/bin/puzzledb-server --db /var/lib/puzzledb/db \$PUZZLEDB_SERVER_ARGS$' \
  "$root/lib/systemd/system/puzzledb.service" || { echo "puzzledb.service does not start the installed server" >&2; exit 1; }
# The installed server needs no library the packages do not bring (dpkg-shlibdeps' job).
if in_root ldd /usr/bin/puzzledb-server | grep 'not found'; then echo "the server misses libraries" >&2; exit 1; fi

# ---- started as the units would: the settings file, the user, the state directory.
ports=$(/usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
grpc_port=${ports% *}
http_port=${ports#* }
# The settings an operator edits: other ports, and the small pattern tables of the fifteen
# (PACKAGE_TEST_BUILD_ARGS= builds the default database instead: about 50 s and 2.6 GB).
sed -i -e "s|^PUZZLEDB_SERVER_ARGS=.*|PUZZLEDB_SERVER_ARGS=\"--listen 127.0.0.1:$grpc_port --http 127.0.0.1:$http_port\"|" \
  -e "s|^PUZZLEDB_BUILD_ARGS=.*|PUZZLEDB_BUILD_ARGS=\"${PACKAGE_TEST_BUILD_ARGS---patterns 6-6-3}\"|" "$root/etc/default/puzzledb"
# ExecStart of a unit, run in the root as the unit's user with its settings file read.
as_unit() {
  unit=$root/lib/systemd/system/$1
  command=$(sed -n 's/^ExecStart=//p' "$unit")
  user=$(sed -n 's/^User=//p' "$unit")
  in_root mkdir -p /var/lib/puzzledb
  in_root chown "$user:$user" /var/lib/puzzledb
  in_root setpriv --reuid="$user" --regid="$user" --init-groups \
    sh -c "set -a; . /etc/default/puzzledb; set +a; umask 0077; exec $command"
}
as_unit puzzledb-build.service >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
t_built=$(date +%s)
say "the database built by puzzledb-build.service's command in $((t_built - t_installed)) s:"
grep -E 'states, complete|pattern tables of' "$work/build.log" | sed 's/^/  /'
[ "$(in_root stat -c %U /var/lib/puzzledb/db/CURRENT)" = puzzledb ] || { echo "the database is not the user puzzledb's" >&2; exit 1; }
as_unit puzzledb.service >"$work/server.log" 2>&1 &
server=$!
cli() { in_root /usr/bin/puzzledb --server "127.0.0.1:$grpc_port" "$@"; }
for _ in $(seq 300); do
  cli --timeout 1 tables >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; echo "the server did not start" >&2; exit 1; }
  sleep 0.1
done
t_first=$(date +%s)
say "first answer $((t_first - t0)) s after apt-get install began ($((t_first - t_built)) s after the build), of which the database build $((t_built - t_installed)) s"

# ---- the golden samples over gRPC, by the installed command line.
mkdir -p "$root/samples"
cp "$src"/tests/golden/*.in "$src"/tests/golden/*.out "$root/samples/"
count=0
for input in "$root"/samples/*.in; do
  name=$(basename "$input" .in)
  [ -f "$root/samples/$name.out" ] || continue
  puzzle=${name%%_*}
  got=$(cli solve --puzzle "$puzzle" < "$input") || { echo "$name: the CLI failed" >&2; exit 1; }
  [ "$got" = "$(cat "$root/samples/$name.out")" ] || { echo "$name: over gRPC the answers differ from $name.out" >&2; exit 1; }
  count=$((count + 1))
done
say "$count golden samples answered over gRPC as expected"
[ "$count" -ge 8 ]
# ---- and over HTTP: every 8-puzzle board of the golden sample, its distance.
exec 3<"$src/tests/golden/eight.out"
while read -r board; do
  read -r expected <&3
  body=$(curl -sS "http://127.0.0.1:$http_port/v1/solve?puzzle=eight&state=$board")
  if [ "$expected" = -1 ]; then
    echo "$body" | grep -q '"outcome": *"UNSOLVABLE"' || { echo "HTTP $board: $body" >&2; exit 1; }
  else
    echo "$body" | grep -q "\"distance\": *$expected[,}]" || { echo "HTTP $board: $body, not $expected" >&2; exit 1; }
  fi
done <"$src/tests/golden/eight.in"
say "the 8-puzzle's golden boards answered over HTTP as expected"

# ---- the embedding example, against the installed client package alone.
t_dev=$(date +%s)
in_root apt-get install -y -qq --no-install-recommends "$(deb_of libpuzzledb-client-dev)" cmake make g++ \
  >"$work/install-dev.log" 2>&1 || { cat "$work/install-dev.log" >&2; echo "apt-get install of libpuzzledb-client-dev failed" >&2; exit 1; }
say "libpuzzledb-client-dev, cmake and g++ installed in $(($(date +%s) - t_dev)) s"
cp -r "$src/examples/embedding" "$root/embedding"
in_root cmake -S /embedding -B /embedding/build >"$work/example.log" 2>&1 || { cat "$work/example.log" >&2; exit 1; }
link_started=$(date +%s%N)
in_root cmake --build /embedding/build >>"$work/example.log" 2>&1 || { cat "$work/example.log" >&2; exit 1; }
say "the example built in $((($(date +%s%N) - link_started) / 1000000)) ms, $(stat -c %s "$root/embedding/build/hint_service") bytes"
in_root ldd /embedding/build/hint_service >"$work/ldd.txt"
if grep -E 'rocksdb|zstd|deflate|snappy|lz4|bz2|not found' "$work/ldd.txt"; then
  echo "the example built against libpuzzledb-client-dev loads the engine's libraries (above)" >&2
  exit 1
fi
grep -qE 'libpuzzledb-client.so.0 => /(usr/)?lib/' "$work/ldd.txt" || { echo "the example does not load the installed client" >&2; exit 1; }
out=$(echo "1111111111000*10000100000" | in_root /embedding/build/hint_service "127.0.0.1:$grpc_port")
[ "$out" = "1111111111000*10000100000: 3 moves from the goal; play c1 (then 2); 1 optimal solution" ] ||
  { echo "the example answered: $out" >&2; exit 1; }
say "the example, linked against the installed client alone, answers: $out"
# The component core is another package: asking for it without it says which.
if in_root cmake -S /embedding -B /embedding/build-core -DHINT_SERVICE_VERIFY=ON >"$work/core.log" 2>&1; then
  echo "find_package(puzzledb COMPONENTS core) succeeded without libpuzzledb-core-dev" >&2
  exit 1
fi
grep -q 'libpuzzledb-core-dev' "$work/core.log" || { cat "$work/core.log" >&2; exit 1; }
# With it, the example checks each answer by the rules in-process (puzzledb::Verify): the
# package's computed dependencies are all the component needs.
in_root apt-get install -y -qq --no-install-recommends "$(deb_of libpuzzledb-core-dev)" \
  >"$work/install-core.log" 2>&1 || { cat "$work/install-core.log" >&2; echo "apt-get install of libpuzzledb-core-dev failed" >&2; exit 1; }
rm -rf "$root/embedding/build-core"
{ in_root cmake -S /embedding -B /embedding/build-core -DHINT_SERVICE_VERIFY=ON &&
  in_root cmake --build /embedding/build-core; } >"$work/core.log" 2>&1 || { cat "$work/core.log" >&2; exit 1; }
out=$(echo "1111111111000*10000100000" | in_root /embedding/build-core/hint_service "127.0.0.1:$grpc_port")
[ "$out" = "1111111111000*10000100000: 3 moves from the goal; play c1 (then 2); 1 optimal solution" ] ||
  { echo "the example with the core answered: $out" >&2; exit 1; }
say "the example with libpuzzledb-core-dev (answers verified in-process), $(stat -c %s "$root/embedding/build-core/hint_service") bytes, answers the same"

# ---- removing keeps the database and the settings; purging removes them.
kill "$server"
wait "$server" 2>/dev/null || true
server=""
in_root apt-get remove -y -qq puzzledb-server libpuzzledb-core-dev libpuzzledb-client-dev libpuzzledb-client0 >"$work/remove.log" 2>&1 ||
  { cat "$work/remove.log" >&2; exit 1; }
for f in /usr/bin/puzzledb-server /lib/systemd/system/puzzledb.service /usr/include/puzzledb/client.h; do
  [ ! -e "$root$f" ] || { echo "$f is left after removing the packages" >&2; exit 1; }
done
[ -f "$root/var/lib/puzzledb/db/CURRENT" ] || { echo "removing the package removed the database" >&2; exit 1; }
[ -f "$root/etc/default/puzzledb" ] || { echo "removing the package removed its settings" >&2; exit 1; }
in_root apt-get purge -y -qq puzzledb-server libpuzzledb-client0 >"$work/purge.log" 2>&1 || { cat "$work/purge.log" >&2; exit 1; }
[ ! -e "$root/var/lib/puzzledb" ] || { echo "purging left /var/lib/puzzledb" >&2; exit 1; }
[ ! -e "$root/etc/default/puzzledb" ] || { echo "purging left /etc/default/puzzledb" >&2; exit 1; }
left=$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'puzzledb*' 'libpuzzledb*' 2>/dev/null | grep -v '^un ' || true)
say "after the purge: /var/lib/puzzledb and /etc/default/puzzledb gone; packages left: ${left:-none}; the user puzzledb stays"
[ -z "$left" ] || { echo "dpkg still knows packages of puzzledb after the purge: $left" >&2; exit 1; }
left=$(find "$root" -xdev -name '*puzzledb*' ! -path "$root/debs/*" ! -path "$root/embedding/*" ! -path "$root/var/lib/dpkg/*" ! -path "$root/var/cache/*")
[ -z "$left" ] || { echo "files of puzzledb left after the purge: $left" >&2; exit 1; }
say "every step held"
# The root is a few hundred MB: gone once it passed (kept for a look when it failed).
cleanup
trap - EXIT
unmount_all
rm -rf --one-file-system "$root"
