"""Reification: the triples of one source graph (one version of one document), as N-Triples
lines without the final " ." (the caller adds the graph name for N-Quads, or not).

The graph holds the asserted triples, one ``pg:Statement`` per triple (standard RDF reification
plus PROV-O), the passages statements cite, the extraction activity and the document's own
description. Fields that are the same for the whole document (title, URL, tier, ...) live once
on the document; each statement carries only what can differ per statement.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from provgraph._version import __version__
from provgraph.ingest.records import Assertion, NanopubSpec, PassageSpec
from provgraph.models import ExtractionMethod
from provgraph.store.terms import Literal, NamedNode
from provgraph.vocab import (
    DCTERMS_NS,
    PG,
    PG_NS,
    PROV_NS,
    RDF_NS,
    RDFS_NS,
    SOFTWARE_AGENT,
    XSD_NS,
    activity_iri,
    fact_iri,
    nanopub_iri,
    passage_iri,
    statement_iri,
)

_TYPE = f"<{RDF_NS}type>"
_RDF_STATEMENT = f"<{RDF_NS}Statement>"
_SUBJECT = f"<{RDF_NS}subject>"
_PREDICATE = f"<{RDF_NS}predicate>"
_OBJECT = f"<{RDF_NS}object>"
_DERIVED = f"<{PROV_NS}wasDerivedFrom>"
_GENERATED_BY = f"<{PROV_NS}wasGeneratedBy>"
_GENERATED_AT = f"<{PROV_NS}generatedAtTime>"
_DOUBLE = f"<{XSD_NS}double>"
_INTEGER = f"<{XSD_NS}integer>"
_DATETIME = f"<{XSD_NS}dateTime>"


def nt(node: NamedNode) -> str:
    return f"<{node.value}>"


def lit(value: str, datatype: str | None = None) -> str:
    if datatype is None:
        return str(Literal(value))
    return str(Literal(value, datatype=NamedNode(datatype)))


def xsd_datetime(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the caller says about a document; the same for every statement in it."""

    key: str
    title: str
    tier: int
    content_hash: str
    media_type: str
    method: ExtractionMethod
    url: str | None = None
    issued: tuple[str, str] | None = None  # (lexical form, XSD datatype IRI)
    publisher: str | None = None
    confidence: float | None = None
    agent: str | None = None  # IRI of the person or pipeline that ran the ingest
    reviewer: str | None = None  # IRI applied to every statement without one
    #: what the extraction activity records of how it ran: (pg: local name, literal value)
    activity: tuple[tuple[str, str], ...] = ()


