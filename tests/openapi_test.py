"""docs/openapi.json against the OpenAPI specification, the proto and the real server
(ctest openapi).

    python3 tests/openapi_test.py NODE VALIDATE_MJS DOC PYTHON_DIR SERVER DB VERSION

- The document is valid OpenAPI 3.1, every $ref resolving (NODE runs VALIDATE_MJS, which
  uses the npm validator pinned in tests/openapi/package-lock.json).
- Its schemas are JSON Schema 2020-12, and each message's schema has exactly the proto's
  fields, of the proto's kinds (the descriptors of PYTHON_DIR's puzzledb/v1/solver_pb2).
- A real server (SERVER over a copy of DB, on loopback) serves it at /v1/openapi.json, and
  every endpoint's real answers, errors included, have a status the document lists for that
  method and path and a body and headers its schemas accept (Debian's python3-jsonschema,
  with no extra field allowed). So an answer that gains a field, or a status nobody
  documented, fails here; so does a request the server accepts and the document refuses.
"""

import copy
import gzip
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

NODE, VALIDATE_MJS, DOC, PYTHON_DIR, SERVER, DB, VERSION = sys.argv[1:8]
del sys.argv[1:8]
try:
    import jsonschema
except ImportError:
    sys.exit("python3-jsonschema is not installed: run scripts/bootstrap")
if not os.path.isdir(os.path.join(os.path.dirname(VALIDATE_MJS), "node_modules",
                                  "@seriousme", "openapi-schema-validator")):
    sys.exit("the OpenAPI validator (tests/openapi/node_modules) is not installed: run "
             "scripts/bootstrap")
sys.path.insert(0, PYTHON_DIR)
from puzzledb.v1 import solver_pb2  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor  # noqa: E402

import server_process  # noqa: E402  (tests/server_process.py, beside this file)
from server_process import stop  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
SCHEMAS = "#/components/schemas/"

KNIGHT = "1111111111000*10000100000"
ROTATION = "233233121112233123123112"
EIGHT = "283104765"
FIFTEEN = "2340157896acdebf"  # the statement's sample, 9 moves
FIFTEEN_HARD = "0,11,9,13,12,15,10,14,3,7,6,2,4,8,5,1"  # 80 moves (golden/fifteen_80.txt)


def knobs_compact() -> str:
    with open(os.path.join(GOLDEN, "knobs_9001.in")) as f:
        return " ".join(f.read().split())


def knobs_message() -> dict:
    numbers = [int(n) for n in knobs_compact().split()]
    rows = [numbers[i:i + 5] for i in range(0, 60, 5)]
    return {"positions": [r[0] for r in rows], "wiring": [n for r in rows for n in r[1:]]}


class Answer:
    """What the server sent back to one request; a gzipped body decoded (docs/API.md,
    "Compression"), so that compressed answers are checked as any other."""

    compressed = 0  # answers that came gzipped, over the whole run

    def __init__(self, status: int, headers: dict, body: bytes):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.sent_bytes = len(body)
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
            Answer.compressed += 1
        self.body = body

    def json(self):
        return json.loads(self.body)


