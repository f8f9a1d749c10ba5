"""Limits wherever a body or a result is built (uploads, Graph Store writes, exports, graphs), bad
parameters as 400s, and internal errors as problem bodies, on a real server on 127.0.0.1."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest

from helpers import ingest_aspirin, live_server
from provgraph import DatasetView, IngestOptions, ProvGraph
from provgraph.http import ServerSettings

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
LIMIT = 4096
RESULT_LIMIT = 10_000  # one source graph in Turtle fits; the dataset does not


@pytest.fixture
def small(pg: ProvGraph) -> Iterator[httpx.Client]:
    """A server taking bodies up to LIMIT bytes and answering up to RESULT_LIMIT bytes."""
    ingest_aspirin(pg)
    settings = ServerSettings(token=TOKEN, max_upload_bytes=LIMIT, max_result_bytes=RESULT_LIMIT)
    with live_server(pg, settings) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


def _turtle(triples: int) -> bytes:
    return "".join(f"<urn:s{i}> <urn:p> <urn:o{i}> .\n" for i in range(triples)).encode()


def _chunks(body: bytes) -> Iterator[bytes]:
    """A body sent in chunks, without Content-Length: the server must count it."""
    for start in range(0, len(body), 1000):
        yield body[start : start + 1000]


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
def test_an_upload_past_the_limit_is_413_and_nothing_is_written(small, pg, streamed):
    body = b'{"subject": "urn:x", "predicate": "urn:p", "object": "urn:y"}\n' * 200
    assert len(body) > LIMIT
    boundary = "provgraph-test-boundary"
    form = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="id"\r\n\r\nbig\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\n\r\n'
        ).encode()
        + body
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {**AUTH, "content-type": f"multipart/form-data; boundary={boundary}"}
    refused = small.post("/sources", content=_chunks(form) if streamed else form, headers=headers)
    assert refused.status_code == 413
    assert f"larger than {LIMIT} bytes" in refused.json()["error"]
    assert [s.key for s in pg.sources()] == ["https://example.org/aspirin"]


def test_an_upload_within_the_limit_is_taken(small, pg):
    small_file = b'{"subject": "urn:x", "predicate": "urn:p", "object": "urn:y"}\n'
    files = [("file", ("small.jsonl", small_file))]
    assert small.post("/sources", data={"id": "small"}, files=files, headers=AUTH).status_code == 201
    assert "small" in [s.key for s in pg.sources()]


@pytest.mark.parametrize("streamed", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_a_graph_store_write_past_the_limit_is_413_and_nothing_is_written(small, pg, method, streamed):
    body = _turtle(200)
    assert len(body) > LIMIT
    headers = {**AUTH, "content-type": "text/turtle"}
    refused = small.request(
        method, "/store", params={"graph": "urn:mine"}, content=_chunks(body) if streamed else body, headers=headers
    )
    assert refused.status_code == 413 and "--max-upload-bytes" in refused.text
    assert not pg.graph_exists("urn:mine")


def test_a_multipart_graph_store_post_past_the_limit_is_413(small, pg):
    files = [("part", ("data.ttl", _turtle(200), "text/turtle"))]
    refused = small.post("/store", params={"graph": "urn:mine"}, files=files, headers=AUTH)
    assert refused.status_code == 413
    assert not pg.graph_exists("urn:mine")


def test_a_sparql_update_past_the_limit_is_413(small, pg):
    update = b"INSERT DATA { " + _turtle(200) + b" }"
    refused = small.post("/sparql", content=update, headers={**AUTH, "content-type": "application/sparql-update"})
    assert refused.status_code == 413
    assert not pg.query("ASK { <urn:s1> ?p ?o }", view=DatasetView.DEFAULT)


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/export", {"format": "nquads"}),
        ("/export", {"format": "turtle", "graph": "https://example.org/big"}),
        ("/store", {"graph": "urn:big"}),
        ("/store/big", {}),
    ],
    ids=["export-dataset", "export-graph", "graph-store-indirect", "graph-store-direct"],
)
def test_a_response_past_the_result_limit_is_413(small, pg, tmp_path, path, params):
    pg.add_to_graph("urn:big", _turtle(1000), format="turtle")
    pg.add_to_graph(str(small.base_url.join("/store/big")), _turtle(1000), format="turtle")
    big = tmp_path / "big.jsonl"
    big.write_text("".join(f'{{"subject": "urn:s{i}", "predicate": "urn:p", "literal": "{i}"}}\n' for i in range(100)))
    pg.ingest(big, IngestOptions(id="https://example.org/big", title="Big"))
    too_big = small.get(path, params=params)
    assert too_big.status_code == 413, too_big.text
    assert f"larger than {RESULT_LIMIT} bytes" in too_big.text


def test_a_response_within_the_result_limit_is_sent(small):
    graph = small.get("/export", params={"format": "turtle", "graph": "https://example.org/aspirin"})
    assert graph.status_code == 200 and "headache" in graph.text


@pytest.mark.parametrize(
    ("params", "named"),
    [({"subject": "abc"}, "subject"), ({"predicate": "not an iri"}, "predicate")],
)
def test_conflicts_with_a_parameter_that_is_not_an_iri_is_400_naming_it(small, params, named):
    refused = small.get("/conflicts", params=params)
    assert refused.status_code == 400
    assert refused.json()["error"].startswith(f"the {named} must be an absolute IRI")


def test_an_internal_error_is_a_problem_body_whose_request_id_is_in_the_log(small, monkeypatch, caplog):
    def broken(_self: ProvGraph) -> list[object]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ProvGraph, "sources", broken)
    with caplog.at_level(logging.ERROR, logger="provgraph.http"):
        failed = small.get("/sources")
    assert failed.status_code == 500
    assert failed.headers["content-type"] == "application/problem+json"
    body = failed.json()
    assert body["status"] == 500 and body["title"] == "Internal Server Error"
    assert "a bug" not in failed.text  # the cause goes to the log, not to the client
    logged = [r for r in caplog.records if body["request_id"] in r.getMessage()]
    assert logged and "a bug" in str(logged[0].exc_info[1])
