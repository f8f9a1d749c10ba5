"""A small lexer for SPARQL text: enough to find keywords and the IRIs after them while skipping
strings, IRIs and comments correctly. Used to see which graphs an update writes and which
services a query calls, without a full parser."""

from __future__ import annotations

import re
from dataclasses import dataclass

from provgraph.errors import QueryError
from provgraph.vocab import PREFIXES

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''
               |"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<var>[?$][A-Za-z0-9_\u00B7-\uFFFF]+)
  | (?P<pname>[A-Za-z\u00C0-\uFFFF][\w\-.\u00B7-\uFFFF]*?:[^\s{}()<>,;"']*|:[^\s{}()<>,;"']*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}();,.\[\]])
  | (?P<other>.)
    """,
    re.X | re.S,
)


@dataclass
class Token:
    kind: str
    text: str
    start: int


def tokens(text: str) -> list[Token]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        if kind in ("ws", "comment"):
            continue
        out.append(Token(kind, m.group(), m.start()))
    return out


def services(text: str) -> list[str]:
    """The endpoints a query's SERVICE clauses call (``?var`` for a variable endpoint)."""
    found = []
    toks = tokens(text)
    prefixes = dict(PREFIXES)
    for i, t in enumerate(toks):
        word = t.text.upper() if t.kind == "word" else ""
        if word == "PREFIX" and i + 2 < len(toks):
            prefixes[toks[i + 1].text.rstrip(":")] = toks[i + 2].text[1:-1]
        if word != "SERVICE":
            continue
        j = i + 1
        if j < len(toks) and toks[j].text.upper() == "SILENT":
            j += 1
        if j >= len(toks):
            continue
        target = toks[j]
        if target.kind == "iri":
            found.append(target.text[1:-1])
        elif target.kind == "var":
            found.append("?" + target.text[1:])
        elif target.kind == "pname":
            prefix, _, local = target.text.partition(":")
            found.append(prefixes.get(prefix, prefix + ":") + local)
    return found


def check_services(text: str, allowed: tuple[str, ...]) -> None:
    """Refuse SERVICE calls to endpoints not in ``allowed``: a query must not make the server
    fetch arbitrary URLs."""
    for endpoint in services(text):
        if endpoint not in allowed:
            if not allowed:
                raise QueryError(f"SERVICE <{endpoint}>: federated queries are off on this store")
            raise QueryError(f"SERVICE <{endpoint}> is not among the allowed endpoints")


def has_dataset_clause(text: str) -> bool:
    """Whether a query names its own dataset with FROM or FROM NAMED (which a store's default
    view must then leave alone; only the protocol's dataset parameters override it)."""
    return any(t.kind == "word" and t.text.upper() == "FROM" for t in tokens(text))
