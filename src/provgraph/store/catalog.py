"""The catalog graph: which source graphs exist, which document and version each is, and its
status. It is the commit point of every ingest: a source graph is part of the store once the
catalog gives it a ``pg:status`` (see :func:`commit_update`; a large ingest loads the rest of its
entries ahead of the commit, :func:`staged_triples`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, QuerySolutions, QueryTriples, RdfFormat, Store

from provgraph.models import SourceInfo, SourceStatus, SourceVersion
from provgraph.store.base import Backend
from provgraph.vocab import CATALOG_GRAPH, DCTERMS_NS, ID_NS, PG, PG_NS, PROV_NS, RDF_NS, XSD_NS

_PREFIXES = f"""PREFIX pg: <{PG_NS}>
PREFIX prov: <{PROV_NS}>
PREFIX rdf: <{RDF_NS}>
PREFIX xsd: <{XSD_NS}>
PREFIX dcterms: <{DCTERMS_NS}>
"""
_CAT = f"<{CATALOG_GRAPH.value}>"


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
    return str(Literal(value) if datatype is None else Literal(value, datatype=NamedNode(datatype)))


def lookup(backend: Backend, keys: Iterable[str], documents: dict[str, NamedNode]) -> dict[str, CurrentVersion]:
    """The catalog's view of each document key (unknown documents get version 0)."""
    keys = list(keys)
    found = {k: CurrentVersion(documents[k], None, None, 0, None) for k in keys}
    if not keys:
        return found
    values = " ".join(_lit(k) for k in keys)
    query = (
        _PREFIXES
        + f"""
SELECT ?key ?g ?v ?status ?fp WHERE {{
  VALUES ?key {{ {values} }}
  GRAPH {_CAT} {{
    ?d pg:documentKey ?key .
    ?g pg:document ?d ; pg:version ?v ; pg:status ?status ; pg:fingerprint ?fp .
  }}
}}"""
    )
    for row in _select(backend, query):
        key = row["key"].value
        entry = found[key]
        version = int(row["v"].value)
        current = row["status"] == PG.Current
        newest = version > entry.last_version
        found[key] = CurrentVersion(
            entry.document,
            row["g"] if current else entry.graph,  # type: ignore[arg-type]
            row["fp"].value if current else entry.fingerprint,
            max(entry.last_version, version),
            row["g"] if newest else entry.latest,  # type: ignore[arg-type]
        )
    return found


def _status_lines(e: NewVersion) -> list[str]:
    """The lines that make an entry committed: without a ``pg:status`` no reader of the catalog
    takes a version for part of the store."""
    pg = f"<{PG_NS}"
    lines = [f"<{e.graph.value}> {pg}status> {pg}Current>"]
    if e.previous is not None:
        lines.append(f"<{e.previous.value}> {pg}status> {pg}Superseded>")
    return lines


def _version_lines(e: NewVersion) -> list[str]:
    cat, rdf_type, xsd_int = f"<{CATALOG_GRAPH.value}>", f"<{RDF_NS}type>", XSD_NS + "integer"
    pg, prov = f"<{PG_NS}", f"<{PROV_NS}"
    g = f"<{e.graph.value}>"
    revision = [f"{g} {prov}wasRevisionOf> <{e.revision_of.value}>"] if e.revision_of is not None else []
    return [
        *revision,
        f"{cat} {pg}hasSourceGraph> {g}",
        f"{g} {rdf_type} {pg}SourceGraph>",
        f"{g} {rdf_type} {prov}Entity>",
        f"{g} {pg}document> <{e.document.value}>",
        f"{g} {pg}version> {_lit(str(e.version), xsd_int)}",
        f"{g} {pg}contentHash> {_lit(e.content_hash)}",
        f"{g} {pg}fingerprint> {_lit(e.fingerprint)}",
        f"{g} {prov}generatedAtTime> {_lit(e.ingested_at, XSD_NS + 'dateTime')}",
        f"{g} {prov}wasGeneratedBy> <{e.activity.value}>",
        f"{g} {pg}statementCount> {_lit(str(e.statements), xsd_int)}",
        f"{g} {pg}passageCount> {_lit(str(e.passages), xsd_int)}",
    ]


def _document_lines(e: NewVersion) -> list[str]:
    d = f"<{e.document.value}>"
    return [
        f"{d} <{RDF_NS}type> <{PG_NS}SourceDocument>",
        f"{d} <{PG_NS}documentKey> {_lit(e.key)}",
        f"{d} <{DCTERMS_NS}title> {_lit(e.title)}",
    ]


