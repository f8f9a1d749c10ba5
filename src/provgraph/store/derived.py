"""Derived views of the current sources, kept up to date from the change log (:mod:`.changes`).

The lexical index, the conflict records and the document relations are functions of the current
source graphs (the conflict records of the ontology too). Each implements :class:`Derived` and keeps,
with its data, the :class:`Stamp` of the store state it reflects. :func:`catch_up` is the one way
they are brought up to date:

1. the store's stamp is read (one triple, and not even that while this process is the only
   writer and wrote nothing since: :func:`stamp` is cached by the backend's write generation);
2. equal to the view's: nothing to do. Otherwise the changes since the view's generation
   (:func:`.changes.since`: the source graphs added and removed, by direct lookups) go to the
   view's ``compute``, which recomputes only what those graphs touch; a reset (a restore), an
   ontology change for a view that depends on it, a log of another store or no stamp at all make
   it start over (``compute`` with no changes);
3. the result is written with the new stamp; a store that cannot be written (read-only, or
   locked by another process) keeps it in memory instead, by store stamp, and :func:`catch_up`
   returns it for readers to lay over the stored view.

So no view reads the catalog to find out what changed, and an ask on a store of any size pays
one lookup to know its views are current (none while the store has not moved since a view was
last seen current). What one process keeps (the store's stamp, what :func:`memo` computed, the
results it could not store) is one cache, keyed by the store's stamp.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Protocol, TypeVar, cast

from provgraph.errors import ReadOnlyStoreError, StoreLockedError
from provgraph.store import changes as change_log
from provgraph.store.base import Backend
from provgraph.store.changes import Changes
from provgraph.store.terms import RdfFormat, parse, serialize, sparql_term
from provgraph.vocab import ID_NS, PREFIXES

#: The store's generation and the time of the change log's first entry ``$first`` (it names the log).
STAMP = Template("""SELECT ?n ?t WHERE {
  OPTIONAL { GRAPH pgid:changes { pgid:changes pg:generation ?n } }
  OPTIONAL { GRAPH pgid:changes { $first prov:generatedAtTime ?t } } }""")
_STAMP = STAMP.substitute(first=sparql_term(ID_NS + "change/1"))

_TRIG_PREFIXES = "".join(f"PREFIX {name}: {sparql_term(iri)}\n" for name, iri in PREFIXES.items())


def load_lines(backend: Backend, graph: str, lines: Iterable[str]) -> None:
    """Add ``lines`` (Turtle triples in provgraph's prefixes) to the graph ``graph`` (a term in
    those prefixes) with the bulk loader. Not a transaction: a view written so writes its stamp
    last, in an update of its own, so that a write cut short leaves no stamp and is made again.
    At 1M facts SPARQL INSERT DATA was 5x slower than this on the embedded store, and a
    transactional load 3x; on a SPARQL server the loader writes requests to the engine's limits
    where an update would be read whole to be cut (14 s for the 36 MB of relations at 100k).
    The embedded engine then compacts the loaded files in the background, which on two cores
    slows what runs meanwhile: asks in the minute after the relations' first build at 100k took
    64-126 ms at the median, against 58-62 after a transactional load or a minute later; the
    transactional load made that first build 18% slower (39 s against 33), a cost paid on every
    rebuild rather than for a minute after it."""
    text = _TRIG_PREFIXES + graph + " {\n" + "\n".join(lines) + "\n}\n"
    quads = parse(text.encode(), format=RdfFormat.TRIG)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lines.nq"
        with path.open("wb") as f:
            serialize(quads, f, format=RdfFormat.N_QUADS)
        backend.load_quads(path, bulk=True)


P = TypeVar("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Stamp:
    """A state of the store's current sources: the change log it belongs to (the time of the log's
    first entry: a restored store starts a log of its own) and the generation in that log."""

    log: str
    generation: int


class Derived(Protocol[P]):
    """A view derived from the current sources (see the module docstring). ``P`` is what
    ``compute`` returns: the changes to make to the stored view, or the whole view."""

    #: Whether an ontology change makes the view start over.
    uses_ontology: bool

    def stored(self, backend: Backend) -> Stamp | None:
        """The stamp the stored view reflects; None when there is none (never built, or built by
        another version of provgraph)."""
        ...

    def compute(self, backend: Backend, since: Changes | None) -> P:
        """What the view becomes after ``since`` (the changes after its stamp), or the whole view
        when ``since`` is None. Reads only what the changed graphs touch."""
        ...

    def writable(self, backend: Backend) -> bool:
        """Whether :meth:`write` may run now (taking the store's write lock if needed)."""
        ...

    def write(self, backend: Backend, result: P, target: Stamp) -> None:
        """Store ``result`` and ``target`` as the view's stamp."""
        ...


_lock = threading.RLock()
_stamps: weakref.WeakKeyDictionary[Backend, tuple[int, Stamp]] = weakref.WeakKeyDictionary()
_memos: weakref.WeakKeyDictionary[Backend, dict[str, tuple[Stamp, object]]] = weakref.WeakKeyDictionary()
_locks: weakref.WeakKeyDictionary[Backend, dict[str, threading.Lock]] = weakref.WeakKeyDictionary()
#: the stamps :func:`pinned` holds, by backend, on each thread
_pins = threading.local()


@contextlib.contextmanager
def pinned(backend: Backend) -> Iterator[None]:
    """Within, on this thread, :func:`stamp` reads the store's stamp once: an ask sees its derived
    views at one store state, and a SPARQL server (whose stamp is never cached) answers one
    lookup instead of one per view and per read (14 in an ask, 2-7 ms each on Virtuoso at
    100k facts)."""
    pins: dict[int, Stamp | None] = _pins.__dict__.setdefault("stamps", {})
    if id(backend) in pins:  # pinned by a caller already
        yield
        return
    pins[id(backend)] = None
    try:
        yield
    finally:
        del pins[id(backend)]


def stamp(backend: Backend) -> Stamp:
    """The store's stamp. Cached while this process is the only writer and has written nothing
    since (the backend's :attr:`~provgraph.store.base.Backend.generation` is unchanged), and
    within :func:`pinned`."""
    pins: dict[int, Stamp | None] | None = getattr(_pins, "stamps", None)
    if pins is not None and id(backend) in pins:
        found = pins[id(backend)]
        if found is None:
            found = pins[id(backend)] = _stamp_of(backend)
        return found
    return _stamp_of(backend)


def _stamp_of(backend: Backend) -> Stamp:
    written = backend.generation
    if written is not None:
        with _lock:
            cached = _stamps.get(backend)
        if cached is not None and cached[0] == written:
            return cached[1]
    generation, log = 0, ""
    for row in backend.select(_STAMP):
        if "n" in row:
            generation = max(generation, row.integer("n"))
        if "t" in row:
            log = row.value("t")
    found = Stamp(log, generation)
    if written is not None and backend.generation == written:
        with _lock:
            _stamps[backend] = (written, found)
    return found


def memo(backend: Backend, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, kept until the store's stamp changes: for what is read on every ask and
    changes only with the sources or the ontology (the trust policy, for one)."""
    now = stamp(backend)
    with _lock:
        found = _memos.get(backend, {}).get(name)
    if found is not None and found[0] == now:
        return cast(T, found[1])
    value = compute()
    with _lock:
        _memos.setdefault(backend, {})[name] = (now, value)
    return value


def forget(backend: Backend, name: str) -> None:
    """Drop what :func:`memo` or :func:`catch_up` keeps under ``name`` (after a write of the view
    outside :func:`catch_up`, such as an explicit full run)."""
    with _lock:
        for key in (name, "pending:" + name, "current:" + name):
            _memos.get(backend, {}).pop(key, None)


def catch_up(backend: Backend, view: Derived[P], name: str) -> P | None:
    """Bring ``view`` up to the store's current sources (see the module docstring). None when the
    stored view is current (after writing it if it was not); else, on a store that cannot be
    written, the view's ``compute`` result that readers must lay over the stored view."""
    settled, pending = _memoized(backend, name, stamp(backend))
    if settled:
        return cast(P | None, pending)
    with _view_lock(backend, name):  # one catch-up of a view at a time in this process
        return _catch_up(backend, view, name)


def _memoized(backend: Backend, name: str, now: Stamp) -> tuple[bool, object]:
    """(True, what to return) when this process already knows the view at store state ``now``:
    the pending result laid over a read-only store, or None for a current view (a view moves
    only with the store); (False, None) when it must be caught up."""
    with _lock:
        memos = _memos.setdefault(backend, {})
        found, current = memos.get("pending:" + name), memos.get("current:" + name)
    if found is not None and found[0] == now:
        return True, found[1]
    if current is not None and current[0] == now:
        return True, None
    return False, None


def _catch_up(backend: Backend, view: Derived[P], name: str) -> P | None:
    now = stamp(backend)
    settled, pending = _memoized(backend, name, now)  # another thread may have caught up meanwhile
    if settled:
        return cast(P | None, pending)
    known = view.stored(backend)
    if known == now:
        _current(backend, name, now)
        return None
    writable = view.writable(backend)
    if writable:  # the write lock may have just been taken: what was read may be stale
        now, known = stamp(backend), view.stored(backend)
        if known == now:
            _current(backend, name, now)
            return None
    since: Changes | None = None
    if known is not None and known.log == now.log:
        if known.generation > now.generation:
            return None  # a reader of an older checkpoint, of a view another process moved on
        since = change_log.since(backend, known.generation, until=now.generation)
        if since.reset or (since.ontology and view.uses_ontology):
            since = None
    result = view.compute(backend, since)
    if writable:
        try:
            view.write(backend, result, now)
            _current(backend, name, now)
            return None
        except (StoreLockedError, ReadOnlyStoreError):
            pass
    with _lock:
        _memos.setdefault(backend, {})["pending:" + name] = (now, result)
    return result


def _view_lock(backend: Backend, name: str) -> threading.Lock:
    with _lock:
        locks = _locks.setdefault(backend, {})
        return locks.setdefault(name, threading.Lock())


def _current(backend: Backend, name: str, at: Stamp) -> None:
    with _lock:
        _memos.setdefault(backend, {})["current:" + name] = (at, None)


def may_write(backend: Backend) -> bool:
    """Whether derived records may be written into the store now: not read-only, and the write
    lock taken (False when another process, a running server, holds it)."""
    if backend.read_only:
        return False
    try:
        backend.begin_write()
    except StoreLockedError:
        return False
    return True


__all__ = ["Derived", "Stamp", "catch_up", "forget", "may_write", "memo", "stamp"]
