"""The query page at ``/``: YASGUI served from the package, driven in real headless Chromium
(Debian's chromium and chromium-driver) against a real server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest

from helpers import (
    BROWSER_PACKAGES,
    BROWSER_WAIT,
    CAPITALS,
    capitals_options,
    find_browser,
    live_server,
    requested_urls,
)
from provgraph import ProvGraph
from provgraph.http import ServerSettings
from provgraph.http.page import EXAMPLES, STATIC

TOKEN = "page-s3cret"
WAIT = BROWSER_WAIT


@pytest.fixture(scope="module")
def graph() -> Iterator[ProvGraph]:
    pg = ProvGraph.memory()
    pg.ingest(CAPITALS, capitals_options())
    yield pg
    pg.close()


def _run_tab(driver: Any, name: str) -> None:
    """Select the example tab called ``name`` and press YASGUI's run button, as an analyst would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    tab = WebDriverWait(driver, WAIT).until(
        ec.element_to_be_clickable(
            (By.XPATH, f"//div[contains(@class,'tabsList')]//a[span[normalize-space()='{name}']]")
        )
    )
    tab.click()
    button = WebDriverWait(driver, WAIT).until(
        ec.element_to_be_clickable((By.CSS_SELECTOR, ".tabPanel.active .yasqe_queryButton"))
    )
    button.click()


def _result_rows(driver: Any) -> list[str]:
    """The text of each row of the active tab's results table, once it has rows."""
    from selenium.webdriver.support.ui import WebDriverWait

    # Read in one script: YASR redraws the table as it renders, so element handles go stale.
    script = """return Array.from(document.querySelectorAll('.tabPanel.active .yasr table.dataTable tbody tr'))
        .map(function (row) { return row.innerText; })"""

    def rows(d: Any) -> list[str] | Literal[False]:
        found: list[str] = d.execute_script(script)
        return found if found and "No data" not in found[0] else False

    return WebDriverWait(driver, WAIT).until(rows)


def test_the_query_page_runs_a_provenance_query_in_chromium(graph, browser, tmp_path, capsys, record_property):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with live_server(graph) as url:
        requested_urls(browser)  # start the request log afresh
        browser.get(f"{url}/")
        assert browser.title == "provgraph query"
        assert "provgraph query" in browser.find_element(By.TAG_NAME, "h1").text
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".yasqe .CodeMirror"))
        tabs = browser.execute_script(
            "return Object.values(window.provgraphYasgui._tabs).map(function (t) { return t.getName(); })"
        )
        assert tabs == [e.name for e in EXAMPLES]
        endpoint = browser.execute_script("return window.provgraphYasgui.getTab().getEndpoint()")
        assert endpoint == f"{url}/sparql"

        _run_tab(browser, "Values that differ across sources")
        rows = _result_rows(browser)
        english = [row for row in rows if "en.wikipedia.org" in row]
        assert english and "820654" in english[0], rows
        assert any("1364422" in row and "pt.wikipedia.org" in row for row in rows), rows
        assert len(rows) == 8  # 7 editions, es.wikipedia.org with two values

        # Another tab runs too (one row per document); then back to the disagreement, which is
        # the page's point, for the screenshot.
        _run_tab(browser, "The catalog: documents and versions")
        assert len(_result_rows(browser)) == len(graph.sources())
        _run_tab(browser, "Values that differ across sources")
        _result_rows(browser)

        shot = tmp_path / "query-page.png"
        assert browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        record_property("screenshot", str(shot))
        with capsys.disabled():
            print(f"\nquery page screenshot: {shot}")

        requested = requested_urls(browser)
        assert f"{url}/sparql" in requested
        own = re.compile(re.escape(url) + r"/")
        # data:, blob: and chrome:// (the browser's own icons, e.g. a search field's clear button)
        # never touch the network; anything else must be this server.
        local = ("data:", "blob:", "chrome:", "about:")
        elsewhere = [u for u in requested if not own.match(u) and not u.startswith(local)]
        assert elsewhere == [], f"the page reached beyond {url}: {elsewhere}"
        problems = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert problems == [], problems


def test_with_a_write_token_the_page_still_reads(graph, browser):
    with live_server(graph, ServerSettings(token=TOKEN)) as url:
        browser.get(f"{url}/")
        _run_tab(browser, "Facts with their sources")
        rows = _result_rows(browser)
        assert any("820654" in row for row in rows)


def test_when_reads_need_the_token_the_page_sends_the_one_typed_in(graph, browser):
    from selenium.webdriver.common.by import By

    with live_server(graph, ServerSettings(token=TOKEN, read_token=True)) as url:
        browser.get(f"{url}/")
        browser.find_element(By.ID, "pg-token").send_keys(TOKEN)
        _run_tab(browser, "Where sources disagree")
        rows = _result_rows(browser)
        assert any("populationTotal" in row and "820654" in row for row in rows), rows
        # The token stays out of YASGUI's saved tabs (localStorage outlives the browser session).
        saved = browser.execute_script("return JSON.stringify(window.localStorage)")
        assert TOKEN not in saved


def test_the_page_and_its_files_are_served_from_the_package(graph):
    with live_server(graph) as url:
        page = httpx.get(f"{url}/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "connect-src 'self'" in page.headers["content-security-policy"]
        # Every script, style and link is relative: the page works behind any host, port or prefix,
        # and names no other origin.
        references = re.findall(r'(?:src|href)="([^"]*)"', page.text)
        assert references and all(not re.match(r"[a-z]+:|//", ref) for ref in references), references
        for ref in references:
            assert httpx.get(f"{url}/{ref}").status_code == 200, ref
        script = httpx.get(f"{url}/static/yasgui/yasgui.min.js")
        assert script.headers["content-type"].startswith("text/javascript")
        # Only the files that ship under static/ are served: an encoded "../" finds nothing.
        assert httpx.get(f"{url}/static/..%2fpage.py").status_code == 404
        assert httpx.get(f"{url}/static/yasgui/..%2f..%2fpage.py").status_code == 404
        assert httpx.get(f"{url}/static/nothing.js").status_code == 404


def test_the_vendored_yasgui_is_the_one_source_txt_describes():
    source = (STATIC / "yasgui" / "SOURCE.txt").read_text(encoding="utf-8")
    listed = {name: digest for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", source, flags=re.MULTILINE)}
    for name in ("yasgui.min.js", "yasgui.min.css"):
        assert hashlib.sha256((STATIC / "yasgui" / name).read_bytes()).hexdigest() == listed[name], name


@pytest.mark.parametrize(
    ("present", "missing"),
    [((), "chromium and chromedriver"), (("chromium",), "chromedriver"), (("chromedriver",), "chromium")],
    ids=["neither", "no-driver", "no-browser"],
)
def test_without_chromium_the_browser_tests_skip_naming_the_packages_unless_required(present, missing):
    def which(name: str) -> str | None:
        return f"/usr/bin/{name}" if name in present else None

    with pytest.raises(pytest.skip.Exception) as skipped:
        find_browser(required=False, which=which)
    message = str(skipped.value)
    assert BROWSER_PACKAGES == "apt-get install chromium chromium-driver" and BROWSER_PACKAGES in message
    assert message.startswith(f"{missing} not found on PATH") and "\n" not in message
    with pytest.raises(pytest.fail.Exception, match="--require-browser"):
        find_browser(required=True, which=which)
    assert find_browser(required=True, which=lambda name: f"/usr/bin/{name}") == (
        Path("/usr/bin/chromium"),
        Path("/usr/bin/chromedriver"),
    )
