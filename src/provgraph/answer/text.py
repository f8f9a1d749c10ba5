"""The words of questions and evidence, compared alike: normalised words and what their
inflections share (:func:`word_key`), the names a question is about, the denials a text makes
(:func:`denials_of`), acronyms spelt out, whether a property's label reads as a verb, and terms as
a reader wants them. Shared by the retriever, the generators and the verifier."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import pairwise, takewhile

import snowballstemmer

from provgraph.ingest.text import SECTION_SEPARATOR, release_heading

STOP_WORDS = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being do does did
    what which who whom whose when where why how that this these those it its as than then there their
    they he she his her him i you we our your my me us not no yes if about into over under between
    both either neither each any all some many much more most less least first last same other also
    same own so such can could would should will shall may might must has have had having one two
    name named called known""".split()
)
#: Pronouns a sentence may open with for the thing or person it is about.
PRONOUNS = frozenset("It He She They Its His Her Their".split())
#: Lower-case words that may join the capitalised words of one name (a case's parties too:
#: "Obergefell v. Hodges").
NAME_CONNECTORS = frozenset("of for the de la le von van der del da du in on at to v vs".split())
#: Capitalised words that start a question or a name without being part of it.
_LEADING = frozenset("what which who whom whose when where why how is are was were do does did the a an in on".split())
#: Verbs a yes/no question may open with that are no part of the name after them.
_MODALS = frozenset("can could would should shall must might has have had".split())
#: Words that start a question or a request without naming anything.
_SENTENCE_START = (
    STOP_WORDS
    | _LEADING
    | frozenset(
        """tell name list give describe find show compare explain identify summarise summarize please define
    according in on at during after before since besides apart except like unlike among between aside
    despite although though while whereas given considering""".split()
    )
    # question words of other languages, for a question asked in them ("¿Cuál es ...?")
    | frozenset(
        """cual cuales que quien quienes donde cuando como cuanto cuanta cuantos cuantas quel quelle quels
    quelles qui ou quand comment combien welche welcher welches wer wo wann wie was wieviel qual quais quem
    onde quando quanto quanta quale quali chi dove come wat welke waar wanneer hoe hoeveel""".split()
    )
)
#: Capitalised abbreviations whose period does not end a name ("St. Andre", "Dr. Who").
_ABBREVIATIONS = frozenset("St Dr Mr Mrs Ms Jr Sr Mt Ft Gen Col Capt Lt Sgt Prof Rev".split())
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
#: A year, or a decade ("1990s").
YEAR = re.compile(r"(?:1\d{3}|20\d{2})s?")
#: A count of a unit of time: "three years", "2 weeks", "a month".
TIME_SPAN = (
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|\d+)"
    # a range: "3 to 5 days", "2-4 weeks"
    r"(?:\s*(?:to|-|\u2013|or)\s*(?:two|three|four|five|six|seven|eight|nine|ten|twelve|\d+))?"
    r"\s+(?:minute|hour|day|week|month|year)s?\b"
)
_THOUSANDS = re.compile(r"(?<=\d)[,\u00a0\u202f](?=\d{3}(?!\d))")


def normalise(text: str) -> str:
    """Casefolded, without diacritics: how evidence and questions are compared."""
    return _without_marks(text).casefold()


def _without_marks(text: str) -> str:
    # a combining mark inside a word (a stress mark in a Russian name) would otherwise split it
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def word_matches(text: str) -> Iterator[re.Match[str]]:
    """The words of ``text`` as written, with their positions (the words :func:`words` reads)."""
    return _WORD.finditer(text)


def words(text: str) -> list[str]:
    """The words of ``text``, normalised; a number keeps its digits together ("821,752": "821752")."""
    return _WORD.findall(_THOUSANDS.sub("", normalise(text)))


_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=1 << 16)
def word_key(word: str) -> str:
    """What inflections of a normalised word share: the first five letters of the Snowball
    (Porter2) stem of its lemma when it is only ever a verb form ("won": "win", "written":
    "write", from lemminflect's English lexicon), else of the word. "died" and "die", "opened"
    and "open" (too short for a five-letter prefix alone), "treats" and "treatment", "won" and
    "win", "built" and "build", "tallest" and "tall" match; "left" (a side, or a verb) stays itself.

    >>> [word_key(w) for w in ("died", "die", "opened", "open", "treats", "treatment", "won", "win")]
    ['die', 'die', 'open', 'open', 'treat', 'treat', 'win', 'win']
    """
    return str(_STEMMER.stemWord(_verb_lemma(word)))[:5]


def _verb_lemma(word: str) -> str:
    """The lemma of a word that is only ever a verb form ("built": "build"), the comparative or
    superlative of an adjective ("tallest": "tall"), or the verb of an adjective of what can be
    done ("payable": "pay"), else the word."""
    from lemminflect import getAllLemmas  # loads its lexicon (a third of a second) on first use

    lemmas = getAllLemmas(word)
    if "ADJ" in lemmas and set(lemmas) <= {"ADJ", "ADV"} and word.endswith(("er", "est")):  # "tallest": "tall"
        return str(lemmas["ADJ"][0])
    # "payable on 15 November" says when it is paid
    if word.endswith("able") and len(word) > 6 and set(lemmas) <= {"ADJ"}:
        verb = next((v for v in (word[:-4], word[:-4] + "e") if "VERB" in getAllLemmas(v)), None)
        if verb is not None:
            return verb
    verbs = lemmas.get("VERB") or lemmas.get("AUX")
    if not verbs or set(lemmas) - {"VERB", "AUX"}:
        return word
    return str(verbs[0])


#: Words that deny what follows them ("doesn't", "isn't" are caught by their ending).
NEGATIONS = frozenset("not no never cannot neither nor none nothing nobody nowhere".split())
#: How many words after a denial it may bear on: "does not cure", "never been shown to cure".
DENIAL_REACH = 4


