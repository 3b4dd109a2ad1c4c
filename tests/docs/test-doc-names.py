#!/usr/bin/env python3
"""test-doc-names.py ORTI-PROFD MAKE-EXAMPLE-DB PROGRAM — the names docs/schema.md and
docs/rest-api.md give, against the live schema and the server's routes:
  - every table of the store has its row in schema.md's table of tables, and that row names
    every column the table has (`a_min/max/avg` counts as a_min, a_max, a_avg); every table a
    row names exists;
  - every view of the store has its section (### `view`), and a section about one view lists
    exactly the view's columns;
  - the routes rest-api.md names are the routes openapi.json describes, both ways, and
    `orti-profd serve` on the example store answers each documented GET route (its
    placeholders filled) with anything but "no such resource".
The store is made by make-example-db (the schema every migration makes)."""
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import shutil
import urllib.error
import urllib.request

exe, make_db, program = (os.path.abspath(a) for a in sys.argv[1:4])
src = os.environ.get("ORTI_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def expand(token):
    """`slice_min/max/avg` → slice_min, slice_max, slice_avg; `started_at`/… as they are."""
    parts = token.split("/")
    if len(parts) == 1:
        return parts
    stem = parts[0].rsplit("_", 1)[0] + "_" if "_" in parts[0] else ""
    return [parts[0]] + [p if "_" in p and not stem else stem + p for p in parts[1:]]


def schema_checks(db):
    con = sqlite3.connect(db)
    objs = dict(con.execute("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') "
                            "AND name NOT LIKE 'sqlite_%'"))
    cols = {n: [r[1] for r in con.execute(f"PRAGMA table_info('{n}')")] for n in objs}
    doc = open(os.path.join(src, "docs", "schema.md"), encoding="utf-8").read()
    # the table of tables: | `name` | one row per | columns |
    rows, per = {}, {}
    for m in re.finditer(r"^\| `([a-z_]+)` \|([^|\n]*)\|(.*)\|\s*$", doc, re.M):
        rows[m.group(1)] = m.group(3)
        per[m.group(1)] = m.group(2)
    for name, cell in rows.items():
        if objs.get(name) != "table":
            fail(f"schema.md names table `{name}`, which the store does not have")
            continue
        named = set()
        for tok in re.findall(r"`([a-z_0-9/]+)`", cell):
            named.update(expand(tok))
        # the key: "one row per task × function" names task and function
        named.update(re.findall(r"[a-z_]+", per[name].replace("`", "").replace("ISR2", "isr")))
        # "as `function_stat` plus `task`": that table's columns too
        for base in re.findall(r"\bas `([a-z_]+)`", cell):
            named.update(cols.get(base, []))
        missing = [c for c in cols[name] if c not in named and c != "session_id"]
        if missing:
            fail(f"schema.md's row of `{name}` does not name its columns {missing}")
    for name, kind in objs.items():
        if kind == "table" and name not in rows and f"`{name}`" not in doc:
            fail(f"table `{name}` is not in schema.md")
    # views: ### `a`, `b` sections; a one-view section's first paragraph lists its columns
    sections = re.split(r"^### ", doc, flags=re.M)[1:]
    documented = set()
    for sec in sections:
        head, _, body = sec.partition("\n")
        names = re.findall(r"`([a-z_]+)`", head)
        documented.update(names)
        for n in names:
            if n in objs or "view" not in head.lower() and objs.get(n) is None and n not in doc:
                continue
        views = [n for n in names if objs.get(n) == "view"]
        if len(names) == 1 and views:
            m = re.match(r"\s*`([^`]+)`", body)
            if not m:
                continue
            listed = re.sub(r"\([^)]*\)", "", m.group(1).replace("\n", " "))
            listed = [c.strip() for c in listed.split(",") if c.strip()]
            live = cols[views[0]]
            if set(listed) != set(live):
                fail(f"schema.md's `{views[0]}` lists {sorted(set(listed) - set(live))} the view "
                     f"does not have and misses {sorted(set(live) - set(listed))}")
    for name, kind in objs.items():
        if kind == "view" and name not in documented:
            fail(f"view `{name}` has no section in schema.md")
    return len(objs)


def rest_paths():
    doc = open(os.path.join(src, "docs", "rest-api.md"), encoding="utf-8").read()
    named = set()
    # `…/services/tasks` is short for a route of a session, as the doc writes it
    for m in re.finditer(r"`(?:(GET|POST|DELETE|PUT) )?(/api[^`\s]*|/metrics|…/[^`\s]*)`",
                         doc):
        path = m.group(2).replace("\\|", "|")
        if path.startswith("…/"):
            path = "/api/sessions/{id}" + path[1:]
        if "…" not in path:
            named.add((m.group(1) or "GET", path))
    return named


def route(path):
    return re.sub(r"[?\[].*$", "", path)


def rest_checks(db):
    spec = json.load(open(os.path.join(src, "web", "openapi.json")))
    spec_paths = set(spec["paths"])
    named = rest_paths()
    doc_routes = {route(p) for _, p in named}
    for p in sorted(doc_routes - spec_paths):
        fail(f"rest-api.md names {p}, which openapi.json does not describe")
    for p in sorted(spec_paths - doc_routes):
        fail(f"openapi.json describes {p}, which rest-api.md does not name")
    serve = subprocess.Popen([exe, "serve", "--db", db, "--http", "127.0.0.1:0"],
                             stderr=subprocess.PIPE, text=True)
    url = None
    for line in serve.stderr:
        m = re.search(r"(http://[0-9.:]+)/", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        fail("serve did not start")
        return
    fill = {"{id}": "1", "T": "Task0", "US": "1000", "N": "10", "F": "csv", "V": "x", "ID": "1",
            "PCT": "10", "NAME": "tasks"}
    asked = 0
    try:
        for method, path in sorted(named):
            if method != "GET" or "live" in path:
                continue
            p = re.sub(r"\[([^\]]*)\]", r"\1", path).replace("{id}", "1")
            p = re.sub(r"=([A-Z]+)\b", lambda m: "=" + fill.get(m.group(1), m.group(1)), p)
            p = re.sub(r"=([a-z]+)(\|[a-z|]+)", r"=\1", p)
            try:
                with urllib.request.urlopen(url + p, timeout=30) as r:
                    r.read()
            except urllib.error.HTTPError as e:
                body = e.read().decode(errors="replace")
                if e.code == 404 and "no such resource" in body:
                    fail(f"rest-api.md's GET {path}: the server has no such route ({body[:200]})")
            asked += 1
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=30)
    print(f"REST: {len(named)} documented routes, {asked} asked of serve")


def main():
    work = tempfile.mkdtemp(prefix="doc-names-")
    try:
        subprocess.run([make_db, work, program], check=True)
        db = os.path.join(work, "profile.db")
        n = schema_checks(db)
        print(f"schema: {n} tables and views compared with docs/schema.md")
        rest_checks(db)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} differences")
    return 1 if failures else 0


sys.exit(main())
