"""provgraph over a SPARQL 1.1 server: a real ``oxigraph serve`` (the PyPI ``oxigraph`` package)
and a real Virtuoso (Debian's ``virtuoso-opensource``) on 127.0.0.1, spoken to only through SPARQL
Query, Update and the Graph Store Protocol. The same steps run on the embedded store and on each
server, and a user sees the same sources, counts, evidence, conflicts and answers."""

from __future__ import annotations

import contextlib
import http.client
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pyoxigraph
import pytest

from helpers import EXAMPLES, ServeProcess, ingest_aspirin, ingest_capitals, run_cli
from provgraph import (
    ConcurrentWriteError,
    GraphSplit,
    IngestOptions,
    ProvGraph,
    ProvGraphError,
    QueryError,
    StoreError,
    ValidationFailedError,
)
from provgraph.ingest.nanopub import artefact_code, check_nanopublications, normalised
from provgraph.store.remote import Endpoint
from servers import free_port

COUNTS = {
    "graphs": "SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    # the change log is each store's own, as in an export: on a server it also holds the write token
    "quads": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(?g != pgid:changes) }",
    "current view": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "statements": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?st a pg:Statement } }",
}


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


def test_the_same_steps_show_the_same_on_a_sparql_server_as_embedded(sparql_server, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with ProvGraph.memory() as embedded:
        expected = _steps(embedded, tmp_path / "a")
    with ProvGraph.open(sparql_server) as remote:
        seen = _steps(remote, tmp_path / "b")
    assert seen == expected
    assert seen["conflicts"] and seen["answer"]  # the steps did find something to compare


def test_every_quad_or_one_graph_is_read_from_a_server_as_it_comes(sparql_server):
    with ProvGraph.open(sparql_server) as pg:
        ingest_aspirin(pg)
        counted = pg.backend.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")[0].integer("n")
        named = [q for q in pg.backend.quads() if not isinstance(q.graph_name, pyoxigraph.DefaultGraph)]
        assert len(named) == counted > 60
        catalog = pyoxigraph.NamedNode("https://w3id.org/provgraph/id/catalog")
        in_catalog = list(pg.backend.quads(graph=catalog))
        assert in_catalog and {q.graph_name for q in in_catalog} == {catalog}
        assert set(in_catalog) == {q for q in named if q.graph_name == catalog}
        assert list(pg.backend.quads(graph=pyoxigraph.NamedNode("urn:no-such-graph"))) == []


def test_a_refused_ingest_leaves_the_server_as_it_was(sparql_server, tmp_path):
    with ProvGraph.open(sparql_server) as pg:
        ingest_aspirin(pg)
        before = pg.query(COUNTS["quads"]).rows()[0]["n"].value  # type: ignore[union-attr]
        with pytest.raises(ValidationFailedError):
            pg.ingest(EXAMPLES / "bad-dose.ttl", IngestOptions(shapes=(EXAMPLES / "drug-shapes.ttl",)))
        assert pg.query(COUNTS["quads"]).rows()[0]["n"].value == before  # type: ignore[union-attr]
        assert len(pg.sources()) == 1


def test_a_syntax_error_on_the_server_names_its_position_in_the_text_as_written(sparql_server):
    with ProvGraph.open(sparql_server) as pg, pytest.raises(QueryError) as raised:
        pg.backend.query("SELECT ?s\nWHERE { ?s ?p }", prefixes={"ex": "http://example.org/"})
    # the line in the text given, not after the prefixes provgraph declares before it (Virtuoso
    # names no column)
    assert raised.value.line == 2, raised.value
    if "dialect=virtuoso" in sparql_server:
        assert raised.value.column is None and "syntax error" in raised.value.reason
    else:
        assert raised.value.column == 16 and "expected" in raised.value.reason
    # an update with declarations of its own, which the store's check of writers goes after
    with ProvGraph.open(sparql_server) as pg, pytest.raises(QueryError) as raised:
        pg.update("PREFIX t: <urn:test:>\nINSERT DATA { GRAPH t:g {\n t:a t:b } }")
    assert raised.value.line == 3, raised.value


def test_an_unreachable_server_or_one_that_is_not_sparql_fails_at_open(tmp_path):
    with pytest.raises(StoreError, match="cannot reach the SPARQL server"):
        ProvGraph.open(f"sparql+http://127.0.0.1:{free_port()}")

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
        (
            "sparql+https://db.example/rdf?dialect=virtuoso",
            ("https://db.example/rdf/sparql", "https://db.example/rdf/sparql"),
        ),
        (
            "sparql+http://fuseki:3030?dialect=fuseki&query=/kb/query&update=/kb/update",
            ("http://fuseki:3030/kb/query", "http://fuseki:3030/kb/update"),
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
        ("sparql+http://db.example:8890?engine=virtuoso", "unknown parameter"),
        ("sparql+http://db.example:8890?dialect=nope", "unknown dialect 'nope': one of oxigraph, virtuoso"),
    ],
)
def test_a_bad_store_url_is_refused(url, message):
    with pytest.raises(StoreError, match=message):
        Endpoint.parse(url)


