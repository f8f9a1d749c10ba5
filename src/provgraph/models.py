"""Options (enums) and results (pydantic models): the contracts of the API and of the CLI's
``--json`` output. Field names are stable; new fields may be added.
"""

from __future__ import annotations

import enum
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from provgraph.options import (
    DatasetView,
    ExportFormat,
    Extraction,
    ExtractionMethod,
    InputFormat,
    ResultFormat,
)
from provgraph.trust.models import FactStatus
from provgraph.vocab import PG


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
    documents: list[DocumentReport] = Field(
        description="the input's documents in key order: every one, or the first 1,000 of a larger input "
        "(document_count and outcomes count them all; the catalog lists them)"
    )
    document_count: int = Field(description="documents in the input")
    outcomes: dict[DocumentOutcome, int] = Field(description="how many documents had each outcome")
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
    extraction: Extraction | None = Field(None, description="how facts were taken from the text (text documents only)")
    facts_extracted: int = Field(0, description="facts taken from the text, each with its evidence span")
    facts_dropped: int = Field(
        0, description="facts an extractor gave whose evidence is not verbatim in their passage: not stored"
    )
    passages_cut: int = Field(
        0,
        description="passages whose model reply ran past its token budget: only the facts complete before "
        "the cut were read",
    )

    @property
    def changed(self) -> int:
        """The documents of which the ingest writes (or, in a dry run, would write) a new version."""
        return self.document_count - self.outcomes.get(DocumentOutcome.UNCHANGED, 0)


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


__all__ = [
    "DatasetView",
    "DerivedRecords",
    "DocumentOutcome",
    "DocumentReport",
    "Evidence",
    "ExportFormat",
    "Extraction",
    "ExtractionMethod",
    "GraphSplit",
    "IngestReport",
    "InputFormat",
    "PassageInfo",
    "ResultFormat",
    "SourceInfo",
    "SourceStatus",
    "SourceVersion",
    "StoreStats",
    "ValidationIssue",
    "ValidationReport",
]
