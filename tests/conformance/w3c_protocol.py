"""Reading and running the W3C manifests whose tests are HTTP exchanges: the SPARQL 1.1 Protocol
(``protocol/manifest.ttl``) and the Graph Store Protocol (``graph-store-protocol/``).

Each test is an ``ht:Connection`` with a list of ``ht:Request``s (method, absolute path, headers,
body) sent in order, each with an ``ht:resp`` giving ``mf:expectedStatus`` (an ``hts:`` code or
class) and, when present, ``mf:expectedBoolean``, ``mf:expectedFormat``, ``mf:expectedLocation``
(a template variable for later requests), expected headers and an expected RDF body. Requests
go over a plain ``http.client`` connection so that paths reach the server byte for byte as the
manifest writes them (the percent-encoding tests depend on it).
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pyoxigraph as ox

from helpers import ROOT

SUITE = ROOT / "tests" / "w3c-rdf-tests"
SPARQL11 = SUITE / "sparql" / "sparql11"
PROTOCOL_MANIFEST = SPARQL11 / "protocol" / "manifest.ttl"
GSP_MANIFESTS = (
    SPARQL11 / "graph-store-protocol" / "manifest-direct.ttl",
    SPARQL11 / "graph-store-protocol" / "manifest-indirect.ttl",
)

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
HT = "http://www.w3.org/2011/http#"
HTS = "http://www.w3.org/2011/http-statusCodes#"
CNT = "http://www.w3.org/2011/content#"
UT = "http://www.w3.org/2009/sparql/tests/test-update#"
TEST_TYPES = (MF + "ProtocolTest", MF + "GraphStoreProtocolTest")

#: hts: codes the manifests use; hts:StatusCodeNxx classes are read from their name.
STATUS_CODES = {"OK": 200, "Created": 201, "NoContent": 204, "NotFound": 404}

Term = ox.NamedNode | ox.BlankNode | ox.Literal


@dataclass(frozen=True)
class Expected:
    statuses: tuple[str, ...]  # hts: local names
    boolean: bool | None = None
    format: str | None = None  # "boolean", "tabular" or "RDF"
    location: str | None = None  # template variable the Location header fills
    headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None

    def accepts(self, status: int) -> bool:
        return any(_status_matches(name, status) for name in self.statuses)


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # as in the manifest: /sparql/... or /gsp...
    headers: tuple[tuple[str, str], ...]
    body: str | None
    encoding: str
    expected: Expected

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


@dataclass(frozen=True)
class ProtocolTest:
    iri: str
    name: str
    requests: tuple[Request, ...]
    graph_data: tuple[tuple[Path, str], ...]  # file, name of the graph to load it into
    requires: tuple[str, ...]
    listed: bool  # named in the manifest's mf:entries (some tests are defined but not listed)


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def _status_matches(name: str, status: int) -> bool:
    if name.startswith("StatusCode") and name.endswith("xx"):
        return status // 100 == int(name[len("StatusCode")])
    if name not in STATUS_CODES:
        raise KeyError(f"hts:{name} is not a status this runner knows; add it to STATUS_CODES")
    return STATUS_CODES[name] == status


class _Graph:
    """A manifest as subject -> predicate -> objects, with Turtle collections read as lists."""

    def __init__(self, path: Path) -> None:
        self.index: dict[Term, dict[str, list[Term]]] = {}
        for quad in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE, base_iri=path.as_uri()):
            subject = quad.subject
            assert isinstance(subject, ox.NamedNode | ox.BlankNode)
            self.index.setdefault(subject, {}).setdefault(quad.predicate.value, []).append(quad.object)  # type: ignore[arg-type]

    def objects(self, subject: Term, predicate: str) -> list[Term]:
        return self.index.get(subject, {}).get(predicate, [])

    def one(self, subject: Term, predicate: str) -> Term | None:
        found = self.objects(subject, predicate)
        assert len(found) <= 1, f"{subject} has {len(found)} values of {predicate}"
        return found[0] if found else None

    def value(self, subject: Term, predicate: str) -> str | None:
        term = self.one(subject, predicate)
        return None if term is None else term.value

    def items(self, head: Term | None) -> list[Term]:
        out = []
        while head is not None and head != ox.NamedNode(RDF + "nil"):
            first = self.one(head, RDF + "first")
            assert first is not None, f"{head} is not a list node"
            out.append(first)
            head = self.one(head, RDF + "rest")
        return out

    def subjects_of_type(self, types: tuple[str, ...]) -> list[Term]:
        return [s for s, props in self.index.items() if any(t.value in types for t in props.get(RDF + "type", []))]


def read_manifest(path: Path) -> list[ProtocolTest]:
    """Every test of the manifest: those in mf:entries in order, then any defined but unlisted."""
    graph = _Graph(path)
    manifest = ox.NamedNode(path.as_uri())
    listed = graph.items(graph.one(manifest, MF + "entries"))
    unlisted = sorted((t for t in graph.subjects_of_type(TEST_TYPES) if t not in listed), key=lambda t: t.value)
    return [_test(graph, node, node in listed) for node in [*listed, *unlisted]]


def _test(graph: _Graph, node: Term, listed: bool) -> ProtocolTest:
    action = graph.one(node, MF + "action")
    assert action is not None, f"{node} has no mf:action"
    data = []
    for item in graph.objects(node, UT + "graphData"):
        file, label = graph.value(item, UT + "graph"), graph.value(item, RDFS + "label")
        assert file is not None and label is not None
        data.append((Path(unquote(urlsplit(file).path)), label))
    return ProtocolTest(
        iri=node.value,
        name=graph.value(node, MF + "name") or node.value,
        requests=tuple(_request(graph, r) for r in graph.items(graph.one(action, HT + "requests"))),
        graph_data=tuple(data),
        requires=tuple(sorted(t.value for t in graph.objects(node, MF + "requires"))),
        listed=listed,
    )


def _headers(graph: _Graph, node: Term) -> tuple[tuple[str, str], ...]:
    out = []
    for header in graph.items(graph.one(node, HT + "headers")):
        name, value = graph.value(header, HT + "fieldName"), graph.value(header, HT + "fieldValue")
        assert name is not None and value is not None
        out.append((name, value))
    return tuple(out)


def _request(graph: _Graph, node: Term) -> Request:
    body = graph.one(node, HT + "body")
    resp = graph.one(node, HT + "resp")
    assert resp is not None, f"request {node} has no ht:resp"
    expected_body = graph.one(resp, HT + "body")
    boolean = graph.one(resp, MF + "expectedBoolean")
    method, path = graph.value(node, HT + "methodName"), graph.value(node, HT + "absolutePath")
    assert method is not None and path is not None
    return Request(
        method=method,
        path=path,
        headers=_headers(graph, node),
        body=None if body is None else graph.value(body, CNT + "chars"),
        encoding=(body is not None and graph.value(body, CNT + "characterEncoding")) or "UTF-8",
        expected=Expected(
            statuses=tuple(sorted(s.value.removeprefix(HTS) for s in graph.objects(resp, MF + "expectedStatus"))),
            boolean=None if boolean is None else boolean.value == "true",
            format=graph.value(resp, MF + "expectedFormat"),
            location=graph.value(resp, MF + "expectedLocation"),
            headers=_headers(graph, resp),
            body=None if expected_body is None else graph.value(expected_body, CNT + "chars"),
        ),
    )


# ---------------------------------------------------------------------------------- running


def endpoint_path(path: str) -> str:
    """The manifests' /sparql/ and /gsp paths on provgraph's /sparql and /store."""
    if path.startswith("/sparql/"):
        return "/sparql" + path[len("/sparql/") :]
    if path == "/gsp" or path.startswith(("/gsp/", "/gsp?")):
        return "/store" + path[len("/gsp") :]
    raise ValueError(f"a manifest path this runner does not map: {path}")


def is_write(request: Request) -> bool:
    """Whether the request asks to change the store (and so carries the write token)."""
    if request.method in ("GET", "HEAD"):
        return False
    if not request.path.startswith("/sparql/"):
        return True
    media = (request.header("content-type") or "").split(";")[0].strip().lower()
    if media == "application/sparql-query":
        return False
    return not (request.body or "").startswith("query=")


def send(base_url: str, request: Request, *, token: str, variables: dict[str, str]) -> Response:
    def fill(text: str) -> str:
        for name, value in variables.items():
            text = text.replace(name, value)
        return text

    url = urlsplit(base_url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=60)
    headers = {name: fill(value) for name, value in request.headers}
    if is_write(request):
        headers["Authorization"] = f"Bearer {token}"
    body = None if request.body is None else fill(request.body).encode(request.encoding)
    try:
        connection.request(request.method, fill(endpoint_path(request.path)), body=body, headers=headers)
        answer = connection.getresponse()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


def run(test: ProtocolTest, base_url: str, *, token: str) -> None:
    """Send the test's requests in order, checking each response as the manifest says."""
    variables: dict[str, str] = {}
    for number, request in enumerate(test.requests, 1):
        response = send(base_url, request, token=token, variables=variables)
        where = f"request {number} ({request.method} {request.path})"
        check(request, response, where)
        if request.expected.location:
            variables[request.expected.location] = response.headers["location"]


