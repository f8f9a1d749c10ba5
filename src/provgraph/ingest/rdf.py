"""RDF readers: Turtle, N-Triples, N-Quads, TriG, JSON-LD and RDF/XML through pyoxigraph's
streaming parsers, with errors translated to :class:`~provgraph.errors.InputError` carrying the
file, line and column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, cast
from urllib.parse import urljoin

from provgraph.errors import InputError
from provgraph.ingest.guard import (
    MAX_TERM_BYTES,
    InputGuard,
    LineLimit,
    check_json_depth,
    check_xml,
    long_json_string_line,
)
from provgraph.ingest.nanopub import check_nanopublications, mentions_nanopublications
from provgraph.ingest.records import Assertion, LiteralCanonicalizer, NanopubSpec
from provgraph.ingest.trix import trix_to_nquads
from provgraph.models import InputFormat
from provgraph.store.terms import BlankNode, DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Triple, parse

RDF_FORMATS: dict[InputFormat, RdfFormat] = {
    InputFormat.TURTLE: RdfFormat.TURTLE,
    InputFormat.NTRIPLES: RdfFormat.N_TRIPLES,
    InputFormat.NQUADS: RdfFormat.N_QUADS,
    InputFormat.TRIG: RdfFormat.TRIG,
    InputFormat.JSONLD: RdfFormat.JSON_LD,
    InputFormat.RDFXML: RdfFormat.RDF_XML,
}

_LINE_FORMATS = (InputFormat.NTRIPLES, InputFormat.NQUADS)
_DATASET_FORMATS = (InputFormat.TRIG, InputFormat.NQUADS, InputFormat.JSONLD, InputFormat.TRIX)
_BOUNDED_LINES = (InputFormat.NTRIPLES, InputFormat.NQUADS, InputFormat.TURTLE, InputFormat.TRIG)
_POSITION = re.compile(r"line (\d+)(?: between columns (\d+)| at column (\d+))?", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def read_rdf(
    stream: IO[bytes],
    fmt: InputFormat,
    *,
    file: str,
    base: str | None,
    guard: InputGuard | None = None,
) -> Iterator[tuple[Assertion, str | None]]:
    """Yield each triple of the input as an :class:`Assertion`, with its graph name (N-Triples
    form, ``None`` for the default graph).

    Every term passes ``guard`` (see :mod:`provgraph.ingest.guard`): no provgraph IRIs, literals
    that match their datatype; RDF/XML is checked first by :func:`~provgraph.ingest.guard.check_xml`
    (which reads ``guard.path``), JSON-LD's nesting before parsing, lines of line-based formats
    as they stream."""
    guard = guard if guard is not None else InputGuard(file)
    rdf_format = RDF_FORMATS[fmt] if fmt is not InputFormat.TRIX else RdfFormat.N_QUADS
    # N-Triples and N-Quads forbid relative IRIs and pyoxigraph will not resolve them even with
    # a base; real data has them (DBpedia's <type-graph>). With --base we parse leniently and
    # resolve (and re-check) every IRI ourselves.
    resolve = base is not None and fmt in _LINE_FORMATS
    # JSON-LD's toRdf drops a value with an invalid IRI without a word: parsed leniently, such a
    # value is kept, and the guard refuses it.
    strict = fmt is InputFormat.JSONLD
    # Nanopublications are checked as a whole once read (see provgraph.ingest.nanopub).
    nanopubs: list[Quad] | None = None
    held: list[Assertion] = []
    if fmt in _DATASET_FORMATS and guard.path is not None and mentions_nanopublications(guard.path):
        nanopubs = []
    source = _source(stream, fmt, file, guard)
    # The loop is written out here, not in a generator of its own: it runs once per quad.
    try:
        quads = parse(
            cast("IO[bytes] | bytes", source),  # a LineLimit is a binary reader: read() is all pyoxigraph calls
            format=rdf_format,
            base_iri=base,
            lenient=resolve or strict,
            rename_blank_nodes=True,
        )
        guard.parser = quads
        fix: Callable[[NamedNode], NamedNode] | None = _resolver(base, file) if resolve else None
        canonical = LiteralCanonicalizer()
        for quad in quads:
            if fix is not None:
                quad = _fix_quad(quad, fix)
            s, p, o, g = quad.subject, quad.predicate, quad.object, quad.graph_name
            if strict:
                for term in (s, p, o, g):
                    guard.strict(term)
            guard.term(s)
            guard.term(p)
            guard.term(o)
            if not isinstance(g, DefaultGraph):
                guard.term(g)
            assertion = Assertion(str(s), str(p), canonical(o) if isinstance(o, Literal) else str(o))
            if nanopubs is not None:
                nanopubs.append(quad)
                held.append(assertion)
                continue
            yield assertion, (None if isinstance(g, DefaultGraph) else str(g))
        if nanopubs is not None:
            yield from _nanopub_assertions(
                nanopubs, held, check_nanopublications(nanopubs, file=file, locate=guard.line_of)
            )
    except (SyntaxError, MemoryError, ValueError, OSError) as exc:
        raise _read_error(exc, fmt, file, source) from exc


def _nanopub_assertions(
    quads: list[Quad], assertions: list[Assertion], specs: dict[NamedNode, NanopubSpec]
) -> Iterator[tuple[Assertion, str | None]]:
    """The assertions of an input holding nanopublications (``quads``, read into ``assertions``
    one for one) once they are checked: the triples of each assertion graph, each knowing its
    nanopublication. Head, provenance and publication info are not facts: they are the
    assertion's provenance, and stay in the nanopublication as published. Without
    nanopublications (the schema merely named), every triple."""
    for quad, assertion in zip(quads, assertions, strict=True):
        graph = quad.graph_name
        if not specs:
            yield assertion, (None if isinstance(graph, DefaultGraph) else str(graph))
        elif isinstance(graph, NamedNode) and graph in specs:
            assertion.nanopub = specs[graph]
            yield assertion, str(graph)


def _source(stream: IO[bytes], fmt: InputFormat, file: str, guard: InputGuard) -> IO[bytes] | LineLimit | bytes:
    """What the parser reads, checked as its format needs before parsing: RDF/XML and TriX for
    XML bombs (TriX then as N-Quads), JSON-LD for its nesting, line formats line by line."""
    if fmt is InputFormat.RDFXML and guard.path is not None:
        check_xml(guard.path, file)
    elif fmt is InputFormat.TRIX:
        document = guard.path if guard.path is not None else stream.read()
        check_xml(document, file)
        return trix_to_nquads(document, file)
    elif fmt is InputFormat.JSONLD:
        data = stream.read()
        check_json_depth(data, file)
        return data
    elif fmt in _BOUNDED_LINES:
        return LineLimit(stream, file)
    return stream


def _read_error(exc: Exception, fmt: InputFormat, file: str, source: IO[bytes] | LineLimit | bytes) -> InputError:
    """What went wrong reading, as an :class:`InputError` with the file and, when known, the line."""
    if isinstance(exc, SyntaxError):
        return _syntax_error(exc, file)
    if isinstance(exc, MemoryError):
        # pyoxigraph's parsers hold one token in a buffer of at most 16 MiB
        line = source.line if isinstance(source, LineLimit) else None
        if isinstance(source, bytes):
            line = long_json_string_line(source, MAX_TERM_BYTES)
        return InputError(
            f"a single token (a literal or an IRI) is larger than the parser's buffer: {exc}", file=file, line=line
        )
    if isinstance(exc, ValueError):
        return InputError(f"cannot parse as {fmt.value}: {exc}", file=file)
    return InputError(f"cannot read: {exc}", file=file)


def _syntax_error(exc: SyntaxError, file: str) -> InputError:
    message = str(exc.msg if exc.msg else exc)
    line, column = exc.lineno, exc.offset
    if line is None:
        found = _POSITION.search(message)
        if found:
            line = int(found.group(1))
            col = found.group(2) or found.group(3)
            column = int(col) if col else None
    if "No scheme found" in message or "relative IRI" in message.lower():
        message += " (a relative IRI: pass --base IRI to resolve relative IRIs against it)"
    if "utf-8" in message.lower() or "utf8" in message.lower():
        message += " (the file must be UTF-8 encoded)"
    return InputError(f"syntax error: {message}", file=file, line=line, column=column)


def _resolver(base: str | None, file: str) -> Callable[[NamedNode], NamedNode]:
    assert base is not None
    cache: dict[str, NamedNode] = {}

    def fix(node: NamedNode) -> NamedNode:
        value = node.value
        found = cache.get(value)
        if found is not None:
            return found
        target = value if _SCHEME.match(value) else urljoin(base, value)
        try:
            fixed = NamedNode(target)  # lenient parsing skipped IRI checks: check here
        except ValueError as exc:
            raise InputError(f"invalid IRI <{value}>: {exc}", file=file) from exc
        cache[value] = fixed
        return fixed

    return fix


Subject = NamedNode | BlankNode | Triple
Object = NamedNode | BlankNode | Literal | Triple


def _fix_subject(term: Subject, fix: Callable[[NamedNode], NamedNode]) -> Subject:
    if isinstance(term, NamedNode):
        return fix(term)
    if isinstance(term, Triple):
        return Triple(_fix_subject(term.subject, fix), fix(term.predicate), _fix_object(term.object, fix))
    return term


def _fix_object(term: Object, fix: Callable[[NamedNode], NamedNode]) -> Object:
    if isinstance(term, Literal):
        if term.datatype is not None and term.language is None:
            dt = fix(term.datatype)
            return term if dt == term.datatype else Literal(term.value, datatype=dt)
        return term
    return _fix_subject(term, fix)


def _fix_quad(quad: Quad, fix: Callable[[NamedNode], NamedNode]) -> Quad:
    g = quad.graph_name
    return Quad(
        _fix_subject(quad.subject, fix),
        fix(quad.predicate),
        _fix_object(quad.object, fix),
        fix(g) if isinstance(g, NamedNode) else g,
    )


def read_graph_metadata(path: Path, *, base: str | None, guard: InputGuard) -> Iterator[tuple[str, str, str]]:
    """The triples of a metadata file (their subjects name graphs), checked by ``guard`` (which
    counts what a lenient guard kept)."""
    fmt = InputFormat.from_path(path)
    if fmt is None or not fmt.is_rdf:
        raise InputError("graph metadata must be an RDF file (.nq, .nt, .ttl, .trig, ...)", file=str(path))
    try:
        with path.open("rb") as stream:
            for assertion, _graph in read_rdf(stream, fmt, file=str(path), base=base, guard=guard):
                yield assertion.subject, assertion.predicate, assertion.object
    except FileNotFoundError as exc:
        raise InputError("no such file", file=str(path)) from exc


__all__ = ["RDF_FORMATS", "BlankNode", "read_graph_metadata", "read_rdf"]
