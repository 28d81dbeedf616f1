// Sluice console: the connector overview and pages, a pipeline's eight panels, the topics and their messages, the
// consumer groups and the registry's subjects, drawn from the console's /api/ endpoints. No build step.
(function () {
  "use strict";

  const REFRESH_MS = 15000;
  let timer = null;
  let paused = false;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  }

  function state(kind, text) {
    return el("div", { class: "state " + kind, text: text });
  }

  async function getJSON(url) {
    const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (r.status === 401) {
      location.href = "/login";
      throw new Error("login required");
    }
    if (r.status === 403) {
      location.href = "/password";
      throw new Error("the password must be changed first");
    }
    let body;
    try {
      body = await r.json();
    } catch (e) {
      throw new Error("HTTP " + r.status + ": not JSON");
    }
    if (!r.ok || body.status === "error" || body.error) {
      throw new Error(body.error || ("HTTP " + r.status));
    }
    return body;
  }

  function fmt(v, unit) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    if (unit === "s") {
      if (v < 1) return (v * 1000).toFixed(0) + " ms";
      if (v < 120) return v.toFixed(1) + " s";
      if (v < 7200) return (v / 60).toFixed(1) + " min";
      return (v / 3600).toFixed(1) + " h";
    }
    if (unit === "records" || unit === "restarts") return Math.round(v).toLocaleString("en-US");
    const a = Math.abs(v);
    const s = a >= 1e6 ? (v / 1e6).toFixed(2) + "M" : a >= 1e4 ? (v / 1e3).toFixed(1) + "k"
      : a >= 100 ? v.toFixed(0) : a >= 1 ? v.toFixed(2) : v === 0 ? "0" : v.toPrecision(2);
    return s + (unit && unit !== "ratio" ? " " + unit : "");
  }

  function legend(template, metric) {
    return template.replace(/\{\{(\w+)\}\}/g, (m, k) => metric[k] || "");
  }

  function scheduleRefresh(fn) {
    const button = document.getElementById("refresh-toggle");
    button.addEventListener("click", () => {
      paused = !paused;
      button.textContent = paused ? "Resume refresh" : "Pause refresh";
      button.setAttribute("aria-pressed", String(paused));
      if (!paused) fn();
    });
    const tick = () => {
      if (!paused && document.visibilityState !== "hidden") fn();
    };
    timer = setInterval(tick, REFRESH_MS);
  }

  // ---- overview

  const COLUMNS = [
    ["name", "Connector", false], ["type", "Type", false], ["state", "State", false], ["pipeline", "Pipeline", false],
    ["lagSeconds", "Lag (p99)", true], ["lagRecords", "Lag (records)", true], ["throughput", "Throughput", true],
    ["errors", "Errors/s", true], ["alerts", "Alerts", true]];
  let rows = [];
  let sortKey = "name";
  let sortAsc = true;

  function renderOverview() {
    const box = document.getElementById("overview");
    const filter = document.getElementById("filter").value.trim().toLowerCase();
    const shown = rows.filter(r => !filter || [r.name, r.type, r.state, r.pipeline]
      .some(v => String(v || "").toLowerCase().includes(filter)));
    shown.sort((a, b) => {
      const x = a[sortKey], y = b[sortKey];
      const c = typeof x === "number" || typeof y === "number" ? (x ?? -Infinity) - (y ?? -Infinity)
        : String(x || "").localeCompare(String(y || ""));
      return sortAsc ? c : -c;
    });
    document.getElementById("count").textContent = shown.length + " of " + rows.length + " connectors";
    if (rows.length === 0) {
      box.replaceChildren(state("empty", "No connectors yet: the metrics server has no connector status series."));
      return;
    }
    const head = el("tr", {});
    for (const [key, title] of COLUMNS) {
      const th = el("th", { text: title, "data-key": key });
      if (key === sortKey) th.className = "sorted" + (sortAsc ? " asc" : "");
      th.addEventListener("click", () => {
        sortAsc = key === sortKey ? !sortAsc : true;
        sortKey = key;
        renderOverview();
      });
      head.append(th);
    }
    const body = el("tbody", {});
    for (const r of shown) {
      const tr = el("tr", { "data-connector": r.name });
      for (const [key, , numeric] of COLUMNS) {
        const td = el("td", { class: numeric ? "num" : "" });
        if (key === "name") {
          td.append(el("a", { href: "/connector?name=" + encodeURIComponent(r.name), text: r.name }));
        } else if (key === "pipeline") {
          td.append(el("a", { href: "/pipeline?name=" + encodeURIComponent(r.pipeline), text: r[key] }));
        } else if (key === "state") {
          td.append(el("span", { class: "badge " + r.state, text: r.state }));
        } else if (key === "alerts") {
          td.append(r.alerts > 0 ? el("span", { class: "badge alert", text: String(r.alerts) }) : "0");
        } else if (key === "lagSeconds") {
          td.textContent = fmt(r.lagSeconds, "s");
        } else if (key === "throughput") {
          td.textContent = fmt(r.throughput, "/s");
        } else if (key === "errors") {
          td.textContent = fmt(r.errors, "");
        } else if (key === "lagRecords") {
          td.textContent = fmt(r.lagRecords, "records");
        } else {
          td.textContent = r[key] || "–";
        }
        tr.append(td);
      }
      body.append(tr);
    }
    box.replaceChildren(el("table", { id: "connectors" }, el("thead", {}, head), body));
  }

  async function loadOverview() {
    const box = document.getElementById("overview");
    try {
      const data = await getJSON("/api/connectors");
      rows = data.connectors;
      renderOverview();
      const q = document.getElementById("overview-queries");
      q.replaceChildren(...Object.entries(data.queries).map(([k, v]) => promql(v, k)));
      document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString()
        + (data.alertsError ? " · alerts: " + data.alertsError : "");
    } catch (e) {
      box.replaceChildren(state("error", "Cannot load the connectors: " + e.message));
    }
  }

  function overview() {
    document.getElementById("new-connector").hidden = role() !== "admin";
    document.getElementById("filter").addEventListener("input", renderOverview);
    loadOverview();
    scheduleRefresh(loadOverview);
  }

  // ---- pipeline

  function promql(expr, label) {
    const copy = el("button", { type: "button", text: "Copy", title: "Copy the PromQL" });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(expr);
        copy.textContent = "Copied";
      } catch (e) {
        const range = document.createRange();
        range.selectNodeContents(code);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        copy.textContent = "Selected";
      }
      setTimeout(() => { copy.textContent = "Copy"; }, 1500);
    });
    const code = el("code", { text: (label ? label + ": " : "") + expr, class: "promql-text" });
    return el("div", { class: "promql" }, code, copy);
  }

  function range() {
    const sel = document.getElementById("range").value;
    if (sel === "custom") {
      const from = Date.parse(document.getElementById("from").value);
      const to = Date.parse(document.getElementById("to").value);
      if (!Number.isNaN(from) && !Number.isNaN(to) && to > from) return { start: from / 1000, end: to / 1000 };
    }
    const end = Date.now() / 1000;
    return { start: end - Number(sel === "custom" ? 3600 : sel), end };
  }

  function step(r) {
    return Math.max(5, Math.ceil((r.end - r.start) / 240));
  }

  async function rangeQuery(expr, r) {
    const u = "/api/query_range?query=" + encodeURIComponent(expr) + "&start=" + r.start.toFixed(3) + "&end="
      + r.end.toFixed(3) + "&step=" + step(r);
    return (await getJSON(u)).data.result;
  }

  async function instantQuery(expr) {
    return (await getJSON("/api/query?query=" + encodeURIComponent(expr))).data.result;
  }

  const charts = new Map();

  function drawChart(body, panel, series, r) {
    // One x axis for every series: the step grid of the range (Prometheus aligns every result to it).
    const st = step(r);
    const first = Math.ceil(r.start / st) * st;
    const xs = [];
    for (let t = first; t <= r.end; t += st) xs.push(t);
    const index = new Map(xs.map((t, i) => [t, i]));
    const data = [xs];
    const opts = [{}];
    const colors = ["#2563eb", "#16a34a", "#dc2626", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
    series.forEach((s, i) => {
      const ys = new Array(xs.length).fill(null);
      for (const [t, v] of s.values) {
        const at = index.get(Math.round(Number(t) / st) * st);
        if (at !== undefined) ys[at] = Number(v);
      }
      data.push(ys);
      opts.push({ label: s.label, stroke: colors[i % colors.length], width: 2, spanGaps: false,
        value: (u, v) => fmt(v, panel.unit) });
    });
    const width = Math.max(300, body.clientWidth || 440);
    const old = charts.get(panel.id);
    if (old) old.destroy();
    body.replaceChildren();
    const chart = new uPlot({ width, height: 200, series: opts, legend: { live: false },
      axes: [{}, SluiceAxis.y({ label: panel.unit, labelSize: 20 })],
      scales: { x: { time: true, min: r.start, max: r.end } } }, data, body);
    charts.set(panel.id, chart);
    return data;
  }

  function gaugeSvg(value, thresholds) {
    const max = thresholds[1] * 2;
    const frac = Math.max(0, Math.min(1, (value || 0) / max));
    const arc = (from, to, color) => {
      const a0 = Math.PI * (1 - from), a1 = Math.PI * (1 - to);
      const x0 = 100 + 80 * Math.cos(a0), y0 = 100 - 80 * Math.sin(a0);
      const x1 = 100 + 80 * Math.cos(a1), y1 = 100 - 80 * Math.sin(a1);
      return '<path d="M' + x0 + " " + y0 + " A80 80 0 0 1 " + x1 + " " + y1 + '" stroke="' + color
        + '" stroke-width="16" fill="none"/>';
    };
    const t0 = thresholds[0] / max, t1 = thresholds[1] / max;
    const na = Math.PI * (1 - frac);
    const needle = '<line x1="100" y1="100" x2="' + (100 + 70 * Math.cos(na)) + '" y2="' + (100 - 70 * Math.sin(na))
      + '" stroke="#111827" stroke-width="3"/><circle cx="100" cy="100" r="5" fill="#111827"/>';
    const svg = '<svg viewBox="0 0 200 110" xmlns="http://www.w3.org/2000/svg">' + arc(0, t0, "#16a34a")
      + arc(t0, t1, "#d97706") + arc(t1, 1, "#dc2626") + needle + "</svg>";
    return new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  }

  async function drawPanel(panel, box, r) {
    const body = box.querySelector(".body");
    if (!body.firstChild || body.firstChild.classList?.contains("state")) {
      body.replaceChildren(state("loading", "Loading…"));
    }
    try {
      if (panel.kind === "TIMESERIES") {
        const results = await Promise.all(panel.queries.map(q => rangeQuery(q.expr, r)));
        const series = [];
        results.forEach((res, i) => res.forEach(s => series.push({ label: legend(panel.queries[i].legend, s.metric),
          values: s.values })));
        if (series.length === 0) {
          body.replaceChildren(state("empty", "No data in this range."));
          return;
        }
        const data = drawChart(body, panel, series, r);
        if (panel.id === "errors") {
          const mark = box.querySelector(".marked");
          const recent = data.slice(1).map(ys => ys.filter(v => v !== null).slice(-5));
          const consistent = recent.some(vs => vs.length >= 3 && vs.every(v => v > 0));
          mark.textContent = consistent ? "consistently above 0" : "";
        }
      } else if (panel.kind === "GAUGE") {
        const [lag, records] = await Promise.all(panel.queries.map(q => instantQuery(q.expr)));
        const v = lag.length ? Number(lag[0].value[1]) : null;
        const recs = records.length ? Number(records[0].value[1]) : null;
        if (v === null && recs === null) {
          body.replaceChildren(state("empty", "No data: no change has reached the sink in the last 5 minutes."));
          return;
        }
        const color = v === null || Number.isNaN(v) ? "" : v < panel.thresholds[0] ? "green"
          : v < panel.thresholds[1] ? "yellow" : "red";
        const value = el("div", {}, el("div", { class: "value " + color, text: fmt(v, "s"), "data-color": color }),
          el("div", { class: "muted", text: v === null ? "no change reached the sink in 5 minutes"
            : "p99, commit to sink" }),
          el("div", { text: fmt(recs, "records") + " records behind" }));
        body.replaceChildren(el("div", { class: "gauge" }, gaugeSvg(Number.isNaN(v) ? 0 : v, panel.thresholds),
          value));
      } else if (panel.kind === "STAT") {
        const res = await instantQuery(panel.queries[0].expr);
        if (res.length === 0) {
          body.replaceChildren(state("empty", "No data."));
          return;
        }
        body.replaceChildren(el("ul", { class: "stat-list" }, ...res.map(s => el("li", {},
          el("span", { text: legend(panel.queries[0].legend, s.metric) }),
          el("span", { class: "v", text: fmt(Number(s.value[1]), "restarts") })))));
      } else if (panel.kind === "STATUS") {
        const now = await instantQuery(panel.queries[0].expr);
        if (now.length === 0) {
          body.replaceChildren(state("empty", "No connector of this pipeline reports a state."));
          return;
        }
        const history = await rangeQuery(panel.queries[0].expr, r);
        const byConnector = new Map();
        for (const s of now) {
          const c = s.metric.connector;
          if (!byConnector.has(c) || s.metric.state === "FAILED") byConnector.set(c, s.metric.state);
        }
        const items = [];
        for (const [c, st] of byConnector) {
          // Since when: the start of the last unbroken run of this state's series in the range.
          const h = history.find(s => s.metric.connector === c && s.metric.state === st);
          let since = null;
          if (h && h.values.length) {
            since = Number(h.values[h.values.length - 1][0]);
            for (let i = h.values.length - 1; i > 0; i--) {
              if (Number(h.values[i][0]) - Number(h.values[i - 1][0]) > step(r) * 1.5) break;
              since = Number(h.values[i - 1][0]);
            }
          }
          items.push(el("li", { "data-connector": c }, el("span", { text: c }),
            el("span", {}, el("span", { class: "badge " + st, text: st }), " ",
              el("span", { class: "muted", text: since ? "since " + new Date(since * 1000).toLocaleString()
                + (since <= r.start + step(r) ? " or earlier" : "") : "" }))));
        }
        body.replaceChildren(el("ul", { class: "status-list" }, ...items));
      }
    } catch (e) {
      body.replaceChildren(state("error", "Query failed: " + e.message));
    }
  }

  let current = null;

  async function loadAlerts(info) {
    const box = document.getElementById("alerts");
    try {
      const q = info.connectors.map(c => "connector=" + encodeURIComponent(c)).join("&");
      const alerts = await getJSON("/api/alerts?pipeline=" + encodeURIComponent(info.pipeline) + (q ? "&" + q : ""));
      if (alerts.length === 0) {
        box.replaceChildren(el("ul", {}, el("li", { class: "none", text: "No alert firing for this pipeline." })));
      } else {
        box.replaceChildren(el("ul", {}, ...alerts.map(a => el("li", { "data-alert": a.alertname },
          el("span", { class: "badge alert", text: a.severity || "alert" }), " ",
          el("strong", { text: a.alertname }), " ", el("span", { text: a.connector }), " ",
          el("span", { class: "muted", text: a.summary })))));
      }
    } catch (e) {
      box.replaceChildren(state("error", "Cannot load alerts: " + e.message));
    }
  }

  // A source's ad-hoc snapshot (sluice snapshot start) in progress: one line per source, rows read of the estimate.
  async function loadSnapshot(info) {
    const box = document.getElementById("snapshot");
    if (!info.connectors.length) return;
    const sel = '{connector=~"' + info.connectors.map(c => c.replace(/[\\.^$|?*+()[\]{}"]/g, "\\\\$&")).join("|")
      + '"}';
    try {
      const [states, rows, estimates] = await Promise.all([
        instantQuery("svc_debezium_snapshot_running" + sel + " + 2 * svc_debezium_snapshot_paused" + sel),
        instantQuery("svc_debezium_snapshot_rows_scanned" + sel),
        instantQuery("svc_debezium_snapshot_table_rows_estimate" + sel)]);
      const lines = [];
      for (const s of states) {
        const v = Number(s.value[1]);
        if (v !== 1 && v !== 2) continue;
        const c = s.metric.connector;
        const st = v === 1 ? "running" : "paused";
        const tables = estimates.filter(e => e.metric.connector === c).map(e => {
          const read = rows.find(x => x.metric.connector === c && x.metric.table === e.metric.table);
          const n = read ? Number(read.value[1]) : 0;
          const of = Number(e.value[1]);
          const pct = of > 0 ? Math.min(100, n * 100 / of) : 100;
          return el("span", { class: "table", "data-table": e.metric.table }, el("span", { text: e.metric.table + " " }),
            el("progress", { max: "100", value: pct.toFixed(1) }),
            el("span", { class: "muted", text: " " + fmt(n, "records") + " of about " + fmt(of, "records") + " rows ("
              + pct.toFixed(1) + " %)" }));
        });
        lines.push(el("li", { "data-connector": c, "data-state": st },
          el("span", { class: "badge " + (v === 1 ? "RUNNING" : "PAUSED"), text: "snapshot " + st }), " ",
          el("strong", { text: c }), " ", ...tables));
      }
      box.hidden = lines.length === 0;
      box.replaceChildren(el("ul", {}, ...lines));
    } catch (e) {
      box.hidden = false;
      box.replaceChildren(state("error", "Cannot load the snapshot state: " + e.message));
    }
  }

  // ---- reconcile from the pipeline's page: a run in the background, its percentage, then the last report

  let reconcilePoll = null;

  function keyText(k) {
    return Object.entries(k || {}).map(([c, v]) => c + "=" + v).join(", ");
  }

  // Up to five sample keys of each kind, as the CLI's table prints its examples.
  function sampleKeys(t) {
    const lines = [];
    for (const k of (t.missingExamples || []).slice(0, 5)) lines.push("missing " + keyText(k));
    for (const k of (t.extraExamples || []).slice(0, 5)) lines.push("extra " + keyText(k));
    for (const m of (t.mismatchExamples || []).slice(0, 5)) {
      lines.push("changed " + keyText(m.key) + ": " + m.columns.map(c => c.column + " " + c.source + " → "
        + c.sink).join(", "));
    }
    return lines.map(l => el("div", { text: l }));
  }

  function renderReconcile(r) {
    const section = document.getElementById("reconcile");
    section.hidden = false;
    const button = document.getElementById("act-reconcile");
    if (!r.may.operate) button.remove();
    else {
      button.hidden = false;
      button.disabled = r.running;
    }
    const progress = document.getElementById("reconcile-progress");
    progress.hidden = !r.running;
    if (r.running) {
      progress.querySelector("progress").value = r.percent;
      progress.querySelector("span").textContent = r.percent.toFixed(1) + " % · table " + r.table + " (" + r.tables
        + " in all) · started by " + r.user;
    }
    const out = document.getElementById("reconcile-report");
    if (!r.last) {
      out.replaceChildren(el("p", { class: "muted", text: r.running ? "" : "Not reconciled since the console started." }));
      return;
    }
    const rows = r.last.tables.map(t => el("tr", { "data-table": t.sourceTable || "", "data-status": t.status },
      el("td", { class: "mono", text: t.sourceTable || "" }), el("td", { class: "mono", text: t.sinkTable || "" }),
      el("td", {}, el("span", { class: "badge " + t.status, text: t.status })),
      ...(t.status === "error" ? [el("td", { colspan: "6", class: "muted", text: t.error })] : [
        el("td", { class: "num", text: fmt(t.sourceRows, "records") }),
        el("td", { class: "num", text: fmt(t.sinkRows, "records") }),
        el("td", { class: "num missing", text: fmt(t.missing, "records") }),
        el("td", { class: "num extra", text: fmt(t.extra, "records") }),
        el("td", { class: "num changed", text: fmt(t.changed, "records") }),
        el("td", { class: "keys" }, ...sampleKeys(t))])));
    out.replaceChildren(el("p", {}, el("span", { class: "badge " + r.last.status, id: "reconcile-status",
      text: r.last.status }), " ", el("span", { class: "muted", text: "finished " + new Date(r.last.finishedAt)
      .toLocaleString() + " · started by " + r.last.user })),
      table(["Source table", "Sink table", "Status", "Source rows", "Sink rows", "Missing", "Extra", "Changed",
        "Sample keys"], rows));
  }

  async function loadReconcile(info) {
    try {
      const r = await getJSON("/api/reconcile?name=" + encodeURIComponent(info.pipeline));
      renderReconcile(r);
      clearTimeout(reconcilePoll);
      if (r.running) reconcilePoll = setTimeout(() => loadReconcile(info), 1000);
      else {
        // "Reconciling…" said a run started; its report now says the rest.
        const n = document.getElementById("reconcile-notice");
        if (n.classList.contains("ok")) n.hidden = true;
      }
    } catch (e) {
      const out = document.getElementById("reconcile-report");
      document.getElementById("reconcile").hidden = false;
      out.replaceChildren(state("error", "Cannot load the reconcile state: " + e.message));
    }
  }

  function reconcileButton(info) {
    const button = document.getElementById("act-reconcile");
    const n = document.getElementById("reconcile-notice");
    button.addEventListener("click", async () => {
      button.disabled = true;
      n.hidden = true;
      try {
        const a = await post("/api/reconcile/run", { name: info.pipeline });
        n.className = "notice ok";
        n.textContent = "Reconciling " + a.tables + " table(s) of " + info.pipeline + "…";
      } catch (e) {
        n.className = "notice error";
        n.textContent = "Cannot reconcile " + info.pipeline + ": " + e.message;
      }
      n.hidden = false;
      loadReconcile(info);
    });
  }

  function refreshPipeline() {
    if (!current) return;
    const r = range();
    loadAlerts(current);
    loadSnapshot(current);
    for (const p of current.panels) drawPanel(p, document.getElementById("panel-" + p.id), r);
  }

  async function pipeline() {
    const name = new URLSearchParams(location.search).get("name") || "";
    const grid = document.getElementById("panels");
    const picker = document.getElementById("pipeline-picker");
    const rangeSel = document.getElementById("range");
    rangeSel.addEventListener("change", () => {
      document.getElementById("custom-range").hidden = rangeSel.value !== "custom";
      if (rangeSel.value !== "custom") refreshPipeline();
    });
    document.getElementById("apply-range").addEventListener("click", refreshPipeline);
    picker.addEventListener("change", () => { location.href = "/pipeline?name=" + encodeURIComponent(picker.value); });
    // Reconcile asks Connect, not the metrics: it works on a page whose panels cannot load.
    if (name) {
      reconcileButton({ pipeline: name });
      loadReconcile({ pipeline: name });
    }
    try {
      current = await getJSON("/api/pipeline?name=" + encodeURIComponent(name));
    } catch (e) {
      grid.replaceChildren(state("error", "Cannot load the pipeline: " + e.message));
      return;
    }
    document.getElementById("title").textContent = "Pipeline " + (name || "(none)") + " · "
      + (current.connectors.join(", ") || "no connectors");
    picker.replaceChildren(...current.pipelines.map(p => {
      const o = el("option", { value: p, text: p });
      if (p === name) o.selected = true;
      return o;
    }));
    if (!current.pipelines.includes(name)) picker.prepend(el("option", { value: name, text: name, selected: "" }));
    grid.replaceChildren(...current.panels.map(p => el("article", { class: "panel", id: "panel-" + p.id,
      "data-panel": p.id },
      el("h2", {}, el("span", { text: p.title }), el("span", { class: "marked" })),
      el("div", { class: "body" }, state("loading", "Loading…")),
      el("p", { class: "muted", text: p.description }),
      ...p.queries.map(q => promql(q.expr)))));
    refreshPipeline();
    scheduleRefresh(refreshPipeline);
  }

  // ---- a connector's page and its actions

  function role() {
    const m = document.querySelector('meta[name="role"]');
    return m ? m.content : "read";
  }

  // Every state-changing call: JSON with the session's CSRF token; the answer's error, if any, as an Error.
  async function post(url, body) {
    const r = await fetch(url, { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json",
        "X-CSRF-Token": document.querySelector('meta[name="csrf"]').content },
      body: JSON.stringify(body) });
    if (r.status === 401) {
      location.href = "/login";
      throw new Error("login required");
    }
    let answer;
    try {
      answer = await r.json();
    } catch (e) {
      throw new Error("HTTP " + r.status + ": not JSON");
    }
    if (!r.ok && !(answer && answer.errors)) throw new Error(answer.error || "HTTP " + r.status);
    answer.status = r.status;
    return answer;
  }

  function notice(kind, text) {
    const n = document.getElementById("notice");
    n.className = "notice " + kind;
    n.textContent = text;
    n.hidden = !text;
  }

  function box(title, ...children) {
    return el("section", { class: "box" }, el("h2", { text: title }), ...children);
  }

  function table(head, rows) {
    return el("table", {}, el("thead", {}, el("tr", {}, ...head.map(h => el("th", { text: h })))),
      el("tbody", {}, ...rows));
  }

  function renderConnector(c) {
    document.title = "Sluice · " + c.name;
    document.getElementById("title").textContent = c.name;
    document.getElementById("crumb").textContent = c.name;
    document.getElementById("state").replaceChildren(el("span", { class: "badge " + c.state, text: c.state,
      id: "connector-state" }), " ", el("span", { class: "muted", text: c.type + " · " + c["class"] }));
    // What the role does not allow is not on the page at all (the server refuses it anyway).
    const actions = document.getElementById("actions");
    if (actions && !c.may.operate) actions.remove();
    if (actions && c.may.operate) {
      if (!c.may.admin) actions.querySelector(".admin")?.remove();
      actions.hidden = false;
      actions.querySelectorAll("button").forEach(b => { b.disabled = false; });
      if (c.may.admin) document.getElementById("act-edit").href = "/connector/edit?name=" + encodeURIComponent(c.name);
      document.getElementById("act-pause").disabled = c.state === "PAUSED";
      document.getElementById("act-resume").disabled = c.state === "RUNNING";
      document.getElementById("act-restart-failed").disabled = c.state !== "FAILED"
        && !c.tasks.some(t => t.state === "FAILED");
    }
    if (!c.may.silence) document.getElementById("silence")?.closest("label")?.remove();

    const tasks = c.tasks.map(t => el("tr", { "data-task": String(t.id) }, el("td", { class: "num", text: t.id }),
      el("td", {}, el("span", { class: "badge " + t.state, text: t.state })), el("td", { text: t.worker }),
      el("td", {}, t.trace ? el("pre", { class: "trace", text: t.trace }) : "")));
    const status = box("Tasks", c.trace ? el("pre", { class: "trace", text: "Connector: " + c.trace }) : "",
      c.tasks.length ? table(["Task", "State", "Worker", "Failure (first lines of the trace)"], tasks)
        : el("p", { class: "muted", text: "No tasks (a stopped connector has none)." }));
    status.id = "tasks";

    const offsets = box("Committed offsets", c.offsets === null
      ? el("p", { class: "muted", text: "This Connect has no offsets API (Kafka 3.6 or newer)." })
      : c.offsets.length === 0 ? el("p", { class: "muted", text: "None committed yet." })
        : table(["Partition", "Offset"], c.offsets.map(o => el("tr", {},
          el("td", { class: "value", text: compact(o.partition) }), el("td", { class: "value",
            text: compact(o.offset) })))));
    offsets.id = "offsets";

    const topics = box("Topics " + (c.type === "sink" ? "it reads" : "it writes"), c.topicsError
      ? el("p", { class: "muted", text: c.topicsError })
      : c.topics.length ? el("ul", { id: "topic-list" }, ...c.topics.map(t => el("li", { class: "mono", text: t })))
        : el("p", { class: "muted", text: "None yet." }));
    topics.id = "topics";

    const config = box("Config", table(["Key", "Value"], Object.entries(c.config).map(([k, v]) =>
      el("tr", { "data-key": k }, el("td", { class: "key", text: k }), el("td", { class: "value", text: v })))));
    config.id = "config";
    config.classList.add("wide");

    const d = c.delivery;
    const exactly = d.guarantee === "exactly once";
    const figures = el("p", { id: "transactions", class: "muted", text: exactly ? "Reading its transactions…" : "" });
    const delivery = box("Delivery", el("p", {}, el("strong", { id: "guarantee", text: d.guarantee }), " ",
      el("span", { class: "muted", text: exactly ? "a transaction per " + ({ poll: "batch its tasks poll",
        interval: "interval (transaction.boundary.interval.ms)" }[d.transaction_boundary]
        || "boundary the connector sets") + "; readers with isolation.level=read_committed see each change once"
        : "(" + d.why + ")" })), exactly ? figures : "");
    delivery.id = "delivery";

    document.getElementById("detail").replaceChildren(el("div", { class: "detail-grid" }, status, delivery, topics,
      offsets, config));
    status.classList.add("wide");
    if (exactly) transactions(c.name, figures);
  }

  /**
   * An exactly-once source's transactions, as `sluice connectors describe` reads them from the metrics server: commits
   * and aborted commits of its tasks, and each open transaction's age against its timeout.
   */
  async function transactions(name, target) {
    const label = 'connector="' + name.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
    try {
      const series = await instantQuery('{__name__=~"svc_connect_task_offset_commit_(success|failure)_total'
        + '|svc_connect_task_transaction_(open|timeout)_seconds",' + label + "}");
      const sum = n => Math.round(series.filter(s => s.metric.__name__ === n)
        .reduce((a, s) => a + Number(s.value[1]), 0));
      const byTask = n => new Map(series.filter(s => s.metric.__name__ === n)
        .map(s => [s.metric.task, Number(s.value[1])]));
      const open = byTask("svc_connect_task_transaction_open_seconds");
      const timeout = byTask("svc_connect_task_transaction_timeout_seconds");
      if (!series.length) {
        target.textContent = "No transaction figures yet (its tasks not running, or not scraped yet).";
        return;
      }
      const opened = [...open].filter(([, v]) => v > 0).map(([t, v]) => "task " + t + "'s open for " + v.toFixed(1)
        + " s of its " + (timeout.get(t) || 0).toFixed(0) + " s timeout");
      target.className = "";
      target.textContent = sum("svc_connect_task_offset_commit_success_total").toLocaleString("en") + " committed, "
        + sum("svc_connect_task_offset_commit_failure_total").toLocaleString("en") + " failed (aborted) since the"
        + " tasks started; " + (opened.length ? opened.join(", ") : "none open") + " (the metrics server's last scrape)";
    } catch (e) {
      target.textContent = "The metrics server did not answer: " + e.message;
    }
  }

  function compact(v) {
    if (v === null || typeof v !== "object") return String(v);
    return Object.entries(v).map(([k, x]) => k + "=" + (typeof x === "object" ? JSON.stringify(x) : x)).join("  ");
  }

  async function loadConnector(name) {
    try {
      renderConnector(await getJSON("/api/connector?name=" + encodeURIComponent(name)));
    } catch (e) {
      document.getElementById("detail").replaceChildren(state("error", "Cannot load connector " + name + ": "
        + e.message));
    }
  }

  async function act(name, action, extra, doing) {
    const buttons = document.querySelectorAll("#actions button");
    buttons.forEach(b => { b.disabled = true; });
    notice("ok", doing + "…");
    try {
      const answer = await post("/api/connector/" + action, Object.assign({ name }, extra || {}));
      notice("ok", "Connector " + name + " " + answer.result + (answer.silence ? " (silence " + answer.silence + ")"
        : "") + ".");
      if (action === "delete") {
        document.getElementById("actions").remove();
        document.getElementById("detail").replaceChildren(el("p", { class: "muted" },
          "Deleted. ", el("a", { href: "/", text: "Back to the connectors" })));
        return;
      }
    } catch (e) {
      notice("error", "Cannot " + action + " " + name + ": " + e.message);
    }
    await loadConnector(name);
  }

  function connector() {
    const name = new URLSearchParams(location.search).get("name") || "";
    const pauseForm = document.getElementById("pause-form");
    document.getElementById("act-pause").addEventListener("click", () => {
      pauseForm.hidden = false;
      document.getElementById("silence").focus();
    });
    document.getElementById("pause-cancel").addEventListener("click", () => { pauseForm.hidden = true; });
    pauseForm.addEventListener("submit", e => {
      e.preventDefault();
      pauseForm.hidden = true;
      const silence = document.getElementById("silence");
      act(name, "pause", { silence: silence ? silence.value : "",
        comment: document.getElementById("silence-comment").value }, "Pausing");
    });
    document.getElementById("act-resume").addEventListener("click", () => act(name, "resume", {}, "Resuming"));
    document.getElementById("act-restart-failed").addEventListener("click",
      () => act(name, "restart", { onlyFailed: true }, "Restarting the failed instances"));
    document.getElementById("act-restart").addEventListener("click",
      () => act(name, "restart", { onlyFailed: false }, "Restarting"));
    document.getElementById("act-stop").addEventListener("click", () => act(name, "stop", {}, "Stopping"));
    const dialog = document.getElementById("confirm-delete");
    const typed = document.getElementById("delete-typed");
    const confirm = document.getElementById("delete-confirm");
    typed.addEventListener("input", () => { confirm.disabled = typed.value !== name; });
    document.getElementById("act-delete").addEventListener("click", () => {
      document.getElementById("delete-name").textContent = name;
      typed.value = "";
      confirm.disabled = true;
      dialog.showModal();
    });
    dialog.addEventListener("close", () => {
      if (dialog.returnValue === "delete" && typed.value === name) act(name, "delete", {}, "Deleting");
    });
    loadConnector(name);
  }

  // ---- a connector's config: Connect validates, the change is shown, then applied

  function configRow(key, value) {
    const remove = el("button", { type: "button", text: "Remove", title: "Remove this key" });
    const tr = el("tr", {}, el("td", { class: "key-cell" }, el("input", { class: "k", value: key,
      "aria-label": "Key" })), el("td", {}, el("input", { class: "v", value: value, "aria-label": "Value",
        // What the page would mask is typed unseen too (a reference to a secret is no secret).
        type: /password|secret|token|credentials|jaas/i.test(key) && !/^\$\{.*\}$/.test(value) ? "password" : "text" }),
      el("div", { class: "err" })), el("td", {}, remove));
    remove.addEventListener("click", () => { tr.remove(); hideChange(); });
    tr.addEventListener("input", hideChange);
    tr.querySelector(".k").addEventListener("change", () => { tr.dataset.key = tr.querySelector(".k").value.trim(); });
    tr.dataset.key = key;
    return tr;
  }

  function hideChange() {
    document.getElementById("change").hidden = true;
  }

  function editedConfig() {
    const config = {};
    for (const tr of document.querySelectorAll("#config-table tbody tr")) {
      const k = tr.querySelector(".k").value.trim();
      if (k) config[k] = tr.querySelector(".v").value;
    }
    return config;
  }

  function showVerdict(v) {
    let shown = 0;
    for (const tr of document.querySelectorAll("#config-table tbody tr")) {
      const k = tr.querySelector(".k").value.trim();
      const errors = (v.errors || {})[k] || [];
      tr.classList.toggle("bad", errors.length > 0);
      // One error a line: a PostgreSQL source's refusal names each column it cannot carry as an error of its own.
      tr.querySelector(".err").textContent = errors.join("\n");
      tr.querySelector(".err").className = "err error";
      shown += errors.length ? 1 : 0;
    }
    const unplaced = Object.entries(v.errors || {}).filter(([k]) =>
      ![...document.querySelectorAll("#config-table .k")].some(i => i.value.trim() === k));
    const box = document.getElementById("change");
    if (Object.keys(v.errors || {}).length) {
      notice("error", "Kafka Connect refused the config; nothing was changed."
        + unplaced.map(([k, e]) => "\n" + (k || "config") + ": " + e.join("\n")).join(""));
      box.hidden = true;
      return false;
    }
    const rows = v.diff.map(d => el("tr", { class: d.kind, "data-key": d.key },
      el("td", { class: "sign", text: { add: "+", remove: "−", change: "~", resend: "~" }[d.kind] }),
      el("td", { text: d.key }),
      el("td", { class: "before", text: d.kind === "add" ? "" : d.kind === "resend" ? "(secret, sent again)"
        : d.before }),
      el("td", { class: "after", text: d.kind === "remove" || d.kind === "resend" ? "" : d.after })));
    document.querySelector("#diff tbody").replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { class: "muted", text: "Nothing changes." }))]));
    box.hidden = false;
    document.getElementById("apply").disabled = v.action === "unchanged";
    document.getElementById("apply").textContent = v.action === "create" ? "Create the connector" : "Apply";
    const warnings = v.warnings || [];
    notice(warnings.length ? "warn" : "ok", "Kafka Connect accepts this config. Check what changes, then apply."
      + warnings.map(w => "\nWarning: " + w).join(""));
    return true;
  }

  async function editor() {
    const params = new URLSearchParams(location.search);
    const existing = params.get("name");
    const nameBox = document.getElementById("name");
    const body = document.querySelector("#config-table tbody");
    if (existing) {
      nameBox.value = existing;
      nameBox.readOnly = true;
      document.getElementById("title").textContent = "Edit " + existing;
      document.getElementById("crumb").replaceChildren(el("a", { href: "/connector?name="
        + encodeURIComponent(existing), text: existing }), " / config");
      try {
        const c = await getJSON("/api/connector?name=" + encodeURIComponent(existing));
        body.replaceChildren(...Object.entries(c.config).filter(([k]) => k !== "name")
          .map(([k, v]) => configRow(k, v)));
      } catch (e) {
        notice("error", "Cannot load connector " + existing + ": " + e.message);
      }
    } else {
      document.getElementById("title").textContent = "New connector";
      document.getElementById("crumb").textContent = "new";
      body.replaceChildren(configRow("connector.class", ""), configRow("tasks.max", "1"));
    }
    document.getElementById("add-key").addEventListener("click", () => {
      const tr = configRow("", "");
      body.append(tr);
      tr.querySelector(".k").focus();
      hideChange();
    });
    const request = () => ({ name: nameBox.value.trim(), create: !existing, config: editedConfig() });
    document.getElementById("validate").addEventListener("click", async () => {
      notice("ok", "Kafka Connect is validating…");
      try {
        showVerdict(await post("/api/connector/validate", request()));
      } catch (e) {
        notice("error", "Cannot validate: " + e.message);
      }
    });
    document.getElementById("apply").addEventListener("click", async () => {
      try {
        const v = await post("/api/connector/apply", request());
        if (v.applied) {
          location.href = "/connector?name=" + encodeURIComponent(request().name);
          return;
        }
        showVerdict(v);
      } catch (e) {
        notice("error", "Cannot apply: " + e.message);
      }
    });
  }


  // ---- topics

  function bytesText(n) {
    if (n === null || n === undefined) return "–";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let v = n, i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? String(v) : v.toFixed(1)) + " " + units[i];
  }

  function durationText(ms) {
    for (const [unit, size] of [["d", 86400000], ["h", 3600000], ["min", 60000], ["s", 1000]]) {
      if (ms >= size && ms % size === 0) return ms / size + " " + unit;
    }
    return ms >= 86400000 ? (ms / 86400000).toFixed(1) + " d" : fmt(ms / 1000, "s");
  }

  function retentionText(t) {
    const parts = [];
    if ((t.cleanupPolicy || "").includes("compact")) parts.push("compacted");
    if ((t.cleanupPolicy || "delete").includes("delete")) {
      const ms = Number(t.retentionMs);
      parts.push(t.retentionMs === "-1" ? "kept forever" : Number.isFinite(ms) ? durationText(ms) : "–");
      if (t.retentionBytes && t.retentionBytes !== "-1") parts.push("≤ " + bytesText(Number(t.retentionBytes)));
    }
    return parts.join(", ");
  }

  // Connect's, the registry's and Sluice's own topics, hidden unless asked for.
  const PLATFORM = /^(_|connect-(configs|offsets|status)$|sluice-(connect-secrets|alerts-state|cluster)$)/;

  function topicsPage() {
    const box = document.getElementById("topics-box");
    const filter = document.getElementById("filter");
    const internal = document.getElementById("show-internal");
    let all = [];
    const render = () => {
      const f = filter.value.trim().toLowerCase();
      const shown = all.filter(t => (internal.checked || !PLATFORM.test(t.name)) && (!f || t.name.toLowerCase()
        .includes(f) || t.connectors.some(c => c.name.toLowerCase().includes(f))
        || t.groups.some(g => g.toLowerCase().includes(f))));
      document.getElementById("count").textContent = shown.length + " of " + all.length + " topics";
      if (!shown.length) {
        box.replaceChildren(state("empty", all.length ? "No topic matches." : "No topics yet."));
        return;
      }
      const rows = shown.map(t => el("tr", { "data-topic": t.name },
        el("td", {}, el("a", { href: "/topic?name=" + encodeURIComponent(t.name), text: t.name })),
        el("td", { class: "num", text: String(t.partitions) }),
        el("td", { class: "num", text: fmt(t.messages, "records") }),
        el("td", { class: "num", text: bytesText(t.bytes) }),
        el("td", { text: retentionText(t) }),
        el("td", { class: "users" }, ...t.connectors.map(c => el("a", { class: "label", href: "/connector?name="
          + encodeURIComponent(c.name), text: c.name + " · " + c.role }))),
        el("td", { class: "users" }, ...t.groups.map(g => el("a", { class: "label", href: "/groups#"
          + encodeURIComponent(g), text: g })))));
      box.replaceChildren(table(["Topic", "Partitions", "Messages", "Size", "Retention", "Connectors",
        "Consumer groups"], rows));
      box.querySelector("table").id = "topics";
    };
    filter.addEventListener("input", render);
    internal.addEventListener("change", render);
    getJSON("/api/topics").then(d => {
      all = d.topics;
      if (d.connectError) notice("error", d.connectError);
      render();
    }).catch(e => box.replaceChildren(state("error", "Cannot load the topics: " + e.message)));
  }

  function pretty(text, format) {
    if (["AVRO", "PROTOBUF", "JSON_SCHEMA", "CONNECT_JSON", "JSON"].includes(format)) {
      try {
        return JSON.stringify(JSON.parse(text), null, 2);
      } catch (e) {
        return text;
      }
    }
    return text;
  }

  function formatBadge(d) {
    const names = { AVRO: "Avro", PROTOBUF: "Protobuf", JSON_SCHEMA: "JSON Schema", CONNECT_JSON: "Connect JSON",
      JSON: "JSON", TEXT: "text", BYTES: "bytes (hex)", NULL: "null" };
    const label = names[d.format] || d.format;
    const schema = d.schemaId !== undefined ? (d.subject ? " · " + d.subject + " v" + d.version : "") + " · id "
      + d.schemaId : "";
    return el("span", { class: "format " + d.format, text: label + schema, title: d.note || "" });
  }

  function shortText(d, n) {
    if (d.text === null || d.text === undefined) return d.format === "NULL" ? "null" : "";
    const t = d.text.replace(/\s+/g, " ");
    return t.length > n ? t.slice(0, n) + "…" : t;
  }

  function topicPage() {
    const params = new URLSearchParams(location.search);
    const name = params.get("name") || "";
    document.title = "Sluice · " + name;
    document.getElementById("title").textContent = name;
    document.getElementById("crumb").textContent = name;
    const form = document.getElementById("browse");
    const fields = ["from", "offset", "time", "partition", "key", "text", "limit"];
    for (const f of fields) {
      const input = document.getElementById(f);
      // A page size the menu does not offer (a link may ask for any) joins it.
      if (f === "limit" && params.has(f) && ![...input.options].some(o => o.value === params.get(f))) {
        input.append(el("option", { value: params.get(f), text: params.get(f) }));
      }
      if (params.has(f)) input.value = params.get(f);
    }
    const showInputs = () => {
      const from = document.getElementById("from").value;
      document.getElementById("offset-label").hidden = from !== "offset";
      document.getElementById("time-label").hidden = from !== "time";
    };
    document.getElementById("from").addEventListener("change", showInputs);
    showInputs();
    let cursor = { at: params.get("at"), before: params.get("before") };

    // The URL says what is shown: a link opens the same records.
    const query = () => {
      const q = new URLSearchParams({ name });
      for (const f of fields) {
        const v = document.getElementById(f).value.trim();
        if (v && !(f === "partition" && v === "all") && !(f === "offset" && document.getElementById("from").value
          !== "offset") && !(f === "time" && document.getElementById("from").value !== "time")) q.set(f, v);
      }
      if (cursor.at) q.set("at", cursor.at);
      if (cursor.before) q.set("before", cursor.before);
      return q;
    };

    const box = document.getElementById("messages-box");
    let next = null;
    const load = async () => {
      const q = query();
      history.replaceState(null, "", "/topic?" + q.toString());
      box.replaceChildren(state("loading", "Reading…"));
      document.getElementById("next-page").disabled = true;
      try {
        const page = await getJSON("/api/topic/messages?" + q.toString());
        const partition = document.getElementById("partition");
        if (partition.options.length === 1) {
          for (const p of page.partitions) partition.append(el("option", { value: String(p.partition),
            text: String(p.partition) }));
          if (params.has("partition")) partition.value = params.get("partition");
        }
        renderMessages(page);
        next = page.more ? (page.forward ? { at: page.at } : { before: page.before }) : null;
        document.getElementById("next-page").disabled = !next;
        document.getElementById("next-page").textContent = page.forward ? "Next page (newer)" : "Next page (older)";
        document.getElementById("page-info").textContent = page.messages.length + " record(s) · " + page.scanned
          + " read" + (page.budgetSpent ? " · the filter matched little: read on with Next page" : "")
          + (page.more ? "" : " · nothing further");
      } catch (e) {
        box.replaceChildren(state("error", "Cannot read " + name + ": " + e.message));
      }
    };

    const renderMessages = page => {
      if (!page.messages.length) {
        box.replaceChildren(state("empty", "No record here" + (query().has("key") || query().has("text")
          ? " matches the filter." : ".")));
        return;
      }
      const rows = [];
      for (const m of page.messages) {
        const row = el("tr", { class: "message", "data-partition": String(m.partition), "data-offset": String(m.offset) },
          el("td", { class: "num", text: String(m.partition) }), el("td", { class: "num", text: String(m.offset) }),
          el("td", { class: "nowrap", text: new Date(m.timestamp).toISOString().replace("T", " ").replace("Z", "") }),
          el("td", { class: "key" }, el("span", { class: "mono", text: shortText(m.key, 40) }), " ", formatBadge(m.key)),
          el("td", { class: "value" }, formatBadge(m.value), " ", el("span", { class: "mono", text: shortText(m.value,
            140) })));
        const detail = el("tr", { class: "detail", hidden: "" }, el("td", { colspan: "5" },
          el("div", { class: "record" },
            el("div", {}, el("h3", { text: "Key" }), formatBadge(m.key), el("pre", { class: "key-text",
              text: pretty(m.key.text ?? "null", m.key.format) }), m.key.note ? el("p", { class: "muted",
                text: m.key.note }) : ""),
            el("div", {}, el("h3", { text: "Value" }), formatBadge(m.value), el("pre", { class: "value-text",
              text: pretty(m.value.text ?? "null", m.value.format) }), m.value.note ? el("p", { class: "muted",
                text: m.value.note }) : "", m.cut ? el("p", { class: "muted", text: "Cut at 64 KiB." }) : ""),
            el("div", {}, el("h3", { text: "Headers" }), m.headers.length ? table(["Key", "Value"], m.headers.map(h =>
              el("tr", {}, el("td", { class: "key", text: h.key }), el("td", { class: "value",
                text: h.value ?? "null" })))) : el("p", { class: "muted", text: "None." }),
              el("p", { class: "muted", text: m.size + " bytes · " + m.timestampType + " "
                + new Date(m.timestamp).toISOString() })))));
        row.addEventListener("click", () => {
          detail.hidden = !detail.hidden;
          row.classList.toggle("open", !detail.hidden);
        });
        rows.push(row, detail);
      }
      box.replaceChildren(el("div", { class: "box flush" }, table(["Partition", "Offset", "Timestamp (UTC)", "Key",
        "Value"], rows)));
      box.querySelector("table").id = "messages";
    };

    form.addEventListener("submit", e => {
      e.preventDefault();
      cursor = {};
      load();
    });
    document.getElementById("next-page").addEventListener("click", () => {
      if (next) {
        cursor = next;
        load();
      }
    });
    document.getElementById("first-page").addEventListener("click", () => {
      cursor = {};
      load();
    });
    document.getElementById("copy-link").addEventListener("click", async () => {
      const b = document.getElementById("copy-link");
      try {
        await navigator.clipboard.writeText(location.href);
        b.textContent = "Link copied";
      } catch (e) {
        b.textContent = "Copy the address bar";
      }
      setTimeout(() => { b.textContent = "Copy link"; }, 1500);
    });
    load();
    getJSON("/api/topic?name=" + encodeURIComponent(name)).then(t => {
      const messages = t.partitions.reduce((n, p) => n + p.next - p.first, 0);
      document.getElementById("summary").textContent = t.partitions.length + " partition(s) · "
        + fmt(messages, "records") + " messages";
      document.getElementById("partitions-box").replaceChildren(el("h2", { text: "Partitions" }),
        table(["Partition", "Leader", "Replicas", "In sync", "First offset", "Next offset"], t.partitions.map(p =>
          el("tr", {}, ...[p.partition, p.leader, p.replicas, p.inSync, p.first, p.next].map(v =>
            el("td", { class: "num", text: String(v) }))))));
      document.getElementById("config-box").replaceChildren(el("h2", { text: "Config" }),
        table(["Key", "Value"], Object.entries(t.config).map(([k, v]) => el("tr", {}, el("td", { class: "key",
          text: k }), el("td", { class: "value", text: v ?? "" })))));
    }).catch(e => notice("error", "Cannot describe " + name + ": " + e.message));
  }

  // ---- consumer groups

  function groupsPage() {
    const box = document.getElementById("groups-box");
    const filter = document.getElementById("filter");
    const sinksOnly = document.getElementById("sinks-only");
    let all = [];
    const render = () => {
      const f = filter.value.trim().toLowerCase();
      const shown = all.filter(g => (!sinksOnly.checked || g.connector) && (!f || g.group.toLowerCase().includes(f)
        || (g.connector || "").toLowerCase().includes(f) || g.partitions.some(p => p.topic.toLowerCase().includes(f))));
      document.getElementById("count").textContent = shown.length + " of " + all.length + " groups";
      if (!shown.length) {
        box.replaceChildren(state("empty", sinksOnly.checked ? "No sink's consumer group matches (untick \"Sinks' "
          + "groups only\" for the others)." : "No consumer group matches."));
        return;
      }
      box.replaceChildren(...shown.map(g => {
        const head = el("h2", {}, el("span", { class: "mono", text: g.group }), " ",
          el("span", { class: "badge " + (g.state === "Stable" ? "RUNNING" : g.state === "Empty" ? "PAUSED"
            : "UNASSIGNED"), text: g.state }), " ",
          g.connector ? el("a", { href: "/connector?name=" + encodeURIComponent(g.connector), text: "sink "
            + g.connector }) : el("span", { class: "muted", text: "not a sink's" }),
          el("span", { class: "spacer" }), el("span", { class: "lag-total" + (g.lag > 0 ? " behind" : ""),
            text: "lag " + fmt(g.lag, "records") }));
        const rows = g.partitions.map(p => el("tr", { "data-topic": p.topic, "data-partition": String(p.partition) },
          el("td", {}, el("a", { href: "/topic?name=" + encodeURIComponent(p.topic), text: p.topic })),
          el("td", { class: "num", text: String(p.partition) }),
          el("td", { class: "num", text: p.committed === null ? "–" : String(p.committed) }),
          el("td", { class: "num", text: p.end === null ? "–" : String(p.end) }),
          el("td", { class: "num lag" + (p.lag > 0 ? " behind" : ""), text: p.lag === null ? "–" : String(p.lag) }),
          el("td", { text: p.task !== undefined ? "task " + p.task : "" }),
          el("td", { class: "mono", text: p.worker || p.host || "" }),
          el("td", { class: "mono muted", text: p.clientId || (g.members ? "" : "no member") })));
        // Seen only while a transaction is open on a partition the group reads: it has taken records past the last
        // stable offset, which a read_committed consumer never does.
        const uncommitted = g.readsUncommitted ? el("p", { class: "notice error uncommitted", text: "Reads uncommitted"
          + " records: past the last stable offset of " + g.partitions.filter(p => p.uncommitted).map(p => p.topic
          + "-" + p.partition).join(", ") + ", inside a transaction not yet committed (and perhaps aborted later). Set"
          + " isolation.level=read_committed on its consumers." }) : "";
        const section = el("section", { class: "box group", id: "group-" + g.group, "data-group": g.group }, head,
          uncommitted, g.partitions.length ? table(["Topic", "Partition", "Committed", "End", "Lag", "Held by", "Worker / host",
            "Client"], rows) : el("p", { class: "muted", text: "No committed offsets and no assignment." }));
        return section;
      }));
      if (location.hash) document.getElementById("group-" + decodeURIComponent(location.hash.slice(1)))
        ?.scrollIntoView();
    };
    filter.addEventListener("input", render);
    sinksOnly.addEventListener("change", render);
    if (location.hash) sinksOnly.checked = false;
    getJSON("/api/groups").then(d => {
      all = d.groups;
      if (d.connectError) notice("error", d.connectError);
      render();
    }).catch(e => box.replaceChildren(state("error", "Cannot load the consumer groups: " + e.message)));
  }

  // ---- schemas

  function schemasPage() {
    const params = new URLSearchParams(location.search);
    const box = document.getElementById("subjects-box");
    const filter = document.getElementById("filter");
    filter.value = params.get("q") || "";
    let page = Number(params.get("page") || 1);
    let pages = 1;
    const load = async () => {
      const q = new URLSearchParams();
      if (filter.value.trim()) q.set("q", filter.value.trim());
      if (page > 1) q.set("page", String(page));
      history.replaceState(null, "", "/schemas" + (q.toString() ? "?" + q : ""));
      try {
        const d = await getJSON("/api/subjects?" + q.toString());
        page = d.page;
        pages = d.pages;
        document.getElementById("count").textContent = d.total + " subject(s)";
        document.getElementById("page-of").textContent = "page " + d.page + " of " + d.pages;
        document.getElementById("prev-page").disabled = d.page <= 1;
        document.getElementById("next-page").disabled = d.page >= d.pages;
        if (!d.subjects.length) {
          box.replaceChildren(state("empty", d.total ? "No subject on this page." : filter.value
            ? "No subject contains \u201c" + filter.value + "\u201d." : "No subjects in the registry yet."));
          return;
        }
        box.replaceChildren(table(["Subject", "Format", "Versions", "Latest", "Schema id", "Compatibility"],
          d.subjects.map(s => el("tr", { "data-subject": s.name },
            el("td", {}, el("a", { href: "/schema?name=" + encodeURIComponent(s.name), text: s.name })),
            el("td", { text: s.type || "–" }), el("td", { class: "num", text: String(s.versions.length) }),
            el("td", { class: "num", text: s.latest === undefined ? "–" : String(s.latest) }),
            el("td", { class: "num", text: s.id === undefined ? "–" : String(s.id) }),
            el("td", {}, el("span", { class: "label", text: s.compatibility }))))));
        box.querySelector("table").id = "subjects";
      } catch (e) {
        box.replaceChildren(state("error", "Cannot load the subjects: " + e.message));
      }
    };
    let typing = null;
    filter.addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => { page = 1; load(); }, 250);
    });
    document.getElementById("prev-page").addEventListener("click", () => { page = Math.max(1, page - 1); load(); });
    document.getElementById("next-page").addEventListener("click", () => { page = Math.min(pages, page + 1); load(); });
    load();
  }

  function schemaPage() {
    const params = new URLSearchParams(location.search);
    const name = params.get("name") || "";
    document.title = "Sluice · " + name;
    document.getElementById("title").textContent = name;
    document.getElementById("crumb").textContent = name;
    const versionSel = document.getElementById("version");
    const left = document.getElementById("left");
    const right = document.getElementById("right");
    let subject = null;

    const showVersion = async () => {
      const q = new URLSearchParams(location.search);
      q.set("version", versionSel.value);
      history.replaceState(null, "", "/schema?" + q);
      try {
        const v = await getJSON("/api/subject/version?name=" + encodeURIComponent(name) + "&version="
          + encodeURIComponent(versionSel.value));
        document.getElementById("version-meta").textContent = v.type + " · schema id " + v.id
          + (v.references.length ? " · references " + v.references.map(r => r.name + " → " + r.subject + " v"
            + r.version).join(", ") : "");
        document.getElementById("schema-text").textContent = v.schema;
      } catch (e) {
        document.getElementById("schema-text").textContent = "Cannot read the version: " + e.message;
      }
    };

    const showDiff = async () => {
      const box = document.getElementById("diff");
      try {
        const d = await getJSON("/api/subject/diff?name=" + encodeURIComponent(name) + "&left=" + left.value
          + "&right=" + right.value);
        const changed = d.rows.filter(r => r.kind !== "same").length;
        const rows = d.rows.map(r => el("tr", { class: r.kind },
          el("td", { class: "ln", text: r.leftNumber ?? "" }), el("td", { class: "code left", text: r.left ?? "" }),
          el("td", { class: "ln", text: r.rightNumber ?? "" }), el("td", { class: "code right", text: r.right ?? "" })));
        box.replaceChildren(el("p", { class: "muted", text: changed ? changed + " line(s) differ" : "The two versions "
          + "are the same." }), el("table", { id: "side-by-side", class: "side-by-side" },
          el("colgroup", {}, el("col", { class: "ln" }), el("col", {}), el("col", { class: "ln" }), el("col", {})),
          el("thead", {}, el("tr", {}, el("th", { colspan: "2", text: "version " + d.left }),
            el("th", { colspan: "2", text: "version " + d.right }))), el("tbody", {}, ...rows)));
      } catch (e) {
        box.replaceChildren(state("error", "Cannot compare: " + e.message));
      }
    };

    const load = async () => {
      try {
        subject = await getJSON("/api/subject?name=" + encodeURIComponent(name));
      } catch (e) {
        document.getElementById("schema-text").textContent = "";
        notice("error", "Cannot load subject " + name + ": " + e.message);
        return;
      }
      document.getElementById("summary").replaceChildren(el("span", { class: "label", id: "compatibility",
        text: subject.compatibility }), " ", el("span", { class: "muted", text: (subject.latest
          ? subject.latest.type + " · " : "") + subject.versions.length + " version(s)" }));
      const opts = () => subject.versions.map(v => el("option", { value: String(v), text: String(v) }));
      versionSel.replaceChildren(...opts());
      left.replaceChildren(...opts());
      right.replaceChildren(...opts());
      const wanted = params.get("version");
      versionSel.value = wanted && subject.versions.includes(Number(wanted)) ? wanted
        : String(subject.versions[subject.versions.length - 1]);
      right.value = String(subject.versions[subject.versions.length - 1]);
      left.value = String(subject.versions[Math.max(0, subject.versions.length - 2)]);
      document.getElementById("candidate-type").value = subject.latest ? subject.latest.type : "AVRO";
      if (!document.getElementById("candidate").value && subject.latest) {
        document.getElementById("candidate").value = subject.latest.schema;
      }
      // Only an admin sees the control that changes the subject (the server refuses anyone else anyway).
      const compat = document.getElementById("compat-form");
      if (subject.may.admin) {
        document.getElementById("compat-level").replaceChildren(...subject.levels.map(l => el("option", { value: l,
          text: l })));
        document.getElementById("compat-level").value = subject.compatibility;
        compat.hidden = false;
      } else {
        compat.remove();
      }
      showVersion();
      showDiff();
    };

    versionSel.addEventListener("change", showVersion);
    left.addEventListener("change", showDiff);
    right.addEventListener("change", showDiff);
    document.getElementById("compat-form").addEventListener("submit", async e => {
      e.preventDefault();
      const level = document.getElementById("compat-level").value;
      try {
        const a = await post("/api/subject/compatibility", { name, compatibility: level });
        notice("ok", "Subject " + name + " now has compatibility " + a.compatibility + ".");
        document.getElementById("compatibility").textContent = a.compatibility;
      } catch (err) {
        notice("error", "Cannot set the compatibility: " + err.message);
      }
    });
    document.getElementById("check-form").addEventListener("submit", async e => {
      e.preventDefault();
      const out = document.getElementById("check-result");
      out.replaceChildren(state("loading", "Checking…"));
      try {
        const r = await post("/api/subject/check", { name, schema: document.getElementById("candidate").value,
          type: document.getElementById("candidate-type").value });
        if (r.invalid) {
          out.replaceChildren(el("div", { class: "verdict bad", id: "verdict", text: "Not a valid schema: "
            + r.invalid }));
          return;
        }
        const ok = r.registry.compatible;
        const parts = [el("div", { class: "verdict " + (ok ? "good" : "bad"), id: "verdict", text: ok
          ? "Compatible: the registry would register it under " + r.report.level + "."
          : "Incompatible: the registry would refuse it (409) under " + r.report.level + "." })];
        if (r.registry.messages.length) {
          parts.push(el("h3", { text: "As the registry words it" }), el("ul", { id: "registry-messages",
            class: "messages" }, ...r.registry.messages.map(m => el("li", { class: "mono", text: m }))));
        }
        parts.push(el("h3", { text: "Rollout" }), el("p", { id: "rollout", text: r.report.rollout }));
        parts.push(el("h3", { text: "Under every mode (sluice schema check)" }), table(["Mode", "Verdict",
          "Breaks against", "Why"], r.report.modes.map(m => el("tr", { class: m.compatible ? "" : "bad" },
          el("td", { text: m.level + (m.level === r.report.level ? " (subject)" : "") }),
          el("td", {}, el("span", { class: "badge " + (m.compatible ? "RUNNING" : "FAILED"), text: m.compatible
            ? "compatible" : "incompatible" })),
          el("td", { text: m.compatible ? "–" : "version " + m.againstVersion }),
          el("td", { text: (m.problems || []).map(p => (p.path || "(schema)") + ": " + p.description).join("; ") })))));
        if (r.report.warnings.length) {
          parts.push(el("h3", { text: "Warnings" }), el("ul", {}, ...r.report.warnings.map(w => el("li", { text: w }))));
        }
        out.replaceChildren(...parts);
      } catch (err) {
        out.replaceChildren(state("error", "Cannot check: " + err.message));
      }
    });
    load();
  }

  // The pieces the pages in files of their own (dlq.js, alerts.js) draw with.
  window.SluiceConsole = { el, state, getJSON, post, notice, table, box, fmt, formatBadge, pretty, shortText };

  document.addEventListener("DOMContentLoaded", () => {
    const page = document.body.dataset.page;
    if (page === "overview") overview();
    if (page === "pipeline") pipeline();
    if (page === "connector") connector();
    if (page === "connector-edit") editor();
    if (page === "topics") topicsPage();
    if (page === "topic") topicPage();
    if (page === "groups") groupsPage();
    if (page === "schemas") schemasPage();
    if (page === "schema") schemaPage();
  });
})();
