"""The SPARQL 1.1 Protocol at ``/sparql``: queries and updates over GET and POST, datasets from
the protocol parameters, content negotiation, and the status codes the spec requires.

Requests are read by hand (not by FastAPI's parameter binding) because the protocol turns on
details binding hides: a parameter given twice, the exact media type, a body that is not UTF-8.
"""

from __future__ import annotations

import asyncio
import threading
import time
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import Response

from provgraph.graph import ProvGraph
from provgraph.http.auth import require
from provgraph.http.errors import HttpError
from provgraph.http.evaluate import TIMEOUT, TOO_LARGE, QueryAnswer, answer
from provgraph.http.service import service_description
from provgraph.http.settings import ServerSettings
from provgraph.http.workers import QueryPool, QueryTask
from provgraph.models import DatasetView

FORM = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"
_ALLOW = {"Allow": "GET, POST"}


def _params(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in pairs:
        out.setdefault(key, []).append(value)
    return out


def _one(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name, [])
    if len(values) > 1:
        raise HttpError(400, f"the '{name}' parameter is given {len(values)} times; give it once")
    return values[0] if values else None


def _media_type(request: Request) -> str | None:
    raw = request.headers.get("content-type")
    return raw.split(";", 1)[0].strip().lower() if raw else None


async def _form(request: Request) -> list[tuple[str, str]]:
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HttpError(400, f"the request body is not UTF-8 (byte {exc.start})") from exc
    try:
        return parse_qsl(text, keep_blank_values=True, strict_parsing=False, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise HttpError(400, "a form value is not UTF-8 once percent-decoded") from exc


def _require_utf8(request: Request) -> None:
    """The protocol's direct POST bodies are UTF-8: a body declared otherwise (UTF-16, say) is
    refused outright rather than misread, which UTF-16 text without a byte order mark would be."""
    for param in (request.headers.get("content-type") or "").split(";")[1:]:
        name, _, value = param.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8", "us-ascii"):
            raise HttpError(415, f"the request body must be UTF-8, not {value.strip()}")


async def _text_body(request: Request) -> str:
    _require_utf8(request)
    body = await request.body()
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HttpError(400, f"the request body is not UTF-8 (byte {exc.start})") from exc


def _view(params: dict[str, list[str]], settings: ServerSettings) -> DatasetView:
    union = _one(params, "union-default-graph")
    if union is not None and union.lower() not in ("false", "0"):
        return DatasetView.ALL
    view = _one(params, "view")
    if view is None:
        return settings.default_view
    try:
        return DatasetView(view)
    except ValueError:
        allowed = ", ".join(v.value for v in DatasetView)
        raise HttpError(400, f"view must be one of {allowed}, not {view!r}") from None


def sparql_router(pg: ProvGraph, settings: ServerSettings) -> APIRouter:
    """``/sparql`` over ``pg``."""
    router = APIRouter(tags=["SPARQL"])
    slots = threading.BoundedSemaphore(settings.max_concurrent_queries)
    # On disk, while this process is the only writer, queries run in worker processes that can be
    # killed at the deadline; in memory they run in threads (and a silent one runs to its end).
    pool: QueryPool | None = None
    if settings.query_workers and pg.backend.location is not None and pg.backend.generation is not None:
        pool = QueryPool(pg.backend.location, settings.query_workers)
        router.add_event_handler("shutdown", pool.close)

    # Worker processes keep their own deadline (a worker still starting must not eat a query's
    # time); threads cannot be stopped, so the client is answered at the deadline instead.
    thread_timeout = None if pool is not None else settings.query_timeout + 0.5

    async def evaluate(function, *args):  # type: ignore[no-untyped-def]
        return await _in_thread(settings, thread_timeout, function, *args)

    def run_in_worker(request: Request, query: str, params: dict[str, list[str]]) -> Response:
        assert pool is not None
        require(request, settings, write=False)
        prepared = pg.prepare(
            query,
            view=_view(params, settings),
            default_graph=params.get("default-graph-uri"),
            named_graphs=params.get("named-graph-uri"),
            base_iri=str(request.url).split("?", 1)[0],
            services=settings.service_allow if settings.federation else (),
        )
        generation = pg.backend.generation
        task = QueryTask(
            prepared=prepared,
            accept=request.headers.get("accept"),
            generation=generation if generation is not None else -1,
            max_bytes=settings.max_result_bytes,
            deadline=time.time() + settings.query_timeout,
        )
        return _respond(pool.run(task, timeout=settings.query_timeout), settings)

    def run_query(request: Request, query: str, params: dict[str, list[str]]) -> Response:
        if pool is not None:
            return run_in_worker(request, query, params)
        require(request, settings, write=False)
        default_graphs = params.get("default-graph-uri")
        named_graphs = params.get("named-graph-uri")
        accept = request.headers.get("accept")
        if not slots.acquire(timeout=settings.query_timeout):
            raise HttpError(503, "the server is busy with other queries; try again")
        try:
            deadline = time.time() + settings.query_timeout
            result = pg.query(
                query,
                view=_view(params, settings),
                default_graph=default_graphs,
                named_graphs=named_graphs,
                base_iri=str(request.url).split("?", 1)[0],
                services=settings.service_allow if settings.federation else (),
            )
            answered = answer(result, accept=accept, max_bytes=settings.max_result_bytes, deadline=deadline)
            del result  # pyoxigraph results belong to the thread that made them: drop them here
        finally:
            slots.release()
        return _respond(answered, settings)

    def run_update(request: Request, update: str, params: dict[str, list[str]]) -> Response:
        require(request, settings, write=True)
        pg.update(
            update,
            using_graphs=params.get("using-graph-uri", []),
            using_named_graphs=params.get("using-named-graph-uri", []),
            base_iri=str(request.url).split("?", 1)[0],
            services=settings.service_allow if settings.federation else (),
            loads=settings.load_allow,
        )
        return Response(status_code=204)

    @router.get("/sparql", summary="SPARQL query (GET), or the service description")
    async def get(request: Request) -> Response:
        params = _params(parse_qsl(request.url.query, keep_blank_values=True))
        if "update" in params:
            raise HttpError(405, "updates go by POST, not GET", headers={"Allow": "POST"})
        query = _one(params, "query")
        if query is None:
            return service_description(request, settings)
        return await evaluate(run_query, request, query, params)

    @router.post(
        "/sparql",
        summary="SPARQL query or update (POST)",
        openapi_extra={
            "requestBody": {
                "content": {
                    FORM: {
                        "schema": {
                            "type": "object",
                            "properties": {"query": {"type": "string"}, "update": {"type": "string"}},
                        }
                    },
                    QUERY_TYPE: {"schema": {"type": "string"}, "example": "SELECT * WHERE { ?s ?p ?o } LIMIT 10"},
                    UPDATE_TYPE: {
                        "schema": {"type": "string"},
                        "example": "INSERT DATA { <http://example.org/a> <http://example.org/b> 1 }",
                    },
                }
            }
        },
    )
    async def post(request: Request) -> Response:
        url_params = _params(parse_qsl(request.url.query, keep_blank_values=True))
        media = _media_type(request)
        if media == FORM:
            params = _params(await _form(request))
            for key in ("query", "update"):
                if key in url_params:
                    raise HttpError(400, f"'{key}' belongs in the form body, not the URL")
            merged = {**url_params}
            for key, values in params.items():
                merged.setdefault(key, []).extend(values)
            query, update = _one(merged, "query"), _one(merged, "update")
            if query is not None and update is not None:
                raise HttpError(400, "give a query or an update, not both")
            if query is not None:
                return await evaluate(run_query, request, query, merged)
            if update is not None:
                return await evaluate(run_update, request, update, merged)
            raise HttpError(400, "the form has neither a 'query' nor an 'update' field")
        if media == QUERY_TYPE:
            if "query" in url_params or "update" in url_params:
                raise HttpError(400, "a direct POST carries the operation in the body only")
            return await evaluate(run_query, request, await _text_body(request), url_params)
        if media == UPDATE_TYPE:
            if "query" in url_params or "update" in url_params:
                raise HttpError(400, "a direct POST carries the operation in the body only")
            return await evaluate(run_update, request, await _text_body(request), url_params)
        if media is None:
            raise HttpError(400, f"a POST needs a Content-Type: {FORM}, {QUERY_TYPE} or {UPDATE_TYPE}")
        raise HttpError(415, f"unsupported Content-Type {media}: use {FORM}, {QUERY_TYPE} or {UPDATE_TYPE}")

    # Without this route the router answers other methods with the Allow of the first /sparql
    # route it meets (GET alone), though POST is allowed too.
    @router.api_route("/sparql", methods=["PUT", "DELETE", "PATCH"], include_in_schema=False)
    async def other(request: Request) -> Response:
        raise HttpError(405, f"{request.method} is not a SPARQL Protocol method: use GET or POST", headers=_ALLOW)

    return router


async def _in_thread(settings: ServerSettings, timeout: float | None, function, *args):  # type: ignore[no-untyped-def]
    """Evaluate off the event loop, so the server keeps answering while a query runs, and (with a
    timeout) answer the client at the deadline even when the query has not produced a row by then."""
    from starlette.concurrency import run_in_threadpool

    try:
        return await asyncio.wait_for(run_in_threadpool(function, *args), timeout=timeout)
    except TimeoutError:
        # The evaluation goes on in its thread until it ends (Oxigraph cannot be interrupted from
        # Python); it holds one of the max_concurrent_queries slots meanwhile.
        return _respond(None, settings)


def _respond(answered: QueryAnswer | None, settings: ServerSettings) -> Response:
    """The HTTP response for an evaluated query (``None``: it was stopped at the deadline)."""
    if answered is None or (answered.status == 503 and answered.body == TIMEOUT):
        raise HttpError(
            503,
            f"the query ran past the {settings.query_timeout:g} s timeout and was stopped; narrow it or add a LIMIT",
        )
    if answered.status == 413 and answered.body == TOO_LARGE:
        raise HttpError(
            413, f"the result is larger than {settings.max_result_bytes} bytes and was stopped; add a LIMIT"
        )
    if answered.status != 200:
        raise HttpError(answered.status, answered.body.decode("utf-8", errors="replace").strip())
    return Response(answered.body, media_type=answered.media_type)


__all__ = ["sparql_router"]
