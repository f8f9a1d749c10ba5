"""Worker processes that evaluate reads (SPARQL queries, and every other read of the HTTP routes)
over a checkpoint of an on-disk store, so that a read past its deadline is stopped by ending its
process.

pyoxigraph 0.5 offers no way to interrupt a query from Python (its cancellation token is in the
Rust API only), and a thread cannot be killed. A worker opens the newest checkpoint of the store
(:mod:`provgraph.store.snapshots`) read-only, and opens the next one when the server has written
since: a checkpoint has no write-ahead log to replay and nobody writes it, unlike a read-only
open of the live store. A read past its deadline has its worker killed and replaced; the client
gets the 503 at the deadline.

The server talks to its workers from the event loop, over a socket pair: a request hands its
task to an idle worker and awaits the answer, with no thread in between (a thread per request,
and a pipe read in it, cost more than a small query). What crosses is small: a query goes as the
text the engine runs and its dataset, and comes back as the body Oxigraph serialised.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import socket
import struct
import threading
import time
import typing
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from provgraph.http.evaluate import QueryAnswer, answer
from provgraph.query import QueryDataset
from provgraph.store.snapshots import Snapshots


@dataclass(frozen=True)
class QueryTask:
    """A prepared query as plain values (what crosses to the worker is small: the text the engine
    runs, not the tokens it was read from)."""

    text: str
    dataset: QueryDataset
    base_iri: str | None
    accept: str | None
    max_bytes: int


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


def _to_wire(task: QueryTask | CallTask) -> object:
    """A query task as a tuple of plain values: pickling a dataclass names its class, which the
    other side looks up, a measurable part of a small query's trip."""
    if isinstance(task, CallTask):
        return task
    dataset = task.dataset
    return (
        task.text,
        dataset.default_graph,
        dataset.named_graphs,
        dataset.union,
        task.base_iri,
        task.accept,
        task.max_bytes,
    )


def _from_wire(message: Any) -> QueryTask | CallTask:
    if isinstance(message, CallTask):
        return message
    text, default_graph, named_graphs, union, base_iri, accept, max_bytes = message
    return QueryTask(text, QueryDataset(default_graph, named_graphs, union), base_iri, accept, max_bytes)


def _answer_to_wire(answered: QueryAnswer | CallOutcome) -> object:
    if isinstance(answered, CallOutcome):
        return answered
    return (answered.status, answered.body, answered.media_type, answered.syntax)


def _answer_from_wire(message: Any) -> QueryAnswer | CallOutcome:
    if isinstance(message, CallOutcome):
        return message
    return QueryAnswer(*message)


#: What :meth:`QueryPool.run` returns when no worker was free by the deadline, when the worker
#: died, and when the pool was closed (the server is stopping).
BUSY = "busy"
DIED = "died"
STOPPED = "stopped"

#: Answers larger than this are unpickled off the event loop.
_LARGE = 1 << 20


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


class _Channel:
    """The worker's end of its socket, in the framing the server reads and writes
    (:mod:`multiprocessing.connection`'s): a message is read with one system call when it fits
    the buffer (a Connection makes two, the length and then the message)."""

    def __init__(self, conn: Connection) -> None:
        self._socket = socket.socket(fileno=os.dup(conn.fileno()))
        conn.close()
        self._buffer = bytearray()

    def recv(self) -> Any:
        buffer = self._buffer
        while True:
            if len(buffer) >= 4:
                (size,) = struct.unpack_from("!i", buffer)
                start = 4
                if size == -1 and len(buffer) >= 12:
                    (size,), start = struct.unpack_from("!Q", buffer, 4), 12
                if size >= 0 and len(buffer) >= start + size:
                    data = bytes(buffer[start : start + size])
                    del buffer[: start + size]
                    return pickle.loads(data)
            try:
                chunk = self._socket.recv(1 << 16)
            except ConnectionResetError:
                chunk = b""  # the server is gone (or killed this worker's link): as at its end
            if not chunk:
                raise EOFError
            buffer += chunk

    def send(self, message: object) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data)
        if size < 1 << 16:
            self._socket.sendall(struct.pack("!i", size) + data)
        else:  # not copied into one buffer
            self._socket.sendall(struct.pack("!i", size) if size < 0x7FFFFFFF else struct.pack("!iQ", -1, size))
            self._socket.sendall(data)


