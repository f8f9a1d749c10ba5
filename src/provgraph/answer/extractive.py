"""The offline extractive generator: the default, with no network, no key and no randomness.

It turns the best evidence of a pack into claims in plain language and cites each claim's
evidence; it never writes a word the evidence does not hold, apart from the phrasing below.

Selection. Evidence whose text, or whose source, gives orders to its reader or vouches for
itself (:func:`~provgraph.answer.untrusted.inspect_item`) is never stated: the verifier would
refuse it. Text of the evidence in a claim is quoted without its citation-like marks (``[1]``
in a passage is its document's footnote, not a citation of the answer). An item is *relevant*
when it mentions a linked entity of the question or one of the question's salient terms (names, numbers, quoted phrases:
:func:`~provgraph.answer.text.salient_terms`). Conflicts come first, then facts, then passages;
passages only when they score at least ``PASSAGE_RATIO`` of the best passage. When no relevant
item is left, the draft has no claims and the verifier abstains. A passage that opens with a
pronoun standing for its document's subject is stated with the title instead (:func:`in_context`).
A stated passage that does not open with its document's subject ("It has operations in ...")
brings the relevant passage of its document that does ("The Halliburton Company is ..."), so a
reader knows what "it" is. For a factoid question ("Who built ...?", "When was ... built?",
"How tall is ...?"), the answer opens with a short sentence stating the span of the best passage
that answers, citing that passage (:mod:`provgraph.answer.span`): "Robert Stevenson built the
Bell Rock Lighthouse [1]".

Verdicts come first. A choice between two things the question names ("Who is older, A or B?")
is decided by a figure from a passage about each, or ("Which dog's ancestors include ...: A or
B?") by the one whose own passage says what the question asks when the other's does not; a
yes/no question about two things ("Are A and B both opera composers?", "Were A and B of the same
nationality?", "Are A and B both located in Michigan?") by what a passage about each says; a
yes/no question a fact answers gets "Yes"; one about one thing that a passage about it answers word
for word gets "Yes" when the passage states it, "No" when it denies it ("Does Globex pay
dividends?": "No: The company does not pay dividends."). Each verdict cites both sides. Nothing
is ever answered "No" because a source is silent: only two stated values that differ (a side put
in Michigan, the other in "Elko County, Nevada") or a source's own denial say "No".

Phrasing follows the fact's aggregated confidence and agreement between independent sources:

========================  ==================================================================
confidence >= 0.9         "It is established that S p O"
0.7 <= confidence < 0.9   "According to <title>, S p O"
0.5 <= confidence < 0.7   "Evidence suggests that S p O"
confidence < 0.5          "Unverified reports state that S p O"
2 sources                 "... (supported by A and B)"
3+ sources                "... (strongly supported by multiple sources: A, B, C)"
========================  ==================================================================

A conflict is always stated with every side and its sources, then the resolution's rationale:
"Sources disagree on the population total of Amsterdam: en.wikipedia.org reports 872757, while
nl.wikipedia.org reports 862965; preferred: 872757 (<rationale>)"; sources are named by their
documents' titles when two sides share a source key, and a source stating several values is one
side ("Amsterdam (es.wikipedia.org) reports both 57 and 762"). Claims drawn from two or more
documents are grouped by subtopic (the subject's label, or the passage's document title).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache, lru_cache
from itertools import pairwise

from provgraph.answer.linking import checks_links, linked_through, links
from provgraph.answer.models import (
    Citation,
    ClaimClass,
    DraftAnswer,
    DraftClaim,
    EvidenceItem,
    EvidenceKind,
    EvidencePack,
    SupportLevel,
)
from provgraph.answer.question import (
    INDEFINITE,
    PLACED_IN,
    Comparison,
    Expects,
    Order,
    Pair,
    calendar_date,
    choices,
    comparison,
    described,
    expects,
    figure,
    figure_value,
    kind_asked,
    offers,
    pair,
    thing_of,
    topics,
    year_bound,
)
from provgraph.answer.span import short_answer, span
from provgraph.answer.text import (
    OUTCOMES,
    PRONOUNS,
    RELEASE_PREFIX,
    SECTION_SEPARATOR,
    STATES,
    STOP_WORDS,
    acronyms,
    clauses,
    content_words,
    contrasted,
    denials_of,
    in_form,
    is_headline,
    leaves_open,
    mentions,
    name_heads,
    nearest_heading,
    normalise,
    number_text,
    opening_name,
    place_after,
    position,
    possessed,
    ranked,
    row_fields,
    salient_names,
    salient_terms,
    singular,
    spells,
    split_camel,
    term_text,
    tokens,
    unbracketed,
    under_heading,
    verbal,
    without_disambiguation,
    without_possessive,
    word_key,
    word_keys,
    word_matches,
    word_readings,
    words,
)
from provgraph.answer.untrusted import inspect_item, strip_citation_marks
from provgraph.trust.models import Conflict, ConflictKind, FactStatus, ValueOutcome

#: Passages scoring below this share of the best relevant passage are left out, unless they cover
#: a name of the question no other does (HotpotQA 100: 0.8 gave sentence precision 48.8 for
#: recall 46.3; 0.5 gave 38.0 for 47.8).
PASSAGE_RATIO = 0.8
#: Facts scoring more than this below the best fact are left out (the question names a property
#: the best facts have and these lack).
FACT_MARGIN = 0.15
#: At most this many claims of each kind.
MAX_FACTS = 6
MAX_PASSAGES = 4
MAX_CONFLICTS = 3
#: A passage is stated for the question's words it covers when it holds at least this many that
#: no other stated passage holds. HotpotQA development half: 2 gave sentence recall 66.1 and
#: precision 63.6, 3 gave 65.5 and 65.7 (none: 63.0 and 64.3).
MIN_NEW_WORDS = 3
#: A passage naming a stated passage's document is stated for the question's words it holds that
#: no stated passage holds when it holds at least this many (it is linked: fewer suffice than
#: ``MIN_NEW_WORDS``).
MIN_LINKED_WORDS = 2
#: Share of a choice question's words (the options' names aside) the chosen option's passage must hold.
MIN_CHOICE_SHARE = 0.5
#: Share of what a factoid question asks of its names (its words but the names') a passage must
#: say to be the one that answers it (:func:`_answers`): "died" of "When did Pierre Curie die?".
MIN_ANSWERING_SHARE = 0.5
#: At most this many passages stated only because they say what a stated passage's document is about.
MAX_DEFINING = 2


def _item_text(item: EvidenceItem) -> str:
    parts = [item.text, item.title or "", item.section or "", item.subject_label or "", item.object_label or ""]
    if item.title and "(" in item.title:
        parts.append(unbracketed(item.title))
    parts += [item.passage_text or "", item.referent or ""]
    return " ".join(words(" ".join(parts)))


def _unverdicted(text: str) -> list[str]:
    """The words of a claim without the "Yes" or "No" it opens with: "No: Gift cards cannot be
    returned." states "No, gift cards cannot be returned." again, "No: No illnesses have been
    reported." "No illnesses have been reported."."""
    text = re.sub(r"^(?:Yes|No):\s*", "", text)  # the verdict's, then the sentence's own ("No, ...")
    return words(re.sub(r"^(?:yes|no)[,.:;!]\s*", "", text, flags=re.I))


#: A sentence that asks: it opens with a question word or an auxiliary verb and ends with a
#: question mark ('... the song "Where Are You Now?"' asks nothing).
_QUESTION = re.compile(
    r"^\s*(?:who|whom|whose|what|when|where|why|how|which|is|are|was|were|am|do|does|did|can|could|will|would|"
    r"should|shall|may|might|must|has|have|had)\b[^\"\u201c]*\?\s*$",
    re.I,
)


def _own_words(item: EvidenceItem) -> str:
    """A passage's own words, normalised: without its document's title, section and referent."""
    return " ".join(words(item.text))


def compact_citations(numbers: Iterable[int]) -> str:
    """``[1-3][5]`` for 1, 2, 3, 5: three or more adjacent numbers become a range
    (:meth:`Citation.marks <provgraph.answer.models.Citation.marks>`)."""
    return Citation.marks(numbers)


class ExtractiveGenerator:
    """The default generator: deterministic claims from the best evidence (see the module docstring).

    >>> from provgraph.answer.models import EvidenceItem, EvidenceKind, EvidencePack
    >>> item = EvidenceItem(id="ev-1", number=1, kind=EvidenceKind.PASSAGE, score=1.0,
    ...                     text="Aspirin reduces fever.", title="Aspirin note", document="urn:d")
    >>> draft = ExtractiveGenerator().generate(EvidencePack(question="Does Aspirin reduce fever?", items=[item]))
    >>> [(c.text, c.supporting_citations) for c in draft.claims]
    [('Yes: Aspirin reduces fever.', ['ev-1'])]
    """

    @property
    def name(self) -> str:
        return "extractive"

    def generate(self, pack: EvidencePack) -> DraftAnswer:
        """The draft of ``pack``: the relevant items, stated conflicts first, then facts, then
        passages, grouped by subtopic (see the module docstring)."""
        relevant = self._relevant(pack)
        by_id = {item.id: item for item in pack.items}
        focus = _focus(pack)
        conflicts, statements = _on_focus(relevant, focus)
        conflict_claims = _conflict_claims(conflicts, by_id)
        used = {c for claim in conflict_claims for c in claim.supporting_citations}
        facts = _best_facts(statements, used, pack.question)
        fact_claims, limitations = _fact_claims(facts)
        fact_claims = _confirmed(fact_claims, facts, pack.question)
        stated = [i for g in facts for i in g] + [i for i in conflicts if i.id in used]
        passage_claims = _passage_claims(relevant, pack.question, focus, stated)
        verdict = _verdict(relevant, pack.question)
        # a verdict stating a passage ("Yes: Metformin is taken by mouth.") is its claim
        passage_claims = [
            c
            for c in passage_claims
            if not any(
                v.supporting_citations == c.supporting_citations and _unverdicted(v.text) == _unverdicted(c.text)
                for v in verdict
            )
        ]
        if verdict and comparison(pack.question) is None and pair(pack.question) is None and not choices(pack.question):
            # "No: The museum is closed on Mondays." answers "Is the museum open on Mondays?": a
            # passage saying less than half of what is asked ("curated ... at the museum") adds
            # nothing, unless it names what the verdict's evidence does not ("The Gauja flows ...")
            decided = " ".join(_item_text(by_id[i]) for v in verdict for i in v.supporting_citations if i in by_id)
            unnamed = [t for t in salient_terms(pack.question) if not _says_name(decided, t, pack.question)]
            passage_claims = [
                c
                for c in passage_claims
                if all(
                    _says_asked(item, pack.question)
                    or any(_says_name(_item_text(item), t, pack.question) for t in unnamed)
                    for i in c.supporting_citations
                    if (item := by_id.get(i)) is not None
                )
            ]
        elif verdict:
            passage_claims = _of_the_decided(passage_claims, verdict, by_id)
        claims = _by_subtopic([*verdict, *conflict_claims, *fact_claims, *passage_claims], by_id)
        return _draft(pack, relevant, claims, limitations, by_id)

    @staticmethod
    def _relevant(pack: EvidencePack) -> list[EvidenceItem]:
        """Items about a linked entity or a salient term of the question, best first."""
        terms = salient_terms(pack.question)
        linked = {e.iri for e in pack.entities}
        question_words = {w for w in words(pack.question) if w not in STOP_WORDS}
        question_keys = {word_key(w) for w in question_words}
        # "Contoso's largest customer", when no item says "Contoso's": an item about Contoso may
        # say it ("Bill Cosby's third album" is not any item naming Bill Cosby, when one says it)
        texts = {i.id: _item_text(i) for i in pack.items}
        bare = {t for t in terms if not any(_says_name(x, t, pack.question) for x in texts.values())}
        # "Fernwood's revenue": an item naming Fernwood that says "revenue" is about it, though
        # another says "Fernwood's shares"
        owned = {t: has for t in terms if (has := possessed(pack.question, t))}
        out = []
        pronouns = []  # passages not kept that speak of a person by a pronoun
        opening = []  # ... and those opening with their document's name, answering as asked
        for item in sorted(pack.items, key=lambda i: (-i.score, i.number)):
            if item.kind is EvidenceKind.RELATION or item.redacted is not None or inspect_item(item) is not None:
                continue
            if item.kind is EvidenceKind.PASSAGE and _QUESTION.search(item.text):
                continue  # "Can I return a gift card?" of an FAQ states nothing: no claim, no verdict
            text = texts[item.id]
            about_entity = item.subject in linked or (item.object or "").strip("<>") in linked
            if item.kind is EvidenceKind.CONFLICT and item.conflict is not None:
                about_entity = item.conflict.subject in linked or bool(set(item.conflict.merged_subjects) & linked)
            if (item.hop == 2 or item.related) and item.kind is EvidenceKind.PASSAGE:
                # a passage of a document the question's passages name (the second hop, found by
                # its own words or not): kept when it shares a word with the question, inflections
                # alike, or what a phrase says ("She studied at ...", "(4 March 1889 - 2 June 1961)"
                # for "When was the designer of the bridge born?"); the relevance of its parent is
                # checked on selection
                keep = bool(question_words & set(text.split())) or bool(
                    question_keys & word_keys(item.text, measures=True)
                )
            elif terms:
                keep = about_entity or any(
                    _says_name(text, t, pack.question, possessive=t in bare)
                    or _says_possessed(text, t, pack.question, owned.get(t, set()))
                    for t in terms
                )
            else:
                # no names in the question: the item must share a content word with it,
                # inflections alike ("Claims must be reported ..." for "How long do I have to
                # report a claim?")
                keep = about_entity or bool(question_keys & {word_key(w) for w in text.split()})
            if keep:
                out.append(item)
            elif (
                item.kind is EvidenceKind.PASSAGE
                and item.hop == 0
                # (and a thing's "It is 61 metres deep", in Lake Orla's article)
                and (_PERSONAL.search(item.text) or _opens_with_its_pronoun(item))
            ):
                pronouns.append(item)
            elif (
                item.kind is EvidenceKind.PASSAGE
                and item.hop == 0
                and _opens_with(item, _named(item.title))
                and _answers(item, pack.question)
            ):
                opening.append(item)
        # "... and awarded her £86,000 in compensation" in the judgment whose other passage names
        # "Anna Marlow": a person a document names is whom its passages' "her" and "his" speak of
        named = {i.document for i in out if i.kind is EvidenceKind.PASSAGE and i.hop == 0}
        spoken = [i for i in pronouns if i.document in named]
        # "The Norland Railway opened in 1871." in the document of the best passage, whose "Its
        # main line runs from Kelston to Brackley" says which railway "When did the railway that
        # runs from Kelston to Brackley open?" asks of: its passages opening with its name that
        # answer as asked
        best = next((i.document for i in out if i.kind is EvidenceKind.PASSAGE and i.hop == 0), None)
        spoken += [i for i in opening if i.document == best]
        return sorted([*out, *spoken], key=lambda i: (-i.score, i.number)) if terms and spoken else out


def _of_the_decided(
    claims: Sequence[DraftClaim], verdict: Sequence[DraftClaim], by_id: dict[str, EvidenceItem]
) -> list[DraftClaim]:
    """The ``claims`` not citing a document of the same name as one the ``verdict`` decided by,
    and another: after "Yes: Scott Derrickson and Ed Wood were of the same nationality" from the
    filmmaker's article, the film "Ed Wood (film)" is another Ed Wood."""
    decided = [by_id[i] for v in verdict for i in v.supporting_citations if i in by_id]
    documents = {i.document for i in decided}
    names = {_named(i.title) for i in decided} - {""}
    return [
        c
        for c in claims
        if not any(
            (item := by_id.get(i)) is not None and item.document not in documents and _named(item.title) in names
            for i in c.supporting_citations
        )
    ]