def denials_of(text: str, about: Iterable[str]) -> list[str]:
    """The denials of ``text`` that bear on one of the words ``about`` (one of the
    ``DENIAL_REACH`` words after it, inflections alike), as they read. "No" before a number
    ("No. 14") is no denial.

    >>> denials_of("Aspirin does not cure cancer; it is no cure for colds.", ["cures", "cancer"])
    ['not cure', 'no cure']
    >>> denials_of("The Piano Sonata No. 14 is famous.", ["sonata", "famous"])
    []
    """
    keys = {word_key(w) for w in about if w not in STOP_WORDS}
    out = []
    # a denial bears on its clause: "Globex, which is not a bank, is based in Oregon"
    for clause in clauses(text):
        said = words(clause)
        for n, word in enumerate(said):
            if not (word in NEGATIONS or word.endswith(("n't", "n\u2019t"))):
                continue
            after = said[n + 1 : n + 1 + DENIAL_REACH]
            if word == "no" and after[:1] and after[0][:1].isdigit():
                continue
            hit = next((k for k, w in enumerate(after) if w not in STOP_WORDS and word_key(w) in keys), None)
            if hit is not None:
                out.append(" ".join([word, *after[: hit + 1]]))
    return out


#: Ordinals that make a superlative another rank: "the second-longest river" is not "the longest".
ORDINALS = frozenset(
    "second third fourth fifth sixth seventh eighth ninth tenth 2nd 3rd 4th 5th 6th 7th 8th 9th 10th".split()
)


def ranked(text: str) -> set[str]:
    """The :func:`word_key` of each word of ``text`` that an ordinal before it qualifies: what
    ``text`` says of another rank ("second-longest", "third largest"), not of the word itself.

    >>> sorted(ranked("The Danube is the second-longest river, and the third largest by area."))
    ['larg', 'long']
    """
    said = words(text)
    return {word_key(w) for before, w in pairwise(said) if before in ORDINALS}


#: What ends a clause: a denial before it does not reach past it.
_CLAUSE = re.compile(r"[,;:()\[\]\u2013\u2014]|\s-\s|(?<!\bNo)\.(?=\s|$)")


def clauses(text: str) -> list[str]:
    """The clauses of ``text``, split where a denial's reach or a qualifier's ends.

    >>> clauses("Net income was 37 million dollars, compared with a net loss in 2025.")
    ['Net income was 37 million dollars', ' compared with a net loss in 2025', '']
    """
    return _CLAUSE.split(text)


#: Where a sentence turns to say something else of its subject ("... but kept the island of Orsa").
_CONTRAST = re.compile(r"\s*;\s*|,?\s+(?:but|whereas|yet)\s+", re.I)


def contrasted(text: str) -> list[str]:
    """The parts of ``text`` a contrast divides, each after the first with the words the sentence
    opens with before its first verb (its subject), so that each says what it says of it.

    >>> contrasted("Sweden gave up the port of Lindau but kept the island of Orsa.")
    ['Sweden gave up the port of Lindau', 'Sweden kept the island of Orsa.']
    >>> contrasted("The battery is splash-resistant but must not be submerged.")
    ['The battery is splash-resistant', 'The battery must not be submerged.']
    """
    parts = _CONTRAST.split(text)
    if len(parts) < 2:
        return parts
    opening = parts[0].split()
    verb = next((i for i, w in enumerate(opening) if i and {"VERB", "AUX"} & word_readings(normalise(w))), len(opening))
    subject = " ".join(opening[:verb])
    return [parts[0], *(f"{subject} {part}" for part in parts[1:])]


#: What opens a clause that asks or supposes rather than states ("whether Meridian submitted ...").
_OPEN = re.compile(r"\b(?:whether|if)\b", re.I)


def leaves_open(text: str, about: Iterable[str]) -> bool:
    """Whether ``text`` holds some of the words ``about`` (inflections alike) only in a clause
    it leaves open, which says neither yes nor no.

    >>> leaves_open("It does not decide whether Meridian submitted false claims.", ["submit", "false"])
    True
    >>> leaves_open("Meridian submitted false claims, the court found.", ["submit", "false"])
    False
    """
    opened = _OPEN.search(text)
    if opened is None:
        return False
    keys = {word_key(w) for w in about}
    return bool(keys & word_keys(text[opened.end() :]) - word_keys(text[: opened.start()]))


#: Short words an acronym's letters skip ("FDA": "Food and Drug Administration").
_ACRONYM_SKIPS = frozenset("of and for the on in to &".split())


def spells(acronym: str, text: str) -> bool:
    """Whether ``text`` holds, as consecutive words, a phrase whose initials spell ``acronym`` (its
    short words aside): "chief executive officer" for "CEO", "Food and Drug Administration" for
    "FDA".

    >>> spells("CEO", "Jane Smith has been the chief executive officer since 2019.")
    True
    >>> spells("CEO", "The chief officer of Acme")
    False

    A chief officer's title is written without its "officer" too ("Chief executive Maria Lund said
    ...", "its chief financial officer").

    >>> spells("CEO", "Chief executive Maria Lund said loan growth had slowed."), spells("CFO", "the chief executive")
    (True, False)
    """
    letters = normalise(acronym)
    said = [w for w in words(text) if w not in _ACRONYM_SKIPS]
    n = len(letters)
    if re.fullmatch(r"c[a-z]o", letters) and any(a == "chief" and b[0] == letters[1] for a, b in pairwise(said)):
        return True
    return n >= 2 and any("".join(w[0] for w in said[i : i + n]) == letters for i in range(len(said) - n + 1))