def _yield_on_wake_up() -> None:
    """Schedule this process as batch work (Linux's SCHED_BATCH; same share of the CPU, no
    priority change): waking it no longer preempts the process that woke it. Each request wakes
    a worker from the server's process, which then lost its core in the middle of its write;
    measured with 4 connections on 2 cores, the trivial query's requests/s rose 10-25%."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is not None and hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, policy, os.sched_param(0))


def _serve(connection: Connection, store: str) -> None:
    """The worker's loop: one (checkpoint, deadline, task) in, one answer out."""
    from provgraph.errors import QueryError, QuerySyntaxError
    from provgraph.graph import ProvGraph
    from provgraph.query import execute

    _yield_on_wake_up()
    conn = _Channel(connection)
    pg: ProvGraph | None = None
    opened = ""
    conn.send("ready")  # imports done: a query's deadline must not pay for starting a worker
    while True:
        try:
            # the deadline in time.time() seconds: comparable across processes
            snapshot, deadline, wired = conn.recv()
        except EOFError:
            return
        task = _from_wire(wired)
        answered: QueryAnswer | CallOutcome
        try:
            if pg is None or snapshot != opened:
                if pg is not None:
                    pg.close()
                    pg = None
                pg = ProvGraph.open_checkpoint(snapshot, store=store)
                opened = snapshot
        except Exception as exc:
            failed = QueryAnswer(500, f"opening the store failed: {exc}".encode())
            conn.send(_answer_to_wire(failed) if isinstance(task, QueryTask) else CallOutcome(error=_portable(exc)))
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
                result = execute(pg.backend, task.text, task.dataset, task.base_iri)
            except QuerySyntaxError as exc:
                # the server words it against the text as written, which it has and this one has not
                conn.send(_answer_to_wire(QueryAnswer(400, b"", syntax=(exc.reason, exc.line, exc.column))))
                continue
            answered = answer(result, accept=task.accept, max_bytes=task.max_bytes, deadline=deadline)
            del result
        except QueryError as exc:
            answered = QueryAnswer(400, str(exc).encode())
        except Exception as exc:  # the worker must answer; the router makes this a 500
            answered = QueryAnswer(500, f"evaluating the query failed: {exc}".encode())
        conn.send(_answer_to_wire(answered))


