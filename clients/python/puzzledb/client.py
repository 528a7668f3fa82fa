"""puzzledb's gRPC API for Python: a typed Client over the generated stubs.

Every call raises PuzzledbError, which carries the gRPC status code and the server's
message (docs/API.md lists what each code means), and never returns a partial answer.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union, cast

import grpc

from puzzledb._tables import DEFAULT_TABLE_IDS
from puzzledb.typed import typed_table_id
from puzzledb.v1 import solver_pb2, solver_pb2_grpc

Puzzle = solver_pb2.Puzzle

_CODES = {code.value[0]: code for code in grpc.StatusCode}
_POLICIES = ("TABLE_THEN_SEARCH", "TABLE_ONLY", "SEARCH_ONLY")
MAX_BATCH = 10000  # requests in one batch (docs/API.md, "Batches")
_OUTCOMES = {v.number: v.name for v in solver_pb2.Outcome.DESCRIPTOR.values}
_SOURCES = {v.number: v.name for v in solver_pb2.Source.DESCRIPTOR.values}


class PuzzledbError(Exception):
    """A call that failed: `code` (a grpc.StatusCode) and the server's `message`."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


# ------------------------------------------------------------------ puzzles


def puzzle(name: str, state: str = "") -> Puzzle:
    """A puzzle in the generic form: its name (Client.puzzles lists them) and its state in
    the puzzle's compact form (PuzzleInfo.compact_form says what it holds, `example` shows
    one). For a sample, a puzzle without parameters needs no state."""
    return Puzzle(name=name, state=state)


PuzzleLike = Union[Puzzle, str]


def _as_puzzle(p: PuzzleLike, state: Optional[str]) -> Puzzle:
    """A Puzzle message from a message, or a name and a compact state."""
    if isinstance(p, str):
        return puzzle(p, state or "")
    if state is not None:
        raise TypeError("state= goes with a puzzle's name, not with a Puzzle message")
    return p


def table_id(p: Puzzle) -> str:
    """The id of the table that answers `p` as far as the client can tell (docs/API.md,
    "Table affinity"), sent with every call as `puzzledb-table`: a typed message's table
    (puzzledb.typed), or for the generic form the puzzle's name. (The id of a generic
    puzzle with parameters follows from rules only the server knows; its calls carry the
    name, which a proxy may send to any replica.)"""
    if p.WhichOneof("kind"):
        return typed_table_id(p)
    return p.name


def _metadata(puzzle: Optional[Puzzle]) -> Optional[Tuple[Tuple[str, str], ...]]:
    table = table_id(puzzle) if puzzle is not None else ""
    return (("puzzledb-table", table),) if table else None


# ------------------------------------------------------------------ answers


@dataclasses.dataclass(frozen=True)
class Answer:
    """One solve: `outcome` is SOLVED, NOT_WITHIN_LIMIT or UNSOLVABLE."""

    outcome: str
    distance: int
    moves: List[str]
    source: str  # TABLE or SEARCH
    solutions: List[List[str]]  # the first optimal sequences, when asked for
    optimal_count: Optional[int]  # when asked for (None when not counted)
    table_id: str  # the table build that answered ("" for a search)
    table_generation: int
    lookups: int
    nodes: int
    micros: int

    @staticmethod
    def _from(response: solver_pb2.SolveResponse) -> "Answer":
        # Positional, each field read once, enum names from a dict: solve_many makes
        # hundreds of thousands of these.
        count = response.optimal_count
        solutions = response.solutions
        return Answer(
            _OUTCOMES.get(response.outcome) or solver_pb2.Outcome.Name(response.outcome),
            response.distance,
            list(response.moves),
            _SOURCES.get(response.source) or solver_pb2.Source.Name(response.source),
            [list(s.moves) for s in solutions] if solutions else [],
            int(count) if count else None,
            response.table_id,
            response.table_generation,
            response.lookups,
            response.nodes,
            response.micros,
        )


@dataclasses.dataclass(frozen=True)
class MoveAnalysis:
    move: str
    outcome: str
    distance: int
    optimal_count: Optional[int]


