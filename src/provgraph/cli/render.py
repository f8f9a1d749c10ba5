"""Readable output for people. ``--json`` output is the pydantic models themselves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.markup import escape as _escape

if TYPE_CHECKING:
    from rich.console import Console

    from provgraph.models import Evidence, IngestReport, SourceInfo


def escape(text: str) -> str:
    return _escape(text)


def columns(out: Console, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows in aligned columns, nothing cut and no box: IRIs and keys stay whole on their line, to
    be copied. The last column (a title, free text) may run past the terminal's width."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]

    def line(cells: Sequence[str]) -> str:
        return "  ".join([*(c.ljust(w) for c, w in zip(cells, widths, strict=False)), cells[-1]]).rstrip()

    out.print(f"[bold]{escape(line(headers))}[/]")
    for row in rows:
        out.print(line(row), markup=False)


def _short(text: str | None, width: int = 70) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def ingest_report(out: Console, report: IngestReport) -> None:
    if report.unchanged:
        out.print(
            f"{escape(report.file)}: unchanged, nothing written "
            f"({report.document_count} document{'s' if report.document_count != 1 else ''} already current)"
        )
        return
    changed = report.changed
    out.print(
        f"{escape(report.file)}: {report.statements} statements, {report.passages} passages, "
        f"{report.quads} quads in {changed} graph{'s' if changed != 1 else ''} "
        f"({report.seconds:.2f} s); SHACL: conforms"
    )
    if report.ill_typed_literals:
        out.print(f"  kept {report.ill_typed_literals} ill-typed literal(s) (--lenient)")
    if report.extraction is not None:
        dropped = f", {report.facts_dropped} dropped (evidence not in the passage)" if report.facts_dropped else ""
        cut = (
            f"; {report.passages_cut} passage(s) read only in part (the model's reply was cut)"
            if report.passages_cut
            else ""
        )
        out.print(f"  facts from text ({report.extraction.value}): {report.facts_extracted}{dropped}{cut}")
    for doc in report.documents[:20]:
        what = {"created": "new", "new_version": f"version {doc.version}", "unchanged": "unchanged"}[doc.outcome.value]
        out.print(f"  {what:<11} {escape(doc.title)}  <{doc.graph}>")
    if report.document_count > 20:
        out.print(f"  ... and {report.document_count - 20} more documents")


def validation_report(out: Console, report: IngestReport) -> None:
    v = report.validation
    if v.conforms:
        out.print(
            f"{escape(report.file)}: conforms ({v.nodes_checked} nodes checked; "
            f"would write {_would_write(report)}{report.changed} graph(s)); nothing written"
        )
        return
    out.print(f"{escape(report.file)}: does NOT conform: {v.issue_count} issue(s); nothing written")
    for issue in v.issues:
        out.print(escape(issue.describe()))
    if v.issue_count > len(v.issues):
        out.print(f"... and {v.issue_count - len(v.issues)} more")


def sources(out: Console, found: list[SourceInfo], *, total: int | None = None) -> None:
    """The documents in aligned columns; ``total``: how many the store holds, when ``found`` is a part."""
    if not found:
        out.print("no source documents yet (provgraph ingest FILE)")
        return
    rows = []
    for s in found:
        newest = s.versions[0]
        rows.append(
            [
                s.key,
                str(s.tier),
                str(newest.version),
                s.status.value,
                str(newest.statements),
                str(len(s.versions)),
                s.title,
            ]
        )
    # keys whole: revoke, related and ask --document take them
    columns(out, ["key", "tier", "version", "status", "statements", "versions", "title"], rows)
    if total is not None and total != len(found):
        out.print(f"{len(found)} of {total} documents shown")
    else:
        out.print(f"{len(found)} document{'s' if len(found) != 1 else ''}")


def evidence(
    out: Console, found: list[Evidence], *, subject: str, predicate: str, names: Sequence[Evidence] = ()
) -> None:
    if names and predicate != names[0].predicate:
        # the names the subject was merged by, and who said each is a name of it
        said = "; ".join(
            f"{escape(_value(n.object))} ({escape(_short(n.title, 40))}, {n.confidence:.2f})" for n in names
        )
        out.print(f"also named: {said}")
    if not found:
        out.print(f"no evidence for <{escape(subject)}> <{escape(predicate)}> in current sources")
        return
    values = sorted({e.object for e in found})
    out.print(
        f"{len(found)} statement{'s' if len(found) != 1 else ''} from "
        f"{len({e.document for e in found})} source(s), {len(values)} distinct value(s)"
    )
    for value in values:
        # the fact's standing across sources: aggregated confidence and status (same for each statement)
        first = next(e for e in found if e.object == value)
        if first.fact_status is not None and first.fact_confidence is not None:
            standing = f"{first.fact_status.value}, confidence {first.fact_confidence:.2f}"
            out.print(f"  {escape(_short(_value(value), 50))}: {standing}")
    from rich.table import Table

    table = Table("value", "source", "tier", "conf.", "method", "status", "passage / provenance")
    for e in found:
        detail = _short(e.passage.text, 60) if e.passage else ""
        if not detail and e.attributes:
            detail = "; ".join(
                f"{k.rsplit('/', 1)[-1].rsplit('#', 1)[-1]}={_value(v[0])}" for k, v in sorted(e.attributes.items())[:3]
            )
        table.add_row(
            escape(_value(e.object)),
            escape(_short(e.title, 40)),
            str(e.tier),
            f"{e.confidence:.2f}",
            e.method.value,
            e.status.value,
            escape(detail),
        )
    out.print(table)


def _value(nt: str) -> str:
    """A readable value from N-Triples: the IRI, or the literal's lexical form."""
    if nt.startswith("<") and nt.endswith(">"):
        return nt[1:-1]
    if nt.startswith('"'):
        end = nt.rfind('"')
        return nt[1:end].replace('\\"', '"').replace("\\\\", "\\")
    return nt


def _would_write(report: IngestReport) -> str:
    """The statements a dry run would write, when its report lists every document."""
    if len(report.documents) < report.document_count:
        return ""
    return f"{sum(d.statements for d in report.documents)} statements to "


def path(iris: list[str]) -> str:
    """An invalidation path, each IRI by its last segment (a graph by its document's hash and version)."""
    return " -> ".join(short(iri) for iri in iris)


def short(iri: str) -> str:
    parts = iri.rstrip("/").split("/")
    kind = parts[-2] if len(parts) > 1 else ""
    last = parts[-1]
    if kind in ("answer", "segment"):
        return f"{kind} {last[:12]}"
    if last.startswith("v") and last[1:].isdigit() and len(parts) > 2:
        return f"{parts[-2][:12]}/{last}"
    return iri
