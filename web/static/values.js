/* values.js — OP.ValueChart: a data variable's value over time (seed 002 §2.3) on a <canvas>,
 * from GET …/data/values (docs/rest-api.md): a step line through the changes, and where the
 * server answered per bucket a shaded band from each bucket's smallest to largest value. The
 * value held at the window's start comes first (its change may lie before the window). */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const H = 160, LEFT = 70, TOP = 8, BOTTOM = 22;

  class ValueChart {
    constructor() {
      this.el = document.createElement("div");
      this.el.className = "canvaswrap values";
      this.canvas = document.createElement("canvas");
      this.canvas.className = "values";
      this.canvas.setAttribute("role", "img");
      this.el.append(this.canvas);
      this.series = null;
      this.drawn = 0; /* points drawn by the last drawing (tests read it) */
      this.onResize = () => this.draw();
      window.addEventListener("resize", this.onResize);
    }

    /* How many points the chart can show: one per two pixels of plot. */
    wantPoints() {
      return Math.max(50, Math.floor(((this.el.clientWidth || 800) - LEFT) / 2));
    }

    setSeries(series) {
      this.series = series;
      this.draw();
    }

    draw() {
      const s = this.series;
      const W = Math.max(300, this.el.clientWidth || 800);
      const dpr = window.devicePixelRatio || 1;
      this.canvas.style.width = W + "px";
      this.canvas.style.height = H + "px";
      this.canvas.width = Math.round(W * dpr);
      this.canvas.height = Math.round(H * dpr);
      const g = this.canvas.getContext("2d");
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      const style = getComputedStyle(document.body);
      const muted = style.getPropertyValue("--muted").trim() || "#777";
      g.font = "11px system-ui, sans-serif";
      g.fillStyle = muted;
      this.drawn = 0;
      if (!s || !s.points || s.points.length === 0) {
        g.fillText("No changes in this window.", LEFT, H / 2);
        this.canvas.setAttribute("aria-label", "No values");
        return;
      }
      const pts = s.points;
      const t0 = s.from_us, t1 = Math.max(s.to_us, t0 + 1e-6);
      let lo = Infinity, hi = -Infinity;
      for (const p of pts) {
        lo = Math.min(lo, p.min, p.value);
        hi = Math.max(hi, p.max, p.value);
      }
      if (hi === lo) { hi += 1; lo -= 1; }
      const plotW = W - LEFT - 8, plotH = H - TOP - BOTTOM;
      const x = (t) => LEFT + ((Math.max(t0, Math.min(t1, t)) - t0) / (t1 - t0)) * plotW;
      const y = (v) => TOP + (1 - (v - lo) / (hi - lo)) * plotH;
      g.textBaseline = "middle";
      g.fillText(String(hi), 4, y(hi));
      g.fillText(String(lo), 4, y(lo));
      g.textBaseline = "alphabetic";
      g.fillText(OP.fmtTime(t0, t1 - t0), LEFT, H - 6);
      const endLabel = OP.fmtTime(t1, t1 - t0);
      g.fillText(endLabel, W - 8 - g.measureText(endLabel).width, H - 6);
      const color = OP.colorOf(s.variable, "task");
      if (s.bucket_us > 0) { /* per bucket: the range of values taken in it */
        g.fillStyle = color;
        g.globalAlpha = 0.3;
        for (const p of pts) {
          const xa = x(p.t_us), xb = x(p.t_us + s.bucket_us);
          g.fillRect(xa, y(p.max), Math.max(1, xb - xa), Math.max(1, y(p.min) - y(p.max)));
        }
        g.globalAlpha = 1;
      }
      g.strokeStyle = color;
      g.lineWidth = 2;
      g.beginPath();
      let px = x(pts[0].t_us), py = y(pts[0].value);
      g.moveTo(px, py);
      for (let i = 1; i < pts.length; i++) {
        const nx = x(pts[i].t_us), ny = y(pts[i].value);
        g.lineTo(nx, py); /* a step: the value holds until the next change */
        g.lineTo(nx, ny);
        px = nx;
        py = ny;
      }
      g.lineTo(x(t1), py);
      g.stroke();
      this.drawn = pts.length;
      this.canvas.setAttribute("aria-label", s.variable + ": " + s.count + " change(s) from " + OP.fmtTime(t0) + " to " + OP.fmtTime(t1) +
        ", values " + lo + " to " + hi + (s.bucket_us > 0 ? " (per bucket of " + OP.fmtTime(s.bucket_us) + ")" : ""));
    }

    destroy() {
      window.removeEventListener("resize", this.onResize);
    }
  }

  OP.ValueChart = ValueChart;
})();
