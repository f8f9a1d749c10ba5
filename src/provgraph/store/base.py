"""The storage protocol: what provgraph needs from a quad store, and nothing more.

The embedded Oxigraph backend (:mod:`provgraph.store.oxigraph`) implements it on disk and in
memory; a remote SPARQL 1.1 backend can implement it for scale-out. Capabilities are honest:
a read-only backend raises :class:`~provgraph.errors.ReadOnlyStoreError` on every write.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples

from provgraph.errors import QueryError
from provgraph.store.terms import BlankNode, GraphName, Literal, NamedNode, Quad, RdfFormat, Row, Triple
from provgraph.vocab import PREFIXES

#: What a user's query gives back, for the SPARQL result serialisation (:mod:`provgraph.query`)
#: alone; the core reads through :meth:`Backend.select`, :meth:`Backend.ask` and
#: :meth:`Backend.construct`, which speak plain terms and rows.
QueryResults = QuerySolutions | QueryBoolean | QueryTriples
#: The dataset of a query (as :meth:`Backend.query` takes it) and its substitutions.
Substitutions = dict[str, NamedNode | BlankNode | Literal]


@runtime_checkable
class Backend(Protocol):
    """A quad store with SPARQL. Every write is atomic: all of it or none of it."""

    @property
    def read_only(self) -> bool: ...

    @property
    def generation(self) -> int | None:
        """Changes with every write through this backend; fixed for a backend that reads a
        store as it was when opened; None when what it reads may change otherwise, so what was
        read cannot be cached."""
        ...

    @property
    def location(self) -> Path | None:
        """Directory of an on-disk store, ``None`` in memory."""
        ...

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
        """Run a user's SPARQL 1.1 query, for serialisation. ``prefixes`` are predeclared (the
        query's own win); ``default_graph`` lists the graphs whose union is the default graph;
        ``union_default_graph`` uses the union of all graphs instead. A query the engine cannot
        read raises :class:`~provgraph.errors.QuerySyntaxError` (its position as the engine read
        it), one it cannot evaluate :class:`~provgraph.errors.QueryError`."""
        ...

    def select(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> list[Row]:
        """The solutions of the core's own SELECT, with provgraph's prefixes
        (:data:`provgraph.vocab.PREFIXES`) predeclared. Over the store's default graph (the
        current view) unless ``default_graph`` lists the graphs to read."""
        ...

    def stream(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> Iterator[Row]:
        """:meth:`select`, read as the engine produces it: for results too large to hold."""
        ...

    def ask(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> bool:
        """The answer of the core's own ASK, prefixes as for :meth:`select`."""
        ...

    def construct(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> list[Triple]:
        """The triples of the core's own CONSTRUCT, prefixes as for :meth:`select`."""
        ...

    def begin_write(self) -> bool:
        """Make sure this backend may write (taking a lock it did not hold yet). True when the
        data read before this call may be stale because another writer could have committed."""
        ...

    def update(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None) -> None:
        """Run a SPARQL 1.1 update in one transaction (errors as for :meth:`query`)."""
        ...

    def quads(
        self,
        subject: NamedNode | BlankNode | None = None,
        predicate: NamedNode | None = None,
        obj: NamedNode | BlankNode | Literal | None = None,
        graph: GraphName | None = None,
    ) -> Iterator[Quad]: ...

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]: ...

    def load_quads(self, nquads: Path | Sequence[Path], *, bulk: bool) -> None:
        """Write the quads of an N-Quads file (or of several, read in order as one: a blank node
        label names one node across them). ``bulk`` trades the transaction for speed (the
        caller then commits through the catalog, and removes the graphs if writing fails)."""
        ...

    def load_dataset(self, source: Path | IO[bytes], fmt: RdfFormat) -> None:
        """Load a whole dataset serialisation as it is, in one transaction."""
        ...

    def remove_graph(self, graph: NamedNode) -> None: ...

    def dump(
        self,
        output: IO[bytes],
        fmt: RdfFormat,
        *,
        graph: GraphName | None = None,
        exclude: Sequence[NamedNode] = (),
        prefixes: Mapping[str, str] | None = None,
    ) -> None:
        """Serialise the whole dataset but the graphs in ``exclude``, or one graph; ``prefixes``
        for the formats that have them."""
        ...

    def optimize(self) -> None: ...

    def flush(self) -> None:
        """Write to disk what the engine holds of committed writes in memory (RocksDB's
        memtables, which otherwise grow with every transaction until they are full)."""
        ...

    def close(self) -> None: ...


class CoreQueries:
    """:meth:`Backend.select`, :meth:`Backend.stream`, :meth:`Backend.ask` and
    :meth:`Backend.construct` in terms of :meth:`Backend.query`, with provgraph's prefixes: one
    reading of the core's own queries for every backend."""

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
        raise NotImplementedError

    def select(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> list[Row]:
        return list(self.stream(sparql, default_graph=default_graph, substitutions=substitutions))

    def stream(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> Iterator[Row]:
        solutions = self.query(sparql, default_graph=default_graph, substitutions=substitutions, prefixes=PREFIXES)
        if not isinstance(solutions, QuerySolutions):
            raise QueryError(f"not a SELECT query: {sparql[:60]!r}")
        names = tuple(v.value for v in solutions.variables)
        return (Row(s.__getitem__, names) for s in solutions)

    def ask(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> bool:
        answer = self.query(sparql, default_graph=default_graph, substitutions=substitutions, prefixes=PREFIXES)
        if not isinstance(answer, QueryBoolean):
            raise QueryError(f"not an ASK query: {sparql[:60]!r}")
        return bool(answer)

    def construct(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        substitutions: Substitutions | None = None,
    ) -> list[Triple]:
        triples = self.query(sparql, default_graph=default_graph, substitutions=substitutions, prefixes=PREFIXES)
        if not isinstance(triples, QueryTriples):
            raise QueryError(f"not a CONSTRUCT query: {sparql[:60]!r}")
        return list(triples)
