"""Every read of the HTTP routes runs under the query deadline, through one :class:`Reader`.

A route hands the Reader a function of this module (``function(pg, ...)``, defined at module
level so a worker process can be sent it by name) and gets its value, or a 503 at the deadline.

- On an on-disk store the function runs in a worker process (:mod:`provgraph.http.workers`) on a
  read-only ProvGraph over the newest checkpoint of the store; past the deadline the worker is
  killed and replaced. Writes go on in the server's own process, each followed by a checkpoint
  (:mod:`provgraph.store.snapshots`), so readers never wait for a write nor replay its log.
  Conflict records, document relations and the lexical index, which a read would otherwise
  compute for every answer on a checkpoint it cannot write, are brought up to date in the
  background by the server after a change (:class:`_Records`).
- In memory (or with ``query_workers=0``) it runs in a daemon thread over the store itself; the
  client is answered at the deadline and a thread still computing finishes in the background
  holding one of ``max_concurrent_queries`` slots. Daemon threads never hold up shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator
from datetime import date, datetime
from typing import Any, TypeVar

from provgraph import (
    AnswerMetrics,
    AnswerSummary,
    AskFilters,
    Composed,
    Conflict,
    Detail,
    DocumentRelation,
    DraftAnswer,
    EvidencePack,
    GeneratorKind,
    GroundedAnswer,
    RecordedAnswer,
    Replay,
    ResolutionStrategy,
)
from provgraph.graph import ProvGraph
from provgraph.http.errors import HttpError
from provgraph.http.evaluate import TIMEOUT, TOO_LARGE, LimitExceeded, capture
from provgraph.http.settings import ServerSettings
from provgraph.http.workers import BUSY, STOPPED, CallOutcome, CallTask, QueryPool
from provgraph.models import DerivedRecords, Evidence, ExportFormat, SourceInfo
from provgraph.options import ProvFormat
from provgraph.store.snapshots import Snapshots

logger = logging.getLogger("provgraph.http")
_T = TypeVar("_T")


# ---------------------------------------------------------------------- the reads of the routes


def sources(pg: ProvGraph) -> list[SourceInfo]:
    return pg.sources()


def source(pg: ProvGraph, document: str) -> SourceInfo:
    return pg.source(document)


def evidence(pg: ProvGraph, subject: str, predicate: str, obj: str | None, history: bool) -> list[Evidence]:
    return pg.evidence(subject, predicate, obj, include_history=history)


def conflicts(
    pg: ProvGraph, subject: str | None, predicate: str | None, strategy: ResolutionStrategy | None
) -> list[Conflict]:
    return pg.conflicts(subject=subject, predicate=predicate, strategy=strategy)


def related(pg: ProvGraph, document: str | None, min_strength: float) -> list[DocumentRelation]:
    return pg.related_documents(document, min_strength=min_strength)


def compose(
    pg: ProvGraph,
    question: str,
    generator: GeneratorKind,
    filters: AskFilters,
    detail: Detail,
    session: str | None,
    derived_from: list[str],
) -> Composed:
    return pg.compose(
        question, generator=generator, filters=filters, detail=detail, session=session, derived_from=derived_from
    )


def answers(pg: ProvGraph, session: str | None, invalidated: bool | None, limit: int) -> list[AnswerSummary]:
    return pg.answers(session=session, invalidated=invalidated, limit=limit)


def answer_metrics(pg: ProvGraph, since: date | None, until: date | None) -> AnswerMetrics:
    return pg.answer_metrics(since=since, until=until)


def answer(pg: ProvGraph, answer_id: str) -> RecordedAnswer:
    return pg.answer(answer_id)


def replay(pg: ProvGraph, answer_id: str, at: datetime | None) -> Replay:
    return pg.replay(answer_id, at=at)


def verify(pg: ProvGraph, answer: DraftAnswer, pack: EvidencePack, generator: str, detail: Detail) -> GroundedAnswer:
    return pg.verify(answer, pack, generator=generator, detail=detail)


def export(pg: ProvGraph, fmt: ExportFormat, graph: str | None, max_bytes: int, timeout: float) -> bytes:
    deadline = time.time() + timeout
    return capture(lambda out: pg.export(format=fmt, graph=graph, output=out), max_bytes=max_bytes, deadline=deadline)


def export_prov(
    pg: ProvGraph,
    graph: str | None,
    answer: str | None,
    fact: tuple[str, str, str] | None,
    fmt: ProvFormat,
    max_bytes: int,
) -> bytes:
    return _bounded(pg.export_prov(graph, answer=answer, fact=fact, format=fmt), max_bytes)  # built whole


def export_nanopubs(pg: ProvGraph, graph: str | None, fact: tuple[str, str, str] | None, max_bytes: int) -> bytes:
    return _bounded(pg.export_nanopubs(graph, fact=fact), max_bytes)


def _bounded(body: bytes, max_bytes: int) -> bytes:
    """An export built whole in memory, refused when it is over the response limit."""
    if len(body) > max_bytes:
        raise LimitExceeded(TOO_LARGE)
    return body


def read_graph(pg: ProvGraph, graph: str | None, fmt: ExportFormat, max_bytes: int, timeout: float) -> bytes | None:
    """The graph serialised, or None when the store has no such graph."""
    deadline = time.time() + timeout
    if not pg.graph_exists(graph):
        return None
    return capture(lambda out: pg.read_graph(graph, format=fmt, output=out), max_bytes=max_bytes, deadline=deadline)


# ---------------------------------------------------------------------- the Reader


class Reader:
    """Runs the reads of one app over ``pg`` (see the module docstring)."""

    def __init__(self, pg: ProvGraph, settings: ServerSettings) -> None:
        self.pg = pg
        self.settings = settings
        self.snapshots: Snapshots | None = None
        self.pool: QueryPool | None = None
        if settings.query_workers:
            self.snapshots = pg.checkpoints()
        if self.snapshots is not None:
            # with readers in front, what is left for the workers (the API's reads) starts them
            self.pool = QueryPool(self.snapshots, settings.query_workers, start=0 if settings.readers else 2)
        self.threads = DaemonThreads(settings.max_concurrent_queries)
        #: held by each ingest, and by the refresh of derived records, which must not see one half done
        self.ingest_lock = threading.Lock()
        self._records = _Records(pg, self.snapshots, self.ingest_lock) if self.snapshots is not None else None
        self._closed = False

    async def run(
        self,
        function: Callable[..., _T],
        *args: Any,
        records: Collection[DerivedRecords] = (),
        **kwargs: Any,
    ) -> _T:
        """``function(pg, *args, **kwargs)``, answered by the deadline: its value, its exception,
        or :class:`HttpError` 503. ``records``: the derived records it reads, refreshed in the
        background when the store changed (on a checkpoint, the function cannot store them)."""
        timeout = self.settings.query_timeout
        if self.pool is not None:
            if records and self._records is not None:
                self._records.poke(records)
            outcome = await self.pool.run(CallTask(function, args, kwargs), timeout)
            if outcome is None:
                raise self.timeout_error()
            if outcome == BUSY:
                raise busy_error()
            if outcome == STOPPED:
                raise stopping_error()
            if not isinstance(outcome, CallOutcome):
                raise HttpError(500, "the read's worker process died; try again")
            if outcome.error is not None:
                raise _limit_error(outcome.error, self.settings) from None
            return outcome.value  # type: ignore[no-any-return]
        try:
            return await self.threads.run(function, self.pg, *args, timeout=timeout, **kwargs)
        except LimitExceeded as exc:
            raise _limit_error(exc, self.settings) from None

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Around a write of a route (run in a thread): readers keep the last checkpoint meanwhile,
        and the writer makes the next one once done, so the first reader after it need not wait."""
        if self.snapshots is None:
            yield
            return
        with self.snapshots.writing():
            yield
        self.snapshots.refresh()

    def timeout_error(self) -> HttpError:
        return HttpError(
            503, f"the request ran past the {self.settings.query_timeout:g} s timeout and was stopped; narrow it"
        )

    def stop_reads(self) -> None:
        """Kill the workers (reads waiting for them get 503); reads still running in threads are
        abandoned. The checkpoints stay for other readers until :meth:`close`."""
        self.threads.stop()
        if self.pool is not None:
            self.pool.close()

    def close(self) -> None:
        """Kill the workers, delete the checkpoints; reads still running in threads are abandoned."""
        if self._closed:
            return
        self._closed = True
        self.stop_reads()
        if self.snapshots is not None:
            self.snapshots.close()