def acronyms(question: str) -> set[str]:
    """The words of ``question`` written in capitals, two to six letters ("CEO", "FDA"),
    normalised as :func:`salient_terms` gives them."""
    return {normalise(m) for m in re.findall(r"\b[A-Z]{2,6}\b", question)}


#: Words that make a property's label read as a verb phrase ("is contraindicated for", "has part").
_VERB_HEADS = frozenset("is are was were has have had can may must does do".split())


@lru_cache(maxsize=4096)
def verbal(label: str) -> bool:
    """Whether a property's label reads as a verb phrase ("treats", "interacts with", "is
    contraindicated for", "directed by") rather than a noun ("maximum daily dose (mg)", "label",
    "population total"): its first word is "is", "has" ..., or a verb form ending in "s" or "ed",
    or only ever a verb form ("wrote").

    >>> [verbal(p) for p in ("treats", "is contraindicated for", "wrote", "maximum daily dose", "genus")]
    [True, True, True, False, False]
    """
    from lemminflect import getAllLemmas

    said = words(label) or [""]
    first = said[0]
    if first in _VERB_HEADS:
        return True
    if first.endswith("ing") and len(said) > 1:
        return False  # "founding year", "running time": a noun's modifier
    readings = getAllLemmas(first)
    if "VERB" not in readings:
        return False
    return first.endswith(("s", "ed")) or not set(readings) - {"VERB", "AUX"}


_VERB_AFTER_NAME = (
    r"\s+(is|was|are|were|has|had|have|can|could|may|might|will|would|should|must|does|did|do|[a-z]+ed"
    r"|(?!(?:its|his|hers|ours|theirs|this|thus|as|us|was|less|unless|across|towards)\b)[a-z]+s)\b"
)
#: "Contoso Ltd is ...", "Priya Raman stepped down ...": a sentence opening with a name, then a verb.
_OPENING_NAME = re.compile(
    r"^(?:The\s+)?([A-Z][\w'\u2019&-]*(?:\s+(?:(?:of|on|for|and|de|the)\s+){0,2}[A-Z0-9][\w'\u2019&.-]*)*)"
    # "Ingrid Solvang (1911-1987) was ...": a parenthesis between the name and its verb
    + r"(?:\s*\([^()]{1,80}\))?"
    + _VERB_AFTER_NAME
)
#: "The JUPITER trial tested ...": a name and the kind of thing it is.
_OPENING_KIND = re.compile(
    r"^The\s+([A-Z][\w'\u2019&-]*(?:\s+[A-Z0-9][\w'\u2019&.-]*)*\s+[a-z]{3,})" + _VERB_AFTER_NAME
)


def opening_name(sentence: str) -> str | None:
    """The name a sentence opens with, when a verb follows it: what the sentence is about. A
    single word English has otherwise ("Participants", "Physician-reported") is no name.

    >>> opening_name("Contoso Ltd is a British software company.")
    'Contoso Ltd'
    >>> opening_name("Priya Raman stepped down as chief executive.")
    'Priya Raman'
    >>> opening_name("The JUPITER trial tested rosuvastatin.")
    'JUPITER trial'
    >>> opening_name("In 2023 Priya Raman stepped down."), opening_name("Take the capsules with water.")
    (None, None)
    >>> opening_name("Physician-reported diabetes was more common.")
    >>> opening_name("VERDANT-2 was a randomised trial.")
    'VERDANT-2'
    """
    found = _OPENING_NAME.match(sentence.strip()) or _OPENING_KIND.match(sentence.strip())
    if found is None or normalise(found.group(1).split()[0]) in _SENTENCE_START:
        return None
    name = found.group(1)
    if re.search(r"['\u2019]s?$", name):  # "Dr de Gay's works ...": the works are the subject
        return None
    first = normalise(name.split()[0]).split("-")[0]
    # (a word in capitals, or with a digit, is a name whatever English has: "VERDANT-2", "NASA")
    coined = bool(re.fullmatch(r"[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*|[A-Za-z]+-?\d[\w-]*", name))
    if not coined and ((" " not in name and word_readings(first)) or word_readings(first) == {"ADV"}):
        return None  # "Participants", "Additionally Modifications"
    return name


def named_by_noun(text: str, verb: str) -> bool:
    """Whether ``text`` says the verb ``verb`` only by a noun of its stem, no form of the verb
    itself: "The film director Ann Berg ..." of "directed" (it names a director, not what she
    directed).

    >>> named_by_noun("The director Ann Berg", "directed"), named_by_noun("It was directed by Ann Berg.", "directed")
    (True, False)
    """
    from lemminflect import getAllLemmas

    wanted = set(getAllLemmas(verb.lower()).get("VERB", ()))
    if not wanted or "AUX" in getAllLemmas(verb.lower()):
        return False
    said = words(text)
    if any(wanted & set(getAllLemmas(w).get("VERB", ())) for w in said):
        return False
    return any(word_key(w) == word_key(verb) for w in said)


def word_readings(word: str) -> set[str]:
    """What ``word`` can be in English ("NOUN", "ADV" ...; lemminflect's lexicon holds few names)."""
    from lemminflect import getAllLemmas

    return set(getAllLemmas(word))


#: The nouns of a measure and the adjectives a question asks it by ("How high is Mount Everest?":
#: "Its elevation is 8,849 metres"), each adjective with its comparative and superlative.
_DIMENSIONS = {
    "height": "high higher highest tall taller tallest",
    "elevation": "high higher highest tall taller tallest",
    "altitude": "high higher highest",
    "length": "long longer longest",
    "depth": "deep deeper deepest",
    "width": "wide wider widest",
    "breadth": "wide wider widest",
    "age": "old older oldest",
    "distance": "far farther farthest further furthest",
    "weight": "heavy heavier heaviest light lighter lightest weigh weighs",
    "mass": "heavy heavier heaviest light lighter lightest weigh weighs",
    "price": "cost costs expensive cheap cheaper cheapest",
    "cost": "expensive cheap cheaper cheapest",
    "area": "large larger largest big bigger biggest",
    "size": "large larger largest big bigger biggest",
    # "It measures 207 by 209.5 centimetres": the verb of any extent
    "measures": "large larger largest big bigger biggest tall taller tallest long longer longest wide wider widest",
    "measuring": "large larger largest big bigger biggest tall taller tallest long longer longest wide wider widest",
}


