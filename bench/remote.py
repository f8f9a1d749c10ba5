"""Remote stores: the same provgraph workload on the embedded store, on ``oxigraph serve`` and on
Virtuoso, each against its raw engine measured in the same run.

    python bench/remote.py [--sizes 10000,100000] [--docs-per 100]
                           [--stores embedded,oxigraph-server,virtuoso] [--virtuoso-memory-gb 4]

For each store and each size N (facts, N/k documents for k facts per document, from
``bench/ingest.py``'s generator), in a fresh store:

- **ingest**: ``ProvGraph.ingest`` with ``--split-graphs`` (as in ``bench/ingest.py``) of the N
  facts: wall seconds, facts/s, peak RSS of the provgraph process (its own child process, so each
  peak is its own) and the server's memory (VmHWM of the server process when the ingest ends).
  The raw engine loads every quad the store then holds (dumped with ``pg.backend.quads()``: the
  source graphs, the current view, the catalog and the change log) into another fresh store of
  the same engine: ``Store.bulk_load`` in its own process (embedded), ``POST /store`` of the
  N-Quads, 32 MB a request (``oxigraph serve``), Virtuoso's bulk loader (``ld_dir``, ``rdf_loader_run``,
  ``checkpoint`` through isql; SPARQL ``INSERT DATA`` of 5000 triples a request if it fails,
  which the output says).
- **compact**: ``ProvGraph.optimize`` after the dump (embedded: RocksDB's files merged, which it
  otherwise does in the background for minutes after a bulk load, slowing every lookup meanwhile;
  a server: nothing), so that what follows reads a compacted store; its seconds in the JSON.
- **evidence**: p50 and p95 of 50 ``pg.evidence(subject, predicate)`` calls on pairs that exist,
  against one SPARQL SELECT of the subject's values of the predicate in any graph on the same
  store (``pg.backend.select`` embedded; straight to the server over HTTP with httpx otherwise).
- **conflicts**: wall seconds of ``pg.detect_conflicts()`` after a second, small source (N/100
  facts about the same subjects and predicates, other integer values) and an ontology declaring
  the integer-valued predicates functional, so that detection finds conflicts.
- **revision**: wall seconds of an ingest giving new versions to 10 documents (their facts, other
  integer values): what one small update of a large store costs.
- **ask**: p50 and p95 of 20 ``pg.ask("What is the p3 of entity 5?")`` (extractive generator,
  answers recorded as usual; the first ask, which builds the lexical index, is timed apart, as
  is the first evidence call), against one SPARQL query of the entity's facts in any graph.

Printed: each phase's figures on stderr as it ends (a run stopped early keeps what it measured),
then one row per store and size (server MB is "-" for the embedded store: its engine is in
the client; "fail" marks a phase that raised, its error printed below the row and its traceback
on stderr; run s is the wall time of the row, servers' start included), the growth per 10x facts
of each store (ingest, evidence p50, detection, ask p50), and a JSON line of every result, with
the CPU seconds of the client per call (what of a call's time is provgraph's own work). Virtuoso needs Debian's
``virtuoso-opensource`` (``virtuoso-t``, ``isql-vt``); ``oxigraph serve`` comes with the dev extra.
The servers are started and stopped by ``tests/servers.py``, the same as the tests run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
# The servers are the ones the tests of the remote store run (tests/servers.py). Appended, so that
# nothing in tests/ can shadow an installed package.
sys.path.append(str(ROOT / "tests"))

import httpx  # noqa: E402

from servers import OxigraphServer, Virtuoso  # noqa: E402


def _bench_ingest() -> ModuleType:
    """bench/ingest.py as a module (bench/ is off sys.path: see above): its data generator and its
    split pattern."""
    spec = importlib.util.spec_from_file_location("bench_ingest", BENCH / "ingest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_INGEST = _bench_ingest()
make_nquads: Callable[..., None] = _INGEST.make_nquads
SPLIT: str = _INGEST.SPLIT
#: CPU seconds of this process and its children, and the peak memory in MB (VmHWM: its own).
usage: Callable[[], dict[str, float]] = _INGEST.usage

STORES = ("embedded", "oxigraph-server", "virtuoso")
EVIDENCE_CALLS = 50
ASK_CALLS = 20
#: make_nquads gives each entity five facts and cycles through 20 predicates p0..p19; the odd
#: ones always have integer values, so two sources can disagree on them.
PREDICATES = 20
ENTITY = "http://example.org/entity/{}"
PREDICATE = "http://example.org/p{}"
#: The second source's documents: doc1000000 onwards, still matched by SPLIT, never the first's.
OTHER_DOCS = 10**6
#: Documents a revision ingest gives new versions (after the second source).
REVISED_DOCS = 10
#: Virtuoso's bulk loader's default graph (the dump is N-Quads: every quad names its own).
VIRTUOSO_GRAPH = "http://bench.example/default"
VIRTUOSO_CHUNK = 5000
#: Bytes of N-Quads a POST to ``oxigraph serve`` carries in the raw load, as provgraph's own loads.
POST_BYTES = 32 << 20
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
JSON_RESULTS = "application/sparql-results+json"


# ---------------------------------------------------------------------- data


def make_other(path: Path, facts: int) -> None:
    """A second source: the first ``facts`` facts' subjects and predicates (make_nquads numbers
    them the same way), other values (another seed), in documents of their own."""
    make_nquads(path, facts, 10, seed=8)
    text = path.read_text(encoding="utf-8")
    text = re.sub(
        r"<http://bench\.example/doc(\d+)> \.$",
        lambda m: f"<http://bench.example/doc{OTHER_DOCS + int(m[1])}> .",
        text,
        flags=re.M,
    )
    path.write_text(text, encoding="utf-8")


def make_revision(data: Path, path: Path, documents: int = REVISED_DOCS) -> None:
    """New versions of the first ``documents`` documents of ``data``: the same facts, every
    integer value changed (the links stay, so part of each old version stays in the view)."""
    wanted = tuple(f"<http://bench.example/doc{d}> .\n" for d in range(documents))
    with data.open(encoding="utf-8") as lines, path.open("w", encoding="utf-8") as out:
        out.writelines(line.replace('"^^', '1"^^') for line in lines if line.endswith(wanted))


def make_ontology(path: Path) -> None:
    """The integer-valued predicates declared functional: a second value is a conflict."""
    lines = ["@prefix owl: <http://www.w3.org/2002/07/owl#> ."]
    lines += [f"<{PREDICATE.format(j)}> a owl:FunctionalProperty ." for j in range(1, PREDICATES, 2)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def pairs(facts: int, count: int, rng: random.Random) -> list[tuple[int, int]]:
    """``count`` (entity, predicate) numbers that exist: entity k has the facts 5k..5k+4, whose
    predicates are p(5k % 20) .. p(5k % 20 + 4)."""
    entities = max(1, facts // 5)
    chosen = []
    for _ in range(count):
        k = rng.randrange(entities)
        chosen.append((k, (5 * k + rng.randrange(5)) % PREDICATES))
    return chosen


# ---------------------------------------------------------------------- measuring


def server_memory(pid: int | None) -> dict[str, float | None]:
    """A process's peak (VmHWM) and current (VmRSS) resident memory, in MB."""
    found: dict[str, float | None] = {"peak_mb": None, "rss_mb": None}
    if pid is None:
        return found
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            found["peak_mb" if key == "VmHWM" else "rss_mb"] = int(value.split()[0]) / 1024
    return found


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile (no interpolation: 20 samples are what they are)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def _timed(calls: list[Callable[[], object]]) -> list[float]:
    times = []
    for call in calls:
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return times


