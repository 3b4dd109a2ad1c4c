"""analyze_check.py — judges `orti-profd analyze --json` against what a session measured
(tests/e2e/test-analyze.sh).

    python3 analyze_check.py ANALYSIS.json DB SESSION TASK… [--lower LOWER.json]
    python3 analyze_check.py --min-budgets DB SESSION >>BUDGETS

For every TASK named: the analysis bounded it, no model error, and the session's observed
maximum response (task_stats.response_max_us) is at most the bound.

With --lower, the bound is also exact up to the spread of the measurement: LOWER.json is the
analysis of the same set with every execution time at the shortest the session measured (the
budgets --min-budgets writes). The firmware hits the critical instant, and a response time
grows with the execution times, so a model that is exact at the critical instant puts the
observed maximum between the two analyses:
    bound(every job at its shortest) ≤ observed ≤ bound(every job at its longest).
A lower analysis above the observed maximum is interference the model counts that the firmware
does not have. The width (bound − observed) is printed; it is a figure of the measurement's
spread, not a pass criterion: one step of the busy window past a release adds a whole job.

--min-budgets prints `[task NAME] wcet` / `[isr NAME] wcet` groups (µs) with each task's
shortest measured job (an extended task: its shortest run between two waits, its first run
left out) and each ISR's shortest net time.
"""
import json
import sqlite3
import sys


def runs_min(db, session, hz, task):
    """An extended task's shortest run between two waits, its first run (activated, straight
    into WaitEvent) left out."""
    v = db.execute(
        "SELECT min(s.end - s.start) FROM slices s JOIN tasks t ON t.session_id = s.session_id "
        "AND t.task = s.task WHERE s.session_id = ?1 AND t.name = ?2 AND s.flags = 0 AND "
        "s.start > (SELECT min(s2.start) FROM slices s2 WHERE s2.session_id = ?1 "
        "AND s2.task = s.task)", (session, task)).fetchone()[0]
    return None if v is None else v * 1e6 / hz


def min_budgets(db, session):
    hz = db.execute("SELECT tick_rate_hz FROM sessions WHERE id = ?", (session,)).fetchone()[0]
    for name, jmin in db.execute("SELECT task, job_min_us FROM task_stats WHERE session_id = ?",
                                 (session,)).fetchall():
        c = jmin if jmin is not None else runs_min(db, session, hz, name)
        if c is not None:
            print(f"[task {name}]\nwcet = {c:.3f}")
    for name, nmin in db.execute("SELECT isr, net_min_us FROM isr_stats WHERE session_id = ?",
                                 (session,)).fetchall():
        if nmin is not None:
            print(f"[isr {name}]\nwcet = {nmin:.3f}")


def bounds(path):
    report = json.load(open(path))
    return {it["name"]: it for core in report["cores"] for it in core["items"]}


def main(argv):
    if argv[0] == "--min-budgets":
        min_budgets(sqlite3.connect(argv[1]), int(argv[2]))
        return 0
    lower = None
    if "--lower" in argv:
        i = argv.index("--lower")
        lower = bounds(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    items = bounds(argv[0])
    db = sqlite3.connect(argv[1])
    session = int(argv[2])
    obs = {r[0]: r[1] for r in db.execute(
        "SELECT task, response_max_us FROM task_stats WHERE session_id = ?", (session,))}
    failed = False
    for name in argv[3:]:
        it = items.get(name)
        if it is None or it["bound_us"] is None:
            print(f"FAIL: {name}: not bounded ({it and it['verdict']})")
            failed = True
            continue
        bound = it["bound_us"]
        got = obs.get(name)
        if got is None:
            print(f"FAIL: {name}: session {session} observed no response")
            failed = True
            continue
        if it["model_error"] or got > bound + 1e-3:
            print(f"FAIL: {name}: observed {got:.3f} µs > bound {bound:.3f} µs "
                  f"({it['observed_job']})")
            failed = True
            continue
        line = f"{name}: observed {got:.3f} µs, bound {bound:.3f} µs (width {bound - got:.3f})"
        if lower is not None:
            lo = lower.get(name, {}).get("bound_us")
            if lo is None:
                print(f"FAIL: {name}: the analysis at the shortest jobs has no bound")
                failed = True
                continue
            line += f", bound at the shortest jobs {lo:.3f} µs"
            # 1 µs: the stream's timestamp resolution on the observed response
            if lo > got + 1.0:
                print(line)
                print(f"FAIL: {name}: even with every job at its shortest the analysis is above "
                      f"what the firmware showed at its critical instant")
                failed = True
                continue
        print(line)
    return 1 if failed else 0


sys.exit(main(sys.argv[1:]))
