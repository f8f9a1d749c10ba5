"""Expected and actual results of the W3C SPARQL 1.1 tests: reading them and comparing them.

Every result becomes rdflib terms so that one comparison serves every format:

- SELECT results (SPARQL XML ``.srx``, JSON ``.srj``, TSV, CSV, and ``rs:ResultSet`` graphs in
  Turtle or RDF/XML) are a :class:`Solutions`: the variables and a list of solutions. They are
  equal when they hold the same multiset of solutions modulo one bijection between the blank
  nodes of the two results (a label names the same node across all rows). The order counts only
  when the query has an ORDER BY, and then only between rows whose sort keys differ (rows that
  tie may come in any order).
- ASK results are ``bool``.
- CONSTRUCT results and graphs compare by isomorphism.

Terms compare as RDF terms, except where RDF and XSD say two spellings are one value of one
datatype: numbers by value within their datatype (``"1.0"^^xsd:decimal`` is ``"1.00"``), language
tags without regard to case, and a simple literal is an ``xsd:string``. CSV keeps neither
datatypes nor blank node labels (SPARQL 1.1 CSV/TSV, section 4), so a CSV cell is its text and
cells written ``_:label`` are blank nodes up to renaming.

The module also reads the manifests, and runs the store and the server the tests talk to.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname
from xml.etree import ElementTree

import httpx
import pyoxigraph as ox
from rdflib import RDF, RDFS, XSD, BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic, to_isomorphic
from rdflib.term import Node

from helpers import live_server
from provgraph import ProvGraph
from provgraph.http import ServerSettings

Term = URIRef | BNode | Literal
#: A solution as (variable, term) pairs sorted by variable: hashable, unbound variables left out.
Row = tuple[tuple[str, Term], ...]

RS = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/result-set#")
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
_SRX = "{http://www.w3.org/2005/sparql-results#}"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

_INTEGER_TYPES = {
    XSD.integer,
    XSD.nonPositiveInteger,
    XSD.negativeInteger,
    XSD.long,
    XSD.int,
    XSD.short,
    XSD.byte,
    XSD.nonNegativeInteger,
    XSD.unsignedLong,
    XSD.unsignedInt,
    XSD.unsignedShort,
    XSD.unsignedByte,
    XSD.positiveInteger,
}


@dataclass
class Solutions:
    """A SELECT result: its variables and solutions (unbound variables absent from a solution)."""

    variables: list[str]
    rows: list[dict[str, Term]] = field(default_factory=list)


Result = Solutions | bool | Graph


# ---------------------------------------------------------------------------------------- terms


def canonical(term: Term) -> Term:
    """``term`` with the spelling differences RDF and XSD give no meaning removed: the canonical
    lexical form of a number (compared within its own datatype, never across datatypes), a
    lower-case language tag, and ``xsd:string`` for a simple literal. Ill-typed literals stay as
    they are: they are equal only to themselves."""
    if not isinstance(term, Literal):
        return term
    if term.language:
        return Literal(str(term), lang=term.language.lower())
    datatype = term.datatype
    if datatype is None or datatype == XSD.string:
        return Literal(str(term))
    lexical = str(term).strip()
    try:
        if datatype in _INTEGER_TYPES:
            if not re.fullmatch(r"[+-]?\d+", lexical):
                return term
            return Literal(str(int(lexical)), datatype=datatype)
        if datatype == XSD.decimal:
            if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", lexical):
                return term
            value = Decimal(lexical)
            text = format(value.normalize(), "f") if value else "0"
            return Literal(text if "." in text else text + ".0", datatype=datatype)
        if datatype in (XSD.double, XSD.float):
            if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN", lexical):
                return term
            number = float(lexical)
            if datatype == XSD.float and math.isfinite(number):
                # xsd:float is single precision: compare at that precision.
                number = float(f"{number:.7g}")
            return Literal(repr(number), datatype=datatype)
    except (InvalidOperation, ValueError):
        return term
    return term


def _row(solution: dict[str, Term]) -> Row:
    return tuple(sorted((var, canonical(term)) for var, term in solution.items()))


def show(term: Node | None) -> str:
    return "UNDEF" if term is None else term.n3()


# ---------------------------------------------------------------------------------------- readers


def read_srx(data: bytes) -> Solutions | bool:
    """SPARQL 1.1 Query Results XML."""
    root = ElementTree.fromstring(data)
    boolean = root.find(f"{_SRX}boolean")
    if boolean is not None:
        return (boolean.text or "").strip() == "true"
    head = root.find(f"{_SRX}head")
    variables = [v.attrib["name"] for v in head.iter(f"{_SRX}variable")] if head is not None else []
    out = Solutions(variables)
    results = root.find(f"{_SRX}results")
    for result in results.iter(f"{_SRX}result") if results is not None else []:
        row: dict[str, Term] = {}
        for binding in result.findall(f"{_SRX}binding"):
            [value] = list(binding)
            row[binding.attrib["name"]] = _srx_term(value)
        out.rows.append(row)
    return out


def _srx_term(element: ElementTree.Element) -> Term:
    tag = element.tag.removeprefix(_SRX)
    text = element.text or ""
    if tag == "uri":
        return URIRef(text.strip())
    if tag == "bnode":
        return BNode(text.strip())
    if tag == "literal":
        if _XML_LANG in element.attrib:
            return Literal(text, lang=element.attrib[_XML_LANG])
        datatype = element.attrib.get("datatype")
        return Literal(text, datatype=URIRef(datatype) if datatype else None)
    raise ValueError(f"unexpected term <{tag}> in SPARQL XML results")


def read_srj(data: bytes) -> Solutions | bool:
    """SPARQL 1.1 Query Results JSON."""
    document = json.loads(data)
    if "boolean" in document:
        return bool(document["boolean"])
    out = Solutions(list(document["head"].get("vars", [])))
    for binding in document["results"]["bindings"]:
        out.rows.append({var: _srj_term(value) for var, value in binding.items()})
    return out


def _srj_term(value: dict[str, str]) -> Term:
    kind = value["type"]
    if kind == "uri":
        return URIRef(value["value"])
    if kind == "bnode":
        return BNode(value["value"])
    if kind in ("literal", "typed-literal"):  # typed-literal: the 2008 Working Group Note's name
        if "xml:lang" in value:
            return Literal(value["value"], lang=value["xml:lang"])
        datatype = value.get("datatype")
        return Literal(value["value"], datatype=URIRef(datatype) if datatype else None)
    raise ValueError(f"unexpected term type {kind!r} in SPARQL JSON results")


_TSV_NUMBER = re.compile(r"[+-]?(?:(\d+)|(\d*\.\d+)|((?:\d+\.?\d*|\.\d+)[eE][+-]?\d+))")
_TSV_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<([^>]*)>)?')
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "uU":
            return chr(int(escape[1:], 16))
        return _ESCAPES[escape]

    return re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", one, text)


def _tsv_term(cell: str) -> Term:
    """A term in TSV (Turtle syntax, SPARQL 1.1 CSV/TSV section 3.2)."""
    if cell.startswith("<") and cell.endswith(">"):
        return URIRef(_unescape(cell[1:-1]))
    if cell.startswith("_:"):
        return BNode(cell[2:])
    literal = _TSV_LITERAL.fullmatch(cell)
    if literal:
        lexical, lang, datatype = literal.groups()
        if lang:
            return Literal(_unescape(lexical), lang=lang)
        return Literal(_unescape(lexical), datatype=URIRef(datatype) if datatype else None)
    if cell in ("true", "false"):
        return Literal(cell, datatype=XSD.boolean)
    number = _TSV_NUMBER.fullmatch(cell)
    if number:
        datatype = XSD.integer if number.group(1) else XSD.decimal if number.group(2) else XSD.double
        return Literal(cell, datatype=datatype)
    raise ValueError(f"not a term in TSV results: {cell!r}")


def read_tsv(data: bytes) -> Solutions:
    """SPARQL 1.1 TSV results: a header of ``?var`` names, then one row per solution, an empty
    field for an unbound variable."""
    lines = data.decode("utf-8").removesuffix("\n").split("\n")
    header = lines[0].removesuffix("\r").split("\t")
    out = Solutions([name.removeprefix("?").removeprefix("$") for name in header if name])
    for line in lines[1:]:
        cells = line.removesuffix("\r").split("\t")
        if len(cells) != len(out.variables):
            raise ValueError(f"TSV row with {len(cells)} fields under {len(out.variables)} variables: {line!r}")
        out.rows.append({var: _tsv_term(cell) for var, cell in zip(out.variables, cells, strict=True) if cell})
    return out


def read_csv(data: bytes) -> Solutions:
    """SPARQL 1.1 CSV results. CSV keeps no types: every cell becomes a plain literal of its text
    (IRIs included), except ``_:label`` cells, which are blank nodes; an empty cell is unbound
    (CSV cannot tell it from an empty string)."""
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    rows = list(reader)
    out = Solutions(rows[0] if rows else [])
    for cells in rows[1:]:
        if not cells:  # the csv module reads an empty line (one unbound variable) as no fields
            cells = [""]
        if len(cells) != len(out.variables):
            raise ValueError(f"CSV row with {len(cells)} fields under {len(out.variables)} variables: {cells!r}")
        out.rows.append(
            {
                var: BNode(cell[2:]) if cell.startswith("_:") else Literal(cell)
                for var, cell in zip(out.variables, cells, strict=True)
                if cell != ""
            }
        )
    return out


def read_result_graph(graph: Graph) -> Result:
    """An RDF graph that is either a result set in the DAWG ``rs:`` vocabulary (SELECT or ASK)
    or, otherwise, a CONSTRUCT result."""
    result_set = next(iter(graph.subjects(RDF.type, RS.ResultSet)), None)
    if result_set is None:
        return graph
    boolean = graph.value(result_set, RS.boolean)
    if boolean is not None:
        return bool(boolean.toPython()) if isinstance(boolean, Literal) else False
    variables = sorted(str(v) for v in graph.objects(result_set, RS.resultVariable))
    out = Solutions(variables)
    # Solutions may carry an rs:index (their place in an ordered result): keep that order.
    indexed: list[tuple[int, dict[str, Term]]] = []
    for solution in graph.objects(result_set, RS.solution):
        row: dict[str, Term] = {}
        for binding in graph.objects(solution, RS.binding):
            value = graph.value(binding, RS.value)
            assert isinstance(value, URIRef | BNode | Literal)
            row[str(graph.value(binding, RS.variable))] = value
        index = graph.value(solution, RS["index"])  # RS.index would be str.index
        indexed.append((int(str(index)) if index is not None else 0, row))
    out.rows = [row for _, row in sorted(indexed, key=lambda pair: pair[0])]
    return out


_RDF_SUFFIXES = {".ttl": "turtle", ".nt": "nt", ".rdf": "xml", ".n3": "n3"}


def read_rdf(path: Path, base: str | None = None) -> Graph:
    graph = Graph()
    graph.parse(path, format=_RDF_SUFFIXES[path.suffix], publicID=base or path.resolve().as_uri())
    return graph


def read_graphs(files: Sequence[tuple[str, Path]]) -> dict[str, Graph]:
    """Graphs by name from ``(name, file)`` pairs, a name given twice being the merge of its
    files. A file named twice is read once, so its blank nodes are the same in each graph."""
    parsed: dict[Path, Graph] = {}
    graphs: dict[str, Graph] = {}
    for name, path in files:
        if path not in parsed:
            parsed[path] = read_rdf(path)
        graph = graphs.setdefault(name, Graph())
        for triple in parsed[path]:
            graph.add(triple)
    return graphs


def read_expected(path: Path) -> Result:
    """The expected result of a test, by the file's extension."""
    suffix = path.suffix
    if suffix == ".srx":
        return read_srx(path.read_bytes())
    if suffix == ".srj":
        return read_srj(path.read_bytes())
    if suffix == ".tsv":
        return read_tsv(path.read_bytes())
    if suffix == ".csv":
        return read_csv(path.read_bytes())
    if suffix in _RDF_SUFFIXES:
        return read_result_graph(read_rdf(path))
    raise ValueError(f"no reader for expected results {path.name}")


