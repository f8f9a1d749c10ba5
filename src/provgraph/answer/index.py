"""The lexical index of the retriever: entity labels and passage text, in SQLite FTS5.

SQLite is embedded in Python, persistent and transactional; FTS5 ranks with BM25 and its Porter
tokenizer matches inflections ("reduces" for "reduce"). For an on-disk store the index is a file
inside the store's directory (``lexical-index.sqlite3``), for an in-memory store it lives in
memory.

What is indexed, per source graph:

- labels of entities: ``rdfs:label``, ``skos:prefLabel``, ``skos:altLabel``, ``schema:name``,
  ``dcterms:title``, and the local name of every IRI that is the subject or object of a fact
  ("populationTotal" -> "population total", "Green_Gables" -> "Green Gables");
- the text of every passage (``pg:text``), searched with a context (at :data:`CONTEXT_WEIGHT`):
  its document's title, its section heading (``pg:section``), and for a sentence that names its
  subject by its kind ("The conference was ..."), the last name of that kind in the sentences
  before it ("... the America East Conference."). A sentence that names its subject only as "It",
  or only under a heading, is still found; a passage's heading is part of its evidence;
- per passage opening with "It", "She" or "The company", the name it stands for when that is not
  its document's title (``referent``: "K2" after "K2 is the second-highest mountain" in "Mount
  Everest"), which the answer's claim states in its place;
- per source graph, once it is first retrieved from: whether a passage of it gives orders to
  its reader or vouches for itself (:meth:`LexicalIndex.untrusted`).

Consistency. The index is a derived view (:mod:`provgraph.store.derived`): it keeps the stamp of
the store state it reflects, and before every search it catches up from the change log: graphs of
new ingests are added, graphs of superseded or revoked versions removed, in one SQLite
transaction, without reading the catalog. So a search never sees a source the store no longer
holds as current, whichever process ingested or revoked it.

It also keeps each indexed graph's document (key, title, URL, tier, issue date) and its title's
words, so that the retriever learns what it needs of the sources it found, and which documents a
question names, without reading the catalog either.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from string import Template
from typing import IO

from provgraph.answer.models import AskFilters, ReasonCode, UntrustedText
from provgraph.answer.text import (
    NAME_CONNECTORS,
    PRONOUNS,
    SECTION_SEPARATOR,
    STOP_WORDS,
    mentions,
    normalise,
    opening_name,
    split_camel,
    without_disambiguation,
    word_key,
    word_keys,
    words,
)
from provgraph.answer.untrusted import DETECTOR_VERSION, excerpt, inspect
from provgraph.store import catalog, derived
from provgraph.store.base import Backend
from provgraph.store.changes import Changes
from provgraph.store.terms import BlankNode, sparql_term, sparql_terms
from provgraph.vocab import DCTERMS_NS, PG_NS, RDFS_NS

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
#: Weight of a passage's context (its document's title) in its BM25 score, against its text's 1.
#: HotpotQA development half: 0, 0.3, 0.5, 1 gave sentence recall 47.0, 49.0, 48.0, 45.7 and
#: precision 58.7, 59.5, 58.5, 55.8.
CONTEXT_WEIGHT = 0.3
#: Longest title (in words) a text is searched for (:meth:`LexicalIndex.named`).
MAX_TITLE_WORDS = 8

#: Bumped when what is indexed changes: an index of another version is rebuilt.
#: 4: labelled blank nodes are held as "_:id" (they were their bare id, taken for an IRI).
#: 5: the change log's stamp, and each indexed source's document and title words.
#: 6: a passage is searched with its document's title (``context``): "It was founded by ..."
#: 7: and with its section heading, and the name a definite description stands for.
#: 8: and the name an opening pronoun stands for when the title does not (``referent``).
#: 9: no referent opens with a determiner ("This release" for "The release"); one keeps "the"
#:    when its source gives it ("the Supreme Court" for "The court"); "They" after a sentence
#:    opening with a plural is that plural ("Lactase supplements").
#: 10: "She" stands for no names joined by "and"; a sentence opening with a word of the title's
#:    name ("Franklin later led ..." in "Rosalind Franklin") is about the title again; one opening
#:    with the last word of a name read before ("Edgecombe was ...") stands for that name; a
#:    determiner opens no name of a kind in capitals ("This Master Services Agreement").
VERSION = 10
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
  graph TEXT PRIMARY KEY, document TEXT NOT NULL, key TEXT NOT NULL, title TEXT NOT NULL, url TEXT,
  tier INTEGER, issued TEXT, day TEXT);
CREATE INDEX IF NOT EXISTS sources_document ON sources(document);
CREATE INDEX IF NOT EXISTS sources_key ON sources(key);
CREATE TABLE IF NOT EXISTS titles(words TEXT NOT NULL, graph TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS titles_words ON titles(words);
CREATE INDEX IF NOT EXISTS titles_graph ON titles(graph);
CREATE TABLE IF NOT EXISTS entries(
  id INTEGER PRIMARY KEY, graph TEXT NOT NULL, kind TEXT NOT NULL, iri TEXT NOT NULL, text TEXT NOT NULL,
  pos INTEGER NOT NULL DEFAULT 0, context TEXT NOT NULL DEFAULT '', section TEXT NOT NULL DEFAULT '',
  referent TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS entries_graph ON entries(graph);
CREATE INDEX IF NOT EXISTS entries_iri ON entries(iri);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  text, context, content='entries', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
  INSERT INTO fts(rowid, text, context) VALUES (new.id, new.text, new.context); END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN
  INSERT INTO fts(fts, rowid, text, context) VALUES ('delete', old.id, old.text, old.context); END;
CREATE TABLE IF NOT EXISTS inspected(
  graph TEXT PRIMARY KEY, detector INTEGER NOT NULL, passage TEXT, code TEXT, signal TEXT, matched TEXT, excerpt TEXT);
"""
_TABLES = ("fts", "entries", "graphs", "sources", "titles", "meta", "inspected")
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_SEP = "\x1f"


