"""Nanopublications (issue 11, point 5): every valid file of the nanopub test suite ingests, every
invalid one is refused with the reason (tests/data/nanopub-testsuite, vendored with its LICENSE)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import RdfFormat, parse

from helpers import dataset_dump
from provgraph import IngestOptions, InputError, ProvGraph
from provgraph.ingest.nanopub import artefact_code, trusty_code

SUITE = Path(__file__).parent / "data" / "nanopub-testsuite"

# Why each invalid file is refused (a part of the message).
INVALID = {
    "plain/assertion_graph_uri_not_matching.trig": "the assertion graph "
    "<http://purl.org/nanopub/1601763780/assertion> does not match the nanopublication's IRI",
    "plain/emptya.trig": "the assertion graph <http://example.org/nanopub-validator-example/assertion> is empty",
    "plain/emptyinfo.trig": "the publication-info graph <http://example.org/nanopub-validator-example/pubinfo> "
    "is empty",
    "plain/emptyprov.trig": "the provenance graph <http://example.org/nanopub-validator-example/provenance> is empty",
    "plain/extragraph.trig": "the graph <http://example.org/nanopub-validator-example/foobar> belongs to no "
    "nanopublication",
    "plain/graphs_uris_equal.trig": "its head, assertion, provenance and publication-info graphs must be distinct",
    "plain/illtyped_datatypes_in_assertion.trig": 'ill-typed literal "two"^^<http://www.w3.org/2001/XMLSchema#integer>',
    "plain/noinfolink.trig": "the publication-info graph says nothing about the nanopublication",
    "plain/noprovlink.trig": "the provenance graph says nothing about the assertion",
    "plain/provenance_graph_uri_not_matching.trig": "the provenance graph "
    "<http://purl.org/nanopub/1601763780/provenance> does not match the nanopublication's IRI",
    "plain/pubinfo_graph_uri_not_matching.trig": "the publication-info graph "
    "<http://purl.org/nanopub/1601763780/pubinfo> does not match the nanopublication's IRI",
    "plain/valid_invalid1.trig": "invalid nanopublication <http://example.org/mynanopub3#>: the head graph has no "
    "np:hasAssertion",
    "signed/RA6T-YLqLnYd5XfnqR9PaGUjCzudvHdYjcG4GvOc7fdpA-all-LF.trig": "trusty URI hash mismatch: the content hashes "
    "to RA-Ifndc-V",
    "signed/simple1-invalid-dsa.trig": "the DSA signature does not verify",
    "signed/simple1-invalid-rsa.trig": "the RSA signature does not verify",
    "trusty/trusty1.trig": "trusty URI hash mismatch: the content hashes to RAVQUT_u6",
    "trusty/trusty2.trig": "the head graph <https://w3id.org/np/RA54f2f2ef2408bf88c12fbb8fd62844263ab83ef5c22/Head> "
    "does not match the nanopublication's IRI",
}
# Valid files that do not ingest as they are, and why.
ILL_TYPED = {"trusty/fair-maturity-1.trig": 1}  # "2019-02-26"^^xsd:dateTime: ingests with lenient

VALID = sorted(str(p.relative_to(SUITE / "valid")) for p in (SUITE / "valid").glob("*/*"))


def test_the_suite_is_all_here():
    assert sorted(str(p.relative_to(SUITE / "invalid")) for p in (SUITE / "invalid").glob("*/*")) == sorted(INVALID)
    assert len(INVALID) == 17 and len(VALID) == 91


@pytest.mark.parametrize("name", sorted(INVALID))
def test_an_invalid_nanopublication_is_refused_with_its_reason(pg: ProvGraph, name: str):
    path = SUITE / "invalid" / name
    before = dataset_dump(pg)
    with pytest.raises(InputError) as caught:
        pg.ingest(path, IngestOptions(id=name))
    assert dataset_dump(pg) == before
    assert INVALID[name] in caught.value.reason
    assert caught.value.file == str(path) and caught.value.line is not None


@pytest.mark.parametrize("name", VALID)
def test_a_valid_nanopublication_ingests(pg: ProvGraph, name: str):
    path = SUITE / "valid" / name
    if name in ILL_TYPED:
        with pytest.raises(InputError, match='ill-typed literal "2019-02-26"'):
            pg.ingest(path, IngestOptions(id=name))
    report = pg.ingest(path, IngestOptions(id=name, lenient=name in ILL_TYPED))
    assert report.statements > 0 and report.validation.conforms
    assert report.ill_typed_literals == ILL_TYPED.get(name, 0)


def test_the_trix_nanopublication_is_the_same_as_the_trig_one(pg: ProvGraph):
    trix = pg.ingest(SUITE / "valid" / "plain" / "simple1.xml", IngestOptions(id="trix"))
    trig = pg.ingest(SUITE / "valid" / "plain" / "simple1.trig", IngestOptions(id="trig"))
    assert trix.format.value == "trix"
    assert trix.statements == trig.statements
    assert pg.export(graph=trix.documents[0].graph, format="ntriples").count(b"originalGraph") == trix.statements


def test_the_trusty_hash_is_the_one_in_the_uri():
    quads = list(parse(path=str(SUITE / "valid" / "trusty" / "nextprot-1.trig"), format=RdfFormat.TRIG))
    [uri] = {q.subject.value for q in quads if q.object.value == "http://www.nanopub.org/nschema#Nanopublication"}
    code = artefact_code(uri)
    assert code is not None and trusty_code(quads, code) == code


def test_a_changed_assertion_breaks_the_trusty_uri(pg, tmp_path):
    text = (SUITE / "valid" / "trusty" / "nextprot-1.trig").read_text()
    path = tmp_path / "changed.trig"
    assert 'ro:has_quality "positive"' in text
    path.write_text(text.replace('ro:has_quality "positive"', 'ro:has_quality "negative"'))
    with pytest.raises(InputError, match="trusty URI hash mismatch"):
        pg.ingest(path, IngestOptions(id="changed"))
