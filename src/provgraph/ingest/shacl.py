"""SHACL shapes compiled to Python checks: the built-in shapes validated without pySHACL.

pySHACL spends about 0.4 ms of CPU per statement even over an Oxigraph data graph: it was most of
an ingest's cost (issue 13). The built-in shapes use a small part of SHACL Core (class targets,
IRI and inverse paths, counts, node kinds, datatypes, lengths, patterns, value lists, classes,
ranges, ``sh:lessThan``, ``sh:or``, a qualified count) and one ``sh:sparql`` constraint (the
reified triple is asserted in the same graph). :func:`compile_shapes` turns a shapes graph that
uses only those into a :class:`CompiledShapes`, which validates N-Triples lines indexed in dicts
and gives pySHACL's results: the same focus nodes, paths, values, messages, severities, source
shapes and constraint components.

To give the same results, each check mirrors the code of pySHACL's constraint component, and
sees value nodes as pySHACL sees them: terms as Oxigraph stores them (literals in canonical
form: ``"01"^^xsd:integer`` is ``"1"``), converted to rdflib terms as pySHACL converts them. That
conversion costs tens of microseconds, so it is made once per distinct literal a check inspects
(confidences, timestamps, tiers); the per-statement work is dict lookups and string tests.
A shapes graph using anything else (other targets or paths, ``sh:closed``, other SPARQL, shapes
without ``sh:message``) does not compile, and is validated by pySHACL. ``tests/test_shacl.py``
runs both over valid data and a corpus of broken data and compares every result.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import rdflib
from pyshacl.rdfutil.compare import compare_literal
from rdflib.namespace import RDF, RDFS, SH, XSD

from provgraph.errors import ProvGraphError
from provgraph.models import ValidationIssue
from provgraph.store.scratch import StoredForm
from provgraph.store.terms import BlankNode, NamedNode, RdfFormat, parse
from provgraph.store.terms import Literal as OxLiteral

RDF_TYPE = f"<{RDF.type}>"
SUBCLASS_OF = f"<{RDFS.subClassOf}>"

#: The one SPARQL constraint compiled: the query of shapes/statement.ttl, whitespace collapsed.
ASSERTED_TRIPLE_QUERY = (
    "SELECT $this WHERE { $this rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o . FILTER NOT EXISTS { ?s ?p ?o } }"
)

#: Parameters of a shape this module understands; a shape with any other sh: predicate does not
#: compile. sh:name, sh:description, sh:order and sh:group only label results pySHACL does not
#: show differently.
_KNOWN = {
    SH.targetClass,
    SH.property,
    SH.path,
    SH.message,
    SH.severity,
    SH.deactivated,
    SH.minCount,
    SH.maxCount,
    SH.nodeKind,
    SH.datatype,
    SH.minLength,
    SH.maxLength,
    SH.pattern,
    SH["in"],
    SH.hasValue,
    SH["class"],
    SH.minInclusive,
    SH.maxInclusive,
    SH.minExclusive,
    SH.maxExclusive,
    SH.lessThan,
    SH["or"],
    SH.qualifiedValueShape,
    SH.qualifiedMaxCount,
    SH.sparql,
    SH.name,
    SH.description,
    SH.order,
    SH.group,
}
_SHAPE_TYPES = {SH.NodeShape, SH.PropertyShape}
_NODE_KINDS = {
    SH.IRI: (False, True, False),  # (blank node, IRI, literal) match
    SH.BlankNode: (True, False, False),
    SH.Literal: (False, False, True),
    SH.BlankNodeOrIRI: (True, True, False),
    SH.BlankNodeOrLiteral: (True, False, True),
    SH.IRIOrLiteral: (False, True, True),
}


class UnsupportedShapesError(Exception):
    """The shapes graph uses something :func:`compile_shapes` does not compile."""


# ---------------------------------------------------------------------- terms


def _kind(term: str) -> int:
    """0 blank node, 1 IRI, 2 literal, 3 triple term (N-Triples syntax)."""
    first = term[0]
    if first == "<":
        return 3 if term.startswith("<<") else 1
    if first == '"':
        return 2
    return 0


class _Terms:
    """N-Triples terms as pySHACL sees them over an Oxigraph data graph: the canonical form
    Oxigraph stores, then rdflib's term as pySHACL's ``to_rdf`` makes it. Cached: the checks ask
    about few distinct literals."""

    LIMIT = 100_000

    def __init__(self) -> None:
        self._stored = StoredForm()
        self._canonical: dict[str, str] = {}
        self._rdflib: dict[str, Any] = {}

    def _oxigraph(self, term: str) -> Any:
        """The term as Oxigraph stores it."""
        (triple,) = parse(f"<urn:x> <urn:x> {term} .\n".encode(), format=RdfFormat.N_TRIPLES)
        value = triple.object
        return self._stored(value) if isinstance(value, OxLiteral) else value

    def canonical(self, term: str) -> str:
        if term[0] != '"':
            return term
        found = self._canonical.get(term)
        if found is None:
            found = str(self._oxigraph(term))
            if len(self._canonical) >= self.LIMIT:
                self._canonical.clear()
            self._canonical[term] = found
        return found

    def rdflib(self, term: str) -> Any:
        found = self._rdflib.get(term)
        if found is None:
            found = self._convert(term)
            if len(self._rdflib) >= self.LIMIT:
                self._rdflib.clear()
            self._rdflib[term] = found
        return found

    def _convert(self, term: str) -> Any:
        kind = _kind(term)
        if kind == 0:
            return rdflib.BNode(term[2:])
        if kind == 1 and "\\" not in term:
            return rdflib.URIRef(term[1:-1])
        value = self._oxigraph(term)
        if isinstance(value, OxLiteral):  # as pyshacl.graph_abstraction.to_rdf
            if value.language is not None:
                return rdflib.Literal(value.value, lang=value.language)
            return rdflib.Literal(value.value, datatype=rdflib.URIRef(value.datatype.value))
        if isinstance(value, BlankNode):
            return rdflib.BNode(value.value)
        return rdflib.URIRef(value.value if isinstance(value, NamedNode) else str(value))

    def shown(self, term: str) -> str:
        """A term as a validation issue shows it (:func:`provgraph.ingest.validate._term`)."""
        node = self.rdflib(self.canonical(term))
        if isinstance(node, rdflib.URIRef):
            return str(node)
        if isinstance(node, rdflib.BNode):
            return f"_:{node}"
        with warnings.catch_warnings():  # rdflib warns about an ill-typed number it shows
            warnings.simplefilter("ignore")
            return str(node.n3())


_TERMS = _Terms()


# ---------------------------------------------------------------------- the data graph


class _Graph:
    """The triples of one chunk, indexed for the compiled shapes."""

    __slots__ = ("_instances", "_lines", "by_class", "forward", "inverse", "lines_seen", "sub_classes")

    def __init__(self, lines: Sequence[str], forward: Iterable[str], inverse: Iterable[str]) -> None:
        # The loop runs once per triple of every ingest: one split and one lookup for a triple
        # no shape looks at; rdf:type and rdfs:subClassOf are inverted afterwards.
        forward = set(forward)
        index: dict[str, dict[str, list[str]]] = {p: {} for p in (*forward, RDF_TYPE, SUBCLASS_OF)}
        back: dict[str, dict[str, list[str]]] = {p: {} for p in inverse}
        get = index.get
        for line in lines:
            s, p, o = line.split(" ", 2)
            values = get(p)
            if values is not None:
                found = values.get(s)
                if found is None:
                    values[s] = [o]
                else:
                    found.append(o)
        for p, subjects in back.items():
            for s, objects in index[p].items():
                for o in objects:
                    subjects.setdefault(o, []).append(s)
        by_class: dict[str, set[str]] = {}
        for s, classes in index[RDF_TYPE].items():
            for o in classes:
                members = by_class.get(o)
                if members is None:
                    by_class[o] = {s}
                else:
                    members.add(s)
        sub_classes: dict[str, list[str]] = {}
        for s, supers in (index[SUBCLASS_OF] if SUBCLASS_OF in forward else index.pop(SUBCLASS_OF)).items():
            for o in supers:
                sub_classes.setdefault(o, []).append(s)
        self.forward = index
        self.inverse = back
        self.by_class = by_class
        self.sub_classes = sub_classes
        self._lines = lines
        self.lines_seen: set[str] | None = None
        self._instances: dict[str, set[str]] = {}

    def instances(self, cls: str) -> set[str]:
        """SHACL instances of ``cls``: rdf:type/rdfs:subClassOf* in this graph."""
        found = self._instances.get(cls)
        if found is None:
            if not self.sub_classes:
                found = self.by_class.get(cls, set())
            else:
                found = set()
                classes, todo = {cls}, [cls]
                while todo:
                    for sub in self.sub_classes.get(todo.pop(), ()):
                        if sub not in classes:
                            classes.add(sub)
                            todo.append(sub)
                for c in classes:
                    found |= self.by_class.get(c, set())
            self._instances[cls] = found
        return found

    def values(self, focus: str, path: str, inverse: bool) -> list[str]:
        """The distinct value nodes of ``focus`` on ``path`` (two spellings of one literal, which
        Oxigraph stores as one term, are one value)."""
        found = (self.inverse if inverse else self.forward)[path].get(focus)
        if not found:
            return []
        if len(found) == 1:
            return found
        distinct = set(found)
        if len(distinct) > 1 and any(v[0] == '"' for v in distinct):
            distinct = {_TERMS.canonical(v) for v in distinct}
        return list(distinct)

    def asserted(self, s: str, p: str, o: str) -> bool:
        """Whether the triple is in the graph (as Oxigraph would match it)."""
        if self.lines_seen is None:
            self.lines_seen = set(self._lines)
        if f"{s} {p} {o}" in self.lines_seen:
            return True
        if o[0] != '"':
            return False
        wanted = _TERMS.canonical(o)
        prefix = f"{s} {p} "
        return any(
            line.startswith(prefix) and _TERMS.canonical(line[len(prefix) :]) == wanted for line in self.lines_seen
        )


# ---------------------------------------------------------------------- compiled shapes

_Check = Callable[[str, _Graph], bool]


@dataclass(eq=False)
class _Shape:
    node: Any
    source: str
    path: str | None = None
    inverse: bool = False
    result_path: str | None = None
    message: str = ""
    severity: str = "Violation"
    targets: list[str] = field(default_factory=list)
    min_count: int | None = None
    max_count: int | None = None
    #: (component, check of one value node)
    checks: list[tuple[str, _Check]] = field(default_factory=list)
    has_value: list[Any] = field(default_factory=list)  # rdflib terms
    less_than: list[str] = field(default_factory=list)
    qualified: list[tuple[_Shape, int]] = field(default_factory=list)
    #: the message of the compiled sh:sparql constraint, if the shape has it
    asserted: str | None = None

    def value_nodes(self, focus: str, graph: _Graph) -> list[str]:
        return graph.values(focus, self.path, self.inverse) if self.path is not None else [focus]

    def conforms(self, focus: str, graph: _Graph) -> bool:
        """Whether ``focus`` conforms (a shape used inside sh:or or sh:qualifiedValueShape)."""
        found: list[tuple[str, str | None]] = []
        self.evaluate(focus, graph, found, {})
        return not found

    def evaluate(
        self, focus: str, graph: _Graph, out: list[tuple[str, str | None]], memo: dict[str, list[str]]
    ) -> None:
        """Append (component, value node or None) for each result of ``focus``."""
        values = self.value_nodes(focus, graph)
        n = len(values)
        if self.min_count is not None and n < self.min_count:
            out.append(("MinCountConstraintComponent", None))
        if self.max_count is not None and n > self.max_count:
            out.append(("MaxCountConstraintComponent", None))
        if self.checks:
            for v in values:
                failed = memo.get(v)
                if failed is None:
                    failed = [component for component, check in self.checks if not check(v, graph)]
                    memo[v] = failed
                for component in failed:
                    out.append((component, v))
        for wanted in self.has_value:
            if not any(_TERMS.rdflib(_TERMS.canonical(v)) == wanted for v in values):
                out.append(("HasValueConstraintComponent", None))
        for other in self.less_than:
            _less_than(values, graph.values(focus, other, False), out)
        for shape, most in self.qualified:
            if values and sum(1 for v in values if shape.conforms(v, graph)) > most:
                out.append(("QualifiedMaxCountConstraintComponent", None))
        if self.asserted is not None:
            _asserted(focus, graph, out)


def _asserted(focus: str, graph: _Graph, out: list[tuple[str, str | None]]) -> None:
    """``$this rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o . FILTER NOT EXISTS { ?s ?p ?o }``:
    pySHACL keeps one result per focus node, with the focus node as its value."""
    forward = graph.forward
    subjects = forward[_RDF_SUBJECT].get(focus)
    predicates = forward[_RDF_PREDICATE].get(focus)
    objects = forward[_RDF_OBJECT].get(focus)
    if not subjects or not predicates or not objects:
        return
    for s in subjects:
        for p in predicates:
            for o in objects:
                if not graph.asserted(s, p, o):
                    out.append(("SPARQLConstraintComponent", focus))
                    return


_RDF_SUBJECT = f"<{RDF.subject}>"
_RDF_PREDICATE = f"<{RDF.predicate}>"
_RDF_OBJECT = f"<{RDF.object}>"


def _less_than(values: list[str], others: list[str], out: list[tuple[str, str | None]]) -> None:
    """pySHACL's LessThanConstraintComponent._compare_lt, over our terms."""
    for value in values:
        if _kind(value) == 0:
            raise ProvGraphError("SHACL validation could not run: Cannot use sh:lessThan to compare a BlankNode.")
        v, v_string = _comparable(value)
        for other in others:
            if _kind(other) == 0:
                raise ProvGraphError("SHACL validation could not run: Cannot use sh:lessThan to compare a BlankNode.")
            w, w_string = _comparable(other)
            if v_string != w_string or not v < w:
                out.append(("LessThanConstraintComponent", value))


