#!/usr/bin/env node
/* xss-test.mjs — the dashboard in Debian's headless Chromium over a hostile database (issue 34,
 * finding 3: a session name holding a script read the token the dashboard keeps in
 * localStorage). The server (DASHBOARD_URL) serves tests/e2e/make-hostile-db's file, where every
 * text is markup naming its field. On the session list, every tab of a session and the compare
 * page it checks that:
 *   - the markup shows as text (the page's text holds the payload's own characters);
 *   - no payload ran (window.xss stays unset) and none became an element (no img[src=x], no
 *     inline script);
 *   - nothing even tried: no Content-Security-Policy refusal in the console (the policy is the
 *     second line of defence; the first is escaping);
 * and that every answer carries the Content-Security-Policy header.
 * Exit: 0 pass, 1 fail, 77 without Chromium. */
import fs from "node:fs";
import path from "node:path";
import { openChromiumPage, pageTest } from "./cdp.mjs";

const t = pageTest();
const { check } = t;

/* page: the hash to open, and fields whose payload text must show there */
const PAGES = [
  ["#/", ["session-name", "session-name-2"]],
  ["#/session/1", ["task", "task-2"]],
  ["#/session/1/functions", ["function", "function-2"]],
  ["#/session/1/isrs", ["isr"]],
  ["#/session/1/services", ["service"]],
  ["#/session/1/points", ["point"]],
  ["#/session/1/data", ["variable"]],
  ["#/session/1/cores", ["core"]],
  ["#/session/1/flame", []],
  ["#/session/1/anomalies", ["anomaly-kind"]],
  ["#/compare/1/2", ["task"]],
];

async function main() {
  const chromium = t.chromium();
  const base = t.baseUrl("DASHBOARD_URL");
  for (const p of ["/", "/static/app.js", "/api/sessions"]) {
    const res = await fetch(base + p);
    const csp = res.headers.get("content-security-policy") || "";
    check(csp.includes("script-src 'self'") && !csp.includes("script-src 'self' 'unsafe-inline'"),
          "GET " + p + " carries a Content-Security-Policy without inline scripts", csp);
  }

  const { cdp, sessionId, S } = await openChromiumPage(chromium, t.newProfile("xss-chromium-"), "1280,1000");
  const refusals = []; /* console and log lines about the policy refusing something */
  cdp.on((m) => {
    if (m.sessionId !== sessionId) return;
    const text = m.method === "Log.entryAdded" ? m.params.entry.text :
      m.method === "Runtime.consoleAPICalled" ? m.params.args.map((a) => a.value ?? a.description).join(" ") : "";
    if (/Content Security Policy/i.test(text)) refusals.push(text);
  });
  await S("Runtime.enable");
  await S("Log.enable");
  await S("Page.enable");
  /* what the payloads went for: a token in localStorage */
  await S("Page.addScriptToEvaluateOnNewDocument", { source: "localStorage.setItem('orti-profd-token-probe', 'secret')" });
  const evaluate = async (expr) => {
    const r = await S("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error("evaluate: " + r.exceptionDetails.text);
    return r.result.value;
  };
  await S("Page.navigate", { url: base + "/" });
  for (const [hash, fields] of PAGES) {
    await evaluate("location.hash = " + JSON.stringify(hash));
    /* wait for the page to show data: the payloads' own text appears */
    const want = fields.map((f) => "push('" + f + "')");
    const end = Date.now() + 45000;
    let text = "";
    while (Date.now() < end) {
      text = await evaluate("document.body.innerText");
      if (text.includes("onerror=") && want.every((w) => text.includes(w))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    check(text.includes("onerror="), hash + ": the markup shows as text", text.slice(0, 300));
    for (const w of want) check(text.includes(w), hash + ": " + w + " shows as text");
    /* let anything that was going to load or run do so (an img error fires at once) */
    await new Promise((r) => setTimeout(r, 300));
    const ran = await evaluate("JSON.stringify(window.xss || null)");
    check(ran === "null", hash + ": no payload ran", ran);
    const injected = await evaluate("document.querySelectorAll('img[src=\"x\"], script:not([src]), [onerror]').length");
    check(injected === 0, hash + ": no payload became an element", injected);
  }
  check(refusals.length === 0, "no payload even tried to run (no policy refusal)", refusals.slice(0, 3).join(" | "));
  await S("Page.captureScreenshot", { format: "png" }).then((r) => {
    const dir = process.env.TEST_ARTIFACT_DIR || "/tmp";
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "dashboard-xss.png"), Buffer.from(r.data, "base64"));
  });
}

await t.run(main);
