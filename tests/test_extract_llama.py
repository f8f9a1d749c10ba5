"""``--extract llm`` against a real model server: llama.cpp's, through llama-cpp-python's server
on 127.0.0.1, with SmolLM2-135M-Instruct (tests/llama_server.py: the ``llama`` extra; without it
these tests skip with one line saying so, and CI runs them with ``--require-llama``).

A 135M-parameter model extracts little and often wrongly: these tests check what must hold
whatever it says. The server rejects ``json_schema`` with HTTP 500 and the extractor falls back to
JSON mode with the schema; every stored fact's evidence is the passage's own words at the stored
offsets; the provenance names the model; and reading the document again after a sentence was
added asks the model only about that sentence (counted in the server's own request log).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import llama_server
from llama_server import REQUEST_TIMEOUT, LlamaServer
from provgraph import Extraction, GenerationError, IngestOptions, ProvGraph
from provgraph.llm import OpenAISettings
from provgraph.models import ExtractionMethod

BELL_ROCK = (
    "# Bell Rock Lighthouse\n\n"
    "The Bell Rock Lighthouse is off the coast of Angus, Scotland.\n"
    "It was built between 1807 and 1810 by Robert Stevenson.\n"
    "The tower is 35 metres tall.\n"
)


@pytest.fixture(scope="module")
def llama(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    yield from llama_server.llama(request, tmp_path_factory.mktemp("llama"))


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
