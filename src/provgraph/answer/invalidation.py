"""Revocation and its cascade over the recorded answers.

Revoking a source (its current version) writes a tombstone in ``pgid:revocations``: who, when,
why (a ``pg:Revocation``, ``prov:Activity``; the graph ``prov:wasInvalidatedBy`` it at
``prov:invalidatedAtTime``), and invalidates every recorded answer whose context included a
segment derived from that graph, then every answer derived from those (``prov:wasDerivedFrom``
another answer), transitively. An invalidation is written to the answer log, beside the answer's
entry (``prov:wasInvalidatedBy`` the tombstone, ``pg:invalidationPath`` how it was reached), so
the answer graphs never change and stay readable.

Finding the answers is a lookup by the revoked graph's IRI in every answer graph (an index read,
not a scan of the answers), then one lookup per generation of derived answers.
"""

from __future__ import annotations

import getpass
import hashlib
import json
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.record import answer_iri
from provgraph.errors import InputError
from provgraph.models import SourceInfo
from provgraph.store.base import Backend
from provgraph.store.terms import Literal, NamedNode, sparql_term, sparql_terms
from provgraph.vocab import ANSWERS_GRAPH, ID_NS, PG, PROV_NS, RDF_NS, RDFS_NS, REVOCATIONS_GRAPH, XSD_NS

#: A revocation invalidating more answers than this needs ``confirm``.
MAX_INVALIDATED = 100
_ANSWER = f"{ID_NS}answer/"
_CHUNK = 500


class Invalidation(BaseModel):
    """One answer a revocation invalidated, and how it was reached: the revoked graph, the
    segment of the answer's context derived from it, the answer; then each answer derived from
    the one before."""

    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="the invalidated answer's id")
    path: list[str] = Field(description="IRIs from the revoked graph to the answer")


class Revocation(BaseModel):
    """What ``revoke`` did: the tombstone, the source, and every answer it invalidated."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="IRI of the tombstone (the pg:Revocation activity)")
    revoked: str = Field(description="IRI of the revoked source graph")
    reason: str
    by: str
    at: datetime
    source: SourceInfo
    invalidated: list[Invalidation] = Field(default_factory=list)


def check_reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise InputError("a revocation needs a reason")
    if len(reason) > 2000:
        raise InputError("the reason of a revocation is at most 2,000 characters")
    return reason


def default_agent() -> str:
    """Who revokes, when the caller does not say: the user running the process."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown user"


def affected(backend: Backend, graph: NamedNode) -> list[Invalidation]:
    """Every valid answer whose context derives from ``graph``, then every valid answer derived
    from those (transitively), each with its path; in the order found."""
    rows = backend.select(
        f"""SELECT ?a (MIN(STR(?segment)) AS ?s) WHERE {{
          GRAPH ?a {{ ?segment pg:sourceGraph {sparql_term(graph)} }}
          FILTER(STRSTARTS(STR(?a), {sparql_term(Literal(_ANSWER))}))
          FILTER NOT EXISTS {{ GRAPH pgid:answers {{ ?a prov:wasInvalidatedBy ?earlier }} }}
        }} GROUP BY ?a ORDER BY ?a"""
    )
    paths: dict[str, list[str]] = {r.value("a"): [graph.value, r.value("s"), r.value("a")] for r in rows}
    frontier = list(paths)
    while frontier:
        found: list[str] = []
        for start in range(0, len(frontier), _CHUNK):
            chunk = frontier[start : start + _CHUNK]
            for row in backend.select(
                f"""SELECT ?b ?a WHERE {{
                  VALUES ?a {{ {sparql_terms(NamedNode(a) for a in chunk)} }}
                  GRAPH ?b {{ ?b prov:wasDerivedFrom ?a }}
                  FILTER NOT EXISTS {{ GRAPH pgid:answers {{ ?b prov:wasInvalidatedBy ?earlier }} }}
                }} ORDER BY ?b"""
            ):
                b = row.value("b")
                if b not in paths:
                    paths[b] = [*paths[row.value("a")], b]
                    found.append(b)
        frontier = found
    return [Invalidation(answer=a.rsplit("/", 1)[1], path=p) for a, p in paths.items()]


def tombstone_iri(graph: NamedNode, at: str, reason: str) -> NamedNode:
    digest = hashlib.sha256("\n".join([graph.value, at, reason]).encode("utf-8")).hexdigest()
    return NamedNode(f"{ID_NS}revocation/{digest}")


def agent_iri(by: str) -> NamedNode:
    return NamedNode(f"{ID_NS}agent/person/{hashlib.sha256(by.encode('utf-8')).hexdigest()[:32]}")


def update(
    tombstone: NamedNode,
    *,
    graph: NamedNode,
    document: NamedNode,
    reason: str,
    by: str,
    at: str,
    invalidated: Sequence[Invalidation],
) -> str:
    """The INSERT DATA of the tombstone and of the invalidations (part of revoke's one update)."""
    moment = str(Literal(at, datatype=NamedNode(XSD_NS + "dateTime")))
    agent = agent_iri(by)
    rdf_type, label = f"<{RDF_NS}type>", f"<{RDFS_NS}label>"
    invalidated_by, invalidated_at = f"<{PROV_NS}wasInvalidatedBy>", f"<{PROV_NS}invalidatedAtTime>"
    stone = [
        f"{tombstone} {rdf_type} {PG.Revocation}",
        f"{tombstone} {rdf_type} <{PROV_NS}Activity>",
        f"{tombstone} <{PROV_NS}wasAssociatedWith> {agent}",
        f"{tombstone} <{PROV_NS}endedAtTime> {moment}",
        f"{tombstone} {PG.reason} {Literal(reason)}",
        f"{tombstone} {PG.revoked} {graph}",
        f"{tombstone} {PG.revokedDocument} {document}",
        f"{tombstone} {PG.invalidatedAnswers} {Literal(str(len(invalidated)), datatype=NamedNode(XSD_NS + 'integer'))}",
        f"{agent} {rdf_type} <{PROV_NS}Agent>",
        f"{agent} {label} {Literal(by)}",
        f"{graph} {invalidated_by} {tombstone}",
        f"{graph} {invalidated_at} {moment}",
    ]
    log: list[str] = []
    for item in invalidated:
        node = answer_iri(item.answer)
        log += [
            f"{node} {invalidated_by} {tombstone}",
            f"{node} {invalidated_at} {moment}",
            f"{node} {PG.invalidationPath} {Literal(json.dumps(item.path))}",
        ]
    separator = " .\n"
    body = f"GRAPH {REVOCATIONS_GRAPH} {{\n{separator.join(stone)} .\n}}"
    if log:
        body += f"\nGRAPH {ANSWERS_GRAPH} {{\n{separator.join(log)} .\n}}"
    return f"INSERT DATA {{\n{body}\n}}"


__all__ = [
    "MAX_INVALIDATED",
    "Invalidation",
    "Revocation",
    "affected",
    "check_reason",
    "default_agent",
    "tombstone_iri",
    "update",
]
