"""Retrieval that finds the answer (issue 16): facts followed into an entity as well as out of
it, and through classes when a question asks "which"."""

from __future__ import annotations

import pytest

from provgraph import IngestOptions, ProvGraph
from provgraph.answer.models import AnswerConfidence, GroundedAnswer
from provgraph.answer.retrieve import singular
from provgraph.answer.span import short_answer

DRUGS = """@prefix ex: <http://example.org/drug/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Drug rdfs:label "drug"@en .
ex:NSAID rdfs:label "NSAID"@en ; rdfs:subClassOf ex:Drug .
ex:Anticoagulant rdfs:label "anticoagulant"@en ; rdfs:subClassOf ex:Drug .
ex:interactsWith rdfs:label "interacts with"@en .
ex:ibuprofen a ex:NSAID ; rdfs:label "ibuprofen"@en ; ex:interactsWith ex:warfarin .
ex:naproxen a ex:NSAID ; rdfs:label "naproxen"@en .
ex:warfarin a ex:Anticoagulant ; rdfs:label "warfarin"@en .
"""
EX = "http://example.org/drug/"


@pytest.fixture
def drugs(tmp_path):
    source = tmp_path / "drugs.ttl"
    source.write_text(DRUGS, encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(source, IngestOptions(url="https://formulary.example/drugs", title="Formulary", tier=2))
        yield pg


def test_a_fact_pointing_at_the_entity_answers_a_question_from_its_side(drugs):
    pack = drugs.retrieve("Which drugs interact with warfarin?")
    facts = {(i.subject, i.predicate, i.object) for i in pack.items if i.kind.value == "statement"}
    assert (EX + "ibuprofen", EX + "interactsWith", f"<{EX}warfarin>") in facts
    answer = drugs.ask("Which drugs interact with warfarin?")
    assert not answer.abstained
    assert "ibuprofen interacts with warfarin" in answer.claims[0].text
    assert answer.claims[0].supporting_citations and answer.claims[0].verified


def test_which_question_reaches_the_instances_of_a_class_and_its_subclasses(drugs):
    pack = drugs.retrieve("Which drugs are NSAIDs?")
    typed = {i.subject for i in pack.items if i.predicate == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}
    assert {EX + "ibuprofen", EX + "naproxen"} <= typed
    # through the subclass: the instances of the classes under "drug"
    pack = drugs.retrieve("Which drugs are listed?")
    typed = {i.subject for i in pack.items if i.predicate == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"}
    assert {EX + "ibuprofen", EX + "naproxen", EX + "warfarin"} <= typed
    # not for a question that does not ask for members
    pack = drugs.retrieve("Is a drug dangerous?")
    assert not any(i.predicate == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" for i in pack.items if i.hop == 2)


def test_a_which_or_what_kind_question_is_answered_by_the_class_facts(drugs):
    members = drugs.ask("Which NSAIDs are there?", record=False)
    kind = drugs.ask("What kind of drug is warfarin?", record=False)
    # "is a" names rdf:type in a claim; "NSAIDs" is the class "NSAID"; "kind" asks for the class
    assert {
        "It is established that ibuprofen is an NSAID.",
        "It is established that naproxen is an NSAID.",
    } <= {c.text for c in members.claims}
    assert all(c.verified for c in members.claims) and members.confidence.value == "high"
    assert kind.claims[0].text == "It is established that warfarin is an anticoagulant."


DOSES = """@prefix ex: <http://example.org/drug/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:ibuprofen rdfs:label "ibuprofen"@en ; ex:maxDailyDoseMg 3200 ; ex:treats ex:pain, ex:fever .
ex:naproxen rdfs:label "naproxen"@en ; ex:maxDailyDoseMg 1500 .
ex:pain rdfs:label "pain"@en . ex:fever rdfs:label "fever"@en .
ex:maxDailyDoseMg rdfs:label "maximum daily dose (mg)"@en .
ex:treats rdfs:label "treats"@en .
"""


def test_facts_read_by_their_propertys_kind_of_word_and_compared_by_their_values(tmp_path):
    source = tmp_path / "doses.ttl"
    source.write_text(DOSES, encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(source, IngestOptions(url="https://formulary.example/doses", title="Formulary", tier=2))
        dose = pg.ask("What is the maximum daily dose of ibuprofen?", record=False)
        treats = pg.ask("What does ibuprofen treat?", record=False)
        higher = pg.ask("Which has a higher maximum daily dose, ibuprofen or naproxen?", record=False)
    # a noun's value is "the ... of ... is"; one source's several values are one list, not a disagreement
    assert dose.claims[0].text == "It is established that the maximum daily dose (mg) of ibuprofen is 3200."
    assert [c.text for c in treats.claims] in (
        ["It is established that ibuprofen treats fever and pain."],
        ["It is established that ibuprofen treats pain and fever."],
    )
    assert treats.claims[0].verified and len(treats.claims[0].supporting_citations) == 2
    assert higher.claims[0].text == "Ibuprofen has a higher maximum daily dose: ibuprofen 3200, naproxen 1500."
    assert higher.claims[0].verified and len(higher.claims[0].supporting_citations) == 2


def test_a_comparison_of_facts_sources_disagree_on_is_decided_only_when_every_value_agrees(tmp_path):
    head = "@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    names = 'ex:a rdfs:label "Aville" . ex:b rdfs:label "Beetown" . ex:c rdfs:label "Ceeburg" .\n'
    one, two = tmp_path / "one.ttl", tmp_path / "two.ttl"
    one.write_text(head + names + "ex:a ex:population 100 . ex:b ex:population 200 . ex:c ex:population 900 .\n")
    two.write_text(head + names + "ex:a ex:population 300 .\n")
    with ProvGraph.memory() as pg:
        pg.ingest(one, IngestOptions(url="https://one.example/", title="One", tier=2))
        pg.ingest(two, IngestOptions(url="https://two.example/", title="Two", tier=2))
        split = pg.ask("Which has a larger population, Aville or Beetown?", record=False)
        settled = pg.ask("Which has a larger population, Aville or Ceeburg?", record=False)
    # Aville is 100 in one source and 300 in the other: Beetown's 200 is between them
    assert not any(" has a larger population: " in c.text for c in split.claims)
    assert settled.claims[0].text.startswith("Ceeburg has a larger population: ")


@pytest.mark.parametrize(
    ("plural", "expected"),
    [
        ("drugs", "drug"),
        ("cities", "city"),
        ("boxes", "box"),
        ("churches", "church"),
        ("class", "class"),
        ("virus", "virus"),
        ("analysis", "analysis"),
        ("is", "is"),
    ],
)
def test_plurals_are_read_as_their_singular_for_linking(plural, expected):
    assert singular(plural) == expected


def test_rdf_and_rdfs_predicates_read_as_phrases(drugs):
    texts = {i.text for i in drugs.retrieve("What kind of drug is ibuprofen?").items}
    assert "ibuprofen is an NSAID." in texts and "NSAID is a kind of drug." in texts
    assert "warfarin is an anticoagulant." in {i.text for i in drugs.retrieve("What is warfarin?").items}


def _dose_files(directory, name: str):
    """A source stating aspirin's maximum daily dose (aspirin labelled ``name``) with no label for
    the property, and an ontology labelling it in Spanish and English."""
    source = directory / "dose.ttl"
    source.write_text(
        f'@prefix ex: <http://example.org/> .\nex:aspirin <http://www.w3.org/2000/01/rdf-schema#label> "{name}" ;'
        " ex:maxDailyDoseMg 4000 .\n",
        encoding="utf-8",
    )
    ontology = directory / "ontology.ttl"
    ontology.write_text(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "<http://example.org/maxDailyDoseMg> rdfs:label "
        '"dosis máxima diaria (mg)"@es, "maximum daily dose (mg)"@en .\n',
        encoding="utf-8",
    )
    return source, ontology


def test_a_property_is_named_by_the_ontologys_label_when_the_source_gives_none(tmp_path):
    source, ontology = _dose_files(tmp_path, "aspirin")
    with ProvGraph.memory() as pg:
        pg.ingest(source, IngestOptions(url="https://label.example/aspirin", title="Label"))
        before = pg.ask("What is the maximum daily dose of aspirin?", record=False)
        assert "max daily dose mg" in before.claims[0].text
        pg.add_ontology(ontology)
        after = pg.ask("What is the maximum daily dose of aspirin?", record=False)
    assert "the maximum daily dose (mg) of aspirin is 4000" in after.claims[0].text and after.claims[0].verified


def _ingest_articles(pg: ProvGraph, directory, articles: dict[str, str]) -> None:
    """Each article (title: Markdown text) as a document of its own."""
    for i, (title, text) in enumerate(articles.items()):
        path = directory / f"article-{i}.md"
        path.write_text(text, encoding="utf-8")
        pg.ingest(path, IngestOptions(url=f"https://article{i}.example/", title=title))


def _ask_articles(directory, articles: dict[str, str], *questions: str) -> list[GroundedAnswer]:
    """The answers to ``questions`` from a store of ``articles`` alone (:func:`_ingest_articles`)."""
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, directory, articles)
        return [pg.ask(q, record=False) for q in questions]


def _ask_file(directory, name: str, text: str, *questions: str) -> list[GroundedAnswer]:
    """The answers to ``questions`` from a store of one file ``name`` holding ``text`` (its format
    by its extension, its title its own), alone."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(path)
        return [pg.ask(q, record=False) for q in questions]


LIGHTHOUSES = {
    "Bell Rock Lighthouse": "The Bell Rock Lighthouse stands on the Bell Rock off Angus, Scotland.\n\n"
    "It was built between 1807 and 1810 by Robert Stevenson.\n\nThe tower is 35 metres tall.\n",
    "Skerryvore Reef Lighthouse": "Skerryvore stands on a reef west of Tiree.\n\n"
    "It was built between 1838 and 1844 by Alan Stevenson.\n",
}


@pytest.fixture
def lighthouses(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, LIGHTHOUSES)
        yield pg


def test_a_sentence_is_read_in_its_document_and_its_pronoun_stands_for_the_title(lighthouses):
    # "It was built ..." names neither lighthouse: its document's title tells them apart
    pack = lighthouses.retrieve("Who built Skerryvore?")
    passages = [i for i in pack.items if i.kind.value == "passage"]
    built = {i.title: i.score for i in passages if i.text.startswith("It was built")}
    assert built["Skerryvore Reef Lighthouse"] > built["Bell Rock Lighthouse"]
    assert passages[0].text == "It was built between 1838 and 1844 by Alan Stevenson."
    answer = lighthouses.ask("Who built the Bell Rock Lighthouse?", record=False)
    texts = [c.text for c in answer.claims]
    assert "Bell Rock Lighthouse was built between 1807 and 1810 by Robert Stevenson." in texts
    assert all(c.verified for c in answer.claims)


def test_a_sentence_is_read_under_its_section_heading(tmp_path):
    article = (
        "# Bell Rock Lighthouse\n\nThe Bell Rock Lighthouse stands off Angus.\n\n"
        "## Construction\n\nWork began in 1807 under Robert Stevenson.\n\n## Keepers\n\nThree men lived in the tower.\n"
    )
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, {"Bell Rock Lighthouse": article})
        began = pg.ask("When did the construction of the Bell Rock Lighthouse begin?", record=False)
        keepers = pg.ask("How many keepers lived in the Bell Rock Lighthouse?", record=False)
    # neither sentence says "construction" or "keepers": their headings do
    assert began.claims[0].text == "Work began in 1807 under Robert Stevenson."
    assert began.confidence.value == "high"
    assert keepers.claims[0].text == "Three men lived in the tower." and keepers.confidence.value == "high"


def test_a_numbered_clauses_heading_is_its_section_not_an_answer(tmp_path):
    """ "2. Deductible. Each claim carries ...": "Deductible." was a passage, and the answer to
    "What is the deductible?" read "Deductible." at high confidence."""
    articles = {
        "Greenline Home Insurance Policy Summary": "1. Coverage. The dwelling is insured for 350,000 dollars.\n\n"
        "2. Deductible. Each claim carries a deductible of 1,000 dollars.\n\n"
        "3. Exclusions. Flood damage and earthquake damage are not covered.\n"
    }
    deductible, excluded = _ask_articles(
        tmp_path,
        articles,
        "What is the deductible of the Greenline policy?",
        "What is excluded from the Greenline policy?",
    )
    assert deductible.claims[0].text == "Each claim carries a deductible of 1,000 dollars.", deductible.answer_summary
    assert all(len(c.text.split()) > 2 for c in deductible.claims)
    assert "Flood damage and earthquake damage are not covered." in [c.text for c in excluded.claims]
    # without that clause nothing says what is excluded: "policy" is the kind of what the question
    # names, no sign of an answer, and the answer is not "high"
    del articles["Greenline Home Insurance Policy Summary"]
    articles["Greenline policy"] = "Policy number GL-20931 covers the dwelling at 14 Alder Street.\n\n"
    articles["Greenline policy"] += "The policy runs from 1 March 2025 to 28 February 2026.\n"
    [excluded] = _ask_articles(tmp_path, articles, "What is excluded from the Greenline policy?")
    assert excluded.confidence.value != "high", excluded.answer_summary


def test_a_records_fields_are_passages_under_its_first_field(tmp_path):
    """A plain text advisory's field lines ("Fixed version: 4.2.7") were one passage running over
    all of them, the answer to each question about one field; and a document titled by no name
    ("Security Advisory PGSA-2026-014") made each answer "about other things"."""
    articles = {
        "Security Advisory PGSA-2026-014": "Product: Quillmail Server\nAffected versions: 4.2.0 through 4.2.6\n"
        "Fixed version: 4.2.7\nSeverity: Critical (CVSS 9.8)\n\n"
        "A heap buffer overflow in the IMAP command parser allows remote code execution.\n"
    }
    fixed, severe = _ask_articles(
        tmp_path,
        articles,
        "What is the fixed version of Quillmail Server?",
        "How severe is the Quillmail Server flaw?",
    )
    assert fixed.claims[0].text == "Fixed version: 4.2.7", fixed.answer_summary
    assert fixed.confidence.value == "high", fixed.limitations
    assert severe.claims[0].text == "Severity: Critical (CVSS 9.8)", severe.answer_summary


def test_a_markdown_records_bold_fields_are_passages_and_read_without_the_marks(tmp_path):
    """ "**Court:** ...", "**Decided:** ...", "**Docket number:** ..." were one passage, with its
    asterisks, the answer to each question about one of them."""
    articles = {
        "Okafor v. Meridian Health Systems": "**Court:** United States Court of Appeals for the Ninth Circuit\n"
        "**Decided:** 14 March 2025\n**Docket number**: 23-55871\n\nThe Ninth Circuit reversed.\n"
    }
    court, decided, docket = _ask_articles(
        tmp_path,
        articles,
        "Which court decided Okafor v. Meridian Health Systems?",
        "When was Okafor v. Meridian Health Systems decided?",
        "What is the docket number of Okafor v. Meridian Health Systems?",
    )
    assert court.claims[0].text == "Court: United States Court of Appeals for the Ninth Circuit", court.answer_summary
    assert decided.claims[0].text == "Okafor v. Meridian Health Systems was decided on 14 March 2025."
    assert docket.claims[0].text == "Docket number: 23-55871", docket.answer_summary
    assert {a.confidence.value for a in (court, decided, docket)} == {"high"}


def test_she_stands_for_the_title_after_a_sentence_opening_with_a_word_of_its_name(tmp_path):
    """ "How old was Rosalind Franklin when she died?" was "high" on "James Watson and Francis
    Crick died of ovarian cancer ... at the age of 37": "She" stood for the last name a sentence
    opened with, two men, though the sentence just before opened with "Franklin"."""
    articles = {
        "Rosalind Franklin": "Rosalind Elsie Franklin (25 July 1920 \u2013 16 April 1958) was an English chemist.\n\n"
        "James Watson and Francis Crick published their model of DNA in 1953.\n\n"
        "Franklin later led work on the tobacco mosaic virus at Birkbeck College. "
        "She died of ovarian cancer in London at the age of 37.\n"
    }
    [died] = _ask_articles(tmp_path, articles, "How old was Rosalind Franklin when she died?")
    assert died.claims[0].text == "Rosalind Franklin was 37 when she died.", died.answer_summary
    assert not any("Crick died" in c.text for c in died.claims)
    assert "Rosalind Franklin died of ovarian cancer in London at the age of 37." in [c.text for c in died.claims]


def test_a_passage_stating_the_answer_of_a_name_it_mentions_in_passing_answers(tmp_path):
    """ "Who took Photo 51?" was low ("about other things that mention "photo"": "Photo 51" was
    read as "Photo" and "51"); "When was Rosalind Franklin born?" medium on "Rosalind Elsie Franklin
    (25 July 1920 - 16 April 1958) was ...", which does not say "born"; "How far is Kepler-186f
    from Earth?" medium on "about 580 light-years from Earth"."""
    articles = {
        "Rosalind Franklin": "Rosalind Elsie Franklin (25 July 1920 \u2013 16 April 1958) was an English chemist.\n\n"
        "She was born in Notting Hill, London.\n\n"
        "Her X-ray images of DNA, in particular Photo 51, taken by her student Raymond Gosling in 1952, "
        "led to the discovery of the double helix.\n",
        "Kepler-186f": "Kepler-186f is an exoplanet orbiting the red dwarf Kepler-186, about 580 light-years from "
        "Earth.\n\nIts mass is unknown.\n",
    }
    photo, born, far = _ask_articles(
        tmp_path,
        articles,
        "Who took Photo 51?",
        "When was Rosalind Franklin born?",
        "How far is Kepler-186f from Earth?",
    )
    assert "Raymond Gosling" in photo.claims[0].text and photo.confidence.value == "high", photo.limitations
    assert born.claims[0].text == "Rosalind Franklin was born on 25 July 1920.", born.answer_summary
    assert born.confidence.value == "high", born.limitations
    assert "580 light-years" in far.claims[0].text and far.confidence.value == "high", far.limitations


def test_a_word_of_a_name_with_a_number_names_something_else(tmp_path):
    """ "How many Earth radii is Kepler-186?" (the star) was high on the planet Kepler-186f's
    radius: "Kepler", of "the Kepler space telescope", was linked as what the question names."""
    articles = {
        "Kepler-186f": "Kepler-186f is an exoplanet orbiting the red dwarf Kepler-186.\n\n"
        "The planet was discovered by the Kepler space telescope.\n\nIt has a radius of 1.17 Earth radii.\n",
    }
    star, planet = _ask_articles(
        tmp_path, articles, "How many Earth radii is Kepler-186?", "How many Earth radii is Kepler-186f?"
    )
    assert star.confidence.value == "low", star.answer_summary
    assert 'The evidence found is about other things that mention "earth", "kepler 186".' in star.limitations
    assert planet.confidence.value == "high", planet.limitations
    assert "1.17 Earth radii" in planet.claims[0].text


def test_a_sentence_naming_its_documents_subject_by_its_kind_is_stated_with_the_title(tmp_path):
    articles = {
        "Bell Rock Lighthouse": "The Bell Rock Lighthouse stands off Angus.\n\nThe lighthouse was automated in 1988.\n",
        "Big Stone Gap (film)": "Big Stone Gap is a 2014 romantic comedy.\n\nThe film was shot in Virginia.\n",
    }
    automated, shot = _ask_articles(
        tmp_path, articles, "When was the Bell Rock Lighthouse automated?", "Where was Big Stone Gap shot?"
    )
    # with the article its source gives it ("The Bell Rock Lighthouse stands off Angus.")
    assert "The Bell Rock Lighthouse was automated in 1988." in [c.text for c in automated.claims]
    assert "Big Stone Gap was shot in Virginia." in [c.text for c in shot.claims]


def test_a_passage_saying_all_that_is_asked_comes_before_one_saying_part(tmp_path):
    """ "What is the phone number for the Brightwave recall?" was answered, high, with the lot
    numbers: "number" is half of what is asked, and the telephone number says neither word."""
    articles = {
        "Brightwave Foods recall": "The recalled almond butter was sold in glass jars with lot numbers 2607A "
        "through 2612C.\n\nConsumers with questions may contact the company at 1-800-555-0142, Monday through "
        "Friday.\n",
    }
    [phone] = _ask_articles(tmp_path, articles, "What is the phone number for the Brightwave recall?")
    assert "1-800-555-0142" in phone.claims[0].text, phone.answer_summary


AURORA = (
    "<html><head><title>Aurora e-bike range</title></head><body><h1>Aurora e-bike range</h1>"
    "<p>Aurora Cycles makes three electric bicycles.</p><table>"
    "<tr><th>Model</th><th>Battery</th><th>Range</th><th>Weight</th><th>Price</th></tr>"
    "<tr><td>Aurora City</td><td>400 Wh</td><td>70 km</td><td>21 kg</td><td>1,890 euros</td></tr>"
    "<tr><td>Aurora Fold</td><td>300 Wh</td><td>50 km</td><td>17 kg</td><td>1,590 euros</td></tr>"
    "</table><p>The Aurora Fold was named e-bike of the year in 2025.</p></body></html>"
)


@pytest.mark.parametrize(
    ("question", "first", "confidence"),
    [
        # a row is about its first cell's value (the range was low: "about other things that mention ...")
        ("What is the range of the Aurora City?", "Model: Aurora City | Battery: 400 Wh", "high"),
        ("How heavy is the Aurora Fold?", "Model: Aurora Fold | Battery: 300 Wh", "high"),
        # a price says what something costs (was low on "named e-bike of the year")
        ("How much does the Aurora Fold cost?", "Model: Aurora Fold | Battery: 300 Wh", "high"),
        # a comparison decided by the rows' fields saying what is compared (there was no verdict)
        (
            "Which is lighter, the Aurora City or the Aurora Fold?",
            "Aurora Fold is lighter: Aurora City 21, Aurora Fold 17.",
            "high",
        ),
        (
            "Which is cheaper, the Aurora City or the Aurora Fold?",
            "Aurora Fold is cheaper: Aurora City 1,890, Aurora Fold 1,590.",
            "high",
        ),
        (
            "Which has the longer range, the Aurora City or the Aurora Fold?",
            "Aurora City has the longer range: Aurora City 70, Aurora Fold 50.",
            "high",
        ),
        # a superlative over the rows (was the row scoring best: the City's, for the largest battery)
        ("Which Aurora model has the largest battery?", "Aurora City has the largest battery: ", "high"),
        ("Which Aurora model is the lightest?", "Aurora Fold is the lightest: ", "high"),
    ],
)
def test_a_tables_rows_answer_of_their_first_cell(tmp_path, question, first, confidence):
    [answer] = _ask_file(tmp_path, "aurora.html", AURORA, question)
    assert answer.claims[0].text.startswith(first), answer.answer_summary
    assert answer.confidence.value == confidence, answer.limitations


def test_a_count_before_what_is_asked_states_it_in_a_document_about_more(tmp_path):
    """ "How many spectators attended the match at Mill Lane?" was low ("about other things that
    mention "mill lane""): the match report is titled by its teams, and the count comes before
    the word it counts."""
    articles = {
        "Riverside United 2-1 Northgate Athletic": "Riverside United beat Northgate Athletic 2-1 at Mill Lane "
        "on 8 November 2026, in front of 14,230 spectators.\n"
    }
    [crowd] = _ask_articles(tmp_path, articles, "How many spectators attended the match at Mill Lane?")
    assert "14,230 spectators" in crowd.claims[0].text
    assert crowd.confidence.value == "medium", crowd.limitations  # "attended", "match": not said
    assert not any("about other things" in x for x in crowd.limitations)


def test_a_count_question_is_answered_only_by_evidence_saying_its_verb(tmp_path):
    """ "How many patients died in VERITAS-2?" was high on "Nausea (% of patients) | ... 22":
    "patients" was half of what it asks, though nothing says anyone died."""
    articles = {
        "VERITAS-2 trial results": "VERITAS-2 was a 52-week trial in 1,204 adults with type 2 diabetes.\n\n"
        "Nausea occurred in 22% of patients on tirzepatide.\n",
        "Berlin": "Berlin is the capital of Germany. Its population was 3,769,495 in 2019.\n",
    }
    died, live = _ask_articles(
        tmp_path, articles, "How many patients died in VERITAS-2?", "How many people live in Berlin?"
    )
    assert died.confidence.value == "low", died.answer_summary
    assert 'No claim says what the question counts ("died").' in died.limitations
    # a population says how many people live somewhere
    assert "3,769,495" in live.claims[0].text and live.confidence.value == "high", live.limitations


def test_a_trial_reports_verdict_and_what_it_does_not_report(tmp_path):
    """ "Were new safety signals identified in VERITAS-2?" was low ("No claim speaks of
    "VERITAS-2"", which only the title names); "What was the cost of tirzepatide in VERITAS-2?"
    was high on the outcome rows, "tirzepatide" counted as half of what is asked."""
    articles = {
        "VERITAS-2: tirzepatide versus semaglutide": "VERITAS-2 was a 52-week trial in 1,204 adults.\n\n"
        "| Outcome | Tirzepatide 15 mg | Semaglutide 1 mg |\n|---|---|---|\n"
        "| Change in body weight (kg) | -11.2 | -5.7 |\n\nNo new safety signals were identified.\n",
    }
    signals, cost = _ask_articles(
        tmp_path,
        articles,
        "Were new safety signals identified in VERITAS-2?",
        "What was the cost of tirzepatide in VERITAS-2?",
    )
    assert signals.claims[0].text == "No: No new safety signals were identified.", signals.answer_summary
    assert signals.confidence.value == "high", signals.limitations
    assert cost.confidence.value == "low", cost.answer_summary


def test_a_markdown_tables_rows_read_with_their_headers_labels(tmp_path):
    """A Markdown table was one passage of pipes and dashes, cited whole for every question."""
    articles = {
        "VERITAS-2 results": "VERITAS-2 was a 52-week trial.\n\n| Outcome | Tirzepatide 15 mg | Semaglutide 1 mg |\n"
        "|---|---|---|\n| Change in HbA1c (%) | -2.30 | -1.86 |\n| Nausea (% of patients) | 22 | 18 |\n",
    }
    [nausea] = _ask_articles(tmp_path, articles, "What percentage of patients had nausea on semaglutide?")
    assert nausea.claims[0].text == "Outcome: Nausea (% of patients) | Tirzepatide 15 mg: 22 | Semaglutide 1 mg: 18"
    assert nausea.confidence.value == "high", nausea.limitations


CHANGELOG = (
    "All notable changes to Driftwood are documented in this file.\n\n"
    "## [1.4.0] - 2025-06-02\n\n### Added\n\n- A `--dry-run` flag for the `sync` command.\n\n"
    "### Fixed\n\n- Timezone offsets were dropped when parsing ISO 8601 timestamps.\n\n"
    "## [1.3.2] - 2025-03-18\n\n### Security\n\n- Upgraded the bundled OpenSSL to 3.0.16.\n\n"
    "## 1.3.0 (9 January 2025)\n\n- Python 3.9 is no longer supported.\n"
)


def test_a_when_question_is_high_only_on_a_claim_saying_its_verb(tmp_path):
    """ "When will the Stratus option be removed?" was high on "Version 1.4.0 (2025-06-02),
    Deprecated: The Stratus option is deprecated.": the release's date, and three of the four words
    asked, but not "removed"."""
    notes = "## [1.4.0] - 2025-06-02\n\n### Deprecated\n\n- The Stratus option is deprecated.\n"
    [removed] = _ask_articles(tmp_path, {"Driftwood changelog": notes}, "When will the Stratus option be removed?")
    assert removed.confidence.value != "high", removed.answer_summary
    assert 'No claim says when it was "removed".' in removed.limitations


def test_a_release_note_is_read_with_its_release(tmp_path):
    """Release notes: "When was Driftwood 1.4.0 released?" was low, its date only in the version's
    heading, and "1.4.0" read as the name "Driftwood 1"; "Which version of Driftwood upgraded
    OpenSSL?" was answered, high, with the note alone, no version."""
    released, added, openssl, python, unreleased = _ask_articles(
        tmp_path,
        {"Driftwood changelog": CHANGELOG},
        "When was Driftwood 1.4.0 released?",
        "Which version of Driftwood added the --dry-run flag?",
        "Which version of Driftwood upgraded OpenSSL?",
        "Does Driftwood 1.3.0 support Python 3.9?",
        "When was Driftwood 2.0.0 released?",
    )
    assert released.claims[0].text == "Version 1.4.0 was released on 2025-06-02.", released.answer_summary
    assert added.claims[0].text == "Version 1.4.0 (2025-06-02), Added: A `--dry-run` flag for the `sync` command."
    assert openssl.claims[0].text.startswith("Version 1.3.2 (2025-03-18), Security: Upgraded the bundled OpenSSL")
    assert python.claims[0].text == "No: Version 1.3.0 (9 January 2025): Python 3.9 is no longer supported."
    assert [a.confidence.value for a in (released, added, openssl, python)] == ["high"] * 4
    # the citation reads as the claim does, and its passage is the note's own line
    (cited,) = [c for c in added.citations if c.id == added.claims[0].supporting_citations[0]]
    assert cited.text == added.claims[0].text and cited.passage is not None
    # no release is 2.0.0: a version is a number, not the name "Driftwood 2"
    assert unreleased.abstained, unreleased.answer_summary
    assert unreleased.answer_summary.endswith('does not mention "2.0.0".')


def test_an_outcome_another_verb_states_is_a_verdict(tmp_path):
    """ "Did Northgate Athletic win?" was medium, "No claim answers yes or no.", on "Riverside United
    came from behind to beat Northgate Athletic"; "Did the Ninth Circuit affirm the district
    court?" got no verdict from "The Ninth Circuit reversed.". Reading "beat" as "won" alone had
    made the first high with no verdict."""
    articles = {
        "Riverside United 2-1 Northgate Athletic": "Riverside United came from behind to beat Northgate "
        "Athletic 2-1 at Mill Lane on Saturday.\n\nNorthgate took the lead in the 23rd minute.\n",
        "Okafor v. Meridian Health Systems": "The district court granted summary judgment to Meridian.\n\n"
        "The Ninth Circuit reversed. The court remanded the case for trial.\n",
    }
    lost, won, lose, cup, affirmed = _ask_articles(
        tmp_path,
        articles,
        "Did Northgate Athletic win?",
        "Did Riverside United win the match?",
        "Did Riverside United lose?",
        "Did Northgate Athletic win the cup?",
        "Did the Ninth Circuit affirm the district court?",
    )
    beat = "Riverside United came from behind to beat Northgate Athletic 2-1 at Mill Lane on Saturday."
    assert [a.claims[0].text for a in (lost, won, lose)] == [f"No: {beat}", f"Yes: {beat}", f"No: {beat}"]
    assert [a.confidence.value for a in (lost, won, lose)] == ["high"] * 3, lost.limitations
    # the report says nothing of a cup: no verdict, and so no high answer
    assert not cup.claims or not cup.claims[0].text.startswith(("Yes", "No")), cup.answer_summary
    assert cup.confidence.value != "high"
    assert affirmed.claims[0].text == "No: The Ninth Circuit reversed.", affirmed.answer_summary


ABSTRACT = (
    "Effect of Intermittent Fasting on Weight Loss in Adults with Obesity: A Randomized Clinical Trial\n\n"
    "METHODS\nWe randomly assigned 312 adults with obesity to time-restricted eating or to daily calorie "
    "restriction for 12 months. The trial was conducted at three centers in Guangzhou, China, and was funded "
    "by the National Natural Science Foundation of China.\n\n"
    "RESULTS\nA total of 281 participants (90.1%) completed the 12-month follow-up.\n"
)


def test_a_papers_abstract_answers_from_its_sentences_not_its_title(tmp_path):
    """A paper's title of 15 words was a passage, not the title, and every capitalised word of it
    a name: "Where was ... conducted?" and "Who funded ...?" were answered, high, with the title.
    "How many participants died?" was high on "281 participants (90.1%) completed ..."."""
    where, funded, died = _ask_file(
        tmp_path,
        "abstract.txt",
        ABSTRACT,
        "Where was the intermittent fasting trial conducted?",
        "Who funded the intermittent fasting trial?",
        "How many participants died in the trial?",
    )
    assert where.claims[0].text == "The intermittent fasting trial was conducted in Guangzhou.", where.answer_summary
    # "The trial", not the title of 15 words in its place
    assert where.claims[1].text.startswith("The trial was conducted at three centers")
    funder = "National Natural Science Foundation of China"
    assert funded.claims[0].text == f"{funder} funded the intermittent fasting trial."
    assert where.confidence.value == funded.confidence.value == "high"
    assert died.confidence.value == "low", died.answer_summary
    assert 'No claim says what the question counts ("died").' in died.limitations


def test_a_guideline_answers_for_the_case_asked(tmp_path):
    """ "When was the pneumonia guideline issued?" was "... issued in 2019", the year of the guideline
    it replaces, beside the word "guideline"; "What should outpatients with comorbidities be
    prescribed?" was answered first with what those without them should be."""
    text = (
        "This guideline was issued by the Northern Thoracic Society on 3 March 2026 and replaces the 2019 "
        "guideline.\n\n## Treatment of outpatients\n\n**Recommendation 3.** For healthy outpatients without "
        "comorbidities, prescribe amoxicillin 1 g three times daily.\n\n**Recommendation 4.** For outpatients "
        "with comorbidities, prescribe amoxicillin-clavulanate combined with a macrolide.\n"
    )
    issued, comorbid = _ask_articles(
        tmp_path,
        {"Community-acquired pneumonia guideline": text},
        "When was the pneumonia guideline issued?",
        "What should outpatients with comorbidities be prescribed?",
    )
    assert issued.claims[0].text == "The pneumonia guideline was issued on 3 March 2026.", issued.answer_summary
    assert comorbid.claims[0].text.startswith("Recommendation 4. For outpatients with comorbidities"), (
        comorbid.answer_summary
    )


def test_a_functions_reference_answers_of_its_parameters_and_versions(tmp_path):
    """An API reference in Markdown: "Defaults to 30.0." was a passage of its own, saying of no
    parameter; "How long are results cached?" read "Results cached are 5 minutes long."; "When
    was get_records removed?" was low ("removed in version 3.0" no date), its first claim about
    fetch_records."""
    text = (
        "# fetch_records\n\n`fetch_records(source, *, limit=100, timeout=30.0)` reads records from a source.\n\n"
        "## Parameters\n\n- `limit` (int): the maximum number of records returned. Defaults to 100.\n"
        "- `timeout` (float): seconds to wait for a remote source. Defaults to 30.0.\n\n"
        "## Notes\n\nResults are cached for 5 minutes.\n\n"
        "This function replaces `get_records`, which was removed in version 3.0.\n"
    )
    timeout, cached, removed = _ask_file(
        tmp_path,
        "fetch_records.md",
        text,
        "What is the default timeout of fetch_records?",
        "How long are results cached?",
        "When was get_records removed?",
    )
    assert timeout.claims[0].text == "`timeout` (float): seconds to wait for a remote source. Defaults to 30.0."
    assert cached.claims[0].text == "Results are cached for 5 minutes.", cached.answer_summary
    assert removed.claims[0].text.endswith("which was removed in version 3.0."), removed.answer_summary
    assert [a.confidence.value for a in (timeout, cached, removed)] == ["high"] * 3


def test_a_deal_report_answers_with_money_and_with_which_way_a_figure_went(tmp_path):
    """ "How much is Halvorsen paying ...?" was high on "60 percent of the price in cash"; "Did
    Halvorsen shares rise ...?" was high on "Halvorsen shares fell 4.2 percent" with no verdict;
    "Did Contoso's operating profit grow?" was "Yes" on "revenue grew ..., while its operating
    profit fell"."""
    articles = {
        "Halvorsen Shipping to Acquire Baltic Freight Lines": "Halvorsen Shipping ASA said it had agreed to "
        "buy Baltic Freight Lines for 2.1 billion euros, including debt.\n\nHalvorsen will pay 60 percent of the "
        "price in cash and the rest in new shares.\n\nHalvorsen shares fell 4.2 percent after the announcement.\n",
        "Contoso results": "Contoso's revenue grew 8 percent in 2025, while its operating profit fell 3 percent.\n",
    }
    paying, rise, revenue, profit = _ask_articles(
        tmp_path,
        articles,
        "How much is Halvorsen paying for Baltic Freight Lines?",
        "Did Halvorsen shares rise after the announcement?",
        "Did Contoso's revenue grow in 2025?",
        "Did Contoso's operating profit grow in 2025?",
    )
    # "buy ... for 2.1 billion euros" says what is paid
    assert "2.1 billion euros" in paying.claims[0].text, paying.answer_summary
    assert rise.claims[0].text == "No: Halvorsen shares fell 4.2 percent after the announcement."
    contoso = "Contoso's revenue grew 8 percent in 2025, while its operating profit fell 3 percent."
    assert [revenue.claims[0].text, profit.claims[0].text] == [f"Yes: {contoso}", f"No: {contoso}"]
    assert [a.confidence.value for a in (paying, rise, revenue, profit)] == ["high"] * 4


def test_a_headline_says_what_is_asked_of_none_of_its_passages(tmp_path):
    """ "Who is acquiring Baltic Freight Lines?" was answered, high, with "Baltic Freight Lines, based
    in Gdansk, reported revenue ...": the headline title "... to Acquire ..." said "acquiring" for
    every passage. "agreed to buy" says it."""
    text = (
        "Halvorsen Shipping to Acquire Baltic Freight Lines\n\n"
        "Halvorsen Shipping ASA said it had agreed to buy Baltic Freight Lines from Nordkapp Partners.\n\n"
        "Baltic Freight Lines, based in Gdansk, Poland, reported revenue of 780 million euros in 2025.\n"
    )
    [acquiring] = _ask_file(tmp_path, "deal.txt", text, "Who is acquiring Baltic Freight Lines?")
    assert acquiring.claims[0].text.startswith("Halvorsen Shipping ASA said it had agreed to buy"), (
        acquiring.answer_summary
    )
    assert acquiring.confidence.value == "high", acquiring.limitations


LEAFLET = (
    "# Cardenol 5 mg tablets\n\n## What Cardenol is used for\n\n"
    "Cardenol is used to treat high blood pressure.\n\n## Do not take Cardenol\n\n"
    "- if you are allergic to bisoprolol\n- if you have severe asthma\n- if you have a very slow heart rate\n\n"
    "## How to take Cardenol\n\nThe recommended starting dose is 5 mg once a day. "
    "Swallow the tablet with water in the morning.\n"
)


def test_a_patient_leaflet_reads_its_lists_with_their_heading(tmp_path):
    """ "Who should not take Cardenol?" was low on "if you have severe asthma" (a name expected,
    one item of three stated); "Can I take Cardenol if I have severe asthma?" got no verdict (its
    "if" read as leaving the question open); "When should Cardenol be taken?" was low ("in the
    morning" no time, "taken" said by the heading only)."""
    who, asthma, when = _ask_file(
        tmp_path,
        "cardenol.md",
        LEAFLET,
        "Who should not take Cardenol?",
        "Can I take Cardenol if I have severe asthma?",
        "When should Cardenol be taken?",
    )
    assert [c.text for c in who.claims[:3]] == [
        "Do not take Cardenol if you have severe asthma",
        "Do not take Cardenol if you are allergic to bisoprolol",
        "Do not take Cardenol if you have a very slow heart rate",
    ], who.answer_summary
    assert asthma.claims[0].text == "No: Do not take Cardenol if you have severe asthma", asthma.answer_summary
    assert when.claims[0].text == "Swallow the tablet with water in the morning.", when.answer_summary
    assert [a.confidence.value for a in (who, asthma, when)] == ["high"] * 3


def test_who_should_not_take_a_drug_is_answered_by_what_says_not(tmp_path):
    """ "Who should not take Nephralin?" was answered first, high, with "Patients aged 80 years or
    older should take 2.5 mg twice daily.", which says who should take it."""
    label = (
        "DOSAGE AND ADMINISTRATION\nPatients aged 80 years or older should take 2.5 mg twice daily.\n\n"
        "CONTRAINDICATIONS\nNephralin is contraindicated in patients with active pathological bleeding.\n"
    )
    [who] = _ask_articles(tmp_path, {"Nephralin prescribing information": label}, "Who should not take Nephralin?")
    assert who.claims[0].text == "Nephralin is contraindicated in patients with active pathological bleeding."


def test_a_choice_between_two_columns_is_decided_by_the_row_saying_what_is_compared(tmp_path):
    """ "Which drug reduced body weight more, tirzepatide or semaglutide?" got no verdict: the two
    sides are columns of one row. A reduction is the more the more negative the change."""
    articles = {
        "VERITAS-2 results": "VERITAS-2 was a 52-week trial.\n\n| Outcome | Tirzepatide 15 mg | Semaglutide 1 mg |\n"
        "|---|---|---|\n| Change in body weight (kg) | -11.2 | -5.7 |\n| Nausea (% of patients) | 22 | 18 |\n",
    }
    weight, nausea = _ask_articles(
        tmp_path,
        articles,
        "Which drug reduced body weight more, tirzepatide or semaglutide?",
        "Which drug had less nausea, tirzepatide or semaglutide?",
    )
    assert (
        weight.claims[0].text == "Tirzepatide reduced body weight more: Tirzepatide 15 mg -11.2, Semaglutide 1 mg -5.7."
    )
    assert nausea.claims[0].text == "Semaglutide had less nausea: Tirzepatide 15 mg 22, Semaglutide 1 mg 18."
    # both sides are in the one row cited
    assert [a.confidence.value for a in (weight, nausea)] == ["high"] * 2, weight.limitations


INTERACTIONS = (
    "<html><body><h1>Warfarin drug interactions</h1><p>Warfarin is an oral anticoagulant.</p><table>"
    "<tr><th>Drug</th><th>Effect on INR</th><th>Recommendation</th></tr>"
    "<tr><td>Amiodarone</td><td>Increases</td><td>Reduce the warfarin dose by 30 to 50 percent</td></tr>"
    "<tr><td>Rifampicin</td><td>Decreases</td><td>Avoid the combination</td></tr>"
    "<tr><td>Fluconazole</td><td>Increases</td><td>Monitor INR closely</td></tr></table>"
    "<p>The target INR for most indications is 2.0 to 3.0. INR should be checked within 3 to 5 days after "
    "starting or stopping an interacting drug.</p></body></html>"
)


def test_an_interaction_table_answers_which_drugs_and_warns_in_its_verdicts(tmp_path):
    """ "Should rifampicin be combined with warfarin?" was "Yes: ... Avoid the combination", high;
    "Does fluconazole decrease the INR?" was high, no verdict, on rifampicin's row; "Which drugs
    increase the INR?" and "What is the target INR?" were low, "about other things"; "When should
    INR be checked ...?" was low ("within 3 to 5 days" no span of time)."""
    combined, decrease, which, target, checked = _ask_file(
        tmp_path,
        "warfarin.html",
        INTERACTIONS,
        "Should rifampicin be combined with warfarin?",
        "Does fluconazole decrease the INR?",
        "Which drugs increase the INR with warfarin?",
        "What is the target INR for warfarin?",
        "When should INR be checked after starting an interacting drug?",
    )
    assert (
        combined.claims[0].text
        == "No: Drug: Rifampicin | Effect on INR: Decreases | Recommendation: Avoid the combination"
    )
    assert decrease.confidence.value != "high", decrease.answer_summary
    assert {c.text.split(" | ")[0] for c in which.claims[:2]} == {"Drug: Amiodarone", "Drug: Fluconazole"}
    assert target.claims[0].text == "The target INR for most indications is 2.0 to 3.0."
    assert checked.claims[0].text.startswith("INR should be checked within 3 to 5 days")
    assert [a.confidence.value for a in (combined, which, target, checked)] == ["high"] * 4, which.limitations


def test_a_dataset_card_and_board_minutes(tmp_path):
    """ "How many images are in CoastWatch-2?" was answered first, high, with the training split's
    row; "In which countries were the images taken?" asked for no place (a plural); "Did the board
    approve the tariff increase?" got no verdict from "The board rejected a proposal to raise ..."."""
    articles = {
        "CoastWatch-2 dataset": "CoastWatch-2 is a dataset of 48,210 annotated aerial images.\n\n"
        "## Contents\n\nThe images were taken by drones at 36 sites in Portugal, Spain and France.\n\n"
        "## Splits\n\n| Split | Images | Sites |\n|---|---|---|\n| Train | 38,560 | 28 |\n| Test | 4,830 | 4 |\n",
        "Board minutes": "The board rejected a proposal to raise household tariffs by 9 percent.\n\n"
        "The board approved the 2027 capital budget of 142 million pounds.\n",
    }
    images, test, countries, tariff = _ask_articles(
        tmp_path,
        articles,
        "How many images are in CoastWatch-2?",
        "How many images are in the test split?",
        "In which countries were the images taken?",
        "Did the board approve the tariff increase?",
    )
    assert images.claims[0].text == "CoastWatch-2 is a dataset of 48,210 annotated aerial images.", (
        images.answer_summary
    )
    assert test.claims[0].text == "Split: Test | Images: 4,830 | Sites: 4"
    assert countries.claims[0].text.startswith("The images were taken by drones"), countries.answer_summary
    assert tariff.claims[0].text == "No: The board rejected a proposal to raise household tariffs by 9 percent."
    assert [a.confidence.value for a in (images, test, countries, tariff)] == ["high"] * 4
    # a field (or a table's header) labelled by what is asked of is no answer: "Images: 38,560"
    (tmp_path / "resolution").mkdir()
    [resolution] = _ask_articles(
        tmp_path / "resolution",
        {
            **articles,
            "CoastWatch-2 dataset": articles["CoastWatch-2 dataset"] + "\nEach image is 4096 by 3072 pixels.\n",
        },
        "What resolution are the images?",
    )
    assert resolution.claims[0].text == "Each image is 4096 by 3072 pixels.", resolution.answer_summary


def test_a_court_opinion_summary_answers_its_verdict_and_its_reasons(tmp_path):
    """ "Did the Supreme Court affirm the trial court?" abstained: "reversed and held ..." has no
    object, which the verdict needed to hold "trial court"; "Why did the trial court dismiss the
    suit?" was answered first with the field "Court: ..." (a label of the question's words)."""
    text = (
        "# Reyes v. Coastal Transit Authority\n\n**Court:** Supreme Court of the State of Marin\n"
        "**Decided:** 22 May 2026\n\n## Summary\n\nThe trial court dismissed the suit, holding that the "
        "authority was immune under the State Tort Claims Act.\n\nThe Supreme Court reversed and held that "
        "the immunity does not extend to the routine operation of vehicles.\n"
    )
    affirm, why = _ask_file(
        tmp_path,
        "reyes.md",
        text,
        "Did the Supreme Court affirm the trial court?",
        "Why did the trial court dismiss the suit?",
    )
    assert affirm.claims[0].text.startswith("No: The Supreme Court reversed and held"), affirm.answer_summary
    assert why.claims[0].text.startswith("The trial court dismissed the suit, holding"), why.answer_summary


def test_what_a_party_must_do_is_stated_before_what_another_must(tmp_path):
    """ "How much notice must a landlord give to end a tenancy?" was answered first, high, with the
    tenant's 28 days: that sentence holds more of the question's words."""
    articles = {
        "Residential Tenancies Act 2024": "## Section 12. Security deposits\n\n"
        "1. The landlord must return the deposit within 21 days after the tenancy ends.\n\n"
        "## Section 13. Notice to end a tenancy\n\n"
        "1. A tenant may end a periodic tenancy by giving at least 28 days' written notice.\n"
        "2. A landlord must give at least 90 days' written notice, unless the tenant has seriously breached the "
        "agreement.\n\n## Section 14. Rent increases\n\n"
        "The landlord must give at least 60 days' written notice of an increase.\n"
    }
    landlord, tenant = _ask_articles(
        tmp_path,
        articles,
        "How much notice must a landlord give to end a tenancy?",
        "How much notice must a tenant give to end a periodic tenancy?",
    )
    assert landlord.claims[0].text.startswith("A landlord must give at least 90 days"), landlord.answer_summary
    assert tenant.claims[0].text.startswith("A tenant may end a periodic tenancy"), tenant.answer_summary


POLICY = (
    "# Evergreen Home Insurance Policy\n\n**Policy number:** EHI-5520-3381\n"
    "**Insurer:** Evergreen Mutual Insurance Company\n**Policy period:** 1 January 2026 to 31 December 2026\n\n"
    "## Coverage\n\nThe policy covers damage to the insured home caused by fire, lightning, windstorm, hail and "
    "burst pipes. Personal belongings are covered up to 50,000 euros.\n\n## Exclusions\n\n"
    "The policy does not cover damage caused by flooding from rivers or the sea. Damage caused by gradual wear and "
    "tear is not covered.\n\n## Deductible\n\nA deductible of 500 euros applies to each claim. For windstorm claims "
    "the deductible is 1,000 euros.\n\n## Claims\n\nClaims must be reported within 30 days of the damage. Claims "
    "can be filed online or by calling 0800-555-0199.\n"
)


@pytest.mark.parametrize(
    ("question", "first"),
    [
        # a section "Claims" is no name the evidence must speak of (was low, "about other things
        # that mention "claims"")
        ("What is the deductible for windstorm claims?", "For windstorm claims the deductible is 1,000 euros."),
        # another case of what the question qualifies ("windstorm claims" for "a fire claim") after
        ("What is the deductible for a fire claim?", "A deductible of 500 euros applies to each claim."),
        # a passage sharing a word with a question naming nothing, inflections alike (was not
        # drawn: "Claims ... reported" holds neither "claim" nor "report"; the deductible was stated)
        ("How long do I have to report a claim?", "Claims must be reported within 30 days of the damage."),
    ],
)
def test_an_insurance_policys_answers(tmp_path, question, first):
    [answer] = _ask_file(tmp_path, "policy.md", POLICY, question)
    assert answer.claims[0].text == first, answer.answer_summary
    assert answer.confidence.value == "high", answer.limitations


def test_what_a_drug_is_used_for_is_said_of_the_drug(tmp_path):
    """ "What is Nephralin used for?" was "Avoid use with rifampin, which decreases exposure.",
    high: it says "use", of no drug the question names, and the indication was never drawn. It is
    drawn now, and stated first: its heading ("INDICATIONS AND USAGE") says what is asked."""
    [answer] = _ask_file(
        tmp_path,
        "label.txt",
        "NEPHRALIN (apixostat) 5 mg tablets\n\nINDICATIONS AND USAGE\nNephralin is an anticoagulant indicated "
        "to reduce the risk of stroke in adults with atrial fibrillation.\n\nDRUG INTERACTIONS\n"
        "Avoid use with rifampin, which decreases exposure.\n",
        "What is Nephralin used for?",
    )
    assert answer.claims[0].text.startswith("Nephralin is an anticoagulant indicated"), answer.answer_summary


def test_a_chief_executive_is_who_leads(tmp_path):
    """ "Who leads Harbor Robotics?" was low on the revenue sentence: nothing said "leads"."""
    articles = {
        "Harbor Robotics Reports Third Quarter 2026 Results": "Harbor Robotics Inc. reported revenue of 412 "
        "million dollars.\n\nChief executive officer Dana Okafor said the growth came from European customers.\n"
    }
    [leads] = _ask_articles(tmp_path, articles, "Who leads Harbor Robotics?")
    assert leads.claims[0].text.startswith("Chief executive officer Dana Okafor"), leads.answer_summary
    assert leads.confidence.value == "high", leads.limitations


def test_a_headline_is_no_name_of_a_kind(tmp_path):
    """ "The contamination was discovered ..." read "Brightwave Foods Recalls Almond Butter Because
    of Possible Salmonella Contamination was discovered ...": the headline ends with the word."""
    articles = {
        "Brightwave Foods Recalls Almond Butter Because of Possible Salmonella Contamination": "Brightwave Foods "
        "is recalling 12,400 jars of its Creamy Almond Butter.\n\nThe contamination was discovered during routine "
        "testing by the California Department of Public Health.\n",
        "Bell Rock Lighthouse": "The Bell Rock Lighthouse stands off Angus.\n\nThe lighthouse was automated in 1988.\n",
    }
    found, automated = _ask_articles(
        tmp_path,
        articles,
        "Who discovered the contamination in Brightwave almond butter?",
        "When was the Bell Rock Lighthouse automated?",
    )
    said = [c.text for c in found.claims]
    assert (
        "The contamination was discovered during routine testing by the California Department of Public Health." in said
    )
    assert not any("Contamination was discovered" in c for c in said), said
    assert "The Bell Rock Lighthouse was automated in 1988." in [c.text for c in automated.claims]


def test_a_passage_whose_pronoun_the_claim_reads_as_the_name_needs_no_defining_passage(tmp_path):
    articles = {
        "Mira Castell": "Mira Castell (1921\u20131998) was a Catalan architect.\n\n"
        "She designed the Palau del Mar in Tarragona, completed in 1964.\n\n"
        "In 1971 she became the first woman to receive the Gold Medal of the Catalan Institute of Architects.\n",
    }
    (answer,) = _ask_articles(tmp_path, articles, "What did Mira Castell design?")
    # the claim says who "She" is: the document's opening sentence adds nothing asked
    assert [c.text for c in answer.claims] == [
        "Mira Castell designed the Palau del Mar in Tarragona, completed in 1964."
    ], answer.claims


def test_a_passage_saying_nothing_asked_that_the_answer_does_not_is_not_stated(tmp_path):
    leaflet = {
        "Veltrazine tablets": "Veltrazine is an antihistamine used to relieve hay fever and hives.\n\n"
        "## Dosage\n\nAdults and children over 12 should take one 10 mg tablet once a day. "
        "Do not take more than one tablet in 24 hours.\n\n"
        "## Pregnancy\n\nVeltrazine is not recommended during pregnancy.\n",
    }
    (answer,) = _ask_articles(tmp_path, leaflet, "What is the maximum dose of Veltrazine?")
    # the other passages say "Veltrazine", which the answer's document says already
    assert [c.text for c in answer.claims] == ["Do not take more than one tablet in 24 hours."], answer.claims


def test_the_thing_a_question_naming_nothing_asks_for_is_not_what_it_asks_of_it(tmp_path):
    guideline = {
        "Hypertension guideline": "Adults with a blood pressure of 140/90 mmHg or higher should be offered "
        "lifestyle advice.\n\nBlood pressure should be reviewed every year.\n",
    }
    (answer,) = _ask_articles(tmp_path, guideline, "What blood pressure counts as high?")
    # "Blood pressure should be reviewed every year." says "blood pressure", which is what is
    # asked for, and nothing of what is asked of it ("counts as high")
    assert answer.confidence.value != "high", [c.text for c in answer.claims]
    assert 'No claim states what the question asks of its subject ("counts", "high").' in answer.limitations


def test_a_definite_description_is_read_as_the_name_before_it(tmp_path):
    articles = {
        "Vermont Catamounts men's soccer": "The Vermont Catamounts men's soccer team represents the University of "
        "Vermont.\n\nThe team competes in the America East Conference.\n\n"
        "The conference was known as the North Atlantic Conference from 1988 to 1996.\n",
        "Big East Conference": "The Big East Conference is a collegiate athletic conference.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        pack = pg.retrieve("What was the America East Conference called before 1996?")
    # "The conference" is the America East Conference of the sentence before: found by its name
    passages = [i.text for i in pack.items if i.kind.value == "passage"]
    assert passages[:2] == [
        "The conference was known as the North Atlantic Conference from 1988 to 1996.",
        "The team competes in the America East Conference.",
    ]


@pytest.mark.parametrize(
    ("question", "short"),
    [
        ("Who built the Bell Rock Lighthouse?", "Robert Stevenson built the Bell Rock Lighthouse."),
        ("When was the Bell Rock Lighthouse built?", "The Bell Rock Lighthouse was built between 1807 and 1810."),
        ("How tall is the Bell Rock Lighthouse?", "The Bell Rock Lighthouse is 35 metres tall."),
        ("Where is the Bell Rock Lighthouse?", "The Bell Rock Lighthouse is off Angus."),
        ("Who built Skerryvore?", "Alan Stevenson built Skerryvore."),
    ],
)
def test_a_factoid_answer_opens_with_its_span_in_a_short_sentence_citing_the_sentence(lighthouses, question, short):
    answer = lighthouses.ask(question, record=False)
    first, sentence = answer.claims[:2]
    assert first.text == short and first.verified
    # the same citation: the whole sentence is its text
    assert first.supporting_citations == sentence.supporting_citations
    (cited,) = [c for c in answer.citations if c.id == first.supporting_citations[0]]
    assert cited.kind.value == "passage" and f"\n{cited.text}\n" in f"\n{LIGHTHOUSES[cited.title]}"
    assert answer.answer_summary.startswith(short[:-1] + " [")


CURIES = {
    "Marie Curie": "Marie Curie was a Polish and naturalised-French physicist and chemist.\n\n"
    "She was born in Warsaw on 7 November 1867.\n\nShe conducted pioneering research on radioactivity.\n\n"
    "She won the Nobel Prize in Chemistry in 1911.\n\nShe died in 1934 at the Sancellemoz sanatorium in Passy.\n",
    "Pierre Curie": "Pierre Curie was a French physicist.\n\nHe was born in Paris on 15 May 1859.\n\n"
    "He married Marie Sklodowska in 1895.\n\nHe died in a street accident in Paris in 1906.\n",
}


@pytest.mark.parametrize(
    ("question", "first"),
    [
        # the sentence that answers names its subject only as "He" or "She", and scores below the
        # ones that name it; it says what is asked in another inflection ("died" for "die")
        ("When did Pierre Curie die?", "Pierre Curie died in a street accident in Paris in 1906."),
        ("Where did Marie Curie die?", "Marie Curie died in 1934 at the Sancellemoz sanatorium in Passy."),
    ],
)
def test_the_sentence_saying_what_is_asked_with_a_value_of_its_type_is_stated_first(tmp_path, question, first):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, CURIES)
        answer = pg.ask(question, record=False)
    assert answer.claims[0].text == first
    assert answer.confidence.value == "high" and all(c.verified for c in answer.claims)


def test_an_inflection_of_the_asked_word_says_what_is_asked(tmp_path):
    # "opened" for "open": the date stated is the opening's, and the answer is high
    articles = {"Golden Gate Bridge": "Construction began on January 5, 1933, and the bridge opened on May 27, 1937.\n"}
    [answer] = _ask_articles(tmp_path, articles, "When did the Golden Gate Bridge open?")
    assert answer.confidence.value == "high", answer.limitations
    assert answer.claims[0].text == articles["Golden Gate Bridge"].strip()


def test_an_acronym_of_the_question_is_found_spelt_out_and_a_possessive_name_is_the_name(tmp_path):
    articles = {
        "Acme Corporation": "Acme Corporation is a maker of tools.\n\n"
        "Jane Smith has been the chief executive officer since 2019.\n\n"
        "Revenue rose to $4.2 billion in 2023.\n\nIts headquarters are in Tempe, Arizona.\n"
    }
    ceo, revenue, where = _ask_articles(
        tmp_path,
        articles,
        "Who is the CEO of Acme Corporation?",
        "What was Acme Corporation's revenue in 2023?",
        "Where is Acme Corporation headquartered?",
    )
    # "CEO of Acme Corporation" is no one name, and "CEO" is "chief executive officer"
    assert "Jane Smith has been the chief executive officer since 2019." in [c.text for c in ceo.claims]
    assert ceo.confidence.value == "high"
    assert revenue.claims[0].text == "Revenue rose to $4.2 billion in 2023."
    assert not any("No evidence found about" in note for note in revenue.limitations), revenue.limitations
    assert where.claims[0].text == "Acme Corporation is headquartered in Tempe."


def test_irregular_verb_forms_say_what_is_asked_and_an_adverb_stays_before_its_participle(tmp_path):
    articles = {
        "Marie Curie": "Marie Curie was a physicist.\n\nShe won the Nobel Prize in Chemistry in 1911.\n",
        "Metformin": "Metformin is a medication.\n\nIt was first described in 1922 by Emil Werner and James Bell.\n",
    }
    won, described = _ask_articles(
        tmp_path, articles, "Did Marie Curie win the Nobel Prize in Chemistry?", "When was metformin first described?"
    )
    # "won" is a form of "win": the passage answers the question word for word
    assert won.claims[0].text == "Yes: Marie Curie won the Nobel Prize in Chemistry in 1911."
    assert won.confidence.value == "high"
    assert described.claims[0].text == "Metformin was first described in 1922."


def test_no_short_sentence_for_two_questions_in_one_nor_a_place_that_is_no_place():
    sentence = "Globex was founded in 1989 by Hank Scorpio."
    # "and when" asks a second thing; "Hank Scorpio" follows "by", not "in" or "at"
    assert short_answer(sentence, "Who founded Globex and when?", "Globex") is None
    assert short_answer(sentence, "Where was Globex founded?", "Globex") is None
    assert short_answer(sentence, "Who founded Globex?", "Globex") == "Hank Scorpio founded Globex."
    # a defeat speaks of who won, but says no name won: here Novgorod's campaign ended
    defeat = "The defeat ended the eastward campaign of Novgorod for several decades."
    assert short_answer(defeat, "Who won the Battle of Lake Peipus?", "Battle of Lake Peipus") is None


@pytest.mark.parametrize(
    ("sentence", "question", "short"),
    [
        # the names listed together are the answer, not the first of them
        (
            "Contoso Ltd was founded in 1998 by Priya Raman and Tom Ellis.",
            "Who founded Contoso Ltd?",
            "Priya Raman and Tom Ellis founded Contoso Ltd.",
        ),
        (
            "Contoso Ltd was founded by Priya Raman, its chief executive.",
            "Who founded Contoso Ltd?",
            "Priya Raman founded Contoso Ltd.",
        ),
        # a name joined by "on" or "for", with its article
        (
            "The paper was presented at the Conference on Neural Information Processing Systems in December 2017.",
            "Where was the paper presented?",
            "The paper was presented at the Conference on Neural Information Processing Systems.",
        ),
        ("Globex was founded in Paris on Monday.", "Where was Globex founded?", "Globex was founded in Paris."),
        # "on" says when as well: a place after "in" first
        (
            "Contoso Ltd was founded on Christmas Day 1998 in Reading.",
            "Where was Contoso Ltd founded?",
            "Contoso Ltd was founded in Reading.",
        ),
        # an irregular participle ("The kettles sold were at Homeplus."), places listed together
        (
            "The kettles were sold at Homeplus and Kitchen Depot stores for about 39 dollars.",
            "Where were the kettles sold?",
            "The kettles were sold at Homeplus and Kitchen Depot.",
        ),
        # a possessive names an owner, not the answer
        (
            "Northwind Traders's brother, David Marsh, joined as finance director in 1990.",
            "Who is the finance director of Northwind Traders?",
            "David Marsh is the finance director of Northwind Traders.",
        ),
        # a name that opens the next clause is no part of the list
        (
            "Mozart was born in Salzburg and Vienna celebrates him.",
            "Where was Mozart born?",
            "Mozart was born in Salzburg.",
        ),
        # the name nearest to what is asked of the names ("led"), not to a name (was "Battle on the Ice")
        (
            "The Battle of Lake Peipus, also known as the Battle on the Ice, was fought in 1242 between the "
            "Teutonic Order and the forces of the Novgorod Republic, led by Prince Alexander Nevsky.",
            "Who led the Novgorod forces at the Battle of Lake Peipus?",
            "Prince Alexander Nevsky led the Novgorod forces at the Battle of Lake Peipus.",
        ),
    ],
)
def test_a_short_sentence_keeps_the_whole_answer(sentence, question, short):
    title = "Contoso Ltd" if "Contoso" in sentence else None
    assert short_answer(sentence, question, title) == short


def test_no_short_sentence_says_more_than_its_evidence(lighthouses):
    # "designed" is in no sentence: the answer states the sentence, and no short claim of its own
    answer = lighthouses.ask("Who designed the Bell Rock Lighthouse?", record=False)
    assert answer.claims and not any(c.text.startswith("Robert Stevenson designed") for c in answer.claims)
    assert answer.confidence.value == "low", answer.limitations


def test_no_short_sentence_gives_one_things_value_to_another(tmp_path):
    # the sentence dates the sampler, not the album it mentions
    articles = {"Crack a Smile": 'The sampler was released in February 2000 with a song from the album "Make Love".\n'}
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask('When was the album "Make Love" released?', record=False)
    assert [c.text for c in answer.claims] == [
        'The sampler was released in February 2000 with a song from the album "Make Love".'
    ]


def test_high_confidence_needs_an_answer_of_the_type_asked_for(lighthouses):
    typed = lighthouses.ask("When was the Bell Rock Lighthouse built?", record=False)
    assert typed.confidence.value == "high"
    assert "between 1807 and 1810" in typed.claims[0].text  # the claim stating a date first
    untyped = lighthouses.ask("When did the Bell Rock Lighthouse stand on the Bell Rock?", record=False)
    assert untyped.claims and all("1807" not in c.text and "1810" not in c.text for c in untyped.claims)
    assert untyped.confidence.value == "low"
    assert "The question asks for a date, and no claim states one." in untyped.limitations


def test_a_disjoint_property_conflict_says_what_each_side_states(tmp_path):
    ontology = tmp_path / "ontology.ttl"
    ontology.write_text(
        "@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        'ex:contraindicatedFor rdfs:label "is contraindicated for"@en ; owl:propertyDisjointWith ex:treats .\n'
        'ex:treats rdfs:label "treats"@en .\n',
        encoding="utf-8",
    )
    label, blog = tmp_path / "label.ttl", tmp_path / "blog.ttl"
    head = "@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    names = 'ex:ibuprofen rdfs:label "ibuprofen" . ex:pepticUlcer rdfs:label "peptic ulcer" .\n'
    label.write_text(head + names + "ex:ibuprofen ex:contraindicatedFor ex:pepticUlcer .\n", encoding="utf-8")
    blog.write_text(head + names + "ex:ibuprofen ex:treats ex:pepticUlcer .\n", encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.add_ontology(ontology)
        pg.ingest(label, IngestOptions(url="https://label.example/ibuprofen", title="Prescribing information", tier=1))
        pg.ingest(blog, IngestOptions(url="https://blog.example/ibuprofen", title="Health blog", tier=4))
        answer = pg.ask("Is ibuprofen contraindicated for peptic ulcer?", record=False)
    claim = answer.claims[0]
    assert claim.text.startswith(
        "Sources disagree about ibuprofen: Prescribing information says ibuprofen is contraindicated for peptic "
        "ulcer, while Health blog says ibuprofen treats peptic ulcer. "
    ), claim.text
    assert claim.verified and len(claim.supporting_citations) == 3


PEOPLE = {
    "Annie Morton": "Annie Morton (born October 8, 1970) is an American model born in Pennsylvania.\n",
    "Terry Richardson": "Terry Richardson (born August 14, 1965) is an American fashion and portrait photographer.\n",
    "Kay Hanley": "Kay Hanley is an American singer and songwriter.\n",
}


@pytest.fixture
def people(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, PEOPLE)
        yield pg


def test_a_comparison_ends_in_a_verdict_citing_both_sides(people):
    answer = people.ask("Who is older, Annie Morton or Terry Richardson?", record=False)
    verdict = answer.claims[0]
    assert verdict.text == "Terry Richardson is older: Annie Morton 1970, Terry Richardson 1965."
    assert verdict.verified and len(verdict.supporting_citations) == 2
    younger = people.ask("Who is younger, Annie Morton or Terry Richardson?", record=False)
    assert younger.claims[0].text == "Annie Morton is younger: Annie Morton 1970, Terry Richardson 1965."


def test_a_comparison_takes_each_sides_figure_from_the_passage_saying_what_is_compared(tmp_path):
    # each company's first figure is the year it was founded: the verdict compares the employees
    articles = {
        "Acme Corporation": "Acme Corporation is a maker of tools founded in 1948.\n\n"
        "The company employs 12,500 people.\n",
        "Globex": "Globex is a conglomerate founded in 1989.\n\nGlobex employs 4,800 people.\n",
    }
    [answer] = _ask_articles(tmp_path, articles, "Which company has more employees, Acme Corporation or Globex?")
    assert answer.claims[0].text == "Acme Corporation has more employees: Acme Corporation 12,500, Globex 4,800."
    assert answer.claims[0].verified


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("Does Globex pay dividends?", "No: The company does not pay dividends."),
        ("Is Globex listed in Tokyo?", "Yes: Globex is listed in Tokyo."),
        # a denial that bears on something else is no "No"
        ("Is Globex based in Oregon?", "Yes: Globex, which is not a bank, is based in Oregon."),
        # "Globex Corporation Japanese" is read as one name run on into the adjective after it
        ("Is Globex Corporation Japanese?", "Yes: Globex Corporation is a Japanese company listed in Tokyo."),
    ],
)
def test_a_yes_no_question_about_one_thing_a_passage_answers_ends_in_its_verdict(tmp_path, question, verdict):
    articles = {
        "Globex": "Globex is listed in Tokyo.\n\nThe company does not pay dividends.\n\n"
        "Globex, which is not a bank, is based in Oregon.\n\n"
        "Globex Corporation is a Japanese company listed in Tokyo.\n"
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(question, record=False)
        silent = pg.ask("Does Globex make tools?", record=False)
    assert answer.claims[0].text == verdict
    assert answer.claims[0].verified and answer.confidence.value == "high"
    assert [c.text for c in answer.claims].count(verdict.split(": ", 1)[1]) == 0  # stated once
    # a source that does not say is no "No"
    assert not any(c.text.startswith(("Yes", "No")) for c in silent.claims)


def test_what_a_source_leaves_open_is_no_verdict(tmp_path):
    """ "Did Meridian submit false claims?" was "No: It does not decide whether Meridian actually
    submitted false claims.", high: the denial is of deciding, and "whether" leaves the rest open."""
    articles = {
        "Okafor v. Meridian Health Systems": "The Ninth Circuit reversed.\n\n"
        "The decision does not decide whether Meridian actually submitted false claims.\n"
    }
    submitted, reversed_ = _ask_articles(
        tmp_path, articles, "Did Meridian submit false claims?", "Did the Ninth Circuit reverse?"
    )
    assert not any(c.text.startswith(("Yes", "No")) for c in submitted.claims), submitted.answer_summary
    assert submitted.confidence.value != "high"
    assert "No claim answers yes or no." in submitted.limitations
    assert reversed_.claims[0].text == "Yes: The Ninth Circuit reversed."


def test_a_verdict_in_every_word_of_the_question_answers_it_in_a_document_about_more(tmp_path):
    """ "Can ACE inhibitors be combined with ...?" abstained ("Can ACE" was read as one name, which
    no passage holds); "Should pregnant women take ACE inhibitors?" was low, the guideline being
    about hypertension ("about other things that mention "ace"")."""
    articles = {
        "Adult Hypertension: Clinical Practice Summary": "# Adult Hypertension\n\n## First-line treatment\n\n"
        "ACE inhibitors should not be combined with angiotensin receptor blockers.\n\n## Special populations\n\n"
        "- Pregnant women should not take ACE inhibitors, because they can harm the fetus.\n"
        "- Patients with albuminuria should receive an ACE inhibitor.\n"
    }
    combined, pregnant = _ask_articles(
        tmp_path,
        articles,
        "Can ACE inhibitors be combined with angiotensin receptor blockers?",
        "Should pregnant women take ACE inhibitors?",
    )
    assert combined.claims[0].text == "No: ACE inhibitors should not be combined with angiotensin receptor blockers."
    assert pregnant.claims[0].text.startswith("No: Pregnant women should not take ACE inhibitors")
    assert combined.confidence.value == "high", combined.limitations
    assert pregnant.confidence.value == "high", pregnant.limitations
    # "its longer half-life" says no half-life: a measure asks for a number (was high)
    articles["Adult Hypertension: Clinical Practice Summary"] += (
        "\nChlorthalidone is preferred over hydrochlorothiazide because of its longer half-life.\n"
    )
    [half_life] = _ask_articles(tmp_path, articles, "What is the half-life of chlorthalidone?")
    assert half_life.confidence.value == "low", half_life.answer_summary
    assert "The question asks for a number, and no claim states one." in half_life.limitations


def test_of_passages_saying_what_is_asked_the_one_holding_more_of_the_question_is_stated_first(tmp_path):
    """ "What was Harbor Robotics' revenue in the third quarter of 2026?" was first answered by the
    fourth quarter's forecast: the title ("... Third Quarter 2026 Results") holds "third" and
    "2026" for every passage, and the forecast is the shorter sentence. "... net loss in the
    third quarter of 2026?" was high on the 2025 net loss."""
    answer, loss, income, last_year = _ask_file(
        tmp_path,
        "earnings.txt",
        "Harbor Robotics Reports Third Quarter 2026 Results\n\n"
        "BOSTON, 28 October 2026 - Harbor Robotics Inc. today reported revenue of 412 million dollars for the "
        "third quarter of 2026, up 18 percent from a year earlier. Net income was 37 million dollars, compared "
        "with a net loss of 5 million dollars in the third quarter of 2025.\n\n"
        "Harbor Robotics expects fourth quarter revenue between 430 and 450 million dollars.\n",
        "What was Harbor Robotics' revenue in the third quarter of 2026?",
        *(
            f"What was Harbor Robotics' net {what} in the third quarter of {year}?"
            for what, year in (("loss", 2026), ("income", 2026), ("loss", 2025))
        ),
    )
    assert "412 million dollars" in answer.claims[0].text, answer.answer_summary
    # the title's "2026" does not make the 2025 net loss the third quarter of 2026's (was high)
    assert loss.confidence.value == "low", loss.answer_summary
    assert 'The evidence says "net loss" for 2025, not for 2026.' in loss.limitations
    # "Net income was 37 million dollars" names no year: the title's is its year
    assert income.confidence.value == "high", income.limitations
    assert "37 million dollars" in income.claims[0].text
    assert last_year.confidence.value == "high", last_year.limitations


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("Is Tallinn the capital of Latvia?", "No: Riga is the capital of Latvia."),
        ("Is Riga the capital of Latvia?", "Yes: Riga is the capital of Latvia."),
        ("Was Gauja the longest river in Latvia?", "No: The Daugava is the longest river in Latvia."),
    ],
)
def test_another_holder_of_a_role_of_one_is_a_no(tmp_path, question, verdict):
    """ "Is Tallinn the capital of Latvia?" had no verdict: no passage says it is or is not; one
    says Riga is, and a country has one capital."""
    articles = {
        "Tallinn": "Tallinn is the capital of Estonia.\n",
        "Riga": "Riga is the capital of Latvia.\n\nThe Daugava is the longest river in Latvia.\n",
        "Jelgava": "Jelgava is a son of the Zemgale region.\n",
        "Gauja": "The Gauja flows through Sigulda.\n",
    }
    [answer] = _ask_articles(tmp_path, articles, question)
    assert answer.claims[0].text == verdict, answer.answer_summary
    # a role of many is denied by nothing but a denial
    [son] = _ask_articles(tmp_path, articles, "Is Riga a son of the Zemgale region?")
    assert not any(c.text.startswith(("Yes", "No")) for c in son.claims)


def test_a_sentence_opening_with_a_surname_is_about_the_full_name_read_before(tmp_path):
    """ "Who succeeded Thomas Edgecombe?" was low on "Thomas Edgecombe managed the club ...":
    "Edgecombe was succeeded by Arthur Pell" does not say "Thomas"."""
    articles = {
        "Harrowgate Rovers F.C.": "Harrowgate Rovers F.C. is an English football club.\n\n"
        "Thomas Edgecombe managed the club from 1920 to 1935. He led Harrowgate to the Northern League title "
        "in 1928. Edgecombe was succeeded by Arthur Pell, who later became chairman.\n"
    }
    [succeeded] = _ask_articles(tmp_path, articles, "Who succeeded Thomas Edgecombe?")
    assert succeeded.claims[0].text == "Edgecombe was succeeded by Arthur Pell, who later became chairman."
    assert succeeded.confidence.value == "high", succeeded.limitations


def test_a_question_in_a_document_states_nothing(tmp_path):
    """An FAQ's question "Can I return a gift card?" answered itself: "Yes: Can I return a gift
    card?", high, where the source says "No, gift cards cannot be returned."."""
    articles = {
        "Northwind Returns FAQ": "Yes. Items bought online can be returned within 30 days of delivery.\n\n"
        "Can I return a gift card? No, gift cards cannot be returned.\n"
    }
    [gift] = _ask_articles(tmp_path, articles, "Can I return a gift card?")
    assert [c.text for c in gift.claims] == ["No: Gift cards cannot be returned."], gift.answer_summary
    assert gift.confidence.value == "high"


def test_a_sentences_own_no_is_kept_when_it_is_a_word_of_what_it_says(tmp_path):
    """ "Have any illnesses been reported ...?" abstained: its verdict read "No: Illnesses have been
    reported to date.", which the verifier rightly removed, the source saying "No illnesses"."""
    articles = {"Brightwave Foods recall": "No illnesses have been reported to date.\n"}
    [ill] = _ask_articles(tmp_path, articles, "Have any illnesses been reported from the Brightwave recall?")
    assert [c.text for c in ill.claims] == ["No: No illnesses have been reported to date."], ill.answer_summary
    assert ill.confidence.value == "high"


LABEL = (
    "LORAVEX (loratadine) 10 mg tablets\n\nINDICATIONS AND USAGE\nLoravex is an antihistamine indicated for "
    "the relief of seasonal allergic rhinitis.\n\nDOSAGE AND ADMINISTRATION\n"
    "Adults and children 6 years and older: one 10 mg tablet once daily.\n\n"
    "CONTRAINDICATIONS\nLoravex is contraindicated in patients who are hypersensitive to loratadine.\n\n"
    "ADVERSE REACTIONS\nThe most common adverse reactions were headache, somnolence and fatigue.\n\n"
    "STORAGE\nStore between 2 and 25 degrees Celsius.\n"
)


def test_a_labels_headings_in_capitals_are_sections_and_what_it_does_not_say_is_not_answered(tmp_path):
    """A plain text drug label's headings ("STORAGE") were read as the first words of the
    sentence after them ("STORAGE\nStore between ..."), and "What is the price of Loravex?" was
    medium on the contraindication, which says nothing of a price."""
    stored, price = _ask_file(
        tmp_path, "loravex.txt", LABEL, "How should Loravex be stored?", "What is the price of Loravex?"
    )
    assert stored.claims[0].text == "Store between 2 and 25 degrees Celsius.", stored.answer_summary
    assert stored.confidence.value == "high", stored.limitations
    assert price.abstained, price.claims
    assert (
        price.answer_summary == 'Insufficient evidence: no claim states what the question asks of "loravex" ("price").'
    )


def test_a_labels_words_answer_the_everyday_words_of_a_question(tmp_path):
    """ "What is Loravex used for?" was answered with the contraindication ("indicated for" says
    what a drug is used for), "What are the most common side effects?" was medium on "The most
    common adverse reactions were ..."."""
    used, effects = _ask_file(
        tmp_path, "loravex.txt", LABEL, "What is Loravex used for?", "What are the most common side effects of Loravex?"
    )
    assert used.claims[0].text.startswith("Loravex is an antihistamine indicated for"), used.answer_summary
    assert used.confidence.value == "high", used.limitations
    assert effects.claims[0].text.startswith("The most common adverse reactions were headache")
    assert effects.confidence.value == "high", effects.limitations


@pytest.mark.parametrize(
    ("question", "said", "confidence"),
    [
        # a date after what is asked of the subject, whatever names follow it (was low: "about
        # other things that mention "metavir", "fda"")
        ("When was Metavir approved by the FDA?", "Its lead product, Metavir, was approved by the FDA", "high"),
        # a year that dates something counts nothing (was high on "Its main patent expires in 2031")
        ("How many patents does Contoso hold?", "Its main patent expires in 2031.", "low"),
        # the year asked and what is asked in no one claim (was high on "... revenue in 2025" and
        # "... approved by the FDA in 2023")
        ("What was Contoso's revenue in 2023?", "", "low"),
        ("What was Contoso's revenue in 2025?", "Year: 2025 | Revenue: 2.4 billion dollars", "high"),
        # "continues for three years" says how long ("agreement" is what the question names)
        ("How long does the Fabrikam agreement last?", "The agreement begins on 1 April 2026 and continues", "high"),
        ("Where is Fabrikam incorporated?", "Fabrikam Inc., a Delaware corporation", "high"),
    ],
)
def test_a_filings_answers_say_what_is_asked_for_what_the_question_names(tmp_path, question, said, confidence):
    report = (
        "<html><body><h1>Contoso Pharmaceuticals Annual Report 2025</h1><h2>Business</h2>"
        "<p>Contoso Pharmaceuticals develops treatments for rare metabolic diseases. Its lead product, Metavir, "
        "was approved by the FDA in 2023.</p><h2>Risk factors</h2><p>Metavir accounted for 71 percent of the "
        "company's revenue in 2025. Its main patent expires in 2031.</p><table><tr><th>Year</th><th>Revenue</th>"
        "</tr><tr><td>2024</td><td>1.9 billion dollars</td></tr><tr><td>2025</td><td>2.4 billion dollars</td></tr>"
        "</table></body></html>"
    )
    contract = (
        "# Master Services Agreement between Fabrikam Inc. and Litware LLC\n\n"
        "This Master Services Agreement is entered into on 1 March 2026 by Fabrikam Inc., a Delaware corporation, "
        "and Litware LLC, a Texas limited liability company.\n\n## 1. Term\n\n"
        "The agreement begins on 1 April 2026 and continues for three years.\n\n## 2. Fees\n\n"
        "Fabrikam shall pay Litware a monthly fee of 48,000 dollars.\n"
    )
    (tmp_path / "report.html").write_text(report, encoding="utf-8")
    (tmp_path / "contract.md").write_text(contract, encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(tmp_path / "report.html")
        pg.ingest(tmp_path / "contract.md")
        answer = pg.ask(question, record=False)
    assert answer.confidence.value == confidence, (answer.answer_summary, answer.limitations)
    assert said in answer.claims[0].text, answer.answer_summary


REPORT = (
    "Contoso Ltd Annual Report 2024\n\n"
    "Contoso Ltd is a British software company headquartered in Reading. It was founded in 1998 by Priya Raman.\n\n"
    "Operating profit was 61 million pounds. The company employed 2,350 people at the end of the year.\n\n"
    "Priya Raman stepped down as chief executive in June 2023. She was succeeded by Daniel Osei.\n\n"
    "The company's largest customer is the National Health Service.\n"
)


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        ("When was Contoso founded?", "Contoso Ltd was founded in 1998 by Priya Raman."),
        ("How many people does Contoso employ?", "Contoso Ltd employed 2,350 people at the end of the year."),
        ("What is Contoso's largest customer?", "Contoso Ltd's largest customer is the National Health Service."),
        ("Who succeeded Priya Raman?", "Priya Raman was succeeded by Daniel Osei."),
    ],
)
def test_it_and_the_company_stand_for_the_name_before_them_when_the_title_is_no_name(tmp_path, question, claim):
    # a report's title names no subject: "It", "She", "The company" are what the sentences before them named
    [answer] = _ask_file(tmp_path, "contoso-annual-report.txt", REPORT, question)
    assert not answer.abstained and answer.confidence.value == "high", (answer.answer_summary, answer.limitations)
    assert claim in [c.text for c in answer.claims]
    assert all(c.verified for c in answer.claims)
    assert answer.citations[0].title == "Contoso Ltd Annual Report 2024"
    assert "Contoso Ltd Annual Report 2024" not in [c.text for c in answer.claims]  # the title line is no passage


