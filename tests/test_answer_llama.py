"""``ask --generator openai`` against a real model server: llama.cpp's, through llama-cpp-python's
server on 127.0.0.1, with SmolLM2-135M-Instruct (tests/llama_server.py: the ``llama`` extra;
without it these tests skip with one line saying so, and CI runs them with ``--require-llama``).

The server runs with llama-cpp-python's default context, 2,048 tokens, which the prompt of 40
evidence items overflowed. A 135M-parameter model answers little and often wrongly: the test
checks what must hold whatever it says. The server rejects ``json_schema`` with HTTP 500 and the
generator falls back to JSON mode with the schema, remembered for the next question; each prompt
fits the context with the reply's ``max_tokens`` (the server's log shows no 400); every claim that
reaches the user cites evidence that supports it, and no note of the model states a number the
evidence does not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import llama_server
from llama_server import REQUEST_TIMEOUT, LlamaServer
from provgraph import IngestOptions, ProvGraph
from provgraph.answer.openai_gen import OpenAIGenerator
from provgraph.llm import OpenAISettings

CONTEXT = 2048
LIGHTHOUSE = (
    "# Bell Rock Lighthouse\n\n"
    "The Bell Rock Lighthouse is off the coast of Angus, Scotland.\n"
    "It was built between 1807 and 1810 by Robert Stevenson.\n"
    "The tower is 35 metres tall.\n"
    "Its light can be seen from 35 nautical miles away.\n\n"
    "## History\n\n"
    "The rock had wrecked many ships before the lighthouse was built.\n"
    "John Rennie was the chief engineer of the project.\n"
    "The light was first lit on 1 February 1811.\n"
)


#: The fallback's note when the model's reply, not the server or the prompt, was what failed: a
#: real model's reply varies (one fell back once in a full run under load; its reason was not kept).
MODEL_FAILED = re.compile(
    r"The generator openai:smollm2 failed \(the model(?:'s output did not match the answer schema"
    r"|'s answer was truncated| returned an empty answer| refused to answer)"
)
#: The verifier's note on the generator's notes it left out (its count is provgraph's, not the model's).
LEFT_OUT = re.compile(r"\d+ of the generator's notes \(limitations, suggested questions\) were left out: ")


@pytest.fixture(scope="module")
def llama(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    yield from llama_server.llama(request, tmp_path_factory.mktemp("llama"), n_ctx=CONTEXT)


def test_a_real_model_answers_within_its_context_and_only_verified_text_reaches_the_user(
    llama: LlamaServer, tmp_path: Path
) -> None:
    path = tmp_path / "bell-rock.md"
    path.write_text(LIGHTHOUSE, encoding="utf-8")
    settings = OpenAISettings(
        model="smollm2", base_url=llama.url, timeout=REQUEST_TIMEOUT, max_retries=0, context_tokens=CONTEXT
    )
    generator = OpenAIGenerator(settings)
    with ProvGraph.open(tmp_path / "store") as pg:
        pg.ingest(path, IngestOptions(title="Bell Rock Lighthouse"))
        answers = [
            pg.ask(q, generator=generator) for q in ("Who built the Bell Rock Lighthouse?", "How tall is the tower?")
        ]
    # the 500 on json_schema once, then JSON mode with the schema for both questions; no 400
    assert llama.completions() == [500, 200, 200], llama.crashed()
    # the first prompt, as the server's tokenizer counted it, left room for the reply's 512 tokens
    first = int(re.findall(r"prompt eval time = .*? / +(\d+) tokens", llama.log.read_text())[0])
    assert first + CONTEXT // 4 <= CONTEXT
    for answer in answers:
        # a model's answer, or the extractive one after the model's own reply failed (cut at its
        # budget, not matching the schema, empty, refused): never a failure of the server or of the
        # prompt's size
        assert answer.generator == "openai:smollm2" or any(MODEL_FAILED.match(t) for t in answer.limitations), (
            answer.generator,
            answer.limitations,
        )
        cited = {c.id for c in answer.citations}
        for claim in answer.claims:
            assert claim.verified and claim.supporting_citations and set(claim.supporting_citations) <= cited
        for note in [*answer.limitations, *answer.query_refinements]:
            # provgraph's own notes: its count of the notes it dropped, and why the model's reply
            # failed (a parse error's "line 2 column 0" is where, not a value the model stated)
            if LEFT_OUT.match(note) or MODEL_FAILED.match(note):
                continue
            # as values: "35.0 metres" states 35, which the text does
            assert _values(note) <= _values(LIGHTHOUSE + answer.question), note


def _values(text: str) -> set[float]:
    return {float(n) for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)", text)}  # not the 2 of "smollm2"
