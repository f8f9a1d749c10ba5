"""HTML documents become text: the words a reader sees, block by block, with the headings as
sections. Parsed by Beautiful Soup with Python's own HTML parser (no compiled parser to install),
which reads the charset from the document's ``<meta>`` when the bytes do not say it otherwise.

The document's text is what this module makes of it: each block (paragraph, list item, table
row, heading ...) on its own, blank lines between them, runs of whitespace inside a block as one
space. A table row's cells are joined by ": " when there are two (a header and its value:
"Weight: 171 grams"), else by " | "; under a header row (all ``<th>``), each cell is given its
column's header ("Year: 2023 | Revenue: 245 million dollars"), unless the header names no property
("Property | Value": "Radius: 1.17 Earth radii"). Passage offsets count in that
text, so a passage's evidence offsets are exact in the text provgraph stores, not in the markup.
Scripts, styles, templates and the ``<head>`` are not text.

An HTML document's title, when the caller gives none, is its first ``<h1>``, else its
``<title>``: :func:`html_title`.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, Doctype, NavigableString, ProcessingInstruction, SoupStrainer, Tag

from provgraph.ingest.text import Block

#: Elements whose content is never shown as text.
_HIDDEN = frozenset("head script style noscript template svg math iframe object canvas".split())
#: Elements that start and end a block of text.
_BLOCK = frozenset(
    (
        "p div section article main aside header footer nav li dt dd blockquote pre figure figcaption "
        "table caption tr td th address details summary fieldset form hr ul ol dl br body"
    ).split()
)
_HEADINGS = frozenset(f"h{n}" for n in range(1, 7))
_SPACE = re.compile(r"\s+")


def html_text(raw: bytes) -> tuple[str, list[Block]]:
    """The document's text and its blocks (paragraphs and headings, in reading order)."""
    soup = BeautifulSoup(raw, "html.parser")
    pieces: list[tuple[str, str]] = []  # (kind, text) of each block; a heading's kind is its tag ("h2")
    current: list[str] = []
    headers: list[list[str] | None] = []  # of each table being read: its header row's cells, once read

    def close(kind: str = "text") -> None:
        words = _SPACE.sub(" ", "".join(current)).strip()
        current.clear()
        if words:
            pieces.append((kind, words))

    def walk(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, (Comment, Doctype, ProcessingInstruction)):
                continue
            if isinstance(child, NavigableString):
                current.append(str(child))
            elif isinstance(child, Tag):
                name = child.name.lower()
                if name in _HIDDEN:
                    continue
                if name in _HEADINGS:
                    close()
                    walk(child)
                    close(name)
                elif name == "tr":
                    row(child)
                elif name == "table":
                    headers.append(None)  # a table's own header row, once read (see row)
                    close()
                    walk(child)
                    close()
                    headers.pop()
                elif name in _BLOCK:
                    close()
                    walk(child)
                    close("item" if name == "li" else "text")
                else:
                    walk(child)

    def row(tr: Tag) -> None:
        # a table row is one block: "Weight: 171 grams" (a header and its value), "a | b | c"; under
        # a header row of the table, each value with its column's header ("Year: 2023 | Revenue:
        # 245 million dollars"), the header row no block of its own (it says nothing alone)
        close()
        cells = [c for c in tr.children if isinstance(c, Tag) and c.name.lower() in ("td", "th")]
        columns = headers[-1] if headers else None
        if headers and columns is None and len(cells) > 1 and all(c.name.lower() == "th" for c in cells):
            headers[-1] = [_SPACE.sub(" ", c.get_text()).strip() for c in cells]
            return
        # under "Property | Value" a row is a property and its value: "Orbital period: 129.9 days"
        generic = columns is not None and len(columns) == 2 and columns[1].strip().lower() in _VALUE_HEADERS
        labelled = columns is not None and len(columns) == len(cells) and not generic
        joint = ": " if len(cells) == 2 and not labelled else " | "
        for n, cell in enumerate(cells):
            if n:
                current.append(joint)
            if labelled and columns is not None and columns[n]:
                current.append(f"{columns[n]}: ")
            walk(cell)
        close()

    walk(soup)
    close()
    return _laid_out(pieces)


#: The header of a table's second column that names no property of its own ("Property | Value").
_VALUE_HEADERS = frozenset("value values detail details description data information setting amount".split())


def html_title(raw: bytes) -> str | None:
    """The text of the document's first ``<h1>``, else of its ``<title>``; None when neither
    holds any. The heading names what the page is about; the ``<title>`` often adds the site's
    name or the kind of page ("Golden Gate Bridge - Wikipedia", "Acme Corporation annual report").

    >>> html_title(b"<head><title>Bell Rock - Wiki</title></head><body><h1>Bell <em>Rock</em></h1></body>")
    'Bell Rock'
    >>> html_title(b"<head><title> Bell Rock </title></head><body><p>It was built ...</p></body>")
    'Bell Rock'
    """
    soup = BeautifulSoup(raw, "html.parser", parse_only=SoupStrainer(["title", "h1"]))
    for name in ("h1", "title"):
        found = soup.find(name)
        text = _SPACE.sub(" ", found.get_text()).strip() if isinstance(found, Tag) else ""
        if text:
            return text
    return None


def _laid_out(pieces: list[tuple[str, str]]) -> tuple[str, list[Block]]:
    parts: list[str] = []
    blocks: list[Block] = []
    pos = 0
    for kind, words in pieces:
        if parts:
            parts.append("\n\n")
            pos += 2
        if kind in _HEADINGS:
            blocks.append(Block(pos, pos + len(words), "heading", words, int(kind[1])))
        else:
            blocks.append(Block(pos, pos + len(words), kind, None))
        parts.append(words)
        pos += len(words)
    return "".join(parts), blocks


__all__ = ["html_text", "html_title"]
