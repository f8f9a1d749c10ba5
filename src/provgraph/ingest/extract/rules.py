"""Rule-based extraction: facts from simple sentence patterns, without a model.

Offline and deterministic. Each pattern anchors on a property phrase: a label or synonym the
ontology gives a property (:mod:`provgraph.ingest.extract.vocabulary`), or, with no ontology
property, a passive verb ("was built by", "was founded in 1847"), "born" / "died" and a few
measures ("35 metres tall"), for which a property is minted. The patterns:

- ``X was built between 1807 and 1810 by Y``, ``X is a film directed by Y``, ``X interacts with
  Y``, ``X is used to treat A, B and C``, ``X (born December 10, 1962)``: a phrase, then its
  object (an entity, a date, a quantity);
- ``the P of X (for adults) is V``, ``X has a P of V``, ``X's P is V``, ``X has about N P``,
  ``X is N unit tall``;
- ``X is the P of Y``, ``X, the P of Y,``: Y's P is X;
- other names: ``X, also known as Y``, ``X is also called Y``, ``World Health Organization
  (WHO)``: an alias of X.

A sentence's subject is its leading name; "It", "She", "Its" are the last subject named, and a
definite description ("The tower", "The company") the document's first. Dates and quantities are
read by :mod:`provgraph.ingest.extract.quantities`; a value is converted to the property's unit
when the ontology gives one. Coverage is partial by design: a sentence no pattern reads yields no
fact rather than a guessed one (figures in the README).

>>> from provgraph.ingest.records import PassageSpec
>>> passages = [PassageSpec("The Bell Rock Lighthouse is off the coast of Angus."),
...             PassageSpec("It was built between 1807 and 1810 by Robert Stevenson.")]
>>> [(f.subject, f.predicate.label, f.object.name, f.quote)
...  for _, facts in RuleExtractor().extract(passages, title="Bell Rock") for f in facts]
[('Bell Rock Lighthouse', 'built by', 'Robert Stevenson', 'It was built between 1807 and 1810 by Robert Stevenson')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from provgraph.ingest.extract.base import Fact, Value
from provgraph.ingest.extract.quantities import DateValue, Quantity, convert, dates, quantities
from provgraph.ingest.extract.vocabulary import Property, Vocabulary
from provgraph.ingest.records import PassageSpec
from provgraph.vocab import PG_NS, XSD_NS

#: Bumped when the rules change what they extract (recorded on the extraction activity).
RULES_VERSION = "1"
#: Confidence of a fact whose subject the sentence names, and of one whose subject is "It".
NAMED_CONFIDENCE = 0.8
RESOLVED_CONFIDENCE = 0.7
ALIAS = Property(PG_NS + "alias", "alias", literal=True)
#: The sentences of a document's opening: a subject named there is what the document is about.
_OPENING_SENTENCES = 2

_CAP = r"(?:[A-Z\u00C0-\u00DE][\w'\u2019\-.]*|\d[\w\-]*)"
_LINK = r"(?:of|the|de|la|le|von|van|der|du|da|del|and|&)"
_NAME = rf"{_CAP}(?:\s+(?:{_LINK}\s+)*{_CAP})*"
_NAME_RE = re.compile(_NAME)
#: Lower-case words after a name that may belong to it ("Inchcape lighthouse"): one or two.
_HEAD_NOUNS = re.compile(r"(\s+[a-z][\w\-]*)(?:\s+[a-z][\w\-]*)?")
#: Words that begin sentences with a capital without being names.
_NOT_NAMES = frozenset(
    (
        "about above according after afterwards along also although among another around as at before because "
        "besides between beyond both but by currently despite during each either every following for formerly "
        "from here however if in initially instead later many meanwhile moreover most nevertheless not now on "
        "once originally other over several since some still such that then there therefore these this those "
        "though through thus today together under unlike until upon when where whereas while with within yet"
    ).split()
)
_PRONOUN = re.compile(r"(It|He|She|They|Its|His|Her|Their)\b")
_DESCRIPTION = re.compile(r"The\s+([a-z][\w\-]*)\b(?=\s+(?:is|was|are|were|has|had|have|\w+s)\b)")
_BE = r"(?:is|was|are|were)"
_ABOUT = r"(?:(?:about|approximately|around|nearly|almost|over|some|roughly|just over|just under)\s+)?"
_OBJECT_LEAD = re.compile(r"(?:the|a|an|patients with|people with|those with|cases of)\s+", re.I)
_OBJECT_STOP = re.compile(
    # a full stop ends the object, but not that of an initial ("George W. Bush", "Louis J. Grasmick")
    r"[;:()]|(?<!\b[A-Z])\.|,(?!\s*(?:and|or)?\s*[\w\-]+(?:\s+[\w\-]+){0,3}\s*(?:,|\band\b|\bor\b|[.;]|$))"
    r"|\s(?:in|on|at|by|for|from|with|that|which|who|where|when|during|after|before|since|as|to|because|while)\s"
)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
#: Measures read from an adjective when the ontology names none ("35 metres tall").
_MEASURES = {"tall": "height", "high": "height", "long": "length", "wide": "width", "deep": "depth", "old": "age"}
#: Words ending like participles ("-en", "-wn") that are not ("open standard", "young adult").
_NOT_PARTICIPLES = (
    "(?:open|even|often|seven|eleven|then|when|garden|children|women|men|ten|teen|seen|been|green|queen|screen"
    "|between|listen|happen|golden|wooden|heaven|chicken|kitchen|citizen|token|siren|oxygen|linen|sudden|down"
    "|town|own|brown|crown|gown|clown|dawn|lawn)"
)
#: Passive participles and verbs whose phrase mints a property when the ontology has none.
_PASSIVE = re.compile(
    rf"\b(?P<verb>(?!{_NOT_PARTICIPLES}\b)[a-z]+(?:ed|en|wn)|built|dealt|made|held|led|won|sung|sold|set|found|born"
    r"|known|written|begun|run)"
    r"(?P<gap>(?:\s+(?!by\b|in\b|on\b)[^,;()\s]+){0,5}?)\s+(?P<prep>by|in|on)\s+"
)
# not "an English-born actor": a nationality, not a birth
_LIVES = re.compile(r"(?<![\w-])(?P<verb>born|died)\b(?:\s+(?P<prep>in|on))?\s+")
_ALIASES = (
    re.compile(
        rf"(?P<x>{_NAME}),\s+(?:also\s+)?(?:known as|called|a\.k\.a\.)\s+(?:the\s+)?"
        r"(?P<alias>[^,;.()]+?)\s*(?=[,;.)]|$)"
    ),
    re.compile(
        rf"(?P<x>{_NAME})\s+{_BE}\s+also\s+(?:known as|called)\s+(?:the\s+)?(?P<alias>[^,;.()]+?)\s*(?=[,;.)]|$)"
    ),
    re.compile(rf"(?P<x>{_NAME})\s+\((?:also\s+)?(?:known as|called|a\.k\.a\.)\s+(?:the\s+)?(?P<alias>[^,;.()]+)\)"),
)
_ACRONYM = re.compile(rf"(?P<x>{_NAME})\s+\((?P<alias>[A-Z][A-Za-z]?[A-Z]{{1,6}}s?)\)")

_THE_P_OF = re.compile(
    r"\b[Tt]he\s+(?P<phrase>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)\s+of\s+"
    r"(?P<x>(?:the\s+)?[\w][\w'\u2019\-]*(?:\s+[\w'\u2019\-]+){0,4}?)"
    rf"(?:\s+(?:for|in|among|at|on|during)\s+[^,;]+?)?\s+{_BE}\s+{_ABOUT}"
)
_ROLES = (
    re.compile(rf"(?P<x>{_NAME})\s+{_BE}\s+the\s+(?P<phrase>[a-z][\w\- ]{{1,40}}?)\s+of\s+(?:the\s+)?(?P<y>{_NAME})"),
    re.compile(rf"(?P<x>{_NAME}),\s+the\s+(?P<phrase>[a-z][\w\- ]{{1,40}}?)\s+of\s+(?:the\s+)?(?P<y>{_NAME}),"),
)
_HAS_A = re.compile(
    rf"\b(?:has|had|have|reported|recorded|posted|reports)\s+(?:(?:a|an|the)\s+)?(?:total\s+)?"
    rf"(?P<phrase>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,3}}?)\s+of\s+{_ABOUT}"
)
_POSSESSIVE = re.compile(
    r"(?:\b(?:Its|its|His|his|Her|her|Their|their)|'s|\u2019s)\s+"
    rf"(?P<phrase>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,3}}?)\s+{_BE}\s+{_ABOUT}"
)
_COUNTED = re.compile(rf"\b(?:has|had|have|employs|employed)\s+{_ABOUT}")
_IS_ABOUT = re.compile(rf"\b{_BE}\s+{_ABOUT}")


@dataclass(slots=True)
class _Subject:
    name: str
    start: int
    end: int
    resolved: bool  # named before, not in this sentence
    #: "Her best-known work was first performed in 1952": the sentence is about what the name
    #: has, whose own properties only "Her <property> is <value>" says
    possessive: bool = False


class RuleExtractor:
    """The offline extractor (see the module docstring)."""

    name = "rules"
    cut = 0  # rules read every passage whole

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary or Vocabulary()
        self._phrases = self._phrase_patterns()

    def parameters(self) -> dict[str, str]:
        return {"extractor": "rules", "extractorVersion": RULES_VERSION}

    def _phrase_patterns(self) -> list[tuple[re.Pattern[str], str, Property]]:
        """A pattern per ontology phrase made of words, longest first; a final preposition may
        stand apart from its verb ("built between 1807 and 1810 by")."""
        patterns = []
        for key, prop in sorted(self.vocabulary.phrases().items(), key=lambda kv: -len(kv[0])):
            words = key.split()
            if not words:
                continue
            if len(words) >= 2 and words[-1] in ("by", "in", "on", "with", "for", "at", "from"):
                head = r"\s+".join(map(re.escape, words[:-1]))
                text = rf"\b{head}(?:\s+(?!{words[-1]}\b)[^,;()\s]+){{0,5}}?\s+{words[-1]}\b"
            else:
                text = r"\b" + r"\s+".join(map(re.escape, words)) + r"\b"
            patterns.append((re.compile(text, re.I), key, prop))
        return patterns

    def extract(
        self,
        passages: Sequence[PassageSpec],
        *,
        title: str,  # noqa: ARG002 - for extractors that read whole documents (a model)
    ) -> Iterator[tuple[PassageSpec, list[Fact]]]:
        topic: str | None = None  # the section's first subject
        last: str | None = None  # the last subject named
        section: str | None = None
        last_section: str | None = None  # the section ``last`` was named in
        opening: str | None = None  # the subject the document's opening sentences name
        for n, passage in enumerate(passages):
            if passage.section != section:
                section, topic = passage.section, None
            text = passage.text
            # "The tower" is the section's subject, or the document's ("The Bell Rock Lighthouse
            # is ... ## Construction ... The tower is 35 metres tall."); "The study was funded
            # by ..." under "Funding" is no name another section read
            described = last if last_section == section else opening
            subject = self._subject(text, topic=topic, last=last, described=described)
            facts = list(self._facts(text, subject))
            if subject is not None and not subject.resolved:
                last, last_section = subject.name, section
                topic = topic or subject.name
                if n < _OPENING_SENTENCES and _introduced(subject.name, text):
                    opening = opening or subject.name
            yield passage, _unique(facts)

    # ------------------------------------------------------------------ subjects

    def _subject(
        self, text: str, *, topic: str | None, last: str | None, described: str | None = None
    ) -> _Subject | None:
        pronoun = _PRONOUN.match(text)
        if pronoun:
            if not (last or topic):
                return None
            possessive = pronoun.group() in ("Its", "His", "Her", "Their")
            return _Subject(last or topic or "", 0, pronoun.end(), True, possessive)
        description = _DESCRIPTION.match(text)
        if description:
            named = topic or described
            return _Subject(named, 0, description.end(), True) if named else None
        lead = re.match(r"(?:The\s+)?(" + _NAME + ")", text)
        if lead is None:
            return None
        name = _clean_name(lead.group(1))
        opener = name.split()[0] if name else ""
        if name and (
            (" " not in name and (name.lower() in _NOT_NAMES or name.endswith("ly")))
            or opener.lower() in _NOT_NAMES
            or (" " not in name and _no_name(name) and not self.vocabulary.is_name(name))
        ):
            # "Here it ...", "Conceptually it is ...", "About a Boy" cut at "a", "In 1975 she
            # became ...", "Born in Stavanger, she studied ...", "Sites restored by ...": not a
            # name; a pronoun after it (or after the phrase it opens) is the subject named before
            after = re.match(r"(?:[^,;.]{0,60},)?\s+(?:it|he|she|they)\b", text[lead.end(1) :])
            if after and (last or topic):
                return _Subject(last or topic or "", 0, lead.end(1) + after.end(), True)
            return None
        if not name:
            return None
        # "The Inchcape lighthouse is ...": a name with a common noun, when a source named it so
        head = _HEAD_NOUNS.match(text, lead.end(1))
        if head is not None:
            for words in (head.group(0), head.group(1)):
                if words and self.vocabulary.is_name(f"{name} {words.strip()}"):
                    return _Subject(f"{name} {words.strip()}", lead.start(1), lead.end(1) + len(words), False)
        return _Subject(name, lead.start(1), lead.end(1), False)

    # ------------------------------------------------------------------ facts

    def _facts(self, text: str, subject: _Subject | None) -> Iterator[Fact]:
        yield from self._aliases(text)
        yield from self._of_patterns(text)
        yield from self._roles(text)
        if subject is None or not subject.name:
            # "The series follows Finn (voiced by Jeremy Shada)": a parenthesis names its owner
            yield from self._phrases_of(text, None)
            return
        if subject.possessive:
            yield from self._possessed(text, subject)
            return
        yield from self._measures(text, subject)
        yield from self._phrases_of(text, subject)

    def _fact(self, subject: _Subject | str, prop: Property, value: Value, text: str, start: int, end: int) -> Fact:
        if isinstance(subject, str):
            return Fact(subject, prop, value, text[start:end], NAMED_CONFIDENCE, start)
        start = min(start, subject.start)
        confidence = RESOLVED_CONFIDENCE if subject.resolved else NAMED_CONFIDENCE
        return Fact(subject.name, prop, value, text[start:end], confidence, start)

    def _aliases(self, text: str) -> Iterator[Fact]:
        for pattern in _ALIASES:
            for m in pattern.finditer(text):
                name, alias = _clean_name(m.group("x")), m.group("alias").strip()
                if name and alias and len(alias.split()) <= 6:
                    yield self._fact(
                        name,
                        ALIAS,
                        Value(lexical=alias, datatype=XSD_NS + "string"),
                        text,
                        m.start("x"),
                        m.end("alias"),
                    )
        for m in _ACRONYM.finditer(text):
            name, acronym = _clean_name(m.group("x")), m.group("alias")
            if name and _is_acronym_of(acronym, name):
                yield self._fact(
                    name, ALIAS, Value(lexical=acronym, datatype=XSD_NS + "string"), text, m.start("x"), m.end() - 1
                )

    def _of_patterns(self, text: str) -> Iterator[Fact]:
        """``the P of X (qualifier) is V``."""
        for m in _THE_P_OF.finditer(text):
            prop = self.vocabulary.property(m.group("phrase"))
            value = self._value(text, m.end(), prop)
            if value is None:
                continue
            obj, end = value
            if prop is None:
                if obj.name is not None or len(m.group("phrase").split()) > 2:
                    continue
                prop = self.vocabulary.mint_property(m.group("phrase"))
            name = _clean_name(m.group("x"))
            if name:
                yield self._fact(name, prop, obj, text, m.start(), end)

    def _roles(self, text: str) -> Iterator[Fact]:
        """``X is the P of Y`` and ``X, the P of Y,``: Y's P is X (ontology properties only)."""
        for pattern in _ROLES:
            for m in pattern.finditer(text):
                prop = self.vocabulary.property(m.group("phrase"))
                x, y = _clean_name(m.group("x")), _clean_name(m.group("y"))
                if prop is not None and prop.literal is not True and x and y:
                    yield self._fact(y, prop, Value(name=x), text, m.start("x"), m.end("y"))

    def _measures(self, text: str, subject: _Subject) -> Iterator[Fact]:
        """``X has a P of V``, ``X's P is V``, ``X has about N P``, ``X is N unit tall``."""
        for m in _HAS_A.finditer(text):
            prop = self.vocabulary.property(m.group("phrase"))
            value = self._value(text, m.end(), prop)
            if value is None or (prop is None and (value[0].name is not None or len(m.group("phrase").split()) > 2)):
                continue
            prop = prop or self.vocabulary.mint_property(m.group("phrase"))
            yield self._fact(subject, prop, value[0], text, m.start(), value[1])
        yield from self._possessed(text, subject)
        for m in _COUNTED.finditer(text):
            number = _quantity_at(text, m.end())
            if number is None or number.unit is not None:
                continue
            noun = re.match(r"\s+([a-z][\w\-]*)", text[number.end :])
            prop = self.vocabulary.property(noun.group(1)) if noun else None
            if prop is not None and noun is not None:
                yield self._fact(subject, prop, number_value(number, prop), text, m.start(), number.end + noun.end())
        for m in _IS_ABOUT.finditer(text):
            number = _quantity_at(text, m.end())
            if number is None or number.unit is None:
                continue
            adjective = re.match(r"\s+([a-z]+)\b", text[number.end :])
            if adjective is None:
                continue
            word = adjective.group(1)
            prop = self.vocabulary.property(word)
            if prop is None and word in _MEASURES:
                prop = self.vocabulary.property(_MEASURES[word]) or self.vocabulary.mint_property(_MEASURES[word])
            if prop is not None:
                yield self._fact(
                    subject, prop, number_value(number, prop), text, m.start(), number.end + adjective.end()
                )

    def _possessed(self, text: str, subject: _Subject) -> Iterator[Fact]:
        """``X's P is V``, ``Its P is V``."""
        for m in _POSSESSIVE.finditer(text):
            prop = self.vocabulary.property(m.group("phrase"))
            value = self._value(text, m.end(), prop)
            if prop is not None and value is not None:
                yield self._fact(subject, prop, value[0], text, m.start(), value[1])

    def _phrases_of(self, text: str, subject: _Subject | None) -> Iterator[Fact]:
        """A property phrase, then its object; the subject is the sentence's, or the name just
        before a parenthesis holding the phrase ("Masakazu Katsura (born ...)"); with no
        ``subject``, only the latter."""
        taken: list[tuple[int, int]] = []
        matches = [(m, key, prop) for pattern, key, prop in self._phrases for m in pattern.finditer(text)]
        # a phrase as written before one split by other words ("founded in 1847 by"), longest first
        matches.sort(key=lambda found: (len(found[0].group().split()) > len(found[1].split()), -len(found[0].group())))
        for m, _, prop in matches:
            if any(s <= m.start() and m.end() <= e for s, e in taken):
                continue
            if prop.literal is not True and _is_role(text, m.start()):
                continue  # "X is the capital of Y" is read by _roles
            found = self._value(text, m.end(), prop)
            owner = _parenthesised_owner(text, m.start()) or subject
            if found is None or owner is None:
                continue
            taken.append((m.start(), m.end()))
            for value, end in self._values(text, m.end(), prop, found):
                yield self._fact(owner, prop, value, text, m.start(), end)
        for generic in (_PASSIVE, _LIVES):
            for m in generic.finditer(text):
                if any(s <= m.start() and m.end() <= e for s, e in taken):
                    continue
                phrase = f"{m.group('verb')} {m.group('prep') or ''}".strip()
                if self.vocabulary.property(phrase) is not None or self.vocabulary.property(m.group("verb")):
                    continue  # an ontology phrase, read above (or refused there)
                found = self._value(text, m.end(), None)
                if found is None or (m.group("prep") == "by" and found[0].name is None):
                    continue
                if (
                    m.group("prep") in ("in", "on")
                    and found[0].name is not None
                    and m.group("verb") not in ("born", "located", "based", "headquartered", "died")
                ):
                    continue
                owner = _parenthesised_owner(text, m.start()) or subject
                if owner is None:
                    continue
                taken.append((m.start(), m.end()))
                prop = self.vocabulary.mint_property(phrase)
                for value, end in self._values(text, m.end(), prop, found):
                    yield self._fact(owner, prop, value, text, m.start(), end)

    # ------------------------------------------------------------------ values

    def _value(self, text: str, at: int, prop: Property | None) -> tuple[Value, int] | None:
        """The object starting at ``at``: a date, a quantity or an entity name (as ``prop``
        allows), and where it ends."""
        when = _date_at(text, at)
        if when is not None and (prop is None or prop.literal is not False):
            return Value(lexical=when.lexical, datatype=when.datatype), when.end
        number = _quantity_at(text, at)
        if number is not None and (prop is None or prop.literal is not False):
            return number_value(number, prop), number.end
        if prop is not None and prop.literal is True:
            return None
        start, chunk = _object_chunk(text, at)
        items = _items(chunk)
        if not items:
            return None
        first = items[0]
        name = _object_name(first, named=prop is None or prop.minted)
        if name is None:
            return None
        return Value(name=name), start + chunk.find(first) + len(first)

    def _values(self, text: str, at: int, prop: Property | None, first: tuple[Value, int]) -> list[tuple[Value, int]]:
        """The first object and the others of a list ("pain, fever and inflammation")."""
        if first[0].name is None:
            return [first]
        start, chunk = _object_chunk(text, at)
        items = _items(chunk)
        if len(items) < 2 or not re.search(r"\b(?:and|or)\b", chunk):
            return [first]
        out = []
        offset = 0
        for item in items:
            where = chunk.find(item, offset)
            offset = where + len(item)
            name = _object_name(item, named=prop is None or prop.minted)
            if name is not None:
                out.append((Value(name=name), start + offset))
        return out or [first]


