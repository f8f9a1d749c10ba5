"""The change log: what each write did to the current sources, numbered by a store generation.

Derived views of the current sources (the lexical index, the conflict records, the document
relations, answer records) keep the generation they reflect. To catch up they read the changes
made since, one entry per generation (each a direct lookup), instead of re-reading the catalog:
an ask on a store of 100,000 documents checks one triple to know it is up to date.

In the graph ``pgid:changes``:

- ``pgid:changes pg:generation n``: the store's generation, raised by every write that changes
  what is current or what predicates mean;
- ``pgid:change/n a pg:Change ; pg:generation n ; prov:generatedAtTime t`` with ``pg:added G`` for
  each source graph that became current, ``pg:removed G`` for each that stopped being current,
  ``pg:restated G`` for each that stays current but had a statement revoked (views recompute
  what it states), ``pg:ontologyChanged true`` when the ontology graph changed, ``pg:reset true`` when the store
  was rebuilt as a whole (a restore) and derived views must start over.

Each entry is written in the same transaction as the catalog change it records (:func:`record`
returns the SPARQL operation to add to that update; it uses provgraph's prefixes: run it with
``backend.update(..., prefixes=PREFIXES)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from string import Template

from provgraph.store.base import Backend
from provgraph.store.terms import Literal, NamedNode, sparql_term, sparql_terms
from provgraph.vocab import ID_NS, PG, XSD_NS

_CHANGE = ID_NS + "change/"

GENERATION = "SELECT ?n WHERE { GRAPH pgid:changes { pgid:changes pg:generation ?n } }"
#: Raise the generation and log the facts ``$facts`` of the change ``?c`` under it.
RECORD = Template("""DELETE { GRAPH pgid:changes { pgid:changes pg:generation ?n } }
INSERT { GRAPH pgid:changes { pgid:changes pg:generation ?next . $facts } }
WHERE {
  { SELECT (COALESCE(MAX(?last), 0) AS ?n) WHERE { GRAPH pgid:changes { pgid:changes pg:generation ?last } } }
  BIND(?n + 1 AS ?next)
  BIND(IRI(CONCAT($prefix, STR(?next))) AS ?c)
}""")
# An aggregate, not an OPTIONAL, reads the generation: in an update, Virtuoso finds no solution
# for a WHERE that starts with an OPTIONAL that matches nothing (the store's first change).
#: After :data:`RECORD`: the entry just logged named as the one a large ingest's commit fills in
#: (:func:`provgraph.store.view.finish_commit` adds its graphs to it, in chunks).
COMMITTING = Template("""INSERT { GRAPH pgid:catalog { pgid:catalog pg:committing ?c } }
WHERE {
  GRAPH pgid:changes { pgid:changes pg:generation ?n }
  BIND(IRI(CONCAT($prefix, STR(?n))) AS ?c)
}""")
#: The log entries ``$entries``: each one's generation, and each added or removed graph, ontology
#: change or reset with its kind. Each kind is a branch of its own with the entries bound: as an
#: OPTIONAL with a VALUES of the kinds, Oxigraph read every entry of the log (35 ms with the
#: 100,000 graphs of one large ingest in it, growing with the log).
SINCE = Template("""SELECT ?n ?kind ?g WHERE {
  { VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:generation ?n } }
  UNION { VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:added ?g ; pg:generation ?n } BIND(pg:added AS ?kind) }
  UNION { VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:removed ?g ; pg:generation ?n } BIND(pg:removed AS ?kind) }
  UNION {
    VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:restated ?g ; pg:generation ?n } BIND(pg:restated AS ?kind)
  }
  UNION {
    VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:ontologyChanged ?g ; pg:generation ?n }
    BIND(pg:ontologyChanged AS ?kind)
  }
  UNION { VALUES ?c { $entries } GRAPH pgid:changes { ?c pg:reset ?g ; pg:generation ?n } BIND(pg:reset AS ?kind) }
}""")


@dataclass(frozen=True)
class Changes:
    """The changes between two generations, merged: graphs that came and went in between are in
    neither set. ``restated``: graphs current throughout whose statements' standing changed (a
    statement revoked); what they state must be read again, their text has not changed."""

    since: int
    until: int
    added: frozenset[str]
    removed: frozenset[str]
    ontology: bool
    reset: bool
    restated: frozenset[str] = frozenset()

    @property
    def empty(self) -> bool:
        return self.since == self.until


def generation(backend: Backend) -> int:
    """The store's generation: 0 for a store no write has recorded a change in."""
    return max((row.integer("n") for row in backend.select(GENERATION)), default=0)


def record(
    *,
    added: Iterable[str] = (),
    removed: Iterable[str] = (),
    restated: Iterable[str] = (),
    ontology: bool = False,
    reset: bool = False,
    committing: bool = False,
) -> str:
    """The SPARQL update operation that raises the generation and logs this change under it.
    ``committing``: the entry is a large ingest's, whose added graphs are logged as its commit
    makes them current (:func:`provgraph.store.view.finish_commit`): the catalog names it as the
    commit under way."""
    now = Literal(datetime.now(UTC).isoformat().replace("+00:00", "Z"), datatype=NamedNode(XSD_NS + "dateTime"))
    facts = [f"?c a pg:Change ; pg:generation ?next ; prov:generatedAtTime {sparql_term(now)} ."]
    facts += [f"?c pg:added {sparql_term(g)} ." for g in sorted(set(added))]
    facts += [f"?c pg:removed {sparql_term(g)} ." for g in sorted(set(removed))]
    facts += [f"?c pg:restated {sparql_term(g)} ." for g in sorted(set(restated))]
    if ontology:
        facts.append("?c pg:ontologyChanged true .")
    if reset:
        facts.append("?c pg:reset true .")
    prefix = sparql_term(Literal(_CHANGE))
    operation = RECORD.substitute(facts=" ".join(facts), prefix=prefix)
    return operation + " ;\n" + COMMITTING.substitute(prefix=prefix) if committing else operation


def since(backend: Backend, known: int, *, until: int | None = None) -> Changes:
    """The changes after generation ``known`` up to ``until`` (default: now), merged. Reads one
    log entry per generation in between, never the catalog."""
    last = generation(backend) if until is None else until
    added: set[str] = set()
    removed: set[str] = set()
    restated: set[str] = set()
    ontology = False
    reset = known > last  # a view ahead of the log: the store was restored under it, start over
    if last > known:
        query = SINCE.substitute(entries=sparql_terms(f"{_CHANGE}{n}" for n in range(known + 1, last + 1)))
        found = ((r.integer("n"), r.get("kind"), r.optional_value("g")) for r in backend.select(query))
        rows = sorted(found, key=lambda row: (row[0], row[1] is not None))
        seen = {n for n, _, _ in rows}
        if len(seen) < last - known:
            reset = True  # a gap in the log (entries removed by hand): start over
        for _, kind, value in rows:
            if kind == PG.added and value is not None:
                removed.discard(value)
                added.add(value)
            elif kind == PG.removed and value is not None:
                restated.discard(value)
                if value in added:
                    added.discard(value)
                else:
                    removed.add(value)
            elif kind == PG.restated and value is not None:
                if value not in added:  # one that became current in between is read whole anyway
                    restated.add(value)
            elif kind == PG.ontologyChanged:
                ontology = True
            elif kind == PG.reset:
                reset = True
    return Changes(known, last, frozenset(added), frozenset(removed), ontology, reset, frozenset(restated))


__all__ = ["Changes", "generation", "record", "since"]
