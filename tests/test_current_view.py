"""The current view (pgid:current) is always the union of the current source graphs: after new
documents, new versions, revocations, bulk writes and interrupted writes; queries over it see what
they saw over the list of current graphs, and GRAPH ?g never shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, Literal, NamedNode, Quad, RdfFormat

from helpers import DEFAULT_GRAPH_OF_A_SERVER, EXAMPLES, GRAPHS_OF_A_SERVER
from provgraph import DatasetView, ExportFormat, GraphSplit, IngestOptions, ProvGraph, ProvGraphError
from provgraph.ingest import pipeline
from provgraph.store import catalog, view
from provgraph.vocab import CATALOG_GRAPH, CHANGES_GRAPH, CURRENT_VIEW, PG, PROV_NS

EX = "http://example.org/"


def _triples(pg: ProvGraph, graph) -> set[tuple[str, str, str]]:
    return {(str(q.subject), str(q.predicate), str(q.object)) for q in pg.backend.quads(None, None, None, graph)}


def _assert_view_is_the_union_of_current_sources(pg: ProvGraph) -> None:
    union: set[tuple[str, str, str]] = set()
    for graph in pg.current_graphs():
        union |= _triples(pg, graph)
    assert _triples(pg, CURRENT_VIEW) == union
    assert view.is_maintained(pg.backend)


def _has_pending_marks(pg: ProvGraph) -> bool:
    return bool(pg.query(f"ASK {{ GRAPH <{CATALOG_GRAPH.value}> {{ ?c <{PG.pendingView.value}> ?g }} }}"))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_new_documents_versions_and_revocations_keep_the_view_exact(pg, tmp_path):
    a1 = _write(tmp_path / "a1.ttl", f"<{EX}aspirin> <{EX}treats> <{EX}headache> , <{EX}fever> .")
    b = _write(tmp_path / "b.ttl", f"<{EX}aspirin> <{EX}treats> <{EX}headache> . [] <{EX}label> 'x' .")
    a2 = _write(tmp_path / "a2.ttl", f"<{EX}aspirin> <{EX}treats> <{EX}headache> , <{EX}pain> .")
    pg.ingest(a1, IngestOptions(id="a", title="A"))
    _assert_view_is_the_union_of_current_sources(pg)
    pg.ingest(b, IngestOptions(id="b", title="B"))
    _assert_view_is_the_union_of_current_sources(pg)
    pg.ingest(a2, IngestOptions(id="a", title="A again"))  # fever leaves, pain comes, the title changes
    _assert_view_is_the_union_of_current_sources(pg)
    seen = {t for _, _, t in _triples(pg, CURRENT_VIEW)}
    assert f"<{EX}pain>" in seen and f"<{EX}fever>" not in seen
    assert '"A"' not in seen and '"A again"' in seen  # the document's old title left the view
    pg.revoke("b", reason="test")  # headache is still stated by a's current version
    _assert_view_is_the_union_of_current_sources(pg)
    assert (f"<{EX}aspirin>", f"<{EX}treats>", f"<{EX}headache>") in _triples(pg, CURRENT_VIEW)
    pg.revoke("a", reason="test")
    assert _triples(pg, CURRENT_VIEW) == set()


@pytest.mark.parametrize("lazy_lock", [False, True], ids=["locked", "lazy-lock"])
def test_one_open_store_shows_every_write_in_its_next_reads(tmp_path: Path, lazy_lock: bool) -> None:
    """current_graphs() and the default view are cached between writes on a store this process
    writes (a server keeps one open all its life): each new document, new version and revocation
    must show in the very next read of the same open store, and so must a plain SPARQL update,
    whether it holds the write lock from the start or takes it at its first write (``lazy_lock``,
    as the command line opens stores)."""
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(_write(tmp_path / "a.ttl", f"<{EX}a> <{EX}p> 1 ."), IngestOptions(id="a"))

    with ProvGraph.open(store, lazy_lock=lazy_lock) as pg:

        def seen() -> list[tuple[str, str]]:
            """The facts a default-view query finds, once current_graphs() is checked against
            the catalog's current version of each unrevoked source."""
            current = sorted(s.current_graph for s in pg.sources() if s.current_graph)
            assert sorted(g.value for g in pg.current_graphs()) == current
            rows = pg.query(f"SELECT ?s ?o WHERE {{ ?s <{EX}p> ?o }} ORDER BY ?s ?o").rows()
            return [(r["s"].value, r["o"].value) for r in rows]  # type: ignore[union-attr]

        assert seen() == [(f"{EX}a", "1")]
        pg.ingest(_write(tmp_path / "b.ttl", f"<{EX}b> <{EX}p> 1 ."), IngestOptions(id="b"))
        assert seen() == [(f"{EX}a", "1"), (f"{EX}b", "1")]
        pg.ingest(_write(tmp_path / "a.ttl", f"<{EX}a> <{EX}p> 2 ."), IngestOptions(id="a"))
        assert seen() == [(f"{EX}a", "2"), (f"{EX}b", "1")]
        pg.revoke("b", reason="test")
        assert seen() == [(f"{EX}a", "2")]
        assert len(pg.current_graphs()) == 1
        # a plain SPARQL update writes the store's own default graph, which joins the view
        pg.update(f"INSERT DATA {{ <{EX}c> <{EX}p> 3 }}")
        assert seen() == [(f"{EX}a", "2"), (f"{EX}c", "3")]
        pg.update(f"DELETE DATA {{ <{EX}c> <{EX}p> 3 }}")
        assert seen() == [(f"{EX}a", "2")]