def test_it_stands_for_the_thing_the_sentence_before_said_what_it_is(tmp_path):
    articles = {
        "Mount Everest": "Mount Everest is Earth's highest mountain.\n\n"
        "It lies in the Mahalangur Himal range.\n\nK2 is the second-highest mountain on Earth.\n\n"
        "It is in the Karakoram range.\n",
        "Innerspace": "Innerspace is a 1987 film directed by Joe Dante.\n\n"
        "Steven Spielberg produced the film.\n\nIt stars Dennis Quaid.\n",
    }
    k2, everest, stars, where = _ask_articles(
        tmp_path,
        articles,
        "What range is K2 in?",
        "What range is Mount Everest in?",
        "Who stars in Innerspace?",
        "Where is Mount Everest?",
    )
    assert k2.claims[0].text == "K2 is in the Karakoram range." and k2.confidence.value == "high"
    # the sentence saying where it is, not the first about it nor one about K2
    assert where.claims[0].text == "Mount Everest is in the Mahalangur Himal."
    said = [c.text for c in [*everest.claims, *stars.claims]]
    assert "Mount Everest is in the Karakoram range." not in said
    assert "Mount Everest lies in the Mahalangur Himal range." in said
    # "It" after a sentence about a person is still the film
    assert "Innerspace stars Dennis Quaid." in said and not any(c.startswith("Steven Spielberg stars") for c in said)