_CATALOG_TYPE = f"<{CATALOG_GRAPH.value}> <{RDF_NS}type> <{PG_NS}Catalog>"


def entry_triples(entries: Sequence[NewVersion]) -> list[str]:
    """The triples :func:`commit_update` inserts, as N-Triples lines without the final " ."."""
    lines = [_CATALOG_TYPE]
    for e in entries:
        lines += _status_lines(e) + _version_lines(e) + _document_lines(e)
    return lines


def commit_update(entries: Sequence[NewVersion]) -> str:
    """One SPARQL update (one transaction) recording new versions and superseding old ones."""
    return _commit(entries, entry_triples(entries))


def staged_triples(entries: Sequence[NewVersion]) -> Iterator[str]:
    """What a large ingest loads into the catalog ahead of its commit (with the bulk loader, not
    in a transaction), as N-Triples lines without the final " .": every line of
    :func:`entry_triples` but the statuses, and a revised document's title, which the commit
    replaces. :func:`commit_staged_update` then writes three triples per document where
    :func:`commit_update` writes seventeen: Oxigraph holds a transaction in memory, about 3 KB per
    triple (measured: 20,000 documents took 900 MB to commit whole)."""
    yield _CATALOG_TYPE
    for e in entries:
        yield from _version_lines(e)
        if e.revision_of is None:  # a new document: nothing in the catalog names it yet
            yield from _document_lines(e)


def commit_staged_update(entries: Sequence[NewVersion]) -> str:
    """The commit of entries whose :func:`staged_triples` are loaded: one transaction."""
    lines: list[str] = []
    for e in entries:
        lines += _status_lines(e)
        if e.revision_of is not None:
            lines += _document_lines(e)
    return _commit(entries, lines)


def _commit(entries: Sequence[NewVersion], lines: list[str]) -> str:
    deletes = [f"<{e.previous.value}> pg:status pg:Current ." for e in entries if e.previous is not None]
    # Titles may change between versions; the catalog keeps the newest.
    titles = " ".join(f"<{e.document.value}>" for e in entries if e.revision_of is not None)
    update = _PREFIXES
    if titles:
        update += f"""DELETE {{ GRAPH {_CAT} {{ ?d dcterms:title ?t }} }}
WHERE {{ VALUES ?d {{ {titles} }} GRAPH {_CAT} {{ ?d dcterms:title ?t }} }} ;
"""
    if deletes:
        update += "DELETE DATA { GRAPH " + _CAT + " {\n" + "\n".join(deletes) + "\n} } ;\n"
    update += "INSERT DATA { GRAPH " + _CAT + " {\n" + " .\n".join(lines) + " .\n} }"
    return update


def discard_staged(graphs: Iterable[str]) -> str:
    """A SPARQL update operation taking out of the catalog what :func:`staged_triples` loaded for
    ``graphs`` (versions never committed), with the documents no committed version names."""
    values = " ".join(f"<{g}>" for g in sorted(set(graphs)))
    if not values:
        return ""
    return f"""DELETE {{ GRAPH {_CAT} {{ ?d ?p ?o }} }}
WHERE {{
  VALUES ?g {{ {values} }}
  GRAPH {_CAT} {{
    ?g <{PG_NS}document> ?d . ?d ?p ?o
    FILTER NOT EXISTS {{ ?other <{PG_NS}document> ?d ; <{PG_NS}status> ?s }}
  }}
}} ;
DELETE {{ GRAPH {_CAT} {{ ?g ?p ?o . {_CAT} <{PG_NS}hasSourceGraph> ?g }} }}
WHERE {{ VALUES ?g {{ {values} }} GRAPH {_CAT} {{ ?g ?p ?o FILTER NOT EXISTS {{ ?g <{PG_NS}status> ?s }} }} }}"""