#: The words of giving a name: "1816 became known as the Year Without a Summer" answers "Why was
#: 1816 called ...?".
_NAMING = frozenset("called named known dubbed nicknamed titled".split())


#: The words of a drug label or a guideline and the everyday words a question asks them by:
#: "indicated for the relief of ..." says what a drug is used for, "adverse reactions" its side
#: effects, "contraindicated in ..." who should not take it.
_LABEL_WORDS = {
    "indicated": "used use treat treats",
    "indication": "used use treat treats",
    # "What is aspirin used for?": "aspirin treats headache"
    "treats": "used use",
    "treat": "used use",
    "treated": "used use",
    "indications": "used use treat treats",
    "adverse": "side effect effects",
    "contraindicated": "take avoid",
    "dosage": "dose",
    "corporation": "incorporated",
    # "Who leads Harbor Robotics?": its chief executive
    "executive": "leads lead heads head runs",
    "ceo": "leads lead heads head runs",
    # "What resolution are the images?": "4096 by 3072 pixels"
    "pixels": "resolution",
    "megapixels": "resolution",
    # "Who is acquiring Baltic Freight Lines?": who agreed to buy it
    "buy": "acquire acquiring acquisition purchase",
    "bought": "acquire acquired acquisition purchase",
    "purchase": "acquire acquisition buy",
    "acquire": "buy purchase",
    "acquisition": "acquire buy purchase",
    # "How many people live in Berlin?": its population
    "population": "live lives people inhabitants residents",
    "inhabitants": "live lives people population",
    "residents": "live lives people population",
}