def check(request: Request, response: Response, where: str) -> None:
    expected = request.expected
    text = response.body.decode("utf-8", "replace")
    assert expected.accepts(response.status), (
        f"{where}: status {response.status}, expected {', '.join(expected.statuses)}: {text}"
    )
    if response.status in (401, 403):
        raise AssertionError(f"{where}: refused by the token check ({response.status}), not by the protocol: {text}")
    for name, value in expected.headers:
        got = response.headers.get(name.lower())
        assert got is not None, f"{where}: no {name} header"
        if name.lower() == "content-type":
            assert _media(got) == _media(value), f"{where}: Content-Type {got}, expected {value}"
        else:
            assert got == value, f"{where}: {name} {got}, expected {value}"
    if expected.location:
        assert response.headers.get("location"), f"{where}: no Location header"
    if expected.format is not None:
        _check_format(expected, response, where)
    elif expected.boolean is not None:
        assert _results(response, where) == expected.boolean, f"{where}: expected {expected.boolean}"
    if expected.body is not None:
        _check_graph(expected, response, where)


def _media(content_type: str) -> tuple[str, frozenset[tuple[str, str]]]:
    media, *params = content_type.split(";")
    pairs = (p.split("=", 1) for p in params if "=" in p)
    return media.strip().lower(), frozenset((k.strip().lower(), v.strip().strip('"').lower()) for k, v in pairs)