@dataclass(frozen=True)
class Hit:
    """One match: an entity label or a passage, with its BM25 score (higher is better)."""

    graph: str
    kind: str  # "label" (declared), "name" (an IRI's local name) or "passage"
    iri: str
    text: str
    score: float
    #: a passage's section heading, or ""
    section: str = ""
    #: the name a passage's opening "It" or "The company" stands for, when not its title
    #: (:func:`_subjects`, :func:`_referent`), or ""
    referent: str = ""


@dataclass(frozen=True)
class Source:
    """A current source graph and its document's metadata."""

    graph: str
    document: str
    key: str
    title: str
    url: str | None
    tier: int | None
    issued: str | None


#: (graph, kind, iri, text, position, section) of an indexed entry.
_Entry = tuple[str, str, str, str, int, str]
#: How many sentences back a definite description ("The conference") looks for its name.
REFERENT_WINDOW = 3


@dataclass(frozen=True)
class _Delta:
    """What a catch-up does to the index: graphs out, graphs in (their sources and entries);
    everything out first when ``reset``."""

    reset: bool
    removed: tuple[str, ...]
    sources: tuple[Source, ...]
    entries: tuple[_Entry, ...]


def local_name(iri: str) -> str:
    """The readable local name of an IRI: "populationTotal" -> "population total"."""
    local = re.split(r"[/#:]", iri.rstrip("/#"))[-1]
    if local[:1].islower():  # a property's camelCase name: "populationTotal"
        local = split_camel(local).lower()
    return re.sub(r"[_\-+]+", " ", local).strip()


def title_key(title: str) -> tuple[str, ...] | None:
    """A title as the words a text names it by, without a trailing qualifier ("Big Stone Gap
    (film)"); None for a title too long, or one stop word."""
    key = tuple(words(without_disambiguation(title)))
    if not key or len(key) > MAX_TITLE_WORDS or (len(key) == 1 and key[0] in STOP_WORDS):
        return None
    return key


def _day(issued: str | None) -> str | None:
    if not issued:
        return None
    try:
        return date.fromisoformat(issued[:10]).isoformat()
    except ValueError:
        return None


