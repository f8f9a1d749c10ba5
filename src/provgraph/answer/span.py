"""The answer span of a sentence and the short sentence that states it.

For a factoid question ("who", "when", "where", "how tall"), the span is the part of an evidence
sentence that holds a value of the type asked for and that the question does not already hold:
a name, a date (with its preposition: "between 1807 and 1810"), a number with its unit. Of
several, the one nearest to the words the question asks about ("built") is taken.

The short sentence restates the question with the span in place of its question word, when the
question has one of a few plain forms ("Who built X?" -> "Robert Stevenson built X"; "When was X
built?" -> "X was built between 1807 and 1810"; "How tall is X?" -> "X is 35 metres tall"). It
is kept only when every content word of it is in the sentence or the document's title, and the
sentence is about what the question asks about (:func:`_about_asked`), so it says nothing the
evidence does not.

>>> question = "Who built the Bell Rock Lighthouse?"
>>> sentence = "Bell Rock Lighthouse was built between 1807 and 1810 by Robert Stevenson."
>>> span(sentence, question)
'Robert Stevenson'
>>> short_answer(sentence, question, "Bell Rock Lighthouse")
'Robert Stevenson built the Bell Rock Lighthouse.'
>>> short_answer(sentence, "When was the Bell Rock Lighthouse built?", "Bell Rock Lighthouse")
'The Bell Rock Lighthouse was built between 1807 and 1810.'
"""

from __future__ import annotations

import re

from provgraph.answer.question import Expects, expects
from provgraph.answer.text import (
    STOP_WORDS,
    content_words,
    named_by_noun,
    normalise,
    salient_names,
    salient_terms,
    without_disambiguation,
    word_key,
    word_keys,
    word_matches,
    word_readings,
    words,
)

_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DAY_DATE = rf"(?:\d{{1,2}}\s+{_MONTH}|{_MONTH}\s+\d{{1,2}},?)\s+\d{{4}}"
_ONE_DATE = rf"(?:{_DAY_DATE}|{_MONTH}\s+\d{{4}}|\d{{4}}s?)"
_DATE = re.compile(
    rf"\b(?:(?:between|from)\s+{_ONE_DATE}\s+(?:and|to|until)\s+{_ONE_DATE}"
    rf"|(?:in|on|since|until|by)\s+{_ONE_DATE}|{_ONE_DATE}(?:\s*[-\u2013]\s*\d{{4}})?)(?!\d)"
)
_NUMBER = re.compile(
    r"(?<![\w.])(?:(?:more than|over|about|around|approximately|nearly|almost|some)\s+)?"
    r"\d[\d,]*(?:\.\d+)?(?:\s*(?:%|per cent|percent)|\s+[a-z]+)?"
)