def test_the_command_line_takes_a_sparql_server_as_its_store(sparql_server, tmp_path):
    query = "SELECT ?o WHERE { <http://example.org/aspirin> ?p ?o } ORDER BY ?o"
    shown = []
    for store in (sparql_server, str(tmp_path / "embedded")):
        ingested = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--title", "Aspirin facts", "--store", store, "-q")
        assert ingested.returncode == 0, ingested.stderr
        assert "4 statements" in ingested.stdout
        listed = run_cli("sources", "--store", store, "--json")
        assert listed.returncode == 0 and '"title": "Aspirin facts"' in listed.stdout, listed.stderr
        answered = run_cli("query", query, "--store", store, "--format", "csv")
        assert answered.returncode == 0, answered.stderr
        # SPARQL leaves the order of a string and a number to the engine: compare the rows as a set
        shown.append(sorted(answered.stdout.splitlines()))
    assert shown[0] == shown[1] and "http://example.org/headache" in shown[0]
    kept = run_cli("optimize", "--store", sparql_server)
    assert kept.returncode == 0 and kept.stdout.strip() == f"{sparql_server} keeps its own storage: nothing to compact"
    unreachable = run_cli("sources", "--store", f"sparql+http://127.0.0.1:{free_port()}")
    assert unreachable.returncode != 0 and "cannot reach the SPARQL server" in unreachable.stderr
    assert "Traceback" not in unreachable.stderr


