"""The SPARQL 1.1 Graph Store HTTP Protocol at ``/store`` (to be filled in)."""

from __future__ import annotations

from fastapi import APIRouter

from provgraph.graph import ProvGraph
from provgraph.http.settings import ServerSettings


def store_router(pg: ProvGraph, settings: ServerSettings) -> APIRouter:
    return APIRouter(tags=["Graph Store"])
