/* flame.js — call tree and flame graph from folded stacks (GET …/flame?task=T).
 *
 * OP.buildTree turns [{stack: "Task;outer;inner", self_us}] into a tree whose nodes carry self and
 * total (self plus descendants) time. OP.CallTree shows it as nested <details> (keyboard and
 * screen-reader friendly; children are built only when a node is opened, so big trees stay
 * cheap). OP.FlameGraph draws it on a canvas, widest first; clicking a frame zooms into it.
 */
"use strict";
(function () {
  const OP = (window.OP = window.OP || {});
  const FRAME_H = 18;

  OP.buildTree = function (stacks, rootName) {
    const root = { name: rootName, self: 0, total: 0, children: new Map(), parent: null };
    for (const s of stacks) {
      const self = Number(s.self_us) || 0;
      let node = root;
      node.total += self;
      for (const part of String(s.stack).split(";")) {
        if (part === "") continue;
        let child = node.children.get(part);
        if (!child) node.children.set(part, (child = { name: part, self: 0, total: 0, children: new Map(), parent: node }));
        child.total += self;
        node = child;
      }
      node.self += self;
    }
    return root;
  };

  function sortedChildren(node) {
    return [...node.children.values()].sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1));
  }

  function pct(v, whole) {
    return whole > 0 ? ((100 * v) / whole).toFixed(1) + " %" : "—";
  }

  /* Fill container with the tree below root (root itself not shown). */
  OP.renderCallTree = function (container, root) {
    container.textContent = "";
    const head = document.createElement("div");
    head.className = "treehead";
    head.innerHTML = "<span>Function</span><span>Total</span><span>Self</span><span>Share</span>";
    container.append(head);
    const list = document.createElement("ul");
    list.className = "calltree";
    fill(list, root, root.total, 0);
    container.append(list);

    function fill(ul, node, whole, depth) {
      for (const ch of sortedChildren(node)) {
        const li = document.createElement("li");
        const line =
          '<span class="fn" style="padding-left:' + depth * 1.1 + 'em">' + OP.esc(ch.name) + "</span>" +
          '<span class="num">' + OP.fmtTime(ch.total) + '</span><span class="num">' + OP.fmtTime(ch.self) +
          '</span><span class="num">' + pct(ch.total, whole) + "</span>";
        if (ch.children.size) {
          const det = document.createElement("details");
          const sum = document.createElement("summary");
          sum.innerHTML = line;
          det.append(sum);
          det.addEventListener("toggle", () => {
            if (det.open && !det.dataset.filled) {
              det.dataset.filled = "1";
              const sub = document.createElement("ul");
              fill(sub, ch, whole, depth + 1);
              det.append(sub);
            }
          }, { once: false });
          li.append(det);
          if (depth === 0) det.open = true;
        } else {
          const leaf = document.createElement("div");
          leaf.className = "leaf";
          leaf.innerHTML = line;
          li.append(leaf);
        }
        ul.append(li);
      }
    }
  };

  class FlameGraph {
    constructor() {
      this.el = document.createElement("div");
      this.el.className = "flame";
      this.el.innerHTML =
        '<div class="toolbar"><button type="button" class="reset">Reset zoom</button> <span class="path" aria-live="polite"></span></div>' +
        '<div class="canvaswrap"><canvas role="img" aria-label="Flame graph: width is total time, callers below callees"></canvas><div class="tip" role="tooltip" hidden></div></div>';
      this.canvas = this.el.querySelector("canvas");
      this.tip = this.el.querySelector(".tip");
      this.pathEl = this.el.querySelector(".path");
      this.el.querySelector(".reset").addEventListener("click", () => this.zoomTo(this.root));
      this.canvas.addEventListener("mousemove", (e) => this.hover(e.offsetX, e.offsetY));
      this.canvas.addEventListener("mouseleave", () => (this.tip.hidden = true));
      this.canvas.addEventListener("click", (e) => {
        const f = this.frameAt(e.offsetX, e.offsetY);
        if (f) this.zoomTo(f.node);
      });
      this.frames = [];
      this.lastW = 0;
      this.resizeObs = new ResizeObserver(() => {
        const w = this.width();
        if (w !== this.lastW) {
          this.lastW = w;
          this.draw();
        }
      });
      this.resizeObs.observe(this.el);
    }

    width() {
      const wrap = this.el.querySelector(".canvaswrap");
      return Math.max(300, Math.floor(wrap.clientWidth || 800));
    }

    setTree(root) {
      this.root = root;
      this.zoomTo(root);
    }

    zoomTo(node) {
      this.focus = node;
      const names = [];
      for (let n = node; n; n = n.parent) names.unshift(n.name);
      this.pathEl.textContent = names.join(" › ");
      this.draw();
    }

    depthOf(node) {
      let d = 0;
      for (const ch of node.children.values()) d = Math.max(d, this.depthOf(ch));
      return d + 1;
    }

    draw() {
      if (!this.root) return;
      const W = this.width();
      const focus = this.focus;
      let above = 0;
      for (let n = focus.parent; n; n = n.parent) above++;
      const depth = this.depthOf(focus) + above;
      const H = depth * FRAME_H + 4;
      const dpr = window.devicePixelRatio || 1;
      this.canvas.style.width = W + "px";
      this.canvas.style.height = H + "px";
      this.canvas.width = Math.round(W * dpr);
      this.canvas.height = Math.round(H * dpr);
      const g = this.canvas.getContext("2d");
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.font = "12px system-ui, sans-serif";
      g.textBaseline = "middle";
      this.frames = [];
      const frame = (node, x, w, level) => {
        const y = H - (level + 1) * FRAME_H;
        g.fillStyle = node === this.root ? "#9aa5b1" : OP.colorOf(node.name, level === 1 ? "task" : "fn");
        g.fillRect(x, y, Math.max(0.5, w - 1), FRAME_H - 1);
        this.frames.push({ node, x, y, w });
        if (w > 30) {
          g.fillStyle = "#111";
          const label = node.name + " (" + OP.fmtTime(node.total) + ")";
          const max = Math.floor((w - 6) / 6.5);
          g.fillText(label.length > max ? label.slice(0, Math.max(1, max - 1)) + "…" : label, x + 3, y + FRAME_H / 2);
        }
      };
      /* ancestors of the focus: full width */
      const chain = [];
      for (let n = focus; n; n = n.parent) chain.unshift(n);
      chain.forEach((n, i) => { if (n !== focus) frame(n, 0, W, i); });
      const lay = (node, x, w, level) => {
        frame(node, x, w, level);
        if (node.total <= 0) return;
        let cx = x;
        for (const ch of sortedChildren(node)) {
          const cw = (w * ch.total) / node.total;
          if (cw >= 0.5) lay(ch, cx, cw, level + 1);
          cx += cw;
        }
      };
      lay(focus, 0, W, above);
    }

    frameAt(x, y) {
      for (const f of this.frames) if (x >= f.x && x < f.x + f.w && y >= f.y && y < f.y + FRAME_H) return f;
      return null;
    }

    hover(x, y) {
      const f = this.frameAt(x, y);
      if (!f) {
        this.tip.hidden = true;
        return;
      }
      this.tip.textContent = f.node.name + ": total " + OP.fmtTime(f.node.total) + ", self " + OP.fmtTime(f.node.self) +
        ", " + pct(f.node.total, this.root.total) + " of all";
      this.tip.hidden = false;
      this.tip.style.left = Math.min(x + 12, this.width() - 260) + "px";
      this.tip.style.top = y + 14 + "px";
    }
  }

  OP.FlameGraph = FlameGraph;
})();
