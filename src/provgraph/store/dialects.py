"""What differs between SPARQL 1.1 servers, named: each engine's endpoint paths, whether its Graph
Store Protocol takes a whole dataset, how it reports syntax errors and cut results.

A store URL picks one with ``?dialect=NAME`` (``oxigraph`` by default); its paths can still be
given one by one (``?query=/path&update=/path&store=/path``). Only ``oxigraph`` and ``virtuoso``
are tested here, against real servers; the others are written from their documentation and
marked untested (:attr:`Dialect.tested`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { } }"
_ANY_TRIPLE_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_OXIGRAPH_ERROR = re.compile(r"error at (?P<line>\d+):(?P<column>\d+): (?P<reason>.*)", re.S)
# "Virtuoso 37000 Error SP030: SPARQL compiler, line 2: syntax error at 'x' before '}'"
_VIRTUOSO_ERROR = re.compile(r"Virtuoso 37000 Error SP\d+: SPARQL compiler, line (?P<line>\d+): (?P<reason>[^\n]*)")


@dataclass(frozen=True, kw_only=True)
class Dialect:
    """One engine's quirks, as far as provgraph meets them. The defaults are what the SPARQL 1.1
    recommendations say (and Oxigraph does)."""

    name: str
    note: str
    tested: bool = False
    #: Endpoint paths (below the URL's own path): SPARQL query, SPARQL update, Graph Store Protocol.
    query: str
    update: str
    store: str
    #: Whether the Graph Store Protocol endpoint takes and gives a whole dataset (N-Quads, no
    #: ``?graph=``): Oxigraph's, Fuseki's and RDF4J's do; the protocol itself names one graph per
    #: request, and Virtuoso's does only that. Without it, quads are written a graph a request
    #: (:attr:`graph_loads`) or with INSERT DATA in chunks, and read back a graph at a time by
    #: CONSTRUCT.
    dataset_store: bool = True
    #: Where it takes no dataset, whether loads go to the Graph Store Protocol a graph a request
    #: (``POST ?graph=``) rather than by INSERT DATA: Virtuoso's loaded 284,710 quads of 103 graphs
    #: in 8.8-9.8 s, where INSERT DATA took 16.2 s. The default graph's quads still go by INSERT
    #: DATA (Virtuoso's protocol refuses ``?default``).
    graph_loads: bool = False
    #: Whether the default graph of a request that names no dataset is the union of all graphs
    #: (Virtuoso's is; Oxigraph's is the store's default graph).
    union_by_default: bool = False
    #: The query listing the named graphs (Virtuoso answers ``GRAPH ?g { }`` with one empty row).
    graphs_query: str = _GRAPHS
    #: Whether two updates at the same moment are serialised, so that the optimistic check of
    #: concurrent writers (:func:`provgraph.store.remote._guard`) holds: Virtuoso's are (row locks);
    #: ``oxigraph serve`` runs them on snapshots and keeps both (measured: 4 writers racing in a
    #: loop lost 4 of 53 commits), so there each update first takes a lock of claims
    #: (:meth:`provgraph.store.remote.SparqlBackend._serialised`).
    serialises_updates: bool = True
    #: Whether blank nodes are written as Skolem IRIs (under ``pgid:genid/``) and read back as
    #: blank nodes: Virtuoso refuses them in INSERT DATA ("not allowed in a constant clause"), and
    #: as templates it fails past about 1,000 triples ("generated SQL text has exceeded 10000
    #: lines") or with two GRAPH blocks; Skolem IRIs also keep a blank node one node across the
    #: requests of a large load. Inside a query they are IRIs (``isBlank`` is false).
    skolemizes: bool = False
    #: The most triples one block of a data block may hold (Virtuoso's parser runs out of stack
    #: at about 4,990): larger blocks are cut (:meth:`~provgraph.sparql_text.SparqlText.rewrite_data_blocks`).
    max_block_triples: int | None = None
    #: The longest update text sent in one request; a longer one goes in several, its data blocks
    #: cut into operations, each request atomic alone (Virtuoso refuses a request over 10 MB:
    #: "The STRING session ... is longer than 10Mb"; oxigraph serve one over 128 MiB).
    max_update_bytes: int | None = None
    #: Rows past which a read of everything is read again in parts (see SparqlBackend._parts):
    #: Virtuoso gave 1,048,576 rows of a dump of 2.6 million quads, whatever its ResultSetMaxRows,
    #: with no sign of the cut.
    max_rows: int | None = None
    #: Triples per INSERT DATA when quads are written so (Virtuoso compiles an update to SQL
    #: and refuses one whose text grows past its limits).
    insert_chunk: int = 100_000
    #: Syntax errors as the engine words them: groups ``line``, ``column`` (optional), ``reason``.
    syntax_error: re.Pattern[str] = _OXIGRAPH_ERROR
    #: A response header whose presence says the engine cut the results at its row limit.
    truncated_header: str | None = None
    #: The engine's words for a transaction it rolled back in a deadlock, in a cut result's
    #: message or an error's body: the request is sent again (Virtuoso: "SR172: Transaction
    #: deadlocked", met by a read while four writers raced).
    deadlock: re.Pattern[str] | None = None
    #: Whether connections are kept between requests (:mod:`provgraph.store.connections`). Asks at
    #: 10k facts, 60 of each kind interleaved: ``oxigraph serve`` 124 ms p50 over kept connections,
    #: 153 ms over a new one a request; Virtuoso 7.2 the other way, 634 ms against 563 ms.
    kept_connections: bool = True
    #: Rewrites of the engine's SPARQL JSON results into what the standard says (pattern, replacement).
    json_fixes: tuple[tuple[re.Pattern[bytes], bytes], ...] = ()


DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect(
            name="oxigraph",
            note="oxigraph serve (the PyPI oxigraph package)",
            tested=True,
            query="/query",
            update="/update",
            store="/store",
            serialises_updates=False,
            # it refuses a body over 128 MiB: at 1M facts the first ask's document relations were
            # one update of 285 MB (characters here: UTF-8 takes at most 4 bytes each)
            max_update_bytes=32_000_000,
        ),
        Dialect(
            name="virtuoso",
            note=(
                "Virtuoso open source 7.2 (Debian virtuoso-opensource). The SPARQL user needs SPARQL_UPDATE "
                "and write permission on graphs, its virtrdf# graph is best made private (else it is one more "
                "named graph), and ResultSetMaxRows in [SPARQL] must exceed the store's quads for a dump "
                "(provgraph fails a cut result rather than read it short)"
            ),
            tested=True,
            query="/sparql",
            update="/sparql",
            store="/sparql-graph-crud",
            dataset_store=False,
            graph_loads=True,
            union_by_default=True,
            graphs_query=_ANY_TRIPLE_GRAPHS,
            skolemizes=True,
            max_block_triples=2_000,
            max_update_bytes=8_000_000,
            max_rows=500_000,
            insert_chunk=5_000,
            syntax_error=_VIRTUOSO_ERROR,
            truncated_header="X-SQL-State",
            deadlock=re.compile(r"\bSR172\b|Transaction deadlocked"),
            kept_connections=False,
            json_fixes=(
                # blank nodes as "nodeID://b10000", which no blank node label may be
                (re.compile(rb'("type": "bnode", "value": ")nodeID://'), rb"\1"),
                # booleans by their other lexical forms, 1 and 0: the canonical ones are true and false
                (re.compile(rb'(XMLSchema#boolean", "value": ")1"'), rb'\1true"'),
                (re.compile(rb'(XMLSchema#boolean", "value": ")0"'), rb'\1false"'),
            ),
        ),
        Dialect(
            name="fuseki",
            note="Apache Jena Fuseki, dataset /ds (give the paths of another); untested",
            query="/ds/query",
            update="/ds/update",
            store="/ds/data",
            syntax_error=re.compile(r"Line (?P<line>\d+), column (?P<column>\d+): (?P<reason>.*)", re.S),
        ),
        Dialect(
            name="graphdb",
            note="GraphDB or another RDF4J server, repository provgraph (give the paths of another); untested",
            query="/repositories/provgraph",
            update="/repositories/provgraph/statements",
            store="/repositories/provgraph/statements",
            union_by_default=True,
            syntax_error=re.compile(r"line (?P<line>\d+), column (?P<column>\d+)[.:]? ?(?P<reason>.*)", re.S),
        ),
        Dialect(
            name="neptune",
            note="Amazon Neptune (IAM request signing is not supported: use a proxy that signs); untested",
            query="/sparql",
            update="/sparql",
            store="/sparql/gsp/",
            dataset_store=False,
            union_by_default=True,
            graphs_query=_ANY_TRIPLE_GRAPHS,
            insert_chunk=10_000,
            syntax_error=re.compile(r"line (?P<line>\d+):(?P<column>\d+) (?P<reason>.*)", re.S),
        ),
    )
}


def dialect(name: str) -> Dialect:
    """The dialect called ``name``; a :class:`KeyError` names the known ones."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise KeyError(f"unknown dialect {name!r}: one of {', '.join(DIALECTS)}") from None


__all__ = ["DIALECTS", "Dialect", "dialect"]
