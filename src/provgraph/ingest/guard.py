"""The trust boundary of ingest: input is data, never provenance, and parsers are bounded.

**Input is data.** Only the pipeline mints statements, documents, activities, passages and
catalog entries. An input triple (or quad, JSON Lines record, graph-metadata triple) that uses an
IRI in provgraph's own namespaces, ``pg:`` (https://w3id.org/provgraph/ns#) or ``pgid:``
(https://w3id.org/provgraph/id/), in any position (subject, predicate, object, datatype, graph
name) is refused with the file, the line and the term: otherwise a file could describe its own
``pg:Statement`` "derived from" another, real document with tier 1, or add itself to the catalog.

**Bounded parsers.** A 953-byte RDF/XML file can declare entities that expand to gigabytes, a
deeply nested JSON-LD document overflows the parser's stack, a line longer than the parser's
16 MiB buffer is an internal error, and a cut-off RDF/XML file parses as its first half. So,
before pyoxigraph sees the input: RDF/XML is checked to be well-formed XML by expat (truncation
is an error) with only short, flat internal entities (:data:`MAX_ENTITY_LENGTH`, total expansion
bounded by :data:`ENTITY_EXPANSION_FACTOR`); JSON-LD nesting is checked against
:data:`MAX_JSON_DEPTH`; lines of the line-based formats against :data:`MAX_LINE_BYTES`.

**Literals match their datatype** (:mod:`provgraph.ingest.datatypes`): an ill-typed one is an
error, or, with ``lenient``, kept and counted.
"""

from __future__ import annotations

import io
import re
from array import array
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import IO
from xml.parsers import expat

from provgraph.errors import InputError
from provgraph.ingest.datatypes import CHECKED_DATATYPES, literal_problem
from provgraph.store.terms import BlankNode, DefaultGraph, Literal, NamedNode, Triple
from provgraph.vocab import ID_NS, PG_NS

#: Where provgraph's own IRIs live: the pg: vocabulary and the pgid: resources it mints.
RESERVED_BASE = "https://w3id.org/provgraph/"
#: Longest line of N-Triples, N-Quads, Turtle, TriG and JSON Lines (pyoxigraph's buffer is 16 MiB).
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Longest literal or IRI, in UTF-8 bytes: Oxigraph loads a graph as N-Quads with one quad a
#: line in a buffer of 16 MiB, so a longer term could be parsed but never validated or written.
MAX_TERM_BYTES = MAX_LINE_BYTES
#: Deepest nesting of JSON objects and arrays in JSON-LD (the parser's stack overflows near 5,000).
MAX_JSON_DEPTH = 100
#: Longest replacement text of an XML entity (namespace IRIs are far shorter).
MAX_ENTITY_LENGTH = 1024
#: Entity references in an RDF/XML file may expand to this many times the file's size, plus 1 MiB.
ENTITY_EXPANSION_FACTOR = 10

_NAMESPACES = {PG_NS: "pg:", ID_NS: "pgid:"}
_DECLARATION = re.compile(rb"\s*(@prefix|prefix|@base|base)\s", re.IGNORECASE)
_RULE = (
    "input is data, never provenance: only provgraph mints statements, documents, activities, "
    "passages and catalog entries, so input may not use its namespaces pg: and pgid:"
)


