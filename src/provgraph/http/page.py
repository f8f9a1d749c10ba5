"""The web query page for analysts at ``/``: YASGUI over this server's ``/sparql``, with example
tabs that show provenance (facts with their sources, values that differ across sources, the
catalog).

YASGUI is vendored under ``static/yasgui/`` (see ``SOURCE.txt`` there) and served by this router,
so the page works offline: nothing is loaded from a CDN, and the Content-Security-Policy on the
page keeps the browser from reaching any other origin even if a YASGUI feature tried to.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from provgraph._version import __version__
from provgraph.http.deps import Settings
from provgraph.http.errors import HttpError
from provgraph.http.settings import ServerSettings

STATIC = Path(__file__).resolve().parent / "static"

# The page only talks to its own origin. YASGUI sets inline styles on its widgets (so
# 'unsafe-inline' for styles only) and draws icons from data: URIs; scripts are files from /static.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'self'"
)

# Media types by suffix: the vendored files' types must not depend on the host's mimetypes table
# (a missing .js entry would make browsers refuse the script under X-Content-Type-Options).
MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    "": "text/plain; charset=utf-8",
}

PREFIXES = """\
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX pg: <https://w3id.org/provgraph/ns#>
"""


@dataclass(frozen=True)
class ExampleQuery:
    """One pre-filled tab of the page."""

    name: str
    query: str


EXAMPLES: tuple[ExampleQuery, ...] = (
    ExampleQuery(
        "Facts with their sources",
        PREFIXES
        + """\
# Every fact, with the document it was taken from and how: each asserted triple is reified as an
# rdf:Statement carrying its provenance (source document, confidence, extraction method, passage).
SELECT ?subject ?predicate ?object ?source ?tier ?confidence ?method ?passage ?url
WHERE {
  ?statement a rdf:Statement ;
      rdf:subject ?subject ; rdf:predicate ?predicate ; rdf:object ?object ;
      prov:wasDerivedFrom ?document ;
      pg:confidence ?confidence ; pg:extractionMethod ?method .
  ?document dcterms:title ?source .
  OPTIONAL { ?document pg:tier ?tier }
  OPTIONAL { ?document pg:sourceUrl ?url }
  OPTIONAL { ?statement pg:sourcePassage/pg:text ?passage }
}
ORDER BY ?subject ?predicate ?source
LIMIT 500
""",
    ),
    ExampleQuery(
        "Values that differ across sources",
        PREFIXES
        + """\
