"""The HTTP application: a factory over a ProvGraph, built from routers, so that it can be mounted
in another app and tested with many stores in one process."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.types import ASGIApp

from provgraph._version import __version__
from provgraph.graph import ProvGraph
from provgraph.http import answer, api, ask_page, deps, errors, gsp, openapi, page, relations, sparql, trust
from provgraph.http.limits import BodyLimit
from provgraph.http.reads import Reader
from provgraph.http.settings import ServerSettings
from provgraph.http.sparql import QueryFastPath

#: Every router of the app, in the order of the OpenAPI document. Their handlers take the graph,
#: the settings and the Reader from ``app.state`` (:mod:`provgraph.http.deps`).
ROUTERS = (
    sparql.router,
    gsp.router,
    api.router,
    trust.router,
    relations.router,
    answer.router,
    page.router,
    ask_page.router,
)


def create_app(pg: ProvGraph, settings: ServerSettings | None = None) -> FastAPI:
    """A FastAPI app serving ``pg``: the SPARQL 1.1 Protocol at ``/sparql``, the Graph Store
    Protocol at ``/store``, the JSON API (``/sources``, ``/evidence``, ``/export``) and the query
    page at ``/``."""
    settings = settings or ServerSettings()
    reader = Reader(pg, settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            reader.close()  # kill the query workers, delete the checkpoints

    app = _App(
        lifespan=lifespan,
        docs_url=None,  # served below from the package's own copy of Swagger UI, not a CDN
        redoc_url=None,
        title="provgraph",
        version=__version__,
        description="An RDF named-graph provenance store: SPARQL 1.1 endpoint, Graph Store Protocol, "
        "sources, evidence and export.",
    )
    errors.install(app)
    openapi.install(app)
    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes)
    for router in (*ROUTERS, _docs):
        app.include_router(router)
    deps.install(app.state, pg, settings, reader)
    app.fast_path = functools.partial(QueryFastPath, pg=pg, settings=settings, reader=reader)
    return app


class _App(FastAPI):
    """FastAPI with :class:`QueryFastPath` outside its whole middleware stack: a query by GET is
    answered before FastAPI's own layers (error handling, body limits, routing) see it, which
    are most of a small query's cost in the server's process (measured in bench/http.py)."""

    fast_path: Callable[[ASGIApp], ASGIApp] | None = None

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        return stack if self.fast_path is None else self.fast_path(stack)


_docs = APIRouter()


@_docs.get("/docs", include_in_schema=False)
def docs() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="provgraph API",
        swagger_js_url="/static/swagger/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None},
    )
