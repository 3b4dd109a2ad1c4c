#!/usr/bin/env python3
"""serve-compare.py FILE_URL SHARED_URL OPENAPI [--budgets] — `orti-profd serve --db FILE`
and `serve --db postgresql://…` (the store FILE was pushed to, ids alike) answer every GET
route the same: /api/sessions, each session's document and every statistics route of
web/openapi.json (those that need no parameter), the exports, /api/compare between
neighbouring sessions, the fleet page's /api/fleet and a trend, and /metrics — the same HTTP status and the same bytes. Fails (exit 1)
naming the first route that differs; prints how many answers it compared."""
import json
import sys
import urllib.error
import urllib.request

file_url, shared_url, openapi = sys.argv[1].rstrip('/'), sys.argv[2].rstrip('/'), sys.argv[3]


def get(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def same(path):
    a, b = get(file_url, path), get(shared_url, path)
    if a != b:
        sys.exit(f"FAIL: {path}: the file's serve answered {a[0]} ({len(a[1])} bytes), the "
                 f"shared store's {b[0]} ({len(b[1])} bytes)\n--- file\n{a[1][:600]!r}\n"
                 f"--- shared\n{b[1][:600]!r}")
    return a


with open(openapi) as f:
    paths = json.load(f)['paths']
routes = [p[len('/api/sessions/{id}'):] for p, ops in paths.items()
          if p.startswith('/api/sessions/{id}') and 'get' in ops]

status, body = same('/api/sessions')
assert status == 200, f"/api/sessions: {status}"
sessions = json.loads(body)
if isinstance(sessions, dict):
    sessions = sessions.get('sessions', sessions.get('rows', []))
ids = [s['id'] for s in sessions]
assert ids, "no sessions served"
compared = ok = rows = 0
for sid in ids:
    for route in routes + ['/export?format=csv', '/export?format=perfetto',
                           '/export?format=folded', '/timeline?levels=1']:
        status, body = same(f'/api/sessions/{sid}{route}')
        compared += 1
        if status == 200:
            ok += 1
            if route in ('/tasks', '/functions', '/cores'):
                doc = json.loads(body)
                rows += len(doc) if isinstance(doc, list) else len(doc.get('rows', []))
for a, b in zip(ids, ids[1:]):
    same(f'/api/compare?a={a}&b={b}')
    compared += 1
# the fleet page's routes (present in this build's openapi.json): benches, builds, a trend
if '/api/fleet' in paths:
    same('/api/fleet')
    compared += 1
    for metric in ('load', 'p99', 'max'):
        same(f'/api/fleet/trend?task=Task0&metric={metric}')
        compared += 1
status, metrics = same('/metrics')
lines = metrics.count(b'\n')
assert status == 200 and lines > 10, "/metrics is nearly empty"
assert ok > len(ids) and rows > 0, f"only {ok} answers of 200 and {rows} statistics rows"
print(f"serve-compare: {len(ids)} sessions, {compared + 2} answers alike ({ok} of them 200, "
      f"{rows} task, function and core rows), /metrics {lines} lines alike")