def accept_for(path: Path, expected: Result) -> str:
    """The media type to ask the endpoint for: the expected file's own format, SPARQL XML for
    a result set written in RDF, and Turtle for a graph."""
    if isinstance(expected, Graph):
        return "text/turtle"
    return {
        ".srj": "application/sparql-results+json",
        ".tsv": "text/tab-separated-values",
        ".csv": "text/csv",
    }.get(path.suffix, "application/sparql-results+xml")


def read_response(media_type: str, body: bytes) -> Result:
    """An endpoint's answer, by its Content-Type."""
    media = media_type.split(";", 1)[0].strip().lower()
    if media == "application/sparql-results+xml":
        return read_srx(body)
    if media == "application/sparql-results+json":
        return read_srj(body)
    if media == "text/tab-separated-values":
        return read_tsv(body)
    if media == "text/csv":
        return read_csv(body)
    rdf = {"text/turtle": "turtle", "application/n-triples": "nt", "application/rdf+xml": "xml"}
    if media in rdf:
        graph = Graph()
        graph.parse(data=body, format=rdf[media])
        return graph
    raise ValueError(f"no reader for an answer of type {media_type}")


# ---------------------------------------------------------------------------------------- ORDER BY

_SKIP = re.compile(
    r"""\#[^\n]*|<[^<>"{}|^`\\\s]*>|"""
    r'''"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*\''''
)


