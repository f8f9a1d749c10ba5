"""SPARQL text read the way the engine will read it, and rewritten so that the engine reads it
the way we did.

provgraph decides a few things from a query's text before Oxigraph runs it: which endpoints its
``SERVICE`` clauses call, what ``LOAD`` fetches, which graphs an update writes, whether it names
its own dataset. A guard that reads the text differently from the engine can be fooled: Oxigraph
decodes ``\\u`` escapes inside IRIs and strings, un-escapes ``\\'`` inside prefixed names, and
its PEG parser matches keywords without word boundaries (``SERVICESILENT <u>`` and ``SERVICEex:u``
both call a service). So :func:`read` does two things:

1. It splits the text into the terminals of the SPARQL 1.1 grammar (IRIs and strings with their
   escapes decoded, prefixed names expanded with the prefixes in force, comments dropped), and
   refuses what it cannot read exactly: a word that is not one SPARQL keyword (``SERVICESILENT``),
   a prefix that is not declared, a character outside any token.
2. It writes the text the engine will run from those tokens (:attr:`SparqlText.text`): IRIs
   and prefixed names become ``<IRI>`` with only the characters an IRI cannot hold escaped,
   strings are re-quoted with their value escaped, comments are gone. Every token of the result
   has one reading, so what Oxigraph executes is what the guards inspected; the layout (lines and
   columns) is kept so that the engine's error positions map back to the text as written.

It also bounds what Oxigraph's recursive-descent parser and optimiser are given: at most
:data:`MAX_DEPTH` nested brackets and :data:`MAX_TOKENS` tokens per operation outside
``INSERT DATA``/``DELETE DATA`` and ``VALUES`` blocks (measured with pyoxigraph 0.5.13: about
3,000 nested groups, chained operators or ``BIND``\\s overflow a thread's stack and kill the
process, and a few hundred joined triple patterns already take minutes to plan).
"""

from __future__ import annotations

import bisect
import enum
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from provgraph.errors import QueryError
from provgraph.store.terms import NamedNode, RdfFormat, parse
from provgraph.vocab import PREFIXES

#: Deepest nesting of ``{ ( [ <<`` a query may have.
MAX_DEPTH = 128
#: Most tokens per query or update operation outside data blocks (INSERT/DELETE DATA, VALUES).
MAX_TOKENS = 4000

# The terminals of the SPARQL 1.1 grammar (https://www.w3.org/TR/sparql11-query/#terminals), with
# the UCHAR escapes Oxigraph decodes in IRIs and strings.
_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_U = _BASE + "_"
_CHARS = _U + r"\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"
_ECHAR = r"""\\[tbnrf"'\\]"""
_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"
_PN_PREFIX = rf"[{_BASE}](?:[{_CHARS}.]*[{_CHARS}])?"
_PN_LOCAL = rf"(?:[{_U}:0-9]|{_PLX})(?:(?:[{_CHARS}.:]|{_PLX})*(?:[{_CHARS}:]|{_PLX}))?"


class Kind(enum.Enum):
    IRI = "IRI"
    PNAME = "prefixed name"
    STRING = "string"
    VAR = "variable"
    BNODE = "blank node"
    LANGTAG = "language tag"
    NUMBER = "number"
    WORD = "keyword"
    PUNCT = "punctuation"


