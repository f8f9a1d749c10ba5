"""The built-in shapes compiled to Python checks (provgraph.ingest.shacl) give pySHACL's results:
the same focus nodes, paths, values, messages, severities, source shapes and constraint
components, over valid graphs and over a corpus of broken ones in which every constraint of
every built-in shape is violated at least once, alone and mixed with others."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from pyoxigraph import NamedNode, RdfFormat, parse

from provgraph.ingest.pipeline import catalog_checks, catalog_shapes, document_checks, document_shapes
from provgraph.ingest.records import Assertion, PassageSpec
from provgraph.ingest.reify import DocumentMeta, GraphBuilder
from provgraph.ingest.shacl import compile_shapes
from provgraph.ingest.validate import LOCAL_CHUNKS, ChunkValidator, builtin_shapes, validate_lines, validate_ntriples
from provgraph.models import ExtractionMethod, ValidationIssue

PREFIXES = """@prefix pg: <https://w3id.org/provgraph/ns#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
"""
HASH = "a" * 64
XSD = "http://www.w3.org/2001/XMLSchema#"
NOW = '"2024-01-01T00:00:00Z"^^xsd:dateTime'

# One triple a line, so that a case can take a line out or put one in.
DOCUMENT = f"""<urn:doc> a pg:SourceDocument
<urn:doc> a prov:Entity
<urn:doc> dcterms:title "T"
<urn:doc> pg:documentKey "k"
<urn:doc> pg:tier 2
<urn:doc> pg:contentHash "{HASH}"
<urn:doc> pg:sourceUrl "https://example.org/k"^^xsd:anyURI
<urn:doc> dcterms:issued "2024-03-01"^^xsd:date
<urn:doc> dcterms:publisher "P"
<urn:act> a pg:ExtractionActivity
<urn:act> a prov:Activity
<urn:act> prov:used <urn:doc>
<urn:act> prov:wasAssociatedWith <urn:agent>
<urn:act> prov:startedAtTime {NOW}
<urn:act> prov:endedAtTime {NOW}
<urn:act> pg:extractionMethod pg:SourceData
<urn:agent> a prov:Agent
<urn:pass> a pg:Passage
<urn:pass> pg:text "the passage"
<urn:pass> pg:inDocument <urn:doc>
<urn:pass> pg:page 3
<urn:pass> pg:section "Intro"
<urn:pass> pg:startOffset 0
<urn:pass> pg:endOffset 5
<urn:np> a pg:Nanopublication
<urn:np> pg:nanopubUri <http://example.org/np/RA0000000000000000000000000000000000000000000>
<urn:np> pg:inDocument <urn:doc>
<urn:np> pg:nanopubContent "<urn:a> <urn:b> <urn:c> <urn:g> ."
<urn:np> dcterms:created {NOW}
<urn:np> dcterms:creator <urn:creator>
<urn:np> pg:artefactCode "RA0000000000000000000000000000000000000000000"
<urn:np> pg:signatureAlgorithm "RSA"
<urn:np> pg:publicKey "MIGfMA0"
<urn:s1> <urn:p> "1"
<urn:st1> a rdf:Statement
<urn:st1> a pg:Statement
<urn:st1> rdf:subject <urn:s1>
<urn:st1> rdf:predicate <urn:p>
<urn:st1> rdf:object "1"
<urn:st1> pg:fact <urn:fact1>
<urn:st1> prov:wasDerivedFrom <urn:doc>
<urn:st1> prov:wasGeneratedBy <urn:act>
<urn:st1> prov:generatedAtTime {NOW}
<urn:st1> pg:confidence "0.9"^^xsd:double
<urn:st1> pg:extractionMethod pg:SourceData
<urn:st1> pg:sourcePassage <urn:pass>
<urn:st1> pg:reviewer <urn:reviewer>
<urn:st1> pg:lastVerified {NOW}
<urn:s2> <urn:q> <urn:o2>
<urn:st2> a rdf:Statement
<urn:st2> a pg:Statement
<urn:st2> rdf:subject <urn:s2>
<urn:st2> rdf:predicate <urn:q>
<urn:st2> rdf:object <urn:o2>
<urn:st2> pg:fact <urn:fact2>
<urn:st2> prov:wasDerivedFrom <urn:doc>
<urn:st2> prov:wasGeneratedBy <urn:act>
<urn:st2> prov:generatedAtTime {NOW}
<urn:st2> pg:confidence "1.0"^^xsd:double
<urn:st2> pg:extractionMethod pg:LlmExtraction"""

CATALOG = f"""<urn:cat> a pg:Catalog
<urn:cat> pg:hasSourceGraph <urn:g1>
<urn:cat> pg:hasSourceGraph <urn:g2>
<urn:cat> pg:hasSourceGraph <urn:h1>
<urn:g1> a pg:SourceGraph
<urn:g1> a prov:Entity
<urn:g1> pg:document <urn:d>
<urn:g1> pg:version 1
<urn:g1> pg:status pg:Superseded
<urn:g1> pg:contentHash "{HASH}"
<urn:g1> pg:fingerprint "f1"
<urn:g1> prov:generatedAtTime {NOW}
<urn:g1> pg:statementCount 3
<urn:g1> pg:passageCount 0
<urn:g2> a pg:SourceGraph
<urn:g2> a prov:Entity
<urn:g2> pg:document <urn:d>
<urn:g2> pg:version 2
<urn:g2> pg:status pg:Current
<urn:g2> pg:contentHash "{"b" * 64}"
<urn:g2> pg:fingerprint "f2"
<urn:g2> prov:generatedAtTime {NOW}
<urn:g2> prov:wasRevisionOf <urn:g1>
<urn:g2> pg:statementCount 4
<urn:g2> pg:passageCount 1
<urn:h1> a pg:SourceGraph
<urn:h1> pg:document <urn:e>
<urn:h1> pg:version 1
<urn:h1> pg:status pg:Revoked
<urn:h1> pg:contentHash "{"c" * 64}"
<urn:h1> prov:generatedAtTime {NOW}
<urn:h1> pg:statementCount 0
<urn:d> a pg:SourceDocument
<urn:d> pg:documentKey "d"
<urn:d> dcterms:title "D"
<urn:e> a pg:SourceDocument
<urn:e> pg:documentKey "e\""""

