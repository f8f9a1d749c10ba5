"""provgraph: an RDF named-graph provenance store.

Every source document becomes one named graph; every fact in it is asserted and reified with
W3C PROV-O provenance; SHACL shapes validate every graph before it is written.

>>> import provgraph
>>> provgraph.ProvGraph.memory().sources()
[]
"""

from provgraph._version import __version__
from provgraph.errors import (
    EmptyInputError,
    InputError,
    NotFoundError,
    ProvGraphError,
    QueryError,
    ReadOnlyStoreError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedFormatError,
    ValidationFailedError,
)
from provgraph.graph import ProvGraph
from provgraph.models import (
    DatasetView,
    DocumentOutcome,
    DocumentReport,
    Evidence,
    ExportFormat,
    ExtractionMethod,
    GraphSplit,
    IngestReport,
    InputFormat,
    PassageInfo,
    ResultFormat,
    SourceInfo,
    SourceStatus,
    SourceVersion,
    StoreStats,
    ValidationIssue,
    ValidationReport,
)
from provgraph.query import QueryResult
from provgraph.trust.models import (
    ChainReport,
    ChainStep,
    Conflict,
    ConflictKind,
    ConflictValue,
    DetectionReport,
    FactStatus,
    Resolution,
    ResolutionStrategy,
    ValueClaim,
    ValueOutcome,
)
from provgraph.trust.relation_models import DocumentRelation, RelationEvidence, RelationType

__all__ = [
    "ChainReport",
    "ChainStep",
    "Conflict",
    "ConflictKind",
    "ConflictValue",
    "DatasetView",
    "DetectionReport",
    "DocumentOutcome",
    "DocumentRelation",
    "DocumentReport",
    "EmptyInputError",
    "Evidence",
    "ExportFormat",
    "ExtractionMethod",
    "FactStatus",
    "GraphSplit",
    "IngestReport",
    "InputError",
    "InputFormat",
    "NotFoundError",
    "PassageInfo",
    "ProvGraph",
    "ProvGraphError",
    "QueryError",
    "QueryResult",
    "ReadOnlyStoreError",
    "RelationEvidence",
    "RelationType",
    "Resolution",
    "ResolutionStrategy",
    "ResultFormat",
    "SourceInfo",
    "SourceStatus",
    "SourceVersion",
    "StoreError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StoreStats",
    "UnsupportedFormatError",
    "ValidationFailedError",
    "ValidationIssue",
    "ValidationReport",
    "ValueClaim",
    "ValueOutcome",
    "__version__",
]
