"""What an extractor gives: facts, each with the exact span of its passage that states it.

An extractor (:class:`Extractor`) reads a document's passages in order and says, for each, the
facts it states: a subject (a name, or an entity already known), a property, an object (a name
or a literal) and the evidence, a span of the passage. The pipeline keeps a fact only when its
evidence is found verbatim in the passage (:func:`anchor`); the others are dropped and counted,
never stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from provgraph.ingest.extract.vocabulary import Property
from provgraph.ingest.records import PassageSpec


@dataclass(frozen=True, slots=True)
class Value:
    """A fact's object: an entity by name (``name``) or a literal (``lexical`` of ``datatype``;
    ``language`` for text), with the unit the text gave it in, if any."""

    name: str | None = None
    lexical: str | None = None
    datatype: str | None = None
    language: str | None = None
    unit: str | None = None


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact a passage states. ``subject`` is a name (for "It", the one named before);
    ``quote`` is the evidence as the extractor gives it, ``start`` its offset in the passage
    when the extractor knows it."""

    subject: str
    predicate: Property
    object: Value
    quote: str
    confidence: float
    start: int | None = None


class Extractor(Protocol):
    """Reads the passages of one document, in order."""

    #: "rules" or "llm", as ``--extract`` names it
    name: str
    #: passages read only in part (a model's reply cut at its token budget)
    cut: int

    def parameters(self) -> dict[str, str]:
        """What the extraction activity records of how it ran (version, model ...)."""
        ...

    def extract(self, passages: Sequence[PassageSpec], *, title: str) -> Iterator[tuple[PassageSpec, list[Fact]]]:
        """Each passage with the facts it states."""
        ...


def anchor(passage: str, fact: Fact) -> tuple[int, int] | None:
    """Where the fact's evidence is in ``passage`` (start, end), or None when it is not there
    verbatim: at its stated offset, else its first occurrence."""
    quote = fact.quote
    if not quote.strip():
        return None
    if fact.start is not None and passage[fact.start : fact.start + len(quote)] == quote:
        return fact.start, fact.start + len(quote)
    found = passage.find(quote)
    return (found, found + len(quote)) if found >= 0 else None


__all__ = ["Extractor", "Fact", "Value", "anchor"]
