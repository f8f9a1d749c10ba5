"""SHACL validation, designed for throughput without giving up completeness.

The built-in shapes are compiled to Python checks that give pySHACL's results
(:mod:`provgraph.ingest.shacl`): a statement costs about 50 us of CPU there against about 430 in
pySHACL. Shapes that do not compile (the user's, ``--shapes``) go to pySHACL, and
three things make that fast enough to validate every statement of a large document:

1. **Hoisting.** pyshacl re-evaluates a node shape's ``sh:property`` shapes once per focus node,
   rebuilding their constraint objects each time. A property shape that only one node shape
   uses, from a node shape that has targets and is referenced by no other shape, validates the
   same nodes with the same result when it carries those targets itself; hoisted that way,
   pyshacl evaluates it once over all focus nodes (about 2x faster on our shapes).
2. **Oxigraph as the data graph.** Each chunk is loaded into an in-memory Oxigraph store
   (:class:`~provgraph.store.scratch.ScratchStore`), so ``sh:sparql`` constraints run in Oxigraph
   rather than rdflib's SPARQL engine.
3. **Chunks on both cores.** The built-in shapes are local: each constrains a statement (or
   passage, document, activity) through the nodes it points to and the triple it reifies. A
   chunk holding some statements, their asserted triples, the passages they cite and the
   document header validates those statements exactly as the whole graph would
   (``tests/test_validation.py`` checks this against whole-graph validation). Chunks go to a pool
   of worker processes once a document is large enough to pay for starting them.

User shapes (``--shapes``) may say anything about the whole graph (``sh:maxCount 1`` across
statements of one subject, ``sh:class`` of an object typed elsewhere), so they are run once over
the complete document graph instead of in chunks.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import heapq
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provgraph.errors import InputError, ProvGraphError
from provgraph.models import ValidationIssue
from provgraph.resources import builtin_shape_files
from provgraph.store.scratch import ScratchStore

if TYPE_CHECKING:
    import rdflib
    from rdflib.term import Node

    from provgraph.ingest.shacl import CompiledShapes

# rdflib and pySHACL are imported by the functions that validate, not with this module: they cost
# half a second, and commands that never validate (query, serve, ask) should not pay it.

#: Issues kept in a report; validation stops submitting chunks once this many were found.
MAX_ISSUES = 100
#: Statements (or passages) per validation chunk.
CHUNK_STATEMENTS = 2000
#: With compiled shapes, chunks validated in this process before a worker takes over.
LOCAL_CHUNKS = 5


def load_shapes(files: Sequence[Path]) -> rdflib.Graph:
    """Parse shape files (Turtle or any RDF syntax rdflib reads) into one hoisted shapes graph."""
    import rdflib

    graph = rdflib.Graph()
    for path in files:
        if not path.is_file():
            raise InputError("no such shapes file", file=str(path))
        try:
            graph.parse(path)
        except Exception as exc:  # rdflib raises many unrelated types for bad syntax
            line = getattr(exc, "lines", None) or getattr(exc, "lineno", None)
            raise InputError(f"cannot read SHACL shapes: {exc}", file=str(path), line=line) from exc
    return hoist_property_shapes(graph)


def hoist_property_shapes(graph: rdflib.Graph) -> rdflib.Graph:
    """Give each safely hoistable property shape its node shape's targets (see module doc)."""
    import rdflib
    from rdflib.namespace import SH

    kinds = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf, SH.target)
    referenced = {o for _, p, o in graph if p != SH.property and isinstance(o, rdflib.term.Node)}
    for node_shape, prop_shape in list(graph.subject_objects(SH.property)):
        targets = [(p, o) for p in kinds for o in graph.objects(node_shape, p)]
        if not targets or node_shape in referenced:
            continue
        if len(list(graph.subjects(SH.property, prop_shape))) != 1:
            continue
        if any(True for p in kinds for _ in graph.objects(prop_shape, p)):
            continue
        if (node_shape, SH.deactivated, rdflib.Literal(True)) in graph:
            continue
        graph.remove((node_shape, SH.property, prop_shape))
        for p, o in targets:
            graph.add((prop_shape, p, o))
    return graph


