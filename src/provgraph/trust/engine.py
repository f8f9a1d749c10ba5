"""The trust operations ``ProvGraph`` exposes: detect and resolve conflicts (and store the
records), read them back, annotate evidence with aggregated confidence and fact status, and
follow inference chains."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pyoxigraph import DefaultGraph, NamedNode, QuerySolutions

from provgraph.models import Evidence, SourceStatus
from provgraph.store import catalog, derived
from provgraph.store import view as current_view
from provgraph.store.base import Backend
from provgraph.store.changes import Changes
from provgraph.store.derived import Stamp
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
from provgraph.trust.resolve import rank, truth_discovery, value_probabilities
from provgraph.vocab import CONFLICT_GRAPH, CURRENT_VIEW, ID_NS, ONTOLOGY_GRAPH

#: The strategy of a predicate whose policy names none.
DEFAULT_STRATEGY = ResolutionStrategy.SOURCE_TRUST
#: The conflict records' name among the derived views.
NAME = "conflicts"


def policy_of(backend: Backend) -> Policy:
    """The trust policy of the ontology graph, read once per store state."""
    return derived.memo(backend, "policy", lambda: load(backend))


def _accuracy(votes: Iterable[tuple[tuple[str, ...], ...]]) -> dict[str, float]:
    """Truth discovery over the items' ``votes`` (:func:`~provgraph.trust.conflicts.votes`) taken
    in a canonical order: the accuracies are a function of the items alone, so a full run and a
    catch-up agree to the last bit."""
    return truth_discovery([[frozenset(v) for v in each] for each in sorted(votes)])


def _agreement_iri(item: detection.Item) -> str:
    return item.iri.replace(f"{ID_NS}conflict/", f"{ID_NS}agreement/")


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
    lasting: dict[str, str] | None = None,
) -> Conflict:
    """The conflict ``item`` resolved by ``strategy``; ``lasting`` receives the rationale its
    record keeps, for source trust (:func:`_lasting`)."""
    ranked = rank(item, strategy, accuracy)
    if lasting is not None and ranked.lasting is not None:
        lasting[item.iri] = ranked.lasting
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


def _trust_signature(votes: tuple[tuple[str, ...], ...], accuracy: dict[str, float]) -> tuple[int, ...]:
    """What a source-trust resolution's record reads of the accuracies: which values share the
    highest probability (the preferred one, or the tie its tie-breaks settle). The scores and
    the figures of the rationale are not stored: they are read with the accuracies of the time
    (:func:`_live`)."""
    probs = value_probabilities([frozenset(v) for v in votes], accuracy)
    top = max(probs)
    return tuple(i for i, p in enumerate(probs) if p == top)


def _changed_by(
    items: Iterable[str], votes: dict[str, tuple[tuple[str, ...], ...]], old: dict[str, float], new: dict[str, float]
) -> list[str]:
    """The source-trust conflicts among ``items`` whose stored resolution changes from accuracies
    ``old`` to ``new``: decided once per pattern of votes, not per conflict."""
    decided: dict[tuple[tuple[str, ...], ...], bool] = {}
    out = []
    for iri in items:
        pattern = votes[iri]
        if pattern not in decided:
            decided[pattern] = _trust_signature(pattern, old) != _trust_signature(pattern, new)
        if decided[pattern]:
            out.append(iri)
    return out


def _strategy_for(item: detection.Item, policy: Policy, forced: ResolutionStrategy | None) -> ResolutionStrategy:
    return _strategy_of(item.predicates, policy, forced)


def _strategy_of(predicates: Sequence[str], policy: Policy, forced: ResolutionStrategy | None) -> ResolutionStrategy:
    if forced is not None:
        return forced
    for p in predicates:
        if p in policy.strategies:
            return policy.strategies[p]
    return DEFAULT_STRATEGY


def _lasting(conflict: Conflict, rationale: str | None) -> Conflict:
    """A conflict as its record keeps it. Source trust: without the scores and the figures of the
    rationale (``rationale`` is the rest), which move with the source accuracies whenever any
    conflict changes: a catch-up would otherwise rewrite most records after any new conflict.
    They are computed on reading (:func:`_live`), from the stored accuracies."""
    if conflict.resolution.strategy is not ResolutionStrategy.SOURCE_TRUST or rationale is None:
        return conflict
    return conflict.model_copy(
        update={
            "values": [v.model_copy(update={"score": None}) for v in conflict.values],
            "resolution": conflict.resolution.model_copy(update={"rationale": rationale}),
        }
    )


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
        item = detection.item_from_state(states[c.iri])
        ranked = rank(item, ResolutionStrategy.SOURCE_TRUST, accuracy)
        values = []
        for i, v in enumerate(c.values):
            if ranked.preferred is None:
                outcome = ValueOutcome.UNRESOLVED
            else:
                outcome = ValueOutcome.PREFERRED if i == ranked.preferred else ValueOutcome.REJECTED
            values.append(v.model_copy(update={"score": ranked.scores[i], "outcome": outcome}))
        preferred = item.clusters[ranked.preferred].value if ranked.preferred is not None else None
        resolution = c.resolution.model_copy(update={"rationale": ranked.rationale, "preferred": preferred})
        out.append(c.model_copy(update={"values": values, "resolution": resolution}))
    return out


@dataclass
class _Records:
    """What a catch-up (or a full run, ``reset``) writes: the conflicts to (re)write, the items to
    take out, the agreements, the source accuracies and entity resolution after it."""

    reset: bool
    conflicts: list[Conflict]
    states: dict[str, str]
    agreements: list[records.Agreement]
    removed: frozenset[str]
    accuracy: dict[str, float]
    mapping: dict[str, str]
    parameters: dict[str, object]
    activity: str
    started: datetime
    ended: datetime
    detection: detection.Detection | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    #: conflicts (among ``conflicts``) whose resolution alone changed
    resolved: frozenset[str] = frozenset()
    #: the rationale each source-trust conflict's record keeps (:func:`_lasting`)
    lasting: dict[str, str] = field(default_factory=dict)


class ConflictRecords:
    """The conflict records as a derived view (:class:`provgraph.store.derived.Derived`).

    From scratch, every conflict is detected (:func:`provgraph.trust.conflicts.detect`). After
    a write of sources, the (entity, predicate) keys the added and removed graphs state are
    detected again, and only those (:func:`provgraph.trust.conflicts.detect_keys`); when that
    changes what truth discovery reads, the source accuracies are computed again from the stored
    items, and the conflicts whose source-trust resolution they change are resolved again. A
    change of what entity resolution reads (a ``sameAs`` link, an alias label) starts over.

    The strategy and the predicates checked are those of the last explicit run, unless given."""

    uses_ontology = True

    def __init__(
        self,
        *,
        strategy: ResolutionStrategy | None = None,
        predicates: Sequence[str] | None = None,
        given: bool = False,
    ) -> None:
        self._strategy = strategy
        self._predicates = predicates
        self._given = given

    def stored(self, backend: Backend) -> Stamp | None:
        return records.stamp(backend)

    def writable(self, backend: Backend) -> bool:
        return derived.may_write(backend)

    def _parameters(self, backend: Backend) -> tuple[ResolutionStrategy | None, list[str] | None]:
        if self._given:
            return self._strategy, list(self._predicates) if self._predicates is not None else None
        last = records.last_run(backend)
        forced, chosen = last.get("strategy"), last.get("predicates")
        return (
            ResolutionStrategy(str(forced)) if forced else None,
            [str(p) for p in chosen] if isinstance(chosen, list) else None,
        )

    def compute(self, backend: Backend, since: Changes | None) -> _Records:
        clock = time.perf_counter()
        started = datetime.now(UTC)
        policy = policy_of(backend)
        strategy, predicates = self._parameters(backend)
        checked = sorted(predicates) if predicates is not None else sorted(policy.functional)
        parameters: dict[str, object] = {
            "strategy": strategy.value if strategy else None,
            "predicate_strategies": {p: s.value for p, s in sorted(policy.strategies.items())},
            "default_strategy": DEFAULT_STRATEGY.value,
            "predicates": sorted(predicates) if predicates is not None else None,
            "checked": checked,
            "disjoint": [list(pair) for pair in sorted(policy.disjoint)],
            "tolerances": {p: [t.absolute, t.relative] for p, t in sorted(policy.tolerances.items())},
        }
        graphs = sorted(since.added | since.removed) if since is not None else []
        if since is not None and detection.links_changed(backend, policy, graphs):
            since = None  # entity resolution may change: every key with it
        if since is None:
            found = detection.detect(backend, policy, predicates=predicates, now=started)
            fresh, removed, mapping = found.items, frozenset[str](), found.entity_map
            accuracy = _accuracy(detection.votes(i) for i in found.items)
            first = records.first_detected(backend)
            again: list[detection.Item] = []
        else:
            found = None
            old_accuracy, mapping = records.stored_state(backend)
            watched = set(checked) | {p for pair in policy.disjoint for p in pair}
            keys = detection.touched(backend, graphs, watched, mapping)
            fresh = detection.detect_keys(backend, policy, keys, mapping, functional=checked, now=started)
            stored = records.items(backend, keys)
            removed = frozenset(stored)
            old = [detection.item_from_state(s) for s in stored.values()]
            accuracy, again = old_accuracy, []
            if sorted(detection.votes(i) for i in old) != sorted(detection.votes(i) for i in fresh):
                # the stored items' votes only: an item is rebuilt if its resolution changes
                rest = {iri: json.loads(s) for iri, s in records.items(backend).items() if iri not in removed}
                votes = {iri: detection.state_votes(data) for iri, data in rest.items()}
                accuracy = _accuracy([*votes.values(), *(detection.votes(i) for i in fresh)])
                if accuracy != old_accuracy:
                    trusted = [
                        iri
                        for iri, data in rest.items()
                        if len(data["clusters"]) > 1
                        and _strategy_of(data["predicates"], policy, strategy) is ResolutionStrategy.SOURCE_TRUST
                    ]
                    again = [
                        detection.item_from_state(json.dumps(rest[iri]))
                        for iri in _changed_by(trusted, votes, old_accuracy, accuracy)
                    ]
            first = records.first_detected(
                backend, sorted({i.iri for i in fresh if i.is_conflict} | {i.iri for i in again})
            )
        clock_resolve = time.perf_counter()
        digest = hashlib.sha256(f"{started.isoformat()}\n{sorted(removed)}\n{len(fresh)}".encode()).hexdigest()[:32]
        activity = f"{ID_NS}resolution/{digest}"
        ended = datetime.now(UTC)
        written = [i for i in fresh if i.is_conflict] + again
        lasting: dict[str, str] = {}
        conflicts = [
            _to_model(
                item,
                _strategy_for(item, policy, strategy),
                accuracy,
                first=first.get(item.iri, started),
                activity=activity,
                at=ended,
                lasting=lasting,
            )
            for item in written
        ]
        agreements = [
            records.Agreement(_agreement_iri(i), i.subject, i.predicates, detection.item_state(i))
            for i in fresh
            if not i.is_conflict
        ]
        seconds = {
            **(found.seconds if found is not None else {}),
            "detect": round(clock_resolve - clock, 3),
            "resolve": round(time.perf_counter() - clock_resolve, 3),
        }
        return _Records(
            reset=since is None,
            conflicts=conflicts,
            states={i.iri: detection.item_state(i) for i in fresh if i.is_conflict},
            resolved=frozenset(i.iri for i in again),
            lasting=lasting,
            agreements=agreements,
            removed=removed,
            accuracy=accuracy,
            mapping=mapping,
            parameters=parameters,
            activity=activity,
            started=started,
            ended=ended,
            detection=found,
            seconds=seconds,
        )

    def write(self, backend: Backend, result: _Records, target: Stamp) -> None:
        stored = [_lasting(c, result.lasting.get(c.iri)) for c in result.conflicts]
        common = {
            "states": result.states,
            "agreements": result.agreements,
            "activity": result.activity,
            "started": result.started,
            "ended": result.ended,
            "parameters": result.parameters,
            "accuracy": result.accuracy,
            "mapping": result.mapping,
            "target": target,
        }
        if result.reset:
            records.write(backend, stored, **common)  # type: ignore[arg-type]
        else:
            records.update(
                backend,
                removed=sorted(result.removed),
                conflicts=[c for c in stored if c.iri not in result.resolved],
                resolved=[c for c in stored if c.iri in result.resolved],
                **common,  # type: ignore[arg-type]
            )


def run(
    backend: Backend,
    *,
    strategy: ResolutionStrategy | None = None,
    predicates: Sequence[str] | None = None,
    store: bool = True,
) -> tuple[DetectionReport, list[Conflict]]:
    """Detect every conflict in the current sources, resolve each (``strategy`` for all, else each
    predicate's declared strategy, else :data:`DEFAULT_STRATEGY`), and, when ``store`` and the
    store is writable, rewrite the conflict records (later catch-ups keep this strategy and
    these predicates)."""
    clock = time.perf_counter()
    view = ConflictRecords(strategy=strategy, predicates=predicates, given=True)
    writing = store and view.writable(backend)  # first: what is computed must be what is written
    target = derived.stamp(backend)
    result = view.compute(backend, None)
    clock_records = time.perf_counter()
    if writing:
        view.write(backend, result, target)
        derived.forget(backend, NAME)
    found = result.detection
    assert found is not None
    policy = policy_of(backend)
    report = DetectionReport(
        conflicts=len(result.conflicts),
        multi_valued=found.multi_valued,
        merged_by_tolerance=found.merged_by_tolerance,
        predicates=sorted(predicates) if predicates is not None else sorted(policy.functional),
        disjoint_pairs=len(policy.disjoint),
        merged_entities=len(found.entity_map),
        strategy=strategy,
        source_accuracy=dict(sorted(result.accuracy.items())),
        activity=result.activity if writing else None,
        seconds=round(time.perf_counter() - clock, 3),
        phases={**result.seconds, "records": round(time.perf_counter() - clock_records, 3)},
        stored=writing,
    )
    return report, sorted(result.conflicts, key=lambda c: c.iri)


def refresh(backend: Backend) -> _Records | None:
    """Bring the conflict records up to date (:func:`provgraph.store.derived.catch_up`). None when
    the stored records are current; else (a store that cannot be written) what readers lay over
    them."""
    return derived.catch_up(backend, ConflictRecords(), NAME)


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
    """The conflicts in the current sources. The records catch up first with what changed since
    they were written (:func:`refresh`); a store that cannot be written computes the catch-up
    and lays it over the stored records. With ``strategy``, the values are ranked by it (not
    stored: use ``ProvGraph.resolve`` to record a strategy)."""
    patch = refresh(backend)
    policy = policy_of(backend)
    accuracy = (
        patch.accuracy
        if patch is not None
        else derived.memo(backend, "accuracy", lambda: records.stored_state(backend)[0])
    )
    if strategy is not None:
        found = _live(backend, _read(backend, policy), accuracy)
        return _filter(_rerank(_overlay(found, patch, None, None), strategy), subject, predicate)
    found = _live(backend, _read(backend, policy, subject=subject, predicate=predicate), accuracy)
    return _overlay(found, patch, subject, predicate)


def _overlay(
    stored: list[Conflict], patch: _Records | None, subject: str | None, predicate: str | None
) -> list[Conflict]:
    """The stored conflicts as a catch-up that could not be written (``patch``) changes them."""
    if patch is None:
        return stored
    found = {} if patch.reset else {c.iri: c for c in stored if c.iri not in patch.removed}
    for c in patch.conflicts:
        found.pop(c.iri, None)
    found.update({c.iri: c for c in _filter(patch.conflicts, subject, predicate)})
    return [found[k] for k in sorted(found)]


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
    policy = policy_of(backend)
    # a fact is contested when a conflict involves it: the records must be current to say so
    patch = refresh(backend)
    outcomes = _outcomes(backend, [e.statement for e in evidence], patch)
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


def _outcomes(backend: Backend, statements: list[str], patch: _Records | None) -> dict[str, ValueOutcome]:
    """The outcome of the value of each of ``statements`` a conflict involves."""
    stored = {} if patch is not None and patch.reset else records.statement_outcomes(backend, statements)
    if patch is None:
        return {st: outcome for st, (_, outcome) in stored.items()}
    replaced = patch.removed | {c.iri for c in patch.conflicts}
    out = {st: outcome for st, (c, outcome) in stored.items() if c not in replaced}
    wanted = set(statements)
    for c in patch.conflicts:
        for v in c.values:
            out.update({x.statement: v.outcome for x in v.claims if x.statement in wanted})
    return out


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
    # the current sources: their view graph where the store keeps one, else the list of them
    graphs: list[NamedNode | DefaultGraph] = (
        [CURRENT_VIEW] if current_view.is_maintained(backend) else [*catalog.current_graphs(backend)]
    )
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
    "NAME",
    "ONTOLOGY_GRAPH",
    "ConflictRecords",
    "annotate",
    "chains",
    "conflicts",
    "policy_of",
    "refresh",
    "run",
]
