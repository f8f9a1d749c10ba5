"""What an ingest has built, one document at a time, kept on disk until the commit.

An input split into documents (``--split-graphs``) may hold any number of them. What the pipeline
needs of each once it is built (its graph, version and counts, the version it supersedes, its line
in the report) goes to a table in the ingest's spool directory, and validation, commit and report
read it back a batch at a time, so that the memory of an ingest does not grow with its number of
documents. Held in Python lists it was about 3.4 KB a document, most of an ingest's growth in
documents: 100,000 facts in 50,000 documents peaked at 459 MB, 300 with this table (the same facts
in 1,000 documents: 253 and 277).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from provgraph.models import DocumentOutcome, DocumentReport
from provgraph.store.terms import NamedNode

#: An ingest report lists this many documents (the first in key order) and counts the others.
REPORTED_DOCUMENTS = 1000


@dataclass(slots=True)
class Built:
    """A document built into the spool: its new version's graph and what it holds."""

    key: str
    title: str
    content_hash: str
    fingerprint: str
    document: NamedNode
    graph: NamedNode
    version: int
    previous: NamedNode | None  # the current version this one supersedes
    revision_of: NamedNode | None  # the newest version, current or not
    statements: int
    passages: int
    quads: int

    def row(self) -> tuple[str | int | None, ...]:
        return (
            self.key,
            self.title,
            self.content_hash,
            self.fingerprint,
            self.document.value,
            self.graph.value,
            self.version,
            self.previous.value if self.previous is not None else None,
            self.revision_of.value if self.revision_of is not None else None,
            self.statements,
            self.passages,
            self.quads,
        )

    @classmethod
    def of_row(cls, row: tuple[Any, ...]) -> Built:
        key, title, content_hash, fingerprint, document, graph, version, previous, revision_of, *counts = row
        return cls(
            key,
            title,
            content_hash,
            fingerprint,
            NamedNode(document),
            NamedNode(graph),
            version,
            NamedNode(previous) if previous is not None else None,
            NamedNode(revision_of) if revision_of is not None else None,
            *counts,
        )

    @property
    def outcome(self) -> DocumentOutcome:
        return DocumentOutcome.NEW_VERSION if self.revision_of is not None else DocumentOutcome.CREATED

    def report(self) -> DocumentReport:
        return DocumentReport(
            document=self.document.value,
            key=self.key,
            title=self.title,
            outcome=self.outcome,
            graph=self.graph.value,
            version=self.version,
            previous_graph=self.revision_of.value if self.revision_of is not None else None,
            statements=self.statements,
            passages=self.passages,
            quads=self.quads,
            content_hash=self.content_hash,
        )


_FIELDS = (
    "key",
    "title",
    "content_hash",
    "fingerprint",
    "document",
    "graph",
    "version",
    "previous",
    "revision_of",
    "statements",
    "passages",
    "quads",
)
_COLUMNS = ", ".join(_FIELDS)
_INSERT = f"INSERT INTO built ({_COLUMNS}) VALUES ({', '.join('?' * len(_FIELDS))})"


class Ledger:
    """The documents of one ingest: those built (kept on disk, read back in batches) and those
    left unchanged (counted), with totals and the first :data:`REPORTED_DOCUMENTS` for the
    report."""

    _WRITE_BATCH = 1000

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(f"CREATE TABLE built (seq INTEGER PRIMARY KEY, {_COLUMNS})")
        self._pending: list[tuple[str | int | None, ...]] = []
        self.built = self.statements = self.passages = self.quads = 0
        self.outcomes: Counter[DocumentOutcome] = Counter()
        self._first: list[Built | DocumentReport] = []

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *_: object) -> None:
        self._db.close()

    def add(self, built: Built) -> None:
        self._pending.append(built.row())
        if len(self._pending) >= self._WRITE_BATCH:
            self._flush()
        self.built += 1
        self.statements += built.statements
        self.passages += built.passages
        self.quads += built.quads
        self._keep(built)

    def skip(self, unchanged: DocumentReport) -> None:
        self._keep(unchanged)

    def _keep(self, entry: Built | DocumentReport) -> None:
        self.outcomes[entry.outcome] += 1
        self._first.append(entry)
        if len(self._first) >= 2 * REPORTED_DOCUMENTS:  # trimmed now and then: sorting is not per document
            self._first = _first_by_key(self._first)

    def _flush(self) -> None:
        if self._pending:
            self._db.executemany(_INSERT, self._pending)
            self._pending = []

    def __iter__(self) -> Iterator[Built]:
        for batch in self.batches():
            yield from batch

    def batches(self, size: int = _WRITE_BATCH) -> Iterator[list[Built]]:
        """The built documents in the order they were built, ``size`` at a time."""
        self._flush()
        rows = self._db.execute(f"SELECT {_COLUMNS} FROM built ORDER BY seq")
        while batch := rows.fetchmany(size):
            yield [Built.of_row(row) for row in batch]

    def revisions(self) -> list[Built]:
        """The built documents that are new versions of documents the store knows."""
        self._flush()
        found = self._db.execute(f"SELECT {_COLUMNS} FROM built WHERE revision_of IS NOT NULL ORDER BY seq")
        return [Built.of_row(row) for row in found]

    def graphs(self) -> Iterator[str]:
        """The IRIs of the new versions' graphs."""
        self._flush()
        for (graph,) in self._db.execute("SELECT graph FROM built ORDER BY seq"):
            yield graph

    @property
    def documents(self) -> int:
        return sum(self.outcomes.values())

    def reports(self) -> list[DocumentReport]:
        """The first :data:`REPORTED_DOCUMENTS` documents in key order."""
        return [e.report() if isinstance(e, Built) else e for e in _first_by_key(self._first)]


def _first_by_key(entries: list[Built | DocumentReport]) -> list[Built | DocumentReport]:
    return sorted(entries, key=lambda e: e.key)[:REPORTED_DOCUMENTS]
