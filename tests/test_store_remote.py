"""provgraph over a SPARQL 1.1 server (issue 19, first part): a real ``oxigraph serve`` (the PyPI
``oxigraph`` package) on 127.0.0.1, spoken to only through SPARQL Query, Update and the Graph
Store Protocol. The same steps run on the embedded store and on the server, and a user sees the
same sources, counts, evidence, conflicts and answers."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from helpers import EXAMPLES, SERVER_START, ingest_aspirin, ingest_capitals, run_cli
from provgraph import IngestOptions, ProvGraph, QueryError, StoreError, ValidationFailedError
from provgraph.store.remote import Endpoint

COUNTS = {
    "graphs": "SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    "quads": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    "current view": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "statements": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?st a pg:Statement } }",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """An empty ``oxigraph serve`` on a free loopback port; its ``sparql+http://`` URL."""
    binary = shutil.which("oxigraph")
    assert binary, "the oxigraph command comes with the dev extra (pip install -e '.[dev]')"
    port = _free_port()
    process = subprocess.Popen(
        [binary, "serve", "--location", str(tmp_path / "server"), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + SERVER_START
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/query", params={"query": "ASK {}"}, timeout=5)
            break
        except httpx.TransportError:
            assert process.poll() is None and time.monotonic() < deadline, "oxigraph serve did not start"
            time.sleep(0.2)
    try:
        yield f"sparql+http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=SERVER_START)


def _steps(pg: ProvGraph, tmp_path: Path) -> dict[str, object]:
    """What a user sees after the same ingests, on any store."""
    ingest_aspirin(pg)
    pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Aspirin trial report", tier=3))
    ingest_capitals(pg, tmp_path)
    pg.detect_conflicts()
    seen: dict[str, object] = {name: pg.query(q).rows()[0]["n"].value for name, q in COUNTS.items()}  # type: ignore[union-attr]
    seen["sources"] = sorted((s.title, s.tier, s.status.value) for s in pg.sources())
    seen["stats"] = pg.stats().model_dump()
    seen["evidence"] = sorted(
        (e.title, e.object, e.confidence)
        for e in pg.evidence("http://dbpedia.org/resource/Amsterdam", "http://dbpedia.org/ontology/populationTotal")
    )
    seen["conflicts"] = sorted((c.subject, c.predicates[0], len(c.values)) for c in pg.conflicts())
    seen["answer"] = [c.text for c in pg.ask("What is the population of Amsterdam?").claims]
    seen["export lines"] = len(pg.export(format="nquads").splitlines())  # type: ignore[union-attr]
    return seen


def test_the_same_steps_show_the_same_on_a_sparql_server_as_embedded(server, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with ProvGraph.memory() as embedded:
        expected = _steps(embedded, tmp_path / "a")
    with ProvGraph.open(server) as remote:
        seen = _steps(remote, tmp_path / "b")
    assert seen == expected
    assert seen["conflicts"] and seen["answer"]  # the steps did find something to compare


def test_a_refused_ingest_leaves_the_server_as_it_was(server, tmp_path):
    with ProvGraph.open(server) as pg:
        ingest_aspirin(pg)
        before = pg.query(COUNTS["quads"]).rows()[0]["n"].value  # type: ignore[union-attr]
        with pytest.raises(ValidationFailedError):
            pg.ingest(EXAMPLES / "bad-dose.ttl", IngestOptions(shapes=(EXAMPLES / "drug-shapes.ttl",)))
        assert pg.query(COUNTS["quads"]).rows()[0]["n"].value == before  # type: ignore[union-attr]
        assert len(pg.sources()) == 1


def test_a_syntax_error_on_the_server_names_its_position_in_the_text_as_written(server):
    with ProvGraph.open(server) as pg, pytest.raises(QueryError) as raised:
        pg.backend.query("SELECT ?s\nWHERE { ?s ?p }", prefixes={"ex": "http://example.org/"})
    # the line in the text given, not after the prefixes provgraph declares before it
    assert (raised.value.line, raised.value.column) == (2, 16), raised.value
    assert "expected" in raised.value.reason


def test_an_unreachable_server_or_one_that_is_not_sparql_fails_at_open(tmp_path):
    with pytest.raises(StoreError, match="cannot reach the SPARQL server"):
        ProvGraph.open(f"sparql+http://127.0.0.1:{_free_port()}")

    class NotSparql(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), NotSparql)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(StoreError, match="answered HTTP 404"):
            ProvGraph.open(f"sparql+http://127.0.0.1:{httpd.server_port}")
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_refused_credentials_fail_at_open_without_showing_them(monkeypatch):
    seen: list[str] = []

    class Locked(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(401)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    monkeypatch.setenv("PROVGRAPH_STORE_USER", "analyst")
    monkeypatch.setenv("PROVGRAPH_STORE_PASSWORD", "s3cret-pass")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Locked)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(StoreError, match="refused the credentials") as raised:
            ProvGraph.open(f"sparql+http://127.0.0.1:{httpd.server_port}")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert seen and seen[0].startswith("Basic ")  # sent, from the environment
    assert "s3cret-pass" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sparql+http://127.0.0.1:7878", ("http://127.0.0.1:7878/query", "http://127.0.0.1:7878/update")),
        (
            "sparql+http://db.example:8890?query=/sparql&update=/sparql&store=/sparql-graph-crud",
            ("http://db.example:8890/sparql", "http://db.example:8890/sparql"),
        ),
    ],
)
def test_endpoint_paths_come_from_the_url(url, expected):
    endpoint = Endpoint.parse(url)
    assert (endpoint.query, endpoint.update) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sparql+http://user:pw@db.example:8890", "not in the store URL"),
        ("sparql+http://db.example:8890?dialect=nope", "unknown parameter"),
    ],
)
def test_a_bad_store_url_is_refused(url, message):
    with pytest.raises(StoreError, match=message):
        Endpoint.parse(url)


def test_the_command_line_takes_a_sparql_server_as_its_store(server, tmp_path):
    query = "SELECT ?o WHERE { <http://example.org/aspirin> ?p ?o } ORDER BY ?o"
    shown = []
    for store in (server, str(tmp_path / "embedded")):
        ingested = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--title", "Aspirin facts", "--store", store, "-q")
        assert ingested.returncode == 0, ingested.stderr
        assert "4 statements" in ingested.stdout
        listed = run_cli("sources", "--store", store, "--json")
        assert listed.returncode == 0 and '"title": "Aspirin facts"' in listed.stdout, listed.stderr
        answered = run_cli("query", query, "--store", store, "--format", "csv")
        assert answered.returncode == 0, answered.stderr
        shown.append(answered.stdout)
    assert shown[0] == shown[1] and "http://example.org/headache" in shown[0]
    unreachable = run_cli("sources", "--store", f"sparql+http://127.0.0.1:{_free_port()}")
    assert unreachable.returncode != 0 and "cannot reach the SPARQL server" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr
