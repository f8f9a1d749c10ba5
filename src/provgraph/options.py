"""The options of the API and the command line, as enums: formats, views, methods, strategies.

Kept apart from the pydantic models (:mod:`provgraph.models` and friends re-export them) so the
command line can declare its options without importing pydantic, rdflib or the store.
"""

from __future__ import annotations

import enum
from pathlib import Path

from provgraph.vocab import PG, PG_NS

#: Where ``ProvGraph.open()`` looks when given no path: $PROVGRAPH_STORE, else ./provgraph-data.
DEFAULT_STORE_ENV = "PROVGRAPH_STORE"
DEFAULT_STORE_DIR = "provgraph-data"
#: Where ``provgraph serve`` reads the write token from (or --token-file).
TOKEN_ENV = "PROVGRAPH_TOKEN"


class InputFormat(enum.StrEnum):
    """Formats ``ingest`` reads; detected from the file extension unless given."""

    TURTLE = "turtle"
    NTRIPLES = "ntriples"
    NQUADS = "nquads"
    TRIG = "trig"
    JSONLD = "jsonld"
    RDFXML = "rdfxml"
    TRIX = "trix"
    JSONL = "jsonl"
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    PDF = "pdf"

    @classmethod
    def _missing_(cls, value: object) -> InputFormat | None:
        # "ttl", "nt", "json-ld", "rdf/xml", "text/turtle": what users type for the format
        return _by_alias(cls, value)  # type: ignore[return-value]

    @classmethod
    def from_path(cls, path: str | Path) -> InputFormat | None:
        name = str(path).lower()
        for suffix, fmt in _EXTENSIONS:
            if name.endswith(suffix):
                return fmt
        return None

    @property
    def is_rdf(self) -> bool:
        return self is not InputFormat.JSONL and not self.is_text

    @property
    def is_text(self) -> bool:
        """Read as prose: passages, and the facts an extractor takes from them."""
        return self in (InputFormat.TEXT, InputFormat.MARKDOWN, InputFormat.HTML, InputFormat.PDF)

    @property
    def media_type(self) -> str:
        return _MEDIA_TYPES[self]


_EXTENSIONS: list[tuple[str, InputFormat]] = [
    (".ttl", InputFormat.TURTLE),
    (".turtle", InputFormat.TURTLE),
    (".nt", InputFormat.NTRIPLES),
    (".ntriples", InputFormat.NTRIPLES),
    (".nq", InputFormat.NQUADS),
    (".nquads", InputFormat.NQUADS),
    (".trig", InputFormat.TRIG),
    (".jsonld", InputFormat.JSONLD),
    (".json-ld", InputFormat.JSONLD),
    (".trix", InputFormat.TRIX),
    (".rdf", InputFormat.RDFXML),
    (".owl", InputFormat.RDFXML),
    (".xml", InputFormat.RDFXML),
    (".jsonl", InputFormat.JSONL),
    (".ndjson", InputFormat.JSONL),
    (".txt", InputFormat.TEXT),
    (".text", InputFormat.TEXT),
    (".md", InputFormat.MARKDOWN),
    (".markdown", InputFormat.MARKDOWN),
    (".html", InputFormat.HTML),
    (".htm", InputFormat.HTML),
    (".xhtml", InputFormat.HTML),
    (".pdf", InputFormat.PDF),
]

_MEDIA_TYPES = {
    InputFormat.TURTLE: "text/turtle",
    InputFormat.NTRIPLES: "application/n-triples",
    InputFormat.NQUADS: "application/n-quads",
    InputFormat.TRIG: "application/trig",
    InputFormat.JSONLD: "application/ld+json",
    InputFormat.RDFXML: "application/rdf+xml",
    InputFormat.TRIX: "application/trix",
    InputFormat.JSONL: "application/jsonl",
    InputFormat.TEXT: "text/plain",
    InputFormat.MARKDOWN: "text/markdown",
    InputFormat.HTML: "text/html",
    InputFormat.PDF: "application/pdf",
}