# ---------------------------------------------------------------------- helpers


def number_value(number: Quantity, prop: Property | None) -> Value:
    """A number as a fact's object: in ``prop``'s unit when it has one the number converts to,
    else as written, with its unit."""
    if prop is not None and prop.unit is not None and number.unit is not None:
        converted = convert(number, prop.unit)
        if converted is not None:
            return Value(lexical=str(converted), datatype=XSD_NS + "decimal", unit=prop.unit)
    kind = "integer" if number.value == number.value.to_integral() else "decimal"
    return Value(lexical=str(number.value), datatype=XSD_NS + kind, unit=number.unit)


_BEFORE_DATE = re.compile(r"\s*(?:in|on|from|of)?\s*")
_SPACE = re.compile(r"\s*")


def _date_at(text: str, at: int) -> DateValue | None:
    m = _BEFORE_DATE.match(text, at)
    pos = m.end() if m else at
    for found in dates(text[pos : pos + 40]):
        return (
            DateValue(found.lexical, found.datatype, pos + found.start, pos + found.end) if found.start == 0 else None
        )
    return None


def _quantity_at(text: str, at: int) -> Quantity | None:
    m = _SPACE.match(text, at)
    pos = m.end() if m else at
    for found in quantities(text[pos : pos + 60]):
        return Quantity(found.value, found.unit, pos + found.start, pos + found.end) if found.start == 0 else None
    return None