def span(sentence: str, question: str) -> str | None:
    """The answer span of ``sentence`` for ``question`` (see the module docstring), or None when
    the question is not factoid or the sentence holds no value of its type the question lacks."""
    expected = expects(question)
    if expected is Expects.DATE:
        found = [(m.start(), m.group()) for m in _DATE.finditer(sentence)]
    elif expected is Expects.NUMBER:
        found = [(m.start(), _without_stop_unit(m.group())) for m in _NUMBER.finditer(sentence)]
        # a year is no count ("How many copies ... sold?": not "1939")
        found = [f for f in found if not _YEAR.fullmatch(f[1])] or found
    elif expected is Expects.PLACE:
        # only a name after "in", "at", "near" ... ("born in Pennsylvania", not "American", not
        # "by Hank Scorpio" for "Where was Globex founded?")
        found = _name_runs(sentence)
        found = [f for f in found if _PLACE_PREPOSITION.search(sentence[: f[0]])]
        # "on" also says when ("crowned on Christmas Day 1066 in Westminster Abbey"): a place after
        # "in", "at" ... first
        found = [f for f in found if not _ON.search(sentence[: f[0]])] or found
    elif expected is Expects.PERSON:
        # a full name first ("Robert Stevenson", not "Scottish")
        found = _name_runs(sentence)
        found = [f for f in found if " " in f[1]] or found
    else:
        return None
    # a possessive names an owner, not the answer: "Northwind Traders's brother, David Marsh, ..."
    found = [f for f in found if not re.search(r"['\u2019]s?$", f[1])]
    asked = set(words(question))
    names = [set(t.split()) for t in salient_terms(question)]
    # not what the question holds, nor a longer name of what it asks about ("Skerryvore Reef
    # Lighthouse" for "Who built Skerryvore?")
    found = [
        (at, text)
        for at, text in found
        if not set(words(text)) <= asked | STOP_WORDS and not any(n <= set(words(text)) for n in names)
    ]
    if not found:
        return None
    # nearest to what is asked of the names ("led" of "Who led the Novgorod forces at the Battle
    # of Lake Peipus?": "Prince Alexander Nevsky", not "the Battle on the Ice" beside its name)
    named = set().union(*names)
    unnamed = [w for w in content_words(question) if w not in named]
    # the verb asked of, when the sentence says it: "issued" of "When was the pneumonia guideline
    # issued?" ("issued ... on 3 March 2026", not "the 2019 guideline" beside the noun)
    verbs = [w for w in unnamed if _participle(w) and "NOUN" not in word_readings(w)]
    focus = [m.start() for w in verbs for m in _word_at(sentence, w)]
    focus = focus or [m.start() for w in unnamed for m in _word_at(sentence, w)]
    focus = focus or [m.start() for w in content_words(question) for m in _word_at(sentence, w)]
    best = found[0] if not focus else min(found, key=lambda f: (min(abs(f[0] - at) for at in focus), f[0]))
    if expected is Expects.PLACE:  # the places listed with it follow no preposition of their own
        return _with_others(sentence, best, _name_runs(sentence))
    if expected is not Expects.PERSON:
        return best[1]
    # "the brothers James and Robert Corran": a first name before the full name is one of a list
    runs = _name_runs(sentence)
    first = best
    for at, text in sorted((r for r in runs if r[0] < best[0]), reverse=True):
        if not re.fullmatch(r",\s*|\s+and\s+|,\s+and\s+", sentence[at + len(text) : first[0]]):
            break
        first = (at, text)
    return _with_others(sentence, first, [*found, *(r for r in runs if r[0] < best[0])])


def _participle(word: str) -> bool:
    """Whether ``word`` can be a past participle: "opened", "sold", "hung", "born"."""
    from lemminflect import getAllLemmas, getInflection

    if word.endswith("ed") or word == "born":
        return True
    return any(word in getInflection(lemma, tag="VBN") for lemma in getAllLemmas(word).get("VERB", ()))


def _with_others(sentence: str, first: tuple[int, str], found: list[tuple[int, str]]) -> str:
    """A name with the names listed with it: "Priya Raman and Tom Ellis" ("founded in 1998 by
    Priya Raman and Tom Ellis"), "Homeplus and Kitchen Depot" ("sold at Homeplus and Kitchen
    Depot stores"), "A, B and C"; a name alone otherwise."""
    names, end = [first[1]], first[0] + len(first[1])
    for at, text in sorted(found):
        if at <= first[0]:
            continue
        joint = sentence[end:at]
        if not re.fullmatch(r",\s*|\s+and\s+|,\s+and\s+", joint):
            break
        names.append(text)
        end = at + len(text)
        if "and" in joint:  # a list ends with "and": "John Lennon, the singer" is no list
            # unless the last name opens a clause: "born in Salzburg and Vienna celebrates him"
            after = re.match(r"\s+([a-z]+)", sentence[end:])
            if after and "NOUN" not in word_readings(after.group(1)):
                return names[0]
            return f"{', '.join(names[:-1])} and {names[-1]}"
    return names[0]


def _word_at(sentence: str, word: str) -> list[re.Match[str]]:
    # the question's word or an inflection of it ("opened" for "open"), wherever it is
    key = word_key(word)
    return [m for m in word_matches(normalise(sentence)) if word_key(m.group()) == key]


_YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
#: Words after a number that are not its unit.
_NOT_UNITS = STOP_WORDS | frozenset(
    "within across along among including during since until while after through".split()
)


