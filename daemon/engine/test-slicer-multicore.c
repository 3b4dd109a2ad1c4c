/* test-slicer-multicore.c — the slicer on streams of several cores (issue 19): a task that
 * migrates between cores between jobs and inside a job, and cross-core activation latency
 * (ACTIVATE on one core → the job's first switch-in on another), with the cases that must not
 * count (same core, a gap between, a switch-in fed before its activation). */
#include "test-slicer-util.h"

static gboolean
task_stats (Rec *r, const char *name, SlicerTaskStats *out)
{
  guint32 id = rec_id (r, EVENTS_TEXT_TASK, name);
  for (gsize i = 0; i < slicer_n_tasks (r->slicer); i++)
    if (slicer_get_task_stats (r->slicer, i, out) && out->task == id)
      return TRUE;
  return FALSE;
}

/* Task @name's row on @core from slicer_get_task_core_stats (FALSE: none). */
static gboolean
task_core (Rec *r, const char *name, guint16 core, SlicerTaskCoreStats *out)
{
  guint32 id = rec_id (r, EVENTS_TEXT_TASK, name);
  g_autoptr (GArray) a = g_array_new (FALSE, TRUE, sizeof (SlicerTaskCoreStats));
  slicer_get_task_core_stats (r->slicer, a);
  for (guint i = 0; i < a->len; i++) {
    const SlicerTaskCoreStats *t = &g_array_index (a, SlicerTaskCoreStats, i);
    if (t->task == id && t->core == core) {
      *out = *t;
      return TRUE;
    }
  }
  return FALSE;
}

static guint64
n_anomalies (Rec *r)
{
  guint64 n = 0;
  for (guint k = 0; k < SLICER_ANOMALY_KIND_COUNT; k++)
    n += slicer_anomaly_count (r->slicer, k);
  return n;
}

/* M runs one job on core 0, the next on core 1, the next on core 0: three jobs, no anomaly,
 * each slice on the core it ran on, each core's task time its own share. */
static void
test_migrate_between_jobs (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 ACTIVATE: M\n0 @0 TASK: M\n30 @0 TERMINATE: M\n30 @0 TASK: idle\n"
               "100 @1 ACTIVATE: M\n100 @1 TASK: M\n150 @1 TERMINATE: M\n150 @1 TASK: idle\n"
               "200 @0 ACTIVATE: M\n200 @0 TASK: M\n220 @0 TERMINATE: M\n220 @0 TASK: idle\n"
               "300 @0 END\n");
  g_assert_cmpuint (n_anomalies (r), ==, 0);
  SlicerTaskStats t;
  g_assert_true (task_stats (r, "M", &t));
  g_assert_cmpuint (t.run_time, ==, 30 + 50 + 20);
  g_assert_cmpuint (t.job.count, ==, 3);
  g_assert_cmpuint (t.response.max, ==, 50);
  g_assert_cmpuint (t.preemptions, ==, 0);
  g_assert_cmpuint (r->slices->len, ==, 3);
  static const guint16 cores[] = { 0, 1, 0 };
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (g_array_index (r->slices, SlicerSlice, i).core, ==, cores[i]);
  SlicerCoreStats c0, c1;
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &c0));
  g_assert_true (slicer_get_core_stats (r->slicer, 1, &c1));
  g_assert_cmpuint (c0.task_time, ==, 50);
  g_assert_cmpuint (c1.task_time, ==, 50);
  /* per core: two slices and jobs on core 0 (30 + 20), one on core 1 (50) */
  SlicerTaskCoreStats m0, m1;
  g_assert_true (task_core (r, "M", 0, &m0));
  g_assert_true (task_core (r, "M", 1, &m1));
  g_assert_cmpuint (m0.slices, ==, 2);
  g_assert_cmpuint (m0.jobs, ==, 2);
  g_assert_cmpuint (m0.run_time, ==, 50);
  g_assert_cmpuint (m1.slices, ==, 1);
  g_assert_cmpuint (m1.jobs, ==, 1);
  g_assert_cmpuint (m1.run_time, ==, 50);
  /* activated on the core it starts on: no cross-core latency */
  g_assert_cmpuint (slicer_n_cross_core (r->slicer), ==, 0);
  rec_free (r);
}

