"""Plain text and Markdown documents become passages: one per sentence, each the exact span of
the original text with its character offsets (Unicode code points, end exclusive), its section
(the nearest Markdown heading above it, after the headings it is under: "3.0.0 > Fixes") and its
page (form feeds separate pages, as pdftotext writes them; pages are only recorded when the text
has any).

Sentence boundaries: ``.``, ``!`` or ``?`` (optionally followed by closing quotes or brackets),
then whitespace, then something that can start a sentence; known abbreviations (``e.g.``,
``Dr.``, ``Gov.``, ``Op.``, ``Fig.``, single initials ...), decimal numbers and a title's ``?`` or ``!``
followed by a parenthesis ("Why Is There Air? (1965) is ...") do not end sentences. Blank lines,
headings and list items always do.

A Markdown document's title, when the caller gives none, is its first level-1 heading (as MkDocs
and Pandoc take it): :func:`markdown_title`; a plain text document's, its first line when that
line stands alone and does not read as a sentence: :func:`text_title`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from provgraph.ingest.records import PassageSpec

_ABBREVIATIONS = frozenset(
    (
        "e.g i.e etc al cf vs approx ca fig figs eq eqs no nos vol pp p ch sec dr mr mrs ms prof st jr sr "
        "inc ltd co corp dept univ jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k mt ft "
        # titles and ranks before a name, and a musical work's opus ("Op. 27")
        "op gov sen rep rev gen col capt lt sgt cpl maj adm cmdr hon pres supt"
    ).split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9\u00C0-\u024F])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")
_FENCE = re.compile(r"^\s*(```|~~~)")
#: A numbered clause's number ("2.", "4.1", "(b)", or a list item's mark) and its heading in words
#: with capitals ("Deductible.", "Term of Lease."), opening a paragraph before more text.
_CLAUSE = re.compile(
    r"(?:\d{1,3}[.)]|\d{1,3}(?:\.\d{1,3})+\.?(?=\s+[A-Z])|\([a-z0-9]{1,3}\)|[-*+])\s+"
    r"(?:([A-Z][\w'\u2019-]*(?:\s+(?:(?:of|and|the|for|to|in|on|or|&)\s+)?[A-Z][\w'\u2019-]*){0,5})\.\s+)?"
    r"(?=\S)"
)
#: "Title\n=====": a Setext level-1 heading's underline.
_SETEXT_H1 = re.compile(r"^\s{0,3}=+\s*$")


def markdown_title(text: str) -> str | None:
    r"""The first level-1 heading of a Markdown document (``# Title`` or ``Title`` underlined with
    ``=``), outside code fences; None when it has none.

    >>> markdown_title("Some words.\n\n# Bell Rock Lighthouse\n\nIt was built ...\n")
    'Bell Rock Lighthouse'
    >>> markdown_title("```\n# a comment\n```\nBell Rock\n=========\n")
    'Bell Rock'
    >>> markdown_title("## Only a section\n") is None
    True
    """
    in_fence = False
    previous = ""
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            previous = ""
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading and heading.group(1) == "#" and heading.group(2):
            return heading.group(2)
        if previous.strip() and _SETEXT_H1.match(line) and not _LIST_ITEM.match(previous):
            return previous.strip()
        previous = line
    return None


#: Longest first line (in words) a plain text document is titled by: a paper's title runs to 20
#: words and more ("Effect of Intermittent Fasting on Weight Loss in Adults with Obesity: A
#: Randomized Clinical Trial" is 15).
TEXT_TITLE_WORDS = 25


def text_title(text: str) -> str | None:
    r"""A plain text document's title: its first line, when a blank line follows it, it opens
    with a letter or digit, has at most ``TEXT_TITLE_WORDS`` words and does not end as a sentence
    does; None otherwise.

    >>> text_title("Contoso Ltd Annual Report 2024\n\nContoso Ltd is a software company.\n")
    'Contoso Ltd Annual Report 2024'
    >>> text_title("Contoso Ltd is a software company.\n\nIt was founded in 1998.\n") is None
    True
    >>> text_title("Contoso Ltd Annual Report 2024\nContoso Ltd is a software company.\n") is None
    True
    """
    lines = text.lstrip("\ufeff\r\n\t ").splitlines()
    if len(lines) < 3 or lines[1].strip():
        return None
    first = lines[0].strip()
    # "# Notes", "- item": markup, not a title line
    if not first[:1].isalnum() or first.endswith((".", ",", ";", "!", "?")) or len(first.split()) > TEXT_TITLE_WORDS:
        return None
    return first


class Block(NamedTuple):
    """A block of a document's text; ``kind`` is "text", "heading", "item" (a list's item),
    "field" (a record's field after its first, which is its heading: :func:`_paragraph`) or
    "term" (a list item defining a term, one passage however many sentences it has)."""

    start: int
    end: int
    kind: str
    heading: str | None
    #: a heading's level ("## Fixes" is 2), 0 when the text marks none (a line in capitals)
    level: int = 0


def split_passages(
    text: str, *, markdown: bool, paged: bool = False, titled: bool = False, title: str | None = None
) -> Iterator[PassageSpec]:
    """Yield the sentences of ``text`` as passages with exact offsets. With ``titled``, a plain
    text's title line (:func:`text_title`) is its heading, as a Markdown document's is; given
    another ``title`` (the caller's), that line is a passage and still the heading of the rest.
    See :func:`passages_in` for ``title``."""
    blocks = _blocks(text, markdown=markdown)
    if not markdown and (own := text_title(text)) is not None and (titled or not _is_title(own, title)):
        blocks = _titled(blocks, text, own, "heading" if titled else "title")
    return passages_in(text, blocks, paged=paged, title=title)


def _titled(blocks: Iterator[Block], text: str, title: str, kind: str) -> Iterator[Block]:
    for n, block in enumerate(blocks):
        yield (
            Block(block.start, block.end, kind, title, 1)
            if n == 0 and text[block.start : block.end] == title
            else block
        )


def _is_title(heading: str, title: str | None) -> bool:
    """Whether a level-1 heading is the document's title: there is no other (``title`` None: the
    heading became it), or it reads the same."""
    return title is None or " ".join(heading.casefold().split()) == " ".join(title.casefold().split())


def passages_in(
    text: str, blocks: Iterable[Block], *, paged: bool = False, title: str | None = None
) -> Iterator[PassageSpec]:
    """The sentences of ``text``'s blocks (paragraphs and headings, in order) as passages; the
    HTML reader gives its own blocks. Pages are recorded when ``paged`` or the text has any.
    ``title`` is the title the caller gave the document: a level-1 heading other than it is a
    section like any other ("Northgate Global Bond Fund > Key facts" in "Fund factsheet"); with
    none, the first level-1 heading is the title, which every passage carries already."""
    has_pages = paged or "\f" in text
    section: str | None = None
    headings: list[Block] = []  # the headings the block is under, outermost first
    # "The warranty does not cover:": what the items of the list after it complete
    lead: str | None = None
    for start, end, kind, heading, level in blocks:
        if kind not in ("item", "term"):
            lead = None
        if kind == "title":
            # a plain text's title line, given another title: a sentence, and the heading of the rest
            for s, e in _sentences(text, start, end):
                page = text.count("\f", 0, s) + 1 if has_pages else None
                yield PassageSpec(text=text[s:e], page=page, section=None, start=s, end=e)
            kind = "heading"
        if kind == "heading":
            while headings and (not level or headings[-1].level >= level):
                headings.pop()
            if (
                heading
                and (release := release_heading(heading))
                and release[1]
                and (at := text.find(heading, start, end)) >= 0
            ):
                # "3.0.0 (2 November 2026)": the only sentence saying when the release was made
                within = _section_path(headings, title) if headings else None
                page = text.count("\f", 0, at) + 1 if has_pages else None
                yield PassageSpec(text=heading, page=page, section=within, start=at, end=at + len(heading))
            headings.append(Block(start, end, kind, heading, level))
            section = _section_path(headings, title)
            continue
        within = heading if kind == "field" else section
        if kind == "item" and lead is not None:
            # its section is the sentence it completes, after the headings: each item is read
            # with it ("The warranty does not cover damage caused by limescale.")
            within = SECTION_SEPARATOR.join(h for h in (section, lead) if h)
        if kind == "term":
            page = text.count("\f", 0, start) + 1 if has_pages else None
            yield PassageSpec(text=text[start:end], page=page, section=within, start=start, end=end)
            continue
        if clause := _CLAUSE.match(text, start, end):
            # "2. Deductible. Each claim carries ...": the clause's number is no sentence, and its
            # heading is the section of the paragraph (not of the next: a list ends, the section goes on)
            within = clause.group(1) or within
            start = clause.end()
        last = None
        for s, e in _sentences(text, start, end):
            page = text.count("\f", 0, s) + 1 if has_pages else None
            last = text[s:e]
            yield PassageSpec(text=last, page=page, section=within, start=s, end=e)
        if kind == "text" and last is not None and last.endswith(":"):
            lead = last


#: A release's heading in release notes or a changelog: "3.0.0 (2 November 2026)", "[1.1.0] -
#: 2019-02-15" (Keep a Changelog), "v2.4 — March 2024", "Version 2.1".
_RELEASE = re.compile(
    r"(?P<lead>\[|(?:version|release|v)\s?)?(?P<version>\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?)\]?"
    r"(?:\s*(?:\((?P<paren>[^()]+)\)|[-\u2013\u2014:]\s*(?P<after>.+)))?",
    re.I,
)
_YEAR = re.compile(r"\b(?:1[89]|20)\d{2}\b")
#: Between the headings of a section's path.
SECTION_SEPARATOR = " > "


def release_heading(heading: str) -> tuple[str, str | None] | None:
    """The version a heading of release notes names and the date it gives (None when none), or
    None when it is no release's heading. A bare "2.1" is a numbered section's, not a release's.

    >>> release_heading("[1.1.0] - 2019-02-15")
    ('1.1.0', '2019-02-15')
    >>> release_heading("2.9.4 (15 August 2026)")
    ('2.9.4', '15 August 2026')
    >>> release_heading("2.1 Results") is None, release_heading("2.1") is None
    (True, True)
    """
    found = _RELEASE.fullmatch(heading.strip())
    if found is None:
        return None
    date = found.group("paren") or found.group("after")
    if date is not None and not _YEAR.search(date):
        date = None  # "(yanked)", "- beta"
    if not (date or found.group("lead") or found.group("version").count(".") > 1):
        return None
    return found.group("version"), date


def _section_path(headings: Sequence[Block], title: str | None = None) -> str | None:
    """The section of what is under ``headings``: the nearest heading, after the headings it is
    under ("3.0.0 (2 November 2026) > Fixes"), but for a document's title (a level-1 heading that
    is ``title``, or any with no ``title``: :func:`_is_title`) above them, which every passage
    carries already."""
    inner = [h.heading for h in headings if h.heading and not (h.level == 1 and _is_title(h.heading, title))]
    inner = inner or [headings[-1].heading or ""]
    return SECTION_SEPARATOR.join(h for h in inner if h) or None


def _blocks(text: str, *, markdown: bool) -> Iterator[Block]:
    """Paragraph-like blocks as (start, end, kind, heading text). A paragraph's first line in
    capitals ("INDICATIONS AND USAGE") is a heading; a paragraph of field lines (:func:`_paragraph`)
    is a block a line."""
    pos = 0
    lines: list[tuple[int, int]] = []  # the current paragraph's lines, without their margins
    in_fence = False
    for line in text.splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        content = line.rstrip("\r\n\f")
        stripped = content.strip()
        if markdown and _FENCE.match(content):
            # a fence's marks ("```") are no text: the code between them is a block of its own
            in_fence = not in_fence
            yield from _paragraph(text, lines)
            continue
        if not stripped or ("\f" in line and not stripped):
            yield from _paragraph(text, lines)
            continue
        if markdown and not in_fence:
            heading = _HEADING.match(content)
            if heading:
                yield from _paragraph(text, lines)
                yield Block(line_start, line_start + len(content), "heading", heading.group(2), len(heading.group(1)))
                continue
            item = _LIST_ITEM.match(content)
            if item:
                yield from _paragraph(text, lines)
                # from its marker: a numbered item may be a clause with a heading (see _CLAUSE)
                start = line_start + len(item.group(1)) - len(item.group(1).lstrip())
                if _TERM.match(content, len(item.group(1))):
                    # "- `timeout` (float): seconds to wait ... Defaults to 30.0.": a term's
                    # definition, its sentences one passage (the second says nothing alone)
                    yield Block(line_start + len(item.group(1)), line_start + len(content.rstrip()), "term", None)
                    continue
                yield Block(start, line_start + len(content.rstrip()), "item", None)
                continue
        lead = len(content) - len(content.lstrip())
        if not lines and not in_fence and _CAPITALS.fullmatch(stripped) and sum(c.isalpha() for c in stripped) > 3:
            # "CONTRAINDICATIONS", "DOSAGE AND ADMINISTRATION": a label's heading, not its sentence's first words
            yield Block(line_start + lead, line_start + len(content.rstrip()), "heading", stripped)
            continue
        lines.append((line_start + lead, line_start + len(content.rstrip())))
    yield from _paragraph(text, lines)


#: A list item defining a term: the term in code or bold, maybe its type, and a colon ("`timeout`
#: (float): ...", "**limit**: ...").
_TERM = re.compile(r"(?:`[^`\n]{1,60}`|\*\*[^*\n]{1,60}\*\*)(?:\s*\([^)\n]{1,40}\))?\s*:\s+\S")


#: A line in capitals of a few words, no sentence: a heading in a plain text label or contract.
_CAPITALS = re.compile(r"[A-Z][A-Z0-9&/,()'\u2019-]*(?:[ \t]+[A-Z0-9&/,()'\u2019-]+){0,9}:?")


#: "Affected versions: 4.2.0 through 4.2.6": a line giving a field's value after its label, in
#: Markdown often in bold ("**Decided:** 14 March 2025", "**Decided**: ...").
_FIELD = re.compile(
    r"(?:\*\*|__)?[A-Z][\w'\u2019()/&.-]*(?:[ \t]+[\w'\u2019()/&.-]+){0,5}(?::(?:\*\*|__)?|(?:\*\*|__):)[ \t]+\S"
)


#: A Markdown table's row ("| Change in body weight (kg) | -11.2 | -5.7 |") and its header's separator.
_ROW = re.compile(r"\|.*\|")
_SEPARATOR = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")


def _paragraph(text: str, lines: list[tuple[int, int]]) -> Iterator[Block]:
    """The block of a paragraph's ``lines`` (emptied), or a block a line when every line is a
    field ("Product: Quillmail Server", "Fixed version: 4.2.7"): each field is a passage of its
    own, as an HTML table's row is, not one sentence running over all; the fields after the
    first are of kind "field", the first's text their heading."""
    if not lines:
        return
    if len(lines) > 2 and _SEPARATOR.fullmatch(text, *lines[1]) and all(_ROW.fullmatch(text, s, e) for s, e in lines):
        # a Markdown table: each row a passage, its header row its section (as an HTML table's
        # header names its cells), the separator none
        header = text[lines[0][0] : lines[0][1]]
        for s, e in lines[2:]:
            yield Block(s, e, "field", header)
    elif len(lines) > 1 and all(_FIELD.match(text, s, e) for s, e in lines):
        # a record's first field names what the others are about ("Product: Quillmail Server"):
        # it is their section
        first = text[lines[0][0] : lines[0][1]]
        yield Block(lines[0][0], lines[0][1], "text", None)
        for s, e in lines[1:]:
            yield Block(s, e, "field", first)
    else:
        yield Block(lines[0][0], lines[-1][1], "text", None)
    lines.clear()


