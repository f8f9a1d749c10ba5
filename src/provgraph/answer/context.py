"""The compiled context of an answer: what the generator is shown, as segments.

A generator sees instructions (its system prompt and answer schema, for a model) and evidence
items of the pack. Each is one :class:`Segment`: its type, its trust tier, the content exactly as
the generator was shown it and the metadata of its source (the evidence item whole). A segment's
id is the SHA-256 of all of that (:mod:`provgraph.answer.record` computes it from the triples that
store it), so the same item shown the same way has the same id in every answer.

Trust tiers say who vouches for a segment: ``system`` for provgraph's own instructions, and for
evidence the source's tier: tiers 1-2 are ``verified``, tier 3 ``user``, tiers 4-5 and sources
with no tier ``external``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.models import EvidenceItem, EvidenceKind, EvidencePack


class SegmentType(enum.StrEnum):
    INSTRUCTION = "instruction"
    EVIDENCE = "evidence"
    PASSAGE = "passage"
    CONFLICT = "conflict"


class TrustTier(enum.StrEnum):
    #: provgraph's own instructions to the generator
    SYSTEM = "system"
    #: evidence from a source of tier 1 or 2
    VERIFIED = "verified"
    #: evidence from a source of tier 3
    USER = "user"
    #: evidence from a source of tier 4 or 5, or of no stated tier
    EXTERNAL = "external"


def trust_tier(source_tier: int | None) -> TrustTier:
    """The trust tier of evidence from a source of ``source_tier`` (1 highest .. 5)."""
    if source_tier is None or source_tier >= 4:
        return TrustTier.EXTERNAL
    return TrustTier.VERIFIED if source_tier <= 2 else TrustTier.USER


_TYPES = {
    EvidenceKind.STATEMENT: SegmentType.EVIDENCE,
    EvidenceKind.RELATION: SegmentType.EVIDENCE,
    EvidenceKind.PASSAGE: SegmentType.PASSAGE,
    EvidenceKind.CONFLICT: SegmentType.CONFLICT,
}


class Segment(BaseModel):
    """One segment of an answer's context, as the generator was shown it."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="SHA-256 (hex) of the segment's content and metadata")
    type: SegmentType
    tier: TrustTier
    content: str = Field(description="the text the generator was shown")
    name: str | None = Field(default=None, description="an instruction's name, e.g. 'system prompt'")
    evidence: EvidenceItem | None = Field(default=None, description="the evidence item (not for instructions)")


class Instruction(BaseModel):
    """An instruction a generator is given with every pack."""

    model_config = ConfigDict(frozen=True)

    name: str
    content: str


class Shown(BaseModel):
    """What a generator shows its model for one pack: instructions, then evidence items, each
    with its content as shown."""

    model_config = ConfigDict(frozen=True)

    instructions: list[Instruction] = Field(default_factory=list)
    items: list[tuple[EvidenceItem, str]]


@runtime_checkable
class ShowsContext(Protocol):
    """A generator that says what it shows its model (the OpenAI-compatible one does). For one
    that does not, every item of the pack counts as shown, as its text."""

    def shown(self, pack: EvidencePack) -> Shown: ...

    def parameters(self) -> Mapping[str, Any]:
        """What configures the generator (model, base URL, temperature ...; never a secret)."""
        ...


def shown(generator: object, pack: EvidencePack) -> Shown:
    """What ``generator`` shows for ``pack``."""
    if isinstance(generator, ShowsContext):
        return generator.shown(pack)
    return Shown(items=[(item, item.text) for item in pack.items])


def parameters(generator: object) -> Mapping[str, Any]:
    return generator.parameters() if isinstance(generator, ShowsContext) else {}


def segment_type(item: EvidenceItem) -> SegmentType:
    return _TYPES[item.kind]


def draft_segments(view: Shown) -> Sequence[tuple[SegmentType, TrustTier, str, str | None, EvidenceItem | None]]:
    """The segments of ``view`` in order, before their ids are computed: (type, tier, content,
    name, item)."""
    out: list[tuple[SegmentType, TrustTier, str, str | None, EvidenceItem | None]] = [
        (SegmentType.INSTRUCTION, TrustTier.SYSTEM, i.content, i.name, None) for i in view.instructions
    ]
    out += [(segment_type(item), trust_tier(item.tier), content, None, item) for item, content in view.items]
    return out


__all__ = [
    "Instruction",
    "Segment",
    "SegmentType",
    "Shown",
    "ShowsContext",
    "TrustTier",
    "draft_segments",
    "parameters",
    "segment_type",
    "shown",
    "trust_tier",
]
