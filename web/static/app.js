/* app.js — the dashboard's pages, routing, REST access and live feed.
 *
 * Hash routes:  #/                      session list (+ compare picker)
 *               #/session/ID[/TAB]      one session: timeline, CPU load, then TAB = tasks |
 *                                       functions | isrs | services | points | data | cores |
 *                                       flame | anomalies | analysis
 *               #/compare/A/B           session B against A by diff's rule (compare.js)
 * All data comes from the REST API of docs/rest-api.md (same origin). The live feed
 * (EventSource on /api/live) updates the running session's numbers and, on its session page,
 * re-reads the tables every few seconds. The daemon's feed names the running or else the last
 * session, with its state: only "new", "running" and "reconnecting" mean it is still recording. An API token, when the daemon wants one, is asked for
 * once and kept in localStorage.
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const TOKEN_KEY = "orti-profd-token";
  const REFRESH_MS = 5000;
  const $view = () => document.getElementById("view");

  /* ---------- formatting ---------- */
  const nf0 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  const nf1 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const nf2 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const isNum = (v) => typeof v === "number" && isFinite(v);
  const F = (OP.fmt = {
    int: (v) => (isNum(v) ? nf0.format(v) : "—"),
    us: (v) => (isNum(v) ? nf1.format(v) : "—"),
    pct: (v) => (isNum(v) ? nf2.format(v) + " %" : "—"),
    hz: (v) => (isNum(v) ? nf1.format(v) + " Hz" : "—"),
    hex: (v) => (isNum(v) ? "0x" + v.toString(16).padStart(8, "0") : "—"),
    /* a task or ISR value: small ones (an index, an IRQ number) in decimal, the rest (a TCB's
     * address, an exception id such as PendSV's 0xe000000e, a core-namespaced value) in hex */
    id: (v) => (isNum(v) ? (v >= 0 && v < 0x10000 ? String(v) : "0x" + v.toString(16)) : "—"),
    date: (v) => (v ? String(v).replace("T", " ").replace(/\.\d+/, "") : "—"), /* to the second */
    text: (v) => (v === null || v === undefined || v === "" ? "—" : String(v)),
    signedUs: (v) => (isNum(v) ? (v > 0 ? "+" : "") + nf1.format(v) : "—"),
    signedPts: (v) => (isNum(v) ? (v > 0 ? "+" : "") + nf2.format(v) + " pp" : "—"), /* percentage points */
    /* v with its bound: "v ± b" when the bound is above 0; "v ± ?" when a sampled source's
     * bound is unknown (null); v alone for exact numbers (bound 0) and unknown values */
    bounded: (fmt, boundOf) => (v, r) => {
      if (!isNum(v)) return fmt(v);
      const b = boundOf(r);
      if (isNum(b)) return b > 0 ? fmt(v) + " ± " + fmt(b).replace(/ %$/, "") : fmt(v);
      return r && r.sampled ? fmt(v) + " ± ?" : fmt(v);
    },
    duration: (s) => {
      if (!isNum(s)) return "—";
      if (s < 1) return nf1.format(s * 1000) + " ms";
      if (s < 120) return nf2.format(s) + " s";
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = Math.floor(s % 60);
      return (h ? h + " h " : "") + m + " min " + sec + " s";
    },
  });

  /* ---------- REST ---------- */
  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }
  OP.ApiError = ApiError;

  function authHeaders() {
    const t = localStorage.getItem(TOKEN_KEY);
    return t ? { Authorization: "Bearer " + t } : {};
  }

  /* GET path (under /api), parsed JSON; throws ApiError with the server's message. */
  OP.api = async function (path, signal) {
    const res = await fetch("/api" + path, { headers: authHeaders(), signal, cache: "no-store" });
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      if (e.name === "AbortError") throw e;
      body = null;
    }
    if (!res.ok) {
      const code = body && body.error ? body.error : "http_" + res.status;
      const msg = body && body.message ? body.message : res.status + " " + res.statusText;
      throw new ApiError(res.status, code, msg);
    }
    return body;
  };

  function q(params) {
    const parts = [];
    for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    return parts.length ? "?" + parts.join("&") : "";
  }

  function showError(where, err) {
    if (err && err.name === "AbortError") return;
    if (err instanceof ApiError && err.status === 401) {
      where.innerHTML = "";
      where.append(tokenForm());
      return;
    }
    const p = document.createElement("p");
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = "Could not load: " + (err && err.message ? err.message : String(err));
    where.replaceChildren(p);
  }

  function tokenForm() {
    const f = document.createElement("form");
    f.className = "token";
    f.innerHTML = '<p>This daemon needs an API token.</p><label>Token <input type="password" autocomplete="off" required></label> <button>Use token</button>';
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      localStorage.setItem(TOKEN_KEY, f.querySelector("input").value.trim());
      live.restart();
      route();
    });
    return f;
  }

  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v);
    }
    el.append(...kids.filter((k) => k !== null && k !== undefined));
    return el;
  }

  /* ---------- live feed ---------- */
  const FINISHED = new Set(["complete", "incomplete"]); /* states of a session that has ended */
  const live = (OP.live = {
    source: null,
    last: null, /* last stats object */
    listeners: new Set(),
    enabled: true,
    start() {
      if (!this.enabled || this.source) return;
      const t = localStorage.getItem(TOKEN_KEY);
      this.source = new EventSource("/api/live" + (t ? q({ access_token: t }) : ""));
      this.setStatus("connecting…", "");
      this.source.addEventListener("stats", (e) => {
        let s;
        try {
          s = JSON.parse(e.data);
        } catch (err) {
          this.setStatus("bad live data", "bad");
          return;
        }
        this.last = s;
        if (s.session === null || s.session === undefined) this.setStatus("idle", "");
        else if (!this.recording(s)) this.setStatus("session " + s.session + " " + s.state, "");
        else this.setStatus("session " + s.session + " " + (s.state || "running") + ", " + F.int(s.rate) + " ev/s", "on");
        for (const fn of this.listeners) fn(s);
      });
      /* the server ended this stream for a newer client (it keeps a limited number): stay
       * off rather than take another dashboard's place in turn */
      this.source.addEventListener("evicted", () => {
        this.stop();
        this.setStatus("off: too many live clients (reload to take a place)", "bad");
      });
      this.source.onerror = () => this.setStatus(this.source && this.source.readyState === 2 ? "off" : "reconnecting…", "bad");
    },
    stop() {
      if (this.source) this.source.close();
      this.source = null;
      this.setStatus("off", "");
    },
    restart() {
      this.stop();
      this.start();
    },
    setStatus(text, cls) {
      const el = document.getElementById("live-status");
      if (el) {
        el.textContent = text;
        el.className = "live-status " + cls;
      }
    },
    on(fn) {
      this.listeners.add(fn);
      return () => this.listeners.delete(fn);
    },
    /* Whether stats object s is about a session still recording (not the last, ended one). */
    recording(s) {
      return s.session !== null && s.session !== undefined && !FINISHED.has(s.state);
    },
  });

  /* ---------- page lifecycle ---------- */
  let page = null; /* {key, destroy(), tab(name)} */

  function setPage(p) {
    const first = page === null;
    if (page && page.destroy) page.destroy();
    if (!first) $view().focus({ preventScroll: true }); /* screen readers start at the new page */
    page = p;
    OP.page = p; /* the current page object (tests reach the timeline through OP.page.timeline) */
  }

  function route() {
    const hash = location.hash.replace(/^#/, "") || "/";
    const parts = hash.split("/").filter(Boolean);
    for (const a of document.querySelectorAll("header nav a")) {
      const cur = (parts[0] || "") === (a.dataset.route || "");
      if (cur) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    if (parts[0] === "session" && /^\d+$/.test(parts[1] || "")) {
      const id = Number(parts[1]);
      const tab = parts[2] || "tasks";
      if (page && page.key === "session:" + id) page.tab(tab);
      else setPage(sessionPage(id, tab));
    } else if (parts[0] === "compare" && /^\d+$/.test(parts[1] || "") && /^\d+$/.test(parts[2] || "")) {
      setPage(OP.comparePage(Number(parts[1]), Number(parts[2])));
    } else if (parts[0] === "compare") {
      setPage(sessionsPage(true));
    } else {
      setPage(sessionsPage(false));
    }
  }

  /* ---------- session list ---------- */
  function sessionsPage(focusCompare) {
    const v = $view();
    document.title = "Sessions — orti-profd";
    v.replaceChildren(h("h1", { text: "Sessions" }), h("p", { class: "muted", text: "Loading…" }));
    const cols = [
      { key: "id", label: "ID", num: true, width: "3.5em", fmt: F.int },
      { key: "name", label: "Name", width: "12em", html: (r) => '<a href="#/session/' + OP.esc(r.id) + '">' + OP.esc(F.text(r.name)) + "</a>" },
      { key: "state", label: "State", width: "7em", html: (r) => '<span class="badge ' + OP.esc(r.state) + '"' + (r.state_reason ? ' title="' + OP.esc(r.state_reason) + '"' : "") + ">" + OP.esc(F.text(r.state)) + "</span>" },
      { key: "started_at", label: "Started (UTC)", width: "11.5em", fmt: F.date },
      { key: "target", label: "Target", width: "11em", fmt: F.text },
      { key: "duration_s", label: "Duration", num: true, width: "7em", fmt: F.duration },
      { key: "source_kind", label: "Source", width: "5em", fmt: F.text },
      { key: "event_count", label: "Events", num: true, width: "7em", fmt: F.int },
      { key: "sample_rate_hz", label: "Sample rate", num: true, width: "7.5em", title: "Samples per second (poll source)", fmt: F.hz },
      { key: "gap_count", label: "Gaps", num: true, width: "4.5em", fmt: F.int, cls: (r) => (r.gap_count > 0 ? "warn" : "") },
      { key: "dropped_events", label: "Drops", num: true, width: "5em", fmt: F.int, cls: (r) => (r.dropped_events > 0 ? "warn" : "") },
      { key: "anomaly_count", label: "Anomalies", num: true, width: "6.5em", fmt: F.int, cls: (r) => (r.anomaly_count > 0 ? "warn" : "") },
    ];
    const table = new OP.Table({ caption: "Recorded sessions", columns: cols, rowKey: (r) => String(r.id), sort: { key: "id", dir: "desc" }, empty: "No sessions recorded yet." });
    table.el.id = "sessions-table";
    let rows = [];
    let dead = false;
    const ctl = new AbortController();
    const form = h("form", { class: "compare-pick", id: "compare-form" });

    async function load() {
      try {
        rows = await OP.api("/sessions", ctl.signal);
      } catch (err) {
        if (!dead) showError(v, err);
        return;
      }
      if (dead) return;
      table.setRows(rows);
      buildCompareForm();
      if (v.contains(table.el)) return;
      v.replaceChildren(h("h1", { text: "Sessions" }), table.el, h("h2", { id: "compare-h", text: "Compare two sessions" }), form);
      if (focusCompare) form.querySelector("select").focus();
    }

    function buildCompareForm() {
      const opts = rows.map((r) => '<option value="' + OP.esc(r.id) + '">' + OP.esc(r.id) + " — " + OP.esc(F.text(r.name)) + "</option>").join("");
      const a = form.querySelector("#cmp-a"), b = form.querySelector("#cmp-b");
      const keep = [a ? a.value : null, b ? b.value : null];
      form.innerHTML =
        '<label>Baseline (A) <select id="cmp-a">' + opts + "</select></label> " +
        '<label>Compared (B) <select id="cmp-b">' + opts + "</select></label> " +
        '<button type="submit">Compare</button>';
      const sa = form.querySelector("#cmp-a"), sb = form.querySelector("#cmp-b");
      /* default: the two latest finished sessions, older one as baseline */
      const done = rows.filter((r) => r.state !== "running").sort((x, y) => x.id - y.id);
      const pool = done.length >= 2 ? done : rows;
      if (keep[0]) sa.value = keep[0];
      else if (pool.length > 1) sa.value = String(pool[pool.length - 2].id);
      if (keep[1]) sb.value = keep[1];
      else if (pool.length) sb.value = String(pool[pool.length - 1].id);
    }
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      location.hash = "#/compare/" + form.querySelector("#cmp-a").value + "/" + form.querySelector("#cmp-b").value;
    });

    let lastLoad = 0;
    const off = live.on((s) => {
      const running = rows.find((r) => r.state === "running");
      if (s.session === null || s.session === undefined || !rows.some((r) => r.id === s.session) || (running && running.id !== s.session)) {
        /* a session started or ended: re-read the list (at most every few seconds) */
        if ((running || (s.session !== null && s.session !== undefined)) && Date.now() - lastLoad >= REFRESH_MS) {
          lastLoad = Date.now();
          load();
        }
        return;
      }
      const r = rows.find((x) => x.id === s.session);
      applyLive(r, s);
      table.refresh();
    });
    load();
    return { key: "sessions", tab() {}, destroy() { dead = true; ctl.abort(); off(); } };
  }

  /* Copy the live numbers into a sessions_overview row. */
  function applyLive(r, s) {
    r.state = s.state || r.state;
    if (isNum(s.events)) r.event_count = s.events;
    if (isNum(s.span_us)) r.duration_s = s.span_us / 1e6;
    if (isNum(s.gaps)) r.gap_count = s.gaps;
    if (isNum(s.drops)) r.dropped_events = s.drops;
    if (isNum(s.anomalies)) r.anomaly_count = s.anomalies;
    if (isNum(s.samples) && s.samples > 0 && isNum(s.span_us) && s.span_us > 0) r.sample_rate_hz = s.samples / (s.span_us / 1e6);
  }

  /* Whether a session's source samples (poll, or a replay of a poll capture): its bounds are
   * not 0, and unknown ones show as "± ?". */
  OP.sampled = (s) => !!s && (/^poll/.test(s.source_kind || "") || (s.source_kind === "replay" && isNum(s.sample_rate_hz)));

  /* ---------- one session ---------- */
  /* bounds: a row's own (task_stats), shown as "± b" next to the numbers they bound */
  const loadPm = F.bounded(F.pct, (r) => r && r.load_bound_percent);
  const timePm = F.bounded(F.us, (r) => r && r.time_bound_us);
  const preemptionsFmt = (v, r) => {
    if (!isNum(v)) return F.int(v);
    if (r && isNum(r.preemptions_missed) && r.preemptions_missed > 0) return F.int(v) + " (+" + F.int(r.preemptions_missed) + "?)";
    return F.int(v);
  };
  const TASK_COLS = [
    { key: "task", label: "Task", width: "12em" },
    { key: "task_value", label: "Value", num: true, width: "7em", fmt: F.id },
    { key: "activations", label: "Activations", num: true, fmt: F.int, title: "— when the source cannot see activations" },
    { key: "evidence", label: "Evidence", width: "7em", cls: (r) => (r.evidence === "none" || r.contradictions > 0 ? "warn" : ""),
      title: "What jobs, periods, response times and preemptions rest on (none: they are unknown, —); the note says why",
      html: (r) => (r.evidence ? '<span title="' + OP.esc(r.evidence_note || "") + '">' + OP.esc(r.evidence) + "</span>" : "—") },
    { key: "jobs", label: "Jobs", num: true, width: "6em", fmt: F.int },
    { key: "coverage_percent", label: "Coverage", num: true, width: "7em", fmt: F.pct, title: "Jobs seen / jobs the period implies" },
    { key: "slices", label: "Slices", num: true, width: "6em", fmt: F.int, title: "Switch-in to switch-out" },
    { key: "preemptions", label: "Preemptions", num: true, width: "9em", fmt: preemptionsFmt, title: "(+N?): possibly missed by a sampled source" },
    { key: "load_percent", label: "Load", num: true, width: "10em", fmt: loadPm, title: "± half-width of the 99 % interval (sampled sources)" },
    { key: "run_total_us", label: "Net total µs", num: true, width: "9em", fmt: F.us, title: "Run time with preemptions cut out" },
    { key: "slice_min_us", label: "Slice min µs", num: true, width: "9em", fmt: timePm },
    { key: "slice_avg_us", label: "Slice avg µs", num: true, width: "9em", fmt: timePm },
    { key: "slice_max_us", label: "Slice max µs", num: true, width: "9em", fmt: timePm },
    { key: "slice_p99_us", label: "Slice p99 µs", num: true, width: "9em", fmt: timePm },
    { key: "job_avg_us", label: "Job avg µs", num: true, width: "9em", fmt: timePm, title: "Net time per job" },
    { key: "job_max_us", label: "Job max µs", num: true, width: "9em", fmt: timePm },
    { key: "job_p99_us", label: "Job p99 µs", num: true, width: "9em", fmt: timePm },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: timePm },
    { key: "period_min_us", label: "Period min µs", num: true, width: "9em", fmt: timePm },
    { key: "period_max_us", label: "Period max µs", num: true, width: "9em", fmt: timePm },
    { key: "response_avg_us", label: "Response avg µs", num: true, width: "10em", fmt: timePm, title: "Gross: activation to end, preemptions included" },
    { key: "response_max_us", label: "Response max µs", num: true, width: "10em", fmt: timePm },
    { key: "response_p99_us", label: "Response p99 µs", num: true, width: "10em", fmt: timePm },
    { key: "waits", label: "Waits", num: true, width: "6em", fmt: F.int, title: "Times blocked in WaitEvent" },
    { key: "wait_total_us", label: "Waited µs", num: true, width: "9em", fmt: F.us },
  ];
  const FUNC_COLS = [
    { key: "function", label: "Function", width: "16em" },
    { key: "address", label: "Address", width: "7em", fmt: F.hex },
    { key: "count", label: "Count", num: true, fmt: F.int },
    { key: "gross_total_us", label: "Gross µs", num: true, width: "9em", fmt: F.us, title: "Entry to exit, preemptions and callees included" },
    { key: "net_total_us", label: "Net µs", num: true, width: "9em", fmt: F.us, title: "Preemptions cut out, callees included" },
    { key: "self_total_us", label: "Self µs", num: true, width: "9em", fmt: F.us, title: "Net minus callees" },
    { key: "net_min_us", label: "Min µs", num: true, fmt: F.us },
    { key: "net_avg_us", label: "Avg µs", num: true, fmt: F.us },
    { key: "net_max_us", label: "Max µs", num: true, fmt: F.us },
    { key: "net_p99_us", label: "p99 µs", num: true, fmt: F.us },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: F.us },
  ];
  /* the PC-sampled flat profile: share and time with the larger side of their 99 % interval */
  const halfWidth = (v, lo, hi) => (isNum(v) && isNum(lo) && isNum(hi) ? Math.max(v - lo, hi - v) : null);
  /* a sampled row without a task: its context was not known, or changed around the PC read */
  const noTask = (r) => (r.task !== null ? r.task : r.context_kind === "unattributed" ? "(unattributed)" : "(unknown context)");
  const SAMPLED_COLS = [
    { key: "task", label: "Task", width: "12em", tip: (v, r) => (v !== null ? null : r.context_kind === "unattributed"
        ? "unattributed: the task changed around the PC read, so the sample is charged to no task"
        : "unknown context: before the core's first task switch, or after a gap"),
      title: "— : charged to no task (hover for why)" },
    { key: "function", label: "Function", width: "16em" },
    { key: "address", label: "Address", width: "7em", fmt: F.hex },
    { key: "samples", label: "Samples", num: true, fmt: F.int, title: "PC samples in this function while this task ran" },
    { key: "share_percent", label: "% time", num: true, width: "10em", title: "Share of the core's samples ± the larger side of its 99 % interval",
      fmt: F.bounded(F.pct, (r) => halfWidth(r.share_percent, r.share_lo_percent, r.share_hi_percent)) },
    { key: "share_pm", label: "± points", num: true, width: "6em", title: "Half-width of the 99 % interval of % time (larger side)",
      value: (r) => halfWidth(r.share_percent, r.share_lo_percent, r.share_hi_percent), fmt: F.pct },
    { key: "share_lo_percent", label: "99 % low", num: true, width: "7em", fmt: F.pct },
    { key: "share_hi_percent", label: "99 % high", num: true, width: "7em", fmt: F.pct },
    { key: "time_us", label: "Est. µs", num: true, width: "12em", title: "Share × sampled span ± the larger side of its 99 % interval",
      fmt: F.bounded(F.us, (r) => halfWidth(r.time_us, r.time_lo_us, r.time_hi_us)) },
    { key: "file", label: "File", width: "14em" },
  ];
  /* an RTT session with --pc-sample: each traced function's measured time beside its sample */
  const MEASURED_COLS = [
    { key: "task", label: "Task", width: "12em" },
    { key: "function", label: "Function", width: "16em" },
    { key: "calls", label: "Calls", num: true, fmt: F.int },
    { key: "measured_self_percent", label: "Measured self", num: true, width: "9em", fmt: F.pct,
      title: "Self time the trace measured over the session's span: the function's code and every callee that is not instrumented" },
    { key: "sampled_percent", label: "Sampled", num: true, width: "10em", title: "Share of the PC samples in the function's own code ± the larger side of its 99 % interval",
      fmt: F.bounded(F.pct, (r) => halfWidth(r.sampled_percent, r.sampled_lo_percent, r.sampled_hi_percent)) },
    { key: "sampled_lo_percent", label: "99 % low", num: true, width: "7em", fmt: F.pct },
    { key: "sampled_hi_percent", label: "99 % high", num: true, width: "7em", fmt: F.pct },
    { key: "within", label: "Agree", width: "6em", title: "Measured self share inside the sampled 99 % interval; where not, the time is in uninstrumented callees (or the hooks)",
      fmt: (v) => (v === 1 ? "yes" : v === 0 ? "no" : "—") },
    { key: "measured_self_us", label: "Self µs", num: true, width: "9em", fmt: F.us },
    { key: "sampled_time_us", label: "Est. µs", num: true, width: "9em", fmt: F.us },
  ];
  /* Sampled rows beyond tasks (schema 15): a total ± its 99 % bound, times ± the resolution,
   * and a figure sampling cannot give "—" with the row's note (why) on hover. */
  const noteTip = (v, r) => (v === null || v === undefined) && r && r.note ? r.note : null;
  const withNotes = (cols) => cols.map((c) => (c.tip ? c : Object.assign({ tip: noteTip }, c)));
  const netTotalPm = F.bounded(F.us, (r) => r && r.net_total_bound_us);
  const ISR_COLS = withNotes([
    { key: "isr", label: "ISR", width: "14em" },
    { key: "isr_value", label: "Value", num: true, width: "7em", fmt: F.id },
    { key: "count", label: "Count", num: true, fmt: F.int, title: "— when a sampled source cannot count the instances (hover for why)" },
    { key: "load_percent", label: "Load", num: true, width: "10em", fmt: loadPm, title: "± half-width of the 99 % interval (sampled sources)" },
    { key: "net_total_us", label: "Net total µs", num: true, width: "12em", fmt: netTotalPm, title: "Nested ISR2s cut out; ± its 99 % bound (sampled sources)" },
    { key: "net_min_us", label: "Net min µs", num: true, fmt: timePm },
    { key: "net_avg_us", label: "Net avg µs", num: true, fmt: timePm },
    { key: "net_max_us", label: "Net max µs", num: true, fmt: timePm },
    { key: "net_p99_us", label: "Net p99 µs", num: true, fmt: timePm },
    { key: "gross_max_us", label: "Gross max µs", num: true, width: "9em", fmt: timePm, title: "Entry to exit, nested ISR2s included" },
    { key: "period_min_us", label: "Period min µs", num: true, width: "9em", fmt: timePm },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: timePm },
    { key: "max_depth", label: "Max depth", num: true, width: "7em", fmt: F.int, title: "Deepest nesting level: 1 over a task or idle, 2 over another ISR2" },
    { key: "nested", label: "Nested", num: true, width: "6em", fmt: F.int, title: "Instances that interrupted another ISR2" },
    { key: "dispatch", label: "Runs in", width: "7em", title: "handler: in its exception's handler; thread: on in thread mode after its exception returned, as a process (an exception trace tells; — not known)" },
    { key: "incomplete", label: "Cut", num: true, width: "5em", fmt: F.int, title: "Instances cut by a gap or the end" },
  ]);
  const TASK_ISR_COLS = withNotes([
    { key: "task", label: "Task", width: "12em" },
    { key: "isr", label: "ISR", width: "14em" },
    { key: "count", label: "Interruptions", num: true, width: "9em", fmt: F.int },
    { key: "time_us", label: "Time taken µs", num: true, width: "12em", fmt: F.bounded(F.us, (r) => r && r.time_total_bound_us), title: "Net time of the ISR2 instances that interrupted the task" },
    { key: "avg_us", label: "Avg µs", num: true, fmt: F.us },
  ]);
  const SERVICE_COLS = withNotes([
    { key: "service", label: "Service", width: "14em" },
    { key: "count", label: "Calls", num: true, fmt: F.int, title: "— when a sampled source cannot count the calls (hover for why)" },
    { key: "net_total_us", label: "Net total µs", num: true, width: "12em", fmt: netTotalPm, title: "Preemptions cut out; ± its 99 % bound (sampled sources)" },
    { key: "net_min_us", label: "Net min µs", num: true, fmt: timePm },
    { key: "net_avg_us", label: "Net avg µs", num: true, fmt: timePm },
    { key: "net_max_us", label: "Net max µs", num: true, fmt: timePm },
    { key: "net_p99_us", label: "Net p99 µs", num: true, fmt: timePm },
    { key: "gross_avg_us", label: "Gross avg µs", num: true, width: "9em", fmt: timePm, title: "Entry to exit, preemptions included" },
    { key: "gross_max_us", label: "Gross max µs", num: true, width: "9em", fmt: timePm },
    { key: "gross_p99_us", label: "Gross p99 µs", num: true, width: "9em", fmt: timePm },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: timePm },
  ]);
  const TASK_SERVICE_COLS = [{ key: "task", label: "Task", width: "12em" }].concat(SERVICE_COLS);
  const POINT_COLS = withNotes([
    { key: "point", label: "Point", width: "14em" },
    { key: "point_value", label: "ID", num: true, width: "4em", fmt: F.int },
    { key: "count", label: "n", num: true, fmt: F.int },
    { key: "total_us", label: "Total µs", num: true, width: "12em", fmt: F.bounded(F.us, (r) => r && r.total_bound_us), title: "Exclusive: inner points and preemption cut out" },
    { key: "min_us", label: "Min µs", num: true, fmt: timePm },
    { key: "avg_us", label: "Avg µs", num: true, fmt: timePm },
    { key: "max_us", label: "Max µs", num: true, fmt: timePm },
    { key: "p99_us", label: "p99 µs", num: true, fmt: timePm },
    { key: "last_us", label: "Last µs", num: true, fmt: F.us },
    { key: "ema_us", label: "Exp. avg µs", num: true, width: "9em", fmt: F.us, title: "Exponential average (— without alpha)" },
    { key: "alpha", label: "Alpha", num: true, width: "6em", fmt: (v) => (isNum(v) ? String(v) : "—") },
    { key: "latched_us", label: "Latched µs", num: true, width: "9em", fmt: F.us, title: "Latched and not yet recorded" },
    { key: "ends_outside", label: "Stray ends", num: true, width: "7em", fmt: F.int },
  ]);
  const DATA_COLS = withNotes([
    { key: "variable", label: "Variable", width: "14em" },
    { key: "kind", label: "Kind", width: "6em", fmt: F.text },
    { key: "changes", label: "Changes", num: true, fmt: F.int, title: "— when a sampled source may have missed changes (hover for why)" },
    { key: "states", label: "States", num: true, width: "6em", fmt: F.int },
    { key: "period_min_us", label: "Period min µs", num: true, width: "9em", fmt: timePm },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: timePm },
    { key: "period_max_us", label: "Period max µs", num: true, width: "9em", fmt: timePm },
    { key: "value_min", label: "Min", num: true, fmt: F.int },
    { key: "value_max", label: "Max", num: true, fmt: F.int },
    { key: "last_value", label: "Last", num: true, fmt: F.int },
  ]);
  const DATA_STATE_COLS = withNotes([
    { key: "value", label: "Value", num: true, width: "6em", fmt: F.int },
    { key: "count", label: "Entries", num: true, fmt: F.int },
    { key: "share_percent", label: "Share", num: true, width: "10em", fmt: F.bounded(F.pct, (r) => r && r.share_bound_percent) },
    { key: "duration_total_us", label: "Time µs", num: true, width: "12em", fmt: F.bounded(F.us, (r) => r && r.duration_total_bound_us) },
    { key: "duration_min_us", label: "Stay min µs", num: true, width: "9em", fmt: timePm },
    { key: "duration_avg_us", label: "Stay avg µs", num: true, width: "9em", fmt: timePm },
    { key: "duration_max_us", label: "Stay max µs", num: true, width: "9em", fmt: timePm },
    { key: "period_avg_us", label: "Period avg µs", num: true, width: "9em", fmt: timePm },
  ]);
  const CORE_COLS = [
    { key: "name", label: "Core", width: "8em" },
    { key: "load_percent", label: "Load", num: true, width: "10em", fmt: loadPm, title: "Busy share of the time the state was known, ± its 99 % bound (sampled sources)" },
    { key: "busy_us", label: "Busy µs", num: true, width: "10em", fmt: F.us },
    { key: "task_us", label: "Tasks µs", num: true, width: "10em", fmt: F.us },
    { key: "isr_us", label: "ISR2s µs", num: true, width: "9em", fmt: F.us },
    { key: "idle_us", label: "Idle µs", num: true, width: "10em", fmt: F.us },
    { key: "unknown_us", label: "Unknown µs", num: true, width: "9em", fmt: F.us, title: "Before the first switch, after a gap" },
    { key: "isr_percent", label: "ISR2 share", num: true, width: "10em", fmt: F.bounded(F.pct, (r) => r && r.isr_bound_percent) },
  ];
  const CROSS_CORE_COLS = [
    { key: "from_name", label: "ActivateTask on", width: "9em" },
    { key: "name", label: "Job started on", width: "9em" },
    { key: "count", label: "Count", num: true, width: "6em", fmt: F.int },
    { key: "min_us", label: "Min µs", num: true, width: "8em", fmt: F.us },
    { key: "avg_us", label: "Avg µs", num: true, width: "8em", fmt: F.us },
    { key: "p50_us", label: "p50 µs", num: true, width: "8em", fmt: F.us },
    { key: "p99_us", label: "p99 µs", num: true, width: "8em", fmt: F.us },
    { key: "max_us", label: "Max µs", num: true, width: "8em", fmt: F.us },
  ];
  const TASK_CORE_COLS = [
    { key: "core_name", label: "Core", width: "8em" },
    { key: "task", label: "Task", width: "12em" },
    { key: "load_percent", label: "% of core", num: true, width: "7em", fmt: F.pct, title: "Share of the core's observed time the task ran on it" },
    { key: "run_total_us", label: "Run µs", num: true, width: "9em", fmt: F.us },
    { key: "jobs", label: "Jobs", num: true, width: "6em", fmt: F.int, title: "Jobs whose first switch-in was on this core" },
    { key: "slices", label: "Slices", num: true, width: "6em", fmt: F.int },
  ];
  const TABS = [["tasks", "Tasks"], ["functions", "Functions"], ["isrs", "ISRs"], ["services", "Services"], ["points", "Profile points"],
                ["data", "Data"], ["cores", "Cores"], ["sampled", "PC samples"], ["flame", "Call tree & flame graph"], ["anomalies", "Anomalies & gaps"], ["analysis", "Schedulability"]];

  function sessionPage(id, firstTab) {
    const v = $view();
    const ctl = new AbortController();
    const base = "/sessions/" + id;
    let dead = false, info = null, tasks = [];
    const panels = new Map(); /* tab -> {el, load()} */
    const charts = []; /* value charts to release with the page */

    const title = h("h1", {}, "Session " + id);
    const budgetsBadge = h("span", { class: "badge budgets", hidden: "" });
    const meta = h("dl", { class: "meta" });
    const liveBox = h("p", { class: "livebox", "aria-live": "polite", hidden: "" });
    const tl = new OP.Timeline({
      fetchWindow: (from, to, maxPoints, signal) => OP.api(base + "/timeline" + q({ from, to, max_points: maxPoints }), signal),
      onSliceClick: (item, t) => showCallstack(item, t),
    });
    const stackBox = h("section", { class: "callstack", "aria-live": "polite", hidden: "" });
    const tabNav = h("nav", { class: "tabs", "aria-label": "Session tables" });
    for (const [k, label] of TABS) tabNav.append(h("a", { href: "#/session/" + id + "/" + k, "data-tab": k, text: label }));
    const panelBox = h("div", { class: "panel" });
    v.replaceChildren(
      h("p", { class: "crumbs" }, h("a", { href: "#/", text: "Sessions" }), " › session " + id),
      title, meta, liveBox,
      h("section", { class: "card", "aria-labelledby": "tl-h" }, h("h2", { id: "tl-h", text: "Timeline" }), tl.el),
      stackBox, tabNav, panelBox);

    function renderMeta() {
      const r = info;
      document.title = (r.name || "Session " + id) + " — orti-profd";
      title.replaceChildren(F.text(r.name) + " ", h("span", { class: "badge " + r.state, text: F.text(r.state) }), " ", budgetsBadge);
      const items = [
        ["Target", F.text(r.target)], ["Started", F.date(r.started_at)], ["Ended", F.date(r.ended_at)],
        ["Duration", F.duration(r.duration_s)], ["Source", F.text(r.source_kind)],
        ["Clock", F.text(r.clock_source || r.clock) + (isNum(r.tick_rate_hz) ? " @ " + F.int(r.tick_rate_hz) + " Hz" : "") +
          (isNum(r.clock_hz_measured) ? " (measured " + F.int(r.clock_hz_measured) + " Hz)" : "")],
        ["Events", F.int(r.event_count)], ["Sample rate", F.hz(r.sample_rate_hz)],
        ["Samples", F.int(r.samples) + (isNum(r.samples_effective) ? " (worth " + F.int(r.samples_effective) + ")" : "")],
        ["Sample interval", isNum(r.interval_p50_us) ? "p50 " + F.us(r.interval_p50_us) + " µs, p99 " + F.us(r.interval_p99_us) + " µs" : "—"],
        ["Inference", F.text(r.inference)], ["Gaps", F.int(r.gap_count)],
        ["Dropped events", F.int(r.dropped_events)], ["Anomalies", F.int(r.anomaly_count)],
      ];
      if (r.clock_warning) items.push(["Clock warning", r.clock_warning]);
      if (isNum(r.samples_stalled) && r.samples_stalled > 0.2)
        items.push(["Sampler starved", F.pct(100 * r.samples_stalled) + " of the time stalled: loads have no bound"]);
      if (r.state_reason) items.push(["Reason", r.state_reason]);
      meta.replaceChildren(...items.map(([k, val]) => h("div", {}, h("dt", { text: k }), h("dd", { text: val, "data-field": k }))));
    }

    async function loadInfo() {
      try {
        info = await OP.api(base, ctl.signal);
      } catch (err) {
        if (!dead) showError(v, err);
        return false;
      }
      if (!dead) {
        renderMeta();
        loadBudgets();
      }
      return true;
    }

    /* The budgets verdict (GET …/check, docs/check.md) as a badge next to the state; hidden
     * when the daemon was given no budgets file (404) or cannot judge this session. */
    async function loadBudgets() {
      let c = null;
      try {
        c = await OP.api(base + "/check", ctl.signal);
      } catch (err) {
        c = null;
      }
      if (dead) return;
      if (!c || !Array.isArray(c.results)) {
        budgetsBadge.hidden = true;
        return;
      }
      const count = (v) => c.results.filter((r) => r.verdict === v).length;
      const bad = count("violation"), open = count("undecided");
      const verdict = bad ? "violation" : open ? "undecided" : "pass";
      budgetsBadge.className = "badge budgets " + verdict;
      budgetsBadge.textContent = "budgets: " + (bad ? bad + (bad === 1 ? " violation" : " violations") : verdict);
      budgetsBadge.title = c.results.length + " budgets of " + c.budgets + ": " + count("pass") + " pass, " +
        bad + " violated, " + open + " undecided";
      budgetsBadge.hidden = false;
    }

    async function showCallstack(item, t) {
      stackBox.hidden = false;
      stackBox.replaceChildren(h("h2", { text: "Calls of " + item.name + " open at " + OP.fmtTime(t) }), h("p", { class: "muted", text: "Loading…" }));
      try {
        const calls = await OP.api(base + "/callstack" + q({ task: item.name, t }), ctl.signal);
        const table = new OP.Table({
          caption: "Call stack (outermost first)", rowKey: (r) => String(r.depth),
          columns: [
            { key: "depth", label: "Depth", num: true, width: "5em", fmt: F.int },
            { key: "function", label: "Function", width: "16em" },
            { key: "address", label: "Address", width: "7em", fmt: F.hex },
            { key: "start_us", label: "Start", num: true, width: "9em", fmt: (x) => OP.fmtTime(x) },
            { key: "end_us", label: "End", num: true, width: "9em", fmt: (x) => OP.fmtTime(x) },
            { key: "net_us", label: "Net µs", num: true, fmt: F.us },
          ],
          sort: { key: "depth", dir: "asc" }, empty: "No function calls open at that moment.",
        });
        table.setRows(calls);
        stackBox.replaceChildren(stackBox.firstChild, table.el);
      } catch (err) {
        if (!dead) showError(stackBox, err);
      }
    }

    /* Each tab: build once, load when first shown, reload on live refresh. */
    function panel(tab) {
      if (panels.has(tab)) return panels.get(tab);
      const el = h("section", { id: "panel-" + tab, "aria-label": TABS.find((t) => t[0] === tab)[1] });
      let p;
      if (tab === "tasks") {
        const t = new OP.Table({ caption: "Tasks", columns: TASK_COLS, rowKey: (r) => r.task, sort: { key: "load_percent", dir: "desc" }, empty: "No task statistics." });
        t.el.id = "tasks-table";
        el.append(t.el);
        p = {
          el, tables: [t], load: async () => {
            tasks = await OP.api(base + "/tasks", ctl.signal);
            const sampled = OP.sampled(info);
            for (const r of tasks) r.sampled = sampled; /* its unknown bounds show as "± ?" */
            t.setRows(tasks);
            tl.setLoadBounds(tasks);
            fillTaskPickers();
          },
        };
      } else if (tab === "functions") {
        const pick = h("select", { id: "fn-task", class: "task-pick" });
        const t = new OP.Table({ caption: "Functions", columns: FUNC_COLS, rowKey: (r) => r.function + "@" + r.address, sort: { key: "self_total_us", dir: "desc" }, empty: "No function statistics (entry/exit hooks not enabled?)." });
        t.el.id = "functions-table";
        t.el.classList.add("tall");
        el.append(h("p", { class: "filter" }, h("label", { for: "fn-task", text: "Task " }), pick), t.el);
        p = { el, pick, tables: [t], load: async () => { t.setRows(await OP.api(base + "/functions" + q({ task: pick.value || null }), ctl.signal)); } };
        pick.addEventListener("change", () => run(p));
      } else if (tab === "sampled") {
        const pick = h("select", { id: "sampled-task", class: "task-pick" });
        const t = new OP.Table({ caption: "PC-sampled flat profile (99 % intervals)", columns: SAMPLED_COLS,
          rowKey: (r) => r.core + "/" + r.context_kind + "/" + r.task + "/" + r.function + "@" + r.address,
          sort: { key: "samples", dir: "desc" }, empty: "No PC samples (run with --pc-sample)." });
        t.el.id = "sampled-table";
        t.el.classList.add("tall");
        /* measured beside sampled, where the session has both (RTT with --pc-sample) */
        const mt = new OP.Table({ caption: "Measured (trace) beside sampled (PC), per task and traced function", columns: MEASURED_COLS,
          rowKey: (r) => r.core + "/" + r.task + "/" + r.function, sort: { key: "measured_self_us", dir: "desc" }, empty: "No rows." });
        mt.el.id = "sampled-measured-table";
        /* the flat flame view: task;function, width = estimated time */
        const fg = new OP.FlameGraph();
        fg.el.id = "sampled-flame";
        el.append(h("p", { class: "filter" }, h("label", { for: "sampled-task", text: "Task " }), pick), t.el, mt.el,
          h("h3", { text: "Flat flame view (task, function; width: estimated time)" }), fg.el);
        p = {
          el, pick, tables: [t, mt], load: async () => {
            const task = { task: pick.value || null };
            const [rows, measured] = await Promise.all([OP.api(base + "/sampled" + q(task), ctl.signal),
              OP.api(base + "/sampled" + q({ by: "measured", ...task }), ctl.signal)]);
            t.setRows(rows);
            mt.setRows(measured);
            mt.el.hidden = measured.length === 0;
            fg.el.hidden = rows.length === 0;
            if (rows.length) fg.setTree(OP.buildTree(rows.map((r) => ({ stack: noTask(r) + ";" + r.function, self_us: r.time_us })), pick.value || "all tasks"));
          },
        };
        pick.addEventListener("change", () => run(p));
      } else if (tab === "isrs" || tab === "services") {
        const isr = tab === "isrs";
        const t = new OP.Table({ caption: isr ? "ISR2s" : "OS services", columns: isr ? ISR_COLS : SERVICE_COLS,
          rowKey: (r) => (isr ? r.isr : r.service), sort: { key: "net_total_us", dir: "desc" },
          empty: isr ? "No ISR2 activity." : "No OS service calls (SERVICETRACE not traced?)." });
        t.el.id = tab + "-table";
        const tt = new OP.Table({ caption: isr ? "What each ISR2 took from each task" : "OS services per calling task",
          columns: isr ? TASK_ISR_COLS : TASK_SERVICE_COLS, rowKey: (r) => r.task + "|" + (isr ? r.isr : r.service),
          sort: { key: isr ? "time_us" : "net_total_us", dir: "desc" }, empty: "No rows." });
        tt.el.id = (isr ? "isr" : "service") + "-tasks-table";
        el.append(t.el, tt.el);
        p = {
          el, tables: [t, tt], load: async () => {
            const [a, b] = await Promise.all([OP.api(base + "/" + tab, ctl.signal), OP.api(base + "/" + tab + "/tasks", ctl.signal)]);
            for (const r of a.concat(b)) r.sampled = OP.sampled(info); /* unknown bounds: "± ?" */
            t.setRows(a);
            tt.setRows(b);
          },
        };
      } else if (tab === "cores") {
        const t = new OP.Table({ caption: "Cores", columns: CORE_COLS, rowKey: (r) => String(r.core),
          sort: { key: "name", dir: "asc" }, empty: "No core statistics." });
        t.el.id = "cores-table";
        const xt = new OP.Table({ caption: "Cross-core activation latency (ActivateTask on one core → the job's start on another)",
          columns: CROSS_CORE_COLS, rowKey: (r) => r.core + "|" + r.from_core, sort: { key: "name", dir: "asc" },
          empty: "No task was activated from another core (or the session predates this measurement)." });
        xt.el.id = "cross-core-table";
        const tct = new OP.Table({ caption: "Tasks per core (a task that migrates has a row per core it ran on)",
          columns: TASK_CORE_COLS, rowKey: (r) => r.core + "|" + r.task_value, sort: { key: "core_name", dir: "asc" },
          empty: "No per-core task statistics (or the session predates them)." });
        tct.el.id = "task-cores-table";
        el.append(t.el, tct.el, xt.el);
        p = {
          el, tables: [t, tct, xt], load: async () => {
            const [a, b, c] = await Promise.all([OP.api(base + "/cores", ctl.signal), OP.api(base + "/cross-core", ctl.signal),
              OP.api(base + "/task-cores", ctl.signal)]);
            for (const r of a) r.sampled = OP.sampled(info);
            t.setRows(a);
            xt.setRows(b);
            tct.setRows(c);
          },
        };
      } else if (tab === "analysis") p = OP.analysisPanel(el, base, ctl.signal);
      else if (tab === "points") {
        const t = new OP.Table({ caption: "Profile points (seed 003)", columns: POINT_COLS,
          rowKey: (r) => String(r.point_value), sort: { key: "point_value", dir: "asc" },
          empty: "No profile points (pfpBegin/pfpEnd not traced)." });
        t.el.id = "points-table";
        el.append(t.el);
        p = { el, tables: [t], load: async () => t.setRows(await OP.api(base + "/points", ctl.signal)) };
      } else if (tab === "data") {
        const pick = h("select", { id: "data-var", class: "task-pick" });
        const chart = new OP.ValueChart();
        charts.push(chart);
        const t = new OP.Table({ caption: "Data variables (activate a row to chart it)", columns: DATA_COLS, rowKey: (r) => r.variable,
          sort: { key: "variable", dir: "asc" }, empty: "No data variables (orti_trace_value or --watch).",
          onActivate: (r) => { pick.value = r.variable; showVariable(); } });
        t.el.id = "data-table";
        const st = new OP.Table({ caption: "Per value (state variable)", columns: DATA_STATE_COLS, rowKey: (r) => String(r.value),
          sort: { key: "value", dir: "asc" }, empty: "A regular variable: no per-value statistics." });
        st.el.id = "data-states-table";
        const chartBox = h("section", { class: "card", "aria-labelledby": "data-chart-h" },
          h("h3", { id: "data-chart-h", text: "Value over time" }), chart.el);
        el.append(t.el, h("p", { class: "filter" }, h("label", { for: "data-var", text: "Variable " }), pick), chartBox, st.el);
        let vars = [];
        async function showVariable() {
          const v = pick.value;
          chartBox.hidden = !v;
          if (!v) {
            st.setRows([]);
            return;
          }
          const [rows, series] = await Promise.all([
            OP.api(base + "/data/states" + q({ variable: v }), ctl.signal),
            OP.api(base + "/data/values" + q({ variable: v, max_points: chart.wantPoints() }), ctl.signal),
          ]);
          st.setRows(rows);
          chart.setSeries(series);
        }
        pick.addEventListener("change", () => showVariable().catch((err) => { if (!dead) showError(chartBox, err); }));
        p = {
          el, tables: [t, st], load: async () => {
            vars = await OP.api(base + "/data", ctl.signal);
            t.setRows(vars);
            const keep = pick.value;
            pick.innerHTML = vars.map((r) => '<option value="' + OP.esc(r.variable) + '">' + OP.esc(r.variable) + "</option>").join("");
            pick.value = vars.some((r) => r.variable === keep) ? keep : vars.length ? vars[0].variable : "";
            await showVariable();
          },
        };
      } else if (tab === "flame") {
        const pick = h("select", { id: "flame-task", class: "task-pick" });
        const fg = new OP.FlameGraph();
        const tree = h("div", { class: "treebox", id: "calltree" });
        el.append(h("p", { class: "filter" }, h("label", { for: "flame-task", text: "Task " }), pick),
          h("h3", { text: "Flame graph" }), fg.el, h("h3", { text: "Call tree" }), tree);
        p = {
          el, pick, load: async () => {
            const stacks = await OP.api(base + "/flame" + q({ task: pick.value || null }), ctl.signal);
            fg.el.hidden = stacks.length === 0;
            if (stacks.length === 0) {
              tree.replaceChildren(h("p", { class: "muted empty", text: "No call data" + (pick.value ? " for " + pick.value : "") + " (function entry/exit hooks not enabled?)." }));
              return;
            }
            const root = OP.buildTree(stacks, pick.value ? pick.value : "all tasks");
            if (pick.value && root.children.size === 1 && root.children.has(pick.value)) {
              const only = root.children.get(pick.value);
              only.parent = null;
              fg.setTree(only);
              OP.renderCallTree(tree, only);
            } else {
              fg.setTree(root);
              OP.renderCallTree(tree, root);
            }
          },
        };
        pick.addEventListener("change", () => run(p));
      } else {
        const at = new OP.Table({
          caption: "Anomalies (activate a row to show it on the timeline)", rowKey: (r) => r.ts_us + "|" + r.kind + "|" + r.core,
          columns: [
            { key: "ts_us", label: "Time", num: true, width: "9em", fmt: (x) => OP.fmtTime(x) },
            { key: "core", label: "Core", num: true, width: "5em", fmt: F.int },
            { key: "task", label: "Task", width: "10em", fmt: F.text },
            { key: "kind", label: "Kind", width: "12em" },
            { key: "value", label: "Value", num: true, width: "7em", fmt: F.int },
            { key: "detail", label: "Detail", width: "26em", fmt: F.text },
          ],
          sort: { key: "ts_us", dir: "asc" }, empty: "No anomalies.",
          onActivate: (r) => tl.focusAt(r.ts_us, Math.max(50, (tl.extent ? tl.extent[1] - tl.extent[0] : 1e4) / 200)),
        });
        at.el.id = "anomalies-table";
        const gt = new OP.Table({
          caption: "Gaps (time with lost events)", rowKey: (r) => r.start_us + "|" + r.core,
          columns: [
            { key: "start_us", label: "Start", num: true, width: "9em", fmt: (x) => OP.fmtTime(x) },
            { key: "end_us", label: "End", num: true, width: "9em", fmt: (x) => OP.fmtTime(x) },
            { key: "core", label: "Core", num: true, width: "5em", fmt: F.int },
            { key: "lost", label: "Lost events", num: true, width: "8em", fmt: F.int },
            { key: "reason", label: "Reason", width: "14em", fmt: F.text },
          ],
          sort: { key: "start_us", dir: "asc" }, empty: "No gaps.",
          onActivate: (r) => tl.focusAt((r.start_us + r.end_us) / 2, Math.max(3 * (r.end_us - r.start_us), 50)),
        });
        gt.el.id = "gaps-table";
        el.append(at.el, gt.el);
        p = {
          el, tables: [at, gt], load: async () => {
            const [an, gp] = await Promise.all([OP.api(base + "/anomalies", ctl.signal), OP.api(base + "/gaps", ctl.signal)]);
            at.setRows(an);
            gt.setRows(gp);
          },
        };
      }
      panels.set(tab, p);
      return p;
    }

    function fillTaskPickers() {
      for (const p of panels.values()) if (p.pick) fillPick(p.pick);
    }
    function fillPick(sel) {
      const keep = sel.value;
      sel.innerHTML = '<option value="">All tasks</option>' + tasks.map((t) => '<option value="' + OP.esc(t.task) + '">' + OP.esc(t.task) + "</option>").join("");
      sel.value = tasks.some((t) => t.task === keep) ? keep : "";
    }

    async function run(p) {
      try {
        await p.load();
        p.loaded = true;
        p.el.querySelector(".error") && p.el.querySelector(".error").remove();
      } catch (err) {
        if (dead || err.name === "AbortError") return;
        const box = h("div");
        showError(box, err);
        p.el.querySelector(".error") && p.el.querySelector(".error").remove();
        p.el.prepend(box.firstChild);
      }
    }

    function showTab(tab) {
      if (!TABS.some((t) => t[0] === tab)) tab = "tasks";
      for (const a of tabNav.querySelectorAll("a")) {
        if (a.dataset.tab === tab) a.setAttribute("aria-current", "page");
        else a.removeAttribute("aria-current");
      }
      const p = panel(tab);
      if (p.pick) fillPick(p.pick);
      panelBox.replaceChildren(p.el);
      for (const t of p.tables || []) t.render(); /* re-attached: scroll position starts over */
      if (!p.loaded) run(p);
    }

    /* Live: numbers from the feed; tables, timeline extent and overview re-read every few seconds.
     * The feed keeps naming the last session after it ended: then its state says so, and the
     * page reads the final numbers once instead of following it. */
    let lastRefresh = 0, following = false;
    const off = live.on((s) => {
      if (!info) return;
      if (s.session === id && live.recording(s)) {
        following = true;
        applyLive(info, s);
        renderMeta();
        liveBox.hidden = false;
        liveBox.textContent = "Live: " + F.int(s.events) + " events (" + F.int(s.events_stored) + " stored), " + F.int(s.rate) + " ev/s; running " +
          (s.running || []).map((r) => "core " + r.core + ": " + (r.task || "idle")).join(", ");
        const now = Date.now();
        if (now - lastRefresh >= REFRESH_MS) {
          lastRefresh = now;
          for (const p of panels.values()) if (p.loaded) run(p);
          tl.refreshExtent();
        }
      } else if ((following || info.state === "running") && Date.now() - lastRefresh >= REFRESH_MS) {
        /* the session ended (or the list said running): read its final numbers */
        following = false;
        lastRefresh = Date.now();
        liveBox.hidden = true;
        loadInfo().then(() => { for (const p of panels.values()) if (p.loaded) run(p); tl.refreshExtent(); });
      }
    });

    (async () => {
      if (!(await loadInfo())) return;
      showTab(firstTab);
      if (!panels.get("tasks") || !panels.get("tasks").loaded) run(panel("tasks"));
      tl.start();
    })();

    return {
      key: "session:" + id,
      timeline: tl,
      tab: showTab,
      destroy() { dead = true; ctl.abort(); off(); tl.destroy(); for (const c of charts) c.destroy(); },
    };
  }

  /* what the pages in other files (compare.js) build with */
  OP.ui = { h, q, showError, view: $view };

  /* ---------- boot ---------- */
  function boot() {
    const toggle = document.getElementById("live-toggle");
    toggle.addEventListener("change", () => {
      live.enabled = toggle.checked;
      if (toggle.checked) live.start();
      else live.stop();
    });
    window.addEventListener("hashchange", route);
    route();
    live.start();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