def _opposites(*pairs: tuple[str, str]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """By the key of each word of a pair's sides: the keys of its side and of the other."""
    out: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for one, other in pairs:
        for said, opposite in ((one, other), (other, one)):
            out.update((key, (frozenset(said.split()), frozenset(opposite.split()))) for key in said.split())
    return out


#: Outcomes that other verbs state, by the key of a verb saying it: the keys of the verbs saying
#: it, and of those saying its opposite. "Riverside United beat Northgate Athletic" says who won
#: and who lost; "The Ninth Circuit reversed" that it did not affirm.
OUTCOMES = _opposites(
    ("win beat defea overc", "lose"),
    ("affir uphol", "rever vacat overt overr"),
    ("appro accep grant", "rejec deni refus decli"),
    ("rise rose rais climb gain grow incre", "fall fell falle drop decre slump"),
)
#: States a word says or denies, by key, as :data:`OUTCOMES`: "closed" says a shop is not open.
#: No outcome of one thing over another ("the bridge was opened" is no bridge beating anything).
STATES = _opposites(("open", "close shut"))


#: The verbs a contestant's finishing place follows ("came second", "finished in third").
_PLACING = frozenset("came come comes finished finishes placed places ended ends".split())
#: The places that are no win besides the ordinals ("came last", "finished runner-up").
_LOSING_PLACES = frozenset("last runner".split())


def place_after(said: Sequence[str], at: int) -> str | None:
    """The finishing place the words ``said`` give at ``at`` ("second" of "came second", "third"
    of "finished in third", "first"), or None.

    >>> place_after(words("Jane Pike came second"), 2), place_after(words("She came home"), 1)
    ('second', None)
    """
    if said[at] not in _PLACING:
        return None
    place = said[at + 1 : at + 3]
    place = place[1:] if place[:1] == ["in"] else place
    return place[0] if place and (place[0] == "first" or place[0] in ORDINALS | _LOSING_PLACES) else None


def word_keys(text: str, *, measures: bool = False, outcomes: bool = True) -> set[str]:
    """The :func:`word_key` of every word of ``text``; with ``measures``, also of the adjectives
    that ask for a measure it names ("elevation": "high", "higher", "tall" ...), of the other
    words of naming ("known": "called"), of the everyday words of a label's ("adverse": "side",
    "effects"), of what its phrases say (:data:`_PHRASED`) and of the outcomes its verbs state
    (:data:`OUTCOMES`: "beat" speaks of who won): for what evidence answers, never
    for what it states.

    >>> sorted(word_keys("Its elevation is 8,849 metres", measures=True) - word_keys("Its elevation is 8,849 metres"))
    ['high', 'tall']
    """
    said = words(text)
    keys = {word_key(w) for w in said}
    if measures:
        keys |= {word_key(a) for w in said if w in _DIMENSIONS for a in _DIMENSIONS[w].split()}
        keys |= {word_key(a) for w in said if w in _NAMING for a in _NAMING}
        keys |= {word_key(a) for w in said if w in _LABEL_WORDS for a in _LABEL_WORDS[w].split()}
        keys |= {word_key(a) for pattern, asked in _PHRASED for a in asked.split() if pattern.search(text)}
        # "beat" speaks of who won, "reversed" of whether a court affirmed (but says neither of a
        # name: "The defeat of Smith" is no "Smith won"; without ``outcomes``, for what is stated)
        if outcomes:
            keys |= {k for key in list(keys) if key in OUTCOMES for k in OUTCOMES[key][0] | OUTCOMES[key][1]}
            # "came second" speaks of who won, as "beat" does
            if any(place_after(said, i) for i in range(len(said))):
                keys |= OUTCOMES["win"][0] | OUTCOMES["win"][1]
    return keys


#: "(25 July 1920 - 16 April 1958)": when someone was born and died (not where).
LIFE_DATES = re.compile(r"\((?:born\s+)?[^()]*\b\d{4}\s*[\u2013\u2014-]\s*[^()]*\b\d{4}\s*\)")

#: Phrases that state a measure or an event without its word: "about 580 light-years from
#: Earth" says how far; "Rosalind Elsie Franklin (25 July 1920 - 16 April 1958)" when she was
#: born and when she died; "once daily" how often; "1-800-555-0142" a phone number.
_PHRASED = [
    (
        re.compile(r"\d\s*(?:light[\s-]years?|parsecs?|kilomet(?:re|er)s?|km|miles?)\b", re.I),
        "far farther farthest further furthest distance",
    ),
    (LIFE_DATES, "born died"),
    # "melts at 29.76 \u00b0C", "98.6 degrees Fahrenheit": a temperature
    (
        re.compile(r"\d\s*(?:\u00b0\s*[CF]\b|degrees?\s+(?:Celsius|Fahrenheit|centigrade)\b|kelvins?\b)", re.I),
        "temperature hot hotter hottest cold colder coldest warm",
    ),
    # "continues for three years", "lasts 12 months": how long
    (
        re.compile(rf"\b(?:for|lasts?|lasting|lasted)\s+{TIME_SPAN}", re.I),
        "long last lasts",
    ),
    # "a one-year full-time programme", "a 12-week course": how long (not "a 30-year-old")
    (
        re.compile(
            r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|\d+)-(?:year|month|week|day|hour)s?\b"
            r"(?!-old)",
            re.I,
        ),
        "long",
    ),
    # "It was bought by the German group Waldmann AG": who owns it
    (re.compile(r"\b(?:bought|acquired|purchased|taken\s+over)\s+by\b", re.I), "own owns owned owner owners"),
    # "It covers 120 square kilometres", "an estate of 40 hectares": how big, its area
    (
        re.compile(
            r"\d\s*(?:square\s+(?:kilomet(?:re|er)s?|met(?:re|er)s?|miles?|feet)|km2|km\u00b2|sq\.?\s*(?:km|mi|ft|m)\b"
            r"|hectares?\b|acres?\b)",
            re.I,
        ),
        "area big bigger biggest large larger largest size",
    ),
    # "Northgate took the lead through Sam Okafor", "equalised before half-time": who scored
    (
        re.compile(r"\b(?:took|take|takes|taking)\s+the\s+lead\b|\bequali[sz](?:ed|es|er)\b|\bnetted\b", re.I),
        "score scored scores scorer",
    ),
    # "its headquarters remain in Perth": where it is based
    (re.compile(r"\bheadquarter(?:s|ed)\b", re.I), "based located"),
    # "until 9 pm", "open from 6 March to 31 August 2027": when it ends
    (
        re.compile(
            r"\b(?:until|till)\s+(?:\d|[A-Z]|midnight|noon)|\bfrom\s+[^.;]{1,40}?\s(?:to|until|till|through)\s+\d",
        ),
        "end ends ended close closes closed finish finishes finished expire expires expired",
    ),
    # "Gusts of 50 to 60 mph": how fast, how strong
    (
        re.compile(r"\d\s*(?:mph|km/h|kph|knots|m/s|miles\s+(?:an|per)\s+hour)(?![\w/])", re.I),
        "fast faster fastest strong stronger strongest speed",
    ),
    # "one tablet once daily", "every other day", "twice a week": how often
    (
        re.compile(
            r"\b(?:once|twice|(?:one|two|three|four|\d+)\s+times?)\s+(?:a\s+|per\s+)?(?:daily|day|week|weekly|month)\b"
            r"|\bevery\s+(?:other\s+|\d+\s+|few\s+)?(?:hours?|days?|weeks?|months?)\b",
            re.I,
        ),
        "often frequency",
    ),
    # "agreed to buy Baltic Freight Lines for 2.1 billion euros": what was paid, its price
    (
        re.compile(
            r"\bfor\s+(?:about\s+|around\s+|some\s+)?(?:[$\u20ac\u00a3\u00a5]\s?\d|\d[\d.,]*\s*"
            r"(?:(?:thousand|million|billion)\s+)?(?:euros?|dollars?|pounds?|yen|yuan|francs?)\b)",
            re.I,
        ),
        "pay paid paying cost price",
    ),
    # "contact the company at 1-800-555-0142": a telephone number
    (
        re.compile(r"(?<![\w-])(?:\+?\d{1,3}[\s.-])?(?:\(\d{3}\)\s*|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\w-])"),
        "phone telephone number",
    ),
]


#: A name in code: in backticks, or of words joined by underscores ("get_records").
_CODE_NAME = re.compile(r"`([^`\s]{1,60})`|(?<![\w`])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w`])")
#: "1.4.0", "3.9": a number of dotted parts, a version or a decimal.
_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w])")
#: A season, a span of two years: "2011\u201312", "1992-93", "1939-1945".
_SEASON = re.compile(r"(?<![\w.])(?:1\d{3}|20\d{2})[-\u2010\u2011\u2013/](?:\d{2}|1\d{3}|20\d{2})(?![\w.])")


_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


