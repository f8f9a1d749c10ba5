"""Nanopublications (issue 11, point 5): every valid file of the nanopub test suite ingests, every
invalid one is refused with the reason (tests/data/nanopub-testsuite, vendored with its LICENSE)."""

from __future__ import annotations

from pathlib import Path

import nanopub_sign
import pytest
from pyoxigraph import BlankNode, NamedNode, RdfFormat, parse, serialize

from helpers import EXAMPLES, dataset_dump, run_cli
from provgraph import IngestOptions, InputError, NotFoundError, ProvGraph, nanopub_export
from provgraph.ingest.nanopub import artefact_code, check_nanopublications, normalised, trusty_code
from provgraph.ingest.trix import trix_to_nquads

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


# ---------------------------------------------------------------------- what is kept, and out again

NP_HAS_ASSERTION = "http://www.nanopub.org/nschema#hasAssertion"
SIGNED = SUITE / "valid" / "signed" / "simple1-signed-rsa.1024.trig"


#: Valid nanopublications nanopub-rs refuses, and its message: it verifies RSA signatures only.
NANOPUB_RS_REFUSES = {"signed/simple1-signed-dsa.1024.trig": "Invalid RSA public key"}


def _nanopubs(data: bytes, fmt: RdfFormat = RdfFormat.TRIG) -> dict[str, list]:
    """The nanopublications of a document by IRI, each its four graphs' quads."""
    return {quads[0].subject.value: quads for quads in nanopub_export.split(parse(data, format=fmt))}


def _hashed(quads: list) -> str:
    """What a nanopublication's trusty hash and signature are over."""
    code = artefact_code(quads[0].subject.value) or "\x00"
    return normalised(quads, code)


def _accepted_by_nanopub_rs(quads: list) -> None:
    """nanopub-rs (PyPI nanopub-sign), another implementation, checks one nanopublication:
    structure, trusty hash and signature; it raises if one fails."""
    nanopub_sign.Nanopub(serialize(quads, format=RdfFormat.TRIG).decode()).check()


@pytest.mark.parametrize("name", VALID)
def test_a_nanopublication_goes_out_as_published(pg: ProvGraph, name: str):
    path = SUITE / "valid" / name
    if path.suffix == ".xml":
        original = _nanopubs(trix_to_nquads(path, name), RdfFormat.N_QUADS)
    else:
        original = _nanopubs(path.read_bytes(), RdfFormat.from_extension(path.suffix[1:]))
    report = pg.ingest(path, IngestOptions(id=name, lenient=name in ILL_TYPED))
    [(uri, quads)] = original.items()
    assertion = _assertion_graph(quads)
    # its assertion's triples are the facts; its head, provenance and publication info are not
    assert report.statements == len({q.triple for q in quads if q.graph_name.value == assertion})
    assert not pg.evidence(uri, NP_HAS_ASSERTION, NamedNode(assertion))
    exported = _nanopubs(pg.export_nanopubs(name))
    assert list(exported) == [uri]
    # byte-equal in what its trusty URI and signature are over, lexical forms included
    assert _hashed(exported[uri]) == _hashed(quads)
    assert len(check_nanopublications(exported[uri], file="export", locate=lambda _: None)) == 1
    if name in NANOPUB_RS_REFUSES:
        for quads_ in (quads, exported[uri]):  # the original as much as the export
            with pytest.raises(Exception, match=NANOPUB_RS_REFUSES[name]):
                _accepted_by_nanopub_rs(quads_)
    else:
        _accepted_by_nanopub_rs(exported[uri])


def _assertion_graph(quads: list) -> str:
    return next(q.object.value for q in quads if q.predicate.value == NP_HAS_ASSERTION)


def test_a_statement_carries_its_nanopublications_provenance(pg: ProvGraph):
    pg.ingest(SIGNED, IngestOptions(id="signed"))
    [evidence] = pg.evidence(
        "http://example.org/mosquito", "http://example.org/transmits", "http://example.org/malaria"
    )
    uri = "http://example.org/nanopub-validator-example/RAsfLND-jtohcyohjKmXL7H4KYEDMLr0g4Yc6-8ATwb10"
    assert evidence.original_graph == uri + "#assertion"
    assert evidence.attributes["http://www.w3.org/ns/prov#wasAttributedTo"] == [
        "<http://orcid.org/0000-0002-1267-0234>"
    ]
    assert evidence.attributes["http://www.w3.org/ns/prov#hadPrimarySource"] == [
        "<http://dx.doi.org/10.3233/ISU-2010-0613>"
    ]
    [record] = evidence.attributes["https://w3id.org/provgraph/ns#nanopublication"]
    [row] = pg.query(
        f"SELECT ?uri ?created ?creator ?code ?algorithm WHERE {{ GRAPH ?g {{ {record} pg:nanopubUri ?uri ; "
        "dcterms:created ?created ; dcterms:creator ?creator ; pg:artefactCode ?code ; "
        "pg:signatureAlgorithm ?algorithm ; pg:publicKey ?key ; pg:inDocument ?doc . "
        "?doc pg:documentKey 'signed' } }"
    ).rows()
    found = {name: term.value for name, term in row.items() if term is not None}
    assert found["uri"] == uri and found["code"] == artefact_code(uri) and found["algorithm"] == "RSA"
    assert found["created"].startswith("2014-07-24T") and found["creator"] == "http://orcid.org/0000-0002-1267-0234"
    # the signature element and the links of the head are not facts
    assert not pg.evidence(uri + "#signature", "http://purl.org/nanopub/x/hasAlgorithm", "RSA")


