"""The SERVICE, LOAD and protected-graph rules are decided on the text the engine runs.

Every payload here was found to fool the earlier guard (its own lexer disagreed with Oxigraph's
parser) or to be read differently by Oxigraph's PEG parser than by a plain tokenizer; each is
checked against a real endpoint on 127.0.0.1 that records whether it was called, over the API and
over HTTP. The cross-check at the end runs generated variants through Oxigraph itself: whenever the
engine, given the text as written, calls the endpoint, the guard must have refused it or named it.
"""

from __future__ import annotations

import itertools
import random

import httpx
import pytest
from pyoxigraph import QuerySolutions, Store

from endpoint_trap import endpoint_trap
from helpers import ingest_aspirin, live_server
from provgraph import ProvGraph, QueryError, WriteRefusedError
from provgraph.http import ServerSettings
from provgraph.sparql_text import MAX_DEPTH, MAX_TOKENS, read
from provgraph.vocab import CATALOG_GRAPH

TOKEN = "guard-test-token"

#: Queries that call the endpoint {u} (written {u} or, escaped, {e}) in a way some reader misses.
HIDDEN_SERVICE_QUERIES = {
    "escaped-colon-in-iri": "SELECT * WHERE {{ SERVICE <{e}> {{ ?a ?b ?c }} }}",
    "escaped-everything": "SELECT * WHERE {{ SERVICE <{all}> {{ ?a ?b ?c }} }}",
    "quote-escape-in-prefixed-name": (
        "PREFIX ex: <http://example.org/> SELECT * WHERE {{ BIND(ex:a\\' AS ?x) SERVICE <{u}> {{ ?a ?b ?c }} }} # '"
    ),
    "keywords-run-together": "SELECT * WHERE {{ SERVICESILENT <{u}> {{ ?a ?b ?c }} }}",
    "keyword-before-prefixed-name": "PREFIX s: <{base}> SELECT * WHERE {{ SERVICEs:sparql {{ ?a ?b ?c }} }}",
    "keyword-before-empty-prefix": "PREFIX : <{base}> SELECT * WHERE {{ SERVICE:sparql {{ ?a ?b ?c }} }}",
    "carriage-return-ends-comment": "SELECT * WHERE {{ # note\rSERVICE <{u}> {{ ?a ?b ?c }} }}",
    "lower-case-no-spaces": "SELECT*WHERE{{service<{u}>{{?a ?b ?c}}}}",
    "inside-exists": "ASK {{ FILTER EXISTS {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "inside-minus": "SELECT * WHERE {{ {{}} MINUS {{ SERVICE SILENT <{u}> {{ ?a ?b ?c }} }} }}",
    "relative-to-base": "BASE <{base}> SELECT * WHERE {{ SERVICE <sparql> {{ ?a ?b ?c }} }}",
    "prefix-relative-to-base": "BASE <{base}> PREFIX x: <./> SELECT * WHERE {{ SERVICE x:sparql {{ ?a ?b ?c }} }}",
    "long-string-before": "SELECT * WHERE {{ BIND('''it's \"quoted\" '' ''' AS ?x) SERVICE <{u}> {{ ?a ?b ?c }} }}",
}


def _payload(template: str, url: str) -> str:
    base = url.rsplit("/", 1)[0] + "/"
    escaped = url.replace(":", "\\u003A", 1)
    every = "".join(f"\\u{ord(c):04X}" for c in url)
    return template.format(u=url, e=escaped, all=every, base=base)


@pytest.fixture
def trap():
    with endpoint_trap() as found:
        yield found


@pytest.mark.parametrize("name", sorted(HIDDEN_SERVICE_QUERIES))
def test_a_hidden_service_call_is_refused_and_nothing_is_fetched(name, trap):
    query = _payload(HIDDEN_SERVICE_QUERIES[name], trap.url)
    pg = ProvGraph.memory()
    with pytest.raises(QueryError) as refused:
        pg.query(query)
    assert "SERVICE" in str(refused.value) or "keyword" in str(refused.value) or "prefix" in str(refused.value)
    assert trap.hits == []


@pytest.mark.parametrize("name", sorted(HIDDEN_SERVICE_QUERIES))
def test_the_engine_does_call_what_the_payload_hides(name, trap):
    """The payloads are real: Oxigraph, given the text as written, calls the endpoint (so the
    refusal above is what stands between a request and the fetch)."""
    query = _payload(HIDDEN_SERVICE_QUERIES[name], trap.url)
    result = Store().query(query, base_iri=trap.url)
    if isinstance(result, QuerySolutions):
        list(result)
    assert trap.hits, "the payload no longer makes Oxigraph call the endpoint"


