#!/usr/bin/python3
"""What replicas add (docs/PERFORMANCE.md, "Replicas"): throughput of knight table answers
and of fifteen-puzzle searches against one replica directly and against three behind nginx,
in the same run, rounds interleaved, with each replica's share of the calls.

    /usr/bin/python3 bench/replicas.py BUILD_DIR DB_DIR [--seconds S] [--rounds N]
        [--boards N] [--walk WALK] [--nginx /usr/sbin/nginx]

Three replicas (puzzledb-server over copies of DB_DIR) and nginx (with the configuration the
build writes, build/deploy/nginx/puzzledb.conf, its addresses changed) run on loopback ports
of their own, in a scratch directory, and are stopped at the end. The knight load is
`puzzledb bench` (unary calls, 8 callers) for S seconds; the fifteen load is one
`puzzledb solve --max-moves 0` run over BOARDS boards made by random walks of WALK moves
from the goal (40 to 58 moves from it for the default 150; each a search of tens of
milliseconds over the pattern tables), sent as SolveBatch calls, which nginx spreads. The shares are each replica's
puzzledb_calls_total over the round (its /metrics). On a machine with fewer cores than
replicas, the CPU bounds what the three can add.
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from server_process import free_port, start_server, stop  # noqa: E402  (tests/server_process.py)


def calls(http_port: int, method: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/metrics", timeout=30) as r:
        text = r.read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith("puzzledb_calls_total{") and f'method="{method}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_nginx(nginx: str, conf_template: str, scratch: str, grpc_ports, http_ports):
    """(process, gRPC port) of nginx in front of the replicas, as the test starts it."""
    conf = open(conf_template).read()
    for i, (g, h) in enumerate(zip(grpc_ports, http_ports), start=1):
        conf = conf.replace(f"server 127.0.0.1:5005{i} ", f"server 127.0.0.1:{g} ")
        conf = conf.replace(f"server 127.0.0.1:808{i} ", f"server 127.0.0.1:{h} ")
    conf = re.sub(r"include /[^;]*\*\.map;", f"include {scratch}/tables.d/*.map;", conf)
    os.makedirs(f"{scratch}/logs", exist_ok=True)
    for attempt in range(5):
        port, http = free_port(), free_port()
        ours = conf.replace("listen 127.0.0.1:50050 ", f"listen 127.0.0.1:{port} ")
        ours = ours.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{http};")
        with open(f"{scratch}/puzzledb.conf", "w") as f:
            f.write(ours)
        main = (f"daemon off;\nworker_processes 1;\npid {scratch}/nginx.pid;\n"
                f"error_log {scratch}/logs/error.log warn;\n")
        if os.geteuid() == 0:
            main += "user root;\n"
        main += "events { worker_connections 1024; }\nhttp {\n  access_log off;\n"
        for temp in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            main += f"  {temp}_temp_path {scratch}/{temp};\n"
        main += f"  include {scratch}/puzzledb.conf;\n}}\n"
        with open(f"{scratch}/nginx.conf", "w") as f:
            f.write(main)
        process = subprocess.Popen([nginx, "-p", scratch, "-c", f"{scratch}/nginx.conf",
                                    "-e", f"{scratch}/logs/error.log"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(500):
            if process.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return process, port
            except OSError:
                time.sleep(0.01)
        stop(process)
    raise SystemExit("nginx did not start: " + open(f"{scratch}/logs/error.log").read())


class Cpu:
    """CPU seconds used from now on by the replicas, nginx and this script's children."""

    def __init__(self, replicas, nginx):
        self.pids = [r[0].pid for r in replicas], nginx.pid
        self.start = self.now()

    def now(self):
        replicas, nginx = self.pids
        workers = [int(p) for p in open(f"/proc/{nginx}/task/{nginx}/children").read().split()]
        return (sum(cpu_seconds(p) for p in replicas),
                cpu_seconds(nginx) + sum(cpu_seconds(w) for w in workers), children_cpu())

    def used(self):
        return [b - a for a, b in zip(self.start, self.now())]


