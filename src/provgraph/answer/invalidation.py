"""Revocation and its cascade over the recorded answers.

What can be revoked (:class:`RevocationTarget`):

- a source (its current version): it leaves the current view; answers whose context has a
  segment with ``pg:sourceGraph`` the graph are invalidated;
- one statement of a current source: evidence lookups, retrieval and conflict detection leave it
  out (:mod:`provgraph.store.revocations`), its graph stays current; answers whose context has a
  segment ``prov:wasDerivedFrom`` the statement are invalidated;
- one context segment of recorded answers: the answers that included it are invalidated, and the
  evidence item it showed (the same evidence id in every ask) is never retrieved again. An
  instruction segment has no evidence item: revoking it invalidates the answers only.

Each writes a tombstone in ``pgid:revocations``: who, when, why (a ``pg:Revocation``,
``prov:Activity``; what it withdrew ``prov:wasInvalidatedBy`` it at ``prov:invalidatedAtTime``),
and invalidates every answer reached, then every answer derived from those
(``prov:wasDerivedFrom`` another answer), transitively. An invalidation is written to the answer
log, beside the answer's entry (``prov:wasInvalidatedBy`` the tombstone, ``pg:invalidationPath``
how it was reached), so the answer graphs never change and stay readable.

Finding the answers is a lookup by the revoked IRI in every answer graph (an index read, not a
scan of the answers), then one lookup per generation of derived answers.
"""

from __future__ import annotations

import enum
import getpass
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.record import answer_iri
from provgraph.errors import InputError, NotFoundError
from provgraph.models import SourceInfo
from provgraph.store.base import Backend
from provgraph.store.terms import Literal, NamedNode, sparql_term, sparql_terms
from provgraph.vocab import ANSWERS_GRAPH, ID_NS, PG, PROV_NS, RDF_NS, RDFS_NS, REVOCATIONS_GRAPH, XSD_NS

#: A revocation invalidating more answers than this needs ``confirm``.
MAX_INVALIDATED = 100
_ANSWER = f"{ID_NS}answer/"
_CHUNK = 500


class RevocationTarget(enum.StrEnum):
    """What a revocation withdrew."""

    DOCUMENT = "document"
    STATEMENT = "statement"
    SEGMENT = "segment"


#: How an answer graph ?a includes what is revoked ($root), with the segment ?segment it did
#: through: a segment from the source graph, a segment derived from the statement, the segment.
_REACHED = {
    RevocationTarget.DOCUMENT: "GRAPH ?a { ?segment pg:sourceGraph $root }",
    RevocationTarget.STATEMENT: "GRAPH ?a { ?segment prov:wasDerivedFrom $root ; a pg:ContextSegment }",
    RevocationTarget.SEGMENT: "GRAPH ?a { ?context pg:includes $root } BIND($root AS ?segment)",
}


class Invalidation(BaseModel):
    """One answer a revocation invalidated, and how it was reached: the revoked graph or
    statement, the segment of the answer's context derived from it (or the revoked segment), the
    answer; then each answer derived from the one before."""

    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="the invalidated answer's id")
    path: list[str] = Field(description="IRIs from the revoked graph to the answer")


