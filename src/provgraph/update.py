"""SPARQL Update with provenance rules.

Source graphs and the catalog are written only by ingest, which validates and reifies; a SPARQL
update that would write one of them (any graph under ``https://w3id.org/provgraph/id/``) is
refused, so no path leaves a source graph without its provenance. Everything else (the default
graph, graphs of your own) is plain SPARQL 1.1 Update.

Which graphs an update writes is read off its text by a small lexer (strings, IRIs and comments
are skipped properly): the targets of INSERT/DELETE DATA, DELETE WHERE, the templates and WITH of
DELETE/INSERT ... WHERE, LOAD ... INTO, CLEAR, DROP, CREATE, ADD, MOVE and COPY. A template
``GRAPH ?var``, or CLEAR/DROP of ALL or NAMED, could reach any graph and is refused while the store
holds source graphs. The same lexer adds the protocol's ``using-graph-uri`` and
``using-named-graph-uri`` to each DELETE/INSERT ... WHERE operation as USING clauses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin

from provgraph.errors import ProvGraphError, QueryError
from provgraph.sparql_text import Token as _Token
from provgraph.sparql_text import tokens as _tokens
from provgraph.vocab import ID_NS, PREFIXES


class WriteRefusedError(ProvGraphError):
    """A write that would bypass provenance: source graphs and the catalog change by ingest only."""

    exit_code = 2


@dataclass
class UpdatePlan:
    """What an update writes, and its text with the protocol's USING clauses added."""

    text: str
    graphs: set[str] = field(default_factory=set)  # named graphs written
    default_graph: bool = False  # the default graph is written
    any_graph: bool = False  # CLEAR/DROP ALL/NAMED, or a template GRAPH ?var


