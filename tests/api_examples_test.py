#!/usr/bin/python3
"""docs/API.md's examples against a real server (ctest api_examples): every row of the
"Compact forms" table is the server's own (`GET /v1/puzzles`: its example, or its goal where
the row says "the goal") and answers in the moves it claims, and every one-line
`curl '...'` of the document answers 200, with the distance and moves its comment gives
(`# distance 3: U R D`).

    api_examples_test.py SOURCE_DIR SERVER DB
"""

import json
import os
import re
import sys
import tempfile
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_process import start_server, stop  # noqa: E402

SOURCE, SERVER, DB = sys.argv[1:4]
del sys.argv[1:4]

with open(os.path.join(SOURCE, "docs/API.md"), encoding="utf-8") as f:
    API = f.read()


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class ApiExamplesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.server, cls.port, cls.log = start_server(SERVER, DB, cls.scratch.name)
        status, listed = get(cls.port, "/v1/puzzles")
        assert status == 200, listed
        cls.puzzles = {p["name"]: p for p in listed["puzzles"]}

    @classmethod
    def tearDownClass(cls):
        stop(cls.server)
        cls.scratch.cleanup()

    def test_compact_forms_table_is_the_servers(self):
        section = API[API.index("### Compact forms"):API.index("### Scrambles")]
        rows = re.findall(
            r"^\| (`[a-z0-9]+`|a definition) \|[^\n]*\| `([^`]+)`(?: \(([^)]*)\))? \|$",
            section, re.M)
        self.assertGreaterEqual(len(rows), len(self.puzzles) - 2)
        named = set()
        for first, example, claim in rows:
            if first == "a definition":
                name = re.search(r"`([a-z0-9]+)`", claim).group(1)
            else:
                name = first.strip("`")
            named.add(name)
            with self.subTest(puzzle=name):
                self.assertIn(name, self.puzzles, f"docs/API.md shows {name}, the server has none")
                info = self.puzzles[name]
                state = urllib.parse.unquote_plus(example)
                if "…" in state:
                    self.assertTrue(info["example"].startswith(state.split("…")[0].rstrip()),
                                    f"{state} does not begin the server's example {info['example']}")
                    continue
                if claim == "the goal":
                    self.assertEqual(state, info["goal"])
                elif first != "a definition":
                    self.assertEqual(state, info["example"],
                                     "the table's example is not the one the server lists")
                status, answer = get(self.port, "/v1/solve?" + urllib.parse.urlencode(
                    {"puzzle": name, "state": state, "max_moves": 0}))
                self.assertEqual(status, 200, answer)
                moves = re.search(r"(\d+) moves?", claim)
                if claim == "the goal" or moves:
                    expected = 0 if claim == "the goal" else int(moves.group(1))
                    self.assertEqual(answer.get("distance", 0), expected, answer)
        # Every built-in puzzle has its row.
        for name, info in self.puzzles.items():
            if not info.get("definition"):
                self.assertIn(name, named, f"the Compact forms table has no row for {name}")

    def test_every_curl_line_answers_as_its_comment_says(self):
        lines = re.findall(r"^curl '(http://127\.0\.0\.1:8080[^']*)'(.*)$", API, re.M)
        self.assertGreaterEqual(len(lines), 7)
        for url, comment in lines:
            with self.subTest(url=url):
                path = url[len("http://127.0.0.1:8080"):]
                status, answer = get(self.port, path)
                self.assertEqual(status, 200, answer)
                claim = re.search(r"# distance (\d+): (.*)$", comment)
                if claim:
                    self.assertEqual(answer.get("distance", 0), int(claim.group(1)), answer)
                    self.assertEqual(" ".join(answer.get("moves", [])), claim.group(2).strip())


if __name__ == "__main__":
    unittest.main(verbosity=2)