def _comparable(term: str) -> tuple[Any, bool]:
    node = _TERMS.rdflib(_TERMS.canonical(term))
    if isinstance(node, rdflib.URIRef):
        return str(node), True
    if isinstance(node, rdflib.Literal) and isinstance(node.value, str):
        return node.value, True
    return node, False


# ---------------------------------------------------------------------- value checks
# Each mirrors the evaluation of one value node in pySHACL's constraint component of that name.


def _node_kind(rule: Any) -> _Check:
    blank, iri, literal = _NODE_KINDS[rule]
    allowed = {0: blank, 1: iri, 2: literal, 3: iri}

    def check(v: str, _graph: _Graph) -> bool:
        return allowed[_kind(v)]

    return check


def _actual_datatype(value: Any, rule: Any) -> bool:
    if rule in (XSD.string, RDF.langString):
        return isinstance(value, str | bytes)
    from datetime import date, datetime, time
    from decimal import Decimal

    expected = {
        XSD.integer: int,
        XSD.float: float,
        XSD.decimal: Decimal,
        XSD.boolean: bool,
        XSD.date: date,
        XSD.time: time,
        XSD.dateTime: datetime,
    }.get(rule)
    return True if expected is None else isinstance(value, expected)


def _plain(v: str) -> bool:
    """A literal written ``"..."`` (an xsd:string, Oxigraph keeps it as it is) without escapes:
    its lexical form is what is between the quotes."""
    return v[0] == '"' and v[-1] == '"' and "\\" not in v


