#!/usr/bin/env python3
"""The Python client's memory for a generator of puzzles (docs/PERFORMANCE.md, "The Python
client streams what it is given"): solve_many over N generated random knight boards, each
N in a process of its own, its peak resident memory (ru_maxrss) printed beside N's; the
answers are counted and checked SOLVED or UNSOLVABLE, never kept.

    PYTHONPATH=build/python bench/python_solve_many_memory.py ADDRESS [N ...]
"""

import random
import resource
import subprocess
import sys
import time


def child(address, n):
    import puzzledb

    def boards():
        rng = random.Random(53)
        cells = list("1" * 12 + "0" * 12 + "*")
        for _ in range(n):
            rng.shuffle(cells)
            yield puzzledb.knight("".join(cells))

    started = time.monotonic()
    counted = 0
    with puzzledb.Client(address, timeout=3600) as client:
        client.wait_until_ready()
        for answer in client.solve_many(boards()):
            if isinstance(answer, puzzledb.PuzzledbError) or answer.outcome not in ("SOLVED", "UNSOLVABLE"):
                raise SystemExit(f"answer {counted}: {answer}")
            counted += 1
    assert counted == n, (counted, n)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{n} boards: peak {peak_kb / 1024:.1f} MB, {time.monotonic() - started:.1f} s, "
          f"{n / (time.monotonic() - started):,.0f} answers/s", flush=True)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
        return
    address = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [100_000, 2_000_000]
    for n in sizes:
        subprocess.run([sys.executable, __file__, "--child", address, str(n)], check=True)


if __name__ == "__main__":
    main()
