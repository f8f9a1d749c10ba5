"""What the OpenAPI document says the routes answer, where FastAPI cannot tell by itself: the
SPARQL and Graph Store protocols (bodies in negotiated RDF and result formats, errors in plain
text), and parameter errors, which this server answers with 400 and ``{"error": ...}`` (FastAPI
would document its own 422). A test runs schemathesis over the document against a real server."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from provgraph.http.negotiation import MEDIA_TYPE_OF, RDF_TYPES, RESULT_TYPES

_Responses = dict[int | str, dict[str, Any]]
_TEXT = {"text/plain": {"schema": {"type": "string"}}}


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "content": _TEXT}


def _bodies(media_types: list[str]) -> dict[str, Any]:
    # any body: JSON ones are parsed by clients, the others are text
    return {media: {"schema": {}} for media in media_types}


_RESULTS = sorted({MEDIA_TYPE_OF[f].split(";")[0] for f in RESULT_TYPES.values()} | set(RESULT_TYPES))
_GRAPHS = sorted({MEDIA_TYPE_OF[f].split(";")[0] for f in RDF_TYPES.values()} | set(RDF_TYPES))

_PROTOCOL_AUTH: _Responses = {
    401: _text("a bearer token is needed (writes, or reads when the operator asked for tokens on reads)"),
    403: _text("the token is wrong, or the server is read-only"),
}
_PROTOCOL_READ: _Responses = {
    **_PROTOCOL_AUTH,
    406: _text("none of the acceptable media types can hold the result"),
    413: _text("the response would be larger than --max-result-bytes, or the request body than --max-upload-bytes"),
    503: _text("the request ran past the deadline (--timeout) and was stopped, or the server is busy"),
}

#: ``responses`` of ``/sparql``, by method.
SPARQL_RESPONSES: dict[str, _Responses] = {
    "GET": {
        200: {
            "description": "query results (SELECT, ASK), a graph (CONSTRUCT, DESCRIBE), or, with no query, "
            "the service description",
            "content": _bodies(sorted(set(_RESULTS) | set(_GRAPHS))),
        },
        303: {"description": "a browser asking for the endpoint is sent to the query page"},
        400: _text("a malformed query (with its position), or a bad parameter"),
        405: _text("an update by GET"),
        **_PROTOCOL_READ,
    },
    "POST": {
        200: {
            "description": "query results (SELECT, ASK) or a graph (CONSTRUCT, DESCRIBE)",
            "content": _bodies(sorted(set(_RESULTS) | set(_GRAPHS))),
        },
        204: {"description": "the update was applied"},
        400: _text("a malformed query or update (with its position), or a bad parameter"),
        409: _text("the update would change a source graph or the catalog, which only ingest writes"),
        415: _text("a body that is not a SPARQL query, update or form, or not UTF-8"),
        **_PROTOCOL_READ,
    },
}

_GRAPH_TARGET: _Responses = {
    400: _text("no graph named, or a graph IRI that is not absolute"),
    # the router's: /store/<path> whose path cannot be a graph's URL (a control character, say)
    404: _text("no such graph, or no graph can have this URL"),
    **_PROTOCOL_AUTH,
}
_GRAPH_WRITE: _Responses = {
    201: {"description": "the graph was created"},
    204: {"description": "the graph was replaced or merged into"},
    409: _text("a source graph or the catalog, which only ingest writes (POST /sources)"),
    413: _text("the request body is larger than --max-upload-bytes"),
    415: _text("a body in a media type that is not an RDF syntax provgraph reads, or not UTF-8"),
    **_GRAPH_TARGET,
}

#: ``responses`` of ``/store`` and ``/store/{path}``, by method.
GSP_RESPONSES: dict[str, _Responses] = {
    "GET": {
        200: {"description": "the graph", "content": _bodies(_GRAPHS)},
        404: _text("no such graph"),
        **_GRAPH_TARGET,
        **_PROTOCOL_READ,
    },
    "HEAD": {
        200: {"description": "the graph exists; its headers"},
        404: {"description": "no such graph"},
        **{status: {"description": response["description"]} for status, response in _GRAPH_TARGET.items()},
        **{status: {"description": response["description"]} for status, response in _PROTOCOL_READ.items()},
    },
    "PUT": _GRAPH_WRITE,
    "POST": _GRAPH_WRITE,
    "DELETE": {
        204: {"description": "the graph was removed (the default graph: emptied)"},
        404: _text("no such graph"),
        409: _text("a source graph or the catalog, which only ingest writes"),
        **_GRAPH_TARGET,
    },
}


def install(app: FastAPI) -> None:
    """Build ``app``'s OpenAPI document once, with parameter errors as the 400s they are."""

    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes, tags=app.openapi_tags
        )
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                responses = operation.get("responses", {})
                default = responses.get("422", {})
                if default.get("description") == "Validation Error":
                    del responses["422"]
                    responses.setdefault(
                        "400",
                        {
                            "description": "a malformed parameter or body: names each and what is wrong",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
                        },
                    )
                if "requestBody" in operation and "413" not in responses:
                    responses["413"] = {
                        "description": "the request body is larger than --max-upload-bytes",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
                    }
        components = schema.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            components.pop(unused, None)
        app.openapi_schema = schema
        return schema

    app.openapi = build  # type: ignore[method-assign]


__all__ = ["GSP_RESPONSES", "SPARQL_RESPONSES", "install"]
