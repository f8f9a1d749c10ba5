"""What a long query costs the other clients of a server: the trivial query under ``wrk`` (4
connections) alone, then while another client runs a long legal query over and over on its own
connection, for ``provgraph serve`` (its readers answer the queries of their connections one at a
time) and ``oxigraph serve`` (a thread per request), in the same run.

    python bench/mixed.py --keep DIR [--size 100000:10000] [--seconds 5] [--readers N]

DIR holds the stores ``bench/http.py --keep DIR`` built. The long query is ``SELECT (COUNT(*) AS
?n) WHERE { ?s ?p ?o }`` over each server's default graph (the current view; Oxigraph's union
default graph): about half a second at 100,000 facts. Prints, for each server and phase, the
trivial query's requests/s, p50 and p95 (wrk's), and how many long queries ran with their median;
the long queries start before the load's connections open, then a second after they did.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This directory holds http.py: first on sys.path, it would shadow the standard library's http
# package. Take it off before importing.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import argparse
import http.client
import importlib.util
import json
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from urllib.parse import quote


def _bench_http():  # type: ignore[no-untyped-def]
    """bench/http.py as a module (its name would shadow the standard library's http package)."""
    spec = importlib.util.spec_from_file_location("bench_http", Path(__file__).with_name("http.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_HTTP = _bench_http()  # its wrk runner, free-port helper and start-up wait: the same load as bench/http.py's
ACCEPT = "application/sparql-results+json"
LONG = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def _long_queries(port: int, path: str, stop: threading.Event, took: list[float]) -> None:
    """The long query one after the other on one keep-alive connection until ``stop``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while not stop.is_set():
        started = time.perf_counter()
        connection.request("GET", path + quote(LONG, safe=""), headers={"Accept": ACCEPT})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"the long query got {response.status}")
        took.append(time.perf_counter() - started)


def _measure(port: int, path: str, trivial: list[str], seconds: float, tmp: Path) -> dict[str, dict[str, float]]:
    """The trivial query's load alone; with the long queries under way before the load's
    connections open; and with them starting a second after (the load's connections already
    spread over the server's readers)."""
    found = {"alone": _HTTP.load_wrk(port, trivial, ACCEPT, seconds, 4, tmp)}
    for phase, delay in (("long ones before", -1.0), ("long ones after", 1.0)):
        stop, took = threading.Event(), []
        runner = threading.Thread(target=_long_queries, args=(port, path, stop, took), daemon=True)
        if delay < 0:
            runner.start()
            time.sleep(-delay)
        else:
            threading.Timer(delay, runner.start).start()
        found[phase] = _HTTP.load_wrk(port, trivial, ACCEPT, seconds, 4, tmp)
        stop.set()
        runner.join()
        found[phase]["long"] = len(took)
        found[phase]["long_ms"] = statistics.median(took) * 1000 if took else 0.0
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, required=True, help="the directory bench/http.py --keep built")
    parser.add_argument("--size", default="100000:10000", help="FACTS:DOCUMENTS of the stores to use")
    parser.add_argument("--seconds", type=float, default=5.0, help="wrk time per row")
    parser.add_argument("--readers", type=int, default=None, help="provgraph serve --readers (default: its own)")
    args = parser.parse_args()
    for tool in ("wrk", "oxigraph"):
        if shutil.which(tool) is None:
            raise SystemExit(f"needs {tool} (wrk: apt-get install wrk; oxigraph: pip install oxigraph)")
    facts, documents = args.size.split(":")
    root = args.keep / f"{facts}-{documents}"
    queries = json.loads((root / "queries.json").read_text())
    rows: dict[str, dict[str, dict[str, float]]] = {}
    readers = [] if args.readers is None else ["--readers", str(args.readers)]
    servers = {
        "provgraph serve": ("/sparql?query=", lambda port: [
            sys.executable, "-m", "provgraph", "serve", "--store", str(root / "store"), "--port", str(port), *readers
        ]),
        "oxigraph serve": ("/query?query=", lambda port: [
            "oxigraph", "serve-read-only", "--location", str(root / "oxigraph"), "--bind", f"127.0.0.1:{port}",
            *_HTTP.UNION,
        ]),
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name, (path, command) in servers.items():
            port = _HTTP._free_port()
            server = subprocess.Popen(command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                trivial = [path + quote(text, safe="") for text in queries["trivial"]]
                _HTTP._wait_until_up(port, trivial[0], server, name)
                rows[name] = _measure(port, path, trivial, args.seconds, Path(tmp))
            finally:
                server.terminate()
                server.wait()
    print(f"trivial query, wrk, 4 connections, {args.seconds:g} s a row; long query: {LONG}")
    print(
        f"{'server':16s} {'phase':18s} {'requests/s':>11s} {'p50 ms':>8s} {'p95 ms':>8s} {'long':>5s} {'long ms':>8s}"
    )
    for name, phases in rows.items():
        for phase, found in phases.items():
            long = f"{found['long']:5.0f} {found['long_ms']:8.0f}" if "long" in found else f"{'':5s} {'':8s}"
            print(f"{name:16s} {phase:18s} {found['qps']:11,.0f} {found['p50_ms']:8.3f} {found['p95_ms']:8.3f} {long}")


if __name__ == "__main__":
    main()
