#!/usr/bin/env python3
"""Development server for the dashboard: serves web/static/ at / and /static/, and answers the
REST paths of docs/rest-api.md from the JSON files in tests/web/fixtures/, so the dashboard can be
built and tested without the daemon. For development and tests only; the daemon is the real server.

Mapping (fixture names follow the endpoint paths):
  /api/sessions                       sessions.json
  /api/sessions/ID                    session-ID.json
  /api/sessions/ID/EP                 session-ID-EP.json          (tasks, functions, isrs, flame, ...)
  /api/sessions/ID/EP/SUB             session-ID-EP-SUB.json      (isrs/tasks, services/tasks, data/states)
  /api/sessions/ID/EP?task=T          session-ID-EP-task-T.json   (functions, flame, isrs, services)
  /api/sessions/ID/data/states?variable=V
                                      the rows of session-ID-data-states.json for variable V (name or id)
  /api/sessions/ID/data/values?variable=V&from=&to=&max_points=
                                      windowed from session-ID-data-values-V.json (every change of
                                      variable V, by name): the value held at `from`, then the raw
                                      changes when at most max_points fall in the window, else per
                                      bucket (max_points equal buckets) the last, min and max value
  /api/sessions/ID/timeline?from=&to=&max_points=
                                      windowed from session-ID-timeline.json (the raw answer for
                                      the whole session): raw slices when at most max_points begin
                                      in the window, else per-bucket busy time at the finest level
                                      (bucket width 10 us * 4^level) giving at most 1024 buckets
  /api/sessions/ID/callstack?task=T&t=US
                                      the calls in session-ID-calls-task-T.json open at t
  /api/compare?a=A&b=B                compare-A-B.json
  /api/live                           text/event-stream: the objects of live.json as `stats`
                                      events every 500 ms, round robin
Unknown paths answer 404 {"error": "not_found", ...} like the daemon. Each request line is printed
on stdout ("REQ GET /path?query"); the first line printed is "LISTENING http://HOST:PORT/".

With --token T every /api/ request needs "Authorization: Bearer T" (401 otherwise), except that
/api/live also accepts ?access_token=T; / and /static/ need none (the dashboard's proposal).

With --proxy http://HOST:PORT the /api/ paths are forwarded to a running daemon instead (the
dashboard files still come from web/static/, so they can be edited without rebuilding).

Usage: serve-fixtures.py [--port N (0 = any free port)] [--host 127.0.0.1] [--token T]
                         [--proxy URL]
"""
import argparse
import json
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
STATIC = os.path.normpath(os.path.join(HERE, "..", "..", "web", "static"))
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
         ".md": "text/markdown; charset=utf-8"}
SAFE = re.compile(r"^[A-Za-z0-9_.-]+$")


class BadRequest(Exception):
    pass


def load_fixture(name):
    """The parsed fixture file NAME, or None when it does not exist or NAME is unsafe."""
    if not SAFE.match(name):
        return None
    path = os.path.join(FIXTURES, name)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def number_param(query, key, default):
    if key not in query:
        return default
    text = query[key][0]
    try:
        value = float(text)
    except ValueError:
        raise BadRequest("parameter %s: %r is not a number" % (key, text))
    if not math.isfinite(value):
        raise BadRequest("parameter %s: %r is not finite" % (key, text))
    return value