def _datatype(rule: Any) -> _Check:
    def check(v: str, _graph: _Graph) -> bool:
        if v[0] != '"':
            return False
        if rule == XSD.string and _plain(v):
            return True
        node = _TERMS.rdflib(_TERMS.canonical(v))
        datatype, lang = node.datatype, node.language
        if datatype == rule:
            if getattr(node, "ill_typed", None) is True:
                return False
            return _actual_datatype(node.value, rule)
        if rule == RDFS.Literal:
            return True
        if rule == RDFS.Datatype and datatype:
            return True
        if datatype is None and lang is None and rule == XSD.string:
            return _actual_datatype(node.value, rule)
        if rule == RDF.langString and lang:
            return _actual_datatype(node.value, rule)
        return False

    return check


def _string(node: Any) -> str:
    """pySHACL's StringBasedConstraintBase.value_node_to_string."""
    if (
        isinstance(node, rdflib.Literal)
        and node.value is not None
        and node.datatype in (None, RDF.langString, XSD.string)
    ):
        return str(node.value)
    return str(node)


def _length(rule: Any, *, longest: bool) -> _Check:
    limit = rule.value
    if not isinstance(limit, int) or limit < 0:
        raise UnsupportedShapesError(f"length {rule!r}")

    def check(v: str, _graph: _Graph) -> bool:
        if not longest and limit == 0:
            return True
        kind = _kind(v)
        if kind == 0:
            return False
        if (kind == 1 and "\\" not in v) or _plain(v):
            length = len(v) - 2
        else:
            length = len(_string(_TERMS.rdflib(_TERMS.canonical(v))))
        return length <= limit if longest else length >= limit

    return check


