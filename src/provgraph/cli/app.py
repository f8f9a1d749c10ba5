"""Commands. Each parses its arguments, calls the API, and prints the result (readable, or the
documented pydantic model with ``--json``)."""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from provgraph._version import __version__
from provgraph.cli import answer, relations, render, server, trust
from provgraph.cli.common import (
    DEFAULT_STORE,
    JsonOpt,
    StoreOpt,
    ViewOpt,
    err,
    metavar,
    open_store,
    out,
    parse_enum,
    print_json,
)
from provgraph.errors import ProvGraphError, ValidationFailedError
from provgraph.options import (
    DatasetView,
    ExportFormat,
    ProvFormat,
    ResultFormat,
)

if TYPE_CHECKING:
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
_state: dict[str, bool] = {"debug": False}


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
    Path,
    typer.Argument(
        metavar="FILE", help="File to ingest (.ttl .nt .nq .trig .jsonld .rdf .trix .jsonl .txt .md .html .pdf)."
    ),
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
        print_json(exc.report)
        raise typer.Exit(1) from exc


def _ingest_command(*, dry_run: bool) -> Callable[..., None]:
    """``ingest`` and ``validate`` take the same options; one function serves both. Its flags are
    the fields of IngestOptions, with the command line's own (store, split, quiet, json) around
    them."""
    from provgraph import IngestOptions
    from provgraph.cli.model_flags import given, model_parameters

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
            open_store(store, lazy_lock=True) as graph,
            _progress(quiet or json) as progress,
            _json_on_rejection(json),
        ):
            run = graph.validate if dry_run else graph.ingest
            report = run(file, options, progress=progress)
        if json:
            print_json(report)
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
    with open_store(store, read_only=True) as graph:
        found = graph.sources()
    if json:
        from provgraph.models import SourceInfo

        print_json(found, list[SourceInfo])
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
    with open_store(store, read_only=True) as graph:
        result = graph.query(text, view=view)
        chosen: ResultFormat | ExportFormat
        if result.kind == "graph":
            chosen = ExportFormat.TURTLE if fmt == "table" else parse_enum(ExportFormat, fmt, "--format")
        else:
            chosen = parse_enum(ResultFormat, fmt, "--format")
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
    with open_store(store, lazy_lock=True, create=False) as graph:
        found = graph.evidence(subject, predicate, obj, include_history=history)
        names = graph.names(subject) if not json and subject.startswith("http") else []
    if json:
        from provgraph.models import Evidence

        print_json(found, list[Evidence])
    else:
        render.evidence(out, found, subject=subject, predicate=predicate, names=names)


