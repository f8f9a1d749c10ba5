"""``provgraph related DOC``: the documents related to one document (citations, mentions, shared
entities), strongest first. Registered on the main app by importing this module."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from provgraph.cli import render
from provgraph.cli.app import DEFAULT_STORE, JsonOpt, StoreOpt, _print_json, app, out
from provgraph.graph import ProvGraph
from provgraph.trust.relation_models import DocumentRelation


@app.command()
def related(
    document: Annotated[str, typer.Argument(help="The document: its key (--id, URL or path) or IRI.")],
    min_strength: Annotated[
        float, typer.Option("--min-strength", min=0.0, max=1.0, help="Only relations at least this strong.")
    ] = 0.0,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Documents related to DOCUMENT: citations, mentions of its title, identifier or URL, shared entities."""
    # Opened lazily: the write lock is taken only when stale relations get recomputed and stored,
    # and a store a server holds is still answered (computed without storing).
    graph = ProvGraph.open(store, lazy_lock=True)
    try:
        iri = graph.source(document).document
        found = graph.related_documents(document, min_strength=min_strength)
    finally:
        graph.close()
    if json:
        _print_json(found, list[DocumentRelation])
    else:
        show(iri, found)


def show(document: str, found: list[DocumentRelation]) -> None:
    if not found:
        out.print("no related documents")
        return
    table = Table("related document", "key", "type", "strength", "direction", "evidence")
    for r in found:
        outgoing = r.from_document == document
        title, key = (r.to_title, r.to_key) if outgoing else (r.from_title, r.from_key)
        # out: DOCUMENT cites or mentions it; in: it cites or mentions DOCUMENT; both: mutual or shared only
        direction = ("out" if outgoing else "in") if r.directed else "both"
        kinds = ", ".join(f"{t.value} {r.counts[t]}" for t in r.types)
        table.add_row(render.escape(title), render.escape(key), r.type.value, f"{r.strength:.2f}", direction, kinds)
    out.print(table)


__all__ = ["related", "show"]
