"""The /sparql endpoint beyond the W3C suites: tokens, limits, negotiation, provenance rules,
and the server running as `provgraph serve` in its own process."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pyoxigraph
import pytest

from helpers import EXAMPLES, ROOT, ServeProcess, ingest_aspirin, live_server
from provgraph import DatasetView, IngestOptions, ProvGraph
from provgraph.http import ServerSettings

TOKEN = "s3cret-token"
WRITE = {"authorization": f"Bearer {TOKEN}", "content-type": "application/sparql-update"}


@pytest.fixture
def graph() -> ProvGraph:
    pg = ProvGraph.memory()
    ingest_aspirin(pg)
    return pg


def test_without_a_token_the_server_is_read_only(graph):
    with live_server(graph) as url:
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}).status_code == 200
        refused = httpx.post(
            f"{url}/sparql",
            content="INSERT DATA { <urn:a> <urn:b> <urn:c> }",
            headers={"content-type": "application/sparql-update"},
        )
        assert refused.status_code == 403 and "read-only" in refused.text


def test_writes_need_the_right_token(graph):
    with live_server(graph, ServerSettings(token=TOKEN)) as url:
        update = "INSERT DATA { <urn:a> <urn:b> <urn:c> }"
        missing = httpx.post(f"{url}/sparql", content=update, headers={"content-type": "application/sparql-update"})
        assert missing.status_code == 401 and missing.headers["www-authenticate"].startswith("Bearer")
        wrong = httpx.post(f"{url}/sparql", content=update, headers={**WRITE, "authorization": "Bearer nope"})
        assert wrong.status_code == 403
        assert httpx.post(f"{url}/sparql", content=update, headers=WRITE).status_code == 204
        asked = httpx.get(f"{url}/sparql", params={"query": "ASK { <urn:a> <urn:b> <urn:c> }"})
        assert asked.json()["boolean"] is True


def test_reads_can_need_the_token_too(graph):
    with live_server(graph, ServerSettings(token=TOKEN, read_token=True)) as url:
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}).status_code == 401
        ok = httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, headers={"authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200


def test_updates_cannot_touch_source_graphs(graph):
    source = graph.sources()[0].current_graph
    with live_server(graph, ServerSettings(token=TOKEN)) as url:
        refused = httpx.post(
            f"{url}/sparql", content=f"DELETE WHERE {{ GRAPH <{source}> {{ ?s ?p ?o }} }}", headers=WRITE
        )
        assert refused.status_code == 409 and "only by ingest" in refused.text
        assert httpx.post(f"{url}/sparql", content="DROP ALL", headers=WRITE).status_code == 409
        copy = f"INSERT {{ GRAPH <urn:mine> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{source}> {{ ?s ?p ?o }} }}"
        assert httpx.post(f"{url}/sparql", content=copy, headers=WRITE).status_code == 204
    assert len(graph.evidence("http://example.org/aspirin", "http://example.org/treats")) == 1


def test_negotiation_and_406(graph):
    with live_server(graph) as url:
        q = {"query": "SELECT ?s WHERE { ?s <http://example.org/treats> ?o }"}
        assert httpx.get(f"{url}/sparql", params=q).headers["content-type"] == "application/sparql-results+json"
        for accept, kind in [
            ("text/csv", "text/csv"),
            ("application/sparql-results+xml", "xml"),
            ("text/tab-separated-values;q=0.9, text/csv;q=0.5", "tab-separated"),
        ]:
            assert kind in httpx.get(f"{url}/sparql", params=q, headers={"accept": accept}).headers["content-type"]
        assert httpx.get(f"{url}/sparql", params=q, headers={"accept": "image/png"}).status_code == 406
        construct = {"query": "CONSTRUCT WHERE { ?s <http://example.org/treats> ?o }"}
        assert httpx.get(f"{url}/sparql", params=construct).headers["content-type"].startswith("text/turtle")
        ld = httpx.get(f"{url}/sparql", params=construct, headers={"accept": "application/ld+json"})
        assert ld.headers["content-type"] == "application/ld+json" and "headache" in ld.text


def test_service_description_and_page_redirect(graph):
    with live_server(graph) as url:
        sd = httpx.get(f"{url}/sparql", headers={"accept": "text/turtle"})
        assert sd.status_code == 200 and "sparql-service-description#Service" in sd.text
        assert f"<{url}/sparql>" in sd.text
        xml = httpx.get(f"{url}/sparql", headers={"accept": "application/rdf+xml"})
        assert xml.text.startswith("<?xml")
        browser = httpx.get(f"{url}/sparql", headers={"accept": "text/html,application/xhtml+xml"})
        assert browser.status_code == 303 and browser.headers["location"] == "/"


def test_the_service_description_lists_the_features_the_server_has(graph):
    sd_ns = "http://www.w3.org/ns/sparql-service-description#"

    def features(settings: ServerSettings) -> set[str]:
        with live_server(graph, settings) as url:
            body = httpx.get(f"{url}/sparql", headers={"accept": "application/n-triples"}).content
        return {
            t.object.value.removeprefix(sd_ns)
            for t in pyoxigraph.parse(body, format=pyoxigraph.RdfFormat.N_TRIPLES)
            if t.predicate.value == sd_ns + "feature"
        }

    assert features(ServerSettings()) == set()
    assert features(ServerSettings(federation=True, default_view=DatasetView.ALL)) == {
        "BasicFederatedQuery",
        "UnionDefaultGraph",
    }


def test_federated_queries_are_off(graph):
    with live_server(graph) as url:
        q = {"query": "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }"}
        refused = httpx.get(f"{url}/sparql", params=q)
        assert refused.status_code == 400 and "federated queries are off" in refused.text


def test_the_view_parameter_sets_the_default_graph(graph):
    with live_server(graph) as url:
        q = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

        def count(**extra: str) -> int:
            body = httpx.get(f"{url}/sparql", params={"query": q, **extra}).json()
            return int(body["results"]["bindings"][0]["n"]["value"])

        current, everything, default = count(), count(view="all"), count(view="default")
        assert default == 0 and 0 < current < everything
        assert count(**{"union-default-graph": "true"}) == everything


def _slow_store() -> ProvGraph:
    pg = ProvGraph.memory()
    pg.update("INSERT DATA { " + " ".join(f"<urn:s{i}> <urn:p> {i} ." for i in range(300)) + " }")
    return pg


#: 300^4 rows: hours of work, against deadlines of seconds.
STREAMING = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
SILENT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"  # no row for hours


def test_a_streaming_query_past_the_timeout_is_stopped_at_the_deadline():
    pg = _slow_store()
    with live_server(pg, ServerSettings(query_timeout=2.0, max_result_bytes=10**12)) as url:
        started = time.monotonic()
        stopped = httpx.get(f"{url}/sparql", params={"query": STREAMING}, timeout=120)
        assert stopped.status_code == 503 and "timeout" in stopped.text
        assert 2.0 <= time.monotonic() - started < 60  # at the deadline, not when the query would end
        quick = httpx.get(f"{url}/sparql", params={"query": "ASK { <urn:s1> ?p ?o }"}, timeout=60)
        assert quick.status_code == 200 and quick.json()["boolean"] is True


def test_a_silent_query_past_the_timeout_is_answered_at_the_deadline_and_others_are_served_meanwhile(monkeypatch):
    # In memory a silent query cannot be stopped: its thread computes to the end. The real one
    # would burn a core for hours after the test (the on-disk test below runs it, in a worker
    # process that is killed); here it is one that says nothing until the test lets it go.
    pg = _slow_store()
    evaluating, release = threading.Event(), threading.Event()
    query = pg.query

    def silent_until_released(sparql: str, **kwargs: Any) -> Any:
        if sparql == SILENT:
            evaluating.set()
            release.wait(600)
        return query(sparql, **kwargs)

    monkeypatch.setattr(pg, "query", silent_until_released)
    try:
        with live_server(pg, ServerSettings(query_timeout=2.0)) as url:
            answers: list[httpx.Response] = []
            started = time.monotonic()
            worker = threading.Thread(
                target=lambda: answers.append(httpx.get(f"{url}/sparql", params={"query": SILENT}, timeout=120))
            )
            worker.start()
            assert evaluating.wait(120)
            # served while the silent query is still being evaluated
            quick = httpx.get(f"{url}/sparql", params={"query": "ASK { <urn:s1> ?p ?o }"}, timeout=60)
            assert quick.status_code == 200 and quick.json()["boolean"] is True
            worker.join(120)
            assert answers[0].status_code == 503 and "timeout" in answers[0].text
            assert 2.0 <= time.monotonic() - started < 60  # at the deadline: the evaluation has not ended
            assert not release.is_set()
    finally:
        release.set()


def test_a_result_past_the_size_limit_is_stopped():
    pg = _slow_store()
    with live_server(pg, ServerSettings(max_result_bytes=2000)) as url:
        too_big = httpx.get(f"{url}/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
        assert too_big.status_code == 413 and "LIMIT" in too_big.text
        small = httpx.get(f"{url}/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 2"})
        assert small.status_code == 200


SECRET = "s3cret-token-never-shown"


def test_provgraph_serve_runs_as_its_own_process(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin facts"))
    with ServeProcess(store, "--token", SECRET) as server:
        query = {"query": "SELECT ?t WHERE { ?d dcterms:title ?t }"}
        answer = httpx.get(f"{server.url}/sparql", params=query)
        assert answer.json()["results"]["bindings"][0]["t"]["value"] == "Aspirin facts"
        # the server holds the store: a read still works, a write names the holder
        listed = subprocess.run(
            [sys.executable, "-m", "provgraph", "sources", "--json", "--store", str(store)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert "Aspirin facts" in listed.stdout
        refused = subprocess.run(
            [sys.executable, "-m", "provgraph", "ingest", str(EXAMPLES / "facts.jsonl"), "--store", str(store), "-q"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert refused.returncode == 2 and f"process {server.pid}" in refused.stderr
        # the token given on the command line is in neither the holder file nor the message
        holder = store / "holder.json"
        assert SECRET not in holder.read_text() and "provgraph serve" in holder.read_text()
        assert holder.stat().st_mode & 0o077 == 0
        assert SECRET not in refused.stderr
        assert server.stop() == 0
    assert SECRET not in server.text()
    assert not (store / "holder.json").exists()  # removed on SIGTERM


def test_openapi_docs_are_served_from_the_package(graph):
    with live_server(graph) as url:
        page = httpx.get(f"{url}/docs")
        assert page.status_code == 200
        assert "http://" not in page.text and "https://" not in page.text  # no CDN
        for asset in ("/static/swagger/swagger-ui-bundle.js", "/static/swagger/swagger-ui.css", "/openapi.json"):
            assert asset in page.text or asset == "/openapi.json"
            assert httpx.get(f"{url}{asset}").status_code == 200
        paths = httpx.get(f"{url}/openapi.json").json()["paths"]
        assert "/sparql" in paths


def test_on_disk_a_silent_query_past_the_deadline_is_killed_and_its_slot_freed(tmp_path):
    with ProvGraph.open(tmp_path / "store") as pg:
        pg.update("INSERT DATA { " + " ".join(f"<urn:s{i}> <urn:p> {i} ." for i in range(300)) + " }")
        # The deadline is also what each later query has to be answered in (by a new worker, which
        # opens the checkpoint within it): a tenth of a second idle, ten seconds allowed.
        settings = ServerSettings(query_timeout=10.0, query_workers=1, max_concurrent_queries=1)
        with live_server(pg, settings) as url, httpx.Client(base_url=url, timeout=120) as client:
            assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200  # the worker has started
            started = time.monotonic()
            stopped = client.get("/sparql", params={"query": SILENT})
            assert stopped.status_code == 503 and "timeout" in stopped.text
            assert 10.0 <= time.monotonic() - started < 90  # the deadline, not the query's end (hours)
            # one worker only: had the query gone on, this would wait for it or find the server busy
            after = client.get("/sparql", params={"query": "ASK { <urn:s7> ?p 7 }"})
            assert after.status_code == 200 and after.json()["boolean"] is True, after.text
            # the worker sees writes made after it started
            pg.update("INSERT DATA { <urn:new> <urn:p> 1 }")
            fresh = client.get("/sparql", params={"query": "ASK { <urn:new> ?p ?o }"})
            assert fresh.json()["boolean"] is True
            bad = client.get("/sparql", params={"query": "SELECT ?x WHERE { ?x"})
            assert bad.status_code == 400 and "line 1" in bad.text
