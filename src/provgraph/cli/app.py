"""Commands. Each parses its arguments, calls the API, and prints the result (readable, or the
documented pydantic model with ``--json``)."""

from __future__ import annotations

import contextlib
import enum
import errno
import inspect
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from typer.core import TyperCommand

from provgraph._version import __version__
from provgraph.cli import render
from provgraph.errors import InputError, ProvGraphError, ValidationFailedError
from provgraph.options import (
    DEFAULT_STORE_DIR,
    DEFAULT_STORE_ENV,
    TOKEN_ENV,
    DatasetView,
    ExportFormat,
    GeneratorKind,
    ResultFormat,
)

if TYPE_CHECKING:
    from provgraph.graph import ProvGraph
    from provgraph.models import GraphSplit

# Start-up time: the commands import the store, pydantic models, rdflib, pySHACL, the server and
# the LLM client when they run, never here, so `provgraph --help` and a typo cost a tenth of a
# second, not a second (tests/test_cli.py checks what `import provgraph.cli` leaves out).
app = typer.Typer(
    name="provgraph",
    help="An RDF named-graph provenance store: every source document a SHACL-validated named graph "
    "of reified, PROV-O annotated statements.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help: rich's costs a tenth of a second to import and shows <bool> on every flag
    rich_markup_mode=None,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)

_state: dict[str, bool] = {"debug": False}
E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")


def _metavar(kind: type[enum.Enum]) -> str:
    return "[" + "|".join(str(m.value) for m in kind) + "]"


def _choice(kind: type[E], option: str) -> Callable[[Any], E]:
    """A parser of an enum option that takes the enum's aliases too (``--format ttl``) and names
    the choices in its error, without pydantic's "Value error," in front."""

    def parse(value: Any) -> E:
        if isinstance(value, kind):
            return value
        return _enum(kind, value, option)

    return parse


def _enum(kind: type[E], value: str, option: str) -> E:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(v.value) for v in kind)
        raise typer.BadParameter(f"{value!r} is not one of {allowed}", param_hint=f"'{option}'") from None


StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store",
        envvar=DEFAULT_STORE_ENV,
        metavar="DIR",
        help=f"Store directory (default: ${DEFAULT_STORE_ENV}, else ./{DEFAULT_STORE_DIR}).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable pydantic model).")]
ViewOpt = Annotated[
    DatasetView,
    typer.Option(
        parser=_choice(DatasetView, "--view"),
        metavar=_metavar(DatasetView),
        help="Default graph of queries: the current sources' union, all graphs, or the store's own.",
    ),
]
DEFAULT_STORE = Path(DEFAULT_STORE_DIR)
#: Seconds `serve` gives requests in flight on SIGTERM/SIGINT before it stops.
SHUTDOWN_GRACE = 3


