"""A source's provenance as W3C PROV (PROV-N, PROV-JSON, PROV-XML) and as a picture people can
read (Graphviz DOT, SVG): from the API, the command line and HTTP. SVG is drawn by Graphviz's
``dot`` (Debian package ``graphviz``): without it those tests skip with one line naming the
package, and CI, which installs it, runs them with ``--require-graphviz`` (a skip is a failure)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from prov.model import ProvDocument

from helpers import run_cli
from provgraph import IngestOptions, InputError, ProvGraph
from provgraph.provdot import GRAPHVIZ_PACKAGE

LIGHTHOUSE = (
    "# Bell Rock Lighthouse\n\n"
    "The Bell Rock Lighthouse is off the coast of Angus, Scotland.\n"
    "It was built between 1807 and 1810 by Robert Stevenson.\n"
    "The tower is 35 metres tall.\n"
)
HEX_64 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def lighthouse(tmp_path: Path) -> tuple[ProvGraph, str]:
    path = tmp_path / "bell-rock.md"
    path.write_text(LIGHTHOUSE, encoding="utf-8")
    pg = ProvGraph.open(tmp_path / "store")
    report = pg.ingest(path, IngestOptions(title="Bell Rock Lighthouse"))
    yield pg, report.documents[0].key
    pg.close()


def _graphviz(request: pytest.FixtureRequest) -> None:
    if shutil.which("dot") is None:
        message = f"Graphviz's dot not found on PATH: apt-get install {GRAPHVIZ_PACKAGE} (Debian) to test SVG pictures"
        if request.config.getoption("--require-graphviz"):
            pytest.fail(f"{message}; --require-graphviz is set", pytrace=False)
        pytest.skip(message)


def _edges(dot: str) -> set[tuple[str, str, str]]:
    """The picture's edges as (from label, relation, to label)."""
    labels = dict(re.findall(r'^  (n\d+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M))
    found = re.findall(r'^  (n\d+) -> (n\d+) \[label="(\w+)"\]', dot, re.M)
    return {(labels[a], rel, labels[b]) for a, b, rel in found}


def test_the_picture_names_facts_passages_and_documents_and_joins_them_by_prov_relations(lighthouse):
    pg, key = lighthouse
    dot = pg.export_prov(key, format="dot").decode()
    edges = _edges(dot)
    fact = "Bell Rock Lighthouse · built-by · Robert Stevenson"
    passage = "“It was built between 1807 and 1810 by Robert Stevenson.”"
    document = "Bell Rock Lighthouse"
    activity = next(a for a, rel, _ in edges if rel == "used")
    assert activity.startswith("extraction activity\\n")
    assert (fact, "wasDerivedFrom", passage) in edges  # statement -> passage
    assert (passage, "wasQuotedFrom", document) in edges  # passage -> document
    assert (fact, "wasGeneratedBy", activity) in edges
    assert (activity, "used", document) in edges  # activity -> document
    assert (activity, "wasAssociatedWith", "provgraph " + _version()) in edges  # activity -> agent
    # no node is named by a hash: the 64-hex IRIs are only in tooltips
    for name in re.findall(r'\[label="((?:[^"\\]|\\.)*)"', dot):
        assert not HEX_64.search(name), name


def _version() -> str:
    from importlib.metadata import version

    return version("provgraph")


def test_prov_xml_json_and_n_hold_the_same_records(lighthouse):
    pg, key = lighthouse
    xml = ProvDocument.deserialize(content=pg.export_prov(key, format="provxml").decode(), format="xml")
    json_doc = ProvDocument.deserialize(content=pg.export_prov(key, format="provjson").decode(), format="json")
    assert xml == json_doc
    kinds = {type(r).__name__ for r in xml.get_records()}
    assert {"ProvEntity", "ProvActivity", "ProvAgent", "ProvDerivation", "ProvGeneration", "ProvUsage"} <= kinds
    provn = pg.export_prov(key, format="provn").decode()
    assert "wasDerivedFrom(" in provn and "prov:type='prov:Quotation'" in provn


def test_svg_is_drawn_by_graphviz(lighthouse, request):
    _graphviz(request)
    pg, key = lighthouse
    svg = pg.export_prov(key, format="svg")
    root = ElementTree.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Robert Stevenson" in texts and "wasQuotedFrom" in texts


def test_the_command_line_writes_every_prov_format_and_says_what_svg_needs(lighthouse, tmp_path):
    pg, key = lighthouse
    store = str(tmp_path / "store")
    pg.close()
    for fmt, start in [("provn", "document"), ("provjson", "{"), ("provxml", "<?xml"), ("dot", "digraph")]:
        done = run_cli("export", "--format", fmt, "--graph", key, "--store", store)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(start), fmt
    missing = run_cli("export", "--format", "provn", "--store", store)
    assert missing.returncode == 2 and "give --graph KEY" in missing.stderr
    # without Graphviz on PATH, SVG is a clear error naming the package, and nothing is written
    out = tmp_path / "picture.svg"
    bare = run_cli(
        "export", "--format", "svg", "--graph", key, "--store", store, "-o", str(out),
        env={"PATH": str(Path(sys.executable).parent)},
    )  # fmt: skip
    assert bare.returncode != 0 and f"Debian package {GRAPHVIZ_PACKAGE}" in bare.stderr
    assert "Traceback" not in bare.stderr and not out.exists()


def test_an_answers_provenance_is_its_record_with_its_claims_and_sources(lighthouse, tmp_path):
    pg, _ = lighthouse
    answer = pg.ask("Who built the Bell Rock Lighthouse?")
    assert answer.claims and answer.id
    dot = pg.export_prov(answer=answer.id[:12], format="dot").decode()
    edges = _edges(dot)
    question = "answer to “Who built the Bell Rock Lighthouse?”"
    claim = f"claim: {answer.claims[0].text}"
    by_kind = {(a.split("\\n")[0], r, b.split("\\n")[0]) for a, r, b in edges}  # activities without their time
    assert (question, "wasGeneratedBy", "verification activity") in by_kind
    assert (claim, "wasGeneratedBy", "verification activity") in by_kind
    assert ("verification activity", "used", "draft") in by_kind
    passage = "“It was built between 1807 and 1810 by Robert Stevenson.”"
    assert (passage, "wasAttributedTo", "Bell Rock Lighthouse") in by_kind
    assert any(a.startswith("claim: ") and r == "wasDerivedFrom" and b == passage for a, r, b in by_kind)
    document = ProvDocument.deserialize(
        content=pg.export_prov(answer=answer.id, format="provjson").decode(), format="json"
    )
    assert len(document.get_records()) > 10
    with pytest.raises(InputError, match="one source graph, one fact or one answer"):
        pg.export_prov("x", answer=answer.id)


def test_a_facts_provenance_is_its_evidence_in_every_source(tmp_path):
    from helpers import EXAMPLES

    fact = ("http://example.org/aspirin", "http://example.org/treats", "http://example.org/headache")
    with ProvGraph.open(tmp_path / "store") as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin facts", url="https://example.org/aspirin"))
        pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Trial", url="https://example.org/trial"))
        sources = {e.title for e in pg.evidence(*fact)}
        assert sources == {"Aspirin facts", "Trial"}
        dot = pg.export_prov(fact=fact, format="dot").decode()
    edges = _edges(dot)
    statements = {a for a, rel, b in edges if rel == "wasDerivedFrom" and b in sources}
    assert statements == {"aspirin · treats · headache"}  # one label, a node per source
    assert {b for a, rel, b in edges if a in statements and rel == "wasDerivedFrom"} >= sources
    assert len(re.findall(r'\[label="aspirin · treats · headache"', dot)) == 2
    assert len(re.findall(r'label="provgraph [^"]*", shape=house', dot)) == 1  # one agent, drawn once
    done = run_cli("export", "--format", "provn", "--fact", *fact, "--store", str(tmp_path / "store"))
    assert done.returncode == 0 and done.stdout.count("wasDerivedFrom(") >= 2, done.stderr
