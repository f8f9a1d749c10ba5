"""The SPARQL 1.1 Protocol at ``/sparql``: queries and updates over GET and POST, datasets from
the protocol parameters, content negotiation, and the status codes the spec requires.

Requests are read by hand (not by FastAPI's parameter binding) because the protocol turns on
details binding hides: a parameter given twice, the exact media type, a body that is not UTF-8.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.datastructures import URL
from starlette.types import ASGIApp, Receive, Scope, Send

from provgraph import PreparedQuery
from provgraph.errors import ProvGraphError, QuerySyntaxError
from provgraph.graph import ProvGraph
from provgraph.http.deps import base_iri_of, check_access, graph_of, query_slots_of, reader_of, settings_of
from provgraph.http.errors import HttpError, error_response, internal_error, status_of
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
#: Texts up to this many characters are prepared on the event loop (microseconds when the text was
#: prepared before, a fraction of a millisecond when not); longer ones in a thread.
INLINE_PREPARE = 8192


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
    declared = _other_charset((request.headers.get("content-type") or "").partition(";")[2])
    if declared is not None:
        raise HttpError(415, f"the request body must be UTF-8, not {declared}")


def _other_charset(parameters: str) -> str | None:
    """The charset the media type ``parameters`` declare (``; charset=...``), as written, when it
    is not UTF-8 (or its subset ASCII)."""
    for param in parameters.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8", "us-ascii"):
            return value.strip()
    return None


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


# The /sparql routes take the app's state with plain calls (deps.graph_of and friends), not as
# FastAPI dependencies: solving those is per-request work on the query path, which bench/http.py
# measures. Their access turns on what the request carries (a query reads, an update writes, the
# service description needs no token), so it is checked once that is known, not per route.


async def _in_thread(function: Callable[..., Response], request: Request, *args: object) -> Response:
    reader = reader_of(request)
    # Worker processes keep their own deadline (a worker still starting must not eat a query's
    # time); threads cannot be stopped, so the client is answered at the deadline instead.
    timeout = None if reader.pool is not None else settings_of(request).query_timeout + 0.5
    return await reader.threads.run(function, request, *args, timeout=timeout)


async def _query(request: Request, query: str, params: dict[str, list[str]]) -> Response:
    # On disk, while this process is the only writer, queries run in worker processes that can be
    # killed at the deadline; in memory they run in threads (and a silent one runs to its end).
    reader = reader_of(request)
    if reader.pool is None:
        return await _in_thread(_run_query, request, query, params)
    check_access(request, write=False)
    accept = request.headers.get("accept")
    return await answer_in_worker(
        graph_of(request), settings_of(request), reader, query, params, accept, base_iri_of(request)
    )


def _run_query(request: Request, query: str, params: dict[str, list[str]]) -> Response:
    check_access(request, write=False)
    pg, settings, slots = graph_of(request), settings_of(request), query_slots_of(request)
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
            base_iri=base_iri_of(request),
            services=settings.service_allow if settings.federation else (),
        )
        answered = answer(result, accept=accept, max_bytes=settings.max_result_bytes, deadline=deadline)
        del result  # pyoxigraph results belong to the thread that made them: drop them here
    finally:
        slots.release()
    answered = checked_answer(answered, settings)
    return Response(answered.body, media_type=answered.media_type)


def _run_update(request: Request, update: str, params: dict[str, list[str]]) -> Response:
    check_access(request, write=True)
    pg, settings = graph_of(request), settings_of(request)
    with reader_of(request).writing():
        pg.update(
            update,
            using_graphs=params.get("using-graph-uri", []),
            using_named_graphs=params.get("using-named-graph-uri", []),
            base_iri=base_iri_of(request),
            services=settings.service_allow if settings.federation else (),
            loads=settings.load_allow,
        )
    return Response(status_code=204)


router = APIRouter(tags=["SPARQL"])


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
        return service_description(request, settings_of(request))
    return await _query(request, query, params)


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
            return await _query(request, query, merged)
        if update is not None:
            return await _in_thread(_run_update, request, update, merged)
        raise HttpError(400, "the form has neither a 'query' nor an 'update' field")
    if media == QUERY_TYPE:
        if "query" in url_params or "update" in url_params:
            raise HttpError(400, "a direct POST carries the operation in the body only")
        return await _query(request, await _text_body(request), url_params)
    if media == UPDATE_TYPE:
        if "query" in url_params or "update" in url_params:
            raise HttpError(400, "a direct POST carries the operation in the body only")
        return await _in_thread(_run_update, request, await _text_body(request), url_params)
    if media is None:
        raise HttpError(400, f"a POST needs a Content-Type: {FORM}, {QUERY_TYPE} or {UPDATE_TYPE}")
    raise HttpError(415, f"unsupported Content-Type {media}: use {FORM}, {QUERY_TYPE} or {UPDATE_TYPE}")


# Without this route the router answers other methods with the Allow of the first /sparql
# route it meets (GET alone), though POST is allowed too.
@router.api_route("/sparql", methods=["PUT", "DELETE", "PATCH"], include_in_schema=False)
async def other(request: Request) -> Response:
    raise HttpError(405, f"{request.method} is not a SPARQL Protocol method: use GET or POST", headers=_ALLOW)


async def answer_in_worker(
    pg: ProvGraph,
    settings: ServerSettings,
    reader: Reader,
    query: str,
    params: dict[str, list[str]],
    accept: str | None,
    base_iri: str,
) -> Response:
    """On the event loop: the text prepared (a small one here, a large one in a thread) and
    handed to a worker process, whose answer is awaited without a thread in between."""
    started = time.monotonic()
    prepared = await _prepare(pg, settings, reader, query, params, base_iri)
    return await _run_in_worker(settings, reader, prepared, accept, started)


async def _prepare(
    pg: ProvGraph, settings: ServerSettings, reader: Reader, query: str, params: dict[str, list[str]], base_iri: str
) -> PreparedQuery:
    prepare = functools.partial(prepare_query, pg, settings, query, params, base_iri)
    if len(query) <= INLINE_PREPARE:
        return prepare()
    return await reader.threads.run(prepare, timeout=None)


def prepare_query(
    pg: ProvGraph, settings: ServerSettings, query: str, params: dict[str, list[str]], base_iri: str
) -> PreparedQuery:
    """``query`` prepared as the route prepares it, with the protocol's dataset ``params``
    (raises HttpError or ProvGraphError for what the route answers with an error)."""
    return pg.prepare(
        query,
        view=_view(params, settings),
        default_graph=params.get("default-graph-uri"),
        named_graphs=params.get("named-graph-uri"),
        base_iri=base_iri,
        services=settings.service_allow if settings.federation else (),
    )


async def _run_in_worker(
    settings: ServerSettings, reader: Reader, prepared: PreparedQuery, accept: str | None, started: float
) -> Response:
    answered = await _evaluate(settings, reader, prepared, accept, started)
    return Response(answered.body, media_type=answered.media_type)


async def _evaluate(
    settings: ServerSettings, reader: Reader, prepared: PreparedQuery, accept: str | None, started: float
) -> QueryAnswer:
    """The worker's 200 answer to ``prepared``; any other outcome as the HttpError to send."""
    pool = reader.pool
    assert pool is not None
    timeout = settings.query_timeout - (time.monotonic() - started)
    task = QueryTask(
        text=prepared.text,
        dataset=prepared.dataset,
        base_iri=prepared.base_iri,
        accept=accept,
        max_bytes=settings.max_result_bytes,
    )
    answered = await pool.run(task, timeout=timeout)
    if answered == BUSY:
        raise busy_error()
    if answered == STOPPED:
        raise stopping_error()
    if answered == DIED:
        raise HttpError(500, "the query's worker process died; try again")
    assert answered is None or isinstance(answered, QueryAnswer)
    if answered is not None and answered.syntax is not None:
        message, line, column = answered.syntax
        raise prepared.error(QuerySyntaxError(message, line=line, column=column))
    return checked_answer(answered, settings)


