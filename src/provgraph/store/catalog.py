"""The catalog graph: which source graphs exist, which document and version each is, and its
status. It is the commit point of every ingest: a source graph is part of the store once the
catalog gives it a ``pg:status`` (see :func:`commit_update`; a large ingest loads the rest of its
entries ahead of the commit, :func:`staged_triples`).

The update operations this module writes (:func:`commit_update`, :func:`discard_staged`, ...) use
provgraph's prefixes: run them with ``backend.update(..., prefixes=PREFIXES)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from string import Template
from typing import cast

from provgraph.models import SourceInfo, SourceStatus, SourceVersion
from provgraph.store.base import Backend, Substitutions
from provgraph.store.scratch import ScratchStore
from provgraph.store.terms import Literal, NamedNode, Quad, sparql_term, sparql_terms
from provgraph.vocab import CATALOG_GRAPH, DCTERMS_NS, ID_NS, PG, PROV_NS, RDF_NS, XSD_NS


@dataclass(frozen=True, slots=True)
class CurrentVersion:
    """What the catalog knows of a document before an ingest."""

    document: NamedNode
    graph: NamedNode | None  # the current version, if any
    fingerprint: str | None
    last_version: int  # highest version number ever given, 0 if none
    latest: NamedNode | None = None  # the newest version whatever its status


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A catalog entry an ingest will commit."""

    document: NamedNode
    key: str
    title: str
    graph: NamedNode
    activity: NamedNode
    version: int
    content_hash: str
    fingerprint: str
    ingested_at: str  # xsd:dateTime lexical
    statements: int
    passages: int
    previous: NamedNode | None  # the current version it supersedes
    revision_of: NamedNode | None  # the newest earlier version (current, superseded or revoked)


def _lit(value: str, datatype: str | None = None) -> str:
    return sparql_term(Literal(value) if datatype is None else Literal(value, datatype=NamedNode(datatype)))


#: Every version of the documents with the keys ``$keys``.
LOOKUP = Template("""SELECT ?key ?g ?v ?status ?fp WHERE {
  VALUES ?key { $keys }
  GRAPH pgid:catalog {
    ?d pg:documentKey ?key .
    ?g pg:document ?d ; pg:version ?v ; pg:status ?status ; pg:fingerprint ?fp .
  }
}""")


def lookup(backend: Backend, keys: Iterable[str], documents: dict[str, NamedNode]) -> dict[str, CurrentVersion]:
    """The catalog's view of each document key (unknown documents get version 0)."""
    keys = list(keys)
    found = {k: CurrentVersion(documents[k], None, None, 0, None) for k in keys}
    if not keys:
        return found
    query = LOOKUP.substitute(keys=sparql_terms(Literal(k) for k in keys))
    for row in backend.select(query):
        key = row.value("key")
        entry = found[key]
        version = row.integer("v")
        current = row["status"] == PG.Current
        newest = version > entry.last_version
        graph = cast(NamedNode, row["g"])  # the catalog names versions by IRI
        found[key] = CurrentVersion(
            entry.document,
            graph if current else entry.graph,
            row.value("fp") if current else entry.fingerprint,
            max(entry.last_version, version),
            graph if newest else entry.latest,
        )
    return found


_TYPE = NamedNode(RDF_NS + "type")
_TITLE = NamedNode(DCTERMS_NS + "title")
_ENTITY = NamedNode(PROV_NS + "Entity")
_GENERATED_AT = NamedNode(PROV_NS + "generatedAtTime")
_GENERATED_BY = NamedNode(PROV_NS + "wasGeneratedBy")
_REVISION_OF = NamedNode(PROV_NS + "wasRevisionOf")
_INTEGER = XSD_NS + "integer"

# The entry lines are N-Triples (the bulk loader reads them, the catalog shapes check them), not
# SPARQL: their terms are written out in full.


def _status_lines(e: NewVersion) -> list[str]:
    """The lines that make an entry committed: without a ``pg:status`` no reader of the catalog
    takes a version for part of the store."""
    lines = [f"{e.graph} {PG.status} {PG.Current}"]
    if e.previous is not None:
        lines.append(f"{e.previous} {PG.status} {PG.Superseded}")
    return lines


