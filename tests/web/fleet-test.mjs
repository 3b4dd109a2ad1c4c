#!/usr/bin/env node
/* fleet-test.mjs — the fleet page (web/static/fleet.html, issue 30) in Debian's headless
 * Chromium against a server (FLEET_URL) of tests/e2e/test-fleet.sh's rig sessions: two builds,
 * build-A (normal) then build-B (run-rig --slow), FLEET_SESSIONS each, one bench, served with
 * a Task0 load budget between the two builds' loads. It checks, against the REST answers:
 *   - the dashboard's header links to the page, and the link opens it;
 *   - the benches table shows the one bench with its latest session; the latest sessions
 *     table the newest sessions, newest first;
 *   - Task0's load trend: both builds drawn with every session, build-B flagged (moved up:
 *     class `flagged`, ▲), build-A not; the build table agrees; build-B's budgets verdict
 *     marked as changed (◆ violation), build-A's not;
 *   - picking Task1 (more urgent, untouched by the slower build) redraws: neither flagged;
 *   - pfp_inner_load's max (the function the slower build slowed): build-B flagged;
 *   - no script error or console error on the way.
 * A screenshot goes to TEST_ARTIFACT_DIR (or TMPDIR). Exit: 0 pass, 1 fail, 77 without Chromium. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChromiumPage, pageTest } from "./cdp.mjs";

const t = pageTest();
const { check } = t;
const N = Number(process.env.FLEET_SESSIONS || 10);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const chromium = t.chromium();
  const base = t.baseUrl("FLEET_URL");
  const get = async (p) => (await fetch(base + p)).json();
  const fleet = await get("/api/fleet");
  const trend0 = await get("/api/fleet/trend?task=Task0&metric=load");

  const { cdp, sessionId, S } = await openChromiumPage(chromium, t.newProfile("fleet-chromium-"), "1280,1400");
  const errors = [];
  cdp.on((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.exceptionThrown") errors.push(m.params.exceptionDetails.exception?.description || m.params.exceptionDetails.text);
    if (m.method === "Runtime.consoleAPICalled" && m.params.type === "error") errors.push(m.params.args.map((a) => a.value ?? a.description).join(" "));
    if (m.method === "Log.entryAdded" && m.params.entry.level === "error") errors.push(m.params.entry.text);
  });
  await S("Runtime.enable");
  await S("Log.enable");
  await S("Page.enable");
  const evaluate = async (expr) => {
    const r = await S("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error("evaluate: " + r.exceptionDetails.text + " in " + expr);
    return r.result.value;
  };
  const waitFor = async (expr, what, ms = 20000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      /* a page being replaced (a link followed) has no context to evaluate in for a moment */
      if (await evaluate(expr).catch(() => false)) return true;
      await sleep(100);
    }
    check(false, what + " (waited " + ms + " ms)");
    return false;
  };

  /* the dashboard links to the page, and the link opens it */
  await S("Page.navigate", { url: base + "/#/" });
  await waitFor("!!document.querySelector('header nav a[href=\"/static/fleet.html\"]')", "the dashboard's header links to the fleet page");
  await waitFor("document.querySelectorAll('#view table tbody tr').length > 0", "the session list shows");
  await evaluate("document.querySelector('header nav a[href=\"/static/fleet.html\"]').click()");
  await waitFor("location.pathname === '/static/fleet.html' && document.body.dataset.ready === '1'", "the link opens the fleet page");

  /* benches and latest sessions */
  const benches = await evaluate("[...document.querySelectorAll('#benches tbody tr')].map((r) => r.innerText)");
  check(benches.length === 1 && fleet.benches.length === 1, "one bench", benches);
  const b = fleet.benches[0];
  check(benches[0].includes(b.target) && benches[0].includes("#" + b.latest_session) && benches[0].includes("build-B"),
        "the bench row names its target, its latest session #" + b.latest_session + " and its build", benches[0]);
  check(b.sessions === 2 * N && b.builds === 2, "the bench has " + 2 * N + " sessions of 2 builds", b);
  const latest = await evaluate("[...document.querySelectorAll('#latest tbody tr')].map((r) => Number(r.dataset.session))");
  check(latest.length === Math.min(20, 2 * N) && latest[0] === 2 * N && latest.every((v, i) => i === 0 || v < latest[i - 1]),
        "the latest sessions, newest first", latest);

  /* Task0's load: build-B flagged, build-A not; every session drawn */
  const chart = async () => evaluate(`[...document.querySelectorAll('#trend-chart g.build')].map((g) => ({
      build: g.dataset.build, flagged: g.classList.contains('flagged'), move: g.dataset.move,
      verdictChanged: g.classList.contains('verdict-changed'), sessions: g.querySelectorAll('g.session circle').length,
      text: g.textContent }))`);
  const rows = async () => evaluate(`[...document.querySelectorAll('#trend-table tbody tr')].map((r) => ({
      build: r.dataset.build, flagged: r.dataset.flagged, text: r.innerText }))`);
  await S("Page.navigate", { url: base + "/static/fleet.html?task=Task0&metric=load" });
  await waitFor("document.body.dataset.ready === '1' && document.querySelectorAll('#trend-chart g.build').length === 2",
                "Task0's load trend drawn with two builds");
  let c = await chart();
  check(c.map((x) => x.build).join() === "build-A,build-B", "the builds in session order", c.map((x) => x.build));
  check(c.every((x) => x.sessions === N) && c.reduce((s, x) => s + x.sessions, 0) >= 20,
        "every session drawn (" + N + " a build, 20 or more in all)", c.map((x) => x.sessions));
  const cb = c.find((x) => x.build === "build-B"), ca = c.find((x) => x.build === "build-A");
  check(cb && cb.flagged && cb.move === "up" && cb.text.includes("▲"), "the slower build-B is flagged (moved up)", cb);
  check(ca && !ca.flagged, "build-A is not flagged", ca);
  check(trend0.builds[1].flagged === true && trend0.builds[0].flagged === false, "the API says the same", trend0.builds.map((x) => x.flagged));
  check(trend0.builds[1].median_low > trend0.builds[0].high, "build-B's loads lie above build-A's", [trend0.builds[0].high, trend0.builds[1].median_low]);
  check(cb && cb.verdictChanged && cb.text.includes("◆ violation") && ca && !ca.verdictChanged,
        "build-B's budgets verdict marked as changed (violation), build-A's not", [ca, cb]);
  let r = await rows();
  check(r.length === 2 && r[1].build === "build-B" && r[1].flagged === "true" && r[0].flagged === "false",
        "the build table flags build-B only", r);
  const med = (v) => new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(v);
  check(r.length === 2 && r[0].text.includes(med(trend0.builds[0].median)) && r[1].text.includes(med(trend0.builds[1].median)),
        "the build table shows the medians the API gives", r.map((x) => x.text));
  check(await evaluate("document.getElementById('trend-rule').innerText.includes('widened')"), "the page states the rule");
  const dir = process.env.TEST_ARTIFACT_DIR || os.tmpdir();
  fs.mkdirSync(dir, { recursive: true });
  const shot = await S("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
  fs.writeFileSync(path.join(dir, "fleet-task0-load.png"), Buffer.from(shot.data, "base64"));

  /* Task1: untouched by the slower build, flagged on neither */
  await evaluate("const s = document.getElementById('trend-object'); s.value = 'task:Task1'; s.dispatchEvent(new Event('change'))");
  await waitFor("location.search.includes('task=Task1') && [...document.querySelectorAll('#trend-chart g.build')].every((g) => g.dataset.move !== 'up') && document.querySelector('#trend-chart svg').getAttribute('aria-label').includes('Task1')",
                "Task1's trend drawn");
  c = await chart();
  check(c.length === 2 && c.every((x) => !x.flagged) && c[1].move === "steady", "Task1: no build flagged (build-B steady)", c);

  /* pfp_inner_load's max: the function the slower build slowed */
  await evaluate(`const o = document.getElementById('trend-object'); o.value = 'function:pfp_inner_load';
                  const m = document.getElementById('trend-metric'); m.value = 'max'; m.dispatchEvent(new Event('change'))`);
  await waitFor("document.querySelector('#trend-chart svg').getAttribute('aria-label').includes('pfp_inner_load max')",
                "pfp_inner_load's max drawn");
  c = await chart();
  check(c.length === 2 && c[1].flagged && c[1].move === "up" && !c[0].flagged, "pfp_inner_load max: build-B flagged, build-A not", c);
  check(errors.length === 0, "no script or console errors", errors.slice(0, 5));
}

await t.run(main);