def _pattern(rule: Any) -> _Check:
    text = str(rule.value) if rule.value is not None and len(rule.value) > 1 else str(rule)
    regex = re.compile(text)

    def check(v: str, _graph: _Graph) -> bool:
        kind = _kind(v)
        if kind == 0:
            return False
        simple = (kind == 1 and "\\" not in v) or _plain(v)
        string = v[1:-1] if simple else _string(_TERMS.rdflib(_TERMS.canonical(v)))
        return bool(regex.match(string) or regex.search(string))

    return check


def _in(members: list[Any]) -> _Check:
    iris = {f"<{m}>" for m in members if isinstance(m, rdflib.URIRef)}
    others = [m for m in members if not isinstance(m, rdflib.URIRef)]

    def check(v: str, _graph: _Graph) -> bool:
        if v in iris:
            return True
        node = _TERMS.rdflib(_TERMS.canonical(v))
        return node in others or (isinstance(node, rdflib.URIRef) and f"<{node}>" in iris)

    return check


def _class(rule: Any) -> _Check:
    cls = f"<{rule}>"

    def check(v: str, graph: _Graph) -> bool:
        return v[0] != '"' and v in graph.instances(cls)

    return check


def _range(rule: Any, *, minimum: bool, inclusive: bool) -> _Check:
    if not isinstance(rule, rdflib.Literal):
        raise UnsupportedShapesError(f"range {rule!r}")
    rule_is_string = isinstance(rule.value, str)

    def check(v: str, _graph: _Graph) -> bool:
        if v[0] != '"':
            return False  # blank nodes and IRIs cannot pass a value comparison
        node = _TERMS.rdflib(_TERMS.canonical(v))
        if rule_is_string != isinstance(node.value, str):
            return False
        try:
            order = compare_literal(node, rule)
        except (TypeError, NotImplementedError):
            return False
        if minimum:
            return order >= 0 if inclusive else order > 0
        return order <= 0 if inclusive else order < 0

    return check


