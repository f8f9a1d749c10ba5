"""The JSON API for pipelines: upload a source (``POST /sources``), the catalog (``GET /sources``,
``GET /sources/{document}``), evidence for a fact (``GET /evidence``) and export (``GET /export``).

Handlers parse the request, call :class:`~provgraph.graph.ProvGraph` and format its answer; every
rule (validation, all or nothing, versions) lives in the core, as for the command line.
"""

from __future__ import annotations

import enum
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from provgraph import IngestOptions, Revocation
from provgraph.errors import InputError, ValidationFailedError
from provgraph.graph import ProvGraph
from provgraph.http import reads
from provgraph.http.deps import READ_ACCESS, WRITE_ACCESS, Graph, Reads, Settings
from provgraph.http.errors import AUTH_ERRORS, READ_ERRORS, TOO_LARGE_ERROR, ErrorBody, HttpError, status_of
from provgraph.http.limits import TOO_LARGE_BODY
from provgraph.http.negotiation import MEDIA_TYPE_OF
from provgraph.http.reads import Reader
from provgraph.models import (
    DerivedRecords,
    DocumentOutcome,
    Evidence,
    ExportFormat,
    IngestReport,
    SourceInfo,
    ValidationReport,
)
from provgraph.options import ProvFormat

MULTIPART = "multipart/form-data"


#: The options of IngestOptions an upload does not take as form fields: its shapes are file
#: parts, and a split names a metadata file on the server.
NOT_FORM_FIELDS = ("shapes", "split")


class InputErrorBody(ErrorBody):
    """Bad input: the message, and where in the uploaded file."""

    file: str | None = Field(None, examples=["bad.ttl"])
    line: int | None = Field(None, examples=[3])
    column: int | None = Field(None, examples=[17])


class RejectedBody(ErrorBody):
    """A SHACL rejection: nothing was written; the report names each focus node and path."""

    validation: ValidationReport


class ApiExportFormat(enum.StrEnum):
    """Every format ``GET /export`` writes: the RDF serialisations (:class:`ExportFormat`), the
    PROV documents (:class:`ProvFormat`) and nanopublications."""

    TRIG = "trig"
    NQUADS = "nquads"
    JSONLD = "jsonld"
    TURTLE = "turtle"
    NTRIPLES = "ntriples"
    RDFXML = "rdfxml"
    PROVN = "provn"
    PROVJSON = "provjson"
    PROVXML = "provxml"
    DOT = "dot"
    SVG = "svg"
    NANOPUB = "nanopub"


_REPORT_EXAMPLE = {
    "file": "aspirin.ttl",
    "format": "turtle",
    "documents": [
        {
            "document": "https://w3id.org/provgraph/id/doc/0f8a7c61c0b5bd7e2f7d5b0a43c8d2f1",
            "key": "https://example.org/aspirin",
            "title": "Aspirin facts",
            "outcome": "created",
            "graph": "https://w3id.org/provgraph/id/doc/0f8a7c61c0b5bd7e2f7d5b0a43c8d2f1/v1",
            "version": 1,
            "previous_graph": None,
            "statements": 4,
            "passages": 0,
            "quads": 67,
            "content_hash": "3f5d1e0c9a6b2f4e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e",
        }
    ],
    "statements": 4,
    "passages": 0,
    "quads": 67,
    "unchanged": False,
    "validation": {"conforms": True, "issues": [], "issue_count": 0, "nodes_checked": 12, "shapes": []},
    "dry_run": False,
    "seconds": 0.412,
}

_REJECTED_EXAMPLE = {
    "error": "bad-dose.ttl: does not conform to the SHACL shapes: 1 issue; nothing was written ...",
    "validation": {
        "conforms": False,
        "issues": [
            {
                "focus_node": "http://example.org/ibuprofen",
                "path": "http://example.org/maxDailyDoseMg",
                "value": '"3.2 g"',
                "message": "ex:maxDailyDoseMg is one integer number of milligrams, at most 10000",
                "severity": "Violation",
                "source_shape": None,
                "constraint": "http://www.w3.org/ns/shacl#DatatypeConstraintComponent",
                "document": "https://example.org/bad-dose",
            }
        ],
        "issue_count": 1,
        "nodes_checked": 9,
        "shapes": ["drug-shapes.ttl"],
    },
}

