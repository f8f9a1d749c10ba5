"""RDF vocabulary constants and the minting of provgraph's content-addressed IRIs.

The ``PG`` terms mirror ``ontologies/provgraph.ttl``; ``tests/test_vocab.py`` checks both ways
that every constant is defined there and every defined term has a constant, so a typo fails a test
instead of writing an undefined term.
"""

from __future__ import annotations

import hashlib

from pyoxigraph import NamedNode

PG_NS = "https://w3id.org/provgraph/ns#"
ID_NS = "https://w3id.org/provgraph/id/"
PROV_NS = "http://www.w3.org/ns/prov#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_NS = "http://www.w3.org/2000/01/rdf-schema#"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
DCTERMS_NS = "http://purl.org/dc/terms/"
SH_NS = "http://www.w3.org/ns/shacl#"

#: Prefixes offered to SPARQL queries and used when serialising Turtle/TriG.
PREFIXES: dict[str, str] = {
    "pg": PG_NS,
    "pgid": ID_NS,
    "prov": PROV_NS,
    "rdf": RDF_NS,
    "rdfs": RDFS_NS,
    "xsd": XSD_NS,
    "dcterms": DCTERMS_NS,
    "owl": "http://www.w3.org/2002/07/owl#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "sh": SH_NS,
}


class PG:
    """Terms of the pg: vocabulary (``ontologies/provgraph.ttl``)."""

    # classes
    SourceDocument = NamedNode(PG_NS + "SourceDocument")
    SourceGraph = NamedNode(PG_NS + "SourceGraph")
    Statement = NamedNode(PG_NS + "Statement")
    Fact = NamedNode(PG_NS + "Fact")
    Passage = NamedNode(PG_NS + "Passage")
    ExtractionActivity = NamedNode(PG_NS + "ExtractionActivity")
    Catalog = NamedNode(PG_NS + "Catalog")
    ExtractionMethod = NamedNode(PG_NS + "ExtractionMethod")
    SourceStatus = NamedNode(PG_NS + "SourceStatus")
    FactStatus = NamedNode(PG_NS + "FactStatus")
    # individuals
    ManualCuration = NamedNode(PG_NS + "ManualCuration")
    LlmExtraction = NamedNode(PG_NS + "LlmExtraction")
    RuleBased = NamedNode(PG_NS + "RuleBased")
    NlpPipeline = NamedNode(PG_NS + "NlpPipeline")
    SourceData = NamedNode(PG_NS + "SourceData")
    Current = NamedNode(PG_NS + "Current")
    Superseded = NamedNode(PG_NS + "Superseded")
    Revoked = NamedNode(PG_NS + "Revoked")
    Confirmed = NamedNode(PG_NS + "Confirmed")
    Contested = NamedNode(PG_NS + "Contested")
    Deprecated = NamedNode(PG_NS + "Deprecated")
    Unknown = NamedNode(PG_NS + "Unknown")
    # properties
    fact = NamedNode(PG_NS + "fact")
    confidence = NamedNode(PG_NS + "confidence")
    extractionMethod = NamedNode(PG_NS + "extractionMethod")
    sourcePassage = NamedNode(PG_NS + "sourcePassage")
    reviewer = NamedNode(PG_NS + "reviewer")
    lastVerified = NamedNode(PG_NS + "lastVerified")
    originalGraph = NamedNode(PG_NS + "originalGraph")
    sourceUrl = NamedNode(PG_NS + "sourceUrl")
    tier = NamedNode(PG_NS + "tier")
    contentHash = NamedNode(PG_NS + "contentHash")
    fingerprint = NamedNode(PG_NS + "fingerprint")
    documentKey = NamedNode(PG_NS + "documentKey")
    mediaType = NamedNode(PG_NS + "mediaType")
    text = NamedNode(PG_NS + "text")
    page = NamedNode(PG_NS + "page")
    section = NamedNode(PG_NS + "section")
    startOffset = NamedNode(PG_NS + "startOffset")
    endOffset = NamedNode(PG_NS + "endOffset")
    inDocument = NamedNode(PG_NS + "inDocument")
    document = NamedNode(PG_NS + "document")
    version = NamedNode(PG_NS + "version")
    status = NamedNode(PG_NS + "status")
    statementCount = NamedNode(PG_NS + "statementCount")
    passageCount = NamedNode(PG_NS + "passageCount")
    hasSourceGraph = NamedNode(PG_NS + "hasSourceGraph")


#: The catalog graph: one pg:SourceGraph per ingested version.
CATALOG_GRAPH = NamedNode(ID_NS + "catalog")
#: The provgraph software agent every extraction activity is associated with.
SOFTWARE_AGENT = NamedNode(ID_NS + "agent/provgraph")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_iri(key: str) -> NamedNode:
    """The stable IRI of a document, from its identity (id, else URL, else path)."""
    return NamedNode(f"{ID_NS}doc/{sha256_hex(key)[:32]}")


def graph_iri(document: NamedNode, version: int) -> NamedNode:
    """The named graph holding one version of a document."""
    return NamedNode(f"{document.value}/v{version}")


def activity_iri(graph: NamedNode) -> NamedNode:
    return NamedNode(f"{graph.value}/activity")


def fact_iri(triple_nt: str) -> str:
    """IRI (as N-Triples) of the fact key of a triple given in N-Triples form ``s p o``.

    Shared by every statement of the same triple in any document: evidence is one hop away.
    """
    return f"<{ID_NS}fact/{sha256_hex(triple_nt)}>"


def statement_iri(graph: NamedNode, triple_nt: str, provenance_key: str) -> str:
    """IRI (as N-Triples) of a statement: the triple as stated by one source graph.

    ``provenance_key`` distinguishes two statements of the same triple in one graph that cite
    different passages or carry different confidence; identical ones collapse into one.
    """
    return f"<{ID_NS}stmt/{sha256_hex(graph.value + chr(10) + triple_nt + chr(10) + provenance_key)}>"


def passage_iri(document: NamedNode, key: str) -> str:
    """IRI (as N-Triples) of a passage of a document, from its text and position."""
    return f"<{ID_NS}passage/{sha256_hex(document.value + chr(10) + key)}>"
