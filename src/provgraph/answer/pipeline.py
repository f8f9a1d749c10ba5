"""From an evidence pack to a grounded answer: generate, then verify.

The generator sees only the pack. When it fails (:class:`~provgraph.errors.GenerationError`: the
model server is down, refuses, or answers outside the schema) the offline extractive generator
answers instead and the answer's limitations say so: a user always gets a verified answer or an
abstention, never a stack trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from provgraph.answer.base import Generator, SupportJudge
from provgraph.answer.extractive import ExtractiveGenerator
from provgraph.answer.models import Detail, DraftAnswer, EvidencePack, GeneratorKind, GroundedAnswer
from provgraph.answer.verify import verify
from provgraph.errors import GenerationError


@dataclass(frozen=True)
class Steps:
    """What each step produced and how long it took (seconds, by step)."""

    draft: DraftAnswer
    answer: GroundedAnswer
    seconds: dict[str, float] = field(default_factory=dict)
    #: the generator that wrote the draft (the extractive one after a fallback)
    drafted_by: Generator | None = None
    started: datetime | None = None
    generated: datetime | None = None
    verified: datetime | None = None


def respond(
    pack: EvidencePack,
    *,
    generator: Generator | None = None,
    detail: Detail = Detail.BRIEF,
    judge: SupportJudge | None = None,
) -> Steps:
    """Draft an answer from ``pack`` with ``generator`` (default: extractive) and verify it."""
    generator = generator or ExtractiveGenerator()
    name = generator.name
    limitations: list[str] = []
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    try:
        draft = generator.generate(pack)
    except GenerationError as exc:
        generator = ExtractiveGenerator()
        limitations.append(f"The generator {name} failed ({exc}); the offline extractive generator answered instead.")
        name = f"{generator.name} (fallback from {name})"
        draft = generator.generate(pack)
    generated = time.perf_counter()
    generated_at = datetime.now(UTC)
    # the extractive generator's notes are its code's, written from the evidence; a model's are checked
    own_notes = isinstance(generator, ExtractiveGenerator)
    answer = verify(
        draft, pack, generator=name, judge=judge, detail=detail, extra_limitations=limitations, trust_notes=own_notes
    )
    verified = time.perf_counter()
    return Steps(
        draft,
        answer,
        {"generation": generated - started, "verification": verified - generated},
        drafted_by=generator,
        started=started_at,
        generated=generated_at,
        verified=datetime.now(UTC),
    )


def build_generator(kind: GeneratorKind, *, model: str | None = None, base_url: str | None = None) -> Generator:
    """The generator of ``kind``; an OpenAI-compatible one is configured from the environment
    (see :mod:`provgraph.answer.openai_gen`), ``model`` and ``base_url`` overriding it."""
    if kind is GeneratorKind.EXTRACTIVE:
        return ExtractiveGenerator()
    from provgraph.answer.openai_gen import OpenAIGenerator, OpenAISettings

    settings = OpenAISettings.from_env()
    updates = {k: v for k, v in (("model", model), ("base_url", base_url)) if v}
    return OpenAIGenerator(settings.model_copy(update=updates))


__all__ = ["Steps", "build_generator", "respond"]