def timeline_window(full, query):
    """The timeline answer for the window asked in QUERY, computed from FULL (raw, whole session)."""
    lo = number_param(query, "from", full["from_us"])
    hi = number_param(query, "to", full["to_us"])
    max_points = number_param(query, "max_points", 2000)
    if hi <= lo:
        raise BadRequest("from (%g) must be below to (%g)" % (lo, hi))
    if max_points < 1 or max_points != int(max_points):
        raise BadRequest("max_points %r must be a positive integer" % query["max_points"][0])
    inside = [it for it in full["items"] if it["end_us"] > lo and it["start_us"] < hi]
    begun = sum(1 for it in inside if it["start_us"] >= lo)
    answer = {"from_us": lo, "to_us": hi, "level": -1, "bucket_us": 0}
    if begun <= max_points:
        answer["items"] = inside
    else:
        level = 0
        while (hi - lo) / (10.0 * 4 ** level) > 1024:
            level += 1
        width = 10.0 * 4 ** level
        buckets = {}
        for it in inside:
            first = math.floor(max(it["start_us"], lo) / width)
            last = math.floor((min(it["end_us"], hi) - 1e-9) / width)
            for b in range(first, last + 1):
                b0, b1 = b * width, (b + 1) * width
                key = (it["core"], it["kind"], it["value"], b)
                cell = buckets.setdefault(key, {
                    "core": it["core"], "kind": it["kind"], "value": it["value"], "name": it["name"],
                    "start_us": b0, "end_us": b1, "busy_us": 0.0, "count": 0,
                    "flags": 1 if it["kind"] == "isr" else 0})
                cell["busy_us"] += min(it["end_us"], b1) - max(it["start_us"], b0)
                if b0 <= it["start_us"] < b1:
                    cell["count"] += 1
        answer["level"] = level
        answer["bucket_us"] = width
        answer["items"] = [buckets[k] for k in sorted(buckets, key=lambda k: (k[3], k[0], k[1], k[2]))]
        for cell in answer["items"]:
            cell["busy_us"] = round(cell["busy_us"], 3)
    answer["gaps"] = [g for g in full["gaps"] if g["end_us"] > lo and g["start_us"] < hi]
    answer["anomalies"] = [a for a in full["anomalies"] if lo <= a["ts_us"] < hi]
    return answer


def data_values(sid, query):
    """The value over time of one variable in the window QUERY asks for (docs/rest-api.md), from
    session-ID-data-values-NAME.json (every change); None when there is no such fixture."""
    if "variable" not in query:
        raise BadRequest("data values need variable=")
    full = load_fixture("session-%s-data-values-%s.json" % (sid, query["variable"][0]))
    if full is None:
        return None
    changes = full["points"]
    lo = number_param(query, "from", changes[0]["t_us"] if changes else 0)
    hi = number_param(query, "to", changes[-1]["t_us"] if changes else 0)
    max_points = number_param(query, "max_points", 2000)
    if hi < lo:
        raise BadRequest("to is before from")
    before = [c for c in changes if c["t_us"] < lo][-1:]
    inside = [c for c in changes if lo <= c["t_us"] <= hi]
    answer = {"variable": full["variable"], "variable_value": full["variable_value"], "from_us": lo,
              "to_us": hi, "bucket_us": 0, "count": len(inside)}
    if len(inside) <= max_points:
        answer["points"] = before + inside
        return answer
    n = int(max_points)
    width = (hi - lo) / n
    buckets = {}
    for c in inside:
        k = min(n - 1, int((c["t_us"] - lo) / width))
        b = buckets.setdefault(k, {"t_us": lo + k * width, "value": c["value"], "min": c["value"], "max": c["value"]})
        b["value"] = c["value"]
        b["min"] = min(b["min"], c["value"])
        b["max"] = max(b["max"], c["value"])
    answer["bucket_us"] = width
    answer["points"] = before + [buckets[k] for k in sorted(buckets)]
    return answer


def callstack(sid, query):
    """The calls of task T open at time t, outermost first, from session-ID-calls-task-T.json
    (every call of that task); None when there is no such fixture."""
    if "task" not in query or "t" not in query:
        raise BadRequest("callstack needs task= and t=")
    t = number_param(query, "t", 0)
    calls = load_fixture("session-%s-calls-task-%s.json" % (sid, query["task"][0]))
    if calls is None:
        return None
    return sorted((c for c in calls if c["start_us"] <= t < c["end_us"]), key=lambda c: c["depth"])


