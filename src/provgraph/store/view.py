"""The current view: one graph, ``pgid:current``, holding the union of the current version of
every source document, kept up to date by the writes that change it.

A query's default graph is "the current sources" (plus the store's own default graph). Given to
Oxigraph as a list of graphs, that costs time in proportion to the number of documents on every
query (measured: 27 ms for ``LIMIT 1`` at 10,000 graphs against 0.03 ms over Oxigraph's union
default graph); given as this one graph, it costs what the union does, whatever the number of
documents. The price is paid at write time and in space: a source graph's quads are written twice
(into its own graph and into the view), and a version that stops being current takes out of the
view the triples no other current source states.

Every change to the view is made in the same transaction as the catalog change it follows, except
for a large ingest (written with the bulk loader, which is not transactional): its graph is marked
``pg:pendingView`` in the catalog before its quads (and its staged catalog entry) are loaded. Its
commit point is one small transaction (what revisions change, the change log's entry, and
``pgid:catalog pg:committing`` naming that entry); then :func:`finish_commit` makes the pending
graphs current in chunks of :data:`COMMIT_CHUNK`, each clearing its marks, so that the memory a
commit takes does not grow with the number of documents (Oxigraph holds a transaction in memory,
about 1-2 KB a quad). :func:`recover` rolls a commit under way forward, and takes out of the view,
and out of the catalog, what a pending graph no commit reached left. On a store that others read
while it is written (a SPARQL server, :func:`deferred`), a large ingest's graphs are copied into
the view only after its commit point, as the commit is finished.

The view is derived: it is left out of exports and rebuilt from the source graphs after a restore
or when a store made before it existed is first opened for writing (:func:`ensure`).

:func:`retire` is an update operation with provgraph's prefixes: run it with
``backend.update(..., prefixes=PREFIXES)``; :func:`pending` and :func:`committed` are plain data.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from pathlib import Path
from string import Template

from provgraph.store import catalog
from provgraph.store.base import Backend
from provgraph.store.terms import NamedNode, sparql_term
from provgraph.vocab import CATALOG_GRAPH, CHANGES_GRAPH, PG, PREFIXES

_CAT = str(CATALOG_GRAPH)
_CHANGES = str(CHANGES_GRAPH)

IS_MAINTAINED = "ASK { GRAPH pgid:catalog { pgid:catalog pg:currentView pgid:current } }"
HAS_SOURCE_GRAPHS = "ASK { GRAPH pgid:catalog { ?g a pg:SourceGraph } }"
#: Graphs one request copies into a deferred view (see finish_commit), and one operation of
#: :func:`retire` takes out.
COPY_GRAPHS = 50
#: The triples of the versions ``$old`` no current source graph (``$current``) states. Each old
#: graph a constant of a UNION, and the catalog's check inside a FILTER EXISTS, so the engines
#: look each triple up in its graphs first: joined with the catalog, Oxigraph read every current
#: graph for each triple (1.5 s for five versions at 1,000 documents, against 0.08 s), and
#: Virtuoso read a VALUES of the old graphs over every quad (1.3 s, against 0.02 s).
RETIRE = Template("""DELETE { GRAPH pgid:current { ?s ?p ?o } }
WHERE {
  $old
  FILTER NOT EXISTS { GRAPH ?g { ?s ?p ?o } FILTER EXISTS { $current } }
}""")
_CURRENT = "GRAPH pgid:catalog { ?g pg:status pg:Current }"
#: At a large ingest's commit point its pending graphs are current too (their statuses follow).
_CURRENT_OR_PENDING = (
    "{ GRAPH pgid:catalog { ?g pg:status pg:Current } } UNION { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?g } }"
)
REBUILD = """DROP SILENT GRAPH pgid:current ;
INSERT { GRAPH pgid:current { ?s ?p ?o } }
WHERE { GRAPH pgid:catalog { ?g pg:status pg:Current } GRAPH ?g { ?s ?p ?o } } ;
DELETE WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?pending } } ;
INSERT DATA { GRAPH pgid:catalog { pgid:catalog pg:currentView pgid:current . pgid:current a pg:CurrentView } }"""
#: The change-log entry of the commit under way, if any.
COMMITTING = "SELECT ?c WHERE { GRAPH pgid:catalog { pgid:catalog pg:committing ?c } }"
#: Pending graphs a commit under way has yet to make current (recovery reads them in chunks).
MARKED = "SELECT ?g WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?g } } LIMIT "
#: Graphs a chunk of a commit makes current: statuses, the change log's entry, the marks cleared.
COMMIT_CHUNK = 5000
#: The pending graphs, each with whether the catalog committed it.
PENDING_GRAPHS = """SELECT ?g ?known WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?g
  OPTIONAL { ?g pg:status ?status BIND(true AS ?known) } } }"""


def is_maintained(backend: Backend) -> bool:
    """Whether the store keeps a current view (a store made before it did has none until its
    first write)."""
    return backend.ask(IS_MAINTAINED)


def retire(graphs: Iterable[str], *, pending_current: bool = False) -> str:
    """A SPARQL update operation taking out of the view the triples of ``graphs`` (versions that
    are no longer current) that no current source graph states. Run after the catalog change
    that made them not current, in the same request. ``pending_current``: the pending graphs count
    as current (the commit point of a large ingest, whose statuses follow it)."""
    old = sorted(set(graphs))
    current = _CURRENT_OR_PENDING if pending_current else _CURRENT
    # an operation per COPY_GRAPHS versions: Virtuoso compiles a UNION whole (see finish_commit)
    return " ;\n".join(
        RETIRE.substitute(old=_in_graphs(old[i : i + COPY_GRAPHS], "?s ?p ?o"), current=current)
        for i in range(0, len(old), COPY_GRAPHS)
    )


def _in_graphs(graphs: Iterable[str], pattern: str) -> str:
    """``pattern`` in each of ``graphs``, as a UNION of one ``GRAPH <g> { pattern }`` per graph,
    for a query's WHERE.

    Not ``VALUES ?g { ... } GRAPH ?g { pattern }``: Virtuoso 7.2 reads that over every quad of the
    store (0.8 s for 50 graphs of a store of 100,000 facts, against 0.03 s as a UNION), Oxigraph
    reads both from its graph index."""
    parts = [f"{{ GRAPH {sparql_term(graph)} {{ {pattern} }} }}" for graph in graphs]
    if not parts:
        raise ValueError("_in_graphs needs at least one graph")
    return " UNION ".join(parts)


def pending(graphs: Iterable[str]) -> str:
    """Mark ``graphs`` as written to the view ahead of their catalog entries."""
    return "INSERT DATA { GRAPH " + _CAT + " { " + _marks(graphs) + " } }"


def pending_quads(graphs: Iterable[str]) -> Iterator[str]:
    """The marks of :func:`pending` as N-Quads lines, for the bulk loader: a large ingest loads
    them ahead of its quads instead of inserting them in a transaction (Oxigraph holds about
    1.8 KB for each quad an INSERT DATA writes: 93 MB for the marks of 50,000 documents). A
    load that stops half-way leaves marks of graphs with nothing in the view, which
    :func:`recover` clears like any other."""
    return (f"{_CAT} {PG.pendingView} {sparql_term(g)} {_CAT} .\n" for g in graphs)


def committed(graphs: Iterable[str]) -> str:
    """Clear the pending marks of ``graphs`` (recovery; a commit clears them with :func:`finish_commit`)."""
    return "DELETE DATA { GRAPH " + _CAT + " { " + _marks(graphs) + " } }"


#: A large commit's chunks flush the engine's write buffers every this many (20,000 documents).
FLUSH_CHUNKS = 4


def deferred(backend: Backend) -> bool:
    """Whether a large ingest copies its graphs into the view after its commit point rather than
    loading the copies ahead of it: on a store others may read at any moment (a SPARQL server,
    whose :attr:`~provgraph.store.base.Backend.generation` is None), so that the view never shows
    a graph that is not committed."""
    return backend.generation is None and not backend.read_only


#: A chunk's graphs copied into the view (a deferred view, :func:`deferred`).
#: (A UNION of the graphs made the insert slower on Virtuoso: 4.0 s for 50 graphs, against 3.0.)
COPY = Template("""INSERT { GRAPH pgid:current { ?s ?p ?o } }
WHERE { VALUES ?g { $graphs } GRAPH ?g { ?s ?p ?o } }""")


def finish_commit(backend: Backend, graphs: Iterable[str] | None = None, *, copies: Path | None = None) -> None:
    """Make the pending graphs of the commit under way current (``graphs``: them, as the ingest
    knows them; None: the marks left, as recovery finds them), a chunk of :data:`COMMIT_CHUNK`
    per transaction, then end the commit. Each chunk is one INSERT DATA and one DELETE DATA of a
    known size: neither scans the marks (which a pattern with a LIMIT would, past the deleted
    ones, in every chunk).

    On a deferred view, ``copies`` is the N-Quads file of the graphs' copies in the view as the
    ingest wrote them: loaded ahead of the first chunk instead of copied by the engine, which
    inserts from a query several times slower than from data (10 graphs' 14,143 quads at 100k
    facts: Virtuoso 7.2 1.1-1.8 s, oxigraph serve 0.6-1.1 s). The ingest gives none when its graphs
    hold blank nodes (a load names them anew), and recovery has none: the engine copies."""
    entries = [row.value("c") for row in backend.select(COMMITTING)]
    if not entries:
        return
    change = sparql_term(NamedNode(entries[0]))
    if graphs is None:
        graphs = _marked(backend)
    copying = deferred(backend)
    if copying and copies is not None:
        backend.load_quads(copies, bulk=True)  # the ingest is committed: this only rolls it forward
        copying = False
    chunks = iter(graphs)
    written = 0
    while chunk := list(itertools.islice(chunks, COMMIT_CHUNK)):
        terms = [sparql_term(NamedNode(g)) for g in chunk]
        statuses = " ".join(f"{g} {PG.status} {PG.Current} ." for g in terms)
        added = " ".join(f"{change} {PG.added} {g} ." for g in terms)
        if copying:
            # the copies of a deferred view, ahead of the chunk's statuses (the ingest is committed:
            # this only rolls it forward, and recovery copies again), each of COPY_GRAPHS graphs in a
            # request of its own: Virtuoso compiles a request whole, and 1,000 graphs' copies with
            # the chunk's statuses, for 2.6 million quads, grew past its 10,000 lines of SQL
            for i in range(0, len(terms), COPY_GRAPHS):
                backend.update(COPY.substitute(graphs=" ".join(terms[i : i + COPY_GRAPHS])), prefixes=PREFIXES)
        backend.update(
            "DELETE DATA { GRAPH " + _CAT + " { " + _marks(chunk) + " } } ;\n"
            "INSERT DATA { GRAPH " + _CAT + " { " + statuses + " } GRAPH " + _CHANGES + " { " + added + " } }",
            prefixes=PREFIXES,
        )
        written += 1
        if written % FLUSH_CHUNKS == 0:
            # RocksDB keeps what each transaction wrote in memory until its write buffers are
            # full: 50,000 documents (ten chunks) took 113 MB here; a flush takes about 0.25 s
            backend.flush()
    backend.update("DELETE WHERE { GRAPH pgid:catalog { pgid:catalog pg:committing ?c } }", prefixes=PREFIXES)


def _marked(backend: Backend) -> Iterator[str]:
    """The graphs still marked pending, a chunk at a time (each chunk is cleared before the next is read)."""
    while chunk := [row.value("g") for row in backend.select(MARKED + str(COMMIT_CHUNK))]:
        yield from chunk


def _marks(graphs: Iterable[str]) -> str:
    return " ".join(f"{_CAT} {PG.pendingView} {sparql_term(g)} ." for g in graphs)


def rebuild(backend: Backend) -> None:
    """Build the view from the current source graphs, in one transaction."""
    backend.update(REBUILD, prefixes=PREFIXES)


def ensure(backend: Backend, *, writing: bool) -> None:
    """Build the view if this store has none yet: before a write (``writing``), or when the
    store has source graphs (written by an earlier provgraph). An empty store opened for writing
    stays empty until its first write."""
    if is_maintained(backend):
        return
    if writing or backend.ask(HAS_SOURCE_GRAPHS):
        rebuild(backend)


def recover(backend: Backend) -> list[str]:
    """Finish what a writer that stopped left: a commit under way is finished
    (:func:`finish_commit`); pending graphs the catalog committed (gave a status) have their
    marks cleared; the others are orphans: their quads come out of the view, their staged
    entries out of the catalog, and their graphs are dropped. Returns the orphans.

    Every writer marks a graph before it writes a quad of it, so the marks find every orphan: a
    writer need not list the store's graphs (on Virtuoso a scan of every quad) before it writes."""
    finish_commit(backend)  # a commit under way is committed: finished, not undone
    pending_graphs = [(row.value("g"), "known" in row) for row in backend.select(PENDING_GRAPHS)]
    if not pending_graphs:
        return []
    orphans = [g for g, known in pending_graphs if not known]
    operations = [retire(orphans), catalog.discard_staged(orphans)] if orphans else []
    operations += [f"DROP SILENT GRAPH {sparql_term(g)}" for g in orphans]
    operations.append(committed(g for g, _ in pending_graphs))
    backend.update(" ;\n".join(operations), prefixes=PREFIXES)
    return orphans


__all__ = [
    "COMMIT_CHUNK",
    "committed",
    "deferred",
    "ensure",
    "finish_commit",
    "is_maintained",
    "pending",
    "pending_quads",
    "rebuild",
    "recover",
    "retire",
]
