"""Ingest: every reader, the reified graph it produces, and content addressing."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph
import pytest

from helpers import EXAMPLES
from provgraph import (
    DocumentOutcome,
    ExtractionMethod,
    GraphSplit,
    IngestOptions,
    InputError,
    InputFormat,
    ProvGraph,
    SourceStatus,
    ValidationFailedError,
)

EX = "http://example.org/"
TURTLE = f"""@prefix ex: <{EX}> .
ex:aspirin ex:treats ex:headache ; ex:dose 500 ; ex:label "aspirine"@fr .
ex:headache ex:label "headache" .
"""
EXPECTED_TRIPLES = {
    (f"<{EX}aspirin>", f"<{EX}treats>", f"<{EX}headache>"),
    (f"<{EX}aspirin>", f"<{EX}dose>", '"500"^^<http://www.w3.org/2001/XMLSchema#integer>'),
    (f"<{EX}aspirin>", f"<{EX}label>", '"aspirine"@fr'),
    (f"<{EX}headache>", f"<{EX}label>", '"headache"'),
}


def asserted(pg: ProvGraph, graph: str) -> set[tuple[str, str, str]]:
    rows = pg.query(f"""SELECT ?s ?p ?o WHERE {{ GRAPH <{graph}> {{
        ?s ?p ?o FILTER NOT EXISTS {{ ?s a pg:Statement }} FILTER(STRSTARTS(STR(?p), "{EX}")) }} }}""")
    return {(str(r["s"]), str(r["p"]), str(r["o"])) for r in rows}


@pytest.mark.parametrize(
    ("suffix", "rdf_format"),
    [
        (".ttl", pyoxigraph.RdfFormat.TURTLE),
        (".nt", pyoxigraph.RdfFormat.N_TRIPLES),
        (".nq", pyoxigraph.RdfFormat.N_QUADS),
        (".trig", pyoxigraph.RdfFormat.TRIG),
        (".jsonld", pyoxigraph.RdfFormat.JSON_LD),
        (".rdf", pyoxigraph.RdfFormat.RDF_XML),
    ],
)
def test_every_rdf_format_ingests_the_same_triples(pg, tmp_path, suffix, rdf_format):
    quads = list(pyoxigraph.parse(TURTLE.encode(), format=pyoxigraph.RdfFormat.TURTLE))
    path = tmp_path / f"facts{suffix}"
    path.write_bytes(pyoxigraph.serialize(quads, format=rdf_format))
    report = pg.ingest(path, IngestOptions(title="Facts", url="https://example.org/facts"))
    assert report.format is InputFormat.from_path(path)
    assert report.statements == 4
    assert asserted(pg, report.documents[0].graph) == EXPECTED_TRIPLES


def test_format_option_overrides_the_extension(pg, tmp_path):
    path = tmp_path / "facts.data"
    path.write_text(TURTLE)
    report = pg.ingest(path, IngestOptions(format=InputFormat.TURTLE))
    assert report.statements == 4


def test_statement_structure_and_document_fields_live_once(pg):
    report = pg.ingest(
        EXAMPLES / "aspirin.ttl",
        IngestOptions(
            title="Aspirin facts",
            url="https://example.org/aspirin",
            issued="2024-03-01",
            tier=2,
            publisher="Example Press",
        ),
    )
    graph = report.documents[0].graph
    # every statement: 13 quads (asserted triple, three types: rdf:Statement, pg:Statement and
    # prov:Entity, s/p/o, fact, source, activity, time, confidence, method); the document,
    # activity and agent are described once
    per_statement = pg.query(f"""SELECT ?st (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{
        ?st a pg:Statement ; ?p ?o }} }} GROUP BY ?st""").rows()
    assert len(per_statement) == 4
    assert {int(r["n"].value) for r in per_statement} == {12}
    entities = pg.query(f"SELECT ?st WHERE {{ GRAPH <{graph}> {{ ?st a pg:Statement, prov:Entity }} }}").rows()
    assert len(entities) == 4  # typed in the data, for PROV tools that read no ontology
    titles = pg.query(f"SELECT ?t WHERE {{ GRAPH <{graph}> {{ ?d dcterms:title ?t }} }}").rows()
    assert [r["t"].value for r in titles] == ["Aspirin facts"]
    on_statements = pg.query(f"""ASK {{ GRAPH <{graph}> {{ ?st a pg:Statement .
        {{ ?st dcterms:title ?x }} UNION {{ ?st pg:tier ?x }} UNION {{ ?st pg:sourceUrl ?x }} }} }}""")
    assert not bool(on_statements)
    doc = pg.query(f"""SELECT ?tier ?url ?issued ?pub ?hash WHERE {{ GRAPH <{graph}> {{
        ?d a pg:SourceDocument ; pg:tier ?tier ; pg:sourceUrl ?url ; dcterms:issued ?issued ;
           dcterms:publisher ?pub ; pg:contentHash ?hash }} }}""").rows()[0]
    assert doc["tier"].value == "2"
    assert doc["url"].value == "https://example.org/aspirin"
    assert doc["issued"] == pyoxigraph.Literal(
        "2024-03-01", datatype=pyoxigraph.NamedNode("http://www.w3.org/2001/XMLSchema#date")
    )
    assert doc["pub"].value == "Example Press"
    assert len(doc["hash"].value) == 64
    activity = pg.query(f"""SELECT ?agent WHERE {{ GRAPH <{graph}> {{
        ?st a pg:Statement ; prov:wasGeneratedBy ?a . ?a prov:used ?d ; prov:wasAssociatedWith ?agent .
        ?agent a prov:Agent }} }}""").rows()
    assert {r["agent"].value for r in activity} == {"https://w3id.org/provgraph/id/agent/provgraph"}


def test_the_same_fact_in_two_documents_shares_one_fact_key(pg, tmp_path):
    a, b = tmp_path / "a.ttl", tmp_path / "b.ttl"
    a.write_text(f"<{EX}aspirin> <{EX}treats> <{EX}headache> .")
    b.write_text(f"<{EX}aspirin> <{EX}treats> <{EX}headache> . <{EX}aspirin> <{EX}treats> <{EX}fever> .")
    pg.ingest(a, IngestOptions(title="A", id="doc-a"))
    pg.ingest(b, IngestOptions(title="B", id="doc-b"))
    rows = pg.query(f"""SELECT ?fact (COUNT(DISTINCT ?st) AS ?n) (COUNT(DISTINCT ?g) AS ?graphs) WHERE {{
        GRAPH ?g {{ ?st pg:fact ?fact ; rdf:object <{EX}headache> }} }} GROUP BY ?fact""").rows()
    assert len(rows) == 1
    assert rows[0]["n"].value == "2" and rows[0]["graphs"].value == "2"
    found = pg.evidence(f"{EX}aspirin", f"{EX}treats", f"{EX}headache")
    assert sorted(e.title for e in found) == ["A", "B"]
    assert len({e.fact for e in found}) == 1
    assert len({e.statement for e in found}) == 2


def test_jsonl_records_carry_passages_confidence_and_method(pg):
    report = pg.ingest(
        EXAMPLES / "facts.jsonl",
        IngestOptions(title="Trial", url="https://example.org/trial", method=ExtractionMethod.LLM_EXTRACTION, tier=3),
    )
    assert (report.statements, report.passages) == (3, 3)
    [e] = pg.evidence(f"{EX}aspirin", f"{EX}treats", f"{EX}headache")
    assert e.confidence == pytest.approx(0.86)
    assert e.method is ExtractionMethod.LLM_EXTRACTION
    assert e.passage is not None
    assert e.passage.text.startswith("Aspirin relieved tension headache")
    assert (e.passage.page, e.passage.section, e.passage.start, e.passage.end) == (3, "Results", 1042, 1113)
    [dose] = pg.evidence(f"{EX}aspirin", f"{EX}maxDailyDoseMg", "4000")
    assert dose.object == '"4000"^^<http://www.w3.org/2001/XMLSchema#integer>'


def test_jsonl_literals_blank_nodes_reviewer_and_defaults(pg, tmp_path):
    path = tmp_path / "f.jsonl"
    records = [
        {"subject": "_:x", "predicate": f"{EX}label", "literal": "aspirine", "lang": "fr"},
        {
            "subject": f"{EX}a",
            "predicate": f"{EX}mass",
            "literal": "180.16",
            "datatype": "http://www.w3.org/2001/XMLSchema#decimal",
            "reviewer": "https://orcid.org/0000-0002-1825-0097",
            "last_verified": "2024-05-01T10:00:00Z",
            "method": "manual_curation",
        },
        {"subject": f"{EX}a", "predicate": f"{EX}note", "literal": "plain", "passage": "A plain passage."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n\n")
    report = pg.ingest(path, IngestOptions(method=ExtractionMethod.NLP_PIPELINE))
    assert report.statements == 3
    [mass] = pg.evidence(f"{EX}a", f"{EX}mass")
    assert mass.method is ExtractionMethod.MANUAL_CURATION
    assert mass.confidence == 1.0
    assert mass.reviewer == "https://orcid.org/0000-0002-1825-0097"
    assert mass.last_verified is not None and mass.last_verified.year == 2024
    [note] = pg.evidence(f"{EX}a", f"{EX}note")
    assert note.method is ExtractionMethod.NLP_PIPELINE
    assert note.confidence == ExtractionMethod.NLP_PIPELINE.default_confidence
    assert note.passage is not None and note.passage.text == "A plain passage."


def test_markdown_becomes_sentence_passages_with_exact_offsets(pg):
    path = EXAMPLES / "aspirin-note.md"
    report = pg.ingest(path, IngestOptions(title="Note", url="https://example.org/note"))
    assert report.statements == 0 and report.passages == 4
    text = path.read_text("utf-8")
    rows = pg.query(f"""SELECT ?t ?s ?e ?section WHERE {{ GRAPH <{report.documents[0].graph}> {{
        ?p a pg:Passage ; pg:text ?t ; pg:startOffset ?s ; pg:endOffset ?e ; pg:section ?section }} }}
        ORDER BY ?s""").rows()
    # titled "Note", the document's own title "Aspirin" is the section its sections are under
    assert [r["section"].value for r in rows] == ["Aspirin", "Aspirin", "Aspirin > Safety", "Aspirin > Safety"]
    for r in rows:
        assert text[int(r["s"].value) : int(r["e"].value)] == r["t"].value
    assert rows[0]["t"].value.endswith("tension headache.")  # "e.g." does not end a sentence


def _sections(pg: ProvGraph, graph: str) -> list[tuple[str, str | None]]:
    rows = pg.query(f"""SELECT ?t ?section WHERE {{ GRAPH <{graph}> {{
        ?p a pg:Passage ; pg:text ?t ; pg:startOffset ?s OPTIONAL {{ ?p pg:section ?section }} }} }}
        ORDER BY ?s""").rows()
    return [(r["t"].value, r["section"].value if r.get("section") else None) for r in rows]


def test_a_passage_s_section_is_its_heading_after_the_headings_it_is_under(pg, tmp_path):
    # release notes: "Fixes" of which release; a release's heading with its date is the only
    # sentence saying when it was made, so it is a passage too (with the section above it)
    (tmp_path / "notes.md").write_text(
        "# Tidepool release notes\n\nTidepool is a database.\n\n## 3.0.0 (2 November 2026)\n\n"
        "### Fixes\n\n- Fixed a crash.\n\n## [2.9.4] - 2026-08-15\n\n- Fixed a leak.\n\n"
        "## Support\n\nAsk on the forum.\n"
    )
    (tmp_path / "page.html").write_text(
        "<body><h1>Aurora</h1><p>A bicycle.</p><h2>Specifications</h2><h3>Battery</h3><p>It holds 400 Wh.</p>"
        "<h2>Warranty</h2><p>Two years.</p></body>"
    )
    notes = pg.ingest(tmp_path / "notes.md").documents[0].graph
    page = pg.ingest(tmp_path / "page.html").documents[0].graph
    assert _sections(pg, notes) == [
        ("Tidepool is a database.", "Tidepool release notes"),
        ("3.0.0 (2 November 2026)", "Tidepool release notes"),
        ("Fixed a crash.", "3.0.0 (2 November 2026) > Fixes"),
        ("[2.9.4] - 2026-08-15", "Tidepool release notes"),
        ("Fixed a leak.", "[2.9.4] - 2026-08-15"),
        ("Ask on the forum.", "Support"),
    ]
    assert _sections(pg, page) == [
        ("A bicycle.", "Aurora"),
        ("It holds 400 Wh.", "Specifications > Battery"),
        ("Two years.", "Warranty"),
    ]


def test_a_lists_items_after_a_sentence_ending_with_a_colon_are_under_it(pg, tmp_path):
    # "The warranty does not cover:" is what each item completes, in Markdown and in HTML; a
    # paragraph after the list is under its heading again
    (tmp_path / "warranty.md").write_text(
        "# Warranty\n\n## Exclusions\n\nThe warranty does not cover:\n\n- damage caused by limescale,\n"
        "- wear parts.\n\nClaims go to support.\n"
    )
    (tmp_path / "page.html").write_text(
        "<body><h1>Cake</h1><p>You will need:</p><ul><li>3 eggs</li><li>200 g sugar</li></ul><p>Serve cold.</p></body>"
    )
    notes = pg.ingest(tmp_path / "warranty.md").documents[0].graph
    page = pg.ingest(tmp_path / "page.html").documents[0].graph
    assert _sections(pg, notes) == [
        ("The warranty does not cover:", "Exclusions"),
        ("damage caused by limescale,", "Exclusions > The warranty does not cover:"),
        ("wear parts.", "Exclusions > The warranty does not cover:"),
        ("Claims go to support.", "Exclusions"),
    ]
    assert _sections(pg, page) == [
        ("You will need:", "Cake"),
        ("3 eggs", "Cake > You will need:"),
        ("200 g sugar", "Cake > You will need:"),
        ("Serve cold.", "Cake"),
    ]


def test_a_fenced_code_blocks_passage_is_its_code_without_the_fences(pg, tmp_path):
    # "How do I install Lumenflow?" was answered "```\ngo install example.org/lumenflow@latest\n```"
    (tmp_path / "README.md").write_text(
        "# Lumenflow\n\nInstall it with:\n\n```\ngo install example.org/lumenflow@latest\n```\n\nThat is all.\n"
    )
    graph = pg.ingest(tmp_path / "README.md").documents[0].graph
    assert [t for t, _ in _sections(pg, graph)] == [
        "Install it with:",
        "go install example.org/lumenflow@latest",
        "That is all.",
    ]


def test_a_document_without_a_given_title_is_called_by_its_own_title(pg, tmp_path):
    # Markdown: its first level-1 heading; HTML: its first <h1>, else its <title>; else the file name
    (tmp_path / "golden-gate.md").write_text(
        "Draft of 2024.\n\n```\n# not a heading\n```\n\n# Golden Gate Bridge\n\n"
        "It connects San Francisco to Marin County.\n\n## Colour\n\nThe bridge is painted orange.\n"
    )
    (tmp_path / "bell-rock.html").write_text(
        "<html><head><title>Bell Rock Lighthouse</title></head><body><p>It is old.</p></body></html>"
    )
    (tmp_path / "wiki.html").write_text(
        "<html><head><title>Skerryvore - Wikipedia</title></head><body><h1>Skerryvore</h1><p>It is tall.</p></body>"
    )
    (tmp_path / "tower.html").write_text("<body><h1>Eiffel <em>Tower</em></h1><p>It is in Paris.</p></body>")
    (tmp_path / "note.txt").write_text("# Not a title in plain text\n\nIt is a note.\n")
    # plain text: its first line, standing alone and not a sentence
    (tmp_path / "report.txt").write_text("Contoso Ltd Annual Report 2024\n\nContoso Ltd is a software company.\n")
    (tmp_path / "memo.txt").write_text("Contoso Ltd is a software company.\n\nIt was founded in 1998.\n")
    (tmp_path / "given.md").write_text("# Its own title\n\nIt is a note.\n")
    titles = {}
    for name in ("golden-gate.md", "bell-rock.html", "wiki.html", "tower.html", "note.txt", "report.txt", "memo.txt"):
        report = pg.ingest(tmp_path / name)
        rows = pg.query(f"""SELECT ?t WHERE {{ GRAPH <{report.documents[0].graph}> {{
            <{report.documents[0].document}> dcterms:title ?t }} }}""").rows()
        titles[name] = [r["t"].value for r in rows]
    report = pg.ingest(tmp_path / "given.md", IngestOptions(title="The caller's title"))
    assert titles == {
        "golden-gate.md": ["Golden Gate Bridge"],
        "bell-rock.html": ["Bell Rock Lighthouse"],
        "wiki.html": ["Skerryvore"],
        "tower.html": ["Eiffel Tower"],
        "note.txt": ["note.txt"],
        "report.txt": ["Contoso Ltd Annual Report 2024"],
        "memo.txt": ["memo.txt"],
    }
    assert report.documents[0].title == "The caller's title"
    # and an answer reads "It" and "The bridge" as the document's subject, not as its file name
    answer = pg.ask("What colour is the Golden Gate Bridge painted?")
    assert not answer.abstained, (answer.answer_summary, answer.removed_claims)
    assert answer.claims[0].text.startswith("Golden Gate Bridge is painted orange")
    assert answer.citations[0].title == "Golden Gate Bridge"


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # titles, ranks and opus numbers do not end a sentence
        (
            "The Piano Sonata No. 14, Op. 27 is famous. Gov. Smith met Capt. Kirk. Then they left.",
            ["The Piano Sonata No. 14, Op. 27 is famous.", "Gov. Smith met Capt. Kirk.", "Then they left."],
        ),
        # a sentence ending in a decimal number ends there; initials do not end one
        (
            "It scored 28.4. On the other task it reached 41.8. J.R.R. Tolkien trained it for 3.5 days.",
            ["It scored 28.4.", "On the other task it reached 41.8.", "J.R.R. Tolkien trained it for 3.5 days."],
        ),
        # a numbered clause's number and heading are no sentences; a number that counts or measures is
        (
            "1. Coverage. The house is insured.\n\n2. Deductible. Each claim carries a deductible.\n\n"
            "4.1 Term of Lease. It runs a year.\n\n3.5 days were needed.\n\n2 tablets a day are enough.",
            [
                "The house is insured.",
                "Each claim carries a deductible.",
                "It runs a year.",
                "3.5 days were needed.",
                "2 tablets a day are enough.",
            ],
        ),
        # a paragraph of field lines is a passage a field; a paragraph with one line of prose is one passage
        (
            "Product: Quillmail Server\nFixed version: 4.2.7\nSeverity: Critical (CVSS 9.8)\n\n"
            "Note: the flaw is in the IMAP\nparser of every release.",
            [
                "Product: Quillmail Server",
                "Fixed version: 4.2.7",
                "Severity: Critical (CVSS 9.8)",
                "Note: the flaw is in the IMAP\nparser of every release.",
            ],
        ),
        # in Markdown, a field's label is often in bold
        (
            "**Court:** Ninth Circuit\n**Decided:** 14 March 2025\n__Docket number__: 23-55871",
            ["**Court:** Ninth Circuit", "**Decided:** 14 March 2025", "__Docket number__: 23-55871"],
        ),
        # a Markdown table is a passage a row, its separator none
        (
            "| Outcome | Tirzepatide | Semaglutide |\n|---|:---:|---|\n"
            "| Nausea (%) | 22 | 18 |\n| Weight (kg) | -11.2 | -5.7 |",
            ["| Nausea (%) | 22 | 18 |", "| Weight (kg) | -11.2 | -5.7 |"],
        ),
        # a paragraph's first line in capitals is its heading, not its sentence's first words
        (
            "CONTRAINDICATIONS\nLoravex is contraindicated in patients hypersensitive to loratadine.\n\n"
            "STORAGE AND HANDLING:\nStore below 25 degrees Celsius.\n\nThe FDA approved it.",
            [
                "Loravex is contraindicated in patients hypersensitive to loratadine.",
                "Store below 25 degrees Celsius.",
                "The FDA approved it.",
            ],
        ),
        # a title's question mark before a parenthesis does not end a sentence
        (
            "Why Is There Air? (1965) is Bill Cosby's third album. Is it funny? Yes!",
            ["Why Is There Air? (1965) is Bill Cosby's third album.", "Is it funny?", "Yes!"],
        ),
    ],
)
def test_a_text_is_split_into_its_sentences(pg, tmp_path, text, sentences):
    path = tmp_path / "doc.txt"
    path.write_text(text)
    report = pg.ingest(path)
    rows = pg.query(f"""SELECT ?t WHERE {{ GRAPH <{report.documents[0].graph}> {{ ?p pg:text ?t }} }}""").rows()
    assert {r["t"].value for r in rows} == set(sentences)


def test_text_pages_follow_form_feeds(pg, tmp_path):
    path = tmp_path / "doc.txt"
    path.write_text("First page. Still first.\n\fSecond page here.")
    report = pg.ingest(path)
    rows = pg.query(f"""SELECT ?t ?page WHERE {{ GRAPH <{report.documents[0].graph}> {{
        ?p pg:text ?t ; pg:page ?page }} }} ORDER BY ?t""").rows()
    assert {(r["t"].value, r["page"].value) for r in rows} == {
        ("First page.", "1"),
        ("Still first.", "1"),
        ("Second page here.", "2"),
    }


def test_named_graphs_of_an_input_are_kept_as_original_graph(pg, tmp_path):
    path = tmp_path / "g.trig"
    path.write_text(f"<{EX}g1> {{ <{EX}a> <{EX}p> <{EX}b> }} <{EX}a> <{EX}p> <{EX}c> .")
    pg.ingest(path, IngestOptions(title="G"))
    found = {e.object: e.original_graph for e in pg.evidence(f"{EX}a", f"{EX}p")}
    assert found == {f"<{EX}b>": f"{EX}g1", f"<{EX}c>": None}


def test_typed_literals_are_keyed_as_the_store_keeps_them(pg, tmp_path):
    path = tmp_path / "n.nt"
    path.write_text(f'<{EX}a> <{EX}n> "0820654"^^<http://www.w3.org/2001/XMLSchema#nonNegativeInteger> .\n')
    pg.ingest(path)
    stored = pg.evidence(f"{EX}a", f"{EX}n")[0].object
    assert stored == '"820654"^^<http://www.w3.org/2001/XMLSchema#integer>'
    assert len(pg.evidence(f"{EX}a", f"{EX}n", stored)) == 1
    as_written = '"0820654"^^<http://www.w3.org/2001/XMLSchema#nonNegativeInteger>'
    assert len(pg.evidence(f"{EX}a", f"{EX}n", as_written)) == 1


def test_identity_is_id_then_url_then_path(pg, tmp_path):
    path = tmp_path / "a.ttl"
    path.write_text(TURTLE)
    assert pg.ingest(path, IngestOptions(id="my-doc", url="https://example.org/x")).documents[0].key == "my-doc"
    path2 = tmp_path / "b.ttl"
    path2.write_text(TURTLE)
    assert pg.ingest(path2, IngestOptions(url="https://example.org/x")).documents[0].key == "https://example.org/x"
    path3 = tmp_path / "c.ttl"
    path3.write_text(TURTLE)
    assert pg.ingest(path3).documents[0].key == str(path3.resolve())


def test_reingest_is_a_no_op_and_changed_content_supersedes(pg, tmp_path):
    path = tmp_path / "doc.ttl"
    path.write_text(f"<{EX}a> <{EX}p> 1 .")
    first = pg.ingest(path, IngestOptions(url="https://example.org/doc", title="Doc"))
    again = pg.ingest(path, IngestOptions(url="https://example.org/doc", title="Doc"))
    assert again.unchanged and again.quads == 0
    assert again.documents[0].outcome is DocumentOutcome.UNCHANGED
    path.write_text(f"<{EX}a> <{EX}p> 2 .")
    second = pg.ingest(path, IngestOptions(url="https://example.org/doc", title="Doc"))
    doc = second.documents[0]
    assert doc.outcome is DocumentOutcome.NEW_VERSION and doc.version == 2
    assert doc.previous_graph == first.documents[0].graph
    [source] = pg.sources()
    assert [(v.version, v.status) for v in source.versions] == [(2, SourceStatus.CURRENT), (1, SourceStatus.SUPERSEDED)]
    assert source.versions[0].was_revision_of == first.documents[0].graph
    # current views see the new value only; history stays queryable
    assert [e.object for e in pg.evidence(f"{EX}a", f"{EX}p")] == ['"2"^^<http://www.w3.org/2001/XMLSchema#integer>']
    assert len(pg.evidence(f"{EX}a", f"{EX}p", include_history=True)) == 2
    assert [r["o"].value for r in pg.query(f"SELECT ?o WHERE {{ <{EX}a> <{EX}p> ?o }}")] == ["2"]
    old = pg.query(f"SELECT ?o WHERE {{ GRAPH <{first.documents[0].graph}> {{ <{EX}a> <{EX}p> ?o }} }}")
    assert [r["o"].value for r in old] == ["1"]


def test_changed_metadata_makes_a_new_version(pg, tmp_path):
    path = tmp_path / "doc.ttl"
    path.write_text(TURTLE)
    pg.ingest(path, IngestOptions(id="d", tier=3))
    report = pg.ingest(path, IngestOptions(id="d", tier=2))
    assert report.documents[0].version == 2
    assert pg.source("d").tier == 2


def test_revoke_takes_a_source_out_of_current_views(pg, tmp_path):
    path = tmp_path / "doc.ttl"
    path.write_text(TURTLE)
    pg.ingest(path, IngestOptions(id="d"))
    info = pg.revoke("d", reason="test").source
    assert info.status is SourceStatus.REVOKED and info.current_graph is None
    assert pg.evidence(f"{EX}aspirin", f"{EX}treats") == []
    assert [e.status for e in pg.evidence(f"{EX}aspirin", f"{EX}treats", include_history=True)] == [
        SourceStatus.REVOKED
    ]


def test_user_shapes_see_the_whole_document(pg):
    with pytest.raises(ValidationFailedError) as caught:
        pg.ingest(EXAMPLES / "bad-dose.ttl", IngestOptions(shapes=[EXAMPLES / "drug-shapes.ttl"]))
    report = caught.value.report
    assert {(i.focus_node, i.path) for i in report.issues} == {
        ("http://example.org/ibuprofen", "http://example.org/maxDailyDoseMg")
    }
    assert pg.sources() == []
    ok = pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(shapes=[EXAMPLES / "drug-shapes.ttl"]))
    assert ok.validation.conforms
    assert any(s.endswith("drug-shapes.ttl") for s in ok.validation.shapes)


def test_user_shapes_see_each_split_document_alone(pg, tmp_path):
    """Each document of a split input is validated by the user's shapes alone (read back from the
    spool one at a time): a drug with one dose in each of two documents is no violation of
    sh:maxCount 1, two doses in one document are; issues name their document."""
    xsd_integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    source = tmp_path / "doses.nq"

    def write(doses: dict[int, list[int]]) -> None:
        lines = [
            f'<{EX}drug{d % 2}> <{EX}maxDailyDoseMg> "{dose}"^^{xsd_integer} <{EX}doc/{d}> .\n'
            for d, values in doses.items()
            for dose in values
        ]
        source.write_text("".join(lines))

    options = IngestOptions(
        id="doses", split=GraphSplit(pattern=rf"^(?P<document>{EX}doc/\d+)$"), shapes=[EXAMPLES / "drug-shapes.ttl"]
    )
    write({0: [100], 1: [200], 2: [20000], 3: [300], 4: [400, 500], 5: [600]})
    with pytest.raises(ValidationFailedError) as caught:
        pg.ingest(source, options)
    report = caught.value.report
    assert report.issue_count == 2
    assert {(i.document, i.focus_node) for i in report.issues} == {
        (f"{EX}doc/2", f"{EX}drug0"),
        (f"{EX}doc/4", f"{EX}drug0"),
    }
    assert pg.sources() == []
    write({0: [100], 1: [200], 2: [2000], 3: [300], 4: [400], 5: [600]})
    assert pg.ingest(source, options).document_count == 6


def test_validate_is_a_dry_run(pg):
    report = pg.validate(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin"))
    assert report.dry_run and report.validation.conforms
    assert report.documents[0].statements == 4 and report.statements == 0
    assert pg.sources() == []


def test_large_documents_validate_in_worker_processes(pg, tmp_path):
    path = tmp_path / "big.nt"
    with path.open("w") as f:
        for i in range(5000):
            f.write(f'<{EX}e{i}> <{EX}value> "{i}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n')
    report = pg.ingest(path, IngestOptions(title="Big"))
    assert report.statements == 5000 and report.validation.conforms
    assert report.validation.nodes_checked >= 5000
    assert pg.stats().statements == 5000


def test_a_split_document_named_like_the_files_own_document_is_refused(tmp_path):
    source = tmp_path / "clash.nq"
    source.write_text(f'<{EX}s1> <{EX}p> "a" <{EX}doc/a> .\n<{EX}s2> <{EX}p> "rest" .\n')
    split = GraphSplit(pattern=rf"^(?P<document>{EX}doc/\w+)$")
    with ProvGraph.memory() as pg:
        with pytest.raises(InputError, match="same identity as the file's own document; pass --id"):
            pg.ingest(source, IngestOptions(split=split, id=f"{EX}doc/a"))
        assert pg.sources() == []
        # without triples of its own, the file has no document to clash with
        source.write_text(f'<{EX}s1> <{EX}p> "a" <{EX}doc/a> .\n')
        assert pg.ingest(source, IngestOptions(split=split, id=f"{EX}doc/a")).document_count == 1


def test_progress_is_reported(pg, tmp_path):
    seen: list[tuple[str, int, int]] = []
    pg.ingest(EXAMPLES / "aspirin.ttl", progress=lambda phase, done, total: seen.append((phase, done, total)))
    phases = [p for p, _, _ in seen]
    assert "reading" in phases and "writing" in phases
    reading = [(d, t) for p, d, t in seen if p == "reading"]
    assert reading[-1][0] == reading[-1][1] == Path(EXAMPLES / "aspirin.ttl").stat().st_size


def test_split_graphs_in_any_order_each_document_gets_its_own_facts_and_the_rest_stays_in_the_file(tmp_path):
    # graphs interleaved (a, b, a), one unmatched graph and a default-graph triple: the
    # assertions are grouped by document whatever their order in the file
    source = tmp_path / "mixed.nq"
    source.write_text(
        f'<{EX}s1> <{EX}p> "a1" <{EX}doc/a> .\n'
        f'<{EX}s2> <{EX}p> "b1" <{EX}doc/b> .\n'
        f'<{EX}s3> <{EX}p> "rest" <{EX}other> .\n'
        f'<{EX}s4> <{EX}p> "a2" <{EX}doc/a> .\n'
        f'<{EX}s5> <{EX}p> "default" .\n'
    )
    with ProvGraph.memory() as pg:
        report = pg.ingest(source, IngestOptions(split=GraphSplit(pattern=rf"^(?P<document>{EX}doc/\w+)$"), id="mixed"))
        by_key = {d.key: d for d in report.documents}
        assert sorted(by_key) == [f"{EX}doc/a", f"{EX}doc/b", "mixed"]
        assert {k: d.statements for k, d in by_key.items()} == {f"{EX}doc/a": 2, f"{EX}doc/b": 1, "mixed": 2}
        values = {
            k: {o for _, _, o in asserted(pg, by_key[k].graph)}
            for k in by_key  # type: ignore[arg-type]
        }
        assert values == {
            f"{EX}doc/a": {'"a1"', '"a2"'},
            f"{EX}doc/b": {'"b1"'},
            "mixed": {'"rest"', '"default"'},
        }
        # the same file again: every document is unchanged (same content hashes)
        again = pg.ingest(source, IngestOptions(split=GraphSplit(pattern=rf"^(?P<document>{EX}doc/\w+)$"), id="mixed"))
        assert {d.outcome for d in again.documents} == {DocumentOutcome.UNCHANGED}


def test_a_plain_texts_own_title_line_titled_otherwise_is_a_passage_and_the_heading_of_the_rest(pg, tmp_path):
    path = tmp_path / "judgment.txt"
    path.write_text("Marlow v Quayside Developments Ltd\n\nThe case was heard in 2025.\n\nIt was won.\n")
    report = pg.ingest(path, IngestOptions(title="Court judgment"))
    assert _sections(pg, report.documents[0].graph) == [
        ("Marlow v Quayside Developments Ltd", None),
        ("The case was heard in 2025.", "Marlow v Quayside Developments Ltd"),
        ("It was won.", "Marlow v Quayside Developments Ltd"),
    ]
