"""The front of ``provgraph serve`` on an on-disk store: reader processes that accept the server's
connections, answer SPARQL queries themselves (by GET, or by POST with a body up to 64 KB), and
pass every other request to the writer.

A query crossing one process boundary less is what makes the server fast: the design
before this one read a request in the server's process and handed the query to a worker process
(three processes and two wake-ups per query); here the process that reads the request runs the
query on its own event loop over a read-only checkpoint and writes the answer, as ``oxigraph
serve`` answers in the thread that read the request. One reader per core, all accepting from the
one listening socket: a reader busy with a query does not accept, so new connections go to the
others.

- **Writes and the other routes.** Everything that is not a query the fast path can take
  (:func:`provgraph.http.sparql.fast_params`, :func:`~provgraph.http.sparql.fast_post`) is
  relayed, as it came, to the writer: the whole app, served by uvicorn on a private Unix socket in
  the same process that holds the store for writing. So is every request the fast path would
  answer with an error other than the deadline's or the size limit's: the app words it.
- **Seeing writes.** The writer makes a checkpoint after every write, before it answers, and
  publishes its number on the :class:`~provgraph.store.snapshots.Board`; a reader looks at that
  number before each query and opens the newest checkpoint when it moved (a client that wrote
  sees its write in its next query), holding a lease on it so the writer does not delete it.
- **The deadline.** pyoxigraph cannot interrupt a query, but it lets other threads run while it
  evaluates: a watchdog thread of the reader writes the 503 on the late query's connection at the
  deadline, answers 503 ("try again") on its other connections with a request waiting, and ends
  the process; the writer starts another. The cost of answering in the reader: a query runs
  ahead of the other requests of that reader's connections, which wait for it (up to the
  deadline); new connections go to the other readers.
- **Stopping.** On SIGTERM or SIGINT the writer tells each reader to stop: it stops accepting,
  finishes what it has within the grace period, and then answers what is left with 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import typing
from collections import deque
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

import httptools
from pydantic import BaseModel

from provgraph.errors import ProvGraphError, QueryError
from provgraph.graph import ProvGraph
from provgraph.http.errors import HttpError, error_response
from provgraph.http.evaluate import answer
from provgraph.http.settings import ServerSettings
from provgraph.http.sparql import checked_answer, fast_params, fast_post, prepare_query
from provgraph.query import execute
from provgraph.store.snapshots import Board, Snapshots

logger = logging.getLogger("provgraph.http")

#: A reader's exit status after it stopped a query at its deadline (the writer starts another).
DEADLINE_EXIT = 75
#: Seconds between the watchdog's looks at a reader's stop channel, and the writer's at its readers.
_POLL = 0.25
#: A reader that ends this many seconds after its start is restarted after a pause, not at once.
_CRASHED = 2.0
_RETRY = 5.0
#: A query by POST with a body up to this size may be answered by the reader (larger: relayed).
_INLINE_BODY = 1 << 16
#: The parameters of a query by POST, read from its body once it has come.
_POSTED: dict[str, list[str]] = {}
#: Request bodies buffered ahead of the writer before the client's connection is paused.
_BUFFERED = 1 << 20
#: Headers not passed on in either direction: they are about one connection, not the message.
_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"upgrade", b"transfer-encoding", b"expect"}
)


class ReaderConfig(BaseModel):
    """What a reader process is told at its start, on its standard input (never its command line:
    no secret is in it, and none would show in the process list)."""

    listener: int
    upstream: str
    store: str
    checkpoints: str
    board: str
    slot: int
    readers: int
    settings: dict[str, Any]
    grace: float


# ------------------------------------------------------------------------------ the writer's side


class Front:
    """The reader processes of one server: started on ``listener``, restarted when one ends (a
    query past its deadline ends its reader), stopped by :meth:`stop`."""

    def __init__(
        self,
        *,
        listener: socket.socket,
        upstream: Path,
        store: Path,
        snapshots: Snapshots,
        settings: ServerSettings,
        readers: int,
        grace: float,
    ) -> None:
        self._listener = listener
        self._snapshots = snapshots
        self._board = snapshots.board(readers)
        self._config = ReaderConfig(
            listener=listener.fileno(),
            upstream=str(upstream),
            store=str(store),
            checkpoints=str(snapshots.root),
            board=str(self._board.path),
            slot=0,
            readers=readers,
            settings=settings.model_dump(mode="json", exclude={"token"}),
            grace=grace,
        )
        self._processes: list[subprocess.Popen[bytes] | None] = [None] * readers
        self._started = [0.0] * readers
        self._due = [0.0] * readers
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        for slot in range(readers):
            self._start(slot)
        self._watcher = threading.Thread(target=self._watch, name="provgraph-front", daemon=True)
        self._watcher.start()

    def _start(self, slot: int) -> None:
        process = subprocess.Popen(
            [sys.executable, "-m", "provgraph.http.front"],
            stdin=subprocess.PIPE,
            pass_fds=(self._listener.fileno(),),
            close_fds=True,
        )
        assert process.stdin is not None
        process.stdin.write(self._config.model_copy(update={"slot": slot}).model_dump_json().encode() + b"\n")
        process.stdin.flush()
        self._processes[slot] = process
        self._started[slot] = time.monotonic()

    def _watch(self) -> None:
        """Restart a reader that ended; delete the checkpoints readers moved off."""
        while not self._stopping.wait(_POLL):
            with self._lock:
                if self._stopping.is_set():
                    return
                now = time.monotonic()
                for slot, process in enumerate(self._processes):
                    if process is not None and process.poll() is not None:
                        self._board.lease(slot, 0)
                        status = process.returncode
                        # one that ends as it starts (a broken install, say) is retried, not spun
                        quick = status != DEADLINE_EXIT and now - self._started[slot] < _CRASHED
                        if status == DEADLINE_EXIT:
                            logger.warning("a query ran past the deadline: its reader process was ended and replaced")
                        else:
                            retry = f"; starting another in {_RETRY:g} s" if quick else "; starting another"
                            logger.error("a reader process ended (status %s)%s", status, retry)
                        self._processes[slot] = None
                        self._due[slot] = now + (_RETRY if quick else 0.0)
                    if self._processes[slot] is None and now >= self._due[slot]:
                        self._start(slot)
            self._snapshots.sweep()

    def stop(self, grace: float) -> None:
        """Tell every reader to stop (each finishes what it has within ``grace`` seconds, then
        answers the rest with 503), wait for them, and kill what is left."""
        with self._lock:
            self._stopping.set()
            processes = [p for p in self._processes if p is not None]
        self._watcher.join(timeout=5)  # no restart, and no sweep, from here on
        for process in processes:
            with contextlib.suppress(OSError):
                assert process.stdin is not None
                process.stdin.close()  # the reader's stop signal: its channel's end
        waited = time.monotonic() + grace + 5
        for process in processes:
            try:
                process.wait(timeout=max(0.1, waited - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# ------------------------------------------------------------------------------ the reader's side


class _Body:
    """A request body on its way to the writer: chunks in, read in order by the relay, with the
    client's connection paused while too much waits."""

    def __init__(self, connection: _Connection) -> None:
        self._connection = connection
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._ended = False
        self._waiter: asyncio.Future[None] | None = None

    def feed(self, data: bytes) -> None:
        self._chunks.append(data)
        self._size += len(data)
        if self._size > _BUFFERED:
            self._connection.pause()
        self._wake()

    def end(self) -> None:
        self._ended = True
        self._wake()

    @property
    def ended(self) -> bool:
        return self._ended

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def peek(self) -> bytes:
        """What has come of the body, left for :meth:`next` (a query by POST the reader answers
        itself, or relays after all)."""
        return b"".join(self._chunks)

    async def next(self) -> bytes | None:
        """The next chunk; None at the end of the body."""
        while not self._chunks:
            if self._ended:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        chunk = self._chunks.popleft()
        self._size -= len(chunk)
        if self._size <= _BUFFERED // 2:
            self._connection.resume()
        return chunk


