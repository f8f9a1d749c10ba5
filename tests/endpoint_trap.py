"""A SPARQL endpoint on 127.0.0.1 that records every request it gets: the trap a query or update
must never reach when provgraph refuses to fetch URLs (SERVICE, LOAD)."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Trap:
    url: str
    hits: list[str] = field(default_factory=list)


@contextmanager
def endpoint_trap() -> Iterator[Trap]:
    """An endpoint that answers any query with one row (?a = "trapped") and any GET of a graph
    with one triple, recording the path of each request."""
    trap = Trap(url="")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            self._answer()

        def _answer(self) -> None:
            trap.hits.append(self.path)
            if "sparql-results" in (self.headers.get("Accept") or "") or self.command == "POST":
                body = json.dumps(
                    {"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "value": "trapped"}}]}}
                ).encode()
                media = "application/sparql-results+json"
            else:
                body = b"<http://example.org/trapped> <http://example.org/p> <http://example.org/o> .\n"
                media = "application/n-triples"
            self.send_response(200)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    trap.url = f"http://127.0.0.1:{server.server_address[1]}/sparql"
    try:
        yield trap
    finally:
        server.shutdown()
        server.server_close()
