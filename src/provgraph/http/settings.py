"""Operator settings of the HTTP server."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from provgraph.models import DatasetView
from provgraph.options import GeneratorKind


class ServerSettings(BaseModel):
    """How the server behaves. Writes need ``token``; with no token the server is read-only."""

    model_config = ConfigDict(frozen=True)

    token: SecretStr | None = Field(default=None, description="bearer token for writes (none: read-only)")
    read_token: bool = Field(default=False, description="ask for the token on reads too")
    query_timeout: float = Field(default=30.0, gt=0, description="seconds a query may run")
    max_result_bytes: int = Field(
        default=200 * 1024 * 1024, gt=0, description="largest response body (queries, exports, graphs)"
    )
    max_upload_bytes: int = Field(
        default=100 * 1024 * 1024, gt=0, description="largest request body (uploads, Graph Store writes, SPARQL)"
    )
    max_concurrent_queries: int = Field(default=8, gt=0, description="queries evaluated at once")
    query_workers: int = Field(
        default=4, ge=0, description="worker processes for queries on an on-disk store (0: threads, not killable)"
    )
    readers: int = Field(
        default=0,
        ge=0,
        description="reader processes in front of the app answering SPARQL queries (provgraph serve; 0: none)",
    )
    default_view: DatasetView = Field(default=DatasetView.CURRENT, description="default graph of queries")
    federation: bool = Field(default=False, description="allow SERVICE calls (to service_allow only)")
    service_allow: tuple[str, ...] = Field(default=(), description="endpoint IRIs SERVICE may call")
    load_allow: tuple[str, ...] = Field(default=(), description="IRIs a SPARQL LOAD may fetch (none: LOAD is off)")
    public_url: str | None = Field(default=None, description="base URL the server is reached at")
    answer_generator: GeneratorKind = Field(
        default=GeneratorKind.EXTRACTIVE, description="generator of POST /qa (openai: configured by environment)"
    )
