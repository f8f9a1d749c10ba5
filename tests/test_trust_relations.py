"""Document relationships: citations, mentions (fuzzy titles, identifiers, URLs) and shared entities,
stored in the relations graph, served at /doc-relationships and by ``provgraph related``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import live_server, run_cli
from provgraph import DocumentRelation, GraphSplit, IngestOptions, NotFoundError, ProvGraph, RelationType
from provgraph.store import catalog, changes
from provgraph.trust import relations
from provgraph.vocab import CURRENT_VIEW, RELATIONS_GRAPH

GUIDE = """@prefix ex: <http://example.org/> .
ex:aspirin ex:contraindicatedFor ex:reye-syndrome ; ex:treats ex:headache .
ex:children ex:shouldAvoid ex:aspirin .
"""
# cites the guidelines by their URL
REVIEW = """@prefix ex: <http://example.org/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
<https://example.org/review> dcterms:references <https://example.org/guidelines> .
ex:naproxen ex:treats ex:arthritis .
"""
# names the guidelines' title in lower case and with a typo
NOTE = """# Clinic note

As the aspirin safty guidelines explain, children should not take aspirin. Ask the pharmacist first.
"""
# three shared entities: ibuprofen, fever, inflammation
TRIAL_A = """@prefix ex: <http://example.org/> .
ex:ibuprofen ex:treats ex:fever , ex:inflammation .
"""
TRIAL_B = """@prefix ex: <http://example.org/> .
ex:ibuprofen ex:reduces ex:fever .
ex:inflammation ex:severity "mild" .
"""
# one shared entity (pain) only
PAIN_A = """@prefix ex: <http://example.org/> .
ex:paracetamol ex:relieves ex:pain .
"""
PAIN_B = """@prefix ex: <http://example.org/> .
ex:codeine ex:relieves ex:pain .
"""
# the same generic words, and y even quotes x's (generic) title
GENERIC_X = """The results of the study were clear. The data show a small effect in the group.
"""
GENERIC_Y = """The study had results that were clear. Results of the study are in the data for the group.
"""

DOCS = {
    "guide": ("guide.ttl", GUIDE, {"title": "Aspirin Safety Guidelines", "url": "https://example.org/guidelines"}),
    "review": ("review.ttl", REVIEW, {"title": "Review of analgesics", "url": "https://example.org/review"}),
    "note": ("note.md", NOTE, {"title": "Clinic note", "id": "note-1"}),
    "trial-a": ("trial-a.ttl", TRIAL_A, {"title": "Ibuprofen trial", "id": "trial-a"}),
    "trial-b": ("trial-b.ttl", TRIAL_B, {"title": "Ibuprofen follow-up", "id": "trial-b"}),
    "pain-a": ("pain-a.ttl", PAIN_A, {"title": "Paracetamol dosing", "id": "pain-a"}),
    "pain-b": ("pain-b.ttl", PAIN_B, {"title": "Codeine dosing", "id": "pain-b"}),
    "gen-x": ("gen-x.txt", GENERIC_X, {"title": "Results of the study", "id": "gen-x"}),
    "gen-y": ("gen-y.txt", GENERIC_Y, {"title": "Summary report", "id": "gen-y"}),
}


def _ingest(graph: ProvGraph, directory: Path, names: list[str] | None = None) -> dict[str, str]:
    """Ingest the documents; returns name -> document IRI."""
    iris = {}
    for name in names or list(DOCS):
        file, text, options = DOCS[name]
        path = directory / file
        path.write_text(text, "utf-8")
        report = graph.ingest(path, IngestOptions(**options))  # type: ignore[arg-type]
        iris[name] = report.documents[0].document
    return iris


@pytest.fixture
def corpus(pg: ProvGraph, tmp_path: Path) -> dict[str, str]:
    return _ingest(pg, tmp_path)


def _pairs(found: list[DocumentRelation], iris: dict[str, str]) -> list[tuple[str, str, RelationType]]:
    names = {v: k for k, v in iris.items()}
    return [(names[r.from_document], names[r.to_document], r.type) for r in found]


def _select(graph: ProvGraph, sparql: str) -> list[dict[str, str]]:
    return [{n: row.value(n) for n in row} for row in graph.backend.select(sparql)]


def _stored_count(graph: ProvGraph, cls: str) -> int:
    rows = _select(graph, f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{RELATIONS_GRAPH.value}> {{ ?x a <{cls}> }} }}")
    return int(rows[0]["n"])


PG = "https://w3id.org/provgraph/ns#"


def test_citation_outweighs_mention_outweighs_shared_entities(pg, corpus):
    found = pg.refresh_relationships()
    assert _pairs(found, corpus) == [
        ("review", "guide", RelationType.CITATION),
        ("note", "guide", RelationType.MENTION),
        # no direction: ordered by title
        ("trial-b", "trial-a", RelationType.SHARED_ENTITIES),
    ]
    citation, mention, shared = found
    assert citation.strength > mention.strength > shared.strength
    assert citation.strength == relations.citation_strength(1) == 0.8
    assert citation.directed and mention.directed and not shared.directed
    assert citation.from_title == "Review of analgesics" and citation.to_title == "Aspirin Safety Guidelines"
    assert citation.to_key == "https://example.org/guidelines"

    # the citation's evidence is the reified dcterms:references statement, found in the review
    (cites,) = citation.evidence
    assert cites.found_in == corpus["review"] and cites.resource and "/id/stmt/" in cites.resource
    assert "http://purl.org/dc/terms/references" in cites.text
    # the mention is the passage with the misspelt, lower-cased title, fuzzy but not exact
    (names,) = mention.evidence
    assert names.found_in == corpus["note"] and names.resource and "/id/passage/" in names.resource
    assert names.score is not None and relations.TITLE_THRESHOLD <= names.score < 100
    assert "aspirin safty guidelines" in names.text
    # shared entities: counted in SPARQL, each listed
    assert shared.counts == {RelationType.SHARED_ENTITIES: 3}
    assert sorted(e.resource for e in shared.evidence) == [
        "http://example.org/fever",
        "http://example.org/ibuprofen",
        "http://example.org/inflammation",
    ]
    assert shared.strength == relations.shared_strength(3)


def test_one_shared_entity_or_generic_words_make_no_edge(pg, corpus):
    found = pg.refresh_relationships()
    unrelated = {corpus[n] for n in ("pain-a", "pain-b", "gen-x", "gen-y")}
    assert not [r for r in found if {r.from_document, r.to_document} & unrelated]
    assert pg.related_documents("pain-a") == []
    assert pg.related_documents("gen-y") == []


def test_an_entity_in_more_than_max_entity_documents_links_none_of_them(pg: ProvGraph, tmp_path: Path) -> None:
    """A hub entity (a country, a registry) stated by every document of a large corpus would link
    each pair of them and bury the real links; past MAX_ENTITY_DOCUMENTS documents it counts for
    nothing, in the first computation and when a later document states it too. The count is
    fixed (one past the cut-off of 50), not read from the constant, so that raising it fails here."""
    ex = "http://example.org/"
    hubs = f"<{ex}partOf> <{ex}hub> ; <{ex}listedIn> <{ex}registry> ."
    many = 51
    trig = tmp_path / "hub.trig"
    trig.write_text(
        "".join(
            # documents 0 and 1 also share two entities of their own: the one real link
            f"<urn:hub:doc{i}> {{ <{ex}item{i}> {hubs} {f'<{ex}x> <{ex}near> <{ex}y> .' if i < 2 else ''} }}\n"
            for i in range(many)
        ),
        "utf-8",
    )
    pg.ingest(trig, IngestOptions(title="Hub corpus", split=GraphSplit(pattern=r"^(urn:hub:doc\d+)$")))
    found = pg.related_documents()
    assert [(r.from_key, r.to_key, r.type, sorted(e.resource or "" for e in r.evidence)) for r in found] == [
        ("urn:hub:doc0", "urn:hub:doc1", RelationType.SHARED_ENTITIES, [f"{ex}x", f"{ex}y"])
    ]
    late = tmp_path / "late.ttl"
    late.write_text(f"<{ex}item-late> {hubs}\n", "utf-8")
    pg.ingest(late, IngestOptions(title="Late entry", id="late"))
    assert pg.related_documents("late") == []
    assert pg.related_documents() == found


def test_a_full_run_reads_shared_entities_a_page_of_documents_at_a_time(
    pg: ProvGraph, corpus: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of one document (each pair is then met from both sides, in two requests) find what
    one page of every document finds."""
    whole, _ = relations.compute(pg.backend)
    monkeypatch.setattr(relations, "SHARED_PAGE", 1)
    paged, _ = relations.compute(pg.backend)
    assert paged == whole
    assert [r.counts for r in paged if r.type is RelationType.SHARED_ENTITIES] == [{RelationType.SHARED_ENTITIES: 3}]


