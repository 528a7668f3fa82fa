#!/usr/bin/env python3
"""The Python client's bulk path (docs/PERFORMANCE.md, "Batches (issue 26)"): N random knight boards
through Client.solve_many (batches over one stream), beside the same boards as one stream
of single requests (what solve_all sent before batches), alternated round by round against
a running server. Every answer is checked to be SOLVED.

    PYTHONPATH=build/python bench/python_solve_many.py ADDRESS [BOARDS ROUNDS]
"""

import random
import sys
import time

import puzzledb
from puzzledb.v1 import solver_pb2


def singles(client, puzzles):
    """One SolveRequest per stream message, answers matched by id."""
    requests = (solver_pb2.SolveRequest(puzzle=p, id=i) for i, p in enumerate(puzzles))
    answers = [None] * len(puzzles)
    for response in client._stub.SolveStream(requests, timeout=600):
        answers[response.id] = puzzledb.Answer._from(response)
    return answers


def main():
    address = sys.argv[1]
    boards = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    rng = random.Random(26)
    puzzles = []
    for _ in range(boards):
        cells = list("1" * 12 + "0" * 12 + "*")
        rng.shuffle(cells)
        puzzles.append(puzzledb.knight("".join(cells)))
    with puzzledb.Client(address, timeout=600) as client:
        client.wait_until_ready()
        print(f"{boards} random knight boards, {rounds} rounds")
        for r in range(rounds):
            start = time.perf_counter()
            many = list(client.solve_many(puzzles))
            batched = time.perf_counter() - start
            assert all(a.outcome == "SOLVED" for a in many), "an answer is not SOLVED"
            start = time.perf_counter()
            one_by_one = singles(client, puzzles)
            single = time.perf_counter() - start
            assert [a.moves for a in one_by_one] == [a.moves for a in many], "answers differ"
            print(f"round {r + 1}: solve_many {batched:.2f} s ({boards / batched:,.0f} answers/s); "
                  f"one stream of single requests {single:.2f} s ({boards / single:,.0f}/s): "
                  f"{single / batched:.1f}x")


if __name__ == "__main__":
    main()
