"""Every example in the README runs; CI runs exactly the README's test command."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shlex
import subprocess

from helpers import ROOT, run_cli
from provgraph.trust.policy import load as load_policy

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


def test_readme_command_line_tour_runs(tmp_path):
    [tour] = blocks("bash")
    env = {"PROVGRAPH_STORE": str(tmp_path / "store")}
    for line in tour.strip().splitlines():
        args = shlex.split(line)
        redirect = None
        if ">" in args:
            redirect = tmp_path / args[args.index(">") + 1]
            args = args[: args.index(">")]
        assert args[0] == "provgraph"
        done = run_cli(*args[1:], env=env)
        assert done.returncode == 0, f"{line}\n{done.stderr}"
        if redirect is not None:
            redirect.write_text(done.stdout)
    assert (tmp_path / "all.trig").stat().st_size > 10_000


def test_readme_jsonl_example_is_valid(pg, tmp_path):
    [example] = blocks("json")
    records = [json.loads(line) for line in re.split(r"\n(?=\{)", example.strip())]
    path = tmp_path / "example.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    assert pg.ingest(path).statements == 3


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