PREFIX dbo: <http://dbpedia.org/ontology/>
PREFIX dbr: <http://dbpedia.org/resource/>
# Amsterdam's population as each Wikipedia edition states it (the DBpedia sample): one row per
# source, with the article's last edit time, so a disagreement can be traced to its origin.
SELECT ?population ?source ?url ?lastEdit ?confidence
WHERE {
  ?statement rdf:subject dbr:Amsterdam ; rdf:predicate dbo:populationTotal ; rdf:object ?population ;
      prov:wasDerivedFrom ?document ; pg:confidence ?confidence .
  ?document dcterms:title ?source ; pg:sourceUrl ?url .
  OPTIONAL { ?statement <http://dbpedia.org/metadata/lastedit> ?lastEdit }
}
ORDER BY DESC(?population) ?source
""",
    ),
    ExampleQuery(
        "Where sources disagree",
        PREFIXES
        + """\
# Every subject and property that the sources give more than one value for, with each value and
# the document that states it.
SELECT ?subject ?predicate (COUNT(DISTINCT ?value) AS ?values) (COUNT(DISTINCT ?document) AS ?sources)
       (GROUP_CONCAT(DISTINCT CONCAT(STR(?value), " (", ?title, ")"); separator=" | ") AS ?evidence)
WHERE {
  ?statement a rdf:Statement ;
      rdf:subject ?subject ; rdf:predicate ?predicate ; rdf:object ?value ;
      prov:wasDerivedFrom ?document .
  ?document dcterms:title ?title .
}
GROUP BY ?subject ?predicate
HAVING (COUNT(DISTINCT ?value) > 1)
ORDER BY DESC(?values) ?subject ?predicate
""",
    ),
    ExampleQuery(
        "The catalog: documents and versions",
        PREFIXES
        + """\
# The catalog graph records every ingested version of every document: superseded and revoked
# versions stay queryable as history (GRAPH reaches them), the default graph shows current ones.
SELECT ?title ?version ?status ?statements ?ingested ?key ?graph
WHERE {
  GRAPH <https://w3id.org/provgraph/id/catalog> {
    ?graph a pg:SourceGraph ;
        pg:document ?document ; pg:version ?version ; pg:status ?status ;
        pg:statementCount ?statements ; prov:generatedAtTime ?ingested .
    OPTIONAL { ?document dcterms:title ?title }
    OPTIONAL { ?document pg:documentKey ?key }
  }
}
ORDER BY ?title DESC(?version)
""",
    ),
)


@functools.cache
def _static_files() -> dict[str, Path]:
    """Every servable file by its URL path under ``/static/``: a fixed table built once, so a
    request can only ever name a file that ships with the package (no path traversal)."""
    return {path.relative_to(STATIC).as_posix(): path for path in sorted(STATIC.rglob("*")) if path.is_file()}


def token_mode(settings: ServerSettings) -> str:
    """What a page must ask of its user: "none" (no token), "reads" (every request needs it) or
    "writes" (only writes do)."""
    return "none" if settings.token is None else ("reads" if settings.read_token else "writes")


def config_block(config: Mapping[str, object]) -> str:
    """``config`` as the JSON of a ``<script type="application/json">`` data block."""
    # only "</" could end the element early
    return json.dumps(config).replace("</", "<\\/")


def page_headers(policy: str) -> dict[str, str]:
    """The headers of a page served with the Content-Security-Policy ``policy``."""
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        # The page embeds the settings it was built with: no stale copy after a restart.
        "Cache-Control": "no-cache",
    }


@functools.lru_cache(maxsize=16)  # built once per app: its settings are frozen
def _page(settings: ServerSettings) -> str:
    """The page. Every URL in it is relative, so it works at any host, port and path prefix."""
    mode = token_mode(settings)
    config = {
        "endpoint": "sparql",
        "tokenMode": mode,
        "examples": [{"name": e.name, "query": e.query} for e in EXAMPLES],
    }
    config_json = config_block(config)
    view = settings.default_view.value
    token_field = ""
    if mode != "none":
        needed = "needed to query this server" if mode == "reads" else "only needed for updates"
        token_field = (
            '<label class="pg-token">Bearer token '
            f'<input id="pg-token" type="password" autocomplete="off" placeholder="{html.escape(needed)}">'
            "</label>"
        )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>provgraph query</title>
<link rel="icon" href="static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="static/yasgui/yasgui.min.css">
<link rel="stylesheet" href="static/page.css">
</head>
<body>
<header class="pg-header">
  <div>
    <h1>provgraph query</h1>
    <p>SPARQL over a provenance store: every fact is also an <code>rdf:Statement</code> that names its
    source document (<code>prov:wasDerivedFrom</code>), confidence and extraction method. The example tabs
    show facts with their sources, values that differ across sources, and the catalog of documents and
    versions. Default graph: <code>{html.escape(view)}</code> view; <code>GRAPH</code> reaches every version.</p>
  </div>
  <div class="pg-side">
    {token_field}
    <span class="pg-version">provgraph {html.escape(__version__)} &middot;
    <a href="sparql">endpoint</a> &middot; <a href="static/yasgui/SOURCE.txt">YASGUI</a></span>
  </div>
</header>
<main id="yasgui"></main>
<script type="application/json" id="pg-config">{config_json}</script>
<script src="static/yasgui/yasgui.min.js"></script>
<script src="static/page.js"></script>
</body>
</html>
"""


#: The page's own headers.
_HEADERS = page_headers(CONTENT_SECURITY_POLICY)

router = APIRouter(tags=["Query page"])


@router.get("/", response_class=HTMLResponse, summary="The query page (YASGUI)")
def index(settings: Settings) -> HTMLResponse:
    # Served without a token even when reads need one: the page holds no data, and it is
    # where the analyst types the token that its queries then send.
    return HTMLResponse(_page(settings), headers=_HEADERS)


@router.get("/static/{path:path}", summary="Static files of the query page", include_in_schema=False)
def static(path: str) -> Response:
    found = _static_files().get(path)
    if found is None:
        raise HttpError(404, f"no static file {path!r}")
    media_type = MEDIA_TYPES.get(found.suffix, "application/octet-stream")
    # Revalidated by ETag / Last-Modified (FileResponse sets both): an upgrade of provgraph
    # ships new files under the same names.
    return FileResponse(
        found, media_type=media_type, headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    )


__all__ = ["EXAMPLES", "ExampleQuery", "router"]