def raw_request(port: int, data: bytes, timeout: float = 30) -> Answer:
    """Sends `data` as is and reads one answer (for requests http.client will not send)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = s.recv(65536)
            if not chunk:
                break
            received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip()] = value.strip()
        length = int(headers.get("Content-Length", "0"))
        while len(body) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
        return Answer(status, headers, body)


def schema_name(enum) -> str:
    """An enum's schema name: its own, after its message's when it is nested."""
    return (enum.containing_type.name if enum.containing_type else "") + enum.name


class Checker:
    """Holds answers to an OpenAPI document (a copy may be altered to see a check fail)."""

    def __init__(self, document: dict):
        self.doc = document
        self.resolver = jsonschema.RefResolver.from_schema(document)

    def resolve(self, node: dict) -> dict:
        while "$ref" in node:
            node = self.resolver.resolve(node["$ref"])[1]
        return node

    def validate(self, instance, schema: dict, where: str) -> None:
        validator = jsonschema.Draft202012Validator(schema, resolver=self.resolver)
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        if errors:
            detail = "; ".join(
                f"at /{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
                for e in errors[:5])
            raise AssertionError(f"{where}: not what docs/openapi.json says: {detail}")

    def response_of(self, method: str, path: str, status: int) -> dict:
        """The document's response object for this status, or AssertionError."""
        item = self.doc["paths"].get(path)
        where = f"{method} {path}"
        if item is None:
            if status != 404:
                raise AssertionError(f"{where}: an undocumented path answered {status}, not 404")
            return self.resolve({"$ref": "#/components/responses/NotFound"})
        operation = item.get(method.lower())
        if operation is None:
            if status != 405:
                raise AssertionError(f"{where}: an undocumented method answered {status}, "
                                     f"not 405")
            return self.resolve({"$ref": "#/components/responses/MethodNotAllowed"})
        response = operation["responses"].get(str(status))
        if response is None:
            raise AssertionError(f"{where}: status {status} is not documented (the document "
                                 f"lists {', '.join(operation['responses'])})")
        return self.resolve(response)

    def check(self, method: str, target: str, answer: Answer, request_body=None) -> None:
        path = urllib.parse.urlsplit(target).path
        where = f"{method} {path} -> {answer.status}"
        response = self.response_of(method, path, answer.status)
        for name, header in response.get("headers", {}).items():
            header = self.resolve(header)
            value = answer.headers.get(name.lower())
            if value is None:
                if header.get("required"):
                    raise AssertionError(f"{where}: header {name} is missing")
                continue
            self.validate(value, header["schema"], f"{where}, header {name}")
        content = response.get("content")
        if method == "HEAD" or not content:
            if answer.body:
                raise AssertionError(f"{where}: a body the document does not have")
            return
        media = answer.headers.get("content-type", "").split(";")[0].strip()
        if media not in content:
            raise AssertionError(f"{where}: Content-Type {media!r} is not documented "
                                 f"({', '.join(content)})")
        schema = content[media]["schema"]
        body = json.loads(answer.body) if media == "application/json" else answer.body.decode()
        self.validate(body, schema, where)
        if request_body is not None and 200 <= answer.status < 300:
            operation = self.doc["paths"][path][method.lower()]
            request_schema = operation["requestBody"]["content"]["application/json"]["schema"]
            self.validate(request_body, request_schema, f"{method} {path}, the request")

    def parameter_names(self, method: str, path: str) -> list:
        operation = self.doc["paths"][path][method.lower()]
        names = []
        for p in operation.get("parameters", []):
            p = self.resolve(p)
            if p["in"] == "query":
                names.append(p["name"])
        return names


def start_server(scratch: str, *flags: str):
    return server_process.start_server(SERVER, DB, scratch, *flags)


with open(DOC) as f:
    DOCUMENT_TEXT = f.read()
DOCUMENT = json.loads(DOCUMENT_TEXT)