def _latency(prefix: str, calls: list[Callable[[], object]]) -> dict[str, Any]:
    """p50 and p95 of the calls (of 20 asks, the p95 is the slowest), this process's CPU per call (on
    a server, what of a call's time is provgraph's own work rather than waiting for the server),
    and each call's time in order, so that a slow one can be found again."""
    cpu = usage()["cpu"]
    times = _timed(calls)
    return {
        f"{prefix}_p50_ms": percentile(times, 50) * 1000,
        f"{prefix}_p95_ms": percentile(times, 95) * 1000,
        f"{prefix}_client_cpu_ms": (usage()["cpu"] - cpu) / len(calls) * 1000,
        f"{prefix}_each_ms": [round(t * 1000, 1) for t in times],
    }


def _raw_query(query_url: str | None, pg: Any) -> tuple[Callable[[str], int], httpx.Client | None]:
    """One SPARQL SELECT on the store provgraph uses, without provgraph: through the embedded
    backend's select, or straight to the server (a kept-alive connection: the engine's floor)."""
    if query_url is None:
        return (lambda q: len(pg.backend.select(q))), None
    client = httpx.Client(timeout=300)

    def run(q: str) -> int:
        response = client.post(query_url, data={"query": q}, headers={"Accept": JSON_RESULTS})
        response.raise_for_status()
        return len(response.json()["results"]["bindings"])

    return run, client