def test_a_measure_answers_the_adjective_that_asks_for_it(tmp_path):
    articles = {
        "Mount Everest": "Mount Everest is Earth's highest mountain.\n\nIts elevation is 8,849 metres.\n\n"
        "K2 is the second-highest mountain on Earth, at 8,611 metres.\n"
    }
    high, higher = _ask_articles(
        tmp_path, articles, "How high is Mount Everest?", "Which mountain is higher, Mount Everest or K2?"
    )
    # "elevation" is what "how high" asks for
    assert high.claims[0].text == "Mount Everest is 8,849 metres high." and high.confidence.value == "high"
    # K2's sentence in Everest's article is about K2: each side has its own figure
    assert higher.claims[0].text == "Mount Everest is higher: Mount Everest 8,849, K2 8,611."
    assert len(higher.claims[0].supporting_citations) == 2
    # "measures" is what "how big" asks for
    articles = {
        "The Ambassadors": "The Ambassadors is a 1533 painting by Hans Holbein the Younger.\n\n"
        "It is painted in oil on oak and measures 207 by 209.5 centimetres.\n"
    }
    [big] = _ask_articles(tmp_path, articles, "How big is The Ambassadors?")
    assert "measures 207 by 209.5 centimetres" in big.claims[0].text, big.answer_summary
    # "the tallest bridge" speaks of how tall it is
    articles = {
        "Millau Viaduct": "The Millau Viaduct is a bridge in France.\n\nThe viaduct cost 394 million euros.\n\n"
        "One of its masts reaches 343 metres, making it the tallest bridge in the world.\n"
    }
    [tall] = _ask_articles(tmp_path, articles, "How tall is the Millau Viaduct?")
    assert "343 metres" in tall.claims[0].text, tall.answer_summary


