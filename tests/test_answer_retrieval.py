"""Retrieval that finds the answer (issue 16): facts followed into an entity as well as out of
it, and through classes when a question asks "which"."""

from __future__ import annotations

import pytest

from provgraph import IngestOptions, ProvGraph
from provgraph.answer.retrieve import singular

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
    assert "ibuprofen is a NSAID." in texts and "NSAID is a kind of drug." in texts
    assert "warfarin is an anticoagulant." in {i.text for i in drugs.retrieve("What is warfarin?").items}


def test_a_property_is_named_by_the_ontologys_label_when_the_source_gives_none(tmp_path):
    source = tmp_path / "dose.ttl"
    source.write_text(
        '@prefix ex: <http://example.org/> .\nex:aspirin <http://www.w3.org/2000/01/rdf-schema#label> "aspirin" ;'
        " ex:maxDailyDoseMg 4000 .\n",
        encoding="utf-8",
    )
    ontology = tmp_path / "ontology.ttl"
    ontology.write_text(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "<http://example.org/maxDailyDoseMg> rdfs:label "
        '"dosis máxima diaria (mg)"@es, "maximum daily dose (mg)"@en .\n',
        encoding="utf-8",
    )
    with ProvGraph.memory() as pg:
        pg.ingest(source, IngestOptions(url="https://label.example/aspirin", title="Label"))
        before = pg.ask("What is the maximum daily dose of aspirin?", record=False)
        assert "max daily dose mg" in before.claims[0].text
        pg.add_ontology(ontology)
        after = pg.ask("What is the maximum daily dose of aspirin?", record=False)
    assert "aspirin maximum daily dose (mg) 4000" in after.claims[0].text and after.claims[0].verified
