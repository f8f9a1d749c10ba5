"""HTTP: the SPARQL 1.1 Protocol, the Graph Store Protocol and a JSON API, as a FastAPI app."""

from provgraph.http.app import create_app
from provgraph.http.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
