#!/usr/bin/env python3
"""trace_export_check.py DB SESSION BTF CTFDIR — a session's BTF and CTF exports
(`orti-profd export --format btf|ctf`, daemon/export-trace.h) against its raw events.

The truth is the store's `events` view (the raw events, decoded in SQL, not by the exporter's
C reader). Checked:
  CTF: Debian's babeltrace2 reads the directory; its events, per name and core (cpu_id),
       are exactly the view's per kind_name and core, in time order, and the first and last
       event times are the view's (the clock is the target's ticks).
  BTF: a parser of the format (TA BTF specification 2.1.5): the header's #version,
       #timeScale ns; every data line has 7 or 8 fields, a time that never decreases, a
       known entity type and an event valid for it; every process instance (T, I) follows the
       process state machine (activate → start → (preempt → resume | wait → release → resume)*
       → terminate) and every runnable instance the runnable one (start → (suspend →
       resume)* → terminate); a runnable's source is a process instance that is running then
       (or a core); and the counts are the raw events': T activate = task_activate,
       T terminate = task_terminate, I start = I terminate = isr_enter (= isr_exit),
       R start = func_enter (with a gap in the session, only those that a gap cannot change:
       activate, I start, R start).
Exits 1 with a message on the first failure; prints a summary line on success.
"""
import collections
import re
import sqlite3
import subprocess
import sys

PROCESS_NEXT = {  # state → event → next state (BTF process state chart)
    None: {"activate": "ready", "start": "running"},
    "ready": {"start": "running"},
    "running": {"preempt": "preempted", "wait": "waiting", "terminate": None},
    "preempted": {"resume": "running", "terminate": None},
    "waiting": {"release": "released"},
    "released": {"resume": "running"},
}
RUNNABLE_NEXT = {
    None: {"start": "running"},
    "running": {"suspend": "suspended", "terminate": None},
    "suspended": {"resume": "running"},
}


def fail(msg):
    print("trace_export_check: " + msg)
    sys.exit(1)


def raw_counts(db, session):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT kind_name, core, count(*), min(ts), max(ts) FROM events "
                       "WHERE session_id = ? GROUP BY kind_name, core", (session,)).fetchall()
    span = con.execute("SELECT min(ts), max(ts), (SELECT gap_count FROM sessions WHERE id = ?) "
                       "FROM events WHERE session_id = ?", (session, session)).fetchone()
    con.close()
    return {(k, c): n for k, c, n, _, _ in rows}, span


def check_ctf(ctfdir, counts, span):
    out = subprocess.run(["babeltrace2", "--clock-cycles", ctfdir], capture_output=True,
                         text=True)
    if out.returncode != 0:
        fail("babeltrace2 could not read %s: %s" % (ctfdir, out.stderr.strip()[:500]))
    line_re = re.compile(r"^\[(\d+)\] \(\+[?\d]+\) (\w+): \{ cpu_id = (\d+) \}")
    got = collections.Counter()
    first = last = None
    for line in out.stdout.splitlines():
        m = line_re.match(line)
        if m is None:
            fail("babeltrace2 printed a line this check cannot read: %r" % line[:200])
        ts = int(m.group(1))
        if last is not None and ts < last:
            fail("CTF events out of time order at %d after %d" % (ts, last))
        first = ts if first is None else first
        last = ts
        got[(m.group(2), int(m.group(3)))] += 1
    if dict(got) != counts:
        diff = {k: (got.get(k, 0), counts.get(k, 0)) for k in set(got) | set(counts)
                if got.get(k, 0) != counts.get(k, 0)}
        fail("CTF events per (kind, core) differ from the raw events (ctf, raw): %s" % diff)
    if (first, last) != (span[0], span[1]):
        fail("CTF spans %s..%s, the raw events %s..%s" % (first, last, span[0], span[1]))
    return sum(got.values())


