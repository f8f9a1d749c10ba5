"""Every example in the README runs; CI runs exactly the README's test command."""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from rich.console import Console

import provgraph
from helpers import ROOT, live_server, run_cli
from provgraph import ProvGraph
from provgraph.cli.demo import run_demo
from provgraph.http import ServerSettings
from provgraph.trust.policy import load as load_policy

TOKEN = "docs-example-token"

README = (ROOT / "README.md").read_text("utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_readme_starts_with_the_demo_and_test_commands():
    first, second = blocks("sh")[:2]
    assert README.index(first) < README.index("## ")
    assert "provgraph demo" in first and "pip install" in first
    assert "pytest" in second and "pip install" in second


def test_ci_runs_the_readme_test_command():
    test_command = blocks("sh")[1].strip()
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert test_command in ci


def test_readme_python_examples_run():
    examples = blocks("python")
    assert len(examples) >= 2
    for code in examples:
        namespace: dict[str, object] = {}
        exec(compile(code, "README.md", "exec"), namespace)


def _shell_env(tmp_path: Path) -> dict[str, str]:
    """A shell where `provgraph` is this interpreter's provgraph, as a user has it after pip install."""
    shim = tmp_path / "bin" / "provgraph"
    shim.parent.mkdir(exist_ok=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m provgraph "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    package = str(Path(provgraph.__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if k not in ("PROVGRAPH_STORE", "PROVGRAPH_TOKEN")}
    env["PATH"] = f"{shim.parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, env.get("PYTHONPATH")) if p)
    return env


@pytest.fixture(scope="module")
def toured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's command-line tour, run as pasted by bash in a copy of the project's directory
    (its data/); returns that directory, which holds the store the tour wrote."""
    [tour] = blocks("bash")
    base = tmp_path_factory.mktemp("tour")
    project = base / "project"
    project.mkdir()
    (project / "data").symlink_to(ROOT / "data")
    done = subprocess.run(
        ["bash", "-e", "-x", "-c", tour],
        cwd=project,
        env=_shell_env(base),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return project


def test_readme_command_line_tour_runs(toured):
    assert (toured / "provgraph-data").is_dir()  # the default store, where the serve example looks
    assert (toured / "all.trig").stat().st_size > 10_000


def test_readme_serve_example_serves_the_tour_store(toured):
    """The serve example, pasted after the tour, serves what the tour wrote; the /docs example
    body of POST /qa answers from it (its filters keep the bundled data)."""
    [serve] = [b for b in blocks("sh") if "provgraph serve" in b]
    assert "--port 8000" in serve
    # the one change: any free port, not 8000 (the server announces the one it took)
    command = serve.replace("--port 8000", "--port 0")
    server = subprocess.Popen(
        ["bash", "-e", "-c", f"exec 2>&1\n{command}"],
        cwd=toured,
        env=_shell_env(toured.parent),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        announced = server.stdout.readline()
        found = re.search(r"on (http://127\.0\.0\.1:\d+)/sparql \(writes need the token\)", announced)
        assert found, announced
        with httpx.Client(base_url=found.group(1), timeout=120) as client:
            titles = {s["title"] for s in client.get("/sources").json()}
            assert {"Aspirin facts", "Aspirin trial report", "Amsterdam (en.wikipedia.org)"} <= titles
            body = _example(client.get("/openapi.json").json(), "/qa", "post")
            answer = client.post("/qa", json=body)
        assert answer.status_code == 200, answer.text
        assert body["filters"] and not answer.json()["abstained"]
        assert "Sources disagree on the population total of Amsterdam" in answer.json()["claims"][0]["text"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    assert server.returncode == 0


def test_readme_jsonl_example_is_one_record_per_line_and_ingests_as_pasted(tmp_path):
    [example] = blocks("json")
    records = [json.loads(line) for line in example.strip().splitlines()]
    assert len(records) == 3 and records[2]["subject"] == "_:b1"
    path = tmp_path / "example.jsonl"
    path.write_text(example, encoding="utf-8")
    store = str(tmp_path / "store")
    done = run_cli("ingest", str(path), "--store", store)
    assert done.returncode == 0, done.stderr
    assert "3 statements" in done.stdout
    # the blank node's label is found and followed, never taken for an IRI
    asked = run_cli("ask", "What is aspirine?", "--json", "--store", store)
    assert asked.returncode == 0, asked.stderr
    with ProvGraph.open(store, read_only=True) as pg:
        pack = pg.retrieve("What is aspirine?")
    assert any(e.iri.startswith("_:") and e.label == "aspirine" for e in pack.entities)


# ---------------------------------------------------------------------- the OpenAPI document's examples


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _example(document: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    """The JSON body Swagger UI fills in at /docs: each property's first example, else its default."""
    content = document["paths"][path][method]["requestBody"]["content"]["application/json"]
    if "example" in content:
        return content["example"]
    schema = _resolve(document, content["schema"])
    body = {}
    for name, prop in schema["properties"].items():
        if prop.get("examples"):
            body[name] = prop["examples"][0]
        elif prop.get("default") is not None:
            body[name] = prop["default"]
    return body


def _parameter_examples(operation: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for parameter in operation.get("parameters", []):
        values = [e["value"] for e in parameter.get("examples", {}).values()]
        values += [parameter["example"]] if "example" in parameter else []
        values += parameter.get("schema", {}).get("examples", [])
        if values:
            found[parameter["name"]] = values
    return found


def _reads() -> list[tuple[str, str, str]]:
    """(path, parameter, example) of every GET example of the document, but the Graph Store's
    (whose example graph is written first: see the test of /store)."""
    with ProvGraph.memory() as pg:
        from provgraph.http import create_app

        document = create_app(pg, ServerSettings(query_workers=0)).openapi()
    return [
        (path, name, value)
        for path, operations in document["paths"].items()
        if "get" in operations and not path.startswith("/store")
        for name, values in _parameter_examples(operations["get"]).items()
        for value in values
    ]


@pytest.fixture(scope="module")
def bundled() -> Iterator[tuple[httpx.Client, dict[str, Any]]]:
    """A server over the bundled data (as the demo ingests it), and its OpenAPI document."""
    with ProvGraph.memory() as pg:
        run_demo(pg, Console(file=io.StringIO()))
        settings = ServerSettings(token=TOKEN, query_workers=0)
        with live_server(pg, settings) as url, httpx.Client(base_url=url, timeout=120) as client:
            yield client, client.get("/openapi.json").json()


@pytest.mark.parametrize(("path", "name", "value"), _reads(), ids=lambda v: str(v)[:40])
def test_openapi_read_examples_answer_on_the_bundled_data(bundled, path, name, value):
    client, document = bundled
    # the other parameters at their first example, as Swagger UI fills them in
    params = {n: v[0] for n, v in _parameter_examples(document["paths"][path]["get"]).items()}
    params[name] = value
    url = path
    for n in list(params):
        if "{" + n + "}" in url:
            url = url.replace("{" + n + "}", quote(params.pop(n), safe=""))
    answered = client.get(url, params=params)
    assert answered.status_code == 200, f"GET {url} {params}: {answered.text}"


def test_openapi_evidence_and_conflicts_examples_find_what_they_name(bundled):
    client, document = bundled
    evidence = {n: v[0] for n, v in _parameter_examples(document["paths"]["/evidence"]["get"]).items()}
    assert [e["title"] for e in client.get("/evidence", params=evidence).json()]
    conflicts = {n: v[0] for n, v in _parameter_examples(document["paths"]["/conflicts"]["get"]).items()}
    assert len(client.get("/conflicts", params=conflicts).json()) == 1


def test_openapi_qa_example_answers_on_the_bundled_data(bundled):
    client, document = bundled
    body = _example(document, "/qa", "post")
    answered = client.post("/qa", json=body)
    assert answered.status_code == 200, answered.text
    assert body["filters"] and not answered.json()["abstained"], body


def test_openapi_graph_store_examples_write_read_and_delete_a_graph(bundled):
    client, document = bundled
    operations = document["paths"]["/store"]
    graph = _parameter_examples(operations["put"])["graph"][0]
    turtle = operations["put"]["requestBody"]["content"]["text/turtle"]["example"]
    auth = {"Authorization": f"Bearer {TOKEN}"}
    headers = {**auth, "Content-Type": "text/turtle"}
    assert client.put("/store", params={"graph": graph}, content=turtle, headers=headers).status_code in (201, 204)
    assert client.get("/store", params={"graph": graph}, headers={"Accept": "text/turtle"}).status_code == 200
    assert client.delete("/store", params={"graph": graph}, headers=auth).status_code in (200, 204)


def test_console_script_points_at_the_cli():
    [entry] = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "provgraph"]
    assert callable(entry.load())
    done = subprocess.run(["python3", "-m", "provgraph", "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "ingest" in done.stdout


GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"


def test_readme_policy_example_loads(pg, tmp_path):
    [policy] = blocks("turtle")
    path = tmp_path / "policy.ttl"
    path.write_text(policy, encoding="utf-8")
    assert pg.add_ontology(path) == 8
    loaded = load_policy(pg.backend)
    assert loaded.functional >= {"http://dbpedia.org/ontology/populationTotal", GEO + "lat"}
    assert loaded.disjoint and loaded.tolerances[GEO + "lat"].absolute == 0.02
    assert loaded.case_insensitive == {"http://example.org/brandName"}
    assert loaded.aliases == {"http://example.org/aspirin": frozenset({"ASA"})}
