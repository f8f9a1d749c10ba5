"""Checkpoints of an on-disk store for readers in other processes.

A process that writes the store keeps it open read-write; RocksDB documents reading it from
another process meanwhile (a read-only open) as undefined, and such an open replays the
write-ahead log of everything not yet flushed (minutes after a large write). Readers open a
checkpoint instead: a directory under ``<store>/snapshots/`` made with RocksDB's checkpoint (the
memtable flushed, the data files hard-linked; no log to replay) that nobody writes.

:class:`Snapshots` makes one when the store's write generation has moved since the last, counts
which ones readers have open, and deletes a checkpoint once it is neither the newest nor open.
What is left from a process that ended without cleaning up is deleted when the next one starts.

Readers in other processes that the writer does not hand checkpoints to (the server's front
processes, :mod:`provgraph.http.front`) learn of them from a :class:`Board`: a small shared file
where the writer publishes the newest checkpoint's number and each reader holds a lease on the
one it has open, so that no checkpoint is deleted under a reader.
"""

from __future__ import annotations

import contextlib
import itertools
import mmap
import os
import shutil
import struct
import threading
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from provgraph.store.oxigraph import OxigraphBackend

SNAPSHOT_DIR = "snapshots"
_U64 = struct.Struct("<Q")


@dataclass(frozen=True)
class Snapshot:
    path: Path
    generation: int


class Board:
    """The newest checkpoint's number, published by the writer, and one lease per reader process
    (the number of the checkpoint it has open; 0: none), in a file both map into memory: a reader
    looks at the newest number before every query for the price of reading an integer.

    The lease protocol: a reader writes the number it is about to open into its slot, then reads
    the newest number again and opens the checkpoint only if it has not moved meanwhile (else it
    starts over). The writer publishes a new number before it deletes anything, and deletes only
    checkpoints that are neither the newest nor leased: a reader that leased a number before the
    writer looked is seen, and one that leased it after sees the newer number and does not open
    the old one."""

    def __init__(self, path: Path, slots: int, *, create: bool = False) -> None:
        self.path = path
        self.slots = slots
        size = _U64.size * (1 + slots)
        flags = os.O_RDWR | (os.O_CREAT | os.O_TRUNC if create else 0)
        fd = os.open(path, flags, 0o600)
        try:
            if create:
                os.ftruncate(fd, size)
            self._map = mmap.mmap(fd, size)
        finally:
            os.close(fd)

    @property
    def newest(self) -> int:
        return int(_U64.unpack_from(self._map, 0)[0])

    def publish(self, number: int) -> None:
        _U64.pack_into(self._map, 0, number)

    def lease(self, slot: int, number: int) -> None:
        _U64.pack_into(self._map, _U64.size * (1 + slot), number)

    def leased(self) -> set[int]:
        return {int(_U64.unpack_from(self._map, _U64.size * (1 + s))[0]) for s in range(self.slots)} - {0}

    def take_newest(self, slot: int) -> int:
        """The newest number, leased in ``slot`` (0: nothing published yet)."""
        while True:
            number = self.newest
            self.lease(slot, number)
            if self.newest == number:
                return number

    def close(self) -> None:
        with contextlib.suppress(BufferError):
            self._map.close()


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
        self._board: Board | None = None
        # a previous server's checkpoints: no reader of this one has them open
        shutil.rmtree(self._root, ignore_errors=True)
        self._root.mkdir()

    @property
    def root(self) -> Path:
        return self._root

    def board(self, readers: int) -> Board:
        """A :class:`Board` for ``readers`` reader processes, with the newest checkpoint (made
        now if need be) published on it; every later one is published as it is made."""
        board = Board(self._root / "board", readers, create=True)
        with self._lock:
            self._board = board
        self.refresh()
        newest = self._newest
        assert newest is not None
        board.publish(int(newest.path.name))
        return board

    def sweep(self) -> None:
        """Delete the checkpoints nobody uses: neither the newest, nor open in this process, nor
        leased by a reader process (called as readers move on, and after a reader ended)."""
        with self._lock:
            if self._board is None or self._making:  # a checkpoint being made is not yet the newest
                return
            keep = {p.name for p in self._users} | {str(n) for n in self._board.leased()}
            if self._newest is not None:
                keep.add(self._newest.path.name)
            with contextlib.suppress(OSError):
                for entry in os.scandir(self._root):
                    if entry.is_dir() and entry.name not in keep:
                        shutil.rmtree(entry.path, ignore_errors=True)

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
            if (self._newest is None or path != self._newest.path) and not self._leased(path):
                shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Delete every checkpoint (the readers are gone)."""
        with self._lock:
            self._newest = None
            self._users.clear()
            if self._board is not None:
                self._board.close()
                self._board = None
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
            except BaseException:
                with self._lock:
                    self._making = False
                raise
            with self._lock:
                self._making = False  # with the newest set: a sweep in between would delete it
                self._newest = made
                if self._board is not None:
                    self._board.publish(int(path.name))  # before anything is deleted
                if newest is not None and not self._users.get(newest.path) and not self._leased(newest.path):
                    shutil.rmtree(newest.path, ignore_errors=True)
                return self._held(made, hold)

    def _leased(self, path: Path) -> bool:
        return self._board is not None and path.name in {str(n) for n in self._board.leased()}

    def _held(self, snapshot: Snapshot, hold: bool) -> Snapshot:
        if hold:
            self._users[snapshot.path] = self._users.get(snapshot.path, 0) + 1
        return snapshot


__all__ = ["SNAPSHOT_DIR", "Board", "Snapshot", "Snapshots"]
