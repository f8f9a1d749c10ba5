"""The claim verifier: every rule of :mod:`provgraph.answer.verify` on hand-built evidence packs,
checked through what a reader of the grounded answer sees (the claims kept, the claims removed
with their reason codes, the confidence, the summary or the reason for abstaining, the citations)."""

from __future__ import annotations

from collections.abc import Sequence

from helpers import population_value
from provgraph.answer.models import (
    Action,
    AnswerConfidence,
    AskFilters,
    ClaimClass,
    Detail,
    DraftAnswer,
    DraftClaim,
    EvidenceItem,
    EvidenceKind,
    EvidencePack,
    GroundedAnswer,
    ReasonCode,
    SupportLevel,
)
from provgraph.answer.verify import HeuristicJudge, verify
from provgraph.trust.models import (
    Conflict,
    ConflictKind,
    FactStatus,
    Resolution,
    ResolutionStrategy,
    ValueOutcome,
)

ASPIRIN_QUESTION = "What does aspirin treat?"
AMSTERDAM = "http://dbpedia.org/resource/Amsterdam"
POP = "http://dbpedia.org/ontology/populationTotal"
INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


# ---------------------------------------------------------------------- building packs and drafts


def passage(n: int, text: str, *, document: str = "urn:doc:leaflet", title: str = "Aspirin leaflet") -> EvidenceItem:
    return EvidenceItem(
        id=f"ev-{n}",
        number=n,
        kind=EvidenceKind.PASSAGE,
        score=1.0 - n / 100,
        text=text,
        document=document,
        title=title,
        passage=f"urn:passage:{n}",
    )


def fact(
    n: int,
    text: str,
    *,
    subject: str,
    predicate: str,
    obj: str,
    subject_label: str | None = None,
    predicate_label: str | None = None,
    object_label: str | None = None,
    document: str = "urn:doc:facts",
    title: str = "Fact sheet",
    status: FactStatus = FactStatus.CONFIRMED,
) -> EvidenceItem:
    return EvidenceItem(
        id=f"ev-{n}",
        number=n,
        kind=EvidenceKind.STATEMENT,
        score=1.0 - n / 100,
        text=text,
        document=document,
        title=title,
        statement=f"urn:st:{n}",
        subject=subject,
        predicate=predicate,
        object=obj,
        subject_label=subject_label,
        predicate_label=predicate_label,
        object_label=object_label,
        confidence=0.8,
        status=status,
    )


def claim(text: str, *citations: str, claim_class: ClaimClass = ClaimClass.FACTUAL) -> DraftClaim:
    return DraftClaim(text=text, supporting_citations=list(citations), claim_class=claim_class)


def answer(
    question: str,
    items: Sequence[EvidenceItem],
    *claims: DraftClaim,
    summary: str = "Draft summary.",
    refinements: Sequence[str] = (),
    filters: AskFilters | None = None,
    detail: Detail = Detail.BRIEF,
) -> GroundedAnswer:
    pack = EvidencePack(
        question=question,
        items=list(items),
        filters=filters or AskFilters(),
        retrieved_documents=list(dict.fromkeys(i.document for i in items if i.document)),
    )
    draft = DraftAnswer(answer_summary=summary, claims=list(claims), query_refinements=list(refinements))
    return verify(draft, pack, generator="test", detail=detail)


def kept(result: GroundedAnswer) -> list[str]:
    return [c.text for c in result.claims]


def removed(result: GroundedAnswer) -> list[tuple[str, ReasonCode, Action]]:
    return [(i.claim, i.code, i.action) for i in result.removed_claims]


def issues(result: GroundedAnswer, text: str) -> list[tuple[ReasonCode, Action]]:
    (found,) = [c for c in result.claims if c.text == text]
    return [(i.code, i.action) for i in found.issues]


LEAFLET = passage(1, "Aspirin treats headache and fever.")
AILMENTS = ["headache", "fever", "pain", "inflammation", "arthritis", "migraine", "colds", "flu", "toothache", "cramps"]
AILMENT_PASSAGE = passage(
    1, "Aspirin treats headache, fever, pain, inflammation, arthritis, migraine, colds, flu, toothache and cramps."
)


# ---------------------------------------------------------------------- 1. no citation


def test_a_claim_without_citations_is_removed_with_no_citation() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin treats fever."),
    )
    assert kept(result) == ["Aspirin treats headache."]
    assert removed(result) == [("Aspirin treats fever.", ReasonCode.NO_CITATION, Action.REMOVED)]
    assert result.removed_claims[0].high_risk
    # one of two drafted claims survives: 50%
    assert result.confidence is AnswerConfidence.LOW
    assert not result.abstained
    # the summary is rebuilt from the kept claims: it must not say what was removed
    assert result.answer_summary == "Aspirin treats headache [1]."
    assert [c.id for c in result.citations] == ["ev-1"]
    assert any("1 drafted claim(s) were removed" in lim for lim in result.limitations)


def test_the_judge_alone_reports_no_citation_for_an_empty_citation_list() -> None:
    assert HeuristicJudge().judge(claim("Aspirin treats headache."), []) == [
        (ReasonCode.NO_CITATION, "no evidence is cited")
    ]


# ---------------------------------------------------------------------- 2. resolving citations


def test_a_dangling_citation_is_dropped_and_the_claim_stays_on_its_other_citation() -> None:
    result = answer(ASPIRIN_QUESTION, [LEAFLET], claim("Aspirin treats headache.", "ev-missing", "ev-1"))
    assert kept(result) == ["Aspirin treats headache."]
    (kept_claim,) = result.claims
    assert kept_claim.supporting_citations == ["ev-1"]
    assert kept_claim.verified
    assert [(i.code, i.action, i.citation) for i in kept_claim.issues] == [
        (ReasonCode.DANGLING_CITATION, Action.CITATION_DROPPED, "ev-missing")
    ]
    # a dropped citation is not a removed claim and does not cost confidence
    assert result.removed_claims == []
    assert result.confidence is AnswerConfidence.HIGH
    assert [c.id for c in result.citations] == ["ev-1"]


