"""The HTTP application: a factory over a ProvGraph, built from routers, so that it can be mounted
in another app and tested with many stores in one process."""

from __future__ import annotations

from fastapi import FastAPI

from provgraph._version import __version__
from provgraph.graph import ProvGraph
from provgraph.http import errors
from provgraph.http.api import api_router
from provgraph.http.gsp import store_router
from provgraph.http.page import page_router
from provgraph.http.settings import ServerSettings
from provgraph.http.sparql import sparql_router


def create_app(pg: ProvGraph, settings: ServerSettings | None = None) -> FastAPI:
    """A FastAPI app serving ``pg``: the SPARQL 1.1 Protocol at ``/sparql``, the Graph Store
    Protocol at ``/store``, the JSON API (``/sources``, ``/evidence``, ``/export``) and the query
    page at ``/``."""
    settings = settings or ServerSettings()
    app = FastAPI(
        title="provgraph",
        version=__version__,
        description="An RDF named-graph provenance store: SPARQL 1.1 endpoint, Graph Store Protocol, "
        "sources, evidence and export.",
    )
    errors.install(app)
    app.include_router(sparql_router(pg, settings))
    app.include_router(store_router(pg, settings))
    app.include_router(api_router(pg, settings))
    app.include_router(page_router(settings))
    app.state.provgraph = pg
    app.state.settings = settings
    return app
