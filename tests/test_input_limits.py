"""Parsers are bounded and input is whole (issue 11, point 5): small files that expand to
gigabytes, nesting that overflows a parser, overlong lines, cut-off files and ill-typed literals
are errors naming file and line, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from helpers import EXAMPLES, dataset_dump, live_server, run_cli
from provgraph import IngestOptions, InputError, ProvGraph
from provgraph.http import ServerSettings
from provgraph.ingest.datatypes import literal_problem
from provgraph.ingest.guard import MAX_JSON_DEPTH, MAX_LINE_BYTES

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_OPEN = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">\n'


def refused(pg: ProvGraph, path: Path, **options: object) -> InputError:
    before = dataset_dump(pg)
    with pytest.raises(InputError) as caught:
        pg.ingest(path, IngestOptions(**options))  # type: ignore[arg-type]
    assert dataset_dump(pg) == before
    return caught.value


def xml_with(doctype: str, body: str) -> str:
    return f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n{doctype}\n]>\n{RDF_OPEN}{body}\n</rdf:RDF>\n'


LAUGHS = "\n".join(
    ['<!ENTITY lol "lol">']
    + [f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)]
)
BIG = "x" * 50_000

XML_BOMBS = [
    # (id, document, line, reason)
    (
        "billion-laughs",
        xml_with(LAUGHS, '<rdf:Description rdf:about="http://example.org/a"><ex:p>&lol9;</ex:p></rdf:Description>'),
        4,
        "refers to another entity",
    ),
    (
        "quadratic-blowup",
        xml_with(
            f'<!ENTITY big "{BIG}">',
            '<rdf:Description rdf:about="http://example.org/a"><ex:p>' + "&big;" * 2000 + "</ex:p></rdf:Description>",
        ),
        3,
        "50,000 characters; the limit is 1,024",
    ),
    (
        "expansion-budget",
        xml_with(
            f'<!ENTITY kb "{"y" * 1000}">',
            "\n".join(
                f'<rdf:Description rdf:about="http://example.org/a{i}"><ex:p>{"&kb;" * 5}</ex:p></rdf:Description>'
                for i in range(300)
            ),
        ),
        None,
        "entity references expand to more than",
    ),
    (
        "external-entity",
        xml_with(
            '<!ENTITY secret SYSTEM "file:///etc/passwd">',
            '<rdf:Description rdf:about="http://example.org/a"><ex:p>&secret;</ex:p></rdf:Description>',
        ),
        3,
        "the external entity &secret; is not allowed",
    ),
    (
        "parameter-entity",
        xml_with(
            '<!ENTITY % p "x">',
            '<rdf:Description rdf:about="http://example.org/a"><ex:p>1</ex:p></rdf:Description>',
        ),
        3,
        "the parameter entity %p; is not allowed",
    ),
]


@pytest.mark.parametrize(("name", "document", "line", "reason"), XML_BOMBS, ids=[b[0] for b in XML_BOMBS])
def test_xml_entity_bombs_are_refused_before_parsing(pg, tmp_path, name, document, line, reason):
    path = tmp_path / f"{name}.rdf"
    path.write_text(document)
    error = refused(pg, path, id=name)
    assert reason in error.reason
    assert error.reason.startswith("RDF/XML refused: ")
    if line is not None:
        assert error.line == line
    else:
        assert error.line is not None and error.line > 4


def test_the_billion_laughs_file_is_under_a_kilobyte(tmp_path):
    assert len(XML_BOMBS[0][1].encode()) < 1000


def test_namespace_entities_as_ontology_editors_write_them_are_allowed(pg, tmp_path):
    path = tmp_path / "onto.rdf"
    path.write_text(
        xml_with(
            '<!ENTITY xsd "http://www.w3.org/2001/XMLSchema#">\n<!ENTITY ex "http://example.org/">',
            '<rdf:Description rdf:about="&ex;aspirin"><ex:dose rdf:datatype="&xsd;integer">500</ex:dose>'
            "</rdf:Description>",
        )
    )
    report = pg.ingest(path, IngestOptions(id="onto"))
    assert report.statements == 1
    [e] = pg.evidence(f"{EX}aspirin", f"{EX}dose")
    assert e.object == f'"500"^^<{XSD}integer>'


# ---------------------------------------------------------------------- cut-off input

COMPLETE = {
    "rdf": f'<?xml version="1.0"?>\n{RDF_OPEN}<rdf:Description rdf:about="http://example.org/a">'
    '<ex:p>1</ex:p></rdf:Description>\n<rdf:Description rdf:about="http://example.org/b"><ex:p>2</ex:p>'
    "</rdf:Description>\n</rdf:RDF>\n",
    "ttl": f'@prefix ex: <{EX}> .\nex:a ex:p "1" .\nex:b ex:p "2" .\n',
    "trig": f'@prefix ex: <{EX}> .\nex:g {{\n  ex:a ex:p "1" .\n  ex:b ex:p "2" .\n}}\n',
    "nq": f'<{EX}a> <{EX}p> "1" <{EX}g> .\n<{EX}b> <{EX}p> "2" <{EX}g> .\n',
    "nt": f'<{EX}a> <{EX}p> "1" .\n<{EX}b> <{EX}p> "2" .\n',
    "jsonld": json.dumps([{"@id": f"{EX}a", f"{EX}p": "1"}, {"@id": f"{EX}b", f"{EX}p": "2"}], indent=1),
}
# Where each is cut: in the middle of its second statement.
CUTS = {"rdf": "<ex:p>2</ex", "ttl": 'ex:b ex:p "', "trig": 'ex:b ex:p "2" .', "nq": f'<{EX}b> <{EX}p> "2" <{EX}',
        "nt": f"<{EX}b> <{EX}p>", "jsonld": f'"{EX}p": "2'}  # fmt: skip


@pytest.mark.parametrize("suffix", sorted(COMPLETE))
def test_a_cut_off_file_is_an_error_and_does_not_supersede_the_complete_version(pg, tmp_path, suffix):
    path = tmp_path / f"data.{suffix}"
    path.write_text(COMPLETE[suffix])
    assert pg.ingest(path, IngestOptions(id="data")).statements == 2
    text = COMPLETE[suffix]
    path.write_text(text[: text.index(CUTS[suffix]) + len(CUTS[suffix])])
    error = refused(pg, path, id="data")
    assert error.file == str(path) and error.line is not None
    [source] = pg.sources()
    assert [v.version for v in source.versions] == [1]


def test_a_cut_off_rdf_xml_file_says_so(pg, tmp_path):
    path = tmp_path / "cut.rdf"
    text = COMPLETE["rdf"]
    path.write_text(text[: text.index('<rdf:Description rdf:about="http://example.org/b">')])
    error = refused(pg, path, id="cut")
    assert error.reason.startswith("not well-formed XML: no element found (the file is cut off")
    assert error.line == 4


# ---------------------------------------------------------------------- nesting and line length


def deep_jsonld(depth: int) -> str:
    return (
        '{"@id": "http://example.org/a",\n "http://example.org/p": '
        + '{"http://example.org/p": ' * depth
        + '"x"'
        + "}" * (depth + 1)
    )


def test_deep_json_ld_is_refused_with_its_line(pg, tmp_path):
    path = tmp_path / "deep.jsonld"
    path.write_text(deep_jsonld(5000))
    error = refused(pg, path, id="deep")
    assert error.reason == f"JSON nested deeper than {MAX_JSON_DEPTH} levels (objects and arrays)"
    assert error.line == 2


def test_json_ld_nesting_within_the_limit_ingests(pg, tmp_path):
    path = tmp_path / "nested.jsonld"
    path.write_text(deep_jsonld(MAX_JSON_DEPTH - 2))
    assert pg.ingest(path, IngestOptions(id="nested")).statements == MAX_JSON_DEPTH - 1


def test_deep_json_ld_does_not_crash_the_cli(tmp_path):
    path = tmp_path / "deep.jsonld"
    path.write_text(deep_jsonld(5000))
    done = run_cli("ingest", str(path), "--store", str(tmp_path / "store"), "--id", "deep", "-q")
    assert done.returncode == 2, done.stderr
    assert f"{path}:2: JSON nested deeper than {MAX_JSON_DEPTH} levels" in done.stderr


def test_deep_json_ld_does_not_kill_the_server(pg):
    with live_server(pg, ServerSettings(token="t")) as url, httpx.Client(base_url=url, timeout=60) as client:
        response = client.post(
            "/sources",
            data={"id": "deep"},
            files=[("file", ("deep.jsonld", deep_jsonld(5000).encode()))],
            headers={"Authorization": "Bearer t"},
        )
        assert response.status_code == 400, response.text
        assert response.json()["line"] == 2
        assert client.get("/sources").status_code == 200


@pytest.mark.parametrize(
    ("suffix", "line"),
    [
        ("nt", f'<{EX}a> <{EX}p> "1" .\n<{EX}a> <{EX}p> "LONG" .\n'),
        ("ttl", f'@prefix ex: <{EX}> .\nex:a ex:p "1" .\nex:a ex:p "LONG" .\n'),
        ("jsonl", json.dumps({"subject": f"{EX}a", "predicate": f"{EX}p", "literal": "1"}) + "\n"
         + json.dumps({"subject": f"{EX}a", "predicate": f"{EX}p", "literal": "LONG"}) + "\n"),
    ],
)  # fmt: skip
def test_a_line_over_the_limit_is_an_error_naming_it(pg, tmp_path, suffix, line):
    path = tmp_path / f"long.{suffix}"
    path.write_text(line.replace("LONG", "x" * (MAX_LINE_BYTES + 10)))
    error = refused(pg, path, id="long")
    assert error.reason == f"line longer than {MAX_LINE_BYTES:,} bytes (the limit for line-based formats)"
    assert error.line == (3 if suffix == "ttl" else 2)


# ---------------------------------------------------------------------- JSON-LD values it would drop


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"@id": f"{EX}a", f"{EX}p": {"@id": "not an iri"}}, "invalid IRI <not an iri>"),
        ({"@id": f"{EX}a", "name": "aspirin"}, "invalid IRI <name>"),
        ({"@id": f"{EX}a", f"{EX}p": {"@value": "x", "@type": "bad type"}}, "invalid IRI <bad type>"),
        ({"@id": f"{EX}a", f"{EX}p": {"@value": "x", "@language": "not a tag!"}}, "invalid language tag 'not a tag!'"),
    ],
    ids=["object", "undefined-term", "datatype", "language"],
)
def test_json_ld_values_with_invalid_iris_are_errors_not_dropped(pg, tmp_path, document, reason):
    path = tmp_path / "data.jsonld"
    path.write_text(json.dumps({**document, f"{EX}q": "kept"}, indent=1))
    error = refused(pg, path, id="data")
    assert error.reason.startswith(reason)
    assert error.line is not None and error.line > 1


# ---------------------------------------------------------------------- literals and their datatypes

ILL_TYPED = [
    ('"abc"', "integer", "not an integer"),
    ('"2024-13-45"', "date", "month 13 out of range"),
    ('"-5"', "nonNegativeInteger", "below the minimum 0"),
    ('"300"', "unsignedByte", "above the maximum 255"),
    ('"of course"', "boolean", "not true, false, 1 or 0"),
    ('"3,5"', "double", "not a floating-point number"),
    ('"1757-02-31"', "date", "day 31 out of range for month 2"),
    ('"25:61:00"', "time", "time 25:61:00 out of range"),
    ('"2024-01-01T10:00:00+15:00"', "dateTime", "time zone offset out of range"),
    ('"P1Y2"', "duration", "not a duration"),
]


@pytest.mark.parametrize(("lexical", "datatype", "reason"), ILL_TYPED, ids=[f"{d}-{v}" for v, d, _ in ILL_TYPED])
def test_an_ill_typed_literal_is_refused_with_its_line(pg, tmp_path, lexical, datatype, reason):
    path = tmp_path / "typed.ttl"
    path.write_text(
        f"@prefix ex: <{EX}> . @prefix xsd: <{XSD}> .\nex:a ex:p 1 .\nex:a ex:q {lexical}^^xsd:{datatype} .\n"
    )
    error = refused(pg, path, id="typed")
    assert error.line == 3
    assert error.reason.startswith(f"ill-typed literal {lexical}^^<{XSD}{datatype}>: {reason}")
    assert "--lenient" in error.reason


def test_lenient_keeps_ill_typed_literals_and_counts_them(pg, tmp_path):
    path = tmp_path / "typed.ttl"
    path.write_text(
        f"@prefix ex: <{EX}> . @prefix xsd: <{XSD}> .\n"
        + "".join(f"ex:a ex:q{i} {v}^^xsd:{d} .\n" for i, (v, d, _) in enumerate(ILL_TYPED))
        + 'ex:a ex:ok "5"^^xsd:integer .\n'
    )
    report = pg.ingest(path, IngestOptions(id="typed", lenient=True))
    assert (report.statements, report.ill_typed_literals) == (len(ILL_TYPED) + 1, len(ILL_TYPED))
    [e] = pg.evidence(f"{EX}a", f"{EX}q0")
    assert e.object == f'"abc"^^<{XSD}integer>'  # kept as written


def test_an_ill_typed_literal_in_json_lines_names_its_line(pg, tmp_path):
    path = tmp_path / "facts.jsonl"
    records = [
        {"subject": f"{EX}a", "predicate": f"{EX}p", "literal": "5", "datatype": "xsd:integer"},
        {"subject": f"{EX}a", "predicate": f"{EX}q", "literal": "five", "datatype": "xsd:integer"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    error = refused(pg, path, id="facts")
    assert (error.line, error.reason.split(":")[0]) == (2, 'ill-typed literal "five"^^<http')


def test_lenient_on_the_command_line_says_how_many_it_kept(tmp_path):
    path = tmp_path / "typed.ttl"
    path.write_text(f'@prefix ex: <{EX}> . @prefix xsd: <{XSD}> .\nex:a ex:q "abc"^^xsd:integer , "x"^^xsd:date .\n')
    store = str(tmp_path / "store")
    strict = run_cli("ingest", str(path), "--store", store, "--id", "typed", "-q")
    assert strict.returncode == 2
    assert f'{path}:2: ill-typed literal "abc"^^<{XSD}integer>: not an integer' in strict.stderr
    lenient = run_cli("ingest", str(path), "--store", store, "--id", "typed", "-q", "--lenient")
    assert lenient.returncode == 0, lenient.stderr
    assert "kept 2 ill-typed literal(s) (--lenient)" in lenient.stdout


def test_the_upload_field_lenient_keeps_them_too(pg):
    content = f'<{EX}a> <{EX}q> "abc"^^<{XSD}integer> .\n'.encode()
    with live_server(pg, ServerSettings(token="t")) as url, httpx.Client(base_url=url, timeout=60) as client:
        files = [("file", ("typed.nt", content))]
        headers = {"Authorization": "Bearer t"}
        strict = client.post("/sources", data={"id": "typed"}, files=files, headers=headers)
        lenient = client.post("/sources", data={"id": "typed", "lenient": "true"}, files=files, headers=headers)
    assert strict.status_code == 400 and strict.json()["line"] == 1
    assert lenient.status_code == 201, lenient.text
    assert lenient.json()["ill_typed_literals"] == 1


@pytest.mark.parametrize(
    ("lexical", "datatype"),
    [
        ("-0", "integer"),
        ("+42", "positiveInteger"),
        ("18446744073709551615", "unsignedLong"),
        ("1.", "decimal"),
        (".5", "decimal"),
        ("-1.5E-3", "double"),
        ("INF", "float"),
        ("NaN", "double"),
        ("1", "boolean"),
        ("2024-02-29", "date"),
        ("2024-03-01Z", "date"),
        ("-0044-03-15", "date"),
        ("2024-03-01T24:00:00", "dateTime"),
        ("2024-03-01T10:00:00.123-14:00", "dateTimeStamp"),
        ("2024", "gYear"),
        ("2024-03", "gYearMonth"),
        ("--02-29", "gMonthDay"),
        ("P1Y2M3DT4H5M6.7S", "duration"),
        ("-PT1S", "dayTimeDuration"),
        ("P2Y", "yearMonthDuration"),
        ("0aFF", "hexBinary"),
        ("SGVs bG8=", "base64Binary"),
        ("anything at all", "string"),
    ],
)
def test_valid_literals_pass(lexical, datatype):
    assert literal_problem(lexical, XSD + datatype) is None


def test_the_bundled_examples_have_no_ill_typed_literals(pg):
    for path in sorted(EXAMPLES.glob("*")):
        if path.suffix in (".ttl", ".jsonl", ".trig", ".md") and "bad" not in path.name and "shapes" not in path.name:
            assert pg.ingest(path, IngestOptions(id=path.name)).ill_typed_literals == 0


# ---------------------------------------------------------------------- the same bounds beside ingest


@pytest.mark.parametrize(
    ("content", "fmt", "reason"),
    [
        (XML_BOMBS[0][1], "rdfxml", "RDF/XML refused: the entity &lol1; refers to another entity"),
        (deep_jsonld(5000), "jsonld", f"JSON nested deeper than {MAX_JSON_DEPTH} levels"),
    ],
    ids=["billion-laughs", "deep-json-ld"],
)
def test_graph_store_writes_and_ontologies_are_bounded_too(pg, tmp_path, content, fmt, reason):
    before = dataset_dump(pg)
    with pytest.raises(InputError) as caught:
        pg.replace_graph(f"{EX}mine", content.encode(), format=fmt)
    assert caught.value.reason.startswith(reason)
    path = tmp_path / f"policy.{'rdf' if fmt == 'rdfxml' else 'jsonld'}"
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        pg.add_ontology(path)
    assert caught.value.reason.startswith(reason) and caught.value.file == str(path)
    assert dataset_dump(pg) == before


# ---------------------------------------------------------------------- terms too large to load

HUGE = MAX_LINE_BYTES + 10


@pytest.mark.parametrize(
    ("name", "content", "line", "reason"),
    [
        (
            "literal.rdf",
            f'<?xml version="1.0"?>\n{RDF_OPEN}<rdf:Description rdf:about="{EX}a"><ex:p>{"x" * HUGE}</ex:p>'
            "</rdf:Description>\n</rdf:RDF>\n",
            3,
            f"a literal of {HUGE:,} bytes; the limit is {MAX_LINE_BYTES:,}",
        ),
        (
            "literal.jsonld",
            json.dumps({"@id": f"{EX}a", f"{EX}p": "x" * (2 * HUGE)}, indent=1),
            3,
            "a single token (a literal or an IRI) is larger than the parser's buffer",
        ),
        (
            "passage.txt",
            "A first sentence.\n\n" + "word " * (HUGE // 5 + 1),
            3,
            "a sentence of",
        ),
        ("deep.jsonl", '{"subject": ' + "[" * 100_000 + "]" * 100_000 + "}\n", 1, "JSON nested too deeply"),
    ],
    ids=["literal.rdf", "literal.jsonld", "passage.txt", "deep.jsonl"],
)
def test_a_term_too_large_to_load_is_an_error_naming_its_line(pg, tmp_path, name, content, line, reason):
    path = tmp_path / name
    path.write_text(content)
    error = refused(pg, path, id=name)
    assert error.reason.startswith(reason)
    assert error.line == line


# ---------------------------------------------------------------------- TriX

TRIX_OPEN = '<?xml version="1.0"?>\n<TriX xmlns="http://www.w3.org/2004/03/trix/trix-1/">\n'
TRIPLE = f'<triple><uri>{EX}a</uri><uri>{EX}p</uri><typedLiteral datatype="{XSD}integer">5</typedLiteral></triple>'


@pytest.mark.parametrize(
    ("body", "line", "reason"),
    [
        (f"<graph>\n<triple><uri>{EX}a</uri><uri>{EX}p</uri></triple>\n</graph>", 4, "TriX: a triple has 3 terms"),
        (f"<graph>\n<rdf:RDF xmlns:rdf='{EX}'/>\n</graph>", 4, "TriX: <RDF> is not a TriX element"),
        (f"<graph>\n<triple><uri>{EX}a</uri><uri>not an iri</uri><uri>{EX}c</uri></triple>\n</graph>", 4,
         "TriX: invalid IRI <not an iri>"),
        (f"<graph>\n<triple><uri>{EX}a</uri><uri>{EX}p</uri><typedLiteral datatype=\"{XSD}date\">2024-13-45"
         "</typedLiteral></triple>\n</graph>", None, 'ill-typed literal "2024-13-45"'),
        (f"<graph>\n{TRIPLE}\n<triple><uri>{EX}b</uri>", 5, "not well-formed XML: no element found"),
    ],
    ids=["two-terms", "foreign-element", "invalid-iri", "ill-typed", "cut-off"],
)  # fmt: skip
def test_trix_errors_name_their_line(pg, tmp_path, body, line, reason):
    path = tmp_path / "data.trix"
    path.write_text(TRIX_OPEN + body + ("\n</TriX>\n" if "cut" not in reason and "no element" not in reason else ""))
    error = refused(pg, path, id="data")
    assert error.reason.startswith(reason)
    if line is not None:
        assert error.line == line


def test_a_trix_file_ingests_with_its_graph_names(pg, tmp_path):
    path = tmp_path / "data.xml"  # .xml: TriX when its root element says so
    path.write_text(
        f"{TRIX_OPEN}<graph><uri>{EX}g</uri>{TRIPLE}</graph><graph>{TRIPLE.replace('5', '6')}</graph></TriX>"
    )
    report = pg.ingest(path, IngestOptions(id="data"))
    assert (report.format.value, report.statements) == ("trix", 2)
    assert {(e.object, e.original_graph) for e in pg.evidence(f"{EX}a", f"{EX}p")} == {
        (f'"5"^^<{XSD}integer>', f"{EX}g"),
        (f'"6"^^<{XSD}integer>', None),
    }