def test_a_claim_citing_only_dangling_ids_is_removed() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin treats fever.", "ev-404", "[9]"),
    )
    assert kept(result) == ["Aspirin treats headache."]
    assert removed(result) == [
        ("Aspirin treats fever.", ReasonCode.DANGLING_CITATION, Action.REMOVED),
        ("Aspirin treats fever.", ReasonCode.DANGLING_CITATION, Action.REMOVED),
    ]
    assert [i.citation for i in result.removed_claims] == ["ev-404", "[9]"]


def test_a_duplicated_citation_is_dropped_once() -> None:
    # the same item cited by id twice, and once more by its number
    result = answer(ASPIRIN_QUESTION, [LEAFLET], claim("Aspirin treats headache.", "ev-1", "ev-1", "[1]"))
    (kept_claim,) = result.claims
    assert kept_claim.supporting_citations == ["ev-1"]
    assert [(i.code, i.action, i.citation) for i in kept_claim.issues] == [
        (ReasonCode.DUPLICATE_CITATION, Action.CITATION_DROPPED, "ev-1"),
        (ReasonCode.DUPLICATE_CITATION, Action.CITATION_DROPPED, "[1]"),
    ]
    assert kept_claim.verified
    assert result.confidence is AnswerConfidence.HIGH


def test_pack_numbers_resolve_to_the_items_ids() -> None:
    items = [
        passage(1, "Aspirin treats headache."),
        passage(2, "Aspirin treats fever.", document="urn:doc:other", title="Other"),
        passage(3, "Aspirin treats pain."),
    ]
    result = answer(
        ASPIRIN_QUESTION,
        items,
        claim("Aspirin treats headache.", "[1]"),
        claim("Aspirin treats fever.", "2"),
        claim("Aspirin treats pain.", " [3] "),
    )
    assert [c.supporting_citations for c in result.claims] == [["ev-1"], ["ev-2"], ["ev-3"]]
    assert all(c.verified and not c.issues for c in result.claims)
    assert [(c.id, c.number) for c in result.citations] == [("ev-1", 1), ("ev-2", 2), ("ev-3", 3)]


def test_a_number_outside_the_pack_is_dangling() -> None:
    result = answer(ASPIRIN_QUESTION, [LEAFLET], claim("Aspirin treats headache.", "[1]", "[2]"))
    (kept_claim,) = result.claims
    assert kept_claim.supporting_citations == ["ev-1"]
    assert [(i.code, i.citation) for i in kept_claim.issues] == [(ReasonCode.DANGLING_CITATION, "[2]")]


# ---------------------------------------------------------------------- 3. numbers


def test_a_number_the_evidence_does_not_state_is_removed() -> None:
    items = [
        passage(1, "Amsterdam has 15 museums.", document="urn:doc:guide", title="Guide"),
        passage(2, "Amsterdam has 165 canals.", document="urn:doc:guide", title="Guide"),
    ]
    result = answer(
        "How many museums and canals does Amsterdam have?",
        items,
        claim("Amsterdam has 12 museums.", "ev-1"),
        claim("Amsterdam has 165 canals.", "ev-2"),
    )
    assert kept(result) == ["Amsterdam has 165 canals."]
    assert removed(result) == [("Amsterdam has 12 museums.", ReasonCode.UNSUPPORTED_NUMBER, Action.REMOVED)]
    assert result.removed_claims[0].message == "the cited evidence does not state 12"
    # only the kept claim's evidence is cited
    assert [c.id for c in result.citations] == ["ev-2"]


def test_a_number_rounded_to_the_claims_precision_is_supported() -> None:
    items = [passage(1, "The Gini index of the Netherlands is 52.3731.", document="urn:doc:stats", title="Stats")]
    question = "What is the Gini index of the Netherlands?"
    result = answer(
        question,
        items,
        claim("The Gini index of the Netherlands is 52.37.", "ev-1"),
        claim("The Gini index of the Netherlands is 52.4.", "ev-1"),
        claim("The Gini index of the Netherlands is 52.38.", "ev-1"),
    )
    assert kept(result) == [
        "The Gini index of the Netherlands is 52.37.",
        "The Gini index of the Netherlands is 52.4.",
    ]
    # 52.3731 rounds to 52.37, not 52.38
    assert removed(result) == [
        ("The Gini index of the Netherlands is 52.38.", ReasonCode.UNSUPPORTED_NUMBER, Action.REMOVED)
    ]


def test_thousands_separators_do_not_matter() -> None:
    question = "What is the population of Amsterdam?"
    with_separators = answer(
        question,
        [passage(1, "Amsterdam has a population of 821752.", document="urn:doc:city", title="City")],
        claim("Amsterdam has a population of 821,752.", "ev-1"),
    )
    assert kept(with_separators) == ["Amsterdam has a population of 821,752."]
    assert with_separators.confidence is AnswerConfidence.HIGH
    without_separators = answer(
        question,
        [passage(1, "Amsterdam has a population of 821,752.", document="urn:doc:city", title="City")],
        claim("Amsterdam has a population of 821752.", "ev-1"),
    )
    assert kept(without_separators) == ["Amsterdam has a population of 821752."]


def test_citation_marks_in_the_claim_text_are_not_numbers() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin treats headache [1].", "ev-1"),
        claim("Aspirin treats fever [1, 3].", "ev-1"),
        claim("Aspirin treats headache (ev-0123456789ab).", "ev-1"),
    )
    assert len(result.claims) == 3
    assert result.removed_claims == []


# ---------------------------------------------------------------------- 4. entities, predicates, overlap


def test_a_name_the_evidence_does_not_mention_is_removed() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin treats headache, says Bayer.", "ev-1"),
    )
    assert kept(result) == ["Aspirin treats headache."]
    assert removed(result) == [("Aspirin treats headache, says Bayer.", ReasonCode.UNSUPPORTED_ENTITY, Action.REMOVED)]
    assert result.removed_claims[0].message == 'the cited evidence does not mention "bayer"'