Edit = Callable[[list[str]], list[str]]


def swap(old: str, *new: str) -> Edit:
    """Replace the line ``old`` with ``new`` (none: take it out)."""

    def edit(lines: list[str]) -> list[str]:
        assert old in lines, old
        at = lines.index(old)
        return lines[:at] + list(new) + lines[at + 1 :]

    return edit


def add(*new: str) -> Edit:
    return lambda lines: lines + list(new)


def ntriples(base: str, *edits: Edit) -> list[str]:
    """The graph as N-Triples lines without the final " .", as the ingest pipeline writes them
    (pyoxigraph's terms, literals as written: Oxigraph canonicalises them only when storing)."""
    lines = base.splitlines()
    for edit in edits:
        lines = edit(lines)
    turtle = PREFIXES + "".join(f"{line} .\n" for line in lines)
    return [f"{t.subject} {t.predicate} {t.object}" for t in parse(turtle.encode(), format=RdfFormat.TURTLE)]


Key = tuple[str, str | None, str | None, str, str, str | None, str | None]


def _key(issue: ValidationIssue) -> Key:
    # Oxigraph gives blank nodes new labels on load, pySHACL shows those; the checks show the
    # labels of the input: compare them as "a blank node".
    def blank(term: str | None) -> str | None:
        return re.sub(r"^_:\w+$", "_:", term) if term else term

    return (
        blank(issue.focus_node) or "",
        issue.path,
        blank(issue.value),
        issue.message,
        issue.severity,
        issue.source_shape,
        issue.constraint,
    )


def both(lines: list[str], *, catalog: bool = False) -> tuple[list[Key], list[Key]]:
    """(pySHACL's results, the compiled checks' results), sorted."""
    shapes, checks = (catalog_shapes(), catalog_checks()) if catalog else (document_shapes(), document_checks())
    assert checks is not None
    expected, count = validate_ntriples("".join(f"{line} .\n" for line in lines), shapes)
    assert count == len(expected) < 100
    found, total = validate_lines(lines, checks)
    assert total == len(found)
    return sorted(map(_key, expected), key=_order), sorted(map(_key, found), key=_order)


def _order(key: Key) -> tuple[str, ...]:
    return tuple(part or "" for part in key)


# ---------------------------------------------------------------------- the corpus

S1, DOC, ACT, PASS = "<urn:st1>", "<urn:doc>", "<urn:act>", "<urn:pass>"
NP, NP_CODE = "<urn:np>", "RA" + "0" * 43
NP_URI, NP_CONTENT = f"http://example.org/np/{NP_CODE}", '"<urn:a> <urn:b> <urn:c> <urn:g> ."'


def value_of(subject: str, predicate: str, old: str) -> Callable[[str], Edit]:
    """An edit giving ``subject predicate`` another value instead of ``old``."""
    return lambda new: swap(f"{subject} {predicate} {old}", f"{subject} {predicate} {new}")


confidence = value_of(S1, "pg:confidence", '"0.9"^^xsd:double')
method = value_of(S1, "pg:extractionMethod", "pg:SourceData")
issued = value_of(DOC, "dcterms:issued", '"2024-03-01"^^xsd:date')

