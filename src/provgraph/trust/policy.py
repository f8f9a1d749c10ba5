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
from dataclasses import dataclass, field

from pyoxigraph import QuerySolutions

from provgraph.store.base import Backend
from provgraph.trust.confidence import DecayConfig
from provgraph.trust.models import ResolutionStrategy
from provgraph.vocab import ONTOLOGY_GRAPH, PG_NS, SH_NS

OWL = "http://www.w3.org/2002/07/owl#"


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


def _rows(backend: Backend, query: str) -> QuerySolutions:
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    return result


def load(backend: Backend) -> Policy:
    """The policy the ontology graph declares (empty when nothing was added)."""
    g = f"<{ONTOLOGY_GRAPH.value}>"
    functional = {
        r["p"].value  # type: ignore[union-attr]
        for r in _rows(
            backend,
            f"""SELECT DISTINCT ?p WHERE {{ GRAPH {g} {{
  {{ ?p a <{OWL}FunctionalProperty> }}
  UNION {{ ?shape <{SH_NS}path> ?p ; <{SH_NS}maxCount> ?max FILTER(isIRI(?p) && ?max = 1) }} }} }}""",
        )
    }
    disjoint = set()
    for r in _rows(backend, f"SELECT ?p ?q WHERE {{ GRAPH {g} {{ ?p <{OWL}propertyDisjointWith> ?q }} }}"):
        p, q = r["p"].value, r["q"].value  # type: ignore[union-attr]
        if p != q:
            disjoint.add((min(p, q), max(p, q)))
    tolerances: dict[str, Tolerance] = {}
    case_insensitive: set[str] = set()
    strategies: dict[str, ResolutionStrategy] = {}
    rates: dict[str, float] = {}
    for r in _rows(
        backend,
        f"""SELECT ?p ?abs ?rel ?ci ?strategy ?rate WHERE {{ GRAPH {g} {{
  ?p ?k ?any FILTER(?k IN (<{PG_NS}absoluteTolerance>, <{PG_NS}relativeTolerance>, <{PG_NS}caseInsensitive>,
                           <{PG_NS}resolutionStrategy>, <{PG_NS}decayRate>))
  OPTIONAL {{ ?p <{PG_NS}absoluteTolerance> ?abs }} OPTIONAL {{ ?p <{PG_NS}relativeTolerance> ?rel }}
  OPTIONAL {{ ?p <{PG_NS}caseInsensitive> ?ci }} OPTIONAL {{ ?p <{PG_NS}resolutionStrategy> ?strategy }}
  OPTIONAL {{ ?p <{PG_NS}decayRate> ?rate }} }} }}""",
    ):
        p = r["p"].value  # type: ignore[union-attr]
        if r["abs"] is not None or r["rel"] is not None:
            tolerances[p] = Tolerance(
                absolute=float(r["abs"].value) if r["abs"] is not None else 0.0,  # type: ignore[union-attr]
                relative=float(r["rel"].value) if r["rel"] is not None else 0.0,  # type: ignore[union-attr]
            )
        if r["ci"] is not None and r["ci"].value in ("true", "1"):  # type: ignore[union-attr]
            case_insensitive.add(p)
        if r["strategy"] is not None:
            strategies[p] = ResolutionStrategy.from_iri(r["strategy"].value)  # type: ignore[union-attr]
        if r["rate"] is not None:
            rates[p] = float(r["rate"].value)  # type: ignore[union-attr]
    aliases: dict[str, set[str]] = {}
    for r in _rows(backend, f"SELECT ?e ?a WHERE {{ GRAPH {g} {{ ?e <{PG_NS}alias> ?a FILTER(isIRI(?e)) }} }}"):
        aliases.setdefault(r["e"].value, set()).add(r["a"].value)  # type: ignore[union-attr]
    same_as = {
        (r["a"].value, r["b"].value)  # type: ignore[union-attr]
        for r in _rows(
            backend,
            f"""SELECT ?a ?b WHERE {{ GRAPH {g} {{ ?a ?k ?b FILTER(isIRI(?a) && isIRI(?b))
  FILTER(?k IN (<{OWL}sameAs>, <http://www.w3.org/2004/02/skos/core#exactMatch>)) }} }}""",
        )
    }
    return Policy(
        functional=frozenset(functional),
        disjoint=frozenset(disjoint),
        tolerances=tolerances,
        case_insensitive=frozenset(case_insensitive),
        strategies=strategies,
        decay=DecayConfig(per_predicate=rates),
        aliases={k: frozenset(v) for k, v in aliases.items()},
        same_as=frozenset(same_as),
        fingerprint=fingerprint(backend),
    )


def fingerprint(backend: Backend) -> str:
    """A hash of the ontology graph's content: re-detection is due when it changes."""
    lines = sorted(str(q) for q in backend.quads(None, None, None, ONTOLOGY_GRAPH))
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


__all__ = ["Policy", "Tolerance", "fingerprint", "load"]
