"""The ingest pipeline: read → group into documents → reify → validate → write → commit.

Nothing is written until every document of the input has been reified and validated. Each
document's graph is streamed into one N-Quads spool file, and what each document left is kept in
the ledger (:mod:`provgraph.ingest.ledger`), so memory stays flat in the size of the input and in
its number of documents. The spool is loaded into the store in one call; the catalog update that
makes the new graphs current is one SPARQL update, the commit point.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar, cast
from urllib.parse import unquote, urlsplit

from provgraph.errors import (
    ConcurrentWriteError,
    EmptyInputError,
    InputError,
    ProvGraphError,
    QueryError,
    UnsupportedFormatError,
    ValidationFailedError,
)
from provgraph.ingest.extract import LlmSetup, TextExtraction, default_extraction
from provgraph.ingest.guard import InputGuard
from provgraph.ingest.jsonl import read_jsonl
from provgraph.ingest.ledger import Built, Ledger
from provgraph.ingest.options import IngestOptions, issued_literal
from provgraph.ingest.rdf import read_graph_metadata, read_rdf
from provgraph.ingest.records import Assertion, PassageSpec
from provgraph.ingest.reify import DocumentMeta, GraphBuilder, xsd_datetime
from provgraph.ingest.text import markdown_title, passages_in, split_passages, text_title
from provgraph.ingest.trix import is_trix
from provgraph.ingest.validate import (
    CHUNK_STATEMENTS,
    MAX_ISSUES,
    ChunkValidator,
    load_shapes,
    merge_issues,
    validate_lines,
    validate_ntriples,
    validate_store,
)
from provgraph.models import (
    DocumentOutcome,
    DocumentReport,
    Extraction,
    ExtractionMethod,
    IngestReport,
    InputFormat,
    ValidationIssue,
    ValidationReport,
)
from provgraph.resources import shapes_dir
from provgraph.store import catalog, changes, view
from provgraph.store.base import Backend
from provgraph.store.scratch import ScratchStore
from provgraph.store.terms import NamedNode
from provgraph.vocab import CATALOG_GRAPH, CURRENT_VIEW, PREFIXES, activity_iri, document_iri, graph_iri

if TYPE_CHECKING:
    import rdflib

    from provgraph.ingest.shacl import CompiledShapes

T = TypeVar("T")

#: Graphs with more statements than this are written with Oxigraph's bulk loader (not
#: transactional; the catalog commit keeps the ingest atomic, see ProvGraph.recover).
BULK_THRESHOLD = 250

#: progress(phase, done, total): phase is "reading", "validating" or "writing".
ProgressCallback = Callable[[str, int, int], None]

DOCUMENT_SHAPES = ("prefixes.ttl", "statement.ttl", "document.ttl", "passage.ttl", "nanopub.ttl")
CATALOG_SHAPES = ("prefixes.ttl", "catalog.ttl")


@lru_cache(maxsize=1)
def document_shapes() -> rdflib.Graph:
    return load_shapes([shapes_dir() / name for name in DOCUMENT_SHAPES])


@lru_cache(maxsize=1)
def catalog_shapes() -> rdflib.Graph:
    return load_shapes([shapes_dir() / name for name in CATALOG_SHAPES])


@lru_cache(maxsize=1)
def document_checks() -> CompiledShapes | None:
    """The document shapes compiled (see provgraph.ingest.shacl); None would mean pySHACL."""
    from provgraph.ingest.shacl import compile_shapes  # imports rdflib: only when validating

    return compile_shapes(document_shapes())


@lru_cache(maxsize=1)
def catalog_checks() -> CompiledShapes | None:
    from provgraph.ingest.shacl import compile_shapes

    return compile_shapes(catalog_shapes())


@dataclass(slots=True)
class _Document:
    """One document of the input as it is being built."""

    meta: DocumentMeta
    fingerprint: str


class _StoreChangedError(Exception):
    """Another writer committed while this ingest was being prepared on a read-only view."""


def run(
    backend: Backend,
    path: str | Path,
    options: IngestOptions,
    *,
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
    model: LlmSetup | None = None,
) -> IngestReport:
    """Ingest ``path`` (see :meth:`provgraph.ProvGraph.ingest`); ``model`` is the language model
    of ``--extract llm`` and its cache."""
    try:
        return _run(backend, path, options, dry_run=dry_run, progress=progress, model=model)
    except _StoreChangedError:
        # The write lock is held now, so nobody can interfere with a second pass (the model's
        # replies of the first are cached: it is not asked twice).
        return _run(backend, path, options, dry_run=dry_run, progress=progress, model=model)


def _run(
    backend: Backend,
    path: str | Path,
    options: IngestOptions,
    *,
    dry_run: bool,
    progress: ProgressCallback | None,
    model: LlmSetup | None,
) -> IngestReport:
    started = time.perf_counter()
    file = str(path)
    source = Path(path)
    _check_file(source)
    fmt = _detect_format(source, options.format)
    content_hash = _file_hash(source)
    now = datetime.now(UTC)
    key = options.id or options.url or str(source.resolve())
    main_meta = DocumentMeta(
        key=key,
        title=options.title or _own_title(source, fmt) or source.name,
        tier=options.tier,
        content_hash=content_hash,
        media_type=fmt.media_type,
        method=options.method or ExtractionMethod.SOURCE_DATA,
        url=options.url,
        issued=issued_literal(options.issued),
        publisher=options.publisher,
        confidence=options.confidence,
        agent=options.agent,
        reviewer=options.reviewer,
    )
    fingerprint = options.fingerprint_fields()
    extraction = None
    if fmt.is_text:
        kind = options.extract or default_extraction()
        extraction = TextExtraction.build(kind, backend, model=model)
        # a text document is read again when what would be taken from it changes
        fingerprint["extract"] = extraction.fingerprint if extraction is not None else kind.value
        if extraction is not None:
            main_meta = replace(
                main_meta, method=options.method or extraction.method, activity=tuple(extraction.activity())
            )
    fingerprint_base = json.dumps(fingerprint, sort_keys=True)

    remove_stale_spools()
    with (
        tempfile.TemporaryDirectory(prefix=f"{SPOOL_PREFIX}{os.getpid()}-") as tmp,
        Ledger(Path(tmp) / "ledger.sqlite3") as ledger,
    ):
        spool = (Path(tmp) / "ingest.nq", Path(tmp) / "view.nq")
        outcome = _build(
            backend, (source, file), fmt, options, main_meta, fingerprint_base, now, spool, ledger, progress, extraction
        )
        validation = _validate(backend, outcome.validation, ledger, spool[0], options.shapes, now)
        if not validation.conforms and not dry_run:
            raise ValidationFailedError(validation, file=file)
        if not dry_run and ledger.built:
            _write(backend, ledger, now, spool, progress, blank_nodes=outcome.blank_nodes)
        return _report(file, fmt, outcome, ledger, validation, dry_run=dry_run, seconds=time.perf_counter() - started)


@dataclass
class _Outcome:
    """What reading, grouping, reifying and validating the chunks of an input found (the
    documents built are in the ledger)."""

    validation: ValidationReport
    ill_typed: int
    extraction: TextExtraction | None = None
    #: whether the spool may hold blank nodes (see _Spool)
    blank_nodes: bool = True


def _build(
    backend: Backend,
    input_file: tuple[Path, str],
    fmt: InputFormat,
    options: IngestOptions,
    main_meta: DocumentMeta,
    fingerprint_base: str,
    now: datetime,
    spool: tuple[Path, Path],
    ledger: Ledger,
    progress: ProgressCallback | None,
    extraction: TextExtraction | None = None,
) -> _Outcome:
    """Read the input, group it into documents and reify each into the spool (the graphs' quads,
    then their copy in the current view), validating chunks with the built-in shapes meanwhile.
    ``input_file`` is the input's path and its name as the caller gave it (for messages)."""
    source, file = input_file
    with (
        source.open("rb") as raw,
        spool[0].open("w", encoding="utf-8") as quads,
        spool[1].open("w", encoding="utf-8") as view_quads,
    ):
        if raw.read(3) != b"\xef\xbb\xbf":  # a UTF-8 byte order mark is not content
            raw.seek(0)
        stream = _Counting(raw, source.stat().st_size, progress)
        guard = InputGuard(file, path=source, lenient=options.lenient)
        items = _read(
            stream,
            fmt,
            file=file,
            base=options.base,
            guard=guard,
            extraction=extraction,
            title=main_meta.title,
            titled=options.title is None,
        )
        spooled = _Spool(quads, view_quads)
        if options.split is not None:
            with _Groups(spool[0].with_name("groups.sqlite3")) as groups:
                metadata_hash, metadata_guard = _split(items, options, main_meta, file, groups)
                guard.ill_typed += metadata_guard.ill_typed if metadata_guard is not None else 0
                documents = _documents(groups, main_meta, fingerprint_base, metadata_hash)
                found = _build_split(backend, documents, now, spooled, ledger)
        else:
            doc = _Document(main_meta, _fingerprint(main_meta.content_hash, fingerprint_base))
            found = _build_streaming(backend, doc, items, now, spooled, file, ledger, extraction)
    return _Outcome(found, ill_typed=guard.ill_typed, extraction=extraction, blank_nodes=spooled.blank_nodes)


