"""invariants.py — what every stored session must hold whatever the target did, checked from its
rows: the one checker of every e2e test. rig_session.Session checks each session it stops; the
shell tests call `check_invariants DB…` (e2e-common.sh), which runs this file.

The session checks its own figures as it runs (daemon/session-invariants.h) and stores every
broken one as an anomaly 'invariant:…'; this checker asserts there is none, and checks from the
stored rows, independently, what a reader would: per core task + ISR2 + idle + unknown time is
the span; a task's per-core rows add up to its row; an exact session has no more complete jobs
than activations (where it sees them; exact: load bound 0 — a replay of
a poll capture samples too); a task's preemptions end as many slices at most; and a
task whose evidence is 'none' has every job-level figure unknown (NULL), never a guess.

    python3 invariants.py DB [DB…]    exit 0: they hold; else FAIL: lines, exit 1
"""
import sqlite3
import sys


def problems(db_path):
    """Every broken invariant of every session in @db_path, as sentences (empty: none)."""
    out = []
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        q = con.execute
        for sid, kind, detail in q("SELECT session_id, kind, detail FROM anomalies "
                                   "WHERE kind LIKE 'invariant:%'"):
            out.append(f"session {sid}: {kind}: {detail}")
        for sid, core, span, task, isr, idle, unknown in q(
                "SELECT session_id, core, span_us, task_us, isr_us, idle_us, unknown_us "
                "FROM core_stats"):
            parts = [task, isr, idle, unknown]
            if span is not None and None not in parts and abs(sum(parts) - span) > 1:
                out.append(f"session {sid} core {core}: task {task} + ISR2 {isr} + idle {idle} + "
                           f"unknown {unknown} us is not its span {span} us")
        for sid, task, run, jobs, rows_run, rows_jobs in q(
                "SELECT t.session_id, t.task, t.run_total_us, t.jobs, sum(c.run_total_us), "
                "sum(c.jobs) FROM task_stats t JOIN task_core_stats c ON "
                "c.session_id = t.session_id AND c.task_value = t.task_value GROUP BY 1, 2"):
            if run is not None and abs(rows_run - run) > max(1.0, 1e-9 * run):
                out.append(f"session {sid} {task}: its per-core rows ran {rows_run} us, "
                           f"its row {run} us")
            if jobs is not None and rows_jobs != jobs:
                out.append(f"session {sid} {task}: its per-core rows have {rows_jobs} jobs, "
                           f"its row {jobs}")
        for sid, task, jobs, acts in q(
                "SELECT session_id, task, jobs, activations FROM task_stats WHERE "
                "load_bound_percent = 0 AND jobs IS NOT NULL AND activations IS NOT NULL "
                # one core: another core's activations of a task are not all on its stream
                "AND session_id IN (SELECT session_id FROM task_core_stats GROUP BY session_id "
                "HAVING count(DISTINCT core) = 1)"):
            if jobs > acts + 1:  # the first job's activation may precede the stream
                out.append(f"session {sid} {task}: {jobs} jobs but {acts} activations")
        for sid, task, pre, slices in q("SELECT session_id, task, preemptions, slices FROM "
                                        "task_stats WHERE preemptions IS NOT NULL"):
            if slices is not None and pre > slices + 1:
                out.append(f"session {sid} {task}: {pre} preemptions end at most {slices} "
                           f"slices")
        cols = {r[1] for r in q("PRAGMA table_info(task_stats)")}
        if "evidence" in cols:
            figures = ("jobs", "preemptions", "job_avg_us", "period_avg_us", "response_avg_us")
            for row in q(f"SELECT session_id, task, {', '.join(figures)} FROM task_stats "
                         "WHERE evidence = 'none'"):
                known = [f for f, v in zip(figures, row[2:]) if v is not None]
                if known:
                    out.append(f"session {row[0]} {row[1]}: no evidence, yet {known} stated")
    finally:
        con.close()
    return out


def main(paths):
    bad = [f"{p}: {x}" for p in paths for x in problems(p)]
    for line in bad:
        print(f"FAIL: broken invariant: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
