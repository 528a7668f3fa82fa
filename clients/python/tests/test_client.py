"""The Python client against a real puzzledb-server (ctest python_client).

    python3 -m unittest discover -s clients/python/tests   with the environment:
    PYTHONPATH=<build>/python  PUZZLEDB_SERVER=<puzzledb-server>  PUZZLEDB_CLI=<puzzledb>
    PUZZLEDB_DB=<a database built by puzzledb-build>  PUZZLEDB_CERTS_SCRIPT=tests/make_test_certs.sh

Every server is started here on free loopback ports, with a copy of the database, and
stopped at the end. Expected answers come from the command line over the same tables in
its own process, a path that shares no code with this client.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from typing import Callable

import grpc

import puzzledb
from puzzledb import PuzzledbError

KNIGHT = "11111011110011*0000100000"
EIGHT = "283104765"
ROTATION = "113231213132131232232213"
KNOBS = (
    "1 10 8 12 7 3 4 4 8 3 3 5 4 7 11 1 7 9 9 5 3 3 8 2 7 1 11 9 1 12 3 4 11 1 8 3 "
    "10 12 9 5 3 1 7 6 2 1 12 11 4 6 4 9 12 12 5 2 5 6 1 9"
)


def knobs_puzzle(compact: str):
    """The knobs' compact form: for knob 1..12 its state, then its four wired knobs."""
    numbers = [int(n) for n in compact.split()]
    positions = [numbers[5 * k] for k in range(12)]
    wiring = [n for k in range(12) for n in numbers[5 * k + 1 : 5 * k + 5]]
    return puzzledb.knobs(positions, wiring)


CASES = {
    "knight": (puzzledb.knight(KNIGHT), "1\n" + "\n".join(KNIGHT[i : i + 5] for i in range(0, 25, 5)) + "\n"),
    "eight": (puzzledb.eight(EIGHT), EIGHT + "\n"),
    "rotation": (puzzledb.rotation([int(c) for c in ROTATION]), " ".join(ROTATION) + "\n0\n"),
    "knobs": (knobs_puzzle(KNOBS), "\n".join(
        " ".join(KNOBS.split()[5 * k : 5 * k + 5]) for k in range(12)) + "\n"),
}


# The puzzles given as definitions that the test database holds (tests/CMakeLists.txt,
# build_test_db), with their samples: each .in line a state, each .out line the original
# output ("d moves").
DEFINITIONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                               "tests", "golden", "definitions")
DEFINED = ("slide32", "cube2urf")


def defined_sample(name: str) -> "list[tuple[str, str]]":
    """(state, original output line) of every case of a definition's sample."""
    with open(os.path.join(DEFINITIONS_DIR, name + ".in")) as f:
        states = f.read().splitlines()
    with open(os.path.join(DEFINITIONS_DIR, name + ".out")) as f:
        lines = f.read().splitlines()
    assert len(states) == len(lines) > 0, name
    return list(zip(states, lines))


def original_line(answer) -> str:
    """An answer as the original output prints it: -1, or the distance and the moves."""
    if answer.outcome != "SOLVED":
        return "-1"
    return " ".join([str(answer.distance)] + list(answer.moves))


def start_server(db: str, log_path: str, *extra: str,
                 listen: str = "127.0.0.1:0") -> "tuple[subprocess.Popen, str]":
    """A puzzledb-server on a free loopback port (or `listen`); its address from its
    start-up line."""
    with open(log_path, "w") as log:  # the server keeps its own copy of the descriptor
        process = subprocess.Popen(
            [os.environ["PUZZLEDB_SERVER"], "--db", db, "--listen", listen, "--http",
             "127.0.0.1:0", "--drain", "0", *extra],
            stdout=log, stderr=log)
    for _ in range(600):
        with open(log_path) as f:
            match = re.search(r"listening on (127\.0\.0\.1:\d+)", f.read())
        if match:
            return process, match.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    with open(log_path) as f:
        raise RuntimeError("puzzledb-server did not start:\n" + f.read())


