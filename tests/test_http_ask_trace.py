"""The answer trace (``/ask/answers/{id}``) and the answer dashboard (``/ask/metrics``), used as a
person uses them: headless Debian Chromium against a real server on 127.0.0.1, over the bundled
capitals sample, a text note whose passage carries markup, and a context policy that flags the
tier-4 sources."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import TEST_DATA, browser_wait, ingest_capitals, live_server, open_page, requested_urls
from provgraph import DraftAnswer, DraftClaim, IngestOptions, ProvGraph
from provgraph.answer.evaluate import evaluate_hotpot, ingest_hotpot, load_hotpot
from provgraph.answer.record import answer_iri
from provgraph.vocab import ID_NS, PREFIXES

NOTE = """# Warning note

Aspirin thins the blood <script>window.pwned = 1</script> and **bold** [a link](javascript:alert(1)) stays text.
"""

POLICY = """@prefix pg: <https://w3id.org/provgraph/ns#> .
<urn:rule:review-wikipedia> a pg:PolicyRule ;
    pg:policyAction pg:Flag ;
    pg:justification "Tier 4 sources are reviewed." ;
    pg:whenTrustTier pg:ExternalTrust .
"""


class Overclaiming:
    """Drafts the first item's text, and a claim with a number its evidence does not give."""

    name = "overclaiming"

    def generate(self, pack):
        first = pack.items[0]
        return DraftAnswer(
            answer_summary="Amsterdam is large.",
            claims=[
                DraftClaim(text=first.text, supporting_citations=[first.id]),
                DraftClaim(text="Amsterdam has 9,000,000 inhabitants.", supporting_citations=[first.id]),
            ],
        )


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProvGraph]:
    directory = tmp_path_factory.mktemp("ask-trace")
    pg = ingest_capitals(ProvGraph.memory(), directory)
    note = directory / "note.md"
    note.write_text(NOTE, encoding="utf-8")
    pg.ingest(note, IngestOptions(id="warning-note", title="Warning <b>note</b>", tier=3))
    rules = directory / "policy.ttl"
    rules.write_text(POLICY, encoding="utf-8")
    pg.add_policy(rules)
    yield pg
    pg.close()


