"""What an ingest is told: :class:`IngestOptions`, one pydantic model for the API, the command
line and HTTP.

Each option is defined here once, with its description and its checks; ``provgraph ingest``
builds its flags from the fields (provgraph.cli.ingest_flags) and ``POST /sources`` its form
fields (provgraph.http.api), so the three say and check the same. A bad option is an
:class:`~provgraph.errors.InputError` naming it, raised when the options are made, before any
file is read:

>>> IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", tier=2).tier
2
>>> IngestOptions(tier=9)
Traceback (most recent call last):
...
provgraph.errors.InputError: tier must be from 1 to 5, not 9
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

from annotated_types import Ge, Le
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from provgraph.errors import InputError
from provgraph.ingest.guard import RESERVED_BASE
from provgraph.ingest.reify import xsd_datetime
from provgraph.models import Extraction, ExtractionMethod, GraphSplit, InputFormat
from provgraph.store.terms import NamedNode, parse_datetime
from provgraph.vocab import XSD_NS


@dataclass(frozen=True)
class Metavar:
    """How ``--help`` names an option's value (``IRI``, ``DATE``); pydantic ignores it."""

    text: str


@dataclass(frozen=True)
class NotFingerprinted:
    """An option left out of a document's fingerprint: changing it alone re-ingests nothing."""

    why: str


