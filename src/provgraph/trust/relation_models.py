"""Pydantic models of document relationships: the contracts of ``pg.related_documents()``,
``provgraph related --json`` and ``GET /doc-relationships``. Field names are stable; new fields
may be added."""

from __future__ import annotations

import enum
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

_PG = "https://w3id.org/provgraph/ns#"


class RelationType(enum.StrEnum):
    """Why two documents are related, strongest kind first."""

    #: one document cites the other: ``dcterms:references``, ``cito:cites`` (or a CiTO citing
    #: property), or a statement about the other document's URL
    CITATION = "citation"
    #: a passage of one document names the other: its title (fuzzy), identifier or URL
    MENTION = "mention"
    #: statements of both documents are about the same entities (two or more)
    SHARED_ENTITIES = "shared_entities"

    @property
    def iri(self) -> str:
        return _PG + _TYPE_LOCAL[self]

    @property
    def rank(self) -> int:
        """0 for the strongest kind (citation)."""
        return list(RelationType).index(self)

    @classmethod
    def from_iri(cls, iri: str) -> RelationType:
        local = iri.rsplit("#", 1)[-1]
        for kind, name in _TYPE_LOCAL.items():
            if name == local:
                return kind
        raise ValueError(f"not a relation type: <{iri}>")


_TYPE_LOCAL = {
    RelationType.CITATION: "Citation",
    RelationType.MENTION: "Mention",
    RelationType.SHARED_ENTITIES: "SharedEntities",
}


class RelationEvidence(BaseModel):
    """One piece of evidence for a relationship."""

    model_config = ConfigDict(frozen=True)

    type: RelationType
    #: IRI of the document in whose graph the evidence was found (None for a shared entity,
    #: which both documents state)
    found_in: str | None = None
    #: what was found, in words
    text: str
    #: the statement, passage or shared entity (IRI)
    resource: str | None = None
    #: fuzzy match score of a title mention, 0..100 (100 for exact URL and identifier mentions)
    score: float | None = None


class DocumentRelation(BaseModel):
    """A relationship between two current source documents: one edge per pair of documents,
    combining every kind of evidence found between them (in either direction).

    ``from_document`` is the citing or mentioning document when the explicit evidence (citations,
    mentions) goes one way (``directed``); otherwise the pair is ordered by title.
    """

    model_config = ConfigDict(frozen=True)

    #: IRI of the relation record in the relations graph (stable for the pair of documents)
    iri: str
    from_document: str
    from_key: str
    from_title: str
    to_document: str
    to_key: str
    to_title: str
    #: the strongest kind of evidence (citation > mention > shared entities)
    type: RelationType
    #: every kind of evidence found, strongest first
    types: list[RelationType]
    #: combined strength in [0, 1]: 1 - prod(1 - s) over the strengths of the kinds
    strength: float = Field(ge=0.0, le=1.0)
    #: strength of each kind found, in [0, 1]
    strengths: dict[RelationType, float]
    #: how many pieces of evidence of each kind were found (the evidence list may hold fewer)
    counts: dict[RelationType, int]
    #: True when the explicit evidence goes from ``from_document`` to ``to_document`` only
    directed: bool
    evidence: list[RelationEvidence]
    #: the prov:Activity that computed the relation, and when it ended (None when computed
    #: for this answer only, as on a read-only store)
    activity: str | None = None
    computed_at: datetime | None = None

    def other(self, document: str) -> str:
        """The IRI of the document at the other end from ``document`` (an IRI)."""
        return self.to_document if document == self.from_document else self.from_document


__all__ = ["DocumentRelation", "RelationEvidence", "RelationType"]