def test_a_writer_that_read_the_store_before_another_committed_fails_and_writes_nothing(
    sparql_server, tmp_path, monkeypatch
):
    from provgraph.ingest import pipeline

    first, second = ProvGraph.open(sparql_server), ProvGraph.open(sparql_server)
    ingest_aspirin(first)
    check_plan = pipeline._check_plan
    raced: list[bool] = []

    def another_machine_commits_first(backend, ledger):  # between the loser's reads and its commit
        check_plan(backend, ledger)
        if not raced:
            raced.append(True)
            second.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Aspirin trial report", tier=3))

    monkeypatch.setattr(pipeline, "_check_plan", another_machine_commits_first)
    capitals = tmp_path / "capitals.ttl"
    capitals.write_text("<http://example.org/Paris> <http://example.org/capitalOf> <http://example.org/France> .\n")
    with pytest.raises(ConcurrentWriteError, match="another writer changed the store"):
        first.ingest(capitals, IngestOptions(title="Capitals"))
    titles = sorted(s.title for s in first.sources())
    assert titles == ["Aspirin facts", "Aspirin trial report"]  # the winner's, and nothing of the loser's
    paris = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { <http://example.org/Paris> ?p ?o } }"
    assert first.query(paris).rows()[0]["n"].value == "0"  # type: ignore[union-attr]
    # run again, it reads the new state and commits
    assert first.ingest(capitals, IngestOptions(title="Capitals")).statements == 1
    assert sorted(s.title for s in second.sources()) == ["Aspirin facts", "Aspirin trial report", "Capitals"]
    first.close()
    second.close()


def test_writers_racing_on_a_server_lose_no_commit(sparql_server):
    """Virtuoso serialises updates; oxigraph serve evaluates two at once on snapshots and keeps
    both (4 writers lost 4 of 53 commits so), and there provgraph takes a lock of claims first."""
    from provgraph.store.remote import SparqlBackend

    count = "SELECT ?n WHERE { GRAPH <urn:test:counter> { <urn:test:counter> <urn:test:n> ?n } }"
    increment = (
        "DELETE WHERE { GRAPH <urn:test:counter> { <urn:test:counter> <urn:test:n> ?n } } ;\n"
        "INSERT DATA { GRAPH <urn:test:counter> { <urn:test:counter> <urn:test:n> %d } }"
    )
    committed: list[int] = []
    failures: list[BaseException] = []

    def writer() -> None:
        backend = SparqlBackend.connect(sparql_server)
        try:
            for _ in range(15):
                backend.begin_write()
                rows = backend.select(count)
                seen = rows[0].integer("n") if rows else 0
                try:
                    backend.update(increment % (seen + 1))  # read, then write what was read plus one
                    committed.append(1)
                except ConcurrentWriteError:
                    pass
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    rows = SparqlBackend.connect(sparql_server).select(count)
    assert committed and rows[0].integer("n") == len(committed)  # every commit counted once: none lost


class _Fake(BaseHTTPRequestHandler):
    """A fake SPARQL server's handler: ``_answer`` answers GET and POST alike, logging nothing."""

    def _answer(self) -> None:
        raise NotImplementedError

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _serving(handler: type[_Fake]) -> Iterator[int]:
    """``handler`` served on a free loopback port, for the block: its port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_port
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    ("refused", "message", "dialect"),
    [
        ("/update", "does not take updates at http://127.0.0.1:", ""),
        ("/store", "does not answer the Graph Store Protocol at http://127.0.0.1:", ""),
        # Virtuoso's dialect loads a graph a request there: an empty load is tried at open
        ("/sparql-graph-crud", "does not answer the Graph Store Protocol at http://127.0.0.1:", "?dialect=virtuoso"),
    ],
    ids=["update", "store", "graph store of virtuoso"],
)
def test_a_server_that_answers_queries_but_not_updates_or_the_graph_store_protocol_fails_at_open(
    refused, message, dialect
):
    class QueriesOnly(_Fake):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            if self.path.startswith(refused):
                self.send_response(405)
                self.end_headers()
                return
            query = self.headers.get("Content-Type") == "application/x-www-form-urlencoded"
            body = b'{"head": {}, "boolean": true}' if query else b""
            self._send(200 if body else 204, body)

    with _serving(QueriesOnly) as port:
        with pytest.raises(StoreError, match=message):
            ProvGraph.open(f"sparql+http://127.0.0.1:{port}{dialect}")
        with ProvGraph.open(f"sparql+http://127.0.0.1:{port}{dialect}", read_only=True) as pg:
            assert pg.backend.read_only  # a reader needs neither


def test_a_request_virtuoso_rolled_back_in_a_deadlock_is_sent_again():
    """Virtuoso answers a read that met a deadlock with a cut result (X-SQL-State, and "SR172:
    Transaction deadlocked" in X-SQL-Message): four writers racing met one in a run of five. It
    is sent again; a request that keeps meeting one fails saying so, not as a row limit."""
    from provgraph.store.remote import DEADLOCK_ATTEMPTS, SparqlBackend

    rolled_back = [2]  # answers still to roll back
    asked = "SELECT ?n WHERE { <urn:test:s> <urn:test:n> ?n }"

    class Deadlocking(_Fake):
        def _answer(self) -> None:
            sent = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            query = urllib.parse.parse_qs(sent).get("query", [""])[0]
            row = b'{"n": {"type": "literal", "value": "7"}}'
            deadlocked = "<urn:test:n>" in query and rolled_back[0] > 0
            body = b'{"head": {"vars": ["n"]}, "results": {"bindings": [%s]}}' % (b"" if deadlocked else row)
            if "ASK {" in query:  # the check at open
                body = b'{"head": {}, "boolean": true}'
            if deadlocked:
                rolled_back[0] -= 1
            cut = {"X-SQL-State": "00000", "X-SQL-Message": "SR172: Transaction deadlocked"}
            self._send(200, body, cut if deadlocked else None)

    with _serving(Deadlocking) as port:
        backend = SparqlBackend.connect(f"sparql+http://127.0.0.1:{port}?dialect=virtuoso", read_only=True)
        assert [r.value("n") for r in backend.select(asked)] == ["7"] and rolled_back == [0]
        rolled_back[0] = DEADLOCK_ATTEMPTS
        with pytest.raises(StoreError, match=r"rolled the request back in a deadlock \(SR172"):
            backend.select(asked)
        assert rolled_back == [0]  # sent as many times as it may be


def test_a_write_the_server_reported_failed_after_it_committed_is_not_called_overtaken(virtuoso_server):
    """Virtuoso answered "Transaction deadlocked" to an update that had committed (seen in about
    one of 60 races of four writers on a loaded machine): sent again, the update found its own
    write token gone and was reported overtaken, "nothing was written", with its write in the
    store. Here a proxy passes the update on, lets another writer commit after it, then answers
    with that deadlock: the writer is told its write holds, and a stale writer is still refused."""
    from provgraph.store.remote import SparqlBackend

    virtuoso_server.reset()
    upstream = urllib.parse.urlsplit(virtuoso_server.url.replace("sparql+", ""))
    direct = SparqlBackend.connect(virtuoso_server.url)
    answered_deadlock: list[str] = []

    class DeadlockAfterCommit(_Fake):
        def _answer(self) -> None:
            sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            server = http.client.HTTPConnection(upstream.hostname or "", upstream.port, timeout=60)
            passed = {k: v for k, v in self.headers.items() if k in ("Content-Type", "Accept")}
            server.request(self.command, self.path, body=sent or None, headers=passed)
            answer = server.getresponse()
            body = answer.read()
            if b"<urn:test:a>" in sent and not answered_deadlock:
                answered_deadlock.append(self.path)
                direct.begin_write()  # another writer commits after the update did
                direct.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:b> <urn:test:p> 2 } }")
                deadlock = {"X-SQL-State": "40001", "X-SQL-Message": "SR172: Transaction deadlocked"}
                self._send(200, b"", deadlock)
                return
            self._send(answer.status, body, {"X-Answered": "upstream"})

    with _serving(DeadlockAfterCommit) as port:
        writer = SparqlBackend.connect(virtuoso_server.url.replace(f":{upstream.port}", f":{port}"))
        writer.begin_write()
        writer.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:a> <urn:test:p> 1 } }")  # no error
        assert answered_deadlock
        written = "SELECT ?s WHERE { GRAPH <urn:test:g> { ?s <urn:test:p> ?n } } ORDER BY ?s"
        assert [str(r["s"]) for r in direct.select(written)] == ["<urn:test:a>", "<urn:test:b>"]
        # its next write, on what it read before the other writer's, is refused
        with pytest.raises(ConcurrentWriteError, match="another writer changed the store"):
            writer.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:c> <urn:test:p> 3 } }")
        writer.close()
    direct.close()
    records = "ASK { GRAPH pgid:changes { ?writer pg:madeToken ?token } }"
    assert not SparqlBackend.connect(virtuoso_server.url, read_only=True).ask(records)  # taken back at close


def test_writers_that_both_found_the_store_empty_do_not_both_commit(sparql_server):
    """The first write of a store: a writer that read no write token before another's first
    write committed fails, writing nothing, and writes once it has read again."""
    from provgraph.store.remote import SparqlBackend

    first, second = SparqlBackend.connect(sparql_server), SparqlBackend.connect(sparql_server)
    first.begin_write()
    second.begin_write()
    first.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:a> <urn:test:p> 1 } }")
    with pytest.raises(ConcurrentWriteError, match="another writer changed the store"):
        second.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:b> <urn:test:p> 2 } }")
    written = "SELECT ?s WHERE { GRAPH <urn:test:g> { ?s <urn:test:p> ?n } } ORDER BY ?s"
    assert [str(r["s"]) for r in first.select(written)] == ["<urn:test:a>"]
    second.begin_write()
    second.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:b> <urn:test:p> 2 } }")
    assert [str(r["s"]) for r in first.select(written)] == ["<urn:test:a>", "<urn:test:b>"]


class _KeepAlive(_Fake):
    """A fake SPARQL server over HTTP/1.1 (connections kept between requests) that answers every
    query ``true`` and every update with 204, noting each connection's client port in
    ``connections`` and each request's target in ``targets``."""

    protocol_version = "HTTP/1.1"
    connections: list[int]
    targets: list[str]

    def setup(self) -> None:
        super().setup()
        self.connections.append(self.client_address[1])

    def _answer(self) -> None:
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.targets.append(self.path)
        if self.headers.get("Content-Type") == "application/x-www-form-urlencoded" or not sent:
            self._send(200, b'{"head": {}, "boolean": true}')
        else:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()


def _keep_alive() -> type[_KeepAlive]:
    return type("Server", (_KeepAlive,), {"connections": [], "targets": []})


def test_requests_to_a_server_share_kept_connections():
    """A store on a server does not open a connection a request: 50 queries (and the checks at
    open) go over one, and after closing the store another request opens a new one."""
    from provgraph.store.remote import SparqlBackend

    server = _keep_alive()
    with _serving(server) as port:
        backend = SparqlBackend.connect(f"sparql+http://127.0.0.1:{port}")
        for _ in range(50):
            assert backend.ask("ASK { ?s ?p ?o }")
        assert len(server.targets) == 53 and len(server.connections) == 1
        backend.close()
        assert backend.ask("ASK { }") and len(server.connections) == 2


def test_a_dialect_that_keeps_no_connections_opens_one_a_request():
    """Virtuoso answered asks more slowly over kept connections: its dialect asks the server to
    close each one after answering, as urllib did."""
    from provgraph.store.remote import SparqlBackend

    server = _keep_alive()
    with _serving(server) as port:
        backend = SparqlBackend.connect(f"sparql+http://127.0.0.1:{port}?dialect=virtuoso", read_only=True)
        for _ in range(5):
            assert backend.ask("ASK { ?s ?p ?o }")
        assert len(server.targets) == 6 and len(server.connections) == 6


def test_a_server_that_closes_each_connection_after_answering_is_still_answered():
    """A server that closes a kept connection (its keep-alive timeout, a restart) costs a new one,
    not a failed request: here it closes every connection after one answer, without saying so."""
    from provgraph.store.remote import SparqlBackend

    class Closing(_KeepAlive):
        def _answer(self) -> None:
            super()._answer()
            self.close_connection = True

    server = type("Server", (Closing,), {"connections": [], "targets": []})
    with _serving(server) as port:
        backend = SparqlBackend.connect(f"sparql+http://127.0.0.1:{port}", read_only=True)
        for _ in range(20):
            assert backend.ask("ASK { ?s ?p ?o }")
        assert len(server.targets) == 21 and len(server.connections) == 21  # one a request, none failed


def test_a_server_is_reached_through_the_proxy_of_the_environment(monkeypatch):
    """``http_proxy`` is honoured as urllib honours it: the request names the whole URL to the
    proxy (here a fake one on loopback, for a host no resolver knows); ``no_proxy`` bypasses it."""
    from provgraph.store.remote import SparqlBackend

    proxy = _keep_alive()
    with _serving(proxy) as port:
        for name in ("no_proxy", "NO_PROXY", "HTTP_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{port}")
        backend = SparqlBackend.connect("sparql+http://sparql.invalid:7878", read_only=True)
        assert backend.ask("ASK { }")
        assert proxy.targets == ["http://sparql.invalid:7878/query"] * 2  # the whole URL, to the proxy
        monkeypatch.setenv("no_proxy", "sparql.invalid")
        with pytest.raises(StoreError, match=r"cannot reach the SPARQL server at http://sparql\.invalid:7878/query"):
            SparqlBackend.connect("sparql+http://sparql.invalid:7878", read_only=True)


@pytest.mark.parametrize("sparql_server", ["virtuoso"], indirect=True)
def test_two_serve_instances_over_one_store_each_serve_what_the_other_wrote(sparql_server):
    """provgraph serve holds no state of its own over a server: what one instance writes (a source,
    an answer record) the other serves at once, its derived views caught up from the change log."""
    token = {"Authorization": "Bearer two-instances-token"}
    env = {"PROVGRAPH_TOKEN": "two-instances-token"}
    with ServeProcess(sparql_server, env=env) as first, ServeProcess(sparql_server, env=env) as second:  # type: ignore[arg-type]
        assert first.url != second.url
        with httpx.Client(base_url=first.url) as a, httpx.Client(base_url=second.url) as b:
            upload = [("file", ("aspirin.ttl", (EXAMPLES / "aspirin.ttl").read_bytes()))]
            created = a.post("/sources", data={"id": "aspirin", "title": "Aspirin facts"}, files=upload, headers=token)
            assert created.status_code == 201, created.text
            listed = b.get("/sources", headers=token).json()
            assert [s["title"] for s in listed] == ["Aspirin facts"]
            answer = b.post("/qa", json={"question": "What does aspirin treat?"}, headers=token)
            assert answer.status_code == 200, answer.text
            cited = answer.json()
            assert cited["claims"] and "headache" in answer.text.lower()
            # the answer B recorded, A serves; and a source B takes, A lists
            record = a.get(f"/answers/{cited['id']}", headers=token)
            assert record.status_code == 200 and record.json()["question"] == "What does aspirin treat?"
            trial = [("file", ("facts.jsonl", (EXAMPLES / "facts.jsonl").read_bytes()))]
            assert (
                b.post("/sources", data={"id": "trial", "title": "Trial"}, files=trial, headers=token).status_code
                == 201
            )
            assert sorted(s["title"] for s in a.get("/sources", headers=token).json()) == [
                "Aspirin facts",
                "Trial",
            ]


def test_an_ingest_that_fails_halfway_through_its_request_leaves_nothing_in_view_or_catalog(sparql_server, monkeypatch):
    """Virtuoso keeps what a request's operations did before one fails (Oxigraph keeps nothing):
    here the catalog's commit fails after the quads went in, and a user sees the store as it was."""
    from provgraph.ingest import pipeline

    with ProvGraph.open(sparql_server) as pg:
        ingest_aspirin(pg)
        before = {name: pg.query(q).rows()[0]["n"].value for name, q in COUNTS.items()}  # type: ignore[union-attr]
        # an operation the engine accepts and then fails at run time, in place of the catalog's commit
        monkeypatch.setattr(pipeline.catalog, "commit_update", lambda _entries: "DROP GRAPH <urn:test:not-there>")
        with pytest.raises(ProvGraphError):
            pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Aspirin trial report"))
        monkeypatch.undo()
        after = {name: pg.query(q).rows()[0]["n"].value for name, q in COUNTS.items()}  # type: ignore[union-attr]
        assert after == before
        assert [s.title for s in pg.sources()] == ["Aspirin facts"]
        assert pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Aspirin trial report")).statements


def test_an_update_of_many_triples_in_one_block_is_written_whole(sparql_server):
    """Virtuoso's parser runs out of stack past about 4,990 triples in one block: the backend cuts
    such blocks (with blank nodes too, which it writes there as Skolem IRIs and reads back as blank nodes)."""
    triples = " ".join(
        f"<urn:test:s{i}> <urn:test:p> {i} ; <urn:test:q> _:b{i} . _:b{i} <urn:test:r> {i} ." for i in range(4000)
    )
    with ProvGraph.open(sparql_server) as pg:
        pg.update(f"INSERT DATA {{ GRAPH <urn:test:big> {{ {triples} }} }}")
        counted = pg.query(
            "SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?b) AS ?nodes) WHERE { GRAPH <urn:test:big> "
            "{ ?s <urn:test:q> ?b . ?b <urn:test:r> ?v . ?s <urn:test:p> ?v } }"
        ).rows()[0]
        assert (counted["n"].value, counted["nodes"].value) == ("4000", "4000")  # type: ignore[union-attr]


def test_another_machine_never_sees_a_large_ingest_before_its_commit(sparql_server, tmp_path, monkeypatch):
    """A large ingest loads its graphs ahead of its commit point; on a server the current view
    gets their copies only with the commit (in the chunks that make them current)."""
    from provgraph.ingest import pipeline

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 2)  # the bulk path, on small data
    data = tmp_path / "many.ttl"
    data.write_text("".join(f"<http://example.org/s{i}> <http://example.org/p> {i} .\n" for i in range(20)))
    seen: list[str] = []
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/p> ?o }"
    with ProvGraph.open(sparql_server) as writer, ProvGraph.open(sparql_server, read_only=True) as other:
        commit = pipeline.catalog.commit_staged_update

        def look_then_commit(entries):  # called as the commit point is written
            seen.append(other.query(count).rows()[0]["n"].value)  # type: ignore[union-attr]
            return commit(entries)

        monkeypatch.setattr(pipeline.catalog, "commit_staged_update", look_then_commit)
        assert writer.ingest(data, IngestOptions(id="many", title="Many")).statements == 20
        after = other.query(count).rows()[0]["n"].value  # type: ignore[union-attr]
    assert seen == ["0"]  # the graphs were loaded, not yet in the view
    assert after == "20"


