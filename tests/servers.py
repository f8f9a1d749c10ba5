"""Real SPARQL servers on 127.0.0.1 for the tests of the remote store (and bench/remote.py):
``oxigraph serve`` from the PyPI ``oxigraph`` package (the dev extra) and Virtuoso open source
from Debian's ``virtuoso-opensource`` (installed by ``.ci/run``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

#: Seconds a server may take to start on a loaded machine (a deadline, not a measure).
START = 120.0
VIRTUOSO_PACKAGE = "virtuoso-opensource"
#: The store URL's parameters for Virtuoso (its dialect gives /sparql and /sparql-graph-crud).
VIRTUOSO_QUERY = "?dialect=virtuoso"

_VIRTUOSO_INI = """[Database]
DatabaseFile = virtuoso.db
ErrorLogFile = virtuoso.log
LockFile = virtuoso.lck
TransactionFile = virtuoso.trx
xa_persistent_file = virtuoso.pxa
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = virtuoso-temp.db
TransactionFile = virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0
[Parameters]
ServerPort = 127.0.0.1:{sql}
DisableUnixSocket = 1
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = .
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty}
MaxQueryMem = 1G
[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerRoot = .
ServerThreads = 10
MaxClientConnections = 10
Charset = UTF-8
[SPARQL]
; provgraph reads whole results (a dump, the quads of a graph): the default 10000 rows would cut them
ResultSetMaxRows = 1000000000
MaxQueryExecutionTime = 0
MaxQueryCostEstimationTime = 0
"""
# What a new database needs for provgraph: SPARQL updates over HTTP by the anonymous SPARQL user,
# and write access to every graph (Virtuoso's graph-level security) but its own: its schema, its
# service description and LDP vocabulary are made private (else every query over named graphs sees them).
_VIRTRDF = "http://www.openlinksw.com/schemas/virtrdf#"
_VIRTUOSO_GRANT = 'GRANT SPARQL_UPDATE TO "SPARQL";'
_VIRTUOSO_PERMISSIONS = f"""DB.DBA.RDF_GRAPH_GROUP_CREATE ('{_VIRTRDF}PrivateGraphs', 1);
DB.DBA.RDF_GRAPH_GROUP_INS ('{_VIRTRDF}PrivateGraphs', '{_VIRTRDF}');
DB.DBA.RDF_GRAPH_GROUP_INS ('{_VIRTRDF}PrivateGraphs', 'http://www.w3.org/ns/ldp#');
DB.DBA.RDF_GRAPH_GROUP_INS ('{_VIRTRDF}PrivateGraphs', 'http://localuriqaserver/sparql');
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 0, 1);
DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 7);"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def virtuoso_binaries() -> tuple[str, str] | None:
    """Debian's ``virtuoso-t`` and ``isql-vt``, or None when the package is missing."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    return (server, isql) if server and isql else None


class _StoppedAtStartError(AssertionError):
    """The server exited before it answered: most often a port that was free when picked and taken
    before the server bound it (``free_port`` cannot hold it), so the caller tries new ports."""


def _tail(log: Path, lines: int = 20) -> str:
    try:
        text = log.read_text(errors="replace").splitlines()[-lines:]
    except OSError as exc:
        return f"(no log: {exc})"
    return "\n".join(text) or "(empty log)"


def _wait(process: subprocess.Popen[bytes], url: str, what: str, log: Path) -> None:
    deadline = time.monotonic() + START
    while True:
        try:
            if httpx.get(url, params={"query": "ASK {}"}, timeout=10).status_code == 200:
                return
        except httpx.TransportError:
            pass
        ending = f"{log} ends:\n{_tail(log)}"
        if process.poll() is not None:
            raise _StoppedAtStartError(f"{what} stopped at start (exit {process.returncode}); {ending}")
        assert time.monotonic() < deadline, f"{what} did not start within {START:.0f} s; {ending}"
        time.sleep(0.2)


#: Starts tried before a server that keeps stopping at start fails the test.
STARTS = 3


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=START)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _start(
    attempt: Callable[[int], tuple[list[str], str]], *, cwd: Path | None, log: Path, what: str
) -> subprocess.Popen[bytes]:
    """A server process, its output appended to ``log``. ``attempt(n)`` readies the n-th start
    (new ports) and gives its command and the URL that answers once it is up; a server that
    stops at start is started again, up to STARTS times."""
    # without a backtrace oxigraph's error is the log's last line, where a failure quotes it
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    for n in range(1, STARTS + 1):
        command, url = attempt(n)
        with log.open("ab") as output:
            process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            _wait(process, url, what, log)
            return process
        except _StoppedAtStartError:
            if n == STARTS:
                raise
        except BaseException:
            _stop(process)
            raise
    raise AssertionError("unreachable: the last start returns or raises")


class OxigraphServer:
    """An empty ``oxigraph serve`` in ``directory`` on a free loopback port; its output goes to
    ``directory`` with ``.log`` added, quoted when it fails to start."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("oxigraph")
        assert binary, "the oxigraph command comes with the dev extra (pip install -e '.[dev]')"
        self.log = directory.with_name(directory.name + ".log")

        def attempt(_: int) -> tuple[list[str], str]:
            self.port = free_port()
            command = [binary, "serve", "--location", str(directory), "--bind", f"127.0.0.1:{self.port}"]
            return command, f"http://127.0.0.1:{self.port}/query"

        self.process = _start(attempt, cwd=None, log=self.log, what="oxigraph serve")

    @property
    def url(self) -> str:
        return f"sparql+http://127.0.0.1:{self.port}"

    def close(self) -> None:
        _stop(self.process)