def test_a_claim_on_facts_must_name_their_predicate() -> None:
    treats = fact(
        1,
        "Aspirin treats headache.",
        subject="http://example.org/Aspirin",
        predicate="http://example.org/treats",
        obj="<http://example.org/headache>",
        subject_label="Aspirin",
        predicate_label="treats",
        object_label="headache",
    )
    result = answer(
        ASPIRIN_QUESTION,
        [treats],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin causes headache.", "ev-1"),
    )
    assert kept(result) == ["Aspirin treats headache."]
    # "causes" is not what the fact states, and a third of the claim's words are not in the evidence
    assert removed(result) == [
        ("Aspirin causes headache.", ReasonCode.UNSUPPORTED_PREDICATE, Action.REMOVED),
        ("Aspirin causes headache.", ReasonCode.INSUFFICIENT_SUPPORT, Action.REMOVED),
    ]


def test_a_predicates_camel_case_local_name_counts_as_its_name() -> None:
    population = fact(
        1,
        "Amsterdam 821752.",
        subject=AMSTERDAM,
        predicate=POP,
        obj=f'"821752"^^<{INTEGER}>',
    )
    result = answer(
        "What is the population of Amsterdam?",
        [population],
        claim("Amsterdam has a total population of 821752.", "ev-1"),
        claim("Amsterdam has an area of 821752.", "ev-1"),
    )
    assert kept(result) == ["Amsterdam has a total population of 821752."]
    # "area" names nothing the fact states, and half the claim's words are not enough
    assert removed(result) == [
        ("Amsterdam has an area of 821752.", ReasonCode.UNSUPPORTED_PREDICATE, Action.REMOVED),
        ("Amsterdam has an area of 821752.", ReasonCode.INSUFFICIENT_SUPPORT, Action.REMOVED),
    ]


def test_too_little_word_overlap_is_removed() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin prevents strokes in elderly patients.", "ev-1"),
    )
    assert kept(result) == ["Aspirin treats headache."]
    assert removed(result) == [
        ("Aspirin prevents strokes in elderly patients.", ReasonCode.INSUFFICIENT_SUPPORT, Action.REMOVED)
    ]
    assert result.removed_claims[0].message == "only 20% of the claim's words appear in the cited evidence"


def test_inflections_and_generator_phrasing_need_no_support() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Evidence suggests that aspirin treats headaches.", "ev-1"),
        claim("It is established that aspirin treatment reduces fever.", "ev-1"),
    )
    # "treatment"/"headaches" match "treats"/"headache" by their first five letters; "reduces" does
    # not appear, but three of its four content words do (the minimum)
    assert len(result.claims) == 2
    assert result.removed_claims == []


def test_a_claim_dropping_the_evidences_denial_is_removed_as_contradicted() -> None:
    denial = passage(1, "Aspirin does not cure cancer, and it is never given to children under 16.")
    result = answer(
        "Does aspirin cure cancer?",
        [denial],
        claim("Aspirin can cure cancer.", "ev-1"),
        claim("Aspirin is given to children under 16.", "ev-1"),
        claim("Aspirin does not cure cancer.", "ev-1"),
        claim("Aspirin is never given to children under 16.", "ev-1"),
    )
    assert kept(result) == ["Aspirin does not cure cancer.", "Aspirin is never given to children under 16."]
    assert removed(result) == [
        ("Aspirin can cure cancer.", ReasonCode.CONTRADICTED, Action.REMOVED),
        ("Aspirin is given to children under 16.", ReasonCode.CONTRADICTED, Action.REMOVED),
    ]
    assert result.removed_claims[0].message == 'the cited evidence denies it ("not cure"); the claim does not'
    assert result.removed_claims[1].message == 'the cited evidence denies it ("never given"); the claim does not'


def test_a_claim_denying_what_the_evidence_states_is_removed_and_a_verdicts_no_is_not_a_denial() -> None:
    marie = passage(1, "Marie Curie was a Polish physicist.", title="Marie Curie")
    pierre = passage(2, "Pierre Curie was a French physicist.", title="Pierre Curie")
    sonata = passage(3, "The Piano Sonata No. 14 is famous.", title="Sonata")
    verdict = (
        "No: Marie Curie and Pierre Curie were not of the same nationality: Marie Curie Polish, Pierre Curie French."
    )
    result = answer(
        "Were Marie Curie and Pierre Curie of the same nationality?",
        [marie, pierre, sonata],
        claim(verdict, "ev-1", "ev-2", claim_class=ClaimClass.COMPARATIVE),
        claim("Pierre Curie was not a French physicist.", "ev-2"),
        claim("The Piano Sonata No. 14 is famous.", "ev-3"),  # "No. 14" is a number, not a denial
    )
    assert kept(result) == [verdict, "The Piano Sonata No. 14 is famous."]
    assert removed(result) == [("Pierre Curie was not a French physicist.", ReasonCode.CONTRADICTED, Action.REMOVED)]


def test_a_custom_judge_replaces_the_heuristic() -> None:
    class Sceptic:
        def judge(self, claim: DraftClaim, cited: Sequence[EvidenceItem]) -> list[tuple[ReasonCode, str]]:
            return [(ReasonCode.UNSUPPORTED_ENTITY, f"no to {claim.text!r} on {len(cited)} item(s)")]

    pack = EvidencePack(question=ASPIRIN_QUESTION, items=[LEAFLET])
    draft = DraftAnswer(answer_summary="Yes.", claims=[claim("Aspirin treats headache.", "ev-1")])
    result = verify(draft, pack, generator="test", judge=Sceptic())
    assert result.claims == []
    assert result.abstained
    assert [(i.code, i.action, i.message) for i in result.removed_claims] == [
        (ReasonCode.UNSUPPORTED_ENTITY, Action.REMOVED, "no to 'Aspirin treats headache.' on 1 item(s)")
    ]
    assert result.answer_summary == (
        "Insufficient evidence: 1 of 1 drafted claims were not supported by the evidence they cite."
    )


# ---------------------------------------------------------------------- 5. minimum support of a claim class