def random_fifteen(rng: random.Random) -> "list[int]":
    """A solvable fifteen board drawn uniformly (0 is the blank)."""
    while True:
        cells = list(range(16))
        rng.shuffle(cells)
        tiles = [c for c in cells if c]
        inversions = sum(a > b for i, a in enumerate(tiles) for b in tiles[i + 1:])
        blank_row_from_bottom = 4 - cells.index(0) // 4
        if (inversions + blank_row_from_bottom) % 2 == 1:
            return cells


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_tls_server(scratch: str) -> "tuple[subprocess.Popen, str, Callable[[str], bytes]]":
    """A server in `scratch` that requires TLS and a client certificate, with test
    certificates made there; read(name) gives one of them (ca.pem, client.key, client.pem)."""
    certs = os.path.join(scratch, "certs")
    subprocess.run(["sh", os.environ["PUZZLEDB_CERTS_SCRIPT"], certs], check=True)
    db = os.path.join(scratch, "db")
    shutil.copytree(os.environ["PUZZLEDB_DB"], db)

    def read(name: str) -> bytes:
        with open(os.path.join(certs, name), "rb") as f:
            return f.read()

    server, address = start_server(
        db, os.path.join(scratch, "server.log"),
        "--tls-cert", os.path.join(certs, "server.pem"),
        "--tls-key", os.path.join(certs, "server.key"),
        "--tls-client-ca", os.path.join(certs, "ca.pem"))
    return server, address, read


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="puzzledb-python-")
        cls.db = os.path.join(cls.scratch, "db")
        shutil.copytree(os.environ["PUZZLEDB_DB"], cls.db)
        cls.server, cls.address = start_server(cls.db, os.path.join(cls.scratch, "server.log"))
        cls.client = puzzledb.Client(cls.address, timeout=30)
        cls.client.wait_until_ready(timeout=30)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        stop_server(cls.server)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def expected(self, puzzle: str) -> dict:
        """The tables' answer in the command line's own process."""
        run = subprocess.run(
            [os.environ["PUZZLEDB_CLI"], "--db", self.db, "solve", "--puzzle", puzzle,
             "--max-moves", "0", "--json", "--count"],
            input=CASES[puzzle][1], capture_output=True, text=True, check=True)
        return json.loads(run.stdout.strip().split("\n")[0])

    def test_solve_gives_the_tables_answer_for_every_puzzle(self):
        for name, (puzzle, _) in CASES.items():
            with self.subTest(puzzle=name):
                want = self.expected(name)
                answer = self.client.solve(puzzle, count_solutions=True)
                self.assertEqual(answer.outcome, "SOLVED")
                self.assertEqual(answer.source, "TABLE")
                self.assertEqual(answer.distance, want["distance"])
                self.assertEqual(answer.moves, want["moves"])
                self.assertEqual(answer.optimal_count, int(want["optimal_count"]))
                # The id the client computes (and sends as `puzzledb-table`) is the table's.
                self.assertEqual(answer.table_id, puzzledb.table_id(puzzle))
                self.assertGreater(answer.table_generation, 0)

    def test_every_listed_puzzle_by_name_and_compact_state(self):
        """The generic form: every puzzle the server lists, asked for by its name and its
        example's compact state, gets the answer of the same position as a typed message
        (where one exists), and samples come back in the generic form."""
        puzzles = self.client.puzzles()
        self.assertEqual({p.name for p in puzzles} >= set(CASES), True)
        tables = {t.table_id for t in self.client.tables()}
        self.assertEqual({t for p in puzzles for t in p.tables}, tables)
        reached_goals = []
        for p in puzzles:
            with self.subTest(puzzle=p.name):
                answer = self.client.solve(p.name, p.example)
                self.assertEqual(answer.outcome, "SOLVED")
                self.assertEqual(len(answer.moves), answer.distance)
                again = self.client.solve(puzzledb.puzzle(p.name, p.example))
                self.assertEqual({**again.as_dict(), "micros": 0}, {**answer.as_dict(), "micros": 0})
                self.assertEqual(again, again)
                if answer.final_state:  # a puzzle with several goals says which it reached
                    self.assertEqual(self.client.solve(p.name, answer.final_state).distance, 0)
                    reached_goals.append(p.name)
                self.assertEqual(self.client.analyze(p.name, p.example).distance, answer.distance)
                self.assertEqual(self.client.solve(p.name, p.goal).distance, 0)
        self.assertIn("rotation", reached_goals)
        want = self.expected("eight")
        self.assertEqual(self.client.solve("eight", EIGHT).moves, want["moves"])
        answers = list(self.client.solve_many([("eight", EIGHT), ("knight", KNIGHT), ("eight", "1")]))
        self.assertEqual(answers[0].moves, want["moves"])
        self.assertEqual(answers[1].distance, self.expected("knight")["distance"])
        self.assertIsInstance(answers[2], PuzzledbError)
        self.assertIn("puzzle.state: ", answers[2].message)
        sample = self.client.sample("knight", 39, count=2, seed=3)
        self.assertEqual(sample.population, 62)
        self.assertEqual(sample.compact, [s.state for s in sample.states])
        for state in sample.states:
            self.assertEqual(state.name, "knight")
            self.assertEqual(self.client.solve("knight", state.state).distance, 39)
        self.assertNotIn("board", repr(sample))  # compact forms, not protobuf's text
        largest = self.client.sample("knight", count=2, seed=3)  # "max" by default
        self.assertEqual(largest.compact, sample.compact)
        with self.assertRaises(PuzzledbError) as caught:
            self.client.solve("chess", "e4")
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("puzzle.name: unknown puzzle 'chess'", caught.exception.message)

    def test_puzzles_given_as_definitions(self):
        """The database's definitions are listed with their files and answered as their
        samples say, by state and by scramble, singly and in batches."""
        listed = {p.name: p for p in self.client.puzzles()}
        for name in DEFINED:
            with self.subTest(puzzle=name):
                info = listed[name]
                with open(os.path.join(DEFINITIONS_DIR, name + ".tws")) as f:
                    self.assertEqual(info.definition, f.read())
                self.assertEqual(info.definition_reading, 2)  # by piece, as twsearch reads it
                self.assertNotIn("Solved", repr(info))  # the file is not in the repr
                self.assertEqual(info.tables, [name])
                cases = defined_sample(name)
                for state, line in cases:
                    self.assertEqual(original_line(self.client.solve(name, state)), line, state)
                got = list(self.client.solve_many([(name, state) for state, _ in cases]))
                self.assertEqual([original_line(a) for a in got], [line for _, line in cases])
        self.assertEqual(listed["eight"].definition, "")
        self.assertEqual(listed["eight"].definition_reading, 0)
        with open(os.path.join(DEFINITIONS_DIR, "cube2urf_scramble.in")) as f:
            scrambles = f.read().splitlines()
        with open(os.path.join(DEFINITIONS_DIR, "cube2urf_scramble.out")) as f:
            want = f.read().splitlines()
        for scramble, line in zip(scrambles, want):
            answer = self.client.solve(puzzledb.puzzle("cube2urf", scramble=scramble))
            self.assertEqual(original_line(answer), line, scramble)
        analysis = self.client.analyze(puzzledb.puzzle("cube2urf", scramble="U R"))
        self.assertEqual(analysis.distance, 2)
        with self.assertRaises(PuzzledbError) as caught:
            self.client.solve(puzzledb.puzzle("cube2urf", scramble="U Q"))
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("puzzle.scramble: move 2: ", caught.exception.message)
        with self.assertRaises(TypeError):
            puzzledb.puzzle("cube2urf", "x", scramble="U")
        with self.assertRaises(PuzzledbError) as caught:
            self.client.solve("slide32", "1 2 3 4 5 5")
        self.assertIn("set T: holds label 5 2 times, the goal once", caught.exception.message)

    def test_compact_forms_policies_and_the_whole_answer(self):
        # The typed helpers take the compact forms HTTP takes, and give them back.
        rotation = puzzledb.rotation(ROTATION)
        self.assertEqual(rotation, puzzledb.rotation([int(c) for c in ROTATION]))
        self.assertEqual(puzzledb.rotation(" ".join(ROTATION)), rotation)
        self.assertEqual(puzzledb.knobs(KNOBS), CASES["knobs"][0])
        statement = puzzledb.fifteen("2340157896acdebf")
        self.assertEqual(statement, puzzledb.fifteen([2, 3, 4, 0, 1, 5, 7, 8, 9, 6, 10, 12, 13, 14, 11, 15]))
        self.assertEqual(puzzledb.fifteen("2,3,4,0,1,5,7,8,9,6,10,12,13,14,11,15"), statement)
        self.assertEqual(self.client.solve(statement).distance, 9)
        for name, (typed, _) in CASES.items():
            with self.subTest(puzzle=name):
                compact = puzzledb.compact_of(typed)
                self.assertEqual(essence(self.client.solve(name, compact)), essence(self.client.solve(typed)))
        self.assertEqual(puzzledb.compact_of(statement), "2340157896acdebf")
        with self.assertRaises(ValueError) as caught:
            puzzledb.fifteen("2340157896acdeb")
        self.assertIn("fifteen: a compact form of 16 digits, got 15", str(caught.exception))
        with self.assertRaises(ValueError):
            puzzledb.rotation("1132312131321312322322xy")
        # Policies in any case; a wrong one says which there are.
        for policy in ("table_only", "Table_Only", "TABLE_ONLY"):
            self.assertEqual(self.client.solve("eight", EIGHT, policy=policy).source, "TABLE")
        self.assertEqual(self.client.solve("eight", EIGHT, policy="search_only").source, "SEARCH")
        with self.assertRaises(ValueError) as caught:
            self.client.solve("eight", EIGHT, policy="fast")  # type: ignore[arg-type]
        self.assertIn("TABLE_THEN_SEARCH, TABLE_ONLY, SEARCH_ONLY (any case)", str(caught.exception))
        # The whole answer: provenance to the checksum, the request's id.
        answer = self.client.solve("eight", EIGHT)
        tables = {t.table_id: t for t in self.client.tables()}
        self.assertEqual(answer.table_generation, tables["eight"].generation)
        self.assertNotEqual(answer.table_crc32, 0)
        self.assertEqual(answer.id, 0)
        self.assertEqual(set(answer.as_dict()), set(puzzledb.Answer._FIELDS))
        self.assertIn("table_crc32=", repr(answer))
        # Samples: a distance, the largest, or "any"; a wrong one is refused here.
        self.assertEqual(self.client.sample("knight", "max", seed=1).distance, 39)
        near = self.client.sample("fifteen", 10, count=2, seed=5)
        self.assertEqual(len(near.compact), 2)
        self.assertEqual({self.client.solve("fifteen", c).distance for c in near.compact}, {10})
        self.assertEqual(self.client.sample("fifteen", "any", count=1).population, 10461394944000)
        with self.assertRaises(ValueError):
            self.client.sample("knight", -1)
        # The models' reading of an original input, and their playing of moves.
        cases = self.client.parse("eight", EIGHT + "\n12345678\n")
        self.assertEqual([(c.number, c.line, c.state) for c in cases], [(1, 1, EIGHT), (2, 2, "")])
        self.assertIn("9", cases[1].error)
        played = self.client.play("eight", EIGHT, answer.moves)
        self.assertEqual(len(played), len(answer.moves) + 1)
        self.assertEqual([p.goal for p in played], [False] * len(answer.moves) + [True])
        self.assertEqual(played[0].legal_moves, ["U", "D", "L", "R"])
        with self.assertRaises(PuzzledbError) as caught:
            self.client.play("eight", EIGHT, ["U", "U", "U"])
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("moves[1]: 'U' is not a legal move there", caught.exception.message)

    def test_fifteen_is_searched_over_its_pattern_tables(self):
        korf1 = [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]
        answer = self.client.solve(puzzledb.fifteen(korf1))
        self.assertEqual(answer.outcome, "SOLVED")
        self.assertEqual(answer.source, "SEARCH")
        self.assertEqual(answer.distance, 57)
        self.assertEqual("".join(answer.moves),
                         "DRUULDDDRUUULDDLLURURDDLDRRULULDDLUUURDDDLUUURDRDDLLURRRD")
        self.assertGreater(answer.nodes, 0)
        odd = self.client.solve(puzzledb.fifteen([13, 1, 2, 4, 5, 0, 3, 7, 9, 6, 10, 12, 15, 8, 11, 14]))
        self.assertEqual(odd.outcome, "UNSOLVABLE")
        near = self.client.sample(puzzledb.fifteen([]), 10, count=3, seed=5)
        self.assertEqual(near.population, 1948)
        for state in near.states:
            self.assertEqual(self.client.solve(state).distance, 10)
        anywhere = self.client.sample(puzzledb.fifteen([]), count=2, any_distance=True)
        self.assertEqual(anywhere.population, 10461394944000)
        self.assertEqual(len(anywhere.states), 2)
        with self.assertRaises(puzzledb.PuzzledbError) as caught:
            self.client.solve(puzzledb.fifteen(list(range(15))))
        self.assertIn("puzzle.fifteen.cells: a board has 16 cells, got 15", str(caught.exception))

    def test_listing_solutions_starts_with_the_answer(self):
        answer = self.client.solve(puzzledb.eight(EIGHT), max_solutions=5)
        self.assertGreaterEqual(len(answer.solutions), 1)
        self.assertLessEqual(len(answer.solutions), 5)
        self.assertEqual(answer.solutions[0], answer.moves)
        self.assertEqual(answer.solutions, sorted(answer.solutions))
        self.assertEqual(len(answer.solutions), min(5, answer.optimal_count))

    def test_solve_all_keeps_the_order_and_reports_each_bad_request(self):
        puzzles = [CASES["knight"][0], puzzledb.knight("11111"), CASES["eight"][0],
                   CASES["knobs"][0]] * 50
        answers = self.client.solve_all(puzzles)
        self.assertEqual(len(answers), len(puzzles))
        one = {name: self.client.solve(CASES[name][0]) for name in ("knight", "eight", "knobs")}
        for i in range(0, len(puzzles), 4):
            self.assertEqual(essence(answers[i]), essence(one["knight"]))
            self.assertIsInstance(answers[i + 1], PuzzledbError)
            self.assertEqual(answers[i + 1].code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("25", answers[i + 1].message)  # a board has 25 cells
            self.assertEqual(essence(answers[i + 2]), essence(one["eight"]))
            self.assertEqual(essence(answers[i + 3]), essence(one["knobs"]))

    def test_solve_many_answers_in_order_in_batches_of_any_size(self):
        puzzles = [CASES["knight"][0], puzzledb.knight("11111"), CASES["eight"][0],
                   CASES["knobs"][0], CASES["rotation"][0]] * 300
        one = [self.client.solve(p) if i != 1 else None for i, p in enumerate(puzzles[:5])]
        for batch_size in (1, 7, 2000, puzzledb.MAX_BATCH):
            answers = list(self.client.solve_many(puzzles, batch_size=batch_size))
            self.assertEqual(len(answers), len(puzzles))
            for i, answer in enumerate(answers):
                if i % 5 == 1:
                    self.assertIsInstance(answer, PuzzledbError)
                    self.assertEqual(answer.code, grpc.StatusCode.INVALID_ARGUMENT)
                    self.assertIn("25", answer.message)
                else:
                    self.assertEqual(essence(answer), essence(one[i % 5]), (batch_size, i))
        self.assertEqual(list(self.client.solve_many([])), [])
        with self.assertRaises(ValueError):
            list(self.client.solve_many(puzzles, batch_size=puzzledb.MAX_BATCH + 1))
        # More puzzles than batches in flight, and a search among them.
        # The fifteen puzzle's sample from the statement (UVa 10181), 9 moves by search.
        fifteen = puzzledb.fifteen([2, 3, 4, 0, 1, 5, 7, 8, 9, 6, 10, 12, 13, 14, 11, 15])
        many = [CASES["knight"][0]] * 9000 + [fifteen]
        answers = list(self.client.solve_many(many, batch_size=1000))
        self.assertEqual(answers[-1].source, "SEARCH")
        self.assertTrue(all(essence(a) == essence(one[0]) for a in answers[:-1]))

    def test_solve_many_reads_a_generator_as_it_answers(self):
        # A generator of puzzles is read a few batches ahead of the answers, never whole:
        # when the first answer comes, at most the batches in flight and the next one have
        # been read (so millions of generated puzzles cost what a few batches do).
        read = [0]

        def boards():
            for _ in range(50_000):
                read[0] += 1
                yield CASES["knight"][0]

        answers = self.client.solve_many(boards(), batch_size=500)
        first = next(answers)
        self.assertEqual(essence(first), essence(self.client.solve(CASES["knight"][0])))
        self.assertLessEqual(read[0], (puzzledb.client._Batches.IN_FLIGHT + 1) * 500 + 1)
        self.assertEqual(1 + sum(1 for _ in answers), 50_000)
        self.assertEqual(read[0], 50_000)

    def test_solve_many_gives_each_batch_the_clients_timeout_not_the_whole(self):
        # The client's timeout (1 s here; 10 s by default) is each batch's deadline, not the
        # stream's: a stream that takes longer (a generator that takes its time: 20 batches,
        # a 0.1 s pause before each) is answered whole. A `timeout` given bounds the whole,
        # `batch_timeout` each batch.
        short = puzzledb.Client(self.address, timeout=1.0)
        try:
            def slow(n: int):
                for i in range(n):
                    if i % 200 == 0:
                        time.sleep(0.1)
                    yield CASES["knight"][0]

            started = time.monotonic()
            answers = list(short.solve_many(slow(4000), batch_size=200))
            self.assertGreater(time.monotonic() - started, 1.5, "longer than the client's timeout")
            self.assertEqual(len(answers), 4000)
            self.assertTrue(all(not isinstance(a, PuzzledbError) and a.outcome == "SOLVED"
                                for a in answers))
            with self.assertRaises(PuzzledbError) as caught:
                list(short.solve_many(slow(4000), batch_size=200, timeout=0.5))
            self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
            # 1,000 fifteen boards to search, seconds of work: not within 0.2 s.
            rng = random.Random(5)
            boards = [puzzledb.fifteen(random_fifteen(rng)) for _ in range(1000)]
            with self.assertRaises(PuzzledbError) as caught:
                list(short.solve_many(boards, policy="SEARCH_ONLY", batch_size=1000,
                                      batch_timeout=0.2))
            self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        finally:
            short.close()

    def test_solve_many_keeps_a_table_built_on_demand_in_batches_of_its_own(self):
        # docs/API.md, "Table affinity": the default database's tables share batches, which a
        # proxy spreads; a wiring built on demand gets batches of its own, named by it.
        from puzzledb._tables import DEFAULT_TABLE_IDS
        shipped = CASES["knobs"][0]
        self.assertTrue({"knight", "eight", "rotation", "fifteen",
                         puzzledb.table_id(shipped)} <= DEFAULT_TABLE_IDS)
        wiring = list(shipped.knobs.wiring)
        wiring[0], wiring[1] = wiring[1], wiring[0]
        other = puzzledb.knobs(list(shipped.knobs.positions), wiring)
        self.assertNotIn(puzzledb.table_id(other), DEFAULT_TABLE_IDS)
        puzzles = [CASES["knight"][0], CASES["eight"][0], shipped, other, other,
                   CASES["rotation"][0]]
        batches = puzzledb.client._Batches(puzzles, 0, "TABLE_THEN_SEARCH", 100)
        made = []
        while (k := batches.next()) is not None:
            made.append(k)
        self.assertEqual([len(batches.requests[k].requests) for k in made], [3, 2, 1])
        self.assertEqual([batches.metadata(k)[0][1] for k in made],
                         ["knight", puzzledb.table_id(other), "rotation"])
        answers = list(self.client.solve_many(puzzles))
        self.assertEqual([essence(a) for a in answers],
                         [essence(self.client.solve(p)) for p in puzzles])

    def test_analyze_lists_every_move_best_first(self):
        analysis = self.client.analyze(puzzledb.eight(EIGHT))
        self.assertEqual(analysis.outcome, "SOLVED")
        self.assertEqual(len(analysis.moves), 4)  # the empty place is in the middle
        distances = [m.distance for m in analysis.moves]
        self.assertEqual(distances, sorted(distances))
        self.assertEqual(distances[0], analysis.distance - 1)
        self.assertEqual(analysis.moves[0].move, self.client.solve(puzzledb.eight(EIGHT)).moves[0])

    def test_tables_and_samples(self):
        tables = {t.table_id: t for t in self.client.tables()}
        self.assertIn("knight", tables)
        self.assertTrue(tables["knight"].status.startswith("LOADED"), tables["knight"].status)
        self.assertEqual(tables["knight"].max_distance, 39)
        sample = self.client.sample(puzzledb.knight(""), None, count=3, seed=7)
        self.assertEqual(sample.distance, 39)
        self.assertEqual(sample.population, 62)  # docs/PUZZLES.md
        self.assertEqual(len(sample.states), 3)
        for state in sample.states:
            self.assertEqual(self.client.solve(state).distance, 39)
        again = self.client.sample(puzzledb.knight(""), None, count=3, seed=7)
        self.assertEqual(again.states, sample.states)

    def test_errors_carry_the_code_and_the_servers_message(self):
        with self.assertRaises(PuzzledbError) as caught:
            self.client.solve(puzzledb.eight("12345678"))
        self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertTrue(caught.exception.message)
        self.assertIn("INVALID_ARGUMENT", str(caught.exception))
        wiring = [((k + 1) % 12) + 1 for k in range(12) for _ in range(4)]  # no table has it
        with self.assertRaises(PuzzledbError) as caught:
            self.client.solve(puzzledb.knobs([2] + [1] * 11, wiring), policy="TABLE_ONLY")
        self.assertEqual(caught.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        with self.assertRaises(ValueError):
            self.client.solve(CASES["eight"][0], policy="TABLES_PLEASE")

    def test_a_server_that_is_not_there_is_unavailable(self):
        with puzzledb.Client("127.0.0.1:1", timeout=2) as absent:
            with self.assertRaises(PuzzledbError) as caught:
                absent.wait_until_ready(timeout=0.5)
            self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
            with self.assertRaises(PuzzledbError) as caught:
                absent.solve(CASES["eight"][0])
            self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)


def essence(answer):
    """What an answer says, without what one call measured (time, entries read)."""
    if not isinstance(answer, puzzledb.Answer):
        return answer
    return (answer.outcome, answer.distance, answer.moves, answer.source, answer.table_id)


class ImportTest(unittest.TestCase):
    def test_every_public_name_has_a_docstring(self):
        import inspect
        import puzzledb.aio
        missing = []
        named = [(puzzledb, n) for n in puzzledb.__all__] + [(puzzledb.aio, "Client")]
        for module, name in named:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants and Literal types
            if not inspect.getdoc(obj):
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(obj) and obj.__module__.startswith("puzzledb"):
                for member, value in vars(obj).items():
                    public = not member.startswith("_")
                    if public and (inspect.isfunction(value) or isinstance(value, property)) \
                            and not inspect.getdoc(value):
                        missing.append(f"{module.__name__}.{name}.{member}")
        self.assertEqual(missing, [])

    def test_a_python_without_grpcio_is_told_what_to_install(self):
        # grpc made unimportable, as in an interpreter that lacks it.
        run = subprocess.run(
            [sys.executable, "-c", "import sys; sys.modules['grpc'] = None; import puzzledb"],
            capture_output=True, text=True, timeout=60)
        self.assertNotEqual(run.returncode, 0)
        last = run.stderr.strip().splitlines()[-1]
        self.assertIn("ImportError: puzzledb needs grpcio and protobuf", last)
        self.assertIn("apt-get install python3-grpcio python3-protobuf", last)
        self.assertIn("pip install", last)


class TlsTest(unittest.TestCase):
    def test_tls_with_a_client_certificate(self):
        scratch = tempfile.mkdtemp(prefix="puzzledb-python-tls-")
        try:
            server, address, read = start_tls_server(scratch)
            try:
                with puzzledb.Client(address, root_certificates=read("ca.pem"),
                                     private_key=read("client.key"),
                                     certificate_chain=read("client.pem"), timeout=30) as client:
                    client.wait_until_ready(timeout=30)
                    self.assertEqual(client.solve(CASES["eight"][0]).distance, 4)
                # Without a client certificate the server refuses the connection.
                with puzzledb.Client(address, root_certificates=read("ca.pem"), timeout=5) as bare:
                    with self.assertRaises(PuzzledbError) as caught:
                        bare.solve(CASES["eight"][0])
                    self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
            finally:
                stop_server(server)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
