"""The retriever: a question becomes an evidence pack.

1. The lexical index (:mod:`provgraph.answer.index`) is brought in line with the current
   sources, so superseded and revoked versions are never searched. What the retriever needs to
   know of a source (its document, title, tier ...) comes from the index too, for the sources it
   found only: an ask never reads the catalog.
2. Entity linking: labels (and IRI local names) whose every content word occurs in the question
   link their entity; longer labels first ("New York City" before "York"). Documents are not
   entities.
3. Passages: BM25 over passage text (and, weighing less, its document's title) with the
   question's content words; those holding an answer of the type the question asks for (a
   date for "when", :mod:`provgraph.answer.question`) weigh more, as do those nearer in meaning
   to the question (:mod:`provgraph.answer.semantic`). The second hop: of each of the
   best passages, the documents it names by title, and those its document names elsewhere (its
   "mention" relations, :mod:`provgraph.trust.relations`): their first passage and those sharing
   the question's words. HotpotQA-100: with the relations, the gold answer in the claims went
   from 56.8 to 64.8 (from 48.8 to 58.5 on the half held out while developing).
4. SPARQL expansion: the facts about the linked entities in current source graphs (hop 1), with
   their statements, sources, passages, aggregated confidence and status; the facts about the
   objects of the best of them (hop 2, for evidence chains); the conflicts involving the
   entities, each with every competing statement; the relations of the retrieved documents.
5. Scoring: passages by BM25 relative to the best; facts by how much of their predicate's
   label the question names, then confidence; a conflict above the facts it is about; hop 2 and
   relations below. Items are sorted, cut at ``limit`` (keeping every statement a kept conflict
   cites) and numbered. Ids are content-addressed (:func:`~provgraph.answer.models.evidence_id`).
   Revoked statements are not in the facts found, and the item of a revoked context segment
   (:mod:`provgraph.store.revocations`) is left out.
6. Untrusted sources: an item whose source graph has a passage that gives orders to its reader
   or vouches for itself (:mod:`provgraph.answer.untrusted`) is marked ``untrusted``, with the
   passage; the verifier lets it support no claim.

Filters (:class:`~provgraph.answer.models.AskFilters`) restrict the source graphs searched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from string import Template

from provgraph import evidence as _evidence
from provgraph.answer.index import MAX_TITLE_WORDS, LexicalIndex, Source, local_name
from provgraph.answer.models import (
    AskFilters,
    EvidenceItem,
    EvidenceKind,
    EvidencePack,
    LinkedEntity,
    UntrustedText,
    evidence_id,
)
from provgraph.answer.question import expects, offers
from provgraph.answer.semantic import similarities
from provgraph.answer.text import (
    content_words,
    release_note,
    salient_terms,
    singular,
    table_row,
    term_text,
    tokens,
    under_heading,
    verbal,
    without_possessive,
    word_key,
    words,
)
from provgraph.models import Evidence
from provgraph.store import derived, revocations
from provgraph.store.base import Backend
from provgraph.store.terms import BlankNode, NamedNode, sparql_terms
from provgraph.trust import relations as _relations
from provgraph.trust.annotate import annotate
from provgraph.trust.models import Conflict, FactStatus, ValueClaim
from provgraph.trust.read import conflicts as read_conflicts
from provgraph.trust.relation_models import DocumentRelation, RelationType
from provgraph.vocab import PG_NS

MAX_ENTITIES = 5
MAX_PASSAGES = 20
#: A statement taken from text says where in its passage its evidence is: it is stated by that passage.
EVIDENCE_START = PG_NS + "evidenceStart"
MAX_FACTS = 400
MAX_HOP2_SUBJECTS = 5
MAX_HOP2_FACTS = 40
#: Facts pointing at the linked entities (they are the object) read per retrieval.
MAX_INBOUND_FACTS = 100
#: Questions that ask for members of a class: its instances, and its subclasses' instances.
KIND_QUESTION = re.compile(r"^\s*(which|what\s+(kinds?|types?|sorts?)\s+of)\b", re.IGNORECASE)
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SUBCLASS_OF = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
MAX_RELATIONS = 5
#: Relations of a document an ask reads (its mentions among them: see _mentioned): what its record
#: of strongest relations holds, read whatever the document's degree.
READ_RELATIONS = _relations.STRONGEST_KEPT
#: Passages whose text names other documents by title, and the weight of those documents' passages.
MAX_BRIDGES = 5
BRIDGE_WEIGHT = 0.6
#: Of a document a passage names, its opening passage and this many that best match the question.
#: HotpotQA development half: 1 gave the gold answer in the claims for 57.4% and sentence
#: precision 65.3; 2 gave 59.6% and 63.6 (recall 65.5 and 65.8).
BRIDGE_PASSAGES = 2
#: Weight of the passages of a document whose title the question names.
TITLE_BOOST = 2.0
#: Weight of the passages holding an answer of the type the question asks for (a date for "when").
#: HotpotQA development half: 1.0, 1.3, 2.0 gave sentence recall 46.3, 47.0, 47.0, precision
#: 57.5, 57.0, 56.0 (few of its questions are typed: 17 of 50).
ANSWER_TYPE_BOOST = 1.3

#: Weight of a passage's nearness in meaning to the question (:mod:`provgraph.answer.semantic`):
#: its BM25 score times 1 + this times the cosine. HotpotQA development half: 0, 0.5, 1, 2, 3
#: gave sentence recall 74.4, 75.1, 75.1, 74.1, 74.1, precision 78.6, 79.3, 79.3, 78.3, 78.3,
#: the gold answer in the claims 70.2, 72.3, 72.3, 70.2, 70.2 (held-out half at 0.5: precision
#: 61.6 -> 62.6, the rest unmoved).
SEMANTIC_WEIGHT = 0.5

#: The current source graphs of the documents ``$documents``.
CURRENT_GRAPHS_OF_DOCUMENTS = Template("""SELECT ?g WHERE { VALUES ?d { $documents }
  GRAPH pgid:catalog { ?g pg:document ?d ; pg:status pg:Current } }""")
#: Those of the graphs ``$graphs`` that are current, by direct lookups in the catalog.
CURRENT_AMONG = Template("SELECT ?g WHERE { VALUES ?g { $graphs } GRAPH pgid:catalog { ?g pg:status pg:Current } }")


#: How RDF's, RDFS's and OWL's own predicates read in a sentence.
PHRASES = {
    RDF_TYPE: "is a",
    SUBCLASS_OF: "is a kind of",
    "http://www.w3.org/2000/01/rdf-schema#subPropertyOf": "is a narrower property than",
    "http://www.w3.org/2002/07/owl#sameAs": "is the same as",
    "http://www.w3.org/2002/07/owl#equivalentClass": "is the same class as",
    "http://www.w3.org/2004/02/skos/core#broader": "is narrower than",
    "http://www.w3.org/2004/02/skos/core#narrower": "is broader than",
}
#: What a question calls the built-in predicates besides their phrases: "What kind of drug is
#: warfarin?" asks for its rdf:type.
BUILT_IN_SYNONYMS = {
    RDF_TYPE: ["kind", "type", "class", "category"],
    SUBCLASS_OF: ["kind", "type", "subclass", "category"],
}
#: The labels the ontology graph gives the IRIs ``$iris`` (preferred labels first).
ONTOLOGY_LABELS = Template("""SELECT ?s ?l ?k WHERE {
  VALUES ?s { $iris } VALUES (?lp ?k) { (skos:prefLabel 0) (rdfs:label 1) }
  GRAPH pgid:ontology { ?s ?lp ?l FILTER(isLiteral(?l)) } }""")


#: Every label and synonym the ontology graph gives the properties ``$iris``.
SYNONYMS = Template("""SELECT ?s ?l WHERE { VALUES ?s { $iris } VALUES ?lp { skos:prefLabel rdfs:label skos:altLabel }
  GRAPH pgid:ontology { ?s ?lp ?l FILTER(isLiteral(?l)) } }""")


def _ontology_labels(backend: Backend, iris: Sequence[str], question: Iterable[str] = ()) -> dict[str, str]:
    """A label of each of ``iris`` the ontology graph has: the one sharing most words with the
    ``question`` (its words' 5-letter prefixes: the question's language, when there is a
    choice), then English or untagged, preferred labels before others (direct lookups of the
    IRIs)."""
    asked = set(question)
    iris = [i for i in iris if not i.startswith("_:")]  # a blank node is labelled in its document only
    if not iris:
        return {}
    ranked: dict[str, tuple[tuple[int, int, int, str], str]] = {}
    for row in backend.select(ONTOLOGY_LABELS.substitute(iris=sparql_terms(NamedNode(i) for i in iris))):
        label = row["l"]
        language = getattr(label, "language", None) or ""
        shared = -sum(word_key(w) in asked for w in content_words(label.value))
        english = 0 if language in ("", "en") or language.startswith("en-") else 1
        rank = (shared, english, row.integer("k"), label.value)
        iri = row.value("s")
        if iri not in ranked or rank < ranked[iri][0]:
            ranked[iri] = (rank, label.value)
    return {iri: label for iri, (_, label) in ranked.items()}


class Retriever:
    """Keeps the lexical index of one store (see the module docstring)."""

    def __init__(
        self, backend: Backend, index: LexicalIndex | None = None, *, index_directory: Path | None = None
    ) -> None:
        self._backend = backend
        self._index = index or LexicalIndex.for_backend(backend, directory=index_directory)

    @property
    def index(self) -> LexicalIndex:
        return self._index

    def close(self) -> None:
        self._index.close()

    def retrieve(self, question: str, *, filters: AskFilters | None = None, limit: int = 30) -> EvidencePack:
        """The evidence pack of ``question``: the steps of the module docstring, in order."""
        filters = filters or AskFilters()
        self._index.sync(self._backend)
        question_words = content_words(question)
        question_prefixes = {word_key(w) for w in question_words}
        allowed = _Allowed(self._backend, self._index, filters, question_prefixes)
        entities = self._link(question_words, allowed, _numbered_names(question))
        items: dict[str, _Draft] = {}
        _add(items, self._passage_drafts(question, question_words, allowed))
        # the relations of each document, read once for the second hop and the relation items
        relations: dict[str, list[DocumentRelation]] = {}
        _add(items, self._bridge_drafts(items, question_words, allowed, relations))
        statements = self._statement_drafts(
            entities, allowed, filters, question_prefixes, kinds=KIND_QUESTION.match(question) is not None
        )
        for draft in statements.values():
            found = items.get(draft.id)
            if found is None:
                items[draft.id] = draft
            else:  # a passage found by its words and through a fact it states: the better score
                found.score = max(found.score, draft.score)
        _add(items, self._conflict_drafts(entities, statements, allowed, question_prefixes))
        _add(items, self._relation_drafts(items, allowed, relations))
        return self._pack(question, items, entities, filters, limit)

    # ------------------------------------------------------------------ steps

    def _passage_drafts(self, question: str, question_words: Sequence[str], allowed: _Allowed) -> list[_Draft]:
        """Passages by BM25, relative to the best; those of a document the question names by its
        title weigh more: the document is about what is asked (HotpotQA: sentence precision 48 to 55)."""
        named = {s.graph for s in allowed.named(question)}
        # "When did Mount Teravai last erupt?": "last" is no word the evidence must say, but the
        # sentence saying it is the one asked for
        qualifiers = [w for w in words(question) if w in _ORDER_WORDS]
        hits = self._index.search(
            [*question_words, *qualifiers], kinds=("passage",), filters=allowed.scope, limit=MAX_PASSAGES
        )
        allowed.load(h.graph for h in hits)
        hits = [h for h in hits if allowed.get(h.graph) is not None]
        expected = expects(question)
        # each passage read with its document's title, as the index reads it
        near = similarities(question, [f"{_title(allowed, h.graph)}: {h.text}" for h in hits])
        scores = [
            h.score
            * (TITLE_BOOST if h.graph in named else 1.0)
            * (ANSWER_TYPE_BOOST if offers(h.text, expected, question) else 1.0)
            * (1.0 + SEMANTIC_WEIGHT * max(0.0, similarity))
            for h, similarity in zip(hits, near, strict=True)
        ]
        best = max(scores, default=0.0) or 1.0
        return [
            _Draft(
                id=evidence_id(EvidenceKind.PASSAGE, hit.graph, hit.iri),
                kind=EvidenceKind.PASSAGE,
                score=round(score / best, 6),
                text=hit.text,
                source=allowed.get(hit.graph),
                fields={
                    "passage": hit.iri,
                    "passage_text": hit.text,
                    "section": hit.section or None,
                    "referent": hit.referent or None,
                },
            )
            for hit, score in zip(hits, scores, strict=True)
        ]

    def _bridge_drafts(
        self,
        items: dict[str, _Draft],
        question_words: Sequence[str],
        allowed: _Allowed,
        relations: dict[str, list[DocumentRelation]],
    ) -> list[_Draft]:
        """Passages of documents the best passages name by title: the second hop of a question
        like "the arena where the Lewiston Maineiacs played" ("...played at the Colisée")."""
        bridges = []
        parents = sorted(items.values(), key=lambda d: (-d.score, d.id))[:MAX_BRIDGES]
        mentioned = self._mentioned([p.source.document for p in parents if p.source is not None], allowed, relations)
        for parent in parents:
            assert parent.source is not None
            named = allowed.named(parent.text)
            # the documents the parent's document names elsewhere than in this passage
            named += [s for s in mentioned.get(parent.source.document, []) if s not in named]
            for source in named:
                if source.graph == parent.source.graph:
                    continue
                hits = self._index.first_passages(source.graph, 1)
                hits += self._index.search(
                    question_words, kinds=("passage",), graphs=[source.graph], limit=BRIDGE_PASSAGES
                )
                for hit in hits:
                    found = items.get(evidence_id(EvidenceKind.PASSAGE, hit.graph, hit.iri))
                    if found is not None:
                        # found by its own words already: it is the second hop from this parent too
                        if parent not in found.related_drafts and found is not parent:
                            found.related_drafts.append(parent)
                        continue
                    bridge = _Draft(
                        id=evidence_id(EvidenceKind.PASSAGE, hit.graph, hit.iri),
                        kind=EvidenceKind.PASSAGE,
                        score=round(BRIDGE_WEIGHT * parent.score, 6),
                        text=hit.text,
                        source=source,
                        hop=2,
                        fields={
                            "passage": hit.iri,
                            "passage_text": hit.text,
                            "section": hit.section or None,
                            "referent": hit.referent or None,
                        },
                    )
                    bridge.related_drafts = [parent]
                    bridges.append(bridge)
        return bridges

    def _relationships(
        self, documents: Sequence[str], relations: dict[str, list[DocumentRelation]]
    ) -> dict[str, list[DocumentRelation]]:
        """The relations of ``documents``, read once per retrieval (kept in ``relations``), those
        not read yet together."""
        missing = [d for d in dict.fromkeys(documents) if d not in relations]
        if missing:
            # what a relation draft says (titles, kinds, strength) needs no evidence items, and a
            # mention outweighs any shared-entity relation, so the strongest hold the mentions
            relations |= _relations.relationships_each(self._backend, missing, evidence=False, limit=READ_RELATIONS)
        return relations

    def _mentioned(
        self, documents: Sequence[str], allowed: _Allowed, relations: dict[str, list[DocumentRelation]]
    ) -> dict[str, list[Source]]:
        """For each of ``documents``, the allowed sources of the documents it names (its
        "mention" relations)."""
        found: dict[str, list[str]] = {}
        read = self._relationships(documents, relations)
        for document in dict.fromkeys(documents):
            for relation in read[document]:
                if relation.from_document == document and RelationType.MENTION in relation.types:
                    found.setdefault(document, []).append(relation.to_document)
        sources = allowed.sources(d for named in found.values() for d in named)
        return {d: [sources[n] for n in named if n in sources] for d, named in found.items()}

    def _statement_drafts(
        self,
        entities: Sequence[LinkedEntity],
        allowed: _Allowed,
        filters: AskFilters,
        question: set[str],
        *,
        kinds: bool,
    ) -> dict[tuple[str, str], _Draft]:
        """The facts about the linked entities and those pointing at them (hop 1), then about the
        objects of the best of them (hop 2), by (statement, graph). ``kinds`` (a question asking
        "which ..."): also the instances of the subclasses of a linked class (hop 2)."""
        statements: dict[tuple[str, str], _Draft] = {}
        subjects = [_node(e.iri) for e in entities]
        about = _evidence.about(self._backend, subjects, limit=MAX_FACTS)
        # "which drugs interact with warfarin": "ibuprofen interacts with warfarin" is a fact
        # about ibuprofen, found from warfarin's side
        targets = [s for s in subjects if isinstance(s, NamedNode)]
        pointing = _evidence.pointing_at(self._backend, targets, limit=MAX_INBOUND_FACTS)
        # both sides checked together: each check is a query, a round trip to a remote store
        checked = self._facts(about + pointing, allowed, filters)
        own, pointed = {(e.statement, e.graph) for e in about}, {(e.statement, e.graph) for e in pointing}
        inbound = [e for e in checked if (e.statement, e.graph) in pointed]
        for e in checked:
            if (e.statement, e.graph) in own:
                statements[(e.statement, e.graph)] = self._fact_item(e, allowed, question, hop=1)
        for e in inbound:
            statements.setdefault((e.statement, e.graph), self._fact_item(e, allowed, question, hop=1))
        if kinds:
            subclasses = list(dict.fromkeys(NamedNode(e.subject) for e in inbound if e.predicate == SUBCLASS_OF))
            members = _evidence.pointing_at(self._backend, subclasses[:MAX_HOP2_SUBJECTS], limit=MAX_HOP2_FACTS)
            for e in self._facts([m for m in members if m.predicate == RDF_TYPE], allowed, filters):
                statements.setdefault((e.statement, e.graph), self._fact_item(e, allowed, question, hop=2))
        hop1 = sorted((d for d in statements.values() if d.hop == 1), key=lambda d: (-d.score, d.id))
        seen = {e.iri for e in entities}
        objects: list[NamedNode | BlankNode] = []
        for draft in hop1:
            obj = str(draft.fields.get("object") or "")
            # an IRI, or a blank node of the same document ("ex:dose [ ex:mg 500 ]")
            name = obj[1:-1] if obj.startswith("<") else obj if obj.startswith("_:") else None
            if name is not None and name not in seen and len(objects) < MAX_HOP2_SUBJECTS:
                seen.add(name)
                objects.append(_node(name))
        for e in self._facts(_evidence.about(self._backend, objects, limit=MAX_HOP2_FACTS), allowed, filters):
            if (e.statement, e.graph) not in statements:
                statements[(e.statement, e.graph)] = self._fact_item(e, allowed, question, hop=2)
        return statements

    def _conflict_drafts(
        self,
        entities: Sequence[LinkedEntity],
        statements: dict[tuple[str, str], _Draft],
        allowed: _Allowed,
        question: set[str],
    ) -> list[_Draft]:
        """The conflicts involving the linked entities, each followed by every competing statement
        it cites (a blank node is local to its document: no other source can disagree about it)."""
        drafts = []
        for entity in entities:
            if entity.iri.startswith("_:"):
                continue
            found_conflicts = read_conflicts(self._backend, subject=entity.iri)
            allowed.load(claim.graph for c in found_conflicts for v in c.values for claim in v.claims)
            for conflict in found_conflicts:
                found = self._conflict_item(conflict, statements, allowed, question)
                if found is not None:
                    drafts += [found, *found.related_drafts]
        return drafts

    def _relation_drafts(
        self, items: dict[str, _Draft], allowed: _Allowed, relations: dict[str, list[DocumentRelation]]
    ) -> list[_Draft]:
        """The relations of the best retrieved documents, between allowed documents."""
        ranked = sorted(items.values(), key=lambda d: (-d.score, d.id))
        top_documents = list(dict.fromkeys(d.source.document for d in ranked if d.source))[:3]
        read = self._relationships(top_documents, relations)
        found = [r for d in top_documents for r in read[d][:MAX_RELATIONS]]
        allowed_documents = allowed.documents(d for r in found for d in (r.from_document, r.to_document))
        return [
            _Draft(
                id=evidence_id(EvidenceKind.RELATION, relation.iri),
                kind=EvidenceKind.RELATION,
                score=round(0.1 * relation.strength, 6),
                text=f"{relation.from_title} is related to {relation.to_title} "
                f"({', '.join(t.value for t in relation.types)}; strength {relation.strength:.2f}).",
                source=None,
                fields={"document": relation.from_document, "title": relation.from_title},
            )
            for relation in found
            if relation.from_document in allowed_documents and relation.to_document in allowed_documents
        ]

    def _link(
        self, question_words: Sequence[str], allowed: _Allowed, numbered: Sequence[list[str]] = ()
    ) -> list[LinkedEntity]:
        # "which drugs" names the class labelled "drug"
        question_words = list(dict.fromkeys([*question_words, *(singular(w) for w in question_words)]))
        asked = set(question_words)
        asked_prefixes = {word_key(w) for w in question_words}
        hits = self._index.search(question_words, kinds=("label", "name"), filters=allowed.scope, limit=400)
        allowed.load(h.graph for h in hits)
        documents = self._index.documents(h.iri for h in hits)
        best: dict[str, tuple[int, float, LinkedEntity]] = {}
        for hit in hits:
            if hit.iri in documents or allowed.get(hit.graph) is None:
                continue
            label_words = content_words(hit.text)
            if not label_words or not all(w in asked or word_key(w) in asked_prefixes for w in label_words):
                continue
            # "Kepler" is not the "Kepler-186" the question names, nor "Apollo" its "Apollo 11"
            if any(set(label_words) < set(n) and not set(label_words) & set(_numbers(n)) for n in numbered):
                continue
            matched = " ".join(label_words)
            entity = LinkedEntity(iri=hit.iri, label=hit.text, score=round(hit.score, 6), matched=matched)
            key = (len(label_words), hit.score)
            if hit.iri not in best or key > best[hit.iri][:2]:
                best[hit.iri] = (*key, entity)
        ranked = sorted(best.values(), key=lambda b: (-b[0], -b[1], b[2].iri))
        return [b[2] for b in ranked[:MAX_ENTITIES]]

    def _facts(self, found: list[Evidence], allowed: _Allowed, filters: AskFilters) -> list[Evidence]:
        """Of the facts ``found``, those of allowed sources, annotated with trust, and above the
        filters' minimum confidence."""
        if not found:
            return []
        allowed.load(e.graph for e in found)
        found = [e for e in found if allowed.get(e.graph) is not None]
        self._labels([i for e in found for i in _iris(e.subject, e.predicate, e.object)], allowed)
        self._synonyms([e.predicate for e in found], allowed)
        found = annotate(self._backend, found)
        if filters.min_confidence is not None:
            found = [e for e in found if (e.fact_confidence or 0.0) >= filters.min_confidence]
        return found

    def _labels(self, iris: Iterable[str], allowed: _Allowed) -> dict[str, str]:
        """Labels of ``iris``, looked up once per retrieval (the facts' all at once): a phrase of
        RDF's own vocabulary, else a label the sources declare, else one of the ontology graph,
        else the IRI's local name."""
        wanted = list(dict.fromkeys(iris))
        missing = [iri for iri in wanted if iri not in allowed.labels]
        if missing:
            found = {iri: PHRASES[iri] for iri in missing if iri in PHRASES}
            found.update(self._index.labels([i for i in missing if i not in found], declared=True))
            found.update(_ontology_labels(self._backend, [i for i in missing if i not in found], allowed.question))
            found.update(self._index.labels([i for i in missing if i not in found]))
            allowed.labels.update({iri: found.get(iri) or local_name(iri) or iri for iri in missing})
        return {iri: allowed.labels[iri] for iri in wanted}

    def _asked(self, predicate: str, label: str, question: set[str], allowed: _Allowed) -> float:
        """How much of the property the question asks for: the share of a label's words in it,
        the best of the label shown and the ontology's labels and synonyms ("tall" for height)."""
        self._synonyms([predicate], allowed)
        best = 0.0
        for name in [label, *allowed.synonyms.get(predicate, [])]:
            words = content_words(name)
            if words:
                best = max(best, sum(word_key(w) in question for w in words) / len(words))
        return best

    def _synonyms(self, predicates: Iterable[str], allowed: _Allowed) -> None:
        """Look up, once per retrieval and all at once, the ontology's labels and synonyms of
        ``predicates`` (into ``allowed.synonyms``)."""
        missing = [p for p in dict.fromkeys(predicates) if p not in allowed.synonyms and not p.startswith("_:")]
        if not missing:
            return
        for predicate in missing:
            allowed.synonyms[predicate] = list(BUILT_IN_SYNONYMS.get(predicate, []))
        for row in self._backend.select(SYNONYMS.substitute(iris=sparql_terms(NamedNode(p) for p in missing))):
            allowed.synonyms[row.value("s")].append(row["l"].value)

    def _fact_item(self, e: Evidence, allowed: _Allowed, question: set[str], *, hop: int) -> _Draft:
        if e.passage is not None and EVIDENCE_START in e.attributes:
            return self._stating_passage(e, allowed, question, hop=hop)
        labels = self._labels(_iris(e.subject, e.predicate, e.object), allowed)
        subject, predicate = labels[e.subject], labels[e.predicate]
        obj = labels[e.object[1:-1]] if e.object.startswith("<") else term_text(e.object)
        if predicate == PHRASES[RDF_TYPE] and _vowel_sound(obj):
            predicate += "n"  # "is an anticoagulant", "is an NSAID"
        overlap = self._asked(e.predicate, predicate, question, allowed)
        confidence = e.fact_confidence if e.fact_confidence is not None else e.confidence
        score = 0.5 + 0.4 * overlap + 0.1 * confidence
        return _Draft(
            id=evidence_id(EvidenceKind.STATEMENT, e.graph, e.statement),
            kind=EvidenceKind.STATEMENT,
            score=round(score * (0.5 if hop == 2 else 1.0), 6),
            text=f"{subject} {predicate} {obj}." if verbal(predicate) else f"The {predicate} of {subject} is {obj}.",
            source=allowed.get(e.graph),
            hop=hop,
            fields={
                "statement": e.statement,
                "subject": e.subject,
                "predicate": e.predicate,
                "object": e.object,
                "subject_label": subject,
                "predicate_label": predicate,
                "predicate_synonyms": allowed.synonyms.get(e.predicate, []),
                "object_label": obj,
                "confidence": round(confidence, 6),
                "status": e.fact_status,
                "passage": e.passage.iri if e.passage else None,
                "passage_text": e.passage.text if e.passage else None,
                "section": e.passage.section if e.passage else None,
            },
        )

    def _stating_passage(self, e: Evidence, allowed: _Allowed, question: set[str], *, hop: int) -> _Draft:
        """A fact read from text is evidence in the text's own words: its passage, found through
        the fact (so "It was built by Robert Stevenson" comes with a question about the Bell Rock
        Lighthouse, which it never names), ranked by how well the fact's property matches the
        question. Its conflicts still cite it as a statement (see :meth:`_conflict_item`)."""
        assert e.passage is not None
        predicate = self._labels([e.predicate], allowed)[e.predicate]
        overlap = self._asked(e.predicate, predicate, question, allowed)
        return _Draft(
            id=evidence_id(EvidenceKind.PASSAGE, e.graph, e.passage.iri),
            kind=EvidenceKind.PASSAGE,
            score=round((0.5 + 0.4 * overlap) * (0.5 if hop == 2 else 1.0), 6),
            text=e.passage.text,
            source=allowed.get(e.graph),
            hop=hop,
            fields={"passage": e.passage.iri, "passage_text": e.passage.text, "section": e.passage.section},
        )

    def _conflict_item(
        self,
        conflict: Conflict,
        statements: dict[tuple[str, str], _Draft],
        allowed: _Allowed,
        question: set[str],
    ) -> _Draft | None:
        related: list[_Draft] = []
        sides = []
        for value in conflict.values:
            drafts = []
            for claim in value.claims:
                if allowed.get(claim.graph) is None:
                    continue
                draft = statements.get((claim.statement, claim.graph))
                if draft is None or draft.kind is not EvidenceKind.STATEMENT:  # (a fact from text: its passage)
                    draft = self._claim_item(value.predicate, claim, allowed, stated_in=draft)
                drafts.append(draft)
            if drafts:
                related += drafts
                sources = list(dict.fromkeys(d.source.title for d in drafts if d.source))
                sides.append(f"{term_text(value.value)} ({', '.join(sources)})")
        if len(sides) < 2:
            return None  # the filters leave one side: no disagreement among the sources searched
        labels = self._labels([conflict.subject, *conflict.predicates], allowed)
        subject, predicate = labels[conflict.subject], labels[conflict.predicates[0]]
        overlap = self._asked(conflict.predicates[0], predicate, question, allowed)
        text = f"Sources disagree on the {predicate} of {subject}: " + "; ".join(sides) + "."
        rationale = conflict.resolution.rationale.rstrip(".")
        for document, title in {d.source.document: d.source.title for d in related if d.source}.items():
            rationale = rationale.replace(document, title)  # a source without publisher nor URL is its document
        preferred = conflict.preferred
        if preferred is not None:
            text += f" Preferred: {term_text(preferred.value)} ({rationale})."
        else:
            text += f" No value is preferred ({rationale})."
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
                "predicate_synonyms": allowed.synonyms.get(conflict.predicates[0], []),
                "status": FactStatus.CONTESTED,
                "conflict": conflict,
            },
        )
        draft.related_drafts = related
        return draft

    def _claim_item(
        self, predicate: str, claim: ValueClaim, allowed: _Allowed, *, stated_in: _Draft | None = None
    ) -> _Draft:
        """A statement item for a competing statement the hop-1 facts did not hold (its subject
        is an alias merged by entity resolution), or held as the passage that states it (a fact
        from text, ``stated_in``: the item cites that sentence)."""
        labels = self._labels(_iris(claim.subject, predicate, claim.object), allowed)
        obj = labels[claim.object[1:-1]] if claim.object.startswith("<") else term_text(claim.object)
        passage = (
            {k: stated_in.fields.get(k) for k in ("passage", "passage_text", "section")}
            if stated_in is not None
            else {}
        )
        return _Draft(
            id=evidence_id(EvidenceKind.STATEMENT, claim.graph, claim.statement),
            kind=EvidenceKind.STATEMENT,
            score=0.5,
            # from text: the source's own sentence, as the citation shows it
            text=stated_in.text if stated_in is not None else f"{labels[claim.subject]} {labels[predicate]} {obj}.",
            source=allowed.get(claim.graph),
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
                **passage,
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
        # an item of a revoked context segment is never shown again (its statements are left out
        # of the evidence lookups already)
        revoked = revocations.evidence(self._backend)
        ranked = sorted((d for d in items.values() if d.id not in revoked), key=lambda d: (-d.score, d.id))
        chosen: dict[str, _Draft] = {}
        for draft in ranked:
            if len(chosen) >= limit:
                break
            chosen[draft.id] = draft
            for related in draft.related_drafts:
                if related.id not in revoked:
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

    def _read(self) -> str:
        """The text as read: a Markdown table's row with its header's labels ("Outcome: Change in
        body weight (kg) | Tirzepatide 15 mg: -11.2"), as an HTML table's row reads; a note of a
        release with its version ("Version 2.9.4 (15 August 2026): Fixed a memory leak."); a list
        item completing its heading with it ("Do not take Cardenol if you have severe asthma")."""
        if self.kind is not EvidenceKind.PASSAGE:
            return self.text
        section = self.fields.get("section")
        if not isinstance(section, str):
            return release_note(self.text, None) or self.text  # a release's own heading needs no section
        return (
            table_row(self.text, section)
            or release_note(self.text, section)
            or under_heading(self.text, section)
            or self.text
        )

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
                "text": self._read(),
                "hop": self.hop,
                **source,
                **self.fields,
                "related": [r.id for r in self.related_drafts],
            }
        )


