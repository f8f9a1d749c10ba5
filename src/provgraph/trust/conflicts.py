"""Conflict detection across the current source graphs, in SPARQL.

One aggregate query per functional predicate (and one per disjoint pair) finds the (entity,
predicate) items with more than one value after normalisation and entity resolution, and decides
in the same query whether numeric values spread beyond the predicate's tolerance. The cost is one
pass over that predicate's asserted triples (the POS index), so the whole run is linear in the
number of facts: a single query over all predicates at once was two orders of magnitude slower at
1M facts, because it groups every (subject, predicate) of the store. Only the items found get a
second query, for their statements and provenance.

Normalisation (in SPARQL, :func:`key_expression`): numbers compare by value whatever their
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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from pyoxigraph import Literal, QuerySolutions

from provgraph.store import view as current_view
from provgraph.store.base import Backend
from provgraph.trust.confidence import decay, statement_confidence
from provgraph.trust.models import ConflictKind
from provgraph.trust.policy import Policy
from provgraph.vocab import CATALOG_GRAPH, CURRENT_VIEW, DCTERMS_NS, ID_NS, PG_NS, PROV_NS, RDF_NS

OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
XSD = "http://www.w3.org/2001/XMLSchema#"
LABELS = ("http://www.w3.org/2000/01/rdf-schema#label", SKOS + "prefLabel", SKOS + "altLabel")
#: Statement properties that say when a value was last edited or checked (recency uses the first found).
EDIT_TIME_PROPERTIES = (PG_NS + "lastVerified", "http://dbpedia.org/metadata/lastedit")
#: Entities per VALUES block of a details query.
BATCH = 400

_CAT = f"<{CATALOG_GRAPH.value}>"
_VIEW = f"<{CURRENT_VIEW.value}>"


@dataclass(frozen=True)
class Claim:
    statement: str
    graph: str
    document: str
    source: str
    subject: str
    object: str  # N-Triples
    predicate: str
    key: str
    number: float | None
    tier: int
    confidence: float
    time: datetime | None


@dataclass
class Cluster:
    """Claims whose values agree (equal after normalisation, or within tolerance)."""

    predicate: str
    claims: list[Claim] = field(default_factory=list)

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


# ---------------------------------------------------------------------- entity resolution


def _rows(backend: Backend, query: str) -> QuerySolutions:
    result = backend.query(query)
    assert isinstance(result, QuerySolutions)
    return result


def entity_map(backend: Backend, policy: Policy) -> dict[str, str]:
    """Each merged IRI to its entity (one that declares aliases, else the least IRI of its group);
    IRIs not merged are absent."""
    links = set(policy.same_as)
    for r in _rows(
        backend,
        f"""SELECT DISTINCT ?a ?b WHERE {{
  VALUES ?k {{ <{OWL}sameAs> <{SKOS}exactMatch> }}
  {_current_graph_pattern(backend, "?a ?k ?b")} FILTER(isIRI(?a) && isIRI(?b)) }}""",
    ):
        links.add((r["a"].value, r["b"].value))  # type: ignore[union-attr]
    if policy.aliases:
        wanted: dict[str, set[str]] = {}
        for entity, labels in policy.aliases.items():
            for label in labels:
                wanted.setdefault(" ".join(label.split()), set()).add(entity)
        values = " ".join(str(Literal(label)) for label in wanted)
        props = " ".join(f"<{p}>" for p in LABELS)
        carriers: dict[str, set[str]] = {}
        for r in _rows(
            backend,
            f"""SELECT DISTINCT ?s ?l WHERE {{
  VALUES ?lp {{ {props} }} VALUES ?l {{ {values} }}
  {_current_graph_pattern(backend, "?s ?lp ?label")} FILTER(isIRI(?s))
  FILTER(REPLACE(REPLACE(STR(?label), "\\\\s+", " "), "^ | $", "") = ?l) }}""",
        ):
            carriers.setdefault(r["l"].value, set()).add(r["s"].value)  # type: ignore[union-attr]
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


def _map_clause(var: str, out: str, mapping: dict[str, str]) -> str:
    if not mapping:
        return f"BIND({var} AS {out})"
    values = " ".join(f"(<{a}> <{b}>)" for a, b in sorted(mapping.items()))
    tmp = out + "_m"
    return f"OPTIONAL {{ VALUES ({var} {tmp}) {{ {values} }} }} BIND(COALESCE({tmp}, {var}) AS {out})"


def key_expression(var: str, mapped: str, *, case_insensitive: bool) -> str:
    """The SPARQL expression of the comparison key of an object (see the module docstring)."""
    text = f'REPLACE(REPLACE(STR({var}), "\\\\s+", " "), "^ | $", "")'
    if case_insensitive:
        text = f"LCASE({text})"
    return (
        f'IF(isLiteral({var}), IF(isNumeric({var}), CONCAT("n:", STR(xsd:double({var}))), CONCAT("s:", {text})), '
        f'CONCAT("i:", STR({mapped})))'
    )


_PREFIX = f"PREFIX xsd: <{XSD}>\n"


def find_items(
    backend: Backend, policy: Policy, predicate: str, mapping: dict[str, str]
) -> tuple[list[tuple[str, bool]], int]:
    """The entities with more than one value of a functional ``predicate`` in current sources, each
    with whether its values conflict (True) or all agree within tolerance (False)."""
    tol = policy.tolerance(predicate)
    key = key_expression("?o", "?co", case_insensitive=predicate in policy.case_insensitive)
    query = (
        _PREFIX
        + f"""SELECT ?c ?n ((?nonnum > 0) || ((?hi - ?lo) > {tol.absolute!r}
          && (?hi - ?lo) > {tol.relative!r} * IF(ABS(?lo) > ABS(?hi), ABS(?lo), ABS(?hi))) AS ?beyond) WHERE {{
  {{ SELECT ?c (COUNT(DISTINCT ?k) AS ?n) (MIN(?num) AS ?lo) (MAX(?num) AS ?hi)
           (SUM(IF(BOUND(?num), 0, 1)) AS ?nonnum) WHERE {{
      {_current_graph_pattern(backend, f"?s <{predicate}> ?o")} FILTER(isIRI(?s))
      {_map_clause("?s", "?c", mapping)}
      {_map_clause("?o", "?co", mapping)}
      BIND({key} AS ?k)
      BIND(IF(isNumeric(?o), xsd:double(?o), ?unbound) AS ?num)
    }} GROUP BY ?c HAVING (COUNT(DISTINCT ?k) > 1) }} }}"""
    )
    found = [(r["c"].value, r["beyond"].value == "true") for r in _rows(backend, query)]  # type: ignore[union-attr]
    return found, len(found)


def find_disjoint(
    backend: Backend, p: str, q: str, mapping: dict[str, str], *, subjects: Sequence[str] | None = None
) -> list[tuple[str, str]]:
    """(entity, object key) pairs stated with both disjoint predicates ``p`` and ``q`` (by
    ``subjects`` only, when given)."""
    if subjects is not None and not subjects:
        return []
    bound = "" if subjects is None else "VALUES ?s { " + " ".join(f"<{x}>" for x in subjects) + " }"
    query = f"""SELECT DISTINCT ?c ?co WHERE {{
  {bound}
  VALUES ?pp {{ <{p}> <{q}> }}
  {_current_graph_pattern(backend, "?s ?pp ?o")} FILTER(isIRI(?s))
  {_map_clause("?s", "?c", mapping)}
  {_map_clause("?o", "?co", mapping)}
}} GROUP BY ?c ?co HAVING (COUNT(DISTINCT ?pp) = 2)"""
    return [(r["c"].value, str(r["co"])) for r in _rows(backend, query)]  # type: ignore[union-attr]


def _members(entities: Iterable[str], mapping: dict[str, str]) -> dict[str, list[str]]:
    """Each entity with the IRIs resolved to it (itself first)."""
    wanted = {e: [e] for e in entities}
    for member, entity in mapping.items():
        if entity in wanted:
            wanted[entity].append(member)
    return wanted


#: Up to this many named graphs that are not current sources are excluded by name; beyond, the
#: detection queries join the catalog instead.
EXCLUDE_LIMIT = 64


def _current_graph_pattern(backend: Backend, triple: str) -> str:
    """``triple`` in the current sources.

    The current view (:mod:`provgraph.store.view`) holds exactly the triples of the current
    source graphs: one graph, read from its indexes whatever the number of documents. A store
    without one (written before provgraph kept it, opened read-only) is read through its graphs:
    joined with the catalog, Oxigraph loops over every graph and the cost grows faster than the
    store (1.2 s per predicate at 1M facts in 10k graphs, against 0.05 s without the join), so
    when there are few graphs that are not current sources (the catalog, the ontology and
    conflict graphs, some superseded versions) those are excluded by name instead."""
    if current_view.is_maintained(backend):
        return f"GRAPH {_VIEW} {{ {triple} }}"
    current = _current(backend)
    others = [str(g) for g in backend.named_graphs() if g.value not in current]
    if len(others) <= EXCLUDE_LIMIT:
        excluded = ", ".join(sorted(others))
        return f"GRAPH ?g {{ {triple} }}" + (f" FILTER(?g NOT IN ({excluded}))" if excluded else "")
    return f"GRAPH {_CAT} {{ ?g <{PG_NS}status> <{PG_NS}Current> }} GRAPH ?g {{ {triple} }}"


def _current(backend: Backend, graphs: set[str] | None = None) -> set[str]:
    """The current source graphs (among ``graphs``)."""
    bound = "" if graphs is None else "VALUES ?g { " + " ".join(f"<{g}>" for g in sorted(graphs)) + " }"
    if graphs is not None and not graphs:
        return set()
    query = f"SELECT ?g WHERE {{ {bound} GRAPH {_CAT} {{ ?g <{PG_NS}status> <{PG_NS}Current> }} }}"
    return {r["g"].value for r in _rows(backend, query)}  # type: ignore[union-attr]


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


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


def _time(term: object | None) -> datetime | None:
    if term is None:
        return None
    text = term.value  # type: ignore[attr-defined]
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


_STATEMENT = f"""GRAPH ?g {{
    ?st <{RDF_NS}subject> ?s ; <{RDF_NS}predicate> PREDICATE ; <{RDF_NS}object> ?o ;
        <{PROV_NS}wasDerivedFrom> ?d ; <{PG_NS}confidence> ?conf }}"""


def claims(
    backend: Backend,
    policy: Policy,
    predicates: Sequence[str],
    entities: Sequence[str],
    mapping: dict[str, str],
    *,
    now: datetime,
) -> dict[str, list[Claim]]:
    """The statements of ``predicates`` about ``entities`` (and the IRIs resolved to them) in
    current sources, by entity.

    Shaped for Oxigraph's planner, measured at 100k facts: the predicate is a constant (one query
    per predicate; a VALUES of predicates was 5x slower), current graphs are filtered here rather
    than joined with the catalog (which made it start from the catalog and scan every graph), and
    document metadata and edit times come from queries of their own (OPTIONALs in this one cost
    10x)."""
    out: dict[str, list[Claim]] = {}
    if not entities:
        return out
    members = _members(entities, mapping)
    flat = [f"(<{m}> <{e}>)" for e, ms in members.items() for m in ms]
    found: list[tuple[str, list[object]]] = []
    for predicate in predicates:
        key = key_expression("?o", "?co", case_insensitive=predicate in policy.case_insensitive)
        for chunk in _chunks(flat, BATCH):
            query = (
                _PREFIX
                + f"""SELECT ?c ?s ?o ?st ?g ?d ?conf ?k ?num WHERE {{
  VALUES (?s ?c) {{ {" ".join(chunk)} }}
  {_STATEMENT.replace("PREDICATE", f"<{predicate}>")}
  {_map_clause("?o", "?co", mapping)}
  BIND({key} AS ?k)
  BIND(IF(isNumeric(?o), xsd:double(?o), ?unbound) AS ?num)
}}"""
            )
            found.append((predicate, list(_rows(backend, query))))
    # the status and metadata of the graphs these statements are in, not of every graph, unless
    # they are many (a whole run): then one scan per property is cheaper than lookups
    pairs = {(r["g"].value, r["d"].value) for _, rows in found for r in rows}  # type: ignore[index]
    if len(pairs) > BATCH:
        current, meta = _current(backend), _metadata(backend)
    else:
        current, meta = _current(backend, {g for g, _ in pairs}), _metadata(backend, pairs)
    for predicate, rows in found:
        kept = [r for r in rows if r["g"].value in current]  # type: ignore[index]
        for c, claim in zip(
            (r["c"].value for r in kept),  # type: ignore[index]
            _claims_of(backend, policy, kept, predicate, now, meta),
            strict=True,
        ):
            out.setdefault(c, []).append(claim)
    return out


def claims_by_statement(
    backend: Backend, policy: Policy, statements: Sequence[str], *, now: datetime
) -> dict[str, Claim]:
    """The claims of the given statements (in current graphs), by statement IRI."""
    out: dict[str, Claim] = {}
    if not statements:
        return out
    chunks = []
    for chunk in _chunks(sorted(set(statements)), BATCH):
        query = f"""SELECT ?st ?s ?p ?o ?g ?d ?conf WHERE {{
  VALUES ?st {{ {" ".join(f"<{s}>" for s in chunk)} }}
  {_STATEMENT.replace("PREDICATE", "?p")}
}}"""
        chunks.append(list(_rows(backend, query)))
    # the status and metadata of the graphs these statements are in, not of every graph: a few
    # statements (the conflicts about one entity) are read on every question
    pairs = {(r["g"].value, r["d"].value) for rows in chunks for r in rows}  # type: ignore[union-attr]
    if len(pairs) > BATCH:
        current, meta = _current(backend), _metadata(backend)
    else:
        current, meta = _current(backend, {g for g, _ in pairs}), _metadata(backend, pairs)
    for rows in chunks:
        kept = [r for r in rows if r["g"].value in current]  # type: ignore[union-attr]
        for claim in _claims_of(backend, policy, kept, None, now, meta):
            out.setdefault(claim.statement, claim)
    return out


def _metadata(backend: Backend, pairs: set[tuple[str, str]] | None = None) -> dict[tuple[str, str], dict[str, str]]:
    """Tier, URL, publisher and issue date of the (graph, document) ``pairs``, or of every one:
    then one scan per property, linear in the number of documents (per-chunk VALUES lookups cost
    10x more at 10k documents)."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    bound = "" if pairs is None else "VALUES (?g ?d) { " + " ".join(f"(<{g}> <{d}>)" for g, d in sorted(pairs)) + " }"
    if pairs is not None and not pairs:
        return out
    fields = {
        "tier": PG_NS + "tier",
        "url": PG_NS + "sourceUrl",
        "publisher": DCTERMS_NS + "publisher",
        "issued": DCTERMS_NS + "issued",
    }
    for name, prop in fields.items():
        for r in _rows(backend, f"SELECT ?g ?d ?x WHERE {{ {bound} GRAPH ?g {{ ?d <{prop}> ?x }} }}"):
            out.setdefault((r["g"].value, r["d"].value), {})[name] = r["x"].value  # type: ignore[union-attr]
    return out


