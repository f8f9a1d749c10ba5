"""Conflicts across sources on real stores: the DBpedia 3-capitals sample (Wikipedia editions that
disagree) and small hand-made documents."""

from __future__ import annotations

import json

import pyoxigraph
import pytest

from helpers import AMSTERDAM, DOUBLES_ON_VIRTUOSO, POPULATION, UNION_ON_OXIGRAPH_SERVER, ingest_capitals
from provgraph import (
    ConflictKind,
    DatasetView,
    ExportFormat,
    IngestOptions,
    ProvGraph,
    ResolutionStrategy,
    ValueOutcome,
)

OWL = "http://www.w3.org/2002/07/owl#"
DBO = "http://dbpedia.org/ontology/"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
XSD_INT = "^^<http://www.w3.org/2001/XMLSchema#integer>"
EX = "http://ex.org/"

POLICY = f"""@prefix owl: <{OWL}> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{POPULATION}> a owl:FunctionalProperty ; pg:relativeTolerance 0.005 ; pg:resolutionStrategy pg:Majority .
<{GEO}lat> a owl:FunctionalProperty ; pg:absoluteTolerance 0.02 .
<{GEO}long> a owl:FunctionalProperty ; pg:absoluteTolerance 0.02 .
<{DBO}country> a owl:FunctionalProperty .
"""


def edition(url: str) -> str:
    return url.split("//")[1].split(".")[0]


@pytest.fixture
def capitals_policy() -> str:
    """The shared capitals fixture (conftest.py) with this module's policy."""
    return POLICY


def jsonl(path, records: list[dict[str, object]]):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_amsterdam_population_conflict_shows_every_edition_and_the_preferred_value(capitals):
    [conflict] = capitals.conflicts(subject=AMSTERDAM, predicate=POPULATION)
    assert conflict.kind is ConflictKind.FUNCTIONAL
    by_value = {v.value: sorted(c.source.split(".")[0] for c in v.claims) for v in conflict.values}
    assert by_value == {
        f'"57"{XSD_INT}': ["es"],
        f'"762"{XSD_INT}': ["es"],
        f'"758198"{XSD_INT}': ["ca"],
        f'"790044"{XSD_INT}': ["ru"],
        f'"799406"{XSD_INT}': ["nl"],
        f'"820654"{XSD_INT}': ["en", "it"],
        f'"1364422"{XSD_INT}': ["pt"],
    }
    # the policy says majority for population: two editions (en, it) of seven independent ones
    assert conflict.resolution.strategy is ResolutionStrategy.MAJORITY
    assert conflict.resolution.preferred == f'"820654"{XSD_INT}'
    assert conflict.resolution.rationale.startswith("majority: 820654 (en.wikipedia.org, it.wikipedia.org)")
    assert "2 of 7 independent sources" in conflict.resolution.rationale
    outcomes = {v.value: v.outcome for v in conflict.values}
    assert outcomes.pop(f'"820654"{XSD_INT}') is ValueOutcome.PREFERRED
    assert set(outcomes.values()) == {ValueOutcome.REJECTED}
    # each value names its sources and the statements behind it, with their provenance
    nl = next(v for v in conflict.values if v.sources == ["nl.wikipedia.org"])
    assert nl.claims[0].tier == 4 and nl.claims[0].time is not None


def test_strategies_per_call_and_recorded(capitals):
    def preferred(strategy):
        [c] = capitals.conflicts(subject=AMSTERDAM, predicate=POPULATION, strategy=strategy)
        return c.resolution

    recency = preferred("recency")
    # es edited last (2013-03-28) but states both 57 and 762 in one edit: recency cannot choose
    assert recency.preferred is None and "no preference" in recency.rationale
    trust = preferred(ResolutionStrategy.SOURCE_TRUST)
    assert trust.preferred == f'"820654"{XSD_INT}' and "estimated accuracy" in trust.rationale
    surface = preferred("surface")
    assert surface.preferred is None
    # asking with a strategy does not change the record; resolve() does
    assert preferred(None).strategy is ResolutionStrategy.MAJORITY
    report = capitals.resolve("authority")
    assert report.stored and report.strategy is ResolutionStrategy.AUTHORITY
    [c] = capitals.conflicts(subject=AMSTERDAM, predicate=POPULATION)
    assert c.resolution.strategy is ResolutionStrategy.AUTHORITY


