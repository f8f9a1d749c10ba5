"""Context policy: rules, as data, that run on an answer's context before the generator sees it.

A rule file is Turtle (or any RDF syntax) in the pg: vocabulary::

    @prefix pg: <https://w3id.org/provgraph/ns#> .
    <urn:rule:no-dosing-from-blogs> a pg:PolicyRule ;
        pg:policyAction pg:Deny ;
        pg:justification "Doses are not answered from external sources." ;
        pg:whenTrustTier pg:ExternalTrust ;
        pg:whenPredicate <http://example.org/maxDailyDoseMg> .

A rule applies to an evidence segment when every condition it states holds (a rule with none
applies to every evidence segment): ``pg:whenTrustTier`` (a pg:TrustTier), ``pg:whenSegmentType``
(a pg:SegmentType), ``pg:whenDocument`` (a document IRI), ``pg:whenDocumentKey`` (its key),
``pg:whenHost`` (the host of the source's URL), ``pg:whenPublisher`` (its ``dcterms:publisher``, an
IRI or a name), ``pg:whenPredicate`` (a fact's predicate),
``pg:whenGraph`` (a source graph), ``pg:whenStatus`` (a pg:FactStatus), ``pg:whenOlderThanDays``
(issued more than N days before the ask; a source with no issue date is not). Several values of
one condition are alternatives. Of the rules that apply to a segment, the one of highest
``pg:priority`` (default 0; then by IRI) decides:

- ``pg:Permit``: shown as it is (and no lower rule applies);
- ``pg:Deny``: the answer is blocked: it abstains, saying which rule and why;
- ``pg:Redact``: the generator is shown ``[REDACTED: <rule>]`` in its place (the record keeps the
  hash of what was withheld, and where it came from, never the content);
- ``pg:Flag``: shown as it is, and the answer is marked for audit.

``provgraph policy add FILE`` validates a file with ``shapes/policy.ttl`` and makes a new version
of the rule set (the rules of the file added to, or replacing by IRI, the current ones) in its
own graph ``pgid:policy/v<n>``; ``pgid:policy`` lists the versions. Each answer's record names
the version it ran under and holds every decision.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.context import SegmentType, TrustTier, segment_type, trust_tier
from provgraph.answer.models import EvidenceItem
from provgraph.errors import InputError, ValidationFailedError
from provgraph.store.base import Backend
from provgraph.store.terms import Literal, NamedNode, RdfFormat, Triple, parse, sparql_term
from provgraph.vocab import ID_NS, PG, PG_NS, PREFIXES, XSD_NS

if TYPE_CHECKING:
    import rdflib

    from provgraph.ingest.shacl import CompiledShapes
    from provgraph.models import ValidationIssue

POLICY_GRAPH = NamedNode(ID_NS + "policy")
POLICY_SHAPES = ("policy.ttl",)
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_INTEGER = NamedNode(XSD_NS + "integer")
_DATETIME = NamedNode(XSD_NS + "dateTime")


ACTIONS = {"Permit": "permit", "Deny": "deny", "Redact": "redact", "Flag": "flag"}
_TIERS = {
    PG.SystemTrust.value: TrustTier.SYSTEM,
    PG.VerifiedTrust.value: TrustTier.VERIFIED,
    PG.UserTrust.value: TrustTier.USER,
    PG.ExternalTrust.value: TrustTier.EXTERNAL,
}
_TYPES = {
    PG.InstructionSegment.value: SegmentType.INSTRUCTION,
    PG.EvidenceSegment.value: SegmentType.EVIDENCE,
    PG.PassageSegment.value: SegmentType.PASSAGE,
    PG.ConflictSegment.value: SegmentType.CONFLICT,
}


class Rule(BaseModel):
    """One rule of a policy (see the module docstring)."""

    model_config = ConfigDict(frozen=True)

    iri: str
    action: str
    justification: str
    priority: int = 0
    tiers: frozenset[TrustTier] = frozenset()
    types: frozenset[SegmentType] = frozenset()
    documents: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()
    hosts: frozenset[str] = frozenset()
    publishers: frozenset[str] = frozenset()
    predicates: frozenset[str] = frozenset()
    graphs: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()
    older_than_days: int | None = None

    def applies(self, item: EvidenceItem, today: date, publisher: str | None = None) -> bool:
        checks = (
            (self.publishers, publisher),
            (self.tiers, trust_tier(item.tier)),
            (self.types, segment_type(item)),
            (self.documents, item.document),
            (self.keys, item.document_key),
            (self.hosts, _host(item.url)),
            (self.predicates, item.predicate),
            (self.graphs, item.graph),
            (self.statuses, item.status.value if item.status else None),
        )
        if any(wanted and value not in wanted for wanted, value in checks):
            return False
        if self.older_than_days is not None:
            issued = _issued(item.issued)
            if issued is None or (today - issued).days <= self.older_than_days:
                return False
        return True


def _host(url: str | None) -> str | None:
    return (urlsplit(url).hostname or None) if url else None


def _issued(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


class Decision(BaseModel):
    """What a rule decided for one segment of an answer's context."""

    model_config = ConfigDict(frozen=True)

    rule: str = Field(description="IRI of the rule")
    action: str = Field(description="permit, deny, redact or flag")
    justification: str
    evidence: str = Field(description="id of the evidence item the segment shows")