class IngestOptions(BaseModel):
    """Everything ``ProvGraph.ingest`` (and ``validate``) is told about one input file, checked."""

    # A misspelt option must fail, not silently drop provenance.
    model_config = ConfigDict(frozen=True, extra="forbid")

    title: Annotated[str | None, Metavar("TEXT")] = Field(
        default=None,
        description="Document title (default: a Markdown document's first level-1 heading, an HTML "
        "document's first <h1>, else its <title>, else the file name).",
    )
    url: Annotated[str | None, Metavar("URL")] = Field(
        default=None,
        description="Where the document can be read (an absolute IRI); its identity unless an id is given.",
        examples=["https://example.org/aspirin"],
    )
    issued: Annotated[str | date | datetime | None, Metavar("DATE")] = Field(
        default=None,
        description="Publication date: 2024-03-01, 2024-03, 2024 or a date-time with a time zone.",
        examples=["2024-03-01"],
    )
    tier: Annotated[int, Metavar("1-5")] = Field(
        default=3, ge=1, le=5, description="Source tier, 1 (curated) to 5 (unverified).", examples=[2]
    )
    publisher: Annotated[str | None, Metavar("IRI|NAME")] = Field(
        default=None, description="Publisher (an IRI or a name).", examples=["Example Pharma"]
    )
    id: Annotated[str | None, Metavar("KEY"), NotFingerprinted("it is the identity the fingerprint is kept under")] = (
        Field(
            default=None,
            description="Document identity (default: the url, else the file path). An upload, which has "
            "no path, needs an id or a url.",
            examples=["aspirin-facts"],
        )
    )
    format: Annotated[InputFormat | None, Metavar("FORMAT")] = Field(
        default=None,
        description="Input format (default: from the extension): "
        + ", ".join(f.value for f in InputFormat)
        + "; extensions and media types name them too (ttl, nt, nq, rdf, md, text/turtle).",
    )
    method: ExtractionMethod | None = Field(
        default=None, description="Extraction method of the statements that do not give one (default: source_data)."
    )
    confidence: Annotated[float | None, Metavar("0-1")] = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Default statement confidence, 0 to 1 (default: the extraction method's).",
        examples=[0.9],
    )
    base: Annotated[str | None, Metavar("IRI")] = Field(
        default=None, description="Base IRI to resolve relative IRIs against."
    )
    shapes: Annotated[
        tuple[Path, ...], Metavar("FILE"), NotFingerprinted("they check what is written and change none of it")
    ] = Field(default=(), description="Extra SHACL shapes, checked with the built-in ones.")
    split: GraphSplit | None = Field(default=None, description="Split the file's named graphs into several documents.")
    agent: Annotated[str | None, Metavar("IRI")] = Field(
        default=None, description="IRI of the person or pipeline ingesting."
    )
    reviewer: Annotated[str | None, Metavar("IRI")] = Field(
        default=None, description="IRI of the reviewer of every statement without one."
    )
    extract: Annotated[
        Extraction | None, NotFingerprinted("a text document's fingerprint holds the extraction it ran instead")
    ] = Field(
        default=None,
        description="Facts from a text document (text, Markdown, HTML, PDF): llm (the language model the "
        "PROVGRAPH_LLM_* variables configure), rules (offline sentence patterns) or none (passages only). "
        "Default: rules.",
    )
    lenient: Annotated[bool, NotFingerprinted("it changes what is accepted, not what is written")] = Field(
        default=False,
        description='Keep literals that do not match their datatype ("abc"^^xsd:integer), counted in the report, '
        "instead of refusing the input.",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _worded(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> IngestOptions:
        # pydantic's ValidationError is not a ProvGraphError: every shell shows an InputError
        # as a clear 400 or exit 2, and names the option.
        try:
            options: IngestOptions = handler(data)
        except ValidationError as exc:
            raise InputError("; ".join(_problem(error) for error in exc.errors())) from None
        return options

    @field_validator("confidence", mode="wrap")
    @classmethod
    def _keep_number(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> float | None:
        # 1 stays 1, not 1.0: the fingerprint keeps what the caller gave, as it always has
        checked: float | None = handler(value)
        return value if isinstance(value, int) and not isinstance(value, bool) else checked

    @field_validator("url", "agent", "reviewer", "base")
    @classmethod
    def _iri(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        try:
            NamedNode(value)
        except ValueError:
            raise ValueError(f"--{info.field_name} must be an absolute IRI, not {value!r}") from None
        if info.field_name in ("agent", "reviewer") and value.startswith(RESERVED_BASE):
            raise ValueError(f"--{info.field_name} may not be one of provgraph's own IRIs ({value})")
        return value

    @field_validator("title")
    @classmethod
    def _title(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("--title must not be empty")
        return value

    @field_validator("issued")
    @classmethod
    def _issued(cls, value: str | date | datetime | None) -> str | date | datetime | None:
        issued_literal(value)  # kept as given (the fingerprint has it so); only checked here
        return value

    @field_validator("split")
    @classmethod
    def _split(cls, value: GraphSplit | None) -> GraphSplit | None:
        if value is not None:
            try:
                re.compile(value.pattern)
            except re.error as exc:
                raise ValueError(f"bad --split-graphs pattern: {exc}") from None
        return value

    def fingerprint_fields(self) -> dict[str, object]:
        """The options a document's fingerprint holds: identical content ingested again with
        these unchanged is a no-op. Each value as JSON has held it since the first store."""
        return {
            name: _fingerprinted(getattr(self, name))
            for name, field in type(self).model_fields.items()
            if not any(isinstance(m, NotFingerprinted) for m in field.metadata)
        }


def _fingerprinted(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, GraphSplit):
        return value.pattern  # its metadata file's content is in the document hash instead
    if isinstance(value, date):
        return str(value)
    return value


def _problem(error: Any) -> str:
    """One pydantic error as a sentence that names the option."""
    name = ".".join(str(part) for part in error["loc"]) or "options"
    kind = error["type"]
    if kind == "value_error":
        return str(error["ctx"]["error"])  # written above, option and all
    if kind == "extra_forbidden":
        return f"{name}: unknown field"
    if kind in ("greater_than_equal", "less_than_equal") and name in IngestOptions.model_fields:
        low, high = _bounds(name)
        return f"{name} must be from {low} to {high}, not {error['input']}"
    return f"{name}: {error['msg']}"


def _bounds(name: str) -> tuple[object, object]:
    metadata = IngestOptions.model_fields[name].metadata
    low = next(m.ge for m in metadata if isinstance(m, Ge))
    high = next(m.le for m in metadata if isinstance(m, Le))
    return _plain(low), _plain(high)


def _plain(number: object) -> object:
    return int(number) if isinstance(number, float) and number.is_integer() else number


def issued_literal(value: str | date | datetime | None) -> tuple[str, str] | None:
    """The publication date as an XSD literal (lexical form, datatype IRI); ValueError if it is none."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("--issued date-time needs a time zone")
        return xsd_datetime(value), XSD_NS + "dateTime"
    if isinstance(value, date):
        return value.isoformat(), XSD_NS + "date"
    text = value.strip()
    if re.fullmatch(r"\d{4}", text):
        return text, XSD_NS + "gYear"
    if re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text):
        return text, XSD_NS + "gYearMonth"
    try:
        return date.fromisoformat(text).isoformat(), XSD_NS + "date"
    except ValueError:
        pass
    try:
        moment = parse_datetime(text)
    except ValueError:
        raise ValueError(f"--issued must be a date (2024-03-01), year-month, year or date-time, not {text!r}") from None
    if moment.tzinfo is None:
        raise ValueError("--issued date-time needs a time zone, e.g. 2024-03-01T12:00:00Z")
    return xsd_datetime(moment.astimezone(UTC)), XSD_NS + "dateTime"


__all__ = ["IngestOptions", "Metavar", "NotFingerprinted", "issued_literal"]
