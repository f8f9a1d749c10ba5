"""HTTP query throughput and latency: provgraph's server against ``oxigraph serve`` on the same
quads and against the same queries run in-process, measured in the same run.

    python bench/http.py [--facts 20000] [--seconds 5] [--connections 4] [--client auto|wrk|python]

N facts of JSON Lines (bench/ingest.py's generator) are ingested into a provgraph store; its
N-Quads export is loaded into a plain Oxigraph store with ``oxigraph load`` (PyPI package
``oxigraph``). Two queries, over a fixed sample of facts taken round-robin:

- select: ``SELECT ?o WHERE { <s> <p> ?o }`` (provgraph: /sparql over the current sources;
  Oxigraph: /query with ``--union-default-graph``, which gives the same rows);
- evidence: provgraph's ``GET /evidence?subject&predicate&object`` (JSON ``Evidence``); Oxigraph
  and pyoxigraph run the SPARQL query the core runs for it (the core adds a small second
  query for extra attributes, and builds pydantic models).

Each server runs in its own process and the load comes from another: ``wrk`` (Debian package
``wrk``) when installed, a fixed number of connections for a bounded time; else Python client
processes, each one keep-alive connection, a bounded number of requests or time. A sequential
Python client would measure itself, not the server. In-process figures are one thread calling
the engine in a loop (a fresh process, before the servers start). Prints qps and p50/p95 per
target and the ratio of each to provgraph over HTTP.
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
import importlib.util
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
from urllib.parse import quote, urlencode

SAMPLE = 200  # distinct facts the queries cycle through
RESULTS_JSON = "application/sparql-results+json"


def _make_jsonl(path: Path, n: int) -> None:
    """bench/ingest.py's generator, loaded by path (this directory is not importable, see above)."""
    spec = importlib.util.spec_from_file_location("bench_ingest", Path(__file__).with_name("ingest.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make_jsonl(path, n)


def _sample(jsonl: Path, k: int, seed: int = 11) -> list[tuple[str, str, str]]:
    """k facts (subject IRI, predicate IRI, object in N-Triples) from the generated file."""
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    rng = random.Random(seed)
    facts = []
    for line in rng.sample(lines, min(k, len(lines))):
        r = json.loads(line)
        integer = f'"{r.get("literal")}"^^<http://www.w3.org/2001/XMLSchema#integer>'
        obj = f"<{r['object']}>" if "object" in r else integer
        facts.append((r["subject"], r["predicate"], obj))
    return facts


def select_sparql(s: str, p: str) -> str:
    return f"SELECT ?o WHERE {{ <{s}> <{p}> ?o }}"


def evidence_sparql(s: str, p: str, o: str) -> str:
    """The query ProvGraph.evidence runs for a fact with a known object (one hop via its key)."""
    from provgraph.evidence import _QUERY
    from provgraph.vocab import fact_iri

    fact = fact_iri(f"<{s}> <{p}> {o}")
    pattern = f"BIND({fact} AS ?fact) GRAPH ?g {{ ?st pg:fact ?fact ; rdf:object ?o }}"
    return _QUERY.replace("{PATTERN}", pattern).replace("{STATUS}", "FILTER(?status = pg:Current)")


def _object_param(o: str) -> str:
    return o[1:-1] if o.startswith("<") else o


def request_paths(target: str, query: str, facts: list[tuple[str, str, str]]) -> list[str]:
    """The request paths (with query strings) a client cycles through."""
    paths = []
    for s, p, o in facts:
        if target == "provgraph" and query == "select":
            paths.append("/sparql?" + urlencode({"query": select_sparql(s, p)}, quote_via=quote))
        elif target == "provgraph":
            params = {"subject": s, "predicate": p, "object": _object_param(o)}
            paths.append("/evidence?" + urlencode(params, quote_via=quote))
        elif query == "select":
            paths.append("/query?" + urlencode({"query": select_sparql(s, p)}, quote_via=quote))
        else:
            paths.append("/query?" + urlencode({"query": evidence_sparql(s, p, o)}, quote_via=quote))
    return paths


# ------------------------------------------------------------------------------------ children


def child_inprocess(store: str, oxstore: str, facts_file: str, seconds: str) -> None:
    """Both queries in a loop in this process: on pyoxigraph (the raw engine, on the Oxigraph
    copy) and through the ProvGraph API (on the provgraph store)."""
    from pyoxigraph import QuerySolutions, Store

    from provgraph import ProvGraph, ResultFormat

    facts = [tuple(f) for f in json.loads(Path(facts_file).read_text())]
    budget = float(seconds)
    out: dict[str, dict[str, float]] = {}

    def loop(name: str, call) -> None:  # type: ignore[no-untyped-def]
        for s, p, o in facts[:3]:  # warm the caches as the servers' warm-up does
            call(s, p, o)
        latencies: list[float] = []
        deadline = time.perf_counter() + budget
        i = 0
        while time.perf_counter() < deadline:
            s, p, o = facts[i % len(facts)]
            started = time.perf_counter()
            call(s, p, o)
            latencies.append(time.perf_counter() - started)
            i += 1
        out[name] = _summary(latencies, sum(latencies))

    raw = Store.read_only(oxstore)

    def raw_select(s: str, p: str, _o: str) -> None:
        result = raw.query(select_sparql(s, p), use_default_graph_as_union=True)
        assert isinstance(result, QuerySolutions)
        [row["o"] for row in result]

    def raw_evidence(s: str, p: str, o: str) -> None:
        result = raw.query(evidence_sparql(s, p, o))
        assert isinstance(result, QuerySolutions)
        rows = [tuple(row) for row in result]
        assert rows, "evidence query found nothing"

    loop("pyoxigraph select", raw_select)
    loop("pyoxigraph evidence", raw_evidence)

    with ProvGraph.open(store, read_only=True) as pg:

        def pg_select(s: str, p: str, _o: str) -> None:
            pg.query(select_sparql(s, p)).serialize(ResultFormat.JSON)

        def pg_evidence(s: str, p: str, o: str) -> None:
            assert pg.evidence(s, p, _object_param(o))

        loop("provgraph API select", pg_select)
        loop("provgraph API evidence", pg_evidence)
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
    deadline = time.monotonic() + 120
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


def _fetch(port: int, path: str, accept: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers={"Accept": accept})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise SystemExit(f"GET {path[:80]}... on port {port}: {response.status} {body[:300]!r}")
    return body


def _check_same_answers(pg_port: int, ox_port: int, facts: list[tuple[str, str, str]]) -> float:
    """Before timing anything: both servers give the same answers to the queries measured.
    Returns the slowest single request seen, to size the load windows."""
    slowest = 0.0
    for s, p, o in facts[:3]:
        started = time.perf_counter()
        query = urlencode({"query": select_sparql(s, p)}, quote_via=quote)
        ours = json.loads(_fetch(pg_port, "/sparql?" + query, RESULTS_JSON))["results"]["bindings"]
        theirs = json.loads(_fetch(ox_port, "/query?" + query, RESULTS_JSON))["results"]["bindings"]
        assert sorted(map(json.dumps, ours)) == sorted(map(json.dumps, theirs)), (s, p)
        evidence = json.loads(_fetch(pg_port, request_paths("provgraph", "evidence", [(s, p, o)])[0], "*/*"))
        raw = json.loads(_fetch(ox_port, request_paths("oxigraph", "evidence", [(s, p, o)])[0], RESULTS_JSON))
        assert len(evidence) == len(raw["results"]["bindings"]) >= 1, (s, p, o)
        slowest = max(slowest, (time.perf_counter() - started) / 4)
    return slowest


def _run(*args: str) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=_env())
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"failed: {' '.join(args[:4])} ...")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=20_000, help="facts in the store")
    parser.add_argument("--seconds", type=float, default=5.0, help="load time per target and query")
    parser.add_argument("--connections", type=int, default=4, help="concurrent connections (or client processes)")
    parser.add_argument("--requests", type=int, default=20_000, help="at most this many per Python client process")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-inprocess":
        child_inprocess(*rest[1:5])
        return
    if rest and rest[0] == "--child-client":
        child_client(*rest[1:7])
        return
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    if client == "wrk" and not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk), use --client python")
    oxigraph = shutil.which("oxigraph")
    if oxigraph is None:
        raise SystemExit("the oxigraph server is not installed: pip install oxigraph")

    with tempfile.TemporaryDirectory(prefix="provgraph-bench-http-") as tmp_dir:
        tmp = Path(tmp_dir)
        jsonl, store, dump, oxstore = tmp / "facts.jsonl", tmp / "store", tmp / "dump.nq", tmp / "oxigraph"
        _make_jsonl(jsonl, args.facts)
        facts = _sample(jsonl, SAMPLE)
        print(f"ingesting {args.facts:,} facts ...", file=sys.stderr, flush=True)
        pg_cli = [sys.executable, "-m", "provgraph"]
        _run(*pg_cli, "ingest", str(jsonl), "--store", str(store), "--url", "https://example.org/bench", "--quiet")
        _run(*pg_cli, "export", "--store", str(store), "--format", "nquads", "--output", str(dump))
        _run(oxigraph, "load", "--location", str(oxstore), "--file", str(dump))
        quads = sum(1 for _ in dump.open("rb"))

        print("in-process loops ...", file=sys.stderr, flush=True)
        facts_file = tmp / "facts.json"
        facts_file.write_text(json.dumps(facts))
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child-inprocess",
                str(store),
                str(oxstore),
                str(facts_file),
                str(args.seconds),
            ],
            capture_output=True,
            text=True,
            check=False,
            env=_env(),
        )
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            raise SystemExit("the in-process child failed")
        results: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])

        pg_port, ox_port = _free_port(), _free_port()
        servers = {
            "provgraph": subprocess.Popen(
                [*pg_cli, "serve", "--store", str(store), "--port", str(pg_port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=_env(),
            ),
            "oxigraph": subprocess.Popen(
                [
                    oxigraph,
                    "serve",
                    "--location",
                    str(oxstore),
                    "--bind",
                    f"127.0.0.1:{ox_port}",
                    "--union-default-graph",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ),
        }
        try:
            ask = "/sparql?query=" + quote("ASK {}")
            _wait_until_up(pg_port, ask, servers["provgraph"], "provgraph serve")
            _wait_until_up(ox_port, "/query?query=" + quote("ASK {}"), servers["oxigraph"], "oxigraph serve")
            slowest = _check_same_answers(pg_port, ox_port, facts)
            # A window that completes only a few slow requests measures nothing: give each
            # connection at least ~10 of the slowest request.
            window = {"select": args.seconds, "evidence": min(300.0, max(args.seconds, 5 * slowest * args.connections))}
            for target, port in (("provgraph", pg_port), ("oxigraph", ox_port)):
                for query in ("select", "evidence"):
                    paths = request_paths(target, query, facts)
                    seconds = window[query]
                    accept = "application/json" if (target, query) == ("provgraph", "evidence") else RESULTS_JSON
                    print(f"load: {target} {query} ({client}) ...", file=sys.stderr, flush=True)
                    if client == "wrk":
                        load_wrk(port, paths, accept, min(2.0, seconds), args.connections, tmp)  # warm-up
                        found = load_wrk(port, paths, accept, seconds, args.connections, tmp)
                    else:
                        load_python(port, paths, accept, min(2.0, seconds), args.connections, 500, tmp)
                        found = load_python(port, paths, accept, seconds, args.connections, args.requests, tmp)
                    if not found["requests"]:
                        raise SystemExit(f"{target} {query}: no request completed in {seconds:g} s")
                    if found["errors"]:
                        raise SystemExit(f"{target} {query}: {found['errors']} failed requests")
                    name = "provgraph HTTP" if target == "provgraph" else "oxigraph serve HTTP"
                    results[f"{name} {query}"] = found
        finally:
            for process in servers.values():
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()

    print(
        f"{args.facts:,} facts, {quads:,} quads; HTTP load: {client}, {args.connections} connections, "
        f"{args.seconds:g} s per row (evidence over HTTP: {window['evidence']:.0f} s); in-process: one thread"
    )
    print(f"{'query':<9} {'target':<22} {'qps':>9} {'p50 ms':>8} {'p95 ms':>8} {'qps ratio':>10} {'p50 ratio':>10}")
    for query in ("select", "evidence"):
        base = results[f"provgraph HTTP {query}"]
        for name in ("provgraph HTTP", "oxigraph serve HTTP", "pyoxigraph", "provgraph API"):
            r = results[f"{name} {query}"]
            print(
                f"{query:<9} {name:<22} {r['qps']:>9,.{0 if r['qps'] >= 100 else 2}f} "
                f"{r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} "
                f"{r['qps'] / base['qps']:>9.2f}x {r['p50_ms'] / base['p50_ms']:>9.2f}x",
                flush=True,
            )
    print("ratios: each target against provgraph HTTP on the same query (qps: >1 is faster; p50: <1 is faster)")


if __name__ == "__main__":
    main()