def _without_stop_unit(number: str) -> str:
    """ "35 metres" stays; "1810 and" and "872,757 within" lose the word that is no unit."""
    parts = number.rsplit(" ", 1)
    if len(parts) == 2 and parts[1] in _NOT_UNITS:
        number = parts[0]
    return number.rstrip(",")


_DAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
#: A name: capitalised words, joined by the particles of names ("Anne of Green Gables", "Ludwig
#: van Beethoven", "Conference on Neural Information Processing Systems", "Institute for Advanced
#: Study"), not by other prepositions: "Paris in France" is two, and so is "Paris on Monday".
_NAME = re.compile(
    r"(?<![\w'\u2019])[A-Z][\w'\u2019-]*\.?(?:\s+(?:(?:of|the|de|von|van|der|del|da|du|la|le|for|on)\s+)*"
    rf"(?!{_MONTH}\b|{_DAY}\b)[A-Z][\w'\u2019-]*\.?)*"
)


def _name_runs(sentence: str) -> list[tuple[int, str]]:
    """Runs of capitalised words (with the connectors between them: "Anne of Green Gables"),
    without a leading article, with their positions."""
    runs = []
    for match in _NAME.finditer(sentence):
        text = re.sub(r"^(?:The|A|An|It|He|She|They|This|In|On|At)\s+", "", match.group())
        # a final period ends the sentence, unless it is an initial's
        if text.endswith(".") and not re.search(r"\b[A-Z]\.$", text):
            text = text[:-1]
        if not set(words(text)) <= STOP_WORDS and not re.fullmatch(_MONTH, text):
            runs.append((match.start(), text))
    return runs


_BE = r"(?P<v>is|was|are|were)"
_PAST = r"(?!(?:is|was|are|were|did|does|do|has|had)\b)(?:\w+ed|built|made|wrote|won|began|became|led|founded|sang)"
#: Plain question forms: the question, its question word taken off, and how the statement reads.
#: {a}: the span; {x}: the thing asked about; {v}: its verb; {p}: a participle; {rest}: what
#: follows the question word; {adj}: "tall", "old" ... A span that is a place gets its preposition.
_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"^(?:who|what)\s+(?P<rest>{_PAST}\b.*)$", re.I), "{a} {rest}"),
    (re.compile(r"^who\s+(?P<rest>(?:is|was|are|were)\s+the\s+.+)$", re.I), "{a} {rest}"),
    (re.compile(rf"^(?:when|(?:in )?(?:what|which) year)\s+{_BE}\s+(?P<x>.+)\s+(?P<p>\w+)$", re.I), "{x} {v} {p} {a}"),
    (
        # a participle, regular or not ("sold", "hung": see short_answer)
        re.compile(rf"^where\s+{_BE}\s+(?P<x>.+)\s+(?P<p>(?-i:[a-z]+))$", re.I),
        "{x} {v} {p} {a}",
    ),
    (re.compile(rf"^where\s+{_BE}\s+(?P<x>.+)$", re.I), "{x} {v} {a}"),
    (
        # "How old was Rosalind Franklin when she died?": "Rosalind Franklin was 37 when she died";
        # not "how far" ("... is 580 light-years far from Earth"): the sentence says it better
        re.compile(
            rf"^how\s+(?P<adj>tall|high|long|old|deep|wide)\s+{_BE}\s+(?P<x>.+?)"
            r"(?:\s+(?P<clause>(?:when|while|after|before)\s+.+))?$",
            re.I,
        ),
        "{x} {v} {a} {adj} {clause}",
    ),
    (
        re.compile(rf"^what\s+{_BE}\s+the\s+(?P<p>population|height|area|length|capacity)\s+of\s+(?P<x>.+)$", re.I),
        "The {p} of {x} {v} {a}",
    ),
]
#: A second question word after the first ("... and when", "... or where").
_SECOND_QUESTION = re.compile(r"\s(?:and|or)\s+(?:when|where|who|why|how|what|which)\b", re.I)
#: Adverbs a question puts before its participle ("When was metformin first described?").
_ADVERBS = (
    "first|last|originally|initially|officially|formally|finally|publicly|commercially|formerly|previously|recently"
)
_PLACE_PREPOSITION = re.compile(r"\b(in|at|on|near|off)\s+(?:the\s+)?$")
_ON = re.compile(r"\bon\s+(?:the\s+)?$")


