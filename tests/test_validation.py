"""SHACL validation: the built-in shapes catch what they promise, the same way over rdflib and
Oxigraph data graphs, and the fast paths (hoisting, chunks) give the same results as plain pyshacl."""

from __future__ import annotations

import pyoxigraph
import pytest
import rdflib
from pyshacl import validate as shacl_validate

from provgraph.ingest.pipeline import DOCUMENT_SHAPES
from provgraph.ingest.validate import (
    ChunkValidator,
    hoist_property_shapes,
    validate_ntriples,
)
from provgraph.resources import shapes_dir

PG = "https://w3id.org/provgraph/ns#"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
DCT = "http://purl.org/dc/terms/"

HEADER = f"""
<urn:doc> a <{PG}SourceDocument>, <{PROV}Entity> ; <{DCT}title> "T" ; <{PG}documentKey> "k" ;
    <{PG}tier> 2 ; <{PG}contentHash> "{"a" * 64}" .
<urn:act> a <{PG}ExtractionActivity>, <{PROV}Activity> ; <{PROV}used> <urn:doc> ;
    <{PROV}wasAssociatedWith> <urn:agent> ; <{PROV}startedAtTime> "2024-01-01T00:00:00Z"^^<{XSD}dateTime> .
<urn:agent> a <{PROV}Agent> .
"""


def statement(n: int, **override: str) -> str:
    fields = {
        "subject": f"<urn:s{n}>",
        "predicate": "<urn:p>",
        "object": f'"{n}"',
        "fact": f"<urn:fact{n}>",
        "derived": "<urn:doc>",
        "generated": "<urn:act>",
        "at": f'"2024-01-01T00:00:00Z"^^<{XSD}dateTime>',
        "confidence": f'"0.9"^^<{XSD}double>',
        "method": f"<{PG}SourceData>",
        "assert": "yes",
    }
    fields.update(override)
    st = f"<urn:st{n}>"
    lines = [f"{st} a <{RDF}Statement>, <{PG}Statement> ."]
    for key, prop in [
        ("subject", RDF + "subject"),
        ("predicate", RDF + "predicate"),
        ("object", RDF + "object"),
        ("fact", PG + "fact"),
        ("derived", PROV + "wasDerivedFrom"),
        ("generated", PROV + "wasGeneratedBy"),
        ("at", PROV + "generatedAtTime"),
        ("confidence", PG + "confidence"),
        ("method", PG + "extractionMethod"),
    ]:
        if fields[key]:
            lines.append(f"{st} <{prop}> {fields[key]} .")
    if fields["assert"] == "yes":
        lines.append(f"{fields['subject'] or f'<urn:s{n}>'} {fields['predicate']} {fields['object']} .")
    return "\n".join(lines)


def shapes(*, hoist: bool = True) -> rdflib.Graph:
    g = rdflib.Graph()
    for name in DOCUMENT_SHAPES:
        g.parse(shapes_dir() / name)
    return hoist_property_shapes(g) if hoist else g


def turtle_to_nt(text: str) -> str:
    return rdflib.Graph().parse(data=text, format="turtle").serialize(format="nt")


def issues_of(text: str) -> set[tuple[str, str | None, str | None]]:
    found, _ = validate_ntriples(turtle_to_nt(text), shapes())
    return {(i.focus_node, i.path, i.constraint) for i in found}


def test_a_well_formed_statement_conforms():
    assert issues_of(HEADER + statement(1)) == set()


@pytest.mark.parametrize(
    ("override", "path", "constraint"),
    [
        ({"confidence": f'"1.5"^^<{XSD}double>'}, PG + "confidence", "MaxInclusiveConstraintComponent"),
        ({"confidence": f'"-0.1"^^<{XSD}double>'}, PG + "confidence", "MinInclusiveConstraintComponent"),
        ({"confidence": '"0.9"'}, PG + "confidence", "DatatypeConstraintComponent"),
        ({"confidence": ""}, PG + "confidence", "MinCountConstraintComponent"),
        ({"method": f"<{PG}Guesswork>"}, PG + "extractionMethod", "InConstraintComponent"),
        ({"at": '"yesterday"'}, PROV + "generatedAtTime", "DatatypeConstraintComponent"),
        ({"derived": "<urn:nowhere>"}, PROV + "wasDerivedFrom", "ClassConstraintComponent"),
        ({"derived": ""}, PROV + "wasDerivedFrom", "MinCountConstraintComponent"),
        ({"generated": ""}, PROV + "wasGeneratedBy", "MinCountConstraintComponent"),
        ({"subject": ""}, RDF + "subject", "MinCountConstraintComponent"),
        ({"fact": ""}, PG + "fact", "MinCountConstraintComponent"),
        ({"assert": "no"}, None, "SPARQLConstraintComponent"),
    ],
    ids=[
        "confidence>1",
        "confidence<0",
        "confidence-not-double",
        "no-confidence",
        "unknown-method",
        "bad-time",
        "source-not-a-document",
        "no-source",
        "no-activity",
        "no-subject",
        "no-fact",
        "triple-not-asserted",
    ],
)
def test_each_broken_statement_is_reported_with_focus_node_and_path(override, path, constraint):
    found = issues_of(HEADER + statement(1, **override))
    assert ("urn:st1", path, constraint) in found