def test_literals_go_out_in_their_published_lexical_form(pg: ProvGraph):
    path = SUITE / "valid" / "trusty" / "example3.trig"
    assert '"2"^^xsd:positiveInteger' in path.read_text()
    pg.ingest(path, IngestOptions(id="example3"))
    stored = pg.export(graph="example3", format="ntriples").decode()
    impact = "<https://github.com/LaraHack/linkflows_model/blob/master/Linkflows.ttl#hasImpact>"
    # the store keeps the value ...
    assert f'{impact} "2"^^<http://www.w3.org/2001/XMLSchema#integer> .' in stored
    # ... the nanopublication its published form, so its trusty URI still holds
    [quads] = _nanopubs(pg.export_nanopubs("example3")).values()
    [value] = [q.object for q in quads if q.predicate.value == impact[1:-1]]
    assert value.datatype.value == "http://www.w3.org/2001/XMLSchema#positiveInteger"


def test_other_sources_go_out_as_new_trusty_nanopublications(pg: ProvGraph, tmp_path: Path):
    pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(id="aspirin", url="https://example.org/aspirin"))
    text = tmp_path / "note.ttl"
    text.write_text('@prefix ex: <http://example.org/> .\nex:aspirin ex:sideEffect [ ex:name "stomach bleeding" ] .\n')
    pg.ingest(text, IngestOptions(id="note"))
    first = pg.export_nanopubs("aspirin")
    assert pg.export_nanopubs("aspirin") == first  # the same statements, the same nanopublications
    minted = _nanopubs(first)
    statements = "SELECT ?st WHERE { ?st a pg:Statement ; prov:wasDerivedFrom ?d . ?d pg:documentKey 'aspirin' }"
    assert len(minted) == len(pg.query(statements).rows()) > 0
    for uri, quads in minted.items():
        assert uri.startswith(nanopub_export.NP_BASE) and artefact_code(uri) is not None
        assert len(check_nanopublications(quads, file="export", locate=lambda _: None)) == 1
        _accepted_by_nanopub_rs(quads)
        assertion = _assertion_graph(quads)
        [source] = [
            q.object.value
            for q in quads
            if q.subject.value == assertion and q.predicate.value.endswith("wasDerivedFrom")
        ]
        assert source == "https://example.org/aspirin"
    # a blank node becomes an IRI under the nanopublication's own (a trusty one has none)
    for uri, quads in _nanopubs(pg.export_nanopubs("note")).items():
        assert all(not isinstance(t, BlankNode) for q in quads for t in (q.subject, q.object))
        assert any(q.subject.value == uri + "/_1" or q.object.value == uri + "/_1" for q in quads)
        _accepted_by_nanopub_rs(quads)


def test_a_facts_nanopublications_are_its_evidence_in_every_source(pg: ProvGraph, tmp_path: Path):
    pg.ingest(SIGNED, IngestOptions(id="signed"))
    other = tmp_path / "other.nt"
    other.write_text("<http://example.org/mosquito> <http://example.org/transmits> <http://example.org/malaria> .\n")
    pg.ingest(other, IngestOptions(id="other", url="https://example.org/other"))
    found = _nanopubs(
        pg.export_nanopubs(
            fact=("http://example.org/mosquito", "http://example.org/transmits", "http://example.org/malaria")
        )
    )
    published = _nanopubs(SIGNED.read_bytes())
    [(signed_uri, signed)] = published.items()
    assert sorted(found) == sorted([signed_uri, *(u for u in found if u.startswith(nanopub_export.NP_BASE))])
    assert len(found) == 2 and _hashed(found[signed_uri]) == _hashed(signed)
    for quads in found.values():
        _accepted_by_nanopub_rs(quads)
    with pytest.raises(NotFoundError):
        pg.export_nanopubs(fact=("http://example.org/mosquito", "http://example.org/transmits", "http://example.org/x"))


def test_the_command_line_exports_nanopublications(tmp_path: Path):
    store = str(tmp_path / "store")
    assert run_cli("ingest", str(SIGNED), "--id", "signed", "--store", store).returncode == 0
    out = tmp_path / "out.trig"
    done = run_cli("export", "--format", "nanopub", "--graph", "signed", "--store", store, "-o", str(out))
    assert done.returncode == 0, done.stderr
    [quads] = _nanopubs(out.read_bytes()).values()
    assert _hashed(quads) == _hashed(next(iter(_nanopubs(SIGNED.read_bytes()).values())))
    fact = run_cli(
        "export", "--format", "nanopub", "--store", store,
        "--fact", "http://example.org/mosquito", "http://example.org/transmits", "http://example.org/malaria",
    )  # fmt: skip
    assert fact.returncode == 0 and "np:Nanopublication" in fact.stdout
    neither = run_cli("export", "--format", "nanopub", "--store", store)
    assert neither.returncode == 2 and "give --graph KEY or --fact S P O" in neither.stderr


def test_the_provenance_of_a_nanopublications_statement_names_its_author_and_source(pg: ProvGraph):
    pg.ingest(SIGNED, IngestOptions(id="signed"))
    provn = pg.export_prov("signed", format="provn").decode()
    [orcid] = [line.split()[1] for line in provn.splitlines() if "<http://orcid.org/>" in line]
    assert f", {orcid}:0000-0002-1267-0234)" in provn.split("wasAttributedTo(", 1)[1]
    # the prov package writes hadPrimarySource and wasQuotedFrom as typed wasDerivedFrom
    assert "ISU-2010-0613, -, -, -, [prov:type='prov:PrimarySource'])" in provn
    # the statement was derived from the nanopublication, which repeats part of the document
    assert provn.count("[prov:type='prov:Quotation']") == 1 and "pg:nanopubContent" not in provn