CITIES = [
    passage(1, "Amsterdam has 872757 inhabitants; Rotterdam has 651446.", document="urn:doc:a", title="Cities"),
    passage(2, "Rotterdam has 651446 inhabitants.", document="urn:doc:b", title="Rotterdam"),
    passage(3, "Amsterdam has 165 canals.", document="urn:doc:a", title="Cities"),
    passage(4, "Amsterdam has 1281 bridges.", document="urn:doc:a", title="Cities"),
    passage(5, "Rotterdam has the largest port of Europe.", document="urn:doc:b", title="Rotterdam"),
]
CITIES_QUESTION = "Which city has more inhabitants, Amsterdam or Rotterdam?"
CITY_FACTS = [
    claim("Amsterdam has 165 canals.", "ev-3"),
    claim("Amsterdam has 1281 bridges.", "ev-4"),
    claim("Rotterdam has the largest port of Europe.", "ev-5"),
]


def test_a_comparison_citing_one_item_without_uncertainty_is_downgraded() -> None:
    text = "Amsterdam has more inhabitants than Rotterdam."
    result = answer(CITIES_QUESTION, CITIES, claim(text, "ev-1", claim_class=ClaimClass.COMPARATIVE), *CITY_FACTS)
    # kept, but not verified
    assert kept(result) == [text, *(c.text for c in CITY_FACTS)]
    comparison = result.claims[0]
    assert not comparison.verified
    assert comparison.support_level is SupportLevel.INDIRECT
    assert issues(result, text) == [(ReasonCode.INSUFFICIENT_SUPPORT, Action.DOWNGRADED)]
    assert result.removed_claims == []
    # three of four drafted claims are verified
    assert result.confidence is AnswerConfidence.MEDIUM
    assert all(c.verified for c in result.claims[1:])


def test_a_comparison_citing_two_items_is_verified() -> None:
    text = "Amsterdam has more inhabitants than Rotterdam."
    result = answer(
        CITIES_QUESTION, CITIES, claim(text, "ev-1", "ev-2", claim_class=ClaimClass.COMPARATIVE), *CITY_FACTS
    )
    comparison = result.claims[0]
    assert comparison.verified
    assert comparison.support_level is SupportLevel.DIRECT
    assert comparison.issues == []
    assert comparison.supporting_citations == ["ev-1", "ev-2"]
    assert result.confidence is AnswerConfidence.HIGH


def test_a_comparison_citing_one_item_and_stating_uncertainty_is_verified() -> None:
    text = "Amsterdam may have more inhabitants than Rotterdam."
    result = answer(CITIES_QUESTION, CITIES, claim(text, "ev-1", claim_class=ClaimClass.COMPARATIVE), *CITY_FACTS)
    assert result.claims[0].verified
    assert result.claims[0].issues == []
    assert result.confidence is AnswerConfidence.HIGH


def test_a_dangling_second_citation_does_not_count_for_a_comparison() -> None:
    text = "Amsterdam has more inhabitants than Rotterdam."
    result = answer(
        CITIES_QUESTION, CITIES, claim(text, "ev-1", "ev-99", claim_class=ClaimClass.COMPARATIVE), *CITY_FACTS
    )
    assert issues(result, text) == [
        (ReasonCode.DANGLING_CITATION, Action.CITATION_DROPPED),
        (ReasonCode.INSUFFICIENT_SUPPORT, Action.DOWNGRADED),
    ]
    assert not result.claims[0].verified


def test_a_scope_claim_needs_a_cited_passage() -> None:
    census_fact = fact(
        1,
        "The census counts registered residents.",
        subject="http://example.org/census",
        predicate="http://example.org/counts",
        obj="<http://example.org/registeredResidents>",
        predicate_label="counts",
        object_label="registered residents",
    )
    census_passage = passage(2, "The census counts registered residents only.", document="urn:doc:census")
    text = "The census counts registered residents only."
    others = [claim(f"Aspirin treats {a}.", "ev-3") for a in ("headache", "fever", "pain")]
    items = [census_fact, census_passage, passage(3, "Aspirin treats headache, fever and pain.")]
    question = "What does the census count?"

    on_fact = answer(question, items, claim(text, "ev-1", claim_class=ClaimClass.SCOPE), *others)
    assert kept(on_fact)[0] == text
    assert not on_fact.claims[0].verified
    assert on_fact.claims[0].support_level is SupportLevel.INDIRECT
    assert issues(on_fact, text) == [(ReasonCode.INSUFFICIENT_SUPPORT, Action.DOWNGRADED)]
    assert "scope claim needs a cited passage" in on_fact.claims[0].issues[0].message
    assert on_fact.confidence is AnswerConfidence.MEDIUM

    on_passage = answer(question, items, claim(text, "ev-2", claim_class=ClaimClass.SCOPE), *others)
    assert on_passage.claims[0].verified
    assert on_passage.claims[0].issues == []
    assert on_passage.confidence is AnswerConfidence.HIGH


# ---------------------------------------------------------------------- 6. confidence


def ailment_answer(kept_count: int, removed_count: int) -> GroundedAnswer:
    good = [claim(f"Aspirin treats {a}.", "ev-1") for a in AILMENTS[:kept_count]]
    bad = [claim(f"Aspirin treats insomnia number {n}.") for n in range(removed_count)]
    return answer(ASPIRIN_QUESTION, [AILMENT_PASSAGE], *good, *bad, refinements=())


def test_nine_of_ten_claims_kept_is_high_confidence() -> None:
    result = ailment_answer(9, 1)
    assert result.confidence is AnswerConfidence.HIGH
    assert len(result.claims) == 9
    assert len(result.removed_claims) == 1


def test_three_of_four_claims_kept_is_medium_confidence() -> None:
    result = ailment_answer(3, 1)
    assert result.confidence is AnswerConfidence.MEDIUM
    assert kept(result) == ["Aspirin treats headache.", "Aspirin treats fever.", "Aspirin treats pain."]


def test_two_of_four_claims_kept_is_low_confidence() -> None:
    result = ailment_answer(2, 2)
    assert result.confidence is AnswerConfidence.LOW
    assert not result.abstained
    assert kept(result) == ["Aspirin treats headache.", "Aspirin treats fever."]
    assert result.answer_summary == "Aspirin treats headache [1]. Aspirin treats fever [1]."


