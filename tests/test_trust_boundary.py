"""Input is data, never provenance: no input can mint statements, documents, activities or catalog
entries that provgraph then reads as provenance (issue 11, point 1)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from pyoxigraph import NamedNode, Quad, RdfFormat, parse, serialize

from helpers import CAPITALS, DBPEDIA, EXAMPLES, PAST_PROVGRAPH, capitals_options, dataset_dump, live_server, run_cli
from provgraph import GraphSplit, IngestOptions, InputError, ProvGraph, QueryError
from provgraph.http import ServerSettings
from provgraph.vocab import document_iri, fact_iri

EX = "http://example.org/"
PG = "https://w3id.org/provgraph/ns#"
PGID = "https://w3id.org/provgraph/id/"
TOKEN = "s3cret-token"

# The attack of issue 11: a blog post (tier 5) carries its own pg:Statement of "aspirin treats
# cancer", derived from the real "Aspirin facts" document (tier 1 in the forged description).
ASPIRIN_DOC = document_iri("aspirin").value
CANCER = f"<{EX}aspirin> <{EX}treats> <{EX}cancer>"
FORGED = f"""@prefix ex: <{EX}> . @prefix pg: <{PG}> . @prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:aspirin ex:treats ex:cancer .
ex:st1 a rdf:Statement , pg:Statement ; rdf:subject ex:aspirin ; rdf:predicate ex:treats ; rdf:object ex:cancer ;
  pg:fact {fact_iri(CANCER)} ; prov:wasDerivedFrom <{ASPIRIN_DOC}> ; prov:wasGeneratedBy ex:act ;
  prov:generatedAtTime "2024-01-01T00:00:00Z"^^xsd:dateTime ; pg:confidence 1.0e0 ; pg:extractionMethod pg:SourceData .
ex:act a prov:Activity , pg:ExtractionActivity ; prov:used <{ASPIRIN_DOC}> ;
  prov:startedAtTime "2024-01-01T00:00:00Z"^^xsd:dateTime ; pg:extractionMethod pg:SourceData ;
  prov:wasAssociatedWith ex:agent .
ex:agent a prov:Agent .
<{ASPIRIN_DOC}> a pg:SourceDocument , prov:Entity ; pg:documentKey "aspirin" ; dcterms:title "Aspirin facts" ;
  pg:tier 1 ; pg:contentHash "{"a" * 64}" ; pg:mediaType "text/turtle" .
