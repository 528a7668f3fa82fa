"""puzzledb's gRPC API for Python: a typed Client over the generated stubs.

Every call raises PuzzledbError, which carries the gRPC status code and the server's
message (docs/API.md lists what each code means), and never returns a partial answer. A
call the server refused for now (its search pool or memory budget full, the server
restarting) is retried with jittered backoff within its deadline (Retry; docs/API.md,
"Retries").
"""

from __future__ import annotations

import dataclasses
import random
import time
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Literal, Optional, Sequence,
                    Tuple, Union, cast)

from puzzledb._grpc import grpc
from puzzledb._tables import DEFAULT_TABLE_IDS
from puzzledb.typed import compact_of, typed_table_id
from puzzledb.v1 import solver_pb2, solver_pb2_grpc

Puzzle = solver_pb2.Puzzle

# What a call may say and what an answer says, by name (docs/API.md): a type checker
# catches a wrong one. A policy is taken in any case.
Policy = Literal["TABLE_THEN_SEARCH", "TABLE_ONLY", "SEARCH_ONLY",
                 "table_then_search", "table_only", "search_only"]
Outcome = Literal["OUTCOME_UNSPECIFIED", "SOLVED", "NOT_WITHIN_LIMIT", "UNSOLVABLE"]
Source = Literal["SOURCE_UNSPECIFIED", "TABLE", "SEARCH"]

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


@dataclasses.dataclass(frozen=True)
class Retry:
    """How a call the server refused for now is tried again (docs/API.md, "Retries"): one
    that failed with UNAVAILABLE (no server reached: down, restarting), CANCELLED by a
    server that was stopping, or with a refusal the server says will pass (its search pool
    or memory budget full: RESOURCE_EXHAUSTED with a `grpc-retry-pushback-ms` trailer, whose
    wait is kept to). Up to `attempts` in all, waiting between them a random time between
    half and all of a backoff that starts at `initial_backoff` seconds and grows
    `multiplier` times up to `max_backoff`; never past the call's deadline. A refusal that will not pass (a malformed request, a search that
    used its node budget) is never retried. After UNAVAILABLE a wait ends as soon as the
    connection is made again. With the defaults a call keeps trying for 3 to 6 seconds (a
    restart's time) before it gives up with the last error. Retry(attempts=1), or
    retry=None, turns retries off."""

    attempts: int = 6
    initial_backoff: float = 0.2
    max_backoff: float = 3.0
    multiplier: float = 2.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.initial_backoff < 0 or self.max_backoff < self.initial_backoff \
                or self.multiplier < 1:
            raise ValueError(f"{self}: attempts >= 1, 0 <= initial_backoff <= max_backoff, "
                             "multiplier >= 1")

    def backoff(self, retry: int) -> float:
        """The wait before retry number `retry` (1, 2, ...), jittered."""
        b = min(self.initial_backoff * self.multiplier ** (retry - 1), self.max_backoff)
        return b / 2 + random.uniform(0, b / 2)


def _retry_wait(e: Any, retry: Optional[Retry], retries_done: int) -> Optional[float]:
    """How long to wait before trying a failed call again, or None not to."""
    if retry is None or retries_done + 1 >= retry.attempts:
        return None
    code = e.code() if callable(getattr(e, "code", None)) else None
    if code == grpc.StatusCode.CANCELLED:
        # Not by this client (its own cancels end the call without an error to retry): a
        # server that began to stop cancels the calls that reached it in that instant.
        return retry.backoff(retries_done + 1)
    if code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
        return None
    pushback = None
    try:
        for key, value in e.trailing_metadata() or ():
            if key == "grpc-retry-pushback-ms":
                pushback = int(value)
    except (TypeError, ValueError):
        return None
    if pushback is None and code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None  # not the server's refusal (a message over gRPC's size limit, say)
    if pushback is not None and pushback < 0:
        return None  # the server says it will not pass
    return max(retry.backoff(retries_done + 1), (pushback or 0) / 1000)


# ------------------------------------------------------------------ puzzles


