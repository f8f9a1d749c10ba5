"""The answer app for the people who ask questions, three pages:

- ``/ask``: a question box with the filters, and the conversation of the session, each answer
  with its cited claims, confidence, limitations, conflicts, and the sources it used (why, how
  relevant) with every retrieved one on demand;
- ``/ask/answers/{id}``: the trace of a recorded answer, drawn as a graph (answer, claims,
  evidence, passages and statements, source graphs, documents), with the claims the verifier
  removed and why, the policy decisions, and the context segments with their hashes checked;
- ``/ask/metrics``: the dashboard of the answer figures per day, and the latest stored
  ``provgraph eval`` run.

Each page is an HTML shell and static files (``static/common.js`` and the page's own script,
``static/ask.css``): no build step, nothing from a CDN. The graph and the plots are SVG drawn by
the page's script: a layered graph of six fixed columns needs no layout library, Cytoscape.js
alone (3.35, 443 KB minified) would be over the app's 300 KB budget, and graphviz's ``dot`` is a
system program a pip install does not bring. Everything shown
comes from the JSON API (``POST /qa``, ``GET /answers``, ``GET /answers/{id}``,
``GET /answers/{id}/context``, ``GET /answers/metrics``) and is written into the page as text,
never as markup, so a source holding ``<script>`` shows as those characters. The
Content-Security-Policy allows this origin only, for scripts, styles and requests alike.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Mapping

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from provgraph._version import __version__
from provgraph.http.deps import Settings
from provgraph.http.errors import HttpError
from provgraph.http.page import config_block, page_headers, token_mode
from provgraph.http.settings import ServerSettings
from provgraph.options import GeneratorKind

# No inline script or style at all: the page's code and look are files of this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
)

_HEADERS = page_headers(CONTENT_SECURITY_POLICY)
#: an answer id or a unique prefix of one, as the core reads it (``answer.record.ANSWER_ID``: a
#: shell imports only the public API)
_ANSWER_ID = re.compile(r"[0-9a-f]{8,64}")


def _shell(*, title: str, base: str, body: str, script: str, config: Mapping[str, object]) -> str:
    """A page of the answer app: its URLs relative to the page (``base`` leads back to the root),
    so it works behind any path prefix; its data in a JSON block, its code and look in files."""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<link rel="icon" href="{base}static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{base}static/ask.css">
</head>
<body>
{body}
<script type="application/json" id="ask-config">{config_block({"base": base, **config})}</script>
<script src="{base}static/common.js"></script>
<script src="{base}static/{script}"></script>
</body>
</html>
"""


def _header(base: str, here: str | None) -> str:
    links = [("ask", "Ask"), ("ask/metrics", "Answer dashboard"), ("", "SPARQL query page")]
    current = ' aria-current="page"'
    nav = " &middot; ".join(
        f'<a href="{base + href or "./"}"{current if href == here else ""}>{label}</a>' for href, label in links
    )
    return f"""<header class="ask-header">
  <h1>provgraph ask</h1>
  <p>Every claim cites the evidence it rests on; a verifier removes what the evidence does not
  support, and the answer abstains when the evidence is weak.</p>
  <nav>{nav} &middot; provgraph {html.escape(__version__)}</nav>
</header>"""


_TOKEN_FIELD = """<p id="token-field" class="token-field" hidden><label>Bearer token
  <input id="f-token" type="password" autocomplete="off"></label></p>"""


