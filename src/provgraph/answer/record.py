"""Answers as provenance records: each answer is one named graph, in PROV-O, hash-linked.

An answer's graph ``pgid:answer/<hash>`` holds records, each a node whose IRI is
``pgid:<kind>/<hash>``, the hash being the SHA-256 of the node's own triples (:func:`record_hash`):

- ``segment``: one per instruction and evidence item the generator was shown
  (:mod:`provgraph.answer.context`): type, trust tier, content, the evidence item whole,
  ``prov:wasDerivedFrom`` its statement, passage and source graph, ``prov:wasAttributedTo`` the
  agent it came from (provgraph for instructions, an ``agent`` record for a source);
- ``context``: the segments in order (``pg:includes`` each, ``pg:segmentOrder`` their ids);
- ``generation``: the generator's activity (``prov:used`` the context, generator, model, base URL,
  parameters, start and end); ``draft``: what it wrote (``prov:wasGeneratedBy`` it);
- ``verification``: the verifier's activity (``prov:used`` the draft and the context), with a
  ``removal`` record for every claim it removed and why;
- ``claim``: each claim kept, ``prov:wasDerivedFrom`` the segments it cites;
- ``answer`` (the graph's own IRI): question, filters, session and place in it, the previous
  answer of the session (``pg:previousAnswer``) and the one it supersedes, the grounded answer
  itself, ``prov:wasGeneratedBy`` the verification.

A record's triples name its parents by IRI, and each IRI holds its record's hash: the records
form a hash DAG from the segments up to the answer, and a session chains its answers. Editing
any triple changes the hash of its record, which no longer matches the record's IRI
(:func:`audit`). Only the head of a chain could be forged consistently, and the head is what
the asker was given: its id.

The answer log graph ``pgid:answers`` indexes the answers (session, place, time, question) and
holds what happens to them later (invalidation), so that the answer graphs never change.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.context import Segment, SegmentType, Shown, TrustTier, draft_segments
from provgraph.answer.metrics import counts
from provgraph.answer.models import AskFilters, DraftAnswer, EvidenceItem, GroundedAnswer
from provgraph.answer.policy import ACTIONS, Decision
from provgraph.errors import InputError, NotFoundError, ProvGraphError
from provgraph.store.base import Backend
from provgraph.store.terms import BlankNode, Literal, NamedNode, Quad, parse_datetime, sparql_term
from provgraph.vocab import ANSWERS_GRAPH, ID_NS, PG, PG_NS, PROV_NS, RDF_NS, RDFS_NS, SOFTWARE_AGENT, XSD_NS

_XSD_STRING = NamedNode(XSD_NS + "string")
_XSD_INTEGER = NamedNode(XSD_NS + "integer")
_XSD_BOOLEAN = NamedNode(XSD_NS + "boolean")
_XSD_DATETIME = NamedNode(XSD_NS + "dateTime")

RDF_TYPE = NamedNode(RDF_NS + "type")
RDFS_LABEL = NamedNode(RDFS_NS + "label")


class _Prov:
    Entity = NamedNode(PROV_NS + "Entity")
    Activity = NamedNode(PROV_NS + "Activity")
    Agent = NamedNode(PROV_NS + "Agent")
    SoftwareAgent = NamedNode(PROV_NS + "SoftwareAgent")
    Collection = NamedNode(PROV_NS + "Collection")
    used = NamedNode(PROV_NS + "used")
    wasGeneratedBy = NamedNode(PROV_NS + "wasGeneratedBy")
    wasDerivedFrom = NamedNode(PROV_NS + "wasDerivedFrom")
    wasAttributedTo = NamedNode(PROV_NS + "wasAttributedTo")
    wasAssociatedWith = NamedNode(PROV_NS + "wasAssociatedWith")
    startedAtTime = NamedNode(PROV_NS + "startedAtTime")
    endedAtTime = NamedNode(PROV_NS + "endedAtTime")
    generatedAtTime = NamedNode(PROV_NS + "generatedAtTime")


PROV = _Prov

#: The kinds of record an answer graph holds; a record's IRI is ``pgid:<kind>/<sha-256 hex>``.
KINDS = ("segment", "agent", "decision", "context", "generation", "draft", "removal", "verification", "claim", "answer")
_RECORD_IRI = re.compile(rf"^{re.escape(ID_NS)}({'|'.join(KINDS)})/([0-9a-f]{{64}})$")
_ANSWER = f"{ID_NS}answer/"
#: The verifier: provgraph's claim checker.
VERIFIER = NamedNode(ID_NS + "agent/verifier")

_SEGMENT_TYPES = {
    SegmentType.INSTRUCTION: PG.InstructionSegment,
    SegmentType.EVIDENCE: PG.EvidenceSegment,
    SegmentType.PASSAGE: PG.PassageSegment,
    SegmentType.CONFLICT: PG.ConflictSegment,
}
_TIERS = {
    TrustTier.SYSTEM: PG.SystemTrust,
    TrustTier.VERIFIED: PG.VerifiedTrust,
    TrustTier.USER: PG.UserTrust,
    TrustTier.EXTERNAL: PG.ExternalTrust,
}
_SEGMENT_TYPE_OF = {v.value: k for k, v in _SEGMENT_TYPES.items()}
_TIER_OF = {v.value: k for k, v in _TIERS.items()}

#: A session id: what a caller names a conversation by.
SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")

Term = NamedNode | Literal
Pair = tuple[NamedNode, Term]


# ---------------------------------------------------------------------- hashing


def _canonical(term: Term) -> str:
    """A term as its record's hash reads it: the engine stores typed literals by value
    (``"01"^^xsd:integer`` reads back ``"1"``), so the hash sees values, not lexical forms."""
    if not isinstance(term, Literal):  # an IRI (a blank node or triple term, edited in, as written)
        return str(term)
    if term.language:
        return json.dumps(term.value) + "@" + term.language.lower()
    datatype = term.datatype.value
    value = term.value
    if datatype == _XSD_INTEGER.value:
        value = str(int(value))
    elif datatype == _XSD_BOOLEAN.value:
        value = "true" if value in ("true", "1") else "false"
    elif datatype == _XSD_DATETIME.value:
        value = parse_datetime(value).astimezone(UTC).isoformat()
    return json.dumps(value) + "^^" + datatype


def record_hash(kind: str, pairs: Iterable[Pair]) -> str:
    """The SHA-256 (hex) of a record: its kind and its (predicate, object) pairs, sorted."""
    lines = sorted(f"<{p.value}> {_canonical(o)}" for p, o in pairs)
    return hashlib.sha256("\n".join([kind, *lines]).encode("utf-8")).hexdigest()


class _Record:
    """One record of an answer graph: a kind and the (predicate, object) pairs of its node."""

    __slots__ = ("hash", "iri", "kind", "pairs")

    def __init__(self, kind: str, pairs: list[Pair]) -> None:
        self.kind = kind
        self.pairs = pairs
        self.hash = record_hash(kind, pairs)
        self.iri = NamedNode(f"{ID_NS}{kind}/{self.hash}")


def _string(value: str) -> Literal:
    return Literal(value)


def _integer(value: int) -> Literal:
    return Literal(str(value), datatype=_XSD_INTEGER)


def _boolean(value: bool) -> Literal:
    return Literal("true" if value else "false", datatype=_XSD_BOOLEAN)


def _moment(value: datetime) -> Literal:
    return Literal(value.astimezone(UTC).isoformat().replace("+00:00", "Z"), datatype=_XSD_DATETIME)


def _json(value: Any) -> Literal:
    return Literal(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")))


# ---------------------------------------------------------------------- what an ask produced


class Composed(BaseModel):
    """Everything an ask produced, before it is recorded: the question, the context the generator
    was shown, the generator's and the verifier's work, and the answer. It is plain data: a
    query worker composes it, the process that writes records it."""

    model_config = ConfigDict(frozen=True)

    question: str
    filters: AskFilters
    session: str | None = None
    supersedes: str | None = Field(default=None, description="id of the answer this one re-asks")
    derived_from: list[str] = Field(
        default_factory=list, description="ids of recorded answers the question was built from"
    )
    shown: Shown
    policy_version: str | None = Field(default=None, description="IRI of the rule set the context ran under")
    policy_hash: str | None = None
    decisions: list[Decision] = Field(default_factory=list, description="what the policy rules decided")
    redactions: dict[str, str] = Field(
        default_factory=dict, description="evidence id -> SHA-256 of the item a rule redacted"
    )
    generator: str
    generator_parameters: dict[str, Any] = Field(default_factory=dict)
    generation_started: datetime
    generation_ended: datetime
    draft: DraftAnswer
    verification_ended: datetime
    answer: GroundedAnswer


def check_session(session: str | None) -> None:
    if session is not None and not SESSION.match(session):
        raise InputError(
            f"invalid session id {session!r}: 1-128 characters, letters, digits and . _ : @ -, starting with a "
            "letter or digit"
        )


# ---------------------------------------------------------------------- building the records


def _agent(item: EvidenceItem) -> _Record:
    label = item.title or item.document_key or item.document or "unknown source"
    pairs: list[Pair] = [(RDF_TYPE, PROV.Agent), (RDFS_LABEL, _string(label))]
    if item.document:
        pairs.append((PG.sourceDocument, NamedNode(item.document)))
    return _Record("agent", pairs)


def _segment(
    kind: SegmentType,
    tier: TrustTier,
    content: str,
    name: str | None,
    item: EvidenceItem | None,
    withheld: str | None = None,
) -> tuple[_Record, _Record | None]:
    pairs: list[Pair] = [
        (RDF_TYPE, PG.ContextSegment),
        (RDF_TYPE, PROV.Entity),
        (PG.segmentType, _SEGMENT_TYPES[kind]),
        (PG.trustTier, _TIERS[tier]),
        (PG.content, _string(content)),
    ]
    if name is not None:
        pairs.append((PG.segmentName, _string(name)))
    if withheld is not None:
        pairs.append((PG.redactedContentHash, _string(withheld)))
    agent = None
    if item is None:
        pairs.append((PROV.wasAttributedTo, SOFTWARE_AGENT))
    else:
        agent = _agent(item)
        pairs += [
            (PROV.wasAttributedTo, agent.iri),
            (PG.evidenceId, _string(item.id)),
            (PG.evidenceData, _string(item.model_dump_json())),
        ]
        for graph, document, sources in _origins(item):
            pairs.append((PG.sourceGraph, NamedNode(graph)))
            pairs.append((PG.sourceDocument, NamedNode(document)))
            pairs += [(PROV.wasDerivedFrom, NamedNode(s)) for s in sources]
    return _Record("segment", _unique(pairs)), agent


def _origins(item: EvidenceItem) -> Iterator[tuple[str, str, list[str]]]:
    """(source graph, document, statements or passages) the item was derived from."""
    if item.conflict is not None:
        for value in item.conflict.values:
            for claim in value.claims:
                yield claim.graph, claim.document, [claim.statement]
        return
    if item.graph and item.document:
        yield item.graph, item.document, [x for x in (item.statement, item.passage) if x]


def _unique(pairs: list[Pair]) -> list[Pair]:
    seen: set[tuple[str, str]] = set()
    out: list[Pair] = []
    for p, o in pairs:
        key = (p.value, str(o))
        if key not in seen:
            seen.add(key)
            out.append((p, o))
    return out


def build(
    composed: Composed, *, session_index: int | None, previous: str | None, created: datetime
) -> tuple[NamedNode, list[_Record], list[Segment]]:
    """The records of ``composed`` (leaves first, the answer last) and its segments."""
    records: list[_Record] = []
    segments: list[Segment] = []
    by_evidence: dict[str, NamedNode] = {}
    for kind, tier, content, name, item in draft_segments(composed.shown):
        withheld = composed.redactions.get(item.id) if item is not None else None
        record, agent = _segment(kind, tier, content, name, item, withheld)
        if agent is not None:
            records.append(agent)
        records.append(record)
        segments.append(Segment(id=record.hash, type=kind, tier=tier, content=content, name=name, evidence=item))
        if item is not None:
            by_evidence.setdefault(item.id, record.iri)

    decisions = [_decision(d, by_evidence.get(d.evidence)) for d in composed.decisions]
    records += decisions
    context_pairs: list[Pair] = [
        (RDF_TYPE, PG.Context),
        (RDF_TYPE, PROV.Collection),
        (PG.segmentOrder, _string(" ".join(s.id for s in segments))),
        *((PG.includes, NamedNode(f"{ID_NS}segment/{s.id}")) for s in segments),
        *((PG.hasDecision, d.iri) for d in decisions),
    ]
    if composed.policy_version is not None:
        context_pairs.append((PG.policyVersion, NamedNode(composed.policy_version)))
    if composed.policy_hash is not None:
        context_pairs.append((PG.policyHash, _string(composed.policy_hash)))
    context = _Record("context", _unique(context_pairs))
    generator = _Record(
        "agent", [(RDF_TYPE, PROV.SoftwareAgent), (RDFS_LABEL, _string(composed.generator.split(" (")[0]))]
    )
    parameters = dict(composed.generator_parameters)
    generation_pairs: list[Pair] = [
        (RDF_TYPE, PG.GenerationActivity),
        (RDF_TYPE, PROV.Activity),
        (PROV.used, context.iri),
        (PROV.wasAssociatedWith, generator.iri),
        (PG.generatorName, _string(composed.generator)),
        (PG.generatorParameters, _json(parameters)),
        (PROV.startedAtTime, _moment(composed.generation_started)),
        (PROV.endedAtTime, _moment(composed.generation_ended)),
    ]
    if parameters.get("model"):
        generation_pairs.append((PG.model, _string(str(parameters["model"]))))
    if parameters.get("base_url"):
        generation_pairs.append((PG.baseUrl, _string(str(parameters["base_url"]))))
    generation = _Record("generation", generation_pairs)
    draft = _Record(
        "draft",
        [
            (RDF_TYPE, PG.Draft),
            (RDF_TYPE, PROV.Entity),
            (PG.draftData, _string(composed.draft.model_dump_json())),
            (PROV.wasGeneratedBy, generation.iri),
        ],
    )
    records += [context, generator, generation, draft]

    answer = composed.answer
    removals = [
        _Record(
            "removal",
            [
                (RDF_TYPE, PG.RemovedClaim),
                (PG.claimText, _string(issue.claim)),
                (PG.reasonCode, _string(issue.code.value)),
                (PG.verifierAction, _string(issue.action.value)),
                (PG.message, _string(issue.message)),
                *([(PG.citesEvidence, _string(issue.citation))] if issue.citation else []),
            ],
        )
        for issue in answer.removed_claims
    ]
    removals = list({r.hash: r for r in removals}.values())
    verification = _Record(
        "verification",
        [
            (RDF_TYPE, PG.VerificationActivity),
            (RDF_TYPE, PROV.Activity),
            (PROV.used, draft.iri),
            (PROV.used, context.iri),
            (PROV.wasAssociatedWith, VERIFIER),
            (PROV.startedAtTime, _moment(composed.generation_ended)),
            (PROV.endedAtTime, _moment(composed.verification_ended)),
            *((PG.removedClaim, r.iri) for r in removals),
        ],
    )
    claims = []
    for order, claim in enumerate(answer.claims, 1):
        pairs: list[Pair] = [
            (RDF_TYPE, PG.Claim),
            (RDF_TYPE, PROV.Entity),
            (PG.claimText, _string(claim.text)),
            (PG.claimOrder, _integer(order)),
            (PG.supportLevel, _string(claim.support_level.value)),
            (PG.claimClass, _string(claim.claim_class.value)),
            (PG.verified, _boolean(claim.verified)),
            (PROV.wasGeneratedBy, verification.iri),
        ]
        for citation in claim.supporting_citations:
            pairs.append((PG.citesEvidence, _string(citation)))
            if citation in by_evidence:
                pairs.append((PROV.wasDerivedFrom, by_evidence[citation]))
        claims.append(_Record("claim", _unique(pairs)))
    records += [*removals, verification, *claims]

    pairs = [
        (RDF_TYPE, PG.Answer),
        (RDF_TYPE, PROV.Entity),
        (PG.question, _string(composed.question)),
        (PG.filters, _string(composed.filters.model_dump_json(exclude_none=True))),
        (PG.answerConfidence, _string(answer.confidence.value)),
        (PG.answerData, _string(answer.model_dump_json())),
        (PG.hasContext, context.iri),
        (PROV.wasGeneratedBy, verification.iri),
        (PROV.wasDerivedFrom, context.iri),
        (PROV.wasAttributedTo, SOFTWARE_AGENT),
        (PROV.generatedAtTime, _moment(created)),
        *((PG.hasClaim, c.iri) for c in claims),
    ]
    if composed.session is not None:
        pairs += [(PG.session, _string(composed.session)), (PG.sessionIndex, _integer(session_index or 1))]
    if previous is not None:
        pairs.append((PG.previousAnswer, answer_iri(previous)))
    if composed.supersedes is not None:
        pairs.append((PG.supersedes, answer_iri(composed.supersedes)))
    pairs += [(PROV.wasDerivedFrom, answer_iri(a)) for a in composed.derived_from]
    head = _Record("answer", pairs)
    records.append(head)
    return head.iri, _dedupe(records), segments


_ACTION_NODES = {v: NamedNode(PG_NS + k) for k, v in ACTIONS.items()}
_ACTION_OF = {v.value: k for k, v in _ACTION_NODES.items()}


def _decision(decision: Decision, segment: NamedNode | None) -> _Record:
    pairs: list[Pair] = [
        (RDF_TYPE, PG.PolicyDecision),
        (PG.rule, NamedNode(decision.rule)),
        (PG.policyAction, _ACTION_NODES[decision.action]),
        (PG.justification, _string(decision.justification)),
        (PG.evidenceId, _string(decision.evidence)),
    ]
    if segment is not None:  # a decision on an item the generator was not shown names no segment
        pairs.append((PG.decidedSegment, segment))
    return _Record("decision", pairs)


def _dedupe(records: list[_Record]) -> list[_Record]:
    return list({r.iri.value: r for r in records}.values())


def answer_iri(answer_id: str) -> NamedNode:
    return NamedNode(f"{ID_NS}answer/{answer_id}")


def lines(records: Sequence[_Record]) -> list[str]:
    """The records as N-Triples lines (without the final " .")."""
    return [f"{r.iri} {p} {o}" for r in records for p, o in r.pairs]


def log_lines(iri: NamedNode, composed: Composed, *, session_index: int | None, created: datetime) -> list[str]:
    """The answer's entry in the answer log."""
    pairs: list[Pair] = [
        (RDF_TYPE, PG.Answer),
        (PG.question, _string(composed.question)),
        (PG.answerConfidence, _string(composed.answer.confidence.value)),
        (PG.generatorName, _string(composed.generator)),
        (PROV.generatedAtTime, _moment(created)),
    ]
    if composed.session is not None:
        pairs += [(PG.session, _string(composed.session)), (PG.sessionIndex, _integer(session_index or 1))]
    if composed.answer.flags:
        pairs.append((PG.flagged, _boolean(True)))
    # the figures of the answer dashboard, kept here so that any span of days is one query of the log
    found = counts(composed.draft, composed.answer, composed.shown)
    pairs += [
        (PG.draftedClaims, _integer(found.drafted_claims)),
        (PG.keptClaims, _integer(found.kept_claims)),
        (PG.draftedCitations, _integer(found.drafted_citations)),
        (PG.resolvedCitations, _integer(found.resolved_citations)),
        (PG.removedClaimCounts, _json(found.removed)),
    ]
    return [f"{iri} {p} {o}" for p, o in pairs]


