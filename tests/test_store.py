"""The on-disk store: persistence, read-only opens beside a writer, clear lock errors, recovery."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap

import pytest

from helpers import EXAMPLES, ROOT, run_cli
from provgraph import IngestOptions, ProvGraph, ReadOnlyStoreError, ResultFormat, StoreLockedError, StoreNotFoundError
from provgraph.store import oxigraph as oxigraph_store
from provgraph.store.base import Backend
from provgraph.store.oxigraph import OxigraphBackend

HOLDER = textwrap.dedent(
    """
    import sys, time
    from provgraph import ProvGraph
    pg = ProvGraph.open(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()
    pg.close()
    """
)


def test_backends_implement_the_protocol(tmp_path):
    assert isinstance(OxigraphBackend.memory(), Backend)
    disk = OxigraphBackend.open(tmp_path / "s")
    assert isinstance(disk, Backend)
    disk.close()


def test_data_persists_across_opens(tmp_path):
    with ProvGraph.open(tmp_path / "store") as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin"))
    with ProvGraph.open(tmp_path / "store", read_only=True) as pg:
        assert [s.title for s in pg.sources()] == ["Aspirin"]
        with pytest.raises(ReadOnlyStoreError):
            pg.ingest(EXAMPLES / "facts.jsonl")


def test_read_only_open_of_a_missing_store(tmp_path):
    with pytest.raises(StoreNotFoundError, match="no provgraph store"):
        ProvGraph.open(tmp_path / "nothing", read_only=True)


def test_reads_work_and_writes_name_the_holder_while_another_process_holds_the_store(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with ProvGraph.open(store, read_only=True) as reader:
            assert [s.title for s in reader.sources()] == ["Aspirin"]
        with pytest.raises(StoreLockedError) as caught:
            ProvGraph.open(store)
        assert f"process {holder.pid}" in str(caught.value)
        assert caught.value.holder is not None and caught.value.holder["alive"] is True
        # commands that store stale records when they can compute them instead while it is held
        for args in (
            ["evidence", "--subject", "http://example.org/aspirin", "--predicate", "http://example.org/treats"],
            ["conflicts"],
            ["ask", "What does aspirin treat?", "--no-record"],
        ):
            done = run_cli(*args, "--store", str(store))
            assert done.returncode == 0, done.stderr
            assert "headache" in done.stdout or "no conflicts" in done.stdout
        # an answer is recorded, and that writes: it says so, and how to answer without a record
        recorded = run_cli("ask", "What does aspirin treat?", "--store", str(store))
        assert recorded.returncode == 2 and f"process {holder.pid}" in recorded.stderr
        assert "--no-record" in recorded.stderr and "Traceback" not in recorded.stderr
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    with ProvGraph.open(store) as pg:  # released
        assert len(pg.sources()) == 1


def test_a_non_store_directory_is_refused(tmp_path):
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_bytes(b"\xff")
    with pytest.raises(Exception, match="not a provgraph store"):
        ProvGraph.open(tmp_path / "photos")


def test_an_uncommitted_graph_is_removed_on_open(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin"))
        # what a crash between writing a graph and committing the catalog leaves behind
        pg.backend.update(
            "INSERT DATA { GRAPH <https://w3id.org/provgraph/id/doc/0000/v1> { <urn:a> <urn:b> <urn:c> } }"
        )
    with ProvGraph.open(store) as pg:
        graphs = {g.value for g in pg.backend.named_graphs()}
        assert "https://w3id.org/provgraph/id/doc/0000/v1" not in graphs
        assert len(pg.sources()) == 1


def test_a_lazy_ingest_notices_a_commit_made_while_it_was_preparing(tmp_path):
    store = tmp_path / "store"
    mine, theirs = tmp_path / "mine.ttl", tmp_path / "theirs.ttl"
    mine.write_text("<http://example.org/a> <http://example.org/p> 1 .")
    theirs.write_text("<http://example.org/a> <http://example.org/p> 2 .")
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl")  # the store exists, so the lazy open is read-only
    lazy = ProvGraph.open(store, lazy_lock=True)
    interfered: list[str] = []

    def meanwhile(phase: str, done: int, total: int) -> None:
        if phase == "reading" and not interfered:
            with ProvGraph.open(store) as other:  # another writer commits version 1 of "d"
                interfered.append(other.ingest(theirs, IngestOptions(id="d")).documents[0].graph)

    report = lazy.ingest(mine, IngestOptions(id="d"), progress=meanwhile)
    lazy.close()
    doc = report.documents[0]
    assert interfered and doc.version == 2 and doc.previous_graph == interfered[0]
    with ProvGraph.open(store, read_only=True) as pg:
        assert [v.version for v in pg.source("d").versions] == [2, 1]


@pytest.mark.parametrize("blank", [None, 0, 6], ids=["iris-in-chunks", "blank-nodes-whole", "blank-nodes-after-iris"])
def test_bulk_load_in_chunks_loads_every_quad_and_keeps_blank_nodes_whole(tmp_path, monkeypatch, blank):
    monkeypatch.setattr(oxigraph_store, "BULK_CHUNK", 3)
    monkeypatch.setattr(oxigraph_store, "BULK_BYTES", 100)  # two quads or so a block
    lines = [
        f'{"_:x" if blank is not None and i >= blank else "<http://e/x>"} <http://e/p{i}> "{i}" <http://e/g> .\n'
        for i in range(10)
    ]
    if blank == 6:  # the same blank node as an object in a block before it is a subject
        lines.insert(3, "<http://e/y> <http://e/q> _:x <http://e/g> .\n")
        lines.append("<http://e/y> <http://e/r> _:x <http://e/g> .\n")
    path = tmp_path / "data.nq"
    path.write_text("".join(lines), encoding="utf-8")
    backend = OxigraphBackend.memory()
    backend.load_quads(path, bulk=True)
    rows = list(backend.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"))
    assert rows[0]["n"].value == str(len(lines))  # every quad
    blanks = list(
        backend.query(
            "SELECT (COUNT(DISTINCT ?b) AS ?n) "
            "WHERE { GRAPH ?g { { ?b ?p ?o } UNION { ?s ?p ?b } } FILTER isBlank(?b) }"
        )
    )
    # one blank node: split into chunks, "_:x" would have become several nodes
    assert blanks[0]["n"].value == ("0" if blank is None else "1")


@pytest.mark.parametrize("query", ["SELECT * WHERE { ?s ?p ?o } LIMIT 5", "ASK { ?s ?p ?o }", "SELECT ?x WHERE { }"])
def test_query_results_serialise_alike_as_bytes_and_to_a_file(query):
    # serialize() without a file takes pyoxigraph's bytes; with one, pyoxigraph writes to it
    with ProvGraph.memory() as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl")
        for fmt in (f for f in ResultFormat if f is not ResultFormat.TABLE):
            written = io.BytesIO()
            pg.query(query).serialize(fmt, written)
            assert pg.query(query).serialize(fmt) == written.getvalue(), fmt
            assert written.getvalue()


def test_a_read_only_open_reads_the_store_as_it_was_opened(tmp_path):
    """Why a read-only backend's generation is fixed (and what it reads cached): RocksDB opened
    read-only does not see what a writer commits afterwards, flushed and compacted or not."""
    store = tmp_path / "store"
    with ProvGraph.open(store) as writer:
        writer.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        reader = ProvGraph.open(store, read_only=True)
        before = [s.key for s in reader.sources()]
        count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
        counted = reader.query(count).rows()[0]["n"]
        writer.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="trial", title="Trial"))
        writer.backend.optimize()
        assert reader.backend.generation == 0
        assert [s.key for s in reader.sources()] == before == ["aspirin"]
        assert reader.query(count).rows()[0]["n"] == counted
        reader.close()
    with ProvGraph.open(store, read_only=True) as again:  # a new open sees the write
        assert sorted(s.key for s in again.sources()) == ["aspirin", "trial"]


def test_optimize_needs_a_read_write_open_and_keeps_what_the_store_holds(tmp_path):
    store = tmp_path / "store"
    with ProvGraph.open(store) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", title="Aspirin"))
        before = sorted(map(str, pg.backend.quads()))
        pg.optimize()
        assert sorted(map(str, pg.backend.quads())) == before
    with ProvGraph.open(store, read_only=True) as reader, pytest.raises(ReadOnlyStoreError, match="read-only"):
        reader.optimize()
