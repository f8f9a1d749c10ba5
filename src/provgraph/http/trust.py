"""``GET /conflicts``: where current sources disagree, as :class:`~provgraph.Conflict` models.
The handler calls ``ProvGraph.conflicts``; every rule lives in the core."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from provgraph import Conflict
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, Reads
from provgraph.http.errors import READ_ERRORS, ErrorBody
from provgraph.models import DerivedRecords
from provgraph.options import ResolutionStrategy

router = APIRouter(tags=["Trust"])


@router.get(
    "/conflicts",
    summary="Conflicts across current sources, with every value, the preferred one and why",
    description="Functional predicates with different values for one entity, disjoint predicates on the same "
    "subject and object, numbers beyond their tolerance (as the ontology graph declares them). Detection "
    "runs first when sources changed since the last run. `strategy` ranks the values by another strategy "
    "for this answer only.",
    response_model=list[Conflict],
    dependencies=[READ_ACCESS],
    responses={
        400: {"model": ErrorBody, "description": "a subject or predicate that is not an IRI"},
        **READ_ERRORS,
    },
)
async def conflicts(
    reader: Reads,
    subject: Annotated[
        str | None,
        Query(description="only conflicts about this entity (IRI)", examples=["http://dbpedia.org/resource/Amsterdam"]),
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
    return await reader.run(reads.conflicts, subject, predicate, strategy, records=(DerivedRecords.CONFLICTS,))


__all__ = ["router"]