def _object_chunk(text: str, at: int) -> tuple[int, str]:
    """Where the object after ``at`` starts (past "the", "patients with"), and its text up to
    what ends it (a clause, a preposition, a parenthesis)."""
    while at < len(text) and text[at].isspace():
        at += 1
    lead = _OBJECT_LEAD.match(text, at)
    start = lead.end() if lead else at
    stop = _OBJECT_STOP.search(text, start)
    return start, text[start : stop.start() if stop else len(text)]


def _items(chunk: str) -> list[str]:
    return [i.strip() for i in _LIST_SPLIT.split(chunk.strip()) if i.strip()]


def _object_name(item: str, *, named: bool) -> str | None:
    """An entity name from a list item: its capitalised name ("the Auvergne-Rhône-Alpes
    region" -> "Auvergne-Rhône-Alpes"), else the item itself when the property takes entities
    and it is short (``named``: only names, for a minted property)."""
    lead = _OBJECT_LEAD.match(item)
    item = item[lead.end() :] if lead else item
    if item[:1].isupper():
        found = _NAME_RE.match(item)
        return _clean_name(found.group()) if found else None
    found = _NAME_RE.search(item)
    if found is not None:
        # "the contractor Maurice Koechlin" names him; "the engineering company of Gustave
        # Eiffel" describes something else
        before = item[: found.start()].split()
        return None if before[-1:] in (["of"], ["for"], ["by"]) else _clean_name(found.group())
    if named or not item or len(item.split()) > 4 or not re.fullmatch(r"[\w\-' ]+", item):
        return None
    if len(item.split()) == 1 and item.endswith("ed"):
        return None  # "... and completed in 1889": a verb, not a second object
    return item


