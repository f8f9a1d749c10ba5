// The trace of a recorded answer: how each claim reaches its sources (answer -> claims ->
// evidence -> passages and statements -> source graphs -> documents), drawn as an SVG graph; the
// claims the verifier removed or downgraded, with their reason codes; the policy decisions; the
// context segments with their hashes, each checked against its stored triples. Everything from
// the record is written as text, never as markup.
(function () {
  "use strict";

  var pg = window.provgraph;
  var el = pg.el;
  var svg = pg.svg;
  var table = pg.table;
  var root = document.getElementById("trace");
  var statusLine = document.getElementById("status");
  var answerId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop() || "");

  var COLUMNS = ["Answer", "Claims", "Evidence", "Passages and statements", "Source graphs", "Documents"];
  var NODE = { width: 196, height: 46, gap: 12, column: 232, top: 34, left: 8 };

  function short(text, size) {
    text = String(text || "").replace(/\s+/g, " ").trim();
    return text.length > size ? text.slice(0, size - 1) + "…" : text;
  }

  // at most two lines of about `size` characters, broken between words; the rest cut with "…"
  function wrap(text, size) {
    var words = String(text || "").replace(/\s+/g, " ").trim().split(" ");
    var lines = [""];
    words.forEach(function (word) {
      var line = lines[lines.length - 1];
      if (!line) lines[lines.length - 1] = word;
      else if ((line + " " + word).length <= size) lines[lines.length - 1] = line + " " + word;
      else lines.push(word);
    });
    var out = lines.slice(0, 2).map(function (line) { return short(line, size); });
    if (lines.length > 2) out[1] = short(out[1] + " " + lines[2], size - 1).replace(/…?$/, "…");
    return out;
  }

  // a value in N-Triples syntax as a reader says it: "820654"^^xsd:integer -> 820654
  function plain(value) {
    var m = /^"((?:[^"\\]|\\.)*)"/.exec(String(value));
    return m ? m[1] : String(value).replace(/^<|>$/g, "");
  }

  function lastPart(iri) {
    return String(iri || "").replace(/[/#]+$/, "").split(/[/#]/).pop();
  }

  // ---- the graph's nodes and edges, from the record --------------------------------------
  function build(record) {
    var answer = record.answer;
    var nodes = {};
    var order = [];
    var edges = [];
    function node(id, column, kind, label, facts) {
      if (!nodes[id]) {
        nodes[id] = { id: id, column: column, kind: kind, label: label, facts: facts, parents: [] };
        order.push(id);
      }
      return nodes[id];
    }
    function edge(from, to, kind) {
      if (edges.some(function (e) { return e.from === from && e.to === to; })) return;
      edges.push({ from: from, to: to, kind: kind || "" });
      nodes[to].parents.push(from);
    }

    var items = {};
    record.segments.forEach(function (segment, index) {
      if (segment.evidence) items[segment.evidence.id] = { item: segment.evidence, segment: segment, index: index + 1 };
    });
    (answer.evidence || []).forEach(function (item) { if (!items[item.id]) items[item.id] = { item: item }; });
    var citations = {};
    answer.citations.forEach(function (c) { citations[c.id] = c; });
    var titles = {};
    Object.keys(items).forEach(function (id) {
      var item = items[id].item;
      if (item.document && item.title) titles[item.document] = item.title;
    });

    node("answer", 0, "answer", pg.CONFIDENCE[answer.confidence] || answer.confidence, [
      ["Question", record.question], ["Summary", answer.answer_summary], ["Confidence", answer.confidence],
      ["Generator", record.generator], ["Recorded", record.created], ["Id", record.id],
    ]);

    function evidenceNode(id) {
      var found = items[id];
      var citation = citations[id];
      if (!found && !citation) return null;
      var item = found ? found.item : citation;
      var facts = [["Evidence id", id], ["Kind", item.kind], ["Text", item.text]];
      if (item.confidence !== null && item.confidence !== undefined) facts.push(["Confidence", item.confidence.toFixed(2)]);
      if (item.tier) facts.push(["Tier", item.tier]);
      if (found && found.segment) facts.push(["Context segment", "#" + found.index + " " + found.segment.id]);
      var key = "e:" + id;
      node(key, 2, "evidence", "[" + item.number + "] " + item.text, facts);
      var next = key;
      if (item.statement || item.passage) {
        var statement = Boolean(item.statement);
        var mid = (statement ? "s:" : "p:") + (item.statement || item.passage);
        var words = statement
          ? [item.subject_label, item.predicate_label, item.object_label].filter(Boolean).join(" · ") || item.text
          : item.passage_text || item.text;
        node(mid, 3, statement ? "statement" : "passage", (statement ? "Statement: " : "Passage: ") + words, [
          [statement ? "Statement" : "Passage", item.statement || item.passage],
          ["Text", statement ? words : item.passage_text || item.text],
        ].concat(statement && item.passage_text ? [["Source passage", item.passage_text]] : []));
        edge(key, mid);
        next = mid;
      }
      if (item.graph) {
        var graphKey = "g:" + item.graph;
        node(graphKey, 4, "graph", "Graph of " + (item.document_key || lastPart(item.document)) + ", " +
          lastPart(item.graph), [["Source graph", item.graph], ["Document", item.document || ""]]);
        edge(next, graphKey);
        next = graphKey;
      }
      if (item.document) {
        var docKey = "d:" + item.document;
        var facts2 = [["Document", item.document], ["Title", item.title || ""]];
        if (item.url) facts2.push(["URL", item.url]);
        if (item.tier) facts2.push(["Tier", item.tier]);
        if (item.issued) facts2.push(["Issued", item.issued]);
        node(docKey, 5, "document", item.title || item.document_key || item.document, facts2);
        edge(next, docKey);
      }
      if (item.conflict) {
        // a conflict reaches every statement of every side, each down to its graph and document
        item.conflict.values.forEach(function (value) {
          value.claims.forEach(function (claim) {
            var mid = "s:" + claim.statement;
            node(mid, 3, "statement", "Statement: " + plain(value.value) + " (" + claim.source + ")", [
              ["Statement", claim.statement], ["Value", plain(value.value)], ["Source", claim.source],
              ["Outcome", value.outcome],
            ]);
            edge(key, mid);
            var graphKey = "g:" + claim.graph;
            var title = titles[claim.document] || claim.source;
            node(graphKey, 4, "graph", "Graph of " + title + ", " + lastPart(claim.graph), [
              ["Source graph", claim.graph], ["Document", claim.document],
            ]);
            edge(mid, graphKey);
            var docKey = "d:" + claim.document;
            node(docKey, 5, "document", title, [["Document", claim.document], ["Title", title]]);
            edge(graphKey, docKey);
          });
        });
      }
      return key;
    }

    answer.claims.forEach(function (claim, index) {
      var issues = claim.issues.map(function (i) { return i.code + " (" + i.action + ")"; });
      var key = "c:" + index;
      node(key, 1, issues.length ? "claim downgraded" : "claim", claim.text, [
        ["Claim", claim.text], ["Verified", claim.verified ? "yes" : "no"], ["Support", claim.support_level],
        ["Class", claim.claim_class], ["Issues", issues.join("; ") || "none"],
        ["Context segments", (record.claim_segments[index] || []).join(" ")],
      ]);
      edge("answer", key);
      claim.supporting_citations.forEach(function (id) {
        var target = evidenceNode(id);
        if (target) edge(key, target);
      });
    });
    // one box per removed claim (a claim can fail for several reasons), linked to the evidence
    // its draft cited
    var removed = [];
    answer.removed_claims.forEach(function (issue) {
      var found = removed.filter(function (r) { return r.claim === issue.claim; })[0];
      if (!found) removed.push(found = { claim: issue.claim, issues: [] });
      found.issues.push(issue);
    });
    removed.forEach(function (entry, index) {
      var key = "r:" + index;
      var facts = [["Removed claim", entry.claim]];
      entry.issues.forEach(function (issue) {
        facts.push(["Reason code", issue.code + " (" + issue.action + ")"], ["Why", issue.message]);
      });
      node(key, 1, "removed", "Removed: " + entry.claim, facts);
      edge("answer", key, "removed");
      var drafted = record.draft.claims.filter(function (c) { return c.text === entry.claim; })[0];
      var cited = drafted ? drafted.supporting_citations : [];
      entry.issues.forEach(function (issue) { if (issue.citation && cited.indexOf(issue.citation) < 0) cited.push(issue.citation); });
      cited.forEach(function (id) {
        var target = evidenceNode(id);
        if (target) edge(key, target, "removed");
      });
    });
    return { nodes: nodes, order: order, edges: edges };
  }

  // ---- layout: one column per step; each node under the mean place of its parents ---------
  function layout(graph) {
    var columns = COLUMNS.map(function () { return []; });
    graph.order.forEach(function (id) { columns[graph.nodes[id].column].push(graph.nodes[id]); });
    columns.forEach(function (column) {
      column.forEach(function (n, i) {
        var places = n.parents.map(function (p) { return graph.nodes[p].row; }).filter(function (r) { return r !== undefined; });
        n.weight = places.length ? places.reduce(function (a, b) { return a + b; }, 0) / places.length : i;
        n.seen = i;
      });
      column.sort(function (a, b) { return a.weight - b.weight || a.seen - b.seen; });
      column.forEach(function (n, i) {
        n.row = i;
        n.x = NODE.left + n.column * NODE.column;
        n.y = NODE.top + i * (NODE.height + NODE.gap);
      });
    });
    var rows = Math.max.apply(null, columns.map(function (c) { return c.length; }));
    return { width: NODE.left * 2 + (COLUMNS.length - 1) * NODE.column + NODE.width, height: NODE.top + rows * (NODE.height + NODE.gap) };
  }

  function draw(graph, detail) {
    var size = layout(graph);
    var picture = svg("svg", {
      class: "trace-graph", width: size.width, height: size.height, viewBox: "0 0 " + size.width + " " + size.height,
      role: "group", "aria-label": "How each claim reaches its sources",
    });
    COLUMNS.forEach(function (name, i) {
      picture.appendChild(svg("text", { x: NODE.left + i * NODE.column, y: 16, class: "column-head" }, name));
    });
    var lines = svg("g", { class: "edges" });
    picture.appendChild(lines);
    graph.edges.forEach(function (e) {
      var a = graph.nodes[e.from];
      var b = graph.nodes[e.to];
      var x1 = a.x + NODE.width, y1 = a.y + NODE.height / 2, x2 = b.x, y2 = b.y + NODE.height / 2;
      var path = svg("path", {
        d: "M" + x1 + " " + y1 + " C" + (x1 + 18) + " " + y1 + " " + (x2 - 18) + " " + y2 + " " + x2 + " " + y2,
        class: "edge " + e.kind,
      });
      e.path = path;
      lines.appendChild(path);
    });
    var boxes = svg("g", { class: "nodes" });
    picture.appendChild(boxes);
    graph.order.forEach(function (id) {
      var n = graph.nodes[id];
      var group = svg("g", {
        class: "node node-" + n.kind.split(" ").join(" node-"), transform: "translate(" + n.x + " " + n.y + ")",
        tabindex: 0, role: "button", "aria-label": COLUMNS[n.column] + ": " + short(n.label, 120), "data-node": id,
      });
      group.appendChild(svg("title", {}, n.label));
      group.appendChild(svg("rect", { width: NODE.width, height: NODE.height, rx: 6 }));
      var lines = wrap(n.label, 29);
      group.appendChild(svg("text", { x: 8, y: lines.length > 1 ? 19 : 28 }, lines[0]));
      if (lines.length > 1) group.appendChild(svg("text", { x: 8, y: 35 }, lines[1]));
      function pick() { select(graph, n, detail); }
      group.addEventListener("click", pick);
      group.addEventListener("focus", pick);
      group.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); pick(); }
      });
      n.box = group;
      boxes.appendChild(group);
    });
    return picture;
  }

  function select(graph, chosen, detail) {
    // the chosen node's paths, back to the answer and on to the documents
    var lit = {};
    function up(id) { if (lit[id]) return; lit[id] = true; graph.nodes[id].parents.forEach(up); }
    function down(id) {
      lit[id] = true;
      graph.edges.forEach(function (e) { if (e.from === id && !lit[e.to]) down(e.to); });
    }
    up(chosen.id);
    down(chosen.id);
    graph.order.forEach(function (id) {
      graph.nodes[id].box.classList.toggle("lit", Boolean(lit[id]));
      graph.nodes[id].box.classList.toggle("chosen", id === chosen.id);
    });
    graph.edges.forEach(function (e) { e.path.classList.toggle("lit", Boolean(lit[e.from] && lit[e.to])); });
    detail.replaceChildren(el("h3", null, COLUMNS[chosen.column]));
    var list = el("dl");
    chosen.facts.forEach(function (pair) {
      list.appendChild(el("dt", null, pair[0]));
      list.appendChild(el("dd", null, pair[1]));
    });
    detail.appendChild(list);
  }

  // ---- the tables under the graph ---------------------------------------------------------


  function inspector(record) {
    var section = el("section", "inspector");
    section.appendChild(el("h2", null, "Claims the verifier removed or changed"));
    var rows = [];
    record.answer.removed_claims.forEach(function (i) {
      rows.push([i.claim, i.code, i.action, i.message, i.citation || ""]);
    });
    record.answer.claims.forEach(function (claim) {
      claim.issues.forEach(function (i) { rows.push([claim.text, i.code, i.action + " (kept)", i.message, i.citation || ""]); });
    });
    section.appendChild(el("p", "notice", record.draft.claims.length + " drafted, " + record.answer.claims.length +
      " kept, " + record.answer.removed_claims.length + " removed."));
    if (rows.length) {
      section.appendChild(table("Removed and downgraded claims", ["Claim", "Reason code", "Action", "Why", "Citation"], rows, "removed-claims"));
    } else {
      section.appendChild(el("p", null, "The verifier kept every drafted claim as drafted."));
    }
    return section;
  }

  function decisions(record) {
    var section = el("section", "decisions");
    section.appendChild(el("h2", null, "Policy decisions"));
    section.appendChild(el("p", "notice", record.policy_version ? "Rule set " + record.policy_version : "No context policy was in force."));
    if (record.decisions.length) {
      section.appendChild(table("What the context policy decided", ["Rule", "Action", "Justification", "Evidence"],
        record.decisions.map(function (d) { return [d.rule, d.action, d.justification, d.evidence]; }), "policy-decisions"));
    } else if (record.policy_version) {
      section.appendChild(el("p", null, "No rule of the policy applied to this answer's evidence."));
    }
    return section;
  }

  function segments(record, replay) {
    var section = el("section", "segments");
    section.appendChild(el("h2", null, "Context the generator was shown"));
    var intact = {};
    (replay ? replay.segments : []).forEach(function (s) { intact[s.segment.id] = s.intact; });
    section.appendChild(el("p", "notice", !replay ? "The hashes could not be checked." : replay.intact
      ? "Every segment's stored triples still hash to its id." : "Some segments no longer match their hash."));
    var list = el("ol", "segment-list");
    record.segments.forEach(function (s) {
      var li = el("li", "segment");
      var box = el("details");
      var head = el("summary");
      head.appendChild(el("span", "badge", s.type));
      head.appendChild(el("span", "badge", s.tier));
      if (s.name) head.appendChild(el("span", null, s.name + " "));
      head.appendChild(el("code", "hash", s.id));
      if (replay) {
        var ok = intact[s.id];
        head.appendChild(el("span", ok ? "hash-ok" : "hash-bad", ok ? " hash matches" : " hash does not match"));
      }
      box.appendChild(head);
      box.appendChild(el("pre", "segment-content", s.content));
      li.appendChild(box);
      list.appendChild(li);
    });
    section.appendChild(list);
    return section;
  }

  function render(record, replay) {
    var answer = record.answer;
    var head = el("section", "trace-head");
    head.appendChild(el("h2", null, record.question));
    head.appendChild(el("span", "badge badge-" + answer.confidence, pg.CONFIDENCE[answer.confidence] || answer.confidence));
    head.appendChild(el("span", "notice", "Recorded " + record.created.replace("T", " ").slice(0, 19) + " UTC by " + record.generator));
    if (record.session) {
      var back = el("a", "session-link", "Back to the conversation");
      back.href = pg.config.base + "ask?session=" + encodeURIComponent(record.session);
      head.appendChild(el("p")).appendChild(back);
    }
    if (record.invalidated && record.invalidation) {
      head.appendChild(el("p", "invalidated", "Invalidated: " + record.invalidation.reason + " (" +
        record.invalidation.revoked + ", " + record.invalidation.at.slice(0, 10) + ")."));
    }
    // the summary's own markers ("[1-9]") point nowhere on this page: the graph shows the citations
    head.appendChild(el("p", "summary", answer.answer_summary.replace(/\s*\[\d+(?:[-–,]\s*\d+)*\]/g, "")));
    root.appendChild(head);

    var graphSection = el("section", "trace-graph-section");
    graphSection.appendChild(el("h2", null, "How each claim reaches its sources"));
    graphSection.appendChild(el("p", "notice", "Choose a box (click, or Tab and Enter) to see it and follow its paths."));
    var detail = el("aside", "node-detail");
    detail.setAttribute("aria-live", "polite");
    detail.appendChild(el("p", "notice", "Nothing chosen yet."));
    var scroller = el("div", "graph-scroll");
    var graph = build(record);
    scroller.appendChild(draw(graph, detail));
    graphSection.appendChild(scroller);
    graphSection.appendChild(detail);
    root.appendChild(graphSection);
    root.appendChild(inspector(record));
    root.appendChild(decisions(record));
    root.appendChild(segments(record, replay));
  }

  Promise.all([
    pg.request("GET", "answers/" + encodeURIComponent(answerId)),
    pg.request("GET", "answers/" + encodeURIComponent(answerId) + "/context").catch(function () { return null; }),
  ]).then(function (found) {
    var arrived = performance.now();
    document.title = "Trace: " + short(found[0].question, 60);
    render(found[0], found[1]);
    performance.measure("provgraph-trace-render", { start: arrived, end: performance.now() });
  }).catch(function (error) {
    statusLine.textContent = "Could not load this answer: " + error.message;
  }).finally(function () {
    document.body.dataset.loaded = "true";
  });
})();