class Handler(BaseHTTPRequestHandler):
    server_version = "serve-fixtures/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: we print our own request lines
        pass

    def send_json(self, status, obj):
        body = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def not_found(self):
        self.send_json(404, {"error": "not_found", "message": "no fixture for %s" % self.path})

    def authorised(self, path, query):
        """True when no token is configured, the path is not under /api/, the request carries
        "Authorization: Bearer TOKEN", or it is /api/live with access_token=TOKEN (an EventSource
        cannot send headers)."""
        token = self.server.token
        if not token or not path.startswith("/api/"):
            return True
        if self.headers.get("Authorization", "") == "Bearer " + token:
            return True
        return path == "/api/live" and query.get("access_token", [""])[0] == token

    def do_GET(self):
        print("REQ GET %s" % self.path, flush=True)
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        path = url.path
        if self.server.proxy and path.startswith("/api/"):
            return self.forward()
        if not self.authorised(path, query):
            return self.send_json(401, {"error": "unauthorized", "message": "missing or wrong bearer token"})
        try:
            if path == "/" or path.startswith("/static/"):
                return self.serve_static("index.html" if path == "/" else path[len("/static/"):])
            if path == "/api/live":
                return self.serve_live()
            if path == "/api/sessions":
                return self.answer(load_fixture("sessions.json"))
            if path == "/api/compare":
                if "a" not in query or "b" not in query:
                    raise BadRequest("compare needs a= and b=")
                return self.answer(load_fixture("compare-%s-%s.json" % (query["a"][0], query["b"][0])))
            m = re.match(r"^/api/sessions/(\d+)(?:/([a-z-]+)(?:/([a-z]+))?)?$", path)
            if not m:
                return self.not_found()
            sid, endpoint, sub = m.group(1), m.group(2), m.group(3)
            if endpoint is None:
                return self.answer(load_fixture("session-%s.json" % sid))
            if endpoint == "timeline":
                full = load_fixture("session-%s-timeline.json" % sid)
                return self.answer(None if full is None else timeline_window(full, query))
            if endpoint == "callstack":
                return self.answer(callstack(sid, query))
            if endpoint == "data" and sub == "values":
                return self.answer(data_values(sid, query))
            name = "session-%s-%s" % (sid, endpoint) + ("-" + sub if sub else "")
            if endpoint == "data" and sub == "states" and "variable" in query:
                rows = load_fixture(name + ".json")
                v = query["variable"][0]
                return self.answer(None if rows is None else
                                   [r for r in rows if r["variable"] == v or str(r["variable_value"]) == v])
            if "task" in query:
                name += "-task-" + query["task"][0]
            return self.answer(load_fixture(name + ".json"))
        except BadRequest as e:
            return self.send_json(400, {"error": "bad_request", "message": str(e)})

    def forward(self):
        """--proxy: pass this GET to the daemon and stream its answer back (SSE included)."""
        headers = {}
        if self.headers.get("Authorization"):
            headers["Authorization"] = self.headers["Authorization"]
        req = urllib.request.Request(self.server.proxy + self.path, headers=headers)
        try:
            res = urllib.request.urlopen(req, timeout=30)
        except urllib.error.HTTPError as e:
            res = e
        except OSError as e:
            return self.send_json(502, {"error": "internal", "message": "proxy: %s" % e})
        self.send_response(res.status)
        self.send_header("Content-Type", res.headers.get("Content-Type", "application/octet-stream"))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            while True:
                chunk = res.read1(65536)
                if not chunk:
                    break
                self.wfile.write(chunk)
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            res.close()

    def answer(self, obj):
        if obj is None:
            return self.not_found()
        return self.send_json(200, obj)

    def serve_static(self, rel):
        full = os.path.normpath(os.path.join(STATIC, rel))
        if not full.startswith(STATIC + os.sep) or not os.path.isfile(full):
            return self.not_found()
        with open(full, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", TYPES.get(os.path.splitext(full)[1], "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def serve_live(self):
        frames = load_fixture("live.json") or []
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        i = 0
        try:
            while frames:
                data = json.dumps(frames[i % len(frames)])
                self.wfile.write(("event: stats\ndata: %s\n\n" % data).encode("utf-8"))
                self.wfile.flush()
                i += 1
                time.sleep(0.5)
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--token", default="", help="require this bearer token under /api/")
    ap.add_argument("--proxy", default="", metavar="URL",
                    help="forward /api/ to this daemon (http://HOST:PORT) instead of the fixtures")
    args = ap.parse_args()
    httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    httpd.token = args.token
    httpd.proxy = args.proxy.rstrip("/")
    httpd.daemon_threads = True
    print("LISTENING http://%s:%d/" % (args.host, httpd.server_address[1]), flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
