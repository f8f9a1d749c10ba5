"""Confidence scoring: the documented formulas (pure functions), and the aggregated confidence and
status that evidence shows on a real store."""

from __future__ import annotations

import math

import pytest

from helpers import AMSTERDAM, DOUBLES_ON_VIRTUOSO, POPULATION, ingest_capitals
from provgraph import ChainMode, FactStatus, IngestOptions
from provgraph.trust.confidence import (
    DecayConfig,
    aggregate,
    aggregate_by_source,
    chain_confidence,
    decay,
    fact_status,
    statement_confidence,
    tier_band,
)
from provgraph.trust.resolve import truth_discovery

GEO_LAT = "http://www.w3.org/2003/01/geo/wgs84_pos#lat"
PARIS = "http://dbpedia.org/resource/Paris"


def test_tier_bands_place_the_extraction_confidence_within_the_source_band():
    assert [tier_band(t) for t in range(1, 6)] == [
        (0.95, 1.0),
        (0.85, 0.95),
        (0.70, 0.85),
        (0.50, 0.70),
        (0.30, 0.50),
    ]
    assert statement_confidence(1.0, 4) == pytest.approx(0.70)
    assert statement_confidence(0.5, 1) == pytest.approx(0.975)
    assert statement_confidence(0.0, 5) == pytest.approx(0.30)
    # a perfect extraction from a weak source never outranks a poor one from a strong source
    assert statement_confidence(1.0, 3) <= statement_confidence(0.0, 2)
    with pytest.raises(ValueError, match=r"1\.\.5"):
        tier_band(6)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        statement_confidence(1.2, 1)


def test_aggregation_over_independent_sources_is_capped():
    assert aggregate([0.7, 0.7]) == pytest.approx(0.91)
    assert aggregate([0.9] * 10) == 0.99
    assert aggregate([]) == 0.0
    # two statements of one source are not independent evidence
    assert aggregate_by_source([("en", 0.7), ("en", 0.6), ("nl", 0.5)]) == pytest.approx(1 - 0.3 * 0.5)


def test_decay_and_its_configuration():
    half_life_year = math.log(2) / 365
    assert decay(0.8, 365, half_life_year) == pytest.approx(0.4)
    assert decay(0.8, -10, half_life_year) == 0.8  # a future date does not raise confidence
    config = DecayConfig(
        per_predicate={"http://ex.org/price": 0.01},
        per_domain={"http://ex.org/": 0.001, "http://ex.org/stock/": 0.1},
    )
    assert config.rate("http://ex.org/price") == 0.01
    assert config.rate("http://ex.org/stock/level") == 0.1
    assert config.rate("http://ex.org/name") == 0.001
    assert config.rate("http://other.org/x") == 0.0


def test_chains_are_bounded_by_the_weakest_link_or_the_product():
    assert chain_confidence([0.9, 0.6, 0.8]) == 0.6
    assert chain_confidence([0.9, 0.5], mode="product") == pytest.approx(0.45)
    with pytest.raises(ValueError, match="weakest"):
        chain_confidence([0.9], mode="mean")


def test_fact_status_rules():
    common = {"historical_only": False, "contested": False, "lost_resolution": False}
    assert fact_status(current_sources=2, **common) is FactStatus.CONFIRMED
    assert fact_status(current_sources=1, **common) is FactStatus.UNKNOWN
    assert fact_status(current_sources=3, **{**common, "contested": True}) is FactStatus.CONTESTED
    assert fact_status(current_sources=3, **{**common, "contested": True, "lost_resolution": True}) is (
        FactStatus.DEPRECATED
    )
    assert fact_status(current_sources=0, **{**common, "historical_only": True}) is FactStatus.DEPRECATED


