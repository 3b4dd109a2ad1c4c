/* test-bounds.c — the error-bound model of bounds.h, proved by simulation.
 *
 * A known schedule (the rig's pfp, split and a harmonic workload, computed exactly in ticks) is
 * sampled the way the poll source samples a target — irregular intervals, stalls, bunched
 * samples, a random phase — and the samples go through the real estimator (task switches at
 * the sample instants into the slicer). For every task the true load must lie inside load ±
 * bounds_load_half_width (…, n_eff) in at least 98 % of 300 sessions per workload (a 99 %
 * interval); if it does not, the model is wrong. Deterministic: fixed seeds. */
#include <math.h>

#include "bounds.h"
#include "slicer.h"

/* ---- schedules: preemptive fixed priority, periodic tasks, computed exactly ---------------- */

typedef struct {
  guint64 period, phase, load; /* ticks */
  guint prio;                  /* larger = more urgent */
} SimTask;

typedef struct {
  guint64 start;
  guint32 task;                /* index, or G_MAXUINT32 idle */
} Segment;

/* One hyperperiod of the schedule of @tasks as segments (who runs from when). */
static GArray *
schedule (const SimTask *tasks, guint n, guint64 hyper)
{
  GArray *seg = g_array_new (FALSE, FALSE, sizeof (Segment));
  guint64 *left = g_new0 (guint64, n); /* remaining load of the current job */
  guint32 running = G_MAXUINT32 - 1;
  for (guint64 t = 0; t < hyper; t++) {
    for (guint i = 0; i < n; i++)
      if ((t + hyper - tasks[i].phase) % tasks[i].period == 0)
        left[i] += tasks[i].load;
    guint32 best = G_MAXUINT32;
    for (guint i = 0; i < n; i++)
      if (left[i] > 0 && (best == G_MAXUINT32 || tasks[i].prio > tasks[best].prio))
        best = i;
    if (best != running) {
      Segment s = { t, best };
      g_array_append_val (seg, s);
      running = best;
    }
    if (best != G_MAXUINT32)
      left[best]--;
  }
  g_free (left);
  return seg;
}

static guint32
who_runs (GArray *seg, guint64 hyper, guint64 t)
{
  t %= hyper;
  guint lo = 0, hi = seg->len;
  while (hi - lo > 1) {
    guint mid = (lo + hi) / 2;
    if (g_array_index (seg, Segment, mid).start <= t)
      lo = mid;
    else
      hi = mid;
  }
  return g_array_index (seg, Segment, lo).task;
}

/* ---- one sampled session --------------------------------------------------------------------- */

/* Samples @seconds of the schedule with mean interval @mean (ticks) the way a busy host does:
 * uniform jitter ±60 %, 3 % bunched samples (a second read right after the first), 0.5 %
 * stalls of 20 intervals. Returns per task: estimate, half-width; truth from the schedule. */
static void
sample_session (GArray *seg, guint64 hyper, guint n_tasks, double seconds, double mean,
                GRand *rand, double *est, double *half)
{
  const guint64 hz = 1000000;
  guint64 span = (guint64) (seconds * hz);
  guint64 t = (guint64) g_rand_int_range (rand, 0, (gint32) hyper);
  guint64 t0 = t;
  SlicerConfig cfg = SLICER_CONFIG_INIT;
  cfg.terminate_events = TRUE;
  Slicer *sl = slicer_new (&cfg);
  double sum = 0, sum_sq = 0;
  guint32 last = G_MAXUINT32 - 1;
  while (t < t0 + span) {
    guint32 who = who_runs (seg, hyper, t);
    if (who != last) {
      ProbeEvent ev = { .ts = t - t0, .kind = PROBE_EVENT_TASK_SWITCH,
                        .a = who == G_MAXUINT32 ? PROBE_TASK_IDLE : who };
      slicer_feed (sl, &ev, 1);
      last = who;
    }
    double u = g_rand_double (rand);
    double dt = u < 0.03 ? 1 : u < 0.035 ? 20 * mean : mean * g_rand_double_range (rand, 0.4, 1.6);
    sum += dt;
    sum_sq += dt * dt;
    t += (guint64) MAX (dt, 1.0);
  }
  slicer_finish (sl, t - t0);
  double n_eff = bounds_effective_samples (sum, sum_sq);
  for (guint i = 0; i < n_tasks; i++)
    est[i] = half[i] = 0;
  for (gsize k = 0; k < slicer_n_tasks (sl); k++) {
    SlicerTaskStats st;
    slicer_get_task_stats (sl, k, &st);
    est[st.task] = st.load_pct / 100;
  }
  for (guint i = 0; i < n_tasks; i++)
    half[i] = bounds_load_half_width (est[i], n_eff);
  slicer_free (sl);
}