@app.command()
def export(
    fmt: Annotated[
        str,  # an ExportFormat or a ProvFormat (Typer takes no union type)
        typer.Option(
            "--format",
            metavar=metavar(ExportFormat)[:-1] + "|" + metavar(ProvFormat)[1:-1] + f"|{NANOPUB}]",
            help="Serialisation (ttl, nt, nq, rdf also); provn, provjson, provxml, dot, svg: provenance; "
            "nanopub: nanopublications (TriG).",
        ),
    ] = ExportFormat.TRIG.value,
    graph_name: Annotated[
        str | None,
        typer.Option("--graph", metavar="GRAPH", help="One graph: a graph IRI, a document key or IRI, or 'catalog'."),
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option("--answer", metavar="ID", help="With a PROV format: a recorded answer's provenance."),
    ] = None,
    fact: Annotated[
        tuple[str, str, str] | None,
        typer.Option(
            "--fact", metavar="S P O", help="With a PROV format or nanopub: a fact's provenance in every source."
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write to a file, not stdout.")
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Export the dataset, one graph, or the provenance of a source, a fact or an answer.

    The dataset as TriG, N-Quads or JSON-LD; one graph also as Turtle, N-Triples or RDF/XML; the
    provenance of one source (--graph KEY), fact (--fact S P O) or answer (--answer ID) as PROV-N,
    PROV-JSON, PROV-XML, or a picture (Graphviz DOT, or SVG, drawn by Graphviz's dot); a source
    or a fact as nanopublications (those it was read from as published, others new and trusty)."""
    if fmt == NANOPUB:
        _export_nanopubs(graph_name, answer, fact, output, store)
        return
    chosen = _export_format(fmt)
    if isinstance(chosen, ProvFormat) and sum(x is not None for x in (graph_name, answer, fact)) != 1:
        raise typer.BadParameter(
            f"{chosen.value} is the provenance of one source, fact or answer: give --graph KEY, --fact S P O "
            "or --answer ID",
            param_hint="'--graph'",
        )
    if (answer is not None or fact is not None) and not isinstance(chosen, ProvFormat):
        raise typer.BadParameter("--answer and --fact go with a PROV format (provn, provjson, provxml, dot, svg)")
    with open_store(store, read_only=True) as graph:
        if isinstance(chosen, ProvFormat):
            _write(graph.export_prov(graph_name, answer=answer, fact=fact, format=chosen), output)
            return
        if output is not None:
            with output.open("wb") as f:
                graph.export(format=chosen, graph=graph_name, output=f)
        else:
            graph.export(format=chosen, graph=graph_name, output=sys.stdout.buffer)
            sys.stdout.buffer.flush()


#: ``export --format`` of nanopublications.
NANOPUB = "nanopub"


def _export_nanopubs(
    graph_name: str | None, answer: str | None, fact: tuple[str, str, str] | None, output: Path | None, store: str
) -> None:
    if answer is not None or (graph_name is None) == (fact is None):
        raise typer.BadParameter(
            "nanopub is a source or a fact as nanopublications: give --graph KEY or --fact S P O",
            param_hint="'--graph'",
        )
    with open_store(store, read_only=True) as graph:
        _write(graph.export_nanopubs(graph_name, fact=fact), output)


def _write(data: bytes, output: Path | None) -> None:
    """An export built whole: to ``output``, else to stdout."""
    if output is not None:
        output.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def _export_format(value: str) -> ExportFormat | ProvFormat:
    """An RDF serialisation (with its aliases) or a PROV format, or the usage error naming both."""
    try:
        return ExportFormat(str(value))
    except ValueError:
        pass
    try:
        return ProvFormat(str(value))
    except ValueError:
        allowed = ", ".join([*(f.value for f in ExportFormat), *(f.value for f in ProvFormat), NANOPUB])
        raise typer.BadParameter(f"{value!r} is not one of {allowed}", param_hint="'--format'") from None


@app.command()
def restore(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A TriG, N-Quads or JSON-LD dump made by export.")],
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Load an exported dataset into an empty store."""
    with open_store(store, read_only=False) as graph:
        count = graph.restore(file)
    out.print(f"restored {count} source graph{'s' if count != 1 else ''} into {store}")


@app.command()
def optimize(store: StoreOpt = DEFAULT_STORE) -> None:
    """Compact the store's files now (after a large ingest; see ProvGraph.optimize)."""
    with open_store(store, read_only=False, create=False) as graph:
        graph.optimize()
        on_disk = graph.backend.location is not None
    out.print(f"compacted {store}" if on_disk else f"{store} keeps its own storage: nothing to compact")


@app.command()
def revoke(
    reason: Annotated[str, typer.Option(metavar="TEXT", help="Why it is withdrawn (kept in the tombstone).")],
    document: Annotated[
        str | None, typer.Argument(metavar="[DOCUMENT]", help="Document key (id, URL or path) or IRI.")
    ] = None,
    statement: Annotated[
        str | None,
        typer.Option(metavar="IRI", help="Revoke this one statement of a current source instead of a document."),
    ] = None,
    segment: Annotated[
        str | None,
        typer.Option(
            metavar="ID", help="Revoke this context segment of recorded answers (an id or prefix, as replay shows it)."
        ),
    ] = None,
    by: Annotated[
        str | None, typer.Option(metavar="NAME", help="Who withdraws it (default: the user running the command).")
    ] = None,
    confirm: Annotated[
        bool, typer.Option("--confirm", help="Go ahead even if it invalidates more than --max-invalidated answers.")
    ] = False,
    max_invalidated: Annotated[
        int, typer.Option(min=0, metavar="N", help="Invalidating more recorded answers than this needs --confirm.")
    ] = 100,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Withdraw a document, a statement or a context segment, and every recorded answer built from it.

    A document's current version is marked revoked and no longer used. A statement (--statement)
    is left out of evidence, answers and conflicts while its source stays current. A segment
    (--segment) invalidates the answers that were shown it, and its evidence item is not
    retrieved again. A tombstone records who, when and why. Recorded answers built from what was
    revoked, and answers derived from those, are marked invalid (provgraph answers
    --invalidated); nothing is deleted."""
    given = (("DOCUMENT", document), ("--statement", statement), ("--segment", segment))
    chosen = [name for name, value in given if value]
    if len(chosen) != 1:
        extra = f", not {' and '.join(chosen)}" if chosen else ""
        raise typer.BadParameter(f"give one of DOCUMENT, --statement IRI or --segment ID{extra}")
    with open_store(store, read_only=False) as graph:
        how = graph.revoke_statement if statement else graph.revoke_segment if segment else graph.revoke
        done = how(
            statement or segment or document or "",
            reason=reason,
            by=by,
            confirm=confirm,
            max_invalidated=max_invalidated,
        )
    if json:
        print_json(done)
        return
    info = done.source
    if done.target == "document" and info is not None:
        what = f"{render.escape(info.title)} ({render.escape(info.key)})"
    elif done.target == "statement" and info is not None:
        what = f"statement {render.escape(done.revoked)} of {render.escape(info.title)} ({render.escape(info.key)})"
    else:
        what = f"segment {done.revoked.rsplit('/', 1)[1][:16]}"
        if done.evidence:
            what += f" (evidence {done.evidence}, no longer retrieved)"
    out.print(f"revoked {what}: {render.escape(done.reason)}", highlight=False)
    out.print(f"{len(done.invalidated)} recorded answer(s) invalidated", highlight=False)
    for item in done.invalidated:
        out.print(f"- {item.answer[:16]} via {render.escape(render.path(item.path))}", highlight=False)


@app.command()
def stats(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """Counts of documents, graphs, statements and quads."""
    with open_store(store, read_only=True) as graph:
        found = graph.stats()
    if json:
        print_json(found)
    else:
        for name, value in found.model_dump().items():
            out.print(f"{name.replace('_', ' ')}: {value}")


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


# ---------------------------------------------------------------------- registration

# Registered here, in one place, in the order of `provgraph --help`: importing a command module
# adds nothing to the app.
app.command()(server.serve)
app.command()(demo)
app.command()(answer.ask)
app.command()(answer.answers)
app.command("answer")(answer.answer)
app.command()(answer.audit)
app.command()(answer.replay)
app.command("eval")(answer.evaluate)
app.command()(relations.related)
app.command()(trust.conflicts)
app.add_typer(trust.ontology_app, name="ontology")
app.add_typer(answer.policy_app, name="policy")
