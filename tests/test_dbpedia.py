"""Real data: DBpedia city facts from several Wikipedia editions that disagree."""

from __future__ import annotations

import re

import pytest

from helpers import DBPEDIA, TEST_DATA
from provgraph import GraphSplit, IngestOptions, ProvGraph

DBM = "http://dbpedia.org/metadata/"
AMSTERDAM = "http://dbpedia.org/resource/Amsterdam"
POPULATION = "http://dbpedia.org/ontology/populationTotal"
NL_CITIES = TEST_DATA / "dbpedia-nl-cities"  # 60 of the 542 cities of the full set (see its README)


def articles_in(path) -> set[str]:
    """Distinct Wikipedia articles named by the graphs of an N-Quads file, read independently."""
    pattern = re.compile(r"<(https?://[a-z\-]+\.wikipedia\.org/wiki/[^:>]+):[^:>]+:\d+> \.$")
    found = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = pattern.search(line.strip())
            if match:
                found.add(match.group(1))
    return found


def ingest_cities(pg: ProvGraph, data, metadata, key: str):
    return pg.ingest(
        data,
        IngestOptions(
            id=key, title=key, tier=4, base="http://example.org/ldif/", split=GraphSplit.wikipedia_articles(metadata)
        ),
    )


def test_three_capitals_one_document_per_article_with_edit_metadata(pg):
    report = ingest_cities(pg, DBPEDIA / "3-capitals.nq", DBPEDIA / "3-capitals.metadata.nq", "3-capitals")
    articles = articles_in(DBPEDIA / "3-capitals.nq")
    assert {d.key for d in report.documents} == articles | {"3-capitals"}
    assert report.statements == 99
    en = pg.source("http://en.wikipedia.org/wiki/Amsterdam")
    assert en.title == "Amsterdam (en.wikipedia.org)" and en.url == "http://en.wikipedia.org/wiki/Amsterdam"
    [english] = [e for e in pg.evidence(AMSTERDAM, POPULATION) if e.document_key == en.key]
    assert english.object == '"820654"^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert english.original_graph == "http://en.wikipedia.org/wiki/Amsterdam:populationTotal:1"
    assert english.attributes[DBM + "lastedit"] == [
        '"2013-01-13T14:52:13Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>'
    ]
    assert english.attributes[DBM + "authbot"] == ['"1"^^<http://www.w3.org/2001/XMLSchema#integer>']
    assert english.attributes[DBM + "autheditcnt"] == ['"93387"^^<http://www.w3.org/2001/XMLSchema#integer>']


def test_amsterdam_population_differs_between_sources_in_sparql(pg):
    ingest_cities(pg, DBPEDIA / "3-capitals.nq", DBPEDIA / "3-capitals.metadata.nq", "3-capitals")
    rows = pg.query(f"""SELECT ?population ?source WHERE {{
        ?st rdf:subject <{AMSTERDAM}> ; rdf:predicate <{POPULATION}> ; rdf:object ?population ;
            prov:wasDerivedFrom ?doc .
        ?doc pg:sourceUrl ?source .
    }} ORDER BY ?population ?source""").rows()
    pairs = {(int(r["population"].value), r["source"].value.split("//")[1].split(".")[0]) for r in rows}
    # the values the data's README lists, each with the edition that states it
    assert pairs == {
        (758198, "ca"),
        (820654, "en"),
        (820654, "it"),
        (799406, "nl"),
        (1364422, "pt"),
        (790044, "ru"),
        (57, "es"),
        (762, "es"),
    }


@pytest.mark.slow
def test_sixty_dutch_cities_ingest_with_the_edit_metadata_of_every_value(pg):
    data, metadata = NL_CITIES / "nl-cities.nq", NL_CITIES / "nl-cities.metadata.nq"
    report = ingest_cities(pg, data, metadata, "nl-cities")
    lines = data.read_text(encoding="utf-8").splitlines()
    cities = {line.split(" ", 1)[0] for line in lines if line.endswith(" <type-graph> .")}
    articles = articles_in(data)
    assert {d.key for d in report.documents} == articles | {"nl-cities"}
    assert report.statements == len(lines)
    typed = pg.query("SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?c a <http://dbpedia.org/ontology/PopulatedPlace> }")
    assert int(next(iter(typed))["n"].value) == len(cities) == 60
    with_metadata = pg.query(f"SELECT (COUNT(DISTINCT ?st) AS ?n) WHERE {{ ?st <{DBM}lastedit> ?t }}")
    # every value has its edit metadata; the <type-graph> triples have none
    assert int(next(iter(with_metadata))["n"].value) == len(lines) - len(cities)
    # the same article in the 3-capitals file is a new version of the same document
    again = ingest_cities(pg, DBPEDIA / "3-capitals.nq", DBPEDIA / "3-capitals.metadata.nq", "3-capitals")
    assert any(d.outcome.value == "new_version" for d in again.documents)