@dataclasses.dataclass(frozen=True)
class Analysis:
    """The position's distance and every legal move's, best first."""

    outcome: str
    distance: int
    source: str
    moves: List[MoveAnalysis]
    optimal_count: Optional[int]
    table_id: str


@dataclasses.dataclass(frozen=True)
class Table:
    table_id: str
    puzzle: str
    parameters: str
    status: str  # LOADED, AVAILABLE, or REFUSED: <why>
    complete: bool
    states: int
    covered_states: int
    max_distance: int
    histogram: List[int]
    size_bytes: int
    generation: int


@dataclasses.dataclass(frozen=True)
class Sample:
    distance: int
    population: int
    states: List[Puzzle]  # in the request's form (generic: name and compact state)
    table_id: str


@dataclasses.dataclass(frozen=True)
class PuzzleInfo:
    """One puzzle the server answers (Client.puzzles): docs/API.md, "Puzzles"."""

    name: str
    title: str
    compact_form: str  # what the compact form holds, for people
    example: str  # a position worth solving, compact
    goal: str  # the goal, compact
    move_names: List[str]
    has_parameters: bool
    pattern_tables: bool  # its tables bound a search only (no counting)
    default_max_moves: int
    tables: List[str]  # the ids of the server's tables of it


# ------------------------------------------------------------------ the client