/* M is preempted on core 0 by H and resumes on core 1 (the OS moved it): one job, one
 * preemption, its net time is both slices', its response spans both cores. */
static void
test_migrate_inside_job (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 ACTIVATE: M\n0 @0 TASK: M\n"
               "40 @0 ACTIVATE: H\n40 @0 TASK: H\n"
               "50 @1 TASK: M\n"                       /* resumed on core 1 */
               "70 @0 TERMINATE: H\n70 @0 TASK: idle\n"
               "80 @1 TERMINATE: M\n80 @1 TASK: idle\n"
               "100 @0 END\n");
  g_assert_cmpuint (n_anomalies (r), ==, 0);
  SlicerTaskStats m;
  g_assert_true (task_stats (r, "M", &m));
  g_assert_cmpuint (m.preemptions, ==, 1);
  g_assert_cmpuint (m.job.count, ==, 1);
  g_assert_cmpuint (m.job.max, ==, 40 + 30);
  g_assert_cmpuint (m.response.max, ==, 80);
  g_assert_cmpuint (m.run_time, ==, 70);
  /* a resume is no job start: H's and M's activations were on the core they ran on */
  g_assert_cmpuint (slicer_n_cross_core (r->slicer), ==, 0);
  SlicerCoreStats c1;
  g_assert_true (slicer_get_core_stats (r->slicer, 1, &c1));
  g_assert_cmpuint (c1.task_time, ==, 30);
  /* one job, begun on core 0; a slice on each core; H only on core 0 */
  SlicerTaskCoreStats m0, m1, h1;
  g_assert_true (task_core (r, "M", 0, &m0));
  g_assert_true (task_core (r, "M", 1, &m1));
  g_assert_cmpuint (m0.jobs, ==, 1);
  g_assert_cmpuint (m1.jobs, ==, 0);
  g_assert_cmpuint (m0.slices + m1.slices, ==, 2);
  g_assert_cmpuint (m0.run_time, ==, 40);
  g_assert_cmpuint (m1.run_time, ==, 30);
  g_assert_false (task_core (r, "H", 1, &h1));
  rec_free (r);
}

/* Mid-slice (before END), a running task's row counts its open slice up to its core's latest
 * event, as slicer_get_task_stats' run_time does. */
static void
test_task_core_open_slice (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @1 ACTIVATE: M\n0 @1 TASK: M\n25 @1 ACTIVATE: H\n");
  SlicerTaskCoreStats m;
  g_assert_true (task_core (r, "M", 1, &m));
  g_assert_cmpuint (m.run_time, ==, 25);
  SlicerTaskStats t;
  g_assert_true (task_stats (r, "M", &t));
  g_assert_cmpuint (m.run_time, ==, t.run_time);
  g_assert_false (task_core (r, "M", 0, &m));
  rec_free (r);
}

/* A task's per-core rows add up to its statistics: slices to its complete slices (one open at
 * the end counts in neither; issue 33: task_core_stats was one above task_stats), run time to
 * its run time; the core it only ran on in an open slice still has its row. */
static void
test_task_core_slices_add_up (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 ACTIVATE: M\n0 @0 TASK: M\n30 @0 TERMINATE: M\n30 @0 TASK: idle\n"
               "100 @1 ACTIVATE: M\n100 @1 TASK: M\n"   /* still running at the end */
               "300 @0 END\n");
  SlicerTaskStats t;
  g_assert_true (task_stats (r, "M", &t));
  SlicerTaskCoreStats m0, m1;
  g_assert_true (task_core (r, "M", 0, &m0));
  g_assert_true (task_core (r, "M", 1, &m1));
  g_assert_cmpuint (t.run_interval.count, ==, 1);
  g_assert_cmpuint (m0.slices + m1.slices, ==, t.run_interval.count);
  g_assert_cmpuint (m1.slices, ==, 0);
  g_assert_cmpuint (m0.run_time + m1.run_time, ==, t.run_time);
  g_assert_cmpuint (m1.run_time, >, 0);
  rec_free (r);
}

