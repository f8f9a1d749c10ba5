"""The command line as a user runs it: real processes, real store directories."""

from __future__ import annotations

import csv
import io
import json

import pytest
import rdflib

import provgraph
from helpers import DBPEDIA, EXAMPLES, run_cli


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "store"
    done = run_cli(
        "ingest",
        str(EXAMPLES / "aspirin.ttl"),
        "--store",
        str(path),
        "--title",
        "Aspirin facts",
        "--url",
        "https://example.org/aspirin",
        "--issued",
        "2024-03-01",
        "--tier",
        "2",
    )
    assert done.returncode == 0, done.stderr
    return path


def test_ingest_prints_what_it_did(store):
    assert store.is_dir()
    again = run_cli(
        "ingest",
        str(EXAMPLES / "aspirin.ttl"),
        "--store",
        str(store),
        "--title",
        "Aspirin facts",
        "--url",
        "https://example.org/aspirin",
        "--issued",
        "2024-03-01",
        "--tier",
        "2",
    )
    assert again.returncode == 0
    assert "unchanged, nothing written" in again.stdout


def test_ingest_jsonl_with_method_and_json_report(store):
    done = run_cli(
        "ingest",
        str(EXAMPLES / "facts.jsonl"),
        "--store",
        str(store),
        "--title",
        "Trial",
        "--url",
        "https://example.org/trial",
        "--method",
        "llm_extraction",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["statements"] == 3 and report["passages"] == 3
    assert report["documents"][0]["outcome"] == "created"
    assert report["validation"]["conforms"] is True


def test_sources_json_is_the_documented_model(store):
    done = run_cli("sources", "--json", "--store", str(store))
    assert done.returncode == 0
    [source] = json.loads(done.stdout)
    assert source["title"] == "Aspirin facts" and source["tier"] == 2
    assert source["versions"][0]["status"] == "current"
    table = run_cli("sources", "--store", str(store))
    assert "Aspirin facts" in table.stdout and "1 document" in table.stdout


def test_store_from_environment(store, tmp_path):
    done = run_cli("sources", "--json", env={"PROVGRAPH_STORE": str(store)})
    assert json.loads(done.stdout)[0]["title"] == "Aspirin facts"


QUERY = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g"


def test_query_in_every_results_format(store):
    as_json = json.loads(run_cli("query", QUERY, "--format", "json", "--store", str(store)).stdout)
    assert as_json["head"]["vars"] == ["g", "n"]
    graphs = [b["g"]["value"] for b in as_json["results"]["bindings"]]
    # the catalog, the change log and the one source graph
    assert "https://w3id.org/provgraph/id/catalog" in graphs and len(graphs) == 3
    as_csv = list(csv.reader(io.StringIO(run_cli("query", QUERY, "--format", "csv", "--store", str(store)).stdout)))
    assert as_csv[0] == ["g", "n"] and len(as_csv) == 4
    as_tsv = run_cli("query", QUERY, "--format", "tsv", "--store", str(store)).stdout.splitlines()
    assert as_tsv[0] == "?g\t?n" and len(as_tsv) == 4
    as_xml = run_cli("query", QUERY, "--format", "xml", "--store", str(store)).stdout
    assert "<sparql" in as_xml and "catalog" in as_xml
    table = run_cli("query", QUERY, "--store", str(store)).stdout
    assert "| g " in table and "3 rows" in table


def test_query_construct_and_stdin(store):
    done = run_cli(
        "query",
        "-",
        "--store",
        str(store),
        "--format",
        "ntriples",
        stdin="CONSTRUCT { ?s <http://example.org/treats> ?o } WHERE { ?s <http://example.org/treats> ?o }",
    )
    assert done.returncode == 0, done.stderr
    g = rdflib.Graph().parse(data=done.stdout, format="nt")
    assert len(g) == 1


def test_query_error_has_position_and_no_traceback(store):
    done = run_cli("query", "SELECT ?s WHERE { ?s ?p }", "--store", str(store))
    assert done.returncode == 2
    assert "SPARQL error: line 1, column" in done.stderr
    assert "Traceback" not in done.stderr
    debug = run_cli("--debug", "query", "SELECT ?s WHERE { ?s ?p }", "--store", str(store))
    assert "Traceback" in debug.stderr


def test_evidence_json_and_table(store):
    run_cli(
        "ingest",
        str(EXAMPLES / "facts.jsonl"),
        "--store",
        str(store),
        "--title",
        "Trial",
        "--url",
        "https://example.org/trial",
        "--method",
        "llm_extraction",
        "-q",
    )
    done = run_cli(
        "evidence",
        "--subject",
        "http://example.org/aspirin",
        "--predicate",
        "http://example.org/treats",
        "--object",
        "http://example.org/headache",
        "--json",
        "--store",
        str(store),
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert sorted(e["title"] for e in found) == ["Aspirin facts", "Trial"]
    trial = next(e for e in found if e["title"] == "Trial")
    assert trial["passage"]["page"] == 3 and trial["method"] == "llm_extraction"
    table = run_cli(
        "evidence",
        "--subject",
        "http://example.org/aspirin",
        "--predicate",
        "http://example.org/maxDailyDoseMg",
        "--store",
        str(store),
    )
    assert "4000" in table.stdout and "2 statements from 2 source(s), 1 distinct value(s)" in table.stdout
    # both documents are published on example.org: one independent source, so not yet confirmed
    assert "4000: unknown, confidence 0.95" in table.stdout


def test_export_trig_and_one_graph(store, tmp_path):
    done = run_cli("export", "--format", "trig", "--store", str(store))
    ds = rdflib.Dataset()
    ds.parse(data=done.stdout, format="trig")
    assert len(list(ds.quads())) > 60
    out = tmp_path / "one.ttl"
    run_cli(
        "export", "--format", "turtle", "--graph", "https://example.org/aspirin", "-o", str(out), "--store", str(store)
    )
    assert len(rdflib.Graph().parse(out)) == 70  # its 4 statements typed prov:Entity too
    refused = run_cli("export", "--format", "turtle", "--store", str(store))
    assert refused.returncode == 2 and "holds one graph" in refused.stderr


def test_validate_is_a_dry_run_with_exit_codes(tmp_path):
    store = tmp_path / "store"
    ok = run_cli("validate", str(EXAMPLES / "aspirin.ttl"), "--store", str(store))
    assert ok.returncode == 0 and "conforms" in ok.stdout
    assert not store.exists()
    bad = run_cli(
        "validate", str(EXAMPLES / "bad-dose.ttl"), "--shapes", str(EXAMPLES / "drug-shapes.ttl"), "--store", str(store)
    )
    assert bad.returncode == 1
    assert "does NOT conform" in bad.stdout and "focus node: http://example.org/ibuprofen" in bad.stdout


def test_ingest_rejection_exit_code_and_nothing_written(store):
    before = run_cli("export", "--format", "nquads", "--store", str(store)).stdout
    bad = run_cli(
        "ingest", str(EXAMPLES / "bad-dose.ttl"), "--shapes", str(EXAMPLES / "drug-shapes.ttl"), "--store", str(store)
    )
    assert bad.returncode == 1
    assert "focus node: http://example.org/ibuprofen" in bad.stderr and "Traceback" not in bad.stderr
    assert run_cli("export", "--format", "nquads", "--store", str(store)).stdout == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", str(DBPEDIA / "3-capitals.nq")], "3-capitals.nq:32:"),
        (["ingest", "missing.ttl"], "missing.ttl: no such file"),
        (["ingest", str(EXAMPLES / "bad-facts.jsonl")], "bad-facts.jsonl:2: invalid fact record: confidence"),
        (["ingest", str(EXAMPLES / "README.md"), "--format", "nope"], "Invalid value for '--format'"),
    ],
    ids=["relative-iri", "missing", "bad-jsonl", "bad-format"],
)
def test_bad_input_is_a_clear_error_without_traceback(tmp_path, args, message):
    done = run_cli(*args, "--store", str(tmp_path / "store"))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_progress_bar_and_quiet(tmp_path):
    loud = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--store", str(tmp_path / "a"))
    assert "reading" in loud.stderr and "writing" in loud.stderr
    quiet = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--store", str(tmp_path / "b"), "--quiet")
    assert quiet.stderr == ""