@pytest.mark.parametrize("blank", [True, False], ids=["copied by the engine", "loaded from the spool"])
def test_a_large_revision_copies_and_retires_its_graphs_a_few_per_operation(
    sparql_server, tmp_path, monkeypatch, blank
):
    """Five documents copied into the view after their commit, then five revisions retiring the
    old versions, two graphs a request or operation: the view holds the current versions' triples,
    and a triple the old versions shared with a current one stays. Graphs with blank nodes are
    copied by the engine, the others' copies loaded from the ingest's spool."""
    from provgraph.ingest import pipeline
    from provgraph.store import view

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 0)  # the bulk path, on small data
    monkeypatch.setattr(view, "COPY_GRAPHS", 2)
    ex = "http://example.org/"
    split = GraphSplit(pattern=rf"^(?P<document>{ex}doc/\d+)$")

    def version(n: int) -> Path:
        path = tmp_path / f"v{n}.nq"
        lines = [f'<{ex}s{d}> <{ex}p> "{d}-{n}" <{ex}doc/{d}> .\n' for d in range(5)]
        lines += [f"<{ex}s{d}> <{ex}q> _:n{d} <{ex}doc/{d}> .\n" for d in range(5) if blank]
        path.write_text("".join(lines) + f'<{ex}common> <{ex}p> "kept" <{ex}doc/0> .\n', "utf-8")
        return path

    values = f"SELECT ?o WHERE {{ ?s <{ex}p> ?o }} ORDER BY ?o"
    with ProvGraph.open(sparql_server) as pg:
        pg.ingest(version(1), IngestOptions(id="docs", title="Docs", split=split))
        assert [r["o"].value for r in pg.query(values).rows()] == [*(f"{d}-1" for d in range(5)), "kept"]  # type: ignore[union-attr]
        pg.ingest(version(2), IngestOptions(id="docs", title="Docs", split=split))
        assert [r["o"].value for r in pg.query(values).rows()] == [*(f"{d}-2" for d in range(5)), "kept"]  # type: ignore[union-attr]


