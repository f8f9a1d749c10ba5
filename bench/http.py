"""Query cost over the current view and HTTP throughput: provgraph against Oxigraph on the same
quads, measured in the same run, at several numbers of facts and documents.

    python bench/http.py [--sizes 10000:1000,100000:1000,100000:10000] [--seconds 5]
                         [--connections 1,4] [--client auto|wrk|python] [--keep DIR]

For each size FACTS:DOCUMENTS, FACTS facts about FACTS/10 entities are spread over DOCUMENTS
source documents (one named graph each; 5% of the entities get a second, different value of a
predicate from another document: a conflict) and ingested through the full path
(``provgraph ingest --split-graphs``); the store's N-Quads export is loaded into a plain Oxigraph
store with ``oxigraph load`` (PyPI package ``oxigraph``). Query shapes, each over a fixed sample
cycled round-robin:

- trivial: ``SELECT * WHERE { ?s ?p ?o } LIMIT 1``;
- facts: an entity's facts with their provenance (the reified statements: predicate, object,
  source document, confidence);
- count: ``COUNT(*)`` of one source graph (``GRAPH <g>``: never reads the default graph);
- conflicts: subjects with more than one value of a predicate, ``GROUP BY ?s HAVING``;
- conflicts-graph: the same with ``GRAPH ?g`` naming the sources (provgraph's ``GRAPH ?g``
  ranges over the data graphs, not over the current view graph it keeps).

provgraph runs them over its current view (the default); Oxigraph over its union default graph
(``use_default_graph_as_union``, ``oxigraph serve --union-default-graph``), which holds the same
facts: both give the same rows, checked before timing. In-process figures are one thread in a
fresh process calling pyoxigraph or ``ProvGraph.query`` (result serialised as SPARQL JSON);
``pg.query (new text)`` is a text the server has not seen before (no prepared-query cache hit).
HTTP figures come from ``wrk`` (Debian package ``wrk``) when installed, else from Python client
processes, at each number of connections. Peak memory is the high-water mark (VmHWM) of each
process: the in-process child, and each server with its child processes (provgraph's readers and
query workers).

The last table shows how each cost grows per 10x facts (same documents) and per 10x documents
(same facts) between the sizes measured.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named http.py: with its directory first on sys.path, ``import http`` anywhere
# (http.client, uvicorn, ...) would import this script. Take the directory off before importing.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import argparse
import http.client
import json
import math
import os
import random
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from urllib.parse import quote, urlencode

EX = "http://bench.example/"
SAMPLE = 200  # distinct texts each shape cycles through
ROUNDS = 3  # HTTP load rounds per server, taking turns
RESULTS_JSON = "application/sparql-results+json"
SHAPES = ("trivial", "facts", "count", "conflicts", "conflicts-graph")
SPLIT = r"^(?P<document>http://s\d+\.bench\.example/doc\d+)$"
XSD_INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
UNION = ["--union-default-graph"]  # Oxigraph's default graph: the union of every graph


def make_nquads(path: Path, facts: int, documents: int, seed: int = 13) -> None:
    """``facts`` facts about ``facts // 10`` entities, ten predicates each, in ``documents``
    graphs; for 5% of the entities the last two facts give a second value of p0 or p1 (from
    another document), else they use p8 and p9."""
    rng = random.Random(seed)
    entities = max(1, facts // 10)
    with path.open("w", encoding="utf-8") as f:
        for i in range(facts):
            e, k = i % entities, i // entities
            document = (e * 7919 + k) % documents
            predicate = k % 10
            if predicate >= 8 and rng.random() < 0.05:
                predicate -= 8
            obj = (
                f'"{rng.randint(0, 10**6)}"^^{XSD_INTEGER}'
                if rng.random() < 0.5
                else f"<{EX}entity/{rng.randrange(entities)}>"
            )
            graph = f"<http://s{document % 50}.bench.example/doc{document}>"
            f.write(f"<{EX}entity/{e}> <{EX}p{predicate}> {obj} {graph} .\n")


def shape_queries(shape: str, facts: int, graphs: list[str]) -> list[str]:
    """The texts one shape cycles through (the same text for provgraph and Oxigraph)."""
    rng = random.Random(5)
    entities = max(1, facts // 10)
    if shape == "trivial":
        return ["SELECT * WHERE { ?s ?p ?o } LIMIT 1"]
    if shape == "facts":
        return [
            "SELECT ?p ?o ?document ?confidence WHERE { ?st <http://www.w3.org/1999/02/22-rdf-syntax-ns#subject> "
            f"<{EX}entity/{rng.randrange(entities)}> ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate> ?p ; "
            "<http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ?o ; "
            "<http://www.w3.org/ns/prov#wasDerivedFrom> ?document ; <https://w3id.org/provgraph/ns#confidence> "
            "?confidence }"
            for _ in range(SAMPLE)
        ]
    if shape == "count":
        return [f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}" for g in graphs[:SAMPLE]]
    if shape == "conflicts":
        return [
            f"SELECT ?s (COUNT(DISTINCT ?o) AS ?values) WHERE {{ ?s <{EX}p{k}> ?o }} "
            "GROUP BY ?s HAVING (COUNT(DISTINCT ?o) > 1)"
            for k in (0, 1)
        ]
    if shape == "conflicts-graph":
        return [
            f"SELECT ?s (COUNT(DISTINCT ?g) AS ?sources) WHERE {{ GRAPH ?g {{ ?s <{EX}p{k}> ?o }} }} "
            "GROUP BY ?s HAVING (COUNT(DISTINCT ?o) > 1)"
            for k in (0, 1)
        ]
    raise ValueError(shape)


def _peak_mb(pid: int | str = "self") -> float:
    """A process's peak resident set size (VmHWM): its own, not a parent's as ru_maxrss may be."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found


