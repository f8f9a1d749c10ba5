"""Facts from text: extractors (:mod:`.rules`, offline; an LLM's later), the words they know
(:mod:`.vocabulary`), numbers and dates (:mod:`.quantities`), and how their facts become
statements with exact evidence spans (:mod:`.statements`). :class:`TextExtraction` is what the
ingest pipeline runs over a text document's passages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from provgraph.errors import InputError
from provgraph.ingest.extract.base import Extractor
from provgraph.ingest.extract.rules import RuleExtractor
from provgraph.ingest.extract.statements import FactWriter
from provgraph.ingest.extract.vocabulary import Vocabulary
from provgraph.ingest.records import Assertion, PassageSpec
from provgraph.models import Extraction, ExtractionMethod
from provgraph.store.base import Backend


@dataclass
class TextExtraction:
    """One document's extraction: its extractor, and the counts of facts kept and dropped."""

    extractor: Extractor
    writer: FactWriter
    fingerprint: str
    enabled: bool = field(default=True)

    @classmethod
    def build(cls, kind: Extraction, backend: Backend) -> TextExtraction | None:
        """The extraction of ``kind`` for an ingest into ``backend``; None for ``none``."""
        if kind is Extraction.NONE:
            return None
        if kind is Extraction.LLM:
            raise InputError("--extract llm is not available yet: use --extract rules or none")
        vocabulary = Vocabulary(backend)
        extractor = RuleExtractor(vocabulary)
        fingerprint = json.dumps({**extractor.parameters(), "vocabulary": vocabulary.fingerprint()}, sort_keys=True)
        return cls(extractor, FactWriter(vocabulary, ExtractionMethod.RULE_BASED), fingerprint)

    @property
    def method(self) -> ExtractionMethod:
        return self.writer.method

    def activity(self) -> list[tuple[str, str]]:
        """(pg: local name, value) pairs the extraction activity records."""
        return sorted(self.extractor.parameters().items())

    def run(
        self, passages: Iterable[PassageSpec], *, title: str
    ) -> Iterator[tuple[Assertion | None, PassageSpec | None]]:
        """Each passage, then the assertions of the facts it states."""
        if not self.enabled:
            for passage in passages:
                yield None, passage
            return
        for passage, facts in self.extractor.extract(list(passages), title=title):
            yield None, passage
            self.writer.seen(passage)
            for assertion in self.writer.assertions(passage, facts):
                yield assertion, None


def default_extraction() -> Extraction:
    """What ``--extract`` is when not given: none, until answers use the facts of text as well
    as they use its passages (the extractive answers to questions about text documents changed
    when they were drawn from rule-based facts)."""
    return Extraction.NONE


__all__ = ["TextExtraction", "default_extraction"]
