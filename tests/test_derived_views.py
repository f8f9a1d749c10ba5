"""Derived views (lexical index, conflict records, document relations) kept up to date from the
change log: after any sequence of ingests, new versions, revocations, ontology changes and
restores, what they hold after catching up equals what they hold when built from scratch; and an
ask after a write reads no more of the catalog than the entries of the sources it uses."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pyoxigraph import NamedNode, QuerySolutions

from provgraph import ExportFormat, IngestOptions, ProvGraph
from provgraph.answer.index import LexicalIndex
from provgraph.store import changes, derived
from provgraph.store.base import Backend
from provgraph.trust import annotate, relations
from provgraph.trust.models import Conflict
from provgraph.trust.relation_models import DocumentRelation
from provgraph.trust.run import run as run_conflicts
from provgraph.vocab import CATALOG_GRAPH, CONFLICT_GRAPH, PG, RELATIONS_GRAPH

EX = "http://ex.org/"
OWL = "http://www.w3.org/2002/07/owl#"
DCTERMS = "http://purl.org/dc/terms/"
ENTITIES = [f"{EX}e{i}" for i in range(6)]
PLACES = [f"{EX}place{i}" for i in range(4)]
TITLES = [
    "Aspirin Safety Guidelines",
    "Ibuprofen Dosing Handbook",
    "Regional Population Census",
    "River Basin Survey",
    "Annual Weather Almanac",
    "Ancient Harbour Chronicle",
]
POLICIES = [
    f"<{EX}born> a <{OWL}FunctionalProperty> .",
    f"<{EX}population> a <{OWL}FunctionalProperty> ; <https://w3id.org/provgraph/ns#relativeTolerance> 0.05 .",
    f"<{EX}capital> a <{OWL}FunctionalProperty> .",
    f"<{EX}treats> <{OWL}propertyDisjointWith> <{EX}harms> .",
    f"<{EX}born> <https://w3id.org/provgraph/ns#resolutionStrategy> <https://w3id.org/provgraph/ns#Majority> .",
]


class Corpus:
    """Random documents about a few entities: conflicting values, citations, statements about
    other documents' URLs, passages naming other documents, shared entities, sameAs links."""

    def __init__(self, rng: random.Random, directory: Path) -> None:
        self.rng = rng
        self.directory = directory
        self.docs: dict[str, tuple[str, str]] = {}  # key -> (title, url)
        self.made = 0

    def url(self, key: str) -> str:
        return f"https://{key}.example.org/"

    def write(self, key: str) -> Path:
        rng = self.rng
        self.made += 1
        _, url = self.docs.setdefault(key, (rng.choice(TITLES) + f" {key}", self.url(key)))
        records: list[dict[str, Any]] = []
        for _ in range(rng.randint(1, 5)):
            entity = rng.choice(ENTITIES)
            kind = rng.random()
            if kind < 0.3:
                records.append({"subject": entity, "predicate": EX + "born", "literal": str(rng.choice([1900, 1901]))})
            elif kind < 0.55:
                value = rng.choice([1000, 1020, 1500, 3000])
                records.append(
                    {
                        "subject": entity,
                        "predicate": EX + "population",
                        "literal": str(value),
                        "datatype": "xsd:integer",
                    }
                )
            elif kind < 0.7:
                records.append({"subject": entity, "predicate": EX + "capital", "object": rng.choice(PLACES)})
            elif kind < 0.85:
                records.append(
                    {"subject": entity, "predicate": EX + rng.choice(["treats", "harms"]), "object": rng.choice(PLACES)}
                )
            else:
                records.append({"subject": entity, "predicate": EX + "near", "object": rng.choice(ENTITIES)})
        others = [k for k in self.docs if k != key]
        if others and rng.random() < 0.3:
            cited = rng.choice(others)
            records.append({"subject": url, "predicate": DCTERMS + "references", "object": self.url(cited)})
        if others and rng.random() < 0.2:
            about = rng.choice(others)
            records.append({"subject": rng.choice(ENTITIES), "predicate": EX + "source", "object": self.url(about)})
        if rng.random() < 0.08:
            records.append({"subject": rng.choice(ENTITIES), "predicate": OWL + "sameAs", "object": EX + "alias"})
        if others and rng.random() < 0.5:
            named = rng.choice(others)
            how = rng.random()
            if how < 0.4:
                text = f"As the {self.docs[named][0].lower()} explains, the river is long."
            elif how < 0.7:
                text = f"See {self.url(named)} for the figures."
            else:
                text = f"The register {named} lists the {rng.choice(['harbour', 'census'])}."
            records[0]["passage"] = text
        path = self.directory / f"{key}-{self.made}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path