_SIMPLE_KEYS = re.compile(r"(?:\s*(?:(?:ASC|DESC)\s*\(\s*[?$]\w+\s*\)|[?$]\w+))+\s*", re.I)


def order_keys(query: str) -> list[str] | None:
    """The sort keys of the query's own (outermost) ORDER BY: ``None`` when it has none, else
    the variables it sorts by, or ``[]`` when a key is an expression (then every row is its own
    tie group and the order is compared row by row). A subquery's ORDER BY orders nothing."""
    # Blank out comments, IRIs and strings (keeping offsets), so braces and keywords are code.
    text = _SKIP.sub(lambda m: " " * len(m.group()), query)
    depth = 0
    for match in re.finditer(r"[{}]|\bORDER\s+BY\b", text, flags=re.I):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            clause = re.split(r"\b(?:LIMIT|OFFSET|VALUES)\b", text[match.end() :], flags=re.I)[0]
            if not _SIMPLE_KEYS.fullmatch(clause):
                return []
            return [name[1:] for name in re.findall(r"[?$]\w+", clause)]
    return None


# ---------------------------------------------------------------------------------------- comparing


def _bnodes(row: Row) -> bool:
    return any(isinstance(term, BNode) for _, term in row)


def _shape(row: Row) -> Row:
    """The row with every blank node made the same: rows that can match have the same shape."""
    return tuple((var, BNode("_") if isinstance(term, BNode) else term) for var, term in row)


