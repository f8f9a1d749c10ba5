"""What HTTP throughput each server design could reach, before building it: small servers that
answer SPARQL queries in different ways, against ``oxigraph serve`` in the same run.

    python bench/server_designs.py --keep DIR [--size 100000:10000] [--seconds 4]

DIR holds the stores ``bench/http.py --keep DIR`` built (``FACTS-DOCUMENTS/store`` for provgraph,
``.../oxigraph`` for Oxigraph, ``.../queries.json`` for the query texts). Each ``-inline`` and
``-thread`` design is a uvicorn server (uvloop, httptools) with a response written as raw ASGI
messages; each ``-raw`` design an asyncio protocol over httptools' parser on uvloop (no ASGI, no
framework), its processes accepting from one listening socket (what ``provgraph serve``'s readers
now do, :mod:`provgraph.http.front`):

- ``bare-inline``: pyoxigraph over Oxigraph's union default graph, answered on the event loop
  (no provgraph code: the floor of any Python server);
- ``bare-thread``: the same, each query handed to a thread of the process;
- ``pg-inline``: provgraph's query path (``ProvGraph.prepare`` over the current view, the query
  runner, the query workers' serialisation) on the event loop of a read-only open;
- ``bare-raw``, ``pg-raw``: ``bare-inline`` and ``pg-inline`` without uvicorn.

each in one process and in two (sharing the port with SO_REUSEPORT, or the ``-raw`` ones one
listening socket), loaded with ``wrk`` (1 and 4
connections) with the same requests as ``oxigraph serve --union-default-graph`` before and after
them. None of these stops a query at its deadline; that is the point of ``--gil``: it shows
whether pyoxigraph lets another thread run while it evaluates (a watchdog thread could then
answer 503 and end the process).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def _bench_http():  # type: ignore[no-untyped-def]
    """bench/http.py as a module (its name would shadow the standard library's http package)."""
    spec = importlib.util.spec_from_file_location("bench_http", Path(__file__).with_name("http.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_HTTP = _bench_http()  # its wrk runner and free-port helper: the same load as bench/http.py's

SHAPES = ("trivial", "count", "facts")
DESIGNS = ("bare-inline", "bare-thread", "pg-inline", "bare-raw", "pg-raw")
ACCEPT = "application/sparql-results+json"


def _app(design: str, root: Path):  # type: ignore[no-untyped-def]
    """The ASGI app of ``design`` over the stores in ``root``."""
    import concurrent.futures

    if design == "pg-inline":
        from provgraph import ProvGraph
        from provgraph.http.evaluate import answer
        from provgraph.query import execute

        pg = ProvGraph.open(root / "store", read_only=True)

        def run(query: str) -> bytes:
            prepared = pg.prepare(query, base_iri="http://127.0.0.1/sparql")
            result = execute(pg.backend, prepared.text, prepared.dataset, prepared.base_iri)
            return answer(result, accept=ACCEPT, max_bytes=1 << 30, deadline=time.time() + 60).body
    else:
        import pyoxigraph as ox

        store = ox.Store.read_only(str(root / "oxigraph"))

        def run(query: str) -> bytes:
            solutions = store.query(query, use_default_graph_as_union=True)
            return solutions.serialize(format=ox.QueryResultsFormat.JSON)  # type: ignore[union-attr]

    threads = concurrent.futures.ThreadPoolExecutor(4)

    async def app(scope, _receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return
        query = dict(urllib.parse.parse_qsl(scope["query_string"].decode()))["query"]
        if design == "bare-thread":
            body = await asyncio.get_running_loop().run_in_executor(threads, run, query)
        else:
            body = run(query)
        headers = [(b"content-length", str(len(body)).encode()), (b"content-type", ACCEPT.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


def _runner(design: str, root: Path):  # type: ignore[no-untyped-def]
    """``run(query text) -> body`` of ``design``."""
    if design.startswith("pg-"):
        from provgraph import ProvGraph
        from provgraph.http.evaluate import answer
        from provgraph.query import execute

        pg = ProvGraph.open(root / "store", read_only=True)

        def run(query: str) -> bytes:
            prepared = pg.prepare(query, base_iri="http://127.0.0.1/sparql")
            result = execute(pg.backend, prepared.text, prepared.dataset, prepared.base_iri)
            return answer(result, accept=ACCEPT, max_bytes=1 << 30, deadline=time.time() + 60).body

        return run
    import pyoxigraph as ox

    store = ox.Store.read_only(str(root / "oxigraph"))

    def run_bare(query: str) -> bytes:
        solutions = store.query(query, use_default_graph_as_union=True)
        return solutions.serialize(format=ox.QueryResultsFormat.JSON)  # type: ignore[union-attr]

    return run_bare


def _serve_raw(design: str, root: Path, sock: socket.socket) -> None:
    """An asyncio protocol over httptools' parser on uvloop: no ASGI layer, no server framework."""
    import httptools
    import uvloop

    run = _runner(design, root)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: " + ACCEPT.encode() + b"\r\ncontent-length: "

    class Protocol(asyncio.Protocol):
        def connection_made(self, transport):  # type: ignore[no-untyped-def]
            self.transport = transport
            self.parser = httptools.HttpRequestParser(self)
            self.url = b""

        def data_received(self, data: bytes) -> None:
            self.parser.feed_data(data)

        def on_url(self, url: bytes) -> None:
            self.url += url

        def on_message_complete(self) -> None:
            parsed = httptools.parse_url(self.url)
            self.url = b""
            query = dict(urllib.parse.parse_qsl(parsed.query.decode()))["query"]
            body = run(query)
            self.transport.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Protocol, sock=sock)
        await server.serve_forever()

    uvloop.run(main())


def _serve(design: str, root: Path, port: int, shared: socket.socket | None = None) -> None:
    if shared is not None:
        _serve_raw(design, root, shared)
        return
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as uvicorn's own sockets
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    config = uvicorn.Config(
        _app(design, root), loop="uvloop", http="httptools", log_level="warning", access_log=False, lifespan="off"
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def _wait_up(port: int, path: str) -> None:
    import http.client

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path, headers={"Accept": ACCEPT})
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"nothing answered on port {port}")


def _measure(port: int, queries: dict[str, list[str]], seconds: float, tmp: Path) -> dict[str, float]:
    found = {}
    for shape in SHAPES:
        paths = ["/query?query=" + urllib.parse.quote(text, safe="") for text in queries[shape]]
        _wait_up(port, paths[0])
        for connections in (1, 4):
            found[f"{shape} x{connections}"] = _HTTP.load_wrk(port, paths, ACCEPT, seconds, connections, tmp)["qps"]
    return found


def _oxigraph(root: Path, queries: dict[str, list[str]], seconds: float, tmp: Path) -> dict[str, float]:
    oxigraph = shutil.which("oxigraph")
    if oxigraph is None:
        raise SystemExit("needs the oxigraph command: pip install oxigraph")
    port = _HTTP._free_port()
    location = str(root / "oxigraph")
    bind = f"127.0.0.1:{port}"
    command = [oxigraph, "serve-read-only", "--location", location, "--bind", bind, "--union-default-graph"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return _measure(port, queries, seconds, tmp)
    finally:
        server.terminate()
        server.wait()


def _design(design: str, processes: int, root: Path, queries: dict[str, list[str]], seconds: float, tmp: Path):  # type: ignore[no-untyped-def]
    port = _HTTP._free_port()
    children = []
    shared = None
    if design.endswith("-raw"):  # one listening socket, accepted from by every process
        shared = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        shared.bind(("127.0.0.1", port))
        shared.listen(1024)
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:  # the child serves until it is killed
            try:
                _serve(design, root, port, shared)
            finally:
                os._exit(0)
        children.append(pid)
    try:
        return _measure(port, queries, seconds, tmp)
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _gil() -> None:
    """Does another thread run while pyoxigraph evaluates a long query?"""
    import pyoxigraph as ox

    store = ox.Store()
    p = ox.NamedNode("http://example.org/p")
    store.extend(ox.Quad(ox.NamedNode(f"http://example.org/{i}"), p, ox.Literal(i)) for i in range(200))
    ticks = 0
    stop = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not stop.wait(0.001):
            ticks += 1

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.perf_counter()
    list(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?x . ?b ?p ?y . ?c ?p ?z }"))  # type: ignore[arg-type]
    seconds = time.perf_counter() - started
    stop.set()
    ticker.join()
    print(f"a ticker thread ran {ticks} times (every 1 ms at most) during a {seconds:.2f} s query")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="the directory bench/http.py --keep built the stores in")
    parser.add_argument("--size", default="100000:10000", help="FACTS:DOCUMENTS of the stores to use")
    parser.add_argument("--seconds", type=float, default=4.0, help="wrk time per row")
    parser.add_argument("--designs", nargs="*", choices=DESIGNS, help="only these designs")
    parser.add_argument("--gil", action="store_true", help="only check whether pyoxigraph releases the GIL")
    args = parser.parse_args()
    if args.gil:
        _gil()
        return
    if args.keep is None:
        parser.error("--keep DIR is needed (build it with bench/http.py --keep DIR)")
    if shutil.which("wrk") is None:
        raise SystemExit("needs wrk (apt-get install wrk)")
    facts, documents = args.size.split(":")
    root = args.keep / f"{facts}-{documents}"
    queries = json.loads((root / "queries.json").read_text())
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        before = _oxigraph(root, queries, args.seconds, Path(tmp))
        for design in args.designs or DESIGNS:
            for processes in (1, 2):
                print(f"  {design} x{processes} ...", file=sys.stderr)
                rows[f"{design} x{processes}"] = _design(design, processes, root, queries, args.seconds, Path(tmp))
        after = _oxigraph(root, queries, args.seconds, Path(tmp))
    reference = {key: (before[key] + after[key]) / 2 for key in before}
    columns = list(reference)
    print("requests/s of oxigraph serve (mean of its runs before and after): ", end="")
    print(", ".join(f"{key} {reference[key]:,.0f}" for key in columns))
    print(f"{'design':18s}" + "".join(f"{key:>14s}" for key in columns))
    for name, found in rows.items():
        print(f"{name:18s}" + "".join(f"{found[key] / reference[key]:13.2f}x" for key in columns))


if __name__ == "__main__":
    main()
