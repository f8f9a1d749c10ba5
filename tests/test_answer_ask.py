"""Grounded answers end to end, as a user asks: ``pg.ask``, ``provgraph ask``, ``POST /qa`` and
``POST /qa/verify``, and ``provgraph eval`` on HotpotQA."""

from __future__ import annotations

import json

import httpx
import pytest

from helpers import (
    DOUBLES_ON_VIRTUOSO,
    POPULATION_POLICY,
    ROOT,
    TEST_DATA,
    ingest_aspirin,
    ingest_capitals_cli,
    live_server,
    run_cli,
    write_policy,
)
from provgraph import IngestOptions, ProvGraph
from provgraph.answer.models import (
    AnswerConfidence,
    AskFilters,
    Detail,
    DraftAnswer,
    DraftClaim,
    EvidenceKind,
    GroundedAnswer,
    ReasonCode,
)

EXAMPLES = ROOT / "data" / "examples"


def test_population_of_amsterdam_states_the_disagreement_with_sources_and_rationale(capitals):
    answer = capitals.ask("What is the population of Amsterdam?")
    assert answer.confidence is not AnswerConfidence.INSUFFICIENT
    first = answer.claims[0]
    assert first.text.startswith("Sources disagree on the population total of Amsterdam:")
    assert "820654" in first.text and "en.wikipedia.org" in first.text
    assert "while" in first.text and "Preferred: 820654" in first.text
    assert first.verified
    # every citation resolves: to a statement or passage, its document and its URL
    cited = {c.id: c for c in answer.citations}
    for claim in answer.claims:
        for cid in claim.supporting_citations:
            assert cid in cited
    statements = [c for c in answer.citations if c.kind is EvidenceKind.STATEMENT]
    assert statements and all(c.statement and c.document and c.url for c in statements)
    assert all("wikipedia.org" in (c.url or "") for c in statements)
    # a bibliography without duplicates, and the used-vs-retrieved count
    assert len({r.document for r in answer.references}) == len(answer.references)
    assert answer.sources_summary == f"{len(answer.sources_used)} used / {answer.sources_retrieved} retrieved"
    assert all(s.reason for s in answer.sources_used)


def test_ask_is_deterministic_and_ids_are_stable(capitals):
    one = capitals.ask("What is the population of Amsterdam?")
    two = capitals.ask("What is the population of Amsterdam?")
    assert one.id != two.id  # each ask is recorded on its own
    assert one.model_dump(exclude={"id"}) == two.model_dump(exclude={"id"})


def test_unknown_question_abstains_with_refinements(capitals):
    answer = capitals.ask("Who composed the Moonlight Sonata?")
    assert answer.confidence is AnswerConfidence.INSUFFICIENT and answer.abstained
    assert answer.claims == []
    assert answer.query_refinements


def test_filters_exclude_sources(capitals):
    answer = capitals.ask("What is the population of Amsterdam?", filters=AskFilters(max_tier=2))
    assert answer.abstained
    assert any("tier" in s for s in answer.filter_suggestions + answer.query_refinements)


def test_revoked_source_never_appears(tmp_path):
    with ProvGraph.memory() as pg:
        report = pg.ingest(
            EXAMPLES / "aspirin-note.md", IngestOptions(title="Aspirin note", url="https://example.org/note")
        )
        before = pg.ask("What does aspirin reduce?")
        assert any(r.title == "Aspirin note" for r in before.references)
        pg.revoke(report.documents[0].document, reason="test")
        after = pg.ask("What does aspirin reduce?")
        assert after.abstained and not any(r.title == "Aspirin note" for r in after.references)


