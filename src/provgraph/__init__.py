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

__all__ = [
    "DatasetView",
    "DocumentOutcome",
    "DocumentReport",
    "EmptyInputError",
    "Evidence",
    "ExportFormat",
    "ExtractionMethod",
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
    "__version__",
]
