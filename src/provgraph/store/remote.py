"""A store on a SPARQL 1.1 server: the :class:`~provgraph.store.base.Backend` protocol spoken over
SPARQL 1.1 Query, Update and the Graph Store Protocol only, so that the same ProvGraph runs on
an engine its users already operate.

``sparql+http://host:port`` (or ``sparql+https://``) names the server. Its endpoint paths are
those of an Oxigraph server (``/query``, ``/update``, ``/store``) unless URL parameters say
otherwise: ``sparql+http://host:8890?query=/sparql&update=/sparql&store=/sparql-graph-crud``.
Credentials come from the environment (``PROVGRAPH_STORE_USER`` and ``PROVGRAPH_STORE_PASSWORD``,
HTTP basic authentication), never from the URL or the command line.

What the embedded engine gives and a server cannot:

- *Substitutions* (variables bound before evaluation): the core's own queries bind them with a
  ``VALUES`` block put at the start of their ``WHERE`` group, each term written by
  :func:`~provgraph.store.terms.sparql_term`. Only the core's templates are rewritten so; a
  user's query goes to the server as written.
- *Generations*: what a server holds can change under any reader, so nothing read is cached
  (:attr:`generation` is None), and every write may follow another writer's (:meth:`begin_write`).
- *A directory*: the lexical index of answers is kept in memory and caught up from the catalog.

This is the first part of issue 19: an Oxigraph server, tested for real. Still to come: the
dialects of Virtuoso and others, concurrent writers from several machines, the figures, and
streaming of large loads and dumps (:meth:`SparqlBackend.load_quads` and
:meth:`SparqlBackend.dump` hold the whole body in memory; a blank node, which the protocol
cannot name across requests, is read back as a new one).
"""

from __future__ import annotations

import base64
import io
import os
import re
import urllib.parse
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pyoxigraph import QueryResultsFormat, Store, parse_query_results

from provgraph.errors import QueryError, QuerySyntaxError, ReadOnlyStoreError, StoreError
from provgraph.sparql_text import read
from provgraph.store.base import CoreQueries, QueryResults, Substitutions
from provgraph.store.terms import (
    BlankNode,
    DefaultGraph,
    GraphName,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    parse,
    serialize,
    sparql_term,
)
from provgraph.vocab import CURRENT_VIEW, PREFIXES

SCHEMES = ("sparql+http://", "sparql+https://")
#: Environment variables of the server's credentials (HTTP basic authentication).
USER_ENV, PASSWORD_ENV = "PROVGRAPH_STORE_USER", "PROVGRAPH_STORE_PASSWORD"
#: Seconds a request may take before the store gives up on the server.
TIMEOUT = 300.0
_JSON = "application/sparql-results+json"
_NQUADS = "application/n-quads"
_MEDIA = {
    RdfFormat.N_QUADS: _NQUADS,
    RdfFormat.TRIG: "application/trig",
    RdfFormat.N_TRIPLES: "application/n-triples",
    RdfFormat.TURTLE: "text/turtle",
    RdfFormat.RDF_XML: "application/rdf+xml",
    RdfFormat.JSON_LD: "application/ld+json",
}
#: Oxigraph's syntax errors: "error at 1:10: expected CONSTRUCT".
_POSITION = re.compile(r"error at (\d+):(\d+): (.*)", re.S)
_WHERE = re.compile(r"\bWHERE\s*\{", re.I)


