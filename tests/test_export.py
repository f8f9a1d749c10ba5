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


def test_dataset_jsonld(filled):
    dump = filled.export(format=ExportFormat.JSONLD)
    assert dump is not None
    assert isinstance(json.loads(dump), dict | list)


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