def _version_lines(e: NewVersion) -> list[str]:
    g = e.graph
    revision = [f"{g} {_REVISION_OF} {e.revision_of}"] if e.revision_of is not None else []
    return [
        *revision,
        f"{CATALOG_GRAPH} {PG.hasSourceGraph} {g}",
        f"{g} {_TYPE} {PG.SourceGraph}",
        f"{g} {_TYPE} {_ENTITY}",
        f"{g} {PG.document} {e.document}",
        f"{g} {PG.version} {_lit(str(e.version), _INTEGER)}",
        f"{g} {PG.contentHash} {_lit(e.content_hash)}",
        f"{g} {PG.fingerprint} {_lit(e.fingerprint)}",
        f"{g} {_GENERATED_AT} {_lit(e.ingested_at, XSD_NS + 'dateTime')}",
        f"{g} {_GENERATED_BY} {e.activity}",
        f"{g} {PG.statementCount} {_lit(str(e.statements), _INTEGER)}",
        f"{g} {PG.passageCount} {_lit(str(e.passages), _INTEGER)}",
    ]


def _document_lines(e: NewVersion) -> list[str]:
    d = e.document
    return [
        f"{d} {_TYPE} {PG.SourceDocument}",
        f"{d} {PG.documentKey} {_lit(e.key)}",
        f"{d} {_TITLE} {_lit(e.title)}",
    ]


_CATALOG_TYPE = f"{CATALOG_GRAPH} {_TYPE} {PG.Catalog}"


def entry_triples(entries: Sequence[NewVersion]) -> list[str]:
    """The triples :func:`commit_update` inserts, as N-Triples lines without the final " ."."""
    lines = [_CATALOG_TYPE]
    for e in entries:
        lines += _status_lines(e) + _version_lines(e) + _document_lines(e)
    return lines


def commit_update(entries: Sequence[NewVersion]) -> str:
    """One SPARQL update (one transaction) recording new versions and superseding old ones."""
    return _commit(entries, entry_triples(entries))


def staged_triples(entries: Iterable[NewVersion]) -> Iterator[str]:
    """What a large ingest loads into the catalog ahead of its commit (with the bulk loader, not
    in a transaction), as N-Triples lines without the final " .": every line of
    :func:`entry_triples` but the statuses, and a revised document's title, which the commit
    replaces. The commit (:func:`commit_staged_update`, then
    :func:`provgraph.store.view.finish_commit`) then writes three triples per document where
    :func:`commit_update` writes seventeen: Oxigraph holds a transaction in memory, about 3 KB per
    triple (measured: 20,000 documents took 900 MB to commit whole)."""
    yield _CATALOG_TYPE
    for e in entries:
        yield from _version_lines(e)
        if e.revision_of is None:  # a new document: nothing in the catalog names it yet
            yield from _document_lines(e)


def commit_staged_update(entries: Sequence[NewVersion]) -> str:
    """The commit point of entries whose :func:`staged_triples` are loaded and whose graphs are
    the pending ones of the current view (:func:`provgraph.store.view.pending_quads`), to run in
    one transaction with the change log's entry (``changes.record(committing=True)``): only what
    revisions change (one line or a few per revised document). The new versions' statuses follow,
    in chunks (:func:`provgraph.store.view.finish_commit`)."""
    lines: list[str] = []
    for e in entries:
        if e.previous is not None:
            lines.append(f"{e.previous} {PG.status} {PG.Superseded}")
        if e.revision_of is not None:
            lines += _document_lines(e)
    return _commit(entries, lines)


#: Titles may change between versions; the catalog keeps the newest of the documents ``$documents``.
DELETE_TITLES = Template("""DELETE { GRAPH pgid:catalog { ?d dcterms:title ?t } }
WHERE { VALUES ?d { $documents } GRAPH pgid:catalog { ?d dcterms:title ?t } }""")
#: The ``$lines`` that say the versions the committed ones supersede are current.
DELETE_CURRENT = Template("DELETE DATA { GRAPH pgid:catalog {\n$lines\n} }")
#: The lines ``$lines`` (N-Triples without the final " .", joined by " .\n") into the catalog.
INSERT_ENTRIES = Template("INSERT DATA { GRAPH pgid:catalog {\n$lines .\n} }")