def _claims_of(
    backend: Backend,
    policy: Policy,
    rows: list[object],
    predicate: str | None,
    now: datetime,
    meta: dict[tuple[str, str], dict[str, str]],
) -> list[Claim]:
    if not rows:
        return []
    edits = _edit_times(backend, [r["st"].value for r in rows])  # type: ignore[index]
    out = []
    for r in rows:
        row = r  # a pyoxigraph QuerySolution
        st, g, doc = row["st"].value, row["g"].value, row["d"].value  # type: ignore[index]
        p = predicate or row["p"].value  # type: ignore[index]
        info = meta.get((g, doc), {})
        tier = int(info.get("tier", "3"))
        when = edits.get(st) or _time_text(info.get("issued"))
        conf = statement_confidence(min(1.0, max(0.0, float(row["conf"].value))), tier)  # type: ignore[index]
        rate = policy.decay.rate(p)
        if rate and when is not None:
            conf = decay(conf, (now - when).total_seconds() / 86400, rate)
        number = None
        key = ""
        if predicate is not None:
            number = float(row["num"].value) if row["num"] is not None else None  # type: ignore[index]
            key = row["k"].value  # type: ignore[index]
        out.append(
            Claim(
                statement=st,
                graph=g,
                document=doc,
                source=source_key(doc, info.get("url"), info.get("publisher")),
                subject=row["s"].value,  # type: ignore[index]
                object=str(row["o"]),  # type: ignore[index]
                predicate=p,
                key=key,
                number=number,
                tier=tier,
                confidence=conf,
                time=when,
            )
        )
    return out