@pytest.mark.backends("embedded", "oxigraph", reason=DOUBLES_ON_VIRTUOSO)
def test_tolerance_merges_close_numbers_and_counts_them(capitals, tmp_path):
    utrecht = "http://dbpedia.org/resource/Utrecht"
    for name, value in (("a", "345080"), ("b", "345000")):  # 0.02% apart: they agree
        capitals.ingest(
            jsonl(
                tmp_path / f"{name}.jsonl",
                [{"subject": utrecht, "predicate": POPULATION, "literal": value, "datatype": "xsd:integer"}],
            ),
            IngestOptions(url=f"https://{name}.example/utrecht", title=name),
        )
    report = capitals.detect_conflicts()
    assert report.merged_by_tolerance == 1 and capitals.conflicts(subject=utrecht) == []
    assert report.multi_valued == report.conflicts + report.merged_by_tolerance
    [lat] = capitals.conflicts(subject=AMSTERDAM, predicate=GEO + "lat")
    # 52.3731 (en), 52.3833 (ru), 52.3667 (es, it) agree within 0.02; de's 52 and pl's 4.9 do not
    assert [sorted(c.source.split(".")[0] for c in v.claims) for v in lat.values] == [
        ["pl"],
        ["de"],
        ["en", "es", "it", "ru"],
    ]
    assert len(lat.values[2].members) == 3


@pytest.mark.backends(
    "embedded",
    "virtuoso",
    reason=UNION_ON_OXIGRAPH_SERVER,
)
def test_records_are_rdf_and_rerunning_after_an_ingest_keeps_them_consistent(capitals, tmp_path):
    first = {c.iri: c for c in capitals.conflicts()}
    rows = capitals.query(
        "SELECT (COUNT(?c) AS ?n) WHERE { GRAPH pgid:conflicts { ?c a pg:Conflict ; pg:preferredValue ?v ;"
        " pg:rationale ?why ; prov:wasGeneratedBy ?act . ?act a prov:Activity ; prov:endedAtTime ?t } }"
    ).rows()
    assert int(rows[0]["n"].value) == sum(1 for c in first.values() if c.resolution.preferred)
    # the conflict graph and the ontology graph are not source documents, nor in the current view
    assert {s.key for s in capitals.sources()} >= {"3-capitals"}
    assert not any("conflicts" in g.value or "ontology" in g.value for g in capitals.current_graphs())
    assert not capitals.query("ASK { ?c a pg:Conflict }", view=DatasetView.CURRENT)
    assert capitals.query("ASK { ?c a pg:Conflict }", view=DatasetView.ALL)
    # a tier-1 census document settles Amsterdam's population by authority
    census = jsonl(
        tmp_path / "census.jsonl",
        [{"subject": AMSTERDAM, "predicate": POPULATION, "literal": "741636", "datatype": "xsd:integer"}],
    )
    capitals.ingest(census, IngestOptions(url="https://cbs.example/amsterdam", title="census", tier=1))
    capitals.resolve("authority")
    second = {c.iri: c for c in capitals.conflicts()}
    assert set(second) == set(first)  # the same conflicts keep their IRIs ...
    amsterdam = next(c for c in second.values() if c.subject == AMSTERDAM and c.predicates == [POPULATION])
    assert amsterdam.first_detected == first[amsterdam.iri].first_detected  # ... and when they were first seen
    assert amsterdam.resolution.preferred == f'"741636"{XSD_INT}'
    assert "best source tier (1)" in amsterdam.resolution.rationale
    # losing values stay: every edition's statement is still there, only marked
    losers = [v for v in amsterdam.values if v.outcome is ValueOutcome.REJECTED]
    assert len(losers) == 7
    for v in losers:
        assert capitals.evidence(AMSTERDAM, POPULATION, v.value)


def test_detection_runs_again_by_itself_after_new_sources(capitals, tmp_path):
    assert not capitals.conflicts(subject=EX + "x")
    capitals.add_ontology(_write(tmp_path / "x.ttl", f"<{EX}size> a <{OWL}FunctionalProperty> ."))
    capitals.ingest(
        jsonl(tmp_path / "a.jsonl", [{"subject": EX + "x", "predicate": EX + "size", "literal": "3"}]),
        IngestOptions(url="https://a.example/x", title="a"),
    )
    capitals.ingest(
        jsonl(tmp_path / "b.jsonl", [{"subject": EX + "x", "predicate": EX + "size", "literal": "4"}]),
        IngestOptions(url="https://b.example/x", title="b"),
    )
    [c] = capitals.conflicts(subject=EX + "x")
    assert sorted(v.value for v in c.values) == ['"3"', '"4"']