static void
check_workload (const char *name, const SimTask *tasks, guint n, guint64 hyper, double mean)
{
  g_autoptr (GArray) seg = schedule (tasks, n, hyper);
  double truth[8] = { 0 };
  for (guint k = 0; k < seg->len; k++) {
    const Segment *s = &g_array_index (seg, Segment, k);
    guint64 end = k + 1 < seg->len ? g_array_index (seg, Segment, k + 1).start : hyper;
    if (s->task != G_MAXUINT32)
      truth[s->task] += (double) (end - s->start) / (double) hyper;
  }
  GRand *rand = g_rand_new_with_seed (0x5eed + n);
  const guint trials = 300;
  guint inside[8] = { 0 };
  double width = 0;
  for (guint r = 0; r < trials; r++) {
    double est[8], half[8];
    sample_session (seg, hyper, n, 10.0, mean, rand, est, half);
    for (guint i = 0; i < n; i++) {
      inside[i] += fabs (est[i] - truth[i]) <= half[i];
      width = MAX (width, 2 * half[i]);
    }
  }
  g_rand_free (rand);
  for (guint i = 0; i < n; i++) {
    g_test_message ("%s task %u: truth %.4f inside the 99 %% bound in %u of %u sessions", name, i,
                    truth[i], inside[i], trials);
    if (inside[i] < trials * 98 / 100)
      g_error ("%s task %u: truth %.4f inside the bound in only %u of %u sessions", name, i,
               truth[i], inside[i], trials);
  }
  g_test_message ("%s: widest interval %.2f points", name, 100 * width);
}

/* ticks are µs: pfp (Task0 10 ms at 0 running 6 ms, Task1 10 ms at 1.5 ms running 1.3 ms),
 * sampled every ~1 ms: Task1's runs are about one interval long. */
static void
test_pfp (void)
{
  const SimTask t[] = { { 10000, 0, 6000, 1 }, { 10000, 1500, 1300, 2 } };
  check_workload ("pfp", t, 2, 10000, 1000);
}

/* split: 5/10/20/40 ms, 0.4/1.6/4.8/12.8 ms; SplitA's runs are shorter than an interval. */
static void
test_split (void)
{
  const SimTask t[] = { { 5000, 0, 400, 6 }, { 10000, 0, 1600, 5 }, { 20000, 0, 4800, 4 },
                        { 40000, 0, 12800, 3 } };
  check_workload ("split", t, 4, 40000, 1200);
}

/* harmonic 10/20/50 ms, the lowest preempted at known points; sampled slowly (3 ms). */
static void
test_harmonic (void)
{
  const SimTask t[] = { { 10000, 0, 2000, 3 }, { 20000, 500, 5000, 2 }, { 50000, 0, 15000, 1 } };
  check_workload ("harmonic", t, 3, 100000, 3000);
}

static void
test_wilson (void)
{
  double lo, hi;
  bounds_wilson (0.5, 10000, BOUNDS_Z99, &lo, &hi);
  g_assert_cmpfloat (fabs ((hi - lo) / 2 - BOUNDS_Z99 * 0.005), <, 1e-4);
  bounds_wilson (0.0, 100, BOUNDS_Z99, &lo, &hi); /* never sampled: not zero-width */
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, >, 0.05);
  bounds_wilson (0.3, 0, BOUNDS_Z99, &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 1);
  g_assert_cmpfloat (bounds_effective_samples (10, 10), ==, 10); /* ten equal intervals */
  g_assert_cmpfloat (bounds_effective_samples (10, 25 + 25), ==, 2); /* two stalls of 5 */
  /* jobs at 0, 100, …, 1000 in a span of 1000: 11, the last seen 900 after the first. Its
   * start may have been seen up to a period late: the period may be 800 / 9, and 12 jobs fit */
  g_assert_cmpfloat (bounds_jobs_most (1000, 900, 9), ==, 12);
  g_assert_cmpfloat (bounds_jobs_most (100000, 99000, 990), ==, 1002); /* 1001 + 1 */
  g_assert_true (isnan (bounds_jobs_most (1000, 900, 0)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bounds/wilson", test_wilson);
  g_test_add_func ("/bounds/model/pfp", test_pfp);
  g_test_add_func ("/bounds/model/split", test_split);
  g_test_add_func ("/bounds/model/harmonic", test_harmonic);
  return g_test_run ();
}
