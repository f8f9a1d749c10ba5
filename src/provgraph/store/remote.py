"""A store on a SPARQL 1.1 server: the :class:`~provgraph.store.base.Backend` protocol spoken over
SPARQL 1.1 Query, Update and the Graph Store Protocol only, so that the same ProvGraph runs on
an engine its users already operate.

``sparql+http://host:port`` (or ``sparql+https://``) names the server; ``?dialect=NAME`` its
engine (:mod:`provgraph.store.dialects`: endpoint paths and quirks; ``oxigraph`` by default), and
``?query=PATH&update=PATH&store=PATH`` other endpoint paths. Credentials come from the
environment (``PROVGRAPH_STORE_USER`` and ``PROVGRAPH_STORE_PASSWORD``, HTTP basic
authentication), never from the URL or the command line.

What the embedded engine gives and a server cannot:

- *Substitutions* (variables bound before evaluation): the core's own queries bind them with a
  ``VALUES`` block put at the start of their ``WHERE`` group, each term written by
  :func:`~provgraph.store.terms.sparql_term`. Only the core's templates are rewritten so; a
  user's query goes to the server as written.
- *Generations*: what a server holds can change under any reader, so nothing read is cached
  (:attr:`generation` is None), and every write may follow another writer's: each update is
  checked against the store's write token (:func:`_guard`), and one that another write
  overtook raises :class:`~provgraph.errors.ConcurrentWriteError` having written nothing.
- *A directory*: the lexical index of answers is kept in memory and caught up from the catalog.
- *Blank nodes across requests*: the protocol cannot name one in a later request, so loads keep
  the quads with blank nodes in one request, and a blank node read back is a new one.

Loads and dumps go through the Graph Store Protocol, whole, where the engine takes a dataset
there (Oxigraph: the body is held in memory). Otherwise loads go there a graph a request where
the engine takes that (Virtuoso), else through INSERT DATA in chunks; dumps read a graph at a
time by CONSTRUCT.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import io
import itertools
import os
import random
import re
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from pyoxigraph import QueryResultsFormat, Store, parse_query_results

from provgraph.errors import (
    ConcurrentWriteError,
    NotFoundError,
    ProvGraphError,
    QueryError,
    QuerySyntaxError,
    ReadOnlyStoreError,
    StoreError,
)
from provgraph.sparql_text import read
from provgraph.store.base import CoreQueries, QueryResults, Substitutions
from provgraph.store.dialects import DIALECTS, Dialect, dialect
from provgraph.store.terms import (
    BlankNode,
    DefaultGraph,
    GraphName,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    Row,
    Term,
    Triple,
    parse,
    serialize,
    sparql_term,
)
from provgraph.vocab import CHANGES_GRAPH, ID_NS, PG, PREFIXES

if TYPE_CHECKING:  # loaded when a server is used (see SparqlBackend._answer), not at start-up
    import http.client

    from provgraph.store.connections import ConnectionPool

SCHEMES = ("sparql+http://", "sparql+https://")
#: Environment variables of the server's credentials (HTTP basic authentication).
USER_ENV, PASSWORD_ENV = "PROVGRAPH_STORE_USER", "PROVGRAPH_STORE_PASSWORD"
#: Bytes of N-Quads a load sends in one request (see SparqlBackend._post_chunks).
POST_BYTES = 32 << 20
#: Triples a load a graph a request holds before it sends them (see SparqlBackend._post_graphs).
GRAPH_LOAD_TRIPLES = 100_000
#: Seconds a request may take before the store gives up on the server.
TIMEOUT = 300.0
#: Times a request the engine rolled back in a deadlock is sent, with a growing random pause.
DEADLOCK_ATTEMPTS = 6
_JSON = "application/sparql-results+json"
_NQUADS = "application/n-quads"
_NTRIPLES = "application/n-triples"
#: A query's form (what to accept), read past IRIs and strings, which may hold any word.
_FORM = re.compile(r"^[^{]*\b(CONSTRUCT|DESCRIBE)\b", re.I)
_IRIS_AND_STRINGS = re.compile(r"<[^<>\s]*>|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|#[^\n]*")
_MEDIA = {
    RdfFormat.N_QUADS: _NQUADS,
    RdfFormat.TRIG: "application/trig",
    RdfFormat.N_TRIPLES: "application/n-triples",
    RdfFormat.TURTLE: "text/turtle",
    RdfFormat.RDF_XML: "application/rdf+xml",
    RdfFormat.JSON_LD: "application/ld+json",
}
_WHERE = re.compile(r"\bWHERE\s*\{", re.I)


def is_remote(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names a SPARQL server rather than a directory."""
    return str(location).startswith(SCHEMES)


class _DeadlockError(StoreError):
    """The engine rolled a request back in a deadlock: nothing of it holds, it may be sent again."""


@dataclass(frozen=True)
class Endpoint:
    """Where a server answers queries, updates and the Graph Store Protocol, and its dialect."""

    query: str
    update: str
    store: str
    dialect: Dialect = DIALECTS["oxigraph"]

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """The endpoints of ``sparql+http://host:port[/path][?dialect=NAME&query=PATH&update=PATH&store=PATH]``:
        the dialect's paths (:mod:`provgraph.store.dialects`) unless given one by one."""
        if not is_remote(url):
            raise StoreError(f"not a SPARQL server URL (sparql+http:// or sparql+https://): {url}")
        parts = urllib.parse.urlsplit(url.removeprefix("sparql+"))
        if parts.username or parts.password:
            raise StoreError(f"credentials go in {USER_ENV} and {PASSWORD_ENV}, not in the store URL")
        if not parts.hostname:
            raise StoreError(f"no host in the store URL {url}")
        params = dict(urllib.parse.parse_qsl(parts.query))
        unknown = set(params) - {"dialect", "query", "update", "store"}
        if unknown:
            raise StoreError(f"unknown parameter(s) of the store URL: {', '.join(sorted(unknown))}")
        try:
            engine = dialect(params.get("dialect", "oxigraph"))
        except KeyError as exc:
            raise StoreError(f"{exc.args[0]} (in the store URL)") from exc
        root = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
        return cls(
            query=root + params.get("query", engine.query),
            update=root + params.get("update", engine.update),
            store=root + params.get("store", engine.store),
            dialect=engine,
        )


