"""A real Prometheus (Debian's) scrapes a real puzzledb-server (ctest prometheus_scrape).

    python3 tests/prometheus_scrape_test.py PROMETHEUS PUZZLEDB_SERVER DB

Both run on loopback, on free ports, in a scratch directory, and are stopped at the end.
The test sends known calls over HTTP and reads the counters back through Prometheus' query
API: what Prometheus stored is what was sent (docs/OPERATIONS.md, "Metrics").
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

PROMETHEUS, SERVER, DB = sys.argv[1:4]
EIGHT = "283104765"

from server_process import free_port, start_server, stop  # noqa: E402  (beside this file)


def get(url: str, timeout: float = 30):
    """(status, body) of a GET; the status of an HTTP error too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


class PrometheusScrapeTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="puzzledb-prometheus-")
        self.processes = []
        server, port, self.server_log = start_server(SERVER, DB, self.scratch, "--drain", "0")
        self.processes.append(server)
        self.http = f"http://127.0.0.1:{port}"
        self.start_prometheus(self.http.split("//")[1])

    def start_prometheus(self, target: str) -> None:
        config = os.path.join(self.scratch, "prometheus.yml")
        with open(config, "w") as f:
            f.write(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: puzzledb\n    static_configs:\n"
                f"      - targets: ['{target}']\n")
        # A port of its own; if another program takes it first, again on another.
        for attempt in range(5):
            port = free_port()
            log_path = os.path.join(self.scratch, f"prometheus{attempt}.log")
            with open(log_path, "w") as log:
                prometheus = subprocess.Popen(
                    [PROMETHEUS, f"--config.file={config}",
                     f"--storage.tsdb.path={os.path.join(self.scratch, f'tsdb{attempt}')}",
                     f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                    stdout=log, stderr=log)
            self.processes.append(prometheus)
            for _ in range(600):
                if prometheus.poll() is not None:
                    break
                try:
                    if get(f"http://127.0.0.1:{port}/-/ready", timeout=2)[0] == 200:
                        self.prometheus = f"http://127.0.0.1:{port}"
                        return
                except OSError:
                    pass
                time.sleep(0.1)
            stop(prometheus)
        with open(log_path) as f:
            self.fail("Prometheus did not start:\n" + f.read())

    def tearDown(self):
        for process in reversed(self.processes):
            stop(process)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def query(self, expression: str):
        """The instant vector of a PromQL expression: [(labels, value)]."""
        status, body = get(self.prometheus + "/api/v1/query?" +
                           urllib.parse.urlencode({"query": expression}))
        self.assertEqual(status, 200, body)
        data = json.loads(body)
        self.assertEqual(data["status"], "success", body)
        return [(r["metric"], float(r["value"][1])) for r in data["data"]["result"]]

    def wait_for(self, expression: str, expected: float, seconds: float = 60):
        """Polls until the expression's one value is `expected`; fails with the last seen."""
        seen = None
        deadline = time.time() + seconds
        while time.time() < deadline:
            result = self.query(expression)
            seen = result
            if len(result) == 1 and result[0][1] == expected:
                return
            time.sleep(0.25)
        self.fail(f"{expression}: wanted {expected}, Prometheus has {seen}")

    def test_prometheus_scrapes_the_calls_that_were_made(self):
        # The target is up and its families are there before any call.
        self.wait_for('up{job="puzzledb"}', 1)
        self.wait_for('puzzledb_build_info{job="puzzledb"}', 1)
        for _ in range(7):
            status, body = get(f"{self.http}/v1/solve?puzzle=eight&state={EIGHT}")
            self.assertEqual(status, 200, body)
        for _ in range(2):
            status, body = get(f"{self.http}/v1/solve?puzzle=eight&state=12")
            self.assertEqual(status, 400, body)
        status, body = get(f"{self.http}/v1/solve?puzzle=eight&state={EIGHT}&policy=search_only")
        self.assertEqual(status, 200, body)
        self.wait_for('puzzledb_calls_total{method="Solve",transport="http",source="table",'
                      'code="OK"}', 7)
        self.wait_for('sum(puzzledb_calls_total{code="INVALID_ARGUMENT"})', 2)
        self.wait_for('puzzledb_calls_total{method="Solve",source="search",code="OK"}', 1)
        self.wait_for('puzzledb_table_answer_seconds_count{method="Solve"}', 7)
        self.wait_for('puzzledb_search_seconds_count{method="Solve"}', 1)
        # A histogram Prometheus can compute with: the median table answer is under 100 ms.
        median = self.query('histogram_quantile(0.5, puzzledb_table_answer_seconds_bucket'
                            '{method="Solve"})')
        self.assertEqual(len(median), 1, median)
        self.assertLess(median[0][1], 0.1)
        # The tables the server lists, and its memory.
        _, tables = get(f"{self.http}/v1/tables")
        loaded = [t for t in json.loads(tables)["tables"] if t.get("status") == "LOADED"]
        self.wait_for('puzzledb_tables{status="loaded"}', len(loaded))
        eight = [t for t in loaded if t["table_id"] == "eight"][0]
        self.wait_for('puzzledb_table_states{table="eight"}', float(eight["states"]))
        rss = self.query("process_resident_memory_bytes")
        self.assertEqual(len(rss), 1, rss)
        self.assertGreater(rss[0][1], 10e6)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