_EVIDENCE_EXAMPLE = [
    {
        "statement": "https://w3id.org/provgraph/id/stmt/393e7be81c40a64594e99b3decb7fef7a5c78ea8e257e7c5163ef58c4f2a8a20",
        "fact": "https://w3id.org/provgraph/id/fact/10329953cdbe180c274c79ddde8f66ae462f71e832373e49f1172e9f06220bce",
        "subject": "http://example.org/aspirin",
        "predicate": "http://example.org/treats",
        "object": "<http://example.org/headache>",
        "graph": "https://w3id.org/provgraph/id/doc/c73c74ba3fcf04a3d3549e1976d4c686/v1",
        "status": "current",
        "document": "https://w3id.org/provgraph/id/doc/c73c74ba3fcf04a3d3549e1976d4c686",
        "document_key": "https://example.org/trial",
        "title": "Aspirin trial report",
        "url": "https://example.org/trial",
        "tier": 3,
        "version": 1,
        "confidence": 0.86,
        "method": "llm_extraction",
        "generated_at": "2024-05-01T10:00:00Z",
        "passage": {
            "iri": "https://w3id.org/provgraph/id/passage/259217a99db4283f96e0389c1d86fdd7e92a10fa8312f3c97090cedbd7604121",
            "text": "Aspirin relieved tension headache in 72% of patients within two hours.",
            "page": 3,
            "section": "Results",
            "start": 1042,
            "end": 1113,
        },
    }
]


def _upload_schema() -> dict[str, Any]:
    """The multipart body as OpenAPI: the file parts and IngestOptions' fields, with enums inlined
    (pydantic puts them in ``$defs``, which an OpenAPI request body cannot point to)."""
    schema = IngestOptions.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(defs[ref.removeprefix("#/$defs/")])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    properties = {
        "file": {"type": "string", "format": "binary", "description": "the document (its name gives the format)"},
        "shapes": {
            "type": "array",
            "items": {"type": "string", "format": "binary"},
            "description": "SHACL shapes of yours, validated with the built-in ones (as `--shapes`)",
        },
        **{name: inline(field) for name, field in schema["properties"].items() if name not in NOT_FORM_FIELDS},
    }
    return {"type": "object", "properties": properties, "required": ["file"]}


_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _file_name(upload: UploadFile, fallback: str) -> str:
    """The upload's own file name (its extension gives the format), without any directory part
    a client may send, so it can only land in our temporary directory."""
    name = Path((upload.filename or "").replace("\\", "/")).name
    name = _SAFE_NAME.sub("_", name).lstrip(".")
    return name or fallback


def _metadata(form: Any) -> IngestOptions:
    fields: dict[str, str] = {}
    for key, value in form.multi_items():
        if key in ("file", "shapes"):
            continue
        if not isinstance(value, str):
            raise HttpError(400, f"form field {key!r} must be a value, not a file")
        if key in fields:
            raise HttpError(400, f"form field {key!r} is given twice; give it once")
        if key in NOT_FORM_FIELDS:
            raise HttpError(400, f"bad form fields: {key}: unknown field")
        if value.strip():  # HTML forms send empty fields: they mean "not given"
            fields[key] = value
    try:
        return IngestOptions.model_validate(fields)
    except InputError as exc:
        raise HttpError(400, f"bad form fields: {exc.reason}") from None


router = APIRouter(tags=["Sources"])