# ------------------------------------------------------------------------------------ children


def child_graphs(store: str, out: str) -> None:
    """The current source graphs of the store, in a stable order."""
    from provgraph import ProvGraph

    with ProvGraph.open(store, read_only=True) as pg:
        graphs = sorted(g.value for g in pg.current_graphs())
    random.Random(3).shuffle(graphs)
    Path(out).write_text(json.dumps(graphs))


def child_inprocess(store: str, oxstore: str, queries_file: str, seconds: str) -> None:
    """Every shape in a loop in this process: pyoxigraph over the union default graph of the
    Oxigraph copy, then ``ProvGraph.query`` over the current view of the provgraph store."""
    from pyoxigraph import QueryResultsFormat, Store

    from provgraph import ProvGraph, ResultFormat

    queries: dict[str, list[str]] = json.loads(Path(queries_file).read_text())
    budget = float(seconds)
    out: dict[str, dict[str, float]] = {}
    raw = Store.read_only(oxstore)
    with ProvGraph.open(store, read_only=True) as pg:
        calls: dict[str, Callable[[str], object]] = {
            "pyoxigraph": lambda q: raw.query(q, use_default_graph_as_union=True).serialize(  # type: ignore[union-attr]
                format=QueryResultsFormat.JSON
            ),
            "pg.query": lambda q: pg.query(q).serialize(ResultFormat.JSON),
            "pg.query (new text)": lambda q: pg.query(q).serialize(ResultFormat.JSON),
        }
        for shape, texts in queries.items():
            for text in texts[:3]:  # warm the caches as the servers' warm-up does
                calls["pyoxigraph"](text)
                calls["pg.query"](text)
            # The targets take turns, one call each: on a machine shared with other work, a burst
            # of load then falls on all of them alike.
            latencies: dict[str, list[float]] = {name: [] for name in calls}
            deadline = time.perf_counter() + budget * len(calls)
            i = 0
            while time.perf_counter() < deadline:
                for name, call in calls.items():
                    # a comment line makes a text the prepared-query cache has not seen
                    text = texts[i % len(texts)] + (f"\n# {i}" if name.endswith("(new text)") else "")
                    started = time.perf_counter()
                    call(text)
                    latencies[name].append(time.perf_counter() - started)
                i += 1
            for name, found in latencies.items():
                out[f"{name} {shape}"] = _summary(found, sum(found))
    out["peak"] = {"mb": _peak_mb()}
    print(json.dumps(out))