def test_a_comparison_takes_its_figures_from_what_says_what_is_compared(tmp_path):
    articles = {
        "Planets": "# Planets\n\n## Distances from the Sun\n\n- Mars: 1.52 astronomical units\n"
        "- Jupiter: 5.2 astronomical units\n\n## Moons\n\nMars has two moons, Phobos and Deimos. "
        "Jupiter has 95 known moons.\n"
    }
    [answer] = _ask_articles(tmp_path, articles, "Which planet has more moons, Mars or Jupiter?")
    # Mars's distance is no count of its moons; "two" is one
    assert answer.claims[0].text == "Jupiter has more moons: Mars two, Jupiter 95."
    assert answer.claims[0].verified


def test_a_year_compares_dates_though_another_sentence_says_what_is_compared(tmp_path):
    articles = {
        "Emma Bull": "Emma Bull (born December 13, 1954) is an American author.\n",
        "Virginia Woolf": "Adeline Virginia Woolf (25 January 1882 - 28 March 1941) was an English writer.\n\n"
        "Born in an affluent household in South Kensington, she was the seventh child.\n",
    }
    [answer] = _ask_articles(tmp_path, articles, "Who was born earlier, Emma Bull or Virginia Woolf?")
    assert answer.claims[0].text == "Virginia Woolf was born earlier: Emma Bull 1954, Virginia Woolf 1882."


def test_a_question_naming_nothing_is_answered_only_by_evidence_on_what_it_asks(tmp_path):
    # no capitalised name: "amoxicillin" is what it is about, and a phone's price is no answer
    articles = {
        "Amoxicillin leaflet": "Amoxicillin is a penicillin antibiotic.\n\n"
        "It does not work for colds or flu.\n\nDo not take amoxicillin if you are allergic to penicillin.\n",
        "Nimbus X2": "The Nimbus X2 is a smartphone.\n\nIts price is 799 US dollars.\n",
    }
    price, flu, children = _ask_articles(
        tmp_path,
        articles,
        "What is the price of amoxicillin?",
        "Does amoxicillin work for flu?",
        "Can children take amoxicillin?",
    )
    assert price.abstained, [c.text for c in price.claims]
    assert flu.claims[0].text == "No: Amoxicillin does not work for colds or flu." and flu.confidence.value == "high"
    # nothing speaks of children: no verdict, no answer
    assert children.abstained and 'does not mention "children"' in children.answer_summary


def test_it_of_a_document_whose_title_names_no_subject_is_not_the_title(tmp_path):
    # the title is the document's label: "It" (the deposit) is not "Residential Lease Agreement"
    path = tmp_path / "lease.txt"
    path.write_text(
        "Residential Lease Agreement\n\nThe lease begins on 1 March 2025 and ends on 28 February 2026.\n\n"
        "The Tenant pays a security deposit of 2,900 US dollars. "
        "It is returned within 30 days after the lease ends.\n",
        encoding="utf-8",
    )
    with ProvGraph.memory() as pg:
        pg.ingest(path)
        answer = pg.ask("What happens after the lease ends?", record=False)
    said = [c.text for c in answer.claims]
    assert "It is returned within 30 days after the lease ends." in said
    assert not any(c.startswith("Residential Lease Agreement is") for c in said)


TRIAL = (
    "JUPITER trial summary\n\n"
    "The JUPITER trial tested whether rosuvastatin prevents cardiovascular events. It enrolled 17,802 participants.\n\n"
    "Physician-reported diabetes was more common in the rosuvastatin group.\n\n"
    "The trial was sponsored by AstraZeneca. Its principal investigator was Paul Ridker.\n"
)


def test_a_common_word_opening_a_sentence_is_no_name_a_pronoun_stands_for(tmp_path):
    investigator, enrolled = _ask_file(
        tmp_path,
        "jupiter.txt",
        TRIAL,
        "Who was the principal investigator of JUPITER?",
        "How many participants did the JUPITER trial enroll?",
    )
    assert "The JUPITER trial's principal investigator was Paul Ridker." in [c.text for c in investigator.claims]
    assert not any("Physician-reported's" in c.text for c in investigator.claims)
    assert "The JUPITER trial enrolled 17,802 participants." in [c.text for c in enrolled.claims]


def test_what_an_acronym_stands_for_and_an_inflection_answer_the_question(tmp_path):
    articles = {
        "Right to erasure": "Article 17 of the General Data Protection Regulation (GDPR) gives a right to erasure.\n\n"
        "The regulation was adopted by the European Union in April 2016 and has applied since 25 May 2018.\n"
    }
    adopted, applies = _ask_articles(
        tmp_path, articles, "When was the GDPR adopted?", "When did the GDPR start to apply?"
    )
    said = (  # with the article its source gives it ("of the General Data Protection Regulation")
        "The General Data Protection Regulation was adopted by the European Union in April 2016 "
        "and has applied since 25 May 2018."
    )
    for answer in (adopted, applies):
        # "The regulation" is the GDPR spelt out; "applied" is a form of "apply"
        assert not answer.abstained and answer.confidence.value == "high", (answer.answer_summary, answer.limitations)
        assert said in [c.text for c in answer.claims]


def test_the_kind_stands_for_the_name_it_followed_before(tmp_path):
    articles = {
        "Attention Is All You Need": "Attention Is All You Need is a 2017 research paper.\n\n"
        "On the English-to-German task, the big Transformer model achieved a BLEU score of 28.4.\n\n"
        "The model was trained for 3.5 days on eight GPUs.\n"
    }
    [answer] = _ask_articles(tmp_path, articles, "How long was the Transformer trained?")
    assert not answer.abstained, answer.answer_summary
    assert "The Transformer model was trained for 3.5 days on eight GPUs." in [c.text for c in answer.claims]
    assert all(c.verified for c in answer.claims)


def test_a_determiner_before_the_kind_names_nothing(tmp_path):
    """ "This release includes ... The release was coordinated by ...": "This" is no name, so
    the claim does not read "The This release was coordinated by ..." """
    articles = {
        "Helix Editor 24.07 Release Notes": "Helix 24.07 was released on 15 July 2024.\n\n"
        "This release includes 412 commits from 87 contributors.\n\n"
        "The release was coordinated by Blaž Hrastnik.\n"
    }
    [answer] = _ask_articles(tmp_path, articles, "Who coordinated the Helix release?")
    assert answer.claims[0].text.startswith("Blaž Hrastnik coordinated"), answer.answer_summary
    assert not any("This release was coordinated" in c.text for c in answer.claims), answer.answer_summary


def test_a_case_is_one_name_and_its_court_keeps_its_article(tmp_path):
    """ "Obergefell v. Hodges" was two names and a word "v" the evidence said, so "What was the
    vote in ...?" was high on a sentence saying nothing of a vote; "The court ruled" read
    "Supreme Court ruled"."""
    articles = {
        "Obergefell v. Hodges": "Obergefell v. Hodges is a 2015 decision of the Supreme Court of the United States. "
        "The court ruled 5-4 that states must license marriages between two people of the same sex.\n\n"
        "Jim Obergefell had sued the state of Ohio to be listed as the surviving spouse on his husband's "
        "death certificate.\n"
    }
    ruled, vote, husband = _ask_articles(
        tmp_path,
        articles,
        "What did the court rule in Obergefell v. Hodges?",
        "What was the vote in Obergefell v. Hodges?",
        # no sentence names him: Jim Obergefell is no answer, nor is Ohio
        "Who was Jim Obergefell's husband?",
    )
    assert any(c.text.startswith("The Supreme Court ruled 5-4") for c in ruled.claims), ruled.answer_summary
    assert vote.confidence.value != "high", vote.answer_summary
    assert husband.confidence.value in ("low", "insufficient_evidence"), husband.answer_summary


def test_known_as_answers_what_a_thing_is_called(tmp_path):
    articles = {
        "Mount Tambora": "Mount Tambora is a stratovolcano in Indonesia.\n\n"
        'The following year, 1816, became known as the "Year Without a Summer" because of crop failures.\n'
    }
    [answer] = _ask_articles(tmp_path, articles, "Why was 1816 called the Year Without a Summer?")
    assert not answer.abstained, answer.answer_summary  # it abstained: the evidence never said "called"
    assert "because of crop failures" in answer.claims[0].text


def test_they_after_a_plural_is_that_plural_not_the_title(tmp_path):
    articles = {
        "Lactase": "Lactase is an enzyme that breaks down lactose.\n\n"
        "Lactase supplements are made from fungi such as Aspergillus oryzae. "
        "They are taken just before a meal that contains dairy.\n"
    }
    [answer] = _ask_articles(tmp_path, articles, "When should lactase supplements be taken?")
    said = [c.text for c in answer.claims]
    # it read "Lactase are taken just before a meal ..."
    assert "Lactase supplements are taken just before a meal that contains dairy." in said, said