def test_a_servers_lexical_index_kept_in_a_directory_is_caught_up_by_the_next_process(sparql_server, tmp_path):
    """With an index directory, a new process catches a SPARQL server's lexical index up with
    what was written since the last one closed (here by a process without one), rather than
    building it whole; a second process using the directory at the same time keeps its own in
    memory. Both answer from the newest sources."""
    from provgraph.answer.index import INDEX_FILE, LexicalIndex

    index_dir = tmp_path / "index"
    with ProvGraph.open(sparql_server, index_directory=index_dir) as pg:
        ingest_aspirin(pg)
        assert pg.ask("What does aspirin treat?").claims
    assert (index_dir / INDEX_FILE).is_file()
    with ProvGraph.open(sparql_server) as elsewhere:
        elsewhere.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Aspirin trial report", tier=3))
    computed: list[bool] = []
    compute = LexicalIndex.compute

    def watched(self, backend, since):
        computed.append(since is None)  # True: every current graph read again
        return compute(self, backend, since)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LexicalIndex, "compute", watched)
        with (
            ProvGraph.open(sparql_server, index_directory=index_dir) as pg,
            ProvGraph.open(sparql_server, index_directory=index_dir) as twin,
        ):
            for graph in (pg, twin):
                answer = graph.ask("What does aspirin reduce?")
                assert "Aspirin trial report" in {r.title for r in answer.references}
    assert computed == [False, True]  # the directory's index caught up; the twin's built whole