def _results(response: Response, where: str) -> bool | list[ox.QuerySolution]:
    content_type = response.headers.get("content-type", "")
    fmt = ox.QueryResultsFormat.from_media_type(content_type)
    assert fmt is not None, f"{where}: {content_type!r} is not a SPARQL results format"
    parsed = ox.parse_query_results(response.body, format=fmt)
    if isinstance(parsed, ox.QueryBoolean):
        return bool(parsed)
    return list(parsed)


def _check_format(expected: Expected, response: Response, where: str) -> None:
    content_type = response.headers.get("content-type", "")
    if expected.format == "RDF":
        fmt = ox.RdfFormat.from_media_type(content_type)
        assert fmt is not None, f"{where}: {content_type!r} is not an RDF format"
        list(ox.parse(response.body, format=fmt))
        return
    result = _results(response, where)
    if expected.format == "boolean":
        assert isinstance(result, bool), f"{where}: expected a boolean result, got {result!r}"
        media = _media(content_type)[0]
        assert media in ("application/sparql-results+json", "application/sparql-results+xml"), (
            f"{where}: a boolean result in {media}"
        )
        if expected.boolean is not None:
            assert result is expected.boolean, f"{where}: {result}, expected {expected.boolean}"
    elif expected.format == "tabular":
        assert isinstance(result, list), f"{where}: expected a table of results, got {result!r}"
        if content_type.startswith("application/sparql-results+json"):
            assert "results" in json.loads(response.body), f"{where}: no results member"
    else:
        raise AssertionError(f"{where}: unknown mf:expectedFormat {expected.format!r}")


def _check_graph(expected: Expected, response: Response, where: str) -> None:
    declared = next((v for k, v in expected.headers if k.lower() == "content-type"), None)
    expected_format = ox.RdfFormat.from_media_type(declared or "text/turtle")
    got_format = ox.RdfFormat.from_media_type(response.headers.get("content-type", ""))
    assert expected_format is not None and got_format is not None, f"{where}: not an RDF media type"
    assert expected.body is not None
    want = ox.Dataset(ox.parse(expected.body.encode("utf-8"), format=expected_format))
    got = ox.Dataset(ox.parse(response.body, format=got_format))
    want.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    got.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)
    assert got == want, (
        f"{where}: the graph is not the expected one.\nGot:\n{response.body.decode()}\nExpected:\n{expected.body}"
    )