def test_a_year_before_or_after_which_is_a_verdict_on_the_date_given(tmp_path):
    articles = {
        "Millau Viaduct": "The Millau Viaduct is a bridge in France.\n\n"
        "Construction began on 14 December 2001 and the bridge was opened on 16 December 2004.\n"
    }
    before, after, by = _ask_articles(
        tmp_path,
        articles,
        "Was the Millau Viaduct opened before 2003?",  # it abstained: no evidence says "2003"
        "Was the Millau Viaduct opened after 2003?",
        "Was the Millau Viaduct opened by 2004?",
    )
    assert before.claims[0].text.startswith("No: "), before.answer_summary  # 2004, not 2001
    assert after.claims[0].text.startswith("Yes: "), after.answer_summary
    assert by.claims[0].text.startswith("Yes: "), by.answer_summary


def test_what_kind_of_thing_is_answered_by_what_the_source_says_it_is(tmp_path):
    articles = {
        "Amoxicillin leaflet": "Amoxicillin is a penicillin antibiotic.\n\n"
        "Take amoxicillin with water.\n\nStore amoxicillin below 25 degrees.\n"
    }
    [answer] = _ask_articles(tmp_path, articles, "What kind of drug is amoxicillin?")
    assert not answer.abstained, answer.answer_summary
    assert answer.claims[0].text == "Amoxicillin is a penicillin antibiotic."
    assert answer.confidence.value == "high", answer.limitations  # what it is, is what is asked


def test_a_superlative_of_another_rank_is_no_yes(tmp_path):
    articles = {"Danube": "The Danube is the second-longest river in Europe, after the Volga.\n"}
    answer, second = _ask_articles(
        tmp_path,
        articles,
        "Is the Danube the longest river in Europe?",
        "Is the Danube the second-longest river in Europe?",
    )
    assert answer.claims and not any(c.text.startswith("Yes") for c in answer.claims)
    assert second.claims[0].text == "Yes: The Danube is the second-longest river in Europe, after the Volga."


def test_no_verdict_when_a_side_has_no_figure(people):
    answer = people.ask("Who is older, Annie Morton or Kay Hanley?", record=False)
    assert answer.claims  # the passages about each are stated, with no verdict
    assert all(" is older: " not in c.text for c in answer.claims)


def test_the_ontology_label_in_the_questions_language_is_chosen(tmp_path):
    source, ontology = _dose_files(tmp_path, "aspirina")
    with ProvGraph.memory() as pg:
        pg.ingest(source, IngestOptions(url="https://label.example/aspirina", title="Ficha técnica"))
        pg.add_ontology(ontology)
        spanish = pg.ask("¿Cuál es la dosis máxima diaria de aspirina?", record=False)
        english = pg.ask("What is the maximum daily dose of aspirina?", record=False)
    assert "the dosis máxima diaria (mg) of aspirina is 4000" in spanish.claims[0].text
    assert "the maximum daily dose (mg) of aspirina is 4000" in english.claims[0].text


def test_a_yes_no_question_a_fact_states_is_answered_yes(drugs):
    answer = drugs.ask("Does ibuprofen interact with warfarin?", record=False)
    assert answer.claims[0].text.startswith("Yes: ") and "ibuprofen interacts with warfarin" in answer.claims[0].text
    assert answer.claims[0].verified
    # nothing speaks of naproxen: no verdict, and never "No"
    other = drugs.ask("Does naproxen interact with warfarin?", record=False)
    assert other.abstained and 'does not mention "naproxen"' in other.answer_summary


DOGS = {
    "Scotch Collie": "The Scotch Collie is a landrace breed of dog from Scotland.\n\n"
    "Other ancestors include the Gordon and Irish Setters.\n",
    "Manchester Terrier": "The Manchester Terrier is a breed of dog of the smooth-haired terrier type.\n",
    "Irish Red and White Setter": "The Irish Red and White Setter is a breed of dog.\n\n"
    "Its ancestors include the Gordon and Irish Setters too.\n",
}


def test_a_choice_is_decided_by_what_the_question_says_of_the_one_it_asks_for(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, DOGS)
        answer = pg.ask(
            "Which dog's ancestors include Gordon and Irish Setters: the Manchester Terrier or the Scotch Collie?",
            record=False,
        )
        both = pg.ask(
            "Which dog's ancestors include Gordon and Irish Setters: the Irish Red and White Setter or the Scotch "
            "Collie?",
            record=False,
        )
    verdict = answer.claims[0]
    assert verdict.text == "Scotch Collie: Other ancestors include the Gordon and Irish Setters."
    assert verdict.verified and len(verdict.supporting_citations) == 2  # both sides cited
    assert answer.confidence.value == "high"
    # both say it: no verdict, and not high
    assert not any(c.text.startswith(("Scotch Collie:", "Irish Red and White Setter:")) for c in both.claims)
    assert both.confidence.value != "high"


COMPOSERS = {
    "Giuseppe Verdi": "Giuseppe Verdi (1813-1901) was an Italian opera composer.\n",
    "Ambroise Thomas": "Ambroise Thomas (1811-1896) was a French composer, best known for his operas.\n",
    "Ludwig van Beethoven": "Ludwig van Beethoven (1770-1827) was a German composer and pianist.\n",
    "Franz Liszt": "Franz Liszt was a Hungarian composer.\n\nHe is said to have admired Beethoven's operas.\n",
}


@pytest.fixture
def composers(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, COMPOSERS)
        yield pg


def test_a_yes_no_question_about_two_things_ends_in_a_verdict_citing_both(composers):
    both = composers.ask("Are Giuseppe Verdi and Ambroise Thomas both opera composers?", record=False)
    verdict = both.claims[0]
    assert verdict.text == "Yes: Giuseppe Verdi and Ambroise Thomas are both opera composers."
    assert verdict.verified and len(verdict.supporting_citations) == 2
    assert both.confidence.value == "high"
    same = composers.ask("Were Giuseppe Verdi and Ambroise Thomas of the same nationality?", record=False)
    assert same.claims[0].text == (
        "No: Giuseppe Verdi and Ambroise Thomas were not of the same nationality: "
        "Giuseppe Verdi Italian, Ambroise Thomas French."
    )
    assert same.claims[0].verified and same.confidence.value == "high"


def test_no_verdict_when_a_side_does_not_say(composers):
    # Beethoven's article does not call him an opera composer, and Liszt's mention of his operas
    # is not Beethoven's own sentence: no "Yes", and no "No" from silence
    answer = composers.ask("Are Giuseppe Verdi and Ludwig van Beethoven both opera composers?", record=False)
    assert answer.claims and not any(c.text.startswith(("Yes", "No")) for c in answer.claims)
    assert answer.confidence.value == "medium"
    assert "No claim answers yes or no." in answer.limitations


def _verdict_of(answer: GroundedAnswer) -> str:
    """The verdict an answer opens with, once it is verified, cites both sides and is high."""
    verdict = answer.claims[0]
    assert verdict.verified and len(verdict.supporting_citations) == 2, answer.claims
    assert answer.confidence.value == "high", answer.limitations
    return verdict.text


TEAMS = {
    "Harbor Hawks": "The Harbor Hawks are an American basketball team founded in 1946.\n\n"
    "They play in Portland, Oregon.\n",
    "Bay Lions": "The Bay Lions are an American basketball team founded in 1946.\n\n"
    "They play in Oakland, California.\n",
    "Mesa Kings": "The Mesa Kings are a Mexican football club founded in 1972.\n",
    "Glass Harbour": "Glass Harbour is a 2004 Canadian drama film directed by Anne Roy.\n",
    "Iron Coast": "Iron Coast is a 2010 Canadian documentary film directed by Anne Roy.\n",
}
#: ... and the same film by another director
OTHER_DIRECTOR = {"Iron Coast": "Iron Coast is a 2010 Canadian documentary film directed by Paul Lamb.\n"}


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # the second name's article once left the question without a pair: no verdict
        (
            "Are the Harbor Hawks and the Bay Lions both basketball teams?",
            "Yes: Harbor Hawks and Bay Lions are both basketball teams.",
        ),
        (
            "Are the Harbor Hawks and the Mesa Kings from the same country?",
            "No: Harbor Hawks and Mesa Kings are not from the same country: Harbor Hawks American, Mesa Kings Mexican.",
        ),
        # "the same year", "by the same person", "the same state" had no value of either side
        (
            "Were the Harbor Hawks and the Bay Lions founded in the same year?",
            "Yes: Harbor Hawks and Bay Lions were founded in the same year: Harbor Hawks 1946, Bay Lions 1946.",
        ),
        (
            "Were the Harbor Hawks and the Mesa Kings founded in the same year?",
            "No: Harbor Hawks and Mesa Kings were not founded in the same year: Harbor Hawks 1946, Mesa Kings 1972.",
        ),
        (
            "Were Glass Harbour and Iron Coast directed by the same person?",
            "Yes: Glass Harbour and Iron Coast were directed by the same person: "
            "Glass Harbour Anne Roy, Iron Coast Anne Roy.",
        ),
        # "the same director" was read from "film directed": "Yes" whoever directed them
        (
            "Do Glass Harbour and Iron Coast have the same director?",
            "No: Glass Harbour and Iron Coast do not have the same director: "
            "Glass Harbour Anne Roy, Iron Coast Paul Lamb.",
        ),
        (
            "Do the Harbor Hawks and the Bay Lions play in the same state?",
            "No: Harbor Hawks and Bay Lions do not play in the same state: Harbor Hawks Oregon, Bay Lions California.",
        ),
    ],
)
def test_what_two_things_share_ends_in_a_verdict_citing_both(tmp_path, question, verdict):
    articles = {**TEAMS, **OTHER_DIRECTOR} if "Paul Lamb" in verdict else TEAMS
    [answer] = _ask_articles(tmp_path, articles, question)
    assert _verdict_of(answer) == verdict


PLACES_AND_PLANTS = {
    "Aachen": "Aachen is a spa city in North Rhine-Westphalia, Germany.\n",
    "Bonn": "Bonn is a city on the banks of the Rhine in North Rhine-Westphalia, Germany.\n",
    "Lyon": "Lyon is the third-largest city of France, in the region of Auvergne-Rh\u00f4ne-Alpes, France.\n",
    "Silene": "Silene is a genus of flowering plants in the family Caryophyllaceae.\n",
    "Ferocactus": "Ferocactus is a genus of large barrel-shaped cacti in the family Cactaceae.\n",
}


def test_a_places_country_and_a_genus_family_decide_the_same(tmp_path):
    """ "Are Aachen and Lyon in the same country?" had no verdict (a place's article names its
    country, not a nationality), "located in ..." was a word no evidence said, and "the same
    family" was read from the word before "family" ("the")."""
    located, country, family, one = _ask_articles(
        tmp_path,
        PLACES_AND_PLANTS,
        "Are Aachen and Bonn located in the same country?",
        "Are Aachen and Lyon in the same country?",
        "Are Silene and Ferocactus in the same family?",
        "Is Aachen located in Germany?",
    )
    # ... nor did a passage putting one place in another answer "located in" word for word
    assert one.claims[0].text == "Yes: Aachen is a spa city in North Rhine-Westphalia, Germany."
    assert one.confidence.value == "high", one.limitations
    assert _verdict_of(located) == "Yes: Aachen and Bonn are in the same country: Aachen Germany, Bonn Germany."
    assert _verdict_of(country) == "No: Aachen and Lyon are not in the same country: Aachen Germany, Lyon France."
    assert _verdict_of(family) == (
        "No: Silene and Ferocactus are not in the same family: Silene Caryophyllaceae, Ferocactus Cactaceae."
    )


BANDS = {
    "Velvet Rain": "Velvet Rain is an English rock band formed in 1991.\n\nThe band has five members.\n",
    "Paper Moons": "Paper Moons is an English rock band formed in 1988.\n\nThe band has three members.\n",
    "Loravex": "Loravex is a tablet taken twice a day.\n\nEach tablet holds 20 mg of loratin.\n",
    "Ibuprofen": "Ibuprofen is a painkiller sold in 400 mg tablets.\n",
}


def test_whether_one_is_more_than_the_other_ends_in_a_verdict(tmp_path):
    """ "Is Velvet Rain older than Paper Moons?" had no verdict: only "Which is older, A or B?" was
    read as a comparison."""
    older, more, effective, which = _ask_articles(
        tmp_path,
        BANDS,
        "Is Velvet Rain older than Paper Moons?",
        "Does Velvet Rain have more members than Paper Moons?",
        "Is Loravex more effective than Ibuprofen?",
        "Which is more effective, Loravex or Ibuprofen?",
    )
    assert _verdict_of(older) == "No: Paper Moons is older: Velvet Rain 1991, Paper Moons 1988."
    assert _verdict_of(more) == "Yes: Velvet Rain has more members: Velvet Rain five, Paper Moons three."
    # what is counted may be a name ("Did Ann Lee win more Grand Slam titles than Kim Ray?" had no verdict)
    players = {
        "Ann Lee": "Ann Lee is an English tennis player.\n\nShe won 6 Grand Slam titles.\n",
        "Kim Ray": "Kim Ray is an English tennis player.\n\nShe won 3 Grand Slam titles.\n",
    }
    (tmp_path / "players").mkdir()
    [titles] = _ask_articles(tmp_path / "players", players, "Did Ann Lee win more Grand Slam titles than Kim Ray?")
    assert _verdict_of(titles) == "Yes: Ann Lee won more Grand Slam titles: Ann Lee 6, Kim Ray 3."
    # a dose says nothing of which is more effective: no figure decides it (it once read
    # "Ibuprofen is more effective: Loravex 20, Ibuprofen 400", high)
    for answer in (effective, which):
        assert not any(c.text.startswith(("Yes", "No")) or "more effective" in c.text for c in answer.claims)
        assert answer.confidence.value != "high"
    # nor is the year a band was formed a count of its members, though both passages say "band"
    # (it read "Velvet Static has more members: Glass Tide 2004, Velvet Static 2009", high)
    formed = {
        "Glass Tide": "Glass Tide is an English rock band formed in Leeds in 2004.\n",
        "Velvet Static": "Velvet Static is an American indie band from Portland, Oregon, formed in 2009.\n",
    }
    (tmp_path / "formed").mkdir()
    [members] = _ask_articles(tmp_path / "formed", formed, "Which band has more members, Glass Tide or Velvet Static?")
    assert not any("more members" in c.text for c in members.claims)
    assert members.confidence.value != "high"


def test_both_of_a_plural_kind_is_said_by_each_ones_singular(tmp_path):
    cities = {
        "Aachen": "Aachen is a spa city in North Rhine-Westphalia, Germany.\n",
        "Bonn": "Bonn is a city on the Rhine in North Rhine-Westphalia, Germany.\n",
    }
    # the verdict was drafted and removed: "cities" was not "city" to the judge
    (answer,) = _ask_articles(tmp_path, cities, "Are Aachen and Bonn both cities?")
    assert _verdict_of(answer) == "Yes: Aachen and Bonn are both cities."


def test_a_length_is_compared_in_lengths_and_a_size_in_areas(tmp_path):
    places = {
        "Mount Kerel": "Mount Kerel is a stratovolcano.\n\nIts summit is 3,412 metres above sea level.\n\n"
        "It last erupted in 1911.\n",
        "Mount Vesna": "Mount Vesna is the highest mountain of its range, at 2,980 metres.\n",
        "Lake Arden": "Lake Arden is a freshwater lake.\n\nIt covers 42 square kilometres and is 61 metres deep.\n",
        "Lake Brill": "Lake Brill is a reservoir created in 1954.\n\nIts maximum depth is 38 metres.\n",
    }
    higher, deeper, larger = _ask_articles(
        tmp_path,
        places,
        "Which is higher, Mount Kerel or Mount Vesna?",
        "Which lake is deeper, Lake Arden or Lake Brill?",
        "Is Lake Arden larger than Lake Brill?",
    )
    # it read "Mount Vesna is higher: Mount Kerel 1911, Mount Vesna 2,980."
    assert _verdict_of(higher) == "Mount Kerel is higher: Mount Kerel 3,412, Mount Vesna 2,980."
    # ... and "Lake Arden 42" (its area) for its depth
    assert _verdict_of(deeper) == "Lake Arden is deeper: Lake Arden 61, Lake Brill 38."
    # no area of Lake Brill: its depth, or the year it was created, is none ("Lake Brill 1954", high)
    assert not any(c.text.startswith(("Yes", "No")) for c in larger.claims)
    assert larger.confidence is not AnswerConfidence.HIGH


DIRECTORS = {
    "Marta Lindqvist": "Marta Lindqvist (born 3 May 1961) is a Swedish film director.\n\n"
    'She directed "North Light" in 1994.\n',
    "Paul Okafor": "Paul Okafor (born 12 June 1958) is a Nigerian film director.\n\n"
    "He founded the Lagos Film School in 1990.\n",
}


def test_which_of_two_is_more_asked_without_a_comma_ends_in_a_verdict(tmp_path):
    """ "Is Marta Lindqvist or Paul Okafor older?" and "Was Paul Okafor born before Marta
    Lindqvist?" had no verdict, and "Did ... both direct films?" read "both direct films"."""
    which, before, both, approved = _ask_articles(
        tmp_path,
        DIRECTORS,
        "Is Marta Lindqvist or Paul Okafor older?",
        "Was Paul Okafor born before Marta Lindqvist?",
        "Did Marta Lindqvist and Paul Okafor both direct films?",
        "Was Paul Okafor born before 1960?",
    )
    assert _verdict_of(which) == "Paul Okafor is older: Marta Lindqvist 1961, Paul Okafor 1958."
    assert _verdict_of(before) == "Yes: Paul Okafor was born earlier: Paul Okafor 1958, Marta Lindqvist 1961."
    assert _verdict_of(both) == "Yes: Marta Lindqvist and Paul Okafor both directed films."
    # a year is no second thing to compare with
    assert not any("earlier:" in c.text for c in approved.claims), approved.claims


AIRPORTS = {
    "Elko Regional Airport": "Elko Regional Airport is a public airport a mile west of downtown Elko, in Elko County, "
    "Nevada.\n",
    "Gerald R. Ford International Airport": "Gerald R. Ford International Airport is a commercial airport southeast "
    "of Grand Rapids, Michigan.\n",
    "Cherry Capital Airport": "Cherry Capital Airport is a public airport in Traverse City, Michigan.\n",
    "Lonely Airport": "Lonely Airport is a public airport with one runway.\n",
}


def test_a_place_each_side_states_decides_whether_both_are_located_there(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, AIRPORTS)

        def verdicts(question: str) -> list[str]:
            answer = pg.ask(question, record=False)
            return [c.text for c in answer.claims if c.verified and c.text.startswith(("Yes", "No"))]

        assert verdicts(
            "Are both Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?"
        ) == ["No: Elko Regional Airport is in Nevada, Gerald R. Ford International Airport in Michigan."]
        assert verdicts(
            "Are both Cherry Capital Airport and Gerald R. Ford International Airport located in Michigan?"
        ) == ["Yes: Cherry Capital Airport and Gerald R. Ford International Airport are both located in Michigan."]
        # a side whose passage names no region is silent: no verdict, and never "No" from silence
        assert verdicts("Are both Lonely Airport and Gerald R. Ford International Airport located in Michigan?") == []


FILMS = {
    "Big Stone Gap (film)": "Big Stone Gap is a 2014 American romantic comedy film directed by Adriana Trigiani.\n\n"
    "The film is set in the town of Big Stone Gap in Virginia.\n",
    "Adriana Trigiani": "Adriana Trigiani is an author and film director based in Greenwich Village, New York City.\n",
    "Kingston Morning": "Kingston Morning is a romantic comedy album recorded in New York City, New York, "
    "by a New York city band based in New York.\n",
}


def test_a_passage_of_a_document_the_best_passage_names_is_stated_as_the_second_hop(tmp_path):
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, FILMS)
        answer = pg.ask(
            'The director of the romantic comedy "Big Stone Gap" is based in what New York city?', record=False
        )
    assert any("Greenwich Village" in c.text for c in answer.claims), [c.text for c in answer.claims]


CRITICS = {
    "Scott Parkin": "Scott Parkin is an organizer from Garland, Texas.\n\n"
    "He has been a vocal critic of corporations such as Exxonmobil and Halliburton.\n",
    "Halliburton": "The Halliburton Company is an American multinational corporation.\n\n"
    "One of the largest oil field service companies, it has operations in more than 70 countries.\n",
}


def test_the_second_hop_states_the_named_documents_passage_of_the_type_asked_for(tmp_path):
    articles = {
        "2011 VCU Rams": "The 2011 VCU Rams team represented Virginia Commonwealth University.\n",
        "Virginia Commonwealth University": "Virginia Commonwealth University is a public research university in "
        "Richmond, Virginia.\n\nIts campus lies in the Fan district of Richmond, Virginia, near the university's "
        "team arena.\n\nIt was founded in 1838 as a medical college.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(
            "The 2011 VCU Rams team represented a university in Richmond, Virginia founded in what year?", record=False
        )
    # the campus passage shares more words with the question; the founding one holds a year
    assert answer.claims[0].text == "Virginia Commonwealth University was founded in 1838 as a medical college."


def test_the_second_hop_states_what_the_first_does_not(tmp_path):
    articles = {
        "East Lempster": "East Lempster is a village in the town of Lempster in Sullivan County, New Hampshire.\n",
        "Sullivan County, New Hampshire": "Sullivan County is a county located in the state of New Hampshire."
        "\n\nIts county seat is Newport.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(
            "What is the county seat of the county where East Lempster, New Hampshire is located?", record=False
        )
    # the county's opening passage repeats more of the question's words; the seat is what is missing
    assert any("Newport" in c.text for c in answer.claims), [c.text for c in answer.claims]


def test_the_second_hop_adds_no_passage_of_a_stated_document_that_says_nothing_missing(tmp_path):
    articles = {
        "Corran Instruments": "Corran Instruments is a maker of barometers founded by Ada Venn.\n",
        "Ada Venn": "Ada Venn was a Welsh engineer who was awarded the Kelvin Medal in 1932.\n\n"
        "Ada Venn also designed instruments for ships.\n",
    }
    (answer,) = _ask_articles(tmp_path, articles, "What was the founder of Corran Instruments awarded in 1932?")
    # Ada Venn's medal is stated already: her other passage is no hop, only another sentence
    texts = [c.text for c in answer.claims]
    assert any("Kelvin Medal" in t for t in texts), texts
    assert not any("ships" in t for t in texts), texts


MANAGERS = {
    "Ernest Hale": "Ernest Hale was an English football manager who managed Northgate United between 1903 and 1912.\n",
    "Tom Birch Academy": "The Tom Birch Academy is a football school founded by Tom Birch in 2005.\n",
}
RECRUITED = "The football manager who recruited Tom Birch managed Northgate United during what timeframe?"


def test_an_answer_about_someone_nothing_links_to_the_questions_name_abstains(tmp_path):
    (answer,) = _ask_articles(tmp_path, MANAGERS, RECRUITED)
    # Ernest Hale managed Northgate United, but nothing found says he recruited Tom Birch
    assert answer.abstained, [c.text for c in answer.claims]
    assert answer.answer_summary == (
        'Insufficient evidence: the evidence found does not link "Ernest Hale" to "Tom Birch".'
    )


