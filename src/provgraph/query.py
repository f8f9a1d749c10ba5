"""SPARQL query results: iterate them in Python, or serialise them in the W3C result formats
(JSON, XML, CSV, TSV), an RDF syntax for CONSTRUCT/DESCRIBE, or a plain-text table."""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    Literal,
    NamedNode,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Triple,
)

from provgraph.errors import QueryError, QuerySyntaxError, UnsupportedFormatError
from provgraph.models import ExportFormat, ResultFormat
from provgraph.sparql_text import SparqlText

if TYPE_CHECKING:
    from provgraph.store.base import Backend

Term = NamedNode | BlankNode | Literal | Triple

_RESULT_FORMATS = {
    ResultFormat.JSON: QueryResultsFormat.JSON,
    ResultFormat.XML: QueryResultsFormat.XML,
    ResultFormat.CSV: QueryResultsFormat.CSV,
    ResultFormat.TSV: QueryResultsFormat.TSV,
}
RDF_FORMATS = {
    ExportFormat.TRIG: RdfFormat.TRIG,
    ExportFormat.NQUADS: RdfFormat.N_QUADS,
    ExportFormat.JSONLD: RdfFormat.JSON_LD,
    ExportFormat.TURTLE: RdfFormat.TURTLE,
    ExportFormat.NTRIPLES: RdfFormat.N_TRIPLES,
    ExportFormat.RDFXML: RdfFormat.RDF_XML,
}
_POSITION = re.compile(r"^error at (\d+):(\d+): (.*)$", re.S)


def translate_error(exc: QuerySyntaxError, source: SparqlText | None = None) -> QueryError:
    """The engine's syntax error as a QueryError that says in words what was expected, with the
    line and column; with ``source``, the position in the text as the user wrote it (rather than
    the text the engine ran), shown under the query's line."""
    message = exc.reason
    found = _POSITION.match(message)
    if not found:
        return QueryError(message, line=exc.line, column=exc.column)
    line, column = int(found.group(1)), int(found.group(2))
    if source is not None:
        line, column = source.position(line, column)
    text = source.original if source is not None else None
    reason = describe(found.group(3))
    if source is not None and _unfinished(source, line, column):
        reason = f"the text ends before the {'update' if _is_update(source) else 'query'} is complete: {reason}"
    return QueryError(reason, line=line, column=column, text=text)


_EXPECTED = re.compile(r'\s*(?:"(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^,]+)')
#: Oxigraph's own messages among its expectations, in words for people.
_REASONS = {
    "Prefix not found": "a prefix is not declared",
    "IRI parsing failed": "an IRI is not valid (a relative IRI needs a BASE)",
}