def progress(phase: str, figures: dict[str, Any]) -> None:
    """One phase's figures on stderr as soon as it ends: a run at millions of facts takes hours,
    and one stopped before its row still tells what it measured."""
    shown = ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())
    print(f"  [{time.strftime('%H:%M:%S')}] {phase}: {shown}", file=sys.stderr, flush=True)


def _attempt(result: dict[str, Any], phase: str, run: Callable[[], None]) -> bool:
    """Run one phase; a failure of provgraph on this store is a result too: its last line goes in
    ``result["errors"]``, its traceback to stderr, and the other phases still run."""
    before = set(result)
    try:
        run()
    except Exception as exc:
        traceback.print_exc()
        result.setdefault("errors", {})[phase] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return False
    progress(phase, {k: v for k, v in result.items() if k not in before})
    return True


def child_provgraph(job: dict[str, Any]) -> None:
    """The provgraph side of one store and size, in its own process: prints its results as JSON."""
    from pyoxigraph import RdfFormat, serialize

    from provgraph import GraphSplit, IngestOptions, ProvGraph

    facts = int(job["facts"])
    before = usage()
    started = time.perf_counter()
    pg = ProvGraph.open(job["location"])  # in the ingest's time, as bench/ingest.py counts it
    report = pg.ingest(job["data"], IngestOptions(id="bench", title="bench", split=GraphSplit(pattern=SPLIT)))
    seconds = time.perf_counter() - started
    after = usage()  # the peak now is the ingest's: what follows may only add to it
    server = server_memory(job["server_pid"])
    result: dict[str, Any] = {
        "ingest_s": seconds,
        "client_cpu_s": after["cpu"] - before["cpu"],
        "client_peak_mb": after["peak_mb"],
        "server_peak_mb": server["peak_mb"],
        "server_rss_mb": server["rss_mb"],
        "statements": report.statements,
        "documents": report.document_count,
    }
    progress(f"{job['store']} {facts}: ingest", result)

    # Everything the store holds now, for the raw engine's load (export() leaves out the current
    # view and the change log, which the ingest wrote too).
    started = time.perf_counter()
    counted = [0]

    def counting() -> Iterator[Any]:
        for quad in pg.backend.quads():
            counted[0] += 1
            yield quad

    serialize(counting(), job["dump"], format=RdfFormat.N_QUADS)
    result["quads"] = counted[0]
    result["dump_s"] = time.perf_counter() - started
    progress("dump", {"quads": result["quads"], "dump_s": result["dump_s"]})
    # What follows reads a compacted store, as bench/http.py's queries do: right after the bulk
    # loads RocksDB merges files in the background, and detection at 300k facts took 4x as long
    # meanwhile. A server's engine does that on its own (pg.optimize does nothing there).
    started = time.perf_counter()
    pg.optimize()
    result["compact_s"] = time.perf_counter() - started
    progress("compact", {"compact_s": result["compact_s"]})

    def other_source() -> None:
        started = time.perf_counter()
        pg.ingest(job["other"], IngestOptions(id="bench-other", title="bench other", split=GraphSplit(pattern=SPLIT)))
        pg.add_ontology(job["ontology"])
        result["other_ingest_s"] = time.perf_counter() - started

    def detect() -> None:
        started = time.perf_counter()
        detected = pg.detect_conflicts()
        result["detect_s"] = time.perf_counter() - started
        result["conflicts"] = detected.conflicts

    rng = random.Random(int(job["seed"]))
    chosen = pairs(facts, EVIDENCE_CALLS + 1, rng)
    asked = pairs(facts, ASK_CALLS + 1, rng)
    question = "What is the p{} of entity {}?"

    def evidence() -> None:
        (k, j), rest = chosen[0], chosen[1:]
        result["evidence_first_ms"] = _timed([lambda: pg.evidence(ENTITY.format(k), PREDICATE.format(j))])[0] * 1000
        found: list[int] = []
        result.update(
            _latency(
                "evidence",
                [
                    lambda k=k, j=j: found.append(len(pg.evidence(ENTITY.format(k), PREDICATE.format(j))))
                    for k, j in rest
                ],
            )
        )
        result["evidence_found"] = sum(found)

    def ask() -> None:
        (k, j), rest = asked[0], asked[1:]
        result["ask_first_ms"] = _timed([lambda: pg.ask(question.format(j, k))])[0] * 1000  # builds the index
        abstained: list[bool] = []
        result.update(
            _latency(
                "ask", [lambda k=k, j=j: abstained.append(pg.ask(question.format(j, k)).abstained) for k, j in rest]
            )
        )
        result["ask_answered"] = abstained.count(False)

    def revise() -> None:
        started = time.perf_counter()
        pg.ingest(job["revision"], IngestOptions(id="bench", title="bench", split=GraphSplit(pattern=SPLIT)))
        result["revision_s"] = time.perf_counter() - started

    if _attempt(result, "other source", other_source):
        _attempt(result, "detect", detect)
    _attempt(result, "revision", revise)
    _attempt(result, "evidence", evidence)
    _attempt(result, "ask", ask)

    # The raw engine on the same store: measured whatever provgraph did above.
    raw, client = _raw_query(job["query_url"], pg)
    values = "SELECT ?o WHERE {{ GRAPH ?g {{ <{}> <{}> ?o }} }}"
    result |= _latency(
        "raw_evidence",
        [lambda k=k, j=j: raw(values.format(ENTITY.format(k), PREDICATE.format(j))) for k, j in chosen[1:]],
    )
    facts_of = "SELECT ?p ?o WHERE {{ GRAPH ?g {{ <{}> ?p ?o }} }}"
    result |= _latency("raw_ask", [lambda k=k: raw(facts_of.format(ENTITY.format(k))) for k, _ in asked[1:]])

    if client is not None:
        client.close()
    pg.close()
    print(json.dumps(result))


