#!/usr/bin/python3
"""A client built from the first version's solver.proto (tests/compat/, as it was before the
generic form and ListPuzzles were added) against today's server: every call it can make,
with typed puzzles, answers field for field as it does for a client built from today's
proto (ctest first_version_client).

    first_version_client_test.py PROTOC SOURCE_DIR SERVER DB

Each client runs in a process of its own (both protos define puzzledb.v1 and Python keeps
one descriptor pool per process), calls the server through grpcio without stubs, and prints
every answer in protobuf's JSON mapping; `micros` aside, the two must be the same, and the
first version's client must parse every answer with no field it does not know.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import re  # noqa: E402

from server_process import start_server, stop  # noqa: E402

PROTOC, SOURCE, SERVER, DB = sys.argv[1:5]
del sys.argv[1:5]

# Calls of the first version, typed puzzles only: (method, request type, response type, JSON).
CALLS = [
    ("Solve", "SolveRequest", "SolveResponse",
     {"puzzle": {"knight": {"board": "11111011110011*0000100000"}}, "count_solutions": True}),
    ("Solve", "SolveRequest", "SolveResponse",
     {"puzzle": {"rotation": {"cells": [int(c) for c in "113231213132131232232213"]}},
      "max_solutions": 3}),
    ("Solve", "SolveRequest", "SolveResponse",
     {"puzzle": {"eight": {"board": "283104765"}}, "move_encoding": "MOVE_CODES"}),
    ("Solve", "SolveRequest", "SolveResponse",
     {"puzzle": {"fifteen": {"cells": [2, 3, 4, 0, 1, 5, 7, 8, 9, 6, 10, 12, 13, 14, 11, 15]}}}),
    ("Solve", "SolveRequest", "SolveResponse", {"puzzle": {"eight": {"board": "12345678"}}}),
    ("Analyze", "AnalyzeRequest", "AnalyzeResponse",
     {"puzzle": {"eight": {"board": "283104765"}}, "count_solutions": True}),
    ("Sample", "SampleRequest", "SampleResponse",
     {"puzzle": {"knight": {}}, "largest": True, "count": 3, "seed": "1"}),
    ("SolveBatch", "SolveBatchRequest", "SolveBatchResponse",
     {"requests": [{"puzzle": {"eight": {"board": "283104765"}}, "id": "1"},
                   {"puzzle": {"rotation": {"cells": [int(c) for c in "113231213132131232232213"]}},
                    "id": "2"},
                   {"puzzle": {"knight": {"board": "x"}}, "id": "3"}]}),
    ("ListTables", "ListTablesRequest", "ListTablesResponse", {}),
]

# google.rpc.Code's names, by number.
GRPC_CODES = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
              "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
              "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
              "UNAUTHENTICATED"]

CLIENT = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import grpc
from google.protobuf import json_format
from puzzledb.v1 import solver_pb2
channel = grpc.insecure_channel(sys.argv[2])
for method, request_type, response_type, body in json.load(sys.stdin):
    request = json_format.ParseDict(body, getattr(solver_pb2, request_type)())
    call = channel.unary_unary("/puzzledb.v1.Solver/" + method,
                               request_serializer=lambda m: m.SerializeToString(),
                               response_deserializer=lambda b: b)
    try:
        raw = call(request, timeout=60)
    except grpc.RpcError as e:
        print(json.dumps({"code": e.code().name, "message": e.details()}))
        continue
    response = getattr(solver_pb2, response_type)()
    response.ParseFromString(raw)
    # Every byte understood: what the client parsed serializes back to the same size.
    known = len(response.SerializeToString(deterministic=True))
    text = json_format.MessageToDict(response, preserving_proto_field_name=True)
    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k not in ("micros", "built_unix_micros")}
        if isinstance(o, list):
            return [strip(v) for v in o]
        return o
    print(json.dumps({"answer": strip(text), "bytes": len(raw), "known": known}, sort_keys=True))
'''


class FirstVersionClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="puzzledb-compat-")
        cls.modules = {}
        for name, proto in [("first", os.path.join(SOURCE, "tests/compat/solver_first_version.proto")),
                            ("today", os.path.join(SOURCE, "proto/puzzledb/v1/solver.proto"))]:
            root = os.path.join(cls.scratch, name)
            os.makedirs(os.path.join(root, "proto/puzzledb/v1"))
            shutil.copy(proto, os.path.join(root, "proto/puzzledb/v1/solver.proto"))
            os.makedirs(os.path.join(root, "py"))
            subprocess.run([PROTOC, "--proto_path", os.path.join(root, "proto"),
                            "--python_out", os.path.join(root, "py"), "puzzledb/v1/solver.proto"],
                           check=True)
            for package in ("puzzledb", "puzzledb/v1"):
                open(os.path.join(root, "py", package, "__init__.py"), "w").close()
            cls.modules[name] = os.path.join(root, "py")
        cls.server, _, log_path = start_server(SERVER, DB, cls.scratch)
        with open(log_path) as log:
            cls.grpc = re.search(r"listening on (127\.0\.0\.1:\d+)", log.read()).group(1)

    @classmethod
    def tearDownClass(cls):
        stop(cls.server)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def answers(self, which):
        run = subprocess.run([sys.executable, "-c", CLIENT, self.modules[which], self.grpc],
                             input=json.dumps(CALLS), capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        self.assertEqual(run.returncode, 0, run.stderr)
        return [json.loads(line) for line in run.stdout.splitlines()]

    @staticmethod
    def numbered(answer):
        """`answer` with in-band error codes as numbers: Error.code was an int32 in the first
        version and is an enum now, the same varint on the wire, a name in today's JSON."""
        if isinstance(answer, dict):
            out = {k: FirstVersionClientTest.numbered(v) for k, v in answer.items()}
            error = out.get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), str):
                error["code"] = GRPC_CODES.index(error["code"])
            return out
        if isinstance(answer, list):
            return [FirstVersionClientTest.numbered(v) for v in answer]
        return answer

    def test_the_first_versions_client_gets_todays_answers(self):
        first, today = self.answers("first"), self.answers("today")
        self.assertEqual(len(first), len(CALLS))
        for call, a, b in zip(CALLS, first, today):
            with self.subTest(call=call[0], body=json.dumps(call[3])[:80]):
                # The answers (their sizes differ with `micros`, a varint).
                self.assertEqual(a.get("answer", a), self.numbered(b.get("answer", b)))
                if "bytes" in a:
                    self.assertEqual(a["known"], a["bytes"], "a field the first version does not know")
        # The calls answered as they should: a solve, a refusal naming the field, a batch.
        self.assertEqual(first[0]["answer"]["outcome"], "SOLVED")
        self.assertEqual(first[4]["code"], "INVALID_ARGUMENT")
        self.assertIn("puzzle.eight.board", first[4]["message"])
        self.assertEqual(len(first[7]["answer"]["responses"]), 3)
        self.assertIn("error", first[7]["answer"]["responses"][2])


if __name__ == "__main__":
    unittest.main(verbosity=2)
