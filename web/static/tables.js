/* tables.js — OP.Table: a sortable, virtualised data table.
 *
 * Real <table> semantics (caption, th scope=col with aria-sort, aria-rowcount/aria-rowindex) so
 * screen readers and keyboard users get a normal table; only the rows in view (plus an overscan
 * margin) are in the DOM when there are many, with spacer rows standing in for the rest, so a
 * 100,000-row function table scrolls and sorts without building 100,000 rows of DOM.
 * Every cell carries data-col (the column key) and data-v (the raw JSON value) so tests can
 * compare what is shown with what the REST API answered.
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const ROW_H = 26; /* px; style.css fixes the row height to this */
  const ALL_ROWS_LIMIT = 400; /* below this many rows everything is rendered */
  const OVERSCAN = 20;
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  OP.esc = function (s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  };

  function compareValues(a, b) {
    const an = a === null || a === undefined, bn = b === null || b === undefined;
    if (an || bn) return an === bn ? 0 : an ? 1 : -1; /* nulls last in both directions (see sort) */
    if (typeof a === "number" && typeof b === "number") return a - b;
    return collator.compare(String(a), String(b));
  }

  /* opts: {caption, columns: [{key, label, num (bool), fmt(v,row) -> text, html(row) -> HTML,
   *        value(row) -> sort/data value, width (CSS), title, cls(row) -> class}],
   *        rowKey(row) -> string, rowClass(row) -> class, onActivate(row), sort: {key, dir},
   *        empty: text when no rows}. */
  class Table {
    constructor(opts) {
      this.opts = opts;
      this.columns = opts.columns;
      this.rows = [];
      this.view = []; /* rows in display order */
      this.sort = opts.sort ? { key: opts.sort.key, dir: opts.sort.dir } : null;
      this.el = document.createElement("div");
      this.el.className = "tablewrap";
      this.el.tabIndex = 0;
      this.el.setAttribute("role", "region");
      this.el.setAttribute("aria-label", opts.caption);
      this.table = document.createElement("table");
      this.table.className = "data";
      const cap = document.createElement("caption");
      this.captionText = document.createElement("span");
      this.captionText.textContent = opts.caption;
      this.countText = document.createElement("span");
      this.countText.className = "count";
      cap.append(this.captionText, " ", this.countText);
      const colgroup = document.createElement("colgroup");
      for (const c of this.columns) {
        const col = document.createElement("col");
        col.style.width = c.width || (c.num ? "8em" : "14em");
        colgroup.append(col);
      }
      const thead = document.createElement("thead");
      const tr = document.createElement("tr");
      tr.setAttribute("aria-rowindex", "1");
      this.ths = new Map();
      for (const c of this.columns) {
        const th = document.createElement("th");
        th.scope = "col";
        th.dataset.col = c.key;
        if (c.num) th.className = "num";
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = c.label;
        if (c.title) b.title = c.title;
        b.addEventListener("click", () => this.sortBy(c.key));
        th.append(b);
        tr.append(th);
        this.ths.set(c.key, th);
      }
      thead.append(tr);
      this.tbody = document.createElement("tbody");
      this.table.append(cap, colgroup, thead, this.tbody);
      this.el.append(this.table);
      this.pending = false;
      this.el.addEventListener("scroll", () => this.scheduleRender(), { passive: true });
      this.tbody.addEventListener("click", (e) => this.activate(e));
      this.tbody.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") this.activate(e);
      });
      this.updateSortMarks();
    }

    valueOf(c, row) {
      return c.value ? c.value(row) : row[c.key];
    }

    /* Replace the rows, keeping sort order and scroll position. */
    setRows(rows) {
      this.rows = rows || [];
      this.applySort();
    }

    /* Re-render after rows were changed in place. */
    refresh() {
      this.applySort();
    }

    sortBy(key) {
      const c = this.columns.find((x) => x.key === key);
      if (this.sort && this.sort.key === key) this.sort.dir = this.sort.dir === "asc" ? "desc" : "asc";
      else this.sort = { key, dir: c && c.num ? "desc" : "asc" };
      this.updateSortMarks();
      this.applySort();
    }

    updateSortMarks() {
      for (const [key, th] of this.ths) {
        if (this.sort && this.sort.key === key) th.setAttribute("aria-sort", this.sort.dir === "asc" ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      }
    }

    applySort() {
      const view = this.rows.slice();
      if (this.sort) {
        const c = this.columns.find((x) => x.key === this.sort.key);
        if (c) {
          const sign = this.sort.dir === "asc" ? 1 : -1;
          const keyed = view.map((row, i) => ({ v: this.valueOf(c, row), i, row }));
          keyed.sort((x, y) => {
            const xn = x.v === null || x.v === undefined, yn = y.v === null || y.v === undefined;
            if (xn || yn) return xn === yn ? x.i - y.i : xn ? 1 : -1;
            return sign * compareValues(x.v, y.v) || x.i - y.i;
          });
          for (let i = 0; i < keyed.length; i++) view[i] = keyed[i].row;
        }
      }
      this.view = view;
      this.table.setAttribute("aria-rowcount", String(view.length + 1));
      this.countText.textContent = "(" + view.length.toLocaleString("en-US") + (view.length === 1 ? " row)" : " rows)");
      this.render();
    }

    scheduleRender() {
      if (this.pending || this.view.length <= ALL_ROWS_LIMIT) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.render();
      });
    }

    rowHtml(row, index) {
      const key = this.opts.rowKey ? this.opts.rowKey(row) : String(index);
      const rc = this.opts.rowClass ? this.opts.rowClass(row) : "";
      const act = this.opts.onActivate ? ' tabindex="0"' : "";
      let h = '<tr data-i="' + index + '" data-key="' + OP.esc(key) + '" aria-rowindex="' + (index + 2) + '"' +
        (rc ? ' class="' + OP.esc(rc) + '"' : "") + act + ">";
      for (const c of this.columns) {
        const v = this.valueOf(c, row);
        const cls = (c.num ? "num" : "") + (c.cls ? " " + (c.cls(row) || "") : "");
        const content = c.html ? c.html(row) : OP.esc(c.fmt ? c.fmt(v, row) : v === null || v === undefined ? "—" : v);
        const tip = c.tip ? c.tip(v, row) : null; /* the cell's hover text, e.g. why it is "—" */
        h += '<td data-col="' + OP.esc(c.key) + '" data-v="' + (v === null || v === undefined ? "" : OP.esc(v)) + '"' +
          (cls.trim() ? ' class="' + OP.esc(cls.trim()) + '"' : "") + (tip ? ' title="' + OP.esc(tip) + '"' : "") + ">" + content + "</td>";
      }
      return h + "</tr>";
    }

    render() {
      const n = this.view.length;
      const ncol = this.columns.length;
      if (n === 0) {
        this.tbody.innerHTML = '<tr><td class="empty" colspan="' + ncol + '">' + OP.esc(this.opts.empty || "No rows.") + "</td></tr>";
        return;
      }
      let first = 0, last = n;
      if (n > ALL_ROWS_LIMIT) {
        const headH = this.table.tHead.offsetHeight + (this.table.caption ? this.table.caption.offsetHeight : 0);
        const top = Math.max(0, this.el.scrollTop - headH);
        const height = this.el.clientHeight || 600;
        first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
        last = Math.min(n, Math.ceil((top + height) / ROW_H) + OVERSCAN);
      }
      let h = "";
      if (first > 0) h += '<tr class="spacer" aria-hidden="true"><td colspan="' + ncol + '" style="height:' + first * ROW_H + 'px"></td></tr>';
      for (let i = first; i < last; i++) h += this.rowHtml(this.view[i], i);
      if (last < n) h += '<tr class="spacer" aria-hidden="true"><td colspan="' + ncol + '" style="height:' + (n - last) * ROW_H + 'px"></td></tr>';
      this.tbody.innerHTML = h;
    }

    activate(e) {
      if (!this.opts.onActivate) return;
      if (e.target.closest("a, button")) return;
      const tr = e.target.closest("tr[data-i]");
      if (!tr) return;
      e.preventDefault();
      this.opts.onActivate(this.view[Number(tr.dataset.i)]);
    }
  }

  OP.Table = Table;
  OP.ROW_H = ROW_H;
})();