def _ingest(pg: ProvGraph, corpus: Corpus, key: str) -> None:
    path = corpus.write(key)
    title, url = corpus.docs[key]
    pg.ingest(path, IngestOptions(id=key, title=title, url=url, publisher=f"publisher-{int(key[1:]) % 3}"))


def _conflicts(found: Sequence[Conflict]) -> list[str]:
    """What a user reads of conflicts, but when they were computed (claims in a fixed order)."""
    out = []
    for c in found:
        data = c.model_dump(mode="json", exclude={"first_detected": True, "resolution": {"activity", "resolved_at"}})
        for value in data["values"]:
            value["claims"].sort(key=json.dumps)
        out.append(json.dumps(data, sort_keys=True))
    return sorted(out)


def _relations(found: Sequence[DocumentRelation]) -> list[str]:
    return sorted(
        json.dumps(r.model_dump(mode="json", exclude={"activity", "computed_at"}), sort_keys=True) for r in found
    )


def _index_rows(db: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    return {
        "entries": sorted(db.execute("SELECT graph, kind, iri, text, pos FROM entries").fetchall()),
        "sources": sorted(db.execute("SELECT * FROM sources").fetchall()),
        "titles": sorted(db.execute("SELECT words, graph FROM titles").fetchall()),
    }


def _assert_views_equal_a_rebuild(pg: ProvGraph, tmp_path: Path) -> None:
    # conflict records: caught up (incrementally) against detected from scratch
    assert _conflicts(pg.conflicts()) == _conflicts(run_conflicts(pg.backend, store=False)[1])
    # the stored outcomes a fact's status reads
    statements = [x.statement for c in pg.conflicts() for v in c.values for x in v.claims]
    stored = annotate._outcomes(pg.backend, statements, None)
    assert stored == {x.statement: v.outcome for c in pg.conflicts() for v in c.values for x in v.claims}
    # relations, and each document's record of its strongest ones: ties by IRI
    scratch_relations = relations.compute(pg.backend)[0]
    assert _relations(pg.related_documents()) == _relations(scratch_relations)
    of: dict[str, list[DocumentRelation]] = {}
    for r in scratch_relations:
        for d in (r.from_document, r.to_document):
            of.setdefault(d, []).append(r)
    kept = relations.STRONGEST_KEPT
    expected = [(d, r.iri) for d, found in of.items() for r in sorted(found, key=lambda r: (-r.strength, r.iri))[:kept]]
    query = f"SELECT ?d ?r WHERE {{ GRAPH <{RELATIONS_GRAPH.value}> {{ ?d <{PG.strongestRelation.value}> ?r }} }}"
    assert sorted((row.value("d"), row.value("r")) for row in pg.backend.select(query)) == sorted(expected)
    # the lexical index, against one built from scratch in a fresh file
    pg.retrieve("river population")
    assert pg._retriever is not None
    scratch = LexicalIndex(tmp_path / f"scratch-{random.random()}.sqlite3")
    scratch.sync(pg.backend)
    assert _index_rows(pg._retriever.index._db) == _index_rows(scratch._db)
    scratch.close()


_UNREVOKED = """SELECT ?st WHERE {
  GRAPH pgid:catalog { ?g pg:status pg:Current }
  GRAPH ?g { ?st a pg:Statement }
  FILTER NOT EXISTS { GRAPH pgid:revocations { ?st prov:wasInvalidatedBy ?t } }
} ORDER BY ?st"""


def _add_policy(pg: ProvGraph, tmp_path: Path) -> None:
    """The first three policies, so that there is something to conflict about from the start."""
    (tmp_path / "policy.ttl").write_text("\n".join(POLICIES[:3]) + "\n", encoding="utf-8")
    pg.add_ontology(tmp_path / "policy.ttl")


def _revoke_a_statement(pg: ProvGraph, rng: random.Random) -> None:
    """One statement of a current source withdrawn: its graph is restated in the change log."""
    statements = [row.value("st") for row in pg.backend.select(_UNREVOKED)]
    if statements:
        pg.revoke_statement(rng.choice(statements), reason="test")


def _run(pg: ProvGraph, rng: random.Random, corpus: Corpus, tmp_path: Path, steps: int) -> ProvGraph:
    for _ in range(steps):
        current = [s.key for s in pg.sources() if s.current_graph is not None]
        op = rng.random()
        if op < 0.4 or not current:
            _ingest(pg, corpus, f"d{len(corpus.docs)}")
        elif op < 0.6:
            _ingest(pg, corpus, rng.choice(current))  # a new version
        elif op < 0.72:
            pg.revoke(rng.choice(current), reason="test")
        elif op < 0.84:
            corpus.made += 1
            policy = tmp_path / f"policy-{corpus.made}.ttl"
            policy.write_text(rng.choice(POLICIES) + "\n", encoding="utf-8")
            pg.add_ontology(policy)
        elif op < 0.9:
            corpus.made += 1
            dump = tmp_path / f"dump-{corpus.made}.nq"
            dump.write_bytes(pg.export(format=ExportFormat.NQUADS) or b"")
            restored = ProvGraph.open(tmp_path / f"restored-{corpus.made}")
            restored.restore(dump)
            pg.close()
            pg = restored
        elif op < 0.95:
            _revoke_a_statement(pg, rng)
        else:
            pg.detect_conflicts()
        if rng.random() < 0.5:  # the views catch up at random points, several writes at a time
            pg.ask("What is the population of e1?")
    return pg


@pytest.mark.parametrize("seed", range(8))
def test_views_caught_up_from_the_change_log_equal_views_built_from_scratch(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # records of two relations: full, so that a write taking one out reads the document's others
    monkeypatch.setattr(relations, "STRONGEST_KEPT", 2)
    rng = random.Random(seed)
    corpus = Corpus(rng, tmp_path)
    pg = ProvGraph.open(tmp_path / "store")
    try:
        _add_policy(pg, tmp_path)
        for _ in range(3):
            pg = _run(pg, rng, corpus, tmp_path, steps=6)
            _assert_views_equal_a_rebuild(pg, tmp_path)
    finally:
        pg.close()


@contextmanager
def _eight_documents(tmp_path: Path) -> Iterator[tuple[ProvGraph, Corpus]]:
    """A store of eight random documents under the policy, its views stored by an ask."""
    corpus = Corpus(random.Random(5), tmp_path)
    with ProvGraph.open(tmp_path / "store") as pg:
        _add_policy(pg, tmp_path)
        for i in range(8):
            _ingest(pg, corpus, f"d{i}")
        pg.ask("What is the population of e1?")
        yield pg, corpus


def test_a_revoked_statement_is_caught_up_from_the_change_log(tmp_path: Path) -> None:
    with _eight_documents(tmp_path) as (pg, _):
        claims = [x.statement for c in pg.conflicts() for v in c.values for x in v.claims]
        assert claims
        pg.revoke_statement(claims[0], reason="test")
        assert claims[0] not in {x.statement for c in pg.conflicts() for v in c.values for x in v.claims}
        _assert_views_equal_a_rebuild(pg, tmp_path)


def test_a_read_only_store_lays_the_catch_up_over_the_stored_views(tmp_path: Path) -> None:
    rng = random.Random(11)
    corpus = Corpus(rng, tmp_path)
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        _add_policy(pg, tmp_path)
        for i in range(6):
            _ingest(pg, corpus, f"d{i}")
        pg.ask("What is the population of e1?")  # the views, stored
        for i in range(6, 9):
            _ingest(pg, corpus, f"d{i}")
        pg.revoke("d2", reason="test")
        expected_conflicts = _conflicts(run_conflicts(pg.backend, store=False)[1])
        expected_relations = _relations(relations.compute(pg.backend)[0])
        behind = pg.backend.query(
            f"SELECT ?n WHERE {{ GRAPH <{CONFLICT_GRAPH.value}> {{ ?g <{PG.generation.value}> ?n }} }}"
        )
    assert isinstance(behind, QuerySolutions) and len(list(behind)) == 1
    with ProvGraph.open(store, read_only=True) as pg:
        assert _conflicts(pg.conflicts()) == expected_conflicts
        assert _relations(pg.related_documents()) == expected_relations
        assert relations.is_stale(pg.backend)  # computed for the answers, not stored


def test_a_catch_up_rewrites_only_the_conflicts_the_new_sources_touch(pg: ProvGraph, tmp_path: Path) -> None:
    # majority: a resolution new sources elsewhere cannot change (source trust learns from all)
    (tmp_path / "policy.ttl").write_text(f"{POLICIES[0]}\n{POLICIES[4]}\n", encoding="utf-8")
    pg.add_ontology(tmp_path / "policy.ttl")

    def doc(name: str, facts: dict[str, str]) -> None:
        path = tmp_path / f"{name}.jsonl"
        lines = [json.dumps({"subject": EX + s, "predicate": EX + "born", "literal": v}) for s, v in facts.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        pg.ingest(path, IngestOptions(id=name, url=f"https://{name}.example/", publisher=name))

    doc("a", {"x": "1900", "y": "1900"})
    doc("b", {"x": "1901", "y": "1901"})
    before = {c.subject: c.resolution.activity for c in pg.conflicts()}
    assert set(before) == {EX + "x", EX + "y"}
    doc("c", {"y": "1902"})  # about y only
    after = {c.subject: c.resolution.activity for c in pg.conflicts()}
    assert after[EX + "x"] == before[EX + "x"]  # untouched
    assert after[EX + "y"] != before[EX + "y"]
    [y] = pg.conflicts(subject=EX + "y")
    assert len(y.values) == 3


def _record_triples(pg: ProvGraph) -> list[tuple[str, str, str]]:
    """The conflict records as stored, but what names or dates the run that wrote them."""
    rows = pg.backend.select(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{CONFLICT_GRAPH.value}> {{ ?s ?p ?o }} }}")
    run = {PG.generation.value, PG.changeLog.value, "http://www.w3.org/ns/prov#wasGeneratedBy"}
    out = []
    for row in rows:
        s, p, o = row.value("s"), row.value("p"), row.value("o")
        if "/resolution/" not in s and p not in run:
            out.append((s, p, o))
    return sorted(out)


def test_source_accuracies_that_move_rewrite_the_preferred_values_they_change(pg: ProvGraph, tmp_path: Path) -> None:
    """Source trust (the default): sources a and b disagree about four entities; other conflicts
    that a, then b, wins by majority move the source accuracies and with them every preferred
    value, which the catch-up rewrites as a full run would write it."""
    (tmp_path / "policy.ttl").write_text(POLICIES[2] + "\n", encoding="utf-8")
    pg.add_ontology(tmp_path / "policy.ttl")
    made = iter(range(100))

    def doc(publisher: str, facts: dict[str, str]) -> None:
        name = f"{publisher}-{next(made)}"
        path = tmp_path / f"{name}.jsonl"
        lines = [
            json.dumps({"subject": EX + s, "predicate": EX + "capital", "object": EX + v}) for s, v in facts.items()
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        pg.ingest(path, IngestOptions(id=name, url=f"https://{name}.example/", publisher=publisher))

    def preferred() -> set[str | None]:
        return {c.resolution.preferred for c in pg.conflicts() if c.subject.startswith(EX + "e")}

    def assert_stored_as_a_full_run_writes() -> None:
        statements = [x.statement for c in pg.conflicts() for v in c.values for x in v.claims]
        stored = annotate._outcomes(pg.backend, statements, None)
        assert stored == {x.statement: v.outcome for c in pg.conflicts() for v in c.values for x in v.claims}
        caught_up = _record_triples(pg)
        run_conflicts(pg.backend)  # the same records, written from scratch
        assert _record_triples(pg) == caught_up

    doc("a", {f"e{i}": "north" for i in range(4)})
    doc("b", {f"e{i}": "south" for i in range(4)})
    assert preferred() == {None}  # equally trusted: no preference
    # a wins three conflicts by majority (with c, against d): a is trusted more than b
    doc("a", {f"h{i}": "north" for i in range(3)})
    doc("c", {f"h{i}": "north" for i in range(3)})
    doc("d", {f"h{i}": "west" for i in range(3)})
    assert preferred() == {f"<{EX}north>"}
    assert_stored_as_a_full_run_writes()
    # b wins more of them (with c and e, against d): every preferred value moves to b's
    doc("b", {f"k{i}": "south" for i in range(6)})
    doc("c", {f"k{i}": "south" for i in range(6)})
    doc("e", {f"k{i}": "south" for i in range(6)})
    doc("d", {f"k{i}": "west" for i in range(6)})
    assert preferred() == {f"<{EX}south>"}
    assert_stored_as_a_full_run_writes()


# ---------------------------------------------------------------------- reading the catalog


class Recording:
    """A backend that keeps every query it runs and the IRIs in every answer."""

    def __init__(self, inner: Backend) -> None:
        self._inner = inner
        self.queries: list[str] = []
        self.answered: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def generation(self) -> int | None:
        return self._inner.generation

    @property
    def read_only(self) -> bool:
        return self._inner.read_only

    @property
    def location(self) -> Path | None:
        return self._inner.location

    def query(self, sparql: str, **kwargs: Any) -> Any:
        self.queries.append(sparql)
        seen = self._inner.query(sparql, **kwargs)  # read once to look, once for the caller
        if isinstance(seen, QuerySolutions):
            variables = list(seen.variables)
            for row in seen:
                self.answered.update(t.value for v in variables if isinstance(t := row[v], NamedNode))
        return self._inner.query(sparql, **kwargs)

    def select(self, sparql: str, **kwargs: Any) -> Any:
        self.queries.append(sparql)
        rows = self._inner.select(sparql, **kwargs)
        self.answered.update(t.value for row in rows for name in row if isinstance(t := row[name], NamedNode))
        return rows

    def stream(self, sparql: str, **kwargs: Any) -> Any:
        return iter(self.select(sparql, **kwargs))

    def ask(self, sparql: str, **kwargs: Any) -> Any:
        self.queries.append(sparql)
        return self._inner.ask(sparql, **kwargs)


def test_an_ask_after_an_ingest_reads_only_the_catalog_entries_it_uses(tmp_path: Path) -> None:
    with _eight_documents(tmp_path) as (pg, corpus):
        _ingest(pg, corpus, "d8")
        _ingest(pg, corpus, "d3")  # a new version
        # Entries no ask has a use for: current sources of no use to anyone. A read of the whole
        # catalog (every current graph, every document) answers with them.
        decoys = [f"{EX}decoy/{i}" for i in range(50)]
        pg.backend.update(
            f"INSERT DATA {{ GRAPH <{CATALOG_GRAPH.value}> {{ "
            + " ".join(
                f"<{d}> a <{PG.SourceGraph.value}> ; <{PG.status.value}> <{PG.Current.value}> ;"
                f' <{PG.document.value}> <{d}/doc> . <{d}/doc> <{PG.documentKey.value}> "{i}" .'
                for i, d in enumerate(decoys)
            )
            + " } }"
        )
        generation = changes.generation(pg.backend)
        recording = Recording(pg.backend)
        pg._backend = recording  # type: ignore[assignment]
        if pg._retriever is not None:
            pg._retriever._backend = recording  # type: ignore[assignment]
        answer = pg.ask("What is the population of e1?")
        assert answer.references or answer.abstained
        assert recording.queries  # the ask was recorded
        assert not {a for a in recording.answered if a.startswith(f"{EX}decoy/")}
        # and the views caught up with the two writes
        assert records_stamp(recording) == derived.stamp(recording).generation == generation
        assert relations.stamp(recording) == derived.stamp(recording)  # type: ignore[arg-type]


def records_stamp(backend: Any) -> int | None:
    from provgraph.trust import records

    found = records.stamp(backend)
    return None if found is None else found.generation