def test_an_allowed_service_is_called_as_written(trap):
    pg = ProvGraph.memory()
    query = _payload(HIDDEN_SERVICE_QUERIES["escaped-colon-in-iri"], trap.url)
    rows = pg.query(query, services=[trap.url]).rows()
    assert [str(r["a"]) for r in rows] == ['"trapped"'] and len(trap.hits) == 1


def test_over_http_the_payloads_get_400_and_fetch_nothing(trap):
    pg = ProvGraph.memory()
    with live_server(pg) as url:
        for name in sorted(HIDDEN_SERVICE_QUERIES):
            response = httpx.get(f"{url}/sparql", params={"query": _payload(HIDDEN_SERVICE_QUERIES[name], trap.url)})
            assert response.status_code == 400, name
    assert trap.hits == []


# ------------------------------------------------------------------------------------ updates


@pytest.fixture
def sourced() -> ProvGraph:
    pg = ProvGraph.memory()
    ingest_aspirin(pg)
    return pg


def _source_graph(pg: ProvGraph) -> str:
    graph = pg.sources()[0].current_graph
    assert graph is not None
    return graph


PROTECTED_WRITES = {
    "escaped-slashes-in-prefixed-name": (
        "PREFIX w: <https://w3id.org/> INSERT DATA {{ GRAPH w:provgraph\\/id\\/catalog "
        "{{ <{cat}> <https://w3id.org/provgraph/ns#hasSourceGraph> <https://w3id.org/provgraph/id/fake/v1> }} }}"
    ),
    "escaped-colon-in-iri": "DROP GRAPH <{src_escaped}>",
    "relative-to-base": "BASE <https://w3id.org/provgraph/x/> DROP GRAPH <../id/catalog>",
    "keywords-run-together": "DROPGRAPH <{src}>",
    "keyword-before-prefixed-name": "PREFIX g: <https://w3id.org/provgraph/id/> CLEAR GRAPHg:catalog",
    "with-escaped": "WITH <{cat_escaped}> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}",
    "move-into": "MOVE DEFAULT TO <{src_escaped}>",
}


@pytest.mark.parametrize("name", sorted(PROTECTED_WRITES))
def test_an_escaped_source_graph_or_catalog_write_is_refused(name, sourced):
    src = _source_graph(sourced)
    update = PROTECTED_WRITES[name].format(
        cat=CATALOG_GRAPH.value,
        cat_escaped=CATALOG_GRAPH.value.replace(":", "\\u003A", 1),
        src=src,
        src_escaped=src.replace(":", "\\u003A", 1),
    )
    before = sourced.export(format="nquads")
    with pytest.raises((WriteRefusedError, QueryError)):
        sourced.update(update)
    assert sourced.export(format="nquads") == before


def test_load_is_off_unless_allowed(trap):
    pg = ProvGraph.memory()
    with pytest.raises(QueryError, match="LOAD is off"):
        pg.update(f"LOAD <{trap.url}> INTO GRAPH <http://example.org/mine>")
    with pytest.raises(QueryError, match="LOAD is off"):
        pg.update(f"LOAD <{trap.url.replace(':', chr(92) + 'u003A', 1)}>")
    assert trap.hits == []
    pg.update(f"LOAD <{trap.url}> INTO GRAPH <http://example.org/mine>", loads=[trap.url])
    assert len(trap.hits) == 1 and pg.graph_exists("http://example.org/mine")


def test_load_silent_of_a_refused_source_is_a_no_op(trap):
    pg = ProvGraph.memory()
    pg.update(f"LOAD SILENT <{trap.url}> ; INSERT DATA {{ <http://example.org/a> <http://example.org/b> 1 }}")
    assert trap.hits == []
    assert len(pg.query("SELECT * WHERE { ?s ?p ?o }").rows()) == 1


def test_service_inside_an_update_is_refused(trap):
    pg = ProvGraph.memory()
    update = (
        f"INSERT {{ <http://example.org/x> <http://example.org/p> ?a }} WHERE {{ SERVICE <{trap.url}> {{ ?a ?b ?c }} }}"
    )
    with pytest.raises(QueryError, match="federated queries are off"):
        pg.update(update)
    assert trap.hits == []


