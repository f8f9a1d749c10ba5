"""How well answers hold up, day by day, from the answer log: claim coverage, citation
resolution, claims removed by reason, abstentions and answers by confidence; and the results of
``provgraph eval`` runs stored with ``--record``.

Each answer's counts are written into its log entry when it is recorded (:func:`counts`), so the
figures of any span of days come from one query over the log, summed by the engine per day and
confidence, whatever the number of source graphs or the size of each answer's record: its cost
grows with the answers in the log (6 ms for 500 answers, 115 ms for 5,000 on the development
machine). Answers recorded before the counts existed still
count for abstention and confidence; the claim and citation figures leave them out and say how
many (``without_counts``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from pydantic import BaseModel, ConfigDict, Field, computed_field

from provgraph.answer.context import Shown
from provgraph.answer.evaluate import EvalReport
from provgraph.answer.models import AnswerConfidence, DraftAnswer, GroundedAnswer
from provgraph.ingest.reify import xsd_datetime
from provgraph.store.base import Backend
from provgraph.store.terms import Literal, NamedNode, sparql_term
from provgraph.vocab import EVALUATIONS_GRAPH, ID_NS, PG, PROV_NS, RDF_NS, XSD_NS, sha256_hex


@dataclass(frozen=True)
class AnswerCounts:
    """What one answer adds to the figures; written into its log entry."""

    drafted_claims: int
    kept_claims: int
    drafted_citations: int
    resolved_citations: int
    removed: dict[str, int]


def counts(draft: DraftAnswer, answer: GroundedAnswer, shown: Shown) -> AnswerCounts:
    """The counts of an answer: its drafted claims and how many the verifier kept, the citations
    the generator wrote and how many name evidence it was shown, the removed claims by reason."""
    ids = {item.id for item, _ in shown.items} | {str(item.number) for item, _ in shown.items}
    cited = [c for claim in draft.claims for c in claim.supporting_citations]
    return AnswerCounts(
        drafted_claims=len(draft.claims),
        kept_claims=len(answer.claims),
        drafted_citations=len(cited),
        resolved_citations=sum(1 for c in cited if c in ids or c.strip("[] ") in ids),
        removed=dict(Counter(issue.code.value for issue in answer.removed_claims)),
    )


class DayMetrics(BaseModel):
    """The figures of the answers recorded on one day (UTC), or of a whole span."""

    model_config = ConfigDict(frozen=True)

    day: date | None = Field(default=None, description="the day; None for the total of the span")
    answers: int = 0
    by_confidence: dict[str, int] = Field(
        default_factory=dict, description="answers by confidence: high, medium, low, insufficient_evidence"
    )
    invalidated: int = Field(default=0, description="answers later invalidated by a revocation")
    without_counts: int = Field(
        default=0, description="answers recorded before the counts existed: left out of the claim figures"
    )
    drafted_claims: int = 0
    kept_claims: int = 0
    drafted_citations: int = 0
    resolved_citations: int = 0
    removed_by_reason: dict[str, int] = Field(
        default_factory=dict,
        description="removed claims by reason code (a claim removed for several reasons counts under each)",
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def abstention_rate(self) -> float | None:
        """Share of the answers that abstained."""
        return self.by_confidence.get(AnswerConfidence.INSUFFICIENT.value, 0) / self.answers if self.answers else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def claim_coverage(self) -> float | None:
        """Share of the drafted claims the verifier kept."""
        return self.kept_claims / self.drafted_claims if self.drafted_claims else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def citation_resolution(self) -> float | None:
        """Share of the drafted citations that name evidence the generator was shown."""
        return self.resolved_citations / self.drafted_citations if self.drafted_citations else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def removed_rate(self) -> dict[str, float]:
        """Removed claims by reason, as a share of the drafted claims (a claim removed for several
        reasons counts under each, so the shares may add up to more than the claims removed)."""
        if not self.drafted_claims:
            return {}
        return {code: n / self.drafted_claims for code, n in sorted(self.removed_by_reason.items())}


class StoredEvaluation(BaseModel):
    """The results of one ``provgraph eval`` run, as stored with ``--record``."""

    model_config = ConfigDict(frozen=True)

    id: str
    dataset: str = Field(description="the questions evaluated, e.g. the file's name")
    created: datetime
    with_gold: EvalReport = Field(description="each question with its own paragraphs (per-question results left out)")
    without_gold: EvalReport = Field(description="the gold paragraphs removed: should abstain")


class AnswerMetrics(BaseModel):
    """The figures of the answers recorded from ``since`` to ``until`` (UTC days, both included)."""

    model_config = ConfigDict(frozen=True)

    since: date
    until: date
    days: list[DayMetrics] = Field(description="one entry per day with answers, oldest first")
    total: DayMetrics
    evaluation: StoredEvaluation | None = Field(default=None, description="the latest stored `provgraph eval` run")


# The sums per day and confidence are the engine's: one row per group, not per answer. The day is
# the date of the UTC timestamp the log holds ("2026-11-27T09:30:00Z").
_LOG = """SELECT ?day ?c (COUNT(?a) AS ?n) (SUM(IF(?inv, 1, 0)) AS ?invalid) (COUNT(?dc) AS ?counted)
  (SUM(COALESCE(?dc, 0)) AS ?drafted) (SUM(COALESCE(?kc, 0)) AS ?kept)
  (SUM(COALESCE(?dt, 0)) AS ?citations) (SUM(COALESCE(?rt, 0)) AS ?resolved)
  (GROUP_CONCAT(?rm; separator="\\n") AS ?removed)
