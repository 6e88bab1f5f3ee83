// The graph view: a node's neighbourhood drawn with Cytoscape.js; a click expands a node
// (its own neighbourhood, fetched from this server) until the drawing holds max_nodes.
"use strict";
(function () {
  var holder = document.getElementById("graph");
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var status = document.getElementById("graph-status");
  var panel = document.getElementById("graph-panel");
  var centre = new Set(data.graph.center.map(String));

  function nodeUrl(fqn) {
    return "/apps/" + encodeURIComponent(data.app) + "/nodes/" +
      fqn.split("/").map(function (p) { return encodeURIComponent(p).replace(/%3A/g, ":"); }).join("/");
  }
  function label(n) { return n.name || (n.fqn || "").split(/[.:/]/).pop() || String(n.id); }
  function elements(graph, cy) {
    var out = [];
    var room = data.max_nodes - (cy ? cy.nodes().length : 0);
    var added = new Set();
    graph.nodes.forEach(function (n) {
      var id = String(n.id);
      if ((cy && cy.getElementById(id).length) || room <= 0) return;
      room -= 1; added.add(id);
      out.push({ group: "nodes", data: { id: id, label: label(n), fqn: n.fqn, kind: n.kind,
        file: n.file_path, line: n.line_start, centre: centre.has(id) ? 1 : 0,
        level: n.level || 0 } });
    });
    graph.edges.forEach(function (e) {
      var s = String(e.source), t = String(e.target), id = "e" + e.id;
      var have = function (x) { return added.has(x) || (cy && cy.getElementById(x).length); };
      if (!have(s) || !have(t) || (cy && cy.getElementById(id).length)) return;
      out.push({ group: "edges", data: { id: id, source: s, target: t, kind: e.kind } });
    });
    return out;
  }
  // A force-directed layout reads well for a few dozen nodes; past that its cost grows
  // with the square of the nodes (seconds for 300): rings by distance from the centre.
  function layout(n) {
    if (n <= 60) return { name: "cose", animate: false, nodeRepulsion: 8000, idealEdgeLength: 60 };
    return { name: "concentric", animate: false, minNodeSpacing: 6, levelWidth: function () { return 1; },
      concentric: function (node) { return 10 - node.data("level"); } };
  }
  var cy = cytoscape({
    container: holder,
    elements: elements(data.graph, null),
    wheelSensitivity: 0.3,
    style: [
      { selector: "node", style: { "label": "data(label)", "font-size": 10, "min-zoomed-font-size": 7, "width": 14, "height": 14,
        "background-color": "#6b8fb5", "text-valign": "bottom", "text-margin-y": 3 } },
      { selector: "node[centre = 1]", style: { "background-color": "#d9822b", "width": 22, "height": 22 } },
      { selector: "node.expanded", style: { "border-width": 2, "border-color": "#1d2329" } },
      { selector: "node:selected", style: { "background-color": "#0b5cad" } },
      { selector: "edge", style: { "width": 1.2, "curve-style": "bezier", "target-arrow-shape": "triangle",
        "arrow-scale": 0.7, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1" } },
      { selector: "edge[kind = 'EXTENDS'], edge[kind = 'IMPLEMENTS']", style: { "line-style": "dashed",
        "line-color": "#7a5", "target-arrow-color": "#7a5" } },
      { selector: "edge[kind = 'OVERRIDES']", style: { "line-style": "dotted" } }
    ],
    layout: layout(data.graph.nodes.length)
  });
  data.graph.center.forEach(function (id) { cy.getElementById(String(id)).addClass("expanded"); });
  window.graphragGraph = cy;  // for the browser tests and the console
  window.graphragDrawnMs = performance.now();  // page start to drawn (benchmarks/web.py)

  function describe(node) {
    var d = node.data();
    panel.textContent = "";
    var title = document.createElement("div");
    var kind = document.createElement("span"); kind.className = "kind"; kind.textContent = d.kind || "";
    title.appendChild(kind); title.appendChild(document.createTextNode(" " + (d.fqn || d.label)));
    panel.appendChild(title);
    if (d.file) {
      var where = document.createElement("div"); where.className = "muted";
      where.textContent = d.file + (d.line ? ":" + d.line : ""); panel.appendChild(where);
    }
    if (d.fqn) {
      var link = document.createElement("a"); link.href = nodeUrl(d.fqn); link.id = "panel-open";
      link.textContent = "Open the symbol page"; panel.appendChild(link);
    }
  }
  function say(text) { status.textContent = text; }

  function expand(node) {
    describe(node);
    if (node.hasClass("expanded")) return Promise.resolve();
    if (cy.nodes().length >= data.max_nodes) {
      say("The drawing holds " + cy.nodes().length + " nodes (at most " + data.max_nodes + "): draw the graph of another node instead.");
      return Promise.resolve();
    }
    var params = new URLSearchParams({ app: data.app, node: node.id(), depth: "1" });
    data.kinds.forEach(function (k) { params.append("kinds", k); });
    return fetch("/web/graph.json?" + params.toString(), { credentials: "same-origin" })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (res) {
        if (!res.ok) { say(res.body.error ? res.body.error.message : "expanding failed"); return; }
        var before = cy.nodes().length;
        var added = cy.add(elements(res.body, cy));
        node.addClass("expanded");
        var grown = cy.nodes().length - before;
        var left = res.body.nodes.length - 1 - grown;
        say(cy.nodes().length + " nodes, " + cy.edges().length + " edges; expanded " + (node.data("fqn") || node.id()) +
            " (+" + grown + (left > 0 ? ", " + left + " already drawn or over the limit" : "") + ").");
        if (added.length) {
          // new nodes sit one ring further out than the node they came from
          var base = node.data("level") || 0;
          var at = node.position();
          added.nodes().forEach(function (x) { x.data("level", base + 1); x.position({ x: at.x, y: at.y }); });
          cy.layout(layout(cy.nodes().length)).run();
        }
      })
      .catch(function (err) { say("expanding failed: " + err); });
  }
  window.graphragExpand = function (id) { return expand(cy.getElementById(String(id))); };
  cy.on("tap", "node", function (ev) { expand(ev.target); });
  cy.on("dbltap", "node", function (ev) { if (ev.target.data("fqn")) window.location.assign(nodeUrl(ev.target.data("fqn"))); });
})();
