"""Commands. Each parses its arguments, calls the API, and prints the result (readable, or the
documented pydantic model with ``--json``)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import SecretStr, TypeAdapter
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from provgraph.answer.models import GeneratorKind
from provgraph.cli import render
from provgraph.errors import ProvGraphError, ValidationFailedError
from provgraph.graph import DEFAULT_STORE_DIR, DEFAULT_STORE_ENV, ProvGraph
from provgraph.models import (
    DatasetView,
    Evidence,
    ExportFormat,
    ExtractionMethod,
    GraphSplit,
    InputFormat,
    ResultFormat,
    SourceInfo,
)

app = typer.Typer(
    name="provgraph",
    help="An RDF named-graph provenance store: every source document a SHACL-validated named graph "
    "of reified, PROV-O annotated statements.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)

_state: dict[str, bool] = {"debug": False}

StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store",
        envvar=DEFAULT_STORE_ENV,
        help=f"Store directory (default: ${DEFAULT_STORE_ENV}, else ./{DEFAULT_STORE_DIR}).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable pydantic model).")]
DEFAULT_STORE = Path(DEFAULT_STORE_DIR)
#: Seconds `serve` gives requests in flight on SIGTERM/SIGINT before it stops.
SHUTDOWN_GRACE = 3

T = TypeVar("T")


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks of errors.")] = False,
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


@contextlib.contextmanager
def _open(store: Path, *, read_only: bool) -> Iterator[ProvGraph]:
    graph = ProvGraph.open(store, read_only=read_only)
    try:
        yield graph
    finally:
        graph.close()


def _print_json(value: Any, kind: type[T] | Any = None) -> None:
    if hasattr(value, "model_dump_json"):
        out.print(value.model_dump_json(indent=2), markup=False)
    else:
        out.print(TypeAdapter(kind).dump_json(value, indent=2).decode(), markup=False)


# ---------------------------------------------------------------------- ingest / validate


def _split(split_graphs: str | None, graph_metadata: Path | None) -> GraphSplit | None:
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
    Path, typer.Argument(help="File to ingest (.ttl .nt .nq .trig .jsonld .rdf .trix .jsonl .txt .md).")
]
TitleOpt = Annotated[str | None, typer.Option(help="Document title (default: the file name).")]
UrlOpt = Annotated[str | None, typer.Option(help="Where the document can be read; its identity unless --id.")]
IssuedOpt = Annotated[str | None, typer.Option(help="Publication date: 2024-03-01, 2024-03, 2024 or a date-time.")]
TierOpt = Annotated[int, typer.Option(min=1, max=5, help="Source tier, 1 (curated) to 5 (unverified).")]
PublisherOpt = Annotated[str | None, typer.Option(help="Publisher (an IRI or a name).")]
IdOpt = Annotated[str | None, typer.Option("--id", help="Document identity (default: --url, else the file path).")]
FormatOpt = Annotated[InputFormat | None, typer.Option("--format", help="Input format (default: from the extension).")]
MethodOpt = Annotated[ExtractionMethod | None, typer.Option(help="Extraction method (default: source_data).")]
ConfidenceOpt = Annotated[float | None, typer.Option(min=0.0, max=1.0, help="Default statement confidence.")]
BaseOpt = Annotated[str | None, typer.Option(help="Base IRI to resolve relative IRIs against.")]
ShapesOpt = Annotated[list[Path] | None, typer.Option("--shapes", help="Extra SHACL shapes (repeatable).")]
SplitOpt = Annotated[
    str | None,
    typer.Option(
        "--split-graphs",
        help="Split named graphs into documents: a regex whose 'document' group names the document, "
        "or 'wikipedia' for DBpedia's <ARTICLE:property:n> graphs.",
    ),
]
MetaOpt = Annotated[Path | None, typer.Option("--graph-metadata", help="RDF describing the split graphs.")]
AgentOpt = Annotated[str | None, typer.Option(help="IRI of the person or pipeline ingesting.")]
ReviewerOpt = Annotated[str | None, typer.Option(help="IRI of the reviewer of every statement.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
LenientOpt = Annotated[
    bool,
    typer.Option(
        "--lenient",
        help='Keep literals that do not match their datatype ("abc"^^xsd:integer), counted, instead of refusing.',
    ),
]


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
    """``ingest`` and ``validate`` take the same options; one function serves both."""

    def command(
        file: IngestFile,
        store: StoreOpt = DEFAULT_STORE,
        title: TitleOpt = None,
        url: UrlOpt = None,
        issued: IssuedOpt = None,
        tier: TierOpt = 3,
        publisher: PublisherOpt = None,
        id: IdOpt = None,  # noqa: A002
        fmt: FormatOpt = None,
        method: MethodOpt = None,
        confidence: ConfidenceOpt = None,
        base: BaseOpt = None,
        shapes: ShapesOpt = None,
        split_graphs: SplitOpt = None,
        graph_metadata: MetaOpt = None,
        agent: AgentOpt = None,
        reviewer: ReviewerOpt = None,
        lenient: LenientOpt = False,
        quiet: QuietOpt = False,
        json: JsonOpt = False,
    ) -> None:
        split = _split(split_graphs, graph_metadata)
        # The write lock is taken only to write: a refused ingest, or a dry run, leaves the store's
        # files as they were; a missing store reads as empty and is created only by a write.
        with (
            ProvGraph.open(store, lazy_lock=True) as graph,
            _progress(quiet or json) as progress,
            _json_on_rejection(json),
        ):
            run = graph.validate if dry_run else graph.ingest
            report = run(
                file,
                title=title,
                url=url,
                issued=issued,
                tier=tier,
                publisher=publisher,
                id=id,
                format=fmt,
                method=method,
                confidence=confidence,
                base=base,
                shapes=shapes or (),
                split=split,
                agent=agent,
                reviewer=reviewer,
                lenient=lenient,
                progress=progress,
            )
        if json:
            _print_json(report)
        elif dry_run:
            render.validation_report(out, report)
        else:
            render.ingest_report(out, report)
        if not report.validation.conforms:
            raise typer.Exit(1)

    return command


app.command(
    "ingest",
    help="Ingest a document: validate it with SHACL and store it as a named graph (all or nothing).",
)(_ingest_command(dry_run=False))
app.command(
    "validate",
    help="Dry run: validate a document with SHACL and say what ingest would do. Nothing is written. "
    "Exit code 0 when it conforms, 1 when it does not.",
)(_ingest_command(dry_run=True))


# ---------------------------------------------------------------------- reading


@app.command()
def sources(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """List the source documents and their versions."""
    with _open(store, read_only=True) as graph:
        found = graph.sources()
    if json:
        _print_json(found, list[SourceInfo])
    else:
        render.sources(out, found)


@app.command()
def query(
    sparql: Annotated[str | None, typer.Argument(help="The SPARQL query ('-' reads standard input).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    file: Annotated[Path | None, typer.Option("--file", "-f", help="Read the query from a file.")] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="table, json, xml, csv, tsv (SELECT/ASK); turtle, ntriples, nquads, trig, jsonld, "
            "rdfxml (CONSTRUCT/DESCRIBE; default turtle).",
        ),
    ] = "table",
    view: Annotated[
        DatasetView, typer.Option(help="Default graph: current sources' union, all graphs, or the store's own.")
    ] = DatasetView.CURRENT,
) -> None:
    """Run a SPARQL 1.1 query. Prefixes pg: pgid: prov: rdf: rdfs: xsd: dcterms: owl: skos: sh: are predeclared."""
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


def _enum(kind: type[T], value: str, option: str) -> T:
    try:
        return kind(value)  # type: ignore[call-arg]
    except ValueError:
        allowed = ", ".join(v.value for v in kind)  # type: ignore[attr-defined]
        raise typer.BadParameter(f"{value!r} is not one of {allowed}", param_hint=option) from None


@app.command()
def evidence(
    subject: Annotated[str, typer.Option(help="Subject IRI.")],
    predicate: Annotated[str, typer.Option(help="Predicate IRI.")],
    obj: Annotated[
        str | None,
        typer.Option("--object", help="Object: an IRI, an N-Triples literal, or a plain value (any datatype)."),
    ] = None,
    history: Annotated[bool, typer.Option("--history", help="Include superseded and revoked versions.")] = False,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Every statement across sources that supports a fact, with its provenance."""
    # the write lock only if the conflict records behind the facts' status are stale: stored
    # once then, instead of computed again on every call
    with ProvGraph.open(store, lazy_lock=True) as graph:
        found = graph.evidence(subject, predicate, obj, include_history=history)
    if json:
        _print_json(found, list[Evidence])
    else:
        render.evidence(out, found, subject=subject, predicate=predicate)