DOCUMENT_CASES: dict[str, list[Edit]] = {
    # pg:StatementShape
    "statement-not-rdf-statement": [swap(f"{S1} a rdf:Statement")],
    "statement-no-subject": [swap(f"{S1} rdf:subject <urn:s1>")],
    "statement-two-subjects": [add(f"{S1} rdf:subject <urn:s9>")],
    "statement-literal-subject": [swap(f"{S1} rdf:subject <urn:s1>", f'{S1} rdf:subject "s1"')],
    "statement-no-predicate": [swap(f"{S1} rdf:predicate <urn:p>")],
    "statement-two-predicates": [add(f"{S1} rdf:predicate <urn:q>", '<urn:s1> <urn:q> "1"')],
    "statement-blank-predicate": [swap(f"{S1} rdf:predicate <urn:p>", f"{S1} rdf:predicate _:p")],
    "statement-no-object": [swap(f'{S1} rdf:object "1"')],
    "statement-two-objects": [add(f'{S1} rdf:object "2"', '<urn:s1> <urn:p> "2"')],
    "statement-no-fact": [swap(f"{S1} pg:fact <urn:fact1>")],
    "statement-two-facts": [add(f"{S1} pg:fact <urn:fact9>")],
    "statement-literal-fact": [swap(f"{S1} pg:fact <urn:fact1>", f'{S1} pg:fact "fact1"')],
    "statement-no-source": [swap(f"{S1} prov:wasDerivedFrom {DOC}")],
    "statement-two-sources": [add(f"{S1} prov:wasDerivedFrom {PASS}")],
    "statement-source-not-a-document": [swap(f"{S1} prov:wasDerivedFrom {DOC}", f"{S1} prov:wasDerivedFrom <urn:x>")],
    "statement-source-literal": [swap(f"{S1} prov:wasDerivedFrom {DOC}", f'{S1} prov:wasDerivedFrom "doc"')],
    "statement-no-activity": [swap(f"{S1} prov:wasGeneratedBy {ACT}")],
    "statement-two-activities": [add(f"{S1} prov:wasGeneratedBy <urn:act2>", "<urn:act2> a prov:Activity")],
    "statement-activity-not-an-activity": [swap(f"{S1} prov:wasGeneratedBy {ACT}", f"{S1} prov:wasGeneratedBy {DOC}")],
    "statement-no-time": [swap(f"{S1} prov:generatedAtTime {NOW}")],
    "statement-two-times": [add(f'{S1} prov:generatedAtTime "2024-02-01T00:00:00Z"^^xsd:dateTime')],
    "statement-time-string": [swap(f"{S1} prov:generatedAtTime {NOW}", f'{S1} prov:generatedAtTime "yesterday"')],
    "statement-time-ill-typed": [
        swap(f"{S1} prov:generatedAtTime {NOW}", f'{S1} prov:generatedAtTime "yesterday"^^xsd:dateTime')
    ],
    "statement-time-a-date": [
        swap(f"{S1} prov:generatedAtTime {NOW}", f'{S1} prov:generatedAtTime "2024-01-01"^^xsd:date')
    ],
    "statement-no-confidence": [swap(f'{S1} pg:confidence "0.9"^^xsd:double')],
    "statement-two-confidences": [add(f'{S1} pg:confidence "0.5"^^xsd:double')],
    "statement-confidence-above-one": [confidence('"1.5"^^xsd:double')],
    "statement-confidence-below-zero": [confidence('"-0.1"^^xsd:double')],
    "statement-confidence-infinite": [confidence('"INF"^^xsd:double')],
    "statement-confidence-not-a-number": [confidence('"NaN"^^xsd:double')],
    "statement-confidence-integer": [confidence("1")],
    "statement-confidence-string": [confidence('"0.9"')],
    "statement-confidence-ill-typed": [confidence('"high"^^xsd:double')],
    "statement-confidence-iri": [confidence("<urn:high>")],
    "statement-no-method": [swap(f"{S1} pg:extractionMethod pg:SourceData")],
    "statement-two-methods": [add(f"{S1} pg:extractionMethod pg:RuleBased")],
    "statement-unknown-method": [method("pg:Guesswork")],
    "statement-method-string": [method('"SourceData"')],
    "statement-passage-not-a-passage": [swap(f"{S1} pg:sourcePassage {PASS}", f"{S1} pg:sourcePassage {DOC}")],
    "statement-passage-literal": [swap(f"{S1} pg:sourcePassage {PASS}", f'{S1} pg:sourcePassage "the passage"')],
    "statement-two-passages-one-wrong": [add(f"{S1} pg:sourcePassage <urn:nowhere>")],
    "statement-reviewer-literal": [swap(f"{S1} pg:reviewer <urn:reviewer>", f'{S1} pg:reviewer "Ann"')],
    "statement-reviewer-blank": [swap(f"{S1} pg:reviewer <urn:reviewer>", f"{S1} pg:reviewer _:ann")],
    "statement-two-verified": [add(f'{S1} pg:lastVerified "2023-01-01T00:00:00Z"^^xsd:dateTime')],
    "statement-verified-string": [swap(f"{S1} pg:lastVerified {NOW}", f'{S1} pg:lastVerified "2024"')],
    "statement-verified-ill-typed": [swap(f"{S1} pg:lastVerified {NOW}", f'{S1} pg:lastVerified "soon"^^xsd:dateTime')],
    "statement-triple-not-asserted": [swap('<urn:s1> <urn:p> "1"')],
    "statement-triple-asserted-other-object": [swap('<urn:s1> <urn:p> "1"', '<urn:s1> <urn:p> "2"')],
    "statement-blank-subject-not-asserted": [
        swap(f"{S1} rdf:subject <urn:s1>", f"{S1} rdf:subject _:s"),
        swap('<urn:s1> <urn:p> "1"', '_:t <urn:p> "1"'),
    ],
    "statement-of-a-subclass": [add("<urn:Mine> rdfs:subClassOf pg:Statement", "<urn:st3> a <urn:Mine>")],
    "statement-blank-node": [add("_:st a pg:Statement", "_:st rdf:subject <urn:s1>")],
    # pg:SourceDocumentShape
    "document-not-an-entity": [swap(f"{DOC} a prov:Entity")],
    "document-no-title": [swap(f'{DOC} dcterms:title "T"')],
    "document-two-titles": [add(f'{DOC} dcterms:title "U"')],
    "document-iri-title": [swap(f'{DOC} dcterms:title "T"', f"{DOC} dcterms:title <urn:title>")],
    "document-empty-title": [swap(f'{DOC} dcterms:title "T"', f'{DOC} dcterms:title ""')],
    "document-no-key": [swap(f'{DOC} pg:documentKey "k"')],
    "document-two-keys": [add(f'{DOC} pg:documentKey "j"')],
    "document-empty-key": [swap(f'{DOC} pg:documentKey "k"', f'{DOC} pg:documentKey ""')],
    "document-language-key": [swap(f'{DOC} pg:documentKey "k"', f'{DOC} pg:documentKey "k"@en')],
    "document-two-urls": [add(f'{DOC} pg:sourceUrl "https://example.org/j"^^xsd:anyURI')],
    "document-url-string": [
        swap(f'{DOC} pg:sourceUrl "https://example.org/k"^^xsd:anyURI', f'{DOC} pg:sourceUrl "https://example.org/k"')
    ],
    "document-two-issued": [add(f'{DOC} dcterms:issued "2024"^^xsd:gYear')],
    "document-issued-string": [issued('"2024"')],
    "document-issued-ill-typed": [issued('"March"^^xsd:date')],
    "document-no-tier": [swap(f"{DOC} pg:tier 2")],
    "document-two-tiers": [add(f"{DOC} pg:tier 3")],
    "document-tier-zero": [swap(f"{DOC} pg:tier 2", f"{DOC} pg:tier 0")],
    "document-tier-seven": [swap(f"{DOC} pg:tier 2", f"{DOC} pg:tier 7")],
    "document-tier-decimal": [swap(f"{DOC} pg:tier 2", f"{DOC} pg:tier 2.5")],
    "document-tier-string": [swap(f"{DOC} pg:tier 2", f'{DOC} pg:tier "2"')],
    "document-tier-ill-typed": [swap(f"{DOC} pg:tier 2", f'{DOC} pg:tier "two"^^xsd:integer')],
    "document-two-publishers": [add(f"{DOC} dcterms:publisher <urn:publisher>")],
    "document-no-hash": [swap(f'{DOC} pg:contentHash "{HASH}"')],
    "document-two-hashes": [add(f'{DOC} pg:contentHash "{"b" * 64}"')],
    "document-short-hash": [swap(f'{DOC} pg:contentHash "{HASH}"', f'{DOC} pg:contentHash "abc"')],
    "document-upper-case-hash": [swap(f'{DOC} pg:contentHash "{HASH}"', f'{DOC} pg:contentHash "{"A" * 64}"')],
    "document-hash-integer": [swap(f'{DOC} pg:contentHash "{HASH}"', f"{DOC} pg:contentHash {'1' * 64}")],
    "document-hash-iri": [swap(f'{DOC} pg:contentHash "{HASH}"', f"{DOC} pg:contentHash <urn:{HASH}>")],
    "second-document-empty": [add("<urn:doc2> a pg:SourceDocument")],
    # pg:ExtractionActivityShape
    "activity-not-a-prov-activity": [swap(f"{ACT} a prov:Activity")],
    "activity-used-nothing": [swap(f"{ACT} prov:used {DOC}")],
    "activity-used-not-a-document": [swap(f"{ACT} prov:used {DOC}", f"{ACT} prov:used {PASS}")],
    "activity-no-agent": [swap(f"{ACT} prov:wasAssociatedWith <urn:agent>")],
    "activity-agent-not-an-agent": [swap("<urn:agent> a prov:Agent")],
    "activity-agent-literal": [swap(f"{ACT} prov:wasAssociatedWith <urn:agent>", f'{ACT} prov:wasAssociatedWith "me"')],
    "activity-not-started": [swap(f"{ACT} prov:startedAtTime {NOW}")],
    "activity-started-twice": [add(f'{ACT} prov:startedAtTime "2023-01-01T00:00:00Z"^^xsd:dateTime')],
    "activity-started-string": [swap(f"{ACT} prov:startedAtTime {NOW}", f'{ACT} prov:startedAtTime "today"')],
    "activity-ended-twice": [add(f'{ACT} prov:endedAtTime "2025-01-01T00:00:00Z"^^xsd:dateTime')],
    "activity-ended-date": [swap(f"{ACT} prov:endedAtTime {NOW}", f'{ACT} prov:endedAtTime "2024-01-01"^^xsd:date')],
    "activity-two-methods": [add(f"{ACT} pg:extractionMethod pg:RuleBased")],
    "activity-unknown-method": [
        swap(f"{ACT} pg:extractionMethod pg:SourceData", f"{ACT} pg:extractionMethod pg:Magic")
    ],
    "activity-of-a-subclass": [add("<urn:Run> rdfs:subClassOf pg:ExtractionActivity", "<urn:run> a <urn:Run>")],
    # pg:PassageShape
    "passage-no-text": [swap(f'{PASS} pg:text "the passage"')],
    "passage-two-texts": [add(f'{PASS} pg:text "another"')],
    "passage-empty-text": [swap(f'{PASS} pg:text "the passage"', f'{PASS} pg:text ""')],
    "passage-language-text": [swap(f'{PASS} pg:text "the passage"', f'{PASS} pg:text "the passage"@en')],
    "passage-no-document": [swap(f"{PASS} pg:inDocument {DOC}")],
    "passage-two-documents": [add(f"{PASS} pg:inDocument <urn:doc2>", "<urn:doc2> a pg:SourceDocument")],
    "passage-document-unknown": [swap(f"{PASS} pg:inDocument {DOC}", f"{PASS} pg:inDocument <urn:elsewhere>")],
    "passage-two-pages": [add(f"{PASS} pg:page 4")],
    "passage-page-zero": [swap(f"{PASS} pg:page 3", f"{PASS} pg:page 0")],
    "passage-page-string": [swap(f"{PASS} pg:page 3", f'{PASS} pg:page "3"')],
    "passage-two-sections": [add(f'{PASS} pg:section "Outro"')],
    "passage-section-integer": [swap(f'{PASS} pg:section "Intro"', f"{PASS} pg:section 1")],
    "passage-two-starts": [add(f"{PASS} pg:startOffset 1")],
    "passage-negative-start": [swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset -1")],
    "passage-start-string": [swap(f"{PASS} pg:startOffset 0", f'{PASS} pg:startOffset "0"')],
    "passage-start-after-end": [swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset 9")],
    "passage-start-at-end": [swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset 5")],
    "passage-start-decimal": [swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset 1.5")],
    "passage-start-iri": [swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset <urn:zero>")],
    "passage-two-ends": [add(f"{PASS} pg:endOffset 6")],
    "passage-end-zero": [swap(f"{PASS} pg:endOffset 5", f"{PASS} pg:endOffset 0")],
    "passage-end-string": [swap(f"{PASS} pg:endOffset 5", f'{PASS} pg:endOffset "5"')],
    # pgsh:NanopublicationShape
    "nanopub-no-uri": [swap(f"{NP} pg:nanopubUri <{NP_URI}>")],
    "nanopub-two-uris": [add(f"{NP} pg:nanopubUri <urn:np2>")],
    "nanopub-literal-uri": [swap(f"{NP} pg:nanopubUri <{NP_URI}>", f'{NP} pg:nanopubUri "{NP_URI}"')],
    "nanopub-no-document": [swap(f"{NP} pg:inDocument {DOC}")],
    "nanopub-two-documents": [add(f"{NP} pg:inDocument <urn:doc2>", "<urn:doc2> a pg:SourceDocument")],
    "nanopub-document-unknown": [swap(f"{NP} pg:inDocument {DOC}", f"{NP} pg:inDocument <urn:elsewhere>")],
    "nanopub-no-content": [swap(f"{NP} pg:nanopubContent {NP_CONTENT}")],
    "nanopub-two-contents": [add(f'{NP} pg:nanopubContent "<urn:x> <urn:y> <urn:z> ."')],
    "nanopub-empty-content": [swap(f"{NP} pg:nanopubContent {NP_CONTENT}", f'{NP} pg:nanopubContent ""')],
    "nanopub-content-iri": [swap(f"{NP} pg:nanopubContent {NP_CONTENT}", f"{NP} pg:nanopubContent <urn:c>")],
    "nanopub-two-created": [add(f'{NP} dcterms:created "2020-01-01T00:00:00Z"^^xsd:dateTime')],
    "nanopub-created-date": [swap(f"{NP} dcterms:created {NOW}", f'{NP} dcterms:created "2024-01-01"^^xsd:date')],
    "nanopub-literal-creator": [swap(f"{NP} dcterms:creator <urn:creator>", f'{NP} dcterms:creator "me"')],
    "nanopub-two-codes": [add(f'{NP} pg:artefactCode "RA{"1" * 43}"')],
    "nanopub-short-code": [swap(f'{NP} pg:artefactCode "{NP_CODE}"', f'{NP} pg:artefactCode "RA00"')],
    "nanopub-code-integer": [swap(f'{NP} pg:artefactCode "{NP_CODE}"', f"{NP} pg:artefactCode 7")],
    "nanopub-two-algorithms": [add(f'{NP} pg:signatureAlgorithm "DSA"')],
    "nanopub-unknown-algorithm": [swap(f'{NP} pg:signatureAlgorithm "RSA"', f'{NP} pg:signatureAlgorithm "ECDSA"')],
    "nanopub-two-keys": [add(f'{NP} pg:publicKey "MIIB"')],
    "nanopub-key-integer": [swap(f'{NP} pg:publicKey "MIGfMA0"', f"{NP} pg:publicKey 7")],
    # several at once
    "mixture-statement": [
        confidence('"2"^^xsd:double'),
        swap('<urn:s1> <urn:p> "1"'),
        method("pg:Guesswork"),
        add(f"{S1} pg:fact <urn:fact9>"),
    ],
    "mixture-everything": [
        swap(f"{DOC} pg:tier 2", f"{DOC} pg:tier 9"),
        swap(f'{DOC} pg:contentHash "{HASH}"', f'{DOC} pg:contentHash "xyz"'),
        swap(f"{ACT} prov:startedAtTime {NOW}"),
        swap(f"{PASS} pg:startOffset 0", f"{PASS} pg:startOffset 8"),
        swap(f"{S1} prov:wasDerivedFrom {DOC}", f"{S1} prov:wasDerivedFrom <urn:x>"),
        swap("<urn:st2> pg:extractionMethod pg:LlmExtraction"),
        swap("<urn:s2> <urn:q> <urn:o2>"),
    ],
    "mixture-many-statements": [
        add(
            *(
                line
                for n in range(3, 30)
                for line in (
                    f"<urn:st{n}> a rdf:Statement",
                    f"<urn:st{n}> a pg:Statement",
                    f"<urn:st{n}> rdf:subject <urn:s{n}>",
                    f"<urn:st{n}> rdf:predicate <urn:p>",
                    f'<urn:st{n}> rdf:object "{n}"',
                    f"<urn:st{n}> pg:fact <urn:fact{n}>",
                    f"<urn:st{n}> prov:wasDerivedFrom {DOC if n % 5 else '<urn:x>'}",
                    f"<urn:st{n}> prov:wasGeneratedBy {ACT}",
                    f"<urn:st{n}> prov:generatedAtTime {NOW}",
                    f'<urn:st{n}> pg:confidence "{n / 20}"^^xsd:double',
                    f"<urn:st{n}> pg:extractionMethod pg:{'RuleBased' if n % 7 else 'Nope'}",
                    *([f'<urn:s{n}> <urn:p> "{n}"'] if n % 3 else []),
                )
            )
        )
    ],
}

# Edits that leave the graph valid, though they take the checks off their fast paths (subclasses,
# literals Oxigraph stores in another form, blank nodes, a value alone).
VALID_CASES: dict[str, list[Edit]] = {
    "document-language-title": [swap(f'{DOC} dcterms:title "T"', f'{DOC} dcterms:title "T"@en')],
    "statement-one-object-two-spellings": [
        swap(f'{S1} rdf:object "1"', f'{S1} rdf:object "01"^^xsd:integer', f'{S1} rdf:object "1"^^xsd:integer'),
        swap('<urn:s1> <urn:p> "1"', '<urn:s1> <urn:p> "1"^^xsd:integer'),
    ],
    "statement-confidence-two-spellings": [add(f'{S1} pg:confidence "0.90"^^xsd:double')],
    "statement-triple-asserted-as-another-spelling": [
        swap(f'{S1} rdf:object "1"', f'{S1} rdf:object "01"^^xsd:integer'),
        swap('<urn:s1> <urn:p> "1"', '<urn:s1> <urn:p> "1"^^xsd:integer'),
    ],
    "statement-blank-subject": [
        swap(f"{S1} rdf:subject <urn:s1>", f"{S1} rdf:subject _:s"),
        swap('<urn:s1> <urn:p> "1"', '_:s <urn:p> "1"'),
    ],
    "document-issued-year": [issued('"2024"^^xsd:gYear')],
    "document-issued-month": [issued('"2024-03"^^xsd:gYearMonth')],
    "document-issued-date-time": [issued(NOW)],
    "document-tier-padded": [swap(f"{DOC} pg:tier 2", f'{DOC} pg:tier "02"^^xsd:integer')],
    "activity-agent-of-a-subclass": [
        swap(
            "<urn:agent> a prov:Agent",
            "<urn:agent> a prov:SoftwareAgent",
            "prov:SoftwareAgent rdfs:subClassOf prov:Agent",
        )
    ],
    "activity-agent-of-a-subclass-of-a-subclass": [
        swap("<urn:agent> a prov:Agent", "<urn:agent> a <urn:Bot>"),
        add("<urn:Bot> rdfs:subClassOf prov:SoftwareAgent", "prov:SoftwareAgent rdfs:subClassOf prov:Agent"),
    ],
    "passage-start-without-end": [swap(f"{PASS} pg:endOffset 5")],
}

CATALOG_CASES: dict[str, list[Edit]] = {
    "graph-no-document": [swap("<urn:g1> pg:document <urn:d>")],
    "graph-two-documents": [add("<urn:g1> pg:document <urn:e>")],
    "graph-document-unknown": [swap("<urn:h1> pg:document <urn:e>", "<urn:h1> pg:document <urn:f>")],
    "graph-no-version": [swap("<urn:g1> pg:version 1")],
    "graph-two-versions": [add("<urn:g1> pg:version 3")],
    "graph-version-zero": [swap("<urn:g1> pg:version 1", "<urn:g1> pg:version 0")],
    "graph-version-string": [swap("<urn:g1> pg:version 1", '<urn:g1> pg:version "1"')],
    "graph-no-hash": [swap(f'<urn:g1> pg:contentHash "{HASH}"')],
    "graph-two-hashes": [add(f'<urn:g1> pg:contentHash "{"d" * 64}"')],
    "graph-bad-hash": [swap(f'<urn:g1> pg:contentHash "{HASH}"', '<urn:g1> pg:contentHash "not a hash"')],
    "graph-hash-language": [swap(f'<urn:g1> pg:contentHash "{HASH}"', f'<urn:g1> pg:contentHash "{HASH}"@en')],
    "graph-no-status": [swap("<urn:g1> pg:status pg:Superseded")],
    "graph-two-statuses": [add("<urn:g1> pg:status pg:Revoked")],
    "graph-unknown-status": [swap("<urn:g1> pg:status pg:Superseded", "<urn:g1> pg:status pg:Lost")],
    "graph-two-revisions": [add("<urn:g2> prov:wasRevisionOf <urn:h1>")],
    "graph-revision-of-nothing": [swap("<urn:g2> prov:wasRevisionOf <urn:g1>", "<urn:g2> prov:wasRevisionOf <urn:g0>")],
    "graph-no-time": [swap(f"<urn:g1> prov:generatedAtTime {NOW}")],
    "graph-two-times": [add('<urn:g1> prov:generatedAtTime "2020-01-01T00:00:00Z"^^xsd:dateTime')],
    "graph-time-string": [swap(f"<urn:g1> prov:generatedAtTime {NOW}", '<urn:g1> prov:generatedAtTime "now"')],
    "graph-no-count": [swap("<urn:g1> pg:statementCount 3")],
    "graph-two-counts": [add("<urn:g1> pg:statementCount 4")],
    "graph-negative-count": [swap("<urn:g1> pg:statementCount 3", "<urn:g1> pg:statementCount -3")],
    "graph-count-double": [swap("<urn:g1> pg:statementCount 3", "<urn:g1> pg:statementCount 3.0e0")],
    "document-two-current-versions": [swap("<urn:g1> pg:status pg:Superseded", "<urn:g1> pg:status pg:Current")],
    "document-three-current-versions": [
        swap("<urn:g1> pg:status pg:Superseded", "<urn:g1> pg:status pg:Current"),
        swap("<urn:h1> pg:document <urn:e>", "<urn:h1> pg:document <urn:d>"),
        swap("<urn:h1> pg:status pg:Revoked", "<urn:h1> pg:status pg:Current"),
    ],
    "document-current-version-not-a-graph": [add("<urn:x> pg:document <urn:d>", "<urn:x> pg:status pg:Current")],
    "document-no-key": [swap('<urn:d> pg:documentKey "d"')],
    "document-two-keys": [add('<urn:d> pg:documentKey "dd"')],
    "document-key-iri": [swap('<urn:d> pg:documentKey "d"', "<urn:d> pg:documentKey <urn:key>")],
    "mixture-catalog": [
        swap("<urn:g1> pg:status pg:Superseded", "<urn:g1> pg:status pg:Current"),
        swap("<urn:g2> pg:version 2", "<urn:g2> pg:version -2"),
        swap('<urn:e> pg:documentKey "e"'),
    ],
}


def test_the_built_in_shapes_compile():
    assert document_checks() is not None
    assert catalog_checks() is not None
    assert compile_shapes(builtin_shapes()) is not None


@pytest.mark.parametrize("catalog", [False, True], ids=["document", "catalog"])
def test_valid_graphs_give_no_results_either_way(catalog):
    expected, found = both(ntriples(CATALOG if catalog else DOCUMENT), catalog=catalog)
    assert expected == found == []


@pytest.mark.parametrize("case", sorted(VALID_CASES))
def test_a_valid_variant_gives_no_results_either_way(case):
    expected, found = both(ntriples(DOCUMENT, *VALID_CASES[case]))
    assert expected == found == []


@pytest.mark.parametrize("case", sorted(DOCUMENT_CASES))
def test_a_broken_document_graph_gives_pyshacls_results(case):
    expected, found = both(ntriples(DOCUMENT, *DOCUMENT_CASES[case]))
    assert expected  # the case breaks something
    assert found == expected


@pytest.mark.parametrize("case", sorted(CATALOG_CASES))
def test_a_broken_catalog_gives_pyshacls_results(case):
    expected, found = both(ntriples(CATALOG, *CATALOG_CASES[case]), catalog=True)
    assert expected
    assert found == expected


@pytest.mark.parametrize("catalog", [False, True], ids=["document", "catalog"])
def test_the_corpus_breaks_every_constraint_of_every_built_in_shape(catalog):
    checks = catalog_checks() if catalog else document_checks()
    assert checks is not None
    cases = CATALOG_CASES if catalog else DOCUMENT_CASES
    seen = set()
    for edits in cases.values():
        found, _ = validate_lines(ntriples(CATALOG if catalog else DOCUMENT, *edits), checks)
        seen |= {(i.source_shape, i.constraint) for i in found}
    assert checks.constraints() - seen == set()
    assert len(checks.constraints()) > (10 if catalog else 80)


def _built(**meta: object) -> list[str]:
    """The lines the ingest pipeline writes for a small document."""
    fields: dict[str, object] = {
        "key": "https://example.org/k",
        "title": "A title",
        "tier": 2,
        "content_hash": HASH,
        "media_type": "text/turtle",
        "method": ExtractionMethod.LLM_EXTRACTION,
    }
    fields.update(meta)
    builder = GraphBuilder(
        DocumentMeta(**fields),  # type: ignore[arg-type]
        NamedNode("https://w3id.org/provgraph/id/doc/abc"),
        NamedNode("https://w3id.org/provgraph/id/doc/abc/v1"),
        datetime(2024, 5, 1, 12, 30, tzinfo=UTC),
    )
    lines = builder.header()
    passage = PassageSpec("Aspirin treats headaches.", page=2, section="Uses", start=10, end=35)
    for n, assertion in enumerate(
        [
            Assertion("<https://e.org/aspirin>", "<https://e.org/treats>", "<https://e.org/headache>", passage=passage),
            Assertion(
                "_:b1", "<https://e.org/dose>", '"500"^^<http://www.w3.org/2001/XMLSchema#integer>', confidence=1.0
            ),
            Assertion(
                "<https://e.org/aspirin>",
                "<http://www.w3.org/2000/01/rdf-schema#label>",
                '"aspirin"@en',
                method="rule_based",
                reviewer="<https://e.org/ann>",
                last_verified="2024-01-01T00:00:00Z",
                original_graph="<https://e.org/g>",
                extra=[("<https://e.org/edits>", '"3"^^<http://www.w3.org/2001/XMLSchema#integer>')],
            ),
        ]
    ):
        statement_lines, _ = builder.statement(assertion)
        lines += statement_lines
        assert n < 3
    return lines


@pytest.mark.parametrize(
    "meta",
    [
        {},
        {"url": "https://example.org/k", "issued": ("2024", "http://www.w3.org/2001/XMLSchema#gYear")},
        {"publisher": "https://example.org/press", "agent": "https://example.org/me", "confidence": 0.25},
        {"issued": ("2024-03-01T00:00:00Z", "http://www.w3.org/2001/XMLSchema#dateTime"), "publisher": "Press"},
    ],
    ids=["plain", "url-year", "agent-publisher-iri", "date-time-publisher-name"],
)
def test_what_the_pipeline_writes_conforms_either_way(meta):
    expected, found = both(_built(**meta))
    assert expected == found == []


def test_what_the_pipeline_writes_broken_gives_pyshacls_results():
    lines = [line.replace('"0.9"', '"1.9"') for line in _built(confidence=0.9)]
    lines = [
        line for line in lines if "<https://e.org/treats>" not in line or "Statement" in line or "rdf-syntax" in line
    ]
    expected, found = both(lines)
    assert expected and found == expected


def test_chunks_checked_in_a_worker_process_give_the_same_results():
    broken = [
        ntriples(DOCUMENT, *edits)
        for edits in (DOCUMENT_CASES["mixture-everything"], DOCUMENT_CASES["statement-two-subjects"], [])
    ]
    found = {}
    for workers in (0, 1):
        with ChunkValidator(document_shapes(), workers=workers, checks=document_checks()) as validator:
            for n in range(LOCAL_CHUNKS + 4):
                validator.submit("\n".join(broken[n % len(broken)]))
            validator.finish()
        found[workers] = (
            sorted(map(_key, validator.issues), key=_order),
            validator.issue_count,
            validator.used_workers,
        )
    assert found[0][2] is False and found[1][2] is True
    assert found[0][:2] == found[1][:2]
    assert found[0][0]  # source shapes (blank nodes of the shapes graph) read the same in the worker


def _entries(n: int) -> list:
    from provgraph.store.catalog import NewVersion

    def entry(i: int) -> NewVersion:
        return NewVersion(
            document=NamedNode(f"urn:doc{i}"),
            key=f"k{i}",
            title=f"T{i}",
            graph=NamedNode(f"urn:doc{i}/v1"),
            activity=NamedNode(f"urn:doc{i}/v1/ingest"),
            version=1 if i % 3 else 0,  # every third one breaks sh:minInclusive 1
            content_hash=HASH if i % 4 else "not hex",  # every fourth one breaks sh:pattern
            fingerprint="f",
            ingested_at="2024-01-01T00:00:00Z",
            statements=1,
            passages=0,
            previous=None,
            revision_of=None,
        )

    return [entry(i) for i in range(n)]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pyshacl"])
def test_the_catalog_validated_in_chunks_reports_what_one_validation_of_all_reports(monkeypatch, compiled):
    """Large ingests validate their catalog entries a chunk of documents at a time (memory); the
    issues, their order, the first MAX_ISSUES and the count are those of one validation."""
    from provgraph import ProvGraph
    from provgraph.ingest import pipeline
    from provgraph.ingest.validate import MAX_ISSUES

    if not compiled:
        monkeypatch.setattr(pipeline, "catalog_checks", lambda: None)
    entries = _entries(3 * MAX_ISSUES)  # more issues than a report lists
    with ProvGraph.open() as pg:
        whole = pipeline._validate_catalog(pg.backend, entries)
        monkeypatch.setattr(pipeline, "CATALOG_CHUNK", 7)
        chunked = pipeline._validate_catalog(pg.backend, entries)
    broken_version = sum(1 for i in range(len(entries)) if i % 3 == 0)
    broken_hash = sum(1 for i in range(len(entries)) if i % 4 == 0)
    assert whole.issue_count == broken_version + broken_hash > MAX_ISSUES and not whole.conforms
    assert len(whole.issues) == MAX_ISSUES
    assert chunked == whole
