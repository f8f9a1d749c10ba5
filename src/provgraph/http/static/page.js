// The provgraph query page: YASGUI pointed at this server's /sparql, with the example tabs that
// the server put in the #pg-config data block. A file (not an inline script) so that the page's
// Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("pg-config").textContent);
  // The endpoint is given relative to the page; YASGUI needs it absolute (it builds URL objects
  // from it), so resolve it against the page's own address: any host, port or path prefix works.
  var endpoint = new URL(config.endpoint, document.baseURI).href;

  // The bearer token, if the analyst gives one: kept for this browser tab only (sessionStorage),
  // never in YASGUI's persisted tab state (localStorage).
  var TOKEN_KEY = "provgraph-token";
  var token = "";
  var field = document.getElementById("pg-token");
  if (field) {
    try {
      token = window.sessionStorage.getItem(TOKEN_KEY) || "";
    } catch (e) {
      token = "";
    }
    field.value = token;
    field.addEventListener("input", function () {
      token = field.value.trim();
      try {
        window.sessionStorage.setItem(TOKEN_KEY, token);
      } catch (e) {
        // storage may be disabled: the token still holds for this page
      }
    });
  }
  // A function, so that YASGUI asks for the headers at each request and sees the current token.
  function headers() {
    return token ? { Authorization: "Bearer " + token } : {};
  }

  // The "property" and "class" autocompleters ask lov.linkeddata.es for suggestions: the page
  // must not reach the network (the vendored bundle has that call disabled as well).
  var Yasqe = Yasgui.Yasqe;
  Yasqe.defaults.autocompleters = Yasqe.defaults.autocompleters.filter(function (name) {
    return name !== "property" && name !== "class";
  });

  var yasgui = new Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: endpoint, method: "POST", headers: headers },
    copyEndpointOnNewTab: true,
    // The examples are added below, on the first visit only: later visits restore the analyst's tabs.
    autoAddOnInit: false,
    persistenceId: "provgraph-query-page",
    // The endpoint list offers this server only (the defaults are public endpoints elsewhere).
    endpointCatalogueOptions: {
      getData: function () {
        return [{ endpoint: endpoint }];
      },
    },
  });

  var tabIds = Object.keys(yasgui._tabs);
  if (tabIds.length === 0) {
    config.examples.forEach(function (example, index) {
      yasgui.addTab(index === 0, {
        name: example.name,
        // Room for the results below the editor on a laptop screen.
        yasqe: { value: example.query, editorHeight: "260px" },
        requestConfig: { endpoint: endpoint },
        // Results as plain values (no datatype IRIs) for reading; the table's toggle brings them back.
        yasr: { settings: { selectedPlugin: "table", pluginsConfig: { table: { compact: true } } }, response: undefined },
      });
    });
  } else {
    // Restored tabs keep the endpoint they were saved with; on this page it is always this server.
    tabIds.forEach(function (id) {
      var tab = yasgui.getTab(id);
      if (tab && tab.getEndpoint() !== endpoint) {
        tab.setEndpoint(endpoint);
      }
    });
  }

  // For tests and the browser console.
  window.provgraphYasgui = yasgui;
})();
