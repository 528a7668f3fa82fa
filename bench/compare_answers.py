#!/usr/bin/python3
"""Answers of two builds of puzzledb, compared byte for byte (timing fields aside).

    bench/compare_answers.py OLD_BIN_DIR NEW_BIN_DIR DB [--cases N] [--puzzles a,b]

Each BIN_DIR holds puzzledb and puzzledb-server (a build tree's client/ and server/ files
copied side by side will do). For every puzzle both builds answer, the same cases (drawn
with NEW's `puzzledb sample` at several distances, the goldens' parameters for a puzzle
that has them) are solved and analyzed by each build:

  - in-process: `puzzledb solve|analyze --json --db DB`, with --count and --all-optimal too;
  - over gRPC: NEW's command line against each build's server;
  - over HTTP: GET /v1/solve and /v1/analyze of every case's compact form, and one
    POST /v1/solve/batch of them all.

Every answer line must be the same once `micros` is dropped; the script prints a count per
puzzle and surface, and the first difference, and exits 1 if there is one.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Distances drawn for each puzzle: far enough to reach the searches, near enough that the
# fifteen puzzle's live searches stay short.
DISTANCES = {"fifteen": [6, 12, 18, 24, 30], "default": [1, 4, 8, 12, 16, 20, "max"]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def strip(obj):
    if isinstance(obj, dict):
        return {k: strip(v) for k, v in obj.items() if k != "micros"}
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def lines_of(text):
    out = []
    for line in text.splitlines():
        try:
            out.append(json.dumps(strip(json.loads(line)), sort_keys=True))
        except ValueError:
            out.append(line)
    return out


def run(cmd, stdin=""):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


class Server:
    def __init__(self, bin_dir, db):
        self.grpc = f"127.0.0.1:{free_port()}"
        self.http = f"127.0.0.1:{free_port()}"
        self.process = subprocess.Popen(
            [os.path.join(bin_dir, "puzzledb-server"), "--db", db, "--listen", self.grpc,
             "--http", self.http, "--no-build-missing-tables"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://{self.http}/healthz", timeout=2).read()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{bin_dir}: the server did not start")

    def get(self, path, params):
        url = f"http://{self.http}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def post(self, path, body):
        request = urllib.request.Request(f"http://{self.http}{path}", data=body.encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=300) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("db")
    parser.add_argument("--cases", type=int, default=400, help="cases per distance at most")
    parser.add_argument("--puzzles", default="", help="comma-separated; default: all of NEW's")
    args = parser.parse_args()
    old_cli = os.path.join(args.old, "puzzledb")
    new_cli = os.path.join(args.new, "puzzledb")

    # A server holds its database's lock: the old build's gets a copy.
    scratch = tempfile.TemporaryDirectory(prefix="puzzledb-compare-")
    old_db = os.path.join(scratch.name, "db")
    subprocess.run(["cp", "-r", args.db, old_db], check=True)
    servers = {}
    try:
        servers["old"] = Server(args.old, old_db)
        servers["new"] = Server(args.new, args.db)
        tables = json.loads(servers["new"].get("/v1/tables", {})[1])
        puzzles = sorted({t["puzzle"] for t in tables["tables"] if t.get("puzzle")})
        if args.puzzles:
            puzzles = args.puzzles.split(",")
        differences = 0
        for puzzle in puzzles:
            params_file = None
            folder = os.path.join(ROOT, "data", "params", puzzle)
            if os.path.isdir(folder):
                files = sorted(f for f in os.listdir(folder) if f.endswith(".in"))
                params_file = os.path.join(folder, files[0])
            cases = ""
            inputs = []  # each distance's cases, an original input of its own
            typed = []  # the same states as the first API version's typed messages
            for distance in DISTANCES.get(puzzle, DISTANCES["default"]):
                cmd = [new_cli, "sample", "--puzzle", puzzle, "--db", args.db, "--distance",
                       str(distance), "--count", str(args.cases), "--seed", "7"]
                if params_file:
                    cmd += ["--params", params_file]
                code, out, err = run(cmd)
                if code == 0:
                    cases += out
                    inputs.append(out)
                    code, out, err = run(cmd + ["--json"])
                    typed += json.loads(out)["states"]
            if not inputs:
                print(f"{puzzle}: no cases drawn")
                continue

            def compare(surface, a, b):
                nonlocal differences
                la, lb = lines_of(a), lines_of(b)
                same = la == lb
                print(f"{puzzle:9} {surface:48} {len(la):6} lines  {'same' if same else 'DIFFERENT'}")
                if not same:
                    differences += 1
                    for i, (x, y) in enumerate(zip(la, lb)):
                        if x != y:
                            print(f"  line {i + 1}:\n    old {x[:400]}\n    new {y[:400]}")
                            break
                    else:
                        print(f"  {len(la)} lines against {len(lb)}")

            def each_input(cmd):
                # Each distance's cases are an original input of their own (some puzzles'
                # inputs begin with their count of cases).
                out = ""
                for text in inputs:
                    code, stdout, stderr = run(cmd, text)
                    out += f"exit {code}\n{stdout}{stderr}"
                return out

            # In-process, and over gRPC against each server, with NEW's command line.
            for flags in (["solve"], ["solve", "--json"],
                          ["solve", "--json", "--count", "--all-optimal", "3"],
                          ["analyze", "--json"]):
                base = ["--puzzle", puzzle] + flags[1:]
                a = each_input([old_cli, flags[0], "--db", args.db] + base)
                b = each_input([new_cli, flags[0], "--db", args.db] + base)
                compare(f"in-process {' '.join(flags)}", a, b)
                a = each_input([new_cli, flags[0], "--server", servers["old"].grpc] + base)
                b = each_input([new_cli, flags[0], "--server", servers["new"].grpc] + base)
                compare(f"gRPC {' '.join(flags)}", a, b)
            # Over HTTP: every case's compact form (read by NEW's server) by GET, and all of
            # them in one batch by POST.
            states = []
            for text in inputs:
                parsed = json.loads(servers["new"].post(
                    "/v1/parse", json.dumps({"puzzle": puzzle, "input": text}))[1])
                states += [c["state"] for c in parsed["cases"] if c.get("state")]
            states = states[:2000]
            for path in ("/v1/solve", "/v1/analyze"):
                out = {}
                for side, server in servers.items():
                    answers = []
                    for state in states:
                        status, body = server.get(path, {"puzzle": puzzle, "state": state})
                        answers.append(f"{status} {json.dumps(strip(json.loads(body)), sort_keys=True)}")
                    out[side] = "\n".join(answers)
                compare(f"HTTP GET {path}", out["old"], out["new"])
            batch = json.dumps({"requests": [{"id": str(i), "puzzle": p}
                                             for i, p in enumerate(typed[:2000])]})
            bodies = {}
            for side, server in servers.items():
                status, body = server.post("/v1/solve/batch", batch)
                bodies[side] = f"{status} {json.dumps(strip(json.loads(body)), sort_keys=True)}"
            compare("HTTP POST /v1/solve/batch", bodies["old"], bodies["new"])
            print(f"{puzzle:9} {len(typed)} cases")
        return 1 if differences else 0
    finally:
        for server in servers.values():
            server.stop()
        scratch.cleanup()


if __name__ == "__main__":
    sys.exit(main())
