/* timeline.js — OP.Timeline: the Gantt chart of tasks and ISR2s per core, and the CPU load chart.
 *
 * Both draw on <canvas>. The view (from, to in µs) changes by wheel, the buttons, dragging and the
 * keyboard; every change redraws at once from the data in hand and, debounced, asks the server
 * for the visible window (GET …/timeline?from=&to=&max_points=), aborting the previous request.
 * The answer is either raw slices (level -1: one bar per slice) or buckets (busy time per task
 * and bucket: drawn as a bar whose height is the bucket's occupancy). The load chart bins the
 * same answer into columns and stacks the tasks' share of the cores' time; when the tasks' loads
 * carry error bounds (a sampled source: setLoadBounds), a shaded band around the stack's top
 * shows the 99 % interval (the sum of the tasks' bounds, as a share of the cores).
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const LABEL_W = 150; /* px of lane labels left of the plot */
  const AXIS_H = 22; /* px of time axis above the lanes */
  const LANE_H = 18;
  const CORE_H = 18; /* core heading row */
  const LOAD_H = 130;
  const DEBOUNCE_MS = 150;

  /* Colours: a name's hue is a function of the name alone (FNV-1a of its UTF-16 code units,
   * spread over the circle by the golden angle), so a task keeps its colour on every chart,
   * in every session and after a reload, whatever other names were seen first. Two names may
   * get close hues; the legend and the tooltips name them. */
  const darkScheme = window.matchMedia("(prefers-color-scheme: dark)");
  const hues = new Map();
  function hueOf(name) {
    let h = hues.get(name);
    if (h === undefined) {
      let x = 0x811c9dc5;
      for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 0x01000193) >>> 0;
      h = Math.round(((x % 4096) * 137.508 + 210) % 360);
      hues.set(name, h);
    }
    return h;
  }
  /* ISRs darker (lighter on a dark background) than tasks. */
  OP.colorOf = function (name, kind) {
    const h = hueOf(String(name));
    if (kind === "isr") return "hsl(" + h + ",70%," + (darkScheme.matches ? "68%" : "36%") + ")";
    return "hsl(" + h + ",62%,60%)";
  };

  /* Time in µs as a short label with a unit fitting the magnitude. */
  OP.fmtTime = function (us, span) {
    if (us === null || us === undefined || !isFinite(us)) return "—";
    const ref = Math.abs(span === undefined ? us : span);
    if (ref >= 1e6) return (us / 1e6).toFixed(ref >= 1e7 ? 2 : 3) + " s";
    if (ref >= 1e3) return (us / 1e3).toFixed(ref >= 1e4 ? 2 : 3) + " ms";
    return us.toFixed(ref >= 10 ? 1 : 3) + " µs";
  };

  /* Axis label for t: unit chosen by the visible span, decimals by the tick step. */
  function axisLabel(t, step, span) {
    const [scale, unit] = span >= 1e6 ? [1e6, " s"] : span >= 1e3 ? [1e3, " ms"] : [1, " µs"];
    const decimals = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / scale) - 1e-9)));
    return (t / scale).toFixed(decimals) + unit;
  }

  function niceStep(span, target) {
    const raw = span / target;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  function setupCanvas(canvas, cssW, cssH) {
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = cssW + "px";
    canvas.style.height = cssH + "px";
    if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
      canvas.width = Math.round(cssW * dpr);
      canvas.height = Math.round(cssH * dpr);
    }
    const g = canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    return g;
  }

  /* opts: {fetchWindow(from|null, to|null, maxPoints, signal) -> Promise<timeline answer>,
   *        onSliceClick(item, tUs) (optional), onStatus(text) (optional)} */
  class Timeline {
    constructor(opts) {
      this.opts = opts;
      this.extent = null; /* [from, to] of the whole session */
      this.view = null; /* [from, to] shown */
      this.data = null; /* last answer */
      this.lanes = new Map(); /* key -> {core, kind, value, name} */
      this.laneOrder = [];
      this.cores = [];
      this.seq = 0;
      this.abort = null;
      this.timer = 0;
      this.drag = null;
      this.bound = 0; /* half-width of the load band, share of all cores (0: none) */
      this.loadCore = null; /* the load chart shows this core only (null: all cores) */
      this.loadBand = { half: 0, bins: 0 }; /* what the last drawing shaded (tests read it) */
      this.build();
    }

    /* The tasks' load bounds (task_stats rows): the band is their sum, in points of one core,
     * spread over the cores; unknown (null) and exact (0) bounds add nothing. */
    setLoadBounds(tasks) {
      let sum = 0;
      for (const t of tasks || []) if (typeof t.load_bound_percent === "number" && isFinite(t.load_bound_percent)) sum += t.load_bound_percent;
      this.bound = sum / 100;
      if (this.data) this.drawLoad();
    }

    build() {
      const el = (this.el = document.createElement("div"));
      el.className = "timeline";
      el.innerHTML =
        '<div class="toolbar" role="toolbar" aria-label="Timeline zoom">' +
        '<button type="button" data-act="in" aria-label="Zoom in">+</button>' +
        '<button type="button" data-act="out" aria-label="Zoom out">−</button>' +
        '<button type="button" data-act="left" aria-label="Pan left">◀</button>' +
        '<button type="button" data-act="right" aria-label="Pan right">▶</button>' +
        '<button type="button" data-act="reset">Whole session</button>' +
        '<span class="range" aria-live="polite"></span><span class="mode"></span></div>' +
        '<div class="canvaswrap gantt"><canvas class="gantt" tabindex="0" role="img"></canvas><div class="tip" role="tooltip" hidden></div></div>' +
        '<h3 class="sub">CPU load (per task) of <select class="load-core" aria-label="Load of which core">' +
        '<option value="">all cores</option></select></h3>' +
        '<div class="canvaswrap load"><canvas class="load" role="img"></canvas></div>' +
        '<ul class="legend" aria-label="Task colours"></ul>';
      this.canvas = el.querySelector("canvas.gantt");
      this.loadCanvas = el.querySelector("canvas.load");
      this.tip = el.querySelector(".tip");
      this.rangeEl = el.querySelector(".range");
      this.modeEl = el.querySelector(".mode");
      this.legendEl = el.querySelector(".legend");
      this.loadCoreEl = el.querySelector("select.load-core");
      this.loadCoreEl.addEventListener("change", () => {
        const v = this.loadCoreEl.value;
        this.loadCore = v === "" ? null : Number(v);
        if (this.data) this.drawLoad();
      });
      this.canvas.setAttribute("aria-label", "Timeline of tasks and ISRs per core. Keys: arrows pan, plus and minus zoom, 0 shows the whole session.");
      el.querySelector(".toolbar").addEventListener("click", (e) => {
        const b = e.target.closest("button");
        if (!b) return;
        const act = b.dataset.act;
        if (act === "in") this.zoom(0.5);
        else if (act === "out") this.zoom(2);
        else if (act === "left") this.pan(-0.2);
        else if (act === "right") this.pan(0.2);
        else if (act === "reset" && this.extent) this.setView(this.extent[0], this.extent[1]);
      });
      const c = this.canvas;
      c.addEventListener("wheel", (e) => {
        if (!this.view) return;
        e.preventDefault();
        const d = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
        this.zoom(Math.exp(d * 0.002), this.timeAt(e.offsetX));
      }, { passive: false });
      c.addEventListener("pointerdown", (e) => {
        if (!this.view || e.button !== 0) return;
        c.setPointerCapture(e.pointerId);
        this.drag = { x: e.offsetX, y: e.offsetY, view: this.view.slice(), moved: false };
      });
      c.addEventListener("pointermove", (e) => {
        if (this.drag) {
          const dx = e.offsetX - this.drag.x;
          if (Math.abs(dx) > 3) this.drag.moved = true;
          if (this.drag.moved) {
            const [a, b] = this.drag.view;
            const dt = (-dx / this.plotW()) * (b - a);
            this.setView(a + dt, b + dt);
          }
          return;
        }
        this.hover(e.offsetX, e.offsetY);
      });
      c.addEventListener("pointerup", (e) => {
        const d = this.drag;
        this.drag = null;
        if (d && !d.moved) this.click(e.offsetX, e.offsetY);
      });
      c.addEventListener("pointerleave", () => (this.tip.hidden = true));
      c.addEventListener("keydown", (e) => {
        const k = e.key;
        if (k === "ArrowLeft") this.pan(-0.1);
        else if (k === "ArrowRight") this.pan(0.1);
        else if (k === "+" || k === "=") this.zoom(0.5);
        else if (k === "-" || k === "_") this.zoom(2);
        else if (k === "0" && this.extent) this.setView(this.extent[0], this.extent[1]);
        else return;
        e.preventDefault();
      });
      this.resizeObs = new ResizeObserver(() => {
        const w = this.cssW();
        if (w !== this.lastW) {
          this.lastW = w;
          this.draw();
          if (this.view) this.schedule();
        }
      });
      this.resizeObs.observe(el);
      /* canvas colours come from CSS variables: redraw when the colour scheme flips */
      this.scheme = darkScheme;
      this.onScheme = () => {
        this.draw();
        this.updateLegend();
      };
      this.scheme.addEventListener("change", this.onScheme);
    }

    destroy() {
      this.scheme.removeEventListener("change", this.onScheme);
      this.resizeObs.disconnect();
      if (this.abort) this.abort.abort();
      clearTimeout(this.timer);
    }

    cssW() {
      return Math.max(300, Math.floor(this.el.clientWidth || 800));
    }
    plotW() {
      return this.cssW() - LABEL_W - 8;
    }
    timeAt(x) {
      const [a, b] = this.view;
      return a + ((x - LABEL_W) / this.plotW()) * (b - a);
    }
    xOf(t) {
      const [a, b] = this.view;
      return LABEL_W + ((t - a) / (b - a)) * this.plotW();
    }

    /* The session's extent from a whole-session answer: the span its items, gaps and anomalies
     * cover inside [from_us, to_us] (the answer's bounds may start at tick 0 long before the
     * first slice), or the bounds when there are none; null when the answer has no bounds. */
    static extentOf(ans) {
      if (ans.from_us === null || ans.to_us === null || !isFinite(ans.from_us) || !isFinite(ans.to_us)) return null;
      let lo = Infinity, hi = -Infinity;
      for (const it of ans.items || []) {
        lo = Math.min(lo, it.start_us);
        hi = Math.max(hi, it.end_us);
      }
      for (const g of ans.gaps || []) {
        lo = Math.min(lo, g.start_us);
        hi = Math.max(hi, g.end_us);
      }
      for (const a of ans.anomalies || []) {
        lo = Math.min(lo, a.ts_us);
        hi = Math.max(hi, a.ts_us);
      }
      lo = Math.max(lo, ans.from_us);
      hi = Math.min(hi, ans.to_us);
      if (!(hi > lo)) [lo, hi] = [ans.from_us, ans.to_us];
      return [lo, hi > lo ? hi : lo + 1];
    }

    /* Show the whole session from answer ans; ask again when the data covers only part of the
     * answer's window (then finer buckets fit the visible part). */
    wholeFrom(ans, ext) {
      this.extent = ext;
      this.view = ext.slice();
      this.accept(ans);
      if (ext[1] - ext[0] < 0.9 * (ans.to_us - ans.from_us)) this.schedule();
    }

    /* Load the whole session once to learn its extent, then follow the view. */
    async start() {
      this.setMode("loading…");
      const ans = await this.request(null, null);
      if (!ans) return;
      const ext = Timeline.extentOf(ans);
      if (!ext) {
        this.setMode("no timeline data in this session");
        return;
      }
      this.wholeFrom(ans, ext);
    }

    /* Re-read the extent (live sessions grow) keeping the view when it was not the whole. */
    async refreshExtent() {
      const ans = await this.request(null, null);
      const ext = ans && Timeline.extentOf(ans);
      if (!ext) return;
      const whole = !this.view || (this.view[0] <= this.extent[0] && this.view[1] >= this.extent[1]);
      if (whole) this.wholeFrom(ans, ext);
      else {
        this.extent = ext;
        this.schedule();
      }
    }

    async request(from, to) {
      if (this.abort) this.abort.abort();
      const ctl = (this.abort = new AbortController());
      const seq = ++this.seq;
      const maxPoints = Math.max(100, Math.round(this.plotW() / 2));
      try {
        const ans = await this.opts.fetchWindow(from, to, maxPoints, ctl.signal);
        if (seq !== this.seq) return null;
        return ans;
      } catch (err) {
        if (err.name === "AbortError" || seq !== this.seq) return null;
        this.setMode("timeline unavailable: " + err.message);
        return null;
      }
    }

    setView(a, b) {
      if (!this.extent) return;
      const [ea, eb] = this.extent;
      let span = Math.min(b - a, eb - ea);
      span = Math.max(span, Math.min(1, eb - ea)); /* at most 1 µs wide at full zoom */
      if (a < ea) a = ea;
      if (a + span > eb) a = eb - span;
      this.view = [a, a + span];
      this.draw();
      this.schedule();
    }

    zoom(factor, center) {
      if (!this.view) return;
      const [a, b] = this.view;
      const c = center === undefined ? (a + b) / 2 : center;
      this.setView(c - (c - a) * factor, c + (b - c) * factor);
    }

    pan(frac) {
      if (!this.view) return;
      const [a, b] = this.view;
      this.setView(a + frac * (b - a), b + frac * (b - a));
    }

    schedule() {
      clearTimeout(this.timer);
      this.timer = setTimeout(async () => {
        const [a, b] = this.view;
        const ans = await this.request(a, b);
        if (ans) this.accept(ans);
      }, DEBOUNCE_MS);
    }

    accept(ans) {
      this.data = ans;
      for (const it of ans.items) {
        const key = it.core + "|" + it.kind + "|" + it.value;
        if (!this.lanes.has(key)) {
          this.lanes.set(key, { core: it.core, kind: it.kind, value: it.value, name: it.name, key });
          this.laneOrder = [...this.lanes.values()].sort((x, y) =>
            x.core - y.core || (x.kind === y.kind ? 0 : x.kind === "task" ? -1 : 1) || x.value - y.value);
          this.cores = [...new Set(this.laneOrder.map((l) => l.core))];
          for (const l of this.laneOrder) OP.colorOf(l.name, l.kind); /* colours in lane order */
          this.updateLoadCores();
        }
      }
      const raw = ans.level === -1;
      this.setMode(raw ? ans.items.length + " slices" : "buckets of " + OP.fmtTime(ans.bucket_us) + " (level " + ans.level + ")");
      this.draw();
      this.updateLegend();
    }

    setMode(text) {
      this.modeEl.textContent = text;
    }

    layout() {
      /* y of each lane and core heading */
      const rows = [];
      let y = AXIS_H;
      const laneY = new Map();
      const coreY = new Map();
      for (const core of this.cores) {
        coreY.set(core, [y, 0]);
        rows.push({ head: true, core, y });
        y += CORE_H;
        for (const l of this.laneOrder) {
          if (l.core !== core) continue;
          laneY.set(l.key, y);
          rows.push({ lane: l, y });
          y += LANE_H;
        }
        coreY.get(core)[1] = y;
      }
      return { rows, laneY, coreY, height: Math.max(y + 6, AXIS_H + 60) };
    }

    draw() {
      const W = this.cssW();
      const L = (this.lay = this.layout());
      const g = setupCanvas(this.canvas, W, L.height);
      const style = getComputedStyle(this.el);
      const fg = style.getPropertyValue("--fg").trim() || "#222";
      const muted = style.getPropertyValue("--muted").trim() || "#777";
      const grid = style.getPropertyValue("--grid").trim() || "#e4e4e4";
      g.clearRect(0, 0, W, L.height);
      g.font = "12px system-ui, sans-serif";
      g.textBaseline = "middle";
      if (!this.view) {
        g.fillStyle = muted;
        g.fillText("Loading timeline…", LABEL_W, AXIS_H + 20);
        this.drawLoad();
        return;
      }
      const [va, vb] = this.view;
      this.rangeEl.textContent = OP.fmtTime(va, vb - va) + " – " + OP.fmtTime(vb, vb - va) + " (span " + OP.fmtTime(vb - va) + ")";
      /* axis and grid */
      const step = niceStep(vb - va, Math.max(2, this.plotW() / 110));
      g.strokeStyle = grid;
      g.fillStyle = muted;
      g.lineWidth = 1;
      for (let t = Math.ceil(va / step) * step; t <= vb; t += step) {
        const x = Math.round(this.xOf(t)) + 0.5;
        g.beginPath();
        g.moveTo(x, AXIS_H - 5);
        g.lineTo(x, L.height);
        g.stroke();
        const label = axisLabel(t, step, vb - va);
        const tw = g.measureText(label).width;
        if (x + 3 + tw <= W) g.fillText(label, x + 3, AXIS_H / 2);
      }
      /* lane labels and separators */
      for (const r of L.rows) {
        if (r.head) {
          g.fillStyle = fg;
          g.font = "bold 12px system-ui, sans-serif";
          g.fillText("Core " + r.core, 6, r.y + CORE_H / 2);
          g.font = "12px system-ui, sans-serif";
        } else {
          g.fillStyle = r.lane.kind === "isr" ? muted : fg;
          const label = (r.lane.kind === "isr" ? "ISR " : "") + r.lane.name;
          g.fillText(label.length > 20 ? label.slice(0, 19) + "…" : label, 14, r.y + LANE_H / 2);
          g.strokeStyle = grid;
          g.beginPath();
          g.moveTo(LABEL_W, r.y + LANE_H - 0.5);
          g.lineTo(W, r.y + LANE_H - 0.5);
          g.stroke();
        }
      }
      g.save();
      g.beginPath();
      g.rect(LABEL_W, 0, W - LABEL_W, L.height);
      g.clip();
      const d = this.data;
      if (d) {
        const raw = d.level === -1;
        const bucket = d.bucket_us || 1;
        for (const it of d.items) {
          if (it.end_us < va || it.start_us > vb) continue;
          const y = L.laneY.get(it.core + "|" + it.kind + "|" + it.value);
          if (y === undefined) continue;
          const x1 = this.xOf(it.start_us);
          const x2 = this.xOf(it.end_us);
          g.fillStyle = OP.colorOf(it.name, it.kind);
          if (raw) {
            g.fillRect(x1, y + 2, Math.max(1, x2 - x1), LANE_H - 4);
            if (it.flags & 6) { /* cut at a gap or session edge: dashed outline */
              g.setLineDash([2, 2]);
              g.strokeStyle = fg;
              g.strokeRect(x1 + 0.5, y + 2.5, Math.max(1, x2 - x1) - 1, LANE_H - 5);
              g.setLineDash([]);
            }
          } else {
            const occ = Math.max(0, Math.min(1, it.busy_us / bucket));
            const h = Math.max(1, (LANE_H - 4) * occ);
            g.fillRect(x1, y + LANE_H - 2 - h, Math.max(1, x2 - x1), h);
          }
        }
        /* gaps: hatched band over the core's lanes */
        for (const gp of d.gaps || []) {
          const cy = L.coreY.get(gp.core);
          const y0 = cy ? cy[0] : AXIS_H, y1 = cy ? cy[1] : L.height;
          const x1 = this.xOf(gp.start_us), x2 = Math.max(x1 + 2, this.xOf(gp.end_us));
          g.fillStyle = "rgba(120,120,120,0.35)";
          g.fillRect(x1, y0, x2 - x1, y1 - y0);
          g.strokeStyle = "rgba(60,60,60,0.7)";
          g.beginPath();
          for (let x = x1 - (y1 - y0); x < x2; x += 6) {
            g.moveTo(Math.max(x, x1), y1 - Math.max(0, x1 - x));
            g.lineTo(Math.min(x + (y1 - y0), x2), y0 + Math.max(0, x + (y1 - y0) - x2));
          }
          g.stroke();
        }
        /* anomalies: red line over the core's lanes and a triangle on the axis */
        for (const an of d.anomalies || []) {
          const cy = L.coreY.get(an.core);
          const x = Math.round(this.xOf(an.ts_us)) + 0.5;
          g.strokeStyle = "#d0021b";
          g.beginPath();
          g.moveTo(x, cy ? cy[0] : AXIS_H);
          g.lineTo(x, cy ? cy[1] : L.height);
          g.stroke();
          g.fillStyle = "#d0021b";
          g.beginPath();
          g.moveTo(x - 5, AXIS_H - 9);
          g.lineTo(x + 5, AXIS_H - 9);
          g.lineTo(x, AXIS_H - 1);
          g.closePath();
          g.fill();
        }
      }
      g.restore();
      this.drawLoad();
    }

    /* The load chart's core choices: all cores, then each core with lanes. */
    updateLoadCores() {
      const sel = this.loadCoreEl;
      const want = ["", ...this.cores.map(String)];
      if ([...sel.options].map((o) => o.value).join(",") === want.join(",")) return;
      const keep = sel.value;
      sel.innerHTML = '<option value="">all cores</option>' +
        this.cores.map((c) => '<option value="' + OP.esc(c) + '">core ' + OP.esc(c) + "</option>").join("");
      sel.value = want.includes(keep) ? keep : "";
    }

    drawLoad() {
      const W = this.cssW();
      const g = setupCanvas(this.loadCanvas, W, LOAD_H);
      const style = getComputedStyle(this.el);
      const muted = style.getPropertyValue("--muted").trim() || "#777";
      const grid = style.getPropertyValue("--grid").trim() || "#e4e4e4";
      g.clearRect(0, 0, W, LOAD_H);
      g.font = "11px system-ui, sans-serif";
      g.textBaseline = "middle";
      const top = 6, bottom = LOAD_H - 6, H = bottom - top;
      for (const p of [0, 50, 100]) {
        const y = Math.round(bottom - (p / 100) * H) + 0.5;
        g.strokeStyle = grid;
        g.beginPath();
        g.moveTo(LABEL_W, y);
        g.lineTo(W, y);
        g.stroke();
        g.fillStyle = muted;
        g.fillText(p + " %", LABEL_W - 40, y);
      }
      const d = this.data;
      if (!d || !this.view) return;
      const [va, vb] = this.view;
      /* columns of at least 4 px, and no narrower than the server's buckets */
      let nb = Math.floor(this.plotW() / 4);
      if (d.level !== -1 && d.bucket_us > 0) nb = Math.min(nb, Math.floor((vb - va) / d.bucket_us));
      nb = Math.max(10, nb);
      const bw = (vb - va) / nb;
      const one = this.loadCore; /* one core's load, or (null) the share of all cores */
      const ncores = one === null ? Math.max(1, this.cores.length) : 1;
      const series = new Map(); /* name|kind -> Float64Array of busy µs per bin */
      for (const it of d.items) {
        if (one !== null && it.core !== one) continue;
        const s0 = Math.max(it.start_us, va), s1 = Math.min(it.end_us, vb);
        if (s1 <= s0) continue;
        const span = it.end_us - it.start_us;
        const busy = d.level === -1 ? span : it.busy_us;
        if (!(span > 0) || !(busy > 0)) continue;
        const density = busy / span; /* busy µs per µs of the item's span */
        const key = it.name + "|" + it.kind;
        let arr = series.get(key);
        if (!arr) series.set(key, (arr = new Float64Array(nb)));
        let b0 = Math.floor((s0 - va) / bw), b1 = Math.min(nb - 1, Math.floor((s1 - va) / bw));
        for (let b = b0; b <= b1; b++) {
          const lo = Math.max(s0, va + b * bw), hi = Math.min(s1, va + (b + 1) * bw);
          if (hi > lo) arr[b] += (hi - lo) * density;
        }
      }
      const keys = [...series.keys()].sort();
      const acc = new Float64Array(nb);
      const colW = this.plotW() / nb;
      for (const key of keys) {
        const [name, kind] = key.split("|");
        const arr = series.get(key);
        g.fillStyle = OP.colorOf(name, kind);
        for (let b = 0; b < nb; b++) {
          if (!arr[b]) continue;
          const f0 = acc[b] / (bw * ncores), f1 = (acc[b] + arr[b]) / (bw * ncores);
          acc[b] += arr[b];
          const y0 = bottom - Math.min(1, f1) * H, y1 = bottom - Math.min(1, f0) * H;
          g.fillRect(LABEL_W + b * colW, y0, colW + 0.5, y1 - y0);
        }
      }
      /* the 99 % interval of the load around the stack's top (sampled sources); the tasks'
       * bounds are not split by core, so one core's chart has none */
      const half = one === null ? this.bound / ncores : 0;
      let banded = 0;
      if (half > 0) {
        g.fillStyle = darkScheme.matches ? "rgba(255,255,255,0.22)" : "rgba(0,0,0,0.18)";
        for (let b = 0; b < nb; b++) {
          if (!acc[b]) continue;
          const f = acc[b] / (bw * ncores);
          const y0 = bottom - Math.min(1, f + half) * H, y1 = bottom - Math.max(0, Math.min(1, f - half)) * H;
          g.fillRect(LABEL_W + b * colW, y0, colW + 0.5, y1 - y0);
          banded++;
        }
      }
      this.loadBand = { half, bins: banded };
      let total = 0;
      for (let b = 0; b < nb; b++) total += acc[b];
      this.loadCanvas.setAttribute("aria-label", "CPU load in the visible window: average " + ((100 * total) / (bw * nb * ncores)).toFixed(1) + " % of " +
        (one === null ? ncores + " core(s)" : "core " + one) +
        (half > 0 ? ", ± " + (100 * half).toFixed(2) + " points (99 % interval, shaded)" : ""));
    }

    updateLegend() {
      const names = new Map();
      for (const l of this.laneOrder) names.set(l.name + "|" + l.kind, l);
      let h = "";
      for (const l of names.values())
        h += '<li><span class="swatch" style="background:' + OP.colorOf(l.name, l.kind) + '"></span>' + (l.kind === "isr" ? "ISR " : "") + OP.esc(l.name) + "</li>";
      h += '<li><span class="swatch gap"></span>gap</li><li><span class="swatch anomaly"></span>anomaly</li>';
      this.legendEl.innerHTML = h;
    }

    /* What is under (x, y): {item} or {anomaly} or null. */
    hit(x, y) {
      const d = this.data, L = this.lay;
      if (!d || !L || x < LABEL_W) return null;
      if (y < AXIS_H) {
        for (const an of d.anomalies || []) if (Math.abs(this.xOf(an.ts_us) - x) <= 5) return { anomaly: an };
        return null;
      }
      const row = L.rows.find((r) => !r.head && y >= r.y && y < r.y + LANE_H);
      if (!row) return null;
      const t = this.timeAt(x);
      const slack = (2 * (this.view[1] - this.view[0])) / this.plotW();
      let best = null;
      for (const it of d.items) {
        if (it.core !== row.lane.core || it.kind !== row.lane.kind || it.value !== row.lane.value) continue;
        if (t >= it.start_us - slack && t <= it.end_us + slack) {
          best = it;
          if (t >= it.start_us && t <= it.end_us) break;
        }
      }
      return best ? { item: best, t } : null;
    }

    hover(x, y) {
      const h = this.hit(x, y);
      if (!h) {
        this.tip.hidden = true;
        return;
      }
      let text;
      if (h.anomaly) text = "Anomaly " + h.anomaly.kind + " on core " + h.anomaly.core + " at " + OP.fmtTime(h.anomaly.ts_us);
      else {
        const it = h.item;
        const who = (it.kind === "isr" ? "ISR " : "") + it.name + " (core " + it.core + ")";
        if (this.data.level === -1)
          text = who + ": " + OP.fmtTime(it.start_us) + " – " + OP.fmtTime(it.end_us) + ", " + OP.fmtTime(it.end_us - it.start_us) + (it.flags & 6 ? " (cut)" : "");
        else text = who + ": busy " + OP.fmtTime(it.busy_us) + " of " + OP.fmtTime(it.end_us - it.start_us) + ", " + it.count + " began";
      }
      this.tip.textContent = text;
      this.tip.hidden = false;
      const w = this.cssW();
      this.tip.style.left = Math.min(x + 12, w - 260) + "px";
      this.tip.style.top = y + 14 + "px";
    }

    click(x, y) {
      const h = this.hit(x, y);
      if (h && h.item && this.data.level === -1 && h.item.kind === "task" && this.opts.onSliceClick) this.opts.onSliceClick(h.item, h.t);
    }

    /* Centre the view on t with the given span (anomaly list → timeline). */
    focusAt(t, span) {
      if (!this.extent) return;
      this.setView(t - span / 2, t + span / 2);
      this.canvas.scrollIntoView({ block: "nearest" });
    }
  }

  OP.Timeline = Timeline;
})();