def _or(shapes: list[_Shape]) -> _Check:
    def check(v: str, graph: _Graph) -> bool:
        return any(shape.conforms(v, graph) for shape in shapes)

    return check


# ---------------------------------------------------------------------- compiling


def _shown(node: Any) -> str:
    if isinstance(node, rdflib.BNode):
        return f"_:{node}"
    return str(node)


class _Compiler:
    def __init__(self, graph: rdflib.Graph) -> None:
        self.g = graph
        self.shapes: dict[Any, _Shape] = {}

    def one(self, node: Any, predicate: Any) -> Any:
        values = list(self.g.objects(node, predicate))
        if len(values) > 1:
            raise UnsupportedShapesError(f"{node} has several {predicate}")
        return values[0] if values else None

    def shape(self, node: Any, *, nested: bool) -> _Shape:
        if node in self.shapes:
            return self.shapes[node]
        g = self.g
        for p, o in g.predicate_objects(node):
            if p == RDF.type:
                if o not in _SHAPE_TYPES:
                    raise UnsupportedShapesError(f"{node} is also a {o} (implicit class target)")
            elif str(p).startswith(str(SH)) and p not in _KNOWN:
                raise UnsupportedShapesError(f"{node} uses {p}")
        if (node, SH.deactivated, rdflib.Literal(True)) in g:
            raise UnsupportedShapesError(f"{node} is deactivated")
        shape = _Shape(node=node, source=_shown(node))
        self.shapes[node] = shape
        path = self.one(node, SH.path)
        if path is not None:
            if isinstance(path, rdflib.URIRef):
                shape.path, shape.result_path = f"<{path}>", str(path)
            elif isinstance(path, rdflib.BNode) and set(g.predicates(path)) == {SH.inversePath}:
                inverse = self.one(path, SH.inversePath)
                if not isinstance(inverse, rdflib.URIRef):
                    raise UnsupportedShapesError(f"path {path}")
                shape.path, shape.inverse, shape.result_path = f"<{inverse}>", True, "(complex path)"
            else:
                raise UnsupportedShapesError(f"path {path}")
        message = self.one(node, SH.message)
        severity = self.one(node, SH.severity)
        shape.message = str(message) if message is not None else ""
        shape.severity = str(severity).rsplit("#", 1)[-1] if severity is not None else "Violation"
        shape.targets = [f"<{c}>" for c in g.objects(node, SH.targetClass)]
        if shape.targets and nested:
            raise UnsupportedShapesError(f"{node} has targets and is used by another shape")
        self._constraints(node, shape)
        if list(g.objects(node, SH.property)):
            raise UnsupportedShapesError(f"{node}: sh:property left after hoisting")
        reports = shape.min_count is not None or shape.max_count is not None or shape.checks or shape.has_value
        reports = reports or shape.less_than or shape.qualified
        if not nested and reports and message is None:
            raise UnsupportedShapesError(f"{node} has no sh:message")
        return shape

    def _constraints(self, node: Any, shape: _Shape) -> None:
        g = self.g
        count = self.one(node, SH.minCount)
        if count is not None:
            shape.min_count = int(count.value)
        count = self.one(node, SH.maxCount)
        if count is not None:
            shape.max_count = int(count.value)
        checks = shape.checks
        rule = self.one(node, SH.nodeKind)
        if rule is not None:
            if rule not in _NODE_KINDS:
                raise UnsupportedShapesError(f"node kind {rule}")
            checks.append(("NodeKindConstraintComponent", _node_kind(rule)))
        rule = self.one(node, SH.datatype)
        if rule is not None:
            checks.append(("DatatypeConstraintComponent", _datatype(rule)))
        for rule in g.objects(node, SH.minLength):
            checks.append(("MinLengthConstraintComponent", _length(rule, longest=False)))
        for rule in g.objects(node, SH.maxLength):
            checks.append(("MaxLengthConstraintComponent", _length(rule, longest=True)))
        for rule in g.objects(node, SH.pattern):
            checks.append(("PatternConstraintComponent", _pattern(rule)))
        for rule in g.objects(node, SH["in"]):
            checks.append(("InConstraintComponent", _in(list(g.items(rule)))))
        for rule in g.objects(node, SH["class"]):
            checks.append(("ClassConstraintComponent", _class(rule)))
        for predicate, name, minimum, inclusive in (
            (SH.minInclusive, "MinInclusive", True, True),
            (SH.maxInclusive, "MaxInclusive", False, True),
            (SH.minExclusive, "MinExclusive", True, False),
            (SH.maxExclusive, "MaxExclusive", False, False),
        ):
            for rule in g.objects(node, predicate):
                checks.append((f"{name}ConstraintComponent", _range(rule, minimum=minimum, inclusive=inclusive)))
        for rule in g.objects(node, SH["or"]):
            members = [self.shape(m, nested=True) for m in g.items(rule)]
            if not members:
                raise UnsupportedShapesError("empty sh:or")
            checks.append(("OrConstraintComponent", _or(members)))
        shape.has_value = list(g.objects(node, SH.hasValue))
        for other in g.objects(node, SH.lessThan):
            if not isinstance(other, rdflib.URIRef):
                raise UnsupportedShapesError(f"sh:lessThan {other}")
            shape.less_than.append(f"<{other}>")
        qualified = list(g.objects(node, SH.qualifiedValueShape))
        if qualified:
            most = self.one(node, SH.qualifiedMaxCount)
            if most is None or len(qualified) != 1:
                raise UnsupportedShapesError(f"{node}: only one sh:qualifiedValueShape with sh:qualifiedMaxCount")
            shape.qualified.append((self.shape(qualified[0], nested=True), int(most.value)))
        for constraint in g.objects(node, SH.sparql):
            if shape.asserted is not None or self.one(node, SH.message) is not None:
                raise UnsupportedShapesError(f"{node}: more than the one SPARQL constraint's message")
            shape.asserted = self._sparql(constraint)

    def _sparql(self, node: Any) -> str:
        g = self.g
        allowed = {RDF.type, SH.message, SH.prefixes, SH.select}
        if any(p not in allowed for p in g.predicates(node)):
            raise UnsupportedShapesError(f"SPARQL constraint {node}")
        select = " ".join(str(self.one(node, SH.select) or "").split())
        if select != ASSERTED_TRIPLE_QUERY:
            raise UnsupportedShapesError(f"SPARQL constraint {node}: {select}")
        rdf_ns = [
            d
            for prefixes in g.objects(node, SH.prefixes)
            for d in g.objects(prefixes, SH.declare)
            if str(self.one(d, SH.prefix)) == "rdf"
        ]
        if [str(self.one(d, SH.namespace)) for d in rdf_ns] != [str(RDF)]:
            raise UnsupportedShapesError(f"SPARQL constraint {node}: the rdf: prefix")
        message = self.one(node, SH.message)
        if message is None:
            raise UnsupportedShapesError(f"SPARQL constraint {node} has no sh:message")
        return str(message)