def test_the_answer_another_passage_links_to_the_questions_name_is_stated_first(tmp_path):
    articles = MANAGERS | {
        "Alan Reed": "Alan Reed is a Scottish former football manager who managed Northgate United from 1986 "
        "to 2013.\n\nIn 1991 Reed recruited Tom Birch from a youth team in Leeds.\n"
    }
    (answer,) = _ask_articles(tmp_path, articles, RECRUITED)
    # ... with the passage linking him to Tom Birch; Ernest Hale's and the academy's say nothing
    # asked that these do not
    assert [c.text for c in answer.claims] == [
        "Alan Reed is a Scottish former football manager who managed Northgate United from 1986 to 2013.",
        "In 1991 Reed recruited Tom Birch from a youth team in Leeds.",
    ], answer.claims
    assert answer.confidence.value == "high", answer.limitations


def test_a_passage_stated_for_a_name_alone_gives_way_to_one_on_the_chain(tmp_path):
    articles = MANAGERS | {
        "Alan Reed": "Alan Reed is a Scottish former football manager who managed Northgate United from 1986 "
        "to 2013.\n",
        "1995\u201396 Northgate United season": "The 1995\u201396 season was Northgate United's fourth season in "
        "the league.\n\nTheir triumph was remarkable because Alan Reed had sold experienced players before the "
        "season.\n\nInstead, he had drafted in young players like Tom Birch and Sam Ode.\n",
    }
    (answer,) = _ask_articles(tmp_path, articles, RECRUITED)
    # the season's report links Alan Reed to the squad; its passage naming Tom Birch says which
    # manager is meant, where the academy's only names him
    texts = [c.text for c in answer.claims]
    assert texts == [
        "Alan Reed is a Scottish former football manager who managed Northgate United from 1986 to 2013.",
        "Their triumph was remarkable because Alan Reed had sold experienced players before the season.",
        "Instead, he had drafted in young players like Tom Birch and Sam Ode.",
    ], texts


CLUB = {
    "Northgate United": "Northgate United is an English football club founded in 1879.\n\n"
    "In 1991 the club signed Tom Birch from Leeds.\n",
}
SIGNED = "When was the football club that signed Tom Birch founded?"


def test_an_answer_about_another_thing_than_the_clause_describes_is_not_high(tmp_path):
    academy = {"Tom Birch Academy": "Tom Birch founded the Tom Birch Academy, a youth football club, in 2005.\n"}
    (answer,) = _ask_articles(tmp_path, CLUB | academy, SIGNED)
    # the academy's founding answers "founded" and names Tom Birch, but the club that signed him
    # is Northgate United: nothing says the academy signed anyone
    assert answer.claims[0].text.startswith("Tom Birch founded the Tom Birch Academy"), answer.claims
    assert answer.confidence.value == "medium", answer.limitations
    assert 'No claim says Tom Birch Academy is "the football club that signed Tom Birch".' in answer.limitations


def test_the_passage_nearest_in_meaning_to_the_question_answers_it(tmp_path):
    academy = {"Tom Birch Academy": MANAGERS["Tom Birch Academy"]}
    (answer,) = _ask_articles(tmp_path, CLUB | academy, SIGNED)
    # "The Tom Birch Academy is a football school founded by Tom Birch in 2005" shares more of
    # the question's words; the club's founding is nearer in meaning (provgraph.answer.semantic)
    assert [c.text for c in answer.claims] == [
        "Northgate United is an English football club founded in 1879.",
        "In 1991 the club signed Tom Birch from Leeds.",
    ], answer.claims
    assert answer.confidence.value == "high", answer.limitations


def test_an_answer_about_what_the_clause_describes_is_high(tmp_path):
    (answer,) = _ask_articles(tmp_path, CLUB, SIGNED)
    assert [c.text for c in answer.claims] == [
        "Northgate United is an English football club founded in 1879.",
        "In 1991 the club signed Tom Birch from Leeds.",
    ], answer.claims
    assert answer.confidence.value == "high", answer.limitations


def test_a_passage_naming_a_stated_passages_document_is_the_second_hop_the_other_way(tmp_path):
    articles = {
        "University of Kansas": "The University of Kansas is a public research university whose main campus is "
        "in Lawrence, Kansas.\n\nTwo branch campuses are in the Kansas City metropolitan area.\n",
        "Kansas City metropolitan area": "The Kansas City metropolitan area is a metropolitan area anchored by "
        "Kansas City, Missouri.\n",
        "Kansas Song": "Kansas Song is a fight song of the University of Kansas.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(
            "What is the name of the fight song of the university whose main campus is in Lawrence, Kansas and whose "
            "branch campuses are in the Kansas City metropolitan area?",
            record=False,
        )
    # the university's article does not name its song: the song's article names the university
    assert any("fight song" in c.text for c in answer.claims), [c.text for c in answer.claims]


def test_the_second_hop_follows_a_document_the_passages_document_names_elsewhere(tmp_path):
    # a long article: the sentence naming the song, sharing no word with the question, is not retrieved
    discs = "\n\n".join(f"Disc {n} of the box set holds the songs of the year {1950 + n}." for n in range(1, 23))
    articles = {
        "Back to Mono": f"Back to Mono is a box set of the recorded work of a record producer.\n\n{discs}\n\n"
        "Its opening recording is To Know Him Is to Love Him.\n",
        "To Know Him Is to Love Him": "To Know Him Is to Love Him is a song written by Phil Spector, inspired by "
        "words on his father's tombstone.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(
            "Who is the writer of this song that was inspired by words on a tombstone and was the first track on "
            "the box set Back to Mono?",
            record=False,
        )
    # the document relation ("Back to Mono" mentions the song) takes the second hop
    assert any("Phil Spector" in c.text for c in answer.claims), [c.text for c in answer.claims]


def test_a_named_documents_passage_that_adds_nothing_asked_is_not_stated(tmp_path):
    articles = {
        "Big Stone Gap (film)": "Big Stone Gap is a 2014 American romantic comedy film starring Ashley Judd.\n",
        "Ashley Judd": "Ashley Judd is an American actress and political activist.\n",
    }
    [answer] = _ask_articles(tmp_path, articles, "When was the film Big Stone Gap, starring Ashley Judd, released?")
    texts = [c.text for c in answer.claims]
    # the actress's article names no release and no date: the second hop has nothing to add
    assert texts and "Ashley Judd is an American actress and political activist." not in texts, texts


def test_the_second_hop_follows_a_possessive_name(tmp_path):
    articles = {
        "Robert Suettinger": "Robert Suettinger was President Bill Clinton's intelligence officer for East Asia.\n",
        "Bill Clinton": "William Jefferson Clinton is an American politician.\n\n"
        "He was Governor of Arkansas from 1979 to 1981 and from 1983 to 1992.\n",
        "Mike Huckabee": "Mike Huckabee was Governor of Arkansas from 1996 to 2007.\n",
    }
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, articles)
        answer = pg.ask(
            "Robert Suettinger was the intelligence officer under which former Governor of Arkansas?", record=False
        )
    # "Bill Clinton's" names the document "Bill Clinton"
    assert "Bill Clinton" in {c.title for c in answer.citations}, answer.claims


def test_the_second_hop_starts_at_a_passage_saying_a_possessive_name_without_it(tmp_path):
    albums = {
        "Glass Tide": "Glass Tide is an English rock band formed in Leeds in 2004.\n\n"
        "Their debut album, Paper Lanterns, was released in 2007.\n",
        "Paper Lanterns (album)": "Paper Lanterns is the debut studio album by Glass Tide.\n\n"
        "It was produced by Martin Voss and recorded in Berlin.\n",
    }
    (answer,) = _ask_articles(tmp_path, albums, "Where was Glass Tide's debut album recorded?")
    # "Their debut album" in "Glass Tide" says "Glass Tide's": the album's passage is the second hop
    assert "Paper Lanterns was produced by Martin Voss and recorded in Berlin." in [c.text for c in answer.claims]


def test_the_second_hop_states_the_named_documents_passage_that_answers(tmp_path):
    # "another corporation" is named only in Scott Parkin's passage: Halliburton's passage that
    # answers names neither Scott Parkin nor Exxonmobil
    with ProvGraph.memory() as pg:
        _ingest_articles(pg, tmp_path, CRITICS)
        answer = pg.ask(
            "Scott Parkin has been a vocal critic of Exxonmobil and another corporation that has operations in how "
            "many countries?",
            record=False,
        )
    texts = [c.text for c in answer.claims]
    answering = next(i for i, t in enumerate(texts) if "operations in more than 70 countries" in t)
    # and the sentence saying what Halliburton is, after it: the answering one says only "it"
    defining = texts.index("The Halliburton Company is an American multinational corporation.")
    assert answering < defining


BRIDGES = {
    "Harbour Bridge (Kelston)": "The Harbour Bridge is a suspension bridge in Kelston.\n\n"
    "It was designed by Mara Lindqvist and opened in 1932.\n",
    "Mara Lindqvist": "Mara Lindqvist (4 March 1889 - 2 June 1961) was a Swedish structural engineer.\n\n"
    "She studied at the Royal Institute of Technology in Stockholm.\n\n"
    "She married the architect Olof Berg in 1915.\n",
    "Norland Railway": "The Norland Railway opened in 1871.\n\nIts main line runs from Kelston to Brackley.\n",
}


def test_the_second_hop_reads_what_is_asked_in_any_inflection(tmp_path):
    # "study" is said "studied"; "born" by the dates in brackets after her name
    studied, born = _ask_articles(
        tmp_path,
        BRIDGES,
        "Where did the designer of the Harbour Bridge study?",
        "When was the designer of the Harbour Bridge born?",
    )
    assert studied.claims[0].text == "Mara Lindqvist studied at the Royal Institute of Technology in Stockholm."
    assert "4 March 1889" in born.claims[0].text
    assert {studied.confidence, born.confidence} == {AnswerConfidence.HIGH}


def test_the_second_hop_states_a_passage_for_each_word_missing(tmp_path):
    # her opening sentence says she was an engineer, the next one whom she married
    (answer,) = _ask_articles(tmp_path, BRIDGES, "Whom did the engineer who designed the Harbour Bridge marry?")
    texts = [c.text for c in answer.claims]
    assert "Mara Lindqvist married the architect Olof Berg in 1915." in texts
    assert "Harbour Bridge was designed by Mara Lindqvist and opened in 1932." in texts


def test_a_thing_the_question_describes_is_answered_by_its_documents_sentence_naming_it(tmp_path):
    # the question names no railway: the passage saying which one it is names no date, the
    # sentence of its document naming it does
    (answer,) = _ask_articles(tmp_path, BRIDGES, "When did the railway that runs from Kelston to Brackley open?")
    assert not answer.abstained
    assert "The Norland Railway opened in 1871." in [c.text for c in answer.claims]


def test_a_question_about_a_thing_described_by_a_name_abstains_without_its_own_passage(tmp_path):
    # only the bridges' articles: which engineer and which mason is said, nothing of them
    bridges = {
        "Harbour Bridge (Kelston)": BRIDGES["Harbour Bridge (Kelston)"],
        "Old Mill Bridge": "The Old Mill Bridge is a stone arch bridge over the River Tane.\n\n"
        "It was built in 1788 by the mason John Carr.\n",
    }
    studied, born, nationality, long = _ask_articles(
        tmp_path,
        bridges,
        "Where did the designer of the Harbour Bridge study?",
        "When was the mason who built the Old Mill Bridge born?",
        "What nationality was the designer of the Harbour Bridge?",
        "How long is the river that the Old Mill Bridge crosses?",
    )
    assert studied.abstained and born.abstained and nationality.abstained and long.abstained
    assert studied.answer_summary == (
        'Insufficient evidence: the evidence found says which is "the designer of the harbour bridge", and '
        "nothing of what the question asks of it ('study')."
    )
    assert "the mason who built the old mill bridge" in born.answer_summary
    # her own article answers (test_the_second_hop_reads_what_is_asked_in_any_inflection)


def test_who_did_it_to_another_thing_is_no_answer(tmp_path):
    films = {
        "The Silent Harbour": "The Silent Harbour is a 1998 Norwegian drama film directed by Ingrid Solberg.\n",
        "Anders Holm": "Anders Holm is a Norwegian actor.\n\n"
        "He is known for his roles in The Silent Harbour and Northern Lights.\n",
    }
    harbour, lights = _ask_articles(
        tmp_path, films, "Who directed The Silent Harbour?", "Who directed Northern Lights?"
    )
    assert harbour.confidence is AnswerConfidence.HIGH and "Ingrid Solberg" in harbour.claims[0].text
    # it was low on the other film's director, beside the actor's passage naming both films
    assert lights.abstained
    assert 'says "directed" of Silent Harbour, not of "northern lights"' in lights.answer_summary


def test_a_name_of_another_kind_of_thing_is_no_answer(tmp_path):
    town = {
        "Red Hollow (town)": "Red Hollow is a town in Minnesota.\n\nIt was founded in 1856 by Swedish settlers.\n\n"
        "The film director Ann Berg was born there.\n"
    }
    film, founded = _ask_articles(
        tmp_path, town, "Who directed the film Red Hollow?", "Who founded the town Red Hollow?"
    )
    # it answered "Ann Berg directed the film Red Hollow", from the town's passage naming a director
    assert film.abstained
    assert film.answer_summary == (
        'Insufficient evidence: the evidence found is about "Red Hollow (town)", not the film "red hollow".'
    )
    assert not founded.abstained and "Swedish settlers" in founded.claims[0].text


def test_a_doer_named_by_a_noun_did_not_do_it(tmp_path):
    articles = {
        "Red Hollow": "Red Hollow is a town in Minnesota.\n\nThe film director Ann Berg was born there.\n",
        "Lake Orm": "Lake Orm is a lake in Sweden.\n\nThe painter Lisa Holm painted it in 1902.\n",
    }
    directed, painted = _ask_articles(tmp_path, articles, "Who directed Red Hollow?", "Who painted Lake Orm?")
    # it read "Ann Berg directed Red Hollow.", high: a director born in the town
    assert "Ann Berg directed Red Hollow." not in [c.text for c in directed.claims]
    assert directed.confidence is not AnswerConfidence.HIGH
    assert "No claim says who directed it." in directed.limitations
    assert painted.confidence is AnswerConfidence.HIGH and painted.claims[0].text == "Lisa Holm painted Lake Orm."


def test_a_figure_of_a_place_in_the_place_asked_of_is_no_answer(tmp_path):
    towns = {
        "Kelston": "Kelston is a port city in Norland with a population of 412,000.\n\n"
        "It is the seat of Kelston County.\n",
        "Norland Railway": "The Norland Railway opened in 1871.\n\nIts main line runs from Kelston to Brackley.\n",
    }
    kelston, norland, brackley = _ask_articles(
        tmp_path,
        towns,
        "What is the population of Kelston?",
        "What is the population of Norland?",
        "What is the population of Brackley?",
    )
    assert kelston.confidence is AnswerConfidence.HIGH
    assert "412,000" in kelston.claims[0].text
    # Kelston's population, Kelston in Norland; and Kelston's again, beside a railway to Brackley
    assert norland.abstained and brackley.abstained
    assert 'says "population" of Kelston, not of "norland"' in norland.answer_summary
    assert 'says "population" of Kelston, not of "brackley"' in brackley.answer_summary


GALLIUM = (
    "# Gallium\n\nGallium is a chemical element with the symbol Ga and atomic number 31. It was discovered in "
    "1875 by the French chemist Paul-Emile Lecoq de Boisbaudran.\n\n## Properties\n\n"
    "Elemental gallium is a soft, silvery metal at standard temperature. It melts at 29.76 degrees Celsius.\n"
)
CAKE = (
    "# Lemon cake\n\nThis moist cake comes from the Ligurian coast.\n\n## Ingredients\n\n"
    "- 3 eggs\n- 200 g sugar\n- 150 ml olive oil\n"
)


@pytest.mark.parametrize(
    ("question", "unsaid"),
    [
        ("Who discovered germanium?", "germanium"),
        ("How much butter is in the cake?", "butter"),
        ("Is germanium a soft metal?", "germanium"),
    ],
)
def test_evidence_never_saying_what_the_question_is_about_abstains(tmp_path, question, unsaid):
    # "Who discovered germanium?" was answered, high, with who discovered gallium: every word of
    # the question but "germanium" is in the passage, and a lower-case word is no name
    [answer] = _ask_articles(tmp_path, {"Gallium": GALLIUM, "Lemon cake": CAKE}, question)
    assert answer.confidence.value == "insufficient_evidence", answer.claims
    assert f'does not mention "{unsaid}"' in answer.answer_summary


def test_evidence_saying_what_the_question_is_about_still_answers(tmp_path):
    found, sugar = _ask_articles(
        tmp_path, {"Gallium": GALLIUM, "Lemon cake": CAKE}, "Who discovered gallium?", "How much sugar is in the cake?"
    )
    assert "Lecoq de Boisbaudran discovered gallium" in found.claims[0].text, found.claims
    assert sugar.claims[0].text.startswith("200 g sugar"), sugar.claims


def test_a_short_mention_of_a_title_names_it_without_what_it_says_in_brackets(tmp_path):
    # "the Tenancy Act" was no name of "Tenancy (Deposits) Act 2024": the passage that answers
    # was not drawn at all
    act = (
        "# Tenancy (Deposits) Act 2024\n\n## Section 1. Maximum deposit\n\n"
        "A landlord may not require a deposit of more than five weeks' rent.\n\n"
        "## Section 5. Commencement\n\nThis Act comes into force on 1 June 2025.\n"
    )
    [answer] = _ask_file(tmp_path, "act.md", act, "When does the Tenancy Act come into force?")
    assert answer.claims[0].text == "This Act comes into force on 1 June 2025.", answer.answer_summary
    assert answer.confidence.value == "high", answer.limitations


def test_a_possessive_is_what_names_it_and_says_what_it_has(tmp_path):
    # "Fernwood's revenue" kept only passages saying "Fernwood's", as "Fernwood's shares rose":
    # the passage giving the revenue says "Fernwood Robotics"
    call = (
        "# Fernwood Robotics Q3 2026 earnings call\n\n"
        "Fernwood Robotics reported third-quarter revenue of $412 million, up 18 percent from a year earlier.\n\n"
        "Fernwood's shares rose 9 percent in after-hours trading.\n"
    )
    [answer] = _ask_file(tmp_path, "call.md", call, "What was Fernwood's revenue in the third quarter?")
    assert [c.text for c in answer.claims] == [
        "Fernwood Robotics reported third-quarter revenue of $412 million, up 18 percent from a year earlier."
    ]
    assert answer.confidence.value == "high", answer.limitations


WARRANTY = (
    "# Limited warranty\n\n## What is not covered\n\nThe warranty does not cover:\n\n"
    "- damage caused by limescale,\n- gaskets, filters and other wear parts,\n- machines used commercially.\n\n"
    "## How to make a claim\n\nContact support with your proof of purchase.\n"
)


def test_a_list_item_is_read_with_the_sentence_it_completes(tmp_path):
    # "Is limescale damage covered by the warranty?" was medium, no verdict, on
    # "damage caused by limescale,"; "What does the warranty not cover?" stated the sentence
    # "The warranty does not cover:" alone
    limescale, excluded = _ask_file(
        tmp_path,
        "warranty.md",
        WARRANTY,
        "Is limescale damage covered by the warranty?",
        "What does the warranty not cover?",
    )
    assert limescale.claims[0].text == "No: The warranty does not cover damage caused by limescale."
    assert limescale.confidence.value == "high", limescale.limitations
    assert sorted(c.text for c in excluded.claims) == [
        "The warranty does not cover damage caused by limescale.",
        "The warranty does not cover gaskets, filters and other wear parts.",
        "The warranty does not cover machines used commercially.",
    ]


def test_a_measure_is_answered_by_the_passage_saying_it_not_by_the_titles_opening(tmp_path):
    # "What is the melting point of gallium?" led with "Gallium is a chemical element ...": its
    # section, the title, said "gallium"; "At what temperature ...?" with "... at standard
    # temperature"; "It melts at ..." says "gallium" by "It", and a degree Celsius a temperature
    point, temperature = _ask_articles(
        tmp_path,
        {"Gallium": GALLIUM},
        "What is the melting point of gallium?",
        "At what temperature does gallium melt?",
    )
    assert point.claims[0].text == "Gallium melts at 29.76 degrees Celsius.", point.claims
    assert temperature.claims[0].text == "Gallium melts at 29.76 degrees Celsius.", temperature.claims


def test_a_headline_says_which_event_a_report_is_of(tmp_path):
    report = (
        "M6.4 earthquake strikes off the coast of Valdoria\n\n"
        "A magnitude 6.4 earthquake struck off the southern coast of Valdoria at 03:12 local time on Tuesday, "
        "14 October 2026, the National Seismological Service said. The epicentre was 42 kilometres south-west of "
        "the port city of Marenza, at a depth of 18 kilometres.\n\n"
        "The last earthquake of similar size in the region was in 1987, when a magnitude 6.6 "
        "quake destroyed much of the old town of Sella.\n\nThe service recorded more than 120 aftershocks in the first "
        "24 hours, the largest of magnitude 5.1.\n"
    )
    [answer] = _ask_file(tmp_path, "quake.txt", report, "What was the magnitude of the earthquake?")
    assert answer.claims[0].text.startswith("A magnitude 6.4 earthquake struck"), answer.claims


def test_an_outcome_of_a_thing_named_by_common_words_is_a_verdict(tmp_path):
    # "Did gross margin rise?" was medium, no verdict: only "Did the <one word> ...?" was read as
    # asking of its subject
    call = (
        "# Fernwood Robotics earnings call\n\n"
        "Chief financial officer Tomas Lindqvist said gross margin fell to 38 percent from 41 percent.\n"
    )
    rose, fell = _ask_file(tmp_path, "call.md", call, "Did gross margin rise?", "Did the gross margin fall?")
    assert rose.claims[0].text.startswith("No: Chief financial officer"), rose.claims
    assert fell.claims[0].text.startswith("Yes: Chief financial officer"), fell.claims
    assert rose.confidence.value == fell.confidence.value == "high"


def test_how_much_of_a_thing_asks_an_amount_not_a_share(tmp_path):
    # "How much gallium was produced in 2022?" was high on "China produced about 98 percent of
    # the world's primary gallium"
    production = (
        "# Gallium\n\nGallium is a chemical element.\n\n## Production\n\n"
        "In 2022, China produced about 98 percent of the world's primary gallium. "
        "World production was estimated at 550 tonnes in 2022.\n"
    )
    amount, share = _ask_file(
        tmp_path,
        "gallium.md",
        production,
        "How much gallium was produced in 2022?",
        "How much of the world's gallium did China produce in 2022?",
    )
    assert amount.claims[0].text == "World production was estimated at 550 tonnes in 2022.", amount.claims
    assert share.claims[0].text.startswith("In 2022, China produced about 98 percent"), share.claims


SEASON = (
    "# Coastal League season\n\nHarbour City won the title for the third time, finishing four points ahead of "
    "Eastport Rovers.\n\n| Position | Club | Played | Won | Drawn | Lost | Points |\n|---|---|---|---|---|---|---|\n"
    "| 1 | Harbour City | 30 | 21 | 5 | 4 | 68 |\n| 2 | Eastport Rovers | 30 | 19 | 7 | 4 | 64 |\n"
    "| 3 | Millbrook Town | 30 | 16 | 6 | 8 | 54 |\n| 16 | Southgate United | 30 | 4 | 6 | 20 | 18 |\n\n"
    "Southgate United were relegated after finishing bottom.\n"
)


def test_an_outcome_another_had_is_no_yes(tmp_path):
    # "Did Eastport Rovers win the league?" was "Yes: Harbour City won the title ..., ahead of
    # Eastport Rovers": every word of the question is in the passage, but another won
    [answer] = _ask_file(tmp_path, "season.md", SEASON, "Did Eastport Rovers win the league?")
    assert not any(c.text.startswith("Yes") for c in answer.claims), answer.claims


def test_a_tables_count_answers_how_many_a_club_won(tmp_path):
    # "games" is what "Played" and "Won" count: no table says it
    [answer] = _ask_file(tmp_path, "season.md", SEASON, "How many games did Eastport Rovers win?")
    assert answer.claims[0].text.startswith("Position: 2 | Club: Eastport Rovers"), answer.answer_summary