class LexicalIndex:
    """Labels and passages of the current source graphs, searchable by words (see module doc)."""

    #: The index depends on the sources alone.
    uses_ontology = False

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._held: IO[bytes] | None = None  # the lock of an index in a directory (for_backend)
        # one connection, used under a lock: the HTTP server calls from worker threads
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, timeout=30)
        self._lock = threading.RLock()
        with self._lock, self._db:
            if path is not None:
                self._db.execute("PRAGMA journal_mode=WAL")
            if self._db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                self._db.executescript("".join(f"DROP TABLE IF EXISTS {t};" for t in _TABLES))
                self._db.execute(f"PRAGMA user_version = {VERSION}")
            self._db.executescript(_SCHEMA)

    @classmethod
    def for_backend(cls, backend: Backend, *, directory: Path | None = None) -> LexicalIndex:
        """The index of ``backend``: a file in an on-disk store's directory; for a store without
        one (a SPARQL server), a file in ``directory`` when given and no other process holds it
        (its stamp names the store's change log: another store's index is rebuilt); else in
        memory."""
        location = backend.location
        if location is not None and location.is_dir():
            try:
                return cls(location / INDEX_FILE)
            except sqlite3.Error:
                pass  # a store on a read-only medium: index in memory instead
        elif location is None and directory is not None:
            held = _hold(directory / (INDEX_FILE + ".lock"))
            if held is not None:
                try:
                    index = cls(directory / INDEX_FILE)
                except sqlite3.Error:
                    held.close()
                else:
                    index._held = held
                    return index
        return cls(None)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._held is not None:
                self._held.close()  # and with it the lock

    # ------------------------------------------------------------------ the derived view

    def sync(self, backend: Backend) -> None:
        """Bring the index in line with the current source graphs (:func:`derived.catch_up`)."""
        derived.catch_up(backend, self, f"index:{id(self)}")

    def stored(self, backend: Backend) -> derived.Stamp | None:  # noqa: ARG002 - kept beside, not in, the store
        with self._lock:
            return self._stamp()

    def _stamp(self) -> derived.Stamp | None:
        rows = dict(self._db.execute("SELECT key, value FROM meta WHERE key IN ('log', 'generation')").fetchall())
        if "generation" not in rows:
            return None
        return derived.Stamp(rows.get("log", ""), int(rows["generation"]))

    def writable(self, backend: Backend) -> bool:  # noqa: ARG002
        return True  # a file of its own beside the store, or memory

    def compute(self, backend: Backend, since: Changes | None) -> _Delta:
        if since is None:
            added = sorted(g.value for g in catalog.current_graphs(backend))
            removed: list[str] = []
        else:
            added, removed = sorted(since.added), sorted(since.removed)
        return _Delta(since is None, tuple(removed), tuple(_sources(backend, added)), tuple(_entries(backend, added)))

    def write(self, backend: Backend, result: _Delta, target: derived.Stamp) -> None:  # noqa: ARG002
        with self._lock, self._db:
            # Another process (a server's query worker) may have caught up meanwhile: look again
            # inside a write transaction; never go back to an older state.
            self._db.execute("BEGIN IMMEDIATE")
            now = self._stamp()
            if now is not None and now.log == target.log and now.generation >= target.generation:
                return
            if result.reset:
                for table in ("entries", "sources", "titles", "inspected"):
                    self._db.execute(f"DELETE FROM {table}")
            for graph in result.removed:
                for table in ("entries", "sources", "titles", "inspected"):
                    self._db.execute(f"DELETE FROM {table} WHERE graph = ?", (graph,))
            # what another process indexed meanwhile is skipped: looked up graph by graph (the
            # whole list would cost as much as the number of documents)
            indexed = {
                s.graph
                for s in result.sources
                if not result.reset
                and self._db.execute("SELECT 1 FROM sources WHERE graph = ?", (s.graph,)).fetchone() is not None
            }
            fresh = [s for s in result.sources if s.graph not in indexed]
            keep = {s.graph for s in fresh}
            self._db.executemany(
                "INSERT INTO sources(graph, document, key, title, url, tier, issued, day) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(s.graph, s.document, s.key, s.title, s.url, s.tier, s.issued, _day(s.issued)) for s in fresh],
            )
            self._db.executemany(
                "INSERT INTO titles(words, graph) VALUES (?, ?)",
                [(_SEP.join(k), s.graph) for s in fresh if (k := title_key(s.title)) is not None],
            )
            # a passage is read in its document: "It was founded by ..." is about the title's subject
            entries = [e for e in result.entries if e[0] in keep]
            contexts = _contexts(entries, {s.graph: s.title for s in fresh})
            self._db.executemany(
                "INSERT INTO entries(graph, kind, iri, text, pos, context, section, referent) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (g, k, iri, text, pos, context, section, referent)
                    for g, k, iri, text, pos, section in entries
                    for context, referent in [contexts.get(iri, ("", ""))]
                ],
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                [("log", target.log), ("generation", str(target.generation))],
            )

    # ------------------------------------------------------------------ sources

    def sources(self, graphs: Iterable[str], filters: AskFilters | None = None) -> dict[str, Source]:
        """The indexed sources among ``graphs`` that pass ``filters``."""
        wanted = list(dict.fromkeys(graphs))
        where, params = _scope(filters)
        out: dict[str, Source] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    "SELECT graph, document, key, title, url, tier, issued FROM sources "
                    f"WHERE graph IN ({','.join('?' * len(chunk))}){where}",
                    [*chunk, *params],
                ).fetchall()
                for row in rows:
                    out[row[0]] = Source(*row)
        return out

    def documents(self, iris: Iterable[str]) -> set[str]:
        """Those of ``iris`` that are documents of indexed sources."""
        wanted = list(dict.fromkeys(iris))
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                found.update(
                    d
                    for (d,) in self._db.execute(
                        f"SELECT document FROM sources WHERE document IN ({','.join('?' * len(chunk))})", chunk
                    )
                )
        return found

    def named(
        self, keys: Iterable[tuple[str, ...]], filters: AskFilters | None = None
    ) -> dict[tuple[str, ...], list[Source]]:
        """The sources whose :func:`title_key` is one of ``keys`` (and that pass ``filters``)."""
        wanted = list(dict.fromkeys(_SEP.join(k) for k in keys))
        where, params = _scope(filters, alias="s")
        out: dict[tuple[str, ...], list[Source]] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    "SELECT t.words, s.graph, s.document, s.key, s.title, s.url, s.tier, s.issued "
                    "FROM titles t JOIN sources s ON s.graph = t.graph "
                    f"WHERE t.words IN ({','.join('?' * len(chunk))}){where} ORDER BY s.graph",
                    [*chunk, *params],
                ).fetchall()
                for key, *source in rows:
                    out.setdefault(tuple(key.split(_SEP)), []).append(Source(*source))
        return out

    # ------------------------------------------------------------------ search

    def search(
        self,
        words: Iterable[str],
        *,
        kinds: Sequence[str],
        graphs: Sequence[str] | None = None,
        filters: AskFilters | None = None,
        limit: int = 20,
    ) -> list[Hit]:
        """Entries of ``kinds`` ('label', 'name', 'passage') matching any of ``words``, best first
        (BM25), in ``graphs`` only when given, of sources that pass ``filters``."""
        terms = [t for w in words for t in _TOKEN.findall(w)]
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', "") + '"' for t in dict.fromkeys(terms))
        hits = self._search(match, kinds=kinds, graphs=graphs, filters=filters, limit=limit)
        # "injured" and "injuries" stem apart ("injur", "injuri"): when no word is found as it is
        # inflected, its inflections are (the prefix every other check matches words by)
        keys = sorted({k for t in terms if t.isalpha() and len(k := word_key(t.lower())) == 5})
        if hits or not keys:
            return hits
        return self._search(
            " OR ".join(f'"{k}"*' for k in keys), kinds=kinds, graphs=graphs, filters=filters, limit=limit
        )

    def _search(
        self,
        match: str,
        *,
        kinds: Sequence[str],
        graphs: Sequence[str] | None,
        filters: AskFilters | None,
        limit: int,
    ) -> list[Hit]:
        sql = (
            f"SELECT e.graph, e.kind, e.iri, e.text, bm25(fts, 1.0, {CONTEXT_WEIGHT}) AS rank, e.section, e.referent "
            "FROM fts JOIN entries e ON e.id = fts.rowid "
            f"WHERE fts MATCH ? AND e.kind IN ({','.join('?' * len(kinds))})"
        )
        params: list[object] = [match, *kinds]
        if graphs is not None:
            if not graphs:
                return []
            sql += f" AND e.graph IN ({','.join('?' * len(graphs))})"
            params += list(graphs)
        where, scope = _scope(filters)
        if where:
            sql += f" AND e.graph IN (SELECT graph FROM sources WHERE 1{where})"
            params += scope
        sql += " ORDER BY rank, e.iri LIMIT ?"
        params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        # FTS5's bm25() is lower for better matches; a reader expects higher
        return [Hit(g, k, iri, text, -float(rank), section, ref) for g, k, iri, text, rank, section, ref in rows]

    def first_passages(self, graph: str, count: int) -> list[Hit]:
        """The first ``count`` passages of a source graph, in document order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT graph, kind, iri, text, section, referent FROM entries WHERE graph = ? AND kind = 'passage' "
                "ORDER BY pos, id LIMIT ?",
                (graph, count),
            ).fetchall()
        return [Hit(g, k, iri, text, 0.0, section, referent) for g, k, iri, text, section, referent in rows]

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

    def labels(self, iris: Iterable[str], *, declared: bool = False) -> dict[str, str]:
        """An indexed label of each IRI that has one (declared labels before local names;
        ``declared``: declared labels only)."""
        wanted = list(dict.fromkeys(iris))
        out: dict[str, str] = {}
        kinds = "('label')" if declared else "('label', 'name')"
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    f"SELECT iri, text, kind FROM entries WHERE kind IN {kinds} "
                    f"AND iri IN ({','.join('?' * len(chunk))}) ORDER BY kind, id",
                    chunk,
                ).fetchall()
                for iri, text, _ in rows:
                    out.setdefault(iri, text)
        return out


def _hold(lock: Path) -> IO[bytes] | None:
    """``lock`` opened and locked for this process alone, or None: another process holds it
    (two processes catching one SQLite index up at once would each apply the same changes), or
    the directory cannot be written, or the system has no advisory locks."""
    try:
        import fcntl

        lock.parent.mkdir(parents=True, exist_ok=True)
        held = lock.open("ab")
    except (ImportError, OSError):
        return None
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        return None
    return held


def _scope(filters: AskFilters | None, *, alias: str = "") -> tuple[str, list[object]]:
    """An SQL condition (" AND ...") on the sources table for ``filters``, and its parameters."""
    if filters is None:
        return "", []
    column = (alias + ".") if alias else ""
    where, params = "", list[object]()
    if filters.documents:
        marks = ",".join("?" * len(filters.documents))
        where += f" AND ({column}key IN ({marks}) OR {column}document IN ({marks}))"
        params += [*filters.documents, *filters.documents]
    if filters.max_tier is not None:
        where += f" AND {column}tier IS NOT NULL AND {column}tier <= ?"
        params.append(filters.max_tier)
    if filters.issued_after is not None:
        where += f" AND {column}day IS NOT NULL AND {column}day >= ?"
        params.append(filters.issued_after.isoformat())
    return where, params


#: The document of each graph of ``$graphs`` and its key.
SOURCE_DOCUMENTS = Template("""SELECT ?g ?d ?key WHERE { VALUES ?g { $graphs }
  GRAPH pgid:catalog { ?g pg:document ?d } GRAPH ?g { ?d pg:documentKey ?key } }""")
#: One metadata property ``$predicate`` of the documents of ``$pairs`` ((graph document) pairs):
#: a property per query, as direct lookups (an OPTIONAL would be evaluated over every graph of
#: the store). The predicate is written into the text, not bound with ``substitutions=``:
#: Oxigraph binds only a projected variable so, and read the bound pattern 10-20% slower.
SOURCE_PROPERTY = Template("SELECT ?g ?x WHERE { VALUES (?g ?d) { $pairs } GRAPH ?g { ?d $predicate ?x } }")
#: The metadata properties of a source's document, by the field of :class:`Source` they fill.
SOURCE_FIELDS = {
    "title": DCTERMS_NS + "title",
    "url": PG_NS + "sourceUrl",
    "tier": PG_NS + "tier",
    "issued": DCTERMS_NS + "issued",
}
#: Graphs of an ingest per metadata lookup, and per entries lookup (:func:`_entries`).
SOURCES_CHUNK = 500
ENTRIES_CHUNK = 200

# The entries of the graphs ``$graphs``, one query per kind, each with the graphs bound inside
# it: as branches of one UNION joined with the graphs, Oxigraph read the label branch over every
# graph (50-75 ms for one graph at 1,000 documents, 7 ms alone).
#: Declared labels. Each label predicate a constant of its own: from a VALUES of them, Oxigraph
#: read every graph's labels (1.7 s for 20 graphs at 100,000 documents; 23 ms for 200 like this).
LABEL_ENTRIES = Template(
    "SELECT ?g ?x ?text WHERE { VALUES ?g { $graphs }\n  { "
    + " UNION ".join("{ GRAPH ?g { ?x " + sparql_term(p) + " ?text } }" for p in LABEL_PREDICATES)
    + " } FILTER(isLiteral(?text)) }"
)
#: Passages, with their position in the document when known.
PASSAGE_ENTRIES = Template("""SELECT ?g ?x ?text ?pos ?section WHERE { VALUES ?g { $graphs }
  GRAPH ?g { ?x a pg:Passage ; pg:text ?text }
  OPTIONAL { VALUES ?g { $graphs } GRAPH ?g { ?x pg:startOffset ?pos } }
  OPTIONAL { VALUES ?g { $graphs } GRAPH ?g { ?x pg:section ?section } } }""")
#: The IRIs that are the subject or object of a fact in the graph ``$graph``: their local names.
#: One branch a graph, the graph a constant, ``NAME_GRAPHS`` branches a query: Virtuoso 7.2 read
#: a VALUES of graphs here at a cost a graph that grew with the store (10.6 ms at 100k facts,
#: 18.7 ms at 300k: nearly all of the index's build), the union at 8.5 ms at 300k; Oxigraph reads
#: both alike (0.22 and 0.23 s for 200 graphs at 100k).
NAME_ENTRIES = Template("{ GRAPH $graph { { ?st rdf:subject ?x } UNION { ?st rdf:object ?x } } BIND($graph AS ?g) }")
NAME_GRAPHS = 20
_ENTRY_QUERIES = {"label": LABEL_ENTRIES, "passage": PASSAGE_ENTRIES}


def _names_query(graphs: Sequence[str]) -> str:
    branches = " UNION ".join(NAME_ENTRIES.substitute(graph=sparql_term(g)) for g in graphs)
    return f"SELECT DISTINCT ?g ?x WHERE {{ {branches} FILTER(isIRI(?x)) }}"


def _sources(backend: Backend, graphs: Sequence[str]) -> Iterable[Source]:
    """The document of each of ``graphs`` with its metadata (see :data:`SOURCE_DOCUMENTS`)."""
    for start in range(0, len(graphs), SOURCES_CHUNK):
        chunk = sparql_terms(graphs[start : start + SOURCES_CHUNK])
        found: dict[str, dict[str, str]] = {}
        for row in backend.stream(SOURCE_DOCUMENTS.substitute(graphs=chunk)):
            found.setdefault(row.value("g"), {"document": row.value("d"), "key": row.value("key")})
        pairs = " ".join(f"({sparql_term(g)} {sparql_term(v['document'])})" for g, v in found.items())
        if not pairs:
            continue
        for name, prop in SOURCE_FIELDS.items():
            query = SOURCE_PROPERTY.substitute(pairs=pairs, predicate=sparql_term(prop))
            for row in backend.stream(query):
                found[row.value("g")].setdefault(name, row.value("x"))
        for graph, v in sorted(found.items()):
            tier = v.get("tier")
            yield Source(
                graph=graph,
                document=v["document"],
                key=v["key"],
                title=v.get("title", v["key"]),
                url=v.get("url"),
                # a tier that is not an integer is no tier: the source is still indexed
                tier=int(tier) if tier is not None and tier.lstrip("-").isdigit() else None,
                issued=v.get("issued"),
            )


def _entries(backend: Backend, graphs: Sequence[str]) -> Iterable[_Entry]:
    """(graph, kind, iri, text, position, section) rows of ``graphs``: declared labels ('label'),
    local names of fact subjects and objects ('name') and passages ('passage', with their section
    heading or ""), read as the engine produces them."""
    for start in range(0, len(graphs), ENTRIES_CHUNK):
        part = graphs[start : start + ENTRIES_CHUNK]
        chunk = sparql_terms(part)
        queries = [(kind, query.substitute(graphs=chunk)) for kind, query in _ENTRY_QUERIES.items()]
        queries += [("name", _names_query(part[i : i + NAME_GRAPHS])) for i in range(0, len(part), NAME_GRAPHS)]
        for kind, query in queries:
            for row in backend.stream(query):
                graph, term = row.value("g"), row["x"]
                # a labelled blank node ("[] rdfs:label ...") keeps its "_:" so it is never read as an IRI
                x = str(term) if isinstance(term, BlankNode) else term.value
                text = row.value("text") if kind != "name" else local_name(x)
                pos = (row.optional_integer("pos") or 0) if kind == "passage" else 0
                section = (row.optional_value("section") or "") if kind == "passage" else ""
                if text.strip():
                    yield graph, kind, x, text, pos, section


#: "The conference was known as ...": a sentence that names its subject by its kind.
_DEFINITE = re.compile(r"^The ((?:[a-z]{3,} ){0,2}[a-z]{3,})\b(?! of\b)")


def _contexts(entries: Iterable[_Entry], titles: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each passage's context and referent. The context it is searched with: its document's title,
    its section heading, and for a sentence that names its subject by its kind ("The conference
    ..."), the name of that kind in the sentences before it ("... competes in the America East
    Conference."); and its referent (:func:`_subjects`), which the context holds too."""
    passages: dict[str, list[tuple[int, str, str, str]]] = {}
    for graph, kind, iri, text, pos, section in entries:
        if kind == "passage":
            passages.setdefault(graph, []).append((pos, iri, text, section))
    out: dict[str, tuple[str, str]] = {}
    for graph, found in passages.items():
        found.sort()
        title = titles.get(graph, "")
        texts = [t for _, _, t, _ in found]
        own = _own_heading([section for *_, section in found], title)
        called = _called(own, texts)
        subjects = _subjects(texts, own or title, called=called)
        if own:
            # "It breeds in ..." in a document the caller titled "Bird", headed "Red-backed shrike":
            # the shrike, as the text calls it ("The red-backed shrike (Lanius collurio) is ...")
            subjects = [s or (called if _PRONOUN.match(t) else "") for s, t in zip(subjects, texts, strict=True)]
        for i, (_, iri, text, section) in enumerate(found):
            referent = _referent(text, texts[max(0, i - REFERENT_WINDOW) : i])
            parts = [title, section, referent, subjects[i] if subjects[i] not in PRONOUNS else ""]
            out[iri] = (" ".join(dict.fromkeys(p for p in parts if p)), subjects[i] or referent)
    return out