def _time_text(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def cluster(claims_: Sequence[Claim], policy: Policy, predicate: str) -> list[Cluster]:
    """Group claims whose values agree. Numbers with a tolerance: sorted, each cluster anchored
    at its smallest value, so a cluster never spans more than the tolerance (a chain of close
    values does not hide a large difference). Everything else: by normalised key."""
    tol = policy.tolerances.get(predicate)
    clusters: list[Cluster] = []
    numbers = sorted((c for c in claims_ if c.number is not None), key=lambda c: (c.number, c.object))
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
    for predicate in functional:
        clock = time.perf_counter()
        found, n = find_items(backend, policy, predicate, mapping)
        seconds["find"] += time.perf_counter() - clock
        multi += n
        merged += sum(1 for _, beyond in found if not beyond)
        wanted = [e for e, beyond in found if beyond or learn_from_agreement]
        clock = time.perf_counter()
        by_entity = claims(backend, policy, [predicate], wanted, mapping, now=now)
        seconds["claims"] += time.perf_counter() - clock
        members = _members(wanted, mapping)
        for entity in wanted:
            groups = cluster(by_entity.get(entity, []), policy, predicate)
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
    data = json.loads(text)
    clusters = [
        Cluster(
            c["predicate"],
            [
                Claim(
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
                    time=datetime.fromisoformat(x[11]) if x[11] is not None else None,
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
    values = " ".join(f"<{g}>" for g in graphs)
    if bool(
        backend.query(
            f"""ASK {{ VALUES ?g {{ {values} }} VALUES ?k {{ <{OWL}sameAs> <{SKOS}exactMatch> }}
  GRAPH ?g {{ ?a ?k ?b FILTER(isIRI(?a) && isIRI(?b)) }} }}"""
        )
    ):
        return True
    if not policy.aliases:
        return False
    aliases = {" ".join(label.split()) for labels in policy.aliases.values() for label in labels}
    props = " ".join(f"<{p}>" for p in LABELS)
    for r in _rows(
        backend,
        f"""SELECT DISTINCT ?label WHERE {{ VALUES ?g {{ {values} }} VALUES ?lp {{ {props} }}
  GRAPH ?g {{ ?s ?lp ?label FILTER(isIRI(?s)) }} }}""",
    ):
        if " ".join(str(r["label"].value).split()) in aliases:  # type: ignore[union-attr]
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
    preds = " ".join(f"<{p}>" for p in wanted)
    for chunk in _chunks(sorted(graphs), BATCH):
        values = " ".join(f"<{g}>" for g in chunk)
        query = f"""SELECT DISTINCT ?s ?p WHERE {{ VALUES ?g {{ {values} }} VALUES ?p {{ {preds} }}
  GRAPH ?g {{ ?s ?p ?o }} FILTER(isIRI(?s)) }}"""
        for r in _rows(backend, query):
            subject = r["s"].value  # type: ignore[union-attr]
            found.add((mapping.get(subject, subject), r["p"].value))  # type: ignore[union-attr]
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
    for predicate in sorted(set(by_predicate) & checked):
        entities = sorted(by_predicate[predicate])
        by_entity = claims(backend, policy, [predicate], entities, mapping, now=now)
        members = _members(entities, mapping)
        for entity in entities:
            found = by_entity.get(entity, [])
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
    by_entity = claims(backend, policy, [p, q], found, mapping, now=now)
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


def _edit_times(backend: Backend, statements: Sequence[str]) -> dict[str, datetime]:
    """The latest edit time of each statement that has one. A query of its own: as an OPTIONAL of
    the claims query it made Oxigraph several times slower."""
    if not statements:
        return {}
    query = f"""SELECT ?st ?edit WHERE {{
  VALUES ?st {{ {" ".join(f"<{s}>" for s in set(statements))} }}
  VALUES ?ep {{ {" ".join(f"<{p}>" for p in EDIT_TIME_PROPERTIES)} }}
  GRAPH ?g {{ ?st ?ep ?edit }} }}"""
    out: dict[str, datetime] = {}
    for r in _rows(backend, query):
        when = _time_text(r["edit"].value)  # type: ignore[union-attr]
        st = r["st"].value  # type: ignore[union-attr]
        if when is not None and (st not in out or when > out[st]):
            out[st] = when
    return out


__all__ = [
    "EDIT_TIME_PROPERTIES",
    "Claim",
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
    "item_from_state",
    "item_state",
    "key_expression",
    "links_changed",
    "source_key",
    "state_votes",
    "touched",
    "votes",
]