@dataclass
class _Request:
    method: bytes
    url: bytes
    headers: list[tuple[bytes, bytes]]
    keep_alive: bool
    body: _Body
    #: a query by GET the reader may answer itself (else, or if it declines, relayed)
    query: dict[str, list[str]] | None = None
    host: bytes = b""
    accept: str | None = None
    length: int | None = None
    chunked: bool = False
    continue_: bool = False
    content_type: str | None = None


class _Relay:
    """The writer's response to one relayed request, parsed as it arrives and written to the
    client: the head without the writer's connection headers, the body as it came (re-chunked
    when the writer chunked it)."""

    def __init__(self, connection: _Connection, request: _Request) -> None:
        self.connection = connection
        self.head_only = request.method == b"HEAD"
        self.close = not request.keep_alive
        self.parser: Any = None
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunked = False
        self.started = False
        self.done = False

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self.parser.get_status_code()
        names = {name.lower() for name, _ in self.headers}
        self.chunked = b"transfer-encoding" in names
        bodiless = self.head_only or status in (204, 304) or status < 200
        if not bodiless and not self.chunked and b"content-length" not in names:
            self.close = True  # a body that ends with the connection
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, self.reason or b"")]
        for name, value in self.headers:
            lowered = name.lower()
            if lowered in _HOP and lowered != b"transfer-encoding":
                continue
            lines.append(name + b": " + value + b"\r\n")
        if self.close:
            lines.append(b"connection: close\r\n")
        lines.append(b"\r\n")
        self.connection.write(b"".join(lines))
        self.started = True
        if bodiless:
            self.done = True

    def on_body(self, body: bytes) -> None:
        if self.done:
            return
        if self.chunked:
            self.connection.write(b"%x\r\n%s\r\n" % (len(body), body))
        else:
            self.connection.write(body)

    def on_message_complete(self) -> None:
        if not self.done and self.chunked:
            self.connection.write(b"0\r\n\r\n")
        self.done = True


