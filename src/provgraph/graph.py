"""``ProvGraph``: the one core. The command line is a thin shell over it."""

from __future__ import annotations

import io
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, cast

from provgraph import evidence as _evidence
from provgraph.answer import invalidation as _invalidation
from provgraph.answer import metrics as _metrics
from provgraph.answer import policy as _policy
from provgraph.answer import record as _record
from provgraph.answer import recording as _recording
from provgraph.answer import replay as _replay
from provgraph.answer import verify as _verification
from provgraph.answer.base import Generator
from provgraph.answer.evaluate import EvalReport
from provgraph.answer.invalidation import Revocation
from provgraph.answer.metrics import AnswerMetrics
from provgraph.answer.models import AskFilters, Detail, DraftAnswer, EvidencePack, GeneratorKind, GroundedAnswer
from provgraph.answer.pipeline import build_generator
from provgraph.answer.policy import Policy
from provgraph.answer.record import AnswerSummary, AuditReport, Composed, RecordedAnswer
from provgraph.answer.replay import AnswerDiff, Replay
from provgraph.answer.retrieve import Retriever
from provgraph.errors import (
    ConfirmationRequiredError,
    InputError,
    NotFoundError,
    QueryError,
    QuerySyntaxError,
    StoreNotEmptyError,
    UnsupportedFormatError,
)
from provgraph.ingest import pipeline
from provgraph.ingest.extract import LlmSetup
from provgraph.ingest.extract.cache import FactCache, cache_for
from provgraph.ingest.guard import check_json_depth, check_xml
from provgraph.ingest.options import IngestOptions
from provgraph.ingest.rdf import RDF_FORMATS as _INPUT_RDF
from provgraph.ingest.reify import xsd_datetime
from provgraph.ingest.trix import trix_to_nquads
from provgraph.jsonld import ContextWriter
from provgraph.models import (
    DatasetView,
    DerivedRecords,
    Evidence,
    ExportFormat,
    IngestReport,
    InputFormat,
    SourceInfo,
    StoreStats,
)
from provgraph.options import ProvFormat
from provgraph.query import RDF_FORMATS, PreparedQuery, QueryDataset, QueryResult, execute, translate_error
from provgraph.sparql_text import check_endpoints, read
from provgraph.store import catalog, changes
from provgraph.store import derived as _derived
from provgraph.store import view as current_view
from provgraph.store.base import Backend
from provgraph.store.oxigraph import OxigraphBackend
from provgraph.store.remote import SparqlBackend, is_remote
from provgraph.store.snapshots import Snapshots
from provgraph.store.terms import (
    BlankNode,
    DefaultGraph,
    GraphName,
    Literal,
    NamedNode,
    RdfFormat,
    parse,
    parse_datetime,
    serialize,
)
from provgraph.trust import relations as _relations
from provgraph.trust.annotate import annotate as _annotate
from provgraph.trust.chains import chains as _chains
from provgraph.trust.models import ChainMode, ChainReport, Conflict, DetectionReport, ResolutionStrategy
from provgraph.trust.read import conflicts as _conflicts
from provgraph.trust.relation_models import DocumentRelation
from provgraph.trust.run import refresh as _refresh_conflicts
from provgraph.trust.run import run as _run_conflicts
from provgraph.update import UpdatePlan, check_policy, plan_update
from provgraph.vocab import CATALOG_GRAPH, CHANGES_GRAPH, CURRENT_VIEW, PG_NS, PREFIXES, document_iri

if TYPE_CHECKING:
    from provgraph.llm import ChatModel, OpenAISettings

#: Where ``ProvGraph.open()`` looks when given no path: $PROVGRAPH_STORE, else ./provgraph-data.
DEFAULT_STORE_ENV = "PROVGRAPH_STORE"
DEFAULT_STORE_DIR = "provgraph-data"
#: Where ``ProvGraph.open()`` keeps a SPARQL server's lexical index when given no directory.
INDEX_DIRECTORY_ENV = "PROVGRAPH_INDEX_DIR"
#: Prepared queries kept per store: a server answers the same few texts over and over (dashboards,
#: the query page, pipelines), and reading a text as the engine will (the guards' lexer) costs
#: more than Oxigraph takes to answer a small query.
PREPARED_CACHE_SIZE = 512

#: Documents, versions, current versions and their statements, as the catalog counts them.
STATS = """SELECT (COUNT(DISTINCT ?d) AS ?docs) (COUNT(?g) AS ?graphs) (SUM(IF(?s = pg:Current, 1, 0)) AS ?current)
       (SUM(IF(?s = pg:Current, ?n, 0)) AS ?statements)
WHERE { GRAPH pgid:catalog { ?g pg:document ?d ; pg:status ?s ; pg:statementCount ?n } }"""
#: The quads an export holds: the view and the change log are the store's own.
EXPORTED_QUADS = """SELECT (COUNT(*) AS ?n)
WHERE { { GRAPH ?g { ?s ?p ?o } FILTER(?g NOT IN (pgid:current, pgid:changes)) } UNION { ?s ?p ?o } }"""
#: The namespaces every store with a document uses (its statements and catalog): an export's
#: @prefix lines and JSON-LD context.
EXPORT_PREFIXES = {name: PREFIXES[name] for name in ("pg", "pgid", "prov", "rdf", "xsd", "dcterms")}
#: Whether the named graph ``?g`` exists (it may be empty).
GRAPH_EXISTS = "ASK { GRAPH ?g {} }"


def _dump(
    backend: Backend,
    output: IO[bytes],
    format: ExportFormat,  # noqa: A002
    *,
    graph: GraphName | None = None,
    exclude: Sequence[NamedNode] = (),
) -> None:
    """Serialise as :meth:`ProvGraph.export` does: Turtle, TriG and RDF/XML with prefixes for
    the namespaces of :data:`EXPORT_PREFIXES`, JSON-LD with them as its context."""
    if format is ExportFormat.JSONLD:
        writer = ContextWriter(output, EXPORT_PREFIXES)
        backend.dump(cast(IO[bytes], writer), RDF_FORMATS[format], graph=graph, exclude=exclude)
        writer.finish()
        return
    backend.dump(output, RDF_FORMATS[format], graph=graph, exclude=exclude, prefixes=EXPORT_PREFIXES)


def default_store_path() -> Path:
    return Path(os.environ.get(DEFAULT_STORE_ENV) or DEFAULT_STORE_DIR)