def _no_name(word: str) -> bool:
    """Whether a capitalised word opening a sentence is English, not a name: a plural ("Sites",
    "Patients") or a word that is no noun ("Serious", "Born", "Located"). A singular noun may be
    a name ("Aspirin", "Nitrate"); lemminflect's lexicon holds few names ("Paris", "Bergen")."""
    readings = _readings(word)
    if not readings:
        return False
    nouns = readings.get("NOUN")
    return nouns is None or word.lower() not in nouns


def _introduced(name: str, text: str) -> bool:
    """Whether a sentence opening with ``name`` reads as introducing what its document is
    about: the name is no English word ("Bell Rock Lighthouse", "Lyon"), or the sentence says
    what it is ("Aspirin is a painkiller"); not "Retention rose within two years"."""
    if " " in name or not _readings(name):
        return True
    return re.search(rf"\b{re.escape(name)}\s+{_BE}\s+(?:a|an|the)\b", text) is not None


def _readings(word: str) -> dict[str, tuple[str, ...]]:
    """What ``word`` can be in English, by lemminflect's lexicon: part of speech -> lemmas."""
    from lemminflect import getAllLemmas  # loads its lexicon on first use

    return dict(getAllLemmas(word.lower()))


def _clean_name(name: str) -> str:
    name = re.sub(r"^(?:The|the)\s+", "", name.strip())
    name = re.sub(r"[\s,.'\u2019]+$", "", name)
    return "" if name in _NO_NAMES else name