@dataclass
class CompiledShapes:
    """Shapes that validate N-Triples lines as pySHACL would (see the module doc)."""

    shapes: list[_Shape]
    forward: frozenset[str]
    inverse: frozenset[str]

    def constraints(self) -> set[tuple[str, str]]:
        """(source shape, constraint component) of every kind of result these shapes report."""
        found = set()
        for shape in self.shapes:
            components = [component for component, _ in shape.checks]
            components += ["MinCountConstraintComponent"] if shape.min_count is not None else []
            components += ["MaxCountConstraintComponent"] if shape.max_count is not None else []
            components += ["HasValueConstraintComponent"] * len(shape.has_value)
            components += ["LessThanConstraintComponent"] * len(shape.less_than)
            components += ["QualifiedMaxCountConstraintComponent"] * len(shape.qualified)
            components += ["SPARQLConstraintComponent"] if shape.asserted is not None else []
            found |= {(shape.source, component) for component in components}
        return found

    def validate(self, lines: Sequence[str]) -> list[ValidationIssue]:
        """Every result over the graph of ``lines`` (N-Triples without the final " .")."""
        graph = _Graph(lines, self.forward, self.inverse)
        found: list[ValidationIssue] = []
        for shape in self.shapes:
            focus_nodes: set[str] = set()
            for cls in shape.targets:
                focus_nodes |= graph.instances(cls)
            if not focus_nodes:
                continue
            memo: dict[str, list[str]] = {}
            for focus in self._unsure(shape, focus_nodes, graph, memo):
                results: list[tuple[str, str | None]] = []
                shape.evaluate(focus, graph, results, memo)
                for component, value in results:
                    found.append(self._issue(shape, focus, component, value))
        return found

    @staticmethod
    def _unsure(shape: _Shape, focus_nodes: set[str], graph: _Graph, memo: dict[str, list[str]]) -> Iterable[str]:
        """The focus nodes that may not conform: the common case (one value, or the values
        sh:hasValue asks for, that pass every check) is settled here in a few lookups; the rest
        goes through :meth:`_Shape.evaluate`, which reports."""
        if shape.path is None or shape.inverse or shape.less_than or shape.qualified or shape.asserted is not None:
            return focus_nodes
        if any(not isinstance(h, rdflib.URIRef) for h in shape.has_value):
            return focus_nodes
        values_of = graph.forward[shape.path].get
        lowest = shape.min_count or 0
        one_is_enough = lowest <= 1 and (shape.max_count is None or shape.max_count >= 1)
        wanted = [f"<{h}>" for h in shape.has_value]
        checks = shape.checks
        unsure = []
        for focus in focus_nodes:
            values = values_of(focus)
            if values is None:
                if lowest > 0 or wanted:
                    unsure.append(focus)
                continue
            if wanted and any(w not in values for w in wanted):
                unsure.append(focus)
                continue
            if len(values) == 1:
                if not one_is_enough:
                    unsure.append(focus)
                    continue
                v = values[0]
                failed = memo.get(v)
                if failed is None:
                    failed = [component for component, check in checks if not check(v, graph)]
                    memo[v] = failed
                if failed:
                    unsure.append(focus)
            elif checks or shape.max_count is not None or lowest > 1:
                unsure.append(focus)
        return unsure

    @staticmethod
    def _issue(shape: _Shape, focus: str, component: str, value: str | None) -> ValidationIssue:
        sparql = component == "SPARQLConstraintComponent"
        return ValidationIssue(
            focus_node=_TERMS.shown(focus),
            path=None if sparql else shape.result_path,
            value=_TERMS.shown(value) if value is not None else None,
            message=(shape.asserted if sparql else shape.message) or "constraint violated",
            severity=shape.severity,
            source_shape=shape.source,
            constraint=component,
        )