def _texts(driver: Any, selector: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def _no_console_errors_nor_requests_elsewhere(driver: Any, url: str) -> None:
    local = ("data:", "blob:", "chrome:", "about:")
    elsewhere = [u for u in requested_urls(driver) if not u.startswith(url + "/") and not u.startswith(local)]
    assert elsewhere == [], f"the page reached beyond {url}: {elsewhere}"
    problems = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert problems == [], problems


def test_trace_an_answer_from_the_conversation_to_its_documents(graph, browser, tmp_path, capsys):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with live_server(graph) as url:
        requested_urls(browser)
        open_page(browser, f"{url}/ask?session=trace-one")
        browser.find_element(By.ID, "question").send_keys("What is the population of Amsterdam?", Keys.ENTER)
        browser_wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".turn .trace-link"))
        browser.find_element(By.CSS_SELECTOR, ".turn .trace-link").click()
        browser_wait(browser, lambda d: "/ask/answers/" in d.current_url)
        browser_wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "true")
        answer_id = browser.current_url.rsplit("/", 1)[1]
        record = graph.answer(answer_id)
        assert browser.find_element(By.CSS_SELECTOR, ".trace-head h2").text == "What is the population of Amsterdam?"

        # the graph: one answer, its claims, the evidence they cite, down to graphs and documents
        assert len(browser.find_elements(By.CSS_SELECTOR, ".node-answer")) == 1
        claims = browser.find_elements(By.CSS_SELECTOR, ".node-claim")
        assert len(claims) == len(record.answer.claims) >= 1
        cited = {c for claim in record.answer.claims for c in claim.supporting_citations}
        assert len(browser.find_elements(By.CSS_SELECTOR, ".node-evidence")) == len(cited)
        # a conflict reaches the documents of every side
        items = {s.evidence.id: s.evidence for s in record.segments if s.evidence}
        documents = {items[c].document for c in cited if items[c].document} | {
            claim.document
            for c in cited
            if items[c].conflict
            for value in items[c].conflict.values
            for claim in value.claims
        }
        assert len(browser.find_elements(By.CSS_SELECTOR, ".node-document")) == len(documents) >= 1
        assert browser.find_elements(By.CSS_SELECTOR, ".node-graph")
        assert browser.find_elements(By.CSS_SELECTOR, ".node-statement, .node-passage")
        assert browser.find_elements(By.CSS_SELECTOR, ".node-removed") == []

        # choosing a document shows it and lights its paths back to the answer
        document = browser.find_elements(By.CSS_SELECTOR, ".node-document")[0]
        ActionChains(browser).move_to_element(document).click().perform()
        detail = browser.find_element(By.CSS_SELECTOR, ".node-detail")
        assert "Documents" in detail.text and "wikipedia" in detail.text.lower(), detail.text
        lit = browser.find_elements(By.CSS_SELECTOR, ".node.lit")
        assert any("node-answer" in n.get_attribute("class") for n in lit)
        assert browser.find_elements(By.CSS_SELECTOR, ".edge.lit")

        # keyboard only: Tab reaches the boxes, Enter chooses one
        browser.execute_script("document.querySelector('.ask-header a').focus()")
        for _ in range(12):
            ActionChains(browser).send_keys(Keys.TAB).perform()
            if browser.execute_script("return document.activeElement.classList.contains('node-claim')"):
                break
        ActionChains(browser).send_keys(Keys.ENTER).perform()
        assert record.answer.claims[0].text[:40] in detail.text, detail.text

        # the policy decisions, and the context segments with their hashes, checked
        rules = _texts(browser, ".policy-decisions tbody td:first-child")
        assert rules and set(rules) == {"urn:rule:review-wikipedia"}
        hashes = _texts(browser, ".segment .hash")
        assert hashes == [s.id for s in record.segments]
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes)
        assert _texts(browser, ".segment .hash-ok") == ["hash matches"] * len(hashes)
        assert browser.save_screenshot(str(tmp_path / "trace.png"))
        rendered = browser.execute_script(
            "return performance.getEntriesByName('provgraph-trace-render').map(function (e) { return e.duration; })"
        )
        with capsys.disabled():
            print(f"\ntrace page: rendered in {rendered} ms after its JSON arrived; screenshot in {tmp_path}")

        # the session link leads back to the conversation
        browser.find_element(By.CSS_SELECTOR, ".session-link").click()
        browser_wait(browser, lambda d: d.current_url.endswith("/ask?session=trace-one"))
        browser_wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".turn .claim"))
        _no_console_errors_nor_requests_elsewhere(browser, url)


def test_the_failed_claim_inspector_and_a_segment_changed_behind_the_stores_back(graph, browser, tmp_path):
    from selenium.webdriver.common.by import By

    overclaimed = graph.ask("What is the population of Amsterdam?", generator=Overclaiming())
    assert overclaimed.removed_claims
    with live_server(graph) as url:
        requested_urls(browser)
        open_page(browser, f"{url}/ask/answers/{overclaimed.id}")
        removed = browser.find_elements(By.CSS_SELECTOR, ".node-removed")
        assert len(removed) == len({i.claim for i in overclaimed.removed_claims}) == 1
        rows = [
            [td.text for td in row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, ".removed-claims tbody tr")
        ]
        assert ["Amsterdam has 9,000,000 inhabitants.", "unsupported_number"] in [r[:2] for r in rows], rows
        removed[0].click()
        detail = browser.find_element(By.CSS_SELECTOR, ".node-detail").text
        assert "Reason code" in detail and overclaimed.removed_claims[0].code.value in detail
        assert browser.save_screenshot(str(tmp_path / "trace-removed.png"))

        # a segment's stored text changed behind the store's back no longer matches its hash
        segment = graph.answer(overclaimed.id).segments[-1]
        node = f"<{ID_NS}segment/{segment.id}>"
        graph.backend.update(
            f"""DELETE {{ GRAPH ?g {{ {node} pg:content ?c }} }}
            INSERT {{ GRAPH ?g {{ {node} pg:content "tampered" }} }}
            WHERE {{ GRAPH ?g {{ {node} pg:content ?c }} FILTER(?g = <{answer_iri(overclaimed.id).value}>) }}""",
            prefixes=PREFIXES,
        )
        open_page(browser, f"{url}/ask/answers/{overclaimed.id}")
        assert _texts(browser, ".segment .hash-bad") == ["hash does not match"]
        assert "no longer match" in browser.find_element(By.CSS_SELECTOR, ".segments .notice").text

        # an id that names no answer says so
        open_page(browser, f"{url}/ask/answers/{'0' * 64}")
        assert "Could not load this answer: no answer" in browser.find_element(By.ID, "status").text
        _no_console_errors_nor_requests_elsewhere_but_the_404(browser, url)