# ---------------------------------------------------------------------- reading


class AnswerSummary(BaseModel):
    """One answer of the log: what ``provgraph answers`` lists."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    confidence: str
    generator: str
    created: datetime
    session: str | None = None
    session_index: int | None = None
    invalidated: bool = False
    invalidation_path: list[str] = Field(
        default_factory=list, description="how the revocation that invalidated it reached it (IRIs)"
    )
    invalidated_at: datetime | None = None


class AnswerInvalidation(BaseModel):
    """Why a recorded answer is invalid."""

    model_config = ConfigDict(frozen=True)

    revocation: str = Field(description="IRI of the tombstone")
    revoked: str = Field(description="IRI of what was revoked")
    reason: str
    by: str
    at: datetime
    path: list[str]


class RecordedAnswer(BaseModel):
    """An answer as recorded: the grounded answer, and the context it was built from."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    filters: AskFilters
    created: datetime
    session: str | None = None
    session_index: int | None = None
    previous: str | None = Field(default=None, description="id of the previous answer of the session")
    supersedes: str | None = None
    derived_from: list[str] = Field(default_factory=list, description="ids of the answers it was built from")
    generator: str
    generator_parameters: dict[str, Any] = Field(default_factory=dict)
    generation_started: datetime
    generation_ended: datetime
    verification_ended: datetime
    draft: DraftAnswer
    answer: GroundedAnswer
    segments: list[Segment] = Field(description="the context the generator was shown, in order")
    policy_version: str | None = Field(default=None, description="IRI of the rule set the context ran under")
    decisions: list[Decision] = Field(default_factory=list, description="what the policy rules decided")
    claim_segments: list[list[str]] = Field(
        default_factory=list, description="for each claim, the ids of the segments it cites"
    )
    invalidated: bool = False
    invalidation: AnswerInvalidation | None = Field(default=None, description="why the answer is invalid, if it is")