def test_cli_ask_readable_and_json(tmp_path):
    store = str(tmp_path / "store")
    ingest = ingest_capitals_cli(store)
    assert ingest.returncode == 0, ingest.stderr
    policy = write_policy(tmp_path, POPULATION_POLICY)
    assert run_cli("ontology", "add", str(policy), "--store", store).returncode == 0
    readable = run_cli("ask", "What is the population of Amsterdam?", "--store", store)
    assert readable.returncode == 0, readable.stderr
    text = readable.stdout
    assert "Sources disagree on the population total of Amsterdam" in text
    assert "[1" in text and "References" in text
    assert text.index("Sources disagree") < text.index("References")
    assert "used /" in text
    as_json = run_cli("ask", "What is the population of Amsterdam?", "--json", "--detail", "detailed", "--store", store)
    assert as_json.returncode == 0, as_json.stderr
    answer = GroundedAnswer.model_validate(json.loads(as_json.stdout))
    assert answer.evidence and answer.claims
    bad = run_cli("ask", "x", "--generator", "gpt", "--store", store)
    assert bad.returncode == 2 and "extractive" in bad.stderr


def test_http_qa_and_verify(capitals):
    with live_server(capitals) as base:
        brief = httpx.post(f"{base}/qa", json={"question": "What is the population of Amsterdam?"}, timeout=30)
        assert brief.status_code == 200, brief.text
        answer = GroundedAnswer.model_validate(brief.json())
        assert answer.claims and answer.evidence is None
        detailed = httpx.post(
            f"{base}/qa", json={"question": "What is the population of Amsterdam?", "detail": "detailed"}, timeout=30
        )
        assert detailed.status_code == 200 and detailed.json()["evidence"]
        empty = httpx.post(f"{base}/qa", json={"question": ""}, timeout=30)
        assert empty.status_code == 400 and "question" in empty.json()["error"]
        long = httpx.post(f"{base}/qa", json={"question": "x", "detail": "long"}, timeout=30)
        assert long.status_code == 400 and "detail" in long.json()["error"]
        # a candidate answer citing ids outside the pack: the verifier removes what they claim
        pack = capitals.retrieve("What is the population of Amsterdam?")
        good = next(i for i in pack.items if i.kind is EvidenceKind.STATEMENT and "820654" in (i.object or ""))
        draft = DraftAnswer(
            answer_summary="Amsterdam has 820,654 inhabitants.",
            claims=[
                DraftClaim(text="Amsterdam has a population total of 820654.", supporting_citations=[good.id]),
                DraftClaim(text="Amsterdam has 2 million inhabitants.", supporting_citations=["ev-000000000000"]),
            ],
        )
        verified = httpx.post(
            f"{base}/qa/verify", json={"answer": draft.model_dump(mode="json"), "pack": pack.model_dump(mode="json")}
        )
        assert verified.status_code == 200, verified.text
        result = GroundedAnswer.model_validate(verified.json())
        assert [c.text for c in result.claims] == ["Amsterdam has a population total of 820654."]
        assert {i.code for i in result.removed_claims} >= {ReasonCode.DANGLING_CITATION}


def test_verify_checks_a_draft_against_its_pack_as_ask_does(capitals):
    pack = capitals.retrieve("What is the population of Amsterdam?")
    good = next(i for i in pack.items if i.kind is EvidenceKind.STATEMENT and "820654" in (i.object or ""))
    draft = DraftAnswer(
        answer_summary="Amsterdam has 820,654 inhabitants.",
        claims=[
            DraftClaim(text="Amsterdam has a population total of 820654.", supporting_citations=[good.id]),
            DraftClaim(text="Amsterdam has 2 million inhabitants.", supporting_citations=["ev-000000000000"]),
        ],
    )
    result = capitals.verify(draft, pack, generator="a test")
    assert [c.text for c in result.claims] == ["Amsterdam has a population total of 820654."]
    assert {i.code for i in result.removed_claims} >= {ReasonCode.DANGLING_CITATION}
    assert result.generator == "a test"