def salient_terms(question: str) -> list[str]:
    """Names, numbers and quoted phrases of a question, normalised: the things an answer must be
    about. A name is a run of capitalised words (joined by "of", "for", "the" ...: "First for
    Women"), without a leading question word or article; the first word of the question counts
    unless it is a question or request word ("Aspirin treats ...", not "Tell me ..."). Punctuation ends a name
    ("England, Henry Roth" is two), except the period of an initial or title ("Robert C. Seger",
    "St. Andre"); a number is a term of its own ("In 1991 Euromarché"), but after a name, unless
    a year or a dotted number, it is part of it ("Photo 51", "Kepler-186f"; not "Driftwood 1.4.0").
    A season is one term: the 2010\u201311 team is not the one of "2011\u201312", though each says
    "2011" and "12".

    >>> salient_terms("Who took Photo 51 in 1952?"), salient_terms("How far is Kepler-186f from Earth?")
    (['photo 51', '1952'], ['kepler 186f', 'earth'])
    >>> salient_terms("Who coached the 2011\u201312 VCU Rams?")
    ['2011 12', 'vcu rams']
    >>> salient_terms("Which railway runs from Kelston to Brackley?")  # a way between two names
    ['kelston', 'brackley']
    >>> salient_terms("When was Driftwood 1.4.0 released?"), salient_terms("What does get_records return?")
    (['driftwood', '1 4 0'], ['get records'])
    """
    terms: list[str] = []
    for quoted in re.findall(r"[\"“]([^\"”]+)[\"”]", question):
        terms.append(" ".join(words(quoted)))
    # "get_records", `fetch`: a name in code, in lower case as code writes it
    terms += [" ".join(words(m.group(1) or m.group(2))) for m in _CODE_NAME.finditer(question)]
    text = _THOUSANDS.sub("", _without_marks(question))
    matches = list(_WORD.finditer(text))
    tokens = [m.group() for m in matches]
    run: list[str] = []

    def close() -> None:
        while run and normalise(run[0]) in _LEADING:
            run.pop(0)
        # the pronoun is not a name, nor is a day of the week ("Is the museum open on Mondays?": when)
        if run and run != ["I"] and not (len(run) == 1 and run[0].lower().rstrip("s") in _WEEKDAYS):
            terms.append(" ".join(words(" ".join(run))))
        run.clear()

    dotted = {m.start(): m.end() for m in (*_DOTTED.finditer(text), *_SEASON.finditer(text))}
    skip_to = 0
    for i, token in enumerate(tokens):
        if matches[i].start() < skip_to:
            continue
        if matches[i].start() in dotted:
            # "Driftwood 1.4.0", "Python 3.9": a version, or a decimal, is a number of its own,
            # not a name's word ("Driftwood 1")
            close()
            skip_to = dotted[matches[i].start()]
            terms.append(" ".join(words(text[matches[i].start() : skip_to])))
            continue
        if token[0].isdigit():
            before = text[matches[i - 1].end() : matches[i].start()] if i else ""
            # "Photo 51", "Kepler-186f": a number after a name, not a year, is part of it
            if run and (before in ("-", "\u2010", "\u2011") or (before == " " and not YEAR.fullmatch(token))):
                run.append(token)
            else:
                close()
                terms.append(" ".join(words(token)))
                continue
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        # the first word is capitalised anyway: a name only if it is no question or request word
        # ("Can ACE inhibitors ...": a modal verb before a name is none; "Will" and "May" may be names)
        first_name = normalise(token) not in _MODALS and (
            normalise(token) not in _SENTENCE_START or following[:1].isupper()
        )
        if token[0].isdigit():
            pass  # part of the name before it (above)
        elif token[0].isupper() and (i > 0 or first_name):
            run.append(token)
        elif (
            run
            and token in NAME_CONNECTORS
            and following[:1].isupper()
            and not _ROLE.fullmatch(" ".join(run))
            # "from Kelston to Brackley": a way between two names
            and not (token == "to" and i > len(run) and tokens[i - len(run) - 1].lower() == "from")
        ):
            run.append(token)  # "First for Women", "Anne of Green Gables"; not "CEO of Acme"
        else:
            close()
        gap = text[matches[i].end() : matches[i + 1].start()] if i + 1 < len(matches) else ""
        mark = gap.strip()
        initial = mark == "." and (len(token) == 1 or token in _ABBREVIATIONS)
        if mark and not initial and mark not in ("-", "\u2010", "\u2011"):  # "Buck-Tick" is one name
            close()
    close()
    return [t for t in dict.fromkeys(terms) if t]


def is_headline(title: str) -> bool:
    """Whether a title is a headline, saying something happened rather than naming a thing
    ("Brightwave Foods Recalls Almond Butter Because of Possible Salmonella Contamination",
    "Halvorsen Shipping to Acquire Baltic Freight Lines").

    >>> is_headline("Halvorsen Shipping to Acquire Baltic Freight Lines"), is_headline("Bell Rock Lighthouse")
    (True, False)
    """
    return _HEADLINE.search(title) is not None


_HEADLINE = re.compile(
    r"\b(?:because|after|amid|despite|following|reports|announces|recalls|launches|acquires|appoints|unveils|"
    r"strikes|hits|kills|warns|agrees|approves|rejects)\b"
    r"|\bto\s+(?:acquire|buy|sell|merge|cut|raise|close|open|launch|hire|pay|build|expand|exit|end)\b",
    re.I,
)


def position(said: Sequence[str], name: Sequence[str]) -> int | None:
    """Where the words ``name`` first stand in the words ``said``, or None.

    >>> position(["the", "ninth", "circuit", "reversed"], ["ninth", "circuit"])
    1
    """
    size = len(name)
    return next((i for i in range(len(said) - size + 1) if list(said[i : i + size]) == list(name)), None)


def number_text(term: str) -> str:
    """A term of :func:`salient_terms` as written: a dotted number's parts joined by dots, a
    season's years by a dash.

    >>> number_text("2 0 0"), number_text("2026"), number_text("photo 51"), number_text("2011 12")
    ('2.0.0', '2026', 'photo 51', '2011\u201312')
    """
    if _SEASON.fullmatch(term.replace(" ", "-")):
        return term.replace(" ", "\u2013")
    return term.replace(" ", ".") if term.replace(" ", "").isdigit() else term