def _own_heading(sections: Sequence[str], title: str) -> str:
    """The heading a document gives itself when the caller titled it otherwise: the outermost
    heading of its first passage's section, when at least half of its passages are under it
    ("Red-backed shrike" of "Red-backed shrike > Description" in a document titled "Bird"), or "".
    """
    head = (sections[0] or "").split(SECTION_SEPARATOR)[0].strip() if sections else ""
    if not head or " ".join(head.casefold().split()) == " ".join(title.casefold().split()):
        return ""
    under = sum(1 for s in sections if s == head or (s or "").startswith(head + SECTION_SEPARATOR))
    return head if 2 * under >= len(sections) else ""


def _called(own: str, texts: Sequence[str]) -> str:
    """The heading a document gives itself, as its opening sentences write it ("the red-backed
    shrike" for "Red-backed shrike"), or "" when it gives itself none."""
    if not own:
        return ""
    said = next((m for t in texts[:3] if (m := re.search(rf"(?i)\b(?:the\s+)?{re.escape(own)}\b", t))), None)
    return re.sub(r"^The\b", "the", said.group()) if said else own


#: "It was founded ...", "Her father was ...": a sentence naming its subject by a pronoun.
_PRONOUN = re.compile(r"^(?:It|He|She|They|Its|His|Her|Their)\b(?!['\u2019])")
_THINGS = frozenset("It Its They Their".split())
#: "Lactase supplements are ...": a sentence opening with a plural of lower case, after a name or
#: none ("The keepers were ...").
_PLURAL_OPENING = re.compile(
    r"^(The\s+)?((?:[A-Z][\w'\u2019-]*\s+)?[a-z]{3,}s)\s+(?:are|were|have|had|can|must|should)\b"
)