def compile_shapes(graph: rdflib.Graph) -> CompiledShapes | None:
    """The shapes of ``graph`` (hoisted: see :func:`provgraph.ingest.validate.hoist_property_shapes`)
    as a :class:`CompiledShapes`, or None when they use something it does not compile."""
    compiler = _Compiler(graph)
    try:
        roots = sorted(set(graph.subjects(SH.targetClass)), key=str)
        for other in (SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf, SH.target):
            if any(True for _ in graph.subjects(other)):
                raise UnsupportedShapesError(f"{other}")
        shapes = [compiler.shape(node, nested=False) for node in roots]
        for node in set(graph.subjects(RDF.type, SH.NodeShape)) | set(graph.subjects(RDF.type, SH.PropertyShape)):
            if node not in compiler.shapes:
                raise UnsupportedShapesError(f"{node} is not reached from a target")
    except UnsupportedShapesError:
        return None
    forward = {RDF_TYPE}
    inverse = set()
    for shape in compiler.shapes.values():
        if shape.path is not None:
            forward.add(shape.path)
            if shape.inverse:
                inverse.add(shape.path)
        forward.update(shape.less_than)
        if shape.asserted is not None:
            forward.update((_RDF_SUBJECT, _RDF_PREDICATE, _RDF_OBJECT))
    return CompiledShapes(shapes, frozenset(forward), frozenset(inverse))


__all__ = ["ASSERTED_TRIPLE_QUERY", "CompiledShapes", "UnsupportedShapesError", "compile_shapes"]
