"""The public surface is deliberate: a change to it must change this test."""

import provgraph

EXPECTED = {
    "AnswerMetrics",
    "DayMetrics",
    "EvalReport",
    "StoredEvaluation",
    "AnswerDiff",
    "CitationChange",
    "Decision",
    "Policy",
    "ReplayedSegment",
    "Replay",
    "Rule",
    "AnswerInvalidation",
    "ConfirmationRequiredError",
    "Invalidation",
    "Revocation",
    "RevocationTarget",
    "AnswerSummary",
    "AuditProblem",
    "AuditReport",
    "Composed",
    "RecordedAnswer",
    "Segment",
    "SegmentType",
    "TrustTier",
    "AnswerClaim",
    "AnswerConfidence",
    "AskFilters",
    "Citation",
    "ClaimClass",
    "Detail",
    "DraftAnswer",
    "DraftClaim",
    "EvidenceItem",
    "EvidenceKind",
    "EvidencePack",
    "ExtractiveGenerator",
    "GenerationError",
    "Generator",
    "GeneratorKind",
    "GroundedAnswer",
    "HeuristicJudge",
    "LinkedEntity",
    "ReasonCode",
    "Reference",
    "SourceUse",
    "SupportJudge",
    "SupportLevel",
    "VerificationIssue",
    "ChainMode",
    "ChainReport",
    "ChainStep",
    "Conflict",
    "ConflictKind",
    "ConflictValue",
    "DetectionReport",
    "FactStatus",
    "Resolution",
    "ResolutionStrategy",
    "ValueClaim",
    "ValueOutcome",
    "DatasetView",
    "DocumentOutcome",
    "DocumentRelation",
    "DocumentReport",
    "EmptyInputError",
    "Evidence",
    "ExportFormat",
    "Extraction",
    "ExtractionMethod",
    "GraphSplit",
    "IngestOptions",
    "IngestReport",
    "InputError",
    "InputFormat",
    "NotFoundError",
    "PassageInfo",
    "PreparedQuery",
    "ProvGraph",
    "ProvGraphError",
    "QueryError",
    "QueryResult",
    "ReadOnlyStoreError",
    "RelationEvidence",
    "RelationType",
    "ResultFormat",
    "SourceInfo",
    "SourceStatus",
    "SourceVersion",
    "StoreError",
    "StoreLockedError",
    "ConcurrentWriteError",
    "StoreNotEmptyError",
    "StoreNotFoundError",
    "StoreStats",
    "UnsupportedFormatError",
    "ValidationFailedError",
    "WriteRefusedError",
    "ValidationIssue",
    "ValidationReport",
    "__version__",
}


def test_exported_names_are_exactly_the_public_api():
    assert set(provgraph.__all__) == EXPECTED


def test_every_exported_name_exists():
    for name in provgraph.__all__:
        assert hasattr(provgraph, name), name


def test_every_error_derives_from_one_root():
    errors = [getattr(provgraph, n) for n in provgraph.__all__ if n.endswith("Error")]
    assert errors
    for error in errors:
        assert issubclass(error, provgraph.ProvGraphError), error


def test_package_is_typed():
    from pathlib import Path

    assert (Path(provgraph.__file__).parent / "py.typed").is_file()