class _Connection(asyncio.Protocol):
    """One client connection of a reader: requests parsed with httptools, queries answered
    on the spot, the rest relayed to the writer one at a time, in order."""

    def __init__(self, reader: _ReaderProcess) -> None:
        self.reader = reader
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.fd = -1
        self.queue: deque[_Request] = deque()
        self.task: asyncio.Task[None] | None = None
        self.request: _Request | None = None
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.paused = False
        self.closed = False
        self.relay: _Relay | None = None
        self._drained: asyncio.Future[None] | None = None
        self._writable = True

    # -- transport events

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = typing.cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        self.fd = sock.fileno() if sock is not None else -1
        self.reader.connections.add(self)

    def connection_lost(self, _exc: Exception | None) -> None:
        self.closed = True
        self.reader.connections.discard(self)
        if self.task is not None:
            self.task.cancel()
        self._release()

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(501, "connection upgrades are not supported")
        except httptools.HttpParserError as exc:
            self._fail(400, f"malformed HTTP request: {exc}")

    def pause_writing(self) -> None:
        self._writable = False

    def resume_writing(self) -> None:
        self._writable = True
        self._release()

    def _release(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    async def drain(self) -> None:
        if self.closed:
            raise ConnectionError("the client closed the connection")
        while not self._writable:
            self._drained = asyncio.get_running_loop().create_future()
            await self._drained
            if self.closed:
                raise ConnectionError("the client closed the connection")

    def pause(self) -> None:
        if not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()

    def resume(self) -> None:
        if self.paused and self.transport is not None and not self.closed:
            self.paused = False
            self.transport.resume_reading()

    @property
    def midway(self) -> bool:
        """A relayed answer is half written: nothing else may be written on the connection."""
        return self.relay is not None and self.relay.started and not self.relay.done

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(data)

    def finish(self, keep_alive: bool) -> None:
        if not keep_alive and self.transport is not None:
            self.closed = True
            self.transport.close()

    def _fail(self, status: int, message: str) -> None:
        self.write(self.reader.error(b"/", status, message, close=True))
        self.finish(False)

    # -- parser events

    def on_message_begin(self) -> None:
        self.url = b""
        self.headers = []

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        parser = self.parser
        request = _Request(parser.get_method(), self.url, self.headers, parser.should_keep_alive(), _Body(self))
        for name, value in self.headers:
            lowered = name.lower()
            if lowered == b"host":
                request.host = value
            elif lowered == b"accept":
                request.accept = value.decode("latin-1")
            elif lowered == b"content-length":
                with contextlib.suppress(ValueError):
                    request.length = int(value)
            elif lowered == b"transfer-encoding":
                request.chunked = b"chunked" in value.lower()
            elif lowered == b"expect":
                request.continue_ = value.lower() == b"100-continue"
            elif lowered == b"content-type":
                request.content_type = value.decode("latin-1")
        if request.method == b"GET":
            request.query = self.reader.takes(request.url)
        elif request.method == b"POST" and not request.chunked and (request.length or 0) <= _INLINE_BODY:
            request.query = self.reader.may_post(request.url)
        self.request = request
        if request.continue_:
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if request.query is None:
            self.queue.append(request)
            self._work()

    def on_body(self, body: bytes) -> None:
        if self.request is not None:
            self.request.body.feed(body)

    def on_message_complete(self) -> None:
        request, self.request = self.request, None
        if request is None:
            return
        request.body.end()
        if request.query is None:
            return  # queued, relayed by the task
        if not self.queue and self.task is None:
            response = self.reader.answer(self, request)
            if response is not None:
                self.write(response)
                self.finish(request.keep_alive)
                return
        self.queue.append(request)
        self._work()

    # -- requests in order

    def _work(self) -> None:
        if self.task is None and self.queue:
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            while self.queue and not self.closed:
                request = self.queue[0]
                response = self.reader.answer(self, request) if request.query is not None else None
                if response is not None:
                    self.write(response)
                    self.finish(request.keep_alive)
                else:
                    keep = await self._relay(request)
                    self.finish(keep)
                self.queue.popleft()
        except (ConnectionError, OSError):
            self.finish(False)  # the client left, or the writer is gone mid-answer
        finally:
            self.task = None

    async def _relay(self, request: _Request) -> bool:
        """Pass ``request`` to the writer and its answer back; whether the connection stays open."""
        try:
            upstream_reader, upstream = await asyncio.open_unix_connection(self.reader.upstream)
        except OSError:
            self.write(self.reader.error(request.url, 503, "the server is stopping; try again later", close=True))
            return False
        try:
            lines = [request.method + b" " + request.url + b" HTTP/1.1\r\n"]
            lines += [n + b": " + v + b"\r\n" for n, v in request.headers if n.lower() not in _HOP]
            if request.chunked:
                lines.append(b"transfer-encoding: chunked\r\n")
            lines.append(b"connection: close\r\n\r\n")
            upstream.write(b"".join(lines))
            sending = asyncio.get_running_loop().create_task(self._send_body(request, upstream))
            relay = _Relay(self, request)
            relay.parser = httptools.HttpResponseParser(relay)
            try:
                self.relay = relay
                while not relay.done:
                    data = await upstream_reader.read(1 << 16)
                    if not data:
                        break
                    relay.parser.feed_data(data)
                    await self.drain()
            except httptools.HttpParserError:
                relay.close = True
            finally:
                sending.cancel()
                self.relay = None
            if not relay.started:
                self.write(self.reader.error(request.url, 502, "the server's writer did not answer", close=True))
                return False
            if not relay.done:
                return False  # cut short: the client must not take what it got for the whole
            if not request.body.ended:
                return False  # the writer answered before reading the body (a 413, say)
            return not relay.close
        finally:
            upstream.close()

    async def _send_body(self, request: _Request, upstream: asyncio.StreamWriter) -> None:
        try:
            while (chunk := await request.body.next()) is not None:
                upstream.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if request.chunked else chunk)
                await upstream.drain()
            if request.chunked:
                upstream.write(b"0\r\n\r\n")
                await upstream.drain()
        except (ConnectionError, OSError):
            pass  # the writer answered and closed (a 413, say): the answer tells the client


