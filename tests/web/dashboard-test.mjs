#!/usr/bin/env node
/* dashboard-test.mjs — loads the dashboard in Debian's headless Chromium and checks it against
 * the REST API it talks to, through the DevTools protocol (our own minimal WebSocket client on
 * node:http, so it runs on Debian's nodejs 18 as well as newer ones).
 *
 * Checks: the session list shows every row of GET /api/sessions with the same values and sorts
 * on a header click; opening a session shows the rows and values of …/tasks; the timeline canvas
 * and the load chart drew (coloured pixels); zooming (wheel, the + button, the - key) and
 * dragging make the page request narrower, wider or shifted /timeline windows, the last one
 * being the window shown (seen on the DevTools network events, so this works against any
 * server); clicking a slice shows …/callstack; a running session's page follows /api/live and
 * re-reads its tables, a finished one's does not (the daemon's feed keeps naming the last session); the functions (with task filter), flame/call tree and anomaly tabs and
 * the compare page (regressions marked) show the API's rows; the ISR, service, profile point,
 * data and core tabs show the rows of their endpoints (ISR2s and services also per task), the
 * schedulability tab the analysis's tasks and ISRs with their slack bars, the
 * data tab charts the chosen variable's /data/values (a row click charts another); a null value
 * shows "—", never 0; a sampled session's loads carry "± bound" and the load chart a shaded
 * band; a 100,000-row table keeps only a
 * window of rows in the DOM; the dark scheme applies; no console errors, exceptions or failed
 * loads; with the fixtures also exact display text and the token prompt.
 * Screenshots (dashboard-*.png) go to $TEST_ARTIFACT_DIR (default /tmp).
 *
 * Environment:
 *   DASHBOARD_URL      base URL of a running server (e.g. the daemon: http://127.0.0.1:8080);
 *                      unset: start tests/web/serve-fixtures.py on a free port and also check
 *                      fixture-specific display text
 *   DASHBOARD_SESSION  session id to open (default: the first complete session with tasks)
 *   DASHBOARD_TOKEN    API token, when the server wants one
 *   CHROMIUM           browser binary (default: chromium)
 *   TEST_ARTIFACT_DIR  where screenshots go (default /tmp)
 * Exit: 0 pass, 1 fail, 77 when Chromium is not installed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openChromiumPage, startAndWait, stopChildren, which } from "./cdp.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = process.env.TEST_ARTIFACT_DIR || "/tmp";
const CHROMIUM = process.env.CHROMIUM || "chromium";
const TOKEN = process.env.DASHBOARD_TOKEN || "";
let userDir = null;
let failures = 0;

function log(...a) {
  console.log(...a);
}
function check(ok, what, detail) {
  if (ok) log("ok   " + what);
  else {
    failures++;
    log("FAIL " + what + (detail !== undefined ? ": " + detail : ""));
  }
  return ok;
}
/* Stop what we started (waiting for it to exit) and remove the browser profile. */
async function cleanup() {
  const left = await stopChildren(userDir);
  if (left) console.log("# could not remove the browser profile: " + left);
}
async function fatal(msg) {
  log("FAIL " + msg);
  await cleanup();
  process.exit(1);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const chromium = which(CHROMIUM);
  if (!chromium) {
    log("SKIP: " + CHROMIUM + " not installed (apt-get install chromium)");
    process.exit(77);
  }
  let base = process.env.DASHBOARD_URL;
  const fixtureMode = !base;
  if (fixtureMode) {
    const { match } = await startAndWait("python3", [path.join(HERE, "serve-fixtures.py"), "--port", "0"], "stdout", /LISTENING (http:\/\/[^\s]+)\//, "fixture server");
    base = match[1];
  }
  base = base.replace(/\/+$/, "");
  log("# dashboard at " + base + (fixtureMode ? " (fixture server)" : ""));

  const api = async (p) => {
    let res;
    try {
      res = await fetch(base + "/api" + p, { headers: TOKEN ? { Authorization: "Bearer " + TOKEN } : {} });
    } catch (e) {
      throw new Error("cannot reach " + base + "/api" + p + ": " + (e.cause ? e.cause.message : e.message));
    }
    if (!res.ok) throw new Error("GET /api" + p + ": " + res.status);
    return res.json();
  };
  const sessions = await api("/sessions");
  check(Array.isArray(sessions) && sessions.length > 0, "GET /api/sessions answers rows", JSON.stringify(sessions).slice(0, 200));
  const sid = process.env.DASHBOARD_SESSION ? Number(process.env.DASHBOARD_SESSION) :
    (sessions.find((s) => s.state === "complete" && s.tasks > 0) || sessions.find((s) => s.tasks > 0) || sessions[0]).id;
  const tasks = await api("/sessions/" + sid + "/tasks");
  const functions = await api("/sessions/" + sid + "/functions");
  const whole = await api("/sessions/" + sid + "/timeline?max_points=1");
  log("# session " + sid + ": " + tasks.length + " tasks, " + functions.length + " functions, timeline " + whole.from_us + " – " + whole.to_us + " µs");

  /* ---------- browser ---------- */
  userDir = fs.mkdtempSync(path.join(os.tmpdir(), "dash-chromium-"));
  const { cdp, sessionId, S } = await openChromiumPage(chromium, userDir, "1280,1000");

  const errors = [];
  const requests = []; /* URLs of requests the page made */
  cdp.on((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "assert"))
      errors.push("console." + m.params.type + ": " + m.params.args.map((a) => a.value !== undefined ? a.value : a.description).join(" "));
    else if (m.method === "Runtime.exceptionThrown")
      errors.push("exception: " + (m.params.exceptionDetails.exception ? m.params.exceptionDetails.exception.description : m.params.exceptionDetails.text));
    else if (m.method === "Log.entryAdded" && m.params.entry.level === "error")
      errors.push("log: " + m.params.entry.text + (m.params.entry.url ? " (" + m.params.entry.url + ")" : ""));
    else if (m.method === "Network.requestWillBeSent") requests.push(m.params.request.url);
  });
  await S("Runtime.enable");
  await S("Log.enable");
  await S("Network.enable");
  await S("Page.enable");
  await S("Emulation.setDeviceMetricsOverride", { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false });
  if (TOKEN) await S("Page.addScriptToEvaluateOnNewDocument", { source: "localStorage.setItem('orti-profd-token', " + JSON.stringify(TOKEN) + ")" });

  const evaluate = async (expr) => {
    const r = await S("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error("evaluate failed: " + (r.exceptionDetails.exception ? r.exceptionDetails.exception.description : r.exceptionDetails.text));
    return r.result.value;
  };
  // generous: a loaded 2-core machine (CI with a hog, chromium beside the build) renders
  // slowly; a wait that times out is a failure, so it must not be a race
  const waitFor = async (expr, what, ms = 45000) => {
    const end = Date.now() + ms;
    let v, err = "";
    while (Date.now() < end) {
      try { /* the page may be between documents: an error means "not yet" */
        v = await evaluate(expr);
        if (v) {
          log("ok   " + what);
          return v;
        }
      } catch (e) {
        err = " (last error: " + e.message + ")";
      }
      await sleep(100);
    }
    check(false, what, "timed out after " + ms + " ms" + err);
    return v;
  };
  const screenshot = async (name) => {
    const { data } = await S("Page.captureScreenshot", { format: "png" });
    const file = path.join(ARTIFACTS, name);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(file, Buffer.from(data, "base64"));
    log("# screenshot " + file);
  };
  /* Rows of a table rendered by OP.Table: [{key, cells: {col: {v, text}}}]. */
  const tableRows = (sel) => evaluate(`[...document.querySelectorAll(${JSON.stringify(sel + " tbody tr[data-key]")})].map(tr => ({key: tr.dataset.key,
      cells: Object.fromEntries([...tr.cells].map(td => [td.dataset.col, {v: td.dataset.v, text: td.textContent.trim()}]))}))`);
  const asData = (v) => (v === null || v === undefined ? "" : String(v));
  /* Every API row appears once, keyed by keyOf, and every shown column equals the API value. */
  const compareTable = (what, shown, apiRows, keyOf, skipValues) => {
    check(shown.length === apiRows.length, what + ": " + apiRows.length + " rows shown", "shown " + shown.length);
    let bad = 0;
    for (const row of apiRows) {
      const tr = shown.find((t) => t.key === keyOf(row));
      if (!tr) {
        bad++;
        log("     missing row " + keyOf(row));
        continue;
      }
      if (skipValues && skipValues(row)) continue;
      for (const [col, cell] of Object.entries(tr.cells)) {
        if (!(col in row)) continue;
        if (cell.v !== asData(row[col])) {
          bad++;
          log("     row " + keyOf(row) + " column " + col + ": shown " + JSON.stringify(cell.v) + ", API " + JSON.stringify(row[col]));
        }
        if (cell.text === "") {
          bad++;
          log("     row " + keyOf(row) + " column " + col + ": empty text");
        }
        if (row[col] === null && cell.text !== "—") { /* unknown is shown as unknown, never 0 */
          bad++;
          log("     row " + keyOf(row) + " column " + col + ": null shown as " + JSON.stringify(cell.text));
        }
      }
    }
    check(bad === 0, what + ": rows and values equal the API", bad + " mismatches");
  };
  const textOf = (shown, key, col) => {
    const r = shown.find((t) => t.key === key);
    return r && r.cells[col] ? r.cells[col].text : undefined;
  };

  /* ---------- session list ---------- */
  await S("Page.navigate", { url: base + "/#/" });
  await waitFor(`document.querySelectorAll('#sessions-table tbody tr[data-key]').length === ${sessions.length}`, "session list rendered");
  const srows = await tableRows("#sessions-table");
  compareTable("session list", srows, sessions, (r) => String(r.id), (r) => r.state === "running");
  if (fixtureMode) {
    check(textOf(srows, "1", "name") === "rig-nightly", "session 1 name shown", textOf(srows, "1", "name"));
    check(textOf(srows, "1", "duration_s") === "100.0 ms", "session 1 duration shown as 100.0 ms", textOf(srows, "1", "duration_s"));
    check(textOf(srows, "1", "dropped_events") === "49", "session 1 drops shown", textOf(srows, "1", "dropped_events"));
    check(textOf(srows, "2", "sample_rate_hz") === "3,210.5 Hz", "session 2 sample rate shown", textOf(srows, "2", "sample_rate_hz"));
    check(textOf(srows, "3", "name") === "bench <live>", "session 3 name escaped and shown", textOf(srows, "3", "name"));
    /* live feed: session 3's events grow past the list's value */
    await waitFor(`(() => { const td = document.querySelector('#sessions-table tr[data-key="3"] td[data-col="event_count"]');
      return td && Number(td.dataset.v) > ${sessions.find((s) => s.id === 3).event_count}; })()`, "live feed updates the running session", 5000);
  }
  await screenshot("dashboard-sessions.png");
  /* sorting by a header click */
  await evaluate(`document.querySelector('#sessions-table th[data-col="name"] button').click()`);
  const sorted = (await tableRows("#sessions-table")).map((r) => r.cells.name.v);
  const expectSorted = sessions.map((s) => String(s.name)).sort((a, b) => new Intl.Collator(undefined, { numeric: true, sensitivity: "base" }).compare(a, b));
  check(JSON.stringify(sorted) === JSON.stringify(expectSorted), "clicking Name sorts the list", JSON.stringify(sorted));
  check(await evaluate(`document.querySelector('#sessions-table th[data-col="name"]').getAttribute('aria-sort')`) === "ascending", "sorted header has aria-sort");

  /* ---------- one session ---------- */
  await evaluate(`document.querySelector('#sessions-table tr[data-key="${sid}"] td[data-col="name"] a').click()`);
  await waitFor(`document.querySelectorAll('#tasks-table tbody tr[data-key]').length === ${tasks.length}`, "task table rendered");
  const trows = await tableRows("#tasks-table");
  compareTable("task table", trows, tasks, (r) => r.task);
  if (fixtureMode) {
    check(textOf(trows, "Task_Comm", "load_percent") === "23.14 %", "Task_Comm load shown as 23.14 % (exact: no ±)", textOf(trows, "Task_Comm", "load_percent"));
    check(textOf(trows, "Task_Bg", "slice_avg_us") === "3,454.0", "Task_Bg slice average shown as 3,454.0", textOf(trows, "Task_Bg", "slice_avg_us"));
    check(trows[0].key === "Task_Comm", "task table sorted by load, highest first", trows[0].key);
    /* the budgets badge (session-1-check.json: one of three budgets violated) */
    const badge = await waitFor(`(() => { const b = document.querySelector('h1 .badge.budgets');
      return b && !b.hidden && b.textContent; })()`, "budgets badge shown", 5000);
    check(badge === "budgets: 1 violation", "budgets badge says 1 violation", badge);
    check(await evaluate(`document.querySelector('h1 .badge.budgets').classList.contains('violation')`),
          "budgets badge marked as a violation");
  }

  /* timeline drew */
  await waitFor(`/slices|buckets/.test(document.querySelector('.timeline .mode').textContent)`, "timeline answer drawn");
  /* Coloured (saturated) pixels right of x0 on a canvas: bars, not the grey grid and labels nor
   * the red anomaly markers. */
  const pixels = (sel, x0) => evaluate(`(() => { const c = document.querySelector(${JSON.stringify(sel)});
      const g = c.getContext('2d'); const d = g.getImageData(${x0}, 0, c.width - ${x0}, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3] > 128 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60 &&
            !(Math.abs(d[i] - 208) < 12 && d[i + 1] < 16 && Math.abs(d[i + 2] - 27) < 14)) n++; /* not the anomaly red */
      return {n, total: d.length / 4}; })()`);
  /* Items of the timeline's last answer inside the shown window: what must be on the canvas. */
  const inView = () => evaluate(`(() => { const tl = OP.page.timeline; const [a, b] = tl.view;
      return tl.data.items.filter(it => it.end_us > a && it.start_us < b).length; })()`);
  /* Bars drawn: some coloured pixels for every answer with items in view; with the fixtures
   * (dense) at least 2 % of the plot (the grid and labels alone are grey). */
  const checkBars = async (what, sel, minShare) => {
    const n = await inView();
    const p = await pixels(sel, 160);
    const need = fixtureMode ? p.total * minShare : Math.min(n, 20);
    check(p.n >= need && (n === 0 || p.n > 0), what, p.n + " coloured of " + p.total + " pixels, " + n + " items in view");
  };
  /* the feed names the running or else the last session: a finished session's page must not
   * follow it (with the daemon, the feed names this replayed, complete session) */
  const sessionState = sessions.find((s) => s.id === sid).state;
  if (sessionState !== "running") {
    await waitFor(`/^session |^idle$/.test(document.getElementById('live-status').textContent)`, "live feed connected");
    await sleep(600); /* at least one more feed event (every 500 ms) */
    check(await evaluate("document.querySelector('.livebox').hidden"), "a finished session's page shows no live box",
      await evaluate("document.getElementById('live-status').textContent + ' / ' + document.querySelector('.livebox').textContent"));
  }
  await checkBars("timeline canvas has coloured bars in the plot", "canvas.gantt", 0.02);
  await checkBars("load chart has coloured bars", "canvas.load", 0.05);
  /* the load chart of one core: one choice per core with lanes, the chart redrawn for it */
  const coreChoices = await evaluate("[...document.querySelectorAll('select.load-core option')].map((o) => o.value).join(',')");
  const laneCores = await evaluate("OP.page.timeline.cores.join(',')");
  check(coreChoices === "," + laneCores, "load chart offers all cores and each core", coreChoices + " / lanes " + laneCores);
  if (laneCores !== "") {
    const c0 = laneCores.split(",")[0];
    const whole = await evaluate("document.querySelector('canvas.load').getAttribute('aria-label')");
    await evaluate(`(() => { const s = document.querySelector('select.load-core'); s.value = ${JSON.stringify(c0)}; s.dispatchEvent(new Event('change')); })()`);
    const lbl = await evaluate("document.querySelector('canvas.load').getAttribute('aria-label')");
    check(lbl.includes("of core " + c0), "load chart of core " + c0 + " alone", lbl);
    if (fixtureMode && laneCores.includes(",")) check(lbl !== whole, "one core's load differs from all cores'", lbl + " / " + whole);
    await checkBars("load chart of one core has coloured bars", "canvas.load", 0.02);
    await evaluate(`(() => { const s = document.querySelector('select.load-core'); s.value = ""; s.dispatchEvent(new Event('change')); })()`);
  }
  await screenshot("dashboard-session.png");

  /* zoom: wheel on the canvas, then the + button; each later request is narrower */
  const windows = () => requests.filter((u) => u.includes("/sessions/" + sid + "/timeline")).map((u) => {
    const s = new URL(u).searchParams;
    return { from: s.has("from") ? Number(s.get("from")) : whole.from_us, to: s.has("to") ? Number(s.get("to")) : whole.to_us, max: Number(s.get("max_points")) };
  });
  const before = windows();
  check(before.length >= 1 && before.every((w) => w.max > 0), "timeline requested with max_points", JSON.stringify(before));
  await evaluate("document.querySelector('canvas.gantt').scrollIntoView({block: 'center'})");
  /* Where to point on the Gantt canvas: 40 % into the plot, in the first lanes. Measured again
   * before each pointer gesture, as the page may have moved since (a live box appearing). */
  const canvasPoint = async () => {
    const b = await evaluate(`(() => { const r = document.querySelector('canvas.gantt').getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; })()`);
    return { x: b.x + 150 + (b.w - 150) * 0.4, y: b.y + Math.min(b.h / 2, 40) };
  };
  let { x: cx, y: wy } = await canvasPoint();
  for (let i = 0; i < 3; i++) {
    await S("Input.dispatchMouseEvent", { type: "mouseWheel", x: cx, y: wy, deltaX: 0, deltaY: -250 });
    await sleep(30);
  }
  const span0 = whole.to_us - whole.from_us;
  let z1 = null;
  for (let end = Date.now() + 5000; Date.now() < end && !z1; await sleep(100))
    z1 = windows().slice(before.length).find((x) => x.to - x.from < span0 * 0.9 && x.from >= whole.from_us - 1e-6 && x.to <= whole.to_us + 1e-6) || null;
  check(!!z1, "wheel zoom requests a narrower window", JSON.stringify(windows()));
  const n1 = windows().length;
  await evaluate(`document.querySelector('.timeline button[data-act="in"]').click()`);
  let z2 = null;
  for (let end = Date.now() + 5000; Date.now() < end && !z2; await sleep(100)) {
    const w = windows().slice(n1);
    z2 = w.find((x) => z1 && x.to - x.from < (z1.to - z1.from) * 0.75) || null;
  }
  check(!!z2, "zoom button requests a narrower window still", JSON.stringify(windows().slice(n1)));
  if (fixtureMode) await waitFor(`/slices/.test(document.querySelector('.timeline .mode').textContent)`, "zoomed in, raw slices drawn");
  await sleep(400); /* past the debounce: the last request is for the view shown */
  const shown = await evaluate("OP.page.timeline.view");
  const asked = windows().slice(-1)[0];
  const near = (x, y) => Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(span0));
  check(near(shown[0], asked.from) && near(shown[1], asked.to), "the last /timeline request is the window shown", JSON.stringify({ shown, asked }));
  const label = await evaluate("document.querySelector('.timeline .range').textContent");
  check(/span/.test(label), "range label shows the window", label);
  /* clicking a task slice shows the calls open at that moment */
  const target = await evaluate(`(() => { const tl = OP.page && OP.page.timeline; if (!tl || !tl.data || tl.data.level !== -1) return null;
      const [a, b] = tl.view; const r = tl.canvas.getBoundingClientRect();
      const items = tl.data.items.filter(it => it.kind === 'task' && it.start_us >= a && it.end_us <= b && tl.xOf(it.end_us) - tl.xOf(it.start_us) > 6);
      const it = items.find(x => x.name === 'Task_Comm') || items[0]; if (!it) return null;
      const y = tl.lay.laneY.get(it.core + '|' + it.kind + '|' + it.value);
      return {name: it.name, x: r.left + (tl.xOf(it.start_us) + tl.xOf(it.end_us)) / 2, y: r.top + y + 9}; })()`);
  if (fixtureMode) check(target && target.name === "Task_Comm", "a Task_Comm slice is in the zoomed view", JSON.stringify(target));
  if (target) {
    const nreq = requests.length;
    await S("Input.dispatchMouseEvent", { type: "mousePressed", x: target.x, y: target.y, button: "left", buttons: 1, clickCount: 1 });
    await S("Input.dispatchMouseEvent", { type: "mouseReleased", x: target.x, y: target.y, button: "left", buttons: 0, clickCount: 1 });
    let url = null;
    for (let end = Date.now() + 3000; Date.now() < end && !url; await sleep(50)) url = requests.slice(nreq).find((u) => u.includes("/callstack?")) || null;
    if (check(!!url, "clicking a slice asks for its call stack", JSON.stringify(requests.slice(nreq)))) {
      const u = new URL(url);
      check(u.searchParams.get("task") === target.name, "call stack asked for the clicked task", url);
      const calls = await api(u.pathname.replace(/^\/api/, "") + u.search);
      if (calls.length) {
        await waitFor(`document.querySelectorAll('.callstack tbody tr[data-key]').length === ${calls.length}`, "call stack table rendered");
        compareTable("call stack", await tableRows(".callstack"), calls, (r) => String(r.depth));
      } else await waitFor(`!!document.querySelector('.callstack td.empty')`, "empty call stack shown");
      if (fixtureMode) check(calls.length >= 1 && calls[0].function === "Com_MainFunction", "fixture call stack starts with Com_MainFunction", JSON.stringify(calls));
    }
  }
  /* drag to the left shows later times */
  ({ x: cx, y: wy } = await canvasPoint());
  check(await evaluate(`document.elementFromPoint(${cx}, ${wy}) === document.querySelector('canvas.gantt')`), "drag starts on the timeline canvas");
  const n2 = windows().length;
  await S("Input.dispatchMouseEvent", { type: "mousePressed", x: cx, y: wy, button: "left", buttons: 1, clickCount: 1 });
  for (let i = 1; i <= 5; i++) await S("Input.dispatchMouseEvent", { type: "mouseMoved", x: cx - i * 40, y: wy, button: "left", buttons: 1 });
  await S("Input.dispatchMouseEvent", { type: "mouseReleased", x: cx - 200, y: wy, button: "left", buttons: 0, clickCount: 1 });
  let z3 = null;
  for (let end = Date.now() + 5000; Date.now() < end && !z3; await sleep(100)) z3 = windows().slice(n2).find((x) => z2 && x.from > z2.from) || null;
  check(!!z3 || (z2 && z2.to >= whole.to_us - 1e-6), "dragging pans the requested window", JSON.stringify(windows().slice(n2)));
  /* keyboard: "-" on the focused canvas zooms out */
  const last = windows().slice(-1)[0];
  const n3 = windows().length;
  await evaluate("document.querySelector('canvas.gantt').focus()");
  await S("Input.dispatchKeyEvent", { type: "keyDown", key: "-", code: "Minus", text: "-", windowsVirtualKeyCode: 189 });
  await S("Input.dispatchKeyEvent", { type: "keyUp", key: "-", code: "Minus", windowsVirtualKeyCode: 189 });
  let z4 = null;
  for (let end = Date.now() + 5000; Date.now() < end && !z4; await sleep(100)) z4 = windows().slice(n3).find((x) => x.to - x.from > (last.to - last.from) * 1.5) || null;
  check(!!z4, "the - key zooms out (wider window)", JSON.stringify(windows().slice(n3)));
  await sleep(400);
  await checkBars("timeline still drawn after zoom and pan", "canvas.gantt", 0.02);
  await screenshot("dashboard-zoomed.png");

  /* live mode: the running session's page shows the feed and re-reads its tables */
  const running = sessions.find((s) => s.state === "running");
  if (running) {
    await S("Page.navigate", { url: base + "/#/session/" + running.id });
    await waitFor(`(() => { const b = document.querySelector('.livebox'); return b && !b.hidden && /^Live: /.test(b.textContent); })()`, "live box shows the feed");
    const tasksReq = () => requests.filter((u) => u.includes("/sessions/" + running.id + "/tasks")).length;
    let again = false;
    for (let end = Date.now() + 8000; Date.now() < end && !again; await sleep(200)) again = tasksReq() >= 2;
    check(again, "live session's task table re-read", tasksReq() + " requests");
    const ev = await evaluate(`(() => { const d = document.querySelector('dd[data-field="Events"]'); return d ? Number(d.textContent.replace(/,/g, '')) : null; })()`);
    if (fixtureMode) check(ev > running.event_count, "live events shown on the session page", ev);
    await screenshot("dashboard-live.png");
  }

  /* functions tab */
  await S("Page.navigate", { url: base + "/#/session/" + sid + "/functions" });
  await waitFor(`document.querySelector('#functions-table caption .count') && /\\(${functions.length.toLocaleString("en-US")} rows?\\)/.test(document.querySelector('#functions-table caption .count').textContent)`, "function table rendered");
  const frows = await tableRows("#functions-table");
  if (functions.length <= 400) compareTable("function table", frows, functions, (r) => r.function + "@" + r.address);
  else check(frows.length > 0 && frows.length < functions.length, "function table renders a window of rows", frows.length);
  if (fixtureMode) {
    await evaluate(`(() => { const s = document.getElementById('fn-task'); s.value = 'Task_Comm'; s.dispatchEvent(new Event('change')); })()`);
    const expected = await api("/sessions/" + sid + "/functions?task=Task_Comm");
    await waitFor(`document.querySelectorAll('#functions-table tbody tr[data-key]').length === ${expected.length}`, "task filter narrows the function table");
    compareTable("function table for Task_Comm", await tableRows("#functions-table"), expected, (r) => r.function + "@" + r.address);
  }

  /* PC samples tab (DASHBOARD_SAMPLED_SESSION: a session recorded with --pc-sample): the flat
   * profile equals the endpoint, every share shows its ± (the larger side of the interval the
   * store holds), a column header sorts, and the task filter narrows it to that task's rows */
  const ssid = process.env.DASHBOARD_SAMPLED_SESSION ? Number(process.env.DASHBOARD_SAMPLED_SESSION) : null;
  if (ssid) {
    const sampled = await api("/sessions/" + ssid + "/sampled");
    check(sampled.length > 0, "the sampled session has a PC-sampled profile", sampled.length);
    const skey = (r) => r.core + "/" + r.context_kind + "/" + r.task + "/" + r.function + "@" + r.address;
    await S("Page.navigate", { url: base + "/#/session/" + ssid + "/sampled" });
    await waitFor(`document.querySelector('#sampled-table caption .count') && /\\(${sampled.length.toLocaleString("en-US")} rows?\\)/.test(document.querySelector('#sampled-table caption .count').textContent)`, "sampled table rendered");
    const srows = await tableRows("#sampled-table");
    if (sampled.length <= 400) compareTable("sampled table", srows, sampled, skey);
    const pm = srows.filter((r) => / ± /.test(r.cells.share_percent.text)).length;
    check(pm === srows.length, "every sampled share shows its ± interval", pm + " of " + srows.length);
    const top = sampled.reduce((a, b) => (b.samples > a.samples ? b : a));
    const wantPm = Math.max(top.share_percent - top.share_lo_percent, top.share_hi_percent - top.share_percent);
    const shownPm = Number(srows.find((r) => r.key === skey(top)).cells.share_pm.v);
    check(Math.abs(shownPm - wantPm) < 1e-9, "± points of the top row is the larger side of its interval", shownPm + " vs " + wantPm);
    await evaluate(`document.querySelector('#sampled-table th[data-col="function"] button').click()`);
    await waitFor(`document.querySelector('#sampled-table th[data-col="function"]').getAttribute('aria-sort') === 'ascending'`, "sampled table sorts by function");
    const byName = (await tableRows("#sampled-table")).map((r) => r.cells.function.text);
    check(byName.every((x, i) => i === 0 || byName[i - 1].localeCompare(x, undefined, { numeric: true, sensitivity: "base" }) <= 0),
      "sampled rows in function order after the click", byName.slice(0, 5).join(","));
    const task = sampled.find((r) => r.context_kind === "task");
    if (task) {
      await waitFor(`[...document.getElementById('sampled-task').options].some(o => o.value === ${JSON.stringify(task.task)})`, "task picker lists the sampled task");
      await evaluate(`(() => { const s = document.getElementById('sampled-task'); s.value = ${JSON.stringify(task.task)}; s.dispatchEvent(new Event('change')); })()`);
      const expected = await api("/sessions/" + ssid + "/sampled?task=" + encodeURIComponent(task.task));
      check(expected.length < sampled.length && expected.every((r) => r.task === task.task), "the endpoint's task filter keeps one task", expected.length);
      await waitFor(`document.querySelectorAll('#sampled-table tbody tr[data-key]').length === ${expected.length}`, "task filter narrows the sampled table");
      compareTable("sampled table for " + task.task, await tableRows("#sampled-table"), expected, skey);
    }
    /* measured beside sampled: a poll session measures no function, so the table stays hidden */
    const measured = await api("/sessions/" + ssid + "/sampled?by=measured");
    check(measured.length === 0, "a poll session has nothing measured to put beside its samples", measured.length);
    check(await evaluate(`document.getElementById('sampled-measured-table').hidden`), "the measured-vs-sampled table is hidden without rows");
    await sleep(300);
    const sfp = await pixels("#sampled-flame canvas", 0);
    check(sfp.n > sfp.total * 0.05, "the sampled flat flame view drew", sfp.n + " of " + sfp.total);
    await screenshot("dashboard-sampled.png");
  }

  /* flame graph and call tree */
  await S("Page.navigate", { url: base + "/#/session/" + sid + "/flame" });
  const stacks = await api("/sessions/" + sid + "/flame");
  if (stacks.length) {
    const top = [...new Set(stacks.map((s) => s.stack.split(";")[0]))].sort();
    await waitFor(`document.querySelectorAll('#calltree summary, #calltree .leaf').length > 0`, "call tree rendered");
    const shownTop = await evaluate(`[...document.querySelectorAll('#calltree > ul > li > details > summary .fn, #calltree > ul > li > .leaf .fn')].map(e => e.textContent).sort()`);
    check(JSON.stringify(shownTop) === JSON.stringify(top), "call tree's first level is the tasks of the folded stacks", JSON.stringify(shownTop));
    const fp = await pixels(".flame canvas", 0);
    check(fp.n > fp.total * 0.2, "flame graph drew", fp.n + " of " + fp.total);
  } else await waitFor(`!!document.querySelector('#calltree .empty')`, "empty call data explained");
  await screenshot("dashboard-flame.png");

  /* anomalies */
  const anomalies = await api("/sessions/" + sid + "/anomalies");
  await S("Page.navigate", { url: base + "/#/session/" + sid + "/anomalies" });
  await waitFor(`document.querySelector('#anomalies-table caption .count') && document.querySelector('#anomalies-table caption .count').textContent.includes('(${anomalies.length.toLocaleString("en-US")} row')`, "anomaly list rendered");
  if (anomalies.length && anomalies.length <= 400)
    compareTable("anomaly list", await tableRows("#anomalies-table"), anomalies, (r) => r.ts_us + "|" + r.kind + "|" + r.core);

  /* the per-ISR2, service, profile point and core tabs: each table equals its endpoint */
  const tabTables = [
    { tab: "isrs", tables: [["#isrs-table", "/isrs", (r) => r.isr], ["#isr-tasks-table", "/isrs/tasks", (r) => r.task + "|" + r.isr]] },
    { tab: "services", tables: [["#services-table", "/services", (r) => r.service], ["#service-tasks-table", "/services/tasks", (r) => r.task + "|" + r.service]] },
    { tab: "points", tables: [["#points-table", "/points", (r) => String(r.point_value)]] },
    { tab: "cores", tables: [["#cores-table", "/cores", (r) => String(r.core)],
                             ["#task-cores-table", "/task-cores", (r) => r.core + "|" + r.task_value],
                             ["#cross-core-table", "/cross-core", (r) => r.core + "|" + r.from_core]] },
  ];
  for (const { tab, tables } of tabTables) {
    await S("Page.navigate", { url: base + "/#/session/" + sid + "/" + tab });
    for (const [sel, ep, keyOf] of tables) {
      const rows = await api("/sessions/" + sid + ep);
      await waitFor(`document.querySelector('${sel} caption .count') && document.querySelector('${sel} caption .count').textContent.includes('(${rows.length.toLocaleString("en-US")} row')`,
                    tab + " tab: " + sel + " rendered");
      if (rows.length) compareTable(tab + " tab " + sel, await tableRows(sel), rows, keyOf);
      else check(await evaluate(`!!document.querySelector('${sel} td.empty')`), tab + " tab " + sel + ": empty explained");
      if (fixtureMode && tab === "points") {
        const shown = await tableRows(sel);
        check(textOf(shown, "0", "ema_us") === "—", "a point without alpha shows — for its exponential average", textOf(shown, "0", "ema_us"));
        check(textOf(shown, "1", "alpha") === "0.125", "the point's alpha is shown", textOf(shown, "1", "alpha"));
      }
      if (fixtureMode && tab === "isrs" && sel === "#isrs-table")
        check(textOf(await tableRows(sel), "Timer_ISR", "max_depth") === "2", "Timer_ISR nests at depth 2");
    }
    await screenshot("dashboard-" + tab + ".png");
  }

  /* schedulability: every task and ISR of the analysis with its bound, observed maximum,
   * deadline and slack (the bar: the bound's share of the deadline, the observed tick on it) */
  {
    const an = await api("/sessions/" + sid + "/analysis");
    const items = [];
    for (const c of an.cores) for (const it of c.items) items.push(Object.assign({ core: c.core }, it));
    await S("Page.navigate", { url: base + "/#/session/" + sid + "/analysis" });
    await waitFor(`document.querySelector('#analysis-table caption .count') && document.querySelector('#analysis-table caption .count').textContent.includes('(${items.length} row')`,
                  "schedulability tab rendered");
    compareTable("schedulability tab", await tableRows("#analysis-table"), items, (r) => r.core + "|" + r.kind + "|" + r.name);
    const bars = await evaluate(`[...document.querySelectorAll('#analysis-table .slackbar')].map(b => {
      const f = b.querySelector('.fill'), t = b.querySelector('.tick');
      return {key: b.closest('tr').dataset.key, fill: f ? parseFloat(f.style.width) : null, tick: t ? parseFloat(t.style.left) : null}; })`);
    let badBars = 0;
    for (const it of items) {
      const bar = bars.find((b) => b.key === it.core + "|" + it.kind + "|" + it.name);
      if (it.slack_us === null || !(it.deadline_us > 0)) continue;
      const want = (v) => Math.max(0, Math.min(100, (100 * v) / it.deadline_us));
      if (!bar || (it.bound_us !== null && Math.abs(bar.fill - want(it.bound_us)) > 0.06) ||
          (it.observed_us !== null && Math.abs(bar.tick - want(it.observed_us)) > 0.06)) {
        badBars++;
        log("     slack bar of " + it.name + ": " + JSON.stringify(bar));
      }
    }
    check(badBars === 0, "slack bars: the bound's and the observed maximum's share of the deadline", badBars + " wrong");
    const summary = await evaluate(`document.querySelector('#analysis-summary').textContent`);
    check(summary.includes(an.model_errors + " model errors") && an.cores.every((c) => summary.includes("core " + c.core + ": critical scaling factor")),
          "schedulability summary: scaling factor per core and the model errors", summary);
    await screenshot("dashboard-analysis.png");
  }

  /* a sampled session's ISR2 (fixture session 2, poll): what sampling cannot count is "—" with
   * the row's note on hover, its load and net total carry "± bound" */
  if (fixtureMode) {
    await S("Page.navigate", { url: base + "/#/session/2/isrs" });
    await waitFor(`!!document.querySelector('#isrs-table tr[data-key="SystemTimerIsr"]')`, "sampled ISR2 row rendered");
    const cell = (col) => evaluate(`(() => { const td = document.querySelector('#isrs-table tr[data-key="SystemTimerIsr"] td[data-col="${col}"]');
      return td ? {text: td.textContent.trim(), title: td.getAttribute('title')} : null; })()`);
    const [isr2] = await api("/sessions/2/isrs");
    const count = await cell("count"), avg = await cell("net_avg_us"), load = await cell("load_percent"), total = await cell("net_total_us");
    check(count && count.text === "—" && count.title === isr2.note, "a count sampling cannot give shows — with its reason on hover", JSON.stringify(count));
    check(avg && avg.text === "—" && avg.title === isr2.note, "so does a per-instance time", JSON.stringify(avg));
    check(load && /±/.test(load.text) && !load.title, "the ISR2's load carries its bound", JSON.stringify(load));
    check(total && /±/.test(total.text), "its net total carries its bound", JSON.stringify(total));
  }

  /* data: the variables, the chosen one's states and its value over time */
  const vars = await api("/sessions/" + sid + "/data");
  await S("Page.navigate", { url: base + "/#/session/" + sid + "/data" });
  await waitFor(`document.querySelector('#data-table caption .count') && document.querySelector('#data-table caption .count').textContent.includes('(${vars.length} row')`, "data tab rendered");
  if (vars.length) {
    compareTable("data variables", await tableRows("#data-table"), vars, (r) => r.variable);
    const first = vars.slice().sort((a, b) => String(a.variable).localeCompare(String(b.variable), undefined, { numeric: true, sensitivity: "base" }))[0];
    const states = await api("/sessions/" + sid + "/data/states?variable=" + encodeURIComponent(first.variable));
    await waitFor(`document.querySelectorAll('#data-states-table tbody tr[data-key]').length === ${states.length} && OP.page && document.querySelector('canvas.values')`,
                  "data tab: states of " + first.variable + " rendered");
    if (states.length) compareTable("states of " + first.variable, await tableRows("#data-states-table"), states, (r) => String(r.value));
    const asked = () => requests.filter((u) => u.includes("/data/values?"));
    let valuesUrl = null;
    for (let end = Date.now() + 3000; Date.now() < end && !valuesUrl; await sleep(50)) valuesUrl = asked().slice(-1)[0] || null;
    if (check(!!valuesUrl, "data tab asks for the variable's values", JSON.stringify(requests.slice(-5)))) {
      const u = new URL(valuesUrl);
      check(u.searchParams.get("variable") === first.variable, "values asked for " + first.variable, valuesUrl);
      const series = await api(u.pathname.replace(/^\/api/, "") + u.search);
      await sleep(200);
      const vp = await pixels("canvas.values", 70);
      check(series.points.length === 0 || vp.n > 0, "value chart drew " + series.points.length + " point(s)", vp.n + " coloured pixels");
      if (fixtureMode) check(series.points.length === 8 && vp.n > 100, "the traffic light's 8 changes are charted", series.points.length);
    }
    if (vars.length > 1) { /* a row click charts another variable */
      const other = vars.find((v) => v.variable !== first.variable);
      const n0 = asked().length;
      await evaluate(`document.querySelector('#data-table tr[data-key=${JSON.stringify(String(other.variable))}]').click()`);
      let again = null;
      for (let end = Date.now() + 3000; Date.now() < end && !again; await sleep(50))
        again = asked().slice(n0).find((x) => new URL(x).searchParams.get("variable") === other.variable) || null;
      check(!!again, "clicking " + other.variable + " charts it", JSON.stringify(asked().slice(n0)));
      const ostates = await api("/sessions/" + sid + "/data/states?variable=" + encodeURIComponent(other.variable));
      await waitFor(`document.querySelectorAll('#data-states-table tbody tr[data-key]').length === ${ostates.length}`, "states of " + other.variable + " shown");
      if (fixtureMode) check(ostates.length === 0 && await evaluate(`!!document.querySelector('#data-states-table td.empty')`),
                             "a regular variable has no per-value table, and says so");
    }
  } else check(await evaluate(`!!document.querySelector('#data-table td.empty')`), "data tab: no variables explained");
  await screenshot("dashboard-data.png");

  /* a sampled (poll) session: null activations as —, loads with ± bound, the band on the load chart */
  const polled = sessions.find((s) => (/^poll/.test(s.source_kind || "") || (s.source_kind === "replay" && typeof s.sample_rate_hz === "number")) &&
                                      s.tasks > 0 && s.state !== "running");
  if (polled) {
    const ptasks = await api("/sessions/" + polled.id + "/tasks");
    await S("Page.navigate", { url: base + "/#/session/" + polled.id });
    await waitFor(`document.querySelectorAll('#tasks-table tbody tr[data-key]').length === ${ptasks.length}`, "poll session's task table rendered");
    const prows = await tableRows("#tasks-table");
    compareTable("poll session's tasks", prows, ptasks, (r) => r.task);
    for (const t of ptasks) {
      const shown = textOf(prows, t.task, "load_percent");
      const want = typeof t.load_bound_percent === "number" ? (t.load_bound_percent > 0 ? " ± " : "") : " ± ?";
      if (want && !shown.includes(want)) check(false, t.task + " load shows its bound", shown);
    }
    if (fixtureMode) {
      check(textOf(prows, "Task_Comm", "load_percent") === "24.99 % ± 0.74", "Task_Comm load shown with its bound", textOf(prows, "Task_Comm", "load_percent"));
      check(textOf(prows, "Task_Comm", "activations") === "—", "a poll session's activations are —", textOf(prows, "Task_Comm", "activations"));
      check(textOf(prows, "Task_Bg", "preemptions") === "63 (+7?)", "possibly missed preemptions shown", textOf(prows, "Task_Bg", "preemptions"));
      /* no session-2-check.json: /check answers 404, as without --budgets, and no badge shows */
      await waitFor(`(() => OP.page && OP.page.key === "session:${polled.id}")()`, "poll session's page open");
      await sleep(300);
      check(await evaluate(`(() => { const b = document.querySelector('h1 .badge.budgets'); return !b || b.hidden; })()`),
            "no budgets badge when /check answers 404");
      check(await evaluate(`getComputedStyle(document.querySelector('h1 .badge.budgets') || document.body).display`) !== "inline-block",
            "a hidden budgets badge takes no room");
    }
    const bounded = ptasks.some((t) => typeof t.load_bound_percent === "number" && t.load_bound_percent > 0);
    const band = await waitFor(`(() => { const b = OP.page && OP.page.timeline && OP.page.timeline.loadBand; return b && (${bounded} ? b.bins > 0 && b.half > 0 : true) && b; })()`,
                               "the load chart's band matches the bounds", 8000);
    if (bounded && band) {
      const sum = ptasks.reduce((a, t) => a + (typeof t.load_bound_percent === "number" ? t.load_bound_percent : 0), 0);
      const ncores = await evaluate("Math.max(1, OP.page.timeline.cores.length)");
      check(Math.abs(band.half - sum / 100 / ncores) < 1e-9, "band half-width is the sum of the tasks' bounds", JSON.stringify(band));
    }
    await screenshot("dashboard-poll.png");
  }

  /* compare two sessions: the page shows GET /api/compare, the daemon's one rule (the document
   * `orti-profd diff --json` prints; test-cmd-check asserts they are equal): every measure,
   * and exactly the regressions the document states marked red */
  const other = sessions.find((s) => s.id !== sid && s.state !== "running");
  if (other) {
    const cmp = await api("/compare?a=" + sid + "&b=" + other.id);
    const rows = await evaluate(`OP.compareRows(${JSON.stringify(cmp)}).map(r => { const x = Object.assign({}, r); delete x.m; return x; })`);
    await S("Page.navigate", { url: base + "/#/compare/" + sid + "/" + other.id });
    await waitFor(`document.querySelectorAll('#compare-table tbody tr[data-key]').length === ${Math.min(rows.length, 400)} || (${rows.length} === 0 && !!document.querySelector('#compare-table td.empty'))`, "compare page lists every measure");
    if (rows.length <= 400) compareTable("compare", await tableRows("#compare-table"), rows, (r) => r.key, () => false);
    const want = rows.filter((r) => r.verdict === "regression").map((r) => r.key).sort();
    check(want.length === cmp.regressions, "the document's regressions are its regression metrics", want.length + " of " + cmp.regressions);
    const marked = await evaluate(`[...document.querySelectorAll('#compare-table tr.row-regress')].map(tr => tr.dataset.key).sort()`);
    if (rows.length <= 400) check(JSON.stringify(marked) === JSON.stringify(want), "the page marks exactly the diff's regressions", JSON.stringify(marked));
    const summary = await evaluate(`document.getElementById('compare-summary').textContent`);
    check(summary.startsWith(cmp.regressions + " regression(s) over " + cmp.threshold_percent + " %"), "summary states the diff's count and threshold", summary);
    if (fixtureMode) {
      check(marked.includes("task|Task_5ms|load_percent"), "Task_5ms's load is a regression", JSON.stringify(marked));
      const within = rows.filter((r) => r.verdict === "within bounds").map((r) => r.key);
      check(within.includes("isr|SystemTimerIsr|load_percent") && !marked.includes("isr|SystemTimerIsr|load_percent"),
            "a sampled increase within its bounds is shown so, not as a regression", JSON.stringify(within));
    }
    await screenshot("dashboard-compare.png");
  }

  /* dark colour scheme: the timeline redraws with the dark palette */
  await S("Page.navigate", { url: base + "/#/session/" + sid });
  await waitFor(`/slices|buckets/.test(document.querySelector('.timeline .mode').textContent)`, "timeline drawn again");
  await S("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "dark" }] });
  await sleep(300);
  const bg = await evaluate("getComputedStyle(document.body).backgroundColor");
  check(bg !== "rgb(246, 247, 249)", "dark scheme applies", bg);
  await screenshot("dashboard-dark.png");
  await S("Emulation.setEmulatedMedia", { features: [] });

  /* a task's colour is a function of its name: the same after a reload in which another name
   * was coloured first (it used to be the order names were first seen in) */
  const lane0 = await evaluate(`(() => { const li = document.querySelector('.timeline .legend li'); return li ? li.textContent.replace(/^ISR /, '') : null; })()`);
  const colour0 = await evaluate(`OP.colorOf(${JSON.stringify(lane0)}, 'task')`);
  await S("Page.navigate", { url: base + "/#/" });
  await S("Page.reload", {});
  await waitFor(`!!(window.OP && OP.colorOf) && document.readyState === 'complete'`, "dashboard reloaded");
  const colour1 = await evaluate(`(OP.colorOf('a name never seen before', 'task'), OP.colorOf(${JSON.stringify(lane0)}, 'task'))`);
  check(lane0 !== null && colour0 === colour1, "a task keeps its colour whatever was coloured first", lane0 + ": " + colour0 + ", then " + colour1);

  /* the whole-session view covers the data even when the answer's bounds start at tick 0 */
  const ids = await evaluate(`[OP.fmt.id(3), OP.fmt.id(3758096398), OP.fmt.id(65537), OP.fmt.id(null)].join(' ')`);
  check(ids === "3 0xe000000e 0x10001 —", "task and ISR values: small ones decimal, addresses and exception ids hex", ids);
  const ext = await evaluate(`JSON.stringify([OP.Timeline.extentOf({from_us: 0, to_us: 2e7, items: [{start_us: 1e7, end_us: 1.5e7}], gaps: [{start_us: 1.6e7, end_us: 1.7e7}], anomalies: []}),
      OP.Timeline.extentOf({from_us: 5, to_us: 9, items: [], gaps: [], anomalies: []}), OP.Timeline.extentOf({from_us: null, to_us: null, items: []})])`);
  check(ext === "[[10000000,17000000],[5,9],null]", "timeline extent is where the data is", ext);

  /* a 100,000-row table keeps a window of rows in the DOM and sorts */
  const big = await evaluate(`(() => {
      const rows = []; for (let i = 0; i < 100000; i++) rows.push({function: 'f' + i, address: 0x8000000 + 4 * i, count: (i * 7919) % 100003});
      const t = new OP.Table({caption: 'big', columns: [{key: 'function', label: 'Function'}, {key: 'count', label: 'Count', num: true}], rowKey: r => r.function});
      t.el.style.maxHeight = '400px'; document.body.append(t.el);
      let t0 = performance.now(); t.setRows(rows); const set = performance.now() - t0;
      t0 = performance.now(); t.sortBy('count'); const sort = performance.now() - t0;
      const first = t.el.querySelector('tbody tr[data-key] td[data-col="count"]').dataset.v;
      t.el.scrollTop = 50000 * ${26}; t.render();
      const mid = t.el.querySelectorAll('tbody tr[data-key]').length;
      const midKey = t.el.querySelector('tbody tr[data-key]').getAttribute('aria-rowindex');
      const n = t.el.querySelectorAll('tbody tr[data-key]').length; t.el.remove();
      return {set, sort, first, n, mid, midKey: Number(midKey)}; })()`);
  log("# 100k rows: setRows " + big.set.toFixed(0) + " ms, sort " + big.sort.toFixed(0) + " ms, " + big.n + " rows in DOM");
  check(big.n < 200 && big.n > 10, "100k-row table renders only a window", big.n);
  check(big.first === "100002", "100k-row table sorted descending by count", big.first);
  check(big.midKey > 49000 && big.midKey < 51000, "scrolled 100k-row table shows the rows at the scroll position", big.midKey);

  await sleep(300);
  /* a 404 from …/check is an answer (no budgets file for this session), not a failure; the
   * browser logs it all the same */
  const failures = errors.filter((e) => !/status of 404.*\/api\/sessions\/\d+\/check\b/.test(e));
  check(failures.length === 0, "no console errors, exceptions or failed loads", "\n     " + failures.join("\n     "));

  /* a server that wants a token: the dashboard asks for it once, then works (fixture mode only) */
  if (fixtureMode) {
    const { match: m2 } = await startAndWait("python3", [path.join(HERE, "serve-fixtures.py"), "--port", "0", "--token", "s3cret"], "stdout", /LISTENING (http:\/\/[^\s]+)\//, "token server");
    const base2 = m2[1].replace(/\/+$/, "");
    errors.length = 0;
    await S("Page.navigate", { url: base2 + "/#/" });
    await waitFor(`!!document.querySelector('form.token input')`, "401 asks for a token");
    await evaluate(`(() => { const f = document.querySelector('form.token'); f.querySelector('input').value = 's3cret'; f.requestSubmit(); })()`);
    await waitFor(`document.querySelectorAll('#sessions-table tbody tr[data-key]').length === ${sessions.length}`, "with the token the session list loads");
    await waitFor(`/running/.test(document.getElementById('live-status').textContent)`, "live feed connects with access_token");
    const unexpected = errors.filter((e) => !/status of 401/.test(e));
    check(unexpected.length === 0, "token flow: no errors besides the expected 401s", "\n     " + unexpected.join("\n     "));
    await evaluate("localStorage.removeItem('orti-profd-token')");
  }
  await Promise.race([cdp.send("Browser.close").catch(() => {}), sleep(2000)]);
  cdp.ws.close();
}

main().then(async () => {
  await cleanup();
  log(failures ? "# " + failures + " check(s) failed" : "# all checks passed");
  process.exit(failures ? 1 : 0);
}, (err) => fatal(err.stack || String(err)));
