"""Every read under the deadline, whatever route starts it; a stuck read never holds up shutdown;
readers of an on-disk store see each write through a checkpoint, and checkpoints do not pile up.

The slow computations here are far slower than any deadline (minutes against a second), and
stuck ones wait on an event that is never set: nothing depends on the machine's speed."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from helpers import AMSTERDAM, EXAMPLES, POPULATION, SERVER_START, ServeProcess, ingest_capitals, live_server
from provgraph import DatasetView, IngestOptions, ProvGraph
from provgraph.http import ServerSettings
from provgraph.store.snapshots import SNAPSHOT_DIR

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
#: 2,000 triples: a cartesian product of two patterns with an EXISTS over a third runs for hours.
SLOW = (
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . "
    "FILTER EXISTS { ?g ?h ?i . FILTER(?i = ?c && ?g != ?d && ?h != ?b) } }"
)


def _fill(pg: ProvGraph, n: int = 2000) -> None:
    pg.update("INSERT DATA { " + " ".join(f"<urn:s{i}> <urn:p{i % 7}> {i} ." for i in range(n)) + " }")


# ------------------------------------------------------------------ every read route, in memory

STUCK = threading.Event()  # never set while a test waits on it


def _stuck(*_args: object, **_kwargs: object) -> object:
    STUCK.wait(600)
    raise AssertionError("released")


ROUTES: list[tuple[str, str, str, dict[str, object]]] = [
    ("sources", "GET", "/sources", {}),
    ("source", "GET", "/sources/aspirin", {}),
    ("evidence", "GET", "/evidence", {"params": {"subject": "urn:a", "predicate": "urn:b"}}),
    ("export", "GET", "/export", {"params": {"format": "nquads"}}),
    ("export_prov", "GET", "/export", {"params": {"format": "provjson", "graph": "aspirin"}}),
    ("conflicts", "GET", "/conflicts", {}),
    ("related_documents", "GET", "/doc-relationships", {}),
    ("graph_exists", "GET", "/store", {"params": {"default": ""}}),
    ("compose", "POST", "/qa", {"json": {"question": "What does aspirin treat?"}}),
    ("answers", "GET", "/answers", {}),
    ("answer", "GET", f"/answers/{'a' * 64}", {}),
    ("replay", "GET", f"/answers/{'a' * 64}/context", {}),
]


@pytest.mark.parametrize(("method_name", "verb", "path", "extra"), ROUTES, ids=[r[0] for r in ROUTES])
def test_a_stuck_read_is_answered_503_at_the_deadline_on_every_route(pg, monkeypatch, method_name, verb, path, extra):
    monkeypatch.setattr(ProvGraph, method_name, _stuck)
    settings = ServerSettings(query_timeout=1.0, max_concurrent_queries=4)
    with live_server(pg, settings) as url:
        started = time.monotonic()
        stuck = httpx.request(verb, url + path, timeout=60, **extra)  # type: ignore[arg-type]
        assert stuck.status_code == 503, stuck.text
        # the JSON API answers JSON; the Graph Store Protocol, plain text
        assert "timeout" in (stuck.text if path == "/store" else stuck.json()["error"])
        assert time.monotonic() - started < 90  # at the deadline, not when the read would end (never)
        # the server goes on answering meanwhile
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, timeout=30).status_code == 200


def test_a_stuck_verification_is_answered_503_at_the_deadline(pg, monkeypatch):
    from provgraph.answer import verify

    monkeypatch.setattr(verify, "verify", _stuck)
    pack = {"question": "q", "items": []}
    body = {"answer": {"answer_summary": "s", "claims": []}, "pack": pack}
    with live_server(pg, ServerSettings(query_timeout=1.0)) as url:
        stuck = httpx.post(f"{url}/qa/verify", json=body, timeout=60)
        assert stuck.status_code == 503 and "timeout" in stuck.json()["error"]


# ------------------------------------------------------------------ worker processes, on disk


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[ProvGraph]:
    with ProvGraph.open(tmp_path / "store") as pg:
        yield pg


def test_on_disk_a_read_past_the_deadline_has_its_worker_killed_and_the_next_read_works(disk):
    _fill(disk)
    disk.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin facts", url="https://example.org/aspirin"))
    # The deadline is also what the next read has to be answered in, by a new worker: ten
    # seconds for a tenth of one (starting the worker does not count).
    settings = ServerSettings(query_timeout=10.0, query_workers=1, max_concurrent_queries=1)
    with live_server(disk, settings) as url, httpx.Client(base_url=url, timeout=120) as client:
        assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200  # the worker has started
        started = time.monotonic()
        stopped = client.get("/sparql", params={"query": SLOW})
        assert stopped.status_code == 503 and "timeout" in stopped.text
        assert 10.0 <= time.monotonic() - started < 90  # the deadline, not the query's end (hours)
        # one worker, one slot: had the query gone on, these would wait for it or find the server busy
        listed = client.get("/sources")
        assert listed.status_code == 200 and [s["title"] for s in listed.json()] == ["Aspirin facts"]


def test_on_disk_the_pool_starts_two_workers_and_grows_to_its_size_under_load(disk):
    _fill(disk)
    settings = ServerSettings(query_timeout=3.0, query_workers=3, max_concurrent_queries=3)
    with live_server(disk, settings) as url:
        workers = [p for p in multiprocessing.active_children() if p.name.startswith("SpawnProcess")]
        assert len(workers) == 2
        if hasattr(os, "SCHED_BATCH"):  # scheduled so that waking them does not preempt the server
            # set as each worker starts, which may still be going on: a generous deadline
            deadline = time.monotonic() + 60
            while {os.sched_getscheduler(w.pid) for w in workers if w.pid} != {os.SCHED_BATCH}:
                assert time.monotonic() < deadline, "the workers were not scheduled as batch work"
                time.sleep(0.05)
        # three runaway queries at once: each has a worker of its own (a third one started for
        # it), so each is stopped at its deadline; with two workers the third would find the
        # server busy
        with concurrent.futures.ThreadPoolExecutor(3) as threads:
            answers = list(
                threads.map(lambda _: httpx.get(f"{url}/sparql", params={"query": SLOW}, timeout=120), range(3))
            )
        assert [a.status_code for a in answers] == [503, 503, 503]
        assert all("timeout" in a.text for a in answers), [a.text for a in answers]


def test_on_disk_an_upload_is_seen_by_the_next_query_and_checkpoints_do_not_pile_up(disk, tmp_path):
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        "".join(
            json.dumps({"subject": f"http://example.org/e{i}", "predicate": "http://example.org/p", "literal": str(i)})
            + "\n"
            for i in range(200)
        )
    )
    snapshots = disk.backend.location / SNAPSHOT_DIR  # type: ignore[operator]
    settings = ServerSettings(token=TOKEN, query_workers=2)
    ask = "ASK { <http://example.org/e199> <http://example.org/p> ?v }"
    with live_server(disk, settings) as url, httpx.Client(base_url=url, timeout=120) as client:
        assert client.get("/sparql", params={"query": ask}).json()["boolean"] is False
        for n in range(3):
            files = [("file", ("facts.jsonl", facts.read_bytes()))]
            uploaded = client.post("/sources", data={"id": f"facts-{n}"}, files=files, headers=AUTH)
            assert uploaded.status_code == 201, uploaded.text
            answered = client.get("/sparql", params={"query": ask})
            assert answered.status_code == 200 and answered.json()["boolean"] is True
            assert len(client.get("/sources").json()) == n + 1
            # at most one checkpoint open per worker, and the newest
            assert len(list(snapshots.iterdir())) <= settings.query_workers + 1
    assert not snapshots.exists()  # the server deleted them when it stopped


def test_on_disk_conflicts_come_from_a_worker_and_the_server_stores_the_records_in_the_background(disk, tmp_path):
    ingest_capitals(disk, tmp_path, graph_metadata=False)
    stored = "ASK { GRAPH pgid:conflicts { ?s ?p ?o } }"
    assert not disk.query(stored, view=DatasetView.DEFAULT)
    with live_server(disk, ServerSettings(query_workers=1)) as url:
        params = {"subject": AMSTERDAM, "predicate": POPULATION}
        answer = httpx.get(f"{url}/conflicts", params=params, timeout=120)
        assert answer.status_code == 200, answer.text
        [conflict] = answer.json()
        assert conflict["resolution"]["preferred"] == '"820654"^^<http://www.w3.org/2001/XMLSchema#integer>'
        # a worker cannot write its checkpoint: the server stores the records itself, once
        waited = time.monotonic() + 120
        while not disk.query(stored, view=DatasetView.DEFAULT) and time.monotonic() < waited:
            time.sleep(0.1)
        assert disk.query(stored, view=DatasetView.DEFAULT)
        again = httpx.get(f"{url}/conflicts", params=params, timeout=120)
        assert again.json()[0]["resolution"]["preferred"] == conflict["resolution"]["preferred"]


# ------------------------------------------------------------------ `provgraph serve` and signals


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")  # a zombie is gone too
    except OSError:
        return True


def _in_background(call: Callable[[], httpx.Response]) -> list[httpx.Response]:
    answers: list[httpx.Response] = []
    threading.Thread(target=lambda: answers.append(call()), daemon=True).start()
    return answers


@pytest.mark.parametrize("workers", ["2", "0"], ids=["worker-processes", "threads"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_serve_answers_503_at_the_deadline_and_stops_promptly_while_a_query_is_stuck(tmp_path, workers, sig):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        _fill(pg)
    with ServeProcess(store, "--timeout", "1", "--query-workers", workers) as server:
        started = time.monotonic()
        stopped = httpx.get(f"{server.url}/sparql", params={"query": SLOW}, timeout=120)
        assert stopped.status_code == 503 and "timeout" in stopped.text
        assert time.monotonic() - started < 90  # the deadline, not the query's end (hours)
        children = _children(server.pid)
        # another one, still computing when the signal comes
        pending = _in_background(lambda: httpx.get(f"{server.url}/sparql", params={"query": SLOW}, timeout=120))
        time.sleep(0.2)  # lets the request reach the server; the test holds whether or not it has
        asked = time.monotonic()
        server.process.send_signal(sig)
        code = server.process.wait(timeout=SERVER_START)
        assert time.monotonic() - asked < 90  # the grace period and cleanup, not the query (hours)
        assert code == 0, server.text()
    assert not (store / "holder.json").exists()
    assert not (store / SNAPSHOT_DIR).exists()
    # the workers are killed before the server exits; multiprocessing's resource tracker leaves
    # when it sees its parent gone
    waited = time.monotonic() + SERVER_START
    while any(not _gone(pid) for pid in children) and time.monotonic() < waited:
        time.sleep(0.1)
    assert all(_gone(pid) for pid in children)
    assert not pending or pending[0].status_code == 503, (pending[0].text, pending[0].headers)
    with ProvGraph.open(store, read_only=True) as after:  # closed cleanly: readable, nothing lost
        assert after.query("ASK { <urn:s1999> ?p ?o }", view=DatasetView.DEFAULT)