class Policy(BaseModel):
    """A version of the rule set."""

    model_config = ConfigDict(frozen=True)

    version: int | None = Field(default=None, description="the version's number in the store (None: not stored)")
    iri: str | None = Field(default=None, description="the version's graph, or the file of rules not stored")
    hash: str | None = Field(default=None, description="SHA-256 of the rules")
    rules: list[Rule] = Field(default_factory=list)

    @property
    def needs_publishers(self) -> bool:
        return any(r.publishers for r in self.rules)

    def decide(
        self, items: Sequence[EvidenceItem], *, now: datetime, publishers: Mapping[str, str] | None = None
    ) -> list[Decision]:
        """The deciding rule's decision for each item some rule applies to. ``publishers``: the
        publisher of each item's document (:func:`publishers`), for the rules that ask."""
        ordered = sorted(self.rules, key=lambda r: (-r.priority, r.iri))
        today = now.astimezone(UTC).date()
        found = publishers or {}
        out = []
        for item in items:
            publisher = found.get(item.document) if item.document else None
            rule = next((r for r in ordered if r.applies(item, today, publisher)), None)
            if rule is not None:
                out.append(
                    Decision(rule=rule.iri, action=rule.action, justification=rule.justification, evidence=item.id)
                )
        return out


def publishers(backend: Backend, items: Iterable[EvidenceItem]) -> dict[str, str]:
    """The publisher (``dcterms:publisher``, an IRI or a name) of each item's document, as its
    source graph describes it."""
    pairs = {(i.graph, i.document) for i in items if i.graph and i.document}
    if not pairs:
        return {}
    values = " ".join(f"({sparql_term(g)} {sparql_term(d)})" for g, d in sorted(pairs))
    rows = backend.select(
        f"SELECT ?d ?p WHERE {{ VALUES (?g ?d) {{ {values} }} GRAPH ?g {{ ?d dcterms:publisher ?p }} }}"
    )
    return {row.value("d"): row.value("p") for row in rows}


def redacted(item: EvidenceItem, rule: str) -> EvidenceItem:
    """The item as the generator sees it once redacted: where it comes from, nothing of what it says."""
    mark = f"[REDACTED: {rule}]"
    return EvidenceItem(
        id=item.id,
        number=item.number,
        kind=item.kind,
        score=item.score,
        text=mark,
        hop=item.hop,
        document=item.document,
        document_key=item.document_key,
        title=item.title,
        url=item.url,
        tier=item.tier,
        issued=item.issued,
        graph=item.graph,
        statement=item.statement,
        passage=item.passage,
        redacted=rule,
    )


# ---------------------------------------------------------------------- reading and writing rule sets

_RULES = """CONSTRUCT { ?r ?p ?o } WHERE { GRAPH $graph { ?r a pg:PolicyRule ; ?p ?o } }"""
_CURRENT = """SELECT ?v ?n ?h WHERE { GRAPH pgid:policy { pgid:policy pg:currentPolicy ?v . ?v pg:version ?n ;
  pg:contentHash ?h } }"""


def current(backend: Backend) -> Policy:
    """The current rule set of the store (empty when none was added)."""
    rows = backend.select(_CURRENT)
    if not rows:
        return Policy()
    iri = NamedNode(rows[0].value("v"))
    triples = backend.construct(_RULES.replace("$graph", sparql_term(iri)))
    return Policy(version=rows[0].integer("n"), iri=iri.value, hash=rows[0].value("h"), rules=rules_of(triples))


def rules_of(triples: Iterable[Triple]) -> list[Rule]:
    by_rule: dict[str, dict[str, list[str]]] = {}
    for t in triples:
        # rules are IRIs with IRI or literal values (shapes/policy.ttl); str() of anything else never matches
        subject = t.subject.value if isinstance(t.subject, NamedNode) else str(t.subject)
        value = t.object.value if isinstance(t.object, NamedNode | Literal) else str(t.object)
        by_rule.setdefault(subject, {}).setdefault(t.predicate.value, []).append(value)
    return [_rule(iri, values) for iri, values in sorted(by_rule.items())]


