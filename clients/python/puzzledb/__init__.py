"""A Python client for puzzledb's gRPC API (docs/API.md; clients/python/README.md).

    from puzzledb import Client, knight
    with Client("127.0.0.1:50051") as client:
        answer = client.solve(knight("11111011110011*0000100000"))
        print(answer.distance, answer.moves)

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
    MoveAnalysis,
    PuzzledbError,
    Sample,
    Table,
    eight,
    fifteen,
    knight,
    knobs,
    rotation,
    table_id,
)

__all__ = [
    "__version__",
    "MAX_BATCH",
    "Analysis",
    "Answer",
    "Client",
    "MoveAnalysis",
    "PuzzledbError",
    "Sample",
    "Table",
    "eight",
    "fifteen",
    "knight",
    "knobs",
    "rotation",
    "table_id",
]
