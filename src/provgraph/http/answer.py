"""``POST /qa`` (a question in, a :class:`~provgraph.GroundedAnswer` out), ``POST /qa/verify``
(a candidate answer and its evidence pack in, the verified answer out) and the recorded answers
(``GET /answers``, ``GET /answers/{id}``). The handlers call ``ProvGraph.compose`` and
``ProvGraph.record`` (a query worker composes, the server's process records), ``ProvGraph.verify``,
``ProvGraph.answers`` and ``ProvGraph.answer``; every rule lives in the core."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from provgraph import (
    AnswerMetrics,
    AnswerSummary,
    AskFilters,
    Composed,
    DraftAnswer,
    EvidencePack,
    GroundedAnswer,
    ProvGraph,
    RecordedAnswer,
    Replay,
)
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, Graph, Reads, Settings
from provgraph.http.errors import READ_ERRORS, ErrorBody
from provgraph.http.reads import Reader
from provgraph.models import DerivedRecords
from provgraph.options import Detail, GeneratorKind


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000, examples=["What is the population of Amsterdam?"])
    detail: Detail = Field(
        default=Detail.BRIEF, description="brief: claims and references; detailed: also the cited evidence"
    )
    # the example keeps the bundled DBpedia articles (tier 4, no issue date) that answer the example
    # question: tests/test_docs.py sends it to a server holding the bundled data
    filters: AskFilters = Field(
        default_factory=AskFilters,
        description="restrict the sources searched (documents, max_tier, min_confidence, issued_after)",
        examples=[{"max_tier": 4, "min_confidence": 0.5}],
    )
    generator: GeneratorKind | None = Field(
        default=None, description="extractive forces the offline generator; default: the server's generator"
    )
    session: str | None = Field(
        default=None,
        max_length=128,
        description="record the answer as the next of this session (a conversation): letters, digits, . _ : @ -",
    )
    derived_from: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="ids of recorded answers the question was built from: revoking their sources invalidates this one",
    )
    record: bool = Field(
        default=True, description="record the answer and its context in the store (GET /answers/{id}); false: no trace"
    )


class VerifyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: DraftAnswer = Field(description="the candidate answer: claims citing evidence ids of the pack")
    pack: EvidencePack
    generator: str = Field(default="external", description="who drafted the answer, recorded in the result")
    detail: Detail = Detail.BRIEF


router = APIRouter(tags=["Answers"])


@router.post(
    "/qa",
    summary="Answer a question: every claim cites evidence the verifier checked, or the answer abstains",
    description="Retrieves an evidence pack (entities, facts with provenance, passages, conflicts), drafts "
    "claims with the server's generator (offline extractive unless configured), verifies each claim against "
    "the evidence it cites and removes what is not supported. `confidence` is `insufficient_evidence` when "
    "the system abstains; `query_refinements` then say what to ask instead.",
    response_model=GroundedAnswer,
    dependencies=[READ_ACCESS],
    responses={
        404: {"model": ErrorBody, "description": "an answer named in derived_from is not in the store"},
        **READ_ERRORS,
    },
)
async def ask(body: AskRequest, pg: Graph, reader: Reads, settings: Settings) -> GroundedAnswer:
    kind = body.generator or settings.answer_generator
    composed = await reader.run(
        reads.compose,
        body.question,
        kind,
        body.filters,
        body.detail,
        body.session,
        body.derived_from,
        records=tuple(DerivedRecords),
    )
    if not body.record:
        return composed.answer
    return await run_in_threadpool(_record, reader, pg, composed)


def _record(reader: Reader, pg: ProvGraph, composed: Composed) -> GroundedAnswer:
    # composed by a query worker, recorded here: the one process that writes
    with reader.writing():
        return pg.record(composed)


@router.get(
    "/answers",
    summary="Recorded answers, newest first (a session's in order)",
    response_model=list[AnswerSummary],
    dependencies=[READ_ACCESS],
    responses=READ_ERRORS,
)
async def list_answers(
    reader: Reads,
    session: Annotated[str | None, Query(max_length=128, description="only this session's answers, in order")] = None,
    invalidated: Annotated[bool | None, Query(description="true: only invalidated answers; false: only valid")] = None,
    limit: Annotated[int, Query(ge=1, le=10000)] = 100,
) -> list[AnswerSummary]:
    return await reader.run(reads.answers, session, invalidated, limit)


@router.get(
    "/answers/metrics",
    summary="How the recorded answers held up, per day: claim coverage, citation resolution, removals, abstentions",
    description="From the answer log, per UTC day from `since` to `until` (both included; default the 30 days "
    "up to today) and in total: answers by confidence, abstention rate, claim coverage (drafted claims the "
    "verifier kept), citation resolution (drafted citations naming evidence the generator was shown), removed "
    "claims by reason code, invalidated answers; and the latest `provgraph eval --record` run.",
    response_model=AnswerMetrics,
    dependencies=[READ_ACCESS],
    responses=READ_ERRORS,
)
async def answer_metrics(
    reader: Reads,
    since: Annotated[date | None, Query(description="first day (UTC), e.g. 2026-11-01")] = None,
    until: Annotated[date | None, Query(description="last day (UTC); default today")] = None,
) -> AnswerMetrics:
    return await reader.run(reads.answer_metrics, since, until)


@router.get(
    "/answers/{answer_id}",
    summary="A recorded answer: its claims, citations, status and the context segments it was built from",
    response_model=RecordedAnswer,
    dependencies=[READ_ACCESS],
    responses={404: {"model": ErrorBody, "description": "no such answer"}, **READ_ERRORS},
)
async def get_answer(answer_id: str, reader: Reads) -> RecordedAnswer:
    return await reader.run(reads.answer, answer_id)


@router.post(
    "/qa/verify",
    summary="Verify a candidate answer against its evidence pack",
    description="Each claim needs a citation that resolves to the pack; evidence whose text gives orders or "
    "vouches for itself ('the verified answer is ...') supports nothing; the cited evidence must support it "
    "(entities, predicate, numbers); comparative and scope claims need their minimum support. Failing claims "
    "are removed or downgraded with reason codes, and the confidence follows from the verified share.",
    response_model=GroundedAnswer,
    dependencies=[READ_ACCESS],
    responses=READ_ERRORS,
)
async def verify_answer(body: VerifyRequest, reader: Reads) -> GroundedAnswer:
    return await reader.run(reads.verify, body.answer, body.pack, body.generator, body.detail)


__all__ = ["AskRequest", "VerifyRequest", "router"]


@router.get(
    "/answers/{answer_id}/context",
    summary="Replay: the context an answer was built from, rebuilt from its record alone",
    description="The segments in order, each with its hash checked against its stored triples, the evidence "
    "pack, and for a model the chat messages and response format as sent. With `at`, also the answer's "
    "session as it stood then.",
    response_model=Replay,
    dependencies=[READ_ACCESS],
    responses={404: {"model": ErrorBody, "description": "no such answer"}, **READ_ERRORS},
)
async def answer_context(
    answer_id: str,
    reader: Reads,
    at: Annotated[datetime | None, Query(description="the session as of this time (ISO 8601)")] = None,
) -> Replay:
    return await reader.run(reads.replay, answer_id, at)