class _Graph:
    """The quads of one answer graph, by subject."""

    def __init__(self, quads: Iterable[Quad]) -> None:
        self.nodes: dict[str, list[Pair]] = defaultdict(list)
        for q in quads:
            # an answer graph holds IRIs and literals only (a blank node or triple term is no record's)
            subject = q.subject.value if isinstance(q.subject, NamedNode | BlankNode) else str(q.subject)
            self.nodes[subject].append((q.predicate, q.object))  # type: ignore[arg-type]

    def values(self, node: str, predicate: NamedNode) -> list[Term]:
        return [o for p, o in self.nodes.get(node, ()) if p == predicate]

    def one(self, node: str, predicate: NamedNode) -> str:
        found = self.values(node, predicate)
        if len(found) != 1:
            raise ProvGraphError(f"the answer record {node} has {len(found)} <{predicate.value}>, not one")
        return found[0].value

    def optional(self, node: str, predicate: NamedNode) -> str | None:
        found = self.values(node, predicate)
        return found[0].value if found else None


#: An answer id, or a unique prefix of one: 8 to 64 lowercase hex digits of its SHA-256.
ANSWER_ID = re.compile(r"[0-9a-f]{8,64}")


def resolve_id(backend: Backend, answer_id: str) -> str:
    """The full id of the answer ``answer_id`` names (an id, an IRI, or a unique prefix of at
    least 8 hex digits); :class:`NotFoundError` if none or several."""
    text = answer_id.strip()
    if text.startswith(f"{ID_NS}answer/"):
        text = text[len(f"{ID_NS}answer/") :]
    if not ANSWER_ID.fullmatch(text):
        raise NotFoundError(f"no answer {answer_id!r}: an answer id is 8 to 64 lowercase hex digits")
    if len(text) == 64:
        if not backend.ask(
            f"ASK {{ GRAPH {sparql_term(ANSWERS_GRAPH)} {{ {sparql_term(answer_iri(text))} a pg:Answer }} }}"
        ):
            raise NotFoundError(f"no answer {answer_id!r} in the store")
        return text
    rows = backend.select(
        f"SELECT ?a WHERE {{ GRAPH {sparql_term(ANSWERS_GRAPH)} {{ ?a a pg:Answer }} "
        f"FILTER(STRSTARTS(STR(?a), {sparql_term(Literal(f'{ID_NS}answer/{text}'))})) }} LIMIT 2"
    )
    if not rows:
        raise NotFoundError(f"no answer {answer_id!r} in the store")
    if len(rows) > 1:
        raise NotFoundError(f"the answer id {answer_id!r} is ambiguous: give more of it")
    return rows[0].value("a").rsplit("/", 1)[1]


