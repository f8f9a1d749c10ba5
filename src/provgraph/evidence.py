"""All evidence for a fact: every statement, in any source graph, of a triple, with its source
document, passage, confidence, method and time. Found in one hop through the fact key when the
object is known exactly."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from string import Template
from typing import TypeVar, cast

from provgraph.errors import InputError
from provgraph.ingest.records import LiteralCanonicalizer
from provgraph.models import Evidence, ExtractionMethod, PassageInfo, SourceStatus
from provgraph.store import revocations
from provgraph.store.base import Backend, Substitutions
from provgraph.store.terms import (
    BlankNode,
    Literal,
    NamedNode,
    RdfFormat,
    Row,
    Term,
    parse,
    parse_datetime,
    sparql_term,
    sparql_terms,
)
from provgraph.vocab import DCTERMS_NS, PG_NS, PROV_NS, RDF_NS, fact_iri

ObjectSpec = NamedNode | Literal | str
T = TypeVar("T")

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

#: The statements ``$pattern`` finds (it binds ?st, ?g, ?o and ?fact, and ?subj and ?pred if it
#: can), in any graph: superseded versions and the current view's copies too, which the catalog
#: then sorts out. Their documents and properties are read by the queries below, with the
#: statements, graphs and documents bound: one query joining the catalog and the documents to a
#: ``GRAPH ?g`` pattern took Virtuoso 1.2 s (it started from the documents' statements), and an
#: OPTIONAL in it made Oxigraph read every graph.
CANDIDATES = Template("SELECT ?st ?g ?subj ?pred ?o ?fact WHERE { $pattern }")
#: The statements of the fact ``?fact`` (bound): one hop through the fact key.
BY_FACT = "GRAPH ?g { ?st pg:fact ?fact ; rdf:object ?o }"
#: The statements of ``?subj`` and ``?pred`` (each bound, by substitution or ``VALUES``, or free).
STATEMENTS = "GRAPH ?g { ?st rdf:subject ?subj ; rdf:predicate ?pred ; rdf:object ?o ; pg:fact ?fact }"
#: ... whose object is a literal with the lexical form ``$text``.
WITH_TEXT = Template(STATEMENTS + " FILTER(isLiteral(?o) && STR(?o) = $text)")
#: ... whose subject is one of ``$subjects``.
OF_SUBJECTS = Template("VALUES ?subj { $subjects } " + STATEMENTS)
#: The statements whose object is one of the IRIs ``$objects``: the facts pointing at them. At
#: most ``$limit`` are read, in the engine's order, before the documents are joined and sorted: a
#: hub (a country, a class) is the object of millions of statements.
OF_OBJECTS = Template("""{ SELECT ?st ?g ?subj ?pred ?o ?fact WHERE {
    VALUES ?o { $objects }
    GRAPH ?g { ?st rdf:object ?o ; rdf:subject ?subj ; rdf:predicate ?pred ; pg:fact ?fact }
  } LIMIT $limit }""")

#: What the catalog records of the graphs ``$graphs``: the document each is a version of (never
#: one a graph names), its status and version number.
VERSIONS = Template("""SELECT ?g ?d ?status ?v WHERE {
  VALUES ?g { $graphs }
  GRAPH pgid:catalog { ?g pg:document ?d ; pg:status ?status ; pg:version ?v }
}""")
#: Every property of the (statement, graph) pairs ``$pairs``.
STATEMENT_PROPERTIES = Template(
    "SELECT ?st ?g ?p ?o WHERE { VALUES (?st ?g) { $pairs } GRAPH ?g { ?st ?p ?o } } ORDER BY ?st ?p ?o"
)
#: The properties ``$properties`` (a comma-separated list) of the (graph, document) pairs ``$pairs``.
#: Filtered, not a second VALUES: Oxigraph read such a VALUES of properties over every graph of
#: the store (72 ms for the 10 documents of an ask at 1M facts in 10,000 graphs; 0.5 ms so).
DOCUMENT_PROPERTIES = Template(
    "SELECT ?g ?d ?k ?x WHERE { VALUES (?g ?d) { $pairs } GRAPH ?g { ?d ?k ?x } FILTER(?k IN ($properties)) }"
)
#: Every property of the (passage, graph) pairs ``$pairs``.
PASSAGES = Template("SELECT ?p ?g ?k ?v WHERE { VALUES (?p ?g) { $pairs } GRAPH ?g { ?p ?k ?v } }")
#: Bound terms per query: a subject with many facts is read in several queries, each short.
BATCH = 500

#: Statement properties every piece of evidence has (a statement without one is not evidence),
#: by their field in the rows.
_REQUIRED = {
    PROV_NS + "wasDerivedFrom": "d",
    PG_NS + "confidence": "conf",
    PG_NS + "extractionMethod": "method",
    PROV_NS + "generatedAtTime": "at",
}
#: Document properties, required and then optional (the least value of each).
_DOCUMENT_REQUIRED = {PG_NS + "documentKey": "key", DCTERMS_NS + "title": "title", PG_NS + "tier": "tier"}
_DOCUMENT = {PG_NS + "sourceUrl": "url", DCTERMS_NS + "issued": "issued", DCTERMS_NS + "publisher": "publisher"}


def parse_object(text: str) -> NamedNode | Literal | str:
    """Read an object given on a command line: ``<iri>`` or an absolute IRI, an N-Triples
    literal (``"5"^^<http://www.w3.org/2001/XMLSchema#integer>``, ``"chat"@fr``), or else a
    plain value matched against the lexical form of any literal."""
    text = text.strip()
    if text.startswith("<") and text.endswith(">"):
        return _iri(text[1:-1])
    if text.startswith('"'):
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
    bound: Substitutions
    if isinstance(obj, NamedNode | Literal):
        term = LiteralCanonicalizer()(obj) if isinstance(obj, Literal) else str(obj)
        pattern, bound = BY_FACT, {"fact": NamedNode(fact_iri(f"{subject} {predicate} {term}")[1:-1])}
    else:
        pattern, bound = STATEMENTS, {"subj": subject, "pred": predicate}
        if isinstance(obj, str):
            pattern = WITH_TEXT.substitute(text=sparql_term(Literal(obj)))
    return _gather(backend, pattern, bound, subject, predicate, history=include_history)


def about(backend: Backend, subjects: Sequence[NamedNode | BlankNode], *, limit: int | None = None) -> list[Evidence]:
    """Every statement, in current source graphs and not revoked, whose subject is one of
    ``subjects``: the facts about them, one hop out, as :func:`find` returns them. A blank node
    subject is the stored node itself (a labelled ``[]`` of one document), bound by
    substitution: written into a query it would be a fresh variable."""
    iris = [s for s in subjects if isinstance(s, NamedNode)]
    found: list[Evidence] = []
    value = NamedNode(RDF_NS + "value")
    for start in range(0, len(iris), BATCH):
        pattern = OF_SUBJECTS.substitute(subjects=sparql_terms(iris[start : start + BATCH]))
        found += _gather(backend, pattern, None, iris[0], value, limit=_left(limit, found))
    for node in subjects:
        if isinstance(node, BlankNode) and _left(limit, found) != 0:
            found += _gather(backend, STATEMENTS, {"subj": node}, node, value, limit=_left(limit, found))
    return found


def pointing_at(backend: Backend, objects: Sequence[NamedNode], *, limit: int) -> list[Evidence]:
    """Statements, in current source graphs and not revoked, whose object is one of ``objects``:
    the facts pointing at them, one hop in ("ibuprofen interacts with warfarin" for warfarin), as
    :func:`find` returns them; at most ``limit``, of the first ``4 * limit`` statements the
    engine finds in any version (a hub is the object of too many to read them all)."""
    if not objects or limit <= 0:
        return []
    pattern = OF_OBJECTS.substitute(objects=sparql_terms(objects), limit=4 * limit)
    return _gather(backend, pattern, None, objects[0], NamedNode(RDF_NS + "value"), limit=limit)


def _left(limit: int | None, found: Sequence[object]) -> int | None:
    return None if limit is None else max(0, limit - len(found))


def _gather(
    backend: Backend,
    pattern: str,
    bound: Substitutions | None,
    subject: NamedNode | BlankNode,
    predicate: NamedNode,
    *,
    history: bool = False,
    limit: int | None = None,
) -> list[Evidence]:
    """The evidence of the statements ``pattern`` finds: those of current source graphs, not
    revoked (or, with ``history``, of every version, revoked ones marked so), each once per
    graph, best first (tier, then confidence, document key, statement); at most ``limit``.
    ``subject`` and ``predicate`` stand in for what the pattern does not bind."""
    candidates: dict[tuple[str, str], Row] = {}
    for row in backend.stream(CANDIDATES.substitute(pattern=pattern), substitutions=bound):
        candidates.setdefault((row.value("st"), row.value("g")), row)
    versions: dict[str, Row] = {}
    for graphs in _batches(sorted({g for _, g in candidates})):
        versions.update((r.value("g"), r) for r in backend.select(VERSIONS.substitute(graphs=_iris(graphs))))
    current = PG_NS + "Current"
    revoked = revocations.statements(backend)
    kept = {
        key: row
        for key, row in candidates.items()
        if key[1] in versions and (history or (versions[key[1]].value("status") == current and key[0] not in revoked))
    }
    properties = _statement_properties(backend, list(kept))
    documents = _document_properties(backend, sorted({(g, versions[g].value("d")) for _, g in kept}))
    rows: list[dict[str, object]] = []
    for key, row in kept.items():
        version, found = versions[key[1]], properties.get(key, {})
        terms = {name: found[p][0] for p, name in _REQUIRED.items() if p in found}
        document = documents.get((key[1], version.value("d")), {})
        # the document is the one the catalog says the graph is a version of: never one a graph names
        if len(terms) < len(_REQUIRED) or terms["d"] != version["d"] or not set(_DOCUMENT_REQUIRED) <= set(document):
            continue
        terms |= {name: document[p] for p, name in _DOCUMENT_REQUIRED.items()}
        merged = _row(Row.of({**row.as_dict(), **version.as_dict(), **terms}), subject, predicate)
        merged |= {name: document[p].value if p in document else None for p, name in _DOCUMENT.items()}
        if key[0] in revoked:
            merged["status"] = SourceStatus.REVOKED
        merged["properties"] = found
        rows.append(merged)
    rows.sort(key=lambda r: (r["tier"], -cast(float, r["confidence"]), r["document_key"], r["statement"]))
    rows = rows if limit is None else rows[:limit]
    passages = _passages(
        backend,
        {(props[PG_NS + "sourcePassage"][0].value, str(r["graph"]))
         for r in rows if PG_NS + "sourcePassage" in (props := cast(_Properties, r["properties"]))},
    )  # fmt: skip
    return [_evidence(r, passages) for r in rows]


_Properties = dict[str, list[Term]]


def _batches(items: Sequence[T]) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), BATCH):
        yield items[start : start + BATCH]


def _iris(items: Iterable[str]) -> str:
    return " ".join(sparql_term(NamedNode(i)) for i in items)


def _statement_properties(backend: Backend, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], _Properties]:
    properties: dict[tuple[str, str], _Properties] = {}
    for batch in _batches(pairs):
        for row in backend.select(STATEMENT_PROPERTIES.substitute(pairs=_pairs(batch))):
            properties.setdefault((row.value("st"), row.value("g")), {}).setdefault(row.value("p"), []).append(row["o"])
    return properties


def _document_properties(backend: Backend, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Term]]:
    """Each (graph, document)'s properties that evidence shows, the least value of each."""
    found: dict[tuple[str, str], dict[str, Term]] = {}
    wanted = ", ".join(sparql_term(NamedNode(p)) for p in (*_DOCUMENT_REQUIRED, *_DOCUMENT))
    for batch in _batches(pairs):
        for r in backend.select(DOCUMENT_PROPERTIES.substitute(pairs=_pairs(batch), properties=wanted)):
            values, key, value = found.setdefault((r.value("g"), r.value("d")), {}), r.value("k"), r["x"]
            if key not in values or value.value < values[key].value:
                values[key] = value
    return found


def _evidence(row: dict[str, object], passages: dict[tuple[str, str], PassageInfo]) -> Evidence:
    """A row as evidence, with the rest of its statement's provenance: its passage, reviewer,
    last verification, original graph, and further properties (e.g. DBpedia's edit metadata) as
    ``attributes``."""
    found = cast(_Properties, row.pop("properties"))
    first = {p: v[0].value for p, v in found.items() if p in _DETAILS}
    verified = first.get(PG_NS + "lastVerified")
    row |= {
        "passage": passages.get((first.get(PG_NS + "sourcePassage", ""), str(row["graph"]))),
        "reviewer": first.get(PG_NS + "reviewer"),
        "last_verified": parse_datetime(verified) if verified is not None else None,
        "original_graph": first.get(PG_NS + "originalGraph"),
    }
    attributes = {p: [str(o) for o in v] for p, v in found.items() if p not in _DETAILS and p not in _KNOWN}
    if attributes:
        row["attributes"] = attributes
    return Evidence.model_validate(row)


def _subject(bound: Term | None, given: NamedNode | BlankNode) -> str:
    if isinstance(bound, BlankNode):
        return str(bound)  # "_:id", as objects are written: never mistaken for an IRI
    if bound is not None:
        return bound.value
    return str(given)[1:-1] if isinstance(given, NamedNode) else str(given)


def _row(row: Row, subject: NamedNode | BlankNode, predicate: NamedNode) -> dict[str, object]:
    return {
        "statement": row.value("st"),
        "fact": row.value("fact"),
        "subject": _subject(row.get("subj"), subject),
        "predicate": row.optional_value("pred") or predicate.value,
        "object": str(row["o"]),
        "graph": row.value("g"),
        "status": SourceStatus.from_iri(row.value("status")),
        "document": row.value("d"),
        "document_key": row.value("key"),
        "title": row.value("title"),
        "tier": row.integer("tier"),
        "version": row.integer("v"),
        "confidence": row.number("conf"),
        "method": ExtractionMethod.from_iri(row.value("method")),
        "generated_at": row.moment("at"),
    }


def _pairs(pairs: Iterable[tuple[str, str]]) -> str:
    """IRI pairs as the rows of a two-variable ``VALUES`` block."""
    return " ".join(f"({sparql_term(a)} {sparql_term(b)})" for a, b in pairs)


def _passages(backend: Backend, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], PassageInfo]:
    """Passages (IRI, graph) with their text and position."""
    if not wanted:
        return {}
    fields: dict[tuple[str, str], dict[str, str]] = {}
    for row in backend.select(PASSAGES.substitute(pairs=_pairs(sorted(wanted)))):
        fields.setdefault((row.value("p"), row.value("g")), {})[row.value("k")] = row.value("v")
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


__all__ = ["about", "find", "parse_object", "pointing_at"]
