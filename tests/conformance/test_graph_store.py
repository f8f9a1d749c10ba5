"""The W3C SPARQL 1.1 Graph Store HTTP Protocol tests (``graph-store-protocol/``), against a
real server at ``/store``.

``manifest-direct.ttl`` and ``manifest-indirect.ttl`` list 13 tests in their ``mf:entries``
(4 + 9); the direct manifest defines a 14th, ``head_non_existing_direct``, that its list leaves
out. All 14 run here. Each runs over a fresh in-memory store served by uvicorn on 127.0.0.1 with
a write token, which the runner sends with PUT, POST and DELETE. The tests after them cover what
the suite does not: provgraph's managed graphs, tokens, and the errors a client sees.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conformance.w3c_protocol import GSP_MANIFESTS, ProtocolTest, read_manifest, run
from helpers import dataset_dump, ingest_aspirin, live_server
from provgraph import ProvGraph
from provgraph.http import ServerSettings
from provgraph.vocab import CATALOG_GRAPH

TOKEN = "w3c-gsp-token"
NS = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/http-rdf-update/manifest#"
#: test IRI -> why provgraph fails it on purpose (run with xfail(strict=True)).
EXPECTED_FAILURES: dict[str, str] = {}

TESTS = [t for manifest in GSP_MANIFESTS for t in read_manifest(manifest)]


def test_the_manifests_list_13_tests_and_define_14():
    assert len(TESTS) == 14
    assert [t.iri for t in TESTS if not t.listed] == [NS + "head_non_existing_direct"]
    assert set(EXPECTED_FAILURES) <= {t.iri for t in TESTS}


@pytest.mark.parametrize(
    "test",
    [
        pytest.param(
            t,
            id=t.iri,
            marks=[pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[t.iri])]
            if t.iri in EXPECTED_FAILURES
            else [],
        )
        for t in TESTS
    ],
)
def test_graph_store(test: ProtocolTest):
    with ProvGraph.memory() as graph, live_server(graph, ServerSettings(token=TOKEN)) as url:
        run(test, url, token=TOKEN)


# ------------------------------------------------------------------ beyond the suite: provgraph's rules

WRITE = {"authorization": f"Bearer {TOKEN}"}
TURTLE = {**WRITE, "content-type": "text/turtle"}


@pytest.fixture
def served() -> Iterator[tuple[str, ProvGraph]]:
    with ProvGraph.memory() as graph:
        ingest_aspirin(graph)
        with live_server(graph, ServerSettings(token=TOKEN)) as url:
            yield url, graph


def test_source_graphs_and_the_catalog_are_read_only_here(served):
    url, graph = served
    source = graph.current_graphs()[0].value
    before = dataset_dump(graph)
    # readable: the source graph holds its facts, the catalog names the source graph
    for name, shows in ((source, "<http://example.org/aspirin>"), (CATALOG_GRAPH.value, f"<{source}>")):
        got = httpx.get(f"{url}/store", params={"graph": name}, headers={"accept": "application/n-triples"})
        assert got.status_code == 200 and got.headers["content-type"] == "application/n-triples"
        assert shows in got.text
        for method in ("PUT", "POST", "DELETE"):
            refused = httpx.request(
                method, f"{url}/store", params={"graph": name}, content=b"<urn:a> <urn:b> <urn:c> .", headers=TURTLE
            )
            assert refused.status_code == 409, (method, refused.text)
            assert "ingest" in refused.text and "POST /sources" in refused.text
    assert dataset_dump(graph) == before


def test_writes_need_the_token(served):
    url, _ = served
    body = b"<urn:a> <urn:b> <urn:c> ."
    anonymous = httpx.put(f"{url}/store/mine", content=body, headers={"content-type": "text/turtle"})
    assert anonymous.status_code == 401 and anonymous.headers["www-authenticate"].startswith("Bearer")
    assert httpx.get(f"{url}/store/mine").status_code == 404
    assert httpx.put(f"{url}/store/mine", content=body, headers=TURTLE).status_code == 201
    assert httpx.get(f"{url}/store/mine").status_code == 200


def test_bad_rdf_is_refused_with_its_position_and_changes_nothing(served):
    url, _ = served
    assert httpx.put(f"{url}/store/mine", content=b"<urn:a> <urn:b> <urn:c> .", headers=TURTLE).status_code == 201
    bad = httpx.put(f"{url}/store/mine", content=b'<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> "open', headers=TURTLE)
    assert bad.status_code == 400
    assert "line 2, column" in bad.text
    kept = httpx.get(f"{url}/store/mine", headers={"accept": "application/n-triples"})
    assert kept.text == "<urn:a> <urn:b> <urn:c> .\n"


def test_media_types_in_and_out(served):
    url, _ = served
    body = b"<urn:a> <urn:b> <urn:c> ."
    unknown = httpx.put(f"{url}/store/mine", content=body, headers={**WRITE, "content-type": "text/html"})
    assert unknown.status_code == 415 and "text/turtle" in unknown.text
    utf16 = httpx.put(
        f"{url}/store/mine", content=body, headers={**WRITE, "content-type": "text/turtle; charset=utf-16"}
    )
    assert utf16.status_code == 415
    assert httpx.put(f"{url}/store/mine", content=body, headers=TURTLE).status_code == 201
    assert httpx.get(f"{url}/store/mine", headers={"accept": "text/html"}).status_code == 406
    as_jsonld = httpx.get(f"{url}/store/mine", headers={"accept": "application/ld+json"})
    assert as_jsonld.headers["content-type"] == "application/ld+json"
    # with provgraph's prefixes as its context, which names none of these IRIs
    assert as_jsonld.json()["@graph"] == [{"@id": "urn:a", "urn:b": [{"@id": "urn:c"}]}]
    assert as_jsonld.json()["@context"]["prov"] == "http://www.w3.org/ns/prov#"
    head = httpx.head(f"{url}/store/mine", headers={"accept": "application/n-triples"})
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(body) + 1


def test_multipart_parts_merge_in_one_transaction(served):
    url, _ = served
    good = ("a.ttl", b"<urn:a> <urn:b> 1 .", "text/turtle")
    bad = ("b.nt", b"<urn:a> <urn:b> .", "application/n-triples")
    refused = httpx.post(f"{url}/store/mine", files={"a": good, "b": bad}, headers=WRITE)
    assert refused.status_code == 400 and "part 2" in refused.text
    assert httpx.get(f"{url}/store/mine").status_code == 404
    by_extension = ("c.nt", b'<urn:a> <urn:b> "2" .', "")
    assert httpx.post(f"{url}/store/mine", files={"a": good, "c": by_extension}, headers=WRITE).status_code == 201
    merged = httpx.get(f"{url}/store/mine", headers={"accept": "application/n-triples"})
    assert sorted(merged.text.splitlines()) == [
        '<urn:a> <urn:b> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .',
        '<urn:a> <urn:b> "2" .',
    ]


def test_the_default_graph_is_the_stores_own(served):
    url, graph = served
    assert httpx.put(f"{url}/store?default", content=b"<urn:a> <urn:b> <urn:c> .", headers=TURTLE).status_code == 204
    mine = httpx.get(f"{url}/store?default", headers={"accept": "application/n-triples"})
    assert mine.text == "<urn:a> <urn:b> <urn:c> .\n"  # the sources stay in their own graphs
    assert httpx.delete(f"{url}/store?default", headers=WRITE).status_code == 204
    assert httpx.get(f"{url}/store?default").content == b""
    assert len(graph.current_graphs()) == 1
