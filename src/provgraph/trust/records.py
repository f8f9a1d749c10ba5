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
(``pg:ToleranceAgreement``: truth discovery learns from them), and the graph keeps the source
accuracies (``pg:sourceAccuracy``) and the entity resolution (``pg:entityMap``) of the last run.

Conflict IRIs are content-addressed (kind, entity, predicates), so a conflict that persists across
runs keeps its IRI and its ``pg:firstDetected`` time; one that new data resolved disappears, and a
new one appears. Source statements are never touched: a losing value is only marked
``pg:Rejected`` here.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pyoxigraph import Literal, NamedNode, QuerySolutions, RdfFormat, parse, serialize

from provgraph.store.base import Backend
from provgraph.store.derived import Stamp
from provgraph.trust.models import (
    Conflict,
    ConflictKind,
    ConflictValue,
    Resolution,
    ResolutionStrategy,
    ValueClaim,
    ValueOutcome,
)
from provgraph.vocab import CONFLICT_GRAPH, PG_NS, PROV_NS, RDF_NS, XSD_NS

_G = f"<{CONFLICT_GRAPH.value}>"
_TYPE = f"<{RDF_NS}type>"
#: Bumped when what the records hold changes: records of another version are rebuilt.
VERSION = 2


def _lit(value: str | float, datatype: str | None = None) -> str:
    if isinstance(value, float):
        return str(Literal(repr(value), datatype=NamedNode(XSD_NS + "double")))
    return str(Literal(value) if datatype is None else Literal(value, datatype=NamedNode(datatype)))


def _dt(when: datetime) -> str:
    return _lit(when.astimezone(UTC).isoformat().replace("+00:00", "Z"), XSD_NS + "dateTime")


def _pg(local: str) -> str:
    return f"<{PG_NS}{local}>"


def last_run(backend: Backend) -> dict[str, object]:
    """The parameters of the last run (empty: never run)."""
    result = backend.query(
        f"""SELECT ?params WHERE {{ GRAPH {_G} {{ {_G} <{PROV_NS}wasGeneratedBy> ?act .
  ?act {_pg("parameters")} ?params }} }}"""
    )
    assert isinstance(result, QuerySolutions)
    for row in result:
        return json.loads(row["params"].value)  # type: ignore[no-any-return,union-attr]
    return {}


def stamp(backend: Backend) -> Stamp | None:
    """The store state the records reflect; None when there are none, or of another version."""
    result = backend.query(
        f"""SELECT ?n ?log ?v WHERE {{ GRAPH {_G} {{ {_G} {_pg("generation")} ?n ; {_pg("changeLog")} ?log ;
  {_pg("recordsVersion")} ?v }} }}"""
    )
    assert isinstance(result, QuerySolutions)
    for row in result:
        if int(row["v"].value) != VERSION:  # type: ignore[union-attr]
            return None
        return Stamp(row["log"].value, int(row["n"].value))  # type: ignore[union-attr]
    return None


def stored_state(backend: Backend) -> tuple[dict[str, float], dict[str, str]]:
    """The source accuracies and the entity resolution of the records (empty: none)."""
    result = backend.query(
        f"""SELECT ?acc ?map WHERE {{ GRAPH {_G} {{ {_G} {_pg("sourceAccuracy")} ?acc ; {_pg("entityMap")} ?map }} }}"""
    )
    assert isinstance(result, QuerySolutions)
    for row in result:
        return json.loads(row["acc"].value), json.loads(row["map"].value)  # type: ignore[union-attr]
    return {}, {}


def first_detected(backend: Backend, conflicts: Sequence[str] | None = None) -> dict[str, datetime]:
    """When each stored conflict (of ``conflicts``, or every one) was first detected."""
    if conflicts is not None and not conflicts:
        return {}
    first: dict[str, datetime] = {}
    chunks = [None] if conflicts is None else [conflicts[i : i + 500] for i in range(0, len(conflicts), 500)]
    for chunk in chunks:
        bound = "" if chunk is None else f"VALUES ?c {{ {' '.join(f'<{c}>' for c in chunk)} }}"
        query = f"SELECT ?c ?t WHERE {{ {bound} GRAPH {_G} {{ ?c {_pg('firstDetected')} ?t }} }}"
        for row in _solutions(backend, query):
            first[row["c"].value] = datetime.fromisoformat(row["t"].value.replace("Z", "+00:00"))  # type: ignore[union-attr]
    return first