def _rule(iri: str, values: dict[str, list[str]]) -> Rule:
    def many(name: str) -> frozenset[str]:
        return frozenset(values.get(PG_NS + name, []))

    action = values[PG_NS + "policyAction"][0].removeprefix(PG_NS)
    older = values.get(PG_NS + "whenOlderThanDays")
    return Rule(
        iri=iri,
        action=ACTIONS[action],
        justification=values[PG_NS + "justification"][0],
        priority=int(values.get(PG_NS + "priority", ["0"])[0]),
        tiers=frozenset(_TIERS[t] for t in many("whenTrustTier")),
        types=frozenset(_TYPES[t] for t in many("whenSegmentType")),
        documents=many("whenDocument"),
        keys=many("whenDocumentKey"),
        hosts=frozenset(h.lower() for h in many("whenHost")),
        publishers=many("whenPublisher"),
        predicates=many("whenPredicate"),
        graphs=many("whenGraph"),
        statuses=frozenset(s.removeprefix(PG_NS) for s in many("whenStatus")),
        older_than_days=int(older[0]) if older else None,
    )


def check(text: str, *, file: str) -> list[str]:
    """The lines of a policy file's triples (N-Triples), validated with ``shapes/policy.ttl``:
    :class:`ValidationFailedError` names the rule (focus node) that does not conform."""
    from provgraph.models import ValidationReport

    lines = [line.removesuffix(" .") for line in text.splitlines() if line.strip()]
    rules = {line.split(" ", 1)[0] for line in lines if f" <{_RDF_TYPE}> {PG.PolicyRule}" in line}
    if not rules:
        raise InputError("the file holds no pg:PolicyRule", file=file)
    issues, count = _validate(lines)
    if count:
        report = ValidationReport(
            conforms=False,
            issues=issues,
            issue_count=count,
            nodes_checked=len(rules),
            shapes=[f"shapes/{name}" for name in POLICY_SHAPES],
        )
        raise ValidationFailedError(report, file=file)
    return lines


def _validate(lines: list[str]) -> tuple[list[ValidationIssue], int]:
    from provgraph.ingest.validate import validate_lines, validate_ntriples

    shapes, checks = _shapes()
    if checks is None:
        return validate_ntriples("".join(f"{line} .\n" for line in lines), shapes)
    return validate_lines(lines, checks)


@lru_cache(maxsize=1)
def _shapes() -> tuple[rdflib.Graph, CompiledShapes | None]:
    """The policy shapes and their compiled checks, made once per process."""
    from provgraph.ingest.shacl import compile_shapes
    from provgraph.ingest.validate import load_shapes
    from provgraph.resources import shapes_dir

    shapes = load_shapes([shapes_dir() / "prefixes.ttl", *(shapes_dir() / n for n in POLICY_SHAPES)])
    return shapes, compile_shapes(shapes)


def add(backend: Backend, lines: Sequence[str], *, source: str, now: datetime) -> Policy:
    """A new version of the rule set: the current rules, with those of ``lines`` added (a rule
    of the same IRI replaced). One update writes the version's graph and moves the pointer."""
    backend.begin_write()
    before = current(backend)
    new_rules = {line.split(" ", 1)[0] for line in lines}
    kept: list[str] = []
    if before.iri is not None:
        for t in backend.construct(_RULES.replace("$graph", sparql_term(NamedNode(before.iri)))):
            if str(t.subject) not in new_rules:
                kept.append(f"{t.subject} {t.predicate} {t.object}")
    body = sorted(set(kept) | set(lines))
    digest = hashlib.sha256("\n".join(body).encode("utf-8")).hexdigest()
    version = (before.version or 0) + 1
    graph = NamedNode(f"{POLICY_GRAPH.value}/v{version}")
    moment = Literal(now.astimezone(UTC).isoformat().replace("+00:00", "Z"), datatype=_DATETIME)
    index = [
        f"{graph} a pg:PolicyVersion",
        f"{graph} pg:version {Literal(str(version), datatype=_INTEGER)}",
        f"{graph} pg:contentHash {Literal(digest)}",
        f"{graph} prov:generatedAtTime {moment}",
        f"{graph} pg:policySource {Literal(source)}",
    ]
    if before.iri is not None:
        index.append(f"{graph} prov:wasRevisionOf <{before.iri}>")
    separator = " .\n"
    backend.update(
        "DELETE WHERE { GRAPH pgid:policy { pgid:policy pg:currentPolicy ?v } } ;\n"
        f"INSERT DATA {{ GRAPH {graph} {{\n{separator.join(body)} .\n}}\n"
        f"GRAPH pgid:policy {{\n{separator.join(index)} .\npgid:policy pg:currentPolicy {graph} .\n}} }}",
        prefixes=PREFIXES,
    )
    return current(backend)


def of_lines(lines: Sequence[str], *, name: str) -> Policy:
    """The rules of a file as a policy of their own (for a what-if), not stored."""
    text = "".join(f"{line} .\n" for line in lines).encode("utf-8")
    triples = [q.triple for q in parse(text, format=RdfFormat.N_TRIPLES)]
    digest = hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()
    return Policy(version=None, iri=name, hash=digest, rules=rules_of(triples))


__all__ = ["Decision", "Policy", "Rule", "add", "check", "current", "of_lines", "publishers", "redacted"]