def test_build_generator_applies_the_overrides_of_the_command_line(monkeypatch):
    from provgraph import ExtractiveGenerator, GeneratorKind

    monkeypatch.setenv("PROVGRAPH_LLM_MODEL", "from-the-environment")
    assert isinstance(ProvGraph.build_generator(GeneratorKind.EXTRACTIVE), ExtractiveGenerator)
    built = ProvGraph.build_generator(GeneratorKind.OPENAI, model="given", base_url="http://127.0.0.1:9/v1")
    assert (built.settings.model, built.settings.base_url) == ("given", "http://127.0.0.1:9/v1")
    assert ProvGraph.build_generator(GeneratorKind.OPENAI).settings.model == "from-the-environment"


def test_detailed_answer_carries_the_cited_evidence(capitals):
    answer = capitals.ask("What is the population of Amsterdam?", detail=Detail.DETAILED)
    assert answer.evidence is not None
    assert {e.id for e in answer.evidence} == {c.id for c in answer.citations}


def test_cli_eval_on_hotpotqa(tmp_path):
    data = TEST_DATA / "hotpotqa-dev-10" / "hotpot_dev_distractor_v1.json"
    result = run_cli("eval", str(data), "--json", "--record", "--store", str(tmp_path / "store"))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # --record stored the figures printed, for the answer dashboard
    with ProvGraph.open(tmp_path / "store", read_only=True) as stored:
        evaluation = stored.answer_metrics().evaluation
    assert evaluation is not None and evaluation.dataset == "hotpot_dev_distractor_v1.json"
    assert evaluation.with_gold.model_dump(exclude={"results"}) == report["with_gold"]
    assert evaluation.without_gold.model_dump(exclude={"results"}) == report["without_gold"]
    with_gold, without = report["with_gold"], report["without_gold"]
    assert with_gold["questions"] == without["questions"] == 10
    # every drafted citation resolves, and the verifier keeps what the evidence supports
    assert with_gold["dangling_rate"] == 0 and with_gold["citation_recall"] == 1.0
    # floors under the figures of the first ten questions (deterministic: 0.5, 0.73, 0.9, 0.6)
    assert with_gold["sentence_recall"] >= 0.45 and with_gold["sentence_precision"] >= 0.6
    assert with_gold["answered_with_gold"] >= 0.8 and without["abstained_without_gold"] >= 0.5
    assert with_gold["answer_found"] >= 0.25  # 2 of the 7 that are not yes/no questions
    # what was answered without the gold paragraphs and still gave the gold answer: no more than
    # was answered at all
    assert 0 <= without["answered_right_without_gold"] <= 1 - without["abstained_without_gold"]
    # of the three yes/no questions, one verdict (right), and no wrong one
    assert with_gold["verdict_right"] >= 0.3 and with_gold["verdict_wrong"] == 0


def test_answers_given_without_the_gold_are_told_apart_by_whether_they_hold_the_answer():
    from provgraph.answer.evaluate import QuestionResult, summarise

    def asked(*, abstained: bool, found: bool | None = None, verdict: bool | None = None) -> QuestionResult:
        return QuestionResult(
            question="q",
            abstained=abstained,
            expected_abstain=True,
            drafted_claims=1,
            kept_claims=1,
            citation_recall=None,
            citation_precision=None,
            dangling=0,
            citations=1,
            answer_found=found,
            verdict_right=verdict,
        )

    report = summarise(
        [
            asked(abstained=True),
            asked(abstained=False, found=True),  # a distractor said it
            asked(abstained=False, verdict=True),
            asked(abstained=False, found=False),  # answered, and wrongly
        ]
    )
    assert report.abstained_without_gold == 0.25
    assert report.answered_right_without_gold == 0.5


