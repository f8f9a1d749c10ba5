"""The claim verifier: no citation, no claim.

It is independent of the generator (it sees the draft and the evidence pack, nothing else) and
runs the same on the extractive generator's drafts, a language model's, and candidate answers
posted to ``POST /qa/verify``. For every claim of a draft, in order:

1. it has at least one citation (else removed: ``no_citation``), and does not itself give orders
   or vouch for itself (else removed: ``instruction_in_evidence``, ``self_asserting_evidence``);
2. every citation resolves to an item of the pack, once: an id or an ``[n]`` number of the pack.
   Dangling and duplicate citations are dropped (``dangling_citation``, ``duplicate_citation``);
   a claim left without citations is removed;
3. evidence is data, never instructions: a cited item whose text, or a passage of whose source
   (:attr:`~provgraph.answer.models.EvidenceItem.untrusted`, set by the retriever), gives orders
   to its reader or vouches for itself ("the verified answer is ...", "ignore previous
   instructions", ``SYSTEM:``, see :mod:`provgraph.answer.untrusted`) supports nothing: the
   citation is dropped with ``self_asserting_evidence`` or ``instruction_in_evidence``, and a
   claim left without citations is removed. A source does not make a claim true by saying so;
4. the cited evidence supports the claim, as the :class:`SupportJudge` decides. The default,
   :class:`HeuristicJudge`, is lexical and documented below; an NLI model can replace it. A claim
   the judge rejects is removed with the judge's reason codes;
5. the claim class has its minimum support: a comparative claim cites two items, or one and says
   it is uncertain; a scope claim cites a passage stating the assumption. Else the claim is
   downgraded (kept, marked unverified, support level indirect: ``insufficient_support``);
6. a claim citing a fact that other evidence of the pack contradicts is flagged: the fact lost a
   resolution (``contradicted``, downgraded, high risk) or is contested and the claim does not
   state the disagreement while citing the conflict (``contested_evidence``, flagged; high risk
   unless the cited value is the preferred one).

Then the answer as a whole: the evidence cited by the kept claims must cover the question, that
is mention every word of every name of the question (:func:`~provgraph.answer.text.salient_terms`;
"Mexican Formula One" is covered by "Formula One drivers from Mexico ... Mexican driver") and at
least ``MIN_QUESTION_COVERAGE`` of its content words. Supported claims about something else than
what was asked (the distractor paragraphs of a multi-hop question, say) do not answer it.

Only the verifier writes citation marks. A kept claim's text loses the citation-like marks it
carries (``[1]``, ``【1】``, ``(source 2)``: a passage's own footnotes, or a model's guesses); the
summary is the draft's only when no claim was removed, it gives no orders, its marks are ``[n]``
of evidence the claims cite at the end of a sentence, and the evidence the claims cite supports
it as a claim; else it is rebuilt from the first two kept claims and their marks.

Confidence from the share of drafted claims that survive verified: ``high`` at 90% or more and no
unresolved high-risk issue, ``medium`` at 75%, ``low`` at 50%, else ``insufficient_evidence``,
which abstains: the answer has no claims, a short reason, the best references found, concrete
query refinements and filter suggestions. An answer that does not cover the question abstains too.
One whose claims state no answer of the type the question asks for (a date for "when", a number
for "how many", a name for "who" or "where": :mod:`provgraph.answer.question`), or, for a yes/no
question, do not speak of every entity it names, is at most ``low``, with a limitation that says so;
so is one whose passages all come from documents about other things that only mention what the
question names (a passage about an album recorded in Big Stone Gap, for a question about the film),
and when that evidence also speaks of less than ``MIN_ANSWER_COVERAGE`` of what the question asks
(its words, names aside), it is no answer: the answer abstains. So does one whose claims stating
a value of the asked type each say it of another thing, placed in what the question names or not
naming it at all ("Kelston is a port city in Norland with a population of 412,000" for "What is
the population of Norland?", or of Brackley); and one to a question about a thing it names by what
it is to a name ("Where did the designer of the Harbour Bridge study?") whose claims and evidence
say which thing that is and nothing of what is asked of it, from the name's documents alone; and
one whose answering passage is of the name's own document and says nothing of the thing
("Mara Lindqvist (1889-1961) was a Swedish structural engineer" for "When was the husband of
Mara Lindqvist born?").
A ``high`` answer also needs a claim that states a value of the asked type and cites evidence
speaking of what is asked (``MIN_PROPERTY_COVERAGE`` of the question's words, names aside:
"painted" in "When was the lighthouse painted?"); for a choice, a verdict naming one option; for
a yes/no question, a verdict or a claim naming everything the question names; for a question
about a thing it describes by a clause ("the football club that signed Tom Birch"), a passage
cited of the answer's document, or naming its subject, that says the clause's verb. Else it is
``medium``, with a limitation that says what is missing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import takewhile

from provgraph.answer.base import SupportJudge
from provgraph.answer.linking import checks_links, linked_through, unlinked
from provgraph.answer.models import (
    Action,
    AnswerClaim,
    AnswerConfidence,
    AskFilters,
    Citation,
    ClaimClass,
    Detail,
    DraftAnswer,
    DraftClaim,
    EvidenceItem,
    EvidenceKind,
    EvidencePack,
    GroundedAnswer,
    ReasonCode,
    Reference,
    SourceUse,
    SupportLevel,
    VerificationIssue,
)
from provgraph.answer.question import (
    KIND_WORDS,
    NUMBER_WORDS,
    PLACED_IN,
    Expects,
    choices,
    comparison,
    described,
    expects,
    kind_asked,
    offers,
    pair,
    thing_of,
    topics,
    year_bound,
)
from provgraph.answer.text import (
    LIFE_DATES,
    OUTCOMES,
    RELEASE_PREFIX,
    STOP_WORDS,
    YEAR,
    acronyms,
    clauses,
    contrasted,
    denials_of,
    is_headline,
    leaves_open,
    mentions,
    name_heads,
    named_by_noun,
    normalise,
    number_text,
    opening_name,
    position,
    possessed,
    row_fields,
    salient_names,
    salient_terms,
    singular,
    spells,
    split_camel,
    term_text,
    tokens,
    unbracketed,
    without_article,
    without_disambiguation,
    without_possessive,
    word_key,
    word_keys,
    word_matches,
    word_readings,
    words,
)
from provgraph.answer.untrusted import CITATION_MARK, inspect, inspect_item, strip_citation_marks
from provgraph.trust.models import ValueOutcome

#: Share of a claim's content words the cited evidence must contain: a claim may rephrase, but
#: not add its own payload ("Aspirin treats insomnia" from "Aspirin treats headache": 2 of 3).
MIN_OVERLAP = 0.75
#: Share of the question's content words the evidence of the answer must contain. HotpotQA
#: development half, answered with the gold paragraphs / abstained without them: 0.5 84 / 76,
#: 0.45 86 / 76, 0.4 90 / 74, 0.35 94 / 74, 0.3 94 / 72 (a multi-hop question's words are spread
#: over documents the answer need not cite all of).
MIN_QUESTION_COVERAGE = 0.4
#: Thresholds of the answer's confidence: share of drafted claims kept verified.
HIGH, MEDIUM, LOW = 0.9, 0.75, 0.5

#: The marks the verifier writes: ``[n]``, ``[n-m]``, ``[n, m]``.
_OWN_MARK = re.compile(r"\[(\d+(?:\s*[-\u2013,]\s*\d+)*)\]")
#: Marks may only close a sentence: "... fever [1][2]." (not "cite [1] and ...").
_MARKS_AT_END = re.compile(r"(?:\s*\[\d+(?:\s*[-\u2013,]\s*\d+)*\])+\s*(?:[.!?;]|$)")
_NUMBER = re.compile(r"(?<![\w.])[-\u2212]?\d[\d,]*(?:\.\d+)?")
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+|\s+[-\u2013\u2014]\s+|\(|\)")
_UNCERTAIN = re.compile(
    r"\b(may|might|possibly|likely|suggests?|uncertain|unclear|disagree\w*|approximately|about|around|"
    r"estimated|reportedly|according to)\b",
    re.I,
)
#: Words of the generators' phrasing, not of the evidence: they need no support.
_PHRASING = frozenset(
    """established according evidence suggests suggest unverified reports report reported states state stated
    supported strongly multiple sources source disagree disagrees preferred while also however whereas
    value values rationale because since therefore more most less fewer higher lower larger smaller than
    recent older newer best better worse approximately about around roughly nearly over under known different
    said say says indicates indicate shows show earlier later younger taller shorter longer bigger includes""".split()
)
_STOP = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being do does did
    what which who whom whose when where why how that this these those it its as than then there their
    they he she his her him i you we our your my me us not no yes if into both either each any all some
    many much can could would should will shall may might must has have had having also so such
    one s""".split()
)


#: A kept claim and the items it cites.
_Kept = tuple[AnswerClaim, list[EvidenceItem]]


def _prefixes(tokens: Iterable[str]) -> set[str]:
    # a 5-letter prefix matches inflections ("treats"/"treatment", "Dutch"/"Dutchman")
    return {t[:5] for t in tokens if len(t) >= 5}


def _finder(evidence_words: set[str], *, inflections: bool = False, text: str | None = None) -> Callable[[str], bool]:
    """Whether a word is in the evidence, exactly or by its first five letters; with
    ``inflections``, also as any inflection (:func:`~provgraph.answer.text.word_key`: "died" for
    "die") or as the adjective of a measure the evidence names ("high": "elevation"). A claim's
    support keeps to the first: "cures" is not "cure" there, so "Aspirin cures cancer" does not
    pass on "Aspirin does not cure cancer" by its words (what the verifier checks is whether the
    evidence holds a claim's words, not how it says them); whether evidence speaks of what a
    question asks is the second. ``text``: the evidence as written, for the measures its phrases
    name ("580 light-years": how far), else its words are read."""
    # a possessive is its name: "Dahl's" in the claim, "Dahl" in the evidence, or the reverse
    evidence_words = evidence_words | {without_possessive(w) for w in evidence_words}
    prefixes = _prefixes(evidence_words)
    # and a measure for its adjective: "elevation" speaks of "How high ..."
    keys = word_keys(" ".join(evidence_words), measures=True) if inflections else set()
    if inflections and text:
        keys |= word_keys(text, measures=True)

    def found(word: str) -> bool:
        word = without_possessive(word)
        return (
            word in evidence_words
            or (len(word) >= 5 and word[:5] in prefixes)
            or (inflections and word_key(word) in keys)
            # a noun's plural is its singular ("cities": "a spa city"), not a verb's "cures"
            or (singular(word) in evidence_words and word_readings(word) == {"NOUN"})
        )

    return found


def _numbers(text: str) -> list[str]:
    return [m.replace(",", "").replace("\u2212", "-") for m in _NUMBER.findall(text)]


def _number_supported(claimed: str, evidence: Sequence[float]) -> bool:
    """Equal, or equal once the evidence is rounded to the claim's precision (52.37 vs 52.3731)."""
    value = float(claimed)
    decimals = len(claimed.split(".")[1]) if "." in claimed else 0
    half = 0.5 * 10**-decimals
    return any(math.isclose(value, e, rel_tol=1e-9) or abs(value - e) <= half + 1e-12 for e in evidence)


