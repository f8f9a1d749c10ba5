"""provgraph: an RDF named-graph provenance store.

Every source document becomes one named graph; every fact in it is asserted and reified with
W3C PROV-O provenance; SHACL shapes validate every graph before it is written.

>>> import provgraph
>>> provgraph.ProvGraph.memory().sources()
[]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from provgraph._version import __version__

if TYPE_CHECKING:
    from provgraph.answer.base import Generator, SupportJudge
    from provgraph.answer.context import Segment, SegmentType, TrustTier
    from provgraph.answer.extractive import ExtractiveGenerator
    from provgraph.answer.invalidation import Invalidation, Revocation
    from provgraph.answer.models import (
        AnswerClaim,
        AnswerConfidence,
        AskFilters,
        Citation,
        ClaimClass,
        Detail,
        DraftAnswer,
        DraftClaim,
        EvidenceItem,
        EvidenceKind,
        EvidencePack,
        GeneratorKind,
        GroundedAnswer,
        LinkedEntity,
        ReasonCode,
        Reference,
        SourceUse,
        SupportLevel,
        VerificationIssue,
    )
    from provgraph.answer.record import (
        AnswerInvalidation,
        AnswerSummary,
        AuditProblem,
        AuditReport,
        Composed,
        RecordedAnswer,
    )
    from provgraph.answer.verify import HeuristicJudge
    from provgraph.errors import (
        ConfirmationRequiredError,
        EmptyInputError,
        GenerationError,
        InputError,
        NotFoundError,
        ProvGraphError,
        QueryError,
        ReadOnlyStoreError,
        StoreError,
        StoreLockedError,
        StoreNotEmptyError,
        StoreNotFoundError,
        UnsupportedFormatError,
        ValidationFailedError,
        WriteRefusedError,
    )
    from provgraph.graph import ProvGraph
    from provgraph.ingest.options import IngestOptions
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
    from provgraph.query import PreparedQuery, QueryResult
    from provgraph.trust.models import (
        ChainMode,
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

# Names are imported on first use (PEP 562): `import provgraph`, and the command line that imports
# it, must not pay for pydantic models, the SPARQL lexer, rdflib or pySHACL before they are needed.
_WHERE: dict[str, str] = {
    "Generator": "provgraph.answer.base",
    "SupportJudge": "provgraph.answer.base",
    "ExtractiveGenerator": "provgraph.answer.extractive",
    "Segment": "provgraph.answer.context",
    "SegmentType": "provgraph.answer.context",
    "TrustTier": "provgraph.answer.context",
    "AnswerInvalidation": "provgraph.answer.record",
    "Invalidation": "provgraph.answer.invalidation",
    "Revocation": "provgraph.answer.invalidation",
    "ConfirmationRequiredError": "provgraph.errors",
    "AnswerSummary": "provgraph.answer.record",
    "AuditProblem": "provgraph.answer.record",
    "AuditReport": "provgraph.answer.record",
    "Composed": "provgraph.answer.record",
    "RecordedAnswer": "provgraph.answer.record",
    "AnswerClaim": "provgraph.answer.models",
    "AnswerConfidence": "provgraph.answer.models",
    "AskFilters": "provgraph.answer.models",
    "Citation": "provgraph.answer.models",
    "ClaimClass": "provgraph.answer.models",
    "Detail": "provgraph.answer.models",
    "DraftAnswer": "provgraph.answer.models",
    "DraftClaim": "provgraph.answer.models",
    "EvidenceItem": "provgraph.answer.models",
    "EvidenceKind": "provgraph.answer.models",
    "EvidencePack": "provgraph.answer.models",
    "GeneratorKind": "provgraph.answer.models",
    "GroundedAnswer": "provgraph.answer.models",
    "LinkedEntity": "provgraph.answer.models",
    "ReasonCode": "provgraph.answer.models",
    "Reference": "provgraph.answer.models",
    "SourceUse": "provgraph.answer.models",
    "SupportLevel": "provgraph.answer.models",
    "VerificationIssue": "provgraph.answer.models",
    "HeuristicJudge": "provgraph.answer.verify",
    "EmptyInputError": "provgraph.errors",
    "GenerationError": "provgraph.errors",
    "InputError": "provgraph.errors",
    "NotFoundError": "provgraph.errors",
    "ProvGraphError": "provgraph.errors",
    "QueryError": "provgraph.errors",
    "ReadOnlyStoreError": "provgraph.errors",
    "StoreError": "provgraph.errors",
    "StoreLockedError": "provgraph.errors",
    "StoreNotEmptyError": "provgraph.errors",
    "StoreNotFoundError": "provgraph.errors",
    "UnsupportedFormatError": "provgraph.errors",
    "ValidationFailedError": "provgraph.errors",
    "WriteRefusedError": "provgraph.errors",
    "ProvGraph": "provgraph.graph",
    "IngestOptions": "provgraph.ingest.options",
    "DatasetView": "provgraph.models",
    "DocumentOutcome": "provgraph.models",
    "DocumentReport": "provgraph.models",
    "Evidence": "provgraph.models",
    "ExportFormat": "provgraph.models",
    "ExtractionMethod": "provgraph.models",
    "GraphSplit": "provgraph.models",
    "IngestReport": "provgraph.models",
    "InputFormat": "provgraph.models",
    "PassageInfo": "provgraph.models",
    "ResultFormat": "provgraph.models",
    "SourceInfo": "provgraph.models",
    "SourceStatus": "provgraph.models",
    "SourceVersion": "provgraph.models",
    "StoreStats": "provgraph.models",
    "ValidationIssue": "provgraph.models",
    "ValidationReport": "provgraph.models",
    "PreparedQuery": "provgraph.query",
    "QueryResult": "provgraph.query",
    "ChainMode": "provgraph.trust.models",
    "ChainReport": "provgraph.trust.models",
    "ChainStep": "provgraph.trust.models",
    "Conflict": "provgraph.trust.models",
    "ConflictKind": "provgraph.trust.models",
    "ConflictValue": "provgraph.trust.models",
    "DetectionReport": "provgraph.trust.models",
    "FactStatus": "provgraph.trust.models",
    "Resolution": "provgraph.trust.models",
    "ResolutionStrategy": "provgraph.trust.models",
    "ValueClaim": "provgraph.trust.models",
    "ValueOutcome": "provgraph.trust.models",
    "DocumentRelation": "provgraph.trust.relation_models",
    "RelationEvidence": "provgraph.trust.relation_models",
    "RelationType": "provgraph.trust.relation_models",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'provgraph' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "AnswerClaim",
    "AnswerConfidence",
    "AnswerInvalidation",
    "AnswerSummary",
    "AskFilters",
    "AuditProblem",
    "AuditReport",
    "ChainMode",
    "ChainReport",
    "ChainStep",
    "Citation",
    "ClaimClass",
    "Composed",
    "ConfirmationRequiredError",
    "Conflict",
    "ConflictKind",
    "ConflictValue",
    "DatasetView",
    "Detail",
    "DetectionReport",
    "DocumentOutcome",
    "DocumentRelation",
    "DocumentReport",
    "DraftAnswer",
    "DraftClaim",
    "EmptyInputError",
    "Evidence",
    "EvidenceItem",
    "EvidenceKind",
    "EvidencePack",
    "ExportFormat",
    "ExtractionMethod",
    "ExtractiveGenerator",
    "FactStatus",
    "GenerationError",
    "Generator",
    "GeneratorKind",
    "GraphSplit",
    "GroundedAnswer",
    "HeuristicJudge",
    "IngestOptions",
    "IngestReport",
    "InputError",
    "InputFormat",
    "Invalidation",
    "LinkedEntity",
    "NotFoundError",
    "PassageInfo",
    "PreparedQuery",
    "ProvGraph",
    "ProvGraphError",
    "QueryError",
    "QueryResult",
    "ReadOnlyStoreError",
    "ReasonCode",
    "RecordedAnswer",
    "Reference",
    "RelationEvidence",
    "RelationType",
    "Resolution",
    "ResolutionStrategy",
    "ResultFormat",
    "Revocation",
    "Segment",
    "SegmentType",
    "SourceInfo",
    "SourceStatus",
    "SourceUse",
    "SourceVersion",
    "StoreError",
    "StoreLockedError",
    "StoreNotEmptyError",
    "StoreNotFoundError",
    "StoreStats",
    "SupportJudge",
    "SupportLevel",
    "TrustTier",
    "UnsupportedFormatError",
    "ValidationFailedError",
    "ValidationIssue",
    "ValidationReport",
    "ValueClaim",
    "ValueOutcome",
    "VerificationIssue",
    "WriteRefusedError",
    "__version__",
]
