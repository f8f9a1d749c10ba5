"""The conflict records graph ``pgid:conflicts``: one ``pg:Conflict`` per conflict, with its
kind, subject, predicates, competing values (``pg:ConflictValue``: the value, its statements,
its sources, its outcome and score), the strategy, the preferred value, the rationale, and the
``pg:ResolutionActivity`` (a ``prov:Activity`` with its time and parameters) that resolved it.

A run rewrites the graph: dropped, bulk-loaded, then stamped with the fingerprint of its input
(a reader before the stamp sees no valid records and runs detection itself). Conflict IRIs are
content-addressed (kind, entity, predicates), so a conflict that persists across runs keeps its
IRI and its ``pg:firstDetected`` time; one that new data resolved disappears, and a new one
appears. Source statements are never touched: a losing value is only marked ``pg:Rejected`` here.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from pyoxigraph import Literal, NamedNode, QuerySolutions, RdfFormat, parse, serialize

from provgraph.store.base import Backend
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


def _lit(value: str | float, datatype: str | None = None) -> str:
    if isinstance(value, float):
        return str(Literal(repr(value), datatype=NamedNode(XSD_NS + "double")))
    return str(Literal(value) if datatype is None else Literal(value, datatype=NamedNode(datatype)))


def _dt(when: datetime) -> str:
    return _lit(when.astimezone(UTC).isoformat().replace("+00:00", "Z"), XSD_NS + "dateTime")


def _pg(local: str) -> str:
    return f"<{PG_NS}{local}>"


def last_run(backend: Backend) -> tuple[str | None, dict[str, object]]:
    """The input fingerprint (None: never run) and the parameters of the last run."""
    result = backend.query(
        f"""SELECT ?f ?params WHERE {{ GRAPH {_G} {{ {_G} {_pg("inputFingerprint")} ?f ;
        <{PROV_NS}wasGeneratedBy> ?act . ?act {_pg("parameters")} ?params }} }}"""
    )
    assert isinstance(result, QuerySolutions)
    for row in result:
        return row["f"].value, json.loads(row["params"].value)  # type: ignore[union-attr]
    return None, {}


def stored_state(backend: Backend) -> tuple[str | None, dict[str, datetime]]:
    """The input fingerprint of the last run (None: never run) and each conflict's first detection."""
    fingerprint, _ = last_run(backend)
    first: dict[str, datetime] = {}
    result = backend.query(f"SELECT ?c ?t WHERE {{ GRAPH {_G} {{ ?c {_pg('firstDetected')} ?t }} }}")
    assert isinstance(result, QuerySolutions)
    for row in result:
        first[row["c"].value] = datetime.fromisoformat(row["t"].value.replace("Z", "+00:00"))  # type: ignore[union-attr]
    return fingerprint, first


def write(
    backend: Backend,
    conflicts: Sequence[Conflict],
    *,
    activity: str,
    started: datetime,
    ended: datetime,
    parameters: dict[str, object],
    fingerprint: str,
) -> None:
    """Replace the conflict graph with ``conflicts``."""
    lines = [
        f"{_G} {_TYPE} {_pg('ConflictGraph')} ; <{PROV_NS}wasGeneratedBy> <{activity}> .",
        f"<{activity}> {_TYPE} {_pg('ResolutionActivity')} , <{PROV_NS}Activity> ;"
        f" <{PROV_NS}startedAtTime> {_dt(started)} ; <{PROV_NS}endedAtTime> {_dt(ended)} ;"
        f" {_pg('parameters')} {_lit(json.dumps(parameters, sort_keys=True))} .",
    ]
    for c in conflicts:
        node = f"<{c.iri}>"
        lines.append(
            f"{node} {_TYPE} {_pg('Conflict')} ; {_pg('conflictKind')} <{c.kind.iri}> ;"
            f" {_pg('conflictSubject')} <{c.subject}> ; {_pg('strategy')} <{c.resolution.strategy.iri}> ;"
            f" {_pg('rationale')} {_lit(c.resolution.rationale)} ; <{PROV_NS}wasGeneratedBy> <{activity}> ;"
            f" {_pg('firstDetected')} {_dt(c.first_detected or started)} ."
        )
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
    body = "\n".join(lines)
    quads = parse(f"{_G} {{\n{body}\n}}\n".encode(), format=RdfFormat.TRIG)
    # Not one transaction: SPARQL INSERT DATA was 5x slower, and a transactional load 3x slower,
    # than the bulk loader at 1M facts. The fingerprint is written last, in its own step: if the
    # process dies before, the graph has none and the next read runs detection again.
    backend.update(f"DROP SILENT GRAPH {_G}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conflicts.nq"
        with path.open("wb") as f:
            serialize(quads, f, format=RdfFormat.N_QUADS)
        backend.load_quads(path, bulk=True)
    backend.update(f"INSERT DATA {{ GRAPH {_G} {{ {_G} {_pg('inputFingerprint')} {_lit(fingerprint)} }} }}")


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
    ended = {
        r["a"].value: datetime.fromisoformat(r["t"].value.replace("Z", "+00:00"))  # type: ignore[union-attr]
        for r in _solutions(backend, f"SELECT ?a ?t WHERE {{ GRAPH {_G} {{ ?a <{PROV_NS}endedAtTime> ?t }} }}")
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


def statement_outcomes(backend: Backend, statements: Sequence[str]) -> dict[str, ValueOutcome]:
    """For statements a stored conflict involves, the outcome of their value."""
    if not statements:
        return {}
    values = " ".join(f"<{s}>" for s in statements)
    result = backend.query(
        f"SELECT ?st ?o WHERE {{ VALUES ?st {{ {values} }} GRAPH {_G} {{ ?v {_pg('competingStatement')} ?st ;"
        f" {_pg('outcome')} ?o }} }}"
    )
    assert isinstance(result, QuerySolutions)
    return {r["st"].value: ValueOutcome(r["o"].value.rsplit("#", 1)[-1].lower()) for r in result}  # type: ignore[union-attr]


__all__ = ["last_run", "read", "statement_outcomes", "stored_state", "write"]