def child_client(host: str, port: str, paths_file: str, accept: str, count: str, seconds: str) -> None:
    """One keep-alive connection sending requests round-robin until ``count`` or ``seconds``."""
    paths = json.loads(Path(paths_file).read_text())
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    headers = {"Accept": accept}
    latencies: list[float] = []
    errors = 0
    began = time.perf_counter()
    deadline = began + float(seconds)
    for i in range(int(count)):
        started = time.perf_counter()
        connection.request("GET", paths[i % len(paths)], headers=headers)
        response = connection.getresponse()
        response.read()
        latencies.append(time.perf_counter() - started)
        errors += response.status != 200
        if started > deadline:
            break
    print(json.dumps({"latencies": latencies, "elapsed": time.perf_counter() - began, "errors": errors}))


# ------------------------------------------------------------------------------------ load


def _summary(latencies: list[float], elapsed: float, errors: int = 0) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "requests": len(ordered),
        "qps": len(ordered) / elapsed if elapsed else 0.0,
        "p50_ms": 1000 * ordered[len(ordered) // 2],
        "p95_ms": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "mean_ms": 1000 * statistics.fmean(ordered),
        "errors": errors,
    }


def _combined(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Several load rounds as one: requests over their time, the median round's latencies."""
    requests = sum(r["requests"] for r in rounds)
    seconds = sum(r["requests"] / r["qps"] for r in rounds)
    return {
        "requests": requests,
        "qps": requests / seconds,
        "p50_ms": statistics.median(r["p50_ms"] for r in rounds),
        "p95_ms": statistics.median(r["p95_ms"] for r in rounds),
        "errors": sum(r["errors"] for r in rounds),
    }


_WRK_SCRIPT = """
local paths = {PATHS}
local i = 0
wrk.headers["Accept"] = "{ACCEPT}"
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(95), e.connect + e.read + e.write + e.status + e.timeout))
end
"""


def load_wrk(port: int, paths: list[str], accept: str, seconds: float, connections: int, tmp: Path) -> dict[str, float]:
    script = tmp / "load.lua"
    lua_paths = "{" + ", ".join(json.dumps(p) for p in paths) + "}"
    script.write_text(_WRK_SCRIPT.replace("{PATHS}", lua_paths).replace("{ACCEPT}", accept))
    threads = min(connections, 2)
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{math.ceil(seconds)}s", "--timeout", "30s"]
    done = subprocess.run(
        [*command, "-s", str(script), f"http://127.0.0.1:{port}"], capture_output=True, text=True, check=True
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    requests, duration_us, p50_us, p95_us, errors = (int(v) for v in line.split()[1:])
    return {
        "requests": requests,
        "qps": requests / (duration_us / 1e6),
        "p50_ms": p50_us / 1000,
        "p95_ms": p95_us / 1000,
        "errors": errors,
    }


def load_python(
    port: int, paths: list[str], accept: str, seconds: float, connections: int, count: int, tmp: Path
) -> dict[str, float]:
    paths_file = tmp / "paths.json"
    paths_file.write_text(json.dumps(paths))
    args = ["127.0.0.1", str(port), str(paths_file), accept, str(count), str(seconds)]
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--child-client", *args], stdout=subprocess.PIPE, text=True, env=_env()
        )
        for _ in range(connections)
    ]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=seconds * 4 + 120)
        if child.returncode != 0:
            raise SystemExit("a client process failed")
        results.append(json.loads(out.strip().splitlines()[-1]))
    latencies = [x for r in results for x in r["latencies"]]
    return _summary(latencies, max(r["elapsed"] for r in results), sum(r["errors"] for r in results))


# ------------------------------------------------------------------------------------ servers


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PROVGRAPH_STORE", "PROVGRAPH_TOKEN")}


def _wait_until_up(port: int, path: str, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with status {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path, headers={"Accept": RESULTS_JSON})
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{name} did not start on port {port}")


def _fetch(port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path, headers={"Accept": RESULTS_JSON})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"GET {path[:80]}... on port {port}: {response.status} {body[:300]!r}")
    return body


