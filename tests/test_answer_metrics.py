"""The answer dashboard's figures (issue 17): per day from the answer log, each recorded answer's
counts written with it; answers recorded before the counts existed left out of the claim figures
and counted; over the API and ``GET /answers/metrics``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from helpers import ROOT, live_server
from provgraph import DraftAnswer, DraftClaim, IngestOptions, InputError, ProvGraph
from provgraph.answer.record import answer_iri
from provgraph.vocab import PREFIXES

EXAMPLES = ROOT / "data" / "examples"
QUESTION = "What does aspirin reduce?"


class Overclaiming:
    """Drafts one claim the evidence supports, one it does not, and one citing nothing shown."""

    name = "overclaiming"

    def generate(self, pack):
        first = pack.items[0]
        return DraftAnswer(
            answer_summary="Aspirin cures everything.",
            claims=[
                DraftClaim(text=first.text, supporting_citations=[first.id]),
                DraftClaim(text="Aspirin cures 90% of cancers.", supporting_citations=[first.id]),
                DraftClaim(text="Aspirin is sold in Spain.", supporting_citations=["ev-000000000000"]),
            ],
        )


@pytest.fixture
def pg():
    with ProvGraph.memory() as graph:
        graph.ingest(EXAMPLES / "aspirin-note.md", IngestOptions(title="Aspirin note", url="https://example.org/note"))
        yield graph


def _move(pg: ProvGraph, answer_id: str, *, days: int) -> None:
    """Date an answer's log entry ``days`` earlier, as if it had been asked then."""
    iri = answer_iri(answer_id).value
    when = pg.backend.select(f"SELECT ?t WHERE {{ GRAPH pgid:answers {{ <{iri}> prov:generatedAtTime ?t }} }}")
    earlier = (when[0].moment("t") - timedelta(days=days)).isoformat().replace("+00:00", "Z")
    pg.backend.update(
        f"""DELETE {{ GRAPH pgid:answers {{ <{iri}> prov:generatedAtTime ?t }} }}
        INSERT {{ GRAPH pgid:answers {{ <{iri}> prov:generatedAtTime "{earlier}"^^xsd:dateTime }} }}
        WHERE {{ GRAPH pgid:answers {{ <{iri}> prov:generatedAtTime ?t }} }}""",
        prefixes=PREFIXES,
    )


def test_the_figures_of_each_day_come_from_the_recorded_answers(pg):
    overclaimed = pg.ask(QUESTION, generator=Overclaiming())
    plain = pg.ask(QUESTION)
    abstained = pg.ask("Who composed the Moonlight Sonata?")
    assert abstained.abstained and not plain.abstained and overclaimed.removed_claims
    _move(pg, plain.id, days=1)

    today = datetime.now(UTC).date()
    figures = pg.answer_metrics(since=today - timedelta(days=6), until=today)
    assert [d.day for d in figures.days] == [today - timedelta(days=1), today]
    yesterday, now = figures.days
    assert (yesterday.answers, now.answers, figures.total.answers) == (1, 2, 3)
    assert yesterday.by_confidence == {plain.confidence.value: 1}
    levels = [overclaimed.confidence.value, abstained.confidence.value]
    assert now.by_confidence == {level: levels.count(level) for level in levels}
    abstentions = sum(a.abstained for a in (overclaimed, plain, abstained))
    assert figures.total.abstention_rate == pytest.approx(abstentions / 3) and abstentions >= 1

    # the overclaiming draft: three claims, at most one kept; three citations, one naming nothing shown
    drafted = pg.answer(overclaimed.id).draft
    kept = len(overclaimed.claims)
    assert kept <= 1
    removed: dict[str, int] = {}
    for issue in overclaimed.removed_claims:
        removed[issue.code.value] = removed.get(issue.code.value, 0) + 1
    assert removed.get("unsupported_number") == 1, removed
    abstained_removed: dict[str, int] = {}
    for issue in abstained.removed_claims:
        abstained_removed[issue.code.value] = abstained_removed.get(issue.code.value, 0) + 1
    assert now.removed_by_reason == {
        code: removed.get(code, 0) + abstained_removed.get(code, 0) for code in sorted({*removed, *abstained_removed})
    }
    assert yesterday.removed_by_reason == {}
    plain_draft = pg.answer(plain.id).draft
    abstained_draft = pg.answer(abstained.id).draft
    assert figures.total.drafted_claims == len(drafted.claims) + len(plain_draft.claims) + len(abstained_draft.claims)
    assert figures.total.kept_claims == kept + len(plain.claims) + len(abstained.claims)
    assert figures.total.claim_coverage == figures.total.kept_claims / figures.total.drafted_claims < 1
    cited = [
        c for d in (drafted, plain_draft, abstained_draft) for claim in d.claims for c in claim.supporting_citations
    ]
    assert figures.total.drafted_citations == len(cited)
    assert figures.total.resolved_citations == len(cited) - 1  # "ev-000000000000" names nothing shown
    assert figures.total.removed_rate == {
        code: n / figures.total.drafted_claims for code, n in sorted(figures.total.removed_by_reason.items())
    }
    assert figures.evaluation is None

    # a span without answers: nothing, and no rate made up
    empty = pg.answer_metrics(since=today - timedelta(days=30), until=today - timedelta(days=10))
    assert empty.days == [] and empty.total.answers == 0
    assert (empty.total.abstention_rate, empty.total.claim_coverage, empty.total.citation_resolution) == (
        None,
        None,
        None,
    )
    with pytest.raises(InputError, match="is after"):
        pg.answer_metrics(since=today, until=today - timedelta(days=1))


def test_answers_recorded_before_the_counts_count_for_confidence_only(pg):
    answered = pg.ask(QUESTION)
    iri = answer_iri(answered.id).value
    pg.backend.update(
        f"DELETE WHERE {{ GRAPH pgid:answers {{ <{iri}> pg:draftedClaims ?a ; pg:keptClaims ?b ; "
        "pg:draftedCitations ?c ; pg:resolvedCitations ?d ; pg:removedClaimCounts ?e } }",
        prefixes=PREFIXES,
    )
    total = pg.answer_metrics().total
    assert (total.answers, total.without_counts, total.drafted_claims, total.claim_coverage) == (1, 1, 0, None)
    assert total.abstention_rate == 0.0


def test_an_invalidated_answer_is_counted_on_the_day_it_was_asked(pg):
    answered = pg.ask(QUESTION)
    assert not answered.abstained
    pg.revoke("https://example.org/note", reason="retracted by its author", by="test")
    assert pg.answer_metrics().total.invalidated == 1


def test_metrics_over_http(pg):
    pg.ask(QUESTION)
    today = datetime.now(UTC).date()
    with live_server(pg) as url:
        figures = httpx.get(f"{url}/answers/metrics", params={"since": str(today - timedelta(days=2))}).json()
        assert figures["total"]["answers"] == 1 and figures["since"] == str(today - timedelta(days=2))
        assert figures["total"]["claim_coverage"] == 1.0
        wrong = httpx.get(f"{url}/answers/metrics", params={"since": "yesterday"})
        assert wrong.status_code == 400 and "since" in wrong.text, wrong.text
        backwards = httpx.get(f"{url}/answers/metrics", params={"since": str(today), "until": "2020-01-01"})
        assert backwards.status_code == 400 and "is after" in backwards.json()["error"]
