from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx._config
import pytest

from helpers import BROWSER_WAIT, POPULATION_POLICY, find_browser, ingest_capitals
from provgraph import ProvGraph
from servers import VIRTUOSO_PACKAGE, Virtuoso, oxigraph_server, virtuoso_binaries

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
        "--require-virtuoso",
        action="store_true",
        default=False,
        help="fail, rather than skip, the tests against a Virtuoso server when Debian's virtuoso-opensource "
        "is not installed (CI installs it and sets this)",
    )
    parser.addoption(
        "--require-graphviz",
        action="store_true",
        default=False,
        help="fail, rather than skip, the tests of SVG pictures when Debian's graphviz (its dot program) "
        "is missing (CI installs it and sets this)",
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


@pytest.fixture(autouse=True)
def _model_servers_forgotten() -> Iterator[None]:
    """What the chat client learnt of a model server (a rejected JSON mode, a context length) is
    kept per base URL for the life of the process: a test's loopback server may get the port of
    an earlier test's, and must be met afresh."""
    from provgraph.llm import forget_servers

    forget_servers()
    yield
    forget_servers()


@pytest.fixture(scope="session")
def virtuoso_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Virtuoso]:
    """One Virtuoso for the session (each xdist worker has its own); tests empty it first
    (``sparql_server``). Skips, or fails under --require-virtuoso, when it is not installed."""
    if virtuoso_binaries() is None:
        message = f"virtuoso-t not found on PATH: {VIRTUOSO_PACKAGE} (Debian) to run the tests against Virtuoso"
        if request.config.getoption("--require-virtuoso"):
            pytest.fail(f"{message}; --require-virtuoso is set", pytrace=False)
        pytest.skip(message)
    server = Virtuoso(tmp_path_factory.mktemp("virtuoso"))
    try:
        yield server
    finally:
        server.close()


@contextmanager
def _empty_server(request: pytest.FixtureRequest, engine: str, directory: Path) -> Iterator[str]:
    """The ``sparql+http://`` URL of an empty store on a real server: a new ``oxigraph serve``, or
    the session's Virtuoso emptied."""
    if engine == "virtuoso":
        server: Virtuoso = request.getfixturevalue("virtuoso_server")
        server.reset()
        yield server.url
    else:
        with oxigraph_server(directory) as url:
            yield url


@pytest.fixture(params=["oxigraph", "virtuoso"])
def sparql_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store on a real SPARQL server, once per engine."""
    with _empty_server(request, request.param, tmp_path / "oxigraph") as url:
        yield url


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


#: Test modules whose ``pg`` runs on every backend, as rdflib runs one suite over its stores: the
#: embedded store and a store on each real SPARQL server (``sparql_server``).
BACKEND_SUITES = ("test_store", "test_trust_", "test_answer_", "test_current_view", "test_derived_views")
BACKENDS = ("embedded", "oxigraph", "virtuoso")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "pg" not in metafunc.fixturenames or not metafunc.module.__name__.rpartition(".")[2].startswith(BACKEND_SUITES):
        return
    # a test that cannot hold on a server names the backends it runs on, and why:
    # @pytest.mark.backends("embedded", reason=...)
    marker = metafunc.definition.get_closest_marker("backends")
    if marker is not None:
        assert marker.kwargs.get("reason"), f"{metafunc.definition.nodeid}: @pytest.mark.backends needs a reason"
        assert set(marker.args) <= set(BACKENDS), marker.args
    metafunc.parametrize("pg", marker.args if marker else BACKENDS, indirect=True)


@pytest.fixture
def pg(request: pytest.FixtureRequest) -> Iterator[ProvGraph]:
    """An empty store: embedded in memory, or (in the backend suites) on a real SPARQL server."""
    backend = getattr(request, "param", "embedded")
    if backend == "embedded":
        graph = ProvGraph.memory()
    else:
        with _empty_server(request, backend, request.getfixturevalue("tmp_path") / "oxigraph") as url:
            graph = ProvGraph.open(url)
            yield graph
            graph.close()
            return
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
