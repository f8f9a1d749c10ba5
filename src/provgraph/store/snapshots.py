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
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from provgraph.store.oxigraph import OxigraphBackend

SNAPSHOT_DIR = "snapshots"


@dataclass(frozen=True)
class Snapshot:
    path: Path
    generation: int


class Snapshots:
    """Checkpoints of ``backend`` (an on-disk store this process holds for writing)."""

    def __init__(self, backend: OxigraphBackend) -> None:
        location = backend.location
        if location is None or backend.read_only or backend.generation is None:
            raise ValueError("checkpoints need an on-disk store this process writes")
        self._backend = backend
        self._root = location / SNAPSHOT_DIR
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._newest: Snapshot | None = None
        self._users: dict[Path, int] = {}
        self._writers = 0
        self._make = threading.Lock()
        self._making = False
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
        """The newest checkpoint, made now if the store changed since the last one (a writer calls
        this once its write is done, so that the first reader after it need not wait)."""
        return self._current(reader=False, hold=False)

    @typing.overload
    def acquire(self) -> Path: ...
    @typing.overload
    def acquire(self, *, wait: bool) -> Path | None: ...

    def acquire(self, *, wait: bool = True) -> Path | None:
        """The newest checkpoint, for a reader to open: counted as open until :meth:`release`.
        While a write runs, or another caller is making a checkpoint, that is the last one made
        (consistent, a moment old): a reader never waits for a write, nor for a flush. Without
        ``wait``, None when a checkpoint would have to be made first (the caller makes it off its
        event loop)."""
        if not wait:
            with self._lock:
                newest = self._newest
                if newest is not None and (
                    newest.generation == self._backend.generation or self._writers or self._making
                ):
                    return self._held(newest, True).path
            return None
        return self._current(reader=True, hold=True).path

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

    def _current(self, *, reader: bool, hold: bool) -> Snapshot:
        """The checkpoint to use, counted as open when ``hold`` (under the same lock that decides
        which one it is, so it cannot be deleted in between)."""
        with self._lock:
            newest = self._newest
            if newest is not None and (
                newest.generation == self._backend.generation or (reader and (self._writers or self._making))
            ):
                return self._held(newest, hold)
        with self._make:  # one checkpoint at a time; the flush runs outside the readers' lock
            with self._lock:
                newest = self._newest
                generation = self._backend.generation
                if newest is not None and newest.generation == generation:
                    return self._held(newest, hold)
                self._making = True
            try:
                path = self._root / str(next(self._numbers))
                self._backend.checkpoint(path)
                made = Snapshot(path, generation or 0)
            finally:
                with self._lock:
                    self._making = False
            with self._lock:
                self._newest = made
                if newest is not None and not self._users.get(newest.path):
                    shutil.rmtree(newest.path, ignore_errors=True)
                return self._held(made, hold)

    def _held(self, snapshot: Snapshot, hold: bool) -> Snapshot:
        if hold:
            self._users[snapshot.path] = self._users.get(snapshot.path, 0) + 1
        return snapshot


__all__ = ["SNAPSHOT_DIR", "Snapshot", "Snapshots"]
