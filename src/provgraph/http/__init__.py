"""HTTP: the SPARQL 1.1 Protocol, the Graph Store Protocol and a JSON API, as a FastAPI app, and
the reader processes in front of it in ``provgraph serve``."""

from provgraph.http.app import create_app
from provgraph.http.front import Front
from provgraph.http.settings import ServerSettings

__all__ = ["Front", "ServerSettings", "create_app"]