def test_relations_read_without_their_evidence_or_past_a_limit_are_the_same_relations(
    pg: ProvGraph, corpus: dict[str, str]
) -> None:
    """What an ask reads (its relation drafts need no evidence items) is every stored relation
    of the document, with its kinds, strengths and counts."""
    pg.refresh_relationships()
    full = relations.relationships(pg.backend, document=corpus["guide"])
    bare = relations.relationships(pg.backend, document=corpus["guide"], evidence=False)
    assert [r.evidence for r in bare] == [[], []] and all(r.evidence for r in full)
    assert [r.model_copy(update={"evidence": []}) for r in full] == bare
    # the strongest one alone: the review's citation before the note's mention
    (strongest,) = relations.relationships(pg.backend, document=corpus["guide"], evidence=False, limit=1)
    assert strongest == bare[0] and strongest.type is RelationType.CITATION


def test_relations_of_several_documents_read_together_are_those_read_one_by_one(
    pg: ProvGraph, corpus: dict[str, str]
) -> None:
    """An ask reads the relations of several documents in one query (a round trip to a remote
    store each): each document's are those it has alone, its strongest ``limit`` as well; a
    relation between two of them is in both."""
    pg.refresh_relationships()
    documents = [corpus["guide"], corpus["review"], corpus["trial-a"], corpus["gen-x"]]
    for limit in (None, 1):
        together = relations.relationships_each(pg.backend, documents, evidence=False, limit=limit)
        alone = {d: relations.relationships(pg.backend, document=d, evidence=False, limit=limit) for d in documents}
        assert together == alone and len(together[corpus["guide"]]) == (limit or 2)
    both = relations.relationships_each(pg.backend, [corpus["guide"], corpus["review"]])
    assert _pairs(both[corpus["review"]], corpus)[0] == ("review", "guide", RelationType.CITATION)
    assert both[corpus["review"]][0] in both[corpus["guide"]]
    assert relations.relationships_each(pg.backend, [corpus["gen-x"]]) == {corpus["gen-x"]: []}