def _assign(
    expected: Sequence[Row], candidates: Sequence[list[int]], actual: Sequence[Row]
) -> dict[BNode, BNode] | None:
    """Match every expected row to a distinct actual row among its candidates, under one
    bijection of blank nodes; the bijection, or None. Depth-first, the most constrained row first."""
    order = sorted(range(len(expected)), key=lambda i: len(candidates[i]))
    forward: dict[BNode, BNode] = {}
    backward: dict[BNode, BNode] = {}
    used: set[int] = set()

    def bind(e_row: Row, a_row: Row) -> list[BNode] | None:
        added: list[BNode] = []
        for (_, e), (_, a) in zip(e_row, a_row, strict=True):
            if not isinstance(e, BNode):
                continue
            assert isinstance(a, BNode)
            mapped = forward.get(e)
            if mapped is None:
                if a in backward:
                    break
                forward[e], backward[a] = a, e
                added.append(e)
            elif mapped != a:
                break
        else:
            return added
        for e in added:
            del backward[forward.pop(e)]
        return None

    def search(k: int) -> bool:
        if k == len(order):
            return True
        i = order[k]
        for j in candidates[i]:
            if j in used:
                continue
            added = bind(expected[i], actual[j])
            if added is None:
                continue
            used.add(j)
            if search(k + 1):
                return True
            used.discard(j)
            for e in added:
                del backward[forward.pop(e)]
        return False

    return dict(forward) if search(0) else None


def _groups(rows: Sequence[Row], keys: list[str] | None) -> list[int]:
    """The tie group of each row: all 0 without ORDER BY; with it, consecutive rows whose sort
    keys are equal share a group (their order is not defined)."""
    if keys is None:
        return [0] * len(rows)
    out: list[int] = []
    previous: tuple[Term | None, ...] | None = None
    for position, row in enumerate(rows):
        values = dict(row)
        current = tuple(values.get(k) for k in keys) if keys else (Literal(position),)
        tied = current == previous and not any(isinstance(v, BNode) for v in current)
        out.append(out[-1] if tied else len(out))
        previous = current
    return out