@pytest.mark.backends(
    "embedded",
    "oxigraph",
    reason=DOUBLES_ON_VIRTUOSO,
)
def test_an_answer_keeps_to_the_property_asked_about(capitals):
    country = capitals.ask("What country is Vienna in?")
    assert [c.verified for c in country.claims] == [True]
    assert country.claims[0].text.startswith("Sources state different values of the country of Vienna: Austria (")
    assert "lat" not in country.claims[0].text and "population" not in country.claims[0].text
    # elevation is not declared functional: the values differ, and the answer says so with every
    # source (the data: it and pl 28.0, ca and ru 33.0)
    elevation = capitals.ask("What is the elevation of Paris?")
    assert [c.text for c in elevation.claims] == [
        "Sources state different values of the elevation of Paris: "
        "28 (Paris (it.wikipedia.org) and Paris (pl.wikipedia.org)); "
        "33 (Paris (ca.wikipedia.org) and Paris (ru.wikipedia.org))."
    ]
    assert elevation.claims[0].verified and len(elevation.claims[0].supporting_citations) == 4


def test_passages_answer_what_no_fact_states():
    with ProvGraph.memory() as pg:
        ingest_aspirin(pg)
        pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(title="Aspirin trial", url="https://example.org/trial"))
        pg.ingest(
            EXAMPLES / "aspirin-note.md", IngestOptions(title="Aspirin note", url="https://example.org/note", tier=5)
        )
        safe = pg.ask("Is aspirin safe for children?")
        # the passages about children, not every fact about aspirin (nor its label)
        assert safe.claims and all("children" in c.text for c in safe.claims)
        treats = pg.ask("What does aspirin treat?")
        assert treats.claims[0].text.startswith("It is established that aspirin treats headache")
        assert not any("label" in c.text or "Reye" in c.text for c in treats.claims)


