"""Replay: an answer's context rebuilt from its record alone, and what-if re-asks.

:func:`replay` rebuilds exactly what the generator was shown from the answer's graph, never from
today's store: the segments in order, each with its hash recomputed from its stored triples (a
segment changed behind the store's back is marked), the evidence pack as the extractive generator
read it, and for an OpenAI-compatible generator the chat messages and response format as sent.
With ``at``, it also gives the answer's session as it stood at that time: the answers recorded by
then, each valid unless a revocation had invalidated it by then.

:func:`diff` compares two answers (a recorded one and a re-ask over today's store, or under other
policy rules): claims kept, gone and new, citations changed, confidence before and after.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.context import Segment, SegmentType
from provgraph.answer.models import AskFilters, EvidencePack, GroundedAnswer
from provgraph.answer.record import AnswerSummary, RecordedAnswer, segment_problems, summaries
from provgraph.store.base import Backend


class ReplayedSegment(BaseModel):
    model_config = ConfigDict(frozen=True)

    segment: Segment
    intact: bool = Field(description="the segment's stored triples still hash to its id")


class Replay(BaseModel):
    """The context an answer was built from, as recorded."""

    model_config = ConfigDict(frozen=True)

    answer: str
    question: str
    filters: AskFilters
    generator: str
    created: datetime
    segments: list[ReplayedSegment]
    intact: bool = Field(description="every segment's hash matches")
    pack: EvidencePack = Field(description="the evidence items shown, as a generator reads them")
    messages: list[dict[str, str]] | None = Field(
        default=None, description="the chat messages sent to an OpenAI-compatible model"
    )
    response_format: dict[str, Any] | None = None
    at: datetime | None = None
    session: list[AnswerSummary] | None = Field(
        default=None, description="with at: the session's answers recorded by then, valid or invalid as of then"
    )


def replay(backend: Backend, recorded: RecordedAnswer, *, at: datetime | None = None) -> Replay:
    broken = segment_problems(backend, recorded.id)
    segments = [ReplayedSegment(segment=s, intact=s.id not in broken) for s in recorded.segments]
    evidence = [s.evidence for s in recorded.segments if s.evidence is not None]
    pack = EvidencePack(question=recorded.question, items=evidence, filters=recorded.filters)
    messages, response_format = _chat(recorded)
    session = None
    if at is not None and recorded.session is not None:
        session = [
            _as_of(a, at) for a in summaries(backend, session=recorded.session, limit=100_000) if a.created <= at
        ]
    return Replay(
        answer=recorded.id,
        question=recorded.question,
        filters=recorded.filters,
        generator=recorded.generator,
        created=recorded.created,
        segments=segments,
        intact=not broken,
        pack=pack,
        messages=messages,
        response_format=response_format,
        at=at,
        session=session,
    )


def _as_of(summary: AnswerSummary, at: datetime) -> AnswerSummary:
    if summary.invalidated and summary.invalidated_at is not None and summary.invalidated_at > at:
        return summary.model_copy(update={"invalidated": False, "invalidation_path": [], "invalidated_at": None})
    return summary


def _chat(recorded: RecordedAnswer) -> tuple[list[dict[str, str]] | None, dict[str, Any] | None]:
    """The messages and response format an OpenAI-compatible generator sent, from the record."""
    named = {s.name: s.content for s in recorded.segments if s.type is SegmentType.INSTRUCTION}
    if "system prompt" not in named or "evidence header" not in named:
        return None, None
    from provgraph.answer.openai_gen import user_message

    lines = [s.content for s in recorded.segments if s.type is not SegmentType.INSTRUCTION]
    messages = [
        {"role": "system", "content": named["system prompt"]},
        {"role": "user", "content": user_message(recorded.question, named["evidence header"], lines)},
    ]
    response_format = json.loads(named["response format"]) if "response format" in named else None
    return messages, response_format


# ---------------------------------------------------------------------- what-if


class CitationChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    claim: str
    removed: list[str] = Field(description="evidence ids cited before, not now")
    added: list[str] = Field(description="evidence ids cited now, not before")


class AnswerDiff(BaseModel):
    """How a re-ask differs from the recorded answer."""

    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="the recorded answer's id")
    rerun: str | None = Field(default=None, description="the re-ask's id, when it was recorded")
    confidence_before: str
    confidence_after: str
    claims_kept: list[str]
    claims_removed: list[str] = Field(description="claims of the recorded answer the re-ask does not make")
    claims_added: list[str] = Field(description="claims of the re-ask the recorded answer did not make")
    citations_changed: list[CitationChange] = Field(default_factory=list)
    answer_after: GroundedAnswer

    @property
    def changed(self) -> bool:
        return bool(
            self.claims_removed
            or self.claims_added
            or self.citations_changed
            or self.confidence_before != self.confidence_after
        )


def diff(before: RecordedAnswer, after: GroundedAnswer) -> AnswerDiff:
    old = {c.text: c for c in before.answer.claims}
    new = {c.text: c for c in after.claims}
    changes = [
        CitationChange(
            claim=text,
            removed=sorted(set(old[text].supporting_citations) - set(new[text].supporting_citations)),
            added=sorted(set(new[text].supporting_citations) - set(old[text].supporting_citations)),
        )
        for text in old
        if text in new and set(old[text].supporting_citations) != set(new[text].supporting_citations)
    ]
    return AnswerDiff(
        answer=before.id,
        rerun=after.id,
        confidence_before=before.answer.confidence.value,
        confidence_after=after.confidence.value,
        claims_kept=[t for t in old if t in new],
        claims_removed=[t for t in old if t not in new],
        claims_added=[t for t in new if t not in old],
        citations_changed=changes,
        answer_after=after,
    )


__all__ = ["AnswerDiff", "CitationChange", "Replay", "ReplayedSegment", "diff", "replay"]