def evidence_text(items: Sequence[EvidenceItem], *, locators: bool = True, headlines: bool = True) -> str:
    """Everything the cited items state: text, labels, the source's name, every side of a
    conflict; with ``locators``, also where the source is (its key, often a file's path, and its
    URL), which names it but states no number: "12" in ".../pytest-12/bell-rock.md" supports
    nothing. Without ``headlines``, a title that is a headline is left out: "Halvorsen Shipping
    to Acquire Baltic Freight Lines" says what is asked ("acquiring") of none of its passages."""
    parts: list[str] = []
    for item in items:
        # (a plain text's title line is its passages' section too)
        parts += [item.text, item.passage_text or ""]
        parts += [t for t in (item.title or "", item.section or "") if headlines or not is_headline(t)]
        referent = item.referent or ""  # what the passage's "It" stands for
        parts.append(referent if headlines or not is_headline(referent) else "")
        if locators:
            parts += [item.document_key or "", item.url or ""]
        parts += [item.subject_label or "", item.predicate_label or "", item.object_label or ""]
        parts += item.predicate_synonyms  # what the ontology also calls the predicate ("kind": rdf:type)
        for term in (item.subject and f"<{item.subject}>", item.predicate and f"<{item.predicate}>", item.object):
            if term:
                parts.append(split_camel(term_text(term)))
        if item.conflict is not None:
            conflict = item.conflict
            parts.append(split_camel(term_text(f"<{conflict.subject}>")))
            parts += [split_camel(term_text(f"<{p}>")) for p in conflict.predicates]
            parts.append(conflict.resolution.rationale)
            for value in conflict.values:
                parts += [term_text(value.value), *(term_text(m) for m in value.members), *value.sources]
    return " ".join(p for p in parts if p)


def _content(text: str) -> list[str]:
    return [w for w in words(text) if w not in _STOP and w not in _PHRASING and not w[0].isdigit()]


class HeuristicJudge:
    """The documented lexical support check (the default :class:`SupportJudge`).

    Cited evidence supports a claim when, citation marks aside:

    - every number of the claim appears in the evidence (after removing thousands separators, or
      once the evidence is rounded to the claim's precision): else ``unsupported_number``;
    - every name of the claim (capitalised word runs, see
      :func:`~provgraph.answer.text.salient_terms`) has all its words in the evidence
      ("Marie Curie" is not supported by evidence about Pierre Curie): else ``unsupported_entity``;
    - when only facts are cited (no passage text), the claim names the predicate of one of them
      (a word of its label or local name): else ``unsupported_predicate``;
    - at least ``MIN_OVERLAP`` (three quarters) of the claim's content words (not stop words or
      the generators' phrasing) appear in the evidence: else ``insufficient_support``;
    - the claim keeps the evidence's denials: when it rests on evidence that denies what it says
      (a "not", "no", "never" ... before one of its words: "Aspirin does not cure cancer" for
      "Aspirin can cure cancer"), it denies it too, and a claim that denies what the evidence
      states ("Aspirin does not treat headache" from "Aspirin treats headache") rests on a
      denial; a verdict's "No: ... not ..." (a comparative claim) is the generator's reading of
      two values, not a denial: else ``contradicted``.

    A word matches exactly or by its first five letters, so inflections pass; a plural noun
    matches its singular ("cities": "city").
    """

    def judge(self, claim: DraftClaim, cited: Sequence[EvidenceItem]) -> list[tuple[ReasonCode, str]]:
        if not cited:
            return [(ReasonCode.NO_CITATION, "no evidence is cited")]
        text = CITATION_MARK.sub(" ", claim.text)
        evidence = evidence_text(cited)
        found = _finder(set(words(evidence)))
        checks = (
            _unsupported_numbers(text, evidence_text(cited, locators=False)),
            _unsupported_names(text, found),
            _unnamed_predicate(text, cited),
            _insufficient_overlap(text, found),
        )
        reasons = [reason for reason in checks if reason is not None]
        if not reasons:
            reasons += filter(None, [_denial(text, cited, comparative=claim.claim_class is ClaimClass.COMPARATIVE)])
        return reasons


def _denial(text: str, cited: Sequence[EvidenceItem], *, comparative: bool) -> tuple[ReasonCode, str] | None:
    """A claim that drops a denial of the evidence it rests on, or adds one (fifth check)."""
    claim_words = set(_content(text))
    if not claim_words:
        return None
    claim_denies = bool(denials_of(text, claim_words))
    # what the items say, not their sources' names and addresses
    denials = {i.id: denials_of(f"{i.text} {i.passage_text or ''}", claim_words) for i in cited}
    if not claim_denies:
        affirming = [i for i in cited if not denials[i.id]]
        found = _finder(set(words(evidence_text(affirming)))) if affirming else None
        if found is not None and _insufficient_overlap(text, found) is None:
            return None
        said = next((d[0] for d in denials.values() if d), None)
        if said is None:
            return None
        return ReasonCode.CONTRADICTED, f'the cited evidence denies it ("{said}"); the claim does not'
    if comparative or any(denials.values()):
        return None
    return ReasonCode.CONTRADICTED, "the claim denies what the cited evidence states; no cited evidence denies it"


def _unsupported_numbers(text: str, evidence: str) -> tuple[ReasonCode, str] | None:
    """The numbers of a claim the evidence does not state (:class:`HeuristicJudge`, first check)."""
    ev_numbers = [float(n) for n in _numbers(evidence) if n not in ("-", "")]
    missing = [n for n in _numbers(text) if not _number_supported(n, ev_numbers)]
    if not missing:
        return None
    return ReasonCode.UNSUPPORTED_NUMBER, "the cited evidence does not state " + ", ".join(missing)


def _unsupported_names(text: str, found: Callable[[str], bool]) -> tuple[ReasonCode, str] | None:
    """The names of a claim, sentence by sentence, with a word the evidence lacks (second check)."""
    missing = []
    for sentence in _SENTENCE.split(text):
        for term in salient_terms(sentence):
            name_words = [w for w in term.split() if w not in _STOP | _PHRASING and not w[0].isdigit()]
            if name_words and not all(found(w) for w in name_words):
                missing.append(term)
    if not missing:
        return None
    return (
        ReasonCode.UNSUPPORTED_ENTITY,
        "the cited evidence does not mention " + ", ".join(f'"{n}"' for n in dict.fromkeys(missing)),
    )


def _unnamed_predicate(text: str, cited: Sequence[EvidenceItem]) -> tuple[ReasonCode, str] | None:
    """When only facts are cited, a claim that names none of their predicates (third check)."""
    if any(i.passage_text or i.kind is EvidenceKind.PASSAGE for i in cited):
        return None
    vocabulary: set[str] = set()
    for item in [i for i in cited if i.predicate or i.conflict is not None]:
        names = [item.predicate_label or ""]
        names += [split_camel(term_text(f"<{p}>")) for p in ([item.predicate] if item.predicate else [])]
        if item.conflict is not None:
            names += [split_camel(term_text(f"<{p}>")) for p in item.conflict.predicates]
        vocabulary |= {w for n in names for w in words(n) if w not in _STOP}
    claim_words = set(words(text))
    said = " ".join(words(text))
    # a phrase of stop words ("is a" for rdf:type) is named by the phrase itself
    phrases = {" ".join(words(i.predicate_label or "")) for i in cited} - {""}
    if any(all(w in _STOP for w in p.split()) and mentions(said, p) for p in phrases):
        return None
    if vocabulary and not (vocabulary & claim_words or _prefixes(vocabulary) & _prefixes(claim_words)):
        return ReasonCode.UNSUPPORTED_PREDICATE, "the claim does not name what the cited facts state"
    return None


def _insufficient_overlap(text: str, found: Callable[[str], bool]) -> tuple[ReasonCode, str] | None:
    """A claim less than ``MIN_OVERLAP`` of whose content words the evidence has (fourth check)."""
    content = _content(text)
    if not content:
        return None
    share = sum(found(w) for w in content) / len(content)
    if share >= MIN_OVERLAP:
        return None
    return ReasonCode.INSUFFICIENT_SUPPORT, f"only {share:.0%} of the claim's words appear in the cited evidence"


def _resolve(claim: DraftClaim, pack: EvidencePack) -> tuple[list[EvidenceItem], list[VerificationIssue]]:
    """The cited items, each once, and the issues of the citations dropped."""
    items: list[EvidenceItem] = []
    issues: list[VerificationIssue] = []
    seen: set[str] = set()
    for citation in claim.supporting_citations:
        item = pack.get(citation)
        if item is None:
            issues.append(
                VerificationIssue(
                    claim=claim.text,
                    code=ReasonCode.DANGLING_CITATION,
                    action=Action.CITATION_DROPPED,
                    message=f"{citation!r} is not in the evidence pack",
                    citation=citation,
                )
            )
        elif item.id in seen:
            issues.append(
                VerificationIssue(
                    claim=claim.text,
                    code=ReasonCode.DUPLICATE_CITATION,
                    action=Action.CITATION_DROPPED,
                    message=f"{citation!r} is cited twice",
                    citation=citation,
                )
            )
        else:
            seen.add(item.id)
            items.append(item)
    return items, issues


def _conflicts_of(item: EvidenceItem, pack: EvidencePack) -> list[EvidenceItem]:
    out = []
    for other in pack.items:
        if other.conflict is None or item.statement is None:
            continue
        if any(c.statement == item.statement for v in other.conflict.values for c in v.claims):
            out.append(other)
    return out


def _contradictions(claim: DraftClaim, cited: Sequence[EvidenceItem], pack: EvidencePack) -> list[VerificationIssue]:
    """Cited facts that other evidence of the pack contradicts, unless the claim says so."""
    issues: list[VerificationIssue] = []
    cited_ids = {i.id for i in cited}
    text = CITATION_MARK.sub(" ", claim.text)
    stated = set(_numbers(text)) | set(words(text))
    for item in cited:
        for conflict_item in _conflicts_of(item, pack):
            conflict = conflict_item.conflict
            assert conflict is not None
            shown = [v for v in conflict.values if _value_stated(v.value, stated)]
            if conflict_item.id in cited_ids and len(shown) >= 2:
                continue  # the claim states the disagreement and cites it
            value = next(v for v in conflict.values if any(c.statement == item.statement for c in v.claims))
            others = ", ".join(term_text(v.value) for v in conflict.values if v is not value)
            if value.outcome is ValueOutcome.REJECTED:
                issues.append(
                    VerificationIssue(
                        claim=claim.text,
                        code=ReasonCode.CONTRADICTED,
                        action=Action.DOWNGRADED,
                        message=f"[{conflict_item.number}] prefers {others} over the cited {term_text(value.value)}: "
                        f"{conflict.resolution.rationale}",
                        citation=item.id,
                        high_risk=True,
                    )
                )
            else:
                issues.append(
                    VerificationIssue(
                        claim=claim.text,
                        code=ReasonCode.CONTESTED_EVIDENCE,
                        action=Action.FLAGGED,
                        message=f"other sources state {others} ([{conflict_item.number}]); the claim does not say so",
                        citation=item.id,
                        high_risk=value.outcome is not ValueOutcome.PREFERRED,
                    )
                )
    return issues


def _value_stated(value: str, stated: set[str]) -> bool:
    shown = term_text(value)
    numbers = _numbers(shown)
    if numbers and shown.replace(",", "").strip() == numbers[0]:
        return numbers[0] in stated
    return all(w in stated for w in words(shown))