def test_passages_of_the_document_a_question_names_come_first(tmp_path) -> None:
    """A question that names a document by its title is about that document: its passage must
    rank first even though another document's passage matches the question's words a little
    better (it says "copper" twice), as it does when no title is named."""
    harbor = tmp_path / "harbor.md"
    harbor.write_text("Copper prices rose in the spring.\n", encoding="utf-8")
    mining = tmp_path / "mining.md"
    mining.write_text("Copper prices and copper output rose.\n", encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(harbor, IngestOptions(title="Harbor Report", id="harbor"))
        pg.ingest(mining, IngestOptions(title="Mining Digest", id="mining"))

        def ranked(question: str) -> list[str | None]:
            return [i.title for i in pg.retrieve(question).items if i.kind is EvidenceKind.PASSAGE]

        assert ranked("Did copper prices rise?") == ["Mining Digest", "Harbor Report"]
        assert ranked("What does the Harbor Report say about copper prices?") == ["Harbor Report", "Mining Digest"]


# ---------------------------------------------------------------------- blank nodes, citations in order

WIDGET = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix ex: <http://example.org/> .
[] rdfs:label "Widget" ; ex:weightKg 3 .
"""
#: What a labelled blank node's weight is, as the extractive generator phrases the fact.
WIDGET_FACT = "the weight kg of Widget is 3"


@pytest.fixture
def widget(tmp_path):
    path = tmp_path / "widget.ttl"
    path.write_text(WIDGET, encoding="utf-8")
    return path


def test_a_labelled_blank_node_is_answered(widget):
    with ProvGraph.memory() as pg:
        pg.ingest(widget, IngestOptions(title="Widget sheet"))
        answer = pg.ask("What is the weight of Widget?", detail=Detail.DETAILED)
    assert [c.text for c in answer.claims] == [f"According to Widget sheet, {WIDGET_FACT}."]
    assert answer.claims[0].verified
    assert [r.title for r in answer.references] == ["Widget sheet"]
    # the blank node is named as the store holds it, never as an IRI
    assert answer.evidence and answer.evidence[0].subject.startswith("_:")


def test_cli_asks_about_a_labelled_blank_node(widget, tmp_path):
    store = str(tmp_path / "store")
    assert run_cli("ingest", str(widget), "--title", "Widget sheet", "--quiet", "--store", store).returncode == 0
    done = run_cli("ask", "What is the weight of Widget?", "--store", store)
    assert done.returncode == 0, done.stderr
    assert f"{WIDGET_FACT} [1]" in done.stdout and "error" not in done.stderr


def test_http_qa_about_a_labelled_blank_node(widget):
    with ProvGraph.memory() as pg:
        pg.ingest(widget, IngestOptions(title="Widget sheet"))
        with live_server(pg) as base:
            done = httpx.post(f"{base}/qa", json={"question": "What is the weight of Widget?"}, timeout=30)
    assert done.status_code == 200, done.text
    assert [c["text"] for c in done.json()["claims"]] == [f"According to Widget sheet, {WIDGET_FACT}."]


def test_a_blank_node_object_is_followed_to_its_facts(tmp_path):
    path = tmp_path / "dose.ttl"
    path.write_text(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix ex: <http://example.org/> .\n"
        'ex:aspirin rdfs:label "Aspirin" ; ex:dose [ ex:milligrams 500 ] .\n',
        encoding="utf-8",
    )
    with ProvGraph.memory() as pg:
        pg.ingest(path, IngestOptions(title="Dosage"))
        pack = pg.retrieve("What is the dose of Aspirin?")
    hop2 = [i for i in pack.items if i.hop == 2]
    assert [i.predicate for i in hop2] == ["http://example.org/milligrams"]
    assert hop2[0].subject.startswith("_:")


def test_cli_citations_under_a_reference_are_in_order(tmp_path):
    path = tmp_path / "facts.jsonl"
    path.write_text(
        '{"subject": "http://example.org/aspirin", "predicate": "http://example.org/treats", '
        '"object": "http://example.org/headache", "passage": {"text": "Aspirin relieved tension headache '
        'in 72% of patients."}, "confidence": 0.86, "method": "llm_extraction"}\n',
        encoding="utf-8",
    )
    store = str(tmp_path / "store")
    assert run_cli("ingest", str(path), "--title", "Trial", "--quiet", "--store", store).returncode == 0
    done = run_cli("ask", "What does aspirin treat?", "--store", store)
    assert done.returncode == 0, done.stderr
    references = done.stdout.split("References", 1)[1]
    marks = [line.split()[0] for line in references.splitlines() if line.strip().startswith("[")]
    assert marks == sorted(marks) and len(marks) == 2


def test_http_qa_failing_inside_is_a_problem_body(widget, monkeypatch):
    def broken(*_args: object, **_kwargs: object) -> GroundedAnswer:
        raise RuntimeError("a bug in the answering path")

    with ProvGraph.memory() as pg:
        pg.ingest(widget, IngestOptions(title="Widget sheet"))
        monkeypatch.setattr(ProvGraph, "ask", broken)
        monkeypatch.setattr(ProvGraph, "retrieve", broken)
        with live_server(pg) as base:
            failed = httpx.post(f"{base}/qa", json={"question": "What is the weight of Widget?"}, timeout=30)
    assert failed.status_code == 500
    assert failed.headers["content-type"] == "application/problem+json"
    body = failed.json()
    assert body["status"] == 500 and body["request_id"] and "a bug" not in failed.text


def test_what_a_drug_treats_is_what_it_is_used_for() -> None:
    """ "What is aspirin used for?" abstained on the fact "aspirin treats headache": no claim said a
    word of a use, nor is a use a value of a type (a date, a place ...). "treats" speaks of a use.
    "What does aspirin reduce?" is low: the sample says nothing of what it reduces."""
    with ProvGraph.memory() as pg:
        ingest_aspirin(pg)
        used = pg.ask("What is aspirin used for?", record=False)
        reduce = pg.ask("What does aspirin reduce?", record=False)
    assert used.claims[0].text == "It is established that aspirin treats headache.", used.claims
    assert used.confidence.value == "high", used.limitations
    assert reduce.confidence.value == "low", reduce.claims
