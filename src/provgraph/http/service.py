"""The SPARQL 1.1 Service Description of the endpoint (GET /sparql with no query)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from provgraph.http.errors import HttpError
from provgraph.http.negotiation import choose
from provgraph.http.settings import ServerSettings
from provgraph.options import DatasetView
from provgraph.store.terms import BlankNode, Literal, NamedNode, Quad, RdfFormat, serialize

SD = "http://www.w3.org/ns/sparql-service-description#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
FORMATS = {
    "text/turtle": RdfFormat.TURTLE,
    "application/rdf+xml": RdfFormat.RDF_XML,
    "application/n-triples": RdfFormat.N_TRIPLES,
    "application/ld+json": RdfFormat.JSON_LD,
}
RESULT_FORMATS = [
    "http://www.w3.org/ns/formats/SPARQL_Results_JSON",
    "http://www.w3.org/ns/formats/SPARQL_Results_XML",
    "http://www.w3.org/ns/formats/SPARQL_Results_CSV",
    "http://www.w3.org/ns/formats/SPARQL_Results_TSV",
    "http://www.w3.org/ns/formats/Turtle",
    "http://www.w3.org/ns/formats/N-Triples",
    "http://www.w3.org/ns/formats/N-Quads",
    "http://www.w3.org/ns/formats/TriG",
    "http://www.w3.org/ns/formats/JSON-LD",
    "http://www.w3.org/ns/formats/RDF_XML",
]


def service_description(request: Request, settings: ServerSettings) -> Response:
    accept = request.headers.get("accept")
    chosen = choose(accept, [*FORMATS, "text/html"])
    if chosen == "text/html":
        return RedirectResponse("/", status_code=303)  # a browser: the query page
    if chosen is None:
        raise HttpError(406, f"the service description is available as {', '.join(FORMATS)}")
    endpoint = NamedNode(
        settings.public_url.rstrip("/") + "/sparql" if settings.public_url else str(request.url).split("?", 1)[0]
    )
    service, dataset, default = BlankNode(), BlankNode(), BlankNode()
    sd = lambda name: NamedNode(SD + name)  # noqa: E731
    quads = [
        Quad(service, RDF_TYPE, sd("Service")),
        Quad(service, sd("endpoint"), endpoint),
        Quad(service, sd("supportedLanguage"), sd("SPARQL11Query")),
        Quad(service, sd("supportedLanguage"), sd("SPARQL11Update")),
        # SERVICE is refused unless federation is on; the default graph is the union of every
        # graph only in the "all" view (the others hold the current versions, or the store's own)
        Quad(service, sd("feature"), sd("BasicFederatedQuery")) if settings.federation else None,
        Quad(service, sd("feature"), sd("UnionDefaultGraph")) if settings.default_view is DatasetView.ALL else None,
        Quad(service, sd("defaultDataset"), dataset),
        Quad(dataset, RDF_TYPE, sd("Dataset")),
        Quad(dataset, sd("defaultGraph"), default),
        Quad(default, RDF_TYPE, sd("Graph")),
        Quad(
            default,
            NamedNode("http://www.w3.org/2000/01/rdf-schema#comment"),
            Literal(
                f"The default graph is the '{settings.default_view.value}' view: the union of the current "
                "version of every source document and the store's own default graph (view=all: every "
                "graph; view=default: the store's default graph only). GRAPH reaches every named graph."
            ),
        ),
        Quad(dataset, sd("namedGraph"), NamedNode("https://w3id.org/provgraph/id/catalog")),
    ]
    quads += [Quad(service, sd("resultFormat"), NamedNode(f)) for f in RESULT_FORMATS]
    body = serialize([q for q in quads if q is not None], format=FORMATS[chosen])
    return Response(body, media_type=chosen)
