"""What the extractor knows of the words of a store: the properties its ontology names (labels
and synonyms, units, whether values are literals) and the entities its sources already name.

A property phrase of the text ("is used to treat", "has a height of", "tall") is matched to the
ontology's properties by their ``rdfs:label``, ``skos:prefLabel`` and ``skos:altLabel``, compared
without case, leading auxiliaries ("is", "has") or a unit in parentheses ("maximum daily dose
(mg)" is "maximum daily dose", in mg unless ``pg:unit`` says otherwise). A phrase no property has
gets a property minted for it (``pgid:property/built-by``, labelled "built by"), so text without
an ontology still yields facts; an ontology makes them the user's own properties.

An entity named in the text is the store's entity of that label (``rdfs:label``,
``skos:prefLabel``, ``skos:altLabel``, ``schema:name``, ``pg:alias``, any case) when exactly one
entity has it, else an entity minted for the name (``pgid:entity/robert-stevenson``): two
documents that name the same thing the same way share it, so their facts meet and their
disagreements are found.

Names are resolved across documents by what the sources say, never by guessing from spelling:
when a source said that a name is another name of an entity ("Bell Rock Lighthouse, also known as
the Inchcape lighthouse": a ``pg:alias`` statement, with its document, passage and confidence),
a later text's "Inchcape lighthouse" is that entity, the user's or a minted one. An alias stated
earlier in the same document counts as well ("World Health Organization (WHO) ... WHO
recommends"). The alias statements are the evidence of each merge
(:meth:`provgraph.ProvGraph.names`; ``provgraph evidence`` lists an entity's other names with
their sources).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from provgraph.store.base import Backend
from provgraph.store.terms import Literal, sparql_terms
from provgraph.vocab import ID_NS, PG_NS

ENTITY_NS = ID_NS + "entity/"
PROPERTY_NS = ID_NS + "property/"

_PROPERTIES = """SELECT ?p ?label ?unit ?kind WHERE { GRAPH pgid:ontology {
  ?p ?naming ?label FILTER(isIRI(?p) && isLiteral(?label))
  FILTER(?naming IN (rdfs:label, skos:prefLabel, skos:altLabel))
  FILTER(LANG(?label) = "" || LANGMATCHES(LANG(?label), "en"))
  ?p a ?kind FILTER(?kind IN (owl:ObjectProperty, owl:DatatypeProperty, rdf:Property,
                              owl:FunctionalProperty, owl:AnnotationProperty))
  OPTIONAL { ?p pg:unit ?unit } } }"""
# The naming properties are a path of alternatives, each looked up with its object: a name is the
# object of as many rdf:object triples as statements state it, which a variable predicate would read.
_NAMED = """SELECT ?name ?e WHERE {
  VALUES ?name { $names }
  { GRAPH pgid:current { ?e $naming ?name } } UNION { GRAPH pgid:ontology { ?e $naming ?name } }
  FILTER(isIRI(?e))
}""".replace(
    "$naming", "(rdfs:label|skos:prefLabel|skos:altLabel|<http://schema.org/name>|<https://schema.org/name>|pg:alias)"
)
_AUXILIARIES = frozenset("is are was were be been has have had does do".split())
_UNIT_IN_LABEL = re.compile(r"\s*\(([^()]+)\)\s*$")


@dataclass(frozen=True, slots=True)
class Property:
    """A property the extractor can state: its IRI, label, the unit its values are stated in
    (a pint unit expression, or None) and whether it was minted (no ontology names it)."""

    iri: str
    label: str
    unit: str | None = None
    literal: bool | None = None  # True: values; False: entities; None: unknown
    minted: bool = False


def phrase_key(phrase: str) -> str:
    """A property phrase as it is compared: lower case, words only, without leading
    auxiliaries or a unit in parentheses."""
    phrase = _UNIT_IN_LABEL.sub("", phrase)
    found = re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", phrase.lower())
    while found and found[0] in _AUXILIARIES:
        found.pop(0)
    return " ".join(found)


def slug(name: str) -> str:
    """The last segment of a minted IRI: the name's words in lower case, joined by "-"."""
    text = unicodedata.normalize("NFC", name).lower()
    return "-".join(re.findall(r"[^\W_]+", text))[:120] or "unnamed"