def _validate(
    backend: Backend,
    found: ValidationReport,
    ledger: Ledger,
    spool: Path,
    user_shapes: tuple[Path, ...],
    now: datetime,
) -> ValidationReport:
    """The validation of the whole input: what the built-in shapes ``found``, then the user's
    shapes and the catalog's as it will be after the commit."""
    validation = _user_shapes(found, ledger, spool, user_shapes)
    if ledger.built and validation.conforms:
        validation = _merge(validation, _validate_catalog(backend, (_entry(b, now) for b in ledger)))
    return validation


def _report(
    file: str,
    fmt: InputFormat,
    outcome: _Outcome,
    ledger: Ledger,
    validation: ValidationReport,
    *,
    dry_run: bool,
    seconds: float,
) -> IngestReport:
    return IngestReport(
        file=file,
        format=fmt,
        documents=ledger.reports(),
        document_count=ledger.documents,
        outcomes=dict(ledger.outcomes),
        statements=0 if dry_run else ledger.statements,
        passages=0 if dry_run else ledger.passages,
        quads=0 if dry_run else ledger.quads,
        unchanged=not ledger.built,
        validation=validation,
        ill_typed_literals=outcome.ill_typed,
        extraction=Extraction(outcome.extraction.extractor.name) if outcome.extraction is not None else None,
        facts_extracted=outcome.extraction.writer.extracted if outcome.extraction is not None else 0,
        facts_dropped=outcome.extraction.writer.dropped if outcome.extraction is not None else 0,
        passages_cut=outcome.extraction.extractor.cut if outcome.extraction is not None else 0,
        dry_run=dry_run,
        seconds=round(seconds, 3),
    )