class ExtractionMethod(enum.StrEnum):
    """How statements were obtained. Each has a default extraction confidence, used when neither
    the record nor the call gives one: exact copies of structured data are certain, model
    extraction is not."""

    MANUAL_CURATION = "manual_curation"
    LLM_EXTRACTION = "llm_extraction"
    RULE_BASED = "rule_based"
    NLP_PIPELINE = "nlp_pipeline"
    SOURCE_DATA = "source_data"

    @property
    def iri(self) -> str:
        return _METHOD_IRIS[self].value

    @property
    def default_confidence(self) -> float:
        return _METHOD_CONFIDENCE[self]

    @classmethod
    def from_iri(cls, iri: str) -> ExtractionMethod:
        for method, node in _METHOD_IRIS.items():
            if node.value == iri:
                return method
        raise ValueError(f"not an extraction method: <{iri}>")


_METHOD_IRIS = {
    ExtractionMethod.MANUAL_CURATION: PG.ManualCuration,
    ExtractionMethod.LLM_EXTRACTION: PG.LlmExtraction,
    ExtractionMethod.RULE_BASED: PG.RuleBased,
    ExtractionMethod.NLP_PIPELINE: PG.NlpPipeline,
    ExtractionMethod.SOURCE_DATA: PG.SourceData,
}

_METHOD_CONFIDENCE = {
    ExtractionMethod.MANUAL_CURATION: 1.0,
    ExtractionMethod.SOURCE_DATA: 1.0,
    ExtractionMethod.RULE_BASED: 0.9,
    ExtractionMethod.NLP_PIPELINE: 0.8,
    ExtractionMethod.LLM_EXTRACTION: 0.7,
}


class ExportFormat(enum.StrEnum):
    """RDF serialisations of ``export``. TriG, N-Quads and JSON-LD hold a whole dataset;
    Turtle, N-Triples and RDF/XML hold one graph."""

    TRIG = "trig"
    NQUADS = "nquads"
    JSONLD = "jsonld"
    TURTLE = "turtle"
    NTRIPLES = "ntriples"
    RDFXML = "rdfxml"

    @classmethod
    def _missing_(cls, value: object) -> ExportFormat | None:
        return _by_alias(cls, value)  # type: ignore[return-value]

    @property
    def supports_datasets(self) -> bool:
        return self in (ExportFormat.TRIG, ExportFormat.NQUADS, ExportFormat.JSONLD)


class ResultFormat(enum.StrEnum):
    """Serialisations of SPARQL results: the W3C formats, and a plain-text table for people.
    CONSTRUCT/DESCRIBE results use the RDF formats (``turtle``, ``ntriples``, ...)."""

    JSON = "json"
    XML = "xml"
    CSV = "csv"
    TSV = "tsv"
    TABLE = "table"

    @classmethod
    def _missing_(cls, value: object) -> ResultFormat | None:
        return _by_alias(cls, value)  # type: ignore[return-value]


class ProvFormat(enum.StrEnum):
    """Serialisations of a source's provenance as a W3C PROV document (``export_prov``): PROV-N,
    PROV-JSON, PROV-XML, and a picture of it (Graphviz DOT, or SVG drawn with Graphviz)."""

    PROVN = "provn"
    PROVJSON = "provjson"
    PROVXML = "provxml"
    DOT = "dot"
    SVG = "svg"

    @property
    def media_type(self) -> str:
        return {
            "provn": "text/provenance-notation",
            "provjson": "application/json",
            "provxml": "application/xml",
            "dot": "text/vnd.graphviz",
            "svg": "image/svg+xml",
        }[self.value]


class DatasetView(enum.StrEnum):
    """What a query's default graph is. Named graphs (history, catalog) stay reachable with
    ``GRAPH`` in every view."""

    #: the union of the current version of every source document (the default)
    CURRENT = "current"
    #: the union of all graphs: every version, the catalog, the default graph
    ALL = "all"
    #: the store's own default graph, as plain Oxigraph has it
    DEFAULT = "default"


