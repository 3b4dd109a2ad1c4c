/* session-invariants.c — the invariants of a session's figures (session-invariants.h). */
#include "session-invariants.h"

void
session_violation_clear (gpointer v)
{
  g_free (((SessionViolation *) v)->detail);
}

static void
add (GArray *out, const char *kind, gint64 task, guint16 core, char *detail)
{
  SessionViolation v = { kind, task, core, detail };
  g_array_append_val (out, v);
}

/* Per core: the times add up to the span; a busy core with every task at 0 %. The latter is
 * evidence of an ISR2 that never ends only where tasks were seen to run: a complete slice of a
 * task on the core (switched in, then out) whose time still went to an ISR2. Without one the
 * core's known time may legitimately be its ISR2s alone — a stream joined while no task ran
 * (the core's state unknown until the next switch-in), read before that switch-in came, or a
 * session that short: pc-sample-rig's first live refresh saw four timer ISR2s and no task. */
static guint
check_cores (const Slicer *slicer, const GArray *rows, GArray *out)
{
  guint n = 0;
  guint64 task_time = 0;
  for (gsize c = 0; c < slicer_n_cores (slicer); c++) {
    SlicerCoreStats cs;
    if (slicer_get_core_stats (slicer, c, &cs))
      task_time += cs.task_time;
  }
  for (gsize c = 0; c < slicer_n_cores (slicer); c++) {
    SlicerCoreStats cs;
    if (!slicer_get_core_stats (slicer, c, &cs) || cs.end <= cs.start)
      continue;
    guint64 sum = cs.task_time + cs.isr_time + cs.idle_time + cs.unknown_time;
    if (sum != cs.end - cs.start) {
      add (out, "invariant:core_sum", -1, cs.core, g_strdup_printf (
          "core %u: task %" G_GUINT64_FORMAT " + ISR2 %" G_GUINT64_FORMAT " + idle %"
          G_GUINT64_FORMAT " + unknown %" G_GUINT64_FORMAT " = %" G_GUINT64_FORMAT " ticks, but "
          "its span is %" G_GUINT64_FORMAT, cs.core, cs.task_time, cs.isr_time, cs.idle_time,
          cs.unknown_time, sum, cs.end - cs.start));
      n++;
    }
    guint64 known = cs.end - cs.start - MIN (cs.unknown_time, cs.end - cs.start);
    guint64 slices = 0;
    for (guint k = 0; k < rows->len; k++) {
      const SlicerTaskCoreStats *r = &g_array_index (rows, SlicerTaskCoreStats, k);
      if (r->core == cs.core)
        slices += r->slices;
    }
    if (task_time == 0 && slices > 0 && known > 0 && cs.isr_time * 2 > known) {
      add (out, "invariant:tasks_zero", -1, cs.core, g_strdup_printf (
          "core %u: ISR2s take %.1f %% of its known time while every task reads 0 %%, over %"
          G_GUINT64_FORMAT " complete task slices there: is a value the ORTI labels (\"NONE\", "
          "\"NO_ISR\") one that means no ISR2 runs?", cs.core,
          100.0 * (double) cs.isr_time / (double) known, slices));
      n++;
    }
  }
  return n;
}

/* "Task0" for task @id by @names, else "task 0x12" (newly allocated). */
static char *
task_label (GHashTable *names, guint32 id)
{
  const char *name = names != NULL ? g_hash_table_lookup (names, GUINT_TO_POINTER (id)) : NULL;
  return name != NULL ? g_strdup (name) : g_strdup_printf ("task 0x%x", id);
}