LIGHTHOUSE = passage(1, "The lighthouse was built in 1810 by Robert Stevenson.", title="Bell Rock Lighthouse")


def test_high_confidence_needs_the_type_and_the_property_asked_for() -> None:
    built = answer("When was the Bell Rock Lighthouse built?", [LIGHTHOUSE], claim(LIGHTHOUSE.text, "ev-1"))
    assert built.confidence is AnswerConfidence.HIGH and not built.limitations
    # a date, but of the building, not of the painting: verified, and no more than low (nothing
    # says a word of what is asked; medium when something does)
    painted = answer("When was the Bell Rock Lighthouse painted?", [LIGHTHOUSE], claim(LIGHTHOUSE.text, "ev-1"))
    assert kept(painted) == [LIGHTHOUSE.text] and painted.claims[0].verified
    assert painted.confidence is AnswerConfidence.LOW
    assert painted.limitations == ['No claim states what the question asks of "bell rock lighthouse" ("painted").']
    # nor a date: no answer
    text = "The lighthouse stands on the Bell Rock."
    stands = passage(1, text, title="Bell Rock Lighthouse")
    unpainted = answer("When was the Bell Rock Lighthouse painted?", [stands], claim(text, "ev-1"))
    assert unpainted.abstained and not unpainted.claims
    assert unpainted.answer_summary == (
        'Insufficient evidence: no claim states what the question asks of "bell rock lighthouse" ("painted").'
    )


def test_high_confidence_on_a_choice_needs_a_verdict() -> None:
    question = "Who is older, Annie Morton or Terry Richardson?"
    morton = passage(1, "Annie Morton (born October 8, 1970) is an American model.", title="Annie Morton")
    richardson = passage(2, "Terry Richardson (born August 14, 1965) is an American photographer.", title="Terry")
    sides = [claim(morton.text, "ev-1"), claim(richardson.text, "ev-2")]
    undecided = answer(question, [morton, richardson], *sides)
    assert undecided.confidence is AnswerConfidence.MEDIUM
    assert undecided.limitations == ["No claim decides between the options the question names."]
    verdict = claim(
        "Terry Richardson is older: Annie Morton 1970, Terry Richardson 1965.",
        "ev-1",
        "ev-2",
        claim_class=ClaimClass.COMPARATIVE,
    )
    decided = answer(question, [morton, richardson], verdict, *sides)
    assert decided.confidence is AnswerConfidence.HIGH and not decided.limitations


def test_one_of_four_claims_kept_abstains() -> None:
    result = ailment_answer(1, 3)
    assert result.confidence is AnswerConfidence.INSUFFICIENT
    assert result.abstained
    assert result.claims == []
    assert result.citations == []
    assert result.answer_summary == (
        "Insufficient evidence: 3 of 4 drafted claims were not supported by the evidence they cite."
    )
    # the best evidence found is still offered, with what to try next
    assert [r.document for r in result.references] == ["urn:doc:leaflet"]
    assert result.references[0].evidence == ["ev-1"]
    assert result.query_refinements == ["Name the entity, document or property you are asking about."]
    assert result.filter_suggestions
    # the claim that held is withdrawn too: an abstention asserts nothing
    withdrawn = [i for i in result.removed_claims if i.claim == "Aspirin treats headache."]
    assert [(i.code, i.action) for i in withdrawn] == [(ReasonCode.INSUFFICIENT_SUPPORT, Action.REMOVED)]
    assert withdrawn[0].message.startswith("withdrawn")
    assert [i.code for i in result.removed_claims].count(ReasonCode.NO_CITATION) == 3


def test_an_abstention_keeps_the_drafts_refinements_and_suggests_filters() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET],
        claim("Aspirin cures chronic insomnia.", "ev-1"),
        refinements=["Ask about aspirin and sleep."],
        filters=AskFilters(max_tier=2),
    )
    assert result.abstained
    assert result.query_refinements == ["Ask about aspirin and sleep."]
    assert any("max_tier=3" in s for s in result.filter_suggestions)


def test_an_empty_draft_or_pack_abstains() -> None:
    no_claims = answer(ASPIRIN_QUESTION, [LEAFLET])
    assert no_claims.abstained
    assert no_claims.answer_summary == "Insufficient evidence: the evidence found does not answer this question."
    assert no_claims.removed_claims == []
    nothing = answer(ASPIRIN_QUESTION, [])
    assert nothing.abstained
    assert nothing.answer_summary == "Insufficient evidence: the store has no evidence matching this question."
    assert nothing.references == []


def test_an_answer_whose_every_claim_holds_keeps_the_drafts_summary() -> None:
    result = answer(
        ASPIRIN_QUESTION,
        [LEAFLET, passage(2, "Aspirin treats pain.", document="urn:doc:other", title="Other")],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin treats pain.", "ev-2", "ev-1"),
        summary="Aspirin treats headache and pain [1][2].",
        detail=Detail.DETAILED,
    )
    assert result.confidence is AnswerConfidence.HIGH
    assert result.answer_summary == "Aspirin treats headache and pain [1][2]."
    assert result.limitations == []
    assert [c.id for c in result.citations] == ["ev-1", "ev-2"]
    assert [(r.number, r.document, r.evidence) for r in result.references] == [
        (1, "urn:doc:leaflet", ["ev-1"]),
        (2, "urn:doc:other", ["ev-2"]),
    ]
    assert result.references[0].passages == ["Aspirin treats headache and fever."]
    assert [(u.document, u.reason) for u in result.sources_used] == [
        ("urn:doc:leaflet", "cited by 2 claims: Aspirin treats headache; Aspirin treats pain"),
        ("urn:doc:other", "cited by 1 claim: Aspirin treats pain"),
    ]
    assert result.sources_summary == "2 used / 2 retrieved"
    assert result.evidence is not None
    assert [i.id for i in result.evidence] == ["ev-1", "ev-2"]


# ---------------------------------------------------------------------- 7. question coverage


