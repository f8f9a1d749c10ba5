"""Start-up: `import provgraph` and `provgraph --help` import none of the heavy libraries; each
command imports what it uses when it runs (the server, the LLM client, pySHACL, rdflib).

Checked by what a fresh interpreter has in ``sys.modules``, not by timing (bench/ measures time)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import ROOT

#: Imported only by the commands that use them.
SERVER = ["fastapi", "starlette", "uvicorn"]
LLM = ["openai", "httpx"]
VALIDATION = ["pyshacl", "rdflib"]
OTHER = ["prov", "bs4", "pypdf", "pint", "dateparser"]  # provenance export; documents and their facts
#: The English lexicon word keys read (with numpy, most of a second per command): only asking needs it.
WORDS = ["lemminflect"]


def _imported(code: str, candidates: list[str]) -> list[str]:
    probe = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted(m for m in {candidates!r} if m in sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "code",
    [
        "import provgraph",
        "import provgraph.cli",
        "import contextlib, io\nfrom provgraph.cli import app\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    app(['--help'], standalone_mode=False)",
    ],
    ids=["import provgraph", "import provgraph.cli", "provgraph --help"],
)
def test_importing_provgraph_or_its_help_loads_no_heavy_library(code):
    assert _imported(code, [*SERVER, *LLM, *VALIDATION, *OTHER, "pydantic"]) == []


def test_the_api_loads_neither_the_server_nor_the_llm_client_nor_shacl():
    code = "from provgraph import ProvGraph\nProvGraph.memory().sources()"
    assert _imported(code, [*SERVER, *LLM, *VALIDATION, *OTHER, *WORDS]) == []


def test_the_lexicon_is_loaded_by_asking():
    code = "from provgraph import ProvGraph\nProvGraph.memory().ask('What does aspirin treat?')"
    assert _imported(code, WORDS) == WORDS


def test_names_are_still_there_on_first_use():
    code = "import provgraph\nprovgraph.ProvGraph, provgraph.InputFormat, provgraph.GroundedAnswer"
    assert "pydantic" in _imported(code, ["pydantic"])
