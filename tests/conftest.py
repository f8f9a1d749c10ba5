from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import find_browser
from provgraph import ProvGraph


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-browser",
        action="store_true",
        default=False,
        help="fail, rather than skip, the tests that drive Debian's headless Chromium when chromium or "
        "chromedriver is missing (CI installs them and sets this)",
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    # Checked here rather than only in the fixture: a skip raised by a hook is reported where it was
    # raised, so every browser test's skip folds into one summary line (a fixture's names each test).
    if "browser_binaries" in getattr(item, "fixturenames", ()):
        find_browser(required=item.config.getoption("--require-browser"))


@pytest.fixture(scope="session")
def browser_binaries(request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """Paths of Debian's chromium and chromedriver (skips, or fails under --require-browser)."""
    return find_browser(required=request.config.getoption("--require-browser"))


@pytest.fixture
def pg() -> Iterator[ProvGraph]:
    graph = ProvGraph.memory()
    yield graph
    graph.close()
