"""puzzledb.aio.Client against a real puzzledb-server (ctest python_client, with
test_client.py and its environment). Its answers are compared with the synchronous
client's, which test_client.py checks against the command line.
"""

import asyncio
import os
import random
import shutil
import tempfile
import time
import re
import unittest
import urllib.request

import grpc

import puzzledb
import puzzledb.aio
from puzzledb import PuzzledbError
from test_client import (CASES, DEFINED, defined_sample, original_line, random_fifteen,
                         start_server, start_tls_server, stop_server)

KORF1 = [13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2]


def random_knight(rng: random.Random) -> str:
    cells = list("1" * 12 + "0" * 12 + "*")
    rng.shuffle(cells)
    return "".join(cells)


class AioClientTest(unittest.TestCase):
    """The tests share the server and one event loop: grpc.aio keeps the loops it has
    served, and one closed under it prints "Event loop is closed" (puzzledb.aio's
    docstring)."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="puzzledb-aio-")
        cls.db = os.path.join(cls.scratch, "db")
        shutil.copytree(os.environ["PUZZLEDB_DB"], cls.db)
        # One search at a time, so that a search the server did not cancel shows.
        log = os.path.join(cls.scratch, "server.log")
        cls.server, cls.address = start_server(cls.db, log, "--max-concurrent-searches", "1")
        with open(log) as f:
            cls.metrics_url = re.search(r"on (http://127\.0\.0\.1:\d+/)", f.read()).group(1) + "metrics"
        cls.sync = puzzledb.Client(cls.address, timeout=60)
        cls.sync.wait_until_ready(timeout=30)
        cls.loop = asyncio.new_event_loop()

    @classmethod
    def tearDownClass(cls):
        cls.loop.close()
        cls.sync.close()
        stop_server(cls.server)
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def gauges(self) -> "dict[str, float]":
        """The server's searches running and streams open, from its /metrics."""
        with urllib.request.urlopen(self.metrics_url, timeout=10) as r:
            text = r.read().decode()
        found = {}
        for name in ("puzzledb_searches_running", "puzzledb_streams_open"):
            found[name] = float(re.search(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M).group(1))
        return found

    async def wait_for_gauges(self, want: "dict[str, float]", seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            got = await asyncio.get_running_loop().run_in_executor(None, self.gauges)
            if got == want:
                return
            if time.monotonic() > deadline:
                self.fail(f"after {seconds} s the server reports {got}, not {want}")
            await asyncio.sleep(0.1)

    def run_async(self, coroutine_function):
        async def with_client():
            async with puzzledb.aio.Client(self.address, timeout=60) as client:
                await client.wait_until_ready(timeout=30)
                await coroutine_function(client)
        self.loop.run_until_complete(with_client())

    def test_every_call_answers_as_the_synchronous_client(self):
        async def body(client):
            puzzles = dict((name, puzzle) for name, (puzzle, _) in CASES.items())
            puzzles["fifteen"] = puzzledb.fifteen(KORF1)
            # Counts where there are tables of exact distances (not the fifteen's).
            count = {name: name != "fifteen" for name in puzzles}
            # Concurrent calls on one channel, gathered.
            answers = await asyncio.gather(*(client.solve(p, count_solutions=count[name])
                                             for name, p in puzzles.items()))
            for (name, puzzle), answer in zip(puzzles.items(), answers):
                with self.subTest(puzzle=name):
                    want = self.sync.solve(puzzle, count_solutions=count[name])
                    self.assertEqual(answer.outcome, "SOLVED")
                    self.assertEqual((answer.distance, answer.moves, answer.source,
                                      answer.optimal_count, answer.table_id),
                                     (want.distance, want.moves, want.source,
                                      want.optimal_count, want.table_id))
            self.assertEqual(answers[-1].distance, 57)
            analysis = await client.analyze(CASES["eight"][0])
            self.assertEqual(analysis, self.sync.analyze(CASES["eight"][0]))
            self.assertEqual(await client.tables(), self.sync.tables())
            sample = await client.sample(puzzledb.knight(""), None, count=3, seed=1)
            self.assertEqual(sample, self.sync.sample(puzzledb.knight(""), None, count=3, seed=1))
        self.run_async(body)

    def test_puzzles_given_as_definitions(self):
        async def body(client):
            for name in DEFINED:
                cases = defined_sample(name)
                answers = await asyncio.gather(*(client.solve(name, state) for state, _ in cases))
                self.assertEqual([original_line(a) for a in answers], [line for _, line in cases])
                got = [a async for a in client.solve_many([(name, s) for s, _ in cases])]
                self.assertEqual([original_line(a) for a in got], [line for _, line in cases])
            listed = {p.name: p for p in await client.puzzles()}
            self.assertIn("Solved", listed["slide32"].definition)
            answer = await client.solve(puzzledb.puzzle("cube2urf", scramble="R U R' U'"))
            self.assertEqual(original_line(answer), "4 U R U' R'")
        self.run_async(body)

    def test_the_generic_form_answers_as_the_synchronous_client(self):
        async def body(client):
            listed = await client.puzzles()
            self.assertEqual(listed, self.sync.puzzles())
            for p in listed:
                with self.subTest(puzzle=p.name):
                    answer = await client.solve(p.name, p.example)
                    want = self.sync.solve(p.name, p.example)
                    self.assertEqual((answer.distance, answer.moves), (want.distance, want.moves))
            got = [a async for a in client.solve_many([(p.name, p.example) for p in listed])]
            self.assertEqual([a.distance for a in got],
                             [self.sync.solve(p.name, p.example).distance for p in listed])
            sample = await client.sample("knight", None, count=2, seed=5)
            self.assertEqual(sample, self.sync.sample("knight", None, count=2, seed=5))
            self.assertEqual(sample.states[0].name, "knight")
        self.run_async(body)

    def test_solve_many_yields_in_order_with_each_bad_request_in_place(self):
        rng = random.Random(7)
        puzzles = [puzzledb.knight(random_knight(rng)) for _ in range(4999)]
        puzzles.insert(1234, puzzledb.knight("1111"))  # malformed: refused in band
        want = list(self.sync.solve_many(puzzles, batch_size=700))

        async def body(client):
            got = [a async for a in client.solve_many(puzzles, batch_size=700)]
            self.assertEqual(len(got), len(puzzles))
            self.assertIsInstance(got[1234], PuzzledbError)
            self.assertEqual(got[1234].code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertEqual(str(got[1234]), str(want[1234]))
            for i, (a, b) in enumerate(zip(got, want)):
                if i != 1234:
                    self.assertEqual((a.distance, a.moves), (b.distance, b.moves), i)
            every = [a async for a in client.solve_all(puzzles[:10])]
            self.assertEqual([a.moves for a in every], [a.moves for a in want[:10]])
            with self.assertRaises(ValueError):
                [a async for a in client.solve_many(puzzles, batch_size=0)]
        self.run_async(body)

    def test_errors_and_timeouts(self):
        async def body(client):
            with self.assertRaises(PuzzledbError) as caught:
                await client.solve(puzzledb.fifteen(list(range(15))))
            self.assertEqual(caught.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("puzzle.fifteen.cells: a board has 16 cells, got 15",
                          str(caught.exception))
            with self.assertRaises(PuzzledbError) as caught:
                await client.solve(puzzledb.fifteen(KORF1), policy="SEARCH_ONLY", timeout=0.001)
            self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
            with self.assertRaises(ValueError):
                await client.solve(CASES["eight"][0], policy="FASTEST")
        self.run_async(body)

        async def nobody():
            async with puzzledb.aio.Client("127.0.0.1:1", timeout=1) as absent:
                with self.assertRaises(PuzzledbError) as caught:
                    await absent.wait_until_ready(timeout=0.5)
                self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
        self.loop.run_until_complete(nobody())

    def test_solve_many_gives_each_batch_the_clients_timeout_not_the_whole(self):
        # As the synchronous client's: the client's timeout bounds each batch, not a stream
        # that takes longer; `timeout` bounds the whole, `batch_timeout` each batch.
        async def body():
            async with puzzledb.aio.Client(self.address, timeout=1.0) as client:
                await client.wait_until_ready(timeout=30)

                def boards(n: int):  # a generator that takes its time (puzzles are read
                    for i in range(n):  # as batches are sent)
                        if i % 200 == 0:
                            time.sleep(0.1)
                        yield CASES["knight"][0]

                started = time.monotonic()
                got = [a async for a in client.solve_many(boards(4000), batch_size=200)]
                self.assertGreater(time.monotonic() - started, 1.5)
                self.assertEqual(len(got), 4000)
                self.assertTrue(all(not isinstance(a, PuzzledbError) for a in got))
                with self.assertRaises(PuzzledbError) as caught:
                    async for _ in client.solve_many(boards(4000), batch_size=200, timeout=0.5):
                        pass
                self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
                rng = random.Random(5)  # seconds of searching: not within 0.2 s
                boards = [puzzledb.fifteen(random_fifteen(rng)) for _ in range(1000)]
                with self.assertRaises(PuzzledbError) as caught:
                    async for _ in client.solve_many(boards, policy="SEARCH_ONLY", batch_size=1000,
                                                     batch_timeout=0.2):
                        pass
                self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        self.loop.run_until_complete(body())

    def test_a_caller_that_cancels_midway_frees_the_servers_search(self):
        # 4,000 fifteen boards to search: hours of work for the server's one search slot
        # unless the cancellation reaches it.
        rng = random.Random(11)
        boards = [puzzledb.fifteen(random_fifteen(rng)) for _ in range(4000)]

        async def body(client):
            async def consume():
                async for _ in client.solve_many(boards, policy="SEARCH_ONLY", batch_size=500):
                    pass

            task = asyncio.create_task(consume())
            # Its batch calls are in flight (no stream) and their searches hold the one slot...
            await self.wait_for_gauges(
                {"puzzledb_searches_running": 1, "puzzledb_streams_open": 0}, 20)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            # ...until the caller cancels: then the server ends the calls and their searches.
            await self.wait_for_gauges(
                {"puzzledb_searches_running": 0, "puzzledb_streams_open": 0}, 20)
            answer = await client.solve(puzzledb.fifteen(KORF1), policy="SEARCH_ONLY")
            self.assertEqual(answer.distance, 57)
        self.run_async(body)

    def test_tls_with_a_client_certificate(self):
        scratch = tempfile.mkdtemp(prefix="puzzledb-aio-tls-")
        try:
            server, address, read = start_tls_server(scratch)

            async def body():
                async with puzzledb.aio.Client(address, root_certificates=read("ca.pem"),
                                               private_key=read("client.key"),
                                               certificate_chain=read("client.pem"),
                                               timeout=30) as client:
                    await client.wait_until_ready(timeout=30)
                    self.assertEqual((await client.solve(CASES["eight"][0])).distance, 4)
                async with puzzledb.aio.Client(address, root_certificates=read("ca.pem"),
                                               timeout=5) as bare:
                    with self.assertRaises(PuzzledbError) as caught:
                        await bare.solve(CASES["eight"][0])
                    self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
            try:
                self.loop.run_until_complete(body())
            finally:
                stop_server(server)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