class _Watchdog(threading.Thread):
    """Ends the reader when a query passes its deadline (after writing the 503 on its connection)
    and stops it when the writer closes its channel (the reader's standard input)."""

    def __init__(self, reader: _ReaderProcess, channel: typing.BinaryIO, grace: float) -> None:
        super().__init__(name="provgraph-watchdog", daemon=True)
        self.reader = reader
        self.channel = channel
        self.grace = grace
        #: (deadline in time.monotonic() seconds, the connection), while a query runs
        self.armed: tuple[float, _Connection] | None = None

    def run(self) -> None:
        stop_at: float | None = None
        while True:
            armed = self.armed
            now = time.monotonic()
            wait = _POLL if armed is None else max(0.0, min(armed[0] - now, _POLL))
            if stop_at is None:
                readable, _, _ = select.select([self.channel], [], [], wait)
                if readable and not self.channel.read1(4096):  # type: ignore[attr-defined]
                    stop_at = time.monotonic() + self.grace
                    self.reader.stop()
            else:
                time.sleep(wait)
                if time.monotonic() >= stop_at:
                    self.reader.end("the server is stopping; try again later", status=0)
            armed_now = self.armed
            if armed_now is not None and armed_now is armed and time.monotonic() >= armed_now[0]:
                timeout = self.reader.settings.query_timeout
                message = f"the query ran past the {timeout:g} s timeout and was stopped; narrow it or add a LIMIT"
                self.reader.end(message, status=DEADLINE_EXIT, late=armed_now[1])