def test_truth_discovery_learns_which_source_is_usually_right():
    # "good" agrees with the crowd on ten items, "bad" dissents on all of them; on the last item
    # they are alone and disagree 1 against 1: majority cannot tell, source trust can.
    items = [[frozenset({"good", "a", "b"}), frozenset({"bad"})] for _ in range(10)]
    items.append([frozenset({"good"}), frozenset({"bad"})])
    accuracy = truth_discovery(items)
    assert accuracy["good"] > 0.8 > 0.4 > accuracy["bad"]


@pytest.mark.backends(
    "embedded",
    "oxigraph",
    reason=DOUBLES_ON_VIRTUOSO,
)
def test_evidence_shows_aggregated_confidence_and_status(pg, tmp_path):
    policy = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{POPULATION}> a owl:FunctionalProperty ; pg:resolutionStrategy pg:Majority .
<{GEO_LAT}> a owl:FunctionalProperty ; pg:absoluteTolerance 0.02 .
"""
    ingest_capitals(pg, tmp_path, policy)
    pg.detect_conflicts()
    # Paris's latitude 48.8667 (ru, pt) agrees within 0.02 with en, es, it and fr: six editions
    # (tier 4: 0.70 each) support it, 1 - 0.3^6 capped at 0.99; de's 48.0 stands alone
    lat = {e.document_key.split("//")[1].split(".")[0]: e for e in pg.evidence(PARIS, GEO_LAT)}
    assert lat["ru"].object == lat["pt"].object == '"48.86666666666667"^^<http://www.w3.org/2001/XMLSchema#double>'
    assert lat["ru"].fact_confidence == 0.99
    assert lat["de"].fact_confidence == pytest.approx(0.70)
    assert lat["de"].fact_status is FactStatus.DEPRECATED
    # Amsterdam's population: en and it agree (0.91) and win the majority; the rest lost it
    population = {e.document_key.split("//")[1].split(".")[0]: e for e in pg.evidence(AMSTERDAM, POPULATION)}
    assert population["en"].fact_confidence == pytest.approx(0.91)
    assert population["en"].fact_status is FactStatus.CONTESTED
    assert population["nl"].fact_confidence == pytest.approx(0.70)
    assert population["nl"].fact_status is FactStatus.DEPRECATED
    # a fact no conflict touches, stated by several editions, is confirmed
    country = pg.evidence(AMSTERDAM, "http://dbpedia.org/ontology/country", "http://dbpedia.org/resource/Netherlands")
    assert len({e.document_key for e in country}) >= 2
    assert {e.fact_status for e in country} == {FactStatus.CONFIRMED}


def test_chain_with_provenance_per_step(pg, tmp_path):
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        '{"subject": "http://ex.org/aspirin", "predicate": "http://ex.org/treats", "object": "http://ex.org/migraine",'
        ' "confidence": 0.8, "method": "llm_extraction"}\n',
        encoding="utf-8",
    )
    onto = tmp_path / "classes.ttl"
    onto.write_text(
        "<http://ex.org/migraine> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://ex.org/headache> .\n",
        encoding="utf-8",
    )
    pg.ingest(facts, IngestOptions(url="https://ex.org/trial", title="trial", tier=4))
    pg.ingest(onto, IngestOptions(url="https://ex.org/classes", title="classes", tier=1))
    path = ["http://ex.org/treats", "http://www.w3.org/2000/01/rdf-schema#subClassOf"]
    [weakest] = pg.chain("http://ex.org/aspirin", path)
    assert weakest.object == "http://ex.org/headache"
    assert [s.sources for s in weakest.steps] == [["https://ex.org/trial"], ["https://ex.org/classes"]]
    assert [round(s.confidence, 3) for s in weakest.steps] == [0.66, 0.99]  # 0.5 + 0.2 * 0.8; tier 1, capped
    assert weakest.confidence == pytest.approx(0.66)
    [product] = pg.chain("http://ex.org/aspirin", path, mode=ChainMode.PRODUCT)
    assert product.mode is ChainMode.PRODUCT and weakest.mode is ChainMode.WEAKEST
    assert product.confidence == pytest.approx(0.66 * 0.99)
