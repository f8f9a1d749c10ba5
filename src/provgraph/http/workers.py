"""Worker processes that evaluate reads (SPARQL queries, and every other read of the HTTP routes)
over a checkpoint of an on-disk store, so that a read past its deadline is stopped by ending its
process.

pyoxigraph 0.5 offers no way to interrupt a query from Python (its cancellation token is in the
Rust API only), and a thread cannot be killed. A worker opens the newest checkpoint of the store
(:mod:`provgraph.store.snapshots`) read-only, and opens the next one when the server has written
since: a checkpoint has no write-ahead log to replay and nobody writes it, unlike a read-only
open of the live store. A read past its deadline has its worker killed and replaced; the client
gets the 503 at the deadline.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from provgraph.http.evaluate import QueryAnswer, answer
from provgraph.query import PreparedQuery
from provgraph.store.snapshots import Snapshots


@dataclass(frozen=True)
class QueryTask:
    prepared: PreparedQuery
    accept: str | None
    max_bytes: int
    deadline: float  # time.time() seconds: comparable across processes


@dataclass(frozen=True)
class CallTask:
    """``function(pg, *args, **kwargs)`` on a read-only ProvGraph over the checkpoint; ``function``
    is defined at module level (it is sent by name)."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CallOutcome:
    value: Any = None
    error: BaseException | None = None


#: What :meth:`QueryPool.run` returns when no worker was free by the deadline, when the worker
#: died, and when the pool was closed (the server is stopping).
BUSY = "busy"
DIED = "died"
STOPPED = "stopped"


def _portable(exc: BaseException) -> BaseException:
    """``exc`` as it can cross to the server: an exception that does not survive pickling (its
    constructor takes other arguments than its message) becomes a ProvGraphError with its text."""
    from provgraph.errors import ProvGraphError

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return ProvGraphError(str(exc))
    exc.__traceback__ = None  # its frames hold pyoxigraph objects; nothing to show the client
    return exc


def _serve(conn: Connection, store: str) -> None:
    """The worker's loop: one (checkpoint, task) in, one answer out."""
    from provgraph.errors import QueryError
    from provgraph.graph import ProvGraph
    from provgraph.query import QueryResult
    from provgraph.store.oxigraph import OxigraphBackend

    pg: ProvGraph | None = None
    opened = ""
    conn.send("ready")  # imports done: a query's deadline must not pay for starting a worker
    while True:
        try:
            snapshot, task = conn.recv()
        except EOFError:
            return
        answered: QueryAnswer | CallOutcome
        try:
            if pg is None or snapshot != opened:
                if pg is not None:
                    pg.close()
                    pg = None
                pg = ProvGraph(OxigraphBackend.open_snapshot(snapshot, store=Path(store)))
                opened = snapshot
        except Exception as exc:
            failed = QueryAnswer(500, f"opening the store failed: {exc}".encode())
            conn.send(failed if isinstance(task, QueryTask) else CallOutcome(error=_portable(exc)))
            continue
        if isinstance(task, CallTask):
            try:
                answered = CallOutcome(value=task.function(pg, *task.args, **task.kwargs))
            except Exception as exc:
                answered = CallOutcome(error=_portable(exc))
            conn.send(answered)
            continue
        try:
            try:
                prepared = task.prepared
                raw = pg.backend.query(prepared.text, base_iri=prepared.base_iri, **prepared.dataset.kwargs())  # type: ignore[arg-type]
            except SyntaxError as exc:
                raise task.prepared.error(exc) from exc
            except (ValueError, RuntimeError, OSError) as exc:
                raise QueryError(str(exc)) from exc
            answered = answer(QueryResult(raw), accept=task.accept, max_bytes=task.max_bytes, deadline=task.deadline)
            del raw
        except QueryError as exc:
            answered = QueryAnswer(400, str(exc).encode())
        except Exception as exc:  # the worker must answer; the router makes this a 500
            answered = QueryAnswer(500, f"evaluating the query failed: {exc}".encode())
        conn.send(answered)


class _Worker:
    def __init__(self, context: Any, store: str) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, store), daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.snapshot: Path | None = None  # the checkpoint it has open
        self._lock = threading.Lock()
        self._killed = False

    def wait_ready(self) -> None:
        if not self.ready and self.conn.poll(60):
            self.ready = self.conn.recv() == "ready"

    def kill(self) -> None:
        # called by the request using it and by close() at shutdown, maybe at the same time
        with self._lock:
            if self._killed:
                return
            self._killed = True
        self.process.kill()
        self.process.join(timeout=5)
        with contextlib.suppress(OSError):
            self.conn.close()


class QueryPool:
    """A fixed number of worker processes over the checkpoints of a store."""

    def __init__(self, snapshots: Snapshots, size: int) -> None:
        self._snapshots = snapshots
        self._store = str(snapshots.root.parent)
        self._context = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = [_Worker(self._context, self._store) for _ in range(size)]
        self._all = set(self._idle)  # idle or busy: close() ends them all
        self._lock = threading.Lock()
        self._available = threading.Semaphore(size)
        self._closed = False
        self.killed = 0

    def run(self, task: QueryTask | CallTask, timeout: float) -> QueryAnswer | CallOutcome | str | None:
        """The worker's answer within ``timeout`` seconds (not counting a new worker's start);
        :data:`BUSY` when no worker was free by then, :data:`DIED` when the worker died,
        :data:`STOPPED` when the pool is closed, None when the deadline passed (the worker was
        killed)."""
        queued = time.monotonic()
        if not self._available.acquire(timeout=timeout):
            return BUSY
        # the deadline counts from the request: what it waited for a worker is gone from it
        timeout -= time.monotonic() - queued
        if timeout <= 0.01:  # a worker freed up just at the deadline: no time left to use it
            self._available.release()
            return BUSY
        with self._lock:
            if self._closed:
                self._available.release()
                return STOPPED
            worker = self._idle.pop()
        snapshot = self._snapshots.acquire()
        alive = True
        try:
            worker.wait_ready()
            if isinstance(task, QueryTask):
                # the time from now: a worker that was still starting must not have eaten it
                task = dataclasses.replace(task, deadline=time.time() + timeout)
            worker.conn.send((str(snapshot), task))
            if worker.conn.poll(timeout):
                found: QueryAnswer | CallOutcome = worker.conn.recv()
                return found
            alive = False
            self.killed += 1
            return None
        except (EOFError, OSError, BrokenPipeError):
            alive = False  # it died (out of memory?), or the server is stopping: replace it, report it
            return STOPPED if self._closed else DIED
        finally:
            if alive:
                previous, worker.snapshot = worker.snapshot, snapshot
                if previous is not None:
                    self._snapshots.release(previous)
            else:
                worker.kill()
                self._snapshots.release(snapshot)
                if worker.snapshot is not None:
                    self._snapshots.release(worker.snapshot)
            with self._lock:
                if not alive:
                    self._all.discard(worker)
                    if not self._closed:
                        worker = _Worker(self._context, self._store)
                        self._all.add(worker)
                if self._closed:
                    worker.kill()
                else:
                    self._idle.append(worker)
            self._available.release()

    def close(self) -> None:
        """End every worker, busy ones too: a read still waiting for one gets :data:`DIED`."""
        with self._lock:
            self._closed = True
            workers, self._all = list(self._all), set()
            self._idle.clear()
        for worker in workers:
            worker.kill()


__all__ = ["BUSY", "DIED", "STOPPED", "CallOutcome", "CallTask", "QueryPool", "QueryTask"]
