"""HTTP: the SPARQL 1.1 Protocol, the Graph Store Protocol and a JSON API, as a FastAPI app. The
reader processes in front of it in ``provgraph serve`` are :mod:`provgraph.http.front` (not
imported here: a reader runs that module as its main program)."""

from provgraph.http.app import create_app
from provgraph.http.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
