"""Facts as the pipeline stores them: each an assertion of the document's graph, citing its
passage, with the offsets of its evidence inside the passage (``pg:evidenceStart``,
``pg:evidenceEnd``), its extraction method and confidence, and the unit of a number
(``pg:unit``). An entity minted for a name gets its label as a statement too, citing the span
that names it. A fact whose evidence is not in its passage verbatim is dropped and counted.
"""

from __future__ import annotations

from collections.abc import Iterator

from provgraph.ingest.extract.base import Fact, anchor
from provgraph.ingest.extract.vocabulary import Vocabulary
from provgraph.ingest.records import Assertion, LiteralCanonicalizer, PassageSpec
from provgraph.models import ExtractionMethod
from provgraph.store.terms import Literal, NamedNode
from provgraph.vocab import PG, PG_NS, RDFS_NS, XSD_NS

_LABEL = f"<{RDFS_NS}label>"
_ALIAS = PG_NS + "alias"
#: How many passages back the label of a subject named before ("It ...") is looked for.
RECALL_PASSAGES = 50
_INTEGER = NamedNode(XSD_NS + "integer")


class FactWriter:
    """Turns one document's facts into assertions, counting those kept and dropped."""

    def __init__(self, vocabulary: Vocabulary, method: ExtractionMethod) -> None:
        self.vocabulary = vocabulary
        self.method = method
        self.extracted = 0
        self.dropped = 0
        self._canonical = LiteralCanonicalizer()
        self._labelled: set[str] = set()
        #: the passages read so far, latest last: where a name said before "It" is found
        self._read: list[PassageSpec] = []

    def seen(self, passage: PassageSpec) -> None:
        """Note a passage read, facts or none: a later fact's subject may be named there."""
        self._read.append(passage)
        del self._read[:-RECALL_PASSAGES]

    def assertions(self, passage: PassageSpec, facts: list[Fact]) -> Iterator[Assertion]:
        self.vocabulary.known([f.subject for f in facts] + [f.object.name for f in facts if f.object.name])
        for fact in facts:
            span = anchor(passage.text, fact)
            if span is None:
                self.dropped += 1
                continue
            subject, subject_minted = self.vocabulary.entity(fact.subject)
            value = fact.object
            if fact.predicate.iri == _ALIAS and value.lexical:
                self.vocabulary.alias(value.lexical, subject)
            if value.name is not None:
                iri, object_minted = self.vocabulary.entity(value.name)
                obj = f"<{iri}>"
            else:
                assert value.lexical is not None
                literal = (
                    Literal(value.lexical, language=value.language)
                    if value.language
                    else Literal(value.lexical, datatype=NamedNode(value.datatype or XSD_NS + "string"))
                )
                obj, object_minted = self._canonical(literal), False
            extra = [
                (f"<{PG.evidenceStart.value}>", str(Literal(str(span[0]), datatype=_INTEGER))),
                (f"<{PG.evidenceEnd.value}>", str(Literal(str(span[1]), datatype=_INTEGER))),
            ]
            if value.unit is not None:
                extra.append((f"<{PG.unit.value}>", str(Literal(value.unit))))
            self.extracted += 1
            yield Assertion(
                subject=f"<{subject}>",
                predicate=f"<{fact.predicate.iri}>",
                object=obj,
                passage=passage,
                confidence=fact.confidence,
                method=self.method.value,
                extra=extra,
            )
            if subject_minted:
                yield from self._label(subject, fact.subject, passage, fact.confidence)
            if value.name is not None and object_minted:
                yield from self._label(obj[1:-1], value.name, passage, fact.confidence)

    def _label(self, iri: str, name: str, passage: PassageSpec, confidence: float) -> Iterator[Assertion]:
        """The label of an entity minted for ``name``, citing the latest passage that names it."""
        if iri in self._labelled:
            return
        named = next((p for p in [passage, *reversed(self._read)] if name in p.text), None)
        if named is None:
            return
        passage, at = named, named.text.find(name)
        self._labelled.add(iri)
        yield Assertion(
            subject=f"<{iri}>",
            predicate=_LABEL,
            object=str(Literal(name)),
            passage=passage,
            confidence=confidence,
            method=self.method.value,
            extra=[
                (f"<{PG.evidenceStart.value}>", str(Literal(str(at), datatype=_INTEGER))),
                (f"<{PG.evidenceEnd.value}>", str(Literal(str(at + len(name)), datatype=_INTEGER))),
            ],
        )


__all__ = ["FactWriter"]