class Client:
    """A connection to one puzzledb server. Thread-safe; close() it, or use `with`.

    target: "host:port". TLS when any of root_certificates, private_key and
    certificate_chain is given (PEM bytes; the key and chain for a server that requires
    client certificates), or tls=True for the system's roots. timeout: the default
    deadline of every call in seconds (None: none).
    """

    def __init__(
        self,
        target: str,
        *,
        tls: bool = False,
        root_certificates: Optional[bytes] = None,
        private_key: Optional[bytes] = None,
        certificate_chain: Optional[bytes] = None,
        server_name: Optional[str] = None,
        timeout: Optional[float] = 10.0,
    ):
        self.target = target
        self.timeout = timeout
        self._channel = _open_channel(
            grpc, target, tls, root_certificates, private_key, certificate_chain, server_name)
        self._stub = solver_pb2_grpc.SolverStub(self._channel)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_until_ready(self, timeout: float = 10.0) -> None:
        """Returns once the server answers (it lists its tables); UNAVAILABLE after
        `timeout` seconds."""
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise PuzzledbError(
                grpc.StatusCode.UNAVAILABLE,
                f"no puzzledb server answered at {self.target} within {timeout} s",
            ) from None
        self.tables(timeout=timeout)

    # -------------------------------------------------------------- calls

    def solve(
        self,
        puzzle: PuzzleLike,
        state: Optional[str] = None,
        *,
        max_moves: int = 0,
        policy: str = "TABLE_THEN_SEARCH",
        max_solutions: int = 0,
        count_solutions: bool = False,
        timeout: Optional[float] = None,
    ) -> Answer:
        """The answer for `puzzle`: a Puzzle message, or a puzzle's name and its compact
        `state` (client.solve(p.name, p.example) for a PuzzleInfo p of client.puzzles())."""
        request = _solve_request(_as_puzzle(puzzle, state), max_moves, policy, max_solutions,
                                 count_solutions)
        return Answer._from(self._call(self._stub.Solve, request, timeout))

    def analyze(
        self,
        puzzle: PuzzleLike,
        state: Optional[str] = None,
        *,
        max_moves: int = 0,
        policy: str = "TABLE_THEN_SEARCH",
        count_solutions: bool = False,
        timeout: Optional[float] = None,
    ) -> Analysis:
        request = _analyze_request(_as_puzzle(puzzle, state), max_moves, policy, count_solutions)
        return _analysis_of(self._call(self._stub.Analyze, request, timeout))

    def solve_many(
        self,
        puzzles: Iterable[Union[Puzzle, Tuple[str, str]]],
        *,
        max_moves: int = 0,
        policy: str = "TABLE_THEN_SEARCH",
        batch_size: int = 2000,
        timeout: Optional[float] = None,
    ) -> List[Union[Answer, PuzzledbError]]:
        """Solves many puzzles (Puzzle messages, or (name, compact state) pairs) as
        SolveBatch calls of up to `batch_size` (1..10,000) puzzles,
        a few at a time (docs/API.md, "Batches"): far faster than one call each. A batch
        holds puzzles of one table, so behind a proxy the batches of the tables every
        replica holds are spread over the replicas (docs/API.md, "Table affinity"). The
        answers come in the puzzles' order; a puzzle the server refused (a malformed one,
        say) has a PuzzledbError in its place. A failed call raises PuzzledbError (the
        others are cancelled); `timeout` covers the whole."""
        batches = _Batches(puzzles, max_moves, policy, batch_size)
        total = self._deadline(timeout)
        end = None if total is None else time.monotonic() + total
        pending: List[Any] = []  # (k, future) in order
        try:
            for k in range(len(batches.requests) + _Batches.IN_FLIGHT):
                if len(pending) == _Batches.IN_FLIGHT or (k >= len(batches.requests) and pending):
                    first, future = pending.pop(0)
                    batches.take(first, future.result())
                if k < len(batches.requests):
                    left = None if end is None else max(end - time.monotonic(), 0.001)
                    pending.append((k, self._stub.SolveBatch.future(
                        batches.requests[k], timeout=left, metadata=batches.metadata(k))))
        except grpc.RpcError as e:
            raise _rpc_error(e) from None
        finally:
            for _, future in pending:
                future.cancel()
        return batches.answers()

    def solve_all(
        self,
        puzzles: Iterable[Puzzle],
        *,
        max_moves: int = 0,
        policy: str = "TABLE_THEN_SEARCH",
        timeout: Optional[float] = None,
    ) -> List[Union[Answer, PuzzledbError]]:
        """solve_many with its default batches (kept for callers written before it)."""
        return self.solve_many(puzzles, max_moves=max_moves, policy=policy, timeout=timeout)

    def tables(self, *, timeout: Optional[float] = None) -> List[Table]:
        return _tables_of(self._call(self._stub.ListTables, solver_pb2.ListTablesRequest(), timeout))

    def puzzles(self, *, timeout: Optional[float] = None) -> List[PuzzleInfo]:
        """The puzzles the server answers, each described (ListPuzzles)."""
        request = solver_pb2.ListPuzzlesRequest()
        return _puzzles_of(self._call(self._stub.ListPuzzles, request, timeout))

    def sample(
        self,
        puzzle: PuzzleLike,
        distance: Optional[int] = None,
        *,
        state: Optional[str] = None,
        count: int = 1,
        seed: int = 0,
        any_distance: bool = False,
        timeout: Optional[float] = None,
    ) -> Sample:
        """States drawn uniformly at `distance` from the goal (None: the largest there is)
        from the table of `puzzle`'s parameters (a Puzzle message, or a name and, for a
        puzzle with parameters, a `state` under them; the state itself is ignored). With
        any_distance (puzzles whose tables are pattern tables), among every solvable
        state. The states come in the request's form."""
        request = _sample_request(_as_puzzle(puzzle, state), distance, count, seed, any_distance)
        return _sample_of(self._call(self._stub.Sample, request, timeout))

    # -------------------------------------------------------------- helpers

    def _deadline(self, timeout: Optional[float]) -> Optional[float]:
        return timeout if timeout is not None else self.timeout

    def _call(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        try:
            return method(request, timeout=self._deadline(timeout), metadata=_metadata_of(request))
        except grpc.RpcError as e:
            raise _rpc_error(e) from None


# ------------------------------------------------------------------ requests and answers
# Shared by Client and puzzledb.aio.Client: everything but the call itself.


def _open_channel(
    channels: Any,
    target: str,
    tls: bool,
    root_certificates: Optional[bytes],
    private_key: Optional[bytes],
    certificate_chain: Optional[bytes],
    server_name: Optional[str],
) -> Any:
    """A channel from `channels` (the module grpc, or grpc.aio): TLS when any of the
    certificate arguments or `tls` asks for it, else plaintext."""
    # A batch's answers can exceed gRPC's default 4 MB.
    options: List[Tuple[str, Any]] = [("grpc.max_receive_message_length", 64 << 20)]
    if server_name:
        options.append(("grpc.ssl_target_name_override", server_name))
    if not (tls or root_certificates or private_key or certificate_chain):
        return channels.insecure_channel(target, options=options)
    credentials = grpc.ssl_channel_credentials(
        root_certificates=root_certificates,
        private_key=private_key,
        certificate_chain=certificate_chain,
    )
    return channels.secure_channel(target, credentials, options=options)


def _metadata_of(request: Any) -> Optional[Tuple[Tuple[str, str], ...]]:
    """The table-affinity metadata of a request with a puzzle (none without one)."""
    has_puzzle = "puzzle" in request.DESCRIPTOR.fields_by_name and request.HasField("puzzle")
    return _metadata(request.puzzle if has_puzzle else None)


def _rpc_error(e: grpc.RpcError) -> PuzzledbError:
    return PuzzledbError(e.code(), e.details() or "")


def _solve_request(
    puzzle: Optional[Puzzle],
    max_moves: int,
    policy: str,
    max_solutions: int,
    count_solutions: bool,
) -> solver_pb2.SolveRequest:
    request = solver_pb2.SolveRequest(
        max_moves=max_moves,
        policy=_policy(policy),
        max_solutions=max_solutions,
        count_solutions=count_solutions,
    )
    if puzzle is not None:
        request.puzzle.CopyFrom(puzzle)
    return request


def _analyze_request(
    puzzle: Puzzle, max_moves: int, policy: str, count_solutions: bool
) -> solver_pb2.AnalyzeRequest:
    return solver_pb2.AnalyzeRequest(
        puzzle=puzzle,
        max_moves=max_moves,
        policy=_policy(policy),
        count_solutions=count_solutions,
    )


def _analysis_of(r: solver_pb2.AnalyzeResponse) -> Analysis:
    return Analysis(
        outcome=solver_pb2.Outcome.Name(r.outcome),
        distance=r.distance,
        source=solver_pb2.Source.Name(r.source),
        moves=[
            MoveAnalysis(
                move=m.move,
                outcome=solver_pb2.Outcome.Name(m.outcome),
                distance=m.distance,
                optimal_count=int(m.optimal_count) if m.optimal_count else None,
            )
            for m in r.moves
        ],
        optimal_count=int(r.optimal_count) if r.optimal_count else None,
        table_id=r.table_id,
    )


def _tables_of(r: solver_pb2.ListTablesResponse) -> List[Table]:
    return [
        Table(
            table_id=t.table_id,
            puzzle=t.puzzle,
            parameters=t.parameters,
            status=t.status,
            complete=t.complete,
            states=t.states,
            covered_states=t.covered_states,
            max_distance=t.max_distance,
            histogram=list(t.histogram),
            size_bytes=t.size_bytes,
            generation=t.generation,
        )
        for t in r.tables
    ]


def _puzzles_of(r: solver_pb2.ListPuzzlesResponse) -> List[PuzzleInfo]:
    return [
        PuzzleInfo(
            name=p.name,
            title=p.title,
            compact_form=p.compact_form,
            example=p.example,
            goal=p.goal,
            move_names=list(p.move_names),
            has_parameters=p.has_parameters,
            pattern_tables=p.pattern_tables,
            default_max_moves=p.default_max_moves,
            tables=[t.table_id for t in p.tables],
        )
        for p in r.puzzles
    ]


def _sample_request(
    puzzle: Puzzle, distance: Optional[int], count: int, seed: int, any_distance: bool
) -> solver_pb2.SampleRequest:
    request = solver_pb2.SampleRequest(puzzle=puzzle, count=count, seed=seed)
    if any_distance:
        request.any_distance = True
    elif distance is None:
        request.largest = True
    else:
        request.distance = distance
    return request


def _sample_of(r: solver_pb2.SampleResponse) -> Sample:
    return Sample(
        distance=r.distance,
        population=r.population,
        states=list(r.states),
        table_id=r.table_id,
    )


class _Batches:
    """solve_many's batches (docs/API.md, "Batches"): a SolveBatch call each, named by its
    first puzzle's table. A proxy spreads the calls of the tables every replica holds and
    sends those of a table built on demand to one replica (docs/API.md, "Table affinity"),
    so the puzzles of such a table get batches of their own. And the answers, put back in
    the puzzles' order as the calls return, in any order."""

    # Calls in flight at once: enough to keep a server (or three replicas) busy.
    IN_FLIGHT = 4

    def __init__(
        self, puzzles: Iterable[Any], max_moves: int, policy: str, batch_size: int
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size {batch_size}: from 1 to {MAX_BATCH}")
        template = _solve_request(None, max_moves, policy, 0, False)
        self.requests: List[solver_pb2.SolveBatchRequest] = []
        self._tables: List[str] = []
        self._starts: List[int] = []  # batch k answers puzzles [starts[k], starts[k + 1])
        count = 0
        size = 0
        route = ""  # the current batch's: "" for tables every replica holds
        for one in puzzles:
            # A Puzzle message, or (name, compact state).
            puzzle = one if isinstance(one, Puzzle) else _as_puzzle(one[0], one[1])
            this = table_id(puzzle)
            this_route = "" if this in DEFAULT_TABLE_IDS else this
            if size == batch_size or this_route != route or not self.requests:
                self.requests.append(solver_pb2.SolveBatchRequest())
                self._tables.append(this)
                self._starts.append(count)
                size = 0
                route = this_route
            request = self.requests[-1].requests.add()
            request.CopyFrom(template)
            request.puzzle.CopyFrom(puzzle)
            size += 1
            count += 1
        self._starts.append(count)
        self._answers: List[Union[Answer, PuzzledbError, None]] = [None] * count
        self._seen = [False] * len(self.requests)

    def metadata(self, k: int) -> Optional[Tuple[Tuple[str, str], ...]]:
        """Batch k's table, for the proxy."""
        return (("puzzledb-table", self._tables[k]),) if self._tables[k] else None

    def take(self, k: int, response: solver_pb2.SolveBatchResponse) -> None:
        """Batch k's answers."""
        if self._seen[k]:
            raise PuzzledbError(grpc.StatusCode.INTERNAL, f"batch {k} answered twice")
        self._seen[k] = True
        base = self._starts[k]
        size = self._starts[k + 1] - base
        answered = response.responses
        if len(answered) != size:
            raise PuzzledbError(
                grpc.StatusCode.INTERNAL,
                f"the server answered {len(answered)} of batch {k}'s {size} requests",
            )
        answers = self._answers
        for i, one in enumerate(answered):
            answers[base + i] = _error_of(one.error) if one.HasField("error") else Answer._from(one)

    def take_answers_of(self, k: int) -> List[Union[Answer, PuzzledbError]]:
        """Batch k's answers, once it is answered, in its puzzles' order; they are not kept
        (the asyncio client yields them as they come)."""
        base, end = self._starts[k], self._starts[k + 1]
        taken = self._answers[base:end]
        self._answers[base:end] = [None] * (end - base)
        return cast("List[Union[Answer, PuzzledbError]]", taken)

    def answers(self) -> List[Union[Answer, PuzzledbError]]:
        """Every answer, once every batch is answered."""
        missing = self._seen.count(False)
        if missing:
            raise PuzzledbError(
                grpc.StatusCode.INTERNAL,
                f"no answers to {missing} of {len(self.requests)} batches",
            )
        return cast("List[Union[Answer, PuzzledbError]]", self._answers)


def _error_of(error: solver_pb2.Error) -> PuzzledbError:
    return PuzzledbError(_CODES.get(error.code, grpc.StatusCode.UNKNOWN), error.message)


def _policy(name: str) -> solver_pb2.Policy:
    if name not in _POLICIES:
        raise ValueError(f"policy {name!r}: one of {', '.join(_POLICIES)}")
    return cast("solver_pb2.Policy", solver_pb2.Policy.Value(name))