@pytest.mark.parametrize("blank", [True, False], ids=["blank nodes", "no blank node"])
def test_a_bulk_written_document_goes_into_the_view(pg, tmp_path, monkeypatch, blank):
    """On a SPARQL server the view's copies of a graph without blank nodes are loaded from the
    ingest's spool after the commit, and those of a graph with blank nodes copied by the engine
    (a load names blank nodes anew): the view is the union of the sources either way."""
    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 2)  # the bulk loader's path, on small data
    obj = (lambda i: f"[ <{EX}r> {i} ]") if blank else (lambda i: f"<{EX}o{i}>")
    first = _write(tmp_path / "one.ttl", "".join(f"<{EX}s{i}> <{EX}p> {i} ; <{EX}q> {obj(i)} .\n" for i in range(5)))
    pg.ingest(first, IngestOptions(id="one"))
    _assert_view_is_the_union_of_current_sources(pg)
    second = _write(tmp_path / "two.ttl", "".join(f"<{EX}s{i}> <{EX}p> {i + 1} .\n" for i in range(5)))
    pg.ingest(second, IngestOptions(id="one"))
    _assert_view_is_the_union_of_current_sources(pg)
    assert pg.query("ASK { ?s ?p ?o FILTER(?o = 0) }").__bool__() is False  # the first version left


