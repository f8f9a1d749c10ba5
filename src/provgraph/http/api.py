"""The JSON API for pipelines: sources, evidence, export (to be filled in)."""

from __future__ import annotations

from fastapi import APIRouter

from provgraph.graph import ProvGraph
from provgraph.http.settings import ServerSettings


def api_router(pg: ProvGraph, settings: ServerSettings) -> APIRouter:
    return APIRouter(tags=["Sources"])