class ProvGraph:
    """A provenance store: source documents as SHACL-validated named graphs of reified,
    PROV-O annotated statements.

    >>> from provgraph import IngestOptions, ProvGraph
    >>> pg = ProvGraph.memory()
    >>> report = pg.ingest("data/examples/aspirin.ttl", IngestOptions(title="Aspirin facts",
    ...                    url="https://example.org/aspirin", issued="2024-03-01", tier=2))
    >>> report.documents[0].outcome.value, report.statements
    ('created', 4)
    >>> [e.title for e in pg.evidence("http://example.org/aspirin",
    ...                               "http://example.org/treats", "http://example.org/headache")]
    ['Aspirin facts']
    >>> pg.close()
    """

    def __init__(self, backend: Backend, *, index_directory: Path | None = None) -> None:
        self._backend = backend
        self._index_directory = index_directory
        self._current_cache: tuple[int, list[NamedNode]] | None = None
        self._view_cache: tuple[int, tuple[str | None, ...]] | None = None
        # once a store keeps the current view it always does (only a restore into an empty store
        # builds one anew): a read-only open need not ask again on every query
        self._view_maintained = False
        self._prepared: OrderedDict[tuple[object, ...], PreparedQuery] = OrderedDict()
        self._prepared_lock = threading.Lock()
        self._retriever: Retriever | None = None
        self._policy_cache: tuple[int, Policy] | None = None
        self._facts_cache: FactCache | None = None
        #: the models text extraction asked, by settings (see LlmSetup)
        self._chat_models: dict[str, ChatModel] = {}

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        read_only: bool = False,
        lazy_lock: bool = False,
        create: bool = True,
        index_directory: str | os.PathLike[str] | None = None,
    ) -> ProvGraph:
        """Open the on-disk store at ``path`` (default: $PROVGRAPH_STORE, else ./provgraph-data),
        created if missing unless ``read_only`` or not ``create`` (then a missing store is a
        :class:`StoreNotFoundError`).

        A read-only open works while another process (a running server) holds the store. With
        ``lazy_lock`` an existing store is opened read-only and locked for writing only when the
        first write comes, so an ingest refused by validation leaves the store's files
        byte-for-byte as they were (the command line works this way).

        ``path`` may name a SPARQL 1.1 server instead: ``sparql+http://host:port`` (see
        :mod:`provgraph.store.remote`). Its lexical index (what :meth:`ask` searches) is then kept
        in ``index_directory`` (default: $PROVGRAPH_INDEX_DIR), a directory of this machine, so
        that a new process catches the index up from the store's change log instead of building
        it whole (at 1M facts, 72-92 s on Oxigraph's server and 187-201 s on Virtuoso before a
        first answer); without one, or while another process uses that directory, in memory. An
        on-disk store keeps its index in its own directory."""
        location = path if path is not None else (os.environ.get(DEFAULT_STORE_ENV) or default_store_path())
        backend: Backend
        directory: Path | None = None
        if is_remote(location):
            backend = SparqlBackend.connect(str(location), read_only=read_only)
            chosen = index_directory if index_directory is not None else os.environ.get(INDEX_DIRECTORY_ENV)
            directory = Path(chosen) if chosen else None
        else:
            backend = OxigraphBackend.open(location, read_only=read_only, lazy=lazy_lock, create=create)
        graph = cls(backend, index_directory=directory)
        if not read_only and not lazy_lock:
            graph.recover()
        return graph

    @classmethod
    def open_checkpoint(cls, checkpoint: str | os.PathLike[str], *, store: str | os.PathLike[str]) -> ProvGraph:
        """Open, read-only, a checkpoint of the on-disk store ``store`` (how the server's query
        workers read a consistent state of the store while it is being written)."""
        return cls(OxigraphBackend.open_snapshot(checkpoint, store=Path(store)))

    def checkpoints(self) -> Snapshots | None:
        """Checkpoints of this store for readers in other processes (the server's query
        workers), or None when it cannot give them: in memory, opened read-only, or not holding
        the write lock (a lazy open), since only the writer knows when the data changes. Each call
        starts the checkpoint directory afresh: one server process holds one."""
        backend = self._backend
        if (
            not isinstance(backend, OxigraphBackend)
            or backend.location is None
            or backend.read_only
            or backend.generation is None
        ):
            return None
        return Snapshots(backend)

    @classmethod
    def memory(cls) -> ProvGraph:
        """An in-memory store (for tests and notebooks): same behaviour, nothing on disk."""
        return cls(OxigraphBackend.memory())

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def read_only(self) -> bool:
        return self._backend.read_only

    def close(self) -> None:
        if self._retriever is not None:
            self._retriever.close()
        self._backend.close()

    def __enter__(self) -> ProvGraph:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def recover(self) -> list[str]:
        """Remove source graphs an interrupted ingest wrote but never committed to the catalog,
        and the spool directories of ingests that were killed. Runs on every read-write open;
        returns the graphs removed."""
        pipeline.remove_stale_spools()
        current_view.recover(self._backend)  # before the orphans go: it reads their quads
        removed = catalog.remove_orphans(self._backend)
        current_view.ensure(self._backend, writing=False)
        return removed

    def optimize(self) -> None:
        """Compact the embedded store's files now. A large ingest is written with the engine's
        bulk loader, whose files RocksDB merges in the background afterwards; until it has,
        lookups read many files: at 300k facts, conflict detection took 23 s right after the
        ingest and 5.8 s once compacted (or after two idle minutes). A pipeline that queries
        right after a bulk ingest calls this first; it rewrites the whole store (25 s at 300k
        facts), so an ingest does not. On a SPARQL server it does nothing: the server keeps its
        own storage.

        >>> with ProvGraph.memory() as pg:
        ...     pg.optimize()
        """
        self._backend.begin_write()
        self._backend.optimize()

    # ------------------------------------------------------------------ ingest

    def ingest(
        self,
        path: str | os.PathLike[str],
        options: IngestOptions | None = None,
        /,
        *,
        progress: pipeline.ProgressCallback | None = None,
        llm: OpenAISettings | None = None,
    ) -> IngestReport:
        """Ingest one file as a source document (or several, with ``options.split``).

        The document's identity is the ``id`` option, else ``url``, else the file's absolute
        path. Identical content (and options) for a current document is a no-op; changed content
        makes a new version that supersedes the old one. Every graph is validated with SHACL
        (the built-in shapes and the ``shapes`` option) before anything is written; a graph that
        does not conform raises :class:`~provgraph.errors.ValidationFailedError` and the store is
        unchanged.

        Input is data, never provenance: a term in provgraph's namespaces (``pg:``, ``pgid:``) is
        refused with an :class:`~provgraph.errors.InputError` naming file and line, as are
        malformed or truncated input and literals that do not match their datatype (the
        ``lenient`` option keeps those, and ``report.ill_typed_literals`` says how many).

        Text documents (text, Markdown, HTML, PDF) are read for facts as ``options.extract``
        says; ``llm`` is the model of ``Extraction.LLM`` (default: the one the environment
        configures, :meth:`OpenAISettings.from_env`), whose replies are cached with the store.
        """
        model = LlmSetup(llm, self._fact_cache(), self._chat_models)
        try:
            return pipeline.run(self._backend, Path(path), options or IngestOptions(), progress=progress, model=model)
        finally:
            model.cache.flush()  # the first ingest of a new store made its directory

    def _fact_cache(self) -> FactCache:
        if self._facts_cache is None:
            backend = self._backend
            self._facts_cache = cache_for(backend.location if not backend.read_only else None)
        return self._facts_cache

    def validate(
        self,
        path: str | os.PathLike[str],
        options: IngestOptions | None = None,
        /,
        *,
        progress: pipeline.ProgressCallback | None = None,
        llm: OpenAISettings | None = None,
    ) -> IngestReport:
        """Everything :meth:`ingest` does except writing: a dry run whose report says whether
        the input conforms (``report.validation``) and what ingest would do."""
        model = LlmSetup(llm, self._fact_cache(), self._chat_models)
        return pipeline.run(
            self._backend, Path(path), options or IngestOptions(), dry_run=True, progress=progress, model=model
        )

    def revoke(
        self,
        document: str,
        *,
        reason: str,
        by: str | None = None,
        confirm: bool = False,
        max_invalidated: int = _invalidation.MAX_INVALIDATED,
    ) -> Revocation:
        """Withdraw a document (by key or IRI): its current version becomes ``revoked``, is no
        longer used for answers and conflicts, and stays queryable as history. A tombstone says
        who (``by``, default: the user running the process), when and why (``reason``). Every
        recorded answer whose context included a segment derived from it is invalidated, then
        every answer derived from those (see :mod:`provgraph.answer.invalidation`); nothing is
        deleted. More than ``max_invalidated`` answers need ``confirm=True``
        (:class:`~provgraph.errors.ConfirmationRequiredError`, nothing written)."""
        reason = _invalidation.check_reason(reason)
        self._backend.begin_write()  # what is looked up below is what the write will see
        info = self.source(document)
        if info.current_graph is None:
            raise NotFoundError(f"document {document!r} has no current version to revoke")
        graph = NamedNode(info.current_graph)

        def catalog_change(at: str) -> list[str]:
            return [
                catalog.revoke_update(graph, at),
                current_view.retire([graph.value]),
                changes.record(removed=[graph.value]),
            ]

        return self._revoke(
            _invalidation.RevocationTarget.DOCUMENT,
            graph,
            name=repr(info.key),
            document=NamedNode(info.document),
            change=catalog_change,
            reason=reason,
            by=by,
            confirm=confirm,
            max_invalidated=max_invalidated,
        )

    def revoke_statement(
        self,
        statement: str,
        *,
        reason: str,
        by: str | None = None,
        confirm: bool = False,
        max_invalidated: int = _invalidation.MAX_INVALIDATED,
    ) -> Revocation:
        """Withdraw one statement (by IRI) of a current source, which stays current: evidence
        lookups, retrieval and conflict detection leave the statement out from now on; it stays
        in its graph, readable with its tombstone (who, when, why) and in
        ``evidence(..., include_history=True)`` with the status ``revoked``. Recorded answers
        whose context included a segment derived from it are invalidated, with those derived from
        them, as for :meth:`revoke`."""
        reason = _invalidation.check_reason(reason)
        node = _iri_or_none(statement.strip().removeprefix("<").removesuffix(">"))
        if node is None:
            raise InputError(f"a statement is named by its IRI, not {statement!r}")
        self._backend.begin_write()
        found = _invalidation.statement_source(self._backend, node)
        if found is None:
            raise NotFoundError(f"no statement <{node.value}> in a current source")
        graph, document = found
        return self._revoke(
            _invalidation.RevocationTarget.STATEMENT,
            node,
            name=f"<{node.value}>",
            document=document,
            # what the graph states is read again by the views derived from it (conflicts)
            change=lambda _at: [changes.record(restated=[graph.value])],
            reason=reason,
            by=by,
            confirm=confirm,
            max_invalidated=max_invalidated,
        )

    def revoke_segment(
        self,
        segment: str,
        *,
        reason: str,
        by: str | None = None,
        confirm: bool = False,
        max_invalidated: int = _invalidation.MAX_INVALIDATED,
    ) -> Revocation:
        """Withdraw one context segment of recorded answers (its id, IRI, or a unique prefix of
        8+ hex digits, as ``replay`` shows them): every answer that included it is invalidated,
        with those derived from them, and the evidence item it showed is never retrieved again
        (an instruction segment has none: only its answers are invalidated). A tombstone says
        who, when and why; nothing is deleted."""
        reason = _invalidation.check_reason(reason)
        self._backend.begin_write()
        node = _invalidation.resolve_segment(self._backend, segment)
        return self._revoke(
            _invalidation.RevocationTarget.SEGMENT,
            node,
            name=f"segment {node.value.rsplit('/', 1)[1][:16]}",
            document=None,
            evidence=_invalidation.segment_evidence(self._backend, node),
            # retrieval reads the revoked evidence once per store generation: raise it
            change=lambda _at: [changes.record()],
            reason=reason,
            by=by,
            confirm=confirm,
            max_invalidated=max_invalidated,
        )

    def _revoke(
        self,
        target: _invalidation.RevocationTarget,
        revoked: NamedNode,
        *,
        name: str,
        document: NamedNode | None,
        change: Callable[[str], list[str]],
        reason: str,
        by: str | None,
        confirm: bool,
        max_invalidated: int,
        evidence: str | None = None,
    ) -> Revocation:
        """Tombstone, invalidations and ``change(at)`` (the store's own update) in one write."""
        who = " ".join((by or _invalidation.default_agent()).split()) or _invalidation.default_agent()
        current_view.ensure(self._backend, writing=True)
        if target is not _invalidation.RevocationTarget.DOCUMENT:
            earlier = _invalidation.revoked_by(self._backend, revoked)
            if earlier is not None:
                raise InputError(f"{name} is already revoked (by <{earlier}>)")
        invalidated = _invalidation.affected(self._backend, revoked, target)
        if len(invalidated) > max_invalidated and not confirm:
            raise ConfirmationRequiredError(
                f"revoking {name} would invalidate {len(invalidated)} recorded answers, more than "
                f'{max_invalidated}: confirm it (confirm=True, --confirm, "confirm": true)',
                count=len(invalidated),
            )
        at = xsd_datetime(datetime.now(UTC))
        tombstone = _invalidation.tombstone_iri(revoked, at, reason)
        stone = _invalidation.update(
            tombstone,
            revoked=revoked,
            target=target,
            document=document,
            evidence=evidence,
            reason=reason,
            by=who,
            at=at,
            invalidated=invalidated,
        )
        self._backend.update(" ;\n".join([*change(at), stone]), prefixes=PREFIXES)
        return Revocation(
            id=tombstone.value,
            target=target,
            revoked=revoked.value,
            reason=reason,
            by=who,
            at=parse_datetime(at),
            source=self.source(document.value) if document is not None else None,
            evidence=evidence,
            invalidated=invalidated,
        )

    # ------------------------------------------------------------------ reading

    def sources(self) -> list[SourceInfo]:
        """Every source document in the catalog with its versions."""
        return catalog.sources(self._backend)

    def source(self, document: str) -> SourceInfo:
        """One source document, by key (id, URL or path) or by IRI."""
        found = catalog.sources(self._backend, key=document)
        if not found:
            iri = _iri_or_none(document) if ":" in document else document_iri(document)
            found = catalog.sources(self._backend, document=iri) if iri is not None else []
        if not found:
            raise NotFoundError(f"no source document {document!r} in the store")
        return found[0]

    def current_graphs(self) -> list[NamedNode]:
        """The current version of every source document (the default view's graphs)."""
        # Every query in the default view needs this list; while this process is the only writer
        # it is cached until the next write (a server answers thousands of queries per ingest).
        generation = self._backend.generation
        if generation is not None and self._current_cache is not None and self._current_cache[0] == generation:
            return self._current_cache[1]
        graphs = catalog.current_graphs(self._backend)
        self._current_cache = (generation, graphs) if generation is not None else None
        return graphs

    def _current_view(self) -> tuple[str | None, ...]:
        """The default graph of the current view: the current view graph
        (:mod:`provgraph.store.view`) and, when it holds anything, the store's own default graph;
        or, on a store written before provgraph kept a view and opened read-only, the list of
        current source graphs."""
        generation = self._backend.generation
        if generation is not None and self._view_cache is not None and self._view_cache[0] == generation:
            return self._view_cache[1]
        if self._view_maintained or current_view.is_maintained(self._backend):
            self._view_maintained = True
            # The store's own default graph is part of the view only when it holds anything
            # (plain SPARQL updates write there; provgraph never does): each pattern of a query
            # is otherwise matched in two graphs, one of them empty, 10-40% of an entity's facts.
            empty = next(iter(self._backend.quads(graph=DefaultGraph())), None) is None
            view = _VIEW_ONLY if empty else _VIEW_DATASET
            self._view_cache = (generation, view) if generation is not None else None
            return view
        graphs: tuple[str | None, ...] = (None, *(g.value for g in self.current_graphs()))
        self._view_cache = (generation, graphs) if generation is not None else None
        return graphs

    def query(
        self,
        sparql: str,
        *,
        view: DatasetView = DatasetView.CURRENT,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
        services: Sequence[str] = (),
    ) -> QueryResult:
        """Run a SPARQL 1.1 query.

        By default (``view=DatasetView.CURRENT``) the default graph is the union of the current
        version of every source document and the store's own default graph (where plain SPARQL
        updates write); ``DatasetView.ALL`` makes it the union of all graphs,
        ``DatasetView.DEFAULT`` the store's own default graph alone. ``default_graph`` and
        ``named_graphs`` (graph IRIs) set the dataset as the protocol's default-graph-uri and
        named-graph-uri do, overriding the view and the query's own FROM; a query with FROM or
        FROM NAMED and no such parameters gets the dataset it names. ``GRAPH`` reaches every named
        graph: history and the catalog (``pgid:catalog``). ``SERVICE`` may call only the endpoints
        in ``services`` (none by default: a store must not fetch URLs a query names). The prefixes
        pg:, pgid:, prov:, rdf:, rdfs:, xsd:, dcterms:, owl:, skos: and sh: are predeclared.
        """
        prepared = self.prepare(
            sparql,
            view=view,
            default_graph=default_graph,
            named_graphs=named_graphs,
            base_iri=base_iri,
            services=services,
        )
        return self.run_prepared(prepared)

    def run_prepared(self, prepared: PreparedQuery) -> QueryResult:
        """Run a query made by :meth:`prepare`."""
        try:
            return execute(self._backend, prepared.text, prepared.dataset, prepared.base_iri)
        except QuerySyntaxError as exc:
            raise prepared.error(exc) from exc

    def prepare(
        self,
        sparql: str,
        *,
        view: DatasetView = DatasetView.CURRENT,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
        services: Sequence[str] = (),
    ) -> PreparedQuery:
        """What :meth:`query` runs (see there), checked: the text read as the engine reads it
        (:func:`provgraph.sparql_text.read`), its SERVICE calls checked against ``services``, and
        the dataset it is evaluated over. A query worker in another process runs it the same way.
        The last :data:`PREPARED_CACHE_SIZE` texts prepared over the current view are kept (it is
        one graph whatever the writes: what is prepared stays valid)."""
        view_graphs = self._current_view()
        key: tuple[object, ...] | None = None
        if view_graphs is _VIEW_DATASET or view_graphs is _VIEW_ONLY:
            key = (sparql, view, _tuple(default_graph), _tuple(named_graphs), base_iri, tuple(services), view_graphs)
            with self._prepared_lock:
                found = self._prepared.get(key)
                if found is not None:
                    self._prepared.move_to_end(key)
                    return found
        prepared = self._prepare(sparql, view, default_graph, named_graphs, base_iri, services, view_graphs)
        if key is not None:
            with self._prepared_lock:
                self._prepared[key] = prepared
                if len(self._prepared) > PREPARED_CACHE_SIZE:
                    self._prepared.popitem(last=False)
        return prepared

    def _prepare(
        self,
        sparql: str,
        view: DatasetView,
        default_graph: Sequence[str] | None,
        named_graphs: Sequence[str] | None,
        base_iri: str | None,
        services: Sequence[str],
        view_graphs: tuple[str | None, ...],
    ) -> PreparedQuery:
        source = read(sparql, base_iri=base_iri)
        check_endpoints(source.services(), services, what="SERVICE")
        for graph in (*(default_graph or ()), *(named_graphs or ())):
            _graph_node(graph)
        if default_graph is not None:
            dataset = QueryDataset(default_graph=tuple(default_graph), named_graphs=_tuple(named_graphs))
        elif named_graphs is not None:
            # a dataset given by named graphs alone has an empty default graph
            dataset = QueryDataset(default_graph=(), named_graphs=tuple(named_graphs))
        elif source.has_dataset_clause():
            dataset = QueryDataset()  # the query's FROM / FROM NAMED say what its dataset is
        elif view is DatasetView.CURRENT:
            dataset = QueryDataset(default_graph=view_graphs)
        elif view is DatasetView.ALL:
            dataset = QueryDataset(union=True)
        else:
            dataset = QueryDataset(default_graph=(None,))
        if dataset.named_graphs is None and view_graphs[-1] == CURRENT_VIEW.value:
            source = source.without_graph(CURRENT_VIEW.value)  # GRAPH ?g ranges over data graphs only
        return PreparedQuery(source=source, dataset=dataset, base_iri=base_iri)

    def update(
        self,
        sparql: str,
        *,
        using_graphs: Sequence[str] = (),
        using_named_graphs: Sequence[str] = (),
        base_iri: str | None = None,
        services: Sequence[str] = (),
        loads: Sequence[str] = (),
    ) -> None:
        """Run a SPARQL 1.1 update in one transaction, on the default graph and graphs of your
        own. Source graphs and the catalog change only by ingest: an update that would write
        one is refused with :class:`~provgraph.errors.WriteRefusedError` and changes nothing.
        ``using_graphs``/``using_named_graphs`` act as the protocol's using-graph-uri and
        using-named-graph-uri. ``LOAD`` may fetch only the IRIs in ``loads`` and ``SERVICE`` call
        only the endpoints in ``services`` (none by default)."""
        plan = plan_update(
            sparql,
            base_iri=base_iri,
            using_graphs=using_graphs,
            using_named_graphs=using_named_graphs,
            services=services,
            loads=loads,
        )
        has_sources = bool(plan.any_graph) and bool(catalog.catalogued_graphs(self._backend))
        check_policy(plan, has_source_graphs=has_sources)
        text = plan.text
        if plan.source is not None and current_view.is_maintained(self._backend):
            text = plan.source.without_graph(CURRENT_VIEW.value).text  # WHERE's GRAPH ?g: data graphs only
        try:
            self._backend.update(text, base_iri=base_iri)
        except QuerySyntaxError as exc:
            raise translate_error(exc, plan.source) from exc

    # ------------------------------------------------------------------ whole graphs (Graph Store)

    def graph_exists(self, graph: str | None) -> bool:
        """Whether the named graph ``graph`` is in the store (it may be empty). ``None`` is the
        store's own default graph, which always exists."""
        if graph is None:
            return True
        return self._backend.ask(GRAPH_EXISTS, substitutions={"g": _graph_node(graph)})

    def read_graph(
        self,
        graph: str | None,
        *,
        format: ExportFormat = ExportFormat.TURTLE,  # noqa: A002
        output: IO[bytes] | None = None,
    ) -> bytes | None:
        """Serialise one graph exactly as stored: a named graph by IRI, or (``None``) the store's
        own default graph, where plain SPARQL updates write. Unlike :meth:`export` the IRI is
        taken literally (no document keys). Raises :class:`~provgraph.errors.NotFoundError` for a
        named graph the store does not have."""
        if isinstance(format, str):
            format = ExportFormat(format)  # noqa: A001
        if not self.graph_exists(graph):
            raise NotFoundError(f"no graph <{graph}> in the store")
        target: IO[bytes] = output if output is not None else io.BytesIO()
        _dump(self._backend, target, format, graph=DefaultGraph() if graph is None else _graph_node(graph))
        if output is None:
            assert isinstance(target, io.BytesIO)
            return target.getvalue()
        return None

    def replace_graph(
        self,
        graph: str | None,
        data: bytes | Sequence[tuple[bytes, InputFormat]],
        *,
        format: InputFormat | None = None,  # noqa: A002
        base_iri: str | None = None,
    ) -> bool:
        """Make ``graph`` (an IRI; ``None``: the store's default graph) hold exactly the RDF in
        ``data`` (bytes in ``format``, or several ``(bytes, format)`` parts), in one transaction.
        Source graphs and the catalog change only by ingest: writing one raises
        :class:`~provgraph.errors.WriteRefusedError`. Returns True when the graph was created."""
        return self._write_graph(graph, data, format, base_iri, replace=True)

    def add_to_graph(
        self,
        graph: str | None,
        data: bytes | Sequence[tuple[bytes, InputFormat]],
        *,
        format: InputFormat | None = None,  # noqa: A002
        base_iri: str | None = None,
    ) -> bool:
        """Merge the RDF in ``data`` into ``graph`` (created if missing), in one transaction, with
        the same rules as :meth:`replace_graph`. Blank nodes of the data are new nodes, never
        ones already in the graph. Returns True when the graph was created."""
        return self._write_graph(graph, data, format, base_iri, replace=False)

    def drop_graph(self, graph: str | None) -> None:
        """Remove the named graph ``graph`` (:class:`~provgraph.errors.NotFoundError` if there is
        none), or, for ``None``, empty the store's default graph, which always exists. Source
        graphs and the catalog are refused as in :meth:`replace_graph`."""
        _check_graph_write(graph)
        if graph is None:
            self._backend.update("CLEAR SILENT DEFAULT")
            return
        try:
            # not SILENT: Oxigraph's check that the graph exists is part of the transaction
            self._backend.update(f"DROP GRAPH {_graph_node(graph)}")
        except QueryError as exc:
            if "does not exist" in exc.reason:
                raise NotFoundError(f"no graph <{graph}> in the store") from None
            raise

    def _write_graph(
        self,
        graph: str | None,
        data: bytes | Sequence[tuple[bytes, InputFormat]],
        fmt: InputFormat | None,
        base_iri: str | None,
        *,
        replace: bool,
    ) -> bool:
        _check_graph_write(graph)
        if isinstance(data, bytes | bytearray | memoryview):
            if fmt is None:
                raise UnsupportedFormatError("say which RDF format the data is in")
            parts: Sequence[tuple[bytes, InputFormat]] = [(bytes(data), fmt)]
        else:
            parts = data
        parts = [(body, InputFormat(part_format)) for body, part_format in parts]
        # Parsed before anything is written: bad data changes nothing.
        texts = []
        for number, (body, part_format) in enumerate(parts, 1):
            try:
                texts.append(_ntriples(body, part_format, base_iri))
            except InputError as exc:
                if len(parts) == 1:
                    raise
                raise InputError(f"part {number}: {exc.reason}", line=exc.line, column=exc.column) from None
        triples = "".join(texts)
        self._backend.begin_write()
        existed = self.graph_exists(graph)
        if graph is None:
            clear, target = "CLEAR SILENT DEFAULT ;\n", "{ " + triples + " }"
            create = ""
        else:
            name = str(_graph_node(graph))
            clear = f"DROP SILENT GRAPH {name} ;\n"
            # an empty PUT still makes the graph exist, as the Graph Store Protocol expects
            create = f"CREATE SILENT GRAPH {name} ;\n"
            target = f"{{ GRAPH {name} {{ {triples} }} }}"
        # One update, one Oxigraph transaction; INSERT DATA makes every blank node a new one.
        self._backend.update((clear if replace else "") + create + "INSERT DATA " + target)
        return not existed

    def evidence(
        self,
        subject: str | NamedNode | BlankNode,
        predicate: str | NamedNode,
        obj: str | NamedNode | BlankNode | Literal | None = None,
        *,
        include_history: bool = False,
    ) -> list[Evidence]:
        """Every statement, across current source graphs, that supports ``subject predicate
        obj``: with its document, passage, confidence, method and time.

        ``obj`` may be an IRI, a pyoxigraph ``Literal``, an N-Triples literal, or a plain value
        matching the lexical form of any literal; without ``obj`` every value of the predicate is
        returned, which shows where sources disagree. A revoked statement
        (:meth:`revoke_statement`) is left out. ``include_history`` adds superseded and revoked
        versions, and revoked statements with the status ``revoked``.
        """
        s = _evidence.parse_object(subject) if isinstance(subject, str) else subject
        p = _evidence.parse_object(predicate) if isinstance(predicate, str) else predicate
        if not isinstance(s, NamedNode | BlankNode):
            raise InputError(f"subject must be an IRI, not {subject!r}")
        if not isinstance(p, NamedNode):
            raise InputError(f"predicate must be an IRI, not {predicate!r}")
        o = _evidence.parse_object(obj) if isinstance(obj, str) else obj
        if isinstance(o, BlankNode):
            raise InputError("the object must be an IRI or a literal: blank nodes are local to their document")
        return self._annotate_evidence(_evidence.find(self._backend, s, p, o, include_history=include_history))

    def names(self, entity: str | NamedNode) -> list[Evidence]:
        """The other names current sources give ``entity`` (``pg:alias`` statements: "World
        Health Organization (WHO)", "also known as ..."), each with its evidence. They are what
        text extraction merges names by: a later text's "WHO" is this entity because a source
        said so, with the document, passage and confidence shown here."""
        return self.evidence(entity, NamedNode(PG_NS + "alias"))

    def stats(self) -> StoreStats:
        (row,) = self._backend.select(STATS)
        (quads,) = self._backend.select(EXPORTED_QUADS)
        return StoreStats(
            documents=row.optional_integer("docs") or 0,
            graphs=row.optional_integer("graphs") or 0,
            current_graphs=row.optional_integer("current") or 0,
            statements=row.optional_integer("statements") or 0,
            quads=quads.optional_integer("n") or 0,
        )

    # ------------------------------------------------------------------ export / restore

    def export(
        self,
        *,
        format: ExportFormat = ExportFormat.TRIG,  # noqa: A002
        graph: str | None = None,
        output: IO[bytes] | None = None,
    ) -> bytes | None:
        """Serialise the whole dataset (TriG, N-Quads, JSON-LD: every named graph, the catalog
        included) or one graph (any format; Turtle, N-Triples and RDF/XML need ``graph``).
        Writes to ``output`` or returns the bytes."""
        if isinstance(format, str):
            format = ExportFormat(format)  # noqa: A001
        target: IO[bytes] = output if output is not None else io.BytesIO()
        if graph is None:
            if not format.supports_datasets:
                raise UnsupportedFormatError(
                    f"{format.value} holds one graph: pass a graph (a source graph IRI, a document key, "
                    f"or 'catalog'), or export the dataset as trig, nquads or jsonld"
                )
            # the view is derived (rebuilt on restore) and the change log is this store's own: a restored
            # store starts its log over with a reset
            _dump(self._backend, target, format, exclude=(CURRENT_VIEW, CHANGES_GRAPH))
        else:
            _dump(self._backend, target, format, graph=self._resolve_graph(graph))
        if output is None:
            assert isinstance(target, io.BytesIO)
            return target.getvalue()
        return None

    def _resolve_graph(self, graph: str) -> NamedNode:
        if graph == "catalog":
            return CATALOG_GRAPH
        try:
            node = NamedNode(graph)
        except ValueError:
            node = None  # not an IRI: a document key such as an --id or a file path
        if node is not None and any(True for _ in self._backend.quads(None, None, None, node)):
            return node
        try:
            info = self.source(graph)
        except NotFoundError:
            raise NotFoundError(f"no graph or document {graph!r} in the store") from None
        latest = info.current_graph or info.versions[0].graph
        return NamedNode(latest)

    def restore(self, path: str | os.PathLike[str], *, format: InputFormat | None = None) -> int:  # noqa: A002
        """Load a dataset exported with :meth:`export` (TriG, N-Quads or JSON-LD) into this
        store, which must be empty. Returns the number of source graphs restored."""
        source = Path(path)
        fmt = format or InputFormat.from_path(source)
        if fmt is None or fmt not in (InputFormat.TRIG, InputFormat.NQUADS, InputFormat.JSONLD):
            raise UnsupportedFormatError("restore reads trig, nquads or jsonld dumps", file=str(source))
        if any(True for _ in self._backend.quads()):
            raise StoreNotEmptyError("restore needs an empty store; this one has data")
        if not source.is_file():
            raise InputError("no such file", file=str(source))
        self._backend.load_dataset(source, _INPUT_RDF[fmt])
        current_view.rebuild(self._backend)
        self._backend.update(changes.record(reset=True), prefixes=PREFIXES)
        return len(catalog.catalogued_graphs(self._backend))

    def export_prov(
        self,
        graph: str | None = None,
        *,
        answer: str | None = None,
        fact: tuple[str, str, str] | None = None,
        format: ProvFormat | str = ProvFormat.PROVJSON,  # noqa: A002
    ) -> bytes:
        """The provenance of one source graph, of a ``fact`` (subject, predicate, object, as
        :meth:`evidence` reads them: every current statement of it, from every source), or of a
        recorded ``answer``, as a W3C PROV document: PROV-JSON (the default), PROV-N, PROV-XML
        (built with the ``prov`` package), or a picture of it (Graphviz DOT, or SVG drawn by
        Graphviz: :mod:`provgraph.provdot`).

        ``graph`` is a document key or IRI (its current version, else its newest) or a source
        graph IRI. The document and each statement are entities, the extraction an activity with
        its agents; statements were derived from the document (and from the passage they were
        read from) and generated by the activity; passages were quoted from the document. An
        answer (by id or a unique prefix) is its record: the answer, its claims and draft, the
        generation and verification, the context's segments and their sources."""
        # Imported here: the prov package is needed by this export alone, not by every command.
        from provgraph import provexport

        try:
            fmt = ProvFormat(format)
        except ValueError:
            allowed = ", ".join(f.value for f in ProvFormat)
            raise UnsupportedFormatError(f"PROV export writes {allowed}, not {format!r}") from None
        if sum(x is not None for x in (graph, answer, fact)) != 1:
            raise InputError("PROV export is of one source graph, one fact or one answer: give one of them")
        if fact is not None:
            document = provexport.fact_document(self._backend, self._fact_statements(fact))
        elif answer is not None:
            recorded = self.answer(answer)
            document = provexport.answer_document(self._backend, _record.answer_iri(recorded.id))
        else:
            document = provexport.prov_document(self._backend, self._resolve_graph(graph or ""))
        return provexport.serialize(document, fmt)

    def export_nanopubs(self, graph: str | None = None, *, fact: tuple[str, str, str] | None = None) -> bytes:
        """One source graph, or a ``fact``'s evidence in every current source, as
        nanopublications in TriG (:mod:`provgraph.nanopub_export`).

        A statement read from a nanopublication goes out as that nanopublication, as published:
        its trusty URI and signature still verify. Any other statement becomes a new trusty
        nanopublication (unsigned): the triple as its assertion, its source, extraction and
        passage as provenance, its time and provgraph in the publication info.

        >>> from provgraph import IngestOptions, ProvGraph
        >>> pg = ProvGraph.memory()
        >>> _ = pg.ingest("data/examples/aspirin.ttl", IngestOptions(url="https://example.org/aspirin"))
        >>> trig = pg.export_nanopubs(fact=("http://example.org/aspirin", "http://example.org/treats",
        ...                                 "http://example.org/headache"))
        >>> b"<https://example.org/aspirin>" in trig and trig.count(b"a np:Nanopublication")
        1
        >>> pg.close()
        """
        from provgraph import nanopub_export

        if (graph is None) == (fact is None):
            raise InputError("nanopublication export is of one source graph or one fact: give one of them")
        if fact is not None:
            nanopubs = nanopub_export.fact_nanopubs(self._backend, self._fact_statements(fact))
        else:
            nanopubs = nanopub_export.source_nanopubs(self._backend, self._resolve_graph(graph or ""))
        return nanopub_export.write(nanopubs)

    def _fact_statements(self, fact: tuple[str, str, str]) -> list[tuple[str, str]]:
        """The (statement, graph) pairs of a fact's evidence in every current source, or
        :class:`NotFoundError` when no current source states it."""
        found = self.evidence(*fact)
        if not found:
            raise NotFoundError(f"no current source states {' '.join(fact)}")
        return [(e.statement, e.graph) for e in found]

    # ------------------------------------------------------------------ trust: ontology, conflicts, confidence

    def add_ontology(self, path: str | os.PathLike[str], *, format: InputFormat | None = None) -> int:  # noqa: A002
        """Add an ontology, policy file or SHACL shapes (any RDF syntax) to the ontology graph
        ``pgid:ontology``: what predicates mean (functional, disjoint, tolerances, case,
        aliases, strategies, decay; see :mod:`provgraph.trust.policy`). The graph is not a source
        document; it is exported with the rest. Returns the number of triples in the file."""
        source = Path(path)
        fmt = InputFormat(format) if format is not None else InputFormat.from_path(source)
        if fmt is None:
            raise UnsupportedFormatError("say which RDF format the ontology is in", file=str(source))
        if not source.is_file():
            raise InputError("no such file", file=str(source))
        try:
            triples = _ntriples(source.read_bytes(), fmt, source.resolve().as_uri())
        except InputError as exc:
            raise InputError(exc.reason, file=str(source), line=exc.line, column=exc.column) from None
        self._backend.begin_write()
        self._backend.update(
            "INSERT DATA { GRAPH pgid:ontology { pgid:ontology a pg:OntologyGraph . "
            + triples
            + " } } ;\n"
            + changes.record(ontology=True),
            prefixes=PREFIXES,
        )
        return triples.count("\n")

    def detect_conflicts(
        self, *, strategy: ResolutionStrategy | str | None = None, predicates: Sequence[str] | None = None
    ) -> DetectionReport:
        """Detect conflicts across the current source graphs (functional predicates, disjoint
        predicates, numbers beyond tolerance, after entity resolution), resolve each with
        ``strategy`` (default: each predicate's declared strategy, else source trust) and
        rewrite the conflict records graph ``pgid:conflicts``. Losing values are marked, never
        deleted. ``predicates`` (IRIs) are checked as functional instead of the ontology's."""
        chosen = ResolutionStrategy(strategy) if strategy is not None else None
        report, _ = _run_conflicts(self._backend, strategy=chosen, predicates=predicates)
        return report

    def resolve(self, strategy: ResolutionStrategy | str) -> DetectionReport:
        """Re-detect and record every conflict resolved with ``strategy``."""
        return self.detect_conflicts(strategy=strategy)

    def conflicts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        strategy: ResolutionStrategy | str | None = None,
    ) -> list[Conflict]:
        """The conflicts across current sources (about ``subject``, with ``predicate``), each with
        every competing value, its sources and statements, the preferred value and the rationale.
        Detection runs first when sources or the ontology changed since the last run. With
        ``strategy`` the values are ranked by it for this answer only."""
        chosen = ResolutionStrategy(strategy) if strategy is not None else None
        subject = _iri(subject, "subject") if subject is not None else None
        predicate = _iri(predicate, "predicate") if predicate is not None else None
        return _conflicts(self._backend, subject=subject, predicate=predicate, strategy=chosen)

    def chain(
        self, subject: str, predicates: Sequence[str], *, obj: str | None = None, mode: ChainMode = ChainMode.WEAKEST
    ) -> list[ChainReport]:
        """Multi-hop chains from ``subject`` along ``predicates`` (A treats B, B subClassOf C: A may
        help C), each hop with its provenance; a chain's confidence is its weakest hop's
        (:attr:`ChainMode.WEAKEST`) or the product of its hops' (:attr:`ChainMode.PRODUCT`)."""
        _iri(subject, "subject")
        for predicate in predicates:
            _iri(predicate, "predicate")
        if obj is not None:
            _iri(obj, "object")
        return _chains(self._backend, subject, predicates, obj=obj, mode=mode)

    def _annotate_evidence(self, found: list[Evidence]) -> list[Evidence]:
        """Evidence with its fact's aggregated confidence and status."""
        return _annotate(self._backend, found)

    # ------------------------------------------------------------------ trust: document relationships

    def refresh_relationships(self) -> list[DocumentRelation]:
        """Recompute the relationships between current source documents (citations, mentions of
        titles, identifiers and URLs, shared entities; see :mod:`provgraph.trust.relations`) and
        replace the relations graph ``pgid:relations`` with them. Strongest first."""
        return _relations.refresh(self._backend)

    def related_documents(self, document: str | None = None, *, min_strength: float = 0.0) -> list[DocumentRelation]:
        """The relationships of ``document`` (key or IRI; ``None``: every relationship) with at least
        ``min_strength``, strongest first. They are refreshed first when the current sources changed
        since the last refresh (on a store that cannot be written, computed for this answer only)."""
        iri = self.source(document).document if document is not None else None
        return _relations.relationships(self._backend, document=iri, min_strength=min_strength)

    # ------------------------------------------------------------------ derived records

    def refresh_records(self, records: Collection[DerivedRecords] = tuple(DerivedRecords)) -> bool:
        """Bring ``records`` up to date with the current sources and store them, each only when it
        is behind (what :meth:`conflicts`, :meth:`related_documents` and :meth:`ask` do first):
        each catches up with the changes since it was stored (:mod:`provgraph.store.derived`).
        True when the store was written. A server runs this in the background after changes, so
        that readers of a checkpoint find the records current instead of computing the catch-up
        for every answer."""
        generation = self._backend.generation
        if DerivedRecords.CONFLICTS in records:
            _refresh_conflicts(self._backend)
        if DerivedRecords.RELATIONS in records:
            _relations.catch_up(self._backend)
        if DerivedRecords.INDEX in records:
            self._lexical().index.sync(self._backend)
        return generation is None or self._backend.generation != generation

    # ------------------------------------------------------------------ grounded answers

    def retrieve(self, question: str, *, filters: AskFilters | None = None, limit: int = 30) -> EvidencePack:
        """The evidence for ``question``: linked entities, matching passages, the facts about the
        entities with their sources, confidence and status, the conflicts involving them and the
        relations of the documents found; numbered, scored, with content-addressed ids. Only
        current sources are searched (see :mod:`provgraph.answer.retrieve`)."""
        if not question.strip():
            raise InputError("the question is empty")
        with _derived.pinned(self._backend):
            return self._lexical().retrieve(question, filters=filters, limit=limit)

    def _lexical(self) -> Retriever:
        """The retriever and its lexical index, made at first use."""
        if self._retriever is None:
            self._retriever = Retriever(self._backend, index_directory=self._index_directory)
        return self._retriever

    def ask(
        self,
        question: str,
        *,
        generator: Generator | GeneratorKind | None = None,
        filters: AskFilters | None = None,
        detail: Detail = Detail.BRIEF,
        session: str | None = None,
        derived_from: Sequence[str] = (),
        record: bool = True,
    ) -> GroundedAnswer:
        """Answer ``question`` from the store: retrieve evidence, draft an answer with
        ``generator`` (default: the offline extractive one) and verify every claim against the
        evidence it cites. Claims the evidence does not support are removed; when too little
        survives, the answer abstains (``confidence == "insufficient_evidence"``).

        The answer is recorded in the store with the context it was built from (its own graph,
        see :meth:`answer`), and its ``id`` names the record; ``record=False`` leaves no trace.
        Answers of the same ``session`` are chained in order (:meth:`answers`). ``derived_from``
        names recorded answers the question was built from (a pipeline that asks about what an
        earlier answer said): revoking a source of those invalidates this one too.

        >>> pg = ProvGraph.memory()
        >>> note = IngestOptions(title="Aspirin note", url="https://example.org/note")
        >>> _ = pg.ingest("data/examples/aspirin-note.md", note)
        >>> answer = pg.ask("What does aspirin reduce?")
        >>> answer.confidence.value, answer.references[0].title
        ('high', 'Aspirin note')
        >>> pg.answer(answer.id).segments[0].content  # what the generator was shown first
        'It also reduces fever.'
        >>> pg.ask("Who composed the Moonlight Sonata?", record=False).abstained
        True
        """
        composed = self.compose(
            question, generator=generator, filters=filters, detail=detail, session=session, derived_from=derived_from
        )
        return self.record(composed) if record else composed.answer

    def compose(
        self,
        question: str,
        *,
        generator: Generator | GeneratorKind | None = None,
        filters: AskFilters | None = None,
        detail: Detail = Detail.BRIEF,
        session: str | None = None,
        derived_from: Sequence[str] = (),
        policy: Policy | None = None,
    ) -> Composed:
        """:meth:`ask` without writing: the answer and everything its record holds (the context
        the generator was shown, the generator's and the verifier's work), for :meth:`record`.
        A server composes in a query worker and records in the process that writes. The store's
        context policy (:meth:`add_policy`) runs on the evidence before the generator sees it;
        ``policy`` runs other rules instead (a what-if)."""
        _record.check_session(session)
        derived_from = [_record.resolve_id(self._backend, a) for a in derived_from]
        if isinstance(generator, GeneratorKind):
            generator = build_generator(generator)
        with _derived.pinned(self._backend):  # one store state for the whole answer
            pack = self.retrieve(question, filters=filters)
            rules = policy if policy is not None else self.policy()
            return _recording.compose(
                pack,
                generator=generator,
                detail=detail,
                filters=filters,
                session=session,
                derived_from=derived_from,
                policy=rules,
                publishers=_policy.publishers(self._backend, pack.items) if rules.needs_publishers else None,
            )

    def record(self, composed: Composed) -> GroundedAnswer:
        """Record a composed answer in the store (see :mod:`provgraph.answer.record`): its own
        graph, validated with ``shapes/answer.ttl``, and an entry of the answer log. Returns the
        answer with its ``id``."""
        return _recording.write(self._backend, composed)

    def answers(
        self, *, session: str | None = None, invalidated: bool | None = None, limit: int = 100
    ) -> list[AnswerSummary]:
        """Recorded answers, newest first; a ``session``'s in order."""
        return _record.summaries(self._backend, session=session, invalidated=invalidated, limit=limit)

    def answer(self, answer_id: str) -> RecordedAnswer:
        """A recorded answer (by id, IRI or a unique prefix of at least 8 hex digits) with the
        context it was built from, segment by segment."""
        return _record.read(self._backend, answer_id)

    def replay(self, answer_id: str, *, at: datetime | None = None) -> Replay:
        """Rebuild the context an answer was built from, from its record alone (never from
        today's store, whose sources may have changed or been revoked): the segments in order,
        each with its hash checked, the evidence pack, and for a model the chat messages as sent.
        ``at`` adds the answer's session as it stood at that time (UTC when it names no zone)."""
        if at is not None and at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        return _replay.replay(self._backend, self.answer(answer_id), at=at)

    def rerun(
        self,
        answer_id: str,
        *,
        generator: Generator | GeneratorKind | None = None,
        policy: Policy | None = None,
        record: bool = False,
    ) -> AnswerDiff:
        """What-if: ask a recorded answer's question again, with its filters, over today's store
        (with ``generator``, default the one that drafted it, configured from the environment;
        under ``policy``, default the store's current rules), and compare: claims kept, gone and
        new, citations changed, confidence. ``record=True`` records the re-ask as superseding the
        earlier answer."""
        before = self.answer(answer_id)
        if generator is None:
            kind = GeneratorKind.OPENAI if before.generator.startswith("openai:") else GeneratorKind.EXTRACTIVE
            params = before.generator_parameters
            generator = build_generator(kind, model=params.get("model"), base_url=params.get("base_url"))
        composed = self.compose(before.question, generator=generator, filters=before.filters, policy=policy)
        after = self.record(composed.model_copy(update={"supersedes": before.id})) if record else composed.answer
        return _replay.diff(before, after)

    def policy(self) -> Policy:
        """The current version of the store's context policy (no rules when none was added)."""
        generation = self._backend.generation
        if generation is not None and self._policy_cache is not None and self._policy_cache[0] == generation:
            return self._policy_cache[1]
        found = _policy.current(self._backend)
        self._policy_cache = (generation, found) if generation is not None else None
        return found

    def add_policy(self, path: str | os.PathLike[str], *, format: InputFormat | None = None) -> Policy:  # noqa: A002
        """Add the context policy rules of a file (Turtle, or any RDF syntax; see
        :mod:`provgraph.answer.policy`) as a new version of the rule set: validated with
        ``shapes/policy.ttl`` (a rule that does not conform raises
        :class:`~provgraph.errors.ValidationFailedError` naming it, a file that does not parse an
        :class:`~provgraph.errors.InputError` with its line), nothing written unless all conform."""
        source = Path(path)
        lines = _policy.check(self._rule_triples(source, format), file=str(source))
        return _policy.add(self._backend, lines, source=source.name, now=datetime.now(UTC))

    def read_policy(self, path: str | os.PathLike[str], *, format: InputFormat | None = None) -> Policy:  # noqa: A002
        """The rules of a policy file, validated, as a rule set of their own (not stored): for
        :meth:`compose` or :meth:`rerun` under other rules."""
        source = Path(path)
        lines = _policy.check(self._rule_triples(source, format), file=str(source))
        return _policy.of_lines(lines, name=source.resolve().as_uri())

    @staticmethod
    def _rule_triples(source: Path, fmt: InputFormat | None) -> str:
        chosen = InputFormat(fmt) if fmt is not None else InputFormat.from_path(source)
        if chosen is None:
            raise UnsupportedFormatError("say which RDF format the policy is in", file=str(source))
        if not source.is_file():
            raise InputError("no such file", file=str(source))
        try:
            return _ntriples(source.read_bytes(), chosen, source.resolve().as_uri())
        except InputError as exc:
            raise InputError(exc.reason, file=str(source), line=exc.line, column=exc.column) from None

    def answer_metrics(self, *, since: date | None = None, until: date | None = None) -> AnswerMetrics:
        """How the recorded answers held up, day by day (UTC) from ``since`` to ``until`` (both
        included; default the 30 days up to today): claim coverage (drafted claims the verifier
        kept), citation resolution (drafted citations naming evidence the generator was shown),
        removed claims by reason, abstentions, answers by confidence, invalidated answers; and the
        latest stored evaluation run (:meth:`record_evaluation`).

        >>> from datetime import date
        >>> with ProvGraph.memory() as graph:
        ...     figures = graph.answer_metrics(since=date(2026, 1, 1), until=date(2026, 1, 31))
        >>> figures.total.answers, figures.total.abstention_rate, figures.evaluation
        (0, None, None)
        """
        until = until or datetime.now(UTC).date()
        since = since or until - timedelta(days=29)
        if since > until:
            raise InputError(f"the span of days is empty: since {since} is after until {until}")
        return _metrics.metrics(self._backend, since=since, until=until)

    def record_evaluation(self, with_gold: EvalReport, without_gold: EvalReport, *, dataset: str) -> str:
        """Store the figures of an evaluation run (``provgraph eval --record``; the per-question
        results are left out) for the answer dashboard; returns its id."""
        return _metrics.record_evaluation(self._backend, with_gold, without_gold, dataset=dataset)

    def audit(self) -> AuditReport:
        """Recompute the hash of every record of every recorded answer: a record whose triples
        were changed behind the store's back no longer matches its IRI."""
        return _record.audit(self._backend)

    def verify(
        self, draft: DraftAnswer, pack: EvidencePack, *, generator: str = "external", detail: Detail = Detail.BRIEF
    ) -> GroundedAnswer:
        """Verify an answer drafted elsewhere (by a model of the caller's, say) against the evidence
        pack it was drafted from (:meth:`retrieve`), as :meth:`ask` verifies its own drafts: a claim
        the evidence it cites does not support is removed or downgraded, with reason codes, and the
        confidence follows from what survives. ``generator`` names the drafter in the answer. The
        pack is the whole evidence: the store is not read."""
        return _verification.verify(draft, pack, generator=generator, detail=detail)

    @staticmethod
    def build_generator(kind: GeneratorKind, *, model: str | None = None, base_url: str | None = None) -> Generator:
        """The generator of ``kind``, for :meth:`ask`: the offline extractive one, or a client of
        an OpenAI-compatible server configured from the environment (``$PROVGRAPH_LLM_MODEL``,
        ``$PROVGRAPH_LLM_BASE_URL``, ``$PROVGRAPH_LLM_API_KEY``), ``model`` and ``base_url``
        overriding it. ``ask(generator=kind)`` builds one from the environment alone; this one is
        for callers that override it (the command line's ``--model``, ``--base-url``)."""
        return build_generator(kind, model=model, base_url=base_url)