def test_a_bulk_write_whose_view_copies_fail_is_finished_by_recovery(pg, tmp_path, monkeypatch):
    """Loading the view's copies fails: on a SPARQL server the ingest is committed (its copies come
    after the commit) and recovery copies its graphs with the engine; embedded, they are loaded
    before the commit, and nothing is written. The view is the union of the sources either way."""
    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 1)  # the bulk loader's path
    pg.ingest(
        _write(tmp_path / "a.ttl", f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> <{EX}c> .\n"), IngestOptions(id="a")
    )
    load = type(pg.backend).load_quads

    def failing_view_copies(self, nquads, *, bulk):
        files = [nquads] if isinstance(nquads, Path) else list(nquads)
        if any(f.name == "view.nq" for f in files):
            raise ProvGraphError("the view's copies could not be loaded")
        load(self, nquads, bulk=bulk)

    monkeypatch.setattr(type(pg.backend), "load_quads", failing_view_copies)
    two = _write(tmp_path / "b.ttl", f"<{EX}d> <{EX}p> <{EX}e> .\n<{EX}d> <{EX}p> <{EX}f> .\n")
    deferred = view.deferred(pg.backend)
    with pytest.raises(ProvGraphError, match="is committed but finishing it failed" if deferred else "copies"):
        pg.ingest(two, IngestOptions(id="b"))
    monkeypatch.setattr(type(pg.backend), "load_quads", load)
    pg.recover()
    assert not _has_pending_marks(pg)
    _assert_view_is_the_union_of_current_sources(pg)
    assert bool(pg.query(f"ASK {{ <{EX}d> <{EX}p> <{EX}e> }}")) is deferred


def _catalog(pg: ProvGraph) -> set[tuple[str, str, str]]:
    """The catalog's triples with what differs between two runs of the same ingests (times,
    activity IRIs) blanked."""
    varying = {f"<{PROV_NS}generatedAtTime>", f"<{PROV_NS}wasGeneratedBy>"}
    return {(s, p, "*" if p in varying else o) for s, p, o in _triples(pg, CATALOG_GRAPH)}


def test_the_bulk_path_commits_the_catalog_the_one_transaction_path_does(tmp_path, monkeypatch):
    """A large ingest loads its catalog entries ahead of the commit and commits only their
    statuses: the catalog it leaves is the one a single transaction leaves, for new documents
    and for new versions (superseded status, replaced title, wasRevisionOf)."""
    one = _write(tmp_path / "one.ttl", "".join(f"<{EX}s{i}> <{EX}p> {i} .\n" for i in range(5)))
    two = _write(tmp_path / "two.ttl", "".join(f"<{EX}s{i}> <{EX}p> {i + 1} .\n" for i in range(5)))
    catalogs = []
    for threshold in (10**6, 0):
        monkeypatch.setattr(pipeline, "BULK_THRESHOLD", threshold)
        with ProvGraph.memory() as pg:
            pg.ingest(one, IngestOptions(id="one", title="First title"))
            pg.ingest(two, IngestOptions(id="two", title="Other"))
            pg.ingest(two, IngestOptions(id="one", title="Second title"))
            _assert_view_is_the_union_of_current_sources(pg)
            assert not _has_pending_marks(pg)
            catalogs.append(_catalog(pg))
            titles = {s.key: (s.title, [v.status.value for v in s.versions]) for s in pg.sources()}
            assert titles == {"one": ("Second title", ["current", "superseded"]), "two": ("Other", ["current"])}
    assert catalogs[0] == catalogs[1]


def _documents(path: Path, version: int) -> Path:
    """Five documents in one file (one named graph each), as a large ingest splits them."""
    lines = [f'<{EX}s{d}-{i}> <{EX}p> "{i + version}" <{EX}doc/{d}> .\n' for d in range(5) for i in range(3)]
    return _write(path, "".join(lines))


SPLIT = GraphSplit(pattern=rf"^(?P<document>{EX}doc/\d+)$")


def _log(pg: ProvGraph) -> set[tuple[str, str, str]]:
    varying = {f"<{PROV_NS}generatedAtTime>"}
    return {(s, p, "*" if p in varying else o) for s, p, o in _triples(pg, CHANGES_GRAPH)}


def _state(pg: ProvGraph) -> tuple[object, ...]:
    """The catalog, change log and current view, times blanked, and each document's statuses."""
    statuses = {s.key: [v.status.value for v in s.versions] for s in pg.sources()}
    dated = "<http://www.w3.org/2001/XMLSchema#dateTime>"
    in_view = {(s, p, "*" if o.endswith(dated) else o) for s, p, o in _triples(pg, CURRENT_VIEW)}
    return _catalog(pg), _log(pg), in_view, statuses


@pytest.mark.parametrize("chunk", [1, 2, 5000])
def test_a_large_commit_in_chunks_leaves_what_one_transaction_leaves(tmp_path, monkeypatch, chunk):
    """A large ingest makes its new versions current a chunk at a time (its memory then does not
    grow with the number of documents): the store it leaves is the one-transaction path's."""
    one, two = _documents(tmp_path / "one.nq", 0), _documents(tmp_path / "two.nq", 1)
    states = []
    for threshold in (10**6, 0):
        monkeypatch.setattr(pipeline, "BULK_THRESHOLD", threshold)
        monkeypatch.setattr(view, "COMMIT_CHUNK", chunk)
        with ProvGraph.memory() as pg:
            pg.ingest(one, IngestOptions(id="one", split=SPLIT))
            pg.ingest(two, IngestOptions(id="one", split=SPLIT))  # five new versions
            _assert_view_is_the_union_of_current_sources(pg)
            assert not _has_pending_marks(pg)
            states.append(_state(pg))
    assert states[0] == states[1]
    statuses = states[0][3]
    assert {k: v for k, v in statuses.items() if k.startswith(EX)} == {  # type: ignore[attr-defined]
        f"{EX}doc/{d}": ["current", "superseded"] for d in range(5)
    }


@pytest.mark.parametrize("threshold", [10**6, 0], ids=["one-transaction", "bulk"])
def test_documents_planned_built_and_committed_in_batches_leave_what_one_batch_leaves(tmp_path, monkeypatch, threshold):
    """A split input's documents are looked up, built, kept on disk and committed a batch at a
    time (memory does not grow with the number of documents): batches of three documents, a
    ledger flushed every four, leave the store one batch leaves, and report the same."""
    from provgraph.ingest import ledger

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", threshold)
    one = _write(tmp_path / "one.nq", "".join(f'<{EX}s{d}> <{EX}p> "{d}" <{EX}doc/{d}> .\n' for d in range(7)))
    # the second: doc/0-2 unchanged, doc/3-6 revised, doc/7-8 new, and one triple of the file's own
    two = _write(
        tmp_path / "two.nq",
        "".join(f'<{EX}s{d}> <{EX}p> "{d if d < 3 else -d}" <{EX}doc/{d}> .\n' for d in range(9))
        + f'<{EX}rest> <{EX}p> "rest" .\n',
    )
    results = []
    for batch, writes in ((10**6, 10**6), (3, 4)):
        monkeypatch.setattr(pipeline, "BATCH_DOCUMENTS", batch)
        monkeypatch.setattr(ledger.Ledger, "_WRITE_BATCH", writes)
        with ProvGraph.memory() as pg:
            pg.ingest(one, IngestOptions(id="one", split=SPLIT))
            report = pg.ingest(two, IngestOptions(id="one", split=SPLIT))
            _assert_view_is_the_union_of_current_sources(pg)
            assert not _has_pending_marks(pg)
            results.append((_state(pg), report.model_dump(exclude={"seconds"})))
    assert results[0] == results[1]
    (_, _, _, statuses), report = results[1]
    assert report["document_count"] == 10
    assert report["outcomes"] == {"unchanged": 3, "new_version": 4, "created": 3}
    assert [d["key"] for d in report["documents"]] == [f"{EX}doc/{d}" for d in range(9)] + ["one"]
    assert statuses[f"{EX}doc/4"] == ["current", "superseded"] and statuses[f"{EX}doc/8"] == ["current"]
    assert report["statements"] == 4 + 2 + 1


def test_a_report_lists_the_first_documents_in_key_order_and_counts_them_all(tmp_path, monkeypatch):
    """An ingest report lists at most REPORTED_DOCUMENTS documents (the first in key order) and
    counts every one; the CLI's summary counts them all too."""
    from provgraph.ingest import ledger

    monkeypatch.setattr(ledger, "REPORTED_DOCUMENTS", 3)
    source = _write(tmp_path / "many.nq", "".join(f'<{EX}s{d}> <{EX}p> "{d}" <{EX}doc/{d}> .\n' for d in range(12)))
    with ProvGraph.memory() as pg:
        report = pg.ingest(source, IngestOptions(id="many", split=SPLIT))
        again = pg.ingest(source, IngestOptions(id="many", split=SPLIT))
        assert len(pg.sources()) == 12
    assert [d.key for d in report.documents] == [f"{EX}doc/{d}" for d in (0, 1, 10)]  # key order: strings
    assert report.document_count == 12 and report.outcomes == {"created": 12} and report.statements == 12
    assert again.unchanged and again.document_count == 12 and again.outcomes == {"unchanged": 12}


def test_an_ingest_stopped_after_its_commit_point_is_finished_by_the_next_open(tmp_path, monkeypatch):
    """Past its commit point a large ingest is committed: if the process stops while the
    statuses are being written (here the store refuses the second chunk), the next read-write
    open finishes them, and the store is the one an uninterrupted ingest leaves."""
    from provgraph.store import oxigraph

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 0)
    monkeypatch.setattr(view, "COMMIT_CHUNK", 2)
    one, two = _documents(tmp_path / "one.nq", 0), _documents(tmp_path / "two.nq", 1)
    with ProvGraph.memory() as pg:
        pg.ingest(one, IngestOptions(id="one", split=SPLIT))
        pg.ingest(two, IngestOptions(id="one", split=SPLIT))
        expected = _state(pg)
    store = tmp_path / "store"
    update = oxigraph.OxigraphBackend.update
    chunks = []

    def second_chunk_fails(self, sparql, *, base_iri=None, prefixes=None):  # Backend.update's signature
        if sparql.startswith("DELETE DATA") and str(PG.pendingView.value) in sparql:
            chunks.append(sparql)
            if len(chunks) == 2:
                raise oxigraph.StoreError("disk full (simulated)")
        return update(self, sparql, base_iri=base_iri, prefixes=prefixes)

    with ProvGraph.open(store) as pg:
        pg.ingest(one, IngestOptions(id="one", split=SPLIT))
        monkeypatch.setattr(oxigraph.OxigraphBackend, "update", second_chunk_fails)
        with pytest.raises(ProvGraphError, match=r"committed but finishing it failed: .*disk full"):
            pg.ingest(two, IngestOptions(id="one", split=SPLIT))
        monkeypatch.setattr(oxigraph.OxigraphBackend, "update", update)
        assert _has_pending_marks(pg)  # three of the five still to make current
    with ProvGraph.open(store) as pg:
        assert not _has_pending_marks(pg)
        assert not pg.query(f"ASK {{ GRAPH <{CATALOG_GRAPH.value}> {{ ?c <{PG.committing.value}> ?e }} }}")
        _assert_view_is_the_union_of_current_sources(pg)
        assert _state(pg) == expected


