"""Evaluation of grounded answers on HotpotQA, with metrics as ALCE (Gao et al., 2023) defines
them, the verifier's support check standing in for ALCE's NLI judge.

The corpus: every HotpotQA paragraph becomes one source document (key ``hotpot:<title>``, a
Wikipedia URL) whose passages are its sentences, in order, so each cited passage maps back to a
(title, sentence index) pair of the gold supporting facts. A question is asked with a filter on its
own ten paragraphs (HotpotQA's distractor setting) and, for abstention, on its eight distractors
only (the gold paragraphs removed).

Metrics, averaged over questions unless said otherwise:

- citation recall (per drafted claim): the claim's citations, together, support it;
- citation precision (per citation): the citation supports the claim alone, or the claim is no
  longer supported without it (ALCE's definition of a relevant citation);
- claim coverage: share of drafted claims the verifier keeps;
- dangling-citation rate: share of drafted citations that are not in the evidence pack;
- sentence recall / precision: cited sentences against the gold supporting sentences;
- answer found: the gold answer appears in the answer's claims (questions whose answer is not
  "yes" or "no"; an abstention counts as not found): the answer is there to read, though the
  extractive generator states sentences, not a short answer;
- yes/no verdicts (questions whose answer is "yes" or "no"): share whose first claim opening
  with "Yes" or "No" gives the gold answer, and share where it gives the other one;
- abstention correctness: answered with gold paragraphs, abstained without them; and of the
  questions asked without them, the share answered all the same with the gold answer or verdict
  in the claims (a distractor said it: answering was no harm).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from provgraph.answer.base import Generator, SupportJudge
from provgraph.answer.models import AnswerConfidence, AskFilters, DraftAnswer, EvidencePack, GroundedAnswer
from provgraph.answer.text import normalise, words
from provgraph.errors import InputError
from provgraph.ingest.options import IngestOptions
from provgraph.models import Extraction

HOTPOT_URL = "https://en.wikipedia.org/wiki/"
#: Every passage of the current sources, with its document's key and its offset: in document
#: order, the n-th passage of a paragraph is its n-th sentence.
INGESTED_PASSAGES = """SELECT ?key ?passage ?start WHERE {
  GRAPH pgid:catalog { ?g pg:status pg:Current ; pg:document ?d . ?d pg:documentKey ?key }
  GRAPH ?g { ?passage a pg:Passage ; pg:inDocument ?d ; pg:startOffset ?start } }"""


class HotpotQuestion(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str
    answer: str
    type: str
    paragraphs: list[tuple[str, list[str]]] = Field(description="(title, sentences)")
    supporting: list[tuple[str, int]] = Field(description="gold (title, sentence index)")

    @property
    def gold_titles(self) -> list[str]:
        return list(dict.fromkeys(t for t, _ in self.supporting))


def load_hotpot(path: str | Path, *, limit: int | None = None) -> list[HotpotQuestion]:
    """Questions of a HotpotQA file (the Hugging Face layout of the distractor dev set)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read HotpotQA questions: {exc}", file=str(path)) from exc
    out = []
    for record in raw[:limit]:
        context = record["context"]
        paragraphs = [
            (title, [s.strip() for s in sentences if s.strip()])
            for title, sentences in zip(context["title"], context["sentences"], strict=True)
        ]
        facts = record["supporting_facts"]
        out.append(
            HotpotQuestion(
                question=record["question"],
                answer=record["answer"],
                type=record["type"],
                paragraphs=paragraphs,
                supporting=list(zip(facts["title"], facts["sent_id"], strict=True)),
            )
        )
    return out


def document_key(title: str) -> str:
    return f"hotpot:{title}"


def ingest_hotpot(
    pg: object,
    questions: Sequence[HotpotQuestion],
    *,
    progress: Callable[[int, int], None] | None = None,
    extract: Extraction = Extraction.NONE,
) -> dict[str, tuple[str, int]]:
    """Ingest every paragraph of ``questions`` once, one document each, and return the passage
    IRI -> (title, sentence index) map. Sentences are separated by blank lines so that each is
    exactly one passage; no facts are taken from them unless ``extract`` says so (the figures
    have always measured answering from passages; ``bench/answers.py --extract rules`` measures
    it with the facts of the rules too)."""
    from provgraph.graph import ProvGraph

    assert isinstance(pg, ProvGraph)
    paragraphs: dict[str, list[str]] = {}
    for q in questions:
        for title, sentences in q.paragraphs:
            paragraphs.setdefault(title, sentences)
    with tempfile.TemporaryDirectory() as tmp:
        for n, (title, sentences) in enumerate(paragraphs.items(), 1):
            path = Path(tmp) / f"p{n}.txt"
            path.write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
            pg.ingest(
                path,
                IngestOptions(
                    id=document_key(title),
                    title=title,
                    url=HOTPOT_URL + title.replace(" ", "_"),
                    tier=3,
                    extract=extract,
                ),
            )
            if progress is not None:
                progress(n, len(paragraphs))
    by_doc: dict[str, list[tuple[int, str]]] = {}
    for r in pg.backend.stream(INGESTED_PASSAGES):
        by_doc.setdefault(r.value("key"), []).append((r.integer("start"), r.value("passage")))
    out: dict[str, tuple[str, int]] = {}
    for title in paragraphs:
        for index, (_, passage) in enumerate(sorted(by_doc.get(document_key(title), []))):
            out[passage] = (title, index)
    return out


