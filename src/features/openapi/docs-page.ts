/**
 * /api/docs: a browsable page of the OpenAPI document, served from the executable — an HTML
 * page, its stylesheet and its script, all from this server (the app's CSP allows scripts from
 * self only; nothing comes from a CDN).
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dmarcwarden API</title>
<link rel="stylesheet" href="/api/docs/docs.css">
<script src="/api/docs/docs.js" defer></script>
</head>
<body>
<header><h1>dmarcwarden API</h1><p id="intro">Loading the OpenAPI document…</p>
<p class="links"><a href="/api/openapi.json">openapi.json</a> · <a href="/app">Back to the app</a></p>
<label class="filter">Filter <input id="filter" type="search" placeholder="path, method or summary" autocomplete="off"></label></header>
<main id="ops"></main>
<noscript>This page needs JavaScript; the document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
</body>
</html>
`;

export const DOCS_CSS = `*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937;background:#f8fafc}
header{padding:24px 16px 8px;max-width:1100px;margin:0 auto}h1{margin:0 0 4px;font-size:26px}.links a{color:#2563eb}
.filter{display:block;margin-top:12px;font-weight:600}.filter input{display:block;width:100%;max-width:480px;margin-top:4px;padding:8px 10px;border:1px solid #cbd5e1;border-radius:8px;font:inherit}
main{max-width:1100px;margin:0 auto;padding:8px 16px 48px}h2{font-size:18px;margin:24px 0 8px;text-transform:capitalize}
details{background:#fff;border:1px solid #e2e8f0;border-radius:10px;margin:6px 0}summary{cursor:pointer;padding:10px 12px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.m{display:inline-block;min-width:64px;text-align:center;font-weight:700;font-size:12px;border-radius:6px;padding:2px 6px;color:#fff}
.get{background:#2563eb}.post{background:#16a34a}.put{background:#d97706}.patch{background:#7c3aed}.delete{background:#dc2626}.all{background:#64748b}
.p{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600;word-break:break-all}.s{color:#475569}
.body{padding:0 12px 12px;border-top:1px solid #f1f5f9}.body h3{font-size:14px;margin:12px 0 4px}
pre{background:#0f172a;color:#e2e8f0;padding:10px;border-radius:8px;overflow:auto;font-size:12px;max-height:420px}
table{border-collapse:collapse;width:100%;font-size:13px;table-layout:fixed}th:nth-child(1){width:20%}th:nth-child(2){width:13%}th:nth-child(3){width:19%}td code{word-break:break-all;overflow-wrap:anywhere}td,th{border-bottom:1px solid #e2e8f0;padding:4px 6px;text-align:left;vertical-align:top}code{font-family:ui-monospace,Menlo,Consolas,monospace}
`;

export const DOCS_JS = `(function () {
  "use strict";
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) node.setAttribute(k, attrs[k]);
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function pre(value) { return el("pre", null, [JSON.stringify(value, null, 2)]); }
  function operation(path, method, op) {
    var body = el("div", { class: "body" }, [el("p", null, [op.description || ""])]);
    if (op.parameters && op.parameters.length) {
      var rows = op.parameters.map(function (p) {
        return el("tr", null, [el("td", null, [el("code", null, [p.name])]), el("td", null, [p.in]), el("td", null, [p.required ? "required" : "optional"]), el("td", null, [el("code", null, [JSON.stringify(p.schema)])])]);
      });
      body.appendChild(el("h3", null, ["Parameters"]));
      body.appendChild(el("table", null, [el("thead", null, [el("tr", null, [el("th", null, ["Name"]), el("th", null, ["In"]), el("th", null, [""]), el("th", null, ["Schema"])])]), el("tbody", null, rows)]));
    }
    if (op.requestBody) {
      body.appendChild(el("h3", null, ["Request body (application/json)"]));
      body.appendChild(pre(op.requestBody.content["application/json"].schema));
    }
    body.appendChild(el("h3", null, ["Responses"]));
    Object.keys(op.responses).forEach(function (code) {
      var r = op.responses[code];
      var types = r.content ? Object.keys(r.content) : [];
      body.appendChild(el("p", null, [el("strong", null, [code]), " " + r.description + (types.length ? " (" + types.join(", ") + ")" : "")]));
      types.forEach(function (t) { var s = r.content[t].schema; if (s && Object.keys(s).length && !s.$ref) body.appendChild(pre(s)); });
    });
    var d = el("details", { "data-text": (method + " " + path + " " + (op.summary || "")).toLowerCase() }, [
      el("summary", null, [el("span", { class: "m " + method }, [method.toUpperCase()]), el("span", { class: "p" }, [path]), el("span", { class: "s" }, [op.summary || ""])]),
      body,
    ]);
    return d;
  }
  fetch("/api/openapi.json").then(function (r) { return r.json(); }).then(function (doc) {
    document.getElementById("intro").textContent = doc.info.description + " OpenAPI " + doc.openapi + ", version " + doc.info.version + ".";
    var groups = {};
    Object.keys(doc.paths).sort().forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || "api";
        (groups[tag] = groups[tag] || []).push(operation(path, method, op));
      });
    });
    var main = document.getElementById("ops");
    Object.keys(groups).sort().forEach(function (tag) {
      var section = el("section", { "data-tag": tag }, [el("h2", null, [tag])]);
      groups[tag].forEach(function (d) { section.appendChild(d); });
      main.appendChild(section);
    });
    document.getElementById("filter").addEventListener("input", function (e) {
      var q = e.target.value.trim().toLowerCase();
      Array.prototype.forEach.call(main.querySelectorAll("section"), function (section) {
        var shown = 0;
        Array.prototype.forEach.call(section.querySelectorAll("details"), function (d) {
          var ok = !q || d.getAttribute("data-text").indexOf(q) >= 0;
          d.style.display = ok ? "" : "none";
          if (ok) shown++;
        });
        section.style.display = shown ? "" : "none";
      });
    });
  }).catch(function () {
    document.getElementById("intro").textContent = "The OpenAPI document could not be loaded.";
  });
})();
`;
