"""The typed puzzle messages of the API's first version (KnightBoard ... FifteenBoard):
kept for the programs written against them. New code names a puzzle and gives its
compact state (puzzledb.puzzle, or a name to Client.solve): every puzzle has that form,
and the server lists them (Client.puzzles).

This module is the Python side of the one mapping of the typed messages (docs/API.md,
"Two forms of a puzzle"); nothing else in the client names a puzzle.
"""

from __future__ import annotations

from typing import Sequence

from puzzledb.v1 import solver_pb2

Puzzle = solver_pb2.Puzzle


def knight(board: str) -> Puzzle:
    """The 5x5 knight puzzle: 25 characters row-major, '1' white, '0' black, '*' empty."""
    return Puzzle(knight=solver_pb2.KnightBoard(board=board))


def knobs(positions: Sequence[int], wiring: Sequence[int]) -> Puzzle:
    """The twelve knobs: 12 states 1..4 and the 48 knob numbers of the wiring."""
    return Puzzle(knobs=solver_pb2.KnobsState(positions=list(positions), wiring=list(wiring)))


def rotation(cells: Sequence[int]) -> Puzzle:
    """The rotation game: 24 values 1..3 in POJ 2286 cell order."""
    return Puzzle(rotation=solver_pb2.RotationBoard(cells=list(cells)))


def eight(board: str) -> Puzzle:
    """The 8-puzzle: 9 digits row-major, 0 the empty place."""
    return Puzzle(eight=solver_pb2.EightBoard(board=board))


def fifteen(cells: Sequence[int]) -> Puzzle:
    """The fifteen puzzle: 16 numbers row-major, 0 the empty place."""
    return Puzzle(fifteen=solver_pb2.FifteenBoard(cells=list(cells)))


def _knobs_table_id(puzzle: Puzzle) -> str:
    """"knobs-" and 16 hex digits of the 64-bit FNV-1a hash of the 48 wiring numbers, each
    less one, as bytes ("knobs" for a wiring that is not 48 numbers 1..12)."""
    wiring = list(puzzle.knobs.wiring)
    if len(wiring) != 48 or any(not 1 <= n <= 12 for n in wiring):
        return "knobs"
    h = 14695981039346656037
    for n in wiring:
        h = ((h ^ (n - 1)) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"knobs-{h:016x}"


# The puzzles with a table per parameter set, and how their ids follow from the parameters;
# every other puzzle's table is named by its kind.
_PARAMETER_TABLE_IDS = {"knobs": _knobs_table_id}


def typed_table_id(puzzle: Puzzle) -> str:
    """The id of the table that answers `puzzle` (docs/API.md, "Table affinity"): the kind
    ("knight", "rotation", "eight", "fifteen"), or for a puzzle with parameters its
    parameters' id (the knobs: "knobs-" and the wiring's FNV-1a hash). Sent with every
    call as `puzzledb-table`."""
    kind = puzzle.WhichOneof("kind")
    if kind in _PARAMETER_TABLE_IDS:
        return _PARAMETER_TABLE_IDS[kind](puzzle)
    return kind or ""


