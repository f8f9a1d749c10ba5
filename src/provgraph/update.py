"""SPARQL Update with provenance rules.

Source graphs and the catalog are written only by ingest, which validates and reifies; a SPARQL
update that would write one of them (any graph under ``https://w3id.org/provgraph/id/``) is
refused, so no path leaves a source graph without its provenance. Everything else (the default
graph, graphs of your own) is plain SPARQL 1.1 Update.

Which graphs an update writes is read off the tokens of :func:`provgraph.sparql_text.read`, the
same tokens the engine then runs (escapes decoded, prefixed names expanded, relative IRIs resolved
as Oxigraph resolves them): the targets of INSERT/DELETE DATA, DELETE WHERE, the templates and
WITH of DELETE/INSERT ... WHERE, LOAD ... INTO, CLEAR, DROP, CREATE, ADD, MOVE and COPY. A template
``GRAPH ?var``, or CLEAR/DROP of ALL or NAMED, could reach any graph and is refused while the store
holds source graphs. The protocol's ``using-graph-uri`` and ``using-named-graph-uri`` are added to
each DELETE/INSERT ... WHERE operation as USING clauses, written from validated IRIs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from provgraph.errors import QueryError, WriteRefusedError
from provgraph.sparql_text import Kind, SparqlText, Token, check_endpoints, read
from provgraph.store.terms import NamedNode
from provgraph.vocab import ID_NS


@dataclass
class UpdatePlan:
    """What an update writes, and the text the engine is to run (USING clauses added)."""

    text: str
    graphs: set[str] = field(default_factory=set)  # named graphs written
    default_graph: bool = False  # the default graph is written
    any_graph: bool = False  # CLEAR/DROP ALL/NAMED, or a template GRAPH ?var
    source: SparqlText | None = field(default=None, repr=False)  # positions for the engine's errors


def plan_update(
    text: str,
    *,
    base_iri: str | None = None,
    using_graphs: Sequence[str] = (),
    using_named_graphs: Sequence[str] = (),
    services: Sequence[str] = (),
    loads: Sequence[str] = (),
) -> UpdatePlan:
    """Read ``text`` and say what it writes (see the module's docstring). ``SERVICE`` may call
    only the endpoints in ``services``; ``LOAD`` may fetch only the IRIs in ``loads``: any other
    LOAD is refused, and a LOAD SILENT of one becomes a no-op (the spec's failure, ignored)."""
    sparql = read(text, base_iri=base_iri)
    check_endpoints(sparql.services(), services, what="SERVICE")
    planner = _Planner(sparql.tokens, _using(using_graphs, using_named_graphs))
    planner.run()
    edits = {i: (i, clause) for i, clause in planner.insertions.items()}
    edits.update(_load_edits(planner.loads, loads))
    rendered = sparql.render(edits) if edits else sparql
    return UpdatePlan(
        text=rendered.text,
        graphs=planner.graphs,
        default_graph=planner.default_graph,
        any_graph=planner.any_graph,
        source=rendered,
    )


def check_policy(plan: UpdatePlan, *, has_source_graphs: bool) -> None:
    """Refuse an update that would write a source graph or the catalog."""
    protected = sorted(g for g in plan.graphs if g.startswith(ID_NS))
    if protected:
        raise WriteRefusedError(
            f"source graphs and the catalog change only by ingest (which validates and records "
            f"provenance); this update writes {', '.join(f'<{g}>' for g in protected)}. "
            "Ingest a new version of the document instead, or write to a graph of your own."
        )
    if plan.any_graph and has_source_graphs:
        raise WriteRefusedError(
            "this update could write any graph (CLEAR/DROP ALL or NAMED, or a template GRAPH ?var), "
            "and source graphs change only by ingest; name the graphs to write"
        )


def _using(using_graphs: Sequence[str], using_named_graphs: Sequence[str]) -> str:
    """The protocol's using-graph-uri and using-named-graph-uri as USING clauses."""
    return " ".join([f"USING {_iri(g)}" for g in using_graphs] + [f"USING NAMED {_iri(g)}" for g in using_named_graphs])


def _load_edits(found: list[tuple[int, int, str, bool]], loads: Sequence[str]) -> dict[int, tuple[int, str]]:
    """The LOADs of an update checked against ``loads``: one that fetches another IRI is refused,
    or with SILENT replaced by a no-op (token span to replace, replacement)."""
    edits: dict[int, tuple[int, str]] = {}
    for start, end, source, silent in found:
        if source in loads:
            continue
        if not silent:
            check_endpoints([source], loads, what="LOAD")
        edits[start] = (end, "INSERT DATA { }")
    return edits


def _iri(value: str) -> str:
    try:
        return str(NamedNode(value))
    except ValueError:
        raise QueryError(f"not an absolute IRI: {value!r}") from None


class _Planner:
    """Walks an update's operations, recording the graphs each writes."""

    def __init__(self, tokens: tuple[Token, ...], using: str) -> None:
        self.tokens = tokens
        self.using = using
        self.graphs: set[str] = set()
        self.default_graph = False
        self.any_graph = False
        self.insertions: dict[int, str] = {}
        self.loads: list[tuple[int, int, str, bool]] = []  # (first token, end, what it fetches, SILENT)

    def word(self, i: int) -> str:
        return self.tokens[i].value if i < len(self.tokens) and self.tokens[i].kind is Kind.WORD else ""

    def iri(self, i: int) -> str | None:
        if i < len(self.tokens) and self.tokens[i].kind in (Kind.IRI, Kind.PNAME):
            return self.tokens[i].value
        return None

    def run(self) -> None:
        """Walk the operations: the keyword that starts one hands the walk to its reader, which
        records what the operation writes and returns the index past what it read."""
        i, n = 0, len(self.tokens)
        while i < n:
            reader = _READERS.get(self.word(i))
            i = reader(self, i) if reader is not None else i + 1

    def prologue(self, i: int) -> int:
        """PREFIX p: <iri> or BASE <iri>: nothing written."""
        return i + (3 if self.word(i) == "PREFIX" else 2)

    def insert_delete(self, i: int) -> int:
        """INSERT/DELETE DATA, DELETE WHERE (a quad template), or DELETE/INSERT ... WHERE."""
        if self.word(i + 1) in ("DATA", "WHERE"):
            return self.template(i + 2, None)
        return self.modify(i, None)

    def with_graph(self, i: int) -> int:
        """WITH <g> DELETE/INSERT ... WHERE: the templates' default graph is <g>."""
        if self.using:
            raise QueryError("the request has WITH and the protocol gives using-graph-uri: choose one")
        return self.modify(i + 2, self.iri(i + 1))

    def load_operation(self, i: int) -> int:
        """LOAD [SILENT] <source> [INTO GRAPH <g>], recorded for :func:`_load_edits`."""
        silent = self.word(i + 1) == "SILENT"
        source = self.iri(i + 2 if silent else i + 1) or ""
        end = self.load(i + 1)
        self.loads.append((i, end, source, silent))
        return end

    def graph_management(self, i: int) -> int:
        """CLEAR, DROP or CREATE [SILENT] of a graph, DEFAULT, NAMED or ALL."""
        return self.graph_ref(i + 2 if self.word(i + 1) == "SILENT" else i + 1)

    def transfer_operation(self, i: int) -> int:
        """ADD, MOVE or COPY [SILENT] from TO to."""
        return self.transfer(self.word(i), i + 2 if self.word(i + 1) == "SILENT" else i + 1)

    def block_end(self, i: int) -> int:
        """Index just past the {...} block opening at tokens[i]."""
        depth = 0
        for j in range(i, len(self.tokens)):
            text = self.tokens[j].text if self.tokens[j].kind is Kind.PUNCT else ""
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
                if depth == 0:
                    return j + 1
        return len(self.tokens)

    def template(self, i: int, with_graph: str | None) -> int:
        """Record the graphs a quad template starting at tokens[i] ('{') writes."""
        end = self.block_end(i)
        depth, j, outside_graph = 0, i, False
        while j < end:
            token = self.tokens[j]
            text = token.text if token.kind is Kind.PUNCT else None
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
            elif depth == 1 and token.is_word("GRAPH") and j + 1 < end:
                target = self.tokens[j + 1]
                if target.kind is Kind.VAR:
                    self.any_graph = True
                elif (found := self.iri(j + 1)) is not None:
                    self.graphs.add(found)
                j = self.block_end(j + 2)
                continue
            elif depth == 1 and text not in ("{", "}", ".", ";", ","):
                outside_graph = True
            j += 1
        if outside_graph:
            if with_graph:
                self.graphs.add(with_graph)
            else:
                self.default_graph = True
        return end

    def graph_ref(self, i: int) -> int:
        """A GraphRef / GraphOrDefault / GraphRefAll at tokens[i]; returns the next index."""
        word = self.word(i)
        if word == "DEFAULT":
            self.default_graph = True
            return i + 1
        if word in ("ALL", "NAMED"):
            self.any_graph = True
            self.default_graph = self.default_graph or word == "ALL"
            return i + 1
        if word == "GRAPH":
            return self.graph_ref(i + 1)
        if (found := self.iri(i)) is not None:
            self.graphs.add(found)
        return i + 1

    def load(self, i: int) -> int:
        j = i
        while j < len(self.tokens) and not self.tokens[j].is_word("INTO") and self.tokens[j].text != ";":
            j += 1
        if self.word(j) == "INTO":
            return self.graph_ref(j + 1)
        self.default_graph = True
        return j

    def transfer(self, word: str, i: int) -> int:
        before = (set(self.graphs), self.default_graph)
        j = self.graph_ref(i)
        if word != "MOVE":  # ADD and COPY only read their source
            self.graphs, self.default_graph = before
        if self.word(j) == "TO":
            j = self.graph_ref(j + 1)
        return j

    def modify(self, i: int, with_graph: str | None) -> int:
        """DELETE {..} INSERT {..} USING .. WHERE {..} starting at tokens[i]."""
        n = len(self.tokens)
        has_using = False
        while i < n:
            token = self.tokens[i]
            word = self.word(i)
            if word in ("DELETE", "INSERT") and i + 1 < n and self.tokens[i + 1].text == "{":
                i = self.template(i + 1, with_graph)
                continue
            if word == "USING":
                has_using = True
                i += 3 if self.word(i + 1) == "NAMED" else 2
                continue
            if word == "WHERE" or (token.kind is Kind.PUNCT and token.text == "{"):
                if self.using:
                    if has_using:
                        raise QueryError("the request has USING and the protocol gives using-graph-uri: choose one")
                    self.insertions[i] = self.using
                return self.block_end(i + 1 if word == "WHERE" else i)
            i += 1
        return i


#: The reader of each keyword that starts an update operation (or its prologue).
_READERS: dict[str, Callable[[_Planner, int], int]] = {
    "PREFIX": _Planner.prologue,
    "BASE": _Planner.prologue,
    "INSERT": _Planner.insert_delete,
    "DELETE": _Planner.insert_delete,
    "WITH": _Planner.with_graph,
    "LOAD": _Planner.load_operation,
    "CLEAR": _Planner.graph_management,
    "DROP": _Planner.graph_management,
    "CREATE": _Planner.graph_management,
    "ADD": _Planner.transfer_operation,
    "MOVE": _Planner.transfer_operation,
    "COPY": _Planner.transfer_operation,
}


__all__ = ["UpdatePlan", "WriteRefusedError", "check_policy", "plan_update"]