def _no_console_errors_nor_requests_elsewhere_but_the_404(driver: Any, url: str) -> None:
    # the missing answer's 404 is the one error the browser logs
    local = ("data:", "blob:", "chrome:", "about:")
    elsewhere = [u for u in requested_urls(driver) if not u.startswith(url + "/") and not u.startswith(local)]
    assert elsewhere == []
    problems = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert all("404" in p for p in problems) and len(problems) == 2, problems


class CitingTheNote:
    """Cites the passage that carries markup: the verifier removes the claim, the trace shows why."""

    name = "citing-the-note"

    def generate(self, pack):
        note = next(item for item in pack.items if "<script>" in item.text)
        return DraftAnswer(
            answer_summary="Aspirin thins the blood.",
            claims=[DraftClaim(text="Aspirin thins the blood.", supporting_citations=[note.id])],
        )


def test_source_text_in_the_trace_is_text(graph, browser):
    from selenium.webdriver.common.by import By

    answered = graph.ask("What does aspirin thin?", generator=CitingTheNote())
    assert [i.code.value for i in answered.removed_claims] == ["instruction_in_evidence"]
    with live_server(graph) as url:
        open_page(browser, f"{url}/ask/answers/{answered.id}")
        passage = browser.find_element(By.CSS_SELECTOR, ".node-passage")
        passage.click()
        detail = browser.find_element(By.CSS_SELECTOR, ".node-detail").text
        assert "<script>window.pwned = 1</script>" in detail and "[a link](javascript:alert(1))" in detail, detail
        document = browser.find_element(By.CSS_SELECTOR, ".node-document")
        assert document.find_element(By.TAG_NAME, "title").get_attribute("textContent") == "Warning <b>note</b>"
        for entry in browser.find_elements(By.CSS_SELECTOR, ".segment details"):
            browser.execute_script("arguments[0].open = true", entry)
        assert "<script>window.pwned = 1</script>" in browser.find_element(By.CSS_SELECTOR, ".segments").text
        # nothing of it ran or rendered
        assert browser.execute_script("return window.pwned") is None
        assert browser.find_elements(By.CSS_SELECTOR, "#trace script, #trace b, #trace a[href^='javascript']") == []


