"""A real puzzledb-server for the Python tests (tests/*_test.py): started on loopback over a
copy of a database, on ports of its own, and stopped at the end."""

import os
import re
import shutil
import signal
import socket
import subprocess
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(server: str, db: str, scratch: str, *flags: str):
    """(process, HTTP port, log path) of `server` over a copy of `db` in `scratch` (made on
    the first call, shared by later ones), gRPC and HTTP on ports the kernel picks."""
    copy = os.path.join(scratch, "db")
    if not os.path.exists(copy):
        shutil.copytree(db, copy)
    log_path = os.path.join(scratch, f"server-{time.monotonic_ns()}.log")
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [server, "--db", copy, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", *flags],
            stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(1200):
        with open(log_path) as f:
            text = f.read()
        match = re.search(r"web page on http://127\.0\.0\.1:(\d+)/", text)
        if match:
            return process, int(match.group(1)), log_path
        if process.poll() is not None:
            raise AssertionError("puzzledb-server exited:\n" + text)
        time.sleep(0.1)
    process.kill()
    process.wait()
    raise AssertionError("puzzledb-server did not start within 120 s")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