#: The parameters of a query by GET (the SPARQL protocol's, and the view).
_GET_PARAMETERS = frozenset({"query", "default-graph-uri", "named-graph-uri", "view", "union-default-graph"})
#: How many query strings and base IRIs the fast path remembers.
_REMEMBERED = 1024


def fast_params(query_string: bytes) -> dict[str, list[str]] | None:
    """The parameters of a query by GET when a fast path may answer it as the route would: a
    query, each parameter one the route takes, the single-valued ones given once (None: the
    route answers it, an error maybe). Remembered for query strings up to
    :data:`INLINE_PREPARE` bytes (clients repeat their queries, and reading them again is a
    measurable part of a small query's cost): callers must not change what it returns."""
    if len(query_string) <= INLINE_PREPARE:
        return _remembered_params(query_string)
    return _read_params(query_string)


@functools.lru_cache(maxsize=_REMEMBERED)
def _remembered_params(query_string: bytes) -> dict[str, list[str]] | None:
    return _read_params(query_string)


def _read_params(query_string: bytes) -> dict[str, list[str]] | None:
    try:
        params = _params(parse_qsl(query_string.decode(), keep_blank_values=True))
    except UnicodeDecodeError:
        return None
    return params if _plain(params) else None


def fast_post(query_string: bytes, content_type: str | None, body: bytes) -> dict[str, list[str]] | None:
    """The parameters of a query by POST (a form, or a direct ``application/sparql-query`` body)
    when a fast path may answer it as the route would (None: the route answers it)."""
    media, _, rest = (content_type or "").partition(";")
    media = media.strip().lower()
    if media not in (FORM, QUERY_TYPE):
        return None
    try:
        params = _params(parse_qsl(query_string.decode(), keep_blank_values=True))
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "query" in params or "update" in params:
        return None  # the route refuses either in the URL of a POST
    if media == QUERY_TYPE:
        if _other_charset(rest) is not None:
            return None  # the route refuses a body declared in another charset
        params["query"] = [text]
    else:
        try:
            pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False, encoding="utf-8", errors="strict")
        except UnicodeDecodeError:
            return None
        for key, value in pairs:
            params.setdefault(key, []).append(value)
    return params if _plain(params) else None


