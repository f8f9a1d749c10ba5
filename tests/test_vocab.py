"""The ontology defines the pg: vocabulary, ties it to PROV-O, and matches the code's constants."""

from __future__ import annotations

import re

import pyoxigraph
import rdflib
from rdflib.namespace import OWL, RDF, RDFS

from helpers import ROOT
from provgraph.resources import ontology_file, shapes_dir
from provgraph.vocab import PG, PG_NS

PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")


def _ontology() -> rdflib.Graph:
    return rdflib.Graph().parse(ontology_file())


def _defined_terms(graph: rdflib.Graph) -> set[str]:
    return {str(s) for s in graph.subjects(RDF.type, None) if str(s).startswith(PG_NS)}


def test_ontology_loads_in_rdflib_and_pyoxigraph():
    rdf_count = len(_ontology())
    ox_count = len(list(pyoxigraph.parse(path=str(ontology_file()))))
    assert rdf_count == ox_count > 150


def test_every_constant_is_defined_in_the_ontology():
    defined = _defined_terms(_ontology())
    constants = {v.value for k, v in vars(PG).items() if not k.startswith("_")}
    assert constants - defined == set()


def test_every_defined_term_has_a_constant():
    defined = _defined_terms(_ontology())
    constants = {v.value for k, v in vars(PG).items() if not k.startswith("_")}
    assert defined - constants == set()


def test_every_term_has_a_label_and_classes_and_properties_a_comment():
    g = _ontology()
    for term in _defined_terms(g):
        node = rdflib.URIRef(term)
        assert g.value(node, RDFS.label) is not None, term
        if (node, RDF.type, OWL.Class) in g or (node, RDF.type, OWL.ObjectProperty) in g:
            assert g.value(node, RDFS.comment) is not None, term


def test_core_terms_are_tied_to_prov_o():
    g = _ontology()
    pg = rdflib.Namespace(PG_NS)
    assert (pg.Statement, RDFS.subClassOf, PROV.Entity) in g
    assert (pg.Statement, RDFS.subClassOf, RDF.Statement) in g
    assert (pg.SourceDocument, RDFS.subClassOf, PROV.Entity) in g
    assert (pg.Passage, RDFS.subClassOf, PROV.Entity) in g
    assert (pg.ExtractionActivity, RDFS.subClassOf, PROV.Activity) in g
    assert (pg.sourcePassage, RDFS.subPropertyOf, PROV.wasDerivedFrom) in g
    assert (pg.reviewer, RDFS.subPropertyOf, PROV.wasAttributedTo) in g


def test_required_terms_are_present():
    defined = _defined_terms(_ontology())
    for name in [
        "Statement",
        "SourceDocument",
        "Passage",
        "confidence",
        "extractionMethod",
        "tier",
        "sourcePassage",
        "fact",
        "Current",
        "Superseded",
        "Revoked",
        "Confirmed",
        "Contested",
        "Deprecated",
        "Unknown",
    ]:
        assert PG_NS + name in defined, name


# pg: terms as the code writes them in SPARQL and Turtle text: with the prefix, after the
# namespace in an f-string ({PG_NS}x, {pg}x>) or concatenated, or as the full IRI.
_TERM_IN_TEXT = re.compile(
    r"(?<![\w:])pg:([A-Za-z_][\w-]*)"
    r"|\{PG_NS\}([A-Za-z_]\w*)"
    r'|PG_NS \+ "([A-Za-z_]\w*)"'
    r"|\{pg\}([A-Za-z_]\w*)>"
    r"|" + re.escape(PG_NS) + r"([A-Za-z_]\w*)"
)


def test_every_pg_term_in_sparql_and_turtle_text_is_defined_in_the_ontology():
    """A misspelt pg: term in a query matches nothing and fails silently; the ontology is the
    list of the terms there are."""
    defined = {t[len(PG_NS) :] for t in _defined_terms(_ontology())}
    files = [p for p in (ROOT / "src").rglob("*") if p.suffix in (".py", ".ttl", ".html", ".js")]
    files += sorted(shapes_dir().glob("*.ttl"))
    used: dict[str, list[str]] = {}
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _TERM_IN_TEXT.finditer(line):
                term = next(group for group in match.groups() if group)
                used.setdefault(term, []).append(f"{path.relative_to(ROOT)}:{number}")
    assert len(used) > 60  # the scan reads the code's text (a pattern that matched nothing would pass)
    unknown = {term: places[:3] for term, places in used.items() if term not in defined}
    assert unknown == {}
