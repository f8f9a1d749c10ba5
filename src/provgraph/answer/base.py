"""The small protocols of the answering path. Each has a real in-memory implementation: the
extractive generator (:mod:`provgraph.answer.extractive`) and the heuristic support judge
(:mod:`provgraph.answer.verify`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from provgraph.answer.models import DraftAnswer, DraftClaim, EvidenceItem, EvidencePack, ReasonCode


@runtime_checkable
class Generator(Protocol):
    """Writes a draft answer from an evidence pack, and from nothing else."""

    @property
    def name(self) -> str:
        """Shown in the answer (``generator``), e.g. ``extractive`` or ``openai:gpt-4o-mini``."""
        ...

    def generate(self, pack: EvidencePack) -> DraftAnswer:
        """A draft whose claims cite the pack's evidence ids. Raises
        :class:`~provgraph.errors.GenerationError` when it cannot produce one."""
        ...


@runtime_checkable
class SupportJudge(Protocol):
    """Decides whether cited evidence supports a claim (a heuristic today, an NLI model later)."""

    def judge(self, claim: DraftClaim, cited: Sequence[EvidenceItem]) -> list[tuple[ReasonCode, str]]:
        """Why ``cited`` does not support ``claim``: an empty list when it does."""
        ...


__all__ = ["Generator", "SupportJudge"]
