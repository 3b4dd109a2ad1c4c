/* cdp.mjs — what the dashboard's browser tests share: finding and starting programs (the
 * children are kept for the caller's cleanup), and a DevTools protocol client over a minimal
 * WebSocket client on node:http (so it runs on Debian's nodejs 18 as well as newer ones). */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

/* every child startAndWait spawned, for the caller to stop */
export const children = [];

export function which(cmd) {
  if (cmd.includes("/")) return fs.existsSync(cmd) ? cmd : null;
  for (const dir of (process.env.PATH || "").split(":")) {
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch (e) { /* next */ }
  }
  return null;
}

function killGroup(child, sig) {
  try {
    process.kill(-child.pid, sig);
  } catch (e) { /* the group is gone */ }
}

/* Stop every child and the processes it forked (SIGTERM, SIGKILL after 5 s; a browser's
 * renderer and GPU helpers still write to its profile after the browser itself exited),
 * then remove dir (the browser profile; null for none). Returns what could not be removed,
 * or null: scratch under TMPDIR, reported, never a test failure. */
export async function stopChildren(dir) {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once("exit", r));
      killGroup(c, "SIGTERM");
      const timer = setTimeout(() => killGroup(c, "SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    }
    killGroup(c, "SIGKILL");
  }
  if (!dir) return null;
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    return null;
  } catch (e) {
    return e.message;
  }
}

/* Spawn a child and resolve with the first stream match of re. */
export function startAndWait(cmd, args, stream, re, what) {
  return new Promise((resolve, reject) => {
    /* its own process group: stopChildren ends the helpers a browser forks as well */
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.push(child);
    let buf = "";
    const timer = setTimeout(() => reject(new Error(what + ": no start within 60 s; output: " + buf.slice(-2000))), 60000);
    child[stream].setEncoding("utf8");
    child[stream].on("data", (d) => {
      buf += d;
      const m = buf.match(re);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(what + " exited with " + code + ": " + buf.slice(-2000)));
    });
    if (stream === "stdout") child.stderr.on("data", (d) => process.stderr.write("[" + what + "] " + d));
    else child.stdout.resume();
  });
}

/* ---------- WebSocket (RFC 6455) client: just what the DevTools protocol needs ---------- */
class MiniWebSocket {
  /* Resolves once the upgrade succeeded; onmessage(text) gets each complete text message. */
  static connect(url, onmessage) {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      const key = crypto.randomBytes(16).toString("base64");
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search,
        headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key } });
      req.on("upgrade", (res, socket, head) => {
        const want = crypto.createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
        if (res.headers["sec-websocket-accept"] !== want) return reject(new Error("websocket: bad Sec-WebSocket-Accept"));
        resolve(new MiniWebSocket(socket, head, onmessage));
      });
      req.on("response", (res) => reject(new Error("websocket: upgrade refused, HTTP " + res.statusCode)));
      req.on("error", reject);
      req.end();
    });
  }
  constructor(socket, head, onmessage) {
    this.socket = socket;
    this.onmessage = onmessage;
    this.buf = head && head.length ? Buffer.from(head) : Buffer.alloc(0);
    this.parts = [];
    socket.setNoDelay(true);
    socket.on("data", (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
    });
    socket.on("error", () => {});
    this.parse();
  }
  parse() {
    for (;;) {
      const b = this.buf;
      if (b.length < 2) return;
      const fin = (b[0] & 0x80) !== 0, op = b[0] & 0x0f, masked = (b[1] & 0x80) !== 0;
      let len = b[1] & 0x7f, off = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        len = Number(b.readBigUInt64BE(2));
        off = 10;
      }
      const maskOff = off;
      if (masked) off += 4;
      if (b.length < off + len) return;
      let payload = b.subarray(off, off + len);
      if (masked) {
        payload = Buffer.from(payload);
        for (let i = 0; i < payload.length; i++) payload[i] ^= b[maskOff + (i & 3)];
      }
      this.buf = b.subarray(off + len);
      if (op === 0x8) { /* close */
        this.socket.end();
        return;
      }
      if (op === 0x9) this.frame(0xa, payload); /* ping → pong */
      else if (op === 0x1 || op === 0x2 || op === 0x0) {
        this.parts.push(Buffer.from(payload));
        if (fin) {
          const text = Buffer.concat(this.parts).toString("utf8");
          this.parts = [];
          this.onmessage(text);
        }
      }
    }
  }
  frame(op, payload) {
    const len = payload.length;
    const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
    head[0] = 0x80 | op;
    if (len < 126) head[1] = 0x80 | len;
    else if (len < 65536) {
      head[1] = 0x80 | 126;
      head.writeUInt16BE(len, 2);
    } else {
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(len), 2);
    }
    const mask = crypto.randomBytes(4);
    const body = Buffer.from(payload);
    for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
    this.socket.write(Buffer.concat([head, mask, body]));
  }
  send(text) {
    this.frame(0x1, Buffer.from(text, "utf8"));
  }
  close() {
    this.socket.destroy();
  }
}

