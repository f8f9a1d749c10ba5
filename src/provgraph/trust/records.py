"""The conflict records graph ``pgid:conflicts``: one ``pg:Conflict`` per conflict, with its
kind, subject, predicates, competing values (``pg:ConflictValue``: the value, its statements,
its sources, its outcome and score), the strategy, the preferred value, the rationale, and the
``pg:ResolutionActivity`` (a ``prov:Activity`` with its time and parameters) that resolved it.

The records are a derived view (:mod:`provgraph.store.derived`), stamped with the store state
they reflect (``pg:generation`` and ``pg:changeLog`` on the graph). A full run rewrites the graph:
dropped, bulk-loaded, then stamped (a reader before the stamp sees no valid records and computes
them itself). After a write of sources, only the items of the (entity, predicate) keys the added
and removed graphs touch are rewritten (:func:`update`, one transaction), with the conflicts whose
resolution the new source accuracies change.

For that, each item keeps what resolving it needs (``pg:resolutionInput``: its values and their
claims, as JSON), items whose values agree within tolerance are kept too
(``pg:ToleranceAgreement``: truth discovery learns from them), each conflict keeps its pattern of
votes (the sources of each value, ``pg:votePattern``), and the graph keeps the source accuracies
(``pg:sourceAccuracy``), how many items vote in each pattern (``pg:votePatterns``: what truth
discovery reads, so a catch-up reads no other item) and the entity resolution (``pg:entityMap``)
of the last run. When the accuracies move, the source-trust conflicts whose preferred value
changes are found by their pattern, and only their outcomes are rewritten.

Conflict IRIs are content-addressed (kind, entity, predicates), so a conflict that persists across
runs keeps its IRI and its ``pg:firstDetected`` time; one that new data resolved disappears, and a
new one appears. Source statements are never touched: a losing value is only marked
``pg:Rejected`` here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from string import Template

from provgraph.store import derived
from provgraph.store.base import Backend
from provgraph.store.derived import Stamp
from provgraph.store.terms import Literal, NamedNode, Row, Term, sparql_term, sparql_terms
from provgraph.trust.confidence import aggregate_by_source
from provgraph.trust.models import (
    Conflict,
    ConflictKind,
    ConflictValue,
    Resolution,
    ResolutionStrategy,
    ValueClaim,
    ValueOutcome,
)
from provgraph.vocab import PREFIXES, XSD_NS

#: Bumped when what the records hold changes: records of another version are rebuilt.
VERSION = 3
#: Conflicts (statements, value nodes) per VALUES block.
CHUNK = 500
#: A VALUES row that binds nothing: the query reads every one (measured no slower than no VALUES).
EVERY = "UNDEF"

# ---------------------------------------------------------------------- queries

#: The parameters of the run that wrote the records.
LAST_RUN = """SELECT ?params WHERE { GRAPH pgid:conflicts {
  pgid:conflicts prov:wasGeneratedBy ?act . ?act pg:parameters ?params } }"""
#: The store state the records reflect, and their version.
STAMP = """SELECT ?n ?log ?v WHERE { GRAPH pgid:conflicts {
  pgid:conflicts pg:generation ?n ; pg:changeLog ?log ; pg:recordsVersion ?v } }"""
#: The source accuracies and the entity resolution of the last run.
STORED_STATE = """SELECT ?acc ?map WHERE { GRAPH pgid:conflicts {
  pgid:conflicts pg:sourceAccuracy ?acc ; pg:entityMap ?map } }"""
#: How many stored items vote in each pattern (the sources of each value).
STORED_PATTERNS = """SELECT ?patterns WHERE { GRAPH pgid:conflicts { pgid:conflicts pg:votePatterns ?patterns } }"""
#: The stored source-trust conflicts whose items vote in one of the patterns $patterns.
BY_PATTERN = Template("""SELECT ?c ?pattern WHERE { VALUES ?pattern { $patterns } GRAPH pgid:conflicts {
  ?c pg:votePattern ?pattern ; pg:strategy pg:SourceTrust } }""")
#: When the conflicts $conflicts (EVERY: every one) were first detected.
FIRST_DETECTED = Template(
    "SELECT ?c ?t WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts { ?c pg:firstDetected ?t } }"
)
#: The resolution input of the items $items (EVERY: every one).
INPUTS = Template(
    "SELECT ?c ?state WHERE { VALUES ?c { $items } GRAPH pgid:conflicts { ?c pg:resolutionInput ?state } }"
)
#: The resolution input of the items of the (entity predicate) $keys.
KEYED_INPUTS = Template("""SELECT ?c ?state WHERE { VALUES (?e ?p) { $keys } GRAPH pgid:conflicts {
  { ?c pg:conflictSubject ?e ; pg:conflictPredicate ?p }
  UNION { ?c pg:agreementSubject ?e ; pg:agreementPredicate ?p }
  ?c pg:resolutionInput ?state } }""")
#: The conflicts about ?subject (the entity or an IRI merged into it).
ABOUT = """SELECT DISTINCT ?c ?subject WHERE { GRAPH pgid:conflicts {
  { ?c pg:conflictSubject ?subject } UNION { ?c pg:mergedEntity ?subject } } }"""
#: The conflicts about ?subject with ?predicate.
ABOUT_WITH = """SELECT DISTINCT ?c ?subject ?predicate WHERE { GRAPH pgid:conflicts {
  { ?c pg:conflictSubject ?subject } UNION { ?c pg:mergedEntity ?subject }
  ?c pg:conflictPredicate ?predicate } }"""
#: The conflicts with ?predicate.
WITH = "SELECT ?c ?predicate WHERE { GRAPH pgid:conflicts { ?c pg:conflictPredicate ?predicate } }"
#: The statements the conflicts $conflicts (EVERY: every one) cite.
COMPETING = Template("""SELECT DISTINCT ?st WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts {
  ?c pg:hasValue ?v . ?v pg:competingStatement ?st } }""")
# Bound first when filtered: Oxigraph then reads the few conflicts' triples, not the graph;
# scores and statements come from a query of their own (as OPTIONALs here they were evaluated
# over every value of the graph). The conflicts and their values are two queries: as one join of
# eleven patterns with a VALUES of three conflicts, Virtuoso spent 140-350 ms on each new query at
# 1M facts (3 ms when the same text came again); the two took 9-11 and 2-3 ms.
#: The conflicts $conflicts (EVERY: every one).
HEADS = Template("""SELECT ?c ?kind ?s ?strategy ?why ?first ?act
WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts {
  ?c a pg:Conflict ; pg:conflictKind ?kind ; pg:conflictSubject ?s ; pg:strategy ?strategy ;
     pg:rationale ?why ; pg:firstDetected ?first ; prov:wasGeneratedBy ?act } }""")
#: The values of the conflicts $conflicts (EVERY: of every one).
VALUE_NODES = Template("""SELECT ?c ?v ?value ?vp ?outcome WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts {
  ?c pg:hasValue ?v . ?v pg:value ?value ; pg:valuePredicate ?vp ; pg:outcome ?outcome } }""")
#: The score and the statements of the value nodes $values (EVERY: every one); each property
#: bound, read from its index, not by filtering every triple of the graph.
# The values bound in each branch: Virtuoso leaves ?v unbound when one VALUES outside a UNION binds it.
VALUE_DETAILS = Template("""SELECT ?v ?k ?o WHERE {
  { VALUES ?v { $values } GRAPH pgid:conflicts { ?v pg:score ?o } BIND("score" AS ?k) }
  UNION { VALUES ?v { $values } GRAPH pgid:conflicts { ?v pg:competingStatement ?o } BIND("statement" AS ?k) }
}""")
#: When the activities $activities ended: a query of its own, as an OPTIONAL of HEADS it made
#: Oxigraph evaluate that a thousand times slower.
ENDED = Template("SELECT ?a ?t WHERE { VALUES ?a { $activities } GRAPH pgid:conflicts { ?a prov:endedAtTime ?t } }")
#: The IRIs merged into the entity of each of the conflicts $conflicts.
MERGED = Template(
    "SELECT ?c ?x WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts { ?c pg:mergedEntity ?x } } ORDER BY ?c ?x"
)
#: The predicates of each of the conflicts $conflicts.
PREDICATES = Template(
    "SELECT ?c ?x WHERE { VALUES ?c { $conflicts } GRAPH pgid:conflicts { ?c pg:conflictPredicate ?x } } ORDER BY ?c ?x"
)
#: The conflict and the outcome of the value of each of the statements $statements a conflict cites.
OUTCOMES = Template("""SELECT ?st ?c ?v ?outcome WHERE { VALUES ?st { $statements } GRAPH pgid:conflicts {
  ?v pg:competingStatement ?st ; pg:outcome ?outcome . ?c pg:hasValue ?v } }""")

# ---------------------------------------------------------------------- updates

#: The activities the records $items name, and the graph's.
NAMED_ACTIVITIES = Template("""SELECT DISTINCT ?a WHERE { GRAPH pgid:conflicts {
  { VALUES ?c { $items } ?c prov:wasGeneratedBy ?a } UNION { pgid:conflicts prov:wasGeneratedBy ?a } } }""")
#: Take out the items $items: their values, then themselves.
DELETE_ITEMS = Template("""DELETE { GRAPH pgid:conflicts { ?v ?p ?o } } WHERE { VALUES ?c { $items }
  GRAPH pgid:conflicts { ?c pg:hasValue ?v . ?v ?p ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c ?p ?o } } WHERE { VALUES ?c { $items } GRAPH pgid:conflicts { ?c ?p ?o } }""")
# Each property a constant of its own, with the conflicts bound: from a VALUES of the properties,
# Oxigraph read them over the whole graph (360 ms for 300 conflicts of 5,000).
#: Take out the outcomes of the value nodes $values and the preferred value and activity of the
#: conflicts $conflicts: what a new preferred value of source trust changes.
DELETE_PREFERENCES = Template("""DELETE { GRAPH pgid:conflicts { ?v pg:outcome ?o } } WHERE { VALUES ?v { $values }
  GRAPH pgid:conflicts { ?v pg:outcome ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c pg:preferredValue ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c pg:preferredValue ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c prov:wasGeneratedBy ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c prov:wasGeneratedBy ?o } }""")
#: Take out what the resolution of the conflicts $conflicts decides.
DELETE_RESOLUTIONS = Template("""DELETE { GRAPH pgid:conflicts { ?v pg:outcome ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c pg:hasValue ?v . ?v pg:outcome ?o } } ;
DELETE { GRAPH pgid:conflicts { ?v pg:score ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c pg:hasValue ?v . ?v pg:score ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c pg:rationale ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c pg:rationale ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c pg:preferredValue ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c pg:preferredValue ?o } } ;
DELETE { GRAPH pgid:conflicts { ?c prov:wasGeneratedBy ?o } } WHERE { VALUES ?c { $conflicts }
  GRAPH pgid:conflicts { ?c prov:wasGeneratedBy ?o } }""")
# The graph's own triples read by its subject, filtered: a VALUES of the properties would be
# read over the whole graph.
#: Take out the graph's run, accuracies, entity resolution and stamp.
DELETE_RUN = """DELETE { GRAPH pgid:conflicts { pgid:conflicts ?p ?o } } WHERE { GRAPH pgid:conflicts {
  pgid:conflicts ?p ?o } FILTER(?p IN (pg:generation, pg:changeLog, pg:recordsVersion, pg:sourceAccuracy,
  pg:entityMap, pg:votePatterns, prov:wasGeneratedBy)) }"""
#: Take out the activities among $activities no record names any more.
DELETE_UNNAMED = Template("""DELETE { GRAPH pgid:conflicts { ?a ?p ?o } } WHERE { VALUES ?a { $activities }
  GRAPH pgid:conflicts { ?a ?p ?o FILTER NOT EXISTS { ?x prov:wasGeneratedBy ?a } } }""")
#: Write the triples $triples (pg:, prov:, rdf: names) into the graph.
INSERT = Template("INSERT DATA { GRAPH pgid:conflicts {\n$triples\n} }")
DROP = "DROP SILENT GRAPH pgid:conflicts"


def _values(terms: Iterable[str] | None) -> str:
    """The rows of a one-variable VALUES block: ``terms`` (IRIs), or one that binds nothing
    (``None``: every one)."""
    return EVERY if terms is None else sparql_terms(terms)


def _chunks(terms: Sequence[str] | None) -> list[Sequence[str] | None]:
    """``terms`` in chunks of :data:`CHUNK` (``None``, every one, in one)."""
    return [None] if terms is None else [terms[i : i + CHUNK] for i in range(0, len(terms), CHUNK)]


def _outcome(row: Row, name: str) -> ValueOutcome:
    return ValueOutcome(row.value(name).rsplit("#", 1)[-1].lower())


# ---------------------------------------------------------------------- reading the graph's state


def last_run(backend: Backend) -> dict[str, object]:
    """The parameters of the last run (empty: never run)."""
    for row in backend.select(LAST_RUN):
        found: dict[str, object] = json.loads(row.value("params"))
        return found
    return {}


def stamp(backend: Backend) -> Stamp | None:
    """The store state the records reflect; None when there are none, or of another version."""
    for row in backend.select(STAMP):
        if row.integer("v") != VERSION:
            return None
        return Stamp(row.value("log"), row.integer("n"))
    return None


def stored_state(backend: Backend) -> tuple[dict[str, float], dict[str, str]]:
    """The source accuracies and the entity resolution of the records (empty: none)."""
    for row in backend.select(STORED_STATE):
        return json.loads(row.value("acc")), json.loads(row.value("map"))
    return {}, {}


Pattern = tuple[tuple[str, ...], ...]


def pattern_text(pattern: Pattern) -> str:
    """A pattern of votes (the sources of each value, in the values' order) as the records keep it."""
    return json.dumps(pattern)


def vote_patterns(backend: Backend) -> Counter[Pattern]:
    """How many stored items (conflicts and agreements) vote in each pattern (empty: none)."""
    for row in backend.select(STORED_PATTERNS):
        return Counter({tuple(tuple(v) for v in p): n for p, n in json.loads(row.value("patterns"))})
    return Counter()


def trust_conflicts(backend: Backend, patterns: Iterable[Pattern]) -> dict[str, Pattern]:
    """The stored source-trust conflicts whose items vote in one of ``patterns``, with theirs."""
    wanted = {pattern_text(p): p for p in patterns}
    texts = sorted(wanted)
    out: dict[str, Pattern] = {}
    for i in range(0, len(texts), CHUNK):
        values = " ".join(_lit(t) for t in texts[i : i + CHUNK])
        for row in backend.select(BY_PATTERN.substitute(patterns=values)):
            out[row.value("c")] = wanted[row.value("pattern")]
    return out


def value_node(conflict: str, index: int) -> str:
    """The IRI of the ``index``-th value of ``conflict``'s record."""
    return f"{conflict}/value/{index}"


def first_detected(backend: Backend, conflicts: Sequence[str] | None = None) -> dict[str, datetime]:
    """When each stored conflict (of ``conflicts``, or every one) was first detected."""
    first: dict[str, datetime] = {}
    for chunk in _chunks(conflicts):
        for row in backend.select(FIRST_DETECTED.substitute(conflicts=_values(chunk))):
            first[row.value("c")] = row.moment("t")
    return first


def items(backend: Backend, keys: Iterable[tuple[str, str]] | None = None) -> dict[str, str]:
    """The stored items (conflicts and agreements) of the (entity, predicate) ``keys``, or every
    one: their IRI and resolution input (JSON)."""
    if keys is None:
        return {r.value("c"): r.value("state") for r in backend.select(INPUTS.substitute(items=EVERY))}
    found: dict[str, str] = {}
    wanted = sorted(set(keys))
    for i in range(0, len(wanted), 400):
        rows = " ".join("(" + sparql_terms(key) + ")" for key in wanted[i : i + 400])
        for row in backend.select(KEYED_INPUTS.substitute(keys=rows)):
            found[row.value("c")] = row.value("state")
    return found


def states(backend: Backend, conflicts: Sequence[str]) -> dict[str, str]:
    """The resolution input (JSON) of each of the stored ``conflicts``."""
    out: dict[str, str] = {}
    for chunk in _chunks(conflicts):
        for row in backend.select(INPUTS.substitute(items=_values(chunk))):
            out[row.value("c")] = row.value("state")
    return out


# ---------------------------------------------------------------------- writing


@dataclass(frozen=True)
class Agreement:
    """An item whose values all agree within tolerance: no conflict, but truth discovery learns
    from it."""

    iri: str
    subject: str
    predicates: tuple[str, ...]
    state: str


@dataclass(frozen=True)
class Run:
    """What the graph keeps of the run that wrote it: its resolution activity (IRI, times and
    parameters), the source accuracies and the entity resolution."""

    activity: str
    started: datetime
    ended: datetime
    parameters: dict[str, object]
    accuracy: dict[str, float]
    mapping: dict[str, str]
    #: how many items vote in each pattern: what truth discovery reads
    patterns: Counter[Pattern] = field(default_factory=Counter)


def _lit(value: str | float, datatype: str | None = None) -> str:
    if isinstance(value, float):
        return sparql_term(Literal(repr(value), datatype=NamedNode(XSD_NS + "double")))
    return sparql_term(Literal(value) if datatype is None else Literal(value, datatype=NamedNode(datatype)))


def _dt(when: datetime) -> str:
    return _lit(when.astimezone(UTC).isoformat().replace("+00:00", "Z"), XSD_NS + "dateTime")


def _json(value: object) -> str:
    return _lit(json.dumps(value, sort_keys=True))


def _run_lines(run: Run) -> list[str]:
    activity = sparql_term(run.activity)
    return [
        f"pgid:conflicts rdf:type pg:ConflictGraph ; prov:wasGeneratedBy {activity} ;"
        f" pg:sourceAccuracy {_json(run.accuracy)} ; pg:entityMap {_json(run.mapping)} ;"
        f" pg:votePatterns {_lit(json.dumps(sorted(run.patterns.items())))} .",
        f"{activity} rdf:type pg:ResolutionActivity , prov:Activity ;"
        f" prov:startedAtTime {_dt(run.started)} ; prov:endedAtTime {_dt(run.ended)} ;"
        f" pg:parameters {_json(run.parameters)} .",
    ]


def _stamp_line(target: Stamp) -> str:
    return (
        f"pgid:conflicts pg:generation {_lit(str(target.generation), XSD_NS + 'integer')} ;"
        f" pg:changeLog {_lit(target.log)} ; pg:recordsVersion {_lit(str(VERSION), XSD_NS + 'integer')} ."
    )


def _score(value: ConflictValue) -> float | None:
    """A value's score as the records keep it: none when it is not a finite number."""
    score = value.score
    if score is not None and score == score and abs(score) != float("inf"):
        return float(score)
    return None


def _conflict_lines(c: Conflict, state: str, *, activity: str, started: datetime) -> list[str]:
    node = sparql_term(c.iri)
    lines = [
        f"{node} rdf:type pg:Conflict, prov:Entity ; pg:conflictKind {sparql_term(c.kind.iri)} ;"
        f" pg:conflictSubject {sparql_term(c.subject)} ; pg:strategy {sparql_term(c.resolution.strategy.iri)} ;"
        f" pg:rationale {_lit(c.resolution.rationale)} ; prov:wasGeneratedBy {sparql_term(activity)} ;"
        f" pg:firstDetected {_dt(c.first_detected or started)} ; pg:resolutionInput {_lit(state)} ;"
        f" pg:votePattern {_lit(pattern_text(tuple(tuple(v.sources) for v in c.values)))} ."
    ]
    lines += [f"{node} pg:conflictPredicate {sparql_term(p)} ." for p in c.predicates]
    lines += [f"{node} pg:mergedEntity {sparql_term(m)} ." for m in c.merged_subjects]
    for i, v in enumerate(c.values):
        vnode = sparql_term(value_node(c.iri, i))
        lines.append(
            f"{node} pg:hasValue {vnode} . {vnode} rdf:type pg:ConflictValue ;"
            f" pg:value {v.value} ; pg:valuePredicate {sparql_term(v.predicate)} ;"
            f" pg:outcome {sparql_term(v.outcome.iri)} ."
        )
        lines += _value_resolution_lines(node, vnode, v)
        lines += [f"{vnode} pg:competingStatement {sparql_term(x.statement)} ." for x in v.claims]
        lines += [f"{vnode} pg:sourceKey {_lit(s)} ." for s in v.sources]
    return lines


def _value_resolution_lines(node: str, vnode: str, v: ConflictValue) -> list[str]:
    """The score of a value and, when it is preferred, its conflict's preferredValue."""
    lines = []
    score = _score(v)
    if score is not None:
        lines.append(f"{vnode} pg:score {_lit(score)} .")
    if v.outcome is ValueOutcome.PREFERRED:
        lines.append(f"{node} pg:preferredValue {vnode} .")
    return lines


def _resolution_lines(c: Conflict, *, activity: str) -> list[str]:
    """The triples of a conflict's record that its resolution decides."""
    node = sparql_term(c.iri)
    lines = [f"{node} pg:rationale {_lit(c.resolution.rationale)} ; prov:wasGeneratedBy {sparql_term(activity)} ."]
    for i, v in enumerate(c.values):
        vnode = sparql_term(value_node(c.iri, i))
        lines.append(f"{vnode} pg:outcome {sparql_term(v.outcome.iri)} .")
        lines += _value_resolution_lines(node, vnode, v)
    return lines


def _flip_lines(conflict: str, preferred: int, count: int, *, activity: str) -> list[str]:
    """The triples of a source-trust conflict's record (of ``count`` values) whose preferred value
    is now the ``preferred``-th, the only most probable one as another was before (its rationale,
    :data:`~provgraph.trust.resolve.TRUST_LASTING`, stays)."""
    node = sparql_term(conflict)
    lines = [
        f"{node} prov:wasGeneratedBy {sparql_term(activity)} ;"
        f" pg:preferredValue {sparql_term(value_node(conflict, preferred))} ."
    ]
    for i in range(count):
        outcome = ValueOutcome.PREFERRED if i == preferred else ValueOutcome.REJECTED
        lines.append(f"{sparql_term(value_node(conflict, i))} pg:outcome {sparql_term(outcome.iri)} .")
    return lines


def _agreement_lines(a: Agreement) -> list[str]:
    node = sparql_term(a.iri)
    return [
        f"{node} rdf:type pg:ToleranceAgreement ; pg:agreementSubject {sparql_term(a.subject)} ;"
        f" pg:resolutionInput {_lit(a.state)} ."
    ] + [f"{node} pg:agreementPredicate {sparql_term(p)} ." for p in a.predicates]


def _item_lines(
    conflicts: Sequence[Conflict], states: dict[str, str], agreements: Sequence[Agreement], run: Run
) -> list[str]:
    lines = []
    for c in conflicts:
        lines += _conflict_lines(c, states[c.iri], activity=run.activity, started=run.started)
    for a in agreements:
        lines += _agreement_lines(a)
    return lines


def write(
    backend: Backend,
    conflicts: Sequence[Conflict],
    *,
    states: dict[str, str],
    agreements: Sequence[Agreement],
    run: Run,
    target: Stamp,
) -> None:
    """Replace the conflict graph with ``conflicts`` (``states``: each one's resolution input)
    and ``agreements`` of ``run``, stamped ``target``."""
    # The stamp is written last, in its own step: if the process dies before, the graph has none
    # and the next read computes the records again.
    backend.update(DROP, prefixes=PREFIXES)
    derived.load_lines(backend, "pgid:conflicts", _run_lines(run) + _item_lines(conflicts, states, agreements, run))
    backend.update(INSERT.substitute(triples=_stamp_line(target)), prefixes=PREFIXES)


def update(
    backend: Backend,
    *,
    removed: Sequence[str],
    conflicts: Sequence[Conflict],
    resolved: Sequence[Conflict],
    flips: Mapping[str, tuple[int, int]],
    states: dict[str, str],
    agreements: Sequence[Agreement],
    run: Run,
    target: Stamp,
) -> None:
    """In one transaction: take out the items ``removed``, write ``conflicts`` (``states``: each
    one's resolution input) and ``agreements``, rewrite the resolution of the conflicts
    ``resolved`` (their values' outcomes and scores, the preferred value, the rationale) and of
    the source-trust conflicts ``flips`` (conflict: its preferred value's index and its number of
    values), store ``run`` (its accuracies) and the stamp ``target``, and drop the resolution
    activities no record names any more."""
    out = sparql_terms(sorted(set(removed) | {c.iri for c in conflicts}))
    again = sparql_terms(c.iri for c in resolved)
    flipped = sparql_terms(sorted(flips))
    lines = [*_run_lines(run), *_item_lines(conflicts, states, agreements, run)]
    for c in resolved:
        lines += _resolution_lines(c, activity=run.activity)
    for iri, (preferred, count) in sorted(flips.items()):
        lines += _flip_lines(iri, preferred, count, activity=run.activity)
    # last: an engine that splits a large update into requests (Virtuoso) stamps the records
    # only once every one is in
    lines.append(_stamp_line(target))
    # the activities the replaced records name: those no record names afterwards go too
    named = backend.select(NAMED_ACTIVITIES.substitute(items=f"{out} {again} {flipped}"))
    activities = sparql_terms(r.value("a") for r in named)
    operations = []
    if out:
        operations.append(DELETE_ITEMS.substitute(items=out))
    if again:
        operations.append(DELETE_RESOLUTIONS.substitute(conflicts=again))
    if flips:
        values = sparql_terms(value_node(c, i) for c, (_, count) in sorted(flips.items()) for i in range(count))
        operations.append(DELETE_PREFERENCES.substitute(values=values, conflicts=flipped))
    operations += [DELETE_RUN, INSERT.substitute(triples="\n".join(lines))]
    if activities:
        operations.append(DELETE_UNNAMED.substitute(activities=activities))
    backend.update(" ;\n".join(operations), prefixes=PREFIXES)


# ---------------------------------------------------------------------- reading conflicts


def conflict_iris(backend: Backend, *, subject: str | None = None, predicate: str | None = None) -> list[str] | None:
    """The stored conflicts about ``subject`` (the entity or a merged IRI) with ``predicate``;
    None without either filter (every conflict)."""
    if subject is None and predicate is None:
        return None
    terms: dict[str, Term] = {"subject": NamedNode(subject)} if subject is not None else {}
    if predicate is not None:
        terms["predicate"] = NamedNode(predicate)
    query = WITH if subject is None else ABOUT if predicate is None else ABOUT_WITH
    return sorted({r.value("c") for r in backend.select(query, substitutions=terms)})


def competing_statements(backend: Backend, conflicts: Sequence[str] | None) -> list[str]:
    """The statements the stored conflicts (``conflicts``, or all) cite."""
    if conflicts is not None and not conflicts:
        return []
    return [r.value("st") for r in backend.select(COMPETING.substitute(conflicts=_values(conflicts)))]


@dataclass(frozen=True)
class _Head:
    """What a stored conflict says of itself."""

    kind: ConflictKind
    subject: str
    strategy: ResolutionStrategy
    rationale: str
    first: datetime
    activity: str


@dataclass
class _Value:
    """A stored value of a conflict, its score and claims read after it."""

    value: str
    predicate: str
    outcome: ValueOutcome
    score: float | None = None
    claims: list[ValueClaim] = field(default_factory=list)


def read(
    backend: Backend,
    claims: dict[str, ValueClaim],
    *,
    conflicts: Sequence[str] | None = None,
) -> list[Conflict]:
    """The stored conflicts (those of :func:`conflict_iris`, or all), with the claims of their
    statements from ``claims`` (statement IRI to claim)."""
    if conflicts is not None and not conflicts:
        return []
    heads, values = _heads(backend, conflicts)
    by_node = {node: v for of in values.values() for node, v in of.items()}
    scores, statements = _value_details(backend, list(by_node) if conflicts is not None else None)
    for node, score in scores.items():
        if node in by_node:
            by_node[node].score = score
    for node, st in statements:
        found = by_node.get(node)
        if found is not None and st in claims and claims[st] not in found.claims:
            found.claims.append(claims[st])
    activities = sparql_terms(sorted({h.activity for h in heads.values()}))
    ended = {r.value("a"): r.moment("t") for r in backend.select(ENDED.substitute(activities=activities))}
    merged = _multi(backend, MERGED, list(heads))
    predicates = _multi(backend, PREDICATES, list(heads))
    return [  # by IRI, as an ORDER BY would, which cost more
        _conflict(c, head, values[c], merged.get(c, []), predicates.get(c, []), ended.get(head.activity))
        for c, head in sorted(heads.items())
    ]


def _heads(backend: Backend, conflicts: Sequence[str] | None) -> tuple[dict[str, _Head], dict[str, dict[str, _Value]]]:
    """The stored conflicts (``conflicts``, or all), and the values of each by value node."""
    rows = _values(conflicts)
    heads: dict[str, _Head] = {}
    for r in backend.stream(HEADS.substitute(conflicts=rows)):
        heads.setdefault(
            r.value("c"),
            _Head(
                kind=ConflictKind(r.value("kind").rsplit("#", 1)[-1].removesuffix("Conflict").lower()),
                subject=r.value("s"),
                strategy=ResolutionStrategy.from_iri(r.value("strategy")),
                rationale=r.value("why"),
                first=r.moment("first"),
                activity=r.value("act"),
            ),
        )
    values: dict[str, dict[str, _Value]] = {}
    for r in backend.stream(VALUE_NODES.substitute(conflicts=rows)):
        c, node = r.value("c"), r.value("v")
        if c in heads and node not in values.setdefault(c, {}):
            values[c][node] = _Value(str(r["value"]), r.value("vp"), _outcome(r, "outcome"))
    heads = {c: head for c, head in heads.items() if c in values}  # a conflict is read with its values
    return heads, values


def _conflict(
    iri: str,
    head: _Head,
    values: dict[str, _Value],
    merged: list[str],
    predicates: list[str],
    ended: datetime | None,
) -> Conflict:
    out = []
    preferred = None
    for node in sorted(values, key=lambda k: int(k.rsplit("/", 1)[-1])):
        e = values[node]
        value = ConflictValue(
            value=e.value,
            predicate=e.predicate,
            members=sorted({x.object for x in e.claims}),
            sources=sorted({x.source for x in e.claims}),
            claims=e.claims,
            outcome=e.outcome,
            score=e.score,
            confidence=aggregate_by_source((x.source, x.confidence) for x in e.claims),
        )
        if value.outcome is ValueOutcome.PREFERRED:
            preferred = value.value
        out.append(value)
    return Conflict(
        iri=iri,
        kind=head.kind,
        subject=head.subject,
        merged_subjects=merged,
        predicates=predicates,
        values=out,
        resolution=Resolution(
            strategy=head.strategy,
            preferred=preferred,
            rationale=head.rationale,
            activity=head.activity,
            resolved_at=ended,
        ),
        first_detected=head.first,
    )


def _value_details(backend: Backend, values: list[str] | None) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """The score of each of the given value nodes (or of every value) that has one, and their
    (value node, statement) pairs in statement order."""
    scores: dict[str, float] = {}
    statements: list[tuple[str, str]] = []
    for chunk in _chunks(values):
        for r in backend.stream(VALUE_DETAILS.substitute(values=_values(chunk))):
            if r.value("k") == "score":
                scores[r.value("v")] = r.number("o")
            else:
                statements.append((r.value("v"), r.value("o")))
    statements.sort()  # in Python: an ORDER BY cost Oxigraph more than the query
    return scores, statements


def _multi(backend: Backend, query: Template, conflicts: list[str]) -> dict[str, list[str]]:
    """``query`` (MERGED, PREDICATES) of each of ``conflicts``: its ?x values, in order."""
    found: dict[str, list[str]] = {}
    for chunk in _chunks(conflicts):
        for r in backend.select(query.substitute(conflicts=_values(chunk))):
            found.setdefault(r.value("c"), []).append(r.value("x"))
    return found


def statement_outcomes(backend: Backend, statements: Sequence[str]) -> dict[str, tuple[str, int, ValueOutcome]]:
    """For statements a stored conflict involves, the conflict, the index of their value and its
    outcome."""
    if not statements:
        return {}
    rows = backend.select(OUTCOMES.substitute(statements=sparql_terms(statements)))
    return {r.value("st"): (r.value("c"), int(r.value("v").rsplit("/", 1)[1]), _outcome(r, "outcome")) for r in rows}


__all__ = [
    "VERSION",
    "Agreement",
    "Pattern",
    "Run",
    "competing_statements",
    "conflict_iris",
    "first_detected",
    "items",
    "last_run",
    "pattern_text",
    "read",
    "stamp",
    "statement_outcomes",
    "states",
    "stored_state",
    "trust_conflicts",
    "update",
    "value_node",
    "vote_patterns",
    "write",
]