#: The default graph of the current view on a store that keeps one.
_VIEW_DATASET: tuple[str | None, ...] = (None, CURRENT_VIEW.value)
_VIEW_ONLY: tuple[str | None, ...] = (CURRENT_VIEW.value,)


def _tuple(values: Sequence[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def _iri_or_none(value: str) -> NamedNode | None:
    try:
        return NamedNode(value)
    except ValueError:
        return None


def _iri(value: str, what: str) -> str:
    """``value`` checked to be an absolute IRI (a request's subject, predicate, ...)."""
    if _iri_or_none(value) is None:
        raise InputError(f"the {what} must be an absolute IRI, not {value!r}")
    return value


def _graph_node(graph: str) -> NamedNode:
    try:
        return NamedNode(graph)
    except ValueError:
        raise InputError(f"not a graph IRI: {graph!r}") from None


def _check_graph_write(graph: str | None) -> None:
    """The update policy, for a write of the whole graph ``graph`` (``None``: the default graph)."""
    graphs = set() if graph is None else {_graph_node(graph).value}
    plan = UpdatePlan(text="", graphs=graphs, default_graph=graph is None)
    check_policy(plan, has_source_graphs=False)


def _ntriples(data: bytes, fmt: InputFormat, base_iri: str | None) -> str:
    """The triples of one RDF document as N-Triples (which is also SPARQL's triple syntax)."""
    if not fmt.is_rdf:
        raise UnsupportedFormatError(f"{fmt.value} is not an RDF syntax; a graph takes RDF")
    # the same bounds as ingest: a Graph Store write or an ontology must not blow up the server
    rdf_format = _INPUT_RDF.get(fmt, RdfFormat.N_QUADS)
    if fmt is InputFormat.RDFXML:
        check_xml(data, None)
    elif fmt is InputFormat.JSONLD:
        check_json_depth(data, None)
    elif fmt is InputFormat.TRIX:
        check_xml(data, None)
        data = trix_to_nquads(data, None)
    try:
        quads = list(parse(data, format=rdf_format, base_iri=base_iri, rename_blank_nodes=True))
    except SyntaxError as exc:
        line, column = exc.lineno, exc.offset
        message = str(exc.msg or exc)
        reason = message.split(": ", 1)[1] if message.startswith("Parser error") and ": " in message else message
        where = f" at line {line}, column {column}" if line is not None and column is not None else ""
        raise InputError(f"not valid {fmt.value}{where}: {reason}", line=line, column=column) from None
    except ValueError as exc:
        raise InputError(f"cannot parse as {fmt.value}: {exc}") from None
    for quad in quads:
        if not isinstance(quad.graph_name, DefaultGraph):
            raise InputError(
                f"the data puts triples in the named graph {quad.graph_name}; the content of one graph cannot "
                "name graphs (send Turtle, N-Triples, RDF/XML or JSON-LD, or TriG/N-Quads without graph names)"
            )
    text = serialize([q.triple for q in quads], format=RdfFormat.N_TRIPLES)
    assert text is not None
    return text.decode("utf-8")


__all__ = ["DEFAULT_STORE_DIR", "DEFAULT_STORE_ENV", "ProvGraph", "default_store_path"]