def is_remote(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names a SPARQL server rather than a directory."""
    return str(location).startswith(SCHEMES)


@dataclass(frozen=True)
class Endpoint:
    """Where a server answers queries, updates and the Graph Store Protocol."""

    query: str
    update: str
    store: str

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """The endpoints of ``sparql+http://host:port[?query=PATH&update=PATH&store=PATH]``."""
        if not is_remote(url):
            raise StoreError(f"not a SPARQL server URL (sparql+http:// or sparql+https://): {url}")
        parts = urllib.parse.urlsplit(url.removeprefix("sparql+"))
        if parts.username or parts.password:
            raise StoreError(f"credentials go in {USER_ENV} and {PASSWORD_ENV}, not in the store URL")
        if not parts.hostname:
            raise StoreError(f"no host in the store URL {url}")
        params = dict(urllib.parse.parse_qsl(parts.query))
        unknown = set(params) - {"query", "update", "store"}
        if unknown:
            raise StoreError(f"unknown parameter(s) of the store URL: {', '.join(sorted(unknown))}")
        root = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
        return cls(
            query=root + params.get("query", "/query"),
            update=root + params.get("update", "/update"),
            store=root + params.get("store", "/store"),
        )


class SparqlBackend(CoreQueries):
    """:class:`~provgraph.store.base.Backend` over a SPARQL 1.1 server (see the module docstring)."""

    def __init__(self, endpoint: Endpoint, *, read_only: bool = False, timeout: float = TIMEOUT) -> None:
        self.endpoint = endpoint
        self._read_only = read_only
        self._timeout = timeout
        self._headers: dict[str, str] = {}
        user, password = os.environ.get(USER_ENV), os.environ.get(PASSWORD_ENV)
        if user is not None:
            token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
            self._headers["Authorization"] = f"Basic {token}"

    @classmethod
    def connect(cls, url: str, *, read_only: bool = False) -> SparqlBackend:
        """The store at ``url``, checked at once: an unreachable server, refused credentials or
        an endpoint that does not answer SPARQL are a :class:`StoreError` here, not halfway
        through an ingest."""
        backend = cls(Endpoint.parse(url), read_only=read_only)
        try:
            backend.ask("ASK { }")
        except QueryError as exc:
            raise StoreError(f"the SPARQL server at {url} does not answer queries: {exc}") from exc
        return backend

    # ------------------------------------------------------------------ the protocol's properties

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def generation(self) -> int | None:
        return None  # another client may write at any time: nothing read may be cached

    @property
    def location(self) -> Path | None:
        return None

    # ------------------------------------------------------------------ queries

    def query(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        union_default_graph: bool = False,
        named_graphs: Sequence[NamedNode | BlankNode] | None = None,
        substitutions: Substitutions | None = None,
        prefixes: dict[str, str] | None = None,
        base_iri: str | None = None,
    ) -> QueryResults:
        if union_default_graph:
            raise QueryError("a SPARQL server is not asked for the union of all graphs: name the graphs")
        sparql, dataset = _dataset(_bound(sparql, substitutions), default_graph, named_graphs, prefixes, base_iri)
        prologue = _prologue(prefixes, base_iri)
        form: list[tuple[str, str]] = [("query", prologue + sparql), *dataset]
        accept = f"{_JSON}, application/n-triples;q=0.9"
        try:
            body, media = self._request(self.endpoint.query, urllib.parse.urlencode(form).encode(), accept=accept)
        except QuerySyntaxError as exc:
            raise _shifted(exc, prologue) from exc.__cause__
        if media.startswith("application/n-triples"):
            return _as_triples(body)
        try:
            return parse_query_results(body, format=QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as exc:
            raise QueryError(f"the SPARQL server's results are not SPARQL JSON results: {exc}") from exc

    # ------------------------------------------------------------------ writes

    def begin_write(self) -> bool:
        self._check_writable()
        return True  # another client may have written since anything was read

    def update(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None) -> None:
        self._check_writable()
        prologue = _prologue(prefixes, base_iri)
        try:
            self._request(self.endpoint.update, (prologue + sparql).encode(), content_type="application/sparql-update")
        except QuerySyntaxError as exc:
            raise _shifted(exc, prologue) from exc.__cause__

    def load_quads(self, nquads: Path | Sequence[Path], *, bulk: bool) -> None:  # noqa: ARG002 - one request either way
        self._check_writable()
        files = [nquads] if isinstance(nquads, Path) else list(nquads)
        # one request: the server reads a blank node label as one node throughout, in one transaction
        data = b"".join(f.read_bytes() for f in files)
        self._request(self.endpoint.store, data, content_type=_NQUADS)

    def load_dataset(self, source: Path | IO[bytes], fmt: RdfFormat) -> None:
        self._check_writable()
        data = source.read_bytes() if isinstance(source, Path) else source.read()
        self._request(self.endpoint.store, data, content_type=_MEDIA[fmt])

    def remove_graph(self, graph: NamedNode) -> None:
        self.update(f"DROP SILENT GRAPH {sparql_term(graph)}")

    # ------------------------------------------------------------------ reading everything

    def quads(
        self,
        subject: NamedNode | BlankNode | None = None,
        predicate: NamedNode | None = None,
        obj: NamedNode | BlankNode | Literal | None = None,
        graph: GraphName | None = None,
    ) -> Iterator[Quad]:
        bound: Substitutions = {k: v for k, v in (("s", subject), ("p", predicate), ("o", obj)) if v is not None}
        if isinstance(graph, DefaultGraph):
            pattern = "{ ?s ?p ?o }"
        elif graph is not None:
            pattern = f"{{ GRAPH {sparql_term(graph)} {{ ?s ?p ?o }} }}"  # type: ignore[arg-type]
        else:
            pattern = "{ { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } }"
        for row in self.stream(f"SELECT ?s ?p ?o ?g WHERE {pattern}", substitutions=bound or None):
            s, p, o = bound.get("s") or row["s"], bound.get("p") or row["p"], bound.get("o") or row["o"]
            g = graph if graph is not None else row.get("g") or DefaultGraph()
            yield Quad(s, p, o, g)  # type: ignore[arg-type]

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]:
        for row in self.stream("SELECT DISTINCT ?g WHERE { GRAPH ?g { } }"):
            yield row["g"]  # type: ignore[misc]

    def dump(
        self, output: IO[bytes], fmt: RdfFormat, *, graph: GraphName | None = None, exclude: Sequence[NamedNode] = ()
    ) -> None:
        url = self.endpoint.store
        if isinstance(graph, DefaultGraph):
            url += "?default"
        elif graph is not None:
            url += "?" + urllib.parse.urlencode({"graph": graph.value})
        media = _MEDIA[RdfFormat.N_QUADS if graph is None else RdfFormat.N_TRIPLES]
        body, _ = self._request(url, None, accept=media)
        left_out = set(exclude)
        if graph is None:
            quads = (q for q in parse(body, format=RdfFormat.N_QUADS) if q.graph_name not in left_out)
            serialize(quads, output, fmt)
        else:
            serialize(parse(body, format=RdfFormat.N_TRIPLES), output, fmt)

    def optimize(self) -> None:
        """The server keeps its own storage."""

    def flush(self) -> None:
        """The server keeps its own storage."""

    def close(self) -> None:
        """Nothing is held between requests."""

    # ------------------------------------------------------------------ HTTP

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlyStoreError(f"the store at {self.endpoint.query} is open read-only")

    def _request(
        self, url: str, data: bytes | None, *, accept: str | None = None, content_type: str | None = None
    ) -> tuple[bytes, str]:
        import urllib.error  # with http.client and email: loaded when a server is used, not at start-up
        import urllib.request

        headers = dict(self._headers)
        if accept:
            headers["Accept"] = accept
        if data is not None:
            headers["Content-Type"] = content_type or "application/x-www-form-urlencoded"
        request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return response.read(), response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as exc:
            message = exc.read().decode("utf-8", "replace").strip()[:500]
            if exc.code in (401, 403):
                raise StoreError(
                    f"the SPARQL server refused the credentials (HTTP {exc.code}): set {USER_ENV} and {PASSWORD_ENV}"
                ) from exc
            if exc.code == 400:
                position = _POSITION.match(message)
                if position:
                    line, column, what = int(position[1]), int(position[2]), position[3]
                    raise QuerySyntaxError(what, line=line, column=column) from exc
                raise QueryError(message or f"HTTP {exc.code}") from exc
            raise StoreError(f"the SPARQL server at {url} answered HTTP {exc.code}: {message}") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise StoreError(f"cannot reach the SPARQL server at {url}: {reason}") from exc


def _prologue(prefixes: dict[str, str] | None, base_iri: str | None) -> str:
    """Declarations put before a query or update (its own come after, and win)."""
    lines = [f"BASE <{base_iri}>"] if base_iri else []
    lines += [f"PREFIX {name}: <{iri}>" for name, iri in (prefixes or {}).items()]
    return "\n".join(lines) + "\n" if lines else ""


def _shifted(exc: QuerySyntaxError, prologue: str) -> QuerySyntaxError:
    """The error with its line counted in the text as given, not after the prologue."""
    line = exc.line - prologue.count("\n") if exc.line is not None else None
    return QuerySyntaxError(exc.reason, line=line, column=exc.column)


def _bound(sparql: str, substitutions: Substitutions | None) -> str:
    """The core's query with its substituted variables bound by a ``VALUES`` block at the start
    of its ``WHERE`` group (of its first group for an ``ASK { }``)."""
    if not substitutions:
        return sparql
    names = " ".join(f"?{name}" for name in substitutions)
    terms = " ".join(sparql_term(term) for term in substitutions.values())
    block = f" VALUES ({names}) {{ ({terms}) }} "
    where = _WHERE.search(sparql)
    at = where.end() if where else sparql.find("{") + 1
    if at <= 0:
        raise QueryError(f"no group pattern to bind variables in: {sparql[:60]!r}")
    return sparql[:at] + block + sparql[at:]


def _dataset(
    sparql: str,
    default_graph: Sequence[GraphName] | None,
    named_graphs: Sequence[NamedNode | BlankNode] | None,
    prefixes: dict[str, str] | None,
    base_iri: str | None,
) -> tuple[str, list[tuple[str, str]]]:
    """The query and the protocol's dataset parameters that read what the embedded engine reads.

    The protocol's ``default-graph-uri`` without ``named-graph-uri`` leaves no named graph, where
    the embedded engine keeps them all. So a default graph given alone, to a query that reads
    named graphs too, is written into the text instead: the current view (the store's own default
    graph is empty on a server: nothing provgraph writes goes there) as ``GRAPH pgid:current``
    around the WHERE group (:meth:`~provgraph.sparql_text.SparqlText.within_graph`)."""
    named = [g for g in default_graph or () if isinstance(g, NamedNode)]
    params = [("default-graph-uri", g.value) for g in named]
    if named_graphs is not None:
        return sparql, params + [("named-graph-uri", g.value) for g in named_graphs if isinstance(g, NamedNode)]
    if default_graph is None or not named:
        return sparql, []  # the server's default graph, every named graph
    read_as = read(sparql, base_iri=base_iri, prefixes={**PREFIXES, **(prefixes or {})})
    if not read_as.uses_named_graphs():
        return sparql, params
    if [g.value for g in named] == [CURRENT_VIEW.value]:
        return read_as.within_graph(CURRENT_VIEW.value).text, []
    raise QueryError(
        "on a SPARQL server, a query reading named graphs needs its default graph to be the current view "
        "or named graphs given with it (named_graphs=)"
    )


def _as_triples(body: bytes) -> QueryResults:
    """A CONSTRUCT's triples as the engine's own result type (what serialisation takes)."""
    scratch = Store()
    scratch.load(io.BytesIO(body), format=RdfFormat.N_TRIPLES)
    return scratch.query("CONSTRUCT WHERE { ?s ?p ?o }")


__all__ = ["SCHEMES", "Endpoint", "SparqlBackend", "is_remote"]
