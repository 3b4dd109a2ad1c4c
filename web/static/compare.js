/* compare.js — the compare page (#/compare/A/B): session B against A by the daemon's one
 * comparison rule. Page helpers (OP.ui: h, q, showError, view) come from app.js, which loads
 * after this file and routes #/compare/A/B to OP.comparePage.
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const F = () => OP.fmt;
  const isNum = (v) => typeof v === "number" && isFinite(v);
  const nf1 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const nf2 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  /* The page shows GET /api/compare: the document `orti-profd diff A B --json` prints, by the
   * daemon's one comparison rule (daemon/compare.h, docs/check.md "diff": same code, same
   * default threshold). Its verdicts are the daemon's: a regression, or an increase "within
   * bounds" of a sampled figure (not a regression), "through callees", "outlier". */
  const VERDICTS = [["regression", "regression"], ["within_bounds", "within bounds"], ["through_callees", "through callees"], ["outlier", "outlier"]];
  const verdictOf = (m) => { for (const [k, label] of VERDICTS) if (m[k]) return label; return null; };
  const boundText = (v, b) => (isNum(v) ? F().bounded((x) => (isNum(x) ? nf2.format(x) : "—"), () => b)(v, { sampled: true }) : "—");
  /* one row per compared measure of each entry */
  OP.compareRows = (doc) => {
    const rows = [];
    for (const e of doc.entries || [])
      for (const m of e.metrics || [])
        rows.push({ key: e.kind + "|" + e.name + "|" + m.metric, kind: e.kind, name: e.name, status: e.status, metric: m.metric,
                    a: m.a, b: m.b, a_bound: m.a_bound, b_bound: m.b_bound, change_percent: m.change_percent, verdict: verdictOf(m), m });
    return rows;
  };

  OP.comparePage = function (a, b) {
    const { h, q, showError, view: $view } = OP.ui;
    const v = $view();
    const ctl = new AbortController();
    let dead = false;
    document.title = "Compare " + a + " and " + b + " — orti-profd";
    v.replaceChildren(h("p", { class: "crumbs" }, h("a", { href: "#/", text: "Sessions" }), " › compare"),
      h("h1", { text: "Session " + a + " (A) vs session " + b + " (B)" }), h("p", { class: "muted", text: "Loading…" }));
    const cols = [
      { key: "kind", label: "Kind", width: "6em" },
      { key: "name", label: "Name", width: "16em", html: (r) => OP.esc(r.name) + (r.status === "new" ? ' <span class="badge">only in B</span>' : r.status === "vanished" ? ' <span class="badge">only in A</span>' : "") },
      { key: "metric", label: "Measure", width: "9em" },
      { key: "a", label: "A", num: true, width: "10em", fmt: (x, r) => (r.metric === "count" ? F().int(x) : boundText(x, r.a_bound)) },
      { key: "b", label: "B", num: true, width: "10em", fmt: (x, r) => (r.metric === "count" ? F().int(x) : boundText(x, r.b_bound)) },
      { key: "change_percent", label: "Change", num: true, width: "8em",
        html: (r) => (r.m.regression ? '<span class="mark" aria-hidden="true">▲ </span><span class="sr">regression </span>' : "") +
          OP.esc(isNum(r.change_percent) ? (r.change_percent > 0 ? "+" : "") + nf1.format(r.change_percent) + " %" : r.change_percent === null ? "—" : String(r.change_percent)),
        cls: (r) => (r.m.regression ? "regress" : isNum(r.change_percent) && r.change_percent < 0 && !r.metric.startsWith("count") ? "improve" : "") },
      { key: "verdict", label: "Verdict", width: "10em", title: "within bounds: an increase a sampled figure's 99 % bounds cannot tell from noise, not a regression" },
    ];
    const t = new OP.Table({ caption: "Measures of every task, ISR2, function and profile point", columns: cols, rowKey: (r) => r.key,
      sort: { key: "change_percent", dir: "desc" }, rowClass: (r) => (r.m.regression ? "row-regress" : ""), empty: "Nothing to compare." });
    t.el.id = "compare-table";
    t.el.classList.add("tall");
    (async () => {
      try {
        const doc = await OP.api("/compare" + q({ a, b }), ctl.signal);
        if (dead) return;
        const rows = OP.compareRows(doc);
        t.setRows(rows);
        const within = rows.filter((r) => r.m.within_bounds).length;
        v.replaceChildren(v.firstChild, v.children[1],
          h("p", { class: doc.regressions ? "summary bad" : "summary", id: "compare-summary" },
            doc.regressions + " regression(s) over " + doc.threshold_percent + " % of A (red, ▲)" +
            (within ? "; " + within + " increase(s) within the sampled bounds, not regressions" : "") +
            ". The same rule as orti-profd diff " + a + " " + b + "."),
          t.el);
      } catch (err) {
        if (!dead) showError(v, err);
      }
    })();
    return { key: "compare", tab() {}, destroy() { dead = true; ctl.abort(); } };
  };
})();
