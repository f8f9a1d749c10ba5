"""The provenance of one source graph as a W3C PROV document (PROV-N, PROV-JSON, PROV-XML, or a
picture of it: :mod:`provgraph.provdot`), built with the ``prov`` package.

A source graph already speaks PROV-O; this maps it to the PROV data model:

- the document ``D`` is an entity, with its description (title, key, tier, URL, hash, ...) as
  attributes;
- the extraction activity ``A`` is an activity that used ``D``, started at ingest time, associated
  with the provgraph software agent and any ``--agent``;
- each statement is an entity ``wasDerivedFrom D`` and ``wasGeneratedBy A`` at its time, with the
  reified triple, fact key, confidence, method, passage, reviewer, ... as attributes;
- each passage is an entity with its text and position, ``wasQuotedFrom D``; a statement read
  from a passage ``wasDerivedFrom`` it (``pg:sourcePassage`` stays an attribute too); so does a
  nanopublication record (its content left out) and a statement read from it; a statement's
  ``prov:wasAttributedTo`` and ``prov:hadPrimarySource`` are PROV relations;
- the version ``G`` is an entity (``pg:SourceGraph``) with its version and status from the
  catalog, ``wasGeneratedBy A`` and ``wasRevisionOf`` the version it replaced.

Anything else the graph says about those nodes (DBpedia's edit metadata on statements, say)
becomes an attribute too, so the mapping loses nothing it does not understand.
"""

from __future__ import annotations

import io
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime

from prov.constants import PROV, XSD
from prov.identifier import Identifier, Namespace, QualifiedName
from prov.model import Literal as ProvLiteral
from prov.model import ProvDocument

from provgraph import provdot
from provgraph.errors import InputError
from provgraph.options import ProvFormat
from provgraph.store.base import Backend
from provgraph.store.terms import BlankNode, Literal, NamedNode, RdfFormat, Row, Term, parse_datetime
from provgraph.vocab import DCTERMS_NS, ID_NS, PG, PG_NS, PROV_NS, RDF_NS, RDFS_NS, XSD_NS

# Oxigraph binds by substitution only the variables a SELECT projects: ?graph and ?class are
# projected for that.
#: The catalog entry of the source graph ``?graph``.
VERSION = """SELECT ?graph ?v ?status ?at ?prev WHERE { GRAPH pgid:catalog {
  ?graph a pg:SourceGraph ; pg:version ?v ; pg:status ?status ; prov:generatedAtTime ?at .
  OPTIONAL { ?graph prov:wasRevisionOf ?prev } } }"""
#: Every node of class ``?class`` in the graph ``?graph``, with what the graph says of it.
NODES = "SELECT ?graph ?class ?n ?p ?o WHERE { GRAPH ?graph { ?n a ?class ; ?p ?o } }"
#: The statements of the graph ``?graph``, each with what the graph says of it, grouped.
STATEMENTS = "SELECT ?graph ?n ?p ?o WHERE { GRAPH ?graph { ?n a pg:Statement ; ?p ?o } } ORDER BY ?n"