def busy_error() -> HttpError:
    return HttpError(503, "the server is busy with other requests; try again", headers={"Retry-After": "1"})


def stopping_error() -> HttpError:
    return HttpError(503, "the server is stopping; try again later", headers={"Connection": "close"})


def _limit_error(exc: BaseException, settings: ServerSettings) -> BaseException:
    if isinstance(exc, LimitExceeded):
        if exc.why == TIMEOUT:
            return HttpError(503, f"the request ran past the {settings.query_timeout:g} s timeout and was stopped")
        return HttpError(
            413, f"the response would be larger than {settings.max_result_bytes} bytes (--max-result-bytes)"
        )
    return exc


class DaemonThreads:
    """Blocking calls off the event loop in daemon threads, at most ``size`` at once, with the
    caller answered at a deadline even when the call goes on (a thread cannot be stopped). Unlike
    the thread pools of asyncio and concurrent.futures, nothing here is joined at exit."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._slots: asyncio.Semaphore | None = None
        self._waiting: set[asyncio.Future[Any]] = set()
        self._stopped = False

    def stop(self) -> None:
        """Answer every caller still waiting now (503: the server is stopping), and any later one
        at once; their threads are abandoned."""
        self._stopped = True
        for future in list(self._waiting):
            with contextlib.suppress(RuntimeError):  # its loop is closed: nobody waits any more
                future.get_loop().call_soon_threadsafe(_fail, future, stopping_error())

    async def run(self, function: Callable[..., _T], *args: Any, timeout: float | None, **kwargs: Any) -> _T:
        """``function(*args, **kwargs)`` in a daemon thread; :class:`HttpError` 503 when no slot
        frees up, or the call has not returned, within ``timeout`` seconds (None: wait)."""
        loop = asyncio.get_running_loop()
        if self._stopped:
            raise stopping_error()
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._size)
        slots = self._slots
        started = time.monotonic()
        try:
            await asyncio.wait_for(slots.acquire(), timeout)
        except TimeoutError:
            raise busy_error() from None
        done: asyncio.Future[_T] = loop.create_future()

        def settle(value: Any, error: BaseException | None) -> None:
            slots.release()  # only when the call has returned: an abandoned one keeps its slot
            if done.done():
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(value)

        def target() -> None:
            value: Any = None
            error: BaseException | None = None
            try:
                value = function(*args, **kwargs)
            except BaseException as exc:
                error = exc
            with contextlib.suppress(RuntimeError):  # the loop is gone: the server stopped
                loop.call_soon_threadsafe(settle, value, error)

        threading.Thread(target=target, name="provgraph-read", daemon=True).start()
        left = None if timeout is None else max(0.0, timeout - (time.monotonic() - started))
        self._waiting.add(done)
        try:
            return await asyncio.wait_for(asyncio.shield(done), left)
        except TimeoutError:
            done.cancel()  # what the call returns later goes nowhere
            raise HttpError(503, f"the request ran past the {timeout:g} s timeout and was stopped; narrow it") from None
        finally:
            self._waiting.discard(done)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


class _Records:
    """Keeps the derived records of the store current in the background (one refresh at a time),
    for the routes that read them: workers over a checkpoint can compute them for one answer but
    not store them."""

    def __init__(self, pg: ProvGraph, snapshots: Snapshots, ingest_lock: threading.Lock) -> None:
        self._pg = pg
        self._snapshots = snapshots
        self._ingest_lock = ingest_lock
        self._lock = threading.Lock()
        self._done: dict[DerivedRecords, int] = {}
        self._running = False

    def poke(self, records: Collection[DerivedRecords]) -> None:
        generation = self._pg.backend.generation
        with self._lock:
            wanted = [r for r in records if self._done.get(r) != generation]
            if not wanted or self._running:
                return
            self._running = True
        threading.Thread(target=self._refresh, args=(wanted,), name="provgraph-records", daemon=True).start()

    def _refresh(self, wanted: list[DerivedRecords]) -> None:
        before = after = self._pg.backend.generation
        wrote = True
        try:
            # after an ingest going on, never over half of one
            with self._ingest_lock, self._snapshots.writing():
                before = self._pg.backend.generation
                wrote = self._pg.refresh_records(wanted)
            if wrote:
                self._snapshots.refresh()
        except Exception:
            logger.exception("refreshing the derived records failed")
        finally:
            after = self._pg.backend.generation
            with self._lock:
                self._running = False
                # After a write of its own, the next poke checks once more (cheap when nothing
                # else changed meanwhile, which this cannot tell from its own writes).
                for record in wanted:
                    self._done[record] = (before if wrote else after) or 0


__all__ = ["DaemonThreads", "Reader"]