def test_what_a_thing_is_answers_what_is_it(tmp_path):
    # "What is Lumenflow?" was answered with where it reads its settings: the sentence saying
    # what it is scored below the ones repeating its name in code
    readme = (
        "# Lumenflow\n\nLumenflow is a command-line tool for converting Markdown notes into static websites.\n\n"
        "## Installation\n\n```\ngo install example.org/lumenflow@latest\n```\n\n"
        "On macOS you can also use Homebrew: `brew install lumenflow`.\n\n## Configuration\n\n"
        "Lumenflow reads its settings from `lumenflow.toml` in the project root.\n\n## Requirements\n\n"
        "- Git, for the `lumenflow publish` command\n"
    )
    [answer] = _ask_file(tmp_path, "README.md", readme, "What is Lumenflow?")
    assert answer.claims[0].text.startswith("Lumenflow is a command-line tool"), answer.claims


def test_an_ordinal_asks_for_the_row_at_that_place(tmp_path):
    # "Which club finished third?" was answered with the second's row
    [answer] = _ask_file(tmp_path, "season.md", SEASON, "Which club finished third?")
    assert answer.claims[0].text.startswith("Position: 3 | Club: Millbrook Town"), answer.claims


def test_a_row_about_another_case_is_no_field_asked(tmp_path):
    # "How much is an adult ticket?" led with "Ticket: Child under 12 | Price: Free": its
    # "Ticket" held a number ("12")
    page = (
        "<html><body><h1>Harbour Museum</h1><h2>Admission</h2><table><tr><th>Ticket</th><th>Price</th></tr>"
        "<tr><td>Adult</td><td>14 euros</td></tr><tr><td>Student</td><td>9 euros</td></tr>"
        "<tr><td>Child under 12</td><td>Free</td></tr></table></body></html>"
    )
    [answer] = _ask_file(tmp_path, "museum.html", page, "How much is an adult ticket?")
    assert answer.claims[0].text == "Ticket: Adult | Price: 14 euros", answer.claims


def test_life_dates_say_when_someone_lived_not_in_what_place(tmp_path):
    # "Ingrid Solvang (1911-1987) was a Norwegian composer" was a "high" answer to where she
    # was born: the dates were read as saying "born"
    text = (
        "Ingrid Solvang\n\nIngrid Solvang (1911-1987) was a Norwegian composer and organist.\n\n"
        "She was organist of Bergen Cathedral from 1946 until 1979.\n"
    )
    [answer] = _ask_file(tmp_path, "solvang.txt", text, "Where was Ingrid Solvang born?")
    assert answer.confidence.value != "high", answer.answer_summary


SHRIKE = (
    "# Red-backed shrike\n\nThe red-backed shrike (Lanius collurio) is a carnivorous passerine bird.\n\n"
    "## Description\n\nThe red-backed shrike is 16 to 18 centimetres long and weighs between 23 and 34 grams.\n"
)
MINUTES = (
    "# Brackenfield Town Council: minutes of 3 November 2026\n\nPresent: Cllr J. Haworth, Cllr S. Iqbal.\n\n"
    "Apologies: Cllr D. Fenn.\n\n## Date of next meeting\n\n"
    "The next meeting will be held on 1 December 2026 at 7 pm in the Town Hall.\n"
)


@pytest.mark.parametrize(
    ("name", "text", "question"),
    [
        ("shrike.md", SHRIKE, "What does the red-backed shrike eat?"),
        ("minutes.md", MINUTES, "Who was absent from the council meeting?"),
    ],
    ids=["verb", "state"],
)
def test_evidence_never_saying_the_verb_or_state_asked_is_no_high_answer(tmp_path, name, text, question):
    # both were "high", with the bird's size and the next meeting's date
    [answer] = _ask_file(tmp_path, name, text, question)
    assert answer.confidence.value != "high", answer.answer_summary


def _ask_titled(directory, name: str, text: str, title: str, *questions: str) -> list[GroundedAnswer]:
    """As :func:`_ask_file`, the document titled ``title`` by its caller."""
    path = directory / name
    path.write_text(text, encoding="utf-8")
    with ProvGraph.memory() as pg:
        pg.ingest(path, IngestOptions(title=title))
        return [pg.ask(q, record=False) for q in questions]


FACTSHEET = (
    "<html><body><h1>Northgate Global Bond Fund</h1><p>The fund aims to provide income and growth.</p>"
    "<h2>Key facts</h2><table><tr><th>Fund manager</th><td>Priya Raman</td></tr>"
    "<tr><th>Ongoing charges</th><td>0.45%</td></tr></table></body></html>"
)


def test_a_documents_own_heading_is_the_section_its_passages_are_under_when_titled_otherwise(tmp_path):
    # titled "Fund factsheet", the fund's name was in no passage's context: the manager's row
    # lost to a sentence saying what the fund aims at, and trial figures were "not mentioned"
    manager, charges = _ask_titled(
        tmp_path,
        "factsheet.html",
        FACTSHEET,
        "Fund factsheet",
        "Who manages the Northgate Global Bond Fund?",
        "What are the ongoing charges of the Northgate Global Bond Fund?",
    )
    assert manager.claims[0].text == "Fund manager: Priya Raman", manager.claims
    assert charges.claims[0].text == "Ongoing charges: 0.45%", charges.claims
    trial = (
        "# VERDANT-2\n\n## Summary\n\nVERDANT-2 was a randomised trial of tezacorin. It was sponsored by "
        "Halvorsen Therapeutics.\n\n## Participants\n\nA total of 4,812 patients were enrolled.\n"
    )
    enrolled, sponsor = _ask_titled(
        tmp_path,
        "trial.md",
        trial,
        "Clinical trial report",
        "How many patients were enrolled in VERDANT-2?",
        "Who sponsored the VERDANT-2 trial?",
    )
    assert enrolled.claims[0].text == "A total of 4,812 patients were enrolled.", enrolled.answer_summary
    # "VERDANT-2", in capitals with a digit, is a name though "verdant" is English
    assert "Halvorsen Therapeutics" in sponsor.claims[0].text and sponsor.confidence.value == "high", sponsor.claims


def test_a_plain_texts_title_line_is_the_heading_of_the_rest_when_titled_otherwise(tmp_path):
    judgment = (
        "Marlow v Quayside Developments Ltd [2025] EWHC 1187 (TCC)\n\n"
        "The claimant bought a flat in 2019.\n\nThe case was heard by Mrs Justice Okafor in February 2025.\n"
    )
    [answer] = _ask_titled(tmp_path, "judgment.txt", judgment, "Court judgment", "Who heard the Marlow case?")
    assert "Mrs Justice Okafor" in answer.claims[0].text, answer.answer_summary


def test_it_stands_for_the_documents_own_heading_as_its_text_says_it(tmp_path):
    shrike = SHRIKE + "\nIt breeds in most of Europe and winters in tropical Africa.\n"
    [answer] = _ask_titled(tmp_path, "shrike.md", shrike, "Bird", "Where does the red-backed shrike winter?")
    # was "Bird breeds in ...": the caller's title for "It"
    assert answer.claims[0].text.startswith("The red-backed shrike breeds in"), answer.claims


def test_a_name_before_a_parenthesis_is_what_her_stands_for(tmp_path):
    text = (
        "Ingrid Solvang (1911-1987) was a Norwegian composer and organist.\n\n"
        "She was organist of Bergen Cathedral from 1946.\n\n"
        "Her best-known work is the choral cycle Havets salmer, first performed in 1952.\n"
    )
    [answer] = _ask_titled(tmp_path, "solvang.txt", text, "Composer", "What is Ingrid Solvang's best-known work?")
    assert answer.claims[0].text.startswith("Ingrid Solvang's best-known work is"), answer.answer_summary


def test_the_kind_a_name_was_called_in_apposition_stands_for_it(tmp_path):
    judgment = (
        "The claimant, Ms Ellen Marlow, bought a flat from the defendant in 2019.\n\n"
        "The case was heard in February 2025.\n\nThe claimant was awarded damages of 86,500 pounds.\n"
    )
    [answer] = _ask_titled(tmp_path, "judgment.txt", judgment, "Court judgment", "How much was Ellen Marlow awarded?")
    # abstained: "the evidence found is about other things that mention Ellen Marlow"
    assert answer.claims[0].text == "Ms Ellen Marlow was awarded damages of 86,500 pounds.", answer.answer_summary


def test_a_span_speed_and_an_events_date_answer_how_long_how_strong_and_when_it_happened(tmp_path):
    articles = {
        "MSc Data Science": "The MSc Data Science is a one-year full-time programme taught at the Westbrook campus.\n",
        "Wind warning": "A yellow warning for wind is in force for the coast of Cornwall.\n\n"
        "Gusts of 50 to 60 mph are expected along exposed coasts.\n",
        "Great Fire of Kelby": "The Great Fire of Kelby destroyed much of the old town of Kelby between 4 and "
        "6 September 1722.\n\nStrong easterly winds spread it across the timber-framed houses.\n",
    }
    long, strong, happened = _ask_articles(
        tmp_path,
        articles,
        "How long is the MSc Data Science?",
        "How strong will the gusts be?",
        "When did the Great Fire of Kelby happen?",
    )
    # "one-year" says how long, and "mph" how strong: each was "low", or another document's "Strong
    # easterly winds"; an event's date is all "when did it happen" asks
    assert long.confidence.value == "high", long.limitations
    assert strong.claims[0].text.startswith("Gusts of 50 to 60 mph"), strong.claims
    assert happened.confidence.value == "high", happened.limitations


VOLCANO = (
    "# Mount Teravai\n\nMount Teravai is a stratovolcano on the island of Kaleva.\n\n"
    "The volcano last erupted in 1994, when about 4,000 residents were evacuated.\n\n"
    "The eruption was monitored by the Kaleva Volcano Observatory, founded in 1972.\n"
)
EXHIBITION = (
    "# Threads of the Silk Road\n\nThreads of the Silk Road is an exhibition at the Corvin Museum of "
    "Textiles, open from 6 March to 31 August 2027.\n\n## Tickets\n\nTickets cost 14 euros for adults. "
    "The museum is closed on Mondays.\n\n## Curator\n\nThe exhibition was curated by Dr Lena Okafor, keeper of "
    "Asian textiles at the museum.\n"
)


def test_the_sentence_saying_last_answers_when_something_last_happened(tmp_path):
    [answer] = _ask_titled(tmp_path, "volcano.md", VOLCANO, "Volcano", "When did Mount Teravai last erupt?")
    # "last" is a stop word: the observatory's founding (1972, "eruption") led the answer
    assert "last erupted in 1994" in answer.claims[0].text, answer.claims


def test_the_kind_the_documents_own_heading_is_said_to_be_stands_for_it(tmp_path):
    curated, closes, mondays = _ask_titled(
        tmp_path,
        "exhibition.md",
        EXHIBITION,
        "Exhibition",
        "Who curated Threads of the Silk Road?",
        "When does the exhibition close?",
        "Is the museum open on Mondays?",
    )
    # "The exhibition" was the caller's title: "Exhibition was curated by Dr Lena Okafor"
    assert any(c.text.startswith("Threads of the Silk Road was curated by") for c in curated.claims), curated.claims
    assert not any(c.text.startswith("Exhibition") for c in curated.claims), curated.claims
    # the end of "open from 6 March to 31 August 2027" says when it closes ("closed on Mondays" led)
    assert "31 August 2027" in closes.claims[0].text and closes.confidence.value == "high", closes.claims
    # "closed" denies "open"; "Mondays" is no name the evidence must be about; the curator's
    # sentence (it says "museum") says nothing asked
    assert [c.text for c in mondays.claims] == ["No: The Corvin Museum is closed on Mondays."], mondays.claims
    assert mondays.confidence.value == "high", mondays.limitations


def test_a_time_after_an_event_answers_when_and_a_possessives_name_opens_its_sentence(tmp_path):
    articles = {
        "Discharge leaflet": "Your stitches will be removed by the practice nurse 12 to 14 days after the operation.\n",
        "Earnings release": "Halvorsen Marine ASA reported third-quarter revenue of NOK 4.2 billion.\n",
    }
    stitches, revenue = _ask_articles(
        tmp_path,
        articles,
        "When will my stitches be removed?",
        "What was Halvorsen Marine's revenue in the third quarter?",
    )
    # both were low: "no claim states a date"; "the evidence is about other things that mention
    # Halvorsen Marine's"
    assert stitches.confidence.value == "high", stitches.limitations
    assert revenue.confidence.value == "high", revenue.limitations


RECALL = (
    "# Brightwell kettle recall\n\nBrightwell Appliances is recalling its Aria kettle because the base can "
    "overheat.\n\n## Affected products\n\nThe recall covers kettles with batch codes 2403 to 2419. Kettles with "
    "other batch codes are not affected.\n\n## What to do\n\nStop using the kettle immediately. Unplug the base "
    "and contact Brightwell for a free replacement. Do not return the kettle to the shop.\n\n## Incidents\n\n"
    "Brightwell has received 14 reports of bases melting. No injuries have been reported.\n"
)


def test_a_recall_notice_answers_what_is_affected_what_to_do_and_whether_anyone_was_hurt(tmp_path):
    affected, todo, injured = _ask_titled(
        tmp_path,
        "recall.md",
        RECALL,
        "Recall notice",
        "Which batch codes are affected?",
        "What should I do if I have an affected kettle?",
        "Has anyone been injured?",
    )
    # each was "Kettles with other batch codes are not affected." (the best words, denying what is asked)
    assert affected.claims[0].text.startswith("The recall covers kettles with batch codes 2403 to 2419"), (
        affected.claims
    )
    # the heading "What to do" asks the question; its sentences answer it
    assert [c.text for c in todo.claims] == [
        "Stop using the kettle immediately.",
        "Unplug the base and contact Brightwell for a free replacement.",
        "Do not return the kettle to the shop.",
    ], todo.claims
    # abstained: "injured" and "injuries" have different stems, and no passage says "anyone"
    assert [c.text for c in injured.claims] == ["No: No injuries have been reported."], injured.answer_summary


def test_beaten_after_the_verb_and_a_named_qualifier_of_what_is_asked(tmp_path):
    articles = {
        "Cup final report": "Riverside United came from behind to beat Northgate Athletic 2-1 in the cup final "
        "at Harlow Park on Saturday.\n",
        "MSc Marine Biology entry requirements": "Applicants whose first language is not English need an IELTS "
        "score of 6.5 overall.\n",
        "Hollins Bakery": "Hollins Bakery is a family bakery in Thornbury, founded in 1921.\n\n"
        "Hollins Bakery is open from 7 am to 4 pm, Tuesday to Saturday.\n",
        "Cup final goals": "Leo Brandt headed in a corner just after half-time.\n",
    }
    final, ielts, opens, baker = _ask_articles(
        tmp_path,
        articles,
        "Did Northgate Athletic win the cup final?",
        "What IELTS score do I need?",
        "When is Hollins Bakery open?",
        "Who is the head baker?",
    )
    # no verdict: "behind", the word before "beat", was read as what the question asks won
    assert final.claims[0].text.startswith("No: Riverside United came from behind to beat"), final.claims
    # low: "the evidence is about other things that mention IELTS" (it says "an IELTS score")
    assert ielts.confidence.value == "high", ielts.limitations
    # "7 am to 4 pm" says when (it was low: "no claim states a date"), ahead of the founding year
    assert opens.claims[0].text.startswith("Hollins Bakery is open from 7 am"), opens.claims
    assert opens.confidence.value == "high", opens.limitations
    # a role is what a "who is the ...?" question is about: "Leo Brandt headed in a corner" was
    # the answer, high
    assert not any("headed" in c.text for c in baker.claims), baker.claims
    assert baker.confidence.value != "high", baker.claims


def test_a_calendar_date_says_when_and_a_time_after_the_place_it_is_asked_of(tmp_path):
    notice = (
        "# Route 42 timetable change\n\nFrom 5 January 2027, Route 42 between Ashby and Millbrook will run every "
        "20 minutes on weekdays.\n\nThe first bus leaves Ashby at 6.10 am and the last bus leaves Millbrook at "
        "11.40 pm. On Sundays, the service runs every hour.\n\nThe change is being made because of a shortage "
        "of drivers.\n"
    )
    change, last = _ask_titled(
        tmp_path,
        "bus.md",
        notice,
        "Bus service",
        "When does the timetable change?",
        "What time is the last bus from Millbrook?",
    )
    # "On Sundays" (a day, no date) led
    assert change.claims[0].text.startswith("From 5 January 2027"), change.claims
    # low: "the evidence is about other things that mention Millbrook" (the time follows the place)
    assert last.confidence.value == "high", last.limitations


def test_a_list_of_first_names_before_a_surname_is_who_did_it(tmp_path):
    articles = {
        "Corran Instruments": "Corran Instruments is a Scottish manufacturer of scientific balances, founded in "
        "Dundee in 1887 by the brothers James and Robert Corran.\n\nIts chief executive since 2019 has been "
        "Fiona Baird.\n"
    }
    founded, chief, listed = _ask_articles(
        tmp_path,
        articles,
        "Who founded Corran Instruments?",
        "Who is the chief executive of Corran Instruments?",
        "Is Corran Instruments listed on the stock exchange?",
    )
    assert founded.claims[0].text == "James and Robert Corran founded Corran Instruments.", (
        founded.claims
    )  # "Robert Corran"
    assert "Corran Instruments' chief executive since 2019 has been Fiona Baird." in [c.text for c in chief.claims]
    # no verdict, and no claim saying "listed", "stock" or "exchange": no answer (it was medium, then low)
    assert listed.abstained, listed.claims


SPEC = (
    "<html><body><h1>Velo Commuter 2 e-bike</h1><p>The Velo Commuter 2 is a city e-bike with a hub motor.</p>"
    "<h2>Specifications</h2><table><tr><th>Battery</th><td>504 Wh</td></tr><tr><th>Weight</th><td>22.5 kg</td>"
    "</tr><tr><th>Price</th><td>2,399 euros</td></tr></table><h2>Warranty</h2><p>The frame has a lifetime "
    "warranty. The battery and motor are covered for two years.</p></body></html>"
)


def test_a_field_answers_what_it_labels_and_a_documents_other_passages_then_add_nothing(tmp_path):
    heavy, warranty = _ask_titled(
        tmp_path,
        "spec.html",
        SPEC,
        "Spec sheet",
        "How heavy is the Velo Commuter 2?",
        "How long is the battery warranty?",
    )
    # "Price: 2,399 euros" (its "2" is the name's) and two sentences saying nothing of weight came too
    assert [c.text for c in heavy.claims] == ["Weight: 22.5 kg"], heavy.claims
    # "Battery: 504 Wh" was a field of what is asked: "battery" only qualifies the warranty
    assert [c.text for c in warranty.claims] == ["The battery and motor are covered for two years."], warranty.claims


def test_a_bound_is_no_denial_of_what_is_asked(tmp_path):
    leaflet = (
        "# Somnavel 10 mg tablets\n\n## How to take Somnavel\n\nThe recommended dose is one 10 mg tablet just "
        "before bedtime. Patients over 65 should take 5 mg. Treatment should not last longer than four weeks.\n"
    )
    [answer] = _ask_titled(tmp_path, "leaflet.md", leaflet, "Leaflet", "How long can I take Somnavel for?")
    # "not last longer" read as denying "long": the doses led
    assert answer.claims[0].text == "Treatment should not last longer than four weeks.", answer.claims


def test_who_may_apply_asks_for_whom_and_free_is_a_price(tmp_path):
    articles = {
        "Community Energy Grant": "The Community Energy Grant funds renewable energy projects run by community "
        "groups.\n\n## Who can apply\n\nRegistered charities and parish councils in Westshire are eligible.\n",
        "Harwick Museum": "The Harwick Museum is a local history museum in Harwick.\n\nAdmission is free.\n",
    }
    apply, admission = _ask_articles(
        tmp_path, articles, "Who can apply for the Community Energy Grant?", "How much does admission cost?"
    )
    # both were low: "the question asks for a name", "... for an amount of money"
    assert apply.claims[0].text.startswith("Registered charities"), apply.claims
    assert apply.confidence.value == "high", apply.limitations
    assert admission.claims[0].text == "Admission is free." and admission.confidence.value == "high", (
        admission.limitations
    )


def test_bought_by_says_who_owns_and_headquarters_where_it_is_based(tmp_path):
    articles = {
        "Corran Instruments": "Corran Instruments is a Scottish manufacturer of scientific balances, founded in "
        "Dundee in 1887.\n\nIt was bought by the German group Waldmann AG in 1998, and its headquarters remain in "
        "Perth.\n"
    }
    owns, based = _ask_articles(
        tmp_path, articles, "Who owns Corran Instruments?", "Where is Corran Instruments based?"
    )
    # both were low, on the founding sentence ("Dundee" is where it was founded)
    assert "bought by the German group Waldmann AG" in owns.claims[0].text, owns.claims
    assert owns.confidence.value == "high", owns.limitations
    assert based.claims[0].text == "Corran Instruments is based in Perth.", based.claims


def test_a_count_of_other_things_is_no_count_of_what_is_asked(tmp_path):
    """ "How many participants were in the trial?" was high on "Participants who slept eight hours
    recalled 20% more words": it speaks of participants and counts hours."""
    trial = (
        "The trial enrolled 412 adults aged 18 to 65.\n\nParticipants who slept eight hours recalled 20% more words.\n"
    )
    (tmp_path / "a").mkdir()
    participants, adults = _ask_articles(
        tmp_path / "a",
        {"Sleep and memory trial": trial},
        "How many participants were in the trial?",
        "How many adults did the trial enrol?",
    )
    assert participants.confidence.value == "low", participants.claims
    assert 'No claim gives the number of "participants".' in participants.limitations
    assert adults.claims[0].text == "Sleep and memory trial enrolled 412 adults aged 18 to 65."
    assert adults.confidence.value == "high", adults.limitations
    # a count of them, past the words that qualify them, answers
    (tmp_path / "b").mkdir()
    [counted] = _ask_articles(
        tmp_path / "b",
        {"Sleep and memory trial": trial.replace("412 adults", "412 healthy adult participants")},
        "How many participants were in the trial?",
    )
    assert "412 healthy adult participants" in counted.claims[0].text, counted.claims
    assert counted.confidence.value == "high", counted.limitations


def test_a_place_other_than_the_first_is_no_win(tmp_path):
    """ "Did Jane Pike win?" was low on "Jane Pike came second." with "No claim answers yes or no"."""
    election = {
        "Eastfield by-election": "Priya Nair won the Eastfield by-election with 54% of the vote.\n\n"
        "Jane Pike came second.\n\nTom Reyes finished in third place.\n"
    }
    pike, lost, reyes = _ask_articles(
        tmp_path, election, "Did Jane Pike win?", "Did Jane Pike lose?", "Did Tom Reyes win the by-election?"
    )
    assert [c.text for c in pike.claims] == ["No: Jane Pike came second."], pike.claims
    assert pike.confidence.value == "high", pike.limitations
    assert lost.claims[0].text == "Yes: Jane Pike came second.", lost.claims
    assert reyes.claims[0].text == "No: Tom Reyes finished in third place.", reyes.claims


VELTRAZINE = (
    "Veltrazine is an antihistamine used to relieve hay fever and hives.\n\n## Dosage\n\nAdults and children "
    "over 12 should take one 10 mg tablet once a day. Do not take more than one tablet in 24 hours.\n\n"
    "## Pregnancy\n\nVeltrazine is not recommended during pregnancy.\n"
)


