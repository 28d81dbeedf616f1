// Sluice's expression browser: a PromQL box with metric-name completion, the instant result as a table and a
// range as a graph, from the server's own Prometheus HTTP API (errors shown as the API words them).
(function () {
  "use strict";
  const expr = document.getElementById("expr");
  const list = document.getElementById("completions");
  const error = document.getElementById("error");
  let names = [];
  let view = "table";
  let chart = null;

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  async function api(path) {
    const r = await fetch(path, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    const body = await r.json().catch(() => ({ status: "error", errorType: "client", error: "HTTP " + r.status }));
    if (body.status !== "success") {
      throw new Error((body.errorType ? body.errorType + ": " : "") + (body.error || "HTTP " + r.status));
    }
    return body.data;
  }

  // ---- completion: metric names from /api/v1/label/__name__/values, matched on the word at the cursor

  function word() {
    const upto = expr.value.slice(0, expr.selectionStart);
    const m = upto.match(/[a-zA-Z_:][a-zA-Z0-9_:]*$/);
    return m ? m[0] : "";
  }

  function showCompletions() {
    const w = word();
    const matches = w.length < 1 ? [] : names.filter(n => n.includes(w) && n !== w).slice(0, 50);
    list.replaceChildren(...matches.map((n, i) => {
      const li = el("li", n, i === 0 ? "selected" : "");
      li.setAttribute("role", "option");
      li.addEventListener("mousedown", e => { e.preventDefault(); complete(n); });
      return li;
    }));
    list.hidden = matches.length === 0;
  }

  function complete(name) {
    const w = word();
    const at = expr.selectionStart;
    expr.value = expr.value.slice(0, at - w.length) + name + expr.value.slice(at);
    const pos = at - w.length + name.length;
    expr.setSelectionRange(pos, pos);
    list.hidden = true;
    expr.focus();
  }

  expr.addEventListener("input", showCompletions);
  expr.addEventListener("blur", () => { list.hidden = true; });
  expr.addEventListener("keydown", e => {
    const items = [...list.querySelectorAll("li")];
    const sel = items.findIndex(li => li.classList.contains("selected"));
    if (!list.hidden && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      const next = (sel + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      items.forEach((li, i) => li.classList.toggle("selected", i === next));
      items[next].scrollIntoView({ block: "nearest" });
    } else if (!list.hidden && (e.key === "Tab" || (e.key === "Enter" && sel >= 0 && !e.shiftKey))) {
      e.preventDefault();
      complete(items[Math.max(0, sel)].textContent);
    } else if (e.key === "Escape") {
      list.hidden = true;
    } else if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      run();
    }
  });

  // ---- results

  function labels(metric) {
    const name = metric.__name__ || "";
    const rest = Object.entries(metric).filter(([k]) => k !== "__name__")
      .map(([k, v]) => k + "=" + JSON.stringify(v)).join(", ");
    return name + (rest || !name ? "{" + rest + "}" : "");
  }

  function table(data) {
    const view = document.getElementById("table-view");
    const rows = [];
    if (data.resultType === "scalar" || data.resultType === "string") {
      rows.push([data.resultType, String(data.result[1])]);
    } else if (data.resultType === "vector") {
      for (const s of data.result) rows.push([labels(s.metric), s.value[1]]);
    } else {
      for (const s of data.result) rows.push([labels(s.metric), s.values.map(v => v[1] + " @" + v[0]).join("\n")]);
    }
    if (rows.length === 0) {
      view.replaceChildren(el("p", "Empty query result", "muted"));
      return;
    }
    const t = el("table");
    t.id = "result-table";
    for (const [k, v] of rows) {
      const tr = el("tr");
      tr.append(el("td", k), el("td", v, "value"));
      t.append(tr);
    }
    view.replaceChildren(t);
  }

  function graph(data, start, end, step) {
    const view = document.getElementById("graph-view");
    if (chart) { chart.destroy(); chart = null; }
    if (data.result.length === 0) {
      view.replaceChildren(el("p", "Empty query result", "muted"));
      return;
    }
    const xs = [];
    for (let t = start; t <= end + 1e-9; t += step) xs.push(Math.round(t * 1000) / 1000);
    const index = new Map(xs.map((t, i) => [t, i]));
    const series = [{}];
    const cols = [xs];
    const colors = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
    data.result.slice(0, 100).forEach((s, i) => {
      const ys = new Array(xs.length).fill(null);
      for (const [t, v] of s.values) {
        const at = index.get(Math.round(Number(t) * 1000) / 1000);
        if (at !== undefined) ys[at] = Number(v);
      }
      cols.push(ys);
      series.push({ label: labels(s.metric), stroke: colors[i % colors.length], width: 1.5 });
    });
    view.replaceChildren();
    chart = new uPlot({ width: Math.max(400, view.clientWidth - 20), height: 360, series,
      axes: [{}, SluiceAxis.y()], scales: { x: { time: true } } }, cols, view);
  }

  async function run() {
    const q = expr.value.trim();
    list.hidden = true;
    error.hidden = true;
    if (!q) return;
    const url = new URL(location.href);
    url.searchParams.set("g0.expr", q);
    url.searchParams.set("g0.tab", view === "graph" ? "0" : "1");
    history.replaceState(null, "", url);
    const t0 = performance.now();
    try {
      if (view === "table") {
        const data = await api("/api/v1/query?query=" + encodeURIComponent(q));
        table(data);
        document.getElementById("stats").textContent = "Load time: " + Math.round(performance.now() - t0)
          + " ms · Result series: " + (Array.isArray(data.result) ? data.result.length : 1);
      } else {
        const range = Number(document.getElementById("range").value);
        const end = Math.floor(Date.now() / 1000);
        const start = end - range;
        const step = Math.max(1, Math.ceil(range / 250));
        const data = await api("/api/v1/query_range?query=" + encodeURIComponent(q) + "&start=" + start + "&end="
          + end + "&step=" + step);
        graph(data, start, end, step);
        document.getElementById("stats").textContent = "Load time: " + Math.round(performance.now() - t0)
          + " ms · Resolution: " + step + "s · Result series: " + data.result.length;
      }
    } catch (e) {
      error.textContent = "Error executing query: " + e.message;
      error.hidden = false;
    }
  }

  function select(tab) {
    view = tab;
    document.getElementById("tab-table").classList.toggle("active", tab === "table");
    document.getElementById("tab-graph").classList.toggle("active", tab === "graph");
    document.getElementById("table-view").hidden = tab !== "table";
    document.getElementById("graph-view").hidden = tab !== "graph";
    run();
  }

  document.getElementById("query-form").addEventListener("submit", e => { e.preventDefault(); run(); });
  document.getElementById("tab-table").addEventListener("click", () => select("table"));
  document.getElementById("tab-graph").addEventListener("click", () => select("graph"));
  document.getElementById("range").addEventListener("change", () => { if (view === "graph") run(); });

  api("/api/v1/label/__name__/values").then(d => { names = d; }).catch(() => {});
  const params = new URLSearchParams(location.search);
  if (params.get("g0.expr")) {
    expr.value = params.get("g0.expr");
    select(params.get("g0.tab") === "0" ? "graph" : "table");
  }
})();
