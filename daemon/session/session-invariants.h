/* session-invariants.h — what must hold of a session's figures, whatever the target did.
 *
 * A violation is a fault of the measurement, never a result: it is reported at once (a
 * warning in the log, an anomaly on the session — anomalies.kind 'invariant:NAME', counted in
 * sessions.anomaly_count, so `sessions` and the session's page show it — and `check` judges
 * such a session undecided). Checked at every live refresh (those that hold at any moment) and
 * at the session's end (all):
 *
 *  core_sum        per core: task + ISR2 + idle + unknown time = the core's span;
 *  tasks_zero      a core busy (its ISR2s over half of its known time) while every task reads
 *                  0 % though tasks were seen to run there (a complete task slice on the core):
 *                  a value the ORTI labels (RUNNINGISR2 "NONE", say) was taken for an ISR2
 *                  that never ends;
 *  core_rows       a task's per-core rows add up to its row (run time, jobs);
 *  job_time        the run time of its complete jobs is job_avg × their count: run time =
 *                  complete jobs' net + what no complete job holds (a job cut by the start or
 *                  a gap, the one still open, time between jobs);
 * and at the end, for a task whose job-level figures are known (session-evidence.h):
 *  jobs_activations  complete jobs ≤ activations, where the stream carries activations;
 *  preemptions_slices  preemptions + waits + jobs ≤ closed slices (+ jobs restarted without a
 *                  switch-out, + jobs that ended in a slice a gap then cut, + the last slice,
 *                  which may be open): each ends a slice.
 */
#pragma once

#include "session-evidence.h"
#include "engine.h"

G_BEGIN_DECLS

/* One violation. */
typedef struct {
  const char *kind;  /* static: "invariant:core_sum", … */
  gint64 task;       /* the task's id, -1: none */
  guint16 core;      /* the core it is about (0 when it is a task's) */
  char *detail;      /* what was found, with the numbers (newly allocated) */
} SessionViolation;

void session_violation_clear (gpointer v);

/* session_invariants_check: appends @slicer's violations (SessionViolation) to @out; @final:
 * the session's end (every invariant), else only those that hold at any moment. @e may be
 * NULL (every task's figures taken as known); @names (task id → name) may be NULL. Returns
 * how many it appended. */
guint session_invariants_check (const Slicer *slicer, const SessionEvidence *e,
                                GHashTable *names, gboolean exact, gboolean final, GArray *out);

G_END_DECLS