#: Prefixes written into every PROV document (``prov`` and ``xsd`` are the package's own).
_PREFIXES = {"pg": PG_NS, "pgid": ID_NS, "rdf": RDF_NS, "rdfs": RDFS_NS, "dcterms": DCTERMS_NS}
# Datatypes kept as Python values (the prov package writes them back with the same datatype);
# xsd:integer is not one of them: a Python int would come out as xsd:int.
_XSD_NATIVE = {XSD_NS + "double", XSD_NS + "string", XSD_NS + "dateTime", XSD_NS + "boolean"}
_TYPE = RDF_NS + "type"
# Predicates that become PROV relations or record fields rather than attributes.
_RELATIONS = {
    PROV_NS + "wasDerivedFrom",
    PROV_NS + "wasGeneratedBy",
    PROV_NS + "generatedAtTime",
    PROV_NS + "used",
    PROV_NS + "startedAtTime",
    PROV_NS + "wasAssociatedWith",
    PROV_NS + "wasAttributedTo",
    PROV_NS + "hadPrimarySource",
    PG.nanopubContent.value,  # the nanopublication as published: in export --format nanopub, too long here
}
# What a statement was read from, besides its document.
_READ_FROM = {PG.sourcePassage.value, PG.nanopublication.value}
# Types PROV records already state: repeating them as prov:type adds nothing.
_IMPLIED_TYPES = {PROV_NS + "Entity", PROV_NS + "Activity", PROV_NS + "Agent"}
# Local names that PROV-N writes as they are (PN_LOCAL without escapes): others are values, not names.
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class _Names:
    """IRIs as PROV qualified names, declaring a namespace for each new IRI stem as it comes."""

    def __init__(self, doc: ProvDocument) -> None:
        self._doc = doc
        self._stems: dict[str, Namespace] = {}
        for prefix, uri in _PREFIXES.items():
            self._stems[uri] = doc.add_namespace(prefix, uri)
        self._stems[PROV_NS] = PROV  # the package's own, which every PROV document declares
        self._stems[XSD_NS] = XSD

    def qname(self, iri: str) -> QualifiedName:
        # Longest known stem first: pgid: IRIs keep their path (pgid:doc/abc) as PROV-N allows '/'.
        for stem in sorted(self._stems, key=len, reverse=True):
            if iri.startswith(stem) and _valid_local(iri[len(stem) :], allow_slash=True):
                return self._stems[stem][iri[len(stem) :]]
        cut = max(iri.rfind("/"), iri.rfind("#")) + 1
        stem, local = iri[:cut], iri[cut:]
        if not _valid_local(local, allow_slash=False):
            stem, local = iri, ""  # an IRI ending in odd characters: a namespace of its own
        namespace = self._stems.get(stem)
        if namespace is None:
            namespace = self._doc.add_namespace(f"ns{len(self._stems) - len(_PREFIXES) - 1}", stem)
            self._stems[stem] = namespace
        return namespace[local]

    def value(self, term: Term) -> object:
        """An RDF object as a PROV attribute value."""
        if isinstance(term, NamedNode):
            iri = term.value
            cut = max(iri.rfind("/"), iri.rfind("#")) + 1
            if any(iri.startswith(stem) for stem in self._stems) or _valid_local(iri[cut:], allow_slash=False):
                return self.qname(iri)
            return Identifier(iri)  # written as an xsd:anyURI value
        if isinstance(term, BlankNode):
            return str(term)  # local to the source graph: kept as its label
        datatype = term.datatype.value
        if term.language:
            return ProvLiteral(term.value, langtag=term.language)
        if datatype in _XSD_NATIVE:
            return _native(term.value, datatype)
        return ProvLiteral(term.value, datatype=self.qname(datatype))


def _valid_local(local: str, *, allow_slash: bool) -> bool:
    allowed = _SAFE | {"/"} if allow_slash else _SAFE
    return bool(local) and all(c in allowed for c in local) and not local.startswith(("-", "."))


def _native(lexical: str, datatype: str) -> object:
    try:
        if datatype == XSD_NS + "double":
            return float(lexical)
        if datatype == XSD_NS + "boolean":
            return lexical in ("true", "1")
        if datatype == XSD_NS + "dateTime":
            return parse_datetime(lexical)
    except ValueError:
        pass  # a lexical form Python does not read (a leap second, say) stays a string
    return lexical


Pairs = list[tuple[str, Term]]


def _describe(backend: Backend, graph: NamedNode, cls: NamedNode) -> dict[str, Pairs]:
    """Every node of class ``cls`` in ``graph``, with its (predicate, object) pairs."""
    nodes: dict[str, Pairs] = defaultdict(list)
    for row in backend.select(NODES, substitutions={"graph": graph, "class": cls}):
        nodes[row.value("n")].append((row.value("p"), row["o"]))
    return nodes


def prov_document(backend: Backend, graph: NamedNode) -> ProvDocument:
    """The provenance of source graph ``graph`` (one version of one document) as a PROV document."""
    doc = ProvDocument()
    _add_graph(doc, _Names(doc), backend, graph, None)
    return doc


