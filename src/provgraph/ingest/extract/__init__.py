"""Facts from text: extractors (:mod:`.rules`, offline; :mod:`.llm`, a language model), the words they know
(:mod:`.vocabulary`), numbers and dates (:mod:`.quantities`), and how their facts become
statements with exact evidence spans (:mod:`.statements`). :class:`TextExtraction` is what the
ingest pipeline runs over a text document's passages."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from provgraph.ingest.extract.base import Extractor
from provgraph.ingest.extract.cache import FactCache, MemoryCache
from provgraph.ingest.extract.rules import RuleExtractor
from provgraph.ingest.extract.statements import FactWriter
from provgraph.ingest.extract.vocabulary import Vocabulary
from provgraph.ingest.records import Assertion, PassageSpec
from provgraph.models import Extraction, ExtractionMethod
from provgraph.store.base import Backend

if TYPE_CHECKING:
    from provgraph.llm import ChatModel, OpenAISettings


@dataclass(frozen=True)
class LlmSetup:
    """The language model ``--extract llm`` asks (None: configured by the environment, see
    :meth:`provgraph.llm.OpenAISettings.from_env`), where its replies are cached, and the models
    already asked (by settings), which remember what their server rejected: the next ingest
    does not ask for structured output again where it failed."""

    settings: OpenAISettings | None = None
    cache: FactCache = field(default_factory=MemoryCache)
    models: dict[str, ChatModel] = field(default_factory=dict)

    def model(self) -> ChatModel:
        from provgraph.llm import ChatModel, OpenAISettings  # loads the model client

        settings = self.settings or OpenAISettings.from_env()
        secret = settings.api_key.get_secret_value() if settings.api_key else ""
        # the key tells models apart by their API key too, without holding it in clear
        key = settings.model_dump_json() + hashlib.sha256(secret.encode()).hexdigest()
        if key not in self.models:
            self.models[key] = ChatModel(settings, what="facts")
        return self.models[key]


@dataclass
class TextExtraction:
    """One document's extraction: its extractor, and the counts of facts kept and dropped."""

    extractor: Extractor
    writer: FactWriter
    fingerprint: str
    enabled: bool = field(default=True)

    @classmethod
    def build(cls, kind: Extraction, backend: Backend, *, model: LlmSetup | None = None) -> TextExtraction | None:
        """The extraction of ``kind`` for an ingest into ``backend``; None for ``none``.
        ``model`` is the language model and cache of ``llm`` (default: the model the
        environment configures, an in-memory cache)."""
        if kind is Extraction.NONE:
            return None
        vocabulary = Vocabulary(backend)
        extractor: Extractor
        if kind is Extraction.LLM:
            from provgraph.ingest.extract.llm import LlmExtractor  # loads the model client

            setup = model or LlmSetup()
            extractor = LlmExtractor(setup.model(), vocabulary, setup.cache)
            method = ExtractionMethod.LLM_EXTRACTION
        else:
            extractor = RuleExtractor(vocabulary)
            method = ExtractionMethod.RULE_BASED
        fingerprint = json.dumps({**extractor.parameters(), "vocabulary": vocabulary.fingerprint()}, sort_keys=True)
        return cls(extractor, FactWriter(vocabulary, method), fingerprint)

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


#: The variables that say a language model is configured for provgraph: then text is read by it.
LLM_VARIABLES = ("PROVGRAPH_LLM_BASE_URL", "PROVGRAPH_LLM_MODEL")


def default_extraction(environ: Mapping[str, str] | None = None) -> Extraction:
    """What ``--extract`` is when not given: ``llm`` when provgraph's own model variables are set
    (:data:`LLM_VARIABLES`), else ``rules``. ``OPENAI_*`` alone does not count: a key set for
    other tools must not send documents to a server nobody chose for them."""
    environ = os.environ if environ is None else environ
    return Extraction.LLM if any(environ.get(name, "").strip() for name in LLM_VARIABLES) else Extraction.RULES


__all__ = ["LLM_VARIABLES", "LlmSetup", "TextExtraction", "default_extraction"]