def _subjects(texts: Sequence[str], title: str, *, called: str = "") -> list[str]:
    """For each sentence of a document, the name an opening pronoun or "The <kind>" stands for
    when that is not the document's title: the name the last sentence opening with one opened
    with, at most ``REFERENT_WINDOW`` sentences back ("K2 is the second-highest mountain. It is
    in the Karakoram range." in "Mount Everest": "K2"). When the title names no subject
    ("Contoso Ltd Annual Report 2024", a file name: its opening sentences do not name it), "The
    <kind>" too: "The company's largest customer ..." after "Contoso Ltd is a British software
    company", "The trial was stopped ..." after "The JUPITER trial tested ...". Else "": the
    title is what "It" stands for (:func:`provgraph.answer.extractive.in_context`). ``called``:
    the heading the document gives itself when the caller titled it otherwise; "The exhibition"
    is that, when the opening said the heading's subject is an exhibition."""
    out = [""] * len(texts)
    named = " ".join(words(without_disambiguation(title)))
    own_kinds = _kinds_said(title, texts[:3]) if called else set()
    opening = [t for t in texts[:3] if " ".join(words(t)) != named][:2]
    titled = not named or any(mentions(" ".join(words(t)), named) for t in opening) or _restated(title, opening)
    subject, since, thing = "", -REFERENT_WINDOW - 1, False
    kinds: dict[str, str] = {}  # what a name was said to be: "company" -> "Contoso Ltd"
    surnames: dict[str, str] = {}  # the last word of a name read before: "Edgecombe" -> "Thomas Edgecombe"
    for i, text in enumerate(texts):
        if i:
            surnames.update((m[1].split()[-1], m[1]) for m in _FULL_NAME.finditer(texts[i - 1]))
        definite = _DEFINITE.match(text.strip())
        first = _TITLE_WORD.match(text.strip())
        pronoun = _PRONOUN.match(text)
        they = i > 0 and pronoun is not None and pronoun.group() in ("They", "Their")
        if they and (plural := _PLURAL_OPENING.match(texts[i - 1].strip())):
            # "Lactase supplements are made from fungi. They are taken before a meal.": the plural
            # the sentence before opened with, not the title "Lactase"
            out[i], subject, since, thing = ("the " if plural.group(1) else "") + plural.group(2), "", i, False
        elif pronoun:
            # "It" is a name only when the sentence just before said what that name is ("K2 is the
            # second-highest mountain. It is in ..."), or named it by its kind ("The JUPITER
            # trial"): "It stars Dennis Quaid" after a sentence about Steven Spielberg is the film
            personal = pronoun.group() not in ("It", "Its")
            # "She died ..." after "James Watson and Francis Crick published ...": two people are no "She"
            several = personal and pronoun.group() not in ("They", "Their") and " and " in subject
            if i - since <= (REFERENT_WINDOW if personal else 1) and (personal or thing) and not several:
                out[i], since = subject, i
                thing = thing and not personal  # "He has released 12 albums": a person, no "It"
            else:
                subject, thing = "", False
        elif definite and not titled:
            found = next((kinds[w] for w in definite.group(1).split() if w in kinds and not w.endswith("ed")), "")
            if found:
                out[i], subject, since, thing = found, found, i, True
        elif definite:
            subject, thing = "", False  # "The film was inspired by ...": the title's subject again
            # ... which a document titled "Exhibition" by its caller calls "Threads of the Silk Road"
            if called and own_kinds & set(definite.group(1).split()):
                out[i] = called
        elif titled and first and normalise(first[1]) in named.split():
            # "Franklin later led ..." in "Rosalind Franklin": the title's subject again, by a word of its name
            subject, since, thing = "", i, False
        elif first and first[1] in surnames:
            # "Edgecombe was succeeded by ..." after "Thomas Edgecombe managed the club": the full name
            out[i] = subject = surnames[first[1]]
            since, thing = i, False
        elif " ".join(words(text)) != named and (name := opening_name(text)) is not None:
            # the title's own subject ("Everest is ..." in "Mount Everest") is what "It" is anyway
            # (in full too: "Nelson Aldrich Rockefeller (July 8, 1908 - ...) was" in "Nelson Rockefeller")
            own_name = _own_name(name, named)
            subject = "" if titled and own_name else name
            since = i
            if name.split()[-1].islower():  # "The JUPITER trial": a trial
                kinds[name.split()[-1]] = name
            is_a = _IS_A.match(text, text.index(name) + len(name))
            thing = is_a is not None or name.split()[-1].islower()
            if is_a:
                kinds.update((w, name) for w in words(is_a.group(1)) if w not in STOP_WORDS)
        # "The claimant, Ms Ellen Marlow, bought ...": from now on "The claimant" is she
        kinds.update((m[1].split()[-1], m[2]) for m in _APPOSITIVE.finditer(text))
    if not titled:
        # "It" of a document whose title names no subject, standing for no name read here, stands
        # for nothing known, not for the title ("It is returned within 30 days" in "Residential
        # Lease Agreement"): its own word is its referent, which keeps it as it is. "He" and "She"
        # keep the title: a person's article is called by a shorter name than its opening gives
        # ("Zab Judah": "Zabdiel Judah (born October 27, 1977) is ...")
        for i, text in enumerate(texts):
            if not out[i] and (pronoun := _PRONOUN.match(text)) and pronoun.group() in _THINGS:
                out[i] = pronoun.group()
    return out


