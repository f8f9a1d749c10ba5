"""What users say their predicates mean, read from the ontology graph (``pgid:ontology``), where
``provgraph ontology add FILE`` puts OWL/RDFS ontologies, policy files and SHACL shapes.

Understood:

- ``P a owl:FunctionalProperty`` or a SHACL property shape ``sh:path P ; sh:maxCount 1``: one
  value per subject, so different values are a conflict;
- ``P owl:propertyDisjointWith Q``: the same subject and object under both is a conflict;
- ``P pg:absoluteTolerance 0.01 ; pg:relativeTolerance 0.05``: numbers closer than either agree;
- ``P pg:caseInsensitive true``: strings equal but for case agree;
- ``P pg:resolutionStrategy pg:SourceTrust``: the predicate's default strategy;
- ``P pg:decayRate 0.001``: confidence decay per day of age;
- ``E pg:alias "ASA"``: a subject whose only label (rdfs:label, skos:prefLabel, skos:altLabel)
  this is resolves to E; ``owl:sameAs`` and ``skos:exactMatch`` links here or in sources merge.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from provgraph.options import ResolutionStrategy
from provgraph.store import derived
from provgraph.store.base import Backend
from provgraph.trust.confidence import DecayConfig
from provgraph.vocab import ONTOLOGY_GRAPH

#: The strategy of a predicate whose policy names none.
DEFAULT_STRATEGY = ResolutionStrategy.SOURCE_TRUST

#: Functional predicates: declared so, or the path of a SHACL property shape with one value.
FUNCTIONAL = """SELECT DISTINCT ?p WHERE { GRAPH pgid:ontology {
  { ?p a owl:FunctionalProperty }
  UNION { ?shape sh:path ?p ; sh:maxCount ?max FILTER(isIRI(?p) && ?max = 1) } } }"""
DISJOINT = "SELECT ?p ?q WHERE { GRAPH pgid:ontology { ?p owl:propertyDisjointWith ?q } }"
#: Each predicate with a setting of its own, and every setting it has.
SETTINGS = """SELECT ?p ?abs ?rel ?ci ?strategy ?rate WHERE { GRAPH pgid:ontology {
  ?p ?k ?any FILTER(?k IN (pg:absoluteTolerance, pg:relativeTolerance, pg:caseInsensitive,
                           pg:resolutionStrategy, pg:decayRate))
  OPTIONAL { ?p pg:absoluteTolerance ?abs } OPTIONAL { ?p pg:relativeTolerance ?rel }
  OPTIONAL { ?p pg:caseInsensitive ?ci } OPTIONAL { ?p pg:resolutionStrategy ?strategy }
  OPTIONAL { ?p pg:decayRate ?rate } } }"""
ALIASES = "SELECT ?e ?a WHERE { GRAPH pgid:ontology { ?e pg:alias ?a FILTER(isIRI(?e)) } }"
SAME_AS = """SELECT ?a ?b WHERE { GRAPH pgid:ontology { ?a ?k ?b FILTER(isIRI(?a) && isIRI(?b))
  FILTER(?k IN (owl:sameAs, skos:exactMatch)) } }"""


@dataclass(frozen=True)
class Tolerance:
    """Numbers ``a``, ``b`` agree when ``|a - b| <= absolute`` or ``|a - b| <= relative * max(|a|, |b|)``."""

    absolute: float = 0.0
    relative: float = 0.0

    def agrees(self, a: float, b: float) -> bool:
        diff = abs(a - b)
        return diff <= self.absolute or diff <= self.relative * max(abs(a), abs(b))


@dataclass(frozen=True)
class Policy:
    functional: frozenset[str] = frozenset()
    disjoint: frozenset[tuple[str, str]] = frozenset()
    tolerances: dict[str, Tolerance] = field(default_factory=dict)
    case_insensitive: frozenset[str] = frozenset()
    strategies: dict[str, ResolutionStrategy] = field(default_factory=dict)
    decay: DecayConfig = field(default_factory=DecayConfig)
    aliases: dict[str, frozenset[str]] = field(default_factory=dict)
    same_as: frozenset[tuple[str, str]] = frozenset()
    fingerprint: str = ""

    def tolerance(self, predicate: str) -> Tolerance:
        return self.tolerances.get(predicate, Tolerance())

    def strategy(self, predicates: Sequence[str]) -> ResolutionStrategy:
        """The strategy of an item of ``predicates``: the first one's that declares one, else
        :data:`DEFAULT_STRATEGY`."""
        for p in predicates:
            if p in self.strategies:
                return self.strategies[p]
        return DEFAULT_STRATEGY


def policy_of(backend: Backend) -> Policy:
    """The policy of the ontology graph, read once per store state."""
    return derived.memo(backend, "policy", lambda: load(backend))


def load(backend: Backend) -> Policy:
    """The policy the ontology graph declares (empty when nothing was added)."""
    disjoint = set()
    for r in backend.select(DISJOINT):
        p, q = r.value("p"), r.value("q")
        if p != q:
            disjoint.add((min(p, q), max(p, q)))
    tolerances: dict[str, Tolerance] = {}
    case_insensitive: set[str] = set()
    strategies: dict[str, ResolutionStrategy] = {}
    rates: dict[str, float] = {}
    for r in backend.select(SETTINGS):
        p = r.value("p")
        absolute, relative = r.optional_number("abs"), r.optional_number("rel")
        if absolute is not None or relative is not None:
            tolerances[p] = Tolerance(absolute=absolute or 0.0, relative=relative or 0.0)
        if r.optional_value("ci") in ("true", "1"):
            case_insensitive.add(p)
        strategy, rate = r.optional_value("strategy"), r.optional_number("rate")
        if strategy is not None:
            strategies[p] = ResolutionStrategy.from_iri(strategy)
        if rate is not None:
            rates[p] = rate
    aliases: dict[str, set[str]] = {}
    for r in backend.select(ALIASES):
        aliases.setdefault(r.value("e"), set()).add(r.value("a"))
    return Policy(
        functional=frozenset(r.value("p") for r in backend.select(FUNCTIONAL)),
        disjoint=frozenset(disjoint),
        tolerances=tolerances,
        case_insensitive=frozenset(case_insensitive),
        strategies=strategies,
        decay=DecayConfig(per_predicate=rates),
        aliases={k: frozenset(v) for k, v in aliases.items()},
        same_as=frozenset((r.value("a"), r.value("b")) for r in backend.select(SAME_AS)),
        fingerprint=fingerprint(backend),
    )


def fingerprint(backend: Backend) -> str:
    """A hash of the ontology graph's content: re-detection is due when it changes."""
    lines = sorted(str(q) for q in backend.quads(None, None, None, ONTOLOGY_GRAPH))
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


__all__ = ["DEFAULT_STRATEGY", "Policy", "Tolerance", "fingerprint", "load", "policy_of"]
