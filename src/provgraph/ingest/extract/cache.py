"""What a model said of a passage, kept so that reading the same passage again costs nothing.

The key is a hash of everything the reply depends on: the model, the prompt's version, the
ontology's phrases, the document's title, the passages before it (for "It") and the passage
itself. The value is the model's reply for that passage, as JSON. An on-disk store keeps the
cache in one SQLite file beside its data (``extraction-cache.sqlite3``); an in-memory store
keeps it for its lifetime. The cache is derived: deleting it only costs model calls. It is not
the store's data, and an ingest refused later (by SHACL, or a model failing on a later batch)
keeps the replies it got: ingesting again after a fix does not pay for them twice.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Protocol

CACHE_FILE = "extraction-cache.sqlite3"


class FactCache(Protocol):
    """A key-value store of replies, safe to share between threads."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str) -> None: ...

    def flush(self) -> None:
        """Make what was put durable, where it can be (called after each ingest)."""
        ...


def cache_key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


class MemoryCache:
    """The in-memory cache: a dictionary."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._data[key] = value

    def items(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._data.items())

    def flush(self) -> None:
        """Nothing to write: memory is where it lives."""


class SqliteCache:
    """The on-disk cache: one table in one SQLite file, made at the first reply kept (an
    ingest without a model leaves no file) and opened per call (ingests are rare and each call
    is one indexed lookup, so no connection is held across threads). Until the store's
    directory exists (the first write makes it), replies are kept in memory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._early = MemoryCache()

    def get(self, key: str) -> str | None:
        if not self.path.exists():
            return self._early.get(key)
        with closing(sqlite3.connect(self.path, timeout=30)) as db:
            row = db.execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        return self._early.get(key) if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        if not self.path.parent.is_dir():
            self._early.put(key, value)
            return
        self._write([(key, value)])

    def flush(self) -> None:
        """Write the replies kept in memory, once the store's directory exists."""
        if self._early.items() and self.path.parent.is_dir():
            self._write(self._early.items())
            self._early = MemoryCache()

    def _write(self, rows: list[tuple[str, str]]) -> None:
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.executemany("INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)", rows)


def cache_for(location: Path | None) -> FactCache:
    """The cache of a store at ``location`` (None: in memory)."""
    return MemoryCache() if location is None else SqliteCache(location / CACHE_FILE)


__all__ = ["CACHE_FILE", "FactCache", "MemoryCache", "SqliteCache", "cache_for", "cache_key"]
