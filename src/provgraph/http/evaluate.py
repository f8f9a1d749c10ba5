"""Turning a query result into a response body: content negotiation, and the size and time
limits, enforced while the result is serialised (the evaluation is lazy, so failing a write
stops it). Used alike by the threads and by the worker processes that evaluate queries."""

from __future__ import annotations

import functools
import io
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from provgraph import QueryResult
from provgraph.errors import QueryError
from provgraph.http.negotiation import MEDIA_TYPE_OF, RDF_TYPES, RESULT_TYPES, choose


@dataclass(frozen=True)
class QueryAnswer:
    """What to send back: 200 with the body, or an error status with a message."""

    status: int
    body: bytes
    media_type: str = "text/plain; charset=utf-8"
    #: Oxigraph's syntax error (message, line, column), for the server to word against the text
    #: as the user wrote it
    syntax: tuple[str, int | None, int | None] | None = None


#: The bodies of the two stops, which the router words for people.
TIMEOUT = b"timeout"
TOO_LARGE = b"size"


class _Stop(Exception):  # noqa: N818 - a signal inside this module, never raised to callers
    pass


class _Limited(io.RawIOBase):
    def __init__(self, limit: int, deadline: float) -> None:
        self.buffer = io.BytesIO()
        self._limit = limit
        self._deadline = deadline
        self.why = b""

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if time.time() > self._deadline:
            self.why = TIMEOUT
            raise _Stop
        if self.buffer.tell() + len(data) > self._limit:
            self.why = TOO_LARGE
            raise _Stop
        return self.buffer.write(data)


class LimitExceeded(Exception):  # noqa: N818 - not an error of the caller's code: a limit was reached
    """A body being built went past ``max_bytes`` (``why == TOO_LARGE``) or the deadline
    (``why == TIMEOUT``)."""

    def __init__(self, why: bytes) -> None:
        super().__init__(why)
        self.why = why


def capture(produce: Callable[[IO[bytes]], object], *, max_bytes: int, deadline: float) -> bytes:
    """What ``produce`` writes to the file it is given, stopped with :class:`LimitExceeded` when it
    passes ``max_bytes`` or ``deadline`` (seconds since the epoch): a body is never built past
    the limit, in memory or on the wire."""
    sink = _Limited(max_bytes, deadline)
    try:
        produce(sink)  # type: ignore[arg-type]
    except Exception as exc:
        traceback.clear_frames(exc.__traceback__)
        if sink.why:
            raise LimitExceeded(sink.why) from None
        raise
    return sink.buffer.getvalue()


def answer(result: QueryResult, *, accept: str | None, max_bytes: int, deadline: float) -> QueryAnswer:
    """Serialise ``result`` in the format ``accept`` prefers, within ``max_bytes`` and before
    ``deadline`` (seconds since the epoch). Never raises for what a client can cause."""
    types = RDF_TYPES if result.kind == "graph" else RESULT_TYPES
    chosen = _chosen(accept, result.kind == "graph")
    if chosen is None:
        message = f"none of the acceptable media types ({accept}) can hold this result: {', '.join(types)}"
        return QueryAnswer(406, message.encode())
    fmt = types[chosen]
    sink = _Limited(max_bytes, deadline)
    try:
        result.serialize(fmt, sink)  # type: ignore[arg-type]
    except Exception as exc:
        # The traceback's frames hold the pyoxigraph results, which belong to this thread.
        traceback.clear_frames(exc.__traceback__)
        if sink.why:
            return QueryAnswer(413 if sink.why == TOO_LARGE else 503, sink.why)
        if isinstance(exc, QueryError):
            return QueryAnswer(400, str(exc).encode())
        raise
    return QueryAnswer(200, sink.buffer.getvalue(), MEDIA_TYPE_OF[fmt])


@functools.lru_cache(maxsize=256)
def _chosen(accept: str | None, graph: bool) -> str | None:
    """The media type to answer ``accept`` with (clients send the same few Accept headers)."""
    return choose(accept, list(RDF_TYPES if graph else RESULT_TYPES))


__all__ = ["TIMEOUT", "TOO_LARGE", "LimitExceeded", "QueryAnswer", "answer", "capture"]
