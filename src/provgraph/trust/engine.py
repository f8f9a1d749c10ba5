"""The trust operations ``ProvGraph`` exposes: detect and resolve conflicts (and store the
records), read them back, annotate evidence with aggregated confidence and fact status, and
follow inference chains."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from pyoxigraph import DefaultGraph, NamedNode, QuerySolutions

from provgraph.errors import StoreLockedError
from provgraph.models import Evidence, SourceStatus
from provgraph.store import catalog
from provgraph.store.base import Backend
from provgraph.trust import conflicts as detection
from provgraph.trust import records
from provgraph.trust.confidence import aggregate_by_source, chain_confidence, decay, fact_status, statement_confidence
from provgraph.trust.models import (
    ChainMode,
    ChainReport,
    ChainStep,
    Conflict,
    ConflictValue,
    DetectionReport,
    Resolution,
    ResolutionStrategy,
    ValueClaim,
    ValueOutcome,
)
from provgraph.trust.policy import Policy, load
from provgraph.trust.resolve import rank, truth_discovery
from provgraph.vocab import CONFLICT_GRAPH, ID_NS, ONTOLOGY_GRAPH

#: The strategy of a predicate whose policy names none.
DEFAULT_STRATEGY = ResolutionStrategy.SOURCE_TRUST


def input_fingerprint(backend: Backend, policy: Policy) -> str:
    """What a detection run depends on: the current source graphs and the ontology graph."""
    graphs = sorted(g.value for g in catalog.current_graphs(backend))
    parts = [policy.fingerprint, *graphs]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def _value_claim(c: detection.Claim) -> ValueClaim:
    return ValueClaim(
        statement=c.statement,
        graph=c.graph,
        document=c.document,
        source=c.source,
        subject=c.subject,
        object=c.object,
        tier=c.tier,
        confidence=c.confidence,
        time=c.time,
    )


def _to_model(
    item: detection.Item,
    strategy: ResolutionStrategy,
    accuracy: dict[str, float],
    *,
    first: datetime | None,
    activity: str | None,
    at: datetime | None,
) -> Conflict:
    ranked = rank(item, strategy, accuracy)
    values = []
    for i, cl in enumerate(item.clusters):
        if ranked.preferred is None:
            outcome = ValueOutcome.UNRESOLVED
        else:
            outcome = ValueOutcome.PREFERRED if i == ranked.preferred else ValueOutcome.REJECTED
        values.append(
            ConflictValue(
                value=cl.value,
                predicate=cl.predicate,
                members=cl.members,
                sources=cl.sources,
                claims=[_value_claim(c) for c in sorted(cl.claims, key=lambda c: (c.source, c.statement))],
                outcome=outcome,
                score=ranked.scores[i],
                confidence=aggregate_by_source((c.source, c.confidence) for c in cl.claims),
            )
        )
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


def _strategy_for(item: detection.Item, policy: Policy, forced: ResolutionStrategy | None) -> ResolutionStrategy:
    if forced is not None:
        return forced
    for p in item.predicates:
        if p in policy.strategies:
            return policy.strategies[p]
    return DEFAULT_STRATEGY


def run(
    backend: Backend,
    *,
    strategy: ResolutionStrategy | None = None,
    predicates: Sequence[str] | None = None,
    store: bool = True,
) -> tuple[DetectionReport, list[Conflict]]:
    """Detect every conflict in the current sources, resolve each (``strategy`` for all, else each
    predicate's declared strategy, else :data:`DEFAULT_STRATEGY`), and, when ``store`` and the
    store is writable, rewrite the conflict records."""
    clock = time.perf_counter()
    started = datetime.now(UTC)
    policy = load(backend)
    found = detection.detect(backend, policy, predicates=predicates, now=started)
    # Truth discovery learns from every multi-valued item, agreements within tolerance included.
    clock_resolve = time.perf_counter()
    accuracy = truth_discovery([[frozenset(c.sources) for c in item.clusters] for item in found.items])
    fingerprint = input_fingerprint(backend, policy)
    _, first = records.stored_state(backend)
    activity = f"{ID_NS}resolution/{hashlib.sha256((started.isoformat() + fingerprint).encode()).hexdigest()[:32]}"
    ended = datetime.now(UTC)
    models = [
        _to_model(
            item,
            _strategy_for(item, policy, strategy),
            accuracy,
            first=first.get(item.iri, started),
            activity=activity,
            at=ended,
        )
        for item in found.conflicts
    ]
    phases = {**found.seconds, "resolve": round(time.perf_counter() - clock_resolve, 3)}
    clock_records = time.perf_counter()
    stored = False
    if store and not backend.read_only and _may_write(backend):
        parameters: dict[str, object] = {
            "strategy": strategy.value if strategy else None,
            "predicate_strategies": {p: s.value for p, s in sorted(policy.strategies.items())},
            "default_strategy": DEFAULT_STRATEGY.value,
            "predicates": sorted(predicates) if predicates is not None else None,
            "checked": sorted(predicates) if predicates is not None else sorted(policy.functional),
            "disjoint": [list(pair) for pair in sorted(policy.disjoint)],
            "tolerances": {p: [t.absolute, t.relative] for p, t in sorted(policy.tolerances.items())},
        }
        records.write(
            backend,
            models,
            activity=activity,
            started=started,
            ended=ended,
            parameters=parameters,
            fingerprint=fingerprint,
        )
        stored = True
    report = DetectionReport(
        conflicts=len(models),
        multi_valued=found.multi_valued,
        merged_by_tolerance=found.merged_by_tolerance,
        predicates=sorted(predicates) if predicates is not None else sorted(policy.functional),
        disjoint_pairs=len(policy.disjoint),
        merged_entities=len(found.entity_map),
        strategy=strategy,
        source_accuracy=dict(sorted(accuracy.items())),
        activity=activity if stored else None,
        seconds=round(time.perf_counter() - clock, 3),
        phases={**phases, "records": round(time.perf_counter() - clock_records, 3)},
        stored=stored,
    )
    return report, models


def _may_write(backend: Backend) -> bool:
    """Take the write lock if needed; False when another process holds the store (a running
    server): the records are then computed and returned, not stored."""
    try:
        backend.begin_write()
    except StoreLockedError:
        return False
    return True


def _as_item(conflict: Conflict) -> detection.Item:
    clusters = []
    for v in conflict.values:
        cluster = detection.Cluster(v.predicate)
        for c in v.claims:
            cluster.claims.append(
                detection.Claim(
                    statement=c.statement,
                    graph=c.graph,
                    document=c.document,
                    source=c.source,
                    subject=c.subject,
                    object=c.object,
                    predicate=v.predicate,
                    key=v.value,
                    number=None,
                    tier=c.tier,
                    confidence=c.confidence,
                    time=c.time,
                )
            )
        clusters.append(cluster)
    return detection.Item(
        conflict.kind, conflict.subject, tuple(conflict.predicates), clusters, conflict.merged_subjects
    )


def conflicts(
    backend: Backend,
    *,
    subject: str | None = None,
    predicate: str | None = None,
    strategy: ResolutionStrategy | None = None,
) -> list[Conflict]:
    """The conflicts in the current sources. Detection runs first when the records are missing or
    stale (sources or ontology changed since the last run); a read-only store computes them
    without storing. With ``strategy``, the values are ranked by it (not stored: use
    ``ProvGraph.resolve`` to record a strategy)."""
    policy = load(backend)
    found = _refresh(backend, policy)
    if found is not None:  # a read-only store: computed for this answer
        return _filter(_rerank(found, strategy), subject, predicate)
    if strategy is not None:
        return _filter(_rerank(_read(backend, policy), strategy), subject, predicate)
    return _read(backend, policy, subject=subject, predicate=predicate)


def _refresh(backend: Backend, policy: Policy) -> list[Conflict] | None:
    """Bring the conflict records up to date when sources or the ontology changed since the last
    run. A store that cannot be written gets the conflicts computed and returned instead."""
    fingerprint, parameters = records.last_run(backend)
    if fingerprint == input_fingerprint(backend, policy):
        return None
    # re-run as the last run was asked for: the same forced strategy and predicates
    forced = parameters.get("strategy")
    chosen = parameters.get("predicates")
    _, found = run(
        backend,
        strategy=ResolutionStrategy(str(forced)) if forced else None,
        predicates=[str(p) for p in chosen] if isinstance(chosen, list) else None,
        store=not backend.read_only,
    )
    return found if backend.read_only else None


def _read(
    backend: Backend, policy: Policy, *, subject: str | None = None, predicate: str | None = None
) -> list[Conflict]:
    # only the conflicts asked for, and the claims of their statements: the retriever asks
    # about one entity at a time
    wanted = records.conflict_iris(backend, subject=subject, predicate=predicate)
    statements = records.competing_statements(backend, wanted)
    claims = detection.claims_by_statement(backend, policy, statements, now=datetime.now(UTC))
    return records.read(backend, {k: _value_claim(v) for k, v in claims.items()}, conflicts=wanted)


def _rerank(found: list[Conflict], strategy: ResolutionStrategy | None) -> list[Conflict]:
    if strategy is None:
        return found
    items = [_as_item(c) for c in found]
    accuracy = truth_discovery([[frozenset(c.sources) for c in item.clusters] for item in items])
    return [
        _to_model(item, strategy, accuracy, first=c.first_detected, activity=None, at=None)
        for item, c in zip(items, found, strict=True)
    ]


def _filter(found: list[Conflict], subject: str | None, predicate: str | None) -> list[Conflict]:
    return [
        c
        for c in found
        if (subject is None or subject == c.subject or subject in c.merged_subjects)
        and (predicate is None or predicate in c.predicates)
    ]


# ---------------------------------------------------------------------- evidence


def annotate(backend: Backend, evidence: list[Evidence]) -> list[Evidence]:
    """Each evidence row with its fact's aggregated confidence (over the independent current
    sources stating it, each within its tier band, decayed by the predicate's rate) and status.

    For a predicate with a numeric tolerance, sources stating a value within the tolerance of the
    fact's value support it too: they agree, they do not conflict."""
    if not evidence:
        return evidence
    policy = load(backend)
    # a fact is contested when a conflict involves it: the records must be current to say so
    computed = _refresh(backend, policy)
    if computed is None:
        outcomes = records.statement_outcomes(backend, [e.statement for e in evidence])
    else:
        outcomes = {claim.statement: v.outcome for c in computed for v in c.values for claim in v.claims}
    now = datetime.now(UTC)
    by_fact: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_fact.setdefault(e.fact, []).append(e)
    neighbours = _tolerance_neighbours(backend, policy, evidence)
    annotated: dict[str, tuple[float, object]] = {}
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
            pairs[e.statement, e.graph] = (detection.source_key(e.document, e.url, e.publisher), c)
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


def _number(nt: str) -> float | None:
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
    from provgraph.evidence import find

    out: dict[tuple[str, str], list[Evidence]] = {}
    for subject, predicate in {(e.subject, e.predicate) for e in evidence}:
        if predicate in policy.tolerances and subject.startswith(("http:", "https:", "urn:")):
            out[subject, predicate] = find(
                backend, NamedNode(subject), NamedNode(predicate), None, include_history=False
            )
    return out


# ---------------------------------------------------------------------- chains


def chains(
    backend: Backend,
    subject: str,
    predicates: Sequence[str],
    *,
    obj: str | None = None,
    mode: ChainMode = ChainMode.WEAKEST,
    limit: int = 100,
) -> list[ChainReport]:
    """Paths ``subject p1 x1 p2 x2 ... pn obj`` through the current sources, each hop with its
    provenance and aggregated confidence, the chain bounded by its weakest link or the product."""
    from provgraph.evidence import find

    if not predicates:
        raise ValueError("a chain has at least one predicate")
    chain_confidence([1.0], mode=mode)  # reject a bad mode before querying
    nodes = ["<" + NamedNode(subject).value + ">"] + [f"?x{i}" for i in range(1, len(predicates) + 1)]
    if obj is not None:
        nodes[-1] = "<" + NamedNode(obj).value + ">"
    patterns = " . ".join(f"{nodes[i]} <{NamedNode(p).value}> {nodes[i + 1]}" for i, p in enumerate(predicates))
    variables = " ".join(n for n in nodes if n.startswith("?")) or "*"
    iris = " ".join(f"FILTER(isIRI({n}))" for n in nodes if n.startswith("?"))
    query = f"SELECT DISTINCT {variables} WHERE {{ {patterns} {iris} }} LIMIT {int(limit)}"
    graphs: list[NamedNode | DefaultGraph] = [*catalog.current_graphs(backend)]
    result = backend.query(query, default_graph=graphs)
    assert isinstance(result, QuerySolutions)
    reports = []
    for row in result:
        terms = (
            [subject]
            + [
                row[n[1:]].value if n.startswith("?") else n[1:-1]  # type: ignore[union-attr]
                for n in nodes[1:]
            ]
        )
        steps = []
        for i, p in enumerate(predicates):
            stated = find(backend, NamedNode(terms[i]), NamedNode(p), NamedNode(terms[i + 1]), include_history=False)
            hop = annotate(backend, stated)
            steps.append(
                ChainStep(
                    subject=terms[i],
                    predicate=p,
                    object=terms[i + 1],
                    confidence=(hop[0].fact_confidence or 0.0) if hop else 0.0,
                    sources=sorted({e.document_key for e in hop}),
                    statements=sorted({e.statement for e in hop}),
                )
            )
        reports.append(
            ChainReport(
                subject=subject,
                object=terms[-1],
                steps=steps,
                mode=mode,
                confidence=chain_confidence([s.confidence for s in steps], mode=mode),
            )
        )
    return sorted(reports, key=lambda r: (-r.confidence, r.object))


__all__ = [
    "CONFLICT_GRAPH",
    "DEFAULT_STRATEGY",
    "ONTOLOGY_GRAPH",
    "annotate",
    "chains",
    "conflicts",
    "input_fingerprint",
    "run",
]
