"""The RDF term model provgraph speaks, and the rows a SELECT gives back.

Every module outside :mod:`provgraph.store` takes its terms from here, never from the engine's
library: this is the one place that decides what an IRI, a literal and a quad are (pyoxigraph's
own classes, which its parsers produce and its store takes without conversion, so ingest pays
nothing for the indirection), and the one place that turns a literal into a Python number or
date. A backend that is not Oxigraph (a remote SPARQL engine) builds the same terms and rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import cast

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Triple, parse, serialize

from provgraph.errors import StoreError

#: A term a solution can bind: an IRI, a blank node or a literal.
Term = NamedNode | BlankNode | Literal
#: Where a quad sits: a named graph, or the store's own default graph.
GraphName = NamedNode | BlankNode | DefaultGraph


def sparql_term(term: Term | str) -> str:
    """A term as SPARQL text (a ``str`` is an IRI), escaped as the engine reads it: the one way a
    term enters a query template (see :func:`sparql_terms`)."""
    return str(NamedNode(term)) if isinstance(term, str) else str(term)


def sparql_terms(terms: Iterable[Term | str]) -> str:
    """Terms as a space-separated SPARQL list, for a ``VALUES`` block (an ``IN (...)`` list
    needs commas: join :func:`sparql_term` with ``", "``)."""
    return " ".join(sparql_term(t) for t in terms)


def parse_datetime(text: str) -> datetime:
    """An ``xsd:dateTime`` lexical form as a datetime (``Z`` is UTC; Python before 3.11 did not
    read it, and the store writes it)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Row:
    """One solution of a SELECT: its bound variables, by name without ``?``.

    ``row["x"]`` is the term bound to ``?x`` (a KeyError when it is unbound: a query's required
    variables are always bound, so that is a bug in the query); ``row.get("x")`` is None when
    unbound. The typed readers convert the bound literal once, here, rather than at every
    caller: :meth:`value` (the lexical form or IRI), :meth:`integer`, :meth:`number`,
    :meth:`moment`, each with an ``optional_`` twin that gives None for an unbound variable.
    """

    __slots__ = ("_names", "_read")

    def __init__(self, read: Callable[[str], Term | Triple | None], names: tuple[str, ...]) -> None:
        # ``read`` is the engine's own solution lookup: wrapping it, not copying every binding
        # into a dict, keeps a row as cheap as the engine's (large SELECTs build indexes)
        self._read = read
        self._names = names

    @classmethod
    def of(cls, bindings: Mapping[str, Term]) -> Row:
        """A row from plain bindings (a remote engine's results, a test)."""
        values = dict(bindings)
        return cls(values.get, tuple(values))

    def __getitem__(self, name: str) -> Term:
        term = self._read(name)
        if term is None:
            raise KeyError(name)
        return cast(Term, term)

    def get(self, name: str) -> Term | None:
        return cast(Term | None, self._read(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names and self._read(name) is not None

    def __iter__(self) -> Iterator[str]:
        """The names of the bound variables."""
        return (n for n in self._names if self._read(n) is not None)

    def as_dict(self) -> dict[str, Term]:
        return {n: self[n] for n in self}

    def __repr__(self) -> str:
        return f"Row({self.as_dict()!r})"

    def value(self, name: str) -> str:
        """The IRI, blank node id or lexical form bound to ``?name``."""
        term = self._read(name)  # not self[name]: the hottest reader, called per row of large reads
        if term is None:
            raise KeyError(name)
        return cast(Term, term).value

    def optional_value(self, name: str) -> str | None:
        term = self._read(name)
        return None if term is None else cast(Term, term).value

    def integer(self, name: str) -> int:
        return _integer(name, self[name])

    def optional_integer(self, name: str) -> int | None:
        term = self._read(name)
        return None if term is None else _integer(name, cast(Term, term))

    def number(self, name: str) -> float:
        return _number(name, self[name])

    def optional_number(self, name: str) -> float | None:
        term = self._read(name)
        return None if term is None else _number(name, cast(Term, term))

    def moment(self, name: str) -> datetime:
        return _moment(name, self[name])

    def optional_moment(self, name: str) -> datetime | None:
        term = self._read(name)
        return None if term is None else _moment(name, cast(Term, term))


def _integer(name: str, term: Term) -> int:
    try:
        return int(term.value)
    except ValueError as exc:
        raise StoreError(f"?{name} is not an integer: {term}") from exc


def _number(name: str, term: Term) -> float:
    try:
        return float(term.value)
    except ValueError as exc:
        raise StoreError(f"?{name} is not a number: {term}") from exc


def _moment(name: str, term: Term) -> datetime:
    try:
        return parse_datetime(term.value)
    except ValueError as exc:
        raise StoreError(f"?{name} is not an xsd:dateTime: {term}") from exc


__all__ = [
    "BlankNode",
    "DefaultGraph",
    "GraphName",
    "Literal",
    "NamedNode",
    "Quad",
    "RdfFormat",
    "Row",
    "Term",
    "Triple",
    "parse",
    "parse_datetime",
    "serialize",
    "sparql_term",
    "sparql_terms",
]