def read(backend: Backend, answer_id: str) -> RecordedAnswer:
    """The answer ``answer_id`` as recorded."""
    full = resolve_id(backend, answer_id)
    iri = answer_iri(full)
    graph = _Graph(backend.quads(graph=iri))
    if iri.value not in graph.nodes:
        raise NotFoundError(f"the answer {full} is in the log but its graph is missing")
    head = iri.value
    context = graph.one(head, PG.hasContext)
    order = graph.one(context, PG.segmentOrder).split()
    segments = [_read_segment(graph, f"{ID_NS}segment/{s}") for s in order]
    verification = graph.one(head, PROV.wasGeneratedBy)
    draft = next(o.value for o in graph.values(verification, PROV.used) if o.value.startswith(f"{ID_NS}draft/"))
    generation = graph.one(draft, PROV.wasGeneratedBy)
    claims = sorted((int(graph.one(c.value, PG.claimOrder)), c.value) for c in graph.values(head, PG.hasClaim))
    session_index = graph.optional(head, PG.sessionIndex)
    previous = graph.optional(head, PG.previousAnswer)
    supersedes = graph.optional(head, PG.supersedes)
    answer = GroundedAnswer.model_validate_json(graph.one(head, PG.answerData))
    invalidation = of_answer(backend, full)
    return RecordedAnswer(
        id=full,
        question=graph.one(head, PG.question),
        filters=AskFilters.model_validate_json(graph.one(head, PG.filters)),
        created=parse_datetime(graph.one(head, PROV.generatedAtTime)),
        session=graph.optional(head, PG.session),
        session_index=int(session_index) if session_index else None,
        previous=previous.rsplit("/", 1)[1] if previous else None,
        supersedes=supersedes.rsplit("/", 1)[1] if supersedes else None,
        derived_from=sorted(
            o.value.rsplit("/", 1)[1] for o in graph.values(head, PROV.wasDerivedFrom) if o.value.startswith(_ANSWER)
        ),
        generator=graph.one(generation, PG.generatorName),
        generator_parameters=json.loads(graph.one(generation, PG.generatorParameters)),
        generation_started=parse_datetime(graph.one(generation, PROV.startedAtTime)),
        generation_ended=parse_datetime(graph.one(generation, PROV.endedAtTime)),
        verification_ended=parse_datetime(graph.one(verification, PROV.endedAtTime)),
        draft=DraftAnswer.model_validate_json(graph.one(draft, PG.draftData)),
        answer=answer.model_copy(update={"id": full, "session": graph.optional(head, PG.session)}),
        segments=segments,
        policy_version=graph.optional(context, PG.policyVersion),
        decisions=sorted(
            (_read_decision(graph, d.value) for d in graph.values(context, PG.hasDecision)),
            key=lambda d: (d.evidence, d.rule),
        ),
        claim_segments=[
            sorted(o.value.rsplit("/", 1)[1] for o in graph.values(c, PROV.wasDerivedFrom)) for _, c in claims
        ],
        invalidated=invalidation is not None,
        invalidation=invalidation,
    )


