"""The retriever: a question becomes an evidence pack.

1. The lexical index (:mod:`provgraph.answer.index`) is brought in line with the current
   sources, so superseded and revoked versions are never searched.
2. Entity linking: labels (and IRI local names) whose every content word occurs in the question
   link their entity; longer labels first ("New York City" before "York"). Documents are not
   entities.
3. Passages: BM25 over passage text with the question's content words.
4. SPARQL expansion: the facts about the linked entities in current source graphs (hop 1), with
   their statements, sources, passages, aggregated confidence and status; the facts about the
   objects of the best of them (hop 2, for evidence chains); the conflicts involving the
   entities, each with every competing statement; the relations of the retrieved documents.
5. Scoring: passages by BM25 relative to the best; facts by how much of their predicate's
   label the question names, then confidence; a conflict above the facts it is about; hop 2 and
   relations below. Items are sorted, cut at ``limit`` (keeping every statement a kept conflict
   cites) and numbered. Ids are content-addressed (:func:`~provgraph.answer.models.evidence_id`).
6. Untrusted sources: an item whose source graph has a passage that gives orders to its reader
   or vouches for itself (:mod:`provgraph.answer.untrusted`) is marked ``untrusted``, with the
   passage; the verifier lets it support no claim.

Filters (:class:`~provgraph.answer.models.AskFilters`) restrict the source graphs searched.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from pyoxigraph import BlankNode, NamedNode, QuerySolutions

from provgraph import evidence as _evidence
from provgraph.answer.index import LexicalIndex, local_name
from provgraph.answer.models import (
    AskFilters,
    EvidenceItem,
    EvidenceKind,
    EvidencePack,
    LinkedEntity,
    UntrustedText,
    evidence_id,
)
from provgraph.answer.text import STOP_WORDS, content_words, term_text, tokens, words
from provgraph.models import Evidence
from provgraph.store.base import Backend
from provgraph.trust import engine as _trust
from provgraph.trust import relations as _relations
from provgraph.trust.models import Conflict, FactStatus, ValueClaim
from provgraph.vocab import CATALOG_GRAPH, DCTERMS_NS, PG_NS

MAX_ENTITIES = 5
MAX_PASSAGES = 20
MAX_FACTS = 400
MAX_HOP2_SUBJECTS = 5
MAX_HOP2_FACTS = 40
MAX_RELATIONS = 5
#: Passages whose text names other documents by title, and the weight of those documents' passages.
MAX_BRIDGES = 5
BRIDGE_WEIGHT = 0.6
#: Weight of the passages of a document whose title the question names.
TITLE_BOOST = 2.0
#: Longest title (in words) looked up in a passage.
MAX_TITLE_WORDS = 8


@dataclass(frozen=True)
class Source:
    """A current source graph and its document's metadata."""

    graph: str
    document: str
    key: str
    title: str
    url: str | None
    tier: int | None
    issued: str | None


def _prefix(word: str) -> str:
    return word[:5] if len(word) >= 5 else word