#: What a sentence's lead may be without being a name: an article, a pronoun, a preposition.
_NO_NAMES = frozenset(["", *"The It He She They We You I This These In On At A An".split()])


def _initials(name: str) -> str:
    return "".join(w[0].upper() for w in name.split() if w[:1].isupper())


def _is_acronym_of(acronym: str, name: str) -> bool:
    return _initials(name) == acronym.rstrip("s").upper()


def _is_role(text: str, at: int) -> bool:
    return re.search(rf"(?:\b{_BE}|,)\s+the\s+$", text[max(0, at - 20) : at]) is not None


def _parenthesised_owner(text: str, at: int) -> _Subject | None:
    """The name just before the parenthesis ``at`` is in ("Masakazu Katsura (born ...")."""
    open_at = text.rfind("(", 0, at)
    if open_at < 0 or text.rfind(")", 0, at) > open_at:
        return None
    before = re.search(rf"({_NAME})\s*$", text[:open_at])
    if before is None:
        return None
    name = _clean_name(before.group(1))
    return _Subject(name, before.start(1), before.end(1), False) if name else None


def _unique(facts: list[Fact]) -> list[Fact]:
    seen: set[tuple[str, str, Value]] = set()
    out = []
    for fact in facts:
        key = (fact.subject.casefold(), fact.predicate.iri, fact.object)
        if key not in seen:
            seen.add(key)
            out.append(fact)
    return out


__all__ = ["ALIAS", "RULES_VERSION", "RuleExtractor"]