def items(backend: Backend, keys: Iterable[tuple[str, str]] | None = None) -> dict[str, str]:
    """The stored items (conflicts and agreements) of the (entity, predicate) ``keys``, or every
    one: their IRI and resolution input (JSON)."""
    found: dict[str, str] = {}
    wanted = None if keys is None else sorted(set(keys))
    if wanted is None:
        query = f"SELECT ?c ?state WHERE {{ GRAPH {_G} {{ ?c {_pg('resolutionInput')} ?state }} }}"
        for row in _solutions(backend, query):
            found[row["c"].value] = row["state"].value  # type: ignore[union-attr]
        return found
    for i in range(0, len(wanted), 400):
        bound = " ".join(f"(<{e}> <{p}>)" for e, p in wanted[i : i + 400])
        query = f"""SELECT ?c ?state WHERE {{ VALUES (?e ?p) {{ {bound} }} GRAPH {_G} {{
  {{ ?c {_pg("conflictSubject")} ?e ; {_pg("conflictPredicate")} ?p }}
  UNION {{ ?c {_pg("agreementSubject")} ?e ; {_pg("agreementPredicate")} ?p }}
  ?c {_pg("resolutionInput")} ?state }} }}"""
        for row in _solutions(backend, query):
            found[row["c"].value] = row["state"].value  # type: ignore[union-attr]
    return found


@dataclass(frozen=True)
class Agreement:
    """An item whose values all agree within tolerance: no conflict, but truth discovery learns
    from it."""

    iri: str
    subject: str
    predicates: tuple[str, ...]
    state: str


def _graph_lines(
    *,
    activity: str,
    started: datetime,
    ended: datetime,
    parameters: dict[str, object],
    accuracy: dict[str, float],
    mapping: dict[str, str],
) -> list[str]:
    return [
        f"{_G} {_TYPE} {_pg('ConflictGraph')} ; <{PROV_NS}wasGeneratedBy> <{activity}> ;"
        f" {_pg('sourceAccuracy')} {_lit(json.dumps(accuracy, sort_keys=True))} ;"
        f" {_pg('entityMap')} {_lit(json.dumps(mapping, sort_keys=True))} .",
        f"<{activity}> {_TYPE} {_pg('ResolutionActivity')} , <{PROV_NS}Activity> ;"
        f" <{PROV_NS}startedAtTime> {_dt(started)} ; <{PROV_NS}endedAtTime> {_dt(ended)} ;"
        f" {_pg('parameters')} {_lit(json.dumps(parameters, sort_keys=True))} .",
    ]


def _stamp_line(target: Stamp) -> str:
    return (
        f"{_G} {_pg('generation')} {_lit(str(target.generation), XSD_NS + 'integer')} ;"
        f" {_pg('changeLog')} {_lit(target.log)} ;"
        f" {_pg('recordsVersion')} {_lit(str(VERSION), XSD_NS + 'integer')} ."
    )


def _conflict_lines(c: Conflict, state: str, *, activity: str, started: datetime) -> list[str]:
    node = f"<{c.iri}>"
    lines = [
        f"{node} {_TYPE} {_pg('Conflict')} ; {_pg('conflictKind')} <{c.kind.iri}> ;"
        f" {_pg('conflictSubject')} <{c.subject}> ; {_pg('strategy')} <{c.resolution.strategy.iri}> ;"
        f" {_pg('rationale')} {_lit(c.resolution.rationale)} ; <{PROV_NS}wasGeneratedBy> <{activity}> ;"
        f" {_pg('firstDetected')} {_dt(c.first_detected or started)} ; {_pg('resolutionInput')} {_lit(state)} ."
    ]
    lines += [f"{node} {_pg('conflictPredicate')} <{p}> ." for p in c.predicates]
    lines += [f"{node} {_pg('mergedEntity')} <{m}> ." for m in c.merged_subjects]
    for i, v in enumerate(c.values):
        vnode = f"<{c.iri}/value/{i}>"
        lines.append(
            f"{node} {_pg('hasValue')} {vnode} . {vnode} {_TYPE} {_pg('ConflictValue')} ;"
            f" {_pg('value')} {v.value} ; {_pg('valuePredicate')} <{v.predicate}> ;"
            f" {_pg('outcome')} <{v.outcome.iri}> ."
        )
        if v.score is not None and v.score == v.score and abs(v.score) != float("inf"):
            lines.append(f"{vnode} {_pg('score')} {_lit(float(v.score))} .")
        if v.outcome is ValueOutcome.PREFERRED:
            lines.append(f"{node} {_pg('preferredValue')} {vnode} .")
        lines += [f"{vnode} {_pg('competingStatement')} <{x.statement}> ." for x in v.claims]
        lines += [f"{vnode} {_pg('sourceKey')} {_lit(s)} ." for s in v.sources]
    return lines


