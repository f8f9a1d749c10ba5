"""All evidence for a fact: every statement, in any source graph, of a triple, with its source
document, passage, confidence, method and time. Found in one hop through the fact key when the
object is known exactly."""

from __future__ import annotations

from collections.abc import Sequence
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
    PG_NS + "sourcePassage",
    PG_NS + "reviewer",
    PG_NS + "lastVerified",
    PG_NS + "originalGraph",
}

_QUERY = f"""PREFIX pg: <{PG_NS}>
PREFIX prov: <{PROV_NS}>
PREFIX rdf: <{RDF_NS}>
PREFIX dcterms: <{DCTERMS_NS}>
SELECT ?st ?fact ?subj ?pred ?o ?g ?status ?v ?d ?key ?title ?url ?tier ?issued ?publisher ?conf ?method ?at
       ?p ?ptext ?page ?section ?start ?end ?reviewer ?verified ?orig
WHERE {{
  {{PATTERN}}
  GRAPH <{CATALOG_GRAPH.value}> {{ ?g pg:status ?status ; pg:version ?v }}
  {{STATUS}}
  GRAPH ?g {{
    ?st prov:wasDerivedFrom ?d ; pg:confidence ?conf ; pg:extractionMethod ?method ;
        prov:generatedAtTime ?at .
    ?d pg:documentKey ?key ; dcterms:title ?title ; pg:tier ?tier .
  }}
  # Each OPTIONAL stands on its own, after ?st and ?d are bound: nested inside the GRAPH block
  # above, Oxigraph evaluated them before the join and their cost grew with the store.
  OPTIONAL {{ GRAPH ?g {{ ?d pg:sourceUrl ?url }} }}
  OPTIONAL {{ GRAPH ?g {{ ?d dcterms:issued ?issued }} }}
  OPTIONAL {{ GRAPH ?g {{ ?d dcterms:publisher ?publisher }} }}
  OPTIONAL {{ GRAPH ?g {{ ?st pg:sourcePassage ?p . ?p pg:text ?ptext .
             OPTIONAL {{ ?p pg:page ?page }} OPTIONAL {{ ?p pg:section ?section }}
             OPTIONAL {{ ?p pg:startOffset ?start }} OPTIONAL {{ ?p pg:endOffset ?end }} }} }}
  OPTIONAL {{ GRAPH ?g {{ ?st pg:reviewer ?reviewer }} }}
  OPTIONAL {{ GRAPH ?g {{ ?st pg:lastVerified ?verified }} }}
  OPTIONAL {{ GRAPH ?g {{ ?st pg:originalGraph ?orig }} }}
}}
ORDER BY ?tier DESC(?conf) ?key ?st"""


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
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_attributes(backend, evidence)
    return evidence


def about(backend: Backend, subjects: Sequence[NamedNode], *, limit: int | None = None) -> list[Evidence]:
    """Every statement, in current source graphs, whose subject is one of ``subjects``: the
    facts about them, one hop out, as :func:`find` returns them."""
    if not subjects:
        return []
    values = " ".join(str(s) for s in subjects)
    pattern = (
        f"VALUES ?subj {{ {values} }} "
        "GRAPH ?g { ?st rdf:subject ?subj ; rdf:predicate ?pred ; rdf:object ?o ; pg:fact ?fact }"
    )
    query = _QUERY.replace("{PATTERN}", pattern).replace("{STATUS}", "FILTER(?status = pg:Current)")
    if limit is not None:
        query += f" LIMIT {int(limit)}"
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    found: dict[str, dict[str, object]] = {}
    for row in result:
        key = f"{row['st'].value} {row['g'].value}"
        if key not in found:
            found[key] = _row(row, subjects[0], NamedNode(RDF_NS + "value"))
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_attributes(backend, evidence)
    return evidence


def _subject(bound: object | None, given: NamedNode | BlankNode) -> str:
    if bound is not None:
        return bound.value  # type: ignore[attr-defined]
    return str(given)[1:-1] if isinstance(given, NamedNode) else str(given)


def _value(term: object | None) -> str | None:
    return None if term is None else term.value  # type: ignore[attr-defined]


def _row(row: object, subject: NamedNode | BlankNode, predicate: NamedNode) -> dict[str, object]:
    r = row  # pyoxigraph QuerySolution, indexed by variable name
    passage = None
    if r["p"] is not None:  # type: ignore[index]
        passage = PassageInfo(
            iri=r["p"].value,  # type: ignore[index]
            text=r["ptext"].value,  # type: ignore[index]
            page=int(r["page"].value) if r["page"] is not None else None,  # type: ignore[index]
            section=_value(r["section"]),  # type: ignore[index]
            start=int(r["start"].value) if r["start"] is not None else None,  # type: ignore[index]
            end=int(r["end"].value) if r["end"] is not None else None,  # type: ignore[index]
        )
    verified = _value(r["verified"])  # type: ignore[index]
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
        "url": _value(r["url"]),  # type: ignore[index]
        "tier": int(r["tier"].value),  # type: ignore[index]
        "issued": _value(r["issued"]),  # type: ignore[index]
        "publisher": _value(r["publisher"]),  # type: ignore[index]
        "version": int(r["v"].value),  # type: ignore[index]
        "confidence": float(r["conf"].value),  # type: ignore[index]
        "method": ExtractionMethod.from_iri(r["method"].value),  # type: ignore[index]
        "generated_at": datetime.fromisoformat(r["at"].value.replace("Z", "+00:00")),  # type: ignore[index]
        "passage": passage,
        "reviewer": _value(r["reviewer"]),  # type: ignore[index]
        "last_verified": datetime.fromisoformat(verified.replace("Z", "+00:00")) if verified else None,
        "original_graph": _value(r["orig"]),  # type: ignore[index]
    }


def _attach_attributes(backend: Backend, evidence: list[Evidence]) -> None:
    """Further provenance on the statements (e.g. DBpedia's edit metadata), in one query."""
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
    attributes: dict[tuple[str, str], dict[str, list[str]]] = {}
    for row in result:
        key = (row["st"].value, row["g"].value)  # type: ignore[union-attr]
        attributes.setdefault(key, {}).setdefault(row["p"].value, []).append(str(row["o"]))  # type: ignore[union-attr]
    for i, e in enumerate(evidence):
        found = attributes.get((e.statement, e.graph))
        if found:
            evidence[i] = e.model_copy(update={"attributes": found})


__all__ = ["about", "find", "parse_object"]