def compare_solutions(expected: Solutions, actual: Solutions, *, order: list[str] | None) -> list[str]:
    """Why ``actual`` differs from ``expected`` (empty: they are equal). ``order`` is the query's
    ORDER BY keys as :func:`order_keys` gives them."""
    problems: list[str] = []
    if sorted(expected.variables) != sorted(actual.variables):
        problems.append(f"variables: expected {sorted(expected.variables)}, got {sorted(actual.variables)}")
    e_rows = [_row(r) for r in expected.rows]
    a_rows = [_row(r) for r in actual.rows]
    if len(e_rows) != len(a_rows):
        problems.append(f"{len(a_rows)} solutions instead of {len(e_rows)}")
    missing = Counter(_shape(r) for r in e_rows) - Counter(_shape(r) for r in a_rows)
    extra = Counter(_shape(r) for r in a_rows) - Counter(_shape(r) for r in e_rows)
    for label, rows in (("missing", missing), ("unexpected", extra)):
        for row, count in sorted(rows.items(), key=str)[:20]:
            problems.append(f"{label}{f' x{count}' if count > 1 else ''}: " + _show_row(row))
    if problems:
        return problems
    # Same solutions up to blank node labels; now the bijection, and the order if it counts.
    if order and not set(order) <= set(expected.variables):
        order = []  # a sort key that is not projected: ties cannot be seen, so compare row by row
    groups = _groups(e_rows, order)
    searched: list[int] = []
    candidates: list[list[int]] = []
    for i, e in enumerate(e_rows):
        # Without an order, rows without blank nodes are equal as multisets already (checked
        # above) and take no part in the bijection; with one, every row must sit in its tie group.
        if order is None and not _bnodes(e):
            continue
        shape = _shape(e)
        searched.append(i)
        candidates.append(
            [j for j in range(len(a_rows)) if _shape(a_rows[j]) == shape and (order is None or groups[j] == groups[i])]
        )
    if searched and _assign([e_rows[i] for i in searched], candidates, a_rows) is None:
        if order is not None:
            shown = "\n".join(
                f"  #{n}: expected {_show_row(e)}\n       got      {_show_row(a)}"
                for n, (e, a) in enumerate(zip(e_rows, a_rows, strict=True))
                if _shape(e) != _shape(a)
            )
            return [f"the solutions are right but not in the order of ORDER BY {order}:\n{shown}"]
        return ["no bijection between the blank nodes of the expected and the actual solutions"]
    return []


def _show_row(row: Row) -> str:
    return "{" + ", ".join(f"?{var}={show(term)}" for var, term in row) + "}"


def _canonical_graph(graph: Graph) -> Graph:
    out = Graph()
    for s, p, o in graph:
        out.add((s, p, canonical(o)))  # type: ignore[arg-type]
    return out


def compare_graphs(expected: Graph, actual: Graph) -> list[str]:
    """Why two graphs are not isomorphic (empty: they are), literals compared as :func:`canonical`."""
    e, a = _canonical_graph(expected), _canonical_graph(actual)
    if isomorphic(e, a):
        return []
    e_iso, a_iso = to_isomorphic(e), to_isomorphic(a)
    problems = [f"{len(a)} triples instead of {len(e)}"] if len(a) != len(e) else []
    ground_e = {t for t in e if not any(isinstance(x, BNode) for x in t)}
    ground_a = {t for t in a if not any(isinstance(x, BNode) for x in t)}
    problems += [f"missing: {' '.join(x.n3() for x in t)} ." for t in sorted(ground_e - ground_a)[:20]]
    problems += [f"unexpected: {' '.join(x.n3() for x in t)} ." for t in sorted(ground_a - ground_e)[:20]]
    if not problems:
        problems.append(
            "the graphs differ in their blank node structure:\n"
            + e_iso.serialize(format="nt")
            + "---\n"
            + a_iso.serialize(format="nt")
        )
    return problems


def compare(expected: Result, actual: Result, *, order: list[str] | None = None) -> list[str]:
    """Why ``actual`` is not ``expected`` (empty: it is)."""
    if isinstance(expected, bool):
        if not isinstance(actual, bool):
            return [f"expected the boolean {expected}, got {type(actual).__name__}"]
        return [] if actual == expected else [f"expected {expected}, got {actual}"]
    if isinstance(expected, Graph):
        if not isinstance(actual, Graph):
            return [f"expected a graph, got {type(actual).__name__}"]
        return compare_graphs(expected, actual)
    if not isinstance(actual, Solutions):
        return [f"expected solutions, got {type(actual).__name__}"]
    return compare_solutions(expected, actual, order=order)


# ---------------------------------------------------------------------------------------- manifests


def file_of(node: Node) -> Path:
    """The local file a manifest names (manifests are read with their file: URI as base)."""
    assert isinstance(node, URIRef) and node.startswith("file:"), node
    return Path(url2pathname(urlparse(str(node)).path))


