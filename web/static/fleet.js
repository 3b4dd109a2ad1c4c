/* fleet.js — the fleet page (fleet.html): the benches, the latest sessions, and per task or
 * function the trend of a figure (load, p99, max) across builds, from GET /api/fleet and
 * GET /api/fleet/trend (docs/rest-api.md, docs/fleet.md "The fleet page"). The choice is kept
 * in the page's query string (?task=NAME|function=NAME&metric=…&bench=HOST|PROBE|TARGET), so a
 * link shows the same trend. The chart is SVG built through the DOM (no inline script or
 * markup from the data: every text is set as text). Each build is a group
 * `g.build[data-build=LABEL]`, with class `flagged` when the server flagged it (its figure
 * moved: the rule on the page) and `verdict-changed` when its budgets' verdict changed; the
 * table below has one row per build (`tr[data-build][data-flagged]`). The bearer token, when
 * the server wants one, is the dashboard's (localStorage).
 */
"use strict";
(function () {
  const TOKEN_KEY = "orti-profd-token";
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const isNum = (v) => typeof v === "number" && isFinite(v);
  const nf = (d) => new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
  const fmt = (v, unit) => (isNum(v) ? nf(unit === "%" ? 2 : 1).format(v) + " " + unit : "—");
  const text = (v) => (v === null || v === undefined || v === "" ? "—" : String(v));

  async function api(path) {
    const t = localStorage.getItem(TOKEN_KEY);
    const res = await fetch(path, { headers: t ? { Authorization: "Bearer " + t } : {} });
    let body = null;
    try {
      body = await res.json();
    } catch (e) { /* not JSON */ }
    if (!res.ok) {
      const msg = body && body.message ? body.message : "HTTP " + res.status;
      throw new Error(res.status === 401 ? msg + " (enter the token on the dashboard first)" : msg);
    }
    return body;
  }

  function showError(e) {
    const p = $("fleet-error");
    p.textContent = e ? String(e.message || e) : "";
    p.hidden = !e;
  }

  function el(tag, attrs, kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (v !== null && v !== undefined) e.setAttribute(k, v);
    }
    for (const k of kids || []) e.append(k);
    return e;
  }

  function svg(tag, attrs, txt) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (txt !== undefined) e.textContent = txt;
    return e;
  }

  /* a table: cols = [[key, title, format(row) → text or Node, numeric]], rows of objects */
  function fillTable(table, cols, rows, rowAttrs) {
    const head = el("thead", {}, [el("tr", {}, cols.map((c) => el("th", { scope: "col", class: c[3] ? "num" : null, text: c[1] })))]);
    const body = el("tbody");
    if (!rows.length) body.append(el("tr", {}, [el("td", { class: "empty", colspan: cols.length, text: "none" })]));
    for (const r of rows) {
      const tr = el("tr", rowAttrs ? rowAttrs(r) : {});
      for (const c of cols) {
        const v = c[2](r);
        const td = el("td", { "data-col": c[0], class: c[3] ? "num" : null });
        if (v instanceof Node) td.append(v);
        else td.textContent = text(v);
        tr.append(td);
      }
      body.append(tr);
    }
    table.replaceChildren(head, body);
  }

  const benchKey = (b) => [b.host || "", b.probe || "", b.target || ""].join("|");
  const benchName = (b) => [b.host || "?", b.probe || "?", b.target || "?"].join(" · ");
  const sessionLink = (id) => el("a", { href: "/#/session/" + id, text: "#" + id });

  function showFleet(doc) {
    fillTable($("benches"), [
      ["host", "host", (b) => b.host],
      ["probe", "probe", (b) => b.probe],
      ["target", "target", (b) => b.target],
      ["sessions", "sessions", (b) => b.sessions, true],
      ["builds", "builds", (b) => b.builds, true],
      ["latest_session", "latest session", (b) => sessionLink(b.latest_session)],
      ["latest_build", "its build", (b) => b.latest_build],
      ["latest_started_at", "started", (b) => text(b.latest_started_at).replace("T", " ")],
      ["latest_state", "state", (b) => b.latest_state],
    ], doc.benches, (b) => ({ "data-bench": benchKey(b) }));
    fillTable($("latest"), [
      ["id", "session", (s) => sessionLink(s.id)],
      ["name", "name", (s) => s.name],
      ["build", "build", (s) => s.build],
      ["bench", "bench", (s) => benchName(s)],
      ["source_kind", "source", (s) => s.source_kind],
      ["started_at", "started", (s) => text(s.started_at).replace("T", " ")],
      ["state", "state", (s) => s.state],
      ["tags", "tags", (s) => s.tags],
    ], doc.latest_sessions, (s) => ({ "data-session": s.id }));
    const obj = $("trend-object");
    const groups = [["task", "Tasks", doc.tasks.map((t) => t.task)], ["function", "Functions", doc.functions.map((f) => f.function)]];
    obj.replaceChildren(...groups.filter((g) => g[2].length).map(([kind, label, names]) =>
      el("optgroup", { label }, names.map((n) => el("option", { value: kind + ":" + n, text: n })))));
    const bench = $("trend-bench");
    bench.replaceChildren(el("option", { value: "", text: "all benches" }),
      ...doc.benches.map((b) => el("option", { value: benchKey(b), text: benchName(b) })));
  }

  /* the choice in the query string ↔ the form */
  function readChoice() {
    const q = new URLSearchParams(location.search);
    const kind = q.has("function") ? "function" : "task";
    return { kind, name: q.get(kind), metric: q.get("metric") || "load", bench: q.get("bench") || "" };
  }
  function writeChoice(c) {
    const q = new URLSearchParams();
    q.set(c.kind, c.name);
    q.set("metric", c.metric);
    if (c.bench) q.set("bench", c.bench);
    history.replaceState(null, "", "?" + q.toString());
  }

  let pending = null;
  async function loadTrend() {
    const [kind, ...rest] = $("trend-object").value.split(":");
    const c = { kind, name: rest.join(":"), metric: $("trend-metric").value, bench: $("trend-bench").value };
    if (!c.name) return;
    writeChoice(c);
    const q = new URLSearchParams({ [c.kind]: c.name, metric: c.metric });
    if (c.bench) {
      const [host, probe, target] = c.bench.split("|");
      q.set("host", host);
      q.set("probe", probe);
      q.set("target", target);
    }
    const mine = (pending = q.toString());
    try {
      const doc = await api("/api/fleet/trend?" + mine);
      if (mine !== pending) return; /* a newer choice is on its way */
      showError(null);
      showTrend(doc);
    } catch (e) {
      if (mine === pending) showError(e);
    }
  }

  function moveText(b) {
    const vs = b.against ? " against " + b.against : "";
    if (b.move === "up") return "▲ moved up" + vs;
    if (b.move === "down") return "▼ moved down" + vs;
    if (b.move === "steady") return "steady" + vs;
    return "not judged (no earlier build of " + $("trend-min").textContent + " known sessions)";
  }

  function showTrend(doc) {
    $("trend-min").textContent = doc.min_sessions;
    drawChart(doc);
    const cols = [
      ["label", "build", (b) => b.label],
      ["sessions", "sessions", (b) => b.sessions, true],
      ["known", "known", (b) => b.known, true],
      ["median", "median", (b) => fmt(b.median, doc.unit), true],
      ["spread", "min – max", (b) => fmt(b.min, doc.unit) + " – " + fmt(b.max, doc.unit), true],
      ["envelope", "truth within", (b) => fmt(b.low, doc.unit) + " – " + fmt(b.high, doc.unit), true],
      ["move", "move", (b) => moveText(b)],
    ];
    if (doc.budgets) cols.push(["verdict", "budgets", (b) => (b.verdict_changed ? "◆ " : "") + text(b.verdict)]);
    fillTable($("trend-table"), cols, doc.builds, (b) => ({
      "data-build": b.label, "data-flagged": String(b.flagged), "data-move": b.move || "",
      class: b.flagged ? "row-regress" : null,
    }));
  }

  /* builds left to right in session order; per build a band (the envelope of its sessions'
   * intervals), its median, and each session as a dot with the bar of its interval */
  function drawChart(doc) {
    const box = $("trend-chart");
    const W = 1000, H = 350, L = 70, R = 20, T = 24, B = 70;
    const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, "aria-label": doc.object.kind + " " + doc.object.name + " " + doc.metric + " per build" });
    const builds = doc.builds;
    let lo = Infinity, hi = -Infinity;
    for (const b of builds)
      for (const x of b.session_list)
        for (const v of [x.value, x.low, x.high]) if (isNum(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
    if (!builds.length || !isFinite(lo)) {
      s.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no session has this figure"));
      box.replaceChildren(s);
      return;
    }
    if (hi === lo) {
      hi += 1;
      lo -= 1;
    }
    const pad = (hi - lo) * 0.08;
    lo = Math.max(doc.metric === "load" ? 0 : -Infinity, lo - pad);
    hi += pad;
    const y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
    const bw = (W - L - R) / builds.length;
    for (let i = 0; i <= 4; i++) { /* grid and scale */
      const v = lo + ((hi - lo) * i) / 4;
      s.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      s.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, fmt(v, doc.unit)));
    }
    s.append(svg("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
    builds.forEach((b, i) => {
      const g = svg("g", { class: "build" + (b.flagged ? " flagged" : "") + (b.verdict_changed ? " verdict-changed" : ""),
                           "data-build": b.label, "data-move": b.move || "" });
      const x0 = L + i * bw, cx = x0 + bw / 2;
      if (isNum(b.low) && isNum(b.high))
        g.append(svg("rect", { class: "band", x: x0 + bw * 0.1, width: bw * 0.8, y: y(b.high), height: Math.max(1, y(b.low) - y(b.high)) }));
      if (isNum(b.median))
        g.append(svg("line", { class: "median", x1: x0 + bw * 0.1, x2: x0 + bw * 0.9, y1: y(b.median), y2: y(b.median) }));
      const n = b.session_list.length;
      b.session_list.forEach((x, k) => {
        if (!isNum(x.value)) return;
        const sx = x0 + bw * 0.15 + (n > 1 ? (bw * 0.7 * k) / (n - 1) : bw * 0.35);
        const sg = svg("g", { class: "session", "data-session": x.id });
        if (isNum(x.low) && isNum(x.high)) sg.append(svg("line", { x1: sx, x2: sx, y1: y(x.high), y2: y(x.low) }));
        sg.append(svg("circle", { cx: sx, cy: y(x.value), r: 3 }));
        sg.append(svg("title", {}, "session " + x.id + ": " + fmt(x.value, doc.unit) +
          (isNum(x.low) ? " (truth " + fmt(x.low, doc.unit) + " – " + fmt(x.high, doc.unit) + ")" : " (bound unknown)") +
          (x.verdict ? ", budgets " + x.verdict : "")));
        g.append(sg);
      });
      if (b.flagged)
        g.append(svg("text", { class: "flag", x: cx, y: T - 6, "text-anchor": "middle" }, b.move === "down" ? "▼ moved" : "▲ moved"));
      if (b.verdict_changed)
        g.append(svg("text", { class: "verdict-mark", x: cx, y: H - B + 52, "text-anchor": "middle" }, "◆ " + b.verdict));
      const label = b.label.length > 24 ? b.label.slice(0, 23) + "…" : b.label;
      g.append(svg("text", { class: "label", x: cx, y: H - B + 18, "text-anchor": "middle" }, label));
      g.append(svg("text", { x: cx, y: H - B + 32, "text-anchor": "middle" }, n + " session" + (n === 1 ? "" : "s")));
      g.append(svg("title", {}, b.label + ": median " + fmt(b.median, doc.unit) + ", " + moveText(b)));
      s.append(g);
    });
    box.replaceChildren(s);
  }

  async function main() {
    try {
      const doc = await api("/api/fleet");
      showFleet(doc);
      const c = readChoice();
      const obj = $("trend-object");
      if (c.name && [...obj.options].some((o) => o.value === c.kind + ":" + c.name)) obj.value = c.kind + ":" + c.name;
      else if (c.name) /* a name beyond the latest sessions' */
        obj.prepend(el("option", { value: c.kind + ":" + c.name, text: c.name, selected: "" }));
      $("trend-metric").value = ["load", "p99", "max"].includes(c.metric) ? c.metric : "load";
      if (c.bench && [...$("trend-bench").options].some((o) => o.value === c.bench)) $("trend-bench").value = c.bench;
      for (const id of ["trend-object", "trend-metric", "trend-bench"]) $(id).addEventListener("change", loadTrend);
      await loadTrend();
      document.body.dataset.ready = "1"; /* for tests: the first trend is drawn (or failed) */
    } catch (e) {
      showError(e);
      document.body.dataset.ready = "1";
    }
  }
  main();
})();