class Retriever:
    """Keeps the lexical index and the source metadata of one store (see the module docstring)."""

    def __init__(self, backend: Backend, index: LexicalIndex | None = None) -> None:
        self._backend = backend
        self._index = index or LexicalIndex.for_backend(backend)
        self._lock = threading.Lock()
        self._sources: tuple[int | None, dict[str, Source]] | None = None
        self._titles: tuple[int | None, dict[tuple[str, ...], list[Source]]] | None = None

    @property
    def index(self) -> LexicalIndex:
        return self._index

    def close(self) -> None:
        self._index.close()

    def sources(self) -> dict[str, Source]:
        """Current source graphs by graph IRI, cached while the store is unchanged."""
        generation = self._backend.generation
        with self._lock:
            if generation is not None and self._sources is not None and self._sources[0] == generation:
                return self._sources[1]
        result = self._backend.query(
            f"""PREFIX pg: <{PG_NS}> PREFIX dcterms: <{DCTERMS_NS}>
SELECT ?g ?d ?key ?title ?url ?tier ?issued WHERE {{
  GRAPH <{CATALOG_GRAPH.value}> {{ ?g pg:status pg:Current ; pg:document ?d }}
  GRAPH ?g {{ ?d pg:documentKey ?key }}
  OPTIONAL {{ GRAPH ?g {{ ?d dcterms:title ?title }} }}
  OPTIONAL {{ GRAPH ?g {{ ?d pg:sourceUrl ?url }} }}
  OPTIONAL {{ GRAPH ?g {{ ?d pg:tier ?tier }} }}
  OPTIONAL {{ GRAPH ?g {{ ?d dcterms:issued ?issued }} }}
}}"""
        )
        assert isinstance(result, QuerySolutions)
        found: dict[str, Source] = {}
        for row in result:
            graph = row["g"].value  # type: ignore[union-attr]
            if graph in found:
                continue
            key = row["key"].value  # type: ignore[union-attr]
            found[graph] = Source(
                graph=graph,
                document=row["d"].value,  # type: ignore[union-attr]
                key=key,
                title=row["title"].value if row["title"] is not None else key,  # type: ignore[union-attr]
                url=row["url"].value if row["url"] is not None else None,  # type: ignore[union-attr]
                tier=int(row["tier"].value) if row["tier"] is not None else None,  # type: ignore[union-attr]
                issued=row["issued"].value if row["issued"] is not None else None,  # type: ignore[union-attr]
            )
        with self._lock:
            self._sources = (generation, found)
        return found

    def titles(self) -> dict[tuple[str, ...], list[Source]]:
        """The current documents by title words (see :func:`_titles`), cached with the sources."""
        generation = self._backend.generation
        with self._lock:
            if generation is not None and self._titles is not None and self._titles[0] == generation:
                return self._titles[1]
        found = _titles(self.sources())
        with self._lock:
            self._titles = (generation, found)
        return found

    def retrieve(self, question: str, *, filters: AskFilters | None = None, limit: int = 30) -> EvidencePack:
        filters = filters or AskFilters()
        self._index.sync(self._backend)
        sources = self.sources()
        allowed = _allowed(sources, filters)
        graphs = sorted(allowed)
        question_words = content_words(question)
        question_prefixes = {_prefix(w) for w in question_words}
        documents = {s.document for s in sources.values()}
        entities = self._link(question_words, graphs, documents)
        items: dict[str, _Draft] = {}

        # passages; those of a document the question names by its title weigh more: the
        # document is about what is asked (HotpotQA: sentence precision 48 to 55)
        titles = self.titles()
        named = {s.graph for s in _named(question, titles) if s.graph in allowed}
        hits = self._index.search(question_words, kinds=("passage",), graphs=graphs, limit=MAX_PASSAGES)
        scores = [h.score * (TITLE_BOOST if h.graph in named else 1.0) for h in hits]
        best = max(scores, default=0.0) or 1.0
        for hit, score in zip(hits, scores, strict=True):
            source = allowed[hit.graph]
            item = _Draft(
                id=evidence_id(EvidenceKind.PASSAGE, hit.graph, hit.iri),
                kind=EvidenceKind.PASSAGE,
                score=round(score / best, 6),
                text=hit.text,
                source=source,
                fields={"passage": hit.iri, "passage_text": hit.text},
            )
            items.setdefault(item.id, item)

        # passages of documents the best passages name by title: the second hop of a question
        # like "the arena where the Lewiston Maineiacs played" ("...played at the Colisée")
        parents = sorted(items.values(), key=lambda d: (-d.score, d.id))[:MAX_BRIDGES]
        for parent in parents:
            assert parent.source is not None
            for source in _named(parent.text, titles):
                if source.graph not in allowed or source.graph == parent.source.graph:
                    continue
                hits = self._index.first_passages(source.graph, 1)
                hits += self._index.search(question_words, kinds=("passage",), graphs=[source.graph], limit=1)
                for hit in hits:
                    bridge = _Draft(
                        id=evidence_id(EvidenceKind.PASSAGE, hit.graph, hit.iri),
                        kind=EvidenceKind.PASSAGE,
                        score=round(BRIDGE_WEIGHT * parent.score, 6),
                        text=hit.text,
                        source=source,
                        hop=2,
                        fields={"passage": hit.iri, "passage_text": hit.text},
                    )
                    if bridge.id not in items:
                        bridge.related_drafts = [parent]
                        items[bridge.id] = bridge

        # facts about the linked entities (hop 1), then about the objects of the best (hop 2)
        linked = [_node(e.iri) for e in entities]
        facts = self._facts(linked, allowed, filters, limit=MAX_FACTS)
        statements: dict[tuple[str, str], _Draft] = {}
        for e in facts:
            draft = self._fact_item(e, allowed, question_prefixes, hop=1)
            statements[(e.statement, e.graph)] = draft
        hop1 = sorted(statements.values(), key=lambda d: (-d.score, d.id))
        seen = {e.iri for e in entities}
        objects: list[NamedNode | BlankNode] = []
        for draft in hop1:
            obj = str(draft.fields.get("object") or "")
            # an IRI, or a blank node of the same document ("ex:dose [ ex:mg 500 ]")
            name = obj[1:-1] if obj.startswith("<") else obj if obj.startswith("_:") else None
            if name is not None and name not in seen and len(objects) < MAX_HOP2_SUBJECTS:
                seen.add(name)
                objects.append(_node(name))
        for e in self._facts(objects, allowed, filters, limit=MAX_HOP2_FACTS):
            if (e.statement, e.graph) not in statements:
                statements[(e.statement, e.graph)] = self._fact_item(e, allowed, question_prefixes, hop=2)
        items.update({d.id: d for d in statements.values()})

        # conflicts involving the linked entities, with every competing statement they cite
        # (a blank node is local to its document: no other source can disagree about it)
        for entity in entities:
            if entity.iri.startswith("_:"):
                continue
            for conflict in _trust.conflicts(self._backend, subject=entity.iri):
                found = self._conflict_item(conflict, statements, allowed, question_prefixes)
                if found is not None:
                    items.setdefault(found.id, found)
                    for related in found.related_drafts:
                        items.setdefault(related.id, related)

        # relations of the best retrieved documents
        top_documents = list(
            dict.fromkeys(d.source.document for d in sorted(items.values(), key=lambda d: (-d.score, d.id)) if d.source)
        )[:3]
        allowed_documents = {s.document for s in allowed.values()}
        for document in top_documents:
            for relation in _relations.relationships(self._backend, document=document)[:MAX_RELATIONS]:
                if relation.from_document in allowed_documents and relation.to_document in allowed_documents:
                    draft = _Draft(
                        id=evidence_id(EvidenceKind.RELATION, relation.iri),
                        kind=EvidenceKind.RELATION,
                        score=round(0.1 * relation.strength, 6),
                        text=f"{relation.from_title} is related to {relation.to_title} "
                        f"({', '.join(t.value for t in relation.types)}; strength {relation.strength:.2f}).",
                        source=None,
                        fields={"document": relation.from_document, "title": relation.from_title},
                    )
                    items.setdefault(draft.id, draft)

        return self._pack(question, items, entities, filters, limit)

    # ------------------------------------------------------------------ steps

    def _link(self, question_words: Sequence[str], graphs: Sequence[str], documents: set[str]) -> list[LinkedEntity]:
        asked = set(question_words)
        asked_prefixes = {_prefix(w) for w in question_words}
        hits = self._index.search(question_words, kinds=("label", "name"), graphs=graphs, limit=400)
        best: dict[str, tuple[int, float, LinkedEntity]] = {}
        for hit in hits:
            if hit.iri in documents:
                continue
            label_words = content_words(hit.text)
            if not label_words or not all(w in asked or _prefix(w) in asked_prefixes for w in label_words):
                continue
            matched = " ".join(label_words)
            entity = LinkedEntity(iri=hit.iri, label=hit.text, score=round(hit.score, 6), matched=matched)
            key = (len(label_words), hit.score)
            if hit.iri not in best or key > best[hit.iri][:2]:
                best[hit.iri] = (*key, entity)
        ranked = sorted(best.values(), key=lambda b: (-b[0], -b[1], b[2].iri))
        return [b[2] for b in ranked[:MAX_ENTITIES]]

    def _facts(
        self, subjects: Sequence[NamedNode | BlankNode], allowed: dict[str, Source], filters: AskFilters, *, limit: int
    ) -> list[Evidence]:
        if not subjects:
            return []
        found = [e for e in _evidence.about(self._backend, subjects, limit=limit) if e.graph in allowed]
        found = _trust.annotate(self._backend, found)
        if filters.min_confidence is not None:
            found = [e for e in found if (e.fact_confidence or 0.0) >= filters.min_confidence]
        return found

    def _labels(self, iris: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(iris))
        labels = self._index.labels(wanted)
        return {iri: labels.get(iri) or local_name(iri) or iri for iri in wanted}

    def _fact_item(self, e: Evidence, allowed: dict[str, Source], question: set[str], *, hop: int) -> _Draft:
        iris = [e.subject, e.predicate] + ([e.object[1:-1]] if e.object.startswith("<") else [])
        labels = self._labels(iris)
        subject, predicate = labels[e.subject], labels[e.predicate]
        obj = labels[e.object[1:-1]] if e.object.startswith("<") else term_text(e.object)
        predicate_words = content_words(predicate)
        overlap = sum(_prefix(w) in question for w in predicate_words) / len(predicate_words) if predicate_words else 0
        confidence = e.fact_confidence if e.fact_confidence is not None else e.confidence
        score = 0.5 + 0.4 * overlap + 0.1 * confidence
        return _Draft(
            id=evidence_id(EvidenceKind.STATEMENT, e.graph, e.statement),
            kind=EvidenceKind.STATEMENT,
            score=round(score * (0.5 if hop == 2 else 1.0), 6),
            text=f"{subject} {predicate} {obj}.",
            source=allowed[e.graph],
            hop=hop,
            fields={
                "statement": e.statement,
                "subject": e.subject,
                "predicate": e.predicate,
                "object": e.object,
                "subject_label": subject,
                "predicate_label": predicate,
                "object_label": obj,
                "confidence": round(confidence, 6),
                "status": e.fact_status,
                "passage": e.passage.iri if e.passage else None,
                "passage_text": e.passage.text if e.passage else None,
                "section": e.passage.section if e.passage else None,
            },
        )

    def _conflict_item(
        self,
        conflict: Conflict,
        statements: dict[tuple[str, str], _Draft],
        allowed: dict[str, Source],
        question: set[str],
    ) -> _Draft | None:
        related: list[_Draft] = []
        sides = []
        for value in conflict.values:
            drafts = []
            for claim in value.claims:
                if claim.graph not in allowed:
                    continue
                draft = statements.get((claim.statement, claim.graph))
                if draft is None:
                    draft = self._claim_item(value.predicate, claim, allowed)
                drafts.append(draft)
            if drafts:
                related += drafts
                sources = list(dict.fromkeys(d.source.title for d in drafts if d.source))
                sides.append(f"{term_text(value.value)} ({', '.join(sources)})")
        if len(sides) < 2:
            return None  # the filters leave one side: no disagreement among the sources searched
        labels = self._labels([conflict.subject, *conflict.predicates])
        subject, predicate = labels[conflict.subject], labels[conflict.predicates[0]]
        predicate_words = content_words(predicate)
        overlap = sum(_prefix(w) in question for w in predicate_words) / len(predicate_words) if predicate_words else 0
        text = f"Sources disagree on the {predicate} of {subject}: " + "; ".join(sides) + "."
        preferred = conflict.preferred
        if preferred is not None:
            text += f" Preferred: {term_text(preferred.value)} ({conflict.resolution.rationale.rstrip('.')})."
        else:
            text += f" No value is preferred ({conflict.resolution.rationale.rstrip('.')})."
        draft = _Draft(
            id=evidence_id(EvidenceKind.CONFLICT, conflict.iri, *sorted(d.id for d in related)),
            kind=EvidenceKind.CONFLICT,
            # ranked with the facts: a conflict about what is asked first, one about another
            # property below the facts that are (the pack keeps the best items only)
            score=round(0.6 + 0.4 * overlap, 6),
            text=text,
            source=None,
            fields={
                "subject": conflict.subject,
                "predicate": conflict.predicates[0],
                "subject_label": subject,
                "predicate_label": predicate,
                "status": FactStatus.CONTESTED,
                "conflict": conflict,
            },
        )
        draft.related_drafts = related
        return draft

    def _claim_item(self, predicate: str, claim: ValueClaim, allowed: dict[str, Source]) -> _Draft:
        """A statement item for a competing statement the hop-1 facts did not hold (its subject
        is an alias merged by entity resolution)."""
        iris = [claim.subject, predicate] + ([claim.object[1:-1]] if claim.object.startswith("<") else [])
        labels = self._labels(iris)
        obj = labels[claim.object[1:-1]] if claim.object.startswith("<") else term_text(claim.object)
        return _Draft(
            id=evidence_id(EvidenceKind.STATEMENT, claim.graph, claim.statement),
            kind=EvidenceKind.STATEMENT,
            score=0.5,
            text=f"{labels[claim.subject]} {labels[predicate]} {obj}.",
            source=allowed[claim.graph],
            hop=1,
            fields={
                "statement": claim.statement,
                "subject": claim.subject,
                "predicate": predicate,
                "object": claim.object,
                "subject_label": labels[claim.subject],
                "predicate_label": labels[predicate],
                "object_label": obj,
                "confidence": round(claim.confidence, 6),
                "status": FactStatus.CONTESTED,
            },
        )

    def _pack(
        self,
        question: str,
        items: dict[str, _Draft],
        entities: list[LinkedEntity],
        filters: AskFilters,
        limit: int,
    ) -> EvidencePack:
        ranked = sorted(items.values(), key=lambda d: (-d.score, d.id))
        chosen: dict[str, _Draft] = {}
        for draft in ranked:
            if len(chosen) >= limit:
                break
            chosen[draft.id] = draft
            for related in draft.related_drafts:
                chosen.setdefault(related.id, related)
        ordered = sorted(chosen.values(), key=lambda d: (-d.score, d.id))
        out = [d.build(n) for n, d in enumerate(ordered, 1)]
        # a source with a passage that gives orders or vouches for itself is evidence of nothing:
        # the injected sentence and the claim it pushes are often two passages of it
        untrusted = self._index.untrusted(i.graph for i in out if i.graph)
        # a relation drawn from such a source (it mentions another document) is no better
        by_document = {i.document: untrusted[i.graph] for i in out if i.graph in untrusted and i.document}
        out = [_mark(i, untrusted.get(i.graph or "") or by_document.get(i.document or "")) for i in out]
        documents = list(dict.fromkeys(i.document for i in out if i.document and i.kind is not EvidenceKind.RELATION))
        return EvidencePack(
            question=question, items=out, entities=entities, filters=filters, retrieved_documents=documents
        )


