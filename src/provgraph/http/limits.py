"""The size limit of request bodies (``max_upload_bytes``): checked against Content-Length before
anything is read, then counted while the body streams in, so no body is ever held or spooled past
the limit."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.types import Message

from provgraph.http.errors import ErrorBody, HttpError

TOO_LARGE_BODY: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "the request body is larger than the server takes (--max-upload-bytes)"}
}


def _too_large(limit: int) -> HttpError:
    return HttpError(
        413, f"the request body is larger than {limit} bytes, the most this server takes (--max-upload-bytes)"
    )


def limited(request: Request, limit: int) -> Request:
    """``request`` with its body counted as it is received: reading past ``limit`` bytes raises
    :class:`HttpError` 413 (Content-Length is checked first)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise _too_large(limit)
    received = 0
    receive = request.receive

    async def counting() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _too_large(limit)
        return message

    return Request(request.scope, counting)


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body of ``request``, at most ``limit`` bytes (else :class:`HttpError` 413)."""
    chunks = []
    async for chunk in limited(request, limit).stream():
        chunks.append(chunk)
    return b"".join(chunks)


__all__ = ["TOO_LARGE_BODY", "limited", "read_body"]