def _path(target: str, text: str) -> str:
    return ("/sparql?" if target == "provgraph" else "/query?") + urlencode({"query": text}, quote_via=quote)


def _check_same_answers(pg_port: int, ox_port: int, queries: dict[str, list[str]]) -> None:
    """Before timing anything: both servers give the same rows to the queries measured (the
    trivial query's one row may be any triple)."""
    for shape, texts in queries.items():
        if shape == "trivial":
            continue
        for text in texts[:2]:
            ours = json.loads(_fetch(pg_port, _path("provgraph", text)))["results"]["bindings"]
            theirs = json.loads(_fetch(ox_port, _path("oxigraph", text)))["results"]["bindings"]
            assert sorted(map(json.dumps, ours)) == sorted(map(json.dumps, theirs)), (shape, text)
            assert ours or shape.startswith("conflicts"), (shape, text)


def _run(*args: str) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=_env())
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"failed: {' '.join(args[:4])} ...")


def _child(*args: str) -> dict[str, dict[str, float]]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False, env=_env())
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"the child {args[0]} failed")
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}


COMPACT = "import sys; from provgraph import ProvGraph\nwith ProvGraph.open(sys.argv[1]) as pg: pg.backend.optimize()"


def build(root: Path, facts: int, documents: int, oxigraph: str) -> dict[str, float]:
    """The provgraph store and its Oxigraph copy under ``root`` (kept when already built)."""
    done = root / "built.json"
    if done.exists():
        return json.loads(done.read_text())
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    data, store, dump = root / "facts.nq", root / "store", root / "dump.nq"
    make_nquads(data, facts, documents)
    print(f"ingesting {facts:,} facts in {documents:,} documents ...", file=sys.stderr, flush=True)
    pg_cli = [sys.executable, "-m", "provgraph"]
    started = time.perf_counter()
    _run(*pg_cli, "ingest", str(data), "--store", str(store), "--split-graphs", SPLIT, "--id", "bench", "--quiet")
    ingest = time.perf_counter() - started
    _run(*pg_cli, "export", "--store", str(store), "--format", "nquads", "--output", str(dump))
    started = time.perf_counter()
    _run(oxigraph, "load", "--location", str(root / "oxigraph"), "--file", str(dump))
    info = {"ingest_s": ingest, "load_s": time.perf_counter() - started, "quads": sum(1 for _ in dump.open("rb"))}
    # After a bulk load RocksDB compacts in the background for a while (up to a minute at 100,000
    # facts), and queries of either store measured meanwhile are up to 2-3x slower and vary from
    # run to run: both are compacted first, so what is measured is the steady state.
    _run(sys.executable, "-c", COMPACT, str(store))
    _run(oxigraph, "optimize", "--location", str(root / "oxigraph"))
    done.write_text(json.dumps(info))
    return info


