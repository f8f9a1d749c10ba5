"""The embedded Oxigraph backend: RocksDB on disk, or memory.

A store directory holds ``oxigraph/`` (the RocksDB database) and, while a process has it open for
writing, ``holder.json`` naming that process, so that another process is told who holds the store
instead of a bare lock error. Read-only opens do not take the lock and keep working while a
server holds the store (RocksDB read-only mode sees the data as of the open).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import IO, cast

from pyoxigraph import Store, Variable

from provgraph.errors import (
    InputError,
    ProvGraphError,
    QueryError,
    QuerySyntaxError,
    ReadOnlyStoreError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
)
from provgraph.store.base import CoreQueries, QueryResults, Substitutions
from provgraph.store.terms import (
    BlankNode,
    DefaultGraph,
    GraphName,
    Literal,
    NamedNode,
    Quad,
    RdfFormat,
    parse,
    serialize,
)

_DB_DIR = "oxigraph"
#: Bytes of N-Quads per call of Oxigraph's bulk loader (see ``OxigraphBackend._bulk_load``).
BULK_BYTES = 16 << 20
#: Quads per call of Oxigraph's bulk loader once the input has blank nodes.
BULK_CHUNK = 50_000
_HOLDER_FILE = "holder.json"


class OxigraphBackend(CoreQueries):
    """:class:`~provgraph.store.base.Backend` over a pyoxigraph ``Store``."""

    def __init__(self, store: Store, *, location: Path | None, read_only: bool, lazy: bool = False) -> None:
        self._store = store
        self._location = location
        self._read_only = read_only
        self._lazy = lazy  # open read-only for now; take the write lock at the first write
        self._closed = False
        self._generation = 0

    # ------------------------------------------------------------------ opening

    @classmethod
    def memory(cls) -> OxigraphBackend:
        """An in-memory store, gone when the object is."""
        return cls(Store(), location=None, read_only=False)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, read_only: bool = False, lazy: bool = False, create: bool = True
    ) -> OxigraphBackend:
        """Open the store directory ``path``: read-write (created if missing unless ``create`` is
        false) by default.

        ``lazy`` opens an existing store read-only and takes the write lock at the first write,
        so a process that ends up writing nothing (an ingest refused by SHACL) leaves every file
        of the store as it was: opening RocksDB for writing alone rewrites its log and manifest.
        """
        root = Path(path)
        db = root / _DB_DIR
        exists = (db / "CURRENT").exists()
        if not exists and (read_only or not create):
            raise StoreNotFoundError(f"no provgraph store at {root} (ingest a document to create one, or pass --store)")
        if lazy and not read_only and not exists:
            _check_store_dir(root)
            # Nothing to read yet: an empty view, and nothing created until the first write.
            return cls(Store(), location=root, read_only=False, lazy=True)
        if read_only or (lazy and exists):
            return cls(_open_read_only(db, root), location=root, read_only=read_only, lazy=not read_only)
        return cls(_open_read_write(root), location=root, read_only=False)

    @classmethod
    def open_snapshot(cls, path: str | os.PathLike[str], *, store: Path) -> OxigraphBackend:
        """Open a checkpoint made by :meth:`checkpoint` read-only (its :attr:`generation` is
        fixed, as a read-only open's). ``store`` is the store directory it was made from, the
        :attr:`location` of the files kept beside the data (the lexical index)."""
        snapshot = Path(path)
        return cls(_open_read_only(snapshot, snapshot), location=store, read_only=True)

    def checkpoint(self, target: str | os.PathLike[str]) -> None:
        """A consistent copy of the store as of now in the new directory ``target``, openable with
        :meth:`open_snapshot`: RocksDB flushes what is in memory and hard-links its files, so it
        is cheap, and it has no write-ahead log to replay when opened."""
        if self._location is None:
            raise StoreError("an in-memory store has no checkpoints")
        if self._closed:
            raise ProvGraphError("the store is closed")
        try:
            self._store.backup(str(target))
        except OSError as exc:
            raise StoreError(f"cannot make a checkpoint of the store at {self._location}: {exc}") from exc

    def begin_write(self) -> bool:
        """Take the write lock if this backend does not hold it yet. True when that happened:
        what was read before may be stale, since another process could have written meanwhile."""
        if self._read_only or self._closed or not self._lazy:
            self._check_writable()
            return False
        assert self._location is not None
        self._store = _open_read_write(self._location)
        self._lazy = False
        return True

    # ------------------------------------------------------------------ protocol

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def location(self) -> Path | None:
        return self._location

    def query(
        self,
        sparql: str,
        *,
        default_graph: Sequence[GraphName] | None = None,
        union_default_graph: bool = False,
        named_graphs: Sequence[NamedNode | BlankNode] | None = None,
        substitutions: Substitutions | None = None,
        prefixes: dict[str, str] | None = None,
        base_iri: str | None = None,
    ) -> QueryResults:
        subs = {Variable(k): v for k, v in substitutions.items()} if substitutions else None
        kwargs: dict[str, object] = {}
        if prefixes:
            kwargs["prefixes"] = prefixes
        if base_iri:
            kwargs["base_iri"] = base_iri
        if named_graphs is not None:
            kwargs["named_graphs"] = list(named_graphs)
        if union_default_graph:
            kwargs["use_default_graph_as_union"] = True
        elif default_graph is not None:
            kwargs["default_graph"] = list(default_graph)
        try:
            return self._store.query(sparql, substitutions=subs, **kwargs)  # type: ignore[arg-type]
        except SyntaxError as exc:
            raise QuerySyntaxError(str(exc.msg or exc), line=exc.lineno, column=exc.offset) from exc
        except (ValueError, RuntimeError) as exc:
            raise QueryError(str(exc)) from exc
        except OSError as exc:
            raise StoreError(f"reading the store failed: {exc}") from exc

    def update(self, sparql: str, *, base_iri: str | None = None, prefixes: dict[str, str] | None = None) -> None:
        with self._writing():
            try:
                self._store.update(sparql, base_iri=base_iri, prefixes=prefixes)
            except SyntaxError as exc:
                raise QuerySyntaxError(str(exc.msg or exc), line=exc.lineno, column=exc.offset) from exc
            except (ValueError, RuntimeError) as exc:
                raise QueryError(str(exc)) from exc
            except OSError as exc:
                raise StoreError(f"writing the store failed: {exc}") from exc

    def quads(
        self,
        subject: NamedNode | BlankNode | None = None,
        predicate: NamedNode | None = None,
        obj: NamedNode | BlankNode | Literal | None = None,
        graph: GraphName | None = None,
    ) -> Iterator[Quad]:
        return self._store.quads_for_pattern(subject, predicate, obj, graph)

    def named_graphs(self) -> Iterator[NamedNode | BlankNode]:
        return self._store.named_graphs()

    def load_quads(self, nquads: Path | Sequence[Path], *, bulk: bool) -> None:
        files = [nquads] if isinstance(nquads, Path) else list(nquads)
        with self._writing():
            try:
                with _Concatenated(files) as concatenated:
                    stream = cast(IO[bytes], concatenated)  # read() is all a parser calls
                    if bulk:
                        self._bulk_load(stream)
                    else:
                        self._store.load(stream, format=RdfFormat.N_QUADS)
            except (OSError, SyntaxError) as exc:
                raise StoreError(f"writing the store failed: {exc}") from exc

    def _bulk_load(self, stream: IO[bytes]) -> None:
        """Oxigraph's bulk loader, fed a block at a time: it holds what one call is given in
        memory (625k quads in one call: +538 MB; in blocks of 16 MiB, about 64k quads: flat, and
        within 15% of the CPU of one call). A blank node label names one node only within one
        call of the loader, so from the first block with a blank node on, one parser reads the
        rest and gives each label one fresh node throughout, fed ``BULK_CHUNK`` quads at a time."""
        rest = b""
        while block := stream.read(BULK_BYTES):
            block = rest + block
            cut = block.rfind(b"\n") + 1
            head, rest = block[:cut], block[cut:]
            if b"_:" in head:
                self._bulk_extend(cast(IO[bytes], _Prefixed(head + rest, stream)))
                return
            if head:
                self._store.bulk_load(head, format=RdfFormat.N_QUADS)
        if rest:
            self._bulk_extend(cast(IO[bytes], _Prefixed(rest, stream)))

    def _bulk_extend(self, stream: IO[bytes]) -> None:
        quads = parse(stream, format=RdfFormat.N_QUADS, rename_blank_nodes=True)
        while chunk := list(islice(quads, BULK_CHUNK)):
            self._store.bulk_extend(chunk)

    def load_dataset(self, source: Path | IO[bytes], fmt: RdfFormat) -> None:
        with self._writing():
            try:
                if isinstance(source, Path):
                    self._store.load(path=str(source), format=fmt)
                else:
                    self._store.load(source, format=fmt)
            except SyntaxError as exc:
                where = str(source) if isinstance(source, Path) else None
                raise InputError(f"syntax error: {exc.msg}", file=where, line=exc.lineno) from exc
            except OSError as exc:
                raise StoreError(f"loading the dataset failed: {exc}") from exc

    def remove_graph(self, graph: NamedNode) -> None:
        with self._writing():
            self._store.remove_graph(graph)

    def dump(
        self,
        output: IO[bytes],
        fmt: RdfFormat,
        *,
        graph: GraphName | None = None,
        exclude: Sequence[NamedNode] = (),
        prefixes: Mapping[str, str] | None = None,
    ) -> None:
        named = dict(prefixes) if prefixes else None
        try:
            if graph is None and exclude:
                left_out = set(exclude)
                serialize((q for q in self._store if q.graph_name not in left_out), output, fmt, prefixes=named)
            elif graph is None:
                self._store.dump(output, format=fmt, prefixes=named)
            else:
                self._store.dump(output, format=fmt, from_graph=graph, prefixes=named)
        except BrokenPipeError:
            raise  # the reader left: the caller decides
        except OSError as exc:
            raise StoreError(f"reading the store failed: {exc}") from exc

    def optimize(self) -> None:
        with self._writing():
            try:
                self._store.optimize()
            except OSError as exc:
                raise StoreError(f"compacting the store failed: {exc}") from exc

    def flush(self) -> None:
        try:
            self._store.flush()
        except OSError as exc:
            raise StoreError(f"writing the store failed: {exc}") from exc

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not self._read_only and not self._lazy:
            with contextlib.suppress(OSError):
                self._store.flush()
            if self._location is not None:
                _remove_holder(self._location)
        # Dropping the last reference releases RocksDB's lock.
        del self._store

    @property
    def generation(self) -> int | None:
        """A number that changes with every write made through this backend, or None when what
        it reads may change under it (a lazy open, which reopens the store when it first writes),
        so nothing may be cached. A read-only open is fixed at 0: RocksDB opened read-only reads
        the store as it was when opened, whatever another process writes afterwards (a test holds
        pyoxigraph to it); caching there saved 12 microseconds a query, a third of a small one."""
        if self._read_only:
            return 0
        return None if self._lazy else self._generation

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Around every write: the generation changes before it (what is cached may be stale from
        now on) and again once it is done, so what is read or cached while it ran (without it, or
        with part of a bulk load) is not taken for the state after it."""
        self._check_writable()
        try:
            yield
        finally:
            self._generation += 1

    def _check_writable(self) -> None:
        self._generation += 1  # called by every write method before it writes
        if self._read_only:
            raise ReadOnlyStoreError(f"the store at {self._location} is open read-only; writes need a read-write open")
        if self._closed:
            raise ProvGraphError("the store is closed")
        if self._lazy:
            self.begin_write()


class _Concatenated:
    """Files read one after the other as one binary stream (all a parser calls is ``read``)."""

    def __init__(self, files: Sequence[Path]) -> None:
        self._files = list(files)
        self._current: IO[bytes] | None = None

    def __enter__(self) -> _Concatenated:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None

    def read(self, size: int = -1) -> bytes:
        while True:
            if self._current is None:
                if not self._files:
                    return b""
                self._current = self._files.pop(0).open("rb")
            data = self._current.read(size)
            if data or size == 0:
                return data
            self._current.close()
            self._current = None

    def readable(self) -> bool:
        return True


class _Prefixed:
    """``head``, then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if self._head:
            data = self._head if size < 0 else self._head[:size]
            self._head = self._head[len(data) :]
            return data
        return self._stream.read(size)

    def readable(self) -> bool:
        return True


def _check_store_dir(root: Path) -> None:
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is not a directory")
    if root.exists() and any(root.iterdir()) and not (root / _DB_DIR).exists():
        raise StoreError(
            f"{root} exists and is not a provgraph store (no {_DB_DIR}/ inside); choose an empty or new directory"
        )


def _open_read_write(root: Path) -> Store:
    db = root / _DB_DIR
    _check_store_dir(root)
    try:
        db.mkdir(parents=True, exist_ok=True)
        store = Store(str(db))
    except OSError as exc:
        if "lock" in str(exc).lower():
            holder = read_holder(root)
            raise StoreLockedError(_locked_message(root, holder), holder=holder) from exc
        raise StoreError(f"cannot open the store at {root}: {exc}") from exc
    _write_holder(root)
    return store


def _open_read_only(db: Path, root: Path) -> Store:
    """Open RocksDB read-only beside a writer. A writer compacting at that moment can delete a
    file the snapshot names; the next attempt sees the new file list, so retry a few times."""
    attempts = 8
    for attempt in range(attempts):
        try:
            return Store.read_only(str(db))
        except (OSError, RuntimeError) as exc:
            if attempt == attempts - 1:
                raise StoreError(f"cannot open the store at {root} read-only: {exc}") from exc
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------- holder file


def read_holder(root: Path) -> dict[str, object] | None:
    """The process that has the store open for writing, as it recorded itself, if known."""
    try:
        holder: dict[str, object] = json.loads((root / _HOLDER_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    pid = holder.get("pid")
    holder["alive"] = isinstance(pid, int) and _pid_alive(pid)
    return holder


def _command() -> str:
    """The program and its subcommand (``provgraph serve``), never its options: they may hold
    secrets (``--token``), and the holder file and lock messages are read by others."""
    if not sys.argv:
        return "python"
    program = Path(sys.argv[0]).name
    words = ["provgraph" if program == "__main__.py" else program]  # python -m provgraph
    subcommand = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if subcommand is not None and subcommand.isidentifier():
        words.append(subcommand)
    return " ".join(words)


def _write_holder(root: Path) -> None:
    info = {
        "pid": os.getpid(),
        "command": _command(),
        "host": socket.gethostname(),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    with contextlib.suppress(OSError):
        path = root / _HOLDER_FILE
        # created private (mode 600), never readable by others for a moment before a chmod
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as f:
            f.write(json.dumps(info))
        path.chmod(0o600)  # a file left by an older version keeps its mode on O_TRUNC


def _remove_holder(root: Path) -> None:
    path = root / _HOLDER_FILE
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text("utf-8")).get("pid") == os.getpid():
            path.unlink()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _locked_message(root: Path, holder: dict[str, object] | None) -> str:
    if holder is None:
        who = "another process (it did not record itself)"
    else:
        who = (
            f"process {holder.get('pid')} ({holder.get('command')}) on {holder.get('host')} since {holder.get('since')}"
        )
    return (
        f"the store at {root} is held for writing by {who}; stop it or wait, "
        "or use a read command (query, sources, evidence, export), which opens the store read-only"
    )


__all__ = ["DefaultGraph", "OxigraphBackend", "read_holder"]