@router.post(
    "/sources",
    summary="Upload a source document with its metadata (validated with SHACL; all or nothing)",
    description="A `multipart/form-data` body with the document in `file` and the metadata as form "
    "fields (the options of `provgraph ingest`); optional `shapes` files add SHACL shapes of yours. "
    "Needs the write token. The document's identity is `id`, else `url`: uploading the same content "
    "with the same metadata again is a no-op (200, `unchanged`); changed content or metadata makes a "
    "new version (201). A graph that does not conform to the shapes is refused with 422 and the SHACL "
    "report; nothing is written.",
    status_code=201,
    response_model=IngestReport,
    # The token is checked before the body is read: no one without it makes us spool a file.
    dependencies=[WRITE_ACCESS],
    responses={
        200: {"model": IngestReport, "description": "nothing changed: every document was already current"},
        201: {
            "description": "created, or a new version",
            "content": {"application/json": {"example": _REPORT_EXAMPLE}},
        },
        400: {"model": InputErrorBody, "description": "bad input: the message names the file and line"},
        **AUTH_ERRORS,
        **TOO_LARGE_BODY,
        415: {"model": InputErrorBody, "description": "an input format provgraph does not read"},
        422: {
            "model": RejectedBody,
            "description": "does not conform to the SHACL shapes; nothing was written",
            "content": {"application/json": {"example": _REJECTED_EXAMPLE}},
        },
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                MULTIPART: {
                    "schema": _upload_schema(),
                    "encoding": {"shapes": {"style": "form", "explode": True}},
                }
            },
        }
    },
)
async def upload(request: Request, pg: Graph, reader: Reads) -> Response:
    media = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if media != MULTIPART:
        raise HttpError(
            415, f"POST /sources takes {MULTIPART} (a 'file' part and metadata fields), not {media or 'no body'}"
        )
    form = await request.form()
    try:
        files = form.getlist("file")
        if len(files) != 1 or not isinstance(files[0], UploadFile):
            raise HttpError(400, "the form needs exactly one 'file' part holding the document")
        shapes = [s for s in form.getlist("shapes") if isinstance(s, UploadFile)]
        if len(shapes) != len(form.getlist("shapes")):
            raise HttpError(400, "'shapes' parts must be files")
        meta = _metadata(form)
        if meta.id is None and meta.url is None:
            raise HttpError(400, "give the document an 'id' or a 'url': an upload has no path to identify it by")
        return await run_in_threadpool(_ingest, pg, reader, files[0], shapes, meta)
    finally:
        await form.close()


def _ingest(
    pg: ProvGraph, reader: Reader, document: UploadFile, shapes: list[UploadFile], meta: IngestOptions
) -> Response:
    name = _file_name(document, "upload")
    with tempfile.TemporaryDirectory(prefix="provgraph-upload-") as tmp:
        path = Path(tmp) / name
        with path.open("wb") as out:
            shutil.copyfileobj(document.file, out)
        shape_paths = []
        for i, shape in enumerate(shapes):
            # One directory each: two shapes files may have the same name, which errors show.
            shape_path = Path(tmp) / f"shapes-{i}" / _file_name(shape, "shapes.ttl")
            shape_path.parent.mkdir()
            with shape_path.open("wb") as out:
                shutil.copyfileobj(shape.file, out)
            shape_paths.append(shape_path)
        try:
            # One ingest at a time: two uploads of the same document must not both become version n+1.
            # Reads do not wait for it (they see the last committed state, or the last checkpoint).
            with reader.ingest_lock, reader.writing():
                report = pg.ingest(path, meta.model_copy(update={"shapes": tuple(shape_paths)}))
        except ValidationFailedError as exc:
            named = [_shown_name(f, tmp) or f for f in exc.report.shapes]
            raise ValidationFailedError(exc.report.model_copy(update={"shapes": named}), file=name) from None
        except InputError as exc:
            # The temporary path means nothing to the client: name its own file instead.
            shown = _shown_name(exc.file, tmp)
            reason = re.sub(re.escape(tmp) + r"/(shapes-\d+/)?", "", exc.reason)
            where = InputError(reason, file=shown, line=exc.line, column=exc.column)
            body = {"error": str(where), "file": shown, "line": exc.line, "column": exc.column}
            return JSONResponse(body, status_code=status_of(exc))
    report = report.model_copy(update={"file": name})
    changed = report.changed > 0
    headers = {}
    # the first changed document the report lists (a report lists the first 1,000 documents)
    first = next((d for d in report.documents if d.outcome is not DocumentOutcome.UNCHANGED), None)
    if first is not None:
        headers["Location"] = f"/sources/{quote(first.key, safe='')}"
    return JSONResponse(report.model_dump(mode="json"), status_code=201 if changed else 200, headers=headers)