def check_btf(path, counts, has_gap):
    with open(path) as f:
        lines = f.read().splitlines()
    header = [l for l in lines if l.startswith("#")]
    data = [l for l in lines if not l.startswith("#")]
    if not lines or lines[0] != "#version 2.1.5":
        fail("BTF: first line %r, not #version 2.1.5" % (lines[0] if lines else ""))
    if "#timeScale ns" not in header:
        fail("BTF: no #timeScale ns in the header")
    if lines.index(header[-1]) != len(header) - 1:
        fail("BTF: a # line after the data began")
    procs = {}      # (type, name, instance) → state
    runnables = {}  # (name, instance) → (state, source, source instance)
    running = set()  # (name, instance) of processes running now
    n = collections.Counter()
    last = -1
    for i, l in enumerate(data, len(header) + 1):
        f = l.split(",")
        if len(f) not in (7, 8):
            fail("BTF line %d: %d fields: %r" % (i, len(f), l))
        t, src, si, typ, target, ti, ev = f[:7]
        if not (t.isdigit() and si.isdigit() and ti.isdigit()):
            fail("BTF line %d: time or instance not a number: %r" % (i, l))
        t = int(t)
        if t < last:
            fail("BTF line %d: time %d before %d" % (i, t, last))
        last = t
        n[(typ, ev)] += 1
        if typ in ("T", "I"):
            key = (typ, target, int(ti))
            state = procs.get(key)
            nxt = PROCESS_NEXT.get(state, {})
            if ev not in nxt:
                fail("BTF line %d: %s %s instance %s: %s in state %s" % (i, typ, target, ti, ev,
                                                                         state))
            procs[key] = nxt[ev]
            if nxt[ev] == "running":
                running.add((target, int(ti)))
            else:
                running.discard((target, int(ti)))
            if nxt[ev] is None:
                del procs[key]
        elif typ == "R":
            key = (target, int(ti))
            state, _, _ = runnables.get(key, (None, None, None))
            nxt = RUNNABLE_NEXT.get(state, {})
            if ev not in nxt:
                fail("BTF line %d: runnable %s instance %s: %s in state %s" % (i, target, ti, ev,
                                                                             state))
            if ev in ("start", "terminate") and int(si) != 0 and (src, int(si)) not in running:
                fail("BTF line %d: runnable %s %s in %s instance %s, which is not running" %
                     (i, target, ev, src, si))
            if nxt[ev] is None:
                del runnables[key]
            else:
                runnables[key] = (nxt[ev], src, si)
        else:
            fail("BTF line %d: entity type %r is not one this export writes" % (i, typ))
    want = {
        ("T", "activate"): sum(v for (k, _), v in counts.items() if k == "task_activate"),
        ("I", "start"): sum(v for (k, _), v in counts.items() if k == "isr_enter"),
        ("R", "start"): sum(v for (k, _), v in counts.items() if k == "func_enter"),
    }
    if not has_gap:
        want[("T", "terminate")] = sum(v for (k, _), v in counts.items() if k == "task_terminate")
        want[("I", "terminate")] = want[("I", "start")]
    for k, v in want.items():
        if n[k] != v:
            fail("BTF: %d %s %s lines, the raw events say %d" % (n[k], k[0], k[1], v))
    return len(data), n


def main():
    db, session, btf, ctfdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    counts, span = raw_counts(db, session)
    if not counts:
        fail("session %d has no raw events to compare with" % session)
    has_gap = bool(span[2])
    n_ctf = check_ctf(ctfdir, counts, span)
    n_btf, n = check_btf(btf, counts, has_gap)
    print("session %d: CTF %d events as the raw events; BTF %d lines (%d T start, %d I start, "
          "%d R start, %d preempt, %d suspend)%s" %
          (session, n_ctf, n_btf, n[("T", "start")], n[("I", "start")], n[("R", "start")],
           n[("T", "preempt")] + n[("I", "preempt")], n[("R", "suspend")],
           ", gap: open instances allowed" if has_gap else ""))


if __name__ == "__main__":
    main()
