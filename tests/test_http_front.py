"""`provgraph serve` with reader processes in front (``--readers``): a client sees the same
answers as from the app alone (``--readers 0``), a write is seen by the next query, every other
request reaches the app as it was sent, and a query past its deadline is stopped without leaving
other clients unanswered.

The slow query here runs for hours against a deadline of seconds: nothing depends on the
machine's speed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import threading
import typing
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import EXAMPLES, ServeProcess
from provgraph import IngestOptions, ProvGraph
from provgraph.store.snapshots import SNAPSHOT_DIR

TOKEN = "front-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = "application/sparql-results+json"
TREATS = "SELECT ?o WHERE { <http://example.org/aspirin> <http://example.org/treats> ?o }"
SLOW = (
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . "
    "FILTER EXISTS { ?g ?h ?i . FILTER(?i = ?c && ?g != ?d && ?h != ?b) } }"
)


def _store(path: Path, *, slow: bool = False) -> Path:
    with ProvGraph.open(path) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin facts", url="https://example.org/aspirin"))
        if slow:
            pg.update("INSERT DATA { " + " ".join(f"<urn:s{i}> <urn:p{i % 7}> {i} ." for i in range(2000)) + " }")
    return path


def _readers(pid: int) -> list[int]:
    """The reader processes among ``pid``'s children."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"provgraph.http.front" in cmdline:
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServeProcess, ServeProcess]]:
    """The same store (a copy: one server holds a store) served with two readers in front, and by
    the app alone."""
    root = tmp_path_factory.mktemp("front")
    env = {"PROVGRAPH_TOKEN": TOKEN}
    copy = shutil.copytree(_store(root / "a"), root / "b")
    with (
        ServeProcess(root / "a", "--readers", "2", env=env) as front,
        ServeProcess(copy, "--readers", "0", env=env) as alone,
    ):
        yield front, alone


def test_the_readers_answer_queries_themselves(pair):
    front, alone = pair
    assert len(_readers(front.pid)) == 2
    assert _readers(alone.pid) == []
    ours = httpx.get(f"{front.url}/sparql", params={"query": TREATS}, headers={"accept": JSON}, timeout=60)
    assert ours.status_code == 200
    assert [b["o"]["value"] for b in ours.json()["results"]["bindings"]] == ["http://example.org/headache"]
    assert "server" not in ours.headers  # not the app's uvicorn: a reader wrote it
    assert "date" in ours.headers
    for body in (
        {"data": {"query": TREATS}},
        {"content": TREATS, "headers": {"content-type": "application/sparql-query"}},
    ):
        posted = httpx.post(f"{front.url}/sparql", timeout=60, **body)  # type: ignore[arg-type]
        assert posted.status_code == 200 and "server" not in posted.headers
        assert posted.json() == ours.json()


REQUESTS: list[tuple[str, str, dict[str, object]]] = [
    ("GET", "/sparql", {"params": {"query": TREATS}}),
    ("GET", "/sparql", {"params": {"query": TREATS}, "headers": {"accept": "text/csv"}}),
    (
        "GET",
        "/sparql",
        {"params": {"query": "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 3"}, "headers": {"accept": "text/turtle"}},
    ),
    ("GET", "/sparql", {"params": {"query": TREATS}, "headers": {"accept": "image/png"}}),
    ("GET", "/sparql", {"params": {"query": "SELECT * WHERE { ?s ?p }"}}),
    ("GET", "/sparql", {"params": {"query": "SELECT * WHERE { ?s ?p ?o "}}),
    ("GET", "/sparql", {"params": {"query": ["ASK {}", "ASK {}"]}}),
    ("GET", "/sparql", {"params": {"query": "ASK {}", "view": "nowhere"}}),
    ("GET", "/sparql", {"params": {"query": "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1", "view": "all"}}),
    ("GET", "/sparql", {"params": {"query": "SELECT * WHERE { SERVICE <http://example.org/s> { ?s ?p ?o } }"}}),
    ("GET", "/sparql", {"params": {"update": "CLEAR ALL"}}),
    ("GET", "/sparql", {"headers": {"accept": "text/turtle"}}),
    ("POST", "/sparql", {"data": {"query": TREATS}}),
    ("POST", "/sparql", {"data": {"query": "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 1", "view": "all"}}),
    ("POST", "/sparql", {"data": {"query": TREATS, "update": "CLEAR ALL"}}),
    ("POST", "/sparql", {"data": {"query": "SELECT * WHERE { ?s ?p }"}}),
    ("POST", "/sparql", {"params": {"query": TREATS}, "data": {"query": TREATS}}),
    ("POST", "/sparql", {"data": {"query": TREATS}, "headers": {"accept": "text/tab-separated-values"}}),
    (
        "POST",
        "/sparql",
        {"params": {"view": "all"}, "content": "ASK {}", "headers": {"content-type": "application/sparql-query"}},
    ),
    (
        "POST",
        "/sparql",
        {"content": "ASK {}".encode("utf-16"), "headers": {"content-type": "application/sparql-query; charset=utf-16"}},
    ),
    ("POST", "/sparql", {"content": b"ASK {\xff}", "headers": {"content-type": "application/sparql-query"}}),
    ("POST", "/sparql", {"content": TREATS, "headers": {"content-type": "application/sparql-query"}}),
    ("POST", "/sparql", {"content": "CLEAR ALL", "headers": {"content-type": "application/sparql-update"}}),
    ("HEAD", "/sources", {}),
    ("GET", "/sources", {}),
    ("GET", "/export", {"params": {"format": "nquads"}}),
    ("GET", "/nowhere", {}),
    ("DELETE", "/sparql", {}),
]