class _ReaderProcess:
    """A reader: the newest checkpoint open read-only, the connections it accepted, and how it
    answers a query."""

    def __init__(self, config: ReaderConfig) -> None:
        self.config = config
        self.settings = ServerSettings.model_validate(config.settings)
        self.upstream = config.upstream
        self.board: Board = Board(Path(config.board), config.readers)
        self.checkpoints = Path(config.checkpoints)
        self.pg: ProvGraph | None = None
        self.number = 0
        self.connections: set[_Connection] = set()
        self.watchdog: _Watchdog | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: asyncio.AbstractServer | None = None
        self._params: dict[bytes, dict[str, list[str]] | None] = {}
        self._date = (0, b"")
        self._exiting = threading.Lock()
        #: host:port of the listening socket (the base IRI of a request without a Host header)
        self.where = "127.0.0.1"

    # -- the checkpoint

    def graph(self) -> ProvGraph:
        """A read-only ProvGraph over the newest checkpoint (opened when the writer made a newer one)."""
        if self.board.newest != self.number or self.pg is None:
            number = self.board.take_newest(self.config.slot)
            if number != self.number or self.pg is None:
                previous = self.pg
                try:
                    self.pg = ProvGraph.open_checkpoint(self.checkpoints / str(number), store=self.config.store)
                except BaseException:
                    self.board.lease(self.config.slot, self.number)  # still reading the one it has open
                    raise
                self.number = number
                if previous is not None:
                    previous.close()
        return self.pg

    # -- answering

    def takes(self, url: bytes) -> dict[str, list[str]] | None:
        """The query's parameters when this reader may answer the GET of ``url`` itself."""
        if self.settings.read_token:
            return None  # the app checks tokens; no reader holds one
        path, _, query_string = url.partition(b"?")
        if path != b"/sparql":
            return None
        try:
            return self._params[query_string]
        except KeyError:
            pass
        params = fast_params(query_string)
        if len(self._params) >= 1024:
            self._params.clear()
        self._params[query_string] = params
        return params

    def may_post(self, url: bytes) -> dict[str, list[str]] | None:
        """:data:`_POSTED` when this reader may answer a POST to ``url`` once its body has come."""
        if self.settings.read_token or url.partition(b"?")[0] != b"/sparql":
            return None
        return _POSTED

    def answer(self, connection: _Connection, request: _Request) -> bytes | None:
        """The response to the query ``request`` carries, or None when the writer must answer it
        (anything the app words but the deadline's and the size limit's errors)."""
        params = request.query
        assert params is not None
        if params is _POSTED:
            params = fast_post(request.url.partition(b"?")[2], request.content_type, request.body.peek())
            if params is None:
                return None
        settings = self.settings
        started = time.monotonic()
        watchdog = self.watchdog
        if watchdog is not None:
            watchdog.armed = (started + settings.query_timeout, connection)
        try:
            pg = self.graph()
            host = request.host.decode("latin-1") or self.where
            try:
                prepared = prepare_query(pg, settings, params["query"][0], params, f"http://{host}/sparql")
                deadline = time.time() + settings.query_timeout - (time.monotonic() - started)
                result = execute(pg.backend, prepared.text, prepared.dataset, prepared.base_iri)
                answered = answer(result, accept=request.accept, max_bytes=settings.max_result_bytes, deadline=deadline)
                del result
                answered = checked_answer(answered, settings)
            except HttpError as exc:
                if exc.status not in (413, 503):
                    return None
                return self.error(b"/sparql", exc.status, exc.message, close=not request.keep_alive)
            except (ProvGraphError, QueryError):
                return None
            head = b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncontent-length: %d\r\ndate: %s\r\n" % (
                answered.media_type.encode("latin-1"),
                len(answered.body),
                self.date(),
            )
            return head + (b"\r\n" if request.keep_alive else b"connection: close\r\n\r\n") + answered.body
        except Exception:
            logger.exception("a reader failed to answer a query; the writer answers it")
            return None
        finally:
            if watchdog is not None:
                watchdog.armed = None

    def date(self) -> bytes:
        now = int(time.time())
        if self._date[0] != now:
            self._date = (now, email.utils.formatdate(now, usegmt=True).encode())
        return self._date[1]

    def error(
        self, path: bytes, status: int, message: str, *, close: bool, headers: dict[str, str] | None = None
    ) -> bytes:
        """An error response as the app words it for ``path``."""
        response = error_response(path.partition(b"?")[0].decode("latin-1"), status, message, headers=headers)
        reason = HTTPStatus(status).phrase.encode() if status in HTTPStatus._value2member_map_ else b""
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, reason)]
        lines += [n + b": " + v + b"\r\n" for n, v in response.raw_headers]
        lines.append(b"date: " + self.date() + b"\r\n")
        if close:
            lines.append(b"connection: close\r\n")
        return b"".join(lines) + b"\r\n" + bytes(response.body)

    # -- stopping

    def stop(self) -> None:
        """From the watchdog: stop accepting; close idle connections; leave once none is left."""
        loop = self.loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._stop_on_loop)

    def _stop_on_loop(self) -> None:
        if self.server is not None:
            self.server.close()
        for connection in list(self.connections):
            if not connection.queue and connection.request is None and connection.transport is not None:
                connection.closed = True
                connection.transport.close()
        self._leave_when_idle()

    def _leave_when_idle(self) -> None:
        if not self.connections:
            assert self.loop is not None
            self.loop.stop()
            return
        assert self.loop is not None
        self.loop.call_later(0.05, self._leave_when_idle)

    def end(self, message: str, *, status: int, late: _Connection | None = None) -> None:
        """From the watchdog, with the event loop stuck (a query running, or the grace period
        over): 503 to ``late`` (the query past its deadline) with ``message``, 503 "try again" to
        every other connection with a request waiting, then leave the process."""
        if not self._exiting.acquire(blocking=False):
            return
        known = {c.fd: c for c in list(self.connections)}
        retry = (
            message if status == 0 else "the server stopped this connection's reader to end another query; try again"
        )
        for fd in _client_sockets():
            connection = known.get(fd)
            if connection is not None and connection is late:
                body = self.error(b"/sparql", 503, message, close=True)
            elif connection is not None and connection.midway:
                body = b""  # an answer half sent: the client sees it cut short
            elif _readable(fd) or (connection is not None and (connection.queue or connection.request)):
                # a request waiting (or accepted by the loop but never seen by it)
                body = self.error(b"/", 503, retry, close=True, headers={"Retry-After": "1"})
            else:
                body = b""  # idle: closed, as a server closes an idle keep-alive connection
            _last_words(fd, body)
        os._exit(status)