/* ---------- DevTools protocol client ---------- */
export class Cdp {
  static async connect(url) {
    const cdp = new Cdp();
    cdp.ws = await MiniWebSocket.connect(url, (text) => cdp.dispatch(JSON.parse(text)));
    return cdp;
  }
  constructor() {
    this.nextId = 1;
    this.pending = new Map();
    this.handlers = [];
  }
  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(p.method + ": " + msg.error.message));
      else p.resolve(msg.result);
    } else for (const h of this.handlers) h(msg);
  }
  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.ws.send(JSON.stringify(msg));
    });
  }
  on(fn) {
    this.handlers.push(fn);
  }
}

/* Start headless Chromium with its profile in userDir and open one blank page: the client, the
 * page's session id and S(method, params), which sends to that page. The browser is one of
 * children (stopChildren ends it). */
export async function openChromiumPage(chromium, userDir, windowSize = "1280,1000") {
  const { match } = await startAndWait(chromium, [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
    "--user-data-dir=" + userDir, "--remote-debugging-port=0", "--window-size=" + windowSize, "about:blank",
  ], "stderr", /DevTools listening on (ws:\/\/\S+)/, "chromium");
  const cdp = await Cdp.connect(match[1]);
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  return { cdp, sessionId, S: (method, params) => cdp.send(method, params, sessionId) };
}

/* What a page test's script shares (xss-test, fleet-test): t.check(ok, what, detail) prints an
 * "ok"/"FAIL" line and counts failures; t.chromium() is the browser's path, or the script exits
 * 77 (skipped) without one; t.baseUrl(env) is the server's address from that variable, with no
 * trailing slash; t.newProfile(prefix) makes the browser profile's folder; t.run(main) runs main
 * (a throw is one more failure), stops every child, removes the profile, and exits 0 when no
 * check failed, 1 otherwise. */
export function pageTest() {
  let failures = 0;
  let userDir = null;
  const log = (...a) => console.log(...a);
  const t = {
    log,
    check(ok, what, detail) {
      if (ok) log("ok   " + what);
      else {
        failures++;
        log("FAIL " + what + (detail === undefined ? "" : ": " +
            (typeof detail === "string" ? detail : JSON.stringify(detail))));
      }
      return ok;
    },
    chromium() {
      const name = process.env.CHROMIUM || "chromium";
      const found = which(name);
      if (!found) {
        log("SKIP: " + name + " not installed (apt-get install chromium)");
        process.exit(77);
      }
      return found;
    },
    baseUrl(env) {
      const url = (process.env[env] || "").replace(/\/+$/, "");
      if (!url) throw new Error(env + " is not set");
      return url;
    },
    newProfile(prefix) {
      userDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      return userDir;
    },
    async run(main) {
      try {
        await main();
      } catch (e) {
        failures++;
        log("FAIL " + (e.stack || e.message));
      }
      const left = await stopChildren(userDir);
      if (left) log("# could not remove the browser profile: " + left);
      log(failures ? failures + " failed" : "all passed");
      process.exit(failures ? 1 : 0);
    },
  };
  return t;
}
