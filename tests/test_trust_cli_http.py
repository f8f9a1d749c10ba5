"""The trust commands and ``GET /conflicts``, as a user calls them."""

from __future__ import annotations

import json

import httpx

from helpers import (
    AMSTERDAM,
    POPULATION,
    POPULATION_POLICY,
    ingest_capitals,
    ingest_capitals_cli,
    live_server,
    run_cli,
    write_policy,
)
from provgraph import Conflict, ProvGraph

POLICY = POPULATION_POLICY + (
    "<http://www.w3.org/2003/01/geo/wgs84_pos#lat> a owl:FunctionalProperty ; pg:absoluteTolerance 0.02 .\n"
)


def test_cli_ontology_add_and_conflicts(tmp_path):
    store = str(tmp_path / "store")
    ingest = ingest_capitals_cli(store)
    assert ingest.returncode == 0, ingest.stderr
    policy = write_policy(tmp_path, POLICY)
    added = run_cli("ontology", "add", str(policy), "--store", store)
    assert added.returncode == 0, added.stderr
    assert "4 triples added to the ontology graph" in added.stdout
    table = run_cli("conflicts", "--subject", AMSTERDAM, "--predicate", POPULATION, "--store", store)
    assert table.returncode == 0, table.stderr
    assert "1 conflict across current sources" in table.stdout
    assert "820654" in table.stdout and "en.wikipedia.org, it.wikipedia.org" in table.stdout
    assert "preferred" in table.stdout and "source trust: 820654" in table.stdout
    as_json = run_cli("conflicts", "--json", "--strategy", "majority", "--store", store)
    assert as_json.returncode == 0, as_json.stderr
    found = [Conflict.model_validate(c) for c in json.loads(as_json.stdout)]
    assert {c.resolution.strategy.value for c in found} == {"majority"}
    assert any(c.subject == AMSTERDAM and c.resolution.preferred for c in found)
    bad = run_cli("conflicts", "--strategy", "vote", "--store", store)
    assert bad.returncode == 2 and "recency" in bad.stderr
    # the ontology graph is exported with the rest
    export = run_cli("export", "--format", "nquads", "--store", store)
    assert "<https://w3id.org/provgraph/id/ontology> .\n" in export.stdout


def test_http_conflicts(tmp_path):
    pg = ingest_capitals(ProvGraph.memory(), tmp_path, POLICY, graph_metadata=False)
    with live_server(pg) as base:
        answer = httpx.get(f"{base}/conflicts", params={"subject": AMSTERDAM, "predicate": POPULATION})
        assert answer.status_code == 200
        [conflict] = [Conflict.model_validate(c) for c in answer.json()]
        assert conflict.resolution.preferred == '"820654"^^<http://www.w3.org/2001/XMLSchema#integer>'
        assert len(conflict.values) == 7
        ranked = httpx.get(f"{base}/conflicts", params={"strategy": "authority"})
        assert ranked.status_code == 200 and {c["resolution"]["strategy"] for c in ranked.json()} == {"authority"}
        bad = httpx.get(f"{base}/conflicts", params={"strategy": "vote"})
        assert bad.status_code == 400 and "source_trust" in bad.text, bad.text
    pg.close()
