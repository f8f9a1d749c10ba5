"""``GET /doc-relationships``: how current source documents relate (citations, mentions, shared
entities), as an edge list of :class:`~provgraph.DocumentRelation` or as Cytoscape.js elements.
The handler calls ``ProvGraph.related_documents``; every rule lives in the core, and the
Cytoscape.js shape, a view of its answer for one client library, here."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from provgraph import DocumentRelation
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, Reads
from provgraph.http.errors import READ_ERRORS, ErrorBody
from provgraph.models import DerivedRecords


class RelationFormat(enum.StrEnum):
    """The shape of a ``/doc-relationships`` answer."""

    #: a JSON array of DocumentRelation objects
    EDGES = "edges"
    #: Cytoscape.js elements: {"nodes": [{"data": {...}}], "edges": [{"data": {...}}]}
    CYTOSCAPE = "cytoscape"


_CYTOSCAPE_EXAMPLE = {
    "nodes": [
        {"data": {"id": "https://w3id.org/provgraph/id/doc/1f…", "label": "Review of analgesics", "key": "review"}},
        {"data": {"id": "https://w3id.org/provgraph/id/doc/9a…", "label": "Aspirin Safety Guidelines", "key": "g"}},
    ],
    "edges": [
        {
            "data": {
                "id": "https://w3id.org/provgraph/id/relation/5c…",
                "source": "https://w3id.org/provgraph/id/doc/1f…",
                "target": "https://w3id.org/provgraph/id/doc/9a…",
                "type": "citation",
                "types": ["citation"],
                "strength": 0.8,
                "directed": True,
            }
        }
    ],
}


class CytoscapeNodeData(BaseModel):
    id: str = Field(description="the document's IRI")
    label: str = Field(description="its title")
    key: str = Field(description="its key (id or URL)")


class CytoscapeEdgeData(BaseModel):
    id: str = Field(description="the relation's IRI")
    source: str
    target: str
    type: str = Field(description="the strongest kind: citation, mention or shared_entities")
    types: list[str]
    strength: float
    directed: bool


class CytoscapeNode(BaseModel):
    data: CytoscapeNodeData


class CytoscapeEdge(BaseModel):
    data: CytoscapeEdgeData


class CytoscapeElements(BaseModel):
    """``format=cytoscape``: Cytoscape.js elements, documents as nodes and relations as edges."""

    nodes: list[CytoscapeNode]
    edges: list[CytoscapeEdge]

    @classmethod
    def of(cls, relations: Sequence[DocumentRelation]) -> CytoscapeElements:
        """Documents as nodes (each once, in the order the relations name them), relations as edges."""
        nodes: dict[str, CytoscapeNode] = {}
        edges: list[CytoscapeEdge] = []
        for r in relations:
            for iri, title, key in ((r.from_document, r.from_title, r.from_key), (r.to_document, r.to_title, r.to_key)):
                if iri not in nodes:
                    nodes[iri] = CytoscapeNode(data=CytoscapeNodeData(id=iri, label=title, key=key))
            edge = CytoscapeEdgeData(
                id=r.iri,
                source=r.from_document,
                target=r.to_document,
                type=r.type.value,
                types=[t.value for t in r.types],
                strength=r.strength,
                directed=r.directed,
            )
            edges.append(CytoscapeEdge(data=edge))
        return cls(nodes=list(nodes.values()), edges=edges)


router = APIRouter(tags=["Trust"])


@router.get(
    "/doc-relationships",
    summary="Relationships between current source documents: citations, mentions, shared entities",
    description="One edge per related pair of documents, strongest first. A citation (dcterms:references, "
    "cito:cites) outweighs a mention (a passage naming the other document's title, fuzzily, or its identifier "
    "or URL), which outweighs shared entities (two or more needed). `strength` in [0, 1] combines the kinds "
    "found. The relations are recomputed first when sources changed since the last computation. "
    "`format=cytoscape` answers with Cytoscape.js elements (nodes: documents, edges: relations).",
    response_model=list[DocumentRelation] | CytoscapeElements,
    dependencies=[READ_ACCESS],
    responses={
        200: {"content": {"application/json": {"examples": {"cytoscape": {"value": _CYTOSCAPE_EXAMPLE}}}}},
        404: {"model": ErrorBody, "description": "no such document"},
        **READ_ERRORS,
    },
)
async def doc_relationships(
    reader: Reads,
    format: Annotated[  # noqa: A002 - the query parameter's name
        RelationFormat, Query(description="`edges` (DocumentRelation list) or `cytoscape` (elements)")
    ] = RelationFormat.EDGES,
    document: Annotated[str | None, Query(description="only the relations of this document (key or IRI)")] = None,
    min_strength: Annotated[float, Query(ge=0.0, le=1.0, description="only relations at least this strong")] = 0.0,
) -> JSONResponse:
    found = await reader.run(reads.related, document, min_strength, records=(DerivedRecords.RELATIONS,))
    if format is RelationFormat.CYTOSCAPE:
        return JSONResponse(CytoscapeElements.of(found).model_dump())
    return JSONResponse(jsonable_encoder(found))


__all__ = ["CytoscapeElements", "RelationFormat", "router"]