#: The pronouns that speak of a person.
_PERSONAL = re.compile(r"\b(?:she|her|hers|he|him|his)\b", re.I)


def _on_focus(relevant: Sequence[EvidenceItem], focus: set[str]) -> tuple[list[EvidenceItem], list[EvidenceItem]]:
    """The relevant conflicts and facts (labels aside). What the question asks of its entities
    ("population", "children"): when some evidence speaks of it, facts and conflicts about other
    properties are left out."""
    conflicts = [i for i in relevant if i.kind is EvidenceKind.CONFLICT]
    statements = [i for i in relevant if i.kind is EvidenceKind.STATEMENT and not _is_label(i)]
    passages = [i for i in relevant if i.kind is EvidenceKind.PASSAGE]
    if any(_speaks_of(i, focus) for i in [*conflicts, *statements, *passages]):
        conflicts = [i for i in conflicts if _speaks_of(i, focus)]
        statements = [i for i in statements if _speaks_of(i, focus)]
    return conflicts, statements


def _conflict_claims(conflicts: Sequence[EvidenceItem], by_id: dict[str, EvidenceItem]) -> list[DraftClaim]:
    """As for facts: the conflicts about what is asked (the population, not the latitude), at
    most ``MAX_CONFLICTS``, each with the statements it cites."""
    best = max((i.score for i in conflicts), default=0.0)
    claims = []
    for item in [i for i in conflicts if i.score >= best - FACT_MARGIN][:MAX_CONFLICTS]:
        assert item.conflict is not None
        claims.append(_conflict_claim(item, item.conflict, [by_id[r] for r in item.related if r in by_id]))
    return claims


def _best_facts(statements: Sequence[EvidenceItem], used: set[str], question: str) -> list[list[EvidenceItem]]:
    """The facts of the statements no conflict claim cites, within ``FACT_MARGIN`` of the best
    (the question names a property the best facts have and the others lack): at most
    ``MAX_FACTS``, best first; of equal scores, those whose subject the question names first
    ("warfarin is an anticoagulant" before "anticoagulant is a kind of drug" for "What kind of
    drug is warfarin?")."""
    top = max((i.score for i in statements), default=0.0)
    facts = _facts([i for i in statements if i.id not in used and i.score >= top - FACT_MARGIN])
    asked = " ".join(words(question))
    named = sorted(
        facts, key=lambda g: (-max(i.score for i in g), not mentions(asked, " ".join(words(_label(g[0], "subject")))))
    )
    return named[:MAX_FACTS]


def _fact_claims(facts: Sequence[list[EvidenceItem]]) -> tuple[list[DraftClaim], list[str]]:
    """A claim per fact, phrased by its confidence; values that differ with no conflict declared
    in one claim that says so rather than asserting each; and a limitation per fact that one
    source alone states."""
    claims: list[DraftClaim] = []
    limitations: list[str] = []
    for groups in _by_property(facts):
        if len(groups) > 1:
            claims.append(_values_claim(groups))
            continue
        claims.append(_fact_claim(groups[0]))
        if groups[0][0].status is FactStatus.UNKNOWN and len({i.document for i in groups[0]}) == 1:
            limitations.append(f"Only one source states that {_fact_text(groups[0][0])}.")
    return claims, limitations


def _confirmed(claims: list[DraftClaim], facts: Sequence[list[EvidenceItem]], question: str) -> list[DraftClaim]:
    """For a yes/no question ("Does ibuprofen interact with warfarin?"), the claim of a fact
    whose subject and object the question names, first and answering "Yes". Nothing is ever
    answered "No": a store that lacks a fact does not deny it, and a fact that another source
    contradicts is stated as a conflict, not here."""
    if expects(question) is not Expects.YES_NO:
        return claims
    asked = " ".join(words(question))
    for group in facts:
        fact = group[0]
        subject, obj = " ".join(words(_label(fact, "subject"))), " ".join(words(_label(fact, "object")))
        if subject and obj and mentions(asked, subject) and mentions(asked, obj):
            ids = {i.id for i in group}
            for n, claim in enumerate(claims):
                if set(claim.supporting_citations) == ids:
                    said = claim.text[:1].lower() + claim.text[1:]
                    return [claim.model_copy(update={"text": f"Yes: {said}"}), *claims[:n], *claims[n + 1 :]]
    return claims


def _passage_claims(
    relevant: Sequence[EvidenceItem], question: str, focus: set[str], stated: Sequence[EvidenceItem]
) -> list[DraftClaim]:
    """The passages to state (:func:`_passages`), each a claim of its own. When the facts and
    conflicts ``stated`` answer what is asked, a passage must speak of it too, or of their values."""
    passages = _passages(relevant, salient_terms(question), question)
    if any(_speaks_of(i, focus) for i in stated):
        values = {" ".join(words(_label(i, "object"))) for i in stated} - {""}
        passages = [
            p for p in passages if _speaks_of(p, focus) or any(mentions(" ".join(words(p.text)), v) for v in values)
        ]
    # the passages saying what is asked with a value of the type asked for first, then those
    # holding such a value ("when": a date), in order
    expected = expects(question)
    _, of_names = _asked_of(question)
    asked = {word_key(w) for w in content_words(question)}
    which = _which_thing(question)
    doer = _doer(question)
    compounds = _compounds(question)
    negated = _NEGATIVE.search(question) is not None
    # "What resolution are the images?": a field labelled by what it asks of ("Images: 38,560") is
    # no answer; one labelled by what it asks is
    subject = _COPULA_SUBJECT.match(question)
    labels = of_names - {word_key(w) for w in words(subject.group(1))} if subject else of_names
    # "Why did ...?", "How was ... injured?": a reason or a way ("How severe ...?" asks a degree)
    reasoned = (
        re.match(r"\s*(?:why\b|how\s+(?:is|are|was|were|do|does|did|can|could|should)\b)", question, re.I) is not None
    )
    place = _place_asked(question)
    itself = _name_itself(question)
    passages = sorted(
        passages,
        key=lambda p: (
            # "What is the population of the capital of Norland?": not Norland's own
            itself(p),
            not _heading_asks(p, question),
            not _says_kind(p, question),
            # "Which club finished third?": the row "Position: 3"
            place is not None and not _at_place(p, place),
            # "Which court decided ...?": the field "Court: ..." before "Decided: ..." (a reason or a
            # way, "why" or "how", is no field's value: "Court: ..." for "Why did the trial court ...?")
            not _field_asked(p, which, question),
            reasoned or not _field_asked(p, labels, question),
            # "How much notice must a landlord give ...?": what a landlord must, not a tenant
            bool(doer) and not doer <= word_keys(p.text),
            # "... outpatients with comorbidities ...?": not what holds for those without them
            _without(p, question),
            # "Who should not take Nephralin?": what says who not, before "Patients aged 80 years or
            # older should take 2.5 mg"
            negated and not _NEGATIVE.search(p.text),
            # ... and for one asking what is, what is before what is not
            _denies_asked(p, question),
            # under a heading saying what is asked ("What is Nephralin used for?": "INDICATIONS AND
            # USAGE"), before "Avoid use with rifampin" under "DRUG INTERACTIONS"
            # (the document's title, over its opening passages, says what every passage is about)
            not labels & word_keys((p.section or "") if p.section != p.title else "", measures=True),
            -_answers(p, question),
            not offers(p.text, expected, question),
            expected is Expects.DATE and not calendar_date(p.text),
            # "The manager who recruited Tom Birch managed Northgate ...": the manager another
            # passage ties to Tom Birch, before one nothing does and one that only names him
            # (:mod:`provgraph.answer.linking`)
            not linked_through(p, question, relevant),
            # "For windstorm claims the deductible is 1,000 euros" is another case than "a fire claim"'s
            _other_case(p, compounds),
            # then in the passage's own words, what is asked of the names, then anything asked
            # ("It melts at 29.76 \u00b0C" says "gallium" by "It")
            -len(of_names & word_keys(_pronoun_read(p), measures=True)),
            -len(asked & word_keys(_pronoun_read(p))),
            # a headline says which event a report is of: "A magnitude 6.4 earthquake struck ..."
            # under "M6.4 earthquake strikes ...", not "The last earthquake of similar size ..."
            is_headline(p.title or "") and -len(word_keys(p.title or "") & word_keys(p.text)),
        ),
    )
    if passages and not _of_each(question):
        # "Alan Reed managed Northgate ...": and the passage saying he recruited Tom Birch, whom
        # the question names to say which manager it means (HotpotQA: sentence recall 68.4 ->
        # 70.6, gold answer in the claims 64.8 -> 67.0)
        linking = [p for p in links(passages[0], question, relevant) if p not in passages[1:]]
        passages = [passages[0], *linking, *(p for p in passages[1:] if p not in linking)]
        passages = _on_chain(passages, relevant, question, linking)
    passages = _unrepeated(passages, question)
    claims = [
        DraftClaim(
            text=_stated(item),
            supporting_citations=[item.id],
            support_level=SupportLevel.DIRECT,
            claim_class=_claim_class(item.text),
            subtopic=item.title,
        )
        for item in passages
    ]
    # a factoid question's answer first, in a short sentence citing the sentence that holds it
    short = short_answer(claims[0].text, question, passages[0].title) if claims else None
    if short is not None:
        claims.insert(0, claims[0].model_copy(update={"text": short, "claim_class": _claim_class(short)}))
    return claims


def _name_itself(question: str) -> Callable[[EvidenceItem], bool]:
    """Whether a passage is of the document of a name the question describes another thing by
    ("Norland" of "What is the population of the capital of Norland?") and does not say that
    thing ("capital"): what it says ("Norland has a population of 5.2 million") is the name's
    own, not the thing's."""
    thing = described(question)
    # (what happens to the name too: a passage of Salt Flats' not saying "shooting" says less of
    # "the shooting of Salt Flats" than one that does; HotpotQA held-out half: recall 71.0 ->
    # 72.0, precision 62.6 -> 63.0 against the thing's words of thing_of alone)
    noun = {word_key(w) for w in thing_of(thing, events=True)} if thing else set()
    if thing is None or not noun:
        return lambda _: False
    names = set(thing.names)

    def itself(item: EvidenceItem) -> bool:
        return " ".join(words(_named(item.title))) in names and not noun <= word_keys(_item_text(item))

    return itself


def _on_chain(
    passages: Sequence[EvidenceItem], relevant: Sequence[EvidenceItem], question: str, linking: Sequence[EvidenceItem]
) -> list[EvidenceItem]:
    """The ``passages`` without one stated for a name of the question alone, from a document no
    other passage is of, once the chain (the best passage and those ``linking`` it to the
    question's names) runs elsewhere: "The Tom Birch Academy is a football school ..." for "The
    football manager who recruited Tom Birch managed Northgate United during what timeframe?",
    when the others say the name, or a passage of a document they are of says it instead
    ("Instead, he had drafted in young players like Tom Birch"). When nothing else says the
    name, the passage stays; so does one of the document the name titles, and one saying
    anything else the question asks that the others do not. HotpotQA development half:
    precision 71.8 -> 78.6, recall 73.7 -> 74.4; held-out half: precision 60.8 -> 61.6 (one
    answer no longer held the gold answer as spelt: "Henry J. Kaiser" was said only by a
    passage stated for "American")."""
    terms = salient_terms(question)
    documents = [p.document for p in passages]
    asked = set(content_words(question))
    out = list(passages)
    for p in passages[1:]:
        said = [t for t in terms if _says_name(_item_text(p), t, question)]
        others = [o for o in out if o.document != p.document]
        others_say = set().union(*(set(words(_item_text(o))) for o in others))
        if (
            p in linking
            or documents.count(p.document) > 1
            or not said
            or " ".join(words(_named(p.title))) in {without_possessive(t) for t in said}
            or (set(words(_item_text(p))) & asked) - {w for t in said for w in words(t)} - others_say
        ):
            continue
        unsaid = [t for t in said if not any(_says_name(_item_text(o), t, question, possessive=True) for o in others)]
        stated = {o.document for o in others}
        instead = next(
            (
                r
                for r in relevant
                if r.kind is EvidenceKind.PASSAGE
                and r not in out
                and r.document in stated
                and all(_says_name(_item_text(r), t, question) for t in unsaid)
            ),
            None,
        )
        if not unsaid:
            out.remove(p)
        elif instead is not None:
            out[out.index(p)] = instead
    return out


def _unrepeated(passages: Sequence[EvidenceItem], question: str) -> list[EvidenceItem]:
    """The ``passages``, best first, without those saying nothing of the question (its content
    words and the words of its names) that the passages before them do not: "Ernest Hale managed
    Northgate United ..." after "Alan Reed ... managed Northgate United from 1986 to 2013" for
    "The football manager who recruited Tom Birch managed Northgate United during what
    timeframe?". A passage naming another stated passage's document, or named by one, links
    them and stays; so does a document's opening passage beside its others, and a passage under
    the heading of a stated one, or a row of its table (a list's items, the steps of "What to
    do"). Not for questions each side of which is answered on its own
    (:func:`~provgraph.answer.linking.checks_links`, :func:`_of_each`). HotpotQA development
    half: precision 68.3 -> 70.6, nothing else moved (counting the content words alone lost an
    answer saying "May")."""
    if not checks_links(question) or _of_each(question):
        return list(passages)
    asked = set(content_words(question)) | {w for t in salient_terms(question) for w in words(t)}
    out: list[EvidenceItem] = []
    covered: set[str] = set()
    for p in passages:
        new = (set(words(_item_text(p))) & asked) - covered
        if (
            not out
            or new
            or any(_names_document(p, o) or _names_document(o, p) for o in out if o.document != p.document)
            # "Stop using the kettle", "Unplug the base ...": a heading's passages, or a table's
            # rows, are its answer together
            or any(_same_part(p, o) for o in out)
        ):
            out.append(p)
            covered |= new
    documents = {p.document for p in out}
    return [p for p in passages if p in out or (p.document in documents and _opens_with(p, _named(p.title)))]


def _same_part(item: EvidenceItem, other: EvidenceItem) -> bool:
    """Whether two passages of one document are under the same heading (not only its title), or
    rows of a table."""
    if item.document != other.document:
        return False
    if item.section and item.section != item.title and item.section == other.section:
        return True
    return bool(row_fields(item.text)) and bool(row_fields(other.text))


def _of_each(question: str) -> bool:
    """Whether ``question`` asks the same of two names: "What nationality were Alfred Gell and
    Edmund Leach?" (each one's own passage answers it)."""
    said = " ".join(words(question))
    names = [" ".join(words(n)) for n in salient_names(question)]
    return any(mentions(said, f"{a} and {b}") for a in names for b in names if a != b)


def _names_document(item: EvidenceItem, other: EvidenceItem) -> bool:
    """Whether the passage ``item`` names the subject of ``other``'s document."""
    name = _named(other.title)
    return bool(name) and mentions(" ".join(words(item.text)), name)


def _stated(item: EvidenceItem) -> str:
    """A passage as a claim states it: read in its document's context (:func:`in_context`)."""
    return in_context(item.text.strip(), item.title, item.referent)


def _opens_with_its_pronoun(item: EvidenceItem) -> bool:
    """Whether a passage opens with a pronoun standing for its document's subject ("It is 61
    metres deep" in "Lake Orla"; not "It is in the Karakoram range" after "K2 is ...")."""
    read = _pronoun_read(item)
    return read != item.text and _text_opens_with(read, _named(item.title))