class Vocabulary:
    """Properties and entities for one ingest, read from ``backend`` (or none, for a store
    without one: everything is minted)."""

    def __init__(self, backend: Backend | None = None) -> None:
        self._backend = backend
        self._properties: dict[str, Property] = {}
        self._entities: dict[str, str | None] = {}
        #: aliases stated by the document being read: name (casefolded) -> entity
        self._aliases: dict[str, str] = {}
        #: names some entity of the store has (casefolded)
        self._named: set[str] = set()
        if backend is not None:
            self._read_properties(backend)

    def _read_properties(self, backend: Backend) -> None:
        rows = backend.select(_PROPERTIES)
        kinds: dict[str, set[str]] = {}
        units: dict[str, str] = {}
        labels: dict[str, list[str]] = {}
        for row in rows:
            iri = row["p"].value
            kinds.setdefault(iri, set()).add(row["kind"].value.rsplit("#", 1)[-1])
            labels.setdefault(iri, []).append(row["label"].value)
            if row.get("unit") is not None:
                units[iri] = row["unit"].value
        for iri, names in labels.items():
            literal = True if "DatatypeProperty" in kinds[iri] else False if "ObjectProperty" in kinds[iri] else None
            unit = units.get(iri)
            if unit is None:
                unit = next((m.group(1) for n in names if (m := _UNIT_IN_LABEL.search(n))), None)
            prop = Property(iri, names[0], unit, literal)
            for name in names:
                self._properties.setdefault(phrase_key(name), prop)

    def property(self, phrase: str) -> Property | None:
        """The ontology's property named by ``phrase``, or None."""
        return self._properties.get(phrase_key(phrase))

    def fingerprint(self) -> str:
        """What of the ontology the extraction read: when it changes, text is read again."""
        lines = sorted(f"{k}\x1f{p.iri}\x1f{p.unit}\x1f{p.literal}" for k, p in self._properties.items())
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]

    def phrases(self) -> dict[str, Property]:
        """Every phrase of the ontology's properties (as :func:`phrase_key` gives it)."""
        return dict(self._properties)

    def mint_property(self, phrase: str) -> Property:
        """The property minted for a phrase no ontology property has."""
        key = phrase_key(phrase)
        return Property(PROPERTY_NS + slug(key), key, minted=True)

    def entity(self, name: str) -> tuple[str, bool]:
        """The IRI of the entity ``name`` names, and whether it was minted for it."""
        key = name.casefold()
        if key in self._aliases:
            return self._aliases[key], False
        if key not in self._entities:
            self._entities[key] = self._lookup(name)
        found = self._entities[key]
        return (found, False) if found is not None else (ENTITY_NS + slug(name), True)

    def is_name(self, name: str) -> bool:
        """Whether ``name`` is a name the store or the document being read gives an entity."""
        key = name.casefold()
        if key in self._aliases:
            return True
        if key not in self._entities:
            self._entities[key] = self._lookup(name)
        return key in self._named

    def alias(self, name: str, entity: str) -> None:
        """Note that the document being read calls ``entity`` also ``name``: from now on the name
        is that entity, unless the store's user entities already give it a meaning."""
        key = name.casefold()
        known = self._entities.get(key)
        if known is not None and not known.startswith(ENTITY_NS):
            return  # the user's own entity of that name wins over what a text says
        self._aliases.setdefault(key, entity)

    def known(self, names: list[str]) -> None:
        """Look up several names at once (one query), before :meth:`entity` asks for them."""
        wanted = [n for n in dict.fromkeys(names) if n.casefold() not in self._entities]
        if not wanted or self._backend is None:
            return
        variants: dict[str, str] = {}
        for name in wanted:
            for form in {name, name[:1].upper() + name[1:], name.lower(), name.title()}:
                variants.setdefault(form, name)
        terms = [Literal(v) for v in variants] + [Literal(v, language="en") for v in variants]
        found: dict[str, set[str]] = {}
        for start in range(0, len(terms), 400):
            rows = self._backend.select(_NAMED.replace("$names", sparql_terms(terms[start : start + 400])))
            for row in rows:
                named = variants.get(row["name"].value)
                if named is not None and not row["e"].value.startswith(PG_NS):
                    found.setdefault(named.casefold(), set()).add(row["e"].value)
        self._named.update(found)
        for name in wanted:
            iris = found.get(name.casefold(), set())
            own = {i for i in iris if not i.startswith(ENTITY_NS)}
            minted = iris - own
            if len(own) == 1:  # exactly one entity of the user's has the name: it is that one
                self._entities[name.casefold()] = next(iter(own))
            elif not own and len(minted) == 1 and next(iter(minted)) != ENTITY_NS + slug(name):
                # a source said the name is another name of an entity minted for another name
                self._entities[name.casefold()] = next(iter(minted))
            else:  # the name's own (minted) entity
                self._entities[name.casefold()] = None

    def _lookup(self, name: str) -> str | None:
        self.known([name])
        return self._entities.get(name.casefold())


__all__ = ["ENTITY_NS", "PROPERTY_NS", "Property", "Vocabulary", "phrase_key", "slug"]