def builtin_shapes() -> rdflib.Graph:
    return load_shapes(builtin_shape_files())


@contextlib.contextmanager
def _quiet_rdflib() -> Iterator[None]:
    """rdflib logs a traceback for every ill-typed literal it converts ("abc"^^xsd:integer is
    legal RDF, and SHACL's sh:datatype reports it where a shape asks); keep that off stderr."""
    logger = logging.getLogger("rdflib.term")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def validate_store(store: ScratchStore, shapes: rdflib.Graph) -> tuple[list[ValidationIssue], int]:
    """Validate the default graph of ``store``; return (issues, number of issues)."""
    with _quiet_rdflib():
        return _validate_store(store, shapes)


def _validate_store(store: ScratchStore, shapes: rdflib.Graph) -> tuple[list[ValidationIssue], int]:
    from pyshacl import validate as shacl_validate
    from pyshacl.graph_abstraction import DataGraph

    try:
        conforms, results, _text = shacl_validate(
            DataGraph.from_oxigraph_store(store.engine),
            shacl_graph=shapes,
            inference=None,
            inplace=True,
            allow_warnings=False,
        )
    except Exception as exc:  # pyshacl reports broken shapes with its own exception types
        raise ProvGraphError(f"SHACL validation could not run: {exc}") from exc
    if conforms:
        return [], 0
    return _issues(results)


def validate_ntriples(text: str, shapes: rdflib.Graph) -> tuple[list[ValidationIssue], int]:
    return validate_store(ScratchStore.of_ntriples(text.encode("utf-8")), shapes)


def validate_lines(lines: Sequence[str], checks: CompiledShapes) -> tuple[list[ValidationIssue], int]:
    """Validate the graph of ``lines`` (N-Triples without the final " .") with compiled shapes;
    return (at most MAX_ISSUES issues, number of issues), as :func:`validate_store` does."""
    with _quiet_rdflib():
        found = checks.validate(lines)
    found.sort(key=_order)
    return found[:MAX_ISSUES], len(found)


def merge_issues(parts: Iterable[tuple[list[ValidationIssue], int]]) -> tuple[list[ValidationIssue], int]:
    """The (issues, count) of validating parts of a graph separately, as one validation of the
    whole reports them (parts that share no focus node): each part's first MAX_ISSUES in order
    hold the whole's first MAX_ISSUES."""
    issues: list[ValidationIssue] = []
    count = 0
    for found, n in parts:
        issues += found
        count += n
    issues.sort(key=_order)
    return issues[:MAX_ISSUES], count


def _order(issue: ValidationIssue) -> tuple[str, str, str]:
    return issue.focus_node, issue.path or "", issue.message


def _term(node: Any) -> str | None:
    import rdflib

    if node is None:
        return None
    if isinstance(node, rdflib.URIRef):
        return str(node)
    if isinstance(node, rdflib.BNode):
        return f"_:{node}"
    return node.n3() if hasattr(node, "n3") else str(node)


def _issues(results: Any) -> tuple[list[ValidationIssue], int]:
    import rdflib
    from rdflib.namespace import SH

    def issue(result: Any) -> ValidationIssue:
        value = results.value
        severity = value(result, SH.resultSeverity)
        path = value(result, SH.resultPath)
        return ValidationIssue(
            focus_node=_term(value(result, SH.focusNode)) or "?",
            path=_term(path) if isinstance(path, rdflib.URIRef) else (path and "(complex path)"),
            value=_term(value(result, SH.value)),
            message=str(value(result, SH.resultMessage) or "constraint violated"),
            severity=str(severity).rsplit("#", 1)[-1] if severity else "Violation",
            source_shape=_term(value(result, SH.sourceShape)),
            constraint=str(value(result, SH.sourceConstraintComponent) or "").rsplit("#", 1)[-1] or None,
        )

    found = list(results.subjects(rdflib.RDF.type, SH.ValidationResult))
    # every result read, the first MAX_ISSUES in order kept: the same ones whichever order
    # pySHACL found them in, as the compiled checks give
    return heapq.nsmallest(MAX_ISSUES, map(issue, found), key=_order), len(found)