class DocumentTest(unittest.TestCase):
    """The document on its own, and against the proto."""

    def test_api_md_lists_the_statuses_the_document_does(self):
        # docs/API.md's table of errors ("### Errors") against every error status an
        # operation lists, with 405 (components/responses/MethodNotAllowed: any method a path
        # does not take) and 403 (a CORS preflight's refusal: the document leaves preflights
        # out) beside them.
        with open(os.path.join(os.path.dirname(DOC), "API.md")) as f:
            api = f.read()
        errors = api[api.index("\n### Errors\n"):]
        errors = errors[:errors.index("\n### ", 5)]
        in_prose = {int(s) for s in re.findall(r"^\| (\d{3}) \|", errors, re.M)}
        listed = {int(status) for item in DOCUMENT["paths"].values() for op in item.values()
                  for status in op["responses"] if int(status) >= 400}
        self.assertIn("MethodNotAllowed", DOCUMENT["components"]["responses"])
        self.assertEqual(in_prose, listed | {403, 405})

    def test_is_valid_openapi_with_every_ref_resolving(self):
        run = subprocess.run([NODE, VALIDATE_MJS, DOC], capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("valid OpenAPI 3.1", run.stdout)
        # The validator can say no: the same document with one dangling $ref.
        broken = copy.deepcopy(DOCUMENT)
        broken["paths"]["/v1/solve"]["post"]["responses"]["200"]["content"][
            "application/json"]["schema"] = {"$ref": SCHEMAS + "NoSuchSchema"}
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(broken, f)
            f.flush()
            run = subprocess.run([NODE, VALIDATE_MJS, f.name], capture_output=True, text=True,
                                 timeout=120)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertIn("NoSuchSchema", run.stderr)

    def test_version_is_the_projects(self):
        self.assertEqual(DOCUMENT["info"]["version"], VERSION)

    def test_schemas_are_json_schema(self):
        for name, schema in DOCUMENT["components"]["schemas"].items():
            with self.subTest(schema=name):
                jsonschema.Draft202012Validator.check_schema(schema)

    def test_only_the_typed_messages_name_a_puzzle(self):
        """The document describes the generic shape: a puzzle's name is a string that
        GET /v1/puzzles lists. Only the first version's typed messages (the Puzzle oneof's
        fields and their schemas, and TableInfo.wiring, which repeats one) name puzzles."""
        oneof = solver_pb2.Puzzle.DESCRIPTOR.oneofs_by_name["kind"]
        names = [f.name for f in oneof.fields]
        typed = {f.message_type.name for f in oneof.fields}
        allowed = [("components", "schemas", t) for t in typed] + [
            ("components", "schemas", "Puzzle"),
            ("components", "schemas", "TableInfo", "properties", "wiring")]
        found = []

        def walk(node, path):
            if any(path[:len(a)] == a for a in allowed):
                return
            if isinstance(node, dict):
                for k, v in node.items():
                    walk(v, path + (k,))
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, path + (str(i),))
            elif isinstance(node, str):
                for name in names:
                    if re.search(r"\b" + name + r"\b", node, re.IGNORECASE):
                        found.append("/".join(path) + ": " + name)
        walk(DOCUMENT, ())
        self.assertEqual(found, [])

    def test_every_message_and_enum_is_described_field_for_field(self):
        schemas = DOCUMENT["components"]["schemas"]
        file = solver_pb2.DESCRIPTOR
        # ListTablesRequest is empty and GET /v1/tables takes no body.
        messages = {n: m for n, m in file.message_types_by_name.items()
                    if n != "ListTablesRequest"}
        # A nested enum's schema is named by its message and itself (Error.Code: ErrorCode).
        enums = dict(file.enum_types_by_name)
        for message in file.message_types_by_name.values():
            for enum in message.enum_types:
                enums[schema_name(enum)] = enum
        scalars = {"UInt64", "UInt64Input", "Int64", "Bytes", "HttpError"}
        self.assertEqual(set(schemas), set(messages) | set(enums) | scalars)
        for name, enum in enums.items():
            names = [v.name for v in enum.values]
            request_side = name in ("Policy", "MoveEncoding")
            wanted = names + list(range(len(names))) if request_side else names
            self.assertEqual(schemas[name]["enum"], wanted, name)
        for name, message in messages.items():
            with self.subTest(message=name):
                schema = schemas[name]
                self.assertIs(schema.get("additionalProperties"), False)
                self.assertEqual(set(schema["properties"]), {f.name for f in message.fields})
                for field in message.fields:
                    self.check_field(name, field, schema["properties"][field.name])

    def check_field(self, message: str, field, prop: dict) -> None:
        where = f"{message}.{field.name}"
        if field.label == FieldDescriptor.LABEL_REPEATED:
            self.assertEqual(prop.get("type"), "array", where)
            prop = prop["items"]
        t = field.type
        if t == FieldDescriptor.TYPE_MESSAGE and "oneOf" in prop and where == "SolveBatchResponse.responses":
            # A batch's failed request is written as its id and error alone: the message, or
            # that (docs/API.md, "Batches").
            self.assertEqual(prop["oneOf"][0].get("$ref"), SCHEMAS + field.message_type.name, where)
            self.assertEqual(prop["oneOf"][1]["required"], ["id", "error"], where)
        elif t == FieldDescriptor.TYPE_MESSAGE:
            self.assertEqual(prop.get("$ref"), SCHEMAS + field.message_type.name, where)
        elif t == FieldDescriptor.TYPE_ENUM:
            self.assertEqual(prop.get("$ref"), SCHEMAS + schema_name(field.enum_type), where)
        elif t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
            wanted = "UInt64Input" if message.endswith("Request") else "UInt64"
            self.assertEqual(prop.get("$ref"), SCHEMAS + wanted, where)
        elif t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64):
            self.assertEqual(prop.get("$ref"), SCHEMAS + "Int64", where)
        elif t == FieldDescriptor.TYPE_BYTES:
            self.assertEqual(prop.get("$ref"), SCHEMAS + "Bytes", where)
        elif t == FieldDescriptor.TYPE_STRING:
            self.assertEqual(prop.get("type"), "string", where)
        elif t == FieldDescriptor.TYPE_BOOL:
            self.assertEqual(prop.get("type"), "boolean", where)
        elif t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            self.assertEqual(prop.get("type"), "number", where)
        elif t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_INT32):
            self.assertEqual(prop.get("type"), "integer", where)
        else:
            self.fail(f"{where}: a field type the document has no rule for ({t})")


