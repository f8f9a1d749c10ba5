"""The web query page for analysts at ``/`` (to be filled in)."""

from __future__ import annotations

from fastapi import APIRouter

from provgraph.http.settings import ServerSettings


def page_router(settings: ServerSettings) -> APIRouter:
    return APIRouter(tags=["Query page"])