@app.command()
def export(
    fmt: Annotated[ExportFormat, typer.Option("--format", help="Serialisation.")] = ExportFormat.TRIG,
    graph_name: Annotated[
        str | None,
        typer.Option("--graph", help="One graph: a graph IRI, a document key or IRI, or 'catalog'."),
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to a file, not stdout.")] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Export the dataset (TriG, N-Quads, JSON-LD) or one graph (also Turtle, N-Triples, RDF/XML)."""
    with _open(store, read_only=True) as graph:
        if output is not None:
            with output.open("wb") as f:
                graph.export(format=fmt, graph=graph_name, output=f)
        else:
            graph.export(format=fmt, graph=graph_name, output=sys.stdout.buffer)
            sys.stdout.buffer.flush()


@app.command()
def restore(
    file: Annotated[Path, typer.Argument(help="A TriG, N-Quads or JSON-LD dump made by export.")],
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Load an exported dataset into an empty store."""
    with _open(store, read_only=False) as graph:
        count = graph.restore(file)
    out.print(f"restored {count} source graph{'s' if count != 1 else ''} into {store}")


@app.command()
def revoke(
    document: Annotated[str, typer.Argument(help="Document key (id, URL or path) or IRI.")],
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Withdraw a document: its current version is marked revoked and no longer used."""
    with _open(store, read_only=False) as graph:
        info = graph.revoke(document)
    if json:
        _print_json(info)
    else:
        out.print(f"revoked {render.escape(info.title)} ({info.key})")


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
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(envvar="PROVGRAPH_TOKEN", help="Bearer token for writes (none: the server is read-only)."),
    ] = None,
    read_token: Annotated[bool, typer.Option("--read-token", help="Ask for the token on reads too.")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds a query may run.")] = 30.0,
    max_result_bytes: Annotated[
        int, typer.Option(help="Largest response (query results, exports, graphs), in bytes.")
    ] = 200 * 1024 * 1024,
    max_upload_bytes: Annotated[
        int, typer.Option(help="Largest request body (uploads, Graph Store writes, SPARQL), in bytes.")
    ] = 100 * 1024 * 1024,
    view: Annotated[DatasetView, typer.Option(help="Default graph of queries.")] = DatasetView.CURRENT,
    query_workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Worker processes that run reads, killed at the deadline (0: threads in this process, which "
            "answer 503 at the deadline but finish their computation).",
        ),
    ] = 2,
    allow_service: Annotated[
        list[str] | None,
        typer.Option("--allow-service", help="Let SERVICE call this endpoint (repeatable; none: federation off)."),
    ] = None,
    allow_load: Annotated[
        list[str] | None,
        typer.Option("--allow-load", help="Let a SPARQL LOAD fetch this IRI (repeatable; none: LOAD off)."),
    ] = None,
    generator: Annotated[
        GeneratorKind,
        typer.Option(help="Generator of POST /qa (openai: configured by $PROVGRAPH_LLM_MODEL and friends)."),
    ] = GeneratorKind.EXTRACTIVE,
) -> None:
    """Serve the store over HTTP: SPARQL 1.1 Protocol at /sparql, Graph Store Protocol at /store,
    the JSON API, the query page at /, OpenAPI docs at /docs."""
    import uvicorn

    from provgraph.http import ServerSettings, create_app

    if read_token and token is None:
        raise typer.BadParameter("--read-token needs --token")
    settings = ServerSettings(
        token=SecretStr(token) if token else None,
        read_token=read_token,
        query_timeout=timeout,
        max_result_bytes=max_result_bytes,
        max_upload_bytes=max_upload_bytes,
        query_workers=query_workers,
        default_view=view,
        federation=bool(allow_service),
        service_allow=tuple(allow_service or ()),
        load_allow=tuple(allow_load or ()),
        answer_generator=generator,
    )
    with _open(store, read_only=False) as graph:
        mode = "writes need the token" if token else "read-only: no --token"
        err.print(f"provgraph serving {store} on http://{host}:{port}/sparql ({mode})")
        app = create_app(graph, settings)
        reader = app.state.reader

        class Server(uvicorn.Server):
            async def shutdown(self, sockets: list[Any] | None = None) -> None:
                # First of all: reads still waiting get their 503 now (their workers killed, their
                # threads abandoned), within the grace period, not cancelled with a 500 after it.
                reader.close()
                await super().shutdown(sockets)

        # uvicorn raises the signal that stopped it again once it is done: with the default
        # SIGTERM handler that would end the process before the store is closed.
        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            # On SIGTERM/SIGINT requests get a few seconds to finish, not the query timeout: a read
            # still computing in a thread is abandoned, one in a worker process is killed.
            config = uvicorn.Config(
                app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=SHUTDOWN_GRACE
            )
            Server(config).run()
        except (_Stopped, KeyboardInterrupt):
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            reader.close()
    # The store is closed (flushed, holder file removed). A thread still in a query cannot be
    # stopped, and the interpreter's exit could wait on it or tear the store down under it: leave.
    if threading.active_count() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


class _Stopped(Exception):  # noqa: N818 - a signal, not an error
    pass


def _stop(_signum: int, _frame: object) -> None:
    raise _Stopped


@app.command()
def demo(
    store: Annotated[
        Path | None, typer.Option("--store", help="Keep the demo store here (default: in memory).")
    ] = None,
) -> None:
    """A short tour on the bundled data: ingest, sources, evidence, SPARQL, conflicts, a grounded answer."""
    from provgraph.cli.demo import run_demo

    graph = ProvGraph.open(store) if store is not None else ProvGraph.memory()
    with graph:
        run_demo(graph, out)