/* A task already running on core 0 that core 1 switches in is the TASK_ON_TWO_CORES repair,
 * not a migration: a migration needs the switch-out first. */
static void
test_migrate_without_switch_out (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 TASK: M\n10 @1 TASK: M\n20 @1 TASK: idle\n");
  g_assert_cmpuint (slicer_anomaly_count (r->slicer, SLICER_ANOMALY_TASK_ON_TWO_CORES), ==, 1);
  rec_free (r);
}

/* Core 1 halts (a GAP of core 1 alone) while A runs on core 0 and B on core 1: B's slice and
 * job are cut at the gap, core 1's time until its next event is unknown, and A on core 0 runs
 * on untouched — one slice, one complete job, no time unknown on core 0. */
static void
test_core_only_gap (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 ACTIVATE: A\n0 @0 TASK: A\n0 @1 ACTIVATE: B\n0 @1 TASK: B\n"
               "40 @1 GAP core\n"
               "100 @1 TASK: idle\n"
               "120 @0 TERMINATE: A\n120 @0 TASK: idle\n"
               "130 @1 ACTIVATE: B\n130 @1 TASK: B\n150 @1 TERMINATE: B\n150 @1 TASK: idle\n"
               "200 @0 END\n");
  SlicerTaskStats a, b;
  g_assert_true (task_stats (r, "A", &a));
  g_assert_true (task_stats (r, "B", &b));
  g_assert_cmpuint (a.run_time, ==, 120);
  g_assert_cmpuint (a.job.count, ==, 1);
  g_assert_cmpuint (a.job.max, ==, 120);
  g_assert_cmpuint (b.run_time, ==, 40 + 20);
  g_assert_cmpuint (b.job.count, ==, 1); /* the second; the first was cut by the gap */
  g_assert_cmpuint (b.job.max, ==, 20);
  SlicerCoreStats c0, c1;
  g_assert_true (slicer_get_core_stats (r->slicer, 0, &c0));
  g_assert_true (slicer_get_core_stats (r->slicer, 1, &c1));
  g_assert_cmpuint (c0.unknown_time, ==, 0);
  g_assert_cmpuint (c0.task_time, ==, 120);
  g_assert_cmpuint (c1.unknown_time, ==, 100 - 40);
  guint a_slices = 0;
  for (guint i = 0; i < r->slices->len; i++) {
    const SlicerSlice *sl = &g_array_index (r->slices, SlicerSlice, i);
    if (sl->core == 0)
      a_slices++;
    else if (sl->start == 0)
      g_assert_true (sl->flags & SLICER_FLAG_GAP); /* B's slice ends at the gap */
  }
  g_assert_cmpuint (a_slices, ==, 1);
  rec_free (r);
}

/* Core 0 activates X three times; X's jobs start on core 1 after 5, 9 and 7 ticks; core 1
 * activates Y, which starts on core 0 after 12. A same-core activation, an activation whose
 * start comes after a gap, and a start fed before its activation are not samples. */