class QuestionResult(BaseModel):
    question: str
    abstained: bool
    expected_abstain: bool
    confidence: AnswerConfidence | None = None
    drafted_claims: int
    kept_claims: int
    citation_recall: float | None = Field(description="share of drafted claims whose citations support them")
    citation_precision: float | None = Field(description="share of drafted citations that are relevant")
    dangling: int
    citations: int
    sentence_recall: float | None = None
    sentence_precision: float | None = None
    answer_found: bool | None = Field(default=None, description="the gold answer is in the claims")
    verdict_right: bool | None = Field(default=None, description="a yes/no question's verdict is the gold answer")
    verdict_wrong: bool | None = Field(default=None, description="a yes/no question's verdict is not the gold answer")
    seconds: dict[str, float] = Field(default_factory=dict)


class EvalReport(BaseModel):
    """The metrics of one evaluation run (see the module docstring)."""

    questions: int
    citation_recall: float
    citation_precision: float
    claim_coverage: float
    dangling_rate: float
    sentence_recall: float | None = None
    sentence_precision: float | None = None
    answer_found: float | None = Field(default=None, description="share with the gold answer in the claims")
    verdict_right: float | None = Field(default=None, description="share of yes/no questions with the gold verdict")
    verdict_wrong: float | None = Field(default=None, description="share of yes/no questions with the other verdict")
    answered_with_gold: float | None = Field(default=None, description="share answered when the gold is present")
    abstained_without_gold: float | None = Field(default=None, description="share abstaining with gold removed")
    answered_right_without_gold: float | None = Field(
        default=None,
        description="share answered with gold removed whose claims still give the gold answer or verdict "
        "(a distractor said it): of the answers given without the gold, the harmless ones",
    )
    results: list[QuestionResult] = Field(default_factory=list)


def alce_citation_scores(
    draft: DraftAnswer, pack: EvidencePack, judge: SupportJudge
) -> tuple[list[bool], list[bool], int, int]:
    """Per drafted claim whether its citations support it (recall), per citation whether it is
    relevant (precision), the number of dangling citations and of citations."""
    recall: list[bool] = []
    precision: list[bool] = []
    dangling = total = 0
    for claim in draft.claims:
        items = []
        for cid in claim.supporting_citations:
            total += 1
            item = pack.get(cid)
            if item is None:
                dangling += 1
            else:
                items.append(item)
        supported = bool(items) and not judge.judge(claim, items)
        recall.append(supported)
        for i, item in enumerate(items):
            alone = not judge.judge(claim, [item])
            rest = items[:i] + items[i + 1 :]
            needed = supported and not (rest and not judge.judge(claim, rest))
            precision.append(alone or needed)
        precision.extend(False for cid in claim.supporting_citations if pack.get(cid) is None)
    return recall, precision, dangling, total


def evaluate_question(
    ask: Callable[[str, AskFilters], tuple[EvidencePack, DraftAnswer, GroundedAnswer, dict[str, float]]],
    judge: SupportJudge,
    question: str,
    filters: AskFilters,
    *,
    expected_abstain: bool,
    sentences: dict[str, tuple[str, int]] | None = None,
    gold: Iterable[tuple[str, int]] = (),
    gold_answer: str | None = None,
) -> QuestionResult:
    pack, draft, answer, seconds = ask(question, filters)
    recall, precision, dangling, total = alce_citation_scores(draft, pack, judge)
    result = QuestionResult(
        question=question,
        abstained=answer.abstained,
        expected_abstain=expected_abstain,
        confidence=answer.confidence,
        drafted_claims=len(draft.claims),
        kept_claims=len(answer.claims),
        citation_recall=sum(recall) / len(recall) if recall else None,
        citation_precision=sum(precision) / len(precision) if precision else None,
        dangling=dangling,
        citations=total,
        seconds=seconds,
    )
    if sentences is not None and not expected_abstain:
        gold_set = set(gold)
        cited = {sentences[c.passage] for c in answer.citations if c.passage in sentences}
        hit = len(cited & gold_set)
        result = result.model_copy(
            update={
                "sentence_recall": hit / len(gold_set) if gold_set else None,
                "sentence_precision": hit / len(cited) if cited else 0.0,
            }
        )
    if gold_answer is None or (expected_abstain and answer.abstained):
        return result
    gold_answer = normalise(gold_answer).strip()
    if gold_answer in ("yes", "no"):
        verdict = next((words(c.text)[0] for c in answer.claims if words(c.text)[:1] in (["yes"], ["no"])), None)
        return result.model_copy(
            update={"verdict_right": verdict == gold_answer, "verdict_wrong": verdict not in (None, gold_answer)}
        )
    said = " " + " ".join(words(" ".join(c.text for c in answer.claims))) + " "
    return result.model_copy(update={"answer_found": f" {' '.join(words(gold_answer))} " in said})