def _version(value: bool) -> None:
    if value:
        out.print(f"provgraph {__version__}", markup=False)
        raise typer.Exit


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
    version: Annotated[  # noqa: ARG001 - its callback prints and exits
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    _state["debug"] = debug


def main() -> None:
    """Console entry point."""
    args = sys.argv[1:]
    debug = "--debug" in args
    try:
        code = app(args=[a for a in args if a != "--debug"], prog_name="provgraph", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except ProvGraphError as exc:
        if debug:
            raise
        err.print(f"[bold red]error:[/] {render.escape(str(exc))}")
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # the reader went away (`provgraph export | head`): not an error of ours; keep Python
        # from complaining when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except (typer.Exit, SystemExit) as exc:
        code = exc.exit_code if isinstance(exc, typer.Exit) else exc.code
        sys.exit(code or 0)
    except typer.Abort:
        err.print("aborted")
        sys.exit(130)
    except Exception as exc:  # a usage error (typer's click exceptions can show themselves), or a bug
        show, code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        if callable(show) and isinstance(code, int):
            show()
            sys.exit(code)
        if debug:
            raise
        err.print(f"[bold red]internal error:[/] {render.escape(repr(exc))} (rerun with --debug for details)")
        sys.exit(3)


def _open(store: Path, *, read_only: bool = False, lazy_lock: bool = False, create: bool = True) -> ProvGraph:
    """The store, opened as ``ProvGraph.open`` does (imported here, not at start-up)."""
    from provgraph.graph import ProvGraph

    return ProvGraph.open(store, read_only=read_only, lazy_lock=lazy_lock, create=create)


def _print_json(value: Any, kind: type[T] | Any = None) -> None:
    if hasattr(value, "model_dump_json"):
        out.print(value.model_dump_json(indent=2), markup=False)
    else:
        from pydantic import TypeAdapter

        out.print(TypeAdapter(kind).dump_json(value, indent=2).decode(), markup=False)


# ---------------------------------------------------------------------- ingest / validate


def _split(split_graphs: str | None, graph_metadata: Path | None) -> GraphSplit | None:
    from provgraph.models import GraphSplit

    if split_graphs is None:
        if graph_metadata is not None:
            raise typer.BadParameter("--graph-metadata goes with --split-graphs")
        return None
    if split_graphs == "wikipedia":
        return GraphSplit.wikipedia_articles(graph_metadata)
    return GraphSplit(pattern=split_graphs, metadata=graph_metadata)


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    if quiet:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [
        TextColumn("{task.description:<10}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} {task.fields[unit]}"),
        TimeElapsedColumn(),
    ]
    units = {"reading": "bytes", "writing": "quads"}
    with Progress(*columns, console=err, transient=err.is_terminal) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total or None, unit=units.get(phase, ""))
            bar.update(tasks[phase], completed=done, total=total or None)

        yield update


IngestFile = Annotated[
    Path, typer.Argument(metavar="FILE", help="File to ingest (.ttl .nt .nq .trig .jsonld .rdf .trix .jsonl .txt .md).")
]
# The command line's spelling of the split option (GraphSplit, a model of its own); every other
# option of ingest and validate is a field of IngestOptions (provgraph.cli.model_flags).
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split-graphs",
        metavar="REGEX|wikipedia",
        help="Split named graphs into documents: a regex whose 'document' group names the document, "
        "or 'wikipedia' for DBpedia's <ARTICLE:property:n> graphs.",
    ),
]
MetaOpt = Annotated[
    Path | None, typer.Option("--graph-metadata", metavar="FILE", help="RDF describing the split graphs.")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


@contextlib.contextmanager
def _json_on_rejection(json: bool) -> Iterator[None]:
    """With --json, a SHACL rejection still prints its ValidationReport on stdout (exit 1)."""
    try:
        yield
    except ValidationFailedError as exc:
        if not json:
            raise
        _print_json(exc.report)
        raise typer.Exit(1) from exc


def _ingest_command(*, dry_run: bool) -> Callable[..., None]:
    """``ingest`` and ``validate`` take the same options; one function serves both. Its flags are
    the fields of IngestOptions, with the command line's own (store, split, quiet, json) around
    them."""
    from provgraph.cli.model_flags import given, model_parameters
    from provgraph.ingest.options import IngestOptions

    def command(
        file: IngestFile,
        store: StoreOpt,
        split_graphs: SplitOpt,
        graph_metadata: MetaOpt,
        quiet: QuietOpt,
        json: JsonOpt,
        **fields: Any,  # the options of IngestOptions, as __signature__ below declares them
    ) -> None:
        options = IngestOptions.model_validate(
            {**given(fields, IngestOptions), "split": _split(split_graphs, graph_metadata)}
        )
        # The write lock is taken only to write: a refused ingest, or a dry run, leaves the store's
        # files as they were; a missing store reads as empty and is created only by a write.
        with (
            _open(store, lazy_lock=True) as graph,
            _progress(quiet or json) as progress,
            _json_on_rejection(json),
        ):
            run = graph.validate if dry_run else graph.ingest
            report = run(file, options, progress=progress)
        if json:
            _print_json(report)
        elif dry_run:
            render.validation_report(out, report)
        else:
            render.ingest_report(out, report)
        if not report.validation.conforms:
            raise typer.Exit(1)

    def shell(name: str, annotation: object, default: object = inspect.Parameter.empty) -> inspect.Parameter:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)

    split = [shell("split_graphs", SplitOpt, None), shell("graph_metadata", MetaOpt, None)]
    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            shell("file", IngestFile),
            shell("store", StoreOpt, DEFAULT_STORE),
            *model_parameters(IngestOptions, instead={"split": split}),
            shell("quiet", QuietOpt, False),
            shell("json", JsonOpt, False),
        ]
    )
    return command