def test_evidence_about_another_person_does_not_answer_the_question() -> None:
    pierre = passage(1, "Pierre Curie was born in Paris.", document="urn:doc:pierre", title="Physicists")
    result = answer("Where was Marie Curie born?", [pierre], claim("Pierre Curie was born in Paris.", "ev-1"))
    assert result.abstained
    assert result.claims == []
    assert result.answer_summary == 'Insufficient evidence: the evidence found does not mention "marie curie".'
    assert removed(result) == [("Pierre Curie was born in Paris.", ReasonCode.QUESTION_NOT_COVERED, Action.REMOVED)]
    assert result.removed_claims[0].message == 'withdrawn: the evidence found does not mention "marie curie"'
    assert [r.document for r in result.references] == ["urn:doc:pierre"]


def test_evidence_naming_the_person_but_not_what_is_asked_does_not_answer() -> None:
    birth = passage(1, "Marie Curie was born in Warsaw.", document="urn:doc:marie", title="Physicists")
    result = answer(
        "Which prize did Marie Curie receive for chemistry research?",
        [birth],
        claim("Marie Curie was born in Warsaw.", "ev-1"),
    )
    assert result.abstained
    assert result.answer_summary == (
        'Insufficient evidence: the evidence found does not speak of "prize", "receive", "chemistry", "research".'
    )
    assert removed(result) == [("Marie Curie was born in Warsaw.", ReasonCode.QUESTION_NOT_COVERED, Action.REMOVED)]


def test_evidence_covering_the_question_is_kept() -> None:
    birth = passage(1, "Marie Curie was born in Warsaw.", document="urn:doc:marie", title="Physicists")
    result = answer("Where was Marie Curie born?", [birth], claim("Marie Curie was born in Warsaw.", "ev-1"))
    assert not result.abstained
    assert result.confidence is AnswerConfidence.HIGH
    assert kept(result) == ["Marie Curie was born in Warsaw."]
    assert result.removed_claims == []


def test_a_possessive_is_its_name() -> None:
    # the generator reads "His books" in the document "Roald Dahl" as "Roald Dahl's books"
    sold = passage(1, "His books have sold more than 250 million copies worldwide.", title="Roald Dahl")
    claimed = "Roald Dahl's books have sold more than 250 million copies worldwide."
    result = answer("How many copies of Roald Dahl's books sold?", [sold], claim(claimed, "ev-1"))
    assert kept(result) == [claimed] and not result.abstained


def test_evidence_that_only_mentions_what_is_asked_is_at_most_low() -> None:
    question = "Where was Big Stone Gap recorded?"
    text = "Kingston Morning was recorded in Brooklyn with musicians from Big Stone Gap, Virginia."
    album = passage(1, text, document="urn:doc:kingston", title="Kingston Morning")
    mentioned = answer(question, [album], claim(text, "ev-1"))
    assert kept(mentioned) == [text] and mentioned.claims[0].verified
    assert mentioned.confidence is AnswerConfidence.LOW
    assert mentioned.limitations == ['The evidence found is about other things that mention "big stone gap".']
    # where the album was recorded, Big Stone Gap among its places, is no answer at all
    text = "Kingston Morning was recorded in Brooklyn and in Big Stone Gap, Virginia."
    album = passage(1, text, document="urn:doc:kingston", title="Kingston Morning")
    placed = answer(question, [album], claim(text, "ev-1"))
    assert placed.abstained
    assert placed.answer_summary == (
        'Insufficient evidence: the evidence found says "recorded" of Kingston Morning, not of "big stone gap".'
    )
    # the same words in the document about Big Stone Gap answer it
    own = passage(1, "It was recorded in Brooklyn and in Big Stone Gap, Virginia.", title="Big Stone Gap (album)")
    about = answer(
        question, [own], claim("Big Stone Gap was recorded in Brooklyn and in Big Stone Gap, Virginia.", "ev-1")
    )
    assert about.confidence is AnswerConfidence.HIGH and not about.limitations


def test_evidence_that_only_mentions_what_is_asked_and_says_little_of_it_abstains() -> None:
    question = "Where was the director of Big Stone Gap born?"
    text = "Kingston Morning was recorded in Brooklyn and in Big Stone Gap, Virginia."
    album = passage(1, text, document="urn:doc:kingston", title="Kingston Morning")
    mentioned = answer(question, [album], claim(text, "ev-1"))
    assert mentioned.abstained and not mentioned.claims
    assert mentioned.answer_summary == (
        'Insufficient evidence: the evidence found is about other things that mention "big stone gap".'
    )
    assert [(i.code, i.action) for i in mentioned.removed_claims] == [(ReasonCode.QUESTION_NOT_COVERED, Action.REMOVED)]
    # the film's own article is about what is asked: an answer, when it says where its director was born
    own = passage(1, "It was directed by Adriana Trigiani, born in Big Stone Gap.", title="Big Stone Gap (film)")
    about = answer(
        question, [own], claim("Big Stone Gap was directed by Adriana Trigiani, born in Big Stone Gap.", "ev-1")
    )
    assert not about.abstained
    # ... and none when it says only which director it is, or nothing of them
    for text in ("It was directed by Adriana Trigiani.", "It was shot in Big Stone Gap, Virginia."):
        own = passage(1, text, title="Big Stone Gap (film)")
        told = answer(question, [own], claim(f"Big Stone Gap {text.removeprefix('It ')}", "ev-1"))
        assert told.abstained
        assert told.answer_summary.startswith(
            'Insufficient evidence: the evidence found says which is "the director of big stone gap"'
        ), told.answer_summary


def test_a_document_that_a_passage_about_what_is_asked_names_is_not_about_other_things() -> None:
    # the second hop: the film's article names its director, whose article answers
    question = "Where is the director of Big Stone Gap based?"
    film = passage(1, "Big Stone Gap is a film directed by Adriana Trigiani.", title="Big Stone Gap (film)")
    text = "Adriana Trigiani, who directed Big Stone Gap, is based in Greenwich Village, New York City."
    director = passage(2, text, document="urn:doc:trigiani", title="Adriana Trigiani")
    result = answer(question, [film, director], claim(text, "ev-2"))
    assert kept(result) == [text] and result.confidence is AnswerConfidence.HIGH and not result.limitations
    # without the film's article, the director's is an article about another thing, unless its
    # sentence says what is asked of the film in its own words: the film, then "based", then a place
    alone = answer(question, [director], claim(text, "ev-2"))
    assert alone.confidence is AnswerConfidence.HIGH and not alone.limitations
    text = "Adriana Trigiani, based in Greenwich Village, directed Big Stone Gap."
    director = passage(2, text, document="urn:doc:trigiani", title="Adriana Trigiani")
    alone = answer(question, [director], claim(text, "ev-2"))
    assert alone.confidence is AnswerConfidence.LOW
    assert alone.limitations == ['The evidence found is about other things that mention "big stone gap".']


