"""Precision and recall of an extractor against a gold set of sentences with their facts (the
format of ``tests/data/extraction/gold.json``: documents of sentences read in order, each with
the facts a careful reader takes from it, as (subject label, property, object) where the
property is a local name of the gold ontology or ``alias``, and the object ``@Label`` an entity,
``date:YYYY[-MM[-DD]]`` a date, ``alias:Name`` another name, or a number in the property's unit).

A fact found counts as right when its subject's name, its property and its object all match a
gold fact of the same sentence (names compared without case or a leading "the"; numbers by
value); a minted property never matches, since the gold facts use the ontology's.
"""

from __future__ import annotations

import json
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path

from pydantic import BaseModel, Field

from provgraph.ingest.extract.base import Extractor, Fact
from provgraph.ingest.records import PassageSpec


class GoldScore(BaseModel):
    """How an extractor did on a gold set."""

    sentences: int
    gold_facts: int
    found: int = Field(description="facts the extractor gave")
    right: int = Field(description="facts found that are gold facts")
    precision: float
    recall: float
    passages_per_second: float
    by_domain: dict[str, tuple[float, float]] = Field(description="domain -> (precision, recall)")
    wrong: list[str] = Field(description="facts found that are not gold, as text")
    missed: list[str] = Field(description="gold facts not found, as text")


def score(extractor: Extractor, gold_file: Path, *, namespace: str) -> GoldScore:
    """Run ``extractor`` over the gold set's documents and compare; ``namespace`` is the gold
    ontology's, whose local names the gold facts use."""
    gold = json.loads(gold_file.read_text(encoding="utf-8"))
    counts: dict[str, list[int]] = {}
    wrong: list[str] = []
    missed: list[str] = []
    sentences = 0
    seconds = 0.0
    for document in gold["documents"]:
        passages = [PassageSpec(s["text"]) for s in document["sentences"]]
        started = time.perf_counter()
        results = list(extractor.extract(passages, title=document["title"]))
        seconds += time.perf_counter() - started
        for (_, facts), sentence in zip(results, document["sentences"], strict=True):
            sentences += 1
            found = {_key(f, namespace) for f in facts}
            expected = {_gold_key(*fact) for fact in sentence["facts"]}
            tally = counts.setdefault(document["domain"], [0, 0, 0])
            tally[0] += len(found & expected)
            tally[1] += len(found)
            tally[2] += len(expected)
            wrong += [f"{sentence['text']} -> {k}" for k in sorted(found - expected)]
            missed += [f"{sentence['text']} -> {k}" for k in sorted(expected - found)]
    right, found_count, gold_count = (sum(c[i] for c in counts.values()) for i in range(3))
    return GoldScore(
        sentences=sentences,
        gold_facts=gold_count,
        found=found_count,
        right=right,
        precision=right / found_count if found_count else 0.0,
        recall=right / gold_count if gold_count else 0.0,
        passages_per_second=sentences / seconds if seconds else 0.0,
        by_domain={d: (c[0] / c[1] if c[1] else 0.0, c[0] / c[2] if c[2] else 0.0) for d, c in sorted(counts.items())},
        wrong=wrong,
        missed=missed,
    )


def _name(text: str) -> str:
    words = text.split()
    if words[:1] and words[0].lower() == "the":
        words = words[1:]
    return " ".join(words).casefold()


def _number(text: str) -> str:
    try:
        return str(Decimal(text).normalize())
    except InvalidOperation:
        return text


def _key(fact: Fact, namespace: str) -> tuple[str, str, str]:
    iri = fact.predicate.iri
    prop = (
        "alias" if iri.endswith("#alias") else iri.removeprefix(namespace) if iri.startswith(namespace) else f"<{iri}>"
    )
    value = fact.object
    if value.name is not None:
        obj = "@" + _name(value.name)
    elif prop == "alias":
        obj = "alias:" + _name(value.lexical or "")
    elif value.datatype and ("date" in value.datatype or "gYear" in value.datatype):
        obj = "date:" + (value.lexical or "")
    else:
        obj = _number(value.lexical or "")
    return _name(fact.subject), prop, obj


def _gold_key(subject: str, prop: str, obj: str) -> tuple[str, str, str]:
    if obj.startswith("@"):
        obj = "@" + _name(obj[1:])
    elif obj.startswith("alias:"):
        obj = "alias:" + _name(obj[6:])
    elif not obj.startswith("date:"):
        obj = _number(obj)
    return _name(subject), prop, obj


__all__ = ["GoldScore", "score"]