def _new_version(document: NamedNode, key: str, graph: NamedNode, *, previous: NamedNode | None) -> catalog.NewVersion:
    """A catalog entry as an ingest builds it: version 1 of a new document, or the next version
    of the one whose current version is ``previous``."""
    return catalog.NewVersion(
        document=document,
        key=key,
        title=key.title(),
        graph=graph,
        activity=NamedNode(f"{graph.value}/activity"),
        version=1 if previous is None else 2,
        content_hash=key[0] * 64,
        fingerprint=key,
        ingested_at="2026-01-01T00:00:00Z",
        statements=1,
        passages=0,
        previous=previous,
        revision_of=previous,
    )


@pytest.mark.parametrize("reopen", ["read-write open", "lazy open, then a write"])
def test_an_ingest_stopped_before_its_commit_leaves_no_catalog_entry(tmp_path, reopen):
    """What the bulk path stages in the catalog before its commit (a new document's entry, a new
    version's entry) is taken out when the store is next opened for writing."""
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        before, sources = _catalog(pg), pg.sources()
        (known,) = sources
        staged = [
            _new_version(NamedNode(f"{EX}doc/new"), "new", NamedNode(ORPHAN), previous=None),
            _new_version(
                NamedNode(known.document),
                "aspirin",
                NamedNode(ORPHAN.replace("0000", "0001")),
                previous=NamedNode(known.current_graph or ""),
            ),
        ]
        pg.backend.update(view.pending([e.graph.value for e in staged]))
        lines = "".join(f"{line} <{CATALOG_GRAPH.value}> .\n" for line in catalog.staged_triples(staged))
        stray = "".join(f'<{EX}stray> <{EX}p> "half-written" <{g}> .\n' for g in (ORPHAN, CURRENT_VIEW.value))
        pg.backend._store.load((lines + stray).encode(), format=RdfFormat.N_QUADS)  # type: ignore[attr-defined]
        assert _catalog(pg) != before
        assert pg.sources() == sources  # not committed: no reader takes the entries for versions
    if reopen == "read-write open":
        with ProvGraph.open(store) as pg:
            assert _catalog(pg) == before
            assert pg.sources() == sources
            _assert_view_is_the_union_of_current_sources(pg)
            assert ORPHAN not in {g.value for g in pg.backend.named_graphs()}
        return
    # the command line opens lazily (no recovery at open) and takes the lock at its first write
    with ProvGraph.open(store, lazy_lock=True) as pg:
        pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Trial"))
        assert {s.key for s in pg.sources()} == {"aspirin", "trial"}
        assert {s for s, _, _ in _catalog(pg)}.isdisjoint({f"<{e.graph.value}>" for e in staged})
        assert f"<{EX}doc/new>" not in {s for s, _, _ in _catalog(pg)}
        _assert_view_is_the_union_of_current_sources(pg)
        assert not _has_pending_marks(pg)
        # found by its mark, not by listing the store's graphs (the write lists none)
        assert ORPHAN not in {g.value for g in pg.backend.named_graphs()}


