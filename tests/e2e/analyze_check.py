"""analyze_check.py — judges `orti-profd analyze --json` against what a session measured
(tests/e2e/test-analyze.sh, test-diff-rig.sh).

    python3 analyze_check.py ANALYSIS.json DB SESSION TASK… [--exact]

For every TASK named: the analysis bounded it, and the session's observed maximum response
(task_stats.response_max_us of SESSION, which may be another session than the analysed one:
a what-if's prediction checked against the build it predicts) is at most the bound. With
--exact the bound is also at most the observed maximum plus the tolerance the measurement
itself shows: the bound takes every job at its largest execution time (dispatch included)
while the observed critical instant ran jobs as they came, so per item j in the busy window
(every ISR and more urgent task, and the task itself once) the window holds ⌈(R + J_j)/T_j⌉
of its jobs, each at most C_j − C_min_j (C_min_j: the shortest job the session measured)
longer than it was, plus 1 µs of resolution. Prints one line per task.
"""
import json
import math
import sqlite3
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
exact = "--exact" in sys.argv
report = json.load(open(args[0]))
db = sqlite3.connect(args[1])
session = int(args[2])
tasks = args[3:]

items = {it["name"]: it for core in report["cores"] for it in core["items"]}
obs = {r[0]: r[1:] for r in db.execute(
    "SELECT task, response_max_us, job_min_us, slice_min_us, time_bound_us FROM task_stats "
    "WHERE session_id = ?", (session,))}
hz = db.execute("SELECT tick_rate_hz FROM sessions WHERE id = ?", (session,)).fetchone()[0]


def runs_min(task):
    """An extended task's shortest run between two waits, its first run (activated, straight
    into WaitEvent) left out."""
    v = db.execute(
        "SELECT min(s.end - s.start) FROM slices s JOIN tasks t ON t.session_id = s.session_id "
        "AND t.task = s.task WHERE s.session_id = ?1 AND t.name = ?2 AND s.flags = 0 AND "
        "s.start > (SELECT min(s2.start) FROM slices s2 WHERE s2.session_id = ?1 "
        "AND s2.task = s.task)", (session, task)).fetchone()[0]
    return None if v is None else v * 1e6 / hz


isr_min = {r[0]: r[1] for r in db.execute(
    "SELECT isr, net_min_us FROM isr_stats WHERE session_id = ?", (session,))}
failed = False
for name in tasks:
    it = items.get(name)
    if it is None or it["bound_us"] is None:
        print(f"FAIL: {name}: not bounded ({it and it['verdict']})")
        failed = True
        continue
    bound = it["bound_us"]
    got = obs[name][0] if name in obs else None
    if got is None:
        print(f"FAIL: {name}: session {session} observed no response")
        failed = True
        continue
    if it["model_error"] or got > bound + 1e-3:
        print(f"FAIL: {name}: observed {got:.3f} µs > bound {bound:.3f} µs ({it['observed_job']})")
        failed = True
        continue
    # the spread the measurement shows over the busy window
    prio = it["inputs"]["priority"]["value"]
    tol = 1.0
    for other in items.values():
        inp = other["inputs"]
        c = inp["wcet"]["us"]
        if other["kind"] == "isr":
            cmin = isr_min.get(other["name"])
        elif other["name"] == name:
            cmin = obs[name][1]
        elif inp["priority"]["value"] is not None and prio is not None \
                and inp["priority"]["value"] >= prio:
            row = obs.get(other["name"])
            cmin = row[1] if row and row[1] is not None else runs_min(other["name"])
        else:
            continue
        if c is None or cmin is None:
            print(f"FAIL: {name}: {other['name']} has no measured execution times")
            failed = True
            continue
        n = 1 if other["name"] == name else \
            math.ceil((bound + (inp["jitter"]["us"] or 0)) / inp["period"]["us"])
        tol += n * max(0.0, c - cmin)
    line = (f"{name}: observed {got:.3f} µs, bound {bound:.3f} µs (+{bound - got:.3f}), "
            f"tolerance {tol:.3f} µs")
    print(line)
    if exact and bound - got > tol:
        print(f"FAIL: {name}: the bound exceeds the observed maximum by more than the "
              f"measurement's spread")
        failed = True
sys.exit(1 if failed else 0)
