"""``POST /qa`` (a question in, a :class:`~provgraph.GroundedAnswer` out) and ``POST /qa/verify``
(a candidate answer and its evidence pack in, the verified answer out). The handlers call
``ProvGraph.ask`` and ``ProvGraph.verify``; every rule lives in the core."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from provgraph import AskFilters, DraftAnswer, EvidencePack, GroundedAnswer
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, Reads, Settings
from provgraph.http.errors import READ_ERRORS
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
    responses=READ_ERRORS,
)
async def ask(body: AskRequest, reader: Reads, settings: Settings) -> GroundedAnswer:
    kind = body.generator or settings.answer_generator
    return await reader.run(reads.ask, body.question, kind, body.filters, body.detail, records=tuple(DerivedRecords))


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
