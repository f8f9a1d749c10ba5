"""The SPARQL 1.1 Protocol at ``/sparql``: queries and updates over GET and POST, datasets from
the protocol parameters, content negotiation, and the status codes the spec requires.

Requests are read by hand (not by FastAPI's parameter binding) because the protocol turns on
details binding hides: a parameter given twice, the exact media type, a body that is not UTF-8.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import Response

from provgraph.graph import ProvGraph
from provgraph.http.auth import require
from provgraph.http.errors import HttpError
from provgraph.http.evaluate import TIMEOUT, TOO_LARGE, QueryAnswer, answer
from provgraph.http.openapi import SPARQL_RESPONSES
from provgraph.http.reads import Reader, busy_error, stopping_error
from provgraph.http.service import service_description
from provgraph.http.settings import ServerSettings
from provgraph.http.workers import BUSY, DIED, STOPPED, QueryTask
from provgraph.models import DatasetView

FORM = "application/x-www-form-urlencoded"
QUERY_TYPE = "application/sparql-query"
UPDATE_TYPE = "application/sparql-update"
_ALLOW = {"Allow": "GET, POST"}


def _parameter(name: str, description: str, *, array: bool = False, example: str | None = None) -> dict[str, object]:
    schema: dict[str, object] = {"type": "array", "items": {"type": "string"}} if array else {"type": "string"}
    parameter: dict[str, object] = {"name": name, "in": "query", "required": False, "schema": schema}
    parameter["description"] = description
    if example is not None:
        parameter["example"] = example
    return parameter


_QUERY_PARAMETERS = [
    _parameter("query", "the SPARQL query (none: the service description)", example="ASK { ?s ?p ?o }"),
    _parameter("default-graph-uri", "a graph of the default graph (repeatable)", array=True),
    _parameter("named-graph-uri", "a named graph of the dataset (repeatable)", array=True),
    _parameter("view", "the default graph: current (sources' union), all, or default"),
    _parameter("union-default-graph", "true: the default graph is the union of all graphs"),
]


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


def sparql_router(pg: ProvGraph, settings: ServerSettings, reader: Reader) -> APIRouter:
    """``/sparql`` over ``pg``."""
    router = APIRouter(tags=["SPARQL"])
    slots = threading.BoundedSemaphore(settings.max_concurrent_queries)
    # On disk, while this process is the only writer, queries run in worker processes that can be
    # killed at the deadline; in memory they run in threads (and a silent one runs to its end).
    pool = reader.pool

    # Worker processes keep their own deadline (a worker still starting must not eat a query's
    # time); threads cannot be stopped, so the client is answered at the deadline instead.
    thread_timeout = None if pool is not None else settings.query_timeout + 0.5

    async def evaluate(function, *args):  # type: ignore[no-untyped-def]
        return await reader.threads.run(function, *args, timeout=thread_timeout)

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
        task = QueryTask(
            prepared=prepared,
            accept=request.headers.get("accept"),
            max_bytes=settings.max_result_bytes,
            deadline=time.time() + settings.query_timeout,
        )
        answered = pool.run(task, timeout=settings.query_timeout)
        if answered == BUSY:
            raise busy_error()
        if answered == STOPPED:
            raise stopping_error()
        if answered == DIED:
            raise HttpError(500, "the query's worker process died; try again")
        assert answered is None or isinstance(answered, QueryAnswer)
        return _respond(answered, settings)

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
        with reader.writing():
            pg.update(
                update,
                using_graphs=params.get("using-graph-uri", []),
                using_named_graphs=params.get("using-named-graph-uri", []),
                base_iri=str(request.url).split("?", 1)[0],
                services=settings.service_allow if settings.federation else (),
                loads=settings.load_allow,
            )
        return Response(status_code=204)

    @router.get(
        "/sparql",
        summary="SPARQL query (GET), or the service description",
        response_class=Response,
        responses=SPARQL_RESPONSES["GET"],
        openapi_extra={"parameters": _QUERY_PARAMETERS},
    )
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
        response_class=Response,
        responses=SPARQL_RESPONSES["POST"],
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
