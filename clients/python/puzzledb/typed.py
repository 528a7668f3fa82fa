"""The typed puzzle messages of the API's first version (KnightBoard ... FifteenBoard):
kept for the programs written against them. New code names a puzzle and gives its
compact state (puzzledb.puzzle, or a name to Client.solve): every puzzle has that form,
and the server lists them (Client.puzzles).

This module is the Python side of the one mapping of the typed messages (docs/API.md,
"Two forms of a puzzle"); nothing else in the client names a puzzle.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Union

from puzzledb.v1 import solver_pb2

Puzzle = solver_pb2.Puzzle


def knight(board: str) -> Puzzle:
    """The 5x5 knight puzzle: 25 characters row-major, '1' white, '0' black, '*' empty."""
    return Puzzle(knight=solver_pb2.KnightBoard(board=board))


def knobs(positions: Union[str, Sequence[int]], wiring: Optional[Sequence[int]] = None) -> Puzzle:
    """The twelve knobs: 12 states 1..4 and the 48 knob numbers of the wiring; or the compact
    form alone, 60 numbers (for knob 1..12 its state, then the four knobs it advances)."""
    if isinstance(positions, str):
        if wiring is not None:
            raise TypeError("knobs(compact) takes the compact form alone, without a wiring")
        numbers = _numbers(positions, "knobs", 60, 10)
        positions = [numbers[5 * k] for k in range(12)]
        wiring = [n for k in range(12) for n in numbers[5 * k + 1 : 5 * k + 5]]
    if wiring is None:
        raise TypeError("knobs(positions, wiring): the wiring is missing")
    return Puzzle(knobs=solver_pb2.KnobsState(positions=list(positions), wiring=list(wiring)))


def rotation(cells: Union[str, Sequence[int]]) -> Puzzle:
    """The rotation game: 24 values 1..3 in POJ 2286 cell order, as numbers or as the
    compact form ("113231213132131232232213", spaces allowed)."""
    if isinstance(cells, str):
        cells = _numbers(cells, "rotation", 24, 10)
    return Puzzle(rotation=solver_pb2.RotationBoard(cells=list(cells)))


def eight(board: str) -> Puzzle:
    """The 8-puzzle: 9 digits row-major, 0 the empty place."""
    return Puzzle(eight=solver_pb2.EightBoard(board=board))


def fifteen(cells: Union[str, Sequence[int]]) -> Puzzle:
    """The fifteen puzzle: 16 numbers row-major, 0 the empty place, as numbers or as the
    compact form (16 hexadecimal digits "2340157896acdebf", or 16 numbers with commas)."""
    if isinstance(cells, str):
        cells = _numbers(cells, "fifteen", 16, 16)
    return Puzzle(fifteen=solver_pb2.FifteenBoard(cells=list(cells)))


def _numbers(text: str, name: str, count: int, base: int) -> List[int]:
    """A compact form's numbers: separated by spaces or commas, or one digit each."""
    parts = text.replace(",", " ").split()
    if len(parts) == 1:
        parts = list(parts[0])  # one digit a number
        if len(parts) != count:
            raise ValueError(f"{name}: a compact form of {count} digits, got {len(parts)} in {text!r}")
    if len(parts) != count:
        raise ValueError(f"{name}: a compact form of {count} numbers, got {len(parts)} in {text!r}")
    try:
        return [int(p, base if len(p) == 1 else 10) for p in parts]
    except ValueError:
        raise ValueError(f"{name}: {text!r} holds something that is not a number") from None


def compact_of(puzzle: Puzzle) -> str:
    """A Puzzle message's compact form: a generic one's state, or a typed one's written as
    the server's compact form (docs/API.md, "Compact forms")."""
    kind = puzzle.WhichOneof("kind")
    if kind is None:
        return puzzle.state
    if kind in ("knight", "eight"):
        return str(getattr(puzzle, kind).board)
    if kind == "rotation":
        return "".join(str(c) for c in puzzle.rotation.cells)
    if kind == "fifteen":
        return "".join(format(c, "x") for c in puzzle.fifteen.cells)
    if kind == "knobs":
        wiring = list(puzzle.knobs.wiring)
        return " ".join(" ".join(str(n) for n in [p] + wiring[4 * k : 4 * k + 4])
                        for k, p in enumerate(puzzle.knobs.positions))
    raise ValueError(f"a {kind} puzzle has no compact form this client knows")


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


