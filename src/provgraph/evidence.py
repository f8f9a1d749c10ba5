"""All evidence for a fact: every statement, in any source graph, of a triple, with its source
document, passage, confidence, method and time. Found in one hop through the fact key when the
object is known exactly."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from pyoxigraph import BlankNode, Literal, NamedNode, QuerySolutions

from provgraph.errors import InputError
from provgraph.ingest.records import LiteralCanonicalizer
from provgraph.models import Evidence, ExtractionMethod, PassageInfo, SourceStatus
from provgraph.store.base import Backend
from provgraph.vocab import CATALOG_GRAPH, DCTERMS_NS, PG_NS, PROV_NS, RDF_NS, fact_iri

ObjectSpec = NamedNode | Literal | str

_KNOWN = {
    RDF_NS + "type",
    RDF_NS + "subject",
    RDF_NS + "predicate",
    RDF_NS + "object",
    PG_NS + "fact",
    PROV_NS + "wasDerivedFrom",
    PROV_NS + "wasGeneratedBy",
    PROV_NS + "generatedAtTime",
    PG_NS + "confidence",
    PG_NS + "extractionMethod",
}
#: Statement properties read into their own fields of :class:`Evidence`, not into ``attributes``.
_DETAILS = {PG_NS + "sourcePassage", PG_NS + "reviewer", PG_NS + "lastVerified", PG_NS + "originalGraph"}

_QUERY = f"""PREFIX pg: <{PG_NS}>
PREFIX prov: <{PROV_NS}>
PREFIX rdf: <{RDF_NS}>
PREFIX dcterms: <{DCTERMS_NS}>
SELECT ?st ?fact ?subj ?pred ?o ?g ?status ?v ?d ?key ?title ?tier ?conf ?method ?at
WHERE {{
  {{PATTERN}}
  # the document is the one the catalog says the graph is a version of: never one a graph names
  GRAPH <{CATALOG_GRAPH.value}> {{ ?g pg:document ?d ; pg:status ?status ; pg:version ?v }}
  {{STATUS}}
  GRAPH ?g {{
    ?st prov:wasDerivedFrom ?d ; pg:confidence ?conf ; pg:extractionMethod ?method ;
        prov:generatedAtTime ?at .
    ?d pg:documentKey ?key ; dcterms:title ?title ; pg:tier ?tier .
  }}
  # No OPTIONAL here: Oxigraph evaluates the right side of one on its own, over every graph (at
  # 1,000 documents the document's URL, issue date and publisher as OPTIONALs cost 30 ms a
  # query, growing with the number of documents): they are read by _attach_documents, and the
  # passage, reviewer and original graph by _attach_details, with the graphs bound.
}}
ORDER BY ?tier DESC(?conf) ?key ?st"""
#: Document properties read for the graphs found, each one value at most.
_DOCUMENT = {PG_NS + "sourceUrl": "url", DCTERMS_NS + "issued": "issued", DCTERMS_NS + "publisher": "publisher"}


def parse_object(text: str) -> NamedNode | Literal | str:
    """Read an object given on a command line: ``<iri>`` or an absolute IRI, an N-Triples
    literal (``"5"^^<http://www.w3.org/2001/XMLSchema#integer>``, ``"chat"@fr``), or else a
    plain value matched against the lexical form of any literal."""
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        return _iri(text[1:-1])
    if text.startswith('"'):
        from pyoxigraph import RdfFormat, parse

        try:
            quad = next(iter(parse(f"<x:s> <x:p> {text} .".encode(), format=RdfFormat.N_TRIPLES)))
        except (SyntaxError, StopIteration) as exc:
            raise InputError(f"not an N-Triples literal: {text}") from exc
        assert isinstance(quad.object, Literal)
        return quad.object
    if ":" in text and " " not in text and not text[0].isdigit() and not text.startswith("-"):
        try:
            return NamedNode(text)
        except ValueError:
            pass
    return text


def _iri(text: str) -> NamedNode:
    try:
        return NamedNode(text)
    except ValueError as exc:
        raise InputError(f"not an absolute IRI: {text!r}") from exc


def find(
    backend: Backend,
    subject: NamedNode | BlankNode,
    predicate: NamedNode,
    obj: ObjectSpec | None,
    *,
    include_history: bool,
) -> list[Evidence]:
    if isinstance(subject, BlankNode):
        raise InputError("evidence needs an IRI subject: blank nodes are local to their document")
    # Terms are written into the query in N-Triples syntax, which SPARQL reads as is.
    if isinstance(obj, NamedNode | Literal):
        term = LiteralCanonicalizer()(obj) if isinstance(obj, Literal) else str(obj)
        fact = fact_iri(f"{subject} {predicate} {term}")
        pattern = f"BIND({fact} AS ?fact) GRAPH ?g {{ ?st pg:fact ?fact ; rdf:object ?o }}"
    else:
        pattern = (
            f"GRAPH ?g {{ ?st rdf:subject {subject} ; rdf:predicate {predicate} ; rdf:object ?o ; pg:fact ?fact }}"
        )
        if isinstance(obj, str):
            pattern += f" FILTER(isLiteral(?o) && STR(?o) = {Literal(obj)})"
    status = "" if include_history else "FILTER(?status = pg:Current)"
    query = _QUERY.replace("{PATTERN}", pattern).replace("{STATUS}", status)
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    found: dict[str, dict[str, object]] = {}
    for row in result:
        key = f"{row['st'].value} {row['g'].value}"
        if key in found:
            continue
        found[key] = _row(row, subject, predicate)
    _attach_documents(backend, found.values())
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_details(backend, evidence)
    return evidence


def about(backend: Backend, subjects: Sequence[NamedNode | BlankNode], *, limit: int | None = None) -> list[Evidence]:
    """Every statement, in current source graphs, whose subject is one of ``subjects``: the
    facts about them, one hop out, as :func:`find` returns them. A blank node subject is the
    stored node itself (a labelled ``[]`` of one document), bound by substitution: written into
    a query it would be a fresh variable."""
    iris = [s for s in subjects if isinstance(s, NamedNode)]
    found: dict[str, dict[str, object]] = {}
    if iris:
        values = " ".join(str(s) for s in iris)
        _about(backend, f"VALUES ?subj {{ {values} }} ", None, iris[0], limit, found)
    for node in subjects:
        if isinstance(node, BlankNode) and (limit is None or len(found) < limit):
            _about(backend, "", node, node, None if limit is None else limit - len(found), found)
    _attach_documents(backend, found.values())
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_details(backend, evidence)
    return evidence


def _about(
    backend: Backend,
    values: str,
    node: BlankNode | None,
    given: NamedNode | BlankNode,
    limit: int | None,
    found: dict[str, dict[str, object]],
) -> None:
    pattern = values + "GRAPH ?g { ?st rdf:subject ?subj ; rdf:predicate ?pred ; rdf:object ?o ; pg:fact ?fact }"
    query = _QUERY.replace("{PATTERN}", pattern).replace("{STATUS}", "FILTER(?status = pg:Current)")
    if limit is not None:
        query += f" LIMIT {int(limit)}"
    result = backend.query(query, substitutions={"subj": node} if node is not None else None)
    assert isinstance(result, QuerySolutions)
    for row in result:
        key = f"{row['st'].value} {row['g'].value}"
        if key not in found:
            found[key] = _row(row, given, NamedNode(RDF_NS + "value"))


def _subject(bound: object | None, given: NamedNode | BlankNode) -> str:
    if isinstance(bound, BlankNode):
        return str(bound)  # "_:id", as objects are written: never mistaken for an IRI
    if bound is not None:
        return bound.value  # type: ignore[attr-defined]
    return str(given)[1:-1] if isinstance(given, NamedNode) else str(given)


def _value(term: object | None) -> str | None:
    return None if term is None else term.value  # type: ignore[attr-defined]


def _row(row: object, subject: NamedNode | BlankNode, predicate: NamedNode) -> dict[str, object]:
    r = row  # pyoxigraph QuerySolution, indexed by variable name
    return {
        "statement": r["st"].value,  # type: ignore[index]
        "fact": r["fact"].value,  # type: ignore[index]
        "subject": _subject(r["subj"], subject),  # type: ignore[index]
        "predicate": r["pred"].value if r["pred"] is not None else predicate.value,  # type: ignore[index]
        "object": str(r["o"]),  # type: ignore[index]
        "graph": r["g"].value,  # type: ignore[index]
        "status": SourceStatus.from_iri(r["status"].value),  # type: ignore[index]
        "document": r["d"].value,  # type: ignore[index]
        "document_key": r["key"].value,  # type: ignore[index]
        "title": r["title"].value,  # type: ignore[index]
        "tier": int(r["tier"].value),  # type: ignore[index]
        "version": int(r["v"].value),  # type: ignore[index]
        "confidence": float(r["conf"].value),  # type: ignore[index]
        "method": ExtractionMethod.from_iri(r["method"].value),  # type: ignore[index]
        "generated_at": _time(r["at"].value),  # type: ignore[index]
    }


def _attach_documents(backend: Backend, rows: Iterable[dict[str, object]]) -> None:
    """Each row's document URL, issue date and publisher (the least value of each, if any), read
    with the (graph, document) pairs bound."""
    rows = list(rows)
    for row in rows:
        row.update(dict.fromkeys(_DOCUMENT.values()))
    pairs = sorted({(str(r["graph"]), str(r["document"])) for r in rows})
    if not pairs:
        return
    values = " ".join(f"(<{g}> <{d}>)" for g, d in pairs)
    props = " ".join(f"<{p}>" for p in _DOCUMENT)
    result = backend.query(
        f"SELECT ?g ?d ?k ?x WHERE {{ VALUES (?g ?d) {{ {values} }} VALUES ?k {{ {props} }} GRAPH ?g {{ ?d ?k ?x }} }}"
    )
    assert isinstance(result, QuerySolutions)
    found: dict[tuple[str, str], dict[str, str]] = {}
    for r in result:
        key, field = (r["g"].value, r["d"].value), _DOCUMENT[r["k"].value]  # type: ignore[union-attr]
        value = r["x"].value  # type: ignore[union-attr]
        if field not in found.setdefault(key, {}) or value < found[key][field]:
            found[key][field] = value
    for row in rows:
        row.update(found.get((str(row["graph"]), str(row["document"])), {}))


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _attach_details(backend: Backend, evidence: list[Evidence]) -> None:
    """The rest of each statement's provenance, with the statements bound (one query): its
    passage, reviewer, last verification, original graph, and further properties (e.g.
    DBpedia's edit metadata) as ``attributes``. Then the passages' text and position."""
    if not evidence:
        return
    values = " ".join(f"(<{e.statement}> <{e.graph}>)" for e in evidence)
    known = ", ".join(f"<{k}>" for k in sorted(_KNOWN))
    query = f"""SELECT ?st ?g ?p ?o WHERE {{
  VALUES (?st ?g) {{ {values} }}
  GRAPH ?g {{ ?st ?p ?o FILTER(?p NOT IN ({known})) }}
}} ORDER BY ?st ?p ?o"""
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    properties: dict[tuple[str, str], dict[str, list[object]]] = {}
    for row in result:
        key = (row["st"].value, row["g"].value)  # type: ignore[union-attr]
        properties.setdefault(key, {}).setdefault(row["p"].value, []).append(row["o"])  # type: ignore[union-attr]
    passages = _passages(
        backend,
        {(str(found[PG_NS + "sourcePassage"][0].value), key[1]) for key, found in properties.items()  # type: ignore[attr-defined]
         if PG_NS + "sourcePassage" in found},
    )  # fmt: skip
    for i, e in enumerate(evidence):
        found = properties.get((e.statement, e.graph))
        if not found:
            continue
        first = {p: v[0].value for p, v in found.items() if p in _DETAILS}  # type: ignore[attr-defined]
        update: dict[str, object] = {
            "passage": passages.get((first.get(PG_NS + "sourcePassage", ""), e.graph)),
            "reviewer": first.get(PG_NS + "reviewer"),
            "last_verified": _time(first[PG_NS + "lastVerified"]) if PG_NS + "lastVerified" in first else None,
            "original_graph": first.get(PG_NS + "originalGraph"),
        }
        attributes = {p: [str(o) for o in v] for p, v in found.items() if p not in _DETAILS}
        if attributes:
            update["attributes"] = attributes
        evidence[i] = e.model_copy(update=update)


def _passages(backend: Backend, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], PassageInfo]:
    """Passages (IRI, graph) with their text and position."""
    if not wanted:
        return {}
    values = " ".join(f"(<{p}> <{g}>)" for p, g in sorted(wanted))
    result = backend.query(f"SELECT ?p ?g ?k ?v WHERE {{ VALUES (?p ?g) {{ {values} }} GRAPH ?g {{ ?p ?k ?v }} }}")
    assert isinstance(result, QuerySolutions)
    fields: dict[tuple[str, str], dict[str, str]] = {}
    for row in result:
        fields.setdefault((row["p"].value, row["g"].value), {})[row["k"].value] = row["v"].value  # type: ignore[union-attr]
    out = {}
    for key, f in fields.items():
        if PG_NS + "text" not in f:
            continue

        def number(name: str, f: dict[str, str] = f) -> int | None:
            return int(f[PG_NS + name]) if PG_NS + name in f else None

        out[key] = PassageInfo(
            iri=key[0],
            text=f[PG_NS + "text"],
            page=number("page"),
            section=f.get(PG_NS + "section"),
            start=number("startOffset"),
            end=number("endOffset"),
        )
    return out


__all__ = ["about", "find", "parse_object"]