class GraphBuilder:
    """Builds the lines of one source graph; statements are fed one by one (streaming)."""

    def __init__(self, meta: DocumentMeta, document: NamedNode, graph: NamedNode, generated_at: datetime) -> None:
        self.meta = meta
        self.document = document
        self.graph = graph
        self._doc = nt(document)
        self._activity = nt(activity_iri(graph))
        self._time = f'"{xsd_datetime(generated_at)}"^^{_DATETIME}'
        self._default_method = f"<{meta.method.iri}>"
        self._default_confidence = meta.confidence if meta.confidence is not None else meta.method.default_confidence
        self._method_iris = {m.value: f"<{m.iri}>" for m in ExtractionMethod}
        self._method_conf = {m.value: m.default_confidence for m in ExtractionMethod}
        self._passages: dict[str, list[str]] = {}
        self._nanopubs: set[str] = set()
        self._seen_statements: set[bytes] = set()
        self.statements = 0

    @property
    def passages(self) -> int:
        return len(self._passages)

    def header(self) -> list[str]:
        """Document description, extraction activity and agents."""
        m, d, a = self.meta, self._doc, self._activity
        lines = [
            f"{d} {_TYPE} {nt(PG.SourceDocument)}",
            f"{d} {_TYPE} <{PROV_NS}Entity>",
            f"{d} <{DCTERMS_NS}title> {lit(m.title)}",
            f"{d} {nt(PG.documentKey)} {lit(m.key)}",
            f"{d} {nt(PG.tier)} {lit(str(m.tier), XSD_NS + 'integer')}",
            f"{d} {nt(PG.contentHash)} {lit(m.content_hash)}",
            f"{d} {nt(PG.mediaType)} {lit(m.media_type)}",
            f"{a} {_TYPE} {nt(PG.ExtractionActivity)}",
            f"{a} {_TYPE} <{PROV_NS}Activity>",
            f"{a} <{PROV_NS}used> {d}",
            f"{a} <{PROV_NS}startedAtTime> {self._time}",
            f"{a} {nt(PG.extractionMethod)} {self._default_method}",
            f"{a} <{PROV_NS}wasAssociatedWith> {nt(SOFTWARE_AGENT)}",
            f"{nt(SOFTWARE_AGENT)} {_TYPE} <{PROV_NS}SoftwareAgent>",
            f"{nt(SOFTWARE_AGENT)} {_TYPE} <{PROV_NS}Agent>",
            f"{nt(SOFTWARE_AGENT)} <{RDFS_NS}label> {lit('provgraph ' + __version__)}",
        ]
        if m.url:
            lines.append(f"{d} {nt(PG.sourceUrl)} {lit(m.url, XSD_NS + 'anyURI')}")
        if m.issued:
            lines.append(f"{d} <{DCTERMS_NS}issued> {lit(m.issued[0], m.issued[1])}")
        if m.publisher:
            publisher = f"<{m.publisher}>" if _looks_like_iri(m.publisher) else lit(m.publisher)
            lines.append(f"{d} <{DCTERMS_NS}publisher> {publisher}")
        for name, value in m.activity:
            lines.append(f"{a} <{PG_NS}{name}> {lit(value)}")
        if m.agent:
            lines.append(f"{a} <{PROV_NS}wasAssociatedWith> <{m.agent}>")
            lines.append(f"<{m.agent}> {_TYPE} <{PROV_NS}Agent>")
        return lines

    def passage(self, spec: PassageSpec) -> tuple[str, list[str] | None]:
        """The passage's IRI, and its lines the first time it is seen (else ``None``)."""
        iri = passage_iri(self.document, spec.key())
        if iri in self._passages:
            return iri, None
        lines = [
            f"{iri} {_TYPE} {nt(PG.Passage)}",
            f"{iri} {_TYPE} <{PROV_NS}Entity>",
            f"{iri} {nt(PG.text)} {lit(spec.text)}",
            f"{iri} {nt(PG.inDocument)} {self._doc}",
        ]
        if spec.page is not None:
            lines.append(f'{iri} {nt(PG.page)} "{spec.page}"^^{_INTEGER}')
        if spec.section is not None:
            lines.append(f"{iri} {nt(PG.section)} {lit(spec.section)}")
        if spec.start is not None:
            lines.append(f'{iri} {nt(PG.startOffset)} "{spec.start}"^^{_INTEGER}')
        if spec.end is not None:
            lines.append(f'{iri} {nt(PG.endOffset)} "{spec.end}"^^{_INTEGER}')
        self._passages[iri] = lines
        return iri, lines

    def nanopub(self, spec: NanopubSpec) -> tuple[str, list[str]]:
        """The IRI of the record of a nanopublication, and its lines the first time it is seen:
        the nanopublication as published and what provgraph checked and took from it."""
        iri = nanopub_iri(self.document, spec.uri)
        if iri in self._nanopubs:
            return iri, []
        self._nanopubs.add(iri)
        lines = [
            f"{iri} {_TYPE} {nt(PG.Nanopublication)}",
            f"{iri} {_TYPE} <{PROV_NS}Entity>",
            f"{iri} {nt(PG.nanopubUri)} <{spec.uri}>",
            f"{iri} {nt(PG.inDocument)} {self._doc}",
            f"{iri} {nt(PG.nanopubContent)} {lit(spec.content)}",
        ]
        if spec.created is not None:
            lines.append(f"{iri} <{DCTERMS_NS}created> {spec.created}")
        lines += [f"{iri} <{DCTERMS_NS}creator> {creator}" for creator in spec.creators]
        if spec.artefact_code is not None:
            lines.append(f"{iri} {nt(PG.artefactCode)} {lit(spec.artefact_code)}")
        if spec.signature is not None:
            lines.append(f"{iri} {nt(PG.signatureAlgorithm)} {lit(spec.signature[0])}")
            lines.append(f"{iri} {nt(PG.publicKey)} {lit(spec.signature[1])}")
        return iri, lines

    def passage_lines(self, iri: str) -> list[str]:
        return self._passages[iri]

    def statement(self, a: Assertion) -> tuple[list[str], str | None]:
        """Lines of the asserted triple and its statement (plus new passage lines), and the
        IRI of the passage it cites. Exact duplicates yield no lines."""
        triple = a.triple
        method = self._method_iris[a.method] if a.method else self._default_method
        if a.confidence is not None:
            confidence = a.confidence
        elif a.method:
            confidence = self._method_conf[a.method]
        else:
            confidence = self._default_confidence
        passage_ref: str | None = None
        lines: list[str] = []
        if a.passage is not None:
            passage_ref, new_lines = self.passage(a.passage)
            if new_lines:
                lines.extend(new_lines)
        reviewer = a.reviewer or (f"<{self.meta.reviewer}>" if self.meta.reviewer else None)
        prov_key = (
            f"{passage_ref}\x1f{confidence!r}\x1f{method}\x1f{reviewer}\x1f{a.last_verified}\x1f{a.original_graph}"
        )
        nanopub_ref: str | None = None
        if a.nanopub is not None:
            nanopub_ref, new_lines = self.nanopub(a.nanopub)
            lines.extend(new_lines)
            prov_key += f"\x1f{nanopub_ref}"
        st = statement_iri(self.graph, triple, prov_key)
        digest = bytes.fromhex(st[-33:-1])  # 16 bytes: enough to tell duplicates apart
        if digest in self._seen_statements:
            return lines, passage_ref
        self._seen_statements.add(digest)
        self.statements += 1
        lines += [
            f"{triple}",
            f"{st} {_TYPE} {_RDF_STATEMENT}",
            f"{st} {_TYPE} {nt(PG.Statement)}",
            f"{st} {_TYPE} <{PROV_NS}Entity>",  # in the data, for PROV tools that read no ontology
            f"{st} {_SUBJECT} {a.subject}",
            f"{st} {_PREDICATE} {a.predicate}",
            f"{st} {_OBJECT} {a.object}",
            f"{st} {nt(PG.fact)} {fact_iri(triple)}",
            f"{st} {_DERIVED} {self._doc}",
            f"{st} {_GENERATED_BY} {self._activity}",
            f"{st} {_GENERATED_AT} {self._time}",
            f'{st} {nt(PG.confidence)} "{confidence!r}"^^{_DOUBLE}',
            f"{st} {nt(PG.extractionMethod)} {method}",
        ]
        if passage_ref is not None:
            lines.append(f"{st} {nt(PG.sourcePassage)} {passage_ref}")
        if reviewer is not None:
            lines.append(f"{st} {nt(PG.reviewer)} {reviewer}")
        if a.last_verified is not None:
            lines.append(f'{st} {nt(PG.lastVerified)} "{a.last_verified}"^^{_DATETIME}')
        if a.original_graph is not None:
            lines.append(f"{st} {nt(PG.originalGraph)} {a.original_graph}")
        if a.nanopub is not None:
            lines.append(f"{st} {nt(PG.nanopublication)} {nanopub_ref}")
            # the assertion's authors, else the nanopublication's
            for agent in a.nanopub.attributed_to or a.nanopub.creators:
                lines.append(f"{st} <{PROV_NS}wasAttributedTo> {agent}")
            for source in a.nanopub.primary_sources:
                lines.append(f"{st} <{PROV_NS}hadPrimarySource> {source}")
        for predicate, obj in a.extra:
            lines.append(f"{st} {predicate} {obj}")
        return lines, passage_ref


def _looks_like_iri(value: str) -> bool:
    try:
        NamedNode(value)
    except ValueError:
        return False
    return ":" in value and " " not in value


__all__ = ["DocumentMeta", "GraphBuilder", "lit", "nt", "xsd_datetime"]