class Revocation(BaseModel):
    """What a revocation did: the tombstone, what it withdrew, and every answer it invalidated."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="IRI of the tombstone (the pg:Revocation activity)")
    target: RevocationTarget = Field(
        default=RevocationTarget.DOCUMENT, description="what was revoked: a document, a statement or a segment"
    )
    revoked: str = Field(description="IRI of the revoked source graph, statement or context segment")
    reason: str
    by: str
    at: datetime
    source: SourceInfo | None = Field(
        default=None, description="the revoked document, or the source of the revoked statement (none for a segment)"
    )
    evidence: str | None = Field(
        default=None, description="of a revoked evidence segment: the evidence id retrieval no longer returns"
    )
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


def affected(
    backend: Backend, root: NamedNode, target: RevocationTarget = RevocationTarget.DOCUMENT
) -> list[Invalidation]:
    """Every valid answer whose context derives from (or, for a segment, includes) ``root``,
    then every valid answer derived from those (transitively), each with its path; in the order
    found."""
    reached = _REACHED[target].replace("$root", sparql_term(root))
    rows = backend.select(
        f"""SELECT ?a (MIN(STR(?segment)) AS ?s) WHERE {{
          {reached}
          FILTER(STRSTARTS(STR(?a), {sparql_term(Literal(_ANSWER))}))
          FILTER NOT EXISTS {{ GRAPH pgid:answers {{ ?a prov:wasInvalidatedBy ?earlier }} }}
        }} GROUP BY ?a ORDER BY ?a"""
    )
    paths: dict[str, list[str]] = {
        r.value("a"): [root.value, *([r.value("s")] if r.value("s") != root.value else []), r.value("a")] for r in rows
    }
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


def statement_source(backend: Backend, statement: NamedNode) -> tuple[NamedNode, NamedNode] | None:
    """(current graph, document) of the statement ``statement``, or None if no current source
    has it."""
    rows = backend.select(
        f"""SELECT ?g ?d WHERE {{
          GRAPH ?g {{ {sparql_term(statement)} a pg:Statement }}
          GRAPH pgid:catalog {{ ?g pg:status pg:Current ; pg:document ?d }}
        }} ORDER BY ?g LIMIT 1"""
    )
    return (NamedNode(rows[0].value("g")), NamedNode(rows[0].value("d"))) if rows else None


def resolve_segment(backend: Backend, segment: str) -> NamedNode:
    """The context segment ``segment`` names (its id, its IRI, or a unique prefix of at least 8
    hex digits of its id) in some recorded answer; :class:`NotFoundError` if none or several. A
    prefix is looked for among every recorded segment: an operator's lookup, not an ask's."""
    prefix = f"{ID_NS}segment/"
    text = segment.strip()
    text = text[len(prefix) :] if text.startswith(prefix) else text
    if not re.fullmatch(r"[0-9a-f]{8,64}", text):
        raise NotFoundError(f"no segment {segment!r}: a segment id is 8 to 64 lowercase hex digits")
    if len(text) == 64:
        node = NamedNode(prefix + text)
        if not backend.ask(f"ASK {{ GRAPH ?a {{ ?context pg:includes {sparql_term(node)} }} }}"):
            raise NotFoundError(f"no segment {segment!r} in a recorded answer")
        return node
    rows = backend.select(
        f"""SELECT DISTINCT ?s WHERE {{ GRAPH ?a {{ ?s a pg:ContextSegment }}
          FILTER(STRSTARTS(STR(?s), {sparql_term(Literal(prefix + text))})) }} LIMIT 2"""
    )
    if not rows:
        raise NotFoundError(f"no segment {segment!r} in a recorded answer")
    if len(rows) > 1:
        raise NotFoundError(f"the segment id {segment!r} is ambiguous: give more of it")
    return NamedNode(rows[0].value("s"))


def segment_evidence(backend: Backend, segment: NamedNode) -> str | None:
    """The evidence id of the item the segment showed; None for an instruction."""
    rows = backend.select(f"SELECT ?id WHERE {{ GRAPH ?a {{ {sparql_term(segment)} pg:evidenceId ?id }} }} LIMIT 1")
    return rows[0].value("id") if rows else None


def revoked_by(backend: Backend, revoked: NamedNode) -> str | None:
    """The tombstone that already revoked ``revoked`` (a statement or segment), if any."""
    rows = backend.select(
        f"SELECT ?t WHERE {{ GRAPH pgid:revocations {{ {sparql_term(revoked)} prov:wasInvalidatedBy ?t }} }} LIMIT 1"
    )
    return rows[0].value("t") if rows else None


def tombstone_iri(revoked: NamedNode, at: str, reason: str) -> NamedNode:
    digest = hashlib.sha256("\n".join([revoked.value, at, reason]).encode("utf-8")).hexdigest()
    return NamedNode(f"{ID_NS}revocation/{digest}")


def agent_iri(by: str) -> NamedNode:
    return NamedNode(f"{ID_NS}agent/person/{hashlib.sha256(by.encode('utf-8')).hexdigest()[:32]}")


def update(
    tombstone: NamedNode,
    *,
    revoked: NamedNode,
    target: RevocationTarget = RevocationTarget.DOCUMENT,
    document: NamedNode | None,
    evidence: str | None = None,
    reason: str,
    by: str,
    at: str,
    invalidated: Sequence[Invalidation],
) -> str:
    """The INSERT DATA of the tombstone and of the invalidations (part of a revocation's one
    update). ``document``: the revoked one, or the statement's; ``evidence``: the evidence id of a
    revoked segment's item."""
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
        f"{tombstone} {PG.revoked} {revoked}",
        f"{tombstone} {PG.invalidatedAnswers} {Literal(str(len(invalidated)), datatype=NamedNode(XSD_NS + 'integer'))}",
        f"{agent} {rdf_type} <{PROV_NS}Agent>",
        f"{agent} {label} {Literal(by)}",
        f"{revoked} {invalidated_by} {tombstone}",
        f"{revoked} {invalidated_at} {moment}",
    ]
    if document is not None:
        stone.append(f"{tombstone} {PG.revokedDocument} {document}")
    if target is RevocationTarget.STATEMENT:
        stone.append(f"{tombstone} {PG.revokedStatement} {revoked}")
    if evidence is not None:
        stone.append(f"{tombstone} {PG.revokedEvidence} {Literal(evidence)}")
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
    "RevocationTarget",
    "affected",
    "check_reason",
    "default_agent",
    "resolve_segment",
    "revoked_by",
    "segment_evidence",
    "statement_source",
    "tombstone_iri",
    "update",
]