@pytest.mark.parametrize(
    "graph",
    [
        "http://example.org/g> } ; DROP ALL ; INSERT { <a> <b> <c> } WHERE { <x",
        "not an iri",
        "http://example.org/a b",
    ],
)
def test_using_graph_uri_is_an_iri_not_text(graph, sourced):
    before = sourced.export(format="nquads")
    with pytest.raises(QueryError, match="not an absolute IRI"):
        sourced.update("DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", using_graphs=[graph])
    assert sourced.export(format="nquads") == before


def test_over_http_with_the_token_escaped_writes_get_409_and_load_400(sourced, trap):
    settings = ServerSettings.model_validate({"token": TOKEN})
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/sparql-update"}
    src = _source_graph(sourced)
    with live_server(sourced, settings) as url:
        drop = httpx.post(
            f"{url}/sparql", content=f"DROP GRAPH <{src.replace(':', chr(92) + 'u003A', 1)}>", headers=auth
        )
        assert drop.status_code == 409
        load = httpx.post(f"{url}/sparql", content=f"LOAD <{trap.url}>", headers=auth)
        assert load.status_code == 400 and "LOAD is off" in load.text
        using = httpx.post(
            f"{url}/sparql",
            params={"using-graph-uri": "http://x/> } ; DROP ALL ; INSERT { <a> <b> <c> } WHERE { <y"},
            content="DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
            headers=auth,
        )
        assert using.status_code == 400
    assert trap.hits == []
    assert sourced.graph_exists(src)


# ------------------------------------------------------------------------------------ limits


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("nested-groups", "SELECT * WHERE " + "{" * (MAX_DEPTH + 1) + "}" * (MAX_DEPTH + 1)),
        ("nested-parentheses", "SELECT (" + "(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1) + " AS ?x) {}"),
        ("chained-operators", "SELECT (1" + "+1" * MAX_TOKENS + " AS ?x) {}"),
        ("many-binds", "SELECT * WHERE { " + " ".join(f"BIND({i} AS ?v{i})" for i in range(MAX_TOKENS)) + " }"),
    ],
)
def test_queries_that_would_overflow_the_parser_are_refused_with_a_position(name, query):
    """Oxigraph's recursive parser kills the process at a few thousand levels (measured with
    pyoxigraph 0.5.13): these are refused before the engine sees them."""
    with pytest.raises(QueryError) as refused:
        ProvGraph.memory().query(query)
    assert refused.value.line == 1 and refused.value.column is not None


def test_large_data_blocks_are_not_limited():
    pg = ProvGraph.memory()
    rows = " ".join(f"<http://example.org/s{i}> <http://example.org/p> {i} ." for i in range(MAX_TOKENS))
    pg.update(f"INSERT DATA {{ {rows} }}")
    values = " ".join(str(i) for i in range(MAX_TOKENS * 2))
    result = pg.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ VALUES ?x {{ {values} }} }}").rows()
    assert result[0]["n"].value == str(MAX_TOKENS * 2)  # type: ignore[union-attr]


def test_positions_point_at_the_text_as_written():
    with pytest.raises(QueryError) as refused:
        ProvGraph.memory().query('SELECT * WHERE {\n  ?s ?p "caf\\u00E9" .\n  FILTER(?o = ) }')
    assert refused.value.line == 3


# ------------------------------------------------------------------------------------ cross-check

_PIECES = {
    "keyword": ["SERVICE", "service", "SeRvIcE", "SERVICESILENT", "SERVICE SILENT", "SERVICE\tSILENT"],
    "gap": [" ", "", "\n", "\r", "#c\n", "#c\r", " # SERVICE <x>\n", "\t"],
    "target": ["<%u%>", "<%e%>", "<%all%>", "t:sparql", ":sparql", "t:sp\\arql", "<sparql>"],
    "before": ["", "?s ?p ?o . ", "?s ?p t:a\\' . ", "BIND('x' AS ?q) ", "FILTER(?a<?b) ", '?s ?p "#" . '],
    "after": ["{ ?a ?b ?c }", "{?a ?b ?c}"],
}


def _variants(url: str, count: int) -> list[str]:
    """Deterministic mixes of the pieces above (a fixed seed: the same corpus on every run)."""
    rng = random.Random(1234)
    combos = list(itertools.product(*_PIECES.values()))
    rng.shuffle(combos)
    base = url.rsplit("/", 1)[0] + "/"
    escaped = url.replace(":", "\\u003A", 1)
    every = "".join(f"\\u{ord(c):04X}" for c in url)
    out = []
    for keyword, gap, target, before, after in combos[:count]:
        target = target.replace("%u%", url).replace("%e%", escaped).replace("%all%", every)
        body = f"{before}{keyword}{gap}{target}{gap}{after}"
        out.append(f"BASE <{base}> PREFIX t: <{base}> PREFIX : <{base}> SELECT * WHERE {{ {body} }}")
    return out


