"""Shared test helpers (importable as ``helpers``; pytest puts tests/ on the path)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from provgraph import ExportFormat, GraphSplit, IngestOptions, IngestReport, ProvGraph
from provgraph.http import ServerSettings
from provgraph.trust.models import ConflictValue, ValueClaim, ValueOutcome

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
EXAMPLES = DATA / "examples"
DBPEDIA = DATA / "dbpedia"
TEST_DATA = ROOT / "tests" / "data"  # small real data sets vendored for the tests, each with its source


#: Seconds allowed for a server (in a thread or its own process) to start, and to stop: it takes
#: about one; the margin is for a loaded machine, and only a broken server uses it up.
SERVER_START = 120.0

#: The Debian packages the browser tests need, as the skip message names them.
BROWSER_PACKAGES = "apt-get install chromium chromium-driver"
# Seconds for what will happen in a browser (a page load, a query): well under one on an idle
# machine, a generous margin on a loaded one; only a broken page waits this long.
BROWSER_WAIT = 60


def find_browser(*, required: bool, which: Callable[[str], str | None] = shutil.which) -> tuple[Path, Path]:
    """Debian's ``chromium`` and ``chromedriver`` on PATH; otherwise the test skips with one line
    naming the packages to install, or fails when ``required`` (``--require-browser``, as CI runs)."""
    chromium, driver = which("chromium"), which("chromedriver")
    if chromium is not None and driver is not None:
        return Path(chromium), Path(driver)
    missing = " and ".join(name for name, found in (("chromium", chromium), ("chromedriver", driver)) if not found)
    message = f"{missing} not found on PATH: {BROWSER_PACKAGES} (Debian) to run the browser tests"
    if required:
        pytest.fail(f"{message}; --require-browser is set", pytrace=False)
    pytest.skip(message)


def population_value(
    value: str, source: str, statement: str, outcome: ValueOutcome, *, document: str | None = None
) -> ConflictValue:
    """One side of a conflict on Amsterdam's population, stated by ``source`` (tier 4, 0.6)."""
    claim = ValueClaim(
        statement=statement,
        graph="urn:g",
        document=document or f"urn:doc:{source}",
        source=source,
        subject="http://dbpedia.org/resource/Amsterdam",
        object=f'"{value}"^^<http://www.w3.org/2001/XMLSchema#integer>',
        tier=4,
        confidence=0.6,
        time=datetime(2020, 1, 1, tzinfo=UTC),
    )
    predicate = "http://dbpedia.org/ontology/populationTotal"
    return ConflictValue(
        value=claim.object, predicate=predicate, sources=[source], claims=[claim], outcome=outcome, confidence=0.6
    )


def dataset_dump(graph: ProvGraph) -> bytes:
    """The whole dataset as sorted N-Quads: equal dumps mean equal stores."""
    raw = graph.export(format=ExportFormat.NQUADS)
    assert raw is not None
    return b"\n".join(sorted(raw.splitlines()))


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``provgraph`` command as a user would."""
    exe = shutil.which("provgraph")
    command = [exe] if exe else [sys.executable, "-m", "provgraph"]
    inherited = {k: v for k, v in os.environ.items() if k != "PROVGRAPH_STORE"}
    full_env = {**inherited, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full_env,
        input=stdin,
        timeout=300,
        check=False,
    )


class ServeProcess:
    """`provgraph serve` in its own process, on a port the system picks (``--port 0``), its stderr
    read as it comes (a full pipe would block the server). Ready when it announces its URL: it
    listens before that, so there is nothing to poll."""

    def __init__(self, store: Path, *args: str, env: dict[str, str] | None = None) -> None:
        import queue
        import re
        import threading

        inherited = {k: v for k, v in os.environ.items() if k not in ("PROVGRAPH_STORE", "PROVGRAPH_TOKEN")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "provgraph", "serve", "--store", str(store), "--port", "0", *args],
            cwd=ROOT,
            env={**inherited, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.pid = self.process.pid
        self._lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        while True:
            line = self._next_line()
            if not line:
                self.process.wait(timeout=SERVER_START)
                raise AssertionError(f"provgraph serve exited ({self.process.returncode}): {''.join(self.stderr)}")
            found = re.search(r" on (http://127\.0\.0\.1:\d+)/sparql", line)
            if found:
                self.url = found.group(1)
                return

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._lines.put(line)
        self._lines.put("")  # end of output: the process has closed its stderr

    def _next_line(self) -> str:
        line = self._lines.get(timeout=SERVER_START)
        self.stderr.append(line)
        return line

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send ``signum``, wait for the exit and the rest of stderr; the exit code."""
        self.process.send_signal(signum)
        code = self.process.wait(timeout=SERVER_START)
        while self._next_line():
            pass
        return code

    def text(self) -> str:
        return "".join(self.stderr)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def live_server(graph: ProvGraph, settings: ServerSettings | None = None) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 serving ``graph``; yields its base URL."""
    import socket
    import threading
    import time

    import uvicorn

    from provgraph.http import create_app

    # The socket is bound here and handed to uvicorn: no other process (another xdist worker)
    # can take the port between choosing it and serving on it.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(create_app(graph, settings or ServerSettings()), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    # uvicorn says when it serves by a flag, not an event: look at it often, and allow a loaded
    # machine all the time it needs (only a server that cannot start waits this long).
    deadline = time.monotonic() + SERVER_START
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            listener.close()
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=SERVER_START)
        listener.close()


# ---------------------------------------------------------------------- shared data sets
# Each data set the tests load in several files is loaded one way, here.

#: The aspirin example as the README ingests it (title, URL, tier 2).
ASPIRIN = IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", tier=2)

#: The DBpedia 3-capitals sample: seven Wikipedia editions disagree on Amsterdam's population
#: (data/dbpedia/README.md). Its relative IRIs need LDIF_BASE.
CAPITALS = DBPEDIA / "3-capitals.nq"
CAPITALS_METADATA = DBPEDIA / "3-capitals.metadata.nq"
LDIF_BASE = "http://example.org/ldif/"
AMSTERDAM = "http://dbpedia.org/resource/Amsterdam"
POPULATION = "http://dbpedia.org/ontology/populationTotal"
#: A city has one population, and values within 0.5% agree: the policy most tests load with it.
POPULATION_POLICY = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{POPULATION}> a owl:FunctionalProperty ; pg:relativeTolerance 0.005 .
"""