def test_an_ask_reads_the_stores_stamp_once_for_all_its_derived_views(sparql_server):
    """A SPARQL server's stamp is never cached (another machine may write at any time): an ask
    reads it once and sees its index, conflict records, relations and policy at that state."""
    from provgraph.store import derived

    with ProvGraph.open(sparql_server) as pg:
        ingest_aspirin(pg)
        pg.ask("What does aspirin treat?")  # the derived views built
        backend = pg.backend
        select = backend.select
        stamps: list[str] = []

        def counted(sparql, **kwargs):  # type: ignore[no-untyped-def]
            if sparql == derived._STAMP:
                stamps.append(sparql)
            return select(sparql, **kwargs)

        backend.select = counted  # type: ignore[method-assign]
        answer = pg.ask("What is aspirin used for?")
    assert answer.claims and len(stamps) == 1


def test_a_large_ingest_sent_in_many_requests_keeps_its_blank_nodes_one_node_each(sparql_server, tmp_path, monkeypatch):
    from provgraph.ingest import pipeline
    from provgraph.store import remote

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 2)  # the bulk path
    monkeypatch.setattr(remote, "POST_BYTES", 500)  # many requests to the Graph Store Protocol
    data = tmp_path / "nodes.ttl"
    data.write_text(
        "".join(
            f"<http://example.org/s{i}> <http://example.org/q> [ <http://example.org/r> {i} ] .\n" for i in range(30)
        )
    )
    joined = (
        "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/q> ?b . ?b <http://example.org/r> ?v "
        'FILTER(STR(?s) = CONCAT("http://example.org/s", STR(?v))) }'
    )
    with ProvGraph.open(sparql_server) as pg:
        assert pg.ingest(data, IngestOptions(id="nodes", title="Nodes")).statements == 60
        assert pg.query(joined).rows()[0]["n"].value == "30"  # type: ignore[union-attr]


