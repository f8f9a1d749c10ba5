"""``provgraph related DOC``: the documents related to one document (citations, mentions, shared
entities), strongest first. Registered on the main app by :mod:`provgraph.cli.app`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from provgraph.cli import render
from provgraph.cli.common import DEFAULT_STORE, JsonOpt, StoreOpt, open_store, out, print_json

if TYPE_CHECKING:
    from provgraph import DocumentRelation


def related(
    document: Annotated[
        str, typer.Argument(metavar="DOCUMENT", help="The document: its key (--id, URL or path) or IRI.")
    ],
    min_strength: Annotated[
        float,
        typer.Option("--min-strength", min=0.0, max=1.0, metavar="0-1", help="Only relations at least this strong."),
    ] = 0.0,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Documents related to DOCUMENT, strongest first.

    Citations, mentions of its title, identifier or URL, shared entities."""
    # Opened lazily: the write lock is taken only when stale relations get recomputed and stored,
    # and a store a server holds is still answered (computed without storing).
    graph = open_store(store, lazy_lock=True, create=False)
    try:
        iri = graph.source(document).document
        found = graph.related_documents(document, min_strength=min_strength)
    finally:
        graph.close()
    if json:
        from provgraph import DocumentRelation

        print_json(found, list[DocumentRelation])
    else:
        show(iri, found)


def show(document: str, found: list[DocumentRelation]) -> None:
    if not found:
        out.print("no related documents")
        return
    rows = []
    for r in found:
        outgoing = r.from_document == document
        title, key = (r.to_title, r.to_key) if outgoing else (r.from_title, r.from_key)
        # out: DOCUMENT cites or mentions it; in: it cites or mentions DOCUMENT; both: mutual or shared only
        direction = ("out" if outgoing else "in") if r.directed else "both"
        kinds = ", ".join(f"{t.value} {r.counts[t]}" for t in r.types)
        rows.append([key, r.type.value, f"{r.strength:.2f}", direction, kinds, title])
    # keys whole (a user copies them into related, revoke and ask --document): no box, no cut
    render.columns(out, ["key", "type", "strength", "direction", "evidence", "related document"], rows)


__all__ = ["related", "show"]
