// The answer dashboard: from GET /answers/metrics, the figures of the recorded answers per day
// (answers by confidence, abstention rate, claim coverage, citation resolution, removed claims by
// reason) drawn as SVG plots, each with its figures in a table; and the latest stored
// `provgraph eval` run.
(function () {
  "use strict";

  var pg = window.provgraph;
  var el = pg.el;
  var svg = pg.svg;
  var table = pg.table;
  var root = document.getElementById("metrics");
  var statusLine = document.getElementById("status");
  var sinceField = document.getElementById("f-since");
  var untilField = document.getElementById("f-until");
  var LEVELS = ["high", "medium", "low", "insufficient_evidence"];
  var RATES = [
    ["claim_coverage", "Claim coverage"],
    ["citation_resolution", "Citation resolution"],
    ["abstention_rate", "Abstention rate"],
  ];
  var PLOT = { width: 720, height: 220, left: 44, right: 12, top: 12, bottom: 34 };

  function iso(day) { return day.toISOString().slice(0, 10); }

  // every day of the span, the days without answers too: a plot over time has no gaps
  function allDays(figures) {
    var byDay = {};
    figures.days.forEach(function (d) { byDay[d.day] = d; });
    var out = [];
    var day = new Date(figures.since + "T00:00:00Z");
    var last = new Date(figures.until + "T00:00:00Z");
    while (day <= last && out.length < 3660) {
      var key = iso(day);
      out.push(byDay[key] || { day: key, answers: 0, by_confidence: {}, removed_by_reason: {} });
      day = new Date(day.getTime() + 86400000);
    }
    return out;
  }

  function frame(label, max, ticks, format) {
    var picture = svg("svg", {
      class: "plot", width: PLOT.width, height: PLOT.height, viewBox: "0 0 " + PLOT.width + " " + PLOT.height,
      role: "img", "aria-label": label,
    });
    var inner = PLOT.height - PLOT.top - PLOT.bottom;
    ticks.forEach(function (t) {
      var y = PLOT.top + inner - (t / max) * inner;
      picture.appendChild(svg("line", { x1: PLOT.left, x2: PLOT.width - PLOT.right, y1: y, y2: y, class: "grid" }));
      picture.appendChild(svg("text", { x: PLOT.left - 6, y: y + 4, class: "tick", "text-anchor": "end" }, format(t)));
    });
    return picture;
  }

  function xLabels(picture, days, step) {
    var every = Math.max(1, Math.ceil(days.length / 8));
    days.forEach(function (d, i) {
      if (i % every) return;
      picture.appendChild(svg("text", {
        x: PLOT.left + (i + 0.5) * step, y: PLOT.height - 12, class: "tick", "text-anchor": "middle",
      }, d.day.slice(5)));
    });
  }

  function confidencePlot(days) {
    var max = Math.max(1, Math.max.apply(null, days.map(function (d) { return d.answers; })));
    var ticks = [0, Math.ceil(max / 2), max];
    var picture = frame("Answers by confidence per day", max, ticks, String);
    var inner = PLOT.height - PLOT.top - PLOT.bottom;
    var step = (PLOT.width - PLOT.left - PLOT.right) / days.length;
    days.forEach(function (d, i) {
      var base = PLOT.top + inner;
      LEVELS.forEach(function (level) {
        var n = d.by_confidence[level] || 0;
        if (!n) return;
        var h = (n / max) * inner;
        base -= h;
        var bar = svg("rect", {
          x: PLOT.left + i * step + step * 0.15, y: base, width: Math.max(1, step * 0.7), height: h,
          class: "bar bar-" + level, "data-day": d.day, "data-level": level,
        });
        bar.appendChild(svg("title", {}, d.day + ": " + n + " " + (pg.CONFIDENCE[level] || level)));
        picture.appendChild(bar);
      });
    });
    xLabels(picture, days, step);
    return picture;
  }

  function ratePlot(days) {
    var picture = frame("Rates per day", 1, [0, 0.5, 1], function (t) { return 100 * t + "%"; });
    var inner = PLOT.height - PLOT.top - PLOT.bottom;
    var step = (PLOT.width - PLOT.left - PLOT.right) / days.length;
    RATES.forEach(function (rate, r) {
      var points = [];
      days.forEach(function (d, i) {
        var v = d[rate[0]];
        if (v === null || v === undefined) return;
        var x = PLOT.left + (i + 0.5) * step;
        var y = PLOT.top + inner - v * inner;
        points.push(x + "," + y);
        var dot = svg("circle", { cx: x, cy: y, r: 3, class: "dot rate-" + r, "data-rate": rate[0], "data-day": d.day });
        dot.appendChild(svg("title", {}, d.day + ": " + rate[1] + " " + pg.percent(v)));
        picture.appendChild(dot);
      });
      if (points.length > 1) picture.appendChild(svg("polyline", { points: points.join(" "), class: "line rate-" + r }));
    });
    xLabels(picture, days, step);
    return picture;
  }

  // per day, the removed claims as a share of that day's drafted claims, stacked by reason
  function reasonPlot(days, reasons) {
    var rates = days.map(function (d) {
      return reasons.map(function (r) { return d.drafted_claims ? (d.removed_by_reason[r] || 0) / d.drafted_claims : 0; });
    });
    var top = Math.max.apply(null, rates.map(function (r) { return r.reduce(function (a, b) { return a + b; }, 0); }));
    var max = Math.max(0.1, Math.ceil(top * 10) / 10);
    var picture = frame("Removed claims by reason per day, as a share of the drafted claims", max, [0, max / 2, max],
      function (t) { return Math.round(100 * t) + "%"; });
    var inner = PLOT.height - PLOT.top - PLOT.bottom;
    var step = (PLOT.width - PLOT.left - PLOT.right) / days.length;
    days.forEach(function (d, i) {
      var base = PLOT.top + inner;
      reasons.forEach(function (reason, r) {
        var value = rates[i][r];
        if (!value) return;
        var h = (value / max) * inner;
        base -= h;
        var bar = svg("rect", {
          x: PLOT.left + i * step + step * 0.15, y: base, width: Math.max(1, step * 0.7), height: h,
          class: "bar reason-" + (r % 6), "data-day": d.day, "data-reason": reason,
        });
        bar.appendChild(svg("title", {}, d.day + ": " + reason + " " + d.removed_by_reason[reason] + " of " +
          d.drafted_claims + " drafted claims (" + pg.percent(value) + ")"));
        picture.appendChild(bar);
      });
    });
    xLabels(picture, days, step);
    return picture;
  }



  function key(className, text) {
    var item = el("span", "key");
    item.appendChild(el("span", "swatch " + className));
    item.appendChild(document.createTextNode(text));
    return item;
  }

  function tile(label, value, name) {
    var box = el("div", "tile");
    box.dataset.figure = name;
    box.appendChild(el("div", "tile-value", value));
    box.appendChild(el("div", "tile-label", label));
    return box;
  }

  function evaluation(run) {
    var section = el("section", "evaluation");
    section.appendChild(el("h2", null, "Latest evaluation run"));
    if (!run) {
      section.appendChild(el("p", "notice", "No evaluation stored: run provgraph eval FILE --record --store DIR."));
      return section;
    }
    section.appendChild(el("p", "notice", run.dataset + ", " + run.with_gold.questions + " questions, " +
      run.created.replace("T", " ").slice(0, 16) + " UTC"));
    var g = run.with_gold;
    var rows = [
      ["Citation recall (ALCE)", pg.percent(g.citation_recall)],
      ["Citation precision (ALCE)", pg.percent(g.citation_precision)],
      ["Sentence recall vs gold", pg.percent(g.sentence_recall)],
      ["Sentence precision vs gold", pg.percent(g.sentence_precision)],
      ["Gold answer in the claims", pg.percent(g.answer_found)],
      ["Claim coverage", pg.percent(g.claim_coverage)],
      ["Dangling citations", pg.percent(g.dangling_rate)],
      ["Answered with the gold paragraphs", pg.percent(g.answered_with_gold)],
      ["Abstained without them", pg.percent(run.without_gold.abstained_without_gold)],
    ];
    section.appendChild(table("Figures of the run", ["Figure", "Value"], rows, "evaluation-figures"));
    return section;
  }

  function render(figures) {
    root.replaceChildren();
    var total = figures.total;
    var tiles = el("div", "tiles");
    tiles.appendChild(tile("answers", String(total.answers), "answers"));
    tiles.appendChild(tile("claim coverage", pg.percent(total.claim_coverage), "claim_coverage"));
    tiles.appendChild(tile("citation resolution", pg.percent(total.citation_resolution), "citation_resolution"));
    tiles.appendChild(tile("abstained", pg.percent(total.abstention_rate), "abstention_rate"));
    tiles.appendChild(tile("later invalidated", String(total.invalidated), "invalidated"));
    root.appendChild(tiles);
    if (total.without_counts) {
      root.appendChild(el("p", "notice", total.without_counts + " answer(s) were recorded before claim counts were " +
        "kept: they count for confidence and abstention only."));
    }
    if (!total.answers) root.appendChild(el("p", "notice", "No answers were recorded from " + figures.since + " to " + figures.until + "."));
    var days = allDays(figures);

    var plots = el("section", "plots");
    plots.appendChild(el("h2", null, "Answers by confidence"));
    var legend = el("p", "legend");
    LEVELS.forEach(function (level) { legend.appendChild(key("bar-" + level, pg.CONFIDENCE[level])); });
    plots.appendChild(legend);
    plots.appendChild(confidencePlot(days));
    plots.appendChild(el("h2", null, "Rates per day"));
    var rateLegend = el("p", "legend");
    RATES.forEach(function (rate, r) { rateLegend.appendChild(key("rate-" + r, rate[1])); });
    plots.appendChild(rateLegend);
    plots.appendChild(ratePlot(days));
    plots.appendChild(el("h2", null, "Removed claims by reason"));
    var reasons = Object.keys(total.removed_by_reason);
    if (reasons.length) {
      var reasonLegend = el("p", "legend");
      reasons.forEach(function (reason, r) {
        reasonLegend.appendChild(key("reason-" + (r % 6), reason + ": " + total.removed_by_reason[reason] + " (" +
          pg.percent(total.removed_rate[reason]) + " of drafted claims)"));
      });
      plots.appendChild(reasonLegend);
      plots.appendChild(reasonPlot(days, reasons));
    } else plots.appendChild(el("p", "notice", "The verifier removed no claim in this span."));
    root.appendChild(plots);

    var rows = figures.days.map(function (d) {
      var removed = Object.keys(d.removed_by_reason).map(function (r) { return r + " " + d.removed_by_reason[r]; }).join(", ");
      return [d.day, String(d.answers), LEVELS.map(function (l) { return d.by_confidence[l] || 0; }).join(" / "),
        pg.percent(d.abstention_rate), pg.percent(d.claim_coverage), pg.percent(d.citation_resolution), removed || "none",
        String(d.invalidated)];
    });
    root.appendChild(table("Figures per day (UTC)", ["Day", "Answers", "High / medium / low / abstained", "Abstained",
      "Claim coverage", "Citation resolution", "Removed claims", "Invalidated"], rows, "days"));
    root.appendChild(evaluation(figures.evaluation));
  }

  function load() {
    var query = [];
    if (sinceField.value) query.push("since=" + encodeURIComponent(sinceField.value));
    if (untilField.value) query.push("until=" + encodeURIComponent(untilField.value));
    statusLine.textContent = "Loading…";
    return pg.request("GET", "answers/metrics" + (query.length ? "?" + query.join("&") : "")).then(function (figures) {
      var arrived = performance.now();
      sinceField.value = figures.since;
      untilField.value = figures.until;
      render(figures);
      performance.measure("provgraph-metrics-render", { start: arrived, end: performance.now() });
      statusLine.textContent = "";
    }).catch(function (error) {
      statusLine.textContent = "Could not load the figures: " + error.message;
    }).finally(function () {
      document.body.dataset.loaded = "true";
    });
  }

  document.getElementById("span-form").addEventListener("submit", function (event) {
    event.preventDefault();
    document.body.dataset.loaded = "false";
    load();
  });
  load();
})();