def _client_sockets() -> list[int]:
    """The file descriptors of this process's TCP connections (not its listening socket, not its
    connections to the writer): every client connection, the loop's or not yet."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if not os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
                sock.getpeername()  # a listening socket has no peer
                found.append(fd)
        except OSError:
            pass
        finally:
            sock.close()
    return found


def _readable(fd: int) -> bool:
    if fd < 0:
        return False
    with contextlib.suppress(OSError, ValueError):
        return bool(select.select([fd], [], [], 0)[0])
    return False


def _last_words(fd: int, data: bytes) -> None:
    """Write ``data`` on the socket ``fd`` and close our side of it so the client reads it: what
    the client sent and nobody read is read first (closing over unread data would reset the
    connection, and the client could lose the answer)."""
    if fd < 0:
        return
    with contextlib.suppress(OSError):
        sock = socket.socket(fileno=os.dup(fd))
        try:
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                while sock.recv(1 << 16):
                    pass
            sock.setblocking(True)
            sock.settimeout(1)
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        finally:
            sock.close()


def _main() -> None:
    config = ReaderConfig.model_validate_json(sys.stdin.buffer.readline())
    reader = _ReaderProcess(config)
    listener = socket.socket(fileno=config.listener)
    host, port = listener.getsockname()[:2]
    reader.where = f"[{host}]:{port}" if listener.family == socket.AF_INET6 else f"{host}:{port}"
    # Ctrl-C reaches the whole process group: the writer decides when its readers stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    reader.watchdog = _Watchdog(reader, sys.stdin.buffer, config.grace)

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        reader.loop = loop
        reader.server = await loop.create_server(lambda: _Connection(reader), sock=listener)
        reader.watchdog.start()  # type: ignore[union-attr]
        stopped: asyncio.Future[None] = loop.create_future()
        await stopped

    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvicorn[standard] brings it where it builds
        uvloop = None  # type: ignore[assignment]
    with contextlib.suppress(RuntimeError, KeyboardInterrupt):  # the loop stopped: the reader is done
        if uvloop is not None:
            uvloop.run(serve())
        else:
            asyncio.run(serve())
    os._exit(0)


if __name__ == "__main__":
    _main()