def _read_decision(graph: _Graph, node: str) -> Decision:
    return Decision(
        rule=graph.one(node, PG.rule),
        action=_ACTION_OF[graph.one(node, PG.policyAction)],
        justification=graph.one(node, PG.justification),
        evidence=graph.one(node, PG.evidenceId),
    )


def _read_segment(graph: _Graph, node: str) -> Segment:
    evidence = graph.optional(node, PG.evidenceData)
    return Segment(
        id=node.rsplit("/", 1)[1],
        type=_SEGMENT_TYPE_OF[graph.one(node, PG.segmentType)],
        tier=_TIER_OF[graph.one(node, PG.trustTier)],
        content=graph.one(node, PG.content),
        name=graph.optional(node, PG.segmentName),
        evidence=EvidenceItem.model_validate_json(evidence) if evidence else None,
    )


def of_answer(backend: Backend, answer_id: str) -> AnswerInvalidation | None:
    """Why the answer ``answer_id`` is invalid; None when it is valid."""
    rows = backend.select(
        f"""SELECT ?t ?what ?reason ?by ?at ?path WHERE {{
          GRAPH pgid:answers {{ {sparql_term(answer_iri(answer_id))} prov:wasInvalidatedBy ?t ;
                                pg:invalidationPath ?path }}
          GRAPH pgid:revocations {{ ?t pg:revoked ?what ; pg:reason ?reason ; prov:endedAtTime ?at ;
                                      prov:wasAssociatedWith ?agent . ?agent rdfs:label ?by }}
        }} ORDER BY ?at LIMIT 1"""
    )
    if not rows:
        return None
    row = rows[0]
    return AnswerInvalidation(
        revocation=row.value("t"),
        revoked=row.value("what"),
        reason=row.value("reason"),
        by=row.value("by"),
        at=row.moment("at"),
        path=json.loads(row.value("path")),
    )


