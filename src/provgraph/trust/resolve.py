"""Resolution strategies: which of the competing values of a conflict is preferred, and why.

Every strategy ranks the value clusters of one item and says why in words; losing values are
marked ``rejected``, never removed. Ties that a strategy cannot break fall back to the next
criterion, and the rationale says so.

- recency: the latest edit time of a value's statements (``pg:lastVerified``, DBpedia's
  ``lastedit``), else the document's ``dcterms:issued``;
- authority: the best (lowest) source tier, then the highest statement confidence;
- majority: the most independent sources (a source is a publisher, else the host of the
  document's URL: for DBpedia, one Wikipedia edition), then aggregated confidence;
- source trust: iterative truth discovery (:func:`truth_discovery`, after Dong et al.'s ACCU and
  Yin et al.'s TruthFinder) that estimates each source's accuracy from how often its values win,
  and weighs votes by it;
- surface: prefer nothing.

:func:`to_conflict` is the conflict an item becomes once ranked: every value with its outcome.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from provgraph.trust.confidence import aggregate_by_source
from provgraph.trust.conflicts import Cluster, Item
from provgraph.trust.models import Conflict, ConflictValue, Resolution, ResolutionStrategy, ValueOutcome

#: Prior accuracy of a source before any evidence, and its weight in pseudo-claims.
PRIOR_ACCURACY = 0.8
PRIOR_WEIGHT = 2.0


@dataclass(frozen=True)
class Ranked:
    """The outcome of resolving one item: the preferred cluster index (None: no preference),
    each cluster's score, and the rationale. ``lasting``: for source trust, the rationale
    without the figures that move with every change of the source accuracies (what the
    conflict records store)."""

    preferred: int | None
    scores: list[float]
    rationale: str
    lasting: str | None = None


#: The rationale a source-trust conflict's record keeps when one value is the most probable: it
#: names no value, so that a change of the preferred value rewrites only the outcomes.
TRUST_LASTING = "source trust: the preferred value is the most probable given the estimated accuracy of every source"


def truth_discovery(
    items: Sequence[Sequence[frozenset[str]]],
    *,
    prior: float = PRIOR_ACCURACY,
    weight: float = PRIOR_WEIGHT,
    iterations: int = 20,
    epsilon: float = 1e-4,
) -> dict[str, float]:
    """Source accuracies by iterative truth discovery (a pure function).

    ``items``: for each data item, its competing values, each the set of sources stating it.
    Repeat until the accuracies settle:

    - vote of source s: ``ln(n * A(s) / (1 - A(s)))`` with ``n`` the number of false values of the
      item (its values minus one), so an accurate source outweighs several careless ones;
    - probability of value v: ``softmax`` over the items' values of the summed votes;
    - ``A(s) = (sum of P(v) over the values s states + weight * prior) / (claims of s + weight)``,
      the prior keeping a source seen twice from looking perfect.
    """
    alike: Counter[tuple[frozenset[str], ...]] = Counter(tuple(values) for values in items if values)
    return truth_discovery_counts(alike, prior=prior, weight=weight, iterations=iterations, epsilon=epsilon)


def truth_discovery_counts(
    patterns: Mapping[tuple[frozenset[str], ...], int],
    *,
    prior: float = PRIOR_ACCURACY,
    weight: float = PRIOR_WEIGHT,
    iterations: int = 20,
    epsilon: float = 1e-4,
) -> dict[str, float]:
    """:func:`truth_discovery` of items given as their patterns of votes (each value's sources)
    and how many items vote so: what a catch-up keeps, instead of every item."""
    patterns = {p: n for p, n in patterns.items() if p and n > 0}
    names = sorted({s for values in patterns for v in values for s in v})
    index = {s: i for i, s in enumerate(names)}
    # sources as numbers; items that vote alike (the same sources behind each value) counted
    # once with their number, in a fixed order; what does not change between rounds computed
    # once: an item's false values (ln n of the vote) and how many values each source states
    alike: dict[tuple[tuple[int, ...], ...], int] = {}
    for values, n in patterns.items():
        key = tuple(tuple(sorted(index[s] for s in v)) for v in values)
        alike[key] = alike.get(key, 0) + n
    encoded = sorted(alike)
    times = [alike[k] for k in encoded]
    ln_false = [math.log(max(1, len(pattern) - 1)) for pattern in encoded]
    counts = [0] * len(names)
    for pattern, n in zip(encoded, times, strict=True):
        for value in pattern:
            for i in value:
                counts[i] += n
    accuracy = [prior] * len(names)
    for _ in range(iterations):
        # vote of a source: ln(n * A / (1 - A)) = ln n + ln(A / (1 - A))
        votes = [math.log(a / (1 - a)) for a in accuracy]
        totals = [0.0] * len(names)
        for pattern, ln_n, n in zip(encoded, ln_false, times, strict=True):
            scores = [sum(votes[i] for i in value) + ln_n * len(value) for value in pattern]
            top = max(scores)
            exp = [math.exp(x - top) for x in scores]
            total = sum(exp)
            for value, e in zip(pattern, exp, strict=True):
                p = n * e / total
                for i in value:
                    totals[i] += p
        new = [min(0.99, max(0.01, (totals[i] + weight * prior) / (counts[i] + weight))) for i in range(len(names))]
        delta = max((abs(a - b) for a, b in zip(new, accuracy, strict=True)), default=0.0)
        accuracy = new
        if delta < epsilon:
            break
    return dict(zip(names, accuracy, strict=True))


def value_probabilities(values: Sequence[frozenset[str]], accuracy: Mapping[str, float]) -> list[float]:
    """``softmax`` of the summed votes ``ln(n * A / (1 - A))`` of each value's sources."""
    n = max(1, len(values) - 1)
    scores = [
        sum(math.log(n * accuracy.get(s, PRIOR_ACCURACY) / (1 - accuracy.get(s, PRIOR_ACCURACY))) for s in v)
        for v in values
    ]
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    total = sum(exp)
    return [e / total for e in exp]


def _pick(scores: list[float], *tiebreaks: list[float]) -> tuple[int | None, bool]:
    """The index of the unique best score, using the tie-breaks in order; (None, True) on a full tie."""
    candidates = list(range(len(scores)))
    for i, key in enumerate((scores, *tiebreaks)):
        best = max(key[c] for c in candidates)
        candidates = [c for c in candidates if key[c] == best]
        if len(candidates) == 1:
            return candidates[0], i > 0
    return None, True


def _fmt(value: str) -> str:
    if value.startswith('"'):
        return value[1 : value.rfind('"')]
    return value.strip("<>")


def rank(item: Item, strategy: ResolutionStrategy, accuracy: Mapping[str, float] | None = None) -> Ranked:
    """Rank the clusters of ``item`` under ``strategy`` (``accuracy``: truth discovery's estimates,
    needed by source trust)."""
    clusters = item.clusters
    support = [float(len(c.sources)) for c in clusters]
    conf = [aggregate_by_source((x.source, x.confidence) for x in c.claims) for c in clusters]
    tiers = [-float(min(x.tier for x in c.claims)) for c in clusters]
    if strategy is ResolutionStrategy.SURFACE:
        return Ranked(None, support, "surface only: every value is shown, none is preferred")
    if strategy is ResolutionStrategy.RECENCY:
        times = [max((x.time.timestamp() for x in c.claims if x.time is not None), default=-math.inf) for c in clusters]
        if all(t == -math.inf for t in times):
            return _fallback(item, "no value has an edit or issue time", support, conf, tiers)
        best, tied = _pick(times, tiers, support)
        why = _describe(clusters, best)
        if best is None:
            return Ranked(None, times, "recency: the latest values were edited at the same time; no preference")
        latest = max(x.time for x in clusters[best].claims if x.time is not None)
        return Ranked(
            best,
            times,
            f"recency: {why} was edited or issued most recently ({latest.isoformat()})"
            + (", tie broken by tier and support" if tied else ""),
        )
    if strategy is ResolutionStrategy.AUTHORITY:
        best_conf = [max(x.confidence for x in c.claims) for c in clusters]
        best, tied = _pick(tiers, best_conf, support)
        if best is None:
            return Ranked(None, tiers, "authority: the values come from equally authoritative sources; no preference")
        return Ranked(
            best,
            tiers,
            f"authority: {_describe(clusters, best)} comes from the best source tier ({int(-tiers[best])})"
            + (", tie broken by statement confidence and support" if tied else ""),
        )
    if strategy is ResolutionStrategy.MAJORITY:
        best, tied = _pick(support, conf, tiers)
        if best is None:
            return Ranked(None, support, "majority: the values have equal support; no preference")
        total = len({s for c in clusters for s in c.sources})
        return Ranked(
            best,
            support,
            f"majority: {_describe(clusters, best)} is stated by {int(support[best])} of {total} independent sources"
            + (", tie broken by aggregated confidence" if tied else ""),
        )
    assert strategy is ResolutionStrategy.SOURCE_TRUST
    accuracy = accuracy or {}
    probs = value_probabilities([frozenset(c.sources) for c in clusters], accuracy)
    best, tied = _pick(probs, conf, tiers)
    if best is None:
        why = "source trust: the values' sources are equally trusted; no preference"
        return Ranked(None, probs, why, why)
    trusted = ", ".join(
        f"{s} {accuracy.get(s, PRIOR_ACCURACY):.2f}"
        for s in sorted(clusters[best].sources, key=lambda s: -accuracy.get(s, PRIOR_ACCURACY))[:4]
    )
    tie = ", tie broken by confidence" if tied else ""
    return Ranked(
        best,
        probs,
        f"source trust: {_describe(clusters, best)} has probability {probs[best]:.2f}; "
        f"estimated accuracy of its sources: {trusted}" + tie,
        TRUST_LASTING + tie,
    )


def _fallback(item: Item, reason: str, support: list[float], conf: list[float], tiers: list[float]) -> Ranked:
    best, _ = _pick(support, conf, tiers)
    if best is None:
        return Ranked(None, support, f"recency: {reason}; no preference")
    return Ranked(best, support, f"recency: {reason}; fell back to majority: {_describe(item.clusters, best)}")


def _describe(clusters: Sequence[Cluster], best: int | None) -> str:
    if best is None:
        return "no value"
    c = clusters[best]
    return f"{_fmt(c.value)} ({', '.join(c.sources[:5])}{', ...' if len(c.sources) > 5 else ''})"


def outcomes(ranked: Ranked, count: int) -> list[ValueOutcome]:
    """The outcome of each of the ``count`` values ``ranked`` ranks."""
    if ranked.preferred is None:
        return [ValueOutcome.UNRESOLVED] * count
    return [ValueOutcome.PREFERRED if i == ranked.preferred else ValueOutcome.REJECTED for i in range(count)]


def to_conflict(
    item: Item,
    strategy: ResolutionStrategy,
    ranked: Ranked,
    *,
    first: datetime | None,
    activity: str | None,
    at: datetime | None,
) -> Conflict:
    """The conflict ``item`` as ``strategy`` ranked it (``ranked``: :func:`rank`), resolved by
    ``activity`` at ``at``."""
    values = [
        ConflictValue(
            value=cl.value,
            predicate=cl.predicate,
            members=cl.members,
            sources=cl.sources,
            claims=sorted(cl.claims, key=lambda c: (c.source, c.statement)),
            outcome=outcome,
            score=ranked.scores[i],
            confidence=aggregate_by_source((c.source, c.confidence) for c in cl.claims),
        )
        for i, (cl, outcome) in enumerate(zip(item.clusters, outcomes(ranked, len(item.clusters)), strict=True))
    ]
    preferred = item.clusters[ranked.preferred].value if ranked.preferred is not None else None
    return Conflict(
        iri=item.iri,
        kind=item.kind,
        subject=item.subject,
        merged_subjects=sorted(item.members),
        predicates=list(item.predicates),
        values=values,
        resolution=Resolution(
            strategy=strategy, preferred=preferred, rationale=ranked.rationale, activity=activity, resolved_at=at
        ),
        first_detected=first,
    )


__all__ = [
    "PRIOR_ACCURACY",
    "TRUST_LASTING",
    "Ranked",
    "outcomes",
    "rank",
    "to_conflict",
    "truth_discovery",
    "truth_discovery_counts",
    "value_probabilities",
]
