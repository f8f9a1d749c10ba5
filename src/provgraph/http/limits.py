"""The size limit of request bodies (``max_upload_bytes``), for every route at once: checked
against Content-Length before anything is read, then counted while the body streams in, so no
body is ever held or spooled past the limit (uploads, Graph Store writes, SPARQL, JSON)."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provgraph.http.errors import ErrorBody, HttpError, error_response

TOO_LARGE_BODY: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "the request body is larger than the server takes (--max-upload-bytes)"}
}


class BodyLimit:
    """ASGI middleware: 413 for a request body larger than ``limit`` bytes. A body that says its
    length is refused before it is read; one sent in chunks is stopped at the first byte past the
    limit (the route reading it answers 413; FastAPI reports a JSON body it could not read as 400)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"the request body is larger than {self.limit} bytes, the most this server takes (--max-upload-bytes)"
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.strip().isdigit() and int(value) > self.limit:
                await error_response(scope.get("path", ""), 413, message, headers={"Connection": "close"})(
                    scope, receive, send
                )
                return
        received = 0

        async def counting() -> Message:
            nonlocal received
            got = await receive()
            if got["type"] == "http.request":
                received += len(got.get("body", b""))
                if received > self.limit:
                    raise HttpError(413, message)
            return got

        await self.app(scope, counting, send)


__all__ = ["TOO_LARGE_BODY", "BodyLimit"]
