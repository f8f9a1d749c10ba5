from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx._config
import pytest

from helpers import BROWSER_WAIT, POPULATION_POLICY, find_browser, ingest_capitals
from provgraph import ProvGraph

# The servers the tests talk to are on 127.0.0.1 and answer in milliseconds, but a loaded machine
# can take seconds for one answer (a first /openapi.json took over 5 s, httpx's default). Every
# httpx call of the tests waits up to a minute unless it says otherwise: a broken server still
# fails, and none of the tests is about how long an answer takes. httpx's functions and Client
# share this one default object; the check keeps that true on a newer httpx.
_DEFAULT_TIMEOUT = httpx._config.DEFAULT_TIMEOUT_CONFIG
assert inspect.signature(httpx.request).parameters["timeout"].default is _DEFAULT_TIMEOUT
assert inspect.signature(httpx.Client).parameters["timeout"].default is _DEFAULT_TIMEOUT
_DEFAULT_TIMEOUT.connect = _DEFAULT_TIMEOUT.read = _DEFAULT_TIMEOUT.write = _DEFAULT_TIMEOUT.pool = 60.0


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-browser",
        action="store_true",
        default=False,
        help="fail, rather than skip, the tests that drive Debian's headless Chromium when chromium or "
        "chromedriver is missing (CI installs them and sets this)",
    )
    parser.addoption(
        "--require-llama",
        action="store_true",
        default=False,
        help="fail, rather than skip, the tests against llama.cpp's server when the llama extra is not "
        "installed (CI installs it and sets this)",
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


@pytest.fixture(scope="module")
def browser(browser_binaries: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module (starting it is most of the cost)."""
    chromium, chromedriver = browser_binaries
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(chromium)
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        # Chromium's own background traffic (updates, sync, safe browsing) would be refused by
        # this machine's closed network and is no part of the page.
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-default-apps",
        # Any host name but loopback fails to resolve: the page cannot reach the network even by
        # accident, and the request log below still records any attempt.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(chromedriver)), options=options)
    driver.set_page_load_timeout(BROWSER_WAIT)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def pg() -> Iterator[ProvGraph]:
    graph = ProvGraph.memory()
    yield graph
    graph.close()


@pytest.fixture
def capitals_policy() -> str:
    """The policy the ``capitals`` fixture loads; a test module overrides this fixture for its own."""
    return POPULATION_POLICY


@pytest.fixture
def capitals(pg: ProvGraph, tmp_path: Path, capitals_policy: str) -> ProvGraph:
    """``pg`` holding the DBpedia 3-capitals sample, split per article, with ``capitals_policy``."""
    return ingest_capitals(pg, tmp_path, capitals_policy)
