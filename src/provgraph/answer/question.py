"""What a question asks for: the type of its answer ("when" -> a date, "how many" -> a number,
"who" -> a person, "where" -> a place, "is ..." -> yes or no), and whether a text offers an
answer of that type that the question does not already hold.

>>> expects("Who built the Bell Rock Lighthouse?")
<Expects.PERSON: 'person'>
>>> expects("What is the half-life of chlorthalidone?"), expects("What was its annual budget?")
(<Expects.NUMBER: 'number'>, <Expects.NUMBER: 'number'>)
>>> offers("It was built between 1807 and 1810 by Robert Stevenson.", Expects.PERSON,
...        "Who built the Bell Rock Lighthouse?")
True
>>> offers("The lighthouse stands on the Bell Rock.", Expects.PERSON, "Who built the Bell Rock Lighthouse?")
False
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import lru_cache

from provgraph.answer.text import (
    NAME_CONNECTORS,
    STOP_WORDS,
    TIME_SPAN,
    YEAR,
    in_form,
    normalise,
    salient_names,
    tokens,
    without_article,
    without_possessive,
    word_readings,
    words,
)


class Expects(enum.StrEnum):
    """The type of answer a question asks for."""

    DATE = "date"
    NUMBER = "number"
    PERSON = "person"
    PLACE = "place"
    YES_NO = "yes-no"
    #: one of the things the question names ("... , A or B?")
    CHOICE = "choice"
    ANY = "any"


_DATE = re.compile(r"^\s*when\b|\b(what|which) (year|date|decade|century|month|day)\b|\bwhat time\b", re.I)
_NUMBER = re.compile(
    r"\bhow (many|much|tall|old|long|high|large|big|far|deep|wide|heavy|fast)\b|"
    r"\bwhat (is|was|are|were) (?:the|its|their)\s+(?:\w+\s+)?(population|number|area|height|length|capacity|age|"
    r"half-life|weight|mass|price|cost|dose|dosage|salary|temperature|speed|depth|width|distance|radius|"
    r"diameter|volume|budget)\b",
    re.I,
)
_PERSON = re.compile(
    # "Who should not take Cardenol?" asks for whom it does not suit (those with severe asthma ...),
    # "Who can apply for the grant?" who is eligible (registered charities ...), not a name
    r"^\s*(who|whom|whose)\b(?!\s+(?:should|must|can|may|cannot)\s+(?:not\s+)?(?:take|use|receive|get|be given|"
    r"apply|join|vote|attend|enter|claim|register|qualify)\b|\s+(?:is|are)\s+eligible\b)"
    r"|\b(which|what) (person|man|woman|actor|actress|singer|author|writer|director)\b",
    re.I,
)
_PLACE = re.compile(
    r"^\s*where\b|\b(which|what) (city|cities|country|countries|state|states|town|towns|county|counties|region|"
    r"regions|place|places)\b",
    re.I,
)
#: "located in Germany": the place a question asks a thing to be in (being there is all it asks
#: of it; a passage putting the thing "in ..., Germany" says it without "located").
PLACED_IN = re.compile(r"\b(located|situated)\s+in\s+(?:the\s+)?([A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)")
_YES_NO = re.compile(r"^\s*(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I)
#: "Who is older, Annie Morton or Terry Richardson?": the answer is one of the two named.
_CHOICE = re.compile(r",[^,?]+\bor\b[^,?]+\?\s*$|:[^:?]+\bor\b[^:?]+\?\s*$", re.I)

#: A year as a date: after a preposition of time or a month ("in 2031", "15 July 2024").
_DATED_YEAR = re.compile(
    r"\b(?:in|since|by|until|till|from|to|before|after|of|during|around|circa|c\.|january|february|march|april|"
    r"may|june|july|august|september|october|november|december)\s+(?:\d{1,2},?\s+)?(?:1\d{3}|20\d{2})\b",
    re.I,
)
#: A span of time from an event: "within one month", "after 2 weeks", "every six hours", "12 to
#: 14 days after the operation".
_WITHIN = re.compile(
    rf"\b(?:within|after|every|for|in)\s+{TIME_SPAN}|\b{TIME_SPAN}\s+(?:after|before|following)\b", re.I
)
#: "added in version 2.3", "removed in 3.0": when, in software's own reckoning.
_IN_VERSION = re.compile(r"\b(?:in|since|until|from)\s+(?:(?:version|release)\s+|v)?\d+\.\d+(?:\.\d+)*\b", re.I)
#: "How much is Halvorsen paying ...?", "How much did it cost?": an amount of money.
_MONEY_ASKED = re.compile(
    r"\bhow much\b(?:\s+\w+){0,6}?\s+(?:pay|pays|paid|paying|cost|costs|costing|spend|spends|spent|spending|"
    r"charge|charges|charged|earn|earns|earned|raise|raised|worth)\b",
    re.I,
)
#: An amount of money: a currency's sign or name with a number ("2.1 billion euros", "$40 million"),
#: or a price's field ("Price: 799").
_MONEY = re.compile(
    r"[$\u20ac\u00a3\u00a5]\s?\d|\d\s*(?:(?:thousand|million|billion|trillion|bn|m|k)\s+)?"
    r"(?:euros?|dollars?|pounds?|yen|yuan|francs?|kron[aeo]r?|rupees?|pesos?|usd|eur|gbp|chf|nok|sek|dkk)\b"
    r"|\b(?:price|cost|fee)s?:\s*\d"
    # "Admission is free.", "free of charge": a price of nothing
    r"|\b(?:is|are|was|were|be|go|goes|travel|enter)\s+free\b|\bfree\s+of\s+charge\b|\bno\s+charge\b",
    re.I,
)
#: "7 am", "9.30 pm", "16:00", "on Saturday": a time by the clock or the day of the week.
_CLOCK = re.compile(
    r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b(?:[01]?\d|2[0-3]):[0-5]\d\b|"
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
    re.I,
)
#: "in the morning", "at bedtime", "before meals": when in a day something is done.
_TIME_OF_DAY = re.compile(
    r"\b(?:in the (?:morning|afternoon|evening)|at (?:night|bedtime|noon|midnight)|"
    r"(?:before|after|with) (?:breakfast|lunch|dinner|meals?|food|going to bed))\b",
    re.I,
)
_MONTHS = "january february march april may june july august september october november december".split()
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand "
    "million billion dozen".split()
)
#: Capitalised words that start a sentence or a clause without naming anyone.
_NOT_NAMES = frozenset(
    "the a an it its he she his her they their this that these those in on at of for and but by from as "
    "with after before during since when while where which who what there here".split()
)


def expects(question: str) -> Expects:
    """The type of answer ``question`` asks for (the first rule that matches, in the order of the
    enum, a choice first; ``ANY`` when none does)."""
    if _CHOICE.search(question) or _or_compared(question) is not None:
        return Expects.CHOICE
    if _DATE.search(question):
        return Expects.DATE
    if _NUMBER.search(question):
        return Expects.NUMBER
    if _PERSON.search(question):
        return Expects.PERSON
    if _PLACE.search(question):
        return Expects.PLACE
    if _YES_NO.search(question):
        return Expects.YES_NO
    return Expects.ANY


#: "How much gallium was produced ...?": an amount of a thing ("How much of ..." asks a share).
_AMOUNT_OF = re.compile(
    r"^\s*how\s+much\s+(?!(?:of|more|less|longer|is|was|are|were|did|does|do|has|have|will|can)\b)[a-z]+\s+"
    r"(?:is|was|are|were|has|have|had|did|does|do|will|can)\b",
    re.I,
)
#: A share, which is no amount: "98 percent", "12.5%".
_PERCENT = re.compile(r"\d[\d.,]*\s*(?:%|per\s?cent\b)", re.I)


def offers(text: str, expected: Expects, question: str) -> bool:
    """Whether ``text`` holds an answer of the ``expected`` type that ``question`` does not:
    a year, a month, a span of time from an event, a version or a time of day (date), a number, a name of capitalised
    words (person, place). Yes/no, choices and other questions: any text may answer them.

    >>> when = "When should patients starting a new drug be reassessed?"
    >>> offers("They should be reassessed within one month.", Expects.DATE, when)
    True
    >>> offers("They should be reassessed by a nurse.", Expects.DATE, when)
    False
    >>> offers("They are removed 12 to 14 days after the operation.", Expects.DATE, when)
    True
    >>> offers("It is open from 7 am to 4 pm.", Expects.DATE, "When is the bakery open?")
    True
    >>> offers("It was added in version 2.3.", Expects.DATE, "When was fetch_records added?")
    True
    >>> offers("It will pay 60 percent in cash.", Expects.NUMBER, "How much is Halvorsen paying?")
    False
    """
    asked = set(words(question))
    if expected is Expects.DATE:
        # a year or a month; or a time from now ("reassessed within one month")
        return (
            any((YEAR.fullmatch(w) or w in _MONTHS) and w not in asked for w in words(text))
            or (_WITHIN.search(text) is not None and _WITHIN.search(question) is None)
            or (_IN_VERSION.search(text) is not None and _IN_VERSION.search(question) is None)
            or (_TIME_OF_DAY.search(text) is not None and _TIME_OF_DAY.search(question) is None)
            or (_CLOCK.search(text) is not None and _CLOCK.search(question) is None)
        )
    if expected is Expects.NUMBER:
        if _MONEY_ASKED.search(question) and not _MONEY.search(text):
            return False  # "How much is Halvorsen paying ...?": an amount of money, not "60 percent"
        if _MONEY_ASKED.search(question) and _MONEY.search(text) and not any(c.isdigit() for c in text):
            return True  # "Admission is free.
        if _AMOUNT_OF.search(question):
            text = _PERCENT.sub(" ", text)  # "How much gallium was produced?": an amount, not "98 percent" of it
        # a year after "in", "since" ... dates, it counts nothing ("Its main patent expires in 2031")
        counted = _DATED_YEAR.sub(" ", text) if re.search(r"\bhow many\b", question, re.I) else text
        return any((w[0].isdigit() or w in _NUMBER_WORDS) and w not in asked for w in words(counted))
    if expected is Expects.PERSON:
        # "Who was Jim Obergefell's husband?": not Jim Obergefell
        asked |= {without_possessive(w) for w in asked}
        return any(name not in asked for name in _names(text, people=True))
    if expected is Expects.PLACE:
        return any(name not in asked for name in _names(text))
    return True


def calendar_date(text: str) -> bool:
    """Whether ``text`` names a year or a month: a date on the calendar, which says when an
    event happens better than a day of the week or a time by the clock ("From 5 January 2027,
    Route 42 will run ..." before "On Sundays, the service runs every hour.")."""
    return any(YEAR.fullmatch(w) or w in _MONTHS for w in words(text))


class Order(enum.StrEnum):
    """Which side of a comparison wins: the one with the smaller or the larger figure."""

    LEAST = "least"
    MOST = "most"


@dataclass(frozen=True)
class Comparison:
    """A choice between things the question names, decided by a figure: a year (``dated``) or a
    number, the least or the most (``order``); ``word``: the question's comparative."""

    options: tuple[str, ...]
    word: str
    dated: bool
    order: Order
    #: what the question says of the one it asks for, from its verb: "was born earlier"
    said: str | None = None
    #: whether it asks yes or no of the first option ("Is A older than B?"), not which one
    yes_no: bool = False


_COMPARATIVES = {
    # a year: born or made earlier is older
    "older": (True, Order.LEAST),
    "earlier": (True, Order.LEAST),
    "first": (True, Order.LEAST),
    "oldest": (True, Order.LEAST),
    "younger": (True, Order.MOST),
    "later": (True, Order.MOST),
    "youngest": (True, Order.MOST),
    "newer": (True, Order.MOST),
    # a number
    "more": (False, Order.MOST),
    "larger": (False, Order.MOST),
    "bigger": (False, Order.MOST),
    "higher": (False, Order.MOST),
    "taller": (False, Order.MOST),
    "longer": (False, Order.MOST),
    "fewer": (False, Order.LEAST),
    "less": (False, Order.LEAST),
    "smaller": (False, Order.LEAST),
    "shorter": (False, Order.LEAST),
    "lower": (False, Order.LEAST),
    "heavier": (False, Order.MOST),
    "lighter": (False, Order.LEAST),
    "cheaper": (False, Order.LEAST),
    "wider": (False, Order.MOST),
    "deeper": (False, Order.MOST),
}
_VERB = re.compile(r"\b(is|was|are|were|has|had)\b", re.I)
_OPTIONS = re.compile(r"[,:]\s*([^,:?]+?)\s+or\s+([^,:?]+?)\s*\?\s*$")


def comparison(question: str) -> Comparison | None:
    """The comparison a choice question asks for ("Who is older, Annie Morton or Terry
    Richardson?": the earlier year of the two; "Is Annie Morton or Terry Richardson older?"), or
    a yes/no question comparing the first of two things with the second ("Is Annie Morton older
    than Terry Richardson?", "... born before ...?"), or None.

    >>> asked = comparison("Who was born earlier, Emma Bull or Virginia Woolf?")
    >>> asked.options, asked.dated, asked.order.value, asked.said
    (('Emma Bull', 'Virginia Woolf'), True, 'least', 'was born earlier')
    """
    found = _OPTIONS.search(question)
    if found is None:
        return _than(question) or _or_compared(question)
    head = words(question[: found.start()])
    word = next((w for w in head if w in _COMPARATIVES), None)
    if word is None:
        return None
    options = choices(question)
    assert options is not None
    dated, order = _COMPARATIVES[word]
    if word == "more" and {"recent", "recently"} & set(head):
        dated = True
    verb = _VERB.search(question[: found.start()])
    said = question[verb.start() : found.start()].strip() if verb else None
    return Comparison(options, word, dated, order, said)


#: "Is Velvet Rain older than Paper Moons?", "Does Velvet Rain have more members than Paper Moons?":
#: a yes/no question comparing the thing it asks of with another.
_THAN = re.compile(
    r"^\s*(?P<aux>(?i:is|are|was|were|does|do|did|has|have|had))\s+(?P<a>.+?)\s+(?P<said>(?:[a-z]+\s+){0,2}?"
    rf"(?P<word>{'|'.join(_COMPARATIVES)})(?:\s+[A-Za-z]+){{0,3}}?)\s+than\s+(?P<b>.+?)\s*\?\s*$"
    # "Was Paul Okafor born before Marta Lindqvist?": earlier
    r"|^\s*(?P<aux2>(?i:is|are|was|were|did))\s+(?P<a2>.+?)\s+(?P<said2>(?:[a-z]+\s+){1,2}?)"
    r"(?P<word2>before|after)\s+(?P<b2>.+?)\s*\?\s*$"
)
_BEFORE = {"before": "earlier", "after": "later"}


def _than(question: str) -> Comparison | None:
    """The comparison of a yes/no question asking whether one thing is more than another, its
    ``options`` the one it asks of first (``yes_no``), or None.

    >>> asked = comparison("Does Velvet Rain have more members than Paper Moons?")
    >>> asked.options, asked.dated, asked.order.value, asked.said, asked.yes_no
    (('Velvet Rain', 'Paper Moons'), False, 'most', 'has more members', True)
    >>> comparison("Was Emma Bull born earlier than Virginia Woolf?").said
    'was born earlier'
    >>> asked = comparison("Was Virginia Woolf born before Emma Bull?")
    >>> asked.options, asked.dated, asked.order.value, asked.said
    (('Virginia Woolf', 'Emma Bull'), True, 'least', 'was born earlier')
    """
    found = _THAN.match(question)
    if found is None:
        return None
    part = {k.rstrip("2"): v for k, v in found.groupdict().items() if v is not None}
    first = without_article(part["a"])
    a = " ".join(_leading_name(_tokens_of(first)))
    b = " ".join(_leading_name(_tokens_of(without_article(part["b"]))))
    if not a or not b or a != first or b.isdigit():
        return None  # "Was Loravex approved before 2020?" compares no two things
    word = _BEFORE.get(part["word"].lower(), part["word"].lower())
    dated, order = _COMPARATIVES[word]
    aux, said = part["aux"].lower(), part["said"].strip()
    if part["word"].lower() in _BEFORE:
        said = f"{said} {word}"
    if aux in ("does", "do", "did"):
        # "Does Velvet Rain have more members": "has more members" of the one that does
        said = in_form(said, "VBD" if aux == "did" else "VBZ")
    else:
        said = f"{_SINGULAR.get(aux, aux)} {said}"
    return Comparison((a, b), word, dated, order, said, yes_no=True)


_SINGULAR = {"are": "is", "were": "was", "have": "has"}
#: "Is Marta Lindqvist or Paul Okafor older?", "Was Emma Bull or Virginia Woolf born earlier?"
_OR_COMPARED = re.compile(
    r"^\s*(?P<aux>is|are|was|were)\s+(?:the\s+)?(?P<a>.+?)\s+or\s+(?:the\s+)?(?P<b>.+?)\s+"
    rf"(?P<word>{'|'.join(_COMPARATIVES)})\s*\?\s*$",
    re.I,
)


@lru_cache(maxsize=256)
def _or_compared(question: str) -> Comparison | None:
    """The comparison of a question asking which of two things it names first is more
    ("Is Marta Lindqvist or Paul Okafor older?"), or None.

    >>> asked = comparison("Was Emma Bull or Virginia Woolf born earlier?")
    >>> asked.options, asked.said, choices("Is Mount Kerel or Mount Vesna taller?")
    (('Emma Bull', 'Virginia Woolf'), 'was born earlier', ('Mount Kerel', 'Mount Vesna'))
    """
    found = _OR_COMPARED.match(question)
    if found is None:
        return None
    a = " ".join(_leading_name(_tokens_of(found.group("a"))))
    b = " ".join(_leading_name(_tokens_of(found.group("b"))))
    between = found.group("b")[len(b) :].strip()
    if not a or a != found.group("a") or not b or (between and not between.islower()):
        return None
    word = found.group("word").lower()
    dated, order = _COMPARATIVES[word]
    aux = found.group("aux").lower()
    said = " ".join(x for x in (_SINGULAR.get(aux, aux), between, word) if x)
    return Comparison((a, b), word, dated, order, said)


@dataclass(frozen=True)
class Pair:
    """A yes/no question about two things it names: whether both are something ("Are Ferocactus
    and Silene both types of plant?": ``rest`` "types of plant") or whether they share a kind of
    value ("Were Scott Derrickson and Ed Wood of the same nationality?": ``same`` "nationality")."""

    options: tuple[str, str]
    #: the question's verb, lower case: "are", "were", "do" ...
    verb: str
    #: what the question says of both, without "both": "types of plant", "of the same nationality"
    rest: str
    same: str | None = None

    @property
    def copula(self) -> bool:
        """Whether the verb is a form of "be" (it stays in the statement: "A and B are ...")."""
        return self.verb in ("is", "are", "was", "were")


_PAIR = re.compile(r"^\s*(is|are|was|were|do|does|did)\s+(?:both\s+)?(.+?),?\s+and\s+(.+?)\s*\?\s*$", re.I)
_SAME = re.compile(r"\bsame\s+(?:[a-z]+\s+)??([a-z]+)\b", re.I)


def pair(question: str) -> Pair | None:
    """The two things a yes/no question names and what it asks of them, or None.

    >>> pair("Are Random House Tower and 888 7th Avenue both used for real estate?")
    Pair(options=('Random House Tower', '888 7th Avenue'), verb='are', rest='used for real estate', same=None)
    >>> pair("Are Yingkou and Fuding the same level of city?").same
    'level'
    >>> pair("Are the Harbor Hawks and the Bay Lions both basketball teams?").options
    ('Harbor Hawks', 'Bay Lions')
    """
    found = _PAIR.match(question)
    if found is None:
        return None
    first = _tokens_of(found.group(2))
    # "Are the Harbor Hawks and the Bay Lions both ...?": the second name's article is none of it
    second = _tokens_of(without_article(found.group(3)))
    a = _trailing_name(first)
    b = _leading_name(second)
    if not a or not b:
        return None
    rest = " ".join(second[len(b) :])
    rest = re.sub(r"^both\s+", "", rest, flags=re.I).strip()
    if not rest:
        return None
    same = _SAME.search(rest)
    return Pair((" ".join(a), " ".join(b)), found.group(1).lower(), rest, same.group(1).lower() if same else None)


def _tokens_of(text: str) -> list[str]:
    """``text`` split at spaces, without the commas at the ends of its words."""
    return [t.strip(",") for t in text.split() if t.strip(",")]


def _name_word(token: str) -> bool:
    return token[:1].isupper() or token[:1].isdigit()


def _leading_name(tokens: list[str]) -> list[str]:
    """The run of capitalised words (and the connectors between them) ``tokens`` start with."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        if _name_word(token):
            out.append(token)
            continue
        following = next((t for t in tokens[i:] if t.lower() not in NAME_CONNECTORS), "")
        if not out or token.lower() not in NAME_CONNECTORS or not _name_word(following):
            break
        out.append(token)
    return out


def _trailing_name(tokens: list[str]) -> list[str]:
    """The run of capitalised words ``tokens`` end with ("the drinks Gibson": "Gibson")."""
    start = len(tokens)
    while start > 0 and (
        _name_word(tokens[start - 1]) or (tokens[start - 1].lower() in NAME_CONNECTORS and start < len(tokens))
    ):
        start -= 1
    while start < len(tokens) and not _name_word(tokens[start]):
        start += 1
    return tokens[start:]


def choices(question: str) -> tuple[str, ...] | None:
    """The things a choice question names to choose from, without their articles, or None.

    >>> choices("Which dog's ancestors include Gordon and Irish Setters: the Manchester Terrier or the Scotch Collie?")
    ('Manchester Terrier', 'Scotch Collie')
    """
    found = _OPTIONS.search(question)
    if found is None:
        compared = _or_compared(question)
        return compared.options if compared is not None else None
    return tuple(without_article(o.strip()) for o in found.groups())


_FIGURE_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")
#: Numbers a text may spell ("Mars has two moons").
NUMBER_WORDS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
#: ... as a count of something ("two moons", not "one of the largest").
_FIGURE_NUMBER = re.compile(
    rf"(?<![\w.])\d[\d,]*(?:\.\d+)?|\b(?i:{'|'.join(NUMBER_WORDS)})\b(?=\s+(?!(?:of|or|and|another)\b)[a-z])"
)


#: Words of a question asking what a thing is ("What kind of drug is ...?").
KIND_WORDS = frozenset("kind kinds type types sort sorts class classes category categories".split())
_KIND_OF = re.compile(
    r"\b(?:kind|type|sort|class|category)s?\s+of\s+(?P<kind>[\w-]+)"
    r"(?:[\w\s-]*?\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(?P<thing>[^?]+))?",
    re.I,
)


@dataclass(frozen=True)
class KindAsked:
    """What a question asking a thing's kind reads: the kind ("drug") and, normalised, the thing
    ("amoxicillin"; "" when the question does not say it after "is")."""

    kind: str
    thing: str


def kind_asked(question: str) -> KindAsked | None:
    """The kind a question asks a thing to be, or None.

    >>> kind_asked("What kind of drug is amoxicillin?")
    KindAsked(kind='drug', thing='amoxicillin')
    """
    found = _KIND_OF.search(question)
    if found is None:
        return None
    return KindAsked(" ".join(words(found.group("kind"))), " ".join(words(found.group("thing") or "")))


def figure(text: str, *, dated: bool) -> str | None:
    """The first year (``dated``) or number of ``text`` as written (in digits, or a word up to
    twenty), or None.

    >>> figure("Annie Morton (born October 8, 1970) is an American model.", dated=True)
    '1970'
    >>> figure("Mars has two moons, Phobos and Deimos.", dated=False)
    'two'
    >>> figure("It is one of the largest cities, with 2,100,000 people.", dated=False)
    '2,100,000'
    """
    found = (_FIGURE_YEAR if dated else _FIGURE_NUMBER).search(text)
    return found.group().rstrip(",") if found else None


def figure_value(said: str) -> float:
    """The value of a figure as :func:`figure` reads it: "3,350" is 3350, "two" is 2."""
    return float(NUMBER_WORDS.get(said.lower(), said.replace(",", "")))


def year_bound(question: str) -> tuple[str, int] | None:
    """The year a yes/no question bounds a date by, and how ("before", "after", "by", "until"):
    a bound, not a thing the evidence must name.

    >>> year_bound("Was Helix 24.07 released before 2024?"), year_bound("Was it released in 2024?")
    (('before', 2024), None)
    """
    found = _BOUND.search(question) if expects(question) is Expects.YES_NO else None
    return (found.group(1).lower(), int(found.group(2))) if found else None


_BOUND = re.compile(r"\b(before|after|by|until)\s+(\d{4})\b", re.I)


def _names(text: str, *, people: bool = False) -> list[str]:
    """The capitalised words of ``text`` that are not its first word nor a common sentence opener,
    normalised: candidate names. With ``people``, not a name of one word after "in", "of" ...:
    "the state of Ohio" names no one."""
    out = []
    said = tokens(text)
    for i, token in enumerate(said):
        if i > 0 and token[:1].isupper() and normalise(token) not in _NOT_NAMES:
            alone = not said[i - 1][:1].isupper() and not (i + 1 < len(said) and said[i + 1][:1].isupper())
            if people and alone and said[i - 1].lower() in _PLACE_BEFORE:
                continue
            out.append(normalise(token))
    return out


#: Words before a one-word name that make it a place: "in Ohio", "the state of Ohio".
_PLACE_BEFORE = frozenset("in of at near from to into across".split())


#: "How much butter ...", "How many aftershocks ...": what is measured or counted.
#: ("How many museums and canals ...": one of them is still an answer)
_MEASURED = re.compile(r"^\s*how\s+(?:much|many)\s+([a-z][a-z-]+)\b(?!\s+(?:and|or)\b)", re.I)
#: "Who discovered germanium?", "What causes scurvy?", "Who pays shipping costs?": what the
#: question's verb acts on, when the question ends with it.
_ACTED_ON = re.compile(
    # (an auxiliary acts on nothing: "What does aspirin reduce?")
    r"^\s*(?:who|what)\s+(?!(?:does|is|was|has|says)\b)[a-z]+(?:ed|es|s)\s+"
    r"(?:the\s+|an?\s+)?(?:[a-z]+\s+)?([a-z][a-z-]+)\s*\?*\s*$",
    re.I,
)
#: "Is vancomycin recommended ...?", "Does gallium expand ...?": what a yes/no question is about.
_ASKED_OF = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have)\s+(?:the\s+|an?\s+)?"
    r"([a-z][a-z-]+)\s+[a-z]",
    re.I,
)


#: "How strong will the gusts be?", "How old is the building?": what a measure is asked of.
_MEASURE_OF = re.compile(
    r"^\s*how\s+(?!much\b|many\b)[a-z]+\s+(?:is|are|was|were|will|would)\s+(?:the\s+|an?\s+)?([a-z][a-z-]+)\s*(?:be\s*)?\?*\s*$",
    re.I,
)


#: "When does the exhibition close?", "When will my stitches be removed?": what a question about
#: an event's time or place asks of.
_EVENT_OF = re.compile(
    r"^\s*(?:when|where)\s+(?:does|did|do|will|is|was|are|were|can|should|has|have)\s+"
    r"(?:the|an?|my|your|our|their)\s+([a-z][a-z-]+)\s+(?:be\s+)?[a-z]+\s*\?*\s*$",
    re.I,
)


#: "Who is the head baker?": the role a "who" question asks the holder of.
_ROLE = re.compile(
    r"^\s*who\s+(?:is|was|are|were)\s+(?:the|our|your|their)\s+(?:[a-z-]+\s+){0,2}([a-z-]+)\s*\?*\s*$", re.I
)


def topics(question: str) -> list[str]:
    """The lower-case words that say what ``question`` is about by where they stand (what is
    measured or counted, what its verb acts on, what a yes/no question asks of, when or where
    what happens to, whose role a "who" question asks the holder of): evidence that
    never says them is about something else, however many of the question's other words it
    holds ("Who discovered germanium?" is not answered by who discovered gallium). Names are
    :func:`~provgraph.answer.text.salient_terms`' to check.

    >>> topics("Who discovered germanium?"), topics("How much butter is in the cake?")
    (['germanium'], ['butter'])
    >>> topics("Is vancomycin recommended for outpatients?"), topics("Who built the Bell Rock Lighthouse?")
    (['vancomycin'], [])
    >>> topics("What does aspirin reduce?")  # "does" is no verb acting on "aspirin"
    []
    >>> topics("How strong will the gusts be?"), topics("Has anyone been injured?")
    (['gusts'], [])
    >>> topics("When does the exhibition close?"), topics("When will my stitches be removed?")
    (['exhibition'], ['stitches'])
    >>> topics("Who is the head baker?")
    ['baker']
    """
    patterns = (_MEASURED, _ACTED_ON, _ASKED_OF, _MEASURE_OF, _EVENT_OF, _ROLE)
    found = [pattern.match(question) for pattern in patterns]
    said = [m.group(1) for m in found if m is not None and m.group(1).islower()]
    # "time-restricted" is said as its words; "How many people does it serve?" asks a count
    # that "Serves: 8" gives without saying whom
    return [w for t in said for w in t.split("-") if w not in STOP_WORDS and w not in _COUNTED | INDEFINITE]


#: "Has anyone been injured?": who is asked of is anyone at all.
INDEFINITE = frozenset(
    "anyone anybody anything someone somebody something everyone everybody everything nobody nothing".split()
)
#: What "how many" counts without the answer having to say it: people, spans of time, and a
#: table's games ("Won: 19").
_COUNTED = frozenset(
    "people persons individuals times years months weeks days hours minutes seconds games matches".split()
)


@dataclass(frozen=True)
class Described:
    """A thing a question names by what it is to a name ("the designer of the Harbour Bridge",
    "the engineer who designed the Harbour Bridge", "the town where the Old Mill Bridge stands"),
    and what it asks of that thing."""

    #: the description, as words: "the designer of the harbour bridge"
    words: tuple[str, ...]
    #: the names it holds: ("harbour bridge",)
    names: tuple[str, ...]
    #: the question's content words outside it (names and the description's words aside):
    #: ("study",) of "Where did the designer of the Harbour Bridge study?"
    asked: tuple[str, ...]


#: Words after a thing's noun that say what it is to a name: "of", or a relative pronoun.
_RELATIVE = frozenset("who whom whose that which where when".split())
_SUBJECT_RELATIVE = frozenset("who that which".split())
#: Words between two names of one description ("from Kelston to Brackley").
_NAME_LINKS = frozenset("to and of in from".split())


def described(question: str) -> Described | None:
    """The last thing ``question`` names by what it is to one of its names, or None.

    >>> d = described("Where did the designer of the Harbour Bridge study?")
    >>> d.words, d.names, d.asked
    (('the', 'designer', 'of', 'the', 'harbour', 'bridge'), ('harbour bridge',), ('study',))
    >>> described("Whom did the engineer who designed the Harbour Bridge marry?").asked
    ('marry',)
    >>> described("How long is the river that the Old Mill Bridge crosses?").asked
    ('long',)
    >>> described("Who built the Old Mill Bridge?") is None
    True
    """
    said = words(question)
    names = [n.split() for n in salient_names(question)]
    spans = sorted((i, i + len(n)) for n in names for i in range(len(said) - len(n) + 1) if said[i : i + len(n)] == n)
    best: tuple[int, int] | None = None
    for at, word in enumerate(said):
        if word != "the" or at + 2 >= len(said):
            continue
        # the thing's noun, one or two words ("the football manager who ..."), then "of" or "who"
        for size in (1, 2, 3):
            joint = at + 1 + size
            if joint >= len(said) or (said[joint] != "of" and said[joint] not in _RELATIVE):
                continue
            readings = word_readings(said[joint - 1])  # (the lexicon lacks some nouns: "county")
            if (readings and "NOUN" not in readings) or any(s < joint < e for s, e in spans):
                continue
            after = [(s, e) for s, e in spans if s > joint]
            if not after or after[0][0] - joint > 4:
                continue
            end = after[0][1]
            # "from Kelston to Brackley", "East Lempster, New Hampshire": the names it goes on with
            for s, e in after[1:]:
                if s >= end and all(w in _NAME_LINKS for w in said[end:s]):
                    end = max(end, e)
            if (said[joint] in _RELATIVE and said[joint] not in _SUBJECT_RELATIVE) or (
                said[joint] in _SUBJECT_RELATIVE and "VERB" not in word_readings(said[joint + 1])
            ):
                # "the town where the Old Mill Bridge stands": the clause's verb after its name
                named_end = end
                while end < len(said) and end - named_end < 2 and {"VERB", "AUX"} & set(word_readings(said[end])):
                    end += 1
            best = (at, end)
            break
    if best is None:
        return None
    start, end = best
    inside = said[start:end]
    named = {w for n in names for w in n}
    asked = tuple(
        dict.fromkeys(
            w
            for i, w in enumerate(said)
            if not start <= i < end and w not in STOP_WORDS and w not in named and w not in inside
        )
    )
    held = tuple(" ".join(n) for n in names if any(inside[i : i + len(n)] == n for i in range(len(inside))))
    return Described(words=tuple(inside), names=held, asked=asked)


#: The endings of a noun naming what happens to a thing ("the shooting of Salt Flats", "the
#: construction of the bridge"), not another thing.
_EVENT_NOUN = re.compile(r"(?:ing|tion|sion|ment|ance|ence)$")


def thing_of(thing: Described, *, events: bool = False) -> tuple[str, ...]:
    """The words of the thing a question names as a thing of a name ("capital" of "the capital
    of Norland"), stop words aside; none for a description by a clause, or, unless ``events``,
    for what happens to the name ("the shooting of Salt Flats").

    >>> thing_of(described("What is the population of the capital of Norland?"))
    ('capital',)
    >>> thing_of(described("How many days did the shooting of Salt Flats take?"))
    ()
    """
    if "of" not in thing.words:
        return ()
    said = tuple(w for w in thing.words[: thing.words.index("of")] if w not in STOP_WORDS)
    return () if not events and any(_EVENT_NOUN.search(w) for w in said) else said


__all__ = [
    "INDEFINITE",
    "KIND_WORDS",
    "NUMBER_WORDS",
    "PLACED_IN",
    "Comparison",
    "Described",
    "Expects",
    "KindAsked",
    "Order",
    "Pair",
    "calendar_date",
    "choices",
    "comparison",
    "described",
    "expects",
    "figure",
    "kind_asked",
    "offers",
    "pair",
    "thing_of",
    "topics",
    "year_bound",
]
