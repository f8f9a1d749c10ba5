"""The offline extractive generator: deterministic claims in plain language, each citing its
evidence; phrasing by confidence and agreement; conflicts with both sides; grouping; abstention."""

from __future__ import annotations

from helpers import population_value
from provgraph.answer.extractive import ExtractiveGenerator, compact_citations
from provgraph.answer.models import ClaimClass, EvidenceItem, EvidenceKind, EvidencePack, LinkedEntity
from provgraph.answer.text import salient_names, salient_terms, term_text
from provgraph.trust.models import (
    Conflict,
    ConflictKind,
    FactStatus,
    Resolution,
    ResolutionStrategy,
    ValueOutcome,
)

ASPIRIN = "http://example.org/aspirin"
AMSTERDAM = "http://dbpedia.org/resource/Amsterdam"
POP = "http://dbpedia.org/ontology/populationTotal"


def fact(
    n: int, confidence: float, title: str, *, obj: str = "<http://example.org/headache>", label: str = "headache"
) -> EvidenceItem:
    return EvidenceItem(
        id=f"ev-{n}",
        number=n,
        kind=EvidenceKind.STATEMENT,
        score=1.0 - n / 100,
        text=f"Aspirin treats {label}.",
        hop=1,
        document=f"urn:doc:{title}",
        title=title,
        statement=f"urn:st:{n}",
        subject=ASPIRIN,
        predicate="http://example.org/treats",
        object=obj,
        subject_label="Aspirin",
        predicate_label="treats",
        object_label=label,
        confidence=confidence,
        status=FactStatus.CONFIRMED,
    )


def pack(question: str, *items: EvidenceItem, entities: tuple[str, ...] = (ASPIRIN,)) -> EvidencePack:
    return EvidencePack(
        question=question,
        items=list(items),
        entities=[LinkedEntity(iri=e, label=term_text(f"<{e}>"), score=1.0, matched="x") for e in entities],
    )


def test_phrasing_follows_confidence() -> None:
    gen = ExtractiveGenerator()
    texts = [
        gen.generate(pack("What does aspirin treat?", fact(1, c, "Label A"))).claims[0].text
        for c in (0.95, 0.8, 0.6, 0.4)
    ]
    assert texts == [
        "It is established that Aspirin treats headache.",
        "According to Label A, Aspirin treats headache.",
        "Evidence suggests that Aspirin treats headache.",
        "Unverified reports state that Aspirin treats headache.",
    ]


def test_agreement_between_sources_is_stated_and_every_source_cited() -> None:
    two = ExtractiveGenerator().generate(pack("What does aspirin treat?", fact(1, 0.8, "A"), fact(2, 0.8, "B")))
    assert two.claims[0].text == "According to A, Aspirin treats headache (supported by A and B)."
    assert two.claims[0].supporting_citations == ["ev-1", "ev-2"]
    three = ExtractiveGenerator().generate(
        pack("What does aspirin treat?", fact(1, 0.95, "A"), fact(2, 0.9, "B"), fact(3, 0.9, "C"))
    )
    assert three.claims[0].text.endswith("(strongly supported by multiple sources: A, B, C).")


#: (value, source key, document title) of each statement of the conflict, the preferred value first
EDITIONS = (("872757", "en.wikipedia.org", "Amsterdam (en)"), ("862965", "nl.wikipedia.org", "Amsterdam (nl)"))


