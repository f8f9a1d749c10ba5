"""Content negotiation: choosing a response media type from an Accept header (RFC 9110)."""

from __future__ import annotations

from dataclasses import dataclass

from provgraph.models import ExportFormat, ResultFormat

#: SELECT/ASK result media types, the first the default.
RESULT_TYPES: dict[str, ResultFormat] = {
    "application/sparql-results+json": ResultFormat.JSON,
    "application/sparql-results+xml": ResultFormat.XML,
    "text/csv": ResultFormat.CSV,
    "text/tab-separated-values": ResultFormat.TSV,
    "application/json": ResultFormat.JSON,
    "application/xml": ResultFormat.XML,
    "text/xml": ResultFormat.XML,
    "text/plain": ResultFormat.TABLE,
}
#: RDF media types (CONSTRUCT/DESCRIBE, Graph Store, export), the first the default.
RDF_TYPES: dict[str, ExportFormat] = {
    "text/turtle": ExportFormat.TURTLE,
    "application/n-triples": ExportFormat.NTRIPLES,
    "application/n-quads": ExportFormat.NQUADS,
    "application/trig": ExportFormat.TRIG,
    "application/ld+json": ExportFormat.JSONLD,
    "application/rdf+xml": ExportFormat.RDFXML,
    "application/x-turtle": ExportFormat.TURTLE,
    "text/plain": ExportFormat.NTRIPLES,
    "application/xml": ExportFormat.RDFXML,
    "application/json": ExportFormat.JSONLD,
}
MEDIA_TYPE_OF: dict[ResultFormat | ExportFormat, str] = {
    ResultFormat.JSON: "application/sparql-results+json",
    ResultFormat.XML: "application/sparql-results+xml",
    ResultFormat.CSV: "text/csv; charset=utf-8",
    ResultFormat.TSV: "text/tab-separated-values; charset=utf-8",
    ResultFormat.TABLE: "text/plain; charset=utf-8",
    ExportFormat.TURTLE: "text/turtle; charset=utf-8",
    ExportFormat.NTRIPLES: "application/n-triples",
    ExportFormat.NQUADS: "application/n-quads",
    ExportFormat.TRIG: "application/trig",
    ExportFormat.JSONLD: "application/ld+json",
    ExportFormat.RDFXML: "application/rdf+xml",
}


@dataclass(frozen=True)
class _Range:
    type: str
    subtype: str
    q: float
    order: int

    def matches(self, media_type: str) -> int:
        """Specificity of the match (3 exact, 2 type/*, 1 */*), 0 for none."""
        t, _, s = media_type.partition("/")
        if self.type == "*" and self.subtype == "*":
            return 1
        if self.type == t and self.subtype == "*":
            return 2
        return 3 if (self.type, self.subtype) == (t, s) else 0


def _ranges(accept: str | None) -> list[_Range]:
    if not accept or not accept.strip():
        return [_Range("*", "*", 1.0, 0)]
    ranges = []
    for order, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if "/" not in media:
            continue
        q = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        t, _, s = media.partition("/")
        ranges.append(_Range(t, s, q, order))
    return ranges


def choose(accept: str | None, offered: list[str]) -> str | None:
    """The offered media type the client prefers most (ties: the server's order), or None."""
    ranges = _ranges(accept)
    best: tuple[float, int, int] | None = None
    chosen = None
    for index, media in enumerate(offered):
        matched = [(r.matches(media), r) for r in ranges if r.matches(media)]
        if not matched:
            continue
        specificity, rng = max(matched, key=lambda m: (m[0], -m[1].order))
        if rng.q <= 0:
            continue
        key = (rng.q, specificity, -index)
        if best is None or key > best:
            best, chosen = key, media
    return chosen
