"""puzzledb's client for asyncio, over grpc.aio: the calls of puzzledb.Client, awaited.

    import asyncio, puzzledb, puzzledb.aio

    async def main():
        async with puzzledb.aio.Client("127.0.0.1:50051") as client:
            answer = await client.solve(name, state)   # a puzzle's name, a compact state
            async for one in client.solve_many(puzzles):   # in the puzzles' order
                ...

    asyncio.run(main())

Requests, answers, errors, TLS, timeouts and table affinity are puzzledb.Client's
(clients/python/README.md); only the calls differ. A task cancelled while it awaits a
call cancels that call on the server too (gRPC sends the cancellation); solve_many's
calls in flight are cancelled when its iterator is closed or its task cancelled.

Use one event loop per process, as asyncio.run at the top of a program does: grpc.aio
(1.51, Debian 12's) binds its poller to every loop that has made a call, and wakes a
loop closed since with "Event loop is closed" errors printed by asyncio.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Callable, Iterable, List, Optional, Sequence, Tuple, Union

from puzzledb._grpc import grpc
from puzzledb.client import (
    Analysis,
    Answer,
    Distance,
    InputCase,
    PlayedState,
    Policy,
    Puzzle,
    PuzzleInfo,
    PuzzleLike,
    PuzzledbError,
    Retry,
    Sample,
    Table,
    _analysis_of,
    _as_puzzle,
    _analyze_request,
    _batch_bytes,
    _Batches,
    _Deadlines,
    _cases_of,
    _metadata_of,
    _open_channel,
    _played_of,
    _puzzles_of,
    _retry_wait,
    _rpc_error,
    _sample_of,
    _sample_request,
    _solve_request,
    _tables_of,
)
from puzzledb.v1 import solver_pb2, solver_pb2_grpc


class Client:
    """A connection to one puzzledb server for asyncio. Create it inside the event loop
    that uses it; `await close()` it, or use `async with`. Arguments as puzzledb.Client's."""

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
        self._channel = _open_channel(
            grpc.aio, target, tls, root_certificates, private_key, certificate_chain, server_name)
        self._stub = solver_pb2_grpc.SolverStub(self._channel)  # type: ignore[no-untyped-call]
        self._batch_bytes = _batch_bytes(self._channel)

    async def close(self) -> None:
        """Closes the connection; calls in flight fail with CANCELLED."""
        await self._channel.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def wait_until_ready(self, timeout: float = 10.0) -> None:
        """Returns once the server answers (it lists its tables); UNAVAILABLE after
        `timeout` seconds."""
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout)
        except asyncio.TimeoutError:
            raise PuzzledbError(
                grpc.StatusCode.UNAVAILABLE,
                f"no puzzledb server answered at {self.target} within {timeout} s",
            ) from None
        await self.tables(timeout=timeout)

    # -------------------------------------------------------------- calls

    async def solve(
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
        """As puzzledb.Client.solve."""
        request = _solve_request(_as_puzzle(puzzle, state), max_moves, policy, max_solutions,
                                 count_solutions)
        return Answer._from(await self._call(self._stub.Solve, request, timeout))

    async def analyze(
        self,
        puzzle: PuzzleLike,
        state: Optional[str] = None,
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        count_solutions: bool = False,
        timeout: Optional[float] = None,
    ) -> Analysis:
        """As puzzledb.Client.analyze."""
        request = _analyze_request(_as_puzzle(puzzle, state), max_moves, policy, count_solutions)
        return _analysis_of(await self._call(self._stub.Analyze, request, timeout))

    async def parse(self, puzzle: str, text: str, *,
                    timeout: Optional[float] = None) -> List[InputCase]:
        """As puzzledb.Client.parse."""
        request = solver_pb2.ParseInputRequest(puzzle=puzzle, input=text)
        return _cases_of(await self._call(self._stub.ParseInput, request, timeout))

    async def play(self, puzzle: str, state: str, moves: Sequence[str], *,
                   timeout: Optional[float] = None) -> List[PlayedState]:
        """As puzzledb.Client.play."""
        request = solver_pb2.PlayRequest(puzzle=puzzle, state=state, moves=list(moves))
        return _played_of(await self._call(self._stub.Play, request, timeout))

    async def tables(self, *, timeout: Optional[float] = None) -> List[Table]:
        """As puzzledb.Client.tables."""
        request = solver_pb2.ListTablesRequest()
        return _tables_of(await self._call(self._stub.ListTables, request, timeout))

    async def puzzles(self, *, timeout: Optional[float] = None) -> List[PuzzleInfo]:
        """As puzzledb.Client.puzzles."""
        request = solver_pb2.ListPuzzlesRequest()
        return _puzzles_of(await self._call(self._stub.ListPuzzles, request, timeout))

    async def sample(
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
        """As puzzledb.Client.sample."""
        request = _sample_request(_as_puzzle(puzzle, state), distance, count, seed, any_distance)
        return _sample_of(await self._call(self._stub.Sample, request, timeout))

    async def solve_many(
        self,
        puzzles: Iterable[Union[Puzzle, Tuple[str, str]]],
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        batch_size: int = 2000,
        timeout: Optional[float] = None,
        batch_timeout: Optional[float] = None,
    ) -> AsyncIterator[Union[Answer, PuzzledbError]]:
        """Yields an answer per puzzle, in the puzzles' order, as SolveBatch calls of up to
        `batch_size` puzzles of one table come back, a few at a time (as
        puzzledb.Client.solve_many; a refused puzzle has a PuzzledbError in its place). A
        batch's answers are yielded once every batch before it has been answered. Closing
        the iterator early (or cancelling its task) cancels the calls in flight.

        Deadlines, as puzzledb.Client.solve_many's: each batch has `batch_timeout` seconds
        from when it is first sent, its retries included (default: the client's `timeout`);
        the whole stream has none unless `timeout` is given."""
        batches = _Batches(puzzles, max_moves, policy, batch_size)
        loop = asyncio.get_running_loop()
        deadlines = _Deadlines(
            timeout, batch_timeout if batch_timeout is not None else self.timeout, loop.time)
        pending: List[Any] = []  # [k, call, retries] in order

        def send(k: int) -> Any:
            return self._batch_bytes(
                batches.requests[k], timeout=deadlines.left(k), metadata=batches.metadata(k))

        try:
            k = batches.next()
            while k is not None or pending:
                if k is not None and len(pending) < _Batches.IN_FLIGHT:
                    pending.append([k, send(k), 0])
                    k = batches.next()
                    continue
                while True:
                    first, call, retries = pending[0]
                    try:
                        response = await call
                        break
                    except grpc.RpcError as e:
                        wait = _retry_wait(e, self.retry, retries)
                        if wait is None or not deadlines.allow(first, wait):
                            raise
                        await self._pause(e, wait)
                        pending[0] = [first, send(first), retries + 1]
                pending.pop(0)
                deadlines.done(first)
                batches.take(first, response)
                for answer in batches.take_answers_of(first):
                    yield answer
        except grpc.RpcError as e:
            raise _rpc_error(e) from None
        finally:
            for _, call, _ in pending:
                call.cancel()  # a no-op once a call has ended

    async def solve_all(
        self,
        puzzles: Iterable[Union[Puzzle, Tuple[str, str]]],
        *,
        max_moves: int = 0,
        policy: Policy = "TABLE_THEN_SEARCH",
        timeout: Optional[float] = None,
        batch_timeout: Optional[float] = None,
    ) -> AsyncIterator[Union[Answer, PuzzledbError]]:
        """solve_many with its default batches (and its deadlines)."""
        async for answer in self.solve_many(
            puzzles, max_moves=max_moves, policy=policy, timeout=timeout,
            batch_timeout=batch_timeout,
        ):
            yield answer

    # -------------------------------------------------------------- helpers

    def _deadline(self, timeout: Optional[float]) -> Optional[float]:
        return timeout if timeout is not None else self.timeout

    async def _call(
        self, method: Callable[..., Any], request: Any, timeout: Optional[float]
    ) -> Any:
        """One unary call, retried as self.retry says within its deadline."""
        total = self._deadline(timeout)
        end = None if total is None else time.monotonic() + total
        metadata = _metadata_of(request)
        retries = 0
        while True:
            left = None if end is None else max(end - time.monotonic(), 0.001)
            try:
                return await method(request, timeout=left, metadata=metadata)
            except grpc.RpcError as e:
                wait = _retry_wait(e, self.retry, retries)
                if wait is None or (end is not None and time.monotonic() + wait >= end):
                    raise _rpc_error(e) from None
                await self._pause(e, wait)
            retries += 1

    async def _pause(self, e: Any, wait: float) -> None:
        """As puzzledb.Client's: after UNAVAILABLE, until connected again or `wait`."""
        if e.code() != grpc.StatusCode.UNAVAILABLE:
            await asyncio.sleep(wait)
            return
        try:
            await asyncio.wait_for(self._channel.channel_ready(), wait)
        except asyncio.TimeoutError:
            pass
