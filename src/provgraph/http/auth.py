"""Bearer tokens: writes need the operator's token; with none configured the server is read-only."""

from __future__ import annotations

import hmac

from fastapi import Request

from provgraph.http.errors import HttpError
from provgraph.http.settings import ServerSettings


def require(request: Request, settings: ServerSettings, *, write: bool) -> None:
    """Raise the 401/403 a request deserves, or return if it may go ahead."""
    if write and settings.token is None:
        raise HttpError(
            403,
            "this server is read-only: the operator set no write token "
            "(provgraph serve with PROVGRAPH_TOKEN or --token-file)",
        )
    if not write and not settings.read_token:
        return
    assert settings.token is not None
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HttpError(
            401,
            "this needs a bearer token (Authorization: Bearer ...)",
            headers={"WWW-Authenticate": 'Bearer realm="provgraph"'},
        )
    if not hmac.compare_digest(given.strip().encode(), settings.token.get_secret_value().encode()):
        raise HttpError(
            403,
            "the bearer token is not the server's token",
            headers={"WWW-Authenticate": 'Bearer realm="provgraph", error="invalid_token"'},
        )