def _run(*args: str) -> dict[str, Any]:
    # stderr passes through: each phase's figures as it ends, and the tracebacks of those that failed
    done = subprocess.run([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {args[0]} (exit {done.returncode}; its traceback is above)")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------- servers


@contextmanager
def oxigraph_serve(directory: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """An ``oxigraph serve`` as the tests start it: its HTTP root and its process (for its memory)."""
    server = OxigraphServer(directory)
    try:
        yield f"http://127.0.0.1:{server.port}", server.process
    finally:
        server.close()


@contextmanager
def virtuoso(directory: Path, memory_gb: float) -> Iterator[Virtuoso]:
    server = Virtuoso(directory, memory_gb=memory_gb)
    try:
        yield server
    finally:
        server.close()


def count_quads(query_url: str) -> int:
    response = httpx.post(query_url, data={"query": COUNT}, headers={"Accept": JSON_RESULTS}, timeout=300)
    response.raise_for_status()
    return int(response.json()["results"]["bindings"][0]["n"]["value"])


def raw_oxigraph(directory: Path, dump: Path) -> dict[str, Any]:
    """The dump into a fresh ``oxigraph serve``: POSTs of the N-Quads to /store, 32 MB each (the
    server holds a POST in one transaction: one of 6.7 GB, at 1M facts, did not fit in memory),
    read from the file as they go, blank-node lines together in the last (a blank node is one
    node within one request)."""
    chunks: list[bytes] = []
    blank: list[bytes] = []
    with oxigraph_serve(directory) as (root, process):
        started = time.perf_counter()
        with dump.open("rb") as lines, httpx.Client(timeout=3600) as client:

            def post(body: bytes) -> None:
                response = client.post(f"{root}/store", content=body, headers={"Content-Type": "application/n-quads"})
                response.raise_for_status()

            size = 0
            for line in lines:
                if b"_:" in line:
                    blank.append(line)
                    continue
                chunks.append(line)
                size += len(line)
                if size >= POST_BYTES:
                    post(b"".join(chunks))
                    chunks, size = [], 0
            for rest in (chunks, blank):
                if rest:
                    post(b"".join(rest))
        seconds = time.perf_counter() - started
        return {
            "raw_load_s": seconds,
            "raw_quads": count_quads(f"{root}/query"),
            "raw_peak_mb": server_memory(process.pid)["peak_mb"],
            "raw_method": f"POST /store, {POST_BYTES >> 20} MB each",
        }


def raw_virtuoso(directory: Path, dump: Path, expected: int, memory_gb: float) -> dict[str, Any]:
    """The dump into a fresh Virtuoso with its bulk loader; SPARQL INSERT DATA into another fresh
    one if the loader fails or loads another number of quads."""
    with virtuoso(directory / "bulk", memory_gb) as server:
        query_url = f"http://127.0.0.1:{server.http_port}/sparql"
        before = count_quads(query_url)
        shutil.copy(dump, server.directory / "dump.nq")  # DirsAllowed is the server's own directory
        started = time.perf_counter()
        failure = None
        try:
            # no time limit: 28M quads at 1M facts take longer than starting a server may
            server.sql(f"ld_dir('.', 'dump.nq', '{VIRTUOSO_GRAPH}'); rdf_loader_run(); checkpoint;", timeout=None)
        except AssertionError as exc:  # Virtuoso.sql asserts that isql reported no error
            failure = str(exc).strip()
        seconds = time.perf_counter() - started
        loaded = count_quads(query_url) - before
        if failure is None and loaded == expected:
            return {
                "raw_load_s": seconds,
                "raw_quads": loaded,
                "raw_peak_mb": server_memory(server.process.pid)["peak_mb"],
                "raw_method": "bulk loader",
            }
        note = failure or f"it loaded {loaded} quads of {expected}"
    print(f"  virtuoso: the bulk loader failed ({note}); INSERT DATA instead", file=sys.stderr, flush=True)
    with virtuoso(directory / "insert", memory_gb) as server:
        query_url = f"http://127.0.0.1:{server.http_port}/sparql"
        before = count_quads(query_url)
        seconds = insert_data(query_url, dump)
        return {
            "raw_load_s": seconds,
            "raw_quads": count_quads(query_url) - before,
            "raw_peak_mb": server_memory(server.process.pid)["peak_mb"],
            "raw_method": f"INSERT DATA x{VIRTUOSO_CHUNK} (bulk loader failed: {note})",
        }


def insert_data(update_url: str, dump: Path) -> float:
    """The dump as SPARQL INSERT DATA requests of VIRTUOSO_CHUNK triples; the seconds it took."""
    from pyoxigraph import DefaultGraph, RdfFormat, parse

    def request(lines: list[str]) -> None:
        body = "INSERT DATA {\n" + "\n".join(lines) + "\n}"
        response = client.post(update_url, content=body.encode(), headers={"Content-Type": "application/sparql-update"})
        response.raise_for_status()

    started = time.perf_counter()
    with httpx.Client(timeout=3600) as client:
        batch: list[str] = []
        for quad in parse(path=str(dump), format=RdfFormat.N_QUADS):
            triple = f"{quad.subject} {quad.predicate} {quad.object} ."  # N-Triples terms are SPARQL terms
            graph = quad.graph_name
            batch.append(triple if isinstance(graph, DefaultGraph) else f"GRAPH {graph} {{ {triple} }}")
            if len(batch) >= VIRTUOSO_CHUNK:
                request(batch)
                batch = []
        if batch:
            request(batch)
    return time.perf_counter() - started


# ---------------------------------------------------------------------- one store, one size


def measure(store: str, facts: int, docs: int, memory_gb: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="provgraph-remote-") as tmp:
        root = Path(tmp)
        data, other, ontology, dump = root / "facts.nq", root / "other.nq", root / "ontology.ttl", root / "dump.nq"
        revision = root / "revision.nq"
        make_nquads(data, facts, docs)
        make_revision(data, revision)
        make_other(other, max(1, facts // 100))
        make_ontology(ontology)
        job: dict[str, Any] = {
            "store": store,
            "facts": facts,
            "data": str(data),
            "other": str(other),
            "ontology": str(ontology),
            "dump": str(dump),
            "revision": str(revision),
            "seed": 11,
        }

        def provgraph(location: str, pid: int | None, query_url: str | None) -> dict[str, Any]:
            return _run(
                "--child-provgraph", json.dumps(job | {"location": location, "server_pid": pid, "query_url": query_url})
            )

        started = time.perf_counter()
        if store == "embedded":
            pg = provgraph(str(root / "store"), None, None)
            loaded = _run("--child-raw", str(dump), str(root / "raw"))
            progress("raw load", {"raw_load_s": loaded["seconds"], "raw_peak_mb": loaded["peak_mb"]})
            raw = {
                "raw_load_s": loaded["seconds"],
                "raw_quads": pg["quads"],
                "raw_peak_mb": loaded["peak_mb"],  # of the loading process: the engine is in it
                "raw_method": "Store.bulk_load",
            }
        elif store == "oxigraph-server":
            with oxigraph_serve(root / "oxigraph") as (url, process):
                pg = provgraph("sparql+" + url, process.pid, f"{url}/query")
            raw = _raw(lambda: raw_oxigraph(root / "oxigraph-raw", dump), pg)
        elif store == "virtuoso":
            with virtuoso(root / "virtuoso", memory_gb) as server:
                pg = provgraph(server.url, server.process.pid, f"http://127.0.0.1:{server.http_port}/sparql")
            raw = _raw(lambda: raw_virtuoso(root / "virtuoso-raw", dump, pg["quads"], memory_gb), pg)
        else:
            raise ValueError(f"unknown store {store!r}: one of {', '.join(STORES)}")
        return {"store": store, "facts": facts, "docs": docs, **pg, **raw, "total_s": time.perf_counter() - started}


def _raw(load: Callable[[], dict[str, Any]], pg: dict[str, Any]) -> dict[str, Any]:
    """The raw engine's load; when it fails, provgraph's figures are kept and the failure noted."""
    try:
        loaded = load()
    except Exception as exc:
        traceback.print_exc()
        pg.setdefault("errors", {})["raw load"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return {}
    progress("raw load", loaded)
    return loaded


# ---------------------------------------------------------------------- report


def _cell(r: dict[str, Any], key: str, spec: str, width: int, align: str = ">") -> str:
    """``r[key]`` formatted, else "-" (not measured: no server of its own) or "fail" (see errors)."""
    value = r.get(key)
    if value is None:
        return f"{'-' if key in r else 'fail':{align}{width}}"
    return f"{value:{align}{width}{spec}}"


HEADER = (
    f"{'store':<16} {'facts':>8} {'docs':>6} {'quads':>9} | {'ingest s':>8} {'facts/s':>8} {'client MB':>9} "
    f"{'server MB':>9} | {'raw s':>7} {'ratio':>6} | {'evid p50/p95 ms':>15} {'raw p50':>7} | {'detect s':>8} "
    f"{'revise s':>8} | {'ask p50/p95 ms':>15} {'raw p50':>7} | {'run s':>6}"
)


def row(r: dict[str, Any]) -> str:
    if "ingest_s" not in r:
        return f"{r['store']:<16} {r['facts']:>8} {r['docs']:>6}   failed: {r['errors']['run']}"
    return (
        f"{r['store']:<16} {r['facts']:>8} {r['docs']:>6} {r['quads']:>9} | {r['ingest_s']:>8.2f} "
        f"{r['facts'] / r['ingest_s']:>8.0f} {_cell(r, 'client_peak_mb', '.0f', 9)} "
        f"{_cell(r, 'server_peak_mb', '.0f', 9)} | {_cell(r, 'raw_load_s', '.2f', 7)} {_ratio(r):>6} | "
        f"{_cell(r, 'evidence_p50_ms', '.1f', 7)}/{_cell(r, 'evidence_p95_ms', '.1f', 7, '<')} "
        f"{r['raw_evidence_p50_ms']:>7.2f} | {_cell(r, 'detect_s', '.2f', 8)} {_cell(r, 'revision_s', '.2f', 8)} | "
        f"{_cell(r, 'ask_p50_ms', '.1f', 7)}/{_cell(r, 'ask_p95_ms', '.1f', 7, '<')} {r['raw_ask_p50_ms']:>7.2f} | "
        f"{r['total_s']:>6.0f}"
    )


def _ratio(r: dict[str, Any]) -> str:
    """provgraph's ingest time over the raw engine's load, or "fail" when that load failed."""
    return f"{r['ingest_s'] / r['raw_load_s']:.1f}x" if r.get("raw_load_s") else "fail"


GROWTH = (
    ("ingest s", "ingest_s"),
    ("evidence p50", "evidence_p50_ms"),
    ("detect s", "detect_s"),
    ("revise s", "revision_s"),
    ("ask p50", "ask_p50_ms"),
)


def growth(results: list[dict[str, Any]]) -> list[str]:
    """Cost at 10N facts over cost at N, per store (same facts per document)."""
    by = {(r["store"], r["facts"]): r for r in results}
    lines = []
    for (store, facts), small in sorted(by.items()):
        large = by.get((store, facts * 10))
        if large is None:
            continue
        ratios = "  ".join(
            f"{label} x{large[key] / small[key]:.1f}" if small.get(key) and large.get(key) else f"{label} -"
            for label, key in GROWTH
        )
        lines.append(f"{store:<16} {facts:>8} -> {facts * 10:<8} {ratios}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated numbers of facts")
    parser.add_argument("--docs-per", type=int, default=100, help="facts per document")
    parser.add_argument("--stores", default=",".join(STORES), help="comma-separated, of " + ", ".join(STORES))
    parser.add_argument("--virtuoso-memory-gb", type=float, default=4.0, help="Virtuoso's buffer pool")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-provgraph":
        child_provgraph(json.loads(rest[1]))
        return
    if rest and rest[0] == "--child-raw":
        _INGEST.child_raw(rest[1], rest[2])  # bench/ingest.py's raw engine
        return
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    sizes = [int(s) for s in args.sizes.split(",")]
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = set(stores) - set(STORES)
    if unknown:
        parser.error(f"unknown store(s): {', '.join(sorted(unknown))} (one of {', '.join(STORES)})")
    print(HEADER, flush=True)
    results: list[dict[str, Any]] = []
    for store in stores:
        for n in sizes:
            docs = max(1, n // args.docs_per)
            try:
                r = measure(store, n, docs, args.virtuoso_memory_gb)
            except Exception as exc:  # one store failing leaves the others to measure
                r = {"store": store, "facts": n, "docs": docs, "errors": {"run": f"{type(exc).__name__}: {exc}"}}
            results.append(r)
            print(row(r), flush=True)
            if r.get("raw_method", "").startswith("INSERT DATA"):
                print(f"  raw load of {store}: {r['raw_method']}", flush=True)
            for phase, error in r.get("errors", {}).items():
                if phase != "run":
                    print(f"  {store} {n}: {phase} failed: {error}", flush=True)
    lines = growth(results)
    if lines:
        print("\nGrowth per 10x facts (cost at 10N / cost at N):")
        print("\n".join(lines))
    print(json.dumps(results))


if __name__ == "__main__":
    main()
