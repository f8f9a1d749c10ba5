"""Inference chains: paths ``subject p1 x1 p2 x2 ... pn object`` through the current sources, each
hop with its provenance and its fact's aggregated confidence (:mod:`.annotate`), a chain as
strong as its weakest hop or the product of its hops (:class:`~provgraph.trust.models.ChainMode`).
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

from provgraph.evidence import find
from provgraph.store import catalog
from provgraph.store import view as current_view
from provgraph.store.base import Backend
from provgraph.store.terms import GraphName, NamedNode, sparql_term
from provgraph.trust.annotate import annotate
from provgraph.trust.confidence import chain_confidence
from provgraph.trust.models import ChainMode, ChainReport, ChainStep
from provgraph.vocab import CURRENT_VIEW

#: The paths of a chain: $variables its unknown nodes (``*``: none), $hops its triple patterns,
#: $iris a filter keeping each unknown node an IRI. Over the current sources' default graph.
PATHS = Template("SELECT DISTINCT $variables WHERE { $hops $iris } LIMIT $limit")


def chains(
    backend: Backend,
    subject: str,
    predicates: Sequence[str],
    *,
    obj: str | None = None,
    mode: ChainMode = ChainMode.WEAKEST,
    limit: int = 100,
) -> list[ChainReport]:
    """Paths ``subject p1 x1 p2 x2 ... pn obj`` through the current sources, each hop with its
    provenance and aggregated confidence, the chain bounded by its weakest link or the product."""
    if not predicates:
        raise ValueError("a chain has at least one predicate")
    chain_confidence([1.0], mode=mode)  # reject a bad mode before querying
    reports = []
    for nodes in _paths(backend, subject, predicates, obj=obj, limit=limit):
        steps = [_step(backend, nodes[i], p, nodes[i + 1]) for i, p in enumerate(predicates)]
        reports.append(
            ChainReport(
                subject=subject,
                object=nodes[-1],
                steps=steps,
                mode=mode,
                confidence=chain_confidence([s.confidence for s in steps], mode=mode),
            )
        )
    return sorted(reports, key=lambda r: (-r.confidence, r.object))


def _paths(
    backend: Backend, subject: str, predicates: Sequence[str], *, obj: str | None, limit: int
) -> list[list[str]]:
    """The nodes (IRIs) of each path from ``subject`` along ``predicates`` (to ``obj``)."""
    unknown = [f"x{i}" for i in range(1, len(predicates) + (0 if obj is not None else 1))]
    # the unknown nodes as variables (their names are made here), the known ones as terms
    nodes = [sparql_term(subject), *("?" + v for v in unknown), *([sparql_term(obj)] if obj is not None else [])]
    query = PATHS.substitute(
        variables=" ".join("?" + v for v in unknown) or "*",
        hops=" . ".join(nodes[i] + " " + sparql_term(p) + " " + nodes[i + 1] for i, p in enumerate(predicates)),
        iris=" ".join("FILTER(isIRI(?" + v + "))" for v in unknown),
        limit=str(int(limit)),
    )
    # the current sources: their view graph where the store keeps one, else the list of them
    graphs: list[GraphName] = (
        [CURRENT_VIEW] if current_view.is_maintained(backend) else [*catalog.current_graphs(backend)]
    )
    last = [obj] if obj is not None else []
    return [[subject, *(row.value(v) for v in unknown), *last] for row in backend.select(query, default_graph=graphs)]


def _step(backend: Backend, subject: str, predicate: str, obj: str) -> ChainStep:
    """One hop, with its fact's aggregated confidence and the sources and statements stating it."""
    stated = find(backend, NamedNode(subject), NamedNode(predicate), NamedNode(obj), include_history=False)
    hop = annotate(backend, stated)
    return ChainStep(
        subject=subject,
        predicate=predicate,
        object=obj,
        confidence=(hop[0].fact_confidence or 0.0) if hop else 0.0,
        sources=sorted({e.document_key for e in hop}),
        statements=sorted({e.statement for e in hop}),
    )


__all__ = ["chains"]
