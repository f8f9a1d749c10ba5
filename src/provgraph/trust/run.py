"""Running conflict detection and resolution into the conflict records (:mod:`.records`).

The records are a derived view (:class:`ConflictRecords`, :mod:`provgraph.store.derived`): from
scratch every conflict is detected; after a write of sources only the (entity, predicate) keys
the written graphs touch. :func:`run` is an explicit full run (its strategy and predicates are
kept for the catch-ups after it); :func:`refresh` catches the records up with the store.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from provgraph.store import derived
from provgraph.store.base import Backend
from provgraph.store.changes import Changes
from provgraph.store.derived import Stamp
from provgraph.trust import records
from provgraph.trust.conflicts import (
    Detection,
    Item,
    detect,
    detect_keys,
    item_from_state,
    item_state,
    links_changed,
    state_votes,
    touched,
    votes,
)
from provgraph.trust.models import Conflict, DetectionReport, ResolutionStrategy
from provgraph.trust.policy import DEFAULT_STRATEGY, Policy, policy_of
from provgraph.trust.records import Pattern
from provgraph.trust.resolve import rank, to_conflict, truth_discovery_counts, value_probabilities
from provgraph.vocab import ID_NS

#: The conflict records' name among the derived views.
NAME = "conflicts"


@dataclass
class RecordsChange:
    """What a catch-up (or a full run, ``reset``) writes: the conflicts to (re)write, the items to
    take out, the agreements, and the run (its source accuracies and entity resolution)."""

    reset: bool
    conflicts: list[Conflict]
    states: dict[str, str]
    agreements: list[records.Agreement]
    removed: frozenset[str]
    run: records.Run
    detection: Detection | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    #: conflicts (among ``conflicts``) whose resolution alone changed
    resolved: frozenset[str] = frozenset()
    #: source-trust conflicts whose preferred value alone changed: its index, their number of values
    flips: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the rationale each source-trust conflict's record keeps (:func:`_lasting`)
    lasting: dict[str, str] = field(default_factory=dict)


@dataclass
class _Detected:
    """What a run detected: the items of the keys it looked at (``fresh``), the stored items they
    replace (``removed``), the stored conflicts to resolve again (``again``: the source
    accuracies moved), and what resolving reads."""

    fresh: list[Item]
    removed: frozenset[str]
    mapping: dict[str, str]
    accuracy: dict[str, float]
    patterns: Counter[Pattern]
    first: dict[str, datetime]
    again: list[Item] = field(default_factory=list)
    flips: dict[str, tuple[int, int]] = field(default_factory=dict)
    detection: Detection | None = None


def _accuracy(patterns: Counter[Pattern]) -> dict[str, float]:
    """Truth discovery over the items' votes (how many items vote in each pattern,
    :func:`~provgraph.trust.conflicts.votes`), read in a canonical order: the accuracies are a
    function of the items alone, so a full run and a catch-up agree to the last bit."""
    counted: Counter[tuple[frozenset[str], ...]] = Counter()
    for pattern, n in patterns.items():
        counted[tuple(frozenset(v) for v in pattern)] += n
    return truth_discovery_counts(counted)


def _trust_signature(pattern: Pattern, accuracy: dict[str, float]) -> tuple[int, ...]:
    """What a source-trust resolution's record reads of the accuracies: which values share the
    highest probability (the preferred one, or the tie its tie-breaks settle). The scores and
    the figures of the rationale are not stored: they are read with the accuracies of the time
    (:func:`provgraph.trust.read.conflicts`)."""
    probs = value_probabilities([frozenset(v) for v in pattern], accuracy)
    top = max(probs)
    return tuple(i for i, p in enumerate(probs) if p == top)


def _moved(
    patterns: Iterable[Pattern], old: dict[str, float], new: dict[str, float]
) -> dict[Pattern, tuple[tuple[int, ...], tuple[int, ...]]]:
    """The patterns of votes of conflicts (two values or more) whose most probable values change
    from accuracies ``old`` to ``new``, with those values before and after: decided once per
    pattern, not per conflict."""
    out = {}
    for pattern in patterns:
        if len(pattern) > 1:
            before, after = _trust_signature(pattern, old), _trust_signature(pattern, new)
            if before != after:
                out[pattern] = (before, after)
    return out


def _single(before: tuple[int, ...], after: tuple[int, ...]) -> bool:
    return len(before) == 1 and len(after) == 1


def _lasting(conflict: Conflict, rationale: str | None) -> Conflict:
    """A conflict as its record keeps it. Source trust: without the scores and the figures of the
    rationale (``rationale`` is the rest), which move with the source accuracies whenever any
    conflict changes: a catch-up would otherwise rewrite most records after any new conflict.
    They are computed on reading, from the stored accuracies."""
    if conflict.resolution.strategy is not ResolutionStrategy.SOURCE_TRUST or rationale is None:
        return conflict
    return conflict.model_copy(
        update={
            "values": [v.model_copy(update={"score": None}) for v in conflict.values],
            "resolution": conflict.resolution.model_copy(update={"rationale": rationale}),
        }
    )


def _detect_all(backend: Backend, policy: Policy, predicates: Sequence[str] | None, started: datetime) -> _Detected:
    found = detect(backend, policy, predicates=predicates, now=started)
    patterns = Counter(votes(i) for i in found.items)
    return _Detected(
        fresh=found.items,
        removed=frozenset(),
        mapping=found.entity_map,
        accuracy=_accuracy(patterns),
        patterns=patterns,
        first=records.first_detected(backend),
        detection=found,
    )


def _detect_since(
    backend: Backend,
    policy: Policy,
    graphs: Sequence[str],
    *,
    checked: Sequence[str],
    started: datetime,
) -> _Detected:
    """The items of the keys ``graphs`` (written sources) touch, detected again; and, when that
    changes what truth discovery reads (the patterns of votes the records count), the stored
    source-trust conflicts whose preferred value the new accuracies change: the others are not
    read."""
    old_accuracy, mapping = records.stored_state(backend)
    watched = set(checked) | {p for pair in policy.disjoint for p in pair}
    keys = touched(backend, graphs, watched, mapping)
    fresh = detect_keys(backend, policy, keys, mapping, functional=checked, now=started)
    stored = records.items(backend, keys)
    removed = frozenset(stored)
    before = Counter(state_votes(json.loads(s)) for s in stored.values())
    after = Counter(votes(i) for i in fresh)
    patterns = records.vote_patterns(backend)
    accuracy, again, flips = old_accuracy, [], {}
    if before != after:
        patterns = patterns - before + after
        accuracy = _accuracy(patterns)
        if accuracy != old_accuracy:
            moved = _moved(patterns, old_accuracy, accuracy)
            found = {k: v for k, v in records.trust_conflicts(backend, moved).items() if k not in removed}
            # one most probable value before and after: only the outcomes change (the rationale
            # it keeps names no value); ties are settled by the claims, read for them alone
            flips = {iri: (moved[p][1][0], len(p)) for iri, p in found.items() if _single(*moved[p])}
            tied = sorted(iri for iri, p in found.items() if not _single(*moved[p]))
            again = [item_from_state(s) for s in records.states(backend, tied).values()] if tied else []
    first = records.first_detected(backend, sorted({i.iri for i in fresh if i.is_conflict} | {i.iri for i in again}))
    return _Detected(fresh, removed, mapping, accuracy, patterns, first, again, flips)


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

    def compute(self, backend: Backend, since: Changes | None) -> RecordsChange:
        clock = time.perf_counter()
        started = datetime.now(UTC)
        policy = policy_of(backend)
        strategy, predicates = self._parameters(backend)
        checked = sorted(predicates) if predicates is not None else sorted(policy.functional)
        graphs = sorted(since.added | since.removed | since.restated) if since is not None else []
        if since is None or links_changed(backend, policy, graphs):
            found = _detect_all(backend, policy, predicates, started)  # entity resolution may change
        else:
            found = _detect_since(backend, policy, graphs, checked=checked, started=started)
        clock_resolve = time.perf_counter()
        digest = f"{started.isoformat()}\n{sorted(found.removed)}\n{len(found.fresh)}"
        activity = f"{ID_NS}resolution/{hashlib.sha256(digest.encode()).hexdigest()[:32]}"
        ended = datetime.now(UTC)
        lasting: dict[str, str] = {}
        conflicts = []
        for item in [i for i in found.fresh if i.is_conflict] + found.again:
            chosen = strategy if strategy is not None else policy.strategy(item.predicates)
            ranked = rank(item, chosen, found.accuracy)
            if ranked.lasting is not None:
                lasting[item.iri] = ranked.lasting
            first = found.first.get(item.iri, started)
            conflicts.append(to_conflict(item, chosen, ranked, first=first, activity=activity, at=ended))
        seconds = {
            **(found.detection.seconds if found.detection is not None else {}),
            "detect": round(clock_resolve - clock, 3),
            "resolve": round(time.perf_counter() - clock_resolve, 3),
        }
        parameters = _run_parameters(policy, strategy, predicates, checked)
        return RecordsChange(
            reset=found.detection is not None,
            conflicts=conflicts,
            states={i.iri: item_state(i) for i in found.fresh if i.is_conflict},
            agreements=[_agreement(i) for i in found.fresh if not i.is_conflict],
            removed=found.removed,
            run=records.Run(activity, started, ended, parameters, found.accuracy, found.mapping, found.patterns),
            detection=found.detection,
            seconds=seconds,
            resolved=frozenset(i.iri for i in found.again),
            flips=found.flips,
            lasting=lasting,
        )

    def write(self, backend: Backend, result: RecordsChange, target: Stamp) -> None:
        stored = [_lasting(c, result.lasting.get(c.iri)) for c in result.conflicts]
        if result.reset:
            records.write(
                backend, stored, states=result.states, agreements=result.agreements, run=result.run, target=target
            )
            return
        records.update(
            backend,
            removed=sorted(result.removed),
            conflicts=[c for c in stored if c.iri not in result.resolved],
            resolved=[c for c in stored if c.iri in result.resolved],
            flips=result.flips,
            states=result.states,
            agreements=result.agreements,
            run=result.run,
            target=target,
        )


def _agreement(item: Item) -> records.Agreement:
    iri = item.iri.replace(f"{ID_NS}conflict/", f"{ID_NS}agreement/")
    return records.Agreement(iri, item.subject, item.predicates, item_state(item))


def _run_parameters(
    policy: Policy, strategy: ResolutionStrategy | None, predicates: Sequence[str] | None, checked: list[str]
) -> dict[str, object]:
    """The parameters a run's activity records."""
    return {
        "strategy": strategy.value if strategy else None,
        "predicate_strategies": {p: s.value for p, s in sorted(policy.strategies.items())},
        "default_strategy": DEFAULT_STRATEGY.value,
        "predicates": sorted(predicates) if predicates is not None else None,
        "checked": checked,
        "disjoint": [list(pair) for pair in sorted(policy.disjoint)],
        "tolerances": {p: [t.absolute, t.relative] for p, t in sorted(policy.tolerances.items())},
    }