class Detail(enum.StrEnum):
    """How much of an answer is returned."""

    #: claims and references
    BRIEF = "brief"
    #: also the cited evidence items, removed claims and the verification report
    DETAILED = "detailed"


class GeneratorKind(enum.StrEnum):
    """Who drafts an answer."""

    #: offline, deterministic, no key: the default
    EXTRACTIVE = "extractive"
    #: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp), configured by environment
    OPENAI = "openai"


class Extraction(enum.StrEnum):
    """How facts are taken from a text document (``--extract``)."""

    #: an OpenAI-compatible server, configured by environment, reads each passage
    LLM = "llm"
    #: offline sentence patterns, property phrases from the ontology (partial coverage)
    RULES = "rules"
    #: passages only, no facts
    NONE = "none"


class ResolutionStrategy(enum.StrEnum):
    """How a conflict is resolved."""

    #: the most recently edited (statement edit time) or issued (document) value
    RECENCY = "recency"
    #: the value of the best source tier (1 best)
    AUTHORITY = "authority"
    #: the value stated by the most independent sources
    MAJORITY = "majority"
    #: the value whose sources truth discovery estimates most accurate
    SOURCE_TRUST = "source_trust"
    #: prefer nothing, show every value
    SURFACE = "surface"

    @property
    def iri(self) -> str:
        return PG_NS + _STRATEGY_LOCAL[self]

    @classmethod
    def from_iri(cls, iri: str) -> ResolutionStrategy:
        local = iri.rsplit("#", 1)[-1]
        for strategy, name in _STRATEGY_LOCAL.items():
            if name == local:
                return strategy
        raise ValueError(f"not a resolution strategy: <{iri}>")


_STRATEGY_LOCAL = {
    ResolutionStrategy.RECENCY: "Recency",
    ResolutionStrategy.AUTHORITY: "Authority",
    ResolutionStrategy.MAJORITY: "Majority",
    ResolutionStrategy.SOURCE_TRUST: "SourceTrust",
    ResolutionStrategy.SURFACE: "SurfaceOnly",
}


def _alias(name: object) -> str:
    """A format's spelling as users write it: case, dots, hyphens and "rdf/xml" set aside."""
    return str(name).strip().lower().lstrip(".").replace("-", "").replace("/", "").replace("+", "")


#: Other names of the RDF formats: file extensions and media types ("ttl", "nt", "application/trig").
_FORMAT_ALIASES = {
    "ttl": "turtle",
    "textturtle": "turtle",
    "nt": "ntriples",
    "applicationntriples": "ntriples",
    "nq": "nquads",
    "applicationnquads": "nquads",
    "applicationtrig": "trig",
    "json-ld": "jsonld",
    "applicationldjson": "jsonld",
    "rdf": "rdfxml",
    "owl": "rdfxml",
    "xml": "rdfxml",
    "applicationrdfxml": "rdfxml",
    "applicationtrix": "trix",
    "ndjson": "jsonl",
    "applicationjsonl": "jsonl",
    "txt": "text",
    "textplain": "text",
    "md": "markdown",
    "textmarkdown": "markdown",
    "htm": "html",
    "texthtml": "html",
    "xhtml": "html",
    "applicationxhtmlxml": "html",
    "applicationpdf": "pdf",
}


def _by_alias(kind: type[enum.Enum], value: object) -> enum.Enum | None:
    if not isinstance(value, str):
        return None
    name = _alias(value)
    name = _FORMAT_ALIASES.get(name, name)
    return next((member for member in kind if member.value == name), None)


__all__ = [
    "DEFAULT_STORE_DIR",
    "DEFAULT_STORE_ENV",
    "TOKEN_ENV",
    "DatasetView",
    "Detail",
    "ExportFormat",
    "ExtractionMethod",
    "GeneratorKind",
    "InputFormat",
    "ProvFormat",
    "ResolutionStrategy",
    "ResultFormat",
]