def test_who_asks_for_the_subject_of_a_document_saying_what_the_question_says() -> None:
    question = "Who was known by his stage name Aladin?"
    text = "Eenasul Fateh, also known by his stage name Aladin, is a magician."
    fateh = passage(1, text, document="urn:doc:fateh", title="Eenasul Fateh")
    result = answer(question, [fateh], claim(text, "ev-1"))
    assert result.confidence is AnswerConfidence.HIGH and not result.limitations
    # a sentence of another document that mentions the name is about something else
    show = "The show featured Aladin on its stage among other acts."
    other = answer(question, [passage(1, show, document="urn:doc:show", title="Magic Nights")], claim(show, "ev-1"))
    assert other.confidence is AnswerConfidence.LOW


def test_coverage_counts_only_the_evidence_of_kept_claims() -> None:
    items = [
        passage(1, "Pierre Curie was born in Paris.", document="urn:doc:pierre", title="Physicists"),
        passage(2, "Marie Curie was born in Warsaw.", document="urn:doc:marie", title="Physicists"),
    ]
    # the claim citing the covering passage is removed (wrong number), so the rest does not cover
    result = answer(
        "Where was Marie Curie born?",
        items,
        claim("Pierre Curie was born in Paris.", "ev-1"),
        claim("Marie Curie was born in Warsaw in 1868.", "ev-2"),
        claim("Pierre Curie was born in Paris, France.", "ev-1"),
    )
    assert result.abstained
    assert 'does not mention "marie curie"' in result.answer_summary
    codes = {(i.claim, i.code) for i in result.removed_claims}
    assert ("Marie Curie was born in Warsaw in 1868.", ReasonCode.UNSUPPORTED_NUMBER) in codes
    assert ("Pierre Curie was born in Paris.", ReasonCode.QUESTION_NOT_COVERED) in codes


def test_a_name_in_the_title_of_the_source_counts_as_covered() -> None:
    item = EvidenceItem(
        id="ev-1",
        number=1,
        kind=EvidenceKind.PASSAGE,
        score=1.0,
        text="She was born in Warsaw.",
        document="urn:doc:marie",
        title="Marie Curie",
    )
    result = answer("Where was Marie Curie born?", [item], claim("She was born in Warsaw.", "ev-1"))
    assert not result.abstained
    assert kept(result) == ["She was born in Warsaw."]


# ---------------------------------------------------------------------- 8. contradicted and contested facts


def conflict_items(*, resolved: bool) -> list[EvidenceItem]:
    """[1] the conflict, [2] en's 872757 (statement urn:st:2), [3] nl's 862965 (urn:st:3), then
    three passages. Resolved: en's value is preferred, nl's rejected; else both unresolved."""
    en = ValueOutcome.PREFERRED if resolved else ValueOutcome.UNRESOLVED
    nl = ValueOutcome.REJECTED if resolved else ValueOutcome.UNRESOLVED
    resolution = (
        Resolution(
            strategy=ResolutionStrategy.RECENCY, preferred=f'"872757"^^<{INTEGER}>', rationale="the more recent value"
        )
        if resolved
        else Resolution(strategy=ResolutionStrategy.SURFACE, rationale="every value is shown")
    )
    conflict = Conflict(
        iri="urn:conflict",
        kind=ConflictKind.FUNCTIONAL,
        subject=AMSTERDAM,
        predicates=[POP],
        values=[
            population_value("872757", "en.wikipedia.org", "urn:st:2", en),
            population_value("862965", "nl.wikipedia.org", "urn:st:3", nl),
        ],
        resolution=resolution,
    )
    conflict_item = EvidenceItem(
        id="ev-1",
        number=1,
        kind=EvidenceKind.CONFLICT,
        score=1.0,
        text="Sources disagree on the population total of Amsterdam.",
        conflict=conflict,
        related=["ev-2", "ev-3"],
    )
    statements = [
        fact(
            n,
            f"Amsterdam population total {value}.",
            subject=AMSTERDAM,
            predicate=POP,
            obj=f'"{value}"^^<{INTEGER}>',
            subject_label="Amsterdam",
            predicate_label="population total",
            object_label=value,
            document=f"urn:doc:{edition}",
            title=f"Amsterdam ({edition})",
            status=FactStatus.CONTESTED,
        )
        for n, value, edition in ((2, "872757", "en"), (3, "862965", "nl"))
    ]
    passages = [
        passage(4, "Amsterdam is the capital of the Netherlands.", document="urn:doc:guide", title="Guide"),
        passage(5, "Amsterdam has 165 canals.", document="urn:doc:guide", title="Guide"),
        passage(6, "Amsterdam has 1281 bridges.", document="urn:doc:guide", title="Guide"),
    ]
    return [conflict_item, *statements, *passages]


POPULATION_QUESTION = "What is the population of Amsterdam?"
GUIDE_CLAIMS = [
    claim("Amsterdam is the capital of the Netherlands.", "ev-4"),
    claim("Amsterdam has 165 canals.", "ev-5"),
    claim("Amsterdam has 1281 bridges.", "ev-6"),
]


def test_a_claim_citing_a_fact_that_lost_a_resolution_is_downgraded_as_contradicted() -> None:
    text = "Amsterdam has a population total of 862965."
    result = answer(POPULATION_QUESTION, conflict_items(resolved=True), claim(text, "ev-3"), *GUIDE_CLAIMS)
    assert kept(result) == [text, *(c.text for c in GUIDE_CLAIMS)]
    losing = result.claims[0]
    assert not losing.verified
    assert losing.support_level is SupportLevel.INDIRECT
    assert issues(result, text) == [(ReasonCode.CONTRADICTED, Action.DOWNGRADED)]
    (issue,) = losing.issues
    assert issue.citation == "ev-3"
    assert issue.high_risk
    assert issue.message == "[1] prefers 872757 over the cited 862965: the more recent value"
    assert result.removed_claims == []
    # three of four verified, and a high-risk issue
    assert result.confidence is AnswerConfidence.MEDIUM


