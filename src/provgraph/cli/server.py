"""``provgraph serve``: the HTTP app (:mod:`provgraph.http`) under uvicorn, over a store opened
for writing, until SIGTERM or SIGINT. Registered on the main app by :mod:`provgraph.cli.app`."""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from provgraph.cli.common import DEFAULT_STORE, StoreOpt, ViewOpt, choice, err, metavar, open_store
from provgraph.errors import InputError
from provgraph.options import TOKEN_ENV, DatasetView, GeneratorKind

if TYPE_CHECKING:
    from provgraph.http import ServerSettings

#: Most reader processes started by default (one per core up to this; about 85 MB each).
DEFAULT_READERS = 4
#: Seconds `serve` gives requests in flight on SIGTERM/SIGINT before it stops.
SHUTDOWN_GRACE = 3

HostOpt = Annotated[str, typer.Option(help="Address to listen on.")]
PortOpt = Annotated[int, typer.Option(metavar="PORT", help="Port to listen on (0: any free port).")]
TokenFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--token-file",
        metavar="FILE",
        help="Read the bearer token for writes from this file (its first line). Without a token the server "
        "is read-only.",
    ),
]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        envvar=TOKEN_ENV,
        metavar="TOKEN",
        show_envvar=True,
        help=f"Bearer token for writes. Prefer ${TOKEN_ENV} or --token-file: a command line is "
        "visible to every user of the machine (ps).",
    ),
]
ReadTokenOpt = Annotated[bool, typer.Option("--read-token", help="Ask for the token on reads too.")]
TimeoutOpt = Annotated[float, typer.Option(metavar="SECONDS", help="Seconds a query may run.")]
MaxResultOpt = Annotated[
    int, typer.Option(metavar="BYTES", help="Largest response (query results, exports, graphs), in bytes.")
]
MaxUploadOpt = Annotated[
    int, typer.Option(metavar="BYTES", help="Largest request body (uploads, Graph Store writes, SPARQL), in bytes.")
]
QueryWorkersOpt = Annotated[
    int,
    typer.Option(
        min=0,
        metavar="N",
        help="Worker processes that run reads, killed at the deadline (0: threads in this process, which "
        "answer 503 at the deadline but finish their computation).",
    ),
]
ReadersOpt = Annotated[
    int | None,
    typer.Option(
        min=0,
        metavar="N",
        help="Reader processes that accept the connections and answer SPARQL queries themselves, the "
        f"rest passed to this process (default: one per core, at most {DEFAULT_READERS}; 0: this process "
        "serves everything).",
    ),
]
AllowServiceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-service",
        metavar="URL",
        help="Let SERVICE call this endpoint (repeatable; none: federation off).",
    ),
]
AllowLoadOpt = Annotated[
    list[str] | None,
    typer.Option("--allow-load", metavar="IRI", help="Let a SPARQL LOAD fetch this IRI (repeatable; none: LOAD off)."),
]
GeneratorOpt = Annotated[
    GeneratorKind,
    typer.Option(
        parser=choice(GeneratorKind, "--generator"),
        metavar=metavar(GeneratorKind),
        help="Generator of POST /qa (openai: configured by $PROVGRAPH_LLM_MODEL and friends).",
    ),
]


def serve(
    store: StoreOpt = DEFAULT_STORE,
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8000,
    token_file: TokenFileOpt = None,
    token: TokenOpt = None,
    read_token: ReadTokenOpt = False,
    timeout: TimeoutOpt = 30.0,
    max_result_bytes: MaxResultOpt = 200 * 1024 * 1024,
    max_upload_bytes: MaxUploadOpt = 100 * 1024 * 1024,
    view: ViewOpt = DatasetView.CURRENT,
    query_workers: QueryWorkersOpt = 4,
    readers: ReadersOpt = None,
    allow_service: AllowServiceOpt = None,
    allow_load: AllowLoadOpt = None,
    generator: GeneratorOpt = GeneratorKind.EXTRACTIVE,
) -> None:
    """Serve the store over HTTP.

    SPARQL 1.1 Protocol at /sparql, Graph Store Protocol at /store, the JSON API, the query page
    at /, OpenAPI docs at /docs.

    Writes need a bearer token: give it in $PROVGRAPH_TOKEN or a file (--token-file), not with
    --token, which shows it to every user of the machine in the process list."""
    secret = _secret(token_file, token, read_token=read_token)
    # Listen first: a port in use is a clear error before anything is opened or announced.
    listener = _listen(host, port)
    # A SIGTERM from here on closes the store (and removes its holder file), whenever it comes.
    # uvicorn raises the signal that stopped it again once it is done: with the default handler
    # that would end the process before the store is closed.
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        from pydantic import SecretStr

        from provgraph.http import ServerSettings

        settings = ServerSettings(
            token=SecretStr(secret) if secret else None,
            read_token=read_token,
            query_timeout=timeout,
            max_result_bytes=max_result_bytes,
            max_upload_bytes=max_upload_bytes,
            query_workers=query_workers,
            readers=min(os.cpu_count() or 1, DEFAULT_READERS) if readers is None else readers,
            default_view=view,
            federation=bool(allow_service),
            service_allow=tuple(allow_service or ()),
            load_allow=tuple(allow_load or ()),
            answer_generator=generator,
        )
        _serve(store, listener, settings)
    except (_Stopped, KeyboardInterrupt):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        listener.close()
    # The store is closed (flushed, holder file removed). A thread still in a query cannot be
    # stopped, and the interpreter's exit could wait on it or tear the store down under it: leave.
    if threading.active_count() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _secret(token_file: Path | None, token: str | None, *, read_token: bool) -> str | None:
    """The write token, from --token-file, --token or $PROVGRAPH_TOKEN (None: read-only)."""
    if token_file is not None and token is not None:
        given = "--token" if os.environ.get(TOKEN_ENV) != token else f"${TOKEN_ENV}"
        raise typer.BadParameter(f"give the token once: --token-file or {given}", param_hint="--token-file")
    if token is not None and os.environ.get(TOKEN_ENV) != token:
        # never the token itself: only that it was given where others can read it
        err.print(
            f"warning: --token is visible to every user of this machine (ps); prefer ${TOKEN_ENV} or --token-file"
        )
    secret = _read_token(token_file) if token_file is not None else token
    if read_token and not secret:
        raise typer.BadParameter(f"--read-token needs a token (--token-file or ${TOKEN_ENV})")
    return secret


