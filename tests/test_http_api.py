"""The JSON API for pipelines (/sources, /evidence, /export, /docs) on a real server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import rdflib
from prov.model import ProvDocument
from pyoxigraph import Dataset, RdfFormat, parse

from helpers import EXAMPLES, live_server
from provgraph import ProvGraph
from provgraph.http import ServerSettings

TOKEN = "s3cret-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ASPIRIN = {"title": "Aspirin facts", "url": "https://example.org/aspirin", "issued": "2024-03-01", "tier": "2"}


@pytest.fixture
def api(pg: ProvGraph) -> Iterator[httpx.Client]:
    with live_server(pg, ServerSettings(token=TOKEN)) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


def upload(
    client: httpx.Client,
    path: Path,
    fields: dict[str, str],
    *,
    content: bytes | None = None,
    shapes: Sequence[Path] = (),
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    files = [("file", (path.name, content if content is not None else path.read_bytes()))]
    files += [("shapes", (s.name, s.read_bytes())) for s in shapes]
    return client.post("/sources", data=fields, files=files, headers=AUTH if headers is None else headers)


# ---------------------------------------------------------------------------------------- upload


def test_upload_creates_then_is_unchanged_then_versions(api, pg):
    created = upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN)
    assert created.status_code == 201, created.text
    report = created.json()
    assert report["file"] == "aspirin.ttl"  # the client's name, not the server's temporary file
    assert report["format"] == "turtle"
    assert report["statements"] == 4
    assert report["validation"]["conforms"] is True
    [doc] = report["documents"]
    assert doc["outcome"] == "created"
    assert doc["key"] == "https://example.org/aspirin"
    assert created.headers["location"] == "/sources/" + quote("https://example.org/aspirin", safe="")
    assert [s.title for s in pg.sources()] == ["Aspirin facts"]

    again = upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN)
    assert again.status_code == 200, again.text
    assert again.json()["unchanged"] is True
    assert again.json()["documents"][0]["outcome"] == "unchanged"

    changed = (EXAMPLES / "aspirin.ttl").read_bytes() + b'ex:aspirin rdfs:comment "NSAID" .\n'
    versioned = upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN, content=changed)
    assert versioned.status_code == 201, versioned.text
    doc = versioned.json()["documents"][0]
    assert (doc["outcome"], doc["version"]) == ("new_version", 2)
    assert doc["previous_graph"].endswith("/v1")
    assert [v.status.value for v in pg.source("https://example.org/aspirin").versions] == ["current", "superseded"]


def test_upload_format_field_overrides_the_extension(api, pg):
    response = upload(
        api, Path("facts.txt"), {"id": "trial", "format": "jsonl"}, content=(EXAMPLES / "facts.jsonl").read_bytes()
    )
    assert response.status_code == 201, response.text
    assert response.json()["format"] == "jsonl"
    assert pg.source("trial").title == "facts.txt"


def test_upload_needs_the_write_token(api, pg):
    missing = upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN, headers={})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "error" in missing.json()
    wrong = upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert pg.sources() == []


def test_a_server_without_a_token_refuses_uploads(pg):
    with live_server(pg) as url, httpx.Client(base_url=url) as client:
        response = upload(client, EXAMPLES / "aspirin.ttl", ASPIRIN, headers=AUTH)
    assert response.status_code == 403
    assert "read-only" in response.json()["error"]


def test_shacl_rejection_is_422_with_the_focus_node_and_nothing_written(api, pg):
    response = upload(
        api,
        EXAMPLES / "bad-dose.ttl",
        {"url": "https://example.org/bad-dose", "title": "Bad dose"},
        shapes=[EXAMPLES / "drug-shapes.ttl"],
    )
    assert response.status_code == 422, response.text
    body = response.json()
    assert "does not conform" in body["error"]
    assert body["validation"]["conforms"] is False
    issues = body["validation"]["issues"]
    assert any(i["focus_node"] == "http://example.org/ibuprofen" for i in issues)
    assert any(i["path"] == "http://example.org/maxDailyDoseMg" for i in issues)
    assert "provgraph-upload-" not in response.text  # no server temporary paths leak
    assert pg.sources() == []


def test_the_same_file_without_the_shapes_is_accepted(api):
    response = upload(api, EXAMPLES / "bad-dose.ttl", {"url": "https://example.org/bad-dose"})
    assert response.status_code == 201, response.text


def test_syntax_error_is_400_naming_the_file_and_line(api, pg):
    bad = b"@prefix ex: <http://example.org/> .\n\nex:a ex:b ex:c ;\n    ex:d .\n"
    response = upload(api, Path("broken.ttl"), {"id": "broken"}, content=bad)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["file"] == "broken.ttl"
    assert body["line"] == 4
    assert body["error"].startswith("broken.ttl:4")
    assert "provgraph-upload-" not in response.text
    assert pg.sources() == []


def test_a_broken_shapes_file_is_400_naming_it(api, pg):
    response = api.post(
        "/sources",
        data={"url": "https://example.org/aspirin"},
        files=[
            ("file", ("aspirin.ttl", (EXAMPLES / "aspirin.ttl").read_bytes())),
            ("shapes", ("my-shapes.ttl", b"@prefix sh: <http://www.w3.org/ns/shacl#> .\nthis is not turtle\n")),
        ],
        headers=AUTH,
    )
    assert response.status_code == 400, response.text
    assert response.json()["file"] == "my-shapes.ttl"
    assert "provgraph-upload-" not in response.text
    assert pg.sources() == []


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": "no identity"}, "'id' or a 'url'"),
        ({"id": "x", "tier": "high"}, "tier"),
        ({"id": "x", "titel": "typo"}, "unknown field"),
        ({"id": "x", "method": "guessing"}, "method"),
        ({"id": "x", "tier": "9"}, "tier must be from 1"),
        ({"id": "x", "url": "not an iri"}, "absolute IRI"),
    ],
)
def test_bad_metadata_is_400(api, pg, fields, message):
    response = upload(api, EXAMPLES / "aspirin.ttl", fields)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]
    assert pg.sources() == []


def test_unknown_extension_is_415_and_a_non_multipart_body_is_415(api):
    response = upload(api, Path("facts.csv"), {"id": "x"}, content=b"a,b,c\n")
    assert response.status_code == 415, response.text
    assert "facts.csv" in response.json()["error"]
    raw = api.post("/sources", content=b"<a> <b> <c> .", headers={**AUTH, "Content-Type": "text/turtle"})
    assert raw.status_code == 415
    no_file = api.post("/sources", data={"id": "x"}, files={"other": ("a.ttl", b"")}, headers=AUTH)
    assert no_file.status_code == 400
    assert "'file'" in no_file.json()["error"]


# ---------------------------------------------------------------------------------------- reads


@pytest.fixture
def loaded(api: httpx.Client) -> httpx.Client:
    assert upload(api, EXAMPLES / "aspirin.ttl", ASPIRIN).status_code == 201
    trial = {"title": "Aspirin trial report", "url": "https://example.org/trial", "method": "llm_extraction"}
    assert upload(api, EXAMPLES / "facts.jsonl", trial).status_code == 201
    return api


def test_get_sources_and_one_source_by_key_and_by_iri(loaded):
    listed = loaded.get("/sources")
    assert listed.status_code == 200
    assert sorted(s["title"] for s in listed.json()) == ["Aspirin facts", "Aspirin trial report"]
    by_key = loaded.get("/sources/" + quote("https://example.org/aspirin", safe=""))
    assert by_key.status_code == 200, by_key.text
    info = by_key.json()
    assert (info["title"], info["tier"], info["issued"], info["status"]) == (
        "Aspirin facts",
        2,
        "2024-03-01",
        "current",
    )
    assert [v["version"] for v in info["versions"]] == [1]
    by_iri = loaded.get("/sources/" + quote(info["document"], safe=""))
    assert by_iri.json() == info
    missing = loaded.get("/sources/nope")
    assert missing.status_code == 404
    assert "nope" in missing.json()["error"]


def test_evidence(loaded):
    params = {
        "subject": "http://example.org/aspirin",
        "predicate": "http://example.org/treats",
        "object": "http://example.org/headache",
    }
    found = loaded.get("/evidence", params=params)
    assert found.status_code == 200, found.text
    by_title = {e["title"]: e for e in found.json()}
    assert set(by_title) == {"Aspirin facts", "Aspirin trial report"}
    trial = by_title["Aspirin trial report"]
    assert (trial["confidence"], trial["method"]) == (0.86, "llm_extraction")
    assert trial["passage"]["page"] == 3
    doses = loaded.get(
        "/evidence", params={**params, "predicate": "http://example.org/maxDailyDoseMg", "object": "4000"}
    )
    assert len(doses.json()) == 2
    every_value = loaded.get("/evidence", params={"subject": params["subject"], "predicate": params["predicate"]})
    assert len(every_value.json()) == 2
    history = loaded.get("/evidence", params={**params, "history": "true"})
    assert len(history.json()) == 2
    bad = loaded.get("/evidence", params={**params, "subject": "not an iri"})
    assert bad.status_code == 400
    assert "subject" in bad.json()["error"]


@pytest.mark.parametrize(
    ("fmt", "media", "rdf"),
    [
        ("trig", "application/trig", RdfFormat.TRIG),
        ("nquads", "application/n-quads", RdfFormat.N_QUADS),
        ("jsonld", "application/ld+json", RdfFormat.JSON_LD),
    ],
)
def test_export_dataset(loaded, pg, fmt, media, rdf):
    response = loaded.get("/export", params={"format": fmt})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media)
    exported = Dataset(parse(response.content, format=rdf))
    assert len(exported) == pg.stats().quads


def test_export_jsonld_dataset_parses_with_rdflib_too(loaded, pg):
    response = loaded.get("/export", params={"format": "jsonld"})
    dataset = rdflib.Dataset()
    dataset.parse(data=response.content, format="json-ld")
    assert sum(1 for _ in dataset.quads((None, None, None, None))) == pg.stats().quads


def test_export_turtle_of_one_document_needs_the_graph(loaded):
    response = loaded.get("/export", params={"format": "turtle", "graph": "https://example.org/aspirin"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/turtle")
    graph = rdflib.Graph().parse(data=response.text, format="turtle")
    label = rdflib.URIRef("http://www.w3.org/2000/01/rdf-schema#label")
    assert (rdflib.URIRef("http://example.org/aspirin"), label, rdflib.Literal("aspirin", lang="en")) in graph
    catalog = loaded.get("/export", params={"format": "turtle", "graph": "catalog"})
    assert catalog.status_code == 200
    assert "SourceGraph" in catalog.text
    no_graph = loaded.get("/export", params={"format": "turtle"})
    assert no_graph.status_code == 400
    assert "one graph" in no_graph.json()["error"]
    unknown = loaded.get("/export", params={"format": "turtle", "graph": "https://example.org/nothing"})
    assert unknown.status_code == 404


def test_export_prov_json_of_a_source(loaded, pg):
    response = loaded.get("/export", params={"format": "provjson", "graph": "https://example.org/trial"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = json.loads(response.content)
    info = pg.source("https://example.org/trial")
    document = info.document.replace("https://w3id.org/provgraph/id/", "pgid:")
    activity = info.current_graph.replace("https://w3id.org/provgraph/id/", "pgid:") + "/activity"
    assert body["prefix"]["pgid"] == "https://w3id.org/provgraph/id/"
    assert body["entity"][document]["dcterms:title"] == "Aspirin trial report"
    assert activity in body["activity"]
    assert "pgid:agent/provgraph" in body["agent"]
    statements = [k for k, v in body["entity"].items() if k.startswith("pgid:stmt/")]
    assert len(statements) == 3
    derivations = {(d["prov:generatedEntity"], d["prov:usedEntity"]) for d in body["wasDerivedFrom"].values()}
    assert {(s, document) for s in statements} <= derivations
    generated = {g["prov:entity"]: g for g in body["wasGeneratedBy"].values()}
    assert all(generated[s]["prov:activity"] == activity and "prov:time" in generated[s] for s in statements)

    parsed = ProvDocument.deserialize(content=response.text, format="json")
    entities = {str(r.identifier): r for r in parsed.get_records() if r.get_type().localpart == "Entity"}
    stmt = entities[statements[0]]
    confidences = [v for k, v in stmt.attributes if k.localpart == "confidence"]
    methods = [str(v) for k, v in stmt.attributes if k.localpart == "extractionMethod"]
    assert confidences and 0 < float(confidences[0]) <= 1
    assert methods == ["pg:LlmExtraction"]


def test_export_prov_n_of_a_source(loaded, pg):
    response = loaded.get("/export", params={"format": "provn", "graph": "https://example.org/aspirin"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/provenance-notation")
    text = response.text
    assert text.startswith("document") and text.rstrip().endswith("endDocument")
    info = pg.source("https://example.org/aspirin")
    document = info.document.replace("https://w3id.org/provgraph/id/", "pgid:")
    assert f"entity({document}, [" in text
    assert f"activity({document}/v1/activity, " in text
    assert "wasDerivedFrom(pgid:stmt/" in text
    assert f"used({document}/v1/activity, {document}" in text
    assert 'dcterms:title="Aspirin facts"' in text


def test_export_prov_needs_a_source(loaded):
    no_graph = loaded.get("/export", params={"format": "provn"})
    assert no_graph.status_code == 400
    catalog = loaded.get("/export", params={"format": "provjson", "graph": "catalog"})
    assert catalog.status_code == 400
    assert "not a source graph" in catalog.json()["error"]
    unknown_format = loaded.get("/export", params={"format": "provrdf", "graph": "https://example.org/aspirin"})
    assert unknown_format.status_code == 400 and "format" in unknown_format.json()["error"]


def test_export_a_source_as_nanopublications(loaded):
    response = loaded.get("/export", params={"format": "nanopub", "graph": "https://example.org/aspirin"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/trig")
    quads = parse(response.content, format=RdfFormat.TRIG)
    nanopubs = [q for q in quads if q.object.value.endswith("#Nanopublication")]
    assert len(nanopubs) == 4 and all(q.subject.value.startswith("https://w3id.org/np/RA") for q in nanopubs)
    assert loaded.get("/export", params={"format": "nanopub"}).status_code == 400
    catalog = loaded.get("/export", params={"format": "nanopub", "graph": "catalog"})
    assert catalog.status_code == 400 and "not a source graph" in catalog.json()["error"]


FACT = {
    "subject": "http://example.org/aspirin",
    "predicate": "http://example.org/treats",
    "object": "http://example.org/headache",
}


def test_export_a_facts_provenance_and_nanopublications(loaded):
    provn = loaded.get("/export", params={"format": "provn", **FACT})
    assert provn.status_code == 200 and "wasDerivedFrom(" in provn.text
    nanopubs = [
        q.subject.value
        for q in parse(loaded.get("/export", params={"format": "nanopub", **FACT}).content, format=RdfFormat.TRIG)
        if q.object.value.endswith("#Nanopublication")
    ]
    # one for each source that states it
    assert len(nanopubs) == len(loaded.get("/evidence", params=FACT).json()) > 0
    assert all(uri.startswith("https://w3id.org/np/RA") for uri in nanopubs)
    partial = loaded.get("/export", params={"format": "provn", "subject": FACT["subject"]})
    assert partial.status_code == 400 and "give all three" in partial.json()["error"]
    both = loaded.get("/export", params={"format": "provn", "graph": "https://example.org/aspirin", **FACT})
    assert both.status_code == 400
    trig = loaded.get("/export", params={"format": "trig", **FACT})
    assert trig.status_code == 400 and "PROV format or as nanopub" in trig.json()["error"]
    unknown = loaded.get("/export", params={"format": "nanopub", **FACT, "object": "http://example.org/cancer"})
    assert unknown.status_code == 404


def test_export_prov_xml_and_the_picture_of_a_source(loaded):
    params = {"graph": "https://example.org/aspirin"}
    xml = loaded.get("/export", params={**params, "format": "provxml"})
    assert xml.status_code == 200 and xml.headers["content-type"].startswith("application/xml")
    assert "<prov:wasDerivedFrom>" in xml.text
    dot = loaded.get("/export", params={**params, "format": "dot"})
    assert dot.headers["content-type"].startswith("text/vnd.graphviz")
    assert '"aspirin · treats · headache"' in dot.text


def test_export_prov_of_an_answer(loaded):
    asked = loaded.post("/qa", json={"question": "What does aspirin treat?"})
    assert asked.status_code == 200, asked.text
    answer = asked.json()["id"]
    dot = loaded.get("/export", params={"format": "dot", "answer": answer})
    assert dot.status_code == 200 and "answer to “What does aspirin treat?”" in dot.text
    both = loaded.get("/export", params={"format": "dot", "answer": answer, "graph": "https://example.org/aspirin"})
    assert both.status_code == 400 and "one source, fact or answer" in both.json()["error"]
    as_rdf = loaded.get("/export", params={"format": "trig", "answer": answer})
    assert as_rdf.status_code == 400 and "PROV format" in as_rdf.json()["error"]
    unknown = loaded.get("/export", params={"format": "provn", "answer": "0" * 64})
    assert unknown.status_code == 404


def test_reads_ask_for_the_token_when_the_operator_says_so(pg):
    settings = ServerSettings(token=TOKEN, read_token=True)
    with live_server(pg, settings) as url, httpx.Client(base_url=url) as client:
        assert client.get("/sources").status_code == 401
        assert client.get("/sources", headers={"Authorization": "Bearer nope"}).status_code == 403
        assert client.get("/sources", headers=AUTH).status_code == 200
        assert client.get("/export", params={"format": "nquads"}).status_code == 401


def test_the_token_is_checked_before_the_parameters(pg):
    """Access is each route's first dependency: a client without the token learns nothing of
    what the route takes (its parameters are not checked for it)."""
    settings = ServerSettings(token=TOKEN, read_token=True)
    with live_server(pg, settings) as url, httpx.Client(base_url=url) as client:
        assert client.get("/conflicts", params={"strategy": "bogus"}).status_code == 401
        assert client.post("/qa", json={"question": ""}).status_code == 401
        assert client.get("/conflicts", params={"strategy": "bogus"}, headers=AUTH).status_code == 400


# ---------------------------------------------------------------------------------------- docs


def test_docs_and_openapi_list_the_endpoints_with_examples(api):
    docs = api.get("/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()
    spec = api.get("/openapi.json").json()
    paths = spec["paths"]
    assert {"/sources", "/sources/{document}", "/evidence", "/export"} <= set(paths)
    assert {"get", "post"} <= set(paths["/sources"])
    upload_body = paths["/sources"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert {"file", "shapes", "id", "url", "title", "tier", "format", "method", "confidence"} <= set(
        upload_body["properties"]
    )
    assert set(paths["/sources"]["post"]["responses"]) >= {"200", "201", "400", "401", "403", "422"}
    assert paths["/sources"]["post"]["responses"]["422"]["content"]["application/json"]["example"]["validation"]
    evidence_params = {p["name"]: p for p in paths["/evidence"]["get"]["parameters"]}
    assert {"subject", "predicate", "object", "history"} <= set(evidence_params)
    assert evidence_params["subject"]["examples"]
    export_params = {p["name"]: p for p in paths["/export"]["get"]["parameters"]}
    assert "provjson" in json.dumps(export_params["format"]) and "provn" in json.dumps(export_params["format"])
    assert "IngestReport" in spec["components"]["schemas"]
    assert "Evidence" in spec["components"]["schemas"]