def test_a_claim_citing_a_contested_fact_without_saying_so_is_flagged_high_risk() -> None:
    text = "Amsterdam has a population total of 872757."
    result = answer(POPULATION_QUESTION, conflict_items(resolved=False), claim(text, "ev-2"))
    assert kept(result) == [text]
    flagged = result.claims[0]
    # flagged, not downgraded: still verified and direct
    assert flagged.verified
    assert flagged.support_level is SupportLevel.DIRECT
    assert issues(result, text) == [(ReasonCode.CONTESTED_EVIDENCE, Action.FLAGGED)]
    (issue,) = flagged.issues
    assert issue.high_risk
    assert issue.citation == "ev-2"
    assert issue.message == "other sources state 862965 ([1]); the claim does not say so"
    # every claim verified, but an unresolved high-risk issue caps the confidence
    assert result.confidence is AnswerConfidence.MEDIUM


def test_a_high_risk_flag_caps_ten_verified_claims_below_high() -> None:
    text = "Amsterdam has a population total of 872757."
    many = [claim("Amsterdam is the capital of the Netherlands.", "ev-4")] * 9
    result = answer(POPULATION_QUESTION, conflict_items(resolved=False), claim(text, "ev-2"), *many)
    assert all(c.verified for c in result.claims)
    assert result.confidence is AnswerConfidence.MEDIUM


def test_citing_the_preferred_side_is_flagged_without_high_risk() -> None:
    text = "Amsterdam has a population total of 872757."
    result = answer(POPULATION_QUESTION, conflict_items(resolved=True), claim(text, "ev-2"))
    assert issues(result, text) == [(ReasonCode.CONTESTED_EVIDENCE, Action.FLAGGED)]
    assert not result.claims[0].issues[0].high_risk
    assert result.claims[0].verified
    assert result.confidence is AnswerConfidence.HIGH


def test_a_claim_stating_the_disagreement_and_citing_the_conflict_is_clean() -> None:
    text = "Sources disagree on the population total of Amsterdam: 872,757 or 862965."
    for resolved in (True, False):
        result = answer(
            POPULATION_QUESTION,
            conflict_items(resolved=resolved),
            claim(text, "ev-1", "ev-2", "ev-3", claim_class=ClaimClass.COMPARATIVE),
        )
        assert kept(result) == [text]
        assert result.claims[0].verified
        assert result.claims[0].issues == []
        assert result.confidence is AnswerConfidence.HIGH
        # the conflict's sources are the documents of its statements
        assert [r.document for r in result.references] == ["urn:doc:en", "urn:doc:nl"]
        assert result.references[0].evidence == ["ev-1", "ev-2"]


def test_half_a_name_does_not_support_a_claim() -> None:
    pierre = passage(1, "Pierre Curie was born in Paris.", document="urn:doc:pierre", title="Physicists")
    result = answer("Where was Pierre Curie born?", [pierre], claim("Marie Curie was born in Paris.", "ev-1"))
    assert result.abstained
    assert removed(result) == [("Marie Curie was born in Paris.", ReasonCode.UNSUPPORTED_ENTITY, Action.REMOVED)]


def test_a_claim_adding_its_own_payload_is_removed() -> None:
    leaflet = passage(1, "Aspirin treats headache and fever.")
    result = answer(
        ASPIRIN_QUESTION,
        [leaflet],
        claim("Aspirin treats headache.", "ev-1"),
        claim("Aspirin treats insomnia.", "ev-1"),
    )
    assert kept(result) == ["Aspirin treats headache."]
    assert removed(result) == [("Aspirin treats insomnia.", ReasonCode.INSUFFICIENT_SUPPORT, Action.REMOVED)]


def test_the_pronoun_i_is_not_a_name_the_evidence_must_mention() -> None:
    leaflet = passage(1, "Aspirin treats headache.")
    result = answer("What should I take for a headache?", [leaflet], claim("Aspirin treats headache.", "ev-1"))
    assert kept(result) == ["Aspirin treats headache."] and not result.abstained


def test_thousands_separators_do_not_matter_for_covering_the_question() -> None:
    plain = passage(1, "Amsterdam has 821752 inhabitants.", document="urn:doc:city", title="City")
    result = answer("Which city has 821,752 inhabitants?", [plain], claim("Amsterdam has 821752 inhabitants.", "ev-1"))
    assert kept(result) == ["Amsterdam has 821752 inhabitants."]
    grouped = passage(1, "Amsterdam has 821,752 inhabitants.", document="urn:doc:city", title="City")
    result = answer(
        "Which city has 821752 inhabitants?", [grouped], claim("Amsterdam has 821,752 inhabitants.", "ev-1")
    )
    assert kept(result) == ["Amsterdam has 821,752 inhabitants."]


def test_the_digits_of_a_sources_path_or_url_support_no_number():
    # a document ingested from a file is keyed by its path: "12" in ".../pytest-12/..." is no figure
    tower = passage(1, "The tower is 35 metres tall.").model_copy(
        update={"document_key": "/tmp/pytest-12/bell-rock-2.md", "url": "https://example.org/2024/bell-rock"}
    )
    result = answer(
        "How tall is the tower?",
        [tower],
        claim("The tower is 35 metres tall.", "ev-1"),
        claim("The tower is 12 metres tall.", "ev-1"),
        refinements=["Was the tower 2024 metres tall?", "Was the tower taller than 35 metres?"],
    )
    assert [c.text for c in result.claims] == ["The tower is 35 metres tall."]
    assert [i.code for i in result.removed_claims] == [ReasonCode.UNSUPPORTED_NUMBER]
    assert result.query_refinements == ["Was the tower taller than 35 metres?"]