@pytest.mark.parametrize("block", [50, None], ids=["block limit", "no block limit"])
def test_an_update_longer_than_the_server_takes_goes_in_several_requests(sparql_server, block):
    """Virtuoso refuses a request of more than 10 MB, oxigraph serve one of more than 128 MiB: a
    longer update goes in several, its data blocks cut into operations, by the engine's limit on a
    block (Virtuoso's) or to fit a request (here with limits small enough to cut a small update)."""
    import dataclasses

    triples = " ".join(f"<urn:test:s{i}> <urn:test:p> {i} ." for i in range(1000))
    with ProvGraph.open(sparql_server) as pg:
        backend = pg.backend
        small = dataclasses.replace(backend.endpoint.dialect, max_update_bytes=5_000, max_block_triples=block)  # type: ignore[attr-defined]
        backend.endpoint = dataclasses.replace(backend.endpoint, dialect=small)  # type: ignore[attr-defined]
        sent: list[int] = []
        request = backend._request  # type: ignore[attr-defined]

        def counted(url, data, **kwargs):  # type: ignore[no-untyped-def]
            if url == backend.endpoint.update and isinstance(data, bytes):  # type: ignore[attr-defined]
                sent.append(len(data))
            return request(url, data, **kwargs)

        backend._request = counted  # type: ignore[attr-defined]
        pg.update(f"PREFIX t: <urn:test:> INSERT DATA {{ GRAPH t:many {{ {triples} }} }} ; DROP SILENT GRAPH t:none")
        count = "SELECT (COUNT(*) AS ?n) (SUM(?o) AS ?sum) WHERE { GRAPH <urn:test:many> { ?s ?p ?o } }"
        row = pg.query(count).rows()[0]
        assert (row["n"].value, row["sum"].value) == ("1000", str(sum(range(1000))))  # type: ignore[union-attr]
    assert len(sent) > 5  # it went in several requests
    assert max(sent) < 5_000 + 2_000  # each about the limit: the text, the prologue and the write check


@pytest.mark.parametrize("sparql_server", ["virtuoso"], indirect=True)
@pytest.mark.parametrize("graph_loads", [False, True], ids=["insert data", "a graph a request"])
def test_a_large_ingest_into_an_engine_without_a_dataset_store_is_cut_to_its_limits(
    sparql_server, graph_loads, tmp_path, monkeypatch
):
    """An engine whose Graph Store Protocol takes no dataset (Virtuoso) is loaded a graph a
    request there, or with INSERT DATA written to its limits (a block of triples per operation,
    requests of a size): every quad arrives, and a blank node stays one node across blocks and
    requests."""
    import dataclasses

    from provgraph.ingest import pipeline
    from provgraph.store import remote

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 2)  # the bulk path
    monkeypatch.setattr(remote, "GRAPH_LOAD_TRIPLES", 30)  # a graph's triples sent in several turns
    ex = "http://example.org/"
    data = tmp_path / "nodes.ttl"
    data.write_text("".join(f"<{ex}s{i}> <{ex}q> [ <{ex}r> {i} ] .\n<{ex}s{i}> <{ex}p> {i} .\n" for i in range(40)))
    joined = (
        "SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/q> ?b . ?b <http://example.org/r> ?v "
        'FILTER(STR(?s) = CONCAT("http://example.org/s", STR(?v))) }'
    )
    with ProvGraph.open(sparql_server) as pg:
        backend = pg.backend
        small = dataclasses.replace(
            backend.endpoint.dialect,  # type: ignore[attr-defined]
            graph_loads=graph_loads,
            max_block_triples=7,
            max_update_bytes=6_000,
            insert_chunk=50,
        )
        backend.endpoint = dataclasses.replace(backend.endpoint, dialect=small)  # type: ignore[attr-defined]
        inserts: list[int] = []
        posts: list[int] = []
        request = backend._request  # type: ignore[attr-defined]

        def counted(url, data, **kwargs):  # type: ignore[no-untyped-def]
            if url == backend.endpoint.update and isinstance(data, bytes):  # type: ignore[attr-defined]
                inserts.append(data.count(b"INSERT DATA"))
            elif url.startswith(backend.endpoint.store + "?graph=") and data:  # type: ignore[attr-defined]
                posts.append(len(data))
            return request(url, data, **kwargs)

        backend._request = counted  # type: ignore[attr-defined]
        assert pg.ingest(data, IngestOptions(id="nodes", title="Nodes")).statements == 120
        assert pg.query(joined).rows()[0]["n"].value == "40"  # type: ignore[union-attr]
        assert pg.query("SELECT (COUNT(*) AS ?n) WHERE { ?s <http://example.org/p> ?o }").rows()[0]["n"].value == "40"  # type: ignore[union-attr]
    if graph_loads:
        assert len(posts) > 10 and max(posts) <= 6_000  # many requests, each within the limit
    else:
        assert not posts
        assert len(inserts) > 10 and max(inserts) > 2  # many requests, several blocks in one


def test_a_dump_read_in_pages_holds_every_quad(sparql_server):
    """Virtuoso cuts a result at 1,048,576 rows without a sign: a dump reads graph by graph, in
    pages (here of 7 rows, then 2): a large graph a predicate at a time, a large predicate in
    parts."""
    import dataclasses
    import urllib.parse

    with ProvGraph.open(sparql_server) as pg:
        ingest_aspirin(pg)
        whole = sorted(pg.export(format="nquads").splitlines())  # type: ignore[union-attr]
        backend = pg.backend
        queries: list[str] = []
        request = backend._request  # type: ignore[attr-defined]

        def read(url: str, data: bytes | None, **kwargs: object) -> object:
            queries.extend(urllib.parse.parse_qs((data or b"").decode()).get("query", []))
            return request(url, data, **kwargs)

        backend._request = read  # type: ignore[attr-defined]
        for rows in (7, 2):  # a predicate in a few parts, and in sixteen
            paged = dataclasses.replace(backend.endpoint.dialect, max_rows=rows)  # type: ignore[attr-defined]
            backend.endpoint = dataclasses.replace(backend.endpoint, dialect=paged)  # type: ignore[attr-defined]
            assert sorted(pg.export(format="nquads").splitlines()) == whole  # type: ignore[union-attr]
        assert len(whole) > 7 * 3
    constructed = [q for q in queries if q.startswith("CONSTRUCT")]
    if not paged.dataset_store:  # Virtuoso: no dataset from its Graph Store, graphs read by CONSTRUCT
        assert any("GROUP BY ?p" in q for q in queries)
        # a predicate in parts: of a few pages, by groups of the hash's first digit; else by it
        assert any("CONSTRUCT { ?s <" in q and "SUBSTR(MD5" in q for q in constructed)
        assert any("CONSTRUCT { ?s <" in q and "STRSTARTS(MD5" in q for q in constructed)


