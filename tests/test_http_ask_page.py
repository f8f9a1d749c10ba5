"""The answer page at ``/ask``, used as a person uses it: headless Debian Chromium against a real
server on 127.0.0.1 over the bundled capitals sample and a text note whose passage carries markup."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import browser_wait, ingest_capitals, live_server, open_page, requested_urls
from provgraph import IngestOptions, ProvGraph
from provgraph.http.ask_page import CONTENT_SECURITY_POLICY

NOTE = """# Warning note

Aspirin thins the blood <script>window.pwned = 1</script> and **bold** [a link](javascript:alert(1)) stays text.
"""


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProvGraph]:
    directory = tmp_path_factory.mktemp("ask-page")
    pg = ingest_capitals(ProvGraph.memory(), directory)
    note = directory / "note.md"
    note.write_text(NOTE, encoding="utf-8")
    pg.ingest(note, IngestOptions(id="warning-note", title="Warning <b>note</b>", tier=3))
    yield pg
    pg.close()


def _ask(driver: Any, question: str, turns: int) -> Any:
    """Type ``question`` and press Enter, as a reader does; the newest answer card, once shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    field = driver.find_element(By.ID, "question")
    field.send_keys(question, Keys.ENTER)
    browser_wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".turn")) == turns)
    return driver.find_elements(By.CSS_SELECTOR, ".turn")[-1]


def test_ask_read_cited_claims_sources_and_an_abstention_in_chromium(graph, browser, tmp_path, capsys):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with live_server(graph) as url:
        requested_urls(browser)  # the request log afresh
        open_page(browser, f"{url}/ask?session=page-one")
        assert browser.title == "provgraph ask"

        turn = _ask(browser, "What is the population of Amsterdam?", 1)
        assert turn.find_element(By.CSS_SELECTOR, ".asked").text == "What is the population of Amsterdam?"
        badge = turn.find_element(By.CSS_SELECTOR, ".badge").text
        assert badge in ("High confidence", "Medium confidence", "Low confidence"), badge
        claims = turn.find_elements(By.CSS_SELECTOR, ".claim")
        assert claims and any("Amsterdam" in c.text for c in claims), [c.text for c in claims]
        cites = turn.find_elements(By.CSS_SELECTOR, ".claim .cite")
        assert cites and all(re.fullmatch(r"\[\d+(-\d+)?\]", c.text) for c in cites), [c.text for c in cites]

        # hovering a citation previews the cited evidence with its source
        ActionChains(browser).move_to_element(cites[0]).perform()
        preview = browser.find_element(By.ID, "preview")
        browser_wait(browser, lambda _: preview.is_displayed())
        assert "wikipedia" in preview.text.lower() and "tier 4" in preview.text, preview.text
        # ... and so does reaching it with the Tab key from the top of the page
        browser.find_element(By.ID, "question").click()
        browser_wait(browser, lambda _: not preview.is_displayed())
        browser.execute_script("document.querySelector('.ask-header a').focus()")
        for _ in range(5):
            ActionChains(browser).send_keys(Keys.TAB).perform()
            if browser.execute_script("return document.activeElement.classList.contains('cite')"):
                break
        assert browser.switch_to.active_element == cites[0]
        browser_wait(browser, lambda _: preview.is_displayed())

        count = turn.find_element(By.CSS_SELECTOR, ".sources-count").text
        used, retrieved = map(int, re.fullmatch(r"(\d+) used / (\d+) retrieved", count).groups())
        assert 0 < used < retrieved, count
        shown = turn.find_elements(By.CSS_SELECTOR, ".source-used")
        assert len(shown) == used and all("used" in s.text for s in shown)
        assert turn.find_elements(By.CSS_SELECTOR, ".source-retrieved") == []
        toggle = turn.find_element(By.CSS_SELECTOR, ".toggle")
        browser.execute_script("arguments[0].focus()", toggle)
        ActionChains(browser).send_keys(Keys.ENTER).perform()  # a button: the keyboard presses it

        def all_shown(_: Any) -> bool:
            return len(turn.find_elements(By.CSS_SELECTOR, ".source-retrieved")) == retrieved - used

        browser_wait(browser, all_shown)
        assert toggle.get_attribute("aria-pressed") == "true"
        shot = tmp_path / "ask-answer.png"
        assert browser.save_screenshot(str(shot))

        # a question the store cannot answer is an abstention, with its reason and what to ask instead
        abstained = _ask(browser, "Who painted the ceiling of the Sistine Chapel?", 2)
        assert abstained.find_element(By.CSS_SELECTOR, ".badge").text == "Abstained: insufficient evidence"
        assert abstained.find_element(By.CSS_SELECTOR, ".summary").text.startswith("Insufficient evidence")
        assert abstained.find_elements(By.CSS_SELECTOR, ".claim") == []
        assert abstained.find_elements(By.CSS_SELECTOR, ".refinement")
        assert browser.save_screenshot(str(tmp_path / "ask-abstention.png"))

        rendered = browser.execute_script(
            "return performance.getEntriesByName('provgraph-render').map(function (e) { return e.duration; })"
        )
        assert len(rendered) == 2
        with capsys.disabled():
            print(f"\nask page: answers rendered in {rendered} ms after their JSON arrived; screenshots in {tmp_path}")

        # the conversation is the session: reloading its address shows it again from the records
        open_page(browser, f"{url}/ask?session=page-one")
        turns = browser.find_elements(By.CSS_SELECTOR, ".turn .asked")
        assert [t.text for t in turns] == [
            "What is the population of Amsterdam?",
            "Who painted the ceiling of the Sistine Chapel?",
        ]
        assert browser.find_elements(By.CSS_SELECTOR, ".turn")[0].find_elements(By.CSS_SELECTOR, ".claim .cite")

        requested = requested_urls(browser)
        local = ("data:", "blob:", "chrome:", "about:")
        elsewhere = [u for u in requested if not u.startswith(url + "/") and not u.startswith(local)]
        assert elsewhere == [], f"the page reached beyond {url}: {elsewhere}"
        problems = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert problems == [], problems