#: Words ordering what is asked ("last erupted", "first performed") that no answer must repeat.
_ORDER_WORDS = frozenset("first last latest earliest".split())


def _numbers(name: Sequence[str]) -> list[str]:
    return [w for w in name if any(c.isdigit() for c in w)]


def _numbered_names(question: str) -> list[list[str]]:
    """The names of ``question`` holding a number, as words ("kepler 186"): one of their words
    alone names something else."""
    return [said for t in salient_terms(question) if len(said := t.split()) > 1 and _numbers(said)]


def _add(items: dict[str, _Draft], drafts: Iterable[_Draft]) -> None:
    """Add ``drafts`` to ``items``; an item already there stays as it is."""
    for draft in drafts:
        items.setdefault(draft.id, draft)


def _node(name: str) -> NamedNode | BlankNode:
    """The term of an entity as the index and the evidence hold it: "_:id" or an IRI."""
    return BlankNode(name[2:]) if name.startswith("_:") else NamedNode(name)


def _mark(item: EvidenceItem, untrusted: UntrustedText | None) -> EvidenceItem:
    return item if untrusted is None else item.model_copy(update={"untrusted": untrusted})


class _Allowed:
    """The sources one retrieval may use: current (indexed) and passing the filters. Looked up in
    the index for the graphs found, never listed whole. When the index is ahead of the store (a
    reader of an older checkpoint), a graph must also be current in the store read."""

    def __init__(
        self, backend: Backend, index: LexicalIndex, filters: AskFilters, question: Iterable[str] = ()
    ) -> None:
        self._backend = backend
        #: the question's words, as 5-letter prefixes (which label speaks its language)
        self.question = frozenset(question)
        self._index = index
        restricts = bool(filters.documents) or filters.max_tier is not None or filters.issued_after is not None
        self.scope = filters if restricts else None
        self._known: dict[str, Source | None] = {}
        #: labels looked up in this retrieval
        self.labels: dict[str, str] = {}
        #: the ontology's labels and synonyms of the properties met in this retrieval
        self.synonyms: dict[str, list[str]] = {}
        self._verify = index.stored(backend) != derived.stamp(backend)

    def load(self, graphs: Iterable[str]) -> None:
        wanted = [g for g in dict.fromkeys(graphs) if g not in self._known]
        if not wanted:
            return
        found = self._index.sources(wanted, self.scope)
        if self._verify and found:
            found = {g: s for g, s in found.items() if g in _current(self._backend, list(found))}
        self._known.update({g: found.get(g) for g in wanted})

    def get(self, graph: str) -> Source | None:
        if graph not in self._known:
            self.load([graph])
        return self._known[graph]

    def named(self, text: str) -> list[Source]:
        """The allowed documents whose title ``text`` contains. A one-word title must be
        capitalised in the text, so that "winner" does not name the band "Winner"."""
        written = tokens(text)
        normal = [words(t)[0] if words(t) else "" for t in written]
        keys: dict[tuple[str, ...], bool] = {}
        for i in range(len(normal)):
            for n in range(1, MAX_TITLE_WORDS + 1):
                key = tuple(normal[i : i + n])
                if len(key) < n:
                    break
                ok = keys.get(key, False) or n > 1 or written[i][:1].isupper()
                keys[key] = ok
                # "President Bill Clinton's national intelligence officer" names "Bill Clinton"
                owner = (*key[:-1], without_possessive(key[-1]))
                if owner != key:
                    keys[owner] = keys.get(owner, False) or ok
        titles = self._index.named([k for k, ok in keys.items() if ok], self.scope)
        self.load(s.graph for found in titles.values() for s in found)
        out: dict[str, Source] = {}
        for key in keys:
            for source in titles.get(key, []):
                if self.get(source.graph) is not None:
                    out.setdefault(source.graph, source)
        return list(out.values())

    def sources(self, iris: Iterable[str]) -> dict[str, Source]:
        """The allowed current source of each of the document IRIs ``iris`` that has one."""
        wanted = list(dict.fromkeys(iris))
        if not wanted:
            return {}
        rows = self._backend.select(CURRENT_GRAPHS_OF_DOCUMENTS.substitute(documents=sparql_terms(wanted)))
        graphs = [r.value("g") for r in rows]
        self.load(graphs)
        return {s.document: s for g in graphs if (s := self.get(g)) is not None}

    def documents(self, iris: Iterable[str]) -> set[str]:
        """Those of the document IRIs ``iris`` with an allowed current source."""
        return set(self.sources(iris))


def _title(allowed: _Allowed, graph: str) -> str:
    source = allowed.get(graph)
    return source.title if source is not None and source.title else ""


def _vowel_sound(word: str) -> bool:
    """Whether ``word`` is said starting with a vowel: "anticoagulant", and an acronym said letter
    by letter whose first letter's name starts with one ("NSAID": "en-", "FDA": "ef-")."""
    if re.fullmatch(r"[A-Z]{2,}s?", word.split(" ")[0]):
        return word[0] in "AEFHILMNORSX"
    return word[:1].lower() in "aeiou"


def _iris(subject: str, predicate: str, obj: str) -> list[str]:
    """The terms of a fact a reader wants labels of: subject, predicate and an IRI object."""
    return [subject, predicate] + ([obj[1:-1]] if obj.startswith("<") else [])


def _current(backend: Backend, graphs: Sequence[str]) -> set[str]:
    """Those of ``graphs`` the store's catalog says are current (direct lookups)."""
    return {r.value("g") for r in backend.stream(CURRENT_AMONG.substitute(graphs=sparql_terms(graphs)))}


__all__ = ["Retriever", "Source", "content_words"]