def test_a_chain_of_close_numbers_is_still_a_disagreement(pg: ProvGraph, tmp_path) -> None:
    """A tolerance is measured from the smallest value of a group, not from its neighbour: 100,
    104, 108 and 112 each lie within 5% of the next, yet 100 and 112 are 12% apart. Chaining them
    would merge all four into one value and hide that disagreement."""
    _write(
        tmp_path / "policy.ttl",
        f"""@prefix owl: <{OWL}> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{EX}weight> a owl:FunctionalProperty ; pg:relativeTolerance 0.05 .
""",
    )
    pg.add_ontology(tmp_path / "policy.ttl")
    for name, value in (("a", "100"), ("b", "104"), ("c", "108"), ("d", "112")):
        record: dict[str, object] = {
            "subject": EX + "parcel",
            "predicate": EX + "weight",
            "literal": value,
            "datatype": "xsd:integer",
        }
        pg.ingest(
            jsonl(tmp_path / f"{name}.jsonl", [record]), IngestOptions(url=f"https://{name}.example/parcel", title=name)
        )
    found = pg.conflicts(subject=EX + "parcel")
    # each group spans at most 5% of its smallest value: {100, 104} and {108, 112}
    assert [[sorted(v.sources) for v in c.values] for c in found] == [
        [["a.example", "b.example"], ["c.example", "d.example"]]
    ]


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def test_disjoint_predicates_entity_resolution_and_normalisation(pg, tmp_path):
    _write(
        tmp_path / "policy.ttl",
        f"""@prefix owl: <{OWL}> . @prefix pg: <https://w3id.org/provgraph/ns#> . @prefix ex: <{EX}> .
ex:treats owl:propertyDisjointWith ex:contraindicatedFor .
ex:name a owl:FunctionalProperty ; pg:caseInsensitive true .
ex:code a owl:FunctionalProperty .
ex:dose a owl:FunctionalProperty .
ex:aspirin pg:alias "ASA" .
""",
    )
    pg.add_ontology(tmp_path / "policy.ttl")
    pg.ingest(
        jsonl(
            tmp_path / "label.jsonl",
            [
                {"subject": EX + "aspirin", "predicate": EX + "treats", "object": EX + "headache"},
                {"subject": EX + "aspirin", "predicate": EX + "name", "literal": "Acetylsalicylic  acid"},
                {"subject": EX + "aspirin", "predicate": EX + "code", "literal": "N02BA01"},
                {"subject": EX + "aspirin", "predicate": EX + "dose", "literal": "1", "datatype": "xsd:integer"},
                {"subject": EX + "paris-fr", "predicate": EX + "code", "literal": "75"},
                {
                    "subject": EX + "paris-fr",
                    "predicate": "http://www.w3.org/2000/01/rdf-schema#label",
                    "literal": "Paris",
                },
            ],
        ),
        IngestOptions(url="https://label.example/aspirin", title="label", tier=2),
    )
    pg.ingest(
        jsonl(
            tmp_path / "forum.jsonl",
            [
                # "ASA" is the declared alias of ex:aspirin, and only this subject carries it
                {"subject": EX + "asa", "predicate": "http://www.w3.org/2000/01/rdf-schema#label", "literal": "ASA"},
                {"subject": EX + "asa", "predicate": EX + "contraindicatedFor", "object": EX + "headache"},
                {"subject": EX + "asa", "predicate": EX + "name", "literal": "acetylsalicylic acid "},
                {"subject": EX + "asa", "predicate": EX + "dose", "literal": "1.0", "datatype": "xsd:double"},
                {"subject": EX + "acetyl", "predicate": f"{OWL}sameAs", "object": EX + "aspirin"},
                {"subject": EX + "acetyl", "predicate": EX + "code", "literal": "B01AC06"},
                # a different thing with the same label is not merged
                {
                    "subject": EX + "paris-tx",
                    "predicate": "http://www.w3.org/2000/01/rdf-schema#label",
                    "literal": "Paris",
                },
                {"subject": EX + "paris-tx", "predicate": EX + "code", "literal": "75460"},
            ],
        ),
        IngestOptions(url="https://forum.example/asa", title="forum", tier=5),
    )
    report = pg.detect_conflicts(strategy="authority")
    assert report.merged_entities == 2  # ex:asa (alias) and ex:acetyl (owl:sameAs) into ex:aspirin
    found = {(c.kind, tuple(c.predicates)): c for c in pg.conflicts()}
    assert set(found) == {
        (ConflictKind.DISJOINT, (EX + "contraindicatedFor", EX + "treats")),
        (ConflictKind.FUNCTIONAL, (EX + "code",)),
    }
    disjoint = found[ConflictKind.DISJOINT, (EX + "contraindicatedFor", EX + "treats")]
    assert disjoint.subject == EX + "aspirin" and disjoint.merged_subjects == [EX + "acetyl", EX + "asa"]
    assert disjoint.resolution.preferred == f"<{EX}headache>"
    assert [(v.predicate, v.outcome) for v in disjoint.values] == [
        (EX + "contraindicatedFor", ValueOutcome.REJECTED),
        (EX + "treats", ValueOutcome.PREFERRED),
    ]
    code = found[ConflictKind.FUNCTIONAL, (EX + "code",)]
    # each attribute keeps which document (and which subject IRI) contributed it
    assert {(c.subject, c.object, c.source) for v in code.values for c in v.claims} == {
        (EX + "aspirin", '"N02BA01"', "label.example"),
        (EX + "acetyl", '"B01AC06"', "forum.example"),
    }
    assert code.resolution.preferred == '"N02BA01"'  # tier 2 over tier 5
    # the same name up to case and spaces, and 1 = 1.0, are no conflicts; the two Parises are not merged
    assert pg.conflicts(subject=EX + "paris-fr") == []
    # a merged IRI finds the entity's conflicts, read alone exactly as in the whole list
    assert pg.conflicts(subject=EX + "asa") == pg.conflicts(subject=EX + "aspirin") == [disjoint, code]
    assert pg.conflicts(subject=EX + "acetyl", predicate=EX + "code") == [code]
    assert pg.conflicts(predicate=EX + "treats") == [disjoint]
    assert pg.conflicts(subject=EX + "asa", predicate=EX + "nope") == []