def test_text_from_sources_shows_as_text_never_as_markup(graph, browser):
    from selenium.webdriver.common.by import By

    with live_server(graph) as url:
        open_page(browser, f"{url}/ask?session=page-markup")
        turn = _ask(browser, "What does aspirin thin?", 1)
        turn.find_element(By.CSS_SELECTOR, ".toggle").click()
        browser_wait(browser, lambda _: turn.find_elements(By.CSS_SELECTOR, ".retrieved-list .source"))
        for entry in turn.find_elements(By.CSS_SELECTOR, "details.source"):
            browser.execute_script("arguments[0].open = true", entry)
        # the passage's markup is shown as its characters, and nothing of it ran or rendered
        shown = turn.text
        assert "<script>window.pwned = 1</script>" in shown, shown
        assert "[a link](javascript:alert(1))" in shown and "**bold**" in shown, shown
        assert "Warning <b>note</b>" in shown, shown
        assert browser.execute_script("return window.pwned") is None
        assert turn.find_elements(By.CSS_SELECTOR, "script, b, a[href^='javascript']") == []


def test_an_invalidated_answer_says_so_with_the_reason_and_can_be_asked_again(graph, browser, tmp_path: Path):
    from selenium.webdriver.common.by import By

    pg = ProvGraph.memory()
    try:
        ingest_capitals(pg, tmp_path)
        with live_server(pg) as url:
            open_page(browser, f"{url}/ask?session=page-revoked")
            _ask(browser, "What is the population of Amsterdam?", 1)
            used = [a for a in pg.answers(session="page-revoked")]
            record = pg.answer(used[0].id)
            document = record.answer.sources_used[0].document
            pg.revoke(document, reason="retracted by its editors", confirm=True)
            open_page(browser, f"{url}/ask?session=page-revoked")
            banner = browser.find_element(By.CSS_SELECTOR, ".turn .invalidated")
            assert "Invalidated" in banner.text and "retracted by its editors" in banner.text
            banner.find_element(By.CSS_SELECTOR, ".reask").click()
            browser_wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".turn")) == 2)
            again = browser.find_elements(By.CSS_SELECTOR, ".turn")[1]
            assert again.find_elements(By.CSS_SELECTOR, ".invalidated") == []
    finally:
        pg.close()


def test_the_answer_page_is_served_with_a_self_only_policy(graph):
    with live_server(graph) as url:
        page = httpx.get(f"{url}/ask")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY and "connect-src 'self'" in CONTENT_SECURITY_POLICY
        references = re.findall(r'(?:src|href)="([^"]*)"', page.text)
        assert references and all(not re.match(r"[a-z]+:|//", ref) for ref in references), references
        for ref in references:  # relative to the page, as a browser resolves them
            assert httpx.get(str(httpx.URL(f"{url}/ask").join(ref))).status_code == 200, ref
        scripts = re.findall(r"<script[^>]*>", page.text)
        assert scripts == [
            '<script type="application/json" id="ask-config">',
            '<script src="static/common.js">',
            '<script src="static/ask.js">',
        ]


def test_with_a_model_configured_the_reader_chooses_the_generator(graph, browser, monkeypatch):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from llm_server import FakeLLMServer, answer
    from provgraph import DraftAnswer, DraftClaim, GeneratorKind
    from provgraph.http import ServerSettings

    question = "What is the population of Amsterdam?"
    first = graph.retrieve(question).items[0]
    draft = DraftAnswer(
        answer_summary="From the model.", claims=[DraftClaim(text=first.text, supporting_citations=[first.id])]
    )
    with FakeLLMServer() as model:
        model.always(answer(draft))
        monkeypatch.setenv("PROVGRAPH_LLM_BASE_URL", model.url + "/v1")
        monkeypatch.setenv("PROVGRAPH_LLM_MODEL", "loopback-model")
        monkeypatch.setenv("PROVGRAPH_LLM_API_KEY", "not-a-real-key")
        with live_server(graph, ServerSettings(answer_generator=GeneratorKind.OPENAI)) as url:
            open_page(browser, f"{url}/ask?session=page-model")
            browser.find_element(By.CSS_SELECTOR, ".filters summary").click()
            choice = Select(browser.find_element(By.ID, "f-generator"))
            assert [o.text for o in choice.options] == ["openai", "extractive"]
            assert choice.first_selected_option.text == "openai"

            turn = _ask(browser, question, 1)
            assert len(model.requests) == 1  # the model drafted it
            assert [c.text.split("[")[0].strip() for c in turn.find_elements(By.CSS_SELECTOR, ".claim")] == [first.text]

            choice.select_by_visible_text("extractive")
            turn = _ask(browser, question, 2)
            assert len(model.requests) == 1  # the offline generator: no request to the model
            assert turn.find_elements(By.CSS_SELECTOR, ".claim")
            generators = [a.generator for a in graph.answers(session="page-model")]
            assert generators[0].startswith("openai") and generators[1] == "extractive", generators