# ---------------------------------------------------------------------- worker pool

_worker_shapes: rdflib.Graph | None = None
_worker_checks: CompiledShapes | None = None
_BLANK = "urn:provgraph:shapes-blank-node:"


def _shapes_text(shapes: rdflib.Graph) -> str:
    """The shapes as N-Triples for a worker, blank nodes written as IRIs so the worker gives them
    the same labels (a result names its source shape, often a blank node)."""
    import rdflib

    def named(term: Node) -> Node:
        return rdflib.URIRef(_BLANK + str(term)) if isinstance(term, rdflib.BNode) else term

    graph = rdflib.Graph()
    for s, p, o in shapes:
        graph.add((named(s), named(p), named(o)))
    return graph.serialize(format="nt")


def _shapes_from_text(text: str) -> rdflib.Graph:
    import rdflib

    def blank(term: Node) -> Node:
        return (
            rdflib.BNode(term[len(_BLANK) :]) if isinstance(term, rdflib.URIRef) and term.startswith(_BLANK) else term
        )

    shapes = rdflib.Graph()
    for s, p, o in rdflib.Graph().parse(data=text, format="nt"):
        shapes.add((blank(s), blank(p), blank(o)))
    return shapes


def _init_worker(shapes_text: str, parent: int, compiled: bool) -> None:
    global _worker_shapes, _worker_checks
    from provgraph.ingest.shacl import compile_shapes

    _die_with_parent(parent)
    _worker_shapes = _shapes_from_text(shapes_text)
    if compiled:
        _worker_checks = compile_shapes(_worker_shapes)


#: How often a worker checks that the process that started it is still there.
WATCHDOG_SECONDS = 1.0


