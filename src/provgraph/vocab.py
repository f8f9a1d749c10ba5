"""RDF vocabulary constants and the minting of provgraph's content-addressed IRIs.

The ``PG`` terms mirror ``ontologies/provgraph.ttl``; ``tests/test_vocab.py`` checks both ways
that every constant is defined there and every defined term has a constant, so a typo fails a test
instead of writing an undefined term.
"""

from __future__ import annotations

import hashlib

from provgraph.store.terms import NamedNode

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
    Nanopublication = NamedNode(PG_NS + "Nanopublication")
    ExtractionActivity = NamedNode(PG_NS + "ExtractionActivity")
    Catalog = NamedNode(PG_NS + "Catalog")
    ExtractionMethod = NamedNode(PG_NS + "ExtractionMethod")
    SourceStatus = NamedNode(PG_NS + "SourceStatus")
    FactStatus = NamedNode(PG_NS + "FactStatus")
    # classes of the trust layer (conflicts and their resolution)
    Conflict = NamedNode(PG_NS + "Conflict")
    ConflictValue = NamedNode(PG_NS + "ConflictValue")
    ConflictKind = NamedNode(PG_NS + "ConflictKind")
    ResolutionStrategy = NamedNode(PG_NS + "ResolutionStrategy")
    ResolutionOutcome = NamedNode(PG_NS + "ResolutionOutcome")
    ResolutionActivity = NamedNode(PG_NS + "ResolutionActivity")
    OntologyGraph = NamedNode(PG_NS + "OntologyGraph")
    ConflictGraph = NamedNode(PG_NS + "ConflictGraph")
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
    FunctionalConflict = NamedNode(PG_NS + "FunctionalConflict")
    DisjointConflict = NamedNode(PG_NS + "DisjointConflict")
    Recency = NamedNode(PG_NS + "Recency")
    Authority = NamedNode(PG_NS + "Authority")
    Majority = NamedNode(PG_NS + "Majority")
    SourceTrust = NamedNode(PG_NS + "SourceTrust")
    SurfaceOnly = NamedNode(PG_NS + "SurfaceOnly")
    Preferred = NamedNode(PG_NS + "Preferred")
    Rejected = NamedNode(PG_NS + "Rejected")
    Unresolved = NamedNode(PG_NS + "Unresolved")
    # properties
    fact = NamedNode(PG_NS + "fact")
    confidence = NamedNode(PG_NS + "confidence")
    extractionMethod = NamedNode(PG_NS + "extractionMethod")
    sourcePassage = NamedNode(PG_NS + "sourcePassage")
    reviewer = NamedNode(PG_NS + "reviewer")
    lastVerified = NamedNode(PG_NS + "lastVerified")
    originalGraph = NamedNode(PG_NS + "originalGraph")
    # nanopublications: the statement's, and what is kept of each as published
    nanopublication = NamedNode(PG_NS + "nanopublication")
    nanopubUri = NamedNode(PG_NS + "nanopubUri")
    nanopubContent = NamedNode(PG_NS + "nanopubContent")
    artefactCode = NamedNode(PG_NS + "artefactCode")
    signatureAlgorithm = NamedNode(PG_NS + "signatureAlgorithm")
    publicKey = NamedNode(PG_NS + "publicKey")
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
    # facts taken from text: where in the passage, in what unit, by which extractor
    evidenceStart = NamedNode(PG_NS + "evidenceStart")
    evidenceEnd = NamedNode(PG_NS + "evidenceEnd")
    unit = NamedNode(PG_NS + "unit")
    extractor = NamedNode(PG_NS + "extractor")
    extractorVersion = NamedNode(PG_NS + "extractorVersion")
    inDocument = NamedNode(PG_NS + "inDocument")
    document = NamedNode(PG_NS + "document")
    version = NamedNode(PG_NS + "version")
    status = NamedNode(PG_NS + "status")
    statementCount = NamedNode(PG_NS + "statementCount")
    passageCount = NamedNode(PG_NS + "passageCount")
    hasSourceGraph = NamedNode(PG_NS + "hasSourceGraph")
    CurrentView = NamedNode(PG_NS + "CurrentView")
    currentView = NamedNode(PG_NS + "currentView")
    pendingView = NamedNode(PG_NS + "pendingView")
    committing = NamedNode(PG_NS + "committing")
    writeToken = NamedNode(PG_NS + "writeToken")
    madeToken = NamedNode(PG_NS + "madeToken")
    claimedAt = NamedNode(PG_NS + "claimedAt")
    Change = NamedNode(PG_NS + "Change")
    generation = NamedNode(PG_NS + "generation")
    added = NamedNode(PG_NS + "added")
    removed = NamedNode(PG_NS + "removed")
    restated = NamedNode(PG_NS + "restated")
    ontologyChanged = NamedNode(PG_NS + "ontologyChanged")
    reset = NamedNode(PG_NS + "reset")
    # trust: conflict records
    conflictKind = NamedNode(PG_NS + "conflictKind")
    conflictSubject = NamedNode(PG_NS + "conflictSubject")
    conflictPredicate = NamedNode(PG_NS + "conflictPredicate")
    mergedEntity = NamedNode(PG_NS + "mergedEntity")
    hasValue = NamedNode(PG_NS + "hasValue")
    value = NamedNode(PG_NS + "value")
    valuePredicate = NamedNode(PG_NS + "valuePredicate")
    competingStatement = NamedNode(PG_NS + "competingStatement")
    sourceKey = NamedNode(PG_NS + "sourceKey")
    outcome = NamedNode(PG_NS + "outcome")
    score = NamedNode(PG_NS + "score")
    strategy = NamedNode(PG_NS + "strategy")
    preferredValue = NamedNode(PG_NS + "preferredValue")
    rationale = NamedNode(PG_NS + "rationale")
    firstDetected = NamedNode(PG_NS + "firstDetected")
    inputFingerprint = NamedNode(PG_NS + "inputFingerprint")
    changeLog = NamedNode(PG_NS + "changeLog")
    recordsVersion = NamedNode(PG_NS + "recordsVersion")
    resolutionInput = NamedNode(PG_NS + "resolutionInput")
    sourceAccuracy = NamedNode(PG_NS + "sourceAccuracy")
    entityMap = NamedNode(PG_NS + "entityMap")
    votePattern = NamedNode(PG_NS + "votePattern")
    votePatterns = NamedNode(PG_NS + "votePatterns")
    ToleranceAgreement = NamedNode(PG_NS + "ToleranceAgreement")
    agreementSubject = NamedNode(PG_NS + "agreementSubject")
    agreementPredicate = NamedNode(PG_NS + "agreementPredicate")
    parameters = NamedNode(PG_NS + "parameters")
    # trust: predicate semantics users declare in their ontology or policy file
    absoluteTolerance = NamedNode(PG_NS + "absoluteTolerance")
    relativeTolerance = NamedNode(PG_NS + "relativeTolerance")
    caseInsensitive = NamedNode(PG_NS + "caseInsensitive")
    alias = NamedNode(PG_NS + "alias")
    resolutionStrategy = NamedNode(PG_NS + "resolutionStrategy")
    decayRate = NamedNode(PG_NS + "decayRate")
    # trust: document relationships (citations, mentions, shared entities)
    DocumentRelation = NamedNode(PG_NS + "DocumentRelation")
    RelationComponent = NamedNode(PG_NS + "RelationComponent")
    RelationEvidence = NamedNode(PG_NS + "RelationEvidence")
    RelationType = NamedNode(PG_NS + "RelationType")
    RelationActivity = NamedNode(PG_NS + "RelationActivity")
    RelationGraph = NamedNode(PG_NS + "RelationGraph")
    Citation = NamedNode(PG_NS + "Citation")
    Mention = NamedNode(PG_NS + "Mention")
    SharedEntities = NamedNode(PG_NS + "SharedEntities")
    fromDocument = NamedNode(PG_NS + "fromDocument")
    toDocument = NamedNode(PG_NS + "toDocument")
    relationType = NamedNode(PG_NS + "relationType")
    strength = NamedNode(PG_NS + "strength")
    directed = NamedNode(PG_NS + "directed")
    strongestRelation = NamedNode(PG_NS + "strongestRelation")
    hasComponent = NamedNode(PG_NS + "hasComponent")
    hasEvidence = NamedNode(PG_NS + "hasEvidence")
    evidenceCount = NamedNode(PG_NS + "evidenceCount")
    evidenceText = NamedNode(PG_NS + "evidenceText")
    evidenceResource = NamedNode(PG_NS + "evidenceResource")
    foundIn = NamedNode(PG_NS + "foundIn")
    matchScore = NamedNode(PG_NS + "matchScore")
    relationParameters = NamedNode(PG_NS + "relationParameters")
    # answers: context provenance records (provgraph.answer.record)
    Answer = NamedNode(PG_NS + "Answer")
    Context = NamedNode(PG_NS + "Context")
    ContextSegment = NamedNode(PG_NS + "ContextSegment")
    SegmentType = NamedNode(PG_NS + "SegmentType")
    TrustTier = NamedNode(PG_NS + "TrustTier")
    GenerationActivity = NamedNode(PG_NS + "GenerationActivity")
    Draft = NamedNode(PG_NS + "Draft")
    VerificationActivity = NamedNode(PG_NS + "VerificationActivity")
    Claim = NamedNode(PG_NS + "Claim")
    RemovedClaim = NamedNode(PG_NS + "RemovedClaim")
    InstructionSegment = NamedNode(PG_NS + "InstructionSegment")
    EvidenceSegment = NamedNode(PG_NS + "EvidenceSegment")
    PassageSegment = NamedNode(PG_NS + "PassageSegment")
    ConflictSegment = NamedNode(PG_NS + "ConflictSegment")
    SystemTrust = NamedNode(PG_NS + "SystemTrust")
    VerifiedTrust = NamedNode(PG_NS + "VerifiedTrust")
    UserTrust = NamedNode(PG_NS + "UserTrust")
    ExternalTrust = NamedNode(PG_NS + "ExternalTrust")
    segmentType = NamedNode(PG_NS + "segmentType")
    trustTier = NamedNode(PG_NS + "trustTier")
    content = NamedNode(PG_NS + "content")
    segmentName = NamedNode(PG_NS + "segmentName")
    evidenceId = NamedNode(PG_NS + "evidenceId")
    evidenceData = NamedNode(PG_NS + "evidenceData")
    sourceGraph = NamedNode(PG_NS + "sourceGraph")
    sourceDocument = NamedNode(PG_NS + "sourceDocument")
    includes = NamedNode(PG_NS + "includes")
    segmentOrder = NamedNode(PG_NS + "segmentOrder")
    generatorName = NamedNode(PG_NS + "generatorName")
    generatorParameters = NamedNode(PG_NS + "generatorParameters")
    model = NamedNode(PG_NS + "model")
    baseUrl = NamedNode(PG_NS + "baseUrl")
    draftData = NamedNode(PG_NS + "draftData")
    removedClaim = NamedNode(PG_NS + "removedClaim")
    reasonCode = NamedNode(PG_NS + "reasonCode")
    verifierAction = NamedNode(PG_NS + "verifierAction")
    message = NamedNode(PG_NS + "message")
    claimText = NamedNode(PG_NS + "claimText")
    citesEvidence = NamedNode(PG_NS + "citesEvidence")
    claimOrder = NamedNode(PG_NS + "claimOrder")
    supportLevel = NamedNode(PG_NS + "supportLevel")
    claimClass = NamedNode(PG_NS + "claimClass")
    verified = NamedNode(PG_NS + "verified")
    question = NamedNode(PG_NS + "question")
    filters = NamedNode(PG_NS + "filters")
    answerConfidence = NamedNode(PG_NS + "answerConfidence")
    answerData = NamedNode(PG_NS + "answerData")
    hasContext = NamedNode(PG_NS + "hasContext")
    hasClaim = NamedNode(PG_NS + "hasClaim")
    session = NamedNode(PG_NS + "session")
    sessionIndex = NamedNode(PG_NS + "sessionIndex")
    previousAnswer = NamedNode(PG_NS + "previousAnswer")
    supersedes = NamedNode(PG_NS + "supersedes")
    # the answer log's counts and stored evaluation runs (provgraph.answer.metrics)
    draftedClaims = NamedNode(PG_NS + "draftedClaims")
    keptClaims = NamedNode(PG_NS + "keptClaims")
    draftedCitations = NamedNode(PG_NS + "draftedCitations")
    resolvedCitations = NamedNode(PG_NS + "resolvedCitations")
    removedClaimCounts = NamedNode(PG_NS + "removedClaimCounts")
    Evaluation = NamedNode(PG_NS + "Evaluation")
    evaluationDataset = NamedNode(PG_NS + "evaluationDataset")
    evaluationData = NamedNode(PG_NS + "evaluationData")
    # revocations and what they invalidated (provgraph.answer.invalidation)
    Revocation = NamedNode(PG_NS + "Revocation")
    reason = NamedNode(PG_NS + "reason")
    revoked = NamedNode(PG_NS + "revoked")
    revokedDocument = NamedNode(PG_NS + "revokedDocument")
    revokedStatement = NamedNode(PG_NS + "revokedStatement")
    revokedEvidence = NamedNode(PG_NS + "revokedEvidence")
    invalidatedAnswers = NamedNode(PG_NS + "invalidatedAnswers")
    invalidationPath = NamedNode(PG_NS + "invalidationPath")
    # context policy (provgraph.answer.policy)
    PolicyRule = NamedNode(PG_NS + "PolicyRule")
    PolicyVersion = NamedNode(PG_NS + "PolicyVersion")
    PolicyDecision = NamedNode(PG_NS + "PolicyDecision")
    PolicyAction = NamedNode(PG_NS + "PolicyAction")
    Permit = NamedNode(PG_NS + "Permit")
    Deny = NamedNode(PG_NS + "Deny")
    Redact = NamedNode(PG_NS + "Redact")
    Flag = NamedNode(PG_NS + "Flag")
    policyAction = NamedNode(PG_NS + "policyAction")
    justification = NamedNode(PG_NS + "justification")
    priority = NamedNode(PG_NS + "priority")
    whenTrustTier = NamedNode(PG_NS + "whenTrustTier")
    whenSegmentType = NamedNode(PG_NS + "whenSegmentType")
    whenDocument = NamedNode(PG_NS + "whenDocument")
    whenDocumentKey = NamedNode(PG_NS + "whenDocumentKey")
    whenHost = NamedNode(PG_NS + "whenHost")
    whenPublisher = NamedNode(PG_NS + "whenPublisher")
    whenPredicate = NamedNode(PG_NS + "whenPredicate")
    whenGraph = NamedNode(PG_NS + "whenGraph")
    whenStatus = NamedNode(PG_NS + "whenStatus")
    whenOlderThanDays = NamedNode(PG_NS + "whenOlderThanDays")
    currentPolicy = NamedNode(PG_NS + "currentPolicy")
    policySource = NamedNode(PG_NS + "policySource")
    policyVersion = NamedNode(PG_NS + "policyVersion")
    policyHash = NamedNode(PG_NS + "policyHash")
    rule = NamedNode(PG_NS + "rule")
    decidedSegment = NamedNode(PG_NS + "decidedSegment")
    hasDecision = NamedNode(PG_NS + "hasDecision")
    redactedContentHash = NamedNode(PG_NS + "redactedContentHash")
    flagged = NamedNode(PG_NS + "flagged")