WHERE { GRAPH pgid:answers {
  ?a a pg:Answer ; pg:answerConfidence ?c ; prov:generatedAtTime ?t .
  FILTER(?t >= $since && ?t < $until)
  BIND(EXISTS { ?a prov:wasInvalidatedBy ?any } AS ?inv)
  BIND(SUBSTR(STR(?t), 1, 10) AS ?day)
  OPTIONAL { ?a pg:draftedClaims ?dc ; pg:keptClaims ?kc ; pg:draftedCitations ?dt ; pg:resolvedCitations ?rt ;
                pg:removedClaimCounts ?rm } } }
GROUP BY ?day ?c"""


def _moment(value: datetime) -> Literal:
    return Literal(xsd_datetime(value), datatype=NamedNode(XSD_NS + "dateTime"))


@dataclass(frozen=True)
class _Group:
    """The answers of one day and confidence, summed."""

    confidence: str
    answers: int
    invalidated: int
    counted: int
    drafted: int
    kept: int
    citations: int
    resolved: int
    removed: Counter[str]


def metrics(backend: Backend, *, since: date, until: date) -> AnswerMetrics:
    """The figures of the answers recorded from ``since`` to ``until`` (UTC days, both included)."""
    start = datetime.combine(since, time(), tzinfo=UTC)
    end = datetime.combine(until + timedelta(days=1), time(), tzinfo=UTC)
    query = _LOG.replace("$since", sparql_term(_moment(start))).replace("$until", sparql_term(_moment(end)))
    by_day: dict[date, list[_Group]] = {}
    for row in backend.select(query):
        removed: Counter[str] = Counter()
        for entry in (row.optional_value("removed") or "").split("\n"):
            if entry and entry != "{}":
                removed.update(json.loads(entry))
        group = _Group(
            confidence=row.value("c"),
            answers=row.integer("n"),
            invalidated=row.integer("invalid"),
            counted=row.integer("counted"),
            drafted=row.integer("drafted"),
            kept=row.integer("kept"),
            citations=row.integer("citations"),
            resolved=row.integer("resolved"),
            removed=removed,
        )
        by_day.setdefault(date.fromisoformat(row.value("day")), []).append(group)
    days = [_add(groups, day=day) for day, groups in sorted(by_day.items())]
    total = _add([group for groups in by_day.values() for group in groups], day=None)
    return AnswerMetrics(since=since, until=until, days=days, total=total, evaluation=latest_evaluation(backend))


def _add(groups: Iterable[_Group], *, day: date | None) -> DayMetrics:
    confidence: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    answers = invalidated = counted = drafted = kept = citations = resolved = 0
    for group in groups:
        confidence[group.confidence] += group.answers
        answers += group.answers
        invalidated += group.invalidated
        counted += group.counted
        drafted += group.drafted
        kept += group.kept
        citations += group.citations
        resolved += group.resolved
        removed.update(group.removed)
    return DayMetrics(
        day=day,
        answers=answers,
        by_confidence=dict(sorted(confidence.items())),
        invalidated=invalidated,
        without_counts=answers - counted,
        drafted_claims=drafted,
        kept_claims=kept,
        drafted_citations=citations,
        resolved_citations=resolved,
        removed_by_reason=dict(sorted(removed.items())),
    )


# ---------------------------------------------------------------------- evaluations


def record_evaluation(backend: Backend, with_gold: EvalReport, without_gold: EvalReport, *, dataset: str) -> str:
    """Store the results of an evaluation run (without the per-question results); its id."""
    created = datetime.now(UTC)
    data = json.dumps(
        {
            "with_gold": with_gold.model_dump(mode="json", exclude={"results"}),
            "without_gold": without_gold.model_dump(mode="json", exclude={"results"}),
        },
        sort_keys=True,
    )
    stamp = _moment(created)
    digest = sha256_hex(f"{dataset}\n{stamp.value}\n{data}")
    iri = NamedNode(f"{ID_NS}evaluation/{digest}")
    pairs: list[tuple[NamedNode, NamedNode | Literal]] = [
        (NamedNode(RDF_NS + "type"), PG.Evaluation),
        (PG.evaluationDataset, Literal(dataset)),
        (PG.evaluationData, Literal(data)),
        (NamedNode(PROV_NS + "generatedAtTime"), stamp),
    ]
    body = " .\n".join(f"{iri} {p} {sparql_term(o)}" for p, o in pairs)
    backend.begin_write()
    backend.update(f"INSERT DATA {{ GRAPH {EVALUATIONS_GRAPH} {{\n{body} .\n}} }}")
    return digest


def latest_evaluation(backend: Backend) -> StoredEvaluation | None:
    """The evaluation run stored last; None when none was."""
    rows = backend.select(
        "SELECT ?e ?d ?data ?t WHERE { GRAPH pgid:evaluations { ?e a pg:Evaluation ; pg:evaluationDataset ?d ; "
        "pg:evaluationData ?data ; prov:generatedAtTime ?t } } ORDER BY DESC(?t) LIMIT 1"
    )
    if not rows:
        return None
    row = rows[0]
    data = json.loads(row.value("data"))
    return StoredEvaluation(
        id=row.value("e").rsplit("/", 1)[1],
        dataset=row.value("d"),
        created=row.moment("t"),
        with_gold=EvalReport.model_validate(data["with_gold"]),
        without_gold=EvalReport.model_validate(data["without_gold"]),
    )


__all__ = [
    "AnswerCounts",
    "AnswerMetrics",
    "DayMetrics",
    "StoredEvaluation",
    "counts",
    "latest_evaluation",
    "metrics",
    "record_evaluation",
]
