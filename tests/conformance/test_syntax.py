"""The W3C SPARQL 1.1 syntax suites through provgraph's reading of SPARQL text
(:func:`provgraph.sparql_text.read`), driven by the manifests, test id = test IRI.

A positive test must be read, and the text provgraph hands the engine must parse in Oxigraph; a
negative test must be refused by one of the two. The engine is given the text with every SERVICE
and LOAD target pointed at a recording endpoint on 127.0.0.1, so that nothing leaves the machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyoxigraph import QuerySolutions, Store
from rdflib import RDF, Graph

from conformance.results import MF
from endpoint_trap import Trap, endpoint_trap
from helpers import ROOT
from provgraph.errors import QueryError
from provgraph.sparql_text import Kind, SparqlText, read

SUITE = ROOT / "tests" / "w3c-rdf-tests" / "sparql" / "sparql11"
MANIFESTS = ("syntax-query", "syntax-update-1", "syntax-update-2", "syntax-fed")
_W3C = "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/"


@dataclass(frozen=True)
class SyntaxTest:
    iri: str
    path: Path
    positive: bool
    update: bool


def _tests() -> list[SyntaxTest]:
    found = []
    for name in MANIFESTS:
        manifest = SUITE / name / "manifest.ttl"
        graph = Graph().parse(manifest, publicID=f"{_W3C}{name}/manifest.ttl")
        for test in graph.subjects(MF.action, None):
            kind = str(graph.value(test, RDF.type)).rsplit("#", 1)[1]
            if "Syntax" not in kind:
                continue
            action = str(graph.value(test, MF.action)).rsplit("/", 1)[1]
            iri = str(test).replace(f"{_W3C}{name}/manifest.ttl", f"{_W3C}{name}/manifest")
            found.append(SyntaxTest(iri, SUITE / name / action, kind.startswith("Positive"), "Update" in kind))
    return sorted(found, key=lambda t: t.iri)


def _rerouted(text: SparqlText, endpoint: str) -> str:
    """The engine's text with every SERVICE and LOAD target replaced by ``endpoint``."""
    edits = {}
    for i, token in enumerate(text.tokens):
        if token.is_word("SERVICE", "LOAD"):
            j = i + 2 if i + 1 < len(text.tokens) and text.tokens[i + 1].is_word("SILENT") else i + 1
            if j < len(text.tokens) and text.tokens[j].kind in (Kind.IRI, Kind.PNAME):
                edits[j] = (j + 1, f"<{endpoint}>")
    return text.render(edits).text if edits else text.text


def _engine_accepts(text: str, *, update: bool, base: str) -> bool:
    store = Store()
    try:
        if update:
            store.update(text, base_iri=base)
        else:
            result = store.query(text, base_iri=base)
            if isinstance(result, QuerySolutions):
                list(result)
    except SyntaxError:
        return False
    except (OSError, RuntimeError, ValueError):
        return True  # parsed, then failed to evaluate (an empty graph to drop, say)
    return True


TESTS = _tests()


def test_the_suites_are_all_there():
    assert len(TESTS) >= 140 and any(t.update for t in TESTS) and any(not t.positive for t in TESTS)


@pytest.fixture(scope="module")
def trap() -> Iterator[Trap]:
    with endpoint_trap() as found:
        yield found


@pytest.mark.parametrize("test", TESTS, ids=[t.iri for t in TESTS])
def test_syntax(test: SyntaxTest, trap: Trap) -> None:
    base = f"{_W3C}{test.path.parent.name}/{test.path.name}"
    source = test.path.read_text("utf-8")
    refusal: QueryError | None = None
    try:
        text = read(source, base_iri=base)
    except QueryError as exc:
        refusal = exc
    if refusal is not None:
        assert not test.positive, f"provgraph refuses a valid {'update' if test.update else 'query'}: {refusal}"
        return
    accepted = _engine_accepts(_rerouted(text, trap.url), update=test.update, base=base)
    assert accepted == test.positive, "the engine " + ("refuses" if test.positive else "accepts") + " the text"