class SparqlBackend(CoreQueries):
    """:class:`~provgraph.store.base.Backend` over a SPARQL 1.1 server (see the module docstring)."""

    def __init__(self, endpoint: Endpoint, *, read_only: bool = False, timeout: float = TIMEOUT) -> None:
        self.endpoint = endpoint
        self._read_only = read_only
        self._timeout = timeout
        self._headers: dict[str, str] = {}
        self._tokens: tuple[NamedNode, ...] | None = None  # not read yet
        self._id = uuid.uuid4().hex  # this client, among the writers of the store (see _writer)
        # per writer (a thread, see _writer): the token its record names; () none yet, None not
        # known (a request whose answer was lost); close() takes these records back
        self._made: dict[NamedNode, tuple[NamedNode, ...] | None] = {}
        self._pool: ConnectionPool | None = None  # made at the first request
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
        endpoint = backend.endpoint
        try:
            backend.ask("ASK { }")
        except QueryError as exc:
            raise StoreError(f"the SPARQL server at {url} does not answer queries: {exc}") from exc
        if read_only:
            return backend
        try:  # an empty update: whether this client may write, without writing
            backend._post_update("INSERT DATA { }")
        except ProvGraphError as exc:
            raise StoreError(f"the SPARQL server does not take updates at {endpoint.update}: {exc}") from exc
        if endpoint.dialect.dataset_store or endpoint.dialect.graph_loads:  # loads go through its Graph Store Protocol
            try:
                if endpoint.dialect.dataset_store:
                    backend._request(endpoint.store + "?default", None, accept=_MEDIA[RdfFormat.N_TRIPLES])
                else:  # an empty load into a graph: whether this client may load, without writing
                    probe = urllib.parse.quote(ID_NS + "probe", safe="")
                    backend._request(f"{endpoint.store}?graph={probe}", b"", content_type=_NTRIPLES)
            except ProvGraphError as exc:
                raise StoreError(
                    f"the SPARQL server does not answer the Graph Store Protocol at {endpoint.store} ({exc}): "
                    "give its path with ?store=, or its dialect with ?dialect="
                ) from exc
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
            if not self.endpoint.dialect.union_by_default or default_graph or named_graphs is not None:
                raise QueryError("this SPARQL server is not asked for the union of all graphs: name the graphs")
            default_graph = named_graphs = None  # the engine's own default graph is that union
        dataset: list[tuple[str, str]] = []
        if not union_default_graph:
            # on the text as the caller wrote it, before its variables are bound: a core query's
            # template is read once (see _read_within), not once per call
            sparql, dataset = _dataset(sparql, default_graph, named_graphs, prefixes, base_iri, self.endpoint.dialect)
        sparql = _bound(sparql, substitutions)
        prologue = _prologue(prefixes, base_iri)
        form: list[tuple[str, str]] = [("query", prologue + sparql), *dataset]
        # the form decides what to accept: asked for "JSON or N-Triples", Virtuoso answers a
        # CONSTRUCT in its own JSON
        accept = _NTRIPLES if _FORM.search(_IRIS_AND_STRINGS.sub(" ", sparql)) else _JSON
        try:
            body, media = self._request(self.endpoint.query, urllib.parse.urlencode(form).encode(), accept=accept)
        except QuerySyntaxError as exc:
            raise _shifted(exc, prologue) from exc.__cause__
        if media.startswith(_NTRIPLES):
            return _as_triples(self._read_back(body))
        for pattern, replacement in self.endpoint.dialect.json_fixes:
            body = pattern.sub(replacement, body)
        if self.endpoint.dialect.skolemizes:
            body = _SKOLEM_JSON.sub(rb'"type": "bnode", "value": "\1_', body)
        try:
            return parse_query_results(body, format=QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as exc:
            raise QueryError(f"the SPARQL server's results are not SPARQL JSON results: {exc}") from exc

    # ------------------------------------------------------------------ writes

    def begin_write(self) -> bool:
        """Note the store's write token: the next :meth:`update` commits only if no other writer
        committed in between (see :func:`_guard`). True: anything read before may be stale."""
        self._check_writable()
        self._tokens = self._read_tokens()
        return True

    def update(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None) -> None:
        self._check_writable()
        engine = self.endpoint.dialect
        skolems = engine.skolemizes and "_:" in sparql
        split = engine.max_block_triples is not None and sparql.count(".") > engine.max_block_triples
        large = engine.max_update_bytes is not None and len(sparql) > engine.max_update_bytes
        requests = [sparql]
        if skolems or split or large:
            declared = {**PREFIXES, **(prefixes or {})}
            salt = uuid.uuid4().hex
            block = engine.max_block_triples
            if large and block is None and engine.max_update_bytes is not None:
                # no limit of its own on a block (oxigraph serve): blocks of about half a request,
                # else one data block longer than a request goes whole (285 MB to a 128 MiB limit)
                block = max(1, engine.max_update_bytes * max(1, sparql.count(".")) // (2 * len(sparql)))
            own, operations = read(sparql, base_iri=base_iri, prefixes=declared).rewrite_data_blocks(
                skolem=(lambda label: _skolem(label, salt)) if skolems else None,
                max_block_triples=block if split or large else None,
            )
            requests = [own + ops for ops in _packed(operations, engine.max_update_bytes)]
        for request in requests:
            self._update(request, _prologue(prefixes, base_iri))

    def _update(self, sparql: str, prologue: str) -> None:
        """One update request, its first operations the check of the write token (:func:`_guard`)."""
        tokens = self._tokens if self._tokens is not None else self._read_tokens()
        if not tokens:
            self._post_update(f"CREATE SILENT GRAPH {_SEED}")
        following = NamedNode(f"{_TOKEN_NS}{uuid.uuid4().hex}")
        writer = self._writer()
        made = self._made.get(writer, ())
        self._made[writer] = None  # until the answer says
        guard = _guard(tokens, following, writer, made=made)
        self._tokens = None  # read again after a failure, whoever won
        # the guard's operations go after the update's own declarations: Oxigraph takes none
        # after a ";" (the grammar allows them)
        own = _OWN_PROLOGUE.match(sparql)
        declared = own.group(0) if own else ""
        text = prologue + declared + guard + sparql[len(declared) :]
        try:
            with self._serialised():
                self._post_update(text)
        except QuerySyntaxError as exc:
            self._made[writer] = made
            raise _shifted(exc, prologue, declared, guard) from exc.__cause__
        except StoreError as exc:
            # the engine's own words name the token it could not drop (or create), not only the
            # text of the update it quotes after them
            said = str(exc).split("\n", 1)[0]
            if any(token.value in said for token in tokens or (_SEED, _FIRST)):
                # this request, sent again, may have found its own write: a first sending the
                # engine reported as failed after it committed (Virtuoso answered "Transaction
                # deadlocked" to one in about 60 runs of four racing writers on a loaded machine)
                if self.ask(f"ASK {{ GRAPH {CHANGES_GRAPH} {{ {writer} {PG.madeToken} {following} }} }}"):
                    self._tokens = self._made[writer] = (following,)
                    return
                self._made[writer] = made
                raise ConcurrentWriteError(
                    "another writer changed the store since this write read it; nothing was written: run it again"
                ) from exc
            raise
        self._tokens = self._made[writer] = (following,)

    def _writer(self) -> NamedNode:
        """This client's calling thread as a writer of the store, under which each of its updates
        records the write token it made (:func:`_guard`). A thread's updates follow one another,
        so its record names its last write; another writer's update never touches it."""
        return NamedNode(f"{_TOKEN_NS}writer/{self._id}/{threading.get_ident()}")

    @contextlib.contextmanager
    def _serialised(self) -> Iterator[None]:
        """On an engine that does not serialise updates (``oxigraph serve`` evaluates two at once
        on snapshots and keeps both, so both may drop the same write token), one writer's update
        at a time, by a lock made of two requests: a writer adds its claim, then reads the live
        claims, and goes on only if its own is the only one; else it takes its claim back and
        tries again. Two writers cannot both go on: each reads after its own claim is written, so
        the later of the two claims is seen by both readings. A claim lapses after
        :data:`LOCK_LEASE` seconds of the server's clock (a writer that stopped holding one);
        waiting ends after :data:`LOCK_WAIT` seconds with a :class:`ConcurrentWriteError`."""
        if self.endpoint.dialect.serialises_updates:
            yield
            return
        claim = NamedNode(f"{_LOCK_NS}{uuid.uuid4().hex}")
        deadline = time.monotonic() + LOCK_WAIT
        delay = 0.01
        while True:
            self._post_update(_claim(claim))
            rows = self.select(_live_claims())
            others = [row["c"] for row in rows if row["c"] != claim]
            if not others:
                break
            self._post_update(_release(claim))
            if time.monotonic() > deadline:
                raise ConcurrentWriteError(
                    f"another writer has held the store's write lock for more than {LOCK_WAIT:g} s "
                    f"({others[0]}); nothing was written: run it again (a claim lapses after {LOCK_LEASE} s)"
                )
            time.sleep(random.uniform(delay / 2, delay))  # apart, so that two claimants do not meet again
            delay = min(2 * delay, 1.0)
        try:
            yield
        finally:
            self._post_update(_release(claim))

    def _post_update(self, text: str) -> None:
        """One update request as written: no write token, no cutting (see :meth:`_update`)."""
        self._request(self.endpoint.update, text.encode(), content_type="application/sparql-update")

    def _read_back(self, ntriples: bytes) -> bytes:
        """N-Triples from the engine with its Skolem IRIs read back as the blank nodes written."""
        return _SKOLEM_NTRIPLES.sub(rb"_:\1_\2", ntriples) if self.endpoint.dialect.skolemizes else ntriples

    def _read_tokens(self) -> tuple[NamedNode, ...]:
        """The store's write token; none before its first write; several after writers raced on an
        engine that does not serialise updates (the next write replaces them all)."""
        return tuple(cast(NamedNode, row["t"]) for row in self.select(_TOKEN))

    def load_quads(self, nquads: Path | Sequence[Path], *, bulk: bool) -> None:  # noqa: ARG002 - one request either way
        self._check_writable()
        files = [nquads] if isinstance(nquads, Path) else list(nquads)
        if self.endpoint.dialect.dataset_store:
            self._post_chunks(files)
            return
        with contextlib.ExitStack() as stack:
            streams = (parse(stack.enter_context(f.open("rb")), format=RdfFormat.N_QUADS) for f in files)
            self._load(itertools.chain.from_iterable(streams))

    def load_dataset(self, source: Path | IO[bytes], fmt: RdfFormat) -> None:
        self._check_writable()
        if self.endpoint.dialect.dataset_store and isinstance(source, Path) and fmt is RdfFormat.N_QUADS:
            self._post_chunks([source])
            return
        if self.endpoint.dialect.dataset_store:  # one request, the file read as it is sent
            if isinstance(source, Path):
                media = _MEDIA[fmt]
                self._request(self.endpoint.store, _blocks([source]), content_type=media, length=source.stat().st_size)
            else:
                self._request(self.endpoint.store, source.read(), content_type=_MEDIA[fmt])
            return
        with source.open("rb") if isinstance(source, Path) else contextlib.nullcontext(source) as stream:
            self._load(parse(stream, format=fmt))

    def _post_chunks(self, files: Sequence[Path]) -> None:
        """N-Quads lines to the Graph Store Protocol, :data:`POST_BYTES` a request: Oxigraph holds
        a request's quads in memory until it commits them (4.1 GB for the 2.6 million quads of
        100,000 facts in one request). The server names a blank node anew in each request, so the
        lines with blank nodes all go in the last one: a label names one node across the files."""
        batch: list[bytes] = []
        blank: list[bytes] = []
        size = 0
        for file in files:
            with file.open("rb") as lines:
                for line in lines:
                    if b"_:" in line:  # a literal holding "_:" only goes along with them
                        blank.append(line)
                        continue
                    batch.append(line)
                    size += len(line)
                    if size >= POST_BYTES:
                        self._request(self.endpoint.store, b"".join(batch), content_type=_NQUADS)
                        batch, size = [], 0
        for rest in (batch, blank):
            if rest:
                self._request(self.endpoint.store, b"".join(rest), content_type=_NQUADS)

    def _load(self, quads: Iterable[Quad]) -> None:
        """Quads into an engine whose Graph Store Protocol takes no dataset: a graph a request
        where it takes graphs (:attr:`~provgraph.store.dialects.Dialect.graph_loads`), else by
        INSERT DATA. Neither is a transaction, nor need be: the bulk path's commit is the
        catalog's. A blank node is one node within one request only (the protocol cannot name it
        in another): an engine that skolemizes gets one Skolem IRI per label of the load;
        otherwise the quads with blank nodes all go in one last INSERT DATA request. Either way a
        label names one node across the files, as the embedded bulk loader reads them."""
        held: list[Quad] = []
        quads = self._requestable(quads, held)
        if self.endpoint.dialect.graph_loads:
            self._post_graphs(quads, held)
        else:
            self._insert_chunks(quads)
        if held:
            self._write_data(held)

    def _requestable(self, quads: Iterable[Quad], held: list[Quad]) -> Iterator[Quad]:
        """``quads`` as a request may carry them: blank nodes as Skolem IRIs on an engine that
        skolemizes; on another, the quads with blank nodes are put in ``held`` instead."""
        salt = uuid.uuid4().hex
        for quad in quads:
            if isinstance(quad.subject, BlankNode) or isinstance(quad.object, BlankNode):
                if not self.endpoint.dialect.skolemizes:
                    held.append(quad)
                    continue
                subject, obj = _skolem_term(quad.subject, salt), _skolem_term(quad.object, salt)
                quad = Quad(subject, quad.predicate, obj, quad.graph_name)  # type: ignore[arg-type]
            yield quad

    def _insert_chunks(self, quads: Iterable[Quad]) -> None:
        """Quads as INSERT DATA requests of the dialect's size, each its own transaction."""
        batch: list[Quad] = []
        for quad in quads:
            batch.append(quad)
            if len(batch) >= self.endpoint.dialect.insert_chunk:
                self._write_data(batch)
                batch = []
        if batch:
            self._write_data(batch)

    def _post_graphs(self, quads: Iterable[Quad], held: list[Quad]) -> None:
        """Quads to the Graph Store Protocol a graph a request (``POST ?graph=``), each request
        N-Triples of at most the dialect's update size, held until :data:`GRAPH_LOAD_TRIPLES`
        triples wait (a load's quads come graph by graph, so few graphs wait at once). The
        default graph's quads, which the protocol takes without ``?graph=`` and Virtuoso's
        refuses so, go to ``held`` for INSERT DATA."""
        waiting: dict[str, list[Triple]] = {}
        count = 0
        for quad in quads:
            if isinstance(quad.graph_name, DefaultGraph):
                held.append(quad)
                continue
            waiting.setdefault(quad.graph_name.value, []).append(quad.triple)
            count += 1
            if count >= GRAPH_LOAD_TRIPLES:
                self._post_waiting(waiting)
                count = 0
        self._post_waiting(waiting)

    def _post_waiting(self, waiting: dict[str, list[Triple]]) -> None:
        most = self.endpoint.dialect.max_update_bytes or POST_BYTES
        for graph, triples in waiting.items():
            url = f"{self.endpoint.store}?graph={urllib.parse.quote(graph, safe='')}"
            text = serialize(triples, format=RdfFormat.N_TRIPLES)
            while text:
                cut = len(text) if len(text) <= most else text.rfind(b"\n", 0, most) + 1
                if cut <= 0:  # one triple longer than a request: sent alone, for the engine to judge
                    cut = text.index(b"\n") + 1
                self._request(url, text[:cut], content_type=_NTRIPLES)
                text = text[cut:]
        waiting.clear()

    def _write_data(self, quads: Sequence[Quad]) -> None:
        """``quads`` as INSERT DATA operations of at most the dialect's block of triples, in
        requests of at most its update size: written as the engine takes them, where
        :meth:`update` reads a caller's text to cut it (that reading took 63 of the 86 s a
        10k-fact ingest into Virtuoso spent in the client, profiled, against 15 s in requests)."""
        block = self.endpoint.dialect.max_block_triples or len(quads)
        operations = [_insert_data(quads[i : i + block]) + " ;\n" for i in range(0, len(quads), block)]
        for request in _packed(operations, self.endpoint.dialect.max_update_bytes):
            self._update(request, "")

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
        if not bound and self.endpoint.dialect.dataset_store:
            # everything, or a graph: the Graph Store Protocol's N-Quads, parsed as they arrive (a
            # SELECT's results are read whole: 6.5 GB of JSON for 26M quads)
            yield from self._stored(graph)
            return
        page = self.endpoint.dialect.max_rows
        # the named graphs and the default graph one query each: a UNION of both, read in an
        # empty default graph on Virtuoso, lost rows there
        if graph is None and page is not None:  # graph by graph, each in parts (below)
            for name in list(self.named_graphs()):
                yield from self.quads(subject, predicate, obj, name)
        elif not bound and graph is not None and not isinstance(graph, DefaultGraph):
            yield from self._constructed(graph, page)
        elif graph is None or not isinstance(graph, DefaultGraph):
            where = f"GRAPH {sparql_term(graph)}" if graph is not None else "GRAPH ?g"  # type: ignore[arg-type]
            for row in self._parts(f"{where} {{ ?s ?p ?o }}", bound, page):
                yield self._quad(bound, row, graph if graph is not None else row["g"])  # type: ignore[arg-type]
        if graph is None or isinstance(graph, DefaultGraph):
            for row in self._parts("?s ?p ?o", bound, page):
                yield self._quad(bound, row, DefaultGraph())

    def _parts(self, pattern: str, bound: Substitutions, page: int | None, part: str = "") -> Iterator[Row]:
        """The rows of ``SELECT * WHERE { pattern }``. On an engine that cuts results at some
        number of rows whatever it is told (Virtuoso: 1,048,576, with no sign of the cut; and it
        sorts no more than 10,000 rows for LIMIT and OFFSET), a result of ``page`` rows or more
        is read again in sixteen parts, by the first hex digit of a hash of its subject and
        predicate (a part as large is split again)."""
        if page is None:
            yield from self.stream(f"SELECT * WHERE {{ {pattern} }}", substitutions=bound or None)
            return
        rows = self.select(f"SELECT * WHERE {{ {pattern} {_in_part(part)} }}", substitutions=bound or None)
        if len(rows) < page:
            yield from rows
            return
        for digit in "0123456789abcdef":
            yield from self._parts(pattern, bound, page, part + digit)

    def _constructed(
        self,
        graph: NamedNode | BlankNode,
        page: int | None,
        part: str = "",
        share: int | None = None,
        predicate: NamedNode | None = None,
        digits: str = "",
    ) -> Iterator[Quad]:
        """The triples of ``graph`` by CONSTRUCT, as N-Triples: on Virtuoso 7x faster than
        SELECT's JSON rows (284,710 quads of 103 graphs in 7.8 s against 60 s), and it writes
        booleans there as ``true``, not ``1``. Counted first: Virtuoso refuses a CONSTRUCT past a
        million triples ("max vector length"), where a SELECT is cut without a sign. A graph of
        ``page`` triples or more is read a predicate at a time (the engine reads one from its
        index), and a predicate of as many in parts, as :meth:`_parts` reads rows (a part by a
        hash is a scan: at 1M facts, the 14M-triple current view in 256 parts of the whole graph
        read 300,000 triples in 7 minutes). A predicate's share is its count. Each part is a scan
        of the predicate: a predicate of a few pages is read in as many parts as give half a page
        each (``digits``: the first digits of the hash a part holds; 3 scans, not 16, for a
        predicate of a million triples), a larger one in sixteen by the first digit, a part
        counted again (a scan) when its share of the whole (the hash spreads triples evenly) may
        come near ``page``."""
        shown = "?p" if predicate is None else sparql_term(predicate)
        where = f"GRAPH {sparql_term(graph)} {{ ?s {shown} ?o {_in_part(part, predicate is None, digits)} }}"
        if page is not None:
            if share is None or (part and share >= page // 2):  # a part's share is estimated
                counted = self.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}")
                share = counted[0].integer("n") if counted else 0
            if share >= page and predicate is None:
                by = f"SELECT ?p (COUNT(*) AS ?n) WHERE {{ GRAPH {sparql_term(graph)} {{ ?s ?p ?o }} }} GROUP BY ?p"
                for row in self.select(by):
                    yield from self._constructed(graph, page, "", row.integer("n"), row["p"])  # type: ignore[arg-type]
                return
            if share >= page:
                parts = -(-2 * share // page)
                if parts < 16 and not digits:
                    for i in range(parts):
                        held = _HEX[i::parts]
                        yield from self._constructed(graph, page, part, share * len(held) // 16, predicate, held)
                    return
                for digit in digits or _HEX:
                    yield from self._constructed(graph, page, part + digit, share // 16, predicate)
                return
        query = f"CONSTRUCT {{ ?s {shown} ?o }} WHERE {{ {where} }}"
        body, _ = self._request(
            self.endpoint.query, urllib.parse.urlencode({"query": query}).encode(), accept=_NTRIPLES
        )
        body = self._read_back(body)
        # parsed, not loaded in a store (as a user's CONSTRUCT is): a blank node keeps its label,
        # the one it has in every graph
        for triple in parse(body, format=RdfFormat.N_TRIPLES):
            yield Quad(triple.subject, triple.predicate, triple.object, graph)  # type: ignore[union-attr]

    @staticmethod
    def _quad(bound: Substitutions, row: Row, graph: GraphName) -> Quad:
        s, p, o = bound.get("s") or row["s"], bound.get("p") or row["p"], bound.get("o") or row["o"]
        return Quad(s, p, o, graph)  # type: ignore[arg-type]

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]:
        for row in self.stream(self.endpoint.dialect.graphs_query):
            yield row["g"]  # type: ignore[misc]

    def dump(
        self,
        output: IO[bytes],
        fmt: RdfFormat,
        *,
        graph: GraphName | None = None,
        exclude: Sequence[NamedNode] = (),
        prefixes: Mapping[str, str] | None = None,
    ) -> None:
        left_out = set(exclude)
        named = dict(prefixes) if prefixes else None
        if not self.endpoint.dialect.dataset_store:
            quads = (q for q in self.quads(graph=graph) if q.graph_name not in left_out)
            if graph is not None:
                serialize((Triple(q.subject, q.predicate, q.object) for q in quads), output, fmt, prefixes=named)
            else:
                serialize(quads, output, fmt, prefixes=named)
            return
        read = self._stored(graph)
        if graph is None:
            serialize((q for q in read if q.graph_name not in left_out), output, fmt, prefixes=named)
        else:
            serialize((Triple(q.subject, q.predicate, q.object) for q in read), output, fmt, prefixes=named)

    def _stored(self, graph: GraphName | None) -> Iterator[Quad]:
        """The dataset (``None``) or one graph from the Graph Store Protocol, parsed as it comes."""
        url = self.endpoint.store
        if isinstance(graph, DefaultGraph):
            url += "?default"
        elif graph is not None:
            url += "?" + urllib.parse.urlencode({"graph": graph.value})
        read_as = RdfFormat.N_QUADS if graph is None else RdfFormat.N_TRIPLES
        try:
            with self._open(url, None, accept=_MEDIA[read_as]) as response:
                for quad in parse(response, format=read_as):
                    yield quad if graph is None else Quad(quad.subject, quad.predicate, quad.object, graph)
        except NotFoundError:
            return  # a graph the store does not have holds no quads

    def optimize(self) -> None:
        """The server keeps its own storage."""

    def flush(self) -> None:
        """The server keeps its own storage."""

    def close(self) -> None:
        """Take back this client's records of its writes (:meth:`_writer`) and close the
        connections kept to the server."""
        writers, self._made = list(self._made), {}
        if writers:
            takes = "".join(_taken_back(writer, None) for writer in writers)
            # kept silent: a record only settles a write whose answer was lost, and one left by a
            # server gone away is one triple of the internal graph of changes
            with contextlib.suppress(ProvGraphError):
                self._post_update(takes)
        if self._pool is not None:
            self._pool.close()

    # ------------------------------------------------------------------ HTTP

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlyStoreError(f"the store at {self.endpoint.query} is open read-only")

    def _request(
        self,
        url: str,
        data: bytes | Iterable[bytes] | None,
        *,
        accept: str | None = None,
        content_type: str | None = None,
        length: int | None = None,
    ) -> tuple[bytes, str]:
        """The body and media type of the server's answer."""
        with self._open(url, data, accept=accept, content_type=content_type, length=length) as response:
            return response.read(), response.headers.get("Content-Type", "")

    @contextlib.contextmanager
    def _open(
        self,
        url: str,
        data: bytes | Iterable[bytes] | None,
        *,
        accept: str | None = None,
        content_type: str | None = None,
        length: int | None = None,
    ) -> Iterator[http.client.HTTPResponse]:
        """The server's answer, to read as it comes. ``data`` given as blocks is sent as read,
        ``length`` bytes in all."""
        import http.client  # loaded when a server is used, not at start-up

        headers = dict(self._headers)
        if accept:
            headers["Accept"] = accept
        if data is not None:
            headers["Content-Type"] = content_type or "application/x-www-form-urlencoded"
        if length is not None:
            headers["Content-Length"] = str(length)
        elif isinstance(data, bytes):
            headers["Content-Length"] = str(len(data))
        method = "POST" if data is not None else "GET"
        # a body given whole can be sent again after a deadlock (the engine rolled it back)
        attempts = DEADLOCK_ATTEMPTS if data is None or isinstance(data, bytes) else 1
        for attempt in range(1, attempts + 1):
            answer = contextlib.ExitStack()
            try:
                response = answer.enter_context(self._answer(url, method, data, headers))
            except _DeadlockError:
                if attempt == attempts:
                    raise
                time.sleep(random.uniform(0.05, 0.25) * attempt)  # a growing pause, drawn so writers part
                continue
            with answer:
                try:
                    yield response
                except (OSError, http.client.HTTPException) as exc:  # the connection broke while read
                    raise StoreError(f"reading the SPARQL server's answer from {url} failed: {exc}") from exc
            return

    @contextlib.contextmanager
    def _answer(
        self, url: str, method: str, data: bytes | Iterable[bytes] | None, headers: dict[str, str]
    ) -> Iterator[http.client.HTTPResponse]:
        """The server's answer to the request, its status and headers checked: a refusal or a
        cut result is an error (raised before anything is yielded)."""
        import http.client

        if self._pool is None:
            from provgraph.store.connections import ConnectionPool  # http.client: loaded when a server is used

            self._pool = ConnectionPool(
                self.endpoint.query, timeout=self._timeout, keep=self.endpoint.dialect.kept_connections
            )
        try:
            with self._pool.request(method, url, data, headers) as response:
                if response.status >= 300:
                    said = response.read() if response.status >= 400 else response.headers.get("Location", "").encode()
                    raise self._refused(url, response.status, said)
                cut = self.endpoint.dialect.truncated_header
                if cut and response.headers.get(cut):
                    message = response.headers.get("X-SQL-Message", "")
                    deadlock = self.endpoint.dialect.deadlock
                    if deadlock is not None and deadlock.search(message):
                        raise _DeadlockError(
                            f"the SPARQL server rolled the request back in a deadlock ({message}), {url}"
                        )
                    raise QueryError(
                        f"the SPARQL server cut the results at its row limit ({cut}: {response.headers.get(cut)}, "
                        f"{message}): raise it (Virtuoso: ResultSetMaxRows)"
                    )
                yield response
        except (OSError, http.client.HTTPException) as exc:
            raise StoreError(f"cannot reach the SPARQL server at {url}: {exc}") from exc

    def _refused(self, url: str, status: int, body: bytes) -> ProvGraphError:
        message = body.decode("utf-8", "replace").strip()[:500]
        deadlock = self.endpoint.dialect.deadlock
        if deadlock is not None and deadlock.search(message):
            return _DeadlockError(f"the SPARQL server rolled the request back in a deadlock (HTTP {status}): {message}")
        if status in (401, 403):
            return StoreError(
                f"the SPARQL server refused the credentials (HTTP {status}): set {USER_ENV} and {PASSWORD_ENV}"
            )
        if status < 400:  # a redirect, which a request with a body cannot follow as sent
            return StoreError(
                f"the SPARQL server at {url} answered HTTP {status} (to {message or 'another address'}): "
                "give the endpoint's own address"
            )
        position = self.endpoint.dialect.syntax_error.search(message)
        if position and status in (400, 500):
            column = position.groupdict().get("column")
            return QuerySyntaxError(
                position["reason"].strip(), line=int(position["line"]), column=int(column) if column else None
            )
        if status == 400:
            return QueryError(message or f"HTTP {status}")
        if status == 404 and url.startswith(self.endpoint.store + "?"):
            return NotFoundError(f"the SPARQL server has no graph at {url}")
        return StoreError(f"the SPARQL server at {url} answered HTTP {status}: {message}")


def _packed(operations: list[str], most: int | None) -> Iterator[str]:
    """The operations joined into texts of at most ``most`` characters where they fit (all in
    one without a limit), each ending without its last ``;``."""
    batch: list[str] = []
    size = 0
    for operation in operations:
        if batch and most is not None and size + len(operation) > most:
            yield "".join(batch).rstrip().removesuffix(";")
            batch, size = [], 0
        batch.append(operation)
        size += len(operation)
    if batch:
        yield "".join(batch).rstrip().removesuffix(";")


def _blocks(files: Sequence[Path], size: int = 1 << 20) -> Iterator[bytes]:
    for file in files:
        with file.open("rb") as f:
            while block := f.read(size):
                yield block


def _prologue(prefixes: dict[str, str] | None, base_iri: str | None) -> str:
    """Declarations put before a query or update (its own come after, and win)."""
    lines = [f"BASE <{base_iri}>"] if base_iri else []
    lines += [f"PREFIX {name}: <{iri}>" for name, iri in (prefixes or {}).items()]
    return "\n".join(lines) + "\n" if lines else ""


def _shifted(exc: QuerySyntaxError, prologue: str, declared: str = "", inserted: str = "") -> QuerySyntaxError:
    """The error's position in the text as given: the sent text had ``prologue`` before it and
    ``inserted`` (whole lines) after its own declarations ``declared``."""
    if exc.line is None:
        return exc
    line, column = exc.line - prologue.count("\n"), exc.column
    if inserted and line > declared.count("\n") + 1:
        line -= inserted.count("\n")
        if line == declared.count("\n") + 1 and column is not None:  # the inserted lines cut this one in two
            column += len(declared.rsplit("\n", 1)[-1])
    return QuerySyntaxError(exc.reason, line=line, column=column)


#: An update's own PREFIX and BASE declarations (with the comments between them).
_OWN_PROLOGUE = re.compile(
    r"(?:\s|#[^\n]*\n)*(?:(?:PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)(?:\s|#[^\n]*\n)*)+", re.I
)


_TOKEN_NS = ID_NS + "write/"
#: Made once, by the first write to a store: a writer whose first write follows it fails on it.
_FIRST = NamedNode(_TOKEN_NS + "first")
#: Made by each writer that finds no write token, just before its write, which drops it: of
#: first writers racing, one drops it and the others fail (see _guard).
_SEED = NamedNode(_TOKEN_NS + "seed")
_TOKEN = "SELECT ?t WHERE { GRAPH pgid:changes { pgid:changes pg:writeToken ?t } }"


#: The write lock of an engine that does not serialise updates (see SparqlBackend._serialised):
#: a graph of claims, each the time the server's clock gave it.
_LOCK_NS = _TOKEN_NS + "claim/"
_LOCK = f"<{_TOKEN_NS}lock>"
#: Seconds after which a claim lapses: twice the longest a request waits for its answer.
LOCK_LEASE = 600
#: Seconds a writer waits for the lock before it gives up.
LOCK_WAIT = 120.0
_CLAIMED = f"<{PG.claimedAt.value}>"


def _claim(claim: NamedNode) -> str:
    """The update adding ``claim`` at the server's time, and clearing the lapsed claims."""
    lapsed = f"GRAPH {_LOCK} {{ ?c {_CLAIMED} ?t }} FILTER(?t < {_lease_start()})"
    return (
        f"DELETE {{ GRAPH {_LOCK} {{ ?c {_CLAIMED} ?t }} }} WHERE {{ {lapsed} }} ;\n"
        f"INSERT {{ GRAPH {_LOCK} {{ {claim} {_CLAIMED} ?now }} }} WHERE {{ BIND(NOW() AS ?now) }}"
    )


def _live_claims() -> str:
    return f"SELECT ?c WHERE {{ GRAPH {_LOCK} {{ ?c {_CLAIMED} ?t }} FILTER(?t >= {_lease_start()}) }}"


def _release(claim: NamedNode) -> str:
    return f"DELETE WHERE {{ GRAPH {_LOCK} {{ {claim} {_CLAIMED} ?t }} }}"


def _lease_start() -> str:
    """The time of the oldest live claim, by the server's clock."""
    return f'NOW() - "PT{LOCK_LEASE}S"^^<http://www.w3.org/2001/XMLSchema#dayTimeDuration>'


def _guard(
    tokens: tuple[NamedNode, ...], following: NamedNode, writer: NamedNode, *, made: tuple[NamedNode, ...] | None
) -> str:
    """The operations that make a write request commit only if the store's write token is still
    ``tokens``, and make ``following`` the token: an optimistic check on the store's version.
    They also record ``following`` as the last token ``writer`` made: a request sent again after
    the engine reported it failed (a deadlock) finds its token gone when the first sending had
    in fact committed, and only that record tells this from another writer's having overtaken it
    (the token itself may already be replaced by then). ``made`` is the token its record names
    now, () for a writer that has not written, None for one that does not know (a ``DELETE
    WHERE`` is 1.8 ms more a write on Virtuoso, a ``DELETE DATA`` nothing measurable).

    A token is an empty graph, named also by a triple so it can be looked up. ``DROP GRAPH``
    (not SILENT) fails on a graph that does not exist: a writer whose token another write has
    already dropped gets an error from the engine before anything of its request is written (the
    guard comes first: Virtuoso keeps what a request's operations did before one fails, Oxigraph
    keeps nothing). Tokens are random and never made twice, so a stale writer cannot find its
    token made again. Two writers dropping the same graph at the same moment rely on the engine
    serialising updates (:attr:`~provgraph.store.dialects.Dialect.serialises_updates`).

    The first write of a store drops :data:`_SEED`, which each writer finding no token makes
    just before, not only makes :data:`_FIRST`: Virtuoso let two racing first writers both create
    ``_FIRST`` (a graph not there yet has nothing to wait on; one of about 150 races of four
    writers lost a commit so), while a graph that exists is dropped by one writer only. A seed
    made again after the first write by a writer that read no token then is dropped, but that
    writer fails on ``_FIRST``."""
    writes = f"GRAPH {CHANGES_GRAPH} {{ {CHANGES_GRAPH} {PG.writeToken} "
    # SILENT: a new token cannot exist already, and Virtuoso 7.2 takes 0.2-1 s at 100k facts over
    # a request that holds a CREATE GRAPH not SILENT and a data operation (2-7 ms each alone)
    making = (
        f"CREATE SILENT GRAPH {following} ;\n"
        f"{_taken_back(writer, made)}"
        f"INSERT DATA {{ {writes}{following} . {writer} {PG.madeToken} {following} }} }} ;\n"
    )
    if not tokens:
        return f"DROP GRAPH {_SEED} ;\nCREATE GRAPH {_FIRST} ;\n{making}"
    drops = "".join(f"DROP GRAPH {token} ;\nDELETE DATA {{ {writes}{token} }} }} ;\n" for token in tokens)
    return drops + making


def _taken_back(writer: NamedNode, made: tuple[NamedNode, ...] | None) -> str:
    """The operation taking back ``writer``'s record of the token it made (see :func:`_guard`)."""
    if made is None:
        return f"DELETE WHERE {{ GRAPH {CHANGES_GRAPH} {{ {writer} {PG.madeToken} ?made }} }} ;\n"
    return "".join(f"DELETE DATA {{ GRAPH {CHANGES_GRAPH} {{ {writer} {PG.madeToken} {t} }} }} ;\n" for t in made)


#: Where blank nodes are written as IRIs on an engine that skolemizes: ``{GENID}{salt}/{label}``,
#: one salt per request or load; read back as the blank node ``{salt}_{label}``, which a later
#: write names by the same IRI again.
GENID = ID_NS + "genid/"
_SKOLEM_JSON = re.compile(rb'"type": "uri", "value": "' + re.escape(GENID.encode()) + rb"([0-9a-f]{32})/")
_SKOLEM_NTRIPLES = re.compile(rb"<" + re.escape(GENID.encode()) + rb"([0-9a-f]{32})/([^>]*)>")
_READ_BACK = re.compile(r"([0-9a-f]{32})_(.+)")


def _skolem(label: str, salt: str) -> str:
    """The Skolem IRI of the blank node ``label`` written in a request salted ``salt``."""
    read_back = _READ_BACK.fullmatch(label)
    return f"{GENID}{read_back[1]}/{read_back[2]}" if read_back else f"{GENID}{salt}/{label}"


def _skolem_term(term: Term | Triple, salt: str) -> Term | Triple:
    return NamedNode(_skolem(term.value, salt)) if isinstance(term, BlankNode) else term


def _insert_data(quads: Sequence[Quad]) -> str:
    parts = ["INSERT DATA {"]
    for quad in quads:
        triple = f"{quad.subject} {quad.predicate} {quad.object} ."  # N-Triples terms are SPARQL terms
        if isinstance(quad.graph_name, DefaultGraph):
            parts.append(triple)
        else:
            parts.append(f"GRAPH {sparql_term(quad.graph_name)} {{ {triple} }}")
    parts.append("}")
    return "\n".join(parts)


def _bound(sparql: str, substitutions: Substitutions | None) -> str:
    """The core's query with its substituted variables bound by a ``VALUES`` block at the start
    of its ``WHERE`` group (of its first group for an ``ASK { }``)."""
    if not substitutions:
        return sparql
    names = " ".join(f"?{name}" for name in substitutions)
    # a blank node read back from an engine that skolemizes is named by its Skolem IRI
    terms = " ".join(
        f"<{_skolem(term.value, '')}>"
        if isinstance(term, BlankNode) and _READ_BACK.fullmatch(term.value)
        else sparql_term(term)
        for term in substitutions.values()
    )
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
    engine: Dialect,
) -> tuple[str, list[tuple[str, str]]]:
    """The query and the protocol's dataset parameters that read what the embedded engine reads.

    The protocol's ``default-graph-uri`` without ``named-graph-uri`` leaves no named graph, where
    the embedded engine keeps them all (and Virtuoso keeps ``GRAPH ?g`` but not ``GRAPH <iri>``).
    So a default graph given alone, to a query that reads named graphs too, is written into the
    text instead: the current view (the store's own default graph is empty on a server: nothing
    provgraph writes goes there) as ``GRAPH pgid:current`` around the WHERE group
    (:meth:`~provgraph.sparql_text.SparqlText.within_graph`). On an engine whose default graph is
    the union of all graphs (Virtuoso), a query naming no dataset reads an empty graph as its
    default graph, as it would on the embedded store."""
    named = [g for g in default_graph or () if isinstance(g, NamedNode)]
    if named_graphs is not None:
        params = [("default-graph-uri", g.value) for g in named]
        return sparql, params + [("named-graph-uri", g.value) for g in named_graphs if isinstance(g, NamedNode)]
    if not named:
        if not engine.union_by_default or _has_dataset(sparql, prefixes, base_iri):
            return sparql, []  # the server's default graph, every named graph
        named = [_EMPTY_DEFAULT]
    within = _read_within(sparql, named[0].value, base_iri, tuple((prefixes or {}).items()))
    if within is None:
        return sparql, [("default-graph-uri", g.value) for g in named]
    if len(named) == 1:
        return within, []
    raise QueryError(
        "on a SPARQL server, a query reading named graphs needs one graph as its default graph "
        "(the current view) or named graphs given with it (named_graphs=)"
    )


@functools.lru_cache(maxsize=512)
def _read_within(sparql: str, graph: str, base_iri: str | None, prefixes: tuple[tuple[str, str], ...]) -> str | None:
    """``sparql`` with its WHERE group read in ``GRAPH <graph>``, or None when it reads no
    named graph. Remembered: on Virtuoso every core query naming no dataset comes here."""
    read_as = read(sparql, base_iri=base_iri, prefixes={**PREFIXES, **dict(prefixes)})
    return read_as.within_graph(graph).text if read_as.uses_named_graphs() else None


#: Where nothing is written: the default graph of a request on an engine whose default graph
#: would otherwise be the union of every graph.
_EMPTY_DEFAULT = NamedNode(ID_NS + "default-graph")


def _has_dataset(sparql: str, prefixes: dict[str, str] | None, base_iri: str | None) -> bool:
    if "FROM" not in sparql.upper():  # most queries: no need to read them
        return False
    return read(sparql, base_iri=base_iri, prefixes={**PREFIXES, **(prefixes or {})}).has_dataset_clause()


_HEX = "0123456789abcdef"


def _in_part(part: str, predicate: bool = True, digits: str = "") -> str:
    """A filter keeping the triples whose hash of subject and ``predicate`` (a variable ?p;
    else, the predicate bound, of subject and object) starts with ``part``, its next digit one
    of ``digits`` when given."""
    other = "STR(?p)" if predicate else 'COALESCE(STR(?o), "")'
    hashed = f'MD5(CONCAT(COALESCE(STR(?s), ""), {other}))'
    tests = [f'STRSTARTS({hashed}, "{part}")'] if part else []
    if digits:
        held = ", ".join('"' + d + '"' for d in digits)
        tests.append(f"SUBSTR({hashed}, {len(part) + 1}, 1) IN ({held})")
    return f"FILTER({' && '.join(tests)})" if tests else ""


def _as_triples(body: bytes) -> QueryResults:
    """A CONSTRUCT's triples as the engine's own result type (what serialisation takes)."""
    scratch = Store()
    scratch.load(io.BytesIO(body), format=RdfFormat.N_TRIPLES)
    return scratch.query("CONSTRUCT WHERE { ?s ?p ?o }")


__all__ = ["SCHEMES", "Endpoint", "SparqlBackend", "is_remote"]
