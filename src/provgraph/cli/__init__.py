"""The ``provgraph`` command line: a thin shell over :class:`provgraph.ProvGraph`.

Exit codes: 0 success; 1 the input does not conform to the SHACL shapes; 2 bad input, a bad
query or any other error provgraph reports; 3 an internal error (a bug: rerun with --debug).
"""

from __future__ import annotations

from provgraph.cli import answer, relations, trust  # noqa: F401 - they register their commands on app
from provgraph.cli.app import app, main

__all__ = ["app", "main"]
