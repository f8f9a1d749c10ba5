"""``GET /conflicts``: where current sources disagree, as :class:`~provgraph.trust.models.Conflict`
models. The handler calls ``ProvGraph.conflicts``; every rule lives in the core."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from provgraph.graph import ProvGraph
from provgraph.http.auth import require
from provgraph.http.settings import ServerSettings
from provgraph.trust.models import Conflict, ResolutionStrategy


def trust_router(pg: ProvGraph, settings: ServerSettings) -> APIRouter:
    """``/conflicts`` over ``pg``."""
    router = APIRouter(tags=["Trust"])

    @router.get(
        "/conflicts",
        summary="Conflicts across current sources, with every value, the preferred one and why",
        description="Functional predicates with different values for one entity, disjoint predicates on the same "
        "subject and object, numbers beyond their tolerance (as the ontology graph declares them). Detection "
        "runs first when sources changed since the last run. `strategy` ranks the values by another strategy "
        "for this answer only.",
        response_model=list[Conflict],
    )
    def conflicts(
        request: Request,
        subject: Annotated[
            str | None,
            Query(
                description="only conflicts about this entity (IRI)", examples=["http://dbpedia.org/resource/Amsterdam"]
            ),
        ] = None,
        predicate: Annotated[
            str | None,
            Query(
                description="only conflicts of this predicate (IRI)",
                examples=["http://dbpedia.org/ontology/populationTotal"],
            ),
        ] = None,
        strategy: Annotated[ResolutionStrategy | None, Query(description="rank values by this strategy")] = None,
    ) -> list[Conflict]:
        require(request, settings, write=False)
        return pg.conflicts(subject=subject, predicate=predicate, strategy=strategy)

    return router


__all__ = ["trust_router"]
