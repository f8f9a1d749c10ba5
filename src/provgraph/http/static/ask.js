// The provgraph answer page: asks POST /qa, shows each answer of the session from the answer
// records. Every text from the server is written with textContent, never as markup: a source
// holding "<script>" or a markdown link shows as those characters.
(function () {
  "use strict";

  var pg = window.provgraph;
  var config = pg.config;
  var request = pg.request;
  var el = pg.el;
  var conversation = document.getElementById("conversation");
  var form = document.getElementById("ask-form");
  var questionField = document.getElementById("question");
  var statusLine = document.getElementById("status");
  var preview = document.getElementById("preview");
  var CONFIDENCE = pg.CONFIDENCE;

  // ---- the session: the conversation is the session named in the page's address ----------
  var params = new URLSearchParams(window.location.search);
  var session = params.get("session");
  if (!session || !/^[A-Za-z0-9._:@-]{1,128}$/.test(session)) {
    var bytes = new Uint8Array(9);
    window.crypto.getRandomValues(bytes);
    session = "ask-" + Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
    params.set("session", session);
    window.history.replaceState(null, "", "?" + params.toString());
  }

  if (config.generators.length > 1) {
    var select = document.getElementById("f-generator");
    config.generators.forEach(function (name) {
      var option = el("option", null, name);
      option.value = name;
      option.selected = name === config["default"];
      select.appendChild(option);
    });
    document.getElementById("generator-field").hidden = false;
  }

  // ---- citations --------------------------------------------------------------------------
  function runs(numbers) {
    // [1, 2, 3, 5] -> [[1, 3], [5, 5]]: shown as [1-3] [5]
    var sorted = numbers.slice().sort(function (a, b) { return a - b; });
    var found = [];
    sorted.forEach(function (n) {
      var last = found[found.length - 1];
      if (last && n === last[1] + 1) last[1] = n;
      else if (!last || n !== last[1]) found.push([n, n]);
    });
    return found;
  }

  // ---- citation previews -------------------------------------------------------------------
  function showPreview(anchor, items) {
    preview.replaceChildren();
    items.forEach(function (item) {
      var box = el("div", "preview-item");
      box.appendChild(el("strong", null, "[" + item.number + "] " + (item.title || item.document || "source")));
      var facts = [];
      if (item.tier) facts.push("tier " + item.tier);
      if (item.issued) facts.push("issued " + item.issued);
      if (item.confidence !== null && item.confidence !== undefined) facts.push("confidence " + item.confidence.toFixed(2));
      if (facts.length) box.appendChild(el("div", "preview-meta", facts.join(" · ")));
      box.appendChild(el("div", "preview-text", item.passage_text || item.text));
      preview.appendChild(box);
    });
    var rect = anchor.getBoundingClientRect();
    preview.style.left = Math.max(8, Math.min(rect.left + window.scrollX, window.innerWidth - 440)) + "px";
    preview.style.top = rect.bottom + window.scrollY + 6 + "px";
    preview.hidden = false;
  }

  function hidePreview() { preview.hidden = true; }

  function citationButton(label, items) {
    var button = el("button", "cite", "[" + label + "]");
    button.type = "button";
    button.setAttribute("aria-describedby", "preview");
    button.setAttribute("aria-label", "Citation " + label + ": " + items.map(function (i) { return i.title || i.text; }).join("; "));
    button.addEventListener("mouseenter", function () { showPreview(button, items); });
    button.addEventListener("focus", function () { showPreview(button, items); });
    button.addEventListener("mouseleave", hidePreview);
    button.addEventListener("blur", hidePreview);
    button.addEventListener("click", function () {
      var url = items[0] && items[0].url;
      if (url && /^https?:\/\//.test(url)) window.open(url, "_blank", "noopener");
      else {
        var target = document.getElementById(button.dataset.source || "");
        if (target) { target.open = true; target.scrollIntoView({ block: "nearest" }); target.querySelector("summary").focus(); }
      }
    });
    return button;
  }

  // The evidence a citation id stands for: the cited item (detailed answers carry them), else
  // the resolved citation.
  function lookup(answer) {
    var byId = {};
    (answer.citations || []).forEach(function (c) { byId[c.id] = c; });
    (answer.evidence || []).forEach(function (e) { byId[e.id] = Object.assign({}, byId[e.id] || {}, e); });
    return byId;
  }

  function citations(container, ids, byId, answerKey) {
    var items = ids.map(function (id) { return byId[id]; }).filter(Boolean);
    runs(items.map(function (i) { return i.number; })).forEach(function (run) {
      var label = run[0] === run[1] ? String(run[0]) : run[0] + "-" + run[1];
      var chosen = items.filter(function (i) { return i.number >= run[0] && i.number <= run[1]; });
      var button = citationButton(label, chosen);
      if (chosen[0] && chosen[0].document) button.dataset.source = sourceId(answerKey, chosen[0].document);
      container.appendChild(document.createTextNode(" "));
      container.appendChild(button);
    });
  }

  function sourceId(answerKey, document) {
    return "src-" + answerKey + "-" + Array.from(document).reduce(function (h, c) { return (h * 31 + c.charCodeAt(0)) >>> 0; }, 7);
  }

  // ---- one answer ------------------------------------------------------------------------------
  function renderTurn(answer, record) {
    var turn = el("article", "turn");
    turn.appendChild(el("p", "asked", answer.question));
    var card = el("div", "answer " + (answer.confidence === "insufficient_evidence" ? "abstained" : "answered"));
    var key = (answer.id || String(Math.random())).replace(/[^A-Za-z0-9]/g, "").slice(-16);
    var badge = el("span", "badge badge-" + answer.confidence, CONFIDENCE[answer.confidence] || answer.confidence);
    card.appendChild(badge);
    var byId = lookup(answer);

    if (record && record.invalidated) {
      var inv = record.invalidation || {};
      var banner = el("div", "invalidated");
      banner.appendChild(el("strong", null, "Invalidated"));
      banner.appendChild(el("span", null, ": a source it used was revoked" + (inv.reason ? " (" + inv.reason + ")" : "") +
        (inv.at ? " on " + inv.at.slice(0, 10) : "") + "."));
      var again = el("button", "reask", "Re-ask");
      again.type = "button";
      again.addEventListener("click", function () { ask(answer.question); });
      banner.appendChild(again);
      card.appendChild(banner);
    }

    var summary = el("p", "summary");
    summary.textContent = answer.answer_summary.replace(/\s*\[\d+(?:[-–,]\s*\d+)*\]/g, "");
    card.appendChild(summary);

    if (answer.claims.length) {
      var list = el("ol", "claims");
      answer.claims.forEach(function (claim) {
        var li = el("li", "claim", claim.text);
        citations(li, claim.supporting_citations, byId, key);
        list.appendChild(li);
      });
      card.appendChild(list);
    }
    conflicts(card, answer);
    if (answer.limitations.length) {
      card.appendChild(el("h3", null, "Limitations"));
      var limits = el("ul", "limitations");
      answer.limitations.forEach(function (text) { limits.appendChild(el("li", null, text)); });
      card.appendChild(limits);
    }
    if (answer.confidence === "insufficient_evidence" && answer.query_refinements.length) {
      card.appendChild(el("h3", null, "Try asking"));
      var tries = el("div", "refinements");
      answer.query_refinements.forEach(function (text) {
        var button = el("button", "refinement", text);
        button.type = "button";
        button.addEventListener("click", function () { questionField.value = text; questionField.focus(); });
        tries.appendChild(button);
      });
      card.appendChild(tries);
    }
    sources(card, answer, key);
    if (answer.id) {
      // the trace: how each claim reaches its sources, what the verifier removed, the context
      var trace = el("a", "trace-link", "Trace this answer");
      trace.href = "ask/answers/" + encodeURIComponent(answer.id);
      card.appendChild(trace);
    }
    turn.appendChild(card);
    return turn;
  }

  function conflicts(card, answer) {
    var seen = {};
    (answer.evidence || []).forEach(function (item) {
      var conflict = item.conflict;
      if (!conflict || seen[conflict.iri]) return;
      seen[conflict.iri] = true;
      var box = el("div", "conflict");
      box.appendChild(el("strong", null, "Sources disagree"));
      var sides = el("ul");
      conflict.values.forEach(function (value) {
        var titles = value.claims.map(function (c) { return c.source || c.document; });
        var side = el("li", "side side-" + value.outcome, literal(value.value) + " — " + Array.from(new Set(titles)).join(", "));
        if (value.outcome === "preferred") side.appendChild(el("span", "badge", "preferred"));
        sides.appendChild(side);
      });
      box.appendChild(sides);
      if (conflict.resolution && conflict.resolution.rationale) box.appendChild(el("p", "rationale", conflict.resolution.rationale));
      card.appendChild(box);
    });
  }

  function literal(nt) {
    var m = /^"((?:[^"\\]|\\.)*)"/.exec(nt);
    return m ? m[1].replace(/\\(.)/g, "$1") : nt.replace(/^<|>$/g, "");
  }

  // ---- used and retrieved sources ------------------------------------------------------------
  function sources(card, answer, key) {
    var used = answer.sources_used || [];
    var box = el("section", "sources");
    var head = el("div", "sources-head");
    head.appendChild(el("span", "sources-count", used.length + " used / " + answer.sources_retrieved + " retrieved"));
    var legacy = !used.length && (answer.references || []).length > 0;
    var toggle = el("button", "toggle", "Show all sources");
    toggle.type = "button";
    toggle.setAttribute("aria-pressed", "false");
    head.appendChild(toggle);
    box.appendChild(head);
    var list = el("div", "source-list");
    box.appendChild(list);
    var byDoc = {};
    (answer.references || []).forEach(function (r) { byDoc[r.document] = r; });
    var scores = {};
    (answer.evidence || []).forEach(function (e) { if (e.document) scores[e.document] = Math.max(scores[e.document] || 0, e.score); });
    if (legacy) box.insertBefore(el("p", "notice", "This answer was recorded without the reasons its sources were used: all its sources are shown."), list);
    used.forEach(function (use) {
      var ref = byDoc[use.document] || {};
      list.appendChild(sourceEntry(key, use.document, use.title, "used", use.reason, scores[use.document], ref.passages || [], ref));
    });
    if (legacy) {
      (answer.references || []).forEach(function (ref) {
        list.appendChild(sourceEntry(key, ref.document, ref.title, "cited", "cited by the answer", undefined, ref.passages || [], ref));
      });
    }
    var extra = null;
    toggle.addEventListener("click", function () {
      var showing = toggle.getAttribute("aria-pressed") === "true";
      toggle.setAttribute("aria-pressed", showing ? "false" : "true");
      toggle.textContent = showing ? "Show all sources" : "Show used sources only";
      if (showing) { if (extra) extra.hidden = true; return; }
      if (extra) { extra.hidden = false; return; }
      extra = el("div", "retrieved-list");
      list.after(extra);
      if (!answer.id) { extra.appendChild(el("p", "notice", "This answer was not recorded: its retrieved sources are gone.")); return; }
      extra.appendChild(el("p", "notice", "Loading the retrieved sources…"));
      request("GET", "answers/" + encodeURIComponent(answer.id) + "/context").then(function (replay) {
        extra.replaceChildren();
        var shown = {};
        used.forEach(function (u) { shown[u.document] = true; });
        (answer.references || []).forEach(function (r) { if (legacy) shown[r.document] = true; });
        var docs = {};
        var order = [];
        // the sources are the documents of the pack's items (a conflict item has none of its own)
        var documents = (replay.pack.retrieved_documents || []).concat(replay.pack.items.map(function (i) { return i.document; }));
        documents.forEach(function (doc) {
          if (doc && !shown[doc] && !docs[doc]) { docs[doc] = { title: doc, items: [], score: 0, ref: null }; order.push(doc); }
        });
        replay.pack.items.forEach(function (item) {
          var d = docs[item.document];
          if (!d) return;
          d.ref = d.ref || item;
          d.title = item.title || d.title;
          d.items.push(item.passage_text || item.text);
          d.score = Math.max(d.score, item.score);
        });
        if (!order.length) extra.appendChild(el("p", "notice", "Every retrieved source was used."));
        order.forEach(function (doc) {
          var d = docs[doc];
          var score = d.items.length ? d.score : undefined;
          extra.appendChild(sourceEntry(key, doc, d.title, "retrieved", "retrieved, not cited by any claim", score, d.items, d.ref));
        });
      }).catch(function (error) {
        extra.replaceChildren(el("p", "error", "Could not load the retrieved sources: " + error.message));
      });
    });
    card.appendChild(box);
  }

  function sourceEntry(key, document, title, kind, reason, score, passages, ref) {
    var entry = el("details", "source source-" + kind);
    entry.id = sourceId(key, document);
    var summary = el("summary");
    summary.appendChild(el("span", "badge badge-" + kind, kind === "retrieved" ? "retrieved" : "used"));
    summary.appendChild(el("span", "source-title", title));
    var meta = [];
    if (ref && ref.tier) meta.push("tier " + ref.tier);
    if (ref && ref.issued) meta.push("issued " + ref.issued);
    if (score !== undefined) meta.push("relevance " + score.toFixed(2));
    if (meta.length) summary.appendChild(el("span", "source-meta", meta.join(" · ")));
    summary.appendChild(el("span", "reason", reason));
    entry.appendChild(summary);
    if (ref && ref.url && /^https?:\/\//.test(ref.url)) {
      var link = el("a", null, ref.url);
      link.href = ref.url;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      entry.appendChild(link);
    }
    var quotes = el("ul", "passages");
    passages.forEach(function (text) { quotes.appendChild(el("li", null, text)); });
    entry.appendChild(quotes);
    return entry;
  }

  // ---- asking, and the conversation so far ------------------------------------------------------
  function filters() {
    var result = {};
    var docs = document.getElementById("f-documents").value.split(",").map(function (s) { return s.trim(); }).filter(Boolean);
    if (docs.length) result.documents = docs;
    var tier = document.getElementById("f-tier").value;
    if (tier) result.max_tier = Number(tier);
    var confidence = document.getElementById("f-confidence").value;
    if (confidence !== "") result.min_confidence = Number(confidence);
    var issued = document.getElementById("f-issued").value;
    if (issued) result.issued_after = issued;
    return result;
  }

  function ask(question) {
    var body = { question: question, filters: filters(), session: session, detail: "detailed" };
    if (config.generators.length > 1) body.generator = document.getElementById("f-generator").value;
    var started = performance.now();
    statusLine.textContent = "Asking…";
    document.getElementById("ask-button").disabled = true;
    return request("POST", "qa", body).then(function (answer) {
      var arrived = performance.now();
      var turn = renderTurn(answer, null);
      conversation.appendChild(turn);
      // how long the answer took to render once its JSON arrived (read by the browser test)
      performance.measure("provgraph-render", { start: arrived, end: performance.now() });
      statusLine.textContent = "Answered in " + Math.round(arrived - started) + " ms.";
      turn.scrollIntoView({ block: "nearest" });
    }).catch(function (error) {
      statusLine.textContent = "Error: " + error.message;
    }).finally(function () {
      document.getElementById("ask-button").disabled = false;
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var question = questionField.value.trim();
    if (!question) return;
    questionField.value = "";
    ask(question);
  });
  questionField.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hidePreview(); });

  function load() {
    return request("GET", "answers?session=" + encodeURIComponent(session) + "&limit=1000").then(function (summaries) {
      return Promise.all(summaries.map(function (s) { return request("GET", "answers/" + encodeURIComponent(s.id)); }));
    }).then(function (records) {
      records.sort(function (a, b) { return (a.session_index || 0) - (b.session_index || 0); });
      records.forEach(function (record) { conversation.appendChild(renderTurn(record.answer, record)); });
      document.body.dataset.loaded = "true";
    }).catch(function (error) {
      statusLine.textContent = "Could not load this conversation: " + error.message;
      document.body.dataset.loaded = "true";
    });
  }
  load();
})();