def test_two_objects_break_exactly_one_object():
    text = (
        HEADER
        + statement(1)
        + '\n<urn:st1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> "other" .\n<urn:s1> <urn:p> "other" .'
    )
    assert ("urn:st1", RDF + "object", "MaxCountConstraintComponent") in issues_of(text)


def test_document_shape_checks_tier_and_hash():
    text = HEADER.replace(f"<{PG}tier> 2", f"<{PG}tier> 7").replace('"' + "a" * 64 + '"', '"abc"')
    found = issues_of(text)
    assert ("urn:doc", PG + "tier", "MaxInclusiveConstraintComponent") in found
    assert ("urn:doc", PG + "contentHash", "PatternConstraintComponent") in found


def test_passage_offsets_are_checked():
    text = (
        HEADER
        + f"""<urn:p1> a <{PG}Passage> ; <{PG}text> "x" ; <{PG}inDocument> <urn:doc> ;
        <{PG}startOffset> 9 ; <{PG}endOffset> 3 ."""
    )
    assert ("urn:p1", PG + "startOffset", "LessThanConstraintComponent") in issues_of(text)


BROKEN = HEADER + "\n".join(
    statement(i, **({"confidence": f'"2"^^<{XSD}double>'} if i % 3 == 0 else {"assert": "no"} if i % 3 == 1 else {}))
    for i in range(12)
)


def _results(data: rdflib.Graph | pyoxigraph.Store, shapes_graph: rdflib.Graph) -> set[tuple[str, str, str]]:
    from pyshacl.graph_abstraction import DataGraph

    target = DataGraph.from_oxigraph_store(data) if isinstance(data, pyoxigraph.Store) else data
    _conforms, results, _ = shacl_validate(target, shacl_graph=shapes_graph, inference=None)
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    return {
        (
            str(results.value(r, sh.focusNode)),
            str(results.value(r, sh.resultPath)),
            str(results.value(r, sh.sourceConstraintComponent)),
        )
        for r in results.subjects(rdflib.RDF.type, sh.ValidationResult)
    }


def test_rdflib_and_oxigraph_data_graphs_give_the_same_results():
    as_rdflib = rdflib.Graph().parse(data=BROKEN, format="turtle")
    as_oxigraph = pyoxigraph.Store()
    as_oxigraph.load(BROKEN.encode(), pyoxigraph.RdfFormat.TURTLE)
    expected = _results(as_rdflib, shapes())
    assert len(expected) == 8
    assert _results(as_oxigraph, shapes()) == expected


def test_hoisted_shapes_give_the_same_results_as_the_shapes_as_written():
    data = rdflib.Graph().parse(data=BROKEN, format="turtle")
    plain = _results(data, shapes(hoist=False))
    hoisted = _results(data, shapes(hoist=True))
    assert plain == hoisted
    assert len(plain) == 8


def test_hoisting_leaves_shapes_referenced_elsewhere_alone():
    text = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
    ex:A a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .
    ex:B a sh:NodeShape ; sh:targetClass ex:D ; sh:node ex:A ."""
    g = hoist_property_shapes(rdflib.Graph().parse(data=text, format="turtle"))
    ex = rdflib.Namespace("http://example.org/")
    assert g.value(ex.A, rdflib.URIRef("http://www.w3.org/ns/shacl#property")) is not None


def test_chunked_validation_finds_what_whole_graph_validation_finds():
    text = turtle_to_nt(BROKEN)
    whole, whole_count = validate_ntriples(text, shapes())
    header = turtle_to_nt(HEADER).strip().splitlines()
    with ChunkValidator(shapes(), workers=1) as validator:
        for i in range(12):
            piece = turtle_to_nt(
                HEADER
                + statement(
                    **{"n": i},
                    **({"confidence": f'"2"^^<{XSD}double>'} if i % 3 == 0 else {"assert": "no"} if i % 3 == 1 else {}),
                )
            )
            lines = [line.rstrip(" .") for line in piece.strip().splitlines()]
            validator.add(lines, 1)
        validator.finish()
    key = {(i.focus_node, i.path, i.constraint) for i in whole}
    assert {(i.focus_node, i.path, i.constraint) for i in validator.issues} == key
    assert validator.issue_count == whole_count == 8
    assert header  # the header is repeated in every chunk, yet counted once


def test_two_chunks_go_to_worker_processes_with_the_same_findings():
    pieces = [
        turtle_to_nt(HEADER + statement(i, **({"confidence": f'"2"^^<{XSD}double>'} if i % 2 else {})))
        for i in range(4)
    ]
    found = {}
    for workers in (1, 2):
        with ChunkValidator(shapes(), workers=workers) as validator:
            for piece in pieces:
                validator.submit(piece)
            validator.finish()
        found[workers] = (
            {(i.focus_node, i.path) for i in validator.issues},
            validator.issue_count,
            validator.used_workers,
        )
    assert found[1][:2] == found[2][:2] == ({("urn:st1", PG + "confidence"), ("urn:st3", PG + "confidence")}, 2)
    assert (found[1][2], found[2][2]) == (False, True)