@router.get(
    "/sources",
    summary="The catalog: every source document with its versions",
    response_model=list[SourceInfo],
    dependencies=[READ_ACCESS],
    responses=READ_ERRORS,
)
async def sources(reader: Reads) -> list[SourceInfo]:
    return await reader.run(reads.sources)


@router.get(
    "/sources/{document:path}",
    summary="One source document, by key (id, URL) or IRI, URL-encoded",
    response_model=SourceInfo,
    dependencies=[READ_ACCESS],
    responses={404: {"model": ErrorBody, "description": "no such document"}, **READ_ERRORS},
)
async def source(
    reader: Reads,
    document: Annotated[
        str,
        PathParam(
            description="the document's key (its id or URL) or its IRI, URL-encoded in the path "
            "(/sources/https%3A%2F%2Fexample.org%2Faspirin; /docs encodes it)",
            # the plain key: Swagger UI encodes the example it sends, an encoded one twice
            examples=["https://example.org/aspirin"],
        ),
    ],
) -> SourceInfo:
    return await reader.run(reads.source, document)


#: A revocation over its limit of invalidated answers, without ``confirm``.
_NEEDS_CONFIRM: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "it would invalidate more answers than max_invalidated"}
}


class RevokeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(
        min_length=1, max_length=2000, description="why the source is withdrawn (kept in the tombstone)"
    )
    by: str | None = Field(default=None, max_length=200, description="who withdraws it (default: 'HTTP API client')")
    confirm: bool = Field(
        default=False, description="go ahead even if it invalidates more than max_invalidated answers"
    )
    max_invalidated: int = Field(default=100, ge=0, description="invalidating more recorded answers needs confirm")


@router.post(
    "/sources/{document:path}/revoke",
    summary="Withdraw a document, and invalidate every recorded answer built from it",
    description="Its current version is marked revoked and no longer used for answers and conflicts; a "
    "tombstone records who, when and why. Recorded answers whose context came from it, and answers "
    "derived from those, are marked invalid (GET /answers?invalidated=true); nothing is deleted. Needs the "
    "write token. Invalidating more than `max_invalidated` answers needs `confirm` (else 409, nothing written).",
    response_model=Revocation,
    dependencies=[WRITE_ACCESS],
    responses={
        404: {"model": ErrorBody, "description": "no such document, or it has no current version"},
        **_NEEDS_CONFIRM,
        **AUTH_ERRORS,
    },
)
async def revoke(
    body: RevokeRequest,
    pg: Graph,
    reader: Reads,
    document: Annotated[
        str,
        PathParam(description="the document's key (its id or URL) or its IRI, URL-encoded in the path"),
    ],
) -> Revocation:
    return await run_in_threadpool(_revoke_one, pg.revoke, reader, document, body)


class RevokeStatementRequest(RevokeRequest):
    statement: str = Field(
        min_length=1, max_length=4000, description="IRI of the statement (a pg:Statement of a current source)"
    )


@router.post(
    "/statements/revoke",
    summary="Withdraw one statement of a current source, and invalidate every recorded answer built from it",
    description="The statement is left out of evidence, answers and conflicts from now on; its source stays "
    "current and the statement stays in its graph, with a tombstone recording who, when and why. Recorded "
    "answers whose context was derived from it, and answers derived from those, are marked invalid. Needs the "
    "write token. Invalidating more than `max_invalidated` answers needs `confirm` (else 409, nothing written).",
    response_model=Revocation,
    dependencies=[WRITE_ACCESS],
    responses={
        400: {"model": ErrorBody, "description": "not an IRI, or a statement already revoked"},
        404: {"model": ErrorBody, "description": "no such statement in a current source"},
        **_NEEDS_CONFIRM,
        **AUTH_ERRORS,
    },
)
async def revoke_statement(body: RevokeStatementRequest, pg: Graph, reader: Reads) -> Revocation:
    return await run_in_threadpool(_revoke_one, pg.revoke_statement, reader, body.statement, body)