#: Words ending the head of what a sentence says its subject is ("an exhibition" of "is an
#: exhibition at the Corvin Museum").
_HEAD_END = re.compile(r"\s+(?:at|in|on|of|by|for|with|from|near|that|which|who|whose|and|or)\b.*$")


def _kinds_said(name: str, texts: Sequence[str]) -> set[str]:
    """What ``texts`` say ``name`` is, by the last word of its head: {"exhibition"} for
    "Threads of the Silk Road is an exhibition at the Corvin Museum of Textiles"."""
    out = set()
    for text in texts:
        at = text.casefold().find(name.casefold())
        if at >= 0 and (is_a := _IS_A.match(text, at + len(name))):
            head = words(_HEAD_END.sub("", is_a.group(1)))
            out.update(head[-1:])
    return out


def _own_name(name: str, named: str) -> bool:
    """Whether ``name`` is the title's subject (``named``: the title as words): "Everest" of
    "Mount Everest", or in full ("Nelson Aldrich Rockefeller (July 8, 1908 - ...)" of "Nelson
    Rockefeller")."""
    said = " ".join(words(name))
    in_full = bool(named) and set(named.split()) <= set(said.split())
    return mentions(named, said) or mentions(said, named) or in_full


def _restated(title: str, opening: Sequence[str]) -> bool:
    """Whether a title reads as a name its document's opening restates in full: every word of it
    (initials aside) is in the opening sentences, in any form ("Peter Schmeichel": "Peter
    Bolesław Schmeichel MBE ... is a Danish footballer"), and it is no headline (no lower-case
    word but a name's particles: "Riverton opens new bridge" is one)."""
    head = without_disambiguation(title).split(",")[0]
    if any(w[:1].islower() and w not in NAME_CONNECTORS for w in head.split()):
        return False
    said = word_keys(" ".join(opening))
    wanted = [w for w in words(head) if len(w) > 1 and w not in STOP_WORDS]
    return bool(wanted) and all(word_key(w) in said for w in wanted)


