"""The W3C SPARQL 1.1 update evaluation tests, through the HTTP endpoint.

Each test loads its data straight into the store (``ut:data`` into the default graph, each
``ut:graphData`` into the graph its ``rdfs:label`` names), POSTs its request to ``/sparql`` of a
real server with the write token, and compares the whole store afterwards with the test's result
data: the default graph and every named graph, under one blank node bijection across the dataset.
One server runs per manifest; the store is emptied before each test.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox
import pytest
from pydantic import SecretStr
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic

from conformance.results import (
    MF,
    UT,
    Endpoints,
    canonical,
    compare_graphs,
    file_of,
    load_files,
    manifest_entries,
    read_graphs,
)
from helpers import ROOT
from provgraph import ProvGraph
from provgraph.http import ServerSettings

SUITE = ROOT / "tests" / "w3c-rdf-tests" / "sparql" / "sparql11"
MANIFESTS = (
    "add",
    "basic-update",
    "clear",
    "copy",
    "delete",
    "delete-data",
    "delete-insert",
    "delete-where",
    "drop",
    "move",
    "update-silent",
)
TOKEN = "w3c-update-tests"

#: Tests expected to fail, by IRI, and why. Each is strict: one that starts passing fails the run.
XFAIL: dict[str, str] = {}

#: Stands for the default graph among graph names (every graph name in these tests is an IRI).
DEFAULT = "urn:x-conformance:default-graph"


@dataclass(frozen=True)
class UpdateTest:
    iri: str
    manifest: str
    request: Path
    data: tuple[Path, ...]
    graph_data: tuple[tuple[str, Path], ...]
    result_data: tuple[Path, ...]
    result_graph_data: tuple[tuple[str, Path], ...]


def _tests() -> list[UpdateTest]:
    found = []
    for name in MANIFESTS:
        for entry in manifest_entries(SUITE / name / "manifest.ttl"):
            if entry.type != MF.UpdateEvaluationTest:
                continue
            action = entry.value(entry.node, MF.action)
            result = entry.value(entry.node, MF.result)
            assert action is not None and result is not None, entry.iri
            found.append(
                UpdateTest(
                    iri=entry.iri,
                    manifest=name,
                    request=file_of(entry.value(action, UT.request)),  # type: ignore[arg-type]
                    data=tuple(file_of(d) for d in entry.values(action, UT.data)),
                    graph_data=tuple(entry.labelled_graphs(action)),
                    result_data=tuple(file_of(d) for d in entry.values(result, UT.data)),
                    result_graph_data=tuple(entry.labelled_graphs(result)),
                )
            )
    return found


def _params() -> list[object]:
    tests = _tests()
    unknown = set(XFAIL) - {t.iri for t in tests}
    assert not unknown, f"XFAIL names tests that do not exist: {sorted(unknown)}"
    return [
        pytest.param(
            t.manifest,
            t,
            id=t.iri,
            marks=[pytest.mark.xfail(strict=True, reason=XFAIL[t.iri])] if t.iri in XFAIL else [],
        )
        for t in tests
    ]


@pytest.fixture(scope="module")
def endpoints() -> Iterator[Endpoints]:
    servers = Endpoints(ServerSettings(token=SecretStr(TOKEN)), headers={"Authorization": f"Bearer {TOKEN}"})
    yield servers
    servers.close()


def _term(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> URIRef | BNode | Literal:
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if term.language:
        return Literal(term.value, lang=term.language)
    return Literal(term.value, datatype=URIRef(term.datatype.value))


def store_graphs(pg: ProvGraph) -> dict[str, Graph]:
    """The store's graphs by name (:data:`DEFAULT` for the default graph), empty ones left out:
    the tests' result data cannot tell an empty graph from a missing one."""
    graphs: dict[str, Graph] = {}
    for quad in pg.backend.quads():
        name = DEFAULT if isinstance(quad.graph_name, ox.DefaultGraph) else quad.graph_name.value
        graph = graphs.setdefault(name, Graph())
        graph.add((_term(quad.subject), _term(quad.predicate), _term(quad.object)))  # type: ignore[arg-type]
    return graphs


def expected_graphs(test: UpdateTest) -> dict[str, Graph]:
    """The result data by graph name, as :func:`store_graphs` gives the store's (each file read
    with its own IRI as base, as :func:`load_files` reads it, so a relative IRI means the same)."""
    graphs = read_graphs([(DEFAULT, p) for p in test.result_data] + list(test.result_graph_data))
    return {name: graph for name, graph in graphs.items() if len(graph)}


def _as_one_graph(graphs: dict[str, Graph]) -> Graph:
    """A dataset as one graph: each triple's predicate also names its graph. Graph names are IRIs
    here, so two datasets are isomorphic exactly when these graphs are, and a blank node shared
    by two graphs (as COPY makes) must map the same way in both. Literals as :func:`canonical`."""
    out = Graph()
    for name, graph in graphs.items():
        for s, p, o in graph:
            in_graph = URIRef(f"urn:x-conformance:{quote(name, safe='')}:{quote(str(p), safe='')}")
            out.add((s, in_graph, canonical(o)))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize(("manifest", "test"), _params())
def test_update_evaluation(endpoints: Endpoints, manifest: str, test: UpdateTest) -> None:
    endpoint = endpoints.get(manifest)
    load_files(endpoint.pg, [(p, None) for p in test.data] + [(p, name) for name, p in test.graph_data])
    request = test.request.read_text("utf-8")
    response = endpoint.client.post(
        "/sparql", content=request.encode("utf-8"), headers={"Content-Type": "application/sparql-update"}
    )
    assert response.is_success, f"{response.status_code}: {response.text}"
    actual, expected = store_graphs(endpoint.pg), expected_graphs(test)
    problems = [f"graphs: expected {sorted(expected)}, got {sorted(actual)}"] if set(actual) != set(expected) else []
    for name in sorted(set(actual) & set(expected)):
        problems += [f"<{name}>: {p}" for p in compare_graphs(expected[name], actual[name])]
    if not problems and not isomorphic(_as_one_graph(expected), _as_one_graph(actual)):
        problems.append("each graph is right, but blank nodes are not shared across graphs as expected")
    assert not problems, f"{test.iri}\n{request}\n" + "\n".join(problems)
