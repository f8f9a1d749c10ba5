"""Evidence annotated with trust: each fact's aggregated confidence across the independent current
sources stating it, and its status (confirmed, contested, deprecated, unknown), read against the
conflict records (:mod:`.records`, caught up first).
"""

from __future__ import annotations

from datetime import UTC, datetime

from provgraph.evidence import find
from provgraph.models import Evidence, SourceStatus
from provgraph.store.base import Backend
from provgraph.store.terms import NamedNode
from provgraph.trust import records
from provgraph.trust.confidence import aggregate_by_source, decay, fact_status, statement_confidence
from provgraph.trust.conflicts import source_key
from provgraph.trust.models import FactStatus, ValueOutcome
from provgraph.trust.policy import Policy, policy_of
from provgraph.trust.run import RecordsChange, refresh


def annotate(backend: Backend, evidence: list[Evidence]) -> list[Evidence]:
    """Each evidence row with its fact's aggregated confidence (over the independent current
    sources stating it, each within its tier band, decayed by the predicate's rate) and status.

    For a predicate with a numeric tolerance, sources stating a value within the tolerance of the
    fact's value support it too: they agree, they do not conflict."""
    if not evidence:
        return evidence
    policy = policy_of(backend)
    # a fact is contested when a conflict involves it: the records must be current to say so
    patch = refresh(backend)
    outcomes = _outcomes(backend, [e.statement for e in evidence], patch)
    now = datetime.now(UTC)
    by_fact: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_fact.setdefault(e.fact, []).append(e)
    neighbours = _tolerance_neighbours(backend, policy, evidence)
    annotated: dict[str, tuple[float, FactStatus]] = {}
    for fact, rows in by_fact.items():
        current = [e for e in rows if e.status is SourceStatus.CURRENT]
        supporters = current + [
            n for n in neighbours.get((rows[0].subject, rows[0].predicate), []) if _agrees(policy, rows[0], n)
        ]
        pairs = {}
        for e in supporters:
            c = statement_confidence(min(1.0, max(0.0, e.confidence)), e.tier)
            rate = policy.decay.rate(e.predicate)
            if rate:
                c = decay(c, (now - (e.last_verified or e.generated_at)).total_seconds() / 86400, rate)
            pairs[e.statement, e.graph] = (source_key(e.document, e.url, e.publisher), c)
        found = {outcomes[e.statement] for e in current if e.statement in outcomes}
        status = fact_status(
            current_sources=len({s for s, _ in pairs.values()}),
            historical_only=not current,
            contested=bool(found),
            lost_resolution=ValueOutcome.REJECTED in found and ValueOutcome.PREFERRED not in found,
        )
        annotated[fact] = (aggregate_by_source(pairs.values()), status)
    return [
        e.model_copy(update={"fact_confidence": annotated[e.fact][0], "fact_status": annotated[e.fact][1]})
        for e in evidence
    ]


def _outcomes(backend: Backend, statements: list[str], patch: RecordsChange | None) -> dict[str, ValueOutcome]:
    """The outcome of the value of each of ``statements`` a conflict involves."""
    stored = {} if patch is not None and patch.reset else records.statement_outcomes(backend, statements)
    if patch is None:
        return {st: outcome for st, (_, _, outcome) in stored.items()}
    replaced = patch.removed | {c.iri for c in patch.conflicts}
    out = {st: _flipped(patch, c, i, outcome) for st, (c, i, outcome) in stored.items() if c not in replaced}
    wanted = set(statements)
    for c in patch.conflicts:
        for v in c.values:
            out.update({x.statement: v.outcome for x in v.claims if x.statement in wanted})
    return out


def _flipped(patch: RecordsChange, conflict: str, index: int, outcome: ValueOutcome) -> ValueOutcome:
    """The outcome of a stored conflict's ``index``-th value once ``patch`` has changed its
    preferred value, if it does."""
    if conflict not in patch.flips:
        return outcome
    return ValueOutcome.PREFERRED if index == patch.flips[conflict][0] else ValueOutcome.REJECTED


def _number(nt: str) -> float | None:
    """The number an object in N-Triples syntax states, if it is a literal that reads as one."""
    if not nt.startswith('"'):
        return None
    try:
        return float(nt[1 : nt.rfind('"')])
    except ValueError:
        return None


def _agrees(policy: Policy, fact: Evidence, other: Evidence) -> bool:
    a, b = _number(fact.object), _number(other.object)
    return a is not None and b is not None and policy.tolerance(fact.predicate).agrees(a, b)


def _tolerance_neighbours(
    backend: Backend, policy: Policy, evidence: list[Evidence]
) -> dict[tuple[str, str], list[Evidence]]:
    """Every current statement of each (subject, predicate) with a tolerance, for support."""
    out: dict[tuple[str, str], list[Evidence]] = {}
    for subject, predicate in {(e.subject, e.predicate) for e in evidence}:
        if predicate in policy.tolerances and subject.startswith(("http:", "https:", "urn:")):
            out[subject, predicate] = find(
                backend, NamedNode(subject), NamedNode(predicate), None, include_history=False
            )
    return out


__all__ = ["annotate"]
