#!/usr/bin/python3
"""Target 5 of the fifteen puzzle (docs/PERFORMANCE.md): one Korf instance (the 60th, 66
moves, the most nodes of the hundred) answered in-process (fifteen_bench), over gRPC (the
Python client, unary calls one after another) and over HTTP (one keep-alive connection),
REPEAT times each, in ROUNDS interleaved rounds, against a server this script starts on
loopback ports of its own and stops.

    /usr/bin/python3 bench/fifteen_transports.py BUILD_DIR DB_DIR [--repeat N] [--rounds N]
        [--search-priority low|normal|idle]

(Debian's interpreter, which has python3-grpcio.)
"""
import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("db")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--search-priority", default="low", choices=["low", "normal", "idle"])
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import puzzledb

    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")
    boards = [l for l in open(os.path.join(golden, "fifteen_korf100.txt")) if not l.startswith("#")]
    fields = boards[59].split()
    cells = [int(x) for x in fields[:16]]
    distance = int(fields[16])
    work = tempfile.mkdtemp()
    board_file = os.path.join(work, "boards.txt")
    with open(board_file, "w") as f:
        f.write(boards[59] * args.repeat)
    grpc_address = f"127.0.0.1:{free_port()}"
    http_port = free_port()
    log = open(os.path.join(work, "server.log"), "w")
    server = subprocess.Popen(
        [os.path.join(args.build, "server", "puzzledb-server"), "--db", args.db,
         "--listen", grpc_address, "--http", f"127.0.0.1:{http_port}",
         "--search-priority", args.search_priority], stderr=log)
    try:
        client = puzzledb.Client(grpc_address, timeout=60)
        for _ in range(200):
            try:
                client.tables()
                break
            except Exception:
                if server.poll() is not None:
                    sys.exit("puzzledb-server did not start: " + open(log.name).read())
                time.sleep(0.1)
        connection = http.client.HTTPConnection("127.0.0.1", http_port)
        path = "/v1/solve?puzzle=fifteen&max_moves=0&state=" + ",".join(map(str, cells))
        # Warm-up: the server loads its tables and builds its perimeter on first use.
        client.solve(puzzledb.fifteen(cells))
        connection.request("GET", path)
        connection.getresponse().read()
        for round_number in range(1, args.rounds + 1):
            out = subprocess.run(
                [os.path.join(args.build, "bench", "fifteen_bench"), "--db", args.db,
                 "--boards", board_file, "--no-baseline", "--threads", "1"],
                check=True, capture_output=True, text=True).stdout
            inprocess = float(re.search(r"^solver: +\d+ boards, ([0-9.]+) s in all", out, re.M).group(1))
            start = time.perf_counter()
            for _ in range(args.repeat):
                answer = client.solve(puzzledb.fifteen(cells))
                assert answer.distance == distance, answer
            grpc_seconds = time.perf_counter() - start
            start = time.perf_counter()
            for _ in range(args.repeat):
                connection.request("GET", path)
                response = connection.getresponse()
                body = response.read()
                assert response.status == 200 and f'"distance":{distance}' in body.decode(), body
            http_seconds = time.perf_counter() - start
            print(f"round {round_number}: {args.repeat} solves  in-process {inprocess:.3f} s  "
                  f"gRPC {grpc_seconds:.3f} s ({grpc_seconds / inprocess:.2f}x)  "
                  f"HTTP {http_seconds:.3f} s ({http_seconds / inprocess:.2f}x)", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
