"""The lexical index of the retriever: entity labels and passage text, in SQLite FTS5.

SQLite is embedded in Python, persistent and transactional; FTS5 ranks with BM25 and its Porter
tokenizer matches inflections ("reduces" for "reduce"). For an on-disk store the index is a file
inside the store's directory (``lexical-index.sqlite3``), for an in-memory store it lives in
memory.

What is indexed, per source graph:

- labels of entities: ``rdfs:label``, ``skos:prefLabel``, ``skos:altLabel``, ``schema:name``,
  ``dcterms:title``, and the local name of every IRI that is the subject or object of a fact
  ("populationTotal" -> "population total", "Green_Gables" -> "Green Gables");
- the text of every passage (``pg:text``);
- per source graph, once it is first retrieved from: whether a passage of it gives orders to
  its reader or vouches for itself (:meth:`LexicalIndex.untrusted`).

Consistency. The index records which graphs it holds. Before every search it compares them with
the current source graphs of the catalog: graphs of new ingests are added, graphs of superseded
or revoked versions removed, in one SQLite transaction. So a search never sees a source the
store no longer holds as current, whichever process ingested or revoked it. The comparison is
skipped while the store's write generation is unchanged.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyoxigraph import BlankNode, QuerySolutions

from provgraph.answer.models import ReasonCode, UntrustedText
from provgraph.answer.text import split_camel
from provgraph.answer.untrusted import DETECTOR_VERSION, excerpt, inspect
from provgraph.store import catalog
from provgraph.store.base import Backend
from provgraph.vocab import DCTERMS_NS, PG_NS, RDF_NS, RDFS_NS

INDEX_FILE = "lexical-index.sqlite3"
SKOS = "http://www.w3.org/2004/02/skos/core#"
SCHEMA = "http://schema.org/"
#: Predicates whose literal objects name their subject.
LABEL_PREDICATES = (
    RDFS_NS + "label",
    SKOS + "prefLabel",
    SKOS + "altLabel",
    SCHEMA + "name",
    "https://schema.org/name",
    DCTERMS_NS + "title",
)

#: Bumped when what is indexed changes: an index of another version is rebuilt.
#: 4: labelled blank nodes are held as "_:id" (they were their bare id, taken for an IRI).
VERSION = 4
_SCHEMA = """
CREATE TABLE IF NOT EXISTS graphs(graph TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS entries(
  id INTEGER PRIMARY KEY, graph TEXT NOT NULL, kind TEXT NOT NULL, iri TEXT NOT NULL, text TEXT NOT NULL,
  pos INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS entries_graph ON entries(graph);
CREATE INDEX IF NOT EXISTS entries_iri ON entries(iri);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  text, content='entries', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
  INSERT INTO fts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN
  INSERT INTO fts(fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TABLE IF NOT EXISTS inspected(
  graph TEXT PRIMARY KEY, detector INTEGER NOT NULL, passage TEXT, code TEXT, signal TEXT, matched TEXT, excerpt TEXT);
"""
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Hit:
    """One match: an entity label or a passage, with its BM25 score (higher is better)."""

    graph: str
    kind: str  # "label" (declared), "name" (an IRI's local name) or "passage"
    iri: str
    text: str
    score: float


def local_name(iri: str) -> str:
    """The readable local name of an IRI: "populationTotal" -> "population total"."""
    local = re.split(r"[/#:]", iri.rstrip("/#"))[-1]
    if local[:1].islower():  # a property's camelCase name: "populationTotal"
        local = split_camel(local).lower()
    return re.sub(r"[_\-+]+", " ", local).strip()


class LexicalIndex:
    """Labels and passages of the current source graphs, searchable by words (see module doc)."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        # one connection, used under a lock: the HTTP server calls from worker threads
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, timeout=30)
        self._lock = threading.RLock()
        self._synced: tuple[int, int] | None = None
        with self._lock, self._db:
            if path is not None:
                self._db.execute("PRAGMA journal_mode=WAL")
            if self._db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                self._db.executescript(
                    "DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS graphs;"
                )
                self._db.execute(f"PRAGMA user_version = {VERSION}")
            self._db.executescript(_SCHEMA)

    @classmethod
    def for_backend(cls, backend: Backend) -> LexicalIndex:
        location = backend.location
        if location is not None and location.is_dir():
            try:
                return cls(location / INDEX_FILE)
            except sqlite3.Error:
                pass  # a store on a read-only medium: index in memory instead
        return cls(None)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ sync

    def sync(self, backend: Backend) -> tuple[int, int]:
        """Bring the index in line with the current source graphs; returns (added, removed)."""
        generation = backend.generation
        if generation is not None and self._synced == (id(backend), generation):
            return 0, 0
        current = {g.value for g in catalog.current_graphs(backend)}
        with self._lock:
            indexed = {row[0] for row in self._db.execute("SELECT graph FROM graphs")}
            added = sorted(current - indexed)
            removed = sorted(indexed - current)
            if added or removed:
                rows = list(_entries(backend, added)) if added else []
                with self._db:
                    # Another process (a server's query worker) may have synced the same graphs
                    # meanwhile: look again inside a write transaction and skip what it added.
                    self._db.execute("BEGIN IMMEDIATE")
                    now = {row[0] for row in self._db.execute("SELECT graph FROM graphs")}
                    added = [g for g in added if g not in now]
                    rows = [r for r in rows if r[0] not in now]
                    removed = [g for g in removed if g in now]
                    for graph in removed:
                        self._db.execute("DELETE FROM entries WHERE graph = ?", (graph,))
                        self._db.execute("DELETE FROM graphs WHERE graph = ?", (graph,))
                        self._db.execute("DELETE FROM inspected WHERE graph = ?", (graph,))
                    self._db.executemany(
                        "INSERT INTO entries(graph, kind, iri, text, pos) VALUES (?, ?, ?, ?, ?)", rows
                    )
                    self._db.executemany("INSERT INTO graphs(graph) VALUES (?)", [(g,) for g in added])
        if generation is not None:
            self._synced = (id(backend), generation)
        return len(added), len(removed)

    # ------------------------------------------------------------------ search

    def search(
        self, words: Iterable[str], *, kinds: Sequence[str], graphs: Sequence[str] | None = None, limit: int = 20
    ) -> list[Hit]:
        """Entries of ``kinds`` ('label', 'name', 'passage') matching any of ``words``, best first
        (BM25), in ``graphs`` only when given."""
        terms = [t for w in words for t in _TOKEN.findall(w)]
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', "") + '"' for t in dict.fromkeys(terms))
        sql = (
            "SELECT e.graph, e.kind, e.iri, e.text, bm25(fts) AS rank FROM fts JOIN entries e ON e.id = fts.rowid "
            f"WHERE fts MATCH ? AND e.kind IN ({','.join('?' * len(kinds))})"
        )
        params: list[object] = [match, *kinds]
        if graphs is not None:
            if not graphs:
                return []
            sql += f" AND e.graph IN ({','.join('?' * len(graphs))})"
            params += list(graphs)
        sql += " ORDER BY rank, e.iri LIMIT ?"
        params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        # FTS5's bm25() is lower for better matches; a reader expects higher
        return [Hit(graph, k, iri, text, -float(rank)) for graph, k, iri, text, rank in rows]

    def first_passages(self, graph: str, count: int) -> list[Hit]:
        """The first ``count`` passages of a source graph, in document order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT graph, kind, iri, text FROM entries WHERE graph = ? AND kind = 'passage' "
                "ORDER BY pos, id LIMIT ?",
                (graph, count),
            ).fetchall()
        return [Hit(g, k, iri, text, 0.0) for g, k, iri, text in rows]

    def untrusted(self, graphs: Iterable[str]) -> dict[str, UntrustedText]:
        """The source graphs among ``graphs`` that have a passage giving orders to its reader or
        vouching for itself (:func:`provgraph.answer.untrusted.inspect`), each with the first
        such passage in document order. A graph is inspected once, on first need, and the result
        kept (a source graph is one version of a document and never changes) until the detector
        changes (:data:`~provgraph.answer.untrusted.DETECTOR_VERSION`)."""
        wanted = list(dict.fromkeys(graphs))
        out: dict[str, UntrustedText] = {}
        with self._lock:
            known: set[str] = set()
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    "SELECT graph, passage, code, signal, matched, excerpt FROM inspected "
                    f"WHERE detector = ? AND graph IN ({','.join('?' * len(chunk))})",
                    [DETECTOR_VERSION, *chunk],
                ).fetchall()
                for graph, passage, code, signal, matched, snippet in rows:
                    known.add(graph)
                    if code is not None:
                        out[graph] = UntrustedText(
                            code=ReasonCode(code), signal=signal, matched=matched, passage=passage, excerpt=snippet
                        )
            fresh = []
            for graph in (g for g in wanted if g not in known):
                found = None
                for iri, text in self._db.execute(
                    "SELECT iri, text FROM entries WHERE graph = ? AND kind = 'passage' ORDER BY pos, id", (graph,)
                ):
                    finding = inspect(text)
                    if finding is not None:
                        found = UntrustedText(
                            code=finding.code,
                            signal=finding.signal,
                            matched=finding.matched,
                            passage=iri,
                            excerpt=excerpt(text),
                        )
                        out[graph] = found
                        break
                found_row = (
                    (found.passage, found.code.value, found.signal, found.matched, found.excerpt) if found else None
                )
                fresh.append((graph, DETECTOR_VERSION, *(found_row or (None,) * 5)))
            if fresh:
                with self._db:
                    self._db.executemany("INSERT OR REPLACE INTO inspected VALUES (?, ?, ?, ?, ?, ?, ?)", fresh)
        return out

    def labels(self, iris: Iterable[str]) -> dict[str, str]:
        """An indexed label of each IRI that has one (declared labels before local names)."""
        wanted = list(dict.fromkeys(iris))
        out: dict[str, str] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    f"SELECT iri, text, kind FROM entries WHERE kind IN ('label', 'name') "
                    f"AND iri IN ({','.join('?' * len(chunk))}) ORDER BY kind, id",
                    chunk,
                ).fetchall()
                for iri, text, _ in rows:
                    out.setdefault(iri, text)
        return out


def _entries(backend: Backend, graphs: Sequence[str]) -> Iterable[tuple[str, str, str, str, int]]:
    """(graph, kind, iri, text, position) rows of ``graphs``: declared labels ('label'), local names of
    fact subjects and objects ('name') and passages ('passage')."""
    labels = " ".join(f"<{p}>" for p in LABEL_PREDICATES)
    for start in range(0, len(graphs), 200):
        chunk = " ".join(f"<{g}>" for g in graphs[start : start + 200])
        result = backend.query(
            f"""SELECT ?g ?kind ?x ?text ?pos WHERE {{
  VALUES ?g {{ {chunk} }}
  {{ VALUES ?lp {{ {labels} }} GRAPH ?g {{ ?x ?lp ?text FILTER(isLiteral(?text)) }} BIND("label" AS ?kind) }}
  UNION {{ GRAPH ?g {{ ?x a <{PG_NS}Passage> ; <{PG_NS}text> ?text OPTIONAL {{ ?x <{PG_NS}startOffset> ?pos }} }}
           BIND("passage" AS ?kind) }}
  UNION {{ SELECT DISTINCT ?g ?x ("name" AS ?kind) WHERE {{
      GRAPH ?g {{ {{ ?st <{RDF_NS}subject> ?x }} UNION {{ ?st <{RDF_NS}object> ?x }} }} FILTER(isIRI(?x)) }} }}
}}"""
        )
        assert isinstance(result, QuerySolutions)
        for row in result:
            graph, kind, term = row["g"].value, row["kind"].value, row["x"]  # type: ignore[union-attr]
            # a labelled blank node ("[] rdfs:label ...") keeps its "_:" so it is never read as an IRI
            x = str(term) if isinstance(term, BlankNode) else term.value  # type: ignore[union-attr]
            text = row["text"].value if row["text"] is not None else local_name(x)  # type: ignore[union-attr]
            pos = int(row["pos"].value) if row["pos"] is not None else 0  # type: ignore[union-attr]
            if text.strip():
                yield graph, kind, x, text, pos


__all__ = ["INDEX_FILE", "LABEL_PREDICATES", "Hit", "LexicalIndex", "local_name"]