class InputGuard:
    """Checks the terms a reader produces, for one input file; counts what ``lenient`` kept."""

    def __init__(self, file: str, *, path: Path | None = None, lenient: bool = False) -> None:
        self.file = file
        self.path = path
        self.lenient = lenient
        self.ill_typed = 0
        #: The parser (pyoxigraph's QuadParser): the prefixes it has read find a prefixed name's line.
        self.parser: object | None = None

    # ------------------------------------------------------------------ terms

    def iri(self, value: str, *, line: int | None = None) -> None:
        if value.startswith(RESERVED_BASE):
            raise self._reserved(value, line)
        self.size(value, "an IRI", line=line)

    def size(self, value: str, what: str, *, line: int | None = None) -> None:
        """Refuse a term longer than :data:`MAX_TERM_BYTES`."""
        if len(value) * 4 <= MAX_TERM_BYTES:  # a UTF-8 character is at most 4 bytes: the common case
            return
        size = len(value.encode("utf-8"))
        if size > MAX_TERM_BYTES:
            raise InputError(
                f"{what} of {size:,} bytes; the limit is {MAX_TERM_BYTES:,}",
                file=self.file,
                line=line if line is not None else self._locate([value[:64]]),
            )

    def literal(self, value: str, datatype: str, *, line: int | None = None) -> None:
        if datatype.startswith(RESERVED_BASE):
            raise self._reserved(datatype, line)
        self.size(value, "a literal", line=line)
        problem = literal_problem(value, datatype)
        if problem is None:
            return
        if self.lenient:
            self.ill_typed += 1
            return
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise InputError(
            f'ill-typed literal "{shown}"^^<{datatype}>: {problem} '
            "(pass --lenient to keep ill-typed literals as they are)",
            file=self.file,
            line=line if line is not None else self._locate([f'"{value}"', f"'{value}'", f">{value}<"]),
        )

    def term(self, term: object, *, line: int | None = None) -> None:
        """Check a pyoxigraph term (or graph name)."""
        if isinstance(term, NamedNode):
            value = term.value
            # the common case without a call: this runs for every term of every input
            if value.startswith(RESERVED_BASE) or len(value) * 4 > MAX_TERM_BYTES:
                self.iri(value, line=line)
        elif isinstance(term, Literal):
            if term.language is not None:
                self.size(term.value, "a literal", line=line)
            else:
                datatype = term.datatype.value
                if (
                    datatype in CHECKED_DATATYPES
                    or datatype.startswith(RESERVED_BASE)
                    or len(term.value) * 4 > MAX_TERM_BYTES
                ):
                    self.literal(term.value, datatype, line=line)
        elif isinstance(term, Triple):
            self.term(term.subject, line=line)
            self.term(term.predicate, line=line)
            self.term(term.object, line=line)
        else:
            assert isinstance(term, BlankNode | DefaultGraph)

    def ntriples(self, term: str, *, line: int | None = None) -> None:
        """Check a term already in N-Triples syntax for a reserved IRI (JSON Lines records)."""
        if term.startswith("<") and term[1:].startswith(RESERVED_BASE):
            raise self._reserved(term[1:-1], line)
        if term.startswith('"'):
            _, _, datatype = term.rpartition('"^^<')
            if datatype[: len(RESERVED_BASE)] == RESERVED_BASE:
                raise self._reserved(datatype[:-1], line)

    def strict(self, term: object) -> None:
        """Check what lenient parsing skipped: JSON-LD's toRdf silently drops values whose IRIs
        or language tags are invalid, so the JSON-LD reader parses leniently (keeping them) and
        refuses them here instead."""
        if isinstance(term, NamedNode):
            try:
                NamedNode(term.value)
            except ValueError as exc:
                hint = ""
                if ":" not in term.value:
                    hint = " (a relative IRI, or a term the @context does not define: JSON-LD would drop it)"
                line = self._locate([f'"{term.value}"', f"'{term.value}'"])
                raise InputError(f"invalid IRI <{term.value}>: {exc}{hint}", file=self.file, line=line) from None
        elif isinstance(term, Literal):
            if term.language is not None:
                try:
                    Literal(term.value, language=term.language)
                except ValueError as exc:
                    line = self._locate([f'"{term.language}"'])
                    raise InputError(
                        f"invalid language tag {term.language!r}: {exc}", file=self.file, line=line
                    ) from None
            else:
                self.strict(term.datatype)
        elif isinstance(term, Triple):
            self.strict(term.subject)
            self.strict(term.predicate)
            self.strict(term.object)

    def _reserved(self, iri: str, line: int | None) -> InputError:
        namespace = next((ns for ns in _NAMESPACES if iri.startswith(ns)), RESERVED_BASE)
        name = _NAMESPACES.get(namespace, "provgraph's")
        if line is None:
            line = self.line_of(iri) or self._locate([namespace], declarations=True)
        return InputError(f"<{iri}> is in provgraph's {name} namespace; {_RULE}", file=self.file, line=line)

    def line_of(self, iri: str) -> int | None:
        """The first line of the input that names ``iri``, in full or as a prefixed name."""
        prefixes: dict[str, str] = getattr(self.parser, "prefixes", None) or {}
        named = [f"{p}:{iri[len(ns) :]}" for p, ns in prefixes.items() if ns and iri.startswith(ns)]
        return self._locate([f"<{iri}>", f'"{iri}"', f"'{iri}'", f">{iri}<", *sorted(named, key=len, reverse=True)])

    def _locate(self, needles: list[str], *, declarations: bool = False) -> int | None:
        """The first line of the input holding one of ``needles`` (prefix declarations only when
        ``declarations``): the reader streams and does not know where a term came from, so an
        error looks for it (once, on the error path)."""
        if self.path is None:
            return None
        wanted = [n.encode("utf-8") for n in needles if n]
        try:
            with self.path.open("rb") as stream:
                for number, line in enumerate(stream, start=1):
                    if not declarations and _DECLARATION.match(line):
                        continue
                    if any(n in line for n in wanted):
                        return number
        except OSError:
            return None
        return None