static void
test_cross_core_latency (void)
{
  Rec *r = rec_new (NULL);
  rec_feed (r, "0 @0 TASK: A\n0 @1 TASK: idle\n"
               "10 @0 ACTIVATE: X\n15 @1 TASK: X\n20 @1 TERMINATE: X\n20 @1 TASK: idle\n"
               "30 @0 ACTIVATE: X\n39 @1 TASK: X\n"
               "40 @1 ACTIVATE: Y\n"                   /* while X runs on core 1 */
               "45 @1 TERMINATE: X\n45 @1 TASK: idle\n"
               "50 @0 ACTIVATE: X\n"
               "52 @0 TASK: Y\n"                       /* Y: core 1 → core 0, 12 */
               "55 @0 TERMINATE: Y\n55 @0 TASK: A\n"
               "57 @1 TASK: X\n58 @1 TERMINATE: X\n58 @1 TASK: idle\n"
               "60 @1 ACTIVATE: Z\n61 @1 TASK: Z\n62 @1 TERMINATE: Z\n62 @1 TASK: idle\n"
               "70 @0 ACTIVATE: X\n71 @1 GAP\n72 @1 TASK: X\n73 @1 TERMINATE: X\n73 @1 TASK: idle\n");
  SlicerCrossCoreStats x;
  g_assert_cmpuint (slicer_n_cross_core (r->slicer), ==, 2);
  g_assert_true (slicer_get_cross_core_stats (r->slicer, 0, &x));
  g_assert_cmpuint (x.from_core, ==, 0);
  g_assert_cmpuint (x.core, ==, 1);
  g_assert_cmpuint (x.latency.count, ==, 3);
  g_assert_cmpuint (x.latency.min, ==, 5);
  g_assert_cmpuint (x.latency.max, ==, 9);
  g_assert_cmpfloat_with_epsilon (x.latency.avg, 7.0, 1e-9);
  g_assert_cmpuint (x.pct.p50, ==, 7); /* exact below 2^hist_bits */
  g_assert_cmpuint (x.pct.p99, ==, 9);
  g_assert_true (slicer_get_cross_core_stats (r->slicer, 1, &x));
  g_assert_cmpuint (x.from_core, ==, 1);
  g_assert_cmpuint (x.core, ==, 0);
  g_assert_cmpuint (x.latency.count, ==, 1);
  g_assert_cmpuint (x.latency.min, ==, 12);
  g_assert_false (slicer_get_cross_core_stats (r->slicer, 2, &x));
  rec_free (r);

  /* out of order across cores: the start is fed before the activation that caused it */
  r = rec_new (NULL);
  rec_feed (r, "15 @1 TASK: X\n10 @0 ACTIVATE: X\n20 @1 TERMINATE: X\n20 @1 TASK: idle\n");
  g_assert_cmpuint (slicer_n_cross_core (r->slicer), ==, 0);
  rec_free (r);

  /* two activations before the job starts (OSEK queues them): the first job serves the
   * oldest, the next job the other */
  r = rec_new (NULL);
  rec_feed (r, "10 @0 ACTIVATE: X\n12 @0 ACTIVATE: X\n20 @1 TASK: X\n25 @1 TERMINATE: X\n"
               "25 @1 TASK: idle\n27 @1 TASK: X\n30 @1 TERMINATE: X\n30 @1 TASK: idle\n");
  g_assert_cmpuint (slicer_n_cross_core (r->slicer), ==, 1);
  g_assert_true (slicer_get_cross_core_stats (r->slicer, 0, &x));
  g_assert_cmpuint (x.latency.count, ==, 2);
  g_assert_cmpuint (x.latency.min, ==, 10);
  g_assert_cmpuint (x.latency.max, ==, 15);
  rec_free (r);

  /* … also when the next job follows without a switch-out (dispatched again at its TERMINATE) */
  r = rec_new (NULL);
  rec_feed (r, "10 @0 ACTIVATE: X\n12 @0 ACTIVATE: X\n20 @1 TASK: X\n25 @1 TERMINATE: X\n"
               "25 @1 TASK: X\n30 @1 TERMINATE: X\n30 @1 TASK: idle\n");
  g_assert_true (slicer_get_cross_core_stats (r->slicer, 0, &x));
  g_assert_cmpuint (x.latency.count, ==, 2);
  g_assert_cmpuint (x.latency.max, ==, 13);
  rec_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/slicer/multicore/migrate-between-jobs", test_migrate_between_jobs);
  g_test_add_func ("/slicer/multicore/migrate-inside-job", test_migrate_inside_job);
  g_test_add_func ("/slicer/multicore/migrate-without-switch-out", test_migrate_without_switch_out);
  g_test_add_func ("/slicer/multicore/cross-core-latency", test_cross_core_latency);
  g_test_add_func ("/slicer/multicore/task-core-open-slice", test_task_core_open_slice);
  g_test_add_func ("/slicer/multicore/task-core-slices-add-up", test_task_core_slices_add_up);
  g_test_add_func ("/slicer/multicore/core-only-gap", test_core_only_gap);
  return g_test_run ();
}