class _Draft:
    """An evidence item before it is numbered."""

    def __init__(
        self,
        *,
        id: str,  # noqa: A002
        kind: EvidenceKind,
        score: float,
        text: str,
        source: Source | None,
        fields: dict[str, object],
        hop: int = 0,
    ) -> None:
        self.id, self.kind, self.score, self.text, self.source, self.hop = id, kind, score, text, source, hop
        self.fields = fields
        self.related_drafts: list[_Draft] = []

    def build(self, number: int) -> EvidenceItem:
        source = {}
        if self.source is not None:
            s = self.source
            source = {
                "document": s.document,
                "document_key": s.key,
                "title": s.title,
                "url": s.url,
                "tier": s.tier,
                "issued": s.issued,
                "graph": s.graph,
            }
        return EvidenceItem.model_validate(
            {
                "id": self.id,
                "number": number,
                "kind": self.kind,
                "score": self.score,
                "text": self.text,
                "hop": self.hop,
                **source,
                **self.fields,
                "related": [r.id for r in self.related_drafts],
            }
        )


def _node(name: str) -> NamedNode | BlankNode:
    """The term of an entity as the index and the evidence hold it: "_:id" or an IRI."""
    return BlankNode(name[2:]) if name.startswith("_:") else NamedNode(name)


