/* analysis.js — OP.analysisPanel: the session page's Schedulability tab (issue #31).
 *
 * Reads GET /api/sessions/{id}/analysis (the document `orti-profd analyze --json` prints;
 * docs/analysis.md) and shows per task and ISR the worst-case response bound, the observed
 * maximum response and the deadline side by side, with a slack bar: the bound's share of the
 * deadline filled, the observed maximum as a tick on it. A miss or a model error (observed
 * above the bound) is marked; what the analysis does not know is "—". Above the table, per
 * core, the critical scaling factor, and the analysis's notes below it. Loaded by index.html
 * before app.js, which calls OP.analysisPanel when the tab is first shown.
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const isNum = (v) => typeof v === "number" && isFinite(v);

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /* the slack bar of row @r: bound / deadline filled (capped at the bar's end), observed / deadline as a tick */
  function slackBar(r) {
    const F = OP.fmt;
    const d = r.deadline_us;
    const slack = OP.esc(F.signedUs(r.slack_us));
    if (!isNum(d) || d <= 0 || !isNum(r.slack_us)) return slack; /* unknown: "—" alone */
    const pct = (v) => Math.max(0, Math.min(100, (100 * v) / d)).toFixed(1);
    const fill = isNum(r.bound_us) ? '<span class="fill" style="width:' + pct(r.bound_us) + '%"></span>' : "";
    const tick = isNum(r.observed_us) ? '<span class="tick" style="left:' + pct(r.observed_us) + '%"></span>' : "";
    const title = "bound " + F.us(r.bound_us) + " µs, observed " + F.us(r.observed_us) + " µs of the deadline " + F.us(d) + " µs";
    return '<span class="slackbar' + (r.verdict === "miss" || r.verdict === "unbounded" ? " over" : "") +
      '" role="img" aria-label="' + OP.esc(title) + '" title="' + OP.esc(title) + '">' + fill + tick + "</span> " + slack;
  }

  OP.analysisPanel = function (box, base, signal) {
    const F = OP.fmt;
    const cols = [
      { key: "core", label: "Core", num: true, width: "4em", fmt: F.int },
      { key: "name", label: "Task / ISR", width: "11em" },
      { key: "kind", label: "Kind", width: "4em" },
      { key: "priority", label: "Prio", num: true, width: "4em", fmt: F.text, value: (r) => r.inputs.priority.value },
      { key: "wcet_us", label: "C µs", num: true, width: "7em", fmt: F.us, value: (r) => r.inputs.wcet.us,
        title: "Execution time per job and where it came from (measured, orti, given, what-if)" },
      { key: "period_us", label: "T µs", num: true, width: "8em", fmt: F.us, value: (r) => r.inputs.period.us },
      { key: "bound_us", label: "Bound µs", num: true, width: "8em", fmt: F.us, title: "Worst-case response bound" },
      { key: "observed_us", label: "Observed µs", num: true, width: "8em", fmt: F.us, title: "The session's maximum response" },
      { key: "deadline_us", label: "Deadline µs", num: true, width: "8em", fmt: F.us },
      { key: "slack_us", label: "Slack µs", num: true, width: "14em", html: slackBar, title: "Deadline − bound; the bar is the bound's share of the deadline, the tick the observed maximum" },
      { key: "sensitivity_us", label: "Sensitivity µs", num: true, width: "8em", fmt: F.us,
        title: "Extra execution time this item may take with every deadline of the core still met" },
      { key: "verdict", label: "Verdict", width: "9em", cls: (r) => (r.model_error || r.verdict === "miss" || r.verdict === "unbounded" ? "warn" : "") },
    ];
    const t = new OP.Table({ caption: "Response-time analysis (bound, observed and deadline per task and ISR)", columns: cols,
      rowKey: (r) => r.core + "|" + r.kind + "|" + r.name, sort: { key: "core", dir: "asc" }, empty: "Nothing to analyse." });
    t.el.id = "analysis-table";
    const summary = el("p", { id: "analysis-summary", class: "summary" });
    const notes = el("ul", { id: "analysis-notes", class: "muted" });
    box.append(summary, t.el, notes);
    return {
      el: box, tables: [t], load: async () => {
        const d = await OP.api(base + "/analysis", signal);
        const rows = [];
        for (const c of d.cores) for (const it of c.items) rows.push(Object.assign({ core: c.core }, it));
        t.setRows(rows);
        const parts = d.cores.map((c) => "core " + c.core + ": critical scaling factor " + (isNum(c.scaling_factor) ? c.scaling_factor.toFixed(4) : "—"));
        parts.push(d.misses + " missed, " + d.model_errors + " model errors, " + d.unanalysed + " not analysed");
        summary.textContent = parts.join("; ");
        summary.classList.toggle("bad", d.misses > 0 || d.model_errors > 0);
        notes.replaceChildren(...d.notes.map((n) => el("li", {}, n)));
      },
    };
  };
})();
