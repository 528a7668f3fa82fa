"""Retries (docs/API.md, "Retries") against real servers: one whose only search slot is
taken (a refusal that passes: the client waits the server's pushback and tries again),
one whose node budget a search spends (a refusal that will not pass: asked once), and one
restarted in the middle of a run (UNAVAILABLE until it is back), for the sync and the
asyncio client. Environment as test_client.py's.
"""

import asyncio
import os
import re
import shutil
import socket
import tempfile
import threading
import time
import unittest
import urllib.request

import grpc

import puzzledb
import puzzledb.aio
from puzzledb import PuzzledbError, Retry
from test_client import start_server, stop_server

# A knight board whose search outlasts every wait here, and one near the goal.
FAR = "0000000000001*11111111111"
NEAR = "11111011110011*0000100000"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metric(log_path: str, line_start: str) -> int:
    """A figure of the server's /metrics (its HTTP address from its start-up line)."""
    with open(log_path) as f:
        base = re.search(r"web page on (http://127\.0\.0\.1:\d+/)", f.read()).group(1)
    with urllib.request.urlopen(base + "metrics", timeout=30) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(line_start):
                return int(float(line.split()[-1]))
    return 0


def wait_for_a_search(log_path: str) -> None:
    """Until the server runs a search (for at most 30 s)."""
    for _ in range(3000):
        if metric(log_path, "puzzledb_searches_running ") >= 1:
            return
        time.sleep(0.01)
    raise AssertionError("the holding search never started")


class RetryTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="puzzledb-python-retry-")
        self.db = os.path.join(self.scratch, "db")
        shutil.copytree(os.environ["PUZZLEDB_DB"], self.db)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            stop_server(server)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def start(self, *extra: str, name: str = "server", listen: str = "127.0.0.1:0") -> str:
        log = os.path.join(self.scratch, name + ".log")
        server, address = start_server(self.db, log, *extra, listen=listen)
        self.servers.append(server)
        return address

    def hold_the_only_slot(self, address: str, seconds: float) -> threading.Thread:
        """A search that holds the server's one slot for `seconds` (its deadline)."""
        def hold():
            with puzzledb.Client(address, timeout=seconds, retry=None) as holder:
                try:
                    holder.solve("knight", FAR, policy="search_only")
                except PuzzledbError:
                    pass  # DEADLINE_EXCEEDED, as meant
        thread = threading.Thread(target=hold)
        thread.start()
        return thread

    def test_a_full_search_pool_is_waited_out(self):
        address = self.start("--max-concurrent-searches", "1", "--search-queue", "0")
        with puzzledb.Client(address, timeout=30) as client:
            client.wait_until_ready()
            holder = self.hold_the_only_slot(address, 4.0)
            wait_for_a_search(os.path.join(self.scratch, "server.log"))
            # Without retries: refused at once, with the hint.
            with puzzledb.Client(address, timeout=30, retry=None) as once:
                with self.assertRaises(PuzzledbError) as caught:
                    once.solve("knight", NEAR, policy="search_only")
                self.assertEqual(caught.exception.code, grpc.StatusCode.RESOURCE_EXHAUSTED)
                self.assertIn("--max-concurrent-searches", caught.exception.message)
            # With them: answered once the slot is free, having waited the pushback (1 s).
            start = time.monotonic()
            answer = client.solve("knight", NEAR, policy="search_only")
            waited = time.monotonic() - start
            self.assertEqual(answer.distance, 2)
            self.assertEqual(answer.source, "SEARCH")
            self.assertGreaterEqual(waited, 0.9)
            holder.join()

    def test_a_spent_node_budget_is_not_asked_again(self):
        log_name = "budget"
        address = self.start("--search-node-budget", "20000", name=log_name)
        with puzzledb.Client(address, timeout=30) as client:
            client.wait_until_ready()
            with self.assertRaises(PuzzledbError) as caught:
                client.solve("knight", FAR, policy="search_only")
            self.assertEqual(caught.exception.code, grpc.StatusCode.RESOURCE_EXHAUSTED)
            self.assertIn("budget", caught.exception.message)
        counted = metric(
            os.path.join(self.scratch, log_name + ".log"),
            'puzzledb_calls_total{code="RESOURCE_EXHAUSTED",method="Solve",source="search",'
            'transport="grpc"}')
        self.assertEqual(counted, 1)

    def test_a_restarted_server_is_waited_for(self):
        port = free_port()
        listen = f"127.0.0.1:{port}"
        address = self.start(listen=listen, name="first")
        boards = [("knight", NEAR)] * 5000

        def restart():
            stop_server(self.servers.pop())
            time.sleep(1.0)  # down for a second, as a restart is
            self.start(listen=listen, name="second")

        with puzzledb.Client(address, timeout=60) as client:
            client.wait_until_ready()
            self.assertEqual(client.solve("eight", "283104765").distance, 4)
            restarter = threading.Thread(target=restart)
            restarter.start()
            time.sleep(0.2)
            # Calls while it is down: answered once it is back.
            self.assertEqual(client.solve("eight", "283104765").distance, 4)
            restarter.join()
            answers = list(client.solve_many(boards, batch_size=500))
            self.assertEqual({a.distance for a in answers}, {2})
            # And the batches of a run it restarts in the middle of.
            restarter = threading.Thread(target=restart)
            many = client.solve_many(boards * 4, batch_size=200)
            first = next(many)
            restarter.start()
            rest = list(many)
            restarter.join()
            self.assertEqual(len(rest) + 1, 20000)
            self.assertEqual({a.distance for a in [first] + rest}, {2})
        # Retries off: a server that is down is an error at once.
        stop_server(self.servers.pop())
        with puzzledb.Client(address, timeout=30, retry=None) as client:
            start = time.monotonic()
            with self.assertRaises(PuzzledbError) as caught:
                client.solve("eight", "283104765")
            self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
            self.assertLess(time.monotonic() - start, 20)

    def test_asyncio_waits_out_a_full_pool_and_a_restart(self):
        port = free_port()
        listen = f"127.0.0.1:{port}"
        address = self.start("--max-concurrent-searches", "1", "--search-queue", "0",
                             listen=listen, name="first")

        async def body():
            async with puzzledb.aio.Client(address, timeout=60) as client:
                await client.wait_until_ready()
                holder = self.hold_the_only_slot(address, 2.0)
                wait_for_a_search(os.path.join(self.scratch, "first.log"))
                answer = await client.solve("knight", NEAR, policy="SEARCH_ONLY")
                self.assertEqual(answer.distance, 2)
                holder.join()
                stop_server(self.servers.pop())
                restarted = threading.Timer(1.0, lambda: self.start(listen=listen, name="second"))
                restarted.start()
                got = [a async for a in client.solve_many([("eight", "283104765")] * 3000)]
                restarted.join()
                self.assertEqual({a.distance for a in got}, {4})

        asyncio.run(body())

    def test_the_retry_settings_are_checked(self):
        with self.assertRaises(ValueError):
            Retry(attempts=0)
        with self.assertRaises(ValueError):
            Retry(initial_backoff=2.0, max_backoff=1.0)
        waits = [Retry().backoff(n) for n in range(1, 8)]
        self.assertTrue(all(0.1 <= w <= 3.0 for w in waits), waits)
        self.assertGreaterEqual(waits[-1], 1.5)  # grown to the cap, jittered in its upper half


if __name__ == "__main__":
    unittest.main()