def measure_size(
    root: Path, facts: int, documents: int, args: argparse.Namespace, client: str, oxigraph: str
) -> dict[str, object]:
    info = build(root, facts, documents, oxigraph)
    store, oxstore = root / "store", root / "oxigraph"
    graphs_file, queries_file = root / "graphs.json", root / "queries.json"
    _child("--child-graphs", str(store), str(graphs_file))
    graphs: list[str] = json.loads(graphs_file.read_text())
    queries = {shape: shape_queries(shape, facts, graphs) for shape in args.shapes}
    queries_file.write_text(json.dumps(queries))
    print(f"{facts:,} facts, {documents:,} documents: in-process loops ...", file=sys.stderr, flush=True)
    inprocess = _child("--child-inprocess", str(store), str(oxstore), str(queries_file), str(args.inprocess_seconds))

    pg_port, ox_port = _free_port(), _free_port()
    servers = {
        "provgraph": subprocess.Popen(
            [sys.executable, "-m", "provgraph", "serve", "--store", str(store), "--port", str(pg_port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_env(),
        ),
        "oxigraph": subprocess.Popen(
            [oxigraph, "serve-read-only", "--location", str(oxstore), "--bind", f"127.0.0.1:{ox_port}", *UNION],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
    }
    served: dict[str, dict[str, float]] = {}
    peaks: dict[str, float] = {}
    try:
        ask = quote("ASK {}")
        _wait_until_up(pg_port, "/sparql?query=" + ask, servers["provgraph"], "provgraph serve")
        _wait_until_up(ox_port, "/query?query=" + ask, servers["oxigraph"], "oxigraph serve")
        _check_same_answers(pg_port, ox_port, queries)
        for shape, texts in queries.items():
            for connections in args.connections:
                print(f"  load: {shape} x{connections} ({client}) ...", file=sys.stderr, flush=True)
                rounds: dict[str, list[dict[str, float]]] = {"provgraph": [], "oxigraph": []}
                # the servers take turns, a few short rounds each, so that a burst of other work
                # on the machine falls on both
                for round_ in range(ROUNDS + 1):
                    for target, port in (("provgraph", pg_port), ("oxigraph", ox_port)):
                        paths = [_path(target, t) for t in texts]
                        seconds = args.seconds / ROUNDS if round_ else 1.0  # round 0: warm-up
                        if client == "wrk":
                            found = load_wrk(port, paths, RESULTS_JSON, seconds, connections, root)
                        else:
                            found = load_python(port, paths, RESULTS_JSON, seconds, connections, 10**6, root)
                        if not found["requests"] or found["errors"]:
                            raise SystemExit(
                                f"{target} {shape}: {found['requests']} requests, {found['errors']} failed"
                            )
                        if round_:
                            rounds[target].append(found)
                for target, found_rounds in rounds.items():
                    served[f"{target} {shape} {connections}"] = _combined(found_rounds)
        for target, process in servers.items():
            peaks[target] = _peak_mb(process.pid) + sum(_peak_mb(c) for c in _children(process.pid))
    finally:
        for process in servers.values():
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    return {"facts": facts, "documents": documents, **info, "inprocess": inprocess, "http": served, "peaks": peaks}


# ------------------------------------------------------------------------------------ report


def _fmt(ms: float) -> str:
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:,.0f}"


def report(found: dict[str, object], args: argparse.Namespace, client: str) -> None:
    inprocess: dict[str, dict[str, float]] = found["inprocess"]  # type: ignore[assignment]
    served: dict[str, dict[str, float]] = found["http"]  # type: ignore[assignment]
    peaks: dict[str, float] = found["peaks"]  # type: ignore[assignment]
    print(
        f"\n== {found['facts']:,} facts in {found['documents']:,} documents ({found['quads']:,} quads exported; "
        f"ingest {found['ingest_s']:.0f} s, oxigraph load {found['load_s']:.1f} s) =="
    )
    print("in-process, one thread, p50 ms (ratio: provgraph / pyoxigraph over its union default graph)")
    print(f"{'shape':<16} {'pyoxigraph':>11} {'pg.query':>10} {'ratio':>7} {'new text':>10} {'ratio':>7}")
    for shape in args.shapes:
        raw = inprocess[f"pyoxigraph {shape}"]["p50_ms"]
        ours = inprocess[f"pg.query {shape}"]["p50_ms"]
        new = inprocess[f"pg.query (new text) {shape}"]["p50_ms"]
        print(f"{shape:<16} {_fmt(raw):>11} {_fmt(ours):>10} {ours / raw:>6.2f}x {_fmt(new):>10} {new / raw:>6.2f}x")
    print(f"peak memory of the in-process child: {inprocess['peak']['mb']:.0f} MB")
    print(f"HTTP ({client}, {args.seconds:g} s per row): requests/s and p50 ms (ratio: provgraph / oxigraph serve)")
    print(f"{'shape':<16} {'conn':>4} {'oxigraph':>9} {'provgraph':>10} {'ratio':>7} {'ox p50':>8} {'pg p50':>8}")
    for shape in args.shapes:
        for connections in args.connections:
            ox, pg = served[f"oxigraph {shape} {connections}"], served[f"provgraph {shape} {connections}"]
            print(
                f"{shape:<16} {connections:>4} {ox['qps']:>9,.0f} {pg['qps']:>10,.0f} {pg['qps'] / ox['qps']:>6.2f}x "
                f"{_fmt(ox['p50_ms']):>8} {_fmt(pg['p50_ms']):>8}"
            )
    print(
        f"server peak memory: provgraph serve {peaks.get('provgraph', 0):.0f} MB (with its readers and query workers), "
        f"oxigraph serve {peaks.get('oxigraph', 0):.0f} MB"
    )


def growth(results: list[dict[str, object]], args: argparse.Namespace) -> None:
    """Each cost at one size against the size with 10x fewer facts (same documents) or 10x
    fewer documents (same facts)."""
    by_size = {(int(r["facts"]), int(r["documents"])): r for r in results}  # type: ignore[call-overload]
    steps = []
    for facts, documents in by_size:
        if (facts // 10, documents) in by_size:
            steps.append(("10x facts", (facts // 10, documents), (facts, documents)))
        if (facts, documents // 10) in by_size:
            steps.append(("10x documents", (facts, documents // 10), (facts, documents)))
    if not steps:
        return
    conn = max(args.connections)
    print(f"\n== growth: cost at the larger size / cost at the smaller (1.0: flat; HTTP: 1/(requests/s) at {conn}) ==")
    header = f"{'step':<14} {'from':>14} {'to':>14} {'shape':<16} {'pyoxigraph':>10} {'pg.query':>9}"
    print(header + f" {'oxigraph HTTP':>13} {'provgraph HTTP':>14}")
    for label, small, large in steps:
        a, b = by_size[small], by_size[large]
        for shape in args.shapes:
            cells = []
            for name in ("pyoxigraph", "pg.query"):
                key = f"{name} {shape}"
                cells.append(b["inprocess"][key]["p50_ms"] / a["inprocess"][key]["p50_ms"])  # type: ignore[index]
            for target in ("oxigraph", "provgraph"):
                key = f"{target} {shape} {conn}"
                cells.append(a["http"][key]["qps"] / b["http"][key]["qps"])  # type: ignore[index]
            print(
                f"{label:<14} {small[0]:>7,}/{small[1]:<6,} {large[0]:>7,}/{large[1]:<6,} {shape:<16} "
                f"{cells[0]:>9.2f}x {cells[1]:>8.2f}x {cells[2]:>12.2f}x {cells[3]:>13.2f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="10000:1000,100000:1000,100000:10000", help="FACTS:DOCUMENTS, comma-separated"
    )
    parser.add_argument("--seconds", type=float, default=6.0, help="HTTP load time per server and row")
    parser.add_argument("--inprocess-seconds", type=float, default=2.0, help="in-process loop time per target and row")
    parser.add_argument("--connections", default="1,4", help="concurrent connections, comma-separated")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="query shapes, comma-separated")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--keep", type=Path, help="build the stores here and reuse them in later runs")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--build-only", action="store_true", help="build the stores (with --keep) and stop")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-inprocess":
        child_inprocess(*rest[1:5])
        return
    if rest and rest[0] == "--child-graphs":
        child_graphs(*rest[1:3])
        return
    if rest and rest[0] == "--child-client":
        child_client(*rest[1:7])
        return
    args.connections = [int(c) for c in args.connections.split(",")]
    args.shapes = [s for s in args.shapes.split(",") if s]
    unknown = set(args.shapes) - set(SHAPES)
    if unknown:
        raise SystemExit(f"unknown shapes {sorted(unknown)}: choose among {', '.join(SHAPES)}")
    sizes = [tuple(int(x) for x in s.split(":")) for s in args.sizes.split(",")]
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    if client == "wrk" and not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk), use --client python")
    oxigraph = shutil.which("oxigraph")
    if oxigraph is None:
        raise SystemExit("the oxigraph server is not installed: pip install oxigraph (or '.[bench]')")

    results = []
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-http-") as tmp_dir:
        base = args.keep or Path(tmp_dir)
        for facts, documents in sizes:
            if args.build_only:
                build(base / f"{facts}-{documents}", facts, documents, oxigraph)
                continue
            found = measure_size(base / f"{facts}-{documents}", facts, documents, args, client, oxigraph)
            report(found, args, client)
            results.append(found)
    growth(results, args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