class _Link(asyncio.Protocol):
    """The server's end of a worker's socket, on the event loop: messages in
    :mod:`multiprocessing.connection`'s framing (what the worker's :class:`_Channel` reads and
    writes), each handed to the one request waiting for it. A protocol, not asyncio streams: a
    stream's reads and drain are several awaits per message, a measurable part of a small
    query's cost in the server's process."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._messages: deque[bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not derive from asyncio.Transport; they do what it does
        self.transport = typing.cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        while len(buffer) >= 4:
            (size,) = struct.unpack_from("!i", buffer)
            start = 4
            if size == -1:
                if len(buffer) < 12:
                    return
                (size,), start = struct.unpack_from("!Q", buffer, 4), 12
            if len(buffer) < start + size:
                return
            with memoryview(buffer) as view:  # released before the buffer is cut
                self._messages.append(bytes(view[start : start + size]))
            del buffer[: start + size]
            self._wake()

    def connection_lost(self, _exc: Exception | None) -> None:
        self._lost = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def receive(self) -> bytes:
        while not self._messages:
            if self._lost:
                raise EOFError("the worker's socket closed")
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._messages.popleft()


class _Worker:
    """One worker process and the server's end of its socket. The server talks to it from the event
    loop (a :class:`_Link` over the socket; the worker reads and writes it with a
    :class:`_Channel`): no thread between a request and its worker."""

    def __init__(self, context: Any, store: str) -> None:
        ours, theirs = socket.socketpair()
        child = Connection(theirs.detach())
        self.process = context.Process(target=_serve, args=(child, store), daemon=True)
        self.process.start()
        child.close()
        self._socket: socket.socket | None = ours
        self._link: _Link | None = None
        self.ready = False
        self.snapshot: Path | None = None  # the checkpoint it has open
        self._lock = threading.Lock()
        self._killed = False

    async def _linked(self) -> _Link:
        if self._link is None:
            if self._socket is None:
                raise EOFError("the worker was killed")
            _, self._link = await asyncio.get_running_loop().create_unix_connection(_Link, sock=self._socket)
            self._socket = None  # the transport owns it now
        return self._link

    async def wait_ready(self) -> None:
        """The worker's imports done (a query's deadline must not pay for starting a worker)."""
        if not self.ready:
            self.ready = await asyncio.wait_for(self._receive(), 60) == "ready"

    async def exchange(self, message: object) -> Any:
        link = await self._linked()
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data)
        assert link.transport is not None
        link.transport.write((struct.pack("!i", size) if size < 0x7FFFFFFF else struct.pack("!iQ", -1, size)) + data)
        return await self._receive()

    async def _receive(self) -> Any:
        data = await (await self._linked()).receive()
        if len(data) > _LARGE:
            return await asyncio.to_thread(pickle.loads, data)
        return pickle.loads(data)

    def kill(self) -> None:
        # called by the request using it and by close() at shutdown, maybe at the same time and
        # from another thread: the process is killed here, its transport is left to the loop
        with self._lock:
            if self._killed:
                return
            self._killed = True
        self.process.kill()
        threading.Thread(target=self.process.join, args=(5,), daemon=True).start()
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.close()

    def discard(self) -> None:
        """Kill it and close its transport (on the event loop)."""
        self.kill()
        if self._link is not None and self._link.transport is not None:
            with contextlib.suppress(Exception):
                self._link.transport.close()


class QueryPool:
    """Up to ``size`` worker processes over the checkpoints of a store, used from one event
    loop."""

    def __init__(self, snapshots: Snapshots, size: int, *, start: int = 2) -> None:
        self._snapshots = snapshots
        self._store = str(snapshots.root.parent)
        self._context = multiprocessing.get_context("spawn")
        self._size = size
        # ``start`` (two) start with the server; the others when the load needs them (a server
        # that is not busy, and each server a test suite starts, costs two processes, not the
        # whole pool; none when reader processes in front answer the queries)
        self._idle: list[_Worker] = [_Worker(self._context, self._store) for _ in range(min(size, start))]
        self._all = set(self._idle)  # idle or busy: close() ends them all
        self._waiting: deque[asyncio.Future[_Worker | None]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.killed = 0

    async def run(self, task: QueryTask | CallTask, timeout: float) -> QueryAnswer | CallOutcome | str | None:
        """The worker's answer within ``timeout`` seconds (not counting a new worker's start);
        :data:`BUSY` when no worker was free by then, :data:`DIED` when the worker died,
        :data:`STOPPED` when the pool is closed, None when the deadline passed (the worker was
        killed)."""
        queued = time.monotonic()
        worker = await self._take(timeout)
        if worker is None:
            return STOPPED if self._closed else BUSY
        # the deadline counts from the request: what it waited for a worker is gone from it
        timeout -= time.monotonic() - queued
        if timeout <= 0.01:  # a worker freed up just at the deadline: no time left to use it
            self._give(worker)
            return BUSY
        snapshot = self._snapshots.acquire(wait=False)
        if snapshot is None:  # a checkpoint is to be made (a flush): off the event loop
            snapshot = await asyncio.to_thread(self._snapshots.acquire)
        alive = False
        try:
            await worker.wait_ready()
            # the time from now: a worker that was still starting must not have eaten it
            deadline = time.time() + timeout
            try:
                # asyncio.timeout, not wait_for: no task per request
                async with asyncio.timeout(timeout):
                    found: QueryAnswer | CallOutcome = _answer_from_wire(
                        await worker.exchange((str(snapshot), deadline, _to_wire(task)))
                    )
            except TimeoutError:
                self.killed += 1
                return None
            alive = True
            return found
        except (EOFError, OSError, asyncio.IncompleteReadError, TimeoutError):
            # it died (out of memory?), or the server is stopping: replace it, report it
            return STOPPED if self._closed else DIED
        finally:
            # not alive also when the request was cancelled mid-exchange: what the worker is
            # doing then is unknown, so it goes
            if alive:
                previous, worker.snapshot = worker.snapshot, snapshot
                if previous is not None:
                    self._snapshots.release(previous)
            else:
                worker.discard()
                self._snapshots.release(snapshot)
                if worker.snapshot is not None:
                    self._snapshots.release(worker.snapshot)
                with self._lock:
                    self._all.discard(worker)
                    if not self._closed:
                        worker = _Worker(self._context, self._store)
                        self._all.add(worker)
            if self._closed:
                worker.discard()
            else:
                self._give(worker)

    async def _take(self, timeout: float) -> _Worker | None:
        """An idle worker, waiting at most ``timeout`` seconds for one (None: none came, or the
        pool was closed)."""
        if self._closed:
            return None
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        if self._idle:
            return self._idle.pop()
        with self._lock:
            if not self._closed and len(self._all) < self._size:
                worker = _Worker(self._context, self._store)
                self._all.add(worker)
                return worker
        waiter: asyncio.Future[_Worker | None] = self._loop.create_future()
        self._waiting.append(waiter)
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout)
        except TimeoutError:
            if waiter.done() and waiter.result() is not None:
                return waiter.result()  # handed one just at the deadline: the caller gives it back
            waiter.cancel()
            return None
        finally:
            with contextlib.suppress(ValueError):
                self._waiting.remove(waiter)

    def _give(self, worker: _Worker) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def close(self) -> None:
        """End every worker, busy ones too: a read still waiting for one gets :data:`STOPPED`.
        Callable from any thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.kill()
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
        for worker in self._idle:
            worker.discard()
        self._idle.clear()


__all__ = ["BUSY", "DIED", "STOPPED", "CallOutcome", "CallTask", "QueryPool", "QueryTask"]