def test_split_dbpedia_with_the_cli(tmp_path):
    store = str(tmp_path / "store")
    done = run_cli(
        "ingest",
        str(DBPEDIA / "3-capitals.nq"),
        "--store",
        store,
        "--id",
        "dbpedia",
        "--tier",
        "4",
        "--base",
        "http://example.org/ldif/",
        "--split-graphs",
        "wikipedia",
        "--graph-metadata",
        str(DBPEDIA / "3-capitals.metadata.nq"),
        "-q",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    keys = [d["key"] for d in json.loads(done.stdout)["documents"]]
    # 26 Wikipedia articles, plus the file's own document holding the <type-graph> triples
    assert len([k for k in keys if ".wikipedia.org/wiki/" in k]) == 26
    assert "dbpedia" in keys and len(keys) == 27


def test_an_ingest_of_more_documents_than_a_report_lists_counts_them_all(tmp_path):
    """A report lists the first 1,000 documents in key order; what it says counts every one."""
    source = tmp_path / "many.nq"
    source.write_text("".join(f'<urn:s{d}> <urn:p> "{d}" <urn:doc:{d:04}> .\n' for d in range(1100)))
    store = str(tmp_path / "store")
    args = ("--store", store, "--id", "many", "--split-graphs", r"^(urn:doc:\d+)$")
    dry = run_cli("validate", str(source), *args)
    assert dry.returncode == 0, dry.stderr
    assert "would write 1100 graph(s)" in dry.stdout  # not the statements of the 1,000 listed
    done = run_cli("ingest", str(source), *args, "-q", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["document_count"] == 1100 and report["outcomes"] == {"created": 1100}
    assert [d["key"] for d in report["documents"]] == [f"urn:doc:{d:04}" for d in range(1000)]
    again = run_cli("ingest", str(source), *args, "-q")
    assert "unchanged, nothing written (1100 documents already current)" in again.stdout


def test_revoke_and_stats(store):
    assert run_cli("revoke", "https://example.org/aspirin", "--reason", "test", "--store", str(store)).returncode == 0
    stats = json.loads(run_cli("stats", "--json", "--store", str(store)).stdout)
    assert stats["current_graphs"] == 0 and stats["documents"] == 1


def test_optimize_compacts_the_store_and_keeps_what_it_holds(store):
    quads = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
    count = ["query", quads, "--format", "csv", "--store", str(store)]
    before = run_cli(*count).stdout
    done = run_cli("optimize", "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"compacted {store}"
    assert run_cli(*count).stdout == before and int(before.split()[-1]) > 0


@pytest.mark.parametrize(
    "args",
    [
        ["sources"],
        ["stats"],
        ["query", "SELECT * WHERE { ?s ?p ?o }"],
        ["export"],
        ["ask", "What is the weight of Widget?"],
        ["evidence", "--subject", "http://example.org/aspirin", "--predicate", "http://example.org/treats"],
        ["related", "https://example.org/aspirin"],
        ["conflicts"],
        ["optimize"],
    ],
    ids=lambda args: args[0],
)
def test_read_commands_on_a_missing_store(tmp_path, args):
    missing = tmp_path / "none"
    done = run_cli(*args, "--store", str(missing))
    assert done.returncode == 2, done.stdout
    message = f"error: no provgraph store at {missing} (ingest a document to create one, or pass --store)"
    assert done.stderr.strip() == message
    assert not missing.exists()


def _file_hashes(root):
    import hashlib

    return {p.relative_to(root): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("code", "args"),
    [
        (1, [str(EXAMPLES / "bad-dose.ttl"), "--shapes", str(EXAMPLES / "drug-shapes.ttl")]),
        (2, [str(DBPEDIA / "3-capitals.nq")]),
        (
            0,
            [
                str(EXAMPLES / "aspirin.ttl"),
                "--title",
                "Aspirin facts",
                "--url",
                "https://example.org/aspirin",
                "--issued",
                "2024-03-01",
                "--tier",
                "2",
            ],
        ),
    ],
    ids=["shacl-violation", "syntax-error", "no-op"],
)
def test_a_refused_or_no_op_ingest_leaves_the_store_files_byte_for_byte(store, code, args):
    before = _file_hashes(store)
    done = run_cli("ingest", *args, "--store", str(store), "-q")
    assert done.returncode == code
    assert _file_hashes(store) == before


def test_a_refused_first_ingest_creates_no_store(tmp_path):
    store = tmp_path / "new"
    done = run_cli(
        "ingest",
        str(EXAMPLES / "bad-dose.ttl"),
        "--shapes",
        str(EXAMPLES / "drug-shapes.ttl"),
        "--store",
        str(store),
        "-q",
    )
    assert done.returncode == 1 and not store.exists()
    assert run_cli("ingest", "missing.ttl", "--store", str(store)).returncode == 2 and not store.exists()


def test_json_rejection_prints_the_validation_report(store):
    done = run_cli(
        "ingest",
        str(EXAMPLES / "bad-dose.ttl"),
        "--shapes",
        str(EXAMPLES / "drug-shapes.ttl"),
        "--store",
        str(store),
        "--json",
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["conforms"] is False
    assert report["issues"][0]["focus_node"] == "http://example.org/ibuprofen"


def test_debug_may_follow_the_command(store):
    done = run_cli("query", "SELECT ?s WHERE { ?s ?p }", "--store", str(store), "--debug")
    assert "Traceback" in done.stderr


def test_export_into_a_closed_pipe_is_quiet(store):
    import subprocess

    done = subprocess.run(
        f"provgraph export --format nquads --store {store} | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert len(done.stdout) == 10 and "error" not in done.stderr


# ---------------------------------------------------------------------- what a newcomer types


def test_format_takes_file_extensions_as_names(tmp_path):
    data = tmp_path / "aspirin.data"
    data.write_bytes((EXAMPLES / "aspirin.ttl").read_bytes())
    store = str(tmp_path / "store")
    done = run_cli("ingest", str(data), "--format", "ttl", "--url", "https://example.org/aspirin", "--store", store)
    assert done.returncode == 0, done.stderr
    exported = run_cli("export", "--format", "nt", "--graph", "https://example.org/aspirin", "--store", store)
    assert exported.returncode == 0, exported.stderr
    assert len(rdflib.Graph().parse(data=exported.stdout, format="nt")) > 0
    constructed = run_cli("query", "CONSTRUCT WHERE { ?s ?p ?o } LIMIT 1", "--format", "nt", "--store", store)
    assert constructed.returncode == 0 and constructed.stdout.count(" .\n") == 1
    refused = run_cli("ingest", str(data), "--format", "ttlx", "--store", store)
    assert refused.returncode == 2 and "'ttlx' is not one of turtle, ntriples" in refused.stderr
    assert "Value error" not in refused.stderr


def test_version():
    done = run_cli("--version")
    assert done.returncode == 0 and done.stdout == f"provgraph {provgraph.__version__}\n"


@pytest.mark.parametrize("command", [[], ["ingest"], ["serve"], ["ask"]], ids=lambda c: " ".join(c) or "provgraph")
def test_help_shows_plain_flags_without_a_type(command):
    done = run_cli(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert "<bool>" not in done.stdout and "list[str]" not in done.stdout
    assert "  --help " in done.stdout


def test_serve_help_says_where_to_put_the_token():
    text = " ".join(run_cli("serve", "--help").stdout.split())
    assert "--token-file FILE" in text and "[env var: PROVGRAPH_TOKEN]" in text
    assert "Prefer $PROVGRAPH_TOKEN or --token-file" in text


def test_keys_in_tables_are_whole_and_work_when_copied(tmp_path):
    key = "https://example.org/reports/2024/a-rather-long-path/aspirin-facts-curated-by-the-pharmacology-group"
    store = str(tmp_path / "store")
    narrow = {"COLUMNS": "80"}
    run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--title", "Aspirin facts", "--url", key, "--store", store)
    note = tmp_path / "note.md"
    note.write_text(f"# Note\n\nSee Aspirin facts ({key}) for the doses.\n", encoding="utf-8")
    run_cli("ingest", str(note), "--title", "A note", "--url", "https://example.org/note", "--store", store)
    listed = run_cli("sources", "--store", store, env=narrow).stdout.splitlines()
    related = run_cli("related", "https://example.org/note", "--store", store, env=narrow).stdout.splitlines()
    # the first column of each row is the key, whole
    assert [line.split()[0] for line in listed[1:-1]] == ["https://example.org/note", key]
    assert [line.split()[0] for line in related[1:]] == [key]
    copied = related[1].split()[0]
    asked = run_cli("ask", "What does aspirin treat?", "--document", copied, "--store", store)
    assert asked.returncode == 0 and "Aspirin facts" in asked.stdout
    revoked = run_cli("revoke", copied, "--reason", "superseded by the label", "--store", store)
    assert revoked.returncode == 0
    lines = revoked.stdout.splitlines()
    assert lines[:2] == [f"revoked Aspirin facts ({key}): superseded by the label", "1 recorded answer(s) invalidated"]
