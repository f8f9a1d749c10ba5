"""The W3C SPARQL 1.1 Protocol tests (``protocol/manifest.ttl``), against a real server.

Each test runs over a fresh in-memory store, with its ``ut:graphData`` files loaded into the
named graphs the manifest labels, served by uvicorn on 127.0.0.1 with a write token; the runner
sends the token with every request but queries (see :func:`conformance.w3c_protocol.is_write`),
and a 4xx the manifest expects must come from the protocol, never from the token check.
"""

from __future__ import annotations

import httpx
import pytest

from conformance.w3c_protocol import PROTOCOL_MANIFEST, ProtocolTest, read_manifest, run
from helpers import live_server
from provgraph import InputFormat, ProvGraph
from provgraph.http import ServerSettings

TOKEN = "w3c-protocol-token"
#: test IRI -> why provgraph fails it on purpose (run with xfail(strict=True)).
EXPECTED_FAILURES: dict[str, str] = {}

TESTS = read_manifest(PROTOCOL_MANIFEST)


def test_the_manifest_has_34_tests_all_listed():
    assert len(TESTS) == 34
    assert all(t.listed for t in TESTS)
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
def test_protocol(test: ProtocolTest):
    with ProvGraph.memory() as graph:
        for file, name in test.graph_data:
            graph.replace_graph(name, file.read_bytes(), format=InputFormat.NTRIPLES)
        with live_server(graph, ServerSettings(token=TOKEN)) as url:
            run(test, url, token=TOKEN)


# ------------------------------------------------------------------ beyond the suite


def test_other_methods_are_told_what_the_endpoint_allows():
    with ProvGraph.memory() as graph, live_server(graph, ServerSettings(token=TOKEN)) as url:
        for method in ("PUT", "DELETE", "PATCH"):
            refused = httpx.request(method, f"{url}/sparql", params={"query": "ASK {}"})
            assert refused.status_code == 405
            assert refused.headers["allow"] == "GET, POST"
            assert refused.headers["content-type"].startswith("text/plain")


def test_a_body_declared_in_another_charset_is_refused():
    with ProvGraph.memory() as graph, live_server(graph, ServerSettings(token=TOKEN)) as url:
        # UTF-16 without a byte order mark would otherwise be read as UTF-8 with NULs
        body = "ASK {}".encode("utf-16-le")
        refused = httpx.post(
            f"{url}/sparql", content=body, headers={"content-type": "application/sparql-query; charset=UTF-16LE"}
        )
        assert refused.status_code == 415 and "UTF-8" in refused.text