def _conflict_pack(sides: tuple[tuple[str, str, str], ...] = EDITIONS) -> EvidencePack:
    items = []
    for n, (value, _, title) in enumerate(sides, 1):
        items.append(
            EvidenceItem(
                id=f"ev-{n}",
                number=n + 1,
                kind=EvidenceKind.STATEMENT,
                score=0.9,
                text=f"Amsterdam population total {value}.",
                hop=1,
                document=f"urn:doc:{title}",
                title=title,
                statement=f"urn:st:{n}",
                subject=AMSTERDAM,
                predicate=POP,
                object=f'"{value}"^^<http://www.w3.org/2001/XMLSchema#integer>',
                subject_label="Amsterdam",
                predicate_label="population total",
                object_label=value,
                confidence=0.6,
                status=FactStatus.CONTESTED,
            )
        )
    values = [
        population_value(
            value,
            source,
            f"urn:st:{n}",
            ValueOutcome.PREFERRED if n == 1 else ValueOutcome.REJECTED,
            document=f"urn:doc:{title}",
        )
        for n, (value, source, title) in enumerate(sides, 1)
    ]
    conflict = Conflict(
        iri="urn:conflict",
        kind=ConflictKind.FUNCTIONAL,
        subject=AMSTERDAM,
        predicates=[POP],
        values=sorted(values, key=lambda v: int(v.value.split('"')[1])),
        resolution=Resolution(strategy=ResolutionStrategy.RECENCY, rationale="the more recent value (2021)"),
    )
    item = EvidenceItem(
        id="ev-c",
        number=1,
        kind=EvidenceKind.CONFLICT,
        score=1.0,
        text="Sources disagree.",
        conflict=conflict,
        related=[i.id for i in items],
    )
    return pack("What is the population of Amsterdam?", item, *items, entities=(AMSTERDAM,))


def test_a_conflict_is_stated_with_both_sides_their_sources_and_the_rationale() -> None:
    draft = ExtractiveGenerator().generate(_conflict_pack())
    claim = draft.claims[0]
    assert claim.text == (
        "Sources disagree on the population total of Amsterdam: nl.wikipedia.org reports 862965, "
        "while en.wikipedia.org reports 872757. Preferred: 872757 (the more recent value (2021))."
    )
    assert claim.claim_class is ClaimClass.COMPARATIVE
    assert claim.supporting_citations == ["ev-c", "ev-2", "ev-1"]
    # the contested statements are not repeated as if they were settled facts
    assert len(draft.claims) == 1


def test_two_sides_from_one_host_are_named_by_their_documents() -> None:
    sides = (("762", "es.wikipedia.org", "Amsterdam (es)"), ("57", "es.wikipedia.org", "Ámsterdam (ciudad)"))
    claim = ExtractiveGenerator().generate(_conflict_pack(sides)).claims[0]
    assert claim.text.startswith(
        "Sources disagree on the population total of Amsterdam: Ámsterdam (ciudad) reports 57, "
        "while Amsterdam (es) reports 762. "
    )


def test_one_document_stating_two_values_is_one_side() -> None:
    sides = (
        ("820654", "en.wikipedia.org", "Amsterdam (en)"),
        ("762", "es.wikipedia.org", "Amsterdam (es)"),
        ("57", "es.wikipedia.org", "Amsterdam (es)"),
    )
    claim = ExtractiveGenerator().generate(_conflict_pack(sides)).claims[0]
    assert claim.text.startswith(
        "Sources disagree on the population total of Amsterdam: Amsterdam (es) reports both 57 and 762, "
        "while Amsterdam (en) reports 820654. Preferred: 820654"
    )
    assert claim.supporting_citations == ["ev-c", "ev-3", "ev-2", "ev-1"]


def test_passages_from_two_documents_are_grouped_by_subtopic() -> None:
    def passage(n: int, text: str, title: str, score: float) -> EvidenceItem:
        return EvidenceItem(
            id=f"ev-{n}", number=n, kind=EvidenceKind.PASSAGE, score=score, text=text, title=title, document=title
        )

    draft = ExtractiveGenerator().generate(
        pack(
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            passage(1, "Scott Derrickson is an American director.", "Scott Derrickson", 0.9),
            passage(2, "Edward Davis Wood Jr. was an American filmmaker.", "Ed Wood", 0.8),
            passage(3, "Woodson is a town in Arkansas.", "Woodson, Arkansas", 0.85),
            entities=(),
        )
    )
    # the verdict, about both, first; then each document's passage under its title
    assert [(c.subtopic, c.supporting_citations) for c in draft.claims] == [
        (None, ["ev-1", "ev-2"]),
        ("Scott Derrickson", ["ev-1"]),
        ("Ed Wood", ["ev-2"]),
    ]
    assert draft.claims[0].text == (
        "Yes: Scott Derrickson and Ed Wood were of the same nationality: Scott Derrickson American, Ed Wood American."
    )