_LIST = """SELECT ?a ?q ?c ?g ?t ?s ?i ?x ?path ?when WHERE { GRAPH pgid:answers {
  ?a a pg:Answer ; pg:question ?q ; pg:answerConfidence ?c ; pg:generatorName ?g ; prov:generatedAtTime ?t .
  OPTIONAL { ?a pg:session ?s ; pg:sessionIndex ?i }
  OPTIONAL { ?a prov:wasInvalidatedBy ?x ; pg:invalidationPath ?path ; prov:invalidatedAtTime ?when } $filter } }
ORDER BY $order LIMIT $limit"""


def summaries(
    backend: Backend, *, session: str | None = None, invalidated: bool | None = None, limit: int = 100
) -> list[AnswerSummary]:
    """The log's answers, newest first (a session's in order)."""
    check_session(session)
    conditions = []
    if session is not None:
        conditions.append(f"FILTER(?s = {sparql_term(Literal(session))})")
    if invalidated is True:
        conditions.append("FILTER(BOUND(?x))")
    elif invalidated is False:
        conditions.append("FILTER(!BOUND(?x))")
    order = "?i" if session is not None else "DESC(?t) ?a"
    query = _LIST.replace("$filter", " ".join(conditions)).replace("$order", order).replace("$limit", str(int(limit)))
    out: dict[str, AnswerSummary] = {}
    for row in backend.select(query):
        iri = row.value("a")
        out.setdefault(
            iri,
            AnswerSummary(
                id=iri.rsplit("/", 1)[1],
                question=row.value("q"),
                confidence=row.value("c"),
                generator=row.value("g"),
                created=row.moment("t"),
                session=row.optional_value("s"),
                session_index=row.optional_integer("i"),
                invalidated="x" in row,
                invalidation_path=json.loads(row.value("path")) if "path" in row else [],
                invalidated_at=row.optional_moment("when"),
            ),
        )
    return list(out.values())


