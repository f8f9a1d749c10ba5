"""A PROV document as a picture people can read: Graphviz DOT, and SVG drawn from it by Graphviz.

The ``prov`` package draws every node by its qualified name (``pgid:statement/9f3a...``, 64 hex
digits) and puts what it says in attribute boxes. Here each node is named by what it is, from its
attributes:

- a statement by its fact, "Amsterdam · population total · 872757";
- a passage by the start of its text, in quotes;
- a document by its title, a source graph by its version and status;
- an activity by its kind and time, an agent by its label;
- in an answer's record, the answer by its question, a claim by its text, a context segment by
  its name or text.

Nodes keep PROV's shapes and colours (entities yellow ellipses, activities blue boxes, agents
orange houses) and every PROV relation is an edge named by its relation, left to right: facts,
passages, documents and versions, activities, agents. Attributes stay in the PROV-N, PROV-JSON and
PROV-XML exports.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from urllib.parse import unquote

from prov.constants import PROV_N_MAP
from prov.model import (
    ProvActivity,
    ProvAgent,
    ProvDocument,
    ProvElement,
    ProvEntity,
    ProvRecord,
    ProvRelation,
)

from provgraph.errors import ProvGraphError, UnsupportedFormatError
from provgraph.vocab import DCTERMS_NS, PG_NS, PROV_NS, RDF_NS

#: Characters of a label (a passage's text, a long value) before it is cut.
LABEL_CHARS = 60
#: Graphviz's ``dot``, which lays out the SVG picture (Debian package ``graphviz``).
GRAPHVIZ_PACKAGE = "graphviz"

_STYLE = {
    ProvEntity: 'shape=ellipse, style=filled, fillcolor="#FFFC87", color="#808080"',
    ProvActivity: 'shape=box, style=filled, fillcolor="#9FB1FC", color="#0000FF"',
    ProvAgent: 'shape=house, style=filled, fillcolor="#FED37F"',
}
#: Left to right: what a node is, by its type, gives its column.
_RANK = {
    PG_NS + "Statement": 0,
    PG_NS + "Passage": 1,
    PG_NS + "SourceDocument": 2,
    PG_NS + "SourceGraph": 2,
}


class GraphvizMissingError(UnsupportedFormatError):
    """SVG needs Graphviz's ``dot`` program, which is not installed."""