def fifteen_input(count: int, walk: int) -> str:
    """`count` boards from random walks of `walk` moves from the goal (no move undone), in
    the original input format."""
    rng = random.Random(20261201)
    lines = [str(count)]
    for _ in range(count):
        cells = list(range(1, 16)) + [0]
        blank, last = 15, -1
        for _ in range(walk):
            moves = [m for m in (-4, 4, -1, 1)
                     if 0 <= blank + m < 16 and (m in (-4, 4) or (blank + m) // 4 == blank // 4)
                     and blank + m != last]
            m = rng.choice(moves)
            cells[blank], cells[blank + m] = cells[blank + m], cells[blank]
            last, blank = blank, blank + m
        for row in range(4):
            lines.append(" ".join(str(c) for c in cells[4 * row:4 * row + 4]))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("db")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--boards", type=int, default=60)
    parser.add_argument("--walk", type=int, default=150)
    parser.add_argument("--nginx", default="/usr/sbin/nginx")
    args = parser.parse_args()
    cli = os.path.join(args.build, "client", "puzzledb")
    server = os.path.join(args.build, "server", "puzzledb-server")
    scratch = tempfile.mkdtemp(prefix="puzzledb-replicas-bench-")
    processes = []
    try:
        replicas = []  # (process, gRPC port, HTTP port)
        for i in range(3):
            folder = os.path.join(scratch, f"replica{i}")
            os.makedirs(folder)
            process, http_port, log = start_server(server, args.db, folder, "--drain", "0")
            processes.append(process)
            grpc_port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log).read()).group(1))
            replicas.append((process, grpc_port, http_port))
        nginx, nginx_port = start_nginx(
            args.nginx, os.path.join(args.build, "deploy", "nginx", "puzzledb.conf"),
            os.path.join(scratch, "nginx"), [r[1] for r in replicas], [r[2] for r in replicas])
        processes.append(nginx)
        boards = fifteen_input(args.boards, args.walk)
        targets = [("one replica", f"127.0.0.1:{replicas[0][1]}"),
                   ("three behind nginx", f"127.0.0.1:{nginx_port}")]
        results = {(name, load): [] for name, _ in targets for load in ("knight", "fifteen")}
        for round_ in range(args.rounds):
            for name, target in targets:
                cpu = Cpu(replicas, nginx)
                before = [calls(r[2], "Solve") for r in replicas]
                run = subprocess.run([cli, "--server", target, "bench", "--mode", "unary",
                                      "--concurrency", "8", "--seconds", str(args.seconds),
                                      "--json"], capture_output=True, text=True, check=True)
                report = json.loads(run.stdout)
                shares = [calls(r[2], "Solve") - b for r, b in zip(replicas, before)]
                results[(name, "knight")].append((report["throughput"], shares,
                                                  report["errors"], cpu.used()))
                cpu = Cpu(replicas, nginx)
                before = [calls(r[2], "SolveBatch") for r in replicas]
                start = time.monotonic()
                run = subprocess.run([cli, "--server", target, "solve", "--puzzle", "fifteen",
                                      "--max-moves", "0"],
                                     input=boards, capture_output=True, text=True)
                wall = time.monotonic() - start
                if run.returncode != 0:
                    raise SystemExit(f"puzzledb solve failed: {run.stderr}")
                shares = [calls(r[2], "SolveBatch") - b for r, b in zip(replicas, before)]
                results[(name, "fifteen")].append((args.boards / wall, shares, 0, cpu.used()))
        print(f"{os.cpu_count()} cores; {args.rounds} rounds, interleaved; knight: "
              f"puzzledb bench, 8 unary callers, {args.seconds:g} s; fifteen: {args.boards} "
              f"boards (random walks of {args.walk} moves), one puzzledb solve run")
        print(f"{'load':<8} {'target':<20} {'answers/s (each round)':<34} "
              f"shares of the calls (replica 1/2/3, each round)")
        for load, unit in (("knight", "answers/s"), ("fifteen", "boards/s")):
            for name, _ in targets:
                rows = results[(name, load)]
                rates = ", ".join(f"{rate:,.0f}" if rate >= 100 else f"{rate:.1f}"
                                  for rate, _, _, _ in rows)
                shares = "; ".join("/".join(f"{100 * s / max(sum(sh), 1):.0f}%" for s in sh)
                                   for _, sh, _, _ in rows)
                errors = sum(e for _, _, e, _ in rows)
                print(f"{load:<8} {name:<20} {rates:<34} {shares}"
                      + (f"  ({errors} errors)" if errors else ""))
                # Where the two cores went, summed over the rounds.
                spent = [sum(c[i] for _, _, _, c in rows) for i in range(3)]
                print(f"{'':<8} {'':<20} CPU seconds: replicas {spent[0]:.1f}, nginx "
                      f"{spent[1]:.1f}, client {spent[2]:.1f}")
            ratio = [three[0] / one[0] for one, three in
                     zip(results[("one replica", load)], results[("three behind nginx", load)])]
            print(f"{load:<8} {'three / one':<20} " + ", ".join(f"{r:.2f}" for r in ratio))
    finally:
        for process in reversed(processes):
            stop(process)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main()
