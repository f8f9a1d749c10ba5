"""Export: whole datasets (catalog included) and single graphs; a TriG round trip is isomorphic."""

from __future__ import annotations

import json

import pyoxigraph
import pytest
import rdflib
from rdflib.compare import isomorphic

from helpers import CAPITALS, EXAMPLES, capitals_options
from provgraph import (
    ExportFormat,
    IngestOptions,
    InputFormat,
    NotFoundError,
    ProvGraph,
    StoreNotEmptyError,
    UnsupportedFormatError,
)


@pytest.fixture
def filled(pg: ProvGraph) -> ProvGraph:
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin", url="https://example.org/aspirin"))
    pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Trial", url="https://example.org/trial"))
    pg.ingest(EXAMPLES / "aspirin-note.md", IngestOptions(title="Note", url="https://example.org/note"))
    pg.ingest(EXAMPLES / "dose-study.trig", IngestOptions(title="Dose study", url="https://example.org/dose-study"))
    pg.ingest(CAPITALS, capitals_options())
    return pg


def as_dataset(data: bytes, fmt: str) -> rdflib.Dataset:
    ds = rdflib.Dataset()
    ds.parse(data=data, format=fmt)
    return ds


def graphs_of(ds: rdflib.Dataset) -> dict[str, rdflib.Graph]:
    out = {}
    for g in ds.graphs():
        if len(g):
            copy = rdflib.Graph()
            for t in g:
                copy.add(t)
            out[str(g.identifier)] = copy
    return out


def assert_isomorphic_datasets(a: rdflib.Dataset, b: rdflib.Dataset) -> None:
    ga, gb = graphs_of(a), graphs_of(b)
    assert ga.keys() == gb.keys()
    for name in ga:
        assert isomorphic(ga[name], gb[name]), name


def test_trig_round_trip_gives_an_isomorphic_dataset(filled, tmp_path):
    dump = filled.export(format=ExportFormat.TRIG)
    assert dump is not None
    assert b"_:" in dump  # blank nodes go round too
    path = tmp_path / "all.trig"
    path.write_bytes(dump)
    with ProvGraph.open(tmp_path / "restored") as other:
        assert other.restore(path) == len(list(filled.current_graphs()))
        again = other.export(format=ExportFormat.TRIG)
        assert again is not None
        assert_isomorphic_datasets(as_dataset(dump, "trig"), as_dataset(again, "trig"))
        assert other.sources() == filled.sources()
        assert [
            e.object
            for e in other.evidence(
                "http://dbpedia.org/resource/Amsterdam", "http://dbpedia.org/ontology/populationTotal"
            )
        ] == [
            e.object
            for e in filled.evidence(
                "http://dbpedia.org/resource/Amsterdam", "http://dbpedia.org/ontology/populationTotal"
            )
        ]


def test_nquads_export_holds_every_graph_and_the_catalog(filled):
    dump = filled.export(format=ExportFormat.NQUADS)
    assert dump is not None
    graphs = {str(q.graph_name) for q in pyoxigraph.parse(dump, format=pyoxigraph.RdfFormat.N_QUADS)}
    assert "<https://w3id.org/provgraph/id/catalog>" in graphs
    assert {f"<{g.value}>" for g in filled.current_graphs()} <= graphs


def test_one_graph_as_turtle_and_jsonld(filled):
    source = filled.source("https://example.org/aspirin")
    turtle = filled.export(format=ExportFormat.TURTLE, graph=source.current_graph)
    assert turtle is not None
    g = rdflib.Graph().parse(data=turtle, format="turtle")
    assert (
        rdflib.URIRef("http://example.org/aspirin"),
        rdflib.URIRef("http://example.org/treats"),
        rdflib.URIRef("http://example.org/headache"),
    ) in g
    by_key = filled.export(format=ExportFormat.JSONLD, graph="https://example.org/aspirin")
    assert by_key is not None
    assert isomorphic(rdflib.Graph().parse(data=by_key, format="json-ld"), g)
    catalog = filled.export(format=ExportFormat.TURTLE, graph="catalog")
    assert catalog is not None and b"SourceGraph" in catalog