class ServerAnswersTest(unittest.TestCase):
    """Real answers of every endpoint, errors included, against the document."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="puzzledb-openapi-")
        # A small node budget makes Korf's first board a 429; a short head timeout, a 408.
        cls.server, cls.port, cls.log = start_server(
            cls.scratch, "--drain", "0", "--search-node-budget", "3000000",
            "--http-head-timeout", "0.5", "--max-concurrent-searches", "1")
        cls.checker = Checker(DOCUMENT)
        cls.checked = []  # (method, path, status) of every answer checked

    @classmethod
    def tearDownClass(cls):
        stop(cls.server)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def call(self, method: str, target: str, body=None, headers=None,
             content_type="application/json") -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            # As a browser or curl --compressed asks: long answers come gzipped.
            sent = {"Accept-Encoding": "gzip", **(headers or {})}
            data = None
            if body is not None:
                data = body if isinstance(body, (bytes, str)) else json.dumps(body)
                if content_type:
                    sent["Content-Type"] = content_type
            connection.request(method, target, body=data, headers=sent)
            response = connection.getresponse()
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def expect(self, method: str, target: str, status: int, body=None,
               check_request=True, **kw) -> Answer:
        """The answer, checked against the document; and the request too when it was
        answered 2xx (unless it holds wrong items on purpose)."""
        answer = self.call(method, target, body, **kw)
        self.assertEqual(answer.status, status,
                         f"{method} {target[:120]}: {answer.body[:300]!r}")
        self.checker.check(method, target, answer,
                           body if check_request and isinstance(body, (dict, list)) else None)
        self.checked.append((method, urllib.parse.urlsplit(target).path, status))
        return answer

    def query(self, path: str, **params) -> str:
        return path + "?" + urllib.parse.urlencode(params)

    def test_the_served_document_is_the_file(self):
        answer = self.expect("GET", "/v1/openapi.json", 200)
        self.assertEqual(answer.json(), DOCUMENT)
        tag = answer.headers["etag"]
        self.expect("GET", "/v1/openapi.json", 304, headers={"If-None-Match": tag})
        self.expect("HEAD", "/v1/openapi.json", 200)

    def test_solve(self):
        for puzzle, state in [("knight", KNIGHT), ("knobs", knobs_compact()),
                              ("rotation", ROTATION), ("eight", EIGHT),
                              ("fifteen", FIFTEEN)]:
            with self.subTest(puzzle=puzzle):
                answer = self.expect("GET", self.query("/v1/solve", puzzle=puzzle, state=state),
                                     200)
                self.assertEqual(answer.json()["outcome"], "SOLVED")
        counted = self.expect("GET", self.query("/v1/solve", puzzle="eight", state=EIGHT,
                                                count=1, max_solutions=3, id=7,
                                                policy="table_only", max_moves=30), 200)
        self.assertEqual(counted.json()["id"], "7")
        tag = counted.headers["etag"]
        self.expect("GET", self.query("/v1/solve", puzzle="eight", state=EIGHT, count=1,
                                      max_solutions=3, id=7, policy="table_only",
                                      max_moves=30), 304, headers={"If-None-Match": tag})
        self.expect("HEAD", self.query("/v1/solve", puzzle="eight", state=EIGHT), 200)
        self.expect("GET", self.query("/v1/solve", puzzle="knight", state=KNIGHT, max_moves=2),
                    200)
        self.expect("GET", self.query("/v1/solve", puzzle="eight", state="28310476"), 400)
        # A move sequence from the goal instead of a state.
        scrambled = self.expect("GET", self.query("/v1/solve", puzzle="eight", scramble="U L D"),
                                200).json()
        self.assertEqual((scrambled["distance"], scrambled["moves"]), (3, ["U", "R", "D"]))
        self.expect("GET", self.query("/v1/analyze", puzzle="eight", scramble="U L"), 200)
        self.expect("GET", self.query("/v1/solve", puzzle="eight", scramble="U X"), 400)
        self.expect("POST", "/v1/solve", 200, {"puzzle": {"name": "eight", "scramble": "U L"}})
        self.expect("POST", "/v1/solve", 400, {"puzzle": {"eight": {"board": EIGHT},
                                                          "scramble": "U L"}})
        self.expect("GET", self.query("/v1/solve", puzzle="fifteen", state=FIFTEEN,
                                      policy="table_only"), 412)
        self.expect("GET", self.query("/v1/solve", puzzle="fifteen", state=FIFTEEN_HARD,
                                      timeout_ms=1), 504)
        self.expect("GET", self.query("/v1/solve", puzzle="fifteen", state=FIFTEEN_HARD), 429)
        self.expect("POST", "/v1/solve", 200, {
            "puzzle": {"eight": {"board": EIGHT}}, "max_moves": 0, "id": "12",
            "policy": "TABLE_THEN_SEARCH", "move_encoding": "MOVE_CODES",
            "count_solutions": True, "max_solutions": 2})
        self.expect("POST", "/v1/solve", 200, {"puzzle": {"knobs": knobs_message()},
                                               "id": 5, "policy": 0})
        self.expect("POST", "/v1/solve", 200, {"puzzle": {"rotation": {
            "cells": [int(c) for c in ROTATION]}}})
        self.expect("POST", "/v1/solve", 200, {"puzzle": {"fifteen": {
            "cells": [int(c, 16) for c in FIFTEEN]}}})
        self.expect("POST", "/v1/solve", 200, {"puzzle": {"knight": {"board": KNIGHT}},
                                               "timeout_ms": 5000})
        self.expect("POST", "/v1/solve", 400, {"puzzle": {"eight": {"board": EIGHT}},
                                               "extra": 1})
        self.expect("POST", "/v1/solve", 400, {"puzzle": {"eight": {"board": EIGHT}},
                                               "batch": {"requests": []}})
        self.expect("POST", "/v1/solve", 415, {"puzzle": {"eight": {"board": EIGHT}}},
                    content_type="text/plain")

    def test_analyze(self):
        self.expect("GET", self.query("/v1/analyze", puzzle="knight", state=KNIGHT), 200)
        self.expect("GET", self.query("/v1/analyze", puzzle="eight", state=EIGHT, count=1,
                                      id=3, policy="TABLE_ONLY", max_moves=10), 200)
        self.expect("HEAD", self.query("/v1/analyze", puzzle="rotation", state=ROTATION), 200)
        self.expect("GET", self.query("/v1/analyze", puzzle="eight", state=EIGHT, count=2), 400)
        self.expect("POST", "/v1/analyze", 200, {"puzzle": {"eight": {"board": EIGHT}},
                                                 "count_solutions": True, "id": "9"})
        self.expect("POST", "/v1/analyze", 412, {"puzzle": {"fifteen": {
            "cells": [int(c, 16) for c in FIFTEEN]}}, "policy": "TABLE_ONLY"})

    def test_sample(self):
        drawn = self.expect("GET", self.query("/v1/sample", puzzle="knight", distance="max",
                                              count=2, seed=1), 200)
        self.assertEqual(drawn.json()["distance"], 39)
        self.expect("GET", self.query("/v1/sample", puzzle="knobs", distance=5, count=2,
                                      state=knobs_compact()), 200)
        self.expect("GET", self.query("/v1/sample", puzzle="rotation", distance=3, count=1),
                    200)
        self.expect("GET", self.query("/v1/sample", puzzle="fifteen", distance="any",
                                      count=2, seed=4), 200)
        self.expect("GET", self.query("/v1/sample", puzzle="fifteen", distance=5, count=2), 200)
        self.expect("HEAD", self.query("/v1/sample", puzzle="eight", distance=2), 200)
        self.expect("GET", self.query("/v1/sample", puzzle="fifteen", distance=30), 412)
        self.expect("GET", self.query("/v1/sample", puzzle="eight", distance="far"), 400)
        self.expect("POST", "/v1/sample", 200, {"puzzle": {"eight": {"board": EIGHT}},
                                                "distance": 31, "count": 0, "seed": "3"})
        self.expect("POST", "/v1/sample", 200, {"puzzle": {"knobs": {
            "wiring": knobs_message()["wiring"]}}, "largest": True, "count": 1})

    def test_batch(self):
        requests = [
            {"puzzle": {"eight": {"board": EIGHT}}, "id": 1, "move_encoding": "MOVE_CODES"},
            {"puzzle": {"eight": {"board": "28310476"}}, "id": 2},
            {"puzzle": {"knight": {"board": KNIGHT}}, "id": "3", "count_solutions": True},
            {"puzzle": {"rotation": {"cells": [int(c) for c in ROTATION]}}, "id": 4},
            {"puzzle": {"fifteen": {"cells": [int(c, 16) for c in FIFTEEN]}}, "id": 5},
            {"puzzle": {"eight": {"board": EIGHT}}, "batch": {}},
        ]
        # Two of them are wrong on purpose (answered in band), so the request is not checked.
        answer = self.expect("POST", "/v1/solve/batch", 200, {"requests": requests},
                             check_request=False)
        responses = answer.json()["responses"]
        self.assertEqual([r["id"] for r in responses], ["1", "2", "3", "4", "5", "0"])
        self.assertEqual(responses[1]["error"]["code"], "INVALID_ARGUMENT")
        self.assertIn("error", responses[5])
        answer = self.expect("POST", "/v1/solve/batch", 200,
                             {"requests": requests[:1] + requests[2:5]})
        self.assertFalse(any("error" in r for r in answer.json()["responses"]))
        self.expect("POST", "/v1/solve/batch", 400, {"requests": [
            {"puzzle": {"eight": {"board": EIGHT}}}] * 10001})
        self.expect("POST", "/v1/solve/batch", 415, "{}", content_type=None)

    def test_tables_health_metrics_and_the_page(self):
        tables = self.expect("GET", "/v1/tables", 200)
        self.assertTrue(any(t["puzzle"] == "knobs" for t in tables.json()["tables"]))
        self.expect("HEAD", "/v1/tables", 200)
        self.expect("GET", "/healthz", 200)
        self.expect("HEAD", "/healthz", 200)
        self.expect("GET", "/metrics", 200)
        self.expect("HEAD", "/metrics", 200)
        for path in ["/", "/index.html", "/app.js", "/style.css"]:
            page = self.expect("GET", path, 200)
            self.expect("GET", path, 304, headers={"If-None-Match": page.headers["etag"]})
            self.expect("HEAD", path, 200)
        self.assertIn(b'href="/v1/openapi.json"', self.call("GET", "/").body)

    def test_puzzles(self):
        """GET /v1/puzzles lists what the tables list, and each example plays (its cells,
        set back through /v1/play, give the same position)."""
        puzzles = self.expect("GET", "/v1/puzzles", 200).json()["puzzles"]
        self.expect("HEAD", "/v1/puzzles", 200)
        tables = self.call("GET", "/v1/tables").json()["tables"]
        self.assertEqual({t["table_id"] for p in puzzles for t in p["tables"]},
                         {t["table_id"] for t in tables})
        for puzzle in puzzles:
            with self.subTest(puzzle=puzzle["name"]):
                played = self.expect("POST", "/v1/play", 200, {
                    "puzzle": puzzle["name"], "state": puzzle["example"]}).json()["states"][0]
                self.assertEqual(len(played["cells"]), len(puzzle["layout"]["cells"]))
                values = {s["value"] for s in puzzle["layout"]["symbols"]}
                self.assertTrue(set(played["cells"]) <= values)
                again = self.expect("POST", "/v1/play", 200, {
                    "puzzle": puzzle["name"], "state": puzzle["example"],
                    "cells": played["cells"]}).json()["states"][0]
                self.assertEqual(again["state"], played["state"])
                goal = self.expect("POST", "/v1/play", 200, {
                    "puzzle": puzzle["name"], "state": puzzle["goal"]}).json()["states"][0]
                self.assertTrue(goal["goal"])
                self.assertGreater(len(puzzle["move_names"]), 0)

    def test_parse_and_play(self):
        self.expect("POST", "/v1/parse", 200, {"puzzle": "eight",
                                               "input": EIGHT + "\n28310476\n"})
        self.expect("POST", "/v1/parse", 400, {"puzzle": "chess", "input": "e4"})
        self.expect("POST", "/v1/play", 200, {"puzzle": "eight", "state": EIGHT,
                                              "moves": ["U", "L"]})
        self.expect("POST", "/v1/play", 200, {"puzzle": "knight", "state": KNIGHT})
        self.expect("POST", "/v1/play", 400, {"puzzle": "eight", "state": EIGHT,
                                              "moves": ["X"]})

    def test_unknown_paths_methods_and_refused_requests(self):
        self.expect("GET", "/v1/nothing", 404)
        self.expect("POST", "/v2/solve", 404, {})
        allowed = self.expect("DELETE", "/v1/solve", 405)
        self.assertEqual(allowed.headers["allow"], "GET, HEAD, POST")
        self.expect("GET", "/v1/solve/batch", 405)
        self.expect("POST", "/healthz", 405, {})
        self.expect("GET", "/v1/solve?state=" + "1" * 9000, 414)
        self.expect("GET", "/v1/solve?puzzle=eight&state=%zz", 400)
        for target, data, status in [
                ("/healthz", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 17000
                 + b"\r\n\r\n", 431),
                ("/v1/solve", b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 b"application/json\r\nContent-Length: 70000\r\n\r\n", 413),
                ("/healthz", b"GET /healthz HTTP/1.1\r\nHost: x\r\n", 408)]:
            answer = raw_request(self.port, data)
            self.assertEqual(answer.status, status, answer.body)
            self.checker.check(data.split()[0].decode(), target, answer)
            self.checked.append((data.split()[0].decode(), target, status))

    def test_query_parameters_are_the_servers(self):
        # An unknown parameter's error lists the known ones: the document's, no more, no less.
        for path, params in [("/v1/solve", {"puzzle": "eight", "state": EIGHT}),
                             ("/v1/analyze", {"puzzle": "eight", "state": EIGHT}),
                             ("/v1/sample", {"puzzle": "eight", "distance": 3})]:
            with self.subTest(path=path):
                answer = self.expect("GET", self.query(path, bogus=1, **params), 400)
                known = answer.json()["message"].split("known: ")[1]
                names = [k.split()[0] for k in known.split(", ")]
                self.assertEqual(sorted(names),
                                 sorted(self.checker.parameter_names("GET", path)))

    def test_the_checks_catch_drift(self):
        # An answer with a field the document does not have, a document without a field the
        # answer has, and a status the document does not list: each is refused.
        target = self.query("/v1/solve", puzzle="eight", state=EIGHT)
        answer = self.call("GET", target)
        self.checker.check("GET", target, answer)
        grown = json.loads(answer.body)
        grown["cost"] = 1
        with self.assertRaisesRegex(AssertionError, "'cost' was unexpected"):
            self.checker.check("GET", target, Answer(200, answer.headers,
                                                     json.dumps(grown).encode()))
        shrunk = copy.deepcopy(DOCUMENT)
        del shrunk["components"]["schemas"]["SolveResponse"]["properties"]["micros"]
        shrunk["components"]["schemas"]["SolveResponse"]["required"].remove("micros")
        with self.assertRaisesRegex(AssertionError, "'micros' was unexpected"):
            Checker(shrunk).check("GET", target, answer)
        with self.assertRaisesRegex(AssertionError, "status 418 is not documented"):
            self.checker.check("GET", target, Answer(418, answer.headers, answer.body))
        del shrunk["paths"]["/v1/solve"]["get"]["responses"]["412"]
        refused = self.call("GET", self.query("/v1/solve", puzzle="fifteen", state=FIFTEEN,
                                              policy="table_only"))
        with self.assertRaisesRegex(AssertionError, "status 412 is not documented"):
            Checker(shrunk).check("GET", "/v1/solve", refused)


    def test_zz_every_documented_operation_was_called(self):
        # unittest runs a class's tests in the order of their names: this one last.
        called = {(method.lower(), path) for method, path, _ in self.checked}
        # Among the answers checked, compressed ones (the document, tables, batches, ...).
        self.assertGreater(Answer.compressed, 5)
        for path, item in DOCUMENT["paths"].items():
            for method in item:
                self.assertIn((method, path), called,
                              f"{method.upper()} {path} is documented but no test calls it")


class DrainingTest(unittest.TestCase):
    def test_health_turns_503_while_draining(self):
        scratch = tempfile.mkdtemp(prefix="puzzledb-openapi-drain-")
        try:
            server, port, _ = start_server(scratch, "--drain", "5")
            checker = Checker(DOCUMENT)
            server.send_signal(signal.SIGTERM)
            answer = None
            for _ in range(100):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request("GET", "/healthz")
                r = connection.getresponse()
                answer = Answer(r.status, dict(r.getheaders()), r.read())
                connection.close()
                if answer.status == 503:
                    break
                time.sleep(0.02)
            self.assertEqual(answer.status, 503)
            checker.check("GET", "/healthz", answer)
            stop(server)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


class MemoryBudgetTest(unittest.TestCase):
    """The 503 of a body the memory budget cannot take, as the document describes it."""

    def test_a_body_past_the_budget_is_a_documented_503(self):
        scratch = tempfile.mkdtemp(prefix="puzzledb-openapi-budget-")
        try:
            server, port, _ = start_server(scratch, "--memory-budget", "1M")
            checker = Checker(DOCUMENT)
            request = {"requests": [{"puzzle": {"eight": {"board": "123840765"}}}] * 10000}
            body = json.dumps(request).encode()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("POST", "/v1/solve/batch", body=body,
                               headers={"Content-Type": "application/json"})
            r = connection.getresponse()
            answer = Answer(r.status, dict(r.getheaders()), r.read())
            connection.close()
            self.assertEqual(answer.status, 503, answer.body[:300])
            self.assertEqual(answer.json()["code"], "RESOURCE_EXHAUSTED")
            self.assertIn("--memory-budget", answer.json()["message"])
            checker.check("POST", "/v1/solve/batch", answer)
            stop(server)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