def _sentences(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    block = text[start:end]
    begin = 0
    for match in _BOUNDARY.finditer(block):
        stop = match.end()
        if _is_abbreviation(block, match.start()) or _is_title_mark(block, match):
            continue
        yield from _trimmed(text, start + begin, start + stop)
        begin = stop
    yield from _trimmed(text, start + begin, end)


def _is_abbreviation(block: str, dot: int) -> bool:
    if block[dot] != ".":
        return False
    word_start = dot
    while word_start > 0 and not block[word_start - 1].isspace() and block[word_start - 1] not in "([\"'":
        word_start -= 1
    word = block[word_start:dot].lower()
    if not word:
        return False
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return True
    # a decimal number split across the boundary is excluded by the regex's look-ahead;
    # initials like "J.R.R." end with a one-letter part, a number like "28.4" does not end initials
    last = word.rsplit(".", 1)[-1]
    return "." in word and len(last) <= 1 and not last.isdigit()


def _is_title_mark(block: str, match: re.Match[str]) -> bool:
    # "Why Is There Air? (1965) is Bill Cosby's third album": a title's own question or
    # exclamation mark, followed by a parenthesis, does not end the sentence
    return match.group()[-1] in "!?" and block[match.end() :].lstrip().startswith("(")


def _trimmed(text: str, s: int, e: int) -> Iterator[tuple[int, int]]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        yield s, e


__all__ = [
    "SECTION_SEPARATOR",
    "Block",
    "markdown_title",
    "passages_in",
    "release_heading",
    "split_passages",
    "text_title",
]
