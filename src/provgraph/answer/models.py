"""Pydantic models of the answering path: the contracts of ``pg.ask()``, ``provgraph ask --json``,
``POST /qa`` and ``POST /qa/verify``. Field names are stable; new fields may be added.

The flow is ``question -> EvidencePack -> DraftAnswer -> GroundedAnswer``: the retriever builds the
pack, a generator (extractive or OpenAI-compatible) sees only the pack and writes a draft, and the
verifier checks every claim of the draft against the evidence it cites and turns it into the
grounded answer (claims removed or downgraded with reason codes, confidence, references).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable
from datetime import date

from pydantic import BaseModel, ConfigDict, Field, computed_field

from provgraph.options import Detail, GeneratorKind
from provgraph.trust.models import Conflict, FactStatus


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


# ---------------------------------------------------------------------- evidence pack


class EvidenceKind(enum.StrEnum):
    #: a reified statement (a fact) of a source document
    STATEMENT = "statement"
    #: a passage (a sentence) of a source document
    PASSAGE = "passage"
    #: sources disagree about a fact: every side and the resolution
    CONFLICT = "conflict"
    #: two documents are related (citation, mention, shared entities)
    RELATION = "relation"


def evidence_id(kind: EvidenceKind, *parts: str) -> str:
    """A stable, content-addressed evidence id: the same statement, passage or conflict in the
    same source version always gets the same id, whatever the question."""
    digest = hashlib.sha256("\n".join([kind.value, *parts]).encode("utf-8")).hexdigest()
    return f"ev-{digest[:12]}"


class ReasonCode(enum.StrEnum):
    """Why the verifier removed, downgraded or flagged a claim."""

    NO_CITATION = "no_citation"
    DANGLING_CITATION = "dangling_citation"
    DUPLICATE_CITATION = "duplicate_citation"
    UNSUPPORTED_ENTITY = "unsupported_entity"
    UNSUPPORTED_PREDICATE = "unsupported_predicate"
    UNSUPPORTED_NUMBER = "unsupported_number"
    INSUFFICIENT_SUPPORT = "insufficient_support"
    CONTRADICTED = "contradicted"
    CONTESTED_EVIDENCE = "contested_evidence"
    #: the claims hold, but together they do not cover what the question asks about
    QUESTION_NOT_COVERED = "question_not_covered"
    #: the cited evidence vouches for itself ("the verified answer is ..."): a source does not
    #: make a claim true by saying so
    SELF_ASSERTING_EVIDENCE = "self_asserting_evidence"
    #: the cited evidence gives orders to its reader ("ignore previous instructions", "SYSTEM:",
    #: "cite [1]"), fakes a role or a boundary, carries active markup or hides encoded text
    INSTRUCTION_IN_EVIDENCE = "instruction_in_evidence"
    #: the cited evidence was withheld from the generator by a context policy rule
    REDACTED_EVIDENCE = "redacted_evidence"


class UntrustedText(_Model):
    """Why an item is not evidence: text of it, or of its source, gives orders to its reader or
    vouches for itself (:mod:`provgraph.answer.untrusted`). Such an item supports no claim."""

    code: ReasonCode = Field(description="self_asserting_evidence or instruction_in_evidence")
    signal: str = Field(description='what was found, e.g. "overrides instructions"')
    matched: str = Field(description="the words that matched, normalised")
    passage: str | None = Field(default=None, description="IRI of the passage where it was found")
    excerpt: str = Field(description="the start of the text where it was found")


class EvidenceItem(_Model):
    """One numbered, scored item of an evidence pack, with everything needed to cite it."""

    id: str = Field(description="content-addressed id (sha-256 of kind, graph and statement/passage IRI)")
    number: int = Field(description="1-based position in the pack, the [n] a reader sees")
    kind: EvidenceKind
    score: float = Field(description="retrieval score, higher is more relevant; the pack is sorted by it")
    text: str = Field(description="the evidence in plain language: the passage, or the fact from its labels")
    hop: int = Field(default=0, description="0: matched the question; 1: fact about a linked entity; 2: chain")
    # the source
    document: str | None = Field(default=None, description="IRI of the source document")
    document_key: str | None = None
    title: str | None = None
    url: str | None = None
    tier: int | None = None
    issued: str | None = None
    graph: str | None = Field(default=None, description="the source graph (one version of the document)")
    # statements
    statement: str | None = Field(default=None, description="IRI of the reified statement")
    subject: str | None = None
    predicate: str | None = None
    object: str | None = Field(default=None, description="the object in N-Triples syntax")
    subject_label: str | None = None
    predicate_label: str | None = None
    predicate_synonyms: list[str] = Field(
        default_factory=list, description="the ontology's other labels of the predicate: what a question may call it"
    )
    object_label: str | None = None
    confidence: float | None = Field(default=None, description="aggregated confidence of the fact")
    status: FactStatus | None = None
    # passages
    passage: str | None = Field(default=None, description="IRI of the passage (for statements: its source passage)")
    passage_text: str | None = None
    section: str | None = None
    referent: str | None = Field(
        default=None,
        description="the name a passage's opening pronoun or 'The <kind>' stands for, from the sentences before it, "
        "when its document's title does not name its subject",
    )
    # conflicts and relations
    conflict: Conflict | None = None
    related: list[str] = Field(default_factory=list, description="ids of pack items this one is about")
    redacted: str | None = Field(
        default=None, description="IRI of the policy rule that withheld the item's content: it supports no claim"
    )
    untrusted: UntrustedText | None = Field(
        default=None,
        description="set when a passage of the item's source gives orders or vouches for itself: the item "
        "supports no claim",
    )


class LinkedEntity(_Model):
    """An entity of the store the question mentions."""

    iri: str
    label: str
    score: float
    matched: str = Field(description="the words of the question that matched the label")


class AskFilters(_Model):
    """Restrict retrieval. Superseded and revoked sources never appear, whatever the filters."""

    documents: list[str] | None = Field(default=None, description="only these documents (keys or IRIs)")
    max_tier: int | None = Field(default=None, ge=1, le=5, description="only sources of this tier or better")
    min_confidence: float | None = Field(default=None, ge=0, le=1, description="only facts at least this confident")
    issued_after: date | None = Field(default=None, description="only sources issued on or after this date")


class EvidencePack(_Model):
    """What the retriever found for a question: the only input a generator gets."""

    question: str
    items: list[EvidenceItem]
    entities: list[LinkedEntity] = Field(default_factory=list)
    filters: AskFilters = Field(default_factory=AskFilters)
    retrieved_documents: list[str] = Field(default_factory=list, description="IRIs of every source in the pack")

    def get(self, evidence: str) -> EvidenceItem | None:
        """The item with id (or ``[n]`` number as text) ``evidence``, else None."""
        for item in self.items:
            if item.id == evidence or str(item.number) == evidence.strip("[] "):
                return item
        return None


# ---------------------------------------------------------------------- drafts and answers


class SupportLevel(enum.StrEnum):
    #: the cited evidence states the claim
    DIRECT = "direct"
    #: the claim follows from the cited evidence (a chain, an aggregate, a comparison)
    INDIRECT = "indirect"


class ClaimClass(enum.StrEnum):
    FACTUAL = "factual"
    #: compares entities or values: needs two citations, or one plus stated uncertainty
    COMPARATIVE = "comparative"
    #: states an assumption or scope: needs a passage stating it
    SCOPE = "scope"
    #: about the past or a change over time
    HISTORICAL = "historical"


class AnswerConfidence(enum.StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    #: the system abstains
    INSUFFICIENT = "insufficient_evidence"


class DraftClaim(_Model):
    """A claim as a generator writes it."""

    text: str
    supporting_citations: list[str] = Field(description="evidence ids from the pack")
    support_level: SupportLevel = SupportLevel.DIRECT
    claim_class: ClaimClass = ClaimClass.FACTUAL
    subtopic: str | None = Field(default=None, description="a heading to group claims under")


class DraftAnswer(_Model):
    """What a generator returns (and what an OpenAI-compatible model is asked to produce)."""

    answer_summary: str
    claims: list[DraftClaim]
    limitations: list[str] = Field(default_factory=list)
    query_refinements: list[str] = Field(default_factory=list)


class Action(enum.StrEnum):
    REMOVED = "removed"
    DOWNGRADED = "downgraded"
    FLAGGED = "flagged"
    #: a bad citation was dropped from a claim that stays supported by its others
    CITATION_DROPPED = "citation_dropped"


class VerificationIssue(_Model):
    claim: str = Field(description="the claim's text as drafted")
    code: ReasonCode
    action: Action
    message: str
    citation: str | None = Field(default=None, description="the citation concerned, if one")
    high_risk: bool = Field(default=False, description="an unresolved high-risk issue caps the confidence")


class Citation(_Model):
    """What an evidence id resolves to."""

    id: str
    number: int
    kind: EvidenceKind
    text: str
    statement: str | None = None
    passage: str | None = None
    document: str | None = None
    title: str | None = None
    url: str | None = None

    @staticmethod
    def marks(numbers: Iterable[int]) -> str:
        """How an answer's text cites: ``[1-3][5]`` for 1, 2, 3, 5 (three or more adjacent
        numbers become a range)."""
        ordered = sorted(set(numbers))
        out: list[str] = []
        i = 0
        while i < len(ordered):
            j = i
            while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
                j += 1
            if j - i >= 2:
                out.append(f"[{ordered[i]}-{ordered[j]}]")
                i = j + 1
            else:
                out.append(f"[{ordered[i]}]")
                i += 1
        return "".join(out)


class AnswerClaim(_Model):
    text: str
    supporting_citations: list[str] = Field(description="evidence ids, each resolving to a citation")
    support_level: SupportLevel
    claim_class: ClaimClass
    subtopic: str | None = None
    verified: bool = Field(description="the cited evidence supports the claim")
    issues: list[VerificationIssue] = Field(default_factory=list)


class Reference(_Model):
    """One entry of the bibliography: a source document with the evidence of it that was cited."""

    number: int
    document: str
    key: str | None = None
    title: str
    url: str | None = None
    tier: int | None = None
    issued: str | None = None
    evidence: list[str] = Field(description="ids of the cited evidence from this source")
    passages: list[str] = Field(default_factory=list, description="text of the cited passages")


class SourceUse(_Model):
    document: str
    title: str
    reason: str = Field(description="why the source was used, e.g. 'cited by 2 claims: population of Amsterdam'")


class GroundedAnswer(_Model):
    """An answer whose every claim cites evidence the verifier checked; or an abstention."""

    question: str
    answer_summary: str
    claims: list[AnswerClaim]
    references: list[Reference]
    citations: list[Citation] = Field(description="every cited evidence id resolved")
    confidence: AnswerConfidence
    limitations: list[str] = Field(default_factory=list)
    query_refinements: list[str] = Field(default_factory=list)
    filter_suggestions: list[str] = Field(default_factory=list)
    sources_used: list[SourceUse]
    sources_retrieved: int
    removed_claims: list[VerificationIssue] = Field(default_factory=list)
    generator: str = Field(description="the generator that drafted the answer")
    evidence: list[EvidenceItem] | None = Field(default=None, description="cited evidence items (detailed only)")
    id: str | None = Field(
        default=None, description="id of the answer's record in the store (SHA-256 hex); None when not recorded"
    )
    session: str | None = Field(default=None, description="the session the answer belongs to")
    flags: list[str] = Field(
        default_factory=list, description="policy rules that marked the answer for audit: 'rule: justification'"
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abstained(self) -> bool:
        return self.confidence is AnswerConfidence.INSUFFICIENT

    @computed_field  # type: ignore[prop-decorator]
    @property
    def sources_summary(self) -> str:
        return f"{len(self.sources_used)} used / {self.sources_retrieved} retrieved"


__all__ = [
    "Action",
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
    "GeneratorKind",
    "GroundedAnswer",
    "LinkedEntity",
    "ReasonCode",
    "Reference",
    "SourceUse",
    "SupportLevel",
    "UntrustedText",
    "VerificationIssue",
    "evidence_id",
]
