"""Options (enums) and results (pydantic models): the contracts of the API and of the CLI's
``--json`` output. Field names are stable; new fields may be added.
"""

from __future__ import annotations

import enum
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from provgraph.trust.models import FactStatus
from provgraph.vocab import PG


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

    @classmethod
    def from_path(cls, path: str | Path) -> InputFormat | None:
        name = str(path).lower()
        for suffix, fmt in _EXTENSIONS:
            if name.endswith(suffix):
                return fmt
        return None

    @property
    def is_rdf(self) -> bool:
        return self not in (InputFormat.JSONL, InputFormat.TEXT, InputFormat.MARKDOWN)

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


class SourceStatus(enum.StrEnum):
    """Lifecycle of a source graph in the catalog."""

    CURRENT = "current"
    SUPERSEDED = "superseded"
    REVOKED = "revoked"

    @property
    def iri(self) -> str:
        return {"current": PG.Current, "superseded": PG.Superseded, "revoked": PG.Revoked}[self.value].value

    @classmethod
    def from_iri(cls, iri: str) -> SourceStatus:
        return cls(iri.rsplit("#", 1)[-1].lower())


class ExportFormat(enum.StrEnum):
    """RDF serialisations of ``export``. TriG, N-Quads and JSON-LD hold a whole dataset;
    Turtle, N-Triples and RDF/XML hold one graph."""

    TRIG = "trig"
    NQUADS = "nquads"
    JSONLD = "jsonld"
    TURTLE = "turtle"
    NTRIPLES = "ntriples"
    RDFXML = "rdfxml"

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


class DatasetView(enum.StrEnum):
    """What a query's default graph is. Named graphs (history, catalog) stay reachable with
    ``GRAPH`` in every view."""

    #: the union of the current version of every source document (the default)
    CURRENT = "current"
    #: the union of all graphs: every version, the catalog, the default graph
    ALL = "all"
    #: the store's own default graph, as plain Oxigraph has it
    DEFAULT = "default"


class DerivedRecords(enum.StrEnum):
    """What provgraph derives from the current sources and stores, to answer without recomputing."""

    #: the conflict records graph (pgid:conflicts), read by conflicts, evidence and answers
    CONFLICTS = "conflicts"
    #: the document relations graph (pgid:relations)
    RELATIONS = "relations"
    #: the lexical index of grounded answers (lexical-index.sqlite3 beside an on-disk store)
    INDEX = "index"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, use_enum_values=False)


class GraphSplit(_Model):
    """Maps the named graphs of one input file to several source documents.

    Each graph name matched by ``pattern`` belongs to the document named by the pattern's
    ``document`` group (or its first group); the default graph and unmatched graphs stay in the
    file's own document. The original graph name is kept on each statement
    (``pg:originalGraph``). With ``metadata``, the triples of a second file whose subject is an
    original graph name (edit times, author edit counts, bot flags, ...) become provenance
    properties of the statements taken from that graph (``rdf:type`` of the graph is not copied).

    DBpedia's per-value graphs ``<http://en.wikipedia.org/wiki/Amsterdam:populationTotal:1>``
    split into one document per Wikipedia article with :meth:`wikipedia_articles`.
    """

    pattern: str = Field(description="Python regular expression matched against graph names")
    metadata: Path | None = Field(default=None, description="RDF file describing the graphs")

    @classmethod
    def wikipedia_articles(cls, metadata: Path | str | None = None) -> GraphSplit:
        """The mapping for DBpedia's per-value graphs: ``<ARTICLE-URL:property:n>`` to ARTICLE-URL."""
        return cls(
            pattern=r"^(?P<document>https?://[^/]+\.wikipedia\.org/wiki/[^:]+):[^:]+:\d+$",
            metadata=Path(metadata) if metadata is not None else None,
        )


class ValidationIssue(_Model):
    """One SHACL result: what is wrong (message), where (focus node, path, value) and which
    shape said so."""

    focus_node: str
    path: str | None = None
    value: str | None = None
    message: str
    severity: str = "Violation"
    source_shape: str | None = None
    constraint: str | None = None
    document: str | None = Field(default=None, description="document key the focus node is in")

    def describe(self) -> str:
        parts = [f"{self.severity}: {self.message}", f"  focus node: {self.focus_node}"]
        if self.path:
            parts.append(f"  path: {self.path}")
        if self.value:
            parts.append(f"  value: {self.value}")
        if self.constraint:
            parts.append(f"  constraint: {self.constraint}")
        return "\n".join(parts)


