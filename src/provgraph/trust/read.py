"""Reading the conflicts of the current sources back from the conflict records (:mod:`.records`).

The records catch up first with what changed since they were written
(:func:`provgraph.trust.run.refresh`); a store that cannot be written computes the catch-up and
lays it over the stored records. Source-trust resolutions are stored without their scores (they
move with the source accuracies) and ranked again on reading, with the stored accuracies.
"""

from __future__ import annotations

from datetime import UTC, datetime

from provgraph.store import derived
from provgraph.store.base import Backend
from provgraph.trust import records
from provgraph.trust.conflicts import Cluster, Item, claims_by_statement, item_from_state
from provgraph.trust.models import Conflict, ResolutionStrategy
from provgraph.trust.policy import Policy, policy_of
from provgraph.trust.resolve import outcomes, rank, to_conflict, truth_discovery
from provgraph.trust.run import RecordsChange, refresh


def conflicts(
    backend: Backend,
    *,
    subject: str | None = None,
    predicate: str | None = None,
    strategy: ResolutionStrategy | None = None,
) -> list[Conflict]:
    """The conflicts in the current sources (about ``subject``, with ``predicate``). With
    ``strategy``, the values are ranked by it (not stored: use ``ProvGraph.resolve`` to record a
    strategy)."""
    patch = refresh(backend)
    policy = policy_of(backend)
    accuracy = (
        patch.run.accuracy
        if patch is not None
        else derived.memo(backend, "accuracy", lambda: records.stored_state(backend)[0])
    )
    if strategy is not None:
        found = _live(backend, _stored(backend, policy), accuracy)
        return _filter(_rerank(_overlay(found, patch, None, None), strategy), subject, predicate)
    found = _live(backend, _stored(backend, policy, subject=subject, predicate=predicate), accuracy)
    return _overlay(found, patch, subject, predicate)


def _overlay(
    stored: list[Conflict], patch: RecordsChange | None, subject: str | None, predicate: str | None
) -> list[Conflict]:
    """The stored conflicts as a catch-up that could not be written (``patch``) changes them."""
    if patch is None:
        return stored
    found = {} if patch.reset else {c.iri: c for c in stored if c.iri not in patch.removed}
    for c in patch.conflicts:
        found.pop(c.iri, None)
    found.update({c.iri: c for c in _filter(patch.conflicts, subject, predicate)})
    return [found[k] for k in sorted(found)]


def _stored(
    backend: Backend, policy: Policy, *, subject: str | None = None, predicate: str | None = None
) -> list[Conflict]:
    # only the conflicts asked for, and the claims of their statements: the retriever asks
    # about one entity at a time
    wanted = records.conflict_iris(backend, subject=subject, predicate=predicate)
    statements = records.competing_statements(backend, wanted)
    claims = claims_by_statement(backend, policy, statements, now=datetime.now(UTC))
    return records.read(backend, claims, conflicts=wanted)


def _live(backend: Backend, found: list[Conflict], accuracy: dict[str, float]) -> list[Conflict]:
    """Stored source-trust conflicts with their scores and rationale under ``accuracy``."""
    trust = [c.iri for c in found if c.resolution.strategy is ResolutionStrategy.SOURCE_TRUST]
    if not trust:
        return found
    states = records.states(backend, trust)
    out = []
    for c in found:
        if c.iri not in states:
            out.append(c)
            continue
        item = item_from_state(states[c.iri])
        ranked = rank(item, ResolutionStrategy.SOURCE_TRUST, accuracy)
        values = [
            v.model_copy(update={"score": ranked.scores[i], "outcome": outcome})
            for i, (v, outcome) in enumerate(zip(c.values, outcomes(ranked, len(c.values)), strict=True))
        ]
        preferred = item.clusters[ranked.preferred].value if ranked.preferred is not None else None
        resolution = c.resolution.model_copy(update={"rationale": ranked.rationale, "preferred": preferred})
        out.append(c.model_copy(update={"values": values, "resolution": resolution}))
    return out


def _rerank(found: list[Conflict], strategy: ResolutionStrategy) -> list[Conflict]:
    """The conflicts ``found`` ranked by ``strategy`` (source trust: with the accuracies truth
    discovery reads of them alone)."""
    items = [_as_item(c) for c in found]
    accuracy = truth_discovery([[frozenset(c.sources) for c in item.clusters] for item in items])
    return [
        to_conflict(item, strategy, rank(item, strategy, accuracy), first=c.first_detected, activity=None, at=None)
        for item, c in zip(items, found, strict=True)
    ]


def _as_item(conflict: Conflict) -> Item:
    clusters = [Cluster(v.predicate, list(v.claims)) for v in conflict.values]
    return Item(conflict.kind, conflict.subject, tuple(conflict.predicates), clusters, conflict.merged_subjects)


def _filter(found: list[Conflict], subject: str | None, predicate: str | None) -> list[Conflict]:
    return [
        c
        for c in found
        if (subject is None or subject == c.subject or subject in c.merged_subjects)
        and (predicate is None or predicate in c.predicates)
    ]


__all__ = ["conflicts"]