def to_dot(doc: ProvDocument) -> str:
    """The document as a Graphviz DOT digraph (see the module docstring)."""
    ids: dict[str, str] = {}
    lines = [
        "digraph provenance {",
        '  graph [rankdir=LR, fontname="Helvetica", nodesep=0.25, ranksep=0.9];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, color="#555555"];',
    ]
    columns: dict[int, list[str]] = {}
    names = _names(doc)
    for element in _elements(doc):
        if str(element.identifier) in ids:
            continue  # the same node from another graph (an agent, a fact's evidence in several sources)
        node = ids.setdefault(str(element.identifier), f"n{len(ids)}")
        style = next(s for kind, s in _STYLE.items() if isinstance(element, kind))
        text = label(element, names)
        lines.append(f"  {node} [label={_quote(text)}, {style}, tooltip={_quote(str(element.identifier))}];")
        columns.setdefault(_column(element), []).append(node)
    for column in sorted(columns):
        lines.append(f"  {{ rank=same; {' '.join(columns[column])} }}")
    for relation in _relations(doc):
        ends = [str(v) for _, v in relation.formal_attributes[:2] if v is not None]
        if len(ends) == 2 and all(e in ids for e in ends):
            name = PROV_N_MAP.get(relation.get_type(), str(relation.get_type()))
            lines.append(f"  {ids[ends[0]]} -> {ids[ends[1]]} [label={_quote(_relation_name(relation, name))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_svg(doc: ProvDocument) -> bytes:
    """The picture as SVG, laid out by Graphviz's ``dot``. Raises :class:`GraphvizMissingError`
    when it is not installed."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizMissingError(
            f"SVG is drawn by Graphviz's dot, which is not installed (Debian package {GRAPHVIZ_PACKAGE}); "
            "--format dot writes the picture for it"
        )
    done = subprocess.run([program, "-Tsvg"], input=to_dot(doc).encode("utf-8"), capture_output=True, check=False)
    if done.returncode != 0:
        raise ProvGraphError(f"Graphviz could not draw the picture: {done.stderr.decode(errors='replace')[:300]}")
    return done.stdout


def _names(doc: ProvDocument) -> dict[str, str]:
    """The labels the document's statements give (``rdfs:label``, ``skos:prefLabel``), by IRI."""
    found: dict[str, str] = {}
    for element in _elements(doc):
        if _first(element, RDF_NS + "predicate") in _LABELS:
            subject, value = _first(element, RDF_NS + "subject"), _first(element, RDF_NS + "object")
            if subject and value:
                found.setdefault(subject, value)
    return found


#: What names a node of an answer's record, by its text field, best first.
_RECORD_TEXT = (
    ("question", "answer to “{}”"),
    ("claimText", "claim: {}"),
    ("segmentName", "{}"),
    ("content", "“{}”"),
)
_LABELS = {"http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel"}


def label(element: ProvElement, names: dict[str, str] | None = None) -> str:
    """What a node is, in words (see the module docstring); ``names`` gives the labels of IRIs."""
    names = names or {}
    types = {_uri(t) for t in element.get_asserted_types()} | {_uri(v) for v in _values(element, RDF_NS + "type")}
    text = _first(element, PG_NS + "text")
    if PG_NS + "Statement" in types or _first(element, RDF_NS + "subject"):
        parts = [_first(element, RDF_NS + n) for n in ("subject", "predicate", "object")]
        return " · ".join(_cut(names.get(p) or _words(p)) for p in parts if p)
    if text:
        return f"“{_cut(text)}”"
    # an answer's record: the answer, its claims, the context segments it was built from
    for field, template in _RECORD_TEXT:
        value = _first(element, PG_NS + field)
        if value:
            return template.format(_cut(value))
    if PG_NS + "Draft" in types:
        return "draft"
    if PG_NS + "SourceGraph" in types:
        version, status = _first(element, PG_NS + "version"), _first(element, PG_NS + "status")
        return f"version {version}" + (f" ({_words(status).lower()})" if status else "")
    title = _first(element, DCTERMS_NS + "title") or _first(element, PROV_NS + "label")
    if title:
        return _cut(title)
    if isinstance(element, ProvActivity):
        kind = next((_words(t).lower() for t in types if not t.startswith(PROV_NS)), "activity")
        started = element.get_startTime()
        return f"{kind}\n{started.isoformat(timespec='seconds')}" if started else kind
    return _cut(_words(_uri(element.identifier)))


def _elements(doc: ProvDocument) -> Iterator[ProvElement]:
    for record in doc.get_records():
        if isinstance(record, ProvElement):
            yield record


def _relations(doc: ProvDocument) -> Iterator[ProvRelation]:
    for record in doc.get_records():
        if isinstance(record, ProvRelation):
            yield record


def _relation_name(relation: ProvRelation, name: str) -> str:
    """A derivation's subtype names it (wasQuotedFrom, wasRevisionOf), as in PROV-N."""
    for kind in relation.get_asserted_types():
        local = str(getattr(kind, "localpart", kind))
        if local == "Quotation":
            return "wasQuotedFrom"
        if local == "Revision":
            return "wasRevisionOf"
    return name


def _column(element: ProvRecord) -> int:
    if isinstance(element, ProvAgent):
        return 4
    if isinstance(element, ProvActivity):
        return 3
    types = {_uri(t) for t in element.get_asserted_types()}
    return min((_RANK[t] for t in types if t in _RANK), default=0 if _first(element, RDF_NS + "subject") else 2)


def _values(element: ProvRecord, iri: str) -> list[object]:
    return [v for k, v in element.attributes if _uri(k) == iri]


def _first(element: ProvRecord, iri: str) -> str | None:
    found = _values(element, iri)
    if not found:
        return None
    value = found[0]
    return _uri(value) if hasattr(value, "uri") else str(getattr(value, "value", value))


def _uri(value: object) -> str:
    return str(getattr(value, "uri", value))


def _words(value: str) -> str:
    """An IRI's last segment as words: a property's camel case in lower case ("populationTotal"
    -> "population total", "ExtractionActivity" -> "extraction activity"), a name as it is
    ("Bell_Rock_Lighthouse" -> "Bell Rock Lighthouse");
    any other value as it is."""
    if not re.match(r"^[a-z][a-z0-9+.-]*:", value):
        return value
    local = unquote(re.split(r"[/#]", value.rstrip("/#"))[-1]) or value
    if local[:1].islower() or (local.isalnum() and re.search(r"[a-z][A-Z]", local)):
        return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", local).replace("_", " ").lower()
    return local.replace("_", " ")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


__all__ = ["GRAPHVIZ_PACKAGE", "GraphvizMissingError", "label", "to_dot", "to_svg"]