def salient_names(question: str) -> list[str]:
    """The :func:`salient_terms` of ``question`` that are no number: the things it names (a new
    list each call: the caller may add to it).

    >>> salient_names("What was Contoso's revenue in 2025?")
    ["contoso's"]
    """
    return list(_salient_names(question))


@lru_cache(maxsize=256)
def _salient_names(question: str) -> tuple[str, ...]:
    return tuple(t for t in salient_terms(question) if not t.replace(" ", "").isdigit())


def name_heads(question: str) -> frozenset[str]:
    """The nouns a question names a thing's kind by, after its name: "policy" in "What is
    excluded from the Greenline policy?", "release" in "Who coordinated the Helix release?". Part
    of what the question names, not of what it asks: evidence saying "policy" says nothing of
    what is excluded. Only after "the" and a name, a word that can only be a noun, or one that
    can be and ends a question whose verb is not after its subject ("When did the Beatles
    split?", "When was the bridge built?" keep theirs).

    >>> sorted(name_heads("What is excluded from the Greenline policy?")), name_heads("When was the Bell Rock built?")
    (['policy'], frozenset())
    >>> sorted(name_heads("What was the cost of tirzepatide in VERITAS-2?"))
    ['tirzepatide']
    """
    heads: set[str] = set()
    verb_after = re.search(r"\b(?:do|does|did|can|could|will|would|shall|should|may|might|must)\b", question, re.I)
    for term in salient_terms(question):
        pattern = r"\bthe\s+" + r"\W+".join(map(re.escape, term.split())) + r"\s+([a-z]+)\b(\s*\?\s*$)?"
        for found in re.finditer(pattern, question, re.I):
            word, last = found.group(1), found.group(2) is not None
            readings = word_readings(word)
            if word not in STOP_WORDS and (readings == {"NOUN"} or (last and not verb_after and "NOUN" in readings)):
                heads.add(word)
    # "What was the cost of tirzepatide in VERITAS-2?": a word no lexicon holds, after "of", names
    # the thing (a drug, a compound) whose cost is asked
    for found in _OF_UNKNOWN.finditer(question):
        if not word_readings(found.group(1)):
            heads.add(found.group(1))
    return frozenset(heads)


_OF_UNKNOWN = re.compile(r"\bof\s+([a-z][a-z-]{3,})(?=\s+(?:in|at|on|for|with|during)\b|\s*\?\s*$)")


#: An acronym before "of" names something of its own ("CEO of Acme Corporation", "FDA of the
#: United States"), not the start of one name as "University of Kansas" is.
_ROLE = re.compile(r"[A-Z]{2,4}")


def without_disambiguation(title: str) -> str:
    """A title without its trailing disambiguation: what the document is about ("Big Stone Gap
    (film)" -> "Big Stone Gap")."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


def unbracketed(title: str) -> str:
    """A title without what it says in brackets, which a short mention of it leaves out ("the
    Tenancy Act" names "Tenancy (Deposits) Act 2024")."""
    return re.sub(r"\s*\([^)]*\)", "", title).strip()


def possessed(question: str, term: str) -> set[str]:
    """The words of what the question says a possessive ``term`` has, up to a stop word
    ("revenue" of "Fernwood's revenue in the third quarter"); empty when ``term`` is no
    possessive."""
    if without_possessive(term) == term:
        return set()
    said = words(question)
    last = term.split()[-1]
    if last not in said:
        return set()
    after = said[said.index(last) + 1 :]
    return set(takewhile(lambda w: w not in STOP_WORDS, after))


def without_article(text: str) -> str:
    """``text`` without the article it opens with ("the Bay Lions" -> "Bay Lions")."""
    return _ARTICLE.sub("", text)


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def in_form(phrase: str, tag: str) -> str:
    """``phrase`` with its first word, a verb, in the form of the Penn tag ``tag`` (lemminflect's):
    "have more members" as "VBZ" is "has more members", "direct films" as "VBD" "directed films"."""
    from lemminflect import getInflection  # loads its lexicon on first use

    verb, _, rest = phrase.partition(" ")
    form = getInflection(verb.lower(), tag=tag)
    return f"{form[0] if form else verb} {rest}".strip()


def singular(word: str) -> str:
    """An English plural's singular, by the regular rules ("drugs" -> "drug", "cities" -> "city",
    "boxes" -> "box"); other words as they are."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def without_possessive(word: str) -> str:
    """A word without its possessive ending: the name it is ("dahl's" -> "dahl")."""
    return _POSSESSIVE.sub("", word)


_POSSESSIVE = re.compile(r"['\u2019]s$")


def term_text(term: str) -> str:
    """An N-Triples term as a reader wants it: a literal's value, an IRI's local name."""
    if term.startswith('"'):
        end = term.rfind('"')
        return term[1:end].encode("utf-8").decode("unicode_escape") if "\\" in term[1:end] else term[1:end]
    iri = term.strip("<>")
    local = re.split(r"[/#]", iri.rstrip("/#"))[-1]
    return local.replace("_", " ") or iri


def mentions(text: str, term: str) -> bool:
    """Whether normalised ``text`` contains ``term`` as whole words."""
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text) is not None


def split_camel(text: str) -> str:
    """Camel case as words: "populationTotal" -> "population Total"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)


def content_words(text: str) -> list[str]:
    """The words of ``text`` that are not stop words."""
    return [w for w in words(text) if w not in STOP_WORDS]


def table_row(row: str, header: str) -> str | None:
    """A Markdown table's ``row`` read with its ``header``'s labels, or None when they are no
    table's row and header.

    >>> table_row("| Change in body weight (kg) | -11.2 | -5.7 |", "| Outcome | Tirzepatide | Semaglutide |")
    'Outcome: Change in body weight (kg) | Tirzepatide: -11.2 | Semaglutide: -5.7'
    """
    if not (_PIPED.fullmatch(row.strip()) and _PIPED.fullmatch(header.strip())):
        return None
    cells = [c.strip() for c in row.strip()[1:-1].split("|")]
    labels = [c.strip() for c in header.strip()[1:-1].split("|")]
    if len(cells) != len(labels):
        return None
    return " | ".join(f"{label}: {cell}" if label else cell for label, cell in zip(labels, cells, strict=True) if cell)


