"""JSON Lines fact records, the format for pipelines: one JSON object per line.

::

    {"subject": "http://ex.org/aspirin", "predicate": "http://ex.org/treats",
     "object": "http://ex.org/headache",
     "passage": {"text": "Aspirin relieves headache.", "page": 3, "section": "Results",
                 "start": 120, "end": 146},
     "confidence": 0.82, "method": "llm_extraction", "reviewer": "https://orcid.org/0000-0002-1825-0097"}
    {"subject": "http://ex.org/aspirin", "predicate": "http://ex.org/dose",
     "literal": "500", "datatype": "xsd:integer"}
    {"subject": "_:b1", "predicate": "http://www.w3.org/2000/01/rdf-schema#label",
     "literal": "aspirine", "lang": "fr"}

``object`` is an IRI (or ``_:label``); ``literal`` with optional ``datatype`` (an IRI, or
``xsd:NAME``) or ``lang`` is a literal. ``passage`` may also be a plain string.
Unknown fields are errors, so a typo does not silently drop provenance.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import IO, Annotated, Any
from urllib.parse import urljoin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from provgraph.errors import InputError
from provgraph.ingest.guard import InputGuard, LineLimit
from provgraph.ingest.records import Assertion, LiteralCanonicalizer, PassageSpec
from provgraph.models import ExtractionMethod
from provgraph.store.terms import BlankNode, Literal, NamedNode
from provgraph.vocab import XSD_NS


class PassageRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1)]
    page: Annotated[int, Field(ge=1)] | None = None
    section: str | None = None
    start: Annotated[int, Field(ge=0)] | None = None
    end: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _offsets(self) -> PassageRecord:
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("passage end must be greater than start")
        return self


class FactRecord(BaseModel):
    """One line of a JSON Lines fact file."""

    model_config = ConfigDict(extra="forbid")

    subject: Annotated[str, Field(min_length=1)]
    predicate: Annotated[str, Field(min_length=1)]
    object: str | None = None
    literal: str | None = None
    datatype: str | None = None
    lang: str | None = None
    passage: PassageRecord | str | None = None
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    method: ExtractionMethod | None = None
    reviewer: str | None = None
    last_verified: datetime | None = None

    @model_validator(mode="after")
    def _object_or_literal(self) -> FactRecord:
        if (self.object is None) == (self.literal is None):
            raise ValueError("give exactly one of 'object' (an IRI) or 'literal'")
        if self.object is not None and (self.datatype or self.lang):
            raise ValueError("'datatype' and 'lang' go with 'literal', not 'object'")
        if self.datatype and self.lang:
            raise ValueError("a literal has a 'datatype' or a 'lang', not both")
        return self

    @field_validator("last_verified")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("last_verified needs a time zone, e.g. 2024-03-01T12:00:00Z")
        return value


def read_jsonl(
    stream: IO[bytes], *, file: str, base: str | None, guard: InputGuard | None = None
) -> Iterator[Assertion]:
    """Yield one assertion per record; the first bad line stops the ingest with its number.
    Every record passes ``guard`` (no provgraph IRIs, literals that match their datatype)."""
    guard = guard if guard is not None else InputGuard(file)
    blank_nodes: dict[str, str] = {}
    canonical = LiteralCanonicalizer()
    for number, raw in enumerate(LineLimit(stream, file), start=1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"not UTF-8 (byte {exc.start + 1} of the line): JSON Lines must be UTF-8 encoded",
                file=file,
                line=number,
            ) from exc
        if not line.strip():
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=file, line=number, column=exc.colno) from exc
        except RecursionError:
            raise InputError("JSON nested too deeply for a fact record", file=file, line=number) from None
        if not isinstance(data, dict):
            raise InputError("a fact record must be a JSON object", file=file, line=number)
        try:
            record = FactRecord.model_validate(data)
        except ValidationError as exc:
            raise InputError(_pydantic_message(exc), file=file, line=number) from exc
        try:
            assertion = _to_assertion(record, base, blank_nodes, canonical, guard, number)
        except ValueError as exc:
            raise InputError(str(exc), file=file, line=number) from exc
        for term in (assertion.subject, assertion.predicate, assertion.object, assertion.reviewer):
            if term is not None:
                guard.ntriples(term, line=number)
        if assertion.passage is not None:
            guard.size(assertion.passage.text, "a passage", line=number)
        yield assertion


def _pydantic_message(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        # drop pydantic's own steps ("function-after[...]", union member names) from the location
        where = ".".join(str(p) for p in error["loc"] if "[" not in str(p) and str(p) != "PassageRecord")
        problems.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "invalid fact record: " + "; ".join(problems)


def _iri(value: str, base: str | None, what: str) -> str:
    try:
        return str(NamedNode(value))
    except ValueError:
        if base is not None:
            try:
                return str(NamedNode(urljoin(base, value)))
            except ValueError:
                pass
        hint = "" if base else " (a relative IRI: pass --base IRI to resolve it)"
        raise ValueError(f"{what} is not a valid absolute IRI: {value!r}{hint}") from None


def _node(value: str, base: str | None, blank_nodes: dict[str, str], what: str) -> str:
    if value.startswith("_:"):
        # Labels are scoped to the file; fresh ids keep two files' _:b1 apart.
        if value not in blank_nodes:
            blank_nodes[value] = str(BlankNode())
        return blank_nodes[value]
    return _iri(value, base, what)


def _to_assertion(
    record: FactRecord,
    base: str | None,
    blank_nodes: dict[str, str],
    canonical: LiteralCanonicalizer,
    guard: InputGuard,
    line: int,
) -> Assertion:
    subject = _node(record.subject, base, blank_nodes, "subject")
    predicate = _iri(record.predicate, base, "predicate")
    if record.object is not None:
        obj = _node(record.object, base, blank_nodes, "object")
    elif record.lang:
        try:
            obj = str(Literal(record.literal or "", language=record.lang))
        except ValueError as exc:
            raise ValueError(f"invalid language tag {record.lang!r}: {exc}") from None
    elif record.datatype:
        dt = record.datatype
        if dt.startswith("xsd:"):
            dt = XSD_NS + dt[4:]
        literal = Literal(record.literal or "", datatype=NamedNode(_iri(dt, None, "datatype")[1:-1]))
        guard.literal(literal.value, literal.datatype.value, line=line)
        obj = canonical(literal)
    else:
        obj = str(Literal(record.literal or ""))
    passage = record.passage
    spec: PassageSpec | None
    if passage is None:
        spec = None
    elif isinstance(passage, str):
        spec = PassageSpec(text=passage)
    else:
        spec = PassageSpec(passage.text, passage.page, passage.section, passage.start, passage.end)
    return Assertion(
        subject,
        predicate,
        obj,
        passage=spec,
        confidence=record.confidence,
        method=record.method.value if record.method else None,
        reviewer=_iri(record.reviewer, base, "reviewer") if record.reviewer else None,
        last_verified=record.last_verified.isoformat() if record.last_verified else None,
    )


__all__ = ["FactRecord", "PassageRecord", "read_jsonl"]