class ValidationReport(_Model):
    """The outcome of SHACL validation of one ingest (all its documents)."""

    conforms: bool
    issues: list[ValidationIssue] = Field(default_factory=list)
    issue_count: int = Field(0, description="all issues found (``issues`` may hold fewer)")
    nodes_checked: int = 0
    shapes: list[str] = Field(default_factory=list, description="shape files used")

    def summary(self) -> str:
        if self.conforms:
            return f"conforms ({self.nodes_checked} nodes checked)"
        shown = "\n".join(issue.describe() for issue in self.issues)
        more = self.issue_count - len(self.issues)
        tail = f"\n... and {more} more" if more > 0 else ""
        return (
            f"does not conform to the SHACL shapes: {self.issue_count} "
            f"issue{'s' if self.issue_count != 1 else ''}; nothing was written\n{shown}{tail}"
        )


class DocumentOutcome(enum.StrEnum):
    CREATED = "created"
    NEW_VERSION = "new_version"
    UNCHANGED = "unchanged"


class DocumentReport(_Model):
    """What one ingest did to one source document."""

    document: str = Field(description="IRI of the pg:SourceDocument")
    key: str = Field(description="identity of the document: its id, URL or path")
    title: str
    outcome: DocumentOutcome
    graph: str = Field(description="named graph of the current version")
    version: int
    previous_graph: str | None = None
    statements: int = 0
    passages: int = 0
    quads: int = 0
    content_hash: str


class IngestReport(_Model):
    """What ``ingest`` did (or, for ``validate``, would do)."""

    file: str
    format: InputFormat
    documents: list[DocumentReport]
    statements: int = Field(description="statements written (0 when nothing changed)")
    passages: int
    quads: int = Field(description="quads written")
    unchanged: bool = Field(description="true when every document was already current: a no-op")
    validation: ValidationReport
    dry_run: bool = False
    seconds: float
    ill_typed_literals: int = Field(
        0, description="literals that do not match their datatype, kept because lenient was given (else refused)"
    )


class SourceVersion(_Model):
    graph: str
    version: int
    status: SourceStatus
    content_hash: str
    ingested_at: datetime
    statements: int
    passages: int
    was_revision_of: str | None = None


class SourceInfo(_Model):
    """A source document and its versions, as the catalog records them."""

    document: str
    key: str
    title: str
    url: str | None = None
    issued: str | None = None
    tier: int
    publisher: str | None = None
    status: SourceStatus = Field(description="status of the newest version")
    current_graph: str | None = None
    versions: list[SourceVersion]


class PassageInfo(_Model):
    iri: str
    text: str
    page: int | None = None
    section: str | None = None
    start: int | None = None
    end: int | None = None


class Evidence(_Model):
    """One statement supporting a fact, with everything needed to cite it."""

    statement: str
    fact: str
    subject: str
    predicate: str
    object: str = Field(description="the object in N-Triples syntax")
    graph: str
    status: SourceStatus
    document: str
    document_key: str
    title: str
    url: str | None = None
    tier: int
    issued: str | None = None
    publisher: str | None = None
    version: int
    confidence: float
    method: ExtractionMethod
    generated_at: datetime
    passage: PassageInfo | None = None
    reviewer: str | None = None
    last_verified: datetime | None = None
    original_graph: str | None = None
    attributes: dict[str, list[str]] = Field(
        default_factory=dict,
        description="further provenance on the statement (e.g. DBpedia edit metadata), "
        "predicate IRI to values in N-Triples syntax",
    )
    fact_confidence: float | None = Field(
        default=None,
        description="confidence of the fact over its independent current sources: 1 - prod(1 - c_i), capped at 0.99, "
        "each c_i the statement's confidence within its source tier's band",
    )
    fact_status: FactStatus | None = Field(
        default=None, description="confirmed, contested, deprecated or unknown (as of the last conflict detection)"
    )


class StoreStats(_Model):
    documents: int
    current_graphs: int
    graphs: int
    statements: int
    quads: int