def puzzle(name: str, state: str = "", *, scramble: Optional[str] = None) -> Puzzle:
    """A puzzle in the generic form: its name (Client.puzzles lists them) and its state in
    the puzzle's compact form (PuzzleInfo.compact_form says what it holds, `example` shows
    one). For a sample, a puzzle without parameters needs no state. Or instead of a state,
    `scramble`: the moves from the goal, by name (PuzzleInfo.move_names), separated by
    spaces, for a puzzle without parameters (docs/API.md, "Scrambles")."""
    if scramble is not None:
        if state:
            raise TypeError("give a state or a scramble, not both")
        return Puzzle(name=name, scramble=scramble)
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


class Answer:
    """One solve (docs/API.md, "Solve"): a read-only view of the server's answer, each field
    read from its message when asked for, so that solve_many hands out hundreds of
    thousands of them at the cost of one small object each.

    outcome: SOLVED, NOT_WITHIN_LIMIT or UNSOLVABLE. distance: the number of moves when
    SOLVED. moves: the lexicographically smallest optimal sequence, by name. source: TABLE
    or SEARCH. solutions: the first optimal sequences, when asked for (max_solutions).
    optimal_count: how many there are, when counted (else None). final_state: for a puzzle
    with several goal states, the one the moves reach, compact (else ""). table_id, table_generation,
    table_crc32: the table build that answered ("", 0, 0 for a search; docs/API.md,
    "Provenance"). lookups, nodes, micros: the work and time it took. id: the request's.
    """

    __slots__ = ("_m", "_raw")
    _FIELDS = ("outcome", "distance", "moves", "source", "solutions", "optimal_count",
               "final_state", "table_id", "table_generation", "table_crc32", "lookups", "nodes",
               "micros", "id")

    def __init__(self, response: Union[solver_pb2.SolveResponse, bytes]) -> None:
        # A message, or its bytes (solve_many's), parsed when a field is first read.
        if isinstance(response, bytes):
            self._m: Optional[solver_pb2.SolveResponse] = None
            self._raw: Optional[bytes] = response
        else:
            self._m = response
            self._raw = None

    @property
    def _r(self) -> solver_pb2.SolveResponse:
        if self._m is None:
            self._m = solver_pb2.SolveResponse.FromString(self._raw)
            self._raw = None
        return self._m

    @staticmethod
    def _from(response: solver_pb2.SolveResponse) -> "Answer":
        return Answer(response)

    @property
    def outcome(self) -> Outcome:
        """SOLVED, NOT_WITHIN_LIMIT or UNSOLVABLE."""
        n = self._r.outcome
        return cast(Outcome, _OUTCOMES.get(n) or solver_pb2.Outcome.Name(n))

    @property
    def distance(self) -> int:
        """The number of moves when SOLVED, else 0."""
        return self._r.distance

    @property
    def moves(self) -> List[str]:
        """The lexicographically smallest optimal sequence, by name."""
        return list(self._r.moves)

    @property
    def source(self) -> Source:
        """TABLE or SEARCH: where the answer came from."""
        n = self._r.source
        return cast(Source, _SOURCES.get(n) or solver_pb2.Source.Name(n))

    @property
    def solutions(self) -> List[List[str]]:
        """The first optimal sequences, when max_solutions asked for them."""
        return [list(s.moves) for s in self._r.solutions]

    @property
    def optimal_count(self) -> Optional[int]:
        """How many optimal sequences there are, when counted (else None)."""
        count = self._r.optimal_count
        return int(count) if count else None

    @property
    def final_state(self) -> str:
        """For a puzzle with several goals, the one reached, compact (else "")."""
        return compact_of(self._r.final_state) if self._r.HasField("final_state") else ""

    @property
    def table_id(self) -> str:
        """The table that answered ("" for a search)."""
        return self._r.table_id

    @property
    def table_generation(self) -> int:
        """That table's build (docs/API.md, "Provenance"; 0 for a search)."""
        return self._r.table_generation

    @property
    def table_crc32(self) -> int:
        """That table's content checksum (0 for a search)."""
        return self._r.table_crc32

    @property
    def lookups(self) -> int:
        """Table entries read."""
        return self._r.lookups

    @property
    def nodes(self) -> int:
        """Search nodes expanded."""
        return self._r.nodes

    @property
    def micros(self) -> int:
        """The server's time on it, in microseconds."""
        return self._r.micros

    @property
    def id(self) -> int:
        """The request's id."""
        return self._r.id

    def as_dict(self) -> Dict[str, Any]:
        """Every field by name, read now."""
        return {name: getattr(self, name) for name in Answer._FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Answer(" + ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()) + ")"


@dataclasses.dataclass(frozen=True)
class MoveAnalysis:
    """One legal move of an Analysis: its name, and the outcome and distance after it."""

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
    """One table of the server's database (Client.tables; docs/API.md, "ListTables")."""

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
    """States drawn at an exact distance (Client.sample): `compact` their compact forms,
    `states` the same as messages in the request's form; `population` how many states there
    are at `distance`; `table_id` the table drawn from."""

    distance: int
    population: int
    compact: List[str]
    table_id: str
    states: List[Puzzle] = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class InputCase:
    """One case of an original input (Client.parse): its `number` (from 1), the `line` it
    starts on, and its compact `state`, or the `error` that says why it was refused."""

    number: int
    line: int
    state: str
    error: str


@dataclasses.dataclass(frozen=True)
class PlayedState:
    """A state a played move reached (Client.play): compact, whether it is a `goal`, the
    `legal_moves` there in canonical order, and the `table_id` that answers it."""

    state: str
    goal: bool
    legal_moves: List[str]
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
    # A puzzle given as a definition: the file (docs/PUZZLES.md, "Puzzles as data"); "" for
    # one written in C++.
    definition: str = dataclasses.field(default="", repr=False)
    # How its move orientations are read: 2, by piece (twsearch's); 0 from an older server,
    # which read them by destination (docs/API.md).
    definition_reading: int = dataclasses.field(default=0, repr=False)


# ------------------------------------------------------------------ the client


class Client:
    """A connection to one puzzledb server. Thread-safe; close() it, or use `with`.

    target: "host:port". TLS when any of root_certificates, private_key and
    certificate_chain is given (PEM bytes; the key and chain for a server that requires
    client certificates), or tls=True for the system's roots. timeout: the default
    deadline of every call in seconds (None: none), its retries included. retry: how a call
    refused for now is tried again (Retry; None: never).
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
        retry: Optional[Retry] = Retry(),
    ):
        self.target = target
        self.timeout = timeout
        self.retry = retry
        self._watched = float("-inf")  # when _pause last watched the connection
        self._channel = _open_channel(
            grpc, target, tls, root_certificates, private_key, certificate_chain, server_name)
        self._stub = solver_pb2_grpc.SolverStub(self._channel)  # type: ignore[no-untyped-call]
        self._batch_bytes = _batch_bytes(self._channel)

    def close(self) -> None:
        """Closes the connection; calls in flight fail with CANCELLED."""
        # grpcio's thread that watched the connection (Client._pause) looks again every
        # 0.2 s until it sees nobody waits, and raises in the background if the channel is
        # closed under it: a close just after a retry waits for it to end.
        left = self._watched + 0.3 - time.monotonic()
        if left > 0:
            time.sleep(left)
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
        policy: Policy = "TABLE_THEN_SEARCH",
        max_solutions: int = 0,
        count_solutions: bool = False,
        timeout: Optional[float] = None,
    ) -> Answer:
        """The answer for `puzzle`: a Puzzle message, or a puzzle's name and its compact
        `state` (client.solve(p.name, p.example) for a PuzzleInfo p of client.puzzles()).
        max_moves: 0 for no limit, else NOT_WITHIN_LIMIT past it. policy: where the answer
        may come from. max_solutions: list the first optimal sequences too (2..10,000).
        count_solutions: count the optimal sequences (optimal_count). docs/API.md, "Solve"."""
        request = _solve_request(_as_puzzle(puzzle, state), max_moves, policy, max_solutions,
                                 count_solutions)
        return Answer._from(self._call(self._stub.Solve, request, timeout))

    def analyze(
        self,
        puzzle: PuzzleLike,
        state: Optional[str] = None,
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        count_solutions: bool = False,
        timeout: Optional[float] = None,
    ) -> Analysis:
        """The distance of `puzzle` (a Puzzle message, or a name and a compact `state`) and
        of every legal move from it, best first (docs/API.md, "Analyze")."""
        request = _analyze_request(_as_puzzle(puzzle, state), max_moves, policy, count_solutions)
        return _analysis_of(self._call(self._stub.Analyze, request, timeout))

    def solve_many(
        self,
        puzzles: Iterable[Union[Puzzle, Tuple[str, str]]],
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        batch_size: int = 2000,
        timeout: Optional[float] = None,
        batch_timeout: Optional[float] = None,
    ) -> Iterator[Union[Answer, PuzzledbError]]:
        """Yields an answer per puzzle (Puzzle messages, or (name, compact state) pairs), in
        the puzzles' order, as SolveBatch calls of up to `batch_size` (1..10,000) puzzles
        come back, a few at a time (docs/API.md, "Batches"): far faster than one call each.
        The puzzles are read as batches are sent (a generator of millions is never held
        whole) and a batch's answers are let go once yielded, so memory stays that of a few
        batches. A batch holds puzzles of one table, so behind a proxy the batches
        of the tables every replica holds are spread over the replicas (docs/API.md, "Table
        affinity"). A puzzle the server refused (a malformed one, say) has a PuzzledbError
        in its place. A batch refused for now is sent again (Retry); a failed call raises
        PuzzledbError and cancels the others; closing the iterator early cancels the calls
        in flight. solve_all gives a list.

        Deadlines: each batch has `batch_timeout` seconds from when it is first sent, its
        retries included (default: the client's `timeout`, as for any call); the whole
        stream has none unless `timeout` is given, so that millions of puzzles are not cut
        off at the client's default."""
        batches = _Batches(puzzles, max_moves, policy, batch_size)
        deadlines = _Deadlines(
            timeout, batch_timeout if batch_timeout is not None else self.timeout, time.monotonic)
        pending: List[Any] = []  # [k, future, retries] in order

        def send(k: int) -> Any:
            return self._batch_bytes.future(
                batches.requests[k], timeout=deadlines.left(k), metadata=batches.metadata(k))

        try:
            k = batches.next()
            while k is not None or pending:
                if k is not None and len(pending) < _Batches.IN_FLIGHT:
                    pending.append([k, send(k), 0])
                    k = batches.next()
                    continue
                while True:
                    first, future, retries = pending[0]
                    try:
                        response = future.result()
                        break
                    except grpc.RpcError as e:
                        wait = _retry_wait(e, self.retry, retries)
                        if wait is None or not deadlines.allow(first, wait):
                            raise
                        self._pause(e, wait)
                        pending[0] = [first, send(first), retries + 1]
                pending.pop(0)
                deadlines.done(first)
                batches.take(first, response)
                yield from batches.take_answers_of(first)
        except grpc.RpcError as e:
            raise _rpc_error(e) from None
        finally:
            for _, future, _ in pending:
                future.cancel()

    def solve_all(
        self,
        puzzles: Iterable[Puzzle],
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        timeout: Optional[float] = None,
        batch_timeout: Optional[float] = None,
    ) -> List[Union[Answer, PuzzledbError]]:
        """solve_many's answers with its default batches, as a list (its deadlines too:
        `batch_timeout` each batch, `timeout` the whole, none by default)."""
        return list(self.solve_many(puzzles, max_moves=max_moves, policy=policy, timeout=timeout,
                                    batch_timeout=batch_timeout))

    def parse(self, puzzle: str, text: str, *, timeout: Optional[float] = None) -> List[InputCase]:
        """An original problem input (`text`, as pasted) read by the server's model of
        `puzzle`: each case's compact form, or why it was refused (docs/API.md, "HTTP":
        /v1/parse). At most 1,000 cases."""
        request = solver_pb2.ParseInputRequest(puzzle=puzzle, input=text)
        return _cases_of(self._call(self._stub.ParseInput, request, timeout))

    def play(
        self, puzzle: str, state: str, moves: Sequence[str], *, timeout: Optional[float] = None
    ) -> List[PlayedState]:
        """The states `moves` (by name) pass through from `state`, the start first, as the
        server's model of `puzzle` plays them; a move that is not legal where it is made is
        INVALID_ARGUMENT naming it. At most 1,000 moves."""
        request = solver_pb2.PlayRequest(puzzle=puzzle, state=state, moves=list(moves))
        return _played_of(self._call(self._stub.Play, request, timeout))

    def tables(self, *, timeout: Optional[float] = None) -> List[Table]:
        """The tables of the server's database, with their coverage and status."""
        return _tables_of(self._call(self._stub.ListTables, solver_pb2.ListTablesRequest(), timeout))

    def puzzles(self, *, timeout: Optional[float] = None) -> List[PuzzleInfo]:
        """The puzzles the server answers, each described (ListPuzzles)."""
        request = solver_pb2.ListPuzzlesRequest()
        return _puzzles_of(self._call(self._stub.ListPuzzles, request, timeout))

    def sample(
        self,
        puzzle: PuzzleLike,
        distance: Distance = "max",
        *,
        state: Optional[str] = None,
        count: int = 1,
        seed: int = 0,
        any_distance: bool = False,
        timeout: Optional[float] = None,
    ) -> Sample:
        """`count` states drawn uniformly at `distance` moves from the goal ("max", the
        default: the largest distance there is; "any": among every solvable state, for
        puzzles whose tables are pattern tables) from the table of `puzzle`'s parameters: a
        name (client.sample(name, 20)), with for a puzzle with parameters a `state`
        under them (the state itself is ignored), or a Puzzle message. `seed` makes the
        draw repeatable. Sample.compact holds the states' compact forms."""
        request = _sample_request(_as_puzzle(puzzle, state), distance, count, seed, any_distance)
        return _sample_of(self._call(self._stub.Sample, request, timeout))

    # -------------------------------------------------------------- helpers

    def _deadline(self, timeout: Optional[float]) -> Optional[float]:
        return timeout if timeout is not None else self.timeout

    def _call(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        """One unary call, retried as self.retry says within its deadline."""
        total = self._deadline(timeout)
        end = None if total is None else time.monotonic() + total
        metadata = _metadata_of(request)
        retries = 0
        while True:
            left = None if end is None else max(end - time.monotonic(), 0.001)
            try:
                return method(request, timeout=left, metadata=metadata)
            except grpc.RpcError as e:
                wait = _retry_wait(e, self.retry, retries)
                if wait is None or (end is not None and time.monotonic() + wait >= end):
                    raise _rpc_error(e) from None
                self._pause(e, wait)
            retries += 1

    def _pause(self, e: Any, wait: float) -> None:
        """The wait before a retry. After UNAVAILABLE it ends as soon as the connection is
        made again: gRPC fails calls at once until it has reconnected."""
        if e.code() != grpc.StatusCode.UNAVAILABLE:
            time.sleep(wait)
            return
        ready = grpc.channel_ready_future(self._channel)
        try:
            ready.result(timeout=wait)
        except grpc.FutureTimeoutError:
            pass
        finally:
            ready.cancel()
            self._watched = time.monotonic()


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
    # A batch's answers can exceed gRPC's default 4 MB. A channel that lost its server
    # tries to reconnect after 0.1 s, then at least every second (gRPC's default backoff
    # grows to 2 minutes, and calls fail at once while it waits): a restarted server is
    # found again within the retries (Retry).
    options: List[Tuple[str, Any]] = [("grpc.max_receive_message_length", 64 << 20),
                                      ("grpc.initial_reconnect_backoff_ms", 100),
                                      ("grpc.max_reconnect_backoff_ms", 1000)]
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


def _batch_bytes(channel: Any) -> Any:
    """SolveBatch, answered with the answer's bytes (no deserializer): _Batches.take cuts
    them into answers that parse themselves when read."""
    return channel.unary_unary(
        "/puzzledb.v1.Solver/SolveBatch",
        request_serializer=solver_pb2.SolveBatchRequest.SerializeToString,
        response_deserializer=None,
    )


def _metadata_of(request: Any) -> Optional[Tuple[Tuple[str, str], ...]]:
    """The table-affinity metadata of a request with a puzzle (none without one)."""
    field = request.DESCRIPTOR.fields_by_name.get("puzzle")
    has_puzzle = (field is not None and field.message_type is not None
                  and request.HasField("puzzle"))  # ParseInput's and Play's are names
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


def _cases_of(r: solver_pb2.ParseInputResponse) -> List[InputCase]:
    return [InputCase(c.number, c.line, c.state, c.error) for c in r.cases]


def _played_of(r: solver_pb2.PlayResponse) -> List[PlayedState]:
    return [PlayedState(s.state, s.goal, list(s.legal_moves), s.table_id) for s in r.states]


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
            definition=p.definition,
            definition_reading=p.definition_reading,
        )
        for p in r.puzzles
    ]


Distance = Union[int, Literal["max", "any"], None]


def _sample_request(
    puzzle: Puzzle, distance: Distance, count: int, seed: int, any_distance: bool
) -> solver_pb2.SampleRequest:
    request = solver_pb2.SampleRequest(puzzle=puzzle, count=count, seed=seed)
    if any_distance or distance == "any":
        request.any_distance = True
    elif distance is None or distance == "max":
        request.largest = True
    elif isinstance(distance, int) and not isinstance(distance, bool) and distance >= 0:
        request.distance = distance
    else:
        raise ValueError(f"distance {distance!r}: a number of moves (0 or more), 'max' or 'any'")
    return request


def _sample_of(r: solver_pb2.SampleResponse) -> Sample:
    states = list(r.states)
    return Sample(
        distance=r.distance,
        population=r.population,
        compact=[compact_of(s) for s in states],
        table_id=r.table_id,
        states=states,
    )


class _Deadlines:
    """solve_many's deadlines: each batch's, `per_batch` seconds from its first send (its
    retries within it), and the whole stream's, `whole` seconds from now; None: no limit."""

    def __init__(
        self, whole: Optional[float], per_batch: Optional[float], clock: Callable[[], float]
    ) -> None:
        self._clock = clock
        self._timeout = whole
        self._whole = None if whole is None else clock() + whole
        self._per_batch = per_batch
        self._batch: Dict[int, float] = {}

    def _end(self, k: int) -> Optional[float]:
        ends = [e for e in (self._whole, self._batch.get(k)) if e is not None]
        return min(ends) if ends else None

    def left(self, k: int) -> Optional[float]:
        """The timeout of a send of batch k (the first starts the batch's clock); past the
        whole stream's deadline, DEADLINE_EXCEEDED instead of a call."""
        if self._whole is not None and self._clock() >= self._whole:
            raise PuzzledbError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the stream's timeout of {self._timeout} s passed with batches left to send")
        if self._per_batch is not None and k not in self._batch:
            self._batch[k] = self._clock() + self._per_batch
        end = self._end(k)
        return None if end is None else max(end - self._clock(), 0.001)

    def allow(self, k: int, wait: float) -> bool:
        """Whether batch k may be sent again after `wait` seconds."""
        end = self._end(k)
        return end is None or self._clock() + wait < end

    def done(self, k: int) -> None:
        self._batch.pop(k, None)


class _Batches:
    """solve_many's batches (docs/API.md, "Batches"): a SolveBatch call each, named by its
    first puzzle's table. A proxy spreads the calls of the tables every replica holds and
    sends those of a table built on demand to one replica (docs/API.md, "Table affinity"),
    so the puzzles of such a table get batches of their own. And the answers, put back in
    the puzzles' order as the calls return, in any order.

    The answers come as bytes (the calls are made without a deserializer) and are cut into
    one byte string per answer here; each Answer parses its own when first read. Parsing
    them all at once cost about 5 us an answer, most of the client's time (docs/PERFORMANCE.md,
    "The Python client's bulk path")."""

    # Calls in flight at once: enough to keep a server (or three replicas) busy.
    IN_FLIGHT = 4

    def __init__(
        self, puzzles: Iterable[Any], max_moves: int, policy: str, batch_size: int
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size {batch_size}: from 1 to {MAX_BATCH}")
        self._template = _solve_request(None, max_moves, policy, 0, False)
        self._plain = self._template.ByteSize() == 0  # no field but the puzzle to set
        self._batch_size = batch_size
        # The puzzles are read as batches are asked for (next), so that a generator of
        # millions is never held whole: only the batches in flight and their answers are.
        self._puzzles = iter(puzzles)
        self._ahead: Optional[Tuple[Puzzle, str]] = None  # read, not yet in a batch
        self._made = 0
        self.requests: Dict[int, solver_pb2.SolveBatchRequest] = {}
        self._tables: Dict[int, str] = {}
        self._answers: Dict[int, List[Union[Answer, PuzzledbError]]] = {}

    def _read(self) -> Optional[Tuple[Puzzle, str]]:
        if self._ahead is not None:
            one, self._ahead = self._ahead, None
            return one
        for item in self._puzzles:
            # A Puzzle message, or (name, compact state).
            puzzle = item if isinstance(item, Puzzle) else _as_puzzle(item[0], item[1])
            return puzzle, table_id(puzzle)
        return None

    def next(self) -> Optional[int]:
        """The next batch's number, made from the next puzzles (None when there are none):
        up to batch_size of them, of one route."""
        first = self._read()
        if first is None:
            return None
        k = self._made
        self._made += 1
        batch = solver_pb2.SolveBatchRequest()
        route = "" if first[1] in DEFAULT_TABLE_IDS else first[1]
        self._tables[k] = first[1]
        one = first
        while True:
            request = batch.requests.add()
            if self._plain:  # the usual case: one copy, not two
                request.puzzle.CopyFrom(one[0])
            else:
                request.CopyFrom(self._template)
                request.puzzle.CopyFrom(one[0])
            if len(batch.requests) == self._batch_size:
                break
            after = self._read()
            if after is None:
                break
            if ("" if after[1] in DEFAULT_TABLE_IDS else after[1]) != route:
                self._ahead = after  # a batch of its own route
                break
            one = after
        self.requests[k] = batch
        return k

    def metadata(self, k: int) -> Optional[Tuple[Tuple[str, str], ...]]:
        """Batch k's table, for the proxy."""
        return (("puzzledb-table", self._tables[k]),) if self._tables[k] else None

    def take(self, k: int, response: bytes) -> None:
        """Batch k's answers: a SolveBatchResponse, serialized. Its request is let go."""
        if k not in self.requests:
            raise PuzzledbError(grpc.StatusCode.INTERNAL, f"batch {k} answered twice")
        size = len(self.requests.pop(k).requests)
        del self._tables[k]
        answered: Sequence[Any] = _split_answers(response)
        if not answered and response:  # not as the server writes them: parse it whole
            answered = solver_pb2.SolveBatchResponse.FromString(response).responses
        if len(answered) != size:
            raise PuzzledbError(
                grpc.StatusCode.INTERNAL,
                f"the server answered {len(answered)} of batch {k}'s {size} requests",
            )
        answers: List[Union[Answer, PuzzledbError]] = []
        for one in answered:
            if isinstance(one, bytes):
                # An answer's first field is its outcome (tag 08), which an error never has
                # (docs/API.md, "Batches"); anything else is parsed now to see which it is.
                if one[:1] == b"\x08":
                    answers.append(Answer(one))
                    continue
                one = solver_pb2.SolveResponse.FromString(one)
            answers.append(_error_of(one.error) if one.HasField("error") else Answer(one))
        self._answers[k] = answers

    def take_answers_of(self, k: int) -> List[Union[Answer, PuzzledbError]]:
        """Batch k's answers, once it is answered, in its puzzles' order; they are not kept
        (the asyncio client yields them as they come)."""
        return self._answers.pop(k)


def _split_answers(data: bytes) -> List[bytes]:
    """The answers of a serialized SolveBatchResponse, each still serialized: the bytes are
    field 1 (`responses`, tag 0a) again and again, each a length and the answer. Empty when
    they hold anything else (the caller parses them whole then)."""
    out: List[bytes] = []
    append = out.append
    pos, n = 0, len(data)
    while pos < n:
        if data[pos] != 0x0A or pos + 1 >= n:
            return []
        length = data[pos + 1]
        pos += 2
        if length & 0x80:
            length &= 0x7F
            shift = 7
            while True:
                if pos >= n or shift > 28:
                    return []
                byte = data[pos]
                pos += 1
                length |= (byte & 0x7F) << shift
                if not byte & 0x80:
                    break
                shift += 7
        end = pos + length
        if end > n:
            return []
        append(data[pos:end])
        pos = end
    return out


def _error_of(error: solver_pb2.Error) -> PuzzledbError:
    return PuzzledbError(_CODES.get(error.code, grpc.StatusCode.UNKNOWN), error.message)


def _policy(name: str) -> solver_pb2.Policy:
    upper = name.upper() if isinstance(name, str) else name
    if upper not in _POLICIES:
        raise ValueError(f"policy {name!r}: one of {', '.join(_POLICIES)} (any case)")
    return cast("solver_pb2.Policy", solver_pb2.Policy.Value(upper))