@pytest.mark.parametrize(
    ("method", "path", "extra"), REQUESTS, ids=[f"{m} {p} {i}" for i, (m, p, _) in enumerate(REQUESTS)]
)
def test_every_request_is_answered_as_the_app_alone_answers_it(pair, method, path, extra):
    front, alone = pair
    ours = httpx.request(method, f"{front.url}{path}", timeout=60, **extra)  # type: ignore[arg-type]
    reference = httpx.request(method, f"{alone.url}{path}", timeout=60, **extra)  # type: ignore[arg-type]
    assert ours.status_code == reference.status_code, ours.text
    assert ours.headers.get("content-type") == reference.headers.get("content-type")
    for name in ("allow", "location", "retry-after"):
        assert ours.headers.get(name) == reference.headers.get(name), name
    # the stores hold the same data under different names: compare what does not name them
    assert _comparable(ours.text) == _comparable(reference.text)


def _comparable(text: str) -> str:
    """``text`` without what differs between two servers of the same data: their URLs, and the
    blank node labels of a service description."""
    return re.sub(r"_:[0-9a-f]+", "_:b", re.sub(r"http://127\.0\.0\.1:\d+", "URL", text))


def test_a_write_through_the_front_is_seen_by_the_next_query_and_checkpoints_do_not_pile_up(tmp_path):
    store = _store(tmp_path / "store")
    with ServeProcess(store, "--readers", "2", env={"PROVGRAPH_TOKEN": TOKEN}) as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for i in range(6):
                graph = f"urn:front:{i}"
                put = client.put(
                    "/store",
                    params={"graph": graph},
                    content=f"<urn:s> <urn:p> {i} .".encode(),
                    headers={**AUTH, "content-type": "text/turtle"},
                )
                assert put.status_code in (201, 204), put.text
                # a new connection each time: whichever reader takes it sees the write
                asked = httpx.get(
                    f"{server.url}/sparql",
                    params={"query": f"ASK {{ GRAPH <{graph}> {{ <urn:s> <urn:p> {i} }} }}", "view": "all"},
                    timeout=60,
                )
                assert asked.status_code == 200 and asked.json()["boolean"] is True, asked.text
        # each reader holds at most one checkpoint, the writer the newest: the others are deleted
        # as the readers move off them (the writer looks a few times a second)
        pause = threading.Event()
        for _ in range(600):
            found = [p for p in (store / SNAPSHOT_DIR).iterdir() if p.is_dir()]
            if len(found) <= 3:
                break
            pause.wait(0.1)
        assert len(found) <= 3, found


