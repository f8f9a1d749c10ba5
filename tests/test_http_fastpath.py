"""Queries by GET on an on-disk store are answered ahead of the router, straight from a query
worker: what a client sees must be what the route answers (the in-memory server, which runs
queries in threads through the route, is the reference)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import EXAMPLES, live_server
from provgraph import IngestOptions, ProvGraph
from provgraph.http import ServerSettings

ASPIRIN = {"title": "Aspirin facts", "url": "https://example.org/aspirin", "tier": 2}
TREATS = "SELECT ?o WHERE { <http://example.org/aspirin> <http://example.org/treats> ?o }"


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The same data served from disk (query workers) and from memory (threads)."""
    with ProvGraph.open(tmp_path / "store") as disk, ProvGraph.memory() as memory:
        for pg in (disk, memory):
            pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(**ASPIRIN))  # type: ignore[arg-type]
        with (
            live_server(disk, ServerSettings(query_workers=1)) as on_disk,
            live_server(memory, ServerSettings(query_workers=0)) as in_memory,
        ):
            yield on_disk, in_memory


def _get(url: str, **params: str | list[str]) -> httpx.Response:
    return httpx.get(f"{url}/sparql", params=params, headers={"accept": "application/sparql-results+json"}, timeout=60)


def test_a_query_by_get_gets_the_rows_the_route_gives(servers):
    on_disk, in_memory = servers
    ours, reference = _get(on_disk, query=TREATS), _get(in_memory, query=TREATS)
    assert ours.status_code == reference.status_code == 200
    assert ours.headers["content-type"] == reference.headers["content-type"]
    assert ours.json() == reference.json()
    assert [b["o"]["value"] for b in ours.json()["results"]["bindings"]] == ["http://example.org/headache"]
    # asked twice (the second time the prepared text comes from the cache): the same rows
    assert _get(on_disk, query=TREATS).json() == ours.json()


def test_relative_iris_resolve_against_the_endpoint_as_the_route_does(servers):
    on_disk, _ = servers
    query = "SELECT (STR(<relative>) AS ?iri) WHERE {}"
    ours = _get(on_disk, query=query)
    # the same query by POST goes through the route
    reference = httpx.post(
        f"{on_disk}/sparql", data={"query": query}, headers={"accept": "application/sparql-results+json"}, timeout=60
    )
    assert ours.json() == reference.json()
    assert ours.json()["results"]["bindings"][0]["iri"]["value"] == f"{on_disk}/relative"


@pytest.mark.parametrize(
    "params",
    [
        {"query": "SELECT * WHERE { ?s ?p }"},  # Oxigraph refuses it: worded against the text
        {"query": "SELECT * WHERE { ?s ?p ?o "},  # the lexer refuses it first
        {"query": ["ASK {}", "ASK {}"]},  # given twice
        {"query": "ASK {}", "view": "nowhere"},
        {"query": "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"},
    ],
    ids=["engine-syntax", "lexer-syntax", "twice", "bad-view", "service"],
)
def test_a_refused_query_by_get_is_worded_as_the_route_words_it(servers, params):
    on_disk, in_memory = servers
    ours, reference = _get(on_disk, **params), _get(in_memory, **params)
    assert ours.status_code == reference.status_code == 400, ours.text
    assert ours.headers["content-type"] == reference.headers["content-type"]
    assert ours.text == reference.text


def test_syntax_errors_found_by_the_engine_name_the_line_as_written(servers):
    on_disk, _ = servers
    refused = _get(on_disk, query="PREFIX ex: <http://example.org/>\n# a comment\nSELECT * WHERE { ?s ex:p }")
    assert refused.status_code == 400
    assert "line 3" in refused.text, refused.text