def test_generated_variants_the_engine_would_fetch_are_always_caught(trap):
    """For 400 generated queries: if Oxigraph, given the text as written, calls the endpoint, the
    guard either refused the text or names the endpoint among its SERVICE calls; and what the guard
    lets through, run as provgraph runs it, calls nothing the guard did not name."""
    engine_calls = caught = 0
    for query in _variants(trap.url, 400):
        trap.hits.clear()
        try:
            result = Store().query(query)
            if isinstance(result, QuerySolutions):
                list(result)
        except (SyntaxError, OSError, RuntimeError, ValueError):
            pass
        engine_called = bool(trap.hits)
        try:
            services = read(query).services()
        except QueryError:
            services = None
        if engine_called:
            engine_calls += 1
            assert services is None or trap.url in services, query
            caught += 1
        trap.hits.clear()
        if services is not None and trap.url not in services:
            try:
                ProvGraph.memory().query(query).rows()
            except QueryError:
                pass
            assert trap.hits == [], query
    assert engine_calls > 50 and caught == engine_calls  # the corpus does exercise the engine


# ------------------------------------------------------------------------------------ no pasting

#: Paths that, pasted into ``FILTER(?d = <...>)``, made a query of their own.
CRAFTED_KEYS = {
    "always-true": "http://example.org/nope> || true) #",
    "cartesian-exists": "http://example.org/nope> || EXISTS { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }) #",
    "deep-parentheses": "http://example.org/nope> = " + "(" * 5000 + "1" + ")" * 5000 + ") #",
    "closing-brace": "http://example.org/nope>) } } ; DROP ALL ; SELECT * { { ?s ?p ?o FILTER(?s = <x",
    "not-an-iri": "no such document",
}


@pytest.mark.parametrize("name", sorted(CRAFTED_KEYS))
def test_a_crafted_document_key_is_a_key_not_sparql(name, sourced):
    from provgraph import NotFoundError

    with pytest.raises(NotFoundError):
        sourced.source(CRAFTED_KEYS[name])
    with pytest.raises(NotFoundError):
        sourced.export(graph=CRAFTED_KEYS[name])


def test_over_http_crafted_paths_and_parameters_are_404_or_400(sourced):
    from urllib.parse import quote

    with live_server(sourced) as url:
        for name, key in sorted(CRAFTED_KEYS.items()):
            response = httpx.get(f"{url}/sources/{quote(key, safe='')}", timeout=60)
            assert response.status_code == 404, name
            response = httpx.get(f"{url}/export", params={"graph": key}, timeout=60)
            assert response.status_code == 404, name
        for parameter in ("subject", "predicate"):
            response = httpx.get(f"{url}/conflicts", params={parameter: "abc"}, timeout=60)
            assert response.status_code == 400 and parameter in response.text
        for name, key in sorted(CRAFTED_KEYS.items()):
            fact = {"subject": key, "predicate": "http://example.org/treats", "object": "http://example.org/headache"}
            response = httpx.get(f"{url}/evidence", params=fact, timeout=60)
            assert response.status_code == 400, name
            response = httpx.get(f"{url}/doc-relationships", params={"document": key}, timeout=60)
            assert response.status_code == 404, name
        assert httpx.get(f"{url}/sources").status_code == 200  # the server is still up


# ------------------------------------------------------------------------------------ messages


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELEC * WHERE { ?s ?p ?o }", "'SELEC' is not a SPARQL keyword"),
        ("SELECT * WHERE { ?s ex:p ?o }", "the prefix ex: is not declared"),
        ("SELECT * WHERE { ?s ?p 'abc }", "a string starts here and is not closed"),
        ("SELECT * WHERE { ?s ?p ?o", "the text ends before the query is complete: expected"),
        ("SELECT (COUNT(*) AS ?n WHERE { ?s ?p ?o }", "expected ')'"),
    ],
)
def test_syntax_errors_say_what_was_expected_under_the_line(query, expected):
    with pytest.raises(QueryError) as refused:
        ProvGraph.memory().query(query)
    message = str(refused.value)
    assert expected in message
    assert "..=" not in message and "\\u{" not in message  # no raw expectation lists
    _, shown, caret = message.splitlines()
    assert shown.strip() == query and caret.strip() == "^"
    assert caret.index("^") - 2 == refused.value.column - 1  # the caret under the column
