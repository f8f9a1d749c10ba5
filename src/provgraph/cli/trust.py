"""Commands of the trust layer: ``provgraph ontology add FILE`` and ``provgraph conflicts``.
Registered on the main app by :mod:`provgraph.cli.app`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from provgraph.cli import render
from provgraph.cli.common import DEFAULT_STORE, JsonOpt, StoreOpt, choice, metavar, open_store, out, print_json
from provgraph.options import ResolutionStrategy

if TYPE_CHECKING:
    from rich.console import Console

    from provgraph import Conflict

ontology_app = typer.Typer(
    name="ontology",
    help="What your predicates mean. OWL/RDFS ontologies, policy files and SHACL shapes in the ontology graph.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@ontology_app.command("add")
def ontology_add(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="An RDF file: OWL/RDFS ontology, policy file or SHACL shapes.")
    ],
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Add an ontology or a policy file.

    It goes to the ontology graph, not to the sources."""
    with open_store(store, lazy_lock=True) as graph:
        triples = graph.add_ontology(file)
    out.print(f"{render.escape(str(file))}: {triples} triples added to the ontology graph")


def conflicts(
    strategy: Annotated[
        ResolutionStrategy | None,
        typer.Option(
            parser=choice(ResolutionStrategy, "--strategy"),
            metavar=metavar(ResolutionStrategy),
            help="Rank values by this strategy.",
        ),
    ] = None,
    subject: Annotated[str | None, typer.Option(metavar="IRI", help="Only conflicts about this entity (IRI).")] = None,
    predicate: Annotated[
        str | None, typer.Option(metavar="IRI", help="Only conflicts of this predicate (IRI).")
    ] = None,
    detect: Annotated[
        bool, typer.Option("--detect", help="Run detection now and record the resolution (with --strategy).")
    ] = False,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Where current sources disagree.

    Every value with its sources, the preferred one and why."""
    # the write lock is taken only if something gets written (records of a fresh detection run)
    with open_store(store, lazy_lock=True, create=False) as graph:
        if detect:
            graph.detect_conflicts(strategy=strategy)
        found = graph.conflicts(subject=subject, predicate=predicate, strategy=strategy)
    if json:
        from provgraph import Conflict

        print_json(found, list[Conflict])
    else:
        show(found)


def _short(term: str, width: int = 60) -> str:
    text = term
    if term.startswith("<") and term.endswith(">"):
        text = term[1:-1]
    elif term.startswith('"'):
        text = term[1 : term.rfind('"')]
    return text if len(text) <= width else text[: width - 1] + "…"


def show(found: list[Conflict], console: Console = out) -> None:
    from rich.table import Table

    if not found:
        console.print("no conflicts across current sources")
        return
    console.print(f"{len(found)} conflict{'s' if len(found) != 1 else ''} across current sources")
    for c in found:
        merged = f" (= {', '.join(c.merged_subjects)})" if c.merged_subjects else ""
        console.print()
        console.print(
            f"[bold]{render.escape(c.subject)}[/]{render.escape(merged)}  "
            f"{render.escape(' / '.join(c.predicates))}  [dim]{c.kind.value}[/]"
        )
        table = Table("value", "outcome", "sources", "conf.", "score")
        for v in c.values:
            table.add_row(
                render.escape(_short(v.value)),
                v.outcome.value,
                render.escape(", ".join(v.sources)),
                f"{v.confidence:.2f}",
                "" if v.score is None else f"{v.score:.3g}",
            )
        console.print(table)
        console.print(f"  {render.escape(c.resolution.rationale)}")


__all__ = ["conflicts", "ontology_add", "ontology_app", "show"]