#: The catalog graph: one pg:SourceGraph per ingested version.
CATALOG_GRAPH = NamedNode(ID_NS + "catalog")
#: The graph of users' ontologies and policy files (predicate semantics): not a source document.
ONTOLOGY_GRAPH = NamedNode(ID_NS + "ontology")
#: The graph of conflict records (pg:Conflict) and their resolution activities.
CONFLICT_GRAPH = NamedNode(ID_NS + "conflicts")
#: The graph of document relationships (pg:DocumentRelation), replaced by each refresh.
RELATIONS_GRAPH = NamedNode(ID_NS + "relations")
#: The current view: the union of the current source graphs, kept up to date at each write.
CURRENT_VIEW = NamedNode(ID_NS + "current")
#: The change log (pg:Change, one per write that changed the current sources or the ontology).
CHANGES_GRAPH = NamedNode(ID_NS + "changes")
#: The answer log: one entry per recorded answer (each answer is its own graph pgid:answer/<hash>).
ANSWERS_GRAPH = NamedNode(ID_NS + "answers")
#: Stored ``provgraph eval`` runs (pg:Evaluation), for the answer dashboard.
EVALUATIONS_GRAPH = NamedNode(ID_NS + "evaluations")
#: Revocations (tombstones: who, when, why) of sources, statements and segments.
REVOCATIONS_GRAPH = NamedNode(ID_NS + "revocations")
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


def nanopub_iri(document: NamedNode, uri: str) -> str:
    """IRI (as N-Triples) of the record of a nanopublication a document holds."""
    return f"<{ID_NS}nanopub/{sha256_hex(document.value + chr(10) + uri)}>"


def passage_iri(document: NamedNode, key: str) -> str:
    """IRI (as N-Triples) of a passage of a document, from its text and position."""
    return f"<{ID_NS}passage/{sha256_hex(document.value + chr(10) + key)}>"