def short_answer(sentence: str, question: str, title: str | None = None) -> str | None:
    """A short sentence stating the answer span of ``sentence`` in the words of ``question``, or
    None when the question has no plain form, the sentence no span or another subject than the
    question's (:func:`_about_asked`), or the short sentence would hold a content word that
    neither the sentence nor ``title`` holds."""
    answer = span(sentence, question)
    if not _about_asked(sentence, question, title):
        return None
    asked = question.strip().rstrip("?").strip()
    form = next(
        (
            (m, template)
            for pattern, template in _FORMS
            if (m := pattern.match(asked)) and (not m.groupdict().get("p") or _participle(m.group("p")))
        ),
        None,
    )
    if answer is None or form is None or _SECOND_QUESTION.search(asked):
        return None  # "Who founded Globex and when?" asks two things: no one span answers it
    found, template = form
    parts = {k: v or "" for k, v in found.groupdict().items()}
    # "When was metformin first described?": "Metformin was first described ...", the adverb after the verb
    adverb = re.match(rf"^(?P<x>.+\S)\s+(?P<adv>{_ADVERBS})$", parts.get("x", ""))
    if adverb is not None and parts.get("p"):
        parts["x"], parts["p"] = adverb.group("x"), f"{adverb.group('adv')} {parts['p']}"
    if expects(question) is Expects.DATE and not re.match(r"(?:in|on|since|until|by|between|from)\b", answer):
        answer = ("on " if re.match(_DAY_DATE, answer) else "in ") + answer
    if expects(question) is Expects.PLACE and not re.match(r"(?:in|at|on|near|off)\b", answer):
        before = _PLACE_PREPOSITION.search(sentence[: sentence.find(answer)]) if answer in sentence else None
        # with its article: "at the Conference on ...", "in the United States"
        answer = f"{before.group().strip() if before else 'in'} {answer}"
    if parts.get("adj", "").lower() == "long" and (
        re.search(r"\b(?:second|minute|hour|day|week|month|year)s?\b", answer) or _participle(parts["x"].split()[-1])
    ):
        return None  # "How long are results cached?": a time, not a length ("... are 5 minutes long")
    if parts.get("adj", "").lower() == "old" and not re.search(r"\byears?\b", answer):
        parts["adj"] = ""  # "was 37", not "was 37 old"
    text = template.format(a=answer, **{k: parts.get(k, "") for k in ("x", "v", "p", "rest", "adj", "clause")})
    text = re.sub(r"\s+", " ", text).strip()
    text = text[:1].upper() + text[1:] + "."
    # "8,849 metres high": its elevation; but "won" is said by no "defeat" ("The defeat of Smith")
    held = word_keys(f"{sentence} {title or ''}", measures=True, outcomes=False)
    if not all(word_key(w) in held for w in content_words(text)):
        return None
    # the verb it states, as a verb: "The film director Ann Berg was born there" says she directs
    # films, not that "Ann Berg directed Red Hollow"
    verb = (parts.get("rest") or "").split(" ")[0]
    return text if not verb or not named_by_noun(sentence, verb) else None


def _about_asked(sentence: str, question: str, title: str | None) -> bool:
    """Whether the sentence's subject is what the question asks about: its first content word is
    one of the question's, or it is of the document about a name of the question and opens with
    that document's subject ("The tower ..." in "Bell Rock Lighthouse"). "The single was
    released in 2000" says nothing of when the album it mentions was."""
    first = content_words(sentence)[:1]
    if first and word_key(first[0]) in {word_key(w) for w in content_words(question)}:
        return True
    opening = " ".join(words(re.sub(r"^(?:the|a|an)\s+", "", sentence.strip(), flags=re.I))) + " "
    names = salient_names(question)
    subject = " ".join(words(without_disambiguation(title or "")))
    about = bool(subject) and any(n == subject or n in subject.split(" ") or subject in n for n in names)
    return about and (
        opening.startswith(subject + " ") or re.match(r"(?:The\s+[a-z]|It\b|He\b|She\b)", sentence) is not None
    )


__all__ = ["short_answer", "span"]