def _read_token(path: Path) -> str:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise typer.BadParameter(f"cannot read {path}: {reason}", param_hint="--token-file") from exc
    first = text.splitlines()[0].strip() if text.strip() else ""
    if not first:
        raise typer.BadParameter(f"{path} is empty: write the token on its first line", param_hint="--token-file")
    return first


def _listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound as uvicorn binds it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use by another program (stop it, or choose another --port)"
        else:
            reason = exc.strerror or str(exc)
        raise InputError(f"cannot listen on {where}: {reason}") from exc
    # listening now, not when uvicorn's loop starts: a client that reads the announcement and
    # connects at once is queued by the kernel instead of refused
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _serve(store: str, listener: socket.socket, settings: ServerSettings) -> None:
    import asyncio
    import tempfile

    import uvicorn

    from provgraph.http import create_app
    from provgraph.http.front import Front

    host, port = listener.getsockname()[:2]
    where = f"[{host}]:{port}" if listener.family == socket.AF_INET6 else f"{host}:{port}"
    with open_store(store, read_only=False) as graph, tempfile.TemporaryDirectory(prefix="provgraph-") as private:
        app = create_app(graph, settings)
        reader = app.state.reader
        front: Front | None = None
        served = listener
        if settings.readers and reader.snapshots is not None:
            # the app behind the readers, on a socket only this user can reach (the directory is 0700)
            served = socket.socket(socket.AF_UNIX)
            upstream = Path(private) / "writer.sock"
            served.bind(str(upstream))
            served.listen(2048)
            front = Front(
                listener=listener,
                upstream=upstream,
                store=Path(store),  # readers only for an on-disk store (a server gives no checkpoints)
                snapshots=reader.snapshots,
                settings=settings,
                readers=settings.readers,
                grace=SHUTDOWN_GRACE,
            )

        class Server(uvicorn.Server):
            async def shutdown(self, sockets: list[Any] | None = None) -> None:
                # First of all: reads still waiting get their 503 now (their workers killed, their
                # threads abandoned), within the grace period, not cancelled with a 500 after it.
                # The readers finish what they have meanwhile, relaying to this process.
                reader.stop_reads()
                stopping = [super().shutdown(sockets)]
                if front is not None:
                    stopping.append(asyncio.to_thread(front.stop, SHUTDOWN_GRACE))
                await asyncio.gather(*stopping)

        try:
            mode = "writes need the token" if settings.token is not None else "read-only: no token"
            err.print(f"provgraph serving {store} on http://{where}/sparql ({mode})")
            # On SIGTERM/SIGINT requests get a few seconds to finish, not the query timeout: a read
            # still computing in a thread is abandoned, one in a worker process is killed.
            config = uvicorn.Config(
                app, log_level="warning", access_log=False, timeout_graceful_shutdown=SHUTDOWN_GRACE
            )
            Server(config).run(sockets=[served])
        finally:
            if front is not None:
                front.stop(0)
            reader.close()
            if served is not listener:
                served.close()


class _Stopped(Exception):  # noqa: N818 - a signal, not an error
    pass


def _stop(_signum: int, _frame: object) -> None:
    raise _Stopped


__all__ = ["SHUTDOWN_GRACE", "serve"]