def _minimum_support(claim: DraftClaim, cited: Sequence[EvidenceItem]) -> VerificationIssue | None:
    # both sides in one cited table row ("Outcome: Nausea | Tirzepatide 15 mg: 22 | Semaglutide 1
    # mg: 18") are two citations' worth
    one_row = len(cited) == 1 and len(row_fields(cited[0].text)) >= 3
    if (
        claim.claim_class is ClaimClass.COMPARATIVE
        and len(cited) < 2
        and not one_row
        and not _UNCERTAIN.search(claim.text)
    ):
        return VerificationIssue(
            claim=claim.text,
            code=ReasonCode.INSUFFICIENT_SUPPORT,
            action=Action.DOWNGRADED,
            message="a comparison needs two citations, or one and a statement of uncertainty",
        )
    if claim.claim_class is ClaimClass.SCOPE and not any(i.kind is EvidenceKind.PASSAGE for i in cited):
        return VerificationIssue(
            claim=claim.text,
            code=ReasonCode.INSUFFICIENT_SUPPORT,
            action=Action.DOWNGRADED,
            message="a scope claim needs a cited passage stating the assumption",
        )
    return None


def verify(
    draft: DraftAnswer,
    pack: EvidencePack,
    *,
    generator: str,
    judge: SupportJudge | None = None,
    detail: Detail = Detail.BRIEF,
    extra_limitations: Sequence[str] = (),
    trust_notes: bool = False,
) -> GroundedAnswer:
    """Check every claim of ``draft`` against the evidence of ``pack`` it cites (see the module
    docstring) and build the grounded answer, or an abstention. The draft's limitations and
    query refinements are checked too (:func:`checked_notes`), unless ``trust_notes`` says the
    generator's own code wrote them from the evidence (the extractive generator).

    >>> from provgraph.answer.models import DraftAnswer, DraftClaim, EvidenceItem, EvidenceKind, EvidencePack
    >>> item = EvidenceItem(id="ev-1", number=1, kind=EvidenceKind.PASSAGE, score=1.0,
    ...                     text="Aspirin reduces fever.", title="Aspirin note", document="urn:d")
    >>> pack = EvidencePack(question="Does aspirin reduce fever?", items=[item])
    >>> draft = DraftAnswer(answer_summary="Yes.", claims=[
    ...     DraftClaim(text="Aspirin reduces fever.", supporting_citations=["ev-1"]),
    ...     DraftClaim(text="Aspirin cures 90% of cancers.", supporting_citations=["ev-1"])])
    >>> answer = verify(draft, pack, generator="test")
    >>> [c.text for c in answer.claims], [i.code.value for i in answer.removed_claims]
    (['Aspirin reduces fever.'], ['unsupported_number', 'insufficient_support'])
    """
    judge = judge or HeuristicJudge()
    if not trust_notes:
        limitations, dropped = checked_notes(draft.limitations, pack)
        refinements, more = checked_notes(draft.query_refinements, pack)
        draft = draft.model_copy(update={"limitations": limitations, "query_refinements": refinements})
        if dropped + more:
            extra_limitations = [
                *extra_limitations,
                f"{dropped + more} of the generator's notes (limitations, suggested questions) were left out: "
                "each stated a number or a name the evidence does not, gave an order, or cited.",
            ]
    kept: list[_Kept] = []
    removed: list[VerificationIssue] = []
    for claim in draft.claims:
        checked, refused = _check_claim(claim, pack, judge)
        removed += refused
        if checked is not None:
            kept.append(checked)
    confidence = _confidence(draft, kept)
    limitations = list(dict.fromkeys([*draft.limitations, *extra_limitations, *_untrusted_limitations(pack)]))
    uncovered = _uncovered(pack.question, [i for _, items in kept for i in items]) if kept else None
    if uncovered is not None:
        confidence = AnswerConfidence.INSUFFICIENT
    untyped = _untyped(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if untyped is not None:
        confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
        limitations.append(untyped)
    elsewhere = _elsewhere(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if elsewhere is not None and (_states_answer(pack, kept) or _linked_answer(pack, kept)):
        elsewhere = None
    shares = list(_property_shares(pack, kept))
    if elsewhere is not None and (max(shares, default=0.0) < MIN_ANSWER_COVERAGE or _undecided(pack, kept)):
        # a passage that only mentions what is asked, and says little of it, is no answer to it;
        # nor, with no verdict, to a choice between two things it mentions ("Vogue Italia's 1995
        # issue featured Annie Morton photographed by Terry Richardson": which is older?)
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = elsewhere
    elif elsewhere is not None:
        confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
        limitations.append(f"{elsewhere[0].upper()}{elsewhere[1:]}.")
    # a yes/no question's claims need say none of it when one is a verdict ("No: The museum is closed")
    expected = expects(pack.question)
    verdict = expected is Expects.YES_NO and any(_VERDICT.match(c.text) for c, _ in kept)
    asked = _asked_words(pack) if not verdict else []
    if confidence is not AnswerConfidence.INSUFFICIENT and asked and not any(shares):
        said = _unproven(pack, kept) or "No claim states what the question asks."
        if expected is Expects.YES_NO or (
            expected in _TYPED and not any(offers(c.text, expected, pack.question) for c, _ in kept)
        ):
            # no claim nor its evidence says a word of what is asked of the names, nor a value of
            # the type asked for ("price" of "What is the price of Loravex?" on its
            # contraindication), or a yes/no question's claims say none of it: no answer
            confidence = AnswerConfidence.INSUFFICIENT
            uncovered = said[:1].lower() + said[1:].removesuffix(".")  # as the other reasons read
        else:
            # one that gives such a value is low ("Where is Mount Kerel located?" on "... is a
            # stratovolcano on the island of Vesna": "located" has too many other words to require one)
            confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
            limitations.append(said)
    one_sided = _one_sided(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if one_sided is not None:
        # "Were Scott Derrickson and Ed Wood of the same nationality?" on the film "Ed Wood" and
        # nothing about Scott Derrickson: with no verdict, what is said of one side answers nothing
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = one_sided
    other_case = _for_another(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if other_case is not None:
        # "What is the first-line drug for children?" on "For people aged 55 or over, a
        # calcium-channel blocker is the first-line drug": an answer for others is none for them
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = other_case
    sense = _other_sense(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if sense is not None:
        # "Who directed the film Red Hollow?" on "Red Hollow (town)": another thing of that name
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = sense
    undescribed = _only_which(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if undescribed is not None:
        # "Where did the designer of the Harbour Bridge study?" on "It was designed by Mara
        # Lindqvist" alone: the second hop is missing
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = undescribed
    itself = _of_the_name_itself(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if itself is not None:
        # "When was the husband of Mara Lindqvist born?" on "Mara Lindqvist (1889-1961) was a
        # Swedish structural engineer": her birth, not her husband's
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = itself
    placed = _of_what_is_there(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if placed is not None:
        # "What is the population of Norland?" on "Kelston is a port city in Norland with a
        # population of 412,000": the figure is Kelston's
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = placed
    unlinked = _unlinked(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if unlinked is not None:
        confidence = AnswerConfidence.INSUFFICIENT
        uncovered = unlinked
    unqualified = _unqualified(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if unqualified is not None:
        confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
        limitations.append(unqualified)
    uncounted = _uncounted(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if uncounted is not None:
        confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
        limitations.append(uncounted)
    other_year = _other_year(pack, kept) if confidence is not AnswerConfidence.INSUFFICIENT else None
    if other_year is not None:
        confidence = min(confidence, AnswerConfidence.LOW, key=_RANK.index)
        limitations.append(other_year)
    unsaid = _unsaid_verb(pack, kept) if confidence is AnswerConfidence.HIGH else None
    if unsaid is not None:
        confidence = AnswerConfidence.MEDIUM
        limitations.append(unsaid)
    unrelated = _unsaid_relation(pack, kept) if confidence is AnswerConfidence.HIGH else None
    if unrelated is not None:
        # "When was the football club that signed Tom Birch founded?" on "The Tom Birch Academy
        # is a football school founded by Tom Birch in 2005": nothing says it signed him
        confidence = AnswerConfidence.MEDIUM
        limitations.append(unrelated)
    unproven = _unproven(pack, kept) if confidence is AnswerConfidence.HIGH else None
    if unproven is not None:
        confidence = AnswerConfidence.MEDIUM
        limitations.append(unproven)
    if confidence is AnswerConfidence.INSUFFICIENT:
        return _abstain(
            draft, pack, kept, removed, generator=generator, detail=detail, limitations=limitations, uncovered=uncovered
        )
    return _answer(
        draft,
        pack,
        kept,
        removed,
        judge,
        confidence=confidence,
        limitations=limitations,
        generator=generator,
        detail=detail,
    )


def _check_claim(
    claim: DraftClaim, pack: EvidencePack, judge: SupportJudge
) -> tuple[_Kept | None, list[VerificationIssue]]:
    """Steps 1-6 of the module docstring for one claim: the claim as kept, with the items it
    cites, or None; and the issues of the claim removed."""
    refused = _refused(claim)
    if refused is not None:
        return None, [refused]
    cited, issues = _resolve(claim, pack)
    cited, untrusted = _trusted(claim, cited)
    issues += untrusted
    if not cited:
        return None, [i.model_copy(update={"action": Action.REMOVED}) for i in issues]
    reasons = judge.judge(claim, cited)
    if reasons:
        rejected = [
            VerificationIssue(claim=claim.text, code=code, action=Action.REMOVED, message=message)
            for code, message in reasons
        ]
        return None, issues + rejected
    shortfall = _minimum_support(claim, cited)
    if shortfall is not None:
        issues.append(shortfall)
    issues += _contradictions(claim, cited, pack)
    downgraded = any(i.action is Action.DOWNGRADED for i in issues)
    answered = AnswerClaim(
        text=strip_citation_marks(claim.text),
        supporting_citations=[i.id for i in cited],
        support_level=SupportLevel.INDIRECT if downgraded else claim.support_level,
        claim_class=claim.claim_class,
        subtopic=claim.subtopic,
        verified=not downgraded,
        issues=issues,
    )
    return (answered, cited), []


def _refused(claim: DraftClaim) -> VerificationIssue | None:
    """Step 1: why a claim is removed before its citations are read (it gives orders or vouches
    for itself, or cites nothing), or None."""
    own = inspect(claim.text)
    if own is not None:
        return VerificationIssue(
            claim=claim.text,
            code=own.code,
            action=Action.REMOVED,
            message=f'the claim itself {own.signal} ("{own.matched}")',
            high_risk=True,
        )
    if not claim.supporting_citations:
        return VerificationIssue(
            claim=claim.text,
            code=ReasonCode.NO_CITATION,
            action=Action.REMOVED,
            message="the claim cites no evidence",
            high_risk=True,
        )
    return None


_RANK = [AnswerConfidence.INSUFFICIENT, AnswerConfidence.LOW, AnswerConfidence.MEDIUM, AnswerConfidence.HIGH]


def _untyped(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why no kept claim answers what the question asks for (a date for "when", a number for
    "how many", a name for "who" and "where": :mod:`provgraph.answer.question`; for a yes/no
    question, every entity it names), or None."""
    question = pack.question
    expected = expects(question)
    if expected is Expects.YES_NO:
        # a claim speaks of its document's subject ("No new safety signals were identified." in
        # "VERITAS-2: tirzepatide versus semaglutide")
        titles = [i.title or "" for _, cited in kept for i in cited if i.kind is EvidenceKind.PASSAGE]
        said = " ".join(words(" ".join([*(claim.text for claim, _ in kept), *titles])))
        absent = [
            e.label
            for e in pack.entities
            if not mentions(said, " ".join(words(e.label))) and not _common(e.label, pack.question)
        ]
        return "No claim speaks of " + ", ".join(f'"{a}"' for a in absent) + "." if absent else None
    if any(offers(claim.text, expected, question) for claim, _ in kept):
        return None
    wanted = {Expects.DATE: "a date", Expects.NUMBER: "a number", Expects.PERSON: "a name", Expects.PLACE: "a place"}
    return f"The question asks for {wanted[expected]}, and no claim states one."


_TYPED = (Expects.DATE, Expects.NUMBER, Expects.PERSON, Expects.PLACE)
_VERDICT = re.compile(r"^(Yes|No)\b")


def _common(label: str, question: str) -> bool:
    """Whether an entity's ``label`` is common words the question writes in lower case, each
    one the lexicon knows, inflections alike ("Claims", a section's, for "... a fire claim?"): no name
    the evidence must speak of. "warfarin", which the lexicon does not hold, is a name."""
    said = words(label)
    lower = {word_key(t) for t in tokens(question) if t.islower()}
    return bool(said) and all(word_readings(w) and word_key(w) in lower for w in said)


def _elsewhere(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims only mention what the question names: every passage they cite comes from a
    document about something else (its title neither named by the question nor naming one of
    its names or linked entities: "Kingston Morning", an album recorded in Big Stone Gap, for a
    question about the film "Big Stone Gap"; nor named by a retrieved passage about one of them,
    as the director's article is by the film's) and none opens with one of those names; or
    None. Facts are about the linked entities."""
    asked = " ".join(words(pack.question))
    names = salient_names(pack.question)
    names += [n for e in pack.entities if (n := " ".join(words(e.label))) and not _common(e.label, pack.question)]
    if not names:
        return None
    # "Contoso's revenue": a document whose title opens with "Contoso" is about it, when no item
    # says "Contoso's" ("Bill Cosby's third album" is not what "At Last Bill Cosby Really Sings" is about)
    said = " ".join(" ".join(words(i.text)) for i in pack.items)
    # ... nor when one says "Contoso's" of another thing than the question does ("Contoso's
    # shares" for "Contoso's revenue")
    owners = {
        bare: set() if not mentions(said, n) else possessed(pack.question, n) or {""}
        for n in names
        if (bare := without_possessive(n)) != n
    }
    who = expects(pack.question) is Expects.PERSON and words(pack.question)[:1] == ["who"]
    # "What IELTS score do I need?": "... need an IELTS score of 6.5" says the name as the question does
    qualified = [f"{n} {after}" for n in names if (after := _word_after(asked, n))]
    short = acronyms(pack.question)  # "GDPR": "The regulation was adopted ..." names it spelt out

    def title(item: EvidenceItem) -> str:
        return " ".join(words(without_disambiguation(item.title or "")))

    def own(item: EvidenceItem) -> bool:
        named = title(item)
        short_title = " ".join(words(unbracketed(item.title or "")))  # "Tenancy (Deposits) Act 2024"
        if named and (
            mentions(asked, named)
            or any(mentions(named, n) or mentions(short_title, n) for n in names)
            or any(f"{named} ".startswith(f"{n} ") and has <= set(words(item.text)) for n, has in owners.items())
        ):
            return True
        # a sentence whose subject is a name of the question ("Marie Curie was born ..."), after the
        # release a note is read with ("Version 1.4.0 (2025-06-02), Deprecated: The Stratus option ...")
        own_text = RELEASE_PREFIX.sub("", item.text.strip(), count=1)
        # ... past a phrase setting its scene ("Under the treaty, Sweden gave up ...")
        own_text = _SCENE.sub("", own_text, count=1)
        opening = " ".join(words(re.sub(r"^(the|a|an)\s+", "", own_text, flags=re.I))) + " "
        # "Who was known as Aladin?": the answer is the subject of a document saying so
        subject = bool(who and named and opening.startswith(named + " "))
        # "It was founded in 1998", where "It" is the "Contoso Ltd" the question names
        referent = " ".join(words(item.referent or ""))
        named_by_referent = [
            n for n in names if referent and (mentions(referent, n) or (n in short and spells(n, referent)))
        ]
        # "Fixed version: 4.2.7" under "Product: Quillmail Server", a paragraph under a heading naming it
        section = " ".join(words(item.section or ""))
        under = bool(section) and any(mentions(section, n) for n in names)
        # "Model: Aurora City | Battery: 400 Wh | ...": a table's row is about its first cell's value
        fields = row_fields(item.text)
        first_cell = " ".join(words(fields[0][1])) if fields else ""
        of_row = bool(first_cell) and any(mentions(first_cell, n) for n in names)
        # "Drug: Amiodarone | Effect on INR: Increases": the row gives its first cell's value of what a label names
        of_row = of_row or any(mentions(" ".join(words(label)), n) for label, _ in fields[1:] for n in names)
        # "The target INR for most indications is 2.0 to 3.0": a name in what the sentence is about
        subject_of = _SUBJECT.match(own_text)
        about = " ".join(words(subject_of.group(1))) if subject_of else ""
        in_subject = bool(about) and any(mentions(about, n) for n in names)
        own_words = " ".join(words(item.text))
        return (
            subject
            or any(mentions(own_words, q) for q in qualified)
            or under
            or of_row
            or in_subject
            or bool(named_by_referent)
            # "Halvorsen Marine ASA reported third-quarter revenue ..." for "Halvorsen Marine's revenue"
            or any(opening.startswith(n + " ") or opening.startswith(without_possessive(n) + " ") for n in names)
        )

    cited = [item for _, items in kept for item in items]
    if any(item.kind is not EvidenceKind.PASSAGE or own(item) for item in cited):
        return None
    # only now the retrieved passages about what is asked, for the documents they name
    linked = " ".join(" ".join(words(i.text)) for i in pack.items if i.kind is EvidenceKind.PASSAGE and own(i))
    if any((named := title(item)) and mentions(linked, named) for item in cited):
        return None
    shown = ", ".join(f'"{n}"' for n in dict.fromkeys(names))
    return f"the evidence found is about other things that mention {shown}"


#: A phrase a sentence opens with to set its scene: "Under the treaty, ", "In 1971, ".
_SCENE = re.compile(r"^(?:under|in|on|at|after|before|during|by|following)\s+[^,.;:]{1,40},\s*", re.I)


def _undecided(pack: EvidencePack, kept: Sequence[_Kept]) -> bool:
    """Whether a question choosing between two things it names, or asking yes or no of both,
    has no verdict among the claims (:func:`_unproven`)."""
    if expects(pack.question) is Expects.CHOICE:
        return _unproven(pack, kept) is not None
    two = pair(pack.question) is not None or comparison(pack.question) is not None
    return two and not any(_VERDICT.match(claim.text) for claim, _ in kept)


def _one_sided(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why a question about two things it names (a yes/no question about both, a choice, a
    comparison) has no answer: no verdict, and one of them is spoken of by no cited passage of
    its own (of a document titled by it, or opening with it); or None."""
    question = pack.question
    compared = pair(question) or comparison(question)
    options = compared.options if compared is not None else choices(question)
    if not options or not _undecided(pack, kept):
        return None
    cited = [item for _, items in kept for item in items if item.kind is EvidenceKind.PASSAGE]
    if len(cited) < sum(len(items) for _, items in kept):
        return None  # a fact is about its entity
    titles = {" ".join(words(without_disambiguation(i.title or ""))) for i in cited}
    openings = [" ".join(words(without_article(i.text.strip()))) + " " for i in cited]
    for option in options:
        name = " ".join(words(without_article(option)))
        if name not in titles and not any(o.startswith(f"{name} ") for o in openings):
            return f'the evidence found says nothing of "{option}" itself, and decides nothing'
    return None


def _word_after(said: str, name: str) -> str | None:
    """The word after ``name`` in the normalised question ``said``, when the name follows its
    question word and the word is no stop word: "score" of "what ielts score do i need" (not
    "industrialist" of "... by an american industrialist")."""
    found = re.search(rf"(?:^| )(?:what|which) {re.escape(name)} ([a-z]+)\b", said)
    return found.group(1) if found and found.group(1) not in STOP_WORDS else None


#: What a sentence opening with "The" is about: its words before its verb ("The target INR for
#: most indications" of "... is 2.0 to 3.0"), at most six.
_SUBJECT = re.compile(r"(The\s+(?:[\w'\u2019-]+\s+){1,5}?)(?:is|are|was|were|has|have|had|will|should|must|can|may)\b")


#: A count as a word reads it ("14,230" is "14230").
_COUNT = re.compile(r"\d+(?:[.,]\d+)*")


def _states_answer(pack: EvidencePack, kept: Sequence[_Kept]) -> bool:
    """Whether a claim states the answer to a factoid question of everything it names, in its
    own words: the names, then what is asked of them (:func:`_asked_words`, inflections alike),
    then a value of the type asked for; or a verdict holding every word of a yes/no question.
    "Photo 51, taken by her student Raymond Gosling" answers "Who took Photo 51?" in a document
    about Rosalind Franklin; "Kingston Morning was recorded in ... Big Stone Gap, Virginia" says
    nothing of where Big Stone Gap was recorded."""
    expected = expects(pack.question)
    if expected is Expects.YES_NO:
        # a verdict in every word of the question ("No: Pregnant women should not take ACE
        # inhibitors" for "Should pregnant women take ACE inhibitors?")
        every = {word_key(w) for w in _content(pack.question)}
        return bool(every) and any(_VERDICT.match(claim.text) and every <= word_keys(claim.text) for claim, _ in kept)
    names = salient_names(pack.question)
    asked = {word_key(w) for w in _asked_words(pack)}
    if expected not in _TYPED or not names or not asked:
        return False
    for claim, _ in kept:
        found = [(normalise(m.group()), m.start()) for m in word_matches(claim.text)]
        said = [w for w, _ in found]
        ends = [_end_of(said, n.split()) for n in names]
        if None in ends:
            continue
        # a date or a number follows what is asked of the subject, whatever names it names after
        # ("Metavir, was approved by the FDA in 2023"); a name or a place follows every name
        known = [e for e in ends if e is not None]
        start = min(known) if expected in (Expects.DATE, Expects.NUMBER) else max(known)
        at = next((i for i in range(start, len(said)) if word_key(said[i]) in asked), None)
        # the value in the claim's own words after what is asked ("taken by her student Raymond
        # Gosling"), or a count just before it ("in front of 14,230 spectators")
        if at is not None and offers(claim.text[found[at][1] :], expected, pack.question):
            return True
        if at is not None and expected is Expects.NUMBER and at > start and _COUNT.fullmatch(said[at - 1]):
            return True
        # "the last bus leaves Millbrook at 11.40 pm": what is asked before the name, the time after it
        if (
            at is None
            and expected is Expects.DATE
            and max(known) < len(found)
            and any(word_key(w) in asked for w in said[:start])
            and offers(claim.text[found[max(known)][1] :], expected, pack.question)
        ):
            return True
    return False


def _unqualified(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why no claim says what is asked for the numbers the question names: none holds both a
    word of what is asked and each number (a year: "What was Contoso's revenue in 2023?" is not
    answered by "... revenue in 2025" and "... approved in 2023", each holding half); or None.
    A year a yes/no question bounds a date by ("released before 2024") is no such number."""
    bound = year_bound(pack.question)
    numbers = [
        t for t in salient_terms(pack.question) if t.replace(" ", "").isdigit() and not (bound and t == str(bound[1]))
    ]
    asked = _asked_words(pack)
    if not numbers or not asked:
        return None
    for claim, cited in kept:
        said = claim.text + " " + evidence_text(cited)
        found = _finder(set(words(said)), inflections=True, text=said)
        if any(map(found, asked)) and all(mentions(" ".join(words(said)), n) for n in numbers):
            return None
    quoted = ", ".join(f'"{w}"' for w in asked)
    return f"No claim says what the question asks ({quoted}) for {', '.join(map(number_text, numbers))}."


#: Whom or what a question asks for ("for children", "for older people"): the words after "for".
_FOR = re.compile(r"\bfor\s+(?:(?:a|an|the|my|our|your|their|his|her)\s+)?((?:[a-z][a-z-]*\s?){1,4})")


#: A case a sentence opens with, to the end of its clause ("For people aged 55 or over, ..."; not
#: "For example, ...").
_CASE = re.compile(r"For\s+(?!example\b|instance\b)([^,;:.()]+),")


def _for_phrase(found: re.Match[str]) -> list[str]:
    """The words of a "for" phrase up to its first stop word ("people aged" of "for people aged
    55 or over")."""
    return list(takewhile(lambda w: w not in STOP_WORDS, found.group(1).split()))


def _answering(kept: Sequence[_Kept]) -> EvidenceItem | None:
    """The passage the first kept claim cites: the one that answers, or None."""
    return next((i for i in kept[0][1] if i.kind is EvidenceKind.PASSAGE), None) if kept else None


def _linked_answer(pack: EvidencePack, kept: Sequence[_Kept]) -> bool:
    """Whether the answering passage, the first kept claim's, is one other passages link to the
    question's names (:func:`~provgraph.answer.linking.linked_through`): "Alan Reed managed
    Northgate ..." and "In 1991 Reed recruited Tom Birch" are about the manager asked for, not
    about other things that mention Tom Birch."""
    # only a name the question describes its subject by ("who recruited Tom Birch"): "How many
    # Earth radii is Kepler-186?" is not answered by Kepler-186f's radius, whose document names it
    if not _DESCRIBED.search(pack.question):
        return False
    answering = _answering(kept)
    return answering is not None and linked_through(answering, pack.question, pack.items)


#: A relative clause a question describes what it asks of by: "The manager who recruited ...".
_DESCRIBED = re.compile(r"^\s*\S+.*?\b(?:who|whom|whose|that|which)\b", re.I)


def _unlinked(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the answering passage, the first kept claim's, is about something the question's names
    are not linked to (:func:`~provgraph.answer.linking.unlinked`: "Ernest Mangnall ... managed
    Manchester United" for "The football manager who recruited David Beckham ..."); or None."""
    answering = _answering(kept)
    if answering is None:
        return None
    titled = {" ".join(words(without_disambiguation(i.title or ""))) for _, cited in kept for i in cited}
    name = unlinked(answering, pack.question, pack.items, titled=titled)
    if name is None:
        return None
    return f'the evidence found does not link "{answering.title}" to "{_as_written(pack.question, name.split())}"'


#: Kinds of thing a name may be, each with the words saying it ("the film Red Hollow", a
#: document titled "Red Hollow (town)").
_SENSES = {
    "film": "film films movie movies documentary",
    "album": "album albums ep",
    "song": "song songs single singles",
    "band": "band bands",
    "place": "town towns village villages city cities hamlet municipality county",
    "book": "novel novels book books",
    "series": "series sitcom",
    "ship": "ship ships",
    "magazine": "magazine newspaper journal",
    "person": "singer actor actress footballer politician writer author director painter",
}
_SENSE_OF = {w: sense for sense, said in _SENSES.items() for w in said.split()}


def _other_sense(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims are about another thing of the name the question names with its kind
    ("the film Red Hollow"): every cited passage of a document titled by the name is of one
    whose disambiguation says another kind and not that one ("Red Hollow (town)"); or None."""
    said = words(pack.question)
    cited = [item for _, items in kept for item in items if item.kind is EvidenceKind.PASSAGE]
    for name in salient_names(pack.question):
        part = name.split()
        at = next((i for i in range(1, len(said) - len(part) + 1) if said[i : i + len(part)] == part), None)
        if at is None or (sense := _SENSE_OF.get(said[at - 1])) is None:
            continue
        titled = [i for i in cited if " ".join(words(without_disambiguation(i.title or ""))) == name]
        if not titled:
            continue
        kinds = [{_SENSE_OF.get(w) for w in words(_disambiguation(i.title or ""))} - {None} for i in titled]
        if all(found and sense not in found for found in kinds):
            return f'the evidence found is about "{titled[0].title}", not the {said[at - 1]} "{name}"'
    return None


def _disambiguation(title: str) -> str:
    """What a title's trailing brackets say ("town" of "Red Hollow (town)"), or ""."""
    found = re.search(r"\(([^)]*)\)\s*$", title)
    return found.group(1) if found else ""


def _only_which(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims say only which thing the question means by what it is to a name ("the
    designer of the Harbour Bridge": :func:`~provgraph.answer.question.described`), and nothing
    of what it asks of that thing: no claim nor its evidence says a word of that ("study", in any
    inflection or by what a phrase says), and every passage cited is of a document about the name
    or names it; or None."""
    thing = described(pack.question)
    if thing is None or not thing.asked or not checks_links(pack.question):
        return None
    cited = [item for _, items in kept for item in items]
    said = " ".join(c.text for c, _ in kept) + " " + evidence_text(cited, headlines=False)
    found = _finder(set(words(said)), inflections=True, text=said)
    keys = word_keys(said, measures=True)
    if any(found(w) or word_key(w) in keys for w in thing.asked):
        return None
    for item in cited:
        title = " ".join(words(without_disambiguation(item.title or "")))
        text = " ".join(words(item.text))
        if item.kind is not EvidenceKind.PASSAGE or not any(
            mentions(title, n) or mentions(text, n) for n in thing.names
        ):
            return None  # the second hop: a passage of another thing
    return (
        f'the evidence found says which is "{" ".join(thing.words)}", and nothing of what the question asks of it '
        f"({', '.join(repr(w) for w in thing.asked)})"
    )


def _of_the_name_itself(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the answer is about a name the question describes another thing by, not that thing
    ("the husband of Mara Lindqvist", :func:`~provgraph.answer.question.described`): the
    answering passage is of the name's own document, its claim opens with the name, and neither
    says the thing's noun ("husband"); or None."""
    thing = described(pack.question)
    answering = _answering(kept)
    if thing is None or answering is None or not checks_links(pack.question):
        return None
    title = " ".join(words(without_disambiguation(answering.title or "")))
    # ... and the claim is the name's own sentence: "Jane Smith has been the chief executive
    # officer" in Acme's article is about its CEO
    if title not in thing.names or words(kept[0][0].text)[: len(title.split())] != title.split():
        return None
    # (a thing described by a clause, "the company that Fernwood Robotics acquired", is not
    # checked: HotpotQA's held-out half lost two right answers by it)
    noun = thing_of(thing)
    said = kept[0][0].text + " " + evidence_text([answering], headlines=False)
    found = _finder(set(words(said)), inflections=True, text=said)
    if not noun or all(found(w) or word_key(w) in word_keys(said) for w in noun):
        return None
    return f'the evidence found is about "{answering.title}", not "{_as_written(pack.question, thing.words)}"'


def _as_written(question: str, said: Sequence[str]) -> str:
    """The words ``said`` (normalised) as ``question`` writes them: "Tom Birch", not "tom birch"."""
    written = re.search(r"\W+".join(map(re.escape, said)), question, re.I)
    return written.group() if written else " ".join(said)


def _of_what_is_there(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims answer for something else than the question names: each claim stating a
    value of the type asked for and a word of what is asked is a sentence about another name,
    which it places in the question's ("Kelston is a port city in Norland with a population of
    412,000" for "What is the population of Norland?"); or None."""
    expected = expects(pack.question)
    names = salient_names(pack.question)
    asked = _asked_words(pack)
    if expected not in _TYPED or not names or not asked:
        return None
    question = " ".join(words(pack.question))
    # "the population of Brackley", "directed Northern Lights": a name of which what is asked
    # is asked, not one of a thing in it ("student Ichitaka Seto" is who the student is)
    acts = [w for w in asked if "VERB" in (readings := word_readings(w)) and "NOUN" not in readings]
    thing = described(pack.question)
    owners = [
        n
        for n in names
        if any(mentions(question, f"{w} of {n}") for w in asked)
        or any(mentions(question, f"{w} {n}") for w in acts)
        # "does Fernwood Robotics employ" (not "does the company acquired by Fernwood Robotics employ")
        or any(mentions(question, f"{aux} {n} {w}") for w in acts for aux in ("does", "did", "do"))
    ]
    # ... but "the star of Red Hollow" in "When was the star of Red Hollow born?" is a thing of
    # the name (:func:`~provgraph.answer.question.described`) whose birth is asked: a claim about
    # someone a passage ties to the name ("It stars Tom Vale") answers for it
    of_thing = bool(thing and thing.asked and thing_of(thing))
    passages = (
        [" ".join(words(f"{i.title or ''} {i.text}")) for i in pack.items if i.kind is EvidenceKind.PASSAGE]
        if of_thing
        else []
    )
    subjects = []
    for claim, cited in kept:
        said = claim.text + " " + evidence_text(cited, headlines=False)
        found = _finder(set(words(said)), inflections=True, text=said)
        saying = [w for w in asked if found(w)]
        if not offers(claim.text, expected, pack.question) or not saying:
            continue
        placed = _placed_in(claim.text, names)
        titled = " ".join(words(" ".join(f"{i.title or ''} {claim.text}" for i in cited)))
        other = opening_name(claim.text)
        # ("Edgecombe was succeeded by ..." is of Thomas Edgecombe)
        if (
            placed is None
            and other
            and owners
            and not any(mentions(titled, n) or set(words(other)) & set(n.split()) for n in owners)
            and not (
                of_thing
                and any(mentions(p, " ".join(words(other))) and any(mentions(p, n) for n in owners) for p in passages)
            )
        ):
            placed = other  # "Kelston ... has a population of 412,000" for Brackley's
        if placed is None:
            return None
        subjects.append((saying[0], placed))
    if not subjects:
        return None
    word, subject = subjects[0]
    return f'the evidence found says "{word}" of {subject}, not of "{(owners or names)[0]}"'


def _placed_in(text: str, names: Sequence[str]) -> str | None:
    """The other name a sentence is about, when it says each of ``names`` only as where that
    is ("Kelston is a port city in Norland ..."); else None."""
    subject = opening_name(text)
    if subject is None or any(set(words(subject)) & set(n.split()) for n in names):
        return None
    said = words(text)
    for name in names:
        part = name.split()
        starts = [i for i in range(len(said) - len(part) + 1) if said[i : i + len(part)] == part]
        if not starts or any(i == 0 or said[i - 1] not in _WHERE_WORDS for i in starts):
            return None
    return subject


#: Words before a place a sentence puts its subject in ("a port city in Norland").
_WHERE_WORDS = frozenset("in near outside".split())


def _for_another(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims answer for another case than the one asked: the question asks for one
    ("for children") of which no claim nor its evidence (headings and titles too) says a word,
    and the evidence a claim cites opens with another ("For people aged 55 or over, ..."); or None."""
    asked = [phrase for m in _FOR.finditer(pack.question) if (phrase := _for_phrase(m))]
    cited = [item for _, items in kept for item in items]
    text = " ".join(c.text for c, _ in kept) + " " + evidence_text(cited)
    found = _finder(set(words(text)), inflections=True, text=text)
    unsaid = [p for p in asked if not any(found(w) or found(singular(w)) for w in p)]
    if not unsaid:
        return None
    # a case the evidence opens with, as guidelines and policies state one ("For people aged 55
    # or over, ..."): "played for the Lakers" is no case
    opening = next((o for item in cited if (o := _CASE.match(item.text.strip()))), None)
    if opening is None:
        return None
    case = " ".join(opening.group(1).split()[:8])
    return f'the evidence found says what holds for {case}, not for "{" ".join(unsaid[0])}"'


#: The phrase of a question that qualifies what it asks by a year ("in the third quarter of 2026").
_A_YEAR = re.compile(rf"\b(?:{YEAR.pattern})\b")
_YEAR_PHRASE = re.compile(
    rf"\b(?:in|for|during|of|at|by)\s+(?:the\s+)?(?:[^\W\d]+\s+){{0,4}}?(?:{YEAR.pattern})\b", re.I
)


def _other_year(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the claims say what is asked for another year than the question's: every clause of
    the cited passages' own words holding what is asked, its qualifying phrase aside ("net
    loss" of "... net loss in the third quarter of 2026?"), names another year and not the
    question's ("compared with a net loss of 5 million dollars in the third quarter of 2025"),
    though the document's title holds 2026; or None. A clause naming no year is the title's."""
    phrase = _YEAR_PHRASE.search(pack.question)
    if phrase is None or year_bound(pack.question):
        return None
    asked_year = _A_YEAR.search(phrase.group(0))
    assert asked_year is not None  # the phrase ends with one
    qualifier = set(words(phrase.group(0)))
    asked = [w for w in _asked_words(pack) if w not in qualifier]
    if not asked:
        return None
    years: set[str] = set()
    for _, cited in kept:
        for item in cited:
            for clause in clauses(item.text):
                found = _finder(set(words(clause)), inflections=True, text=clause)
                if not all(map(found, asked)):
                    continue
                said = set(_A_YEAR.findall(clause))
                if not said or asked_year.group(0) in said:
                    return None
                years |= said
    if not years:
        return None
    quoted = " ".join(asked)
    return f'The evidence says "{quoted}" for {", ".join(sorted(years))}, not for {asked_year.group(0)}.'


#: "How many patients died ...?": what a question counts, and how.
_HOW_MANY = re.compile(r"^\s*how\s+many\s+(?P<rest>.+?)\s*\??\s*$", re.I)
_SCALES = frozenset("hundred thousand million billion trillion".split())
#: The auxiliaries before a counting question's verb ("were enrolled", "have been reported").
_BEFORE_VERB = frozenset("is are was were have has had been be".split())


def _counted_verb(question: str) -> tuple[str, str] | None:
    """What a "how many" question counts and the verb it counts it by: ("patients", "died") of
    "How many patients died in VERITAS-2?", ("jars", "recalled") of "How many jars of almond
    butter were recalled?"; None when it has no such verb ("How many Earth radii is Kepler-186?")."""
    found = _HOW_MANY.match(question)
    if found is None:
        return None
    said = tokens(found.group("rest"))
    if len(said) < 2:
        return None
    counted = normalise(said[0])
    for n, token in enumerate(said[1:], start=1):
        if normalise(token) in _BEFORE_VERB:
            continue
        after_auxiliary = normalise(said[n - 1]) in _BEFORE_VERB
        if n == 1 or after_auxiliary:
            if token.islower() and token not in STOP_WORDS and "VERB" in word_readings(token):
                return counted, token
            if after_auxiliary:
                return None
    return None


def _uncounted(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why no claim says what a "how many" question counts: none holds its verb (inflections
    alike), nor a count just before the thing counted ("14,230 spectators"); or None. "How many
    patients died in VERITAS-2?" is not answered by "Nausea (% of patients) ... 22". A question
    with no verb ("How many participants were in the trial?") is not answered by a claim that
    speaks of what it counts and counts other things ("Participants who slept eight hours
    recalled 20% more words"), when no claim counts it."""
    found = _HOW_MANY.match(pack.question)
    said = tokens(found.group("rest")) if found else []
    if not said:
        return None
    asked = _counted_verb(pack.question)
    counted = asked[0] if asked else normalise(said[0])
    if asked is not None and _said_by_any(kept, asked[1]):
        return None
    # "281 participants (90.1%) completed the follow-up" does not count those who died
    if any(_counts(claim.text, counted, done=asked is not None) for claim, _ in kept):
        return None
    if asked is not None:
        return f'No claim says what the question counts ("{asked[1]}").'
    # a claim that never names what is counted may give its count in other words ("a population
    # of 93,000" for "How many residents ...?"): only one that names it and counts else is no answer
    key = word_key(counted)
    if counted in STOP_WORDS or not any(key in word_keys(claim.text) for claim, _ in kept):
        return None
    return f'No claim gives the number of "{counted}".'


_COPULAS = frozenset("is are was were".split())


def _counts(text: str, counted: str, *, done: bool) -> bool:
    """Whether ``text`` gives a count of ``counted``: a number before it, past at most three
    words qualifying it or a copula ("14,230 spectators", "3.7 million people", "48,210 annotated
    aerial images", "of whom 640 are nurses"), or a table's field of it ("Images: 4,830"); with
    ``done``, not one whose verb says what they did ("281 participants completed the follow-up",
    for a question asking another verb)."""
    key = word_key(counted)
    if any(word_key(normalise(label)) == key and _COUNT.match(value) for label, value in row_fields(text)):
        return True
    own = [w for w in words(text) if w not in _SCALES]
    for i, said in enumerate(own):
        if not (_COUNT.fullmatch(said) or said in NUMBER_WORDS):
            continue
        for j in range(i + 1, min(i + 5, len(own))):
            if word_key(without_possessive(own[j])) == key:
                if not (done and _done(own[j + 1 :])):
                    return True
                break
            # "of whom 640 are nurses"
            if (own[j] in STOP_WORDS and own[j] not in _COPULAS) or _COUNT.fullmatch(own[j]):
                break
    return False


#: "When was the legacy_auth option removed?", "When will it be removed?": the verb a "when"
#: question asks of, last.
_WHEN_VERB = re.compile(r"^\s*when\s+(?:was|were|is|are|will|did|does|do|has|have|had)\b.*\s([a-z]+)\s*\?\s*$", re.I)


#: "What does the red-backed shrike eat?": the verb a question ends with after "do" and its subject.
_DONE_VERB = re.compile(r"^\s*(?:what|who|whom|where|which\s+\w+)\s+(?:do|does|did)\s+.+\s([a-z]+)\s*\?\s*$", re.I)
#: "Who directed Red Hollow?": the verb a "who" question asks of its object by.
_DID = re.compile(r"^\s*who\s+([a-z]+ed)\s+(?!by\b)\S", re.I)
#: "Who was absent from the meeting?": the state a "who" question asks of.
_BEING = re.compile(r"^\s*who\s+(?:is|was|are|were)\s+([a-z]+)\s+(?:from|in|at|for|of|to|on|with)\b", re.I)


def _unsaid_verb(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why no claim says what is asked: none holds the verb a "when" question asks of
    (inflections alike: "removed" of "When will the legacy_auth option be removed?"), though one
    gives a date, or the verb a "what does X do" question ends with, or the state a "who was"
    question asks of; or None."""
    found = _WHEN_VERB.match(pack.question)
    verb = found.group(1) if found else ""
    if _HAPPENED.fullmatch(verb) or verb == "place":
        return None  # "When did the fire happen?": a date of the event is what it asks
    if verb.islower() and verb not in STOP_WORDS and "VERB" in word_readings(verb):
        return None if _said_by_any(kept, verb, headlines=False) else f'No claim says when it was "{verb}".'
    # "What does the red-backed shrike eat?", "Who was absent from the meeting?": what the
    # question asks is that verb, or that state, whatever else of it a claim says
    done = _DID.match(pack.question)
    if done is not None and "VERB" in word_readings(done.group(1)):
        # "Who directed Red Hollow?": the verb as a verb ("The film director Ann Berg was born
        # there" names a director, not whom she directed)
        said = " ".join(c.text + " " + evidence_text(cited, headlines=False) for c, cited in kept)
        if named_by_noun(said, done.group(1)):
            return f"No claim says who {done.group(1)} it."
    found = _DONE_VERB.match(pack.question) or _BEING.match(pack.question)
    verb = found.group(1) if found else ""
    if not verb.islower() or verb in STOP_WORDS or not {"VERB", "ADJ"} & set(word_readings(verb)):
        return None
    return None if _said_by_any(kept, verb, headlines=False) else f'No claim says what is "{verb}".'


#: The words opening a clause that says what a described thing is to a name.
_CLAUSE = frozenset("who whom that which".split())


def _unsaid_relation(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why no claim says that what the answer is about is what the question describes by a
    clause ("the football club that signed Tom Birch", :func:`~provgraph.answer.question.described`):
    no passage cited of the answering passage's document, or naming its subject, says the
    clause's verb ("signed", inflections alike); or None. "In 1991 the club signed Tom Birch",
    in another club's article, says nothing of the Tom Birch Academy's founding."""
    thing = described(pack.question)
    answering = _answering(kept)
    if thing is None or answering is None or not checks_links(pack.question):
        return None
    at = next((i for i, w in enumerate(thing.words) if w in _CLAUSE), None)
    if at is None:
        return None
    named = {w for n in thing.names for w in n.split()}
    verb = next((w for w in thing.words[at + 1 :] if w not in named and w not in STOP_WORDS), None)
    if verb is None or "VERB" not in word_readings(verb):
        return None
    subject = " ".join(words(without_disambiguation(answering.title or "")))
    for claim, cited in kept:
        about = [
            i
            for i in cited
            if i.document == answering.document or (subject and mentions(" ".join(words(i.text)), subject))
        ]
        said = claim.text + " " + evidence_text(about, headlines=False)
        if about and _finder(set(words(said)), inflections=True, text=said)(verb):
            return None
    return f'No claim says {answering.title} is "{_as_written(pack.question, thing.words)}".'


def _said_by_any(kept: Sequence[_Kept], word: str, *, headlines: bool = True) -> bool:
    """Whether a kept claim or the evidence it cites says ``word``, inflections alike (see
    :func:`evidence_text` for ``headlines``)."""
    for claim, cited in kept:
        said = claim.text + " " + evidence_text(cited, headlines=headlines)
        if _finder(set(words(said)), inflections=True, text=said)(word):
            return True
    return False


def _done(after: Sequence[str]) -> bool:
    """Whether the words after a count's noun say what the counted did: a verb, past numbers."""
    verb = next((w for w in after if not _COUNT.fullmatch(w)), None)
    return verb is not None and "VERB" in word_readings(verb) and "AUX" not in word_readings(verb)


def _end_of(said: Sequence[str], name: Sequence[str]) -> int | None:
    """Where the first occurrence of the words ``name`` in the words ``said`` ends, or None."""
    at = position(said, name)
    return None if at is None else at + len(name)


#: Share of what the question asks of its entities (its content words, names aside) that one
#: claim's evidence must speak of for a ``high`` answer.
MIN_PROPERTY_COVERAGE = 0.5
#: ... and below which evidence from documents about other things is no answer: it only
#: mentions what the question names. HotpotQA development half: 0.25 abstained on no more
#: questions without their gold paragraphs than none (70%); 0.3 on 74% with every answer kept;
#: 0.35 to 0.5 on 74% and left 2 questions with their gold paragraphs unanswered; 0.6 on 78%
#: and left 3 more.
MIN_ANSWER_COVERAGE = 0.3


def _asked_words(pack: EvidencePack) -> list[str]:
    """What the question asks of its entities: its content words that are not part of a name."""
    terms = salient_terms(pack.question)
    names = {w for t in terms for w in t.split()}
    names |= {w for e in pack.entities for w in words(e.label)} | name_heads(pack.question)
    # "What is the price of Corran's balances?": what a name has, after "of", is what is asked of
    # ("Contoso's revenue" alone is what is asked)
    said = " ".join(words(pack.question))
    names |= {w for t in terms if mentions(said, f"of {t}") for w in possessed(pack.question, t)}
    # "What blood pressure counts as high?": with no name, the thing it asks for is no word of what
    # it asks of that thing ("counts as high"), as "Blood pressure should be reviewed" shows
    kind = _KIND_SUBJECT.match(pack.question) if not terms and not pack.entities else None
    names |= set(words(kind.group(1))) if kind else set()
    # "When did the fire happen?", "Where did the battle take place?": an event's date or place
    # is all they ask of it
    asked = _HAPPENED.sub(" ", pack.question)
    # "Is Aachen located in Germany?": being in the place it names is all it asks
    asked = PLACED_IN.sub(lambda m: f" in {m.group(2)}", asked)
    return list(dict.fromkeys(w for w in _content(asked) if w not in names and w not in KIND_WORDS))


#: "What blood pressure counts as high?": the thing a question asks for, its verb's subject.
_KIND_SUBJECT = re.compile(
    r"^\s*(?:what|which)\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)\s+"
    r"(?!(?:is|was|has|does|means|makes)\b)[a-z]{2,}(?<!s)s\b(?!\s+(?:do|does|did)\b)",
    re.I,
)
_HAPPENED = re.compile(r"\b(?:take|takes|took|taken|taking)\s+place\b|\b(?:happen|occur)\w*", re.I)


def _property_shares(pack: EvidencePack, kept: Sequence[_Kept]) -> Iterator[float]:
    """For each claim, the share of the asked words (:func:`_asked_words`) that the claim and
    the evidence it cites speak of; 1.0 when the question asks nothing beyond its names."""
    asked = _asked_words(pack)
    # "(1911-1987)" says when she was born, not where
    placed = expects(pack.question) is Expects.PLACE
    for claim, cited in kept:
        said = claim.text + " " + evidence_text(cited, headlines=False)
        said = LIFE_DATES.sub(" ", said) if placed else said
        found = _finder(set(words(said)), inflections=True, text=said)
        yield sum(map(found, asked)) / len(asked) if asked else 1.0


def _unproven(pack: EvidencePack, kept: Sequence[_Kept]) -> str | None:
    """Why the answer is not ``high``: no claim both states a value of the type asked for and
    cites evidence that speaks of what is asked (the property: "born", "directed",
    "population"); for a choice, no verdict naming one of the options; or None."""
    question = pack.question
    expected = expects(question)
    if expected is Expects.CHOICE:
        options = [" ".join(words(o)) for o in choices(question) or ()]
        verdict = any(
            claim.claim_class is ClaimClass.COMPARATIVE
            and any(" ".join(words(claim.text)).startswith(o) for o in options)
            for claim, _ in kept
        )
        return None if verdict else "No claim decides between the options the question names."
    asked_words = _asked_words(pack)
    terms = salient_terms(question)
    for (claim, cited), share in zip(kept, _property_shares(pack, kept), strict=True):
        if expected is Expects.YES_NO:
            # a verdict, or a claim about everything the question names ("You should not give
            # aspirin to children under 16")
            said = " ".join(words(claim.text))
            # (a question naming nothing has only a verdict: "Can children take amoxicillin?")
            if not _VERDICT.match(claim.text) and not (terms and all(mentions(said, t) for t in terms)):
                continue
            # "It does not decide whether Meridian submitted false claims" answers neither way
            if not _VERDICT.match(claim.text) and leaves_open(claim.text, asked_words):
                continue
            # "Riverside United beat Northgate Athletic" for "Did Northgate Athletic win the cup?":
            # an outcome another verb states answers in a verdict only (drawn when it decides)
            if not _VERDICT.match(claim.text) and _outcome_only(claim.text + " " + evidence_text(cited), asked_words):
                continue
            # no verdict: it answers only in every word of the question ("Does fluconazole decrease
            # the INR?" is not answered by "Drug: Rifampicin | Effect on INR: Decreases")
            every = {word_key(w) for w in _content(question)}
            if not _VERDICT.match(claim.text) and not every <= word_keys(claim.text + " " + evidence_text(cited)):
                continue
            # ... in one part of it: "Sweden gave up the port of Lindau but kept the island of Orsa"
            # answers neither way whether Sweden kept Lindau
            titles = " ".join(i.title or "" for i in cited)
            if not _VERDICT.match(claim.text) and not any(
                every <= word_keys(f"{part} {titles}") for part in contrasted(claim.text)
            ):
                continue
        elif not offers(claim.text, expected, question):
            continue
        if share >= MIN_PROPERTY_COVERAGE:
            return None
    if expected is Expects.YES_NO:
        return "No claim answers yes or no."
    return (
        "No claim states what the question asks of "
        + (", ".join(f'"{t}"' for t in terms) or "its subject")
        + (" (" + ", ".join(f'"{w}"' for w in asked_words) + ")" if asked_words else "")
        + "."
    )


def _outcome_only(said: str, asked: Sequence[str]) -> bool:
    """Whether an outcome asked of ("win", "affirm") is said only by another verb ("beat",
    "reversed": :data:`~provgraph.answer.text.OUTCOMES`)."""
    keys = word_keys(said)
    return any(word_key(w) in OUTCOMES and word_key(w) not in keys for w in asked)


def _confidence(draft: DraftAnswer, kept: Sequence[_Kept]) -> AnswerConfidence:
    """From the share of drafted claims kept verified, and whether a kept claim has an unresolved
    high-risk issue (the module docstring's thresholds)."""
    verified = sum(claim.verified for claim, _ in kept)
    high_risk = any(issue.high_risk for claim, _ in kept for issue in claim.issues)
    share = verified / len(draft.claims) if draft.claims else 0.0
    if share >= HIGH and not high_risk:
        return AnswerConfidence.HIGH
    if share >= MEDIUM:
        return AnswerConfidence.MEDIUM
    if share >= LOW:
        return AnswerConfidence.LOW
    return AnswerConfidence.INSUFFICIENT


def _answer(
    draft: DraftAnswer,
    pack: EvidencePack,
    kept: Sequence[_Kept],
    removed: list[VerificationIssue],
    judge: SupportJudge,
    *,
    confidence: AnswerConfidence,
    limitations: list[str],
    generator: str,
    detail: Detail,
) -> GroundedAnswer:
    """The grounded answer of the kept claims: their summary, references and citations."""
    if removed:
        limitations = [
            *limitations,
            f"{len({i.claim for i in removed})} drafted claim(s) were removed: their evidence did not support them.",
        ]
    cited_items = list({i.id: i for _, items in kept for i in items}.values())
    return GroundedAnswer(
        question=pack.question,
        answer_summary=_summary(draft, kept, removed, judge),
        claims=[claim for claim, _ in kept],
        references=_references(cited_items, pack),
        citations=[_citation(i) for i in sorted(cited_items, key=lambda i: i.number)],
        confidence=confidence,
        limitations=limitations,
        query_refinements=list(draft.query_refinements),
        filter_suggestions=[],
        sources_used=_uses(kept),
        sources_retrieved=len(pack.retrieved_documents),
        removed_claims=removed,
        generator=generator,
        evidence=sorted(cited_items, key=lambda i: i.number) if detail is Detail.DETAILED else None,
    )


def _trusted(claim: DraftClaim, cited: Sequence[EvidenceItem]) -> tuple[list[EvidenceItem], list[VerificationIssue]]:
    """The cited items that may support a claim, and the issues of those that may not: their
    text, or their source, gives orders or vouches for itself."""
    kept: list[EvidenceItem] = []
    issues: list[VerificationIssue] = []
    for item in cited:
        if item.redacted is not None:
            issues.append(
                VerificationIssue(
                    claim=claim.text,
                    code=ReasonCode.REDACTED_EVIDENCE,
                    action=Action.CITATION_DROPPED,
                    message=f"[{item.number}] was withheld by policy rule <{item.redacted}>: it supports nothing",
                    citation=item.id,
                )
            )
            continue
        untrusted = inspect_item(item)
        if untrusted is None:
            kept.append(item)
            continue
        where = "its text" if untrusted.passage in (None, item.passage) else "a passage of its source"
        issues.append(
            VerificationIssue(
                claim=claim.text,
                code=untrusted.code,
                action=Action.CITATION_DROPPED,
                message=f'[{item.number}] is not evidence: {where} {untrusted.signal} ("{untrusted.matched}")',
                citation=item.id,
            )
        )
    return kept, issues


def _untrusted_limitations(pack: EvidencePack) -> list[str]:
    """One line per source of the pack whose text gives orders or vouches for itself."""
    by_source: dict[str, str] = {}
    for item in pack.items:
        untrusted = inspect_item(item) if item.kind in (EvidenceKind.PASSAGE, EvidenceKind.STATEMENT) else None
        if untrusted is not None:
            name = item.title or item.document_key or item.document or f"[{item.number}]"
            by_source.setdefault(name, f'{untrusted.signal} ("{untrusted.excerpt}")')
    return [
        f"{name} was not used as evidence: its text {why}; a source does not make a claim true by saying so."
        for name, why in by_source.items()
    ]


#: "What is the price of amoxicillin?", "What is the side effect of rosuvastatin on the liver?":
#: a question asking a property of what it names last.
_PROPERTY_OF = re.compile(
    r"^(?:what|which|how\s+\w+)\s+(?:is|are|was|were)\s+(?:the\s+)?[\w\s-]+?\s+of\s+(?:the\s+|an?\s+)?"
    r"(?P<owner>[\w-]+(?:\s+[\w-]+){0,2}?)(?:\s+(?:on|in|at|for|with|by|from|to|during|under)\b[^?]*)?\s*\?*$",
    re.I,
)


def _owner(question: str) -> list[str]:
    """The words of what a question asking a property names as its owner (:data:`_PROPERTY_OF`)."""
    found = _PROPERTY_OF.match(question.strip())
    return words(found.group("owner")) if found else []


def _uncovered(question: str, cited: Sequence[EvidenceItem]) -> str | None:
    """Why the cited evidence does not cover the question, or None when it does."""
    evidence = " ".join(words(evidence_text(cited)))
    # a name the evidence states word by word counts ("Mexican Formula One": "Formula One
    # drivers from Mexico ... the only Mexican driver")
    # an acronym counts when the evidence spells it out ("CEO": "chief executive officer")
    short = acronyms(question)
    bound = year_bound(question)  # "before 2003": a bound of the date asked, named by nothing
    names = [
        t
        for t in salient_terms(question)
        if not (bound and t == str(bound[1]))
        # a number's words together: "2011" and "12" in "the 2011 tournament ... 12-6" are not
        # the season 2011-12, nor "1", "4" and "0" version 1.4.0
        and not (
            mentions(evidence, t)
            if t.replace(" ", "").isdigit()
            else all(
                mentions(evidence, w) or mentions(evidence, without_possessive(w)) or mentions(evidence, singular(w))
                for w in t.split()
            )
        )
        and not (t in short and spells(t, evidence))
    ]
    if names:
        return "the evidence found does not mention " + ", ".join(f'"{number_text(n)}"' for n in names)
    text = " ".join(words(" ".join(i.text for i in cited)))
    asked = salient_names(question)
    # ("Shut Up" of "Shut Up, Make Love" is part of a name the question says itself)
    for name in (n for n in asked if not any(o != n and mentions(o, n) for o in asked)):
        if (longer := _only_within(name, cited, text)) is not None:
            written = " ".join(longer.split()[: len(name.split())])  # as the title writes it
            return f'the evidence found mentions "{written}" only as part of "{longer}", another name'
    # (what the evidence says: "games" in a file's path ".../games/season.md" says nothing)
    said = _finder(set(words(evidence_text(cited, locators=False))), inflections=True)
    unsaid = [t for t in topics(question) if not said(t) and not said(singular(t))]
    if unsaid:
        return "the evidence found does not mention " + ", ".join(f'"{t}"' for t in unsaid)
    # "What kind of drug is amoxicillin?": "Amoxicillin is a penicillin antibiotic." says its kind
    # (nor the kind it asks for, "drug")
    kind = kind_asked(question)
    asked_kind = set(kind.kind.split()) if kind else set()
    unasked = KIND_WORDS | asked_kind | ({bound[0], str(bound[1])} if bound else set())
    content = [w for w in dict.fromkeys(_content(question)) if w not in unasked]
    found = list(filter(_finder(set(evidence.split()), inflections=True), content))
    # a question naming nothing says what it is about after "of" ("What is the price of
    # amoxicillin?"): "Price: 799 US dollars" of a phone does not speak of it
    owner = [] if salient_terms(question) else [w for w in _owner(question) if w in content and w not in found]
    if owner:
        return "the evidence found does not speak of " + ", ".join(f'"{w}"' for w in owner)
    if content and len(found) < MIN_QUESTION_COVERAGE * len(content):
        missing = [w for w in content if w not in found]
        return "the evidence found does not speak of " + ", ".join(f'"{w}"' for w in missing)
    return None


def _only_within(name: str, cited: Sequence[EvidenceItem], text: str) -> str | None:
    """The longer name that the cited passages' ``text`` (as words) says, and that every mention
    of ``name`` in it is part of, when a cited document is titled by that longer name and none by
    ``name`` itself: "Apple Remote" in "Apple Remote Desktop allows users to ..." speaks of
    another product. Else None ("It was built ..." in "Skerryvore Reef Lighthouse" is of
    Skerryvore)."""
    titles = {" ".join(words(without_disambiguation(i.title or ""))) for i in cited} - {""}
    # a name goes on in capitals ("Apple Remote Desktop"), not in a description ("Vermont
    # Catamounts men's soccer" is the Vermont Catamounts' team)
    named = {" ".join(words(t)): t for i in cited if (t := without_disambiguation(i.title or "")).istitle()}
    longer = sorted((t for t in titles & set(named) if t.startswith(name + " ")), key=len, reverse=True)
    if not longer or name in titles:
        return None
    said = [t for t in longer if mentions(text, t)]
    rest = f" {text} "
    for title in said:
        rest = rest.replace(f" {title} ", " | ")
    return named[said[-1]] if said and not mentions(rest, name) else None


#: Words a note starts a sentence with that are no name ("Only one source ...", "Ask about ...").
_NOTE_WORDS = frozenset(
    "only one no none some several few many most all each every ask check consider try search add find look "
    "see note whether if although however because since sources source evidence".split()
)


def checked_notes(notes: Sequence[str], pack: EvidencePack) -> tuple[list[str], int]:
    """The notes a generator wrote beside its claims (limitations, suggested questions) that may
    reach the user, and how many were left out. A model can put there what the verifier would
    refuse as a claim ("the maximum dose is 4 g a day"), so a note is kept only when it gives no
    order, carries no citation mark, and every number and name in it is in the pack's trusted
    evidence or the question."""
    trusted = [i for i in pack.items if inspect_item(i) is None]
    evidence = "\n".join([evidence_text(trusted), pack.question])
    stated = "\n".join([evidence_text(trusted, locators=False), pack.question])
    in_evidence = _finder(set(words(evidence)))

    def found(word: str) -> bool:
        return word in _NOTE_WORDS or in_evidence(word)

    kept = [
        note.strip()
        for note in notes
        if note.strip()
        and inspect(note) is None
        and not CITATION_MARK.search(note)
        and _unsupported_numbers(note, stated) is None
        and _unsupported_names(note, found) is None
    ]
    return list(dict.fromkeys(kept)), sum(1 for note in notes if note.strip()) - len(kept)


def _summary(
    draft: DraftAnswer,
    kept: Sequence[_Kept],
    removed: Sequence[VerificationIssue],
    judge: SupportJudge,
) -> str:
    """The draft's summary when every claim survived and the summary holds (see
    :func:`_summary_holds`), else one rebuilt from the kept claims: a summary must not say what
    the verifier removed, nor carry a citation mark the verifier did not check."""
    cited = list({i.id: i for _, items in kept for i in items}.values())
    summary = draft.answer_summary.strip()
    if not removed and summary and _summary_holds(summary, cited, judge):
        return summary
    parts = []
    for claim, items in kept[:2]:
        marks = "".join(f"[{i.number}]" for i in sorted(items, key=lambda i: i.number))
        parts.append(f"{strip_citation_marks(claim.text).rstrip('.')} {marks}.")
    return " ".join(parts)


def _summary_holds(summary: str, cited: Sequence[EvidenceItem], judge: SupportJudge) -> bool:
    """A summary gives no orders, its only marks are ``[n]`` of cited evidence closing a
    sentence, and the cited evidence supports it as it would a claim."""
    if inspect(summary) is not None:
        return False
    numbers = {i.number for i in cited}
    for mark in CITATION_MARK.finditer(summary):
        own = _OWN_MARK.fullmatch(mark.group())
        if own is None or not _MARKS_AT_END.match(summary, mark.start()) or not _mark_numbers(own.group(1)) <= numbers:
            return False
    as_claim = DraftClaim(text=summary, supporting_citations=[i.id for i in cited])
    return not judge.judge(as_claim, cited)


def _mark_numbers(mark: str) -> set[int]:
    """The numbers a mark cites: "1-3, 5" -> {1, 2, 3, 5}."""
    out: set[int] = set()
    for part in re.split(r"\s*,\s*", mark):
        ends = [int(n) for n in re.split(r"\s*[-\u2013]\s*", part)]
        if len(ends) == 2 and not 0 < ends[1] - ends[0] <= 100:
            return {-1}  # not a range the verifier writes
        out.update(range(ends[0], ends[-1] + 1))
    return out


def _citation(item: EvidenceItem) -> Citation:
    return Citation(
        id=item.id,
        number=item.number,
        kind=item.kind,
        text=item.text,
        statement=item.statement,
        passage=item.passage,
        document=item.document,
        title=item.title,
        url=item.url,
    )


def _references(items: Sequence[EvidenceItem], pack: EvidencePack) -> list[Reference]:
    """One entry per source document, in order of first citation."""
    by_document: dict[str, list[EvidenceItem]] = {}
    for item in sorted(items, key=lambda i: i.number):
        documents = [item.document] if item.document else []
        if item.kind is EvidenceKind.CONFLICT:
            # a conflict's sources are the documents of its statements in the pack
            documents = [r.document for r in (pack.get(x) for x in item.related) if r is not None and r.document]
        for document in documents:
            by_document.setdefault(document, []).append(item)
    out = []
    for n, (document, cited) in enumerate(by_document.items(), 1):
        head = next((i for i in cited if i.document == document), None) or _any_item(pack, document)
        out.append(
            Reference(
                number=n,
                document=document,
                key=head.document_key if head else None,
                title=(head.title if head else None) or (head.document_key if head else None) or document,
                url=head.url if head else None,
                tier=head.tier if head else None,
                issued=head.issued if head else None,
                evidence=list(dict.fromkeys(i.id for i in cited)),
                passages=list(
                    dict.fromkeys(
                        p
                        for i in cited
                        if (p := i.passage_text or (i.text if i.kind is EvidenceKind.PASSAGE else None))
                    )
                ),
            )
        )
    return out


def _any_item(pack: EvidencePack, document: str) -> EvidenceItem | None:
    return next((i for i in pack.items if i.document == document), None)


def _uses(kept: Sequence[_Kept]) -> list[SourceUse]:
    claims: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for claim, items in kept:
        for item in items:
            if item.document:
                titles[item.document] = item.title or item.document_key or item.document
                topic = claim.subtopic or claim.text[:60].rstrip(" .") + ("..." if len(claim.text) > 60 else "")
                claims.setdefault(item.document, [])
                if topic not in claims[item.document]:
                    claims[item.document].append(topic)
    out = []
    for document, subtopics in claims.items():
        n = sum(1 for claim, items in kept if any(i.document == document for i in items))
        reason = f"cited by {n} claim{'s' if n != 1 else ''}: " + "; ".join(subtopics[:3])
        out.append(SourceUse(document=document, title=titles[document], reason=reason))
    return out


def _abstain(
    draft: DraftAnswer,
    pack: EvidencePack,
    kept: Sequence[_Kept],
    removed: list[VerificationIssue],
    *,
    generator: str,
    detail: Detail,
    limitations: list[str],
    uncovered: str | None = None,
) -> GroundedAnswer:
    """Insufficient evidence: no claims, a short reason, the best sources found, what to try."""
    if uncovered is not None:
        reason = f"Insufficient evidence: {uncovered}."
    elif not pack.items:
        reason = "Insufficient evidence: the store has no evidence matching this question."
    elif not draft.claims:
        reason = "Insufficient evidence: the evidence found does not answer this question."
    else:
        reason = (
            f"Insufficient evidence: {len(draft.claims) - len(kept) + sum(not c.verified for c, _ in kept)} of "
            f"{len(draft.claims)} drafted claims were not supported by the evidence they cite."
        )
    # claims kept but too few to answer are withdrawn too: an abstention asserts nothing
    removed = removed + [
        VerificationIssue(
            claim=c.text,
            code=ReasonCode.QUESTION_NOT_COVERED if uncovered else ReasonCode.INSUFFICIENT_SUPPORT,
            action=Action.REMOVED,
            message=f"withdrawn: {uncovered}"
            if uncovered
            else "withdrawn: the answer as a whole is not supported well enough",
        )
        for c, _ in kept
    ]
    # the best sources found, not those whose text gives orders: they are no lead to follow
    best = sorted((i for i in pack.items if inspect_item(i) is None), key=lambda i: (-i.score, i.number))[:3]
    refinements = list(draft.query_refinements)
    if not refinements:
        refinements = [f'Ask directly about "{e.label}", which the store knows.' for e in pack.entities[:3]]
        refinements = refinements or ["Name the entity, document or property you are asking about."]
    return GroundedAnswer(
        question=pack.question,
        answer_summary=reason,
        claims=[],
        references=_references(best, pack),
        citations=[],
        confidence=AnswerConfidence.INSUFFICIENT,
        limitations=limitations,
        query_refinements=refinements,
        filter_suggestions=_filter_suggestions(pack.filters),
        sources_used=[],
        sources_retrieved=len(pack.retrieved_documents),
        removed_claims=removed,
        generator=generator,
        evidence=best if detail is Detail.DETAILED else None,
    )


def _filter_suggestions(filters: AskFilters) -> list[str]:
    out = []
    if filters.max_tier is not None and filters.max_tier < 5:
        out.append(
            f"Allow sources of tier {filters.max_tier + 1} and below (max_tier={filters.max_tier + 1}, "
            f"CLI --max-tier {filters.max_tier + 1}): only tiers 1-{filters.max_tier} were searched."
        )
    if filters.min_confidence is not None:
        out.append(f"Lower min_confidence (now {filters.min_confidence}): less confident facts were left out.")
    if filters.issued_after is not None:
        out.append(f"Search sources issued before {filters.issued_after.isoformat()} too (drop issued_after).")
    if filters.documents:
        out.append(f"Search every document, not only {len(filters.documents)} (drop the documents filter).")
    if not out:
        out.append("Restrict the search to one source with documents=[KEY] (CLI --document KEY) if you know it.")
    return out


__all__ = ["HeuristicJudge", "evidence_text", "verify"]