def describe(oxigraph: str) -> str:
    """Oxigraph's PEG expectation list (``expected one of ",", "}", ['0'..='9'], OPTIONAL, ...``)
    in words: its own sentences when it has some (``Variables are not allowed in INSERT DATA``),
    else what may come next: punctuation, a few keywords, "a name", "a number"."""
    body = oxigraph.removeprefix("expected one of ").removeprefix("expected ").strip()
    reasons: list[str] = []
    literals: list[str] = []
    keywords: list[str] = []
    kinds: list[str] = []
    for item in (m.group().strip() for m in _EXPECTED.finditer(body)):
        if not item or item in ("[_]", "<unreported>"):
            continue
        if item.startswith('"'):
            token = item[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            literals.append(f'"{token}"' if "'" in token else f"'{token}'")
        elif item.startswith("["):
            kind = "a name" if "'A'" in item else "a number" if item.startswith("['0'") and "'9']" in item else None
            if kind and kind not in kinds:
                kinds.append(kind)
        elif item == "EOF":
            kinds.append("the end of the text")
        elif " " in item:
            reasons.append(_REASONS.get(item, item))
        else:
            keywords.append(item.upper())
    if reasons:
        return "; ".join(dict.fromkeys(reasons))
    options = literals[:8] + kinds
    if keywords:
        shown = ", ".join(keywords[:4]) + (" ..." if len(keywords) > 4 else "")
        options.append(f"a keyword ({shown})")
    if not options:
        return "the text cannot be read here"
    if len(options) == 1:
        return f"expected {options[0]}"
    return "expected " + ", ".join(options[:-1]) + " or " + options[-1]


def _unfinished(source: SparqlText, line: int, column: int) -> bool:
    """Whether the error is at the end of a text whose brackets are still open (Oxigraph puts
    many errors at the furthest point it read, often the end: only open brackets say that the text
    ended too soon)."""
    lines = source.original.splitlines() or [""]
    at_end = line > len(lines) or (line == len(lines) and column > len(lines[-1].rstrip()))
    if not at_end and line < len(lines):
        at_end = not "".join(lines[line:]).strip() and column > len(lines[line - 1].rstrip())
    opened = sum(1 for t in source.tokens if t.kind.name == "PUNCT" and t.text in "{([")
    closed = sum(1 for t in source.tokens if t.kind.name == "PUNCT" and t.text in "})]")
    return at_end and opened > closed


_UPDATE_WORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH"})


def _is_update(source: SparqlText | None) -> bool:
    words = [t.value for t in source.tokens if t.kind.name == "WORD"] if source is not None else []
    return bool(words) and words[0] in {
        "INSERT",
        "DELETE",
        "LOAD",
        "CLEAR",
        "DROP",
        "CREATE",
        "ADD",
        "MOVE",
        "COPY",
        "WITH",
    }


@dataclass(frozen=True)
class QueryDataset:
    """The RDF dataset of a query, in plain values (it crosses process boundaries): the default
    graph as graph IRIs (``None`` standing for the store's own default graph), the named graphs,
    or the union of all graphs; all unset means the query's own FROM, else the store's default."""

    default_graph: tuple[str | None, ...] | None = None
    named_graphs: tuple[str, ...] | None = None
    union: bool = False

    def kwargs(self) -> dict[str, object]:
        """Keyword arguments of :meth:`provgraph.store.base.Backend.query` (to be unpacked, not
        changed: the same datasets come back with every query, and so does this dict)."""
        return _dataset_kwargs(self)


@functools.lru_cache(maxsize=256)
def _dataset_kwargs(dataset: QueryDataset) -> dict[str, object]:
    out: dict[str, object] = {}
    if dataset.union:
        out["union_default_graph"] = True
    if dataset.default_graph is not None:
        out["default_graph"] = tuple(DefaultGraph() if g is None else NamedNode(g) for g in dataset.default_graph)
    if dataset.named_graphs is not None:
        out["named_graphs"] = tuple(NamedNode(g) for g in dataset.named_graphs)
    return out


@dataclass(frozen=True)
class PreparedQuery:
    """A query ready for the engine, in plain values (a query worker in another process runs it
    the same way): the text the engine runs (:attr:`SparqlText.text`: the guards read exactly
    that), its dataset and base IRI."""

    source: SparqlText
    dataset: QueryDataset
    base_iri: str | None

    @property
    def text(self) -> str:
        return self.source.text

    def error(self, exc: QuerySyntaxError) -> QueryError:
        return translate_error(exc, self.source)


def execute(backend: Backend, text: str, dataset: QueryDataset, base_iri: str | None) -> QueryResult:
    """Run a prepared query's text over its dataset: the one way a user's query meets the engine,
    for the API and the HTTP query workers alike. The backend has translated the engine's errors;
    a :class:`~provgraph.errors.QuerySyntaxError` is left for the caller to reword with
    :meth:`PreparedQuery.error` (a query worker lacks the text as written, its server has it)."""
    return QueryResult(backend.query(text, base_iri=base_iri, **dataset.kwargs()))  # type: ignore[arg-type]


class QueryResult:
    """The result of a SPARQL query. SELECT results iterate as ``dict[str, Term | None]`` rows,
    ASK results as ``bool(result)``, CONSTRUCT/DESCRIBE results as pyoxigraph ``Triple``\\s.
    Results are streamed from the store: iterate or serialise them once.
    """

    def __init__(self, raw: QuerySolutions | QueryBoolean | QueryTriples) -> None:
        self._raw = raw

    @property
    def kind(self) -> str:
        """``"select"``, ``"ask"`` or ``"graph"`` (CONSTRUCT/DESCRIBE)."""
        if isinstance(self._raw, QuerySolutions):
            return "select"
        if isinstance(self._raw, QueryBoolean):
            return "ask"
        return "graph"

    @property
    def variables(self) -> list[str]:
        return [v.value for v in self._raw.variables] if isinstance(self._raw, QuerySolutions) else []

    def __bool__(self) -> bool:
        if isinstance(self._raw, QueryBoolean):
            return bool(self._raw)
        raise TypeError("only ASK results are booleans; iterate SELECT and CONSTRUCT results")

    def __iter__(self) -> Iterator[dict[str, Term | None]] | Iterator[Triple]:  # type: ignore[override]
        if isinstance(self._raw, QuerySolutions):
            names = self.variables
            return ({n: row[n] for n in names} for row in self._raw)
        if isinstance(self._raw, QueryTriples):
            return iter(self._raw)
        raise TypeError("ASK results are not iterable; use bool(result)")

    def rows(self) -> list[dict[str, Term | None]]:
        """All SELECT rows, read into a list."""
        if not isinstance(self._raw, QuerySolutions):
            raise TypeError("rows() is for SELECT results")
        return list(self)  # type: ignore[arg-type]

    def serialize(self, fmt: ResultFormat | ExportFormat, output: IO[bytes] | None = None) -> bytes | None:
        """Write the results in ``fmt`` to ``output``, or return them as bytes."""
        if (
            output is None
            and isinstance(fmt, ResultFormat)
            and fmt in _RESULT_FORMATS
            and isinstance(self._raw, QuerySolutions | QueryBoolean)
        ):
            # pyoxigraph's own bytes: writing to a Python file object calls back into Python for
            # every chunk, a measurable part of a small query
            try:
                data = self._raw.serialize(format=_RESULT_FORMATS[fmt])
            except (OSError, RuntimeError, ValueError) as exc:
                raise QueryError(f"evaluating the query failed: {exc}") from exc
            assert data is not None
            return data + b"\n" if fmt in (ResultFormat.JSON, ResultFormat.XML) else data
        target = output if output is not None else io.BytesIO()
        try:
            self._write(fmt, target)
        except (OSError, RuntimeError, ValueError) as exc:
            if isinstance(exc, BrokenPipeError):
                raise
            raise QueryError(f"evaluating the query failed: {exc}") from exc
        if output is None:
            assert isinstance(target, io.BytesIO)
            return target.getvalue()
        return None

    def _write(self, fmt: ResultFormat | ExportFormat, target: IO[bytes]) -> None:
        raw = self._raw
        if fmt is ResultFormat.TABLE:
            target.write(render_table(self).encode("utf-8"))
        elif isinstance(raw, QueryTriples):
            if not isinstance(fmt, ExportFormat):
                raise UnsupportedFormatError(
                    f"CONSTRUCT/DESCRIBE results are RDF: choose turtle, ntriples, rdfxml, jsonld, "
                    f"trig or nquads, not {fmt.value}"
                )
            raw.serialize(target, RDF_FORMATS[fmt])
        else:
            if not isinstance(fmt, ResultFormat):
                raise UnsupportedFormatError(f"SELECT/ASK results use json, xml, csv, tsv or table, not {fmt.value}")
            raw.serialize(target, _RESULT_FORMATS[fmt])
            if fmt in (ResultFormat.JSON, ResultFormat.XML):
                target.write(b"\n")  # CSV and TSV end their rows already


def term_text(term: Term | None) -> str:
    """A compact, readable form of a term for people: IRIs bare, literals by value."""
    if term is None:
        return ""
    if isinstance(term, NamedNode):
        return term.value
    if isinstance(term, Literal):
        if term.language:
            return f"{term.value}@{term.language}"
        return term.value
    return str(term)


def render_table(result: QueryResult, *, max_width: int | None = None) -> str:
    """A plain-text table (SELECT), ``true``/``false`` (ASK), or N-Triples (CONSTRUCT)."""
    if result.kind == "ask":
        return ("true" if bool(result) else "false") + "\n"
    if result.kind == "graph":
        return "".join(f"{t.subject} {t.predicate} {t.object} .\n" for t in result)  # type: ignore[union-attr]
    names = result.variables
    rows = [[_clip(term_text(row[n]), max_width) for n in names] for row in result]  # type: ignore[index]
    widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [rule, "| " + " | ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)) + " |", rule]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows]
    lines.append(rule)
    lines.append(f"{len(rows)} row{'s' if len(rows) != 1 else ''}")
    return "\n".join(lines) + "\n"


def _clip(text: str, width: int | None) -> str:
    text = text.replace("\n", " ")
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


__all__ = [
    "RDF_FORMATS",
    "PreparedQuery",
    "QueryDataset",
    "QueryResult",
    "execute",
    "render_table",
    "term_text",
    "translate_error",
]