def _deferred(name: str, *, help: str, build: Callable[[], Callable[..., None]]) -> None:  # noqa: A002
    """Register a command whose options are made when it runs or shows its help, not when the
    command line starts: ingest's come from a pydantic model, and `provgraph --help` and every
    other command must not import pydantic (tests/test_startup.py)."""

    class Deferred(TyperCommand):
        def make_context(  # typer's click is vendored and private: its types are not named here
            self,
            info_name: str | None,
            args: list[str],
            parent: Any = None,
            **extra: Any,  # click's own signature, handed on as it is
        ) -> Any:
            made = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=False)
            made.command(name, help=help)(build())
            return typer.main.get_command(made).make_context(info_name, args, parent=parent, **extra)

    def stand_in() -> None:  # never runs: the made command's context replaces this one's
        raise AssertionError(name)

    app.command(name, cls=Deferred, help=help)(stand_in)


_deferred(
    "ingest",
    help="Ingest a document into the store. It is validated with SHACL and stored as a named graph, all or nothing.",
    build=lambda: _ingest_command(dry_run=False),
)
_deferred(
    "validate",
    help="Check a document without writing it. It is validated with SHACL and validate says what ingest "
    "would do. Exit code 0 when it conforms, 1 when it does not.",
    build=lambda: _ingest_command(dry_run=True),
)


# ---------------------------------------------------------------------- reading


@app.command()
def sources(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """List the source documents and their versions."""
    with _open(store, read_only=True) as graph:
        found = graph.sources()
    if json:
        from provgraph.models import SourceInfo

        _print_json(found, list[SourceInfo])
    else:
        render.sources(out, found)


@app.command()
def query(
    sparql: Annotated[
        str | None, typer.Argument(metavar="SPARQL", help="The SPARQL query ('-' reads standard input).")
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    file: Annotated[Path | None, typer.Option("--file", "-f", help="Read the query from a file.")] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="table, json, xml, csv, tsv (SELECT/ASK); turtle, ntriples, nquads, trig, jsonld, "
            "rdfxml (CONSTRUCT/DESCRIBE; default turtle; ttl, nt, nq also).",
        ),
    ] = "table",
    view: ViewOpt = DatasetView.CURRENT,
) -> None:
    """Run a SPARQL 1.1 query.

    Prefixes pg: pgid: prov: rdf: rdfs: xsd: dcterms: owl: skos: sh: are predeclared."""
    text = _query_text(sparql, file)
    with _open(store, read_only=True) as graph:
        result = graph.query(text, view=view)
        chosen: ResultFormat | ExportFormat
        if result.kind == "graph":
            chosen = ExportFormat.TURTLE if fmt == "table" else _enum(ExportFormat, fmt, "--format")
        else:
            chosen = _enum(ResultFormat, fmt, "--format")
        sys.stdout.flush()
        result.serialize(chosen, sys.stdout.buffer)
        sys.stdout.buffer.flush()


def _query_text(sparql: str | None, file: Path | None) -> str:
    if file is not None:
        try:
            return file.read_text("utf-8")
        except OSError as exc:
            raise typer.BadParameter(f"cannot read {file}: {exc.strerror}") from exc
    if sparql == "-":
        return sys.stdin.read()
    if not sparql:
        raise typer.BadParameter("give a query, '-' for standard input, or --file")
    return sparql