def test_dataset_jsonld_has_a_context_and_holds_what_nquads_holds(filled):
    dump = filled.export(format=ExportFormat.JSONLD)
    assert dump is not None
    document = json.loads(dump)
    assert document["@context"] == {
        "pg": "https://w3id.org/provgraph/ns#",
        "pgid": "https://w3id.org/provgraph/id/",
        "prov": "http://www.w3.org/ns/prov#",
        "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
        "xsd": "http://www.w3.org/2001/XMLSchema#",
        "dcterms": "http://purl.org/dc/terms/",
    }
    text = dump.decode()
    # keys, ids and datatypes written short; literal text never rewritten
    assert '"prov:wasDerivedFrom":' in text and '"@id":"pgid:catalog"' in text and '"@type":"xsd:' in text
    assert "http://www.w3.org/ns/prov#wasDerivedFrom" not in text
    nquads = filled.export(format=ExportFormat.NQUADS)
    assert nquads is not None
    expected = set(pyoxigraph.parse(nquads, format=pyoxigraph.RdfFormat.N_QUADS))
    # the same quads to Oxigraph's JSON-LD parser (blank node labels aside) and to rdflib's
    parsed = list(pyoxigraph.parse(dump, format=pyoxigraph.RdfFormat.JSON_LD))
    assert len(parsed) == len(expected) == filled.stats().quads
    assert {q for q in parsed if not _has_blank(q)} == {q for q in expected if not _has_blank(q)}
    assert_isomorphic_datasets(as_dataset(dump, "json-ld"), as_dataset(nquads, "nquads"))


def _has_blank(quad: pyoxigraph.Quad) -> bool:
    return any(isinstance(t, pyoxigraph.BlankNode) for t in (quad.subject, quad.object, quad.graph_name))


def test_trig_and_turtle_exports_declare_their_prefixes(filled):
    trig = filled.export(format=ExportFormat.TRIG)
    assert trig is not None
    head = trig.decode().splitlines()[:6]
    assert sorted(head) == sorted(
        [
            "@prefix pg: <https://w3id.org/provgraph/ns#> .",
            "@prefix pgid: <https://w3id.org/provgraph/id/> .",
            "@prefix prov: <http://www.w3.org/ns/prov#> .",
            "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .",
            "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .",
            "@prefix dcterms: <http://purl.org/dc/terms/> .",
        ]
    )
    assert b"prov:wasDerivedFrom" in trig
    turtle = filled.export(format=ExportFormat.TURTLE, graph="https://example.org/aspirin")
    assert turtle is not None and b"@prefix pg: <https://w3id.org/provgraph/ns#> ." in turtle.split(b"\n")[:6]


def test_stats_count_every_quad_the_export_writes_the_default_graph_too(filled):
    triple = b"<http://example.org/a> <http://example.org/b> <http://example.org/c> ."
    filled.replace_graph(None, triple, format=InputFormat.NTRIPLES)
    for fmt, rdf in [
        (ExportFormat.NQUADS, pyoxigraph.RdfFormat.N_QUADS),
        (ExportFormat.TRIG, pyoxigraph.RdfFormat.TRIG),
    ]:
        dump = filled.export(format=fmt)
        assert dump is not None
        quads = list(pyoxigraph.parse(dump, format=rdf))
        assert any(isinstance(q.graph_name, pyoxigraph.DefaultGraph) for q in quads)
        assert filled.stats().quads == len(quads)


def test_single_graph_formats_need_a_graph(filled):
    with pytest.raises(UnsupportedFormatError, match="holds one graph"):
        filled.export(format=ExportFormat.TURTLE)
    with pytest.raises(NotFoundError):
        filled.export(format=ExportFormat.TURTLE, graph="https://example.org/unknown")


def test_restore_needs_an_empty_store(filled, tmp_path):
    path = tmp_path / "all.nq"
    path.write_bytes(filled.export(format=ExportFormat.NQUADS) or b"")
    before = filled.export(format=ExportFormat.NQUADS)
    with pytest.raises(StoreNotEmptyError, match="restore needs an empty store; this one has data"):
        filled.restore(path)
    assert filled.export(format=ExportFormat.NQUADS) == before