# ---------------------------------------------------------------------- lines


class LineLimit:
    """A binary reader that refuses a line longer than ``limit`` bytes, naming its number (the
    parser's own limit, a 16 MiB token, would be an internal error without a line)."""

    def __init__(self, raw: IO[bytes], file: str, *, limit: int = MAX_LINE_BYTES) -> None:
        self._raw = raw
        self._file = file
        self._limit = limit
        self._line = 1  # the line being read
        self._length = 0  # its bytes so far

    @property
    def line(self) -> int:
        """The line being read."""
        return self._line

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._track(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        # bounded, so a line of a gigabyte is not read into memory to find it is too long
        data = self._raw.readline(self._limit + 1 if size < 0 or size > self._limit + 1 else size)
        self._track(data)
        return data

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def readable(self) -> bool:
        return True

    def _track(self, data: bytes) -> None:
        first = data.find(b"\n")
        if first < 0:
            self._length += len(data)
            self._check(self._length, self._line)
            return
        self._check(self._length + first, self._line)
        if len(data) > self._limit:  # only then can a line inside the chunk be too long
            for offset, part in enumerate(data[first + 1 :].split(b"\n")[:-1], start=1):
                self._check(len(part), self._line + offset)
        self._line += data.count(b"\n")
        self._length = len(data) - data.rfind(b"\n") - 1
        self._check(self._length, self._line)

    def _check(self, length: int, line: int) -> None:
        if length > self._limit:
            raise InputError(
                f"line longer than {self._limit:,} bytes (the limit for line-based formats)",
                file=self._file,
                line=line,
            )


# ---------------------------------------------------------------------- XML


class _RefusedError(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


_ENTITY_REF = re.compile(rb"&([A-Za-z_:][-A-Za-z0-9._:]*);")


def check_xml(source: Path | bytes, file: str | None) -> None:
    """Refuse RDF/XML that is not well-formed (a truncated file is not), declares external or
    parameter entities, entities referring to entities, long entities, or whose entity references
    would expand past :data:`ENTITY_EXPANSION_FACTOR` times its size. Short flat entities, as
    ontology editors write for namespaces (``<!ENTITY xsd "http://www.w3.org/2001/XMLSchema#">``),
    are allowed."""
    parser = expat.ParserCreate()
    entities: dict[bytes, int] = {}

    def declared(
        name: str,
        is_parameter: bool,
        value: str | None,
        _base: str | None,
        system_id: str | None,
        _public_id: str | None,
        notation: str | None,
    ) -> None:
        line = parser.CurrentLineNumber
        if is_parameter:
            raise _RefusedError(f"the parameter entity %{name}; is not allowed (entity declarations are limited)", line)
        if value is None or system_id is not None or notation is not None:
            raise _RefusedError(
                f"the external entity &{name}; is not allowed: input may not make provgraph read files", line
            )
        if "&" in value or "%" in value:
            raise _RefusedError(f"the entity &{name}; refers to another entity: nested entities are not allowed", line)
        if len(value) > MAX_ENTITY_LENGTH:
            raise _RefusedError(
                f"the entity &{name}; is {len(value):,} characters; the limit is {MAX_ENTITY_LENGTH:,}", line
            )
        entities[name.encode("utf-8")] = len(value.encode("utf-8"))

    def external(*_args: object) -> int:
        raise _RefusedError("external entities are not allowed", parser.CurrentLineNumber)

    parser.EntityDeclHandler = declared
    parser.ExternalEntityRefHandler = external
    size = source.stat().st_size if isinstance(source, Path) else len(source)
    budget = ENTITY_EXPANSION_FACTOR * size + (1 << 20)
    expanded = 0
    lines = 0
    carry = b""
    try:
        with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as stream:
            while chunk := stream.read(1 << 20):
                parser.Parse(chunk, False)
                if entities:
                    text = carry + chunk
                    # a reference cut by the chunk boundary is counted with the next chunk
                    cut = text.rfind(b"&")
                    if cut < 0 or b";" in text[cut:]:
                        cut = len(text)
                    expanded += sum(entities.get(m.group(1), 0) for m in _ENTITY_REF.finditer(text, 0, cut))
                    carry = text[cut:][:256]
                    if expanded > budget:
                        raise _RefusedError(
                            f"entity references expand to more than {budget:,} bytes "
                            f"({ENTITY_EXPANSION_FACTOR}x the file's size + 1 MiB)",
                            lines + text.count(b"\n", 0, cut) + 1,
                        )
                lines += chunk.count(b"\n")
            parser.Parse(b"", True)
    except _RefusedError as exc:
        raise InputError(f"RDF/XML refused: {exc}", file=file, line=exc.line) from None
    except expat.ExpatError as exc:
        reason = expat.ErrorString(exc.code)
        if "amplification" in reason:  # expat's own guard against entity bombs
            raise InputError(f"RDF/XML refused: {reason}", file=file, line=exc.lineno) from None
        if reason in ("no element found", "unclosed token") or "unclosed" in reason:
            reason += " (the file is cut off, or an element is not closed)"
        raise InputError(f"not well-formed XML: {reason}", file=file, line=exc.lineno, column=exc.offset + 1) from None


# ---------------------------------------------------------------------- JSON-LD

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_JSON_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def long_json_string_line(data: bytes, limit: int) -> int | None:
    """The line of the first JSON string longer than ``limit`` bytes (for an error message)."""
    for match in _JSON_STRING.finditer(data):
        if match.end() - match.start() > limit:
            return data.count(b"\n", 0, match.start()) + 1
    return None


def check_json_depth(data: bytes, file: str | None) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH`, naming the line where it goes too deep."""
    # Strings can hold brackets: drop them, keep the brackets, and take the running maximum of
    # +1/-1 steps, all at C speed; the line is found by a slower scan only when the check fails.
    structure = _NOT_BRACKET.sub(b"", _JSON_STRING.sub(b"", data))
    if not structure or max(accumulate(array("b", structure.translate(_STEPS)))) <= MAX_JSON_DEPTH:
        return
    depth = 0
    for match in _JSON_TOKEN.finditer(data):
        token = match.group()
        if token in (b"{", b"["):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise InputError(
                    f"JSON nested deeper than {MAX_JSON_DEPTH} levels (objects and arrays)",
                    file=file,
                    line=data.count(b"\n", 0, match.start()) + 1,
                )
        elif token in (b"}", b"]"):
            depth -= 1


__all__ = [
    "ENTITY_EXPANSION_FACTOR",
    "MAX_ENTITY_LENGTH",
    "MAX_JSON_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_TERM_BYTES",
    "RESERVED_BASE",
    "InputGuard",
    "LineLimit",
    "check_json_depth",
    "check_xml",
    "long_json_string_line",
]