_PIPED = re.compile(r"\|.*\|")


def release_note(text: str, section: str | None) -> str | None:
    """A passage of release notes read with its release, or None when it is none: a release's
    heading as when it was released, a note under one with the version it is of.

    >>> release_note("3.0.0 (2 November 2026)", None)
    'Version 3.0.0 was released on 2 November 2026.'
    >>> release_note("Fixed a memory leak.", "2.9.4 (15 August 2026) > Fixes")
    'Version 2.9.4 (15 August 2026), Fixes: Fixed a memory leak.'
    """
    own = release_heading(text)
    if own is not None and (released := own[1]):
        return f"Version {own[0]} was released {'in' if _MONTH_YEAR.fullmatch(released) else 'on'} {released}."
    path = (section or "").split(SECTION_SEPARATOR)
    for n, heading in enumerate(path):
        if release := release_heading(heading):
            version, date = release
            # the headings under the release say what kind of change it is ("Fixed", "Deprecated")
            kinds = "".join(f", {h}" for h in path[n + 1 :])
            return f"Version {version}{f' ({date})' if date else ''}{kinds}: {text}"
    return None


def under_heading(text: str, section: str | None) -> str | None:
    """A list item that is no sentence of its own, read with the heading it completes, or None
    when it is none: "if you have severe asthma" under "Do not take Cardenol" is "Do not take
    Cardenol if you have severe asthma".

    >>> under_heading("if you have severe asthma", "Do not take Cardenol")
    'Do not take Cardenol if you have severe asthma'
    >>> under_heading("tiredness and dizziness", "Side effects") is None
    True

    An item of a list after a sentence ending with a colon completes that sentence, when it is no
    sentence of its own:

    >>> under_heading("Gaskets, filters and other wear parts,", "Warranty > The warranty does not cover:")
    'The warranty does not cover gaskets, filters and other wear parts.'
    """
    first = text.split(maxsplit=1)[:1]
    if not section or not first:
        return None
    if section.endswith(":"):
        if text.rstrip().endswith((".", "!", "?")) and text[:1].isupper():
            return None  # "Unplug the machine.": a sentence of its own
        item = re.sub(r"(?:[,;]|\s+(?:and|or))+\s*$", "", text.strip())
        opening = first[0].strip(",;")
        if opening[1:].islower() and opening[:1].isupper() and word_readings(opening.lower()):
            item = item[:1].lower() + item[1:]  # "Damage caused by limescale": no name
        return f"{nearest_heading(section)} {item}{'' if item.endswith(('.', '!', '?')) else '.'}"
    if first[0] not in _CONTINUING:
        return None
    return f"{nearest_heading(section)} {text}"


def nearest_heading(section: str | None) -> str:
    """The last heading of a section's path, without a closing colon: the one a passage is under.

    >>> nearest_heading("Cardenol > Do not take Cardenol:")
    'Do not take Cardenol'
    """
    return (section or "").split(SECTION_SEPARATOR)[-1].rstrip(" :")


#: Words that open the rest of a sentence its heading began ("Do not take Cardenol" ... "if you
#: have severe asthma").
_CONTINUING = frozenset("if when unless while because to with without after before during until".split())


#: The release a note is read with (:func:`release_note`), before the note's own words.
RELEASE_PREFIX = re.compile(r"Version \d[^:]{0,120}: (?=\S)")


#: "March 2024", "2024": a date of no day.
_MONTH_YEAR = re.compile(r"(?:[A-Z][a-z]+\s+)?\d{4}")


def row_fields(text: str) -> list[tuple[str, str]]:
    """A table's row read as fields, each its label and value, or none when ``text`` is no row
    of two fields or more.

    >>> row_fields("Model: Aurora City | Battery: 400 Wh")
    [('Model', 'Aurora City'), ('Battery', '400 Wh')]
    """
    fields = [(m.group(1).strip(), m.group(2).strip()) for cell in text.split("|") if (m := _CELL.match(cell.strip()))]
    return fields if len(fields) > 1 else []


#: A table's cell read as a field: its label and its value ("Weight: 17 kg").
_CELL = re.compile(r"([A-Z][^:]{0,40}):\s*(.+)")


def tokens(text: str) -> list[str]:
    """The words of ``text`` as written (not normalised)."""
    return _WORD.findall(text)


__all__ = [
    "DENIAL_REACH",
    "LIFE_DATES",
    "NAME_CONNECTORS",
    "NEGATIONS",
    "ORDINALS",
    "OUTCOMES",
    "RELEASE_PREFIX",
    "SECTION_SEPARATOR",
    "STATES",
    "STOP_WORDS",
    "TIME_SPAN",
    "YEAR",
    "acronyms",
    "content_words",
    "contrasted",
    "denials_of",
    "in_form",
    "is_headline",
    "mentions",
    "name_heads",
    "named_by_noun",
    "nearest_heading",
    "normalise",
    "number_text",
    "opening_name",
    "place_after",
    "position",
    "possessed",
    "release_note",
    "row_fields",
    "salient_names",
    "salient_terms",
    "singular",
    "spells",
    "split_camel",
    "table_row",
    "term_text",
    "tokens",
    "unbracketed",
    "under_heading",
    "verbal",
    "without_article",
    "without_disambiguation",
    "without_possessive",
    "word_key",
    "word_keys",
    "word_matches",
    "word_readings",
    "words",
]