def _agreement_lines(a: Agreement) -> list[str]:
    node = f"<{a.iri}>"
    return [
        f"{node} {_TYPE} {_pg('ToleranceAgreement')} ; {_pg('agreementSubject')} <{a.subject}> ;"
        f" {_pg('resolutionInput')} {_lit(a.state)} ."
    ] + [f"{node} {_pg('agreementPredicate')} <{p}> ." for p in a.predicates]


def write(
    backend: Backend,
    conflicts: Sequence[Conflict],
    *,
    states: dict[str, str],
    agreements: Sequence[Agreement],
    activity: str,
    started: datetime,
    ended: datetime,
    parameters: dict[str, object],
    accuracy: dict[str, float],
    mapping: dict[str, str],
    target: Stamp,
) -> None:
    """Replace the conflict graph with ``conflicts`` (``states``: each one's resolution input)
    and ``agreements``, stamped ``target``."""
    lines = _graph_lines(
        activity=activity, started=started, ended=ended, parameters=parameters, accuracy=accuracy, mapping=mapping
    )
    for c in conflicts:
        lines += _conflict_lines(c, states[c.iri], activity=activity, started=started)
    for a in agreements:
        lines += _agreement_lines(a)
    body = "\n".join(lines)
    quads = parse(f"{_G} {{\n{body}\n}}\n".encode(), format=RdfFormat.TRIG)
    # Not one transaction: SPARQL INSERT DATA was 5x slower, and a transactional load 3x slower,
    # than the bulk loader at 1M facts. The stamp is written last, in its own step: if the
    # process dies before, the graph has none and the next read computes the records again.
    backend.update(f"DROP SILENT GRAPH {_G}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conflicts.nq"
        with path.open("wb") as f:
            serialize(quads, f, format=RdfFormat.N_QUADS)
        backend.load_quads(path, bulk=True)
    backend.update(f"INSERT DATA {{ GRAPH {_G} {{ {_stamp_line(target)} }} }}")


def update(
    backend: Backend,
    *,
    removed: Sequence[str],
    conflicts: Sequence[Conflict],
    resolved: Sequence[Conflict],
    states: dict[str, str],
    agreements: Sequence[Agreement],
    activity: str,
    started: datetime,
    ended: datetime,
    parameters: dict[str, object],
    accuracy: dict[str, float],
    mapping: dict[str, str],
    target: Stamp,
) -> None:
    """In one transaction: take out the items ``removed``, write ``conflicts`` (``states``: each
    one's resolution input) and ``agreements``, rewrite the resolution of the conflicts
    ``resolved`` (their values' outcomes and scores, the preferred value, the rationale), store
    the new accuracies and the stamp ``target``, and drop the resolution activities no record
    names any more."""
    out = " ".join(f"<{c}>" for c in sorted(set(removed) | {c.iri for c in conflicts}))
    again = " ".join(f"<{c.iri}>" for c in resolved)
    lines = _graph_lines(
        activity=activity, started=started, ended=ended, parameters=parameters, accuracy=accuracy, mapping=mapping
    )
    lines.append(_stamp_line(target))
    for c in conflicts:
        lines += _conflict_lines(c, states[c.iri], activity=activity, started=started)
    for a in agreements:
        lines += _agreement_lines(a)
    for c in resolved:
        lines += _resolution_lines(c, activity=activity)
    was = f"<{PROV_NS}wasGeneratedBy>"
    own = " ".join(_pg(p) for p in ("generation", "changeLog", "recordsVersion", "sourceAccuracy", "entityMap"))
    # the activities the replaced records name: those no record names afterwards go too
    old = f"""SELECT DISTINCT ?a WHERE {{ GRAPH {_G} {{
  {{ VALUES ?c {{ {out} {again} }} ?c {was} ?a }} UNION {{ {_G} {was} ?a }} }} }}"""
    activities = " ".join(f"<{r['a'].value}>" for r in _solutions(backend, old))  # type: ignore[union-attr]
    operations = []
    if out:
        operations += [
            f"DELETE {{ GRAPH {_G} {{ ?v ?p ?o }} }} WHERE {{ VALUES ?c {{ {out} }} "
            f"GRAPH {_G} {{ ?c {_pg('hasValue')} ?v . ?v ?p ?o }} }}",
            f"DELETE {{ GRAPH {_G} {{ ?c ?p ?o }} }} WHERE {{ VALUES ?c {{ {out} }} GRAPH {_G} {{ ?c ?p ?o }} }}",
        ]
    if again:
        # each property a constant of its own, with the conflicts bound: from a VALUES of the
        # properties, Oxigraph read them over the whole graph (360 ms for 300 conflicts of 5,000)
        bound = f"VALUES ?c {{ {again} }}"
        for p in (_pg("outcome"), _pg("score")):
            pattern = f"?c {_pg('hasValue')} ?v . ?v {p} ?o"
            operations.append(f"DELETE {{ GRAPH {_G} {{ ?v {p} ?o }} }} WHERE {{ {bound} GRAPH {_G} {{ {pattern} }} }}")
        for p in (_pg("rationale"), _pg("preferredValue"), was):
            operations.append(f"DELETE {{ GRAPH {_G} {{ ?c {p} ?o }} }} WHERE {{ {bound} GRAPH {_G} {{ ?c {p} ?o }} }}")
    operations += [
        # the graph's own triples read by its subject, filtered: a VALUES of properties would be
        # read over the whole graph
        f"DELETE {{ GRAPH {_G} {{ {_G} ?p ?o }} }} WHERE {{ GRAPH {_G} {{ {_G} ?p ?o }} "
        f"FILTER(?p IN ({', '.join([*own.split(), was])})) }}",
        "INSERT DATA { GRAPH " + _G + " {\n" + "\n".join(lines) + "\n} }",
    ]
    if activities:
        operations.append(
            f"""DELETE {{ GRAPH {_G} {{ ?a ?p ?o }} }} WHERE {{ VALUES ?a {{ {activities} }} GRAPH {_G} {{ ?a ?p ?o
  FILTER NOT EXISTS {{ ?x {was} ?a }} }} }}"""
        )
    backend.update(" ;\n".join(operations))


def _resolution_lines(c: Conflict, *, activity: str) -> list[str]:
    """The triples of a conflict's record that its resolution decides."""
    node = f"<{c.iri}>"
    lines = [f"{node} {_pg('rationale')} {_lit(c.resolution.rationale)} ; <{PROV_NS}wasGeneratedBy> <{activity}> ."]
    for i, v in enumerate(c.values):
        vnode = f"<{c.iri}/value/{i}>"
        lines.append(f"{vnode} {_pg('outcome')} <{v.outcome.iri}> .")
        if v.score is not None and v.score == v.score and abs(v.score) != float("inf"):
            lines.append(f"{vnode} {_pg('score')} {_lit(float(v.score))} .")
        if v.outcome is ValueOutcome.PREFERRED:
            lines.append(f"{node} {_pg('preferredValue')} {vnode} .")
    return lines


def states(backend: Backend, conflicts: Sequence[str]) -> dict[str, str]:
    """The resolution input (JSON) of each of the stored ``conflicts``."""
    out: dict[str, str] = {}
    for i in range(0, len(conflicts), 500):
        values = " ".join(f"<{c}>" for c in conflicts[i : i + 500])
        query = f"SELECT ?c ?s WHERE {{ VALUES ?c {{ {values} }} GRAPH {_G} {{ ?c {_pg('resolutionInput')} ?s }} }}"
        for row in _solutions(backend, query):
            out[row["c"].value] = row["s"].value  # type: ignore[union-attr]
    return out


def conflict_iris(backend: Backend, *, subject: str | None = None, predicate: str | None = None) -> list[str] | None:
    """The stored conflicts about ``subject`` (the entity or a merged IRI) with ``predicate``;
    None without either filter (every conflict)."""
    if subject is None and predicate is None:
        return None
    patterns = ""
    if subject is not None:
        s = NamedNode(subject)
        patterns += f"{{ ?c {_pg('conflictSubject')} {s} }} UNION {{ ?c {_pg('mergedEntity')} {s} }} "
    if predicate is not None:
        patterns += f"?c {_pg('conflictPredicate')} {NamedNode(predicate)} ."
    query = f"SELECT DISTINCT ?c WHERE {{ GRAPH {_G} {{ {patterns} }} }} ORDER BY ?c"
    return [r["c"].value for r in _solutions(backend, query)]  # type: ignore[union-attr]


def competing_statements(backend: Backend, conflicts: Sequence[str] | None) -> list[str]:
    """The statements the stored conflicts (``conflicts``, or all) cite."""
    if conflicts is not None and not conflicts:
        return []
    bound = "" if conflicts is None else f"VALUES ?c {{ {' '.join(f'<{c}>' for c in conflicts)} }}"
    query = (
        f"SELECT DISTINCT ?st WHERE {{ {bound} GRAPH {_G} {{ ?c {_pg('hasValue')} ?v . "
        f"?v {_pg('competingStatement')} ?st }} }}"
    )
    return [r["st"].value for r in _solutions(backend, query)]  # type: ignore[union-attr]


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
    # bound first when filtered: Oxigraph then reads the few conflicts' triples, not the graph;
    # scores and statements come from a query of their own (as OPTIONALs here they were
    # evaluated over every value of the graph)
    bound = "" if conflicts is None else f"VALUES ?c {{ {' '.join(f'<{c}>' for c in conflicts)} }}"
    query = f"""SELECT ?c ?kind ?s ?strategy ?why ?first ?act ?v ?value ?vp ?outcome
WHERE {{ {bound} GRAPH {_G} {{
  ?c a {_pg("Conflict")} ; {_pg("conflictKind")} ?kind ; {_pg("conflictSubject")} ?s ; {_pg("strategy")} ?strategy ;
     {_pg("rationale")} ?why ; {_pg("firstDetected")} ?first ; <{PROV_NS}wasGeneratedBy> ?act ; {_pg("hasValue")} ?v .
  ?v {_pg("value")} ?value ; {_pg("valuePredicate")} ?vp ; {_pg("outcome")} ?outcome .
  }} }}"""
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    heads: dict[str, dict[str, object]] = {}
    values: dict[str, dict[str, dict[str, object]]] = {}
    by_value: dict[str, dict[str, object]] = {}
    for r in result:
        c = r["c"].value  # type: ignore[union-attr]
        if c not in heads:
            heads[c] = {
                "kind": ConflictKind(r["kind"].value.rsplit("#", 1)[-1].removesuffix("Conflict").lower()),  # type: ignore[union-attr]
                "subject": r["s"].value,  # type: ignore[union-attr]
                "strategy": ResolutionStrategy.from_iri(r["strategy"].value),  # type: ignore[union-attr]
                "why": r["why"].value,  # type: ignore[union-attr]
                "first": datetime.fromisoformat(r["first"].value.replace("Z", "+00:00")),  # type: ignore[union-attr]
                "act": r["act"].value,  # type: ignore[union-attr]
            }
        v = r["v"].value  # type: ignore[union-attr]
        entry = values.setdefault(c, {}).setdefault(
            v,
            {
                "value": str(r["value"]),
                "predicate": r["vp"].value,  # type: ignore[union-attr]
                "outcome": ValueOutcome(r["outcome"].value.rsplit("#", 1)[-1].lower()),  # type: ignore[union-attr]
                "score": None,
                "claims": [],
            },
        )
        by_value[v] = entry
    for v, prop, o in _value_details(backend, list(by_value) if conflicts is not None else None):
        found = by_value.get(v)
        if found is None:
            continue
        if prop == "score":
            found["score"] = float(o)
        elif o in claims and claims[o] not in found["claims"]:  # type: ignore[operator]
            found["claims"].append(claims[o])  # type: ignore[attr-defined]
    # activity times in a query of their own: an OPTIONAL for them in the query above made
    # Oxigraph evaluate it a thousand times slower
    acts = " ".join(sorted({f"<{h['act']}>" for h in heads.values()}))
    ended = {
        r["a"].value: datetime.fromisoformat(r["t"].value.replace("Z", "+00:00"))  # type: ignore[union-attr]
        for r in _solutions(
            backend, f"SELECT ?a ?t WHERE {{ VALUES ?a {{ {acts} }} GRAPH {_G} {{ ?a <{PROV_NS}endedAtTime> ?t }} }}"
        )
    }
    merged = _merged(backend, list(heads))
    predicates = _predicates(backend, list(heads))
    from provgraph.trust.confidence import aggregate_by_source

    out = []
    for c, head in sorted(heads.items()):  # by IRI, as an ORDER BY would, which cost more
        vals = []
        preferred = None
        for v in sorted(values[c], key=lambda k: int(k.rsplit("/", 1)[-1])):
            e = values[c][v]
            cl: list[ValueClaim] = e["claims"]  # type: ignore[assignment]
            value = ConflictValue(
                value=e["value"],  # type: ignore[arg-type]
                predicate=e["predicate"],  # type: ignore[arg-type]
                members=sorted({x.object for x in cl}),
                sources=sorted({x.source for x in cl}),
                claims=cl,
                outcome=e["outcome"],  # type: ignore[arg-type]
                score=e["score"],  # type: ignore[arg-type]
                confidence=aggregate_by_source((x.source, x.confidence) for x in cl),
            )
            if value.outcome is ValueOutcome.PREFERRED:
                preferred = value.value
            vals.append(value)
        out.append(
            Conflict(
                iri=c,
                kind=head["kind"],  # type: ignore[arg-type]
                subject=head["subject"],  # type: ignore[arg-type]
                merged_subjects=merged.get(c, []),
                predicates=predicates.get(c, []),
                values=vals,
                resolution=Resolution(
                    strategy=head["strategy"],  # type: ignore[arg-type]
                    preferred=preferred,
                    rationale=head["why"],  # type: ignore[arg-type]
                    activity=head["act"],  # type: ignore[arg-type]
                    resolved_at=ended.get(head["act"]),  # type: ignore[arg-type,call-overload]
                ),
                first_detected=head["first"],  # type: ignore[arg-type]
            )
        )
    return out


def _value_details(backend: Backend, values: list[str] | None) -> list[tuple[str, str, str]]:
    """(value node, 'score' or 'statement', score or statement IRI) of the given value nodes, or
    of every value, in statement order."""
    out: list[tuple[str, str, str]] = []
    chunks = [None] if values is None else [values[i : i + 500] for i in range(0, len(values), 500)]
    for chunk in chunks:
        bound = "" if chunk is None else f"VALUES ?v {{ {' '.join(f'<{v}>' for v in chunk)} }}"
        # each property bound: read from its index, not by filtering every triple of the graph
        query = f"""SELECT ?v ?k ?o WHERE {{ {bound} GRAPH {_G} {{
  {{ ?v {_pg("score")} ?o BIND("score" AS ?k) }} UNION {{ ?v {_pg("competingStatement")} ?o BIND("statement" AS ?k) }}
}} }}"""
        for r in _solutions(backend, query):
            out.append((r["v"].value, r["k"].value, r["o"].value))  # type: ignore[union-attr]
    out.sort()  # in Python: an ORDER BY cost Oxigraph more than the query
    return out


def _solutions(backend: Backend, query: str) -> QuerySolutions:
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    return result


def _multi(backend: Backend, conflicts: list[str], prop: str) -> dict[str, list[str]]:
    if not conflicts:
        return {}
    found: dict[str, list[str]] = {}
    for i in range(0, len(conflicts), 500):
        values = " ".join(f"<{c}>" for c in conflicts[i : i + 500])
        result = backend.query(
            f"SELECT ?c ?x WHERE {{ VALUES ?c {{ {values} }} GRAPH {_G} {{ ?c {_pg(prop)} ?x }} }} ORDER BY ?c ?x"
        )
        assert isinstance(result, QuerySolutions)
        for r in result:
            found.setdefault(r["c"].value, []).append(r["x"].value)  # type: ignore[union-attr]
    return found


def _merged(backend: Backend, conflicts: list[str]) -> dict[str, list[str]]:
    return _multi(backend, conflicts, "mergedEntity")


def _predicates(backend: Backend, conflicts: list[str]) -> dict[str, list[str]]:
    return _multi(backend, conflicts, "conflictPredicate")


def statement_outcomes(backend: Backend, statements: Sequence[str]) -> dict[str, tuple[str, ValueOutcome]]:
    """For statements a stored conflict involves, the conflict and the outcome of their value."""
    if not statements:
        return {}
    values = " ".join(f"<{s}>" for s in statements)
    result = backend.query(
        f"SELECT ?st ?c ?o WHERE {{ VALUES ?st {{ {values} }} GRAPH {_G} {{ ?v {_pg('competingStatement')} ?st ;"
        f" {_pg('outcome')} ?o . ?c {_pg('hasValue')} ?v }} }}"
    )
    assert isinstance(result, QuerySolutions)
    return {
        r["st"].value: (r["c"].value, ValueOutcome(r["o"].value.rsplit("#", 1)[-1].lower()))  # type: ignore[union-attr]
        for r in result
    }


__all__ = [
    "VERSION",
    "Agreement",
    "competing_statements",
    "conflict_iris",
    "first_detected",
    "items",
    "last_run",
    "read",
    "stamp",
    "statement_outcomes",
    "states",
    "stored_state",
    "update",
    "write",
]
