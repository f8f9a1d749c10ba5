"""Errors as HTTP responses: provgraph's exception tree mapped to status codes, with the
message (and its position or focus node) in the body."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from provgraph.errors import (
    InputError,
    NotFoundError,
    ProvGraphError,
    QueryError,
    ReadOnlyStoreError,
    StoreLockedError,
    UnsupportedFormatError,
    ValidationFailedError,
)
from provgraph.update import WriteRefusedError


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
    if isinstance(exc, WriteRefusedError):
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
    return 500


def _wants_json(request: Request) -> bool:
    return not (request.url.path.startswith("/sparql") or request.url.path.startswith("/store"))


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``. SPARQL and Graph Store answers are plain text, as those
    protocols' clients print them; the JSON API answers ``{"error": ..., ...}``."""

    @app.exception_handler(HttpError)
    async def _http(request: Request, exc: HttpError) -> Response:
        if _wants_json(request):
            return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)
        return PlainTextResponse(exc.message + "\n", status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _starlette(request: Request, exc: StarletteHTTPException) -> Response:
        # the router's own answers (405 for a method a path does not take, 404 for no route)
        if _wants_json(request):
            return await http_exception_handler(request, exc)
        return PlainTextResponse(f"{exc.detail}\n", status_code=exc.status_code, headers=exc.headers)

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

    @app.exception_handler(ProvGraphError)
    async def _provgraph(request: Request, exc: ProvGraphError) -> Response:
        status = status_of(exc)
        if _wants_json(request):
            body: dict[str, object] = {"error": str(exc)}
            if isinstance(exc, ValidationFailedError):
                body["validation"] = exc.report.model_dump(mode="json")
            if isinstance(exc, QueryError):
                body.update({"line": exc.line, "column": exc.column})
            return JSONResponse(body, status_code=status)
        return PlainTextResponse(str(exc) + "\n", status_code=status)