_TOKEN = re.compile(
    rf"""
    (?P<ws>[ \t\r\n]+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<IRI><(?:[^<>"{{}}|^`\\\x00-\x20]|{_UCHAR})*>)
  | (?P<STRING>\"\"\"(?:(?:"|"")?(?:[^"\\]|{_ECHAR}|{_UCHAR}))*\"\"\"
              |'''(?:(?:'|'')?(?:[^'\\]|{_ECHAR}|{_UCHAR}))*'''
              |"(?:[^"\\\n\r]|{_ECHAR}|{_UCHAR})*"
              |'(?:[^'\\\n\r]|{_ECHAR}|{_UCHAR})*')
  | (?P<VAR>[?$][{_U}0-9][{_U}0-9\u00b7\u0300-\u036f\u203f-\u2040]*)
  | (?P<BNODE>_:[{_U}0-9](?:[{_CHARS}.]*[{_CHARS}])?)
  | (?P<PNAME>(?:{_PN_PREFIX})?:(?:{_PN_LOCAL})?)
  | (?P<LANGTAG>@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*(?:--[a-zA-Z]+)?)
  | (?P<NUMBER>[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+
              |[0-9]*\.[0-9]+|[0-9]+)
  | (?P<WORD>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<PUNCT>\^\^|<<\(|\)>>|<<|>>|\{{\||\|}}|&&|\|\||!=|<=|>=|[{{}}()\[\];,.*/+\-=<>!^|?~])
    """,
    re.X,
)

#: Every keyword and built-in function name Oxigraph 0.5 knows (SPARQL 1.1, SPARQL 1.2 / RDF-star
#: functions, the SEP extensions it implements). A word outside this list cannot be one token of
#: a valid query, and Oxigraph's parser may split it into keywords (``SERVICESILENT``).
KEYWORDS = frozenset(
    """
    BASE PREFIX VERSION SELECT CONSTRUCT DESCRIBE ASK DISTINCT REDUCED AS FROM NAMED WHERE ORDER BY ASC DESC
    LIMIT OFFSET GROUP HAVING VALUES UNDEF OPTIONAL GRAPH SERVICE SILENT BIND MINUS UNION FILTER EXISTS NOT
    IN LATERAL A TRUE FALSE
    LOAD INTO CLEAR DROP CREATE ADD MOVE COPY TO DEFAULT ALL INSERT DELETE DATA WITH USING
    STR LANG LANGMATCHES LANGDIR DATATYPE BOUND IRI URI BNODE RAND ABS CEIL FLOOR ROUND CONCAT SUBSTR STRLEN
    REPLACE UCASE LCASE ENCODE_FOR_URI CONTAINS STRSTARTS STRENDS STRBEFORE STRAFTER YEAR MONTH DAY HOURS
    MINUTES SECONDS TIMEZONE TZ NOW UUID STRUUID MD5 SHA1 SHA256 SHA384 SHA512 COALESCE IF STRLANG STRLANGDIR
    STRDT SAMETERM ISIRI ISURI ISBLANK ISLITERAL ISNUMERIC HASLANG HASLANGDIR REGEX TRIPLE SUBJECT PREDICATE
    OBJECT ISTRIPLE ADJUST COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT SEPARATOR
    """.split()
)

