"""The shells (``provgraph.http``, ``provgraph.cli``) stay thin: they reach the core through
ProvGraph and the public models only, their route handlers are module-level functions, and the
command line registers its commands in one place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import provgraph
from helpers import ROOT

SRC = ROOT / "src" / "provgraph"
SHELLS = sorted([*(SRC / "http").glob("*.py"), *(SRC / "cli").glob("*.py")])
#: Where a shell may import core names from: the package (its public names) and the light
#: modules those names live in.
#: ``provgraph.store.terms`` is the RDF term model every layer speaks (what a Graph Store body holds).
PUBLIC = {
    "provgraph",
    "provgraph.errors",
    "provgraph.models",
    "provgraph.options",
    "provgraph._version",
    "provgraph.store.terms",
}
#: Modules a shell may import only these names from (``provgraph serve`` serves the HTTP shell).
NAMED = {
    "provgraph.graph": {"ProvGraph"},
    "provgraph.resources": {"data_dir"},
    "provgraph.http": {"ServerSettings", "create_app"},
    # the reader processes in front of the app (a module of its own: a reader runs it as __main__)
    "provgraph.http.front": {"Front"},
    # the marker on IngestOptions' fields that names a flag's metavar, read where flags are built
    "provgraph.ingest.options": {"Metavar"},
}
#: Imports past the public surface, by shell module, each with its reason.
EXCEPTIONS: dict[str, tuple[str, ...]] = {
    # The query workers read checkpoints of the store (ProvGraph.checkpoints() hands them out; the
    # server passes them to its workers) and run prepared queries through the one query runner.
    "http/reads.py": ("provgraph.store.snapshots",),
    "http/workers.py": ("provgraph.store.snapshots", "provgraph.query"),
    # The front's readers follow the checkpoints the writer publishes on the shared board, and run
    # queries through the same query runner as the workers.
    "http/front.py": ("provgraph.store.snapshots", "provgraph.query"),
    # The HotpotQA harness is a benchmark of the answering path (bench/answers.py runs it too),
    # not part of the store's API.
    "cli/answer.py": ("provgraph.answer.evaluate",),
}


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
    return found


@pytest.mark.parametrize("path", SHELLS, ids=lambda p: p.relative_to(SRC).as_posix())
def test_a_shell_calls_only_provgraph_and_public_models(path):
    where = path.relative_to(SRC).as_posix()
    own = f"provgraph.{path.parent.name}"
    for module, names in _imports(path):
        if not (module == "provgraph" or module.startswith("provgraph.")) or module.startswith(own):
            continue
        if module.startswith(EXCEPTIONS.get(where, ())):
            continue
        if module in NAMED:
            assert set(names) <= NAMED[module], f"{where} imports {names} from {module}"
            continue
        assert module in PUBLIC, f"{where} imports from {module}, past ProvGraph and the public models"
        if module == "provgraph":
            assert set(names) <= set(provgraph.__all__), f"{where} imports {names}, not all public"


def test_route_handlers_are_module_level_functions():
    from provgraph.http.app import ROUTERS

    endpoints = [route.endpoint for router in ROUTERS for route in router.routes]
    assert endpoints
    for endpoint in endpoints:
        assert "<locals>" not in endpoint.__qualname__, endpoint.__qualname__


def test_command_modules_do_not_register_themselves():
    """Only cli/app.py adds commands to the app; the command modules import what they share
    from cli/common.py, never from the app's module."""
    for path in (SRC / "cli").glob("*.py"):
        if path.name in ("app.py", "__init__.py"):
            continue
        modules = [module for module, _ in _imports(path)]
        assert "provgraph.cli.app" not in modules, path.name