def _commit(entries: Sequence[NewVersion], lines: list[str]) -> str:
    operations = []
    titles = [e.document for e in entries if e.revision_of is not None]
    if titles:
        operations.append(DELETE_TITLES.substitute(documents=sparql_terms(titles)))
    deletes = [f"{e.previous} pg:status pg:Current ." for e in entries if e.previous is not None]
    if deletes:
        operations.append(DELETE_CURRENT.substitute(lines="\n".join(deletes)))
    if lines:
        operations.append(INSERT_ENTRIES.substitute(lines=" .\n".join(lines)))
    return " ;\n".join(operations)


#: What a large ingest staged for the versions ``$graphs`` it never committed: their documents
#: when no committed version names them, then the versions' own entries.
DISCARD_STAGED = Template("""DELETE { GRAPH pgid:catalog { ?d ?p ?o } }
WHERE {
  VALUES ?g { $graphs }
  GRAPH pgid:catalog {
    ?g pg:document ?d . ?d ?p ?o
    FILTER NOT EXISTS { ?other pg:document ?d ; pg:status ?s }
  }
} ;
DELETE { GRAPH pgid:catalog { ?g ?p ?o . pgid:catalog pg:hasSourceGraph ?g } }
WHERE { VALUES ?g { $graphs } GRAPH pgid:catalog { ?g ?p ?o FILTER NOT EXISTS { ?g pg:status ?s } } }""")


def discard_staged(graphs: Iterable[str]) -> str:
    """A SPARQL update operation taking out of the catalog what :func:`staged_triples` loaded for
    ``graphs`` (versions never committed), with the documents no committed version names."""
    values = sparql_terms(sorted(set(graphs)))
    return DISCARD_STAGED.substitute(graphs=values) if values else ""


#: The version ``$graph`` withdrawn at ``$at``.
REVOKE = Template("""DELETE DATA { GRAPH pgid:catalog { $graph pg:status pg:Current } } ;
INSERT DATA { GRAPH pgid:catalog {
  $graph pg:status pg:Revoked ; prov:invalidatedAtTime $at } }""")


def revoke_update(graph: NamedNode, at: str) -> str:
    return REVOKE.substitute(graph=sparql_term(graph), at=_lit(at, XSD_NS + "dateTime"))


#: The catalog entries of the documents ``$documents`` and of their versions.
PREVIEW = Template("""CONSTRUCT { ?s ?p ?o } WHERE {
  VALUES ?d { $documents }
  GRAPH pgid:catalog {
    { ?s pg:document ?d . ?s ?p ?o } UNION { ?d ?p ?o BIND(?d AS ?s) }
  }
}""")


def preview(backend: Backend, entries: Sequence[NewVersion]) -> list[str]:
    """What the catalog will say of the documents of ``entries`` once they are committed, as
    N-Triples lines without the final " .", for validation before the real commit. A document
    with earlier versions gets its catalog entries read and the commit applied to them in memory;
    a new document has none, and its lines are the ones the commit inserts."""
    fresh = [e for e in entries if e.revision_of is None and e.previous is None]
    known = [e for e in entries if e.revision_of is not None or e.previous is not None]
    lines = entry_triples(fresh)
    if not known:
        return lines
    query = PREVIEW.substitute(documents=sparql_terms(sorted({e.document.value for e in known})))
    scratch = ScratchStore()
    scratch.extend(Quad(t.subject, t.predicate, t.object, CATALOG_GRAPH) for t in backend.construct(query))
    scratch.update(commit_update(known))
    return lines + [line[:-2] for line in scratch.ntriples(CATALOG_GRAPH).splitlines()]


CURRENT_GRAPHS = "SELECT ?g WHERE { GRAPH pgid:catalog { ?g pg:status pg:Current } }"
COMMITTED_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH pgid:catalog { ?g pg:status ?status } }"