guint
session_invariants_check (const Slicer *slicer, const SessionEvidence *e, GHashTable *names,
                          gboolean exact, gboolean final, GArray *out)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (SlicerTaskCoreStats));
  slicer_get_task_core_stats (slicer, rows);
  guint n = check_cores (slicer, rows, out);
  /* Activations are a job's evidence only where every one is seen: on one core. A task
   * activated from another core (ActivateTask there, the alarm of another core's counter) has
   * activations its own core's stream does not carry, so a multi-core session does not hold
   * its jobs to them (rtt-xcore: SplitA 185 jobs, 44 activations seen on its core). */
  gboolean sees_activations = FALSE, multi_core = FALSE;
  for (guint k = 0; k < rows->len; k++)
    multi_core |= g_array_index (rows, SlicerTaskCoreStats, k).core != 0;
  for (gsize i = 0; i < slicer_n_tasks (slicer) && !multi_core; i++) {
    SlicerTaskStats t;
    if (slicer_get_task_stats (slicer, i, &t))
      sees_activations |= t.activations > 0;
  }
  for (gsize i = 0; i < slicer_n_tasks (slicer); i++) {
    SlicerTaskStats t;
    if (!slicer_get_task_stats (slicer, i, &t))
      continue;
    guint64 jobs = t.job.count + t.jobs_cut, row_run = 0, row_jobs = 0;
    g_autofree char *who = task_label (names, t.task);
    for (guint k = 0; k < rows->len; k++) {
      const SlicerTaskCoreStats *r = &g_array_index (rows, SlicerTaskCoreStats, k);
      if (r->task == t.task) {
        row_run += r->run_time;
        row_jobs += r->jobs;
      }
    }
    if (row_run != t.run_time || row_jobs != jobs) {
      add (out, "invariant:core_rows", t.task, 0, g_strdup_printf (
          "%s: its per-core rows hold %" G_GUINT64_FORMAT " ticks and %" G_GUINT64_FORMAT
          " jobs, its row %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT, who, row_run,
          row_jobs, t.run_time, jobs));
      n++;
    }
    if (t.job.total + t.run_unmeasured != t.run_time) {
      add (out, "invariant:job_time", t.task, 0, g_strdup_printf (
          "%s: %" G_GUINT64_FORMAT " complete jobs of %.1f ticks (job_avg) hold %"
          G_GUINT64_FORMAT " ticks and %" G_GUINT64_FORMAT " are in none, but it ran %"
          G_GUINT64_FORMAT, who, t.job.count, t.job.avg, t.job.total, t.run_unmeasured,
          t.run_time));
      n++;
    }
    if (!final)
      continue;
    SessionEvidenceVerdict v;
    session_evidence_judge (e, &t, exact, &v);
    g_free (v.note);
    if (!v.known)
      continue; /* its job-level figures are unknown: nothing of them to hold */
    /* the first job's activation may precede the stream */
    if (exact && sees_activations && t.job.count > t.activations + 1) {
      add (out, "invariant:jobs_activations", t.task, 0, g_strdup_printf (
          "%s: %" G_GUINT64_FORMAT " complete jobs but %" G_GUINT64_FORMAT
          " activations", who, t.job.count, t.activations));
      n++;
    }
    /* a preemption and a wait are switch-outs, each closes a slice; a job ends in one, or in
     * one a gap cut (its end seen, the switch-out lost), or in the last, which may be open */
    if (t.preemptions + t.waits + jobs >
        t.run_interval.count + t.jobs_in_slice_extra + t.jobs_in_gap_slice + 1) {
      add (out, "invariant:preemptions_slices", t.task, 0, g_strdup_printf (
          "%s: %" G_GUINT64_FORMAT " preemptions + %" G_GUINT64_FORMAT " waits + %"
          G_GUINT64_FORMAT " jobs, but only %" G_GUINT64_FORMAT " closed slices (+%"
          G_GUINT64_FORMAT " jobs restarted in one, +%" G_GUINT64_FORMAT " ended in a slice "
          "a gap cut) end them", who, t.preemptions, t.waits, jobs, t.run_interval.count,
          t.jobs_in_slice_extra, t.jobs_in_gap_slice));
      n++;
    }
  }
  return n;
}