ORPHAN = "https://w3id.org/provgraph/id/doc/0000/v1"


def test_an_ingest_stopped_between_write_and_commit_leaves_nothing_in_the_view(tmp_path):
    """What a process killed after the bulk load and before the commit leaves (the graph, its
    quads in the view, the pending mark) is taken out when the store is next opened for writing."""
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        before = _triples(pg, CURRENT_VIEW)
        orphan = ORPHAN
        quad = (NamedNode(f"{EX}stray"), NamedNode(f"{EX}p"), Literal("half-written"))
        pg.backend.update(view.pending([orphan]))
        store_ = pg.backend._store  # type: ignore[attr-defined]  # what the bulk loader would have written
        store_.add(Quad(*quad, NamedNode(orphan)))
        store_.add(Quad(*quad, CURRENT_VIEW))
        shared = (NamedNode(f"{EX}aspirin"), NamedNode(f"{EX}treats"), NamedNode(f"{EX}headache"))
        store_.add(Quad(*shared, NamedNode(orphan)))
        del store_  # the store's lock goes with the last reference
    with ProvGraph.open(store) as pg:  # recovery runs on a read-write open
        assert _triples(pg, CURRENT_VIEW) == before
        _assert_view_is_the_union_of_current_sources(pg)
        assert not _has_pending_marks(pg)
        assert ORPHAN not in {g.value for g in pg.backend.named_graphs()}