def _mark(item: EvidenceItem, untrusted: UntrustedText | None) -> EvidenceItem:
    return item if untrusted is None else item.model_copy(update={"untrusted": untrusted})


def _titles(sources: dict[str, Source]) -> dict[tuple[str, ...], list[Source]]:
    """Document titles as word tuples, without a trailing qualifier ("Big Stone Gap (film)")."""
    out: dict[tuple[str, ...], list[Source]] = {}
    for source in sources.values():
        title = re.sub(r"\s*\([^)]*\)\s*$", "", source.title)
        key = tuple(words(title))
        if key and len(key) <= MAX_TITLE_WORDS and not (len(key) == 1 and key[0] in STOP_WORDS):
            out.setdefault(key, []).append(source)
    return out


def _named(text: str, titles: dict[tuple[str, ...], list[Source]]) -> list[Source]:
    """Documents whose title ``text`` contains. A one-word title must be capitalised in the text,
    so that "winner" does not name the band "Winner"."""
    written = tokens(text)
    normal = [words(t)[0] if words(t) else "" for t in written]
    found: dict[str, Source] = {}
    for i in range(len(normal)):
        for n in range(1, MAX_TITLE_WORDS + 1):
            key = tuple(normal[i : i + n])
            if len(key) < n:
                break
            if key in titles and (n > 1 or written[i][:1].isupper()):
                for source in titles[key]:
                    found.setdefault(source.graph, source)
    return list(found.values())


def _allowed(sources: dict[str, Source], filters: AskFilters) -> dict[str, Source]:
    wanted = set(filters.documents or [])
    out = {}
    for graph, s in sources.items():
        if wanted and s.key not in wanted and s.document not in wanted:
            continue
        if filters.max_tier is not None and (s.tier is None or s.tier > filters.max_tier):
            continue
        if filters.issued_after is not None and not _issued_on_or_after(s.issued, filters.issued_after):
            continue
        out[graph] = s
    return out


def _issued_on_or_after(issued: str | None, day: date) -> bool:
    if not issued:
        return False
    try:
        return date.fromisoformat(issued[:10]) >= day
    except ValueError:
        return False


__all__ = ["Retriever", "Source", "content_words"]
