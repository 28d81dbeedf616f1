// Sluice console: the dead-letter queues of the sinks, a topic's records by error, and their replay.
(function () {
  "use strict";
  const { el, state, getJSON, post, notice, table, fmt, formatBadge, pretty, shortText } = window.SluiceConsole;

  function time(ms) {
    return ms ? new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "") : "–";
  }

  // ---- every sink's dead-letter topic

  function dlqsPage() {
    const box = document.getElementById("dlqs-box");
    const filter = document.getElementById("filter");
    let all = [];
    const render = () => {
      const f = filter.value.trim().toLowerCase();
      const shown = all.filter(t => !f || t.topic.toLowerCase().includes(f)
        || t.sinks.some(s => s.connector.toLowerCase().includes(f)));
      document.getElementById("count").textContent = shown.length + " of " + all.length + " dead-letter topics";
      if (!all.length) {
        box.replaceChildren(state("empty", "No sink connector has a dead-letter topic "
          + "(errors.tolerance=all with errors.deadletterqueue.topic.name)."));
        return;
      }
      const rows = shown.map(t => el("tr", { "data-topic": t.topic },
        el("td", {}, t.warning && !t.records ? el("span", { class: "mono", text: t.topic })
          : el("a", { href: "/dlq?topic=" + encodeURIComponent(t.topic), text: t.topic }),
        t.warning ? el("div", { class: "muted note", text: t.warning }) : ""),
        el("td", {}, ...t.sinks.flatMap(s => [el("span", { class: "sink" },
          el("a", { href: "/connector?name=" + encodeURIComponent(s.connector), text: s.connector }), " ",
          s.state ? el("span", { class: "badge " + s.state, text: s.state }) : "",
          el("span", { class: "muted", text: " lag " + (s.lag === null ? "–" : fmt(s.lag, "records")) }))])),
        el("td", { class: "num" + (t.records > 0 ? " dlq-count" : ""), text: fmt(t.records, "records") }),
        el("td", { class: "num", text: fmt(t.lastHour, "records") }),
        el("td", { class: "nowrap", text: t.newest ? t.newest.replace("T", " ").replace(/\.\d+Z$/, "") : "–" })));
      box.replaceChildren(table(["Dead-letter topic", "Sinks writing to it (lag of their group)", "Records",
        "Last hour", "Newest (UTC)"], rows));
      box.querySelector("table").id = "dlqs";
    };
    filter.addEventListener("input", render);
    getJSON("/api/dlqs").then(d => {
      all = d.topics;
      render();
    }).catch(e => box.replaceChildren(state("error", "Cannot list the dead-letter topics: " + e.message)));
  }

  // ---- one dead-letter topic

  function dlqPage() {
    const params = new URLSearchParams(location.search);
    const topic = params.get("topic") || "";
    let group = { exception: params.get("exception") || "", stage: params.get("stage") || "" };
    let cursor = params.get("at") || "";
    let next = null;
    let may = false;
    const picked = new Set();
    document.title = "Sluice · " + topic;
    document.getElementById("title").textContent = topic;
    document.getElementById("crumb").textContent = topic;
    document.getElementById("browse-topic").href = "/topic?name=" + encodeURIComponent(topic) + "&from=start";
    const operateOnly = () => document.querySelectorAll(".operate").forEach(b => {
      if (may) b.hidden = false;
      else b.remove();
    });

    const loadGroups = async () => {
      const box = document.getElementById("groups-box");
      try {
        const d = await getJSON("/api/dlq?topic=" + encodeURIComponent(topic));
        may = d.may.operate;
        operateOnly();
        document.getElementById("summary").textContent = fmt(d.count, "records") + " record(s)";
        const rows = d.groups.map(g => {
          const tr = el("tr", { "data-exception": g.exceptionClass || "", "data-stage": g.stage || "" },
            el("td", { title: g.exceptionClass || "" }, el("span", { class: "mono", text: g.exception
              || "(no Kafka Connect error headers)" })),
            el("td", { text: g.stage || "–" }),
            el("td", { class: "num", text: fmt(g.count, "records") }),
            el("td", { class: "num", text: g.replayed ? fmt(g.replayed, "records") : "0" }));
          const show = el("button", { type: "button", class: "show-group", text: "Show" });
          show.addEventListener("click", () => {
            group = { exception: g.exceptionClass || "", stage: g.stage || "" };
            cursor = "";
            loadRecords();
          });
          const actions = el("td", { class: "row-actions" }, show);
          if (may && g.exceptionClass) {
            const replay = el("button", { type: "button", class: "replay-group", "data-action": "replay",
              text: "Replay group…" });
            replay.addEventListener("click", () => confirmReplay(g.exception + (g.stage ? " in " + g.stage : "")
              + " (" + fmt(g.count, "records") + " record(s))", { exception: g.exceptionClass, stage: g.stage || "" }));
            actions.append(" ", replay);
          }
          tr.append(actions);
          return tr;
        });
        const parts = [el("h2", { text: "Records by error" })];
        parts.push(rows.length ? table(["Exception", "Stage", "Records", "Replayed before, failed again", ""], rows)
          : state("empty", "No record in this dead-letter topic."));
        if (d.warnings.length) parts.push(el("p", { class: "muted", text: d.warnings.join(" · ") }));
        box.replaceChildren(...parts);
        box.querySelector("table")?.setAttribute("id", "error-groups");
        showReplays(d.replays);
      } catch (e) {
        box.replaceChildren(el("h2", { text: "Records by error" }), state("error", "Cannot read " + topic + ": "
          + e.message));
      }
    };

    // ---- replays and their progress

    const watched = new Map();
    const showReplays = list => {
      const box = document.getElementById("replays-box");
      const ul = document.getElementById("replays");
      if (!list.length) return;
      box.hidden = false;
      ul.replaceChildren(...list.map(replayItem));
      for (const r of list) if (r.state === "running") watch(r.id);
    };
    const replayItem = r => {
      const li = el("li", { "data-replay": r.id, class: "replay " + r.state });
      const bar = el("progress", { max: "100", value: String(r.percent) });
      const head = el("div", {}, el("strong", { text: r.what }), " ",
        el("span", { class: "muted", text: "by " + r.user + " · group " + r.group + " · started "
          + r.started.replace("T", " ").replace(/\.\d+Z$/, "") }));
      const line = el("div", { class: "replay-progress" }, bar, " ", el("span", { class: "percent",
        text: r.percent + "%" }), " ", el("span", { class: "muted", text: r.total >= 0
          ? fmt(r.done, "records") + " of " + fmt(r.total, "records") + " read" : "starting" }));
      li.append(head, line);
      if (r.state === "done") {
        const x = r.result;
        const targets = Object.entries(x.perTarget).map(([t, n]) => n + " to " + t).join(", ");
        li.append(el("div", { class: "result", text: "Replayed " + x.replayed + " record(s)"
          + (targets ? " (" + targets + ")" : "") + "; passed over: " + x.skippedReplayed
          + " replayed before that failed again (they would loop), " + x.skippedFiltered + " not chosen, "
          + x.alreadyDelivered + " delivered by an interrupted run"
          + (x.unroutable ? "; " + x.unroutable + " without an original topic" : "") + "." }));
        if (x.skippedReplayed > 0) li.append(el("div", { class: "refused", text: "Refused "
          + x.skippedReplayed + " record(s) that a replay produced before and that failed again: replaying them "
          + "would loop. Fix the sink or the record first (sluice dlq replay --include-replayed takes them)." }));
        if (x.backup) li.append(el("div", { class: "muted", text: "The group's offsets before this run: " + x.backup }));
      } else if (r.state === "failed") {
        li.append(el("div", { class: "refused", text: "Failed: " + r.error }));
      }
      return li;
    };
    const watch = id => {
      if (watched.has(id)) return;
      const tick = async () => {
        try {
          const r = await getJSON("/api/dlq/replay?id=" + encodeURIComponent(id));
          const old = document.querySelector('#replays li[data-replay="' + id + '"]');
          const li = replayItem(r);
          if (old) old.replaceWith(li);
          else document.getElementById("replays").prepend(li);
          document.getElementById("replays-box").hidden = false;
          if (r.state === "running") {
            watched.set(id, setTimeout(tick, 500));
          } else {
            watched.delete(id);
            notice(r.state === "done" ? "ok" : "error", r.state === "done" ? "Replay of " + r.what + " done: "
              + r.result.replayed + " record(s) replayed, " + r.result.skippedReplayed + " refused (would loop)."
              : "Replay of " + r.what + " failed: " + r.error);
            loadGroups();
          }
        } catch (e) {
          watched.delete(id);
          notice("error", "Cannot follow the replay: " + e.message);
        }
      };
      watched.set(id, setTimeout(tick, 0));
    };

    const dialog = document.getElementById("confirm-replay");
    let pending = null;
    const confirmReplay = (what, body) => {
      pending = body;
      document.getElementById("replay-what").textContent = what;
      dialog.showModal();
    };
    dialog.addEventListener("close", async () => {
      if (dialog.returnValue !== "replay" || !pending) return;
      const body = Object.assign({ name: topic }, pending);
      pending = null;
      notice("ok", "Starting the replay…");
      try {
        const r = await post("/api/dlq/replay", body);
        notice("ok", "Replaying " + r.what + "…");
        picked.clear();
        updatePicked();
        watch(r.id);
      } catch (e) {
        notice("error", "Cannot replay: " + e.message);
      }
    });

    // ---- the records, a page at a time

    const updatePicked = () => {
      const b = document.getElementById("replay-picked");
      if (!b) return;
      b.disabled = picked.size === 0;
      b.textContent = picked.size ? "Replay picked (" + picked.size + ")…" : "Replay picked";
      document.querySelectorAll("#records input.pick").forEach(c => { c.checked = picked.has(c.value); });
    };
    document.getElementById("replay-picked")?.addEventListener("click", () => confirmReplay(picked.size
      + " picked record(s)", { records: [...picked] }));
    document.getElementById("show-all").addEventListener("click", () => {
      group = { exception: "", stage: "" };
      cursor = "";
      loadRecords();
    });
    document.getElementById("first-page").addEventListener("click", () => {
      cursor = "";
      loadRecords();
    });
    document.getElementById("next-page").addEventListener("click", () => {
      if (next) {
        cursor = next;
        loadRecords();
      }
    });

    const loadRecords = async () => {
      const q = new URLSearchParams({ topic });
      if (group.exception) q.set("exception", group.exception);
      if (group.stage) q.set("stage", group.stage);
      if (cursor) q.set("at", cursor);
      history.replaceState(null, "", "/dlq?" + q.toString());
      const box = document.getElementById("records");
      document.getElementById("records-title").textContent = group.exception ? "Records: "
        + group.exception.slice(group.exception.lastIndexOf(".") + 1) + (group.stage ? " in " + group.stage : "")
        : "Records";
      document.getElementById("show-all").hidden = !group.exception;
      box.replaceChildren(state("loading", "Reading…"));
      document.getElementById("next-page").disabled = true;
      try {
        const page = await getJSON("/api/dlq/records?" + q.toString());
        next = page.more ? page.at : null;
        document.getElementById("next-page").disabled = !next;
        document.getElementById("page-info").textContent = page.records.length + " record(s)"
          + (page.more ? "" : " · nothing further");
        renderRecords(page.records);
      } catch (e) {
        box.replaceChildren(state("error", "Cannot read " + topic + ": " + e.message));
      }
    };

    const renderRecords = records => {
      const box = document.getElementById("records");
      if (!records.length) {
        box.replaceChildren(state("empty", "No record here."));
        return;
      }
      const rows = [];
      for (const r of records) {
        const id = r.partition + ":" + r.offset;
        const e = r.error;
        const cells = [];
        if (may) {
          const pick = el("input", { type: "checkbox", class: "pick", value: id, "aria-label": "Pick " + id });
          pick.checked = picked.has(id);
          pick.addEventListener("click", ev => {
            ev.stopPropagation();
            if (pick.checked) picked.add(id);
            else picked.delete(id);
            updatePicked();
          });
          cells.push(el("td", { class: "pick-cell" }, pick));
        }
        cells.push(el("td", { class: "num", text: String(r.partition) }), el("td", { class: "num",
          text: String(r.offset) }), el("td", { class: "nowrap", text: time(r.timestamp) }),
        el("td", { text: e.stage || "–" }), el("td", { class: "mono", title: e.exceptionClass || "",
          text: e.exception || "–" }),
        el("td", { class: "mono", text: e.topic ? e.topic + "[" + e.partition + "]@" + e.offset : "–" }),
        el("td", {}, r.original.schemaId !== undefined ? el("span", { class: "format AVRO", text: "id "
          + r.original.schemaId + (r.original.subjects && r.original.subjects.length ? " · "
          + r.original.subjects[0] : "") }) : el("span", { class: "muted", text: "–" })),
        el("td", {}, r.replay ? el("span", { class: "badge replayed", title: r.replay.damaged || "",
          text: r.replay.damaged ? "damaged mark" : "replayed" }) : ""),
        el("td", { class: "message-cell", text: shortText({ text: e.message || "" }, 90) }));
        const row = el("tr", { class: "dlq-record", "data-partition": String(r.partition),
          "data-offset": String(r.offset), "data-schema-id": r.original.schemaId !== undefined
            ? String(r.original.schemaId) : "" }, ...cells);
        const original = r.original;
        // A framed original by its schema's format (what the registry says), anything else by how it is written.
        const framed = { AVRO: "AVRO", PROTOBUF: "PROTOBUF", JSON: "JSON_SCHEMA" }[original.schemaType];
        const originalFormat = { format: framed || (original.encoding === "json" ? "JSON"
          : original.encoding === "base64" ? "BYTES" : original.encoding === "null" ? "NULL" : "TEXT") };
        const originalBadge = el("span", { class: "format " + originalFormat.format, title: original.note || "",
          text: { AVRO: "Avro", PROTOBUF: "Protobuf", JSON_SCHEMA: "JSON Schema", JSON: "JSON", TEXT: "text",
            BYTES: "bytes (base64)", NULL: "null" }[originalFormat.format] + (original.schemaId !== undefined
            ? (original.subjects && original.subjects.length ? " · " + original.subjects.join(", ") : "")
              + " · id " + original.schemaId : "") });
        const headers = r.headers.map(h => el("tr", {}, el("td", { class: "key", text: h.key }),
          el("td", { class: "value" }, h.key.endsWith("stacktrace") ? el("pre", { class: "trace",
            text: h.value ?? "null" }) : (h.value ?? "null"))));
        const detail = el("tr", { class: "detail", hidden: "" }, el("td", { colspan: String(cells.length) },
          el("div", { class: "record dlq-detail" },
            el("div", {}, el("h3", { text: "Key" }), formatBadge(r.key), el("pre", { class: "key-text",
              text: pretty(r.key.text ?? "null", r.key.format) })),
            el("div", {}, el("h3", { text: "Original value (unwrapped)" }), originalBadge,
              el("pre", { class: "original-text", text: pretty(original.text ?? "null", originalFormat.format) }),
              el("p", { class: "muted", text: "From " + (original.source === "json-path" ? "the wrapper's "
                + original.path : original.source === "registry" ? "a registry-framed value" : "the record's value")
                + (original.note ? " · " + original.note : "") })),
            el("div", { class: "headers" }, el("h3", { text: "Headers" }), table(["Key", "Value"], headers)))));
        row.addEventListener("click", () => {
          detail.hidden = !detail.hidden;
          row.classList.toggle("open", !detail.hidden);
        });
        rows.push(row, detail);
      }
      const head = (may ? [""] : []).concat(["Partition", "Offset", "Time (UTC)", "Stage", "Exception",
        "Failed in", "Schema", "", "Message"]);
      box.replaceChildren(table(head, rows));
      box.querySelector("table").id = "dlq-records";
      updatePicked();
    };

    loadGroups().then(loadRecords);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const page = document.body.dataset.page;
    if (page === "dlqs") dlqsPage();
    if (page === "dlq") dlqPage();
  });
})();