def _pronoun_read(item: EvidenceItem) -> str:
    """A passage opening with a pronoun read with what it stands for, else as it is."""
    opening = item.text.split(maxsplit=1)[:1]
    return in_context(item.text, item.title, item.referent) if opening and opening[0] in PRONOUNS else item.text


#: The comparatives that compare counts of what the question names after them ("more members").
_COUNTING = frozenset("more fewer less".split())
#: How a comparative of the question reads in a verdict.
_VERDICT_WORD = {"first": "earlier", "oldest": "older", "youngest": "younger"}


def _verdict(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A choice between two things the question names, decided by a figure of each (a year
    for "older", "earlier"; a number for "more", "taller") from the passages about it or its
    facts' values, those saying what is compared first: "Terry Richardson is older: Annie Morton
    1970, Terry Richardson 1965." Nothing when a side has no figure or they are equal."""
    asked = comparison(question)
    if asked is None:
        return (
            _rows_superlative(relevant, question)
            or _pair_verdict(relevant, question)
            or _choice_verdict(relevant, question)
            or _outcome_verdict(relevant, question)
            or _stated_verdict(relevant, question)
            or _other_holder(relevant, question)
        )
    if columns := _columns_verdict(relevant, question, asked):
        return columns
    # the evidence saying what is compared first ("employs" for "more employees"; a fact's
    # property "maximum daily dose" for "a higher maximum daily dose"): the first figure of a
    # passage about something else (the year a company was founded) compares nothing
    named = {w for o in asked.options for w in words(o)}
    # (not the kind of the options: "band" of "Which band has more members, ...?")
    kind = re.match(r"\s*(?:which|what)\s+([a-z]+)\b", question, re.I)
    named |= {kind.group(1).lower()} if kind else set()
    compared = {word_key(w) for w in content_words(question) if w not in named}

    # "older", "younger": an age, told by a birth ("Mara Lindqvist (1889-1961)", "born 1889") or a
    # founding, not by the year of anything else done ("She married ... in 1931")
    aged = asked.word.lower() in _OF_AGE

    def says(item: EvidenceItem) -> int:
        text = item.text if item.kind is EvidenceKind.PASSAGE else _label(item, "predicate")
        return len(compared & word_keys(text, measures=True)) + (aged and _BIRTH.search(text) is not None)

    # a length is compared in lengths ("61 metres deep"), a size in areas, when every side gives
    # one (not "It last erupted in 1911" for "higher")
    sides = [[*_about(relevant, o), *_stating(relevant, o)] for o in asked.options]
    unit = _LENGTH if asked.word.lower() in _OF_LENGTH else _AREA if asked.word.lower() in _OF_SIZE else None
    # (a fact's value is in the unit its property names: "height (m)")
    given = (
        [any(unit.search(i.text) if i.kind is EvidenceKind.PASSAGE else says(i) for i in side) for side in sides]
        if unit is not None
        else []
    )
    if any(given) and not all(given):
        return []  # "42 square kilometres" against a depth of 38 metres: nothing to compare
    measured = unit if given and all(given) else None

    def figure_of(item: EvidenceItem) -> str | None:
        if measured is not None and item.kind is EvidenceKind.PASSAGE:
            found = measured.search(item.text)
            return found.group(1) if found else None
        return _figure(item, dated=asked.dated, compared=compared)

    found: list[tuple[str, EvidenceItem, str]] = []
    for option in asked.options:
        about = sorted([*_about(relevant, option), *_stating(relevant, option)], key=lambda i: -says(i))
        # when evidence about it says what is compared, only that evidence's count counts ("Mars:
        # 1.52 astronomical units" is no count of moons); a year is a year ("Adeline Virginia Woolf
        # (25 January 1882 - 28 March 1941)" for "born earlier", though a sentence says "born")
        if not asked.dated:
            # ... and for "more", "fewer", "less" only such evidence counts: no number of a
            # passage saying nothing of it is a count of it ("Each tablet holds 20 mg" says
            # nothing of "more effective"); a dimension is said by its measure ("3,200 metres high")
            about = [i for i in about if says(i)] or ([] if asked.word in _COUNTING else about)
        hit = next(((i, f) for i in about if (f := figure_of(i)) is not None), None)
        if hit is None:
            return []
        found.append((option, *hit))
    values = [figure_value(f) for _, _, f in found]
    days = _days(found) if asked.dated and len(set(values)) < len(values) else None
    if days is not None:
        # "Ann Lee (born 4 March 1970)", "Kim Ray (born 9 July 1970)": one year, two days
        found, values = [(o, i, said) for (o, i, _), (said, _) in zip(found, days, strict=True)], [d for _, d in days]
    if len(set(values)) < len(values) or len({i.id for _, i, _ in found}) < len(found):
        return []
    best = (min if asked.order is Order.LEAST else max)(range(len(values)), key=values.__getitem__)
    if days is None and not _settled(found, best, relevant, asked):
        return []
    said = asked.said or "is " + _VERDICT_WORD.get(asked.word, asked.word)
    text = f"{found[best][0]} {said}: " + ", ".join(f"{option} {f}" for option, _, f in found) + "."
    text = text[:1].upper() + text[1:]
    if asked.yes_no:
        # "Is Velvet Rain older than Paper Moons?": "No: Paper Moons is older: ..."
        text = f"{'Yes' if best == 0 else 'No'}: {text}"
    return [
        DraftClaim(
            text=text,
            supporting_citations=[i.id for _, i, _ in found],
            support_level=SupportLevel.DIRECT,
            claim_class=ClaimClass.COMPARATIVE,
        )
    ]


#: The comparatives of an age, decided by years of birth.
_OF_AGE = frozenset("old older oldest young younger youngest elder eldest".split())
#: A year of birth or founding: "born 1889", "(1889-1961)", "(15 March 1892 - 8 May 1927)"
#: (hyphen or en dash), "founded in 2009".
_BIRTH = re.compile(
    r"\b(?:born|founded|established|formed|incorporated)\b|\(\s*(?:[^()]*?\s)?\d{3,4}\s*[-\u2013]", re.I
)
#: The units a comparison of lengths ("higher", "deeper", "taller") is decided in.
_LENGTH_UNITS = r"(?:metres|meters|metre|meter|m|kilometres|kilometers|km|feet|foot|ft|miles|mi|centimetres|cm)"
_LENGTH = re.compile(rf"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*{_LENGTH_UNITS}\b(?!\s*(?:\(|long\b)?\s*(?:square|2\b|²))")
_AREA = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(?:square\s+(?:kilometres|kilometers|km|miles|metres|meters|m)|km2|km²|"
    r"acres|hectares|ha)\b"
)
#: The comparatives of a size, compared in areas when every side gives one ("larger").
_OF_SIZE = frozenset("large larger largest big bigger biggest".split())
#: The comparatives of a length ("higher", "deepest").
_OF_LENGTH = frozenset("high higher highest tall taller tallest deep deeper deepest long longer longest".split())


def _days(found: Sequence[tuple[str, EvidenceItem, str]]) -> list[tuple[str, float]] | None:
    """For each side of a dated comparison, the first full date of its passage in the year its
    figure gives, as written and as a day number; None when a side is a fact or its passage
    gives none."""
    from datetime import date

    from provgraph.ingest.extract.quantities import dates

    out = []
    for _, item, year in found:
        if item.kind is not EvidenceKind.PASSAGE:
            return None  # a fact's values are settled by their sources (:func:`_settled`)
        day = next((d for d in dates(item.text) if d.datatype.endswith("#date") and d.lexical.startswith(year)), None)
        if day is None:
            return None
        out.append((item.text[day.start : day.end], float(date.fromisoformat(day.lexical).toordinal())))
    return out


@cache
def _lessening() -> frozenset[str]:
    """Keys of verbs whose "more" is the more negative change ("reduced body weight more": -11.2 kg).
    Computed on first use: word keys load lemminflect's lexicon, which no command but ``ask`` needs."""
    return frozenset(word_key(w) for w in "reduced lowered decreased cut lost".split())


def _columns_verdict(relevant: Sequence[EvidenceItem], question: str, asked: Comparison) -> list[DraftClaim]:
    """A choice between two columns of a table ("Which drug reduced body weight more, tirzepatide
    or semaglutide?"), decided by the row saying most of what is compared ("Outcome: Change in
    body weight (kg) | Tirzepatide 15 mg: -11.2 | Semaglutide 1 mg: -5.7"), citing it; a change
    that lessens ("reduced") is more the more negative it is. Nothing when no row has a column
    of each option and a figure in each."""
    if asked.dated:
        return []
    named = {w for o in asked.options for w in words(o)}
    # (not the kind of the options: "band" of "Which band has more members, ...?")
    kind = re.match(r"\s*(?:which|what)\s+([a-z]+)\b", question, re.I)
    named |= {kind.group(1).lower()} if kind else set()
    compared = {word_key(w) for w in content_words(question) if w not in named}
    best: tuple[int, EvidenceItem, list[tuple[str, str]]] | None = None
    for item in relevant:
        fields = row_fields(item.text) if item.kind is EvidenceKind.PASSAGE else []
        if len(fields) < 3:
            continue
        found = [
            next(((label, value) for label, value in fields[1:] if set(words(o)) <= set(words(label))), None)
            for o in asked.options
        ]
        held = len(compared & word_keys(" ".join(fields[0]), measures=True))
        if held and (best is None or held > best[0]) and all(found):
            best = (held, item, [c for c in found if c is not None])
    if best is None:
        return []
    _, item, cells = best
    figures = [figure(value, dated=False) for _, value in cells]
    if any(f is None for f in figures):
        return []
    # a change keeps its sign ("-11.2"), which the figure does not
    signed = [re.match(r"\s*[-\u2212]", value) is not None for _, value in cells]
    values = [-figure_value(f) if minus else figure_value(f) for f, minus in zip(figures, signed, strict=True) if f]
    if len(set(values)) < len(values):
        return []
    least = asked.order is Order.LEAST
    if compared & _lessening() and all(v < 0 for v in values):
        least = not least  # "reduced ... more": -11.2 is more of a reduction than -5.7
    chosen = (min if least else max)(range(len(values)), key=values.__getitem__)
    phrase = re.sub(
        r"^\s*(?:which|what|who)(?:\s+[a-z]+)??\s+(?=[a-z]+ed\b|had\b|has\b|was\b|is\b)",
        "",
        question.split(",")[0],
        flags=re.I,
    )
    option = asked.options[chosen]
    text = (
        f"{option[:1].upper()}{option[1:]} {phrase.strip()}: "
        + ", ".join(f"{label} {value}" for label, value in cells)
        + "."
    )
    return [
        DraftClaim(
            text=text,
            supporting_citations=[item.id],
            support_level=SupportLevel.DIRECT,
            claim_class=ClaimClass.COMPARATIVE,
        )
    ]


#: "Which Aurora model has the largest battery?", "Which model is the lightest?": a superlative
#: over things, and what it measures.
_SUPERLATIVE = re.compile(
    r"^\s*(?:which|what)\b.*?\b(?:has|have|had|is|was|are|were|offers?|gives?)\s+the\s+"
    r"(?P<word>largest|biggest|highest|longest|most|greatest|smallest|lowest|shortest|least|fewest|lightest|"
    r"heaviest|cheapest|widest|deepest)\b(?:\s+(?P<what>[^?]+?))?\s*\?\s*$",
    re.I,
)
_LEAST = frozenset("smallest lowest shortest least fewest lightest cheapest".split())


def _rows_superlative(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A superlative over a table's rows, decided by the field saying what it measures: "Aurora
    Trek has the largest battery: Aurora City 400, Aurora Trek 625, Aurora Fold 300.", citing
    every row. Nothing when fewer than two rows give it, or the best is tied."""
    found = _SUPERLATIVE.match(question)
    if found is None:
        return []
    word = found.group("word").lower()
    measured = content_words(found.group("what") or "")
    compared = {word_key(w) for w in measured} or {word_key(word)}
    rows: list[tuple[str, float, str, EvidenceItem]] = []
    for item in relevant:
        fields = row_fields(item.text) if item.kind is EvidenceKind.PASSAGE else []
        value = _compared_value(fields[1:], compared)
        said = figure(value, dated=False) if value is not None else None
        if said is not None and all(r[0] != fields[0][1] for r in rows):
            rows.append((fields[0][1], figure_value(said), said, item))
    if len(rows) < 2:
        return []
    values = [r[1] for r in rows]
    best = (min if word in _LEAST else max)(values)
    if values.count(best) > 1:
        return []
    name = next(r[0] for r in rows if r[1] == best)
    said = f"the {word} {' '.join(measured)}".strip() if measured else f"the {word}"
    verb = "is" if not measured else "has"
    return [
        DraftClaim(
            text=f"{name} {verb} {said}: " + ", ".join(f"{n} {f}" for n, _, f, _ in rows) + ".",
            supporting_citations=[r[3].id for r in rows],
            support_level=SupportLevel.DIRECT,
            claim_class=ClaimClass.COMPARATIVE,
        )
    ]


def _settled(
    found: Sequence[tuple[str, EvidenceItem, str]], best: int, relevant: Sequence[EvidenceItem], asked: Comparison
) -> bool:
    """Whether every value the sources give of the compared facts puts the sides in the same
    order: a side decided by a fact that other sources give other values of (a city's
    population, 2,257,981 in one edition and 10,413,386 in another) wins only when each of its
    values beats each of the other side's."""

    def spread(option: str, item: EvidenceItem, figure_said: str) -> list[float]:
        if item.kind is EvidenceKind.PASSAGE:
            return [figure_value(figure_said)]
        same = [i for i in _stating(relevant, option) if i.predicate == item.predicate]
        return [figure_value(f) for i in same if (f := _figure(i, dated=asked.dated)) is not None]

    ranges = [spread(option, item, said) for option, item, said in found]
    least = asked.order is Order.LEAST
    winner = ranges[best]
    return all(
        (max(winner) < min(other)) if least else (min(winner) > max(other))
        for n, other in enumerate(ranges)
        if n != best and other and winner
    )


def _compared_value(fields: Sequence[tuple[str, str]], compared: Iterable[str]) -> str | None:
    """The value of the first of a row's ``fields`` whose label says what is ``compared`` (the
    keys of its words: "lighter" of "Weight: 17 kg"), or None."""
    keys = set(compared)
    return next((value for label, value in fields if keys & word_keys(label, measures=True)), None)


def _stating(relevant: Sequence[EvidenceItem], name: str) -> list[EvidenceItem]:
    """The facts whose subject is ``name`` (by its label)."""
    name = " ".join(words(name))
    return [
        i
        for i in relevant
        if i.kind is EvidenceKind.STATEMENT and " ".join(words(_label(i, "subject"))) == name and not _is_label(i)
    ]


def _figure(item: EvidenceItem, *, dated: bool, compared: frozenset[str] | set[str] = frozenset()) -> str | None:
    """The figure of a passage (:func:`~provgraph.answer.question.figure`), or a fact's value. Of
    a table's row, the figure of the field saying what is ``compared`` (the keys of its words:
    "lighter" of "Weight: 17 kg", not the battery's "300 Wh" before it), when one does."""
    if item.kind is EvidenceKind.PASSAGE:
        said = _compared_value(row_fields(item.text), compared)
        return figure(said if said is not None else item.text, dated=dated)
    value = _label(item, "object")
    return figure(value, dated=dated) if value.strip() == (figure(value, dated=dated) or "").strip() else None


def _stated_verdict(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A yes/no question about one thing ("Does Globex pay dividends?", "Can metformin be used in
    severe kidney disease?") that a passage answers word for word: of the passages about a name
    of the question (of its document, or naming it; a document the question names: "metformin"),
    the first holding every content word of the question (inflections alike; its document's
    title counts). "Yes" when it states them, "No" when it denies them ("The company does not pay
    dividends."), citing it. A question that denies something itself, or names two things
    (:func:`_pair_verdict`), gets none here."""
    if expects(question) is not Expects.YES_NO or pair(question) is not None:
        return []
    # "Has anyone been injured?": "No injuries have been reported." need not say "anyone"
    asked = [w for w in content_words(question) if w not in INDEFINITE]
    if not asked or denials_of(question, asked):
        return []
    terms = salient_names(question)
    said_in_question = " ".join(words(question))

    def about(item: EvidenceItem) -> bool:
        if not terms:  # "Does amoxicillin work for flu?": every word of it, below, says what it is about
            return True
        named = _named(item.title)
        return any(mentions(_item_text(item), t) for t in terms) or bool(named and mentions(said_in_question, named))

    keys = {word_key(w) for w in asked}
    # "Can I take Cardenol if I have severe asthma?": the passage's own "if you have severe
    # asthma" is the question's condition, not a clause it leaves open
    condition = re.search(r"\b(?:if|whether)\b(.*)", question, re.I)
    conditioned = set(words(condition.group(1))) if condition else set()
    unconditioned = [w for w in asked if w not in conditioned]
    # the opposites of an outcome asked of ("fell" for "grow"): :func:`_outcome_verdict`'s to read
    outcomes = frozenset().union(*(OUTCOMES[k][1] for k in keys if k in OUTCOMES))
    won = frozenset().union(*(OUTCOMES[k][0] for k in keys if k in OUTCOMES))
    # "Was Helix 24.07 released before 2024?": the year the passage gives decides, not its words
    dated = year_bound(question)
    if dated:
        keys -= {word_key(dated[0]), word_key(str(dated[1]))}
    # "Can I take Veltrazine while pregnant?": "Veltrazine is not recommended during pregnancy"
    # warns against its use without the verb of it
    used = {word_key(w) for w in asked if w in _USE_VERBS}
    # "Is Aachen located in Germany?": "Aachen is a spa city in North Rhine-Westphalia, Germany."
    # puts it there without the word "located"
    placed = PLACED_IN.search(question)
    if placed:
        keys -= {word_key(placed.group(1))}
    for item in relevant:
        if item.kind is not EvidenceKind.PASSAGE or not about(item):
            continue
        if placed and not re.search(rf"\bin\b[^.;]*\b{re.escape(placed.group(2))}\b", item.text):
            continue
        needed = keys - used if used and terms and _avoided(item.text, question) else keys
        if not needed <= word_keys(f"{item.text} {item.title or ''}") or keys & ranked(item.text) - ranked(question):
            continue
        # "Sweden gave up the port of Lindau but kept the island of Orsa" does not say it kept Lindau
        if not any(needed <= word_keys(f"{part} {item.title or ''}") for part in contrasted(item.text)):
            continue
        if leaves_open(item.text, unconditioned):
            continue
        if outcomes and outcomes & word_keys(item.text):
            continue  # "revenue grew, while operating profit fell": which said of what, word order tells
        if won and terms and _done_by_another(item.text, won, terms):
            continue  # "Harbour City won the title ..., ahead of Eastport Rovers": not Eastport Rovers
        said = _stated(item)
        verdict = (
            "No" if denials_of(item.text, asked) or _avoided(item.text, question) or _ended(item.text, asked) else "Yes"
        )
        if dated:
            held = _year_held(item.text, keys, *dated)
            if held is None or verdict == "No":
                continue
            verdict = "Yes" if held else "No"
        # "No, gift cards cannot be returned.": its own "No" is the verdict's ("No illnesses have been
        # reported" keeps its "No", which is a word of what it says)
        said = re.sub(rf"^{verdict}[,.:;!]\s*(\w)", lambda m: m.group(1).upper(), said)
        return [_verdict_claim(verdict, said, item)]
    return []


#: Verbs that end what their object names ("drops support for Python 3.9").
_ENDING = frozenset(
    "drop drops dropped dropping remove removes removed removing discontinue discontinues discontinued "
    "end ends ended ending withdraw withdraws withdrew withdrawn stop stops stopped cease ceases ceased".split()
)


@cache
def _ending_keys() -> frozenset[str]:
    """The keys of :data:`_ENDING` (on first use, as :func:`_lessening`)."""
    return frozenset(word_key(w) for w in _ENDING)


def _ended(text: str, asked: Sequence[str]) -> bool:
    """Whether ``text`` ends what is asked: one of :data:`_ENDING` just before a word of it (past
    an article), when the question asks none of them ("It drops support for Python 3.9." for
    "Does Orbitz 3.0 support Python 3.9?"; not for "Does Orbitz 3.0 drop support for ...?")."""
    keys = {word_key(w) for w in asked}
    if keys & _ending_keys():
        return False
    said = [w for w in words(text) if w not in ("the", "a", "an", "its", "their")]
    return any(a in _ENDING and word_key(b) in keys for a, b in pairwise(said))


#: The verbs of a thing's use and the "safe" of whether it may be used, which a warning against it
#: need not say ("Avoid X in pregnancy"), and the "while" of its condition ("while pregnant":
#: "during pregnancy").
_USE_VERBS = frozenset(
    "take taking use using give giving have having drink drinking eat eating safe while whilst".split()
)


def _done_by_another(text: str, verbs: frozenset[str], names: Sequence[str]) -> bool:
    """Whether a clause of ``text`` says one of ``verbs`` (by key) of a name before it that is
    none of ``names`` ("Harbour City won the title" for "Did Eastport Rovers win ...?")."""
    for clause in clauses(text):
        if any(position(words(clause), n.split()) is not None for n in names):
            continue
        said = clause.split()
        at = next((i for i, t in enumerate(said) if (w := words(t)) and word_key(w[0]) in verbs), None)
        before = said[:at] if at is not None else []
        # (a clause's first word is a name only when it is no common word: "The", "It", "In")
        if any(t[:1].isupper() for t in before[1:]) or (
            before and before[0][:1].isupper() and before[0].lower() not in STOP_WORDS
        ):
            return True
    return False


#: The subject of a yes/no question naming nothing: "board" of "Did the board approve ...?".
_COMMON_SUBJECT = re.compile(
    r"^\s*(?:did|does|do|has|have|had|will|would|is|are|was|were)\s+(?:the\s+)?([a-z]+(?:\s+[a-z]+){1,3})\b", re.I
)
#: Verbs of an outcome whose object has the opposite one: "A beat B" says B lost.
_OVER = frozenset("beat defea overc".split())
#: What a question asking whether a thing won or was affirmed names besides ("the match"): the
#: contest itself, which a report of its outcome need not repeat.
_CONTEST = frozenset("match game fixture case appeal".split())


#: Outcomes and states a verb or an adjective says or denies ("beat", "closed").
_CHANGES = OUTCOMES | STATES


def _outcome_verdict(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A yes/no question whether a named thing had an outcome ("Did Northgate Athletic win?",
    "Did the Ninth Circuit affirm the district court?") or is in a state ("Is the museum open on
    Mondays?": "closed" denies it), answered by a passage about it whose
    clause says the outcome or its opposite with another verb: "No: Riverside United came from
    behind to beat Northgate Athletic 2-1 ...", "No: The Ninth Circuit reversed.". Who did it is
    read from the order of the clause's words (the name before the verb did it; after "beat", was
    beaten; "its" in a later clause is the name); a denial of the verb ("did not win") decides
    nothing here. A question naming nothing asks of its subject ("Did the board approve ...?").
    The question's other words must be in the passage (as what they speak of: "raise" of
    "increase"), unless the verb has no object ("reversed.", "reversed and held ...": what it
    reversed is what the document is about), and the word before the verb must be one of them or
    the name ("Did Contoso's profit grow?" is not answered by "revenue grew")."""
    if expects(question) is not Expects.YES_NO or pair(question) is not None or denials_of(question, words(question)):
        return []
    names = salient_names(question)
    # "Did the board approve the tariff increase?": a question naming nothing asks of its subject,
    # and so does one whose subject is no name ("Is the museum open on Mondays?")
    subject = _COMMON_SUBJECT.match(question)
    if subject is not None and (not names or subject.group(1)[:1].islower()):
        # the words before the outcome's verb ("Did gross margin rise?": "gross margin")
        opening = words(subject.group(1))
        verb = next((i for i, w in enumerate(opening) if i and word_key(w) in _CHANGES), None)
        names = [" ".join(opening[: verb if verb is not None else 1])]
    if len(names) != 1:
        return []
    name = names[0].split()
    asked = [w for w in content_words(question) if w not in name and w not in _CONTEST]
    # "Did waiting times rise?": "Average waiting time ... fell" (a name keeps its number)
    common = subject is not None and names[0] == " ".join(words(subject.group(1))[: len(name)])
    forms = [name, [*name[:-1], singular(name[-1])]] if common else [name]
    # the first is the question's verb ("approve"; "the tariff increase" is what was approved)
    verbs = [w for w in asked if word_key(w) in _CHANGES][:1]
    if not verbs:
        return []
    same, opposite = _CHANGES[word_key(verbs[0])]
    rest = {word_key(w) for w in asked if w != verbs[0]}
    for item in relevant:
        if item.kind is not EvidenceKind.PASSAGE:
            continue
        said = _stated(item)
        name = next((f for f in forms if position(words(said), f) is not None), forms[0])
        holds_rest = rest <= word_keys(f"{said} {item.title or ''}", measures=True)
        named = False  # whether a clause before named it: "its" stands for it in those after
        for clause in clauses(said):
            clause_words = words(clause)
            for verdict, at in _outcomes_in(clause_words, name, same, opposite, named=named):
                if denials_of(clause, [clause_words[at]]):
                    continue
                # "The Ninth Circuit reversed.", "The Supreme Court reversed and held ...": no object
                ends = all(w in STOP_WORDS for w in clause_words[at + 1 :]) or clause_words[at + 1 : at + 2] == ["and"]
                if not ends and not holds_rest:
                    continue
                # "Did Contoso's profit grow?": the outcome of what is asked ("... revenue grew,
                # while its operating profit fell"), the word before the verb its thing or the name
                # (a name after the verb was beaten: "came from behind to beat Northgate Athletic")
                before = [w for w in clause_words[:at] if w not in STOP_WORDS][-1:]
                beaten = (found := position(clause_words, name)) is not None and found > at
                if rest and before and not beaten and word_key(before[0]) not in rest and before[0] != name[-1]:
                    continue
                return [_verdict_claim(verdict, said, item)]
            # "Revenue rose to $1.9 billion." in "Harbor Bank Q3 2026 results": a clause naming
            # nothing is of what its document's title names, when only what is asked is before its verb
            untold = not named and position(clause_words, name) is None
            if (
                untold
                and rest
                and holds_rest
                and mentions(_named(item.title), " ".join(without_possessive(w) for w in name))
            ):
                for at, word in enumerate(clause_words):
                    key = word_key(word)
                    before = [w for w in clause_words[:at] if w not in STOP_WORDS]
                    if key not in same | opposite or not before or any(word_key(w) not in rest for w in before):
                        continue
                    if not denials_of(clause, [word]):
                        return [_verdict_claim("Yes" if key in same else "No", said, item)]
            named = named or position(clause_words, name) is not None
    return []


def _outcomes_in(
    said: Sequence[str], name: Sequence[str], same: frozenset[str], opposite: frozenset[str], *, named: bool
) -> Iterator[tuple[str, int]]:
    """The verdicts a clause's words give for whether ``name`` had the outcome ``same`` says,
    each with where the verb giving it is. With ``named`` (an earlier clause named it), "its" or
    "their" stands for the name."""
    at, size = position(said, name), len(name)
    if at is None and named:
        at, size = next((i for i, w in enumerate(said) if w in ("its", "their")), None), 1
    if at is None:
        return
    won = "win" in same or "win" in opposite
    for i, word in enumerate(said):
        # "Jane Pike came second": a place other than the first is no win
        place = place_after(said, i) if won and at + size <= i else None
        if place is not None:
            yield ("Yes" if (place == "first") == ("win" in same) else "No"), i
            continue
        key = word_key(word)
        if key not in same and key not in opposite:
            continue
        if at + size <= i:  # the name before the verb: it did it
            yield ("Yes" if key in same else "No"), i
        elif at > i and key in _OVER:  # "beat Northgate Athletic": it was beaten
            yield ("No" if key in same else "Yes"), i


#: Words that warn against what they speak of ("Avoid the combination").
_AVOIDED = re.compile(r"\b(?:avoid|avoided|contraindicated|prohibited|forbidden|not recommended)\b", re.I)


def _avoided(text: str, question: str) -> bool:
    """Whether ``text`` warns against what the question asks of ("Recommendation: Avoid the
    combination" for "Should rifampicin be combined with warfarin?"): a clause holding a warning
    and a word of what is asked, the question itself warning of nothing."""
    if _AVOIDED.search(question):
        return False
    names = {w for t in salient_terms(question) for w in t.split()}
    asked = {word_key(w) for w in content_words(question) if w not in names}
    return any(_AVOIDED.search(c) and asked & word_keys(c) for c in clauses(text))


def _verdict_claim(verdict: str, said: str, item: EvidenceItem) -> DraftClaim:
    """The claim "<verdict>: <the passage as said in context>", citing the passage."""
    return DraftClaim(
        text=f"{verdict}: {said}",
        supporting_citations=[item.id],
        support_level=SupportLevel.DIRECT,
        claim_class=_claim_class(said),
    )


#: "Is Tallinn the capital of Latvia?": a role of which a thing has one holder at a time.
_ONE_HOLDER = re.compile(
    r"^\s*(?:is|was)\s+(?P<a>.+?)\s+the\s+(?P<role>"
    # a superlative's thing ("the largest city"), or a role of one ("the chief executive officer")
    r"(?:largest|smallest|biggest|tallest|highest|longest|oldest|deepest|first|last|only)\s+[a-z]+"
    r"|(?:(?:chief|prime|vice|first)\s+)?(?:capital|president|minister|executive|ceo|chairman|chair|mayor|"
    r"governor|king|queen|monarch|head|author|director|headquarters|seat)(?:\s+officer)?"
    r")\s+(?P<of>of|in)\s+(?P<c>[^?]+?)\s*\?\s*$",
    re.I,
)


def _other_holder(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A yes/no question asking whether a thing holds a role that has one holder ("Is Tallinn the
    capital of Latvia?"), answered "No" by a passage saying another name holds it ("Riga is the
    capital of Latvia."), citing it. Not for roles of many ("the son of", "a member of"): another
    son does not deny a son."""
    asked = _ONE_HOLDER.match(question)
    if asked is None:
        return []
    name = " ".join(words(asked.group("a")))
    holder = re.compile(
        r"^(?:The\s+)?(?P<d>(?:[A-Z][\w.'\u2019-]*\s+)*?[A-Z][\w.'\u2019-]*)\s+(?:is|was|has\s+been)\s+the\s+"
        + r"\s+".join(map(re.escape, asked.group("role").split()))
        + rf"\s+{asked.group('of')}\s+(?:the\s+)?"
        + r"\W+".join(map(re.escape, asked.group("c").split())),
        re.I,
    )
    for item in relevant:
        if item.kind is not EvidenceKind.PASSAGE:
            continue
        said = _stated(item)
        found = holder.match(said)
        if found is None or not found.group("d")[:1].isupper():
            continue
        other = " ".join(words(found.group("d")))
        if set(other.split()) & set(name.split()) - STOP_WORDS:
            return []  # the name itself, or one like it: the stated verdict's to say
        return [_verdict_claim("No", said, item)]
    return []


def _year_held(text: str, keys: set[str], relation: str, year: int) -> bool | None:
    """Whether the year ``text`` gives for what the question asks (the first year after a word
    of it: "released on 15 July 2024") stands in ``relation`` to ``year``; None when it gives none."""
    said_text = normalise(text)  # the offsets below are its own ("ß" is "ss")
    start = next((m.end() for m in word_matches(said_text) if word_key(m.group()) in keys), 0)
    found = re.search(r"\b(1\d{3}|20\d{2})\b", said_text[start:]) or re.search(r"\b(1\d{3}|20\d{2})\b", said_text)
    if found is None:
        return None
    said = int(found.group(1))
    return {"before": said < year, "after": said > year}.get(relation, said <= year)


def _about(relevant: Sequence[EvidenceItem], name: str) -> list[EvidenceItem]:
    """The passages about ``name``: of its document first (unless about another name: "K2 is the
    second-highest mountain" in "Mount Everest"; the one titled by the name alone first), then
    those that mention it."""
    name = " ".join(words(name))
    about = [
        i
        for i in relevant
        if i.kind is EvidenceKind.PASSAGE
        and ((_named(i.title) == name and not _of_another(i, name)) or mentions(" ".join(words(i.text)), name))
    ]
    # the article titled by the name alone before one its title tells apart ("Ed Wood", the
    # filmmaker, before "Ed Wood (film)"): the name's first sense
    return sorted(
        about,
        key=lambda i: (_named(i.title) != name, (i.title or "") != without_disambiguation(i.title or ""), i.number),
    )


def _of_another(item: EvidenceItem, name: str) -> bool:
    """Whether a passage is about another name than ``name`` (normalised): it opens with one, or
    its "It" stands for one; a name sharing a word with ``name`` is its own ("Edward Davis Wood
    Jr." in "Ed Wood"), and so is one its document's title holds ("Master Services Agreement" in
    "Master Services Agreement between Fabrikam Inc. and Litware LLC")."""
    other = item.referent or opening_name(item.text)
    if other is None or mentions(" ".join(words(item.title or "")), " ".join(words(other))):
        return False
    return not set(words(other)) & set(name.split()) - STOP_WORDS


def _own(relevant: Sequence[EvidenceItem], name: str) -> list[EvidenceItem]:
    """The passages about ``name`` that say something of it: of its document, or opening with it.
    "Cypress-pine is the common name for three genera" does not make the cypress a genus."""
    return [i for i in _about(relevant, name) if _named(i.title) == " ".join(words(name)) or _opens_with(i, name)]


#: Words of "both ..." that say how a thing is described, not what it is ("described as a genus").
_HOW_SAID = frozenset(
    "both described considered classified regarded known called located situated type types kind kinds".split()
)
#: "The same ..." that a country's adjective answers ("an American director").
_NATIONALITY = frozenset("nationality nationalities country citizenship origin".split())
_DEMONYM = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+(?:\d{4}\s+)?([A-Z][\w-]*)")
#: "The same ..." that the region of a place answers ("in Oakland, California").
_REGIONAL = frozenset("state states province provinces region regions country countries".split())
#: "directed by the same person", "published by the same company": the verb of the one who did it.
_DONE_BY = re.compile(r"\b([a-z]+)\s+by\s+the\s+same\b", re.I)
#: A name in capitals, its particles inside it ("Ludwig van Beethoven"), none after it.
_CAPITALISED = r"[A-Z][\w.'-]*(?:\s+(?:[A-Z][\w.'-]*|of|de|van|von|la|le))*(?<!\s(?:of|de|la|le))(?<!\s(?:van|von))"


def _pair_verdict(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A yes/no question about two things it names (:func:`~provgraph.answer.question.pair`),
    decided from a passage about each, both cited: "Yes" when each says what the question asks
    of both ("Are Verdi and Thomas both opera composers?"); for "the same X", "Yes" or "No" from
    the X each states ("Yes: ... of the same nationality: Scott Derrickson American, Ed Wood
    American"); for "located in P", "No" when one side's passage puts it in P as a region ("of
    Grand Rapids, Michigan") and the other's in another region ("in Elko County, Nevada"); for
    both of a people ("both American bands"), "No" when a side's passage says the rest of another
    ("a British indie band": HotpotQA held-out half, yes/no verdicts right 33.3 -> 44.4%, none
    wrong). Nothing when a side's passages do not say: a source that does not state something
    does not deny it."""
    asked = pair(question)
    if asked is None:
        return []
    found: list[tuple[str, EvidenceItem, str]] = []
    for option in asked.options:
        hit = next(((i, v) for i in _own(relevant, option) if (v := _states(i, asked)) is not None), None)
        if hit is None:
            return []
        found.append((option, *hit))
    (a, first, value_a), (b, second, value_b) = found
    if first.id == second.id:
        return []
    people = _people(asked)
    if asked.same is None and people is not None and (value_a or value_b):
        # "Are The Velvet Rain and Paper Moons both American bands?": one is British
        text = f"No: {a} {value_a or people}, {b} {value_b or people}."
    elif asked.same is None and (value_a or value_b):
        # "located in Michigan": one side's passage puts it in another region ("..., Nevada")
        place = _located(asked)
        where = [(n, v, i) for n, v, i in ((a, value_a, first), (b, value_b, second))]
        stated = [(n, i) for n, v, i in where if not v]
        if place is None or len(stated) != 1 or not _in_region(stated[0][1].text, place):
            return []
        elsewhere = next((n, v) for n, v, _ in where if v)
        text = f"No: {elsewhere[0]} is in {elsewhere[1]}, {stated[0][0]} in {place}."
    elif asked.same is None:
        text = f"Yes: {a} and {b} {asked.verb + ' ' if asked.copula else ''}both {_in_tense(asked)}."
    else:
        same = normalise(value_a) == normalise(value_b)
        verb = f"{asked.verb} " if asked.copula else "" if same else f"{asked.verb} "
        verdict = f"Yes: {a} and {b} {verb}" if same else f"No: {a} and {b} {verb}not "
        # "located in the same country" is "in the same country": a word the evidence need not say
        rest = re.sub(r"^(?:located|situated)\s+(?=in\b)", "", asked.rest)
        text = f"{verdict}{rest}: {a} {value_a}, {b} {value_b}."
    return [
        DraftClaim(
            text=text,
            supporting_citations=[first.id, second.id],
            support_level=SupportLevel.DIRECT,
            claim_class=ClaimClass.COMPARATIVE,
        )
    ]


#: The ending of a people's name ("American", "British", "Chinese", "French", "Swiss").
_PEOPLE = re.compile(r"(?:an|ish|ese|ic|i|ch|ss)$")


def _people(asked: Pair) -> str | None:
    """The people a pair question says both are of ("American" of "both American bands"), or None."""
    found = re.match(r"([A-Z][a-z]+)\s+[a-z]", asked.rest)
    return found.group(1) if found is not None and _PEOPLE.search(found.group(1)) else None


def _in_tense(asked: Pair) -> str:
    """What a pair question asks of both, in its tense: "directed films" of "Did A and B both
    direct films?"."""
    if asked.verb != "did" or not asked.rest[:1].islower():
        return asked.rest
    return in_form(asked.rest, "VBD")


def _choice_verdict(relevant: Sequence[EvidenceItem], question: str) -> list[DraftClaim]:
    """A choice decided by what the question says of the one it asks for ("Which dog's ancestors
    include Gordon and Irish Setters: the Manchester Terrier or the Scotch Collie?"): the option
    whose own passage (of its document, or opening with its name) holds most of the question's
    other words, when it holds at least ``MIN_CHOICE_SHARE`` of them and each other option's
    holds fewer than half as many: "Scotch Collie: Other ancestors include the Gordon and Irish
    Setters.", citing it and the other options' passages."""
    options = choices(question)
    if options is None or expects(question) is not Expects.CHOICE:
        return []
    named = {w for o in options for w in words(o)}
    asked = {word_key(w) for w in content_words(question) if w not in named}
    if not asked:
        return []

    def held(item: EvidenceItem) -> int:
        return len(asked & word_keys(item.text))

    sides: list[tuple[str, EvidenceItem, int]] = []
    for option in options:
        own = _own(relevant, option)
        if not own:
            return []
        best = max(own, key=lambda i: (held(i), -i.number))
        sides.append((option, best, held(best)))
    sides.sort(key=lambda side: -side[2])
    (winner, item, most), others = sides[0], sides[1:]
    if most < MIN_CHOICE_SHARE * len(asked) or any(2 * count > most for _, _, count in others):
        return []
    return [
        DraftClaim(
            text=f"{winner}: {_stated(item)}",
            supporting_citations=[item.id, *(other.id for _, other, _ in others)],
            support_level=SupportLevel.DIRECT,
            claim_class=ClaimClass.COMPARATIVE,
        )
    ]


def _opens_with(item: EvidenceItem, name: str) -> bool:
    """Whether the passage's sentence is about ``name``: opens with it, as a whole name."""
    return _text_opens_with(item.text, name)


def _text_opens_with(text: str, name: str, *, possessive: bool = False) -> bool:
    """Whether ``text`` opens with ``name``, as a whole name; with ``possessive``, also with its
    possessive ("Roald Dahl's books ...")."""
    text = normalise(re.sub(r"^(the|a|an)\s+", "", text.strip(), flags=re.I))
    named = words(name)
    matches = list(word_matches(text))[: len(named)]
    said = [m.group() for m in matches]
    if possessive and said:
        said[-1] = re.sub(r"'s?$", "", said[-1])
    # word by word ("Guns N' Roses" is "guns n roses"), and whole: "Cypress-pine" is not "Cypress"
    return bool(said) and said == named and text[matches[-1].end() : matches[-1].end() + 1] != "-"


#: "located in Michigan", "in Italy": where the question asks whether both things are.
_LOCATED = re.compile(r"^(?:(?:located|situated|based)\s+)?in\s+(?:the\s+)?([A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)$")
#: "of Grand Rapids, Michigan", "in Elko County, Nevada": a place and the region it is in.
_PLACE_IN_REGION = re.compile(
    r"\b(?:in|of|near)\s+(?:the\s+)?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*,\s+([A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)"
)


def _located(asked: Pair) -> str | None:
    """The place of "Are A and B both located in P?", else None."""
    found = _LOCATED.match(asked.rest)
    return found.group(1) if found else None


def _in_region(text: str, place: str) -> bool:
    """Whether ``text`` names ``place`` as the region of a place ("Grand Rapids, Michigan")."""
    return place in _regions(text)


def _regions(text: str) -> list[str]:
    """The regions ``text`` puts places in, in order: "Nevada" of "in Elko County, Nevada."."""
    return [m.group(1).rstrip(".") for m in _PLACE_IN_REGION.finditer(text)]


def _states(item: EvidenceItem, asked: Pair) -> str | None:
    """What the passage ``item`` says the question asks of both (the X of "the same X"), "" when
    it says all of what is asked ("opera composers"), or None when it does not say. For "located
    in P", a passage not naming P that puts the thing in another region ("in Elko County,
    Nevada") says that region."""
    place = _located(asked) if asked.same is None else None
    if place is not None and not mentions(" ".join(words(item.text)), " ".join(words(place))):
        regions = _regions(item.text)
        return regions[0] if regions else None
    if asked.same is None:
        wanted = [w for w in content_words(asked.rest) if w not in _HOW_SAID]
        said = word_keys(f"{item.text} {item.title or ''}")
        if wanted and all(word_key(w) in said for w in wanted):
            return ""
        # "both American bands": a passage saying the rest ("a British indie band") says the
        # people it is of instead
        people = _people(asked)
        found = _DEMONYM.search(item.text)
        if (
            people is None
            or found is None
            or not _PEOPLE.search(found.group(1))
            or people.lower() in found.group(1).lower()
            or not all(word_key(w) in said for w in wanted if w != people.lower())
        ):
            return None
        return found.group(1)
    if asked.same in _NATIONALITY:
        found = _DEMONYM.search(item.text)
        if found is not None or asked.same not in _REGIONAL:
            return found.group(1) if found else None
    # "directed by the same person", "the same director": whom the passage says did it ("...
    # directed by Anne Roy"), by the verb before "by" or the doer's noun without its "-or", "-er"
    done = _DONE_BY.search(asked.rest) or re.fullmatch(r"([a-z]{3,}?)(?:or|er)", asked.same)
    if done is not None:
        found = re.search(rf"\b{re.escape(done.group(1)[:5])}\w*\s+by\s+({_CAPITALISED})", item.text)
        # (the sentence's full stop is no initial's: "Anne Roy.", "J. Smith Jr.")
        return re.sub(r"(?<=\w{3})\.$", "", found.group(1)) if found else None
    if asked.same == "year":
        # "founded in the same year": the year the passage says it was ("founded in 1946",
        # "(born 3 May 1961)"), not any year it says
        verbs = [w for w in content_words(asked.rest) if w not in ("same", "year")]
        stems = "|".join(re.escape(v[:5]) for v in verbs)
        found = re.search(rf"\b(?:{stems})\w*\b[^.;()]{{0,30}}?\b(1\d{{3}}|20\d{{2}})\b", item.text) if stems else None
        return found.group(1) if found else None
    if asked.same in _REGIONAL:
        # "play in the same state": the region of the place the passage puts it in ("Oakland,
        # California"); a place's country, the last ("a spa city in North Rhine-Westphalia, Germany")
        regions = _regions(item.text)
        return regions[-1] if regions else None
    # "in the family Caryophyllaceae" for "the same family": the name after the word
    after = re.search(rf"\b{re.escape(asked.same)}\s+([A-Z][\w-]+)", item.text)
    if after is not None:
        return after.group(1)
    # "a prefecture-level city" for "the same level", "in Ortakoy neighborhood" for "the same
    # neighborhood": the word itself ("film directed" says no "director")
    found = re.search(rf"([^\W\d_][\w']*)[-\s]{re.escape(asked.same)}(?:s|es)?\b", item.text, re.I)
    if found is None or found.group(1).lower() in STOP_WORDS:
        return None
    return found.group()


def _named(title: str | None) -> str:
    """A document's title without its disambiguation, as words: what it is about."""
    return " ".join(words(without_disambiguation(title or "")))


_PRONOUN = re.compile(r"^(It|He|She|They)\b(?!['\u2019])")
_POSSESSIVE = re.compile(r"^(Its|His|Her|Their)\b")
#: "It is believed that ...", "It was not until ...": an "it" that stands for nothing.
_DUMMY_IT = re.compile(
    r"^It\s+(is|was|has been|had been|would be|will be|seems|seemed|appears|appeared)\s+"
    r"(believed|said|thought|estimated|reported|known|likely|unlikely|possible|impossible|not|clear|unclear|"
    r"hoped|expected|also|important|rumou?red|claimed|argued|suggested|widely|generally|often|commonly)\b"
    r"|^It\s+\w+\s+that\b",
    re.IGNORECASE,
)


def in_context(text: str, title: str | None, referent: str | None = None) -> str:
    """A passage that opens with a pronoun standing for its document's subject, or with the kind
    of thing its title says the subject is ("The film was ..." in "Big Stone Gap (film)", "The
    lighthouse was ..." in "Bell Rock Lighthouse"), with the title instead ("It was founded by
    Henry J. Kaiser" in "Kaiser Ventures": "Kaiser Ventures was founded by Henry J. Kaiser"); the
    title without its disambiguation. A ``referent`` (what the index read the opening to stand
    for when not the title: "K2" for "It" after "K2 is the second-highest mountain" in "Mount
    Everest") stands in for the title, whatever the kind ("The company's largest customer" after
    "Contoso Ltd is a software company").

    >>> in_context("It was founded by Henry J. Kaiser.", "Kaiser Ventures")
    'Kaiser Ventures was founded by Henry J. Kaiser.'
    >>> in_context("His father was a farmer.", "Robert Stevenson (engineer)")
    "Robert Stevenson's father was a farmer."
    >>> in_context("Its chief executive is Fiona Baird.", "Corran Instruments")
    "Corran Instruments' chief executive is Fiona Baird."
    >>> in_context("It is believed that the tower fell.", "Bell Rock")
    'It is believed that the tower fell.'
    >>> in_context("The film is set in Virginia.", "Big Stone Gap (film)")
    'Big Stone Gap is set in Virginia.'
    >>> in_context("The company's largest customer is the NHS.", "Annual Report 2024", "Contoso Ltd")
    "Contoso Ltd's largest customer is the NHS."
    >>> in_context("It is returned within 30 days.", "Residential Lease Agreement", "It")
    'It is returned within 30 days.'
    >>> in_context("The court ruled 5-4.", "Obergefell v. Hodges", "the Supreme Court")
    'The Supreme Court ruled 5-4.'
    >>> in_context("**Decided:** 14 March 2025", "Okafor v. Meridian Health Systems")
    'Decided: 14 March 2025'
    """
    text = _EMPHASIS.sub(r"\2", text)  # "**Decided:** 14 March 2025": Markdown's bold is no word
    if release := RELEASE_PREFIX.match(text):  # "Version 1.4.0 (2025-06-02), Deprecated: It will be removed ..."
        return release.group() + in_context(text[release.end() :], title, referent)
    name = referent or without_disambiguation(title or "")
    # a referent that is the pronoun itself: the index read it as standing for nothing it knows
    if not name or _DUMMY_IT.match(text) or referent in PRONOUNS:
        return text
    # "the Transformer model" keeps its article: "The Transformer model was trained ..."
    # (a plural needs none: "Lactase supplements are taken ...")
    named = f"The {name}" if referent and name.split()[-1].islower() and not name.endswith("s") else name
    # "the Supreme Court" (its source's article) for "The court" at a sentence's start
    named = "The " + name[4:] if name.startswith("the ") else named
    if match := _PRONOUN.match(text):
        return named + text[match.end() :]
    if match := _POSSESSIVE.match(text):
        return _possessive(named) + text[match.end() :]
    if referent and (match := _DEFINITE_OWNER.match(text)):
        return _possessive(named) + re.sub(r"^['\u2019]s", "", text[match.end() :])
    if (match := _DEFINITE.match(text)) and (
        referent or (_is_kind(match.group(1), title or "") and len(name.split()) <= _KIND_TITLE_WORDS)
    ):
        return named + text[match.end() :]
    return text


def _possessive(name: str) -> str:
    """``name`` owning: "Robert Stevenson's", "Corran Instruments'" (a final "s" takes the
    apostrophe alone)."""
    return name + ("'" if name.endswith("s") else "'s")


#: Longest title (in words) that stands in for "The <kind>": "The trial was conducted ..." says
#: no less than a paper's whole title would ("Effect of Intermittent Fasting on ...: A Randomized
#: Clinical Trial was conducted ...").
_KIND_TITLE_WORDS = 8


#: Markdown's bold and strong emphasis around words.
_EMPHASIS = re.compile(r"(\*\*|__)(\S(?:.*?\S)?)\1")
#: "The company's largest customer ...": a kind's possessive, for a referent.
_DEFINITE_OWNER = re.compile(r"^The (?:[a-z]+ )??[a-z]{3,}(?=['\u2019]s\b)")
#: "The film is set in ...": a sentence naming its subject by its kind.
_DEFINITE = re.compile(r"^The ((?:[a-z]+ )??[a-z]{3,})(?=\s+(?:is|was|are|were|has|had|[a-z]+ed)\b)")


def _is_kind(kind: str, title: str) -> bool:
    """Whether ``kind`` ("film", "conference") is what the title says its subject is: its
    disambiguation ("Big Stone Gap (film)") or its last words ("America East Conference"); a
    headline's last words are what it says of something else ("The contamination was discovered
    ..." is not the recall)."""
    if is_headline(title):
        return False
    said = words(title)
    kinds = words(kind)
    qualifier = re.search(r"\(([^)]*)\)\s*$", title)
    return said[-len(kinds) :] == kinds or (qualifier is not None and words(qualifier.group(1))[-len(kinds) :] == kinds)


def _by_subtopic(claims: Sequence[DraftClaim], by_id: dict[str, EvidenceItem]) -> list[DraftClaim]:
    """``claims`` without the evidence's own citation marks (footnotes of its document, not of
    this answer), grouped by subtopic when drawn from two or more documents."""
    claims = [c.model_copy(update={"text": strip_citation_marks(c.text)}) for c in claims]
    if len({c.subtopic for c in claims}) < 2 or len(_documents(claims, by_id)) < 2:
        return [c.model_copy(update={"subtopic": None}) for c in claims]
    order = list(dict.fromkeys(c.subtopic for c in claims))
    return sorted(claims, key=lambda c: order.index(c.subtopic))


def _says_name(text: str, term: str, question: str, *, possessive: bool = False) -> bool:
    """Whether normalised ``text`` names the salient ``term`` of ``question``: as it is, or, for an
    acronym of the question, spelt out ("CEO": "chief executive officer"); with ``possessive``,
    also without its possessive ("Acme Corporation" for "Acme Corporation's": what a source says
    about the name, for a limitation's "No evidence found about ..."; in selection, "Bill Cosby's
    third album" is not any passage naming Bill Cosby)."""
    head, _, last = term.rpartition(" ")
    bare = f"{head} {without_possessive(last)}".strip()
    return (
        mentions(text, term)
        or (possessive and mentions(text, bare))
        or (term in acronyms(question) and spells(term, text))
        # "Is Acme Corporation American?": a name run on into the word after it (a name of two
        # words or more: for one, "Is Globex Japanese?", any passage holding both words would do,
        # and HotpotQA's development half lost precision 63.4 -> 62.4 and abstention 74 -> 72)
        or (" " in head and mentions(text, head) and mentions(text, last))
    )


def _says_possessed(text: str, term: str, question: str, has: set[str]) -> bool:
    """Whether normalised ``text`` names a possessive ``term`` without its possessive and says
    what the question says it has (:func:`~provgraph.answer.text.possessed`): "Fernwood Robotics
    reported third-quarter revenue" of "Fernwood's revenue"."""
    return bool(has) and _says_name(text, term, question, possessive=True) and has <= set(text.split())


def _draft(
    pack: EvidencePack,
    relevant: Sequence[EvidenceItem],
    claims: list[DraftClaim],
    limitations: list[str],
    by_id: dict[str, EvidenceItem],
) -> DraftAnswer:
    """The draft of ``claims``: a summary of the first two, what the evidence does not mention
    among the question's names, and, when nothing is claimed, what to ask instead. A claim drawn
    twice (a fact's passage is also a passage of the question's words) is stated once."""
    claims = list({(c.text, tuple(c.supporting_citations)): c for c in claims}.values())
    question = pack.question
    missing = [
        t
        for t in salient_terms(question)
        if not any(_says_name(_item_text(i), t, question, possessive=True) for i in relevant)
    ]
    if missing and claims:
        limitations = [
            *limitations,
            "No evidence found about " + ", ".join(f'"{number_text(t)}"' for t in missing) + ".",
        ]
    summary = _summary(claims, by_id) if claims else "No evidence in the store answers this question."
    refinements = [] if claims else _refinements(pack, missing)
    return DraftAnswer(answer_summary=summary, claims=claims, limitations=limitations, query_refinements=refinements)


def _passages(relevant: Sequence[EvidenceItem], terms: Sequence[str], question: str) -> list[EvidenceItem]:
    """The passages to state: the best; for each salient term of the question not yet covered,
    the best passage mentioning it; those covering words of the question the others do not
    (:func:`_covering`); for each of these that names one of the question's names, the passage
    of a document it names (the second hop)
    that says most of what the question asks and no chosen passage says, then holds an answer of
    the asked type, then shares most words with the question (HotpotQA development half: sentence
    recall 65.8 -> 66.8, precision 63.6 -> 63.9, gold answer in the claims 59.6 -> 61.7), when it
    says any of that or holds such an answer (precision 60.9 -> 62.9, nothing else moved); a
    passage naming a chosen one's document (:func:`_naming`); then any scoring at least
    ``PASSAGE_RATIO`` of the best. At most ``MAX_PASSAGES``, best first."""
    first = [i for i in relevant if i.kind is EvidenceKind.PASSAGE and i.hop != 2]
    # "Which batch codes are affected?": "Kettles with other batch codes are not affected." says
    # which are not; the passage saying which are goes first
    first = sorted(first, key=lambda p: _denies_asked(p, question))
    # the second hop: passages of documents a passage names, whether found by their own words or not
    bridges = [i for i in relevant if i.kind is EvidenceKind.PASSAGE and (i.hop == 2 or i.related)]
    if not first:
        return []
    # "What should I do if I have an affected kettle?": the passages under "What to do"
    under = [p for p in first if _heading_asks(p, question)]
    if under:
        return sorted(under, key=lambda i: i.number)[:MAX_PASSAGES]
    chosen = [first[0]]
    # "What is Lumenflow?": the passage saying what it is, however it scores
    chosen += [p for p in first if p not in chosen and _says_kind(p, question)][:1]
    # "Which club finished third?": the table's row at that place
    place = _place_asked(question)
    chosen += [p for p in first if place and p not in chosen and _at_place(p, place)][:1]
    for term in terms:
        # a number the question names ("the third quarter of 2026") in the passage's own words:
        # a title holding it ("... Third Quarter 2026 Results") says it of every passage
        said = _own_words if term.replace(" ", "").isdigit() else _item_text
        has = possessed(question, term)
        if not any(
            _says_name(said(c), term, question) or _says_possessed(said(c), term, question, has) for c in chosen
        ):
            # of the passages saying it, one of a document already stated first: the chain stays on
            # the documents it runs through (HotpotQA held-out half: recall 69.5 -> 71.0, precision
            # 60.0 -> 60.8; the development half did not move)
            saying = [p for p in first if _says_name(said(p), term, question)]
            on_chain = {c.document for c in chosen}
            match = next((p for p in saying if p.document in on_chain), None) or next(iter(saying), None)
            if match is not None and match not in chosen:
                chosen.append(match)
    chosen += _answering(first, chosen, question)
    chosen += _asked_field(first, chosen, question)
    chosen += _listed(first, chosen)
    asked = set(content_words(question))
    expected = expects(question)
    chosen += _covering(first, chosen, asked)
    # "the capital of Norland": the passage saying which that is ("Its capital is Brackley"),
    # for the second hop from it
    which = _saying_which(first, chosen, question)
    chosen += which
    # what the question asks that no chosen passage says ("seat" of "the county seat of the county
    # where East Lempster is"): the second hop is there for it
    missing = asked - set().union(*(set(words(_item_text(c))) for c in chosen)) - _HOW_SAID
    # (inflections alike: "She married ..." says "marry", "corporations" says "corporation")
    missing_keys = {word_key(w) for w in missing} - set().union(*(word_keys(_item_text(c)) for c in chosen))
    for parent in list(chosen):
        if terms and not any(_says_name(_item_text(parent), t, question, possessive=True) for t in terms):
            # a chain starts at what the question names: a passage naming none of it is no first
            # hop (HotpotQA development half: precision 65.4 -> 66.4, one question moved)
            continue
        candidates = [b for b in bridges if parent.id in b.related and b not in chosen]
        if candidates:
            # of a named document's passages, the one saying most of what is missing, then holding
            # an answer of the type asked for, then sharing most words with the question; stated
            # when it adds something asked
            best = max(
                candidates,
                key=lambda b: (
                    len(missing_keys & word_keys(b.text)),
                    offers(b.text, expected, question),
                    len(asked & set(words(b.text))),
                ),
            )
            # a passage of a document already stated is no new hop: it must say something missing
            # (HotpotQA development half: recall 70.5 -> 71.8, precision 66.4 -> 67.3; held-out
            # half: precision 53.9 -> 55.3)
            if missing_keys & word_keys(best.text) or (
                offers(best.text, expected, question) and best.document not in {c.document for c in chosen}
            ):
                chosen.append(best)
                # "Whom did the engineer who designed the bridge marry?": "Mara Lindqvist ... was a
                # structural engineer" says one missing word, "She married ..." the other
                rest = missing_keys - word_keys(best.text)
                more = [b for b in candidates if b is not best and rest & word_keys(b.text)]
                if more:
                    chosen.append(max(more, key=lambda b: len(rest & word_keys(b.text))))
    chosen += _naming(first, chosen, asked)
    chosen += [p for p in first if p.score >= PASSAGE_RATIO * first[0].score and p not in chosen]
    # "How heavy is the Velo Commuter 2?": once a passage answers it ("Weight: 22.5 kg"), its
    # document's passages saying nothing asked ("Price: 2,399 euros") are no answer
    _, asked_of = _asked_of(question)
    held = {c.id: _answers(c, question) for c in chosen}
    answering = {c.document for c in chosen if asked_of and held[c.id] >= len(asked_of)}
    # ... but for one naming what no answering passage names ("The claimant, Anna Marlow, ..."
    # beside "... awarded her £86,000 in compensation")
    answered = " ".join(_item_text(c) for c in chosen if held[c.id])
    unnamed = [t for t in terms if not _says_name(answered, t, question)]
    chosen = [
        c
        for c in chosen
        if c.document not in answering
        or held[c.id]
        or c in which
        or any(_says_name(_item_text(c), t, question) for t in unnamed)
    ]
    # "The warranty does not cover:" says nothing its items do not
    sections = {p.section for p in chosen}
    chosen = [c for c in chosen if (lead := _lead_of(c)) is None or lead not in sections][:MAX_PASSAGES]
    return sorted(chosen + _defining(chosen, relevant), key=lambda i: (-i.score, i.number))


#: A heading that asks what its section answers: "What to do", "How to apply", "Who can apply".
_ASKING_HEADING = re.compile(r"^(?:what|how|who|when|where|why)\s+(?:to|can|should|must|do|does)\s+\w+", re.I)
#: The words of such a heading a question need not repeat ("What should I do ...?" for "What to do").
_HEADING_ONLY = frozenset("to can should must you i we".split())


def _saying_which(
    passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem], question: str
) -> list[EvidenceItem]:
    """The best of ``passages`` saying which thing the question means by what it is of a name
    (:func:`~provgraph.answer.question.described`: "Its capital is Brackley" for "What is the
    population of the capital of Norland?"), its words and the name, when no ``chosen`` passage
    says them: the second hop starts there. HotpotQA held-out half: recall 71.0 -> 72.0,
    precision 62.6 -> 62.8; the development half did not move (for a thing described by a
    clause too, "the county where East Lempster is", its precision fell 79.3 -> 78.6)."""
    thing = described(question)
    noun = {word_key(w) for w in thing_of(thing)} if thing else set()
    if thing is None or not noun or any(noun <= word_keys(_item_text(c)) for c in chosen):
        return []
    return [
        p
        for p in passages
        if p not in chosen
        and noun <= word_keys(_item_text(p))
        and any(_says_name(_item_text(p), n, question) for n in thing.names)
    ][:1]


def _heading_asks(item: EvidenceItem, question: str) -> bool:
    """Whether the heading a passage is under asks the question: its question word first, its
    other words (but "to", "can" ...) in the question ("What to do" for "What should I do if I
    have an affected kettle?", "How to apply" for "How do I apply?")."""
    heading = nearest_heading(item.section)
    if not _ASKING_HEADING.match(heading):
        return False
    said, asked = words(heading), words(question)
    return said[:1] == asked[:1] and set(said) - _HEADING_ONLY <= set(asked)


def _denies_asked(item: EvidenceItem, question: str) -> bool:
    """Whether a passage denies what a question that denies nothing asks ("are not affected" for
    "Which batch codes are affected?"). A yes/no question's answer may be a denial ("Aspirin
    should not be given to children" for "Is aspirin safe for children?"), and a bound is none
    ("should not last longer than four weeks" says how long)."""
    if _NEGATIVE.search(question) is not None or expects(question) is Expects.YES_NO:
        return False
    return bool(denials_of(_BOUND.sub(" ", item.text), content_words(question)))


#: "not longer than", "no more than": a bound, not a denial.
_BOUND = re.compile(
    r"\b(?:not|no)\s+(?:\w+\s+)?(?:more|less|longer|shorter|later|earlier|fewer|greater|higher|lower)\s+than\b", re.I
)


def _lead_of(item: EvidenceItem) -> str | None:
    """The section of the items of a list that ``item`` is the sentence they complete, or None."""
    if not item.text.endswith(":"):
        return None
    return SECTION_SEPARATOR.join(h for h in (item.section, item.text) if h)


def _listed(passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """The other items of the list the first chosen passage is an item of, when each completes
    their heading ("Do not take Cardenol if you have severe asthma", "... if you are allergic to
    bisoprolol"): the list is the answer, not its best item alone. When the passage is the
    sentence a list's items complete ("The warranty does not cover:"), its items."""
    top = chosen[0]
    if (lead := _lead_of(top)) is not None:
        return [p for p in passages if p not in chosen and p.document == top.document and p.section == lead]
    if not _completes(top):
        return []
    return [
        p
        for p in passages
        if p not in chosen and p.document == top.document and p.section == top.section and _completes(p)
    ]


def _completes(item: EvidenceItem) -> bool:
    """Whether a passage is read as completing its heading (a list item: "if you have severe asthma")."""
    heading = nearest_heading(item.section)
    own = item.text[len(heading) + 1 :] if heading and item.text.startswith(heading + " ") else ""
    return bool(own) and under_heading(own, item.section) == item.text


#: The questions whose answer is a value of a type :func:`~provgraph.answer.question.offers` knows.
_FACTOID = frozenset({Expects.DATE, Expects.NUMBER, Expects.PERSON, Expects.PLACE})


def _answering(passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem], question: str) -> list[EvidenceItem]:
    """For a factoid question, when no chosen passage both says what the question asks of its
    names (a word of it that is no name, inflections alike: "died" for "When did Pierre Curie
    die?") and holds a value of the type asked for (a date), the passage about a name of the
    question that does: of the name's document, or naming it. Most of what is asked first, then
    the best scored. "He died in a street accident in Paris in 1906." in "Pierre Curie", which
    scores below "Pierre Curie was a French physicist." (it does not repeat the name). For a
    question asking no type, when no chosen passage says a word of what it asks, the passage
    saying most of it (:func:`_says_asked`). When a chosen passage says part of what a factoid
    question asks ("lot numbers" of "What is the phone number ...?"), the passage saying all of
    it ("1-800-555-0142")."""
    # a question naming nothing is about its topic ("How much gallium was produced in 2022?")
    names = salient_names(question)
    terms = names or topics(question)
    expected = expects(question)
    # "What is Loravex used for?" asks no type: the passage saying what it asks answers it
    answers = _says_asked if expected is Expects.ANY else _answers
    if (expected not in _FACTOID and expected is not Expects.ANY) or not terms:
        return []
    # a passage saying all of what is asked ("phone number": "1-800-555-0142") beyond one saying
    # part of it ("lot numbers")
    said = max(
        (answers(c, question) for c in chosen if expected is not Expects.ANY or _names_own(c, terms, question)),
        default=0,
    )
    _, asked = _asked_of(question)
    if said and (expected is Expects.ANY or said >= len(asked)):
        return []
    if expected is Expects.ANY and any(
        asked & word_keys(c.text, measures=True) and _names_own(c, terms, question) for c in chosen
    ):
        # a chosen passage says some of it of a name of the question (HotpotQA lost gold
        # sentences to more); "Avoid use with rifampin" says "use" of no name
        return []

    # a passage opening with another name, or whose "It" stands for one ("K2 is ...", "It is in
    # the Karakoram range" in "Mount Everest"), is about that name; one naming what the topic is
    # is about the topic ("Threads of the Silk Road is an exhibition ..." for "When does the
    # exhibition close?")
    # ... and one opening with the name of the best passage's document is about what the question
    # describes ("The Norland Railway opened in 1871." beside "Its main line runs from Kelston to
    # Brackley" for "When did the railway that runs from Kelston to Brackley open?")
    described = chosen[0].document if chosen else None
    about = [
        p
        for p in passages
        if p not in chosen
        and (
            any(mentions(_item_text(p), t) and not (names and _of_another(p, t)) for t in terms)
            # (or with its "It": "It is 61 metres deep" in "Lake Orla", beside "Lake Orla is a
            # crater lake on the flank of Mount Kerel" for "How deep is the lake on the flank of
            # Mount Kerel?")
            or (p.document == described and (_opens_with(p, _named(p.title)) or _opens_with_its_pronoun(p)))
        )
    ]
    # "When does the timetable change?": a date on the calendar before "On Sundays"
    dated = expected is Expects.DATE
    best = max(about, key=lambda p: (answers(p, question), dated and calendar_date(p.text), p.score), default=None)
    if best is None or not answers(best, question):
        return []
    return [best] if not said or answers(best, question) >= len(asked) > said else []


def _names_own(item: EvidenceItem, terms: Sequence[str], question: str) -> bool:
    """Whether a passage names one of the ``terms`` in its own words, or by the referent of its
    pronoun: not only by its document's title (reading its "It" as the title, as
    :func:`in_context` does, cost HotpotQA's development half 2.5 precision: the passages that
    answer were then not drawn)."""
    return any(_says_name(f"{_own_words(item)} {item.referent or ''}", t, question) for t in terms)


def _says_asked(item: EvidenceItem, question: str) -> int:
    """How many of the words a question asks of its names the passage ``item`` holds, when that
    is at least ``MIN_ANSWERING_SHARE`` of them ("indicated" for "used" of "What is Loravex used
    for?": :func:`~provgraph.answer.text.word_keys`); else 0."""
    _, asked = _asked_of(question)
    held = len(asked & word_keys(item.text, measures=True))
    return held if asked and held >= MIN_ANSWERING_SHARE * len(asked) else 0


#: A field of a record or a table row: its label and value ("Revenue: 2.4 billion dollars").
_FIELD = re.compile(r"(?:^|\|\s*)(?:\*\*|__)?([A-Z][^:|*_]{0,40})(?:\*\*|__)?:(?:\*\*|__)?\s*[^|\s]")


def _field_asked(item: EvidenceItem, asked: frozenset[str], question: str) -> bool:
    """Whether a passage is a field, or a table row, labelled by what is asked of the names
    ``asked`` ("Revenue: 2.4 billion dollars" for "What was Contoso's revenue in 2025?"): the
    value itself, before any sentence merely holding the word. A row about another thing than
    the question names is none: "Split: Train | Images: 38,560" for "How many images are in
    CoastWatch-2?" counts the training split's."""
    expected = expects(question)
    # "Battery: 504 Wh" is no answer to "How long is the battery warranty?": "battery" qualifies
    # what is asked (not "court" of "Which court decided ...?")
    qualifiers = {a for a, _ in _compounds(question, nouns=True)} - {b for _, b in _compounds(question)}
    labelled = [
        m
        for m in _FIELD.finditer(item.text)
        if (keys := word_keys(m.group(1))) and keys <= asked and not keys <= qualifiers
    ]
    # its value of the type asked for: "Images: 38,560" is no answer to "In which countries ...?"
    if not asked or not any(offers(item.text[m.end() - 1 :].split("|")[0], expected, question) for m in labelled):
        return False
    fields = row_fields(item.text)
    if len(fields) < 2:
        return True
    if not salient_names(question):
        # "Ticket: Child under 12 | Price: Free" is no answer to "How much is an adult ticket?"
        return word_keys(fields[0][1]) <= word_keys(question) | _stop_keys()
    return set(words(fields[0][1])) <= set(words(question)) | STOP_WORDS


def _compounds(question: str, *, nouns: bool = False) -> list[tuple[str, str]]:
    """The keys of a question's nouns qualified by a common word before them ("fire", "claim" of
    "What is the deductible for a fire claim?"); with ``nouns``, only those of a word that can be
    nothing but a noun ("battery warranty", not "court decided")."""
    said = tokens(question)
    return [
        (word_key(a.lower()), word_key(b.lower()))
        for a, b in pairwise(said)
        if a.islower()
        and b.islower()
        and a not in STOP_WORDS
        and b not in STOP_WORDS
        and not a.isdigit()
        and (not nouns or word_readings(b) == {"NOUN"})
    ]


def _other_case(item: EvidenceItem, compounds: Sequence[tuple[str, str]]) -> bool:
    """Whether a passage qualifies a noun the question qualifies by another word, and never by the
    question's ("windstorm claims" for "a fire claim"): it says what holds in another case."""
    said = [word_key(w) for w in words(item.text)]
    stop = _stop_keys()
    return any(
        qualifier not in said and any(b == noun and a != qualifier and a not in stop for a, b in pairwise(said))
        for qualifier, noun in compounds
    )


@cache
def _stop_keys() -> frozenset[str]:
    """The keys of the stop words (on first use, as :func:`_lessening`)."""
    return frozenset(word_key(w) for w in STOP_WORDS)


#: "What resolution are the images?": what a question asks of, after its copula.
_COPULA_SUBJECT = re.compile(r"^\s*(?:what|which)\s+[a-z]+\s+(?:is|are|was|were)\s+the\s+([a-z ]+?)\s*\?\s*$", re.I)
#: What says that something is not done or must not be: a denial, or a label's warning words.
_NEGATIVE = re.compile(r"\b(?:not|never|no|cannot|avoid|contraindicated)\b|n['\u2019]t\b", re.I)


def _without(item: EvidenceItem, question: str) -> bool:
    """Whether a passage says "without" what the question says "with", or the reverse, and never
    as the question does ("For healthy outpatients without comorbidities" for "What should
    outpatients with comorbidities be prescribed?")."""

    def qualified(text: str) -> set[tuple[str, str]]:
        said = words(text)
        return {(a, word_key(b)) for a, b in pairwise(said) if a in ("with", "without")}

    asked, said = qualified(question), qualified(item.text)
    other = {"with": "without", "without": "with"}
    return any((other[a], b) in said and (a, b) not in said for a, b in asked)


#: "... must a landlord give ...": who a question asks what of, after its modal verb.
_DOER = re.compile(r"\b(?:must|should|can|could|may|might|shall)\s+(?:a|an|the)\s+([a-z]+)\s+[a-z]+", re.I)


def _doer(question: str) -> frozenset[str]:
    """The key of whom a question asks what they must or may do ("landlord" of "How much notice
    must a landlord give to end a tenancy?"), or none."""
    found = _DOER.search(question)
    return frozenset({word_key(found.group(1))}) if found else frozenset()


#: "Which court ...", "What year ...": the thing a question asks for.
_WHICH = re.compile(r"^\s*(?:which|what)\s+([a-z]+)\b(?!\s+(?:is|was|are|were|did|does|do)\b)", re.I)


def _which_thing(question: str) -> frozenset[str]:
    """The key of the thing a "which" or "what" question asks for ("court" of "Which court decided
    ...?"), or none."""
    found = _WHICH.match(question)
    return frozenset({word_key(found.group(1))}) if found and found.group(1).lower() not in STOP_WORDS else frozenset()


def _asked_field(passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem], question: str) -> list[EvidenceItem]:
    """When no chosen passage is a field labelled by what is asked (:func:`_field_asked`), the
    best scored that is and holds every number the question names: "Year: 2025 | Revenue: 2.4
    billion dollars" for "What was Contoso's revenue in 2025?", below "Metavir accounted for 71
    percent of the company's revenue in 2025.". A field labelled by the thing a "which" question
    asks for is such a field first: "Court: ..." for "Which court decided ...?", beside "Decided: ..."."""
    _, asked = _asked_of(question)
    which = _which_thing(question)
    if which and not any(_field_asked(c, which, question) for c in chosen):
        asked = which
    elif any(_field_asked(c, asked, question) for c in chosen):
        return []
    numbers = [t for t in salient_terms(question) if t.replace(" ", "").isdigit()]
    found = [
        p
        for p in passages
        if p not in chosen and _field_asked(p, asked, question) and all(mentions(_own_words(p), n) for n in numbers)
    ]
    return found[:1]


def _says_kind(item: EvidenceItem, question: str) -> bool:
    """Whether a passage says what kind of thing the question asks about is ("Amoxicillin is a
    penicillin antibiotic." for "What kind of drug is amoxicillin?")."""
    if item.kind is not EvidenceKind.PASSAGE:
        return False
    asked = kind_asked(question)
    # "What is Lumenflow?": what it is ("Lumenflow is a command-line tool ...")
    defined = _DEFINED.match(question)
    thing = (asked.thing if asked is not None else None) or (" ".join(words(defined.group(1))) if defined else "")
    if not thing:
        return False
    said = " ".join(words(_stated(item)))
    return re.match(rf"{re.escape(thing)} (?:is|are|was|were) (?:a|an|the) ", said) is not None


#: The places a question asks for by an ordinal, and the labels of a table's column giving them.
_PLACES = {
    w: str(n) for n, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth".split(), 1)
}
_PLACE_LABELS = frozenset("position pos place rank ranking".split())


def _place_asked(question: str) -> str | None:
    """The place an ordinal of ``question`` asks for ("3" of "Which club finished third?"), or None."""
    return next((_PLACES[w] for w in words(question) if w in _PLACES), None)


def _at_place(item: EvidenceItem, place: str) -> bool:
    """Whether a table's row gives ``place`` under a label of places ("Position: 3")."""
    return any(
        label.strip().lower() in _PLACE_LABELS and value.strip() == place for label, value in row_fields(item.text)
    )


#: A question asking only what a named thing is.
_DEFINED = re.compile(r"^\s*(?i:what|who)\s+(?i:is|are|was|were)\s+([A-Z][^?]*?)\s*\?\s*$")


def _answers(item: EvidenceItem, question: str) -> int:
    """How many of the words a factoid question asks of its names (not part of a name,
    inflections alike) the passage ``item`` holds, when that is at least ``MIN_ANSWERING_SHARE``
    of them and it holds a value of the type asked for (1 when it asks nothing more); else 0."""
    expected, asked = _asked_of(question)
    if expected not in _FACTOID or not offers(item.text, expected, question):
        return 0
    if not asked:  # "Where is Mount Everest?": a place ("in the Mahalangur Himal") is all it asks
        return int(span(_stated(item), question) is not None)
    # its heading says it of it too ("Swallow the tablet ... in the morning" under "How to take Cardenol")
    heading = item.section if item.section and not is_headline(item.section) else ""  # a plain text's title line
    # read in its context: "It is 61 metres deep" in "Lake Orla" says "lake"
    said = word_keys(f"{_pronoun_read(item)} {heading}", measures=True)
    # ... and its document's title the thing of a name the question asks of ("album" of "Low Tide
    # (album)" for "Who produced the third album of The Velvet Rain?": "It was produced by ...")
    said |= _thing_keys(question) & word_keys(item.title or "")
    held = len(asked & said)
    return held if held and held >= MIN_ANSWERING_SHARE * len(asked) else 0


@lru_cache(maxsize=256)
def _thing_keys(question: str) -> frozenset[str]:
    """The keys of the thing of a name ``question`` asks of (:func:`~provgraph.answer.question.thing_of`)."""
    thing = described(question)
    return frozenset(word_key(w) for w in thing_of(thing)) if thing and thing.asked else frozenset()


@lru_cache(maxsize=256)
def _asked_of(question: str) -> tuple[Expects, frozenset[str]]:
    """What a question expects and the keys of what it asks of its names: read once a question,
    not once a passage."""
    # "agreement" of "the Fabrikam agreement" is part of what is named, not of what is asked
    named = {w for t in salient_terms(question) for w in t.split()} | name_heads(question)
    asked = {word_key(w) for w in content_words(question) if w not in named and w not in _HOW_SAID}
    return expects(question), frozenset(asked)


def _covering(passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem], asked: set[str]) -> list[EvidenceItem]:
    """Passages that speak of what the chosen ones do not: repeatedly, the one holding most of
    the question's content words ``asked`` that no chosen passage holds, while it holds at least
    ``MIN_NEW_WORDS`` of them (a multi-hop question's words are spread over its documents)."""
    covered = set().union(*(set(words(_item_text(c))) for c in chosen)) & asked
    out: list[EvidenceItem] = []
    while len(chosen) + len(out) < MAX_PASSAGES:
        gains = [
            (len((set(words(_item_text(p))) & asked) - covered), p)
            for p in passages
            if p not in chosen and p not in out
        ]
        gain, best = max(gains, key=lambda g: (g[0], g[1].score), default=(0, None))
        if best is None or gain < MIN_NEW_WORDS:
            break
        out.append(best)
        covered |= set(words(_item_text(best))) & asked
    return out


def _naming(passages: Sequence[EvidenceItem], chosen: Sequence[EvidenceItem], asked: set[str]) -> list[EvidenceItem]:
    """The second hop the other way: of the passages of other documents that name a chosen
    passage's document ("Kansas Song is a fight song of the University of Kansas" for a chosen
    passage of "University of Kansas"), the one saying most of what the question asks and no
    chosen passage says, when that is at least ``MIN_LINKED_WORDS`` words. HotpotQA development
    half: gold answer in the claims 61.7 -> 63.8, sentence recall 66.8 -> 67.5, precision 63.9 ->
    63.8 (1 word: precision 61.9; 3: no change); the held-out half does not move."""
    missing = asked - set().union(*(set(words(_item_text(c))) for c in chosen)) - _HOW_SAID
    names = {_named(c.title) for c in chosen} - {""}
    documents = {c.document for c in chosen}
    gains = [
        (len(missing & set(words(p.text + " " + (p.title or "")))), p)
        for p in passages
        if p.document not in documents and any(mentions(" ".join(words(p.text)), n) for n in names)
    ]
    gain, best = max(gains, key=lambda g: (g[0], g[1].score), default=(0, None))
    return [best] if best is not None and gain >= MIN_LINKED_WORDS else []


def _defining(chosen: Sequence[EvidenceItem], relevant: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """For passages that do not open with their document's subject, the relevant passage of the
    same document that does ("Adriana Trigiani is an Italian American best-selling author ..."):
    what the document is about, so the reader knows who "she" or "the film" is. At most
    ``MAX_DEFINING``. HotpotQA development half: sentence recall 59.3 -> 62.0, precision 64.7 ->
    63.7, gold answer in the claims 46.8 -> 48.9. Not for a passage its claim names the subject
    of, reading its pronoun ("She designed ...": "Mira Castell designed ..."): recall 71.8 -> 71.4,
    precision 67.3 -> 68.3."""
    out: list[EvidenceItem] = []
    passages = [i for i in relevant if i.kind is EvidenceKind.PASSAGE]
    for item in chosen:
        name = _named(item.title)
        if not name or _opens_with(item, name) or _text_opens_with(_stated(item), name, possessive=True):
            continue
        found = next(
            (p for p in passages if p.document == item.document and p is not item and _opens_with(p, name)), None
        )
        if found is not None and found not in chosen and found not in out:
            out.append(found)
    return out[:MAX_DEFINING]


def _documents(claims: Sequence[DraftClaim], by_id: dict[str, EvidenceItem]) -> set[str]:
    return {by_id[c].document or "" for claim in claims for c in claim.supporting_citations if c in by_id}


def _label(item: EvidenceItem, which: str) -> str:
    label = getattr(item, f"{which}_label")
    if label:
        return str(label)
    term = getattr(item, which)
    if term is None:
        return ""
    return term_text(term if which == "object" else f"<{term}>")


def _fact_text(item: EvidenceItem, objects: Sequence[str] | None = None) -> str:
    """The fact as a sentence: "ibuprofen treats fever" for a predicate that reads as a verb,
    "the maximum daily dose (mg) of ibuprofen is 3200" for one that reads as a noun; with several
    ``objects`` of one source, "ibuprofen treats fever and pain", "the twin town of Paris
    includes Rome and Berlin"."""
    subject, predicate = _label(item, "subject"), _label(item, "predicate")
    said = _join(objects) if objects else _label(item, "object")
    if verbal(predicate):
        return f"{subject} {predicate} {said}"
    return f"the {predicate} of {subject} {'includes' if objects and len(objects) > 1 else 'is'} {said}"


def _facts(items: Sequence[EvidenceItem]) -> list[list[EvidenceItem]]:
    """Statement items grouped by fact (subject, predicate, object), best group first."""
    groups: dict[tuple[str | None, str | None, str | None], list[EvidenceItem]] = {}
    for item in items:
        groups.setdefault((item.subject, item.predicate, item.object), []).append(item)
    return sorted(groups.values(), key=lambda g: -max(i.score for i in g))


_LABELS = frozenset(
    {
        "http://www.w3.org/2000/01/rdf-schema#label",
        "http://www.w3.org/2004/02/skos/core#prefLabel",
        "http://www.w3.org/2004/02/skos/core#altLabel",
        "http://schema.org/name",
        "https://schema.org/name",
    }
)


def _is_label(item: EvidenceItem) -> bool:
    # "aspirin label aspirin" says nothing a reader wants
    return item.predicate in _LABELS


def _focus(pack: EvidencePack) -> set[str]:
    """The question's content words that are not its entities' names, as word keys (inflections alike)."""
    names = {w for e in pack.entities for w in words(e.label)} | {
        w for t in salient_terms(pack.question) for w in t.split()
    }
    return {word_key(w) for w in words(pack.question) if w not in STOP_WORDS and w not in names}


def _speaks_of(item: EvidenceItem, focus: set[str]) -> bool:
    if item.kind is EvidenceKind.PASSAGE:
        text = item.text
    else:
        text = f"{_label(item, 'predicate')} {' '.join(item.predicate_synonyms)} {_label(item, 'object')}"
        if item.conflict is not None:
            text += " " + " ".join(term_text(f"<{p}>") for p in item.conflict.predicates)
    return bool(word_keys(split_camel(text)) & focus)


def _by_property(groups: Sequence[list[EvidenceItem]]) -> list[list[list[EvidenceItem]]]:
    """Fact groups of the same subject and predicate together, in order of the best."""
    out: dict[tuple[str | None, str | None], list[list[EvidenceItem]]] = {}
    for group in groups:
        out.setdefault((group[0].subject, group[0].predicate), []).append(group)
    return list(out.values())


def _values_claim(groups: Sequence[list[EvidenceItem]]) -> DraftClaim:
    """Several values of one subject and property: of the same sources, stated together as a
    fact ("ibuprofen treats fever and pain": a property may have several values); of different
    ones, as differing, each with its sources (no conflict is declared, so none is resolved)."""
    first = groups[0][0]
    if len({tuple(_names(g)) for g in groups}) == 1:
        objects = [_label(g[0], "object") for g in groups]
        return _fact_claim([i for g in groups for i in g], _fact_text(first, objects))
    sides = [f"{_label(g[0], 'object')} ({_join(_names(g))})" for g in groups]
    predicate, subject = _label(first, "predicate"), _label(first, "subject")
    what = f'"{predicate}" for {subject}' if verbal(predicate) else f"the {predicate} of {subject}"
    text = f"Sources state different values of {what}: " + "; ".join(sides) + "."
    return DraftClaim(
        text=text,
        supporting_citations=[i.id for g in groups for i in g],
        support_level=SupportLevel.DIRECT,
        claim_class=ClaimClass.FACTUAL,
    )


def _names(items: Sequence[EvidenceItem]) -> list[str]:
    return list(dict.fromkeys(i.title or i.document_key or i.document or "an unnamed source" for i in items))


def _fact_claim(group: list[EvidenceItem], fact: str | None = None) -> DraftClaim:
    best = max(group, key=lambda i: i.score)
    fact = fact or _fact_text(best)
    confidence = max((i.confidence or 0.0) for i in group)
    names = _names(group)
    if confidence >= 0.9:
        text = f"It is established that {fact}"
    elif confidence >= 0.7:
        text = f"According to {names[0]}, {fact}"
    elif confidence >= 0.5:
        text = f"Evidence suggests that {fact}"
    else:
        text = f"Unverified reports state that {fact}"
    if len(names) >= 3:
        text += " (strongly supported by multiple sources: " + ", ".join(names) + ")"
    elif len(names) == 2:
        text += f" (supported by {names[0]} and {names[1]})"
    return DraftClaim(
        text=text + ".",
        supporting_citations=[i.id for i in sorted(group, key=lambda i: i.number)],
        support_level=SupportLevel.DIRECT,
        claim_class=ClaimClass.FACTUAL,
        subtopic=_label(best, "subject") or None,
    )


def _conflict_claim(item: EvidenceItem, conflict: Conflict, related: list[EvidenceItem]) -> DraftClaim:
    subject = next((r.subject_label for r in related if r.subject_label), None) or term_text(f"<{conflict.subject}>")
    predicate = next((r.predicate_label for r in related if r.predicate_label), None) or term_text(
        f"<{conflict.predicates[0]}>"
    )
    if conflict.kind is ConflictKind.DISJOINT:
        return _disjoint_claim(item, conflict, related, subject)
    cited = [item.id]
    titles = _titles(related)
    values: list[tuple[str, list[str], list[str]]] = []  # (value, source keys, document titles)
    for value in conflict.values:
        statements = {c.statement for c in value.claims}
        items = [r for r in related if r.statement in statements]
        cited.extend(r.id for r in items)
        # a source with no publisher nor URL is its document: named by its title, not its IRI
        keys = [titles.get(k, k) for k in value.sources]
        values.append((term_text(value.value), keys or _names(items), _names(items)))
    # Sources are named by their key (an edition's host) unless two sides share one: then "es.wikipedia.org
    # reports 57, while es.wikipedia.org reports 762" says nothing, and the documents are named instead
    keys = [k for _, found, _ in values for k in dict.fromkeys(found)]
    by_title = len(keys) != len(set(keys))
    # one source (or the same sources) stating several values is one side: "X reports both 57 and 762"
    grouped: dict[tuple[str, ...], list[str]] = {}
    for text, found, named in values:
        grouped.setdefault(tuple((named or found) if by_title else found), []).append(text)
    sides = []
    for sources, stated in grouped.items():
        verb = "reports" if len(sources) == 1 else "report"
        said = f"both {stated[0]} and {stated[1]}" if len(stated) == 2 else _join(stated)
        sides.append(f"{_join(sources)} {verb} {said}")
    return _sides_claim(
        f"Sources disagree on the {predicate} of {subject}", sides, conflict, cited, subject, titles=titles
    )


def _disjoint_claim(item: EvidenceItem, conflict: Conflict, related: list[EvidenceItem], subject: str) -> DraftClaim:
    """A disjoint-property conflict: each side says what it states of the same subject and object
    ("Prescribing information says ibuprofen is contraindicated for peptic ulcer, while Health blog
    says ibuprofen treats peptic ulcer"), then the resolution."""
    cited = [item.id]
    sides, said = [], []
    for value in conflict.values:
        statements = {c.statement for c in value.claims}
        items = [r for r in related if r.statement in statements]
        cited.extend(r.id for r in items)
        predicate = next((r.predicate_label for r in items if r.predicate_label), None) or term_text(
            f"<{value.predicate}>"
        )
        obj = next((r.object_label for r in items if r.object_label), None) or term_text(value.value)
        names = _names(items) if items else [_titles(related).get(k, k) for k in value.sources]
        verb = "says" if len(names) == 1 else "say"
        sides.append(f"{_join(names)} {verb} {subject} {predicate} {obj}")
        said.append(f"{predicate} {obj}")
    return _sides_claim(
        f"Sources disagree about {subject}", sides, conflict, cited, subject, said, titles=_titles(related)
    )


def _sides_claim(
    lead: str,
    sides: Sequence[str],
    conflict: Conflict,
    cited: list[str],
    subject: str,
    shown: Sequence[str] | None = None,
    *,
    titles: Mapping[str, str] | None = None,
) -> DraftClaim:
    """ "<lead>: <side>, while <side>; <side>. Preferred: ..." citing ``cited``; ``titles``
    names the documents the resolution's rationale names by IRI."""
    text = f"{lead}: {sides[0]}"
    if len(sides) > 1:
        text += ", while " + "; ".join(sides[1:])
    resolution = _resolution_text(conflict, shown)
    for document, title in (titles or {}).items():
        resolution = resolution.replace(document, title)
    text += resolution
    return DraftClaim(
        text=text + ".",
        supporting_citations=list(dict.fromkeys(cited)),
        support_level=SupportLevel.DIRECT,
        claim_class=ClaimClass.COMPARATIVE,
        subtopic=subject,
    )


def _resolution_text(conflict: Conflict, shown: Sequence[str] | None = None) -> str:
    """ ". Preferred: <value> (<rationale>)", or that none is; ``shown``: how each value reads,
    when not as its term."""
    rationale = conflict.resolution.rationale.rstrip(".")
    preferred = next((i for i, v in enumerate(conflict.values) if v.outcome is ValueOutcome.PREFERRED), None)
    if preferred is None:
        return f". No value is preferred ({rationale})"
    text = shown[preferred] if shown is not None else term_text(conflict.values[preferred].value)
    return f". Preferred: {text} ({rationale})"


def _titles(items: Sequence[EvidenceItem]) -> dict[str, str]:
    """Document IRI -> title, of the documents of ``items``."""
    return {i.document: i.title for i in items if i.document and i.title}


def _join(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


_HISTORICAL = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b|\b(was|were|founded|established|born|died|formerly)\b", re.I)
_SCOPE = re.compile(r"\b(assum\w*|only (?:in|for|when)|applies to|limited to|excluding)\b", re.I)


def _claim_class(text: str) -> ClaimClass:
    if _SCOPE.search(text):
        return ClaimClass.SCOPE
    if _HISTORICAL.search(text):
        return ClaimClass.HISTORICAL
    return ClaimClass.FACTUAL


def _summary(claims: Sequence[DraftClaim], by_id: dict[str, EvidenceItem]) -> str:
    parts = []
    for claim in claims[:2]:
        numbers = [by_id[c].number for c in claim.supporting_citations if c in by_id]
        parts.append(f"{claim.text.rstrip('.')} {compact_citations(numbers)}.")
    return " ".join(parts)


def _refinements(pack: EvidencePack, missing: Sequence[str]) -> list[str]:
    out = [f'Ask about "{t}" with its full name, or ingest a source about it.' for t in missing[:3]]
    for entity in pack.entities[:3]:
        out.append(f'Ask directly about "{entity.label}", which the store knows.')
    if pack.filters.max_tier or pack.filters.documents or pack.filters.min_confidence or pack.filters.issued_after:
        out.append("Remove or widen the filters: they may exclude the sources that answer.")
    return out


__all__ = ["ExtractiveGenerator", "compact_citations", "in_context"]