def _plain(params: dict[str, list[str]]) -> bool:
    """A query with parameters the route takes, the single-valued ones given once."""
    return not (
        "query" not in params
        or "update" in params
        or not params.keys() <= _GET_PARAMETERS
        or any(len(params[k]) > 1 for k in ("query", "view", "union-default-graph") if k in params)
    )


class QueryFastPath:
    """ASGI middleware answering ``GET /sparql?query=...`` straight from a query worker, ahead of
    FastAPI's middleware, routing, request objects and dependency machinery (most of a small
    query's cost in the server's process). It takes only requests it answers exactly as the route
    does: reads that need no token, with parameters the route accepts, answered 200; anything
    else, and any error found before or after the worker (a parameter given twice, a text the
    guards refuse, a deadline), goes on to the app or is worded as the app words it."""

    def __init__(self, app: ASGIApp, pg: ProvGraph, settings: ServerSettings, reader: Reader) -> None:
        self.app = app
        self.pg = pg
        self.settings = settings
        self.reader = reader
        # base IRIs seen before (clients repeat their queries): working them out again is a
        # measurable part of a small query's cost
        self._bases: dict[tuple[object, ...], str] = {}

    def _base(self, scope: Scope, host: bytes) -> str:
        """The request's URL without its query string, as ``str(request.url)`` gives it."""
        key = (scope["scheme"], scope.get("server"), scope.get("root_path", ""), scope["path"], host)
        found = self._bases.get(key)
        if found is None:
            found = str(URL(scope={**scope, "query_string": b""}))
            if len(self._bases) >= _REMEMBERED:
                self._bases.clear()
            self._bases[key] = found
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "GET"
            or scope["path"] != "/sparql"
            or self.reader.pool is None
            or self.settings.read_token
        ):
            await self.app(scope, receive, send)
            return
        params = fast_params(scope["query_string"])
        if params is None:
            await self.app(scope, receive, send)
            return
        accept = None
        host = b""
        for name, value in scope["headers"]:
            if name == b"accept":
                accept = value.decode("latin-1")
            elif name == b"host":
                host = value
        started = time.monotonic()
        try:
            prepared = await _prepare(
                self.pg, self.settings, self.reader, params["query"][0], params, self._base(scope, host)
            )
        except (HttpError, ProvGraphError):
            await self.app(scope, receive, send)  # the route words it
            return
        try:
            answered = await _evaluate(self.settings, self.reader, prepared, accept, started)
        except HttpError as exc:
            response: Response = error_response(scope["path"], exc.status, exc.message, headers=exc.headers)
        except Exception as exc:  # worded as the app's handlers word it (errors.install)
            if isinstance(exc, ProvGraphError) and status_of(exc) != 500:
                response = PlainTextResponse(str(exc) + "\n", status_code=status_of(exc))
            else:
                response = internal_error(Request(scope), exc)
        else:
            # what Response(body, media_type=...) sends, without building one
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-length", str(len(answered.body)).encode()),
                        (b"content-type", answered.media_type.encode("latin-1")),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": answered.body})
            return
        await response(scope, receive, send)


def checked_answer(answered: QueryAnswer | None, settings: ServerSettings) -> QueryAnswer:
    """An evaluated query's answer when it is a 200; else the HttpError to send (``None``: it was
    stopped at the deadline)."""
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
    return answered


__all__ = ["QueryFastPath", "checked_answer", "fast_params", "fast_post", "prepare_query", "router"]