@pytest.mark.backends(
    "embedded",
    reason=GRAPHS_OF_A_SERVER,
)
def test_queries_see_the_current_sources_and_graph_variables_not_the_view(pg, tmp_path):
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin", tier=2))
    pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Trial"))
    prepared = pg.prepare("SELECT * WHERE { ?s ?p ?o }")
    # one graph however many documents; the store's own default graph joins it once it holds anything
    assert prepared.dataset.default_graph == (CURRENT_VIEW.value,)
    listed = [str(g) for g in pg.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }").rows()]
    assert CURRENT_VIEW.value not in " ".join(listed) and len(listed) == 4  # two sources, catalog, change log
    counted = pg.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { } }").rows()[0]["n"]
    assert counted.value == "4"  # type: ignore[union-attr]
    by_name = pg.query(f"ASK {{ GRAPH <{CURRENT_VIEW.value}> {{ <{EX}aspirin> ?p ?o }} }}")
    assert bool(by_name)  # reachable when named
    everything = pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", view=DatasetView.ALL).rows()[0]["n"]
    current = pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows()[0]["n"]
    assert int(current.value) < int(everything.value)  # type: ignore[union-attr]
    stats = pg.stats()
    # what an export holds: neither the view nor the change log
    own = [*pg.current_graphs(), CATALOG_GRAPH]
    assert stats.quads == sum(len(_triples(pg, g)) for g in own)
    assert _triples(pg, CHANGES_GRAPH)


@pytest.mark.backends(
    "embedded",
    reason=DEFAULT_GRAPH_OF_A_SERVER,
)
def test_a_plain_update_to_the_default_graph_is_in_the_current_view(pg):
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
    pg.update(f'INSERT DATA {{ <{EX}note> <{EX}says> "hello" }}')
    assert pg.prepare("SELECT * WHERE { ?s ?p ?o }").dataset.default_graph == (None, CURRENT_VIEW.value)
    rows = pg.query(f"SELECT ?o WHERE {{ <{EX}note> <{EX}says> ?o }}").rows()
    assert [r["o"].value for r in rows] == ["hello"]  # type: ignore[union-attr]
    assert bool(pg.query(f"ASK {{ <{EX}aspirin> ?p ?o }}"))  # and the sources still
    pg.update(f'DELETE DATA {{ <{EX}note> <{EX}says> "hello" }}')
    assert pg.prepare("SELECT * WHERE { ?s ?p ?o }").dataset.default_graph == (CURRENT_VIEW.value,)