def test_a_warning_against_a_drug_answers_whether_it_may_be_taken(tmp_path):
    """ "Can I take Veltrazine while pregnant?" was medium on the dosing sentences, "No claim answers
    yes or no": the warning says neither "take" nor "while"."""
    pregnant, safe, food = _ask_articles(
        tmp_path,
        {"Veltrazine tablets": VELTRAZINE},
        "Can I take Veltrazine while pregnant?",
        "Is it safe to take Veltrazine during pregnancy?",
        "Can I take Veltrazine with food?",
    )
    assert [c.text for c in pregnant.claims] == ["No: Veltrazine is not recommended during pregnancy."]
    assert pregnant.confidence.value == "high", pregnant.limitations
    assert [c.text for c in safe.claims] == ["No: Veltrazine is not recommended during pregnancy."]
    # a warning about something else is no answer to it
    assert not any(c.text.startswith(("No:", "Yes:")) for c in food.claims), food.claims


RESULTS = (
    "Harbor Bank reported net income of $412 million for the third quarter of 2026.\n\n"
    "Revenue rose to $1.9 billion.\n\nThe board declared a quarterly dividend of 30 cents per share, payable "
    "on 15 November.\n"
)


def test_a_sentence_naming_nothing_is_of_its_documents_subject_and_payable_says_paid(tmp_path):
    """ "Did Harbor Bank's revenue fall?" got no verdict from "Revenue rose to $1.9 billion." in the
    bank's results; "When is the dividend paid?" was medium, "No claim says when it was "paid"",
    on "... payable on 15 November"."""
    fell, rose, paid = _ask_articles(
        tmp_path,
        {"Harbor Bank Q3 2026 results": RESULTS},
        "Did Harbor Bank's revenue fall?",
        "Did Harbor Bank's revenue rise?",
        "When is the dividend paid?",
    )
    assert [c.text for c in fell.claims] == ["No: Revenue rose to $1.9 billion."], fell.claims
    assert fell.confidence.value == "high", fell.limitations
    assert rose.claims[0].text == "Yes: Revenue rose to $1.9 billion.", rose.claims
    assert "payable on 15 November" in paid.claims[0].text and paid.confidence.value == "high", paid.limitations
    # another document's sentence is not of this one's subject
    (tmp_path / "other").mkdir()
    [other] = _ask_articles(
        tmp_path / "other",
        {
            "Harbor Bank Q3 2026 results": "Harbor Bank reported net income of $412 million.\n",
            "Market report": "Revenue rose to $1.9 billion.\n",
        },
        "Did Harbor Bank's revenue fall?",
    )
    assert not any(c.text.startswith(("No:", "Yes:")) for c in other.claims), other.claims


def test_a_chief_officers_title_without_officer_spells_its_acronym(tmp_path):
    """ "Who is the CEO of Harbor Bank?" abstained, 'No evidence found about "ceo"', on "Chief
    executive Maria Lund said ..."."""
    ceo, cfo = _ask_articles(
        tmp_path,
        {"Harbor Bank Q3 2026 results": RESULTS + "\nChief executive Maria Lund said loan growth had slowed.\n"},
        "Who is the CEO of Harbor Bank?",
        "Who is the CFO of Harbor Bank?",
    )
    assert ceo.claims[0].text == "Chief executive Maria Lund said loan growth had slowed.", ceo.claims
    assert ceo.confidence.value == "high", ceo.limitations
    assert cfo.abstained, cfo.claims


def test_what_a_sentence_says_after_but_is_not_said_of_what_it_says_before(tmp_path):
    """ "Did Sweden keep Lindau?" was "Yes", high, on "... Sweden gave up the port of Lindau but kept
    the island of Orsa."."""
    treaty = {
        "Treaty of Kessel": "The Treaty of Kessel was signed in 1648 by Sweden and the Duchy of Brandt.\n\n"
        "Under the treaty, Sweden gave up the port of Lindau but kept the island of Orsa.\n",
        "Kestrel X2 e-bike FAQ": "The battery is splash-resistant but must not be submerged.\n",
    }
    lindau, orsa, submerged, gave = _ask_articles(
        tmp_path,
        treaty,
        "Did Sweden keep Lindau?",
        "Did Sweden keep Orsa?",
        "Can I submerge the Kestrel X2 battery?",
        "What did Sweden give up?",
    )
    # "Under the treaty, Sweden ...": a sentence about Sweden past the phrase setting its scene (it was
    # low, "the evidence found is about other things that mention "sweden"")
    assert gave.claims[0].text.startswith("Under the treaty, Sweden gave up") and gave.confidence.value == "high"
    assert not any(c.text.startswith("Yes") for c in lindau.claims), lindau.claims
    assert lindau.confidence.value != "high", lindau.claims
    assert orsa.claims[0].text.startswith("Yes: Under the treaty, Sweden gave up"), orsa.claims
    # the sentence's subject is the subject of what it says after "but"
    assert submerged.claims[0].text == "No: The battery is splash-resistant but must not be submerged.", (
        submerged.claims
    )


def test_an_answer_for_another_case_is_no_answer_for_the_one_asked(tmp_path):
    """ "What is the first-line drug for children?" was high on "For people aged 55 or over, a
    calcium-channel blocker is the first-line drug."."""
    guideline = {
        "Hypertension guideline": "Adults with a blood pressure of 140/90 mmHg or higher should be offered "
        "lifestyle advice.\n\nFor people aged 55 or over, a calcium-channel blocker is the first-line drug.\n"
    }
    children, older = _ask_articles(
        tmp_path,
        guideline,
        "What is the first-line drug for children?",
        "What is the first-line drug for older people?",
    )
    assert children.abstained, children.claims
    assert children.answer_summary == (
        'Insufficient evidence: the evidence found says what holds for people aged 55 or over, not for "children".'
    )
    assert older.claims[0].text.startswith("For people aged 55 or over"), older.claims
    assert older.confidence.value == "high", older.limitations
    # "For example, ..." names no case
    (tmp_path / "example").mkdir()
    [example] = _ask_articles(
        tmp_path / "example",
        {"Hypertension guideline": "For example, a calcium-channel blocker is a first-line drug.\n"},
        "What is a first-line drug for children?",
    )
    assert "the evidence found says what holds for" not in example.answer_summary, example.answer_summary


def test_her_in_a_document_naming_a_person_is_that_person(tmp_path):
    """ "How much compensation was Anna Marlow awarded?" abstained ('does not mention
    "compensation"'): the sentence saying it names her only as "her"."""
    judgment = {
        "Marlow v. Fenwick Holdings": "Marlow v. Fenwick Holdings was decided by the Court of Appeal on 4 June "
        "2025.\n\nThe claimant, Anna Marlow, alleged that Fenwick Holdings had dismissed her unfairly after she "
        "reported safety breaches.\n\nThe court held that the dismissal was automatically unfair and awarded her "
        "£86,000 in compensation.\n"
    }
    [awarded] = _ask_articles(tmp_path, judgment, "How much compensation was Anna Marlow awarded?")
    assert [c.text for c in awarded.claims] == [
        "The court held that the dismissal was automatically unfair and awarded her £86,000 in compensation.",
        "The claimant, Anna Marlow, alleged that Fenwick Holdings had dismissed her unfairly after she reported "
        "safety breaches.",
    ]
    assert awarded.confidence.value == "high", awarded.limitations


def test_dropping_support_denies_it_a_count_after_a_copula_and_a_plural_subject(tmp_path):
    """ "Does Orbitz 3.0 support Python 3.9?" was "Yes", high, on "It drops support for Python
    3.9."; "How many nurses does Lakeside Hospital employ?" was low on "... of whom 640 are
    nurses"; "Did waiting times rise?" got no verdict from "Average waiting time ... fell"."""
    articles = {
        "Orbitz 3.0 release notes": "Orbitz 3.0 was released on 12 May 2026.\n\nIt drops support for Python 3.9.\n",
        "Lakeside Hospital annual report": "The hospital employs 2,100 staff, of whom 640 are nurses.\n\n"
        "Average waiting time in the emergency department fell to 3.1 hours.\n",
    }
    support, dropped, nurses, rise = _ask_articles(
        tmp_path,
        articles,
        "Does Orbitz 3.0 support Python 3.9?",
        "Does Orbitz 3.0 drop support for Python 3.9?",
        "How many nurses does Lakeside Hospital employ?",
        "Did waiting times rise?",
    )
    assert [c.text for c in support.claims] == ["No: It drops support for Python 3.9."], support.claims
    assert dropped.claims[0].text == "Yes: It drops support for Python 3.9.", dropped.claims
    assert nurses.claims[0].text == "The hospital employs 2,100 staff, of whom 640 are nurses."
    assert nurses.confidence.value == "high", nurses.limitations
    assert rise.claims[0].text == "No: Average waiting time in the emergency department fell to 3.1 hours."


def test_taking_the_lead_through_a_player_says_who_scored(tmp_path):
    """ "Who scored for Northgate?" abstained, nothing saying "scored", on "Northgate took the lead
    through Sam Okafor in the 23rd minute."."""
    report = {
        "County final": "Riverside United beat Northgate Athletic 2-1 in the county final on Saturday.\n\n"
        "Northgate took the lead through Sam Okafor in the 23rd minute.\n"
    }
    [scored] = _ask_articles(tmp_path, report, "Who scored for Northgate?")
    assert "Northgate took the lead through Sam Okafor in the 23rd minute." in [c.text for c in scored.claims]
    assert scored.confidence.value == "high", scored.limitations


def test_square_kilometres_say_how_big(tmp_path):
    """ "How big is Lake Orla?" was low on "Lake Orla lies in the north of Finland." (and abstained
    once an answer saying no word of what is asked and no number did): "It covers 120 square
    kilometres" says its area."""
    lake = {"Lake Orla": "Lake Orla lies in the north of Finland.\n\nIt covers 120 square kilometres.\n"}
    big, area = _ask_articles(tmp_path, lake, "How big is Lake Orla?", "What is the area of Lake Orla?")
    for answer in (big, area):
        assert answer.claims[0].text == "Lake Orla covers 120 square kilometres.", answer.claims
        assert answer.confidence.value == "high", answer.limitations


def test_what_a_name_has_after_of_is_what_is_asked_of(tmp_path):
    """ "What is the price of Corran's balances?" was high on "Corran Instruments is a Scottish maker
    of balances, set up ... in 1887": "balances" counted as what is asked."""
    maker = {"Corran Instruments": "Corran Instruments is a Scottish maker of balances, set up in Dundee in 1887.\n"}
    [price] = _ask_articles(tmp_path, maker, "What is the price of Corran's balances?")
    assert price.abstained or price.confidence.value == "low", price.claims
    assert any('("price")' in note for note in [price.answer_summary, *price.limitations]), price.limitations


def test_a_season_is_named_by_both_its_years_together(tmp_path):
    """ "Who coached the 2011-12 Harbor Hawks?" was answered from the 2010-11 team's article,
    whose "2011 tournament" and "12-6" said the season's two numbers apart."""
    seasons = {
        "2010\u201311 Harbor Hawks": "The 2010\u201311 Harbor Hawks were coached by Dana Reyes.\n\n"
        "They finished 12\u20136 and lost the final of the 2011 Coastal Tournament.\n",
        "2011\u201312 Harbor Hawks": "The 2011\u201312 Harbor Hawks were coached by Sam Ortiz.\n",
    }
    question = "Who coached the 2011\u201312 Harbor Hawks?"
    [other] = _ask_articles(tmp_path, {k: v for k, v in seasons.items() if k.startswith("2010")}, question)
    assert other.abstained, other.claims
    assert '"2011\u201312"' in other.answer_summary
    (tmp_path / "both").mkdir()
    [own] = _ask_articles(tmp_path / "both", seasons, question)
    assert "Sam Ortiz" in own.claims[0].text, own.claims


def test_a_name_said_only_as_part_of_another_documents_name_is_not_mentioned(tmp_path):
    """ "Which program was the Harbor Remote designed to control?" was answered from "Harbor
    Remote Desktop", another product's article; a team's article titled by its club's name and
    a description ("Vermont Catamounts men's soccer") still speaks of the club."""
    desktop = {
        "Harbor Remote Desktop": "Harbor Remote Desktop is a program that lets administrators control other "
        "computers over a network.\n"
    }
    remote = {"Harbor Remote": "The Harbor Remote is an infrared remote designed to control the Front Row program.\n"}
    question = "Which program was the Harbor Remote designed to control?"
    [other] = _ask_articles(tmp_path, desktop, question)
    assert other.abstained, other.claims
    assert '"Harbor Remote" only as part of "Harbor Remote Desktop"' in other.answer_summary, other.answer_summary
    (tmp_path / "both").mkdir()
    [own] = _ask_articles(tmp_path / "both", {**desktop, **remote}, question)
    assert "Front Row" in own.claims[0].text, own.claims
    team = {
        "Vermont Catamounts men's soccer": "The Vermont Catamounts men's soccer team competes in the America East "
        "Conference.\n"
    }
    (tmp_path / "team").mkdir()
    [club] = _ask_articles(tmp_path / "team", team, "Which conference do the Vermont Catamounts compete in?")
    assert not club.abstained and "America East" in club.claims[0].text, club.answer_summary


def test_a_passage_of_another_thing_mentioning_both_decides_no_choice(tmp_path):
    """ "Who is older, Annie Morton or Terry Richardson?" was answered (low) by "Vogue Italia's 1995
    issue featured Annie Morton photographed by Terry Richardson.": it mentions both and decides
    nothing."""
    magazine = {
        "Vogue Italia": "Vogue Italia's 1995 issue featured Annie Morton photographed by Terry Richardson.\n\n"
        "The magazine was founded in 1964.\n"
    }
    which, than = _ask_articles(
        tmp_path,
        magazine,
        "Who is older, Annie Morton or Terry Richardson?",
        "Is Annie Morton older than Terry Richardson?",
    )
    for answer in (which, than):
        assert answer.abstained, answer.claims
        assert "about other things that mention" in answer.answer_summary


def test_a_verdict_is_of_the_article_titled_by_the_name_alone(tmp_path):
    """ "Were Lena Hart and Omar Reyes of the same nationality?" could be decided by "Lena Hart
    (film)", a British film about the painter, and the film's passage stayed beside the verdict."""
    articles = {
        "Lena Hart (film)": "Lena Hart is a 2005 British biographical film about the painter Lena Hart.\n",
        "Lena Hart": "Lena Hart (1931 - 1990) was a Canadian painter.\n",
        "Omar Reyes": "Omar Reyes (born 1960) is a Canadian sculptor.\n",
    }
    [same] = _ask_articles(tmp_path, articles, "Were Lena Hart and Omar Reyes of the same nationality?")
    assert same.claims[0].text == (
        "Yes: Lena Hart and Omar Reyes were of the same nationality: Lena Hart Canadian, Omar Reyes Canadian."
    )
    assert [c.title for c in same.citations if c.title and "film" in c.title] == []


def test_a_question_about_two_things_is_not_answered_of_one(tmp_path):
    """ "Were Lena Hart and Omar Reyes both painters?" was answered (medium) from Lena Hart's
    article and a gallery's mention of Omar Reyes: with no verdict, a question about two things
    needs each one's own evidence."""
    articles = {
        "Lena Hart": "Lena Hart (1931 - 1990) was a Canadian painter.\n",
        "Harbour Gallery": "The Harbour Gallery in Halifax shows works by Omar Reyes and Lena Hart.\n",
    }
    both, older = _ask_articles(
        tmp_path,
        articles,
        "Were Lena Hart and Omar Reyes both painters?",
        "Who was born first, Lena Hart or Omar Reyes?",
    )
    for answer in (both, older):
        assert answer.abstained, answer.claims
        assert 'says nothing of "Omar Reyes" itself' in answer.answer_summary, answer.answer_summary


def test_two_births_in_one_year_are_told_apart_by_their_days(tmp_path):
    """ "Who was born first, Ann Lee or Kim Ray?" had no verdict when both were born in 1970."""
    players = {
        "Ann Lee": "Ann Lee (born 4 March 1970) is an English tennis player.\n",
        "Kim Ray": "Kim Ray (born 9 July 1970) is an English tennis player.\n",
    }
    first, than = _ask_articles(
        tmp_path, players, "Who was born first, Ann Lee or Kim Ray?", "Was Kim Ray born before Ann Lee?"
    )
    assert _verdict_of(first) == "Ann Lee was born first: Ann Lee 4 March 1970, Kim Ray 9 July 1970."
    assert _verdict_of(than) == "No: Ann Lee was born earlier: Kim Ray 9 July 1970, Ann Lee 4 March 1970."


NORLAND = {
    "Harbour Bridge": "The Harbour Bridge is a steel arch bridge across Kelston Harbour.\n\n"
    "It was designed by Mara Lindqvist and opened in 1932.\n",
    "Mara Lindqvist": "Mara Lindqvist (1889-1961) was a Swedish structural engineer.\n\n"
    "She married the architect Olle Berg in 1931.\n",
    "Kelston": "Kelston is a port city in Norland with a population of 412,000.\n\n"
    "The city was founded in 1204 by Danish traders.\n",
    "Norland": "Norland is a country in northern Europe.\n\nIts capital is Brackley.\n\n"
    "Norland has a population of 5.2 million.\n",
    "Brackley": "Brackley is the capital of Norland.\n\nIt lies on the river Avon and has a population of 890,000.\n",
    "Olle Berg": "Olle Berg (1885-1970) was a Swedish architect.\n\n"
    "He designed the Kelston Town Hall, completed in 1925.\n",
    "Kelston Town Hall": "Kelston Town Hall is the seat of the city council of Kelston.\n\n"
    "Its tower is 64 metres tall.\n",
}


def test_what_is_asked_of_a_thing_of_a_name_is_the_things_not_the_names(tmp_path):
    capital, hall = _ask_articles(
        tmp_path, NORLAND, "What is the population of the capital of Norland?", "Who designed the town hall of Kelston?"
    )
    # "Norland has a population of 5.2 million" is Norland's; the passage saying which is its
    # capital leads to the capital's
    texts = [c.text for c in capital.claims]
    assert texts[0] == "Brackley lies on the river Avon and has a population of 890,000.", texts
    assert "Norland's capital is Brackley." in texts, texts
    # the city's founding says nothing of its town hall
    assert hall.claims[0].text == "Olle Berg designed the Kelston Town Hall, completed in 1925.", hall.claims


def test_an_answer_about_the_name_a_thing_is_described_by_abstains(tmp_path):
    (answer,) = _ask_articles(tmp_path, NORLAND, "When was the husband of Mara Lindqvist born?")
    # her own years are no answer, and nothing says "husband" ("She married ..." is not read so)
    assert answer.abstained, answer.claims
    assert answer.answer_summary == (
        'Insufficient evidence: the evidence found is about "Mara Lindqvist", not "the husband of Mara Lindqvist".'
    )


def test_an_age_is_compared_by_the_years_of_birth(tmp_path):
    (answer,) = _ask_articles(tmp_path, NORLAND, "Was Mara Lindqvist older than Olle Berg?")
    # not the year she married him
    assert answer.claims[0].text == "No: Olle Berg was older: Mara Lindqvist 1889, Olle Berg 1885.", answer.claims


RED_HOLLOW = {
    "Red Hollow (film)": "Red Hollow is a 2011 American western film directed by Ann Berg.\n\n"
    "It stars Tom Vale as a retired sheriff.\n",
    "Tom Vale": "Tom Vale (born 12 June 1958) is an English actor.\n\nHe won the Olivier Award in 1995.\n",
    "Salt Flats": "Salt Flats is a 2004 drama film.\n\nIt was shot in Utah over 30 days.\n",
}


def test_what_is_asked_of_a_thing_of_a_name_is_answered_by_that_things_passage(tmp_path):
    born, shot = _ask_articles(
        tmp_path,
        RED_HOLLOW,
        "When was the star of Red Hollow born?",
        "How many days did the shooting of Salt Flats take?",
    )
    # Tom Vale's birth is the star's, not one said of another subject than Red Hollow
    assert born.claims[0].text == "Tom Vale (born 12 June 1958) is an English actor.", born.claims
    assert "Red Hollow stars Tom Vale as a retired sheriff." in [c.text for c in born.claims], born.claims
    # "the shooting of Salt Flats" is what happened to the film, no other thing than it
    assert shot.claims[0].text == "Salt Flats was shot in Utah over 30 days.", shot.claims


COMPANIES = {
    "Fernwood Robotics": "Fernwood Robotics is a maker of warehouse robots founded in 2009 by Lena Ortiz.\n\n"
    "In 2021 Fernwood acquired Pallex, a maker of conveyor systems.\n",
    "Pallex": "Pallex is a German maker of conveyor systems based in Bremen.\n\n"
    "It was founded in 1987 by Karl Huber.\n\nPallex employs 450 people.\n",
}


def test_what_another_company_does_is_no_answer_for_the_one_asked_of(tmp_path):
    own, acquired, older = _ask_articles(
        tmp_path,
        COMPANIES,
        "How many people does Fernwood Robotics employ?",
        "How many people does the company acquired by Fernwood Robotics employ?",
        "Which company is older, Fernwood Robotics or Pallex?",
    )
    # Pallex employs them, not Fernwood Robotics, which acquired it
    assert own.abstained, own.claims
    assert own.answer_summary == (
        'Insufficient evidence: the evidence found says "people" of Pallex, not of "fernwood robotics".'
    )
    assert acquired.claims[0].text == "Pallex employs 450 people.", acquired.claims
    # a company's age is told by its founding, not by the year it acquired another
    assert older.claims[0].text == "Pallex is older: Fernwood Robotics 2009, Pallex 1987.", older.claims


def test_the_passage_saying_what_is_asked_of_a_thing_of_a_name_comes_before_the_one_saying_which(tmp_path):
    articles = {
        "The Velvet Rain": "The Velvet Rain is an American rock band formed in Austin, Texas, in 1994.\n\n"
        "Their third album, Low Tide, was released in 2001.\n",
        "Low Tide (album)": "Low Tide is the third studio album by The Velvet Rain, released on 3 April 2001.\n\n"
        "It was produced by Steve Lillard.\n",
    }
    (answer,) = _ask_articles(tmp_path, articles, "Who produced the third album of The Velvet Rain?")
    # the album's article is titled by what it is ("album"): its passage says who produced it
    texts = [c.text for c in answer.claims]
    assert texts[:2] == [
        "Low Tide was produced by Steve Lillard.",
        "The Velvet Rain's third album, Low Tide, was released in 2001.",
    ], texts


def test_both_of_a_people_is_denied_by_a_passage_saying_another(tmp_path):
    articles = {
        "The Velvet Rain": "The Velvet Rain is an American rock band formed in Austin, Texas, in 1994.\n",
        "Paper Moons": "Paper Moons is a British indie band from Leeds, formed in 1989.\n",
        "Big Thief": "Big Thief is an American indie rock band from Brooklyn.\n",
    }
    no, yes = _ask_articles(
        tmp_path,
        articles,
        "Are The Velvet Rain and Paper Moons both American bands?",
        "Are The Velvet Rain and Big Thief both American bands?",
    )
    assert no.claims[0].text == "No: The Velvet Rain American, Paper Moons British.", no.claims
    assert no.confidence.value == "high", no.limitations
    assert yes.claims[0].text == "Yes: The Velvet Rain and Big Thief are both American bands.", yes.claims


def test_a_things_it_in_the_document_the_best_passage_says_which_it_is_of_answers(tmp_path):
    articles = {
        "Mount Kerel": "Mount Kerel is a stratovolcano in the Andes of Chile.\n\nIt rises to 4,812 metres.\n",
        "Lake Orla": "Lake Orla is a crater lake on the flank of Mount Kerel.\n\n"
        "It is 61 metres deep and covers 2.4 square kilometres.\n",
    }
    (answer,) = _ask_articles(tmp_path, articles, "How deep is the lake on the flank of Mount Kerel?")
    # "It" is Lake Orla, which the best passage says is the lake asked of
    texts = [c.text for c in answer.claims]
    assert texts[:2] == [
        "Lake Orla is 61 metres deep and covers 2.4 square kilometres.",
        "Lake Orla is a crater lake on the flank of Mount Kerel.",
    ], texts
    assert answer.confidence.value == "high", answer.limitations