def last_in_session(backend: Backend, session: str) -> tuple[str, int] | None:
    """The id and place of the last answer of ``session``."""
    rows = backend.select(
        f"SELECT ?a ?i WHERE {{ GRAPH pgid:answers {{ ?a pg:session {sparql_term(Literal(session))} ; "
        "pg:sessionIndex ?i } } ORDER BY DESC(?i) LIMIT 1"
    )
    if not rows:
        return None
    return rows[0].value("a").rsplit("/", 1)[1], rows[0].integer("i")


def segment_problems(backend: Backend, answer_id: str) -> set[str]:
    """Ids of the segments of an answer whose stored triples no longer hash to their id."""
    graph = _Graph(backend.quads(graph=answer_iri(answer_id)))
    prefix = f"{ID_NS}segment/"
    return {
        node[len(prefix) :]
        for node, pairs in graph.nodes.items()
        if node.startswith(prefix) and record_hash("segment", pairs) != node[len(prefix) :]
    }


# ---------------------------------------------------------------------- audit


class AuditProblem(BaseModel):
    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="the answer's id")
    record: str = Field(description="IRI of the record that does not match")
    problem: str


class AuditReport(BaseModel):
    """What ``provgraph audit`` found: every record's hash recomputed."""

    model_config = ConfigDict(frozen=True)

    answers: int
    records: int
    problems: list[AuditProblem] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(backend: Backend) -> AuditReport:
    """Recompute the hash of every record of every answer graph and check the links between
    them: a record whose triples were edited no longer matches its IRI."""
    logged = {
        row.value("a")
        for row in backend.select(f"SELECT ?a WHERE {{ GRAPH {sparql_term(ANSWERS_GRAPH)} {{ ?a a pg:Answer }} }}")
    }
    graphs = {g.value for g in backend.named_graphs() if g.value.startswith(f"{ID_NS}answer/")}
    problems: list[AuditProblem] = []
    records = 0
    for name in sorted(logged | graphs):
        answer_id = name.rsplit("/", 1)[1]
        if name not in graphs:
            problems.append(AuditProblem(answer=answer_id, record=name, problem="in the answer log, but no such graph"))
            continue
        if name not in logged:
            problems.append(
                AuditProblem(answer=answer_id, record=name, problem="an answer graph not in the answer log")
            )
        graph = _Graph(backend.quads(graph=NamedNode(name)))
        records += len(graph.nodes)
        problems += (AuditProblem(answer=answer_id, record=r, problem=p) for r, p in _check(graph, name, graphs))
    return AuditReport(answers=len(logged | graphs), records=records, problems=problems)