def current_graphs(backend: Backend) -> list[NamedNode]:
    return [cast(NamedNode, row["g"]) for row in backend.select(CURRENT_GRAPHS)]


def catalogued_graphs(backend: Backend) -> set[str]:
    """Every committed version (an entry a large ingest staged but never committed has no
    status)."""
    return {row.value("g") for row in backend.select(COMMITTED_GRAPHS)}


def orphan_graphs(backend: Backend) -> list[NamedNode]:
    """Source graphs written but never committed (an ingest that died between writing its
    graph and committing the catalog): provgraph's own graph names the catalog does not know."""
    known = catalogued_graphs(backend)
    prefix = ID_NS + "doc/"
    return [
        g
        for g in backend.named_graphs()
        if isinstance(g, NamedNode) and g.value.startswith(prefix) and g.value not in known
    ]


def remove_orphans(backend: Backend) -> list[str]:
    """Remove :func:`orphan_graphs`; returns their names."""
    orphans = orphan_graphs(backend)
    for graph in orphans:
        backend.remove_graph(graph)
    return [g.value for g in orphans]


SOURCES = """SELECT ?d ?key ?g ?v ?status ?hash ?at ?n ?np ?prev ?title ?url ?issued ?tier ?publisher WHERE {
  GRAPH pgid:catalog {
    ?d pg:documentKey ?key .
    ?g pg:document ?d ; pg:version ?v ; pg:status ?status ; pg:contentHash ?hash ;
       prov:generatedAtTime ?at ; pg:statementCount ?n ; pg:passageCount ?np .
    OPTIONAL { ?g prov:wasRevisionOf ?prev }
  }
  GRAPH ?g {
    ?d dcterms:title ?title ; pg:tier ?tier .
    OPTIONAL { ?d pg:sourceUrl ?url }
    OPTIONAL { ?d dcterms:issued ?issued }
    OPTIONAL { ?d dcterms:publisher ?publisher }
  }
} ORDER BY ?key DESC(?v)"""


def sources(backend: Backend, *, key: str | None = None, document: NamedNode | None = None) -> list[SourceInfo]:
    """Every document in the catalog with its versions, newest first, sorted by title; or the
    one with ``key``, or the one that is ``document``. Both are bound as terms (SPARQL
    substitutions), never written into the query text."""
    bound: Substitutions = {}
    if key is not None:
        bound["key"] = Literal(key)
    elif document is not None:
        bound["d"] = document
    by_doc: dict[str, dict[str, object]] = {}
    versions: dict[str, list[SourceVersion]] = {}
    for row in backend.select(SOURCES, substitutions=bound or None):
        doc = row.value("d")
        status = SourceStatus.from_iri(row.value("status"))
        version = SourceVersion(
            graph=row.value("g"),
            version=row.integer("v"),
            status=status,
            content_hash=row.value("hash"),
            ingested_at=row.moment("at"),
            statements=row.integer("n"),
            passages=row.integer("np"),
            was_revision_of=row.optional_value("prev"),
        )
        if doc not in by_doc:  # newest version first: it describes the document
            by_doc[doc] = {
                "document": doc,
                "key": row.value("key"),
                "title": row.value("title"),
                "url": row.optional_value("url"),
                "issued": row.optional_value("issued"),
                "tier": row.integer("tier"),
                "publisher": row.optional_value("publisher"),
                "status": status,
                "current_graph": None,
                "versions": versions.setdefault(doc, []),
            }
        versions[doc].append(version)
        if status is SourceStatus.CURRENT:
            by_doc[doc]["current_graph"] = version.graph
    result = [SourceInfo.model_validate(v) for v in by_doc.values()]
    return sorted(result, key=lambda s: (s.title.casefold(), s.key))


__all__ = [
    "CurrentVersion",
    "NewVersion",
    "catalogued_graphs",
    "commit_staged_update",
    "commit_update",
    "current_graphs",
    "discard_staged",
    "lookup",
    "orphan_graphs",
    "preview",
    "remove_orphans",
    "revoke_update",
    "sources",
    "staged_triples",
]