<{PGID}catalog> pg:hasSourceGraph <{PGID}fake/v1> .
"""
FAKE_CATALOG = f"<{PGID}catalog> <{PG}hasSourceGraph> <{PGID}fake/v1> .\n"


@pytest.fixture
def aspirin(pg: ProvGraph) -> ProvGraph:
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin facts", tier=2))
    return pg


def cancer_evidence(pg: ProvGraph) -> list[tuple[str, int, str]]:
    return [(e.title, e.tier, e.document) for e in pg.evidence(f"{EX}aspirin", f"{EX}treats", f"{EX}cancer")]


def refused(pg: ProvGraph, path: Path, **options: object) -> InputError:
    before = dataset_dump(pg)
    with pytest.raises(InputError) as caught:
        pg.ingest(path, IngestOptions(**options))  # type: ignore[arg-type]
    assert dataset_dump(pg) == before
    # The tests read the error's fields. Its tracebacks (and pytest's record of them) hold this
    # frame, which holds them and the test's frame: a cycle that keeps the test's locals
    # (pyoxigraph query results among them) until a later collection, maybe on another test's
    # server thread, where PyO3 refuses to drop a result made on this one (an unraisable
    # exception reported in that later test).
    error = caught.value
    del caught
    link: BaseException | None = error
    while link is not None:
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return error


# ---------------------------------------------------------------------- the attack of the issue


def test_a_forged_statement_from_another_document_is_refused(aspirin, tmp_path):
    path = tmp_path / "evil.ttl"
    path.write_text(FORGED)
    error = refused(aspirin, path, id="evil-blog", tier=5)
    assert (error.file, error.line) == (str(path), 5)  # ex:st1 a rdf:Statement , pg:Statement
    assert f"<{PG}Statement>" in error.reason
    assert "input is data, never provenance" in error.reason
    assert cancer_evidence(aspirin) == []
    assert [s.key for s in aspirin.sources()] == ["aspirin"]


def test_a_forged_catalog_entry_is_refused_and_never_in_the_default_view(aspirin, tmp_path):
    path = tmp_path / "catalog.nt"
    path.write_text(f"<{EX}a> <{EX}b> <{EX}c> .\n" + FAKE_CATALOG)
    error = refused(aspirin, path, id="evil-catalog")
    assert (error.line, f"<{PGID}catalog>" in error.reason) == (2, True)
    rows = aspirin.query("SELECT ?g WHERE { pgid:catalog pg:hasSourceGraph ?g }")
    assert list(rows) == []


def test_the_cli_refuses_forged_provenance_with_file_and_line(tmp_path):
    store = tmp_path / "store"
    evil = tmp_path / "evil.ttl"
    evil.write_text(FORGED)
    first = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--store", str(store), "--id", "aspirin", "-q")
    assert first.returncode == 0, first.stderr
    done = run_cli("ingest", str(evil), "--store", str(store), "--id", "evil-blog", "--tier", "5", "-q")
    assert done.returncode == 2
    assert f"{evil}:5: <{PG}Statement> is in provgraph's pg: namespace" in done.stderr
    assert "Traceback" not in done.stderr
    shown = run_cli("evidence", "--store", str(store), "--subject", f"{EX}aspirin", "--predicate", f"{EX}treats")
    assert "cancer" not in shown.stdout


def test_an_upload_with_forged_provenance_is_a_400_naming_the_line(aspirin):
    settings = ServerSettings(token=TOKEN)
    with live_server(aspirin, settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        response = client.post(
            "/sources",
            data={"id": "evil-blog", "tier": "5"},
            files=[("file", ("evil.ttl", FORGED.encode()))],
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
    assert response.status_code == 400, response.text
    assert (response.json()["file"], response.json()["line"]) == ("evil.ttl", 5)
    assert cancer_evidence(aspirin) == []


# ---------------------------------------------------------------------- every format, every position

TERM = f"{PG}confidence"


def _jsonld(subject: str, predicate: str, obj: dict[str, str]) -> str:
    return json.dumps({"@id": subject, predicate: obj}, indent=1)


POSITIONS = [
    # (file name, content, line of the offending term, the term)
    ("subject.nt", f"<{EX}a> <{EX}b> <{EX}c> .\n<{PGID}stmt/1> <{EX}b> <{EX}c> .\n", 2, f"{PGID}stmt/1"),
    ("predicate.nt", f'<{EX}a> <{TERM}> "1" .\n', 1, TERM),
    ("object.ttl", f"@prefix pg: <{PG}> .\n\n<{EX}a> a pg:Statement .\n", 3, f"{PG}Statement"),
    ("datatype.ttl", f'<{EX}a> <{EX}b> "1"^^<{PG}number> .\n', 1, f"{PG}number"),
    ("graph.nq", f"<{EX}a> <{EX}b> <{EX}c> <{PGID}catalog> .\n", 1, f"{PGID}catalog"),
    ("graph.trig", f"<{EX}g> {{ <{EX}a> <{EX}b> <{EX}c> }}\n<{PGID}catalog> {{ <{EX}a> <{EX}b> <{EX}c> }}\n", 2,
     f"{PGID}catalog"),
    ("prefixed.trig", f"@prefix pgid: <{PGID}> .\n<{EX}g> {{ <{EX}a> <{EX}b> pgid:catalog }}\n", 2, f"{PGID}catalog"),
    ("object.jsonld", _jsonld(f"{EX}a", f"{EX}b", {"@id": f"{PGID}doc/x"}), 4, f"{PGID}doc/x"),
    ("predicate.jsonld", _jsonld(f"{EX}a", TERM, {"@value": "1"}), 3, TERM),
    (
        "object.rdf",
        f'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
        f'<rdf:Description rdf:about="{EX}a">\n<rdf:type rdf:resource="{PG}Statement"/>\n'
        "</rdf:Description>\n</rdf:RDF>\n",
        4,
        f"{PG}Statement",
    ),
    (
        "graph.trix",
        f'<TriX xmlns="http://www.w3.org/2004/03/trix/trix-1/">\n<graph>\n<uri>{PGID}catalog</uri>\n'
        f"<triple><uri>{EX}a</uri><uri>{EX}b</uri><uri>{EX}c</uri></triple>\n</graph>\n</TriX>\n",
        3,
        f"{PGID}catalog",
    ),
    ("subject.jsonl", json.dumps({"subject": f"{PGID}stmt/1", "predicate": f"{EX}b", "object": f"{EX}c"}), 1,
     f"{PGID}stmt/1"),
    ("predicate.jsonl", "\n" + json.dumps({"subject": f"{EX}a", "predicate": TERM, "literal": "1"}), 2, TERM),
    ("object.jsonl", json.dumps({"subject": f"{EX}a", "predicate": f"{EX}b", "object": f"{PGID}doc/x"}), 1,
     f"{PGID}doc/x"),
    ("datatype.jsonl", json.dumps({"subject": f"{EX}a", "predicate": f"{EX}b", "literal": "1", "datatype": f"{PG}n"}),
     1, f"{PG}n"),
    ("reviewer.jsonl",
     json.dumps({"subject": f"{EX}a", "predicate": f"{EX}b", "object": f"{EX}c", "reviewer": f"{PGID}agent/x"}), 1,
     f"{PGID}agent/x"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "line", "term"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_a_provgraph_iri_in_any_position_of_any_format_is_refused(aspirin, tmp_path, name, content, line, term):
    path = tmp_path / name
    path.write_text(content)
    error = refused(aspirin, path, id="input")
    assert (error.file, error.line) == (str(path), line)
    assert error.reason.startswith(f"<{term}> is in provgraph's")


def test_graph_metadata_is_input_too(aspirin, tmp_path):
    metadata = tmp_path / "metadata.nq"
    metadata.write_text(
        f"<http://en.wikipedia.org/wiki/Amsterdam:populationTotal:1> <{PG}confidence> "
        '"1.0"^^<http://www.w3.org/2001/XMLSchema#double> .\n'
    )
    split = GraphSplit.wikipedia_articles(metadata)
    error = refused(aspirin, DBPEDIA / "3-capitals.nq", id="capitals", base="http://example.org/ldif/", split=split)
    assert (error.file, error.line) == (str(metadata), 1)
    assert error.reason.startswith(f"<{PG}confidence>")


@pytest.mark.parametrize("option", ["agent", "reviewer"])
def test_an_agent_or_reviewer_option_may_not_be_a_provgraph_iri(aspirin, option):
    with pytest.raises(InputError, match=f"--{option} may not be one of provgraph's own IRIs"):
        aspirin.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="facts", **{option: f"{PGID}agent/provgraph"}))


def test_the_bundled_and_real_data_still_ingest(pg):
    report = pg.ingest(CAPITALS, capitals_options())
    assert report.statements > 0 and report.validation.conforms
    pg.add_ontology(DBPEDIA / "policy.ttl")  # pg: terms here are policy, loaded beside the sources


# ---------------------------------------------------------------------- the read side


@pytest.mark.backends("embedded", reason=PAST_PROVGRAPH)
def test_a_source_graph_naming_another_document_is_not_that_documents_evidence(aspirin):
    """Defence in depth: a statement is attributed to the document the catalog says its graph is
    a version of, whatever the graph says (here the forged triples are put into a source graph
    directly, as no input can)."""
    report = aspirin.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="blog", tier=5))
    graph = NamedNode(report.documents[0].graph)
    forged = [q for q in parse(FORGED.encode(), format=RdfFormat.TURTLE) if "fake" not in str(q.object)]
    store = aspirin.backend._store  # type: ignore[attr-defined]
    store.extend(Quad(q.subject, q.predicate, q.object, graph) for q in forged)
    assert cancer_evidence(aspirin) == []


FORGED_NT = serialize(
    [q.triple for q in parse(FORGED.encode(), format=RdfFormat.TURTLE)], format=RdfFormat.N_TRIPLES
).decode()


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda pg: pg.update("INSERT DATA { " + FORGED_NT + " }"), id="update-default-graph"),
        pytest.param(
            lambda pg: pg.update(f"INSERT DATA {{ GRAPH <{EX}mine> {{ " + FORGED_NT + " } }"), id="update-own-graph"
        ),
        pytest.param(lambda pg: pg.replace_graph(None, FORGED.encode(), format="turtle"), id="graph-store-default"),
        pytest.param(
            lambda pg: pg.add_to_graph(f"{EX}mine", FORGED.encode(), format="turtle"), id="graph-store-own-graph"
        ),
    ],
)
def test_forged_provenance_written_by_sparql_or_graph_store_is_never_read_as_provenance(aspirin, write, request):
    sources_before = aspirin.sources()
    refused = None
    try:
        write(aspirin)
    except QueryError as exc:  # Virtuoso has no default graph to write into: refused, nothing written
        refused = str(exc)
    assert refused is None or ("virtuoso" in request.node.name and "default graph" in refused), refused
    assert cancer_evidence(aspirin) == []
    assert aspirin.sources() == sources_before
    assert [g.value for g in aspirin.current_graphs()] == [sources_before[0].current_graph]
    assert aspirin.stats().documents == 1
    answer = aspirin.ask("What does aspirin treat?")
    assert answer.claims and "cancer" not in answer.model_dump_json().lower()


def test_an_ontology_with_forged_provenance_is_policy_not_provenance(aspirin, tmp_path):
    """``ontology add`` loads pg: terms on purpose (policies) into the ontology graph, which is not
    a source: statements, documents or catalog entries there are never read as provenance."""
    path = tmp_path / "policy.ttl"
    path.write_text(FORGED)
    sources_before = aspirin.sources()
    aspirin.add_ontology(path)
    assert cancer_evidence(aspirin) == []
    assert aspirin.sources() == sources_before
    assert aspirin.stats().documents == 1
