"""What readers produce: assertions (a triple with its per-statement provenance) and passages.

Terms are kept in N-Triples syntax (``<iri>``, ``_:b``, ``"lit"^^<dt>``): that is what the
reifier writes and hashes, so readers convert once and nothing converts back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from provgraph.store.scratch import StoredForm
from provgraph.store.terms import Literal


@dataclass(slots=True, frozen=True)
class PassageSpec:
    """An exact span of a document's text."""

    text: str
    page: int | None = None
    section: str | None = None
    start: int | None = None
    end: int | None = None

    def key(self) -> str:
        """What identifies the passage within its document (its IRI is a hash of this)."""
        return f"{self.start}\x1f{self.end}\x1f{self.page}\x1f{self.section}\x1f{self.text}"


@dataclass(slots=True, frozen=True)
class NanopubSpec:
    """A nanopublication as read (see :mod:`provgraph.ingest.nanopub`): its IRI, its four graphs
    exactly as published, and what its provenance and publication info say, checked.

    Terms are N-Triples. ``content`` is the N-Quads of its four graphs in the input's lexical
    forms (Oxigraph would store ``"2.0"^^xsd:decimal`` as ``"2"``: the trusty hash and the
    signature are over the forms published), blank nodes numbered in order of appearance."""

    uri: str  # the nanopublication's IRI (not N-Triples)
    content: str
    created: str | None = None  # dct:created of the nanopublication, an xsd:dateTime literal
    creators: tuple[str, ...] = ()  # IRIs the publication info names as its creators
    attributed_to: tuple[str, ...] = ()  # IRIs the provenance attributes the assertion to
    primary_sources: tuple[str, ...] = ()  # the assertion's prov:hadPrimarySource IRIs
    artefact_code: str | None = None  # the trusty URI's code, when it has one (checked)
    signature: tuple[str, str] | None = None  # (algorithm, public key), when signed (verified)


@dataclass(slots=True)
class Assertion:
    """One triple a document states, with what the reader knows of its provenance."""

    subject: str
    predicate: str
    object: str
    passage: PassageSpec | None = None
    confidence: float | None = None
    method: str | None = None  # an ExtractionMethod value
    reviewer: str | None = None  # N-Triples IRI
    last_verified: str | None = None  # xsd:dateTime lexical form
    original_graph: str | None = None  # N-Triples IRI or blank node of the input graph
    line: int | None = None  # input line, when the reader knows it
    nanopub: NanopubSpec | None = None  # the nanopublication whose assertion graph holds it
    extra: list[tuple[str, str]] = field(default_factory=list)  # (predicate, object) N-Triples

    @property
    def triple(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


class LiteralCanonicalizer:
    """Typed literals in the form Oxigraph stores them.

    Oxigraph keeps typed literals by value: ``"01"^^xsd:integer`` is stored as ``"1"``,
    ``xsd:nonNegativeInteger`` as ``xsd:integer``, ``"2.19E8"^^xsd:double`` as ``"219000000"``.
    Fact and statement keys hash the triple, so they must hash what the store will hold, or
    evidence looked up by the stored value would miss its statements. Oxigraph itself does the
    conversion (:class:`~provgraph.store.scratch.StoredForm`, a few microseconds per distinct
    literal), so the rule can never drift from the engine's.
    """

    def __init__(self) -> None:
        self._stored = StoredForm()
        self._cache: dict[tuple[str, str], str] = {}

    def __call__(self, literal: Literal) -> str:
        """The N-Triples form of ``literal`` as the store will keep it."""
        datatype = literal.datatype.value
        if literal.language is not None or datatype in _KEPT_AS_IS:
            return str(literal)
        if datatype == _INTEGER and _CANONICAL_INTEGER.fullmatch(literal.value):
            return str(literal)  # the common case, without a round trip (Oxigraph keeps it so)
        key = (literal.value, datatype)
        found = self._cache.get(key)
        if found is None:
            found = str(self._stored(literal))
            if len(self._cache) < 100_000:
                self._cache[key] = found
        return found


_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
#: An xsd:integer lexical form Oxigraph stores unchanged (no sign on zero, no leading zeros;
#: out of its range it keeps any lexical form as it is).
_CANONICAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")

_KEPT_AS_IS = frozenset(
    {
        "http://www.w3.org/2001/XMLSchema#string",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString",
    }
)