def test_a_superseded_version_is_history_not_view(pg, tmp_path):
    first = _write(tmp_path / "v.ttl", f"<{EX}x> <{EX}p> 1 .")
    pg.ingest(first, IngestOptions(id="doc"))
    old = pg.current_graphs()[0].value
    pg.ingest(_write(tmp_path / "v.ttl", f"<{EX}x> <{EX}p> 2 ."), IngestOptions(id="doc"))
    assert [r["o"].value for r in pg.query(f"SELECT ?o WHERE {{ <{EX}x> <{EX}p> ?o }}").rows()] == ["2"]  # type: ignore[union-attr]
    history = pg.query(f"SELECT ?o WHERE {{ GRAPH <{old}> {{ <{EX}x> <{EX}p> ?o }} }}").rows()
    assert [r["o"].value for r in history] == ["1"]  # type: ignore[union-attr]


def test_exports_leave_the_view_out_and_restore_rebuilds_it(pg, tmp_path):
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
    dump = pg.export(format=ExportFormat.NQUADS)
    assert dump is not None
    assert not [line for line in dump.splitlines() if line.endswith(f"<{CURRENT_VIEW.value}> .".encode())]
    path = tmp_path / "all.nq"
    path.write_bytes(dump)
    with ProvGraph.open(tmp_path / "restored") as other:
        other.restore(path)
        _assert_view_is_the_union_of_current_sources(other)


