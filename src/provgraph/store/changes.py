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
  ``pg:ontologyChanged true`` when the ontology graph changed, ``pg:reset true`` when the store
  was rebuilt as a whole (a restore) and derived views must start over.

Each entry is written in the same transaction as the catalog change it records (:func:`record`
returns the SPARQL operation to add to that update).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from pyoxigraph import Literal, NamedNode, QuerySolutions

from provgraph.store.base import Backend
from provgraph.vocab import CHANGES_GRAPH, ID_NS, PG, PROV_NS, XSD_NS

_LOG = str(CHANGES_GRAPH)
_CHANGE = ID_NS + "change/"


@dataclass(frozen=True)
class Changes:
    """The changes between two generations, merged: graphs that came and went in between are in
    neither set."""

    since: int
    until: int
    added: frozenset[str]
    removed: frozenset[str]
    ontology: bool
    reset: bool

    @property
    def empty(self) -> bool:
        return self.since == self.until


def generation(backend: Backend) -> int:
    """The store's generation: 0 for a store no write has recorded a change in."""
    result = backend.query(f"SELECT ?n WHERE {{ GRAPH {_LOG} {{ {_LOG} {PG.generation} ?n }} }}")
    assert isinstance(result, QuerySolutions)
    found = [int(row["n"].value) for row in result]  # type: ignore[union-attr]
    return max(found, default=0)


def record(
    *, added: Iterable[str] = (), removed: Iterable[str] = (), ontology: bool = False, reset: bool = False
) -> str:
    """The SPARQL update operation that raises the generation and logs this change under it."""
    now = Literal(datetime.now(UTC).isoformat().replace("+00:00", "Z"), datatype=NamedNode(XSD_NS + "dateTime"))
    facts = [f"?c a {PG.Change} ; {PG.generation} ?next ; <{PROV_NS}generatedAtTime> {now} ."]
    facts += [f"?c {PG.added} {NamedNode(g)} ." for g in sorted(set(added))]
    facts += [f"?c {PG.removed} {NamedNode(g)} ." for g in sorted(set(removed))]
    if ontology:
        facts.append(f"?c {PG.ontologyChanged} true .")
    if reset:
        facts.append(f"?c {PG.reset} true .")
    return f"""DELETE {{ GRAPH {_LOG} {{ {_LOG} {PG.generation} ?n }} }}
INSERT {{ GRAPH {_LOG} {{ {_LOG} {PG.generation} ?next . {" ".join(facts)} }} }}
WHERE {{
  OPTIONAL {{ GRAPH {_LOG} {{ {_LOG} {PG.generation} ?n }} }}
  BIND(COALESCE(?n, 0) + 1 AS ?next)
  BIND(IRI(CONCAT("{_CHANGE}", STR(?next))) AS ?c)
}}"""


def since(backend: Backend, known: int, *, until: int | None = None) -> Changes:
    """The changes after generation ``known`` up to ``until`` (default: now), merged. Reads one
    log entry per generation in between, never the catalog."""
    last = generation(backend) if until is None else until
    added: set[str] = set()
    removed: set[str] = set()
    ontology = False
    reset = known > last  # a view ahead of the log: the store was restored under it, start over
    if last > known:
        entries = " ".join(f"<{_CHANGE}{n}>" for n in range(known + 1, last + 1))
        # the entries' own triples, each kind a constant of its own with the entries bound: as an
        # OPTIONAL with a VALUES of the kinds, Oxigraph read every entry of the log (35 ms with
        # the 100,000 graphs of one large ingest in it, growing with the log)
        kinds = " UNION ".join(
            f"{{ VALUES ?c {{ {entries} }} GRAPH {_LOG} {{ ?c {kind} ?g ; {PG.generation} ?n }} "
            f"BIND({kind} AS ?kind) }}"
            for kind in (PG.added, PG.removed, PG.ontologyChanged, PG.reset)
        )
        result = backend.query(
            f"""SELECT ?n ?kind ?g WHERE {{ {{ VALUES ?c {{ {entries} }} GRAPH {_LOG} {{ ?c {PG.generation} ?n }} }}
  UNION {kinds} }}"""
        )
        assert isinstance(result, QuerySolutions)
        rows = sorted(
            ((int(r["n"].value), r["kind"], r["g"]) for r in result),  # type: ignore[union-attr]
            key=lambda row: (row[0], row[1] is not None),
        )
        seen = {n for n, _, _ in rows}
        if len(seen) < last - known:
            reset = True  # a gap in the log (entries removed by hand): start over
        for _, kind, value in rows:
            if kind == PG.added:
                removed.discard(value.value)  # type: ignore[union-attr]
                added.add(value.value)  # type: ignore[union-attr]
            elif kind == PG.removed:
                if value.value in added:  # type: ignore[union-attr]
                    added.discard(value.value)  # type: ignore[union-attr]
                else:
                    removed.add(value.value)  # type: ignore[union-attr]
            elif kind == PG.ontologyChanged:
                ontology = True
            elif kind == PG.reset:
                reset = True
    return Changes(known, last, frozenset(added), frozenset(removed), ontology, reset)


__all__ = ["Changes", "generation", "record", "since"]