def ingest_aspirin(graph: ProvGraph) -> IngestReport:
    return graph.ingest(EXAMPLES / "aspirin.ttl", ASPIRIN)


def capitals_options(*, graph_metadata: bool = True) -> IngestOptions:
    """The sample split into one document per Wikipedia article, each value with its edit
    metadata (``3-capitals.metadata.nq``) unless not ``graph_metadata``."""
    split = GraphSplit.wikipedia_articles(CAPITALS_METADATA if graph_metadata else None)
    return IngestOptions(id="3-capitals", title="3 capitals", tier=4, base=LDIF_BASE, split=split)


def write_policy(directory: Path, policy: str) -> Path:
    """``policy`` (Turtle) as ``directory``/policy.ttl, for ``add_ontology`` or ``ontology add``."""
    path = directory / "policy.ttl"
    path.write_text(policy, encoding="utf-8")
    return path


def ingest_capitals(
    graph: ProvGraph, policy_dir: Path, policy: str = POPULATION_POLICY, *, graph_metadata: bool = True
) -> ProvGraph:
    """The 3-capitals sample (:func:`capitals_options`) in ``graph``, then ``policy`` loaded
    (written to ``policy_dir``); returns ``graph``."""
    graph.ingest(CAPITALS, capitals_options(graph_metadata=graph_metadata))
    graph.add_ontology(write_policy(policy_dir, policy))
    return graph


def ingest_capitals_cli(store: str) -> subprocess.CompletedProcess[str]:
    """The 3-capitals sample ingested by ``provgraph ingest`` as a user types it (no title, no
    graph metadata)."""
    return run_cli(
        "ingest", str(CAPITALS), "--id", "3-capitals", "--tier", "4", "--base", LDIF_BASE,
        "--split-graphs", "wikipedia", "--quiet", "--store", store,
    )  # fmt: skip


def requested_urls(driver: Any) -> list[str]:
    """Every URL the page asked for since the last call (Chrome's DevTools network log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def browser_wait(driver: Any, condition: Any) -> Any:
    """``condition(driver)``'s first truthy value, waiting up to ``BROWSER_WAIT`` seconds."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, BROWSER_WAIT).until(condition)


def open_page(driver: Any, url: str) -> None:
    """Open a page of the answer app and wait until it has loaded its data (``data-loaded``)."""
    from selenium.webdriver.common.by import By

    driver.get(url)
    browser_wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "true")


def text_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose pages show the given lines in Helvetica, made by hand (no PDF writer is a
    dependency): a catalog, a page tree, one content stream per page and an exact xref table."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    font = 3
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for lines in pages:
        ops = ["BT /F1 12 Tf 14 TL 72 720 Td"]
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("cp1252")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content, font)
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


# Why a test of the backend suites (tests/conftest.py) does not run on some stores: @pytest.mark.backends(..., reason=)
DOUBLES_ON_VIRTUOSO = (
    "Virtuoso writes xsd:double results with 6 significant digits (48.86666666666667 as "
    "48.8667, 28 as 28.0: openlink/virtuoso-opensource#1006), which this test compares"
)
DEFAULT_GRAPH_OF_A_SERVER = (
    "the store's own default graph: on a server, a query given the current view by the protocol "
    "does not read the engine's default graph too (Oxigraph), or there is none to write "
    "(Virtuoso)"
)
GRAPHS_OF_A_SERVER = (
    "counts the named graphs with GRAPH ?g { }: a store on a server also holds its write tokens "
    "as empty graphs (and Virtuoso lists no graph for an empty pattern); the prepared dataset "
    "is the embedded engine's"
)
PAST_PROVGRAPH = "writes into the embedded engine directly, past provgraph: there is no such door on a server"
UNION_ON_OXIGRAPH_SERVER = (
    "reads the union of all graphs (DatasetView.ALL), which oxigraph serve gives only when started so, not per query"
)