def fact_document(backend: Backend, statements: Iterable[tuple[str, str]]) -> ProvDocument:
    """The provenance of the (statement, graph) pairs given (a fact's evidence, from every source
    that states it) as one PROV document: each statement with its passage, and each graph's
    document, extraction activity, agents and version."""
    doc = ProvDocument()
    names = _Names(doc)
    by_graph: dict[str, set[str]] = defaultdict(set)
    for statement, graph in statements:
        by_graph[graph].add(statement)
    for graph, kept in sorted(by_graph.items()):
        _add_graph(doc, names, backend, NamedNode(graph), kept)
    return doc


def _add_graph(
    doc: ProvDocument, names: _Names, backend: Backend, graph: NamedNode, statements: set[str] | None
) -> None:
    """Source graph ``graph``'s provenance into ``doc``: every statement, or only ``statements``
    and the passages they were read from."""
    version = backend.select(VERSION, substitutions={"graph": graph})
    if not version:
        raise InputError(
            f"{graph.value} is not a source graph: PROV export needs a source document (key or IRI) "
            "or one of its versions"
        )
    documents = _describe(backend, graph, PG.SourceDocument)
    activities = _describe(backend, graph, PG.ExtractionActivity)
    agents = _describe(backend, graph, NamedNode(PROV_NS + "Agent"))
    passages = _describe(backend, graph, PG.Passage)
    nanopubs = _describe(backend, graph, PG.Nanopublication)
    said = [(iri, pairs) for iri, pairs in _statements(backend, graph) if statements is None or iri in statements]
    if statements is not None:
        cited = {o for _, pairs in said for o in _objects(pairs, PG.sourcePassage.value)}
        passages = {iri: pairs for iri, pairs in passages.items() if iri in cited}
        read_from = {o for _, pairs in said for o in _objects(pairs, PG.nanopublication.value)}
        nanopubs = {iri: pairs for iri, pairs in nanopubs.items() if iri in read_from}

    for iri, pairs in documents.items():
        doc.entity(names.qname(iri), _attributes(names, pairs))
    for iri, pairs in agents.items():
        doc.agent(names.qname(iri), _attributes(names, pairs))
    for iri, pairs in activities.items():
        activity = doc.activity(
            names.qname(iri), _time(_first(pairs, PROV_NS + "startedAtTime")), None, _attributes(names, pairs)
        )
        for predicate, obj in pairs:
            if predicate == PROV_NS + "used" and isinstance(obj, NamedNode):
                doc.used(activity, names.qname(obj.value))
            elif predicate == PROV_NS + "wasAssociatedWith" and isinstance(obj, NamedNode):
                doc.wasAssociatedWith(activity, names.qname(obj.value))
    # a passage, or a nanopublication as published, is a part of its document repeated
    for iri, pairs in [*passages.items(), *nanopubs.items()]:
        part = doc.entity(names.qname(iri), _attributes(names, pairs))
        for document in _objects(pairs, PG.inDocument.value):
            doc.wasQuotedFrom(part, names.qname(document))
    for iri, pairs in said:
        _statement(doc, names, iri, pairs, _attributes(names, pairs), _time(_first(pairs, PROV_NS + "generatedAtTime")))
    _version(doc, names, graph, version[0], activities)


def _statements(backend: Backend, graph: NamedNode) -> Iterator[tuple[str, Pairs]]:
    """Each statement of ``graph`` with its (predicate, object) pairs. Statements are the bulk of
    a graph: rows are grouped by statement as they come (the query orders them) rather than
    collected into a dict of every statement first."""
    current: str | None = None
    said: Pairs = []
    for row in backend.stream(STATEMENTS, substitutions={"graph": graph}):
        subject = row.value("n")
        if subject != current and current is not None:
            yield current, said
            said = []
        current = subject
        said.append((row.value("p"), row["o"]))
    if current is not None:
        yield current, said


def _version(doc: ProvDocument, names: _Names, graph: NamedNode, entry: Row, activities: dict[str, Pairs]) -> None:
    """The source graph as an entity, with its catalog entry."""
    source_graph = doc.entity(
        names.qname(graph.value),
        [
            (names.qname(PROV_NS + "type"), names.qname(PG.SourceGraph.value)),
            (names.qname(PG.version.value), names.value(entry["v"])),
            (names.qname(PG.status.value), names.qname(entry.value("status"))),
        ],
    )
    for activity_iri in activities:
        doc.wasGeneratedBy(source_graph, names.qname(activity_iri), _time(entry["at"]))
    previous = entry.optional_value("prev")
    if previous is not None:
        doc.wasRevisionOf(source_graph, names.qname(previous))


