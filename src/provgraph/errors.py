"""The exceptions provgraph raises. Every one derives from :class:`ProvGraphError`.

::

    ProvGraphError
    ├── InputError                 bad input file or arguments (carries file, line, column)
    │   ├── UnsupportedFormatError unknown or unsupported input/output format
    │   └── EmptyInputError        a file with nothing to ingest
    ├── ValidationFailedError      a graph does not conform to the SHACL shapes (carries the report)
    ├── QueryError                 a SPARQL query or update is malformed or failed (carries position)
    │   └── QuerySyntaxError       the engine cannot read a text (position as the engine read it)
    ├── StoreError                 the store cannot be opened or written
    │   ├── StoreLockedError       another process holds the store (names the holder)
    │   ├── StoreNotFoundError     no store at the given path
    │   ├── StoreNotEmptyError     a restore into a store that holds data
    │   └── ReadOnlyStoreError     a write on a store opened read-only
    ├── WriteRefusedError          a write that would bypass provenance (source graphs, the catalog)
    ├── NotFoundError              an unknown document, graph, statement or answer
    ├── ConfirmationRequiredError  a revocation would invalidate more answers than allowed unconfirmed
    └── GenerationError            a generator could not draft an answer (model server down, bad output)

Library errors (pyoxigraph's ``SyntaxError``/``OSError``, pyshacl's, pydantic's) are translated at
the boundary with ``raise ... from exc`` so callers can catch one root.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from provgraph.models import ValidationReport


class ProvGraphError(Exception):
    """Root of every error provgraph raises."""

    exit_code: int = 2

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(ProvGraphError):
    """Bad input: names the file and, when known, the line and column."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.column = column
        where = ""
        if file is not None:
            where = file
            if line is not None:
                where += f":{line}"
                if column is not None:
                    where += f":{column}"
            where += ": "
        super().__init__(where + message)
        self.reason = message


class UnsupportedFormatError(InputError):
    """The format of an input or output is unknown or unsupported."""


class EmptyInputError(InputError):
    """The input holds nothing to ingest."""


class ValidationFailedError(ProvGraphError):
    """A graph does not conform to the SHACL shapes; nothing was written."""

    exit_code = 1

    def __init__(self, report: ValidationReport, *, file: str | None = None) -> None:
        self.report = report
        self.file = file
        prefix = f"{file}: " if file else ""
        super().__init__(prefix + report.summary())


class QueryError(ProvGraphError):
    """A SPARQL query or update is malformed or failed; carries the position when known and, with
    ``text``, shows the line of the query with a caret under that position."""

    def __init__(
        self, message: str, *, line: int | None = None, column: int | None = None, text: str | None = None
    ) -> None:
        self.line = line
        self.column = column
        self.reason = message
        where = f"line {line}, column {column}: " if line is not None and column is not None else ""
        shown = f"SPARQL error: {where}{message}"
        if text is not None and line is not None and column is not None:
            lines = text.splitlines() or [""]
            if 0 < line <= len(lines):
                source, caret = lines[line - 1].replace("\t", " "), max(column, 1) - 1
                if len(source) > 100:  # a window around the position on a long line
                    start = max(0, min(caret - 60, len(source) - 100))
                    source, caret = source[start : start + 100], caret - start
                shown += f"\n  {source}\n  {' ' * caret}^"
        super().__init__(shown)


class QuerySyntaxError(QueryError):
    """The engine cannot read a query or update: the engine's message and the position in the
    text it was given, raised by a backend. The core rewords it against the text as the user
    wrote it (:func:`provgraph.query.translate_error`), so users see a plain QueryError."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message, line=line, column=column)


class StoreError(ProvGraphError):
    """The store cannot be opened, read or written."""


class StoreLockedError(StoreError):
    """Another process holds the store for writing."""

    def __init__(self, message: str, *, holder: dict[str, object] | None = None) -> None:
        self.holder = holder
        super().__init__(message)


class ConcurrentWriteError(StoreError):
    """Another writer committed to a shared store (a SPARQL server) between this write's reads
    and its commit; nothing of this write was written. Running it again reads the new state."""


class StoreNotFoundError(StoreError):
    """There is no provgraph store at the given path."""


class StoreNotEmptyError(StoreError):
    """A restore into a store that already holds data (a restore never merges)."""


class ReadOnlyStoreError(StoreError):
    """A write was attempted on a store opened read-only."""


class WriteRefusedError(ProvGraphError):
    """A write that would bypass provenance: source graphs and the catalog change by ingest only."""


class NotFoundError(ProvGraphError):
    """An unknown document, graph or statement."""


class ConfirmationRequiredError(ProvGraphError):
    """A revocation would invalidate more recorded answers than allowed without confirmation
    (``confirm=True``, ``--confirm``, ``"confirm": true``); nothing was written."""

    def __init__(self, message: str, *, count: int) -> None:
        super().__init__(message)
        self.count = count


class GenerationError(ProvGraphError):
    """A generator could not draft an answer: the model server failed, refused, or returned
    output that does not fit the schema. ``pg.ask`` falls back to the extractive generator."""


__all__ = [
    "ConcurrentWriteError",
    "EmptyInputError",
    "GenerationError",
    "InputError",
    "NotFoundError",
    "ProvGraphError",
    "QueryError",
    "ReadOnlyStoreError",
    "StoreError",
    "StoreLockedError",
    "StoreNotEmptyError",
    "StoreNotFoundError",
    "UnsupportedFormatError",
    "ValidationFailedError",
    "WriteRefusedError",
]