def test_uploads_chunked_bodies_and_limits_pass_through_the_front(tmp_path):
    store = _store(tmp_path / "store")
    limit = ("--max-upload-bytes", "4000")
    env = {"PROVGRAPH_TOKEN": TOKEN}
    with (
        ServeProcess(store, "--readers", "1", *limit, env=env) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        # a multipart upload (a client may ask 100-continue first: curl does for bodies over 1 KB)
        body = (EXAMPLES / "aspirin.ttl").read_bytes().replace(b"aspirin", b"ibuprofen")
        uploaded = client.post(
            "/sources",
            files={"file": ("ibuprofen.ttl", body, "text/turtle")},
            data={"title": "Ibuprofen", "url": "https://example.org/ibuprofen"},
            headers={**AUTH, "expect": "100-continue"},
        )
        assert uploaded.status_code == 201, uploaded.text
        assert client.get("/sources").json()[-1]["title"] in ("Ibuprofen", "Aspirin facts")
        titles = {s["title"] for s in client.get("/sources").json()}
        assert titles == {"Ibuprofen", "Aspirin facts"}
        # a body in chunks, of unknown length
        chunks = iter([b"<urn:x> <urn:y> ", b"1 ."])
        put = client.put(
            "/store",
            params={"graph": "urn:chunked"},
            content=chunks,
            headers={**AUTH, "content-type": "text/turtle"},
        )
        assert put.status_code in (201, 204), put.text
        got = client.get("/store", params={"graph": "urn:chunked"}, headers={"accept": "application/n-triples"})
        assert got.text.strip() == '<urn:x> <urn:y> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .'
        # over --max-upload-bytes: the app's 413, and the connection is not left half read
        big = client.put(
            "/store",
            params={"graph": "urn:big"},
            content=b"<urn:x> <urn:y> 1 .\n" * 1000,
            headers={**AUTH, "content-type": "application/n-triples"},
        )
        assert big.status_code == 413, big.text
        assert client.get("/sparql", params={"query": "ASK {}"}).json()["boolean"] is True


def _raw(port: int, path: str) -> tuple[socket.socket, typing.BinaryIO]:
    """A connection that has sent a GET of ``path``, and the file its answers are read from."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=120)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: {JSON}\r\n\r\n".encode())
    return sock, sock.makefile("rb")


def _response(stream: typing.BinaryIO) -> tuple[int, dict[str, str], bytes]:
    """One response read from ``stream`` (a socket's file: Content-Length framed, as the server
    sends; what follows it stays for the next call)."""
    status_line = stream.readline()
    if not status_line:
        raise ConnectionError("closed before a response")
    headers = {}
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = stream.read(int(headers["content-length"]))
    return int(status_line.split()[1]), headers, body


def test_a_query_past_the_deadline_gets_503_and_no_other_client_is_left_unanswered(tmp_path):
    from urllib.parse import quote

    store = _store(tmp_path / "store", slow=True)
    quick = "/sparql?query=" + quote("ASK { ?s ?p ?o }")
    with ServeProcess(store, "--readers", "1", "--timeout", "2") as server:
        port = int(server.url.rsplit(":", 1)[1])
        before = _readers(server.pid)
        # a connection the only reader holds: answered once
        held, held_answers = _raw(port, quick)
        assert _response(held_answers)[0] == 200
        late, late_answers = _raw(port, "/sparql?query=" + quote(SLOW))
        # its next request, and a new connection, sent while the reader may be stuck
        held.sendall(f"GET {quick} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        fresh, fresh_answers = _raw(port, quick)
        status, _, body = _response(late_answers)
        assert status == 503 and b"timeout" in body, body
        # the others: answered (before the slow query, or by the next reader), or 503 "try again"
        # if the stuck reader had taken them; never a connection dropped with no answer
        for answers in (held_answers, fresh_answers):
            status, headers, body = _response(answers)
            assert status == 200 or (status == 503 and headers.get("retry-after") == "1"), (status, body)
        for sock in (held, late, fresh):
            sock.close()
        # answered by the reader started in place of the stuck one
        assert httpx.get(f"{server.url}{quick}", timeout=60).json()["boolean"] is True
        after = _readers(server.pid)
        assert len(after) == 1 and after != before
        assert server.stop() == 0
        assert "ran past the deadline" in server.text()


def test_a_reader_that_dies_is_replaced(tmp_path):
    store = _store(tmp_path / "store")
    with ServeProcess(store, "--readers", "1") as server:
        (first,) = _readers(server.pid)
        os.kill(first, signal.SIGKILL)  # out of memory, say
        # the connection waits in the listening socket's queue until the next reader takes it
        asked = httpx.get(f"{server.url}/sparql", params={"query": "ASK { ?s ?p ?o }"}, timeout=60)
        assert asked.status_code == 200 and asked.json()["boolean"] is True
        (second,) = _readers(server.pid)
        assert second != first
        assert server.stop() == 0
        assert "a reader process ended (status -9)" in server.text()


def test_pipelined_requests_are_answered_in_order_and_http_1_0_is_closed_after_its_answer(pair):
    from urllib.parse import quote

    front, _ = pair
    port = int(front.url.rsplit(":", 1)[1])
    ask = "/sparql?query=" + quote("ASK { ?s ?p ?o }")
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        # a query, a relayed request, a query again, in one write: three answers in that order
        sock.sendall(
            f"GET {ask} HTTP/1.1\r\nHost: x\r\nAccept: {JSON}\r\n\r\n"
            "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
            f"GET {ask} HTTP/1.1\r\nHost: x\r\nAccept: {JSON}\r\n\r\n".encode()
        )
        stream = sock.makefile("rb")
        answers = [_response(stream) for _ in range(3)]
    assert [status for status, _, _ in answers] == [200, 404, 200]
    assert b'"boolean":true' in answers[0][2] and b'"boolean":true' in answers[2][2]
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"GET {ask} HTTP/1.0\r\nAccept: {JSON}\r\n\r\n".encode())
        stream = sock.makefile("rb")
        status, headers, _ = _response(stream)
        assert status == 200 and headers.get("connection") == "close"
        assert stream.read(1) == b""  # closed by the server
