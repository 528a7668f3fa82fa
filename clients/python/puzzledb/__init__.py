"""A Python client for puzzledb's gRPC API (docs/API.md; clients/python/README.md).

    from puzzledb import Client
    with Client("127.0.0.1:50051") as client:
        for p in client.puzzles():
            answer = client.solve(p.name, p.example)
            print(p.name, answer.distance, answer.moves)

For asyncio, puzzledb.aio.Client has the same calls, awaited (solve_many an async
iterator).

The message classes are generated from proto/ when puzzledb is built, into the
subpackage puzzledb.v1, so they never shadow grpcio's own `grpc` package.
"""

from puzzledb._version import __version__
from puzzledb.client import (
    MAX_BATCH,
    Analysis,
    Answer,
    Client,
    InputCase,
    MoveAnalysis,
    Outcome,
    PlayedState,
    Policy,
    PuzzleInfo,
    PuzzledbError,
    Retry,
    Sample,
    Source,
    Table,
    puzzle,
    table_id,
)
# The first API version's typed messages, for the programs written against them.
from puzzledb.typed import compact_of, eight, fifteen, knight, knobs, rotation

__all__ = [
    "__version__",
    "MAX_BATCH",
    "Analysis",
    "Answer",
    "Client",
    "InputCase",
    "MoveAnalysis",
    "Outcome",
    "PlayedState",
    "Policy",
    "PuzzleInfo",
    "PuzzledbError",
    "Retry",
    "Sample",
    "Source",
    "Table",
    "compact_of",
    "eight",
    "fifteen",
    "knight",
    "knobs",
    "puzzle",
    "rotation",
    "table_id",
]
