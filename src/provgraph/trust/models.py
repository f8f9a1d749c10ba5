"""Pydantic models of the trust layer: the contracts of ``pg.conflicts()``, ``provgraph conflicts
--json`` and ``GET /conflicts``. Field names are stable; new fields may be added.

Deliberately independent of :mod:`provgraph.models` (which imports :class:`FactStatus` from here).
"""

from __future__ import annotations

import enum
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from provgraph.options import ResolutionStrategy

_PG = "https://w3id.org/provgraph/ns#"


class ChainMode(enum.StrEnum):
    """How a multi-hop chain's confidence is bounded by its steps'."""

    #: the weakest link: ``min(c_i)``
    WEAKEST = "weakest"
    #: the product ``prod(c_i)``: every hop is a further chance to be wrong
    PRODUCT = "product"


class FactStatus(enum.StrEnum):
    """Trust status of a fact across sources."""

    #: independent current sources agree and no conflict involves it
    CONFIRMED = "confirmed"
    #: a conflict involves it
    CONTESTED = "contested"
    #: only superseded or revoked sources state it, or it lost a resolution
    DEPRECATED = "deprecated"
    #: one source, no conflict: not enough to say
    UNKNOWN = "unknown"

    @property
    def iri(self) -> str:
        return _PG + self.value.capitalize()


class ConflictKind(enum.StrEnum):
    #: a functional (single-valued) predicate with different values for one subject
    FUNCTIONAL = "functional"
    #: two disjoint predicates (owl:propertyDisjointWith) on the same subject and object
    DISJOINT = "disjoint"

    @property
    def iri(self) -> str:
        return _PG + self.value.capitalize() + "Conflict"


class ValueOutcome(enum.StrEnum):
    PREFERRED = "preferred"
    REJECTED = "rejected"
    UNRESOLVED = "unresolved"

    @property
    def iri(self) -> str:
        return _PG + self.value.capitalize()


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class ValueClaim(_Model):
    """One statement stating a competing value, with the provenance resolution uses: the one
    claim type of the trust layer, which detection finds (:mod:`provgraph.trust.conflicts`),
    resolution ranks (:mod:`provgraph.trust.resolve`) and a conflict shows.

    ``predicate``, ``key`` and ``number`` are what detection groups values by. They are not
    serialised, so a conflict's JSON is what it always was (the value shows its predicate), and a
    claim read back by its statement has no ``key`` nor ``number``: only detection compares
    claims."""

    statement: str
    graph: str
    document: str
    source: str = Field(description="independent source: publisher, else host of the source URL, else document")
    subject: str = Field(description="the subject as the document states it (before entity resolution)")
    object: str = Field(description="the object as stated, in N-Triples syntax")
    tier: int
    confidence: float = Field(description="statement confidence: extraction confidence within the tier's band")
    time: datetime | None = Field(default=None, description="last edit of the statement, else issue of the document")
    predicate: str = Field(default="", exclude=True, description="the predicate stated (not serialised)")
    key: str = Field(
        default="", exclude=True, description="the object's comparison key after normalisation (not serialised)"
    )
    number: float | None = Field(default=None, exclude=True, description="the object as a number (not serialised)")


class ConflictValue(_Model):
    """One competing value (values within the predicate's tolerance are one) and who states it."""

    value: str = Field(description="representative object in N-Triples syntax")
    predicate: str
    members: list[str] = Field(default_factory=list, description="distinct objects merged into this value")
    sources: list[str] = Field(description="independent sources stating it")
    claims: list[ValueClaim]
    outcome: ValueOutcome = ValueOutcome.UNRESOLVED
    score: float | None = Field(default=None, description="the strategy's score (higher is preferred)")
    confidence: float = Field(description="aggregated confidence 1 - prod(1 - c) over its independent sources")


class Resolution(_Model):
    """Which value a strategy prefers, and why."""

    strategy: ResolutionStrategy
    preferred: str | None = Field(default=None, description="preferred value (N-Triples), none for surface/ties")
    rationale: str
    activity: str | None = Field(default=None, description="IRI of the prov:Activity that resolved it")
    resolved_at: datetime | None = None


class Conflict(_Model):
    """Current sources disagree. Every value stays visible; the resolution says which is preferred."""

    iri: str
    kind: ConflictKind
    subject: str = Field(description="the entity (after entity resolution)")
    merged_subjects: list[str] = Field(default_factory=list, description="other IRIs resolved to the subject")
    predicates: list[str]
    values: list[ConflictValue]
    resolution: Resolution
    first_detected: datetime | None = None

    @property
    def preferred(self) -> ConflictValue | None:
        for value in self.values:
            if value.outcome is ValueOutcome.PREFERRED:
                return value
        return None


class DetectionReport(_Model):
    """What one run of conflict detection found (``pg.detect_conflicts()``)."""

    conflicts: int
    multi_valued: int = Field(description="(subject, predicate) items with more than one distinct value")
    merged_by_tolerance: int = Field(description="multi-valued items whose values all agree within tolerance")
    predicates: list[str] = Field(description="functional predicates checked")
    disjoint_pairs: int
    merged_entities: int = Field(description="subject IRIs resolved to another entity")
    strategy: ResolutionStrategy | None = Field(default=None, description="strategy forced for every predicate")
    source_accuracy: dict[str, float] = Field(default_factory=dict, description="truth discovery's estimates")
    activity: str | None = None
    seconds: float
    phases: dict[str, float] = Field(
        default_factory=dict,
        description="seconds per phase: entities (entity resolution), find (the detection queries), "
        "claims (statements of the items found), resolve (truth discovery and strategies), records",
    )
    stored: bool = Field(description="false when the store is read-only: records were computed, not written")


class ChainStep(_Model):
    """One hop of an inference chain, with its provenance."""

    subject: str
    predicate: str
    object: str
    confidence: float = Field(description="aggregated confidence of the hop's fact")
    sources: list[str]
    statements: list[str]


class ChainReport(_Model):
    """A multi-hop chain (A treats B, B subClassOf C: A may help C) and its bounded confidence."""

    subject: str
    object: str
    steps: list[ChainStep]
    mode: ChainMode
    confidence: float


__all__ = [
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
]