# ---------------------------------------------------------------------- spool directories

#: Spool directories are named ``provgraph-ingest-<pid>-<random>`` in the temporary directory.
SPOOL_PREFIX = "provgraph-ingest-"


def remove_stale_spools(directory: str | Path | None = None) -> list[Path]:
    """Remove the spool directories of ingests whose process is gone (killed with SIGKILL, it
    could not remove its own); returns them. Runs before every ingest and on every read-write
    open of a store."""
    removed = []
    for entry in Path(directory or tempfile.gettempdir()).glob(SPOOL_PREFIX + "*"):
        pid = entry.name[len(SPOOL_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _alive(int(pid)) or not entry.is_dir():
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(entry)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


# ---------------------------------------------------------------------- checks


def _detect_format(source: Path, given: InputFormat | None) -> InputFormat:
    if given is not None:
        return given
    fmt = InputFormat.from_path(source)
    if fmt is InputFormat.RDFXML and is_trix(source):  # .xml is RDF/XML or TriX
        return InputFormat.TRIX
    if fmt is None:
        known = ", ".join(f.value for f in InputFormat)
        raise UnsupportedFormatError(
            f"cannot tell the format from the file name; pass --format ({known})", file=str(source)
        )
    return fmt


def _check_file(source: Path) -> None:
    if not source.exists():
        raise InputError("no such file", file=str(source))
    if not source.is_file():
        raise InputError("not a regular file", file=str(source))
    if source.stat().st_size == 0:
        raise EmptyInputError("the file is empty: nothing to ingest", file=str(source))


def _file_hash(source: Path) -> str:
    digest = hashlib.sha256()
    with source.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _fingerprint(content_hash: str, options: str) -> str:
    return hashlib.sha256(f"{content_hash}\n{options}".encode()).hexdigest()


# ---------------------------------------------------------------------- reading


class _Counting:
    """A binary reader that reports how far it got."""

    def __init__(self, raw: IO[bytes], total: int, progress: ProgressCallback | None) -> None:
        self._raw = raw
        self._total = total
        self._progress = progress
        self._done = 0
        self._reported = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._advance(len(data))
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self._raw.readline(size)
        self._advance(len(data))
        return data

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def readable(self) -> bool:
        return True

    def _advance(self, n: int) -> None:
        self._done += n
        if self._progress is not None and (self._done - self._reported > 1 << 18 or n == 0):
            self._reported = self._done
            self._progress("reading", min(self._done, self._total), self._total)


_Item = tuple[Assertion | None, str | None, PassageSpec | None]


def _read(
    stream: _Counting,
    fmt: InputFormat,
    *,
    file: str,
    base: str | None,
    guard: InputGuard,
    extraction: TextExtraction | None = None,
    title: str = "",
    titled: bool = False,
) -> Iterator[_Item]:
    """(assertion, graph name, passage) triples; exactly one of assertion/passage is set. A text
    document's passages come each with the facts ``extraction`` takes from it; with ``titled`` (no
    title was given), a plain text's own title line is its heading, not a passage."""
    reader = cast(IO[bytes], stream)  # read() and readline() are all the readers call
    if fmt.is_rdf:
        for assertion, graph in read_rdf(reader, fmt, file=file, base=base, guard=guard):
            yield assertion, graph, None
    elif fmt is InputFormat.JSONL:
        for assertion in read_jsonl(reader, file=file, base=base, guard=guard):
            yield assertion, None, None
    else:
        text, found = _passages(stream.read(), fmt, file=file, titled=titled, title=None if titled else title)
        passages = _checked_passages(found, text, guard)
        if extraction is None:
            for passage in passages:
                yield None, None, passage
        else:
            for fact, sentence in extraction.run(passages, title=title):
                yield fact, None, sentence


#: How much of a Markdown or HTML document is read for its title (:func:`_own_title`).
TITLE_BYTES = 1 << 20


def _own_title(source: Path, fmt: InputFormat) -> str | None:
    """The title a Markdown, HTML or plain text document gives itself (its first level-1 heading;
    its first ``<h1>``, else its ``<title>``; its first line standing alone), from its first
    ``TITLE_BYTES``: what a reader calls it, and what a sentence saying "It" or "The bridge"
    stands for. None for other formats."""
    if fmt not in (InputFormat.MARKDOWN, InputFormat.HTML, InputFormat.TEXT):
        return None
    with source.open("rb") as raw:
        head = raw.read(TITLE_BYTES)
    if fmt is InputFormat.HTML:
        from provgraph.ingest.html import html_title

        return html_title(head)
    text = head.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return markdown_title(text) if fmt is InputFormat.MARKDOWN else text_title(text)


def _passages(
    raw: bytes, fmt: InputFormat, *, file: str, titled: bool = False, title: str | None = None
) -> tuple[str, Iterator[PassageSpec]]:
    """A prose document's text, as provgraph stores it, and its sentences; ``title``, the one the
    caller gave it (:func:`provgraph.ingest.text.passages_in`)."""
    # Beautiful Soup and pypdf are loaded by the documents that need them, not by every command
    if fmt is InputFormat.HTML:
        from provgraph.ingest.html import html_text

        text, blocks = html_text(raw)
        return text, passages_in(text, blocks, title=title)
    if fmt is InputFormat.PDF:
        from provgraph.ingest.pdf import pdf_text

        text = pdf_text(raw, file=file)
        return text, split_passages(text, markdown=False, paged=True)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError("not UTF-8: text documents must be UTF-8 encoded", file=file, line=line) from exc
    return text, split_passages(
        text, markdown=fmt is InputFormat.MARKDOWN, titled=titled and fmt is InputFormat.TEXT, title=title
    )


def _checked_passages(passages: Iterable[PassageSpec], text: str, guard: InputGuard) -> Iterator[PassageSpec]:
    for passage in passages:
        guard.size(passage.text, "a sentence", line=text.count("\n", 0, passage.start or 0) + 1)
        yield passage


# ---------------------------------------------------------------------- building


def _plan(backend: Backend, docs: list[_Document]) -> dict[str, catalog.CurrentVersion]:
    return catalog.lookup(backend, [d.meta.key for d in docs], {d.meta.key: document_iri(d.meta.key) for d in docs})


def _unchanged(doc: _Document, state: catalog.CurrentVersion) -> DocumentReport:
    assert state.graph is not None
    return DocumentReport(
        document=state.document.value,
        key=doc.meta.key,
        title=doc.meta.title,
        outcome=DocumentOutcome.UNCHANGED,
        graph=state.graph.value,
        version=state.last_version,
        content_hash=doc.meta.content_hash,
    )


class _Spool:
    """Where the quads of the new graphs go, as N-Quads: each source graph's, and the same
    triples in the current view, in a second file. Written as they are built, the two files are
    what the bulk loader reads, the second after the first (so a quad is never in the view
    before it is in its source graph)."""

    _VIEW_END = f" {CURRENT_VIEW} .\n"

    def __init__(self, quads: IO[str], view: IO[str]) -> None:
        self._quads = quads
        self._view = view
        #: Whether a line may hold a blank node (or a literal holding "_:"): a load names a blank
        #: node anew, so the view's copies of such graphs cannot be loaded apart from them.
        self.blank_nodes = False

    def write(self, lines: list[str], end: str) -> None:
        """Lines (N-Triples without the final " .") of the graph whose quads end with ``end``."""
        self._quads.write(end.join(lines) + end)
        copies = self._VIEW_END.join(lines) + self._VIEW_END
        self.blank_nodes = self.blank_nodes or "_:" in copies
        self._view.write(copies)


class _Assembler:
    """Feeds one document's items through a GraphBuilder into the spool and the validator."""

    def __init__(
        self,
        doc: _Document,
        state: catalog.CurrentVersion,
        now: datetime,
        spool: _Spool,
        validator: ChunkValidator,
    ) -> None:
        self.doc = doc
        self.version = state.last_version + 1
        self.graph = graph_iri(state.document, self.version)
        self.previous = state.graph
        self.revision_of = state.latest
        self.builder = GraphBuilder(doc.meta, state.document, self.graph, now)
        self.header = self.builder.header()
        self.spool = spool
        self._end = f" <{self.graph.value}> .\n"
        spool.write(self.header, self._end)
        self.validator = validator
        self.quads = len(self.header)
        self._chunk: list[str] = []
        self._context: dict[str, list[str]] = {}
        self._in_chunk = 0
        self._passage_chunk: dict[str, int] = {}
        self._chunk_no = 0

    def add(self, assertion: Assertion | None, passage: PassageSpec | None) -> None:
        if assertion is not None:
            lines, ref = self.builder.statement(assertion)
            self._in_chunk += 1
        else:
            assert passage is not None
            ref, new = self.builder.passage(passage)
            lines = new or []
        if ref is not None:
            first = self._passage_chunk.setdefault(ref, self._chunk_no)
            if first != self._chunk_no and ref not in self._context:
                # cited again in a later chunk: the chunk needs the passage to validate the
                # citation, so the passage is validated again too (same result, small cost)
                self._context[ref] = self.builder.passage_lines(ref)
        if lines:
            self.spool.write(lines, self._end)
            self.quads += len(lines)
            self._chunk.extend(lines)
        if self._in_chunk >= CHUNK_STATEMENTS or len(self._chunk) >= CHUNK_STATEMENTS * 14:
            self.flush()

    def flush(self) -> None:
        if not self._chunk and self._chunk_no > 0:
            return
        context = [line for lines in self._context.values() for line in lines]
        self.validator.add(self.header + context + self._chunk, self._in_chunk)
        self._chunk = []
        self._context = {}
        self._in_chunk = 0
        self._chunk_no += 1

    def close(self) -> Built:
        self.flush()
        return Built(
            self.doc.meta.key,
            self.doc.meta.title,
            self.doc.meta.content_hash,
            self.doc.fingerprint,
            self.builder.document,
            self.graph,
            self.version,
            self.previous,
            self.revision_of,
            self.builder.statements,
            self.builder.passages,
            self.quads,
        )


def _build_streaming(
    backend: Backend,
    doc: _Document,
    items: Iterator[_Item],
    now: datetime,
    spool: _Spool,
    file: str,
    ledger: Ledger,
    extraction: TextExtraction | None = None,
) -> ValidationReport:
    state = _plan(backend, [doc])[doc.meta.key]
    if state.graph is not None and state.fingerprint == doc.fingerprint:
        # Identical content and options: a no-op. Still read it, so a broken file is reported
        # (its text, not its facts: extraction would cost for nothing).
        if extraction is not None:
            extraction.enabled = False
        if not any(True for _ in items):
            raise EmptyInputError("nothing to ingest in the file", file=file)
        ledger.skip(_unchanged(doc, state))
        return ValidationReport(conforms=True, issue_count=0)
    with ChunkValidator(_shapes_for_chunks(), checks=document_checks()) as validator:
        assembler = _Assembler(doc, state, now, spool, validator)
        count = 0
        for assertion, graph, passage in items:
            if assertion is not None and graph is not None:
                assertion.original_graph = graph
            assembler.add(assertion, passage)
            count += 1
        if count == 0:
            raise EmptyInputError("nothing to ingest: no triples, records or text in the file", file=file)
        ledger.add(assembler.close())
        validator.finish()
    return _chunk_report(validator, ledger, doc.meta.key)


class _Groups:
    """The assertions of a split input, grouped by document on disk (a table in the ingest's
    spool directory), so that the memory of an ingest does not grow with the number of facts:
    an input's graphs may come in any order, and a document is built from all of its
    assertions at once."""

    _BATCH = 10_000

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path)
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        # rest: 1 for the assertions no pattern matched (the file's own document, built last)
        self._db.execute("CREATE TABLE a (seq INTEGER PRIMARY KEY, rest INTEGER, key TEXT, data BLOB)")
        self._batch: list[tuple[int, str, bytes]] = []
        self._indexed = False
        self._db.execute("CREATE TABLE m (graph TEXT, predicate TEXT, object TEXT)")
        self._metadata: tuple[str | None, list[tuple[str, str]]] = (None, [])

    def __enter__(self) -> _Groups:
        return self

    def __exit__(self, *_: object) -> None:
        self._db.close()

    def add(self, key: str | None, assertion: Assertion) -> None:
        self._batch.append((0 if key else 1, key or "", pickle.dumps(assertion, protocol=pickle.HIGHEST_PROTOCOL)))
        if len(self._batch) >= self._BATCH:
            self._flush()

    def _flush(self) -> None:
        self._db.executemany("INSERT INTO a (rest, key, data) VALUES (?, ?, ?)", self._batch)
        self._batch = []

    def add_metadata(self, triples: Iterable[tuple[str, str, str]]) -> None:
        """The triples of a graph metadata file (``--graph-metadata``; their subjects name graphs)."""
        self._db.executemany("INSERT INTO m VALUES (?, ?, ?)", triples)
        self._db.execute("CREATE INDEX m_graph ON m (graph)")

    def metadata(self, graph: str) -> list[tuple[str, str]]:
        """What the metadata file says of the graph ``graph``: (predicate, object) in file order.
        An input's quads come in runs of one graph, so the last answer is kept."""
        if graph != self._metadata[0]:
            found = self._db.execute("SELECT predicate, object FROM m WHERE graph = ? ORDER BY rowid", (graph,))
            self._metadata = (graph, found.fetchall())
        return self._metadata[1]

    def _index(self) -> None:
        self._flush()
        if not self._indexed:
            self._db.execute("CREATE INDEX a_key ON a (rest, key, seq)")
            self._indexed = True

    def holds(self, key: str | None) -> bool:
        """Whether any assertion belongs to the document ``key`` (None: to the rest)."""
        self._index()
        found = self._db.execute("SELECT 1 FROM a WHERE rest = ? AND key = ? LIMIT 1", (key is None, key or ""))
        return found.fetchone() is not None

    def grouped(self) -> Iterator[tuple[str | None, list[Assertion]]]:
        """Each document's key (None: the rest) and its assertions in input order: the keys in
        sorted order, the rest last."""
        self._index()
        current: tuple[int, str] | None = None
        assertions: list[Assertion] = []
        for rest, key, data in self._db.execute("SELECT rest, key, data FROM a ORDER BY rest, key, seq"):
            if (rest, key) != current:
                if current is not None:
                    yield (None if current[0] else current[1]), assertions
                current, assertions = (rest, key), []
            assertions.append(pickle.loads(data))
        if current is not None:
            yield (None if current[0] else current[1]), assertions


def _split(
    items: Iterator[_Item], options: IngestOptions, main: DocumentMeta, file: str, groups: _Groups
) -> tuple[str, InputGuard | None]:
    """Put the assertions of a split input into ``groups``, by document; returns the hash of the
    metadata file (part of every split document's content) and the guard that read it."""
    assert options.split is not None
    pattern = re.compile(options.split.pattern)
    metadata_hash = ""
    metadata_guard = None
    if options.split.metadata is not None:
        metadata = Path(options.split.metadata)
        metadata_guard = InputGuard(str(metadata), path=metadata, lenient=options.lenient)
        groups.add_metadata(read_graph_metadata(metadata, base=options.base, guard=metadata_guard))
        metadata_hash = _file_hash(metadata)
    type_iri = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    count = 0
    for assertion, graph, _passage in items:
        if assertion is None:
            raise InputError("--split-graphs applies to RDF files with named graphs", file=file)
        count += 1
        key = None
        if graph is not None:
            assertion.original_graph = graph
            found = pattern.match(graph[1:-1]) if graph.startswith("<") else None
            if found:
                key = found.groupdict().get("document") or (found.group(1) if found.groups() else None)
                if not key:
                    raise InputError("the --split-graphs pattern needs a group naming the document", file=file)
            assertion.extra = [(p, o) for p, o in groups.metadata(graph) if p != type_iri]
        groups.add(key, assertion)
    if count == 0:
        raise EmptyInputError("nothing to ingest: no triples in the file", file=file)
    if groups.holds(None) and groups.holds(main.key):
        raise InputError("a split document has the same identity as the file's own document; pass --id", file=file)
    return metadata_hash, metadata_guard


#: The documents of a split input are planned (their catalog entries looked up) and built this
#: many at a time, or fewer when they hold more than :data:`BATCH_ASSERTIONS` assertions.
BATCH_DOCUMENTS = 1000
BATCH_ASSERTIONS = 5_000


def _documents(
    groups: _Groups, main: DocumentMeta, fingerprint_base: str, metadata_hash: str
) -> Iterator[list[tuple[_Document, list[Assertion]]]]:
    """The documents of a split input with their assertions, a batch at a time, in the order
    :meth:`_Groups.grouped` gives them (the file's own document, of the assertions no pattern
    matched, last)."""
    batch: list[tuple[_Document, list[Assertion]]] = []
    size = 0
    for key, assertions in groups.grouped():
        if key is None:
            doc = _Document(main, _fingerprint(main.content_hash, fingerprint_base))
        else:
            try:
                NamedNode(key)
                url = key if key.startswith(("http://", "https://")) else None
            except ValueError:
                url = None
            content = _canonical_hash(assertions, metadata_hash)
            meta = replace(main, key=key, title=_title_for(key), url=url, content_hash=content)
            doc = _Document(meta, _fingerprint(content, fingerprint_base))
        batch.append((doc, assertions))
        size += len(assertions)
        if len(batch) >= BATCH_DOCUMENTS or size >= BATCH_ASSERTIONS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _title_for(key: str) -> str:
    """A readable title for a split document: ``Amsterdam (en.wikipedia.org)`` for
    ``http://en.wikipedia.org/wiki/Amsterdam``."""
    parts = urlsplit(key)
    if parts.scheme in ("http", "https") and parts.netloc:
        name = unquote(parts.path.rstrip("/").rsplit("/", 1)[-1]).replace("_", " ")
        return f"{name} ({parts.netloc})" if name else parts.netloc
    return key


def _canonical_hash(assertions: list[Assertion], metadata_hash: str) -> str:
    lines = sorted(
        f"{a.triple} {a.original_graph or ''} " + " ".join(f"{p} {o}" for p, o in a.extra) for a in assertions
    )
    digest = hashlib.sha256(metadata_hash.encode())
    for line in lines:
        digest.update(line.encode() + b"\n")
    return digest.hexdigest()


def _build_split(
    backend: Backend,
    documents: Iterator[list[tuple[_Document, list[Assertion]]]],
    now: datetime,
    spool: _Spool,
    ledger: Ledger,
) -> ValidationReport:
    with ChunkValidator(_shapes_for_chunks(), checks=document_checks()) as validator:
        for batch in documents:
            states = _plan(backend, [doc for doc, _ in batch])
            for doc, assertions in batch:
                state = states[doc.meta.key]
                if state.graph is not None and state.fingerprint == doc.fingerprint:
                    ledger.skip(_unchanged(doc, state))
                    continue
                assembler = _Assembler(doc, state, now, spool, validator)
                for assertion in assertions:
                    assembler.add(assertion, None)
                ledger.add(assembler.close())
        validator.finish()
    return _chunk_report(validator, ledger, None)


def _shapes_for_chunks() -> rdflib.Graph:
    return document_shapes()


# ---------------------------------------------------------------------- validation


def _chunk_report(validator: ChunkValidator, ledger: Ledger, key: str | None) -> ValidationReport:
    """What the built-in shapes found, over the chunks of every built document."""
    return ValidationReport(
        conforms=validator.issue_count == 0,
        issues=[i.model_copy(update={"document": key}) if key else i for i in validator.issues],
        issue_count=validator.issue_count,
        nodes_checked=ledger.statements + ledger.passages + 2 * ledger.built,  # + document, activity
        shapes=[f"shapes/{name}" for name in DOCUMENT_SHAPES],
    )


def _user_shapes(
    report: ValidationReport, ledger: Ledger, spool: Path, user_shapes: tuple[Path, ...]
) -> ValidationReport:
    """Add what the user's shapes find, each run once over a complete document graph."""
    if not user_shapes or not report.conforms or not ledger.built:
        return report
    shapes = load_shapes(list(user_shapes))
    issues: list[ValidationIssue] = []
    count = 0
    for b, triples in _graphs_in_spool(spool, ledger):
        found, n = validate_ntriples(triples, shapes)  # pyshacl validates a default graph
        count += n
        issues += [i.model_copy(update={"document": b.key}) for i in found[: MAX_ISSUES - len(issues)]]
    return _merge(
        report,
        ValidationReport(conforms=count == 0, issues=issues, issue_count=count, shapes=[str(p) for p in user_shapes]),
    )


def _graphs_in_spool(spool: Path, ledger: Ledger) -> Iterator[tuple[Built, str]]:
    """Each built document and its graph as N-Triples, read from the spool one at a time (a
    document's quads are written together, in the order the documents were built)."""
    with spool.open(encoding="utf-8") as lines:
        line = lines.readline()
        for b in ledger:
            end = f" <{b.graph.value}> .\n"
            triples = []
            while line.endswith(end):
                triples.append(line[: -len(end)] + " .\n")
                line = lines.readline()
            yield b, "".join(triples)


#: Documents whose catalog entries are validated together. The catalog shapes constrain one
#: document and its versions at a time (every line of the preview is about one of them), so a
#: split into chunks finds the same issues; validating all at once held every line and its graph
#: in memory: 100,000 facts in 50,000 documents peaked at 413 MB of Python objects, most of them
#: here.
CATALOG_CHUNK = 2000


def _validate_catalog(backend: Backend, entries: Iterable[catalog.NewVersion]) -> ValidationReport:
    checks = catalog_checks()
    found: list[tuple[list[ValidationIssue], int]] = []
    count = 0
    for chunk in _chunks(entries, CATALOG_CHUNK):
        count += len(chunk)
        lines = catalog.preview(backend, chunk)
        if checks is None:  # pySHACL reads a store
            preview = ScratchStore.of_ntriples("".join(f"{line} .\n" for line in lines))
            found.append(validate_store(preview, catalog_shapes()))
        else:
            found.append(validate_lines(lines, checks))
        del lines
    issues, count = merge_issues(found)
    return ValidationReport(
        conforms=count == 0,
        issues=issues,
        issue_count=count,
        nodes_checked=count,
        shapes=[f"shapes/{name}" for name in CATALOG_SHAPES],
    )


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _merge(a: ValidationReport, b: ValidationReport) -> ValidationReport:
    return ValidationReport(
        conforms=a.conforms and b.conforms,
        issues=(a.issues + b.issues)[:MAX_ISSUES],
        issue_count=a.issue_count + b.issue_count,
        nodes_checked=a.nodes_checked + b.nodes_checked,
        shapes=list(dict.fromkeys(a.shapes + b.shapes)),
    )


def _entry(b: Built, now: datetime) -> catalog.NewVersion:
    return catalog.NewVersion(
        document=b.document,
        key=b.key,
        title=b.title,
        graph=b.graph,
        activity=activity_iri(b.graph),
        version=b.version,
        content_hash=b.content_hash,
        fingerprint=b.fingerprint,
        ingested_at=xsd_datetime(now),
        statements=b.statements,
        passages=b.passages,
        previous=b.previous,
        revision_of=b.revision_of,
    )


# ---------------------------------------------------------------------- writing


def _write(
    backend: Backend,
    ledger: Ledger,
    now: datetime,
    spool: tuple[Path, Path],
    progress: ProgressCallback | None,
    *,
    blank_nodes: bool,
) -> None:
    """Write the spool (the graphs' quads, then their copy in the current view) and commit.
    ``blank_nodes``: whether the spool may hold blank nodes."""
    if backend.begin_write():
        # The plan was made on a read-only view; check it still holds now that we hold the lock.
        # First finish what a stopped writer left (as a read-write open does): its pending
        # graphs out of the view, their staged entries out of the catalog, the graphs dropped.
        view.recover(backend)
        _check_plan(backend, ledger)
    view.ensure(backend, writing=True)
    total = ledger.quads
    if progress is not None:
        progress("writing", 0, total)
    # The versions the new ones supersede leave the current view (after the catalog says so), and
    # the change is logged for the derived views, all in the commit's transaction. Only revisions
    # are named in the commit's text: the versions of new documents are the pending graphs.
    revised = [_entry(b, now) for b in ledger.revisions()]
    previous = [e.previous.value for e in revised if e.previous is not None]
    if ledger.statements <= BULK_THRESHOLD:
        # Graphs, current view and catalog in one SPARQL update: one transaction, all or nothing.
        # The graphs are marked pending before their quads, and committed in the catalog after
        # them: an engine that keeps the operations done before one fails (Virtuoso) leaves what
        # recovery takes out again (view.recover), never a catalog entry
        # naming quads that were not written.
        built = list(ledger)
        graphs = [b.graph.value for b in built]
        record = changes.record(added=graphs, removed=previous)
        entries = [_entry(b, now) for b in built]
        operations = [
            view.pending(graphs),
            _insert_data(spool[0], built),
            catalog.commit_update(entries),
            view.committed(graphs),
            view.retire(previous),
            record,
        ]
        try:
            backend.update(" ;\n".join(op for op in operations if op), prefixes=PREFIXES)
        except ConcurrentWriteError:
            raise  # refused before anything was written
        except ProvGraphError:
            # An engine that kept part of the request (Virtuoso) has pending graphs in the view:
            # out with them now, not at the next write (if this fails too, the next write does it).
            with contextlib.suppress(ProvGraphError):
                view.recover(backend)
            raise
        if progress is not None:
            progress("writing", total, total)
        return
    marks, staged = spool[0].with_name("pending.nq"), spool[0].with_name("catalog.nq")
    try:
        with staged.open("w", encoding="utf-8") as out:
            lines = catalog.staged_triples(_entry(b, now) for b in ledger)
            out.writelines(f"{line} {CATALOG_GRAPH} .\n" for line in lines)
        with marks.open("w", encoding="utf-8") as out:
            out.writelines(view.pending_quads(ledger.graphs()))
        # The commit makes every marked graph current: marks a failed write of this process left
        # (its clean-up failed too; no reopen recovered them) go first. No marks: one lookup.
        view.recover(backend)
        backend.load_quads(marks, bulk=True)  # the marks first: recovery finds what follows them
        # A store that others read while it is written (a SPARQL server) gets the graphs' copies
        # in the current view after the commit point (view.finish_commit), so that the view
        # never shows a graph that is not committed; an embedded store loads them here, with the
        # bulk loader, and its readers read checkpoints made after the write. Deferred copies
        # with blank nodes are made by the engine from the graphs: a load names them anew.
        deferred = view.deferred(backend)
        copies = (spool[1],) if not deferred else ()
        backend.load_quads((spool[0], *copies, staged), bulk=True)
        # The commit point: one transaction of a few lines per revised document, whatever the
        # number of new ones, naming the change log's entry as the commit under way. From here on
        # the ingest is committed: the statuses of the new versions follow in chunks (below), and
        # recovery finishes them if this process stops first.
        record = changes.record(removed=previous, committing=True)
        retired = view.retire(previous, pending_current=True)
        commit_point = (catalog.commit_staged_update(revised), retired, record)
        backend.update(" ;\n".join(op for op in commit_point if op), prefixes=PREFIXES)
    except BaseException as exc:
        try:  # not committed: the marked graphs out of the view and the store again
            view.recover(backend)
        except ProvGraphError:
            pass
        # the engine refusing the pipeline's own update is the store failing, not the user's query
        if isinstance(exc, ProvGraphError) and not isinstance(exc, QueryError):
            raise
        raise ProvGraphError(f"writing the store failed; nothing was committed: {exc}") from exc
    try:
        view.finish_commit(backend, ledger.graphs(), copies=spool[1] if deferred and not blank_nodes else None)
    except Exception as exc:
        raise ProvGraphError(
            f"the ingest is committed but finishing it failed: {exc}; the next write, or read-write open of "
            "the store, finishes it"
        ) from exc
    if progress is not None:
        progress("writing", total, total)


def _check_plan(backend: Backend, ledger: Ledger) -> None:
    """Raise :class:`_StoreChangedError` when a document's current or newest version is no longer
    the one its new version was planned on."""
    for batch in ledger.batches(BATCH_DOCUMENTS):
        docs = {b.key: b.document for b in batch}
        now_state = catalog.lookup(backend, docs.keys(), docs)
        for b in batch:
            state = now_state[b.key]
            if state.graph != b.previous or state.last_version != b.version - 1:
                raise _StoreChangedError


def _insert_data(spool: Path, built: list[Built]) -> str:
    """The spool's quads as one INSERT DATA operation (N-Triples terms are SPARQL terms), each
    also in the current view (blank node labels name one node across the whole operation)."""
    suffixes = {f" <{b.graph.value}> .": b.graph.value for b in built}
    parts = ["INSERT DATA {"]
    triples: list[str] = []
    current = None
    with spool.open(encoding="utf-8") as lines:
        for line in lines:
            line = line.rstrip("\n")
            head, _, tail = line.rpartition(" <")
            graph = suffixes[" <" + tail]
            if graph != current:
                parts.append(("} " if current else "") + f"GRAPH <{graph}> {{")
                current = graph
            parts.append(head + " .")
            triples.append(head + " .")
    if current:
        parts.append("}")
        parts.append(f"GRAPH {CURRENT_VIEW} {{")
        parts += triples
        parts.append("}")
    parts.append("}")
    return "\n".join(parts)


__all__ = ["BULK_THRESHOLD", "SPOOL_PREFIX", "ProgressCallback", "remove_stale_spools", "run"]
