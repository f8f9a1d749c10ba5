"""The SPARQL 1.1 Graph Store HTTP Protocol at ``/store``.

A graph is named indirectly (``/store?graph=IRI``, ``/store?default``) or directly: the graph
whose IRI is the request URL itself (``/store/person/1.ttl``), taken from ``public_url`` when the
operator set it. ``?default`` is the store's own default graph, where plain SPARQL updates write
(not the union of current sources that queries see by default).

Source graphs and the catalog (IRIs under ``https://w3id.org/provgraph/id/``) are managed by
ingest, which validates them and records their provenance: they can be read here, and a write
to one is refused with 409, pointing to ``POST /sources``. The handlers only parse the request,
call :class:`~provgraph.graph.ProvGraph` (one transaction per request) and format the answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import quote, unquote

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from provgraph.errors import WriteRefusedError
from provgraph.graph import ProvGraph
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, WRITE_ACCESS, Graph, Reads, Settings, StoreUrl
from provgraph.http.errors import HttpError
from provgraph.http.negotiation import MEDIA_TYPE_OF, RDF_TYPES, choose
from provgraph.http.openapi import GSP_RESPONSES
from provgraph.http.reads import Reader
from provgraph.http.settings import ServerSettings
from provgraph.models import ExportFormat, InputFormat
from provgraph.store.terms import NamedNode

MULTIPART = "multipart/form-data"
_SUMMARIES = {
    "GET": "Read a graph",
    "HEAD": "Whether a graph exists, and its headers",
    "PUT": "Replace a graph",
    "POST": "Merge RDF into a graph (multipart/form-data: each part), or create one at /store",
    "DELETE": "Remove a graph",
}
_UTF8 = ("utf-8", "utf8", "us-ascii")
_INDIRECT_PARAMETERS = [
    {
        "name": "graph",
        "in": "query",
        "required": False,
        "schema": {"type": "string"},
        "description": "the graph's IRI (POST with neither graph nor default creates a graph)",
        "example": "http://example.org/my-graph",
    },
    {
        "name": "default",
        "in": "query",
        "required": False,
        "allowEmptyValue": True,
        "schema": {"type": "string"},
        "description": "the store's own default graph",
    },
]
_EXAMPLE = "<http://example.org/aspirin> <http://example.org/treats> <http://example.org/headache> .\n"


def _openapi_body(method: str) -> dict[str, object]:
    if method not in ("PUT", "POST"):
        return {}
    content: dict[str, object] = {media: {"schema": {"type": "string"}} for media in RDF_TYPES}
    content["text/turtle"] = {"schema": {"type": "string"}, "example": _EXAMPLE}
    if method == "POST":
        content[MULTIPART] = {
            "schema": {"type": "object", "additionalProperties": {"type": "string", "format": "binary"}}
        }
    return {"requestBody": {"required": True, "content": content}}


_T = TypeVar("_T")


@dataclass(frozen=True)
class _Target:
    """What a request names: a graph IRI, the default graph (``graph is None``), or, with
    ``endpoint``, no graph at all (the Graph Store itself, where POST creates a graph)."""

    graph: str | None
    endpoint: bool = False


def _query_params(request: Request) -> dict[str, list[str]]:
    """The query string decoded once, with '+' kept: a graph IRI may contain '+', never a space,
    so reading '+' as a space (form encoding) would only break IRIs."""
    out: dict[str, list[str]] = {}
    raw = request.scope.get("query_string", b"").decode("latin-1")
    for field in raw.split("&"):
        if not field:
            continue
        key, _, value = field.partition("=")
        try:
            out.setdefault(unquote(key, errors="strict"), []).append(unquote(value, errors="strict"))
        except UnicodeDecodeError:
            raise HttpError(400, "the query string is not UTF-8 once percent-decoded") from None
    return out


def _graph_iri(value: str) -> str:
    try:
        return NamedNode(value).value
    except ValueError:
        raise HttpError(400, f"graph must be an absolute IRI, not {value!r}") from None


def _media_type(raw: str | None) -> tuple[str | None, dict[str, str]]:
    if not raw:
        return None, {}
    media, *params = raw.split(";")
    parsed = {}
    for param in params:
        name, _, value = param.partition("=")
        parsed[name.strip().lower()] = value.strip().strip('"')
    return media.strip().lower(), parsed


def _input_format(content_type: str | None, *, what: str = "the request body") -> InputFormat:
    media, params = _media_type(content_type)
    accepted = ", ".join(RDF_TYPES)
    if media is None:
        raise HttpError(415, f"{what} needs a Content-Type: one of {accepted}")
    charset = params.get("charset")
    if charset is not None and charset.lower() not in _UTF8:
        raise HttpError(415, f"{what} must be UTF-8, not {charset}")
    if media not in RDF_TYPES:
        raise HttpError(415, f"unsupported Content-Type {media} for {what}: use one of {accepted}")
    return InputFormat(RDF_TYPES[media].value)


def _target(request: Request, direct: str | None, store: str) -> _Target:
    params = _query_params(request)
    graphs, default = params.get("graph", []), "default" in params
    if direct:
        if graphs or default:
            raise HttpError(400, "a graph is named by the URL (/store/...) or by ?graph=/?default, not both")
        # The graph IRI is the request URL as the client wrote it (percent-encoding kept).
        raw = request.scope.get("raw_path")
        path = raw.decode("latin-1") if raw else quote(request.url.path)
        tail = path[len(request.scope.get("root_path", "")) :].removeprefix("/store/")
        return _Target(_graph_iri(f"{store}/{tail}"))
    if len(graphs) > 1 or (graphs and default):
        raise HttpError(400, "name one graph: give ?graph=IRI once, or ?default")
    if default:
        return _Target(None)
    if graphs:
        return _Target(_graph_iri(graphs[0]))
    if request.method == "POST":
        return _Target(None, endpoint=True)
    raise HttpError(
        400, "name a graph: /store?graph=IRI, /store?default, or /store/<path> for the graph named by its URL"
    )


def _write(reader: Reader, function: Callable[..., _T], args: tuple[object, ...], kwargs: dict[str, object]) -> _T:
    with reader.writing():
        return function(*args, **kwargs)


async def _call(reader: Reader, function: Callable[..., _T], *args: object, **kwargs: object) -> _T:
    """``function(*args, **kwargs)``, a write of ``pg``, in a thread (one transaction)."""
    try:
        return await run_in_threadpool(_write, reader, function, args, kwargs)
    except WriteRefusedError as exc:
        raise HttpError(
            409, f"{exc} Over HTTP, send the document to POST /sources, which ingests it as a new version."
        ) from None


async def _read(request: Request, graph: str | None, reader: Reader, settings: ServerSettings) -> Response:
    chosen = choose(request.headers.get("accept"), list(RDF_TYPES))
    fmt = RDF_TYPES[chosen] if chosen is not None else None
    found = await reader.run(
        reads.read_graph, graph, fmt or ExportFormat.NTRIPLES, settings.max_result_bytes, settings.query_timeout
    )
    if found is None:
        raise HttpError(404, f"no graph <{graph}> in the store")
    if fmt is None:  # after the 404: a graph that does not exist is not there in any format
        raise HttpError(406, f"a graph is available as {', '.join(RDF_TYPES)}")
    body = found
    headers = {"Vary": "Accept"}
    if request.method == "HEAD":
        return Response(headers={**headers, "Content-Length": str(len(body))}, media_type=MEDIA_TYPE_OF[fmt])
    return Response(body, headers=headers, media_type=MEDIA_TYPE_OF[fmt])


async def _payload(request: Request, *, multipart: bool) -> list[tuple[bytes, InputFormat]]:
    media, _ = _media_type(request.headers.get("content-type"))
    if media != MULTIPART:
        return [(await request.body(), _input_format(request.headers.get("content-type")))]
    if not multipart:
        raise HttpError(415, f"{MULTIPART} is for POST, which merges each part into the graph")
    parts = []
    async with request.form() as form:
        for name, value in form.multi_items():
            if not isinstance(value, UploadFile):
                raise HttpError(400, f"the form field {name!r} is not a file: each part must be an RDF file")
            what = f"the part {value.filename or name!r}"
            if value.headers.get("content-type"):
                fmt = _input_format(value.headers.get("content-type"), what=what)
            else:
                guessed = InputFormat.from_path(value.filename or "")
                if guessed is None or not guessed.is_rdf:
                    raise HttpError(415, f"{what} needs a Content-Type: one of {', '.join(RDF_TYPES)}")
                fmt = guessed
            parts.append((await value.read(), fmt))
    if not parts:
        raise HttpError(400, f"the {MULTIPART} body has no parts")
    return parts


async def _handle(
    request: Request, direct: str | None, *, pg: ProvGraph, reader: Reader, settings: ServerSettings, store: str
) -> Response:
    found = _target(request, direct, store)
    graph = found.graph
    if request.method in ("GET", "HEAD"):
        return await _read(request, graph, reader, settings)
    if request.method == "DELETE":
        await _call(reader, pg.drop_graph, graph)
        return Response(status_code=204)
    if request.method == "PUT":
        parts = await _payload(request, multipart=False)
        created = await _call(reader, pg.replace_graph, graph, parts, base_iri=graph or store)
        return Response(status_code=201 if created else 204)
    parts = await _payload(request, multipart=True)
    if found.endpoint:
        new = f"{store}/{uuid.uuid4().hex}"
        await _call(reader, pg.add_to_graph, new, parts, base_iri=new)
        return Response(status_code=201, headers={"Location": new})
    created = await _call(reader, pg.add_to_graph, graph, parts, base_iri=graph or store)
    return Response(status_code=201 if created else 204)


async def indirect(request: Request, pg: Graph, reader: Reads, settings: Settings, store: StoreUrl) -> Response:
    # /store?graph=IRI, /store?default, or /store itself (POST creates a graph); no docstring:
    # FastAPI would make it the operation's description
    return await _handle(request, None, pg=pg, reader=reader, settings=settings, store=store)


async def direct(
    request: Request, path: str, pg: Graph, reader: Reads, settings: Settings, store: StoreUrl
) -> Response:
    # /store/<path>: the graph whose IRI is this URL
    return await _handle(request, path or None, pg=pg, reader=reader, settings=settings, store=store)


def _routes() -> APIRouter:
    """One route per method, so that each has its own summary, OpenAPI operation and access."""
    found = APIRouter(tags=["Graph Store"])
    for method, summary in _SUMMARIES.items():
        body = _openapi_body(method)
        access = [READ_ACCESS] if method in ("GET", "HEAD") else [WRITE_ACCESS]
        found.add_api_route(
            "/store",
            indirect,
            methods=[method],
            name=f"store_{method.lower()}",
            dependencies=access,
            response_class=Response,
            responses=GSP_RESPONSES[method],
            summary=f"{summary} (?graph=IRI or ?default)",
            openapi_extra={**body, "parameters": _INDIRECT_PARAMETERS},
        )
        found.add_api_route(
            "/store/{path:path}",
            direct,
            methods=[method],
            name=f"store_direct_{method.lower()}",
            dependencies=access,
            response_class=Response,
            responses=GSP_RESPONSES[method],
            summary=f"{summary} (the graph named by this URL)",
            openapi_extra=body,
        )
    return found


router = _routes()


__all__ = ["router"]
