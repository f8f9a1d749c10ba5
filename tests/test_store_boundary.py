"""The store boundary: no module outside provgraph/store/ imports pyoxigraph.

Terms come from :mod:`provgraph.store.terms`, queries go through the backend's
``select``/``stream``/``ask``/``construct``, and the in-memory stores ingest uses as tools through
:mod:`provgraph.store.scratch`. The modules that may still import the engine are listed below,
each with its reason; the test reads the lists, so a new import fails it and so does an entry
that is no longer needed.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "provgraph"

#: Modules outside provgraph/store/ that import pyoxigraph for good, and why.
ALLOWED = {
    "provgraph/query.py": "serialises a user's query results in the W3C result formats (QuerySolutions, "
    "QueryBoolean, QueryTriples, QueryResultsFormat): the one place the engine's results leave the store",
}

#: Modules that import pyoxigraph until their conversion to provgraph.store.terms and
#: Backend.select/ask/construct lands (issue 14, point 1, done on other branches). Each entry
#: goes once its module no longer imports pyoxigraph: the test fails for an entry not needed.
NOT_YET_CONVERTED: dict[str, str] = {}


def _imports_pyoxigraph(path: Path) -> bool:
    """Whether the module imports pyoxigraph anywhere (at the top, in a function, or for type
    checking only)."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "pyoxigraph" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "pyoxigraph":
            return True
    return False


def _importers() -> set[str]:
    return {
        path.relative_to(SRC).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] != "store" and _imports_pyoxigraph(path)
    }


def test_no_module_outside_the_store_imports_pyoxigraph():
    unexpected = sorted(_importers() - ALLOWED.keys() - NOT_YET_CONVERTED.keys())
    assert not unexpected, (
        f"{unexpected} import pyoxigraph: take terms from provgraph.store.terms and query through the "
        "backend's select/stream/ask/construct (or list the module in ALLOWED with its reason)"
    )


def test_every_listed_module_still_needs_its_entry():
    stale = sorted((ALLOWED.keys() | NOT_YET_CONVERTED.keys()) - _importers())
    assert not stale, f"{stale} no longer import pyoxigraph: remove them from this test's lists"


def test_the_walk_finds_every_kind_of_import(tmp_path):
    """Imports in functions, under TYPE_CHECKING and of submodules count, not only at the top."""
    for i, text in enumerate(
        [
            "def f():\n    from pyoxigraph import Store\n",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pyoxigraph as ox\n",
            "import os, pyoxigraph.x\n",
        ]
    ):
        module = tmp_path / f"m{i}.py"
        module.write_text(text)
        assert _imports_pyoxigraph(module), text
    clean = tmp_path / "clean.py"
    clean.write_text("from provgraph.store.terms import NamedNode  # not pyoxigraph\nfrom .pyoxigraph import x\n")
    assert not _imports_pyoxigraph(clean)