def test_no_relevant_evidence_gives_no_claims_and_refinements() -> None:
    draft = ExtractiveGenerator().generate(
        pack(
            "Who founded Arthur's Magazine?",
            EvidenceItem(
                id="ev-1", number=1, kind=EvidenceKind.PASSAGE, score=1.0, text="First for Women is a magazine."
            ),
            entities=(),
        )
    )
    assert draft.claims == []
    assert any("arthur's magazine" in r for r in draft.query_refinements)


def test_deterministic() -> None:
    p = _conflict_pack()
    assert ExtractiveGenerator().generate(p) == ExtractiveGenerator().generate(p)


def test_helpers() -> None:
    assert compact_citations([3, 1, 2, 5, 7, 8]) == "[1-3][5][7][8]"
    assert salient_terms("Which magazine was started first, Arthur's Magazine or First for Women?") == [
        "arthur's magazine",
        "first for women",
    ]
    assert salient_terms("What is the population of New York?") == ["new york"]
    # punctuation ends a name, unless it is an initial's or a title's period; a hyphen does not
    assert salient_terms("Which writer was from England, Henry Roth or Robert C. Childers?") == [
        "england",
        "henry roth",
        "robert c childers",
    ]
    assert salient_terms("Is Buck-Tick from Fujioka, Gunma?") == ["buck tick", "fujioka", "gunma"]
    # numbers are terms of their own; the first word is a name unless it asks or requests
    assert salient_terms("In 1991 Euromarché was bought by whom?") == ["1991", "euromarche"]
    assert salient_terms("D1NZ is a series based on what technique?") == ["d1nz"]
    assert salient_terms("Tell me what aspirin treats.") == []
    # compared without diacritics, as the evidence is (й and и too)
    assert salient_terms("Who was Алекса́ндр Фёдорович Ке́ренский?") == ["александр федорович керенскии"]  # noqa: RUF001
    assert term_text('"872757"^^<http://www.w3.org/2001/XMLSchema#integer>') == "872757"
    assert term_text("<http://dbpedia.org/resource/New_York>") == "New York"


def test_of_a_named_documents_passages_the_one_sharing_most_words_with_the_question_is_stated_first() -> None:
    def passage(n: int, text: str, title: str, score: float, *, hop: int = 0, related: tuple[str, ...] = ()):
        return EvidenceItem(
            id=f"ev-{n}",
            number=n,
            kind=EvidenceKind.PASSAGE,
            score=score,
            text=text,
            title=title,
            document=title,
            hop=hop,
            related=list(related),
        )

    draft = ExtractiveGenerator().generate(
        pack(
            "Scott Parkin criticised a corporation with operations in how many countries?",
            passage(1, "Scott Parkin criticised corporations such as Halliburton.", "Scott Parkin", 1.0),
            # the named document's opening passage first, as the retriever lists it
            passage(
                2, "The Halliburton Company is an American corporation.", "Halliburton", 0.6, hop=2, related=("ev-1",)
            ),
            passage(3, "It has operations in more than 70 countries.", "Halliburton", 0.6, hop=2, related=("ev-1",)),
            entities=(),
        )
    )
    # the claim stating a number, which the question asks for, first; it says what "It" is, so
    # the named document's opening passage is not stated for that
    assert [c.supporting_citations for c in draft.claims] == [["ev-3"], ["ev-1"]]
    assert draft.claims[0].text == "Halliburton has operations in more than 70 countries."


def test_the_names_of_a_question_are_a_new_list_each_time():
    # the verifier added the linked entities' labels to the cached list, so a question asked again
    # (HotpotQA's with and without its gold paragraphs) found them among its names
    question = "Where did the designer of the Harbour Bridge study?"
    salient_names(question).append("harbour bridge")
    assert salient_names(question) == ["harbour bridge"]
