"""TriX (https://www.hpl.hp.com/techreports/2004/HPL-2004-56.html): named graphs in XML, as
nanopublications are sometimes published. pyoxigraph does not read it, so it is turned into
N-Quads here (with expat, after :func:`~provgraph.ingest.guard.check_xml` bounded it) and read
as N-Quads from then on: every check other input gets applies to it.

::

    <TriX xmlns="http://www.w3.org/2004/03/trix/trix-1/">
      <graph>
        <uri>http://example.org/graph</uri>            <!-- optional: the graph's name -->
        <triple>
          <uri>http://example.org/s</uri> <uri>http://example.org/p</uri>
          <typedLiteral datatype="http://www.w3.org/2001/XMLSchema#integer">5</typedLiteral>
        </triple>
      </graph>
    </TriX>

Subjects are ``uri`` or ``id`` (a blank node); objects also ``plainLiteral`` (with ``xml:lang``)
or ``typedLiteral`` (with ``datatype``).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from xml.parsers import expat

from provgraph.errors import InputError
from provgraph.store.terms import BlankNode, Literal, NamedNode

TRIX_NS = "http://www.w3.org/2004/03/trix/trix-1/"
_XML_LANG = "http://www.w3.org/XML/1998/namespace lang"
_TERMS = ("uri", "id", "plainLiteral", "typedLiteral")


class _StopError(Exception):
    pass


def is_trix(path: Path) -> bool:
    """Whether the XML file's root element is TriX's (read up to the root element only)."""
    parser = expat.ParserCreate(namespace_separator=" ")
    found: list[str] = []

    def start(name: str, _attrs: dict[str, str]) -> None:
        found.append(name)
        raise _StopError

    parser.StartElementHandler = start
    try:
        with path.open("rb") as stream:
            while not found and (chunk := stream.read(1 << 14)):
                parser.Parse(chunk, False)
    except (_StopError, expat.ExpatError):
        pass
    return bool(found) and found[0] == f"{TRIX_NS} TriX"


def trix_to_nquads(source: Path | bytes, file: str | None) -> bytes:
    """The quads of a TriX document as N-Quads; a TriX structure error names its line."""
    parser = expat.ParserCreate(namespace_separator=" ")
    out = io.StringIO()
    path: list[str] = []  # local names of the open elements
    text: list[str] = []
    attrs_of: list[dict[str, str]] = []
    graph: list[str | None] = [None]  # the current graph's name in N-Triples, None: default
    terms: list[str] = []
    blank: dict[str, str] = {}

    def fail(message: str) -> InputError:
        return InputError(f"TriX: {message}", file=file, line=parser.CurrentLineNumber)

    def start(name: str, attrs: dict[str, str]) -> None:
        namespace, _, local = name.rpartition(" ")
        if namespace != TRIX_NS:
            raise fail(f"<{local}> is not a TriX element (namespace {TRIX_NS})")
        depth = len(path)
        allowed = {0: ("TriX",), 1: ("graph",), 2: ("uri", "id", "triple"), 3: _TERMS}.get(depth, ())
        if local not in allowed:
            raise fail(f"<{local}> cannot appear inside <{path[-1] if path else 'document'}>")
        if depth == 2 and local in ("uri", "id") and (terms or graph[0] is not None):
            raise fail("a graph's name comes first, once")
        path.append(local)
        attrs_of.append(attrs)
        text.clear()

    def characters(data: str) -> None:
        text.append(data)

    def end(_name: str) -> None:
        local = path.pop()
        attrs = attrs_of.pop()
        value = "".join(text)
        text.clear()
        if local == "graph":
            graph[0] = None
        elif local == "triple":
            if len(terms) != 3:
                raise fail(f"a triple has 3 terms, not {len(terms)}")
            s, p, o = terms
            out.write(f"{s} {p} {o}" + (f" {graph[0]}" if graph[0] else "") + " .\n")
            terms.clear()
        elif len(path) == 2:  # the graph's name
            graph[0] = _node(local, value, blank, fail)
        elif len(path) == 3:
            terms.append(_term(local, value, attrs, blank, fail))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    try:
        with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as stream:
            while chunk := stream.read(1 << 20):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code)
        raise InputError(f"not well-formed XML: {reason}", file=file, line=exc.lineno) from None
    return out.getvalue().encode("utf-8")


_Fail = Callable[[str], InputError]


def _node(local: str, value: str, blank: dict[str, str], fail: _Fail) -> str:
    if local == "id":
        label = value.strip()
        if label not in blank:
            blank[label] = str(BlankNode())
        return blank[label]
    try:
        return str(NamedNode(value.strip()))
    except ValueError as exc:
        raise fail(f"invalid IRI <{value.strip()}>: {exc}") from None


def _term(local: str, value: str, attrs: dict[str, str], blank: dict[str, str], fail: _Fail) -> str:
    if local in ("uri", "id"):
        return _node(local, value, blank, fail)
    try:
        if local == "plainLiteral":
            language = attrs.get(_XML_LANG)
            return str(Literal(value, language=language) if language else Literal(value))
        datatype = attrs.get("datatype")
        if datatype is None:
            raise fail("a typedLiteral needs a datatype attribute")
        return str(Literal(value, datatype=NamedNode(datatype)))
    except ValueError as exc:
        raise fail(f"invalid literal: {exc}") from None


__all__ = ["TRIX_NS", "is_trix", "trix_to_nquads"]
