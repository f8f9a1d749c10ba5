"""Whether an answering passage is linked to the names of a multi-hop question.

"The football manager who recruited David Beckham managed Manchester United during what
timeframe?" names David Beckham to say which manager is meant. A passage saying "Ernest Mangnall
... managed Manchester United between 1903-1912" answers the rest of it, but is about Ernest
Mangnall, and nothing found ties him to David Beckham: that passage is no answer. A passage is
linked to a name when it says the name itself, when its document holds a passage that does, when
a passage of a document naming the name names the passage's subject ("Ferguson signed Beckham"),
or when the passage's document names such a document.

Only names of two words or more are checked (one word, "Australian", "May", says too little of
what is meant), nor the names a question asks for an instance of ("under which United States
Vice President?"). Yes/no questions, comparisons and choices are answered by each side's own
passages: none is checked.

>>> from provgraph.answer.models import EvidenceItem, EvidenceKind
>>> def passage(n, text, title):
...     return EvidenceItem(id=f"ev-{n}", number=n, kind=EvidenceKind.PASSAGE, score=1.0, text=text,
...                         title=title, document=f"urn:{title}")
>>> question = "The manager who recruited Tom Birch managed Northgate during what timeframe?"
>>> hale = passage(1, "Ernest Hale managed Northgate between 1903 and 1912.", "Ernest Hale")
>>> academy = passage(2, "The Tom Birch Academy was founded by Tom Birch.", "Tom Birch Academy")
>>> unlinked(hale, question, [hale, academy])
'tom birch'
>>> reed = passage(3, "Alan Reed managed Northgate from 1986 to 2013.", "Alan Reed")
>>> signing = passage(4, "In 1991 Reed recruited Tom Birch.", "Alan Reed")
>>> unlinked(reed, question, [hale, academy, reed, signing]) is None
True
>>> linked_through(reed, question, [hale, academy, reed, signing])
True
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from provgraph.answer.models import EvidenceItem, EvidenceKind
from provgraph.answer.question import Expects, choices, comparison, expects, pair
from provgraph.answer.text import (
    mentions,
    normalise,
    salient_names,
    without_disambiguation,
    without_possessive,
    words,
)

#: What comes before a name a question asks for an instance of ("under which United States Vice
#: President?", "recognized by what larger Hall of Fame?").
_ASKED_TYPE = re.compile(r"\b(?:which|what)\s+(?:[a-z]+\s+){0,2}$")
#: The words joining the parts of a name ("Bobbi Bacha in Suburban Madness").
_NAME_JOINS = re.compile(r"\s+(?:of|in|the|and|for|on|at|de)\s+")


@lru_cache(maxsize=256)
def checks_links(question: str) -> bool:
    """Whether ``question``'s answer must be linked to its names (not a yes/no question, a
    comparison or a choice)."""
    return not (expects(question) is Expects.YES_NO or comparison(question) or pair(question) or choices(question))


def unlinked(
    item: EvidenceItem, question: str, passages: Sequence[EvidenceItem], *, titled: Collection[str] = ()
) -> str | None:
    """The first name of ``question`` the passage ``item`` is not linked to by ``passages`` (the
    evidence found; see the module docstring), or None. A name among ``titled`` (the subjects of
    the documents an answer cites, as words) is linked: the answer speaks of it in its own
    document. A name nothing found mentions is not found (the coverage check's concern), not
    unlinked."""
    return _linking(item, question, passages, titled)[0]


def linked_through(item: EvidenceItem, question: str, passages: Sequence[EvidenceItem]) -> bool:
    """Whether ``passages`` link the passage ``item`` to a name of ``question`` it does not say
    itself, and nothing leaves it unlinked to another (:func:`unlinked`): "Alan Reed managed
    Northgate ..." beside "In 1991 Reed recruited Tom Birch"."""
    return _linking(item, question, passages, ())[1]


def _linking(
    item: EvidenceItem, question: str, passages: Sequence[EvidenceItem], titled: Collection[str]
) -> tuple[str | None, bool]:
    """The first name ``item`` is not linked to (:func:`unlinked`), and, when there is none,
    whether other passages link it to a name it does not say itself (:func:`linked_through`):
    both in one pass over the names."""
    if not checks_links(question):
        return None, False
    passages = [p for p in passages if p.kind is EvidenceKind.PASSAGE]
    through = False
    for name, said in _checked_names(question):
        if said in titled or _says(item, said):
            continue
        documents = _mentioning(passages, said)
        if not documents:
            continue
        if not _linked(item, passages, documents):
            return name, False
        through = True
    return None, through


def links(item: EvidenceItem, question: str, passages: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """The passages that link ``item`` to the names of ``question`` it does not say itself, one
    per name (:func:`linked_through`): "In 1991 Reed recruited Tom Birch" for "Alan Reed managed
    Northgate ...". None when a name is left unlinked."""
    if not linked_through(item, question, passages):
        return []
    passages = [p for p in passages if p.kind is EvidenceKind.PASSAGE]
    found: list[EvidenceItem] = []
    for _, said in _checked_names(question):
        if _says(item, said) or not (documents := _mentioning(passages, said)):
            continue
        link = next((p for p in passages if p is not item and _link(item, p, passages, documents, said)), None)
        if link is not None and link not in found:
            found.append(link)
    return found


def _link(
    item: EvidenceItem, p: EvidenceItem, passages: Sequence[EvidenceItem], documents: set[str], said: str
) -> bool:
    """Whether the passage ``p`` links ``item`` to the name ``said``, which the ``documents``
    mention: it is of ``item``'s document and says the name, or of one of the documents and
    names ``item``'s subject, or of ``item``'s document and names one of the documents."""
    text = _said(p.text)
    if p.document == item.document and mentions(text, said):
        return True
    if p.document in documents and any(mentions(text, s) for s in _subjects(item)):
        return True
    named = {_said(without_disambiguation(o.title or "")) for o in passages if o.document in documents} - {""}
    return p.document == item.document and any(mentions(text, t) for t in named)


@lru_cache(maxsize=256)
def _checked_names(question: str) -> tuple[tuple[str, str], ...]:
    """The names of ``question`` to link an answer to, each with its words (module docstring)."""
    asked = normalise(question)
    out = []
    for name in salient_names(question):
        said = _said(without_possessive(name))
        at = asked.find(name)
        if len(said.split()) >= 2 and not (at >= 0 and _ASKED_TYPE.search(asked[:at])):
            out.append((name, said))
    return tuple(out)


def _says(item: EvidenceItem, said: str) -> bool:
    """Whether the passage ``item`` (or its title) says each part of the name ``said``."""
    own = _said(f"{item.text} {item.title or ''}")
    return all(mentions(own, part) for part in _NAME_JOINS.split(said))


def _mentioning(passages: Sequence[EvidenceItem], said: str) -> set[str]:
    """The documents of the ``passages`` that mention the name ``said``."""
    return {p.document for p in passages if p.document and mentions(_said(f"{p.text} {p.title or ''}"), said)}


def _linked(item: EvidenceItem, passages: Sequence[EvidenceItem], documents: set[str]) -> bool:
    """Whether ``item`` is linked to the ``documents`` mentioning a name: it is of one of them, a
    passage of one names its subject, or a passage of its document names one of them."""
    if item.document in documents:
        return True
    subjects = _subjects(item)
    if any(p.document in documents and any(mentions(_said(p.text), s) for s in subjects) for p in passages):
        return True
    named = {_said(without_disambiguation(p.title or "")) for p in passages if p.document in documents} - {""}
    return any(p.document == item.document and any(mentions(_said(p.text), t) for t in named) for p in passages)


def _subjects(item: EvidenceItem) -> list[str]:
    """What the passage ``item`` is about, as words: its document's subject, and for a name of
    two or more words its last (a person's document is about them by their surname too: "Reed
    recruited ...")."""
    subject = _said(without_disambiguation(item.title or ""))
    return [s for s in dict.fromkeys([subject, subject.rpartition(" ")[2]]) if s]


# each passage's words are read once per name and passage it is checked against
@lru_cache(maxsize=1 << 14)
def _said(text: str) -> str:
    """``text`` as words, for :func:`~provgraph.answer.text.mentions`."""
    return " ".join(words(text))