def revoke_update(graph: NamedNode, at: str) -> str:
    g = f"<{graph.value}>"
    return (
        _PREFIXES
        + f"""DELETE DATA {{ GRAPH {_CAT} {{ {g} pg:status pg:Current }} }} ;
INSERT DATA {{ GRAPH {_CAT} {{
  {g} pg:status pg:Revoked ; prov:invalidatedAtTime {_lit(at, XSD_NS + "dateTime")} }} }}"""
    )


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
    values = " ".join(sorted({f"<{e.document.value}>" for e in known}))
    query = (
        _PREFIXES
        + f"""
CONSTRUCT {{ ?s ?p ?o }} WHERE {{
  VALUES ?d {{ {values} }}
  GRAPH {_CAT} {{
    {{ ?s pg:document ?d . ?s ?p ?o }} UNION {{ ?d ?p ?o BIND(?d AS ?s) }}
  }}
}}"""
    )
    scratch = Store()
    triples = backend.query(query)
    assert isinstance(triples, QueryTriples)
    scratch.extend(Quad(t.subject, t.predicate, t.object, CATALOG_GRAPH) for t in triples)
    scratch.update(commit_update(known))
    dumped = scratch.dump(format=RdfFormat.N_TRIPLES, from_graph=CATALOG_GRAPH)
    assert dumped is not None
    text = dumped.decode("utf-8")
    return lines + [line[:-2] for line in text.splitlines()]


def current_graphs(backend: Backend) -> list[NamedNode]:
    query = _PREFIXES + f"SELECT ?g WHERE {{ GRAPH {_CAT} {{ ?g pg:status pg:Current }} }}"
    return [row["g"] for row in _select(backend, query)]  # type: ignore[misc]


def catalogued_graphs(backend: Backend) -> set[str]:
    """Every committed version (an entry a large ingest staged but never committed has no
    status)."""
    query = _PREFIXES + f"SELECT DISTINCT ?g WHERE {{ GRAPH {_CAT} {{ ?g pg:status ?status }} }}"
    return {row["g"].value for row in _select(backend, query)}


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


_SOURCES = (
    _PREFIXES
    + f"""
SELECT ?d ?key ?g ?v ?status ?hash ?at ?n ?np ?prev ?title ?url ?issued ?tier ?publisher WHERE {{
  GRAPH {_CAT} {{
    ?d pg:documentKey ?key .
    ?g pg:document ?d ; pg:version ?v ; pg:status ?status ; pg:contentHash ?hash ;
       prov:generatedAtTime ?at ; pg:statementCount ?n ; pg:passageCount ?np .
    OPTIONAL {{ ?g prov:wasRevisionOf ?prev }}
  }}
  GRAPH ?g {{
    ?d dcterms:title ?title ; pg:tier ?tier .
    OPTIONAL {{ ?d pg:sourceUrl ?url }}
    OPTIONAL {{ ?d dcterms:issued ?issued }}
    OPTIONAL {{ ?d dcterms:publisher ?publisher }}
  }}
}} ORDER BY ?key DESC(?v)"""
)


def sources(backend: Backend, *, key: str | None = None, document: NamedNode | None = None) -> list[SourceInfo]:
    """Every document in the catalog with its versions, newest first, sorted by title; or the
    one with ``key``, or the one that is ``document``. Both are bound as terms (SPARQL
    substitutions), never written into the query text."""
    bound: dict[str, NamedNode | BlankNode | Literal] = {}
    if key is not None:
        bound["key"] = Literal(key)
    elif document is not None:
        bound["d"] = document
    rows = backend.query(_SOURCES, substitutions=bound or None)
    assert isinstance(rows, QuerySolutions)
    by_doc: dict[str, dict[str, object]] = {}
    for row in rows:
        doc = row["d"].value
        status = SourceStatus.from_iri(row["status"].value)
        version = SourceVersion(
            graph=row["g"].value,
            version=int(row["v"].value),
            status=status,
            content_hash=row["hash"].value,
            ingested_at=datetime.fromisoformat(row["at"].value.replace("Z", "+00:00")),
            statements=int(row["n"].value),
            passages=int(row["np"].value),
            was_revision_of=row["prev"].value if row["prev"] is not None else None,
        )
        if doc not in by_doc:  # newest version first: it describes the document
            by_doc[doc] = {
                "document": doc,
                "key": row["key"].value,
                "title": row["title"].value,
                "url": _opt(row["url"]),
                "issued": _opt(row["issued"]),
                "tier": int(row["tier"].value),
                "publisher": _opt(row["publisher"]),
                "status": status,
                "current_graph": None,
                "versions": [],
            }
        info = by_doc[doc]
        info["versions"].append(version)  # type: ignore[attr-defined]
        if status is SourceStatus.CURRENT:
            info["current_graph"] = version.graph
    result = [SourceInfo.model_validate(v) for v in by_doc.values()]
    return sorted(result, key=lambda s: (s.title.casefold(), s.key))


def _opt(term: object | None) -> str | None:
    return None if term is None else term.value  # type: ignore[attr-defined]


def _select(backend: Backend, query: str) -> QuerySolutions:
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    return result


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
