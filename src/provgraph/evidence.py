"""All evidence for a fact: every statement, in any source graph, of a triple, with its source
document, passage, confidence, method and time. Found in one hop through the fact key when the
object is known exactly."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from string import Template

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
#: can), with their documents; ``$status`` filters the versions.
EVIDENCE = Template("""SELECT ?st ?fact ?subj ?pred ?o ?g ?status ?v ?d ?key ?title ?tier ?conf ?method ?at
WHERE {
  $pattern
  # the document is the one the catalog says the graph is a version of: never one a graph names
  GRAPH pgid:catalog { ?g pg:document ?d ; pg:status ?status ; pg:version ?v }
  $status
  GRAPH ?g {
    ?st prov:wasDerivedFrom ?d ; pg:confidence ?conf ; pg:extractionMethod ?method ;
        prov:generatedAtTime ?at .
    ?d pg:documentKey ?key ; dcterms:title ?title ; pg:tier ?tier .
  }
  # No OPTIONAL here: Oxigraph evaluates the right side of one on its own, over every graph (at
  # 1,000 documents the document's URL, issue date and publisher as OPTIONALs cost 30 ms a
  # query, growing with the number of documents): they are read by _attach_documents, and the
  # passage, reviewer and original graph by _attach_details, with the graphs bound.
}
ORDER BY ?tier DESC(?conf) ?key ?st""")
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
CURRENT_ONLY = "FILTER(?status = pg:Current)"

#: Document properties read for the graphs found, each one value at most.
_DOCUMENT = {PG_NS + "sourceUrl": "url", DCTERMS_NS + "issued": "issued", DCTERMS_NS + "publisher": "publisher"}
#: The properties ``$properties`` of the (graph, document) pairs ``$pairs``.
DOCUMENT_PROPERTIES = Template(
    "SELECT ?g ?d ?k ?x WHERE { VALUES (?g ?d) { $pairs } VALUES ?k { $properties } GRAPH ?g { ?d ?k ?x } }"
)
#: Every property but ``$known`` of the (statement, graph) pairs ``$pairs``.
STATEMENT_DETAILS = Template("""SELECT ?st ?g ?p ?o WHERE {
  VALUES (?st ?g) { $pairs }
  GRAPH ?g { ?st ?p ?o FILTER(?p NOT IN ($known)) }
} ORDER BY ?st ?p ?o""")
_KNOWN_LIST = ", ".join(sparql_term(k) for k in sorted(_KNOWN))  # SPARQL's IN takes commas
#: Every property of the (passage, graph) pairs ``$pairs``.
PASSAGES = Template("SELECT ?p ?g ?k ?v WHERE { VALUES (?p ?g) { $pairs } GRAPH ?g { ?p ?k ?v } }")


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
    query = EVIDENCE.substitute(pattern=pattern, status="" if include_history else CURRENT_ONLY)
    found: dict[str, dict[str, object]] = {}
    revoked = revocations.statements(backend)
    for row in backend.select(query, substitutions=bound):
        key = f"{row.value('st')} {row.value('g')}"
        if key in found:
            continue
        if row.value("st") in revoked:
            if not include_history:
                continue
            found[key] = {**_row(row, subject, predicate), "status": SourceStatus.REVOKED}
            continue
        found[key] = _row(row, subject, predicate)
    _attach_documents(backend, found.values())
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_details(backend, evidence)
    return evidence


def about(backend: Backend, subjects: Sequence[NamedNode | BlankNode], *, limit: int | None = None) -> list[Evidence]:
    """Every statement, in current source graphs and not revoked, whose subject is one of
    ``subjects``: the facts about them, one hop out, as :func:`find` returns them. A blank node
    subject is the stored node itself (a labelled ``[]`` of one document), bound by
    substitution: written into a query it would be a fresh variable."""
    iris = [s for s in subjects if isinstance(s, NamedNode)]
    found: dict[str, dict[str, object]] = {}
    if iris:
        _about(backend, OF_SUBJECTS.substitute(subjects=sparql_terms(iris)), None, iris[0], limit, found)
    for node in subjects:
        if isinstance(node, BlankNode) and (limit is None or len(found) < limit):
            _about(backend, STATEMENTS, node, node, None if limit is None else limit - len(found), found)
    _attach_documents(backend, found.values())
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_details(backend, evidence)
    return evidence


def pointing_at(backend: Backend, objects: Sequence[NamedNode], *, limit: int) -> list[Evidence]:
    """Statements, in current source graphs and not revoked, whose object is one of ``objects``:
    the facts pointing at them, one hop in ("ibuprofen interacts with warfarin" for warfarin), as
    :func:`find` returns them; at most ``limit``, of the first ``4 * limit`` statements the
    engine finds in any version (a hub is the object of too many to read them all)."""
    found: dict[str, dict[str, object]] = {}
    if objects and limit > 0:
        pattern = OF_OBJECTS.substitute(objects=sparql_terms(objects), limit=4 * limit)
        _about(backend, pattern, None, objects[0], limit, found)
    _attach_documents(backend, found.values())
    evidence = [Evidence.model_validate(v) for v in found.values()]
    _attach_details(backend, evidence)
    return evidence


def _about(
    backend: Backend,
    pattern: str,
    node: BlankNode | None,
    given: NamedNode | BlankNode,
    limit: int | None,
    found: dict[str, dict[str, object]],
) -> None:
    query = EVIDENCE.substitute(pattern=pattern, status=CURRENT_ONLY)
    revoked = revocations.statements(backend)
    # the rows are read as the engine sorts them: a limit stops reading, as LIMIT would stop it
    stream = backend.stream(query, substitutions={"subj": node} if node is not None else None)
    rows = (row for row in stream if row.value("st") not in revoked)
    for row in rows if limit is None else islice(rows, limit):
        key = f"{row.value('st')} {row.value('g')}"
        if key not in found:
            found[key] = _row(row, given, NamedNode(RDF_NS + "value"))


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


def _attach_documents(backend: Backend, rows: Iterable[dict[str, object]]) -> None:
    """Each row's document URL, issue date and publisher (the least value of each, if any), read
    with the (graph, document) pairs bound."""
    rows = list(rows)
    for row in rows:
        row.update(dict.fromkeys(_DOCUMENT.values()))
    pairs = sorted({(str(r["graph"]), str(r["document"])) for r in rows})
    if not pairs:
        return
    query = DOCUMENT_PROPERTIES.substitute(pairs=_pairs(pairs), properties=sparql_terms(_DOCUMENT))
    found: dict[tuple[str, str], dict[str, str]] = {}
    for r in backend.select(query):
        key, field = (r.value("g"), r.value("d")), _DOCUMENT[r.value("k")]
        value = r.value("x")
        if field not in found.setdefault(key, {}) or value < found[key][field]:
            found[key][field] = value
    for row in rows:
        row.update(found.get((str(row["graph"]), str(row["document"])), {}))


def _pairs(pairs: Iterable[tuple[str, str]]) -> str:
    """IRI pairs as the rows of a two-variable ``VALUES`` block."""
    return " ".join(f"({sparql_term(a)} {sparql_term(b)})" for a, b in pairs)


def _attach_details(backend: Backend, evidence: list[Evidence]) -> None:
    """The rest of each statement's provenance, with the statements bound (one query): its
    passage, reviewer, last verification, original graph, and further properties (e.g.
    DBpedia's edit metadata) as ``attributes``. Then the passages' text and position."""
    if not evidence:
        return
    query = STATEMENT_DETAILS.substitute(pairs=_pairs((e.statement, e.graph) for e in evidence), known=_KNOWN_LIST)
    properties: dict[tuple[str, str], dict[str, list[Term]]] = {}
    for row in backend.select(query):
        key = (row.value("st"), row.value("g"))
        properties.setdefault(key, {}).setdefault(row.value("p"), []).append(row["o"])
    passages = _passages(
        backend,
        {(found[PG_NS + "sourcePassage"][0].value, key[1]) for key, found in properties.items()
         if PG_NS + "sourcePassage" in found},
    )  # fmt: skip
    for i, e in enumerate(evidence):
        found = properties.get((e.statement, e.graph))
        if not found:
            continue
        first = {p: v[0].value for p, v in found.items() if p in _DETAILS}
        verified = first.get(PG_NS + "lastVerified")
        update: dict[str, object] = {
            "passage": passages.get((first.get(PG_NS + "sourcePassage", ""), e.graph)),
            "reviewer": first.get(PG_NS + "reviewer"),
            "last_verified": parse_datetime(verified) if verified is not None else None,
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