@contextmanager
def oxigraph_server(directory: Path) -> Iterator[str]:
    """An empty ``oxigraph serve`` on a free loopback port; its ``sparql+http://`` store URL."""
    server = OxigraphServer(directory)
    try:
        yield server.url
    finally:
        server.close()


class Virtuoso:
    """A Virtuoso open-source server in ``directory`` on free loopback ports."""

    def __init__(self, directory: Path, *, memory_gb: float = 1.0) -> None:
        binaries = virtuoso_binaries()
        assert binaries, f"virtuoso-t and isql-vt come with Debian's {VIRTUOSO_PACKAGE}"
        self._server, self._isql = binaries
        self.directory = directory
        # in the foreground Virtuoso writes its log to its output, not to its ErrorLogFile
        self.log = directory / "virtuoso.out"
        buffers = int(memory_gb * 1024**3 * 0.66 / 8000)  # Virtuoso's own sizing rule: 8 KB pages

        def attempt(n: int) -> tuple[list[str], str]:
            if n > 1:  # a new database: the one that stopped at start may be half made
                shutil.rmtree(directory)
            directory.mkdir(parents=True, exist_ok=True)
            self.sql_port, self.http_port = free_port(), free_port()
            (directory / "virtuoso.ini").write_text(
                _VIRTUOSO_INI.format(sql=self.sql_port, http=self.http_port, buffers=buffers, dirty=buffers * 3 // 4)
            )
            return [self._server, "-c", "virtuoso.ini", "+foreground"], f"http://127.0.0.1:{self.http_port}/sparql"

        self.process = _start(attempt, cwd=directory, log=self.log, what="virtuoso-t")
        try:
            self.sql(_VIRTUOSO_GRANT + _VIRTUOSO_PERMISSIONS)
        except BaseException:
            _stop(self.process)
            raise

    @property
    def url(self) -> str:
        return f"sparql+http://127.0.0.1:{self.http_port}{VIRTUOSO_QUERY}"

    def sql(self, statements: str, *, timeout: float | None = START) -> None:
        """Run SQL as the database administrator (the default dba password of a new database);
        ``timeout`` None: as long as it takes (a bulk load of millions of quads)."""
        done = subprocess.run(
            [self._isql, f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={statements}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode == 0 and "Error" not in done.stdout + done.stderr:
            return
        state = "running" if self.process.poll() is None else f"exited with {self.process.returncode}"
        raise AssertionError(
            f"isql failed: {done.stdout}{done.stderr}\nvirtuoso-t is {state}; {self.log} ends:\n{_tail(self.log)}"
        )

    def reset(self) -> None:
        """Empty the store: every quad and every explicitly created graph."""
        # not RDF_GLOBAL_RESET(): after it, a query counted one shared entity less than on a new database
        self.sql(
            f"DELETE FROM DB.DBA.RDF_QUAD WHERE G <> iri_to_id ('{_VIRTRDF}'); "
            "DELETE FROM DB.DBA.RDF_EXPLICITLY_CREATED_GRAPH;"
        )

    def close(self) -> None:
        _stop(self.process)


__all__ = ["VIRTUOSO_PACKAGE", "OxigraphServer", "Virtuoso", "free_port", "oxigraph_server", "virtuoso_binaries"]