@router.post(
    "/segments/{segment}/revoke",
    summary="Withdraw one context segment, and invalidate every recorded answer that was shown it",
    description="Every recorded answer whose context included the segment, and answers derived from those, "
    "are marked invalid; the evidence item it showed is never retrieved again. A tombstone records who, when "
    "and why; nothing is deleted. Needs the write token. Invalidating more than `max_invalidated` answers "
    "needs `confirm` (else 409, nothing written).",
    response_model=Revocation,
    dependencies=[WRITE_ACCESS],
    responses={
        400: {"model": ErrorBody, "description": "a segment already revoked"},
        404: {"model": ErrorBody, "description": "no such segment in a recorded answer"},
        **_NEEDS_CONFIRM,
        **AUTH_ERRORS,
    },
)
async def revoke_segment(
    body: RevokeRequest,
    pg: Graph,
    reader: Reads,
    segment: Annotated[str, PathParam(description="the segment's id (64 hex digits) or a unique prefix of at least 8")],
) -> Revocation:
    return await run_in_threadpool(_revoke_one, pg.revoke_segment, reader, segment, body)


def _revoke_one(revoke: Callable[..., Revocation], reader: Reader, target: str, body: RevokeRequest) -> Revocation:
    # the catalog or the change log moves (what retrieval and conflicts read), as in an ingest
    with reader.ingest_lock, reader.writing():
        return revoke(
            target,
            reason=body.reason,
            by=body.by or "HTTP API client",
            confirm=body.confirm,
            max_invalidated=body.max_invalidated,
        )


@router.get(
    "/evidence",
    summary="Every statement supporting a fact, with its source, passage, confidence, method and time",
    response_model=list[Evidence],
    dependencies=[READ_ACCESS],
    responses={
        200: {"content": {"application/json": {"example": _EVIDENCE_EXAMPLE}}},
        400: {"model": ErrorBody, "description": "a subject or predicate that is not an IRI"},
        **READ_ERRORS,
    },
)
async def evidence(
    reader: Reads,
    subject: Annotated[
        str,
        Query(
            description="the fact's subject (an IRI)",
            openapi_examples={"aspirin": {"summary": "an IRI", "value": "http://example.org/aspirin"}},
        ),
    ],
    predicate: Annotated[
        str,
        Query(
            description="the fact's predicate (an IRI)",
            openapi_examples={"treats": {"summary": "an IRI", "value": "http://example.org/treats"}},
        ),
    ],
    object: Annotated[  # noqa: A002 - the API's name for it
        str | None,
        Query(
            description="the object: an IRI, an N-Triples literal, or a plain value matching any literal's "
            "lexical form; without it every value of the predicate (where sources disagree)",
            openapi_examples={
                "iri": {"summary": "an IRI", "value": "http://example.org/headache"},
                "literal": {
                    "summary": "an N-Triples literal",
                    "value": '"4000"^^<http://www.w3.org/2001/XMLSchema#integer>',
                },
                "plain": {"summary": "a plain value", "value": "4000"},
            },
        ),
    ] = None,
    history: Annotated[bool, Query(description="include superseded and revoked versions")] = False,
) -> list[Evidence]:
    return await reader.run(reads.evidence, subject, predicate, object, history, records=(DerivedRecords.CONFLICTS,))