_OPEN = {"{": "}", "(": ")", "[": "]", "<<": ">>", "<<(": ")>>", "{|": "|}"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_IRI_FORBIDDEN = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_UCHAR_RE = re.compile(_UCHAR)
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_STRING_ESCAPE = re.compile(rf"{_ECHAR}|{_UCHAR}")


@dataclass(frozen=True, slots=True)
class Token:
    """One terminal. ``value`` is what it means: an IRI for IRIs (resolved against the base in
    force when one is) and prefixed names (expanded), the decoded text of a string, the upper-case
    keyword of a word; for the rest, the text."""

    kind: Kind
    text: str
    start: int
    value: str

    def is_word(self, *words: str) -> bool:
        return self.kind is Kind.WORD and self.value in words


@dataclass(frozen=True)
class SparqlText:
    """A query or update as read: its tokens and the text the engine is to run."""

    original: str
    tokens: tuple[Token, ...]
    base_iri: str | None
    #: (start, end) in the engine's text and (start, end) in the original of every token
    anchors: tuple[tuple[int, int, int, int], ...] = field(repr=False)
    text: str = field(repr=False)
    #: the edits :attr:`text` was written with (see :meth:`render`)
    edits: Mapping[int, tuple[int, str]] = field(default_factory=dict, repr=False)

    def render(self, edits: Mapping[int, tuple[int, str]]) -> SparqlText:
        """The same text with edits: ``edits[i] = (j, text)`` writes ``text`` in place of tokens
        ``i`` to ``j - 1`` (``j == i`` inserts it before token ``i``), on top of the edits
        already made."""
        merged = dict(self.edits)
        for i, (j, text) in edits.items():
            if i in merged:
                k, before = merged[i]
                merged[i] = (max(j, k), f"{before} {text}")
            else:
                merged[i] = (j, text)
        return _render(self.original, self.tokens, self.base_iri, merged)

    def position(self, line: int, column: int) -> tuple[int, int]:
        """Where the engine's (1-based) line and column in :attr:`text` are in the original."""
        offset = _offset(self.text, line, column)
        i = bisect.bisect_right([a[0] for a in self.anchors], offset) - 1
        if i < 0:
            return _line_column(self.original, offset)
        engine_start, engine_end, original_start, original_end = self.anchors[i]
        if offset >= engine_end:  # in the layout after the token, which is kept as written
            original = original_end + (offset - engine_end)
        elif engine_end - engine_start == original_end - original_start:
            original = original_start + (offset - engine_start)
        else:  # inside a token written differently (an escape decoded): point at its start
            original = original_start
        return _line_column(self.original, min(original, len(self.original)))

    def without_graph(self, iri: str) -> SparqlText:
        """The same query with ``FILTER(?g != <iri>)`` after every ``GRAPH ?g { ... }`` pattern:
        ``GRAPH ?g`` then ranges over every named graph but ``iri`` (a graph of the store's own
        that is not data: the current view). ``GRAPH <iri>`` still reaches it. For queries and
        the WHERE clauses of updates; an update's templates never take a filter here, because
        a template ``GRAPH ?g`` is refused before (see :mod:`provgraph.update`)."""
        edits: dict[int, tuple[int, str]] = {}
        tokens = self.tokens
        for i, token in enumerate(tokens[:-2]):
            if token.is_word("GRAPH") and tokens[i + 1].kind is Kind.VAR and tokens[i + 2].text == "{":
                end = _block_end(tokens, i + 2)
                if end < len(tokens) and not _in_template(tokens, i):
                    edits[end] = (end, f"FILTER({tokens[i + 1].text} != <{iri}>)")
        return self.render(edits) if edits else self

    def uses_named_graphs(self) -> bool:
        """Whether the query reads named graphs (``GRAPH``) anywhere."""
        return any(t.is_word("GRAPH") for t in self.tokens)

    def within_graph(self, iri: str) -> SparqlText:
        """The same query with its WHERE group's patterns read in ``GRAPH <iri>``: a default
        graph given as one named graph by the text itself, for an engine whose protocol cannot
        name a default graph and keep every named graph (``GRAPH ?g`` inside still ranges over
        the named graphs). Raises :class:`QueryError` for a query with no WHERE group to wrap
        (``CONSTRUCT WHERE { }``'s group is also its template)."""
        tokens = self.tokens
        start = None
        depth = 0
        for i, token in enumerate(tokens):
            if token.kind is Kind.PUNCT and token.text in ("{", "("):
                if depth == 0 and token.text == "{" and start is None:
                    before = tokens[i - 1] if i else None
                    construct = any(t.is_word("CONSTRUCT") for t in tokens[:i])
                    if before is not None and before.is_word("WHERE"):
                        if i >= 2 and tokens[i - 2].is_word("CONSTRUCT"):
                            break  # CONSTRUCT WHERE { }: its group is its template too
                        start = i
                    elif not construct:
                        start = i  # "ASK { }", "SELECT * { }": WHERE is optional
                depth += 1
            elif token.kind is Kind.PUNCT and token.text in ("}", ")"):
                depth -= 1
        if start is None:
            raise QueryError("this query has no WHERE group to read in the current view on a SPARQL server")
        end = _block_end(tokens, start) - 1
        return self.render({start + 1: (start + 1, f"GRAPH <{iri}> {{"), end: (end, "}")})

    def services(self) -> list[str]:
        """The endpoints the SERVICE clauses call (``?name`` for a variable endpoint)."""
        return [_target(self.tokens, i) for i, t in enumerate(self.tokens) if t.is_word("SERVICE")]

    def loads(self) -> list[str]:
        """What the LOAD operations of an update fetch."""
        return [_target(self.tokens, i) for i, t in enumerate(self.tokens) if t.is_word("LOAD")]

    def rewrite_data_blocks(
        self, *, skolem: Callable[[str], str] | None, max_block_triples: int | None
    ) -> tuple[str, list[str]]:
        """The update with its data written for an engine with less room than the standard
        gives (Virtuoso), as its own prologue and its operations, each a text of its own (so that
        they can go in several requests):

        - ``skolem``: every blank node ``_:x`` of a data block written as the IRI ``skolem(x)``
          (RDF 1.1's Skolem IRIs), for an engine that refuses blank nodes in a data block and
          cannot name one in a later request.
        - ``max_block_triples``: a data block goes on in a new operation every so many triples
          (``} ; INSERT DATA {``, its ``GRAPH`` block opened again): Virtuoso's parser runs out of
          stack past about 4,990 triples in one block ("memory exhausted")."""
        cuts: list[tuple[int, int, str]] = []
        tokens = self.tokens
        prologue = 0  # tokens of the PREFIX and BASE declarations before the first operation
        while prologue < len(tokens) and tokens[prologue].is_word("PREFIX", "BASE"):
            prologue += 3 if tokens[prologue].is_word("PREFIX") else 2
        # per open group: the text that goes on with it in a new operation (None for a group
        # that is no data block: a WHERE clause, a template, whose blank nodes are variables or
        # new nodes), and its triples since the last cut
        reopen: list[str | None] = []
        counts: list[int] = []
        for i, token in enumerate(tokens):
            in_data = bool(reopen) and reopen[-1] is not None
            if token.kind is Kind.BNODE and in_data and skolem is not None:
                cuts.append((token.start, token.start + len(token.text), f"<{_escape_iri(skolem(token.text[2:]))}>"))
            if token.kind is not Kind.PUNCT:
                continue
            if token.text == ";" and not reopen:
                cuts.append((token.start + 1, token.start + 1, _OPERATION))
            elif token.text == "{":
                if i >= 2 and tokens[i - 2].is_word("GRAPH") and in_data:
                    reopen.append(f"}} {reopen[-1]} GRAPH {tokens[i - 1].text} {{")
                elif i >= 2 and tokens[i - 1].is_word("DATA") and tokens[i - 2].is_word("INSERT", "DELETE"):
                    reopen.append(f"}} ;{_OPERATION} {tokens[i - 2].value} DATA {{")
                else:
                    reopen.append(None)
                counts.append(0)
            elif token.text == "}" and reopen:
                reopen.pop()
                counts.pop()
            elif token.text == "." and in_data and max_block_triples:
                counts[-1] += 1
                following = tokens[i + 1] if i + 1 < len(tokens) else None
                if counts[-1] >= max_block_triples and following is not None and following.text != "}":
                    cuts.append((token.start + 1, token.start + 1, f" {reopen[-1]} "))
                    counts[-1] = 0
        start = tokens[prologue].start if prologue < len(tokens) else len(self.original)
        parts: list[str] = []
        done = start
        for begin, end, text in sorted(cuts):
            parts += [self.original[done:begin], text]
            done = end
        operations = ("".join(parts) + self.original[done:]).split(_OPERATION)
        return self.original[:start], [op for op in operations if op.strip()]

    def has_dataset_clause(self) -> bool:
        """Whether a query names its own dataset with FROM or FROM NAMED (a store's default view
        must then leave it alone; only the protocol's dataset parameters override it)."""
        return any(t.is_word("FROM") for t in self.tokens)


#: Where one operation of a rewritten update ends (see SparqlText.rewrite_data_blocks).
_OPERATION = "\x00operation\x00"


def read(text: str, *, base_iri: str | None = None, prefixes: Mapping[str, str] = PREFIXES) -> SparqlText:
    """Read ``text`` as the engine will (see the module's docstring). Raises
    :class:`~provgraph.errors.QueryError` with the line and column of what it cannot read."""
    tokens = tuple(_tokens(text, base_iri, prefixes))
    _check_size(text, tokens)
    return _render(text, tokens, base_iri, {})


def check_endpoints(found: Iterable[str], allowed: Iterable[str], *, what: str) -> None:
    """Refuse calls to endpoints not in ``allowed``: a store must not fetch the URLs a request
    names (``what`` is SERVICE or LOAD)."""
    permitted = set(allowed)
    for endpoint in found:
        if endpoint not in permitted:
            if not permitted:
                off = "federated queries are" if what == "SERVICE" else "LOAD is"
                raise QueryError(f"{what} <{endpoint}>: {off} off on this store")
            raise QueryError(f"{what} <{endpoint}> is not among the allowed endpoints")


# ---------------------------------------------------------------------------------------- reading


def _tokens(text: str, base: str | None, declared: Mapping[str, str]) -> Iterable[Token]:
    prefixes = dict(declared)
    previous: list[Token] = []  # the last two tokens, for PREFIX and BASE declarations
    position = 0
    length = len(text)
    while position < length:
        match = _TOKEN.match(text, position)
        if match is None:
            raise _error(text, position, _unexpected(text, position))
        kind_name = match.lastgroup or ""
        raw = match.group()
        start = position
        position = match.end()
        if kind_name in ("ws", "comment"):
            continue
        kind = Kind[kind_name]
        if kind in (Kind.IRI, Kind.STRING) and "\\" in raw:
            _check_escapes(raw, text, start)
        if kind is Kind.IRI:
            decoded = _decode_uchar(raw[1:-1])
            declaring = len(previous) >= 2 and previous[-2].is_word("PREFIX") and previous[-1].kind is Kind.PNAME
            is_base = bool(previous) and previous[-1].is_word("BASE")
            value = _resolve(decoded, base) or decoded
            token = Token(kind, raw, start, value)
            if is_base:
                base = _absolute(decoded, base, text, start)
                token = Token(kind, raw, start, base)
            elif declaring:
                prefixes[previous[-1].text[:-1]] = _absolute(decoded, base, text, start)
        elif kind is Kind.PNAME:
            prefix, _, local = raw.partition(":")
            if previous and previous[-1].is_word("PREFIX"):
                if local:
                    raise _error(text, start, f"PREFIX declares a prefix such as {prefix}:, not {raw}")
                token = Token(kind, raw, start, raw)
            elif prefix not in prefixes:
                raise _error(text, start, f"the prefix {prefix}: is not declared (in {raw})")
            else:
                token = Token(kind, raw, start, prefixes[prefix] + local.replace("\\", ""))
        elif kind is Kind.STRING:
            quote = 3 if raw[:3] in ('"""', "'''") else 1
            token = Token(kind, raw, start, _decode_string(raw[quote:-quote]))
        elif kind is Kind.WORD:
            upper = raw.upper()
            if upper not in KEYWORDS:
                raise _error(text, start, f"{raw!r} is not a SPARQL keyword (separate keywords with spaces)")
            token = Token(kind, raw, start, upper)
        else:
            token = Token(kind, raw, start, raw)
        previous = [*previous[-1:], token]
        yield token


def _error(text: str, offset: int, message: str) -> QueryError:
    line, column = _line_column(text, offset)
    return QueryError(message, line=line, column=column, text=text)


def _check_escapes(raw: str, text: str, start: int) -> None:
    """Refuse escapes that name no character: UTF-16 surrogates and code points past U+10FFFF."""
    for found in _UCHAR_RE.finditer(raw):
        code = int(found.group()[2:], 16)
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise _error(text, start + found.start(), f"{found.group()} is not a Unicode character")


def _unexpected(text: str, position: int) -> str:
    char = text[position]
    if text.startswith(('"""', "'''"), position):
        return "a long string starts here and is never closed"
    if char in "\"'":
        return "a string starts here and is not closed on this line (or holds an invalid escape)"
    if char == "<":
        return "an IRI starts here and is not closed with '>' (or holds a space or a character IRIs cannot hold)"
    if char == "\\":
        return "a backslash escape outside a string, an IRI or a prefixed name"
    return f"unexpected character {char!r}"


def _check_size(text: str, tokens: tuple[Token, ...]) -> None:
    depth = 0
    stack: list[str] = []
    counted = 0
    exempt_depth: int | None = None  # depth of the data block being read, if any
    expect_data_block = False
    for token in tokens:
        if token.kind is Kind.PUNCT and token.text in _OPEN:
            if expect_data_block and exempt_depth is None and token.text == "{":
                exempt_depth = depth
                expect_data_block = False
            stack.append(token.text)
            depth += 1
            if depth > MAX_DEPTH:
                raise _error(text, token.start, f"brackets nest deeper than {MAX_DEPTH} levels")
        elif token.kind is Kind.PUNCT and token.text in _CLOSE:
            depth -= 1
            if stack:
                stack.pop()
            if exempt_depth is not None and depth == exempt_depth:
                exempt_depth = None
        if token.is_word("DATA") or token.is_word("VALUES"):
            expect_data_block = True
        if depth == 0 and token.text == ";":
            counted = 0  # the operations of an update are read one after another, not nested
        if exempt_depth is None:
            counted += 1
            if counted > MAX_TOKENS:
                raise _error(
                    text,
                    token.start,
                    f"the query is too large: more than {MAX_TOKENS} tokens outside INSERT DATA, DELETE DATA "
                    "and VALUES blocks",
                )


def _block_end(tokens: tuple[Token, ...], i: int) -> int:
    """Index just past the {...} block opening at ``tokens[i]``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].kind is Kind.PUNCT and tokens[j].text == "{":
            depth += 1
        elif tokens[j].kind is Kind.PUNCT and tokens[j].text == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(tokens)


def _in_template(tokens: tuple[Token, ...], i: int) -> bool:
    """Whether ``tokens[i]`` is inside a quad template or data block (INSERT/DELETE {..},
    INSERT/DELETE DATA {..}, DELETE WHERE {..}), where no FILTER may go."""
    depth = 0
    for j in range(i - 1, -1, -1):
        token = tokens[j]
        if token.kind is Kind.PUNCT and token.text == "}":
            depth += 1
        elif token.kind is Kind.PUNCT and token.text == "{":
            if depth == 0:
                before = tokens[j - 1] if j > 0 else None
                if before is not None and (
                    before.is_word("INSERT", "DELETE", "DATA")
                    or (before.is_word("WHERE") and j > 1 and tokens[j - 2].is_word("DELETE"))
                ):
                    return True
            else:
                depth -= 1
    return False


def _target(tokens: tuple[Token, ...], i: int) -> str:
    """The endpoint named after SERVICE or LOAD at ``tokens[i]`` (skipping SILENT)."""
    j = i + 1
    if j < len(tokens) and tokens[j].is_word("SILENT"):
        j += 1
    if j >= len(tokens):
        return ""
    target = tokens[j]
    if target.kind is Kind.VAR:
        return "?" + target.text[1:]
    return target.value


# ---------------------------------------------------------------------------------------- writing


def _render(
    original: str, tokens: tuple[Token, ...], base: str | None, edits: Mapping[int, tuple[int, str]]
) -> SparqlText:
    parts: list[str] = []
    anchors: list[tuple[int, int, int, int]] = []
    length = 0
    previous_end = 0
    declaring = False
    skip_to = 0
    for i, token in enumerate(tokens):
        if i < skip_to:
            continue
        gap = _layout(original[previous_end : token.start])
        if i in edits:
            skip_to, replacement = edits[i]
            gap += replacement + " "
            if skip_to > i:
                previous_end = tokens[skip_to - 1].start + len(tokens[skip_to - 1].text)
                parts.append(gap)
                length += len(gap)
                continue
        parts.append(gap)
        length += len(gap)
        written = _written(token, declaring)
        declaring = token.is_word("PREFIX")
        previous_end = token.start + len(token.text)
        anchors.append((length, length + len(written), token.start, previous_end))
        parts.append(written)
        length += len(written)
    parts.append(_layout(original[previous_end:]))
    return SparqlText(original, tokens, base, tuple(anchors), "".join(parts), dict(edits))


def _written(token: Token, after_prefix: bool) -> str:
    if token.kind is Kind.IRI:
        return "<" + _escape_iri(_decode_uchar(token.text[1:-1])) + ">"
    if token.kind is Kind.PNAME:
        return token.text if after_prefix else "<" + _escape_iri(token.value) + ">"
    if token.kind is Kind.STRING:
        if token.text[:3] in ('"""', "'''"):
            # long strings keep their line breaks, so that positions after them stay right
            return '"""' + token.value.replace("\\", "\\\\").replace('"', '\\"') + '"""'
        escaped = token.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        return '"' + escaped + '"'
    return token.text


def _layout(gap: str) -> str:
    """What stays of the text between two tokens: its line breaks (comments go)."""
    if not gap or "#" not in gap:
        return gap
    return re.sub(r"#[^\r\n]*", lambda m: " " * len(m.group()), gap)


def _escape_iri(value: str) -> str:
    return _IRI_FORBIDDEN.sub(lambda m: f"\\u{ord(m.group()):04X}", value)


def _decode_uchar(text: str) -> str:
    if "\\" not in text:
        return text
    return _UCHAR_RE.sub(lambda m: chr(int(m.group()[2:], 16)), text)


def _decode_string(text: str) -> str:
    if "\\" not in text:
        return text
    return _STRING_ESCAPE.sub(lambda m: _ESCAPES.get(m.group()[1]) or chr(int(m.group()[2:], 16)), text)


# ---------------------------------------------------------------------------------------- IRIs


@functools.lru_cache(maxsize=4096)
def _resolve(iri: str, base: str | None) -> str | None:
    """``iri`` as Oxigraph resolves it against ``base`` (absolute IRIs are left as they are, as
    Oxigraph leaves them), or None when it is not a valid IRI reference there. The resolution is
    Oxigraph's own (its Turtle parser shares the SPARQL parser's IRI library)."""
    try:
        return NamedNode(iri).value
    except ValueError:
        pass
    if base is None:
        return None
    try:
        quads = list(parse(f"<{_escape_iri(iri)}> <urn:x> <urn:x> .".encode(), format=RdfFormat.TURTLE, base_iri=base))
    except (SyntaxError, ValueError):
        return None
    subject = quads[0].subject
    return subject.value if isinstance(subject, NamedNode) else None


def _absolute(iri: str, base: str | None, text: str, start: int) -> str:
    resolved = _resolve(iri, base)
    if resolved is None:
        raise _error(text, start, f"<{iri}> is not an absolute IRI and there is no BASE to resolve it against")
    return resolved


# ---------------------------------------------------------------------------------------- positions


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        found = text.find("\n", start)
        if found < 0:
            return len(text)
        start = found + 1
    return min(start + max(column - 1, 0), len(text))


__all__ = [
    "KEYWORDS",
    "MAX_DEPTH",
    "MAX_TOKENS",
    "Kind",
    "SparqlText",
    "Token",
    "check_endpoints",
    "read",
]