def test_a_store_without_a_view_is_read_by_its_graphs_and_gets_one_when_opened_for_writing(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        expected = pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows()[0]["n"]
        # as a store written before provgraph kept a view
        marks = f"GRAPH <{CATALOG_GRAPH.value}> {{ ?c <{PG.currentView.value}> ?v . ?v a ?t }}"
        pg.backend.update(f"DROP GRAPH <{CURRENT_VIEW.value}> ; DELETE WHERE {{ {marks} }}")
    with ProvGraph.open(store, read_only=True) as pg:
        assert pg.prepare("SELECT * { ?s ?p ?o }").dataset.default_graph != (None, CURRENT_VIEW.value)
        assert pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows()[0]["n"] == expected
    with ProvGraph.open(store) as pg:
        _assert_view_is_the_union_of_current_sources(pg)
        assert pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows()[0]["n"] == expected


@pytest.mark.backends(
    "embedded",
    reason=DEFAULT_GRAPH_OF_A_SERVER,
)
def test_the_store_default_graph_stays_part_of_the_current_view(pg):
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
    pg.update(f"INSERT DATA {{ <{EX}mine> <{EX}p> 1 }}")
    assert bool(pg.query(f"ASK {{ <{EX}mine> <{EX}p> 1 . <{EX}aspirin> ?p ?o }}"))
    assert all(str(q.subject) != f"<{EX}mine>" for q in pg.backend.quads(None, None, None, CURRENT_VIEW))
    assert any(True for _ in pg.backend.quads(None, None, None, DefaultGraph()))


# ------------------------------------------------------------------------------------ change log


def test_every_write_is_logged_under_a_new_generation(pg, tmp_path):
    from provgraph.store import changes

    assert changes.generation(pg.backend) == 0
    pg.ingest(_write(tmp_path / "a.ttl", f"<{EX}a> <{EX}p> 1 ."), IngestOptions(id="a"))
    first = pg.current_graphs()[0].value
    pg.ingest(_write(tmp_path / "b.ttl", f"<{EX}b> <{EX}p> 1 ."), IngestOptions(id="b"))
    pg.ingest(_write(tmp_path / "a.ttl", f"<{EX}a> <{EX}p> 2 ."), IngestOptions(id="a"))  # a new version of a
    pg.ingest(_write(tmp_path / "b.ttl", f"<{EX}b> <{EX}p> 1 ."), IngestOptions(id="b"))  # unchanged: no write
    pg.revoke("b", reason="test")
    pg.add_ontology(EXAMPLES / "drug-shapes.ttl")
    assert changes.generation(pg.backend) == 5
    current = {g.value for g in pg.current_graphs()}
    everything = changes.since(pg.backend, 0)
    assert everything.added == current and not everything.removed and everything.ontology
    after_first = changes.since(pg.backend, 1)
    assert after_first.removed == {first} and after_first.added == current - {first}
    assert changes.since(pg.backend, 5).empty


def test_a_restore_is_logged_as_a_reset(pg, tmp_path):
    from provgraph.store import changes

    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin"))
    path = tmp_path / "all.nq"
    path.write_bytes(pg.export(format=ExportFormat.NQUADS) or b"")
    with ProvGraph.open(tmp_path / "restored") as other:
        other.restore(path)
        assert b"/id/changes>" not in (pg.export(format=ExportFormat.NQUADS) or b"")  # the log stays home
        assert changes.generation(other.backend) == 1
        assert changes.since(other.backend, 0).reset
        assert changes.since(other.backend, 7).reset  # a view built on the old store starts over


def _change_log(pg: ProvGraph) -> set[tuple[int, str, str]]:
    """Every (generation, added|removed, graph) the change log holds."""
    found = pg.backend.select(
        f"""SELECT ?n ?kind ?g WHERE {{ GRAPH <{CHANGES_GRAPH.value}> {{
          ?c <{PG.generation.value}> ?n ; ?kind ?g FILTER(?kind IN (<{PG.added.value}>, <{PG.removed.value}>)) }} }}"""
    )
    return {(row.integer("n"), row.value("kind").rsplit("#", 1)[1], row.value("g")) for row in found}


def test_the_bulk_path_logs_the_changes_the_one_transaction_path_logs(tmp_path, monkeypatch):
    """The bulk path's commit reads the graphs it adds from the pending marks instead of listing
    them: the change log it leaves is the one a single transaction leaves (graph names aside,
    which hold content hashes: the same input gives the same names)."""
    from provgraph import GraphSplit

    split = GraphSplit(pattern=r"^(?P<document>http://example\.org/doc\d+)$")
    first = _write(tmp_path / "a.nq", "".join(f'<{EX}s{i}> <{EX}p> "{i}" <{EX}doc{i % 3}> .\n' for i in range(9)))
    second = _write(
        tmp_path / "b.nq", "".join(f'<{EX}s{i}> <{EX}p> "{i + 1}" <{EX}doc{i % 2 + 2}> .\n' for i in range(4))
    )
    logs = []
    for threshold in (10**6, 0):
        monkeypatch.setattr(pipeline, "BULK_THRESHOLD", threshold)
        with ProvGraph.memory() as pg:
            pg.ingest(first, IngestOptions(id="f", split=split))
            pg.ingest(second, IngestOptions(id="f", split=split))
            _assert_view_is_the_union_of_current_sources(pg)
            assert not _has_pending_marks(pg)
            logs.append(_change_log(pg))
            current = set(pg.current_graphs())
    one_transaction, bulk = logs
    # the first ingest adds doc0-2; the second a new version of doc2 (removing its first) and doc3
    assert sorted((n, kind) for n, kind, _ in bulk) == [(1, "added")] * 3 + [(2, "added")] * 2 + [(2, "removed")]
    assert {NamedNode(g) for n, kind, g in bulk if kind == "added"} - {
        NamedNode(g) for _, kind, g in bulk if kind == "removed"
    } == current
    assert bulk == one_transaction


def test_a_bulk_commit_commits_its_own_graphs_not_marks_a_failed_write_left(tmp_path, monkeypatch):
    """The bulk path's commit makes the pending graphs current. Marks left in the same process by
    a write whose clean-up failed (so no reopen ran recovery) are not its graphs: they are
    recovered first, and what they staged never becomes current."""
    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 0)
    with ProvGraph.open(tmp_path / "store") as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        stale = _new_version(NamedNode(f"{EX}doc/stale"), "stale", NamedNode(ORPHAN), previous=None)
        pg.backend.update(view.pending([stale.graph.value]))
        lines = "".join(f"{line} <{CATALOG_GRAPH.value}> .\n" for line in catalog.staged_triples([stale]))
        pg.backend._store.load(lines.encode(), format=RdfFormat.N_QUADS)  # type: ignore[attr-defined]
        pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Trial"))
        assert {s.key for s in pg.sources()} == {"aspirin", "trial"}
        assert ORPHAN not in {g.value for g in pg.current_graphs()}
        _assert_view_is_the_union_of_current_sources(pg)
        assert not _has_pending_marks(pg)