def test_nanopublications_go_out_from_a_server_as_they_came_in(sparql_server):
    suite = Path(__file__).parent / "data" / "nanopub-testsuite" / "valid"
    with ProvGraph.open(sparql_server) as remote, ProvGraph.memory() as embedded:
        # signed (its signature must verify again), and with a literal the store keeps by value
        for name in ("signed/simple1-signed-rsa.1024.trig", "trusty/example3.trig", "signed/validFdo.trig"):
            for pg in (remote, embedded):
                pg.ingest(suite / name, IngestOptions(id=name))
            out = remote.export_nanopubs(name)
            assert out == embedded.export_nanopubs(name)
            quads = list(pyoxigraph.parse(out, format=pyoxigraph.RdfFormat.TRIG))
            assert check_nanopublications(quads, file=name, locate=lambda _: None)
            original = list(pyoxigraph.parse(path=str(suite / name), format=pyoxigraph.RdfFormat.TRIG))
            code = artefact_code(quads[0].subject.value) or "\x00"
            assert normalised(quads, code) == normalised(original, code)


def test_a_load_keeps_every_term_as_written(sparql_server, tmp_path):
    """What a load sends (N-Quads to oxigraph serve, N-Triples a graph a request to Virtuoso)
    reads back term for term: escapes, characters outside the BMP, language tags, datatypes, a
    long literal, and graphs of their own."""
    from provgraph.store.remote import SparqlBackend

    literals = [
        '"quote \\" backslash \\\\ tab \\t newline \\n end"',
        '"Zürich, 東京, 🚀"@de',
        '"x"@en-GB',
        '"12.5"^^<http://www.w3.org/2001/XMLSchema#decimal>',  # canonical: both engines keep numbers by value
        '"2026-11-28"^^<http://www.w3.org/2001/XMLSchema#date>',
        '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>',  # Virtuoso's JSON results say 1
        '"' + "long " * 5000 + '"',
    ]
    lines = [f"<urn:test:s{i}> <urn:test:p> {o} <urn:test:g{i % 2}> .\n" for i, o in enumerate(literals)]
    lines.append("<urn:test:s> <urn:test:q> <urn:test:o\\u00e9> <urn:test:g0> .\n")
    source = tmp_path / "terms.nq"
    source.write_text("".join(lines), encoding="utf-8")
    expected = set(pyoxigraph.parse(path=str(source), format=pyoxigraph.RdfFormat.N_QUADS))
    backend = SparqlBackend.connect(sparql_server)
    backend.load_quads(source, bulk=True)
    read = {q for g in ("urn:test:g0", "urn:test:g1") for q in backend.quads(graph=pyoxigraph.NamedNode(g))}
    assert read == expected


@pytest.mark.parametrize("sparql_server", ["oxigraph"], indirect=True)
def test_a_live_claim_on_the_write_lock_makes_a_writer_give_up_and_a_lapsed_one_does_not(sparql_server, monkeypatch):
    """On oxigraph serve a writer first claims the store's write lock: another writer's live
    claim (one that never goes away here) makes it give up with a clear error, having written
    nothing; a claim older than the lease (a writer that stopped) is ignored and cleared."""
    from provgraph.store import remote

    monkeypatch.setattr(remote, "LOCK_WAIT", 0.5)
    lock = f"<{remote._TOKEN_NS}lock>"  # the lock's graph, as another writer leaves it
    claimed = "<https://w3id.org/provgraph/ns#claimedAt>"
    backend = remote.SparqlBackend.connect(sparql_server)
    raw = backend._request  # a claim written as another writer's, without the lock

    def claim(when: str) -> None:
        other = f"<{remote._LOCK_NS}other>"
        text = f"INSERT {{ GRAPH {lock} {{ {other} {claimed} ?t }} }} WHERE {{ BIND({when} AS ?t) }}"
        raw(backend.endpoint.update, text.encode(), content_type="application/sparql-update")

    written = "ASK { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> 1 } }"
    claim("NOW()")
    with pytest.raises(ConcurrentWriteError, match="write lock"):
        backend.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> 1 } }")
    assert not backend.ask(written)

    cleared = f"DELETE WHERE {{ GRAPH {lock} {{ ?c ?p ?t }} }}"  # the other writer takes its claim back
    raw(backend.endpoint.update, cleared.encode(), content_type="application/sparql-update")
    claim('"2000-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>')
    backend.update("INSERT DATA { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> 1 } }")
    assert backend.ask(written)
    assert not backend.ask(f"ASK {{ GRAPH {lock} {{ ?c ?p ?t }} }}")  # the lapsed claim cleared, this one taken back