@dataclass(frozen=True)
class Entry:
    """One test of a manifest: its IRI and type, and the manifest graph to read the rest from."""

    iri: str
    type: URIRef
    node: URIRef
    graph: Graph = field(compare=False, repr=False)

    def value(self, subject: Node, predicate: URIRef) -> Node | None:
        return self.graph.value(subject, predicate)  # type: ignore[arg-type]

    def values(self, subject: Node, predicate: URIRef) -> list[Node]:
        return sorted(self.graph.objects(subject, predicate), key=str)  # type: ignore[arg-type]

    def labelled_graphs(self, subject: Node) -> list[tuple[str, Path]]:
        """The ``ut:graphData [ ut:graph <file> ; rdfs:label "graph IRI" ]`` of an update test."""
        return sorted(
            (str(self.value(g, RDFS.label)), file_of(self.value(g, UT.graph)))  # type: ignore[arg-type]
            for g in self.values(subject, UT.graphData)
        )


def manifest_entries(path: Path) -> list[Entry]:
    """The tests of a manifest, in its ``mf:entries`` order."""
    graph = Graph()
    graph.parse(path, format="turtle", publicID=path.resolve().as_uri())
    out = []
    for manifest in graph.subjects(RDF.type, MF.Manifest):
        for node in Collection(graph, graph.value(manifest, MF.entries)):  # type: ignore[arg-type]
            assert isinstance(node, URIRef)
            out.append(Entry(str(node), graph.value(node, RDF.type), node, graph))  # type: ignore[arg-type]
    return out


# ---------------------------------------------------------------------------------------- the endpoint


def load_files(pg: ProvGraph, files: Sequence[tuple[Path, str | None]]) -> None:
    """Empty the store, then load ``files`` (each with the IRI of its graph, ``None`` for the
    default graph) straight through the backend, in one transaction. Each file is read with its
    own IRI as base and is its own blank node scope (its blank nodes get fresh labels); a file
    named twice is read once, so the two graphs share its blank nodes, as :func:`read_graphs`
    reads expected results."""
    pg.backend.update("DROP ALL")
    parsed: dict[Path, list[ox.Quad]] = {}
    quads: list[ox.Quad] = []
    for path, name in files:
        graph = ox.DefaultGraph() if name is None else ox.NamedNode(name)
        if path not in parsed:
            parsed[path] = list(ox.parse(path=path, base_iri=path.as_uri(), rename_blank_nodes=True))
        quads += [ox.Quad(q.subject, q.predicate, q.object, graph) for q in parsed[path]]
    buffer = io.BytesIO()
    ox.serialize(quads, buffer, ox.RdfFormat.N_QUADS)
    buffer.seek(0)
    pg.backend.load_dataset(buffer, ox.RdfFormat.N_QUADS)


@dataclass
class Endpoint:
    """A store and the live server over it, with an HTTP client for that server."""

    manifest: str
    pg: ProvGraph
    client: httpx.Client


class Endpoints:
    """One store and one live server per manifest, at most one running at a time. Tests come
    manifest by manifest (the parametrisation's order), so asking for the next manifest's endpoint
    stops the previous one. (A module-scoped fixture parametrised per test would not do: pytest
    groups such tests by parameter index, which differs for every test.)"""

    def __init__(self, settings: ServerSettings, headers: dict[str, str] | None = None) -> None:
        self._settings = settings
        self._headers = headers or {}
        self._stack: contextlib.ExitStack | None = None
        self._current: Endpoint | None = None

    def get(self, manifest: str) -> Endpoint:
        if self._current is not None and self._current.manifest == manifest:
            return self._current
        self.close()
        stack = contextlib.ExitStack()
        pg = ProvGraph.memory()
        stack.callback(pg.close)
        url = stack.enter_context(live_server(pg, self._settings))
        client = stack.enter_context(httpx.Client(base_url=url, timeout=60, headers=self._headers))
        self._stack, self._current = stack, Endpoint(manifest, pg, client)
        return self._current

    def close(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack = self._current = None


__all__ = [
    "Endpoint",
    "Endpoints",
    "Entry",
    "Result",
    "Solutions",
    "accept_for",
    "canonical",
    "compare",
    "compare_graphs",
    "compare_solutions",
    "file_of",
    "load_files",
    "manifest_entries",
    "order_keys",
    "read_csv",
    "read_expected",
    "read_graphs",
    "read_rdf",
    "read_response",
    "read_result_graph",
    "read_srj",
    "read_srx",
    "read_tsv",
]