def run(
    backend: Backend,
    *,
    strategy: ResolutionStrategy | None = None,
    predicates: Sequence[str] | None = None,
    store: bool = True,
) -> tuple[DetectionReport, list[Conflict]]:
    """Detect every conflict in the current sources, resolve each (``strategy`` for all, else each
    predicate's declared strategy, else :data:`~provgraph.trust.policy.DEFAULT_STRATEGY`), and,
    when ``store`` and the store is writable, rewrite the conflict records (later catch-ups keep
    this strategy and these predicates)."""
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
        source_accuracy=dict(sorted(result.run.accuracy.items())),
        activity=result.run.activity if writing else None,
        seconds=round(time.perf_counter() - clock, 3),
        phases={**result.seconds, "records": round(time.perf_counter() - clock_records, 3)},
        stored=writing,
    )
    return report, sorted(result.conflicts, key=lambda c: c.iri)


def refresh(backend: Backend) -> RecordsChange | None:
    """Bring the conflict records up to date (:func:`provgraph.store.derived.catch_up`). None when
    the stored records are current; else (a store that cannot be written) what readers lay over
    them."""
    return derived.catch_up(backend, ConflictRecords(), NAME)


__all__ = ["NAME", "ConflictRecords", "RecordsChange", "refresh", "run"]