@app.command()
def evidence(
    subject: Annotated[str, typer.Option(metavar="IRI", help="Subject IRI.")],
    predicate: Annotated[str, typer.Option(metavar="IRI", help="Predicate IRI.")],
    obj: Annotated[
        str | None,
        typer.Option(
            "--object", metavar="VALUE", help="Object: an IRI, an N-Triples literal, or a plain value (any datatype)."
        ),
    ] = None,
    history: Annotated[bool, typer.Option("--history", help="Include superseded and revoked versions.")] = False,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Every statement that supports a fact, with its provenance."""
    # the write lock only if the conflict records behind the facts' status are stale: stored
    # once then, instead of computed again on every call
    with _open(store, lazy_lock=True, create=False) as graph:
        found = graph.evidence(subject, predicate, obj, include_history=history)
    if json:
        from provgraph.models import Evidence

        _print_json(found, list[Evidence])
    else:
        render.evidence(out, found, subject=subject, predicate=predicate)


@app.command()
def export(
    fmt: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            parser=_choice(ExportFormat, "--format"),
            metavar=_metavar(ExportFormat),
            help="Serialisation (ttl, nt, nq, rdf also).",
        ),
    ] = ExportFormat.TRIG,
    graph_name: Annotated[
        str | None,
        typer.Option("--graph", metavar="GRAPH", help="One graph: a graph IRI, a document key or IRI, or 'catalog'."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write to a file, not stdout.")
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Export the dataset or one graph.

    The dataset as TriG, N-Quads or JSON-LD; one graph also as Turtle, N-Triples or RDF/XML."""
    with _open(store, read_only=True) as graph:
        if output is not None:
            with output.open("wb") as f:
                graph.export(format=fmt, graph=graph_name, output=f)
        else:
            graph.export(format=fmt, graph=graph_name, output=sys.stdout.buffer)
            sys.stdout.buffer.flush()


@app.command()
def restore(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A TriG, N-Quads or JSON-LD dump made by export.")],
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Load an exported dataset into an empty store."""
    with _open(store, read_only=False) as graph:
        count = graph.restore(file)
    out.print(f"restored {count} source graph{'s' if count != 1 else ''} into {store}")


@app.command()
def revoke(
    document: Annotated[str, typer.Argument(metavar="DOCUMENT", help="Document key (id, URL or path) or IRI.")],
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Withdraw a document. Its current version is marked revoked and no longer used."""
    with _open(store, read_only=False) as graph:
        info = graph.revoke(document)
    if json:
        _print_json(info)
    else:
        out.print(f"revoked {render.escape(info.title)} ({render.escape(info.key)})")


@app.command()
def stats(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """Counts of documents, graphs, statements and quads."""
    with _open(store, read_only=True) as graph:
        found = graph.stats()
    if json:
        _print_json(found)
    else:
        for name, value in found.model_dump().items():
            out.print(f"{name.replace('_', ' ')}: {value}")


@app.command()
def serve(
    store: StoreOpt = DEFAULT_STORE,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", help="Port to listen on (0: any free port).")] = 8000,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            metavar="FILE",
            help="Read the bearer token for writes from this file (its first line). Without a token the server "
            "is read-only.",
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            metavar="TOKEN",
            show_envvar=True,
            help=f"Bearer token for writes. Prefer ${TOKEN_ENV} or --token-file: a command line is "
            "visible to every user of the machine (ps).",
        ),
    ] = None,
    read_token: Annotated[bool, typer.Option("--read-token", help="Ask for the token on reads too.")] = False,
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="Seconds a query may run.")] = 30.0,
    max_result_bytes: Annotated[
        int, typer.Option(metavar="BYTES", help="Largest response (query results, exports, graphs), in bytes.")
    ] = 200 * 1024 * 1024,
    max_upload_bytes: Annotated[
        int, typer.Option(metavar="BYTES", help="Largest request body (uploads, Graph Store writes, SPARQL), in bytes.")
    ] = 100 * 1024 * 1024,
    view: ViewOpt = DatasetView.CURRENT,
    query_workers: Annotated[
        int,
        typer.Option(
            min=0,
            metavar="N",
            help="Worker processes that run reads, killed at the deadline (0: threads in this process, which "
            "answer 503 at the deadline but finish their computation).",
        ),
    ] = 4,
    allow_service: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-service",
            metavar="URL",
            help="Let SERVICE call this endpoint (repeatable; none: federation off).",
        ),
    ] = None,
    allow_load: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-load", metavar="IRI", help="Let a SPARQL LOAD fetch this IRI (repeatable; none: LOAD off)."
        ),
    ] = None,
    generator: Annotated[
        GeneratorKind,
        typer.Option(
            parser=_choice(GeneratorKind, "--generator"),
            metavar=_metavar(GeneratorKind),
            help="Generator of POST /qa (openai: configured by $PROVGRAPH_LLM_MODEL and friends).",
        ),
    ] = GeneratorKind.EXTRACTIVE,
) -> None:
    """Serve the store over HTTP.

    SPARQL 1.1 Protocol at /sparql, Graph Store Protocol at /store, the JSON API, the query page
    at /, OpenAPI docs at /docs.

    Writes need a bearer token: give it in $PROVGRAPH_TOKEN or a file (--token-file), not with
    --token, which shows it to every user of the machine in the process list."""
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
    # Listen first: a port in use is a clear error before anything is opened or announced.
    listener = _listen(host, port)
    # A SIGTERM from here on closes the store (and removes its holder file), whenever it comes.
    # uvicorn raises the signal that stopped it again once it is done: with the default handler
    # that would end the process before the store is closed.
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        _serve(
            store,
            listener,
            secret=secret,
            read_token=read_token,
            timeout=timeout,
            max_result_bytes=max_result_bytes,
            max_upload_bytes=max_upload_bytes,
            view=view,
            query_workers=query_workers,
            allow_service=allow_service,
            allow_load=allow_load,
            generator=generator,
        )
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