def test_a_new_source_labelling_an_entity_with_an_alias_merges_it_in_the_caught_up_records(pg, tmp_path):
    """The records catch up from the new source alone: a label that is a declared alias changes
    which IRIs are one entity, so the new source's value conflicts with the stored one's."""
    _write(
        tmp_path / "policy.ttl",
        f"""@prefix owl: <{OWL}> . @prefix pg: <https://w3id.org/provgraph/ns#> . @prefix ex: <{EX}> .
ex:dose a owl:FunctionalProperty .
ex:aspirin pg:alias "ASA" .
""",
    )
    pg.add_ontology(tmp_path / "policy.ttl")
    record = {"subject": EX + "aspirin", "predicate": EX + "dose", "literal": "1", "datatype": "xsd:integer"}
    pg.ingest(jsonl(tmp_path / "label.jsonl", [record]), IngestOptions(url="https://label.example/", title="label"))
    assert pg.conflicts() == []  # stored: one value
    forum = [
        {"subject": EX + "asa", "predicate": "http://www.w3.org/2000/01/rdf-schema#label", "literal": "ASA"},
        {"subject": EX + "asa", "predicate": EX + "dose", "literal": "2", "datatype": "xsd:integer"},
    ]
    pg.ingest(jsonl(tmp_path / "forum.jsonl", forum), IngestOptions(url="https://forum.example/", title="forum"))
    [conflict] = pg.conflicts()
    assert conflict.subject == EX + "aspirin" and len(conflict.values) == 2


def test_shapes_with_max_count_one_declare_functional_predicates(pg, tmp_path):
    _write(
        tmp_path / "shapes.ttl",
        f"""@prefix sh: <http://www.w3.org/ns/shacl#> .
[] a sh:NodeShape ; sh:targetSubjectsOf <{EX}born> ; sh:property [ sh:path <{EX}born> ; sh:maxCount 1 ] .
""",
    )
    pg.add_ontology(tmp_path / "shapes.ttl")
    for name, year in (("a", "1900"), ("b", "1901")):
        pg.ingest(
            jsonl(tmp_path / f"{name}.jsonl", [{"subject": EX + "p", "predicate": EX + "born", "literal": year}]),
            IngestOptions(url=f"https://{name}.example/", title=name),
        )
    [c] = pg.conflicts()
    assert c.predicates == [EX + "born"] and len(c.values) == 2


def test_ontology_graph_survives_reopen_and_export_and_read_only_computes(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        ingest_capitals(pg, tmp_path, POLICY, graph_metadata=False)
    with ProvGraph.open(store) as pg:  # a read-write open runs recover(): the ontology graph stays
        assert "https://w3id.org/provgraph/id/ontology" in _exported_graphs(pg)
    with ProvGraph.open(store, read_only=True) as pg:
        found = pg.conflicts(subject=AMSTERDAM)  # computed, not stored
        assert {tuple(c.predicates) for c in found} == {(POPULATION,), (GEO + "lat",), (GEO + "long",)}
    with ProvGraph.open(store, read_only=True) as pg:
        assert "https://w3id.org/provgraph/id/conflicts" not in _exported_graphs(pg)


def _exported_graphs(pg: ProvGraph) -> set[str]:
    dump = pg.export(format=ExportFormat.NQUADS)
    assert dump is not None
    return {str(q.graph_name)[1:-1] for q in pyoxigraph.parse(dump, format=pyoxigraph.RdfFormat.N_QUADS)}