def _records(graph: ProvGraph) -> list[tuple[str, str]]:
    """The records of strongest relations as stored: (document, relation)."""
    query = f"SELECT ?d ?r WHERE {{ GRAPH <{RELATIONS_GRAPH.value}> {{ ?d <{PG}strongestRelation> ?r }} }}"
    return sorted((row.value("d"), row.value("r")) for row in graph.backend.select(query))


def _strongest_iris(found: list[DocumentRelation], limit: int) -> set[str]:
    """The ``limit`` strongest of ``found``, ties by IRI."""
    return {r.iri for r in sorted(found, key=lambda r: (-r.strength, r.iri))[:limit]}


def test_a_documents_strongest_relations_are_read_from_its_record_and_kept_up_to_date(
    pg: ProvGraph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ask reads a document's strongest relations from a record of them, not by sorting all of
    its relations (a hub's grow with the store). The record follows every write: a new document
    with a stronger relation enters it, and when one of its relations goes, the next strongest
    takes its place, as a full run would store them."""
    monkeypatch.setattr(relations, "STRONGEST_KEPT", 1)
    iris = _ingest(pg, tmp_path, ["guide", "note", "trial-a", "trial-b"])
    pg.refresh_relationships()
    guide = iris["guide"]

    def strongest() -> list[tuple[str, str, RelationType]]:
        found = relations.relationships(pg.backend, document=guide, evidence=False, limit=1)
        assert {r.iri for r in found} == _strongest_iris(relations.relationships(pg.backend, document=guide), 1)
        return _pairs(found, iris)

    assert strongest() == [("note", "guide", RelationType.MENTION)]
    iris |= _ingest(pg, tmp_path, ["review"])  # cites the guide: stronger than the note's mention
    assert strongest() == [("review", "guide", RelationType.CITATION)]
    pg.revoke("https://example.org/review", reason="test")  # the full record loses its one relation
    assert strongest() == [("note", "guide", RelationType.MENTION)]
    caught_up = _records(pg)
    assert caught_up and len(caught_up) == len({d for d, _ in caught_up})  # one a document
    pg.refresh_relationships()  # from scratch
    assert _records(pg) == caught_up


def test_strength_bands_keep_the_kinds_in_order():
    many = 10_000
    assert relations.citation_strength(1) > relations.mention_strength(many, 100.0)
    assert relations.mention_strength(1, relations.TITLE_THRESHOLD) > relations.shared_strength(many)
    assert relations.citation_strength(2) > relations.citation_strength(1)
    assert relations.mention_strength(1, 100.0) > relations.mention_strength(1, 90.0)
    assert relations.shared_strength(3) > relations.shared_strength(2)
    assert relations.combine([0.8, 0.35]) == pytest.approx(1 - 0.2 * 0.65)
    assert relations.combine([]) == 0.0


def test_citations_by_key_url_and_statement_about_a_url(pg, tmp_path):
    iris = _ingest(pg, tmp_path, ["guide", "trial-a"])
    path = tmp_path / "refs.ttl"
    path.write_text(
        """@prefix cito: <http://purl.org/spar/cito/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix ex: <http://example.org/> .
ex:report cito:citesAsEvidence "trial-a" .
ex:report dcterms:references <https://example.org/guidelines/> .
ex:claim ex:source <https://example.org/guidelines> .
ex:report cito:isCitedBy <https://example.org/other> .
""",
        "utf-8",
    )
    refs = pg.ingest(path, IngestOptions(title="Pharmacology report", id="report-7")).documents[0].document
    found = {frozenset((r.from_document, r.to_document)): r for r in pg.refresh_relationships()}
    assert len(found) == 2
    # a CiTO citing property with the cited document's key as a literal
    to_trial = found[frozenset((refs, iris["trial-a"]))]
    assert (to_trial.type, to_trial.from_document, to_trial.directed) == (RelationType.CITATION, refs, True)
    # dcterms:references with a trailing slash, and a statement whose object is the URL: two citations
    to_guide = found[frozenset((refs, iris["guide"]))]
    assert (to_guide.from_document, to_guide.to_document) == (refs, iris["guide"])
    assert to_guide.counts[RelationType.CITATION] == 2
    assert to_guide.strength == relations.citation_strength(2) == 0.9


def test_mentions_of_identifier_and_url_are_exact(pg, tmp_path):
    iris = _ingest(pg, tmp_path, ["trial-a", "guide"])
    path = tmp_path / "memo.md"
    path.write_text("See trial-a for the numbers. The text at https://example.org/guidelines/ is older.\n", "utf-8")
    memo = pg.ingest(path, IngestOptions(title="Memo", id="memo")).documents[0].document
    found = pg.related_documents("memo")
    assert {r.other(memo) for r in found} == {iris["trial-a"], iris["guide"]}
    assert all(r.type is RelationType.MENTION and r.evidence[0].score == 100.0 for r in found)


def test_related_documents_by_key_or_iri_with_min_strength(pg, corpus):
    by_key = pg.related_documents("https://example.org/guidelines")
    assert _pairs(by_key, corpus) == [
        ("review", "guide", RelationType.CITATION),
        ("note", "guide", RelationType.MENTION),
    ]
    assert pg.related_documents(corpus["guide"]) == by_key
    assert _pairs(pg.related_documents("https://example.org/guidelines", min_strength=0.6), corpus) == [
        ("review", "guide", RelationType.CITATION)
    ]
    assert len(pg.related_documents()) == 3
    with pytest.raises(NotFoundError):
        pg.related_documents("no-such-document")


def test_relations_are_stored_as_rdf_with_their_activity(pg, corpus):
    found = pg.refresh_relationships()
    assert _stored_count(pg, PG + "DocumentRelation") == 3
    assert _stored_count(pg, PG + "RelationActivity") == 1
    rows = _select(
        pg,
        f"""PREFIX pg: <{PG}> PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?type ?strength ?directed ?ctype ?count ?text ?in ?res WHERE {{ GRAPH <{RELATIONS_GRAPH.value}> {{
  ?r pg:fromDocument <{corpus["review"]}> ; pg:toDocument <{corpus["guide"]}> ; pg:relationType ?type ;
     pg:strength ?strength ; pg:directed ?directed ; prov:wasGeneratedBy ?act ; pg:hasComponent ?c .
  ?act a pg:RelationActivity, prov:Activity ; prov:startedAtTime ?t0 ; prov:endedAtTime ?t1 .
  ?c pg:relationType ?ctype ; pg:evidenceCount ?count ; pg:hasEvidence ?e .
  ?e pg:evidenceText ?text ; pg:foundIn ?in ; pg:evidenceResource ?res }} }}""",
    )
    assert len(rows) == 1
    row = rows[0]
    assert (row["type"], row["ctype"], float(row["strength"]), row["directed"], row["count"]) == (
        PG + "Citation",
        PG + "Citation",
        0.8,
        "true",
        "1",
    )
    assert row["in"] == corpus["review"] and row["res"] == found[0].evidence[0].resource
    # the activity read the current sources (their view graph) in the state the stamp names
    used = _select(
        pg,
        f"SELECT ?g ?n WHERE {{ GRAPH <{RELATIONS_GRAPH.value}> {{ ?a a <{PG}RelationActivity> ; "
        f"<http://www.w3.org/ns/prov#used> ?g . ?r <{PG}generation> ?n }} }}",
    )
    assert {(r["g"], int(r["n"])) for r in used} == {(CURRENT_VIEW.value, changes.generation(pg.backend))}
    # read back from the store: the same relations
    assert not relations.is_stale(pg.backend)
    assert pg.related_documents() == found
    # not a source graph, and not an orphan of an interrupted ingest
    assert catalog.orphan_graphs(pg.backend) == []
    assert pg.recover() == []
    assert pg.graph_exists(RELATIONS_GRAPH.value)


def test_refresh_replaces_the_graph_and_follows_revocation_and_ingest(pg, corpus, tmp_path):
    pg.refresh_relationships()
    quads = len(list(pg.backend.quads(graph=RELATIONS_GRAPH)))
    again = pg.refresh_relationships()
    assert len(again) == 3
    assert len(list(pg.backend.quads(graph=RELATIONS_GRAPH))) == quads  # replaced, not added to
    assert _stored_count(pg, PG + "DocumentRelation") == 3
    assert _stored_count(pg, PG + "RelationActivity") == 1

    pg.revoke("https://example.org/guidelines", reason="test")
    assert relations.is_stale(pg.backend)
    # the next read recomputes: no edge to a revoked document
    assert _pairs(pg.related_documents(), corpus) == [_pairs(again, corpus)[2]]
    assert _stored_count(pg, PG + "DocumentRelation") == 1

    path = tmp_path / "reply.ttl"
    path.write_text(
        "<https://example.org/reply> <http://purl.org/spar/cito/cites> <https://example.org/review> .\n", "utf-8"
    )
    reply = (
        pg.ingest(path, IngestOptions(title="Reply to the review", url="https://example.org/reply"))
        .documents[0]
        .document
    )
    (edge,) = pg.related_documents(reply)
    assert (edge.from_document, edge.to_document, edge.type) == (reply, corpus["review"], RelationType.CITATION)
    assert _stored_count(pg, PG + "DocumentRelation") == 2


def test_a_read_only_store_computes_without_storing(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as graph:
        _ingest(graph, tmp_path, ["guide", "review"])
    with ProvGraph.open(store, read_only=True) as graph:
        (edge,) = graph.related_documents("https://example.org/review")
        assert edge.type is RelationType.CITATION and edge.activity is None
        assert not graph.graph_exists(RELATIONS_GRAPH.value)


@pytest.fixture
def server(pg: ProvGraph, corpus: dict[str, str]) -> Iterator[str]:
    with live_server(pg) as url:
        yield url


def test_http_edge_list_and_cytoscape(pg, server, corpus):
    with httpx.Client(base_url=server, timeout=30) as client:
        edges = client.get("/doc-relationships")
        assert edges.status_code == 200
        body = edges.json()
        assert [(e["from_document"], e["to_document"], e["type"]) for e in body] == [
            (corpus["review"], corpus["guide"], "citation"),
            (corpus["note"], corpus["guide"], "mention"),
            (body[2]["from_document"], body[2]["to_document"], "shared_entities"),
        ]
        assert body[0]["strength"] == 0.8 and body[0]["evidence"][0]["type"] == "citation"
        assert all(DocumentRelation.model_validate(e).activity for e in body)

        cy = client.get("/doc-relationships", params={"format": "cytoscape", "document": "note-1"}).json()
        assert cy["nodes"] == [
            {"data": {"id": corpus["note"], "label": "Clinic note", "key": "note-1"}},
            {
                "data": {
                    "id": corpus["guide"],
                    "label": "Aspirin Safety Guidelines",
                    "key": "https://example.org/guidelines",
                }
            },
        ]
        (edge,) = cy["edges"]
        assert edge["data"]["source"] == corpus["note"] and edge["data"]["target"] == corpus["guide"]
        assert edge["data"]["type"] == "mention" and 0.5 <= edge["data"]["strength"] < 0.8
        assert edge["data"]["id"] == relations.relation_iri(corpus["note"], corpus["guide"])

        strong = client.get("/doc-relationships", params={"min_strength": "0.5"}).json()
        assert [e["type"] for e in strong] == ["citation", "mention"]
        assert client.get("/doc-relationships", params={"document": "nope"}).status_code == 404
        assert client.get("/doc-relationships", params={"format": "graphml"}).status_code == 400


def test_cli_related(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as graph:
        iris = _ingest(graph, tmp_path, ["guide", "review", "note"])
    result = run_cli("related", "https://example.org/guidelines", "--store", str(store), "--json")
    assert result.returncode == 0, result.stderr
    found = [DocumentRelation.model_validate(r) for r in json.loads(result.stdout)]
    assert [(r.from_document, r.type) for r in found] == [
        (iris["review"], RelationType.CITATION),
        (iris["note"], RelationType.MENTION),
    ]
    assert found[0].activity is not None  # stored by the command, which took the write lock
    table = run_cli("related", "note-1", "--store", str(store))
    assert table.returncode == 0, table.stderr
    assert "Aspirin Safety Guidelines" in table.stdout and "mention" in table.stdout
    missing = run_cli("related", "nope", "--store", str(store))
    assert missing.returncode == 2 and "nope" in missing.stderr
