r"""Confidence scoring: pure functions, no store.

Formulas
--------
Tier bands (base confidence of a source tier, 1 best .. 5 worst)::

    1: [0.95, 1.00]  curated, peer-reviewed
    2: [0.85, 0.95]  authoritative institutional
    3: [0.70, 0.85]  validated automated extraction
    4: [0.50, 0.70]  unvalidated LLM extraction
    5: [0.30, 0.50]  unverified, user-generated

Statement confidence, from the extraction confidence ``e`` in [0, 1] recorded on the statement
(``pg:confidence``) and the tier band ``[lo, hi]`` of its document: the extraction places the
statement within its source's band, so a perfect extraction from a tier-4 source never outranks a
tier-2 source::

    c = lo + (hi - lo) * e

Decay with age (optional; ``lambda`` per predicate or per domain, per day)::

    c(t) = c * exp(-lambda * age_days)

Aggregation over independent sources (each source counted once, with its best statement):
the probability that not all of them are wrong, were they independent; capped so that no
amount of agreement makes a fact certain::

    C = min(0.99, 1 - prod_i (1 - c_i))

Chains (A treats B, B subClassOf C: A may help C) are bounded by their weakest link
``min_i c_i`` (default) or by the product ``prod_i c_i``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from provgraph.trust.models import ChainMode, FactStatus

#: Base confidence band of each source tier.
TIER_BANDS: Mapping[int, tuple[float, float]] = {
    1: (0.95, 1.0),
    2: (0.85, 0.95),
    3: (0.70, 0.85),
    4: (0.50, 0.70),
    5: (0.30, 0.50),
}
#: No amount of agreement makes a fact certain.
AGGREGATE_CAP = 0.99


def tier_band(tier: int) -> tuple[float, float]:
    """The base confidence band ``(lo, hi)`` of a source tier (1..5)."""
    try:
        return TIER_BANDS[tier]
    except KeyError:
        raise ValueError(f"a source tier is 1..5, not {tier}") from None


def statement_confidence(extraction: float, tier: int) -> float:
    """``lo + (hi - lo) * extraction``: the extraction confidence placed in the tier's band."""
    if not 0.0 <= extraction <= 1.0:
        raise ValueError(f"an extraction confidence is in [0, 1], not {extraction}")
    lo, hi = tier_band(tier)
    return lo + (hi - lo) * extraction


def decay(confidence: float, age_days: float, rate: float) -> float:
    """``confidence * exp(-rate * age_days)``; a negative age (a future date) does not raise it."""
    if rate < 0:
        raise ValueError(f"a decay rate is >= 0, not {rate}")
    return confidence * math.exp(-rate * max(0.0, age_days))


def aggregate(confidences: Iterable[float], *, cap: float = AGGREGATE_CAP) -> float:
    """``min(cap, 1 - prod(1 - c_i))`` over the confidences of independent sources; 0 for none."""
    remaining = 1.0
    seen = False
    for c in confidences:
        if not 0.0 <= c <= 1.0:
            raise ValueError(f"a confidence is in [0, 1], not {c}")
        remaining *= 1.0 - c
        seen = True
    return min(cap, 1.0 - remaining) if seen else 0.0


def aggregate_by_source(claims: Iterable[tuple[str, float]], *, cap: float = AGGREGATE_CAP) -> float:
    """:func:`aggregate` over ``(source, confidence)`` pairs, each source counted once with its
    best confidence: two statements of one source are not independent evidence."""
    best: dict[str, float] = {}
    for source, c in claims:
        best[source] = max(c, best.get(source, 0.0))
    return aggregate(best.values(), cap=cap)


def chain_confidence(steps: Iterable[float], *, mode: ChainMode = ChainMode.WEAKEST) -> float:
    """A chain's confidence: its weakest link ``min(c_i)`` (:attr:`ChainMode.WEAKEST`) or the
    product ``prod(c_i)`` (:attr:`ChainMode.PRODUCT`)."""
    values = list(steps)
    if not values:
        raise ValueError("a chain has at least one step")
    try:
        mode = ChainMode(mode)
    except ValueError:
        raise ValueError(f"a chain mode is 'weakest' or 'product', not {mode!r}") from None
    return min(values) if mode is ChainMode.WEAKEST else math.prod(values)


def fact_status(*, current_sources: int, historical_only: bool, contested: bool, lost_resolution: bool) -> FactStatus:
    """The status of a fact.

    Deprecated when it lost a resolution or only superseded/revoked sources state it;
    Contested when a conflict involves it; Confirmed when at least two independent current sources
    state it; else Unknown."""
    if lost_resolution or (historical_only and current_sources == 0):
        return FactStatus.DEPRECATED
    if contested:
        return FactStatus.CONTESTED
    if current_sources >= 2:
        return FactStatus.CONFIRMED
    return FactStatus.UNKNOWN


@dataclass(frozen=True)
class DecayConfig:
    """``lambda`` (per day) by predicate IRI, else by domain (namespace prefix of the predicate),
    else ``default`` (0: no decay)."""

    per_predicate: Mapping[str, float] = field(default_factory=dict)
    per_domain: Mapping[str, float] = field(default_factory=dict)
    default: float = 0.0

    def rate(self, predicate: str) -> float:
        if predicate in self.per_predicate:
            return self.per_predicate[predicate]
        # the longest matching domain wins, so a specific namespace can override a general one
        matches = [d for d in self.per_domain if predicate.startswith(d)]
        if matches:
            return self.per_domain[max(matches, key=len)]
        return self.default


__all__ = [
    "AGGREGATE_CAP",
    "TIER_BANDS",
    "DecayConfig",
    "aggregate",
    "aggregate_by_source",
    "chain_confidence",
    "decay",
    "fact_status",
    "statement_confidence",
    "tier_band",
]
