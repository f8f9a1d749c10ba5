"""The answer page for the people who ask questions, at ``/ask``: a question box with the
filters, and the conversation of the session, each answer with its cited claims, confidence,
limitations, conflicts, and the sources it used (why, how relevant) with every retrieved one on
demand.

The page is one HTML shell and two static files (``static/ask.js``, ``static/ask.css``): no build
step, nothing from a CDN. Everything it shows comes from the JSON API (``POST /qa``,
``GET /answers``, ``GET /answers/{id}``, ``GET /answers/{id}/context``) and is written into the
page as text, never as markup, so a source holding ``<script>`` shows as those characters. The
Content-Security-Policy allows this origin only, for scripts, styles and requests alike.
"""

from __future__ import annotations

import functools
import html

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from provgraph._version import __version__
from provgraph.http.deps import Settings
from provgraph.http.page import config_block, page_headers, token_mode
from provgraph.http.settings import ServerSettings
from provgraph.options import GeneratorKind

# No inline script or style at all: the page's code and look are files of this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
)

_HEADERS = page_headers(CONTENT_SECURITY_POLICY)


@functools.lru_cache(maxsize=16)  # built once per app: its settings are frozen
def _page(settings: ServerSettings) -> str:
    """The shell. Its URLs are relative to ``/ask``, so it works behind any path prefix."""
    # the offline generator always; the model only when the server has one configured
    generators = [GeneratorKind.EXTRACTIVE.value]
    if settings.answer_generator is not GeneratorKind.EXTRACTIVE:
        generators.insert(0, settings.answer_generator.value)
    config = {"tokenMode": token_mode(settings), "generators": generators, "default": settings.answer_generator.value}
    config_json = config_block(config)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>provgraph ask</title>
<link rel="icon" href="static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="static/ask.css">
</head>
<body>
<header class="ask-header">
  <h1>provgraph ask</h1>
  <p>Every claim cites the evidence it rests on; a verifier removes what the evidence does not
  support, and the answer abstains when the evidence is weak.</p>
  <nav><a href="./">SPARQL query page</a> &middot; provgraph {html.escape(__version__)}</nav>
</header>
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
<div id="preview" class="preview" role="tooltip" hidden></div>
<script type="application/json" id="ask-config">{config_json}</script>
<script src="static/ask.js"></script>
</body>
</html>
"""


router = APIRouter(tags=["Answer page"])


@router.get("/ask", response_class=HTMLResponse, summary="The answer page: ask, read cited answers, see sources")
def ask_page(settings: Settings) -> HTMLResponse:
    # Served without a token even when reads need one: the page holds no data, and it is where
    # the reader types the token that its requests then send.
    return HTMLResponse(_page(settings), headers=_HEADERS)


__all__ = ["CONTENT_SECURITY_POLICY", "router"]
