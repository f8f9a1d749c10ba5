"""Errors as HTTP responses: provgraph's exception tree mapped to status codes, with the
message (and its position or focus node) in the body."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from provgraph.errors import (
    ConcurrentWriteError,
    ConfirmationRequiredError,
    InputError,
    NotFoundError,
    ProvGraphError,
    QueryError,
    ReadOnlyStoreError,
    StoreLockedError,
    UnsupportedFormatError,
    ValidationFailedError,
    WriteRefusedError,
)


class ErrorBody(BaseModel):
    """The body of every error of the JSON API."""

    error: str = Field(examples=["no source document 'nope' in the store"])


class ProblemBody(ErrorBody):
    """An internal error (RFC 9457 problem details): the server's log has the same request id,
    with the traceback."""

    status: int = Field(examples=[500])
    title: str = Field(examples=["Internal Server Error"])
    detail: str = Field(examples=["the server failed to answer this request; the log names it by its request id"])
    request_id: str = Field(examples=["5f0c2a0e8d3b4c1e"])


AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "a bearer token is needed (the operator asked for tokens on reads)"},
    403: {"model": ErrorBody, "description": "the token is wrong, or the server is read-only"},
}
#: What every read can answer besides its own errors: the token, and the deadline.
READ_ERRORS: dict[int | str, dict[str, Any]] = {
    **AUTH_ERRORS,
    503: {
        "model": ErrorBody,
        "description": "the request ran past the deadline (--timeout) and was stopped, or the server is busy",
    },
}
TOO_LARGE_ERROR: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "the response would be larger than --max-result-bytes"},
}

logger = logging.getLogger("provgraph.http")


class HttpError(Exception):
    """A response with a status and a human-readable message."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def status_of(exc: ProvGraphError) -> int:
    if isinstance(exc, ValidationFailedError):
        return 422
    if isinstance(exc, WriteRefusedError | ConfirmationRequiredError):
        return 409
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, UnsupportedFormatError):
        return 415
    if isinstance(exc, QueryError | InputError):
        return 400
    if isinstance(exc, ReadOnlyStoreError):
        return 403
    if isinstance(exc, StoreLockedError):
        return 503
    if isinstance(exc, ConcurrentWriteError):
        return 409  # the client may run it again: it reads the new state
    return 500


def _wants_json(request: Request | str) -> bool:
    path = request if isinstance(request, str) else request.url.path
    return not (path.startswith("/sparql") or path.startswith("/store"))


def error_response(path: str, status: int, message: str, *, headers: dict[str, str] | None = None) -> Response:
    """An error as the route at ``path`` words them: JSON for the API, plain text for the SPARQL
    and Graph Store protocols."""
    if _wants_json(path):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    return PlainTextResponse(message + "\n", status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``. SPARQL and Graph Store answers are plain text, as those
    protocols' clients print them; the JSON API answers ``{"error": ..., ...}``."""

    @app.exception_handler(HttpError)
    async def _http(request: Request, exc: HttpError) -> Response:
        return error_response(request.url.path, exc.status, exc.message, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _starlette(request: Request, exc: StarletteHTTPException) -> Response:
        # the router's own answers (405 for a method a path does not take, 404 for no route) and
        # FastAPI's (400 for a JSON body it cannot parse), in the same shape as ours
        return error_response(request.url.path, exc.status_code, str(exc.detail), headers=dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def _parameters(request: Request, exc: RequestValidationError) -> Response:
        # A malformed parameter is a bad request (400) in the same {"error": ...} shape as ours,
        # naming each parameter and what is wrong with it.
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error.get('loc', ()) if p not in ('query', 'body'))}: {error.get('msg')}"
            for error in exc.errors()
        )
        message = f"bad request: {problems}"
        if _wants_json(request):
            return JSONResponse({"error": message}, status_code=400)
        return PlainTextResponse(message + "\n", status_code=400)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> Response:
        return internal_error(request, exc)

    @app.exception_handler(ProvGraphError)
    async def _provgraph(request: Request, exc: ProvGraphError) -> Response:
        status = status_of(exc)
        if status == 500:
            return internal_error(request, exc)
        if _wants_json(request):
            body: dict[str, object] = {"error": str(exc)}
            if isinstance(exc, ValidationFailedError):
                body["validation"] = exc.report.model_dump(mode="json")
            if isinstance(exc, QueryError):
                body.update({"line": exc.line, "column": exc.column})
            return JSONResponse(body, status_code=status)
        return PlainTextResponse(str(exc) + "\n", status_code=status)


def internal_error(request: Request, exc: BaseException) -> Response:
    """A 500 as a problem body naming a request id; the traceback goes to the server's log under
    the same id, never to the client."""
    request_id = secrets.token_hex(8)
    logger.error(
        "request %s: %s %s failed",
        request_id,
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    body = ProblemBody(
        error=f"internal error (request {request_id})",
        status=500,
        title="Internal Server Error",
        detail="the server failed to answer this request; its log names the cause under this request id",
        request_id=request_id,
    )
    return JSONResponse(body.model_dump(), status_code=500, media_type="application/problem+json")