def summarise(results: Sequence[QuestionResult]) -> EvalReport:
    def mean(values: Iterable[float | None]) -> float | None:
        kept = [v for v in values if v is not None]
        return statistics.fmean(kept) if kept else None

    answerable = [r for r in results if not r.expected_abstain]
    unanswerable = [r for r in results if r.expected_abstain]
    drafted = sum(r.drafted_claims for r in results)
    return EvalReport(
        questions=len(results),
        citation_recall=mean(r.citation_recall for r in results) or 0.0,
        citation_precision=mean(r.citation_precision for r in results) or 0.0,
        claim_coverage=sum(r.kept_claims for r in results) / drafted if drafted else 0.0,
        dangling_rate=sum(r.dangling for r in results) / max(1, sum(r.citations for r in results)),
        sentence_recall=mean(r.sentence_recall for r in answerable),
        sentence_precision=mean(r.sentence_precision for r in answerable),
        answer_found=mean(None if r.answer_found is None else float(r.answer_found) for r in answerable),
        verdict_right=mean(None if r.verdict_right is None else float(r.verdict_right) for r in answerable),
        verdict_wrong=mean(None if r.verdict_wrong is None else float(r.verdict_wrong) for r in answerable),
        answered_with_gold=mean(0.0 if r.abstained else 1.0 for r in answerable),
        abstained_without_gold=mean(1.0 if r.abstained else 0.0 for r in unanswerable),
        answered_right_without_gold=mean(
            float(not r.abstained and bool(r.answer_found or r.verdict_right)) for r in unanswerable
        ),
        results=list(results),
    )


def evaluate_hotpot(
    pg: object,
    questions: Sequence[HotpotQuestion],
    sentences: dict[str, tuple[str, int]],
    *,
    generator: Generator | None = None,
    judge: SupportJudge | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[EvalReport, EvalReport]:
    """Both runs over ``questions`` (already ingested with :func:`ingest_hotpot`): with each
    question's ten paragraphs, then with its distractors only. Returns (with gold, without gold)."""
    from provgraph.answer.pipeline import respond
    from provgraph.answer.verify import HeuristicJudge
    from provgraph.graph import ProvGraph

    assert isinstance(pg, ProvGraph)
    judge = judge or HeuristicJudge()

    def ask(question: str, filters: AskFilters) -> tuple[EvidencePack, DraftAnswer, GroundedAnswer, dict[str, float]]:
        started = time.perf_counter()
        pack = pg.retrieve(question, filters=filters)
        retrieval = time.perf_counter() - started
        steps = respond(pack, generator=generator, judge=judge)
        return pack, steps.draft, steps.answer, {"retrieval": retrieval, **steps.seconds}

    with_gold: list[QuestionResult] = []
    without: list[QuestionResult] = []
    for n, q in enumerate(questions, 1):
        everything = AskFilters(documents=[document_key(t) for t, _ in q.paragraphs])
        with_gold.append(
            evaluate_question(
                ask,
                judge,
                q.question,
                everything,
                expected_abstain=False,
                sentences=sentences,
                gold=q.supporting,
                gold_answer=q.answer,
            )
        )
        gold = set(q.gold_titles)
        distractors = AskFilters(documents=[document_key(t) for t, _ in q.paragraphs if t not in gold])
        without.append(
            evaluate_question(ask, judge, q.question, distractors, expected_abstain=True, gold_answer=q.answer)
        )
        if progress is not None:
            progress(n, len(questions))
    return summarise(with_gold), summarise(without)


__all__ = [
    "EvalReport",
    "HotpotQuestion",
    "QuestionResult",
    "alce_citation_scores",
    "document_key",
    "evaluate_hotpot",
    "evaluate_question",
    "ingest_hotpot",
    "load_hotpot",
    "summarise",
]