#: "The claimant, Ms Ellen Marlow, ...": a kind and the name it stands for.
_APPOSITIVE = re.compile(
    r"\b[Tt]he ((?:[a-z]{3,} )?[a-z]{3,}), ((?:(?:Mr|Mrs|Ms|Miss|Dr|Sir|Dame)\.? )?[A-Z][\w'\u2019-]+"
    r"(?: (?:of |de |the )?[A-Z][\w'\u2019&-]+){0,4}),"
)
#: A name of two to four capitalised words ("Thomas Edgecombe").
_FULL_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,3})\b")
#: The capitalised word a sentence opens with, when a verb or an adverb follows ("Franklin later led").
_TITLE_WORD = re.compile(r"^([A-Z][\w'\u2019-]*)\s+[a-z]")

#: "... is a British software company, ...": what a sentence opening with a name says it is.
_IS_A = re.compile(r"\s+(?:is|was|are|were)\s+(?:a|an|the)\s+([^,;:()]+)")


#: Words opening a phrase that are no part of a name ("This release", "Each model").
_DETERMINERS = STOP_WORDS | {"every", "another"}


def _referent(text: str, before: Sequence[str]) -> str:
    """The name that "The <kind>" opening ``text`` stands for: the last name of that kind in the
    sentences ``before`` it ("America East Conference" for "The conference"), or ""."""
    definite = _DEFINITE.match(text.strip())
    if definite is None:
        return ""
    # the longest kind a name ends with: "The box set ..." -> "... Radiohead Box Set"
    kinds = definite.group(1).split()
    for size in range(len(kinds), 0, -1):
        kind = r"\s+".join(k.capitalize() for k in kinds[:size])
        # with the article the source gives it: "the Supreme Court", "Harvard University"
        named = re.compile(rf"(?:\b[Tt]he\s+)?(?:[A-Z][\w'\u2019-]*\s+(?:(?:of|the|de)\s+)?)+{kind}\b")
        for sentence in reversed(before):
            # "This Master Services Agreement ...": a determiner opens no name ("Master Services Agreement")
            found = [
                re.sub(r"^(?:This|That|These|Those|Each|Every|Our|Its|Their|Any)\s+", "", f)
                for f in named.findall(sentence)
            ]
            found = [f for f in found if re.match(rf"(?:[Tt]he\s+)?{kind}\b", f) is None]
            if found:
                return re.sub(r"^The\s+", "the ", str(found[-1]))
    # "the big Transformer model ... The model was trained": a name before the kind in lower case
    head = re.compile(rf"\b((?:[A-Z][\w'\u2019-]*\s+)+){re.escape(kinds[0])}\b")
    for sentence in reversed(before):
        # "This release includes ...": a determiner ("This", "Its", "Each") names nothing
        found = [f for f in head.findall(sentence) if f.split()[0].lower() not in _DETERMINERS]
        if found:
            return f"{found[-1]}{kinds[0]}"
    return ""


__all__ = [
    "INDEX_FILE",
    "LABEL_PREDICATES",
    "MAX_TITLE_WORDS",
    "Hit",
    "LexicalIndex",
    "Source",
    "local_name",
    "title_key",
]
