"""Conflict detection across the current source graphs, in SPARQL.

One aggregate query per functional predicate (and one per disjoint pair) finds the (entity,
predicate) items with more than one value after normalisation and entity resolution, and decides
in the same query whether numeric values spread beyond the predicate's tolerance. The cost is one
pass over that predicate's asserted triples (the POS index), so the whole run is linear in the
number of facts: a single query over all predicates at once was two orders of magnitude slower at
1M facts, because it groups every (subject, predicate) of the store. Only the items found get a
second query, for their statements and provenance.

Normalisation (in SPARQL, :data:`KEY`): numbers compare by value whatever their
datatype (``"1"^^xsd:integer`` = ``"1.0"^^xsd:double``); strings by their lexical form with
whitespace collapsed, datatype and language ignored, and case folded when the predicate is
declared ``pg:caseInsensitive``; IRIs after entity resolution.

Entity resolution (:func:`entity_map`) is conservative: ``owl:sameAs`` and ``skos:exactMatch``
links (in the ontology graph or in current sources) merge, and a declared alias (``E pg:alias
"ASA"``) merges a subject labelled "ASA" into E only when exactly one subject carries that label.
Two things that merely share a label are never merged.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from string import Template
from typing import Any, TypeVar
from urllib.parse import urlsplit

from provgraph.store import revocations
from provgraph.store import view as current_view
from provgraph.store.base import Backend
from provgraph.store.terms import Literal, Row, parse_datetime, sparql_term, sparql_terms
from provgraph.trust.confidence import decay, statement_confidence
from provgraph.trust.models import ConflictKind, ValueClaim
from provgraph.trust.policy import Policy
from provgraph.vocab import DCTERMS_NS, ID_NS, PG_NS

#: Statement properties that say when a value was last edited or checked (recency uses the first found).
EDIT_TIME_PROPERTIES = (PG_NS + "lastVerified", "http://dbpedia.org/metadata/lastedit")
#: Entities per VALUES block of a details query.
BATCH = 400
#: Up to this many named graphs that are not current sources are excluded by name; beyond, the
#: detection queries join the catalog instead.
EXCLUDE_LIMIT = 64
#: A VALUES row that binds nothing: the query reads every one (measured no slower than no VALUES).
EVERY = "UNDEF"
EVERY_PAIR = "(UNDEF UNDEF)"

# ---------------------------------------------------------------------- queries

# Where the current sources' triples are read: ``$sources { triple } $unlisted`` in a query,
# filled by _current_sources. The current view (:mod:`provgraph.store.view`) holds exactly the
# triples of the current source graphs: one graph, read from its indexes whatever the number of
# documents. A store without one (written before provgraph kept it, opened read-only) is read
# through its graphs: joined with the catalog, Oxigraph loops over every graph and the cost grows
# faster than the store (1.2 s per predicate at 1M facts in 10k graphs, against 0.05 s without
# the join), so when there are few graphs that are not current sources (the catalog, the
# ontology and conflict graphs, some superseded versions) those are excluded by name instead.
IN_VIEW = "GRAPH pgid:current"
IN_GRAPHS = "GRAPH ?g"
NOT_LISTED = Template("FILTER(?g NOT IN ($graphs))")
IN_CATALOG = "GRAPH pgid:catalog { ?g pg:status pg:Current } GRAPH ?g"

#: The current source graphs among $graphs (EVERY: all of them).
CURRENT = Template("SELECT ?g WHERE { VALUES ?g { $graphs } GRAPH pgid:catalog { ?g pg:status pg:Current } }")

#: Links between IRIs that merge them, in the current sources.
LINKS = Template("""SELECT DISTINCT ?a ?b WHERE {
  VALUES ?k { owl:sameAs skos:exactMatch }
  $sources { ?a ?k ?b } $unlisted FILTER(isIRI(?a) && isIRI(?b)) }""")
#: The subjects carrying one of the labels $labels (whitespace collapsed), in the current sources.
LABELLED = Template("""SELECT DISTINCT ?s ?l WHERE {
  VALUES ?lp { rdfs:label skos:prefLabel skos:altLabel } VALUES ?l { $labels }
  $sources { ?s ?lp ?label } $unlisted FILTER(isIRI(?s))
  FILTER(REPLACE(REPLACE(STR(?label), "\\\\s+", " "), "^ | $$", "") = ?l) }""")

# Entity resolution in a query: ?s resolved into ?c and ?o into ?co ($pairs: the (member entity)
# rows of the mapping); without a mapping, each is itself.
MAP_SUBJECT = Template("OPTIONAL { VALUES (?s ?c_m) { $pairs } } BIND(COALESCE(?c_m, ?s) AS ?c)")
MAP_OBJECT = Template("OPTIONAL { VALUES (?o ?co_m) { $pairs } } BIND(COALESCE(?co_m, ?o) AS ?co)")
SAME_SUBJECT = "BIND(?s AS ?c)"
SAME_OBJECT = "BIND(?o AS ?co)"

#: The comparison key of an object ?o (?co: resolved), see the module docstring.
KEY = (
    'IF(isLiteral(?o), IF(isNumeric(?o), CONCAT("n:", STR(xsd:double(?o))), '
    'CONCAT("s:", REPLACE(REPLACE(STR(?o), "\\\\s+", " "), "^ | $", ""))), CONCAT("i:", STR(?co)))'
)
#: :data:`KEY` of a predicate declared ``pg:caseInsensitive``.
KEY_CASELESS = (
    'IF(isLiteral(?o), IF(isNumeric(?o), CONCAT("n:", STR(xsd:double(?o))), '
    'CONCAT("s:", LCASE(REPLACE(REPLACE(STR(?o), "\\\\s+", " "), "^ | $", "")))), CONCAT("i:", STR(?co)))'
)

#: The entities with more than one value ($key) of the functional $predicate, each with whether
#: its numbers spread beyond the tolerance ($absolute, $relative) or it has other values. One
#: pass over the predicate's triples: the predicate is a constant of the query (Oxigraph reads it
#: from its index; a VALUES of predicates, or a substituted ?p, was several times slower).
ITEMS = Template("""SELECT ?c ?n ((?nonnum > 0) || ((?hi - ?lo) > $absolute
          && (?hi - ?lo) > $relative * IF(ABS(?lo) > ABS(?hi), ABS(?lo), ABS(?hi))) AS ?beyond) WHERE {
  { SELECT ?c (COUNT(DISTINCT ?k) AS ?n) (MIN(?num) AS ?lo) (MAX(?num) AS ?hi)
           (SUM(IF(BOUND(?num), 0, 1)) AS ?nonnum) WHERE {
      $sources { ?s $predicate ?o } $unlisted FILTER(isIRI(?s))
      $map_subject
      $map_object
      BIND($key AS ?k)
      BIND(IF(isNumeric(?o), xsd:double(?o), ?unbound) AS ?num)
    } GROUP BY ?c HAVING (COUNT(DISTINCT ?k) > 1) } }""")
#: The (entity, object) pairs stated with both predicates $pair (disjoint), by the subjects
#: $subjects (EVERY: any).
DISJOINT_PAIRS = Template("""SELECT DISTINCT ?c ?co WHERE {
  VALUES ?s { $subjects }
  VALUES ?pp { $pair }
  $sources { ?s ?pp ?o } $unlisted FILTER(isIRI(?s))
  $map_subject
  $map_object
} GROUP BY ?c ?co HAVING (COUNT(DISTINCT ?pp) = 2)""")

# Shaped for Oxigraph's planner, measured at 100k facts: the predicate is a constant (one query
# per predicate; a VALUES of predicates was 5x slower, a substituted ?p 3.5x), current graphs are
# filtered in Python rather than joined with the catalog (which made it start from the catalog
# and scan every graph), and document metadata and edit times come from queries of their own
# (OPTIONALs in this one cost 10x).
#: The statements of $predicate about the ($members: (subject entity) rows) subjects.
CLAIMS = Template("""SELECT ?c ?s ?o ?st ?g ?d ?conf ?k ?num WHERE {
  VALUES (?s ?c) { $members }
  GRAPH ?g {
    ?st rdf:subject ?s ; rdf:predicate $predicate ; rdf:object ?o ;
        prov:wasDerivedFrom ?d ; pg:confidence ?conf }
  $map_object
  BIND($key AS ?k)
  BIND(IF(isNumeric(?o), xsd:double(?o), ?unbound) AS ?num)
}""")
#: The statements $statements, with what a claim reads of them.
STATEMENT_CLAIMS = Template("""SELECT ?st ?s ?p ?o ?g ?d ?conf WHERE {
  VALUES ?st { $statements }
  GRAPH ?g {
    ?st rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ;
        prov:wasDerivedFrom ?d ; pg:confidence ?conf }
}""")
#: One document property ($property) of the (graph document) $pairs (EVERY: of every one): one
#: query per property, read from its index.
METADATA = Template("SELECT ?g ?d ?x WHERE { VALUES (?g ?d) { $pairs } GRAPH ?g { ?d $property ?x } }")
#: The edit times ($properties: EDIT_TIME_PROPERTIES) of the statements $statements. A query of
#: its own: as an OPTIONAL of the claims query it made Oxigraph several times slower.
EDIT_TIMES = Template("""SELECT ?st ?edit WHERE {
  VALUES ?st { $statements }
  VALUES ?ep { $properties }
  GRAPH ?g { ?st ?ep ?edit } }""")

#: Whether the graphs $graphs link IRIs that entity resolution merges.
LINKED = Template("""ASK { VALUES ?g { $graphs } VALUES ?k { owl:sameAs skos:exactMatch }
  GRAPH ?g { ?a ?k ?b FILTER(isIRI(?a) && isIRI(?b)) } }""")
#: The labels of IRIs in the graphs of the (graph, label property) rows $pairs. One VALUES of
#: both: with a VALUES of graphs and one of properties, Oxigraph read the properties in every
#: graph of the store (2 ms for 10 graphs at 100k facts, 15 ms at 1M; 0.3 ms so at both).
LABELS_IN = Template("""SELECT DISTINCT ?label WHERE { VALUES (?g ?lp) { $pairs }
  GRAPH ?g { ?s ?lp ?label FILTER(isIRI(?s)) } }""")
_LABEL_PROPERTIES = ("rdfs:label", "skos:prefLabel", "skos:altLabel")
#: The (subject, predicate) of the $predicates stated in the graphs $graphs.
TOUCHED = Template("""SELECT DISTINCT ?s ?p WHERE { VALUES ?g { $graphs } VALUES ?p { $predicates }
  GRAPH ?g { ?s ?p ?o } FILTER(isIRI(?s)) }""")

# ---------------------------------------------------------------------- items


@dataclass
class Cluster:
    """Claims whose values agree (equal after normalisation, or within tolerance)."""

    predicate: str
    claims: list[ValueClaim] = field(default_factory=list)

    @property
    def value(self) -> str:
        counts: dict[str, int] = {}
        for c in self.claims:
            counts[c.object] = counts.get(c.object, 0) + 1
        return min(counts, key=lambda o: (-counts[o], o))

    @property
    def members(self) -> list[str]:
        return sorted({c.object for c in self.claims})

    @property
    def sources(self) -> list[str]:
        return sorted({c.source for c in self.claims})


@dataclass
class Item:
    """One (entity, predicate) with more than one value: a conflict, or agreement within tolerance."""

    kind: ConflictKind
    subject: str
    predicates: tuple[str, ...]
    clusters: list[Cluster]
    members: list[str]
    object: str = ""  # the shared object of a disjoint-predicates conflict

    @property
    def iri(self) -> str:
        key = "\n".join([self.kind.value, self.subject, *self.predicates, self.object])
        return f"{ID_NS}conflict/{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}"

    @property
    def is_conflict(self) -> bool:
        return len(self.clusters) > 1


@dataclass
class Detection:
    items: list[Item]  # conflicts, then agreements within tolerance (for truth discovery)
    multi_valued: int
    merged_by_tolerance: int
    entity_map: dict[str, str]
    seconds: dict[str, float] = field(default_factory=dict)  # time per phase

    @property
    def conflicts(self) -> list[Item]:
        return [i for i in self.items if i.is_conflict]


# ---------------------------------------------------------------------- query parts


def _values(terms: Iterable[str] | None) -> str:
    """The rows of a one-variable VALUES block: ``terms`` (IRIs), or one that binds nothing
    (``None``: every one)."""
    return EVERY if terms is None else sparql_terms(terms)


def _rows(pairs: Iterable[tuple[str, str]]) -> str:
    """The rows of a two-variable VALUES block, of IRIs."""
    return " ".join("(" + sparql_terms(pair) + ")" for pair in pairs)


def _resolution(mapping: dict[str, str]) -> dict[str, str]:
    """The entity resolution of ?s and ?o in a query (MAP_SUBJECT, MAP_OBJECT)."""
    if not mapping:
        return {"map_subject": SAME_SUBJECT, "map_object": SAME_OBJECT}
    pairs = _rows(sorted(mapping.items()))
    return {"map_subject": MAP_SUBJECT.substitute(pairs=pairs), "map_object": MAP_OBJECT.substitute(pairs=pairs)}


def _key(policy: Policy, predicate: str) -> str:
    return KEY_CASELESS if predicate in policy.case_insensitive else KEY


def _current_sources(backend: Backend) -> dict[str, str]:
    """Where a query reads the current sources (see IN_VIEW): ``sources`` and ``unlisted``."""
    if current_view.is_maintained(backend):
        return {"sources": IN_VIEW, "unlisted": ""}
    current = _current(backend)
    others = [g for g in backend.named_graphs() if g.value not in current]
    if len(others) <= EXCLUDE_LIMIT:
        # IN takes a comma-separated list
        excluded = ", ".join(sorted(sparql_term(g) for g in others))
        return {"sources": IN_GRAPHS, "unlisted": NOT_LISTED.substitute(graphs=excluded) if excluded else ""}
    return {"sources": IN_CATALOG, "unlisted": ""}


def _current(backend: Backend, graphs: set[str] | None = None) -> set[str]:
    """The current source graphs (among ``graphs``)."""
    if graphs is not None and not graphs:
        return set()
    query = CURRENT.substitute(graphs=_values(None if graphs is None else sorted(graphs)))
    return {r.value("g") for r in backend.select(query)}


T = TypeVar("T")


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# ---------------------------------------------------------------------- entity resolution


def entity_map(backend: Backend, policy: Policy) -> dict[str, str]:
    """Each merged IRI to its entity (one that declares aliases, else the least IRI of its group);
    IRIs not merged are absent."""
    sources = _current_sources(backend)
    links = set(policy.same_as)
    links.update((r.value("a"), r.value("b")) for r in backend.select(LINKS.substitute(sources)))
    if policy.aliases:
        wanted: dict[str, set[str]] = {}
        for entity, labels in policy.aliases.items():
            for label in labels:
                wanted.setdefault(" ".join(label.split()), set()).add(entity)
        carriers: dict[str, set[str]] = {}
        query = LABELLED.substitute(sources, labels=sparql_terms(Literal(label) for label in wanted))
        for r in backend.select(query):
            carriers.setdefault(r.value("l"), set()).add(r.value("s"))
        for label, entities in wanted.items():
            subjects = carriers.get(label, set()) - entities
            # an alias two entities declare, or two subjects carry, says nothing about either
            if len(entities) == 1 and len(subjects) == 1:
                links.add((next(iter(entities)), next(iter(subjects))))
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    def rank(x: str) -> tuple[int, str]:
        # an entity the policy names (it declares aliases) represents its group, else the least IRI
        return (0 if x in policy.aliases else 1, x)

    for a, b in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            keep, drop = sorted((ra, rb), key=rank)
            parent[drop] = keep
    return {x: find(x) for x in parent if find(x) != x}


def find_items(
    backend: Backend, policy: Policy, predicate: str, mapping: dict[str, str]
) -> tuple[list[tuple[str, bool]], int]:
    """The entities with more than one value of a functional ``predicate`` in current sources, each
    with whether its values conflict (True) or all agree within tolerance (False)."""
    tol = policy.tolerance(predicate)
    query = ITEMS.substitute(
        _current_sources(backend),
        **_resolution(mapping),
        predicate=sparql_term(predicate),
        key=_key(policy, predicate),
        absolute=sparql_term(Literal(tol.absolute)),
        relative=sparql_term(Literal(tol.relative)),
    )
    found = [(r.value("c"), r.value("beyond") == "true") for r in backend.select(query)]
    return found, len(found)


def find_disjoint(
    backend: Backend, p: str, q: str, mapping: dict[str, str], *, subjects: Sequence[str] | None = None
) -> list[tuple[str, str]]:
    """(entity, object key) pairs stated with both disjoint predicates ``p`` and ``q`` (by
    ``subjects`` only, when given)."""
    if subjects is not None and not subjects:
        return []
    query = DISJOINT_PAIRS.substitute(
        _current_sources(backend), **_resolution(mapping), subjects=_values(subjects), pair=sparql_terms((p, q))
    )
    return [(r.value("c"), str(r["co"])) for r in backend.select(query)]


def _members(entities: Iterable[str], mapping: dict[str, str]) -> dict[str, list[str]]:
    """Each entity with the IRIs resolved to it (itself first)."""
    wanted = {e: [e] for e in entities}
    for member, entity in mapping.items():
        if entity in wanted:
            wanted[entity].append(member)
    return wanted


def source_key(document: str, url: str | None, publisher: str | None) -> str:
    """An independent source: the publisher, else the host of the source URL (a Wikipedia
    edition for DBpedia articles), else the document itself."""
    if publisher:
        return publisher
    if url:
        host = urlsplit(url).hostname
        if host:
            return host
    return document


# ---------------------------------------------------------------------- claims


def claims(
    backend: Backend,
    policy: Policy,
    predicates: Sequence[str],
    entities: Sequence[str],
    mapping: dict[str, str],
    *,
    now: datetime,
    whole: bool = False,
) -> dict[str, list[ValueClaim]]:
    """The statements of ``predicates`` about ``entities`` (and the IRIs resolved to them) in
    current sources, by entity (see CLAIMS for the shape of the query); revoked statements left
    out. ``whole``: as :func:`claims_each`."""
    found = claims_each(backend, policy, {p: entities for p in predicates}, mapping, now=now, whole=whole)
    out: dict[str, list[ValueClaim]] = {}
    for predicate in predicates:
        for entity, claimed in found[predicate].items():
            out.setdefault(entity, []).extend(claimed)
    return out


def claims_each(
    backend: Backend,
    policy: Policy,
    wanted: Mapping[str, Sequence[str]],
    mapping: dict[str, str],
    *,
    now: datetime,
    whole: bool = False,
) -> dict[str, dict[str, list[ValueClaim]]]:
    """:func:`claims` of each predicate of ``wanted`` about its entities, by predicate and entity,
    with the status and metadata of their graphs read once for all of them. ``whole``: a full
    run, which reads those of every document when the claims are in many (a read per predicate
    made a run's cost grow with predicates times documents: 5.8 of 23.6 s at 1M facts)."""
    resolution = _resolution(mapping)
    found: list[tuple[str, list[Row]]] = []
    for predicate, entities in wanted.items():
        members = _members(entities, mapping)
        flat = [(m, e) for e, ms in members.items() for m in ms]
        for i in range(0, len(flat), BATCH):
            query = CLAIMS.substitute(
                members=_rows(flat[i : i + BATCH]),
                predicate=sparql_term(predicate),
                map_object=resolution["map_object"],
                key=_key(policy, predicate),
            )
            found.append((predicate, backend.select(query)))
    pairs = {(r.value("g"), r.value("d")) for _, rows in found for r in rows}
    current, meta = _graphs_of(backend, pairs, whole=whole)
    revoked = revocations.statements(backend)
    out: dict[str, dict[str, list[ValueClaim]]] = {p: {} for p in wanted}
    for predicate, rows in found:
        kept = [r for r in rows if r.value("g") in current and r.value("st") not in revoked]
        for r, claim in zip(kept, _claims_of(backend, policy, kept, predicate, now, meta), strict=True):
            out[predicate].setdefault(r.value("c"), []).append(claim)
    return out


def claims_by_statement(
    backend: Backend, policy: Policy, statements: Sequence[str], *, now: datetime
) -> dict[str, ValueClaim]:
    """The claims of the given statements (in current graphs, not revoked), by statement IRI."""
    out: dict[str, ValueClaim] = {}
    if not statements:
        return out
    chunks = [
        backend.select(STATEMENT_CLAIMS.substitute(statements=sparql_terms(chunk)))
        for chunk in _chunks(sorted(set(statements)), BATCH)
    ]
    # a few statements (the conflicts about one entity) are read on every question
    current, meta = _graphs_of(backend, {(r.value("g"), r.value("d")) for rows in chunks for r in rows})
    revoked = revocations.statements(backend)
    for rows in chunks:
        kept = [r for r in rows if r.value("g") in current and r.value("st") not in revoked]
        for claim in _claims_of(backend, policy, kept, None, now, meta):
            out.setdefault(claim.statement, claim)
    return out


def _graphs_of(
    backend: Backend, pairs: set[tuple[str, str]], *, whole: bool = False
) -> tuple[set[str], dict[tuple[str, str], dict[str, str]]]:
    """Which of the graphs of the (graph, document) ``pairs`` are current, and the metadata of
    the pairs: looked up, a chunk of them a query, unless they are many in a full run
    (``whole``): then one scan per property is cheaper than lookups."""
    if whole and len(pairs) > BATCH:
        return _current(backend), _metadata(backend)
    current: set[str] = set()
    meta: dict[tuple[str, str], dict[str, str]] = {}
    for chunk in _chunks(sorted(pairs), BATCH):
        current |= _current(backend, {g for g, _ in chunk})
        meta |= _metadata(backend, set(chunk))
    return current, meta


def _metadata(backend: Backend, pairs: set[tuple[str, str]] | None = None) -> dict[tuple[str, str], dict[str, str]]:
    """Tier, URL, publisher and issue date of the (graph, document) ``pairs``, or of every one:
    then one scan per property, linear in the number of documents (per-chunk VALUES lookups cost
    10x more at 10k documents)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    if pairs is not None and not pairs:
        return out
    rows = EVERY_PAIR if pairs is None else _rows(sorted(pairs))
    fields = {
        "tier": PG_NS + "tier",
        "url": PG_NS + "sourceUrl",
        "publisher": DCTERMS_NS + "publisher",
        "issued": DCTERMS_NS + "issued",
    }
    for name, prop in fields.items():
        for r in backend.select(METADATA.substitute(pairs=rows, property=sparql_term(prop))):
            out.setdefault((r.value("g"), r.value("d")), {})[name] = r.value("x")
    return out


def _claims_of(
    backend: Backend,
    policy: Policy,
    rows: list[Row],
    predicate: str | None,
    now: datetime,
    meta: dict[tuple[str, str], dict[str, str]],
) -> list[ValueClaim]:
    """The claims of the statements ``rows`` (of CLAIMS when ``predicate`` is given, else of
    STATEMENT_CLAIMS), their confidence decayed to ``now``."""
    if not rows:
        return []
    edits = _edit_times(backend, [r.value("st") for r in rows])
    out = []
    for row in rows:
        st, g, doc = row.value("st"), row.value("g"), row.value("d")
        p = predicate or row.value("p")
        info = meta.get((g, doc), {})
        tier = int(info.get("tier", "3"))
        when = edits.get(st) or _time(info.get("issued"))
        conf = statement_confidence(min(1.0, max(0.0, row.number("conf"))), tier)
        rate = policy.decay.rate(p)
        if rate and when is not None:
            conf = decay(conf, (now - when).total_seconds() / 86400, rate)
        out.append(
            ValueClaim(
                statement=st,
                graph=g,
                document=doc,
                source=source_key(doc, info.get("url"), info.get("publisher")),
                subject=row.value("s"),
                object=str(row["o"]),
                predicate=p,
                key=row.value("k") if predicate is not None else "",
                number=row.optional_number("num") if predicate is not None else None,
                tier=tier,
                confidence=conf,
                time=when,
            )
        )
    return out


def _time(text: str | None) -> datetime | None:
    """An edit or issue time (UTC when it says no zone); None when there is none or it is no
    dateTime (an ``xsd:date`` or a free text)."""
    if text is None:
        return None
    try:
        when = parse_datetime(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _edit_times(backend: Backend, statements: Sequence[str]) -> dict[str, datetime]:
    """The latest edit time of each statement that has one (EDIT_TIMES)."""
    if not statements:
        return {}
    query = EDIT_TIMES.substitute(
        statements=sparql_terms(set(statements)), properties=sparql_terms(EDIT_TIME_PROPERTIES)
    )
    out: dict[str, datetime] = {}
    for r in backend.select(query):
        when = _time(r.value("edit"))
        st = r.value("st")
        if when is not None and (st not in out or when > out[st]):
            out[st] = when
    return out


# ---------------------------------------------------------------------- detection


def cluster(claims_: Sequence[ValueClaim], policy: Policy, predicate: str) -> list[Cluster]:
    """Group claims whose values agree. Numbers with a tolerance: sorted, each cluster anchored
    at its smallest value, so a cluster never spans more than the tolerance (a chain of close
    values does not hide a large difference). Everything else: by normalised key."""
    tol = policy.tolerances.get(predicate)
    clusters: list[Cluster] = []
    # in the statements' order, not the order a store returned them in (Virtuoso's varies under
    # load): a conflict's record is the same however it was read
    claims_ = sorted(claims_, key=lambda c: c.statement)
    numbers = sorted((c for c in claims_ if c.number is not None), key=lambda c: (c.number, c.object, c.statement))
    others = [c for c in claims_ if c.number is None]
    if tol is not None:
        anchor: float | None = None
        for c in numbers:
            assert c.number is not None
            if anchor is None or not tol.agrees(anchor, c.number):
                clusters.append(Cluster(predicate))
                anchor = c.number
            clusters[-1].claims.append(c)
    else:
        others = list(claims_)
    by_key: dict[str, Cluster] = {}
    for c in others:
        by_key.setdefault(c.key, Cluster(predicate)).claims.append(c)
    # numbers in numeric order, then everything else by key: a stable order for records
    clusters.extend(
        by_key[k]
        for k in sorted(by_key, key=lambda k: (by_key[k].claims[0].number is None, by_key[k].claims[0].number or 0, k))
    )
    return clusters


def detect(
    backend: Backend,
    policy: Policy,
    *,
    predicates: Sequence[str] | None = None,
    learn_from_agreement: bool = True,
    now: datetime | None = None,
) -> Detection:
    """Every conflict in the current sources under ``policy`` (``predicates``: the functional
    predicates to check, default the policy's), plus the items whose values agree within tolerance
    when ``learn_from_agreement`` (truth discovery learns from them)."""
    now = now or datetime.now(UTC)
    clock = time.perf_counter()
    seconds = {"entities": 0.0, "find": 0.0, "claims": 0.0}
    mapping = entity_map(backend, policy)
    seconds["entities"] = time.perf_counter() - clock
    functional = sorted(predicates if predicates is not None else policy.functional)
    items: list[Item] = []
    agreements: list[Item] = []
    multi = merged = 0
    wanted: dict[str, list[str]] = {}
    for predicate in functional:
        clock = time.perf_counter()
        found, n = find_items(backend, policy, predicate, mapping)
        seconds["find"] += time.perf_counter() - clock
        multi += n
        merged += sum(1 for _, beyond in found if not beyond)
        wanted[predicate] = [e for e, beyond in found if beyond or learn_from_agreement]
    clock = time.perf_counter()
    claimed = claims_each(backend, policy, wanted, mapping, now=now, whole=True)
    seconds["claims"] += time.perf_counter() - clock
    for predicate, entities in wanted.items():
        members = _members(entities, mapping)
        for entity in entities:
            found_claims = claimed[predicate].get(entity, [])
            if len({c.key for c in found_claims}) < 2:
                continue  # the other values are revoked statements' (the triples stay asserted)
            groups = cluster(found_claims, policy, predicate)
            item = Item(ConflictKind.FUNCTIONAL, entity, (predicate,), groups, members[entity][1:])
            (items if item.is_conflict else agreements).append(item)
    for p, q in sorted(policy.disjoint):
        clock = time.perf_counter()
        items += _disjoint_items(backend, policy, p, q, None, mapping, now=now)
        seconds["claims"] += time.perf_counter() - clock
    return Detection(items + agreements, multi, merged, mapping, {k: round(v, 3) for k, v in seconds.items()})


# ---------------------------------------------------------------------- items as stored


def item_state(item: Item) -> str:
    """What resolving ``item`` needs (its values and their claims), as JSON: stored with its
    record, so that a change of source accuracies re-resolves it without reading its claims."""
    return json.dumps(
        {
            "kind": item.kind.value,
            "subject": item.subject,
            "predicates": list(item.predicates),
            "object": item.object,
            "members": item.members,
            "clusters": [
                {
                    "predicate": c.predicate,
                    "claims": [
                        [
                            x.statement,
                            x.graph,
                            x.document,
                            x.source,
                            x.subject,
                            x.object,
                            x.predicate,
                            x.key,
                            x.number,
                            x.tier,
                            x.confidence,
                            x.time.isoformat() if x.time is not None else None,
                        ]
                        for x in c.claims
                    ],
                }
                for c in item.clusters
            ],
        },
        separators=(",", ":"),
    )


def item_from_state(text: str) -> Item:
    """The item :func:`item_state` describes."""
    return item_from_data(json.loads(text))


def item_from_data(data: dict[str, Any]) -> Item:
    """The item an :func:`item_state` (parsed) describes."""
    clusters = [
        Cluster(
            c["predicate"],
            [
                ValueClaim(
                    statement=x[0],
                    graph=x[1],
                    document=x[2],
                    source=x[3],
                    subject=x[4],
                    object=x[5],
                    predicate=x[6],
                    key=x[7],
                    number=x[8],
                    tier=x[9],
                    confidence=x[10],
                    time=parse_datetime(x[11]) if x[11] is not None else None,
                )
                for x in c["claims"]
            ],
        )
        for c in data["clusters"]
    ]
    return Item(
        ConflictKind(data["kind"]),
        data["subject"],
        tuple(data["predicates"]),
        clusters,
        data["members"],
        data["object"],
    )


def votes(item: Item) -> tuple[tuple[str, ...], ...]:
    """What truth discovery reads of an item: the sources of each of its values."""
    return tuple(tuple(c.sources) for c in item.clusters)


def state_votes(state: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """:func:`votes` of the item an :func:`item_state` (parsed) describes, without building it."""
    return tuple(tuple(sorted({x[3] for x in c["claims"]})) for c in state["clusters"])


# ---------------------------------------------------------------------- incremental detection


def links_changed(backend: Backend, policy: Policy, graphs: Sequence[str]) -> bool:
    """Whether ``graphs`` (added or removed sources) hold what entity resolution reads: an
    ``owl:sameAs`` or ``skos:exactMatch`` link between IRIs, or a label that is one of the
    policy's aliases. Read from those graphs alone."""
    if not graphs:
        return False
    values = sparql_terms(graphs)
    if backend.ask(LINKED.substitute(graphs=values)):
        return True
    if not policy.aliases:
        return False
    aliases = {" ".join(label.split()) for labels in policy.aliases.values() for label in labels}
    for chunk in _chunks(sorted(graphs), BATCH):
        pairs = " ".join(f"({sparql_term(g)} {lp})" for g in chunk for lp in _LABEL_PROPERTIES)
        rows = backend.stream(LABELS_IN.substitute(pairs=pairs))
        if any(" ".join(r.value("label").split()) in aliases for r in rows):
            return True
    return False


def touched(
    backend: Backend, graphs: Sequence[str], predicates: Iterable[str], mapping: dict[str, str]
) -> set[tuple[str, str]]:
    """The (entity, predicate) keys whose items the triples of ``graphs`` may change: every
    subject (resolved to its entity) of ``predicates`` in them. Read from those graphs alone."""
    wanted = sorted(set(predicates))
    if not graphs or not wanted:
        return set()
    found: set[tuple[str, str]] = set()
    for chunk in _chunks(sorted(graphs), BATCH):
        query = TOUCHED.substitute(graphs=sparql_terms(chunk), predicates=sparql_terms(wanted))
        for r in backend.select(query):
            subject = r.value("s")
            found.add((mapping.get(subject, subject), r.value("p")))
    return found


def detect_keys(
    backend: Backend,
    policy: Policy,
    keys: Iterable[tuple[str, str]],
    mapping: dict[str, str],
    *,
    functional: Iterable[str],
    now: datetime,
) -> list[Item]:
    """The items (conflicts and agreements within tolerance) of the (entity, predicate) ``keys``,
    as :func:`detect` finds them over the whole store: for a ``functional`` predicate, the
    entity's values of it; for a predicate of a disjoint pair, the entity's objects of both."""
    checked = set(functional)
    by_predicate: dict[str, set[str]] = {}
    for entity, predicate in keys:
        by_predicate.setdefault(predicate, set()).add(entity)
    items: list[Item] = []
    wanted = {p: sorted(by_predicate[p]) for p in sorted(set(by_predicate) & checked)}
    claimed = claims_each(backend, policy, wanted, mapping, now=now)
    for predicate, entities in wanted.items():
        members = _members(entities, mapping)
        for entity in entities:
            found = claimed[predicate].get(entity, [])
            if len({c.key for c in found}) > 1:
                items.append(
                    Item(
                        ConflictKind.FUNCTIONAL,
                        entity,
                        (predicate,),
                        cluster(found, policy, predicate),
                        members[entity][1:],
                    )
                )
    for p, q in sorted(policy.disjoint):
        entities = sorted(by_predicate.get(p, set()) | by_predicate.get(q, set()))
        if entities:
            items += _disjoint_items(backend, policy, p, q, entities, mapping, now=now)
    return items


def _disjoint_items(
    backend: Backend,
    policy: Policy,
    p: str,
    q: str,
    entities: Sequence[str] | None,
    mapping: dict[str, str],
    *,
    now: datetime,
) -> list[Item]:
    """The conflicts of the disjoint predicates ``p`` and ``q`` (about ``entities`` only, when given)."""
    subjects = None if entities is None else [m for ms in _members(entities, mapping).values() for m in ms]
    pairs = find_disjoint(backend, p, q, mapping, subjects=subjects)
    found = sorted({e for e, _ in pairs})
    by_entity = claims(backend, policy, [p, q], found, mapping, now=now, whole=entities is None)
    members = _members(found, mapping)
    items = []
    for entity, obj in pairs:
        mapped_obj = f"i:{obj[1:-1]}" if obj.startswith("<") else None
        relevant = [c for c in by_entity.get(entity, []) if mapped_obj is None or c.key == mapped_obj]
        if mapped_obj is None:
            relevant = [c for c in by_entity.get(entity, []) if c.object == obj]
        groups = [Cluster(pred, [c for c in relevant if c.predicate == pred]) for pred in (p, q)]
        kept = [g for g in groups if g.claims]
        item = Item(ConflictKind.DISJOINT, entity, (p, q), kept, members[entity][1:], obj)
        if item.is_conflict:
            items.append(item)
    return items


__all__ = [
    "EDIT_TIME_PROPERTIES",
    "Cluster",
    "Detection",
    "Item",
    "claims",
    "claims_by_statement",
    "cluster",
    "detect",
    "detect_keys",
    "entity_map",
    "find_disjoint",
    "find_items",
    "item_from_data",
    "item_from_state",
    "item_state",
    "links_changed",
    "source_key",
    "state_votes",
    "touched",
    "votes",
]
