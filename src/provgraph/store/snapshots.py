"""Checkpoints of an on-disk store for readers in other processes.

A process that writes the store keeps it open read-write; RocksDB documents reading it from
another process meanwhile (a read-only open) as undefined, and such an open replays the
write-ahead log of everything not yet flushed (minutes after a large write). Readers open a
checkpoint instead: a directory under ``<store>/snapshots/`` made with RocksDB's checkpoint (the
memtable flushed, the data files hard-linked; no log to replay) that nobody writes.

:class:`Snapshots` makes one when the store's write generation has moved since the last, counts
which ones readers have open, and deletes a checkpoint once it is neither the newest nor open.
What is left from a process that ended without cleaning up is deleted when the next one starts.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from provgraph.store.oxigraph import OxigraphBackend

SNAPSHOT_DIR = "snapshots"


@dataclass(frozen=True)
class Snapshot:
    path: Path
    generation: int
    #: seconds spent making it (the checkpoint: flushing the memtable, linking the files)
    seconds: float


class Snapshots:
    """Checkpoints of ``backend`` (an on-disk store this process holds for writing)."""

    def __init__(self, backend: OxigraphBackend) -> None:
        location = backend.location
        if location is None or backend.generation is None:
            raise ValueError("checkpoints need an on-disk store this process writes")
        self._backend = backend
        self._root = location / SNAPSHOT_DIR
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._newest: Snapshot | None = None
        self._users: dict[Path, int] = {}
        self._writers = 0
        # a previous server's checkpoints: no reader of this one has them open
        shutil.rmtree(self._root, ignore_errors=True)
        self._root.mkdir()

    @property
    def root(self) -> Path:
        return self._root

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Around a write: readers keep the newest checkpoint meanwhile rather than flush a write
        half done; the first reader after it (or the writer itself, with :meth:`refresh`) makes the
        next one."""
        with self._lock:
            self._writers += 1
        try:
            yield
        finally:
            with self._lock:
                self._writers -= 1

    def refresh(self) -> Snapshot:
        """The newest checkpoint, made now if the store changed since the last one."""
        with self._lock:
            return self._current(force=True)

    def acquire(self) -> Path:
        """The newest checkpoint, for a reader to open: counted as open until :meth:`release`."""
        with self._lock:
            snapshot = self._current(force=False)
            self._users[snapshot.path] = self._users.get(snapshot.path, 0) + 1
            return snapshot.path

    def release(self, path: Path) -> None:
        with self._lock:
            left = self._users.get(path, 0) - 1
            if left > 0:
                self._users[path] = left
                return
            self._users.pop(path, None)
            if self._newest is None or path != self._newest.path:
                shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Delete every checkpoint (the readers are gone)."""
        with self._lock:
            self._newest = None
            self._users.clear()
            shutil.rmtree(self._root, ignore_errors=True)

    def _current(self, *, force: bool) -> Snapshot:
        generation = self._backend.generation
        assert generation is not None
        newest = self._newest
        # While a write runs, readers keep the last checkpoint (consistent, a moment old): a
        # checkpoint now would flush a write in progress, a cost its writer pays once it is done.
        if newest is not None and (newest.generation == generation or (self._writers and not force)):
            return newest
        path = self._root / str(next(self._numbers))
        started = time.perf_counter()
        self._backend.checkpoint(path)
        self._newest = Snapshot(path, generation, time.perf_counter() - started)
        if newest is not None and not self._users.get(newest.path):
            shutil.rmtree(newest.path, ignore_errors=True)
        return self._newest

    @property
    def newest(self) -> Snapshot | None:
        return self._newest


__all__ = ["SNAPSHOT_DIR", "Snapshot", "Snapshots"]