def _attributes(names: _Names, pairs: Pairs) -> list[tuple[QualifiedName, object]]:
    """What a node's pairs say beyond the PROV relations, as PROV attributes."""
    out: list[tuple[QualifiedName, object]] = []
    for predicate, obj in pairs:
        if predicate in _RELATIONS or (predicate == _TYPE and obj.value in _IMPLIED_TYPES):
            continue
        if predicate == _TYPE:
            key = names.qname(PROV_NS + "type")
        elif predicate == RDFS_NS + "label":
            key = names.qname(PROV_NS + "label")
        else:
            key = names.qname(predicate)
        out.append((key, names.value(obj)))
    return out


def _objects(pairs: Pairs, predicate: str) -> list[str]:
    return [o.value for p, o in pairs if p == predicate and isinstance(o, NamedNode)]


def _first(pairs: Pairs, predicate: str) -> Term | None:
    return next((o for p, o in pairs if p == predicate), None)


def _time(term: Term | None) -> datetime | str | None:
    """A literal's time as the prov package takes it (a lexical form Python does not read, a leap
    second say, stays a string)."""
    if not isinstance(term, Literal):
        return None
    try:
        return parse_datetime(term.value)
    except ValueError:
        return term.value


def _statement(
    doc: ProvDocument,
    names: _Names,
    iri: str,
    pairs: Pairs,
    attrs: list[tuple[QualifiedName, object]],
    at: datetime | str | None,
) -> None:
    entity = doc.entity(names.qname(iri), attrs)
    for predicate, obj in pairs:
        if predicate == PROV_NS + "wasDerivedFrom" and isinstance(obj, NamedNode):
            doc.wasDerivedFrom(entity, names.qname(obj.value))
        elif predicate == PROV_NS + "wasGeneratedBy" and isinstance(obj, NamedNode):
            doc.wasGeneratedBy(entity, names.qname(obj.value), at)
        elif predicate in _READ_FROM and isinstance(obj, NamedNode):
            doc.wasDerivedFrom(entity, names.qname(obj.value))  # the passage or nanopublication it was read from
        elif predicate == PROV_NS + "wasAttributedTo" and isinstance(obj, NamedNode):
            doc.wasAttributedTo(entity, names.qname(obj.value))
        elif predicate == PROV_NS + "hadPrimarySource" and isinstance(obj, NamedNode):
            doc.hadPrimarySource(entity, names.qname(obj.value))


def answer_document(backend: Backend, answer: NamedNode) -> ProvDocument:
    """The record of an answer as a PROV document. The record is PROV-O already (the answer, its
    claims and draft are entities, generation and verification activities, the context a
    collection of its segments, with their agents): the ``prov`` package reads it as RDF."""
    turtle = io.BytesIO()
    # with prefixes, which the reader makes the document's namespaces (PROV-JSON and PROV-N name
    # every node by a prefix and a local name)
    backend.dump(turtle, RdfFormat.TURTLE, graph=answer, prefixes={**_PREFIXES, "prov": PROV_NS})
    with warnings.catch_warnings():
        # it names the types it keeps as attributes (prov:SoftwareAgent, prov:Collection): nothing is lost
        warnings.simplefilter("ignore", UserWarning)
        return ProvDocument.deserialize(content=turtle.getvalue().decode("utf-8"), format="rdf", rdf_format="turtle")


def serialize(doc: ProvDocument, format: ProvFormat) -> bytes:  # noqa: A002
    """PROV-N, PROV-JSON or PROV-XML bytes (UTF-8), or the picture (:mod:`provgraph.provdot`)."""
    if format is ProvFormat.PROVN:
        return (doc.get_provn() + "\n").encode("utf-8")
    if format is ProvFormat.DOT:
        return provdot.to_dot(doc).encode("utf-8")
    if format is ProvFormat.SVG:
        return provdot.to_svg(doc)
    text = doc.serialize(format="xml" if format is ProvFormat.PROVXML else "json", indent=2)
    assert text is not None
    return text.encode("utf-8")


__all__ = ["ProvFormat", "answer_document", "fact_document", "prov_document", "serialize"]