def _check(graph: _Graph, name: str, graphs: set[str]) -> Iterator[tuple[str, str]]:
    if name not in graph.nodes:
        yield name, "the answer graph has no answer record named like it"
    for node, pairs in graph.nodes.items():
        match = _RECORD_IRI.match(node)
        if match is None:
            yield node, "not a record of an answer (its IRI holds no hash)"
            continue
        kind, stated = match.groups()
        actual = record_hash(kind, pairs)
        if actual != stated:
            yield node, f"its triples hash to {actual[:16]}…, not to the {stated[:16]}… its IRI states: edited"
        for predicate, obj in pairs:
            if not isinstance(obj, NamedNode) or _RECORD_IRI.match(obj.value) is None:
                continue
            if obj.value.startswith(f"{ID_NS}answer/"):  # another answer: its own graph
                if obj.value not in graphs:
                    yield node, f"<{predicate.value}> names {obj.value}, which is not in the store"
            elif obj.value not in graph.nodes:
                yield node, f"<{predicate.value}> names {obj.value}, which is not in the answer graph"


# ---------------------------------------------------------------------- writing


def insert(iri: NamedNode, answer_lines: Sequence[str], log: Sequence[str]) -> str:
    """The update that writes an answer graph and its log entry, in one transaction."""
    body = " .\n".join(answer_lines)
    entry = " .\n".join(log)
    return f"INSERT DATA {{\nGRAPH {iri} {{\n{body} .\n}}\nGRAPH {ANSWERS_GRAPH} {{\n{entry} .\n}}\n}}"


__all__ = [
    "ANSWER_ID",
    "KINDS",
    "AnswerInvalidation",
    "AnswerSummary",
    "AuditProblem",
    "AuditReport",
    "Composed",
    "RecordedAnswer",
    "answer_iri",
    "audit",
    "build",
    "check_session",
    "insert",
    "last_in_session",
    "lines",
    "log_lines",
    "read",
    "record_hash",
    "resolve_id",
    "summaries",
]