@functools.lru_cache(maxsize=16)  # built once per app: its settings are frozen
def _ask_page(settings: ServerSettings) -> str:
    # the offline generator always; the model only when the server has one configured
    generators = [GeneratorKind.EXTRACTIVE.value]
    if settings.answer_generator is not GeneratorKind.EXTRACTIVE:
        generators.insert(0, settings.answer_generator.value)
    body = f"""{_header("", "ask")}
<main>
  <section id="conversation" aria-live="polite" aria-label="Conversation"></section>
  <form id="ask-form" class="ask-form">
    <label for="question">Question</label>
    <textarea id="question" name="question" rows="2" maxlength="2000" required
      placeholder="What is the population of Amsterdam?"></textarea>
    <details class="filters">
      <summary>Filters</summary>
      <label>Documents <input id="f-documents" placeholder="document keys, comma-separated"></label>
      <label>Best tier <select id="f-tier"><option value="">any</option><option>1</option><option>2</option>
        <option>3</option><option>4</option><option>5</option></select></label>
      <label>Minimum confidence <input id="f-confidence" type="number" min="0" max="1" step="0.05"></label>
      <label>Issued after <input id="f-issued" type="date"></label>
      <label id="generator-field" hidden>Generator <select id="f-generator"></select></label>
      <label id="token-field" hidden>Bearer token <input id="f-token" type="password" autocomplete="off"></label>
    </details>
    <button type="submit" id="ask-button">Ask</button>
    <p id="status" role="status"></p>
  </form>
</main>
<div id="preview" class="preview" role="tooltip" hidden></div>"""
    config = {"tokenMode": token_mode(settings), "generators": generators, "default": settings.answer_generator.value}
    return _shell(title="provgraph ask", base="", body=body, script="ask.js", config=config)


@functools.lru_cache(maxsize=16)
def _trace_page(settings: ServerSettings) -> str:
    body = f"""{_header("../../", None)}
<main class="wide">
  {_TOKEN_FIELD}
  <p id="status" role="status"></p>
  <section id="trace" aria-label="Answer trace"></section>
</main>"""
    return _shell(
        title="provgraph answer trace",
        base="../../",
        body=body,
        script="trace.js",
        config={"tokenMode": token_mode(settings)},
    )


@functools.lru_cache(maxsize=16)
def _metrics_page(settings: ServerSettings) -> str:
    body = f"""{_header("../", "ask/metrics")}
<main class="wide">
  {_TOKEN_FIELD}
  <form id="span-form" class="span-form">
    <label>From <input id="f-since" type="date"></label>
    <label>to <input id="f-until" type="date"></label>
    <button type="submit">Show</button>
  </form>
  <p id="status" role="status"></p>
  <section id="metrics" aria-label="Answer figures"></section>
</main>"""
    return _shell(
        title="provgraph answer dashboard",
        base="../",
        body=body,
        script="metrics.js",
        config={"tokenMode": token_mode(settings)},
    )


router = APIRouter(tags=["Answer page"])

# Served without a token even when reads need one: a page holds no data, and it is where the
# reader types the token that its requests then send.


@router.get("/ask", response_class=HTMLResponse, summary="The answer page: ask, read cited answers, see sources")
def ask_page(settings: Settings) -> HTMLResponse:
    return HTMLResponse(_ask_page(settings), headers=_HEADERS)


@router.get(
    "/ask/metrics",
    response_class=HTMLResponse,
    summary="The answer dashboard: claim coverage, citation resolution, removals, abstentions per day",
)
def metrics_page(settings: Settings) -> HTMLResponse:
    return HTMLResponse(_metrics_page(settings), headers=_HEADERS)


@router.get(
    "/ask/answers/{answer_id}",
    response_class=HTMLResponse,
    summary="The trace of a recorded answer: claims, citations, evidence, sources; removed claims, policy, context",
    responses={
        404: {
            "description": "not an answer id (8 to 64 lowercase hex digits)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
        }
    },
)
def trace_page(answer_id: str, settings: Settings) -> HTMLResponse:
    # the page reads the id from its own address and fetches the record (GET /answers/{id})
    if not _ANSWER_ID.fullmatch(answer_id):
        raise HttpError(404, f"no answer {answer_id!r}: an answer id is 8 to 64 lowercase hex digits")
    return HTMLResponse(_trace_page(settings), headers=_HEADERS)


__all__ = ["CONTENT_SECURITY_POLICY", "router"]
