"""The options of an ingest are one model, IngestOptions: defined once with descriptions and checks,
taken by the API, the command line (its flags) and HTTP (the upload's form fields), and kept in
each document's fingerprint as they always were (issue 14, point 3)."""

from __future__ import annotations

import inspect
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from helpers import EXAMPLES, run_cli
from provgraph import ExtractionMethod, GraphSplit, IngestOptions, InputError, InputFormat, ProvGraph
from provgraph.http import ServerSettings, create_app
from provgraph.http.api import NOT_FORM_FIELDS

# The fingerprint fields of each case as the dataclass before IngestOptions computed them: a store
# written then must find identical content with identical options unchanged.
FINGERPRINTS = [
    (
        IngestOptions(),
        '{"agent": null, "base": null, "confidence": null, "format": null, "issued": null, "method": null, '
        '"publisher": null, "reviewer": null, "split": null, "tier": 3, "title": null, "url": null}',
    ),
    (
        IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", issued="2024-03-01", tier=2),
        '{"agent": null, "base": null, "confidence": null, "format": null, "issued": "2024-03-01", "method": null, '
        '"publisher": null, "reviewer": null, "split": null, "tier": 2, "title": "Aspirin facts", '
        '"url": "https://example.org/aspirin"}',
    ),
    (
        IngestOptions(
            id="capitals",
            tier=4,
            base="http://example.org/ldif/",
            split=GraphSplit.wikipedia_articles(Path("data/dbpedia/3-capitals.metadata.nq")),
            format=InputFormat.NQUADS,
            method=ExtractionMethod.LLM_EXTRACTION,
            confidence=1,
            publisher="P",
            agent="urn:a",
            reviewer="urn:r",
            lenient=True,
            shapes=(Path("x.ttl"),),
        ),
        '{"agent": "urn:a", "base": "http://example.org/ldif/", "confidence": 1, "format": "nquads", "issued": null, '
        '"method": "llm_extraction", "publisher": "P", "reviewer": "urn:r", '
        '"split": "^(?P<document>https?://[^/]+\\\\.wikipedia\\\\.org/wiki/[^:]+):[^:]+:\\\\d+$", "tier": 4, '
        '"title": null, "url": null}',
    ),
    (
        IngestOptions(issued=date(2024, 3, 1), confidence=0.5),
        '{"agent": null, "base": null, "confidence": 0.5, "format": null, "issued": "2024-03-01", "method": null, '
        '"publisher": null, "reviewer": null, "split": null, "tier": 3, "title": null, "url": null}',
    ),
    (
        IngestOptions(issued=datetime(2024, 3, 1, 12, 30, tzinfo=UTC)),
        '{"agent": null, "base": null, "confidence": null, "format": null, "issued": "2024-03-01 12:30:00+00:00", '
        '"method": null, "publisher": null, "reviewer": null, "split": null, "tier": 3, "title": null, "url": null}',
    ),
]


@pytest.mark.parametrize(("options", "expected"), FINGERPRINTS)
def test_the_fingerprint_of_the_options_is_what_it_was(options, expected):
    assert json.dumps(options.fingerprint_fields(), sort_keys=True) == expected


def test_the_same_options_again_are_a_no_op_and_a_changed_one_a_new_version(pg):
    options = IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", tier=2, shapes=[])
    assert not pg.ingest(EXAMPLES / "aspirin.ttl", options).unchanged
    assert pg.ingest(EXAMPLES / "aspirin.ttl", options.model_copy(update={"lenient": True})).unchanged
    assert not pg.ingest(EXAMPLES / "aspirin.ttl", options.model_copy(update={"tier": 1})).unchanged


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"tier": 9}, "tier must be from 1 to 5, not 9"),
        ({"confidence": 1.5}, "confidence must be from 0 to 1, not 1.5"),
        ({"tier": "high"}, "tier: Input should be a valid integer"),
        ({"url": "not an iri"}, "--url must be an absolute IRI, not 'not an iri'"),
        ({"base": "relative/"}, "--base must be an absolute IRI"),
        ({"title": "  "}, "--title must not be empty"),
        ({"issued": "yesterday"}, "--issued must be a date (2024-03-01), year-month, year or date-time"),
        ({"issued": datetime(2024, 3, 1, 12)}, "--issued date-time needs a time zone"),
        ({"split": GraphSplit(pattern="(")}, "bad --split-graphs pattern"),
        ({"method": "guessing"}, "method: Input should be 'manual_curation'"),
        ({"titel": "typo"}, "titel: unknown field"),
    ],
)
def test_a_bad_option_is_an_input_error_naming_it_before_anything_is_read(given, message):
    with pytest.raises(InputError) as caught:
        IngestOptions.model_validate(given)
    assert message in str(caught.value)


def test_options_are_frozen_and_take_what_the_api_took():
    options = IngestOptions(format="ttl", method="llm_extraction", shapes=["a.ttl"], issued="2024")
    assert (options.format, options.method, options.shapes) == (
        InputFormat.TURTLE,
        ExtractionMethod.LLM_EXTRACTION,
        (Path("a.ttl"),),
    )
    with pytest.raises(ValueError, match="frozen"):
        options.tier = 1  # type: ignore[misc]


def test_ingest_and_validate_take_the_options_after_the_path():
    for method in (ProvGraph.ingest, ProvGraph.validate):
        parameters = inspect.signature(method).parameters
        assert [(p.name, p.kind.name) for p in parameters.values()] == [
            ("self", "POSITIONAL_ONLY"),
            ("path", "POSITIONAL_ONLY"),
            ("options", "POSITIONAL_ONLY"),
            ("progress", "KEYWORD_ONLY"),
            ("llm", "KEYWORD_ONLY"),  # the model of Extraction.LLM: settings with a secret, not an option
        ]


def _flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("command", ["ingest", "validate"])
def test_every_option_is_a_flag_with_its_description(command):
    shown = _flat(run_cli(command, "--help").stdout)
    for name, field in IngestOptions.model_fields.items():
        if name == "split":  # spelt --split-graphs and --graph-metadata
            assert "--split-graphs" in shown and "--graph-metadata" in shown
            continue
        assert _flat(f"--{name.replace('_', '-')}") in shown
        assert _flat((field.description or "").rstrip(".")) in shown, name


def test_a_bad_option_on_the_command_line_is_exit_2_naming_it(tmp_path):
    store = str(tmp_path / "store")
    bad_url = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "not an iri", "--store", store)
    assert bad_url.returncode == 2 and "--url must be an absolute IRI" in bad_url.stderr
    bad_tier = run_cli("validate", str(EXAMPLES / "aspirin.ttl"), "--tier", "9", "--store", store)
    assert bad_tier.returncode == 2 and "'--tier'" in bad_tier.stderr
    assert "Traceback" not in bad_url.stderr + bad_tier.stderr
    assert not (tmp_path / "store").exists()


def test_the_upload_form_fields_are_the_options_with_their_descriptions(pg):
    document = create_app(pg, ServerSettings(query_workers=0)).openapi()
    body = document["paths"]["/sources"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    fields = {name: spec for name, spec in body["properties"].items() if name not in ("file", "shapes")}
    expected = {name for name in IngestOptions.model_fields if name not in NOT_FORM_FIELDS}
    assert set(fields) == expected
    for name, spec in fields.items():
        assert spec["description"] == IngestOptions.model_fields[name].description
    assert (fields["tier"]["minimum"], fields["tier"]["maximum"]) == (1, 5)
