"""In-memory Oxigraph stores used as tools, not as the store: what ingest asks the engine itself.

Ingest needs the engine in three places where no :class:`~provgraph.store.base.Backend` fits:

- the form a literal is stored in (:class:`StoredForm`): Oxigraph keeps typed literals by value
  (``"01"^^xsd:integer`` is stored as ``"1"``), fact and statement keys hash what the store will
  hold, and the SHACL checks see values as pySHACL sees them over an Oxigraph data graph; asking
  the engine (a few microseconds per distinct literal) keeps that rule from drifting from its own;
- the data graph pySHACL validates (:class:`ScratchStore`): ``DataGraph.from_oxigraph_store``
  reads a pyoxigraph ``Store`` itself, so SHACL-SPARQL constraints run in Oxigraph;
- the catalog as it will be after a commit (:func:`provgraph.store.catalog.preview`), for
  validation before the real commit.

They live here so that no module outside :mod:`provgraph.store` holds an engine object: a caller
gets terms of :mod:`provgraph.store.terms` and N-Triples text, and hands :attr:`ScratchStore.engine`
to pySHACL without knowing what it is. Each is a thin wrapper, one attribute lookup away from the
engine's own calls (ingest's speed is unchanged by it).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import cast

from pyoxigraph import Store

from provgraph.store.terms import GraphName, Literal, NamedNode, Quad, RdfFormat
from provgraph.vocab import PREFIXES


class StoredForm:
    """The literal Oxigraph stores for a literal: one scratch store, each literal added, read
    back and removed (the caller caches: few literals are distinct)."""

    __slots__ = ("_node", "_store")

    def __init__(self) -> None:
        self._store = Store()
        self._node = NamedNode("urn:provgraph:canonical")

    def __call__(self, literal: Literal) -> Literal:
        quad = Quad(self._node, self._node, literal)
        self._store.add(quad)
        stored = next(iter(self._store.quads_for_pattern(self._node, self._node, None))).object
        self._store.remove(quad)
        return cast(Literal, stored)  # a literal is stored as a literal


class ScratchStore:
    """An in-memory store of RDF to validate or rewrite, gone with the object."""

    __slots__ = ("_store",)

    def __init__(self) -> None:
        self._store = Store()

    @classmethod
    def of_ntriples(cls, data: str | bytes) -> ScratchStore:
        """A store whose default graph holds the N-Triples ``data``."""
        scratch = cls()
        scratch._store.load(data, RdfFormat.N_TRIPLES)
        return scratch

    @classmethod
    def of_nquads_file(cls, path: Path) -> ScratchStore:
        """A store holding the N-Quads file ``path`` (with the bulk loader: no transaction)."""
        scratch = cls()
        scratch._store.bulk_load(path=str(path), format=RdfFormat.N_QUADS)
        return scratch

    def graph(self, name: NamedNode) -> ScratchStore:
        """A new store whose default graph holds the triples of the graph ``name`` of this one
        (pySHACL validates a store's default graph)."""
        return ScratchStore.of_ntriples(self._store.dump(format=RdfFormat.N_TRIPLES, from_graph=name) or b"")

    def extend(self, quads: Iterable[Quad]) -> None:
        self._store.extend(quads)

    def update(self, sparql: str) -> None:
        """Run a SPARQL update, with provgraph's prefixes (:data:`provgraph.vocab.PREFIXES`)."""
        self._store.update(sparql, prefixes=PREFIXES)

    def ntriples(self, graph: GraphName) -> str:
        """The triples of ``graph`` as N-Triples."""
        dumped = self._store.dump(format=RdfFormat.N_TRIPLES, from_graph=graph)
        return (dumped or b"").decode("utf-8")

    @property
    def engine(self) -> Store:
        """The engine's store, for a library that reads it itself (pySHACL's
        ``DataGraph.from_oxigraph_store``)."""
        return self._store


__all__ = ["ScratchStore", "StoredForm"]
