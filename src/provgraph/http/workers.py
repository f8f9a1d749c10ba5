"""Query workers: processes that evaluate SPARQL queries over a read-only view of an on-disk store,
so that a query past its deadline can be stopped by ending its process.

pyoxigraph 0.5 offers no way to interrupt a query from Python (its cancellation token is in the
Rust API only), and a thread cannot be killed. A worker opens the store with RocksDB's read-only
mode, which works beside the server's read-write handle, and reopens it when the server has
written since (the server tells it the store's write generation with each query). A query past
its deadline has its worker killed and replaced; the client gets the 503 at the deadline.
"""

from __future__ import annotations

import multiprocessing
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from provgraph.http.evaluate import QueryAnswer, answer
from provgraph.query import PreparedQuery


@dataclass(frozen=True)
class QueryTask:
    prepared: PreparedQuery
    accept: str | None
    generation: int
    max_bytes: int
    deadline: float  # time.time() seconds: comparable across processes


def _serve(conn: Connection, location: str) -> None:
    """The worker's loop: one task in, one answer out."""
    from provgraph.errors import QueryError
    from provgraph.query import QueryResult
    from provgraph.store.oxigraph import OxigraphBackend

    backend: OxigraphBackend | None = None
    seen_generation = -1
    conn.send("ready")  # imports done: a query's deadline must not pay for starting a worker
    while True:
        try:
            task: QueryTask = conn.recv()
        except EOFError:
            return
        try:
            if backend is None or task.generation != seen_generation:
                if backend is not None:
                    backend.close()
                # a fresh read-only view: RocksDB's read-only mode sees the data as of the open
                backend = OxigraphBackend.open(location, read_only=True)
                seen_generation = task.generation
            try:
                prepared = task.prepared
                raw = backend.query(prepared.text, base_iri=prepared.base_iri, **prepared.dataset.kwargs())  # type: ignore[arg-type]
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
    def __init__(self, context: Any, location: str) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, location), daemon=True)
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> None:
        if not self.ready and self.conn.poll(60):
            self.ready = self.conn.recv() == "ready"

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class QueryPool:
    """A fixed number of worker processes over the store at ``location``."""

    def __init__(self, location: Path, size: int) -> None:
        self._location = str(location)
        self._context = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = [_Worker(self._context, self._location) for _ in range(size)]
        self._lock = threading.Lock()
        self._available = threading.Semaphore(size)
        self.killed = 0

    def run(self, task: QueryTask, timeout: float) -> QueryAnswer | None:
        """The worker's answer, or None when the deadline passed (the worker was killed)."""
        if not self._available.acquire(timeout=timeout):
            return QueryAnswer(503, b"the server is busy with other queries; try again")
        with self._lock:
            worker = self._idle.pop()
        try:
            worker.wait_ready()
            worker.conn.send(task)
            if worker.conn.poll(timeout):
                answer: QueryAnswer = worker.conn.recv()
                return answer
            worker.kill()
            self.killed += 1
            worker = _Worker(self._context, self._location)
            return None
        except (EOFError, OSError, BrokenPipeError):
            worker.kill()  # it died (out of memory?): replace it, report the failure
            worker = _Worker(self._context, self._location)
            return QueryAnswer(500, b"the query worker died")
        finally:
            with self._lock:
                self._idle.append(worker)
            self._available.release()

    def close(self) -> None:
        with self._lock:
            for worker in self._idle:
                worker.kill()
            self._idle.clear()


__all__ = ["QueryPool", "QueryTask"]