def plan_update(
    text: str,
    *,
    base_iri: str | None = None,
    using_graphs: Sequence[str] = (),
    using_named_graphs: Sequence[str] = (),
) -> UpdatePlan:
    tokens = _tokens(text)
    prefixes = dict(PREFIXES)
    base = base_iri
    plan = UpdatePlan(text=text)
    insertions: list[tuple[int, str]] = []
    using = "".join(f" USING <{g}>" for g in using_graphs) + "".join(f" USING NAMED <{g}>" for g in using_named_graphs)

    def iri(token: _Token) -> str | None:
        if token.kind == "iri":
            value = token.text[1:-1]
            return urljoin(base, value) if base and ":" not in value.split("/")[0] else value
        if token.kind == "pname":
            prefix, _, local = token.text.partition(":")
            if prefix in prefixes:
                return prefixes[prefix] + local
        return None

    def block_end(i: int) -> int:
        """Index just past the {...} block opening at tokens[i]."""
        depth = 0
        for j in range(i, len(tokens)):
            if tokens[j].text == "{":
                depth += 1
            elif tokens[j].text == "}":
                depth -= 1
                if depth == 0:
                    return j + 1
        return len(tokens)

    def template(i: int, with_graph: str | None) -> int:
        """Record the graphs a quad template starting at tokens[i] ('{') writes."""
        end = block_end(i)
        depth = 0
        j = i
        outside_graph = False
        while j < end:
            t = tokens[j]
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
            elif depth == 1 and t.kind == "word" and t.text.upper() == "GRAPH" and j + 1 < end:
                target = tokens[j + 1]
                if target.kind == "var":
                    plan.any_graph = True
                else:
                    found = iri(target)
                    if found:
                        plan.graphs.add(found)
                j = block_end(j + 2)
                continue
            elif depth == 1 and t.text not in ("{", "}", ".", ";", ","):
                outside_graph = True
            j += 1
        if outside_graph:
            if with_graph:
                plan.graphs.add(with_graph)
            else:
                plan.default_graph = True
        return end

    def graph_ref(i: int) -> int:
        """A GraphRef / GraphOrDefault / GraphRefAll at tokens[i]; returns the next index."""
        t = tokens[i] if i < len(tokens) else None
        if t is None:
            return i
        word = t.text.upper() if t.kind == "word" else ""
        if word == "DEFAULT":
            plan.default_graph = True
            return i + 1
        if word in ("ALL", "NAMED"):
            plan.any_graph = True
            if word == "ALL":
                plan.default_graph = True
            return i + 1
        if word == "GRAPH":
            return graph_ref(i + 1)
        found = iri(t)
        if found:
            plan.graphs.add(found)
        return i + 1

    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        word = t.text.upper() if t.kind == "word" else ""
        if word == "PREFIX" and i + 2 < n:
            prefixes[tokens[i + 1].text.rstrip(":")] = tokens[i + 2].text[1:-1]
            i += 3
            continue
        if word == "BASE" and i + 1 < n:
            base = urljoin(base, tokens[i + 1].text[1:-1]) if base else tokens[i + 1].text[1:-1]
            i += 2
            continue
        if t.text == ";":
            i += 1
            continue
        if word in ("INSERT", "DELETE"):
            nxt = tokens[i + 1].text.upper() if i + 1 < n else ""
            if nxt in ("DATA", "WHERE"):
                i = template(i + 2, None)
                continue
            i = _modify(tokens, i, None, template, insertions, using)
            continue
        if word == "WITH":
            with_graph = iri(tokens[i + 1]) if i + 1 < n else None
            if using:
                raise QueryError("the request has WITH and the protocol gives using-graph-uri: choose one")
            i = _modify(tokens, i + 2, with_graph, template, insertions, using)
            continue
        if word == "LOAD":
            j = i + 1
            while j < n and not (tokens[j].kind == "word" and tokens[j].text.upper() == "INTO"):
                if tokens[j].text == ";":
                    break
                j += 1
            if j < n and tokens[j].text.upper() == "INTO":
                i = graph_ref(j + 1)
            else:
                plan.default_graph = True
                i = j
            continue
        if word in ("CLEAR", "DROP", "CREATE"):
            j = i + 1
            if j < n and tokens[j].text.upper() == "SILENT":
                j += 1
            i = graph_ref(j)
            continue
        if word in ("ADD", "MOVE", "COPY"):
            j = i + 1
            if j < n and tokens[j].text.upper() == "SILENT":
                j += 1
            before = (set(plan.graphs), plan.default_graph)
            j = graph_ref(j)
            if word != "MOVE":  # ADD and COPY only read their source
                plan.graphs, plan.default_graph = before
            if j < n and tokens[j].text.upper() == "TO":
                j = graph_ref(j + 1)
            i = j
            continue
        i += 1

    for position, clause in sorted(insertions, reverse=True):
        text = text[:position] + clause + " " + text[position:]
    plan.text = text
    return plan


def _modify(  # type: ignore[no-untyped-def]
    tokens, i, with_graph, template, insertions, using
) -> int:
    """DELETE {..} INSERT {..} USING .. WHERE {..} starting at tokens[i]."""
    n = len(tokens)
    has_using = False
    while i < n:
        t = tokens[i]
        word = t.text.upper() if t.kind == "word" else ""
        if word in ("DELETE", "INSERT") and i + 1 < n and tokens[i + 1].text == "{":
            i = template(i + 1, with_graph)
            continue
        if word == "USING":
            has_using = True
            i += 2 if i + 1 < n and tokens[i + 1].text.upper() != "NAMED" else 3
            continue
        if word == "WHERE" or t.text == "{":
            if using:
                if has_using:
                    raise QueryError("the request has USING and the protocol gives using-graph-uri: choose one")
                insertions.append((t.start, using))
            end = i + 1 if word == "WHERE" else i
            depth = 0
            for j in range(end, n):
                if tokens[j].text == "{":
                    depth += 1
                elif tokens[j].text == "}":
                    depth -= 1
                    if depth == 0:
                        return j + 1
            return n
        i += 1
    return i


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


__all__ = ["UpdatePlan", "WriteRefusedError", "check_policy", "plan_update"]
