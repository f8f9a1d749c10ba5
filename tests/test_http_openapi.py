"""The OpenAPI document tells the truth: schemathesis generates requests for every operation from
it and sends them to a real server on 127.0.0.1, checking that no response is a server error and
that each response's status code, media type and body are the ones the document declares.

Bounded (a fixed number of examples per operation, derandomized: the same requests on every
run), so it runs in CI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from helpers import EXAMPLES, ingest_aspirin, live_server
from provgraph import IngestOptions, ProvGraph
from provgraph.http import ServerSettings

TOKEN = "s3cret-token"
EXAMPLES_PER_OPERATION = 40


@pytest.fixture(scope="module")
def api_schema() -> Iterator[schemathesis.BaseSchema]:
    pg = ProvGraph.memory()
    ingest_aspirin(pg)
    pg.ingest(EXAMPLES / "facts.jsonl", IngestOptions(id="facts", title="Facts"))
    settings_ = ServerSettings(token=TOKEN, query_timeout=10.0, max_result_bytes=1_000_000)
    with live_server(pg, settings_) as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")
    pg.close()


schema = schemathesis.pytest.from_fixture("api_schema")


@schemathesis.serializer(
    "application/sparql-query",
    "application/sparql-update",
    "application/n-triples",
    "application/n-quads",
    "application/trig",
    "application/rdf+xml",
    "application/x-turtle",
)
def _text(_context: object, value: object) -> bytes:
    """SPARQL and RDF bodies are text: generated strings are sent as they are."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else str(value).encode()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_the_openapi_document_says(case: schemathesis.Case) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=60,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance],
    )