def _die_with_parent(parent: int) -> None:
    """End this worker when the ingest that started it dies. A process killed with SIGKILL runs
    no cleanup, and the pool's workers would wait on their queue for ever (each holds the
    queue's write end, so none sees it close). On Linux the kernel kills the worker when its
    parent dies (PR_SET_PDEATHSIG); everywhere, a watchdog thread notices the parent is gone (the
    worker is re-parented) and exits."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="provgraph-parent-watchdog", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCHDOG_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def _validate_in_worker(text: str) -> tuple[list[dict[str, Any]], int]:
    assert _worker_shapes is not None
    if _worker_checks is not None:
        issues, count = validate_lines(text.split("\n"), _worker_checks)
    else:
        issues, count = validate_ntriples(text, _worker_shapes)
    return [i.model_dump() for i in issues], count


def _broken() -> ProvGraphError:
    # Seen when a script that ingests has no main guard: each worker, started by "spawn", imports
    # the script again, reaches its ingest and fails before it validates anything.
    return ProvGraphError(
        "the SHACL validation workers stopped before validating (a worker process was killed or could "
        "not start). A script that ingests a large file must call provgraph under "
        "'if __name__ == \"__main__\":', as each worker imports the script again; nothing was written"
    )


class ChunkValidator:
    """Validates the chunks of one ingest with the built-in shapes; use as a context manager.

    Chunks are validated in this process until a second one arrives (with ``checks``, the shapes
    compiled: until LOCAL_CHUNKS have been); from then on a pool of worker processes takes them,
    at most two per worker in flight so memory stays bounded. With ``checks`` one worker keeps up
    with the ingest and takes the checks off its core; with pySHACL there is one per core.
    """

    def __init__(
        self, shapes: rdflib.Graph, *, workers: int | None = None, checks: CompiledShapes | None = None
    ) -> None:
        self._shapes = shapes
        self._checks = checks
        cores = max(1, min(2, os.cpu_count() or 1))
        self._workers = workers if workers is not None else (1 if checks is not None else cores)
        self._pool: cf.ProcessPoolExecutor | None = None
        self._pending: list[cf.Future[tuple[list[dict[str, Any]], int]]] = []
        self._first: str | None = None
        self.issues: list[ValidationIssue] = []
        self.issue_count = 0
        self.chunks = 0
        self._seen: set[ValidationIssue] = set()
        self._buffer: list[str] = []
        self._weight = 0
        self._started_pool = False

    def __enter__(self) -> ChunkValidator:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    @property
    def failed(self) -> bool:
        return self.issue_count > 0

    @property
    def used_workers(self) -> bool:
        """Whether chunks went to worker processes (only when there were two or more)."""
        return self._started_pool

    def add(self, lines: list[str], weight: int) -> None:
        """Queue a self-contained piece of a graph: N-Triples lines (without the final " .") of
        statements with everything their shapes look at. Pieces are batched into chunks of about
        CHUNK_STATEMENTS statements, so many small documents share a chunk."""
        self._buffer.extend(lines)
        self._weight += max(weight, 1)
        if self._weight >= CHUNK_STATEMENTS:
            self._submit_buffer()

    def _submit_buffer(self) -> None:
        if self._buffer and self._checks is not None:
            self.submit("\n".join(self._buffer))
        elif self._buffer:
            self.submit(" .\n".join(self._buffer) + " .\n")
        self._buffer = []
        self._weight = 0

    def _here(self, text: str) -> tuple[list[ValidationIssue], int]:
        """Validate a chunk in this process."""
        if self._checks is not None:
            return validate_lines(text.split("\n"), self._checks)
        return validate_ntriples(text, self._shapes)

    def submit(self, text: str) -> None:
        """Validate a chunk: N-Triples, or with ``checks`` lines without the final " ."."""
        if self.issue_count >= MAX_ISSUES:
            return  # enough to show; do not spend minutes finding more
        self.chunks += 1
        if self._workers < 1 or (self._workers == 1 and self._checks is None):
            self._collect(self._here(text))
            return
        if self._checks is not None and self._pool is None and self.chunks <= LOCAL_CHUNKS:
            # a worker costs half a second of CPU to start: only worth it for a large ingest
            self._collect(self._here(text))
            return
        if self._first is None and self._pool is None:
            self._first = text  # maybe the only chunk: no pool needed
            return
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = cf.ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=context,
                initializer=_init_worker,
                initargs=(_shapes_text(self._shapes), os.getpid(), self._checks is not None),
            )
            self._started_pool = True
            assert self._first is not None
            self._hand_over(self._first)
            self._first = None
        self._hand_over(text)
        while len(self._pending) >= 2 * self._workers:
            self._drain_one()

    def _hand_over(self, text: str) -> None:
        assert self._pool is not None
        try:
            self._pending.append(self._pool.submit(_validate_in_worker, text))
        except cf.process.BrokenProcessPool as exc:
            raise _broken() from exc

    def finish(self) -> None:
        self._submit_buffer()
        if self._first is not None:
            self._collect(self._here(self._first))
            self._first = None
        while self._pending:
            self._drain_one()

    def _drain_one(self) -> None:
        done, _ = cf.wait(self._pending, return_when=cf.FIRST_COMPLETED)
        for future in done:
            self._pending.remove(future)
            try:
                raw, count = future.result()
            except cf.process.BrokenProcessPool as exc:
                raise _broken() from exc
            self._collect(([ValidationIssue(**d) for d in raw], count))

    def _collect(self, found: tuple[Iterable[ValidationIssue], int]) -> None:
        issues, count = found
        issues = list(issues)
        # Every chunk carries the document header: count an issue seen in an earlier chunk once.
        fresh = [i for i in issues if i not in self._seen]
        self._seen.update(fresh)
        self.issue_count += len(fresh) + max(0, count - len(issues))
        for issue in fresh:
            if len(self.issues) < MAX_ISSUES:
                self.issues.append(issue)


__all__ = [
    "CHUNK_STATEMENTS",
    "MAX_ISSUES",
    "ChunkValidator",
    "builtin_shapes",
    "hoist_property_shapes",
    "load_shapes",
    "merge_issues",
    "validate_lines",
    "validate_ntriples",
    "validate_store",
]
