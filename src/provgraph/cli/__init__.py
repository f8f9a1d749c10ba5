"""The ``provgraph`` command line: a thin shell over :class:`provgraph.ProvGraph`.

Exit codes: 0 success; 1 the input does not conform to the SHACL shapes; 2 bad input, a bad
query or any other error provgraph reports; 3 an internal error (a bug: rerun with --debug).

:mod:`provgraph.cli.app` holds the app and registers every command on it, the ones of the other
command modules (:mod:`~provgraph.cli.answer`, :mod:`~provgraph.cli.relations`,
:mod:`~provgraph.cli.trust`) included; what they share is in :mod:`provgraph.cli.common`.
"""

from __future__ import annotations

from provgraph.cli.app import app, main

__all__ = ["app", "main"]