@router.get(
    "/export",
    summary="The dataset or one graph in an RDF format, or a source's provenance as PROV or a picture",
    description="TriG, N-Quads and JSON-LD hold the whole dataset (the catalog included) or one graph; "
    "Turtle, N-Triples and RDF/XML one graph. `provn`, `provjson` and `provxml` are the provenance of one "
    "source (the document, the extraction activity, its agents, its passages and every statement) as a W3C "
    "PROV document; `dot` and `svg` draw it (SVG needs Graphviz on the server). `nanopub` is a source as "
    "nanopublications in TriG: those it was read from as published (trusty URIs and signatures hold), "
    "every other statement as a new trusty nanopublication.",
    response_class=Response,
    dependencies=[READ_ACCESS],
    responses={
        200: {
            "description": "the serialisation",
            "content": {
                "application/trig": {},
                "application/n-quads": {},
                "application/ld+json": {},
                "text/turtle": {},
                "application/n-triples": {},
                "application/rdf+xml": {},
                ProvFormat.PROVN.media_type: {},
                "application/json": {},
                ProvFormat.PROVXML.media_type: {},
                ProvFormat.DOT.media_type: {},
                ProvFormat.SVG.media_type: {},
            },
        },
        400: {"model": ErrorBody, "description": "this format needs a graph"},
        404: {"model": ErrorBody, "description": "no such graph or document"},
        **TOO_LARGE_ERROR,
        **READ_ERRORS,
    },
)
async def export(
    reader: Reads,
    settings: Settings,
    format: Annotated[  # noqa: A002 - the API's name for it
        ApiExportFormat,
        Query(
            description="trig, nquads, jsonld (dataset or graph); turtle, ntriples, rdfxml (a graph); "
            "provn, provjson, provxml (a source's provenance), dot, svg (a picture of it); "
            "nanopub (a source as nanopublications)",
        ),
    ] = ApiExportFormat.TRIG,
    graph: Annotated[
        str | None,
        Query(
            description="a document key or IRI (its current version), a source graph IRI, or 'catalog'",
            openapi_examples={
                "document": {"summary": "a document key", "value": "https://example.org/aspirin"},
                "catalog": {"summary": "the catalog", "value": "catalog"},
            },
        ),
    ] = None,
    answer: Annotated[
        str | None, Query(description="with a PROV format: a recorded answer's id (or a unique prefix of it)")
    ] = None,
    subject: Annotated[
        str | None, Query(description="with a PROV format or nanopub, and predicate and object: a fact's subject")
    ] = None,
    predicate: Annotated[str | None, Query(description="a fact's predicate (an IRI)")] = None,
    object: Annotated[  # noqa: A002 - the API's name for it
        str | None, Query(description="a fact's object: an IRI, an N-Triples literal, or a plain value")
    ] = None,
) -> Response:
    fact = (subject, predicate, object) if subject and predicate and object is not None else None
    if fact is None and (subject, predicate, object) != (None, None, None):
        raise HttpError(400, "a fact is its subject, predicate and object: give all three")
    if format.value in {f.value for f in ProvFormat}:
        prov_format = ProvFormat(format.value)
        if sum(x is not None for x in (graph, answer, fact)) != 1:
            raise HttpError(
                400,
                f"{prov_format.value} is the provenance of one source, fact or answer: "
                "give a graph, a subject, predicate and object, or an answer",
            )
        body = await reader.run(reads.export_prov, graph, answer, fact, prov_format, settings.max_result_bytes)
        return Response(body, media_type=prov_format.media_type)
    if answer is not None:
        raise HttpError(400, "an answer is exported in a PROV format: provn, provjson, provxml, dot or svg")
    if format is ApiExportFormat.NANOPUB:
        if (graph is None) == (fact is None):
            raise HttpError(
                400,
                "nanopub is a source or a fact as nanopublications: give a graph, or a subject, predicate and object",
            )
        body = await reader.run(reads.export_nanopubs, graph, fact, settings.max_result_bytes)
        return Response(body, media_type=MEDIA_TYPE_OF[ExportFormat.TRIG])
    if fact is not None:
        raise HttpError(400, "a fact is exported in a PROV format or as nanopub")
    rdf_format = ExportFormat(format.value)
    if graph is None and not rdf_format.supports_datasets:
        raise HttpError(
            400,
            f"{rdf_format.value} holds one graph: give a graph, or export the dataset as trig, nquads or jsonld",
        )
    body = await reader.run(reads.export, rdf_format, graph, settings.max_result_bytes, settings.query_timeout)
    return Response(body, media_type=MEDIA_TYPE_OF[rdf_format])


def _shown_name(file: str | None, tmp: str) -> str | None:
    """The client's name for a file an error names: an uploaded file keeps its own name in the
    temporary directory, so its base name is what the client sent."""
    if file is None or not file.startswith(tmp + "/"):
        return file
    return Path(file).name


__all__ = ["NOT_FORM_FIELDS", "ErrorBody", "router"]
