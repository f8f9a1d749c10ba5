"""What a route handler takes from its app, as FastAPI dependencies.

:func:`~provgraph.http.app.create_app` keeps the app's state on ``app.state`` (the graph, the
settings, the :class:`~provgraph.http.reads.Reader`); a handler names what it needs in its
signature (``pg: Graph``, ``reader: Reads``, ``settings: Settings``, ``base: StoreUrl``) and
declares its access with ``dependencies=[READ_ACCESS]`` or ``[WRITE_ACCESS]``. Route-level
dependencies run before the handler's parameters and body are read: no one without the token
makes the server spool an upload.

Every dependency is ``async``: FastAPI runs a plain function in a thread, a hop per dependency
per request for what is an attribute lookup.
"""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import State

from provgraph.graph import ProvGraph
from provgraph.http.auth import require
from provgraph.http.reads import Reader
from provgraph.http.settings import ServerSettings


def install(state: State, pg: ProvGraph, settings: ServerSettings, reader: Reader) -> None:
    """Put what the routes need on the app's ``state``, where the dependencies below and the
    SPARQL routes find it."""
    state.provgraph = pg
    state.settings = settings
    state.reader = reader  # close() it when the app is mounted in another one (no lifespan)
    # SPARQL queries evaluated in threads at once (in memory, or without query workers)
    state.query_slots = threading.BoundedSemaphore(settings.max_concurrent_queries)


def graph_of(request: Request) -> ProvGraph:
    found: ProvGraph = request.app.state.provgraph
    return found


def settings_of(request: Request) -> ServerSettings:
    found: ServerSettings = request.app.state.settings
    return found


def reader_of(request: Request) -> Reader:
    found: Reader = request.app.state.reader
    return found


def query_slots_of(request: Request) -> threading.BoundedSemaphore:
    found: threading.BoundedSemaphore = request.app.state.query_slots
    return found


def check_access(request: Request, *, write: bool) -> None:
    """The 401/403 the request deserves (:func:`~provgraph.http.auth.require`), for the routes
    whose access turns on what the request carries (``/sparql``: a query or an update)."""
    require(request, settings_of(request), write=write)


def base_iri_of(request: Request) -> str:
    """The request's URL without its query string: the base IRI of the SPARQL text it carries."""
    return str(request.url).split("?", 1)[0]


def store_url_of(request: Request) -> str:
    """The Graph Store's URL, ``public_url`` when the operator set it: the base IRI of what is
    written there, and what a graph named by its URL (``/store/...``) starts with."""
    settings = settings_of(request)
    if settings.public_url:
        return settings.public_url.rstrip("/") + "/store"
    return str(request.base_url).rstrip("/") + "/store"


async def _graph(request: Request) -> ProvGraph:
    return graph_of(request)


async def _settings(request: Request) -> ServerSettings:
    return settings_of(request)


async def _reader(request: Request) -> Reader:
    return reader_of(request)


async def _store_url(request: Request) -> str:
    return store_url_of(request)


async def _read_access(request: Request) -> None:
    check_access(request, write=False)


async def _write_access(request: Request) -> None:
    check_access(request, write=True)


#: The app's store (writes go through it; reads go through :data:`Reads`).
Graph = Annotated[ProvGraph, Depends(_graph)]
#: The operator's settings.
Settings = Annotated[ServerSettings, Depends(_settings)]
#: The Reader that runs reads under the deadline (in a worker over a checkpoint, or a thread).
Reads = Annotated[Reader, Depends(_reader)]
#: The base IRI of Graph Store writes: the store's URL (:func:`store_url_of`).
StoreUrl = Annotated[str, Depends(_store_url)]
#: Reads need the token only when the operator asked for it (``read_token``).
READ_ACCESS = Depends(_read_access)
#: Writes need the token; with none configured the server is read-only (403).
WRITE_ACCESS = Depends(_write_access)

__all__ = [
    "READ_ACCESS",
    "WRITE_ACCESS",
    "Graph",
    "Reads",
    "Settings",
    "StoreUrl",
    "base_iri_of",
    "check_access",
    "graph_of",
    "install",
    "query_slots_of",
    "reader_of",
    "settings_of",
    "store_url_of",
]