def test_the_dashboard_plots_the_answer_figures_and_the_latest_evaluation(graph, browser, tmp_path, capsys):
    from selenium.webdriver.common.by import By

    graph.ask("Who painted the ceiling of the Sistine Chapel?")  # an abstention
    graph.ask("What is the population of Amsterdam?", generator=Overclaiming())
    questions = load_hotpot(TEST_DATA / "hotpotqa-dev-10" / "hotpot_dev_distractor_v1.json", limit=3)
    with ProvGraph.memory() as scratch:
        with_gold, without = evaluate_hotpot(scratch, questions, ingest_hotpot(scratch, questions))
    graph.record_evaluation(with_gold, without, dataset="hotpot-first-3")
    figures = graph.answer_metrics()
    total = figures.total
    assert total.answers >= 2 and total.by_confidence.get("insufficient_evidence", 0) >= 1

    with live_server(graph) as url:
        requested_urls(browser)
        open_page(browser, f"{url}/ask/metrics")
        tiles = {
            t.get_attribute("data-figure"): t.find_element(By.CSS_SELECTOR, ".tile-value").text
            for t in browser.find_elements(By.CSS_SELECTOR, ".tile")
        }
        assert tiles["answers"] == str(total.answers)
        assert tiles["claim_coverage"] == f"{100 * total.claim_coverage:.1f}%"
        assert tiles["citation_resolution"] == f"{100 * total.citation_resolution:.1f}%"
        assert tiles["abstention_rate"] == f"{100 * total.abstention_rate:.1f}%"
        # one bar per day and confidence level with answers; one dot per day and rate
        bars = browser.find_elements(By.CSS_SELECTOR, "rect.bar[data-level]")
        assert len(bars) == sum(len(d.by_confidence) for d in figures.days)
        abstained = [b for b in bars if b.get_attribute("data-level") == "insufficient_evidence"]
        assert abstained and "Abstained" in abstained[0].find_element(By.TAG_NAME, "title").get_attribute("textContent")
        assert browser.find_elements(By.CSS_SELECTOR, "circle.dot[data-rate='claim_coverage']")
        # one bar per day and reason of the removed claims, its title the day's count and share
        reasons = browser.find_elements(By.CSS_SELECTOR, "rect[data-reason]")
        assert len(reasons) == sum(len(d.removed_by_reason) for d in figures.days)
        today = figures.days[-1]
        removed = next(r for r in reasons if r.get_attribute("data-reason") == "unsupported_number")
        assert removed.find_element(By.TAG_NAME, "title").get_attribute("textContent") == (
            f"{today.day}: unsupported_number {today.removed_by_reason['unsupported_number']} of "
            f"{today.drafted_claims} drafted claims ({100 * today.removed_rate['unsupported_number']:.1f}%)"
        )
        assert len(browser.find_elements(By.CSS_SELECTOR, ".days tbody tr")) == len(figures.days)
        evaluation = browser.find_element(By.CSS_SELECTOR, ".evaluation").text
        assert "hotpot-first-3, 3 questions" in evaluation
        assert f"Citation recall (ALCE) {100 * with_gold.citation_recall:.1f}%" in evaluation
        assert browser.save_screenshot(str(tmp_path / "dashboard.png"))
        rendered = browser.execute_script(
            "return performance.getEntriesByName('provgraph-metrics-render').map(function (e) { return e.duration; })"
        )
        with capsys.disabled():
            print(f"\ndashboard: rendered in {rendered} ms after its JSON arrived; screenshot in {tmp_path}")

        # another span, chosen in the form: none of these answers
        browser.execute_script(
            "document.getElementById('f-since').value = '2020-01-01';"
            "document.getElementById('f-until').value = '2020-01-31';"
        )
        browser.find_element(By.CSS_SELECTOR, "#span-form button").click()
        browser_wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == "true")
        assert "No answers were recorded from 2020-01-01 to 2020-01-31." in browser.find_element(By.ID, "metrics").text
        assert browser.find_elements(By.CSS_SELECTOR, "rect.bar[data-level]") == []
        _no_console_errors_nor_requests_elsewhere(browser, url)


def test_the_trace_and_dashboard_pages_are_self_only_and_name_a_bad_id(graph):
    import httpx

    from provgraph.http.ask_page import CONTENT_SECURITY_POLICY

    with live_server(graph) as url:
        for path in ("/ask/metrics", f"/ask/answers/{'a' * 64}"):
            page = httpx.get(url + path)
            assert page.status_code == 200 and page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
            scripts = re.findall(r'<script src="([^"]+)"', page.text)
            assert [Path(s).name for s in scripts] == ["common.js", "trace.js" if "answers" in path else "metrics.js"]
            for src in scripts:  # relative to the page, as a browser resolves them
                assert httpx.get(str(httpx.URL(url + path).join(src))).status_code == 200
        bad = httpx.get(url + "/ask/answers/not-an-id")
        assert bad.status_code == 404 and "8 to 64 lowercase hex digits" in bad.text


def test_on_a_server_whose_reads_need_the_token_the_pages_ask_for_it_once(graph, browser):
    from pydantic import SecretStr
    from selenium.webdriver.common.by import By

    from provgraph.http import ServerSettings

    token = "page-token-1234"
    settings = ServerSettings(token=SecretStr(token), read_token=True)
    with live_server(graph, settings) as url:
        requested_urls(browser)
        open_page(browser, f"{url}/ask/metrics")
        assert "Could not load the figures" in browser.find_element(By.ID, "status").text
        assert browser.find_elements(By.CSS_SELECTOR, ".tile") == []
        field = browser.find_element(By.ID, "f-token")
        assert field.is_displayed() and field.get_attribute("type") == "password"
        field.send_keys(token)
        browser.find_element(By.CSS_SELECTOR, "#span-form button").click()
        browser_wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".tile"))

        # the tab keeps it: the conversation and the trace load with it, not typed again
        open_page(browser, f"{url}/ask?session=token-page")
        browser.find_element(By.ID, "question").send_keys("What is the capital of France?\n")
        browser_wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".turn .trace-link"))
        browser.find_element(By.CSS_SELECTOR, ".turn .trace-link").click()
        browser_wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".node-answer"))
        assert all(token not in u for u in requested_urls(browser))  # a header, never in an address
