// What the pages of the answer app share: their settings, the bearer token, JSON requests to
// this server, and building elements whose text is always text (textContent, never markup).
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("ask-config").textContent);

  // The bearer token, for servers that need one: this tab only (sessionStorage), shared by the
  // answer app's pages.
  var token = "";
  if (config.tokenMode !== "none") {
    var tokenInput = document.getElementById("f-token");
    document.getElementById("token-field").hidden = false;
    try { token = window.sessionStorage.getItem("provgraph-token") || ""; } catch (e) { token = ""; }
    tokenInput.value = token;
    tokenInput.addEventListener("input", function () {
      token = tokenInput.value.trim();
      try { window.sessionStorage.setItem("provgraph-token", token); } catch (e) { /* storage off */ }
    });
  }

  // A JSON request to this server, `path` relative to its root; rejects with the server's message.
  function request(method, path, body) {
    var headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    var init = { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) };
    return fetch(config.base + path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var message = data && (data.error || data.detail);
          throw new Error(typeof message === "string" ? message : "HTTP " + response.status);
        }
        return data;
      });
    });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  var SVG = "http://www.w3.org/2000/svg";

  // An SVG element with its attributes; text, if any, as text.
  function svg(tag, attributes, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, String(attributes[name])); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A table with a caption, a row of headings and rows of cells, every cell as text.
  function table(caption, heads, rows, className) {
    var t = el("table", className || "");
    t.appendChild(el("caption", null, caption));
    var head = el("tr");
    heads.forEach(function (h) { head.appendChild(el("th", null, h)); });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (cell) { tr.appendChild(el("td", null, cell)); });
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function percent(value) {
    return value === null || value === undefined ? "n/a" : (100 * value).toFixed(1) + "%";
  }

  window.provgraph = {
    config: config,
    request: request,
    el: el,
    svg: svg,
    table: table,
    percent: percent,
    CONFIDENCE: {
      high: "High confidence",
      medium: "Medium confidence",
      low: "Low confidence",
      insufficient_evidence: "Abstained: insufficient evidence",
    },
  };
})();
