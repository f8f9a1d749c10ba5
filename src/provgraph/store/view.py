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
``pg:pendingView`` in the catalog before its quads (and its staged catalog entry) are loaded, and
the commit clears the mark. :func:`recover` takes out of the view, and out of the catalog, what a
pending graph the catalog never committed left.

The view is derived: it is left out of exports and rebuilt from the source graphs after a restore
or when a store made before it existed is first opened for writing (:func:`ensure`).

:func:`retire` is an update operation with provgraph's prefixes: run it with
``backend.update(..., prefixes=PREFIXES)``; :func:`pending` and :func:`committed` are plain data.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from string import Template

from provgraph.store import catalog
from provgraph.store.base import Backend
from provgraph.store.terms import sparql_term, sparql_terms
from provgraph.vocab import CATALOG_GRAPH, PG, PREFIXES

_CAT = str(CATALOG_GRAPH)

IS_MAINTAINED = "ASK { GRAPH pgid:catalog { pgid:catalog pg:currentView pgid:current } }"
HAS_SOURCE_GRAPHS = "ASK { GRAPH pgid:catalog { ?g a pg:SourceGraph } }"
#: The triples of the versions ``$graphs`` no current source graph states.
RETIRE = Template("""DELETE { GRAPH pgid:current { ?s ?p ?o } }
WHERE {
  VALUES ?old { $graphs }
  GRAPH ?old { ?s ?p ?o }
  FILTER NOT EXISTS { GRAPH ?g { ?s ?p ?o } GRAPH pgid:catalog { ?g pg:status pg:Current } }
}""")
REBUILD = """DROP SILENT GRAPH pgid:current ;
INSERT { GRAPH pgid:current { ?s ?p ?o } }
WHERE { GRAPH pgid:catalog { ?g pg:status pg:Current } GRAPH ?g { ?s ?p ?o } } ;
DELETE WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?pending } } ;
INSERT DATA { GRAPH pgid:catalog { pgid:catalog pg:currentView pgid:current . pgid:current a pg:CurrentView } }"""
#: The pending graphs, each with whether the catalog committed it.
PENDING_GRAPHS = """SELECT ?g ?known WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?g
  OPTIONAL { ?g pg:status ?status BIND(true AS ?known) } } }"""


def is_maintained(backend: Backend) -> bool:
    """Whether the store keeps a current view (a store made before it did has none until its
    first write)."""
    return backend.ask(IS_MAINTAINED)


def retire(graphs: Iterable[str]) -> str:
    """A SPARQL update operation taking out of the view the triples of ``graphs`` (versions that
    are no longer current) that no current source graph states. Run after the catalog change
    that made them not current, in the same request."""
    values = sparql_terms(sorted(set(graphs)))
    return RETIRE.substitute(graphs=values) if values else ""


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
    """Clear the pending marks of ``graphs`` (recovery; a commit clears them with :data:`CLEAR_PENDING`)."""
    return "DELETE DATA { GRAPH " + _CAT + " { " + _marks(graphs) + " } }"


#: Clear every pending mark: the commit of a large ingest, which holds the write lock, and whose
#: graphs are the only ones marked (:func:`recover` ran before it wrote). Written as a pattern,
#: not as the list of its graphs: the text stays small whatever the number of documents.
CLEAR_PENDING = "DELETE WHERE { GRAPH pgid:catalog { pgid:catalog pg:pendingView ?g } }"


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
    """Finish what a writer that stopped left: pending graphs the catalog committed (gave a
    status) have their marks cleared; the quads of the others come out of the view and their
    staged entries out of the catalog. Returns the graphs whose quads were taken out."""
    pending_graphs = [(row.value("g"), "known" in row) for row in backend.select(PENDING_GRAPHS)]
    if not pending_graphs:
        return []
    orphans = [g for g, known in pending_graphs if not known]
    operations = [retire(orphans), catalog.discard_staged(orphans)] if orphans else []
    operations.append(committed(g for g, _ in pending_graphs))
    backend.update(" ;\n".join(operations), prefixes=PREFIXES)
    return orphans


__all__ = [
    "CLEAR_PENDING",
    "committed",
    "ensure",
    "is_maintained",
    "pending",
    "pending_quads",
    "rebuild",
    "recover",
    "retire",
]
