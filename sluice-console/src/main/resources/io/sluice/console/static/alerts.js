// Sluice console: the router's alerts as it groups them, and its silences (create from an alert, edit, expire).
(function () {
  "use strict";
  const { el, state, getJSON, post, notice, table } = window.SluiceConsole;

  function when(t) {
    return t ? t.replace("T", " ").replace(/\.\d+Z$/, "").replace(/Z$/, "") : "–";
  }

  function matcherText(m) {
    const op = m.isEqual === false ? (m.isRegex ? "!~" : "!=") : (m.isRegex ? "=~" : "=");
    return m.name + op + JSON.stringify(m.value);
  }

  function labelChips(labels, skip) {
    return Object.entries(labels || {}).filter(([k]) => !(skip || []).includes(k)).map(([k, v]) =>
      el("span", { class: "label", text: k + "=" + v }));
  }

  function alertsPage() {
    let may = false;
    let silencesById = new Map();
    const form = document.getElementById("silence-form");
    const tbody = form.querySelector("#matchers tbody");
    let editing = null;

    // ---- the silence form: Alertmanager's fields, checked as its form checks them

    const matcherRow = m => {
      const remove = el("button", { type: "button", text: "Remove" });
      const tr = el("tr", {}, el("td", {}, el("input", { class: "m-name", value: m.name || "",
        "aria-label": "Label" })), el("td", {}, el("input", { class: "m-value", value: m.value || "",
        "aria-label": "Value" })), el("td", {}, el("input", { type: "checkbox", class: "m-regex" })),
      el("td", {}, el("input", { type: "checkbox", class: "m-not-equal" })), el("td", {}, remove),
      el("td", { class: "err" }));
      tr.querySelector(".m-regex").checked = !!m.isRegex;
      tr.querySelector(".m-not-equal").checked = m.isEqual === false;
      remove.addEventListener("click", () => tr.remove());
      return tr;
    };
    const openForm = (title, silence, button) => {
      editing = silence && silence.id ? silence.id : null;
      document.getElementById("silence-form-title").textContent = title;
      document.getElementById("silence-save").textContent = button;
      tbody.replaceChildren(...(silence && silence.matchers && silence.matchers.length ? silence.matchers
        : [{ name: "", value: "" }]).map(matcherRow));
      document.getElementById("silence-start").value = silence && silence.startsAt && editing ? silence.startsAt : "";
      document.getElementById("silence-end").value = silence && silence.endsAt && editing ? silence.endsAt : "";
      document.getElementById("silence-duration").value = editing ? "" : "2h";
      document.getElementById("silence-comment-text").value = silence && silence.comment ? silence.comment : "";
      form.querySelectorAll(".err").forEach(e => { e.textContent = ""; });
      form.hidden = false;
      form.scrollIntoView({ block: "start" });
      document.getElementById("silence-comment-text").focus();
    };
    document.getElementById("add-matcher").addEventListener("click", () => tbody.append(matcherRow({})));
    document.getElementById("silence-cancel").addEventListener("click", () => { form.hidden = true; });
    document.getElementById("new-silence").addEventListener("click", () => openForm("New silence", null, "Create"));
    form.addEventListener("submit", async e => {
      e.preventDefault();
      form.querySelectorAll(".err").forEach(x => { x.textContent = ""; });
      const matchers = [...tbody.querySelectorAll("tr")].map(tr => ({ name: tr.querySelector(".m-name").value.trim(),
        value: tr.querySelector(".m-value").value, isRegex: tr.querySelector(".m-regex").checked,
        isEqual: !tr.querySelector(".m-not-equal").checked }));
      const body = { name: editing || "", matchers, startsAt: document.getElementById("silence-start").value.trim(),
        endsAt: document.getElementById("silence-end").value.trim(),
        duration: document.getElementById("silence-duration").value.trim(),
        comment: document.getElementById("silence-comment-text").value };
      try {
        const r = await post("/api/silence/" + (editing ? "update" : "add"), body);
        if (r.errors) {
          for (const [field, text] of Object.entries(r.errors)) {
            const m = /^matcher\.(\d+)$/.exec(field);
            const spot = m ? tbody.querySelectorAll("tr")[Number(m[1])]?.querySelector(".err")
              : form.querySelector('.err[data-field="' + field + '"]');
            if (spot) spot.textContent = text;
          }
          notice("error", r.error);
          return;
        }
        form.hidden = true;
        notice("ok", "Silence " + r.silenceID + " " + r.result + ".");
        load();
      } catch (err) {
        notice("error", "Cannot save the silence: " + err.message);
      }
    });

    // ---- expire, once confirmed

    const dialog = document.getElementById("confirm-expire");
    let expiring = null;
    dialog.addEventListener("close", async () => {
      if (dialog.returnValue !== "expire" || !expiring) return;
      const id = expiring;
      expiring = null;
      try {
        await post("/api/silence/expire", { name: id });
        notice("ok", "Silence " + id + " expired.");
        load();
      } catch (e) {
        notice("error", "Cannot expire " + id + ": " + e.message);
      }
    });

    // ---- alert groups

    const renderGroups = d => {
      const box = document.getElementById("groups-box");
      const showMuted = document.getElementById("show-muted").checked;
      let count = 0;
      const sections = [];
      for (const g of d.groups) {
        const alerts = g.alerts.filter(a => showMuted || a.status.state === "active");
        if (!alerts.length) continue;
        count += alerts.length;
        const rows = alerts.map(a => {
          const st = a.status;
          const why = [];
          for (const f of st.inhibitedBy || []) {
            const by = d.inhibitors[f];
            why.push(el("div", { class: "inhibited-by" }, "Inhibited by ", by ? el("strong", {
              text: by.labels.alertname || f }) : el("span", { class: "mono", text: f }), " ",
            ...(by ? labelChips(by.labels, ["alertname"]) : [])));
          }
          for (const id of st.silencedBy || []) {
            const s = silencesById.get(id);
            why.push(el("div", { class: "silenced-by" }, "Silenced by ", el("a", { href: "#silence-" + id,
              class: "mono", text: id.slice(0, 8) }), s ? el("span", { class: "muted", text: " · " + s.comment
              + " (" + s.createdBy + ", until " + when(s.endsAt) + ")" }) : ""));
          }
          const cells = [el("td", {}, el("strong", { text: a.labels.alertname || "" }), " ",
            ...labelChips(a.labels, ["alertname"])),
          el("td", {}, el("span", { class: "badge " + (st.state === "active" ? "FAILED" : "PAUSED"),
            text: st.state === "suppressed" ? ((st.inhibitedBy || []).length ? "inhibited" : "silenced")
              : st.state })),
          el("td", { class: "nowrap", text: when(a.startsAt) }),
          el("td", {}, el("div", { text: (a.annotations || {}).summary || "" }), ...why)];
          const actions = el("td", { class: "row-actions" });
          if (may) {
            const silence = el("button", { type: "button", class: "silence-alert", "data-action": "silence",
              text: "Silence…" });
            silence.addEventListener("click", () => openForm("New silence for " + (a.labels.alertname || "the alert"),
              { matchers: Object.entries(a.labels).map(([name, value]) => ({ name, value, isRegex: false,
                isEqual: true })) }, "Create"));
            actions.append(silence);
          }
          cells.push(actions);
          return el("tr", { class: "alert " + st.state, "data-fingerprint": a.fingerprint,
            "data-alertname": a.labels.alertname || "" }, ...cells);
        });
        sections.push(el("section", { class: "box group alert-group" }, el("h2", {},
          ...(Object.keys(g.labels).length ? labelChips(g.labels) : [el("span", { class: "muted",
            text: "(one group for all)" })]), el("span", { class: "spacer" }),
          el("span", { class: "muted", text: "receiver " + g.receiver.name })),
        table(["Alert", "State", "Since (UTC)", "Summary", ""], rows)));
      }
      document.getElementById("alert-count").textContent = count + " alert(s) in " + sections.length + " group(s)";
      box.replaceChildren(...(sections.length ? sections : [state("empty", "No alert is firing.")]));
    };

    // ---- silences

    const renderSilences = list => {
      const box = document.getElementById("silences-box");
      document.getElementById("silence-count").textContent = list.filter(s => s.status.state === "active").length
        + " active · " + list.length + " in all";
      if (!list.length) {
        box.replaceChildren(state("empty", "No silence."));
        return;
      }
      const rows = list.map(s => {
        const actions = el("td", { class: "row-actions" });
        if (may) {
          const expired = s.status.state === "expired";
          const edit = el("button", { type: "button", class: "edit-silence", "data-action": "update",
            text: expired ? "Recreate" : "Edit" });
          // Alertmanager's form: an expired silence is recreated (a new one), a live one edited.
          edit.addEventListener("click", () => openForm(expired ? "Recreate silence" : "Edit silence " + s.id,
            expired ? { matchers: s.matchers, comment: s.comment } : s, expired ? "Create" : "Save"));
          actions.append(edit);
          if (!expired) {
            const expire = el("button", { type: "button", class: "danger expire-silence", "data-action": "expire",
              text: "Expire…" });
            expire.addEventListener("click", () => {
              expiring = s.id;
              document.getElementById("expire-id").textContent = s.id;
              document.getElementById("expire-matchers").textContent = s.matchers.map(matcherText).join(", ");
              dialog.showModal();
            });
            actions.append(" ", expire);
          }
        }
        return el("tr", { id: "silence-" + s.id, class: "silence " + s.status.state, "data-silence": s.id },
          el("td", {}, el("span", { class: "badge " + (s.status.state === "active" ? "RUNNING"
            : s.status.state === "pending" ? "UNASSIGNED" : "PAUSED"), text: s.status.state })),
          el("td", { class: "mono matchers" }, ...s.matchers.map(m => el("span", { class: "label",
            text: matcherText(m) }))),
          el("td", { class: "nowrap", text: when(s.startsAt) }), el("td", { class: "nowrap", text: when(s.endsAt) }),
          el("td", { text: s.createdBy }), el("td", { text: s.comment }), el("td", { class: "mono muted",
            text: s.id.slice(0, 8) }), actions);
      });
      box.replaceChildren(table(["State", "Matchers", "Starts (UTC)", "Ends (UTC)", "Created by", "Comment", "Id",
        ""], rows));
      box.querySelector("table").id = "silences";
    };

    let lastGroups = null;
    const load = async () => {
      try {
        const s = await getJSON("/api/silences");
        may = s.may.operate;
        document.querySelectorAll(".operate").forEach(b => {
          if (may) b.hidden = false;
          else b.remove();
        });
        silencesById = new Map(s.silences.map(x => [x.id, x]));
        renderSilences(s.silences);
      } catch (e) {
        document.getElementById("silences-box").replaceChildren(state("error", "Cannot list the silences: "
          + e.message));
      }
      try {
        lastGroups = await getJSON("/api/alert-groups");
        renderGroups(lastGroups);
      } catch (e) {
        document.getElementById("groups-box").replaceChildren(state("error", "Cannot list the alerts: "
          + e.message));
      }
    };
    document.getElementById("show-muted").addEventListener("change", () => {
      if (lastGroups) renderGroups(lastGroups);
    });
    load();
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (document.body.dataset.page === "alerts") alertsPage();
  });
})();
