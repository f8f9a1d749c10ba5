"""Bad input gets a clear error naming what and where, and nothing is written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import DBPEDIA, EXAMPLES, dataset_dump
from provgraph import (
    EmptyInputError,
    GraphSplit,
    IngestOptions,
    InputError,
    ProvGraph,
    ProvGraphError,
    QueryError,
    UnsupportedFormatError,
    ValidationFailedError,
)
from provgraph.ingest.validate import CHUNK_STATEMENTS, LOCAL_CHUNKS

EX = "http://example.org/"


@pytest.fixture
def seeded(pg: ProvGraph) -> ProvGraph:
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin", url="https://example.org/aspirin"))
    return pg


def unchanged_after(pg: ProvGraph, action) -> BaseException:
    before = dataset_dump(pg)
    with pytest.raises(ProvGraphError) as caught:
        action()
    assert dataset_dump(pg) == before
    return caught.value


def test_turtle_syntax_error_names_file_line_and_column(seeded, tmp_path):
    path = tmp_path / "bad.ttl"
    path.write_text(f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\nex:a ex:p ex:b ex:c .\n")
    error = unchanged_after(seeded, lambda: seeded.ingest(path))
    assert isinstance(error, InputError)
    assert (error.file, error.line) == (str(path), 3)
    assert error.column is not None
    assert str(error).startswith(f"{path}:3:")


def test_unknown_format(seeded, tmp_path):
    path = tmp_path / "facts.xlsx"
    path.write_text("whatever")
    error = unchanged_after(seeded, lambda: seeded.ingest(path))
    assert isinstance(error, UnsupportedFormatError)
    assert "--format" in str(error)


@pytest.mark.parametrize("content", [b"", b"# only a comment\n", b"\n\n"])
def test_empty_input(seeded, tmp_path, content):
    path = tmp_path / "empty.ttl"
    path.write_bytes(content)
    error = unchanged_after(seeded, lambda: seeded.ingest(path))
    assert isinstance(error, EmptyInputError)
    assert str(path) in str(error)


def test_wrong_encoding(seeded, tmp_path):
    path = tmp_path / "latin1.ttl"
    path.write_bytes(f'<{EX}a> <{EX}label> "caf\u00e9" .\n'.encode("latin-1"))
    error = unchanged_after(seeded, lambda: seeded.ingest(path))
    assert isinstance(error, InputError)
    assert error.line == 1
    assert "UTF-8" in str(error) or "utf-8" in str(error).lower()


def test_wrong_encoding_in_jsonl_and_text(seeded, tmp_path):
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_bytes(
        b'{"subject": "http://e.org/a", "predicate": "http://e.org/p", "literal": "x"}\n'
        b'{"subject": "http://e.org/a", "predicate": "http://e.org/p", "literal": "caf\xe9"}\n'
    )
    assert unchanged_after(seeded, lambda: seeded.ingest(jsonl)).line == 2
    text = tmp_path / "bad.txt"
    text.write_bytes(b"Fine line.\nNot fine: caf\xe9.\n")
    assert unchanged_after(seeded, lambda: seeded.ingest(text)).line == 2


def test_missing_file(seeded, tmp_path):
    error = unchanged_after(seeded, lambda: seeded.ingest(tmp_path / "nope.ttl"))
    assert isinstance(error, InputError)
    assert "no such file" in str(error)


def test_relative_iri_without_base_is_reported_with_its_line(seeded):
    error = unchanged_after(seeded, lambda: seeded.ingest(DBPEDIA / "3-capitals.nq"))
    assert isinstance(error, InputError)
    assert error.line == 32
    assert "--base" in str(error)


def test_relative_iris_resolve_with_base(pg):
    report = pg.ingest(DBPEDIA / "3-capitals.nq", IngestOptions(base="http://example.org/ldif/"))
    assert report.statements == 99
    rows = pg.query(
        "SELECT DISTINCT ?orig WHERE { ?st pg:originalGraph ?orig FILTER(CONTAINS(STR(?orig), 'type-graph')) }"
    )
    assert [r["orig"].value for r in rows] == ["http://example.org/ldif/type-graph"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ('{"subject": "http://e.org/a", "predicate": "http://e.org/p"}', "exactly one of 'object'"),
        (
            '{"subject": "http://e.org/a", "predicate": "http://e.org/p", "object": "x:y", "confidence": 1.7}',
            "confidence",
        ),
        ('{"subject": "a", "predicate": "http://e.org/p", "object": "http://e.org/b"}', "relative IRI"),
        (
            '{"subject": "http://e.org/a", "predicate": "http://e.org/p", "object": "http://e.org/b", "confdence": 1}',
            "confdence",
        ),
        (
            '{"subject": "http://e.org/a", "predicate": "http://e.org/p", "literal": "x", "lang": "not a tag"}',
            "language tag",
        ),
        ("[1, 2]", "JSON object"),
        ("{not json", "invalid JSON"),
    ],
    ids=["no-object", "confidence", "relative", "typo", "bad-lang", "not-object", "not-json"],
)
def test_bad_jsonl_record_names_its_line(seeded, tmp_path, record, message):
    path = tmp_path / "facts.jsonl"
    good = json.dumps({"subject": "http://e.org/a", "predicate": "http://e.org/p", "object": "http://e.org/b"})
    path.write_text(f"{good}\n{good}\n{record}\n")
    error = unchanged_after(seeded, lambda: seeded.ingest(path))
    assert isinstance(error, InputError)
    assert error.line == 3
    assert message in str(error)


def test_bad_metadata_options(seeded):
    for kwargs, word in [
        ({"tier": 7}, "tier"),
        ({"url": "not a url"}, "url"),
        ({"issued": "soon"}, "issued"),
        ({"confidence": 2.0}, "confidence"),
        ({"title": " "}, "title"),
    ]:
        error = unchanged_after(
            seeded, lambda kwargs=kwargs: seeded.ingest(EXAMPLES / "facts.jsonl", IngestOptions(**kwargs))
        )
        assert isinstance(error, InputError), kwargs
        assert word in str(error)


@pytest.mark.parametrize(
    ("name", "text", "message", "line"),
    [
        ("meta.nq", None, "no such file", None),
        ("meta.txt", "graph facts", "graph metadata must be an RDF file", None),
        ("meta.nq", '<http://e.org/g1> <http://e.org/source> "a" .\n<http://e.org/g1> <bad iri> "b" .\n', "", 2),
    ],
    ids=["missing", "not-rdf", "syntax"],
)
def test_bad_graph_metadata_names_its_file_and_writes_nothing(seeded, tmp_path, name, text, message, line):
    source = tmp_path / "split.nq"
    source.write_text('<http://e.org/s> <http://e.org/p> "v" <http://e.org/g1> .\n')
    metadata = tmp_path / name
    if text is not None:
        metadata.write_text(text)
    split = GraphSplit(pattern=r"^(http://e\.org/g\d+)$", metadata=str(metadata))
    error = unchanged_after(seeded, lambda: seeded.ingest(source, IngestOptions(id="split", split=split)))
    assert isinstance(error, InputError)
    assert error.file == str(metadata) and error.line == line
    assert message in str(error)


def test_shacl_violation_names_focus_node_and_path_and_writes_nothing(seeded):
    error = unchanged_after(
        seeded, lambda: seeded.ingest(EXAMPLES / "bad-dose.ttl", IngestOptions(shapes=[EXAMPLES / "drug-shapes.ttl"]))
    )
    assert isinstance(error, ValidationFailedError)
    assert error.exit_code == 1
    text = str(error)
    assert "focus node: http://example.org/ibuprofen" in text
    assert "path: http://example.org/maxDailyDoseMg" in text
    assert "nothing was written" in text


def test_bad_shapes_file_is_an_input_error(seeded, tmp_path):
    shapes = tmp_path / "shapes.ttl"
    shapes.write_text("this is not turtle")
    error = unchanged_after(seeded, lambda: seeded.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(shapes=[shapes])))
    assert isinstance(error, InputError)
    assert str(shapes) in str(error)


def test_query_syntax_error_has_a_position(seeded):
    with pytest.raises(QueryError) as caught:
        seeded.query("SELECT ?s WHERE {\n  ?s ?p \n}")
    assert caught.value.line == 3 and caught.value.column is not None
    assert f"line 3, column {caught.value.column}" in str(caught.value)


def test_a_commit_failing_after_the_bulk_load_leaves_nothing_behind(seeded, monkeypatch):
    """The bulk path has loaded the graphs, their view copies and staged catalog entries when its
    commit fails: all of it goes, and the store is as it was."""
    from provgraph.ingest import pipeline
    from provgraph.store import catalog

    monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 0)
    monkeypatch.setattr(catalog, "commit_staged_update", lambda _: "INSERT DATA { not sparql")
    error = unchanged_after(seeded, lambda: seeded.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="aspirin")))
    assert str(error).startswith("writing the store failed; nothing was committed")


@pytest.mark.parametrize("bulk", [False, True], ids=["one-transaction", "bulk-then-commit"])
def test_a_failed_write_leaves_no_graph_behind(seeded, monkeypatch, bulk):
    from provgraph.ingest import pipeline
    from provgraph.store import oxigraph

    if bulk:
        monkeypatch.setattr(pipeline, "BULK_THRESHOLD", 0)

    def broken_update(self, sparql, *, base_iri=None, prefixes=None):  # Backend.update's signature
        raise oxigraph.StoreError("disk full (simulated)")

    def broken_load(self, nquads, *, bulk):  # Backend.load_quads's signature
        raise oxigraph.StoreError("disk full (simulated)")

    # a full disk refuses every write: the bulk path's first is a load (its pending marks)
    monkeypatch.setattr(oxigraph.OxigraphBackend, "update", broken_update)
    monkeypatch.setattr(oxigraph.OxigraphBackend, "load_quads", broken_load)
    error = unchanged_after(seeded, lambda: seeded.ingest(EXAMPLES / "facts.jsonl"))
    assert "disk full" in str(error)


def test_a_script_without_a_main_guard_gets_a_clear_error_and_nothing_is_written(tmp_path):
    """A large ingest validates in worker processes started by "spawn", which import the calling
    script again: without ``if __name__ == "__main__":`` each worker runs the script's ingest and
    dies. The user gets provgraph's error saying so, not multiprocessing's BrokenProcessPool."""
    data = tmp_path / "big.nt"
    with data.open("w") as out:  # more chunks than are validated in the calling process
        for i in range(CHUNK_STATEMENTS * (LOCAL_CHUNKS + 3)):
            out.write(f'<http://example.org/s{i}> <http://example.org/p> "value {i}" .\n')
    store = tmp_path / "store"
    ProvGraph.open(store).close()
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import multiprocessing, sys\n"
        "from provgraph import ProvGraph, ProvGraphError\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    raise SystemExit('a worker imported the script')\n"
        f"with ProvGraph.open({str(store)!r}) as pg:\n"
        "    try:\n"
        f"        pg.ingest({str(data)!r})\n"
        "    except ProvGraphError as exc:\n"
        "        print(f'{type(exc).__name__}: {exc}')\n"
        "        sys.exit(3)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.startswith("ProvGraphError: the SHACL validation workers stopped before validating"), done.stdout
    assert 'if __name__ == "__main__":' in done.stdout and "nothing was written" in done.stdout
    with ProvGraph.open(store) as pg:
        assert pg.sources() == []