def _serve(store: Path, listener: socket.socket, *, secret: str | None, **options: Any) -> None:
    import uvicorn
    from pydantic import SecretStr

    from provgraph.http import ServerSettings, create_app

    settings = ServerSettings(
        token=SecretStr(secret) if secret else None,
        read_token=options["read_token"],
        query_timeout=options["timeout"],
        max_result_bytes=options["max_result_bytes"],
        max_upload_bytes=options["max_upload_bytes"],
        query_workers=options["query_workers"],
        default_view=options["view"],
        federation=bool(options["allow_service"]),
        service_allow=tuple(options["allow_service"] or ()),
        load_allow=tuple(options["allow_load"] or ()),
        answer_generator=options["generator"],
    )
    host, port = listener.getsockname()[:2]
    where = f"[{host}]:{port}" if listener.family == socket.AF_INET6 else f"{host}:{port}"
    with _open(store, read_only=False) as graph:
        app = create_app(graph, settings)
        reader = app.state.reader

        class Server(uvicorn.Server):
            async def shutdown(self, sockets: list[Any] | None = None) -> None:
                # First of all: reads still waiting get their 503 now (their workers killed, their
                # threads abandoned), within the grace period, not cancelled with a 500 after it.
                reader.close()
                await super().shutdown(sockets)

        try:
            mode = "writes need the token" if secret else "read-only: no token"
            err.print(f"provgraph serving {store} on http://{where}/sparql ({mode})")
            # On SIGTERM/SIGINT requests get a few seconds to finish, not the query timeout: a read
            # still computing in a thread is abandoned, one in a worker process is killed.
            config = uvicorn.Config(
                app, log_level="warning", access_log=False, timeout_graceful_shutdown=SHUTDOWN_GRACE
            )
            Server(config).run(sockets=[listener])
        finally:
            reader.close()


class _Stopped(Exception):  # noqa: N818 - a signal, not an error
    pass


def _stop(_signum: int, _frame: object) -> None:
    raise _Stopped


@app.command()
def demo(
    store: Annotated[
        Path | None, typer.Option("--store", metavar="DIR", help="Keep the demo store here (default: in memory).")
    ] = None,
) -> None:
    """A short tour on the bundled data.

    Ingest, sources, evidence, SPARQL, conflicts, a grounded answer."""
    from provgraph.cli.demo import run_demo
    from provgraph.graph import ProvGraph

    graph = ProvGraph.open(store) if store is not None else ProvGraph.memory()
    with graph:
        run_demo(graph, out)
